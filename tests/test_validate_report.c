/* tests/test_validate_report.c — report.json of `ocasim validate` is valid JSON even when
 * an estimate is not finite: NaN and infinity are written as null (sim/json.h), never as
 * json-glib's `nan.0`/`inf.0`; the file parses back with json-glib.  The host profile the
 * report writer writes always loads back through the appliance loader (a profile the loader
 * refuses is written as host-profile.rejected.yaml, with an error, never as host-profile.yaml). */
#include <check.h>
#include "tests/support/check_run.h"
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/appliance/loader.h"
#include "sim/json.h"
#include "validate/profile.h"
#include "validate/report.h"

/* Object member path a.b.c of root (NULL if absent). */
static JsonNode *member(JsonNode *root, const char *path)
{
  g_auto(GStrv) keys = g_strsplit(path, ".", -1);
  JsonNode *n = root;
  for (int i = 0; keys[i] && n; i++) {
    if (!JSON_NODE_HOLDS_OBJECT(n)) return NULL;
    JsonObject *o = json_node_get_object(n);
    n = json_object_has_member(o, keys[i]) ? json_object_get_member(o, keys[i]) : NULL;
  }
  return n;
}

/* A report of the probe and the one row @row (transfer full). */
static ValReport *report_with_row(const ValPredRow *row)
{
  ValReport *r = g_new0(ValReport, 1);
  r->probe = val_probe_run();
  r->rows = g_array_new(FALSE, TRUE, sizeof(ValPredRow));
  g_array_append_vals(r->rows, row, 1);
  return r;
}

/* Writes @r's report.json into a new scratch directory (*dir, transfer full); returns its path. */
static char *write_report_json(const ValReport *r, char **dir)
{
  *dir = g_dir_make_tmp("ocasim-report-XXXXXX", NULL);
  ck_assert_ptr_nonnull(*dir);
  char *path = g_build_filename(*dir, "report.json", NULL);
  g_autoptr(GError) err = NULL;
  ck_assert_msg(val_report_write_json(r, path, &err), "%s", err ? err->message : "");
  return path;
}

START_TEST(test_nan_report_is_valid_json)
{
  ValPredRow row;
  memset(&row, 0, sizeof row);
  row.app_gbps = NAN;          /* the appliance model could not predict the row */
  row.err_rel = NAN;           /* ... so neither its error */
  row.run.median.gbps = 12.5;  /* a finite neighbour stays a number */
  row.pred.bottleneck = "cpu"; /* closed form */
  g_autoptr(ValReport) r = report_with_row(&row);
  r->fit.chi2 = NAN;
  r->fit.chi2_dof = INFINITY;
  r->model_agree_max = -INFINITY;
  r->mb.sha256_cpb = NAN;
  r->mb.dram_threads = 1;
  r->mb.dram_read_GBps[0] = NAN; /* an array element */
  for (int i = 0; i < VAL_P_COUNT; i++) r->profile.se[i] = NAN;

  g_autofree char *dir = NULL;
  g_autofree char *path = write_report_json(r, &dir);
  g_autoptr(GError) err = NULL;

  g_autofree char *text = NULL;
  ck_assert(g_file_get_contents(path, &text, NULL, NULL));
  ck_assert_msg(!g_regex_match_simple("[:,\\[]\\s*-?(nan|inf)", text, G_REGEX_CASELESS, 0), "non-finite number written:\n%s",
                text);
  g_autoptr(JsonParser) p = json_parser_new();
  ck_assert_msg(json_parser_load_from_file(p, path, &err), "report.json is not valid JSON: %s", err ? err->message : "");
  JsonNode *root = json_parser_get_root(p);
  ck_assert(JSON_NODE_HOLDS_NULL(member(root, "fit.chi2")));
  ck_assert(JSON_NODE_HOLDS_NULL(member(root, "fit.chi2_dof")));
  ck_assert(JSON_NODE_HOLDS_NULL(member(root, "summary.appliance_vs_closed_form_max_rel")));
  ck_assert(JSON_NODE_HOLDS_NULL(member(root, "microbenchmarks.sha256_cpb")));
  JsonArray *dr = json_node_get_array(member(root, "microbenchmarks.dram_read_GBps"));
  ck_assert_int_eq(json_array_get_length(dr), 1);
  ck_assert(JSON_NODE_HOLDS_NULL(json_array_get_element(dr, 0)));
  JsonArray *pred = json_node_get_array(member(root, "predictions"));
  ck_assert_int_eq(json_array_get_length(pred), 1);
  JsonObject *p0 = json_array_get_object_element(pred, 0);
  ck_assert(JSON_NODE_HOLDS_NULL(json_object_get_member(p0, "predicted_gbps")));
  ck_assert(JSON_NODE_HOLDS_NULL(json_object_get_member(p0, "error_rel")));
  ck_assert_double_eq(json_object_get_double_member(p0, "measured_gbps"), 12.5);
  ck_assert_str_eq(json_object_get_string_member(p0, "bottleneck"), "cpu");
  JsonArray *runs = json_node_get_array(member(root, "runs"));
  ck_assert_int_eq(json_array_get_length(runs), 1);
  g_unlink(path);
  g_rmdir(dir);
}
END_TEST

