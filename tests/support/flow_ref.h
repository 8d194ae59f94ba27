/* tests/support/flow_ref.h — the per-flow max-min solver of sim/flow.c as of
 * commit 47c3890 (before flows were grouped), kept only as the reference of
 * the differential tests in tests/test_flow.c.  Symbols renamed sim_flow_* ->
 * ref_flow_*; the model and its documentation are those of sim/flow.h.
 * Not part of the library: linked into the test binaries only. */
#ifndef REF_FLOW_H
#define REF_FLOW_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <glib.h>
#include "sim/engine.h"

typedef struct ref_flow_net ref_flow_net;
typedef struct ref_flow_resource ref_flow_resource;
typedef struct ref_flow ref_flow;

/* Cap value meaning "no per-flow cap". */
#define REF_FLOW_UNCAPPED ((double)INFINITY)

#define REF_FLOW_ERROR (ref_flow_error_quark())
typedef enum {
  /* The flow uses no resource (or only at 0 units/byte) and has no cap:
     *  its rate would be infinite. */
  REF_FLOW_ERROR_UNBOUNDED,
} ref_flow_error;
GQuark ref_flow_error_quark(void);

/* Called when @flow has delivered all its bytes, from the net's event at
 *  the completion time (never from inside ref_flow_start()).  @flow is valid
 *  until the callback returns, then goes back to the net's free list.  The
 *  callback may start and cancel other flows. */
typedef void (*ref_flow_done_fn)(ref_flow_net *net, ref_flow *flow, void *ctx);

/* One resource used by a flow and its cost in resource units per byte. */
typedef struct {
  ref_flow_resource *res;
  double units_per_byte; /* >= 0; 0 entries are ignored */
} ref_flow_use;

/* Raw accumulators, time-weighted over [last reset, now].  Derived figures:
 *  see the ref_flow_stats_* helpers below. */
typedef struct {
  double elapsed_s;      /* now - last reset */
  double units;          /* resource: units served; net: bytes delivered */
  double busy_area_s;    /* resource: integral of load/capacity dt; net: 0 */
  double flows_area_s;   /* integral of the number of flows (using it) dt */
  uint64_t completed;    /* flows completed (that used it) */
  double response_sum_s; /* sum of their start-to-completion times */
  double alone_sum_s;    /* sum of the times they would have taken alone */
  double slowdown_sum;   /* sum of response / alone */
} ref_flow_stats;

static inline double ref_flow_stats_utilisation(const ref_flow_stats *s)
{
  return s->elapsed_s > 0 ? s->busy_area_s / s->elapsed_s : 0.0;
}
static inline double ref_flow_stats_throughput(const ref_flow_stats *s) /* units/s */
{
  return s->elapsed_s > 0 ? s->units / s->elapsed_s : 0.0;
}
static inline double ref_flow_stats_mean_flows(const ref_flow_stats *s)
{
  return s->elapsed_s > 0 ? s->flows_area_s / s->elapsed_s : 0.0;
}
static inline double ref_flow_stats_mean_response_s(const ref_flow_stats *s)
{
  return s->completed ? s->response_sum_s / (double)s->completed : 0.0;
}
static inline double ref_flow_stats_mean_slowdown(const ref_flow_stats *s)
{
  return s->completed ? s->slowdown_sum / (double)s->completed : 0.0;
}

/* ---- net ---------------------------------------------------------------- */

/* Creates an empty net bound to @eng (which must outlive it). */
ref_flow_net *ref_flow_net_new(SimEngine *eng);

/* Frees the net, its resources and its flows (no callbacks are called) and
 *  cancels its event. */
void ref_flow_net_free(ref_flow_net *net);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ref_flow_net, ref_flow_net_free)

/* Number of active flows (started, not yet completed or cancelled). */
uint32_t ref_flow_net_n_flows(const ref_flow_net *net);

/* Number of rate recomputations (component solves) so far, and number of
 *  starts and ends that needed none (for benchmarks and tests). */
uint64_t ref_flow_net_n_recomputes(const ref_flow_net *net);
uint64_t ref_flow_net_n_fast(const ref_flow_net *net);

/* Zeroes every statistic of the net and its resources and restarts their
 *  clock at now (warm-up deletion).  Active flows are unaffected. */
void ref_flow_net_reset_stats(ref_flow_net *net);

/* Net-wide statistics: bytes delivered, flow area over all flows, and all
 *  completed flows. */
void ref_flow_net_stats(ref_flow_net *net, ref_flow_stats *out);

/* ---- resources ---------------------------------------------------------- */

/* Adds a resource named @name (copied) of @capacity_per_s (> 0) units per
 *  second.  Owned by the net; valid until ref_flow_net_free(). */
ref_flow_resource *ref_flow_net_add_resource(ref_flow_net *net, const char *name, double capacity_per_s);

/* Changes the capacity (> 0, units/s) from now on; rates are re-shared. */
void ref_flow_resource_set_capacity(ref_flow_net *net, ref_flow_resource *res, double capacity_per_s);

const char *ref_flow_resource_name(const ref_flow_resource *res);
double ref_flow_resource_capacity(const ref_flow_resource *res);

/* Number of active flows using @res (at > 0 units/byte). */
uint32_t ref_flow_resource_n_flows(const ref_flow_resource *res);

/* Current allocation of @res: sum over its flows of units/byte x byte rate,
 *  in units/s. */
double ref_flow_resource_load(ref_flow_net *net, const ref_flow_resource *res);

/* Current load / capacity, in [0, 1]. */
double ref_flow_resource_utilisation(ref_flow_net *net, const ref_flow_resource *res);

/* Statistics of @res since the last reset. */
void ref_flow_resource_stats(ref_flow_net *net, const ref_flow_resource *res, ref_flow_stats *out);

/* ---- flows -------------------------------------------------------------- */

/* Starts a flow of @size_bytes (>= 0) now, using the @n_uses resources of
 *  @uses (a resource listed twice has its costs added), at most @cap_Bps
 *  bytes/s (> 0, or REF_FLOW_UNCAPPED).  @done (may be NULL) is called with
 *  @ctx when the last byte is delivered; a zero-size flow completes at the
 *  current time, from the net's event.  Returns the flow, valid until its
 *  callback returns or it is cancelled.  Errors: REF_FLOW_ERROR_UNBOUNDED if
 *  the flow has no cap and no resource with a positive cost (returns NULL). */
ref_flow *ref_flow_start(ref_flow_net *net, double size_bytes, const ref_flow_use *uses, size_t n_uses, double cap_Bps,
                         ref_flow_done_fn done, void *ctx, GError **error);

/* Cancels an active flow (its callback is not called) and re-shares its
 *  bandwidth from now.  @flow is invalid afterwards.  Must not be called on a
 *  flow from inside its own callback. */
void ref_flow_cancel(ref_flow_net *net, ref_flow *flow);

/* Current rate of @flow in bytes/s. */
double ref_flow_rate_Bps(ref_flow *flow);

/* Bytes @flow has still to deliver now. */
double ref_flow_remaining_bytes(const ref_flow *flow);

double ref_flow_size_bytes(const ref_flow *flow);
sim_time_ns ref_flow_start_ns(const ref_flow *flow);
/* Time @flow would take alone (capacities at its start), in seconds. */
double ref_flow_alone_s(const ref_flow *flow);
/* Context pointer given to ref_flow_start(). */
void *ref_flow_ctx(const ref_flow *flow);

#endif /* REF_FLOW_H */
