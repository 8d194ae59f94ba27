/* serve/server.h — the real TLS file server that validation mode measures:
 * HTTP/1.1 GET/HEAD with Range and keep-alive over TLS 1.2/1.3 or plain HTTP,
 * epoll, N pinned worker threads, files only from one root directory.
 */
#ifndef SERVE_SERVER_H
#define SERVE_SERVER_H

#include <glib.h>
#include <stdint.h>

#include "serve/probe.h"

G_BEGIN_DECLS

/* The port `ocasim serve` and `ocasim load` use by default: 8443, the customary alternate
 * HTTPS port (assumed; any free port works). */
#define VAL_DEFAULT_PORT 8443
/* ValServerConfig's defaults for zero fields: the read / SSL_write chunk (64 KiB: four 16 KiB
 * TLS records; assumed), the bytes a connection may send per wake-up (256 KiB, four chunks;
 * assumed), the idle timeout (30 s; assumed, between Apache's KeepAliveTimeout 5 s and
 * nginx's keepalive_timeout 75 s), the head timeout (20 s, Apache mod_reqtimeout header=20)
 * and the lingering close (5 s, nginx lingering_timeout). */
#define VAL_SERVER_CHUNK_BYTES    65536
#define VAL_SERVER_BUDGET_BYTES   262144
#define VAL_SERVER_IDLE_TIMEOUT_S 30
#define VAL_SERVER_HEAD_TIMEOUT_S 20
#define VAL_SERVER_LINGER_S       5
/* A connection sending a response must move at least VAL_SERVER_MIN_SEND_BPS bytes per second,
 * averaged over VAL_SERVER_SEND_WINDOW_S, or it is closed (a paced slow reader holds a slot and
 * its send buffer; nginx's send_timeout is 60 s between two writes). Assumed: 16 KiB/s over 10 s,
 * far below any video bitrate's need. Each accepted socket's send buffer is bounded to
 * VAL_SERVER_SNDBUF_BYTES (SO_SNDBUF; the kernel doubles it), so that a reader that stalls pins
 * at most that much kernel memory (autotuned buffers grew to 2.8 MiB each on loopback); assumed:
 * 512 KiB, far above a loopback or LAN path's bandwidth-delay product per connection. */
/* max_conns_per_ip < 0: one address may hold this share of max_conns (assumed: a quarter, so that
 * three other clients' worth of slots stay free whatever one address does). */
#define VAL_SERVER_PER_IP_SHARE  0.25
#define VAL_SERVER_MIN_SEND_BPS  16384
#define VAL_SERVER_SEND_WINDOW_S 10
#define VAL_SERVER_SNDBUF_BYTES  524288

typedef enum {
  VAL_MODE_SENDFILE_KTLS = 0, /* TLS, SSL_OP_ENABLE_KTLS + SSL_sendfile (user space when kTLS does not engage) */
  VAL_MODE_USERSPACE,         /* TLS, pread + SSL_write */
  VAL_MODE_SENDFILE,          /* plain HTTP, sendfile(2): the no-TLS baseline */
  VAL_MODE_COUNT
} ValServerMode;

const char *val_server_mode_name(ValServerMode m); /* "sendfile_ktls", "userspace", "sendfile" */
gboolean val_server_mode_parse(const char *s, ValServerMode *out);
static inline gboolean val_server_mode_is_tls(ValServerMode m)
{
  return m != VAL_MODE_SENDFILE;
}

typedef struct {
  const char *root;      /* directory served (required) */
  const char *bind_addr; /* IPv4 address, default "127.0.0.1" */
  int port;              /* 0: ephemeral (read it back with val_server_port) */
  ValServerMode mode;
  int threads;  /* worker threads, default 1 */
  gboolean pin; /* pin worker i to CPU first_cpu + (i mod ncpus), mod online CPUs */
  int first_cpu;
  int ncpus;             /* CPUs of the server's set (0: all online CPUs) */
  const char *cert_file; /* PEM; NULL: self-signed certificate generated at start */
  const char *key_file;  /* PEM; NULL: key inside cert_file */
  size_t chunk_bytes;    /* user-space read / SSL_write chunk, default 65536 */
  size_t budget_bytes;   /* bytes sent per connection per wake-up (fairness), default 262144 */
  double idle_timeout_s; /* close connections without progress for this long, default 30 */
  double head_timeout_s; /* the most a TLS handshake, or a request head from its first byte, may take,
                            however often bytes arrive (slowloris); default 20 (Apache mod_reqtimeout's
                            header=20) */
  double linger_s;       /* lingering close (RFC 9112 §9.6): after the last byte of a response that ends
                            the connection, close_notify, half-close and read what the client still sends
                            for at most this long, default 5 (nginx lingering_timeout) */
  int max_conns;         /* most open connections; at the cap a new one evicts the longest-waiting
                            connection that is not sending a response, or is refused; 0: from
                            RLIMIT_NOFILE, (soft limit - VAL_SERVER_FD_RESERVE) / 2 (a socket and a file each) */
  int max_conns_per_ip;  /* most open connections from one IPv4 source address, on top of max_conns, so that one
                            client cannot take every slot: a new connection from an address at its cap is refused
                            (closed at once, before any eviction); 0: no per-address cap; < 0: a quarter of
                            max_conns (VAL_SERVER_PER_IP_SHARE, `ocasim serve`'s default) */
  double min_send_Bps;   /* a sending connection moving fewer bytes per second than this over send_window_s is
                            closed; default VAL_SERVER_MIN_SEND_BPS; < 0: no send deadline */
  double send_window_s;  /* default VAL_SERVER_SEND_WINDOW_S */
  int sndbuf_bytes;      /* SO_SNDBUF of every connection; default VAL_SERVER_SNDBUF_BYTES; < 0: the kernel's autotuning */
  unsigned fault_every;  /* tests: every n-th socket write of a connection fails with EAGAIN and the
                            n/2-th is cut short (the retry goes through epoll); 0: off */
  unsigned path_flags;   /* VAL_PATH_* (tests) */
  gboolean quiet;        /* no informational messages on stderr (truncated files are still reported) */
} ValServerConfig;

