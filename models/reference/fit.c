/* reference/fit.c — the joint fit of the shared coefficients over the reference set: the
 * objective's residuals, the GSL driver, leave-one-out and leave-one-platform-out refits, the
 * platform-transfer spread tau, the residual error sigma, the rounding of the written
 * coefficients and the Jacobian of identifiability (equations and rules in reference/fit.h). */
#include "models/reference/fit.h"
#include "models/reference/refset-private.h"
#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit_nlinear.h>
#include "sim/gsl_autoptr.h"
#include <math.h>
#include <string.h>

/* The names of the figures of a result (FIG_*, refset-private.h), as the identifiability report writes them. */
static const char *const FIG_NAMES[N_RES_PER_ITEM] = { "gbps",       "cpu_pct",       "fabric_util_pct",
                                                       "bottleneck", "hot_port_gbps", "cold_port_gbps" };

/* Scales of the fit's residuals (reference/fit.h): the reproduction rule's tolerances read as
 * one standard error (APP_REF_TOLERANCE_PCT as a ratio for throughput and the hot/cold port
 * figures, APP_REF_CPU_TOLERANCE_PTS for CPU and fabric utilisation points), and the bottleneck
 * term's scale, DEMAND_COBOTTLENECK (a 5 % margin). */
#define FIT_REL_SCALE        0.10
#define FIT_PTS_SCALE        10.0
#define FIT_BOTTLENECK_SCALE 0.05
/* gsl_multifit_nlinear: finite-difference step (the model is piecewise linear, a min over
 * resources: wide steps; GSL's default is sqrt(eps)), iteration cap and the xtol/gtol/ftol
 * stopping tolerances. Assumed: the fit converges well inside them (make fit prints the
 * iterations). */
#define FIT_H_DF     1e-4
#define FIT_MAX_ITER 200
#define FIT_XTOL     1e-8
#define FIT_GTOL     1e-8
#define FIT_FTOL     1e-8

/* ---- fit ------------------------------------------------------------------------------------ */

typedef struct {
  AppRefSet *s;
  Coeffs base;
  const gboolean *item_out;   /* [items] left out of the fit, NULL: none */
  const gboolean *stream_out; /* [REFSET_N_STREAM] left out, NULL: none */
  double x0[COEFFS_N_FITTED];
} FitCtx;

/* dram_eff and port_eff lie in (0, 1): fitted as logits */
static gboolean is_eff(int i)
{
  const char *n = coeffs_fitted_name(i);
  return strcmp(n, "dram_eff") == 0 || strcmp(n, "port_eff") == 0;
}

/* Coefficient i from its fit-space coordinate v (logit of an efficiency, else ln), and back. */
static double coef_of_x(int i, double v)
{
  return is_eff(i) ? 1.0 / (1.0 + exp(-v)) : exp(v);
}

static double x_of_coef(int i, double v)
{
  return is_eff(i) ? log(v / (1.0 - v)) : log(v);
}

static void x_to_coeffs(const gsl_vector *x, const Coeffs *base, Coeffs *c)
{
  *c = *base;
  for (int i = 0; i < COEFFS_N_FITTED; i++) *coeffs_fitted_ptr(c, i) = coef_of_x(i, gsl_vector_get(x, (size_t)i));
}

const char *fit_coef_space(int j)
{
  return is_eff(j) ? "logit" : "ln";
}

#define PRIOR_SIGMA APP_FIT_PRIOR_SIGMA

static int n_residuals(const AppRefSet *s)
{
  return (int)s->items->len * N_RES_PER_ITEM + REFSET_N_STREAM + COEFFS_N_FITTED;
}

/* The unweighted residuals r[] of result @it with coefficients @c, as the objective takes them
 * (reference/fit.h). FALSE: it cannot be evaluated. */
