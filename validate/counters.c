/* validate/counters.c — resource counters of a run (see counters.h).
 *
 * /proc/stat      cpuN user nice system idle iowait irq softirq steal guest guest_nice (USER_HZ
 *                 ticks; proc(5)): busy = user + nice + system + irq + softirq + steal, total =
 *                 busy + idle + iowait (guest time is already inside user)
 * /proc/diskstats major minor name reads merged sectors_read ... (Documentation/admin-guide/
 *                 iostats.rst): sectors are 512 B whatever the device's block size
 * statistics/     rx_bytes, tx_bytes, rx_dropped, tx_dropped, rx_packets, tx_packets
 * tls_stat        TlsTxSw / TlsTxDevice: TX sessions the kernel set up in software and on the
 *                 NIC (Documentation/networking/tls.rst): a device count that rises is inline
 *                 offload engaged
 * vmstat          pgpgin (KiB read from block devices into memory), pgmajfault
 * DRAM            uncore_imc_N cas_count_read / cas_count_write: 64-B CAS commands (Intel
 *                 uncore performance monitoring guides; perf's sysfs scale 6.103515625e-5 MiB)
 * Leaves out: ethtool -S driver counters (not a stable format across drivers), AMD data-fabric
 * and UMC events (not named in sysfs on current kernels), per-process attribution.
 */
#include "validate/counters.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sim/json.h"

/* Bytes of one diskstats sector (iostats.rst: always 512) and of one DRAM CAS command (a 64-B
 * line). */
#define SECTOR_BYTES 512ULL
#define CAS_BYTES    64ULL
/* Most memory-controller PMUs opened (Intel: up to 8 channels x 2 sockets; assumed). */
#define DRAM_MAX_PMUS 32

gboolean val_ctr_parse_stat(const char *text, ValCtrSnap *s)
{
  g_auto(GStrv) lines = g_strsplit(text ? text : "", "\n", -1);
  int n = 0;
  for (int i = 0; lines[i]; i++) {
    unsigned cpu;
    unsigned long long v[10] = { 0 };
    if (strncmp(lines[i], "cpu", 3) || !g_ascii_isdigit(lines[i][3])) continue;
    int k = sscanf(lines[i], "cpu%u %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1], &v[2], &v[3], &v[4],
                   &v[5], &v[6], &v[7], &v[8], &v[9]);
    if (k < 8 || cpu >= VAL_CTR_MAX_CPUS) continue;
    s->busy[cpu] = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
    s->total[cpu] = s->busy[cpu] + v[3] + v[4];
    s->softirq[cpu] = v[6];
    n = MAX(n, (int)cpu + 1);
  }
  s->ncpu = n;
  return n > 0;
}

/* TRUE when name is a partition of another device of the list: the list holds a prefix of it
 * followed by digits, or by "p" and digits (vda1 of vda, nvme0n1p2 of nvme0n1). */
static gboolean is_partition(const ValCtrSnap *s, const char *name)
{
  for (int i = 0; i < s->ndisk; i++) {
    size_t l = strlen(s->disk[i].name);
    if (l == 0 || strncmp(name, s->disk[i].name, l) || !name[l]) continue;
    const char *r = name + l + (name[l] == 'p');
    if (!*r) continue;
    while (g_ascii_isdigit(*r)) r++;
    if (!*r) return TRUE;
  }
  return FALSE;
}

gboolean val_ctr_parse_diskstats(const char *text, ValCtrSnap *s)
{
  g_auto(GStrv) lines = g_strsplit(text ? text : "", "\n", -1);
  ValCtrSnap all = { 0 };
  for (int i = 0; lines[i] && all.ndisk < VAL_CTR_MAX_DEVS; i++) {
    unsigned maj, min;
    char name[64];
    unsigned long long reads, merged, sectors;
    if (sscanf(lines[i], "%u %u %63s %llu %llu %llu", &maj, &min, name, &reads, &merged, &sectors) != 6) continue;
    ValCtrDisk *d = &all.disk[all.ndisk++];
    g_strlcpy(d->name, name, sizeof d->name);
    d->reads = reads;
    d->sectors_read = sectors;
  }
  s->ndisk = 0;
  for (int i = 0; i < all.ndisk; i++)
    if (!is_partition(&all, all.disk[i].name)) s->disk[s->ndisk++] = all.disk[i];
  return s->ndisk > 0;
}

static gboolean key_value(const char *text, const char *key, uint64_t *out)
{
  g_auto(GStrv) lines = g_strsplit(text ? text : "", "\n", -1);
  size_t l = strlen(key);
  for (int i = 0; lines[i]; i++)
    if (!strncmp(lines[i], key, l) && (lines[i][l] == ' ' || lines[i][l] == '\t')) {
      *out = g_ascii_strtoull(lines[i] + l, NULL, 10);
      return TRUE;
    }
  return FALSE;
}

