/* tests/test_validate_server.c — the validation file server end to end on
 * loopback: byte-exact bodies and ranges in every mode (sizes around TLS record
 * boundaries, a sparse file over 4 GiB with ranges past 2^32), clients that
 * vanish (close, RST) or read slowly, paths that try to leave the root,
 * certificate errors, and no spinning or leaking afterwards.  No timing
 * assertions: CPU time after an abort is compared with the wall time elapsed
 * (a spinning worker would use all of it).
 *
 * The "abuse" case (issue 16) holds the server against hostile and unlucky clients, in
 * every mode: a pipelined request sent while a closing response is in flight (lingering
 * close), a file truncated during the send, idle keep-alive closes and injected EAGAIN /
 * short writes (close_notify every time), dripping heads and handshakes (slowloris) at a
 * connection cap, and malformed requests; health afterwards means the server still
 * answers, holds no connection, and the process has the fds it had before.  Deadlines
 * are generous (seconds), conditions are polled. */
#include <check.h>
#include "tests/support/check_run.h"
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "serve/client.h"
#include "serve/loadgen.h"
#include "serve/server.h"
#include "serve/util.h"

#define SPARSE_SIZE ((4ULL << 30) + 40961ULL) /* > 4 GiB */

static const uint64_t sizes[] = { 0, 1, 16383, 16384, 16385, 65535, 65536, 1 << 20 };

typedef struct {
  char *base, *root, *secret, *sparse;
} Tree;

/* Writes @size pseudo-random bytes (xorshift from @seed) from offset 0 of @fd. */
static void fill_fd(int fd, uint64_t size, uint32_t seed)
{
  unsigned char buf[4096];
  uint32_t x = seed * 2654435761u + 1;
  for (uint64_t off = 0; off < size;) {
    size_t n = (size_t)MIN((uint64_t)sizeof buf, size - off);
    for (size_t i = 0; i < n; i++) {
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
      buf[i] = (unsigned char)x;
    }
    ck_assert_int_eq(pwrite(fd, buf, n, (off_t)off), (ssize_t)n);
    off += n;
  }
}

static void fill_file(const char *path, uint64_t size, uint32_t seed)
{
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ck_assert_int_ge(fd, 0);
  fill_fd(fd, size, seed);
  close(fd);
}

