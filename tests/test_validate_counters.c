/* tests/test_validate_counters.c — the resource counters of a run: each parser on fixture text
 * with hand-derived deltas (CPU busy shares, softirq share, sectors x 512, NIC bytes and drops,
 * kTLS software vs device, pgpgin), partitions left out of the drive sums, `ethtool -S` texts
 * (mlx5 names from its counters.rst, veth and virtio_net as this host prints them, garbage, empty)
 * and their drop rule, the DRAM PMU lookup on fake sysfs trees (Intel uncore_imc, AMD amd_umc and
 * amd_df: config words against hand-encoded values), multiplexing's scaling, a refused
 * perf_event_open, and a live snapshot of this host that sees its own CPU burn and reads. */
#include <check.h>
#include <glib/gstdio.h>
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
  ck_assert_int_eq(val_ctr_dram_events(f), 2);
  ck_assert_uint_eq(val_ctr_dram_event(f, 0)->config, 0x304); /* event=0x04,umask=0x03: event | umask << 8 */
  ck_assert_uint_eq(val_ctr_dram_event(f, 0)->type, 14);
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
  ck_assert(!d.nic_drops_measured); /* lo: no driver statistics, not measured rather than 0 */
  ck_assert(strstr(d.nic_note, "not measured") != NULL);
}
END_TEST

/* ---- ethtool -S ---------------------------------------------------------------------- */

/* mlx5-like: counter names from Documentation/networking/device_drivers/ethernet/mellanox/mlx5/
 * counters.rst (port-wide and a few per-ring / per-priority ones); three values vary. */
static char *mlx5_text(unsigned long long rx_discards_phy, unsigned long long tls_bytes, unsigned long long tls_drop)
{
  return g_strdup_printf("NIC statistics:\n"
                         "     rx_packets: 1000\n"
                         "     tx_packets: 2000\n"
                         "     tx_queue_dropped: 1\n"
                         "     rx_xdp_drop: 7\n"
                         "     rx_oversize_pkts_sw_drop: 0\n"
                         "     tx_tls_encrypted_packets: 500\n"
                         "     tx_tls_encrypted_bytes: %llu\n"
                         "     tx_tls_ctx: 4\n"
                         "     tx_tls_ooo: 2\n"
                         "     tx_tls_resync_bytes: 100\n"
                         "     tx_tls_dump_bytes: 50\n"
                         "     tx_tls_skip_no_sync_data: 0\n"
                         "     tx_tls_drop_no_sync_data: %llu\n"
                         "     tx_tls_drop_bypass_req: 1\n"
                         "     rx_tls_decrypted_bytes: 0\n"
                         "     rx_steer_missed_packets: 2\n"
                         "     rx_out_of_buffer: 10\n"
                         "     rx0_packets: 1000\n"
                         "     tx0_dropped: 1\n"
                         "     tx0_tls_encrypted_bytes: 999\n"
                         "     rx_discards_phy: %llu\n"
                         "     tx_discards_phy: 5\n"
                         "     rx_prio0_discards: 20\n"
                         "     rx_prio0_buf_discard: 4\n"
                         "     rx_crc_errors_phy: 9\n"
                         "     dev_out_of_buffer: 0\n",
                         tls_bytes, tls_drop, rx_discards_phy);
}

/* veth and virtio_net as `ethtool -S` prints them on this host (values changed). */
static const char VETH[] =
    "NIC statistics:\n     peer_ifindex: 311\n     rx_queue_0_xdp_packets: 0\n     rx_queue_0_xdp_bytes: 0\n"
    "     rx_queue_0_drops: 3\n     rx_queue_0_xdp_redirect: 0\n     rx_queue_0_xdp_drops: 5\n"
    "     rx_queue_0_xdp_tx: 0\n     tx_queue_0_xdp_xmit: 0\n     tx_queue_0_xdp_xmit_errors: 0\n";
static const char VIRTIO[] = "NIC statistics:\n     rx_drops: 4\n     rx_xdp_packets: 0\n     rx_xdp_drops: 1\n"
                             "     tx_xdp_tx_drops: 0\n     tx_kicks: 11163\n     rx0_drops: 4\n     rx0_xdp_drops: 1\n";

