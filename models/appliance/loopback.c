/* loopback.c — costs of a host whose "NIC" is loopback (see loopback.h for the equations). */
#include "models/appliance/loopback.h"
#include "models/appliance/component.h"
#include "models/appliance/model_error.h"
#include <math.h>

APP_ENUM_DEFINE(loopback_cipher, LB_CIPHER_MAP);
APP_ENUM_CONF_OK(LbCipher);

void loopback_defaults(LoopbackCfg *lo)
{
  *lo = (LoopbackCfg){ .head_bytes = LOOPBACK_HEAD_BYTES };
  gboolean ok = sim_conf_bind_defaults(loopback_schema, lo, NULL);
  g_assert(ok); /* the schema's defaults are program text */
}

double loopback_miss_share(double file_bytes, double cache_bytes)
{
  if (file_bytes <= 0) return 0.0;
  if (cache_bytes <= 0) return 1.0;
  double r = cache_bytes / file_bytes;
  return 1.0 / (1.0 + r * r * r * r);
}

double loopback_cross_share(int server_threads, int client_threads, int cores, double avail_cores)
{
  int T = MAX(server_threads, 1) + MAX(client_threads, 1);
  int k = MIN(cores, T);
  if (k < 2 || avail_cores <= 1.0) return 0.0;
  double spread = (T - (double)T / k) / (T - 1);
  return spread * MIN(1.0, (avail_cores - 1.0) / (k - 1));
}

/* n_rec of the header: TLS records per request of request_bytes body bytes. */
static double loopback_records_per_request(double request_bytes, double head_bytes, double record_bytes)
{
  if (record_bytes <= 0) return 0.0;
  return ceil((MAX(request_bytes, 0.0) + MAX(head_bytes, 0.0)) / record_bytes) + 1.0;
}

double loopback_pool_cores(int threads, int pinned_cpus, double free_cores, int connections, int cores, double cap)
{
  double n = connections > 0 ? connections : 1;
  double t = (double)MAX(threads, 1);
  if (pinned_cpus > 0) t = MIN(t, (double)pinned_cpus);
  if (free_cores > 0) t = MIN(t, free_cores);
  return MIN(MIN(t, n), cores * cap);
}

void loopback_cost(const LoopbackCfg *lo, DataPath path, double request_bytes, int cores, double cap, LoopbackCost *out)
{
  /* the bytes a request streams through the cache: its range, not the whole file */
  double w = lo->file_bytes > 0 ? MIN(lo->file_bytes, request_bytes) : request_bytes;
  /* pinned threads: the placement's p_x; unpinned: estimated from the thread counts */
  double px = lo->cross_share >= 0 ? MIN(lo->cross_share, 1.0)
                                   : loopback_cross_share(lo->server_threads, lo->client_threads, cores, cores * cap);
  double m = loopback_miss_share(w, lo->cache_bytes * (1.0 + px) / 2.0);
  /* per stage (see the header): the server's pread into the TLS record buffer reads a hot,
   * prefetched stream (no miss term); the plain-sendfile client's recv copy is the only work
   * on those page-cache bytes and pays every miss */
  double P_hot = lo->copy_pagecache_cpb;
  double P_cold = lo->copy_pagecache_cpb + lo->miss_cpb * m;
  double k = lo->crypto_cpb[lo->cipher];
  double bpr = request_bytes > 0 ? request_bytes : 1.0;
  double R = lo->record_cycles * loopback_records_per_request(request_bytes, lo->head_bytes, lo->record_bytes) / bpr;
  double s, c;
  switch (path) {
    case DP_SENDFILE:
      s = lo->stack_cpb;
      c = P_cold;
      break;
    case DP_SENDFILE_SW_KTLS:
      s = k + lo->stack_cpb + R;
      c = 2 * lo->copy_cpb + k + R;
      break;
    case DP_READ_WRITE_KTLS:
    case DP_READ_WRITE:
    default:
      s = P_hot + k + lo->copy_cpb + lo->stack_cpb + R;
      c = 2 * lo->copy_cpb + k + R;
      break;
  }
  if (lo->client_hash) c += lo->hash_cpb;
  out->server_cpb = s + lo->xcore_server_cpb * px + lo->request_server_cycles / bpr;
  out->client_cpb = c + lo->xcore_client_cpb * px + lo->request_client_cycles / bpr;
  out->softirq_cpb = lo->softirq_cpb;
  out->miss_share = m;
  out->cross_share = px;
}

