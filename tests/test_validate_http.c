/* tests/test_validate_http.c — HTTP parsing, byte ranges (RFC 9110 §14) and path
 * containment of the validation server, without any socket. */
#include <check.h>
#include "tests/support/check_run.h"
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "serve/http.h"
#include "serve/pathres.h"
#include "serve/util.h"

static int parse(const char *s, ValHttpRequest *r)
{
  size_t used = 0;
  int st = val_http_parse_request(s, strlen(s), r, &used);
  if (st == 1) ck_assert_uint_eq(used, strlen(s));
  return st;
}

START_TEST(test_request_basic)
{
  ValHttpRequest r;
  ck_assert_int_eq(parse("GET /a/b.bin?x=1 HTTP/1.1\r\nHost: x\r\nRange: bytes=5-9\r\n\r\n", &r), 1);
  ck_assert_str_eq(r.path, "/a/b.bin");
  ck_assert(!r.head && r.keep_alive && r.has_range);
  ck_assert_str_eq(r.range, "bytes=5-9");
  ck_assert_int_eq(parse("HEAD /x HTTP/1.0\r\n\r\n", &r), 1);
  ck_assert(r.head && !r.keep_alive);
  ck_assert_int_eq(parse("GET /x HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", &r), 1);
  ck_assert(r.keep_alive);
  ck_assert_int_eq(parse("GET /x HTTP/1.1\r\nHost: h\r\nconnection: foo, close\r\n\r\n", &r), 1);
  ck_assert(!r.keep_alive);
  ck_assert_int_eq(parse("GET http://h:1/p%20q HTTP/1.1\r\nHost: h\r\n\r\n", &r), 1);
  ck_assert_str_eq(r.path, "/p q");
  ck_assert_int_eq(parse("GET /%2e%2e/etc/passwd HTTP/1.1\r\nHost: h\r\n\r\n", &r), 1);
  ck_assert_str_eq(r.path, "/../etc/passwd");
  /* incomplete, then errors */
  size_t used;
  ck_assert_int_eq(val_http_parse_request("GET / HTTP/1.1\r\nHost", 20, &r, &used), 0);
  ck_assert_int_eq(parse("POST /x HTTP/1.1\r\nHost: h\r\n\r\n", &r), -405);
  ck_assert_int_eq(parse("GET /x HTTP/2.0\r\n\r\n", &r), -505);
  ck_assert_int_eq(parse("GET x HTTP/1.1\r\nHost: h\r\n\r\n", &r), -400);
  ck_assert_int_eq(parse("GET /a%00b HTTP/1.1\r\nHost: h\r\n\r\n", &r), -400);
  ck_assert_int_eq(parse("GET /a%zz HTTP/1.1\r\nHost: h\r\n\r\n", &r), -400);
  ck_assert_int_eq(parse("GET /a% HTTP/1.1\r\nHost: h\r\n\r\n", &r), -400);
  ck_assert_int_eq(parse("GET /a HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n", &r), -501);
  ck_assert_int_eq(parse("GET /a HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n", &r), 1);
  ck_assert_int_eq(parse("GET /a HTTP/1.1\r\nHost: h\r\nbad header\r\n\r\n", &r), -400);
  char big[VAL_HTTP_MAX_HEADER + 10];
  memset(big, 'a', sizeof big);
  memcpy(big, "GET /", 5);
  ck_assert_int_eq(val_http_parse_request(big, sizeof big, &r, &used), -431);
}
END_TEST

/* Issue 33, defect 7: the request smuggling shapes RFC 9112 tells a server to reject get 400:
 * whitespace between a field name and its colon (§5.1; "Content-Length : 5" and
 * "Transfer-Encoding : chunked" read by another hop as a body), a bare CR (§2.2), a NUL in a
 * value (RFC 9110 §5.5), an HTTP/1.1 request without Host or any with two (§3.2). Leading
 * empty lines are ignored (§2.2), as the code said: two of them got 400. */
