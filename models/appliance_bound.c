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

/* Buckets of the number n of other requests a request finds at a resource below saturation:
 * bucket j holds n in [n_j, n_{j+1}) with n_{j+1} = max(n_j + 1, ceil(LAT_BUCKET_GROWTH n_j)), at
 * the bucket's conditional mean n. The PS time is linear in n, so every bucket keeps its mean
 * exactly; only the spread inside a bucket (n within a ratio of 1.1) is lost. Assumed: far
 * below the tolerances the DES comparison holds (tests/test_appliance_bound.c). */
#define LAT_BUCKET_GROWTH 1.1
/* Buckets of the share of a saturated resource's requests a request finds there (Beta(1, K - 1),
 * appliance_bound.h), of equal width in that share. Assumed, as above. */
#define LAT_SHARE_BUCKETS 256
/* Probability mass left out of a distribution's tail: far below the 1 % above p99. */
#define LAT_TAIL 1e-9
/* Atoms of the latency mixture closer than this ratio of time per byte (and of the same drive
 * latency) merge, at their probability-weighted mean (so the mean is kept): at most a 1 % shift
 * of a quantile. Assumed. */
#define LAT_MERGE_RATIO 1.02
/* Relative tolerance of the floor eps at which the closed estimate's mean meets Little's law
 * (bound_slot_share): far below the estimate's own error. */
#define LAT_LITTLE_REL 1e-9
/* Halvings of the latency-quantile bracket: far more than a double needs (about 60 leave
 * adjacent doubles), so the result is the bracket's fixed point. */
#define LAT_QUANTILE_HALVINGS 200
/* Lower end of the slot-share floor's bracket and the floor's relative tolerance
 * (slot_share_first): 1e-12 of a resource's capacity keeps the mean latency finite where 0
 * (a saturated resource) would make it infinite; far below any figure printed. Assumed. */
#define LAT_FLOOR_MIN 1e-12
#define LAT_FLOOR_REL 1e-12
/* Iteration caps of the Brent solves of the floor and of Little's law: Brent on a bracket of
 * [1e-12, 1] meets a 1e-12 relative tolerance in a few dozen steps. Assumed. */
#define LAT_FLOOR_MAX_ITER  200
#define LAT_LITTLE_MAX_ITER 100
/* K at or below 1 + this is one resource of its kind (resource_atoms): rounding slack. Assumed. */
#define LAT_ONE_RESOURCE_SLACK 1e-12
/* The latency quantiles the estimate reports (p50, p99: the DES's headline quantiles). */
#define LAT_Q_MEDIAN 0.5
#define LAT_Q_TAIL   0.99
/* Added to the quantile bracket's upper end 2 tmax so that it is positive when tmax is 0
 * (seconds). Assumed: far below a nanosecond-resolved latency. */
#define LAT_BRACKET_PAD_S 1e-9

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
  if (!(rho >= 0 && rho < 1 && n >= 0)) return NAN;
  double z = 1.0 - rho;
  return 1.0 / z + ((1.0 + n) * z - 1.0) * -expm1(-z) / (z * z);
}

/* One atom of a latency distribution: lat_s + S y with probability p. */
typedef struct {
  double lat_s; /* drive read latency, s */
  double y;     /* time per byte, s/B */
  double p;     /* probability */
} LatAtom;

typedef struct {
  const SimDist *size;
  GArray *atoms; /* LatAtom, the whole mixture over classes */
  double q;      /* quantile sought, 0..1 */
} LatCtx;

