/* validate/counters.c — resource counters of a run (see counters.h).
 *
 * /proc/stat      cpuN user nice system idle iowait irq softirq steal guest guest_nice (USER_HZ
 *                 ticks; proc(5)): busy = user + nice + system + irq + softirq + steal, total =
 *                 busy + idle + iowait (guest time is already inside user)
 * /proc/diskstats major minor name reads merged sectors_read ... (Documentation/admin-guide/
 *                 iostats.rst): sectors are 512 B whatever the device's block size
 * statistics/     rx_bytes, tx_bytes, rx_dropped, tx_dropped, rx_packets, tx_packets
 * ethtool -S IF   the driver's own counters (read with the SIOCETHTOOL ioctl as ethtool does, as
 *                 "name: value" text); no fixed names across drivers, so only two things are
 *                 taken, by name: drops (the rule of val_ctr_parse_ethtool) and inline TLS (mlx5's
 *                 port-wide names, Documentation/networking/device_drivers/ethernet/mellanox/mlx5/
 *                 counters.rst: tx_tls_encrypted_bytes/_packets, tx_tls_ctx, tx_tls_ooo,
 *                 tx_tls_resync_bytes, tx_tls_dump_bytes, tx_tls_drop_*, rx_tls_decrypted_bytes).
 *                 A driver with no statistics (lo: "no stats available") or no drop / TLS names
 *                 is "not measured", never 0. veth and virtio_net do print drop counters
 *                 (rx_queue_0_drops; rx_drops), so they are measured.
 * tls_stat        TlsTxSw / TlsTxDevice: TX sessions the kernel set up in software and on the
 *                 NIC (Documentation/networking/tls.rst): a device count that rises is inline
 *                 offload engaged
 * vmstat          pgpgin (KiB read from block devices into memory), pgmajfault
 * DRAM            one count = one 64-B line read or written, on the first PMU family sysfs lists:
 *   Intel         uncore_imc_N events/cas_count_read, cas_count_write (Intel uncore performance
 *                 monitoring guides; perf's sysfs scale 6.103515625e-5 MiB = 64 B)
 *   AMD Zen 4+    amd_umc_N (Linux 6.9+, arch/x86/events/amd/uncore.c: one PMU per memory
 *                 controller, cpumask one CPU of its package; format/event "config:0-7",
 *                 format/rdwrmask "config:8-9"): umc_cas_cmd.rd = event 0x0a rdwrmask 0x1 ->
 *                 config 0x10a, umc_cas_cmd.wr = rdwrmask 0x2 -> 0x20a (perf's tools/perf/
 *                 pmu-events/arch/x86/amdzen4 and amdzen5 memory-controller.json; amdzen4
 *                 recommended.json umc_mem_read_bandwidth = umc_cas_cmd.rd x 64 B)
 *   AMD Zen 1-3   amd_df (format/event "config:0-7,32-35,59-60", format/umask "config:8-15";
 *                 cpumask one CPU per socket): dram_channel_data_controller_0..7 = event 0x07,
 *                 0x47, ..., 0x1c7, umask 0x38, "Requests with Data (64B)", reads and writes in one
 *                 count (perf's amdzen1/2/3 data-fabric.json; amdzen2 recommended.json
 *                 nps1_die_to_dram sums the eight at 6.1e-5 MiB = 64 B each). The DF has 4
 *                 counters: perf multiplexes the 8 events and each delta is scaled by
 *                 time enabled / time running, as perf stat does. A PerfMonV2 DF (Zen 4+,
 *                 format/umask "config:8-15,24-27") has other event numbers: not used.
 *                 Each config is built from the PMU's sysfs type and format/ files
 *                 (val_ctr_pmu_encode), so a fake sysfs tree tests it.
 * Leaves out: other drivers' TLS counter names (only mlx5's are read; nfp and others differ), the
 * Zen 4+ data-fabric DRAM events (used only through amd_umc), Intel free-running and HBM
 * counters, Arm CMN / DMC PMUs, per-process attribution.
 */
