/* tests/test_cli_tools.c — the coefficients data file and the model's tool subcommands.
 *
 * models/appliance/coeffs.def is the fit's output: writing the default coefficients gives back the
 * committed file byte for byte, and any finite value is written as text that reads back as
 * the same double. `ocasim reference`, `ocasim fit` and `ocasim schema` print what the
 * library computes, regenerate documentation blocks in place, and refuse bad options with a
 * one-line message and exit status 2 before doing any work. docs/outputs.md names every resource
 * kind and unit a report prints. */
#include <check.h>
#include <stdio.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "models/reference/refset.h"
#include "tests/support/check_run.h"
#include "tests/support/ocasim_run.h"

#define COEFFS_DEF "models/appliance/coeffs.def"

/* One COEF(name, value, "note") line of a coefficients data file. */
typedef struct {
  char *name;
  double value;
  char *rest; /* the text after the value: ", \"note\")" */
} DefLine;

static void def_line_clear(gpointer p)
{
  DefLine *d = p;
  g_free(d->name);
  g_free(d->rest);
}

/* Parses the COEF lines of @text (the header comment is skipped) into @lines (DefLine);
 * fails the test on a line that is neither. Returns the header (transfer full). */
static char *parse_def(const char *text, GArray *lines)
{
  g_auto(GStrv) ls = g_strsplit(text, "\n", -1);
  GString *header = g_string_new(NULL);
  for (int i = 0; ls[i]; i++) {
    const char *l = ls[i];
    if (!*l && !ls[i + 1]) break;               /* after the last newline */
    if (g_str_has_prefix(l, "COEF_")) continue; /* the spread (COEF_COV, COEF_TAU, COEF_SIGMA): test_coeffs_def_spread */
    if (!g_str_has_prefix(l, "COEF(")) {
      ck_assert_msg(lines->len == 0, "line %d after the COEF lines: %s", i + 1, l);
      g_string_append_printf(header, "%s\n", l);
      continue;
    }
    const char *comma = strchr(l, ',');
    ck_assert_msg(comma && comma[1] == ' ', "line %d: %s", i + 1, l);
    DefLine d = { .name = g_strndup(l + 5, (gsize)(comma - l - 5)) };
    char *end = NULL;
    d.value = g_ascii_strtod(comma + 2, &end);
    ck_assert_msg(end != comma + 2 && *end == ',', "line %d: no value: %s", i + 1, l);
    d.rest = g_strdup(end);
    g_array_append_val(lines, d);
  }
  return g_string_free(header, FALSE);
}

static GArray *def_lines_new(void)
{
  GArray *a = g_array_new(FALSE, TRUE, sizeof(DefLine));
  g_array_set_clear_func(a, def_line_clear);
  return a;
}

START_TEST(test_coeffs_def_round_trip)
{
  Coeffs c;
  coeffs_defaults(&c);
  g_autoptr(GString) out = g_string_new(NULL);
  GError *e = NULL;
  CoeffsSpread sp;
  coeffs_spread_defaults(&sp);
  ck_assert_msg(coeffs_write_def(&c, &sp, out, &e), "%s", e ? e->message : "");
  g_autofree char *committed = NULL;
  ck_assert(g_file_get_contents(COEFFS_DEF, &committed, NULL, NULL));
  ck_assert_msg(strcmp(out->str, committed) == 0, "the writer does not give back " COEFFS_DEF ":\n%s", out->str);
  /* one line per fitted coefficient, in the fit's order, each value the default's bits */
  g_autoptr(GArray) lines = def_lines_new();
  g_autofree char *header = parse_def(committed, lines);
  ck_assert_int_eq(lines->len, COEFFS_N_FITTED);
  for (int i = 0; i < COEFFS_N_FITTED; i++) {
    const DefLine *d = &g_array_index(lines, DefLine, i);
    ck_assert_str_eq(d->name, coeffs_fitted_name(i));
    ck_assert(memcmp(&d->value, coeffs_fitted_ptr(&c, i), sizeof(double)) == 0);
    g_autofree char *rest = g_strdup_printf(", \"%s\")", coeffs_fitted_note(i));
    ck_assert_str_eq(d->rest, rest);
  }
  ck_assert(g_str_has_prefix(header, "/* models/appliance/coeffs.def"));
}
END_TEST

/* The spread lines of models/appliance/coeffs.def read back bit for bit: every COEF_COV(a, b, v) is
 * coeffs_spread_defaults' cov_x of a and b (both orders), the matrix symmetric with a positive
 * diagonal, and COEF_TAU / COEF_SIGMA its tau and sigma. */
