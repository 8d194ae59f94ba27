/* component.h — the component base: what a part of the appliance is (its scenario keys, its checks,
 * the resources it adds and the demand it adds per served byte) and the helpers every component
 * builds with. It calls no component: components include it, the list (components.h) names them.
 *
 * A component file (cpu.c, memory.c, ...) holds its schema rows (bound by offsetof, defaults only
 * there) and hooks: finish, validate, add_resources, class_demand, touch_demand, settle_resources,
 * sizing_varies, path_touches, scale_touches. demand.c enumerates the traffic classes and touches and
 * calls the hooks in the list's resource order; the loader calls finish and validate in its check order.
 * Leaves out: physics; each component's header says what it models.
 * Evidence and history: docs/model/component.md.
 */
#ifndef MODELS_APPLIANCE_COMPONENT_H
#define MODELS_APPLIANCE_COMPONENT_H
#include "models/appliance/appliance.h"
#include "sim/conf.h"

/* Resource kinds (also reference.bottleneck_kinds). RK_THREADS: a pool of threads of a loopback
 * host (loopback.h), cycles/s of the cores it can keep busy. RK_CPU_LINES: the cache lines a
 * node's cores keep in flight (memory.h), a concurrency. */
#define RES_KIND_MAP(X)      \
  X(RK_CPU, "cpu")           \
  X(RK_DRAM, "dram")         \
  X(RK_FABRIC, "fabric")     \
  X(RK_NVME, "nvme")         \
  X(RK_PCIE, "pcie")         \
  X(RK_NIC_PORT, "nic_port") \
  X(RK_NIC_TLS, "nic_tls")   \
  X(RK_THREADS, "threads")   \
  X(RK_CPU_LINES, "cpu_lines")
typedef enum { RES_KIND_MAP(APP_ENUM_ID) RK_COUNT } ResKind;
APP_ENUM_DECLARE(demand_kind);

typedef struct DmResource DmResource;
struct DmResource {
  char name[40]; /* e.g. "cpu.node0", "dram.node2", "xgmi.link1.s0>s1", "nic0.port1" */
  ResKind kind;
  double capacity;            /* units per second: B/s, cycles/s, tags or workers (concurrency) */
  double limit;               /* usable fraction of capacity (CPU cap; 1 otherwise) */
  double value_scale;         /* report value = load (units/s) * value_scale */
  const char *unit;           /* unit of the report value: "GB/s", "Gb/s", "%", "tags", "workers" */
  int node;                   /* NUMA node, -1 when not node-local */
  int nic, port, drive, link; /* owner indices, -1 when not applicable */
  double rd, wr;              /* DRAM: total read / write bytes per served byte */
  double remote_stall;        /* CPU: stall cycles of remote lines at idle latency (k_remote x L, cpu.h) */
  double dram_stall;          /* CPU: stall cycles of local lines at idle latency (k_dram x L, cpu.h) */
  double queue_bursts;        /* NIC port: output queue in TSO bursts, the K of nic_port_drop_fraction */
  MemCurve wait_curve;        /* loaded latency added at a utilisation (DRAM: the memory's curve, memory.h; n = 0: none) */
  double wait_mm1_ns;         /* M/M/1 service time of the latency a request waits (fabric links: one line) */
  TopoLink dlwm;              /* an inter-socket link with DLWM on (dlwm.dlwm): its width state at the load sets the
                                 line time and utilisation of the M/M/1 wait (demand_wait_ns); zeroed otherwise */
  /* The loaded latency (ns) at utilisation rho (0..1 - 1e-9, of the full capacity), set by the component that adds
   * the resource (memory: its curve; topology: a link's M/M/1 wait); NULL: none. demand_wait_ns calls it. */
  double (*wait_ns)(const DmResource *r, double rho);
};

/* Load-dependent demand: resource `res` needs `per_ns` more units per served byte for every ns
 * of loaded latency at resource `dram` (a DRAM node or a fabric link): at its utilisation rho,
 * W(rho) = wait_curve(rho) + wait_mm1_ns * rho / (1 - rho) (demand_wait_ns). */
typedef struct {
  int res, dram;
  double per_ns;
} DmLatTerm;

typedef struct {
  char name[48]; /* e.g. "sendfile_nic_ktls nvme3>nic1.p0" */
  double weight; /* share of served bytes; weights sum to 1 */
  DataPath path;
  int drive;                             /* drive index */
  int ingress, egress;                   /* global port indices (demand_port_*) */
  int disk_node, egress_node, home_node; /* home = node of the connection (-1: random) */
  double *demand;                        /* [n_res] units per served byte at the operating point */
  double *base;                          /* [n_res] the same at idle DRAM latency */
  int n_lat;
  DmLatTerm *lat; /* load-dependent part (one term per (res, dram) pair) */
} DmClass;

