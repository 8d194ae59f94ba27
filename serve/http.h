/* serve/http.h — minimal HTTP/1.1 request parsing and response headers for the
 * validation file server (GET/HEAD, single byte range, keep-alive).
 */
#ifndef SERVE_HTTP_H
#define SERVE_HTTP_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

G_BEGIN_DECLS

#define VAL_HTTP_MAX_HEADER 8192 /* request head limit, bytes (431 beyond) */
#define VAL_HTTP_MAX_PATH   4096

typedef struct {
  gboolean head;                /* HEAD (else GET) */
  int minor;                    /* HTTP/1.<minor> */
  gboolean keep_alive;          /* after Connection: header and version defaults */
  char path[VAL_HTTP_MAX_PATH]; /* percent-decoded path, starts with '/', query stripped */
  gboolean has_range;
  char range[VAL_HTTP_MAX_HEADER]; /* raw Range header value, whole (whatever its length) */
} ValHttpRequest;

/* Parses one request head from buf[0..len).  Returns 1 and sets *consumed (bytes
 * of the head, including the blank line) when complete, 0 when more bytes are
 * needed, or a negative HTTP status on error: -400 malformed (also an empty or
 * non-numeric Content-Length, RFC 9110 §8.6; whitespace before a field's colon, a bare CR,
 * a NUL, a missing (HTTP/1.1) or doubled Host, RFC 9112 §2.2, §3.2, §5.1; leading empty lines
 * are skipped and counted in *consumed), -405 method other than GET/HEAD,
 * -414 path too long, -431 head too large, -501 a request body
 * (Transfer-Encoding or non-zero Content-Length), -505 not HTTP/1.x. */
int val_http_parse_request(const char *buf, size_t len, ValHttpRequest *req, size_t *consumed);

/* Resolves a Range header value against a file of `size` bytes: 206 with
 * [*first, *last] inclusive for one satisfiable range, 416 when unsatisfiable,
 * 200 when the value is not a single bytes range (the range is then ignored,
 * which RFC 9110 allows). */
int val_http_resolve_range(const char *value, uint64_t size, uint64_t *first, uint64_t *last);

/* Formats a response head into out (cap bytes); returns its length (0 if it does
 * not fit).  status 200/206 describe a body of [first, last] of a file of `size`
 * bytes (body length 0 when size is 0); other statuses get a short text body.
 * fields: extra header lines, each ending in CRLF (NULL: none), e.g. from
 * val_http_format_validators(). */
size_t val_http_format_head(char *out, size_t cap, int status, uint64_t size, uint64_t first, uint64_t last, gboolean keep_alive,
                            const char *fields);

/* Formats the validators of a file (RFC 9110 §8.8) into out (cap bytes, 128 is
 * enough): "ETag: \"<size>-<mtime s>.<mtime ns>-<inode>\"\r\n" in hex, and
 * "Last-Modified: <IMF-fixdate>\r\n".  The ETag changes whenever the file is
 * rewritten (its mtime moves), so a client can tell a body overwritten in place
 * during a send from the one it asked for.  Returns the length (0 if it does not fit). */
size_t val_http_format_validators(char *out, size_t cap, uint64_t size, int64_t mtime_s, long mtime_ns, uint64_t inode);

/* Body length of an error response formatted by val_http_format_head. */
size_t val_http_error_body(int status, char *out, size_t cap);

/* Parses a response head (client side): status, Content-Length (-1 if absent),
 * Connection: close.  Returns 1 complete, 0 need more, -1 malformed. */
int val_http_parse_response(const char *buf, size_t len, int *status, int64_t *content_length, gboolean *close, size_t *consumed);

G_END_DECLS
#endif
