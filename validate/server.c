/* validate/server.c — epoll TLS file server for validation mode.
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
 * SIGPIPE is blocked in worker threads (OpenSSL writes with write(2)); send(2)
 * uses MSG_NOSIGNAL.  Connections idle longer than idle_timeout_s are closed.
 * Offsets and sizes are 64-bit throughout (files over 4 GiB, ranges past 2^32).
 * Left out: HTTP/2, request bodies, multi-range responses, access logs.
 */
#include "validate/server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

#include "validate/http.h"
#include "validate/pathres.h"
#include "validate/tls.h"
#include "validate/util.h"

typedef enum { ST_HANDSHAKE, ST_READ, ST_SEND } ConnState;
typedef enum { STEP_DONE, STEP_WAIT, STEP_YIELD, STEP_CLOSE } Step;

typedef struct Conn {
  struct Conn *prev, *next;
  int fd;
  SSL *ssl;
  gboolean ktls_tx;
  ConnState st;
  uint32_t interest;
  int64_t last_active_ns;
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
  _Atomic uint64_t accepted, closed, requests, s2xx, s4xx, s5xx, bytes_body, aborts, tls_failures, idle_timeouts, ktls_conns,
      ktls_fallback, sendfile_calls, ssl_sendfile_calls, ssl_write_calls;
} WStats;

typedef struct Worker {
  struct ValServer *srv;
  int idx;
  pthread_t th;
  gboolean started;
  int ep;
  Conn *head;
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

#define INC(w, f)    atomic_fetch_add_explicit(&(w)->st.f, 1, memory_order_relaxed)
#define ADD(w, f, v) atomic_fetch_add_explicit(&(w)->st.f, (v), memory_order_relaxed)

/* ---- connection lifetime -------------------------------------------------- */

static void set_interest(Worker *w, Conn *c, uint32_t ev)
{
  if (c->interest == ev) return;
  struct epoll_event e = { .events = ev, .data.ptr = c };
  if (epoll_ctl(w->ep, EPOLL_CTL_MOD, c->fd, &e) == 0) c->interest = ev;
}

static void conn_free(Worker *w, Conn *c, gboolean graceful)
{
  if (c->ssl) {
    if (graceful) {
      ERR_clear_error();
      SSL_shutdown(c->ssl); /* one close_notify, not waited for */
    }
    SSL_free(c->ssl);
  }
  epoll_ctl(w->ep, EPOLL_CTL_DEL, c->fd, NULL);
  close(c->fd);
  if (c->file_fd >= 0) close(c->file_fd);
  g_free(c->buf);
  if (c->prev)
    c->prev->next = c->next;
  else
    w->head = c->next;
  if (c->next) c->next->prev = c->prev;
  INC(w, closed);
  g_free(c);
}

static void accept_ready(Worker *w)
{
  ValServer *s = w->srv;
  for (int k = 0; k < 64; k++) {
    int fd = accept4(s->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        /* out of descriptors: stop listening for 100 ms instead of spinning */
        epoll_ctl(w->ep, EPOLL_CTL_DEL, s->listen_fd, NULL);
        w->accept_paused_until = val_now_ns() + 100000000;
      }
      return;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    Conn *c = g_new0(Conn, 1);
    c->fd = fd;
    c->file_fd = -1;
    c->last_active_ns = val_now_ns();
    c->interest = EPOLLIN;
    if (val_server_mode_is_tls(s->cfg.mode)) {
      c->ssl = SSL_new(s->ctx);
      if (!c->ssl || SSL_set_fd(c->ssl, fd) != 1) {
        ERR_clear_error();
        SSL_free(c->ssl);
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
      close(fd);
      g_free(c);
      continue;
    }
    c->next = w->head;
    if (w->head) w->head->prev = c;
    w->head = c;
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
  c->hdr_len = val_http_format_head(c->hdr, sizeof c->hdr, status, 0, 0, 0, keep_alive);
  c->hdr_len += val_http_error_body(status, c->hdr + c->hdr_len, sizeof c->hdr - c->hdr_len);
  c->hdr_off = 0;
  c->body_off = c->body_end = 0;
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
    c->hdr_len = val_http_format_head(c->hdr, sizeof c->hdr, 416, size, 0, 0, req->keep_alive);
    c->hdr_len += val_http_error_body(416, c->hdr + c->hdr_len, sizeof c->hdr - c->hdr_len);
    c->hdr_off = 0;
    c->body_off = c->body_end = 0;
    count_status(w, 416);
    return;
  }
  if (status == 200) {
    first = 0;
    last = size ? size - 1 : 0;
  }
  c->keep_alive = req->keep_alive;
  c->hdr_len = val_http_format_head(c->hdr, sizeof c->hdr, status, size, first, last, req->keep_alive);
  c->hdr_off = 0;
  count_status(w, status);
  if (req->head || size == 0) {
    close(fd);
    c->body_off = c->body_end = 0;
    return;
  }
  c->file_fd = fd;
  c->body_off = first;
  c->body_end = last + 1;
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
    prepare_error(w, c, -r, FALSE);
    c->in_len = 0;
  } else {
    prepare_response(w, c, &req);
    memmove(c->in, c->in + used, c->in_len - used);
    c->in_len -= used;
  }
  c->buf_len = c->buf_off = c->buf_body = 0;
  c->st = ST_SEND;
  return TRUE;
}

/* ---- send paths ----------------------------------------------------------- */

static Step send_plain(Worker *w, Conn *c, size_t *budget)
{
  while (c->hdr_off < c->hdr_len) {
    int more = c->body_off < c->body_end ? MSG_MORE : 0;
    ssize_t n = send(c->fd, c->hdr + c->hdr_off, c->hdr_len - c->hdr_off, MSG_NOSIGNAL | more);
    if (n < 0) return sock_fail(w, c, EPOLLOUT);
    c->hdr_off += (size_t)n;
  }
  while (c->body_off < c->body_end) {
    if (*budget == 0) return STEP_YIELD;
    size_t want = (size_t)MIN(c->body_end - c->body_off, (uint64_t)*budget);
    off_t off = (off_t)c->body_off;
    INC(w, sendfile_calls);
    ssize_t n = sendfile(c->fd, c->file_fd, &off, want);
    if (n < 0) return sock_fail(w, c, EPOLLOUT);
    if (n == 0) { /* file shrank under us */
      INC(w, aborts);
      return STEP_CLOSE;
    }
    c->body_off += (uint64_t)n;
    *budget -= MIN(*budget, (size_t)n);
    ADD(w, bytes_body, (uint64_t)n);
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
        set_interest(w, c, EPOLLOUT);
        return STEP_WAIT;
      }
      if (errno == EINTR) return STEP_YIELD;
      ERR_clear_error();
      INC(w, aborts);
      return STEP_CLOSE;
    }
    c->body_off += (uint64_t)n;
    *budget -= MIN(*budget, (size_t)n);
    ADD(w, bytes_body, (uint64_t)n);
  }
  return STEP_DONE;
}

