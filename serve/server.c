/* serve/server.c — epoll TLS file server for validation mode.
 *
 * One listening socket shared by N worker threads (EPOLLEXCLUSIVE wake-ups), each
 * worker with its own epoll set, connection list and counters; level-triggered
 * events with the interest set to exactly what the connection waits for (EPOLLIN
 * while reading a request or when TLS wants to read, EPOLLOUT while sending), so
 * a vanished peer shows up as EPOLLHUP/EPOLLERR or a failing write and is closed,
 * never polled in a loop.  Per wake-up a connection sends at most budget_bytes
 * (fairness between connections).  Send paths per mode:
 *   sendfile_ktls  SSL_write(head) + SSL_sendfile(file) when BIO_get_ktls_send()
 *                  is true for the connection; otherwise the user-space path below
 *                  (SSL_sendfile is never called without kTLS);
 *   userspace      pread(chunk) + SSL_write (head and body share the first chunk);
 *   sendfile       send(head, MSG_MORE) + sendfile(2), plain HTTP.
 * Slow readers: every socket's send buffer is bounded (sndbuf_bytes), and a connection sending a
 * response must move min_send_Bps averaged over send_window_s or it is closed, so that paced
 * readers cannot hold every slot (they could not be evicted: they are sending) nor pin the
 * kernel's memory. A lingering close's linger_s runs from delivery: while the client still
 * takes the unacknowledged tail at that rate, the deadline moves on. Request heads refused
 * with 400 are logged (the first BAD_HEADS_LOGGED of a worker) and counted.
 * SIGPIPE is blocked in worker threads (OpenSSL writes with write(2)); send(2)
 * uses MSG_NOSIGNAL.  Connections idle longer than idle_timeout_s are closed
 * (an idle keep-alive one with close_notify); a TLS handshake, or a request head
 * from its first byte, must complete within head_timeout_s however often bytes
 * arrive (slowloris).  A response that ends the connection (HTTP/1.0,
 * Connection: close, an error) ends with a lingering close (RFC 9112 §9.6):
 * close_notify (retried through epoll on EAGAIN), shutdown(SHUT_WR), then the
 * input is read and dropped until the client closes or linger_s passes, so that
 * a request the client pipelined meanwhile cannot make the kernel reset the
 * connection and drop the unsent tail of the body.  At most max_conns
 * connections are open: at the cap a new one evicts the waiting connection
 * (closing, idle, in a handshake or a head) that has waited longest, or is
 * refused when every one is sending, so accepts keep working under a flood.  A
 * file that shrinks during a send is reported ("truncated at N of M") and
 * counted apart from client aborts; one modified in place during a send (mtime or size
 * moved after the ETag went out) is reported too.  With max_conns_per_ip, one IPv4
 * source address holds at most that many connections: at its cap a new one evicts the
 * address's own longest-waiting connection that is not sending, or is refused.
 * At close the server asks the kernel what the client acknowledged (TCP_INFO
 * tcpi_bytes_acked; SIOCOUTQ, the unacknowledged tail) and counts body bytes
 * acknowledged and responses cut short, not bytes promised.
 * Offsets and sizes are 64-bit throughout (files over 4 GiB, ranges past 2^32).
 * Left out: HTTP/2, request bodies, multi-range responses, access logs.
 */
#include "serve/server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <linux/tcp.h> /* struct tcp_info with tcpi_bytes_acked (glibc's lacks it) */
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <linux/sockios.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "serve/http.h"
#include "serve/pathres.h"
#include "serve/tls.h"
#include "serve/util.h"

/* ST_SHUTDOWN: sending close_notify; ST_LINGER: half-closed, dropping input until EOF */
typedef enum { ST_HANDSHAKE, ST_READ, ST_SEND, ST_SHUTDOWN, ST_LINGER } ConnState;
typedef enum { STEP_DONE, STEP_WAIT, STEP_YIELD, STEP_CLOSE } Step;

typedef struct Conn {
  struct Conn *prev, *next;
  int fd;
  SSL *ssl;
  gboolean ktls_tx;
  gboolean rekey_asked; /* TLS 1.3 under kTLS TX: the client sent KeyUpdate(update_requested) */
  ConnState st;
  uint32_t interest;
  int64_t last_active_ns;
  int64_t head_start_ns;     /* handshake or current request head began (head_timeout_s) */
  int64_t close_deadline_ns; /* ST_SHUTDOWN / ST_LINGER: close by then (linger_s) */
  int linger_outq;           /* ST_SHUTDOWN / ST_LINGER: unacknowledged bytes at the last deadline check */
  int64_t send_mark_ns;      /* ST_SEND: the start of the current send-rate window */
  uint64_t send_mark_bytes;  /* body_written + header bytes at send_mark_ns */
  gboolean half_closed;
  gboolean notify_sent; /* close_notify written: the last (at most VAL_CLOSE_NOTIFY_MAX) bytes of the stream */
  uint32_t peer_addr;   /* IPv4, network order */
  gboolean ip_counted;  /* holds a slot of max_conns_per_ip */
  uint64_t body_written, resp_body_written; /* body bytes to the kernel: on this connection, of the last response */
  struct timespec resp_mtime;               /* the file's mtime and size when the response head was made */
  uint64_t resp_size;
  gboolean resp_validated; /* resp_mtime/resp_size are set: check them at the end of the body */
  gboolean dead;           /* closed; freed after the current batch of events (w->graveyard) */
  unsigned fault_count;    /* writes so far (fault_every) */
  char *path;              /* of the response being sent (reports) */
  uint64_t body_first;     /* first body offset of that response */
  char in[VAL_HTTP_MAX_HEADER];
  size_t in_len;
  char hdr[1024];
  size_t hdr_len, hdr_off;
  int file_fd;
  uint64_t body_off, body_end; /* absolute file offsets still to send: [body_off, body_end) */
  gboolean keep_alive;
  unsigned char *buf; /* user-space chunk */
  size_t buf_len, buf_off, buf_body;
} Conn;

typedef struct {
  _Atomic uint64_t accepted, closed, requests, s2xx, s4xx, s5xx, bytes_body, bytes_unacked, aborts, truncations, tls_failures,
      idle_timeouts, head_timeouts, linger_timeouts, send_timeouts, bad_heads, evicted, refused, refused_per_ip, ktls_conns,
      ktls_fallback, ktls_rekey_closes, sendfile_calls, ssl_sendfile_calls, ssl_write_calls, bytes_acked, bytes_body_acked,
      responses_cut, files_changed, write_waits;
} WStats;

typedef struct Worker {
  struct ValServer *srv;
  int idx;
  pthread_t th;
  gboolean started;
  int ep;
  Conn *head;
  Conn *graveyard; /* closed connections that events of the current batch may still name */
  WStats st;
  int64_t accept_paused_until;
  char tag_listen, tag_stop;
} Worker;

