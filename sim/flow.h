/* sim/flow.h — bandwidth resources shared by concurrent transfers (flow model).
 *
 * What it models: resources of capacity C_r (units/s) and flows of S bytes, each consuming
 * w_{f,r} units of resource r per byte, optionally capped at c_f bytes/s. Rates are weighted
 * max-min fair by progressive filling (SimGrid's LMM, every weight 1): all unfrozen flows raise
 * their byte rate together; r saturates when sum_f w_{f,r} x_f = C_r and freezes its users.
 * Rates change only when a flow starts, ends, is cancelled or a capacity changes; equal flows
 * are solved as one group, re-solves are local and batched per instant (flow-private.h).
 * Statistics per resource: units served, utilisation, mean flows, response time and slowdown
 *     slowdown = response / (S / min(c_f, min_r C_r / w_{f,r}))
 * Left out: flow priorities/weights other than 1, latency (a flow starts moving bytes the
 * instant it starts), resources whose capacity depends on load, and TCP-like dynamics.
 * Evidence and history: docs/model/flow.md.
 */
#ifndef SIM_FLOW_H
#define SIM_FLOW_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <glib.h>
#include "sim/engine.h"

typedef struct SimFlowNet SimFlowNet;
typedef struct SimFlowResource SimFlowResource;
typedef struct SimFlow SimFlow;
typedef struct SimFlowPath SimFlowPath;

/* Cap value meaning "no per-flow cap". */
#define SIM_FLOW_UNCAPPED ((double)INFINITY)

#define SIM_FLOW_ERROR (sim_flow_error_quark())
typedef enum {
  /* The flow uses no resource (or only at 0 units/byte) and has no cap:
     *  its rate would be infinite. */
  SIM_FLOW_ERROR_UNBOUNDED,
} SimFlowError;
/* The quark of that domain (SIM_FLOW_ERROR). */
GQuark sim_flow_error_quark(void);

/* Called when @flow has delivered all its bytes, from the net's event at
 *  the completion time (never from inside sim_flow_start()).  @flow is valid
 *  until the callback returns, then goes back to the net's free list.  The
 *  callback may start and cancel other flows. */
typedef void (*sim_flow_done_fn)(SimFlowNet *net, SimFlow *flow, void *ctx);

/* One resource used by a flow and its cost in resource units per byte. */
typedef struct {
  SimFlowResource *res;
  double units_per_byte; /* >= 0; 0 entries are ignored */
} SimFlowUse;

/* Raw accumulators, time-weighted over [last reset, now].  Derived figures:
 *  see the sim_flow_stats_* helpers below. */
typedef struct {
  double elapsed_s;      /* now - last reset */
  double units;          /* resource: units served; net: bytes delivered */
  double busy_area_s;    /* resource: integral of load/capacity dt; net: 0 */
  double flows_area_s;   /* integral of the number of flows (using it) dt */
  uint64_t completed;    /* flows completed (that used it) */
  double response_sum_s; /* sum of their start-to-completion times */
  double alone_sum_s;    /* sum of the times they would have taken alone */
  double slowdown_sum;   /* sum of response / alone */
} SimFlowStats;

/* Figures of a resource's statistics over their window (0 before any time has passed, or, for the
 * per-flow means, before a flow completed): the busy share of the time (0..1), the units served
 * per second, the mean number of flows using it, the flows' mean response time (s) and their mean
 * slowdown (response / alone, >= 1). */
static inline double sim_flow_stats_utilisation(const SimFlowStats *s)
{
  return s->elapsed_s > 0 ? s->busy_area_s / s->elapsed_s : 0.0;
}
static inline double sim_flow_stats_throughput(const SimFlowStats *s) /* units/s */
{
  return s->elapsed_s > 0 ? s->units / s->elapsed_s : 0.0;
}
static inline double sim_flow_stats_mean_flows(const SimFlowStats *s)
{
  return s->elapsed_s > 0 ? s->flows_area_s / s->elapsed_s : 0.0;
}
static inline double sim_flow_stats_mean_response_s(const SimFlowStats *s)
{
  return s->completed ? s->response_sum_s / (double)s->completed : 0.0;
}
static inline double sim_flow_stats_mean_slowdown(const SimFlowStats *s)
{
  return s->completed ? s->slowdown_sum / (double)s->completed : 0.0;
}

/* ---- net ---------------------------------------------------------------- */

/* Creates an empty net bound to @eng (which must outlive it). */
SimFlowNet *sim_flow_net_new(SimEngine *eng);

/* Frees the net, its resources and its flows (no callbacks are called) and
 *  cancels its event. */
void sim_flow_net_free(SimFlowNet *net);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SimFlowNet, sim_flow_net_free)

/* Number of active flows (started, not yet completed or cancelled). */
uint32_t sim_flow_net_n_flows(const SimFlowNet *net);

/* Number of groups of active flows (flows with the same merged (resource,
 *  cost) vector and cap share a group and a rate). */
uint32_t sim_flow_net_n_groups(const SimFlowNet *net);

/* Number of rate recomputations (component solves) so far, and number of
 *  starts and ends that needed none (for benchmarks and tests). */
uint64_t sim_flow_net_n_recomputes(const SimFlowNet *net);
uint64_t sim_flow_net_n_fast(const SimFlowNet *net);

/* Whether the net keeps the per-flow statistics of its resources and of
 *  itself (SimFlowStats flows_area_s, completed, response_sum_s, alone_sum_s
 *  and slowdown_sum): on by default.  A caller that reads only units and
 *  busy areas turns them off before its first flow starts (later calls are
 *  refused with a g_critical and change nothing); they then stay 0, and a
 *  flow's start and end skip a pass over its resources for them
 *  (bench/README.md, issue 18 third round). */
