/* reference/fitreport.c — what `ocasim fit` prints of a fit and its predictions: tables, summary,
 * coverage of the intervals and fit.json (see reference/fitreport.h). */
#include "models/reference/fitreport.h"
#include "sim/json.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The second band of the prediction table (results within 20 %, beside the rule's 10 %):
 * assumed, a reading aid. */
#define FITREPORT_BAND2_PCT 20.0

/* @pt rounded to the 0.1 point the tables print, a zero without its sign: -0.04 would print
 * "-0.0" and flip to "+0.0" with a last-digit change (the README's tables regenerate byte for byte). */
static double tenth_pt(double pt)
{
  double r = round(10 * pt) / 10;
  return r == 0 ? 0.0 : r;
}

/* "-" or the CPU error of a row in points. */
static void cpu_err_text(const AppRefRow *row, char *buf, size_t len)
{
  if (row->pub_cpu >= 0)
    g_snprintf(buf, len, "%+.1f pt", tenth_pt(row->model_cpu - row->pub_cpu));
  else
    g_strlcpy(buf, "-", len);
}

/* The named bottleneck as the reference table writes it: "name (kind)" [+ co-bottleneck]. */
static void bottleneck_text(const AppRefRow *row, char *buf, size_t len)
{
  if (row->cobottleneck[0])
    g_snprintf(buf, len, "%s (%s) + %s", row->bottleneck, row->kind, row->cobottleneck);
  else
    g_snprintf(buf, len, "%s (%s)", row->bottleneck, row->kind);
}

/* Whether a prediction names the published bottleneck: OK, NO, or - when none is published. */
static const char *bn_mark(const AppRefRow *row)
{
  return !row->pub_bottleneck ? "-" : row->kind_ok ? "OK" : "NO";
}

void fitreport_loo_table(const AppFitReport *r, GString *out)
{
  g_return_if_fail(r->loo != NULL);
  g_string_append_printf(out, "| %-28s | %9s | %9s | %15s | %7s | %8s | %9s | %-3s |\n", "result", "in-fit", "left-out",
                         "80 % interval", "publ.", "error", "CPU err", "bn");
  g_string_append(
      out, "|------------------------------|----------:|----------:|----------------:|--------:|---------:|----------:|-----|\n");
  for (int i = 0; i < r->n; i++) {
    const AppRefRow *o = &r->loo[i];
    char cpu[16];
    cpu_err_text(o, cpu, sizeof cpu);
    g_autofree char *iv =
        g_strdup_printf("%.0f-%.0f%s", o->iv_lo, o->iv_hi, o->pub_gbps >= o->iv_lo && o->pub_gbps <= o->iv_hi ? "" : " out");
    g_string_append_printf(out, "| %-28s | %9.1f | %9.1f | %15s | %7.1f | %+7.1f%% | %9s | %-3s |\n", o->id,
                           r->in_fit[i].model_gbps, o->model_gbps, iv, o->pub_gbps, o->err_pct, cpu, bn_mark(o));
  }
}

void fitreport_lopo_table(const AppFitReport *r, GString *out)
{
  g_return_if_fail(r->lopo != NULL);
  g_string_append_printf(out, "| %-28s | %-13s | %7s | %7s | %15s | %7s | %8s | %9s | %-36s | %-3s |\n", "result", "platform",
                         "in-fit", "LOPO", "80 % interval", "publ.", "error", "CPU err", "LOPO bottleneck", "bn");
  g_string_append(
      out,
      "|------------------------------|---------------|--------:|--------:|----------------:|--------:|---------:|----------:|"
      "--------------------------------------|-----|\n");
  for (int i = 0; i < r->n; i++) {
    const AppRefRow *o = &r->lopo[i];
    char cpu[16], bn[80];
    cpu_err_text(o, cpu, sizeof cpu);
    bottleneck_text(o, bn, sizeof bn);
    g_autofree char *iv =
        g_strdup_printf("%.0f-%.0f%s", o->iv_lo, o->iv_hi, o->pub_gbps >= o->iv_lo && o->pub_gbps <= o->iv_hi ? "" : " out");
    g_string_append_printf(out, "| %-28s | %-13s | %7.1f | %7.1f | %15s | %7.1f | %+7.1f%% | %9s | %-36s | %-3s |\n", o->id,
                           o->platform, r->in_fit[i].model_gbps, o->model_gbps, iv, o->pub_gbps, o->err_pct, cpu, bn, bn_mark(o));
  }
}

