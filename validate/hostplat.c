/* validate/hostplat.c — the host as an appliance platform (see hostplat.h).
 *
 * Reads a sysfs/procfs tree (this host's, or a capture under a directory):
 *   CPUs     sys/devices/system/cpu/online, cpuN/topology/{physical_package_id,core_id}: sockets =
 *            distinct packages, cores = distinct (package, core), SMT = CPUs / cores;
 *            proc/cpuinfo: model name, cpu MHz, flags; cpu0/cache/index*: L2 and L3 sizes
 *   NUMA     sys/devices/system/node/nodeN/cpulist
 *   memory   proc/meminfo MemTotal; SMBIOS type-17 entries (sys/firmware/dmi/entries/17-N/raw):
 *            populated DIMMs and their configured speed (DMTF DSP0134 7.18)
 *   NVMe     sys/class/nvme/nvmeN/{model,device/numa_node,device/current_link_width,
 *            device/current_link_speed}
 *   NICs     sys/class/net/IF with a device/: speed (Mb/s), device/numa_node, device/current_link_*;
 *            inline kTLS from `ethtool -k IF` (tls-hw-tx-offload), saved at ethtool/IF.k or run here
 * and writes host-platform.yaml from it.  What sysfs does not give is written with the
 * assumption it stands on, in a comment beside it: an NVMe drive's read bandwidth (datasheet),
 * memory channels and speed where SMBIOS is not readable (a VM: the measured DRAM bandwidth as
 * one channel's), a NIC's line rate where speed says -1 (virtual NICs), the inline engine's cap
 * (line rate), inter-socket links.  Leaves out: PCIe switches, the NIC's ports behind one
 * function (each netdev is a one-port card), drive models' performance, the BIOS's NPS list.
 */
#include "validate/hostplat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An NVMe drive's sustained read when nothing better is known, GB/s: a datacenter Gen3 x4 TLC
 * drive (WD Ultrastar DC SN720 datasheet, 3.4 GB/s; the drive of rome-7502p.yaml). Assumed. */
#define HP_NVME_READ_ASSUMED_GBPS 3.4
/* A NIC's line rate where sysfs gives none (a virtual NIC says -1), Gb/s. Assumed placeholder. */
#define HP_NIC_SPEED_ASSUMED_GBPS 10.0
/* The fastest line rate a port can report, Mb/s: 1.6 Tb/s (IEEE P802.3dj, the fastest Ethernet
 * rate in work); a larger sysfs speed is an unset value read as unsigned (4294967295: some
 * virtual NICs) and counts as unknown. */
#define HP_NIC_SPEED_MAX_MBPS 1.6e6
/* Memory where neither SMBIOS nor a measurement is available: DDR4-3200, one channel per socket
 * (assumed placeholder). */
#define HP_MEM_MTS_ASSUMED 3200.0
/* Clock where neither the caller nor cpuinfo gives one, Hz (assumed placeholder). */
#define HP_CLOCK_ASSUMED_HZ 2.0e9
/* Bytes per transfer of a DDR channel (64-bit bus; memory.bus_width's default). */
#define HP_CHANNEL_BYTES 8.0
/* Schema limits the file must stay in: sockets 1..2, NPS 1..4, channels 0..32, speed <= 20000
 * MT/s, PCIe gen 1..5 (`ocasim schema platform`). */
#define HP_MAX_SOCKETS  2
#define HP_MAX_NPS      4
#define HP_MAX_CHANNELS 32
#define HP_MAX_MTS      20000.0
#define HP_MAX_GEN      5
/* Inter-socket links of a 2-socket box, which sysfs does not show: 2 UPI links at 10.4 GT/s x16
 * (assumed: a Cascade/Ice Lake-SP pair; skx-4216-2s.yaml cites 2 at 9.6). */
#define HP_LINK_COUNT    2
#define HP_LINK_RATE_GTS 10.4

static char *hp_path(const ValHostPlat *h, const char *rel)
{
  return g_build_filename(h->root, rel, NULL);
}

