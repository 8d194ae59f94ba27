/* validate/fit.c — weighted nonlinear least squares for the host profile.
 *
 * Residuals: for each measured configuration, (model - measured) / sd of the
 * server cycles/B, client cycles/B, softirq cycles/B and Gb/s (sd from the
 * repetition spread, with a floor chosen by the caller); for each prior,
 * (p - value) / sd (a lower bound: only below value).  The model is val_predict_host; the throughput term is
 * nonlinear (1/cycles and a min over bottlenecks), so the Jacobian is taken by
 * GSL's forward differences.  Solver: gsl_multifit_nlinear trust region with
 * Levenberg-Marquardt steps, geodesic acceleration off, xtol = gtol = 1e-10.
 * Parameter covariance = (J^T J)^-1 at the solution, scaled by chi2/dof when the
 * fit is worse than the stated errors.
 *
 * A parameter with a physical range (val_param_range: utilisation, a fraction of a core in
 * (0, 1], which the appliance loader enforces) is fitted in an internal coordinate x with
 * p = lo + (hi - lo) s(x), s the logistic function, so no step of the solver leaves the range
 * and the written profile always loads. A cost, [0, inf), is fitted in x with
 * p = lo - 1 + sqrt(x^2 + 1) (MINUIT's transformation for a parameter with a lower limit only,
 * F. James, MINUIT Reference Manual, CERN D506, "Parameter limits"; Minuit2's
 * SqrtLowParameterTransformation): p >= lo at every step, so a cost the runs cannot tell from a
 * collinear one (stack_cpb from the cross-core sender term) ends at 0, flagged at_bound, instead
 * of slightly negative (it came out at -0.01 cycles/B with the soft bound alone), and no
 * negative cost reaches host-costs.yaml.  When the runs ask for a value outside the range
 * (e.g. a throughput above clock x cores / measured cycles per byte: a clock above the nominal
 * one), p ends on the edge and the parameter is flagged at_bound; its standard error is the
 * delta-method one, se(x) dp/dx, which goes to 0 there (for a cost too: dp/dx = x / sqrt(x^2 + 1)).
 */
#include "validate/fit.h"

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <string.h>

#include "sim/gsl_autoptr.h"
#include "serve/util.h"

typedef struct {
  const ValFitObs *obs;
  int nobs;
  const ValFitPrior *pri;
  int npri;
  ValHostProfile base;
  int free_idx[VAL_P_COUNT];
  int nfree;
  gboolean bounded[VAL_P_COUNT]; /* by position in free_idx: fitted in the logistic coordinate */
  double lo[VAL_P_COUNT], hi[VAL_P_COUNT];
} FitCtx;

/* |x| of the logistic coordinate is kept below this: s(-36) = 2.3e-16, so p stays strictly
 * above an open lower bound in double precision (and s(36) rounds to at most 1: p <= hi) */
#define FIT_LOGIT_MAX 36.0
/* a start on or outside a range edge starts this far inside it (share of the range; assumed:
 * close enough not to move the fit's start, far enough that ds/dx = 1e-3 lets the solver move) */
#define FIT_START_MARGIN 1e-3
/* a bounded parameter within this share of its range of an edge is reported at_bound (assumed) */
#define FIT_AT_BOUND 1e-4
/* a cost starting at or below its lower limit starts this far above it, in its own unit
 * (assumed: 0.01 cycles/B, a hundredth of a copy's cost; x = 0.14 there, where dp/dx = 0.14 lets
 * the solver move, whereas at the limit itself dp/dx = 0 would hold it) */
#define FIT_START_ABOVE_LOW 1e-2
/* a cost whose internal coordinate is within this of 0 (dp/dx below it: p within 5e-5 of its
 * limit) is reported at_bound (assumed) */
#define FIT_AT_LOW 1e-2
/* The probe that finds which parameters move any residual: a step of 1e-3 of the value, or 1e-6
 * where the value is 0 (below 1e-9), and a residual change above 1e-12 (rounding) marks the
 * parameter free. Assumed. */
#define FIT_PROBE_REL   1e-3
#define FIT_PROBE_ABS   1e-6
#define FIT_PROBE_ZERO  1e-9
#define FIT_PROBE_MOVED 1e-12
/* gsl_multifit_nlinear_driver: iteration cap and the xtol, gtol stopping tolerances (ftol 0:
 * off). Assumed: the fit of a few dozen runs converges well inside them. */
#define FIT_MAX_ITER 500
#define FIT_XTOL     1e-10
#define FIT_GTOL     1e-10

