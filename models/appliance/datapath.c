/* datapath.c — touch lists of the serving data paths (see datapath.h for the sources). */
#include "models/appliance/datapath.h"
#include "models/appliance/component.h"
#include "models/appliance/model_error.h"

static int add(Touch *t, int n, TouchAgent a, TouchBuf b, bool w, double bytes, TouchStall st, const char *what)
{
  t[n] = (Touch){ .agent = a, .buf = b, .write = w, .bytes = bytes, .stall = st, .what = what };
  return n + 1;
}

/* The two choices of each path (datapath.h). */
static const struct {
  DpMove move;
  DpTls tls;
} SHAPE[DP_COUNT] = {
  [DP_READ_WRITE] = { MOVE_READ_WRITE, TLS_USER_CPU },   [DP_READ_WRITE_KTLS] = { MOVE_READ_WRITE, TLS_KERNEL_CPU },
  [DP_SENDFILE] = { MOVE_SENDFILE, TLS_NONE },           [DP_SENDFILE_SW_KTLS] = { MOVE_SENDFILE, TLS_KERNEL_CPU },
  [DP_SENDFILE_NIC_KTLS] = { MOVE_SENDFILE, TLS_NIC },   [DP_READ_WRITE_NIC_KTLS] = { MOVE_READ_WRITE, TLS_NIC },
  [DP_READ_WRITE_PLAIN] = { MOVE_READ_WRITE, TLS_NONE },
};

DpMove datapath_move(DataPath path)
{
  g_return_val_if_fail(path >= 0 && path < DP_COUNT, MOVE_SENDFILE);
  return SHAPE[path].move;
}

DpTls datapath_tls(DataPath path)
{
  g_return_val_if_fail(path >= 0 && path < DP_COUNT, TLS_NONE);
  return SHAPE[path].tls;
}

DataPath datapath_of(DpMove move, DpTls tls)
{
  for (int p = 0; p < DP_COUNT; p++)
    if (SHAPE[p].move == move && SHAPE[p].tls == tls) return (DataPath)p;
  return DP_COUNT;
}

/* Appends a copy by the crypto CPU from buffer `from` to `to` (R then W); `um` is the share of
 * a user buffer's touches that reach DRAM. */
static int copy_touches(Touch *t, int n, TouchBuf from, TouchBuf to, double um, const char *rd, const char *wr)
{
  n = add(t, n, AG_CPU_CRYPTO, from, false, from == BUF_USER ? um : 1.0, ST_BULK, rd);
  return add(t, n, AG_CPU_CRYPTO, to, true, to == BUF_USER ? um : 1.0, ST_NONE, wr);
}

int datapath_touches(DataPath path, gboolean ordinary_stores, double user_miss, double meta_bytes, double ack_bytes,
                     Touch out[DP_MAX_TOUCHES])
{
  g_return_val_if_fail(path >= 0 && path < DP_COUNT, 0);
  const double um = user_miss;
  int n = 0;
  n = add(out, n, AG_DISK, BUF_PAGECACHE, true, 1.0, ST_NONE, "disk DMA write");
  if (SHAPE[path].move == MOVE_READ_WRITE) {
    n = copy_touches(out, n, BUF_PAGECACHE, BUF_USER, um, "copyout read", "copyout write");
    switch (SHAPE[path].tls) {
      case TLS_USER_CPU: n = copy_touches(out, n, BUF_USER, BUF_USER, um, "encrypt read", "encrypt write"); break;
      case TLS_KERNEL_CPU:
      case TLS_NIC: n = copy_touches(out, n, BUF_USER, BUF_USER, um, "record copy read", "record copy write"); break;
      default: break;
    }
    n = copy_touches(out, n, BUF_USER, BUF_SOCKBUF, um, "copyin read", "copyin write");
    if (SHAPE[path].tls == TLS_KERNEL_CPU)
      n = copy_touches(out, n, BUF_SOCKBUF, BUF_SOCKBUF, um, "encrypt read", "encrypt write");
    n = add(out, n, AG_NIC, BUF_SOCKBUF, false, 1.0, ST_NONE, "NIC DMA read");
  } else if (SHAPE[path].tls == TLS_KERNEL_CPU) {
    n = add(out, n, AG_CPU_CRYPTO, BUF_PAGECACHE, false, 1.0, ST_BULK, "encrypt read");
    if (ordinary_stores) n = add(out, n, AG_CPU_CRYPTO, BUF_SOCKBUF, false, 1.0, ST_BULK, "read for ownership");
    n = add(out, n, AG_CPU_CRYPTO, BUF_SOCKBUF, true, 1.0, ST_NONE, "encrypt write");
    n = add(out, n, AG_NIC, BUF_SOCKBUF, false, 1.0, ST_NONE, "NIC DMA read");
  } else {
    n = add(out, n, AG_NIC, BUF_PAGECACHE, false, 1.0, ST_NONE, "NIC DMA read");
  }
  if (meta_bytes > 0) {
    n = add(out, n, AG_CPU_STACK, BUF_META, false, meta_bytes, ST_META, "metadata read");
    n = add(out, n, AG_CPU_STACK, BUF_META, true, meta_bytes, ST_NONE, "metadata write");
  }
  if (ack_bytes > 0) n = add(out, n, AG_INGRESS_NIC, BUF_META, true, ack_bytes, ST_NONE, "ACK DMA write");
  return n;
}

