/* tests/test_sweep.c — `ocasim sweep` (cli/sweep_appliance.h, cli/cmd_sweep.c; the generic engine,
 * sim/sweep.h, has tests/test_sim_sweep.c).
 *
 * Bad sweep files through the real command line (exit status 2, FILE:LINE:COL and a part of
 * the message, one line each); the same rows at -j 1 and -j 4 for bound and run points (no
 * global state in sim/ or models/); an interrupted sweep (--limit, a torn last line) resumed to
 * the bytes of an uninterrupted one; a failing point as a row with its error; rows read back
 * from JSON Lines; the replication summary's mean and CI; every row and summary row ending in
 * `ocasim --version`, and a resume refusing another version's rows. */
#include <check.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <gsl/gsl_cdf.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <json-glib/json-glib.h>
#include "cli/sweep_appliance.h"
#include "sim/sweep.h"
#include "sim/conf.h"
#include "tests/support/check_run.h"
#include "tests/support/ocasim_run.h"
#include "tests/support/tmpdir.h"

/* The version the in-process tests load a sweep with (the command passes `ocasim --version`). */
#define TEST_VERSION "v0-test"

/* The generic sweep of an appliance sweep (its points, rows and summaries: sim/sweep.h). */
static const SimSweep *sw(const SweepAppliance *s)
{
  return sweep_appliance_sweep(s);
}

typedef struct {
  const char *file; /* under tests/data/sweep/bad/ */
  int line, col;
  const char *path;    /* key path after the position ("" at the root) */
  const char *message; /* a substring of the message */
} BadSweep;

static const BadSweep bad[] = {
  { "no-scenario.yaml", 2, 1, "", "missing required key 'scenario'" },
  { "unknown-top-key.yaml", 2, 1, "varry", "did you mean 'vary'" },
  { "scenario-missing.yaml", 1, 11, "scenario", "cannot open" },
  { "scenario-not-appliance.yaml", 1, 11, "scenario", "needs an appliance scenario" },
  { "bad-mode.yaml", 2, 7, "mode", "did you mean 'bound'" },
  { "replications-zero.yaml", 3, 15, "replications", "must be >= 1" },
  { "replications-bound.yaml", 3, 15, "replications", "need mode run" },
  { "capacity-latency-bound.yaml", 3, 19, "capacity_latency", "needs mode capacity" },
  { "seed-negative.yaml", 2, 7, "seed", "must be >= 0" },
  { "vary-empty.yaml", 2, 7, "vary", "empty list" },
  { "vary-not-list.yaml", 3, 3, "vary", "expected a list" },
  { "values-empty.yaml", 4, 13, "vary[0].values", "empty list" },
  { "values-and-range.yaml", 3, 5, "vary[0]", "not both" },
  { "key-twice.yaml", 5, 10, "vary[1].key", "varied twice" },
  { "vary-platform.yaml", 3, 10, "vary[0].key", "platform file" },
  { "unknown-key.yaml", 4, 14, "nics[0].portz", "did you mean 'ports'" },
  { "index-past-end.yaml", 4, 14, "nics[7]", "no such element" },
  { "value-out-of-range.yaml", 4, 20, "nics[0].ports", "'9' is out of range: must be <= 4" },
  { "value-bad-unit.yaml", 4, 24, "workload.offered", "unknown unit 'parsecs'" },
  { "value-bad-enum.yaml", 4, 31, "software.placement", "did you mean 'disk_centric'" },
  { "range-step-zero.yaml", 4, 35, "vary[0].range.step", "bad range: step must be > 0" },
  { "range-backwards.yaml", 4, 26, "vary[0].range.to", "bad range: to (1) is below from (4)" },
  { "range-units-differ.yaml", 4, 33, "vary[0].range.to", "bad range: unit 'GB/s'" },
  { "range-not-number.yaml", 4, 19, "vary[0].range.from", "bad range: expected a number" },
  { "range-missing-step.yaml", 4, 12, "vary[0].range", "bad range: missing 'step'" },
  { "range-value-refused.yaml", 4, 12, "nics[0].ports", "'5' is out of range" },
  { "zip-lengths.yaml", 6, 9, "vary[0].zip[1]", "3 values, but the first list of the zip has 2" },
  { "set-refused.yaml", 3, 13, "duration", "must be > 0" },
  { "set-and-vary.yaml", 5, 10, "vary[0].key", "'workload.offered' is varied and also fixed by set: (line 3)" },
  { "set-holds-varied.yaml", 8, 10, "vary[1].key", "also fixed by set: (line 4) ('workload.headroom')" },
  { "yaml-syntax.yaml", 5, 1, "", "YAML syntax error" },
};

START_TEST(test_bad_sweep)
{
  const BadSweep *c = &bad[_i];
  g_autofree char *file = g_strdup_printf("tests/data/sweep/bad/%s", c->file);
  g_autofree char *out = NULL, *err = NULL;
  const char *args[] = { "sweep", "-q", file, NULL };
  int rc = test_run_ocasim(args, &out, &err);
  ck_assert_msg(rc == 2, "%s: exit %d, stderr: %s", c->file, rc, err);
  test_assert_located(c->file, err, file, c->line, c->col, c->path, c->message);
  ck_assert_msg(!*out, "%s: wrote rows: %s", c->file, out);
}
END_TEST

/* A key is fixed (set:, --set) or varied, not both: a --set of a varied key is refused at the
 * vary: entry (exit 2, FILE:LINE:COL); a --set of a key in set: replaces its value in place, so
 * the overrides column names each key once, in the order first given, as the points run it
 * (it listed "duration=1 s; workload.drop_max=2 %; workload.drop_max=1%; duration=0.5 s"). */
START_TEST(test_set_and_vary)
{
  const char *file = "tests/data/sweep/set-then-cli.yaml";
  {
    const char *args[] = { "sweep", "-q", file, "--set", "workload.offered=300 Gb/s", NULL };
    g_autofree char *out = NULL, *err = NULL;
    ck_assert_int_eq(test_run_ocasim(args, &out, &err), 2);
    test_assert_located("--set of a varied key", err, file, 9, 10, "vary[0].key",
                        "'workload.offered' is varied and also fixed by --set: a key is either fixed");
    ck_assert_msg(!*out, "%s", out);
  }
  const char *args[] = { "sweep", "-q", file, "-f", "csv", "--set", "workload.drop_max=1%", "--duration", "0.5 s", NULL };
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_msg(test_run_ocasim(args, &out, &err) == 0, "%s", err);
  g_auto(GStrv) lines = g_strsplit(out, "\n", -1);
  ck_assert_uint_eq(g_strv_length(lines), 4); /* header, 2 rows, "" */
  for (int i = 1; i <= 2; i++) ck_assert_msg(strstr(lines[i], ",duration=0.5 s; workload.drop_max=1%,"), "%s", lines[i]);
}
END_TEST

/* A fresh directory for one test's results. (transfer full) */
static char *tmpdir(void)
{
  return test_tmpdir("ocasim-sweep-XXXXXX");
}

static char *slurp(const char *path)
{
  char *text = NULL;
  ck_assert_msg(g_file_get_contents(path, &text, NULL, NULL), "cannot read %s", path);
  return text;
}

/* Runs `ocasim sweep FILE --out PREFIX -q` with @more options; returns the exit status. */
static int sweep(const char *file, const char *prefix, const char *const *more)
{
  GPtrArray *a = g_ptr_array_new();
  const char *base[] = { "sweep", "-q", file, "--out", prefix };
  for (size_t i = 0; i < G_N_ELEMENTS(base); i++) g_ptr_array_add(a, (char *)base[i]);
  for (; more && *more; more++) g_ptr_array_add(a, (char *)*more);
  g_ptr_array_add(a, NULL);
  g_autofree char *out = NULL, *err = NULL;
  int rc = test_run_ocasim((const char *const *)a->pdata, &out, &err);
  ck_assert_msg(rc == 0 || strlen(err) > 0, "exit %d without a message", rc);
  if (rc) fprintf(stderr, "%s", err);
  g_ptr_array_free(a, TRUE);
  return rc;
}

static void assert_same_file(const char *a, const char *b)
{
  g_autofree char *x = slurp(a), *y = slurp(b);
  ck_assert_msg(strcmp(x, y) == 0, "%s and %s differ", a, b);
}

static guint lines_of(const char *text)
{
  guint n = 0;
  for (const char *c = text; *c; c++) n += *c == '\n';
  return n;
}

