/* tests/test_serve_abuse.c — `ocasim serve` as a process under abuse (issue 16).
 *
 * Slowloris at a small descriptor limit: the server runs under `ulimit -n 128`, 150
 * connections drip a header line every ~0.3 s (far more often than --idle-timeout), and normal GETs must
 * still be served all along (before the connection cap and the head deadline, a flood of
 * this size left 0 of 12 GETs answered: accepts failed with EMFILE); afterwards SIGTERM
 * stops the server promptly with exit status 0 and the summary counts 5xx, head timeouts
 * and evictions.  SIGTERM under load: a load generator is mid-transfer on 16
 * connections, the server must exit within a few seconds.  Deadlines are generous. */
#include <check.h>
#include "tests/support/check_run.h"
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "validate/client.h"
#include "validate/loadgen.h"
#include "validate/util.h"

typedef struct {
  GPid pid;
  int out_fd;
  GString *out; /* stdout so far */
  int port;
} Serve;

/* Reads what the server printed so far (up to @secs waiting for @want to appear); TRUE when it did. */
static gboolean read_until(Serve *sv, const char *want, double secs)
{
  int64_t end = val_now_ns() + (int64_t)(secs * 1e9);
  while (!strstr(sv->out->str, want)) {
    int64_t left_ms = (end - val_now_ns()) / 1000000;
    if (left_ms <= 0) return FALSE;
    struct pollfd p = { .fd = sv->out_fd, .events = POLLIN };
    if (poll(&p, 1, (int)MIN(left_ms, 200)) <= 0) continue;
    char buf[4096];
    ssize_t n = read(sv->out_fd, buf, sizeof buf);
    if (n <= 0) return strstr(sv->out->str, want) != NULL;
    g_string_append_len(sv->out, buf, n);
  }
  return TRUE;
}

/* Starts `ocasim serve --root @root --port 0 ARGS...` under `ulimit -n @nofile` (0: unchanged). */
static Serve serve_start(const char *root, int nofile, const char *args)
{
  const char *bin = g_getenv("OCASIM_BIN");
  ck_assert_msg(bin != NULL, "OCASIM_BIN is not set");
  g_autofree char *lim = nofile ? g_strdup_printf("ulimit -n %d && ", nofile) : g_strdup("");
  g_autofree char *cmd = g_strdup_printf("%sexec \"$0\" serve --root \"$1\" --port 0 --no-pin %s", lim, args);
  const char *argv[] = { "/bin/sh", "-c", cmd, bin, root, NULL };
  Serve sv = { .out = g_string_new(NULL) };
  GError *e = NULL;
  ck_assert_msg(g_spawn_async_with_pipes(NULL, (char **)argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &sv.pid, NULL,
                                         &sv.out_fd, NULL, &e),
                "%s", e ? e->message : "");
  ck_assert_msg(read_until(&sv, "/ (mode", 20), "serve did not start: %s", sv.out->str);
  const char *p = strstr(sv.out->str, "://127.0.0.1:");
  ck_assert(p);
  sv.port = atoi(p + strlen("://127.0.0.1:"));
  ck_assert_int_gt(sv.port, 0);
  return sv;
}

/* SIGTERM, then the exit status within @secs (-1 if it did not exit: then killed). */
static int serve_stop(Serve *sv, double secs)
{
  kill(sv->pid, SIGTERM);
  int64_t end = val_now_ns() + (int64_t)(secs * 1e9);
  int status = -1;
  while (val_now_ns() < end) {
    if (waitpid(sv->pid, &status, WNOHANG) == sv->pid) break;
    status = -1;
    val_sleep_ns(20000000);
  }
  if (status == -1) {
    kill(sv->pid, SIGKILL);
    waitpid(sv->pid, NULL, 0);
  }
  read_until(sv, "kTLS on", 5);
  close(sv->out_fd);
  g_spawn_close_pid(sv->pid);
  return status;
}

static char *make_root(uint64_t size)
{
  char *base = g_dir_make_tmp("ocasim-abuse-XXXXXX", NULL);
  ck_assert(base);
  g_autofree char *f = g_build_filename(base, "f.bin", NULL);
  g_autofree char *data = g_malloc(size);
  for (uint64_t i = 0; i < size; i++) data[i] = (char)(i * 131 + 7);
  ck_assert(g_file_set_contents(f, data, (gssize)size, NULL));
  return base;
}