struct ValServer {
  ValServerConfig cfg;
  char *root, *root_real, *bind_addr, *cert_file, *key_file;
  int root_fd, listen_fd, stop_fd, port;
  SSL_CTX *ctx;
  ValKtlsProbe ktls;
  atomic_int fallback_logged;
  atomic_int nconns;        /* open connections, all workers */
  BIO_METHOD *fault_method; /* fault_every: the EAGAIN-injecting BIO filter */
  GMutex ip_lock;           /* max_conns_per_ip: ip_conns, open connections per source address */
  GHashTable *ip_conns;     /* GUINT_TO_POINTER(IPv4) -> GUINT_TO_POINTER(count) */
  int nworkers;
  Worker *w;
};

static const char *const mode_names[VAL_MODE_COUNT] = { "sendfile_ktls", "userspace", "sendfile" };

const char *val_server_mode_name(ValServerMode m)
{
  return (m >= 0 && m < VAL_MODE_COUNT) ? mode_names[m] : "?";
}

gboolean val_server_mode_parse(const char *s, ValServerMode *out)
{
  for (int i = 0; i < VAL_MODE_COUNT; i++)
    if (!strcmp(s, mode_names[i])) {
      *out = (ValServerMode)i;
      return TRUE;
    }
  return FALSE;
}

/* Connections one wake-up of the listening socket accepts before other work, events per
 * epoll_wait and its timeout (ms), and the idle sweep's period (ns, 250 ms). Assumed. */
#define ACCEPT_BATCH     64
#define EPOLL_BATCH      64
#define EPOLL_TIMEOUT_MS 250
#define SWEEP_PERIOD_NS  250000000
/* Out of descriptors: stop listening this long (ns, 100 ms) instead of spinning. Assumed. */
#define ACCEPT_PAUSE_NS 100000000

#define INC(w, f)    atomic_fetch_add_explicit(&(w)->st.f, 1, memory_order_relaxed)
#define ADD(w, f, v) atomic_fetch_add_explicit(&(w)->st.f, (v), memory_order_relaxed)

/* ---- connection lifetime -------------------------------------------------- */

static void set_interest(Worker *w, Conn *c, uint32_t ev)
{
  if (c->interest == ev) return;
  struct epoll_event e = { .events = ev, .data.ptr = c };
  if (epoll_ctl(w->ep, EPOLL_CTL_MOD, c->fd, &e) == 0) c->interest = ev;
}

/* The largest close_notify record of the suites the server offers (AEAD only): TLS 1.2
 * AES-GCM, 5 header + 8 explicit nonce + 2 alert + 16 tag bytes (RFC 5288); TLS 1.3 is 24. */
#define VAL_CLOSE_NOTIFY_MAX 31

/* Takes a slot of max_conns_per_ip for @addr; FALSE when the address is at its cap. */
static gboolean ip_take(ValServer *s, uint32_t addr)
{
  if (s->cfg.max_conns_per_ip <= 0) return TRUE;
  g_mutex_lock(&s->ip_lock);
  guint n = GPOINTER_TO_UINT(g_hash_table_lookup(s->ip_conns, GUINT_TO_POINTER(addr)));
  gboolean ok = n < (guint)s->cfg.max_conns_per_ip;
  if (ok) g_hash_table_insert(s->ip_conns, GUINT_TO_POINTER(addr), GUINT_TO_POINTER(n + 1));
  g_mutex_unlock(&s->ip_lock);
  return ok;
}

static void ip_release(ValServer *s, uint32_t addr)
{
  g_mutex_lock(&s->ip_lock);
  guint n = GPOINTER_TO_UINT(g_hash_table_lookup(s->ip_conns, GUINT_TO_POINTER(addr)));
  if (n > 1)
    g_hash_table_insert(s->ip_conns, GUINT_TO_POINTER(addr), GUINT_TO_POINTER(n - 1));
  else
    g_hash_table_remove(s->ip_conns, GUINT_TO_POINTER(addr));
  g_mutex_unlock(&s->ip_lock);
}

/* What the client acknowledged of c, asked of the kernel just before the close: wire bytes
 * (tcpi_bytes_acked, Linux >= 4.2) and the unacknowledged tail (SIOCOUTQ: written, not
 * acknowledged).  The tail is the end of the stream, so it comes off the body bytes written
 * (after a close_notify, which is the tail's last record); a response with body bytes in it,
 * or one still being sent, was cut short. */
static void account_close(Worker *w, Conn *c)
{
  int outq = 0;
  uint64_t tail = ioctl(c->fd, SIOCOUTQ, &outq) == 0 && outq > 0 ? (uint64_t)outq : 0;
  ADD(w, bytes_unacked, tail);
  struct tcp_info ti;
  socklen_t tl = sizeof ti;
  memset(&ti, 0, sizeof ti);
  if (getsockopt(c->fd, IPPROTO_TCP, TCP_INFO, &ti, &tl) == 0 &&
      tl >= offsetof(struct tcp_info, tcpi_bytes_acked) + sizeof ti.tcpi_bytes_acked)
    ADD(w, bytes_acked, ti.tcpi_bytes_acked);
  /* the FIN of a half-close takes a sequence number (SIOCOUTQ counts it until acknowledged): a
   * client that closed without reading it, or reset, left it in the tail, which counted a
   * complete response as cut short */
  if (c->half_closed) tail -= MIN(tail, 1);
  if (c->notify_sent) tail -= MIN(tail, (uint64_t)VAL_CLOSE_NOTIFY_MAX);
  ADD(w, bytes_body_acked, c->body_written - MIN(tail, c->body_written));
  if ((c->st == ST_SEND && (c->body_off < c->body_end || c->hdr_off < c->hdr_len)) || MIN(tail, c->resp_body_written) > 0)
    INC(w, responses_cut);
}

/* Closes and frees c.  graceful: one close_notify, not waited for (server stop, eviction). */
static void conn_free(Worker *w, Conn *c, gboolean graceful)
{
  if (c->ssl) {
    if (graceful && c->st != ST_LINGER) {
      ERR_clear_error();
      if (SSL_shutdown(c->ssl) >= 0) c->notify_sent = TRUE;
    }
    ERR_clear_error();
    SSL_free(c->ssl);
  }
  account_close(w, c);
  if (c->ip_counted) ip_release(w->srv, c->peer_addr);
  epoll_ctl(w->ep, EPOLL_CTL_DEL, c->fd, NULL);
  close(c->fd);
  if (c->file_fd >= 0) close(c->file_fd);
  g_free(c->buf);
  g_free(c->path);
  atomic_fetch_sub(&w->srv->nconns, 1);
  if (c->prev)
    c->prev->next = c->next;
  else
    w->head = c->next;
  if (c->next) c->next->prev = c->prev;
  INC(w, closed);
  c->dead = TRUE;
  c->ssl = NULL;
  c->buf = NULL;
  c->path = NULL;
  c->next = w->graveyard;
  w->graveyard = c;
}

static void bury(Worker *w)
{
  while (w->graveyard) {
    Conn *c = w->graveyard;
    w->graveyard = c->next;
    g_free(c);
  }
}

/* ---- test faults: an EAGAIN-injecting BIO filter under TLS ---------------- */

