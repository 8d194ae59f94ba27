/* modes/capacity.c — health-criteria capacity by Brent root bracketing (see
 * modes/capacity.h). */
#include "models/modes/capacity.h"
#include "models/modes/des.h"
#include "models/appliance/ram.h"
#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include "sim/gsl_autoptr.h"
#include "sim/roots.h"
#include <math.h>

/* The first bracket [L_lo, L_hi] of every criterion, x the saturation throughput (the header's
 * equations): 1e-3 (a trickle, where any healthy criterion holds) to 2 (past saturation).
 * Assumed. */
#define CAPACITY_BRACKET_LO 1e-3
#define CAPACITY_BRACKET_HI 2.0
/* Brent's relative tolerance on a criterion's limit and its iteration cap: 1e-6 is below the
 * printed precision of a capacity in Gb/s; Brent needs a few dozen steps. Assumed. */
#define CAPACITY_EPSREL   1e-6
#define CAPACITY_MAX_ITER 200
/* The load a capacity report is evaluated at when the capacity is 0 (Gb/s): a trickle that
 * keeps the bound in its open (offered-load) form. Assumed. */
#define CAPACITY_REPORT_MIN_GBPS 1e-6

typedef struct {
  const Appliance *a;
  const DemandModel *m;
  CapCriterion c;
  GError *error; /* the first failing model build's (eval_at) */
} CapCtx;

/* The bound at offered load @L Gb/s with the model sized at L: where the demand depends on the
 * served throughput its sizings assume (the auto-sized page cache, the user buffer's residency,
 * the inline engines' context caches; demand_sizing_varies), a model of @a at offered L (its own
 * sizing fixed point, demand.c; the drive shares of @m, which do not depend on the load), else
 * @m itself; with the latency estimate only when @latency (bound_eval_rates otherwise).
 * *@ram_over (may be NULL) gets the RAM the box needs there over memory.installed,
 * (needed - installed) / installed (ram.h; memory.installed must be given). NULL with @error
 * when that build fails. (transfer full) */
/* The model of @b at its own offered load: @m itself when no sizing depends on the load,
 * else a model built at that load (*own, the caller frees it) on @m's drive shares. NULL with
 * @error when that build fails. */
static const DemandModel *model_sized_at(const Appliance *b, const DemandModel *m, DemandModel **own, GError **error)
{
  *own = NULL;
  if (!demand_sizing_varies(b)) return m;
  *own = demand_build_shares(b, m->drive_share, error);
  return *own;
}

static BoundResult *eval_at(const Appliance *a, const DemandModel *m, double L, gboolean latency, double *ram_over,
                            GError **error)
{
  g_autofree Appliance *b = g_memdup2(a, sizeof *a);
  b->wl.offered_gbps = L;
  g_autoptr(DemandModel) own = NULL;
  m = model_sized_at(b, m, &own, error);
  if (!m) return NULL;
  BoundResult *r = latency ? bound_eval(b, m, L) : bound_eval_rates(b, m, L);
  if (ram_over) {
    RamReport o;
    ram_report_fill(&o, b, m, r->throughput_Bps, r->connections);
    *ram_over = (o.needed_bytes - o.installed_bytes) / o.installed_bytes;
  }
  return r;
}

double capacity_headroom(const Workload *w, ResKind k)
{
  const WlHeadroom *h = &w->headroom;
  switch (k) {
    case RK_DRAM: return h->dram;
    case RK_FABRIC: return h->fabric;
    case RK_PCIE: return h->pcie;
    case RK_NVME: return h->nvme;
    case RK_NIC_PORT: return h->nic_port;
    case RK_NIC_TLS: return h->nic_tls;
    default: return 0.0;
  }
}

/* The headroom criterion at @r: the largest offered utilisation minus its kind's limit over the
 * resources with a limit below 1 (-1 when none), with that resource's index in *@at (-1: none).
 * A limit of 1 is the saturation criterion's and is left to it. */
static double headroom_excess(const Appliance *a, const DemandModel *m, const BoundResult *r, int *at)
{
  double v = -1;
  int arg = -1;
  for (int i = 0; i < m->n_res; i++) {
    double h = capacity_headroom(&a->wl, m->res[i].kind);
    if (h > 0 && h < 1 && r->offered_util[i] - h > v) {
      v = r->offered_util[i] - h;
      arg = i;
    }
  }
  if (at) *at = arg;
  return v;
}