typedef struct {
  int n_res;
  DmResource *res;
  int n_class;
  DmClass *cls;
  double *total;      /* [n_res] sum_c weight_c * demand_cr (at the operating point) */
  double *base_total; /* [n_res] the same at idle DRAM latency */
  int n_lat;
  DmLatTerm *lat;         /* sum_c weight_c of the classes' load-dependent terms */
  double op_Bps;          /* operating point X_op = min(offered, X*), B/s */
  double sized_Bps;       /* served throughput the load-dependent sizings assume (user-buffer residency,
                           NIC context-cache misses, page cache; demand.c): the fixed point, op_Bps within 1e-11 */
  double sat_Bps;         /* X*, B/s */
  int bottleneck;         /* named bottleneck at X* (see above), -1 if none */
  gboolean stall_named;   /* the CPU binds but DRAM is named (its stalls fill the CPU): stall_upgrade */
  gboolean stall_upgrade; /* the CPU binds and 1 % more DRAM bandwidth buys more X* than 1 % more clock (cycles of work faster,
                           * stalls not) */
  double stall_share;     /* DRAM-stall share of the binding CPU's marginal cycles at X*, 0 when no CPU binds */
  int n_ports;
  int *port_nic;       /* [n_ports] card of global port p */
  int *port_num;       /* [n_ports] port number on its card */
  int *port_res;       /* [n_ports] the port's resource (nicN.portP), -1 on a loopback host */
  int *drive_res;      /* [n_drives] the drive's resource (nvmeD) */
  double *drive_share; /* [n_drives] share of served bytes per drive */
} DemandModel;

/* Index of a resource of m by name, -1 if none. */
int demand_find(const DemandModel *m, const char *name);

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
  GArray *res;             /* DmResource, until every component has added its resources (then NULL) */
  /* Where the devices are, for the class enumeration (demand.c), set by the components' add_resources: */
  int *drive_node; /* [n_drives] NUMA node of each drive (nvme) */
  int *nic_node;   /* [n_nics] NUMA node of each card (nic) */
  int *port_home;  /* [n_ports] NUMA domain of each global port, its connections' home (nic) */
  /* The content's shares over the drives, into m->drive_share (workload): given, or from the catalogue
   * through a cache (NULL: none). */
  const double *shares;
  WlShareCache *share_cache;
  GArray *cur_lat; /* DmLatTerm of the class being filled (NULL between classes) */
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
  /* TRUE when the component's demand on a depends on the served throughput the model is sized at
   * (DemandModel.sized_Bps): demand.c then solves the sizing fixed point (demand.h). */
  gboolean (*sizing_varies)(const Appliance *a);
  /* Writes the DRAM touches of data path `path` on a at sized_Bps (B/s) to out (the component that
   * owns the data path: software.c); returns their count. */
  int (*path_touches)(const Appliance *a, DataPath path, gboolean include_meta, double sized_Bps, Touch out[DP_MAX_TOUCHES]);
  /* Scales the n touches of a class in the build (a page-cache hit skips the drive's DMA write). */
  void (*scale_touches)(const AppBuild *b, const void *state, int n, Touch *t);
} AppComponent;

/* Appends a resource (capacity in units/s, usable fraction limit, report value = load *
 * value_scale in unit, NUMA node or -1); owner indices start at -1. Returns its index. */
int app_build_add_res(AppBuild *b, const char *name, ResKind kind, double cap, double limit, double scale, const char *unit,
                      int node);
/* Resource r of the model under construction (valid until the next app_build_add_res). */
DmResource *app_build_res(AppBuild *b, int r);
/* Adds per_ns units per served byte per ns of DRAM queueing at DRAM resource dram to the
 * load-dependent demand on resource res (DmLatTerm) of the class being filled. */
void app_build_add_lat(AppBuild *b, int res, int dram, double per_ns);
/* Adds per_ns to the term (res, dram) of the DmLatTerm array lat, appending it when new (0: nothing). */
void app_lat_add(GArray *lat, int res, int dram, double per_ns);
/* Node a touch of class k touches memory on for buffer buf under the placement policy (-1:
 * uniformly random); BUF_USER is on the node of the CPU doing the crypto. */
int app_build_buf_node(const AppBuild *b, const DmClass *k, TouchBuf buf);
/* Node of the CPU doing role agent (AG_CPU_CRYPTO or AG_CPU_STACK) of class k (-1: random). */
int app_build_cpu_node(const AppBuild *b, const DmClass *k, TouchAgent agent);

/* The box's counts every component reads. Cores on one node. */
int appliance_cores_per_node(const Appliance *a);
/* Total NIC ports. */
int appliance_ports(const Appliance *a);
/* The line rate of all NIC ports together (ports x port_bps / 8), B/s: the most the box can serve. */
double appliance_line_Bps(const Appliance *a);
/* Sets a located conf error (printf message) at key path `path` under root (sim_conf_node_find:
 * the deepest node of the path that exists), for a component's finish; returns FALSE. */
gboolean app_conf_error(GError **error, const SimConfNode *root, const char *path, SimConfErrorCode code, const char *fmt, ...)
    G_GNUC_PRINTF(5, 6);

#endif /* MODELS_APPLIANCE_COMPONENT_H */
