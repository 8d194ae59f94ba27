/* appliance_bound.c — bottleneck law, drops and latency approximation (see
 * appliance_bound.h for the equations). */
#include "models/appliance_bound.h"
#include "models/appliance_des.h"
#include "sim/gsl_autoptr.h"
#include "sim/roots.h"
#include <float.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <math.h>
#include <string.h>

/* Buckets of the number of other requests a request finds at its resource: bucket j holds
 * n in [n_j, n_{j+1}) with n_{j+1} = max(n_j + 1, ceil(LAT_BUCKET_GROWTH n_j)), at the bucket's
 * conditional mean n. The PS time is linear in n, so every bucket keeps its mean exactly; only
 * the spread inside a bucket (at most a 1.1 ratio of n) is lost (assumed: far below the 25 %
 * tolerance the DES comparison holds, tests/test_appliance_bound.c). */
#define LAT_BUCKET_GROWTH 1.1
/* Geometric tail mass left out of the buckets: far below the 1 % above p99. */
#define LAT_TAIL 1e-9
/* Halvings of the latency-quantile bracket: far more than a double needs (about 60 leave
 * adjacent doubles), so the result is the bracket's fixed point. */
#define LAT_QUANTILE_HALVINGS 200

/* Cumulative distribution of the request size @d (workload_request_size_dist: fixed,
 * exponential or lognormal of mean d->mean) at x bytes. */
static double size_cdf(const SimDist *d, double x)
{
  if (!(x > 0)) return 0;
  switch (d->kind) {
    case SIM_DIST_DETERMINISTIC: return x >= d->mean ? 1.0 : 0.0;
    case SIM_DIST_EXPONENTIAL: return gsl_cdf_exponential_P(x, d->mean);
    case SIM_DIST_LOGNORMAL: {
      double s2 = log1p(d->shape * d->shape);
      return gsl_cdf_lognormal_P(x, log(d->mean) - 0.5 * s2, sqrt(s2));
    }
    default: g_assert_not_reached();
  }
}

/* The size @d exceeds with probability @tail, bytes. */
static double size_upper(const SimDist *d, double tail)
{
  switch (d->kind) {
    case SIM_DIST_DETERMINISTIC: return d->mean;
    case SIM_DIST_EXPONENTIAL: return gsl_cdf_exponential_Qinv(tail, d->mean);
    case SIM_DIST_LOGNORMAL: {
      double s2 = log1p(d->shape * d->shape);
      return gsl_cdf_lognormal_Qinv(tail, log(d->mean) - 0.5 * s2, sqrt(s2));
    }
    default: g_assert_not_reached();
  }
}

double bound_ps_time(double rho, double n)
{
  g_return_val_if_fail(rho >= 0 && rho < 1 && n >= 0, NAN);
  double z = 1.0 - rho;
  return 1.0 / z + ((1.0 + n) * z - 1.0) * -expm1(-z) / (z * z);
}

/* One class's latency (or several alike, merged): a request of S bytes takes lat_s + S y_j with
 * probability p_j (j < n). */
typedef struct {
  double w;     /* share of requests */
  double lat_s; /* drive read latency, s */
  int first, n; /* its atoms in LatCtx.y / .p */
} LatClass;

typedef struct {
  const SimDist *size;
  GArray *cls; /* LatClass */
  GArray *y;   /* double: time per byte, s/B */
  GArray *p;   /* double: probability */
  double q;    /* quantile sought, 0..1 */
} LatCtx;

/* The latency CDF of @x at t seconds. */
static double lat_cdf(const LatCtx *x, double t)
{
  double F = 0;
  for (guint c = 0; c < x->cls->len; c++) {
    const LatClass *k = &g_array_index(x->cls, LatClass, c);
    double f = 0;
    for (int j = k->first; j < k->first + k->n; j++)
      f += g_array_index(x->p, double, j) * size_cdf(x->size, (t - k->lat_s) / g_array_index(x->y, double, j));
    F += k->w * f;
  }
  return F;
}

