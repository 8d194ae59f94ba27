/* sim/fluid.h — request-level fluid simulation: classes of requests sharing
 * bandwidth resources.
 *
 * What it models: requests of S bytes in classes (resource units per byte, a weight, an access
 * latency); after its latency a request is one flow on a SimFlowNet (sim/flow.h), max-min fair.
 * At most `concurrency` requests transfer; open mode: Poisson arrivals at offered_Bps / E[S] or
 * paced clients (a segment of `burst` requests every period_ns), FIFO wait for a slot; saturate
 * mode refills every slot, so throughput settles at the bottleneck law
 *     min_r C_r / D_r,  D_r = sum_k weight_k S u_{k,r} / sum_k weight_k S
 * Measured after warm-up with batch-means 95% CIs: throughput, resource loads and utilisation,
 * latency (slot wait + access latency + transfer) with p50/p99, byte conservation counters.
 * Left out here: packet-level effects (TCP dynamics, output-queue drops; a
 * caller may add its own estimates on top), request priorities.
 * Evidence and history: docs/model/fluid.md.
 */
#ifndef SIM_FLUID_H
#define SIM_FLUID_H

#include <glib.h>
#include "sim/dist.h"
#include "sim/observe.h"
#include "sim/time.h"

/* Requests that may wait for a slot, per slot; later arrivals are turned
 * away (clients give up on an overloaded system), which bounds memory. */
#define SIM_FLUID_MAX_WAITING_PER_SLOT 64

/* sim_fluid_spec_new's defaults. Batches: Schmeiser (1982, Operations Research 30(3)) finds
 * 10 to 30 batch means a good choice; concurrency and request size: assumed, round figures
 * (every appliance caller sets its own). */
#define SIM_FLUID_DEFAULT_BATCHES       20
#define SIM_FLUID_DEFAULT_CONCURRENCY   1000
#define SIM_FLUID_DEFAULT_REQUEST_BYTES (1 << 20)
/* Largest coefficient of variation of a class's latency (a validation limit: far beyond any
 * measured device latency spread). Assumed. */
#define SIM_FLUID_MAX_LATENCY_CV 100

typedef struct {
  char *name;      /* e.g. "dram.node0" */
  char *kind;      /* e.g. "dram" */
  char *unit;      /* unit of capacity, e.g. "B/s", "cycles/s" */
  double capacity; /* units per second, > 0 */
} SimFluidResource;

typedef struct {
  int res;               /* index into resources */
  double units_per_byte; /* >= 0 */
} SimFluidUse;

typedef struct {
  char *name;
  double weight;        /* relative share of requests, > 0 */
  double latency_ns;    /* mean delay before the first byte moves */
  double latency_cv;    /* 0: every request waits latency_ns; > 0: lognormal with this CV (sim/dist.h) */
  char *latency_stream; /* name of the RNG stream of its draws (its component, e.g. "nvme3.latency"); NULL: the
                           class's name. Classes naming one stream share it. */
  GArray *uses;         /* SimFluidUse */
} SimFluidClass;

/* A group of paced clients (see the file comment): `count` clients, each fetching a segment of
 * `burst` requests every `period_ns`, from a phase drawn uniformly in [0, period_ns); a client
 * sends a segment's requests one after another, each when the one before has completed. */
typedef struct {
  int count;        /* >= 1 */
  int burst;        /* requests per fetch (sent one after another), >= 1 */
  double period_ns; /* > 0 */
} SimFluidClients;

typedef struct {
  uint64_t seed;
  sim_time_ns duration_ns; /* warm-up included */
  sim_time_ns warmup_ns;
  int batches;           /* batch means after warm-up, 2..64 */
  double offered_Bps;    /* bytes/s; 0 = saturate */
  int concurrency;       /* requests transferring at once, >= 1 */
  SimDist request_bytes; /* request size distribution (bytes) */
  double flow_cap_Bps;   /* per-request rate cap, INFINITY = none */
  GPtrArray *resources;  /* SimFluidResource* */
  GPtrArray *classes;    /* SimFluidClass* */
  GArray *clients;       /* SimFluidClients; empty: Poisson arrivals (open mode only) */
  double rate_precision; /* the flow net's rate precision EPS in [0, 1) (sim_flow_net_set_rate_precision); 0: exact */
} SimFluidSpec;

typedef struct {
  double mean, half_width;
} SimFluidEstimate;

typedef struct {
  SimFluidEstimate load;        /* units/s */
  SimFluidEstimate utilization; /* load / capacity */
} SimFluidResourceResult;