gboolean val_ctr_parse_tls_stat(const char *text, ValCtrSnap *s)
{
  gboolean ok = key_value(text, "TlsTxSw", &s->tls_tx_sw);
  ok = key_value(text, "TlsTxDevice", &s->tls_tx_device) && ok;
  key_value(text, "TlsRxSw", &s->tls_rx_sw);
  key_value(text, "TlsRxDevice", &s->tls_rx_device);
  s->tls_stat = ok;
  return ok;
}

gboolean val_ctr_parse_vmstat(const char *text, ValCtrSnap *s)
{
  gboolean ok = key_value(text, "pgpgin", &s->pgpgin_kib);
  return key_value(text, "pgmajfault", &s->pgmajfault) && ok;
}

/* ---- DRAM: uncore memory-controller PMUs -------------------------------------------- */

struct ValCtrDram {
  int npmu;
  int fd[DRAM_MAX_PMUS][2];       /* read, write; -1 when not open */
  double scale[DRAM_MAX_PMUS][2]; /* bytes per count */
  char note[160];
};

/* "event=0x04,umask=0x03" -> config = event | umask << 8 (the format files of the Intel uncore
 * PMUs: event config:0-7, umask config:8-15). */
static gboolean event_config(const char *spec, uint64_t *config)
{
  uint64_t ev = 0, um = 0;
  gboolean have = FALSE;
  g_auto(GStrv) parts = g_strsplit(spec, ",", -1);
  for (int i = 0; parts[i]; i++) {
    char *eq = strchr(parts[i], '=');
    if (!eq) continue;
    uint64_t v = g_ascii_strtoull(eq + 1, NULL, 0);
    if (g_str_has_prefix(parts[i], "event=")) ev = v, have = TRUE;
    if (g_str_has_prefix(parts[i], "umask=")) um = v;
  }
  *config = (ev & 0xff) | (um & 0xff) << 8;
  return have;
}

static char *read_strip(const char *path)
{
  char *s = NULL;
  if (!g_file_get_contents(path, &s, NULL, NULL)) return NULL;
  return g_strstrip(s);
}

static int perf_open(uint32_t type, uint64_t config, int cpu)
{
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = type;
  a.config = config;
  return (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, 0);
}

ValCtrDram *val_ctr_dram_open(const char *root)
{
  ValCtrDram *d = g_new0(ValCtrDram, 1);
  gboolean live = !root || !strcmp(root, "/");
  g_autofree char *dir = g_build_filename(root ? root : "/", "sys/bus/event_source/devices", NULL);
  g_autoptr(GDir) dd = g_dir_open(dir, 0, NULL);
  int found = 0, open_err = 0;
  GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
  for (const char *e; dd && (e = g_dir_read_name(dd));)
    if (g_str_has_prefix(e, "uncore_imc")) g_ptr_array_add(names, g_strdup(e));
  g_ptr_array_sort(names, (GCompareFunc)g_strcmp0);
  for (guint i = 0; i < names->len && d->npmu < DRAM_MAX_PMUS; i++) {
    const char *pmu = g_ptr_array_index(names, i);
    static const char *ev[2] = { "cas_count_read", "cas_count_write" };
    g_autofree char *tp = g_build_filename(dir, pmu, "type", NULL);
    g_autofree char *cm = g_build_filename(dir, pmu, "cpumask", NULL);
    g_autofree char *type = read_strip(tp), *mask = read_strip(cm);
    uint64_t cfg[2];
    gboolean ok = type != NULL;
    for (int k = 0; k < 2 && ok; k++) {
      g_autofree char *ep = g_build_filename(dir, pmu, "events", ev[k], NULL);
      g_autofree char *spec = read_strip(ep);
      ok = spec && event_config(spec, &cfg[k]);
    }
    if (!ok) continue;
    found++;
    int n = d->npmu;
    d->fd[n][0] = d->fd[n][1] = -1;
    for (int k = 0; k < 2; k++) d->scale[n][k] = CAS_BYTES;
    if (!live) {
      d->npmu++;
      continue;
    }
    int cpu = mask ? atoi(mask) : 0;
    for (int k = 0; k < 2; k++) {
      d->fd[n][k] = perf_open((uint32_t)atoi(type), cfg[k], cpu);
      if (d->fd[n][k] < 0) open_err = errno;
    }
    if (d->fd[n][0] >= 0 && d->fd[n][1] >= 0)
      d->npmu++;
    else
      for (int k = 0; k < 2; k++)
        if (d->fd[n][k] >= 0) close(d->fd[n][k]);
  }
  g_ptr_array_unref(names);
  if (found == 0)
    g_strlcpy(d->note, "not measured: no uncore memory-controller PMU (uncore_imc_*) in /sys/bus/event_source/devices (a VM?)",
              sizeof d->note);
  else if (live && d->npmu == 0)
    g_snprintf(d->note, sizeof d->note,
               "not measured: %d memory-controller PMUs, perf_event_open refused: %s (root or "
               "perf_event_paranoid <= 0)",
               found, g_strerror(open_err));
  else
    g_snprintf(d->note, sizeof d->note, "measured: %d uncore_imc PMUs, cas_count_read + cas_count_write x 64 B", d->npmu);
  return d;
}