/* Latency CDF at t seconds minus the quantile. A CDF that rounds to q exactly counts as above it
 * (DBL_MIN, never 0): the quantile is inf{t : F(t) >= q}, the lower end of the run of t where
 * F(t) == q in doubles, rather than wherever on that run the bisection would first land and stop. */
static double quantile_gap(double t, void *p)
{
  const LatCtx *x = p;
  double g = lat_cdf(x, t) - x->q;
  return g != 0.0 ? g : DBL_MIN;
}

/* Byte rate of resource @r for a request of class @k alone on it, B/s (INFINITY: unused). */
static double solo_rate(const DemandModel *m, const DmClass *k, int r)
{
  double cap = m->res[r].capacity * m->res[r].limit;
  return k->demand[r] > 0 && cap > 0 ? cap / k->demand[r] : INFINITY;
}

/* Mean time per byte of class @k when every resource r keeps the spare share s[r] of its
 * capacity: the PS time at its most constraining resource, max_r d_kr / (C_r l_r s_r), s/B. */
static double class_time_per_byte(const DemandModel *m, const DmClass *k, const double *s, int *arg)
{
  double y = 0;
  if (arg) *arg = -1;
  for (int r = 0; r < m->n_res; r++) {
    double c = solo_rate(m, k, r);
    if (!isfinite(c)) continue;
    double t = 1.0 / (c * s[r]);
    if (t > y) {
      y = t;
      if (arg) *arg = r;
    }
  }
  return y;
}

typedef struct {
  const Appliance *a;
  const DemandModel *m;
  const double *free; /* [n_res] 1 - rho_r at X* */
  double *s;          /* [n_res] scratch: max(free, eps) */
  double target_s;    /* N E[S] / X*: the mean latency Little's law gives N slots, s */
} SatCtx;

/* Mean latency with the spare share of every resource floored at @eps, minus Little's N / lambda. */
static double sat_gap(double eps, void *p)
{
  SatCtx *x = p;
  for (int r = 0; r < x->m->n_res; r++) x->s[r] = MAX(x->free[r], eps);
  double T = 0;
  for (int c = 0; c < x->m->n_class; c++) {
    const DmClass *k = &x->m->cls[c];
    if (!(k->weight > 0)) continue;
    T += k->weight * (x->a->drives[k->drive].latency_ns * 1e-9 + x->a->wl.request_bytes * class_time_per_byte(x->m, k, x->s, NULL));
  }
  return T - x->target_s;
}

double bound_slot_share(const Appliance *a, const DemandModel *m, double sat_Bps)
{
  g_autofree double *free = g_new0(double, m->n_res);
  g_autofree double *s = g_new0(double, m->n_res);
  for (int r = 0; r < m->n_res; r++) {
    const DmResource *res = &m->res[r];
    double cap = res->capacity * res->limit;
    free[r] = cap > 0 ? MAX(0.0, 1.0 - sat_Bps * demand_total_at(m, r, sat_Bps) / cap) : 1.0;
  }
  SatCtx x = { a, m, free, s, appliance_des_slots(a) * a->wl.request_bytes / sat_Bps };
  if (sat_gap(1.0, &x) >= 0) return 1.0; /* the slots hold no more than requests alone: no sharing */
  if (sat_gap(0.0, &x) <= 0) return 0.0; /* nothing saturates: the slots never fill */
  gsl_function F = { .function = sat_gap, .params = &x };
  g_autoptr(gsl_root_fsolver) rs = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
  /* the floor's lower end: 1e-12 of a resource's capacity, finite where 0 (a saturated
   * resource) would make the mean latency infinite */
  if (gsl_root_fsolver_set(rs, &F, 1e-12, 1.0) != GSL_SUCCESS) return 1e-12;
  sim_root_iterate(rs, 0.0, 1e-12, 200, NULL);
  return gsl_root_fsolver_root(rs);
}

