/* cli/cmd_load.c — `ocasim load`: the validation load generator on its own.
 * Fetches --path (repeatable) over many keep-alive connections; with --root the
 * expected length and SHA-256 of every body come from the local files, else the
 * length comes from a HEAD request and only the length is checked, unless --sha256 gives
 * each path's expected digest (what `ocasim validate --clients` passes to a remote client that
 * has no copy of the files).  --json prints the counters as one JSON object.  A load in which
 * no response completed exits 1 with a message and prints no rate (--json: its counters still). */
#include <signal.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "serve/client.h"
#include "validate/ktlscase.h"
#include "serve/loadgen.h"
#include "validate/remote.h"
#include "serve/server.h"
#include "serve/util.h"

static gboolean parse_range(const char *s, uint64_t *first, uint64_t *last)
{
  char *end;
  guint64 a = g_ascii_strtoull(s, &end, 10);
  if (end == s || *end != '-') return FALSE;
  const char *b = end + 1;
  guint64 c = g_ascii_strtoull(b, &end, 10);
  if (end == b || *end || c < a) return FALSE;
  *first = a;
  *last = c;
  return TRUE;
}

/* Defaults of `ocasim load`: connections and run time (s), assumed (a short loopback run);
 * the cap on a --requests run (s, an hour; assumed). Option limits: a TCP port's range, and
 * connections and threads far above one host's (assumed). */
#define LOAD_DEFAULT_CONNECTIONS 16
#define LOAD_DEFAULT_DURATION_S  10
#define LOAD_COUNT_MODE_LIMIT_S  3600
#define LOAD_MAX_PORT            65535
#define LOAD_MAX_CONNECTIONS     1000000
#define LOAD_MAX_THREADS         1024

