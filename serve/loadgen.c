/* serve/loadgen.c — epoll load generator for the validation server.
 *
 * T client threads, each owning connections i = t, t+T, ...; each connection is a
 * non-blocking state machine: connect -> TLS handshake (pinned version and
 * cipher) -> request -> response head -> body (hashed with SHA-256 as it
 * arrives) -> check status, Content-Length and digest -> next target on the same
 * keep-alive connection (or a new one when the server closes).  Throughput counts
 * every body byte received, so a fixed window measures Gb/s regardless of where
 * responses start and end.  A connection with no progress for timeout_s is an
 * error (and is reconnected); errors never stop the run.  Left out: HTTP
 * pipelining, request bodies, connection churn policies other than close_each.
 */
#include "serve/loadgen.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "serve/http.h"
#include "serve/util.h"

typedef enum { C_IDLE, C_CONNECTING, C_HANDSHAKE, C_SEND, C_HEAD, C_BODY, C_DONE } CState;

typedef struct LConn {
  struct LThread *t;
  int idx;
  int fd;
  SSL *ssl;
  CState st;
  uint32_t interest;
  int target;    /* index of the current target */
  int done_reqs; /* requests finished (count mode) */
  int64_t last_progress_ns, retry_at_ns;
  char req[VAL_HTTP_MAX_PATH + 256];
  size_t req_len, req_off;
  char head[VAL_HTTP_MAX_HEADER];
  size_t head_len;
  int status;
  uint64_t body_len, body_got;
  int lowat; /* SO_RCVLOWAT set on fd (1: the default) */
  gboolean server_close;
  EVP_MD_CTX *md;
} LConn;

typedef struct {
  _Atomic uint64_t ok, bytes, connects, handshakes, e_connect, e_tls, e_status, e_length, e_hash, e_io, e_timeout;
  _Atomic int cipher, version;
} LStats;

typedef struct LThread {
  struct ValLoad *load;
  int idx;
  pthread_t th;
  gboolean started;
  int ep;
  LConn **conns;
  int nconns;
  int active; /* connections not yet C_DONE */
  LStats st;
  _Atomic int64_t cpu_at_exit; /* CPU time when the thread ended, -1 while running */
  char rbuf[65536];
  char tag_stop;
} LThread;

struct ValLoad {
  ValLoadConfig cfg;
  ValLoadTarget *targets;
  char *host;
  struct sockaddr_in addr;
  SSL_CTX *ctx;
  int stop_fd;
  int nthreads;
  LThread *t;
  int64_t start_ns;
  _Atomic int finished_threads;
};

#define INC(t, f) atomic_fetch_add_explicit(&(t)->st.f, 1, memory_order_relaxed)

/* Wait before a failed connection's next attempt, ns (20 ms). Assumed. */
#define RETRY_DELAY_NS 20000000
/* A TLS read asks for the body left less one full record and its overhead (2^14 B, RFC 8446
 * 5.1; 512 B assumed for header, tag and padding), so that it never reads past the response. */
#define TLS_RECORD_BYTES       16384
#define TLS_RECORD_SLACK_BYTES 512
/* Events per epoll_wait, its timeout (ms), and how often the connection timers are checked
 * (ns, 10 ms). Assumed: a fraction of the stall timeout. */
#define EPOLL_BATCH      64
#define EPOLL_TIMEOUT_MS 20
#define TIMER_CHECK_NS   10000000
/* Poll interval of val_load_wait (ns, 2 ms). Assumed. */
#define WAIT_POLL_NS 2000000
/* Cap on a count-mode run without a duration, s (an hour). Assumed. */
#define COUNT_MODE_LIMIT_S 3600

static void set_interest(LThread *t, LConn *c, uint32_t ev)
{
  if (c->interest == ev) return;
  struct epoll_event e = { .events = ev, .data.ptr = c };
  if (epoll_ctl(t->ep, EPOLL_CTL_MOD, c->fd, &e) == 0) c->interest = ev;
}

