/* tests/test_validate_probe.c — host probe and microbenchmarks: values are sane and
 * the kernel-TLS result is self-consistent (either it works or an errno is given). */
#include <check.h>
#include "tests/support/check_run.h"
#include <errno.h>
#include <string.h>

#include "validate/microbench.h"
#include "serve/probe.h"

START_TEST(test_probe_fields)
{
  g_autoptr(ValProbe) p = val_probe_run();
  ck_assert_int_ge(p->cpus_online, 1);
  ck_assert(p->clock_hz > 1e8 && p->clock_hz < 1e10);
  ck_assert_int_ge(p->numa_nodes, 1);
  ck_assert(p->mem_total_bytes > (1u << 20));
  ck_assert(strstr(p->kernel, "Linux") != NULL);
  ck_assert(strstr(p->openssl_version, "OpenSSL 3") != NULL);
  ck_assert(p->ktls.reason[0] != 0);
  if (!p->ktls.ulp_ok) {
    ck_assert_int_ne(p->ktls.ulp_errno, 0);
    ck_assert(strstr(p->ktls.reason, "unavailable") != NULL);
    ck_assert(!p->ktls.openssl_engaged);
  }
  if (p->ktls.ulp_errno == ENOENT) ck_assert(strstr(p->ktls.reason, "ENOENT") != NULL);
  JsonBuilder *b = json_builder_new();
  val_probe_to_json(p, b);
  JsonNode *n = json_builder_get_root(b);
  ck_assert(n != NULL && JSON_NODE_HOLDS_OBJECT(n));
  JsonObject *o = json_node_get_object(n);
  ck_assert(json_object_has_member(o, "ktls"));
  ck_assert_int_eq(json_object_get_int_member(o, "cpus_online"), p->cpus_online);
  json_node_unref(n);
  g_object_unref(b);
}
END_TEST

START_TEST(test_aead_cpb_sane)
{
  /* AES-GCM with AES-NI costs well under 10 cycles/byte; every cipher must run. */
  for (int c = VAL_CIPHER_AES128GCM; c < VAL_CIPHER_COUNT; c++) {
    double e = val_mb_aead_cpb((ValCipher)c, FALSE, 16384, 0.02, 2.6e9);
    double d = val_mb_aead_cpb((ValCipher)c, TRUE, 16384, 0.02, 2.6e9);
    ck_assert_msg(e > 0.01 && e < 50, "enc %s %g", val_cipher_name((ValCipher)c), e);
    ck_assert_msg(d > 0.01 && d < 50, "dec %s %g", val_cipher_name((ValCipher)c), d);
  }
  ck_assert(val_mb_aead_cpb(VAL_CIPHER_ANY, FALSE, 16384, 0.01, 2.6e9) < 0);
}
END_TEST

START_TEST(test_microbench_small)
{
  ValMbConfig cfg = {
    .clock_hz = 2.6e9, .seconds_per_item = 0.01, .max_threads = 2, .dram_bytes = 4 << 20, .socket_bytes = 8 << 20
  };
  ValMicrobench m;
  g_autoptr(GError) err = NULL;
  ck_assert_msg(val_mb_run(&cfg, &m, &err), "%s", err ? err->message : "");
  ck_assert_int_ge(m.dram_threads, 1);
  for (int t = 0; t < m.dram_threads; t++) ck_assert(m.dram_read_GBps[t] > 0 && m.dram_copy_GBps[t] > 0);
  ck_assert(m.sha256_cpb > 0 && m.memcpy_hot_cpb > 0);
  ck_assert(m.sendfile_GBps > 0 && m.sockcopy_GBps > 0);
  ck_assert(m.sendfile_tx_cpb > 0 && m.sockcopy_rx_cpb > 0);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("validate_probe");
  TCase *tc = tcase_create("probe");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_probe_fields);
  tcase_add_test(tc, test_aead_cpb_sane);
  tcase_add_test(tc, test_microbench_small);
  suite_add_tcase(s, tc);
  return test_run_suite(s);
}