/* Contents of ROOT/rel, stripped (NULL when unreadable). */
static char *hp_read(const ValHostPlat *h, const char *rel)
{
  g_autofree char *p = hp_path(h, rel);
  char *s = NULL;
  if (!g_file_get_contents(p, &s, NULL, NULL)) return NULL;
  return g_strstrip(s);
}

static gboolean hp_int(const ValHostPlat *h, const char *rel, long *out)
{
  g_autofree char *s = hp_read(h, rel);
  if (!s || !*s) return FALSE;
  char *end = NULL;
  long v = strtol(s, &end, 10);
  if (end == s) return FALSE;
  *out = v;
  return TRUE;
}

/* CPUs in a kernel CPU list ("0-3,8,10-11"), calling fn for each when fn is set. */
static int cpulist_each(const char *list, void (*fn)(int cpu, void *ctx), void *ctx)
{
  int n = 0;
  g_auto(GStrv) parts = g_strsplit(list ? list : "", ",", -1);
  for (int i = 0; parts[i]; i++) {
    int a = 0, b = 0;
    int k = sscanf(parts[i], "%d-%d", &a, &b);
    if (k < 1) continue;
    if (k == 1) b = a;
    for (int c = a; c <= b && c - a < 65536; c++, n++)
      if (fn) fn(c, ctx);
  }
  return n;
}

typedef struct {
  const ValHostPlat *h;
  GHashTable *packages, *cores;
} CpuWalk;

static void cpu_visit(int cpu, void *ctx)
{
  CpuWalk *w = ctx;
  g_autofree char *pk = g_strdup_printf("sys/devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
  g_autofree char *co = g_strdup_printf("sys/devices/system/cpu/cpu%d/topology/core_id", cpu);
  long p = 0, c = cpu;
  if (!hp_int(w->h, pk, &p)) p = 0;
  if (!hp_int(w->h, co, &c)) c = cpu; /* no topology: each CPU its own core */
  g_hash_table_add(w->packages, g_strdup_printf("%ld", p));
  g_hash_table_add(w->cores, g_strdup_printf("%ld:%ld", p, c));
}

static void read_cpus(ValHostPlat *h)
{
  g_autofree char *online = hp_read(h, "sys/devices/system/cpu/online");
  CpuWalk w = { h, g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
                g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL) };
  h->cpus_online = online ? cpulist_each(online, cpu_visit, &w) : 0;
  int np = (int)g_hash_table_size(w.packages), nc = (int)g_hash_table_size(w.cores);
  g_hash_table_unref(w.packages);
  g_hash_table_unref(w.cores);
  h->sockets = MAX(np, 1);
  h->cores_per_socket = MAX(nc / h->sockets, 1);
  h->threads_per_core = nc > 0 ? MAX((h->cpus_online + nc - 1) / nc, 1) : 1;
  if (h->cpus_online < 1) h->cpus_online = h->sockets * h->cores_per_socket * h->threads_per_core;

  g_autofree char *ci = hp_read(h, "proc/cpuinfo");
  g_auto(GStrv) lines = g_strsplit(ci ? ci : "", "\n", -1);
  gboolean model = FALSE, mhz = FALSE, flags = FALSE;
  for (int i = 0; lines[i]; i++) {
    char *colon = strchr(lines[i], ':');
    if (!colon) continue;
    g_autofree char *key = g_strstrip(g_strndup(lines[i], (gsize)(colon - lines[i])));
    const char *val = colon + 1;
    while (*val == ' ' || *val == '\t') val++;
    if (!model && !strcmp(key, "model name")) {
      g_strlcpy(h->cpu_model, val, sizeof h->cpu_model);
      model = TRUE;
    } else if (!mhz && !strcmp(key, "cpu MHz")) {
      h->cpuinfo_hz = g_ascii_strtod(val, NULL) * 1e6;
      mhz = TRUE;
    } else if (!flags && (!strcmp(key, "flags") || !strcmp(key, "Features"))) {
      g_auto(GStrv) f = g_strsplit(val, " ", -1);
      for (int k = 0; f[k]; k++) {
        h->flag_vaes |= !strcmp(f[k], "vaes");
        h->flag_avx512f |= !strcmp(f[k], "avx512f");
        h->flag_aes |= !strcmp(f[k], "aes");
      }
      flags = TRUE;
    }
  }
  for (int i = 0; i < 8; i++) {
    g_autofree char *lv = g_strdup_printf("sys/devices/system/cpu/cpu0/cache/index%d/level", i);
    g_autofree char *ty = g_strdup_printf("sys/devices/system/cpu/cpu0/cache/index%d/type", i);
    g_autofree char *sz = g_strdup_printf("sys/devices/system/cpu/cpu0/cache/index%d/size", i);
    long level = 0;
    g_autofree char *type = hp_read(h, ty), *size = hp_read(h, sz);
    if (!hp_int(h, lv, &level) || !type || !size || strcmp(type, "Unified")) continue;
    char *end = NULL;
    uint64_t b = g_ascii_strtoull(size, &end, 10);
    if (end && (*end == 'K' || *end == 'k')) b <<= 10;
    if (end && *end == 'M') b <<= 20;
    if (level == 2) h->l2_per_core_bytes = b;
    if (level == 3) h->l3_bytes = b;
  }
}