/* Appends class @k's atoms (time per byte, probability) to @x for spare shares @s: one atom when
 * @closed (the slots full: every request finds the same company), else the buckets of the
 * geometric number n of others at its most constraining resource (rho' = 1 - s there), each at
 * max(alone, PS time given n). Returns the mean time per byte, s/B. */
static double class_atoms(LatCtx *x, const DemandModel *m, const DmClass *k, const double *s, gboolean closed)
{
  int rs = -1;
  double ymean = class_time_per_byte(m, k, s, &rs), alone = 0;
  for (int r = 0; r < m->n_res; r++) alone = MAX(alone, 1.0 / solo_rate(m, k, r));
  if (closed || rs < 0) {
    double one = 1.0;
    g_array_append_val(x->y, ymean);
    g_array_append_val(x->p, one);
    return ymean;
  }
  double rho = 1.0 - s[rs], c = solo_rate(m, k, rs), sum = 0;
  for (double lo = 0; pow(rho, lo) > LAT_TAIL;) {
    double hi = MAX(lo + 1, ceil(LAT_BUCKET_GROWTH * lo));
    double w = hi - lo, pr = pow(rho, lo) - pow(rho, hi);
    /* the mean of n over [lo, hi) under P(n) ~ rho^n */
    double nbar = rho > 0 ? lo + rho / (1 - rho) - w * pow(rho, w) / (1 - pow(rho, w)) : lo;
    double y = MAX(alone, bound_ps_time(rho, nbar) / c);
    g_array_append_val(x->y, y);
    g_array_append_val(x->p, pr);
    sum += pr * y;
    lo = hi;
    if (!(rho > 0)) break;
  }
  return sum;
}