static double g_of(double L, void *p)
{
  CapCtx *x = p;
  double ram = -1;
  g_autoptr(BoundResult) r =
      eval_at(x->a, x->m, L, x->c == CAP_LATENCY, x->c == CAP_RAM ? &ram : NULL, x->error ? NULL : &x->error);
  if (!r) return GSL_NAN;
  double v = -1;
  switch (x->c) {
    case CAP_CPU:
      for (int i = 0; i < x->m->n_res; i++)
        if (x->m->res[i].kind == RK_CPU) v = MAX(v, r->offered_util[i] - x->m->res[i].limit);
      return v;
    case CAP_DROPS:
      /* the output queue's drop fraction (nic.h) rises with the carried load up to 1/(K+1) at
     * line rate; a drop_max above that leaves the ports to the saturation criterion */
      for (int i = 0; i < x->m->n_res; i++)
        if (x->m->res[i].kind == RK_NIC_PORT) v = MAX(v, r->drop[i] - x->a->wl.drop_max);
      return v;
    case CAP_LATENCY: return r->lat_p99_ms - x->a->wl.latency_slo_ns / 1e6;
    case CAP_SATURATION:
      for (int i = 0; i < x->m->n_res; i++)
        if (x->m->res[i].kind != RK_CPU) v = MAX(v, r->offered_util[i] - 1.0);
      return v;
    case CAP_RAM: return ram;
    case CAP_HEADROOM: return headroom_excess(x->a, x->m, r, NULL);
    default: g_assert_not_reached();
  }
}

gboolean capacity_search(const Appliance *a, const DemandModel *m, CapacityResult *out, GError **error)
{
  return capacity_observed(a, m, NULL, out, error);
}

gboolean capacity_observed(const Appliance *a, const DemandModel *m, const SimObserver *obs, CapacityResult *out, GError **error)
{
  double xsat = demand_saturation_Bps(m, NULL) * 8e-9;
  double lo = xsat * CAPACITY_BRACKET_LO, hi = xsat * CAPACITY_BRACKET_HI;
  out->probe_floor_gbps = lo;
  g_autoptr(gsl_root_fsolver) s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
  out->capacity_gbps = INFINITY;
  out->limiting = CAP_SATURATION;
  out->iterations = 0;
  out->headroom_on = FALSE;
  for (int k = 0; k < RK_COUNT; k++) out->headroom_on |= capacity_headroom(&a->wl, (ResKind)k) > 0;
  out->headroom_res[0] = '\0';
  out->headroom_limit = 0;
  /* headroom off: never reached, without a bound evaluation (it comes last) */
  out->limit_gbps[CAP_HEADROOM] = INFINITY;
  int n_crit = out->headroom_on ? CAP_COUNT : CAP_HEADROOM;
  /* the RAM criterion needs memory.installed; without it, never reached */
  out->ram_on = a->pc.installed_bytes > 0;
  out->limit_gbps[CAP_RAM] = INFINITY;
  for (int c = 0; c < n_crit; c++) {
    if (c == CAP_RAM && !out->ram_on) {
      sim_observer_progress(obs, c + 1, n_crit);
      continue;
    }
    CapCtx ctx = { a, m, (CapCriterion)c, NULL };
    gsl_function F = { .function = g_of, .params = &ctx };
    double hi_c = hi, glo = g_of(lo, &ctx), ghi = g_of(hi_c, &ctx);
    /* a criterion not met at 2x saturation may be met further out (the CPU's headroom on a
     * drive-bound box): widen the bracket so that its limit does not depend on how far above
     * the saturation it lies (CAPACITY_BRACKET_MAX); beyond that it is never reached */
    while (ghi <= 0 && hi_c < xsat * CAPACITY_BRACKET_MAX) {
      hi_c *= 2.0;
      ghi = g_of(hi_c, &ctx);
    }
    double root;
    if (ctx.error) {
      g_propagate_error(error, ctx.error);
      return FALSE;
    }
    if (glo > 0) {
      root = 0; /* unhealthy even at a trickle (e.g. an SLO below the idle latency) */
    } else if (ghi <= 0) {
      root = INFINITY;
    } else {
      int st = gsl_root_fsolver_set(s, &F, lo, hi_c);
      if (st != GSL_SUCCESS) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "capacity: %s", gsl_strerror(st));
        return FALSE;
      }
      int it = 0;
      st = sim_root_iterate(s, 0.0, CAPACITY_EPSREL, CAPACITY_MAX_ITER, &it);
      out->iterations += it;
      if (ctx.error) {
        g_propagate_error(error, ctx.error);
        return FALSE;
      }
      if (st != GSL_SUCCESS) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "capacity (%s): %s", capacity_criterion_name((CapCriterion)c),
                    gsl_strerror(st));
        return FALSE;
      }
      /* the lower end of the bracket still meets the criterion */
      root = gsl_root_fsolver_x_lower(s);
    }
    out->limit_gbps[c] = root;
    if (c == CAP_HEADROOM && isfinite(root)) { /* the resource at its limit there (at the probe floor: the first over it) */
      g_autoptr(BoundResult) r = eval_at(a, m, MAX(root, lo), FALSE, NULL, error);
      if (!r) return FALSE;
      int at;
      headroom_excess(a, m, r, &at);
      if (at >= 0) {
        g_strlcpy(out->headroom_res, m->res[at].name, sizeof out->headroom_res);
        out->headroom_limit = capacity_headroom(&a->wl, m->res[at].kind);
      }
    }
    g_debug("capacity: criterion %s met with equality at %.6g Gb/s (bracket %.6g..%.6g Gb/s)",
            capacity_criterion_name((CapCriterion)c), root, lo, hi_c);
    sim_observer_progress(obs, c + 1, n_crit);
    if (root < out->capacity_gbps) {
      out->capacity_gbps = root;
      out->limiting = (CapCriterion)c;
    }
  }
  /* the bound's criteria are found to CAPACITY_EPSREL: no sampling noise to carry */
  out->capacity_ci95_gbps[0] = out->capacity_ci95_gbps[1] = out->capacity_gbps;
  return TRUE;
}