static void read_numa(ValHostPlat *h)
{
  h->numa_nodes = 0;
  for (int n = 0; n < VAL_HP_MAX_NODES; n++) {
    g_autofree char *rel = g_strdup_printf("sys/devices/system/node/node%d/cpulist", n);
    g_autofree char *list = hp_read(h, rel);
    if (!list) continue;
    h->node_cpus[n] = cpulist_each(list, NULL, NULL);
    h->numa_nodes = n + 1;
  }
  if (h->numa_nodes < 1) {
    h->numa_nodes = 1;
    h->node_cpus[0] = h->cpus_online;
  }
}

gboolean val_hostplat_parse_dmi17(const guint8 *raw, gsize len, uint64_t *size_mib, double *mts)
{
  if (len < 0x17 || raw[0] != 17 || raw[1] < 0x17 || raw[1] > len) return FALSE;
  unsigned size = (unsigned)raw[0x0C] | (unsigned)raw[0x0D] << 8;
  uint64_t mib;
  if (size == 0 || size == 0xFFFF)
    mib = 0; /* empty slot, or unknown */
  else if (size == 0x7FFF && raw[1] >= 0x20)
    mib = (uint64_t)(raw[0x1C] | raw[0x1D] << 8 | raw[0x1E] << 16 | (unsigned)(raw[0x1F] & 0x7F) << 24); /* extended size, MiB */
  else
    mib = (size & 0x8000) ? (size & 0x7FFF) / 1024 : size; /* bit 15: the size is in KiB */
  unsigned rated = (unsigned)raw[0x15] | (unsigned)raw[0x16] << 8;
  unsigned conf = raw[1] >= 0x22 ? ((unsigned)raw[0x20] | (unsigned)raw[0x21] << 8) : 0;
  *size_mib = mib;
  *mts = conf && conf != 0xFFFF ? conf : rated && rated != 0xFFFF ? rated : 0;
  return TRUE;
}

