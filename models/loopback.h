/* loopback.h — a host whose "NIC" is loopback: the server and its clients on the same machine.
 *
 * What it models: `ocasim validate` measures the real serving path with the load generator
 * on the same host, over 127.0.0.1. There the "port" is a copy into the receiving socket, and
 * the clients' receive, decryption and copy cycles land on the same cores as the server's.
 * A NIC group of `kind: loopback` makes the appliance such a host; the `loopback:` section holds
 * the host's own costs (every figure measured on that host by `ocasim validate` and fitted by
 * validate/fit.c: there is no other source for them) and the test it runs (threads,
 * connections, cipher, file size). Cycles are at cpu.clock, per body byte served.
 *   file miss    m(W)  = 1 / (1 + (C_e / W)^4): share of page-cache lines a copy misses when the
 *                         W bytes a request reads (the range for a range request, else the file;
 *                         the distinct bytes of a run beyond W are served from the last-level
 *                         cache, whose size is not modelled) are re-read cyclically through a cache of C_e
 *                         bytes (LRU on a cyclic scan: all hits below C_e, all misses above; the
 *                         power 4 smooths the step over about a factor of two in W);
 *                         C_e = C (1 + p_x) / 2: two ends on one core share its cache C (the
 *                         socket data of the other side takes half), apart each has its own;
 *   page copy    P_hot  = copy_pagecache_cpb: a copy out of a page-cache page whose miss cost is
 *                         not exposed (the user-space TLS server's pread into its record buffer:
 *                         a sequential stream of a file read over and over, which the prefetcher
 *                         runs ahead of and whose next stage, the AEAD, is compute bound);
 *                P_cold = copy_pagecache_cpb + miss_cpb * m(W): a copy that is the only work on
 *                         those bytes, so it runs at the memory system's pace and every miss is
 *                         exposed (the plain-sendfile client's recv copy out of skbs that point
 *                         at the page-cache pages). Which stage pays the miss is the physics
 *                         above, not a per-configuration factor; the runs back it: plain
 *                         sendfile at 4 MiB slows down on the client side, user-space TLS at
 *                         4 MiB runs at its 1 MiB rate;
 *   cross-core   X_s   = xcore_server_cpb * p_x, X_c = xcore_client_cpb * p_x: wake-ups of the
 *                         peer (IPIs, VM exits in a guest) on the sender, cache-to-cache transfers
 *                         of the socket data on the receiver, when the two ends of a connection
 *                         run on different cores. p_x = share of connections whose server and
 *                         client threads run on different cores: with pinned threads the test's
 *                         placement gives it (cross_share: 1 when server and client threads have
 *                         disjoint CPU sets, 0 all on one CPU); unpinned, T = S + C busy threads spread
 *                         evenly over k = min(cores, T) cores gives (T - T/k) / (T - 1), scaled
 *                         by min(1, (A - 1) / (k - 1)) with A = cores x workload.cpu_cap available
 *                         (A <= 1: both ends time-share one core's worth, no transfers);
 *   record       R     = record_cycles x n_rec / b (TLS only), n_rec = ceil((b + H) / record_size) + 1
 *                         records per request of b body bytes: the response (head of H bytes and
 *                         body written together, cut into full records and a last partial one)
 *                         and the request's record; each side seals or opens every record once.
 *                         record_cycles is the record layer's fixed work per record beyond the
 *                         AEAD per-byte cost (SSL_read/SSL_write call, the read(2)/write(2) and
 *                         the skb of each record, the peer's wake-up): small responses carry
 *                         proportionally more of it, which is what identifies it;
 *   request            request_{server,client}_cycles / workload.request_size;
 *   server  plain sendfile     stack + X_s + req_s
 *           user-space TLS     P_hot + crypto + copy + stack + R + X_s + req_s  (read_write)
 *           kTLS sendfile      crypto + stack + R + X_s + req_s                 (sendfile_sw_ktls: the
 *                              kernel AEAD reads the page itself, like the user-space AEAD its buffer)
 *           kTLS read/write    P_hot + copy + crypto + stack + R + X_s + req_s  (read_write_ktls)
 *   client  plain              P_cold + X_c + req_c (recv copies the page-cache pages the skbs hold)
 *           TLS                2 copy + crypto + R + X_c + req_c (+ sha256 when client_hash)
 *   softirq q = softirq_cpb (ksoftirqd, outside both sides).
 * Resources (demand.c): the node's CPU carries s + c + q at capacity cores x clock, limit
 * workload.cpu_cap x utilisation; the server threads carry s and the client threads c, each a pool of
 * min(threads, pinned CPUs, connections, cores x workload.cpu_cap) cores at limit utilisation (pinned CPUs:
 * the CPUs that side's threads are pinned to, when they are; and, when given, at most the
 * server_free_cores / client_free_cores other tenants left on those CPUs in the test: a
 * tenant on one side's CPU slows that side, not the other, which workload.cpu_cap alone cannot say). DRAM reads m(W) bytes
 * per byte (the page-cache misses; at these working sets everything else stays in cache). The
 * loopback "port" has no line rate and no PCIe link; the files are in the page cache, so the
 * drives see no load (a platform still lists one: the host's disk the files came from).
 * Leaves out: latency-bound operation with one or two connections, frequency changes, SMT.
 */
#ifndef MODELS_LOOPBACK_H
#define MODELS_LOOPBACK_H
#include <glib.h>
#include <stdbool.h>

#include "models/datapath.h"
#include "sim/conf.h"

/* Bytes of the HTTP response head of the validation server (validate/http.c
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

#endif /* MODELS_LOOPBACK_H */