const char *loopback_cipher_name(LbCipher c)
{
  return APP_ENUM_NAME_OF(loopback_cipher, LB_CIPHER_COUNT, c);
}

/* Errors: MODEL_ERROR_INVALID "loopback.key: message". */
static gboolean loopback_validate(const LoopbackCfg *lo, DataPath path, GError **error)
{
  if (!lo->present) return model_fail(error, "nics", "a loopback NIC needs the host's costs in a `loopback:` section");
  if (datapath_nic_crypto(path))
    return model_fail(error, "software.data_path", "%s needs a NIC TLS engine; a loopback host has none", datapath_name(path));
  if (path == DP_READ_WRITE_PLAIN)
    return model_fail(error, "software.data_path",
                      "read_write_plain has no measured loopback costs (ocasim validate runs "
                      "plain HTTP over sendfile)");
  if (!(lo->utilisation > 0 && lo->utilisation <= 1))
    return model_fail(error, "loopback.utilisation", "must be in (0, 1], got %g", lo->utilisation);
  if (lo->server_threads < 1 || lo->client_threads < 1 || lo->connections < 1)
    return model_fail(error, "loopback", "threads and connections must be >= 1");
  if (lo->cross_share > 1)
    return model_fail(error, "loopback.cross_share", "must be <= 1 (< 0: unpinned), got %g", lo->cross_share);
  if (lo->server_free_cores < 0 || lo->client_free_cores < 0)
    return model_fail(error, "loopback", "server_free_cores and client_free_cores must be >= 0");
  if (lo->server_cpus < 0 || lo->client_cpus < 0)
    return model_fail(error, "loopback", "server_cpus and client_cpus must be >= 0");
  return TRUE;
}

/* ---- the component (component.h) --------------------------------------------------------- */

#define LBM  "measured on the host by ocasim validate"
#define F(m) offsetof(LoopbackCfg, m)