/* fault_every = n: the n-th, 2n-th, ... socket write fails with EAGAIN (retry flag set, so
 * OpenSSL reports WANT_WRITE and the connection waits for EPOLLOUT, which a writable socket
 * gives at once), and the write half-way between is cut to half its length. */
static gboolean fault_hit(const ValServer *s, Conn *c, size_t *len)
{
  unsigned n = s->cfg.fault_every;
  if (!n) return FALSE;
  unsigned k = ++c->fault_count % n;
  if (k == 0) return TRUE;
  if (k == n / 2 && *len > 1) *len /= 2;
  return FALSE;
}

static int fault_bio_write(BIO *b, const char *data, int len)
{
  Conn *c = BIO_get_data(b);
  ValServer *s = BIO_get_app_data(b);
  BIO_clear_retry_flags(b);
  size_t n = (size_t)len;
  if (fault_hit(s, c, &n)) {
    BIO_set_retry_write(b);
    errno = EAGAIN;
    return -1;
  }
  int r = BIO_write(BIO_next(b), data, (int)n);
  BIO_copy_next_retry(b);
  return r;
}

static int fault_bio_read(BIO *b, char *data, int len)
{
  BIO_clear_retry_flags(b);
  int r = BIO_read(BIO_next(b), data, len);
  BIO_copy_next_retry(b);
  return r;
}

static long fault_bio_ctrl(BIO *b, int cmd, long num, void *ptr)
{
  return BIO_ctrl(BIO_next(b), cmd, num, ptr);
}

static int fault_bio_create(BIO *b)
{
  BIO_set_init(b, 1);
  return 1;
}

static BIO_METHOD *fault_method_new(void)
{
  BIO_METHOD *m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_FILTER, "ocasim-fault");
  if (!m) return NULL;
  BIO_meth_set_write(m, fault_bio_write);
  BIO_meth_set_read(m, fault_bio_read);
  BIO_meth_set_ctrl(m, fault_bio_ctrl);
  BIO_meth_set_create(m, fault_bio_create);
  return m;
}

/* Gives c->ssl its socket, through the fault filter when fault_every is set. */
static gboolean attach_socket(ValServer *s, Conn *c)
{
  if (!s->fault_method) return SSL_set_fd(c->ssl, c->fd) == 1;
  BIO *sock = BIO_new_socket(c->fd, BIO_NOCLOSE), *f = BIO_new(s->fault_method);
  if (!sock || !f) {
    BIO_free(sock);
    BIO_free(f);
    return FALSE;
  }
  BIO_set_data(f, c);
  BIO_set_app_data(f, s);
  BIO_push(f, sock);
  SSL_set_bio(c->ssl, f, f);
  return TRUE;
}

/* Eviction order at the cap: closing first, then idle keep-alive, then a handshake or head
 * in progress; never a connection sending a response.  Returns 0 for "not evictable". */
static int evict_rank(const Conn *c)
{
  switch (c->st) {
    case ST_SHUTDOWN:
    case ST_LINGER: return 3;
    case ST_READ: return c->in_len == 0 ? 2 : 1;
    case ST_HANDSHAKE: return 1;
    default: return 0;
  }
}

/* Closes this worker's most evictable connection (the longest waiting of its rank), of source
 * address @addr only when @of_addr; FALSE when none is evictable. */
static gboolean evict_one_of(Worker *w, gboolean of_addr, uint32_t addr)
{
  Conn *victim = NULL;
  int best = 0;
  int64_t since = 0;
  for (Conn *c = w->head; c; c = c->next) {
    if (of_addr && c->peer_addr != addr) continue;
    int r = evict_rank(c);
    int64_t t = r == 1 ? c->head_start_ns : c->last_active_ns; /* a dripping head: since its start */
    if (r > best || (r == best && r > 0 && t < since)) {
      victim = c;
      best = r;
      since = t;
    }
  }
  if (!victim) return FALSE;
  INC(w, evicted);
  conn_free(w, victim, TRUE);
  return TRUE;
}

static gboolean evict_one(Worker *w)
{
  return evict_one_of(w, FALSE, 0);
}

static void accept_ready(Worker *w)
{
  ValServer *s = w->srv;
  for (int k = 0; k < ACCEPT_BATCH; k++) {
    struct sockaddr_in peer = { 0 };
    socklen_t pl = sizeof peer;
    int fd = accept4(s->listen_fd, (struct sockaddr *)&peer, &pl, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        /* out of descriptors: free one for the next accept, or stop listening for 100 ms
         * instead of spinning */
        if (evict_one(w)) continue;
        epoll_ctl(w->ep, EPOLL_CTL_DEL, s->listen_fd, NULL);
        w->accept_paused_until = val_now_ns() + ACCEPT_PAUSE_NS;
      }
      return;
    }
    /* at its address's cap, a new connection takes the slot of that address's longest-waiting
     * idle, handshake or head connection (a client's own slowloris heads cannot lock out its
     * real requests), else it is refused: the cap is the address's own */
    if (!ip_take(s, peer.sin_addr.s_addr) &&
        (!evict_one_of(w, TRUE, peer.sin_addr.s_addr) || !ip_take(s, peer.sin_addr.s_addr))) {
      INC(w, refused_per_ip);
      close(fd);
      continue;
    }
    if (atomic_load(&s->nconns) >= s->cfg.max_conns && !evict_one(w)) {
      INC(w, refused);
      if (s->cfg.max_conns_per_ip > 0) ip_release(s, peer.sin_addr.s_addr);
      close(fd);
      continue;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (s->cfg.sndbuf_bytes > 0) setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &s->cfg.sndbuf_bytes, sizeof s->cfg.sndbuf_bytes);
    Conn *c = g_new0(Conn, 1);
    c->fd = fd;
    c->file_fd = -1;
    c->peer_addr = peer.sin_addr.s_addr;
    c->ip_counted = s->cfg.max_conns_per_ip > 0;
    c->last_active_ns = c->head_start_ns = val_now_ns();
    c->interest = EPOLLIN;
    if (val_server_mode_is_tls(s->cfg.mode)) {
      c->ssl = SSL_new(s->ctx);
      if (!c->ssl || !attach_socket(s, c)) {
        ERR_clear_error();
        SSL_free(c->ssl);
        if (c->ip_counted) ip_release(s, c->peer_addr);
        close(fd);
        g_free(c);
        INC(w, tls_failures);
        continue;
      }
      SSL_set_accept_state(c->ssl);
      c->st = ST_HANDSHAKE;
    } else {
      c->st = ST_READ;
    }
    struct epoll_event e = { .events = EPOLLIN, .data.ptr = c };
    if (epoll_ctl(w->ep, EPOLL_CTL_ADD, fd, &e) != 0) {
      SSL_free(c->ssl);
      if (c->ip_counted) ip_release(s, c->peer_addr);
      close(fd);
      g_free(c);
      continue;
    }
    c->next = w->head;
    if (w->head) w->head->prev = c;
    w->head = c;
    atomic_fetch_add(&s->nconns, 1);
    INC(w, accepted);
  }
}

/* ---- TLS / socket primitives ---------------------------------------------- */

