/* sim/dist.h — random variates for service times, sizes and inter-arrival times.
 *
 * What it models: a SimDist, a family and its parameters through the mean (SCV = Var/mean^2):
 *   deterministic  X = mean                                 SCV 0
 *   exponential    gsl_ran_exponential(mean)                SCV 1
 *   erlang(k)      gsl_ran_gamma(k, mean/k)                 SCV 1/k
 *   lognormal(cv)  sigma^2 = ln(1+cv^2), zeta = ln(mean) - sigma^2/2   SCV cv^2
 *   pareto(alpha)  xm = mean (alpha-1)/alpha, alpha > 1     SCV 1/(alpha(alpha-2)) for alpha > 2
 *   uniform(cv)    on mean*(1 -+ sqrt(3) cv), cv <= 1/sqrt(3) SCV cv^2
 * Leaves out: empirical and mixture distributions.
 * Evidence and history: docs/model/dist.md.
 */
#ifndef SIM_DIST_H
#define SIM_DIST_H

#include <stdbool.h>
#include <glib.h>
#include <gsl/gsl_rng.h>

typedef enum {
  SIM_DIST_DETERMINISTIC,
  SIM_DIST_EXPONENTIAL,
  SIM_DIST_ERLANG,
  SIM_DIST_LOGNORMAL,
  SIM_DIST_PARETO,
  SIM_DIST_UNIFORM,
} SimDistKind;

/* Names as written in scenarios, indexed by SimDistKind, NULL-terminated. */
extern const char *const sim_dist_kind_names[];

typedef struct {
  SimDistKind kind;
  double mean;  /* > 0, in the caller's unit */
  double shape; /* erlang: k (integer >= 1); lognormal, uniform: cv; pareto: alpha (> 1) */
} SimDist;

/* Checks the parameters; on error returns FALSE with a one-line message in @error. */
gboolean sim_dist_validate(const SimDist *d, GError **error);

/* Draws one variate from @d using @rng. */
double sim_dist_sample(const SimDist *d, gsl_rng *rng);

/* @d with the parameters of its draws worked out once (lognormal: zeta and
 * sigma, two logarithms and a square root per draw otherwise), for a caller
 * that draws from the same distribution many times. */
typedef struct {
  SimDist d;    /* the distribution */
  double zeta;  /* lognormal: ln(mean) - sigma^2/2 (unused otherwise) */
  double sigma; /* lognormal: sqrt(ln(1 + cv^2)) (unused otherwise) */
} SimDistSampler;

/* Prepares @s to draw from @d (a valid distribution, sim_dist_validate). */
void sim_dist_sampler_init(SimDistSampler *s, const SimDist *d);

/* Draws one variate: the same value, bit for bit, and the same use of @rng
 * as sim_dist_sample(&s->d, rng). */
double sim_dist_sampler_draw(const SimDistSampler *s, gsl_rng *rng);

/* The mean of @d. */
static inline double sim_dist_mean(const SimDist *d)
{
  return d->mean;
}

/* The squared coefficient of variation of @d (infinite for pareto alpha <= 2). */
double sim_dist_scv(const SimDist *d);

/* Zipf popularity over ranks 1..n: P(r) = r^-s / H(n, s), drawn in O(1) with
 *  GSL's Walker alias table (gsl_ran_discrete). The one Zipf of ocasim: the
 *  appliance workload's title popularity (models/appliance/workload.c) uses the same weight
 *  and normaliser. */
typedef struct SimZipf SimZipf;

/* The unnormalised Zipf weight of rank @r >= 1 under exponent @s: r^-s. */
double sim_zipf_weight(size_t r, double s);

/* The generalised harmonic number H(@n, @s) = sum of r^-s over r = 1..n, summed from
 *  rank 1 up (every user sums in this order, so the normalisation is bit-identical). */
double sim_zipf_harmonic(size_t n, double s);

/* Builds the table for @n >= 1 ranks and exponent @s >= 0 (0 = uniform).
 *  Returns NULL with @error set on bad parameters. */
SimZipf *sim_zipf_new(size_t n, double s, GError **error);
/* Frees a table of sim_zipf_new (NULL is allowed). */
void sim_zipf_free(SimZipf *z);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SimZipf, sim_zipf_free)

/* Draws a rank in 1..n. */
size_t sim_zipf_sample(const SimZipf *z, gsl_rng *rng);

/* P(rank = @r), r in 1..n. */
double sim_zipf_pmf(const SimZipf *z, size_t r);

#endif /* SIM_DIST_H */
