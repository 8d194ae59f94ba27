/* appliance_bound.h — analytic mode: the bottleneck law over the demand model.
 *
 * What it models: with D_r the demand of resource r per served byte and C_r its capacity,
 * the saturation throughput is X* = min_r limit_r C_r / D_r (limit = CPU cap, else 1). At an
 * offered load L (B/s) the served throughput is X = min(L, X*) and each resource runs at
 * utilisation u_r = X D_r / C_r; the rest of the offered load, L - X, is unserved. A NIC port's
 * output queue drops the M/M/1/K share of the load it carries, rho = X D / C
 * (nic_port_drop_fraction; at most 1/(K+1), at line rate): TCP senders back off at a full
 * port, so load above line rate is unserved, not dropped.
 * Request latency: the latency of the discrete-event model (appliance_des.h) from the queueing
 * theory of its own semantics, not a tandem of FCFS queues. A request of class k and S bytes
 * (S from workload.request_size_dist) waits its drive's read latency l_k (nvme[].latency), then
 * moves its bytes through all of its resources at once, sharing each max-min fairly with the other
 * requests (per resource, processor sharing: PS). c_kr = C_r limit_r / d_kr is the byte rate
 * resource r gives class k alone, rho_r = X D_r / (C_r limit_r) its utilisation at throughput X.
 * A request's time per byte is the largest over its resources of each resource's (a max-min flow
 * moves at its most constraining share, Bonald and Massoulie 2001), never below its time alone
 * max_r 1 / c_kr, with the resources' queues independent (product form: Jackson, BCMP; Lazowska
 * et al., Quantitative System Performance, 1984, the separable networks of part II), and its
 * latency l_k + S x that time.
 *   Open (offered < X*): the DES's paced clients (offered / mean bitrate of them, tens of
 *   thousands, each with at most one request outstanding) superpose to nearly Poisson arrivals
 *   (Palm-Khintchine), and the population that bounds a resource's company is the N request
 *   slots (below), far fewer than the clients. At a PS resource with Poisson arrivals the number of requests is
 *   geometric, P(n) = (1 - rho) rho^n, whatever the size distribution (M/G/1-PS insensitivity:
 *   Kleinrock, Queueing Systems Vol. 2, 1976, processor sharing; Harchol-Balter, Performance
 *   Modeling and Design of Computer Systems, 2013, PS and BCMP), and a request of the mean size (time alone
 *   x = E[S] / c) that finds n others takes in expectation
 *     E[T | x, n] = x / (1 - rho) + ((1 + n)(1 - rho) - 1)(1 - e^-(1 - rho)) x / (1 - rho)^2
 *   (M/M/1-PS given the company at arrival, after Coffman, Muntz and Trotter, JACM 1970;
 *   bound_ps_time: per request found, x more for a short request and a busy period
 *   E[S] / (c (1 - rho)) for a long one; mean over n the PS sojourn x / (1 - rho), at rho = 0.5
 *   2x; checked for
 *   n = 0..5 at rho = 0.5 against a simulated M/M/1-PS, within 1 %). A request of S bytes
 *   takes S / E[S] of it.
 *   Closed (saturate, or offered >= X*): the DES keeps its N request slots (appliance_des_slots)
 *   busy, so by Little's law the mean latency is N E[S] / X* (Lazowska et al. ch. 3, R = N / X - Z
 *   with think time Z = 0). Every resource keeps a spare share s_r = max(1 - rho_r, eps): the
 *   saturated resources (1 - rho_r <= eps) share the slots, m = 1 / eps - 1 others per request
 *   on average. K_r = 1 / (share of requests using r) such resources hold them, equally loaded,
 *   so the company a request finds is the share u ~ Beta(1, K_r - 1) of K_r m (the marginal of a
 *   closed product-form network of K equally loaded PS queues is uniform over the compositions;
 *   Kelly, Reversibility and Stochastic Networks, 1979), frozen while it moves: time per byte
 *   (u K_r m + 1) / c_kr (K_r = 1: exactly m). Resources below saturation keep the open geometric
 *   company at rho_r. eps is solved (bound_slot_share, GSL Brent) so that the mean of this whole
 *   estimate is Little's N E[S] / X*.
 *   Below X* the open estimate uses the same floor eps and is never above the closed one (the
 *   slots bound the company a request can find; the FIFO wait for a slot beyond it is left out),
 *   so latency rises with the load up to the saturated figure.
 *   p50 and p99 solve sum over classes and atoms of w p F_S((t - l) / y) = q (GSL bisection),
 *   the company in buckets (LAT_BUCKET_GROWTH, LAT_SHARE_BUCKETS, LAT_MERGE_RATIO).
 *   Approximations: the others at a resource are taken to be of the request's own class, the
 *   company found at arrival stands for the whole transfer of a saturated resource, sizes other
 *   than exponential enter through E[T | n] scaled by S / E[S], and the drive latency at its
 *   mean (its CV 0.26 of ~90 us is small beside a transfer). Held against `ocasim run` on every
 *   appliance scenario at 10, 50, 80 % and saturated load (docs/outputs.md: 126 of 128 points
 *   with p50 within 25 % and p99 within 50 %; tests/test_appliance_bound.c).
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
/* A memo of bound_eval's closed estimate (the slot share eps at X*, the latency mixture there, its
 * mean and quantiles) for callers that evaluate many models, some of which give it the same
 * inputs (a sweep over the offered load: above X* the class demands, hence the estimate, are
 * the same at every load). An entry is reused only where every input the closed estimate reads
 * is equal bit for bit (the classes' weights, drive latencies and byte rates alone per
 * resource, the shares of requests per resource, the spare shares at X*, X*, the slots, the
 * request size law), so results are those of bound_eval without a memo, bit for bit. Not
 * thread-safe: one memo per thread. */