/* Bisection steps of the DES latency check (assumed: a 1/128 bracket of U, ~2 Gb/s on a 250 Gb/s box). */
#define CAPACITY_DES_STEPS 7

/* The latency percentiles of one DES run, ms, with their 95 % half-widths (0 when the run gives none). */
typedef struct {
  double p50, p50_hw, p99, p99_hw;
  double served_gbps, served_hw_gbps; /* its throughput and that's 95 % half-width (AppReport) */
  gboolean fell_short;                /* served less than offered beyond its CI (AppReport.overloaded) */
} DesLatency;

/* One DES run at offered load L Gb/s: TRUE with its latency percentiles in *lat. */
static gboolean des_latency(const Appliance *a, const AppScenarioInfo *info, double L, DesLatency *lat, GError **error)
{
  Appliance *b = g_memdup2(a, sizeof *a);
  b->wl.offered_gbps = L;
  gboolean ok = FALSE;
  g_autoptr(DemandModel) m = demand_build(b, error);
  if (m) {
    g_autoptr(AppReport) r = des_run(b, info, m, NULL, error);
    if (r) {
      *lat = (DesLatency){ .p50 = r->lat_p50_ms,
                           .p50_hw = isfinite(r->lat_p50_ci95_ms) ? r->lat_p50_ci95_ms : 0.0,
                           .p99 = r->lat_p99_ms,
                           .p99_hw = isfinite(r->lat_p99_ci95_ms) ? r->lat_p99_ci95_ms : 0.0,
                           .served_gbps = r->throughput_gbps,
                           .served_hw_gbps = isfinite(r->throughput_ci95_gbps) ? r->throughput_ci95_gbps : 0.0,
                           .fell_short = r->overloaded };
      g_debug("capacity: DES at %.6g Gb/s: served %.6g +- %.3g Gb/s%s, p99 %.6g +- %.3g ms", L, lat->served_gbps,
              lat->served_hw_gbps, lat->fell_short ? " (fell short)" : "", lat->p99, lat->p99_hw);
      ok = TRUE;
    }
  }
  g_free(b);
  return ok;
}

