/* tests/test_golden.c — golden outputs of every shipped scenario (SimGrid's tesh idea).
 *
 * For every scenario under scenarios/ and scenarios/reference/, each of `ocasim bound`, `run`
 * and `capacity`, as `--format table` and `--format json`, is run through the real command line
 * and its stdout, stderr and exit status are compared byte for byte with
 * tests/golden/<scenario>.<command>.<format> (run and capacity with --no-interval: bound's
 * transcripts hold the prediction intervals). A scenario without its golden file, or a golden
 * file without its scenario, fails too, so the set cannot drift.
 *
 * The version of the build (`ocasim --version`, stamped into every JSON result as
 * "ocasim_version") changes with every commit: each transcript has the quoted version
 * replaced by "@VERSION@" before it is compared or written.
 *
 * An intended change of output is recorded with `make golden-update` (this binary with
 * OCASIM_GOLDEN_UPDATE=1 set rewrites the files instead of comparing); the diff of
 * tests/golden/ then goes into the same commit as the change and its note. */
#include "tests/support/check_run.h"
#include "tests/support/ocasim_run.h"
#include <check.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#define GOLDEN_DIR "tests/golden"

static const char *const commands[] = { "bound", "run", "capacity" };
static const char *const formats[] = { "table", "json" };
enum { N_COMMANDS = G_N_ELEMENTS(commands), N_FORMATS = G_N_ELEMENTS(formats) };

/* Scenario files (sorted, relative to the repository root). */
static GPtrArray *scenario_files(void)
{
  static const char *const dirs[] = { "scenarios", "scenarios/reference" };
  GPtrArray *files = g_ptr_array_new_with_free_func(g_free);
  for (gsize d = 0; d < G_N_ELEMENTS(dirs); d++) {
    g_autoptr(GDir) dir = g_dir_open(dirs[d], 0, NULL);
    ck_assert_msg(dir != NULL, "cannot open %s (tests run from the repository root)", dirs[d]);
    const char *name;
    while ((name = g_dir_read_name(dir)))
      if (g_str_has_suffix(name, ".yaml")) g_ptr_array_add(files, g_build_filename(dirs[d], name, NULL));
  }
  g_ptr_array_sort(files, (GCompareFunc)(void *)g_strcmp0);
  return files;
}

/* Golden file name of one (scenario, command, format): the scenario path below scenarios/,
 * with '/' as '+'. */
static char *golden_path(const char *scenario, const char *command, const char *format)
{
  const char *rel = g_str_has_prefix(scenario, "scenarios/") ? scenario + strlen("scenarios/") : scenario;
  g_autofree char *flat = g_strdup(rel);
  g_strdelimit(flat, "/", '+');
  if (g_str_has_suffix(flat, ".yaml")) flat[strlen(flat) - strlen(".yaml")] = '\0';
  return g_strdup_printf(GOLDEN_DIR "/%s.%s.%s", flat, command, format);
}

/* @text with every @from replaced by @to. */
static char *replace_all(const char *text, const char *from, const char *to)
{
  g_auto(GStrv) parts = g_strsplit(text, from, -1);
  return g_strjoinv(to, parts);
}

/* What one command printed: stdout, then stderr and the exit status under markers, with the
 * version as "@VERSION@". */
static char *transcript(const char *scenario, const char *command, const char *format)
{
  static char *version; /* quoted; read once */
  if (!version) {
    g_autofree char *v = test_ocasim_version();
    version = g_strdup_printf("\"%s\"", v);
  }
  const char *bin = g_getenv("OCASIM_BIN");
  ck_assert_msg(bin != NULL, "OCASIM_BIN is not set (run through make test)");
  /* run and capacity without their prediction intervals: the interval is the bound's, through the
   * same code at the same load (the bound goldens hold it), and the draws cost ~1.5 s a scenario
   * under the sanitizers */
  gboolean bound = strcmp(command, "bound") == 0;
  const char *argv[] = { bin, command, scenario, "--format", format, bound ? NULL : "--no-interval", NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status = -1;
  GError *error = NULL;
  gboolean ok = g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error);
  ck_assert_msg(ok, "spawn failed: %s", error ? error->message : "");
  ck_assert_msg(WIFEXITED(status), "%s %s %s: killed by a signal", command, scenario, format);
  g_autofree char *text = g_strdup_printf("%s--- stderr\n%s--- exit %d\n", out, err, WEXITSTATUS(status));
  return replace_all(text, version, "\"@VERSION@\"");
}

START_TEST(test_golden_outputs)
{
  g_autoptr(GPtrArray) files = scenario_files();
  gboolean update = g_getenv("OCASIM_GOLDEN_UPDATE") != NULL;
  ck_assert_msg(files->len >= 30, "only %u scenarios found", files->len);
  g_autoptr(GHashTable) expected = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  int mismatches = 0;
  for (guint i = 0; i < files->len; i++) {
    const char *scenario = files->pdata[i];
    for (int c = 0; c < N_COMMANDS; c++)
      for (int f = 0; f < N_FORMATS; f++) {
        char *path = golden_path(scenario, commands[c], formats[f]);
        g_hash_table_add(expected, g_path_get_basename(path));
        g_autofree char *got = transcript(scenario, commands[c], formats[f]);
        if (update) {
          GError *error = NULL;
          ck_assert_msg(g_file_set_contents(path, got, -1, &error), "%s", error ? error->message : "");
        } else {
          g_autofree char *want = NULL;
          if (!g_file_get_contents(path, &want, NULL, NULL)) {
            fprintf(stderr, "golden: %s is missing (make golden-update records it)\n", path);
            mismatches++;
          } else if (strcmp(want, got) != 0) {
            fprintf(stderr, "golden: `ocasim %s %s --format %s` differs from %s\n", commands[c], scenario, formats[f], path);
            mismatches++;
          }
        }
        g_free(path);
      }
  }
  /* every golden file belongs to a scenario */
  g_autoptr(GDir) dir = g_dir_open(GOLDEN_DIR, 0, NULL);
  ck_assert_msg(dir != NULL, "cannot open " GOLDEN_DIR);
  const char *name;
  while ((name = g_dir_read_name(dir)))
    if (!g_hash_table_contains(expected, name)) {
      fprintf(stderr, "golden: %s/%s has no scenario (remove it)\n", GOLDEN_DIR, name);
      mismatches++;
    }
  ck_assert_msg(mismatches == 0,
                "%d golden outputs differ or are missing; diff them, and run make golden-update only "
                "for an intended change",
                mismatches);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("golden");
  TCase *tc = tcase_create("outputs");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_golden_outputs);
  suite_add_tcase(s, tc);
  return test_run_suite(s);
}