/* The same points at -j 1 and -j 4: identical files (threads share nothing but the spec). */
static void same_rows_at(const char *file, guint runs)
{
  g_auto(TestDir) d = tmpdir();
  g_autofree char *p1 = g_build_filename(d, "j1", NULL), *p4 = g_build_filename(d, "j4", NULL);
  const char *j1[] = { "-j", "1", NULL }, *j4[] = { "-j", "4", NULL };
  ck_assert_int_eq(sweep(file, p1, j1), 0);
  ck_assert_int_eq(sweep(file, p4, j4), 0);
  g_autofree char *c1 = g_strdup_printf("%s.csv", p1), *c4 = g_strdup_printf("%s.csv", p4);
  g_autofree char *l1 = g_strdup_printf("%s.jsonl", p1), *l4 = g_strdup_printf("%s.jsonl", p4);
  assert_same_file(c1, c4);
  assert_same_file(l1, l4);
  g_autofree char *csv = slurp(c1), *json = slurp(l1);
  ck_assert_uint_eq(lines_of(csv), runs + 1); /* header + a row per run */
  ck_assert_uint_eq(lines_of(json), runs);
}

START_TEST(test_threads_same_rows_bound)
{
  same_rows_at("tests/data/sweep/small-bound.yaml", 16);
}
END_TEST

START_TEST(test_threads_same_rows_run)
{
  same_rows_at("tests/data/sweep/small-run.yaml", 8);
}
END_TEST

/* Interrupted after 5 runs (--limit), then a torn last line, then --resume: the final files
 * equal an uninterrupted run's, byte for byte; a finished sweep resumes to nothing. */
static void resume_same_as_full(const char *file)
{
  g_auto(TestDir) d = tmpdir();
  g_autofree char *full = g_build_filename(d, "full", NULL), *part = g_build_filename(d, "part", NULL);
  ck_assert_int_eq(sweep(file, full, NULL), 0);
  const char *limit[] = { "--limit", "5", NULL };
  ck_assert_int_eq(sweep(file, part, limit), 0);
  g_autofree char *csv = g_strdup_printf("%s.csv", part), *jsonl = g_strdup_printf("%s.jsonl", part);
  g_autofree char *csv_part = g_strdup_printf("%s.part", csv), *json_part = g_strdup_printf("%s.part", jsonl);
  ck_assert(!g_file_test(csv, G_FILE_TEST_EXISTS)); /* only a complete result gets the final name */
  g_autofree char *kept = slurp(csv_part);
  ck_assert_uint_eq(lines_of(kept), 1 + 5);
  /* a kill in the middle of a write: half a row at the end of one file */
  FILE *f = g_fopen(json_part, "ab");
  fputs("{\"point\": 2, \"replic", f);
  fclose(f);
  const char *resume[] = { "--resume", NULL };
  ck_assert_int_eq(sweep(file, part, resume), 0);
  g_autofree char *full_csv = g_strdup_printf("%s.csv", full), *full_json = g_strdup_printf("%s.jsonl", full);
  assert_same_file(full_csv, csv);
  assert_same_file(full_json, jsonl);
  ck_assert(!g_file_test(csv_part, G_FILE_TEST_EXISTS));
  ck_assert_int_eq(sweep(file, part, resume), 0); /* already complete */
  assert_same_file(full_csv, csv);
}

START_TEST(test_resume)
{
  resume_same_as_full("tests/data/sweep/small-run.yaml");
}
END_TEST

/* A sweep that varies `seed` writes one seed column (CSV header, JSON key), holding the varied
 * value as an integer, and resumes byte for byte like any other. */
START_TEST(test_varied_seed_one_column)
{
  const char *file = "tests/data/sweep/seed-varied.yaml";
  g_auto(TestDir) d = tmpdir();
  g_autofree char *p = g_build_filename(d, "r", NULL);
  ck_assert_int_eq(sweep(file, p, NULL), 0);
  g_autofree char *csv_path = g_strdup_printf("%s.csv", p), *json_path = g_strdup_printf("%s.jsonl", p);
  g_autofree char *csv = slurp(csv_path), *json = slurp(json_path);
  g_auto(GStrv) lines = g_strsplit(csv, "\n", -1);
  g_auto(GStrv) head = g_strsplit(lines[0], ",", -1);
  guint seeds = 0, col = 0;
  for (guint i = 0; head[i]; i++)
    if (!strcmp(head[i], "seed")) seeds++, col = i;
  ck_assert_uint_eq(seeds, 1);
  ck_assert_uint_eq(lines_of(csv), 1 + 6);
  const char *want[] = { "3", "5", "7", "3", "5", "7" }; /* seed is the faster axis */
  for (guint r = 0; r < 6; r++) {
    g_auto(GStrv) cells = g_strsplit(lines[1 + r], ",", -1);
    ck_assert_str_eq(cells[col], want[r]);
  }
  g_auto(GStrv) rows = g_strsplit(json, "\n", -1);
  for (guint r = 0; r < 6; r++) {
    const char *first = strstr(rows[r], "\"seed\": ");
    ck_assert_msg(first && !strstr(first + 1, "\"seed\""), "%s", rows[r]);
    g_autofree char *item = g_strdup_printf("\"seed\": %s,", want[r]);
    ck_assert_msg(g_str_has_prefix(first, item), "%s", rows[r]);
  }
  resume_same_as_full(file);
}
END_TEST

/* Rows written by another ocasim (another ocasim_version) are refused by --resume, not mixed in:
 * one results file holds one version's rows. */
START_TEST(test_resume_other_version)
{
  g_auto(TestDir) d = tmpdir();
  g_autofree char *p = g_build_filename(d, "r", NULL);
  const char *limit[] = { "--limit", "3", NULL }, *resume[] = { "--resume", NULL };
  ck_assert_int_eq(sweep("tests/data/sweep/small-bound.yaml", p, limit), 0);
  g_autofree char *v = test_ocasim_version();
  g_autofree char *json_part = g_strdup_printf("%s.jsonl.part", p);
  g_autofree char *text = slurp(json_part);
  g_autofree char *mine = g_strdup_printf("\"ocasim_version\": \"%s\"", v);
  ck_assert_msg(strstr(text, mine) != NULL, "%s", text);
  g_auto(GStrv) parts = g_strsplit(text, mine, -1);
  ck_assert_uint_eq(g_strv_length(parts), 1 + 3); /* once in each of the three rows */
  g_autofree char *other = g_strjoinv("\"ocasim_version\": \"v0-other\"", parts);
  ck_assert(g_file_set_contents(json_part, other, -1, NULL));
  ck_assert_int_eq(sweep("tests/data/sweep/small-bound.yaml", p, resume), 2);
}
END_TEST

/* Partial results of another sweep are refused, not mixed in. */
START_TEST(test_resume_other_sweep)
{
  g_auto(TestDir) d = tmpdir();
  g_autofree char *p = g_build_filename(d, "r", NULL);
  const char *limit[] = { "--limit", "3", NULL }, *resume[] = { "--resume", NULL };
  ck_assert_int_eq(sweep("tests/data/sweep/small-bound.yaml", p, limit), 0);
  ck_assert_int_eq(sweep("tests/data/sweep/small-run.yaml", p, resume), 2);
  /* the same sweep file with another --set, --seed or --duration is another sweep: its rows
   * were resumed as this one's, the final file mixing two scenarios; refused, the rows kept */
  g_autofree char *q = g_build_filename(d, "q", NULL);
  g_autofree char *part = g_strdup_printf("%s.jsonl.part", q);
  const char *other_set[] = { "--resume", "--set", "workload.zipf_s=2.0", NULL };
  const char *other_seed[] = { "--resume", "--seed", "99", NULL };
  const char *other_time[] = { "--resume", "--duration", "0.3 s", NULL };
  ck_assert_int_eq(sweep("tests/data/sweep/small-bound.yaml", q, limit), 0);
  g_autofree char *before = slurp(part);
  ck_assert_int_eq(sweep("tests/data/sweep/small-bound.yaml", q, other_set), 2);
  ck_assert_int_eq(sweep("tests/data/sweep/small-bound.yaml", q, other_seed), 2);
  ck_assert_int_eq(sweep("tests/data/sweep/small-bound.yaml", q, other_time), 2);
  g_autofree char *after = slurp(part);
  ck_assert_str_eq(before, after);
  ck_assert_int_eq(sweep("tests/data/sweep/small-bound.yaml", q, resume), 0); /* the same sweep resumes */
  /* a complete result is "already complete" for its own sweep only (another was told so too) */
  ck_assert_int_eq(sweep("tests/data/sweep/small-bound.yaml", q, resume), 0);
  ck_assert_int_eq(sweep("tests/data/sweep/small-bound.yaml", q, other_seed), 2);
}
END_TEST

