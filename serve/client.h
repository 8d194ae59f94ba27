/* serve/client.h — a blocking HTTP(S) client for one connection: what the
 * tests and `ocasim load --once` use to fetch, hash, abort or read slowly.
 */
#ifndef SERVE_CLIENT_H
#define SERVE_CLIENT_H

#include <glib.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef struct ValClient ValClient;

/* Connects to host:port (IPv4) and, with ctx non-NULL, completes a TLS handshake.
 * timeout_s bounds every later read/write (0: 30 s). */
ValClient *val_client_connect(const char *host, int port, SSL_CTX *ctx, double timeout_s, GError **error);
/* val_client_connect from the IPv4 address @source (NULL: any) with SO_RCVBUF @rcvbuf_bytes
 * (0: the kernel's autotuned default), so that tests can play several clients and bound what
 * the client's kernel buffers. */
ValClient *val_client_connect_opts(const char *host, int port, SSL_CTX *ctx, double timeout_s, const char *source,
                                   int rcvbuf_bytes, GError **error);
/* Sends len bytes (the whole buffer). */
gboolean val_client_send(ValClient *c, const void *data, size_t len, GError **error);
/* Reads a response head: status, Content-Length (-1 absent), Connection: close. */
gboolean val_client_read_head(ValClient *c, int *status, int64_t *content_length, gboolean *close, GError **error);
/* The ETag of the last response head read ("" when it had none). */
const char *val_client_etag(const ValClient *c);
/* Reads up to max body bytes, feeding md when non-NULL; returns bytes read (0 at
 * EOF), -1 on error.  Bytes left over after the head are returned first. */
gssize val_client_read_body(ValClient *c, uint64_t max, EVP_MD_CTX *md, GError **error);
/* GET (or HEAD) path with an optional Range value ("bytes=0-99"; NULL for none);
 * reads the whole body and returns status, body length and SHA-256. */
gboolean val_client_get(ValClient *c, const char *method, const char *path, const char *range, int *status, uint64_t *body_len,
                        unsigned char sha256[32], GError **error);
/* How the peer ended a connection (val_client_wait_close). */
typedef enum {
  VAL_CLIENT_CLOSED_CLEAN,     /* TLS close_notify, or a plain EOF */
  VAL_CLIENT_CLOSED_NO_NOTIFY, /* TLS: EOF without close_notify (a truncation attack looks the same) */
  VAL_CLIENT_CLOSED_RESET,     /* ECONNRESET */
  VAL_CLIENT_CLOSED_ERROR      /* timeout or another error */
} ValClientClose;
/* Reads and drops bytes (buffered ones first) until the peer closes; returns how, and the
 * bytes dropped in *dropped (NULL is fine).  Bounded by the connection's timeout. */
ValClientClose val_client_wait_close(ValClient *c, uint64_t *dropped);
/* Underlying socket. */
int val_client_fd(const ValClient *c);
/* The connection's SSL object (NULL for plain HTTP), e.g. to send a TLS 1.3 KeyUpdate. */
SSL *val_client_ssl(const ValClient *c);
/* Closes without a TLS close_notify; rst: send a TCP RST (SO_LINGER 0). */
void val_client_abort(ValClient *c, gboolean rst);
/* Orderly close (close_notify when TLS). NULL is fine. */
void val_client_close(ValClient *c);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ValClient, val_client_close)

/* SHA-256 of bytes [first, first+len) of a file (pread), for expected bodies. */
gboolean val_sha256_file_range(const char *path, uint64_t first, uint64_t len, unsigned char out[32], GError **error);

G_END_DECLS
#endif