START_TEST(test_ethtool_parse)
{
  ValCtrNic n;
  g_autofree char *m = mlx5_text(20, 700000, 3);
  ck_assert(val_ctr_parse_ethtool(m, &n));
  ck_assert(n.ok);
  /* port-wide drop counters: tx_queue_dropped 1 + rx_oversize_pkts_sw_drop 0 + tx_tls_drop_no_sync_data
   * 3 + tx_tls_drop_bypass_req 1 + rx_steer_missed_packets 2 + rx_out_of_buffer 10 + rx_discards_phy
   * 20 + tx_discards_phy 5 + dev_out_of_buffer 0 = 42 (9 counters); not rx_xdp_drop (XDP), tx0_dropped
   * or rx_prio0_* (breakdowns with a digit) */
  ck_assert_int_eq(n.ndrop, 9);
  ck_assert_uint_eq(n.drops, 42);
  ck_assert_uint_eq(n.tls_have, (1u << VAL_CTR_NIC_TLS_N) - 1);
  ck_assert_uint_eq(n.tls[VAL_CTR_NIC_TLS_TX_ENC_BYTES], 700000); /* not tx0_tls_encrypted_bytes */
  ck_assert_uint_eq(n.tls[VAL_CTR_NIC_TLS_TX_ENC_PACKETS], 500);
  ck_assert_uint_eq(n.tls[VAL_CTR_NIC_TLS_TX_CTX], 4);
  ck_assert_uint_eq(n.tls[VAL_CTR_NIC_TLS_TX_OOO], 2);
  ck_assert_uint_eq(n.tls[VAL_CTR_NIC_TLS_TX_RESYNC_BYTES], 100);
  ck_assert_uint_eq(n.tls[VAL_CTR_NIC_TLS_TX_DUMP_BYTES], 50);
  ck_assert_uint_eq(n.tls[VAL_CTR_NIC_TLS_TX_DROPS], 4); /* no_sync_data 3 + bypass_req 1 */
  ck_assert_uint_eq(n.tls[VAL_CTR_NIC_TLS_RX_DEC_BYTES], 0);
  /* veth: only per-queue counters, so they count: rx_queue_0_drops, not the XDP one */
  ck_assert(val_ctr_parse_ethtool(VETH, &n));
  ck_assert_int_eq(n.ndrop, 1);
  ck_assert_uint_eq(n.drops, 3);
  ck_assert_uint_eq(n.tls_have, 0);
  /* virtio_net: rx_drops, not its per-queue copy rx0_drops nor the XDP ones */
  ck_assert(val_ctr_parse_ethtool(VIRTIO, &n));
  ck_assert_int_eq(n.ndrop, 1);
  ck_assert_uint_eq(n.drops, 4);
  /* ifb: counters but none of drops */
  ck_assert(val_ctr_parse_ethtool("NIC statistics:\n     rx_queue_0_packets: 7\n     tx_queue_0_bytes: 9\n", &n));
  ck_assert_int_eq(n.ndrop, 0);
  /* lo, garbage, empty: nothing parsed */
  ck_assert(!val_ctr_parse_ethtool("no stats available\n", &n));
  ck_assert(!n.ok);
  ck_assert(!val_ctr_parse_ethtool("hello\nrx_drops: lots\n: 5\nrx_drops: -3\nrx_drops: 0x10\n\x01\x02:\n", &n));
  ck_assert(!val_ctr_parse_ethtool("", &n));
  ck_assert(!val_ctr_parse_ethtool(NULL, &n));
  ck_assert_int_eq(n.ndrop, 0);
}
END_TEST

static void set_net(ValCtrSnap *s, int i, const char *name, const char *ethtool_text)
{
  g_strlcpy(s->net[i].name, name, sizeof s->net[i].name);
  if (ethtool_text) val_ctr_parse_ethtool(ethtool_text, &s->net[i].nic);
  s->nnet = MAX(s->nnet, i + 1);
}