#include "validate/counters.h"

#include <errno.h>
#include <linux/ethtool.h>
#include <linux/perf_event.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sim/json.h"

/* Bytes of one diskstats sector (iostats.rst: always 512) and of one DRAM CAS command (a 64-B
 * line). */
#define SECTOR_BYTES 512ULL
#define CAS_BYTES    64ULL
/* AMD UMC (perf's amdzen4/amdzen5 memory-controller.json): umc_cas_cmd.rd / .wr = EventCode 0x0a
 * with RdWrMask 0x1 / 0x2. AMD DF (perf's amdzen1/2/3 data-fabric.json):
 * dram_channel_data_controller_N = EventCode 0x07 + 0x40 x N (N = 0..7), UMask 0x38 ("Requests with
 * Data (64B)"). */
/* Most driver statistics read from one interface (mlx5 with 128 channels prints ~10^4; assumed). */
#define ETHTOOL_MAX_STATS  (1u << 16)
#define UMC_CAS_EVENT      0x0aULL
#define DF_DRAM_CHANNELS   8
#define DF_DRAM_EVENT0     0x07ULL
#define DF_DRAM_EVENT_STEP 0x40ULL
#define DF_DRAM_UMASK      0x38ULL

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

/* ---- NIC driver counters: ethtool -S ------------------------------------------------ */

const char *const val_ctr_nic_tls_names[VAL_CTR_NIC_TLS_N] = {
  "tx_tls_encrypted_bytes", "tx_tls_encrypted_packets", "tx_tls_ctx",  "tx_tls_ooo",
  "tx_tls_resync_bytes",    "tx_tls_dump_bytes",        "tx_tls_drop", "rx_tls_decrypted_bytes",
};

static gboolean is_drop_name(const char *lower)
{
  if (strstr(lower, "xdp")) return FALSE;
  return strstr(lower, "drop") || strstr(lower, "discard") || strstr(lower, "missed") || strstr(lower, "out_of_buffer");
}

gboolean val_ctr_parse_ethtool(const char *text, ValCtrNic *n)
{
  memset(n, 0, sizeof *n);
  g_auto(GStrv) lines = g_strsplit(text ? text : "", "\n", -1);
  int nlines = 0, nd[2] = { 0, 0 };
  uint64_t sum[2] = { 0, 0 }; /* [0] names without a digit, [1] per-ring / per-queue breakdowns */
  for (int i = 0; lines[i]; i++) {
    char *colon = strrchr(lines[i], ':');
    if (!colon) continue;
    *colon = '\0';
    g_autofree char *name = g_ascii_strdown(g_strstrip(lines[i]), -1);
    char *val = g_strstrip(colon + 1);
    guint64 v;
    if (!*name || !g_ascii_string_to_unsigned(val, 10, 0, G_MAXUINT64, &v, NULL)) continue;
    nlines++;
    if (is_drop_name(name)) {
      gboolean digit = FALSE;
      for (const char *c = name; *c; c++) digit = digit || g_ascii_isdigit(*c);
      nd[digit]++;
      sum[digit] += v;
    }
    for (int k = 0; k < VAL_CTR_NIC_TLS_N; k++) {
      gboolean hit =
          k == VAL_CTR_NIC_TLS_TX_DROPS ? g_str_has_prefix(name, "tx_tls_drop_") : !strcmp(name, val_ctr_nic_tls_names[k]);
      if (!hit) continue;
      n->tls_have |= 1u << k;
      n->tls[k] += v;
    }
  }
  n->ok = nlines > 0;
  int w = nd[0] > 0 ? 0 : 1;
  n->ndrop = nd[w];
  n->drops = sum[w];
  return n->ok;
}

