/* tests/support/tmpdir.h — a fresh directory for one test, removed when the test returns. */
#ifndef TESTS_SUPPORT_TMPDIR_H
#define TESTS_SUPPORT_TMPDIR_H

#include <glib.h>

/* A new directory under the temporary directory from @tmpl ("name-XXXXXX", g_dir_make_tmp);
 *  the calling test fails when it cannot be made.  (transfer full: free with test_rmdir) */
char *test_tmpdir(const char *tmpl);
/* Removes the files of directory @d (one level, as the tests write them), the directory, and
 *  frees @d; NULL is allowed. */
void test_rmdir(char *d);

/* g_auto(TestDir) d = test_tmpdir(...): removed by test_rmdir when it goes out of scope. */
typedef char *TestDir;
G_DEFINE_AUTO_CLEANUP_FREE_FUNC(TestDir, test_rmdir, NULL)

#endif /* TESTS_SUPPORT_TMPDIR_H */