int cmd_load(int argc, char **argv)
{
  g_autofree char *host = NULL, *root = NULL, *range = NULL, *ver_s = NULL, *cipher_s = NULL, *case_s = NULL;
  g_auto(GStrv) paths = NULL, shas = NULL;
  gboolean json = FALSE;
  g_autofree char *port_s = NULL, *conns_s = NULL, *threads_s = NULL, *requests_s = NULL, *duration_s = NULL, *timeout_s = NULL;
  int port = VAL_DEFAULT_PORT, conns = LOAD_DEFAULT_CONNECTIONS, threads = 1, requests = 0; /* requests 0: run for the duration */
  double duration = LOAD_DEFAULT_DURATION_S, timeout = VAL_LOAD_DEFAULT_TIMEOUT_S;
  gboolean plain = FALSE, close_each = FALSE;
  GOptionEntry entries[] = {
    { "host", 'H', 0, G_OPTION_ARG_STRING, &host, "Server IPv4 address (default 127.0.0.1)", "ADDR" },
    { "port", 'p', 0, G_OPTION_ARG_STRING, &port_s, "Server port 1..65535 (default 8443)", "N" },
    { "plain", 0, 0, G_OPTION_ARG_NONE, &plain, "Plain HTTP (the server's sendfile mode)", NULL },
    { "tls-version", 0, 0, G_OPTION_ARG_STRING, &ver_s, "1.2, 1.3 or any (default any)", "V" },
    { "cipher", 0, 0, G_OPTION_ARG_STRING, &cipher_s, "aes-128-gcm, aes-256-gcm, chacha20-poly1305 or any", "C" },
    { "path", 'P', 0, G_OPTION_ARG_STRING_ARRAY, &paths, "Request path (repeatable)", "PATH" },
    { "range", 0, 0, G_OPTION_ARG_STRING, &range, "Byte range FIRST-LAST of every request", "A-B" },
    { "root", 'r', 0, G_OPTION_ARG_FILENAME, &root, "Local copy of the served directory: check SHA-256", "DIR" },
    { "connections", 'c', 0, G_OPTION_ARG_STRING, &conns_s, "Concurrent connections 1..1000000 (default 16)", "N" },
    { "threads", 't', 0, G_OPTION_ARG_STRING, &threads_s, "Client threads 1..1024, at most --connections (default 1)", "N" },
    { "duration", 'd', 0, G_OPTION_ARG_STRING, &duration_s, "Run time > 0 (default 10 s), a time: " CLI_TIME_FORMS, "TIME" },
    { "requests", 'n', 0, G_OPTION_ARG_STRING, &requests_s,
      "Requests per connection, >= 1, instead of a duration (default: run for --duration)", "N" },
    { "close", 0, 0, G_OPTION_ARG_NONE, &close_each, "New connection per request", NULL },
    { "timeout", 0, 0, G_OPTION_ARG_STRING, &timeout_s,
      "Stall timeout per connection > 0 (default 10 s), a time: " CLI_TIME_FORMS, "TIME" },
    { "sha256", 0, 0, G_OPTION_ARG_STRING_ARRAY, &shas,
      "Expected SHA-256 (64 hex digits) of the body of each --path, in order: checked on every response", "HEX" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print the result as one JSON object", NULL },
    { "case", 0, 0, G_OPTION_ARG_STRING, &case_s,
      "Instead of a load, one scripted connection for the first --path (needs --root): keyupdate (TLS 1.3 KeyUpdate "
      "mid-body), reset (RST mid-body), truncate (the file under --root shortened mid-body), close-notify, slow (EAGAIN)",
      "NAME" },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  CliCommon common;
  g_autoptr(GOptionContext) ctx = cli_context_new("- fetch files over many HTTPS connections and check them", NULL, &common, 0);
  g_option_context_add_main_entries(ctx, entries, NULL);
  if (!cli_parse_no_args(ctx, &common, &argc, &argv)) return OCASIM_EXIT_BADINPUT;
  g_autoptr(GError) err = NULL;
  ValTlsVersion ver = VAL_TLS_ANY;
  ValCipher cipher = VAL_CIPHER_ANY;
  uint64_t rf = 0, rl = 0;
  if (!paths || !paths[0]) {
    fprintf(stderr, "%s: at least one --path is required\n", argv[0]);
    return OCASIM_EXIT_BADINPUT;
  }
  if (shas && g_strv_length(shas) != g_strv_length(paths)) {
    fprintf(stderr, "%s: --sha256: %u given for %u --path (one per path, in order)\n", argv[0], g_strv_length(shas),
            g_strv_length(paths));
    return OCASIM_EXIT_BADINPUT;
  }
  if (shas && root) {
    fprintf(stderr, "%s: --sha256 and --root exclude each other (--root hashes the local copy)\n", argv[0]);
    return OCASIM_EXIT_BADINPUT;
  }
  for (int i = 0; shas && shas[i]; i++) {
    gboolean hex = strlen(shas[i]) == 64;
    for (const char *c = shas[i]; hex && *c; c++) hex = g_ascii_isxdigit(*c);
    if (!hex) {
      fprintf(stderr, "%s: --sha256 '%s': expected 64 hex digits\n", argv[0], shas[i]);
      return OCASIM_EXIT_BADINPUT;
    }
  }
  if (ver_s && !val_tls_version_parse(ver_s, &ver)) {
    fprintf(stderr, "%s: --tls-version '%s': expected 1.2, 1.3 or any\n", argv[0], ver_s);
    return OCASIM_EXIT_BADINPUT;
  }
  if (cipher_s && !val_cipher_parse(cipher_s, &cipher)) {
    fprintf(stderr, "%s: --cipher '%s': expected aes-128-gcm, aes-256-gcm, chacha20-poly1305 or any\n", argv[0], cipher_s);
    return OCASIM_EXIT_BADINPUT;
  }
  if (plain && (ver_s || cipher_s)) { /* plain HTTP: the TLS choice would be ignored */
    fprintf(stderr, "%s: --%s: --plain fetches over plain HTTP, without TLS\n", argv[0], ver_s ? "tls-version" : "cipher");
    return OCASIM_EXIT_BADINPUT;
  }
  if (range && !parse_range(range, &rf, &rl)) {
    fprintf(stderr, "%s: --range '%s': expected FIRST-LAST, byte offsets with FIRST <= LAST\n", argv[0], range);
    return OCASIM_EXIT_BADINPUT;
  }
  /* --requests 0 would mean "no count" (the duration mode), never zero requests: not accepted */
  if (!cli_int_option("--port", port_s, 1, LOAD_MAX_PORT, NULL, &port, &err) ||
      !cli_int_option("--connections", conns_s, 1, LOAD_MAX_CONNECTIONS, NULL, &conns, &err) ||
      !cli_int_option("--threads", threads_s, 1, LOAD_MAX_THREADS, NULL, &threads, &err) ||
      !cli_int_option("--requests", requests_s, 1, G_MAXINT, "without --requests the load runs for --duration", &requests,
                      &err) ||
      !cli_seconds_option("--duration", duration_s, 0, TRUE, CLI_MAX_SECONDS, NULL, &duration, &err) ||
      !cli_seconds_option("--timeout", timeout_s, 0, TRUE, CLI_MAX_SECONDS, NULL, &timeout, &err)) {
    fprintf(stderr, "%s: %s\n", argv[0], err->message);
    return OCASIM_EXIT_BADINPUT;
  }
  if (threads > conns) { /* each thread owns at least one connection: the extra threads would have none */
    fprintf(stderr, "%s: --threads %d is more than --connections %d: each client thread owns at least one connection\n", argv[0],
            threads, conns);
    return OCASIM_EXIT_BADINPUT;
  }
  if (requests_s && duration_s) { /* the count replaces the run time, which would be ignored */
    fprintf(stderr, "%s: --requests and --duration exclude each other (a count of requests per connection, or a run time)\n",
            argv[0]);
    return OCASIM_EXIT_BADINPUT;
  }
  const char *h = host ? host : "127.0.0.1";
  struct in_addr probe;
  if (inet_pton(AF_INET, h, &probe) != 1) {
    fprintf(stderr, "%s: --host '%s': not an IPv4 address\n", argv[0], h);
    return OCASIM_EXIT_BADINPUT;
  }
  signal(SIGPIPE, SIG_IGN);
  if (conns > 512) val_remote_raise_nofile(); /* a socket each: past the usual soft limit of 1024 */
  if (case_s) {                               /* validate/ktlscase.h: exit 0 when the server behaved as the case requires */
    ValCase k;
    if (!val_case_parse(case_s, &k)) {
      fprintf(stderr, "%s: --case '%s': expected keyupdate, reset, truncate, close-notify or slow\n", argv[0], case_s);
      return OCASIM_EXIT_BADINPUT;
    }
    if (!root) {
      fprintf(stderr, "%s: --case needs --root (the expected bytes; truncate shortens the file there)\n", argv[0]);
      return OCASIM_EXIT_BADINPUT;
    }
    g_autofree char *lp = g_build_filename(root, paths[0], NULL);
    SSL_CTX *cc = plain ? NULL : val_tls_client_ctx_new(ver, cipher, FALSE, NULL);
    ValCaseConfig kc = { .host = h, .port = port, .ctx = cc, .path = paths[0], .local = lp, .timeout_s = timeout };
    g_autoptr(GString) rep = g_string_new(NULL);
    gboolean ok = val_case_run(k, &kc, rep);
    SSL_CTX_free(cc);
    printf("%s %s\n", ok ? "pass" : "FAIL", rep->str);
    return ok ? OCASIM_EXIT_OK : OCASIM_EXIT_FAILURE;
  }
  int n = (int)g_strv_length(paths);
  ValLoadTarget *tg = g_new0(ValLoadTarget, n);
  SSL_CTX *cctx = plain ? NULL : val_tls_client_ctx_new(ver, cipher, FALSE, NULL);
  int rc = OCASIM_EXIT_OK;
  for (int i = 0; i < n && rc == OCASIM_EXIT_OK; i++) {
    tg[i].path = g_strdup(paths[i]);
    uint64_t size = 0;
    if (root) {
      g_autofree char *lp = g_build_filename(root, paths[i], NULL);
      struct stat st;
      if (stat(lp, &st) != 0 || !S_ISREG(st.st_mode)) {
        fprintf(stderr, "%s: %s: not found under --root\n", argv[0], paths[i]);
        rc = OCASIM_EXIT_BADINPUT;
        break;
      }
      size = (uint64_t)st.st_size;
    } else {
      ValClient *c = val_client_connect(h, port, cctx, timeout, &err);
      int status = 0;
      unsigned char sha[32];
      if (!c || !val_client_get(c, "HEAD", paths[i], NULL, &status, &size, sha, &err) || status != 200) {
        fprintf(stderr, "%s: HEAD %s: %s\n", argv[0], paths[i], err ? err->message : "not 200");
        rc = OCASIM_EXIT_FAILURE;
      }
      val_client_close(c);
      g_clear_error(&err);
    }
    if (rc) break;
    if (range) {
      if (rf >= size) {
        fprintf(stderr, "%s: --range starts past the end of %s\n", argv[0], paths[i]);
        rc = OCASIM_EXIT_BADINPUT;
        break;
      }
      tg[i].has_range = TRUE;
      tg[i].first = rf;
      tg[i].last = MIN(rl, size - 1);
      tg[i].expect_status = 206;
      tg[i].expect_len = tg[i].last - rf + 1;
    } else {
      tg[i].expect_status = 200;
      tg[i].expect_len = size;
    }
    if (root) {
      g_autofree char *lp = g_build_filename(root, paths[i], NULL);
      tg[i].check_sha = val_sha256_file_range(lp, tg[i].has_range ? rf : 0, tg[i].expect_len, tg[i].sha, NULL);
    } else if (shas) {
      for (int k = 0; k < 32; k++)
        tg[i].sha[k] = (unsigned char)(g_ascii_xdigit_value(shas[i][2 * k]) << 4 | g_ascii_xdigit_value(shas[i][2 * k + 1]));
      tg[i].check_sha = TRUE;
    }
  }
  SSL_CTX_free(cctx);
  if (rc == OCASIM_EXIT_OK) {
    ValLoadConfig cfg = { .host = h,
                          .port = port,
                          .tls = !plain,
                          .version = ver,
                          .cipher = cipher,
                          .connections = conns,
                          .threads = threads,
                          .targets = tg,
                          .ntargets = n,
                          .requests_per_conn = requests,
                          .duration_s = requests ? LOAD_COUNT_MODE_LIMIT_S : duration,
                          .verify = root || shas ? VAL_VERIFY_ALL : VAL_VERIFY_LENGTH,
                          .timeout_s = timeout,
                          .close_each = close_each,
                          .last_cpu = -1 };
    ValLoadResult r;
    gboolean ran = val_load_run(&cfg, &r, &err);
    g_autofree char *errors =
        ran ? g_strdup_printf("errors: %" G_GUINT64_FORMAT " (connect %" G_GUINT64_FORMAT ", tls %" G_GUINT64_FORMAT
                              ", status %" G_GUINT64_FORMAT ", length %" G_GUINT64_FORMAT ", sha256 %" G_GUINT64_FORMAT
                              ", io %" G_GUINT64_FORMAT ", timeout %" G_GUINT64_FORMAT ")",
                              val_load_errors(&r), r.errors_connect, r.errors_tls, r.errors_status, r.errors_length,
                              r.errors_hash, r.errors_io, r.errors_timeout)
            : NULL;
    if (!ran) {
      fprintf(stderr, "%s: %s\n", argv[0], err->message);
      rc = OCASIM_EXIT_FAILURE;
    } else if (json) { /* the counters even when nothing completed: validate --clients sums them */
      printf("{\"gbps\": %.6f, \"elapsed_s\": %.6f, \"requests_ok\": %" G_GUINT64_FORMAT ", \"bytes_body\": %" G_GUINT64_FORMAT
             ", \"errors\": %" G_GUINT64_FORMAT ", \"errors_hash\": %" G_GUINT64_FORMAT ", \"errors_length\": %" G_GUINT64_FORMAT
             ", \"sha256_checked\": %s, \"tls_version\": %d, \"cpu_s\": %.6f}\n",
             r.gbps, r.elapsed_s, r.requests_ok, r.bytes_body, val_load_errors(&r), r.errors_hash, r.errors_length,
             root || shas ? "true" : "false", r.tls_version, (double)val_process_cpu_ns() * 1e-9);
    } else if (r.requests_ok) {
      printf("%.3f Gb/s, %.0f requests/s, %" G_GUINT64_FORMAT " responses ok, %.3f GB in %.2f s, %s%s\n", r.gbps,
             r.requests_ok / r.elapsed_s, r.requests_ok, r.bytes_body / 1e9, r.elapsed_s,
             plain ? "plain HTTP" : (r.tls_version == 13 ? "TLS 1.3 " : "TLS 1.2 "), plain ? "" : val_cipher_name(r.cipher));
      printf("%s%s\n", errors, root || shas ? "" : " — bodies checked for length only (no --root)");
    }
    if (ran && (val_load_errors(&r) || !r.requests_ok)) rc = OCASIM_EXIT_FAILURE;
    if (ran && !r.requests_ok) /* no rate, TLS version or cipher to report: nothing was fetched */
      fprintf(stderr,
              "%s: no response completed in %.3g s, %s: no rate to report; give a longer --duration or check the server\n",
              argv[0], r.elapsed_s, errors);
  }
  for (int i = 0; i < n; i++) g_free(tg[i].path);
  g_free(tg);
  return rc;
}
