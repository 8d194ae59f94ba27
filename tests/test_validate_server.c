/* tests/test_validate_server.c — the validation file server end to end on
 * loopback: byte-exact bodies and ranges in every mode (sizes around TLS record
 * boundaries, a sparse file over 4 GiB with ranges past 2^32), clients that
 * vanish (close, RST) or read slowly, paths that try to leave the root,
 * certificate errors, and no spinning or leaking afterwards.  No timing
 * assertions: CPU time after an abort is compared with the wall time elapsed
 * (a spinning worker would use all of it). */
#include <check.h>
#include "tests/support/check_run.h"
#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "validate/client.h"
#include "validate/loadgen.h"
#include "validate/server.h"
#include "validate/util.h"

#define SPARSE_SIZE ((4ULL << 30) + 40961ULL) /* > 4 GiB */

static const uint64_t sizes[] = { 0, 1, 16383, 16384, 16385, 65535, 65536, 1 << 20 };

typedef struct {
  char *base, *root, *secret, *sparse;
} Tree;

static void fill_file(const char *path, uint64_t size, uint32_t seed)
{
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ck_assert_int_ge(fd, 0);
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
    ck_assert_int_eq(write(fd, buf, n), (ssize_t)n);
    off += n;
  }
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

static ValServer *start(Tree *t, ValServerMode mode, int threads)
{
  ValServerConfig c = { .root = t->root, .mode = mode, .threads = threads, .quiet = TRUE, .idle_timeout_s = 20 };
  g_autoptr(GError) err = NULL;
  ValServer *s = val_server_start(&c, &err);
  ck_assert_msg(s != NULL, "server: %s", err ? err->message : "");
  return s;
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
  /* no worker spins: server CPU over an idle stretch is far below the wall time */
  int64_t c0 = val_server_cpu_ns(s), w0 = val_now_ns();
  val_sleep_ns(400000000);
  int64_t c1 = val_server_cpu_ns(s), w1 = val_now_ns();
  ck_assert_msg((c1 - c0) * 4 < (w1 - w0), "server used %.3f s CPU in %.3f s idle", (c1 - c0) * 1e-9, (w1 - w0) * 1e-9);
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

int main(void)
{
  Suite *s = suite_create("validate_server");
  TCase *tc = tcase_create("server");
  tcase_set_timeout(tc, 120);
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
  return test_run_suite(s);
}
