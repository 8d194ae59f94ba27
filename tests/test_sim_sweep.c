/* tests/test_sim_sweep.c — the generic sweep engine (sim/sweep.h) on a toy model, no appliance.
 *
 * The toy scenario has keys x, y (numbers) and seed; its run gives sum = x + y, noisy = x + (seed
 * mod 1000) / 1000, a label and a flag, and fails for x < 0; it refuses x > 100 (a value located
 * in the sweep file). Checked: the points of values, ranges and zips (the last axis fastest, a zip
 * moving together); the seeds derived by hand from the documented SHA-256 text; located errors of
 * bad sweep files; a row's CSV and JSON Lines byte for byte, read back and recognised as its run;
 * a failed point's row; the summary's mean and Student-t half-width recomputed from the rows; the
 * inputs digest and what it says changed. */
#include <check.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <string.h>
#include "sim/csv.h"
#include "sim/sweep.h"
#include "tests/support/tmpdir.h"
#include "tests/support/check_run.h"

#define TOY_VERSION "v0-toy"

/* The toy sweep file's top level: the generic keys alone. */
typedef struct {
  SimSweepFile file;
} ToyConf;

/* clang-format off */
static const SimConfField toy_schema[] = {
  SIM_SWEEP_ROW_KIND(ToyConf, file),
  SIM_SWEEP_ROW_SCENARIO(ToyConf, file, "the toy scenario swept"),
  SIM_SWEEP_ROW_REPLICATIONS(ToyConf, file, "runs per point"),
  SIM_SWEEP_ROW_SEED(ToyConf, file),
  SIM_SWEEP_ROW_SET(ToyConf, file),
  SIM_SWEEP_ROW_VARY(ToyConf, file),
  SIM_CONF_END
};
/* clang-format on */

static const SimSweepColumn toy_columns[] = {
  { "sum", SIM_SWEEP_COL_NUMBER, "", "x + y" },
  { "noisy", SIM_SWEEP_COL_NUMBER, "", "x + (seed mod 1000) / 1000" },
  { "sum_ci95", SIM_SWEEP_COL_NUMBER, "", "a half-width the summary leaves out" },
  { "label", SIM_SWEEP_COL_STRING, "", "\"x=X\"" },
  { "big", SIM_SWEEP_COL_BOOL, "", "sum > 10" },
};

/* The number at @key of @root, or NAN. */
static double toy_number(const SimConfNode *root, const char *key)
{
  const SimConfNode *n = sim_conf_node_get(root, key);
  return n && sim_conf_node_kind(n) == SIM_CONF_NODE_SCALAR ? g_ascii_strtod(sim_conf_node_text(n), NULL) : NAN;
}

static gboolean toy_bind(const SimConfNode *root, void *ctx G_GNUC_UNUSED, GError **error)
{
  if (toy_number(root, "x") > 100) {
    sim_conf_set_error(error, sim_conf_node_get(root, "x"), SIM_CONF_ERROR_RANGE, "x must be <= 100");
    return FALSE;
  }
  return TRUE;
}

static gboolean toy_evaluate(const SimSweep *sweep G_GNUC_UNUSED, SimSweepPoint *pt, void *ctx, GError **error)
{
  int *calls = ctx;
  g_atomic_int_inc(calls);
  double x = toy_number(pt->root, "x"), y = toy_number(pt->root, "y");
  gint64 seed = g_ascii_strtoll(sim_conf_node_text(sim_conf_node_get(pt->root, "seed")), NULL, 10);
  pt->seed_bound = TRUE;
  pt->seed = seed;
  if (x < 0) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "x below 0");
    return FALSE;
  }
  sim_sweep_cell_set_number(&pt->out[0], x + y);
  sim_sweep_cell_set_number(&pt->out[1], x + (double)(seed % 1000) / 1000);
  sim_sweep_cell_set_number(&pt->out[2], 0.5);
  g_autofree char *label = g_strdup_printf("x=%g", x);
  sim_sweep_cell_set_string(&pt->out[3], label);
  sim_sweep_cell_set_bool(&pt->out[4], x + y > 10);
  return TRUE;
}

static const char *const toy_kinds[] = { "toy", NULL };
static const SimSweepClass toy_class = {
  .schema = toy_schema,
  .file_offset = offsetof(ToyConf, file),
  .include_key = "platform",
  .scenario_kind = "toy",
  .scenario_noun = "a toy scenario",
  .scenario_kinds = toy_kinds,
  .bind = toy_bind,
  .evaluate = toy_evaluate,
};