const SimConfField loopback_schema[] = {
  { .key = "copy_cpb",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(copy_cpb),
    .min = "0", /* a cost (validate fits it inside [0, inf): validate/fit.c) */
    .def = "0",
    .doc = "cycles/B of a user<->kernel copy of data just written (" LBM "; absent: costs.copy_cpb)" },
  { .key = "copy_pagecache_cpb",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(copy_pagecache_cpb),
    .min = "0", /* a cost (validate fits it inside [0, inf): validate/fit.c) */
    .required = true,
    .doc = "cycles/B of a copy out of a cache-resident page-cache page (" LBM ")" },
  { .key = "miss_cpb",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(miss_cpb),
    .min = "0", /* a cost (validate fits it inside [0, inf): validate/fit.c) */
    .def = "0",
    .doc = "extra cycles/B of a page-cache copy that misses the cache (" LBM ")" },
  /* sanity bound */
  { .key = "cache_size",
    .type = SIM_CONF_T_DOUBLE,
    .whole = true,
    .offset = F(cache_bytes),
    .unit = SIM_UNIT_SIZE,
    .def = "0 B",
    .min = "0",
    .max = "1 PiB",
    .doc = "cache the served file competes for (" LBM "; starts at the probe's per-core L2)" },
  { .key = "xcore_server_cpb",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(xcore_server_cpb),
    .min = "0", /* a cost (validate fits it inside [0, inf): validate/fit.c) */
    .def = "0",
    .doc = "extra sender cycles/B when the two ends of a connection run on different cores: wake-ups (" LBM ")" },
  { .key = "xcore_client_cpb",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(xcore_client_cpb),
    .min = "0", /* a cost (validate fits it inside [0, inf): validate/fit.c) */
    .def = "0",
    .doc = "extra receiver cycles/B, likewise: cache-to-cache transfers (" LBM ")" },
  { .key = "stack_cpb",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(stack_cpb),
    .min = "0", /* a cost (validate fits it inside [0, inf): validate/fit.c) */
    .required = true,
    .doc = "cycles/B of TCP + loopback transmit, sendfile page path (" LBM ")" },
  { .key = "softirq_cpb",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(softirq_cpb),
    .min = "0", /* a cost (validate fits it inside [0, inf): validate/fit.c) */
    .def = "0",
    .doc = "cycles/B of receive work in ksoftirqd, outside both sides (" LBM ")" },
  { .key = "record_cycles",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(record_cycles),
    .min = "0", /* a cost (validate fits it inside [0, inf): validate/fit.c) */
    .def = "0",
    .doc = "cycles per TLS record and side beyond the per-byte AEAD cost (" LBM ")" },
  /* sanity bound */
  { .key = "record_size",
    .type = SIM_CONF_T_DOUBLE,
    .whole = true,
    .offset = F(record_bytes),
    .unit = SIM_UNIT_SIZE,
    .def = "16 KiB",
    .min = "1",
    .max = "1 GiB",
    .doc = "TLS record size (16 KiB: the TLS maximum, what OpenSSL writes for bulk data)" },
  { .key = "aes_128_gcm_cpb",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(crypto_cpb[LB_AES_128_GCM]),
    .min = "0", /* a cost (validate fits it inside [0, inf): validate/fit.c) */
    .def = "0",
    .doc = "AES-128-GCM encrypt or decrypt, cycles/B (" LBM "; absent: costs.aes_128_gcm_cpb)" },
  { .key = "aes_256_gcm_cpb",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(crypto_cpb[LB_AES_256_GCM]),
    .min = "0", /* a cost (validate fits it inside [0, inf): validate/fit.c) */
    .def = "0",
    .doc = "AES-256-GCM, cycles/B (" LBM "; absent: costs.aes_256_gcm_cpb)" },
  { .key = "chacha20_poly1305_cpb",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(crypto_cpb[LB_CHACHA20_POLY1305]),
    .min = "0", /* a cost (validate fits it inside [0, inf): validate/fit.c) */
    .def = "0",
    .doc = "ChaCha20-Poly1305, cycles/B (" LBM "; absent: costs.chacha20_poly1305_cpb)" },
  { .key = "request_server_cycles",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(request_server_cycles),
    .min = "0", /* a cost (validate fits it inside [0, inf): validate/fit.c) */
    .def = "0",
    .doc = "server cycles per request: parse, open, fstat, head, close (" LBM "; absent: costs.request_cycles)" },
  { .key = "request_client_cycles",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(request_client_cycles),
    .min = "0", /* a cost (validate fits it inside [0, inf): validate/fit.c) */
    .def = "0",
    .doc = "client cycles per request (" LBM ")" },
  { .key = "sha256_cpb",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(hash_cpb),
    .min = "0", /* a cost (validate fits it inside [0, inf): validate/fit.c) */
    .def = "0",
    .doc = "SHA-256 cycles/B of the client's body check (" LBM ")" },
  { .key = "utilisation",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(utilisation),
    .def = "1",
    .min = "0",
    .max = "1",
    .min_exclusive = true,
    .doc = "fraction of a core a busy side achieves: wake-ups, scheduling (" LBM ")" },
  { .key = "cipher",
    .type = SIM_CONF_T_ENUM,
    .offset = F(cipher),
    .enum_names = loopback_cipher_names,
    .def = "aes_128_gcm",
    .doc = "TLS bulk cipher of the test" },
  /* sanity bound */
  { .key = "server_threads",
    .type = SIM_CONF_T_INT,
    .offset = F(server_threads),
    .def = "1",
    .min = "1",
    .max = "1000000",
    .doc = "server worker threads" },
  /* sanity bound */
  { .key = "client_threads",
    .type = SIM_CONF_T_INT,
    .offset = F(client_threads),
    .def = "1",
    .min = "1",
    .max = "1000000",
    .doc = "load-generator threads" },
  /* sanity bound */
  { .key = "connections",
    .type = SIM_CONF_T_INT,
    .offset = F(connections),
    .def = "8",
    .min = "1",
    .max = "100000000",
    .doc = "concurrent connections" },
  /* sanity bound */
  { .key = "file_size",
    .type = SIM_CONF_T_DOUBLE,
    .whole = true,
    .offset = F(file_bytes),
    .unit = SIM_UNIT_SIZE,
    .def = "0 B",
    .min = "0",
    .max = "1 PiB",
    .doc = "bytes of file content served (0: workload.request_size)" },
  { .key = "client_hash",
    .type = SIM_CONF_T_BOOL,
    .offset = F(client_hash),
    .def = "false",
    .doc = "the client hashes every body (SHA-256)" },
  /* sanity bound */
  { .key = "server_cpus",
    .type = SIM_CONF_T_INT,
    .offset = F(server_cpus),
    .def = "0",
    .min = "0",
    .max = "1000000",
    .doc = "CPUs the server threads are pinned to (0: unpinned)" },
  /* sanity bound */
  { .key = "client_cpus",
    .type = SIM_CONF_T_INT,
    .offset = F(client_cpus),
    .def = "0",
    .min = "0",
    .max = "1000000",
    .doc = "CPUs the client threads are pinned to (0: unpinned)" },
  { .key = "cross_share",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(cross_share),
    .def = "-1",
    .min = "-1",
    .max = "1",
    .doc = "share of connections whose two ends run on different cores, from the pinned placement (-1: unpinned, estimated)" },
  { .key = "server_free_cores",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(server_free_cores),
    .def = "0",
    .min = "0",
    .doc = "cores other tenants left on the server's pinned CPUs in the test, measured (0: all of them)" },
  { .key = "client_free_cores",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(client_free_cores),
    .def = "0",
    .min = "0",
    .doc = "cores other tenants left on the client's pinned CPUs in the test, measured (0: all of them)" },
  SIM_CONF_END
};