/* What `ethtool -S ifname` prints, read the way ethtool reads it (SIOCETHTOOL on sock:
 * ETHTOOL_GDRVINFO for n_stats, ETHTOOL_GSTRINGS of ETH_SS_STATS, ETHTOOL_GSTATS; linux/ethtool.h),
 * without a program to spawn (a snapshot stays a few ms). NULL when the driver has no statistics
 * (lo, whose n_stats is 0) or the ioctl fails. */
static char *ethtool_stats(int sock, const char *ifname)
{
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  if (strlen(ifname) >= IFNAMSIZ) return NULL;
  g_strlcpy(ifr.ifr_name, ifname, IFNAMSIZ);
  struct ethtool_drvinfo info;
  memset(&info, 0, sizeof info);
  info.cmd = ETHTOOL_GDRVINFO;
  ifr.ifr_data = (void *)&info;
  if (ioctl(sock, SIOCETHTOOL, &ifr) < 0 || info.n_stats == 0 || info.n_stats > ETHTOOL_MAX_STATS) return NULL;
  uint32_t n = info.n_stats;
  g_autofree struct ethtool_gstrings *str = g_malloc0(sizeof *str + (size_t)n * ETH_GSTRING_LEN);
  g_autofree struct ethtool_stats *st = g_malloc0(sizeof *st + (size_t)n * sizeof(uint64_t));
  str->cmd = ETHTOOL_GSTRINGS;
  str->string_set = ETH_SS_STATS;
  str->len = n;
  ifr.ifr_data = (void *)str;
  if (ioctl(sock, SIOCETHTOOL, &ifr) < 0) return NULL;
  st->cmd = ETHTOOL_GSTATS;
  st->n_stats = n;
  ifr.ifr_data = (void *)st;
  if (ioctl(sock, SIOCETHTOOL, &ifr) < 0) return NULL;
  n = MIN(n, MIN(str->len, st->n_stats)); /* the count may change between calls (channels) */
  GString *out = g_string_new("NIC statistics:\n");
  for (uint32_t i = 0; i < n; i++) {
    char name[ETH_GSTRING_LEN + 1];
    memcpy(name, str->data + (size_t)i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
    name[ETH_GSTRING_LEN] = '\0';
    g_string_append_printf(out, "     %s: %" G_GUINT64_FORMAT "\n", name, (guint64)st->data[i]);
  }
  return g_string_free(out, FALSE);
}

/* ---- DRAM: memory-controller and data-fabric PMUs ----------------------------------- */

struct ValCtrDram {
  int nev;
  ValCtrDramEvent ev[VAL_CTR_MAX_DRAM_EV];
  int fd[VAL_CTR_MAX_DRAM_EV]; /* -1 when not open */
  int npmu;
  gboolean open;
  gboolean truncated; /* a PMU left out: its events would pass VAL_CTR_MAX_DRAM_EV */
  char note[200];
};

gboolean val_ctr_pmu_encode(const char *format, uint64_t value, uint64_t *config)
{
  if (!format || !g_str_has_prefix(format, "config:")) return FALSE;
  g_auto(GStrv) ranges = g_strsplit(format + strlen("config:"), ",", -1);
  uint64_t out = 0;
  int used = 0;
  for (int i = 0; ranges[i]; i++) {
    char *end = NULL;
    const char *r = g_strstrip(ranges[i]);
    if (!g_ascii_isdigit(*r)) return FALSE;
    guint64 lo = g_ascii_strtoull(r, &end, 10), hi = lo;
    if (*end == '-') hi = g_ascii_strtoull(end + 1, &end, 10);
    if (*end || hi < lo || hi > 63) return FALSE;
    for (guint64 bit = lo; bit <= hi; bit++, used++)
      if (used < 64 && (value >> used & 1)) out |= 1ULL << bit;
  }
  if (used == 0 || (used < 64 && value >> used)) return FALSE;
  *config |= out;
  return TRUE;
}

static char *read_strip(const char *path)
{
  char *s = NULL;
  if (!g_file_get_contents(path, &s, NULL, NULL)) return NULL;
  return g_strstrip(s);
}

/* Encodes "term=value" with the PMU's format/<term> file; without one, the Intel uncore layout
 * (event config:0-7, umask config:8-15). */
static gboolean encode_term(const char *pmudir, const char *term, uint64_t v, uint64_t *config)
{
  g_autofree char *fp = g_build_filename(pmudir, "format", term, NULL);
  g_autofree char *fmt = read_strip(fp);
  if (fmt) return val_ctr_pmu_encode(fmt, v, config);
  if (!strcmp(term, "event")) return val_ctr_pmu_encode("config:0-7", v, config);
  if (!strcmp(term, "umask")) return val_ctr_pmu_encode("config:8-15", v, config);
  return FALSE;
}

/* "event=0x04,umask=0x03" (an events/ file of sysfs) -> config by the PMU's format files. */
static gboolean event_config(const char *pmudir, const char *spec, uint64_t *config)
{
  gboolean have = FALSE;
  *config = 0;
  g_auto(GStrv) parts = g_strsplit(spec, ",", -1);
  for (int i = 0; parts[i]; i++) {
    char *eq = strchr(parts[i], '=');
    if (!eq) continue;
    *eq = '\0';
    if (!encode_term(pmudir, g_strstrip(parts[i]), g_ascii_strtoull(eq + 1, NULL, 0), config)) return FALSE;
    have = have || !strcmp(parts[i], "event");
  }
  return have;
}

/* CPUs of a cpumask file ("0", "0,64", "0-1"); at most max. */
static int cpu_list(const char *mask, int *cpus, int max)
{
  int n = 0;
  g_auto(GStrv) parts = g_strsplit(mask ? mask : "", ",", -1);
  for (int i = 0; parts[i] && n < max; i++) {
    char *end = NULL;
    if (!g_ascii_isdigit(*parts[i])) continue;
    long lo = strtol(parts[i], &end, 10), hi = lo;
    if (*end == '-') hi = strtol(end + 1, NULL, 10);
    for (long c = lo; c <= hi && n < max; c++) cpus[n++] = (int)c;
  }
  if (n == 0 && max > 0) cpus[n++] = 0; /* no cpumask file: CPU 0 */
  return n;
}

static int perf_open(uint32_t type, uint64_t config, int cpu)
{
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = type;
  a.config = config;
  a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  return (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, 0);
}

/* Adds the PMU's events (configs cfg[0..n), kinds kind[]) on each CPU of its cpumask. */
static void add_pmu(ValCtrDram *d, const char *dir, const char *pmu, uint32_t type, const uint64_t *cfg, const int *kind, int n)
{
  g_autofree char *cm = g_build_filename(dir, pmu, "cpumask", NULL);
  g_autofree char *mask = read_strip(cm);
  int cpus[64];
  int nc = cpu_list(mask, cpus, G_N_ELEMENTS(cpus));
  if (d->nev + nc * n > VAL_CTR_MAX_DRAM_EV) { /* a partial set would read low: none of this PMU */
    d->truncated = TRUE;
    return;
  }
  for (int c = 0; c < nc; c++)
    for (int k = 0; k < n; k++) {
      ValCtrDramEvent *e = &d->ev[d->nev];
      g_strlcpy(e->pmu, pmu, sizeof e->pmu);
      e->type = type;
      e->config = cfg[k];
      e->cpu = cpus[c];
      e->kind = kind[k];
      e->bytes = CAS_BYTES;
      d->fd[d->nev++] = -1;
    }
  d->npmu++;
}

/* g_ptr_array_sort passes pointers to the elements, not the strings */
static gint cmp_name(gconstpointer a, gconstpointer b)
{
  return g_strcmp0(*(const char *const *)a, *(const char *const *)b);
}

static GPtrArray *pmus_named(const char *dir, const char *prefix)
{
  GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GDir) dd = g_dir_open(dir, 0, NULL);
  for (const char *e; dd && (e = g_dir_read_name(dd));)
    if (g_str_has_prefix(e, prefix)) g_ptr_array_add(names, g_strdup(e));
  g_ptr_array_sort(names, cmp_name);
  return names;
}

