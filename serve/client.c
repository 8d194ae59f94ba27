/* serve/client.c — blocking one-connection HTTP(S) client (SO_RCVTIMEO/SNDTIMEO
 * bound every operation).  Used by the tests to check bodies byte for byte, to
 * abort mid-transfer (close or RST) and to read slowly; no cost model here.
 */
#include "serve/client.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "serve/http.h"
#include "serve/tls.h"
#include "serve/util.h"

/* Read/write timeout when the caller gives none, s. Assumed. */
#define CLIENT_DEFAULT_TIMEOUT_S 30

struct ValClient {
  int fd;
  SSL *ssl;
  char buf[VAL_HTTP_MAX_HEADER];
  size_t len;     /* bytes buffered after the last head */
  char etag[128]; /* ETag of the last head, "" when none */
};

ValClient *val_client_connect(const char *host, int port, SSL_CTX *ctx, double timeout_s, GError **error)
{
  return val_client_connect_opts(host, port, ctx, timeout_s, NULL, 0, error);
}

ValClient *val_client_connect_opts(const char *host, int port, SSL_CTX *ctx, double timeout_s, const char *source,
                                   int rcvbuf_bytes, GError **error)
{
  struct sockaddr_in src = { .sin_family = AF_INET };
  if (source && inet_pton(AF_INET, source, &src.sin_addr) != 1) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_INVALID, "bad IPv4 source address '%s'", source);
    return NULL;
  }
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
  if (inet_pton(AF_INET, host, &a.sin_addr) != 1) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_INVALID, "bad IPv4 address '%s'", host);
    return NULL;
  }
  ValClient *c = g_new0(ValClient, 1);
  c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (c->fd < 0) goto fail_errno;
  double t = timeout_s > 0 ? timeout_s : CLIENT_DEFAULT_TIMEOUT_S;
  struct timeval tv = { .tv_sec = (time_t)t, .tv_usec = (suseconds_t)((t - (time_t)t) * 1e6) };
  setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  int one = 1;
  setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (rcvbuf_bytes > 0) setsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf_bytes, sizeof rcvbuf_bytes);
  if (source && bind(c->fd, (struct sockaddr *)&src, sizeof src) != 0) goto fail_errno;
  if (connect(c->fd, (struct sockaddr *)&a, sizeof a) != 0) goto fail_errno;
  if (ctx) {
    ERR_clear_error();
    c->ssl = SSL_new(ctx);
    if (!c->ssl || SSL_set_fd(c->ssl, c->fd) != 1 || SSL_connect(c->ssl) != 1) {
      g_autofree char *msg = val_tls_error_string();
      g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "TLS handshake with %s:%d: %s", host, port, msg);
      val_client_abort(c, FALSE);
      return NULL;
    }
  }
  return c;
fail_errno:
  g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "connect %s:%d: %s", host, port, g_strerror(errno));
  val_client_abort(c, FALSE);
  return NULL;
}

int val_client_fd(const ValClient *c)
{
  return c->fd;
}

SSL *val_client_ssl(const ValClient *c)
{
  return c->ssl;
}

static gssize raw_read(ValClient *c, void *p, size_t n, GError **error)
{
  for (;;) {
    if (c->ssl) {
      ERR_clear_error();
      int r = SSL_read(c->ssl, p, (int)MIN(n, (size_t)1 << 30));
      if (r > 0) return r;
      int e = SSL_get_error(c->ssl, r);
      if (e == SSL_ERROR_ZERO_RETURN) return 0;
      if (e == SSL_ERROR_SYSCALL && errno == 0) return 0;
      g_autofree char *msg = val_tls_error_string();
      g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "TLS read: %s (%s)", msg, errno ? g_strerror(errno) : "no errno");
      return -1;
    }
    ssize_t r = recv(c->fd, p, n, 0);
    if (r >= 0) return r;
    if (errno == EINTR) continue;
    g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "read: %s", g_strerror(errno));
    return -1;
  }
}