START_TEST(test_coeffs_def_spread)
{
  CoeffsSpread sp;
  coeffs_spread_defaults(&sp);
  g_autofree char *committed = NULL;
  ck_assert(g_file_get_contents(COEFFS_DEF, &committed, NULL, NULL));
  g_auto(GStrv) ls = g_strsplit(committed, "\n", -1);
  int n_cov = 0, n_tau = 0, n_sigma = 0;
  for (int i = 0; ls[i]; i++) {
    char a[64], b[64];
    double v;
    if (sscanf(ls[i], "COEF_COV(%63[^,], %63[^,], %lf)", a, b, &v) == 3) {
      int ia = -1, ib = -1;
      for (int k = 0; k < COEFFS_N_FITTED; k++) {
        if (!strcmp(coeffs_fitted_name(k), a)) ia = k;
        if (!strcmp(coeffs_fitted_name(k), b)) ib = k;
      }
      ck_assert_msg(ia >= 0 && ib >= 0, "%s", ls[i]);
      ck_assert(memcmp(&v, &sp.cov_x[ia][ib], sizeof v) == 0 && memcmp(&v, &sp.cov_x[ib][ia], sizeof v) == 0);
      n_cov++;
    } else if (sscanf(ls[i], "COEF_TAU(cpu_costs, %lf)", &v) == 1) {
      ck_assert(memcmp(&v, &sp.tau_cpu_costs, sizeof v) == 0);
      n_tau++;
    } else if (sscanf(ls[i], "COEF_SIGMA(throughput, %lf)", &v) == 1) {
      ck_assert(memcmp(&v, &sp.sigma_gbps, sizeof v) == 0);
      n_sigma++;
    }
  }
  ck_assert_int_eq(n_cov, COEFFS_N_FITTED * (COEFFS_N_FITTED + 1) / 2);
  ck_assert_int_eq(n_tau, 1);
  ck_assert_int_eq(n_sigma, 1);
  for (int k = 0; k < COEFFS_N_FITTED; k++) ck_assert(sp.cov_x[k][k] > 0);
  ck_assert(sp.sigma_gbps > 0 && sp.sigma_gbps < 0.2);
}
END_TEST

START_TEST(test_coeffs_def_exact)
{
  /* awkward doubles come back bit for bit */
  const double v[] = { 0.1 + 0.2, 2.0 / 3.0,   1e-300, 4.9406564584124654e-324, 1.7976931348623157e308, 2506,
                       1e22,      123456789.0, -0.0 };
  for (size_t k = 0; k < G_N_ELEMENTS(v); k++) {
    Coeffs c;
    coeffs_defaults(&c);
    for (int i = 0; i < COEFFS_N_FITTED; i++) *coeffs_fitted_ptr(&c, i) = v[(k + (size_t)i) % G_N_ELEMENTS(v)];
    g_autoptr(GString) out = g_string_new(NULL);
    ck_assert(coeffs_write_def(&c, NULL, out, NULL));
    g_autoptr(GArray) lines = def_lines_new();
    g_autofree char *header = parse_def(out->str, lines);
    ck_assert_int_eq(lines->len, COEFFS_N_FITTED);
    for (int i = 0; i < COEFFS_N_FITTED; i++) {
      double got = g_array_index(lines, DefLine, i).value;
      ck_assert_msg(memcmp(&got, coeffs_fitted_ptr(&c, i), sizeof got) == 0, "%.17g written, %.17g read",
                    *coeffs_fitted_ptr(&c, i), got);
    }
    /* and the shortest such text: 0.1 + 0.2 needs 17 digits, 2506 four, without an exponent */
    if (k == 0) ck_assert_ptr_nonnull(strstr(out->str, "COEF(dram_eff, 0.30000000000000004, "));
    if (k == 5) ck_assert_ptr_nonnull(strstr(out->str, "COEF(dram_eff, 2506, "));
    if (k == 7) ck_assert_ptr_nonnull(strstr(out->str, "COEF(dram_eff, 123456789, "));
    if (k == 6) ck_assert_ptr_nonnull(strstr(out->str, "COEF(dram_eff, 1e+22, "));
  }
  Coeffs c;
  coeffs_defaults(&c);
  c.k_dram = NAN;
  GError *e = NULL;
  g_autoptr(GString) out = g_string_new(NULL);
  ck_assert(!coeffs_write_def(&c, NULL, out, &e));
  ck_assert_msg(e && strstr(e->message, "k_dram"), "%s", e ? e->message : "");
  g_error_free(e);
}
END_TEST

START_TEST(test_schema_prints_the_key_tables)
{
  g_autoptr(GString) want = g_string_new(NULL);
  appliance_conf_markdown(want);
  ck_assert(want->len > 1000);
  const char *a1[] = { "schema", NULL }, *a2[] = { "schema", "--format", "markdown", NULL };
  for (int k = 0; k < 2; k++) {
    g_autofree char *out = NULL, *err = NULL;
    ck_assert_int_eq(test_run_ocasim(k ? a2 : a1, &out, &err), 0);
    ck_assert_str_eq(out, want->str);
    ck_assert_str_eq(err, "");
  }
}
END_TEST