static uint32_t pmu_type(const char *dir, const char *pmu, gboolean *ok)
{
  g_autofree char *tp = g_build_filename(dir, pmu, "type", NULL);
  g_autofree char *t = read_strip(tp);
  *ok = t && g_ascii_isdigit(*t);
  return *ok ? (uint32_t)g_ascii_strtoull(t, NULL, 10) : 0;
}

/* Intel: uncore_imc_N events/cas_count_read and cas_count_write. */
static void find_intel(ValCtrDram *d, const char *dir)
{
  g_autoptr(GPtrArray) names = pmus_named(dir, "uncore_imc");
  for (guint i = 0; i < names->len; i++) {
    const char *pmu = g_ptr_array_index(names, i);
    static const char *const ev[2] = { "cas_count_read", "cas_count_write" };
    static const int kind[2] = { 0, 1 };
    g_autofree char *pd = g_build_filename(dir, pmu, NULL);
    uint64_t cfg[2];
    gboolean ok;
    uint32_t type = pmu_type(dir, pmu, &ok);
    for (int k = 0; k < 2 && ok; k++) {
      g_autofree char *ep = g_build_filename(pd, "events", ev[k], NULL);
      g_autofree char *spec = read_strip(ep);
      ok = spec && event_config(pd, spec, &cfg[k]);
    }
    if (ok) add_pmu(d, dir, pmu, type, cfg, kind, 2);
  }
}