static gboolean item_residuals(const AppRefSet *s, RefItem *it, const Coeffs *c, double r[N_RES_PER_ITEM])
{
  AppRefRow row;
  double xe;
  if (!refset_eval_item(it, c, &row, &xe, NULL)) return FALSE;
  /* a documented deviation with another bottleneck counts at its documented tolerance and without its
   * bottleneck term, so a row the model says it cannot reproduce does not drag a shared
   * coefficient to it (milan2022_default_bios) */
  gboolean deviates = it->info.ref.known_deviation && it->info.ref.tolerance_pct > APP_REF_TOLERANCE_PCT && !row.kind_ok;
  r[FIG_GBPS] = log(row.model_gbps / row.pub_gbps) / (deviates ? it->info.ref.tolerance_pct / 100.0 : FIT_REL_SCALE);
  /* likewise a documented CPU deviation counts at its documented CPU tolerance (skx2019_net_silo) */
  gboolean cpu_deviates = it->info.ref.known_deviation && it->info.ref.cpu_tolerance_pts > APP_REF_CPU_TOLERANCE_PTS;
  if (row.pub_cpu >= 0)
    r[FIG_CPU] = (row.model_cpu - row.pub_cpu) / (cpu_deviates ? it->info.ref.cpu_tolerance_pts : FIT_PTS_SCALE);
  if (row.pub_fab_util >= 0) r[FIG_FABRIC] = (row.model_fab_util - row.pub_fab_util) / FIT_PTS_SCALE;
  if (s->bottleneck_term && xe < G_MAXDOUBLE / 2 && !deviates)
    r[FIG_BOTTLENECK] = MAX(0.0, xe / row.model_gbps - 1.0 - 0.5 * DEMAND_COBOTTLENECK) / FIT_BOTTLENECK_SCALE;
  if (row.pub_hot > 0) r[FIG_HOT] = (row.hot_gbps / row.pub_hot - 1.0) / FIT_REL_SCALE;
  if (row.pub_cold > 0 && row.cold_gbps > 0) r[FIG_COLD] = (row.cold_gbps / row.pub_cold - 1.0) / FIT_REL_SCALE;
  refset_row_clear(&row);
  return TRUE;
}

static int residuals(const gsl_vector *x, void *params, gsl_vector *f)
{
  FitCtx *ctx = params;
  Coeffs c;
  x_to_coeffs(x, &ctx->base, &c);
  gsl_vector_set_zero(f);
  for (guint i = 0; i < ctx->s->items->len; i++) {
    if (ctx->item_out && ctx->item_out[i]) continue;
    RefItem *it = ctx->s->items->pdata[i];
    double r[N_RES_PER_ITEM] = { 0 };
    if (!item_residuals(ctx->s, it, &c, r)) return GSL_EDOM;
    for (int k = 0; k < N_RES_PER_ITEM; k++) gsl_vector_set(f, i * N_RES_PER_ITEM + (size_t)k, it->w[k] * r[k]);
  }
  size_t k0 = ctx->s->items->len * N_RES_PER_ITEM;
  for (int k = 0; k < REFSET_N_STREAM; k++) {
    if (ctx->stream_out && ctx->stream_out[k]) continue;
    const Appliance *a = ctx->s->stream_a[k];
    double st = mem_stream_GBps(&a->mem, &a->topo, c.dram_eff, mem_turnaround(&a->mem, &c));
    gsl_vector_set(f, k0 + (size_t)k, (st / REFSET_STREAM_REFS[k].GBps - 1.0) / REFSET_STREAM_REFS[k].tol);
  }
  k0 += REFSET_N_STREAM;
  for (int i = 0; i < COEFFS_N_FITTED; i++)
    gsl_vector_set(f, k0 + (size_t)i, (gsl_vector_get(x, (size_t)i) - ctx->x0[i]) / PRIOR_SIGMA);
  return GSL_SUCCESS;
}