/* Maps an SSL result: returns STEP_WAIT (interest updated) or STEP_CLOSE. */
static Step ssl_fail(Worker *w, Conn *c, int r)
{
  int e = SSL_get_error(c->ssl, r);
  if (e == SSL_ERROR_WANT_READ) {
    set_interest(w, c, EPOLLIN);
    return STEP_WAIT;
  }
  if (e == SSL_ERROR_WANT_WRITE) {
    INC(w, write_waits);
    set_interest(w, c, EPOLLOUT);
    return STEP_WAIT;
  }
  if (e == SSL_ERROR_SYSCALL && (errno == EPIPE || errno == ECONNRESET || errno == 0))
    INC(w, aborts);
  else if (e != SSL_ERROR_ZERO_RETURN)
    INC(w, tls_failures);
  ERR_clear_error();
  return STEP_CLOSE;
}

static Step sock_fail(Worker *w, Conn *c, uint32_t want)
{
  if (errno == EAGAIN || errno == EWOULDBLOCK) {
    if (want == EPOLLOUT) INC(w, write_waits);
    set_interest(w, c, want);
    return STEP_WAIT;
  }
  if (errno == EINTR) return STEP_YIELD;
  INC(w, aborts);
  return STEP_CLOSE;
}

/* ---- request -> response ---------------------------------------------------- */

static void count_status(Worker *w, int status)
{
  if (status < 300)
    INC(w, s2xx);
  else if (status < 500)
    INC(w, s4xx);
  else
    INC(w, s5xx);
}

static void prepare_error(Worker *w, Conn *c, int status, gboolean keep_alive)
{
  c->keep_alive = keep_alive;
  c->hdr_len = val_http_format_head(c->hdr, sizeof c->hdr, status, 0, 0, 0, keep_alive, NULL);
  c->hdr_len += val_http_error_body(status, c->hdr + c->hdr_len, sizeof c->hdr - c->hdr_len);
  c->hdr_off = 0;
  c->body_off = c->body_end = 0;
  c->resp_body_written = 0;
  c->resp_validated = FALSE;
  count_status(w, status);
}

static void prepare_response(Worker *w, Conn *c, const ValHttpRequest *req)
{
  ValServer *s = w->srv;
  INC(w, requests);
  uint64_t size = 0;
  int fd = val_path_open(s->root_fd, s->root_real, req->path, s->cfg.path_flags, &size);
  if (fd < 0) {
    prepare_error(w, c, -fd, req->keep_alive);
    return;
  }
  uint64_t first = 0, last = size ? size - 1 : 0;
  int status = req->has_range ? val_http_resolve_range(req->range, size, &first, &last) : 200;
  if (status == 416) {
    close(fd);
    c->keep_alive = req->keep_alive;
    c->hdr_len = val_http_format_head(c->hdr, sizeof c->hdr, 416, size, 0, 0, req->keep_alive, NULL);
    c->hdr_len += val_http_error_body(416, c->hdr + c->hdr_len, sizeof c->hdr - c->hdr_len);
    c->hdr_off = 0;
    c->body_off = c->body_end = 0;
    c->resp_body_written = 0;
    c->resp_validated = FALSE;
    count_status(w, 416);
    return;
  }
  if (status == 200) {
    first = 0;
    last = size ? size - 1 : 0;
  }
  c->keep_alive = req->keep_alive;
  char validators[160] = "";
  struct stat sb;
  c->resp_body_written = 0;
  c->resp_validated = fstat(fd, &sb) == 0;
  if (c->resp_validated) {
    val_http_format_validators(validators, sizeof validators, size, (int64_t)sb.st_mtim.tv_sec, sb.st_mtim.tv_nsec,
                               (uint64_t)sb.st_ino);
    c->resp_mtime = sb.st_mtim;
    c->resp_size = size;
  }
  c->hdr_len = val_http_format_head(c->hdr, sizeof c->hdr, status, size, first, last, req->keep_alive, validators);
  c->hdr_off = 0;
  count_status(w, status);
  if (req->head || size == 0) {
    close(fd);
    c->body_off = c->body_end = 0;
    return;
  }
  c->file_fd = fd;
  c->body_off = c->body_first = first;
  c->body_end = last + 1;
  g_free(c->path);
  c->path = g_strdup(req->path);
}

/* Request heads refused with 400 a worker logs one line each for (then one line saying it
 * stops), so that a flood cannot fill a log. Assumed. */
#define BAD_HEADS_LOGGED 32

/* Logs a request head refused with 400 (malformed, or a request smuggling shape RFC 9112 tells a
 * server to reject: whitespace before a colon, a bare CR, a NUL, no or two Host lines) with the
 * client's address and the head's first line. */
static void log_bad_head(Worker *w, Conn *c)
{
  uint64_t n = INC(w, bad_heads) + 1;
  if (w->srv->cfg.quiet || n > BAD_HEADS_LOGGED) return;
  char ip[INET_ADDRSTRLEN] = "?";
  inet_ntop(AF_INET, &c->peer_addr, ip, sizeof ip);
  const char *nl = memchr(c->in, '\n', c->in_len);
  size_t ll = MIN(nl ? (size_t)(nl - c->in) : c->in_len, 120);
  if (ll > 0 && c->in[ll - 1] == '\r') ll--;
  g_autofree char *line = g_strndup(c->in, ll);
  g_autofree char *first = g_strescape(line, NULL);
  g_message("serve: %s: request head refused (400): \"%s\"%s", ip, first,
            n == BAD_HEADS_LOGGED ? " (further refused heads of this worker are counted, not logged)" : "");
}

/* Starts the response to the request at the head of c->in; FALSE: need more bytes. */
static gboolean take_request(Worker *w, Conn *c)
{
  ValHttpRequest req;
  size_t used = 0;
  int r = val_http_parse_request(c->in, c->in_len, &req, &used);
  if (r == 0) {
    if (c->in_len < sizeof c->in) return FALSE;
    r = -431;
  }
  if (r < 0) {
    INC(w, requests);
    if (r == -400) log_bad_head(w, c);
    prepare_error(w, c, -r, FALSE);
    c->in_len = 0;
  } else {
    prepare_response(w, c, &req);
    memmove(c->in, c->in + used, c->in_len - used);
    c->in_len -= used;
  }
  c->buf_len = c->buf_off = c->buf_body = 0;
  c->st = ST_SEND;
  c->send_mark_ns = val_now_ns();
  c->send_mark_bytes = c->body_written + c->hdr_off;
  return TRUE;
}

/* ---- send paths ----------------------------------------------------------- */

/* n more body bytes handed to the kernel. */
static void body_written(Worker *w, Conn *c, uint64_t n)
{
  ADD(w, bytes_body, n);
  c->body_written += n;
  c->resp_body_written += n;
}

/* At the end of a body: a file modified since its head went out (mtime or size moved) is
 * reported; the client got bytes of two versions under the old ETag and Last-Modified,
 * and sees a new ETag when it asks again. */