static void read_memory(ValHostPlat *h)
{
  g_autofree char *mi = hp_read(h, "proc/meminfo");
  const char *t = mi ? strstr(mi, "MemTotal:") : NULL;
  if (t) h->mem_total_bytes = g_ascii_strtoull(t + 9, NULL, 10) * 1024;
  g_autofree char *dir = hp_path(h, "sys/firmware/dmi/entries");
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  if (!d) {
    g_strlcpy(h->mem_source, "not readable: no sys/firmware/dmi/entries (a VM, or no SMBIOS)", sizeof h->mem_source);
    return;
  }
  int entries = 0;
  double mts = 0;
  for (const char *e; (e = g_dir_read_name(d));) {
    if (!g_str_has_prefix(e, "17-")) continue;
    g_autofree char *raw_path = g_build_filename(dir, e, "raw", NULL);
    g_autofree guint8 *raw = NULL;
    gsize len = 0;
    uint64_t mib = 0;
    double s = 0;
    entries++;
    if (!g_file_get_contents(raw_path, (char **)&raw, &len, NULL) || !val_hostplat_parse_dmi17(raw, len, &mib, &s) || !mib)
      continue;
    h->dimms++;
    if (s > 0) mts = mts > 0 ? MIN(mts, s) : s; /* mixed DIMMs run at the slowest */
  }
  h->dimm_mts = mts;
  if (h->dimms)
    g_snprintf(h->mem_source, sizeof h->mem_source, "SMBIOS type 17: %d of %d slots populated", h->dimms, entries);
  else
    g_snprintf(h->mem_source, sizeof h->mem_source, "not readable: %d SMBIOS type-17 entries, none with a size (root only?)",
               entries);
}

static double link_gts(const char *s)
{
  return s ? g_ascii_strtod(s, NULL) : 0; /* "16.0 GT/s PCIe", "8 GT/s", "Unknown" (0) */
}

static gint by_name_nvme(gconstpointer a, gconstpointer b)
{
  return strcmp(((const ValHpNvme *)a)->name, ((const ValHpNvme *)b)->name);
}

static gint by_name_nic(gconstpointer a, gconstpointer b)
{
  return strcmp(((const ValHpNic *)a)->name, ((const ValHpNic *)b)->name);
}

static void read_nvme(ValHostPlat *h)
{
  g_autofree char *dir = hp_path(h, "sys/class/nvme");
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  for (const char *e; d && (e = g_dir_read_name(d));) {
    if (!g_str_has_prefix(e, "nvme")) continue;
    ValHpNvme n = { .numa_node = -1 };
    g_strlcpy(n.name, e, sizeof n.name);
    g_autofree char *mrel = g_strdup_printf("sys/class/nvme/%s/model", e);
    g_autofree char *model = hp_read(h, mrel);
    if (model) g_strlcpy(n.model, model, sizeof n.model);
    long v;
    g_autofree char *nrel = g_strdup_printf("sys/class/nvme/%s/device/numa_node", e);
    g_autofree char *wrel = g_strdup_printf("sys/class/nvme/%s/device/current_link_width", e);
    g_autofree char *srel = g_strdup_printf("sys/class/nvme/%s/device/current_link_speed", e);
    if (hp_int(h, nrel, &v)) n.numa_node = (int)v;
    if (hp_int(h, wrel, &v)) n.link_width = (int)v;
    g_autofree char *sp = hp_read(h, srel);
    n.link_gts = link_gts(sp);
    g_array_append_val(h->nvme, n);
  }
  g_array_sort(h->nvme, by_name_nvme);
}

int val_hostplat_parse_ethtool_tls(const char *text)
{
  const char *l = text ? strstr(text, "tls-hw-tx-offload:") : NULL;
  if (!l) return -1;
  l += strlen("tls-hw-tx-offload:");
  while (*l == ' ' || *l == '\t') l++;
  return g_str_has_prefix(l, "on") ? 1 : 0;
}

static void read_ethtool(const ValHostPlat *h, ValHpNic *n)
{
  g_autofree char *rel = g_strdup_printf("ethtool/%s.k", n->name);
  g_autofree char *saved = hp_read(h, rel);
  if (saved) {
    n->tls_tx_offload = val_hostplat_parse_ethtool_tls(saved);
    g_snprintf(n->tls_source, sizeof n->tls_source, "saved ethtool -k (%s)", rel);
    return;
  }
  g_autofree char *prog = strcmp(h->root, "/") ? NULL : g_find_program_in_path("ethtool");
  if (!prog) {
    n->tls_tx_offload = -1;
    g_strlcpy(n->tls_source, "not readable: no ethtool", sizeof n->tls_source);
    return;
  }
  const char *argv[] = { prog, "-k", n->name, NULL };
  g_autofree char *out = NULL;
  int status = 0;
  if (!g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL, &status, NULL) ||
      !g_spawn_check_wait_status(status, NULL)) {
    n->tls_tx_offload = -1;
    g_strlcpy(n->tls_source, "not readable: ethtool -k failed", sizeof n->tls_source);
    return;
  }
  n->tls_tx_offload = val_hostplat_parse_ethtool_tls(out);
  g_snprintf(n->tls_source, sizeof n->tls_source, "ethtool -k %s", n->name);
}

