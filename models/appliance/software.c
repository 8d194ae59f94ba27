/* software.c — the `software:` section (software.h): the data path, crypto, placement and
 * sendfile workers of the serving software, and its data path's touches on a box. */
#include "models/appliance/software.h"
#include "models/appliance/component.h"
#include "models/appliance/model_error.h"

double software_user_miss_share(double buffer_bytes, double conns_per_core, double cache_share_bytes)
{
  if (!(cache_share_bytes > 0) || !(buffer_bytes > 0)) return 1.0;
  return loopback_miss_share(buffer_bytes * MAX(1.0, conns_per_core), cache_share_bytes);
}

gboolean software_user_miss_varies(const Appliance *a)
{
  gboolean rw = datapath_move(a->path) == MOVE_READ_WRITE ||
                (a->wl.alt_fraction > 0 && a->wl.alt_path < DP_COUNT && datapath_move(a->wl.alt_path) == MOVE_READ_WRITE);
  return rw && a->user_buffer_bytes > 0 && cpu_cache_share_bytes(&a->cpu, a->topo.cores_per_socket) > 0;
}

double software_user_miss(const Appliance *a, double x_Bps)
{
  int cores = a->topo.sockets * a->topo.cores_per_socket;
  double conns = workload_connections(&a->wl, MAX(x_Bps, 0.0));
  return software_user_miss_share(a->user_buffer_bytes, conns / MAX(cores, 1),
                                  cpu_cache_share_bytes(&a->cpu, a->topo.cores_per_socket));
}

/* Bytes of an inbound ACK frame on the wire per ACK (Ethernet 14 + IP 20 + TCP 32). */
#define ACK_FRAME_BYTES 66.0

int software_path_touches(const Appliance *a, DataPath path, gboolean include_meta, double sized_Bps, Touch out[DP_MAX_TOUCHES])
{
  gboolean ordinary = datapath_cpu_crypto(path) && cpu_crypto_ordinary_stores(a->crypto);
  double mss = cpu_mss_bytes(&a->stack);
  int n = datapath_touches(path, ordinary, software_user_miss(a, sized_Bps),
                           include_meta ? cpu_meta_bytes_per_byte(&a->stack, &a->coef) : 0.0,
                           include_meta ? ACK_FRAME_BYTES / (2.0 * mss) : 0.0, out);
  if (n < DP_MAX_TOUCHES) n += nic_tls_context_touch(a, path, sized_Bps, out + n); /* context-cache misses (nic.h) */
  return n;
}

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
static gboolean software_validate(const Appliance *a, GError **error)
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
} SoftwareRes;

/* sendfile.workers: with synchronous sendfile, the workers that block on drive reads (a
 * machine-wide Little's-law ceiling, nvme.h). */
static void software_add_resources(AppBuild *b, void *state)
{
  SoftwareRes *s = state;
  const Appliance *a = b->a;
  s->workers = -1;
  if (a->sendfile == SENDFILE_SYNC && datapath_move(a->path) == MOVE_SENDFILE)
    s->workers = app_build_add_res(b, "sendfile.workers", RK_NVME, a->sendfile_workers, 1.0, 1.0, "workers", -1);
}

/* A worker is held for the drive's latency and transfer of each io_bytes read. */
static void software_class_demand(AppBuild *b, void *state, DmClass *k)
{
  const SoftwareRes *s = state;
  if (b->loop || s->workers < 0) return;
  const Appliance *a = b->a;
  const NvmeDrive *drive = &a->drives[k->drive];
  k->demand[s->workers] += nvme_read_s(drive, a->wl.io_bytes) / a->wl.io_bytes;
}

const AppComponent software_component = { .name = "software",
                                          .state_size = sizeof(SoftwareRes),
                                          .validate = software_validate,
                                          .add_resources = software_add_resources,
                                          .class_demand = software_class_demand,
                                          .sizing_varies = software_user_miss_varies,
                                          .path_touches = software_path_touches };