/* Fits c (in/out) without the results item_out[] and the STREAM figures stream_out[] (NULL: none). */
static gboolean fit_masked(AppRefSet *s, Coeffs *c, const gboolean *item_out, const gboolean *stream_out, double *chisq,
                           GError **error)
{
  const size_t p = COEFFS_N_FITTED, n = (size_t)n_residuals(s);
  FitCtx ctx = { .s = s, .base = *c, .item_out = item_out, .stream_out = stream_out };
  gsl_multifit_nlinear_fdf fdf = { .f = residuals, .df = NULL, .fvv = NULL, .n = n, .p = p, .params = &ctx };
  gsl_multifit_nlinear_parameters par = gsl_multifit_nlinear_default_parameters();
  par.h_df = FIT_H_DF; /* the model is piecewise linear (min over resources): take wide steps */
  g_autoptr(gsl_multifit_nlinear_workspace) w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &par, n, p);
  g_autoptr(gsl_vector) x = gsl_vector_alloc(p);
  for (size_t i = 0; i < p; i++) {
    gsl_vector_set(x, i, x_of_coef((int)i, *coeffs_fitted_ptr(c, (int)i)));
    ctx.x0[i] = gsl_vector_get(x, i);
  }
  int info = 0;
  int st = gsl_multifit_nlinear_init(x, &fdf, w);
  if (st == GSL_SUCCESS) st = gsl_multifit_nlinear_driver(FIT_MAX_ITER, FIT_XTOL, FIT_GTOL, FIT_FTOL, NULL, NULL, &info, w);
  gboolean ok = st == GSL_SUCCESS || st == GSL_EMAXITER;
  if (ok) {
    x_to_coeffs(w->x, &ctx.base, c);
    g_autoptr(gsl_matrix) cov = gsl_matrix_alloc(p, p);
    gsl_matrix *J = gsl_multifit_nlinear_jac(w);
    if (gsl_multifit_nlinear_covar(J, 0.0, cov) == GSL_SUCCESS)
      for (size_t i = 0; i < p; i++)
        for (size_t j = 0; j < p; j++) s->last_cov[i][j] = gsl_matrix_get(cov, i, j);
    else
      memset(s->last_cov, 0, sizeof s->last_cov);
    double chi;
    gsl_blas_ddot(w->f, w->f, &chi);
    if (chisq) *chisq = chi;
  } else {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "fit failed: %s", gsl_strerror(st));
  }
  return ok;
}

gboolean fit_refset(AppRefSet *s, Coeffs *c, int skip, double *chisq, GError **error)
{
  g_return_val_if_fail(skip >= -1 && skip < (int)s->items->len, FALSE);
  g_autofree gboolean *out = g_new0(gboolean, MAX(s->items->len, 1));
  for (guint i = 0; i < s->items->len && skip >= 0; i++)
    out[i] = ((RefItem *)s->items->pdata[i])->group == ((RefItem *)s->items->pdata[skip])->group;
  return fit_masked(s, c, out, NULL, chisq, error);
}

gboolean fit_refset_without_platform(AppRefSet *s, Coeffs *c, const char *platform, double *chisq, GError **error)
{
  g_autofree gboolean *out = g_new0(gboolean, MAX(s->items->len, 1));
  gboolean sout[REFSET_N_STREAM];
  for (guint i = 0; i < s->items->len; i++) out[i] = platform && strcmp(((RefItem *)s->items->pdata[i])->platform, platform) == 0;
  for (int k = 0; k < REFSET_N_STREAM; k++) sout[k] = platform && strcmp(s->stream_platform[k], platform) == 0;
  return fit_masked(s, c, out, sout, chisq, error);
}

void fit_set_bottleneck_term(AppRefSet *s, gboolean on)
{
  s->bottleneck_term = on;
}

gboolean fit_bottleneck_term(const AppRefSet *s)
{
  return s->bottleneck_term;
}

/* ---- platform transfer of the stack costs ------------------------------------------------------ */

/* The search of a platform's ln factor (fit_transfer_tau): +-TAU_T_MAX (a factor of 4.5
 * either way, beyond any platform's), a coarse grid, a fine grid around its best point, and the
 * bisection of its standard error's ends to TAU_SE_TOL. Assumed: steps well below the factors'
 * spread, above the bound's kinks. */
#define TAU_T_MAX     1.5
#define TAU_GRID_STEP 0.25
#define TAU_FINE_STEP 0.025
#define TAU_SE_TOL    0.005
/* The profile-likelihood interval of one standard error: chi^2 within 1 of its minimum (the 68.3 %
 * point of chi^2 with one degree of freedom). */
#define TAU_DCHI2 1.0

void fit_last_covariance(const AppRefSet *s, double cov[COEFFS_N_FITTED][COEFFS_N_FITTED])
{
  memcpy(cov, s->last_cov, sizeof s->last_cov);
}

/* chi^2 of platform @platform's results (not @item_out) with the stack costs of @c times e^t. */
static gboolean platform_chi2(AppRefSet *s, const char *platform, const gboolean *item_out, const Coeffs *c, double t,
                              double *chi, int *n_items)
{
  Coeffs ct = *c;
  coeffs_scale_stack_costs(&ct, exp(t));
  double sum = 0;
  int n = 0;
  for (guint i = 0; i < s->items->len; i++) {
    RefItem *it = s->items->pdata[i];
    if ((item_out && item_out[i]) || strcmp(it->platform, platform) != 0) continue;
    double r[N_RES_PER_ITEM] = { 0 };
    if (!item_residuals(s, it, &ct, r)) return FALSE;
    for (int k = 0; k < N_RES_PER_ITEM; k++)
      if (k != FIG_BOTTLENECK) sum += it->w[k] * it->w[k] * r[k] * r[k];
    n++;
  }
  *chi = sum;
  *n_items = n;
  return TRUE;
}