static void conn_reset(LThread *t, LConn *c)
{
  if (c->ssl) {
    SSL_free(c->ssl);
    c->ssl = NULL;
  }
  if (c->fd >= 0) {
    epoll_ctl(t->ep, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->fd = -1;
  }
  ERR_clear_error();
  c->st = C_IDLE;
}

static gboolean count_mode(LThread *t)
{
  return t->load->cfg.requests_per_conn > 0;
}

static void conn_finish_if_done(LThread *t, LConn *c)
{
  if (count_mode(t) && c->done_reqs >= t->load->cfg.requests_per_conn) {
    conn_reset(t, c);
    c->st = C_DONE;
    t->active--;
  }
}

/* A failed request: count it, drop the connection, retry later (or finish). */
static void conn_fail(LThread *t, LConn *c, _Atomic uint64_t *counter, gboolean request_lost)
{
  atomic_fetch_add_explicit(counter, 1, memory_order_relaxed);
  conn_reset(t, c);
  if (request_lost) {
    c->done_reqs++;
    c->target = (c->target + 1) % t->load->cfg.ntargets;
  }
  c->retry_at_ns = val_now_ns() + RETRY_DELAY_NS;
  conn_finish_if_done(t, c);
}

static void build_request(ValLoad *l, LConn *c)
{
  const ValLoadTarget *tg = &l->targets[c->target];
  char range[96] = "";
  if (tg->has_range)
    g_snprintf(range, sizeof range, "Range: bytes=%" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT "\r\n", tg->first, tg->last);
  int n = g_snprintf(c->req, sizeof c->req, "GET %s HTTP/1.1\r\nHost: %s\r\n%s%s\r\n", tg->path, l->host, range,
                     l->cfg.close_each ? "Connection: close\r\n" : "");
  c->req_len = (size_t)MIN(n, (int)sizeof c->req - 1);
  c->req_off = 0;
  c->head_len = 0;
  c->body_got = 0;
  c->body_len = 0;
}

static void conn_open(LThread *t, LConn *c)
{
  ValLoad *l = t->load;
  c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (c->fd < 0) {
    conn_fail(t, c, &t->st.e_connect, TRUE);
    return;
  }
  int one = 1;
  setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  c->lowat = 1;
  INC(t, connects);
  c->last_progress_ns = val_now_ns();
  int r = connect(c->fd, (struct sockaddr *)&l->addr, sizeof l->addr);
  if (r != 0 && errno != EINPROGRESS) {
    conn_fail(t, c, &t->st.e_connect, TRUE);
    return;
  }
  c->st = C_CONNECTING;
  c->interest = EPOLLOUT;
  struct epoll_event e = { .events = EPOLLOUT, .data.ptr = c };
  if (epoll_ctl(t->ep, EPOLL_CTL_ADD, c->fd, &e) != 0) {
    conn_fail(t, c, &t->st.e_connect, TRUE);
    return;
  }
  build_request(l, c);
}

/* Maps an SSL failure to wait / error. Returns TRUE when the caller must return (waiting). */
static gboolean ssl_wait(LThread *t, LConn *c, int r, _Atomic uint64_t *err_counter)
{
  int e = SSL_get_error(c->ssl, r);
  if (e == SSL_ERROR_WANT_READ) {
    set_interest(t, c, EPOLLIN);
    return TRUE;
  }
  if (e == SSL_ERROR_WANT_WRITE) {
    set_interest(t, c, EPOLLOUT);
    return TRUE;
  }
  conn_fail(t, c, err_counter, TRUE);
  return FALSE;
}

static void response_done(LThread *t, LConn *c)
{
  ValLoad *l = t->load;
  const ValLoadTarget *tg = &l->targets[c->target];
  if (tg->check_sha && l->cfg.verify == VAL_VERIFY_ALL) {
    unsigned char d[32];
    unsigned int dl = 32;
    EVP_DigestFinal_ex(c->md, d, &dl);
    if (memcmp(d, tg->sha, 32) != 0) {
      conn_fail(t, c, &t->st.e_hash, TRUE);
      return;
    }
  }
  INC(t, ok);
  c->done_reqs++;
  c->target = (c->target + 1) % l->cfg.ntargets;
  conn_finish_if_done(t, c);
  if (c->st == C_DONE) return;
  if (c->server_close || l->cfg.close_each) {
    conn_reset(t, c);
    conn_open(t, c);
    return;
  }
  build_request(l, c);
  c->st = C_SEND;
  set_interest(t, c, EPOLLOUT);
}

/* Checks a parsed head against the target; starts the body. FALSE when failed. */
static gboolean head_done(LThread *t, LConn *c, int64_t clen)
{
  ValLoad *l = t->load;
  const ValLoadTarget *tg = &l->targets[c->target];
  gboolean st_ok = tg->expect_status ? c->status == tg->expect_status : (c->status >= 200 && c->status < 300);
  if (!st_ok) {
    conn_fail(t, c, &t->st.e_status, TRUE);
    return FALSE;
  }
  if (clen < 0 || (uint64_t)clen != tg->expect_len) {
    conn_fail(t, c, &t->st.e_length, TRUE);
    return FALSE;
  }
  c->body_len = (uint64_t)clen;
  c->body_got = 0;
  EVP_DigestInit_ex(c->md, EVP_sha256(), NULL);
  c->st = C_BODY;
  return TRUE;
}

static void feed_body(LThread *t, LConn *c, const char *p, size_t n)
{
  ValLoad *l = t->load;
  if (l->targets[c->target].check_sha && l->cfg.verify == VAL_VERIFY_ALL) EVP_DigestUpdate(c->md, p, n);
  c->body_got += n;
  atomic_fetch_add_explicit(&t->st.bytes, n, memory_order_relaxed);
}

/* Before waiting for response bytes: with wake_bytes, the socket's receive low-water mark is
 * set so the kernel wakes this thread only once min(wake_bytes, what is left of the response)
 * bytes are queued (less one TLS record's worth under TLS: the SSL object may hold the start
 * of a record already); head and body together are at least the expected body length. */
static void arm_lowat(LThread *t, LConn *c)
{
  size_t L = t->load->cfg.wake_bytes;
  if (!L) return;
  const ValLoadTarget *tg = &t->load->targets[c->target];
  uint64_t left = c->st == C_BODY ? c->body_len - c->body_got : c->st == C_HEAD ? tg->expect_len : 0;
  int64_t want = (int64_t)MIN((uint64_t)L, left);
  if (c->ssl) want -= TLS_RECORD_BYTES + TLS_RECORD_SLACK_BYTES;
  int v = (int)CLAMP(want, 1, INT_MAX);
  if (v == c->lowat) return;
  if (setsockopt(c->fd, SOL_SOCKET, SO_RCVLOWAT, &v, sizeof v) == 0) c->lowat = v;
}

/* Reads once; returns >0 bytes, 0 would block (interest set), -1 failed (conn reset). */
static ssize_t conn_read(LThread *t, LConn *c, char *buf, size_t cap)
{
  if (c->ssl) {
    ERR_clear_error();
    int r = SSL_read(c->ssl, buf, (int)cap);
    if (r > 0) return r;
    if (ssl_wait(t, c, r, &t->st.e_io)) {
      if (SSL_get_error(c->ssl, r) == SSL_ERROR_WANT_READ) arm_lowat(t, c);
      return 0;
    }
    return -1;
  }
  ssize_t r = recv(c->fd, buf, cap, 0);
  if (r > 0) return r;
  if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
    arm_lowat(t, c);
    set_interest(t, c, EPOLLIN);
    return 0;
  }
  if (r < 0 && errno == EINTR) return 0;
  conn_fail(t, c, &t->st.e_io, TRUE);
  return -1;
}