static void check_unchanged(Worker *w, Conn *c)
{
  struct stat sb;
  if (!c->resp_validated || c->file_fd < 0 || fstat(c->file_fd, &sb) != 0) return;
  if (sb.st_mtim.tv_sec == c->resp_mtime.tv_sec && sb.st_mtim.tv_nsec == c->resp_mtime.tv_nsec &&
      (uint64_t)sb.st_size == c->resp_size)
    return;
  INC(w, files_changed);
  g_message("serve: %s changed during the send (modified after its ETag and Last-Modified went out; %" G_GUINT64_FORMAT
            " body bytes sent may mix two versions)",
            c->path ? c->path : "?", c->resp_body_written);
}

/* The file gave no more bytes before the end of the body: a truncation when it is now
 * shorter than the body's end (reported, counted apart from aborts), else a read error. */
static Step file_short(Worker *w, Conn *c, uint64_t sent_end)
{
  struct stat sb;
  if (fstat(c->file_fd, &sb) == 0 && (uint64_t)sb.st_size < c->body_end) {
    INC(w, truncations);
    g_message("serve: %s truncated at %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
              " body bytes (the file shrank to %jd bytes during the send); connection closed",
              c->path ? c->path : "?", sent_end - c->body_first, c->body_end - c->body_first, (intmax_t)sb.st_size);
  } else {
    INC(w, aborts);
  }
  return STEP_CLOSE;
}

static Step send_plain(Worker *w, Conn *c, size_t *budget)
{
  ValServer *s = w->srv;
  while (c->hdr_off < c->hdr_len) {
    int more = c->body_off < c->body_end ? MSG_MORE : 0;
    size_t want = c->hdr_len - c->hdr_off;
    if (fault_hit(s, c, &want)) {
      errno = EAGAIN;
      return sock_fail(w, c, EPOLLOUT);
    }
    ssize_t n = send(c->fd, c->hdr + c->hdr_off, want, MSG_NOSIGNAL | more);
    if (n < 0) return sock_fail(w, c, EPOLLOUT);
    c->hdr_off += (size_t)n;
  }
  while (c->body_off < c->body_end) {
    if (*budget == 0) return STEP_YIELD;
    size_t want = (size_t)MIN(c->body_end - c->body_off, (uint64_t)*budget);
    if (fault_hit(s, c, &want)) {
      errno = EAGAIN;
      return sock_fail(w, c, EPOLLOUT);
    }
    off_t off = (off_t)c->body_off;
    INC(w, sendfile_calls);
    ssize_t n = sendfile(c->fd, c->file_fd, &off, want);
    if (n < 0) return sock_fail(w, c, EPOLLOUT);
    if (n == 0) return file_short(w, c, c->body_off); /* file shrank under us */
    c->body_off += (uint64_t)n;
    *budget -= MIN(*budget, (size_t)n);
    body_written(w, c, (uint64_t)n);
  }
  return STEP_DONE;
}

static Step ssl_write_all(Worker *w, Conn *c, const void *p, size_t len, size_t *done)
{
  while (*done < len) {
    ERR_clear_error();
    INC(w, ssl_write_calls);
    int r = SSL_write(c->ssl, (const char *)p + *done, (int)MIN(len - *done, (size_t)INT_MAX));
    if (r <= 0) return ssl_fail(w, c, r);
    *done += (size_t)r;
  }
  return STEP_DONE;
}

static Step send_ktls(Worker *w, Conn *c, size_t *budget)
{
  Step st = ssl_write_all(w, c, c->hdr, c->hdr_len, &c->hdr_off);
  if (st != STEP_DONE) return st;
  g_assert(c->ktls_tx); /* SSL_sendfile only where kTLS engaged */
  while (c->body_off < c->body_end) {
    if (*budget == 0) return STEP_YIELD;
    size_t want = (size_t)MIN(c->body_end - c->body_off, (uint64_t)*budget);
    ERR_clear_error();
    errno = 0;
    INC(w, ssl_sendfile_calls);
    ossl_ssize_t n = SSL_sendfile(c->ssl, c->file_fd, (off_t)c->body_off, want, 0);
    if (n <= 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        ERR_clear_error();
        INC(w, write_waits);
        set_interest(w, c, EPOLLOUT);
        return STEP_WAIT;
      }
      if (errno == EINTR) return STEP_YIELD;
      ERR_clear_error();
      if (n == 0 || errno == 0) return file_short(w, c, c->body_off);
      struct stat sb;
      if (fstat(c->file_fd, &sb) == 0 && (uint64_t)sb.st_size < c->body_end) return file_short(w, c, c->body_off);
      INC(w, aborts);
      return STEP_CLOSE;
    }
    c->body_off += (uint64_t)n;
    *budget -= MIN(*budget, (size_t)n);
    body_written(w, c, (uint64_t)n);
  }
  return STEP_DONE;
}

static Step send_user(Worker *w, Conn *c, size_t *budget)
{
  size_t chunk = w->srv->cfg.chunk_bytes;
  if (!c->buf) c->buf = g_malloc(MAX(chunk, sizeof c->hdr));
  for (;;) {
    if (c->buf_off == c->buf_len) { /* refill */
      if (c->buf_body) body_written(w, c, c->buf_body);
      c->buf_len = c->buf_off = c->buf_body = 0;
      if (c->hdr_off < c->hdr_len) {
        memcpy(c->buf, c->hdr + c->hdr_off, c->hdr_len - c->hdr_off);
        c->buf_len = c->hdr_len - c->hdr_off;
        c->hdr_off = c->hdr_len;
      }
      if (c->body_off < c->body_end && c->buf_len < chunk) {
        if (*budget == 0 && c->buf_len == 0) return STEP_YIELD;
        size_t want = (size_t)MIN(c->body_end - c->body_off, (uint64_t)(chunk - c->buf_len));
        ssize_t n = pread(c->file_fd, c->buf + c->buf_len, want, (off_t)c->body_off);
        if (n <= 0) return file_short(w, c, c->body_off); /* file shrank, or a read error */
        c->body_off += (uint64_t)n;
        c->buf_len += (size_t)n;
        c->buf_body = (size_t)n;
      }
      if (c->buf_len == 0) return STEP_DONE;
    }
    size_t before = c->buf_off;
    Step st = ssl_write_all(w, c, c->buf, c->buf_len, &c->buf_off);
    *budget -= MIN(*budget, c->buf_off - before);
    if (st != STEP_DONE) return st;
  }
}

/* ---- the state machine ---------------------------------------------------- */

/* TLS 1.3 under kTLS TX: a KeyUpdate(update_requested) from the client makes OpenSSL answer
 * with its own KeyUpdate and move its write key, but the kernel's TX state keeps the old key
 * (Linux before 6.14 cannot rekey TLS_TX; OpenSSL 3.0 does not try), so every later record would
 * go out under a stale key (ktls_bug_cases.md BC-14). The message callback marks the connection;
 * the read path then closes it without writing another byte (no close_notify either). */
