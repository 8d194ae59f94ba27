/* validate/ktlscase.c — scripted one-connection cases of the kTLS serving path (issue 29;
 * ../shared/reference/ktls_bug_cases.md BC-03/04 reset, BC-06/09/11 EAGAIN, BC-12 truncation,
 * BC-14 KeyUpdate, BC-21 close_notify).  Each case drives one blocking connection
 * (serve/client.c), compares every body with the file's SHA-256 and says how the connection
 * ended; what the server counted (aborts, truncations, sends that met a full socket, KeyUpdate
 * closes) is read from its summary by the caller (scripts/ktls/checks.sh).
 */
#include "validate/ktlscase.h"

#include <errno.h>
#include <openssl/evp.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "serve/client.h"
#include "serve/tls.h"
#include "serve/util.h"

/* The client's receive buffer in the reset, truncate and slow cases, bytes (SO_RCVBUF, which the
 * kernel doubles): small, so that the server's sends meet a full socket. Assumed. */
#define CASE_RCVBUF_BYTES 4096
/* Body bytes read before the reset / truncation (64 KiB, 256 KiB: a few 16 KiB TLS records and
 * pages into the body), the truncated length (1 MiB) and the slow reader's steps (4 KiB with a
 * 2 ms pause, over the first 1 MiB). Assumed. */
#define CASE_RESET_AFTER_BYTES    65536
#define CASE_TRUNCATE_AFTER_BYTES 262144
#define CASE_TRUNCATE_TO_BYTES    1048576
#define CASE_SLOW_STEP_BYTES      4096
#define CASE_SLOW_PAUSE_NS        2000000
#define CASE_SLOW_SPAN_BYTES      1048576
#define CASE_DEFAULT_TIMEOUT_S    20

static const char *const case_names[VAL_CASE_COUNT] = { "keyupdate", "reset", "truncate", "close-notify", "slow" };

const char *val_case_name(ValCase k)
{
  return k >= 0 && k < VAL_CASE_COUNT ? case_names[k] : "?";
}

gboolean val_case_parse(const char *s, ValCase *out)
{
  for (int i = 0; i < VAL_CASE_COUNT; i++)
    if (!strcmp(s, case_names[i])) {
      *out = (ValCase)i;
      return TRUE;
    }
  return FALSE;
}

static double tmo(const ValCaseConfig *cfg)
{
  return cfg->timeout_s > 0 ? cfg->timeout_s : CASE_DEFAULT_TIMEOUT_S;
}

/* Connects and sends GET path (with extra header lines), reads the head: 200 with a length. */
static ValClient *open_get(const ValCaseConfig *cfg, int rcvbuf, const char *range, const char *extra, int64_t *clen,
                           GString *rep)
{
  g_autoptr(GError) err = NULL;
  ValClient *c = val_client_connect_opts(cfg->host ? cfg->host : "127.0.0.1", cfg->port, cfg->ctx, tmo(cfg), NULL, rcvbuf, &err);
  if (!c) {
    g_string_append_printf(rep, "connect: %s", err->message);
    return NULL;
  }
  g_autofree char *req = g_strdup_printf("GET %s HTTP/1.1\r\nHost: localhost\r\n%s%s%s%s\r\n", cfg->path, range ? "Range: " : "",
                                         range ? range : "", range ? "\r\n" : "", extra ? extra : "");
  int status = 0;
  gboolean close_hdr = FALSE;
  if (!val_client_send(c, req, strlen(req), &err) || !val_client_read_head(c, &status, clen, &close_hdr, &err)) {
    g_string_append_printf(rep, "request: %s", err->message);
    val_client_abort(c, FALSE);
    return NULL;
  }
  if (status != (range ? 206 : 200) || *clen < 0) {
    g_string_append_printf(rep, "status %d, Content-Length %" G_GINT64_FORMAT, status, *clen);
    val_client_abort(c, FALSE);
    return NULL;
  }
  return c;
}

