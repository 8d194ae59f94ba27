/* fuzz/fuzz_http.c — libFuzzer target: the request-line, header and Range parser of
 * `ocasim serve` (serve/http.c).
 *
 * Input: the bytes a client sends.  Requests are parsed one after the other as a pipelining
 * server does (val_http_parse_request, then the rest after *consumed), each Range value is
 * resolved against files of 0, 1, 4096, 2^32 + 7 and 2^62 bytes (val_http_resolve_range) and
 * the response head is formatted (val_http_format_head); the same bytes are also read as a
 * response (val_http_parse_response).  The harness aborts when a result breaks the contract
 * of serve/http.h: a head consumed beyond the input or of no bytes, a path not starting
 * with '/', a 206 range outside the file or reversed, a status other than 200/206/416.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz/fuzz_common.h"
#include "serve/http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc G_GNUC_UNUSED, char ***argv G_GNUC_UNUSED)
{
  fuzz_quiet();
  return 0;
}

#define FUZZ_EXPECT(cond)                                         \
  do {                                                            \
    if (!(cond)) {                                                \
      fprintf(stderr, "fuzz_http: broken contract: %s\n", #cond); \
      abort();                                                    \
    }                                                             \
  } while (0)

static void check_range(const char *value, gboolean keep_alive)
{
  static const uint64_t sizes[] = { 0, 1, 4096, (UINT64_C(1) << 32) + 7, UINT64_C(1) << 62 };
  for (size_t i = 0; i < G_N_ELEMENTS(sizes); i++) {
    uint64_t first = UINT64_MAX, last = UINT64_MAX;
    int st = val_http_resolve_range(value, sizes[i], &first, &last);
    FUZZ_EXPECT(st == 200 || st == 206 || st == 416);
    if (st == 206) FUZZ_EXPECT(first <= last && last < sizes[i]);
    char head[1024];
    if (st == 200) {
      first = 0;
      last = sizes[i] ? sizes[i] - 1 : 0;
    }
    (void)val_http_format_head(head, sizeof head, st, sizes[i], first, last, keep_alive, NULL);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  /* a private copy without a terminating NUL, so that reading past @size is caught */
  char *buf = g_malloc(size ? size : 1);
  memcpy(buf, data, size);
  size_t off = 0;
  for (int n = 0; n < 64 && off < size; n++) {
    ValHttpRequest *req = g_new0(ValHttpRequest, 1);
    size_t used = 0;
    int r = val_http_parse_request(buf + off, size - off, req, &used);
    if (r == 1) {
      FUZZ_EXPECT(used > 0 && used <= size - off);
      FUZZ_EXPECT(req->path[0] == '/' && memchr(req->path, 0, sizeof req->path) != NULL);
      if (req->has_range) {
        FUZZ_EXPECT(memchr(req->range, 0, sizeof req->range) != NULL);
        check_range(req->range, req->keep_alive);
      }
      off += used;
    } else {
      FUZZ_EXPECT(r == 0 || r == -400 || r == -405 || r == -414 || r == -431 || r == -501 || r == -505);
      if (r < 0) {
        char head[1024];
        (void)val_http_format_head(head, sizeof head, -r, 0, 0, 0, FALSE, NULL);
      }
      g_free(req);
      break;
    }
    g_free(req);
  }
  int status = 0;
  int64_t clen = 0;
  gboolean close = FALSE;
  size_t used = 0;
  int r = val_http_parse_response(buf, size, &status, &clen, &close, &used);
  if (r == 1) FUZZ_EXPECT(used > 0 && used <= size);
  g_free(buf);
  return 0;
}
