/* tests/test_golden.c — byte-exact golden outputs of a few scenarios (SimGrid's tesh idea): the formats.
 *
 * Each (scenario, command, format) of the goldens table below is run through the real command
 * line and its stdout, stderr and exit status are compared byte for byte with
 * tests/golden/<scenario>.<command>.<format> (run and capacity with --no-interval: bound's
 * transcripts hold the prediction intervals). A golden file not in the table fails too, so the
 * set cannot drift. The few kept pin every field, label and digit of each output:
 *   rome-400g-nic-ktls   bound, run and capacity as table, json and csv: the appliance outputs
 *                        (a NIC kTLS box with intervals, co-bottlenecks, port drops, RAM lines)
 *   rome-400g-page-cache bound as table and json: the page-cache lines, printed only when it is on
 *   mm1                  run as table, json and csv: a queueing network's own result shape; bound
 *                        as table: the located refusal of an appliance-only command
 * Every scenario's headline figures (throughput, CPU, bottleneck, utilisations) are checked
 * within tolerances by tests/test_figures.c against tests/figures.csv, so a change of the
 * model's last bits rewrites these few files, not one per scenario.
 *
 * The version of the build (`ocasim --version`, stamped into every JSON and CSV result) changes
 * with every commit: each transcript has the version replaced by @VERSION@ before it is compared
 * or written.
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

/* One byte-exact golden: a scenario file, a command and a --format. */
typedef struct {
  const char *scenario, *command, *format;
} Golden;

/* clang-format off */
static const Golden goldens[] = {
  { "scenarios/rome-400g-nic-ktls.yaml",   "bound",    "table" },
  { "scenarios/rome-400g-nic-ktls.yaml",   "bound",    "json" },
  { "scenarios/rome-400g-nic-ktls.yaml",   "bound",    "csv" },
  { "scenarios/rome-400g-nic-ktls.yaml",   "run",      "table" },
  { "scenarios/rome-400g-nic-ktls.yaml",   "run",      "json" },
  { "scenarios/rome-400g-nic-ktls.yaml",   "run",      "csv" },
  { "scenarios/rome-400g-nic-ktls.yaml",   "capacity", "table" },
  { "scenarios/rome-400g-nic-ktls.yaml",   "capacity", "json" },
  { "scenarios/rome-400g-nic-ktls.yaml",   "capacity", "csv" },
  { "scenarios/rome-400g-page-cache.yaml", "bound",    "table" },
  { "scenarios/rome-400g-page-cache.yaml", "bound",    "json" },
  { "scenarios/mm1.yaml",                  "run",      "table" },
  { "scenarios/mm1.yaml",                  "run",      "json" },
  { "scenarios/mm1.yaml",                  "run",      "csv" },
  { "scenarios/mm1.yaml",                  "bound",    "table" },
};
/* clang-format on */

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
 * version as @VERSION@ (quoted in JSON, the last column in CSV). */
static char *transcript(const char *scenario, const char *command, const char *format)
{
  static char *quoted, *column; /* read once */
  if (!quoted) {
    g_autofree char *v = test_ocasim_version();
    quoted = g_strdup_printf("\"%s\"", v);
    column = g_strdup_printf(",%s\n", v);
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
  g_autofree char *json = replace_all(text, quoted, "\"@VERSION@\"");
  return replace_all(json, column, ",@VERSION@\n");
}

START_TEST(test_golden_outputs)
{
  gboolean update = g_getenv("OCASIM_GOLDEN_UPDATE") != NULL;
  g_autoptr(GHashTable) expected = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  int mismatches = 0;
  for (gsize i = 0; i < G_N_ELEMENTS(goldens); i++) {
    const Golden *g = &goldens[i];
    g_autofree char *path = golden_path(g->scenario, g->command, g->format);
    g_hash_table_add(expected, g_path_get_basename(path));
    g_autofree char *got = transcript(g->scenario, g->command, g->format);
    if (update) {
      GError *error = NULL;
      ck_assert_msg(g_file_set_contents(path, got, -1, &error), "%s", error ? error->message : "");
      continue;
    }
    g_autofree char *want = NULL;
    if (!g_file_get_contents(path, &want, NULL, NULL)) {
      fprintf(stderr, "golden: %s is missing (make golden-update records it)\n", path);
      mismatches++;
    } else if (strcmp(want, got) != 0) {
      fprintf(stderr, "golden: `ocasim %s %s --format %s` differs from %s\n", g->command, g->scenario, g->format, path);
      mismatches++;
    }
  }
  /* every golden file is in the table */
  g_autoptr(GDir) dir = g_dir_open(GOLDEN_DIR, 0, NULL);
  ck_assert_msg(dir != NULL, "cannot open " GOLDEN_DIR);
  const char *name;
  while ((name = g_dir_read_name(dir)))
    if (!g_hash_table_contains(expected, name)) {
      fprintf(stderr, "golden: %s/%s is not in tests/test_golden.c's table (remove it)\n", GOLDEN_DIR, name);
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