void sim_flow_net_keep_flow_stats(SimFlowNet *net, bool keep);

/* Rate precision EPS, relative, in [0, 1): 0 (the default) re-solves the rates at
 *  every start and end that can change them (exact max-min).  With EPS > 0 a start or
 *  an end whose change of load stays within EPS x capacity on every saturated resource
 *  its flow uses (and below (1 + EPS) x capacity on the others) is not solved at once:
 *  the other flows keep their rates, the new flow runs at its group's rate, and the
 *  change is solved with the first later one that moves a load by more (or a capacity
 *  change, or a query of rates or statistics).  So every saturated resource's load stays
 *  within EPS of its capacity, as SimGrid's maxmin/precision counts a constraint
 *  saturated when its remaining capacity is below precision x bound.  Set before the
 *  first flow starts (later calls are refused with a g_critical).  The error this buys
 *  is measured, not bounded here: bench/README.md, bench-precision. */
void sim_flow_net_set_rate_precision(SimFlowNet *net, double eps);
/* The net's rate precision EPS (0: exact). */
double sim_flow_net_rate_precision(const SimFlowNet *net);
/* Precision mode: how many times the net left changes unsolved where an exact net would have
 *  solved them (after a start, end or cancel, or in its event); 0 when exact. */
uint64_t sim_flow_net_n_deferred(const SimFlowNet *net);

/* Zeroes every statistic of the net and its resources and restarts their
 *  clock at now (warm-up deletion).  Active flows are unaffected. */
void sim_flow_net_reset_stats(SimFlowNet *net);

/* Net-wide statistics: bytes delivered, flow area over all flows, and all
 *  completed flows. */
void sim_flow_net_stats(SimFlowNet *net, SimFlowStats *out);

/* ---- resources ---------------------------------------------------------- */

/* Adds a resource named @name (copied) of @capacity_per_s (> 0) units per
 *  second.  Owned by the net; valid until sim_flow_net_free(). */
SimFlowResource *sim_flow_net_add_resource(SimFlowNet *net, const char *name, double capacity_per_s);

/* Changes the capacity (> 0, units/s) from now on; rates are re-shared. */
void sim_flow_resource_set_capacity(SimFlowNet *net, SimFlowResource *res, double capacity_per_s);

/* The resource's capacity now, in units/s. */
double sim_flow_resource_capacity(const SimFlowResource *res);

/* Number of active flows using @res (at > 0 units/byte). */
uint32_t sim_flow_resource_n_flows(const SimFlowResource *res);

/* Current allocation of @res: sum over its flows of units/byte x byte rate,
 *  in units/s. */
double sim_flow_resource_load(SimFlowNet *net, const SimFlowResource *res);

/* Current load / capacity, in [0, 1]. */
double sim_flow_resource_utilisation(SimFlowNet *net, const SimFlowResource *res);

/* Statistics of @res since the last reset. */
void sim_flow_resource_stats(SimFlowNet *net, const SimFlowResource *res, SimFlowStats *out);

/* ---- flows -------------------------------------------------------------- */

/* Starts a flow of @size_bytes (>= 0) now, using the @n_uses resources of
 *  @uses (a resource listed twice has its costs added), at most @rate_cap_Bps
 *  bytes/s (> 0, or SIM_FLOW_UNCAPPED).  @done (may be NULL) is called with
 *  @ctx when the last byte is delivered; a zero-size flow completes at the
 *  current time, from the net's event.  Returns the flow, valid until its
 *  callback returns or it is cancelled.  Errors: SIM_FLOW_ERROR_UNBOUNDED if
 *  the flow has no cap and no resource with a positive cost (returns NULL). */
SimFlow *sim_flow_start(SimFlowNet *net, double size_bytes, const SimFlowUse *uses, size_t n_uses, double rate_cap_Bps,
                        sim_flow_done_fn done, void *ctx, GError **error);

/* A path: the merged uses and cap of sim_flow_start(), worked out once,
 *  for callers that start many flows on the same vector (flows on it share
 *  a group).  Owned by the net, valid until sim_flow_net_free().  Errors:
 *  SIM_FLOW_ERROR_UNBOUNDED if it has no cap and no resource with a
 *  positive cost (returns NULL). */
SimFlowPath *sim_flow_net_path(SimFlowNet *net, const SimFlowUse *uses, size_t n_uses, double rate_cap_Bps, GError **error);

/* Starts a flow of @size_bytes (>= 0) on @path: the same as
 *  sim_flow_start() with the path's uses and cap, without merging them or
 *  looking up their group again. */
SimFlow *sim_flow_start_path(SimFlowNet *net, SimFlowPath *path, double size_bytes, sim_flow_done_fn done, void *ctx);

/* Cancels an active flow (its callback is not called) and re-shares its
 *  bandwidth from now.  @flow is invalid afterwards.  Must not be called on a
 *  flow from inside its own callback. */
void sim_flow_cancel(SimFlowNet *net, SimFlow *flow);

/* Current rate of @flow in bytes/s. */
double sim_flow_rate_Bps(SimFlow *flow);

/* Bytes @flow has still to deliver now. */
double sim_flow_remaining_bytes(const SimFlow *flow);

/* Simulated time at which @flow started, ns. */
sim_time_ns sim_flow_start_ns(const SimFlow *flow);
/* Time @flow would take alone (capacities at its start), in seconds. */
double sim_flow_alone_s(const SimFlow *flow);
/* Context pointer given to sim_flow_start(). */
void *sim_flow_ctx(const SimFlow *flow);

#endif /* SIM_FLOW_H */