gboolean val_client_send(ValClient *c, const void *data, size_t len, GError **error)
{
  size_t off = 0;
  while (off < len) {
    if (c->ssl) {
      ERR_clear_error();
      int r = SSL_write(c->ssl, (const char *)data + off, (int)(len - off));
      if (r <= 0) {
        g_autofree char *msg = val_tls_error_string();
        g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "TLS write: %s", msg);
        return FALSE;
      }
      off += (size_t)r;
    } else {
      ssize_t r = send(c->fd, (const char *)data + off, len - off, MSG_NOSIGNAL);
      if (r < 0) {
        if (errno == EINTR) continue;
        g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "write: %s", g_strerror(errno));
        return FALSE;
      }
      off += (size_t)r;
    }
  }
  return TRUE;
}

/* Keeps the ETag value of the head in c->buf[0, end). */
static void keep_etag(ValClient *c, size_t end)
{
  c->etag[0] = 0;
  for (size_t i = 0; i + 6 < end; i++) {
    if (c->buf[i] != '\n' || g_ascii_strncasecmp(c->buf + i + 1, "ETag:", 5) != 0) continue;
    const char *v = c->buf + i + 6, *e = memchr(v, '\n', end - (size_t)(v - c->buf));
    while (v < c->buf + end && *v == ' ') v++;
    if (!e) return;
    while (e > v && (e[-1] == '\r' || e[-1] == ' ')) e--;
    g_strlcpy(c->etag, v, MIN(sizeof c->etag, (size_t)(e - v) + 1));
    return;
  }
}

const char *val_client_etag(const ValClient *c)
{
  return c->etag;
}

gboolean val_client_read_head(ValClient *c, int *status, int64_t *content_length, gboolean *close, GError **error)
{
  for (;;) {
    size_t used = 0;
    int r = val_http_parse_response(c->buf, c->len, status, content_length, close, &used);
    if (r == 1) {
      keep_etag(c, used);
      memmove(c->buf, c->buf + used, c->len - used);
      c->len -= used;
      return TRUE;
    }
    if (r < 0) {
      g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "malformed response head");
      return FALSE;
    }
    gssize n = raw_read(c, c->buf + c->len, sizeof c->buf - c->len, error);
    if (n < 0) return FALSE;
    if (n == 0) {
      g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "connection closed before the response head");
      return FALSE;
    }
    c->len += (size_t)n;
  }
}

gssize val_client_read_body(ValClient *c, uint64_t max, EVP_MD_CTX *md, GError **error)
{
  if (max == 0) return 0;
  if (c->len > 0) {
    size_t n = (size_t)MIN((uint64_t)c->len, max);
    if (md) EVP_DigestUpdate(md, c->buf, n);
    memmove(c->buf, c->buf + n, c->len - n);
    c->len -= n;
    return (gssize)n;
  }
  char tmp[65536];
  gssize n = raw_read(c, tmp, (size_t)MIN((uint64_t)sizeof tmp, max), error);
  if (n > 0 && md) EVP_DigestUpdate(md, tmp, (size_t)n);
  return n;
}

gboolean val_client_get(ValClient *c, const char *method, const char *path, const char *range, int *status, uint64_t *body_len,
                        unsigned char sha256[32], GError **error)
{
  g_autofree char *req = g_strdup_printf("%s %s HTTP/1.1\r\nHost: localhost\r\n%s%s%s\r\n", method, path, range ? "Range: " : "",
                                         range ? range : "", range ? "\r\n" : "");
  if (!val_client_send(c, req, strlen(req), error)) return FALSE;
  int64_t clen;
  gboolean cl;
  if (!val_client_read_head(c, status, &clen, &cl, error)) return FALSE;
  if (clen < 0) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "response without Content-Length");
    return FALSE;
  }
  uint64_t want = strcmp(method, "HEAD") == 0 ? 0 : (uint64_t)clen, got = 0;
  EVP_MD_CTX *md = EVP_MD_CTX_new();
  EVP_DigestInit_ex(md, EVP_sha256(), NULL);
  while (got < want) {
    gssize n = val_client_read_body(c, want - got, md, error);
    if (n <= 0) {
      if (n == 0)
        g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "body truncated at %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT, got,
                    want);
      EVP_MD_CTX_free(md);
      return FALSE;
    }
    got += (uint64_t)n;
  }
  unsigned int l = 32;
  EVP_DigestFinal_ex(md, sha256, &l);
  EVP_MD_CTX_free(md);
  *body_len = strcmp(method, "HEAD") == 0 ? (uint64_t)clen : got;
  return TRUE;
}

