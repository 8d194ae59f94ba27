/* validate/predict.h — analytic host model of the TLS serving path on one machine
 * with a loopback "NIC": cycles per byte of each stage, per-request cycles, and a
 * CPU-bound throughput.  The function boundary (profile + configuration ->
 * prediction) is checked against the appliance model's bound on the same profile.
 */
#ifndef OCASIM_VALIDATE_PREDICT_H
#define OCASIM_VALIDATE_PREDICT_H

#include <glib.h>

#include "models/appliance/loopback.h"
#include "validate/loadlat.h"
#include "serve/server.h"
#include "serve/tls.h"

G_BEGIN_DECLS

/* Coefficients of a host profile (what the fit estimates; models/appliance/loopback.h gives their meaning). */
typedef enum {
  VAL_P_COPY = 0,      /* one user<->kernel copy of data just written (in cache), cycles/B */
  VAL_P_COPY_PC,       /* one copy out of a cache-resident page-cache page (pread, or recv of sendfile pages), cycles/B */
  VAL_P_MISS,          /* extra per byte of a page-cache copy whose file does not fit the cache, cycles/B */
  VAL_P_CACHE,         /* cache the served file competes for, bytes (starts at the probe's per-core L2) */
  VAL_P_XCORE_S,       /* extra sender cycles/B when the two ends of a connection run on different cores (wake-ups) */
  VAL_P_XCORE_C,       /* extra receiver cycles/B, likewise (cache-to-cache transfers) */
  VAL_P_STACK,         /* TCP + loopback per byte on the sending side (sendfile page path), cycles/B */
  VAL_P_RECORD,        /* TLS record layer per record and side beyond the AEAD per-byte cost, cycles/record */
  VAL_P_CRYPTO_AES128, /* AES-128-GCM encrypt or decrypt, cycles/B */
  VAL_P_CRYPTO_AES256, /* AES-256-GCM, cycles/B */
  VAL_P_CRYPTO_CHACHA, /* ChaCha20-Poly1305, cycles/B */
  VAL_P_REQ_SERVER,    /* server per request (parse, open, fstat, head, close), cycles/request */
  VAL_P_REQ_CLIENT,    /* client per request (request, head parse), cycles/request */
  VAL_P_SOFTIRQ,       /* loopback receive work in ksoftirqd threads (outside both sides), cycles/B */
  VAL_P_UTIL,          /* fraction of a core a busy side achieves (scheduling, wake-ups), 0..1 */
  VAL_P_COUNT
} ValParam;

const char *val_param_name(ValParam p); /* "copy_cpb", ... (profile key) */
const char *val_param_unit(ValParam p); /* "cycles/B", "cycles/record", "cycles/request", "B", "" */

/* The physical range of parameter p that the appliance loader enforces (models/appliance/loopback.c,
 * loopback_schema): utilisation (0, 1], a fraction of a core (*lo open, *hi closed); every
 * cost [0, inf) (*hi = INFINITY; a cost of cycles or bytes cannot be negative, and a profile
 * with one would not load). TRUE for every parameter, FALSE out of range. */
gboolean val_param_range(ValParam p, double *lo, double *hi);

typedef struct {
  double p[VAL_P_COUNT];
  double se[VAL_P_COUNT]; /* standard errors from the fit (0 when fixed) */
  gboolean fitted[VAL_P_COUNT];
  gboolean at_bound[VAL_P_COUNT]; /* fitted onto the edge of its range (val_param_range): the runs
                                   * asked for a value outside it */
  double clock_hz;                /* nominal core clock */
  int cores;                      /* online CPUs */
  double hash_cpb;                /* SHA-256 of the client's body check (microbenchmark, not fitted) */
  size_t record_bytes;            /* TLS record size, bytes (16384) */
  double dram_shown_GBps;         /* largest DRAM read rate a measured run demonstrated: its page-cache
                             * miss share m(W) x its body rate, GB/s (0: no runs); host-profile.yaml
                             * never gives the memory less than this */
  /* the DRAM loaded-latency line measured on the host (validate/loadlat.h), 0 points: not measured */
  double dram_idle_ns;           /* intercept: memory.latency */
  double dram_slope_ns_per_GBps; /* slope: memory.load_latency = slope x the memory's capacity */
  int dram_lat_points;           /* points the line went through */
  /* the same points as a curve, lowest bandwidth first (memory.loaded_latency, models/appliance/memory.h) */
  double dram_curve_GBps[VAL_LAT_MAX_POINTS], dram_curve_ns[VAL_LAT_MAX_POINTS];
} ValHostProfile;

/* A configuration to predict. */
typedef struct {
  ValServerMode mode;
  gboolean ktls; /* sendfile_ktls with kernel TLS engaged (else its user-space fallback) */
  ValCipher cipher;
  ValTlsVersion version; /* modelled as cost-neutral: the record layer is the same size */
  int server_threads, client_threads, connections;
  double bytes_per_req; /* body bytes per request (file or range size) */
  double file_bytes;    /* size of the served file (0: bytes_per_req) */
  double avail_cores;   /* cores available to this workload (cores minus other tenants' load) */
  gboolean verify_hash; /* the client hashes every body (SHA-256) */
  /* placement of pinned threads (validate/measure.h val_placement); pinned FALSE: unpinned */
  gboolean pinned;
  int server_cpus, client_cpus;                /* CPUs each side's threads are pinned to */
  double cross_share;                          /* share of connections whose two ends run on different cores */
  double server_free_cores, client_free_cores; /* cores other tenants left on each side's pinned CPUs (0: all) */
} ValHostConfig;

typedef struct {
  double server_cpb, client_cpb, softirq_cpb, total_cpb; /* cycles per body byte */
  double gbps;                                           /* predicted body throughput, 1e9 bit/s */
  const char *bottleneck;                                /* "server", "client" or "cpu" */
} ValHostPrediction;

/* The model is the appliance model's loopback host (models/appliance/loopback.h: per-side cycles per
 * byte with the page-cache miss and cross-core terms, per-request cycles) and its bottleneck law:
 *   Throughput (B/s) = u * clock * min( min(S, n, A) / s,  min(C, n, A) / c,  A / (s + c + q) )
 * with S, C the thread counts, n connections, A available cores, u utilisation.  This closed
 * form is what `ocasim bound` computes for the same profile (tested), and what the fit uses.
 * Left out: memory bandwidth limits (not reached at these rates on one socket), latency-bound
 * operation with very few connections. */
void val_predict_host(const ValHostProfile *prof, const ValHostConfig *cfg, ValHostPrediction *out);

/* The loopback section of the appliance model for a profile and configuration: costs, the
 * test (threads, connections, cipher, file size), data path and CPU share cap = A / cores. */
void val_host_loopback(const ValHostProfile *prof, const ValHostConfig *cfg, LoopbackCfg *lo, DataPath *path, double *cap);

/* Crypto parameter of a cipher (ANY maps to AES-128-GCM). */
ValParam val_param_for_cipher(ValCipher c);

G_END_DECLS
#endif