/* A point the model refuses is a row with its error and empty outputs; the others run. */
START_TEST(test_failed_point_is_a_row)
{
  g_autoptr(GError) e = NULL;
  g_autoptr(SweepAppliance) s = sweep_appliance_load("tests/data/sweep/small-run.yaml", NULL, -1, NULL, TEST_VERSION, &e);
  ck_assert_msg(s != NULL, "%s", e ? e->message : "");
  guint n;
  const SimSweepColumn *cols = sim_sweep_columns(sw(s), &n);
  ck_assert_str_eq(cols[n - 2].name, "error");
  ck_assert_str_eq(cols[n - 1].name, "ocasim_version");
  g_autoptr(SimSweepRow) ok = sim_sweep_run(sw(s), 0, NULL), bad_row = sim_sweep_run(sw(s), 2, NULL); /* point 1: 16 cards */
  ck_assert_str_eq(ok->cells[n - 2].s, "");
  ck_assert(strstr(bad_row->cells[n - 2].s, "at most 16 NICs") != NULL);
  ck_assert_str_eq(ok->cells[n - 1].s, TEST_VERSION); /* a failed run's row says which ocasim too */
  ck_assert_str_eq(bad_row->cells[n - 1].s, TEST_VERSION);
  for (guint i = 0; i < n - 2; i++)
    if (!strcmp(cols[i].name, "throughput_gbps")) {
      ck_assert(bad_row->cells[i].missing);
      ck_assert(!ok->cells[i].missing && ok->cells[i].x > 90 && ok->cells[i].x < 110); /* 100 Gb/s offered */
    }
}
END_TEST

/* The closing line counts the failed runs by their error column: 0 of the 16 bound points, the
 * 4 runs of the 16-card points of small-run (it counted every run as failed once the version
 * column came to follow the error column); sim_sweep_row_line_failed reads rows as written. */
static void assert_failed_count(const char *file, const char *want)
{
  g_auto(TestDir) d = tmpdir();
  g_autofree char *prefix = g_build_filename(d, "r", NULL);
  g_autofree char *out = NULL, *err = NULL;
  const char *args[] = { "sweep", file, "--out", prefix, NULL };
  ck_assert_int_eq(test_run_ocasim(args, &out, &err), 0);
  ck_assert_msg(strstr(err, want) != NULL, "%s: want '%s' in: %s", file, want, err);
}

START_TEST(test_failed_count)
{
  assert_failed_count("tests/data/sweep/small-bound.yaml", "sweep: 16 runs (0 failed)");
  assert_failed_count("tests/data/sweep/small-run.yaml", "sweep: 8 runs (4 failed)");
  g_autoptr(GError) e = NULL;
  g_autoptr(SweepAppliance) s = sweep_appliance_load("tests/data/sweep/small-run.yaml", NULL, -1, NULL, TEST_VERSION, &e);
  ck_assert_msg(s != NULL, "%s", e ? e->message : "");
  g_autoptr(SimSweepRow) ok = sim_sweep_run(sw(s), 0, NULL), bad_row = sim_sweep_run(sw(s), 2, NULL); /* point 1: 16 cards */
  g_autoptr(GString) ok_line = g_string_new(NULL), bad_line = g_string_new(NULL);
  sim_sweep_row_append_json(sw(s), ok, ok_line);
  sim_sweep_row_append_json(sw(s), bad_row, bad_line);
  ck_assert(!sim_sweep_row_line_failed(ok_line->str));
  ck_assert(sim_sweep_row_line_failed(bad_line->str));
  ck_assert(sim_sweep_row_line_failed("{\"point\": 2, \"replic")); /* a torn line is no success */
  ck_assert(sim_sweep_row_line_failed("{\"point\": 2}"));          /* nor a row without its error column */
}
END_TEST

/* --out PREFIX names files: an empty prefix, one ending in '/' or an existing directory is bad
 * input (exit 2, nothing written); they wrote the hidden files .csv and .jsonl, DIR/.csv or
 * DIR.csv beside the directory. */
START_TEST(test_out_prefix_refused)
{
  g_auto(TestDir) d = tmpdir();
  g_autofree char *slash = g_strconcat(d, "/", NULL);
  const char *prefixes[] = { "", slash, d };
  const char *why[] = { "empty prefix", "is a directory", "is a directory" };
  for (size_t i = 0; i < G_N_ELEMENTS(prefixes); i++) {
    g_autofree char *out = NULL, *err = NULL;
    const char *args[] = { "sweep", "tests/data/sweep/small-bound.yaml", "--out", prefixes[i], NULL };
    ck_assert_int_eq(test_run_ocasim(args, &out, &err), 2);
    ck_assert_msg(strstr(err, "--out '") && strstr(err, why[i]), "'%s': %s", prefixes[i], err);
  }
  g_autofree char *beside = g_strconcat(d, ".csv", NULL), *hidden = g_build_filename(d, ".csv", NULL);
  ck_assert(!g_file_test(beside, G_FILE_TEST_EXISTS));
  ck_assert(!g_file_test(hidden, G_FILE_TEST_EXISTS));
  ck_assert(!g_file_test(".csv", G_FILE_TEST_EXISTS));
}
END_TEST

/* --out PREFIX where PREFIX.csv (or PREFIX.jsonl) is a symbolic link is refused (exit 2, the
 * link and the file it names untouched): the final rename replaced the link by a regular file. */
START_TEST(test_out_symlink_refused)
{
  g_auto(TestDir) d = tmpdir();
  static const char *const ext[] = { ".csv", ".jsonl" };
  for (size_t i = 0; i < G_N_ELEMENTS(ext); i++) {
    g_autofree char *prefix = g_build_filename(d, "r", NULL), *link = g_strconcat(prefix, ext[i], NULL);
    g_autofree char *target = g_build_filename(d, "target", NULL);
    ck_assert(g_file_set_contents(target, "old", -1, NULL));
    ck_assert_int_eq(symlink("target", link), 0);
    g_autofree char *out = NULL, *err = NULL;
    const char *args[] = { "sweep", "tests/data/sweep/small-bound.yaml", "-q", "--out", prefix, NULL };
    ck_assert_int_eq(test_run_ocasim(args, &out, &err), 2);
    ck_assert_msg(strstr(err, "--out '") && strstr(err, "is a symbolic link"), "%s: %s", ext[i], err);
    struct stat st;
    ck_assert_int_eq(lstat(link, &st), 0);
    ck_assert_msg(S_ISLNK(st.st_mode), "%s: the link was replaced", ext[i]);
    g_autofree char *t = NULL;
    ck_assert(g_file_get_contents(target, &t, NULL, NULL));
    ck_assert_str_eq(t, "old");
    g_autofree char *other = g_strconcat(prefix, i ? ".csv" : ".jsonl", NULL);
    ck_assert(!g_file_test(other, G_FILE_TEST_EXISTS));
    g_remove(link);
    g_remove(target);
  }
}
END_TEST

/* Rows read back from JSON Lines give the same CSV and JSON (what resume and MPI rely on). */
START_TEST(test_json_round_trip)
{
  g_autoptr(GError) e = NULL;
  g_autoptr(SweepAppliance) s = sweep_appliance_load("tests/data/sweep/small-run.yaml", NULL, -1, NULL, TEST_VERSION, &e);
  ck_assert_msg(s != NULL, "%s", e ? e->message : "");
  for (guint run = 0; run < 3; run++) {
    g_autoptr(SimSweepRow) row = sim_sweep_run(sw(s), run, NULL);
    g_autoptr(GString) csv = g_string_new(NULL), json = g_string_new(NULL), csv2 = g_string_new(NULL), json2 = g_string_new(NULL);
    sim_sweep_row_append_csv(sw(s), row, csv);
    sim_sweep_row_append_json(sw(s), row, json);
    g_autoptr(SimSweepRow) back = sim_sweep_row_parse_json(sw(s), json->str, &e);
    ck_assert_msg(back != NULL, "%s", e ? e->message : "");
    sim_sweep_row_append_csv(sw(s), back, csv2);
    sim_sweep_row_append_json(sw(s), back, json2);
    ck_assert_str_eq(csv->str, csv2->str);
    ck_assert_str_eq(json->str, json2->str);
  }
}
END_TEST

/* The sweep file `name` in @dir holding @text, loaded (a load error fails the test). (transfer full) */
static SweepAppliance *load_text(const char *dir, const char *name, const char *text)
{
  g_autofree char *f = g_build_filename(dir, name, NULL);
  ck_assert(g_file_set_contents(f, text, -1, NULL));
  g_autoptr(GError) e = NULL;
  SweepAppliance *s = sweep_appliance_load(f, NULL, -1, NULL, TEST_VERSION, &e);
  ck_assert_msg(s != NULL, "%s", e ? e->message : "");
  return s;
}

/* Runs point @p of @s and parses its JSON Lines row. (transfer full) */
static JsonParser *row_json(SweepAppliance *s, guint p)
{
  g_autoptr(SimSweepRow) row = sim_sweep_run(sw(s), p, NULL);
  g_autoptr(GString) json = g_string_new(NULL);
  sim_sweep_row_append_json(sw(s), row, json);
  JsonParser *jp = json_parser_new();
  ck_assert(json_parser_load_from_data(jp, json->str, -1, NULL));
  return jp;
}

/* A memo (SweepMemo as sim_sweep_run's worker: demand models across offered loads, the bound's
 * closed estimates) gives every row of a run without one bit for bit: offered loads below and
 * above X* on two placements and two link widths of the 800G box, twice over (the second pass
 * from the memo). */