static void conn_drive(LThread *t, LConn *c)
{
  ValLoad *l = t->load;
  for (;;) { /* until the connection would block: SSL may hold decrypted bytes epoll cannot see */
    switch (c->st) {
      case C_IDLE:
      case C_DONE: return;
      case C_CONNECTING: {
        int err = 0;
        socklen_t el = sizeof err;
        getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &el);
        if (err) {
          conn_fail(t, c, &t->st.e_connect, TRUE);
          return;
        }
        if (l->ctx) {
          c->ssl = SSL_new(l->ctx);
          if (!c->ssl || SSL_set_fd(c->ssl, c->fd) != 1) {
            conn_fail(t, c, &t->st.e_tls, TRUE);
            return;
          }
          SSL_set_connect_state(c->ssl);
          c->st = C_HANDSHAKE;
        } else {
          c->st = C_SEND;
        }
        continue;
      }
      case C_HANDSHAKE: {
        ERR_clear_error();
        int r = SSL_connect(c->ssl);
        if (r != 1) {
          if (ssl_wait(t, c, r, &t->st.e_tls)) return;
          return;
        }
        INC(t, handshakes);
        atomic_store(&t->st.cipher, (int)val_tls_session_cipher(c->ssl));
        atomic_store(&t->st.version, SSL_version(c->ssl) == TLS1_3_VERSION ? 13 : 12);
        c->last_progress_ns = val_now_ns();
        c->st = C_SEND;
        continue;
      }
      case C_SEND: {
        while (c->req_off < c->req_len) {
          if (c->ssl) {
            ERR_clear_error();
            int r = SSL_write(c->ssl, c->req + c->req_off, (int)(c->req_len - c->req_off));
            if (r <= 0) {
              ssl_wait(t, c, r, &t->st.e_io);
              return;
            }
            c->req_off += (size_t)r;
          } else {
            ssize_t r = send(c->fd, c->req + c->req_off, c->req_len - c->req_off, MSG_NOSIGNAL);
            if (r < 0) {
              if (errno == EAGAIN) {
                set_interest(t, c, EPOLLOUT);
                return;
              }
              conn_fail(t, c, &t->st.e_io, TRUE);
              return;
            }
            c->req_off += (size_t)r;
          }
        }
        c->last_progress_ns = val_now_ns();
        c->st = C_HEAD;
        set_interest(t, c, EPOLLIN);
        continue;
      }
      case C_HEAD: {
        ssize_t n = conn_read(t, c, c->head + c->head_len, sizeof c->head - c->head_len);
        if (n <= 0) return;
        c->head_len += (size_t)n;
        c->last_progress_ns = val_now_ns();
        int64_t clen;
        size_t used;
        int r = val_http_parse_response(c->head, c->head_len, &c->status, &clen, &c->server_close, &used);
        if (r < 0) {
          conn_fail(t, c, &t->st.e_io, TRUE);
          return;
        }
        if (r == 0) continue;
        if (!head_done(t, c, clen)) return;
        size_t extra = c->head_len - used;
        if (extra > c->body_len) {
          conn_fail(t, c, &t->st.e_length, TRUE);
          return;
        }
        if (extra) feed_body(t, c, c->head + used, extra);
        if (c->body_got == c->body_len) response_done(t, c);
        continue;
      }
      case C_BODY: {
        size_t want = (size_t)MIN((uint64_t)sizeof t->rbuf, c->body_len - c->body_got);
        ssize_t n = conn_read(t, c, t->rbuf, want);
        if (n <= 0) return;
        feed_body(t, c, t->rbuf, (size_t)n);
        c->last_progress_ns = val_now_ns();
        if (c->body_got == c->body_len) response_done(t, c);
        continue;
      }
    }
  }
}

