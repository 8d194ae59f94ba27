/* validate/counters.h — resource counters of a run, not only Gb/s: per-CPU busy time and
 * softirq share (/proc/stat), drive reads (/proc/diskstats), NIC bytes and drops
 * (/sys/class/net/IF/statistics), the NIC driver's own drop and inline-TLS counters (`ethtool -S`
 * where present), kernel TLS records in software and on the device (/proc/net/tls_stat), page-cache
 * misses (/proc/vmstat pgpgin, pgmajfault) and DRAM traffic from a memory-controller or data-fabric
 * PMU (Intel uncore_imc, AMD amd_umc or amd_df; perf_event_open) where the kernel exposes one.
 */
#ifndef OCASIM_VALIDATE_COUNTERS_H
#define OCASIM_VALIDATE_COUNTERS_H

#include <glib.h>
#include <json-glib/json-glib.h>
#include <stdint.h>

G_BEGIN_DECLS

/* Most CPUs, block devices and network interfaces a snapshot holds (array sizes; assumed). */
#define VAL_CTR_MAX_CPUS 256
#define VAL_CTR_MAX_DEVS 256
#define VAL_CTR_MAX_IFS  256
/* Most DRAM PMU events one reader opens (AMD Genoa: 12 UMCs x 2 sockets x 2 events = 48; assumed). */
#define VAL_CTR_MAX_DRAM_EV 128

/* Inline-TLS counters of the NIC driver, by their `ethtool -S` names (mlx5: Documentation/networking/
 * device_drivers/ethernet/mellanox/mlx5/counters.rst, "Ring / Netdev" table, the port-wide form
 * without the ring index). TX_DROPS sums every tx_tls_drop_* counter. */
enum {
  VAL_CTR_NIC_TLS_TX_ENC_BYTES,    /* tx_tls_encrypted_bytes: TLS payload bytes the NIC encrypted */
  VAL_CTR_NIC_TLS_TX_ENC_PACKETS,  /* tx_tls_encrypted_packets */
  VAL_CTR_NIC_TLS_TX_CTX,          /* tx_tls_ctx: TX offload contexts added to the device */
  VAL_CTR_NIC_TLS_TX_OOO,          /* tx_tls_ooo: out-of-order TLS send fragments handled */
  VAL_CTR_NIC_TLS_TX_RESYNC_BYTES, /* tx_tls_resync_bytes: bytes re-sent to the NIC to resync */
  VAL_CTR_NIC_TLS_TX_DUMP_BYTES,   /* tx_tls_dump_bytes: bytes copied over DMA for a resync */
  VAL_CTR_NIC_TLS_TX_DROPS,        /* tx_tls_drop_*: TLS packets dropped (tx_tls_drop_no_sync_data, ...) */
  VAL_CTR_NIC_TLS_RX_DEC_BYTES,    /* rx_tls_decrypted_bytes */
  VAL_CTR_NIC_TLS_N
};
/* JSON member names of the entries above (their ethtool names; "tx_tls_drop" for TX_DROPS). */
extern const char *const val_ctr_nic_tls_names[VAL_CTR_NIC_TLS_N];

/* One interface's `ethtool -S` counters. */
typedef struct {
  gboolean ok;       /* ethtool -S succeeded and printed at least one "name: value" line */
  int ndrop;         /* counters the drop rule took (0: the driver has none, drops not measured) */
  uint64_t drops;    /* their sum, packets */
  uint32_t tls_have; /* bit k: the driver printed counter k of val_ctr_nic_tls_names */
  uint64_t tls[VAL_CTR_NIC_TLS_N];
} ValCtrNic;

typedef struct {
  char name[32];
  uint64_t reads, sectors_read; /* completed reads, 512-B sectors read (diskstats fields 4 and 6) */
} ValCtrDisk;

typedef struct {
  char name[32];
  uint64_t rx_bytes, tx_bytes, rx_dropped, tx_dropped, rx_packets, tx_packets;
  ValCtrNic nic; /* ethtool -S IF (nic.ok FALSE: not run, failed or printed nothing) */
} ValCtrNet;