START_TEST(test_memo_rows)
{
  g_auto(TestDir) d = tmpdir();
  g_autofree char *cwd = g_get_current_dir();
  g_autofree char *text =
      g_strdup_printf("scenario: %s/scenarios/milan-800g-dlwm-off-network-centric.yaml\n"
                      "mode: bound\n"
                      "vary:\n"
                      "  - key: topology.links[0].width\n    values: [1, 18]\n"
                      "  - key: workload.offered\n    range: {from: 100 Gb/s, to: 1000 Gb/s, step: 300 Gb/s}\n"
                      "  - key: software.placement\n    values: [none, strict_disk_centric]\n",
                      cwd);
  g_autoptr(SweepAppliance) s = load_text(d, "m.yaml", text);
  ck_assert_uint_eq(sim_sweep_n_runs(sw(s)), 16);
  g_autoptr(SweepMemo) memo = sweep_memo_new();
  for (int pass = 0; pass < 2; pass++)
    for (guint run = 0; run < 16; run++) {
      g_autoptr(SimSweepRow) a = sim_sweep_run(sw(s), run, NULL), b = sim_sweep_run(sw(s), run, memo);
      g_autoptr(GString) ja = g_string_new(NULL), jb = g_string_new(NULL);
      sim_sweep_row_append_json(sw(s), a, ja);
      sim_sweep_row_append_json(sw(s), b, jb);
      ck_assert_msg(strstr(ja->str, "\"error\": \"\""), "run %u failed: %s", run, ja->str);
      ck_assert_str_eq(ja->str, jb->str);
    }
}
END_TEST

/* Mode capacity checks the p99 criterion as `ocasim capacity` does (DES runs at candidate loads):
 * on rome2021_sw_nps1 both say 250.8 Gb/s limited by the CPU cap, and so does the bound's estimate
 * alone (capacity_latency: bound): its saturated p99 (36.5 ms) stays within the
 * 50 ms SLO at every load, so its latency limit is never reached (null). The runs are 2 s: at
 * 0.4 s (0.05 of a 6 s segment) a run at the CPU limit can fall short of its offered load by more
 * than its CI, which capacity rejects (test_capacity_stable_in_run_length). */
START_TEST(test_capacity_matches_capacity_command)
{
  g_auto(TestDir) d = tmpdir();
  g_autofree char *cwd = g_get_current_dir();
  double cap[2];
  const char *how[] = { "run", "bound" };
  for (int i = 0; i < 2; i++) {
    g_autofree char *text = g_strdup_printf("scenario: %s/scenarios/reference/rome2021_sw_nps1.yaml\n"
                                            "mode: capacity\ncapacity_latency: %s\n"
                                            "set: {duration: 2 s, warmup: 0.4 s}\n"
                                            "vary:\n  - key: seed\n    values: [1]\n",
                                            cwd, how[i]);
    g_autoptr(SweepAppliance) s = load_text(d, how[i], text);
    g_autoptr(JsonParser) p = row_json(s, 0);
    JsonObject *o = json_node_get_object(json_parser_get_root(p));
    ck_assert_str_eq(json_object_get_string_member(o, "latency_check"), how[i]);
    ck_assert_str_eq(json_object_get_string_member(o, "limiting_criterion"), "cpu");
    cap[i] = json_object_get_double_member(o, "capacity_gbps");
  }
  const char *args[] = {
    "capacity", "scenarios/reference/rome2021_sw_nps1.yaml", "--duration", "2 s", "--warmup", "0.4 s", "-f", "json", NULL
  };
  char *out, *err;
  ck_assert_int_eq(test_run_ocasim(args, &out, &err), 0);
  g_autoptr(JsonParser) p = json_parser_new();
  ck_assert(json_parser_load_from_data(p, out, -1, NULL));
  JsonObject *o = json_node_get_object(json_parser_get_root(p));
  ck_assert_double_eq(cap[0], json_object_get_double_member(o, "capacity_gbps"));
  ck_assert_str_eq(json_object_get_string_member(o, "limiting_criterion"), "cpu");
  ck_assert(json_node_is_null(json_object_get_member(json_object_get_object_member(o, "latency_check"), "bound_estimate_gbps")));
  ck_assert_double_eq(cap[1], cap[0]);
  g_free(out);
  g_free(err);
}
END_TEST

/* A sweep whose DES runs are too short for paced clients' segments says so once on stderr, as
 * `ocasim run` does (the rows stay as they are): small-run.yaml measures 0.15 s of 6 s segments
 * at varied offered loads; with --duration 2 s it says nothing, nor in bound mode. */
START_TEST(test_short_run_sweep_warns)
{
  g_auto(TestDir) d = tmpdir();
  g_autofree char *prefix = g_build_filename(d, "short", NULL);
  g_autofree char *prefix2 = g_build_filename(d, "long", NULL);
  const char *shortrun[] = { "sweep", "tests/data/sweep/small-run.yaml", "--limit", "1", "--out", prefix, NULL };
  const char *longrun[] = { "sweep", "tests/data/sweep/small-run.yaml", "--limit", "1", "--duration", "2 s", "--out", prefix2,
                            NULL };
  const char *bound[] = { "sweep", "tests/data/sweep/small-bound.yaml", "--limit", "1", NULL };
  char *out, *err;
  ck_assert_int_eq(test_run_ocasim(shortrun, &out, &err), 0);
  ck_assert_msg(g_str_has_prefix(err, "ocasim: warning: the measured time (duration - warmup: 0.15 s) is 0.025 of "
                                      "workload.segment_duration (6 s)") &&
                    strstr(err, "(the sweep's base scenario)\n"),
                "%s", err);
  g_free(out);
  g_free(err);
  ck_assert_int_eq(test_run_ocasim(longrun, &out, &err), 0);
  ck_assert_msg(!strstr(err, "warning"), "%s", err);
  g_free(out);
  g_free(err);
  ck_assert_int_eq(test_run_ocasim(bound, &out, &err), 0);
  ck_assert_msg(!strstr(err, "warning"), "%s", err);
  g_free(out);
  g_free(err);
}
END_TEST

/* Mode capacity with workload.headroom varied: the headroom columns, the criterion and the
 * resource as `ocasim capacity` reports them (on rome2021_sw_nps1 a dram headroom of 85 % binds at
 * 223.1 Gb/s, dram.node0; 100 % is the saturation criterion's limit, never reached below it);
 * a sweep that neither sets nor varies it has no headroom columns. */
START_TEST(test_capacity_headroom_columns)
{
  g_auto(TestDir) d = tmpdir();
  g_autofree char *cwd = g_get_current_dir();
  g_autofree char *text = g_strdup_printf("scenario: %s/scenarios/reference/rome2021_sw_nps1.yaml\n"
                                          "mode: capacity\ncapacity_latency: bound\n"
                                          "vary:\n  - key: workload.headroom.dram\n    values: [100 %%, 85 %%]\n",
                                          cwd);
  g_autoptr(SweepAppliance) s = load_text(d, "headroom", text);
  g_autoptr(JsonParser) p0 = row_json(s, 0);
  JsonObject *o = json_node_get_object(json_parser_get_root(p0));
  ck_assert_str_eq(json_object_get_string_member(o, "limiting_criterion"), "cpu");
  ck_assert(json_node_is_null(json_object_get_member(o, "headroom_limit_gbps")));
  ck_assert(json_node_is_null(json_object_get_member(o, "headroom_resource")));
  ck_assert(json_node_is_null(json_object_get_member(o, "headroom_limit_pct")));
  g_autoptr(JsonParser) p1 = row_json(s, 1);
  o = json_node_get_object(json_parser_get_root(p1));
  ck_assert_str_eq(json_object_get_string_member(o, "limiting_criterion"), "headroom");
  ck_assert_str_eq(json_object_get_string_member(o, "headroom_resource"), "dram.node0");
  ck_assert_double_eq(json_object_get_double_member(o, "headroom_limit_pct"), 85);
  double cap = json_object_get_double_member(o, "capacity_gbps");
  ck_assert_double_eq_tol(cap, 223.13, 0.01);
  ck_assert_double_eq(json_object_get_double_member(o, "headroom_limit_gbps"), cap);
  ck_assert_double_eq(json_object_get_double_member(o, "offered_gbps"), cap);
  const char *args[] = {
    "capacity", "scenarios/reference/rome2021_sw_nps1.yaml", "--set", "workload.headroom.dram=85 %", "-f", "json", NULL
  };
  char *out, *err;
  ck_assert_int_eq(test_run_ocasim(args, &out, &err), 0);
  g_autoptr(JsonParser) p = json_parser_new();
  ck_assert(json_parser_load_from_data(p, out, -1, NULL));
  ck_assert_double_eq(cap, json_object_get_double_member(json_node_get_object(json_parser_get_root(p)), "capacity_gbps"));
  g_free(out);
  g_free(err);
  g_autofree char *plain = g_strdup_printf("scenario: %s/scenarios/reference/rome2021_sw_nps1.yaml\n"
                                           "mode: capacity\ncapacity_latency: bound\n"
                                           "vary:\n  - key: workload.drop_max\n    values: [0.1 %%]\n",
                                           cwd);
  g_autoptr(SweepAppliance) s2 = load_text(d, "plain", plain);
  g_autoptr(JsonParser) p2 = row_json(s2, 0);
  o = json_node_get_object(json_parser_get_root(p2));
  ck_assert(json_object_has_member(o, "saturation_limit_gbps") && !json_object_has_member(o, "headroom_limit_gbps"));
}
END_TEST

