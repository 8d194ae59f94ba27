/* tests/test_ktls_case.c — the scripted cases of `ocasim load --case` (validate/ktlscase.c)
 * outside the kTLS VM: on this host sendfile_ktls falls back to user space, so the cases run
 * against the user-space TLS path (and plain HTTP where TLS is not the point), with the server's
 * own counters as the second oracle.  The same cases run against the real kernel TLS in
 * `make ktls-check` (scripts/ktls/checks.sh).  Also: the probe's per-cipher and hypervisor
 * fields, and that each case fails when what it checks is wrong (a wrong expected file, a
 * server that cannot do TLS 1.3). */
#include <check.h>
#include "tests/support/check_run.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "validate/ktlscase.h"
#include "serve/probe.h"
#include "serve/server.h"
#include "serve/tls.h"
#include "serve/util.h"

/* The served file: 8 MiB (the truncate case needs at least 4 MiB), pseudo-random. */
#define CASE_FILE_BYTES (8u << 20)

typedef struct {
  char *base, *root, *file, *other;
} Dir;

static void write_random(const char *path, size_t n, uint32_t seed)
{
  g_autofree unsigned char *b = g_malloc(n);
  uint32_t x = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    b[i] = (unsigned char)x;
  }
  ck_assert(g_file_set_contents(path, (const char *)b, (gssize)n, NULL));
}

static Dir make_dir(void)
{
  Dir d;
  d.base = g_dir_make_tmp("ocasim-case-XXXXXX", NULL);
  ck_assert(d.base);
  d.root = g_build_filename(d.base, "root", NULL);
  ck_assert_int_eq(g_mkdir_with_parents(d.root, 0755), 0);
  d.file = g_build_filename(d.root, "f.bin", NULL);
  d.other = g_build_filename(d.base, "other.bin", NULL); /* same size, other bytes */
  write_random(d.file, CASE_FILE_BYTES, 1);
  write_random(d.other, CASE_FILE_BYTES, 2);
  return d;
}

static void free_dir(Dir *d)
{
  val_rm_rf(d->base);
  g_free(d->base);
  g_free(d->root);
  g_free(d->file);
  g_free(d->other);
}

static ValServer *start(Dir *d, ValServerMode m)
{
  ValServerConfig c = { .root = d->root, .mode = m, .threads = 1, .quiet = TRUE, .idle_timeout_s = 20 };
  g_autoptr(GError) err = NULL;
  ValServer *s = val_server_start(&c, &err);
  ck_assert_msg(s, "server: %s", err ? err->message : "");
  return s;
}

/* Runs case k against a fresh server in mode m; returns the case's verdict, the report in *rep
 * and the server's final counters in *st. */
static gboolean run_case(Dir *d, ValServerMode m, ValTlsVersion v, ValCase k, const char *local, GString *rep, ValServerStats *st)
{
  ValServer *s = start(d, m);
  SSL_CTX *cc = val_server_mode_is_tls(m) ? val_tls_client_ctx_new(v, VAL_CIPHER_ANY, FALSE, NULL) : NULL;
  ValCaseConfig kc = { .port = val_server_port(s), .ctx = cc, .path = "/f.bin", .local = local, .timeout_s = 20 };
  gboolean ok = val_case_run(k, &kc, rep);
  SSL_CTX_free(cc);
  val_server_stop_stats(s, st);
  return ok;
}

START_TEST(test_names)
{
  for (int k = 0; k < VAL_CASE_COUNT; k++) {
    ValCase back;
    ck_assert(val_case_parse(val_case_name((ValCase)k), &back));
    ck_assert_int_eq(back, k);
  }
  ValCase x;
  ck_assert(!val_case_parse("keyupdates", &x));
  ck_assert(!val_case_parse("", &x));
}
END_TEST

/* user-space TLS handles a KeyUpdate: the second response arrives under the new keys */
START_TEST(test_keyupdate_userspace)
{
  Dir d = make_dir();
  g_autoptr(GString) rep = g_string_new(NULL);
  ValServerStats st;
  gboolean ok = run_case(&d, VAL_MODE_USERSPACE, VAL_TLS_13, VAL_CASE_KEYUPDATE, d.file, rep, &st);
  ck_assert_msg(ok, "%s", rep->str);
  ck_assert_msg(strstr(rep->str, "both sides moved to the new keys"), "%s", rep->str);
  ck_assert_uint_eq(st.ktls_rekey_closes, 0);
  ck_assert_uint_eq(st.requests, 2);
  ck_assert_uint_eq(st.tls_failures, 0);
  /* TLS 1.2 has no KeyUpdate: the case refuses to pass */
  g_string_truncate(rep, 0);
  ck_assert(!run_case(&d, VAL_MODE_USERSPACE, VAL_TLS_12, VAL_CASE_KEYUPDATE, d.file, rep, &st));
  ck_assert_msg(strstr(rep->str, "needs TLS 1.3"), "%s", rep->str);
  free_dir(&d);
}
END_TEST

/* the client's bytes are compared with the file: another file's bytes fail every case that hashes */
START_TEST(test_wrong_bytes_fail)
{
  Dir d = make_dir();
  static const ValCase hashed[] = { VAL_CASE_KEYUPDATE, VAL_CASE_CLOSE_NOTIFY, VAL_CASE_SLOW, VAL_CASE_RESET };
  for (size_t i = 0; i < G_N_ELEMENTS(hashed); i++) {
    g_autoptr(GString) rep = g_string_new(NULL);
    ValServerStats st;
    ck_assert_msg(!run_case(&d, VAL_MODE_USERSPACE, VAL_TLS_13, hashed[i], d.other, rep, &st), "%s passed on wrong bytes: %s",
                  val_case_name(hashed[i]), rep->str);
  }
  free_dir(&d);
}
END_TEST