/* The end of platform @pl's profile-likelihood interval on the side @dir (+1, -1) of its best
 * factor @tb (chi^2 @best): the t where chi^2 first rises TAU_DCHI2 above @best, walking
 * TAU_GRID_STEP from @tb and bisecting to TAU_SE_TOL; NAN when it does not within +-TAU_T_MAX. */
static gboolean profile_end(AppRefSet *s, const char *pl, const gboolean *item_out, const Coeffs *c, double tb, double best,
                            int dir, double *end)
{
  double in = tb, out = NAN, chi;
  int n;
  for (int g = 1; isnan(out); g++) {
    double t = tb + dir * g * TAU_GRID_STEP;
    if (fabs(t) > TAU_T_MAX + 1e-9) t = dir * TAU_T_MAX;
    if (!platform_chi2(s, pl, item_out, c, t, &chi, &n)) return FALSE;
    if (chi - best >= TAU_DCHI2)
      out = t;
    else if (fabs(t) >= TAU_T_MAX - 1e-9) {
      *end = NAN;
      return TRUE;
    } else
      in = t;
  }
  while (fabs(out - in) > TAU_SE_TOL) {
    double t = 0.5 * (in + out);
    if (!platform_chi2(s, pl, item_out, c, t, &chi, &n)) return FALSE;
    if (chi - best >= TAU_DCHI2)
      out = t;
    else
      in = t;
  }
  *end = 0.5 * (in + out);
  return TRUE;
}

gboolean fit_transfer_tau(AppRefSet *s, const Coeffs *c, const gboolean *item_out, double *tau, double *factor_ln,
                          double *factor_se, GError **error)
{
  int np = (int)s->platforms->len;
  g_autofree double *y = g_new(double, MAX(np, 1)), *se = g_new(double, MAX(np, 1));
  int K = 0;
  for (int k = 0; k < np; k++) {
    const char *pl = s->platforms->pdata[k];
    y[k] = se[k] = NAN;
    double best = G_MAXDOUBLE, tb = 0, chi;
    int n = 0;
    for (int g = 0; g * TAU_GRID_STEP <= 2 * TAU_T_MAX + 1e-9; g++) {
      double t = -TAU_T_MAX + g * TAU_GRID_STEP;
      if (!platform_chi2(s, pl, item_out, c, t, &chi, &n)) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "transfer spread: a result of %s cannot be evaluated", pl);
        return FALSE;
      }
      if (n == 0) break;
      if (chi < best) best = chi, tb = t;
    }
    if (n == 0) continue;
    double t0 = tb;
    for (int g = -(int)lround(TAU_GRID_STEP / TAU_FINE_STEP); g <= (int)lround(TAU_GRID_STEP / TAU_FINE_STEP); g++) {
      double t = t0 + g * TAU_FINE_STEP;
      if (g == 0 || fabs(t) > TAU_T_MAX + 1e-9) continue;
      if (!platform_chi2(s, pl, item_out, c, t, &chi, &n)) return FALSE;
      if (chi < best) best = chi, tb = t;
    }
    /* the standard error from the profile likelihood, not the curvature at the minimum: the bound
     * is a min over resources, and a platform whose results no stack cost moves until another
     * resource binds has a sharp dip at that kink with a flat chi^2 beside it (its curvature says
     * "well determined", its profile says "anything below the kink fits within 1") */
    double lo, hi;
    if (!profile_end(s, pl, item_out, c, tb, best, -1, &lo) || !profile_end(s, pl, item_out, c, tb, best, +1, &hi)) {
      g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "transfer spread: a result of %s cannot be evaluated", pl);
      return FALSE;
    }
    if (isnan(lo) || isnan(hi)) continue; /* its results do not bound the factor on both sides */
    y[k] = tb;
    se[k] = 0.5 * (hi - lo);
    K++;
  }
  double t2 = 0;
  if (K >= 2) {
    double s1 = 0, s2 = 0, sy = 0;
    for (int k = 0; k < np; k++)
      if (isfinite(se[k])) {
        double w = 1.0 / (se[k] * se[k]);
        s1 += w;
        s2 += w * w;
        sy += w * y[k];
      }
    double ybar = sy / s1, q = 0;
    for (int k = 0; k < np; k++)
      if (isfinite(se[k])) q += (y[k] - ybar) * (y[k] - ybar) / (se[k] * se[k]);
    t2 = MAX(0.0, (q - (K - 1)) / (s1 - s2 / s1));
  }
  *tau = sqrt(t2);
  for (int k = 0; k < np; k++) {
    if (factor_ln) factor_ln[k] = y[k];
    if (factor_se) factor_se[k] = se[k];
  }
  return TRUE;
}

