/* memory.h — per-node DRAM bandwidth, loaded latency and the CPU's read concurrency.
 *
 * What it models: a NUMA node owns channels_per_socket / NPS channels. Its usable bandwidth
 *     C = channels * MT/s * 8 B * eff(w)                                           [GB/s]
 * - eff(w) = dram_eff * (1 - dram_turnaround * 4 w (1 - w)): the controller efficiency at
 *   write fraction w of the node's traffic; bus read/write turnarounds cost most at a 1:1 mix.
 *   dram_eff is a shared coefficient fitted by `make fit`; dram_turnaround is a fixed shared
 *   coefficient sized from measured mixed read/write bandwidth (Intel MLC: one figure per DDR
 *   generation, coeffs.c, mem_turnaround). The capacity does not depend on latency: a longer latency lowers
 *   what the cores can keep in flight (below), not what the controllers deliver.
 * - Latency seen by a requester on node a for a line on node m, idle:
 *     L = L0 + f_x P_q + penalty(a, m)
 *   f_x is the fraction of a node's lines in another quadrant (3/4 in NPS1 on a 4-quadrant EPYC,
 *   0 in NPS4) and P_q the quadrant-crossing penalty (euro2021: 12-28 ns).
 * - Loaded latency: L(u) = L + W(u) at node utilisation u (0..1, traffic over C), W the platform's
 *   loaded-latency curve (mem_load_ns, MemCurve): the latency a measured read-only curve (Intel MLC
 *   --loaded_latency: rows of (bandwidth, latency)) adds above its own first, lightest-load point,
 *   as a function of utilisation, where a row's utilisation is its bandwidth over the curve's own
 *   peak (its largest bandwidth; loaded_latency.capacity instead when given, for a probe that does
 *   not saturate the memory, as `ocasim validate`'s with its few threads). That maps onto the model's rho = traffic / C because MLC's peak
 *   read bandwidth is the usable capacity of read-only traffic on that machine, as C is the model's
 *   usable capacity: the curve moves between machines in (fraction of capacity, added ns), not in
 *   GB/s, which do not transfer. Between rows W is piecewise linear in u; below the first row 0;
 *   above the last kept row the last segment is extended to u = 1 (and held there), so W is
 *   continuous and non-decreasing (the X* root finder, GSL Brent, needs that).
 *   Saturated rows (mem_curve_from_points): MLC's heaviest rows (inject delay 0-100) sit on a
 *   plateau, bandwidth flat while latency climbs: that climb is MLC's own threads queueing for a
 *   saturated memory (Little's law of a fixed number of loading threads), which the model's
 *   cpu_lines concurrency resource already represents. Of the rows within MEM_CURVE_PLATEAU of
 *   the peak bandwidth only the first (the lightest load that reaches the plateau) is kept; the
 *   later ones are dropped. Keys: memory.loaded_latency {source, capacity, points} (a measured
 *   curve), or memory.load_latency (a line: W(u) = load_latency x u), not both in one file; one
 *   given by the scenario or --set replaces the platform file's whole (memory.c, layer_of).
 *   Platform files carry the curve of an MLC run on the same memory controller generation where
 *   one is published (skx-4216-2s: Cascade Lake, bdw-e5-2697a: Broadwell-EP, icx-8352v: Ice
 *   Lake-SP; test_fabric.c holds that one generation's curves agree in these units, within 5 ns
 *   up to u = 0.8, and another's does not). Neither key: the default
 *   curve, Intel MLC on a 2S Xeon Silver 4110 with 12 DDR4 DIMMs (read-only traffic; Intel
 *   community forum, "Intel Memory Latency Checker v3.5 test", 2018): 82 ns at 1.24 GB/s, 88 at
 *   9.7, 91 at 22.6, 95 at 42.7, 99 at 68.4, 124 at 131.3 and 130 at its 135.7 GB/s peak (the last
 *   row within 5 % of the peak after 131.3, so dropped as saturated: W(1) = 43.4 ns). The demand
 *   model (demand.h) turns it into stall cycles of CPU reads and longer PCIe tag holding, so DRAM
 *   load shows up as CPU time well below saturation, not as a knee.
 * - DDR generation (memory.type, DDR4 or DDR5; auto: DDR5 from 4000 MT/s up, JEDEC's DDR4
 *   speed bins end at 3200 MT/s and DDR5's start at 4800): selects the read/write turnaround
 *   coefficient (coeffs.c: dram_turnaround for DDR4, dram_turnaround_ddr5 for DDR5) when the
 *   platform gives no measured figure of its own (memory.rw_turnaround: sized as coeffs.c sizes
 *   the generation's, from MLC --peak_injection_bandwidth's 3:1, 2:1 and 1:1 mixes against all
 *   reads). The write drain policy is the memory controller's, so a figure measured on the same
 *   CPU generation is the platform's; the spread between generations (0.05-0.18 on DDR4) is why
 *   the generation's coefficient is only the fallback.
 * - CPU read concurrency (Little's law): the cores of a node keep at most cores * mlp lines in
 *   flight, so CPU reads of a node deliver at most cores * mlp * 64 B / L(u) (mem_cpu_read_cap_GBps);
 *   device DMA is not limited by it. This is what lowers STREAM in NPS1 (longer L) on Rome: the
 *   memory-side capacity is the same in every NPS mode. mlp (memory.mlp) is the lines in flight per
 *   core with hardware prefetch (assumed 10: the order of the L1D miss buffers, 10-12 on Intel
 *   cores since Haswell, 22 misses on Zen; it sets the NPS1/NPS4 STREAM ratio, held in tests).
 * Leaves out: bank conflicts, refresh, page policy and DIMM ranks as separate terms (the measured
 * curve carries them), write-allocate in caches, the curve's shape under mixed read/write traffic
 * (the curves are read-only; the mix costs capacity through eff(w), not latency).
 */
