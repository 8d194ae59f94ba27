/* memory.h — per-node DRAM bandwidth, loaded latency and the CPU's read concurrency.
 *
 * What it models: a NUMA node of channels_per_socket / NPS channels, of usable bandwidth
 *     C = channels * MT/s * 8 B * eff(w),  eff(w) = dram_eff * (1 - dram_turnaround * 4 w (1 - w))
 * at write fraction w; latency for a line on node m seen from node a, idle and loaded,
 *     L = L0 + f_x P_q + penalty(a, m),    L(u) = L + W(u)
 * W the platform's loaded-latency curve in (utilisation, added ns) (mem_load_ns, MemCurve); CPU
 * reads of a node capped by Little's law at cores * mlp * 64 B / L(u) (mem_cpu_read_cap_GBps).
 * Sources: Intel MLC curves per platform file (default: 2S Xeon Silver 4110, Intel community
 * forum, 2018); euro2021 (P_q 12-28 ns); JEDEC speed bins (DDR4/DDR5); mlp assumed 10.
 * Leaves out: bank conflicts, refresh, page policy and DIMM ranks as separate terms (the measured
 * curve carries them), write-allocate in caches, the curve's shape under mixed read/write traffic.
 * Evidence and history: docs/model/memory.md.
 */
#ifndef MODELS_APPLIANCE_MEMORY_H
#define MODELS_APPLIANCE_MEMORY_H
#include "models/appliance/app_enum.h"
#include "models/appliance/coeffs.h"
#include "models/appliance/topology.h"
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

typedef struct DmResource DmResource;
/* The loaded latency (ns) of a DRAM node resource r at utilisation rho: mem_curve_ns of its
 * wait_curve (the memory's curve, copied in). The DmResource.wait_ns hook of the DRAM nodes. */
double mem_wait_ns(const DmResource *r, double rho);

/* The scenario's root rows of this component (components.h: the loader's root schema is the list's
 * rows; expanded where AppConf is defined, component.h). */
#define memory_conf_sections \
  { .key = "memory", .type = SIM_CONF_T_MAP, .offset = 0, .sub = memory_schema, .required = true, .doc = "DRAM" },

#endif /* MODELS_APPLIANCE_MEMORY_H */