START_TEST(test_smuggling_shapes)
{
  ValHttpRequest r;
  ck_assert_int_eq(parse("GET /a HTTP/1.1\r\nHost: h\r\nContent-Length : 5\r\n\r\n", &r), -400);
  ck_assert_int_eq(parse("GET /a HTTP/1.1\r\nHost: h\r\nTransfer-Encoding\t: chunked\r\n\r\n", &r), -400);
  ck_assert_int_eq(parse("GET /a HTTP/1.1\r\nHost : h\r\n\r\n", &r), -400);
  ck_assert_int_eq(parse("GET /a HTTP/1.1\r\nHost: h\rX-A: b\r\n\r\n", &r), -400);
  ck_assert_int_eq(parse("GET /a HTTP/1.1\rHost: h\r\n\r\n", &r), -400);
  size_t used;
  static const char nul[] = "GET /a HTTP/1.1\r\nHost: h\r\nX-A: b\0c\r\n\r\n";
  ck_assert_int_eq(val_http_parse_request(nul, sizeof nul - 1, &r, &used), -400);
  ck_assert_int_eq(parse("GET /a HTTP/1.1\r\n\r\n", &r), -400);
  ck_assert_int_eq(parse("GET /a HTTP/1.1\r\nHost: h\r\nhost: h\r\n\r\n", &r), -400);
  ck_assert_int_eq(parse("GET /a HTTP/1.0\r\nHost: h\r\nHost: i\r\n\r\n", &r), -400);
  ck_assert_int_eq(parse("GET /a HTTP/1.0\r\n\r\n", &r), 1); /* HTTP/1.0 needs no Host */
  ck_assert_int_eq(parse("GET /a HTTP/1.1\r\nHost: h\r\nX(y): z\r\n\r\n", &r), -400);
  /* leading empty lines: one or two, CRLF or bare LF, skipped and consumed */
  static const char two[] = "\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\n\r\nGET";
  ck_assert_int_eq(val_http_parse_request(two, sizeof two - 1, &r, &used), 1);
  ck_assert_str_eq(r.path, "/b");
  ck_assert_uint_eq(used, sizeof two - 1 - 3);
  ck_assert_int_eq(parse("\nGET /c HTTP/1.1\r\nHost: h\r\n\r\n", &r), 1);
  ck_assert_int_eq(val_http_parse_request("\r\n\r\n", 4, &r, &used), 0); /* only empty lines: more to come */
  ck_assert_int_eq(val_http_parse_request("\r\n\r", 3, &r, &used), 0);
}
END_TEST

START_TEST(test_ranges)
{
  uint64_t f, l;
  const uint64_t big = (5ULL << 30) + 17; /* > 4 GiB */
  ck_assert_int_eq(val_http_resolve_range("bytes=0-0", 10, &f, &l), 206);
  ck_assert(f == 0 && l == 0);
  ck_assert_int_eq(val_http_resolve_range("bytes=3-", 10, &f, &l), 206);
  ck_assert(f == 3 && l == 9);
  ck_assert_int_eq(val_http_resolve_range("bytes=5-100", 10, &f, &l), 206);
  ck_assert(f == 5 && l == 9);
  ck_assert_int_eq(val_http_resolve_range("bytes=-4", 10, &f, &l), 206);
  ck_assert(f == 6 && l == 9);
  ck_assert_int_eq(val_http_resolve_range("bytes=-40", 10, &f, &l), 206);
  ck_assert(f == 0 && l == 9);
  ck_assert_int_eq(val_http_resolve_range("bytes=10-", 10, &f, &l), 416);
  ck_assert_int_eq(val_http_resolve_range("bytes=-0", 10, &f, &l), 416);
  ck_assert_int_eq(val_http_resolve_range("bytes=0-", 0, &f, &l), 416);
  ck_assert_int_eq(val_http_resolve_range("bytes=5-3", 10, &f, &l), 200);
  ck_assert_int_eq(val_http_resolve_range("bytes=0-1,4-5", 10, &f, &l), 200);
  ck_assert_int_eq(val_http_resolve_range("items=0-1", 10, &f, &l), 200);
  ck_assert_int_eq(val_http_resolve_range("bytes=x-1", 10, &f, &l), 200);
  ck_assert_int_eq(val_http_resolve_range("bytes=99999999999999999999999-", 10, &f, &l), 200);
  /* past 2^32 */
  ck_assert_int_eq(val_http_resolve_range("bytes=4294967296-4294967305", big, &f, &l), 206);
  ck_assert(f == 4294967296ULL && l == 4294967305ULL);
  ck_assert_int_eq(val_http_resolve_range("bytes=-1", big, &f, &l), 206);
  ck_assert(f == big - 1 && l == big - 1);
}
END_TEST

START_TEST(test_format_head)
{
  char h[512];
  size_t n = val_http_format_head(h, sizeof h, 206, 6000000000ULL, 4294967296ULL, 4294967305ULL, TRUE, NULL);
  ck_assert_uint_gt(n, 0);
  ck_assert(strstr(h, "HTTP/1.1 206 Partial Content\r\n") == h);
  ck_assert(strstr(h, "Content-Range: bytes 4294967296-4294967305/6000000000\r\n"));
  ck_assert(strstr(h, "Content-Length: 10\r\n"));
  ck_assert(strstr(h, "Connection: keep-alive\r\n"));
  n = val_http_format_head(h, sizeof h, 200, 0, 0, 0, FALSE, NULL);
  ck_assert(strstr(h, "Content-Length: 0\r\n") && strstr(h, "Connection: close"));
  int st;
  int64_t cl;
  gboolean close;
  size_t used;
  ck_assert_int_eq(val_http_parse_response(h, n, &st, &cl, &close, &used), 1);
  ck_assert_int_eq(st, 200);
  ck_assert_int_eq(cl, 0);
  ck_assert(close);
  ck_assert_uint_eq(used, n);
  n = val_http_format_head(h, sizeof h, 416, 77, 0, 0, TRUE, NULL);
  ck_assert(strstr(h, "Content-Range: bytes */77\r\n"));
}
END_TEST

