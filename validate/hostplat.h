/* validate/hostplat.h — the host as an appliance platform: what sysfs and procfs say about the
 * box (sockets, cores, SMT, NUMA nodes, memory, NVMe drives and their PCIe links, NICs and their
 * links, inline kTLS offload) and host-platform.yaml, a platform file of the appliance schema
 * built from it with the measured `costs:` block of validate.
 */
#ifndef OCASIM_VALIDATE_HOSTPLAT_H
#define OCASIM_VALIDATE_HOSTPLAT_H

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

/* Most NUMA nodes the probe tracks (array size; assumed: above any 2-socket box's NPS4 x SNC). */
#define VAL_HP_MAX_NODES 16

/* One NVMe controller (/sys/class/nvme/nvmeN). */
typedef struct {
  char name[32];   /* "nvme0" */
  char model[96];  /* device model string, "" when unreadable */
  int numa_node;   /* device/numa_node, -1 when unknown */
  int link_width;  /* device/current_link_width, 0 when unreadable */
  double link_gts; /* device/current_link_speed, GT/s per lane, 0 when unreadable */
} ValHpNvme;

/* One network interface with a device behind it (/sys/class/net/IF/device exists). */
typedef struct {
  char name[32];       /* "eth0" */
  int numa_node;       /* device/numa_node, -1 when unknown */
  double speed_mbps;   /* /sys/class/net/IF/speed, Mb/s; <= 0 when unknown (virtual NICs say -1) */
  int link_width;      /* device/current_link_width, 0 when unreadable */
  double link_gts;     /* device/current_link_speed, GT/s per lane, 0 when unreadable */
  int tls_tx_offload;  /* `ethtool -k IF` tls-hw-tx-offload: 1 on, 0 off or fixed off, -1 not readable */
  char tls_source[64]; /* where tls_tx_offload came from ("ethtool -k eth0", "not readable: ...") */
} ValHpNic;

/* What the host tree says. */
typedef struct {
  char root[256]; /* the tree read ("/" for this host) */
  char cpu_model[128];
  int cpus_online;
  int sockets, cores_per_socket, threads_per_core;
  double cpuinfo_hz;                          /* /proc/cpuinfo "cpu MHz" of the first CPU, Hz (0: not given) */
  gboolean flag_vaes, flag_avx512f, flag_aes; /* /proc/cpuinfo flags */
  uint64_t l2_per_core_bytes, l3_bytes;       /* cpu0 cache/index*: unified level 2 and level 3, 0 when unknown */
  int numa_nodes;                             /* nodeN directories (>= 1) */
  int node_cpus[VAL_HP_MAX_NODES];            /* CPUs listed in nodeN/cpulist */
  uint64_t mem_total_bytes;                   /* /proc/meminfo MemTotal */
  int dimms;                                  /* SMBIOS type-17 devices with a size (0: not readable) */
  double dimm_mts;                            /* their configured (else rated) speed, MT/s (0: not readable) */
  char mem_source[128];                       /* where dimms and dimm_mts came from, or why they are not readable */
  GArray *nvme;                               /* ValHpNvme, in name order */
  GArray *nics;                               /* ValHpNic, in name order */
} ValHostPlat;

/* Reads the host tree under root ("/" for this host; a directory holding sys/ and proc/ of a
 * capture or a test).  Every field it cannot read stays 0 or empty (and sockets, cores and
 * threads at least 1).  Where a saved `ethtool -k IF` output exists at ROOT/ethtool/IF.k it is
 * read; else, for root "/", ethtool is run when found on PATH.  Never fails.  (transfer full) */
ValHostPlat *val_hostplat_read(const char *root);
void val_hostplat_free(ValHostPlat *h);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ValHostPlat, val_hostplat_free)

/* tls-hw-tx-offload of `ethtool -k` output: 1 "on", 0 "off" (with or without "[fixed]"),
 * -1 when the line is absent (the driver knows no TLS offload feature: an old ethtool or kernel). */
int val_hostplat_parse_ethtool_tls(const char *text);

/* Memory devices of SMBIOS type 17 (DMTF DSP0134 7.18): size and speed of one entry's raw bytes
 * (/sys/firmware/dmi/entries/17-N/raw).  *size_mib: 0 empty slot; *mts: configured speed (offset
 * 0x20, SMBIOS 2.7+) when given, else rated speed (0x15), 0 when unknown.  FALSE when the bytes
 * are not a type-17 structure. */
gboolean val_hostplat_parse_dmi17(const guint8 *raw, gsize len, uint64_t *size_mib, double *mts);

/* PCIe generation of a lane rate in GT/s (2.5 -> 1, 5 -> 2, 8 -> 3, 16 -> 4, 32 -> 5, 64 -> 6;
 * PCIe base specifications); 0 for an unknown rate. */
int val_hostplat_pcie_gen(double gts);

/* Text of host-platform.yaml: the host as an appliance platform and a scenario by itself
 * (kind appliance, the defaults' saturated workload), so `ocasim check` and `ocasim bound` take
 * it and a scenario includes it with `platform: host-platform.yaml`.  clock_hz: the clock the
 * costs were measured at (0: cpuinfo's, else an assumed 2 GHz, marked); dram_GBps: the measured
 * DRAM bandwidth the memory stands for where the DIMMs are not readable (0: a placeholder,
 * marked); ktls_kernel: the kernel accepted TLS_TX (software kTLS possible); costs_yaml: the
 * `costs:` block validate measured (val_host_costs_yaml; NULL: none).  Every figure sysfs does
 * not give is written with the assumption it stands on.  (transfer full) */
char *val_hostplat_yaml(const ValHostPlat *h, double clock_hz, double dram_GBps, gboolean ktls_kernel, const char *costs_yaml);

/* NUMA node an appliance built from host-platform.yaml gives a device whose sysfs numa_node is
 * node: node clamped to the platform's nodes, -1 (unknown) as node 0. */
int val_hostplat_model_node(const ValHostPlat *h, int node);

G_END_DECLS
#endif /* OCASIM_VALIDATE_HOSTPLAT_H */