/* A directory holding toy.yaml (the base scenario) for one test (g_auto(TestDir) removes it). */
static char *toy_dir(void)
{
  char *d = test_tmpdir("ocasim-sim-sweep-XXXXXX");
  g_autofree char *f = g_build_filename(d, "toy.yaml", NULL);
  ck_assert(g_file_set_contents(f, "kind: toy\nname: toy-scenario\nseed: 5\nx: 1\ny: 2\n", -1, NULL));
  return d;
}

/* The sweep file @name in @dir holding @text, loaded (NULL with @error); @calls counts the evaluations. */
static SimSweep *toy_load(const char *dir, const char *name, const char *text, gint64 seed, int *calls, GError **error)
{
  g_autofree char *f = g_build_filename(dir, name, NULL);
  ck_assert(g_file_set_contents(f, text, -1, NULL));
  ToyConf c = { 0 };
  SimSweep *s = sim_sweep_load(f, &toy_class, &c, NULL, seed, NULL, TOY_VERSION, calls, error);
  sim_conf_unbind(toy_schema, &c);
  if (s) sim_sweep_set_columns(s, "toy", toy_columns, G_N_ELEMENTS(toy_columns));
  return s;
}

static SimSweep *toy_ok(const char *dir, const char *text, int *calls)
{
  g_autoptr(GError) e = NULL;
  SimSweep *s = toy_load(dir, "s.yaml", text, -1, calls, &e);
  ck_assert_msg(s != NULL, "%s", e ? e->message : "");
  return s;
}

/* Values, a range and a zip: the product of the axes, the last varying fastest, the zip's keys
 * together; the value index of each key. */
START_TEST(test_points_and_zip)
{
  g_auto(TestDir) d = toy_dir();
  int calls = 0;
  g_autoptr(SimSweep) s = toy_ok(d,
                                 "scenario: toy.yaml\n"
                                 "vary:\n"
                                 "  - key: x\n    values: [1, 2]\n"
                                 "  - zip:\n"
                                 "      - {key: y, values: [10, 20, 30]}\n"
                                 "      - {key: z, values: [a, b, c]}\n"
                                 "  - key: w\n    range: {from: 1, to: 2, step: 0.5}\n",
                                 &calls);
  ck_assert_uint_eq(sim_sweep_n_points(s), 2 * 3 * 3);
  ck_assert_uint_eq(sim_sweep_n_runs(s), 18);
  ck_assert_uint_eq(sim_sweep_n_keys(s), 4);
  ck_assert_str_eq(sim_sweep_key(s, 2), "z");
  ck_assert(sim_sweep_varies(s, "w") && !sim_sweep_varies(s, "seed"));
  /* point 13 = 1 * 9 + 1 * 3 + 1: x's second, the zip's second, w's second */
  ck_assert_str_eq(sim_sweep_value(s, 13, 0), "2");
  ck_assert_str_eq(sim_sweep_value(s, 13, 1), "20");
  ck_assert_str_eq(sim_sweep_value(s, 13, 2), "b");
  ck_assert_str_eq(sim_sweep_value(s, 13, 3), "1.5");
  ck_assert_str_eq(sim_sweep_value(s, 17, 3), "2");
  ck_assert_str_eq(sim_sweep_value(s, 8, 2), "c");
  ck_assert_uint_eq(sim_sweep_value_index(s, 8, 1), 2);
  ck_assert_uint_eq(sim_sweep_value_index(s, 8, 0), 0);
  ck_assert_int_eq(calls, 0); /* loading evaluates nothing */
}
END_TEST

/* Seeds: the documented SHA-256 derivation by hand, 53 bits, distinct per point and replication,
 * another sweep seed (the file's, or the caller's in its place) giving others. */