gboolean fit_model_sigma(AppRefSet *s, const Coeffs *c, const gboolean *item_out, double *sigma, GError **error)
{
  double sum = 0;
  int n = 0;
  for (guint i = 0; i < s->items->len; i++) {
    RefItem *it = s->items->pdata[i];
    if ((item_out && item_out[i]) || it->group != (int)i || it->info.ref.known_deviation) continue;
    AppRefRow row;
    if (!refset_eval_item(it, c, &row, NULL, error)) return FALSE;
    double e = log(row.model_gbps / row.pub_gbps);
    refset_row_clear(&row);
    sum += e * e;
    n++;
  }
  *sigma = n ? sqrt(sum / n) : 0.0;
  return TRUE;
}

/* ---- rounding the written coefficients --------------------------------------------------------- */

/* v rounded to nearest at `digits` significant digits, as the double that the text reads back as. */
static double round_sig(double v, int digits)
{
  char fmt[8], buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_snprintf(fmt, sizeof fmt, "%%.%dg", digits);
  return g_ascii_strtod(g_ascii_formatd(buf, sizeof buf, fmt, v), NULL);
}

/* The named bottleneck (and co-bottleneck) of every result under c, "|"-joined. (transfer full) */
static char *named_bottlenecks(AppRefSet *s, const Coeffs *c, GError **error)
{
  GString *out = g_string_new(NULL);
  for (guint i = 0; i < s->items->len; i++) {
    AppRefRow row;
    if (!refset_eval_item(s->items->pdata[i], c, &row, NULL, error)) {
      g_string_free(out, TRUE);
      return NULL;
    }
    g_string_append_printf(out, "%s%s%s|", row.bottleneck, row.cobottleneck[0] ? " + " : "", row.cobottleneck);
    refset_row_clear(&row);
  }
  return g_string_free(out, FALSE);
}

gboolean fit_round_coeffs(AppRefSet *s, const Coeffs *fitted, int digits, Coeffs *out, GError **error)
{
  Coeffs f = *fitted, r = *fitted;
  for (int j = 0; j < COEFFS_N_FITTED; j++) *coeffs_fitted_ptr(&r, j) = round_sig(*coeffs_fitted_ptr(&f, j), digits);
  g_autofree char *want = named_bottlenecks(s, &f, error);
  if (!want) return FALSE;
  g_autofree char *got = named_bottlenecks(s, &r, error);
  if (!got) return FALSE;
  if (strcmp(got, want) != 0) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                "rounded to %d digits the coefficients name another bottleneck than the fit does: write more digits", digits);
    return FALSE;
  }
  *out = r;
  return TRUE;
}

/* ---- prediction: leave-one-out, leave-one-platform-out --------------------------------------- */

static void rows_free(AppRefRow *rows, int n)
{
  for (int i = 0; rows && i < n; i++) refset_row_clear(&rows[i]);
  g_free(rows);
}

void fit_report_free(AppFitReport *r)
{
  if (!r) return;
  rows_free(r->in_fit, r->n);
  rows_free(r->loo, r->n);
  rows_free(r->lopo, r->n);
  g_strfreev(r->platforms);
  g_free(r->lopo_coeffs);
  g_free(r->group);
  g_free(r->factor_ln);
  g_free(r->factor_se);
  g_free(r);
}

