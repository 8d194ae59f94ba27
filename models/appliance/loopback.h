/* loopback.h — a host whose "NIC" is loopback: the server and its clients on the same machine.
 *
 * What it models: `ocasim validate`'s host, clients over 127.0.0.1 on the server's cores; the
 * `loopback:` section's costs, cycles at cpu.clock per body byte (loopback.c has the terms):
 *     m(W) = 1 / (1 + (C_e / W)^4),  C_e = C (1 + p_x) / 2       (page-cache lines a copy misses)
 *     server, e.g. user-space TLS: P_hot + crypto + copy + stack + R + X_s + req_s
 *     client, e.g. TLS:            2 copy + crypto + R + X_c + req_c;   softirq q = softirq_cpb
 * with R = record_cycles x n_rec / b and cross-core X = xcore_cpb * p_x. Resources: the node's
 * CPU (s + c + q), server and client thread pools, DRAM m(W) bytes per byte; no port or drive.
 * Sources: every figure measured on that host by `ocasim validate`, fitted by validate/fit.c.
 * Leaves out: latency-bound operation with one or two connections, frequency changes, SMT.
 * Evidence and history: docs/model/loopback.md.
 */
#ifndef MODELS_APPLIANCE_LOOPBACK_H
#define MODELS_APPLIANCE_LOOPBACK_H
#include <glib.h>
#include <stdbool.h>

#include "models/appliance/datapath.h"
#include "sim/conf.h"

/* Bytes of the HTTP response head of the validation server (serve/http.c
 * val_http_format_head: status line, Server, Content-Type, Accept-Ranges, Content-Length,
 * Connection: 150 B for a 200 with a 7-digit length, about 190 B for a 206). */
#define LOOPBACK_HEAD_BYTES 160.0

/* TLS bulk cipher of the loopback test (loopback.cipher). */
#define LB_CIPHER_MAP(X) \
  X(LB_AES_128_GCM, "aes_128_gcm") X(LB_AES_256_GCM, "aes_256_gcm") X(LB_CHACHA20_POLY1305, "chacha20_poly1305")
typedef enum { LB_CIPHER_MAP(APP_ENUM_ID) LB_CIPHER_COUNT } LbCipher;
APP_ENUM_DECLARE(loopback_cipher);

typedef struct {
  bool present; /* the `loopback:` section was given */
  /* host costs, cycles at cpu.clock (measured by ocasim validate on the host) */
  double copy_cpb;                                     /* user<->kernel copy of data just written (in cache) */
  double copy_pagecache_cpb;                           /* copy out of a cache-resident page-cache page */
  double miss_cpb;                                     /* extra per byte of a page-cache copy that misses the cache */
  double cache_bytes;                                  /* C: cache the file's content competes for */
  double xcore_server_cpb;                             /* extra per byte on the sender when the two ends run on different cores */
  double xcore_client_cpb;                             /* extra per byte on the receiver, likewise */
  double stack_cpb;                                    /* TCP + loopback transmit per byte (sendfile page path) */
  double softirq_cpb;                                  /* receive work in ksoftirqd (outside both sides) */
  double record_cycles;                                /* TLS record layer per record and side */
  double record_bytes;                                 /* TLS record size */
  double head_bytes;                                   /* H: HTTP response head sent with each body (LOOPBACK_HEAD_BYTES) */
  double crypto_cpb[LB_CIPHER_COUNT];                  /* AEAD encrypt or decrypt */
  double request_server_cycles, request_client_cycles; /* per request */
  double hash_cpb;                                     /* SHA-256 of each body by the client (client_hash) */
  double utilisation;                                  /* fraction of a core a busy side achieves, 0..1 */
  /* the test */
  LbCipher cipher;
  int server_threads, client_threads, connections;
  double file_bytes; /* size of the served file (0: workload.request_size); W = min(file, request) */
  bool client_hash;  /* the client hashes every body */
  /* placement of the threads (validate pins them; 0 / < 0: unpinned, the model estimates) */
  int server_cpus, client_cpus;                /* CPUs the server's / client's threads are pinned to (0: any) */
  double cross_share;                          /* p_x of the placement, 0..1 (< 0: unpinned, estimated) */
  double server_free_cores, client_free_cores; /* cores other tenants left on each side's pinned
                                                * CPUs, measured in the test (0: all of them) */
} LoopbackCfg;

typedef struct {
  double server_cpb, client_cpb, softirq_cpb; /* cycles per body byte */
  double miss_share;                          /* m(W) at the effective cache C_e */
  double cross_share;                         /* p_x */
} LoopbackCost;

/* Fills the test defaults of loopback_schema (1 server and 1 client thread, 8 connections,
 * AES-128-GCM, 16 KiB records, utilisation 1, threads unpinned), zero costs and the head. */
void loopback_defaults(LoopbackCfg *lo);
/* Keys of the scenario's `loopback:` section (offsets into LoopbackCfg). */
extern const SimConfField loopback_schema[];
/* Cycles per body byte of each side for data path `path` (plain sendfile, read_write =
 * user-space TLS, sendfile_sw_ktls, read_write_ktls), request_bytes body bytes per request,
 * on `cores` cores of which the share `cap` (0..1] is available. sendfile_nic_ktls has no
 * loopback meaning (validation refuses it). */
void loopback_cost(const LoopbackCfg *lo, DataPath path, double request_bytes, int cores, double cap, LoopbackCost *out);
/* m(W) and p_x of the header. */
double loopback_miss_share(double file_bytes, double cache_bytes);
double loopback_cross_share(int server_threads, int client_threads, int cores, double avail_cores);
/* Cores a side's threads can keep busy: min(threads, pinned_cpus (0: no limit), free_cores (0: no
 * limit; the cores other tenants left on the pinned CPUs), connections, cores x cap). */
double loopback_pool_cores(int threads, int pinned_cpus, double free_cores, int connections, int cores, double cap);
/* The scenario's name of cipher @c ("aes_128_gcm"); "?" out of range. */
const char *loopback_cipher_name(LbCipher c);

/* The scenario's root rows of this component (components.h: the loader's root schema is the list's
 * rows; expanded where AppConf is defined, component.h). */
#define loopback_conf_sections                  \
  { .key = "loopback",                          \
    .type = SIM_CONF_T_NODE,                    \
    .offset = offsetof(AppConf, loopback_node), \
    .doc = "a loopback host's costs and test (with nics[].kind loopback)" },

#endif /* MODELS_APPLIANCE_LOOPBACK_H */