START_TEST(test_seeds)
{
  g_auto(TestDir) d = toy_dir();
  int calls = 0;
  const char *text = "scenario: toy.yaml\nseed: 7\nreplications: 2\nvary:\n  - key: x\n    values: [1, 2, 3]\n"
                     "  - key: y\n    values: [4, 5]\n";
  g_autoptr(SimSweep) s = toy_ok(d, text, &calls);
  guint64 s0 = sim_sweep_seed(s, 3, 1);
  const char *hand = "ocasim-sweep-v1\nseed=7\nx=2\ny=5\nreplication=1\n"; /* point 3: x = 2, y = 5 */
  g_autofree char *hex = g_compute_checksum_for_string(G_CHECKSUM_SHA256, hand, -1);
  g_autofree char *top = g_strndup(hex, 16);
  ck_assert_uint_eq(s0, g_ascii_strtoull(top, NULL, 16) >> 11);
  ck_assert_uint_lt(s0, G_GUINT64_CONSTANT(1) << 53);
  g_autoptr(GHashTable) seen = g_hash_table_new(g_int64_hash, g_int64_equal);
  gint64 v[12];
  for (guint p = 0; p < 6; p++)
    for (guint r = 0; r < 2; r++) {
      v[p * 2 + r] = (gint64)sim_sweep_seed(s, p, r);
      ck_assert(!g_hash_table_contains(seen, &v[p * 2 + r]));
      g_hash_table_add(seen, &v[p * 2 + r]);
    }
  g_autoptr(GError) e = NULL;
  g_autoptr(SimSweep) s2 = toy_load(d, "s2.yaml", text, 8, &calls, &e);
  ck_assert(s2 && sim_sweep_seed(s2, 3, 1) != s0);
  /* the run applies its seed to the scenario: the callback sees it */
  g_autoptr(SimSweepRow) row = sim_sweep_run(s, 7, NULL);
  ck_assert_int_eq(row->cells[4].i, (gint64)s0);
  ck_assert_double_eq_tol(row->cells[9].x, 2 + (double)(s0 % 1000) / 1000, 1e-12); /* noisy */
}
END_TEST

/* A range keeps its last value despite rounding (0.1 .. 0.3 step 0.1) and keeps its unit. */
START_TEST(test_range_values)
{
  g_auto(TestDir) d = toy_dir();
  int calls = 0;
  g_autoptr(SimSweep) s = toy_ok(d,
                                 "scenario: toy.yaml\nvary:\n"
                                 "  - key: x\n    range: {from: 0.1, to: 0.3, step: 0.1}\n"
                                 "  - key: y\n    range: {from: 100 Gb/s, to: 300 Gb/s, step: 100 Gb/s}\n",
                                 &calls);
  ck_assert_uint_eq(sim_sweep_n_points(s), 9);
  ck_assert_str_eq(sim_sweep_value(s, 6, 0), "0.3");
  ck_assert_str_eq(sim_sweep_value(s, 7, 1), "200 Gb/s");
}
END_TEST

typedef struct {
  const char *text;    /* the sweep file (s.yaml beside toy.yaml) */
  const char *where;   /* "s.yaml:LINE:COL: PATH: " the message starts with after the directory */
  const char *message; /* a substring of the rest */
} BadToy;

static const BadToy bad_toys[] = {
  { "scenario: toy.yaml\nvary:\n  - key: x\n    range: {from: 1, to: 4, step: 0}\n",
    "s.yaml:4:35: vary[0].range.step: ", "step must be > 0" },
  { "scenario: toy.yaml\nvary:\n  - key: x\n    range: {from: 1 s, to: 4 ms, step: 1 s}\n",
    "s.yaml:4:28: vary[0].range.to: ", "unit 'ms' differs from from's 's'" },
  { "scenario: toy.yaml\nvary:\n  - zip:\n      - {key: x, values: [1, 2]}\n      - {key: y, values: [1, 2, 3]}\n",
    "s.yaml:5:9: vary[0].zip[1]: ", "3 values, but the first list of the zip has 2" },
  { "scenario: toy.yaml\nvary:\n  - key: x\n    values: [1, 200]\n", "s.yaml:4:17: x: ", "x must be <= 100" },
  { "scenario: toy.yaml\nvary:\n  - key: x\n    values: [1]\n  - key: x\n    values: [2]\n",
    "s.yaml:5:10: vary[1].key: ", "'x' is varied twice (first at line 3)" },
  { "scenario: toy.yaml\nset: {y: 3}\nvary:\n  - key: y\n    values: [1]\n",
    "s.yaml:4:10: vary[0].key: ", "'y' is varied and also fixed by set: (line 2)" },
  { "scenario: toy.yaml\nset: {platform: p.yaml}\n",
    "s.yaml:2:17: set.platform: ", "the platform file is included before any override" },
  { "scenario: toy.yaml\nset: {seed: 3}\n", "s.yaml:2:13: set.seed: ", "derives from the sweep's seed" },
  { "scenario: toy.yaml\nreplications: 2\nvary:\n  - key: seed\n    values: [1, 2]\n",
    "s.yaml:2:15: replications: ", "would repeat the varied seeds" },
  { "scenario: s.yaml\n", "s.yaml:1:11: scenario: ", "a sweep needs a toy scenario (kind: toy), not ''" },
  { "kind: toy\nx: 1\n", "s.yaml:1:7: kind: ", "this is a scenario (kind: toy), not a sweep file" },
  { "scenario: toy.yaml\nvarry: []\n", "s.yaml:2:1: varry: ", "did you mean 'vary'" },
};