/* Issue 16: an empty or non-numeric Content-Length is invalid (RFC 9110 §8.6); a Range value of
 * any length is evaluated, not dropped; validators name the file's version. */
START_TEST(test_hostile_headers)
{
  ValHttpRequest r;
  ck_assert_int_eq(parse("GET /a HTTP/1.1\r\nHost: h\r\nContent-Length:\r\n\r\n", &r), -400);
  ck_assert_int_eq(parse("GET /a HTTP/1.1\r\nHost: h\r\nContent-Length:   \r\n\r\n", &r), -400);
  ck_assert_int_eq(parse("GET /a HTTP/1.1\r\nHost: h\r\nContent-Length: 1x\r\n\r\n", &r), -400);
  ck_assert_int_eq(parse("GET /a HTTP/1.1\r\nHost: h\r\nContent-Length: 00\r\n\r\n", &r), 1);
  ck_assert_int_eq(parse("GET /a HTTP/1.1\r\nHost: h\r\nContent-Length: 7\r\n\r\n", &r), -501);
  /* a single range padded to 300 characters (OWS is allowed around the value's parts) */
  GString *req = g_string_new("GET /a HTTP/1.1\r\nHost: h\r\nRange: bytes=");
  for (int i = 0; i < 280; i++) g_string_append_c(req, ' ');
  g_string_append(req, "5-9\r\n\r\n");
  ck_assert_int_eq(parse(req->str, &r), 1);
  ck_assert(r.has_range);
  ck_assert_uint_eq(strlen(r.range), 6 + 280 + 3);
  uint64_t f = 0, l = 0;
  ck_assert_int_eq(val_http_resolve_range(r.range, 100, &f, &l), 206);
  ck_assert(f == 5 && l == 9);
  g_string_free(req, TRUE);
  /* ETag and Last-Modified: RFC 9110's example date, 784111777 s after the epoch */
  char v[160];
  size_t n = val_http_format_validators(v, sizeof v, 16384, 784111777, 5, 42);
  ck_assert_uint_gt(n, 0);
  ck_assert_str_eq(v, "ETag: \"4000-2ebc98a1.5-2a\"\r\nLast-Modified: Sun, 06 Nov 1994 08:49:37 GMT\r\n");
  char v2[160];
  val_http_format_validators(v2, sizeof v2, 16384, 784111777, 6, 42);
  ck_assert_str_ne(v, v2); /* rewritten within the same second: another ETag */
  char h[512];
  n = val_http_format_head(h, sizeof h, 200, 16384, 0, 16383, TRUE, v);
  ck_assert_uint_gt(n, 0);
  ck_assert(strstr(h, "\r\nETag: \"4000-2ebc98a1.5-2a\"\r\nLast-Modified: Sun, 06 Nov 1994 08:49:37 GMT\r\n"));
  ck_assert(g_str_has_suffix(h, "\r\n\r\n"));
}
END_TEST

/* ---- path containment ---- */

typedef struct {
  char *base, *root, *root_real, *secret;
  int root_fd;
} Tree;

static void write_file(const char *path, const char *data)
{
  ck_assert(g_file_set_contents(path, data, -1, NULL));
}

