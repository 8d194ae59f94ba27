/* tests/support/tmpdir.c — see tmpdir.h. */
#include "tests/support/tmpdir.h"

#include <check.h>
#include <glib/gstdio.h>

char *test_tmpdir(const char *tmpl)
{
  g_autoptr(GError) e = NULL;
  char *d = g_dir_make_tmp(tmpl, &e);
  ck_assert_msg(d != NULL, "%s", e ? e->message : "");
  return d;
}

void test_rmdir(char *d)
{
  if (!d) return;
  GDir *dir = g_dir_open(d, 0, NULL);
  for (const char *n; dir && (n = g_dir_read_name(dir));) {
    g_autofree char *f = g_build_filename(d, n, NULL);
    g_unlink(f);
  }
  if (dir) g_dir_close(dir);
  g_rmdir(d);
  g_free(d);
}