typedef struct BoundMemo BoundMemo;
/* A new empty memo. (transfer full) */
BoundMemo *bound_memo_new(void);
/* Frees a memo (NULL is allowed). */
void bound_memo_free(BoundMemo *memo);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(BoundMemo, bound_memo_free)
/* bound_eval() taking the closed estimate from @memo where it holds it for these inputs and
 * keeping it there otherwise (@memo NULL: bound_eval). The same result, bit for bit.
 * (transfer full) */
BoundResult *bound_eval_memo(const Appliance *a, const DemandModel *m, double offered_gbps, BoundMemo *memo);
/* bound_eval() without the latency estimate (lat_*_ms are NAN): the rates, utilisations, drops
 * and CPU alone, bit for bit those of bound_eval(), for callers that read no latency (the fit
 * evaluates every published result thousands of times, where the latency is ~90 % of the cost).
 * (transfer full) */
BoundResult *bound_eval_rates(const Appliance *a, const DemandModel *m, double offered_gbps);
/* Frees a result of bound_eval (NULL is allowed). */
void bound_result_free(BoundResult *r);
/* Mean PS sojourn, in units of the time alone, of a request of the mean size (mu x = 1) that
 * finds n others at an M/M/1-PS resource of utilisation rho in [0, 1) (see above; after Coffman,
 * Muntz and Trotter 1970): 1 / (1 - rho) + ((1 + n)(1 - rho) - 1)(1 - e^-(1 - rho)) / (1 - rho)^2.
 * NAN outside (rho not in [0, 1), n < 0). */
double bound_ps_time(double rho, double n);
/* The spare share eps every resource keeps when the DES's N slots (appliance_des_slots) are all
 * busy at the saturation throughput @sat_Bps (B/s): the eps at which the closed estimate's mean
 * latency (see above) is Little's N E[S] / X*, to a relative 1e-9 (GSL Brent, bracketed below by the
 * root of sum_k w_k (l_k + E[S] max_r 1 / (c_kr max(1 - rho_r, eps))) = N E[S] / X*, which the mean
 * of a largest can only exceed); 1 when N requests alone fit, 0 when no resource saturates. */
double bound_slot_share(const Appliance *a, const DemandModel *m, double sat_Bps);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(BoundResult, bound_result_free)

#endif /* MODELS_APPLIANCE_BOUND_H */
