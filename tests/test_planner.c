/* tests/test_planner.c — what a capacity planner asks beyond bytes (issue 14): `check` refuses
 * what `run` refuses, located; the headline CPU names the busiest node and the idle ones;
 * the platform's hardware budgets (PCIe lanes, links, DIMMs, NPS modes) are located errors;
 * `explain`'s DRAM bytes per byte are the touch table's; --fail moves a failed port's or drive's traffic;
 * capacity's latency criterion is measured by the DES; requests and connections cost cycles. */
#include <check.h>
#include "tests/support/check_run.h"
#include "tests/support/ocasim_run.h"
#include <math.h>
#include <string.h>

#include "models/appliance/software.h"
#include "models/appliance/loader.h"
#include "models/modes/des.h"
#include "models/modes/explain.h"
#include "models/appliance/component.h"
#include "models/appliance/model_error.h"
#include "models/appliance/ram.h"
#include <json-glib/json-glib.h>

START_TEST(test_check_refuses_what_run_refuses)
{
  /* 230.9 Gb/s x 1e6 s / 2 MiB = 1.38e10 requests > 5e9: run refuses it, so check must, at duration (line 5, col 11) */
  const char *file = "tests/data/planner/long_duration.yaml";
  for (int run = 0; run < 2; run++) {
    const char *args[] = { run ? "run" : "check", file, NULL };
    char *out, *err;
    ck_assert_int_eq(test_run_ocasim(args, &out, &err), 2);
    test_assert_located(args[0], err, file, 5, 11, "duration", "would simulate about");
    g_free(out);
    g_free(err);
  }
  /* an offered load far above saturation (100 Tb/s of 4 KiB requests, 6.1e9 in the run): every
   * arrival is an event, the key is workload.offered */
  const char *args[] = { "check", "scenarios/rome-400g-nic-ktls.yaml", "--set", "workload.offered=100 Tb/s",
                         "--set", "workload.request_size=4 KiB",       NULL };
  char *out, *err;
  ck_assert_int_eq(test_run_ocasim(args, &out, &err), 2);
  ck_assert_msg(strstr(err, "--set: workload.offered: the run would simulate"), "%s", err);
  g_free(out);
  g_free(err);
  /* the model-level check agrees, and a normal scenario passes it */
  Appliance a;
  AppScenarioInfo info;
  GError *e = NULL;
  ck_assert(appliance_load_file(file, NULL, &a, &info, &e));
  g_autoptr(DemandModel) m = demand_build(&a, &e);
  ck_assert(!des_check(&a, &info, m, &e));
  ck_assert_str_eq(model_error_path(e), "duration");
  g_clear_error(&e);
  info.duration_s = 2;
  info.warmup_s = 0.2;
  ck_assert_msg(des_check(&a, &info, m, &e), "%s", e ? e->message : "");
  app_scenario_info_clear(&info);
}
END_TEST

