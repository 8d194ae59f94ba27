/* appliance.h — the whole serving box: platform (topology, memory, CPU, NVMe, NICs), the
 * software configuration (data path, crypto, NUMA placement, stack offloads) and workload.
 *
 * What it models: nothing by itself; it is the description every mode reads (demand.h turns it
 * into resources and per-class demand per served byte; modes/bound.h applies the bottleneck law).
 * NUMA placement (which node each role of a class lives on): none (uniformly random: (N-1)/N
 * remote per touch), network_centric (on the port's node), disk_centric (buffers and crypto on
 * the drive's node), strict_disk_centric (all on the drive's node, egress by_content).
 * Sources: euro2019_numa (the remote touches of placement none: worst case 4 for sw kTLS).
 * Leaves out: anything not listed in the component headers.
 * Evidence and history: docs/model/appliance.md.
 */
#ifndef MODELS_APPLIANCE_APPLIANCE_H
#define MODELS_APPLIANCE_APPLIANCE_H
#include "models/appliance/budget.h"
#include "models/appliance/coeffs.h"
#include "models/appliance/cpu.h"
#include "models/appliance/datapath.h"
#include "models/appliance/loopback.h"
#include "models/appliance/memory.h"
#include "models/appliance/nic.h"
#include "models/appliance/nvme.h"
#include "models/appliance/pagecache.h"
#include "models/appliance/topology.h"
#include "models/appliance/uncertainty.h"
#include "models/appliance/workload.h"

/* Capacity limits of one appliance (array sizes; assumed: above the drive and NIC counts of
 * every modelled box). */
#define APP_MAX_DRIVES 64
#define APP_MAX_NICS   16

typedef struct Appliance {
  char name[64];
  Topology topo;
  MemoryCfg mem;
  CpuCfg cpu;
  StackCfg stack;
  int n_drives;
  NvmeDrive drives[APP_MAX_DRIVES];
  int n_nics;
  NicCard nics[APP_MAX_NICS];
  /* software */
  DataPath path;
  CryptoImpl crypto; /* bulk crypto of CPU-crypto paths */
  Placement placement;
  Egress egress;            /* egress port: LACP hash or by content (datapath.h) */
  double user_buffer_bytes; /* the server's reused buffer per request, read/write paths (datapath.h) */
  SendfileMode sendfile;    /* SENDFILE_SYNC: a worker blocks on each disk read */
  int sendfile_workers;     /* workers (processes/threads) for synchronous sendfile */
  Workload wl;
  LoopbackCfg lo;        /* a loopback host (NICs of kind loopback), loopback.h */
  PageCacheCfg pc;       /* page cache and RAM sizing, pagecache.h */
  PlatformBudget budget; /* what the CPU package allows (budget.h) */
  Coeffs coef;
  UncertaintyCfg unc; /* the file's `uncertainty:` section (uncertainty.h) */
  guint64 seed;
} Appliance;

/* Checks that the platform can exist (devices on existing nodes, channels, NPS support,
 * every node with memory) and that the policy can be applied: every component's check, in
 * app_components_validation() order. Errors: MODEL_ERROR_INVALID at a key path
 * (model_error.h), message "key.path: what is wrong". */
gboolean appliance_validate(const Appliance *a, GError **error);

#endif /* MODELS_APPLIANCE_APPLIANCE_H */