#ifndef MODELS_MEMORY_H
#define MODELS_MEMORY_H
#include "models/app_enum.h"
#include "models/coeffs.h"
#include "models/topology.h"
#include "sim/conf.h"

/* Most rows of a loaded-latency curve (array size; MLC prints 19 by default). */
#define MEM_CURVE_MAX 32
/* Rows within this fraction of the curve's peak bandwidth are on MLC's plateau; all but the first
 * are dropped as saturated (assumed: 5 %, wider than the 1-2 % spread of MLC's plateau rows and
 * narrower than the 20-30 % step between its delay-100 and delay-200 rows). */
#define MEM_CURVE_PLATEAU 0.05

/* A loaded-latency curve in model units: n rows (0: none, W = 0), utilisation u[i] ascending in
 * 0..1, ns[i] the latency added above row 0 (ns[0] = 0, non-decreasing). Plain data: copied by
 * value into the demand model's DRAM resources. */
typedef struct {
  int n;
  double u[MEM_CURVE_MAX];
  double ns[MEM_CURVE_MAX];
} MemCurve;

/* One row of memory.loaded_latency.points as bound (bandwidth B/s, latency ns). */
typedef struct {
  double bandwidth_Bps;
  double latency_ns;
} MemCurvePoint;

/* memory.loaded_latency as bound: where the curve comes from and its rows (MemCurvePoint). */
typedef struct {
  char *source;
  double capacity_Bps; /* the bandwidth at utilisation 1 (0: the largest row's) */
  SimConfList points;
} MemCurveConf;

/* DDR generation of the DIMMs (memory.type); auto: from the speed (above). */
#define MEM_TYPE_MAP(X)    \
  X(MEM_TYPE_AUTO, "auto") \
  X(MEM_TYPE_DDR4, "DDR4") \
  X(MEM_TYPE_DDR5, "DDR5")
typedef enum { MEM_TYPE_MAP(APP_ENUM_ID) MEM_TYPE_COUNT } MemType;
APP_ENUM_DECLARE(mem_type);

/* The DDR generation memory.type auto reads off a DIMM speed (@speed_tps, transfers/s): DDR5
 *  from 4000 MT/s up (DDR4's JEDEC speed bins end at 3200 MT/s, JESD79-4; DDR5's reach 4800 and
 *  up, JESD79-5), DDR4 below. */
MemType mem_type_of_speed(double speed_tps);

