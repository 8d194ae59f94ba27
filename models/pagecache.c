/* pagecache.c — Che's approximation of the LRU hit ratio under Zipf (see pagecache.h). */
#include "models/pagecache.h"
#include "sim/dist.h"
#include "sim/gsl_autoptr.h"
#include "sim/roots.h"
#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include <math.h>

typedef struct {
  const double *p;
  int n;
  double c;
} CheCtx;

/* Expected titles in the cache at characteristic time t, minus its size. */
static double occupancy_minus_c(double t, void *arg)
{
  const CheCtx *x = arg;
  double s = 0;
  for (int i = 0; i < x->n; i++) s += -expm1(-x->p[i] * t);
  return s - x->c;
}

double pagecache_che_hit_ratio(int titles, double zipf_s, double cache_titles, double *t_c)
{
  g_return_val_if_fail(titles >= 1 && zipf_s >= 0, 0.0);
  if (t_c) *t_c = cache_titles <= 0 ? 0 : INFINITY;
  if (cache_titles <= 0) return 0.0;
  if (cache_titles >= titles) return 1.0;
  g_autofree double *p = g_new(double, titles);
  double h = sim_zipf_harmonic((size_t)titles, zipf_s);
  for (int i = 0; i < titles; i++) p[i] = sim_zipf_weight((size_t)i + 1, zipf_s) / h;
  CheCtx ctx = { p, titles, cache_titles };
  /* the occupancy rises from 0 at t = 0 to N as t grows: widen until it passes C */
  double hi = cache_titles;
  while (occupancy_minus_c(hi, &ctx) < 0 && hi < 1e300) hi *= 2;
  gsl_function F = { .function = occupancy_minus_c, .params = &ctx };
  g_autoptr(gsl_root_fsolver) s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
  gsl_root_fsolver_set(s, &F, 0.0, hi);
  sim_root_iterate(s, 0.0, 1e-12, 200, NULL);
  double t = gsl_root_fsolver_root(s);
  if (t_c) *t_c = t;
  double hit = 0;
  for (int i = 0; i < titles; i++) hit += p[i] * -expm1(-p[i] * t);
  return hit;
}