static void keyupdate_cb(int write_p, int version, int content_type, const void *buf, size_t len, SSL *ssl, void *arg)
{
  (void)version;
  (void)ssl;
  const unsigned char *m = buf;
  if (!write_p && content_type == SSL3_RT_HANDSHAKE && len >= 5 && m[0] == SSL3_MT_KEY_UPDATE && m[4] == SSL_KEY_UPDATE_REQUESTED)
    ((Conn *)arg)->rekey_asked = TRUE;
}

static void finish_handshake(Worker *w, Conn *c)
{
  ValServer *s = w->srv;
  if (s->cfg.mode != VAL_MODE_SENDFILE_KTLS) return;
  c->ktls_tx = BIO_get_ktls_send(SSL_get_wbio(c->ssl)) != 0;
  if (c->ktls_tx) {
    INC(w, ktls_conns);
    if (SSL_version(c->ssl) == TLS1_3_VERSION) {
      SSL_set_msg_callback(c->ssl, keyupdate_cb);
      SSL_set_msg_callback_arg(c->ssl, c);
    }
    return;
  }
  INC(w, ktls_fallback);
  if (atomic_exchange(&s->fallback_logged, 1) == 0 && !s->cfg.quiet && s->ktls.ulp_ok)
    g_message("serve: kTLS did not engage on a connection (%s); serving in user space", s->ktls.reason);
}

/* Starts the end of c: close_notify (TLS), then the lingering close, within linger_s. */
static void begin_close(Worker *w, Conn *c)
{
  if (c->file_fd >= 0) {
    close(c->file_fd);
    c->file_fd = -1;
  }
  c->st = c->ssl ? ST_SHUTDOWN : ST_LINGER;
  c->close_deadline_ns = val_now_ns() + (int64_t)(w->srv->cfg.linger_s * 1e9);
  c->linger_outq = INT_MAX;
}

/* Sends close_notify; STEP_DONE once it is written (or the peer's arrived first). */
static Step send_close_notify(Worker *w, Conn *c)
{
  ERR_clear_error();
  int r = SSL_shutdown(c->ssl);
  if (r >= 0) {
    c->notify_sent = TRUE;
    return STEP_DONE;
  }
  int e = SSL_get_error(c->ssl, r);
  ERR_clear_error();
  if (e == SSL_ERROR_WANT_WRITE) { /* the socket is full: retry on EPOLLOUT, within the deadline */
    set_interest(w, c, EPOLLOUT);
    return STEP_WAIT;
  }
  if (e == SSL_ERROR_WANT_READ) { /* sent; it would wait for the peer's */
    c->notify_sent = TRUE;
    return STEP_DONE;
  }
  return STEP_CLOSE; /* the peer is gone: nothing left to deliver */
}

/* Half-closes c, then drops what the client still sends until it closes (EOF). */
static Step linger(Worker *w, Conn *c)
{
  if (!c->half_closed) {
    shutdown(c->fd, SHUT_WR);
    c->half_closed = TRUE;
    set_interest(w, c, EPOLLIN);
  }
  for (int k = 0; k < 16; k++) {
    ssize_t n = recv(c->fd, c->in, sizeof c->in, 0);
    if (n == 0) return STEP_CLOSE; /* the client closed: every byte sent has been read or acknowledged */
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) return STEP_WAIT;
      if (errno == EINTR) continue;
      return STEP_CLOSE;
    }
  }
  return STEP_WAIT; /* level-triggered: the rest on the next round */
}

/* Runs c until it must wait; returns FALSE when c was freed. */
static gboolean conn_drive(Worker *w, Conn *c)
{
  size_t budget = w->srv->cfg.budget_bytes;
  for (;;) {
    Step st = STEP_WAIT;
    switch (c->st) {
      case ST_HANDSHAKE: {
        ERR_clear_error();
        int r = SSL_accept(c->ssl);
        if (r == 1) {
          finish_handshake(w, c);
          c->st = ST_READ;
          c->last_active_ns = val_now_ns();
          continue;
        }
        c->last_active_ns = val_now_ns();
        st = ssl_fail(w, c, r);
        break;
      }
      case ST_READ: {
        if (c->in_len > 0 && take_request(w, c)) continue;
        ssize_t n;
        if (c->ssl) {
          ERR_clear_error();
          int r = SSL_read(c->ssl, c->in + c->in_len, (int)(sizeof c->in - c->in_len));
          if (c->rekey_asked) { /* keyupdate_cb: nothing more may go out under the kernel's stale key */
            INC(w, ktls_rekey_closes);
            if (!w->srv->cfg.quiet)
              g_message("serve: the client asked for a TLS 1.3 KeyUpdate; kernel TLS cannot rekey TX, so the connection "
                        "is closed without sending under the old key");
            st = STEP_CLOSE;
            break;
          }
          if (r <= 0) {
            st = ssl_fail(w, c, r);
            break;
          }
          n = r;
        } else {
          n = recv(c->fd, c->in + c->in_len, sizeof c->in - c->in_len, 0);
          if (n == 0) {
            st = STEP_CLOSE;
            break;
          }
          if (n < 0) {
            st = sock_fail(w, c, EPOLLIN);
            break;
          }
        }
        c->last_active_ns = val_now_ns();
        if (c->in_len == 0) c->head_start_ns = c->last_active_ns; /* a new head begins */
        c->in_len += (size_t)n;
        take_request(w, c); /* a complete request moves c to ST_SEND; else read on */
        continue;
      }
      case ST_SEND: {
        ValServerMode m = w->srv->cfg.mode;
        if (!c->ssl)
          st = send_plain(w, c, &budget);
        else if (m == VAL_MODE_SENDFILE_KTLS && c->ktls_tx)
          st = send_ktls(w, c, &budget);
        else
          st = send_user(w, c, &budget);
        c->last_active_ns = val_now_ns();
        if (st == STEP_DONE) {
          check_unchanged(w, c);
          if (c->file_fd >= 0) {
            close(c->file_fd);
            c->file_fd = -1;
          }
          if (!c->keep_alive) {
            begin_close(w, c);
            continue;
          }
          c->st = ST_READ;
          c->head_start_ns = c->last_active_ns; /* for a request already pipelined */
          set_interest(w, c, EPOLLIN);
          continue;
        }
        break;
      }
      case ST_SHUTDOWN:
        st = send_close_notify(w, c);
        if (st == STEP_DONE) {
          c->st = ST_LINGER;
          continue;
        }
        break;
      case ST_LINGER: st = linger(w, c); break;
    }
    if (st == STEP_CLOSE) {
      conn_free(w, c, FALSE);
      return FALSE;
    }
    if (st == STEP_YIELD) set_interest(w, c, EPOLLOUT); /* come back on the next round */
    return TRUE;
  }
}

/* Deadlines: a closing connection past linger_s is closed; a handshake or a head older than
 * head_timeout_s is closed (however often bytes arrived); a connection without progress for
 * idle_timeout_s is closed, an idle keep-alive one with close_notify and a lingering close. */
