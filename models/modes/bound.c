/* modes/bound.c — bottleneck law, drops and latency approximation (see
 * modes/bound.h for the equations). */
#include "models/modes/bound.h"
#include "models/modes/des.h"
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
 * modes/bound.h), of equal width in that share. Assumed, as above. */
#define LAT_SHARE_BUCKETS 256
/* Probability mass left out of a distribution's tail: far below the 1 % above p99. */
#define LAT_TAIL 1e-9
/* Atoms of the latency mixture closer than this ratio of time per byte (and of the same drive
 * latency) merge, at their probability-weighted mean (so the mean is kept): at most a 1 % shift
 * of a quantile. Assumed. */
#define LAT_MERGE_RATIO 1.02
/* Up to this many classes' mixtures are merged by scanning their heads, more through a heap
 * (sort_merge_runs): a scan of a few heads is cheaper than a heap's bookkeeping. Assumed. */
#define LAT_MERGE_SCAN 16
/* Relative tolerance of the floor eps at which the closed estimate's mean meets Little's law
 * (bound_slot_share): far below the estimate's own error. */
#define LAT_LITTLE_REL 1e-9
/* Relative tolerance and iteration cap of the Brent solve of a latency quantile
 * (mixture_quantiles): far below any figure printed (issue 34 allows 1e-9 relative). Assumed. */
#define LAT_QUANTILE_REL      1e-12
#define LAT_QUANTILE_MAX_ITER 200
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

/* The request size distribution (workload_request_size_dist: fixed, exponential or lognormal of
 * mean d->mean) with the lognormal's parameters worked out once: zeta = log(mean) - s2 / 2,
 * sigma = sqrt(s2), s2 = log(1 + cv^2). */
typedef struct {
  const SimDist *d;
  double zeta, sigma;
} SizeLaw;

static SizeLaw size_law(const SimDist *d)
{
  SizeLaw z = { d, 0, 0 };
  if (d->kind == SIM_DIST_LOGNORMAL) {
    double s2 = log1p(d->shape * d->shape);
    z.zeta = log(d->mean) - 0.5 * s2;
    z.sigma = sqrt(s2);
  }
  return z;
}

/* Cumulative distribution of the request size @z at x bytes. */
static double size_cdf(const SizeLaw *z, double x)
{
  if (!(x > 0)) return 0;
  switch (z->d->kind) {
    case SIM_DIST_DETERMINISTIC: return x >= z->d->mean ? 1.0 : 0.0;
    case SIM_DIST_EXPONENTIAL: return gsl_cdf_exponential_P(x, z->d->mean);
    case SIM_DIST_LOGNORMAL: return gsl_cdf_lognormal_P(x, z->zeta, z->sigma);
    default: g_assert_not_reached();
  }
}

