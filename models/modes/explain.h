/* modes/explain.h — `ocasim explain`: the per-byte breakdown a planner sanity-checks, taken
 * from the demand model the bound uses (no second model).
 *
 * What it reports, per served byte at the bound's operating point X_op:
 *   DRAM bytes by touch of the data path(s), beside the DRAM total sum_nodes D_r (they are equal);
 *   CPU cycles by component: each the drop of the CPU demand when its coefficients (coeffs.h) are
 *     zeroed; stalls split into idle DRAM latency, queueing at X_op and remote lines; the rest is crypto;
 *   fabric bytes per link and direction (D_r of every fabric resource);
 *   PCIe tags of the NICs' non-posted reads: tag-seconds per byte D_r, tags in use X_op D_r;
 *   the inline engines' TLS context caches (nic.h): connections, cache, share of bursts missing it.
 * Leaves out: the DES (this is the bound's accounting), per-class detail (weights average it).
 * Evidence and history: docs/model/explain.md.
 */
#ifndef MODELS_MODES_EXPLAIN_H
#define MODELS_MODES_EXPLAIN_H
#include "models/modes/report.h"

typedef struct {
  DataPath path;
  const char *what; /* datapath.h's label, e.g. "NIC DMA read" */
  const char *agent, *buffer;
  gboolean write;
  double bytes; /* DRAM bytes per served byte, the path's share included */
} ExplainTouch;

typedef struct {
  char name[40];
  double per_byte; /* units per served byte: bytes (fabric) or tag-seconds (tags) */
  double load;     /* at X_op: GB/s (fabric) or tags in use */
  double capacity; /* GB/s or tags */
} ExplainRes;

/* CPU cycles per served byte, all nodes together. */
typedef enum {
  EX_CRYPTO,
  EX_COPY,
  EX_STACK_PAGE,
  EX_STACK_SEGMENT,
  EX_STACK_ACK,
  EX_STACK_INTERRUPT,
  EX_REQUESTS,
  EX_STALL_DRAM,
  EX_STALL_QUEUE,
  EX_STALL_FABRIC,
  EX_OTHER,
  EX_CPB_COUNT
} ExplainCpb;

/* One card's TLS context cache (nic.h). */
typedef struct {
  char name[16];      /* "nic0" */
  double connections; /* NIC-kTLS connections at the sizing load */
  double cache;       /* contexts cached on the card */
  double miss;        /* share of bursts that fetch their context */
} ExplainTlsCache;

typedef struct {
  char *scenario;
  guint64 seed;
  DataPath path, alt_path;
  double alt_fraction;
  double op_gbps; /* the bound's operating point X_op */
  int n_touch;
  ExplainTouch touch[2 * DP_MAX_TOUCHES];
  double dram_touch_total; /* sum of touch[].bytes */
  double dram_model_total; /* sum over DRAM resources of the demand model's D_r */
  int dram_nodes;
  gboolean loopback; /* a loopback host: no touches, its costs measured (loopback.h) */
  double cpb[EX_CPB_COUNT];
  double cpb_total; /* the demand model's CPU D_r summed at X_op */
  int n_fabric, n_tags;
  ExplainRes *fabric, *tags;
  int n_tls; /* cards with an inline engine, when a path encrypts on the NIC */
  double sizing_gbps;
  ExplainTlsCache tls[APP_MAX_NICS];
  AppInterval *interval; /* the prediction interval at the operating point (owned; NULL: none), set by the caller */
} Explain;

/* The breakdown of @a with demand model @m (built by demand_build from @a); @info may be NULL.
 * Rebuilds the demand model with coefficients zeroed to split the CPU cycles. (transfer full) */
Explain *explain_build(const Appliance *a, const AppScenarioInfo *info, const DemandModel *m);
/* Frees a breakdown of explain_build (NULL is allowed). */
void explain_free(Explain *e);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(Explain, explain_free)
/* Name of a CPU component ("crypto", "stack_page", "stall_dram", ...). */
const char *explain_cpb_name(ExplainCpb c);
/* Appends the breakdown as a table (APP_FMT_TABLE) or JSON (APP_FMT_JSON). */
void explain_write(const Explain *e, AppReportFormat fmt, GString *out);

#endif /* MODELS_MODES_EXPLAIN_H */