static void sweep_idle(Worker *w, int64_t now)
{
  const ValServerConfig *cfg = &w->srv->cfg;
  int64_t idle = (int64_t)(cfg->idle_timeout_s * 1e9), head = (int64_t)(cfg->head_timeout_s * 1e9);
  int64_t linger = (int64_t)(cfg->linger_s * 1e9), send_window = cfg->min_send_Bps > 0 ? (int64_t)(cfg->send_window_s * 1e9) : 0;
  for (Conn *c = w->head, *n; c; c = n) {
    n = c->next;
    if (c->st == ST_SHUTDOWN || c->st == ST_LINGER) {
      /* linger_s counts from delivery, not from the last write: while the client still takes
       * the response's unacknowledged tail, the deadline moves on */
      int outq = 0;
      if (now >= c->close_deadline_ns && ioctl(c->fd, SIOCOUTQ, &outq) == 0 && outq > 0 &&
          (c->linger_outq == INT_MAX || (double)(c->linger_outq - outq) >= MAX(cfg->min_send_Bps, 1.0) * cfg->linger_s)) {
        c->linger_outq = outq;
        c->close_deadline_ns = now + linger;
      } else if (now >= c->close_deadline_ns) {
        INC(w, linger_timeouts);
        conn_free(w, c, FALSE);
      }
    } else if (c->st == ST_SEND && send_window > 0 && now - c->send_mark_ns >= send_window) {
      /* a slow reader: fewer than min_send_Bps over the window (written to the kernel, whose
       * bounded send buffer the client must drain) */
      uint64_t moved = c->body_written + c->hdr_off - c->send_mark_bytes;
      if ((double)moved < cfg->min_send_Bps * (double)(now - c->send_mark_ns) / 1e9) {
        INC(w, send_timeouts);
        conn_free(w, c, FALSE);
      } else {
        c->send_mark_ns = now;
        c->send_mark_bytes += moved;
      }
    } else if ((c->st == ST_HANDSHAKE || (c->st == ST_READ && c->in_len > 0)) && now - c->head_start_ns > head) {
      INC(w, head_timeouts);
      conn_free(w, c, FALSE);
    } else if (now - c->last_active_ns > idle) {
      INC(w, idle_timeouts);
      if (c->st == ST_READ && c->in_len == 0) {
        begin_close(w, c);
        conn_drive(w, c);
      } else {
        conn_free(w, c, FALSE);
      }
    }
  }
}

static void *worker_main(void *arg)
{
  Worker *w = arg;
  ValServer *s = w->srv;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  if (s->cfg.pin) val_pin_self(s->cfg.first_cpu + (s->cfg.ncpus > 0 ? w->idx % s->cfg.ncpus : w->idx));
  struct epoll_event ev[EPOLL_BATCH];
  int64_t last_sweep = val_now_ns();
  gboolean running = TRUE;
  while (running) {
    int n = epoll_wait(w->ep, ev, EPOLL_BATCH, EPOLL_TIMEOUT_MS);
    int64_t now = val_now_ns();
    for (int i = 0; i < n; i++) {
      void *p = ev[i].data.ptr;
      if (p == &w->tag_stop)
        running = FALSE;
      else if (p == &w->tag_listen)
        accept_ready(w);
      else {
        Conn *c = p;
        if (c->dead) continue; /* evicted by an accept earlier in this batch */
        if (ev[i].events & (EPOLLERR | EPOLLHUP)) {
          /* closing: the client is gone after the whole response, not an abort */
          if (c->st != ST_SHUTDOWN && c->st != ST_LINGER && (c->st != ST_READ || c->in_len)) INC(w, aborts);
          conn_free(w, c, FALSE);
        } else {
          conn_drive(w, c);
        }
      }
    }
    bury(w);
    if (w->accept_paused_until && now >= w->accept_paused_until) {
      struct epoll_event e = { .events = EPOLLIN | EPOLLEXCLUSIVE, .data.ptr = &w->tag_listen };
      epoll_ctl(w->ep, EPOLL_CTL_ADD, s->listen_fd, &e);
      w->accept_paused_until = 0;
    }
    if (now - last_sweep > SWEEP_PERIOD_NS) {
      sweep_idle(w, now);
      bury(w);
      last_sweep = now;
    }
  }
  while (w->head) conn_free(w, w->head, w->head->st == ST_READ && w->head->in_len == 0); /* idle: one close_notify */
  bury(w);
  ERR_clear_error();
  OPENSSL_thread_stop();
  return NULL;
}

/* ---- start / stop ----------------------------------------------------------- */

static gboolean open_listener(ValServer *s, GError **error)
{
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)s->cfg.port) };
  if (inet_pton(AF_INET, s->bind_addr, &a.sin_addr) != 1) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_INVALID, "bad IPv4 bind address '%s'", s->bind_addr);
    return FALSE;
  }
  s->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int one = 1;
  if (s->listen_fd < 0 || setsockopt(s->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
      bind(s->listen_fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(s->listen_fd, 1024) != 0) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "cannot listen on %s:%d: %s", s->bind_addr, s->cfg.port, g_strerror(errno));
    return FALSE;
  }
  socklen_t al = sizeof a;
  getsockname(s->listen_fd, (struct sockaddr *)&a, &al);
  s->port = ntohs(a.sin_port);
  return TRUE;
}

