/* sim/dist.c — sampling, moments and checks for SimDist (formulas in dist.h). */
#include "sim/dist.h"

#include <math.h>
#include <gsl/gsl_randist.h>

const char *const sim_dist_kind_names[] = { "deterministic", "exponential", "erlang", "lognormal", "pareto", "uniform", NULL };

#define SIM_DIST_ERROR g_quark_from_static_string("sim-dist-error")

/* Validation limits of the shape parameters: far beyond any workload we model (an Erlang k or
 * Pareto alpha of 1000 is deterministic for every purpose; a CV of 100 is extreme). Assumed. */
#define SIM_DIST_MAX_ERLANG_K     1000
#define SIM_DIST_MAX_LOGNORMAL_CV 100
#define SIM_DIST_MAX_PARETO_ALPHA 1000
/* Largest Zipf table (ranks; 2^28 doubles = 2 GiB) and exponent. Assumed. */
#define SIM_ZIPF_MAX_RANKS ((size_t)1 << 28)
#define SIM_ZIPF_MAX_S     100

gboolean sim_dist_validate(const SimDist *d, GError **error)
{
  if (!(d->mean > 0) || !isfinite(d->mean)) {
    g_set_error(error, SIM_DIST_ERROR, 1, "mean must be a positive finite number");
    return FALSE;
  }
  switch (d->kind) {
    case SIM_DIST_DETERMINISTIC:
    case SIM_DIST_EXPONENTIAL: return TRUE;
    case SIM_DIST_ERLANG:
      if (d->shape < 1 || d->shape != floor(d->shape) || d->shape > SIM_DIST_MAX_ERLANG_K) {
        g_set_error(error, SIM_DIST_ERROR, 1, "erlang needs an integer k in 1..%d", SIM_DIST_MAX_ERLANG_K);
        return FALSE;
      }
      return TRUE;
    case SIM_DIST_LOGNORMAL:
      if (!(d->shape > 0) || d->shape > SIM_DIST_MAX_LOGNORMAL_CV) {
        g_set_error(error, SIM_DIST_ERROR, 1, "lognormal needs a cv in (0, %d]", SIM_DIST_MAX_LOGNORMAL_CV);
        return FALSE;
      }
      return TRUE;
    case SIM_DIST_PARETO:
      if (!(d->shape > 1) || d->shape > SIM_DIST_MAX_PARETO_ALPHA) {
        g_set_error(error, SIM_DIST_ERROR, 1, "pareto needs an alpha in (1, %d] (finite mean)", SIM_DIST_MAX_PARETO_ALPHA);
        return FALSE;
      }
      return TRUE;
    case SIM_DIST_UNIFORM:
      if (d->shape < 0 || d->shape > 1 / sqrt(3.0)) {
        g_set_error(error, SIM_DIST_ERROR, 1, "uniform needs a cv in [0, 0.577] (non-negative support)");
        return FALSE;
      }
      return TRUE;
  }
  g_set_error(error, SIM_DIST_ERROR, 1, "unknown distribution");
  return FALSE;
}

/* zeta and sigma of gsl_ran_lognormal for the lognormal of mean d->mean and cv d->shape. */
static void lognormal_params(const SimDist *d, double *zeta, double *sigma)
{
  double s2 = log1p(d->shape * d->shape);
  *zeta = log(d->mean) - s2 / 2;
  *sigma = sqrt(s2);
}

double sim_dist_sample(const SimDist *d, gsl_rng *rng)
{
  switch (d->kind) {
    case SIM_DIST_DETERMINISTIC: return d->mean;
    case SIM_DIST_EXPONENTIAL: return gsl_ran_exponential(rng, d->mean);
    case SIM_DIST_ERLANG: return gsl_ran_gamma(rng, d->shape, d->mean / d->shape);
    case SIM_DIST_LOGNORMAL: {
      double zeta, sigma;
      lognormal_params(d, &zeta, &sigma);
      return gsl_ran_lognormal(rng, zeta, sigma);
    }
    case SIM_DIST_PARETO: return gsl_ran_pareto(rng, d->shape, d->mean * (d->shape - 1) / d->shape);
    case SIM_DIST_UNIFORM: {
      double h = sqrt(3.0) * d->shape * d->mean;
      return gsl_ran_flat(rng, d->mean - h, d->mean + h);
    }
  }
  g_assert_not_reached();
}

void sim_dist_sampler_init(SimDistSampler *s, const SimDist *d)
{
  s->d = *d;
  s->zeta = s->sigma = 0;
  if (d->kind == SIM_DIST_LOGNORMAL) lognormal_params(d, &s->zeta, &s->sigma);
}

double sim_dist_sampler_draw(const SimDistSampler *s, gsl_rng *rng)
{
  if (s->d.kind == SIM_DIST_LOGNORMAL) return gsl_ran_lognormal(rng, s->zeta, s->sigma);
  return sim_dist_sample(&s->d, rng);
}

double sim_dist_scv(const SimDist *d)
{
  switch (d->kind) {
    case SIM_DIST_DETERMINISTIC: return 0;
    case SIM_DIST_EXPONENTIAL: return 1;
    case SIM_DIST_ERLANG: return 1 / d->shape;
    case SIM_DIST_LOGNORMAL:
    case SIM_DIST_UNIFORM: return d->shape * d->shape;
    case SIM_DIST_PARETO: return d->shape > 2 ? 1 / (d->shape * (d->shape - 2)) : INFINITY;
  }
  g_assert_not_reached();
}

double sim_zipf_weight(size_t r, double s)
{
  return pow((double)r, -s);
}

double sim_zipf_harmonic(size_t n, double s)
{
  double h = 0;
  for (size_t r = 1; r <= n; r++) h += sim_zipf_weight(r, s);
  return h;
}

struct SimZipf {
  size_t n;
  double h; /* generalised harmonic number H(n, s) */
  double s;
  gsl_ran_discrete_t *table;
};

SimZipf *sim_zipf_new(size_t n, double s, GError **error)
{
  if (n < 1 || n > SIM_ZIPF_MAX_RANKS || !(s >= 0) || s > SIM_ZIPF_MAX_S) {
    g_set_error(error, SIM_DIST_ERROR, 1, "zipf needs 1..2^28 ranks and an exponent in [0, 100]");
    return NULL;
  }
  double *p = g_new(double, n);
  double h = 0;
  for (size_t r = 1; r <= n; r++) h += p[r - 1] = sim_zipf_weight(r, s); /* = sim_zipf_harmonic(n, s) */
  SimZipf *z = g_new0(SimZipf, 1);
  z->n = n;
  z->h = h;
  z->s = s;
  z->table = gsl_ran_discrete_preproc(n, p);
  g_free(p);
  if (!z->table) {
    g_free(z);
    g_set_error(error, SIM_DIST_ERROR, 1, "zipf: GSL could not build the alias table");
    return NULL;
  }
  return z;
}

void sim_zipf_free(SimZipf *z)
{
  if (!z) return;
  gsl_ran_discrete_free(z->table);
  g_free(z);
}

size_t sim_zipf_sample(const SimZipf *z, gsl_rng *rng)
{
  return gsl_ran_discrete(rng, z->table) + 1;
}

double sim_zipf_pmf(const SimZipf *z, size_t r)
{
  g_return_val_if_fail(r >= 1 && r <= z->n, 0);
  return sim_zipf_weight(r, z->s) / z->h;
}
