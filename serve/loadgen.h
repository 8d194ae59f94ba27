/* serve/loadgen.h — load generator: many concurrent HTTP(S) keep-alive
 * connections fetching files or ranges, checking every body's length and SHA-256.
 */
#ifndef SERVE_LOADGEN_H
#define SERVE_LOADGEN_H

#include <glib.h>
#include <stdint.h>

#include "serve/tls.h"

G_BEGIN_DECLS

/* The stall timeout when ValLoadConfig.timeout_s is 0, s. Assumed: far above a loopback
 * request's time, short enough to end a stuck run. */
#define VAL_LOAD_DEFAULT_TIMEOUT_S 10

typedef struct {
  char *path; /* request path, e.g. "/f-1048576.bin" */
  gboolean has_range;
  uint64_t first, last; /* inclusive byte range when has_range */
  uint64_t expect_len;  /* expected body length, bytes */
  int expect_status;    /* 200 or 206; 0: any 2xx */
  gboolean check_sha;   /* compare the body's SHA-256 with sha */
  unsigned char sha[32];
} ValLoadTarget;

typedef enum { VAL_VERIFY_ALL = 0, VAL_VERIFY_LENGTH } ValVerify;

typedef struct {
  const char *host; /* default "127.0.0.1" */
  int port;
  gboolean tls;
  ValTlsVersion version;
  ValCipher cipher;
  int connections;              /* concurrent connections (default 1) */
  int threads;                  /* client threads (default 1); connection i belongs to thread i mod threads */
  gboolean pin;                 /* pin thread i to CPU last_cpu - (i mod ncpus), mod online CPUs */
  int last_cpu;                 /* -1: the last online CPU */
  int ncpus;                    /* CPUs of the client's set (0: all online CPUs) */
  const ValLoadTarget *targets; /* connection i starts at target i mod n and walks the list */
  int ntargets;
  int requests_per_conn; /* > 0: each connection makes this many requests then stops; 0: until stopped */
  double duration_s;     /* val_load_run: run this long when requests_per_conn == 0 */
  ValVerify verify;      /* ALL: length and SHA-256 of every body with check_sha; LENGTH: length only */
  double timeout_s;      /* no progress on a connection for this long is an error (default 10) */
  gboolean close_each;   /* send "Connection: close" (new connection per request) */
  size_t wake_bytes;     /* > 0: wait for this many bytes of the response (SO_RCVLOWAT, capped by
                           * what is left of it) before the kernel wakes the thread; 0: any byte */
} ValLoadConfig;

typedef struct {
  uint64_t requests_ok; /* complete responses that passed every check */
  uint64_t bytes_body;  /* body bytes received (including partial bodies) */
  uint64_t connects, handshakes;
  uint64_t errors_connect, errors_tls, errors_status, errors_length, errors_hash, errors_io, errors_timeout;
  double elapsed_s; /* since start (or since the snapshot given to val_load_delta) */
  double gbps;      /* body bytes x 8 / elapsed / 1e9 */
  ValCipher cipher; /* negotiated on the last handshake */
  int tls_version;  /* 12 or 13, 0 when plain */
} ValLoadResult;

typedef struct ValLoad ValLoad;

/* Starts the client threads; returns at once.  Errors: bad config, TLS context. */
ValLoad *val_load_start(const ValLoadConfig *cfg, GError **error);
/* Counters so far (thread-safe). */
void val_load_snapshot(ValLoad *l, ValLoadResult *out);
/* *out = b - a for counters, elapsed and gbps over the interval. */
void val_load_delta(const ValLoadResult *a, const ValLoadResult *b, ValLoadResult *out);
/* Waits until every connection finished its requests (count mode); FALSE on timeout. */
gboolean val_load_wait(ValLoad *l, double timeout_s);
/* Sum of the client threads' CPU time, ns. */
int64_t val_load_cpu_ns(ValLoad *l);
/* Stops the threads, fills *final (may be NULL), frees. */
void val_load_stop(ValLoad *l, ValLoadResult *final);
/* Blocking run: duration_s (or until every connection made requests_per_conn requests). */
gboolean val_load_run(const ValLoadConfig *cfg, ValLoadResult *out, GError **error);
/* Total of the error counters. */
uint64_t val_load_errors(const ValLoadResult *r);

G_END_DECLS
#endif