static Tree make_tree(void)
{
  Tree t;
  t.base = g_dir_make_tmp("ocasim-srv-XXXXXX", NULL);
  ck_assert(t.base);
  t.root = g_build_filename(t.base, "root", NULL);
  ck_assert_int_eq(g_mkdir_with_parents(t.root, 0755), 0);
  for (size_t i = 0; i < G_N_ELEMENTS(sizes); i++) {
    g_autofree char *name = g_strdup_printf("%s/f%" G_GUINT64_FORMAT ".bin", t.root, sizes[i]);
    fill_file(name, sizes[i], (uint32_t)i + 1);
  }
  t.secret = g_build_filename(t.base, "secret.txt", NULL);
  ck_assert(g_file_set_contents(t.secret, "TOP-SECRET-OUTSIDE-ROOT", -1, NULL));
  g_autofree char *l1 = g_build_filename(t.root, "escape", NULL);
  ck_assert_int_eq(symlink(t.secret, l1), 0);
  g_autofree char *l2 = g_build_filename(t.root, "escape-rel", NULL);
  ck_assert_int_eq(symlink("../secret.txt", l2), 0);
  /* sparse file > 4 GiB with marks around 2^32 and at the end */
  t.sparse = g_build_filename(t.root, "sparse.bin", NULL);
  int fd = open(t.sparse, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(ftruncate(fd, (off_t)SPARSE_SIZE), 0);
  const uint64_t marks[] = { 0, (1ULL << 32) - 7, (1ULL << 32) + 12345, SPARSE_SIZE - 9 };
  for (size_t i = 0; i < G_N_ELEMENTS(marks); i++) {
    char m[16];
    g_snprintf(m, sizeof m, "MARK%zu-%08x", i, (unsigned)(marks[i] & 0xffffffffu));
    size_t n = MIN(strlen(m), (size_t)(SPARSE_SIZE - marks[i]));
    ck_assert_int_eq(pwrite(fd, m, n, (off_t)marks[i]), (ssize_t)n);
  }
  close(fd);
  return t;
}

static void free_tree(Tree *t)
{
  val_rm_rf(t->base);
  ck_assert(!g_file_test(t->base, G_FILE_TEST_EXISTS));
  g_free(t->base);
  g_free(t->root);
  g_free(t->secret);
  g_free(t->sparse);
}

static int count_fds(void)
{
  int n = 0;
  DIR *d = opendir("/proc/self/fd");
  struct dirent *e;
  while ((e = readdir(d)))
    if (e->d_name[0] != '.') n++;
  closedir(d);
  return n;
}

static ValServer *start_cfg(ValServerConfig *c)
{
  g_autoptr(GError) err = NULL;
  ValServer *s = val_server_start(c, &err);
  ck_assert_msg(s != NULL, "server: %s", err ? err->message : "");
  return s;
}

static ValServer *start(Tree *t, ValServerMode mode, int threads)
{
  ValServerConfig c = { .root = t->root, .mode = mode, .threads = threads, .quiet = TRUE, .idle_timeout_s = 20 };
  return start_cfg(&c);
}

static SSL_CTX *client_ctx(ValServerMode m)
{
  return val_server_mode_is_tls(m) ? val_tls_client_ctx_new(VAL_TLS_ANY, VAL_CIPHER_ANY, FALSE, NULL) : NULL;
}

static void add_target(GArray *a, const char *root, const char *name, gboolean range, uint64_t first, uint64_t last,
                       uint64_t fsize)
{
  ValLoadTarget tg = { 0 };
  tg.path = g_strdup_printf("/%s", name);
  g_autofree char *fpath = g_build_filename(root, name, NULL);
  if (range) {
    tg.has_range = TRUE;
    tg.first = first;
    tg.last = MIN(last, fsize - 1);
    tg.expect_len = tg.last - first + 1;
    tg.expect_status = 206;
  } else {
    tg.expect_len = fsize;
    tg.expect_status = 200;
  }
  tg.check_sha = TRUE;
  ck_assert(val_sha256_file_range(fpath, range ? first : 0, tg.expect_len, tg.sha, NULL));
  g_array_append_val(a, tg);
}

/* Every size, full and in ranges, through the load generator (4 connections); wake_bytes > 0
 * sets the receive low-water mark the measurement runs use (a mark the response cannot reach
 * would stall a connection into a timeout error). */
static void bodies_exact(ValServerMode mode, size_t wake_bytes)
{
  Tree t = make_tree();
  int fds0 = count_fds();
  ValServer *s = start(&t, mode, 2);
  GArray *tg = g_array_new(FALSE, TRUE, sizeof(ValLoadTarget));
  for (size_t i = 0; i < G_N_ELEMENTS(sizes); i++) {
    g_autofree char *name = g_strdup_printf("f%" G_GUINT64_FORMAT ".bin", sizes[i]);
    add_target(tg, t.root, name, FALSE, 0, 0, sizes[i]);
    if (sizes[i] > 2) {
      add_target(tg, t.root, name, TRUE, 1, sizes[i] - 2, sizes[i]);
      add_target(tg, t.root, name, TRUE, sizes[i] / 2, UINT64_MAX / 2, sizes[i]);
    }
  }
  add_target(tg, t.root, "sparse.bin", TRUE, (1ULL << 32) - 100, (1ULL << 32) + 20000, SPARSE_SIZE);
  add_target(tg, t.root, "sparse.bin", TRUE, (1ULL << 32) + 5, (1ULL << 32) + 70000, SPARSE_SIZE);
  add_target(tg, t.root, "sparse.bin", TRUE, SPARSE_SIZE - 100000, SPARSE_SIZE - 1, SPARSE_SIZE);
  ValLoadConfig lc = { .port = val_server_port(s),
                       .tls = val_server_mode_is_tls(mode),
                       .connections = 4,
                       .threads = 2,
                       .targets = (ValLoadTarget *)tg->data,
                       .ntargets = (int)tg->len,
                       .requests_per_conn = (int)tg->len,
                       .duration_s = 60,
                       .last_cpu = -1,
                       .wake_bytes = wake_bytes };
  ValLoadResult r;
  g_autoptr(GError) err = NULL;
  ck_assert(val_load_run(&lc, &r, &err));
  ck_assert_msg(val_load_errors(&r) == 0, "errors: status %lu length %lu hash %lu io %lu tls %lu timeout %lu",
                (unsigned long)r.errors_status, (unsigned long)r.errors_length, (unsigned long)r.errors_hash,
                (unsigned long)r.errors_io, (unsigned long)r.errors_tls, (unsigned long)r.errors_timeout);
  ck_assert_uint_eq(r.requests_ok, 4 * tg->len);
  ValServerStats st;
  val_server_stats(s, &st);
  ck_assert_uint_eq(st.status_2xx, 4 * tg->len);
  if (mode == VAL_MODE_SENDFILE_KTLS) {
    /* SSL_sendfile only on connections where kTLS engaged */
    ck_assert_uint_eq(st.ktls_conns + st.ktls_fallback_conns, st.accepted);
    if (st.ktls_conns == 0) ck_assert_uint_eq(st.ssl_sendfile_calls, 0);
    if (!val_server_ktls(s)->ulp_ok) ck_assert_uint_eq(st.ktls_conns, 0);
  }
  if (mode == VAL_MODE_SENDFILE) ck_assert_uint_gt(st.sendfile_calls, 0);
  for (guint i = 0; i < tg->len; i++) g_free(g_array_index(tg, ValLoadTarget, i).path);
  g_array_free(tg, TRUE);
  val_server_stop(s);
  ck_assert_int_eq(count_fds(), fds0);
  free_tree(&t);
}

START_TEST(test_bodies_userspace)
{
  bodies_exact(VAL_MODE_USERSPACE, 0);
}
END_TEST
START_TEST(test_bodies_sendfile)
{
  bodies_exact(VAL_MODE_SENDFILE, 0);
}
END_TEST
START_TEST(test_bodies_ktls)
{
  bodies_exact(VAL_MODE_SENDFILE_KTLS, 0);
}
END_TEST
/* 48 KiB: above one TLS record, below most bodies (the mark follows what is left of each) */
START_TEST(test_bodies_userspace_lowat)
{
  bodies_exact(VAL_MODE_USERSPACE, 49152);
}
END_TEST
START_TEST(test_bodies_sendfile_lowat)
{
  bodies_exact(VAL_MODE_SENDFILE, 49152);
}
END_TEST

/* One request on a fresh connection; returns status, fills len and sha. */
static int get1(int port, SSL_CTX *ctx, const char *method, const char *path, const char *range, uint64_t *len,
                unsigned char sha[32])
{
  g_autoptr(GError) err = NULL;
  g_autoptr(ValClient) c = val_client_connect("127.0.0.1", port, ctx, 20, &err);
  ck_assert_msg(c != NULL, "%s", err ? err->message : "");
  int status = 0;
  ck_assert_msg(val_client_get(c, method, path, range, &status, len, sha, &err), "%s %s: %s", method, path,
                err ? err->message : "");
  return status;
}

static void check_range(Tree *t, int port, SSL_CTX *ctx, uint64_t first, uint64_t last)
{
  g_autofree char *range = g_strdup_printf("bytes=%" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT, first, last);
  uint64_t len;
  unsigned char got[32], want[32];
  ck_assert_int_eq(get1(port, ctx, "GET", "/sparse.bin", range, &len, got), 206);
  ck_assert_uint_eq(len, last - first + 1);
  ck_assert(val_sha256_file_range(t->sparse, first, len, want, NULL));
  ck_assert_msg(memcmp(got, want, 32) == 0, "range %s differs", range);
}

START_TEST(test_sparse_over_4gib)
{
  Tree t = make_tree();
  for (int m = 0; m < VAL_MODE_COUNT; m++) {
    ValServer *s = start(&t, (ValServerMode)m, 1);
    SSL_CTX *ctx = client_ctx((ValServerMode)m);
    int port = val_server_port(s);
    check_range(&t, port, ctx, (1ULL << 32) + 12000, (1ULL << 32) + 12999); /* starts past 2^32 */
    check_range(&t, port, ctx, (1ULL << 32) - 10, (1ULL << 32) + 10);       /* crosses 2^32 */
    check_range(&t, port, ctx, SPARSE_SIZE - 70000, SPARSE_SIZE - 1);       /* the tail */
    check_range(&t, port, ctx, (1ULL << 31) - 3, (1ULL << 31) + 200000);    /* across 2^31 (signed 32-bit) */
    uint64_t len;
    unsigned char sha[32];
    ck_assert_int_eq(get1(port, ctx, "HEAD", "/sparse.bin", NULL, &len, sha), 200);
    ck_assert_uint_eq(len, SPARSE_SIZE);
    ck_assert_int_eq(get1(port, ctx, "GET", "/sparse.bin", "bytes=-5", &len, sha), 206);
    ck_assert_uint_eq(len, 5);
    if (m == VAL_MODE_SENDFILE) { /* the whole > 4 GiB body once, on the fastest path */
      unsigned char want[32];
      ck_assert_int_eq(get1(port, ctx, "GET", "/sparse.bin", NULL, &len, sha), 200);
      ck_assert_uint_eq(len, SPARSE_SIZE);
      ck_assert(val_sha256_file_range(t.sparse, 0, SPARSE_SIZE, want, NULL));
      ck_assert(memcmp(sha, want, 32) == 0);
    }
    SSL_CTX_free(ctx);
    val_server_stop(s);
  }
  free_tree(&t);
}
END_TEST

START_TEST(test_outside_root_refused)
{
  Tree t = make_tree();
  for (int m = VAL_MODE_USERSPACE; m < VAL_MODE_COUNT; m++) {
    ValServer *s = start(&t, (ValServerMode)m, 1);
    SSL_CTX *ctx = client_ctx((ValServerMode)m);
    const char *paths[] = {
      "/../secret.txt", "/%2e%2e/secret.txt", "/..%2fsecret.txt", "/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd", "/escape", "/escape-rel",
      "//etc/passwd",   "/etc/passwd",        "/./../secret.txt", "http://localhost/../secret.txt",  "/"
    };
    for (size_t i = 0; i < G_N_ELEMENTS(paths); i++) {
      g_autoptr(GError) err = NULL;
      g_autoptr(ValClient) c = val_client_connect("127.0.0.1", val_server_port(s), ctx, 20, &err);
      ck_assert(c);
      g_autofree char *req = g_strdup_printf("GET %s HTTP/1.1\r\nHost: x\r\n\r\n", paths[i]);
      ck_assert(val_client_send(c, req, strlen(req), &err));
      int status;
      int64_t clen;
      gboolean cl;
      ck_assert(val_client_read_head(c, &status, &clen, &cl, &err));
      ck_assert_msg(status == 403 || status == 404, "%s -> %d", paths[i], status);
      char body[256];
      gssize n = val_client_read_body(c, (uint64_t)MIN(clen, 255), NULL, &err);
      ck_assert_int_ge(n, 0);
      body[n] = 0;
      ck_assert(strstr(body, "SECRET") == NULL);
      /* keep-alive survives an error response */
      uint64_t len;
      unsigned char sha[32];
      ck_assert(val_client_get(c, "GET", "/f1.bin", NULL, &status, &len, sha, &err));
      ck_assert_int_eq(status, 200);
    }
    ValServerStats st;
    val_server_stats(s, &st);
    ck_assert_uint_eq(st.status_4xx, G_N_ELEMENTS(paths));
    SSL_CTX_free(ctx);
    val_server_stop(s);
  }
  free_tree(&t);
}
END_TEST

START_TEST(test_keepalive_pipeline_head_errors)
{
  Tree t = make_tree();
  ValServer *s = start(&t, VAL_MODE_USERSPACE, 1);
  SSL_CTX *ctx = client_ctx(VAL_MODE_USERSPACE);
  g_autoptr(GError) err = NULL;
  g_autoptr(ValClient) c = val_client_connect("127.0.0.1", val_server_port(s), ctx, 20, &err);
  const char *two = "GET /f16385.bin HTTP/1.1\r\nHost: x\r\n\r\nHEAD /f65536.bin HTTP/1.1\r\nHost: x\r\n\r\n";
  ck_assert(val_client_send(c, two, strlen(two), &err));
  int status;
  int64_t clen;
  gboolean cl;
  ck_assert(val_client_read_head(c, &status, &clen, &cl, &err));
  ck_assert_int_eq(status, 200);
  ck_assert_int_eq(clen, 16385);
  uint64_t got = 0;
  while (got < 16385) {
    gssize n = val_client_read_body(c, 16385 - got, NULL, &err);
    ck_assert_int_gt(n, 0);
    got += (uint64_t)n;
  }
  ck_assert(val_client_read_head(c, &status, &clen, &cl, &err));
  ck_assert_int_eq(status, 200);
  ck_assert_int_eq(clen, 65536); /* HEAD: length, no body */
  uint64_t len;
  unsigned char sha[32];
  ck_assert(val_client_get(c, "GET", "/f1.bin", "bytes=5-", &status, &len, sha, &err));
  ck_assert_int_eq(status, 416);
  ck_assert(val_client_get(c, "GET", "/nope", NULL, &status, &len, sha, &err));
  ck_assert_int_eq(status, 404);
  const char *post = "POST /f1.bin HTTP/1.1\r\nHost: x\r\n\r\n";
  ck_assert(val_client_send(c, post, strlen(post), &err));
  ck_assert(val_client_read_head(c, &status, &clen, &cl, &err));
  ck_assert_int_eq(status, 405);
  ck_assert(cl); /* the server closes after a bad request */
  SSL_CTX_free(ctx);
  val_server_stop(s);
  free_tree(&t);
}
END_TEST

/* Waits (bounded) until the server has no open connection. */
static gboolean wait_closed(ValServer *s, double secs)
{
  int64_t end = val_now_ns() + (int64_t)(secs * 1e9);
  ValServerStats st;
  do {
    val_server_stats(s, &st);
    if (st.open_conns == 0) return TRUE;
    val_sleep_ns(10000000);
  } while (val_now_ns() < end);
  return FALSE;
}

/* The server is idle: its workers' CPU time over a stretch of wall time is far below it (a
 * spinning worker would use all of it it is given; no bound on speed). */
static void assert_idle(ValServer *s)
{
  int64_t c0 = val_server_cpu_ns(s), w0 = val_now_ns();
  val_sleep_ns(200000000);
  int64_t c1 = val_server_cpu_ns(s), w1 = val_now_ns();
  ck_assert_msg((c1 - c0) * 4 < (w1 - w0), "server used %.3f s CPU in %.3f s idle", (c1 - c0) * 1e-9, (w1 - w0) * 1e-9);
}

static void vanish(ValServerMode mode, gboolean rst, gboolean read_some)
{
  Tree t = make_tree();
  int fds0 = count_fds();
  ValServer *s = start(&t, mode, 2);
  SSL_CTX *ctx = client_ctx(mode);
  int port = val_server_port(s);
  for (int k = 0; k < 3; k++) {
    g_autoptr(GError) err = NULL;
    ValClient *c = val_client_connect("127.0.0.1", port, ctx, 20, &err);
    ck_assert(c);
    const char *req = "GET /sparse.bin HTTP/1.1\r\nHost: x\r\n\r\n"; /* 4 GiB: surely mid-transfer */
    ck_assert(val_client_send(c, req, strlen(req), &err));
    int status;
    int64_t clen;
    gboolean cl;
    ck_assert(val_client_read_head(c, &status, &clen, &cl, &err));
    ck_assert_int_eq(status, 200);
    if (read_some) {
      uint64_t got = 0;
      while (got < 300000) {
        gssize n = val_client_read_body(c, 65536, NULL, &err);
        ck_assert_int_gt(n, 0);
        got += (uint64_t)n;
      }
    }
    val_client_abort(c, rst);
  }
  ck_assert_msg(wait_closed(s, 10), "server kept connections of vanished clients");
  assert_idle(s); /* no worker spins */
  /* still healthy */
  uint64_t len;
  unsigned char sha[32], want[32];
  ck_assert_int_eq(get1(port, ctx, "GET", "/f65535.bin", NULL, &len, sha), 200);
  g_autofree char *p = g_build_filename(t.root, "f65535.bin", NULL);
  ck_assert(val_sha256_file_range(p, 0, 65535, want, NULL));
  ck_assert(memcmp(sha, want, 32) == 0);
  ValServerStats st;
  val_server_stats(s, &st);
  ck_assert_uint_ge(st.client_aborts, 1);
  SSL_CTX_free(ctx);
  val_server_stop(s);
  ck_assert_int_eq(count_fds(), fds0);
  free_tree(&t);
}

START_TEST(test_close_mid_transfer_tls)
{
  vanish(VAL_MODE_USERSPACE, FALSE, TRUE);
}
END_TEST
START_TEST(test_rst_mid_transfer_tls)
{
  vanish(VAL_MODE_USERSPACE, TRUE, TRUE);
}
END_TEST
START_TEST(test_close_mid_transfer_plain)
{
  vanish(VAL_MODE_SENDFILE, FALSE, TRUE);
}
END_TEST
START_TEST(test_rst_unread_ktls_mode)
{
  vanish(VAL_MODE_SENDFILE_KTLS, TRUE, FALSE);
}
END_TEST

START_TEST(test_slow_reader)
{
  Tree t = make_tree();
  ValServer *s = start(&t, VAL_MODE_USERSPACE, 1); /* one worker: the slow reader must not block it */
  SSL_CTX *ctx = client_ctx(VAL_MODE_USERSPACE);
  int port = val_server_port(s);
  g_autoptr(GError) err = NULL;
  g_autoptr(ValClient) slow = val_client_connect("127.0.0.1", port, ctx, 20, &err);
  ck_assert(slow);
  const char *req = "GET /f1048576.bin HTTP/1.1\r\nHost: x\r\n\r\n";
  ck_assert(val_client_send(slow, req, strlen(req), &err));
  int status;
  int64_t clen;
  gboolean cl;
  ck_assert(val_client_read_head(slow, &status, &clen, &cl, &err));
  ck_assert_int_eq(clen, 1 << 20);
  /* meanwhile other clients are served in full */
  GArray *tg = g_array_new(FALSE, TRUE, sizeof(ValLoadTarget));
  add_target(tg, t.root, "f65536.bin", FALSE, 0, 0, 65536);
  add_target(tg, t.root, "f16385.bin", FALSE, 0, 0, 16385);
  ValLoadConfig lc = { .port = port,
                       .tls = TRUE,
                       .connections = 3,
                       .threads = 1,
                       .targets = (ValLoadTarget *)tg->data,
                       .ntargets = (int)tg->len,
                       .requests_per_conn = 10,
                       .duration_s = 30,
                       .last_cpu = -1 };
  ValLoad *l = val_load_start(&lc, &err);
  ck_assert(l);
  EVP_MD_CTX *md = EVP_MD_CTX_new();
  EVP_DigestInit_ex(md, EVP_sha256(), NULL);
  uint64_t got = 0;
  while (got < (uint64_t)clen) {
    gssize n = val_client_read_body(slow, MIN(8192, (uint64_t)clen - got), md, &err);
    ck_assert_int_gt(n, 0);
    got += (uint64_t)n;
    if ((got & 0x1ffff) < 8192) val_sleep_ns(15000000); /* ~15 ms per 128 KiB */
  }
  unsigned char sha[32], want[32];
  unsigned int dl = 32;
  EVP_DigestFinal_ex(md, sha, &dl);
  EVP_MD_CTX_free(md);
  g_autofree char *p = g_build_filename(t.root, "f1048576.bin", NULL);
  ck_assert(val_sha256_file_range(p, 0, 1 << 20, want, NULL));
  ck_assert(memcmp(sha, want, 32) == 0);
  ck_assert(val_load_wait(l, 30));
  ValLoadResult r;
  val_load_stop(l, &r);
  ck_assert_uint_eq(val_load_errors(&r), 0);
  ck_assert_uint_eq(r.requests_ok, 30);
  for (guint i = 0; i < tg->len; i++) g_free(g_array_index(tg, ValLoadTarget, i).path);
  g_array_free(tg, TRUE);
  SSL_CTX_free(ctx);
  val_server_stop(s);
  free_tree(&t);
}
END_TEST

START_TEST(test_certificates)
{
  Tree t = make_tree();
  ValServerConfig c = { .root = t.root, .mode = VAL_MODE_USERSPACE, .quiet = TRUE };
  g_autofree char *missing = g_build_filename(t.base, "missing.pem", NULL);
  g_autofree char *junk = g_build_filename(t.base, "junk.pem", NULL);
  g_autofree char *cert = g_build_filename(t.base, "cert.pem", NULL);
  g_autofree char *key = g_build_filename(t.base, "key.pem", NULL);
  g_autofree char *cert2 = g_build_filename(t.base, "cert2.pem", NULL);
  g_autofree char *key2 = g_build_filename(t.base, "key2.pem", NULL);
  ck_assert(g_file_set_contents(junk, "-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n", -1, NULL));
  ck_assert(val_tls_write_self_signed(cert, key, NULL));
  ck_assert(val_tls_write_self_signed(cert2, key2, NULL));
  struct {
    const char *cert, *key, *expect;
  } cases[] = { { missing, key, "no such file" },  { junk, key, "cannot load certificate" },
                { cert, missing, "no such file" }, { cert, junk, "cannot load private key" },
                { cert, key2, "mismatch" },        { NULL, key, "without a certificate" } };
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    c.cert_file = cases[i].cert;
    c.key_file = cases[i].key;
    g_autoptr(GError) err = NULL;
    ValServer *s = val_server_start(&c, &err);
    ck_assert_msg(s == NULL, "case %zu started", i);
    ck_assert(err != NULL);
    ck_assert_msg(strstr(err->message, cases[i].expect), "case %zu: '%s'", i, err->message);
    ck_assert(strchr(err->message, '\n') == NULL); /* one line */
  }
  c.cert_file = cert;
  c.key_file = key;
  g_autoptr(GError) err = NULL;
  ValServer *s = val_server_start(&c, &err);
  ck_assert_msg(s, "%s", err ? err->message : "");
  SSL_CTX *ctx = client_ctx(VAL_MODE_USERSPACE);
  uint64_t len;
  unsigned char sha[32];
  ck_assert_int_eq(get1(val_server_port(s), ctx, "GET", "/f16384.bin", NULL, &len, sha), 200);
  ck_assert_uint_eq(len, 16384);
  SSL_CTX_free(ctx);
  val_server_stop(s);
  /* a root that is not a directory */
  c.root = t.secret;
  c.cert_file = c.key_file = NULL;
  g_autoptr(GError) err2 = NULL;
  ck_assert(val_server_start(&c, &err2) == NULL);
  ck_assert(err2 != NULL);
  free_tree(&t);
}
END_TEST

