/* modes/report.h — one report of an appliance run, printed the same way by `ocasim
 * bound` (analytic) and `ocasim run` (discrete-event): throughput, CPU %, request latency,
 * each resource with its utilisation and value in its unit (DRAM GB/s per node, fabric GB/s
 * per link and direction, PCIe GB/s per device, NIC Gb/s and drops per port, NVMe GB/s,
 * CPU % per node), and the bottleneck. Formats: a table with a utilisation bar per resource,
 * JSON (json-glib; top level throughput_gbps, cpu_util_pct (mean over nodes), cpu_busiest_node_pct,
 * cpu_busiest_node, cpu_idle_nodes, bottleneck {resource, kind,
 * util_frac}, co_bottlenecks [names of resources within DEMAND_COBOTTLENECK (5 %) of the
 * bottleneck's utilisation over limit: demand_co_bottlenecks], resources [{name, kind, util_frac, value, unit}], seed,
 * overrides, offered_gbps (null for saturate) with saturate, unserved_gbps; in run mode
 * throughput_ci95_gbps, latency CIs, requests_rejected and steady_state) and CSV (one row per
 * resource, every column of one type: docs/outputs.md). Numbers in CSV have full precision and
 * no locale (sim_csv_number_exact); booleans are true/false. Output order is the resource order
 * of the demand model (deterministic). The prediction interval (modes/interval.h) prints here too.
 */
#ifndef MODELS_MODES_REPORT_H
#define MODELS_MODES_REPORT_H
#include "models/modes/bound.h"
#include "models/appliance/loader.h"
#include "models/modes/interval.h"
#include <json-glib/json-glib.h>

typedef enum { APP_FMT_TABLE, APP_FMT_JSON, APP_FMT_CSV } AppReportFormat;

typedef struct {
  char name[40];
  const char *kind;
  double utilization; /* 0..1 of the capacity net of efficiency (docs/outputs.md: util_frac) */
  double limit;       /* usable fraction (CPU cap) */
  double value;       /* in unit */
  const char *unit;
  double drop; /* NIC ports: output drop fraction */
  int node;    /* NUMA node of the resource, -1 none (valid when AppReport.nodes_known) */
} AppReportResource;

typedef struct {
  char *scenario;
  char *mode; /* "bound", "run" or "capacity" */
  guint64 seed;
  double rate_precision; /* run mode: the DES's rate precision EPS (sim/flow.h); 0: exact (then not printed) */
  double offered_gbps;   /* < 0: saturate */
  double throughput_gbps;
  double cpu_util_pct;
  double lat_p50_ms, lat_p99_ms;
  double throughput_ci95_gbps;             /* run mode: 95 % half-widths by batch means (throughput) and */
  double lat_p50_ci95_ms, lat_p99_ci95_ms; /* batch quantiles (p50, p99), sim/fluid.h; NAN in bound mode */
  gboolean lat_measured;                   /* the latency was measured by the DES (run mode; capacity at the load its check
                                              ran), not estimated by the bound */
  char **overrides;                        /* the command-line overrides of the scenario (owned, may be NULL) */
  double connections;
  gint64 requests_rejected; /* run mode: arrivals turned away because every slot's wait queue was
                              full (the box is overloaded); -1 in bound mode */
  gboolean overloaded;      /* the offered load exceeds what the box serves (bound: offered > X*;
                              run: that, or arrivals turned away) */
  double expected_gbps;     /* run: what the bound serves of the offered load, min(offered, X*);
                              a run far below it has not reached steady state; < 0 in bound */
  int bottleneck;           /* index into res, -1 none */
  int stalled_cpu;          /* the CPU at its limit whose cycles the named DRAM bottleneck's
                              stalls fill (report_pick_bottleneck), -1 none */
  double stall_share;       /* with stalled_cpu: the DRAM-stall share of its marginal cycles at X*
                              (demand_dram_stall_share, 0..1) */
  gboolean stall_upgrade;   /* with stalled_cpu: 1 % more DRAM bandwidth buys more X* than 1 % more clock */
  int n_co;                 /* co-bottlenecks of the bottleneck (demand_co_bottlenecks) */
  int *co;                  /* [n_co] their indices into res, in resource order */
  int n_res;
  AppReportResource *res;
  AppReference ref;      /* copied (borrowed strings) when the scenario has one */
  gboolean nodes_known;  /* res[].node filled (report_fill_resource): per-node NIC summary */
  RamReport ram;         /* page cache and RAM (ram.h), shown when the cache is on or memory.installed is given */
  AppInterval *interval; /* the prediction interval (modes/interval.h; owned), NULL: none asked */
} AppReport;