static void check_timers(LThread *t, int64_t now)
{
  ValLoad *l = t->load;
  int64_t limit = (int64_t)(l->cfg.timeout_s * 1e9);
  for (int i = 0; i < t->nconns; i++) {
    LConn *c = t->conns[i];
    if (c->st == C_IDLE && now >= c->retry_at_ns)
      conn_open(t, c);
    else if (c->st != C_IDLE && c->st != C_DONE && now - c->last_progress_ns > limit)
      conn_fail(t, c, &t->st.e_timeout, TRUE);
  }
}

static void *thread_main(void *arg)
{
  LThread *t = arg;
  ValLoad *l = t->load;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  if (l->cfg.pin) val_pin_self(l->cfg.last_cpu - (l->cfg.ncpus > 0 ? t->idx % l->cfg.ncpus : t->idx));
  for (int i = 0; i < t->nconns; i++) conn_open(t, t->conns[i]);
  struct epoll_event ev[EPOLL_BATCH];
  int64_t last_check = val_now_ns();
  gboolean running = TRUE;
  while (running && t->active > 0) {
    int n = epoll_wait(t->ep, ev, EPOLL_BATCH, EPOLL_TIMEOUT_MS);
    for (int i = 0; i < n; i++) {
      if (ev[i].data.ptr == &t->tag_stop) {
        running = FALSE;
        continue;
      }
      LConn *c = ev[i].data.ptr;
      if (c->st == C_IDLE || c->st == C_DONE) continue; /* reset earlier in this batch */
      conn_drive(t, c);
    }
    int64_t now = val_now_ns();
    if (now - last_check > TIMER_CHECK_NS) {
      check_timers(t, now);
      last_check = now;
    }
  }
  for (int i = 0; i < t->nconns; i++) conn_reset(t, t->conns[i]);
  atomic_store(&t->cpu_at_exit, val_thread_cpu_ns());
  atomic_fetch_add(&l->finished_threads, 1);
  OPENSSL_thread_stop();
  return NULL;
}

