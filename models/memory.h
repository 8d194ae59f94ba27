/* memory.h — per-node DRAM bandwidth, loaded latency and the CPU's read concurrency.
 *
 * What it models: a NUMA node owns channels_per_socket / NPS channels. Its usable bandwidth
 *     C = channels * MT/s * 8 B * eff(w)                                           [GB/s]
 * - eff(w) = dram_eff * (1 - dram_turnaround * 4 w (1 - w)): the controller efficiency at
 *   write fraction w of the node's traffic; bus read/write turnarounds cost most at a 1:1 mix.
 *   dram_eff is a shared coefficient fitted by `make fit`; dram_turnaround is a fixed shared
 *   coefficient sized from measured mixed read/write bandwidth (Intel MLC, DDR4: 0.051, coeffs.c;
 *   no DDR5 figure found, so DDR5 boxes use it too). The capacity does not depend on latency: a longer latency lowers
 *   what the cores can keep in flight (below), not what the controllers deliver.
 * - Latency seen by a requester on node a for a line on node m, idle:
 *     L = L0 + f_x P_q + penalty(a, m)
 *   f_x is the fraction of a node's lines in another quadrant (3/4 in NPS1 on a 4-quadrant EPYC,
 *   0 in NPS4) and P_q the quadrant-crossing penalty (euro2021: 12-28 ns).
 * - Loaded latency: L(u) = L + load_latency * u at node utilisation u (0..1, traffic over C), the
 *   line through a published loaded-latency curve (mem_load_ns). Intel MLC on a 2S Xeon Silver 4110
 *   with 12 DDR4 DIMMs (read-only traffic; Intel community forum, "Intel Memory Latency Checker v3.5
 *   test", 2018) reads 82 ns idle, 91 ns at 22.6 GB/s, 95 at 42.7, 99 at 68.4, 124 at 131.3 and 130
 *   at its 135.7 GB/s peak: +45 ns at full bandwidth fits every point within 6 ns (memory.load_latency
 *   default). The demand model (demand.h) turns it into stall cycles of CPU reads and longer PCIe
 *   tag holding, so DRAM load shows up as CPU time well below saturation, not as a knee.
 * - CPU read concurrency (Little's law): the cores of a node keep at most cores * mlp lines in
 *   flight, so CPU reads of a node deliver at most cores * mlp * 64 B / L(u) (mem_cpu_read_cap_GBps);
 *   device DMA is not limited by it. This is what lowers STREAM in NPS1 (longer L) on Rome: the
 *   memory-side capacity is the same in every NPS mode. mlp (memory.mlp) is the lines in flight per
 *   core with hardware prefetch (assumed 10: the order of the L1D miss buffers, 10-12 on Intel
 *   cores since Haswell, 22 misses on Zen; it sets the NPS1/NPS4 STREAM ratio, held in tests).
 * Leaves out: bank conflicts, refresh, page policy and DIMM ranks as separate terms (the measured
 * curve carries them), write-allocate in caches.
 */
#ifndef MODELS_MEMORY_H
#define MODELS_MEMORY_H
#include "models/topology.h"
#include "sim/conf.h"

typedef struct {
  int channels_per_socket;
  double speed_tps;       /* transfers/s of the DIMMs (DDR4-3200: 3.2e9) */
  double bus_bytes;       /* bytes per transfer: 8 (64-bit channel) */
  double latency_ns;      /* idle local latency L0 */
  double load_latency_ns; /* latency added at full bandwidth (the loaded-latency line) */
  double mlp;             /* lines in flight per core (CPU read concurrency) */
} MemoryCfg;

/* Peak (theoretical) bandwidth of one node, GB/s. */
double mem_node_peak_GBps(const MemoryCfg *m, const Topology *t);
/* Latency (ns) of a CPU or device on node a reading a line on node m, idle. */
double mem_latency_ns(const MemoryCfg *m, const Topology *t, int a, int node_m);
/* Latency (ns) added to every line of a node at utilisation u (clamped to 0..1): load_latency * u
 * (the MLC curve above). */
double mem_load_ns(const MemoryCfg *m, double u);
/* Usable bandwidth of one node, GB/s, at write fraction w (0..1) of its traffic. */
double mem_node_GBps(const MemoryCfg *m, const Topology *t, double dram_eff, double turnaround, double w);
/* CPU read bandwidth one node's cores can sustain at read latency lat_ns, GB/s:
 * cores_per_node * mlp * 64 B / lat_ns (Little's law; lat_ns > 0). */
double mem_cpu_read_cap_GBps(const MemoryCfg *m, const Topology *t, double lat_ns);
/* STREAM-triad-like bandwidth of the whole machine, GB/s (2 reads : 1 non-temporal write),
 * with every node used locally: per node the smaller of the controller capacity C and what
 * the cores' concurrency allows at the loaded latency it causes: the reads, 2/3 of the traffic B,
 * meet the cap, (2/3) B = cores * mlp * 64 / (L + load_latency * B / C), a quadratic in B;
 * summed over the nodes.
 * Used by `make fit` against quoted STREAM figures. */
double mem_stream_GBps(const MemoryCfg *m, const Topology *t, double dram_eff, double turnaround);

/* Keys of the scenario's `memory:` section (component.h: offsets into AppConf). */
extern const SimConfField memory_schema[];

#endif /* MODELS_MEMORY_H */