gboolean val_ctr_dram_ok(const ValCtrDram *d)
{
  return d && d->npmu > 0 && d->fd[0][0] >= 0;
}

const char *val_ctr_dram_note(const ValCtrDram *d)
{
  return d ? d->note : "not measured";
}

int val_ctr_dram_pmus(const ValCtrDram *d)
{
  return d ? d->npmu : 0;
}

void val_ctr_dram_close(ValCtrDram *d)
{
  if (!d) return;
  for (int i = 0; i < d->npmu; i++)
    for (int k = 0; k < 2; k++)
      if (d->fd[i][k] >= 0) close(d->fd[i][k]);
  g_free(d);
}

/* ---- snapshots ------------------------------------------------------------------------ */

static char *read_rel(const char *root, const char *rel)
{
  g_autofree char *p = g_build_filename(root, rel, NULL);
  char *s = NULL;
  return g_file_get_contents(p, &s, NULL, NULL) ? s : NULL;
}

static uint64_t read_u64(const char *dir, const char *file)
{
  g_autofree char *p = g_build_filename(dir, file, NULL);
  g_autofree char *s = NULL;
  return g_file_get_contents(p, &s, NULL, NULL) ? g_ascii_strtoull(s, NULL, 10) : 0;
}

void val_ctr_snapshot(const char *root, ValCtrDram *dram, ValCtrSnap *s)
{
  memset(s, 0, sizeof *s);
  const char *r = root && *root ? root : "/";
  g_autofree char *st = read_rel(r, "proc/stat"), *ds = read_rel(r, "proc/diskstats"), *tls = read_rel(r, "proc/net/tls_stat"),
                  *vm = read_rel(r, "proc/vmstat");
  val_ctr_parse_stat(st, s);
  val_ctr_parse_diskstats(ds, s);
  if (tls) val_ctr_parse_tls_stat(tls, s);
  val_ctr_parse_vmstat(vm, s);
  g_autofree char *netdir = g_build_filename(r, "sys/class/net", NULL);
  g_autoptr(GDir) d = g_dir_open(netdir, 0, NULL);
  GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
  for (const char *e; d && (e = g_dir_read_name(d));) g_ptr_array_add(names, g_strdup(e));
  g_ptr_array_sort(names, (GCompareFunc)g_strcmp0);
  for (guint i = 0; i < names->len && s->nnet < VAL_CTR_MAX_IFS; i++) {
    const char *e = g_ptr_array_index(names, i);
    g_autofree char *sd = g_build_filename(netdir, e, "statistics", NULL);
    if (!g_file_test(sd, G_FILE_TEST_IS_DIR)) continue;
    ValCtrNet *n = &s->net[s->nnet++];
    g_strlcpy(n->name, e, sizeof n->name);
    n->rx_bytes = read_u64(sd, "rx_bytes");
    n->tx_bytes = read_u64(sd, "tx_bytes");
    n->rx_dropped = read_u64(sd, "rx_dropped");
    n->tx_dropped = read_u64(sd, "tx_dropped");
    n->rx_packets = read_u64(sd, "rx_packets");
    n->tx_packets = read_u64(sd, "tx_packets");
  }
  g_ptr_array_unref(names);
  if (val_ctr_dram_ok(dram)) {
    s->dram = TRUE;
    for (int i = 0; i < dram->npmu; i++)
      for (int k = 0; k < 2; k++) {
        uint64_t c = 0;
        if (read(dram->fd[i][k], &c, sizeof c) != (ssize_t)sizeof c) c = 0;
        uint64_t b = (uint64_t)((double)c * dram->scale[i][k]);
        if (k == 0)
          s->dram_read_bytes += b;
        else
          s->dram_write_bytes += b;
      }
  }
}

static gboolean matches(const char *name, const char *filter)
{
  if (!filter || !*filter) return TRUE;
  g_auto(GStrv) f = g_strsplit(filter, ",", -1);
  for (int i = 0; f[i]; i++)
    if (*f[i] && g_str_has_prefix(name, f[i])) return TRUE;
  return FALSE;
}

