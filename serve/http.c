/* serve/http.c — the HTTP/1.1 subset the validation server speaks.
 *
 * Requests: GET or HEAD, origin-form or absolute-form target (the authority is
 * dropped), query stripped, path percent-decoded (an encoded NUL is rejected;
 * "%2e%2e" becomes ".." and is refused later by path resolution), headers
 * Connection, Range, Content-Length/Transfer-Encoding (a request body is refused).
 * Refused with 400, as RFC 9112 asks of a server (request smuggling shapes): whitespace
 * between a field name and its colon or any other non-token name, a bare CR, a NUL anywhere
 * in the head, an HTTP/1.1 request without Host, any request with two Host lines. Empty
 * lines before the request-line are ignored (§2.2).
 * Ranges: one "bytes=" range (first-last, first-, -suffix) per RFC 9110 §14,
 * whatever the length of the header value (spaces around it are trimmed);
 * several ranges are ignored (full 200 response), an unsatisfiable one is 416.
 * Responses to files carry ETag and Last-Modified (val_http_format_validators).
 * Keep-alive: default on for HTTP/1.1, off for 1.0, "Connection:" overrides.
 * Left out: chunked bodies, multipart/byteranges, conditional requests, caching.
 */
#include "serve/http.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *find_head_end(const char *buf, size_t len, size_t *end)
{
  for (size_t i = 0; i + 1 < len; i++) {
    if (buf[i] != '\n') continue;
    if (buf[i + 1] == '\n') {
      *end = i + 2;
      return buf;
    }
    if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n') {
      *end = i + 3;
      return buf;
    }
  }
  return NULL;
}