START_TEST(test_versions_and_ciphers)
{
  Tree t = make_tree();
  ValServer *s = start(&t, VAL_MODE_USERSPACE, 1);
  GArray *tg = g_array_new(FALSE, TRUE, sizeof(ValLoadTarget));
  add_target(tg, t.root, "f65535.bin", FALSE, 0, 0, 65535);
  const ValTlsVersion vers[] = { VAL_TLS_12, VAL_TLS_13 };
  for (int v = 0; v < 2; v++)
    for (int c = VAL_CIPHER_AES128GCM; c < VAL_CIPHER_COUNT; c++) {
      ValLoadConfig lc = { .port = val_server_port(s),
                           .tls = TRUE,
                           .version = vers[v],
                           .cipher = (ValCipher)c,
                           .connections = 1,
                           .targets = (ValLoadTarget *)tg->data,
                           .ntargets = 1,
                           .requests_per_conn = 2,
                           .duration_s = 20,
                           .last_cpu = -1 };
      ValLoadResult r;
      ck_assert(val_load_run(&lc, &r, NULL));
      ck_assert_uint_eq(val_load_errors(&r), 0);
      ck_assert_uint_eq(r.requests_ok, 2);
      ck_assert_int_eq(r.tls_version, vers[v]);
      ck_assert_int_eq(r.cipher, c);
    }
  g_free(g_array_index(tg, ValLoadTarget, 0).path);
  g_array_free(tg, TRUE);
  val_server_stop(s);
  free_tree(&t);
}
END_TEST

/* ---- abuse (issue 16) ------------------------------------------------------ */

static const ValServerMode all_modes[] = { VAL_MODE_SENDFILE_KTLS, VAL_MODE_USERSPACE, VAL_MODE_SENDFILE };

/* Reads exactly @len body bytes into a SHA-256 (out); FALSE (with the count read) when the
 * connection ends or fails first. */
static gboolean read_body_sha(ValClient *c, uint64_t len, unsigned char out[32], uint64_t *got, GError **err)
{
  EVP_MD_CTX *md = EVP_MD_CTX_new();
  EVP_DigestInit_ex(md, EVP_sha256(), NULL);
  *got = 0;
  gboolean ok = TRUE;
  while (*got < len) {
    gssize n = val_client_read_body(c, len - *got, md, err);
    if (n <= 0) {
      ok = FALSE;
      break;
    }
    *got += (uint64_t)n;
  }
  unsigned int dl = 32;
  EVP_DigestFinal_ex(md, out, &dl);
  EVP_MD_CTX_free(md);
  return ok;
}

static void sha_of(Tree *t, const char *name, uint64_t first, uint64_t len, unsigned char out[32])
{
  g_autofree char *p = g_build_filename(t->root, name, NULL);
  ck_assert(val_sha256_file_range(p, first, len, out, NULL));
}

/* Health after abuse: the server answers, byte-exact, ends up holding no connection, has the
 * descriptors it had when it was started (@fds_idle, this process's /proc/self/fd) and sits idle. */
static void assert_healthy(Tree *t, ValServer *s, SSL_CTX *ctx, int fds_idle)
{
  uint64_t len;
  unsigned char sha[32], want[32];
  ck_assert_int_eq(get1(val_server_port(s), ctx, "GET", "/f65536.bin", NULL, &len, sha), 200);
  sha_of(t, "f65536.bin", 0, 65536, want);
  ck_assert(len == 65536 && memcmp(sha, want, 32) == 0);
  ck_assert_msg(wait_closed(s, 15), "server still holds connections");
  int fds = count_fds();
  ck_assert_msg(fds == fds_idle, "%d descriptors open, %d when the server was idle", fds, fds_idle);
  assert_idle(s);
}

/* assert_healthy, then stops the server and frees the client context. */
static void healthy_stop(Tree *t, ValServer *s, SSL_CTX *ctx, int fds_idle)
{
  assert_healthy(t, s, ctx, fds_idle);
  SSL_CTX_free(ctx);
  val_server_stop(s);
}

/* Connects, sends @req and reads the response head; returns the connection. */
static ValClient *request_head_rcvbuf(int port, SSL_CTX *ctx, const char *req, int rcvbuf, int *status, int64_t *clen,
                                      gboolean *cl)
{
  g_autoptr(GError) err = NULL;
  ValClient *c = val_client_connect_opts("127.0.0.1", port, ctx, 20, NULL, rcvbuf, &err);
  ck_assert_msg(c, "%s", err ? err->message : "");
  ck_assert(val_client_send(c, req, strlen(req), &err));
  ck_assert_msg(val_client_read_head(c, status, clen, cl, &err), "%s", err ? err->message : "");
  return c;
}

/* request_head_rcvbuf with the kernel's receive buffer. */
static ValClient *request_head(int port, SSL_CTX *ctx, const char *req, int *status, int64_t *clen, gboolean *cl)
{
  return request_head_rcvbuf(port, ctx, req, 0, status, clen, cl);
}

/* A response that ends the connection, with a request pipelined while it is in flight: the
 * whole 2 MiB body arrives, then close_notify (TLS) and EOF, never a reset (RFC 9112 §9.6).
 * Once as HTTP/1.1 Connection: close, once as HTTP/1.0. */