static void read_nics(ValHostPlat *h)
{
  g_autofree char *dir = hp_path(h, "sys/class/net");
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  for (const char *e; d && (e = g_dir_read_name(d));) {
    g_autofree char *dev = g_build_filename(dir, e, "device", NULL);
    if (!g_file_test(dev, G_FILE_TEST_IS_DIR)) continue; /* lo, bridges, veth, ifb: no device */
    ValHpNic n = { .numa_node = -1 };
    g_strlcpy(n.name, e, sizeof n.name);
    long v;
    g_autofree char *sprel = g_strdup_printf("sys/class/net/%s/speed", e);
    g_autofree char *nrel = g_strdup_printf("sys/class/net/%s/device/numa_node", e);
    g_autofree char *wrel = g_strdup_printf("sys/class/net/%s/device/current_link_width", e);
    g_autofree char *srel = g_strdup_printf("sys/class/net/%s/device/current_link_speed", e);
    n.speed_mbps = hp_int(h, sprel, &v) && v > 0 && v <= HP_NIC_SPEED_MAX_MBPS ? (double)v : -1;
    if (hp_int(h, nrel, &v)) n.numa_node = (int)v;
    if (hp_int(h, wrel, &v)) n.link_width = (int)v;
    g_autofree char *sp = hp_read(h, srel);
    n.link_gts = link_gts(sp);
    read_ethtool(h, &n);
    g_array_append_val(h->nics, n);
  }
  g_array_sort(h->nics, by_name_nic);
}

ValHostPlat *val_hostplat_read(const char *root)
{
  ValHostPlat *h = g_new0(ValHostPlat, 1);
  g_strlcpy(h->root, root && *root ? root : "/", sizeof h->root);
  h->nvme = g_array_new(FALSE, TRUE, sizeof(ValHpNvme));
  h->nics = g_array_new(FALSE, TRUE, sizeof(ValHpNic));
  read_cpus(h);
  read_numa(h);
  read_memory(h);
  read_nvme(h);
  read_nics(h);
  return h;
}

void val_hostplat_free(ValHostPlat *h)
{
  if (!h) return;
  g_array_unref(h->nvme);
  g_array_unref(h->nics);
  g_free(h);
}

int val_hostplat_pcie_gen(double gts)
{
  static const double rate[] = { 2.5, 5, 8, 16, 32, 64 };
  for (int i = 0; i < (int)G_N_ELEMENTS(rate); i++)
    if (fabs(gts - rate[i]) < 0.01 * rate[i]) return i + 1;
  return 0;
}

/* Sockets and NUMA nodes per socket the file can say (schema: 1..2 and 1..4). */
static int plat_sockets(const ValHostPlat *h)
{
  return CLAMP(h->sockets, 1, HP_MAX_SOCKETS);
}

static int plat_nps(const ValHostPlat *h)
{
  return CLAMP(h->numa_nodes / MAX(h->sockets, 1), 1, HP_MAX_NPS);
}

int val_hostplat_model_node(const ValHostPlat *h, int node)
{
  int nodes = plat_sockets(h) * plat_nps(h);
  return node < 0 ? 0 : MIN(node, nodes - 1);
}

static char *yaml_quote(const char *in)
{
  GString *o = g_string_new("\"");
  for (const char *c = in ? in : ""; *c; c++) {
    if (*c == '"' || *c == '\\') g_string_append_c(o, '\\');
    if ((unsigned char)*c >= 0x20) g_string_append_c(o, *c);
  }
  g_string_append_c(o, '"');
  return g_string_free(o, FALSE);
}