/* Reads body bytes until *got reaches want, feeding md; FALSE (message in *err) on an error or EOF. */
static gboolean read_to(ValClient *c, uint64_t want, uint64_t *got, EVP_MD_CTX *md, int64_t step_pause_ns, uint64_t pause_until,
                        GError **err)
{
  while (*got < want) {
    uint64_t ask = want - *got;
    if (step_pause_ns > 0 && *got < pause_until) ask = MIN(ask, (uint64_t)CASE_SLOW_STEP_BYTES);
    gssize n = val_client_read_body(c, ask, md, err);
    if (n < 0) return FALSE;
    if (n == 0) {
      g_set_error(err, VAL_ERROR, VAL_ERROR_FAILED,
                  "the connection ended at %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " bytes", *got, want);
      return FALSE;
    }
    *got += (uint64_t)n;
    if (step_pause_ns > 0 && *got < pause_until) val_sleep_ns(step_pause_ns);
  }
  return TRUE;
}

static gboolean sha_matches(EVP_MD_CTX *md, const char *local, uint64_t first, uint64_t len)
{
  unsigned char got[32], want[32];
  unsigned int l = 32;
  EVP_DigestFinal_ex(md, got, &l);
  return val_sha256_file_range(local, first, len, want, NULL) && memcmp(got, want, 32) == 0;
}

static EVP_MD_CTX *md_new(void)
{
  EVP_MD_CTX *md = EVP_MD_CTX_new();
  EVP_DigestInit_ex(md, EVP_sha256(), NULL);
  return md;
}

static gboolean case_keyupdate(const ValCaseConfig *cfg, uint64_t size, GString *rep)
{
  int64_t clen;
  ValClient *c = open_get(cfg, 0, NULL, NULL, &clen, rep);
  if (!c) return FALSE;
  SSL *ssl = val_client_ssl(c);
  if (!ssl || SSL_version(ssl) != TLS1_3_VERSION) {
    g_string_append(rep, "KeyUpdate needs TLS 1.3 (--tls-version 1.3)");
    val_client_abort(c, FALSE);
    return FALSE;
  }
  g_autoptr(GError) err = NULL;
  EVP_MD_CTX *md = md_new();
  uint64_t got = 0;
  gboolean ok = read_to(c, (uint64_t)clen / 2, &got, md, 0, 0, &err);
  if (ok && (SSL_key_update(ssl, SSL_KEY_UPDATE_REQUESTED) != 1 || SSL_do_handshake(ssl) != 1)) {
    g_autofree char *m = val_tls_error_string();
    g_string_append_printf(rep, "the client could not send KeyUpdate: %s", m);
    EVP_MD_CTX_free(md);
    val_client_abort(c, FALSE);
    return FALSE;
  }
  if (ok) ok = read_to(c, (uint64_t)clen, &got, md, 0, 0, &err);
  gboolean sha_ok = ok && (uint64_t)clen == size && sha_matches(md, cfg->local, 0, size);
  EVP_MD_CTX_free(md);
  if (!sha_ok) {
    g_string_append_printf(rep, "first body (KeyUpdate sent half way) %s",
                           err ? err->message : "does not match the file's SHA-256");
    val_client_abort(c, FALSE);
    return FALSE;
  }
  g_string_append_printf(rep,
                         "first body %" G_GUINT64_FORMAT " bytes, SHA-256 right (KeyUpdate sent after %" G_GUINT64_FORMAT
                         " bytes); second request: ",
                         size, (uint64_t)clen / 2);
  /* the second response is the first the server writes after it read the KeyUpdate */
  const char *req = "GET %s HTTP/1.1\r\nHost: localhost\r\nRange: bytes=0-65535\r\n\r\n";
  g_autofree char *r2 = g_strdup_printf(req, cfg->path);
  int status = 0;
  int64_t l2 = -1;
  gboolean cl = FALSE;
  uint64_t want2 = MIN(size, (uint64_t)65536), got2 = 0;
  md = md_new();
  gboolean ok2 = val_client_send(c, r2, strlen(r2), &err) && val_client_read_head(c, &status, &l2, &cl, &err) && status == 206 &&
                 read_to(c, want2, &got2, md, 0, 0, &err);
  gboolean sha2 = ok2 && sha_matches(md, cfg->local, 0, want2);
  EVP_MD_CTX_free(md);
  gboolean pass;
  if (ok2 && sha2) {
    g_string_append(rep, "answered, SHA-256 right: both sides moved to the new keys");
    pass = TRUE;
  } else if (ok2) {
    g_string_append(rep, "answered with wrong bytes");
    pass = FALSE;
  } else {
    const char *m = err ? err->message : "";
    gboolean stale = strstr(m, "bad record mac") || strstr(m, "decrypt");
    gboolean hung = strstr(m, "timed out") || strstr(m, "temporarily unavailable");
    if (stale)
      g_string_append_printf(rep, "STALE KEY: a record under the old key after the KeyUpdate (%s)", m);
    else if (hung)
      g_string_append_printf(rep, "no answer and no close within %g s (%s)", tmo(cfg), m);
    else
      g_string_append_printf(rep, "the server closed the connection without a record under the old key (%s)", m[0] ? m : "EOF");
    pass = !stale && !hung;
  }
  val_client_close(c); /* close_notify where the connection still stands */
  return pass;
}

static gboolean case_reset(const ValCaseConfig *cfg, uint64_t size, GString *rep)
{
  int64_t clen;
  ValClient *c = open_get(cfg, CASE_RCVBUF_BYTES, NULL, NULL, &clen, rep);
  if (!c) return FALSE;
  g_autoptr(GError) err = NULL;
  uint64_t got = 0, upto = MIN((uint64_t)CASE_RESET_AFTER_BYTES, size);
  if (!read_to(c, upto, &got, NULL, 0, 0, &err)) {
    g_string_append_printf(rep, "before the reset: %s", err->message);
    val_client_abort(c, FALSE);
    return FALSE;
  }
  val_client_abort(c, TRUE); /* SO_LINGER 0: RST with the server inside its send */
  int64_t t0 = val_now_ns();
  int64_t l2;
  ValClient *d = open_get(cfg, 0, "bytes=0-4095", NULL, &l2, rep);
  if (!d) return FALSE;
  EVP_MD_CTX *md = md_new();
  uint64_t g2 = 0, w2 = MIN(size, (uint64_t)4096);
  gboolean ok = read_to(d, w2, &g2, md, 0, 0, &err) && sha_matches(md, cfg->local, 0, w2);
  EVP_MD_CTX_free(md);
  val_client_close(d);
  g_string_append_printf(rep, "RST after %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " bytes; a new connection %s %.0f ms later",
                         got, size, ok ? "was served (SHA-256 right)" : "FAILED", (double)(val_now_ns() - t0) / 1e6);
  return ok;
}

static gboolean case_truncate(const ValCaseConfig *cfg, uint64_t size, GString *rep)
{
  if (size < 4 * (uint64_t)CASE_TRUNCATE_TO_BYTES) {
    g_string_append_printf(rep, "the file must be at least %d bytes", 4 * CASE_TRUNCATE_TO_BYTES);
    return FALSE;
  }
  int64_t clen;
  ValClient *c = open_get(cfg, CASE_RCVBUF_BYTES, NULL, NULL, &clen, rep);
  if (!c) return FALSE;
  g_autoptr(GError) err = NULL;
  uint64_t got = 0;
  if (!read_to(c, CASE_TRUNCATE_AFTER_BYTES, &got, NULL, 0, 0, &err)) {
    g_string_append_printf(rep, "before the truncation: %s", err->message);
    val_client_abort(c, FALSE);
    return FALSE;
  }
  if (truncate(cfg->local, CASE_TRUNCATE_TO_BYTES) != 0) {
    g_string_append_printf(rep, "truncate %s: %s", cfg->local, g_strerror(errno));
    val_client_abort(c, FALSE);
    return FALSE;
  }
  int64_t t0 = val_now_ns();
  g_clear_error(&err);
  read_to(c, (uint64_t)clen, &got, NULL, 0, 0, &err); /* until the server ends it */
  const char *m = err ? err->message : "";
  gboolean hung = strstr(m, "timed out") || strstr(m, "temporarily unavailable");
  SSL *ssl = val_client_ssl(c);
  gboolean notify = ssl && (SSL_get_shutdown(ssl) & SSL_RECEIVED_SHUTDOWN) != 0;
  val_client_abort(c, FALSE);
  g_string_append_printf(rep,
                         "truncated to %d bytes after %d were read; the connection ended %.0f ms later at %" G_GUINT64_FORMAT
                         " of %" G_GUINT64_FORMAT " bytes, %s (%s)",
                         CASE_TRUNCATE_TO_BYTES, CASE_TRUNCATE_AFTER_BYTES, (double)(val_now_ns() - t0) / 1e6, got,
                         (uint64_t)clen, notify ? "WITH a close_notify (looks complete)" : "without a close_notify",
                         m[0] ? m : "EOF");
  return !hung && !notify && got < (uint64_t)clen;
}

static gboolean case_close_notify(const ValCaseConfig *cfg, uint64_t size, GString *rep)
{
  int64_t clen;
  ValClient *c = open_get(cfg, 0, NULL, "Connection: close\r\n", &clen, rep);
  if (!c) return FALSE;
  g_autoptr(GError) err = NULL;
  EVP_MD_CTX *md = md_new();
  uint64_t got = 0;
  gboolean ok =
      read_to(c, (uint64_t)clen, &got, md, 0, 0, &err) && (uint64_t)clen == size && sha_matches(md, cfg->local, 0, size);
  EVP_MD_CTX_free(md);
  uint64_t extra = 0;
  ValClientClose how = ok ? val_client_wait_close(c, &extra) : VAL_CLIENT_CLOSED_ERROR;
  val_client_abort(c, FALSE);
  static const char *const hows[] = { "close_notify then EOF", "EOF without close_notify", "reset", "error or timeout" };
  g_string_append_printf(
      rep, "%" G_GUINT64_FORMAT " bytes, SHA-256 %s; the server ended with %s, %" G_GUINT64_FORMAT " bytes after the body", got,
      ok ? "right" : "WRONG", hows[how], extra);
  return ok && how == VAL_CLIENT_CLOSED_CLEAN && extra == 0;
}

static gboolean case_slow(const ValCaseConfig *cfg, uint64_t size, GString *rep)
{
  int64_t clen;
  ValClient *c = open_get(cfg, CASE_RCVBUF_BYTES, NULL, NULL, &clen, rep);
  if (!c) return FALSE;
  g_autoptr(GError) err = NULL;
  EVP_MD_CTX *md = md_new();
  uint64_t got = 0;
  int64_t t0 = val_now_ns();
  gboolean ok = read_to(c, (uint64_t)clen, &got, md, CASE_SLOW_PAUSE_NS, CASE_SLOW_SPAN_BYTES, &err) && (uint64_t)clen == size &&
                sha_matches(md, cfg->local, 0, size);
  EVP_MD_CTX_free(md);
  val_client_close(c);
  g_string_append_printf(rep,
                         "%" G_GUINT64_FORMAT
                         " bytes read through a %d-byte SO_RCVBUF, %d-byte steps %g ms apart over the first %d, in %.0f ms: %s",
                         got, CASE_RCVBUF_BYTES, CASE_SLOW_STEP_BYTES, CASE_SLOW_PAUSE_NS / 1e6, CASE_SLOW_SPAN_BYTES,
                         (double)(val_now_ns() - t0) / 1e6,
                         ok    ? "SHA-256 right"
                         : err ? err->message
                               : "SHA-256 WRONG");
  return ok;
}

gboolean val_case_run(ValCase k, const ValCaseConfig *cfg, GString *report)
{
  struct stat sb;
  g_string_append_printf(report, "%s: ", val_case_name(k));
  if (!cfg->local || stat(cfg->local, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    g_string_append_printf(report, "%s: not a regular file", cfg->local ? cfg->local : "(no local file)");
    return FALSE;
  }
  uint64_t size = (uint64_t)sb.st_size;
  switch (k) {
    case VAL_CASE_KEYUPDATE: return case_keyupdate(cfg, size, report);
    case VAL_CASE_RESET: return case_reset(cfg, size, report);
    case VAL_CASE_TRUNCATE: return case_truncate(cfg, size, report);
    case VAL_CASE_CLOSE_NOTIFY: return case_close_notify(cfg, size, report);
    case VAL_CASE_SLOW: return case_slow(cfg, size, report);
    default: break;
  }
  g_string_append(report, "unknown case");
  return FALSE;
}