AppFitReport *fit_predict(AppRefSet *s, const Coeffs *fitted, const CoeffsSpread *fitted_spread, gboolean loo, gboolean lopo,
                          GError **error)
{
  g_autoptr(AppFitReport) r = g_new0(AppFitReport, 1);
  const int n = refset_size(s);
  r->n = n;
  r->fitted = *fitted;
  r->level = APP_INTERVAL_LEVEL;
  CoeffsSpread fs = { .tau_cpu_costs = 0 };
  if (fitted_spread) fs = *fitted_spread;
  r->tau = fs.tau_cpu_costs;
  r->sigma = fs.sigma_gbps;
  r->in_fit = g_new0(AppRefRow, n);
  r->group = g_new(int, n);
  r->n_platforms = refset_n_platforms(s);
  r->platforms = g_new0(char *, r->n_platforms + 1);
  r->factor_ln = g_new(double, MAX(r->n_platforms, 1));
  r->factor_se = g_new(double, MAX(r->n_platforms, 1));
  for (int k = 0; k < r->n_platforms; k++) r->platforms[k] = g_strdup(refset_platform_name(s, k));
  const gboolean iv = fitted_spread != NULL; /* the intervals, their coverage and the transfer factors */
  double tau_all;
  for (int k = 0; k < r->n_platforms; k++) r->factor_ln[k] = r->factor_se[k] = NAN;
  if (iv && !fit_transfer_tau(s, fitted, NULL, &tau_all, r->factor_ln, r->factor_se, error)) return NULL;
  for (int i = 0; i < n; i++) {
    r->group[i] = refset_group(s, i);
    if (!refset_eval(s, i, fitted, &r->in_fit[i], error)) return NULL;
    if (iv && !refset_interval(s, i, fitted, (const double(*)[COEFFS_N_FITTED])fs.cov_x, fs.tau_cpu_costs, fs.sigma_gbps,
                               r->level, &r->in_fit[i], error))
      return NULL;
  }
  Coeffs c0;
  coeffs_prior(&c0);
  g_autofree gboolean *out = g_new0(gboolean, MAX(n, 1));
  double cov[COEFFS_N_FITTED][COEFFS_N_FITTED], tau = 0, sigma = 0;
  if (loo) {
    r->loo = g_new0(AppRefRow, n);
    for (int i = 0; i < n; i++) {
      if (r->group[i] != i) continue; /* a group is left out with its first result */
      Coeffs ci = c0;
      if (!fit_refset(s, &ci, i, NULL, error)) return NULL;
      fit_last_covariance(s, cov);
      for (int j = 0; j < n; j++) out[j] = r->group[j] == i;
      if (iv && (!fit_transfer_tau(s, &ci, out, &tau, NULL, NULL, error) || !fit_model_sigma(s, &ci, out, &sigma, error)))
        return NULL;
      for (int j = 0; j < n; j++)
        if (r->group[j] == i &&
            (!refset_eval(s, j, &ci, &r->loo[j], error) ||
             (iv && !refset_interval(s, j, &ci, (const double(*)[COEFFS_N_FITTED])cov, tau, sigma, r->level, &r->loo[j], error))))
          return NULL;
    }
  }
  if (lopo) {
    r->lopo = g_new0(AppRefRow, n);
    r->lopo_coeffs = g_new(Coeffs, r->n_platforms);
    for (int k = 0; k < r->n_platforms; k++) {
      r->lopo_coeffs[k] = c0;
      if (!fit_refset_without_platform(s, &r->lopo_coeffs[k], r->platforms[k], NULL, error)) return NULL;
      fit_last_covariance(s, cov);
      for (int j = 0; j < n; j++) out[j] = strcmp(refset_platform(s, j), r->platforms[k]) == 0;
      if (iv && (!fit_transfer_tau(s, &r->lopo_coeffs[k], out, &tau, NULL, NULL, error) ||
                 !fit_model_sigma(s, &r->lopo_coeffs[k], out, &sigma, error)))
        return NULL;
      for (int j = 0; j < n; j++)
        if (out[j] && (!refset_eval(s, j, &r->lopo_coeffs[k], &r->lopo[j], error) ||
                       (iv && !refset_interval(s, j, &r->lopo_coeffs[k], (const double(*)[COEFFS_N_FITTED])cov, tau, sigma,
                                               r->level, &r->lopo[j], error))))
          return NULL;
    }
  }
  return g_steal_pointer(&r);
}

/* ---- the Jacobian of identifiability --------------------------------------------------------- */

/* Central-difference step of the identifiability Jacobian in fit space (0.1 % of a coefficient):
 * wide against rounding, narrow against the kinks of the min over resources. */
#define IDENT_STEP 1e-3

