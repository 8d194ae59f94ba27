/* appliance_bound.h — analytic mode: the bottleneck law over the demand model.
 *
 * What it models: with D_r the demand of resource r per served byte and C_r its capacity,
 * the saturation throughput is X* = min_r limit_r C_r / D_r (limit = CPU cap, else 1). At an
 * offered load L (B/s) the served throughput is X = min(L, X*) and each resource runs at
 * utilisation u_r = X D_r / C_r; the rest of the offered load, L - X, is unserved. A NIC port's
 * output queue drops the M/M/1/K share of the load it carries, rho = X D / C
 * (nic_port_drop_fraction; at most 1/(K+1), at line rate): TCP senders back off at a full
 * port, so load above line rate is unserved, not dropped.
 * Request latency: the latency of the discrete-event model (appliance_des.h) from queueing
 * theory of its own semantics, not a tandem of FCFS queues. A request of class k and S bytes
 * (S from workload.request_size_dist) waits its drive's read latency l_k (mean nvme[].latency),
 * then moves its bytes through all of its resources at once, each shared max-min fairly with the
 * other requests: at every resource, processor sharing (PS). Let c_kr = C_r limit_r / d_kr be the
 * byte rate resource r gives class k alone, rho_r = X D_r / (C_r limit_r) its utilisation.
 *   Open regime (offered < X*): a PS queue with Poisson arrivals has the geometric number of
 *   requests P(n) = (1 - rho) rho^n whatever the size distribution (M/G/1-PS insensitivity:
 *   Kleinrock, Queueing Systems Vol. 2, 1976, sec. 4.4; Harchol-Balter, Performance Modeling
 *   and Design of Computer Systems, 2013, ch. 22), and a request of size x that finds n others
 *   takes in expectation, in units of the mean size's time alone x_bar = E[S] / c,
 *     E[T | x_bar, n] = x_bar / (1 - rho) + ((1 + n)(1 - rho) - 1)(1 - e^-(1 - rho)) x_bar / (1 - rho)^2
 *   (M/M/1-PS given the number found at arrival, Kleinrock Vol. 2 sec. 4.4, after Coffman, Muntz
 *   and Trotter 1970; bound_ps_time), whose mean over n is the PS sojourn x_bar / (1 - rho). The
 *   request's resource is the one of largest mean PS time per byte 1 / (c_kr (1 - rho_r)) (a
 *   max-min flow moves at the share of its most loaded resource: the standard approximation of
 *   bandwidth-sharing networks, Bonald and Massoulie 2001), and the time per byte is never below
 *   its time alone, max_r 1 / c_kr. Approximations: the others at that resource are taken to
 *   be of the request's class, sizes other than exponential enter through E[T | n] scaled by
 *   S / E[S], and the drive latency at its mean (its CV 0.26 on 90 us is small beside a transfer).
 *   Closed regime (saturate, or offered >= X*): the DES keeps its N request slots
 *   (appliance_des_slots) busy, so by Little's law the mean latency is N E[S] / X* (Lazowska et
 *   al., Quantitative System Performance, 1984, ch. 3: R = N / X - Z with think time Z = 0). The
 *   saturated resources share what that leaves: every resource keeps a spare share
 *   s_r = max(1 - rho_r, eps) with eps solving sum_k w_k (l_k + E[S] max_r 1 / (c_kr s_r)) =
 *   N E[S] / X* (bound_slot_share; GSL Brent), and every request finds the same company, so a
 *   class's time is l_k + S max_r 1 / (c_kr s_r) (its spread is the size's). Below saturation
 *   the same floor eps bounds each resource's spare share (the slots bound how many requests
 *   share a resource), which keeps the open regime finite and continuous in mean up to X*.
 *   p50 and p99 solve sum_k w_k sum_n P(n) F_S((t - l_k) / y_kn) = q (GSL bisection), y_kn the
 *   time per byte given n (buckets of n, LAT_BUCKET_GROWTH). Held against `ocasim run`
 *   (tests/test_appliance_bound.c: p50 within 25 %, p99 within 50 %, docs/outputs.md).
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
/* Mean PS sojourn, in units of the time alone, of a request of the mean size (mu x = 1) that
 * finds n others at an M/M/1-PS resource of utilisation rho in [0, 1) (see above; Kleinrock Vol. 2
 * sec. 4.4): 1 / (1 - rho) + ((1 + n)(1 - rho) - 1)(1 - e^-(1 - rho)) / (1 - rho)^2. NAN outside. */
double bound_ps_time(double rho, double n);
/* The spare share eps every resource keeps when the DES's N slots are all busy at the saturation
 * throughput @sat_Bps (B/s): the root of sum_k w_k (l_k + E[S] max_r 1 / (c_kr max(1 - rho_r, eps)))
 * = N E[S] / X* (Little's law, see above), in [1e-12, 1]; 1 when N requests alone fit, 0 when no
 * resource saturates. */
double bound_slot_share(const Appliance *a, const DemandModel *m, double sat_Bps);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(BoundResult, bound_result_free)

#endif /* MODELS_APPLIANCE_BOUND_H */