static const char *uarch_of(const ValHostPlat *h)
{
  if (strstr(h->cpu_model, "AMD")) return h->flag_avx512f ? "zen4" : h->flag_vaes ? "zen3" : "zen2";
  if (strstr(h->cpu_model, "Neoverse") || strstr(h->cpu_model, "Ampere") || strstr(h->cpu_model, "ARM")) return "neoverse-n1";
  return h->flag_vaes || h->flag_avx512f ? "icelake" : "skylake";
}

/* The PCIe link of a device: `pcie: {gen, lanes}` from sysfs, or the schema's default (Gen3 x4)
 * with a note. */
static void pcie_link(GString *s, int width, double gts, GString *notes, const char *name)
{
  int gen = val_hostplat_pcie_gen(gts);
  if (gen > 0 && width > 0) {
    g_string_append_printf(s, ", pcie: {gen: %d, lanes: %d}", MIN(gen, HP_MAX_GEN), MIN(width, 16));
    if (gen > HP_MAX_GEN)
      g_string_append_printf(notes, " %s: Gen%d written as Gen%d (the schema's highest);", name, gen, HP_MAX_GEN);
  } else
    g_string_append_printf(notes, " %s: link not readable (no current_link_*: virtual device), the schema's Gen3 x4;", name);
}