/* AMD Zen 4+: amd_umc_N, umc_cas_cmd.rd = event 0x0a rdwrmask 0x1, .wr = event 0x0a rdwrmask 0x2. */
static void find_umc(ValCtrDram *d, const char *dir)
{
  g_autoptr(GPtrArray) names = pmus_named(dir, "amd_umc_");
  for (guint i = 0; i < names->len; i++) {
    const char *pmu = g_ptr_array_index(names, i);
    g_autofree char *pd = g_build_filename(dir, pmu, NULL);
    static const int kind[2] = { 0, 1 };
    uint64_t cfg[2] = { 0, 0 };
    gboolean ok;
    uint32_t type = pmu_type(dir, pmu, &ok);
    for (int k = 0; k < 2 && ok; k++)
      ok = encode_term(pd, "event", UMC_CAS_EVENT, &cfg[k]) && encode_term(pd, "rdwrmask", (uint64_t)k + 1, &cfg[k]);
    if (ok) add_pmu(d, dir, pmu, type, cfg, kind, 2);
  }
}

/* AMD Zen 1-3: amd_df, dram_channel_data_controller_0..7 = event 0x07 + 0x40 x N, umask 0x38. The
 * PerfMonV2 DF (Zen 4+: format/umask "config:8-15,24-27", 12 bits) has other events; FALSE then. */
static gboolean find_df(ValCtrDram *d, const char *dir)
{
  gboolean ok;
  uint32_t type = pmu_type(dir, "amd_df", &ok);
  if (!ok) return TRUE;
  g_autofree char *pd = g_build_filename(dir, "amd_df", NULL);
  g_autofree char *up = g_build_filename(pd, "format", "umask", NULL);
  g_autofree char *umask = read_strip(up);
  uint64_t probe = 0;
  if (!umask) return TRUE;
  if (!val_ctr_pmu_encode(umask, 0xff, &probe) || val_ctr_pmu_encode(umask, 0x100, &probe)) return FALSE;
  uint64_t cfg[DF_DRAM_CHANNELS] = { 0 };
  int kind[DF_DRAM_CHANNELS];
  for (int c = 0; c < DF_DRAM_CHANNELS; c++) {
    kind[c] = 2;
    if (!encode_term(pd, "event", DF_DRAM_EVENT0 + DF_DRAM_EVENT_STEP * (uint64_t)c, &cfg[c]) ||
        !encode_term(pd, "umask", DF_DRAM_UMASK, &cfg[c]))
      return TRUE;
  }
  add_pmu(d, dir, "amd_df", type, cfg, kind, DF_DRAM_CHANNELS);
  return TRUE;
}