START_TEST(test_nic_delta)
{
  ValCtrSnap *a = g_new0(ValCtrSnap, 1), *b = g_new0(ValCtrSnap, 1);
  g_autofree char *ma = mlx5_text(20, 700000, 3), *mb = mlx5_text(26, 1700000, 5);
  static const char VETH_B[] = "NIC statistics:\n     rx_queue_0_drops: 10\n     rx_queue_0_xdp_drops: 50\n";
  a->ethtool = b->ethtool = TRUE;
  set_net(a, 0, "ens1f0np0", ma), set_net(b, 0, "ens1f0np0", mb);
  set_net(a, 1, "lo", NULL), set_net(b, 1, "lo", NULL);
  set_net(a, 2, "veth1", VETH), set_net(b, 2, "veth1", VETH_B);
  set_net(a, 3, "ifb0", "x: 1\n"), set_net(b, 3, "ifb0", "x: 2\n");
  ValCtrDelta d;
  val_ctr_delta(a, b, 1.0, NULL, NULL, NULL, &d);
  ck_assert(d.nic_drops_measured);
  ck_assert_uint_eq(d.nic_drops, (26 - 20) + (5 - 3) + (10 - 3)); /* phy discards, TLS drops, veth queue */
  ck_assert_uint_eq(d.nic_tls_have, (1u << VAL_CTR_NIC_TLS_N) - 1);
  ck_assert_uint_eq(d.nic_tls[VAL_CTR_NIC_TLS_TX_ENC_BYTES], 1000000);
  ck_assert_uint_eq(d.nic_tls[VAL_CTR_NIC_TLS_TX_DROPS], 2);
  ck_assert_uint_eq(d.nic_tls[VAL_CTR_NIC_TLS_TX_OOO], 0);
  ck_assert_str_eq(d.nic_note, "drops: ens1f0np0, veth1; device TLS: ens1f0np0; not measured: lo (no ethtool -S statistics), "
                               "ifb0 (no drop counters)");
  /* loopback alone: not measured, never 0 */
  val_ctr_delta(a, b, 1.0, NULL, "lo", NULL, &d);
  ck_assert(!d.nic_drops_measured);
  ck_assert_uint_eq(d.nic_tls_have, 0);
  ck_assert_str_eq(d.nic_note, "not measured: lo (no ethtool -S statistics)");
  /* veth alone: drops, no device TLS */
  val_ctr_delta(a, b, 1.0, NULL, "veth", NULL, &d);
  ck_assert(d.nic_drops_measured);
  ck_assert_uint_eq(d.nic_drops, 7);
  ck_assert_uint_eq(d.nic_tls_have, 0);
  /* no driver statistics to ask for (no SIOCETHTOOL socket) */
  a->ethtool = FALSE;
  val_ctr_delta(a, b, 1.0, NULL, NULL, NULL, &d);
  ck_assert(!d.nic_drops_measured);
  ck_assert(g_str_has_prefix(d.nic_note, "not measured: no SIOCETHTOOL socket"));
  /* the JSON: measured members only where measured */
  a->ethtool = TRUE;
  for (int pass = 0; pass < 2; pass++) {
    val_ctr_delta(a, b, 1.0, NULL, pass ? "lo" : "ens1", NULL, &d);
    g_autoptr(JsonBuilder) jb = json_builder_new();
    val_ctr_to_json(&d, jb);
    g_autoptr(JsonNode) root = json_builder_get_root(jb);
    JsonObject *o = json_node_get_object(root);
    ck_assert_int_eq(json_object_get_boolean_member(o, "nic_drops_measured"), !pass);
    ck_assert_int_eq(json_object_get_boolean_member(o, "nic_tls_measured"), !pass);
    ck_assert_int_eq(json_object_has_member(o, "nic_drops"), !pass);
    ck_assert_int_eq(json_object_has_member(o, "nic_tls"), !pass);
    ck_assert(json_object_has_member(o, "nic_note"));
    if (!pass) {
      ck_assert_double_eq(json_object_get_double_member(o, "nic_drops"), 8);
      JsonObject *t = json_object_get_object_member(o, "nic_tls");
      ck_assert_double_eq(json_object_get_double_member(t, "tx_tls_encrypted_bytes"), 1e6);
      ck_assert_double_eq(json_object_get_double_member(t, "tx_tls_drop"), 2);
    }
  }
  g_free(a);
  g_free(b);
}
END_TEST

/* Writes text to root/rel, making its folders. */
static void put(const char *root, const char *rel, const char *text)
{
  g_autofree char *p = g_build_filename(root, rel, NULL);
  g_autofree char *dir = g_path_get_dirname(p);
  ck_assert_int_eq(g_mkdir_with_parents(dir, 0755), 0);
  ck_assert(g_file_set_contents(p, text, -1, NULL));
}

