/* component.h — a part of the appliance as one descriptor: its scenario keys, its checks, the
 * resources it adds to the demand model and the demand it adds per served byte.
 *
 * Each component file (cpu.c, memory.c, topology.c, nvme.c, nic.c, datapath.c, workload.c,
 * loopback.c, pagecache.c) holds its schema rows (bound by offsetof, defaults only there) and
 * the hooks finish, validate, add_resources, class_demand, touch_demand, settle_resources.
 * demand.c enumerates the traffic classes and touches and calls every component (demand.h has the
 * equations). Order: app_components() for resources and hooks; app_components_validation() for checks.
 * Leaves out: physics; each component's header says what it models.
 * Evidence and history: docs/model/component.md.
 */
#ifndef MODELS_APPLIANCE_COMPONENT_H
#define MODELS_APPLIANCE_COMPONENT_H
#include "models/appliance/appliance.h"
#include "models/appliance/demand.h"
#include "sim/conf.h"

/* What a scenario file binds into: the Appliance itself, and what the file says that is not
 * (yet) a model value: device groups before expansion, lists, the scenario's own keys. */
typedef struct {
  Appliance a;
  SimConfList nvme, nics;     /* NvmeGroup, NicGroup */
  SimConfList links;          /* TopoLinkGroup */
  SimConfList nps_supported;  /* int */
  SimConfList bitrates;       /* WlBitrate */
  const SimConfNode *offered; /* workload.offered: a bit rate or "saturate" */
  const SimConfNode *loopback_node, *reference_node;
  const SimConfNode *irq_node; /* stack.interrupt_moderation: packets per interrupt or "off" (cpu.c) */
  SimConfList failures;        /* char *: components down in a what-if (failure.h) */
  SimConfList unc_list;        /* UncEntryConf: the `uncertainty:` section (uncertainty.h) */
  char *kind, *name, *description, *platform, *platform_name, *cpu_model;
  char *costs_source;         /* costs.source: where the cost profile comes from (cpu.c) */
  double mem_load_latency_ns; /* memory.load_latency: the line, when given (memory.c) */
  MemCurveConf mem_curve;     /* memory.loaded_latency: the measured rows, when given (memory.c) */
  double duration_ns, warmup_ns;
  double rate_precision; /* the DES's rate precision EPS (sim_flow_net_set_rate_precision); 0: exact */
} AppConf;

/* The demand model under construction (demand.c). */
typedef struct AppBuild AppBuild;
struct AppBuild {
  const Appliance *a;
  DemandModel *m;
  int nodes;
  int *cpu_res, *dram_res; /* [nodes], added by the cpu and memory components */
  gboolean loop;           /* a loopback host (loopback.h) */
  gboolean include_meta;   /* metadata and ACK touches are counted (not for bulk crossings) */
  void **state;            /* [n components] each component's own state */
};

/* One DRAM touch of a class at one (agent node, memory node) pair: bytes per served byte, the
 * placement probabilities included; dev is the DMA-ing device (NULL for CPU work). */
typedef struct {
  const Touch *touch;
  int agent_node, mem_node;
  const TopoPos *dev;
  double bytes;
} AppTouch;

typedef struct {
  const char *name;
  size_t state_size;
  gboolean checked_when_finished; /* the loader validates it right after its finish: later
                                     components place devices on it */
  gboolean (*finish)(AppConf *c, const SimConfNode *root, GError **error);
  gboolean (*validate)(const Appliance *a, GError **error);
  void (*add_resources)(AppBuild *b, void *state);
  void (*class_demand)(AppBuild *b, void *state, DmClass *k);
  void (*touch_demand)(AppBuild *b, void *state, DmClass *k, const AppTouch *t);
  void (*settle_resources)(AppBuild *b, void *state);
} AppComponent;

extern const AppComponent cpu_component, memory_component, topology_component, nvme_component, nic_component, datapath_component,
    workload_component, loopback_component, pagecache_component, budget_component;

/* The components in resource order, NULL-terminated. */
const AppComponent *const *app_components(void);
/* The components in validation order, NULL-terminated. */
const AppComponent *const *app_components_validation(void);

/* Appends a resource (capacity in units/s, usable fraction limit, report value = load *
 * value_scale in unit, NUMA node or -1); owner indices start at -1. Returns its index. */
int app_build_add_res(AppBuild *b, const char *name, ResKind kind, double cap, double limit, double scale, const char *unit,
                      int node);
/* Resource r of the model under construction (valid until the next app_build_add_res). */
DmResource *app_build_res(AppBuild *b, int r);
/* Adds per_ns units per served byte per ns of DRAM queueing at DRAM resource dram to the
 * load-dependent demand on resource res (DmLatTerm) of the class being filled. */
