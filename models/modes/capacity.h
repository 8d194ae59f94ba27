/* modes/capacity.h — the largest offered load that keeps the appliance healthy.
 *
 * What it models: health criteria g_k(L) <= 0, non-decreasing in the offered load L (Gb/s):
 *   cpu (busiest node's CPU minus the cap), drops (NIC output drops minus workload.drop_max),
 *   latency (p99 minus workload.latency_slo: the bound's estimate, or the DES's at candidate loads),
 *   saturation (busiest non-CPU utilisation minus 1), ram (need over memory.installed, ram.h),
 *   headroom (utilisation minus workload.headroom's limit per kind).
 * The root of each g_k in [1e-3, 2 x saturation] (bracket doubled up to CAPACITY_BRACKET_MAX) by
 * GSL Brent; the capacity is the smallest root, its criterion the limiting one. Each g_k(L) is the
 * bound with the model sized at L (demand.c's sizing fixed point).
 * Leaves out: transients (the discrete-event model can re-check the capacity point).
 * Evidence and history: docs/model/capacity.md.
 */
#ifndef MODELS_MODES_CAPACITY_H
#define MODELS_MODES_CAPACITY_H
#include "models/modes/bound.h"
#include "sim/observe.h"
#include "models/appliance/loader.h"
#include "models/modes/report.h"

/* Largest bracket end, x the saturation throughput (assumed: 1024, ten doublings past 2x;
 * a criterion met only beyond it is reported as never reached). */
#define CAPACITY_BRACKET_MAX 1024.0

typedef enum { CAP_CPU, CAP_DROPS, CAP_LATENCY, CAP_SATURATION, CAP_RAM, CAP_HEADROOM, CAP_COUNT } CapCriterion;

typedef struct {
  double capacity_gbps; /* largest healthy offered load */
  CapCriterion limiting;
  double limit_gbps[CAP_COUNT]; /* load at which each criterion is met with equality (inf: never;
                                    * 0: not met even at probe_floor_gbps) */
  double probe_floor_gbps;      /* smallest load probed: 1e-3 of the saturation throughput */
  int iterations;               /* root-solver iterations over all criteria (sim_root_iterate) */
  /* the latency criterion checked by the DES (capacity_des; FALSE: the bound's estimate) */
  gboolean latency_des;
  double latency_bound_gbps;          /* the bound's estimate of the latency limit, for comparison */
  double des_at_gbps;                 /* the largest load the DES found within the SLO (the latency limit when finite) */
  double des_p50_ms, des_p50_ci95_ms; /* the DES p50 and its 95 % half-width at des_at_gbps */
  double des_p99_ms, des_p99_ci95_ms; /* the DES p99 and its 95 % half-width at des_at_gbps */
  int des_runs;                       /* DES runs the check took */
  gboolean des_fell_short;            /* the check stopped at a run that served less than it was offered
                                         (beyond its CI, modes/des.h), not at the SLO: the limit is
                                         what the box serves, whatever the p99 */
  /* 95 % interval of capacity_gbps, Gb/s (lo <= capacity <= hi): the bound's criteria are exact
   * (CAPACITY_EPSREL); the DES latency check's limit lies between its last pass and its first
   * failure (the bisection's step), each widened by that run's CI: from the last pass's
   * min(L, served - half-width) (a pass is clear by its definition: p99 + half-width within the
   * SLO) to the lowest clear failure of any run the check took (one that fell short: served +
   * half-width; one with p99 - half-width above the SLO: its load; U when none is clear), which
   * the check searches for when the bisection's lowest failure is not clear (below) */
  double capacity_ci95_gbps[2];
  /* the RAM criterion: on when memory.installed is given */
  gboolean ram_on;
  /* the headroom criterion (workload.headroom): on when any kind has a limit */
  gboolean headroom_on;
  char headroom_res[40]; /* the resource at its limit at limit_gbps[CAP_HEADROOM] ("" when never reached) */
  double headroom_limit; /* that resource's kind's limit, fraction (0 when never reached) */
} CapacityResult;

/* Finds the capacity; FALSE with error if GSL fails. */
gboolean capacity_search(const Appliance *a, const DemandModel *m, CapacityResult *out, GError **error);
/* As capacity_search(), reporting progress to @obs (criteria done of CAP_COUNT, of CAP_HEADROOM with the headroom off; may
 * be NULL). */
gboolean capacity_observed(const Appliance *a, const DemandModel *m, const SimObserver *obs, CapacityResult *out, GError **error);
/* As capacity_observed(), with the latency criterion taken from `ocasim run` (the
 * DES, modes/des.h) instead of the bound's estimate: the DES runs at U, the smallest
 * limit of the other criteria; when its p99 plus the 95 % half-width is within the SLO there,
 * latency does not bind below U (limit_gbps[CAP_LATENCY] = inf); otherwise the limit is
 * bracketed by bisection with DES runs in (0, U] (CAPACITY_DES_STEPS steps: U / 2^7 resolution),
 * each at the scenario's duration and seed; the limit's 95 % interval (capacity_ci95_gbps) spans
 * that last step widened by its runs' CIs. A failure there is p99 + half-width above the SLO,
 * which near the limit is seldom a clear failure (p99 - half-width above it too), so the
 * interval's upper end would fall back to the lowest clear failure the bisection happened to
 * run, U at worst (rome-400g-nic-ktls with a 5 ms SLO: 343.1 Gb/s on an answer of 225.1,
 * though its run at 257.3 Gb/s shows p99 5.39 +- 0.43 ms); the check then bisects between the
 * lowest failure and the lowest clear one for a lower clear failure, to the same resolution
 * (at most CAPACITY_DES_STEPS more runs: 263.8 Gb/s there). @info gives the run's duration. */
gboolean capacity_des(const Appliance *a, const AppScenarioInfo *info, const DemandModel *m, const SimObserver *obs,
                      CapacityResult *out, GError **error);
/* The utilisation limit, fraction, workload.headroom sets on resources of kind @k (0: none;
 * kinds it has no key for, the CPU's included: 0). */
double capacity_headroom(const Workload *w, ResKind k);
/* The name of criterion @c as reports print it ("cpu", "drops", "latency", "saturation", "ram",
 * "headroom"); "?" out of range. */
const char *capacity_criterion_name(CapCriterion c);
/* The bound-mode report at the capacity load of @c (mode "capacity"): sets a->wl.offered_gbps
 * to the capacity (a trickle of 1e-6 Gb/s when no load is healthy, since <= 0 would mean
 * saturate) and evaluates the bound there, with the model sized at that load (its page cache,
 * RAM and connections; @m itself when its demand does not depend on the load,
 * demand_sizing_varies); its latency is the DES's, measured at that load, when the latency
 * check ran the DES there (lat_measured), else the bound's estimate. NULL with @error when the
 * model at that load cannot be built. (transfer full) */
AppReport *capacity_report(Appliance *a, const AppScenarioInfo *info, const DemandModel *m, const CapacityResult *c,
                           GError **error);

#endif /* MODELS_MODES_CAPACITY_H */
