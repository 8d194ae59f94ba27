/* tests/support/ocasim_run.h — running the built `ocasim` from a test. */
#ifndef TESTS_SUPPORT_OCASIM_RUN_H
#define TESTS_SUPPORT_OCASIM_RUN_H

/** Runs the ocasim binary named by $OCASIM_BIN (set by make test) with @args (NULL-terminated,
 *  the arguments after the program name) in the current directory, waits for it, stores its
 *  stdout and stderr in *@out and *@err (transfer full) and returns its exit status.  The
 *  calling test fails when OCASIM_BIN is unset, the spawn fails or the process was killed. */
int test_run_ocasim(const char *const *args, char **out, char **err);

/** Asserts that @err, the stderr of a run on @file (@what names the case in messages), is one
 *  line that names "FILE:LINE:COL: " followed by "@path: " (unless @path is "", an error at the
 *  root) and holds @message. */
void test_assert_located(const char *what, const char *err, const char *file, int line, int col, const char *path,
                         const char *message);

#endif /* TESTS_SUPPORT_OCASIM_RUN_H */