static double logistic(double x)
{
  x = CLAMP(x, -FIT_LOGIT_MAX, FIT_LOGIT_MAX);
  return 1.0 / (1.0 + exp(-x));
}

/* p of internal coordinate @x for free parameter @i (its range's transformation, above). */
static double external(const FitCtx *c, int i, double x)
{
  if (!c->bounded[i]) return x;
  if (isinf(c->hi[i])) return c->lo[i] - 1.0 + sqrt(x * x + 1.0);
  return c->lo[i] + (c->hi[i] - c->lo[i]) * logistic(x);
}

static void unpack(const FitCtx *c, const gsl_vector *x, ValHostProfile *p)
{
  *p = c->base;
  for (int i = 0; i < c->nfree; i++) p->p[c->free_idx[i]] = external(c, i, gsl_vector_get(x, (size_t)i));
}

/* Residual rows are laid out obs-major: 4 per observation, then one per prior;
 * unused observables give 0. */
static int resid_f(const gsl_vector *x, void *data, gsl_vector *f)
{
  const FitCtx *c = data;
  ValHostProfile p;
  unpack(c, x, &p);
  size_t k = 0;
  for (int i = 0; i < c->nobs; i++) {
    const ValFitObs *o = &c->obs[i];
    ValHostPrediction pr;
    val_predict_host(&p, &o->cfg, &pr);
    gsl_vector_set(f, k++, o->sd_server > 0 ? (pr.server_cpb - o->server_cpb) / o->sd_server : 0);
    gsl_vector_set(f, k++, o->sd_client > 0 ? (pr.client_cpb - o->client_cpb) / o->sd_client : 0);
    gsl_vector_set(f, k++, o->sd_softirq > 0 ? (pr.softirq_cpb - o->softirq_cpb) / o->sd_softirq : 0);
    gsl_vector_set(f, k++, o->sd_gbps > 0 ? (pr.gbps - o->gbps) / o->sd_gbps : 0);
  }
  for (int j = 0; j < c->npri; j++) {
    double d = p.p[c->pri[j].param] - c->pri[j].value;
    gsl_vector_set(f, k++, c->pri[j].lower_bound && d > 0 ? 0.0 : d / c->pri[j].sd);
  }
  return GSL_SUCCESS;
}

/* Residuals that carry information: observables with an sd and the priors (bounds are not
 * measurements and do not count). */
static int count_used(const ValFitObs *obs, int nobs, const ValFitPrior *pri, int npri)
{
  int n = 0;
  for (int j = 0; j < npri; j++) n += !pri[j].lower_bound;
  for (int i = 0; i < nobs; i++)
    n += (obs[i].sd_server > 0) + (obs[i].sd_client > 0) + (obs[i].sd_softirq > 0) + (obs[i].sd_gbps > 0);
  return n;
}

