/* modes/bound.h — analytic mode: the bottleneck law over the demand model.
 *
 * What it models: X* = min_r limit_r C_r / D_r, X = min(L, X*), u_r = X D_r / C_r; port drops the
 * M/M/1/K share at rho = X D / C. Request latency of the DES's semantics: a request of S bytes waits
 * its drive latency l_k then moves at its most constraining PS share, latency l_k + S x time per byte.
 *   open:   E[T | x, n] = x / (1 - rho) + ((1 + n)(1 - rho) - 1)(1 - e^-(1 - rho)) x / (1 - rho)^2
 *   closed: Little's law over the N slots, mean latency N E[S] / X*, company ~ Beta(1, K_r - 1)
 * p50 and p99 solve sum_k,atoms w p F_S((t - l) / y) = q (GSL bisection).
 * Sources: Bonald and Massoulie 2001; Lazowska et al. 1984; Kleinrock 1976; Harchol-Balter 2013;
 * Coffman, Muntz and Trotter, JACM 1970; Kelly 1979. Held against `ocasim run` (docs/outputs.md).
 * Leaves out: anything time-dependent (transients, TCP dynamics, skew between drives of one
 * class): that is the discrete-event model's job.
 * Evidence and history: docs/model/bound.md.
 */
#ifndef MODELS_MODES_BOUND_H
#define MODELS_MODES_BOUND_H
#include "models/appliance/demand.h"

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
/* The spare share eps every resource keeps when the DES's N slots (des_slots) are all
 * busy at the saturation throughput @sat_Bps (B/s): the eps at which the closed estimate's mean
 * latency (see above) is Little's N E[S] / X*, to a relative 1e-9 (GSL Brent, bracketed below by the
 * root of sum_k w_k (l_k + E[S] max_r 1 / (c_kr max(1 - rho_r, eps))) = N E[S] / X*, which the mean
 * of a largest can only exceed); 1 when N requests alone fit, 0 when no resource saturates. */
double bound_slot_share(const Appliance *a, const DemandModel *m, double sat_Bps);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(BoundResult, bound_result_free)

#endif /* MODELS_MODES_BOUND_H */