static uint64_t sub(uint64_t b, uint64_t a)
{
  return b > a ? b - a : 0; /* a counter that went back (device reset) counts nothing */
}

void val_ctr_delta(const ValCtrSnap *a, const ValCtrSnap *b, double seconds, const char *disk_filter, const char *net_filter,
                   const ValCtrDram *dram, ValCtrDelta *d)
{
  memset(d, 0, sizeof *d);
  d->seconds = seconds;
  d->ncpu = MIN(a->ncpu, b->ncpu);
  uint64_t busy = 0, soft = 0;
  for (int c = 0; c < d->ncpu; c++) {
    uint64_t db = sub(b->busy[c], a->busy[c]), dt = sub(b->total[c], a->total[c]);
    d->cpu_busy[c] = dt ? (double)db / (double)dt : 0;
    d->busy_cores += d->cpu_busy[c];
    busy += db;
    soft += sub(b->softirq[c], a->softirq[c]);
  }
  d->softirq_share = busy ? (double)soft / (double)busy : 0;
  for (int i = 0; i < b->ndisk; i++) {
    if (!matches(b->disk[i].name, disk_filter)) continue;
    for (int j = 0; j < a->ndisk; j++)
      if (!strcmp(a->disk[j].name, b->disk[i].name)) {
        d->disk_read_bytes += sub(b->disk[i].sectors_read, a->disk[j].sectors_read) * SECTOR_BYTES;
        d->disk_reads += sub(b->disk[i].reads, a->disk[j].reads);
      }
  }
  for (int i = 0; i < b->nnet; i++) {
    if (!matches(b->net[i].name, net_filter)) continue;
    for (int j = 0; j < a->nnet; j++)
      if (!strcmp(a->net[j].name, b->net[i].name)) {
        const ValCtrNet *x = &a->net[j], *y = &b->net[i];
        d->net_rx_bytes += sub(y->rx_bytes, x->rx_bytes);
        d->net_tx_bytes += sub(y->tx_bytes, x->tx_bytes);
        d->net_drops += sub(y->rx_dropped, x->rx_dropped) + sub(y->tx_dropped, x->tx_dropped);
      }
  }
  d->tls_stat = a->tls_stat && b->tls_stat;
  d->tls_tx_sw = sub(b->tls_tx_sw, a->tls_tx_sw);
  d->tls_tx_device = sub(b->tls_tx_device, a->tls_tx_device);
  d->pgpgin_bytes = sub(b->pgpgin_kib, a->pgpgin_kib) * 1024;
  d->pgmajfault = sub(b->pgmajfault, a->pgmajfault);
  d->dram = a->dram && b->dram && seconds > 0;
  if (d->dram)
    d->dram_GBps =
        (double)(sub(b->dram_read_bytes, a->dram_read_bytes) + sub(b->dram_write_bytes, a->dram_write_bytes)) / seconds * 1e-9;
  g_strlcpy(d->dram_note, dram ? val_ctr_dram_note(dram) : "not measured", sizeof d->dram_note);
}

void val_ctr_to_json(const ValCtrDelta *d, JsonBuilder *b)
{
  json_builder_begin_object(b);
  sim_json_number(b, "seconds", d->seconds);
  sim_json_number(b, "busy_cores", d->busy_cores);
  json_builder_set_member_name(b, "cpu_busy");
  json_builder_begin_array(b);
  for (int c = 0; c < d->ncpu; c++) json_builder_add_double_value(b, d->cpu_busy[c]);
  json_builder_end_array(b);
  sim_json_number(b, "softirq_share", d->softirq_share);
  sim_json_number(b, "disk_read_bytes", (double)d->disk_read_bytes);
  sim_json_number(b, "disk_reads", (double)d->disk_reads);
  sim_json_number(b, "net_rx_bytes", (double)d->net_rx_bytes);
  sim_json_number(b, "net_tx_bytes", (double)d->net_tx_bytes);
  sim_json_number(b, "net_drops", (double)d->net_drops);
  sim_json_bool(b, "tls_stat", d->tls_stat);
  sim_json_number(b, "tls_tx_sw", (double)d->tls_tx_sw);
  sim_json_number(b, "tls_tx_device", (double)d->tls_tx_device);
  sim_json_number(b, "pgpgin_bytes", (double)d->pgpgin_bytes);
  sim_json_number(b, "pgmajfault", (double)d->pgmajfault);
  sim_json_bool(b, "dram_measured", d->dram);
  if (d->dram) sim_json_number(b, "dram_GBps", d->dram_GBps);
  sim_json_string(b, "dram_note", d->dram_note);
  json_builder_end_object(b);
}