static void rm_tree(const char *path)
{
  g_autoptr(GDir) d = g_dir_open(path, 0, NULL);
  for (const char *e; d && (e = g_dir_read_name(d));) {
    g_autofree char *p = g_build_filename(path, e, NULL);
    if (g_file_test(p, G_FILE_TEST_IS_DIR))
      rm_tree(p);
    else
      g_unlink(p);
  }
  g_rmdir(path);
}

/* A fake tree: sys/class/net with statistics, ethtool-S/IF for the driver's text. */
START_TEST(test_snapshot_tree)
{
  g_autofree char *root = g_dir_make_tmp("ctr-net-XXXXXX", NULL);
  ck_assert(root != NULL);
  put(root, "sys/class/net/eth9/statistics/tx_bytes", "1000\n");
  put(root, "sys/class/net/lo/statistics/tx_bytes", "5\n");
  g_autofree char *m1 = mlx5_text(20, 700000, 3), *m2 = mlx5_text(120, 900000, 3);
  put(root, "ethtool-S/eth9", m1);
  ValCtrSnap *a = g_new0(ValCtrSnap, 1), *b = g_new0(ValCtrSnap, 1);
  val_ctr_snapshot(root, NULL, a);
  put(root, "ethtool-S/eth9", m2);
  put(root, "sys/class/net/eth9/statistics/tx_bytes", "4000\n");
  val_ctr_snapshot(root, NULL, b);
  ck_assert(a->ethtool);
  ck_assert_int_eq(a->nnet, 2);
  ck_assert(a->net[0].nic.ok);  /* eth9 */
  ck_assert(!a->net[1].nic.ok); /* lo */
  ValCtrDelta d;
  val_ctr_delta(a, b, 1.0, NULL, "eth9", NULL, &d);
  ck_assert_uint_eq(d.net_tx_bytes, 3000);
  ck_assert(d.nic_drops_measured);
  ck_assert_uint_eq(d.nic_drops, 100);
  ck_assert_uint_eq(d.nic_tls[VAL_CTR_NIC_TLS_TX_ENC_BYTES], 200000);
  /* a tree without ethtool-S/: no driver statistics, not measured */
  g_autofree char *et = g_build_filename(root, "ethtool-S", NULL);
  rm_tree(et);
  val_ctr_snapshot(root, NULL, b);
  ck_assert(!b->ethtool);
  ck_assert(!b->net[0].nic.ok);
  rm_tree(root);
  g_free(a);
  g_free(b);
}
END_TEST

/* ---- DRAM PMUs -------------------------------------------------------------------------- */

START_TEST(test_pmu_encode)
{
  uint64_t c = 0;
  ck_assert(val_ctr_pmu_encode("config:0-7,32-35,59-60", 0x3fff, &c)); /* AMD F17h+ DF event: 14 bits */
  ck_assert_uint_eq(c, 0xffULL | 0xfULL << 32 | 0x3ULL << 59);
  c = 0;
  ck_assert(val_ctr_pmu_encode("config:0-7,32-35,59-60", 0x1c7, &c));
  ck_assert_uint_eq(c, 0x1000000c7ULL);
  ck_assert(!val_ctr_pmu_encode("config:0-7,32-35,59-60", 0x4000, &c)); /* 15 bits */
  c = 0x0a;
  ck_assert(val_ctr_pmu_encode("config:8-9", 2, &c)); /* OR-ed into what is there */
  ck_assert_uint_eq(c, 0x20a);
  ck_assert(!val_ctr_pmu_encode("config:8-9", 4, &c));
  c = 0;
  ck_assert(val_ctr_pmu_encode("config:46", 1, &c));
  ck_assert_uint_eq(c, 1ULL << 46);
  c = 0;
  ck_assert(val_ctr_pmu_encode("config:8-15,24-27", 0xabc, &c)); /* PerfMonV2 DF umask: 12 bits */
  ck_assert_uint_eq(c, 0xbcULL << 8 | 0xaULL << 24);
  ck_assert(!val_ctr_pmu_encode("config1:0-3", 1, &c));
  ck_assert(!val_ctr_pmu_encode("config:", 0, &c));
  ck_assert(!val_ctr_pmu_encode("config:7-3", 1, &c));
  ck_assert(!val_ctr_pmu_encode("config:0-64", 1, &c));
  ck_assert(!val_ctr_pmu_encode("garbage", 1, &c));
  ck_assert(!val_ctr_pmu_encode(NULL, 1, &c));
}
END_TEST

#define DEV "sys/bus/event_source/devices/"