START_TEST(test_schema_update)
{
  /* stale schema and reference blocks are regenerated, the text around them kept */
  g_autofree char *dir = g_dir_make_tmp("ocasim-schema-XXXXXX", NULL);
  ck_assert(dir);
  g_autofree char *path = g_build_filename(dir, "doc.md", NULL);
  const char *stale = "# Doc\n<!-- schema:begin -->\nstale keys\n<!-- schema:end -->\nmiddle\n"
                      "<!-- reference:begin -->\nstale table\n<!-- reference:end -->\nend\n";
  ck_assert(g_file_set_contents(path, stale, -1, NULL));
  const char *args[] = { "schema", "--update", path, NULL };
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_msg(test_run_ocasim(args, &out, &err) == 0, "%s", err);
  ck_assert_str_eq(out, "");
  g_autoptr(GString) keys = g_string_new(NULL);
  appliance_conf_markdown(keys);
  g_autoptr(AppRefSet) s = refset_load("scenarios/reference", NULL);
  ck_assert(s);
  Coeffs c;
  coeffs_defaults(&c);
  g_autoptr(GString) table = g_string_new(NULL);
  refset_table(s, &c, table, NULL);
  g_autofree char *want = g_strdup_printf("# Doc\n<!-- schema:begin -->\n%s<!-- schema:end -->\nmiddle\n"
                                          "<!-- reference:begin -->\n%s<!-- reference:end -->\nend\n",
                                          keys->str, table->str);
  g_autofree char *have = NULL;
  ck_assert(g_file_get_contents(path, &have, NULL, NULL));
  ck_assert_str_eq(have, want);
  /* again: nothing to change */
  g_autofree char *out2 = NULL, *err2 = NULL;
  ck_assert_int_eq(test_run_ocasim(args, &out2, &err2), 0);
  g_autofree char *again = NULL;
  ck_assert(g_file_get_contents(path, &again, NULL, NULL));
  ck_assert_str_eq(again, want);
  /* a block whose end marker is lost, or comes first, is bad input and the file is left as it
   * was (it was skipped while the schema block was regenerated, exit 0) */
  const char *broken[] = { "# Doc\n<!-- schema:begin -->\nstale keys\n<!-- schema:end -->\n<!-- reference:begin -->\nstale\n",
                           "# Doc\n<!-- schema:begin -->\nstale keys\n<!-- schema:end -->\n<!-- lopo:end -->\nstale\n"
                           "<!-- lopo:begin -->\n" };
  const char *why[] = { "'<!-- reference:begin -->' and '<!-- reference:end -->' do not enclose a block (no end)",
                        "'<!-- lopo:begin -->' and '<!-- lopo:end -->' do not enclose a block (the end comes first)" };
  for (size_t k = 0; k < G_N_ELEMENTS(broken); k++) {
    ck_assert(g_file_set_contents(path, broken[k], -1, NULL));
    g_autofree char *o = NULL, *e = NULL, *kept = NULL;
    ck_assert_int_eq(test_run_ocasim(args, &o, &e), 2);
    ck_assert_msg(strstr(e, why[k]), "%s", e);
    ck_assert(g_file_get_contents(path, &kept, NULL, NULL));
    ck_assert_str_eq(kept, broken[k]);
  }
  g_unlink(path);
  g_rmdir(dir);
}
END_TEST