static int hexval(char c)
{
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Decodes %XX escapes of in[0..n) into out (NUL-terminated, at most cap-1 bytes).
 * FALSE for a bad escape, an encoded NUL or '/' ("%2F"), or when out is too small. */
static gboolean val_http_percent_decode(const char *in, size_t n, char *out, size_t cap)
{
  size_t o = 0;
  for (size_t i = 0; i < n; i++) {
    char c = in[i];
    if (c == '%') {
      if (i + 2 >= n) return FALSE;
      int h = hexval(in[i + 1]), l = hexval(in[i + 2]);
      if (h < 0 || l < 0) return FALSE;
      c = (char)(h * 16 + l);
      i += 2;
    }
    if (c == '\0') return FALSE;
    if (o + 1 >= cap) return FALSE;
    out[o++] = c;
  }
  out[o] = '\0';
  return TRUE;
}

/* Trims spaces/tabs of [*s, *e). */
static void trim(const char **s, const char **e)
{
  while (*s < *e && (**s == ' ' || **s == '\t')) (*s)++;
  while (*e > *s && ((*e)[-1] == ' ' || (*e)[-1] == '\t' || (*e)[-1] == '\r')) (*e)--;
}

static gboolean token_in(const char *s, const char *e, const char *tok)
{
  /* comma-separated list contains tok (case-insensitive) */
  size_t tl = strlen(tok);
  while (s < e) {
    const char *c = memchr(s, ',', (size_t)(e - s));
    const char *ie = c ? c : e, *is = s;
    trim(&is, &ie);
    if ((size_t)(ie - is) == tl && g_ascii_strncasecmp(is, tok, tl) == 0) return TRUE;
    s = c ? c + 1 : e;
  }
  return FALSE;
}

/* Whether [s, e) is a field name: 1*tchar (RFC 9110 §5.6.2). */
static gboolean is_token(const char *s, const char *e)
{
  if (s == e) return FALSE;
  for (; s < e; s++)
    if (!g_ascii_isalnum(*s) && !strchr("!#$%&'*+-.^_`|~", *s)) return FALSE;
  return TRUE;
}

int val_http_parse_request(const char *buf, size_t len, ValHttpRequest *req, size_t *consumed)
{
  /* leading empty lines before the request-line are ignored (RFC 9112 §2.2): skipped before
   * looking for the blank line that ends the head, which they would otherwise be */
  size_t lead = 0;
  for (;;) {
    if (lead < len && buf[lead] == '\n')
      lead++;
    else if (lead + 1 < len && buf[lead] == '\r' && buf[lead + 1] == '\n')
      lead += 2;
    else
      break;
    if (lead >= VAL_HTTP_MAX_HEADER) return -431;
  }
  if (lead == len || (buf[lead] == '\r' && lead + 1 == len)) return 0; /* only empty lines yet */
  size_t end = 0;
  size_t scan = MIN(len, (size_t)VAL_HTTP_MAX_HEADER);
  if (lead >= scan || !find_head_end(buf + lead, scan - lead, &end)) return len >= VAL_HTTP_MAX_HEADER ? -431 : 0;
  end += lead;
  memset(req, 0, sizeof *req);
  *consumed = end;
  const char *p = buf + lead, *lim = buf + end;
  /* request smuggling shapes (RFC 9112 §2.2, RFC 9110 §5.5): a NUL anywhere in the head, or a
   * bare CR (one not followed by LF) */
  if (memchr(p, '\0', (size_t)(lim - p))) return -400;
  for (const char *cr = p; (cr = memchr(cr, '\r', (size_t)(lim - cr))); cr++)
    if (cr + 1 >= lim || cr[1] != '\n') return -400;
  const char *eol = memchr(p, '\n', (size_t)(lim - p));
  if (!eol) return -400;
  const char *le = eol;
  if (le > p && le[-1] == '\r') le--;
  const char *sp1 = memchr(p, ' ', (size_t)(le - p));
  if (!sp1) return -400;
  const char *tgt = sp1 + 1;
  const char *sp2 = memchr(tgt, ' ', (size_t)(le - tgt));
  if (!sp2 || sp2 == tgt) return -400;
  const char *ver = sp2 + 1;
  if ((size_t)(le - ver) != 8 || strncmp(ver, "HTTP/1.", 7) != 0) {
    if ((size_t)(le - ver) >= 5 && strncmp(ver, "HTTP/", 5) == 0) return -505;
    return -400;
  }
  if (ver[7] != '0' && ver[7] != '1') return -505;
  req->minor = ver[7] - '0';
  size_t ml = (size_t)(sp1 - p);
  if (ml == 3 && !strncmp(p, "GET", 3))
    req->head = FALSE;
  else if (ml == 4 && !strncmp(p, "HEAD", 4))
    req->head = TRUE;
  else
    return -405;

  /* target: absolute-form -> path */
  const char *ts = tgt, *te = sp2;
  if ((size_t)(te - ts) > 7 && (g_ascii_strncasecmp(ts, "http://", 7) == 0 || g_ascii_strncasecmp(ts, "https://", 8) == 0)) {
    const char *a = memchr(ts, ':', (size_t)(te - ts)) + 3;
    const char *sl = memchr(a, '/', (size_t)(te - a));
    if (!sl) return -400;
    ts = sl;
  }
  if (*ts != '/') return -400;
  const char *q = memchr(ts, '?', (size_t)(te - ts));
  if (q) te = q;
  const char *h = memchr(ts, '#', (size_t)(te - ts));
  if (h) te = h;
  if ((size_t)(te - ts) >= VAL_HTTP_MAX_PATH) return -414;
  if (!val_http_percent_decode(ts, (size_t)(te - ts), req->path, sizeof req->path)) return -400;

  req->keep_alive = req->minor == 1;
  int hosts = 0;
  /* header fields */
  const char *line = eol + 1;
  while (line < lim) {
    const char *nl = memchr(line, '\n', (size_t)(lim - line));
    if (!nl) break;
    const char *ee = nl;
    if (ee > line && ee[-1] == '\r') ee--;
    if (ee == line) break; /* blank line */
    const char *colon = memchr(line, ':', (size_t)(ee - line));
    /* a field name is a token: no whitespace before the colon (RFC 9112 §5.1: 400), no line
     * folding (a line starting with whitespace, §5.2) */
    if (!colon || !is_token(line, colon)) return -400;
    size_t nlen = (size_t)(colon - line);
    const char *vs = colon + 1, *ve = ee;
    trim(&vs, &ve);
    if (nlen == 4 && !g_ascii_strncasecmp(line, "Host", 4)) {
      if (hosts++) return -400; /* more than one Host field line (RFC 9112 §3.2) */
    } else if (nlen == 10 && !g_ascii_strncasecmp(line, "Connection", 10)) {
      if (token_in(vs, ve, "close"))
        req->keep_alive = FALSE;
      else if (token_in(vs, ve, "keep-alive"))
        req->keep_alive = TRUE;
    } else if (nlen == 5 && !g_ascii_strncasecmp(line, "Range", 5)) {
      /* the head is at most VAL_HTTP_MAX_HEADER bytes, so the value always fits */
      size_t rl = MIN((size_t)(ve - vs), sizeof req->range - 1);
      req->has_range = TRUE;
      memcpy(req->range, vs, rl);
      req->range[rl] = '\0';
    } else if (nlen == 17 && !g_ascii_strncasecmp(line, "Transfer-Encoding", 17)) {
      return -501;
    } else if (nlen == 14 && !g_ascii_strncasecmp(line, "Content-Length", 14)) {
      /* 1*DIGIT (RFC 9110 §8.6): empty or not a number is invalid; a body is not taken */
      if (vs == ve) return -400;
      gboolean body = FALSE;
      for (const char *c = vs; c < ve; c++) {
        if (*c < '0' || *c > '9') return -400;
        body |= *c != '0';
      }
      if (body) return -501;
    }
    line = nl + 1;
  }
  if (req->minor == 1 && hosts == 0) return -400; /* an HTTP/1.1 request without Host (RFC 9112 §3.2) */
  return 1;
}

static gboolean parse_u64(const char *s, const char *e, uint64_t *out)
{
  if (s == e || (size_t)(e - s) > 20) return FALSE;
  uint64_t v = 0;
  for (const char *c = s; c < e; c++) {
    if (*c < '0' || *c > '9') return FALSE;
    uint64_t d = (uint64_t)(*c - '0');
    if (v > (UINT64_MAX - d) / 10) return FALSE;
    v = v * 10 + d;
  }
  *out = v;
  return TRUE;
}

int val_http_resolve_range(const char *value, uint64_t size, uint64_t *first, uint64_t *last)
{
  const char *s = value, *e = value + strlen(value);
  trim(&s, &e);
  if ((size_t)(e - s) < 6 || g_ascii_strncasecmp(s, "bytes=", 6) != 0) return 200;
  s += 6;
  if (memchr(s, ',', (size_t)(e - s))) return 200; /* multiple ranges: ignored */
  trim(&s, &e);
  const char *dash = memchr(s, '-', (size_t)(e - s));
  if (!dash) return 200;
  const char *as = s, *ae = dash, *bs = dash + 1, *be = e;
  trim(&as, &ae);
  trim(&bs, &be);
  uint64_t a = 0, b = 0;
  if (as == ae) { /* suffix range */
    if (!parse_u64(bs, be, &b)) return 200;
    if (b == 0 || size == 0) return 416;
    *first = size - MIN(b, size);
    *last = size - 1;
    return 206;
  }
  if (!parse_u64(as, ae, &a)) return 200;
  if (bs == be)
    b = UINT64_MAX;
  else if (!parse_u64(bs, be, &b))
    return 200;
  if (b < a) return 200;
  if (a >= size) return 416;
  *first = a;
  *last = MIN(b, size - 1);
  return 206;
}

/* Reason phrase ("OK", "Not Found", ...). */
static const char *val_http_reason(int status)
{
  switch (status) {
    case 200: return "OK";
    case 206: return "Partial Content";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 414: return "URI Too Long";
    case 416: return "Range Not Satisfiable";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Error";
  }
}

size_t val_http_error_body(int status, char *out, size_t cap)
{
  int n = snprintf(out, cap, "%d %s\n", status, val_http_reason(status));
  return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

size_t val_http_format_validators(char *out, size_t cap, uint64_t size, int64_t mtime_s, long mtime_ns, uint64_t inode)
{
  static const char *const days[] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
  static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
  g_autoptr(GDateTime) t = g_date_time_new_from_unix_utc(mtime_s);
  if (!t) return 0;
  int n = snprintf(out, cap,
                   "ETag: \"%" PRIx64 "-%" PRIx64 ".%lx-%" PRIx64 "\"\r\n"
                   "Last-Modified: %s, %02d %s %04d %02d:%02d:%02d GMT\r\n",
                   size, (uint64_t)mtime_s, (unsigned long)mtime_ns, inode, days[g_date_time_get_day_of_week(t) % 7],
                   g_date_time_get_day_of_month(t), months[g_date_time_get_month(t) - 1], g_date_time_get_year(t),
                   g_date_time_get_hour(t), g_date_time_get_minute(t), g_date_time_get_second(t));
  return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

size_t val_http_format_head(char *out, size_t cap, int status, uint64_t size, uint64_t first, uint64_t last, gboolean keep_alive,
                            const char *fields)
{
  int n;
  const char *conn = keep_alive ? "keep-alive" : "close";
  if (status == 200 || status == 206) {
    uint64_t blen = size == 0 ? 0 : last - first + 1;
    char cr[96] = "";
    if (status == 206) snprintf(cr, sizeof cr, "Content-Range: bytes %" PRIu64 "-%" PRIu64 "/%" PRIu64 "\r\n", first, last, size);
    n = snprintf(out, cap,
                 "HTTP/1.1 %d %s\r\nServer: ocasim-validate\r\nContent-Type: application/octet-stream\r\n"
                 "Accept-Ranges: bytes\r\n%s%sContent-Length: %" PRIu64 "\r\nConnection: %s\r\n\r\n",
                 status, val_http_reason(status), fields ? fields : "", cr, blen, conn);
  } else {
    char body[64];
    size_t bl = val_http_error_body(status, body, sizeof body);
    char cr[64] = "";
    if (status == 416) snprintf(cr, sizeof cr, "Content-Range: bytes */%" PRIu64 "\r\n", size);
    if (status == 405) g_strlcpy(cr, "Allow: GET, HEAD\r\n", sizeof cr);
    n = snprintf(out, cap,
                 "HTTP/1.1 %d %s\r\nServer: ocasim-validate\r\nContent-Type: text/plain\r\n%s%s"
                 "Content-Length: %zu\r\nConnection: %s\r\n\r\n",
                 status, val_http_reason(status), fields ? fields : "", cr, bl, conn);
  }
  return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

int val_http_parse_response(const char *buf, size_t len, int *status, int64_t *content_length, gboolean *close, size_t *consumed)
{
  size_t end = 0;
  if (!find_head_end(buf, MIN(len, (size_t)VAL_HTTP_MAX_HEADER), &end)) return len >= VAL_HTTP_MAX_HEADER ? -1 : 0;
  *consumed = end;
  *content_length = -1;
  *close = FALSE;
  const char *lim = buf + end;
  if (end < 12 || strncmp(buf, "HTTP/1.", 7) != 0 || buf[8] != ' ') return -1;
  if (buf[7] == '0') *close = TRUE;
  int st = 0;
  for (int i = 9; i < 12; i++) {
    if (buf[i] < '0' || buf[i] > '9') return -1;
    st = st * 10 + (buf[i] - '0');
  }
  *status = st;
  const char *line = memchr(buf, '\n', end);
  line = line ? line + 1 : lim;
  while (line < lim) {
    const char *nl = memchr(line, '\n', (size_t)(lim - line));
    if (!nl) break;
    const char *ee = nl;
    if (ee > line && ee[-1] == '\r') ee--;
    if (ee == line) break;
    const char *colon = memchr(line, ':', (size_t)(ee - line));
    if (!colon) return -1;
    size_t nlen = (size_t)(colon - line);
    const char *vs = colon + 1, *ve = ee;
    trim(&vs, &ve);
    if (nlen == 14 && !g_ascii_strncasecmp(line, "Content-Length", 14)) {
      uint64_t v;
      if (!parse_u64(vs, ve, &v) || v > INT64_MAX) return -1;
      *content_length = (int64_t)v;
    } else if (nlen == 10 && !g_ascii_strncasecmp(line, "Connection", 10)) {
      if (token_in(vs, ve, "close"))
        *close = TRUE;
      else if (token_in(vs, ve, "keep-alive"))
        *close = FALSE;
    }
    line = nl + 1;
  }
  return 1;
}