/* The size @z exceeds with probability @tail, bytes. */
static double size_upper(const SizeLaw *z, double tail)
{
  switch (z->d->kind) {
    case SIM_DIST_DETERMINISTIC: return z->d->mean;
    case SIM_DIST_EXPONENTIAL: return gsl_cdf_exponential_Qinv(tail, z->d->mean);
    case SIM_DIST_LOGNORMAL: return gsl_cdf_lognormal_Qinv(tail, z->zeta, z->sigma);
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
  const SizeLaw *size;
  const LatAtom *atoms; /* the whole mixture over classes, sorted by drive latency, then y */
  guint n;
  guint first_end;      /* the end of the atoms of the first drive latency */
  const double *prefix; /* [n] running sums of the atoms' p, from 0, in order */
  double x_one;         /* sizes at or above it have CDF 1 exactly (size_one) */
  double q;             /* quantile sought, 0..1 */
} LatCtx;

/* A size at and above which the CDF of @z is 1.0 in doubles whatever the library's formula: the
 * mass above it is below 2^-54, half the spacing of doubles below 1, so 1 - it rounds to 1
 * (lognormal: Q(8.6) = 4e-18 beyond u = 8.6 standard deviations; exponential: e^-40 = 4e-18);
 * INFINITY where no such size is used. */
static double size_one(const SizeLaw *z)
{
  switch (z->d->kind) {
    case SIM_DIST_DETERMINISTIC: return z->d->mean;
    case SIM_DIST_EXPONENTIAL: return z->d->mean > 0 ? 40.0 * z->d->mean : INFINITY;
    case SIM_DIST_LOGNORMAL: return z->sigma > 0 ? exp(z->zeta + 8.6 * z->sigma) : INFINITY;
    default: g_assert_not_reached();
  }
}

/* The latency CDF of @x at t seconds: sum_j p_j F_S((t - l_j) / y_j) in atom order. Terms whose
 * size is at or above x_one are p_j exactly (F_S = 1.0), so they cost no CDF; at the head of the
 * first drive latency's atoms (x falls as y rises) they form a prefix, summed in advance. */
static double lat_cdf(const LatCtx *x, double t)
{
  const LatAtom *A = x->atoms;
  guint lo = 0, hi = x->first_end;
  while (lo < hi) {
    guint mid = lo + (hi - lo) / 2;
    if ((t - A[mid].lat_s) / A[mid].y >= x->x_one)
      lo = mid + 1;
    else
      hi = mid;
  }
  double F = lo > 0 ? x->prefix[lo - 1] : 0;
  for (guint j = lo; j < x->n; j++) {
    const LatAtom *u = &A[j];
    double z = (t - u->lat_s) / u->y;
    F += z >= x->x_one ? u->p : u->p * size_cdf(x->size, z);
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

/* Spare shares 1 - rho_r (>= 0) of every resource at throughput @x_Bps, into @free. */
static void free_shares(const DemandModel *m, double x_Bps, double *free)
{
  for (int r = 0; r < m->n_res; r++) {
    const DmResource *res = &m->res[r];
    double cap = res->capacity * res->limit;
    free[r] = cap > 0 ? MAX(0.0, 1.0 - x_Bps * demand_total_at(m, r, x_Bps) / cap) : 1.0;
  }
}

/* ---------------------------------------------------------------------------------------------
 * The latency estimate's plan: everything in it that does not depend on the floor eps, worked
 * out once per model (issue 34: the root search of bound_slot_share evaluates the estimate a
 * dozen times, and each evaluation used to redo all of it). The arithmetic of every figure is
 * the one of the estimate written out directly (the same expressions on the same values, in the
 * same order), so results are bit for bit those of evaluating it from scratch. */

/* Atoms of one resource's time per byte that depend on one number alone: a company table (the
 * geometric company below saturation at spare share s: v = bound_ps_time(rho, nbar), time per
 * byte v / c) or a share table (the Beta(1, K - 1) share at a saturated resource of K: v = the
 * bucket's mean share ubar, time per byte (ubar K m + 1) / c). */
typedef struct {
  double v, p;
} TabAtom;

typedef struct {
  double key;    /* s (company table) or K (share table) */
  double tail_T; /* company: bound_ps_time(rho, log(LAT_TAIL) / log(rho)), rho > 0 */
  int n;         /* atoms; -1 until built (company tables are built when first used) */
  TabAtom *at;
  double tot;      /* sum of the atoms' p from 0, in order */
  gboolean sorted; /* v finite and non-decreasing along the atoms */
} AtomTab;

/* Sets @t's tot and sorted from its atoms. */
static void tab_finish(AtomTab *t)
{
  t->tot = 0;
  t->sorted = TRUE;
  for (int j = 0; j < t->n; j++) {
    t->tot += t->at[j].p;
    if (!isfinite(t->at[j].v) || (j > 0 && !(t->at[j].v >= t->at[j - 1].v))) t->sorted = FALSE;
  }
}

/* One resource's atoms as uses_atoms_direct reads them: y_j = (v_j Km + 1) / c (share table),
 * v_j / c (company table) or (Km + 1) / c (one atom of p 1, t NULL). */
typedef struct {
  const AtomTab *t;
  gboolean share;
  double Km, c, tot;
  int n;
} AtomSrc;

static inline double src_y(const AtomSrc *u, int j)
{
  if (!u->t) return (u->Km + 1.0) / u->c;
  return u->share ? (u->t->at[j].v * u->Km + 1.0) / u->c : u->t->at[j].v / u->c;
}

static inline double src_p(const AtomSrc *u, int j)
{
  return u->t ? u->t->at[j].p : 1.0;
}

/* Steps source u past every atom at or below y: its mass so far into *cum, the next atom's value
 * into *hy (INFINITY past the last), and returns the share of its mass at or below y. */
static inline double src_advance(const AtomSrc *u, double y, int *pos, double *cum, double *hy)
{
  do {
    *cum += src_p(u, *pos);
    (*pos)++;
    *hy = *pos < u->n ? src_y(u, *pos) : INFINITY;
  } while (*hy <= y);
  return MIN(1.0, *cum / u->tot);
}

/* One resource a class uses (finite byte rate alone @c, B/s). */
typedef struct {
  int r;
  double c;
} ClassRes;

/* A class of positive weight: its drive latency (s), time per byte alone max_r 1 / c_kr, and its
 * resources [first, first + n) of LatPlan.cand in resource order. */
typedef struct {
  double lat_s, alone, weight;
  int first, n;
} ClassPlan;

/* One resource of a class, as far as its latency goes: the byte rate alone c (B/s), the spare
 * share s, K (1 / share of requests using it) and whether it is saturated (1) or not (0). */
typedef struct {
  double c, s, K, sat;
} ResUse;

/* group_classes keeps keys as doubles, cmp_use compares 8 bytes at a time */
G_STATIC_ASSERT(sizeof(ResUse) % sizeof(double) == 0 && sizeof(double) == sizeof(guint64));

/* A use and its resource (r: only to find its company table; not part of the class's key). */
typedef struct {
  ResUse u;
  int r;
} UseR;

/* Classes alike in drive latency, time alone and resources share one mixture: @rep the first of
 * them, @w their summed weight. */
typedef struct {
  int rep;
  double w;
} LatGroup;

typedef struct {
  const Appliance *a;
  const DemandModel *m;
  double *K; /* [n_res] 1 / (share of requests using r) */
  ClassPlan *cls;
  int n_cls;
  ClassRes *cand;
  GPtrArray *company; /* AtomTab *, by spare share */
  GPtrArray *share;   /* AtomTab *, by K */
  AtomTab **res_tab;  /* [n_res] the company table of free[r] (the closed estimate's unsaturated r) */
  /* the grouping of the classes, valid for one closed estimate's saturated set and free shares:
   * equal keys at one eps of a saturated set are equal at every eps of it (a saturated resource's
   * ResUse differs by eps alone, the same for all, an unsaturated one's does not depend on eps) */
  gboolean groups_valid;
  gboolean *groups_sat; /* [n_res] */
  double *groups_free;  /* [n_res] */
  GArray *groups;       /* LatGroup */
  GArray *keys;         /* double: the groups' keys (group_classes) */
  /* scratch, kept between evaluations */
  double *sp;        /* [n_res] max(free, eps) */
  gboolean *sat;     /* [n_res] */
  UseR *uses;        /* [n_res] */
  int *pos, *span;   /* [n_res], [2 n_res + 2] */
  double *cum, *tot; /* [n_res] */
  double *ratio;     /* [n_res] min(1, cum / tot) */
  AtomSrc *src;      /* [n_res] uses_atoms_direct */
  double *hy;        /* [n_res] uses_atoms_direct: y of each resource's next atom */
  GArray *at;        /* LatAtom: one group's resources' atoms */
  GArray *vals;      /* double: one group's values of time per byte (resources' atoms unsorted) */
  GArray *runs;      /* LatAtom: the groups' mixtures one after the other */
  /* per group (group_mean): its uses ([n_res] each, gm_n of them) and the sums of its mixture's
   * p (l + E[S] y) and p at the latest evaluation, valid while the grouping is */
  UseR *gm_uses;
  int *gm_n;
  double *gm_mean, *gm_wsum;
  guint gm_len;       /* groups with entries (0: none valid) */
  double *gm_sp;      /* [n_res] P->sp at the latest evaluation */
  gboolean *gm_sat;   /* [n_res] P->sat at it */
  gboolean *gm_moved; /* [n_res] scratch: sp or sat other than at it */
  /* per group (group_mean_split): the CDF of the largest time per byte over its unsaturated
   * resources, which does not move with eps, as steps (GuStep) gm_ub[u] .. gm_ue[u] of gm_ust above
   * its value gm_u0[u] at the time alone; gm_ok[u]: 0 not worked out yet, 1 done, -1 not usable
   * (group_means takes the walk over every resource) */
  GArray *gm_ust;
  int *gm_ub, *gm_ue;
  double *gm_u0;
  signed char *gm_ok;
  GArray *rund; /* int: the groups' run boundaries in runs */
  /* the latest mixture built (latency_atoms), for the closed estimate's quantiles at the root
   * bound_slot_share ended on */
  GArray *atoms; /* LatAtom, sorted and merged */
  gboolean atoms_valid, atoms_closed;
  double atoms_eps, atoms_mean;
  double *atoms_free; /* [n_res] */
} LatPlan;

static void atom_tab_free(gpointer p)
{
  AtomTab *t = p;
  g_free(t->at);
  g_free(t);
}

static LatPlan *lat_plan_new(const Appliance *a, const DemandModel *m)
{
  int R = m->n_res;
  LatPlan *P = g_new0(LatPlan, 1);
  P->a = a;
  P->m = m;
  P->K = g_new0(double, R);
  for (int c = 0; c < m->n_class; c++)
    for (int i = 0; i < R; i++)
      if (m->cls[c].weight > 0 && m->cls[c].demand[i] > 0) P->K[i] += m->cls[c].weight;
  for (int i = 0; i < R; i++) P->K[i] = P->K[i] > 0 ? 1.0 / P->K[i] : 1.0;
  P->cls = g_new0(ClassPlan, MAX(m->n_class, 1));
  GArray *cand = g_array_new(FALSE, FALSE, sizeof(ClassRes));
  for (int c = 0; c < m->n_class; c++) {
    const DmClass *k = &m->cls[c];
    if (!(k->weight > 0)) continue;
    ClassPlan *cp = &P->cls[P->n_cls++];
    cp->lat_s = a->drives[k->drive].latency_ns * 1e-9;
    cp->weight = k->weight;
    cp->first = (int)cand->len;
    cp->alone = 0;
    for (int r = 0; r < R; r++) {
      double rate = solo_rate(m, k, r);
      if (!isfinite(rate)) continue;
      cp->alone = MAX(cp->alone, 1.0 / rate);
      ClassRes u = { r, rate };
      g_array_append_val(cand, u);
    }
    cp->n = (int)cand->len - cp->first;
  }
  P->cand = (ClassRes *)g_array_free(cand, FALSE);
  P->company = g_ptr_array_new_with_free_func(atom_tab_free);
  P->share = g_ptr_array_new_with_free_func(atom_tab_free);
  P->res_tab = g_new0(AtomTab *, R);
  P->groups_sat = g_new0(gboolean, R);
  P->groups_free = g_new0(double, R);
  P->groups = g_array_new(FALSE, FALSE, sizeof(LatGroup));
  P->keys = g_array_new(FALSE, FALSE, sizeof(double));
  P->sp = g_new0(double, R);
  P->sat = g_new0(gboolean, R);
  P->uses = g_new0(UseR, MAX(R, 1));
  P->pos = g_new0(int, MAX(R, 1));
  P->span = g_new0(int, 2 * R + 2);
  P->cum = g_new0(double, MAX(R, 1));
  P->tot = g_new0(double, MAX(R, 1));
  P->ratio = g_new0(double, MAX(R, 1));
  P->src = g_new0(AtomSrc, MAX(R, 1));
  P->hy = g_new0(double, MAX(R, 1));
  P->at = g_array_new(FALSE, FALSE, sizeof(LatAtom));
  P->vals = g_array_new(FALSE, FALSE, sizeof(double));
  P->runs = g_array_new(FALSE, FALSE, sizeof(LatAtom));
  P->rund = g_array_new(FALSE, FALSE, sizeof(int));
  P->atoms = g_array_new(FALSE, FALSE, sizeof(LatAtom));
  P->atoms_free = g_new0(double, R);
  return P;
}

static void lat_plan_free(LatPlan *P)
{
  if (!P) return;
  g_free(P->K);
  g_free(P->cls);
  g_free(P->cand);
  g_ptr_array_unref(P->company);
  g_ptr_array_unref(P->share);
  g_free(P->res_tab);
  g_free(P->groups_sat);
  g_free(P->groups_free);
  g_array_unref(P->groups);
  g_array_unref(P->keys);
  g_free(P->sp);
  g_free(P->sat);
  g_free(P->uses);
  g_free(P->pos);
  g_free(P->span);
  g_free(P->cum);
  g_free(P->tot);
  g_free(P->ratio);
  g_free(P->src);
  g_free(P->hy);
  g_array_unref(P->at);
  g_array_unref(P->vals);
  g_array_unref(P->runs);
  g_free(P->gm_uses);
  g_free(P->gm_n);
  g_free(P->gm_mean);
  g_free(P->gm_wsum);
  g_free(P->gm_sp);
  g_free(P->gm_sat);
  g_free(P->gm_moved);
  if (P->gm_ust) g_array_unref(P->gm_ust);
  g_free(P->gm_ub);
  g_free(P->gm_ue);
  g_free(P->gm_u0);
  g_free(P->gm_ok);
  g_array_unref(P->rund);
  g_array_unref(P->atoms);
  g_free(P->atoms_free);
  g_free(P);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(LatPlan, lat_plan_free)

/* The company table of spare share @s < 1 (rho = 1 - s > 0), its tail_T set, atoms not built. */
static AtomTab *company_tab(LatPlan *P, int r, double s)
{
  if (P->res_tab[r] && P->res_tab[r]->key == s) return P->res_tab[r];
  AtomTab *t = NULL;
  for (guint i = 0; i < P->company->len && !t; i++)
    if (((AtomTab *)g_ptr_array_index(P->company, i))->key == s) t = g_ptr_array_index(P->company, i);
  if (!t) {
    t = g_new0(AtomTab, 1);
    t->key = s;
    t->n = -1;
    double rho = 1.0 - s;
    t->tail_T = bound_ps_time(rho, log(LAT_TAIL) / log(rho));
    g_ptr_array_add(P->company, t);
  }
  P->res_tab[r] = t;
  return t;
}

/* Builds @t's atoms: the geometric number n of others of a PS queue at rho = 1 - s, in buckets
 * (LAT_BUCKET_GROWTH) at their conditional mean n, v = bound_ps_time(rho, nbar). */
static void company_build(AtomTab *t)
{
  if (t->n >= 0) return;
  double rho = 1.0 - t->key;
  GArray *out = g_array_new(FALSE, FALSE, sizeof(TabAtom));
  /* rho^lo of a bucket is rho^hi of the one before: each power taken once */
  double lo = 0, plo = pow(rho, lo);
  while (plo > LAT_TAIL) {
    double hi = MAX(lo + 1, ceil(LAT_BUCKET_GROWTH * lo));
    double phi = pow(rho, hi), w = hi - lo, pr = plo - phi;
    /* the mean of n over [lo, hi) under P(n) ~ rho^n */
    double nbar = lo;
    if (rho > 0) {
      double pw = pow(rho, w);
      nbar = lo + rho / (1 - rho) - w * pw / (1 - pw);
    }
    TabAtom a = { bound_ps_time(rho, nbar), rho > 0 ? pr : 1.0 };
    g_array_append_val(out, a);
    lo = hi;
    plo = phi;
    if (!(rho > 0)) break;
  }
  t->n = (int)out->len;
  t->at = (TabAtom *)g_array_free(out, FALSE);
  tab_finish(t);
}

/* The share table of K > 1: the share u ~ Beta(1, K - 1) of the saturated resources' requests a
 * request finds, in LAT_SHARE_BUCKETS buckets of equal width at their conditional mean ubar. */
static const AtomTab *share_tab(LatPlan *P, double K)
{
  for (guint i = 0; i < P->share->len; i++)
    if (((AtomTab *)g_ptr_array_index(P->share, i))->key == K) return g_ptr_array_index(P->share, i);
  AtomTab *t = g_new0(AtomTab, 1);
  t->key = K;
  t->at = g_new(TabAtom, LAT_SHARE_BUCKETS);
  /* a bucket's lower end is the upper end of the one before: each power taken once */
  double S0 = pow(1 - (double)0 / LAT_SHARE_BUCKETS, K - 1), T0 = 0;
  gboolean have_T0 = FALSE;
  for (int j = 0; j < LAT_SHARE_BUCKETS; j++) {
    double u0 = (double)j / LAT_SHARE_BUCKETS, u1 = (double)(j + 1) / LAT_SHARE_BUCKETS;
    double S1 = pow(1 - u1, K - 1), pr = S0 - S1;
    if (!(pr > 0)) {
      S0 = S1;
      have_T0 = FALSE;
      continue;
    }
    if (!have_T0) T0 = pow(1 - u0, K);
    double T1 = pow(1 - u1, K);
    /* the mean of u over [u0, u1) under the density (K - 1)(1 - u)^(K - 2) */
    double ubar = (u0 * S0 - u1 * S1 + (T0 - T1) / K) / pr;
    t->at[t->n++] = (TabAtom){ ubar, pr };
    S0 = S1;
    T0 = T1;
    have_T0 = TRUE;
  }
  tab_finish(t);
  g_ptr_array_add(P->share, t);
  return t;
}

/* Appends to P->at the atoms (y: time per byte, p) of one resource @u (resource_atoms): when
 * saturated (the slots full, s the floor eps) the request finds the share u ~ Beta(1, K - 1) of
 * the K m requests of K such resources, m = 1 / s - 1 (y = (u K m + 1) / c: frozen company); else
 * the geometric number n of others of a PS queue at rho = 1 - s (y = bound_ps_time(rho, n) / c).
 */
static void resource_atoms(LatPlan *P, const UseR *ur)
{
  const ResUse *u = &ur->u;
  double c = u->c, s = u->s, K = u->K;
  if (u->sat > 0) {
    double Km = K * (1.0 / s - 1.0);
    if (K <= 1.0 + LAT_ONE_RESOURCE_SLACK) {
      LatAtom a = { 0, (Km + 1.0) / c, 1.0 };
      g_array_append_val(P->at, a);
      return;
    }
    const AtomTab *t = share_tab(P, K);
    guint first = P->at->len;
    g_array_set_size(P->at, first + (guint)t->n);
    LatAtom *o = &g_array_index(P->at, LatAtom, first);
    for (int j = 0; j < t->n; j++) o[j] = (LatAtom){ 0, (t->at[j].v * Km + 1.0) / c, t->at[j].p };
    return;
  }
  AtomTab *t = company_tab(P, ur->r, s);
  company_build(t);
  guint first = P->at->len;
  g_array_set_size(P->at, first + (guint)t->n);
  LatAtom *o = &g_array_index(P->at, LatAtom, first);
  for (int j = 0; j < t->n; j++) o[j] = (LatAtom){ 0, t->at[j].v / c, t->at[j].p };
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* memcmp's order of @a and @b (sizeof(ResUse) bytes), 8 bytes at a time: each word read with its
 * first byte most significant (GUINT64_FROM_BE), so words compare as their bytes do. */
static int cmp_use(const void *a, const void *b)
{
  /* any fixed order: the key of a class's resources (uses equal here are equal in every way
   * that matters: their atoms) */
  const guint8 *x = (const guint8 *)&((const UseR *)a)->u, *y = (const guint8 *)&((const UseR *)b)->u;
  for (size_t i = 0; i < sizeof(ResUse); i += sizeof(guint64)) {
    guint64 u, v;
    memcpy(&u, x + i, sizeof u);
    memcpy(&v, y + i, sizeof v);
    u = GUINT64_FROM_BE(u);
    v = GUINT64_FROM_BE(v);
    if (u != v) return u < v ? -1 : 1;
  }
  return 0;
}

/* The resources of class @k that can make its requests slower than alone, into P->uses in a
 * fixed order (their count returned), given P->sp (spare shares) and P->sat (saturated: closed
 * regime, at the floor): a resource below saturation whose company even at the tail's largest n
 * leaves the request no slower than alone takes no part in the max. */
static int class_uses(LatPlan *P, const ClassPlan *k)
{
  int n = 0;
  for (int j = 0; j < k->n; j++) {
    const ClassRes *u = &P->cand[k->first + j];
    int r = u->r;
    double rho = 1.0 - P->sp[r];
    if (!P->sat[r] && (rho <= 0 || company_tab(P, r, P->sp[r])->tail_T / u->c <= k->alone)) continue;
    P->uses[n++] = (UseR){ { u->c, P->sp[r], P->K[r], P->sat[r] ? 1.0 : 0.0 }, r };
  }
  /* insertion sort (a handful of uses; the order is total, so any sort gives this one) */
  for (int i = 1; i < n; i++) {
    UseR x = P->uses[i];
    int j = i;
    for (; j > 0 && cmp_use(&P->uses[j - 1], &x) > 0; j--) P->uses[j] = P->uses[j - 1];
    P->uses[j] = x;
  }
  return n;
}

/* Room for @n more atoms at the end of @a (LatAtom): their first, the length grown by n. */
static LatAtom *atoms_grow(GArray *a, guint n)
{
  guint len = a->len;
  g_array_set_size(a, len + n);
  return &g_array_index(a, LatAtom, len);
}

/* Appends to P->runs, weighted by @w, the atoms of a request's time per byte: the largest over
 * its @n resources P->uses of each resource's time (resource_atoms, independent: product-form
 * queues), never below @alone, in increasing y. The values of y taken are @alone and every
 * resource atom's y above it, in increasing order, each once; at each, F = prod_i min(1, the
 * mass of resource i's atoms at or below y / its whole mass) (1 at the last value). */
/* uses_atoms() without writing the resources' atoms out: each atom's y worked out once, where the
 * walk reaches it, by the expression resource_atoms uses. Only where every resource's atoms are
 * finite and increase in y (tables sorted, Km and c finite and positive); FALSE (nothing done)
 * otherwise. */
static gboolean uses_atoms_direct(LatPlan *P, int n, double alone, double lat_s, double w)
{
  AtomSrc *src = P->src;
  int nr = 0, total = 0;
  for (int r = 0; r < n; r++) {
    const UseR *ur = &P->uses[r];
    const ResUse *u = &ur->u;
    AtomSrc a = { NULL, FALSE, 0, u->c, 1.0, 1 };
    if (!(isfinite(u->c) && u->c > 0)) return FALSE;
    if (u->sat > 0) {
      a.Km = u->K * (1.0 / u->s - 1.0);
      if (!(isfinite(a.Km) && a.Km >= 0)) return FALSE;
      if (!(u->K <= 1.0 + LAT_ONE_RESOURCE_SLACK)) {
        a.t = share_tab(P, u->K);
        a.share = TRUE;
      }
    } else {
      AtomTab *t = company_tab(P, ur->r, u->s);
      company_build(t);
      a.t = t;
    }
    if (a.t) {
      if (!a.t->sorted) return FALSE;
      a.n = a.t->n;
      a.tot = a.t->tot;
    }
    /* the largest y is the last: never above alone, no part in the max */
    if (!(a.n > 0 && src_y(&a, a.n - 1) > alone)) {
      if (a.n > 0 && !isfinite(src_y(&a, a.n - 1))) return FALSE;
      continue;
    }
    if (!isfinite(src_y(&a, a.n - 1))) return FALSE;
    src[nr++] = a;
    total += a.n;
  }
  int *pos = P->pos;
  double *cum = P->cum, *ratio = P->ratio, *hy = P->hy;
  for (int i = 0; i < nr; i++) {
    pos[i] = 0;
    cum[i] = 0;
    ratio[i] = MIN(1.0, cum[i] / src[i].tot);
    hy[i] = src_y(&src[i], 0);
  }
  guint len0 = P->runs->len, nout = 0;
  LatAtom *out = atoms_grow(P->runs, (guint)total + 1);
  double Fprev = 0, y = alone;
  for (;;) {
    double F = 1, next = INFINITY;
    for (int i = 0; i < nr; i++) {
      if (hy[i] <= y)
        ratio[i] = src_advance(&src[i], y, &pos[i], &cum[i], &hy[i]); /* the ratio changes only where the mass does */
      F *= ratio[i];
      next = MIN(next, hy[i]);
    }
    gboolean last = next == INFINITY;
    if (last) F = 1; /* the last value: every resource's whole mass */
    if (F > Fprev) {
      out[nout++] = (LatAtom){ lat_s, y, w * (F - Fprev) };
      Fprev = F;
    }
    if (last) break;
    y = next;
  }
  g_array_set_size(P->runs, len0 + nout);
  return TRUE;
}

static void uses_atoms(LatPlan *P, int n, double alone, double lat_s, double w)
{
  if (uses_atoms_direct(P, n, alone, lat_s, w)) return;
  GArray *at = P->at;
  int *span = P->span;
  g_array_set_size(at, 0);
  int nr = 0;
  gboolean sorted = TRUE;
  for (int r = 0; r < n; r++) {
    guint first = at->len;
    resource_atoms(P, &P->uses[r]);
    const LatAtom *A = &g_array_index(at, LatAtom, 0);
    gboolean above = FALSE;
    for (guint j = first; j < at->len; j++) {
      if (A[j].y > alone) above = TRUE;
      if (!isfinite(A[j].y) || (j > first && !(A[j].y >= A[j - 1].y))) sorted = FALSE;
    }
    if (!above) { /* never slower than alone: no part in the max */
      g_array_set_size(at, first);
      continue;
    }
    span[2 * nr] = (int)first;
    span[2 * nr + 1] = (int)at->len;
    nr++;
  }
  const LatAtom *A = (const LatAtom *)at->data;
  int *pos = P->pos;
  double *cum = P->cum, *tot = P->tot;
  for (int i = 0; i < nr; i++) {
    pos[i] = span[2 * i];
    cum[i] = tot[i] = 0;
    for (int j = pos[i]; j < span[2 * i + 1]; j++) tot[i] += A[j].p;
  }
  double Fprev = 0;
  /* at most one atom per value: room for them all, the length set at the end */
  guint len0 = P->runs->len, nout = 0;
  LatAtom *out = atoms_grow(P->runs, at->len + 1);
  if (sorted) {
    /* each resource's atoms increase in y: the values are walked by merging them, without
     * collecting and sorting them (the same values in the same order) */
    double y = alone, *ratio = P->ratio;
    for (int i = 0; i < nr; i++) ratio[i] = MIN(1.0, cum[i] / tot[i]);
    for (;;) {
      double F = 1, next = INFINITY;
      for (int i = 0; i < nr; i++) {
        int e = span[2 * i + 1];
        if (pos[i] < e && A[pos[i]].y <= y) { /* the ratio changes only where the mass does */
          for (; pos[i] < e && A[pos[i]].y <= y; pos[i]++) cum[i] += A[pos[i]].p;
          ratio[i] = MIN(1.0, cum[i] / tot[i]);
        }
        F *= ratio[i];
        if (pos[i] < e) next = MIN(next, A[pos[i]].y);
      }
      gboolean last = next == INFINITY;
      if (last) F = 1; /* the last value: every resource's whole mass */
      if (F > Fprev) {
        out[nout++] = (LatAtom){ lat_s, y, w * (F - Fprev) };
        Fprev = F;
      }
      if (last) break;
      y = next;
    }
    g_array_set_size(P->runs, len0 + nout);
    return;
  }
  GArray *vals = P->vals;
  g_array_set_size(vals, 0);
  g_array_append_val(vals, alone);
  for (int i = 0; i < nr; i++)
    for (int j = span[2 * i]; j < span[2 * i + 1]; j++)
      if (A[j].y > alone) g_array_append_val(vals, A[j].y);
  qsort(vals->data, vals->len, sizeof(double), cmp_double);
  const double *V = (const double *)vals->data;
  for (guint v = 0; v < vals->len; v++) {
    double y = V[v];
    if (v > 0 && y == V[v - 1]) continue;
    double F = 1;
    for (int i = 0; i < nr; i++) {
      for (; pos[i] < span[2 * i + 1] && A[pos[i]].y <= y; pos[i]++) cum[i] += A[pos[i]].p;
      F *= MIN(1.0, cum[i] / tot[i]);
    }
    if (v + 1 == vals->len) F = 1; /* the last value: every resource's whole mass */
    if (F > Fprev) {
      out[nout++] = (LatAtom){ lat_s, y, w * (F - Fprev) };
      Fprev = F;
    }
  }
  g_array_set_size(P->runs, len0 + nout);
}

static int cmp_atom(const LatAtom *x, const LatAtom *y)
{
  if (x->lat_s != y->lat_s) return (x->lat_s > y->lat_s) - (x->lat_s < y->lat_s);
  return (x->y > y->y) - (x->y < y->y);
}

/* Heap order of the groups' run heads: cmp_atom, then the group (so ties leave in group order). */
static gboolean head_before(const LatAtom *R, const int *h, int a, int b)
{
  int c = cmp_atom(&R[h[a]], &R[h[b]]);
  return c < 0 || (c == 0 && a < b);
}

static void heap_down(const LatAtom *R, const int *h, int *heap, int n, int i)
{
  for (;;) {
    int l = 2 * i + 1, m = i;
    if (l < n && head_before(R, h, heap[l], heap[m])) m = l;
    if (l + 1 < n && head_before(R, h, heap[l + 1], heap[m])) m = l + 1;
    if (m == i) return;
    int t = heap[i];
    heap[i] = heap[m];
    heap[m] = t;
    i = m;
  }
}

/* The groups' runs (P->runs, each sorted by cmp_atom, boundaries in P->rund) in the order a stable
 * sort of the whole gives (GLib's g_array_sort is stable, and the sums below depend on the order
 * of ties), taken by a merge, with neighbours of one drive latency within LAT_MERGE_RATIO of time
 * per byte merged at their probability-weighted mean on the way (so the mean is kept), into
 * @atoms. */
static void sort_merge_runs(LatPlan *P, GArray *atoms)
{
  const LatAtom *R = (const LatAtom *)P->runs->data;
  const int *bd = (const int *)P->rund->data;
  int k = (int)P->rund->len - 1, n = 0;
  g_autofree int *h = g_new(int, MAX(k, 1));
  g_autofree int *heap = g_new(int, MAX(k, 1));
  for (int g = 0; g < k; g++) {
    h[g] = bd[g];
    if (bd[g] < bd[g + 1]) heap[n++] = g;
  }
  g_array_set_size(atoms, P->runs->len);
  LatAtom *out = (LatAtom *)atoms->data, a = { 0 };
  guint m = 0;
  double py = 0, y0 = 0;
  gboolean open = FALSE;
#define TAKE(B)                                                            \
  do {                                                                     \
    const LatAtom *b_ = (B);                                               \
    if (open && b_->lat_s == a.lat_s && !(b_->y > y0 * LAT_MERGE_RATIO)) { \
      a.p += b_->p;                                                        \
      py += b_->p * b_->y;                                                 \
      break;                                                               \
    }                                                                      \
    if (open) {                                                            \
      a.y = py / a.p;                                                      \
      out[m++] = a;                                                        \
    }                                                                      \
    a = *b_;                                                               \
    py = a.p * a.y;                                                        \
    y0 = a.y;                                                              \
    open = TRUE;                                                           \
  } while (0)
  if (n <= LAT_MERGE_SCAN) {
    /* few groups: the smallest head by a scan; every atom of a group has its drive latency, so
     * with one latency for all the order is y's, ties to the first group */
    gboolean one_lat = TRUE;
    for (int i = 1; i < n; i++) one_lat = one_lat && R[h[heap[i]]].lat_s == R[h[heap[0]]].lat_s;
    double hv[LAT_MERGE_SCAN]; /* one latency: each group's head y, beside the group */
    for (int i = 0; i < n; i++) hv[i] = R[h[heap[i]]].y;
    while (n > 0) {
      int best = 0;
      if (one_lat) {
        double by = hv[0];
        for (int i = 1; i < n; i++)
          if (hv[i] < by) {
            by = hv[i];
            best = i;
          }
      } else {
        for (int i = 1; i < n; i++)
          if (cmp_atom(&R[h[heap[i]]], &R[h[heap[best]]]) < 0) best = i;
      }
      int g = heap[best];
      TAKE(&R[h[g]++]);
      if (h[g] == bd[g + 1]) { /* keep the groups in their order */
        memmove(heap + best, heap + best + 1, sizeof(int) * (size_t)(n - best - 1));
        memmove(hv + best, hv + best + 1, sizeof(double) * (size_t)(n - best - 1));
        n--;
      } else {
        hv[best] = R[h[g]].y;
      }
    }
  }
  for (int i = n / 2 - 1; i >= 0; i--) heap_down(R, h, heap, n, i);
  while (n > 0) {
    int g = heap[0];
    const LatAtom *b = &R[h[g]++];
    if (h[g] == bd[g + 1]) heap[0] = heap[--n];
    heap_down(R, h, heap, n, 0);
    TAKE(b);
  }
#undef TAKE
  if (open) {
    a.y = py / a.p;
    out[m++] = a;
  }
  g_array_set_size(atoms, m);
}

/* Groups the classes (LatPlan.groups): classes alike in drive latency, time alone and resources
 * (as ResUse, byte for byte) share one mixture, weighted by their summed shares, in the order of
 * their first class. */
static void group_classes(LatPlan *P)
{
  GArray *keys = P->keys; /* per group: lat_s, alone, n, then n ResUse, as doubles */
  g_array_set_size(keys, 0);
  g_array_set_size(P->groups, 0);
  for (int c = 0; c < P->n_cls; c++) {
    const ClassPlan *k = &P->cls[c];
    int n = class_uses(P, k);
    double head[3] = { k->lat_s, k->alone, n };
    guint g = 0, off = 0;
    for (; g < P->groups->len; g++) {
      const double *key = &g_array_index(keys, double, off);
      int kn = (int)key[2];
      if (kn == n && !memcmp(key, head, sizeof head)) {
        const ResUse *ku = (const ResUse *)(key + 3);
        int i = 0;
        while (i < n && !memcmp(&ku[i], &P->uses[i].u, sizeof(ResUse))) i++;
        if (i == n) break;
      }
      off += 3 + (guint)kn * (sizeof(ResUse) / sizeof(double));
    }
    if (g < P->groups->len) {
      g_array_index(P->groups, LatGroup, g).w += k->weight;
      continue;
    }
    g_array_append_vals(keys, head, 3);
    for (int i = 0; i < n; i++) g_array_append_vals(keys, &P->uses[i].u, sizeof(ResUse) / sizeof(double));
    LatGroup lg = { c, k->weight };
    g_array_append_val(P->groups, lg);
  }
}

/* One step of a CDF: its value F from time per byte y on. */
typedef struct {
  double y, F;
} GuStep;

/* The source of resource @r's atoms for class @k (uses_atoms_direct's AtomSrc) at spare share
 * P->sp[r] and saturation P->sat[r]: 1 and *src set where it takes part in the max above @alone,
 * 0 where it takes none, -1 where the direct walk does not apply (uses_atoms_direct's FALSE:
 * a byte rate, Km or atom that is not finite, an unsorted table). */
static int split_src(LatPlan *P, int r, double c, double alone, AtomSrc *src)
{
  AtomSrc a = { NULL, FALSE, 0, c, 1.0, 1 };
  if (!(isfinite(c) && c > 0)) return -1;
  if (P->sat[r]) {
    double s = P->sp[r], K = P->K[r];
    a.Km = K * (1.0 / s - 1.0);
    if (!(isfinite(a.Km) && a.Km >= 0)) return -1;
    if (!(K <= 1.0 + LAT_ONE_RESOURCE_SLACK)) {
      a.t = share_tab(P, K);
      a.share = TRUE;
    }
  } else {
    AtomTab *t = company_tab(P, r, P->sp[r]);
    company_build(t);
    a.t = t;
  }
  if (a.t) {
    if (!a.t->sorted) return -1;
    a.n = a.t->n;
    a.tot = a.t->tot;
  }
  if (a.n > 0 && !isfinite(src_y(&a, a.n - 1))) return -1;
  if (!(a.n > 0 && src_y(&a, a.n - 1) > alone)) return 0; /* never above alone: no part in the max */
  *src = a;
  return 1;
}

/* The resources of class @k below saturation that take part in its max (class_uses'
 * selection), as sources into P->src; their count, -1 where the direct walk does not apply. */
static int split_unsat(LatPlan *P, const ClassPlan *k)
{
  int nr = 0;
  for (int j = 0; j < k->n; j++) {
    const ClassRes *u = &P->cand[k->first + j];
    int r = u->r;
    if (P->sat[r]) continue;
    if (1.0 - P->sp[r] <= 0 || company_tab(P, r, P->sp[r])->tail_T / u->c <= k->alone) continue;
    int v = split_src(P, r, u->c, k->alone, &P->src[nr]);
    if (v < 0) return -1;
    nr += v;
  }
  return nr;
}

/* Group @u's (class @k's) CDF over its unsaturated resources (LatPlan.gm_ust): the product of
 * their mass ratios at alone, then at every atom above it, as uses_atoms_direct walks them. */
static void split_prepare(LatPlan *P, guint u, const ClassPlan *k)
{
  int nr = split_unsat(P, k);
  P->gm_ok[u] = nr < 0 ? -1 : 1;
  P->gm_ub[u] = P->gm_ue[u] = (int)P->gm_ust->len;
  if (nr < 0) return;
  const AtomSrc *src = P->src;
  int *pos = P->pos;
  double *cum = P->cum, *ratio = P->ratio, *hy = P->hy, y = k->alone;
  for (int i = 0; i < nr; i++) {
    pos[i] = 0;
    cum[i] = 0;
    ratio[i] = 0;
    hy[i] = src_y(&src[i], 0);
  }
  for (gboolean first = TRUE;; first = FALSE) {
    double F = 1, next = INFINITY;
    for (int i = 0; i < nr; i++) {
      if (hy[i] <= y) ratio[i] = src_advance(&src[i], y, &pos[i], &cum[i], &hy[i]);
      F *= ratio[i];
      next = MIN(next, hy[i]);
    }
    if (first) {
      P->gm_u0[u] = F;
    } else {
      GuStep st = { y, F };
      g_array_append_val(P->gm_ust, st);
    }
    if (next == INFINITY) break;
    y = next;
  }
  P->gm_ue[u] = (int)P->gm_ust->len;
}

/* Group @u's (class @k's, weight @w) sums of p (l + E[S] y) into *m and of p into *wsum over
 * the mixture uses_atoms gives it, without its walk over every resource: the CDF of the largest
 * time per byte is that over the unsaturated resources (split_prepare, once per grouping: it
 * does not move with eps) times the saturated ones' mass ratios, so a step of the root search
 * walks the saturated resources' atoms and the unsaturated CDF's steps once each. The same
 * values of y and the same CDF as uses_atoms, but for the order of the products' factors (a
 * rounding-level difference). FALSE (nothing set) where the direct walk does not apply. */
static gboolean group_mean_split(LatPlan *P, guint u, const ClassPlan *k, double w, double B, double *m, double *wsum)
{
  if (P->gm_ok[u] == 0) split_prepare(P, u, k);
  if (P->gm_ok[u] < 0) return FALSE;
  AtomSrc *src = P->src;
  int nr = 0;
  for (int j = 0; j < k->n; j++) {
    const ClassRes *c = &P->cand[k->first + j];
    if (!P->sat[c->r]) continue;
    int v = split_src(P, c->r, c->c, k->alone, &src[nr]);
    if (v < 0) return FALSE;
    nr += v;
  }
  int *pos = P->pos;
  double *cum = P->cum, *ratio = P->ratio, *hy = P->hy;
  for (int i = 0; i < nr; i++) {
    pos[i] = 0;
    cum[i] = 0;
    ratio[i] = 0;
    hy[i] = src_y(&src[i], 0);
  }
  const GuStep *st = &g_array_index(P->gm_ust, GuStep, 0);
  int iu = P->gm_ub[u], ue = P->gm_ue[u];
  double GU = P->gm_u0[u], Fprev = 0, y = k->alone, lat = k->lat_s, sm = 0, sw = 0;
  for (;;) {
    while (iu < ue && st[iu].y <= y) GU = st[iu++].F;
    double F = GU, next = iu < ue ? st[iu].y : INFINITY;
    for (int i = 0; i < nr; i++) {
      if (hy[i] <= y) ratio[i] = src_advance(&src[i], y, &pos[i], &cum[i], &hy[i]);
      F *= ratio[i];
      next = MIN(next, hy[i]);
    }
    gboolean last = next == INFINITY;
    if (last) F = 1; /* the last value: every resource's whole mass */
    if (F > Fprev) {
      double p = w * (F - Fprev);
      sm += p * (lat + B * y);
      sw += p;
      Fprev = F;
    }
    if (last) break;
    y = next;
  }
  *m = sm;
  *wsum = sw;
  return TRUE;
}

/* The mean latency of @P's requests (s) for the spare shares P->sp and saturated set P->sat
 * (latency_atoms), without the mixture: each group's sums of p (l + E[S] y) and p over its run
 * (uses_atoms), unsorted and unmerged (merging keeps the mean: sort_merge_runs), and kept from the
 * evaluation before where the group's uses are the same (a group of unsaturated resources alone
 * does not change with the floor eps: the root search of bound_slot_share). */
static double group_means(LatPlan *P)
{
  int R = P->m->n_res;
  guint G = P->groups->len;
  if (P->gm_len != G) {
    P->gm_uses = g_renew(UseR, P->gm_uses, (gsize)MAX(G, 1) * (gsize)MAX(R, 1));
    P->gm_n = g_renew(int, P->gm_n, MAX(G, 1));
    P->gm_mean = g_renew(double, P->gm_mean, MAX(G, 1));
    P->gm_wsum = g_renew(double, P->gm_wsum, MAX(G, 1));
    P->gm_ub = g_renew(int, P->gm_ub, MAX(G, 1));
    P->gm_ue = g_renew(int, P->gm_ue, MAX(G, 1));
    P->gm_u0 = g_renew(double, P->gm_u0, MAX(G, 1));
    P->gm_ok = g_renew(signed char, P->gm_ok, MAX(G, 1));
    for (guint u = 0; u < G; u++) {
      P->gm_n[u] = -1;
      P->gm_ok[u] = 0;
    }
    if (!P->gm_ust) P->gm_ust = g_array_new(FALSE, FALSE, sizeof(GuStep));
    g_array_set_size(P->gm_ust, 0);
    P->gm_len = G;
  }
  if (!P->gm_sp) {
    P->gm_sp = g_new0(double, MAX(R, 1));
    P->gm_sat = g_new0(gboolean, MAX(R, 1));
    P->gm_moved = g_new0(gboolean, MAX(R, 1));
  }
  for (int r = 0; r < R; r++) {
    P->gm_moved[r] = memcmp(&P->gm_sp[r], &P->sp[r], sizeof(double)) || P->gm_sat[r] != P->sat[r];
    P->gm_sp[r] = P->sp[r];
    P->gm_sat[r] = P->sat[r];
  }
  double B = P->a->wl.request_bytes, mean = 0, wsum = 0;
  for (guint u = 0; u < G; u++) {
    const LatGroup *g = &g_array_index(P->groups, LatGroup, u);
    const ClassPlan *k = &P->cls[g->rep];
    /* class_uses depends on the spare shares and saturation of the class's resources alone */
    gboolean moved = P->gm_n[u] == -1;
    for (int j = 0; !moved && j < k->n; j++) moved = P->gm_moved[P->cand[k->first + j].r];
    if (!moved) {
      mean += P->gm_mean[u];
      wsum += P->gm_wsum[u];
      continue;
    }
    if (group_mean_split(P, u, k, g->w, B, &P->gm_mean[u], &P->gm_wsum[u])) {
      P->gm_n[u] = -2; /* worked out, its uses not kept */
      mean += P->gm_mean[u];
      wsum += P->gm_wsum[u];
      continue;
    }
    int n = class_uses(P, k);
    UseR *cu = P->gm_uses + (gsize)u * (gsize)R;
    gboolean same = P->gm_n[u] == n;
    for (int i = 0; same && i < n; i++) same = cu[i].r == P->uses[i].r && !memcmp(&cu[i].u, &P->uses[i].u, sizeof(ResUse));
    if (!same) {
      g_array_set_size(P->runs, 0);
      uses_atoms(P, n, k->alone, k->lat_s, g->w);
      double m = 0, w = 0;
      for (guint j = 0; j < P->runs->len; j++) {
        const LatAtom *a = &g_array_index(P->runs, LatAtom, j);
        m += a->p * (a->lat_s + B * a->y);
        w += a->p;
      }
      P->gm_mean[u] = m;
      P->gm_wsum[u] = w;
      P->gm_n[u] = n;
      memcpy(cu, P->uses, sizeof(UseR) * (size_t)n);
    }
    mean += P->gm_mean[u];
    wsum += P->gm_wsum[u];
  }
  return wsum > 0 ? mean / wsum : 0;
}

/* The latency mixture of @P's requests into @atoms (sorted, merged; NULL: the mean alone,
 * group_means) when resource r keeps the spare share free[r] (1 - rho_r), floored at @eps: @closed, every slot busy (saturated
 * resources, free_r <= eps, share their requests, Beta(1, K - 1)), else open (a geometric company at every
 * resource). Returns the mean latency, s. */
static double latency_atoms(LatPlan *P, const double *free, gboolean closed, double eps, GArray *atoms)
{
  int R = P->m->n_res;
  for (int i = 0; i < R; i++) {
    P->sp[i] = MAX(free[i], eps);
    P->sat[i] = closed && free[i] <= eps;
  }
  /* the grouping holds for every eps of one saturated set (closed; LatPlan) */
  if (!(closed && P->groups_valid && !memcmp(P->groups_sat, P->sat, sizeof(gboolean) * (size_t)R) &&
        !memcmp(P->groups_free, free, sizeof(double) * (size_t)R))) {
    group_classes(P);
    P->gm_len = 0;
    P->groups_valid = closed;
    memcpy(P->groups_sat, P->sat, sizeof(gboolean) * (size_t)R);
    memcpy(P->groups_free, free, sizeof(double) * (size_t)R);
  }
  if (!atoms) return group_means(P);
  g_array_set_size(P->runs, 0);
  g_array_set_size(P->rund, 0);
  int zero = 0;
  g_array_append_val(P->rund, zero);
  for (guint u = 0; u < P->groups->len; u++) {
    const LatGroup *g = &g_array_index(P->groups, LatGroup, u);
    const ClassPlan *k = &P->cls[g->rep];
    int n = class_uses(P, k);
    uses_atoms(P, n, k->alone, k->lat_s, g->w);
    int end = (int)P->runs->len;
    g_array_append_val(P->rund, end);
  }
  sort_merge_runs(P, atoms);
  double mean = 0, wsum = 0;
  for (guint j = 0; j < atoms->len; j++) {
    const LatAtom *u = &g_array_index(atoms, LatAtom, j);
    mean += u->p * (u->lat_s + P->a->wl.request_bytes * u->y);
    wsum += u->p;
  }
  return wsum > 0 ? mean / wsum : 0;
}

/* latency_atoms() into P->atoms, remembered: the same call again (the root bound_slot_share
 * ended on, then bound_eval's closed estimate at it) reuses it. */
static double plan_atoms(LatPlan *P, const double *free, gboolean closed, double eps)
{
  int R = P->m->n_res;
  if (P->atoms_valid && P->atoms_closed == closed && P->atoms_eps == eps &&
      !memcmp(P->atoms_free, free, sizeof(double) * (size_t)R))
    return P->atoms_mean;
  P->atoms_mean = latency_atoms(P, free, closed, eps, P->atoms);
  P->atoms_valid = TRUE;
  P->atoms_closed = closed;
  P->atoms_eps = eps;
  memcpy(P->atoms_free, free, sizeof(double) * (size_t)R);
  return P->atoms_mean;
}

typedef struct {
  const LatPlan *P;
  const double *free; /* [n_res] 1 - rho_r at X* */
  double *s;          /* [n_res] scratch: max(free, eps) */
  double target_s;    /* N E[S] / X*: the mean latency Little's law gives N slots, s */
} SatCtx;

/* Mean latency with the spare share of every resource floored at @eps, minus Little's N / lambda:
 * each class's time per byte the PS time at its most constraining resource, max_r d_kr / (C_r l_r
 * s_r). */
static double sat_gap(double eps, void *p)
{
  SatCtx *x = p;
  const LatPlan *P = x->P;
  for (int r = 0; r < P->m->n_res; r++) x->s[r] = MAX(x->free[r], eps);
  double T = 0;
  for (int c = 0; c < P->n_cls; c++) {
    const ClassPlan *k = &P->cls[c];
    double y = 0;
    for (int j = 0; j < k->n; j++) {
      const ClassRes *u = &P->cand[k->first + j];
      y = MAX(y, 1.0 / (u->c * x->s[u->r]));
    }
    T += k->weight * (k->lat_s + P->a->wl.request_bytes * y);
  }
  return T - x->target_s;
}

/* The floor eps at which the mean of the largest PS means, sum_k w_k (l_k + E[S] max_r 1 / (c_kr
 * max(free_r, eps))), is @tau seconds: the first estimate, below bound_slot_share's (the largest of
 * the means is at most the mean of the largest). 1 when requests alone fill tau, 0 when nothing
 * saturates. */
static double slot_share_first(const LatPlan *P, const double *free, double tau)
{
  g_autofree double *s = g_new0(double, P->m->n_res);
  SatCtx x = { P, free, s, tau };
  if (sat_gap(1.0, &x) >= 0) return 1.0; /* the slots hold no more than requests alone: no sharing */
  if (sat_gap(0.0, &x) <= 0) return 0.0; /* nothing saturates: the slots never fill */
  gsl_function F = { .function = sat_gap, .params = &x };
  g_autoptr(gsl_root_fsolver) rs = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
  /* the floor's lower end: 1e-12 of a resource's capacity, finite where 0 (a saturated
   * resource) would make the mean latency infinite */
  if (gsl_root_fsolver_set(rs, &F, LAT_FLOOR_MIN, 1.0) != GSL_SUCCESS) return LAT_FLOOR_MIN;
  /* not converged: the bracket's lower end, the smaller floor (the latency not understated) */
  if (sim_root_iterate(rs, 0.0, LAT_FLOOR_REL, LAT_FLOOR_MAX_ITER, NULL) != GSL_SUCCESS) return gsl_root_fsolver_x_lower(rs);
  return gsl_root_fsolver_root(rs);
}

typedef struct {
  LatPlan *P;
  const double *free;            /* [n_res] at X* */
  double tau;                    /* N E[S] / X*, s */
  double end_eps[2], end_gap[2]; /* the bracket's ends, which gsl_root_fsolver_set evaluates again */
} LittleCtx;

/* The closed estimate's mean latency at floor @eps minus Little's N E[S] / X*. */
static double little_gap(double eps, void *p)
{
  LittleCtx *x = p;
  for (int i = 0; i < 2; i++)
    if (x->end_eps[i] == eps) return x->end_gap[i];
  return latency_atoms(x->P, x->free, TRUE, eps, NULL) - x->tau;
}

/* bound_slot_share() with @P's plan; @free: the spare shares at @sat_Bps. */
static double slot_share(LatPlan *P, const double *free, double sat_Bps)
{
  const Appliance *a = P->a;
  double tau = des_slots(a) * a->wl.request_bytes / sat_Bps;
  double eps0 = slot_share_first(P, free, tau);
  if (!(eps0 > 0 && eps0 < 1)) return eps0;
  LittleCtx x = { P, free, tau, { NAN, NAN }, { NAN, NAN } };
  /* the mean of the largest is at least the largest of the means: the root lies in [eps0, 1] */
  x.end_gap[0] = little_gap(eps0, &x);
  x.end_eps[0] = eps0;
  if (x.end_gap[0] <= 0) return eps0;
  x.end_gap[1] = little_gap(1.0, &x);
  x.end_eps[1] = 1.0;
  if (x.end_gap[1] >= 0) return eps0;
  gsl_function F = { .function = little_gap, .params = &x };
  g_autoptr(gsl_root_fsolver) rs = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
  if (gsl_root_fsolver_set(rs, &F, eps0, 1.0) != GSL_SUCCESS) return eps0;
  /* not converged: the bracket's lower end (>= eps0), the latency not understated */
  if (sim_root_iterate(rs, 0.0, LAT_LITTLE_REL, LAT_LITTLE_MAX_ITER, NULL) != GSL_SUCCESS) return gsl_root_fsolver_x_lower(rs);
  return gsl_root_fsolver_root(rs);
}

double bound_slot_share(const Appliance *a, const DemandModel *m, double sat_Bps)
{
  g_autofree double *free = g_new0(double, m->n_res);
  free_shares(m, sat_Bps, free);
  g_autoptr(LatPlan) P = lat_plan_new(a, m);
  return slot_share(P, free, sat_Bps);
}

/* The p50 and p99 of the latency mixture @A (@n atoms, sorted and merged: latency_atoms), in
 * seconds, into t[2]: the root of quantile_gap (Brent, LAT_QUANTILE_REL). @cap (seconds; NULL:
 * none): a quantile above cap[q] (the CDF below q there) gives cap[q] without a solve, others
 * are solved as without a cap, so min(cap[q], t[q]), the only use made of it, is the same, bit
 * for bit, as uncapped but where the quantile is within LAT_QUANTILE_REL of cap[q] (bound_eval:
 * below X* the closed estimate's quantiles matter only where they are below the open one's). */
/* @known (NULL: none): quantiles solved before for this very mixture (NAN: not yet), taken
 * instead of solving, and set where solved here. */
static void mixture_quantiles(const Appliance *a, const LatAtom *A, guint n, const double *cap, double t_out[2], double known[2])
{
  SimDist size = workload_request_size_dist(&a->wl);
  SizeLaw law = size_law(&size);
  guint first_end = 0;
  g_autofree double *prefix = g_new(double, MAX(n, 1));
  for (double F = 0; first_end < n && A[first_end].lat_s == A[0].lat_s; first_end++) prefix[first_end] = F += A[first_end].p;
  LatCtx ctx = { &law, A, n, first_end, prefix, size_one(&law), 0 };
  double tmax = 0, s_hi = size_upper(&law, LAT_TAIL);
  for (guint j = 0; j < ctx.n; j++) {
    const LatAtom *u = &ctx.atoms[j];
    tmax = MAX(tmax, u->lat_s + s_hi * u->y);
  }
  double qs[2] = { LAT_Q_MEDIAN, LAT_Q_TAIL };
  g_autoptr(gsl_root_fsolver) s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
  for (int q = 0; q < 2; q++) {
    ctx.q = qs[q];
    gsl_function F = { .function = quantile_gap, .params = &ctx };
    double hi = 2 * tmax + LAT_BRACKET_PAD_S, t = hi; /* the CDF is above 1 - 2e-9 there */
    /* a quantile above cap[q] gives cap[q]: the CDF is below q there. Otherwise the bracket
     * stays [0, hi], so the quantile is the same, bit for bit, with and without a cap (the
     * closed estimate's at X* and below it, where the latency must not fall as the load rises) */
    if (cap && cap[q] < hi && quantile_gap(cap[q], &ctx) < 0) {
      t_out[q] = cap[q];
      continue;
    }
    if (known && !isnan(known[q])) { /* solved before for this mixture (BoundMemo) */
      t_out[q] = known[q];
      continue;
    }
    /* Brent to LAT_QUANTILE_REL relative: a bracketing solver, so the result is within that of
     * inf{t : F(t) >= q} (quantile_gap) */
    if (gsl_root_fsolver_set(s, &F, 0.0, hi) == GSL_SUCCESS) {
      /* not converged: the bracket's upper end, where the CDF is at least q (not understated) */
      if (sim_root_iterate(s, 0.0, LAT_QUANTILE_REL, LAT_QUANTILE_MAX_ITER, NULL) != GSL_SUCCESS)
        t = gsl_root_fsolver_x_upper(s);
      else
        t = gsl_root_fsolver_root(s);
    }
    t_out[q] = t;
    if (known) known[q] = t;
  }
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

/* One closed estimate of a BoundMemo: its inputs (memo_key) and what bound_eval works out from
 * them. */
typedef struct {
  GArray *key;   /* double */
  double eps;    /* the slot share at X* */
  double mean_s; /* the closed mixture's mean latency, s */
  GArray *atoms; /* LatAtom: the closed mixture */
  double t[2];   /* its p50 and p99 without a cap, s (NAN: not solved yet) */
} MemoEntry;

/* Closed estimates kept (the latest, round robin): a sweep's points vary the offered load among
 * other keys, so a few models apart share the estimate. Assumed. */
#define BOUND_MEMO_ENTRIES 16

/* Atom tables a BoundMemo keeps across models (each a function of its key alone: the share
 * tables of K, the company tables of a spare share), at most this many of each kind: past it the
 * kind is emptied before the next model. Assumed. */
#define BOUND_MEMO_TABS 64

struct BoundMemo {
  MemoEntry e[BOUND_MEMO_ENTRIES];
  guint next;
  GArray *key;                /* scratch: the key being looked up */
  GPtrArray *share, *company; /* AtomTab *: LatPlan's, shared by the models evaluated */
};

BoundMemo *bound_memo_new(void)
{
  BoundMemo *memo = g_new0(BoundMemo, 1);
  memo->key = g_array_new(FALSE, FALSE, sizeof(double));
  memo->share = g_ptr_array_new_with_free_func(atom_tab_free);
  memo->company = g_ptr_array_new_with_free_func(atom_tab_free);
  return memo;
}

void bound_memo_free(BoundMemo *memo)
{
  if (!memo) return;
  for (int i = 0; i < BOUND_MEMO_ENTRIES; i++) {
    if (memo->e[i].key) g_array_unref(memo->e[i].key);
    if (memo->e[i].atoms) g_array_unref(memo->e[i].atoms);
  }
  g_array_unref(memo->key);
  g_ptr_array_unref(memo->share);
  g_ptr_array_unref(memo->company);
  g_free(memo);
}

/* Every input of the closed estimate at X* (slot_share, latency_atoms closed, mixture_quantiles)
 * into @key: what LatPlan holds of @m and @a (the classes of positive weight: drive latency, time
 * alone, weight, and each resource's byte rate alone; K per resource), the spare shares @free at
 * X* = @sat_Bps, the slots, the request size law. */
static void memo_key(GArray *key, const LatPlan *P, const double *free, double sat_Bps)
{
  const Appliance *a = P->a;
  int R = P->m->n_res, n_cand = 0;
  for (int c = 0; c < P->n_cls; c++) n_cand += P->cls[c].n;
  g_array_set_size(key, (guint)(2 + 2 * R + 4 * P->n_cls + 2 * n_cand + 6));
  double *k = (double *)(void *)key->data;
  *k++ = R;
  *k++ = P->n_cls;
  for (int i = 0; i < R; i++) {
    *k++ = P->K[i];
    *k++ = free[i];
  }
  for (int c = 0; c < P->n_cls; c++) {
    const ClassPlan *cp = &P->cls[c];
    *k++ = cp->lat_s;
    *k++ = cp->alone;
    *k++ = cp->weight;
    *k++ = cp->n;
    for (int j = 0; j < cp->n; j++) {
      *k++ = P->cand[cp->first + j].r;
      *k++ = P->cand[cp->first + j].c;
    }
  }
  SimDist size = workload_request_size_dist(&a->wl);
  *k++ = sat_Bps;
  *k++ = des_slots(a);
  *k++ = a->wl.request_bytes;
  *k++ = size.kind;
  *k++ = size.mean;
  *k++ = size.shape;
  g_assert(k == (double *)(void *)key->data + key->len);
}

/* The entry of @memo whose key is @key, bit for bit; NULL if none. */
static MemoEntry *memo_find(BoundMemo *memo, const GArray *key)
{
  for (int i = 0; i < BOUND_MEMO_ENTRIES; i++) {
    const GArray *k = memo->e[i].key;
    if (k && k->len == key->len && !memcmp(k->data, key->data, sizeof(double) * key->len)) return &memo->e[i];
  }
  return NULL;
}

BoundResult *bound_eval(const Appliance *a, const DemandModel *m, double offered_gbps)
{
  return bound_eval_memo(a, m, offered_gbps, NULL);
}

BoundResult *bound_eval_memo(const Appliance *a, const DemandModel *m, double offered_gbps, BoundMemo *memo)
{
  BoundResult *r = bound_eval_rates(a, m, offered_gbps);
  /* latency (modes/bound.h): the closed system at X*, and below it the open one, never
   * above the closed (the slots bound the company a request finds) */
  g_autoptr(LatPlan) P = lat_plan_new(a, m);
  g_autofree double *free = g_new0(double, m->n_res);
  free_shares(m, r->sat_Bps, free);
  MemoEntry *e = NULL;
  if (memo) {
    /* the plan takes its atom tables from the memo's (the same tables, built once) */
    if (memo->share->len > BOUND_MEMO_TABS) g_ptr_array_set_size(memo->share, 0);
    if (memo->company->len > BOUND_MEMO_TABS) g_ptr_array_set_size(memo->company, 0);
    g_ptr_array_unref(P->share);
    g_ptr_array_unref(P->company);
    P->share = g_ptr_array_ref(memo->share);
    P->company = g_ptr_array_ref(memo->company);
    memo_key(memo->key, P, free, r->sat_Bps);
    e = memo_find(memo, memo->key);
    if (!e) { /* worked out below, kept in the next slot */
      e = &memo->e[memo->next];
      memo->next = (memo->next + 1) % BOUND_MEMO_ENTRIES;
      if (e->key) g_array_unref(e->key);
      if (e->atoms) g_array_unref(e->atoms);
      e->key = g_array_copy(memo->key);
      e->eps = slot_share(P, free, r->sat_Bps);
      e->mean_s = plan_atoms(P, free, TRUE, e->eps);
      e->atoms = g_array_copy(P->atoms);
      e->t[0] = e->t[1] = NAN;
    }
  }
  double eps = e ? e->eps : slot_share(P, free, r->sat_Bps), sat[3], open[3], sat_t[2], open_t[2];
  sat[0] = (e ? e->mean_s : plan_atoms(P, free, TRUE, eps)) * 1e3;
  const GArray *sat_atoms = e ? e->atoms : P->atoms;
  g_autoptr(GArray) sat_copy = NULL;
  gboolean closed = !(offered_gbps > 0) || r->offered_Bps >= r->sat_Bps;
  if (closed) {
    mixture_quantiles(a, (const LatAtom *)sat_atoms->data, sat_atoms->len, NULL, sat_t, e ? e->t : NULL);
  } else {
    /* the open estimate first: the closed one's quantiles are then needed only below it */
    if (!e) sat_atoms = sat_copy = g_array_copy(P->atoms);
    free_shares(m, r->throughput_Bps, free);
    open[0] = plan_atoms(P, free, FALSE, eps) * 1e3;
    mixture_quantiles(a, (const LatAtom *)P->atoms->data, P->atoms->len, NULL, open_t, NULL);
    mixture_quantiles(a, (const LatAtom *)sat_atoms->data, sat_atoms->len, open_t, sat_t, e ? e->t : NULL);
    for (int q = 0; q < 2; q++) open[1 + q] = open_t[q] * 1e3;
  }
  for (int q = 0; q < 2; q++) sat[1 + q] = sat_t[q] * 1e3;
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
