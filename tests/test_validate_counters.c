/* tests/test_validate_counters.c — the resource counters of a run: each parser on fixture text
 * with hand-derived deltas (CPU busy shares, softirq share, sectors x 512, NIC bytes and drops,
 * kTLS software vs device, pgpgin), partitions left out of the drive sums, the DRAM PMU lookup
 * on a fake sysfs tree, and a live snapshot of this host that sees its own CPU burn and reads. */
#include <check.h>
#include <string.h>
#include <unistd.h>

#include "tests/support/check_run.h"
#include "validate/counters.h"

static const char STAT_A[] = "cpu  100 0 50 1000 0 0 10 0 0 0\n"
                             "cpu0 40 0 20 500 0 0 5 0 0 0\n"
                             "cpu1 60 0 30 500 0 0 5 0 0 0\n"
                             "intr 12345\n";
/* cpu0: +60 user +20 system +20 softirq, +100 idle: busy 100 of 200 -> 0.5; cpu1: +190 busy
 * (+10 softirq, +10 steal) of 200 -> 0.95; softirq 30 of 290 busy ticks */
static const char STAT_B[] = "cpu  0 0 0 0 0 0 0 0 0 0\n"
                             "cpu0 100 0 40 600 0 0 25 0 0 0\n"
                             "cpu1 200 0 60 510 0 0 15 10 0 0\n";

static const char DISK_A[] = " 259 0 nvme0n1 100 0 8000 0 0 0 0 0 0 0 0\n"
                             " 259 1 nvme0n1p1 90 0 7000 0 0 0 0 0 0 0 0\n"
                             " 253 0 vda 10 0 80 0 0 0 0 0 0 0 0\n"
                             " 253 1 vda1 10 0 80 0 0 0 0 0 0 0 0\n"
                             "   7 0 loop0 5 0 40 0 0 0 0 0 0 0 0\n";
static const char DISK_B[] = " 259 0 nvme0n1 300 0 10048 0 0 0 0 0 0 0 0\n"
                             " 259 1 nvme0n1p1 290 0 9048 0 0 0 0 0 0 0 0\n"
                             " 253 0 vda 12 0 96 0 0 0 0 0 0 0 0\n"
                             " 253 1 vda1 12 0 96 0 0 0 0 0 0 0 0\n"
                             "   7 0 loop0 7 0 2088 0 0 0 0 0 0 0 0\n";

START_TEST(test_stat_and_disks)
{
  ValCtrSnap a = { 0 }, b = { 0 };
  ck_assert(val_ctr_parse_stat(STAT_A, &a));
  ck_assert(val_ctr_parse_stat(STAT_B, &b));
  ck_assert_int_eq(a.ncpu, 2);
  ck_assert(val_ctr_parse_diskstats(DISK_A, &a));
  ck_assert(val_ctr_parse_diskstats(DISK_B, &b));
  ck_assert_int_eq(a.ndisk, 3); /* nvme0n1p1 and vda1 are partitions */
  ValCtrDelta d;
  val_ctr_delta(&a, &b, 2.0, "nvme", NULL, NULL, &d);
  ck_assert_double_eq_tol(d.cpu_busy[0], 0.5, 1e-12);
  ck_assert_double_eq_tol(d.cpu_busy[1], 0.95, 1e-12);
  ck_assert_double_eq_tol(d.busy_cores, 1.45, 1e-12);
  ck_assert_double_eq_tol(d.softirq_share, 30.0 / 290.0, 1e-12);
  ck_assert_uint_eq(d.disk_read_bytes, 2048ull * 512); /* the disk, not disk + partition */
  ck_assert_uint_eq(d.disk_reads, 200);
  val_ctr_delta(&a, &b, 2.0, "loop,vda", NULL, NULL, &d);
  ck_assert_uint_eq(d.disk_read_bytes, (2048ull + 16) * 512);
  ck_assert_str_eq(d.dram_note, "not measured");
  ck_assert(!d.dram);
}
END_TEST