static void amd_umc(const char *root, int n, const char *type, const char *cpumask)
{
  g_autofree char *t = g_strdup_printf(DEV "amd_umc_%d/type", n), *m = g_strdup_printf(DEV "amd_umc_%d/cpumask", n),
                  *e = g_strdup_printf(DEV "amd_umc_%d/format/event", n),
                  *r = g_strdup_printf(DEV "amd_umc_%d/format/rdwrmask", n);
  put(root, t, type);
  put(root, m, cpumask);
  put(root, e, "config:0-7\n"); /* arch/x86/events/amd/uncore.c: event8, rdwrmask */
  put(root, r, "config:8-9\n");
}

static void amd_df(const char *root, const char *umask_format)
{
  put(root, DEV "amd_df/type", "11\n");
  put(root, DEV "amd_df/cpumask", "0,64\n");
  put(root, DEV "amd_df/format/event", "config:0-7,32-35,59-60\n"); /* event14 (F17h+ DF) */
  put(root, DEV "amd_df/format/umask", umask_format);
}

START_TEST(test_dram_amd)
{
  g_autofree char *root = g_dir_make_tmp("ctr-pmu-XXXXXX", NULL);
  /* Genoa-like: two UMCs (one per socket here) and a PerfMonV2 DF: the UMCs are used */
  amd_umc(root, 0, "14\n", "0\n");
  amd_umc(root, 1, "15\n", "96\n");
  amd_df(root, "config:8-15,24-27\n");
  g_autoptr(ValCtrDram) u = val_ctr_dram_open(root);
  ck_assert_int_eq(val_ctr_dram_pmus(u), 2);
  ck_assert_int_eq(val_ctr_dram_events(u), 4);
  static const uint64_t cfg[4] = { 0x10a, 0x20a, 0x10a, 0x20a }; /* 0x0a | rdwrmask << 8 */
  static const uint32_t type[4] = { 14, 14, 15, 15 };
  static const int cpu[4] = { 0, 0, 96, 96 }, kind[4] = { 0, 1, 0, 1 };
  for (int i = 0; i < 4; i++) {
    const ValCtrDramEvent *e = val_ctr_dram_event(u, i);
    ck_assert_uint_eq(e->config, cfg[i]);
    ck_assert_uint_eq(e->type, type[i]);
    ck_assert_int_eq(e->cpu, cpu[i]);
    ck_assert_int_eq(e->kind, kind[i]);
    ck_assert_double_eq(e->bytes, 64);
  }
  ck_assert(!val_ctr_dram_ok(u)); /* a tree: nothing opened */
  ck_assert(val_ctr_dram_event(u, 4) == NULL);

  /* multiplexing: each UMC event counted 1000 over half its 2 s enabled -> 2000 x 64 B */
  ValCtrSnap *a = g_new0(ValCtrSnap, 1), *b = g_new0(ValCtrSnap, 1);
  a->dram = b->dram = TRUE;
  a->ndram = b->ndram = 4;
  for (int i = 0; i < 4; i++) {
    a->dram_count[i] = 500, b->dram_count[i] = 1500 + (uint64_t)(i & 1) * 1000; /* writes: 2000 */
    a->dram_enabled_ns[i] = 1, b->dram_enabled_ns[i] = 2000000001;
    a->dram_running_ns[i] = 1, b->dram_running_ns[i] = 1000000001;
  }
  ValCtrDelta d;
  val_ctr_delta(a, b, 2.0, NULL, NULL, u, &d);
  ck_assert(d.dram);
  ck_assert(d.dram_split);
  ck_assert_double_eq_tol(d.dram_read_GBps, 2 * 2000.0 * 64 / 2.0 * 1e-9, 1e-15);
  ck_assert_double_eq_tol(d.dram_write_GBps, 2 * 4000.0 * 64 / 2.0 * 1e-9, 1e-15);
  ck_assert_double_eq_tol(d.dram_GBps, d.dram_read_GBps + d.dram_write_GBps, 1e-15);

  /* Rome / Milan: no UMC PMUs, the pre-V2 DF: 8 channel events on each CPU of its cpumask */
  g_autofree char *umcs = g_build_filename(root, DEV, NULL);
  rm_tree(umcs);
  amd_df(root, "config:8-15\n");
  g_autoptr(ValCtrDram) f = val_ctr_dram_open(root);
  ck_assert_int_eq(val_ctr_dram_pmus(f), 1);
  ck_assert_int_eq(val_ctr_dram_events(f), 16);
  /* event 0x07 + 0x40 N: low 8 bits at config:0-7, the rest at config:32-35; umask 0x38 at 8-15 */
  static const uint64_t dcfg[8] = { 0x3807, 0x3847, 0x3887, 0x38c7, 0x100003807, 0x100003847, 0x100003887, 0x1000038c7 };
  for (int i = 0; i < 16; i++) {
    const ValCtrDramEvent *e = val_ctr_dram_event(f, i);
    ck_assert_uint_eq(e->config, dcfg[i % 8]);
    ck_assert_uint_eq(e->type, 11);
    ck_assert_int_eq(e->cpu, i < 8 ? 0 : 64);
    ck_assert_int_eq(e->kind, 2);
  }
  a->ndram = b->ndram = 16;
  for (int i = 0; i < 16; i++) {
    a->dram_count[i] = 0, b->dram_count[i] = 1000;
    a->dram_enabled_ns[i] = 0, b->dram_enabled_ns[i] = 2000000000;
    a->dram_running_ns[i] = 0, b->dram_running_ns[i] = 1000000000;
  }
  val_ctr_delta(a, b, 2.0, NULL, NULL, f, &d);
  ck_assert(!d.dram_split); /* the DF counts reads and writes together */
  ck_assert_double_eq_tol(d.dram_GBps, 16 * 2000.0 * 64 / 2.0 * 1e-9, 1e-15);
  g_autoptr(JsonBuilder) jb = json_builder_new();
  val_ctr_to_json(&d, jb);
  g_autoptr(JsonNode) jr = json_builder_get_root(jb);
  ck_assert(!json_object_has_member(json_node_get_object(jr), "dram_read_GBps"));

  /* Zen 4 DF (PerfMonV2) without amd_umc PMUs (a kernel before 6.9): not measured, and why */
  rm_tree(umcs);
  amd_df(root, "config:8-15,24-27\n");
  g_autoptr(ValCtrDram) z4 = val_ctr_dram_open(root);
  ck_assert_int_eq(val_ctr_dram_events(z4), 0);
  ck_assert(strstr(val_ctr_dram_note(z4), "amd_umc") != NULL);
  ck_assert(g_str_has_prefix(val_ctr_dram_note(z4), "not measured"));

  /* more DF instances than events fit (17 CPUs x 8 > 128): none rather than a partial sum */
  amd_df(root, "config:8-15\n");
  put(root, DEV "amd_df/cpumask", "0-16\n");
  g_autoptr(ValCtrDram) big = val_ctr_dram_open(root);
  ck_assert_int_eq(val_ctr_dram_events(big), 0);
  ck_assert_str_eq(val_ctr_dram_note(big), "not measured: amd_df PMUs need more than 128 events");
  put(root, DEV "amd_df/cpumask", "0-15\n"); /* 16 x 8 = 128: fits */
  g_autoptr(ValCtrDram) fits = val_ctr_dram_open(root);
  ck_assert_int_eq(val_ctr_dram_events(fits), 128);
  ck_assert_int_eq(val_ctr_dram_event(fits, 127)->cpu, 15);

  /* perf_event_open refused (no such PMU type here): not measured, with the reason */
  rm_tree(umcs);
  amd_umc(root, 0, "2147483000\n", "0\n");
  g_autoptr(ValCtrDram) r = val_ctr_dram_open_at(root, TRUE);
  ck_assert(!val_ctr_dram_ok(r));
  ck_assert_int_eq(val_ctr_dram_pmus(r), 0);
  ck_assert_msg(strstr(val_ctr_dram_note(r), "not measured: 1 amd_umc PMUs, perf_event_open refused") != NULL, "%s",
                val_ctr_dram_note(r));
  ValCtrSnap *c = g_new0(ValCtrSnap, 1);
  val_ctr_snapshot(root, r, c);
  ck_assert(!c->dram);
  g_free(c);
  rm_tree(root);
  g_free(a);
  g_free(b);
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
  tcase_add_test(tc, test_ethtool_parse);
  tcase_add_test(tc, test_nic_delta);
  tcase_add_test(tc, test_snapshot_tree);
  tcase_add_test(tc, test_pmu_encode);
  tcase_add_test(tc, test_dram_amd);
  tcase_add_test(tc, test_live);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return test_run_suite(suite());
}