START_TEST(test_reference_report)
{
  g_autoptr(AppRefSet) s = refset_load("scenarios/reference", NULL);
  ck_assert(s);
  Coeffs c;
  coeffs_defaults(&c);
  g_autoptr(GString) table = g_string_new(NULL);
  int fails = refset_table(s, &c, table, NULL);
  const char *args[] = { "reference", NULL }, *strict[] = { "reference", "--strict", "scenarios/reference", NULL };
  g_autofree char *out = NULL, *err = NULL, *out2 = NULL, *err2 = NULL;
  ck_assert_int_eq(test_run_ocasim(args, &out, &err), 0);
  g_autofree char *head =
      g_strdup_printf("Bound mode vs published results (%d results, tolerance 10 %% throughput, 10 points CPU):\n\n%s",
                      refset_size(s), table->str);
  ck_assert_msg(g_str_has_prefix(out, head), "%s", out);
  g_autofree char *tally = g_strdup_printf("\n%d of %d within 10 %% / 10 points", refset_size(s) - fails, refset_size(s));
  ck_assert_msg(strstr(out, tally), "%s", out);
  ck_assert_ptr_null(strstr(out, "Discrete-event model"));
  /* every row with a documented deviation (reference.known_deviation) says so, whatever it misses
   * (throughput, CPU or the bottleneck), and the tally counts them all */
  int documented = 0;
  for (int i = 0; i < refset_size(s); i++) {
    AppRefRow row;
    ck_assert(refset_eval(s, i, NULL, &row, NULL));
    if (!row.ok && row.known_deviation) {
      documented++;
      g_autofree char *line = g_strdup_printf("| %-28s |", row.id);
      const char *at = strstr(table->str, line), *eol = at ? strchr(at, '\n') : NULL;
      ck_assert_msg(at && eol, "%s", row.id);
      g_autofree char *text = g_strndup(at, eol - at);
      ck_assert_msg(g_str_has_suffix(text, "| FAIL (documented) |"), "%.200s", text);
    }
    refset_row_clear(&row);
  }
  ck_assert_int_ge(documented, 2); /* milan2022_default_bios, skx2019_net_silo */
  g_autofree char *doc_tally = g_strdup_printf("%d outside (%d of them documented deviations", fails, documented);
  const char *tail = strstr(out, " outside (");
  ck_assert_msg(strstr(out, doc_tally), "%.200s", tail ? tail : "(no tally)");
  /* --des: the summary says what it counts (within 10 % of the published figure, within a
   * documented deviation's wider bound, outside any), and the +70 % milan2022_default_bios row is
   * a documented miss, not a silent pass */
  const char *des[] = { "reference", "--des", NULL };
  g_autofree char *out3 = NULL, *err3 = NULL;
  ck_assert_int_eq(test_run_ocasim(des, &out3, &err3), 0);
  const char *dmilan = strstr(out3, "\n| milan2022_default_bios       |   736.0 |");
  ck_assert_msg(dmilan && strstr(dmilan, "| FAIL (documented)\n"), "%.300s", dmilan ? dmilan : out3);
  int within = 0, wider = 0, outside = 0;
  const char *sum = strstr(out3, " DES results within 10 % of the published throughput, ");
  ck_assert_msg(sum, "%.200s", out3 + strlen(out3) - MIN(strlen(out3), 200));
  while (sum > out3 && sum[-1] != '\n') sum--;
  ck_assert_int_eq(
      sscanf(sum,
             "%d of %*d DES results within 10 %% of the published throughput, %d more within the wider bound of their "
             "documented deviation, %d outside any bound.",
             &within, &wider, &outside),
      3);
  ck_assert_int_ge(wider, 1);
  ck_assert_int_eq(within + wider + outside, refset_size(s));
  ck_assert_int_eq(test_run_ocasim(strict, &out2, &err2), fails ? 1 : 0);
  ck_assert_str_eq(out2, out);
}
END_TEST

START_TEST(test_empty_reference_set)
{
  /* a directory next to the platforms (the STREAM references load from DIR/../platforms) but
   * without a scenario that has a reference: block is bad input, for reference and for fit */
  g_autofree char *dir = g_dir_make_tmp("ocasim-ref-XXXXXX", NULL);
  ck_assert(dir);
  g_autofree char *empty = g_build_filename(dir, "empty", NULL), *plat = g_build_filename(dir, "platforms", NULL);
  g_autofree char *cwd = g_get_current_dir();
  g_autofree char *target = g_build_filename(cwd, "scenarios", "platforms", NULL);
  ck_assert_int_eq(g_mkdir(empty, 0755), 0);
  ck_assert_int_eq(symlink(target, plat), 0);
  g_autofree char *want = g_strdup_printf("%s: no scenario with a reference: block\n", empty);
  const char *ref[] = { "reference", empty, NULL }, *fit[] = { "fit", empty, NULL };
  for (int k = 0; k < 2; k++) {
    g_autofree char *out = NULL, *err = NULL;
    ck_assert_int_eq(test_run_ocasim(k ? fit : ref, &out, &err), 2);
    ck_assert_msg(g_str_has_suffix(err, want), "%s", err);
    ck_assert_str_eq(out, "");
  }
  g_unlink(plat);
  g_rmdir(empty);
  g_rmdir(dir);
}
END_TEST