ValClientClose val_client_wait_close(ValClient *c, uint64_t *dropped)
{
  uint64_t n = c->len;
  c->len = 0;
  ValClientClose how = VAL_CLIENT_CLOSED_ERROR;
  char tmp[16384];
  for (;;) {
    if (c->ssl) {
      ERR_clear_error();
      errno = 0;
      int r = SSL_read(c->ssl, tmp, sizeof tmp);
      if (r > 0) {
        n += (uint64_t)r;
        continue;
      }
      int e = SSL_get_error(c->ssl, r);
      unsigned long reason = ERR_GET_REASON(ERR_peek_error());
      if (e == SSL_ERROR_ZERO_RETURN)
        how = VAL_CLIENT_CLOSED_CLEAN;
      else if ((e == SSL_ERROR_SYSCALL && errno == 0) || (e == SSL_ERROR_SSL && reason == SSL_R_UNEXPECTED_EOF_WHILE_READING))
        how = VAL_CLIENT_CLOSED_NO_NOTIFY;
      else if (errno == ECONNRESET)
        how = VAL_CLIENT_CLOSED_RESET;
      ERR_clear_error();
      break;
    }
    ssize_t r = recv(c->fd, tmp, sizeof tmp, 0);
    if (r > 0) {
      n += (uint64_t)r;
      continue;
    }
    if (r < 0 && errno == EINTR) continue;
    how = r == 0 ? VAL_CLIENT_CLOSED_CLEAN : errno == ECONNRESET ? VAL_CLIENT_CLOSED_RESET : VAL_CLIENT_CLOSED_ERROR;
    break;
  }
  if (dropped) *dropped = n;
  return how;
}

void val_client_abort(ValClient *c, gboolean rst)
{
  if (!c) return;
  if (c->fd >= 0) {
    if (rst) {
      struct linger lg = { .l_onoff = 1, .l_linger = 0 };
      setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    }
    close(c->fd);
  }
  SSL_free(c->ssl);
  ERR_clear_error();
  g_free(c);
}

void val_client_close(ValClient *c)
{
  if (!c) return;
  if (c->ssl) {
    ERR_clear_error();
    SSL_shutdown(c->ssl);
  }
  val_client_abort(c, FALSE);
}

gboolean val_sha256_file_range(const char *path, uint64_t first, uint64_t len, unsigned char out[32], GError **error)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "%s: %s", path, g_strerror(errno));
    return FALSE;
  }
  EVP_MD_CTX *md = EVP_MD_CTX_new();
  EVP_DigestInit_ex(md, EVP_sha256(), NULL);
  char *buf = g_malloc(1 << 20);
  static const char zeros[65536];
  gboolean ok = TRUE;
  uint64_t done = 0;
  while (done < len && ok) {
    uint64_t pos = first + done;
    /* holes of a sparse file read as zeros: hash them without reading */
    off_t data = lseek(fd, (off_t)pos, SEEK_DATA);
    uint64_t hole_end = data < 0 ? first + len : MIN((uint64_t)data, first + len);
    while (pos < hole_end) {
      size_t n = (size_t)MIN((uint64_t)sizeof zeros, hole_end - pos);
      EVP_DigestUpdate(md, zeros, n);
      pos += n;
    }
    done = pos - first;
    if (done >= len) break;
    off_t hole = lseek(fd, (off_t)pos, SEEK_HOLE);
    uint64_t data_end = hole < 0 ? first + len : MIN((uint64_t)hole, first + len);
    while (pos < data_end) {
      ssize_t n = pread(fd, buf, (size_t)MIN((uint64_t)1 << 20, data_end - pos), (off_t)pos);
      if (n <= 0) {
        g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "%s: short read", path);
        ok = FALSE;
        break;
      }
      EVP_DigestUpdate(md, buf, (size_t)n);
      pos += (uint64_t)n;
    }
    done = pos - first;
  }
  unsigned int l = 32;
  EVP_DigestFinal_ex(md, out, &l);
  EVP_MD_CTX_free(md);
  g_free(buf);
  close(fd);
  return ok;
}
