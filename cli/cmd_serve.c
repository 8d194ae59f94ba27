/* cli/cmd_serve.c — `ocasim serve`: the validation TLS file server on its own,
 * e.g. for wrk: `ocasim serve --root DIR --port 8443` then
 * `wrk -t2 -c32 -d10s https://127.0.0.1:8443/file.bin`. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "serve/server.h"
#include "serve/util.h"

/* Option limits of `ocasim serve`: a TCP port's range, and threads and connections far above
 * one host's (assumed). */
#define SERVE_MAX_PORT        65535
#define SERVE_MAX_THREADS     1024
#define SERVE_MAX_CONNECTIONS 1000000

int cmd_serve(int argc, char **argv)
{
  g_autofree char *root = NULL, *bind = NULL, *mode_s = NULL, *cert = NULL, *key = NULL;
  g_autofree char *port_s = NULL, *threads_s = NULL, *duration_s = NULL, *idle_s = NULL;
  g_autofree char *head_s = NULL, *linger_s = NULL, *max_conns_s = NULL, *per_ip_s = NULL;
  int port = VAL_DEFAULT_PORT, threads = 1, max_conns = 0, per_ip = -1; /* per_ip -1: a quarter of max_conns */
  gboolean no_pin = FALSE;
  double duration = 0, idle = VAL_SERVER_IDLE_TIMEOUT_S, head = VAL_SERVER_HEAD_TIMEOUT_S,
         linger = VAL_SERVER_LINGER_S; /* duration 0: until SIGINT/SIGTERM */
  GOptionEntry entries[] = {
    { "root", 'r', 0, G_OPTION_ARG_FILENAME, &root, "Directory to serve (required)", "DIR" },
    { "port", 'p', 0, G_OPTION_ARG_STRING, &port_s, "TCP port 0..65535 (default 8443; 0: any free port)", "N" },
    { "bind", 'b', 0, G_OPTION_ARG_STRING, &bind, "IPv4 address to bind (default 127.0.0.1)", "ADDR" },
    { "mode", 'm', 0, G_OPTION_ARG_STRING, &mode_s, "sendfile_ktls (default), userspace or sendfile (plain HTTP)", "MODE" },
    { "threads", 't', 0, G_OPTION_ARG_STRING, &threads_s, "Worker threads 1..1024 (default 1)", "N" },
    { "no-pin", 0, 0, G_OPTION_ARG_NONE, &no_pin, "Do not pin workers to CPUs", NULL },
    { "cert", 0, 0, G_OPTION_ARG_FILENAME, &cert, "Certificate chain, PEM (default: self-signed, generated)", "FILE" },
    { "key", 'k', 0, G_OPTION_ARG_FILENAME, &key, "Private key, PEM (default: in --cert)", "FILE" },
    { "idle-timeout", 0, 0, G_OPTION_ARG_STRING, &idle_s,
      "Close connections idle this long, > 0 (default 30 s), a time: " CLI_TIME_FORMS, "TIME" },
    { "head-timeout", 0, 0, G_OPTION_ARG_STRING, &head_s,
      "Close a connection whose TLS handshake or request head takes longer, > 0 (default 20 s), a time: " CLI_TIME_FORMS,
      "TIME" },
    { "linger", 0, 0, G_OPTION_ARG_STRING, &linger_s,
      "Lingering close: read what a client still sends after the last response for at most TIME, > 0 (default 5 s), a time: " CLI_TIME_FORMS,
      "TIME" },
    { "max-conns", 0, 0, G_OPTION_ARG_STRING, &max_conns_s,
      "Most open connections 1..1000000 (default: (RLIMIT_NOFILE - 64) / 2)", "N" },
    { "max-conns-per-ip", 0, 0, G_OPTION_ARG_STRING, &per_ip_s,
      "Most open connections from one client IPv4 address, 0..1000000; more are refused (default: a quarter of --max-conns; "
      "0: no per-address cap)",
      "N" },
    { "duration", 'd', 0, G_OPTION_ARG_STRING, &duration_s,
      "Stop after TIME, 0..1000000 s, a time: " CLI_TIME_FORMS
      "; 0 (the default): run until SIGINT/SIGTERM/SIGHUP (SIGUSR1: counters so far)",
      "TIME" },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  CliCommon common;
  g_autoptr(GOptionContext) ctx = cli_context_new("- serve files over HTTPS (or HTTP) from one directory", NULL, &common, 0);
  g_option_context_add_main_entries(ctx, entries, NULL);
  if (!cli_parse_no_args(ctx, &common, &argc, &argv)) return OCASIM_EXIT_BADINPUT;
  g_autoptr(GError) err = NULL;
  ValServerMode mode = VAL_MODE_SENDFILE_KTLS;
  if (!root) {
    fprintf(stderr, "%s: --root DIR is required\n", argv[0]);
    return OCASIM_EXIT_BADINPUT;
  }
  if (mode_s && !val_server_mode_parse(mode_s, &mode)) {
    fprintf(stderr, "%s: --mode: expected sendfile_ktls, userspace or sendfile, got '%s'\n", argv[0], mode_s);
    return OCASIM_EXIT_BADINPUT;
  }
  if (mode == VAL_MODE_SENDFILE && (cert || key)) { /* plain HTTP: the certificate would be ignored */
    fprintf(stderr,
            "%s: --%s: mode sendfile serves plain HTTP, without TLS; a certificate goes with sendfile_ktls or userspace\n",
            argv[0], cert ? "cert" : "key");
    return OCASIM_EXIT_BADINPUT;
  }
  if (!cli_int_option("--port", port_s, 0, SERVE_MAX_PORT, NULL, &port, &err) ||
      !cli_int_option("--threads", threads_s, 1, SERVE_MAX_THREADS, NULL, &threads, &err) ||
      !cli_seconds_option("--idle-timeout", idle_s, 0, TRUE, CLI_MAX_SECONDS, NULL, &idle, &err) ||
      !cli_seconds_option("--head-timeout", head_s, 0, TRUE, CLI_MAX_SECONDS, NULL, &head, &err) ||
      !cli_seconds_option("--linger", linger_s, 0, TRUE, CLI_MAX_SECONDS, NULL, &linger, &err) ||
      !cli_int_option("--max-conns", max_conns_s, 1, SERVE_MAX_CONNECTIONS, NULL, &max_conns, &err) ||
      !cli_int_option("--max-conns-per-ip", per_ip_s, 0, SERVE_MAX_CONNECTIONS, "0: no per-address cap", &per_ip, &err) ||
      !cli_seconds_option("--duration", duration_s, 0, FALSE, CLI_MAX_SECONDS, "0: until interrupted", &duration, &err)) {
    fprintf(stderr, "%s: %s\n", argv[0], err->message);
    return OCASIM_EXIT_BADINPUT;
  }
  /* SIGPIPE must never kill the server; SIGINT, SIGTERM and SIGHUP stop it with its summary,
   * SIGUSR1 prints the counters so far (both killed it without a word): taken with sigwait */
  signal(SIGPIPE, SIG_IGN);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  sigaddset(&set, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  ValServerConfig cfg = { .root = root,
                          .bind_addr = bind,
                          .port = port,
                          .mode = mode,
                          .threads = threads,
                          .pin = !no_pin,
                          .cert_file = cert,
                          .key_file = key,
                          .idle_timeout_s = idle,
                          .head_timeout_s = head,
                          .linger_s = linger,
                          .max_conns = max_conns,
                          .max_conns_per_ip = per_ip };
  ValServer *s = val_server_start(&cfg, &err);
  if (!s) {
    fprintf(stderr, "%s: %s\n", argv[0], err->message);
    return g_error_matches(err, VAL_ERROR, VAL_ERROR_CERT) || g_error_matches(err, VAL_ERROR, VAL_ERROR_INVALID)
               ? OCASIM_EXIT_BADINPUT
               : OCASIM_EXIT_FAILURE;
  }
  g_autofree char *until = duration > 0 ? g_strdup_printf("for %g s", duration) : g_strdup("until SIGINT/SIGTERM/SIGHUP");
  printf("serving %s on %s://%s:%d/ (mode %s, %d worker%s%s) %s\n", root, val_server_mode_is_tls(mode) ? "https" : "http",
         bind ? bind : "127.0.0.1", val_server_port(s), val_server_mode_name(mode), threads, threads > 1 ? "s" : "",
         no_pin ? "" : ", pinned", until);
  fflush(stdout);
  int64_t until_ns = duration > 0 ? val_now_ns() + (int64_t)(duration * 1e9) : 0;
  for (;;) {
    int sig = -1;
    if (duration > 0) {
      int64_t left = until_ns - val_now_ns();
      if (left <= 0) break;
      struct timespec ts = { .tv_sec = (time_t)(left / 1000000000), .tv_nsec = (long)(left % 1000000000) };
      sig = sigtimedwait(&set, NULL, &ts);
      if (sig < 0) continue; /* EAGAIN: the loop sees the time is up; EINTR: again */
    } else if (sigwait(&set, &sig) != 0) {
      continue;
    }
    if (sig != SIGUSR1) break;
    ValServerStats now;
    val_server_stats(s, &now);
    printf("so far: %" G_GUINT64_FORMAT " requests (%" G_GUINT64_FORMAT " 2xx, %" G_GUINT64_FORMAT " 4xx, %" G_GUINT64_FORMAT
           " 5xx), %.3f GB of bodies written, %" G_GUINT64_FORMAT " connections (%" G_GINT64_FORMAT " open)\n",
           now.requests, now.status_2xx, now.status_4xx, now.status_5xx, (double)now.bytes_body / 1e9, now.accepted,
           now.open_conns);
    fflush(stdout);
  }
  ValKtlsProbe kp = *val_server_ktls(s); /* s is freed by the stop */
  ValServerStats st;
  val_server_stop_stats(s, &st); /* after the last close: what was acknowledged, what the stop cut */
  printf("served %" G_GUINT64_FORMAT " requests (%" G_GUINT64_FORMAT " 2xx, %" G_GUINT64_FORMAT " 4xx, %" G_GUINT64_FORMAT
         " 5xx), %.3f GB of bodies written, %.3f GB of them acknowledged (%.3f GB on the wire), %" G_GUINT64_FORMAT
         " responses cut short, %" G_GUINT64_FORMAT " files changed during a send, %" G_GUINT64_FORMAT
         " connections, %" G_GUINT64_FORMAT " client aborts, %" G_GUINT64_FORMAT " truncated files, %" G_GUINT64_FORMAT
         " head timeouts, %" G_GUINT64_FORMAT " idle timeouts, %" G_GUINT64_FORMAT " evicted and %" G_GUINT64_FORMAT
         " refused at the connection cap, %" G_GUINT64_FORMAT " refused at the per-address cap, kTLS on %" G_GUINT64_FORMAT
         " connections\n",
         st.requests, st.status_2xx, st.status_4xx, st.status_5xx, (double)st.bytes_body / 1e9, (double)st.bytes_body_acked / 1e9,
         (double)st.bytes_acked / 1e9, st.responses_cut, st.files_changed, st.accepted, st.client_aborts, st.truncations,
         st.head_timeouts, st.idle_timeouts, st.evicted, st.refused, st.refused_per_ip, st.ktls_conns);
  /* kTLS asked for and not engaged is said, with the reason, never left to be inferred */
  if (mode == VAL_MODE_SENDFILE_KTLS)
    printf("kTLS: engaged on %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " connections, user-space TLS on %" G_GUINT64_FORMAT
           "%s%s%s; %" G_GUINT64_FORMAT
           " closed after a client TLS 1.3 KeyUpdate (kernel TLS cannot rekey TX); %" G_GUINT64_FORMAT
           " sends met a full socket buffer (EAGAIN)\n",
           st.ktls_conns, st.ktls_conns + st.ktls_fallback_conns, st.ktls_fallback_conns, st.ktls_fallback_conns ? " (" : "",
           st.ktls_fallback_conns
               ? (kp.ulp_ok && kp.tx_ok ? "OpenSSL did not engage kTLS on them: BIO_get_ktls_send = 0 after the handshake"
                                        : kp.reason)
               : "",
           st.ktls_fallback_conns ? ")" : "", st.ktls_rekey_closes, st.write_waits);
  else
    printf("kTLS: not used (mode %s); %" G_GUINT64_FORMAT " sends met a full socket buffer (EAGAIN)\n",
           val_server_mode_name(mode), st.write_waits);
  printf("refused %" G_GUINT64_FORMAT " request heads with 400 (malformed or smuggling shapes), closed %" G_GUINT64_FORMAT
         " responses of readers slower than %g KiB/s\n",
         st.bad_heads, st.send_timeouts, VAL_SERVER_MIN_SEND_BPS / 1024.0);
  return OCASIM_EXIT_OK;
}