/* Within the SLO: p99 plus its half-width (no completed request counts as outside), in a run
 * that served what it was offered: one that fell behind has queues that grow with its length, so
 * its p99 of the requests completed says more about the run's length than about the box. */
static gboolean des_healthy(const Appliance *a, const DesLatency *l)
{
  return !l->fell_short && isfinite(l->p99) && l->p99 + l->p99_hw <= a->wl.latency_slo_ns / 1e6;
}

/* The lowest load, Gb/s, the box may be unable to sustain by a run at L that passed the check
 * (des_healthy), at 95 %: its long-run throughput at L is at least served - half-width (the run's
 * CI, which holds the offered load's own noise), so the box sustains min(L, that) at least. */
static double des_pass_floor(double L, const DesLatency *l)
{
  return MIN(L, l->served_gbps - l->served_hw_gbps);
}

/* The highest load, Gb/s, the box may sustain by a run at L that failed the check, at 95 %: one
 * that fell short serves at most served + half-width at L, and no more below (its throughput
 * does not fall as the offered load grows); one whose p99 is above the SLO by more than its
 * half-width fails at L (the p99 grows with the load); one within its half-width of the SLO
 * says nothing (INFINITY). */
static double des_fail_ceiling(const Appliance *a, double L, const DesLatency *l)
{
  if (l->fell_short) return MIN(L, l->served_gbps + l->served_hw_gbps);
  if (isfinite(l->p99) && l->p99 - l->p99_hw > a->wl.latency_slo_ns / 1e6) return L;
  return INFINITY;
}

/* Records the DES run at L Gb/s as the one the latency check reports (L 0, l NULL: none). */
static void des_record(CapacityResult *out, double L, const DesLatency *l)
{
  out->des_at_gbps = L;
  out->des_p50_ms = l ? l->p50 : NAN;
  out->des_p50_ci95_ms = l ? l->p50_hw : NAN;
  out->des_p99_ms = l ? l->p99 : NAN;
  out->des_p99_ci95_ms = l ? l->p99_hw : NAN;
}