double datapath_bulk_touches(DataPath path, gboolean ordinary_stores)
{
  Touch t[DP_MAX_TOUCHES];
  int n = datapath_touches(path, ordinary_stores, 1.0, 0, 0, t);
  double s = 0;
  for (int i = 0; i < n; i++) s += t[i].bytes;
  return s;
}

int datapath_copies(DataPath path)
{
  if (datapath_move(path) != MOVE_READ_WRITE) return 0;
  DpTls t = datapath_tls(path);
  return t == TLS_KERNEL_CPU || t == TLS_NIC ? 3 : 2; /* + the server's record copy (datapath.h) */
}

gboolean datapath_cpu_crypto(DataPath path)
{
  DpTls t = datapath_tls(path);
  return t == TLS_KERNEL_CPU || t == TLS_USER_CPU;
}

gboolean datapath_nic_crypto(DataPath path)
{
  return datapath_tls(path) == TLS_NIC;
}

static gboolean datapath_is_sendfile(DataPath path)
{
  return datapath_move(path) == MOVE_SENDFILE;
}

gboolean datapath_egress_by_content(Egress egress, Placement placement)
{
  return egress == EG_BY_CONTENT || placement == PL_STRICT_DISK_CENTRIC;
}

double datapath_user_miss_share(double buffer_bytes, double conns_per_core, double cache_share_bytes)
{
  if (!(cache_share_bytes > 0) || !(buffer_bytes > 0)) return 1.0;
  return loopback_miss_share(buffer_bytes * MAX(1.0, conns_per_core), cache_share_bytes);
}

gboolean datapath_appliance_user_miss_varies(const Appliance *a)
{
  gboolean rw = datapath_move(a->path) == MOVE_READ_WRITE ||
                (a->wl.alt_fraction > 0 && a->wl.alt_path < DP_COUNT && datapath_move(a->wl.alt_path) == MOVE_READ_WRITE);
  return rw && a->user_buffer_bytes > 0 && cpu_cache_share_bytes(&a->cpu, a->topo.cores_per_socket) > 0;
}

double datapath_appliance_share(const Appliance *a, gboolean (*pred)(DataPath))
{
  double alt = a->wl.alt_fraction;
  return (1.0 - alt) * pred(a->path) + alt * pred(a->wl.alt_path);
}

double datapath_appliance_user_miss(const Appliance *a, double x_Bps)
{
  int cores = a->topo.sockets * a->topo.cores_per_socket;
  double conns = workload_connections(&a->wl, MAX(x_Bps, 0.0));
  return datapath_user_miss_share(a->user_buffer_bytes, conns / MAX(cores, 1),
                                  cpu_cache_share_bytes(&a->cpu, a->topo.cores_per_socket));
}

APP_ENUM_DEFINE(datapath, DATAPATH_MAP);
const char *const datapath_alt_names[] = { DATAPATH_MAP(APP_ENUM_NAME) "none", NULL };
APP_ENUM_DEFINE(sendfile_mode, SENDFILE_MODE_MAP);
APP_ENUM_DEFINE(placement, PLACEMENT_MAP);
APP_ENUM_DEFINE(egress, EGRESS_MAP);
APP_ENUM_CONF_OK(DataPath);
APP_ENUM_CONF_OK(SendfileMode);
APP_ENUM_CONF_OK(Placement);
APP_ENUM_CONF_OK(Egress);

const char *datapath_name(DataPath p)
{
  return APP_ENUM_NAME_OF(datapath, DP_COUNT, p);
}

/* ---- the component: the serving software (component.h) ----------------------------------- */

#define F(m) offsetof(AppConf, m)

const SimConfField software_schema[] = {
  { .key = "data_path",
    .type = SIM_CONF_T_ENUM,
    .offset = F(a.path),
    .enum_names = datapath_names,
    .def = "sendfile_nic_ktls",
    .doc = "serving data path" },
  { .key = "crypto",
    .type = SIM_CONF_T_ENUM,
    .offset = F(a.crypto),
    .enum_names = cpu_crypto_names,
    .def = "isal_aes_gcm",
    .doc = "bulk crypto of CPU-crypto paths" },
  { .key = "placement",
    .type = SIM_CONF_T_ENUM,
    .offset = F(a.placement),
    .enum_names = placement_names,
    .def = "network_centric",
    .doc = "NUMA placement policy (where buffers, crypto and the connection live)" },
  { .key = "egress",
    .type = SIM_CONF_T_ENUM,
    .offset = F(a.egress),
    .enum_names = egress_names,
    .def = "lacp",
    .doc = "egress port: the LACP-hashed ingress port, or by_content (a port in the NUMA "
           "domain of the title's drive; strict_disk_centric implies it)" },
  { .key = "user_buffer",
    .type = SIM_CONF_T_DOUBLE,
    .whole = true,
    .offset = F(a.user_buffer_bytes),
    .unit = SIM_UNIT_SIZE,
    .def = "64 KiB",
    .min = "0 B",
    .doc = "the server's buffer each request reuses on read/write paths (nginx "
           "output_buffers 2 x 32k)" },
  { .key = "sendfile",
    .type = SIM_CONF_T_ENUM,
    .offset = F(a.sendfile),
    .enum_names = sendfile_mode_names,
    .def = "async",
    .doc = "async, or sync (a worker blocks on each disk read)" },
  /* sanity bound: one per connection at most */
  { .key = "workers",
    .type = SIM_CONF_T_INT,
    .offset = F(a.sendfile_workers),
    .def = "64",
    .min = "1",
    .max = "1000000",
    .doc = "workers for synchronous sendfile (assumption: one per core pair)" },
  { .key = "page_cache",
    .type = SIM_CONF_T_ENUM,
    .offset = F(a.pc.mode),
    .enum_names = pc_mode_names,
    .def = "nocache",
    .doc = "nocache: sendfile SF_NOCACHE, every byte read from a drive (as the published boxes: "
           "FreeBSD r293439); lru: an LRU page cache (Che's hit ratio, pagecache.h)" },
  SIM_CONF_END
};

