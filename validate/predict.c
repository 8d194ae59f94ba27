/* validate/predict.c — analytic host model (see predict.h for the equations).
 *
 * Stages per body byte: disk/page-cache read (a copy in user space, none with
 * sendfile), encryption (AEAD cycles/B from the fitted profile, first anchored on
 * the OpenSSL EVP microbenchmark), the socket write (a copy, or page references
 * with sendfile), the loopback "NIC" (TCP send path on the server's core, receive
 * processing partly in softirq), and the client's receive copy, decryption and
 * copy-out, which land on the same cores.  A request adds fixed cycles on each
 * side.  CPU-bound throughput = cores x clock x utilisation / cycles per byte,
 * with each side additionally limited by its thread count.
 */
#include "validate/predict.h"

static const char *const pname[VAL_P_COUNT] = {
    "copy_cpb",   "copy_pagecache_cpb", "stack_cpb",          "tls_record_cycles",  "crypto_aes128gcm_cpb", "crypto_aes256gcm_cpb",
    "crypto_chacha20poly1305_cpb",      "request_server_cycles", "request_client_cycles", "softirq_cpb",
    "utilisation"};
static const char *const punit[VAL_P_COUNT] = {"cycles/B", "cycles/B", "cycles/B", "cycles/record", "cycles/B", "cycles/B",
                                               "cycles/B", "cycles/request", "cycles/request", "cycles/B", ""};

const char *val_param_name(ValParam p) { return (p >= 0 && p < VAL_P_COUNT) ? pname[p] : "?"; }
const char *val_param_unit(ValParam p) { return (p >= 0 && p < VAL_P_COUNT) ? punit[p] : "?"; }

ValParam val_param_for_cipher(ValCipher c) {
  switch (c) {
  case VAL_CIPHER_AES256GCM: return VAL_P_CRYPTO_AES256;
  case VAL_CIPHER_CHACHA20: return VAL_P_CRYPTO_CHACHA;
  default: return VAL_P_CRYPTO_AES128;
  }
}

void val_predict_host(const ValHostProfile *prof, const ValHostConfig *cfg, ValHostPrediction *out) {
  const double *p = prof->p;
  double rec = p[VAL_P_RECORD] / (double)(prof->record_bytes ? prof->record_bytes : 16384);
  double cr = p[val_param_for_cipher(cfg->cipher)];
  double s, c;
  if (cfg->mode == VAL_MODE_SENDFILE) {
    s = p[VAL_P_STACK];
    c = p[VAL_P_COPY_PC];
  } else if (cfg->mode == VAL_MODE_SENDFILE_KTLS && cfg->ktls) {
    s = cr + p[VAL_P_STACK] + rec;
    c = 2 * p[VAL_P_COPY] + cr + rec;
  } else {
    s = p[VAL_P_COPY_PC] + cr + p[VAL_P_COPY] + p[VAL_P_STACK] + rec;
    c = 2 * p[VAL_P_COPY] + cr + rec;
  }
  double bpr = cfg->bytes_per_req > 0 ? cfg->bytes_per_req : 1;
  s += p[VAL_P_REQ_SERVER] / bpr;
  c += p[VAL_P_REQ_CLIENT] / bpr;
  if (cfg->verify_hash) c += prof->hash_cpb;
  double q = p[VAL_P_SOFTIRQ];
  double avail = cfg->avail_cores > 0 ? cfg->avail_cores : prof->cores;
  double n = cfg->connections > 0 ? cfg->connections : 1;
  double ts = MIN(MIN((double)MAX(cfg->server_threads, 1), n), avail);
  double tc = MIN(MIN((double)MAX(cfg->client_threads, 1), n), avail);
  double cap_s = ts / s, cap_c = tc / c, cap_t = avail / (s + c + q); /* cores / (cycles/B) */
  double cap = MIN(cap_s, MIN(cap_c, cap_t));
  out->server_cpb = s;
  out->client_cpb = c;
  out->softirq_cpb = q;
  out->total_cpb = s + c + q;
  out->bottleneck = cap == cap_t ? "cpu" : cap == cap_s ? "server" : "client";
  out->gbps = p[VAL_P_UTIL] * prof->clock_hz * cap * 8 / 1e9;
}
