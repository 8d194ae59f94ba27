/* loopback.c — costs of a host whose "NIC" is loopback (see loopback.h for the equations). */
#include "models/loopback.h"
#include "models/model_error.h"
#include <math.h>

APP_ENUM_DEFINE(loopback_cipher, LB_CIPHER_MAP);
APP_ENUM_CONF_OK(LbCipher);

void loopback_defaults(LoopbackCfg *lo)
{
  *lo = (LoopbackCfg){ .record_bytes = 16384,
                       .head_bytes = LOOPBACK_HEAD_BYTES,
                       .utilisation = 1.0,
                       .cipher = LB_AES_128_GCM,
                       .server_threads = 1,
                       .client_threads = 1,
                       .connections = 8,
                       .cross_share = -1.0 };
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

double loopback_records_per_request(double request_bytes, double head_bytes, double record_bytes)
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

gboolean loopback_validate(const LoopbackCfg *lo, DataPath path, GError **error)
{
  if (!lo->present) return model_fail(error, "nics", "a loopback NIC needs the host's costs in a `loopback:` section");
  if (path == DP_SENDFILE_NIC_KTLS)
    return model_fail(error, "software.data_path", "sendfile_nic_ktls needs a NIC TLS engine; a loopback host has none");
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