static int raw_connect(int port)
{
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

START_TEST(test_slowloris_fd_limit)
{
  enum { DRIPPERS = 150, GETS = 12 };
  g_autofree char *root = make_root(65536);
  Serve sv = serve_start(root, 128, "--mode sendfile --head-timeout 2"); /* --idle-timeout: the default 30 s */
  int drip[DRIPPERS];
  for (int i = 0; i < DRIPPERS; i++) {
    drip[i] = raw_connect(sv.port);
    if (drip[i] >= 0) send(drip[i], "GET /f.bin HTTP/1.1\r\n", 21, MSG_NOSIGNAL);
  }
  g_autofree char *want = NULL;
  gsize wlen = 0;
  g_autofree char *fpath = g_build_filename(root, "f.bin", NULL);
  ck_assert(g_file_get_contents(fpath, &want, &wlen, NULL));
  unsigned char want_sha[32];
  ck_assert(val_sha256_file_range(fpath, 0, wlen, want_sha, NULL));
  int served = 0;
  for (int k = 0; k < GETS; k++) {
    for (int i = 0; i < DRIPPERS; i++) /* drip far faster than --idle-timeout */
      if (drip[i] >= 0 && send(drip[i], "X-a: b\r\n", 8, MSG_NOSIGNAL) < 0) {
        close(drip[i]);
        drip[i] = raw_connect(sv.port); /* a hostile client comes back */
      }
    g_autoptr(GError) err = NULL;
    g_autoptr(ValClient) c = val_client_connect("127.0.0.1", sv.port, NULL, 3, &err);
    int status = 0;
    uint64_t len = 0;
    unsigned char sha[32];
    if (c && val_client_get(c, "GET", "/f.bin", NULL, &status, &len, sha, &err) && status == 200 && len == wlen &&
        memcmp(sha, want_sha, 32) == 0)
      served++;
    val_sleep_ns(250000000);
  }
  ck_assert_msg(served == GETS, "%d of %d GETs served under a slowloris flood", served, GETS);
  for (int i = 0; i < DRIPPERS; i++)
    if (drip[i] >= 0) close(drip[i]);
  int status = serve_stop(&sv, 10);
  ck_assert_msg(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0, "serve did not exit cleanly: %d", status);
  ck_assert_msg(strstr(sv.out->str, "4xx, 0 5xx)") && strstr(sv.out->str, " head timeouts, ") &&
                    strstr(sv.out->str, " evicted and "),
                "summary: %s", sv.out->str);
  g_string_free(sv.out, TRUE);
  val_rm_rf(root);
}
END_TEST

START_TEST(test_sigterm_under_load)
{
  g_autofree char *root = make_root(1 << 20);
  const char *modes[] = { "--mode sendfile", "--mode userspace" };
  for (size_t m = 0; m < G_N_ELEMENTS(modes); m++) {
    Serve sv = serve_start(root, 0, modes[m]);
    ValLoadTarget tg = { .path = (char *)"/f.bin", .expect_status = 200, .expect_len = 1 << 20 };
    ValLoadConfig lc = { .port = sv.port,
                         .tls = m == 1,
                         .connections = 16,
                         .threads = 2,
                         .targets = &tg,
                         .ntargets = 1,
                         .duration_s = 30,
                         .last_cpu = -1 };
    g_autoptr(GError) err = NULL;
    ValLoad *l = val_load_start(&lc, &err);
    ck_assert_msg(l, "%s", err ? err->message : "");
    ValLoadResult r;
    int64_t end = val_now_ns() + 20000000000LL;
    do { /* under load: some responses done, more in flight */
      val_sleep_ns(50000000);
      val_load_snapshot(l, &r);
    } while (r.requests_ok < 20 && val_now_ns() < end);
    ck_assert_uint_ge(r.requests_ok, 20);
    int64_t t0 = val_now_ns();
    int status = serve_stop(&sv, 10);
    double took = (double)(val_now_ns() - t0) * 1e-9;
    val_load_stop(l, NULL);
    ck_assert_msg(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: exit %d after %.1f s", modes[m], status,
                  took);
    ck_assert_msg(strstr(sv.out->str, "served "), "no summary: %s", sv.out->str);
    g_string_free(sv.out, TRUE);
  }
  val_rm_rf(root);
}
END_TEST

int main(void)
{
  signal(SIGPIPE, SIG_IGN);
  Suite *s = suite_create("serve_abuse");
  TCase *tc = tcase_create("serve");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_slowloris_fd_limit);
  tcase_add_test(tc, test_sigterm_under_load);
  suite_add_tcase(s, tc);
  return test_run_suite(s);
}
