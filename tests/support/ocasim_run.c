/* tests/support/ocasim_run.c — see ocasim_run.h. */
#include "tests/support/ocasim_run.h"

#include <check.h>
#include <glib.h>
#include <string.h>
#include <sys/wait.h>

int test_run_ocasim(const char *const *args, char **out, char **err)
{
  const char *bin = g_getenv("OCASIM_BIN");
  ck_assert_msg(bin != NULL, "OCASIM_BIN is not set (run through make test)");
  GPtrArray *argv = g_ptr_array_new();
  g_ptr_array_add(argv, (char *)bin);
  for (; *args; args++) g_ptr_array_add(argv, (char *)*args);
  g_ptr_array_add(argv, NULL);
  int status = -1;
  GError *error = NULL;
  gboolean ok = g_spawn_sync(NULL, (char **)argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, out, err, &status, &error);
  ck_assert_msg(ok, "spawn failed: %s", error ? error->message : "");
  g_ptr_array_free(argv, TRUE);
  ck_assert(WIFEXITED(status));
  return WEXITSTATUS(status);
}

char *test_ocasim_version(void)
{
  const char *args[] = { "--version", NULL };
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_int_eq(test_run_ocasim(args, &out, &err), 0);
  ck_assert_msg(g_str_has_prefix(out, "ocasim ") && strlen(out) > strlen("ocasim \n"), "ocasim --version: '%s'", out);
  g_strchomp(out);
  return g_strdup(out + strlen("ocasim "));
}