ValServer *val_server_start(const ValServerConfig *cfg, GError **error)
{
  g_return_val_if_fail(cfg && cfg->root, NULL);
  ValServer *s = g_new0(ValServer, 1);
  s->cfg = *cfg;
  s->root_fd = s->listen_fd = s->stop_fd = -1;
  g_mutex_init(&s->ip_lock);
  s->ip_conns = g_hash_table_new(g_direct_hash, g_direct_equal);
  s->root = g_strdup(cfg->root);
  s->bind_addr = g_strdup(cfg->bind_addr ? cfg->bind_addr : "127.0.0.1");
  s->cert_file = g_strdup(cfg->cert_file);
  s->key_file = g_strdup(cfg->key_file);
  s->cfg.root = s->root;
  s->cfg.bind_addr = s->bind_addr;
  s->cfg.cert_file = s->cert_file;
  s->cfg.key_file = s->key_file;
  if (s->cfg.threads <= 0) s->cfg.threads = 1;
  if (s->cfg.chunk_bytes == 0) s->cfg.chunk_bytes = VAL_SERVER_CHUNK_BYTES;
  if (s->cfg.budget_bytes == 0) s->cfg.budget_bytes = VAL_SERVER_BUDGET_BYTES;
  if (s->cfg.idle_timeout_s <= 0) s->cfg.idle_timeout_s = VAL_SERVER_IDLE_TIMEOUT_S;
  if (s->cfg.head_timeout_s <= 0) s->cfg.head_timeout_s = VAL_SERVER_HEAD_TIMEOUT_S;
  if (s->cfg.linger_s <= 0) s->cfg.linger_s = VAL_SERVER_LINGER_S;
  if (s->cfg.min_send_Bps == 0) s->cfg.min_send_Bps = VAL_SERVER_MIN_SEND_BPS;
  if (s->cfg.send_window_s <= 0) s->cfg.send_window_s = VAL_SERVER_SEND_WINDOW_S;
  if (s->cfg.sndbuf_bytes == 0) s->cfg.sndbuf_bytes = VAL_SERVER_SNDBUF_BYTES;
  if (s->cfg.max_conns <= 0) {
    struct rlimit rl;
    rlim_t nofile = getrlimit(RLIMIT_NOFILE, &rl) == 0 ? rl.rlim_cur : 1024;
    if (nofile == RLIM_INFINITY || nofile > (rlim_t)INT_MAX) nofile = INT_MAX;
    s->cfg.max_conns = (int)MAX((rlim_t)1, (nofile > VAL_SERVER_FD_RESERVE ? nofile - VAL_SERVER_FD_RESERVE : 0) / 2);
  }
  if (s->cfg.max_conns_per_ip < 0) s->cfg.max_conns_per_ip = MAX(1, (int)(s->cfg.max_conns * VAL_SERVER_PER_IP_SHARE));
  if (s->cfg.fault_every) {
    s->fault_method = fault_method_new();
    if (!s->fault_method) {
      g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "cannot create the fault BIO");
      goto fail;
    }
  }
  if (cfg->mode < 0 || cfg->mode >= VAL_MODE_COUNT) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_INVALID, "unknown server mode %d", cfg->mode);
    goto fail;
  }
  s->root_fd = open(s->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (s->root_fd < 0) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_INVALID, "root '%s': %s", s->root, g_strerror(errno));
    goto fail;
  }
  s->root_real = realpath(s->root, NULL);
  if (!s->root_real) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_INVALID, "root '%s': %s", s->root, g_strerror(errno));
    goto fail;
  }
  if (val_server_mode_is_tls(cfg->mode)) {
    s->ctx = val_tls_server_ctx_new(s->cert_file, s->key_file, cfg->mode == VAL_MODE_SENDFILE_KTLS, error);
    if (!s->ctx) goto fail;
  }
  if (cfg->mode == VAL_MODE_SENDFILE_KTLS) {
    val_probe_ktls(&s->ktls, FALSE);
    if (!(s->ktls.ulp_ok && s->ktls.tx_ok) && !cfg->quiet)
      g_message("serve: %s; sendfile_ktls serves the same bytes in user space (pread + SSL_write)", s->ktls.reason);
  }
  if (!open_listener(s, error)) goto fail;
  s->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (s->stop_fd < 0) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "eventfd: %s", g_strerror(errno));
    goto fail;
  }
  s->nworkers = s->cfg.threads;
  s->w = g_new0(Worker, s->nworkers);
  for (int i = 0; i < s->nworkers; i++) s->w[i].ep = -1;
  for (int i = 0; i < s->nworkers; i++) {
    Worker *w = &s->w[i];
    w->srv = s;
    w->idx = i;
    w->ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event el = { .events = EPOLLIN | EPOLLEXCLUSIVE, .data.ptr = &w->tag_listen };
    struct epoll_event es = { .events = EPOLLIN, .data.ptr = &w->tag_stop };
    if (w->ep < 0 || epoll_ctl(w->ep, EPOLL_CTL_ADD, s->listen_fd, &el) != 0 ||
        epoll_ctl(w->ep, EPOLL_CTL_ADD, s->stop_fd, &es) != 0) {
      g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "epoll: %s", g_strerror(errno));
      goto fail;
    }
  }
  for (int i = 0; i < s->nworkers; i++) {
    int e = pthread_create(&s->w[i].th, NULL, worker_main, &s->w[i]);
    if (e != 0) {
      g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "cannot start worker thread: %s", g_strerror(e));
      goto fail;
    }
    s->w[i].started = TRUE;
  }
  return s;
fail:
  val_server_stop(s);
  return NULL;
}

void val_server_stop(ValServer *s)
{
  val_server_stop_stats(s, NULL);
}

void val_server_stop_stats(ValServer *s, ValServerStats *final)
{
  if (!s) return;
  if (s->stop_fd >= 0) {
    uint64_t one = 1;
    ssize_t r = write(s->stop_fd, &one, sizeof one);
    (void)r;
  }
  for (int i = 0; s->w && i < s->nworkers; i++) {
    if (s->w[i].started) pthread_join(s->w[i].th, NULL);
    if (s->w[i].ep >= 0) close(s->w[i].ep);
  }
  if (final) val_server_stats(s, final);
  g_free(s->w);
  if (s->stop_fd >= 0) close(s->stop_fd);
  if (s->listen_fd >= 0) close(s->listen_fd);
  if (s->root_fd >= 0) close(s->root_fd);
  SSL_CTX_free(s->ctx);
  if (s->fault_method) BIO_meth_free(s->fault_method);
  g_hash_table_destroy(s->ip_conns);
  g_mutex_clear(&s->ip_lock);
  free(s->root_real);
  g_free(s->root);
  g_free(s->bind_addr);
  g_free(s->cert_file);
  g_free(s->key_file);
  g_free(s);
}

int val_server_port(const ValServer *s)
{
  return s->port;
}

const ValKtlsProbe *val_server_ktls(const ValServer *s)
{
  return &s->ktls;
}

int64_t val_server_cpu_ns(const ValServer *s)
{
  int64_t t = 0;
  for (int i = 0; i < s->nworkers; i++)
    if (s->w[i].started) t += MAX(0, val_pthread_cpu_ns(s->w[i].th));
  return t;
}

#define LD(f) atomic_load_explicit(&w->st.f, memory_order_relaxed)

void val_server_stats(const ValServer *s, ValServerStats *o)
{
  memset(o, 0, sizeof *o);
  for (int i = 0; i < s->nworkers; i++) {
    const Worker *w = &s->w[i];
    o->accepted += LD(accepted);
    o->closed += LD(closed);
    o->requests += LD(requests);
    o->status_2xx += LD(s2xx);
    o->status_4xx += LD(s4xx);
    o->status_5xx += LD(s5xx);
    o->bytes_body += LD(bytes_body);
    o->bytes_unacked += LD(bytes_unacked);
    o->client_aborts += LD(aborts);
    o->truncations += LD(truncations);
    o->tls_failures += LD(tls_failures);
    o->idle_timeouts += LD(idle_timeouts);
    o->head_timeouts += LD(head_timeouts);
    o->linger_timeouts += LD(linger_timeouts);
    o->send_timeouts += LD(send_timeouts);
    o->bad_heads += LD(bad_heads);
    o->evicted += LD(evicted);
    o->refused += LD(refused);
    o->refused_per_ip += LD(refused_per_ip);
    o->bytes_acked += LD(bytes_acked);
    o->bytes_body_acked += LD(bytes_body_acked);
    o->responses_cut += LD(responses_cut);
    o->files_changed += LD(files_changed);
    o->write_waits += LD(write_waits);
    o->ktls_conns += LD(ktls_conns);
    o->ktls_fallback_conns += LD(ktls_fallback);
    o->ktls_rekey_closes += LD(ktls_rekey_closes);
    o->sendfile_calls += LD(sendfile_calls);
    o->ssl_sendfile_calls += LD(ssl_sendfile_calls);
    o->ssl_write_calls += LD(ssl_write_calls);
  }
  o->open_conns = (int64_t)o->accepted - (int64_t)o->closed;
}