START_TEST(test_tls_vmstat)
{
  ValCtrSnap a = { 0 }, b = { 0 };
  ck_assert(!val_ctr_parse_tls_stat("", &a));
  ck_assert(val_ctr_parse_tls_stat("TlsCurrTxSw                     \t0\nTlsCurrRxSw 0\nTlsTxSw 4\nTlsRxSw 0\n"
                                   "TlsTxDevice 10\nTlsRxDevice 0\n",
                                   &a));
  ck_assert(val_ctr_parse_tls_stat("TlsCurrTxSw 0\nTlsTxSw 12\nTlsRxSw 0\nTlsTxDevice 10\nTlsRxDevice 0\n", &b));
  ck_assert(val_ctr_parse_vmstat("pgpgin 1000\npgpgout 5\npgmajfault 3\n", &a));
  ck_assert(val_ctr_parse_vmstat("pgpgin 3048\npgpgout 5\npgmajfault 7\n", &b));
  ValCtrDelta d;
  val_ctr_delta(&a, &b, 1.0, NULL, NULL, NULL, &d);
  ck_assert(d.tls_stat);
  ck_assert_uint_eq(d.tls_tx_sw, 8); /* "TlsCurrTxSw" is not "TlsTxSw" */
  ck_assert_uint_eq(d.tls_tx_device, 0);
  ck_assert_uint_eq(d.pgpgin_bytes, 2048ull * 1024);
  ck_assert_uint_eq(d.pgmajfault, 4);
}
END_TEST

START_TEST(test_net)
{
  ValCtrSnap a = { 0 }, b = { 0 };
  a.nnet = b.nnet = 2;
  g_strlcpy(a.net[0].name, "eth0", 32), g_strlcpy(b.net[0].name, "eth0", 32);
  g_strlcpy(a.net[1].name, "veth1", 32), g_strlcpy(b.net[1].name, "veth1", 32);
  a.net[0].tx_bytes = 1000, b.net[0].tx_bytes = 5000, b.net[0].tx_dropped = 3;
  a.net[1].tx_bytes = 10, b.net[1].tx_bytes = 20, a.net[1].rx_dropped = 5, b.net[1].rx_dropped = 9;
  ValCtrDelta d;
  val_ctr_delta(&a, &b, 1.0, NULL, "eth", NULL, &d);
  ck_assert_uint_eq(d.net_tx_bytes, 4000);
  ck_assert_uint_eq(d.net_drops, 3);
  val_ctr_delta(&a, &b, 1.0, NULL, NULL, NULL, &d);
  ck_assert_uint_eq(d.net_tx_bytes, 4010);
  ck_assert_uint_eq(d.net_drops, 7);
}
END_TEST

START_TEST(test_dram_lookup)
{
  /* uncore_imc_0 has both CAS events, uncore_imc_1 lacks the write one: one PMU found */
  g_autoptr(ValCtrDram) f = val_ctr_dram_open("tests/data/counters/uncore");
  ck_assert_int_eq(val_ctr_dram_pmus(f), 1);
  g_autoptr(ValCtrDram) none = val_ctr_dram_open("tests/data/hostplat/box2s");
  ck_assert_int_eq(val_ctr_dram_pmus(none), 0);
  ck_assert(!val_ctr_dram_ok(none));
  ck_assert(strstr(val_ctr_dram_note(none), "not measured") != NULL);
}
END_TEST

/* This host: a spinning thread shows as about one more busy core; loopback bytes rise. */
START_TEST(test_live)
{
  g_autoptr(ValCtrDram) dram = val_ctr_dram_open("/");
  ValCtrSnap a, b;
  val_ctr_snapshot("/", dram, &a);
  ck_assert_int_ge(a.ncpu, 1);
  ck_assert_int_ge(a.nnet, 1);
  gint64 t0 = g_get_monotonic_time();
  volatile double x = 0;
  while (g_get_monotonic_time() - t0 < 300000) x += 1;
  val_ctr_snapshot("/", dram, &b);
  ValCtrDelta d;
  val_ctr_delta(&a, &b, 0.3, NULL, "lo", dram, &d);
  ck_assert_msg(d.busy_cores >= 0.5, "busy %g", d.busy_cores); /* one core spun (others' load only adds) */
  if (!val_ctr_dram_ok(dram)) ck_assert(strstr(d.dram_note, "not measured") != NULL);
}
END_TEST

static Suite *suite(void)
{
  Suite *s = suite_create("validate_counters");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_stat_and_disks);
  tcase_add_test(tc, test_tls_vmstat);
  tcase_add_test(tc, test_net);
  tcase_add_test(tc, test_dram_lookup);
  tcase_add_test(tc, test_live);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return test_run_suite(suite());
}