START_TEST(test_lingering_close)
{
  Tree t = make_tree();
  g_autofree char *big = g_build_filename(t.root, "f2m.bin", NULL);
  fill_file(big, 2 << 20, 99);
  unsigned char want[32];
  sha_of(&t, "f2m.bin", 0, 2 << 20, want);
  int fds0 = count_fds();
  for (size_t m = 0; m < G_N_ELEMENTS(all_modes); m++)
    for (int v10 = 0; v10 < 2; v10++) {
      ValServer *s = start(&t, all_modes[m], 1);
      SSL_CTX *ctx = client_ctx(all_modes[m]);
      int fds_idle = count_fds(); /* the idle server's descriptors: the same after the clients leave */
      g_autoptr(GError) err = NULL;
      const char *req = v10 ? "GET /f2m.bin HTTP/1.0\r\n\r\n" : "GET /f2m.bin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
      int status;
      int64_t clen;
      gboolean cl;
      ValClient *c = request_head(val_server_port(s), ctx, req, &status, &clen, &cl);
      ck_assert_int_eq(status, 200);
      ck_assert(cl);
      /* a first piece, then a pipelined request the server will never answer, then a pause
       * long enough for the server to write the rest and start closing */
      unsigned char piece[32];
      uint64_t got1 = 0, got2 = 0;
      ck_assert(read_body_sha(c, 1, piece, &got1, &err));
      const char *more = "GET /f1.bin HTTP/1.1\r\nHost: x\r\n\r\n";
      ck_assert(val_client_send(c, more, strlen(more), &err));
      val_sleep_ns(300000000);
      EVP_MD_CTX *md = EVP_MD_CTX_new();
      EVP_DigestInit_ex(md, EVP_sha256(), NULL);
      /* hash the first byte again from the file, then the rest as it comes */
      g_autofree char *first = NULL;
      gsize flen = 0;
      ck_assert(g_file_get_contents(big, &first, &flen, NULL));
      EVP_DigestUpdate(md, first, 1);
      gboolean ok = TRUE;
      while (got2 < (uint64_t)clen - 1) {
        gssize n = val_client_read_body(c, (uint64_t)clen - 1 - got2, md, &err);
        if (n <= 0) {
          ok = FALSE;
          break;
        }
        got2 += (uint64_t)n;
      }
      unsigned char sha[32];
      unsigned int dl = 32;
      EVP_DigestFinal_ex(md, sha, &dl);
      EVP_MD_CTX_free(md);
      ck_assert_msg(ok, "%s %s: body cut at %" G_GUINT64_FORMAT " of %" G_GINT64_FORMAT " (%s)",
                    val_server_mode_name(all_modes[m]), v10 ? "HTTP/1.0" : "close", got2 + 1, clen, err ? err->message : "EOF");
      ck_assert(memcmp(sha, want, 32) == 0);
      ValClientClose how = val_client_wait_close(c, NULL);
      ck_assert_msg(how == VAL_CLIENT_CLOSED_CLEAN, "%s: closed %d, not cleanly", val_server_mode_name(all_modes[m]), how);
      val_client_abort(c, FALSE);
      ck_assert(wait_closed(s, 15));
      ValServerStats st;
      val_server_stats(s, &st);
      ck_assert_uint_eq(st.client_aborts, 0);
      ck_assert_uint_eq(st.linger_timeouts, 0);
      ck_assert_uint_eq(st.requests, 1); /* the pipelined request was dropped, not answered */
      healthy_stop(&t, s, ctx, fds_idle);
    }
  ck_assert_int_eq(count_fds(), fds0);
  free_tree(&t);
}
END_TEST

static GMutex log_lock;
static GString *log_text;

static void capture_log(const gchar *domain G_GNUC_UNUSED, GLogLevelFlags level G_GNUC_UNUSED, const gchar *msg,
                        gpointer data G_GNUC_UNUSED)
{
  g_mutex_lock(&log_lock);
  g_string_append_printf(log_text, "%s\n", msg);
  g_mutex_unlock(&log_lock);
}

/* A 64 MiB file cut to 1 MiB while it is being sent: the client gets fewer bytes and an
 * unclean end, the server says "truncated at N of M" and counts it apart from aborts. */