static Tree make_tree(void)
{
  Tree t;
  t.base = g_dir_make_tmp("ocasim-path-XXXXXX", NULL);
  ck_assert(t.base);
  t.root = g_build_filename(t.base, "root", NULL);
  g_autofree char *sub = g_build_filename(t.root, "sub", NULL);
  ck_assert_int_eq(g_mkdir_with_parents(sub, 0755), 0);
  t.secret = g_build_filename(t.base, "secret.txt", NULL);
  write_file(t.secret, "TOP SECRET");
  g_autofree char *f1 = g_build_filename(t.root, "a.txt", NULL);
  write_file(f1, "hello");
  g_autofree char *f2 = g_build_filename(sub, "b.txt", NULL);
  write_file(f2, "world");
  g_autofree char *l1 = g_build_filename(t.root, "out", NULL);
  ck_assert_int_eq(symlink(t.secret, l1), 0); /* absolute symlink out of the root */
  g_autofree char *l2 = g_build_filename(sub, "up", NULL);
  ck_assert_int_eq(symlink("../../secret.txt", l2), 0); /* relative symlink out */
  g_autofree char *l3 = g_build_filename(t.root, "in", NULL);
  ck_assert_int_eq(symlink("sub/b.txt", l3), 0); /* stays inside */
  g_autofree char *l4 = g_build_filename(t.root, "outdir", NULL);
  ck_assert_int_eq(symlink(t.base, l4), 0);
  g_autofree char *fifo = g_build_filename(t.root, "fifo", NULL);
  ck_assert_int_eq(mkfifo(fifo, 0600), 0);
  t.root_fd = open(t.root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  t.root_real = realpath(t.root, NULL);
  return t;
}

static void free_tree(Tree *t)
{
  close(t->root_fd);
  val_rm_rf(t->base);
  g_free(t->base);
  g_free(t->root);
  free(t->root_real);
  g_free(t->secret);
}

static int try_open(Tree *t, const char *path, unsigned flags, char *out, size_t cap)
{
  uint64_t size = 0;
  int fd = val_path_open(t->root_fd, t->root_real, path, flags, &size);
  if (fd < 0) return fd;
  ssize_t n = read(fd, out, cap - 1);
  out[n > 0 ? n : 0] = '\0';
  ck_assert_uint_eq((uint64_t)n, size);
  close(fd);
  return 0;
}

static void check_containment(unsigned flags)
{
  Tree t = make_tree();
  char buf[64];
  ck_assert_int_eq(try_open(&t, "/a.txt", flags, buf, sizeof buf), 0);
  ck_assert_str_eq(buf, "hello");
  ck_assert_int_eq(try_open(&t, "//sub/./b.txt", flags, buf, sizeof buf), 0);
  ck_assert_str_eq(buf, "world");
  const char *bad403[] = { "/../secret.txt", "/sub/../../secret.txt", "/sub/..", "/..",  "/out",
                           "/sub/up",        "/outdir/secret.txt",    "/",       "/sub", "/fifo" };
  for (size_t i = 0; i < G_N_ELEMENTS(bad403); i++) {
    int r = try_open(&t, bad403[i], flags, buf, sizeof buf);
    ck_assert_msg(r == -403 || r == -404, "%s -> %d", bad403[i], r);
  }
  ck_assert_int_eq(try_open(&t, "/../secret.txt", flags, buf, sizeof buf), -403);
  ck_assert_int_eq(try_open(&t, "/nope", flags, buf, sizeof buf), -404);
  ck_assert_int_eq(try_open(&t, "/a.txt/x", flags, buf, sizeof buf), -404);
  /* "absolute" paths are relative to the root: /etc/passwd is root/etc/passwd */
  ck_assert_int_eq(try_open(&t, t.secret, flags, buf, sizeof buf), -404);
  ck_assert_int_eq(try_open(&t, "relative", flags, buf, sizeof buf), -404);
  /* a symlink inside the root: followed by openat2, refused by the walk */
  int r = try_open(&t, "/in", flags, buf, sizeof buf);
  if (flags & VAL_PATH_FORCE_WALK)
    ck_assert_int_eq(r, -403);
  else if (r == 0)
    ck_assert_str_eq(buf, "world");
  free_tree(&t);
}

START_TEST(test_path_openat2)
{
  check_containment(0);
}
END_TEST

START_TEST(test_path_walk)
{
  check_containment(VAL_PATH_FORCE_WALK);
}
END_TEST

START_TEST(test_encoded_dotdot_end_to_end)
{
  /* decode + resolve, the way the server chains them */
  Tree t = make_tree();
  const char *targets[] = { "/%2e%2e/secret.txt", "/%2E%2E%2Fsecret.txt", "/sub/%2e%2e/%2e%2e/secret.txt", "/..%2fsecret.txt",
                            "/%2e%2e%2f%2e%2e%2fetc%2fpasswd" };
  for (size_t i = 0; i < G_N_ELEMENTS(targets); i++) {
    g_autofree char *req = g_strdup_printf("GET %s HTTP/1.1\r\nHost: h\r\n\r\n", targets[i]);
    ValHttpRequest r;
    size_t used;
    ck_assert_int_eq(val_http_parse_request(req, strlen(req), &r, &used), 1);
    uint64_t size;
    int fd = val_path_open(t.root_fd, t.root_real, r.path, 0, &size);
    ck_assert_msg(fd == -403, "%s -> %d", targets[i], fd);
  }
  free_tree(&t);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("validate_http");
  TCase *tc = tcase_create("http");
  tcase_add_test(tc, test_request_basic);
  tcase_add_test(tc, test_smuggling_shapes);
  tcase_add_test(tc, test_ranges);
  tcase_add_test(tc, test_format_head);
  tcase_add_test(tc, test_hostile_headers);
  tcase_add_test(tc, test_path_openat2);
  tcase_add_test(tc, test_path_walk);
  tcase_add_test(tc, test_encoded_dotdot_end_to_end);
  suite_add_tcase(s, tc);
  return test_run_suite(s);
}