START_TEST(test_fit_writes_the_data_file)
{
  /* the fit (without the leave-one-out and leave-one-platform-out refits) writes a data file of
   * the committed form whose values are the committed ones within the 1 % test_defaults_are_the_fit
   * allows, and the JSON report: every coefficient with its standard error and the rows that
   * identify it, every result with its published and in-fit figures (the refits not run: null) */
  g_autofree char *dir = g_dir_make_tmp("ocasim-fit-XXXXXX", NULL);
  ck_assert(dir);
  g_autofree char *path = g_build_filename(dir, "coeffs.def", NULL), *jpath = g_build_filename(dir, "fit.json", NULL);
  const char *args[] = { "fit", "--no-loo", "--no-lopo", "--write", path, "--json", jpath, NULL };
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_msg(test_run_ocasim(args, &out, &err) == 0, "%s", err);
  ck_assert_msg(g_str_has_prefix(out, "Shared coefficients fitted over "), "%s", out);
  ck_assert_msg(strstr(out, path) && strstr(out, "\nReference table with the fitted coefficients"), "%s", out);
  ck_assert_msg(strstr(out, "\nIdentifiability of the fitted coefficients") && strstr(out, "\nCorrelation matrix"), "%s", out);
  ck_assert_msg(strstr(out, "\n| in-fit                 |      16 |"), "%s", out);
  ck_assert_ptr_null(strstr(out, "Leave-one-out"));
  ck_assert_ptr_null(strstr(out, "Leave-one-platform-out"));
  g_autoptr(JsonParser) jp = json_parser_new();
  ck_assert(json_parser_load_from_file(jp, jpath, NULL));
  JsonObject *root = json_node_get_object(json_parser_get_root(jp));
  JsonArray *coefs = json_object_get_array_member(root, "coefficients"), *rows = json_object_get_array_member(root, "rows");
  ck_assert_int_eq(json_array_get_length(coefs), COEFFS_N_FITTED);
  for (guint i = 0; i < COEFFS_N_FITTED; i++) {
    JsonObject *o = json_array_get_object_element(coefs, i);
    ck_assert_str_eq(json_object_get_string_member(o, "name"), coeffs_fitted_name((int)i));
    ck_assert(json_object_get_double_member(o, "stderr") > 0);
    ck_assert(json_object_get_double_member(o, "value") > 0);
    ck_assert(JSON_NODE_HOLDS_ARRAY(json_object_get_member(o, "identified_by")));
  }
  /* the fixed ones, each with its value and source: mapped_page_cycles from FreeBSD r349529 */
  JsonArray *fixed = json_object_get_array_member(root, "fixed_coefficients");
  ck_assert_int_eq(json_array_get_length(fixed), coeffs_fixed_count());
  JsonObject *mp = json_array_get_object_element(fixed, 1);
  ck_assert_str_eq(json_object_get_string_member(mp, "name"), "mapped_page_cycles");
  ck_assert_double_eq(json_object_get_double_member(mp, "value"), 1000);
  ck_assert(strstr(json_object_get_string_member(mp, "source"), "r349529"));
  g_autoptr(AppRefSet) s = refset_load("scenarios/reference", NULL);
  ck_assert_int_eq(json_array_get_length(rows), refset_size(s));
  const char *keys[] = { "id",
                         "platform",
                         "published_gbps",
                         "in_fit_gbps",
                         "loo_gbps",
                         "lopo_gbps",
                         "published_bottleneck",
                         "in_fit_bottleneck",
                         "lopo_bottleneck",
                         "published_cpu_pct",
                         "in_fit_cpu_pct",
                         "loo_cpu_pct",
                         "lopo_cpu_pct" };
  for (guint i = 0; i < json_array_get_length(rows); i++) {
    JsonObject *o = json_array_get_object_element(rows, i);
    for (guint k = 0; k < G_N_ELEMENTS(keys); k++) ck_assert_msg(json_object_has_member(o, keys[k]), "%s", keys[k]);
    ck_assert(json_object_get_null_member(o, "lopo_gbps"));
    ck_assert(json_object_get_double_member(o, "in_fit_gbps") > 0);
  }
  g_unlink(jpath);
  g_autofree char *written = NULL, *committed = NULL;
  ck_assert(g_file_get_contents(path, &written, NULL, NULL));
  ck_assert(g_file_get_contents(COEFFS_DEF, &committed, NULL, NULL));
  g_autoptr(GArray) w = def_lines_new(), k = def_lines_new();
  g_autofree char *hw = parse_def(written, w), *hk = parse_def(committed, k);
  ck_assert_str_eq(hw, hk);
  ck_assert_int_eq(w->len, COEFFS_N_FITTED);
  ck_assert_int_eq(k->len, COEFFS_N_FITTED);
  for (int i = 0; i < COEFFS_N_FITTED; i++) {
    const DefLine *a = &g_array_index(w, DefLine, i), *b = &g_array_index(k, DefLine, i);
    ck_assert_str_eq(a->name, b->name);
    ck_assert_str_eq(a->rest, b->rest);
    ck_assert_msg(fabs(a->value / b->value - 1) < 0.01, "%s: fit %.17g, committed %.17g", a->name, a->value, b->value);
    /* rounded to 8 significant digits (FIT_DIGITS in cli/cmd_fit.c) */
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    ck_assert(g_ascii_strtod(g_ascii_formatd(buf, sizeof buf, "%.8g", a->value), NULL) == a->value);
  }
  g_unlink(path);
  g_rmdir(dir);
}
END_TEST

/* docs/outputs.md names every resource kind and unit a report prints: those of `ocasim bound` on
 * the Rome box with NIC kTLS (cpu_lines in "lines", the NICs' read tags in "tags" among them). */
static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* fit --json carries the coverage table's figures: for the reference set, each run prediction's
 * results, inside, inside_share, median and widest half-width print as the text table's row, and
 * equal those recomputed from rows[] (the distinct results: same_as null; published inside the
 * PREFIX_interval_gbps; half-width 50 (hi - lo) / PREFIX_gbps %). The LOPO row, without the LOO refits. */