/* The latency CDF of @x at t seconds. */
static double lat_cdf(const LatCtx *x, double t)
{
  double F = 0;
  for (guint j = 0; j < x->atoms->len; j++) {
    const LatAtom *u = &g_array_index(x->atoms, LatAtom, j);
    F += u->p * size_cdf(x->size, (t - u->lat_s) / u->y);
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
static double class_time_per_byte(const DemandModel *m, const DmClass *k, const double *s)
{
  double y = 0;
  for (int r = 0; r < m->n_res; r++) {
    double c = solo_rate(m, k, r);
    if (isfinite(c)) y = MAX(y, 1.0 / (c * s[r]));
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
    T += k->weight * (x->a->drives[k->drive].latency_ns * 1e-9 + x->a->wl.request_bytes * class_time_per_byte(x->m, k, x->s));
  }
  return T - x->target_s;
}

/* Spare shares 1 - rho_r (>= 0) of every resource at throughput @x_Bps, into @free. */
static void free_shares(const DemandModel *m, double x_Bps, double *free)
{
  for (int r = 0; r < m->n_res; r++) {
    const DmResource *res = &m->res[r];
    double cap = res->capacity * res->limit;
    free[r] = cap > 0 ? MAX(0.0, 1.0 - x_Bps * demand_total_at(m, r, x_Bps) / cap) : 1.0;
  }
}

/* The floor eps at which the mean of the largest PS means, sum_k w_k (l_k + E[S] max_r 1 / (c_kr
 * max(free_r, eps))), is @tau seconds: the first estimate, below bound_slot_share's (the largest of
 * the means is at most the mean of the largest). 1 when requests alone fill tau, 0 when nothing
 * saturates. */
static double slot_share_first(const Appliance *a, const DemandModel *m, const double *free, double tau)
{
  g_autofree double *s = g_new0(double, m->n_res);
  SatCtx x = { a, m, free, s, tau };
  if (sat_gap(1.0, &x) >= 0) return 1.0; /* the slots hold no more than requests alone: no sharing */
  if (sat_gap(0.0, &x) <= 0) return 0.0; /* nothing saturates: the slots never fill */
  gsl_function F = { .function = sat_gap, .params = &x };
  g_autoptr(gsl_root_fsolver) rs = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
  /* the floor's lower end: 1e-12 of a resource's capacity, finite where 0 (a saturated
   * resource) would make the mean latency infinite */
  if (gsl_root_fsolver_set(rs, &F, LAT_FLOOR_MIN, 1.0) != GSL_SUCCESS) return LAT_FLOOR_MIN;
  sim_root_iterate(rs, 0.0, LAT_FLOOR_REL, LAT_FLOOR_MAX_ITER, NULL);
  return gsl_root_fsolver_root(rs);
}

/* Appends to @out the atoms (y: time per byte, p) of one resource of byte rate @c for the
 * request alone and spare share @s: when @saturated (the slots full, s the floor eps) the
 * request finds the share u ~ Beta(1, K - 1) of the K m requests of K such resources, m = 1 / s - 1
 * (y = (u K m + 1) / c: frozen company); else the geometric number n of others of a PS queue at
 * rho = 1 - s (y = bound_ps_time(rho, n) / c). */
static void resource_atoms(GArray *out, double c, double s, double K, gboolean saturated)
{
  if (saturated) {
    double Km = K * (1.0 / s - 1.0);
    if (K <= 1.0 + LAT_ONE_RESOURCE_SLACK) {
      LatAtom a = { 0, (Km + 1.0) / c, 1.0 };
      g_array_append_val(out, a);
      return;
    }
    for (int j = 0; j < LAT_SHARE_BUCKETS; j++) {
      double u0 = (double)j / LAT_SHARE_BUCKETS, u1 = (double)(j + 1) / LAT_SHARE_BUCKETS;
      double S0 = pow(1 - u0, K - 1), S1 = pow(1 - u1, K - 1), pr = S0 - S1;
      if (!(pr > 0)) continue;
      /* the mean of u over [u0, u1) under the density (K - 1)(1 - u)^(K - 2) */
      double ubar = (u0 * S0 - u1 * S1 + (pow(1 - u0, K) - pow(1 - u1, K)) / K) / pr;
      LatAtom a = { 0, (ubar * Km + 1.0) / c, pr };
      g_array_append_val(out, a);
    }
    return;
  }
  double rho = 1.0 - s;
  for (double lo = 0; pow(rho, lo) > LAT_TAIL;) {
    double hi = MAX(lo + 1, ceil(LAT_BUCKET_GROWTH * lo));
    double w = hi - lo, pr = pow(rho, lo) - pow(rho, hi);
    /* the mean of n over [lo, hi) under P(n) ~ rho^n */
    double nbar = rho > 0 ? lo + rho / (1 - rho) - w * pow(rho, w) / (1 - pow(rho, w)) : lo;
    LatAtom a = { 0, bound_ps_time(rho, nbar) / c, rho > 0 ? pr : 1.0 };
    g_array_append_val(out, a);
    lo = hi;
    if (!(rho > 0)) break;
  }
}

static int cmp_double(gconstpointer a, gconstpointer b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* One resource of a class, as far as its latency goes: the byte rate alone c (B/s), the spare
 * share s, K (1 / share of requests using it) and whether it is saturated (1) or not (0). */
typedef struct {
  double c, s, K, sat;
} ResUse;

static int cmp_use(gconstpointer a, gconstpointer b)
{
  return memcmp(a, b, sizeof(ResUse)); /* any fixed order: the key of a class's resources */
}

/* The resources of class @k that can make its requests slower than alone (*alone: the time per
 * byte alone, max_r 1 / c_kr), into @uses in a fixed order. @sp: spare shares; @sat_res[r]:
 * resource r is saturated (closed regime, at the floor); @K[r]: 1 / (share of requests using r). */
static void class_uses(const DemandModel *m, const DmClass *k, const double *sp, const gboolean *sat_res, const double *K,
                       GArray *uses, double *alone)
{
  *alone = 0;
  for (int r = 0; r < m->n_res; r++)
    if (isfinite(solo_rate(m, k, r))) *alone = MAX(*alone, 1.0 / solo_rate(m, k, r));
  g_array_set_size(uses, 0);
  for (int r = 0; r < m->n_res; r++) {
    double c = solo_rate(m, k, r), rho = 1.0 - sp[r];
    if (!isfinite(c)) continue;
    /* below saturation, a company that even at the tail's largest n leaves the request no slower
     * than alone takes no part in the max */
    if (!sat_res[r] && (rho <= 0 || bound_ps_time(rho, log(LAT_TAIL) / log(rho)) / c <= *alone)) continue;
    ResUse u = { c, sp[r], K[r], sat_res[r] ? 1.0 : 0.0 };
    g_array_append_val(uses, u);
  }
  g_array_sort(uses, cmp_use);
}

/* Appends to @out, weighted by @w, the atoms of a request's time per byte: the largest over its
 * resources @uses (n of them) of each resource's time (resource_atoms, independent: product-form
 * queues), never below @alone. */
static void uses_atoms(GArray *out, const ResUse *uses, int n, double alone, double lat_s, double w)
{
  g_autoptr(GArray) at = g_array_new(FALSE, FALSE, sizeof(LatAtom));
  g_autofree int *span = g_new0(int, 2 * n + 1); /* [first, end) per resource kept */
  g_autoptr(GArray) vals = g_array_new(FALSE, FALSE, sizeof(double));
  g_array_append_val(vals, alone);
  int nr = 0;
  for (int r = 0; r < n; r++) {
    int first = (int)at->len;
    resource_atoms(at, uses[r].c, uses[r].s, uses[r].K, uses[r].sat > 0);
    gboolean above = FALSE;
    for (guint j = first; j < at->len; j++) {
      double y = g_array_index(at, LatAtom, j).y;
      if (y > alone) {
        above = TRUE;
        g_array_append_val(vals, y);
      }
    }
    if (!above) { /* never slower than alone: no part in the max */
      g_array_set_size(at, first);
      continue;
    }
    span[2 * nr] = first;
    span[2 * nr + 1] = (int)at->len;
    nr++;
  }
  g_array_sort(vals, cmp_double);
  g_autofree int *pos = g_new0(int, MAX(nr, 1));
  g_autofree double *cum = g_new0(double, MAX(nr, 1));
  g_autofree double *tot = g_new0(double, MAX(nr, 1));
  for (int i = 0; i < nr; i++) {
    pos[i] = span[2 * i];
    for (int j = pos[i]; j < span[2 * i + 1]; j++) tot[i] += g_array_index(at, LatAtom, j).p;
  }
  double Fprev = 0;
  for (guint v = 0; v < vals->len; v++) {
    double y = g_array_index(vals, double, v);
    if (v > 0 && y == g_array_index(vals, double, v - 1)) continue;
    double F = 1;
    for (int i = 0; i < nr; i++) {
      for (; pos[i] < span[2 * i + 1] && g_array_index(at, LatAtom, pos[i]).y <= y; pos[i]++)
        cum[i] += g_array_index(at, LatAtom, pos[i]).p;
      F *= MIN(1.0, cum[i] / tot[i]);
    }
    if (v + 1 == vals->len) F = 1; /* the last value: every resource's whole mass */
    if (F > Fprev) {
      LatAtom a = { lat_s, y, w * (F - Fprev) };
      g_array_append_val(out, a);
      Fprev = F;
    }
  }
}

static int cmp_atom(gconstpointer a, gconstpointer b)
{
  const LatAtom *x = a, *y = b;
  if (x->lat_s != y->lat_s) return (x->lat_s > y->lat_s) - (x->lat_s < y->lat_s);
  return (x->y > y->y) - (x->y < y->y);
}

/* Sorts @atoms and merges neighbours of one drive latency within LAT_MERGE_RATIO of time per byte. */
static void merge_atoms(GArray *atoms)
{
  g_array_sort(atoms, cmp_atom);
  guint n = 0;
  for (guint j = 0; j < atoms->len;) {
    LatAtom a = g_array_index(atoms, LatAtom, j);
    double py = a.p * a.y, y0 = a.y;
    guint i = j + 1;
    for (; i < atoms->len; i++) {
      const LatAtom *b = &g_array_index(atoms, LatAtom, i);
      if (b->lat_s != a.lat_s || b->y > y0 * LAT_MERGE_RATIO) break;
      a.p += b->p;
      py += b->p * b->y;
    }
    a.y = py / a.p;
    g_array_index(atoms, LatAtom, n++) = a;
    j = i;
  }
  g_array_set_size(atoms, n);
}

/* The latency mixture of @a's requests into @atoms (sorted, merged) when resource r keeps the
 * spare share free[r] (1 - rho_r), floored at @eps: @closed, every slot busy (saturated resources,
 * free_r <= eps, share their requests, Beta(1, K - 1)), else open (a geometric company at every
 * resource). Returns the mean latency, s. */
static double latency_atoms(const Appliance *a, const DemandModel *m, const double *free, gboolean closed, double eps,
                            GArray *atoms)
{
  g_autofree double *sp = g_new0(double, m->n_res);
  g_autofree double *K = g_new0(double, m->n_res);
  g_autofree gboolean *sat_res = g_new0(gboolean, m->n_res);
  for (int c = 0; c < m->n_class; c++)
    for (int i = 0; i < m->n_res; i++)
      if (m->cls[c].weight > 0 && m->cls[c].demand[i] > 0) K[i] += m->cls[c].weight;
  for (int i = 0; i < m->n_res; i++) {
    sp[i] = MAX(free[i], eps);
    sat_res[i] = closed && free[i] <= eps;
    K[i] = K[i] > 0 ? 1.0 / K[i] : 1.0;
  }
  /* classes alike in drive latency, time alone and resources (as ResUse) share one mixture,
   * weighted by their summed shares, in the order of their first class */
  g_autoptr(GHashTable) seen = g_hash_table_new_full(g_bytes_hash, g_bytes_equal, (GDestroyNotify)g_bytes_unref, NULL);
  g_autoptr(GPtrArray) keys = g_ptr_array_new(); /* GBytes, owned by seen */
  g_autoptr(GArray) share = g_array_new(FALSE, TRUE, sizeof(double));
  g_autoptr(GArray) uses = g_array_new(FALSE, FALSE, sizeof(ResUse));
  for (int c = 0; c < m->n_class; c++) {
    if (!(m->cls[c].weight > 0)) continue;
    double head[2] = { a->drives[m->cls[c].drive].latency_ns * 1e-9, 0 };
    class_uses(m, &m->cls[c], sp, sat_res, K, uses, &head[1]);
    GByteArray *kb = g_byte_array_new();
    g_byte_array_append(kb, (const guint8 *)head, sizeof head);
    g_byte_array_append(kb, (const guint8 *)uses->data, uses->len * sizeof(ResUse));
    GBytes *key = g_byte_array_free_to_bytes(kb);
    gpointer idx;
    if (g_hash_table_lookup_extended(seen, key, NULL, &idx)) {
      g_array_index(share, double, GPOINTER_TO_UINT(idx)) += m->cls[c].weight;
      g_bytes_unref(key);
      continue;
    }
    g_hash_table_insert(seen, key, GUINT_TO_POINTER(keys->len));
    g_ptr_array_add(keys, key);
    g_array_append_val(share, m->cls[c].weight);
  }
  g_array_set_size(atoms, 0);
  for (guint u = 0; u < keys->len; u++) {
    gsize len;
    const double *d = g_bytes_get_data(g_ptr_array_index(keys, u), &len);
    int n = (int)((len - 2 * sizeof(double)) / sizeof(ResUse));
    uses_atoms(atoms, (const ResUse *)(d + 2), n, d[1], d[0], g_array_index(share, double, u));
  }
  merge_atoms(atoms);
  double mean = 0, wsum = 0;
  for (guint j = 0; j < atoms->len; j++) {
    const LatAtom *u = &g_array_index(atoms, LatAtom, j);
    mean += u->p * (u->lat_s + a->wl.request_bytes * u->y);
    wsum += u->p;
  }
  return wsum > 0 ? mean / wsum : 0;
}

typedef struct {
  const Appliance *a;
  const DemandModel *m;
  const double *free; /* [n_res] at X* */
  double tau;         /* N E[S] / X*, s */
  GArray *atoms;      /* scratch */
} LittleCtx;

/* The closed estimate's mean latency at floor @eps minus Little's N E[S] / X*. */
static double little_gap(double eps, void *p)
{
  LittleCtx *x = p;
  return latency_atoms(x->a, x->m, x->free, TRUE, eps, x->atoms) - x->tau;
}

double bound_slot_share(const Appliance *a, const DemandModel *m, double sat_Bps)
{
  g_autofree double *free = g_new0(double, m->n_res);
  free_shares(m, sat_Bps, free);
  double tau = appliance_des_slots(a) * a->wl.request_bytes / sat_Bps;
  double eps0 = slot_share_first(a, m, free, tau);
  if (!(eps0 > 0 && eps0 < 1)) return eps0;
  g_autoptr(GArray) atoms = g_array_new(FALSE, FALSE, sizeof(LatAtom));
  LittleCtx x = { a, m, free, tau, atoms };
  /* the mean of the largest is at least the largest of the means: the root lies in [eps0, 1] */
  if (little_gap(eps0, &x) <= 0 || little_gap(1.0, &x) >= 0) return eps0;
  gsl_function F = { .function = little_gap, .params = &x };
  g_autoptr(gsl_root_fsolver) rs = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
  if (gsl_root_fsolver_set(rs, &F, eps0, 1.0) != GSL_SUCCESS) return eps0;
  sim_root_iterate(rs, 0.0, LAT_LITTLE_REL, LAT_LITTLE_MAX_ITER, NULL);
  return gsl_root_fsolver_root(rs);
}

/* The latency of the mixture latency_atoms() gives: out = mean, p50, p99 in ms. */
static void latency_estimate(const Appliance *a, const DemandModel *m, const double *free, gboolean closed, double eps,
                             double out[3])
{
  SimDist size = workload_request_size_dist(&a->wl);
  LatCtx ctx = { &size, g_array_new(FALSE, FALSE, sizeof(LatAtom)), 0 };
  out[0] = latency_atoms(a, m, free, closed, eps, ctx.atoms) * 1e3;
  double tmax = 0, s_hi = size_upper(&size, LAT_TAIL);
  for (guint j = 0; j < ctx.atoms->len; j++) {
    const LatAtom *u = &g_array_index(ctx.atoms, LatAtom, j);
    tmax = MAX(tmax, u->lat_s + s_hi * u->y);
  }
  double qs[2] = { LAT_Q_MEDIAN, LAT_Q_TAIL };
  g_autoptr(gsl_root_fsolver) s = gsl_root_fsolver_alloc(gsl_root_fsolver_bisection);
  for (int q = 0; q < 2; q++) {
    ctx.q = qs[q];
    gsl_function F = { .function = quantile_gap, .params = &ctx };
    double hi = 2 * tmax + LAT_BRACKET_PAD_S, t = hi; /* the CDF is above 1 - 2e-9 there */
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
    out[1 + q] = t * 1e3;
  }
  g_array_free(ctx.atoms, TRUE);
}

BoundResult *bound_eval_rates(const Appliance *a, const DemandModel *m, double offered_gbps)
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
  r->lat_mean_ms = r->lat_p50_ms = r->lat_p99_ms = NAN;
  return r;
}

BoundResult *bound_eval(const Appliance *a, const DemandModel *m, double offered_gbps)
{
  BoundResult *r = bound_eval_rates(a, m, offered_gbps);
  /* latency (appliance_bound.h): the closed system at X*, and below it the open one, never
   * above the closed (the slots bound the company a request finds) */
  double eps = bound_slot_share(a, m, r->sat_Bps), sat[3], open[3];
  g_autofree double *free = g_new0(double, m->n_res);
  free_shares(m, r->sat_Bps, free);
  latency_estimate(a, m, free, TRUE, eps, sat);
  gboolean closed = !(offered_gbps > 0) || r->offered_Bps >= r->sat_Bps;
  if (!closed) {
    free_shares(m, r->throughput_Bps, free);
    latency_estimate(a, m, free, FALSE, eps, open);
  }
  r->lat_mean_ms = closed ? sat[0] : MIN(open[0], sat[0]);
  r->lat_p50_ms = closed ? sat[1] : MIN(open[1], sat[1]);
  r->lat_p99_ms = closed ? sat[2] : MIN(open[2], sat[2]);
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
