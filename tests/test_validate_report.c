/* tests/test_validate_report.c — report.json of `ocasim validate` is valid JSON even when
 * an estimate is not finite: NaN and infinity are written as null (sim/json.h), never as
 * json-glib's `nan.0`/`inf.0`; the file parses back with json-glib. */
#include <check.h>
#include "tests/support/check_run.h"
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "sim/json.h"
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

START_TEST(test_nan_report_is_valid_json)
{
  g_autoptr(ValReport) r = g_new0(ValReport, 1);
  r->probe = val_probe_run();
  r->rows = g_array_new(FALSE, TRUE, sizeof(ValPredRow));
  ValPredRow row;
  memset(&row, 0, sizeof row);
  row.app_gbps = NAN;          /* the appliance model could not predict the row */
  row.err_rel = NAN;           /* ... so neither its error */
  row.run.median.gbps = 12.5;  /* a finite neighbour stays a number */
  row.pred.bottleneck = "cpu"; /* closed form */
  g_array_append_val(r->rows, row);
  r->fit.chi2 = NAN;
  r->fit.chi2_dof = INFINITY;
  r->model_agree_max = -INFINITY;
  r->mb.sha256_cpb = NAN;
  r->mb.dram_threads = 1;
  r->mb.dram_read_GBps[0] = NAN; /* an array element */
  for (int i = 0; i < VAL_P_COUNT; i++) r->profile.se[i] = NAN;

  g_autofree char *dir = g_dir_make_tmp("ocasim-report-XXXXXX", NULL);
  ck_assert_ptr_nonnull(dir);
  g_autofree char *path = g_build_filename(dir, "report.json", NULL);
  g_autoptr(GError) err = NULL;
  ck_assert_msg(val_report_write_json(r, path, &err), "%s", err ? err->message : "");

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

int main(void)
{
  Suite *s = suite_create("validate_report");
  TCase *tc = tcase_create("json");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_nan_report_is_valid_json);
  tcase_add_test(tc, test_sim_json_helpers);
  suite_add_tcase(s, tc);
  return test_run_suite(s);
}