/* The `loopback:` section, when given (any negative cross_share reads as unpinned). */
static gboolean loopback_finish(AppConf *c, const SimConfNode *root G_GNUC_UNUSED, GError **error)
{
  LoopbackCfg *lo = &c->a.lo;
  loopback_defaults(lo);
  if (!c->loopback_node || sim_conf_node_is_null(c->loopback_node)) return TRUE;
  if (!sim_conf_bind(c->loopback_node, loopback_schema, lo, error)) return FALSE; /* no strings: nothing to unbind */
  lo->present = true;
  /* the host's costs that the shared cost profile holds (`costs:`, cpu.h; ocasim validate
   * writes them there) when this section does not give them; copy and AES-128-GCM are needed */
  const CostProfile *p = &c->a.cpu.costs;
  static const char *const crypto_key[LB_CIPHER_COUNT] = { "aes_128_gcm_cpb", "aes_256_gcm_cpb", "chacha20_poly1305_cpb" };
  static const CostCipher cost_cipher[LB_CIPHER_COUNT] = { COST_AES_128_GCM, COST_AES_256_GCM, COST_CHACHA20_POLY1305 };
  for (int i = 0; i < LB_CIPHER_COUNT; i++)
    if (!sim_conf_node_get(c->loopback_node, crypto_key[i])) lo->crypto_cpb[i] = p->crypto_cpb[cost_cipher[i]];
  if (!sim_conf_node_get(c->loopback_node, "copy_cpb")) lo->copy_cpb = p->copy_cpb;
  if (!sim_conf_node_get(c->loopback_node, "request_server_cycles")) lo->request_server_cycles = p->request_cycles;
  const char *missing = !sim_conf_node_get(c->loopback_node, "copy_cpb") && !(p->copy_cpb > 0) ? "copy_cpb"
                        : !sim_conf_node_get(c->loopback_node, "aes_128_gcm_cpb") && !(p->crypto_cpb[COST_AES_128_GCM] > 0)
                            ? "aes_128_gcm_cpb"
                            : NULL;
  if (missing) {
    sim_conf_set_error(error, c->loopback_node, SIM_CONF_ERROR_MISSING,
                       "loopback.%s is required: give it here or in the cost profile (costs.%s)", missing, missing);
    return FALSE;
  }
  if (lo->cross_share < 0) lo->cross_share = -1.0;
  return TRUE;
}