/* One snapshot (cumulative counters). */
typedef struct {
  int ncpu;                           /* "cpuN" lines of /proc/stat */
  uint64_t busy[VAL_CTR_MAX_CPUS];    /* user+nice+system+irq+softirq+steal, USER_HZ ticks */
  uint64_t total[VAL_CTR_MAX_CPUS];   /* every column but guest (inside user), ticks */
  uint64_t softirq[VAL_CTR_MAX_CPUS]; /* softirq column, ticks */
  int ndisk;
  ValCtrDisk disk[VAL_CTR_MAX_DEVS]; /* whole devices (no partitions) */
  int nnet;
  ValCtrNet net[VAL_CTR_MAX_IFS];
  gboolean tls_stat;                                           /* /proc/net/tls_stat read (the tls module is loaded) */
  uint64_t tls_tx_sw, tls_tx_device, tls_rx_sw, tls_rx_device; /* TlsTxSw, TlsTxDevice, TlsRxSw, TlsRxDevice: sessions */
  uint64_t pgpgin_kib, pgmajfault;                             /* /proc/vmstat */
  gboolean dram;                                               /* dram_bytes measured (a memory-controller PMU was opened) */
  uint64_t dram_read_bytes, dram_write_bytes;                  /* cumulative, scaled for multiplexing */
  uint64_t dram_rw_bytes;                                      /* amd_df: reads and writes in one count */
  int ndram;                                                   /* events read (as the reader lists them) */
  uint64_t dram_count[VAL_CTR_MAX_DRAM_EV], dram_enabled_ns[VAL_CTR_MAX_DRAM_EV], dram_running_ns[VAL_CTR_MAX_DRAM_EV];
  gboolean ethtool; /* driver statistics could be asked for (a SIOCETHTOOL socket; a tree: ethtool-S/) */
} ValCtrSnap;

/* Per-run figures: the difference of two snapshots over seconds. */
typedef struct {
  double seconds;
  int ncpu;
  double cpu_busy[VAL_CTR_MAX_CPUS]; /* busy share of each CPU, 0..1 */
  double busy_cores;                 /* sum of them */
  double softirq_share;              /* softirq ticks / busy ticks, all CPUs, 0..1 */
  uint64_t disk_read_bytes;          /* sectors read x 512 over devices whose name matches the filter */
  uint64_t disk_reads;
  uint64_t net_rx_bytes, net_tx_bytes, net_drops; /* over interfaces matching the filter */
  gboolean tls_stat;
  uint64_t tls_tx_sw, tls_tx_device; /* kTLS TX sessions opened in software / on the device */
  uint64_t pgpgin_bytes;             /* bytes read into the page cache (pgpgin KiB x 1024) */
  uint64_t pgmajfault;
  gboolean dram;                          /* FALSE: DRAM traffic not measured (dram_note says why) */
  double dram_GBps;                       /* read + write, 1e9 B/s */
  gboolean dram_split;                    /* reads and writes counted apart (uncore_imc, amd_umc; not amd_df) */
  double dram_read_GBps, dram_write_GBps; /* where dram_split */
  char dram_note[200];
  /* NIC driver counters (ethtool -S) over the interfaces matching the filter */
  gboolean nic_drops_measured; /* some interface's driver has drop counters (the rule of val_ctr_parse_ethtool) */
  uint64_t nic_drops;          /* packets, where measured */
  uint32_t nic_tls_have;       /* bit k: counter k of val_ctr_nic_tls_names read on some interface */
  uint64_t nic_tls[VAL_CTR_NIC_TLS_N];
  char nic_note[200]; /* which interfaces were measured, and why the others were not */
} ValCtrDelta;

/* Parsers of one file's text into *s (only its fields change). FALSE when nothing was parsed. */
gboolean val_ctr_parse_stat(const char *text, ValCtrSnap *s);
gboolean val_ctr_parse_diskstats(const char *text, ValCtrSnap *s);
gboolean val_ctr_parse_tls_stat(const char *text, ValCtrSnap *s);
gboolean val_ctr_parse_vmstat(const char *text, ValCtrSnap *s);

/* Parses the text of `ethtool -S IF` ("NIC statistics:" then "     name: value" lines; the name is
 * what precedes the last ':') into *n. FALSE (n->ok FALSE) when no line holds a name and an
 * unsigned decimal value ("no stats available", garbage, empty).
 * Drop rule: a counter is a drop counter when its name holds "drop", "discard", "missed" or
 * "out_of_buffer" (any case) and not "xdp" (XDP program verdicts, not a loss; virtio_net counts its
 * rx_xdp_drops inside rx_drops too). Names with a digit are per-ring, per-queue or per-priority
 * breakdowns (mlx5 rx0_*, tx0_dropped, rx_prio3_discards; virtio_net rx0_drops; veth
 * rx_queue_0_drops): they are summed only when the driver prints no drop counter without a digit,
 * so a port total is never added to its own breakdown. mlx5 takes rx_discards_phy, tx_discards_phy,
 * rx_out_of_buffer, dev_out_of_buffer, tx_queue_dropped, rx_oversize_pkts_sw_drop,
 * rx_steer_missed_packets and tx_tls_drop_no_sync_data (also in the TLS figures); veth
 * rx_queue_N_drops. TLS counters: the exact port-wide names of val_ctr_nic_tls_names. */
