/* models/modes/des.h — `ocasim run` for appliance scenarios: the discrete-event model.
 *
 * What it models: the demand model (demand.h) turned into a request-level fluid simulation
 * (sim/fluid.h): requests of workload.request_size_dist arrive (paced clients, Poisson, or an
 * endless backlog for "saturate"), wait for one of N slots, pay their drive's lognormal read latency,
 * then move their bytes through every resource of their class at once, max-min fair.
 *     N = max(64, sum_drives queue_depth x min(1, io_bytes / request_bytes))
 *     latency = slot wait + drive read latency + shared transfer
 * Capacities are capacity x limit, so at saturation the run meets `ocasim bound` (within 3%, tested);
 * port drops are the M/M/1/K share at the load carried (nic_port_drop_fraction).
 * Leaves out: packet-level TCP dynamics, retransmissions, a client's TCP
 * rate within a request (a request's bytes move at its max-min share).
 * Evidence and history: docs/model/des.md.
 */
#ifndef MODELS_MODES_DES_H
#define MODELS_MODES_DES_H

#include "models/modes/report.h"
#include "sim/fluid.h"

/* Request slots of @a's DES (the requests it keeps in flight, above): sum over drives of
 * queue_depth x min(1, io_bytes / request_bytes), rounded up, at least 64. The bound's latency
 * (modes/bound.h) uses the same population. */
int des_slots(const Appliance *a);

/* Builds the fluid-simulation spec of @a (demand model @m) for a run of @info's
 *  duration and warm-up.  Returns: (transfer full). */
SimFluidSpec *des_spec(const Appliance *a, const AppScenarioInfo *info, const DemandModel *m);

/* What `ocasim run` would refuse before simulating, for `ocasim check`: a spec the fluid
 *  simulation cannot run, or a run of more than DES_MAX_REQUESTS requests (5e9, about an hour of
 *  CPU). FALSE with a MODEL_ERROR at the key to change ("duration", or "workload.offered" when
 *  an offered load above the saturation throughput makes every arrival an event). */
gboolean des_check(const Appliance *a, const AppScenarioInfo *info, const DemandModel *m, GError **error);

/* Measured time (duration - warm-up) per segment_duration below which a paced run warns: a
 *  client fetches a segment in only a small share of such runs, so the offered load arrives in
 *  few, large fetches and the throughput estimate is noisy (its CI wide: it holds that noise).  0.25 is assumed, placed between
 *  two measurements (rome-400g-nic-ktls at 200 Gb/s offered, 8 seeds, 1.8 s measured): 6 s segments
 *  (ratio 0.3) gave 197.5-204.3 Gb/s, half-widths about 5; 60 s segments (ratio 0.03)
 *  179.3-206.7 Gb/s, half-widths 10-17 (mean 198.7: noise, not a bias, over those seeds). */
#define DES_PACED_MIN_MEASURED_SEGMENTS 0.25

/* The warning of a paced run of @a too short for its segments (see above), or NULL when the run
 *  is long enough, not paced, or saturated.  Returns: (transfer full). */
char *des_short_run_warning(const Appliance *a, const AppScenarioInfo *info);

/* Runs the discrete-event model; returns the report (mode "run") and, when
 *  @raw is not NULL, the raw fluid-simulation result (transfer full) for tests.
 *  Errors: a model the simulation cannot run (no class with load, a run too
 *  short for its batches), with NULL returned. */
AppReport *des_run(const Appliance *a, const AppScenarioInfo *info, const DemandModel *m, SimFluidResult **raw, GError **error);

/* As des_run(), reporting progress and traces to @obs (sim/observe.h; may be NULL;
 *  the components a trace may name are the demand model's resources, e.g. "nvme0",
 *  "dram.node1", "nic0.port0", its traffic classes, and "requests").  Same results. */
AppReport *des_run_observed(const Appliance *a, const AppScenarioInfo *info, const DemandModel *m, const SimObserver *obs,
                            SimFluidResult **raw, GError **error);

#endif /* MODELS_MODES_DES_H */