/* Bad sweep files: each error located in the sweep file, at the value, key or entry at fault. */
START_TEST(test_bad_sweep)
{
  const BadToy *b = &bad_toys[_i];
  g_auto(TestDir) d = toy_dir();
  int calls = 0;
  g_autoptr(GError) e = NULL;
  g_autoptr(SimSweep) s = toy_load(d, "s.yaml", b->text, -1, &calls, &e);
  ck_assert_msg(s == NULL, "%s: loaded", b->text);
  g_autofree char *want = g_strdup_printf("%s/%s", d, b->where);
  ck_assert_msg(g_str_has_prefix(e->message, want) && strstr(e->message + strlen(want), b->message), "want '%s...%s', got '%s'",
                want, b->message, e->message);
}
END_TEST

/* A row's CSV and JSON Lines byte for byte: the id columns, the varied key, the caller's columns,
 * error and version; read back to the same bytes; recognised as its run and no other; a failed
 * point's row with its error and empty outputs. */
START_TEST(test_rows)
{
  g_auto(TestDir) d = toy_dir();
  int calls = 0;
  g_autoptr(SimSweep) s = toy_ok(d, "scenario: toy.yaml\nset: {y: 3}\nvary:\n  - key: x\n    values: [1, -1]\n", &calls);
  g_autoptr(GString) h = g_string_new(NULL);
  sim_sweep_csv_header(s, h);
  ck_assert_str_eq(h->str,
                   "point,replication,scenario,mode,seed,overrides,x,sum,noisy,sum_ci95,label,big,error,ocasim_version\n");
  guint64 seed0 = sim_sweep_seed(s, 0, 0);
  g_autoptr(SimSweepRow) row = sim_sweep_run(s, 0, NULL);
  g_autoptr(GString) csv = g_string_new(NULL), json = g_string_new(NULL);
  sim_sweep_row_append_csv(s, row, csv);
  sim_sweep_row_append_json(s, row, json);
  double nv = 1 + (double)(seed0 % 1000) / 1000;
  ck_assert_double_eq(row->cells[8].x, nv);
  g_autoptr(GString) nt = g_string_new(NULL);
  sim_csv_number_exact(nt, nv);
  g_autofree char *want_csv =
      g_strdup_printf("0,0,toy-scenario,toy,%" G_GUINT64_FORMAT ",y=3,1,4.0,%s,0.5,x=1,false,," TOY_VERSION "\n", seed0, nt->str);
  ck_assert_str_eq(csv->str, want_csv);
  g_autofree char *want_json = g_strdup_printf(
      "{\"point\": 0, \"replication\": 0, \"scenario\": \"toy-scenario\", \"mode\": \"toy\", \"seed\": %" G_GUINT64_FORMAT
      ", \"overrides\": \"y=3\", \"x\": 1, \"sum\": 4.0, \"noisy\": %s, \"sum_ci95\": 0.5, \"label\": \"x=1\", \"big\": false, "
      "\"error\": \"\", \"ocasim_version\": \"" TOY_VERSION "\"}\n",
      seed0, nt->str);
  ck_assert_str_eq(json->str, want_json);
  ck_assert(!sim_sweep_row_failed(s, row) && !sim_sweep_row_line_failed(json->str));
  g_autoptr(GError) e = NULL;
  g_autoptr(SimSweepRow) back = sim_sweep_row_parse_json(s, json->str, &e);
  ck_assert_msg(back != NULL, "%s", e ? e->message : "");
  g_autoptr(GString) csv2 = g_string_new(NULL), json2 = g_string_new(NULL);
  sim_sweep_row_append_csv(s, back, csv2);
  sim_sweep_row_append_json(s, back, json2);
  ck_assert_str_eq(csv2->str, csv->str);
  ck_assert_str_eq(json2->str, json->str);
  ck_assert(sim_sweep_row_line_is_run(s, json->str, 0) && !sim_sweep_row_line_is_run(s, json->str, 1));
  /* another version's row is another sweep's */
  g_autofree char *other = g_strdup(json->str);
  memcpy(strstr(other, TOY_VERSION), "v9", 2);
  g_autoptr(SimSweepRow) none = sim_sweep_row_parse_json(s, other, &e);
  ck_assert(none == NULL && g_error_matches(e, SIM_SWEEP_ERROR, SIM_SWEEP_ERROR_OTHER_SWEEP));
  /* x = -1 fails: its row says why, its outputs empty */
  g_autoptr(SimSweepRow) bad = sim_sweep_run(s, 1, NULL);
  g_autoptr(GString) bcsv = g_string_new(NULL);
  sim_sweep_row_append_csv(s, bad, bcsv);
  g_autofree char *want_bad = g_strdup_printf(
      "1,0,toy-scenario,toy,%" G_GUINT64_FORMAT ",y=3,-1,,,,,,x below 0," TOY_VERSION "\n", sim_sweep_seed(s, 1, 0));
  ck_assert_str_eq(bcsv->str, want_bad);
  ck_assert(sim_sweep_row_failed(s, bad));
  ck_assert_int_eq(calls, 2);
}
END_TEST