START_TEST(test_sim_json_helpers)
{
  g_autoptr(JsonBuilder) b = json_builder_new();
  json_builder_begin_object(b);
  sim_json_number(b, "nan", NAN);
  sim_json_number(b, "x", 0.25);
  sim_json_int(b, "i", -7);
  sim_json_bool(b, "t", TRUE);
  sim_json_string(b, "none", NULL);
  json_builder_set_member_name(b, "a");
  json_builder_begin_array(b);
  sim_json_element(b, INFINITY);
  sim_json_element(b, 3.0);
  json_builder_end_array(b);
  json_builder_end_object(b);
  g_autoptr(GString) out = g_string_new(NULL);
  sim_json_append(b, out);
  g_autoptr(JsonParser) p = json_parser_new();
  g_autoptr(GError) err = NULL;
  ck_assert_msg(json_parser_load_from_data(p, out->str, -1, &err), "%s\n%s", err ? err->message : "", out->str);
  JsonObject *o = json_node_get_object(json_parser_get_root(p));
  ck_assert(JSON_NODE_HOLDS_NULL(json_object_get_member(o, "nan")));
  ck_assert(JSON_NODE_HOLDS_NULL(json_object_get_member(o, "none")));
  ck_assert_double_eq(json_object_get_double_member(o, "x"), 0.25);
  ck_assert_int_eq(json_object_get_int_member(o, "i"), -7);
  ck_assert(json_object_get_boolean_member(o, "t"));
  JsonArray *a = json_object_get_array_member(o, "a");
  ck_assert(JSON_NODE_HOLDS_NULL(json_array_get_element(a, 0)));
  ck_assert_double_eq(json_array_get_double_element(a, 1), 3.0);
}
END_TEST

static gboolean exists_in(const char *dir, const char *name)
{
  g_autofree char *p = g_build_filename(dir, name, NULL);
  return g_file_test(p, G_FILE_TEST_EXISTS);
}

/* A profile as validate fits it: every parameter fitted, utilisation u. */
static void fitted_profile(ValHostProfile *p, double u)
{
  memset(p, 0, sizeof *p);
  p->clock_hz = 2.6e9;
  p->cores = 2;
  p->hash_cpb = 1.3;
  p->record_bytes = 16384;
  const double v[VAL_P_COUNT] = { [VAL_P_COPY] = 0.35,          [VAL_P_COPY_PC] = 0.20,       [VAL_P_MISS] = 0.40,
                                  [VAL_P_CACHE] = 786432,       [VAL_P_XCORE_S] = 0.25,       [VAL_P_XCORE_C] = 0.15,
                                  [VAL_P_STACK] = 0.30,         [VAL_P_RECORD] = 600,         [VAL_P_CRYPTO_AES128] = 0.40,
                                  [VAL_P_CRYPTO_AES256] = 0.47, [VAL_P_CRYPTO_CHACHA] = 0.72, [VAL_P_REQ_SERVER] = 20000,
                                  [VAL_P_REQ_CLIENT] = 15000,   [VAL_P_SOFTIRQ] = 0.02,       [VAL_P_UTIL] = u };
  for (int i = 0; i < VAL_P_COUNT; i++) {
    p->p[i] = v[i];
    p->fitted[i] = i != VAL_P_CACHE;
    p->se[i] = 0.05 * v[i];
  }
}