static Step send_user(Worker *w, Conn *c, size_t *budget)
{
  size_t chunk = w->srv->cfg.chunk_bytes;
  if (!c->buf) c->buf = g_malloc(MAX(chunk, sizeof c->hdr));
  for (;;) {
    if (c->buf_off == c->buf_len) { /* refill */
      if (c->buf_body) ADD(w, bytes_body, c->buf_body);
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
        if (n <= 0) { /* read error or file shrank */
          INC(w, aborts);
          return STEP_CLOSE;
        }
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

static void finish_handshake(Worker *w, Conn *c)
{
  ValServer *s = w->srv;
  if (s->cfg.mode != VAL_MODE_SENDFILE_KTLS) return;
  c->ktls_tx = BIO_get_ktls_send(SSL_get_wbio(c->ssl)) != 0;
  if (c->ktls_tx) {
    INC(w, ktls_conns);
    return;
  }
  INC(w, ktls_fallback);
  if (atomic_exchange(&s->fallback_logged, 1) == 0 && !s->cfg.quiet && s->ktls.ulp_ok)
    g_message("serve: kTLS did not engage on a connection (%s); serving in user space", s->ktls.reason);
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
        st = ssl_fail(w, c, r);
        break;
      }
      case ST_READ: {
        if (c->in_len > 0 && take_request(w, c)) continue;
        ssize_t n;
        if (c->ssl) {
          ERR_clear_error();
          int r = SSL_read(c->ssl, c->in + c->in_len, (int)(sizeof c->in - c->in_len));
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
        c->in_len += (size_t)n;
        c->last_active_ns = val_now_ns();
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
          if (c->file_fd >= 0) {
            close(c->file_fd);
            c->file_fd = -1;
          }
          if (!c->keep_alive) {
            conn_free(w, c, TRUE);
            return FALSE;
          }
          c->st = ST_READ;
          set_interest(w, c, EPOLLIN);
          continue;
        }
        break;
      }
    }
    if (st == STEP_CLOSE) {
      conn_free(w, c, FALSE);
      return FALSE;
    }
    if (st == STEP_YIELD) set_interest(w, c, EPOLLOUT); /* come back on the next round */
    return TRUE;
  }
}