START_TEST(test_headline_cpu_busiest_node)
{
  /* genoa-400gbe-nps4: NPS4 network-centric with the NICs on nodes 0 and 2: those two nodes carry
   * the same load (the box is DRAM bound there), nodes 1 and 3 do nothing, so the mean is
   * (b + 0 + b + 0) / 4 = b / 2 of the busiest node's b */
  const char *args[] = { "bound", "scenarios/genoa-400gbe-nps4.yaml", "-f", "json", NULL };
  char *out, *err;
  ck_assert_int_eq(test_run_ocasim(args, &out, &err), 0);
  g_autoptr(JsonParser) p = json_parser_new();
  ck_assert(json_parser_load_from_data(p, out, -1, NULL));
  JsonObject *o = json_node_get_object(json_parser_get_root(p));
  double busiest = json_object_get_double_member(o, "cpu_busiest_node_pct");
  ck_assert(busiest > 10 && busiest <= 80.0 + 1e-9); /* a working node, at most the 80 % cap */
  ck_assert_double_eq_tol(json_object_get_double_member(o, "cpu_util_pct"), busiest / 2, 1e-9 * busiest);
  ck_assert_str_eq(json_object_get_string_member(o, "cpu_busiest_node"), "cpu.node0");
  JsonArray *idle = json_object_get_array_member(o, "cpu_idle_nodes");
  ck_assert_int_eq(json_array_get_length(idle), 2);
  ck_assert_str_eq(json_array_get_string_element(idle, 0), "cpu.node1");
  ck_assert_str_eq(json_array_get_string_element(idle, 1), "cpu.node3");
  g_free(out);
  g_free(err);
  const char *targs[] = { "bound", "scenarios/genoa-400gbe-nps4.yaml", NULL };
  ck_assert_int_eq(test_run_ocasim(targs, &out, &err), 0);
  g_autofree char *want =
      g_strdup_printf("cpu:        busiest node %.1f %% (cpu.node0), mean %.1f %% over 4 nodes (", busiest, busiest / 2);
  ck_assert_msg(strstr(out, want), "%s", out);
  ck_assert_msg(strstr(out, "warning:    the placement leaves cpu.node1, cpu.node3 idle"), "%s", out);
  g_free(out);
  g_free(err);
  const char *cargs[] = { "bound", "scenarios/genoa-400gbe-nps4.yaml", "-f", "csv", NULL };
  ck_assert_int_eq(test_run_ocasim(cargs, &out, &err), 0);
  ck_assert_msg(strstr(out, ",cpu_util_pct,cpu_busiest_node_pct,cpu_busiest_node,"), "%s", out);
  ck_assert_msg(strstr(out, ",cpu.node0,"), "%s", out);
  g_free(out);
  g_free(err);
  /* every node working (NPS4 spread ports): no warning */
  const char *wargs[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", NULL };
  ck_assert_int_eq(test_run_ocasim(wargs, &out, &err), 0);
  ck_assert_msg(!strstr(out, "warning:") && strstr(out, " over 4 nodes ("), "%s", out);
  g_free(out);
  g_free(err);
}
END_TEST

/* Runs ocasim with @args and asserts exit 2 with @message on stderr. */
static void assert_refused(const char *const *args, const char *message)
{
  char *out, *err;
  ck_assert_int_eq(test_run_ocasim(args, &out, &err), 2);
  ck_assert_msg(strstr(err, message), "%s: wanted '%s', got %s", args[1], message, err);
  g_free(out);
  g_free(err);
}

START_TEST(test_hardware_budgets)
{
  /* 18 x4 drives (72 lanes) then x16 cards: the 4th card needs 72 + 4 x 16 = 136 > 128 lanes */
  const char *file = "tests/data/planner/sixteen_x16_cards.yaml";
  const char *args[] = { "check", file, NULL };
  char *out, *err;
  ck_assert_int_eq(test_run_ocasim(args, &out, &err), 2);
  test_assert_located("16 x16 cards", err, file, 7, 100, "nics[0].pcie.lanes",
                      "the drives and NICs on socket 0 need 136 PCIe lanes, more than the 128 the socket has");
  g_free(out);
  g_free(err);
  /* per root complex: a second x16 card on quadrant 0 (2 x4 drives there) needs 8 + 32 = 40 > 32 */
  assert_refused((const char *[]){ "check", "scenarios/rome-400g-nic-ktls.yaml", "--set", "nics[0].count=2", NULL },
                 "nics[0].pcie.lanes: the drives and NICs on socket 0 quadrant 0 need 40 PCIe lanes, more than the 32");
  assert_refused((const char *[]){ "check", "scenarios/rome-400g-nic-ktls.yaml", "--set",
                                   "topology.links=[{kind: xgmi, rate: 18 GT/s}]", NULL },
                 "topology.links: a one-socket box has no inter-socket (xgmi) links");
  assert_refused((const char *[]){ "check", "scenarios/reference/milan2022_default_bios.yaml", "--set",
                                   "topology.links=[{kind: upi, count: 3, width: 16, rate: 18 GT/s}]", NULL },
                 "topology.links: upi links do not exist on a zen3 part");
  assert_refused((const char *[]){ "check", "scenarios/reference/skx2019_no_silo.yaml", "--set",
                                   "topology.links=[{kind: xgmi, count: 2, width: 16, rate: 9.6 GT/s}]", NULL },
                 "topology.links: xgmi links do not exist on a skylake part");
  assert_refused((const char *[]){ "check", "scenarios/rome-400g-nic-ktls.yaml", "--set", "budgets.dimm_type=ddr5", NULL },
                 "budgets.dimm_type: a zen2 memory controller drives ddr4 DIMMs, not ddr5");
  assert_refused(
      (const char *[]){ "check", "scenarios/reference/skx2019_no_silo.yaml", "--set", "topology.nps_supported=[1, 4]", NULL },
      "topology.nps_supported: a skylake part has no mode of 4 NUMA nodes per socket");
  assert_refused((const char *[]){ "check", "scenarios/reference/skx2019_no_silo.yaml", "--set", "topology.nps=2", NULL },
                 "topology.nps: NPS2 is not supported by this CPU");
  /* every shipped scenario fits its budgets */
  const char *ok[] = { "check", "scenarios/genoa-400gbe-nic-ktls.yaml", NULL };
  ck_assert_int_eq(test_run_ocasim(ok, &out, &err), 0);
  g_free(out);
  g_free(err);
}
END_TEST

START_TEST(test_util_is_net_of_efficiency)
{
  /* the Rome box's DRAM node (NPS4: 2 channels of DDR4-3200, 51.2 GB/s peak) is at 100 % well
   * below 51.2 GB/s: util_frac is of the capacity net of dram_eff, and the table says so (its
   * footer said "util is of full capacity") */
  const char *args[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", "-f", "json", NULL };
  char *out, *err;
  ck_assert_int_eq(test_run_ocasim(args, &out, &err), 0);
  g_autoptr(JsonParser) jp = json_parser_new();
  ck_assert(json_parser_load_from_data(jp, out, -1, NULL));
  JsonArray *res = json_object_get_array_member(json_node_get_object(json_parser_get_root(jp)), "resources");
  int seen = 0;
  for (guint i = 0; i < json_array_get_length(res); i++) {
    JsonObject *r = json_array_get_object_element(res, i);
    if (strcmp(json_object_get_string_member(r, "kind"), "dram") != 0) continue;
    double cap = json_object_get_double_member(r, "value") / json_object_get_double_member(r, "util_frac");
    ck_assert_msg(cap > 0.7 * 51.2 && cap < 0.9 * 51.2, "DRAM 100 %% = %g GB/s", cap);
    seen++;
  }
  ck_assert_int_eq(seen, 4);
  g_free(out);
  g_free(err);
  const char *targs[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", NULL };
  ck_assert_int_eq(test_run_ocasim(targs, &out, &err), 0);
  ck_assert_msg(!strstr(out, "full capacity"), "%s", out);
  ck_assert_msg(strstr(out, "x dram_eff"), "%s", out);
  g_free(out);
  g_free(err);
}
END_TEST

START_TEST(test_explain_touches_follow_page_cache)
{
  /* with the LRU page cache a hit skips the drive's DMA write (pagecache.h): explain's touch table
   * must show the disk write at the miss ratio and add up to the demand model's DRAM bytes per byte
   * (it showed 1.0 B/B and a total 0.08 B/B above the model's on a 6 Mb/s Rome box, hit 7.96 %) */
  const char *sets[] = { "software.page_cache=lru", NULL };
  Appliance a;
  GError *e = NULL;
  ck_assert_msg(appliance_load_file("scenarios/rome-400g-nic-ktls.yaml", sets, &a, NULL, &e), "%s", e ? e->message : "");
  g_autoptr(DemandModel) m = demand_build(&a, &e);
  ck_assert(m);
  double hit = pagecache_hit_ratio(&a, m->sized_Bps);
  ck_assert_msg(hit > 0.01 && hit < 0.5, "hit %g", hit);
  g_autoptr(Explain) x = explain_build(&a, NULL, m);
  ck_assert_double_eq_tol(x->dram_touch_total, x->dram_model_total, 1e-9);
  int disk = 0;
  for (int i = 0; i < x->n_touch; i++)
    if (!strcmp(x->touch[i].agent, "drive")) {
      ck_assert_double_eq_tol(x->touch[i].bytes, 1.0 - hit, 1e-12); /* sendfile_nic_ktls: one disk write per byte */
      disk++;
    }
  ck_assert_int_eq(disk, 1);
  /* the same box without the cache: exactly the hit ratio more */
  Appliance b;
  ck_assert(appliance_load_file("scenarios/rome-400g-nic-ktls.yaml", NULL, &b, NULL, NULL));
  g_autoptr(DemandModel) mb = demand_build(&b, NULL);
  g_autoptr(Explain) xb = explain_build(&b, NULL, mb);
  ck_assert_double_eq_tol(xb->dram_touch_total - x->dram_touch_total, hit, 1e-9);
}
END_TEST

START_TEST(test_explain_matches_touch_table)
{
  /* for every data path on the Rome box (NPS4, network-centric): explain's DRAM bytes per byte,
   * from the demand vectors, equal the touch table of models/appliance/datapath.h: the bulk touches plus
   * metadata each way (meta_bytes) plus the ACK frames, 66 B per 2 MSS */
  for (int p = 0; p < DP_COUNT; p++) {
    g_autofree char *set = g_strdup_printf("software.data_path=%s", datapath_name((DataPath)p));
    const char *sets[] = { set, NULL };
    Appliance a;
    GError *e = NULL;
    ck_assert_msg(appliance_load_file("scenarios/rome-400g-nic-ktls.yaml", sets, &a, NULL, &e), "%s", e ? e->message : "");
    g_autoptr(DemandModel) m = demand_build(&a, &e);
    ck_assert(m);
    g_autoptr(Explain) x = explain_build(&a, NULL, m);
    gboolean ordinary = datapath_cpu_crypto((DataPath)p) && cpu_crypto_ordinary_stores(a.crypto);
    double meta = cpu_meta_bytes_per_byte(&a.stack, &a.coef);
    Touch t[DP_MAX_TOUCHES];
    int n = datapath_touches((DataPath)p, ordinary, software_user_miss(&a, m->sized_Bps), meta,
                             66.0 / (2 * cpu_mss_bytes(&a.stack)), t);
    double want = 0;
    for (int i = 0; i < n; i++) want += t[i].bytes;
    /* at this box's connection count (at its served throughput, m->sized_Bps) a reused buffer is
     * almost never cache resident: the table's bulk touches within 1e-2 B/B (read_write_ktls at
     * its CPU-bound throughput keeps the most resident: 6.2e-3 of 10.8) */
    ck_assert_double_eq_tol(want, datapath_bulk_touches((DataPath)p, ordinary) + 2 * meta + 66.0 / (2 * cpu_mss_bytes(&a.stack)),
                            1e-2);
    ck_assert_double_eq_tol(x->dram_touch_total, want, 1e-12);
    ck_assert_double_eq_tol(x->dram_model_total, want, 1e-9);
    ck_assert_int_eq(x->n_touch, n);
    for (int i = 0; i < n; i++) {
      ck_assert_str_eq(x->touch[i].what, t[i].what);
      ck_assert_double_eq_tol(x->touch[i].bytes, t[i].bytes, 1e-15);
    }
    /* the CPU parts add up to the demand model's cycles per byte */
    double parts = 0;
    for (int c = 0; c < EX_CPB_COUNT; c++) parts += x->cpb[c];
    ck_assert_double_eq_tol(parts, x->cpb_total, 1e-9 * x->cpb_total);
    ck_assert_int_eq(x->n_tags, 4); /* two dual-port ConnectX-6 Dx, a tag space per port function (pcie.h) */
  }
  /* sendfile_sw_ktls with ISA-L on Zen 2: the remainder is the bulk AES-GCM, the crypto table's
   * entry (models/appliance/cpu.c); no copies on a sendfile path */
  const char *sets[] = { "software.data_path=sendfile_sw_ktls", NULL };
  Appliance a;
  ck_assert(appliance_load_file("scenarios/rome-400g-nic-ktls.yaml", sets, &a, NULL, NULL));
  g_autoptr(DemandModel) m = demand_build(&a, NULL);
  g_autoptr(Explain) x = explain_build(&a, NULL, m);
  ck_assert_double_eq_tol(x->cpb[EX_CRYPTO], cpu_crypto_table_cpb(CRYPTO_ISAL_AESGCM, UARCH_ZEN2, NULL), 1e-9);
  ck_assert_double_eq_tol(x->cpb[EX_CRYPTO], 0.44, 1e-12);
  ck_assert_double_eq_tol(x->cpb[EX_COPY], 0.0, 1e-12);
  /* JSON and table from the command line */
  const char *args[] = { "explain", "scenarios/reference/rome2021_sw_nps1.yaml", "-f", "json", NULL };
  char *out, *err;
  ck_assert_int_eq(test_run_ocasim(args, &out, &err), 0);
  g_autoptr(JsonParser) jp = json_parser_new();
  ck_assert(json_parser_load_from_data(jp, out, -1, NULL));
  JsonObject *o = json_node_get_object(json_parser_get_root(jp));
  JsonObject *dram = json_object_get_object_member(o, "dram_bytes_per_byte");
  /* 4 bulk touches + 2 x 0.4 metadata + 66 / (2 x 1448) ACK bytes */
  ck_assert_double_eq_tol(json_object_get_double_member(dram, "model_total"), 4.8 + 66.0 / 2896, 1e-9);
  ck_assert(json_object_has_member(json_object_get_object_member(o, "cpu_cycles_per_byte"), "stall_fabric"));
  g_free(out);
  g_free(err);
  const char *targs[] = { "explain", "scenarios/reference/milan2022_default_bios.yaml", NULL };
  ck_assert_int_eq(test_run_ocasim(targs, &out, &err), 0);
  ck_assert_msg(strstr(out, "xgmi.link0.s0>s1") && strstr(out, "pcie.nic3.f1.tags"), "%s", out);
  g_free(out);
  g_free(err);
}
END_TEST

/* The JSON object ocasim prints for @args (exit 0 asserted). (transfer full) */
static JsonParser *run_json(const char *const *args)
{
  char *out, *err;
  ck_assert_msg(test_run_ocasim(args, &out, &err) == 0, "%s", err);
  JsonParser *p = json_parser_new();
  ck_assert_msg(json_parser_load_from_data(p, out, -1, NULL), "%s", out);
  g_free(out);
  g_free(err);
  return p;
}

START_TEST(test_failure_moves_traffic)
{
  /* rome-400g-nic-ktls is NIC-port bound (4 x 100 GbE at line rate x port_eff): with one of the four
   * ports down LACP hashes over the three left, each still at line rate: 3/4 of the throughput */
  const char *args[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", "--fail", "nics[0].ports[1]", "-f", "json", NULL };
  g_autoptr(JsonParser) p = run_json(args);
  JsonObject *o = json_node_get_object(json_parser_get_root(p));
  JsonObject *h = json_object_get_object_member(o, "healthy"), *d = json_object_get_object_member(o, "degraded");
  ck_assert_str_eq(json_object_get_string_member(json_object_get_object_member(h, "bottleneck"), "kind"), "nic_port");
  double xh = json_object_get_double_member(h, "throughput_gbps"), xd = json_object_get_double_member(d, "throughput_gbps");
  ck_assert_double_eq_tol(xd / xh, 0.75, 1e-9);
  ck_assert_double_eq(json_object_get_double_member(o, "throughput_share"), 0.75); /* exact: not 0.74999999999999978 */
  int ports = 0;
  JsonArray *res = json_object_get_array_member(d, "resources");
  for (guint i = 0; i < json_array_get_length(res); i++)
    ports += strcmp(json_object_get_string_member(json_array_get_object_element(res, i), "kind"), "nic_port") == 0;
  ck_assert_int_eq(ports, 3);
  /* a drive down: 17 drives left, which still read every served byte (sum of their GB/s x 8 = Gb/s) */
  const char *dargs[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", "--fail", "nvme[0]", "-f", "json", NULL };
  g_autoptr(JsonParser) dp = run_json(dargs);
  JsonObject *dd = json_object_get_object_member(json_node_get_object(json_parser_get_root(dp)), "degraded");
  res = json_object_get_array_member(dd, "resources");
  int drives = 0;
  double read_GBps = 0;
  for (guint i = 0; i < json_array_get_length(res); i++) {
    JsonObject *r = json_array_get_object_element(res, i);
    if (strcmp(json_object_get_string_member(r, "kind"), "nvme") != 0) continue;
    drives++;
    read_GBps += json_object_get_double_member(r, "value");
  }
  ck_assert_int_eq(drives, 17);
  ck_assert_double_eq_tol(read_GBps * 8, json_object_get_double_member(dd, "throughput_gbps"), 1e-6);
  /* nvme[3] down leaves the ports the bottleneck: the same throughput but for the last digits of
   * the drive-share sums (371.45176400000167 vs ...19), a share of exactly 1, not 1.0000000000000007 */
  const char *sargs[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", "--fail", "nvme[3]", "-f", "json", NULL };
  g_autoptr(JsonParser) sp = run_json(sargs);
  JsonObject *so = json_node_get_object(json_parser_get_root(sp));
  ck_assert_str_eq(json_object_get_string_member(
                       json_object_get_object_member(json_object_get_object_member(so, "degraded"), "bottleneck"), "kind"),
                   "nic_port");
  ck_assert_double_eq(json_object_get_double_member(so, "throughput_share"), 1.0);
  /* the table sets the two side by side; a component the box lacks is a usage error */
  char *out, *err;
  const char *targs[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", "--fail", "nics[0].ports[1]", NULL };
  ck_assert_int_eq(test_run_ocasim(targs, &out, &err), 0);
  ck_assert_msg(strstr(out, "what-if:    nics[0].ports[1] down") && strstr(out, "(75.0 % of healthy)"), "%s", out);
  /* the port's node goes idle, the others keep their load: the busiest node stays at 52.0 %, the
   * mean falls to 3/4 of it (39.0 %) */
  ck_assert_msg(strstr(out, "cpu:        52.0 %                 52.0 %                 (busiest node)\n"
                            "            52.0 %                 39.0 %                 (mean over nodes)\n"),
                "%s", out);
  g_free(out);
  g_free(err);
  assert_refused((const char *[]){ "bound", "scenarios/rome-400g-nic-ktls.yaml", "--fail", "nics[5]", NULL },
                 "--fail: 'nics[5]': the box has 2 NICs: nic0 from nics[0], nic1 from nics[1]");
  assert_refused((const char *[]){ "bound", "scenarios/rome-400g-nic-ktls.yaml", "--fail", "nics[0]", "--fail", "nics[1]", NULL },
                 "no NIC port would be left");
  assert_refused(
      (const char *[]){ "bound", "scenarios/rome-400g-nic-ktls.yaml", "--fail", "disk[0]", NULL },
      "give nvme[D], nics[N] or nics[N].ports[P] (indices as in the resource names nvmeD, nicN.portP: drives and cards "
      "counted one by one, not the scenario's groups)");
}
END_TEST

/* The --fail table carries the healthy box's prediction interval, as the JSON's healthy.interval
 * does: the very lines a plain bound of the scenario prints (same seed, same draws), under a heading
 * naming the healthy box, then one line saying the degraded box has none (docs/outputs.md). */
START_TEST(test_failure_table_shows_interval)
{
  char *plain, *out, *err;
  const char *pargs[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", NULL };
  ck_assert_int_eq(test_run_ocasim(pargs, &plain, &err), 0);
  g_free(err);
  const char *b = strstr(plain, "\ninterval:   "), *e = b ? strstr(b, "\nnic ports:") : NULL;
  ck_assert_msg(b && e, "%s", plain);
  g_autofree char *lines = g_strndup(b + 1, (gsize)(e - b)); /* "interval: ..." through the CPU's assumed values line */
  ck_assert_msg(strstr(lines, "\nbinds:      ") && strstr(lines, "\nuncertain (cpu): ") && strstr(lines, "assumed values"), "%s",
                lines);
  g_autofree char *want = g_strconcat("\nThe healthy box's prediction interval:\n", lines,
                                      "degraded:   no interval (a what-if draws the healthy box's only; a sweep with failures: "
                                      "draws one per degraded point)\n\nThe degraded box:\n",
                                      NULL);
  const char *targs[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", "--fail", "nics[0].ports[1]", NULL };
  ck_assert_int_eq(test_run_ocasim(targs, &out, &err), 0);
  ck_assert_msg(strstr(out, want), "the --fail table lacks:\n%.1500s", want); /* (Check's message limit) */
  /* the ends printed are the JSON's healthy.interval.throughput_gbps, to the table's 0.1 Gb/s */
  const char *jargs[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", "--fail", "nics[0].ports[1]", "-f", "json", NULL };
  g_autoptr(JsonParser) p = run_json(jargs);
  JsonObject *h = json_object_get_object_member(json_node_get_object(json_parser_get_root(p)), "healthy");
  ck_assert(!json_object_has_member(json_object_get_object_member(json_node_get_object(json_parser_get_root(p)), "degraded"),
                                    "interval"));
  JsonArray *iv = json_object_get_array_member(json_object_get_object_member(h, "interval"), "throughput_gbps");
  g_autofree char *ends = g_strdup_printf("throughput %.1f Gb/s .. %.1f Gb/s", json_array_get_double_element(iv, 0),
                                          json_array_get_double_element(iv, 1));
  ck_assert_msg(strstr(strstr(out, "The healthy box's prediction interval:"), ends), "%s not in the table", ends);
  g_free(plain);
  g_free(out);
  g_free(err);
}
END_TEST

START_TEST(test_capacity_latency_by_des)
{
  /* rome2021_sw_nps1: the DES at the CPU criterion's limit measures p99 well inside the 50 ms
   * SLO: capacity is limited by the CPU (and the bound's estimate agrees: its p99 stays within the
   * SLO at every load) */
  const char *args[] = { "capacity", "scenarios/reference/rome2021_sw_nps1.yaml", "-f", "json", NULL };
  g_autoptr(JsonParser) p = run_json(args);
  JsonObject *o = json_node_get_object(json_parser_get_root(p));
  ck_assert_str_eq(json_object_get_string_member(o, "limiting_criterion"), "cpu");
  JsonObject *crit = json_object_get_object_member(o, "criteria");
  ck_assert(json_node_is_null(json_object_get_member(crit, "latency"))); /* never reached below the other limits */
  JsonObject *lc = json_object_get_object_member(o, "latency_check");
  ck_assert_str_eq(json_object_get_string_member(lc, "by"), "run");
  double at = json_object_get_double_member(lc, "run_at_gbps"), p99 = json_object_get_double_member(lc, "run_p99_ms");
  double hw = json_object_get_double_member(lc, "run_p99_ci95_ms");
  ck_assert_double_eq_tol(at, json_object_get_double_member(o, "capacity_gbps"), 1e-9);
  ck_assert(p99 + hw < 50.0);
  ck_assert(json_node_is_null(json_object_get_member(lc, "bound_estimate_gbps"))); /* never reached */
  /* the report at the capacity load shows the latency the DES measured there, not the M/M/1 estimate */
  JsonObject *atcap = json_object_get_object_member(o, "at_capacity");
  JsonObject *alat = json_object_get_object_member(atcap, "latency_ms");
  ck_assert_double_eq(json_object_get_double_member(alat, "p99"), p99);
  ck_assert_double_eq(json_object_get_double_member(alat, "p99_ci95"), hw);
  ck_assert(json_object_get_double_member(alat, "p50") < p99);
  ck_assert(strstr(json_object_get_string_member(atcap, "latency_definition"), "measured by ocasim run at this load"));
  /* the criterion is `ocasim run`'s: a run at that load measures the same p99 (within its CI) */
  g_autofree char *set = g_strdup_printf("workload.offered=%.17g Gb/s", at);
  const char *rargs[] = { "run", "scenarios/reference/rome2021_sw_nps1.yaml", "--set", set, "-f", "json", NULL };
  g_autoptr(JsonParser) rp = run_json(rargs);
  JsonObject *lat = json_object_get_object_member(json_node_get_object(json_parser_get_root(rp)), "latency_ms");
  ck_assert_msg(fabs(json_object_get_double_member(lat, "p99") - p99) <= hw + 1e-9, "run p99 %g vs capacity's %g +- %g",
                json_object_get_double_member(lat, "p99"), p99, hw);
  /* a tight SLO: the DES brackets the latency limit below the CPU's, and it binds */
  const char *targs[] = {
    "capacity", "scenarios/reference/rome2021_sw_nps1.yaml", "--set", "workload.latency_slo=8 ms", "-f", "json", NULL
  };
  g_autoptr(JsonParser) tp = run_json(targs);
  JsonObject *t = json_node_get_object(json_parser_get_root(tp));
  ck_assert_str_eq(json_object_get_string_member(t, "limiting_criterion"), "latency");
  JsonObject *tl = json_object_get_object_member(t, "latency_check");
  ck_assert(json_object_get_double_member(tl, "run_p99_ms") + json_object_get_double_member(tl, "run_p99_ci95_ms") <= 8.0);
  /* one run at the CPU's limit, 7 bisection steps, and up to 7 more looking for a clear failure
   * below the lowest clear one when the bisection's lowest failure is not clear (2 here) */
  ck_assert_int_ge(json_object_get_int_member(tl, "runs"), 8);
  ck_assert_int_le(json_object_get_int_member(tl, "runs"), 15);
  /* the bound's estimate of that limit within 5 % of the DES's (measured 239.0 vs 234.7 Gb/s) */
  double est = json_object_get_double_member(tl, "bound_estimate_gbps"),
         run_at = json_object_get_double_member(tl, "run_at_gbps");
  ck_assert_msg(fabs(est / run_at - 1) <= 0.05, "bound %g, run %g", est, run_at);
}
END_TEST

/* Cycles per served byte on all CPU nodes at idle DRAM latency (the demand vectors' base totals). */
static double cpu_base_cpb(const DemandModel *m)
{
  double s = 0;
  for (int r = 0; r < m->n_res; r++)
    if (m->res[r].kind == RK_CPU) s += m->base_total[r];
  return s;
}

START_TEST(test_request_size_has_a_cost)
{
  /* the Rome box with 4 KiB and 2 MiB requests at the default (sourced) 32100 cycles per request
   * (NGINX 2017: 2.3e9 / 71561 HTTPS requests/s per CPU): nothing else in the CPU demand depends on
   * the request size, so the cycles per byte differ by
   * request_cycles x (1/4096 - 1/2097152) = 32100 x (2.44140625e-4 - 4.76837158e-7) = 7.82160759 */
  double cpb[2], x[2];
  for (int i = 0; i < 2; i++) {
    const char *sets[] = { i ? "workload.request_size=2 MiB" : "workload.request_size=4 KiB", NULL };
    Appliance a;
    ck_assert(appliance_load_file("scenarios/rome-400g-nic-ktls.yaml", sets, &a, NULL, NULL));
    ck_assert_double_eq(a.wl.request_cycles, 32100);
    g_autoptr(DemandModel) m = demand_build(&a, NULL);
    cpb[i] = cpu_base_cpb(m);
    x[i] = demand_saturation_Bps(m, NULL);
  }
  ck_assert_double_eq_tol(cpb[0] - cpb[1], 32100.0 * (1.0 / 4096 - 1.0 / 2097152), 1e-9);
  ck_assert_double_eq_tol(32100.0 * (1.0 / 4096 - 1.0 / 2097152), 7.82160759, 1e-8);
  /* ~11 M requests/s at 4 KiB would need 3.6e11 cycles/s: the box becomes CPU bound far below its ports */
  ck_assert_msg(x[0] * 8e-9 < 0.5 * x[1] * 8e-9, "4 KiB %g Gb/s vs 2 MiB %g Gb/s", x[0] * 8e-9, x[1] * 8e-9);
  /* the connection term by hand, defaults: (51000 + 0.5 x 1.03e6 + 0.5 x 8.06e5) = 969000 cycles per
   * session of the mix's mean bitrate (0.2 x 1.5 + 0.6 x 5 + 0.2 x 15 = 6.3 Mb/s) x 600 s / 8 =
   * 472.5 MB: 2.0508e-3 cycles per byte; plus the request term at 2 MiB, 32100 / 2097152 */
  Appliance d;
  ck_assert(appliance_load_file("scenarios/rome-400g-nic-ktls.yaml", NULL, &d, NULL, NULL));
  ck_assert_double_eq_tol(workload_request_cpb(&d.wl, TRUE), 969000.0 / 4.725e8 + 32100.0 / 2097152, 1e-15);
  /* plain HTTP pays no handshake: only the connection's 51000 cycles */
  ck_assert_double_eq_tol(workload_request_cpb(&d.wl, FALSE), 51000.0 / 4.725e8 + 32100.0 / 2097152, 1e-15);
  /* zero costs give zero: the keys still switch them off */
  const char *off[] = { "workload.request_cycles=0", "workload.connection_cycles=0", "workload.tls_handshake_cycles=0",
                        "workload.tls_resumed_cycles=0", NULL };
  Appliance z;
  ck_assert(appliance_load_file("scenarios/rome-400g-nic-ktls.yaml", off, &z, NULL, NULL));
  ck_assert_double_eq(workload_request_cpb(&z.wl, TRUE), 0.0);
  /* a bitrate outside physical range is a located error */
  assert_refused((const char *[]){ "check", "scenarios/rome-400g-nic-ktls.yaml", "--set",
                                   "workload.bitrates=[{rate: 1 b/s, share: 100 %}]", NULL },
                 "workload.bitrates[0].rate");
  assert_refused((const char *[]){ "check", "scenarios/rome-400g-nic-ktls.yaml", "--set",
                                   "workload.bitrates=[{rate: 1 Tb/s, share: 100 %}]", NULL },
                 "workload.bitrates[0].rate");
}
END_TEST

START_TEST(test_failures_key_equals_fail_option)
{
  /* tests/data/planner/failures.yaml is scenarios/rome-400g-nic-ktls.yaml (its platform path aside)
   * with `failures: ["nics[0].ports[1]"]`: bound and run print what --fail prints, byte for byte */
  const char *fmts[] = { "json", "table" };
  for (size_t i = 0; i < G_N_ELEMENTS(fmts); i++) {
    const char *cli[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", "--fail", "nics[0].ports[1]", "-f", fmts[i], NULL };
    const char *key[] = { "bound", "tests/data/planner/failures.yaml", "-f", fmts[i], NULL };
    char *o1, *e1, *o2, *e2;
    ck_assert_int_eq(test_run_ocasim(cli, &o1, &e1), 0);
    ck_assert_int_eq(test_run_ocasim(key, &o2, &e2), 0);
    ck_assert_str_eq(o1, o2);
    g_free(o1);
    g_free(e1);
    g_free(o2);
    g_free(e2);
  }
  const char *run_cli[] = { "run",        "scenarios/rome-400g-nic-ktls.yaml",
                            "--fail",     "nics[0].ports[1]",
                            "--duration", "0.3 s",
                            "--warmup",   "0.1 s",
                            "-f",         "json",
                            NULL };
  const char *run_key[] = { "run", "tests/data/planner/failures.yaml", "--duration", "0.3 s", "--warmup", "0.1 s", "-f", "json",
                            NULL };
  char *o1, *e1, *o2, *e2;
  ck_assert_int_eq(test_run_ocasim(run_cli, &o1, &e1), 0);
  ck_assert_int_eq(test_run_ocasim(run_key, &o2, &e2), 0);
  ck_assert_str_eq(o1, o2);
  g_free(o1);
  g_free(e1);
  g_free(o2);
  g_free(e2);
  /* the key and --fail add up: a port from the file and a drive from the option */
  const char *both[] = { "bound", "tests/data/planner/failures.yaml", "--fail", "nvme[0]", "-f", "json", NULL };
  g_autoptr(JsonParser) p = run_json(both);
  JsonArray *failed = json_object_get_array_member(json_node_get_object(json_parser_get_root(p)), "failed");
  ck_assert_int_eq(json_array_get_length(failed), 2);
  ck_assert_str_eq(json_array_get_string_element(failed, 0), "nics[0].ports[1]");
  ck_assert_str_eq(json_array_get_string_element(failed, 1), "nvme[0]");
  /* a component the box lacks is located at the list entry, in check too; so is a list that
   * leaves no port; CSV is refused as with --fail */
  const char *bad[] = { "check", "tests/data/planner/failures_bad.yaml", NULL };
  char *out, *err;
  ck_assert_int_eq(test_run_ocasim(bad, &out, &err), 2);
  test_assert_located("failures", err, "tests/data/planner/failures_bad.yaml", 7, 5, "failures[1]",
                      "'nvme[30]': the box has 18 drives: nvme0-nvme1 from nvme[0] (count 2)");
  g_free(out);
  g_free(err);
  assert_refused(
      (const char *[]){ "bound", "tests/data/planner/failures.yaml", "--set", "failures=[\"nics[0]\", \"nics[1]\"]", NULL },
      "failures: no NIC port would be left");
  assert_refused((const char *[]){ "bound", "tests/data/planner/failures.yaml", "-f", "csv", NULL }, "not csv");
}
END_TEST

/* Whether @report's resources (JSON array) hold one named @name. */
static gboolean has_res(JsonObject *report, const char *name)
{
  JsonArray *res = json_object_get_array_member(report, "resources");
  for (guint i = 0; i < json_array_get_length(res); i++)
    if (strcmp(json_object_get_string_member(json_array_get_object_element(res, i), "name"), name) == 0) return TRUE;
  return FALSE;
}

/* How many of @report's resources are named with @prefix followed by a digit or a dot (nic0 counts
 * nic0.port1 and pcie.nic0 only when @prefix says "pcie.nic0"; nvme1 does not count nvme10). */
static int res_named(JsonObject *report, const char *prefix)
{
  JsonArray *res = json_object_get_array_member(report, "resources");
  int n = 0;
  for (guint i = 0; i < json_array_get_length(res); i++) {
    const char *nm = json_object_get_string_member(json_array_get_object_element(res, i), "name");
    size_t l = strlen(prefix);
    n += strncmp(nm, prefix, l) == 0 && (nm[l] == '\0' || nm[l] == '.');
  }
  return n;
}

/* The degraded box is read in the healthy box's names: a surviving card, port, tag space or drive
 * keeps its resource name (nic1.port0 stays nic1.port0, nvme4 stays nvme4), in bound and run, JSON
 * and table; --fail's indices are those names' (nicN, nvmeD), counting a group's cards one by one. */
START_TEST(test_failure_keeps_names)
{
  /* nics[0] down on the Rome box (2 cards x 2 ports): what binds is the surviving card nic1, and
   * nothing named nic0 is left (before: the survivor was renumbered nic0) */
  const char *args[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", "--fail", "nics[0]", "-f", "json", NULL };
  g_autoptr(JsonParser) p = run_json(args);
  JsonObject *o = json_node_get_object(json_parser_get_root(p));
  JsonObject *h = json_object_get_object_member(o, "healthy"), *d = json_object_get_object_member(o, "degraded");
  const char *bn = json_object_get_string_member(json_object_get_object_member(d, "bottleneck"), "resource");
  ck_assert_msg(g_str_has_prefix(bn, "nic1."), "%s", bn);
  ck_assert_int_eq(res_named(h, "nic0"), 3); /* port0, port1, tls */
  ck_assert_int_eq(res_named(d, "nic0") + res_named(d, "pcie.nic0"), 0);
  ck_assert(has_res(d, "nic1.port0") && has_res(d, "nic1.port1") && has_res(d, "nic1.tls") && has_res(d, "pcie.nic1") &&
            has_res(d, "pcie.nic1.f0.tags") && has_res(d, "pcie.nic1.f1.tags"));
  /* the table's side-by-side line names the card left, as does run's report */
  char *out, *err;
  const char *targs[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", "--fail", "nics[0]", NULL };
  ck_assert_int_eq(test_run_ocasim(targs, &out, &err), 0);
  ck_assert_msg(strstr(out, "bottleneck: nic0.port0             nic1.port0"), "%s", out);
  ck_assert_msg(!strstr(strstr(out, "The degraded box:"), "nic0"), "%s", out);
  g_free(out);
  g_free(err);
  const char *rargs[] = {
    "run", "scenarios/rome-400g-nic-ktls.yaml", "--fail", "nics[0]", "--duration", "0.3 s", "--warmup", "0.1 s", "-f", "json",
    NULL
  };
  g_autoptr(JsonParser) rp = run_json(rargs);
  JsonObject *rd = json_object_get_object_member(json_node_get_object(json_parser_get_root(rp)), "degraded");
  ck_assert_int_eq(res_named(rd, "nic0") + res_named(rd, "pcie.nic0"), 0);
  ck_assert_int_eq(res_named(rd, "nic1"), 3);
  /* a drive down: nvme3 and its link are gone, nvme4 is still nvme4 and the last drive still nvme17 */
  const char *dargs[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", "--fail", "nvme[3]", "-f", "json", NULL };
  g_autoptr(JsonParser) dp = run_json(dargs);
  JsonObject *dd = json_object_get_object_member(json_node_get_object(json_parser_get_root(dp)), "degraded");
  ck_assert(!has_res(dd, "nvme3") && !has_res(dd, "pcie.nvme3"));
  ck_assert(has_res(dd, "nvme2") && has_res(dd, "nvme4") && has_res(dd, "pcie.nvme4") && has_res(dd, "nvme17"));
  /* a port down: the card keeps its other port's number and that port's tag space (function 1) */
  const char *pargs[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", "--fail", "nics[0].ports[0]", "-f", "json", NULL };
  g_autoptr(JsonParser) pp = run_json(pargs);
  JsonObject *pd = json_object_get_object_member(json_node_get_object(json_parser_get_root(pp)), "degraded");
  ck_assert(!has_res(pd, "nic0.port0") && has_res(pd, "nic0.port1") && has_res(pd, "nic1.port0"));
  ck_assert(!has_res(pd, "pcie.nic0.f0.tags") && has_res(pd, "pcie.nic0.f1.tags") && !has_res(pd, "pcie.nic0.tags"));
}
END_TEST

/* nics[N] counts cards as the resource names do, a group with count k giving k consecutive
 * indices: with nics[0] at count 2 (nic0, nic1) and nics[1] (nic2), nics[1] is the second card of
 * the first group, and the error for a card the box lacks lists the names by group */
START_TEST(test_failure_addresses_counted_groups)
{
  /* x8 links keep the two cards of nics[0] inside quadrant 0's 32 lanes (budgets) */
  const char *args[] = { "bound",  "scenarios/rome-400g-nic-ktls.yaml",
                         "--set",  "nics[0].count=2",
                         "--set",  "nics[0].pcie.lanes=8",
                         "--fail", "nics[1]",
                         "-f",     "json",
                         NULL };
  g_autoptr(JsonParser) p = run_json(args);
  JsonObject *o = json_node_get_object(json_parser_get_root(p));
  JsonObject *h = json_object_get_object_member(o, "healthy"), *d = json_object_get_object_member(o, "degraded");
  ck_assert_int_eq(res_named(h, "nic0"), 3);
  ck_assert_int_eq(res_named(h, "nic1"), 3);
  ck_assert_int_eq(res_named(h, "nic2"), 3);
  ck_assert_int_eq(res_named(d, "nic0"), 3);
  ck_assert_int_eq(res_named(d, "nic1") + res_named(d, "pcie.nic1"), 0);
  ck_assert_int_eq(res_named(d, "nic2"), 3);
  ck_assert(has_res(d, "pcie.nic2"));
  assert_refused((const char *[]){ "bound", "scenarios/rome-400g-nic-ktls.yaml", "--set", "nics[0].count=2", "--set",
                                   "nics[0].pcie.lanes=8", "--fail", "nics[3]", NULL },
                 "--fail: 'nics[3]': the box has 3 NICs: nic0-nic1 from nics[0] (count 2), nic2 from nics[1] (indices as in the "
                 "resource names nvmeD, nicN.portP: drives and cards counted one by one, not the scenario's groups)");
  assert_refused((const char *[]){ "bound", "scenarios/rome-400g-nic-ktls.yaml", "--fail", "nvme[18]", NULL },
                 "the box has 18 drives: nvme0-nvme1 from nvme[0] (count 2), nvme2-nvme7 from nvme[1] (count 6), nvme8-nvme11 "
                 "from nvme[2] (count 4), nvme12-nvme17 from nvme[3] (count 6)");
  assert_refused((const char *[]){ "bound", "scenarios/rome-400g-nic-ktls.yaml", "--fail", "nics[1].ports[2]", NULL },
                 "--fail: 'nics[1].ports[2]': nic1 (from nics[1]) has 2 ports");
}
END_TEST

static Suite *suite(void)
{
  Suite *s = suite_create("planner");
  TCase *t = tcase_create("planner");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, test_check_refuses_what_run_refuses);
  tcase_add_test(t, test_headline_cpu_busiest_node);
  tcase_add_test(t, test_hardware_budgets);
  tcase_add_test(t, test_explain_matches_touch_table);
  tcase_add_test(t, test_explain_touches_follow_page_cache);
  tcase_add_test(t, test_util_is_net_of_efficiency);
  tcase_add_test(t, test_failure_moves_traffic);
  tcase_add_test(t, test_failure_table_shows_interval);
  tcase_add_test(t, test_capacity_latency_by_des);
  tcase_add_test(t, test_request_size_has_a_cost);
  tcase_add_test(t, test_failures_key_equals_fail_option);
  tcase_add_test(t, test_failure_keeps_names);
  tcase_add_test(t, test_failure_addresses_counted_groups);
  suite_add_tcase(s, t);
  return s;
}

int main(void)
{
  return test_run_suite(suite());
}
