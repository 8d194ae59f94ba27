/* validate/predict.c — analytic host model (see predict.h and models/appliance/loopback.h for the
 * equations).
 *
 * Stages per body byte: page-cache read (a copy in user space, none with sendfile; it
 * misses the cache when the file does not fit), encryption (AEAD cycles/B from the fitted
 * profile, anchored on the OpenSSL EVP microbenchmark), the socket write (a copy, or page
 * references with sendfile), the loopback "NIC" (TCP send path on the server's core,
 * receive processing partly in softirq), and the client's receive copy, decryption and
 * copy-out, which land on the same cores; both sides pay cache-to-cache transfers and
 * wake-ups when they run on different cores.  A request adds fixed cycles on each side.
 * The per-side costs are models/appliance/loopback.c's; the throughput is the bottleneck law over
 * the CPU and the two thread pools, as demand.c builds them.
 */
#include "validate/predict.h"

#include <math.h>

#include "models/appliance/demand.h"

/* TLS record payload when the profile gives none: the largest, 2^14 B (RFC 8446 5.1). */
#define TLS_RECORD_BYTES 16384

static const char *const pname[VAL_P_COUNT] = { "copy_cpb",
                                                "copy_pagecache_cpb",
                                                "miss_cpb",
                                                "cache_size",
                                                "xcore_server_cpb",
                                                "xcore_client_cpb",
                                                "stack_cpb",
                                                "record_cycles",
                                                "aes_128_gcm_cpb",
                                                "aes_256_gcm_cpb",
                                                "chacha20_poly1305_cpb",
                                                "request_server_cycles",
                                                "request_client_cycles",
                                                "softirq_cpb",
                                                "utilisation" };
static const char *const punit[VAL_P_COUNT] = { "cycles/B", "cycles/B",       "cycles/B",       "B",        "cycles/B",
                                                "cycles/B", "cycles/B",       "cycles/record",  "cycles/B", "cycles/B",
                                                "cycles/B", "cycles/request", "cycles/request", "cycles/B", "" };

const char *val_param_name(ValParam p)
{
  return (p >= 0 && p < VAL_P_COUNT) ? pname[p] : "?";
}
const char *val_param_unit(ValParam p)
{
  return (p >= 0 && p < VAL_P_COUNT) ? punit[p] : "?";
}

gboolean val_param_range(ValParam p, double *lo, double *hi)
{
  if (p < 0 || p >= VAL_P_COUNT) return FALSE;
  /* loopback_schema's `utilisation` row: min 0 (exclusive), max 1 — a busy side cannot get
   * more than the whole of its cores; every other parameter is a cost (cycles, or the cache's
   * bytes): min 0 (inclusive), no max, as their rows say (tests/test_validate_fit.c checks the
   * two agree) */
  *lo = 0.0;
  *hi = p == VAL_P_UTIL ? 1.0 : INFINITY;
  return TRUE;
}

ValParam val_param_for_cipher(ValCipher c)
{
  switch (c) {
    case VAL_CIPHER_AES256GCM: return VAL_P_CRYPTO_AES256;
    case VAL_CIPHER_CHACHA20: return VAL_P_CRYPTO_CHACHA;
    default: return VAL_P_CRYPTO_AES128;
  }
}