/* A varied seed is the seed column (one column), as the callback says the scenario bound it. */
START_TEST(test_varied_seed)
{
  g_auto(TestDir) d = toy_dir();
  int calls = 0;
  g_autoptr(SimSweep) s = toy_ok(d, "scenario: toy.yaml\nvary:\n  - key: seed\n    values: [11, 12]\n", &calls);
  guint n;
  const SimSweepColumn *cols = sim_sweep_columns(s, &n);
  ck_assert_uint_eq(n, 6 + 5 + 2);
  ck_assert_str_eq(cols[6].name, "sum");
  g_autoptr(SimSweepRow) row = sim_sweep_run(s, 1, NULL);
  ck_assert_int_eq(row->cells[4].i, 12);
  ck_assert_double_eq_tol(row->cells[7].x, 1.012, 1e-12); /* noisy: x + 12 / 1000 */
}
END_TEST

/* The summary of 3 replications: per point the mean and the Student-t 95 % half-width of each
 * numeric output, recomputed from the rows; *_ci95 outputs are not summarised; a failed point's
 * runs are counted as failed and it has no mean. */
START_TEST(test_summary)
{
  g_auto(TestDir) d = toy_dir();
  int calls = 0;
  g_autoptr(SimSweep) s = toy_ok(d, "scenario: toy.yaml\nreplications: 3\nvary:\n  - key: x\n    values: [2, -1]\n", &calls);
  g_autoptr(GString) h = g_string_new(NULL);
  sim_sweep_summary_csv_header(s, h);
  ck_assert_str_eq(h->str, "point,x,runs,failed,sum_mean,sum_ci95,noisy_mean,noisy_ci95,ocasim_version\n");
  SimSweepRow *rows[3];
  double x[3], mean = 0, ss = 0;
  for (guint r = 0; r < 3; r++) {
    rows[r] = sim_sweep_run(s, r, NULL);
    x[r] = rows[r]->cells[8].x;
    mean += x[r] / 3;
  }
  for (guint r = 0; r < 3; r++) ss += (x[r] - mean) * (x[r] - mean);
  double hw = gsl_cdf_tdist_Pinv(0.975, 2) * sqrt(ss / 2) / sqrt(3.0);
  g_autoptr(GString) line = g_string_new(NULL);
  sim_sweep_summary_append(s, 0, rows, 3, FALSE, line);
  g_auto(GStrv) f = g_strsplit(line->str, ",", -1);
  ck_assert_str_eq(f[1], "2");
  ck_assert_str_eq(f[2], "3");
  ck_assert_str_eq(f[3], "0");
  ck_assert_double_eq(g_ascii_strtod(f[4], NULL), 4); /* sum: 2 + 2 every time */
  ck_assert_double_eq(g_ascii_strtod(f[5], NULL), 0); /* no spread */
  ck_assert_double_eq_tol(g_ascii_strtod(f[6], NULL), mean, 1e-12);
  ck_assert_double_eq_tol(g_ascii_strtod(f[7], NULL), hw, 1e-12);
  ck_assert(hw > 0);
  for (guint r = 0; r < 3; r++) sim_sweep_row_free(rows[r]);
  for (guint r = 0; r < 3; r++) rows[r] = sim_sweep_run(s, 3 + r, NULL);
  g_autoptr(GString) failed = g_string_new(NULL);
  sim_sweep_summary_append(s, 1, rows, 3, TRUE, failed);
  ck_assert_str_eq(failed->str, "{\"point\": 1, \"x\": -1, \"runs\": 0, \"failed\": 3, \"sum_mean\": null, \"sum_ci95\": null, "
                                "\"noisy_mean\": null, \"noisy_ci95\": null, \"ocasim_version\": \"" TOY_VERSION "\"}\n");
  for (guint r = 0; r < 3; r++) sim_sweep_row_free(rows[r]);
}
END_TEST