void fitreport_lopo_coeffs_table(const AppFitReport *r, GString *out)
{
  g_return_if_fail(r->lopo_coeffs != NULL);
  g_string_append_printf(out, "| %-18s | %10s |", "coefficient", "all");
  for (int k = 0; k < r->n_platforms; k++) g_string_append_printf(out, " %14s |", r->platforms[k]);
  g_string_append(out, "\n|--------------------|-----------:|");
  for (int k = 0; k < r->n_platforms; k++) g_string_append(out, "---------------:|");
  g_string_append_c(out, '\n');
  for (int j = 0; j < COEFFS_N_FITTED; j++) {
    Coeffs f = r->fitted;
    g_string_append_printf(out, "| %-18s | %10.4g |", coeffs_fitted_name(j), *coeffs_fitted_ptr(&f, j));
    for (int k = 0; k < r->n_platforms; k++) {
      Coeffs c = r->lopo_coeffs[k];
      g_string_append_printf(out, " %14.4g |", *coeffs_fitted_ptr(&c, j));
    }
    g_string_append_c(out, '\n');
  }
}

/* Median and worst of a prediction over the distinct results (a same_as result counts with the
 * one it names: the same prediction). */
typedef struct {
  int n, n10, n20, n_cpu, n_bn, bn_ok;
  double med_err, worst_err, med_cpu, worst_cpu; /* |median|; worst signed */
  const char *worst_id, *worst_cpu_id;
} PredStats;

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median_of(double *v, int n)
{
  if (n == 0) return NAN;
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static PredStats pred_stats(const AppFitReport *r, const AppRefRow *rows)
{
  PredStats st = { .med_err = NAN, .worst_err = 0, .med_cpu = NAN, .worst_cpu = NAN };
  g_autofree double *e = g_new(double, MAX(r->n, 1)), *c = g_new(double, MAX(r->n, 1));
  for (int i = 0; i < r->n; i++) {
    const AppRefRow *o = &rows[i];
    if (r->group[i] != i) continue;
    e[st.n++] = fabs(o->err_pct);
    st.n10 += fabs(o->err_pct) <= APP_REF_TOLERANCE_PCT;
    st.n20 += fabs(o->err_pct) <= FITREPORT_BAND2_PCT;
    if (!st.worst_id || fabs(o->err_pct) > fabs(st.worst_err)) {
      st.worst_err = o->err_pct;
      st.worst_id = o->id;
    }
    if (o->pub_cpu >= 0) {
      double d = o->model_cpu - o->pub_cpu;
      c[st.n_cpu++] = fabs(d);
      if (!st.worst_cpu_id || fabs(d) > fabs(st.worst_cpu)) {
        st.worst_cpu = d;
        st.worst_cpu_id = o->id;
      }
    }
    if (o->pub_bottleneck) {
      st.n_bn++;
      st.bn_ok += o->kind_ok;
    }
  }
  st.med_err = median_of(e, st.n);
  st.med_cpu = median_of(c, st.n_cpu);
  return st;
}

void fitreport_summary(const AppFitReport *r, GString *out)
{
  g_string_append_printf(out, "| %-22s | %7s | %8s | %-38s | %6s | %6s | %8s | %-36s | %10s |\n", "prediction", "results",
                         "median", "worst", "<=10 %", "<=20 %", "CPU med.", "CPU worst", "bottleneck");
  g_string_append(out,
                  "|------------------------|--------:|---------:|----------------------------------------|-------:|-------:|"
                  "---------:|--------------------------------------|-----------:|\n");
  const AppRefRow *sets[] = { r->in_fit, r->loo, r->lopo };
  const char *names[] = { "in-fit", "leave-one-out", "leave-one-platform-out" };
  for (int k = 0; k < 3; k++) {
    if (!sets[k]) continue;
    PredStats st = pred_stats(r, sets[k]);
    g_autofree char *worst = g_strdup_printf("%+.1f%% %s", st.worst_err, st.worst_id ? st.worst_id : "-");
    g_autofree char *cworst =
        st.worst_cpu_id ? g_strdup_printf("%+.1f pt %s", tenth_pt(st.worst_cpu), st.worst_cpu_id) : g_strdup("-");
    g_autofree char *bn = g_strdup_printf("%d of %d", st.bn_ok, st.n_bn);
    g_string_append_printf(out, "| %-22s | %7d | %7.1f%% | %-38s | %6d | %6d | %5.1f pt | %-36s | %10s |\n", names[k], st.n,
                           st.med_err, worst, st.n10, st.n20, st.med_cpu, cworst, bn);
  }
}

/* The rows of prediction @kind, NULL when it was not run. */
static const AppRefRow *kind_rows(const AppFitReport *r, AppFitKind kind)
{
  return kind == APP_FIT_IN_FIT ? r->in_fit : kind == APP_FIT_LOO ? r->loo : kind == APP_FIT_LOPO ? r->lopo : NULL;
}

gboolean fitreport_coverage_of(const AppFitReport *r, AppFitKind kind, AppFitCoverage *cov)
{
  const AppRefRow *rows = kind_rows(r, kind);
  if (!rows) return FALSE;
  *cov = (AppFitCoverage){ 0 };
  g_autofree double *hw = g_new(double, MAX(r->n, 1));
  for (int i = 0; i < r->n; i++) {
    const AppRefRow *o = &rows[i];
    if (r->group[i] != i) continue;
    cov->inside += o->pub_gbps >= o->iv_lo && o->pub_gbps <= o->iv_hi;
    hw[cov->results] = 100.0 * 0.5 * (o->iv_hi - o->iv_lo) / o->model_gbps;
    cov->widest_half_width_pct = MAX(cov->widest_half_width_pct, hw[cov->results]);
    cov->results++;
  }
  cov->median_half_width_pct = median_of(hw, cov->results);
  return TRUE;
}

void fitreport_coverage(const AppFitReport *r, GString *out)
{
  g_string_append_printf(out, "| %-22s | %7s | %12s | %18s | %18s |\n", "prediction", "results", "inside 80 %",
                         "median half-width", "widest half-width");
  g_string_append(out, "|------------------------|--------:|-------------:|-------------------:|-------------------:|\n");
  const char *names[] = { "in-fit", "leave-one-out", "leave-one-platform-out" };
  for (int k = 0; k < APP_FIT_N_KINDS; k++) {
    AppFitCoverage c;
    if (!fitreport_coverage_of(r, (AppFitKind)k, &c)) continue;
    g_autofree char *cov = g_strdup_printf("%d (%.0f %%)", c.inside, c.results ? 100.0 * c.inside / c.results : 0.0);
    g_string_append_printf(out, "| %-22s | %7d | %12s | %17.1f%% | %17.1f%% |\n", names[k], c.results, cov,
                           c.median_half_width_pct, c.widest_half_width_pct);
  }
  g_string_append_printf(out,
                         "\nEach platform's own factor on the shared stack costs (its results alone, the coefficients "
                         "held; never applied),\nand their spread tau = %.3f (DerSimonian-Laird; the intervals draw "
                         "exp(N(0, tau^2))); the model's residual error on throughput %.3f (ln, RMS in-fit):\n",
                         r->tau, r->sigma);
  for (int k = 0; k < r->n_platforms; k++) {
    if (isfinite(r->factor_ln[k]))
      g_string_append_printf(out, "  %-16s x %.3f (ln %+.3f +- %.3f)\n", r->platforms[k], exp(r->factor_ln[k]), r->factor_ln[k],
                             r->factor_se[k]);
    else
      g_string_append_printf(out, "  %-16s -      (its results do not move the stack costs)\n", r->platforms[k]);
  }
}

/* ---- fit.json -------------------------------------------------------------------------------- */

/* Adds the members <prefix>_gbps, <prefix>_cpu_pct, <prefix>_bottleneck, <prefix>_bottleneck_ok
 * of a prediction (null when not run). */
static void json_prediction(JsonBuilder *b, const char *prefix, const AppRefRow *o)
{
  g_autofree char *g = g_strconcat(prefix, "_gbps", NULL), *c = g_strconcat(prefix, "_cpu_pct", NULL),
                  *bn = g_strconcat(prefix, "_bottleneck", NULL), *ok = g_strconcat(prefix, "_bottleneck_ok", NULL);
  sim_json_number(b, g, o ? o->model_gbps : NAN);
  sim_json_number(b, c, o ? o->model_cpu : NAN);
  char text[80];
  if (o) bottleneck_text(o, text, sizeof text);
  sim_json_string(b, bn, o ? text : NULL);
  json_builder_set_member_name(b, ok);
  if (o && o->pub_bottleneck)
    json_builder_add_boolean_value(b, o->kind_ok);
  else
    json_builder_add_null_value(b);
  /* the 80 % prediction interval of the throughput from the fit that made this prediction */
  g_autofree char *iv = g_strconcat(prefix, "_interval_gbps", NULL);
  if (o && o->iv_hi > 0) {
    sim_json_pair(b, iv, o->iv_lo, o->iv_hi);
  } else {
    json_builder_set_member_name(b, iv);
    json_builder_add_null_value(b);
  }
}

static void json_stats(JsonBuilder *b, const char *name, const AppFitReport *r, const AppRefRow *rows)
{
  json_builder_set_member_name(b, name);
  if (!rows) {
    json_builder_add_null_value(b);
    return;
  }
  PredStats st = pred_stats(r, rows);
  json_builder_begin_object(b);
  sim_json_int(b, "results", st.n);
  sim_json_number(b, "median_abs_error_pct", st.med_err);
  sim_json_number(b, "worst_error_pct", st.worst_err);
  sim_json_string(b, "worst_id", st.worst_id);
  sim_json_int(b, "within_10_pct", st.n10);
  sim_json_int(b, "within_20_pct", st.n20);
  sim_json_number(b, "median_abs_cpu_error_pts", st.med_cpu);
  sim_json_number(b, "worst_cpu_error_pts", st.worst_cpu);
  sim_json_string(b, "worst_cpu_id", st.worst_cpu_id);
  sim_json_int(b, "bottlenecks_published", st.n_bn);
  sim_json_int(b, "bottlenecks_as_published", st.bn_ok);
  json_builder_end_object(b);
}

void fitreport_json(const AppRefSet *s, const AppFitReport *r, const AppFitIdent *id, double chisq, GString *out)
{
  const int p = COEFFS_N_FITTED;
  g_autoptr(JsonBuilder) b = json_builder_new();
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "objective");
  json_builder_begin_object(b);
  sim_json_int(b, "results", r->n);
  sim_json_bool(b, "bottleneck_term", fit_bottleneck_term(s));
  sim_json_number(b, "chisq", chisq);
  sim_json_number(b, "prior_sigma", APP_FIT_PRIOR_SIGMA);
  json_builder_end_object(b);
  json_builder_set_member_name(b, "fixed_coefficients");
  json_builder_begin_array(b);
  Coeffs fixed;
  coeffs_defaults(&fixed);
  for (int i = 0; i < coeffs_fixed_count(); i++) {
    json_builder_begin_object(b);
    sim_json_string(b, "name", coeffs_fixed_name(i));
    sim_json_number(b, "value", coeffs_fixed_value(&fixed, i));
    sim_json_string(b, "source", coeffs_fixed_source(i));
    json_builder_end_object(b);
  }
  json_builder_end_array(b);
  json_builder_set_member_name(b, "coefficients");
  json_builder_begin_array(b);
  for (int j = 0; j < p; j++) {
    json_builder_begin_object(b);
    sim_json_string(b, "name", coeffs_fitted_name(j));
    sim_json_number(b, "value", id->value[j]);
    sim_json_number(b, "stderr", id->se[j]);
    sim_json_string(b, "space", fit_coef_space(j));
    sim_json_number(b, "stderr_fit_space", id->se_x[j]);
    g_autoptr(GPtrArray) ids = g_ptr_array_new();
    ident_moving_rows(id, j, ids);
    json_builder_set_member_name(b, "identified_by");
    json_builder_begin_array(b);
    for (guint k = 0; k < ids->len; k++) json_builder_add_string_value(b, ids->pdata[k]);
    json_builder_end_array(b);
    sim_json_bool(b, "identified", id->identified[j]);
    sim_json_string(b, "one_platform", id->rests_on[j] >= 0 ? id->platforms[id->rests_on[j]] : NULL);
    json_builder_set_member_name(b, "stderr_fit_space_without_platform");
    json_builder_begin_object(b);
    for (int k = 0; k < id->n_platforms; k++) sim_json_number(b, id->platforms[k], id->se_x_without[(size_t)k * p + j]);
    json_builder_end_object(b);
    json_builder_set_member_name(b, "jacobian");
    json_builder_begin_array(b);
    for (int q = 0; q < id->n_rows; q++) {
      json_builder_begin_object(b);
      sim_json_string(b, "id", id->row_id[q]);
      sim_json_string(b, "figure", id->row_figure[q]);
      sim_json_number(b, "d", id->jac[(size_t)q * p + j]);
      json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
  }
  json_builder_end_array(b);
  json_builder_set_member_name(b, "correlation");
  json_builder_begin_array(b);
  for (int i = 0; i < p; i++) {
    json_builder_begin_array(b);
    for (int j = 0; j < p; j++) sim_json_element(b, id->corr[i][j]);
    json_builder_end_array(b);
  }
  json_builder_end_array(b);
  json_builder_set_member_name(b, "lopo_fits");
  if (r->lopo_coeffs) {
    json_builder_begin_array(b);
    for (int k = 0; k < r->n_platforms; k++) {
      json_builder_begin_object(b);
      sim_json_string(b, "platform", r->platforms[k]);
      json_builder_set_member_name(b, "coefficients");
      json_builder_begin_object(b);
      Coeffs c = r->lopo_coeffs[k];
      for (int j = 0; j < p; j++) sim_json_number(b, coeffs_fitted_name(j), *coeffs_fitted_ptr(&c, j));
      json_builder_end_object(b);
      json_builder_end_object(b);
    }
    json_builder_end_array(b);
  } else {
    json_builder_add_null_value(b);
  }
  json_builder_set_member_name(b, "rows");
  json_builder_begin_array(b);
  for (int i = 0; i < r->n; i++) {
    const AppRefRow *o = &r->in_fit[i];
    json_builder_begin_object(b);
    sim_json_string(b, "id", o->id);
    sim_json_string(b, "platform", o->platform);
    sim_json_string(b, "same_as", o->same_as);
    sim_json_number(b, "published_gbps", o->pub_gbps);
    sim_json_number(b, "published_cpu_pct", o->pub_cpu >= 0 ? o->pub_cpu : NAN);
    sim_json_string(b, "published_bottleneck", o->pub_bottleneck);
    json_prediction(b, "in_fit", o);
    json_prediction(b, "loo", r->loo ? &r->loo[i] : NULL);
    json_prediction(b, "lopo", r->lopo ? &r->lopo[i] : NULL);
    json_builder_end_object(b);
  }
  json_builder_end_array(b);
  json_builder_set_member_name(b, "summary");
  json_builder_begin_object(b);
  json_stats(b, "in_fit", r, r->in_fit);
  json_stats(b, "loo", r, r->loo);
  json_stats(b, "lopo", r, r->lopo);
  json_builder_end_object(b);
  json_builder_set_member_name(b, "coverage"); /* the figures of fitreport_coverage's table */
  json_builder_begin_object(b);
  const char *kinds[] = { "in_fit", "loo", "lopo" };
  for (int k = 0; k < APP_FIT_N_KINDS; k++) {
    AppFitCoverage c;
    json_builder_set_member_name(b, kinds[k]);
    if (!fitreport_coverage_of(r, (AppFitKind)k, &c)) {
      json_builder_add_null_value(b);
      continue;
    }
    json_builder_begin_object(b);
    sim_json_number(b, "level", r->level);
    sim_json_int(b, "results", c.results);
    sim_json_int(b, "inside", c.inside);
    sim_json_number(b, "inside_share", c.results ? (double)c.inside / c.results : NAN);
    sim_json_number(b, "median_half_width_pct", c.median_half_width_pct);
    sim_json_number(b, "widest_half_width_pct", c.widest_half_width_pct);
    json_builder_end_object(b);
  }
  json_builder_end_object(b);
  json_builder_end_object(b);
  sim_json_append(b, out);
}
