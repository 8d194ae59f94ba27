/* appliance_bound.h — analytic mode: the bottleneck law over the demand model.
 *
 * What it models: with D_r the demand of resource r per served byte and C_r its capacity,
 * the saturation throughput is X* = min_r limit_r C_r / D_r (limit = CPU cap, else 1). At an
 * offered load L (B/s) the served throughput is X = min(L, X*) and each resource runs at
 * utilisation u_r = X D_r / C_r; the rest of the offered load, L - X, is unserved. A NIC port's
 * output queue drops the M/M/1/K share of the load it carries, rho = X D / C
 * (nic_port_drop_fraction; at most 1/(K+1), at line rate): TCP senders back off at a full
 * port, so load above line rate is unserved, not dropped. Request latency: each
 * class's request of R bytes passes the drive (latency + R/bw), its CPU node (R * cpb on one
 * core) and its egress port (R / port rate); each stage is an M/M/1 sojourn s / (1 - u), and
 * the class total is taken as exponential, so p50/p99 solve sum_c w_c (1 - exp(-t/T_c)) = q
 * (GSL bisection, sim/roots.h).
 * Leaves out: anything time-dependent (transients, TCP dynamics, skew between drives of one
 * class): that is the discrete-event model's job.
 */
#ifndef MODELS_APPLIANCE_BOUND_H
#define MODELS_APPLIANCE_BOUND_H
#include "models/demand.h"

typedef struct {
  double offered_Bps;    /* G_MAXDOUBLE for "saturate" */
  double sat_Bps;        /* X*, bottleneck-law saturation throughput */
  int bottleneck;        /* resource index limiting X* */
  double throughput_Bps; /* min(offered, X*) */
  int n_res;
  double *util;             /* [n_res] utilisation at the served throughput, 0..1 */
  double *offered_util;     /* [n_res] load/capacity at the offered load (can exceed 1) */
  double *drop;             /* [n_res] output-queue drop fraction of the carried load (NIC ports), 0 elsewhere */
  double cpu_util;          /* busy cycles / all cycles, 0..1 */
  double cpu_util_max_node; /* busiest node, 0..1 */
  double lat_mean_ms, lat_p50_ms, lat_p99_ms;
  double connections; /* throughput / mean client bitrate */
} BoundResult;

/* Evaluates the model at an offered load in Gb/s (<= 0: saturate). (transfer full) */
BoundResult *bound_eval(const Appliance *a, const DemandModel *m, double offered_gbps);
void bound_result_free(BoundResult *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(BoundResult, bound_result_free)

#endif /* MODELS_APPLIANCE_BOUND_H */
