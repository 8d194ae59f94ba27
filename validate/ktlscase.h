/* validate/ktlscase.h — scripted one-connection cases of the kTLS serving path that kernels and
 * TLS libraries have got wrong (ktls_bug_cases.md): `ocasim load --case NAME`, run against the
 * real kernel TLS by scripts/ktls/checks.sh and against the user-space path by the tests.
 */
#ifndef OCASIM_VALIDATE_KTLSCASE_H
#define OCASIM_VALIDATE_KTLSCASE_H

#include <glib.h>
#include <openssl/ssl.h>

G_BEGIN_DECLS

typedef enum {
  VAL_CASE_KEYUPDATE,    /* TLS 1.3 KeyUpdate(update_requested) from the client mid-body, then a second request */
  VAL_CASE_RESET,        /* the client resets (RST) mid-body; a new connection must be served at once */
  VAL_CASE_TRUNCATE,     /* the file is truncated while it is being sent */
  VAL_CASE_CLOSE_NOTIFY, /* Connection: close: the body, then close_notify */
  VAL_CASE_SLOW,         /* a small receive buffer and slow reads: the server meets a full socket (EAGAIN) */
  VAL_CASE_COUNT
} ValCase;

/* "keyupdate", "reset", "truncate", "close-notify", "slow". */
const char *val_case_name(ValCase k);
/* Parses a name as printed by val_case_name; FALSE for an unknown one. */
gboolean val_case_parse(const char *s, ValCase *out);

typedef struct {
  const char *host; /* IPv4, default 127.0.0.1 */
  int port;
  SSL_CTX *ctx;      /* client context (keyupdate needs TLS 1.3); NULL: plain HTTP */
  const char *path;  /* request path of a large file (truncate: at least 4 MiB) */
  const char *local; /* the server's file at that path: the expected bytes; truncate shortens it */
  double timeout_s;  /* bound on every read and write, s (0: 20) */
} ValCaseConfig;

/* Runs case k once.  Returns TRUE when the server behaved as the case requires, FALSE
 * otherwise; either way appends one line to @report saying what was seen (bytes, SHA-256, how
 * the connection ended).  Every step is bounded by timeout_s: a server that hangs fails the case. */
gboolean val_case_run(ValCase k, const ValCaseConfig *cfg, GString *report);

G_END_DECLS
#endif