/* Descriptors kept free of connections when max_conns is derived from RLIMIT_NOFILE:
 * listener, epoll sets, eventfd, root, stdio, certificate loading, an embedding process's
 * own.  Assumed (no published figure): 64. */
#define VAL_SERVER_FD_RESERVE 64

typedef struct {
  uint64_t accepted, closed, requests, status_2xx, status_4xx, status_5xx; /* status: when the response starts */
  uint64_t bytes_body;          /* body bytes written to the kernel (not promised, not necessarily delivered) */
  uint64_t bytes_unacked;       /* bytes still in send queues (SIOCOUTQ) when the server closed: lost if the close reset */
  uint64_t bytes_acked;         /* wire bytes the clients acknowledged (TCP_INFO tcpi_bytes_acked at close: heads, bodies,
                                   TLS records and handshakes) */
  uint64_t bytes_body_acked;    /* body bytes acknowledged: per connection, body bytes written less the unacknowledged
                                   tail (SIOCOUTQ at close, less a close_notify); under TLS a lower bound (record framing
                                   in that tail counts as body) */
  uint64_t responses_cut;       /* responses whose body was not all written, or not all acknowledged, when the
                                   connection closed (client reset, truncation, server stop) */
  uint64_t files_changed;       /* responses whose file was modified during the send (mtime or size moved after the
                                   ETag and Last-Modified were sent): reported, the client sees a new ETag */
  uint64_t write_waits;         /* sends that met a full socket (EAGAIN / WANT_WRITE) and waited for EPOLLOUT */
  uint64_t client_aborts;       /* EPIPE / ECONNRESET / HUP mid-connection */
  uint64_t truncations;         /* responses cut short because the file shrank during the send (not aborts) */
  uint64_t tls_failures;        /* failed handshakes or TLS errors */
  uint64_t idle_timeouts;       /* closed without progress for idle_timeout_s (idle keep-alive: with close_notify) */
  uint64_t head_timeouts;       /* handshake or request head slower than head_timeout_s */
  uint64_t linger_timeouts;     /* lingering closes cut by linger_s (the client kept sending or never closed) */
  uint64_t send_timeouts;       /* responses closed for sending slower than min_send_Bps (a slow reader) */
  uint64_t bad_heads;           /* request heads refused with 400 (malformed, or a request smuggling shape) */
  uint64_t evicted, refused;    /* at max_conns: waiting connections closed for a new one; new ones refused */
  uint64_t refused_per_ip;      /* new connections refused at max_conns_per_ip */
  uint64_t ktls_conns;          /* connections on which kTLS send engaged */
  uint64_t ktls_fallback_conns; /* sendfile_ktls connections served in user space */
  uint64_t ktls_rekey_closes;   /* kTLS TX connections closed because the client asked for a TLS 1.3 KeyUpdate,
                                   which the kernel cannot apply to TX (nothing sent under the stale key) */
  uint64_t sendfile_calls, ssl_sendfile_calls, ssl_write_calls;
  int64_t open_conns;
} ValServerStats;

typedef struct ValServer ValServer;

/* Starts the server: opens the root, builds the TLS context (a bad or missing
 * certificate file is an error here), binds and listens, starts the workers.
 * In sendfile_ktls mode it probes kernel TLS once and, when unavailable, says so
 * once (unless quiet) with the errno.  Errors: VAL_ERROR_CERT, VAL_ERROR_INVALID
 * (root not a directory, bad address), VAL_ERROR_FAILED (bind, threads). */
ValServer *val_server_start(const ValServerConfig *cfg, GError **error);
/* Stops the workers, closes every connection, frees everything. NULL is fine. */
void val_server_stop(ValServer *s);
/* val_server_stop that fills *final (NULL is fine) once every connection is closed, so that
 * the counters settled at close (bytes acknowledged, responses cut short by the stop) are in. */
void val_server_stop_stats(ValServer *s, ValServerStats *final);
/* The TCP port the server listens on (the one the kernel chose when the config asked for 0). */
int val_server_port(const ValServer *s);
/* A snapshot of the counters so far (each read atomically; not one instant across counters). */
void val_server_stats(const ValServer *s, ValServerStats *out);
/* Sum of the worker threads' CPU time (user + system), ns. */
int64_t val_server_cpu_ns(const ValServer *s);
/* kTLS probe made at start (sendfile_ktls mode; zeroed otherwise). */
const ValKtlsProbe *val_server_ktls(const ValServer *s);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(ValServer, val_server_stop)

G_END_DECLS
#endif