START_TEST(test_fit_json_coverage_is_the_tables)
{
  g_autofree char *dir = g_dir_make_tmp("ocasim-fitcov-XXXXXX", NULL);
  ck_assert(dir);
  g_autofree char *jpath = g_build_filename(dir, "fit.json", NULL);
  const char *args[] = { "fit", "--no-loo", "--json", jpath, NULL };
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_msg(test_run_ocasim(args, &out, &err) == 0, "%s", err);
  g_autoptr(JsonParser) jp = json_parser_new();
  ck_assert(json_parser_load_from_file(jp, jpath, NULL));
  g_unlink(jpath);
  g_rmdir(dir);
  JsonObject *root = json_node_get_object(json_parser_get_root(jp));
  ck_assert_msg(json_object_has_member(root, "coverage"), "fit --json has no coverage member");
  JsonObject *cov = json_object_get_object_member(root, "coverage");
  ck_assert(json_object_get_null_member(cov, "loo")); /* --no-loo: not run */
  JsonArray *rows = json_object_get_array_member(root, "rows");
  const char *kinds[] = { "in_fit", "lopo" }, *names[] = { "in-fit", "leave-one-platform-out" };
  for (int k = 0; k < 2; k++) {
    JsonObject *c = json_object_get_object_member(cov, kinds[k]);
    ck_assert_msg(c, "coverage.%s", kinds[k]);
    int n = (int)json_object_get_int_member(c, "results"), in = (int)json_object_get_int_member(c, "inside");
    double share = json_object_get_double_member(c, "inside_share");
    double med = json_object_get_double_member(c, "median_half_width_pct"),
           wide = json_object_get_double_member(c, "widest_half_width_pct");
    ck_assert_double_eq(json_object_get_double_member(c, "level"), 0.8);
    ck_assert_int_eq(n, 16); /* the reference set's distinct results */
    ck_assert_double_eq_tol(share, (double)in / n, 1e-15);
    /* the text table's row, as fitreport_coverage prints it */
    g_autofree char *in_text = g_strdup_printf("%d (%.0f %%)", in, 100 * share);
    g_autofree char *row = g_strdup_printf("\n| %-22s | %7d | %12s | %17.1f%% | %17.1f%% |\n", names[k], n, in_text, med, wide);
    ck_assert_msg(strstr(out, row), "%s not in the coverage table:\n%s", row, strstr(out, "\nCoverage of the 80 %"));
    /* recomputed from rows[] */
    g_autofree char *g = g_strconcat(kinds[k], "_gbps", NULL), *iv = g_strconcat(kinds[k], "_interval_gbps", NULL);
    g_autofree double *hw = g_new(double, json_array_get_length(rows));
    int rn = 0, rin = 0;
    double rwide = 0;
    for (guint i = 0; i < json_array_get_length(rows); i++) {
      JsonObject *o = json_array_get_object_element(rows, i);
      if (!json_object_get_null_member(o, "same_as")) continue;
      JsonArray *ends = json_object_get_array_member(o, iv);
      double lo = json_array_get_double_element(ends, 0), hi = json_array_get_double_element(ends, 1);
      double pub = json_object_get_double_member(o, "published_gbps");
      rin += pub >= lo && pub <= hi;
      hw[rn] = 50 * (hi - lo) / json_object_get_double_member(o, g);
      rwide = MAX(rwide, hw[rn]);
      rn++;
    }
    qsort(hw, (size_t)rn, sizeof *hw, cmp_double);
    ck_assert_int_eq(rn, n);
    ck_assert_int_eq(rin, in);
    ck_assert_double_eq_tol(med, rn % 2 ? hw[rn / 2] : 0.5 * (hw[rn / 2 - 1] + hw[rn / 2]), 1e-9 * med);
    ck_assert_double_eq_tol(wide, rwide, 1e-9 * wide);
  }
}
END_TEST