static void sweep_idle(Worker *w, int64_t now)
{
  int64_t limit = (int64_t)(w->srv->cfg.idle_timeout_s * 1e9);
  for (Conn *c = w->head, *n; c; c = n) {
    n = c->next;
    if (now - c->last_active_ns > limit) {
      INC(w, idle_timeouts);
      conn_free(w, c, FALSE);
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
  struct epoll_event ev[64];
  int64_t last_sweep = val_now_ns();
  gboolean running = TRUE;
  while (running) {
    int n = epoll_wait(w->ep, ev, 64, 500);
    int64_t now = val_now_ns();
    for (int i = 0; i < n; i++) {
      void *p = ev[i].data.ptr;
      if (p == &w->tag_stop)
        running = FALSE;
      else if (p == &w->tag_listen)
        accept_ready(w);
      else {
        Conn *c = p;
        if (ev[i].events & (EPOLLERR | EPOLLHUP)) {
          if (c->st != ST_READ || c->in_len) INC(w, aborts);
          conn_free(w, c, FALSE);
        } else {
          conn_drive(w, c);
        }
      }
    }
    if (w->accept_paused_until && now >= w->accept_paused_until) {
      struct epoll_event e = { .events = EPOLLIN | EPOLLEXCLUSIVE, .data.ptr = &w->tag_listen };
      epoll_ctl(w->ep, EPOLL_CTL_ADD, s->listen_fd, &e);
      w->accept_paused_until = 0;
    }
    if (now - last_sweep > 1000000000) {
      sweep_idle(w, now);
      last_sweep = now;
    }
  }
  while (w->head) conn_free(w, w->head, FALSE);
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
  s->root = g_strdup(cfg->root);
  s->bind_addr = g_strdup(cfg->bind_addr ? cfg->bind_addr : "127.0.0.1");
  s->cert_file = g_strdup(cfg->cert_file);
  s->key_file = g_strdup(cfg->key_file);
  s->cfg.root = s->root;
  s->cfg.bind_addr = s->bind_addr;
  s->cfg.cert_file = s->cert_file;
  s->cfg.key_file = s->key_file;
  if (s->cfg.threads <= 0) s->cfg.threads = 1;
  if (s->cfg.chunk_bytes == 0) s->cfg.chunk_bytes = 65536;
  if (s->cfg.budget_bytes == 0) s->cfg.budget_bytes = 262144;
  if (s->cfg.idle_timeout_s <= 0) s->cfg.idle_timeout_s = 30;
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
  g_free(s->w);
  if (s->stop_fd >= 0) close(s->stop_fd);
  if (s->listen_fd >= 0) close(s->listen_fd);
  if (s->root_fd >= 0) close(s->root_fd);
  SSL_CTX_free(s->ctx);
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
    o->client_aborts += LD(aborts);
    o->tls_failures += LD(tls_failures);
    o->idle_timeouts += LD(idle_timeouts);
    o->ktls_conns += LD(ktls_conns);
    o->ktls_fallback_conns += LD(ktls_fallback);
    o->sendfile_calls += LD(sendfile_calls);
    o->ssl_sendfile_calls += LD(ssl_sendfile_calls);
    o->ssl_write_calls += LD(ssl_write_calls);
  }
  o->open_conns = (int64_t)o->accepted - (int64_t)o->closed;
}
