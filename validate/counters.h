/* validate/counters.h — resource counters of a run, not only Gb/s: per-CPU busy time and
 * softirq share (/proc/stat), drive reads (/proc/diskstats), NIC bytes and drops
 * (/sys/class/net/IF/statistics), kernel TLS records in software and on the device
 * (/proc/net/tls_stat), page-cache misses (/proc/vmstat pgpgin, pgmajfault) and DRAM traffic from
 * an uncore memory-controller PMU (perf_event_open) where the kernel exposes one.
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

typedef struct {
  char name[32];
  uint64_t reads, sectors_read; /* completed reads, 512-B sectors read (diskstats fields 4 and 6) */
} ValCtrDisk;

typedef struct {
  char name[32];
  uint64_t rx_bytes, tx_bytes, rx_dropped, tx_dropped, rx_packets, tx_packets;
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
  uint64_t dram_read_bytes, dram_write_bytes;
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
  gboolean dram;    /* FALSE: DRAM traffic not measured (dram_note says why) */
  double dram_GBps; /* read + write, 1e9 B/s */
  char dram_note[160];
} ValCtrDelta;

/* Parsers of one file's text into *s (only its fields change). FALSE when nothing was parsed. */
gboolean val_ctr_parse_stat(const char *text, ValCtrSnap *s);
gboolean val_ctr_parse_diskstats(const char *text, ValCtrSnap *s);
gboolean val_ctr_parse_tls_stat(const char *text, ValCtrSnap *s);
gboolean val_ctr_parse_vmstat(const char *text, ValCtrSnap *s);

/* A DRAM-traffic reader on an uncore memory-controller PMU (Intel uncore_imc_N: cas_count_read and
 * cas_count_write, 64 B per count; the scale files of sysfs say so), opened with perf_event_open
 * on one CPU of each PMU's cpumask. (transfer full) Never NULL: val_ctr_dram_ok says whether it
 * counts, val_ctr_dram_note why not ("not measured: no uncore memory-controller PMU in
 * /sys/bus/event_source/devices (a VM?)"). root: "/" or a tree with sys/ (then only the events are
 * looked up, nothing is opened). */
typedef struct ValCtrDram ValCtrDram;
ValCtrDram *val_ctr_dram_open(const char *root);
gboolean val_ctr_dram_ok(const ValCtrDram *d);
const char *val_ctr_dram_note(const ValCtrDram *d);
/* PMUs found and events opened (for tests of a fake tree: found counts PMUs with both events). */
int val_ctr_dram_pmus(const ValCtrDram *d);
void val_ctr_dram_close(ValCtrDram *d);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ValCtrDram, val_ctr_dram_close)

/* Reads every counter of this host (root "/": /proc and /sys; a tree for tests) into *s; dram
 * (may be NULL) adds the PMU's bytes. Files that are absent leave their fields zero. */
void val_ctr_snapshot(const char *root, ValCtrDram *dram, ValCtrSnap *s);

/* d = b - a over seconds; disk_filter and net_filter: device / interface name prefixes separated
 * by commas ("nvme", "eth0,veth"); NULL or "" takes all. dram_note is copied from dram (NULL:
 * "not measured"). */
void val_ctr_delta(const ValCtrSnap *a, const ValCtrSnap *b, double seconds, const char *disk_filter, const char *net_filter,
                   const ValCtrDram *dram, ValCtrDelta *d);

/* Adds d as a JSON object (inside an open member). */
void val_ctr_to_json(const ValCtrDelta *d, JsonBuilder *b);

G_END_DECLS
#endif /* OCASIM_VALIDATE_COUNTERS_H */