gboolean capacity_des(const Appliance *a, const AppScenarioInfo *info, const DemandModel *m, const SimObserver *obs,
                      CapacityResult *out, GError **error)
{
  if (!capacity_observed(a, m, obs, out, error)) return FALSE;
  out->latency_des = TRUE;
  out->latency_bound_gbps = out->limit_gbps[CAP_LATENCY];
  out->des_runs = 0;
  out->des_fell_short = FALSE;
  double U = INFINITY;
  for (int c = 0; c < CAP_COUNT; c++)
    if (c != CAP_LATENCY) U = MIN(U, out->limit_gbps[c]);
  if (!isfinite(U)) U = demand_saturation_Bps(m, NULL) * 8e-9;
  DesLatency l;
  double lat, lat_ci[2];
  if (U <= 0) { /* another criterion fails at a trickle: nothing to check */
    des_record(out, 0, NULL);
    lat = out->latency_bound_gbps;
    lat_ci[0] = lat_ci[1] = lat;
  } else {
    if (!des_latency(a, info, U, &l, error)) return FALSE;
    out->des_runs++;
    des_record(out, U, &l);
    if (des_healthy(a, &l)) {
      lat = INFINITY; /* not reached below the other limits */
      lat_ci[0] = lat_ci[1] = lat;
    } else {
      double lo = 0, hi = U, floor_lo = 0, ceil_hi = MIN(U, des_fail_ceiling(a, U, &l));
      out->des_fell_short = l.fell_short; /* why the lowest failing load failed */
      des_record(out, 0, NULL);
      for (int i = 0; i < CAPACITY_DES_STEPS; i++) {
        double mid = 0.5 * (lo + hi);
        if (!des_latency(a, info, mid, &l, error)) return FALSE;
        out->des_runs++;
        if (des_healthy(a, &l)) {
          lo = mid;
          floor_lo = des_pass_floor(mid, &l);
          des_record(out, mid, &l);
        } else {
          hi = mid;
          ceil_hi = MIN(ceil_hi, des_fail_ceiling(a, mid, &l));
          out->des_fell_short = l.fell_short;
        }
      }
      /* the lowest failure (hi) failed by p99 + half-width over the SLO, which near the limit
       * is seldom clear (p99 - half-width over it too): then the bisection's runs bound the limit
       * only by a clear failure far above (U on a 5 ms SLO of rome-400g-nic-ktls, 39 % above the
       * answer). Bisect (hi, ceil_hi) for the lowest clear failure, to the same resolution: a run
       * that fails clearly lowers ceil_hi, any other raises the bracket's lower end. */
      double f_lo = hi, f_hi = ceil_hi;
      for (int i = 0; i < CAPACITY_DES_STEPS && f_hi - f_lo > U / (1 << CAPACITY_DES_STEPS); i++) {
        double mid = 0.5 * (f_lo + f_hi);
        if (!des_latency(a, info, mid, &l, error)) return FALSE;
        out->des_runs++;
        double c = des_fail_ceiling(a, mid, &l);
        if (isfinite(c)) {
          ceil_hi = MIN(ceil_hi, c);
          f_hi = mid;
        } else {
          f_lo = mid;
        }
      }
      lat = lo;
      /* the limit lies in [lo, hi) (the bisection's last step) if every run judged right; each
       * judgement has its run's CI: the last pass may be a box that cannot quite sustain it
       * (floor_lo), a fail one that can a little above (ceil_hi: the lowest clear failure) */
      lat_ci[0] = MAX(0.0, MIN(lo, floor_lo));
      lat_ci[1] = MAX(lo, ceil_hi);
    }
  }
  out->limit_gbps[CAP_LATENCY] = lat;
  out->capacity_gbps = INFINITY;
  for (int c = 0; c < CAP_COUNT; c++)
    if (out->limit_gbps[c] < out->capacity_gbps) {
      out->capacity_gbps = out->limit_gbps[c];
      out->limiting = (CapCriterion)c;
    }
  /* the smallest of the limits, with the latency check's interval and the bound's exact others */
  out->capacity_ci95_gbps[0] = out->capacity_ci95_gbps[1] = INFINITY;
  for (int c = 0; c < CAP_COUNT; c++) {
    out->capacity_ci95_gbps[0] = MIN(out->capacity_ci95_gbps[0], c == CAP_LATENCY ? lat_ci[0] : out->limit_gbps[c]);
    out->capacity_ci95_gbps[1] = MIN(out->capacity_ci95_gbps[1], c == CAP_LATENCY ? lat_ci[1] : out->limit_gbps[c]);
  }
  return TRUE;
}

const char *capacity_criterion_name(CapCriterion c)
{
  static const char *const n[CAP_COUNT] = { "cpu", "drops", "latency", "saturation", "ram", "headroom" };
  return c < CAP_COUNT ? n[c] : "?";
}

AppReport *capacity_report(Appliance *a, const AppScenarioInfo *info, const DemandModel *m, const CapacityResult *c,
                           GError **error)
{
  a->wl.offered_gbps = MAX(c->capacity_gbps, CAPACITY_REPORT_MIN_GBPS);
  /* the model sized at the capacity load, as the criteria were evaluated there (eval_at): the
   * page cache, RAM and connections the report shows are those of that load */
  g_autoptr(DemandModel) own = NULL;
  m = model_sized_at(a, m, &own, error);
  if (!m) return NULL;
  g_autoptr(BoundResult) r = bound_eval(a, m, a->wl.offered_gbps);
  AppReport *rep = report_from_bound(a, info, m, r);
  g_free(rep->mode);
  rep->mode = g_strdup("capacity");
  /* the latency the DES measured at this very load, where the check ran there, rather than the
   * bound's estimate */
  if (c->latency_des && c->des_at_gbps > 0 && c->des_at_gbps == a->wl.offered_gbps && isfinite(c->des_p99_ms)) {
    rep->lat_p50_ms = c->des_p50_ms;
    rep->lat_p50_ci95_ms = c->des_p50_ci95_ms;
    rep->lat_p99_ms = c->des_p99_ms;
    rep->lat_p99_ci95_ms = c->des_p99_ci95_ms;
    rep->lat_measured = TRUE;
  }
  return rep;
}