typedef struct {
  int channels_per_socket;
  double speed_tps;      /* transfers/s of the DIMMs (DDR4-3200: 3.2e9) */
  double bus_bytes;      /* bytes per transfer: 8 (64-bit channel) */
  double latency_ns;     /* idle local latency L0 */
  double mlp;            /* lines in flight per core (CPU read concurrency) */
  MemType type;          /* DDR4 or DDR5 once loaded (auto resolved from the speed) */
  double rw_turnaround;  /* bandwidth lost at a 1:1 read/write mix, measured on this platform; < 0: the
                            DDR generation's coefficient (memory.rw_turnaround, mem_turnaround) */
  MemCurve load;         /* the loaded-latency curve W(u) (memory.loaded_latency, the line, or the default) */
  char load_source[200]; /* where the curve comes from (the file's source text, or the default's) */
} MemoryCfg;

/* The latency (ns) curve c adds at utilisation u (clamped to 0..1): 0 below its first row,
 * piecewise linear between rows, its last segment extended up to u = 1 (above). 0 when c->n = 0. */
double mem_curve_ns(const MemCurve *c, double u);
/* Builds *out from n measured rows (bandwidth GB/s or any one unit, latency ns), lowest load
 * first: utilisation = bandwidth / capacity (<= 0: the largest bandwidth), latency above row 0; the plateau rule
 * above drops the saturated rows (*kept, may be NULL, gets how many rows were kept). Returns -1 on
 * success, else the index of the first bad row with *why set to a static message: bandwidth not
 * rising below the plateau, bandwidth falling off the plateau after it, latency falling as load
 * rises, a row above the capacity, fewer than 2 rows kept (index 0), more than MEM_CURVE_MAX, a
 * negative or non-finite value. */
int mem_curve_from_points(const double *bw, const double *lat_ns, int n, double capacity, MemCurve *out, int *kept,
                          const char **why);
/* The line W(u) = ns_at_full x u as a curve (memory.load_latency). */
void mem_curve_line(MemCurve *out, double ns_at_full);
/* The default curve (the Xeon Silver 4110 rows above) and its source text. */
void mem_curve_default(MemCurve *out, const char **source);
/* The read/write turnaround of m: its platform's measured figure (memory.rw_turnaround) when given,
 * else the coefficient of its DDR generation (coeffs.c: dram_turnaround, dram_turnaround_ddr5). A
 * fraction of the controller's bandwidth at a 1:1 mix, 0..1. */
double mem_turnaround(const MemoryCfg *m, const Coeffs *c);

/* Peak (theoretical) bandwidth of one node, GB/s. */
double mem_node_peak_GBps(const MemoryCfg *m, const Topology *t);
/* Latency (ns) of a CPU or device on node a reading a line on node m, idle. */
double mem_latency_ns(const MemoryCfg *m, const Topology *t, int a, int node_m);
/* Latency (ns) added to every line of a node at utilisation u (clamped to 0..1): the loaded-latency
 * curve W(u) (mem_curve_ns of m->load). */
double mem_load_ns(const MemoryCfg *m, double u);
/* Usable bandwidth of one node, GB/s, at write fraction w (0..1) of its traffic. */
double mem_node_GBps(const MemoryCfg *m, const Topology *t, double dram_eff, double turnaround, double w);
/* CPU read bandwidth one node's cores can sustain at read latency lat_ns, GB/s:
 * cores_per_node * mlp * 64 B / lat_ns (Little's law; lat_ns > 0). */
double mem_cpu_read_cap_GBps(const MemoryCfg *m, const Topology *t, double lat_ns);
/* STREAM-triad-like bandwidth of the whole machine, GB/s (2 reads : 1 non-temporal write),
 * with every node used locally: per node the smaller of the controller capacity C and what
 * the cores' concurrency allows at the loaded latency it causes: the reads, 2/3 of the traffic B,
 * meet the cap, (2/3) B = cores * mlp * 64 / (L + W(B / C)); B (L + W(B / C)) rises with B (W
 * is non-decreasing), so its one root in (0, C) is found by GSL Brent on that bracket (C when the
 * cores can keep the controllers busy); summed over the nodes.
 * Used by `make fit` against quoted STREAM figures. */
double mem_stream_GBps(const MemoryCfg *m, const Topology *t, double dram_eff, double turnaround);

/* Keys of the scenario's `memory:` section (component.h: offsets into AppConf). */
extern const SimConfField memory_schema[];

#endif /* MODELS_MEMORY_H */