void val_host_loopback(const ValHostProfile *prof, const ValHostConfig *cfg, LoopbackCfg *lo, DataPath *path, double *cap)
{
  const double *p = prof->p;
  loopback_defaults(lo);
  lo->present = true;
  lo->copy_cpb = p[VAL_P_COPY];
  lo->copy_pagecache_cpb = p[VAL_P_COPY_PC];
  lo->miss_cpb = p[VAL_P_MISS];
  lo->cache_bytes = p[VAL_P_CACHE];
  lo->xcore_server_cpb = p[VAL_P_XCORE_S];
  lo->xcore_client_cpb = p[VAL_P_XCORE_C];
  lo->stack_cpb = p[VAL_P_STACK];
  lo->softirq_cpb = p[VAL_P_SOFTIRQ];
  lo->record_cycles = p[VAL_P_RECORD];
  lo->record_bytes = (double)(prof->record_bytes ? prof->record_bytes : TLS_RECORD_BYTES);
  lo->crypto_cpb[LB_AES_128_GCM] = p[VAL_P_CRYPTO_AES128];
  lo->crypto_cpb[LB_AES_256_GCM] = p[VAL_P_CRYPTO_AES256];
  lo->crypto_cpb[LB_CHACHA20_POLY1305] = p[VAL_P_CRYPTO_CHACHA];
  lo->request_server_cycles = p[VAL_P_REQ_SERVER];
  lo->request_client_cycles = p[VAL_P_REQ_CLIENT];
  lo->hash_cpb = prof->hash_cpb;
  lo->utilisation = p[VAL_P_UTIL];
  lo->cipher = cfg->cipher == VAL_CIPHER_AES256GCM  ? LB_AES_256_GCM
               : cfg->cipher == VAL_CIPHER_CHACHA20 ? LB_CHACHA20_POLY1305
                                                    : LB_AES_128_GCM;
  lo->server_threads = MAX(cfg->server_threads, 1);
  lo->client_threads = MAX(cfg->client_threads, 1);
  lo->connections = cfg->connections > 0 ? cfg->connections : 1;
  lo->file_bytes = cfg->file_bytes > 0 ? cfg->file_bytes : cfg->bytes_per_req;
  lo->client_hash = cfg->verify_hash;
  if (cfg->pinned) {
    lo->server_cpus = cfg->server_cpus;
    lo->client_cpus = cfg->client_cpus;
    lo->cross_share = CLAMP(cfg->cross_share, 0.0, 1.0);
    lo->server_free_cores = MAX(0.0, cfg->server_free_cores);
    lo->client_free_cores = MAX(0.0, cfg->client_free_cores);
  }
  if (cfg->mode == VAL_MODE_SENDFILE)
    *path = DP_SENDFILE;
  else if (cfg->mode == VAL_MODE_SENDFILE_KTLS && cfg->ktls)
    *path = DP_SENDFILE_SW_KTLS;
  else
    *path = DP_READ_WRITE;
  double avail = cfg->avail_cores > 0 ? cfg->avail_cores : prof->cores;
  *cap = MIN(1.0, avail / MAX(prof->cores, 1));
}

void val_predict_host(const ValHostProfile *prof, const ValHostConfig *cfg, ValHostPrediction *out)
{
  LoopbackCfg lo;
  DataPath path;
  double capf;
  val_host_loopback(prof, cfg, &lo, &path, &capf);
  double bpr = cfg->bytes_per_req > 0 ? cfg->bytes_per_req : 1;
  LoopbackCost lc;
  loopback_cost(&lo, path, bpr, prof->cores, capf, &lc);
  double s = lc.server_cpb, c = lc.client_cpb, q = lc.softirq_cpb;
  double avail = prof->cores * capf;
  double ts = loopback_pool_cores(lo.server_threads, lo.server_cpus, lo.server_free_cores, lo.connections, prof->cores, capf);
  double tc = loopback_pool_cores(lo.client_threads, lo.client_cpus, lo.client_free_cores, lo.connections, prof->cores, capf);
  double cap_s = ts / s, cap_c = tc / c, cap_t = avail / (s + c + q); /* cores / (cycles/B) */
  double cap = MIN(cap_s, MIN(cap_c, cap_t));
  out->server_cpb = s;
  out->client_cpb = c;
  out->softirq_cpb = q;
  out->total_cpb = s + c + q;
  /* the appliance model's binding rule over its resources in its order (cpu.node0, then the
   * loopback.server and loopback.client pools): utilisation over limit at X = cap */
  static const char *const side[3] = { "cpu", "server", "client" };
  double h[3] = { cap_t > 0 ? cap / cap_t : 1.0, cap_s > 0 ? cap / cap_s : 1.0, cap_c > 0 ? cap / cap_c : 1.0 };
  out->bottleneck = side[MAX(0, demand_binding(3, h))];
  out->gbps = lo.utilisation * prof->clock_hz * cap * 8 / 1e9;
}