/* Fills one report resource from the demand model's resource d carrying `load` units per
 * second (B/s, cycles/s, tags...): name, kind, utilisation load/capacity, limit, value in its
 * unit, node. Drops are left to the caller. Use it for every resource and set nodes_known. */
void report_fill_resource(AppReportResource *o, const DmResource *d, double load);
/* Names the report's bottleneck by the one rule (demand_name_bottleneck on res[].utilization):
 * r->bottleneck the resource closest to its limit, or the most utilised DRAM node when that is
 * a CPU filled by DRAM stalls (m->stall_named; r->stalled_cpu gets the CPU, else -1, and
 * r->stall_share, r->stall_upgrade the rule's figures);
 * -1 when there is none. Fills r->co / r->n_co (demand_co_bottlenecks). r->res must follow m->res. */
void report_pick_bottleneck(AppReport *r, const DemandModel *m);
/* FALSE for a run that serves less than 90 % of what the bound serves (not in steady state). */
gboolean report_steady(const AppReport *r);
/* A named resource within this fraction of its usable limit is at it (assumed: a reporting margin
 * well below the figures' one decimal, above the solvers' 1e-6). */
#define APP_REPORT_SATURATED_TOL 1e-3
/* Whether the box of @r is saturated: the scenario saturates, the offered load is more than it
 * serves (overloaded), or the named resource is at its usable limit (within
 * APP_REPORT_SATURATED_TOL; a CPU at its cap; for a DRAM named for the stalls that fill a CPU,
 * that CPU at its cap). The table calls the named resource the
 * "bottleneck" then, else the "busiest" (below saturation nothing limits the throughput). */
gboolean report_saturated(const AppReport *r);

/* Offered load the box did not serve, Gb/s: offered - throughput when overloaded, else 0 (a
 * shortfall of a run below saturation is arrival noise); 0 for "saturate". */
double report_unserved_gbps(const AppReport *r);

/* Most idle resources a report lists (array size; assumed, a reading limit). */
#define APP_REPORT_MAX_IDLE 64
/* The CPU nodes of a report: how many, the busiest (index into res, -1 when the report has no
 * CPU resource) with its utilisation in %, and the nodes the placement leaves idle (below a
 * tenth of the busiest node's utilisation, APP_REPORT_IDLE_SHARE), in resource order. */
typedef struct {
  int n_nodes, busiest;
  double busiest_pct;
  int n_idle;
  int idle[APP_REPORT_MAX_IDLE];
} AppCpuNodes;
/* Fills *out with the CPU nodes of report @r (its resources of kind cpu; utilisations in %). A
 * node ahead of another by no more than DEMAND_TIE does not replace it as the busiest (the first
 * in resource order stays); at most APP_REPORT_MAX_IDLE idle nodes are listed. */
void report_cpu_nodes(const AppReport *r, AppCpuNodes *out);

/* Fills a report from the analytic model. Strings are copied; free with report_free. */
AppReport *report_from_bound(const Appliance *a, const AppScenarioInfo *info, const DemandModel *m, const BoundResult *r);
/* Frees a report and its strings (NULL is allowed). */
void report_free(AppReport *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(AppReport, report_free)
/* Appends the report in a format to out. */
void report_write(const AppReport *r, AppReportFormat fmt, GString *out);

/* Writes the members of interval @iv (modes/interval.h) into an open JSON object, for the report and
 * `ocasim explain`: "interval" {level, throughput_gbps [lo, hi], cpu_util_pct [lo, hi],
 * median_throughput_gbps, draws, draws_failed, model_error_share}, "bottleneck_probability"
 * {kind: p, ...} (kinds with p > 0, in ResKind order), "uncertainty_contributors" [{param, kind,
 * variance_share, of, swing [lo, hi], pin_by, source}]: the throughput's ranking ("of":
 * "throughput_gbps"), then the CPU %'s ("of": "cpu_util_pct"); "assumed_values" [{param,
 * variance_share, of}]. */
void report_interval_json(const AppInterval *iv, JsonBuilder *b);
/* Appends the table lines of interval @iv: the interval, the bottleneck probabilities and the
 * contributors ("uncertain:" the throughput's, "uncertain (cpu):" the CPU %'s), the assumed values. */
void report_interval_table(const AppInterval *iv, GString *out);

#endif /* MODELS_MODES_REPORT_H */
