/* models/appliance_des.h — `ocasim run` for appliance scenarios: the discrete-event model.
 *
 * The demand model (demand.h) gives the resources and, for every traffic class,
 * the units of each resource one served byte consumes.  This module turns them
 * into a request-level fluid simulation (sim/fluid.h): requests with sizes
 * drawn from workload.request_size_dist (mean request_size) arrive (from
 * paced clients at the offered load, workload.h: offered / mean bitrate
 * clients each fetching a segment per segment duration, its requests one
 * after another;
 * or one Poisson stream with workload.arrivals: poisson, or above
 * DES_MAX_CLIENTS clients; or an endless backlog for "saturate"), wait for a
 * free slot, pay their drive's read latency (lognormal, mean nvme[].latency,
 * CV nvme[].latency_cv, from the drive's stream "nvmeD.latency"), then move
 * their bytes through every resource of their class at once, sharing each
 * resource max-min fairly with the other requests.
 * Latency, as reported: from a request's arrival to its last byte handed to
 * the NIC = slot wait + drive read latency + shared transfer. Its spread comes
 * only from the inputs (size and drive-latency distributions, the arrivals of
 * paced clients); with both CVs 0 and a saturated box every request is alike.
 * A request's class is drawn by the classes' weights, so the run routes as the
 * bound does (the even LACP hash over the ports, demand.c), with the demand the
 * bound sized at its own served throughput (DemandModel.sized_Bps): user-buffer
 * residency, NIC context-cache misses and the auto-sized page cache are the
 * bound's, not re-solved at the run's measured throughput (within its CI of it
 * at saturation).
 *
 * Requests in flight: a drive keeps queue_depth reads of io_bytes outstanding
 * (nvme.h) and a request is request_bytes / io_bytes reads (one read when
 * io_bytes >= request_bytes), so the box holds sum over drives of queue_depth x
 * min(1, io_bytes / request_bytes) requests, at least 64.
 * Resource capacities are the demand model's capacity x limit (the CPU cap),
 * so at saturation the simulation must meet the bottleneck law of `ocasim
 * bound` (within 3% on scenarios without skew; tested).
 * NIC output drops: the fluid flows carry no packets, so a port's drop fraction
 * is its output queue's M/M/1/K share (nic_port_drop_fraction) at the load it
 * carries, as in bound (a saturated port drops 1/(K+1)). An offered load above
 * the bound's saturation throughput, or arrivals turned away, mark the run
 * overloaded, and so does a run that served less than offered by more than its
 * throughput CI (which holds the offered load's own noise over the measured time,
 * sim_fluid_offered_sd_bytes): offered minus served is then reported as unserved;
 * within the CI the shortfall is arrival noise.
 * Leaves out: packet-level TCP dynamics, retransmissions, a client's TCP
 * rate within a request (a request's bytes move at its max-min share).
 */
#ifndef MODELS_APPLIANCE_DES_H
#define MODELS_APPLIANCE_DES_H

#include "models/appliance_report.h"
#include "sim/fluid.h"

/* Request slots of @a's DES (the requests it keeps in flight, above): sum over drives of
 * queue_depth x min(1, io_bytes / request_bytes), rounded up, at least 64. The bound's latency
 * (appliance_bound.h) uses the same population. */
int appliance_des_slots(const Appliance *a);

/* Builds the fluid-simulation spec of @a (demand model @m) for a run of @info's
 *  duration and warm-up.  Returns: (transfer full). */
SimFluidSpec *appliance_des_spec(const Appliance *a, const AppScenarioInfo *info, const DemandModel *m);

/* What `ocasim run` would refuse before simulating, for `ocasim check`: a spec the fluid
 *  simulation cannot run, or a run of more than DES_MAX_REQUESTS requests (5e9, about an hour of
 *  CPU). FALSE with a MODEL_ERROR at the key to change ("duration", or "workload.offered" when
 *  an offered load above the saturation throughput makes every arrival an event). */
gboolean appliance_des_check(const Appliance *a, const AppScenarioInfo *info, const DemandModel *m, GError **error);

/* Measured time (duration - warm-up) per segment_duration below which a paced run warns: a
 *  client fetches a segment in only a small share of such runs, so the offered load arrives in
 *  few, large fetches and the throughput estimate is noisy (its CI wide: it holds that noise).  0.25 is assumed, placed between two
 *  measurements (rome-400g-nic-ktls at 200 Gb/s offered, 8 seeds, 1.8 s measured): 6 s segments
 *  (ratio 0.3) gave 197.5-204.3 Gb/s, half-widths about 5; 60 s segments (ratio 0.03)
 *  179.3-206.7 Gb/s, half-widths 10-17 (mean 198.7: noise, not a bias, over those seeds). */
#define DES_PACED_MIN_MEASURED_SEGMENTS 0.25

/* The warning of a paced run of @a too short for its segments (see above), or NULL when the run
 *  is long enough, not paced, or saturated.  Returns: (transfer full). */
char *appliance_des_short_run_warning(const Appliance *a, const AppScenarioInfo *info);

/* Runs the discrete-event model; returns the report (mode "run") and, when
 *  @raw is not NULL, the raw fluid-simulation result (transfer full) for tests.
 *  Errors: a model the simulation cannot run (no class with load, a run too
 *  short for its batches), with NULL returned. */
AppReport *appliance_des_run(const Appliance *a, const AppScenarioInfo *info, const DemandModel *m, SimFluidResult **raw,
                             GError **error);

/* As appliance_des_run(), reporting progress and traces to @obs (sim/observe.h; may be NULL;
 *  the components a trace may name are the demand model's resources, e.g. "nvme0",
 *  "dram.node1", "nic0.port0", its traffic classes, and "requests").  Same results. */
AppReport *appliance_des_run_observed(const Appliance *a, const AppScenarioInfo *info, const DemandModel *m,
                                      const SimObserver *obs, SimFluidResult **raw, GError **error);

#endif /* MODELS_APPLIANCE_DES_H */