typedef struct {
  SimFluidEstimate throughput_Bps; /* half-width: the batch means' and the arrivals' combined (below) */
  double throughput_batch_hw_Bps;  /* 95 % half-width of the throughput by batch means alone */
  double offered_hw_Bps;           /* 95 % half-width of the offered load's own noise over the measured time:
                                      1.96 sim_fluid_offered_sd_bytes / T (0 when saturating) */
  SimFluidEstimate latency_s;
  double latency_p50_s, latency_p99_s;       /* over every request after the warm-up (P-square) */
  double latency_p50_hw_s, latency_p99_hw_s; /* 95 % half-widths of p50 and p99 by batch quantiles
                                                (sim_stat_quantile_ci), NAN below 2 batches */
  double simulated_s;
  uint64_t events;
  uint64_t solves;   /* rate re-solves of the flow net (sim_flow_net_n_recomputes) */
  uint64_t deferred; /* times changes were left unsolved where an exact run solves (sim_flow_net_n_deferred) */
  uint64_t requests_done;
  uint64_t requests_rejected; /* arrivals turned away: wait queue full (overload) */
  int batches;
  /* conservation, over the whole run (warm-up included), bytes */
  double bytes_admitted, bytes_delivered, bytes_in_flight;
  double max_utilization_seen;       /* highest instantaneous utilisation of any resource */
  SimFluidResourceResult *resources; /* one per spec resource */
} SimFluidResult;

/* A spec with no resources or classes and defaults the caller overrides:
 *  seed 1, 20 batches, concurrency 1000, 1 MiB deterministic requests, no
 *  rate cap, durations and offered load 0 (saturate). */
SimFluidSpec *sim_fluid_spec_new(void);
/* Frees @spec, its resources and classes (NULL is ignored). */
void sim_fluid_spec_free(SimFluidSpec *spec);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SimFluidSpec, sim_fluid_spec_free)

/* Adds a resource; returns its index. */
int sim_fluid_add_resource(SimFluidSpec *spec, const char *name, const char *kind, const char *unit, double capacity);

/* Adds a class; returns it so uses can be appended with sim_fluid_class_use(). */
SimFluidClass *sim_fluid_add_class(SimFluidSpec *spec, const char *name, double weight, double latency_ns);

/* Gives class @cls a spread access latency: lognormal, mean cls->latency_ns, coefficient of
 *  variation @cv (0: fixed), drawn from the RNG stream named @stream (NULL: the class's name;
 *  classes of one component pass the same name and share its stream). */
void sim_fluid_class_latency_spread(SimFluidClass *cls, double cv, const char *stream);

/* Adds a group of @count paced clients, each fetching a segment of @burst requests (one after
 *  another) every @period_ns. */
void sim_fluid_add_clients(SimFluidSpec *spec, int count, int burst, double period_ns);

/* Adds @units_per_byte of resource @res to class @cls (adds to an existing use). */
void sim_fluid_class_use(SimFluidClass *cls, int res, double units_per_byte);

/* Checks the spec: indices, positive capacities and weights, every class
 *  bounded (some use or a cap), durations.  Errors name the class or field. */
gboolean sim_fluid_spec_check(const SimFluidSpec *spec, GError **error);

/* Bottleneck law for the spec's class mix: the throughput (bytes/s) at which
 *  the first resource saturates, and its index in *@bottleneck (may be NULL).
 *  Per-request caps bound it by concurrency x cap. */
double sim_fluid_bound_Bps(const SimFluidSpec *spec, int *bottleneck);

/* The standard deviation, bytes, of the bytes the arrival process of @spec offers in its
 *  measured time T = duration - warm-up (mean offered_Bps x T): what a run's served bytes vary by
 *  even when every request is served. Paced clients (independent phases, uniform in the
 *  period P): a client starts K = floor(T / P) + Bernoulli(f) fetches in T, f = frac(T / P), each
 *  of burst B requests of iid size (mean mu, variance sigma^2), so Var = (T / P) B sigma^2 +
 *  f (1 - f) (B mu)^2 per client, summed over the clients (a fetch's requests counted where it
 *  starts: it lasts milliseconds). Poisson arrivals: a compound Poisson sum, Var = (offered_Bps
 *  T / mu) E[S^2]. Saturate: 0. INFINITY for sizes of infinite variance. The throughput's CI
 *  (SimFluidResult) adds it to the batch means' in quadrature (conservative: they see a share of
 *  it), which alone miss much of it near saturation, where the queues smooth the arrivals over
 *  the batches (positively correlated batches): tests/test_fluid.c, a wire at 1.05 x the load,
 *  40 seeds: served sd 0.81 x this one, the batch means' half-width / 1.96 0.66 x that sd. */
double sim_fluid_offered_sd_bytes(const SimFluidSpec *spec);

/* Runs the simulation of a checked spec. */
SimFluidResult *sim_fluid_run(const SimFluidSpec *spec);

/* As sim_fluid_run(), reporting to @obs (sim/observe.h; may be NULL): progress in simulated
 *  seconds of spec->duration_ns, and traces whose components are the resources (the requests
 *  of every class that uses one), the classes and "requests" (every request).  Info: a
 *  request's completion; debug: also its arrival, slot, transfer start or rejection.  The
 *  results are the same as without @obs. */
SimFluidResult *sim_fluid_run_observed(const SimFluidSpec *spec, const SimObserver *obs);

/* Frees @res and its per-resource results (NULL is ignored). */
void sim_fluid_result_free(SimFluidResult *res);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SimFluidResult, sim_fluid_result_free)

#endif /* SIM_FLUID_H */