void app_build_add_lat(AppBuild *b, int res, int dram, double per_ns);
/* The touches of class k's data path (datapath_touches with the build's metadata and ACK
 * bytes); returns the count. */
int app_build_touches(const AppBuild *b, const DmClass *k, Touch out[DP_MAX_TOUCHES]);
/* The DRAM touches of data path `path` on appliance a (bytes per served byte, datapath.h's
 * table with the metadata and ACK terms when include_meta), before any page-cache hit, with a
 * reused user buffer's residency at served throughput sized_Bps (B/s; the model's sized_Bps);
 * the bound and `ocasim explain` both read them. Returns the number written to out. */
int demand_path_touches(const Appliance *a, DataPath path, gboolean include_meta, double sized_Bps, Touch out[DP_MAX_TOUCHES]);
/* Node a touch of class k touches memory on for buffer buf under the placement policy (-1:
 * uniformly random); BUF_USER is on the node of the CPU doing the crypto. */
int app_build_buf_node(const AppBuild *b, const DmClass *k, TouchBuf buf);
/* Node of the CPU doing role agent (AG_CPU_CRYPTO or AG_CPU_STACK) of class k (-1: random). */
int app_build_cpu_node(const AppBuild *b, const DmClass *k, TouchAgent agent);

/* The share of a reused user buffer's touches that reach DRAM on appliance a serving x_Bps (B/s,
 * >= 0; the model's sized_Bps, demand.c): datapath_user_miss_share with the requests in flight
 * per core, x_Bps x 8 over the workload's mean bitrate, spread over the cores. */
double datapath_appliance_user_miss(const Appliance *a, double x_Bps);
/* Whether the value above depends on x_Bps on appliance a: a read/write path (main or alt) with a
 * user buffer and a cache share to keep it in; FALSE means the demand does not (demand.c then
 * skips the sizing fixed point). Keep it in step with datapath_appliance_user_miss. */
gboolean datapath_appliance_user_miss_varies(const Appliance *a);
/* Share of appliance a's load (so of its connections) on data paths for which pred holds: the
 * main path's 1 - workload.alt_fraction plus the alt path's alt_fraction, each where pred holds. */
double datapath_appliance_share(const Appliance *a, gboolean (*pred)(DataPath));

/* Card `card`'s share of appliance a's flows, so of its connections and served bytes: its ports
 * over all ports (the LACP hash spreads flows evenly over the ports, demand.c); 0 without ports. */
double nic_port_share(const Appliance *a, int card);
/* NIC-kTLS connections whose contexts card `card` holds (nic.h) when the box serves sized_Bps (B/s,
 * the demand model's sizing fixed point, demand.h): connections at sized_Bps x the card's share of
 * the ports (the LACP hash, demand.c) x the share of connections on a NIC-kTLS path. */
double nic_tls_context_connections(const Appliance *a, int card, double sized_Bps);
/* Share of card `card`'s bursts whose TLS context misses its on-card cache at sized_Bps (nic.h):
 * max(0, 1 - tls_context_cache / connections); 0 on a card without an inline engine. */
double nic_tls_context_miss(const Appliance *a, int card, double sized_Bps);
/* TRUE when some card's context cache misses at the ports' line rate, the most the box serves
 * (misses grow with the load, so below it none can miss when none misses there): the demand then
 * depends on the served throughput (demand.c's fixed point). */
gboolean nic_tls_context_varies(const Appliance *a);
/* The label of the TLS context-fetch touch ("NIC context fetch"). */
extern const char NIC_TLS_CTX_TOUCH[];
/* Writes the DRAM touch of the NIC's TLS context fetches for data path `path` at sized_Bps (B/s) to
 * *out: a NIC read of the connection's metadata node, sum over cards of port share x miss x
 * context bytes, per TSO burst (nic.h). Returns 1, or 0 (nothing written) when the NIC does not
 * encrypt on `path` or nothing misses. */
int nic_tls_context_touch(const Appliance *a, DataPath path, double sized_Bps, Touch *out);

/* Position of the device group at key path `group` ("nics[1]"), given by socket/quadrant `pos`
 * or by NUMA `node` (>= 0) at the platform's NPS; a located conf error if it cannot exist. */
gboolean app_conf_place(const SimConfNode *root, const char *group, TopoPos pos, int node, const Topology *t, TopoPos *out,
                        GError **error);
/* Sets a located conf error (printf message) at key path `path` under root (sim_conf_node_find:
 * the deepest node of the path that exists), for a component's finish; returns FALSE. */
gboolean app_conf_error(GError **error, const SimConfNode *root, const char *path, SimConfErrorCode code, const char *fmt, ...)
    G_GNUC_PRINTF(5, 6);

#endif /* MODELS_APPLIANCE_COMPONENT_H */