ValCtrDram *val_ctr_dram_open_at(const char *root, gboolean open)
{
  ValCtrDram *d = g_new0(ValCtrDram, 1);
  g_autofree char *dir = g_build_filename(root ? root : "/", "sys/bus/event_source/devices", NULL);
  const char *src = "uncore_imc";
  gboolean df_ok = TRUE;
  find_intel(d, dir);
  if (d->nev == 0) src = "amd_umc", find_umc(d, dir);
  if (d->nev == 0) src = "amd_df", df_ok = find_df(d, dir);
  if (d->truncated) d->npmu = 0, d->nev = 0; /* some PMUs only: the sum would read low */
  int found = d->npmu, open_err = 0, nopen = 0;
  d->open = open;
  for (int i = 0; open && i < d->nev; i++) {
    d->fd[i] = perf_open(d->ev[i].type, d->ev[i].config, d->ev[i].cpu);
    if (d->fd[i] < 0)
      open_err = errno;
    else
      nopen++;
  }
  if (open && nopen < d->nev) { /* all or nothing: a partial sum would read low */
    for (int i = 0; i < d->nev; i++)
      if (d->fd[i] >= 0) close(d->fd[i]), d->fd[i] = -1;
    d->npmu = 0;
  }
  if (d->truncated)
    g_snprintf(d->note, sizeof d->note, "not measured: %s PMUs need more than %d events", src, VAL_CTR_MAX_DRAM_EV);
  else if (!df_ok)
    g_strlcpy(d->note,
              "not measured: amd_df is the PerfMonV2 data fabric (Zen 4 or later) and the kernel has no amd_umc "
              "PMUs (Linux 6.9+)",
              sizeof d->note);
  else if (found == 0)
    g_strlcpy(d->note,
              "not measured: no memory-controller PMU (uncore_imc_*, amd_umc_*, amd_df) in "
              "/sys/bus/event_source/devices (a VM?)",
              sizeof d->note);
  else if (open && d->npmu == 0)
    g_snprintf(d->note, sizeof d->note,
               "not measured: %d %s PMUs, perf_event_open refused: %s (root or perf_event_paranoid <= 0)", found, src,
               g_strerror(open_err));
  else if (!strcmp(src, "amd_df"))
    g_snprintf(d->note, sizeof d->note,
               "%s: amd_df, %d events (8 DRAM channels x %d CPUs of its cpumask), reads + writes x 64 B, "
               "multiplexed on 4 counters and scaled",
               open ? "measured" : "found, not opened", d->nev, d->nev / DF_DRAM_CHANNELS);
  else
    g_snprintf(d->note, sizeof d->note, "%s: %d %s PMUs, %s read + write x 64 B", open ? "measured" : "found, not opened",
               d->npmu, src, strcmp(src, "amd_umc") ? "cas_count" : "umc_cas_cmd");
  return d;
}

ValCtrDram *val_ctr_dram_open(const char *root)
{
  return val_ctr_dram_open_at(root, !root || !strcmp(root, "/"));
}

gboolean val_ctr_dram_ok(const ValCtrDram *d)
{
  return d && d->open && d->npmu > 0 && d->nev > 0 && d->fd[0] >= 0;
}

const char *val_ctr_dram_note(const ValCtrDram *d)
{
  return d ? d->note : "not measured";
}

int val_ctr_dram_pmus(const ValCtrDram *d)
{
  return d ? d->npmu : 0;
}

int val_ctr_dram_events(const ValCtrDram *d)
{
  return d ? d->nev : 0;
}