/* A loopback host: exactly one NIC group, of kind loopback, on one node, one data path, with
 * the host's costs; a `loopback:` section only with such a NIC. */
static gboolean loopback_component_validate(const Appliance *a, GError **error)
{
  int n_loop = 0;
  for (int i = 0; i < a->n_nics; i++) n_loop += a->nics[i].kind == NIC_LOOPBACK;
  if (n_loop == 0) {
    if (a->lo.present) return model_fail(error, "loopback", "a `loopback:` section needs a NIC of kind loopback");
    return TRUE;
  }
  if (n_loop != a->n_nics || a->n_nics != 1)
    return model_fail(error, "nics", "a loopback host has exactly one NIC group, of kind loopback");
  if (topo_nodes(&a->topo) != 1) return model_fail(error, "topology", "a loopback host is modelled on one NUMA node");
  if (a->wl.alt_fraction > 0) return model_fail(error, "workload.alt_fraction", "a loopback host serves one data path");
  return loopback_validate(&a->lo, a->path, error);
}

typedef struct {
  int server, client; /* loopback.server / loopback.client, -1: not a loopback host */
} LoopbackRes;

/* loopback.server, loopback.client: each side's thread pool, cycles/s of the cores it can keep
 * busy (loopback_pool_cores), usable up to `utilisation`. */
static void loopback_add_resources(AppBuild *b, void *state)
{
  LoopbackRes *s = state;
  const Appliance *a = b->a;
  const LoopbackCfg *lo = &a->lo;
  s->server = s->client = -1;
  if (!b->loop) return;
  int cores = appliance_cores_per_node(a);
  double hz = a->cpu.clock_hz;
  double sc =
      loopback_pool_cores(lo->server_threads, lo->server_cpus, lo->server_free_cores, lo->connections, cores, a->cpu.cap) * hz;
  double cc =
      loopback_pool_cores(lo->client_threads, lo->client_cpus, lo->client_free_cores, lo->connections, cores, a->cpu.cap) * hz;
  s->server = app_build_add_res(b, "loopback.server", RK_THREADS, sc, lo->utilisation, 100.0 / sc, "%", 0);
  s->client = app_build_add_res(b, "loopback.client", RK_THREADS, cc, lo->utilisation, 100.0 / cc, "%", 0);
}

/* The host's measured cycles (stalls included) on its one node and its two pools; DRAM sees
 * only the page-cache misses. */
static void loopback_class_demand(AppBuild *b, void *state, DmClass *k)
{
  const LoopbackRes *s = state;
  if (!b->loop) return;
  const Appliance *a = b->a;
  LoopbackCost lc;
  loopback_cost(&a->lo, k->path, a->wl.request_bytes, appliance_cores_per_node(a), a->cpu.cap, &lc);
  k->demand[b->cpu_res[0]] += lc.server_cpb + lc.client_cpb + lc.softirq_cpb;
  k->demand[s->server] += lc.server_cpb;
  k->demand[s->client] += lc.client_cpb;
  k->demand[b->dram_res[0]] += lc.miss_share;
}

const AppComponent loopback_component = { .name = "loopback",
                                          .state_size = sizeof(LoopbackRes),
                                          .finish = loopback_finish,
                                          .validate = loopback_component_validate,
                                          .add_resources = loopback_add_resources,
                                          .class_demand = loopback_class_demand };