AppFitIdent *fit_identify(AppRefSet *s, const Coeffs *c, GError **error)
{
  const int p = COEFFS_N_FITTED, n = n_residuals(s), n_items = (int)s->items->len;
  FitCtx ctx = { .s = s, .base = *c };
  g_autoptr(gsl_vector) x = gsl_vector_alloc((size_t)p), fp = gsl_vector_alloc((size_t)n), fm = gsl_vector_alloc((size_t)n);
  for (int j = 0; j < p; j++) {
    gsl_vector_set(x, (size_t)j, x_of_coef(j, *coeffs_fitted_ptr(&ctx.base, j)));
    ctx.x0[j] = gsl_vector_get(x, (size_t)j);
  }
  g_autoptr(AppFitIdent) id = g_new0(AppFitIdent, 1);
  /* the data rows: each published figure, each STREAM figure. Not the bottleneck term: it is a
   * penalty that is zero while the published kind is named and jumps when the naming flips (the
   * fit over every result sits on that edge for rome2021_sw_nps4), a constraint that holds the fit
   * at the boundary and carries no measurement of a coefficient; its finite difference across the
   * jump would read as information. */
  g_autoptr(GArray) rows = g_array_new(FALSE, FALSE, sizeof(int)); /* residual index */
  for (int i = 0; i < n_items; i++) {
    const RefItem *it = s->items->pdata[i];
    for (int f = 0; f < N_RES_PER_ITEM; f++) {
      if (!refset_has_figure(&it->info.ref, f) || f == FIG_BOTTLENECK) continue;
      int k = i * N_RES_PER_ITEM + f;
      g_array_append_val(rows, k);
    }
  }
  for (int k = 0; k < REFSET_N_STREAM; k++) {
    int r = n_items * N_RES_PER_ITEM + k;
    g_array_append_val(rows, r);
  }
  id->n_rows = (int)rows->len;
  id->row_id = g_new0(char *, id->n_rows + 1);
  id->row_platform = g_new0(char *, id->n_rows + 1);
  id->row_figure = g_new0(const char *, id->n_rows);
  for (int r = 0; r < id->n_rows; r++) {
    int k = g_array_index(rows, int, r);
    if (k < n_items * N_RES_PER_ITEM) {
      const RefItem *it = s->items->pdata[k / N_RES_PER_ITEM];
      id->row_id[r] = g_strdup(it->info.ref.id);
      id->row_platform[r] = g_strdup(it->platform);
      id->row_figure[r] = FIG_NAMES[k % N_RES_PER_ITEM];
    } else {
      int q = k - n_items * N_RES_PER_ITEM;
      id->row_id[r] = g_strdup_printf("stream:%s:NPS%d", s->stream_platform[q], REFSET_STREAM_REFS[q].nps);
      id->row_platform[r] = g_strdup(s->stream_platform[q]);
      id->row_figure[r] = "stream_GBps";
    }
  }
  id->jac = g_new0(double, (size_t)id->n_rows *p);
  for (int j = 0; j < p; j++) {
    double xj = gsl_vector_get(x, (size_t)j);
    gsl_vector_set(x, (size_t)j, xj + IDENT_STEP);
    int st = residuals(x, &ctx, fp);
    gsl_vector_set(x, (size_t)j, xj - IDENT_STEP);
    if (st == GSL_SUCCESS) st = residuals(x, &ctx, fm);
    gsl_vector_set(x, (size_t)j, xj);
    if (st != GSL_SUCCESS) {
      g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "identifiability: a result cannot be evaluated near %s = %g",
                  coeffs_fitted_name(j), coef_of_x(j, xj));
      return NULL;
    }
    for (int r = 0; r < id->n_rows; r++) {
      size_t k = (size_t)g_array_index(rows, int, r);
      id->jac[(size_t)r * p + j] = (gsl_vector_get(fp, k) - gsl_vector_get(fm, k)) / (2 * IDENT_STEP);
    }
  }
  id->n_platforms = (int)s->platforms->len;
  id->platforms = g_new0(char *, id->n_platforms + 1);
  for (int k = 0; k < id->n_platforms; k++) id->platforms[k] = g_strdup(s->platforms->pdata[k]);
  if (!ident_solve(id, error)) return NULL;
  for (int j = 0; j < p; j++) {
    double v = *coeffs_fitted_ptr(&ctx.base, j);
    id->value[j] = v;
    id->se[j] = id->se_x[j] * (is_eff(j) ? v * (1 - v) : v); /* delta method: dv/dx */
  }
  return g_steal_pointer(&id);
}
