/* memory.h — per-node DRAM bandwidth and latency.
 *
 * What it models: a NUMA node owns channels_per_socket / NPS channels. Its usable bandwidth
 *     C = channels * MT/s * 8 B * eff(w) * L0 / (L0 + f_x * P_q)                 [GB/s]
 * - eff(w) = dram_eff * (1 - dram_turnaround * 4 w (1 - w)): the controller efficiency at
 *   write fraction w of the node's traffic; bus read/write turnarounds cost most at a 1:1 mix.
 *   dram_eff is a shared coefficient fitted by `make fit` (it also reproduces the quoted
 *   STREAM figures); dram_turnaround is a fixed shared coefficient (coeffs.h).
 * - L0 / (L0 + f_x P_q): with a fixed number of outstanding misses per core and device,
 *   bandwidth falls as latency rises (Little's law). f_x is the fraction of a node's lines
 *   in another quadrant (3/4 in NPS1 on a 4-quadrant EPYC, 0 in NPS4) and P_q the
 *   quadrant-crossing penalty (euro2021: 12-28 ns). With L0 = 90 ns and P_q = 20 ns this
 *   gives NPS1/NPS4 = 0.857, the quoted STREAM ratio 150/175 on Rome.
 * - Latency seen by a requester on node a for a line on node m:
 *     L = L0 + f_x P_q + penalty(a, m)
 *   and under load the M/D/1 queueing term rho/(2(1-rho)) * 64 B / (usable channel bandwidth)
 *   (mem_queue_ns): a line's transfer on one channel is the deterministic service, requests
 *   spread evenly over the node's channels. The demand model (demand.h) turns it into stall
 *   cycles of CPU reads, so a node near its bandwidth limit shows up as CPU time.
 * Leaves out: bank conflicts, refresh, page policy, DIMM ranks, write-allocate in caches.
 */
#ifndef MODELS_MEMORY_H
#define MODELS_MEMORY_H
#include "models/topology.h"
#include "sim/conf.h"

typedef struct {
  int channels_per_socket;
  double speed_tps;  /* transfers/s of the DIMMs (DDR4-3200: 3.2e9) */
  double bus_bytes;  /* bytes per transfer: 8 (64-bit channel) */
  double latency_ns; /* idle local latency L0 */
} MemoryCfg;

/* Peak (theoretical) bandwidth of one node, GB/s. */
double mem_node_peak_GBps(const MemoryCfg *m, const Topology *t);
/* Latency (ns) of a CPU or device on node a reading a line on node m, idle. */
double mem_latency_ns(const MemoryCfg *m, const Topology *t, int a, int node_m);
/* M/D/1 queueing delay (ns) of a 64 B line at a node with `channels` channels delivering
 * node_GBps together, at utilisation rho: rho / (2 (1 - rho)) * 64 B / (node_GBps / channels).
 * 0 for rho <= 0, +inf for rho >= 1. */
double mem_queue_ns(double channels, double node_GBps, double rho);
/* STREAM-triad-like bandwidth of the whole machine, GB/s (2 reads : 1 non-temporal write),
 * with every node used locally: used by `make fit` against quoted STREAM figures. */
double mem_stream_GBps(const MemoryCfg *m, const Topology *t, double dram_eff, double turnaround);

/* Keys of the scenario's `memory:` section (component.h: offsets into AppConf). */
extern const SimConfField memory_schema[];

#endif /* MODELS_MEMORY_H */