/* Every held-out run contended by other tenants (a busy host): the uncontended median and worst
 * error are null in report.json and the summary says there was none, instead of "the other 0:
 * median 0.0%, worst 0.0%"; with no held-out run at all the target is not "met" in the summary
 * either (report.json's target_met was already false). */
START_TEST(test_no_uncontended_heldout)
{
  ValPredRow row;
  memset(&row, 0, sizeof row);
  row.run.median.gbps = 5.0;
  row.app_gbps = 5.2;
  row.err_rel = 0.04;
  row.pred.bottleneck = "cpu";
  g_autoptr(ValReport) r = report_with_row(&row);
  r->n_heldout = 1;
  r->heldout_median_abs_err = r->heldout_max_abs_err = 0.04;
  r->n_heldout_quiet = 0; /* as the pipeline leaves them: 0 runs, 0 error */
  g_autofree char *dir = NULL;
  g_autofree char *path = write_report_json(r, &dir);
  g_autoptr(GError) err = NULL;
  g_autoptr(JsonParser) p = json_parser_new();
  ck_assert(json_parser_load_from_file(p, path, &err));
  JsonNode *root = json_parser_get_root(p);
  ck_assert_int_eq(json_node_get_int(member(root, "summary.heldout_uncontended_runs")), 0);
  ck_assert(JSON_NODE_HOLDS_NULL(member(root, "summary.heldout_uncontended_median_abs_error")));
  ck_assert(JSON_NODE_HOLDS_NULL(member(root, "summary.heldout_uncontended_max_abs_error")));
  ck_assert_double_eq(json_node_get_double(member(root, "summary.heldout_median_abs_error")), 0.04);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  val_report_print_summary(r, f);
  fclose(f);
  ck_assert_msg(strstr(text, "median 4.0%, worst 4.0% over 1 runs") && strstr(text, ": met\n"), "%s", text);
  ck_assert_msg(strstr(text, "all 1 held-out runs contended by other tenants") && !strstr(text, "the other 0"), "%s", text);
  free(text);
  r->n_heldout = 0; /* no held-out run: nothing met */
  r->heldout_median_abs_err = r->heldout_max_abs_err = 0;
  g_array_set_size(r->rows, 0);
  g_array_append_val(r->rows, row);
  g_array_index(r->rows, ValPredRow, 0).run.spec.train = TRUE;
  f = open_memstream(&text, &len);
  val_report_print_summary(r, f);
  fclose(f);
  ck_assert_msg(strstr(text, "over 0 runs") && strstr(text, ": NOT met\n"), "%s", text);
  free(text);
  g_unlink(path);
  g_rmdir(dir);
}
END_TEST

/* Round trip: what val_report_write_all writes as host-profile.yaml loads with
 * appliance_load_file and gives back the fitted values; a profile its loader refuses (u =
 * 1.009, what an unconstrained fit wrote on a VM) is not written as host-profile.yaml: the
 * writer fails with the loader's message, writes host-profile.rejected.yaml and removes the
 * profile files an earlier run left. */
