/* tests/support/ocasim_run.c — see ocasim_run.h. */
#include "tests/support/ocasim_run.h"

#include <check.h>
#include <glib.h>
#include <stdio.h>
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

GHashTable *test_ocasim_help_options(const char *cmd)
{
  const char *args[] = { cmd, "--help", NULL };
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_int_eq(test_run_ocasim(args, &out, &err), 0);
  GHashTable *opts = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  g_auto(GStrv) lines = g_strsplit(out, "\n", -1);
  for (char **l = lines; *l; l++) {
    const char *s = *l;
    while (*s == ' ') s++;
    char shortopt[2] = { 0, 0 };
    if (s[0] == '-' && s[1] != '-' && s[1] && s[2] == ',') {
      shortopt[0] = s[1];
      s += 3;
      while (*s == ' ') s++;
    }
    if (!g_str_has_prefix(s, "--")) continue;
    s += 2;
    size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-");
    g_hash_table_insert(opts, g_strndup(s, n), g_strdup(shortopt));
  }
  return opts;
}

int test_spawn(const char *const *argv, const char *const *env, const char *cwd, char **out, char **err)
{
  g_auto(GStrv) envp = g_get_environ();
  for (; env && *env; env++) {
    g_auto(GStrv) kv = g_strsplit(*env, "=", 2);
    envp = kv[1] && *kv[1] ? g_environ_setenv(envp, kv[0], kv[1], TRUE) : g_environ_unsetenv(envp, kv[0]);
  }
  int status = -1;
  GError *e = NULL;
  ck_assert_msg(g_spawn_sync(cwd, (char **)argv, envp, G_SPAWN_SEARCH_PATH, NULL, NULL, out, err, &status, &e), "spawn %s: %s",
                argv[0], e ? e->message : "");
  ck_assert_msg(WIFEXITED(status), "%s: killed by a signal", argv[0]);
  return WEXITSTATUS(status);
}

char *test_find_program(const char *name, const char *test)
{
  char *path = g_find_program_in_path(name);
  if (!path) fprintf(stderr, "%s: skipped: no %s in PATH\n", test, name);
  return path;
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