char *val_hostplat_yaml(const ValHostPlat *h, double clock_hz, double dram_GBps, gboolean ktls_kernel, const char *costs_yaml)
{
  GString *s = g_string_new(NULL);
  int sockets = plat_sockets(h), nps = plat_nps(h);
  g_string_append_printf(s,
                         "# host-platform.yaml — this host as an appliance platform, read from sysfs/procfs under %s by\n"
                         "# `ocasim validate` (validate/hostplat.c). Figures sysfs does not give carry their assumption.\n"
                         "# A scenario by itself (`ocasim check|bound host-platform.yaml`) and a platform file\n"
                         "# (`platform: host-platform.yaml`).\n",
                         h->root);
  g_string_append(s, "kind: appliance\nname: host-platform\nplatform_name: host\n");
  /* cpu */
  g_autofree char *model = yaml_quote(h->cpu_model[0] ? h->cpu_model : "unknown CPU");
  double hz = clock_hz > 0 ? clock_hz : h->cpuinfo_hz > 0 ? h->cpuinfo_hz : HP_CLOCK_ASSUMED_HZ;
  const char *hz_src = clock_hz > 0        ? "the clock the costs were measured at (validate probe)"
                       : h->cpuinfo_hz > 0 ? "/proc/cpuinfo cpu MHz of CPU 0"
                                           : "not readable: assumed placeholder";
  g_string_append_printf(s, "cpu:\n  model: %s\n  uarch: %s   # guessed from the model name and flags (vaes %d, avx512f %d)\n",
                         model, uarch_of(h), h->flag_vaes, h->flag_avx512f);
  g_string_append_printf(s, "  sockets: %d   # %d physical package(s) (cpuN/topology/physical_package_id)%s\n", sockets,
                         h->sockets, h->sockets > HP_MAX_SOCKETS ? ": more than the schema's 2, written as 2" : "");
  g_string_append_printf(s, "  cores_per_socket: %d   # distinct core_id per package\n", h->cores_per_socket);
  g_string_append_printf(s, "  threads_per_core: %d   # %d online CPUs / cores\n", CLAMP(h->threads_per_core, 1, 8),
                         h->cpus_online);
  g_string_append_printf(s, "  clock: %.0f MHz   # %s\n", round(hz / 1e6), hz_src);
  if (h->l2_per_core_bytes) g_string_append_printf(s, "  l2_per_core: %" G_GUINT64_FORMAT " KiB\n", h->l2_per_core_bytes >> 10);
  if (h->l3_bytes)
    g_string_append_printf(s, "  l3_per_socket: %" G_GUINT64_FORMAT " KiB   # cpu0's unified level-3 cache\n", h->l3_bytes >> 10);
  /* topology */
  g_string_append_printf(s, "topology:   # %d NUMA node(s) (sys/devices/system/node)", h->numa_nodes);
  for (int n = 0; n < h->numa_nodes && n < VAL_HP_MAX_NODES; n++)
    g_string_append_printf(s, "%s node%d %d CPUs", n ? "," : ":", n, h->node_cpus[n]);
  g_string_append_printf(s,
                         "\n  quadrants: %d\n  nps: %d\n  nps_supported: [%d]   # the node count the OS shows; the BIOS's "
                         "other NPS settings are not visible\n",
                         nps, nps, nps);
  if (sockets == 2)
    g_string_append_printf(
        s,
        "  links:   # not visible in sysfs: assumed %d UPI links x16 at %.1f GT/s (a Cascade/Ice Lake-SP pair)\n"
        "    - {kind: upi, count: %d, width: 16, rate: %.1f GT/s}\n",
        HP_LINK_COUNT, HP_LINK_RATE_GTS, HP_LINK_COUNT, HP_LINK_RATE_GTS);
  /* memory */
  g_string_append(s, "memory:\n");
  if (h->dimms > 0) {
    int ch = CLAMP(h->dimms / sockets, 1, HP_MAX_CHANNELS);
    double mts = h->dimm_mts > 0 ? MIN(h->dimm_mts, HP_MAX_MTS) : HP_MEM_MTS_ASSUMED;
    g_string_append_printf(s, "  channels_per_socket: %d   # %s; one DIMM per channel assumed\n", ch, h->mem_source);
    g_string_append_printf(s, "  speed: %.0f MT/s   # %s\n", mts,
                           h->dimm_mts > 0 ? "SMBIOS configured (else rated) speed, the slowest DIMM"
                                           : "not readable in SMBIOS: DDR4-3200 assumed");
  } else if (dram_GBps > 0) {
    int ch = CLAMP((int)ceil(dram_GBps * 1e3 / (HP_CHANNEL_BYTES * HP_MAX_MTS / 2)), 1, HP_MAX_CHANNELS);
    double mts = dram_GBps * 1e3 / (HP_CHANNEL_BYTES * ch);
    g_string_append_printf(s,
                           "  # channels and speed %s: written as %d channel(s) whose bus carries the\n"
                           "  # measured DRAM bandwidth, %.1f GB/s (validate's microbenchmark), not the DIMMs\n"
                           "  channels_per_socket: %d\n  speed: %.0f MT/s\n",
                           h->mem_source, ch, dram_GBps, ch, mts);
  } else
    g_string_append_printf(s,
                           "  # channels and speed %s, nothing measured: assumed placeholder, one channel of DDR4-3200\n"
                           "  channels_per_socket: 1\n  speed: %.0f MT/s\n",
                           h->mem_source, HP_MEM_MTS_ASSUMED);
  /* the DDR generation the CPU drives (models/appliance/budget.c): a speed written from a measured bandwidth
   * or a placeholder is no DIMM's, so auto would read the generation off a number that is not one */
  g_string_append_printf(s, "  type: %s   # the DDR generation cpu.uarch drives (models/appliance/budget.c)\n",
                         strcmp(uarch_of(h), "zen4") ? "DDR4" : "DDR5");
  if (h->mem_total_bytes)
    g_string_append_printf(s, "  installed: %" G_GUINT64_FORMAT " MiB   # /proc/meminfo MemTotal (a little under the DIMMs)\n",
                           h->mem_total_bytes >> 20);
  /* nvme: one group per drive, in name order */
  g_string_append(s, "nvme:\n");
  if (h->nvme->len == 0)
    g_string_append_printf(s,
                           "  # no NVMe drive in sys/class/nvme: a placeholder drive (the schema needs one); validate's files\n"
                           "  # come from the page cache or the host's other disk\n"
                           "  - {count: 1, model: \"placeholder\", read: %.1f GB/s}\n",
                           HP_NVME_READ_ASSUMED_GBPS);
  else
    g_string_append_printf(s,
                           "  # read: not in sysfs, assumed %.1f GB/s each (a datacenter Gen3 x4 TLC drive, WD SN720\n"
                           "  # datasheet): put the drives' datasheet figure here\n",
                           HP_NVME_READ_ASSUMED_GBPS);
  for (guint i = 0; i < h->nvme->len; i++) {
    const ValHpNvme *d = &g_array_index(h->nvme, ValHpNvme, i);
    g_autofree char *m = yaml_quote(d->model[0] ? d->model : d->name);
    GString *notes = g_string_new(NULL);
    g_string_append_printf(s, "  - {count: 1, node: %d, model: %s, read: %.1f GB/s", val_hostplat_model_node(h, d->numa_node), m,
                           HP_NVME_READ_ASSUMED_GBPS);
    pcie_link(s, d->link_width, d->link_gts, notes, d->name);
    g_string_append_printf(s, "}   # %s: numa_node %d%s\n", d->name, d->numa_node, notes->str);
    g_string_free(notes, TRUE);
  }
  /* nics: one group per network device with a device behind it */
  int n_tls = 0; /* NICs with the inline engine on: sendfile_nic_ktls needs it on every card */
  g_string_append(s, "nics:\n");
  if (h->nics->len == 0)
    g_string_append_printf(s,
                           "  # no network device with a device/ in sys/class/net: a placeholder card (the schema needs one)\n"
                           "  - {count: 1, model: \"placeholder\", ports: 1, port_speed: %.0f Gb/s}\n",
                           HP_NIC_SPEED_ASSUMED_GBPS);
  for (guint i = 0; i < h->nics->len; i++) {
    const ValHpNic *n = &g_array_index(h->nics, ValHpNic, i);
    double gbps = n->speed_mbps > 0 ? n->speed_mbps / 1e3 : HP_NIC_SPEED_ASSUMED_GBPS;
    GString *notes = g_string_new(NULL);
    g_string_append_printf(s, "  - {count: 1, node: %d, model: \"%s\", ports: 1, port_speed: %g Gb/s",
                           val_hostplat_model_node(h, n->numa_node), n->name, gbps);
    if (n->tls_tx_offload == 1) {
      g_string_append_printf(s, ", ktls: %g Gb/s", gbps);
      n_tls++;
    }
    pcie_link(s, n->link_width, n->link_gts, notes, n->name);
    g_string_append_printf(s, "}   # %s: numa_node %d, speed %s; inline kTLS %s (%s)%s%s\n", n->name, n->numa_node,
                           n->speed_mbps > 0 ? "from sysfs" : "not readable (-1), assumed placeholder",
                           n->tls_tx_offload == 1   ? "on, its cap assumed the line rate"
                           : n->tls_tx_offload == 0 ? "off"
                                                    : "unknown",
                           n->tls_source, notes->len ? ";" : "", notes->str);
    g_string_free(notes, TRUE);
  }
  /* software: the best data path the host has */
  gboolean nic_tls = h->nics->len > 0 && n_tls == (int)h->nics->len;
  if (n_tls > 0 && !nic_tls)
    g_string_append_printf(s,
                           "# %d of %u NICs have inline kTLS on: sendfile_nic_ktls needs it on every card (drop the others\n"
                           "# to model serving through those alone)\n",
                           n_tls, h->nics->len);
  g_string_append_printf(s, "software:\n  data_path: %s   # %s\n",
                         nic_tls       ? "sendfile_nic_ktls"
                         : ktls_kernel ? "sendfile_sw_ktls"
                                       : "read_write",
                         nic_tls       ? "every NIC has tls-hw-tx-offload on"
                         : ktls_kernel ? "the kernel accepts TLS_TX (software kTLS); no NIC offload seen"
                                       : "no kernel TLS: user-space TLS");
  if (costs_yaml)
    g_string_append(s, costs_yaml);
  else
    g_string_append(s, "# costs: not measured (validate writes the measured block here)\n");
  return g_string_free(s, FALSE);
}