START_TEST(test_written_profile_loads_back)
{
  g_autoptr(ValReport) r = g_new0(ValReport, 1);
  r->probe = val_probe_run();
  r->rows = g_array_new(FALSE, TRUE, sizeof(ValPredRow));
  ValPredRow row;
  memset(&row, 0, sizeof row);
  row.pred.bottleneck = "cpu";
  g_array_append_val(r->rows, row);
  g_autofree char *dir = g_dir_make_tmp("ocasim-report-XXXXXX", NULL);
  ck_assert_ptr_nonnull(dir);
  r->out_dir = g_strdup(dir);
  g_autoptr(GError) err = NULL;

  /* refused: u above 1; an earlier run's profile is in the directory */
  fitted_profile(&r->profile, 1.009);
  g_autofree char *stale = g_build_filename(dir, "host-profile.yaml", NULL);
  ck_assert(g_file_set_contents(stale, "# an earlier run's\n", -1, NULL));
  ck_assert(!val_report_write_all(r, &err));
  ck_assert_msg(err && strstr(err->message, "loopback.utilisation") && strstr(err->message, "host-profile.rejected.yaml"), "%s",
                err ? err->message : "(no error)");
  ck_assert(!exists_in(dir, "host-profile.yaml") && !exists_in(dir, "host-costs.yaml") && !exists_in(dir, "host-scenario.yaml"));
  ck_assert(exists_in(dir, "host-profile.rejected.yaml") && exists_in(dir, "report.json") && exists_in(dir, "report.md"));
  g_clear_error(&err);

  /* accepted: u in range; every loopback figure reads back as fitted (6 significant digits) */
  const double us[] = { 0.93, 1.0, 1e-3 };
  for (size_t k = 0; k < G_N_ELEMENTS(us); k++) {
    fitted_profile(&r->profile, us[k]);
    ck_assert_msg(val_report_write_all(r, &err), "u %g: %s", us[k], err ? err->message : "");
    ck_assert(!exists_in(dir, "host-profile.rejected.yaml"));
    Appliance a;
    AppScenarioInfo info;
    ck_assert_msg(appliance_load_file(stale, NULL, &a, &info, &err), "u %g: %s", us[k], err ? err->message : "");
    const ValHostProfile *p = &r->profile;
    const struct {
      double got, want;
    } back[] = { { a.lo.utilisation, p->p[VAL_P_UTIL] },
                 { a.lo.copy_cpb, p->p[VAL_P_COPY] },
                 { a.lo.copy_pagecache_cpb, p->p[VAL_P_COPY_PC] },
                 { a.lo.miss_cpb, p->p[VAL_P_MISS] },
                 { a.lo.cache_bytes, p->p[VAL_P_CACHE] },
                 { a.lo.xcore_server_cpb, p->p[VAL_P_XCORE_S] },
                 { a.lo.xcore_client_cpb, p->p[VAL_P_XCORE_C] },
                 { a.lo.stack_cpb, p->p[VAL_P_STACK] },
                 { a.lo.record_cycles, p->p[VAL_P_RECORD] },
                 { a.lo.crypto_cpb[LB_AES_128_GCM], p->p[VAL_P_CRYPTO_AES128] },
                 { a.lo.crypto_cpb[LB_AES_256_GCM], p->p[VAL_P_CRYPTO_AES256] },
                 { a.lo.crypto_cpb[LB_CHACHA20_POLY1305], p->p[VAL_P_CRYPTO_CHACHA] },
                 { a.lo.request_server_cycles, p->p[VAL_P_REQ_SERVER] },
                 { a.lo.request_client_cycles, p->p[VAL_P_REQ_CLIENT] },
                 { a.lo.softirq_cpb, p->p[VAL_P_SOFTIRQ] },
                 { a.lo.hash_cpb, p->hash_cpb } };
    for (size_t i = 0; i < G_N_ELEMENTS(back); i++)
      ck_assert_msg(fabs(back[i].got - back[i].want) <= 1e-5 * fabs(back[i].want), "u %g, row %zu: read back %.9g, wrote %.9g",
                    us[k], i, back[i].got, back[i].want);
    app_scenario_info_clear(&info);
    /* the scenario next to it loads too */
    g_autofree char *scen = g_build_filename(dir, "host-scenario.yaml", NULL);
    ck_assert_msg(appliance_load_file(scen, NULL, &a, &info, &err), "%s", err ? err->message : "");
    app_scenario_info_clear(&info);
  }
  static const char *const files[] = { "host-profile.yaml", "host-costs.yaml", "host-scenario.yaml", "report.json", "report.md" };
  for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
    g_autofree char *f = g_build_filename(dir, files[i], NULL);
    g_unlink(f);
  }
  g_rmdir(dir);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("validate_report");
  TCase *tc = tcase_create("json");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_nan_report_is_valid_json);
  tcase_add_test(tc, test_no_uncontended_heldout);
  tcase_add_test(tc, test_sim_json_helpers);
  tcase_add_test(tc, test_written_profile_loads_back);
  suite_add_tcase(s, tc);
  return test_run_suite(s);
}