gboolean val_fit_host(const ValFitObs *obs, int nobs, const ValFitPrior *priors, int npriors, const ValHostProfile *start,
                      const gboolean fixed[VAL_P_COUNT], ValHostProfile *out, ValFitStats *stats, GError **error)
{
  memset(stats, 0, sizeof *stats);
  FitCtx c = { .obs = obs, .nobs = nobs, .pri = priors, .npri = npriors, .base = *start };
  size_t n = (size_t)(4 * nobs + npriors);
  /* find the parameters some residual depends on (numerical sensitivity at start) */
  {
    FitCtx all = c; /* no parameter bounded: the raw values */
    all.nfree = VAL_P_COUNT;
    for (int i = 0; i < VAL_P_COUNT; i++) all.free_idx[i] = i;
    g_autoptr(gsl_vector) x = gsl_vector_alloc(VAL_P_COUNT);
    g_autoptr(gsl_vector) f0 = gsl_vector_alloc(n);
    g_autoptr(gsl_vector) f1 = gsl_vector_alloc(n);
    for (int i = 0; i < VAL_P_COUNT; i++) gsl_vector_set(x, (size_t)i, start->p[i]);
    resid_f(x, &all, f0);
    for (int i = 0; i < VAL_P_COUNT; i++) {
      if (fixed && fixed[i]) continue;
      double v = start->p[i], h = fabs(v) > FIT_PROBE_ZERO ? FIT_PROBE_REL * fabs(v) : FIT_PROBE_ABS;
      gsl_vector_set(x, (size_t)i, v + h);
      resid_f(x, &all, f1);
      gsl_vector_set(x, (size_t)i, v);
      gsl_vector_sub(f1, f0);
      if (gsl_blas_dnrm2(f1) > FIT_PROBE_MOVED) c.free_idx[c.nfree++] = i;
    }
  }
  int used = count_used(obs, nobs, priors, npriors);
  stats->nobs = used;
  stats->npar = c.nfree;
  if (c.nfree == 0 || used <= c.nfree) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_INVALID, "fit: %d residuals for %d free parameters", used, c.nfree);
    return FALSE;
  }
  gsl_multifit_nlinear_fdf fdf = { .f = resid_f, .df = NULL, .fvv = NULL, .n = n, .p = (size_t)c.nfree, .params = &c };
  gsl_multifit_nlinear_parameters par = gsl_multifit_nlinear_default_parameters();
  par.trs = gsl_multifit_nlinear_trs_lm;
  g_autoptr(gsl_multifit_nlinear_workspace) w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &par, n, (size_t)c.nfree);
  g_autoptr(gsl_vector) x0 = gsl_vector_alloc((size_t)c.nfree);
  for (int i = 0; i < c.nfree; i++) {
    int k = c.free_idx[i];
    double v = start->p[k];
    c.bounded[i] = val_param_range((ValParam)k, &c.lo[i], &c.hi[i]);
    if (c.bounded[i] && isinf(c.hi[i])) { /* the inverse of p = lo - 1 + sqrt(x^2 + 1), x >= 0 */
      double u = MAX(v - c.lo[i], FIT_START_ABOVE_LOW);
      v = sqrt((u + 1.0) * (u + 1.0) - 1.0);
    } else if (c.bounded[i]) { /* the logit of the start's share of the range */
      double u = CLAMP((v - c.lo[i]) / (c.hi[i] - c.lo[i]), FIT_START_MARGIN, 1.0 - FIT_START_MARGIN);
      v = log(u / (1.0 - u));
    }
    gsl_vector_set(x0, (size_t)i, v);
  }
  int info = 0;
  int st = gsl_multifit_nlinear_init(x0, &fdf, w);
  if (st == GSL_SUCCESS) st = gsl_multifit_nlinear_driver(FIT_MAX_ITER, FIT_XTOL, FIT_GTOL, 0.0, NULL, NULL, &info, w);
  stats->gsl_status = st;
  g_strlcpy(stats->message, gsl_strerror(st), sizeof stats->message);
  if (st != GSL_SUCCESS && st != GSL_EMAXITER) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "fit: GSL: %s", gsl_strerror(st));
    return FALSE;
  }
  stats->iterations = (int)gsl_multifit_nlinear_niter(w);
  gsl_vector *fres = gsl_multifit_nlinear_residual(w);
  double chi = gsl_blas_dnrm2(fres);
  stats->chi2 = chi * chi;
  stats->dof = used - c.nfree;
  stats->chi2_dof = stats->chi2 / stats->dof;
  gsl_matrix *J = gsl_multifit_nlinear_jac(w);
  g_autoptr(gsl_matrix) cov = gsl_matrix_alloc((size_t)c.nfree, (size_t)c.nfree);
  gsl_multifit_nlinear_covar(J, 0.0, cov);
  double scale = sqrt(MAX(1.0, stats->chi2_dof));
  const gsl_vector *xs = gsl_multifit_nlinear_position(w);
  unpack(&c, xs, out);
  for (int i = 0; i < VAL_P_COUNT; i++) {
    out->se[i] = 0;
    out->fitted[i] = FALSE;
    out->at_bound[i] = FALSE;
  }
  for (int i = 0; i < c.nfree; i++) {
    int k = c.free_idx[i];
    out->fitted[k] = TRUE;
    double se = scale * sqrt(MAX(0.0, gsl_matrix_get(cov, (size_t)i, (size_t)i)));
    if (c.bounded[i] && isinf(c.hi[i])) { /* delta method: dp/dx = x / sqrt(x^2 + 1) */
      double x = gsl_vector_get(xs, (size_t)i), d = fabs(x) / sqrt(x * x + 1.0);
      se *= d;
      out->at_bound[k] = d < FIT_AT_LOW;
    } else if (c.bounded[i]) { /* delta method: dp/dx = (hi - lo) s (1 - s) */
      double sx = logistic(gsl_vector_get(xs, (size_t)i));
      se *= (c.hi[i] - c.lo[i]) * sx * (1.0 - sx);
      out->at_bound[k] = sx < FIT_AT_BOUND || sx > 1.0 - FIT_AT_BOUND;
    }
    out->se[k] = se;
  }
  return TRUE;
}