/* A point's `failures:` is planned, not ignored: varying it gives, for nics[0] down on the Rome
 * box, the degraded throughput `ocasim bound --fail 'nics[0]'` prints (half of the healthy box's:
 * one of its two cards is gone), and the healthy point the healthy box's. */
START_TEST(test_failures_planned)
{
  g_auto(TestDir) d = tmpdir();
  g_autofree char *cwd = g_get_current_dir();
  g_autofree char *text = g_strdup_printf("scenario: %s/scenarios/rome-400g-nic-ktls.yaml\nmode: bound\n"
                                          "vary:\n  - key: failures\n    values: [[], [\"nics[0]\"]]\n",
                                          cwd);
  g_autoptr(SweepAppliance) s = load_text(d, "fail", text);
  double th[2];
  for (guint p = 0; p < 2; p++) {
    g_autoptr(JsonParser) jp = row_json(s, p);
    JsonObject *o = json_node_get_object(json_parser_get_root(jp));
    ck_assert_str_eq(json_object_get_string_member(o, "error"), "");
    th[p] = json_object_get_double_member(o, "throughput_gbps");
    /* the degraded row names the card left as the healthy box does (failure.h): nic1, not nic0 */
    ck_assert_str_eq(json_object_get_string_member(o, "bottleneck"), p == 0 ? "nic0.port0" : "nic1.port0");
  }
  const char *args[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", "--fail", "nics[0]", "-f", "json", NULL };
  char *out, *err;
  ck_assert_int_eq(test_run_ocasim(args, &out, &err), 0);
  g_autoptr(JsonParser) jp = json_parser_new();
  ck_assert(json_parser_load_from_data(jp, out, -1, NULL));
  JsonObject *o = json_node_get_object(json_parser_get_root(jp));
  double healthy = json_object_get_double_member(json_object_get_object_member(o, "healthy"), "throughput_gbps");
  double degraded = json_object_get_double_member(json_object_get_object_member(o, "degraded"), "throughput_gbps");
  ck_assert_double_eq_tol(th[0], healthy, 1e-9 * healthy);
  ck_assert_double_eq_tol(th[1], degraded, 1e-9 * degraded);
  ck_assert_double_eq_tol(th[1], th[0] / 2, 0.01 * th[0]); /* one card of two, NIC bound */
  g_free(out);
  g_free(err);
}
END_TEST

START_TEST(test_busiest_node_column)
{
  /* 4 KiB requests make the Rome box CPU bound (80 % cap on every node); with nics[0].ports[1]
   * down network-centric placement leaves that port's node idle, so the mean over the four nodes
   * is 3/4 of the cap (60 %) while the busiest is at it (80 %): a row must carry both, as
   * ocasim bound's JSON does (the sweep had the mean alone, next to bottleneck cpu.node0) */
  g_auto(TestDir) d = tmpdir();
  g_autofree char *cwd = g_get_current_dir();
  g_autofree char *text = g_strdup_printf("scenario: %s/scenarios/rome-400g-nic-ktls.yaml\nmode: bound\n"
                                          "set:\n  workload.request_size: 4 KiB\n"
                                          "vary:\n  - key: failures\n    values: [[], [\"nics[0].ports[1]\"]]\n",
                                          cwd);
  g_autoptr(SweepAppliance) s = load_text(d, "busiest", text);
  for (guint p = 0; p < 2; p++) {
    g_autoptr(JsonParser) jp = row_json(s, p);
    JsonObject *o = json_node_get_object(json_parser_get_root(jp));
    ck_assert_str_eq(json_object_get_string_member(o, "error"), "");
    ck_assert_str_eq(json_object_get_string_member(o, "bottleneck_kind"), "cpu");
    ck_assert_double_eq_tol(json_object_get_double_member(o, "cpu_busiest_node_pct"), 80.0, 1e-6);
    ck_assert_double_eq_tol(json_object_get_double_member(o, "cpu_util_pct"), p == 0 ? 80.0 : 60.0, 1e-6);
    ck_assert_str_eq(json_object_get_string_member(o, "cpu_busiest_node"), json_object_get_string_member(o, "bottleneck"));
  }
}
END_TEST

/* The summary of a replicated sweep: each point's mean and Student-t half-width over its
 * replications, recomputed here from the rows. */
START_TEST(test_summary)
{
  g_auto(TestDir) d = tmpdir();
  g_autofree char *p = g_build_filename(d, "s", NULL);
  ck_assert_int_eq(sweep("tests/data/sweep/small-run.yaml", p, NULL), 0);
  g_autoptr(GError) e = NULL;
  g_autofree char *v = test_ocasim_version(); /* the rows are the command's: read back with its version */
  g_autoptr(SweepAppliance) s = sweep_appliance_load("tests/data/sweep/small-run.yaml", NULL, -1, NULL, v, &e);
  g_autofree char *jpath = g_strdup_printf("%s.jsonl", p), *spath = g_strdup_printf("%s.summary.csv", p);
  g_autofree char *rows = slurp(jpath), *summary = slurp(spath);
  g_auto(GStrv) line = g_strsplit(rows, "\n", -1), sline = g_strsplit(summary, "\n", -1);
  ck_assert_uint_eq(g_strv_length(sline), 1 + sim_sweep_n_points(sw(s)) + 1);
  g_auto(GStrv) head = g_strsplit(sline[0], ",", -1);
  int col_mean = -1, col_ci = -1, col_runs = -1;
  for (int i = 0; head[i]; i++) {
    if (!strcmp(head[i], "throughput_gbps_mean")) col_mean = i;
    if (!strcmp(head[i], "throughput_gbps_ci95")) col_ci = i;
    if (!strcmp(head[i], "runs")) col_runs = i;
  }
  ck_assert(col_mean > 0 && col_ci > 0 && col_runs > 0);
  /* every row, JSON Lines, CSV and summary, ends in the version `ocasim --version` prints */
  g_autofree char *cpath = g_strdup_printf("%s.csv", p), *sjpath = g_strdup_printf("%s.summary.jsonl", p);
  g_autofree char *csv = slurp(cpath), *sjson = slurp(sjpath);
  g_autofree char *csv_end = g_strdup_printf(",%s", v), *json_end = g_strdup_printf(", \"ocasim_version\": \"%s\"}", v);
  g_auto(GStrv) cline = g_strsplit(csv, "\n", -1), sjline = g_strsplit(sjson, "\n", -1);
  ck_assert(g_str_has_suffix(cline[0], ",error,ocasim_version"));
  ck_assert(g_str_has_suffix(sline[0], ",ocasim_version"));
  ck_assert_uint_eq(g_strv_length(cline), 1 + sim_sweep_n_runs(sw(s)) + 1);
  for (guint r = 0; r < sim_sweep_n_runs(sw(s)); r++) {
    ck_assert_msg(g_str_has_suffix(cline[1 + r], csv_end), "%s", cline[1 + r]);
    ck_assert_msg(g_str_has_suffix(line[r], json_end), "%s", line[r]);
  }
  for (guint pt = 0; pt < sim_sweep_n_points(sw(s)); pt++) {
    ck_assert_msg(g_str_has_suffix(sline[1 + pt], csv_end), "%s", sline[1 + pt]);
    ck_assert_msg(g_str_has_suffix(sjline[pt], json_end), "%s", sjline[pt]);
  }
  guint n;
  const SimSweepColumn *cols = sim_sweep_columns(sw(s), &n);
  guint tcol = 0;
  while (strcmp(cols[tcol].name, "throughput_gbps")) tcol++;
  for (guint pt = 0; pt < sim_sweep_n_points(sw(s)); pt++) {
    g_autoptr(SimSweepRow) a = sim_sweep_row_parse_json(sw(s), line[2 * pt], &e),
                           b = sim_sweep_row_parse_json(sw(s), line[2 * pt + 1], &e);
    g_auto(GStrv) f = g_strsplit(sline[1 + pt], ",", -1);
    if (a->cells[tcol].missing) { /* the failed points: no mean */
      ck_assert_str_eq(f[col_runs], "0");
      ck_assert_str_eq(f[col_mean], "");
      continue;
    }
    double x = a->cells[tcol].x, y = b->cells[tcol].x, m = (x + y) / 2;
    double hw = gsl_cdf_tdist_Pinv(0.975, 1) * sqrt((x - m) * (x - m) + (y - m) * (y - m)) / sqrt(2.0);
    ck_assert_str_eq(f[col_runs], "2");
    ck_assert_double_eq_tol(g_ascii_strtod(f[col_mean], NULL), m, 1e-9 * m);
    ck_assert_double_eq_tol(g_ascii_strtod(f[col_ci], NULL), hw, 1e-9 * m);
  }
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* Results that survive write errors, concurrent runs, damage and edits (issue 33)            */

/* The file size limit a spawned sweep runs under (RLIMIT_FSIZE, bytes), for child_setup. */
typedef struct {
  rlim_t fsize;
} ChildLimit;

/* In the child: a file size limit (a write past it fails with EFBIG, SIGXFSZ ignored). */
static void limit_fsize(gpointer data)
{
  const ChildLimit *l = data;
  struct rlimit r = { l->fsize, l->fsize };
  setrlimit(RLIMIT_FSIZE, &r);
  signal(SIGXFSZ, SIG_IGN);
}

/* Runs `ocasim sweep FILE --out PREFIX -q @more` with every file it writes limited to @fsize
 * bytes; returns its exit status and its stderr in *@err. */
static int sweep_limited(const char *file, const char *prefix, const char *const *more, rlim_t fsize, char **err)
{
  const char *bin = g_getenv("OCASIM_BIN");
  ck_assert(bin != NULL);
  g_autoptr(GPtrArray) a = g_ptr_array_new();
  const char *base[] = { bin, "sweep", "-q", file, "--out", prefix };
  for (size_t i = 0; i < G_N_ELEMENTS(base); i++) g_ptr_array_add(a, (char *)base[i]);
  for (; more && *more; more++) g_ptr_array_add(a, (char *)*more);
  g_ptr_array_add(a, NULL);
  ChildLimit l = { fsize };
  int status = -1;
  g_autoptr(GError) e = NULL;
  ck_assert_msg(g_spawn_sync(NULL, (char **)a->pdata, NULL, G_SPAWN_DEFAULT, limit_fsize, &l, NULL, err, &status, &e), "%s",
                e ? e->message : "");
  ck_assert(WIFEXITED(status));
  return WEXITSTATUS(status);
}

/* Asserts that the files PREFIX.EXT of @a and @b are equal for each EXT of @ext (NULL-ended). */
static void same_results(const char *a, const char *b, const char *const *ext)
{
  for (; *ext; ext++) {
    g_autofree char *x = g_strconcat(a, *ext, NULL), *y = g_strconcat(b, *ext, NULL);
    assert_same_file(x, y);
  }
}

static const char *const RESULTS[] = { ".csv", ".jsonl", NULL };
static const char *const RESULTS_SUMMARY[] = { ".csv", ".jsonl", ".summary.csv", ".summary.jsonl", NULL };

/* A write that fails (here every file limited to 3000 bytes: EFBIG, as a full disk gives
 * ENOSPC) is an exit status 1 that names the file and the error, no final file appears, and
 * --resume, once the files may grow again, ends with the bytes of an uninterrupted run. It was
 * exit 1 "cannot write the results: Success" with the cut files renamed into place. */
START_TEST(test_write_error_kept_and_resumed)
{
  const char *file = "tests/data/sweep/small-bound.yaml";
  g_auto(TestDir) d = tmpdir();
  g_autofree char *full = g_build_filename(d, "full", NULL), *p = g_build_filename(d, "p", NULL);
  ck_assert_int_eq(sweep(file, full, NULL), 0);
  g_autofree char *err = NULL;
  const char *j1[] = { "-j", "1", NULL };
  ck_assert_int_eq(sweep_limited(file, p, j1, 3000, &err), 1);
  g_autofree char *json_part = g_strdup_printf("%s.jsonl.part", p), *csv = g_strdup_printf("%s.csv", p);
  g_autofree char *jsonl = g_strdup_printf("%s.jsonl", p);
  g_autofree char *want = g_strdup_printf("cannot write '%s': %s", json_part, g_strerror(EFBIG));
  ck_assert_msg(strstr(err, want) != NULL, "%s", err);
  ck_assert_msg(!strstr(err, "Success"), "%s", err);
  ck_assert(!g_file_test(csv, G_FILE_TEST_EXISTS) && !g_file_test(jsonl, G_FILE_TEST_EXISTS));
  g_autofree char *kept = slurp(json_part);
  ck_assert_uint_gt(lines_of(kept), 0);
  ck_assert_uint_lt(lines_of(kept), 16);
  const char *resume[] = { "--resume", NULL };
  ck_assert_int_eq(sweep(file, p, resume), 0);
  same_results(full, p, RESULTS);
}
END_TEST

/* The same on a full file system: a 16 KiB tmpfs in a private mount namespace (unshare -rm:
 * no root needed where user namespaces are allowed; skipped, said on stderr, where not). The
 * sweep fails with ENOSPC, the tmpfs grows, --resume finishes; the results are copied out and
 * compared with an uninterrupted run's. */
START_TEST(test_full_disk_kept_and_resumed)
{
  g_autofree char *unshare = test_find_program("unshare", "test_full_disk_kept_and_resumed");
  if (!unshare) return;
  const char *file = "tests/data/sweep/small-bound.yaml";
  g_auto(TestDir) d = tmpdir();
  g_autofree char *full = g_build_filename(d, "full", NULL), *mnt = g_build_filename(d, "mnt", NULL);
  ck_assert_int_eq(sweep(file, full, NULL), 0);
  ck_assert_int_eq(g_mkdir(mnt, 0700), 0);
  const char *probe[] = { unshare, "-rm", "sh", "-c", "mount -t tmpfs -o size=16k tmpfs \"$0\"", mnt, NULL };
  g_autofree char *o0 = NULL, *e0 = NULL;
  if (test_spawn(probe, NULL, NULL, &o0, &e0) != 0) {
    fprintf(stderr, "test_full_disk_kept_and_resumed: skipped: cannot mount a tmpfs here (%s)\n", g_strstrip(e0));
    g_rmdir(mnt);
    return;
  }
  const char *bin = g_getenv("OCASIM_BIN");
  /* $0 mount point, $1 ocasim, $2 sweep file, $3 where the results go */
  const char *script = "set -u; mount -t tmpfs -o size=16k tmpfs \"$0\" || exit 90\n"
                       "\"$1\" sweep -q -j 1 \"$2\" --out \"$0/p\"; echo \"first=$?\"\n"
                       "ls \"$0\"\n"
                       "mount -o remount,size=4m \"$0\" || exit 91\n"
                       "\"$1\" sweep -q \"$2\" --out \"$0/p\" --resume; echo \"resume=$?\"\n"
                       "cp \"$0/p.csv\" \"$0/p.jsonl\" \"$3\"\n";
  g_autofree char *out_dir = g_build_filename(d, "out", NULL);
  ck_assert_int_eq(g_mkdir(out_dir, 0700), 0);
  const char *argv[] = { unshare, "-rm", "sh", "-c", script, mnt, bin, file, out_dir, NULL };
  g_autofree char *out = NULL, *err = NULL;
  int rc = test_spawn(argv, NULL, NULL, &out, &err);
  ck_assert_msg(rc == 0, "exit %d: %s %s", rc, out, err);
  g_autofree char *want = g_strdup_printf("cannot write '%s/p.", mnt);
  ck_assert_msg(strstr(err, want) && strstr(err, g_strerror(ENOSPC)), "%s", err);
  ck_assert_msg(strstr(out, "first=1\n") && strstr(out, "resume=0\n"), "%s", out);
  ck_assert_msg(!strstr(out, "p.csv\n") && strstr(out, "p.csv.part\n"), "no final file after the failure: %s", out);
  g_autofree char *got = g_build_filename(out_dir, "p", NULL);
  same_results(full, got, RESULTS);
  g_autofree char *c = g_strconcat(got, ".csv", NULL), *j = g_strconcat(got, ".jsonl", NULL);
  g_unlink(c);
  g_unlink(j);
  g_rmdir(out_dir);
  g_rmdir(mnt);
}
END_TEST

/* --out is locked while a sweep writes it: a second sweep or --resume on the prefix is refused
 * (exit 1, saying so) and changes nothing; once the lock is free, the same command runs. */
START_TEST(test_out_locked)
{
  const char *file = "tests/data/sweep/small-bound.yaml";
  g_auto(TestDir) d = tmpdir();
  g_autofree char *p = g_build_filename(d, "p", NULL), *full = g_build_filename(d, "full", NULL);
  ck_assert_int_eq(sweep(file, full, NULL), 0);
  const char *limit[] = { "--limit", "5", NULL }, *resume[] = { "--resume", NULL };
  ck_assert_int_eq(sweep(file, p, limit), 0);
  g_autofree char *lock = g_strdup_printf("%s.lock", p), *part = g_strdup_printf("%s.jsonl.part", p);
  ck_assert(!g_file_test(lock, G_FILE_TEST_EXISTS)); /* removed when the sweep ends */
  g_autofree char *before = slurp(part);
  int fd = g_open(lock, O_RDWR | O_CREAT, 0666); /* another sweep holds it */
  ck_assert(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0);
  const char *args_resume[] = { "sweep", "-q", file, "--out", p, "--resume", NULL };
  const char *args_new[] = { "sweep", "-q", file, "--out", p, NULL };
  for (int i = 0; i < 2; i++) {
    g_autofree char *out = NULL, *err = NULL;
    ck_assert_int_eq(test_run_ocasim(i ? args_new : args_resume, &out, &err), 1);
    ck_assert_msg(strstr(err, "another ocasim sweep is writing these results") && strstr(err, lock), "%s", err);
  }
  g_autofree char *after = slurp(part);
  ck_assert_str_eq(before, after);
  close(fd);
  ck_assert_int_eq(sweep(file, p, resume), 0);
  same_results(full, p, RESULTS);
}
END_TEST

/* Two sweeps started at once on one prefix: never mixed. Each ends either refused by the lock
 * (exit 1) or having written the whole result (exit 0); at least one wrote it, and the result
 * is an uninterrupted run's. It was rows merged mid-line, duplicated or out of order. */
START_TEST(test_concurrent_sweeps_not_mixed)
{
  const char *file = "tests/data/sweep/small-run.yaml";
  g_auto(TestDir) d = tmpdir();
  g_autofree char *p = g_build_filename(d, "p", NULL), *full = g_build_filename(d, "full", NULL);
  ck_assert_int_eq(sweep(file, full, NULL), 0);
  const char *bin = g_getenv("OCASIM_BIN");
  for (int round = 0; round < 3; round++) {
    GPid pid[2];
    int errfd[2];
    for (int i = 0; i < 2; i++) {
      const char *argv[] = { bin, "sweep", "-q", "-j", "1", file, "--out", p, round == 2 ? "--resume" : "-q", NULL };
      g_autoptr(GError) e = NULL;
      ck_assert_msg(g_spawn_async_with_pipes(NULL, (char **)argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid[i], NULL,
                                             NULL, &errfd[i], &e),
                    "%s", e ? e->message : "");
    }
    int wrote = 0;
    for (int i = 0; i < 2; i++) {
      GString *err = g_string_new(NULL);
      char buf[4096];
      for (ssize_t n; (n = read(errfd[i], buf, sizeof buf)) > 0;) g_string_append_len(err, buf, n);
      close(errfd[i]);
      int status;
      ck_assert(waitpid(pid[i], &status, 0) == pid[i] && WIFEXITED(status));
      g_spawn_close_pid(pid[i]);
      int rc = WEXITSTATUS(status);
      ck_assert_msg(rc == 0 || (rc == 1 && strstr(err->str, "another ocasim sweep is writing these results")), "exit %d: %s", rc,
                    err->str);
      wrote += rc == 0;
      g_string_free(err, TRUE);
    }
    ck_assert_int_ge(wrote, 1);
    same_results(full, p, RESULTS_SUMMARY);
  }
}
END_TEST

typedef struct {
  const char *name;
  const char *ext;  /* the .part file damaged */
  int line;         /* its line (1-based; CSV: the header is line 1) */
  const char *how;  /* "nul", "cut" (half the line, its newline kept), "edit" (a digit changed), "garbage";
                       "edit json": the JSON row of the CSV line @line edited */
  const char *said; /* in the message after "FILE line N " (%s: the prefix) */
} Damage;

static const Damage damages[] = {
  { "nul in a JSON row", ".jsonl.part", 3, "nul", "holds a NUL byte" },
  { "nul in a CSV row", ".csv.part", 2, "nul", "holds a NUL byte" },
  { "JSON row cut", ".jsonl.part", 2, "cut", "is not a row" },
  { "CSV row cut", ".csv.part", 4, "cut", "and %s.jsonl.part line 3 disagree" },
  { "JSON output edited", ".csv.part", 5, "edit json", "and %s.jsonl.part line 4 disagree" },
  { "CSV output edited", ".csv.part", 3, "edit", "and %s.jsonl.part line 2 disagree" },
  { "garbage JSON line", ".jsonl.part", 5, "garbage", "is not a row" },
  { "garbage CSV line", ".csv.part", 5, "garbage", "and %s.jsonl.part line 4 disagree" },
};

/* A .part file damaged (a NUL byte, a line cut short, an edited output, garbage): --resume
 * keeps the intact rows before it, says which file and line, runs the rest again, and the
 * final files equal an uninterrupted run's. It was a SIGTRAP (NUL), or the damage in the final
 * CSV with exit 0 (the CSV rows were never read back). */
START_TEST(test_resume_damaged_part)
{
  const Damage *dm = &damages[_i];
  const char *file = "tests/data/sweep/small-bound.yaml";
  g_auto(TestDir) d = tmpdir();
  g_autofree char *p = g_build_filename(d, "p", NULL), *full = g_build_filename(d, "full", NULL);
  ck_assert_int_eq(sweep(file, full, NULL), 0);
  const char *limit[] = { "--limit", "6", NULL };
  ck_assert_int_eq(sweep(file, p, limit), 0);
  gboolean json_edit = !strcmp(dm->how, "edit json"); /* the message names the CSV line: the rows disagree */
  g_autofree char *path = g_strconcat(p, json_edit ? ".jsonl.part" : dm->ext, NULL);
  gsize len;
  g_autofree char *text = NULL;
  ck_assert(g_file_get_contents(path, &text, &len, NULL));
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  int at = dm->line - 1 - json_edit;
  char *l = lines[at];
  ck_assert(l && strlen(l) > 20);
  g_autoptr(GString) out = g_string_new(NULL);
  for (int i = 0; lines[i]; i++) {
    if (i) g_string_append_c(out, '\n');
    if (i != at) {
      g_string_append(out, lines[i]);
      continue;
    }
    if (!strcmp(dm->how, "nul")) {
      g_string_append(out, l);
      out->str[out->len - strlen(l) / 2] = '\0';
    } else if (!strcmp(dm->how, "cut")) {
      g_string_append_len(out, l, (gssize)strlen(l) / 2);
    } else if (g_str_has_prefix(dm->how, "edit")) { /* an output's first digit changed: past "_gbps": or the 8th comma */
      gsize from = out->len;
      g_string_append(out, l);
      char *dg = strstr(out->str + from, "_gbps\": ");
      for (int commas = 0; !dg && commas < 8; from++) commas += out->str[from] == ',';
      for (dg = dg ? dg : out->str + from; !g_ascii_isdigit(*dg); dg++)
        ;
      *dg = *dg == '9' ? '8' : *dg + 1;
    } else {
      g_string_append(out, "x,\"1\":garbage{}");
      g_string_append_c(out, '\n');
      g_string_append(out, l);
    }
  }
  ck_assert(g_file_set_contents(path, out->str, (gssize)out->len, NULL));
  const char *args[] = { "sweep", "-q", file, "--out", p, "--resume", NULL };
  g_autofree char *o = NULL, *err = NULL;
  ck_assert_int_eq(test_run_ocasim(args, &o, &err), 0);
  g_autofree char *said = g_strdup_printf(dm->said, p);
  g_autofree char *where = g_strdup_printf("%s%s line %d %s", p, dm->ext, dm->line, said);
  /* an edited JSON row is found either against its CSV row or against the row this run writes
   * for its point (which check sees it first depends on the field the edit hits): both name it */
  g_autofree char *where_json = g_strdup_printf("%s.jsonl.part line %d is not the row this run writes", p, dm->line - 1);
  ck_assert_msg(strstr(err, where) != NULL || (json_edit && strstr(err, where_json) != NULL), "%s: want '%s' in: %s", dm->name,
                where, err);
  same_results(full, p, RESULTS);
}
END_TEST

/* Killed after the last run was renamed into place but before the summaries: --resume writes
 * them (it called the sweep complete and never wrote them). */
START_TEST(test_resume_writes_missing_summaries)
{
  const char *file = "tests/data/sweep/small-run.yaml";
  g_auto(TestDir) d = tmpdir();
  g_autofree char *p = g_build_filename(d, "p", NULL), *full = g_build_filename(d, "full", NULL);
  ck_assert_int_eq(sweep(file, full, NULL), 0);
  const char *limit[] = { "--limit", "7", NULL }, *resume[] = { "--resume", NULL };
  ck_assert_int_eq(sweep(file, p, limit), 0);
  g_autofree char *inputs = g_strdup_printf("%s.inputs.part", p), *kept = NULL;
  g_file_get_contents(inputs, &kept, NULL, NULL); /* checked below */
  ck_assert_int_eq(sweep(file, p, resume), 0);
  ck_assert(!g_file_test(inputs, G_FILE_TEST_EXISTS)); /* removed with the summaries written */
  /* the state of a kill between the rename of the rows and the summaries */
  if (kept) ck_assert(g_file_set_contents(inputs, kept, -1, NULL));
  for (int i = 2; RESULTS_SUMMARY[i]; i++) {
    g_autofree char *f = g_strconcat(p, RESULTS_SUMMARY[i], NULL);
    ck_assert_int_eq(g_unlink(f), 0);
  }
  ck_assert_int_eq(sweep(file, p, resume), 0);
  same_results(full, p, RESULTS_SUMMARY);
  ck_assert(kept != NULL && !g_file_test(inputs, G_FILE_TEST_EXISTS));
}
END_TEST

/* The base scenario's platform file edited between two chunks of a sweep: --resume refuses the
 * rows (exit 2, naming the file), and leaves them as they were; it mixed two boxes in one
 * result file with exit 0 twice. The same for an edit of the scenario; a comment is no edit. */
START_TEST(test_resume_after_platform_edit)
{
  g_auto(TestDir) d = tmpdir();
  g_autofree char *plat_text = slurp("scenarios/platforms/milan-7713-2s.yaml");
  g_autofree char *scen_text = slurp("scenarios/milan-800g-dlwm-off-network-centric.yaml");
  g_autofree char *plat = g_build_filename(d, "plat.yaml", NULL), *scen = g_build_filename(d, "scen.yaml", NULL);
  g_autofree char *sw = g_build_filename(d, "sweep.yaml", NULL), *p = g_build_filename(d, "p", NULL);
  g_autoptr(GString) st = g_string_new(scen_text);
  ck_assert_uint_eq(g_string_replace(st, "platform: platforms/milan-7713-2s.yaml", "platform: plat.yaml", 1), 1);
  ck_assert(g_file_set_contents(plat, plat_text, -1, NULL) && g_file_set_contents(scen, st->str, -1, NULL));
  ck_assert(g_file_set_contents(sw,
                                "scenario: scen.yaml\nmode: bound\nvary:\n  - key: nics[0].count\n    values: [1, 2]\n"
                                "  - key: topology.links[0].width\n    values: [4, 8, 16]\n",
                                -1, NULL));
  const char *limit[] = { "--limit", "3", NULL };
  ck_assert_int_eq(sweep(sw, p, limit), 0);
  g_autofree char *part = g_strdup_printf("%s.jsonl.part", p), *before = slurp(part);
  const char *args[] = { "sweep", "-q", sw, "--out", p, "--resume", NULL };
  /* a comment added: the same values, resumable (checked last) */
  g_autofree char *commented = g_strconcat("# a comment\n", plat_text, NULL);
  /* 2.0 GHz -> 2.2 GHz: another box */
  g_autoptr(GString) faster = g_string_new(plat_text);
  ck_assert_uint_eq(g_string_replace(faster, "clock: 2.0 GHz", "clock: 2.2 GHz", 1), 1);
  g_autoptr(GString) scen_edit = g_string_new(st->str);
  ck_assert_uint_eq(g_string_replace(scen_edit, "dlwm: false", "dlwm: true", 1), 1);
  ck_assert(g_file_set_contents(plat, faster->str, -1, NULL));
  g_autofree char *o = NULL, *err = NULL;
  ck_assert_int_eq(test_run_ocasim(args, &o, &err), 2);
  ck_assert_msg(strstr(err, "computed from other inputs") && strstr(err, "plat.yaml changed"), "%s", err);
  ck_assert(g_file_set_contents(plat, plat_text, -1, NULL) && g_file_set_contents(scen, scen_edit->str, -1, NULL));
  g_free(err);
  g_free(o);
  ck_assert_int_eq(test_run_ocasim(args, &o, &err), 2);
  ck_assert_msg(strstr(err, "scen.yaml changed") && !strstr(err, "plat.yaml"), "%s", err);
  g_autofree char *after = slurp(part);
  ck_assert_str_eq(before, after);
  /* the same inputs at another interval level: the rows' interval columns would differ */
  ck_assert(g_file_set_contents(scen, st->str, -1, NULL));
  const char *at90[] = { "sweep", "-q", sw, "--out", p, "--resume", "--interval", "0.9", NULL };
  g_free(err);
  g_free(o);
  ck_assert_int_eq(test_run_ocasim(at90, &o, &err), 2);
  ck_assert_msg(strstr(err, "prediction intervals at level 0.8, now 0.9"), "%s", err);
  ck_assert(g_file_set_contents(scen, st->str, -1, NULL) && g_file_set_contents(plat, commented, -1, NULL));
  ck_assert_int_eq(sweep(sw, p, (const char *const[]){ "--resume", NULL }), 0);
  g_autofree char *csv = g_strdup_printf("%s.csv", p), *text = slurp(csv);
  ck_assert_uint_eq(lines_of(text), 1 + 6);
}
END_TEST

/* A sweep varying rate_precision (the DES's precision knob, a scenario key): the exact run and
 * EPS 1e-2 on one seed, each with its value in its column; the knob reaches the DES (the
 * outputs differ) and stays within issue 32's tolerances of the exact point (throughput within
 * 0.5 %, p99 within the exact point's 95 % half-width). */
START_TEST(test_precision_key_varied)
{
  g_auto(TestDir) d = tmpdir();
  g_autofree char *p = g_build_filename(d, "prec", NULL);
  ck_assert_int_eq(sweep("tests/data/sweep/precision-run.yaml", p, NULL), 0);
  g_autofree char *csv_path = g_strdup_printf("%s.csv", p);
  g_autofree char *csv = slurp(csv_path);
  ck_assert_uint_eq(lines_of(csv), 1 + 2);
  g_auto(GStrv) lines = g_strsplit(csv, "\n", -1);
  g_auto(GStrv) head = g_strsplit(lines[0], ",", -1);
  int c_eps = -1, c_seed = -1, c_x = -1, c_p99 = -1, c_p99ci = -1, c_err = -1;
  for (int i = 0; head[i]; i++) {
    if (!strcmp(head[i], "rate_precision")) c_eps = i;
    if (!strcmp(head[i], "seed")) c_seed = i;
    if (!strcmp(head[i], "throughput_gbps")) c_x = i;
    if (!strcmp(head[i], "p99_ms")) c_p99 = i;
    if (!strcmp(head[i], "p99_ci95_ms")) c_p99ci = i;
    if (!strcmp(head[i], "error")) c_err = i;
  }
  ck_assert(c_eps >= 0 && c_seed >= 0 && c_x >= 0 && c_p99 >= 0 && c_p99ci >= 0 && c_err >= 0);
  g_auto(GStrv) r0 = g_strsplit(lines[1], ",", -1);
  g_auto(GStrv) r1 = g_strsplit(lines[2], ",", -1);
  ck_assert_str_eq(r0[c_eps], "0");
  ck_assert_str_eq(r1[c_eps], "1e-2");
  ck_assert_str_eq(r0[c_seed], "7");
  ck_assert_str_eq(r1[c_seed], "7");
  ck_assert_str_eq(r0[c_err], "");
  ck_assert_str_eq(r1[c_err], "");
  double x0 = g_ascii_strtod(r0[c_x], NULL), x1 = g_ascii_strtod(r1[c_x], NULL);
  double p0 = g_ascii_strtod(r0[c_p99], NULL), p1 = g_ascii_strtod(r1[c_p99], NULL), hw = g_ascii_strtod(r0[c_p99ci], NULL);
  ck_assert(x0 > 600 && x1 != x0);
  ck_assert_msg(fabs(x1 - x0) <= 5e-3 * x0, "%g vs %g", x1, x0);
  ck_assert_msg(fabs(p1 - p0) <= hw, "p99 %g vs %g +- %g", p1, p0, hw);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("sweep");
  TCase *tc = tcase_create("sweep");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_bad_sweep, 0, G_N_ELEMENTS(bad));
  tcase_add_test(tc, test_set_and_vary);
  tcase_add_test(tc, test_threads_same_rows_bound);
  tcase_add_test(tc, test_threads_same_rows_run);
  tcase_add_test(tc, test_resume);
  tcase_add_test(tc, test_resume_other_sweep);
  tcase_add_test(tc, test_resume_other_version);
  tcase_add_test(tc, test_failed_point_is_a_row);
  tcase_add_test(tc, test_failed_count);
  tcase_add_test(tc, test_out_prefix_refused);
  tcase_add_test(tc, test_out_symlink_refused);
  tcase_add_test(tc, test_varied_seed_one_column);
  tcase_add_test(tc, test_precision_key_varied);
  tcase_add_test(tc, test_json_round_trip);
  tcase_add_test(tc, test_memo_rows);
  tcase_add_test(tc, test_capacity_matches_capacity_command);
  tcase_add_test(tc, test_capacity_headroom_columns);
  tcase_add_test(tc, test_summary);
  tcase_add_test(tc, test_failures_planned);
  tcase_add_test(tc, test_short_run_sweep_warns);
  tcase_add_test(tc, test_busiest_node_column);
  tcase_add_test(tc, test_write_error_kept_and_resumed);
  tcase_add_test(tc, test_full_disk_kept_and_resumed);
  tcase_add_test(tc, test_out_locked);
  tcase_add_test(tc, test_concurrent_sweeps_not_mixed);
  tcase_add_loop_test(tc, test_resume_damaged_part, 0, G_N_ELEMENTS(damages));
  tcase_add_test(tc, test_resume_writes_missing_summaries);
  tcase_add_test(tc, test_resume_after_platform_edit);
  suite_add_tcase(s, tc);
  return test_run_suite(s);
}