START_TEST(test_outputs_doc_names_kinds_and_units)
{
  const char *args[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", "-f", "json", NULL };
  g_autofree char *out = NULL, *err = NULL, *doc = NULL;
  ck_assert_int_eq(test_run_ocasim(args, &out, &err), 0);
  ck_assert(g_file_get_contents("docs/outputs.md", &doc, NULL, NULL));
  g_autoptr(JsonParser) p = json_parser_new();
  ck_assert(json_parser_load_from_data(p, out, -1, NULL));
  JsonArray *res = json_object_get_array_member(json_node_get_object(json_parser_get_root(p)), "resources");
  ck_assert_uint_gt(json_array_get_length(res), 10);
  gboolean lines = FALSE, tags = FALSE;
  for (guint i = 0; i < json_array_get_length(res); i++) {
    JsonObject *r = json_array_get_object_element(res, i);
    const char *kind = json_object_get_string_member(r, "kind"), *unit = json_object_get_string_member(r, "unit");
    g_autofree char *k = g_strdup_printf("`%s`", kind), *u = g_strdup_printf("`%s`", unit);
    ck_assert_msg(strstr(doc, k), "docs/outputs.md does not name the resource kind %s", k);
    ck_assert_msg(strstr(doc, u), "docs/outputs.md does not name the unit %s (of %s)", u,
                  json_object_get_string_member(r, "name"));
    lines |= !strcmp(unit, "lines");
    tags |= !strcmp(unit, "tags");
  }
  ck_assert(lines && tags);
}
END_TEST

/* The resource table of a report keeps its columns whatever the kinds' names: on the Rome box with
 * NIC kTLS (cpu_lines, 9 characters, the longest kind) every row's kind ends before the util
 * column and its util's '%' sits under the header's "util", in bound, capacity and run tables. */
START_TEST(test_report_table_columns_align)
{
  const char *cmds[] = { "bound", "capacity", "run" };
  for (size_t c = 0; c < G_N_ELEMENTS(cmds); c++) {
    const char *args[] = { cmds[c], "scenarios/rome-400g-nic-ktls.yaml", "--duration", "0.3 s", "--warmup", "0.1 s", NULL };
    if (c == 0) args[2] = NULL; /* bound has no duration */
    g_autofree char *out = NULL, *err = NULL;
    ck_assert_msg(test_run_ocasim(args, &out, &err) == 0, "%s", err);
    const char *head = strstr(out, "\nresource ");
    ck_assert_msg(head, "%s", out);
    head++;
    const char *kind = strstr(head, " kind ") + 1, *util = strstr(head, " util") + 1;
    long kind_col = kind - head, util_end = util + 4 - head; /* the column after "util" */
    const char *row = strchr(head, '\n') + 1;
    int rows = 0, lines = 0;
    while (*row && *row != '\n') {
      const char *eol = strchr(row, '\n');
      g_autofree char *line = g_strndup(row, eol - row);
      ck_assert_msg((long)strlen(line) > util_end, "%s", line);
      ck_assert_msg(line[util_end - 1] == '%' && line[util_end] == ' ', "%s: util not under the header's: %s", cmds[c], line);
      /* the kind starts at the header's column and ends at least one space before the util's digits */
      ck_assert_msg(line[kind_col - 1] == ' ' && line[kind_col] != ' ', "%s: %s", cmds[c], line);
      const char *k_end = strchr(line + kind_col, ' ');
      ck_assert_msg(k_end && k_end - line <= util_end - 7, "%s: kind runs into util: %s", cmds[c], line);
      lines += g_str_has_prefix(line + kind_col, "cpu_lines ");
      rows++;
      row = eol + 1;
    }
    ck_assert_int_gt(rows, 20);
    ck_assert_int_eq(lines, 4); /* one per NPS4 node */
  }
}
END_TEST

/* A throughput below 1 Gb/s prints in a unit that shows it (sim_units_gbps_text), not as
 * "0.0 Gb/s": the bound at 0.5 Mb/s and 20 Mb/s offered, and a what-if of it. */
START_TEST(test_sub_gbps_rates_shown)
{
  static const struct {
    const char *offered, *shown;
  } t[] = { { "workload.offered=0.5 Mb/s", "500.0 kb/s" }, { "workload.offered=20 Mb/s", "20.0 Mb/s" } };
  for (size_t i = 0; i < G_N_ELEMENTS(t); i++) {
    const char *args[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", "--set", t[i].offered, NULL };
    g_autofree char *out = NULL, *err = NULL;
    ck_assert_msg(test_run_ocasim(args, &out, &err) == 0, "%s", err);
    g_autofree char *off = g_strdup_printf("offered:    %s\n", t[i].shown),
                    *thr = g_strdup_printf("throughput: %s\n", t[i].shown);
    ck_assert_msg(strstr(out, off) && strstr(out, thr), "%s", out);
    ck_assert_msg(!strstr(out, " 0.0 Gb/s"), "%s", out);
  }
  const char *args[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", "--set", "workload.offered=20 Mb/s", "--fail", "nvme[0]",
                         NULL };
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_msg(test_run_ocasim(args, &out, &err) == 0, "%s", err);
  ck_assert_msg(strstr(out, "throughput: 20.0 Mb/s              20.0 Mb/s"), "%s", out);
}
END_TEST

/* A RAM size below 1 GiB prints in a unit that shows it (sim_units_bytes_text): 1 MiB installed
 * read "of 0.0 GiB installed" and "memory.installed (0.0 GiB)". */
START_TEST(test_sub_gib_sizes_shown)
{
  const char *args[] = { "capacity", "scenarios/rome-400g-page-cache.yaml", "--set", "memory.installed=1 MiB", NULL };
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_msg(test_run_ocasim(args, &out, &err) == 0, "%s", err);
  ck_assert_msg(strstr(out, "ram:        needs 8.0 GiB of 1.0 MiB installed"), "%s", out);
  ck_assert_msg(strstr(out, "reaches memory.installed (1.0 MiB)"), "%s", out);
  ck_assert_msg(!strstr(out, "0.0 GiB installed"), "%s", out);
  const char *bargs[] = { "bound", "scenarios/rome-400g-page-cache.yaml", NULL };
  g_autofree char *bout = NULL, *berr = NULL;
  ck_assert_msg(test_run_ocasim(bargs, &bout, &berr) == 0, "%s", berr);
  /* 256 GiB installed: TLS state and reads in flight are below 1 GiB and were "0.46" and "0.004" */
  ck_assert_msg(strstr(bout, "of 256.0 GiB installed: page cache 244.0 GiB, socket buffers 3.6 GiB, TLS state 463.5 MiB, "
                             "reads in flight 4.5 MiB,"),
                "%s", bout);
}
END_TEST

/* The report calls the named resource the bottleneck only when the box is saturated: at 100 Gb/s
 * offered the Rome NIC-kTLS box's ports are at 27.2 % ("busiest", "near it", "<- busiest"; it
 * said "bottleneck: ... at 27.2 % utilisation" and "co-limit"), saturating they are at 100 %
 * ("bottleneck"); a capacity limited by latency (the p99 SLO reached with the CPU at 77.3 % of
 * its 80 % cap) reports the CPU as the busiest, and one limited by the CPU cap as the bottleneck. */
START_TEST(test_bottleneck_wording)
{
  static const struct {
    const char *cmd, *file, *set, *has[3], *hasnt[2];
  } t[] = {
    { "bound",
      "scenarios/rome-400g-nic-ktls.yaml",
      "workload.offered=100 Gb/s",
      { "\nbusiest:    nic0.port0 (nic_port) at 27.2 % utilisation (below saturation", "\nnear it:    nic0.port1",
        " <- busiest\n" },
      { "bottleneck", "co-limit" } },
    { "bound",
      "scenarios/rome-400g-nic-ktls.yaml",
      "workload.drop_max=0.1 %",
      { "\nbottleneck: nic0.port0 (nic_port) at 100.0 % utilisation\n", "\nco-limit:   nic0.port1", " <- bottleneck" },
      { "busiest:", "near it:" } },
    { "capacity",
      "scenarios/reference/rome2022_no_sendfile_sw_ktls.yaml",
      "workload.drop_max=0.1 %",
      { "capacity:   68.3 Gb/s, limited by latency", "\nbusiest:    cpu.node0 (cpu) at 77.3 % utilisation (below",
        " <- busiest" },
      { "bottleneck:", "<- bottleneck" } },
    { "capacity",
      "scenarios/reference/rome2021_sw_nps1.yaml",
      "workload.drop_max=0.1 %",
      /* the CPU at its cap, named: 1 % more clock buys more than 1 % more memory bandwidth */
      { "limited by cpu", "\nbottleneck: cpu.node0 (cpu) at 80.0 % utilisation\nco-limit:   dram.node0 (dram) at 95.5 %",
        " <- bottleneck" },
      { "busiest:", "its stalls fill" } },
  };
  for (size_t i = 0; i < G_N_ELEMENTS(t); i++) {
    const char *args[] = { t[i].cmd, t[i].file, "--set", t[i].set, NULL };
    g_autofree char *out = NULL, *err = NULL;
    ck_assert_msg(test_run_ocasim(args, &out, &err) == 0, "%s", err);
    for (int k = 0; k < 3; k++) ck_assert_msg(strstr(out, t[i].has[k]), "%zu: no '%s' in\n%s", i, t[i].has[k], out);
    for (int k = 0; k < 2; k++) ck_assert_msg(!strstr(out, t[i].hasnt[k]), "%zu: '%s' in\n%s", i, t[i].hasnt[k], out);
  }
}
END_TEST

int main(void)
{
  Suite *s = suite_create("cli_tools");
  TCase *t = tcase_create("coeffs data file");
  tcase_add_test(t, test_coeffs_def_round_trip);
  tcase_add_test(t, test_coeffs_def_exact);
  tcase_add_test(t, test_coeffs_def_spread);
  suite_add_tcase(s, t);
  TCase *tc = tcase_create("subcommands");
  tcase_set_timeout(tc, 240); /* one fit, a few seconds; more under ASan */
  tcase_add_test(tc, test_schema_prints_the_key_tables);
  tcase_add_test(tc, test_schema_update);
  tcase_add_test(tc, test_reference_report);
  tcase_add_test(tc, test_empty_reference_set);
  tcase_add_test(tc, test_fit_writes_the_data_file);
  tcase_add_test(tc, test_fit_json_coverage_is_the_tables);
  tcase_add_test(tc, test_outputs_doc_names_kinds_and_units);
  tcase_add_test(tc, test_report_table_columns_align);
  tcase_add_test(tc, test_sub_gbps_rates_shown);
  tcase_add_test(tc, test_sub_gib_sizes_shown);
  tcase_add_test(tc, test_bottleneck_wording);
  suite_add_tcase(s, tc);
  return test_run_suite(s);
}
