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

void test_assert_located(const char *what, const char *err, const char *file, int line, int col, const char *path,
                         const char *message)
{
  g_autofree char *where =
      path[0] ? g_strdup_printf("%s:%d:%d: %s: ", file, line, col, path) : g_strdup_printf("%s:%d:%d: ", file, line, col);
  ck_assert_msg(strstr(err, where) != NULL, "%s: expected '%s' in: %s", what, where, err);
  ck_assert_msg(strstr(err, message) != NULL, "%s: expected '%s' in: %s", what, message, err);
  ck_assert_msg(strchr(err, '\n') == err + strlen(err) - 1, "%s: message is not one line: %s", what, err);
}