/* The inputs digest: the same for the same inputs; what changed named (the sweep seed, a mixed
 * value, an edited scenario file); not a digest at all. */
START_TEST(test_inputs)
{
  g_auto(TestDir) d = toy_dir();
  int calls = 0;
  const char *text = "scenario: toy.yaml\nvary:\n  - key: x\n    values: [1, 2]\n";
  g_autoptr(SimSweep) s = toy_ok(d, text, &calls);
  g_autofree char *stored = g_strdup(sim_sweep_inputs(s));
  ck_assert(g_str_has_prefix(stored, "# ocasim sweep:") && strstr(stored, "\nseed 1\n") &&
            strstr(stored, "\nversion " TOY_VERSION "\n"));
  g_autofree char *toy_line = g_strdup_printf("%s/toy.yaml\n", d);
  ck_assert_msg(strstr(stored, toy_line), "%s", stored);
  ck_assert(sim_sweep_inputs_changed(s, stored) == NULL);
  g_autofree char *junk = sim_sweep_inputs_changed(s, "hello\n");
  ck_assert_str_eq(junk, "it is not a digest written by ocasim sweep");
  /* another sweep seed */
  g_autoptr(GError) e = NULL;
  g_autoptr(SimSweep) s2 = toy_load(d, "s.yaml", text, 2, &calls, &e);
  g_autofree char *seed = sim_sweep_inputs_changed(s2, stored);
  ck_assert_str_eq(seed, "sweep seed 1, now 2");
  /* a mixed value: its own line, and the hash; mixing it again replaces it */
  sim_sweep_inputs_mix(s, "level", 0.9, "levels at");
  ck_assert(strstr(sim_sweep_inputs(s), "\nlevel 0.9\n"));
  g_autofree char *lv = sim_sweep_inputs_changed(s, stored);
  ck_assert_str_eq(lv, "levels at ?, now 0.9");
  g_autofree char *at9 = g_strdup(sim_sweep_inputs(s));
  sim_sweep_inputs_mix(s, "level", 0.8, "levels at");
  g_autofree char *moved = sim_sweep_inputs_changed(s, at9);
  ck_assert_str_eq(moved, "levels at 0.9, now 0.8");
  ck_assert(!strstr(sim_sweep_inputs(s), "level 0.9"));
  /* an edited scenario file */
  g_autofree char *f = g_build_filename(d, "toy.yaml", NULL);
  ck_assert(g_file_set_contents(f, "kind: toy\nname: toy-scenario\nseed: 5\nx: 1\ny: 3\n", -1, NULL));
  g_autoptr(SimSweep) s3 = toy_load(d, "s.yaml", text, -1, &calls, &e);
  g_autofree char *edit = sim_sweep_inputs_changed(s3, stored);
  g_autofree char *want = g_strdup_printf("%s/toy.yaml changed", d);
  ck_assert_str_eq(edit, want);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("sim_sweep");
  TCase *tc = tcase_create("sim_sweep");
  tcase_add_test(tc, test_points_and_zip);
  tcase_add_test(tc, test_seeds);
  tcase_add_test(tc, test_range_values);
  tcase_add_loop_test(tc, test_bad_sweep, 0, G_N_ELEMENTS(bad_toys));
  tcase_add_test(tc, test_rows);
  tcase_add_test(tc, test_varied_seed);
  tcase_add_test(tc, test_summary);
  tcase_add_test(tc, test_inputs);
  suite_add_tcase(s, tc);
  return test_run_suite(s);
}