gboolean val_ctr_parse_ethtool(const char *text, ValCtrNic *n);

/* Encodes value into a perf_event_attr config word by a PMU's sysfs format file text
 * ("config:0-7,32-35,59-60": the value's low bits fill the listed bit ranges in order, as perf's
 * pmu_format_value does). FALSE when the text is not a "config:" list or value needs more bits
 * than it lists; *config is OR-ed, never cleared. */
gboolean val_ctr_pmu_encode(const char *format, uint64_t value, uint64_t *config);

/* A DRAM-traffic reader, the first of these that sysfs lists (counters.c says where each encoding
 * comes from): Intel uncore_imc_N cas_count_read / cas_count_write; AMD amd_umc_N (Zen 4 and
 * later, Linux 6.9+) umc_cas_cmd.rd / .wr; AMD amd_df (Zen 1-3: Naples, Rome, Milan) the eight
 * dram_channel_data_controller_N events (reads and writes together). 64 B per count. Each event is
 * opened with perf_event_open on every CPU of its PMU's cpumask (one per socket or die) and read
 * with its enabled and running times (the DF has 4 counters for 8 events: perf multiplexes them,
 * and each count is scaled by enabled / running). (transfer full) Never NULL: val_ctr_dram_ok
 * says whether it counts, val_ctr_dram_note why not ("not measured: no memory-controller PMU ...
 * (a VM?)", "not measured: ... perf_event_open refused: ..."). root: "/" or a tree with sys/ (then
 * the events are only looked up, nothing is opened). */
typedef struct ValCtrDram ValCtrDram;
ValCtrDram *val_ctr_dram_open(const char *root);
/* As val_ctr_dram_open, opening the events when open is TRUE whatever the root (tests: a tree
 * whose PMU type does not exist shows the refusal's note). */
ValCtrDram *val_ctr_dram_open_at(const char *root, gboolean open);
gboolean val_ctr_dram_ok(const ValCtrDram *d);
const char *val_ctr_dram_note(const ValCtrDram *d);
/* PMUs found and events opened (for tests of a fake tree: found counts PMUs with both events). */
int val_ctr_dram_pmus(const ValCtrDram *d);
/* One DRAM event of the reader: its PMU, perf type and config, the CPU it counts on, and what one
 * count is (0 read, 1 write, 2 read or write; bytes per count). */
typedef struct {
  char pmu[32];
  uint32_t type;
  uint64_t config;
  int cpu;
  int kind;
  double bytes;
} ValCtrDramEvent;
/* Events looked up (a tree) or opened (root "/"); i in [0, val_ctr_dram_events). */
int val_ctr_dram_events(const ValCtrDram *d);
const ValCtrDramEvent *val_ctr_dram_event(const ValCtrDram *d, int i);
void val_ctr_dram_close(ValCtrDram *d);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ValCtrDram, val_ctr_dram_close)

/* Reads every counter of this host (root "/": /proc and /sys; a tree for tests) into *s; dram
 * (may be NULL) adds the PMU's bytes. Files that are absent leave their fields zero. Each
 * interface's `ethtool -S` statistics are read as ethtool reads them (the SIOCETHTOOL ioctl, no
 * program needed; about 1 ms for four interfaces); in a tree, the file ethtool-S/IF stands for
 * that text. */
void val_ctr_snapshot(const char *root, ValCtrDram *dram, ValCtrSnap *s);

/* d = b - a over seconds; disk_filter and net_filter: device / interface name prefixes separated
 * by commas ("nvme", "eth0,veth"); NULL or "" takes all. dram_note is copied from dram (NULL:
 * "not measured"). The NIC driver figures take the interfaces matching net_filter whose counters
 * were read in both snapshots; nic_note names them and says why the others were not measured. */
void val_ctr_delta(const ValCtrSnap *a, const ValCtrSnap *b, double seconds, const char *disk_filter, const char *net_filter,
                   const ValCtrDram *dram, ValCtrDelta *d);

/* Adds d as a JSON object (inside an open member). */
void val_ctr_to_json(const ValCtrDelta *d, JsonBuilder *b);

G_END_DECLS
#endif /* OCASIM_VALIDATE_COUNTERS_H */