const ValCtrDramEvent *val_ctr_dram_event(const ValCtrDram *d, int i)
{
  return d && i >= 0 && i < d->nev ? &d->ev[i] : NULL;
}

void val_ctr_dram_close(ValCtrDram *d)
{
  if (!d) return;
  for (int i = 0; i < d->nev; i++)
    if (d->fd[i] >= 0) close(d->fd[i]);
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

/* A multiplexed count scaled to the whole time enabled (perf stat's estimate); 0 if never run. */
static double scaled(uint64_t count, uint64_t enabled, uint64_t running)
{
  return running ? (double)count * ((double)enabled / (double)running) : 0;
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
  int sock = -1; /* SIOCETHTOOL socket (root "/"); a tree has ethtool-S/IF files instead */
  if (!strcmp(r, "/")) {
    sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    s->ethtool = sock >= 0;
  } else {
    g_autofree char *ed = g_build_filename(r, "ethtool-S", NULL);
    s->ethtool = g_file_test(ed, G_FILE_TEST_IS_DIR);
  }
  g_autoptr(GDir) d = g_dir_open(netdir, 0, NULL);
  GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
  for (const char *e; d && (e = g_dir_read_name(d));) g_ptr_array_add(names, g_strdup(e));
  g_ptr_array_sort(names, cmp_name);
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
    if (!s->ethtool) continue;
    g_autofree char *et = NULL;
    if (sock >= 0) {
      et = ethtool_stats(sock, e);
    } else {
      g_autofree char *rel = g_build_filename("ethtool-S", e, NULL);
      et = read_rel(r, rel);
    }
    if (et) val_ctr_parse_ethtool(et, &n->nic);
  }
  g_ptr_array_unref(names);
  if (sock >= 0) close(sock);
  if (val_ctr_dram_ok(dram)) {
    s->dram = TRUE;
    s->ndram = MIN(dram->nev, VAL_CTR_MAX_DRAM_EV);
    for (int i = 0; i < s->ndram; i++) {
      uint64_t v[3] = { 0, 0, 0 }; /* value, time enabled, time running (read_format) */
      if (read(dram->fd[i], v, sizeof v) != (ssize_t)sizeof v) memset(v, 0, sizeof v);
      s->dram_count[i] = v[0], s->dram_enabled_ns[i] = v[1], s->dram_running_ns[i] = v[2];
      uint64_t b = (uint64_t)(scaled(v[0], v[1], v[2]) * dram->ev[i].bytes);
      uint64_t *to[3] = { &s->dram_read_bytes, &s->dram_write_bytes, &s->dram_rw_bytes };
      *to[dram->ev[i].kind] += b;
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

static void append_name(GString *g, const char *name)
{
  g_string_append_printf(g, "%s%s", g->len ? ", " : "", name);
}

/* The NIC driver figures of d over the interfaces matching filter (see val_ctr_delta). */
static void nic_delta(const ValCtrSnap *a, const ValCtrSnap *b, const char *filter, ValCtrDelta *d)
{
  if (!a->ethtool || !b->ethtool) {
    g_strlcpy(d->nic_note, "not measured: no SIOCETHTOOL socket (ethtool -S statistics unreadable)", sizeof d->nic_note);
    return;
  }
  g_autoptr(GString) drops = g_string_new(NULL), tls = g_string_new(NULL), none = g_string_new(NULL), nodrop = g_string_new(NULL);
  for (int i = 0; i < b->nnet; i++) {
    if (!matches(b->net[i].name, filter)) continue;
    const ValCtrNic *y = &b->net[i].nic, *x = NULL;
    for (int j = 0; j < a->nnet && !x; j++)
      if (!strcmp(a->net[j].name, b->net[i].name)) x = &a->net[j].nic;
    if (!x) continue;
    if (!x->ok || !y->ok) {
      append_name(none, b->net[i].name);
      continue;
    }
    if (x->ndrop > 0 && y->ndrop > 0) {
      d->nic_drops_measured = TRUE;
      d->nic_drops += sub(y->drops, x->drops);
      append_name(drops, b->net[i].name);
    } else {
      append_name(nodrop, b->net[i].name);
    }
    uint32_t have = x->tls_have & y->tls_have;
    for (int k = 0; k < VAL_CTR_NIC_TLS_N; k++)
      if (have & 1u << k) d->nic_tls[k] += sub(y->tls[k], x->tls[k]);
    if (have) append_name(tls, b->net[i].name);
    d->nic_tls_have |= have;
  }
  g_autoptr(GString) note = g_string_new(NULL);
  if (drops->len) g_string_append_printf(note, "drops: %s", drops->str);
  if (tls->len) g_string_append_printf(note, "%sdevice TLS: %s", note->len ? "; " : "", tls->str);
  if (none->len || nodrop->len || !note->len) {
    g_string_append_printf(note, "%snot measured:", note->len ? "; " : "");
    if (none->len) g_string_append_printf(note, " %s (no ethtool -S statistics)", none->str);
    if (nodrop->len) g_string_append_printf(note, "%s %s (no drop counters)", none->len ? "," : "", nodrop->str);
    if (!none->len && !nodrop->len) g_string_append(note, " no interface matches");
  }
  g_strlcpy(d->nic_note, note->str, sizeof d->nic_note);
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
  if (d->dram) {
    double by[3] = { 0, 0, 0 }; /* read, write, read or write: bytes */
    if (dram && a->ndram == b->ndram && b->ndram == dram->nev) {
      for (int i = 0; i < b->ndram; i++)
        by[dram->ev[i].kind] += scaled(sub(b->dram_count[i], a->dram_count[i]), sub(b->dram_enabled_ns[i], a->dram_enabled_ns[i]),
                                       sub(b->dram_running_ns[i], a->dram_running_ns[i])) *
                                dram->ev[i].bytes;
    } else {
      by[0] = (double)sub(b->dram_read_bytes, a->dram_read_bytes);
      by[1] = (double)sub(b->dram_write_bytes, a->dram_write_bytes);
      by[2] = (double)sub(b->dram_rw_bytes, a->dram_rw_bytes);
    }
    d->dram_GBps = (by[0] + by[1] + by[2]) / seconds * 1e-9;
    d->dram_split = dram ? dram->nev > 0 && dram->ev[0].kind != 2 : b->dram_rw_bytes == 0;
    if (d->dram_split) d->dram_read_GBps = by[0] / seconds * 1e-9, d->dram_write_GBps = by[1] / seconds * 1e-9;
  }
  g_strlcpy(d->dram_note, dram ? val_ctr_dram_note(dram) : "not measured", sizeof d->dram_note);
  nic_delta(a, b, net_filter, d);
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
  if (d->dram && d->dram_split) {
    sim_json_number(b, "dram_read_GBps", d->dram_read_GBps);
    sim_json_number(b, "dram_write_GBps", d->dram_write_GBps);
  }
  sim_json_string(b, "dram_note", d->dram_note);
  sim_json_bool(b, "nic_drops_measured", d->nic_drops_measured);
  if (d->nic_drops_measured) sim_json_number(b, "nic_drops", (double)d->nic_drops);
  sim_json_bool(b, "nic_tls_measured", d->nic_tls_have != 0);
  if (d->nic_tls_have) {
    json_builder_set_member_name(b, "nic_tls");
    json_builder_begin_object(b);
    for (int k = 0; k < VAL_CTR_NIC_TLS_N; k++)
      if (d->nic_tls_have & 1u << k) sim_json_number(b, val_ctr_nic_tls_names[k], (double)d->nic_tls[k]);
    json_builder_end_object(b);
  }
  sim_json_string(b, "nic_note", d->nic_note);
  json_builder_end_object(b);
}