/* The software against the box: a cipher for CPU crypto, an engine on every NIC for NIC kTLS,
 * a port on every drive's node for strict_disk_centric, workers for synchronous sendfile. */
static gboolean datapath_component_validate(const Appliance *a, GError **error)
{
  int n_loop = 0;
  for (int i = 0; i < a->n_nics; i++) n_loop += a->nics[i].kind == NIC_LOOPBACK;
  gboolean cpu_crypto = datapath_cpu_crypto(a->path) || (a->wl.alt_fraction > 0 && datapath_cpu_crypto(a->wl.alt_path));
  if (n_loop == 0 && cpu_crypto && a->crypto == CRYPTO_NONE)
    return model_fail(error, "software.crypto",
                      "%s encrypts on the CPU: name its bulk cipher (none is for sendfile and "
                      "sendfile_nic_ktls)",
                      datapath_name(datapath_cpu_crypto(a->path) ? a->path : a->wl.alt_path));
  if (n_loop == 0 && cpu_crypto && !cpu_crypto_check(&a->cpu, a->crypto, error)) return FALSE;
  gboolean nic_path = datapath_nic_crypto(a->path) || (a->wl.alt_fraction > 0 && datapath_nic_crypto(a->wl.alt_path));
  if (nic_path)
    for (int i = 0; i < a->n_nics; i++)
      if (a->nics[i].ktls_bps <= 0) {
        char kp[32];
        g_snprintf(kp, sizeof kp, "nics[%d]", a->nics[i].group);
        return model_fail(error, kp, "%s needs an inline kTLS engine (ktls > 0) on every NIC",
                          datapath_name(datapath_nic_crypto(a->path) ? a->path : a->wl.alt_path));
      }
  if (datapath_egress_by_content(a->egress, a->placement)) {
    for (int d = 0; d < a->n_drives; d++) {
      int dn = topo_node_of(&a->topo, a->drives[d].pos);
      gboolean found = FALSE;
      for (int i = 0; i < a->n_nics && !found; i++)
        for (int p = 0; p < a->nics[i].ports; p++)
          if (nic_port_domain(&a->nics[i], &a->topo, p) == dn) found = TRUE;
      if (!found) {
        char kp[32];
        g_snprintf(kp, sizeof kp, "nvme[%d]", a->drives[d].group);
        return model_fail(error, kp, "egress by content: node %d holds this drive but no NIC port", dn);
      }
    }
  }
  if (a->sendfile == SENDFILE_SYNC && a->sendfile_workers < 1)
    return model_fail(error, "software.workers", "synchronous sendfile needs at least one worker");
  return TRUE;
}

typedef struct {
  int workers; /* sendfile.workers, -1: asynchronous */
} DatapathRes;

/* sendfile.workers: with synchronous sendfile, the workers that block on drive reads (a
 * machine-wide Little's-law ceiling, nvme.h). */
static void datapath_add_resources(AppBuild *b, void *state)
{
  DatapathRes *s = state;
  const Appliance *a = b->a;
  s->workers = -1;
  if (a->sendfile == SENDFILE_SYNC && datapath_is_sendfile(a->path))
    s->workers = app_build_add_res(b, "sendfile.workers", RK_NVME, a->sendfile_workers, 1.0, 1.0, "workers", -1);
}

/* A worker is held for the drive's latency and transfer of each io_bytes read. */
static void datapath_class_demand(AppBuild *b, void *state, DmClass *k)
{
  const DatapathRes *s = state;
  if (b->loop || s->workers < 0) return;
  const Appliance *a = b->a;
  const NvmeDrive *drive = &a->drives[k->drive];
  k->demand[s->workers] += nvme_read_s(drive, a->wl.io_bytes) / a->wl.io_bytes;
}

const AppComponent datapath_component = { .name = "datapath",
                                          .state_size = sizeof(DatapathRes),
                                          .validate = datapath_component_validate,
                                          .add_resources = datapath_add_resources,
                                          .class_demand = datapath_class_demand };