BoundResult *bound_eval(const Appliance *a, const DemandModel *m, double offered_gbps)
{
  BoundResult *r = g_new0(BoundResult, 1);
  r->n_res = m->n_res;
  r->util = g_new0(double, m->n_res);
  r->offered_util = g_new0(double, m->n_res);
  r->drop = g_new0(double, m->n_res);
  r->sat_Bps = demand_saturation_Bps(m, &r->bottleneck);
  r->offered_Bps = offered_gbps > 0 ? offered_gbps * 1e9 / 8.0 : G_MAXDOUBLE;
  r->throughput_Bps = MIN(r->offered_Bps, r->sat_Bps);
  double L = offered_gbps > 0 ? r->offered_Bps : r->sat_Bps;
  double busy = 0, cap = 0;
  for (int i = 0; i < m->n_res; i++) {
    const DmResource *res = &m->res[i];
    if (res->capacity <= 0) continue;
    r->util[i] = MIN(1.0, r->throughput_Bps * demand_total_at(m, i, r->throughput_Bps) / res->capacity);
    r->offered_util[i] = L * demand_total_at(m, i, L) / res->capacity;
    /* the port's queue sees the load it carries: above saturation TCP backs off and the excess
     * is unserved load (offered - X*), not drops */
    if (res->kind == RK_NIC_PORT) r->drop[i] = nic_port_drop_fraction(r->util[i], res->queue_bursts);
    if (res->kind == RK_CPU) {
      busy += r->util[i] * res->capacity;
      cap += res->capacity;
      r->cpu_util_max_node = MAX(r->cpu_util_max_node, r->util[i]);
    }
  }
  r->cpu_util = cap > 0 ? busy / cap : 0;
  r->connections = workload_connections(&a->wl, r->throughput_Bps);

  /* latency per class (appliance_bound.h) */
  SimDist size = workload_request_size_dist(&a->wl);
  gboolean closed = !(offered_gbps > 0) || r->offered_Bps >= r->sat_Bps;
  double eps = bound_slot_share(a, m, r->sat_Bps);
  g_autofree double *sp = g_new0(double, m->n_res);
  for (int i = 0; i < m->n_res; i++) sp[i] = MAX(1.0 - (m->res[i].limit > 0 ? r->util[i] / m->res[i].limit : 0), eps);
  LatCtx ctx = { &size, g_array_new(FALSE, FALSE, sizeof(LatClass)), g_array_new(FALSE, FALSE, sizeof(double)),
                 g_array_new(FALSE, FALSE, sizeof(double)), 0 };
  double mean = 0, tmax = 0, s_hi = size_upper(&size, LAT_TAIL);
  for (int c = 0; c < m->n_class; c++) {
    const DmClass *k = &m->cls[c];
    if (!(k->weight > 0)) continue;
    LatClass lc = { k->weight, a->drives[k->drive].latency_ns * 1e-9, (int)ctx.y->len, 0 };
    mean += k->weight * (lc.lat_s + a->wl.request_bytes * class_atoms(&ctx, m, k, sp, closed));
    lc.n = (int)ctx.y->len - lc.first;
    /* a class alike an earlier one (same latency and atoms) merges into it */
    gboolean merged = FALSE;
    for (guint u = 0; u < ctx.cls->len && !merged; u++) {
      LatClass *o = &g_array_index(ctx.cls, LatClass, u);
      merged = o->lat_s == lc.lat_s && o->n == lc.n &&
               !memcmp(&g_array_index(ctx.y, double, o->first), &g_array_index(ctx.y, double, lc.first), lc.n * sizeof(double)) &&
               !memcmp(&g_array_index(ctx.p, double, o->first), &g_array_index(ctx.p, double, lc.first), lc.n * sizeof(double));
      if (merged) o->w += lc.w;
    }
    if (merged) {
      g_array_set_size(ctx.y, lc.first);
      g_array_set_size(ctx.p, lc.first);
      continue;
    }
    for (int j = lc.first; j < lc.first + lc.n; j++) tmax = MAX(tmax, lc.lat_s + s_hi * g_array_index(ctx.y, double, j));
    g_array_append_val(ctx.cls, lc);
  }
  r->lat_mean_ms = mean * 1e3;
  double qs[2] = { 0.5, 0.99 }, out[2];
  g_autoptr(gsl_root_fsolver) s = gsl_root_fsolver_alloc(gsl_root_fsolver_bisection);
  for (int q = 0; q < 2; q++) {
    ctx.q = qs[q];
    gsl_function F = { .function = quantile_gap, .params = &ctx };
    double hi = 2 * tmax + 1e-9, t = hi; /* the CDF is above 1 - 2e-9 there */
    if (gsl_root_fsolver_set(s, &F, 0.0, hi) == GSL_SUCCESS) {
      /* Tolerance 0: every halving runs, up to the first that leaves the bracket as it was. From
       * there bisection is at a fixed point (the midpoint of adjacent doubles rounds onto an end,
       * whose function value the solver already holds), so the halvings left would change
       * nothing: stopping there gives the same bracket, bit for bit, at a third of the cost. */
      for (int it = 0; it < LAT_QUANTILE_HALVINGS; it++) {
        double lo = gsl_root_fsolver_x_lower(s), up = gsl_root_fsolver_x_upper(s);
        if (gsl_root_fsolver_iterate(s) != GSL_SUCCESS) break;
        if (gsl_root_fsolver_x_lower(s) == lo && gsl_root_fsolver_x_upper(s) == up) break;
      }
      t = 0.5 * (gsl_root_fsolver_x_lower(s) + gsl_root_fsolver_x_upper(s));
    }
    out[q] = t * 1e3;
  }
  g_array_free(ctx.cls, TRUE);
  g_array_free(ctx.y, TRUE);
  g_array_free(ctx.p, TRUE);
  r->lat_p50_ms = out[0];
  r->lat_p99_ms = out[1];
  return r;
}

void bound_result_free(BoundResult *r)
{
  if (!r) return;
  g_free(r->util);
  g_free(r->offered_util);
  g_free(r->drop);
  g_free(r);
}
