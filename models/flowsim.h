/* models/flowsim.h — a request-level fluid simulation of a serving box.
 *
 * The discrete-event half of the appliance model.  The box is a set of
 * bandwidth resources (NVMe drives, PCIe links, DRAM per node, fabric links,
 * CPU cycles per node, NIC ports and TLS engines), each with a capacity in its
 * own unit per second.  A request of S bytes belongs to a class: the path its
 * bytes take (which drive, which node's memory and cores, which fabric links,
 * which NIC port), given as resource units consumed per served byte.  After a
 * fixed access latency (the drive's read latency) the request becomes one
 * flow on a SimFlowNet that consumes all its resources at once, sharing
 * each with the other requests by max-min fairness; rates change only when
 * a request starts or ends.
 *
 * Workload: at most `concurrency` requests transfer at once (connections with
 * one request outstanding).  Open mode: Poisson arrivals at offered_Bps / E[S],
 * class drawn by weight, waiting FIFO for a free slot (at most
 * FLOWSIM_MAX_WAITING_PER_SLOT per slot; later ones are turned away).  Saturate mode: every
 * slot is refilled the instant a request completes, with a class drawn by
 * weight — equivalent to an open arrival stream that never runs dry, so the
 * served mix of classes equals the weights and throughput settles where the
 * first resource saturates: min_r C_r / D_r with D_r = sum_k weight_k S u_{k,r}
 * / sum_k weight_k S, the bottleneck law that the analytic bound uses.
 *
 * Measured (after warm-up, batch-means 95% CIs): throughput in bytes/s, each
 * resource's load (units/s) and utilisation, request latency (arrival to last
 * byte: slot wait + access latency + transfer) with p50/p99, and byte
 * conservation counters (admitted = delivered + in flight).
 * Left out here: packet-level effects (TCP dynamics, output-queue drops; the
 * appliance layer adds its estimates on top), request priorities.
 */
#ifndef MODELS_FLOWSIM_H
#define MODELS_FLOWSIM_H

#include <glib.h>
#include "sim/dist.h"
#include "sim/time.h"

/* Requests that may wait for a slot, per slot; later arrivals are turned
 * away (clients give up on an overloaded box), which bounds memory. */
#define FLOWSIM_MAX_WAITING_PER_SLOT 64

typedef struct {
  char *name;      /* e.g. "dram.node0" */
  char *kind;      /* e.g. "dram" */
  char *unit;      /* unit of capacity, e.g. "B/s", "cycles/s" */
  double capacity; /* units per second, > 0 */
} FlowsimResource;

typedef struct {
  int res;               /* index into resources */
  double units_per_byte; /* >= 0 */
} FlowsimUse;

typedef struct {
  char *name;
  double weight;     /* relative share of requests, > 0 */
  double latency_ns; /* fixed delay before the first byte moves */
  GArray *uses;      /* FlowsimUse */
} FlowsimClass;

typedef struct {
  uint64_t seed;
  sim_time_ns duration_ns; /* warm-up included */
  sim_time_ns warmup_ns;
  int batches;           /* batch means after warm-up, 2..64 */
  double offered_Bps;    /* bytes/s; 0 = saturate */
  int concurrency;       /* requests transferring at once, >= 1 */
  SimDist request_bytes; /* request size distribution (bytes) */
  double flow_cap_Bps;   /* per-request rate cap, INFINITY = none */
  GPtrArray *resources;  /* FlowsimResource* */
  GPtrArray *classes;    /* FlowsimClass* */
} FlowsimSpec;

typedef struct {
  double mean, half_width;
} FlowsimEstimate;

typedef struct {
  FlowsimEstimate load;        /* units/s */
  FlowsimEstimate utilization; /* load / capacity */
} FlowsimResourceResult;

typedef struct {
  FlowsimEstimate throughput_Bps;
  FlowsimEstimate latency_s;
  double latency_p50_s, latency_p99_s;
  double simulated_s;
  uint64_t events;
  uint64_t requests_done;
  uint64_t requests_rejected; /* arrivals turned away: wait queue full (overload) */
  int batches;
  /* conservation, over the whole run (warm-up included), bytes */
  double bytes_admitted, bytes_delivered, bytes_in_flight;
  double max_utilization_seen;      /* highest instantaneous utilisation of any resource */
  FlowsimResourceResult *resources; /* one per spec resource */
} FlowsimResult;

FlowsimSpec *flowsim_spec_new(void);
void flowsim_spec_free(FlowsimSpec *spec);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(FlowsimSpec, flowsim_spec_free)

/** Adds a resource; returns its index. */
int flowsim_add_resource(FlowsimSpec *spec, const char *name, const char *kind, const char *unit, double capacity);

/** Adds a class; returns it so uses can be appended with flowsim_class_use(). */
FlowsimClass *flowsim_add_class(FlowsimSpec *spec, const char *name, double weight, double latency_ns);

/** Adds @units_per_byte of resource @res to class @cls (adds to an existing use). */
void flowsim_class_use(FlowsimClass *cls, int res, double units_per_byte);

/** Checks the spec: indices, positive capacities and weights, every class
 *  bounded (some use or a cap), durations.  Errors name the class or field. */
gboolean flowsim_spec_check(const FlowsimSpec *spec, GError **error);

/** Bottleneck law for the spec's class mix: the throughput (bytes/s) at which
 *  the first resource saturates, and its index in *@bottleneck (may be NULL).
 *  Per-request caps bound it by concurrency x cap. */
double flowsim_bound_Bps(const FlowsimSpec *spec, int *bottleneck);

/** Runs the simulation of a checked spec. */
FlowsimResult *flowsim_run(const FlowsimSpec *spec);

void flowsim_result_free(FlowsimResult *res);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(FlowsimResult, flowsim_result_free)

#endif /* MODELS_FLOWSIM_H */