ValLoad *val_load_start(const ValLoadConfig *cfg, GError **error)
{
  if (!cfg->targets || cfg->ntargets <= 0) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_INVALID, "load: no targets");
    return NULL;
  }
  ValLoad *l = g_new0(ValLoad, 1);
  l->cfg = *cfg;
  l->stop_fd = -1;
  l->host = g_strdup(cfg->host ? cfg->host : "127.0.0.1");
  l->cfg.host = l->host;
  if (l->cfg.connections <= 0) l->cfg.connections = 1;
  if (l->cfg.threads <= 0) l->cfg.threads = 1;
  if (l->cfg.threads > l->cfg.connections) l->cfg.threads = l->cfg.connections;
  if (l->cfg.timeout_s <= 0) l->cfg.timeout_s = VAL_LOAD_DEFAULT_TIMEOUT_S;
  if (l->cfg.last_cpu < 0) l->cfg.last_cpu = val_online_cpus() - 1;
  l->targets = g_new0(ValLoadTarget, cfg->ntargets);
  for (int i = 0; i < cfg->ntargets; i++) {
    l->targets[i] = cfg->targets[i];
    l->targets[i].path = g_strdup(cfg->targets[i].path);
  }
  l->cfg.targets = l->targets;
  l->addr = (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = htons((uint16_t)cfg->port) };
  if (inet_pton(AF_INET, l->host, &l->addr.sin_addr) != 1) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_INVALID, "load: bad IPv4 address '%s'", l->host);
    val_load_stop(l, NULL);
    return NULL;
  }
  if (cfg->tls) {
    l->ctx = val_tls_client_ctx_new(cfg->version, cfg->cipher, FALSE, error);
    if (!l->ctx) {
      val_load_stop(l, NULL);
      return NULL;
    }
  }
  l->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  l->nthreads = l->cfg.threads;
  l->t = g_new0(LThread, l->nthreads);
  for (int i = 0; i < l->nthreads; i++) {
    LThread *t = &l->t[i];
    t->load = l;
    t->idx = i;
    t->cpu_at_exit = -1;
    t->ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event e = { .events = EPOLLIN, .data.ptr = &t->tag_stop };
    epoll_ctl(t->ep, EPOLL_CTL_ADD, l->stop_fd, &e);
    t->conns = g_new0(LConn *, l->cfg.connections / l->nthreads + 1);
  }
  for (int i = 0; i < l->cfg.connections; i++) {
    LThread *t = &l->t[i % l->nthreads];
    LConn *c = g_new0(LConn, 1);
    c->t = t;
    c->idx = i;
    c->fd = -1;
    c->target = i % cfg->ntargets;
    c->md = EVP_MD_CTX_new();
    t->conns[t->nconns++] = c;
    t->active++;
  }
  l->start_ns = val_now_ns();
  for (int i = 0; i < l->nthreads; i++) {
    if (pthread_create(&l->t[i].th, NULL, thread_main, &l->t[i]) != 0) {
      g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "load: cannot start thread");
      val_load_stop(l, NULL);
      return NULL;
    }
    l->t[i].started = TRUE;
  }
  return l;
}

#define LD(f) atomic_load_explicit(&t->st.f, memory_order_relaxed)