START_TEST(test_close_notify)
{
  Dir d = make_dir();
  g_autoptr(GString) rep = g_string_new(NULL);
  ValServerStats st;
  /* sendfile_ktls on a host without kTLS: the user-space fallback, still with close_notify */
  ck_assert_msg(run_case(&d, VAL_MODE_SENDFILE_KTLS, VAL_TLS_12, VAL_CASE_CLOSE_NOTIFY, d.file, rep, &st), "%s", rep->str);
  ck_assert_msg(strstr(rep->str, "close_notify then EOF, 0 bytes after the body"), "%s", rep->str);
  ck_assert_uint_eq(st.requests, 1);
  ck_assert_uint_eq(st.status_2xx, 1);
  free_dir(&d);
}
END_TEST

START_TEST(test_reset)
{
  Dir d = make_dir();
  g_autoptr(GString) rep = g_string_new(NULL);
  ValServerStats st;
  ck_assert_msg(run_case(&d, VAL_MODE_USERSPACE, VAL_TLS_ANY, VAL_CASE_RESET, d.file, rep, &st), "%s", rep->str);
  ck_assert_uint_ge(st.client_aborts, 1);
  ck_assert_uint_eq(st.requests, 2); /* the reset one and the range after it */
  ck_assert_uint_eq(st.open_conns, 0);
  free_dir(&d);
}
END_TEST

START_TEST(test_truncate)
{
  static const ValServerMode modes[] = { VAL_MODE_USERSPACE, VAL_MODE_SENDFILE };
  for (size_t i = 0; i < G_N_ELEMENTS(modes); i++) {
    Dir d = make_dir();
    g_autoptr(GString) rep = g_string_new(NULL);
    ValServerStats st;
    gboolean ok = run_case(&d, modes[i], VAL_TLS_ANY, VAL_CASE_TRUNCATE, d.file, rep, &st);
    if (modes[i] == VAL_MODE_SENDFILE) {
      /* plain HTTP has no close_notify: the short body is the only sign, and the case still needs it */
      ck_assert_msg(ok, "plain: %s", rep->str);
    } else {
      ck_assert_msg(ok, "%s", rep->str);
      ck_assert_msg(strstr(rep->str, "without a close_notify"), "%s", rep->str);
    }
    ck_assert_uint_eq(st.truncations, 1);
    struct stat sb;
    ck_assert_int_eq(stat(d.file, &sb), 0);
    ck_assert_int_eq(sb.st_size, 1 << 20); /* the case shortened the file to 1 MiB */
    free_dir(&d);
  }
  /* a file below 4 MiB cannot be cut after 256 KiB with a margin: refused */
  Dir d = make_dir();
  ck_assert_int_eq(truncate(d.file, 2 << 20), 0);
  g_autoptr(GString) rep = g_string_new(NULL);
  ValServerStats st;
  ck_assert(!run_case(&d, VAL_MODE_USERSPACE, VAL_TLS_ANY, VAL_CASE_TRUNCATE, d.file, rep, &st));
  free_dir(&d);
}
END_TEST

START_TEST(test_slow)
{
  Dir d = make_dir();
  g_autoptr(GString) rep = g_string_new(NULL);
  ValServerStats st;
  ck_assert_msg(run_case(&d, VAL_MODE_SENDFILE_KTLS, VAL_TLS_13, VAL_CASE_SLOW, d.file, rep, &st), "%s", rep->str);
  ck_assert_uint_eq(st.bytes_body, CASE_FILE_BYTES);
  free_dir(&d);
}
END_TEST

/* this host has no kernel TLS (no ULP): the probe says why; a hypervisor, when the CPU flags
 * name one, has a vendor name and TCG is the only one called emulated */
START_TEST(test_probe_fields)
{
  g_autoptr(ValProbe) p = val_probe_run();
  g_autoptr(GString) out = g_string_new(NULL);
  val_probe_ktls_print(&p->ktls, out);
  ck_assert_msg(strstr(out->str, "reason: "), "%s", out->str);
  if (!p->ktls.ulp_ok) {
    ck_assert(!p->ktls.by_cipher_probed);
    ck_assert_msg(strstr(out->str, "ULP tls: E"), "%s", out->str);
    ck_assert_msg(strstr(p->ktls.reason, "kernel TLS unavailable"), "%s", p->ktls.reason);
  } else {
    ck_assert(p->ktls.by_cipher_probed);
    ck_assert_msg(strstr(out->str, "TLS_TX 1.3 aes-128-gcm: "), "%s", out->str);
  }
  ck_assert_int_eq(p->emulated, !strcmp(p->hypervisor, "TCGTCGTCGTCG"));
  ck_assert_int_eq(val_probe_hypervisor_name(p)[0] != 0, p->hypervisor[0] != 0);
}
END_TEST

int main(void)
{
  signal(SIGPIPE, SIG_IGN);
  Suite *s = suite_create("ktls_case");
  TCase *tc = tcase_create("cases");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_names);
  tcase_add_test(tc, test_keyupdate_userspace);
  tcase_add_test(tc, test_wrong_bytes_fail);
  tcase_add_test(tc, test_close_notify);
  tcase_add_test(tc, test_reset);
  tcase_add_test(tc, test_truncate);
  tcase_add_test(tc, test_slow);
  tcase_add_test(tc, test_probe_fields);
  suite_add_tcase(s, tc);
  return test_run_suite(s);
}