START_TEST(test_truncation_reported)
{
  Tree t = make_tree();
  log_text = g_string_new(NULL);
  guint h = g_log_set_handler("ocasim-serve", G_LOG_LEVEL_MESSAGE, capture_log, NULL);
  g_autofree char *big = g_build_filename(t.root, "shrinks.bin", NULL);
  const uint64_t size = 64ULL << 20;
  for (size_t m = 0; m < G_N_ELEMENTS(all_modes); m++) {
    int fd = open(big, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(ftruncate(fd, (off_t)size), 0);
    ValServer *s = start(&t, all_modes[m], 1);
    SSL_CTX *ctx = client_ctx(all_modes[m]);
    int fds_idle = count_fds() - 1; /* the idle server's descriptors, less the test's fd of the file (closed below) */
    g_autoptr(GError) err = NULL;
    int status;
    int64_t clen;
    gboolean cl;
    ValClient *c = request_head(val_server_port(s), ctx, "GET /shrinks.bin HTTP/1.1\r\nHost: x\r\n\r\n", &status, &clen, &cl);
    ck_assert_int_eq(clen, (int64_t)size);
    unsigned char sha[32];
    uint64_t got = 0;
    ck_assert(read_body_sha(c, 65536, sha, &got, &err));
    ck_assert_int_eq(ftruncate(fd, 1 << 20), 0);
    close(fd);
    uint64_t rest = 0;
    g_clear_error(&err);
    ck_assert(!read_body_sha(c, size - got, sha, &rest, &err));
    ck_assert_uint_lt(got + rest, size);
    val_client_abort(c, FALSE);
    ck_assert(wait_closed(s, 15));
    ValServerStats st;
    val_server_stats(s, &st);
    ck_assert_msg(st.truncations == 1 && st.client_aborts == 0 && st.responses_cut == 1,
                  "%s: truncations %" G_GUINT64_FORMAT ", aborts %" G_GUINT64_FORMAT, val_server_mode_name(all_modes[m]),
                  st.truncations, st.client_aborts);
    healthy_stop(&t, s, ctx, fds_idle);
  }
  g_log_remove_handler("ocasim-serve", h);
  ck_assert_msg(strstr(log_text->str, "/shrinks.bin truncated at ") && strstr(log_text->str, " of 67108864 body bytes"),
                "log: %s", log_text->str);
  g_string_free(log_text, TRUE);
  free_tree(&t);
}
END_TEST

/* An idle keep-alive connection is closed after idle_timeout_s with close_notify. */
START_TEST(test_idle_close_notify)
{
  Tree t = make_tree();
  for (int m = VAL_MODE_SENDFILE_KTLS; m <= VAL_MODE_USERSPACE; m++) {
    ValServerConfig cfg = { .root = t.root, .mode = (ValServerMode)m, .quiet = TRUE, .idle_timeout_s = 0.5 };
    ValServer *s = start_cfg(&cfg);
    SSL_CTX *ctx = client_ctx((ValServerMode)m);
    g_autoptr(GError) err = NULL;
    ValClient *c = val_client_connect("127.0.0.1", val_server_port(s), ctx, 20, &err);
    int status;
    uint64_t len;
    unsigned char sha[32];
    ck_assert(val_client_get(c, "GET", "/f16384.bin", NULL, &status, &len, sha, &err));
    ck_assert_int_eq(status, 200);
    ValClientClose how = val_client_wait_close(c, NULL);
    ck_assert_msg(how == VAL_CLIENT_CLOSED_CLEAN, "%s: idle close %d without close_notify", val_server_mode_name(m), how);
    val_client_abort(c, FALSE);
    ck_assert(wait_closed(s, 15));
    ValServerStats st;
    val_server_stats(s, &st);
    ck_assert_uint_eq(st.idle_timeouts, 1);
    SSL_CTX_free(ctx);
    val_server_stop(s);
  }
  free_tree(&t);
}
END_TEST

/* Every 5th socket write fails with EAGAIN and some are cut short: every body stays exact and
 * every closing response still ends with close_notify (retried through epoll). */
START_TEST(test_faults_close_notify)
{
  Tree t = make_tree();
  int fds0 = count_fds();
  for (size_t m = 0; m < G_N_ELEMENTS(all_modes); m++) {
    ValServerConfig cfg = { .root = t.root, .mode = all_modes[m], .quiet = TRUE, .idle_timeout_s = 20, .fault_every = 5 };
    ValServer *s = start_cfg(&cfg);
    SSL_CTX *ctx = client_ctx(all_modes[m]);
    int fds_idle = count_fds(); /* the idle server's descriptors: the same after the clients leave */
    int port = val_server_port(s);
    for (int k = 0; k < 40; k++) {
      uint64_t size = sizes[1 + k % (G_N_ELEMENTS(sizes) - 1)];
      g_autofree char *path = g_strdup_printf("/f%" G_GUINT64_FORMAT ".bin", size);
      g_autoptr(GError) err = NULL;
      ValClient *c = val_client_connect("127.0.0.1", port, ctx, 20, &err);
      ck_assert(c);
      /* a keep-alive request, then the closing one */
      int status;
      uint64_t len;
      unsigned char sha[32], want[32];
      ck_assert(val_client_get(c, "GET", path, NULL, &status, &len, sha, &err));
      sha_of(&t, path + 1, 0, size, want);
      ck_assert(status == 200 && len == size && memcmp(sha, want, 32) == 0);
      g_autofree char *req = g_strdup_printf("GET %s HTTP/1.0\r\n\r\n", path);
      ck_assert(val_client_send(c, req, strlen(req), &err));
      int64_t clen;
      gboolean cl;
      ck_assert(val_client_read_head(c, &status, &clen, &cl, &err));
      uint64_t got;
      ck_assert(read_body_sha(c, (uint64_t)clen, sha, &got, &err));
      ck_assert(memcmp(sha, want, 32) == 0);
      ValClientClose how = val_client_wait_close(c, NULL);
      ck_assert_msg(how == VAL_CLIENT_CLOSED_CLEAN, "%s, request %d: closed %d", val_server_mode_name(all_modes[m]), k, how);
      val_client_abort(c, FALSE);
    }
    ValServerStats st;
    val_server_stats(s, &st);
    ck_assert_uint_eq(st.client_aborts, 0);
    healthy_stop(&t, s, ctx, fds_idle);
  }
  ck_assert_int_eq(count_fds(), fds0);
  free_tree(&t);
}
END_TEST

/* A connection the peer has closed (or reset); does not block. */
static gboolean peer_closed(int fd)
{
  struct pollfd p = { .fd = fd, .events = POLLIN | POLLRDHUP };
  return poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

static int raw_connect(int port)
{
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
  return fd;
}

/* Slowloris: 40 connections drip a header line every 0.2 s (more often than idle_timeout_s),
 * 20 more (TLS) never finish a handshake; the cap is 24.  Normal GETs are served all along,
 * the cap holds, and every dripper is closed once head_timeout_s has passed. */
START_TEST(test_slowloris)
{
  Tree t = make_tree();
  int fds0 = count_fds();
  enum { DRIP = 40, MUTE = 20, CAP = 24 };
  for (size_t m = 0; m < G_N_ELEMENTS(all_modes); m++) {
    gboolean tls = val_server_mode_is_tls(all_modes[m]);
    ValServerConfig cfg = {
      .root = t.root, .mode = all_modes[m], .quiet = TRUE, .idle_timeout_s = 0.5, .head_timeout_s = 1.5, .max_conns = CAP
    };
    ValServer *s = start_cfg(&cfg);
    SSL_CTX *ctx = client_ctx(all_modes[m]);
    int fds_idle = count_fds(); /* the idle server's descriptors: the same after the clients leave */
    int port = val_server_port(s);
    ValClient *drip[DRIP];
    int mute[MUTE], nmute = tls ? MUTE : 0;
    gboolean closed[DRIP + MUTE] = { FALSE };
    for (int i = 0; i < DRIP; i++) {
      g_autoptr(GError) err = NULL;
      drip[i] = val_client_connect("127.0.0.1", port, ctx, 5, &err);
      ck_assert_msg(drip[i], "%s", err ? err->message : "");
      const char *line = "GET /f1.bin HTTP/1.1\r\nHost: x\r\n";
      if (!val_client_send(drip[i], line, strlen(line), &err)) closed[i] = TRUE; /* evicted already */
    }
    for (int i = 0; i < nmute; i++) mute[i] = raw_connect(port);
    int served = 0;
    for (int round = 0; round < 18; round++) { /* >= 3.6 s: past head_timeout_s however loaded */
      for (int i = 0; i < DRIP; i++) {
        if (closed[i] || (closed[i] = peer_closed(val_client_fd(drip[i])))) continue;
        g_autoptr(GError) err = NULL;
        if (!val_client_send(drip[i], "X-a: b\r\n", 8, &err)) closed[i] = TRUE;
      }
      if (round % 3 == 0) {
        uint64_t len;
        unsigned char sha[32], want[32];
        ck_assert_int_eq(get1(port, ctx, "GET", "/f16385.bin", NULL, &len, sha), 200);
        sha_of(&t, "f16385.bin", 0, 16385, want);
        ck_assert(memcmp(sha, want, 32) == 0);
        served++;
      }
      ValServerStats st;
      val_server_stats(s, &st);
      ck_assert_msg(st.open_conns <= CAP, "%" G_GINT64_FORMAT " open connections, cap %d", st.open_conns, CAP);
      val_sleep_ns(200000000);
    }
    /* every dripper and mute connection is closed by now (head_timeout_s 1.5 s, polled) */
    int64_t end = val_now_ns() + 10000000000LL;
    int open;
    do {
      open = 0;
      for (int i = 0; i < DRIP; i++) open += !(closed[i] = closed[i] || peer_closed(val_client_fd(drip[i])));
      for (int i = 0; i < nmute; i++) open += !(closed[DRIP + i] = closed[DRIP + i] || peer_closed(mute[i]));
      if (open) val_sleep_ns(50000000);
    } while (open && val_now_ns() < end);
    ck_assert_msg(open == 0, "%s: %d slow connections still open", val_server_mode_name(all_modes[m]), open);
    ck_assert_int_eq(served, 6);
    for (int i = 0; i < DRIP; i++) val_client_abort(drip[i], FALSE);
    for (int i = 0; i < nmute; i++) close(mute[i]);
    ValServerStats st;
    val_server_stats(s, &st);
    ck_assert_uint_gt(st.head_timeouts + st.evicted, 0);
    healthy_stop(&t, s, ctx, fds_idle);
  }
  ck_assert_int_eq(count_fds(), fds0);
  free_tree(&t);
}
END_TEST

/* Sends @req (len bytes) on a fresh connection and returns the status of the reply (0: the
 * connection closed without one); a 200 or 206 body must be bytes [@first, @first + its
 * Content-Length) of @name in the root (NULL: not read). */
static int raw_status(Tree *t, int port, SSL_CTX *ctx, const char *req, size_t len, const char *name, uint64_t first)
{
  g_autoptr(GError) err = NULL;
  g_autoptr(ValClient) c = val_client_connect("127.0.0.1", port, ctx, 20, &err);
  ck_assert(c);
  if (!val_client_send(c, req, len, &err)) return 0; /* the server closed while we sent */
  int status;
  int64_t clen;
  gboolean cl;
  if (!val_client_read_head(c, &status, &clen, &cl, &err)) return 0;
  if (name && (status == 200 || status == 206)) {
    unsigned char sha[32], want[32];
    uint64_t got = 0;
    ck_assert_msg(clen >= 0 && read_body_sha(c, (uint64_t)clen, sha, &got, &err), "%s: body ended short", name);
    sha_of(t, name, first, (uint64_t)clen, want);
    ck_assert_msg(memcmp(sha, want, 32) == 0, "%s: body of %" G_GINT64_FORMAT " bytes from %" G_GUINT64_FORMAT " differs", name,
                  clen, first);
  }
  return status;
}

/* Malformed and hostile requests, in every mode: each gets its status (or a close), and the
 * server stays healthy with the fds it had. */
START_TEST(test_hostile_requests)
{
  Tree t = make_tree();
  g_autofree char *dir = g_build_filename(t.root, "adir", NULL);
  g_autofree char *fifo = g_build_filename(t.root, "afifo", NULL);
  g_autofree char *dev = g_build_filename(t.root, "anull", NULL);
  ck_assert_int_eq(mkdir(dir, 0755), 0);
  ck_assert_int_eq(mkfifo(fifo, 0644), 0);
  gboolean have_dev = mknod(dev, S_IFCHR | 0644, makedev(1, 3)) == 0; /* /dev/null; needs privilege */
  int fds0 = count_fds();
  GString *longline = g_string_new("GET /");
  while (longline->len < (1 << 20)) g_string_append_c(longline, 'a');
  g_string_append(longline, " HTTP/1.1\r\nHost: x\r\n\r\n");
  GString *headers = g_string_new("GET /f1.bin HTTP/1.1\r\nHost: x\r\n");
  for (int i = 0; i < 10000; i++) g_string_append_printf(headers, "X-%d: v\r\n", i);
  g_string_append(headers, "\r\n");
  GString *ranges = g_string_new("GET /f65536.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=0-0");
  for (int i = 1; i < 1000; i++) g_string_append_printf(ranges, ",%d-%d", i * 2, i * 2);
  g_string_append(ranges, "\r\n\r\n");
  GString *few = g_string_new("GET /f65536.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=0-0");
  for (int i = 1; i < 100; i++) g_string_append_printf(few, ",%d-%d", i * 2, i * 2);
  g_string_append(few, "\r\n\r\n");
  char junk[4096]; /* binary garbage, NULs included */
  uint32_t x = 12345;
  for (size_t i = 0; i < sizeof junk; i++) {
    x = x * 1103515245u + 12345u;
    junk[i] = (char)(x >> 16);
  }
  memcpy(junk + sizeof junk - 4, "\r\n\r\n", 4); /* a complete head of junk: 400 (without its end: the head deadline) */
  struct {
    const char *req;
    size_t len;
    int expect;       /* 0: closed without a reply is fine too */
    const char *name; /* 200/206: the body must be this file's bytes from first */
    uint64_t first;
  } cases[] = {
    { longline->str, longline->len, 431, NULL, 0 },
    { headers->str, headers->len, 431, NULL, 0 },
    { ranges->str, ranges->len, 431, NULL, 0 },   /* 1000 ranges do not fit the 8 KiB head */
    { few->str, few->len, 200, "f65536.bin", 0 }, /* several ranges: ignored, the whole body */
    { "GET /f65536.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=-0\r\n\r\n", 0, 416, NULL, 0 },
    { "GET /f65536.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=5-1\r\n\r\n", 0, 200, "f65536.bin", 0 }, /* invalid: ignored */
    { "GET /f65536.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=65000-70000\r\n\r\n", 0, 206, "f65536.bin", 65000 }, /* cut at EOF */
    { "GET /f65536.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=-70000\r\n\r\n", 0, 206, "f65536.bin", 0 }, /* suffix past the start */
    { "GET /f65536.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=65536-\r\n\r\n", 0, 416, NULL, 0 },
    { "GET /f65536.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=70000-80000\r\n\r\n", 0, 416, NULL, 0 },
    { "GET /f1%00.bin HTTP/1.1\r\nHost: x\r\n\r\n", 0, 400, NULL, 0 },
    { "GET /adir HTTP/1.1\r\nHost: x\r\n\r\n", 0, 403, NULL, 0 },
    { "GET /afifo HTTP/1.1\r\nHost: x\r\n\r\n", 0, 403, NULL, 0 },
    { "GET /anull HTTP/1.1\r\nHost: x\r\n\r\n", 0, have_dev ? 403 : 404, NULL, 0 },
    { "GET /f1.bin HTTP/1.1\r\nHost: x\r\nContent-Length:\r\n\r\n", 0, 400, NULL, 0 },
    { "\x16\x03\x01garbage-not-http\r\n\r\n", 0, 400, NULL, 0 },
    { junk, sizeof junk, 400, NULL, 0 },
  };
  for (size_t m = 0; m < G_N_ELEMENTS(all_modes); m++) {
    ValServer *s = start(&t, all_modes[m], 1);
    SSL_CTX *ctx = client_ctx(all_modes[m]);
    int fds_idle = count_fds(); /* the idle server's descriptors: the same after the clients leave */
    int port = val_server_port(s);
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
      size_t len = cases[i].len ? cases[i].len : strlen(cases[i].req);
      int st = raw_status(&t, port, ctx, cases[i].req, len, cases[i].name, cases[i].first);
      ck_assert_msg(st == cases[i].expect || (cases[i].expect >= 400 && st == 0 && len > 8192), "%s, case %zu: status %d, not %d",
                    val_server_mode_name(all_modes[m]), i, st, cases[i].expect);
    }
    /* garbage instead of a TLS handshake: plain HTTP, binary junk, a record header with an
     * absurd length; each connection is closed (not held) */
    if (val_server_mode_is_tls(all_modes[m])) {
      const struct {
        const char *p;
        size_t n;
      } bad[] = { { "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 18 },
                  { junk, sizeof junk },
                  { "\x16\x03\x01\xff\xff\x01\x00\xff\xfb", 9 } };
      for (size_t k = 0; k < G_N_ELEMENTS(bad); k++) {
        int fd = raw_connect(port);
        send(fd, bad[k].p, bad[k].n, MSG_NOSIGNAL); /* the server may close before it all arrives */
        char b[256];
        struct timeval tv = { .tv_sec = 10 };
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        ssize_t r;
        while ((r = recv(fd, b, sizeof b, 0)) > 0) {}
        ck_assert_msg(r == 0 || errno == ECONNRESET, "%s: garbage %zu: connection not closed (%s)",
                      val_server_mode_name(all_modes[m]), k, g_strerror(errno));
        close(fd);
      }
      ValServerStats st;
      val_server_stats(s, &st);
      ck_assert_uint_ge(st.tls_failures, 3);
    }
    healthy_stop(&t, s, ctx, fds_idle);
  }
  ck_assert_int_eq(count_fds(), fds0);
  g_string_free(longline, TRUE);
  g_string_free(headers, TRUE);
  g_string_free(ranges, TRUE);
  g_string_free(few, TRUE);
  free_tree(&t);
}
END_TEST

/* 200 and 206 responses carry ETag and Last-Modified; the ETag moves when the file is rewritten. */
START_TEST(test_validators_sent)
{
  Tree t = make_tree();
  ValServer *s = start(&t, VAL_MODE_SENDFILE, 1);
  int port = val_server_port(s);
  char etag[2][128];
  for (int k = 0; k < 2; k++) {
    if (k) {
      g_autofree char *p = g_build_filename(t.root, "f16384.bin", NULL);
      struct timespec ts[2] = { { .tv_sec = 784111777 }, { .tv_sec = 784111777 } };
      ck_assert_int_eq(utimensat(AT_FDCWD, p, ts, 0), 0);
    }
    int fd = raw_connect(port);
    const char *req = "HEAD /f16384.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=1-2\r\n\r\n";
    ck_assert_int_eq(send(fd, req, strlen(req), MSG_NOSIGNAL), (ssize_t)strlen(req));
    char head[2048];
    size_t n = 0;
    while (n < sizeof head - 1 && !g_strstr_len(head, (gssize)n, "\r\n\r\n")) {
      ssize_t r = recv(fd, head + n, sizeof head - 1 - n, 0);
      ck_assert_int_gt(r, 0);
      n += (size_t)r;
      head[n] = 0;
    }
    close(fd);
    ck_assert_msg(g_str_has_prefix(head, "HTTP/1.1 206 "), "%s", head);
    const char *e = strstr(head, "\r\nETag: \"");
    ck_assert_msg(e && strstr(head, "\r\nLast-Modified: "), "%s", head);
    g_strlcpy(etag[k], e, MIN(sizeof etag[k], (size_t)(strchr(e + 2, '\r') - e) + 1));
    if (k) ck_assert_msg(strstr(head, "\r\nLast-Modified: Sun, 06 Nov 1994 08:49:37 GMT\r\n"), "%s", head);
  }
  ck_assert_str_ne(etag[0], etag[1]);
  val_server_stop(s);
  free_tree(&t);
}
END_TEST

/* Waits (bounded) until the server has waited on a full socket more than @prev times. */
static gboolean wait_write_wait(ValServer *s, uint64_t prev)
{
  int64_t end = val_now_ns() + 15000000000LL;
  ValServerStats st;
  do {
    val_server_stats(s, &st);
    if (st.write_waits > prev) return TRUE;
    val_sleep_ns(5000000);
  } while (val_now_ns() < end);
  return FALSE;
}

/* Reads a whole response on c (head already read: @clen bytes) into a SHA-256; with @s, it
 * stops reading after the first 64 KiB and after every further 2 MiB, three times, until the
 * server has met a full socket (EAGAIN / WANT_WRITE) since the last resume (since
 * @waits_before, its write_waits before the request was sent, for the first), then resumes.
 * FALSE when it ends short. */
static gboolean read_paused(ValClient *c, uint64_t clen, ValServer *s, uint64_t waits_before, unsigned char out[32])
{
  g_autoptr(GError) err = NULL;
  EVP_MD_CTX *md = EVP_MD_CTX_new();
  EVP_DigestInit_ex(md, EVP_sha256(), NULL);
  uint64_t got = 0, mark = 65536, prev = waits_before;
  int pauses = s ? 3 : 0;
  while (got < clen) {
    gssize n = val_client_read_body(c, MIN(clen - got, MIN(mark - got, (uint64_t)16384)), md, &err);
    if (n <= 0) break;
    got += (uint64_t)n;
    if (got == mark) {
      if (pauses-- > 0) {
        ck_assert_msg(wait_write_wait(s, prev), "the server never met a full socket after %" G_GUINT64_FORMAT " bytes", got);
        ValServerStats st;
        val_server_stats(s, &st);
        prev = st.write_waits;
      }
      mark += 2 << 20; /* more than a third of a 4 MiB send buffer: the server is woken to write */
    }
  }
  unsigned int dl = 32;
  EVP_DigestFinal_ex(md, out, &dl);
  EVP_MD_CTX_free(md);
  return got == clen;
}

/* A file overwritten in place (same size, new bytes) while it is being sent: the response
 * keeps its length, the bytes read before the overwrite are the old ones and the rest is a
 * mix; the client can tell, because a new request shows another ETag than the one that came
 * with the body, and the server reports it ("changed during the send", files_changed).  The
 * client's receive buffer is bounded (256 KiB) so that most of the 24 MiB is still unsent
 * when the file changes.  The file's mtime is set far in the past first, so any write moves it. */
START_TEST(test_overwrite_in_place)
{
  Tree t = make_tree();
  log_text = g_string_new(NULL);
  guint h = g_log_set_handler("ocasim-serve", G_LOG_LEVEL_MESSAGE, capture_log, NULL);
  g_autofree char *path = g_build_filename(t.root, "over.bin", NULL);
  const uint64_t size = 24ULL << 20, first = 65536;
  for (size_t m = 0; m < G_N_ELEMENTS(all_modes); m++) {
    fill_file(path, size, 40 + (uint32_t)m);
    struct timespec old[2] = { { .tv_sec = 784111777 }, { .tv_sec = 784111777 } };
    ck_assert_int_eq(utimensat(AT_FDCWD, path, old, 0), 0);
    unsigned char want_first[32], want_old_rest[32], got_first[32], got_rest[32], sha[32];
    sha_of(&t, "over.bin", 0, first, want_first);
    sha_of(&t, "over.bin", first, size - first, want_old_rest);
    ValServer *s = start(&t, all_modes[m], 1);
    SSL_CTX *ctx = client_ctx(all_modes[m]);
    int fds_idle = count_fds();
    g_autoptr(GError) err = NULL;
    int status;
    int64_t clen;
    gboolean cl;
    ValClient *c =
        request_head_rcvbuf(val_server_port(s), ctx, "GET /over.bin HTTP/1.1\r\nHost: x\r\n\r\n", 262144, &status, &clen, &cl);
    ck_assert_int_eq(status, 200);
    ck_assert_int_eq(clen, (int64_t)size);
    g_autofree char *etag0 = g_strdup(val_client_etag(c));
    ck_assert_msg(etag0[0] == '"', "no ETag: '%s'", etag0);
    uint64_t got = 0;
    ck_assert(read_body_sha(c, first, got_first, &got, &err));
    int fd = open(path, O_WRONLY | O_CLOEXEC); /* in place: no O_TRUNC, same size */
    ck_assert_int_ge(fd, 0);
    fill_fd(fd, size, 90 + (uint32_t)m);
    close(fd);
    ck_assert_msg(read_paused(c, size - first, NULL, 0, got_rest), "%s: the overwritten body ended short",
                  val_server_mode_name(all_modes[m]));
    /* read before the overwrite: old bytes; the rest is not (under sendfile even bytes queued
     * before the overwrite are new: the socket holds page-cache pages), so the body is neither
     * version */
    ck_assert(memcmp(got_first, want_first, 32) == 0);
    ck_assert(memcmp(got_rest, want_old_rest, 32) != 0);
    uint64_t len;
    ck_assert(val_client_get(c, "HEAD", "/over.bin", NULL, &status, &len, sha, &err));
    ck_assert_int_eq(status, 200);
    ck_assert_msg(strcmp(val_client_etag(c), etag0) != 0, "%s: ETag %s did not move", val_server_mode_name(all_modes[m]), etag0);
    val_client_close(c);
    ck_assert(wait_closed(s, 15));
    ValServerStats st;
    val_server_stats(s, &st);
    ck_assert_uint_eq(st.files_changed, 1);
    ck_assert_uint_eq(st.truncations, 0);
    healthy_stop(&t, s, ctx, fds_idle);
  }
  g_log_remove_handler("ocasim-serve", h);
  ck_assert_msg(strstr(log_text->str, "/over.bin changed during the send"), "log: %s", log_text->str);
  g_string_free(log_text, TRUE);
  free_tree(&t);
}
END_TEST

/* A client that pauses and resumes with a small receive buffer (16 KiB): each pause lasts
 * until the server has met a full socket (real EAGAIN / WANT_WRITE, counted in write_waits;
 * its send buffer autotunes to at most tcp_wmem's 4 MiB, less than the body), then it
 * resumes through epoll; a 16 MiB body over keep-alive, then one over HTTP/1.0 that ends with
 * a clean close, both byte-exact. */
START_TEST(test_pause_resume)
{
  Tree t = make_tree();
  g_autofree char *big = g_build_filename(t.root, "f16m.bin", NULL);
  const uint64_t size = 16 << 20;
  fill_file(big, size, 77);
  unsigned char want[32], sha[32];
  sha_of(&t, "f16m.bin", 0, size, want);
  for (size_t m = 0; m < G_N_ELEMENTS(all_modes); m++) {
    /* a budget above the body: a wake-up writes until the socket refuses (with the default
     * 256 KiB the server yields to epoll first and, once the send buffer has grown, is woken
     * only when a third of it is free, so it seldom meets EAGAIN at all) */
    ValServerConfig cfg = { .root = t.root, .mode = all_modes[m], .quiet = TRUE, .idle_timeout_s = 20, .budget_bytes = 64 << 20 };
    ValServer *s = start_cfg(&cfg);
    SSL_CTX *ctx = client_ctx(all_modes[m]);
    int fds_idle = count_fds();
    g_autoptr(GError) err = NULL;
    ValClient *c = val_client_connect_opts("127.0.0.1", val_server_port(s), ctx, 20, NULL, 16384, &err);
    ck_assert_msg(c, "%s", err ? err->message : "");
    const char *reqs[] = { "GET /f16m.bin HTTP/1.1\r\nHost: x\r\n\r\n", "GET /f16m.bin HTTP/1.0\r\n\r\n" };
    for (int k = 0; k < 2; k++) {
      ValServerStats st0;
      val_server_stats(s, &st0);
      ck_assert(val_client_send(c, reqs[k], strlen(reqs[k]), &err));
      int status;
      int64_t clen;
      gboolean cl;
      ck_assert(val_client_read_head(c, &status, &clen, &cl, &err));
      ck_assert(status == 200 && clen == (int64_t)size && cl == (k == 1));
      ck_assert_msg(read_paused(c, size, s, st0.write_waits, sha), "%s: paused body ended short",
                    val_server_mode_name(all_modes[m]));
      ck_assert_msg(memcmp(sha, want, 32) == 0, "%s: paused body differs", val_server_mode_name(all_modes[m]));
    }
    ck_assert_int_eq(val_client_wait_close(c, NULL), VAL_CLIENT_CLOSED_CLEAN);
    val_client_abort(c, FALSE);
    ck_assert(wait_closed(s, 15));
    ValServerStats st;
    val_server_stats(s, &st);
    ck_assert_uint_eq(st.client_aborts + st.responses_cut, 0);
    ck_assert_uint_eq(st.bytes_body_acked, 2 * size); /* the client read all and closed: all acknowledged */
    healthy_stop(&t, s, ctx, fds_idle);
  }
  free_tree(&t);
}
END_TEST

/* Sizes around the TLS record (16 KiB +- 1) and 64 KiB, byte-exact over HTTP/1.0 (one
 * connection each, clean close), keep-alive (one connection in turn, and a Range across the
 * record boundary) and pipelined (every request in one write, the last one closing). */
START_TEST(test_record_sizes_framings)
{
  Tree t = make_tree();
  static const uint64_t sz[] = { 16383, 16384, 16385, 65535, 65536 };
  for (size_t m = 0; m < G_N_ELEMENTS(all_modes); m++) {
    ValServer *s = start(&t, all_modes[m], 1);
    SSL_CTX *ctx = client_ctx(all_modes[m]);
    int fds_idle = count_fds();
    int port = val_server_port(s);
    const char *mn = val_server_mode_name(all_modes[m]);
    g_autoptr(GError) err = NULL;
    unsigned char want[32], sha[32];
    int status;
    int64_t clen;
    gboolean cl;
    for (size_t i = 0; i < G_N_ELEMENTS(sz); i++) { /* HTTP/1.0 */
      g_autofree char *req = g_strdup_printf("GET /f%" G_GUINT64_FORMAT ".bin HTTP/1.0\r\n\r\n", sz[i]);
      ValClient *c = request_head(port, ctx, req, &status, &clen, &cl);
      ck_assert(status == 200 && clen == (int64_t)sz[i] && cl);
      g_autofree char *name = g_strdup_printf("f%" G_GUINT64_FORMAT ".bin", sz[i]);
      sha_of(&t, name, 0, sz[i], want);
      ck_assert_msg(read_paused(c, sz[i], NULL, 0, sha) && memcmp(sha, want, 32) == 0, "%s: HTTP/1.0 %s", mn, name);
      ck_assert_int_eq(val_client_wait_close(c, NULL), VAL_CLIENT_CLOSED_CLEAN);
      val_client_abort(c, FALSE);
    }
    ValClient *ka = val_client_connect("127.0.0.1", port, ctx, 20, &err); /* keep-alive */
    ck_assert(ka);
    for (size_t i = 0; i < G_N_ELEMENTS(sz); i++) {
      g_autofree char *name = g_strdup_printf("f%" G_GUINT64_FORMAT ".bin", sz[i]);
      g_autofree char *p = g_strdup_printf("/%s", name);
      uint64_t len;
      ck_assert(val_client_get(ka, "GET", p, NULL, &status, &len, sha, &err));
      sha_of(&t, name, 0, sz[i], want);
      ck_assert_msg(status == 200 && len == sz[i] && memcmp(sha, want, 32) == 0, "%s: keep-alive %s", mn, name);
      ck_assert(val_client_get(ka, "GET", p, "bytes=16382-16384", &status, &len, sha, &err));
      uint64_t rl = MIN(sz[i] - 1, (uint64_t)16384) - 16382 + 1;
      sha_of(&t, name, 16382, rl, want);
      ck_assert_msg(status == 206 && len == rl && memcmp(sha, want, 32) == 0, "%s: range of %s", mn, name);
    }
    val_client_close(ka);
    GString *pipe = g_string_new(NULL); /* pipelined */
    for (size_t i = 0; i < G_N_ELEMENTS(sz); i++)
      g_string_append_printf(pipe, "GET /f%" G_GUINT64_FORMAT ".bin HTTP/1.1\r\nHost: x\r\n%s\r\n", sz[i],
                             i + 1 == G_N_ELEMENTS(sz) ? "Connection: close\r\n" : "");
    ValClient *pc = val_client_connect("127.0.0.1", port, ctx, 20, &err);
    ck_assert(pc);
    ck_assert(val_client_send(pc, pipe->str, pipe->len, &err));
    g_string_free(pipe, TRUE);
    for (size_t i = 0; i < G_N_ELEMENTS(sz); i++) {
      ck_assert(val_client_read_head(pc, &status, &clen, &cl, &err));
      ck_assert(status == 200 && clen == (int64_t)sz[i]);
      g_autofree char *name = g_strdup_printf("f%" G_GUINT64_FORMAT ".bin", sz[i]);
      sha_of(&t, name, 0, sz[i], want);
      ck_assert_msg(read_paused(pc, sz[i], NULL, 0, sha) && memcmp(sha, want, 32) == 0, "%s: pipelined %s", mn, name);
    }
    ck_assert_int_eq(val_client_wait_close(pc, NULL), VAL_CLIENT_CLOSED_CLEAN);
    val_client_abort(pc, FALSE);
    ValServerStats st;
    val_server_stats(s, &st);
    ck_assert_uint_eq(st.status_2xx, 4 * G_N_ELEMENTS(sz));
    ck_assert_uint_eq(st.client_aborts + st.responses_cut, 0);
    healthy_stop(&t, s, ctx, fds_idle);
  }
  free_tree(&t);
}
END_TEST

/* Hundreds of connections that never finish a TLS handshake (half of them send the first 5
 * bytes of a record and stop), or in plain HTTP never send a request (half of them a part of a
 * head), while a normal client is served byte-exact all along; the handshake / head deadline
 * and the idle timeout close every one of them. */
START_TEST(test_idle_handshakes_hundreds)
{
  Tree t = make_tree();
  enum { N = 300 };
  for (size_t m = 0; m < G_N_ELEMENTS(all_modes); m++) {
    gboolean tls = val_server_mode_is_tls(all_modes[m]);
    ValServerConfig cfg = {
      .root = t.root, .mode = all_modes[m], .quiet = TRUE, .idle_timeout_s = 1.0, .head_timeout_s = 1.5, .linger_s = 1.0
    };
    ValServer *s = start_cfg(&cfg);
    SSL_CTX *ctx = client_ctx(all_modes[m]);
    int fds_idle = count_fds();
    int port = val_server_port(s);
    int fd[N];
    gboolean closed[N] = { FALSE };
    for (int i = 0; i < N; i++) {
      fd[i] = raw_connect(port);
      if (i % 2) {
        const char *part = tls ? "\x16\x03\x01\x02\x00" : "GET /f1.bin HTTP/1.1\r\nHost";
        ck_assert_int_eq(send(fd[i], part, strlen(part), MSG_NOSIGNAL), (ssize_t)strlen(part));
      }
    }
    for (int k = 0; k < 4; k++) {
      uint64_t len;
      unsigned char sha[32], want[32];
      ck_assert_int_eq(get1(port, ctx, "GET", "/f16385.bin", NULL, &len, sha), 200);
      sha_of(&t, "f16385.bin", 0, 16385, want);
      ck_assert(len == 16385 && memcmp(sha, want, 32) == 0);
      val_sleep_ns(100000000);
    }
    int64_t end = val_now_ns() + 20000000000LL;
    int open;
    do {
      open = 0;
      for (int i = 0; i < N; i++) open += !(closed[i] = closed[i] || peer_closed(fd[i]));
      if (open) val_sleep_ns(50000000);
    } while (open && val_now_ns() < end);
    ck_assert_msg(open == 0, "%s: %d of %d idle connections still open", val_server_mode_name(all_modes[m]), open, N);
    for (int i = 0; i < N; i++) close(fd[i]);
    ck_assert(wait_closed(s, 15));
    ValServerStats st;
    val_server_stats(s, &st);
    ck_assert_uint_ge(st.head_timeouts + st.idle_timeouts, N);
    ck_assert_uint_eq(st.status_2xx, 4);
    healthy_stop(&t, s, ctx, fds_idle);
  }
  free_tree(&t);
}
END_TEST

/* max_conns_per_ip: one address (127.0.0.2) opens 30 connections that never send a byte; it
 * keeps 8 of them (each of the other 22 takes the slot of that address's longest-waiting one:
 * evicted, none of another address, none refused), so a client from 127.0.0.1 still finds a slot
 * under max_conns = 12; once they close, 127.0.0.2 is served again. */
START_TEST(test_per_ip_cap)
{
  Tree t = make_tree();
  enum { HOSTILE = 30, PER_IP = 8, CAP = 12 };
  for (size_t m = 0; m < G_N_ELEMENTS(all_modes); m++) {
    ValServerConfig cfg = {
      .root = t.root, .mode = all_modes[m], .quiet = TRUE, .idle_timeout_s = 60, .max_conns = CAP, .max_conns_per_ip = PER_IP
    };
    ValServer *s = start_cfg(&cfg);
    SSL_CTX *ctx = client_ctx(all_modes[m]);
    int fds_idle = count_fds();
    int port = val_server_port(s);
    int fd[HOSTILE];
    struct sockaddr_in src = { .sin_family = AF_INET }, dst = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    inet_pton(AF_INET, "127.0.0.2", &src.sin_addr);
    inet_pton(AF_INET, "127.0.0.1", &dst.sin_addr);
    for (int i = 0; i < HOSTILE; i++) {
      fd[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      ck_assert_int_eq(bind(fd[i], (struct sockaddr *)&src, sizeof src), 0);
      ck_assert_int_eq(connect(fd[i], (struct sockaddr *)&dst, sizeof dst), 0);
    }
    ValServerStats st;
    int64_t end = val_now_ns() + 15000000000LL;
    do { /* every connection accepted or refused */
      val_sleep_ns(20000000);
      val_server_stats(s, &st);
    } while (st.accepted + st.refused_per_ip < HOSTILE && val_now_ns() < end);
    ck_assert_uint_eq(st.refused_per_ip, 0);
    ck_assert_uint_eq(st.evicted, HOSTILE - PER_IP);
    ck_assert_int_eq(st.open_conns, PER_IP);
    for (int k = 0; k < 3; k++) {
      uint64_t len;
      unsigned char sha[32], want[32];
      ck_assert_int_eq(get1(port, ctx, "GET", "/f65535.bin", NULL, &len, sha), 200);
      sha_of(&t, "f65535.bin", 0, 65535, want);
      ck_assert(len == 65535 && memcmp(sha, want, 32) == 0);
    }
    val_server_stats(s, &st);
    ck_assert_uint_eq(st.evicted, HOSTILE - PER_IP); /* no connection of another address evicted */
    ck_assert_uint_eq(st.refused, 0);
    for (int i = 0; i < HOSTILE; i++) close(fd[i]);
    ck_assert(wait_closed(s, 15));
    g_autoptr(GError) err = NULL;
    for (int k = 0; k < PER_IP + 2; k++) { /* the address's slots were given back */
      g_autoptr(ValClient) c = val_client_connect_opts("127.0.0.1", port, ctx, 20, "127.0.0.2", 0, &err);
      ck_assert_msg(c, "%s", err ? err->message : "");
      int status;
      uint64_t len;
      unsigned char sha[32];
      ck_assert(val_client_get(c, "GET", "/f1.bin", NULL, &status, &len, sha, &err));
      ck_assert_int_eq(status, 200);
    }
    val_server_stats(s, &st);
    ck_assert_uint_eq(st.refused_per_ip, 0);
    healthy_stop(&t, s, ctx, fds_idle);
  }
  free_tree(&t);
}
END_TEST

/* Bytes acknowledged, not bytes written or promised: a client with a 256 KiB receive buffer
 * reads 300 000 bytes of a 64 MiB body, lets its buffer fill, then resets.  The server counts
 * the response as cut short and the body bytes acknowledged between what the client read
 * (less one user-space chunk in flight under TLS) and what it read plus its receive buffer;
 * never more than it wrote.  A whole response read to the end counts all of it. */
START_TEST(test_acked_after_reset)
{
  Tree t = make_tree();
  g_autofree char *big = g_build_filename(t.root, "f64m.bin", NULL);
  int bfd = open(big, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ck_assert_int_ge(bfd, 0);
  ck_assert_int_eq(ftruncate(bfd, 64 << 20), 0);
  close(bfd);
  const uint64_t read_bytes = 300000;
  for (size_t m = 0; m < G_N_ELEMENTS(all_modes); m++) {
    gboolean tls = val_server_mode_is_tls(all_modes[m]);
    const char *mn = val_server_mode_name(all_modes[m]);
    ValServer *s = start(&t, all_modes[m], 1);
    SSL_CTX *ctx = client_ctx(all_modes[m]);
    int fds_idle = count_fds();
    g_autoptr(GError) err = NULL;
    int status;
    int64_t clen;
    gboolean cl;
    ValClient *c =
        request_head_rcvbuf(val_server_port(s), ctx, "GET /f64m.bin HTTP/1.1\r\nHost: x\r\n\r\n", 262144, &status, &clen, &cl);
    ck_assert_int_eq(status, 200);
    unsigned char sha[32];
    uint64_t got = 0;
    ck_assert(read_body_sha(c, read_bytes, sha, &got, &err));
    int rcvbuf = 0;
    socklen_t rl = sizeof rcvbuf;
    ck_assert_int_eq(getsockopt(val_client_fd(c), SOL_SOCKET, SO_RCVBUF, &rcvbuf, &rl), 0);
    val_sleep_ns(300000000); /* the receive buffer fills */
    val_client_abort(c, TRUE);
    ck_assert(wait_closed(s, 15));
    ValServerStats st;
    val_server_stats(s, &st);
    uint64_t lo = read_bytes - (tls ? 65536 + 4096 : 0), hi = read_bytes + (uint64_t)rcvbuf + 65536;
    ck_assert_msg(st.bytes_body_acked >= lo && st.bytes_body_acked <= hi && st.bytes_body_acked <= st.bytes_body,
                  "%s: %" G_GUINT64_FORMAT " body bytes acknowledged, %" G_GUINT64_FORMAT
                  " written; the client read %" G_GUINT64_FORMAT " with a %d-byte buffer",
                  mn, st.bytes_body_acked, st.bytes_body, read_bytes, rcvbuf);
    ck_assert_uint_lt(st.bytes_body_acked, (uint64_t)clen);
    ck_assert_uint_ge(st.bytes_acked, st.bytes_body_acked); /* the wire adds heads and TLS */
    ck_assert_uint_eq(st.responses_cut, 1);
    uint64_t len;
    unsigned char want[32];
    ck_assert_int_eq(get1(val_server_port(s), ctx, "GET", "/f65536.bin", NULL, &len, sha), 200);
    sha_of(&t, "f65536.bin", 0, 65536, want);
    ck_assert(len == 65536 && memcmp(sha, want, 32) == 0);
    ck_assert(wait_closed(s, 15));
    ValServerStats st2;
    val_server_stats(s, &st2);
    ck_assert_uint_eq(st2.bytes_body_acked - st.bytes_body_acked, 65536); /* read to the end: all of it */
    ck_assert_uint_eq(st2.responses_cut, 1);
    healthy_stop(&t, s, ctx, fds_idle);
  }
  free_tree(&t);
}
END_TEST

/* Connects to @s, fetches /f65536.bin (with Connection: close when @close) and reads the whole
 * response, checking its head and length; returns the open client. */
static ValClient *fetch_whole_f65536(ValServer *s, SSL_CTX *ctx, gboolean close)
{
  const char *req =
      close ? "GET /f65536.bin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" : "GET /f65536.bin HTTP/1.1\r\nHost: x\r\n\r\n";
  g_autoptr(GError) err = NULL;
  ValClient *c = val_client_connect("127.0.0.1", val_server_port(s), ctx, 20, &err);
  ck_assert_msg(c, "%s", err ? err->message : "");
  ck_assert(val_client_send(c, req, strlen(req), &err));
  int status;
  int64_t clen;
  gboolean cl;
  ck_assert(val_client_read_head(c, &status, &clen, &cl, &err));
  ck_assert(status == 200 && clen == 65536 && cl == close);
  gssize got = 0;
  for (gssize n; got < 65536 && (n = val_client_read_body(c, (uint64_t)(65536 - got), NULL, &err)) > 0;) got += n;
  ck_assert_int_eq(got, 65536);
  return c;
}

/* Issue 33, defect 8: a client that reads a whole Connection: close response and the server's
 * close, then closes without close_notify (a plain close, or a reset), did not cut it short:
 * every mode, 20 times each way, no plain close counted in responses_cut and at most 2 resets (the
 * server's FIN, unacknowledged in the tail, was counted as body: every one of them). */
START_TEST(test_complete_responses_not_counted_cut)
{
  Tree t = make_tree();
  for (size_t m = 0; m < G_N_ELEMENTS(all_modes); m++) {
    ValServerConfig cfg = { .root = t.root, .mode = all_modes[m], .quiet = TRUE };
    ValServer *s = start_cfg(&cfg);
    SSL_CTX *ctx = client_ctx(all_modes[m]);
    uint64_t cut_by_close = 0;
    for (int k = 0; k < 40; k++) {
      if (k == 20) { /* the plain closes done: none may count */
        ck_assert(wait_closed(s, 15));
        ValServerStats half;
        val_server_stats(s, &half);
        cut_by_close = half.responses_cut;
      }
      ValClient *c = fetch_whole_f65536(s, ctx, TRUE);
      /* the server's close (close_notify, FIN) read; the client's own close without close_notify,
       * every other one with a reset (a reset right after the body, before the server's close
       * arrives, may leave the body's last segments unacknowledged: the server cannot tell it
       * from a cut, and counts it) */
      ck_assert_int_ne(val_client_wait_close(c, NULL), VAL_CLIENT_CLOSED_ERROR);
      /* the reset after this client's kernel has acknowledged all it read: TCP_QUICKACK sends a
       * delayed ACK still pending now (Linux tcp_setsockopt), else a reset inside the delayed-ACK
       * time is the unacknowledged tail the comment above describes (1 in 40 under load in CI) */
      int one = 1;
      if (k >= 20) ck_assert(setsockopt(val_client_fd(c), IPPROTO_TCP, TCP_QUICKACK, &one, sizeof one) == 0);
      val_client_abort(c, k >= 20);
    }
    ck_assert(wait_closed(s, 15));
    ValServerStats st;
    val_server_stats(s, &st);
    ck_assert_msg(cut_by_close == 0, "%s: %" G_GUINT64_FORMAT " of 20 complete responses closed plainly counted cut short",
                  val_server_mode_name(all_modes[m]), cut_by_close);
    /* a reset can still be counted when the client's kernel had not yet acknowledged the last
     * record (a delayed ACK; TCP_QUICKACK above does not always flush it): Linux drops a reset's
     * acknowledgment number (tcp_validate_incoming resets before the ACK is processed), and
     * after it TCP_INFO says only that the tail left (tcpi_notsent_bytes 0; tcpi_unacked is 0 once
     * the queue is purged), as for a client that resets with the tail in flight, a real cut. With
     * a DES run beside it, 2 of 1800 resets (30 runs, TLS modes): SIOCOUTQ 280 = FIN + a 31-byte
     * close_notify + the last 248-byte record (219 body bytes). Said in docs/ocasim.1; held to at
     * most 2 of 20, where every reset counted before */
    ck_assert_msg(st.responses_cut - cut_by_close <= 2,
                  "%s: %" G_GUINT64_FORMAT " of 20 complete responses reset counted cut short",
                  val_server_mode_name(all_modes[m]), st.responses_cut - cut_by_close);
    ck_assert_uint_eq(st.status_2xx, 40);
    val_server_stop(s);
    SSL_CTX_free(ctx);
  }
  free_tree(&t);
}
END_TEST

/* The keep-alive side of defect 8: a client that reads its whole response and closes first,
 * without close_notify (as `ocasim load` and HTTP/1.1 clients do), did not cut it short. OpenSSL 3
 * took that EOF for a fatal error and wrote a decode_error alert (24 B in TLS 1.3, 31 B in 1.2)
 * to the closed peer, whose RST left it unacknowledged: every such close was counted (16 of 16
 * with `ocasim load -c 16 -n 3`). SSL_OP_IGNORE_UNEXPECTED_EOF (serve/tls.c) ends it. */
START_TEST(test_client_close_after_keepalive_response_not_cut)
{
  Tree t = make_tree();
  for (size_t m = 0; m < G_N_ELEMENTS(all_modes); m++) {
    ValServerConfig cfg = { .root = t.root, .mode = all_modes[m], .quiet = TRUE };
    ValServer *s = start_cfg(&cfg);
    SSL_CTX *ctx = client_ctx(all_modes[m]);
    for (int k = 0; k < 20; k++) {
      ValClient *c = fetch_whole_f65536(s, ctx, FALSE);
      /* every byte read and acknowledged (TCP_QUICKACK flushes a pending delayed ACK), then a
       * plain close: the server sees EOF while it waits for the next request */
      int one = 1;
      ck_assert(setsockopt(val_client_fd(c), IPPROTO_TCP, TCP_QUICKACK, &one, sizeof one) == 0);
      g_usleep(2000);
      val_client_abort(c, FALSE);
    }
    ck_assert(wait_closed(s, 15));
    ValServerStats st;
    val_server_stats(s, &st);
    ck_assert_msg(st.responses_cut == 0, "%s: %" G_GUINT64_FORMAT " of 20 complete keep-alive responses counted cut short",
                  val_server_mode_name(all_modes[m]), st.responses_cut);
    ck_assert_uint_eq(st.status_2xx, 20);
    val_server_stop(s);
    SSL_CTX_free(ctx);
  }
  free_tree(&t);
}
END_TEST

int main(void)
{
  signal(SIGPIPE, SIG_IGN); /* a client writing to a connection the server closed gets EPIPE */
  Suite *s = suite_create("validate_server");
  TCase *tc = tcase_create("server");
  tcase_set_timeout(tc, 300); /* the whole > 4 GiB body is hashed: 100 s on a loaded 2-core host */
  tcase_add_test(tc, test_bodies_userspace);
  tcase_add_test(tc, test_bodies_sendfile);
  tcase_add_test(tc, test_bodies_ktls);
  tcase_add_test(tc, test_bodies_userspace_lowat);
  tcase_add_test(tc, test_bodies_sendfile_lowat);
  tcase_add_test(tc, test_sparse_over_4gib);
  tcase_add_test(tc, test_outside_root_refused);
  tcase_add_test(tc, test_keepalive_pipeline_head_errors);
  tcase_add_test(tc, test_close_mid_transfer_tls);
  tcase_add_test(tc, test_rst_mid_transfer_tls);
  tcase_add_test(tc, test_close_mid_transfer_plain);
  tcase_add_test(tc, test_rst_unread_ktls_mode);
  tcase_add_test(tc, test_slow_reader);
  tcase_add_test(tc, test_certificates);
  tcase_add_test(tc, test_versions_and_ciphers);
  suite_add_tcase(s, tc);
  TCase *ab = tcase_create("abuse");
  tcase_set_timeout(ab, 120);
  tcase_add_test(ab, test_lingering_close);
  tcase_add_test(ab, test_truncation_reported);
  tcase_add_test(ab, test_idle_close_notify);
  tcase_add_test(ab, test_faults_close_notify);
  tcase_add_test(ab, test_slowloris);
  tcase_add_test(ab, test_hostile_requests);
  tcase_add_test(ab, test_validators_sent);
  tcase_add_test(ab, test_overwrite_in_place);
  tcase_add_test(ab, test_pause_resume);
  tcase_add_test(ab, test_record_sizes_framings);
  tcase_add_test(ab, test_idle_handshakes_hundreds);
  tcase_add_test(ab, test_per_ip_cap);
  tcase_add_test(ab, test_complete_responses_not_counted_cut);
  tcase_add_test(ab, test_client_close_after_keepalive_response_not_cut);
  tcase_add_test(ab, test_acked_after_reset);
  suite_add_tcase(s, ab);
  return test_run_suite(s);
}