void val_load_snapshot(ValLoad *l, ValLoadResult *o)
{
  memset(o, 0, sizeof *o);
  for (int i = 0; i < l->nthreads; i++) {
    LThread *t = &l->t[i];
    o->requests_ok += LD(ok);
    o->bytes_body += LD(bytes);
    o->connects += LD(connects);
    o->handshakes += LD(handshakes);
    o->errors_connect += LD(e_connect);
    o->errors_tls += LD(e_tls);
    o->errors_status += LD(e_status);
    o->errors_length += LD(e_length);
    o->errors_hash += LD(e_hash);
    o->errors_io += LD(e_io);
    o->errors_timeout += LD(e_timeout);
    if (LD(version)) {
      o->tls_version = LD(version);
      o->cipher = (ValCipher)LD(cipher);
    }
  }
  o->elapsed_s = (double)(val_now_ns() - l->start_ns) * 1e-9;
  o->gbps = o->elapsed_s > 0 ? (double)o->bytes_body * 8 / o->elapsed_s / 1e9 : 0;
}

void val_load_delta(const ValLoadResult *a, const ValLoadResult *b, ValLoadResult *o)
{
  *o = *b;
#define D(f) o->f = b->f - a->f
  D(requests_ok);
  D(bytes_body);
  D(connects);
  D(handshakes);
  D(errors_connect);
  D(errors_tls);
  D(errors_status);
  D(errors_length);
  D(errors_hash);
  D(errors_io);
  D(errors_timeout);
#undef D
  o->elapsed_s = b->elapsed_s - a->elapsed_s;
  o->gbps = o->elapsed_s > 0 ? (double)o->bytes_body * 8 / o->elapsed_s / 1e9 : 0;
}

uint64_t val_load_errors(const ValLoadResult *r)
{
  return r->errors_connect + r->errors_tls + r->errors_status + r->errors_length + r->errors_hash + r->errors_io +
         r->errors_timeout;
}

gboolean val_load_wait(ValLoad *l, double timeout_s)
{
  int64_t end = val_now_ns() + (int64_t)(timeout_s * 1e9);
  while (atomic_load(&l->finished_threads) < l->nthreads) {
    if (val_now_ns() > end) return FALSE;
    val_sleep_ns(WAIT_POLL_NS);
  }
  return TRUE;
}

int64_t val_load_cpu_ns(ValLoad *l)
{
  int64_t s = 0;
  for (int i = 0; i < l->nthreads; i++) {
    if (!l->t[i].started) continue;
    int64_t done = atomic_load(&l->t[i].cpu_at_exit);
    s += done >= 0 ? done : MAX(0, val_pthread_cpu_ns(l->t[i].th));
  }
  return s;
}

void val_load_stop(ValLoad *l, ValLoadResult *final)
{
  if (!l) return;
  if (l->stop_fd >= 0) {
    uint64_t one = 1;
    ssize_t r = write(l->stop_fd, &one, sizeof one);
    (void)r;
  }
  for (int i = 0; l->t && i < l->nthreads; i++)
    if (l->t[i].started) pthread_join(l->t[i].th, NULL);
  if (final && l->t) val_load_snapshot(l, final);
  for (int i = 0; l->t && i < l->nthreads; i++) {
    LThread *t = &l->t[i];
    for (int k = 0; k < t->nconns; k++) {
      EVP_MD_CTX_free(t->conns[k]->md);
      g_free(t->conns[k]);
    }
    g_free(t->conns);
    if (t->ep >= 0) close(t->ep);
  }
  g_free(l->t);
  if (l->stop_fd >= 0) close(l->stop_fd);
  SSL_CTX_free(l->ctx);
  for (int i = 0; l->targets && i < l->cfg.ntargets; i++) g_free(l->targets[i].path);
  g_free(l->targets);
  g_free(l->host);
  g_free(l);
}

gboolean val_load_run(const ValLoadConfig *cfg, ValLoadResult *out, GError **error)
{
  ValLoad *l = val_load_start(cfg, error);
  if (!l) return FALSE;
  if (cfg->requests_per_conn > 0) {
    double limit = cfg->duration_s > 0 ? cfg->duration_s : COUNT_MODE_LIMIT_S;
    val_load_wait(l, limit);
  } else {
    val_sleep_ns((int64_t)(cfg->duration_s * 1e9));
  }
  val_load_stop(l, out);
  return TRUE;
}
