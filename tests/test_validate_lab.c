/* tests/test_validate_lab.c — `ocasim validate --clients`: the configuration table sized to the
 * host (thread counts from the CPUs and NUMA nodes, thousands of connections, the byte target
 * met), the clients' command lines, the model's prediction on a platform read from a fake sysfs
 * tree, and, where network namespaces can be made (root), validate against two client namespaces
 * over veth pairs with the server in a namespace of its own: every body hashed, the same bytes and
 * responses as its loopback twin, NIC counters that carry the bytes served and agree with the
 * loopback counters, and the report's per-resource table. */
#include <check.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/support/check_run.h"
#include "validate/hostplat.h"
#include "validate/labreport.h"
#include "validate/labrun.h"
#include "validate/remote.h"

START_TEST(test_specs_sized)
{
  /* this machine: 2 CPUs, 1 node, no kTLS, 2 clients: quick = plain and user-space once */
  ValLabHost small = { .cpus = 2, .cpus_per_node = 2, .ktls = FALSE, .nclients = 2 };
  int n = 0;
  g_autofree ValRemoteSpec *q = val_lab_specs(&small, TRUE, &n);
  ck_assert_int_eq(n, 3);
  ck_assert_int_eq(q[2].nfiles, 4); /* the uncached run */
  ck_assert_int_eq(q[0].mode, VAL_MODE_SENDFILE);
  ck_assert_int_eq(q[1].mode, VAL_MODE_USERSPACE);
  ck_assert_int_eq(q[0].requests, 8); /* 64 MiB / (2 clients x 4 connections x 1 MiB) */
  /* a lab server: 64 CPUs on 2 nodes, kTLS, 4 clients */
  ValLabHost big = { .cpus = 64, .cpus_per_node = 32, .ktls = TRUE, .nclients = 4 };
  g_autofree ValRemoteSpec *f = val_lab_specs(&big, FALSE, &n);
  /* 3 modes x 3 thread counts x 3 connection counts + 3 small-response runs + 3 uncached */
  ck_assert_int_eq(n, 33);
  gboolean t1 = FALSE, t32 = FALSE, t64 = FALSE, ktls = FALSE;
  int max_conns = 0;
  for (int i = 0; i < n; i++) {
    t1 |= f[i].server_threads == 1, t32 |= f[i].server_threads == 32, t64 |= f[i].server_threads == 64;
    ktls |= f[i].mode == VAL_MODE_SENDFILE_KTLS;
    max_conns = MAX(max_conns, f[i].connections * big.nclients);
    if (f[i].nfiles) { /* each client's files once */
      ck_assert(f[i].requests == 1 && f[i].connections == f[i].nfiles);
      continue;
    }
    uint64_t per_round = (uint64_t)big.nclients * f[i].connections * f[i].file_bytes;
    uint64_t target = f[i].file_bytes < 1048576 ? VAL_LAB_FULL_BYTES / 16 : VAL_LAB_FULL_BYTES;
    uint64_t moved = per_round * (uint64_t)f[i].requests;
    ck_assert_msg(moved >= target && moved < target + per_round, "run %d moves %" G_GUINT64_FORMAT, i, moved);
    ck_assert_int_ge(f[i].connections, f[i].server_threads);
  }
  ck_assert(t1 && t32 && t64 && ktls);
  ck_assert_int_eq(max_conns, 4096);
  /* one node: the per-node step is the whole box, taken once */
  ValLabHost one = { .cpus = 2, .cpus_per_node = 2, .nclients = 1 };
  g_autofree ValRemoteSpec *o = val_lab_specs(&one, FALSE, &n);
  ck_assert_int_eq(n, 2 * 2 * 3 + 2 + 2);
}
END_TEST

/* The loopback table: nothing added on 2 CPUs (CI's table stays); on 64 CPUs in 2 nodes, 16 and
 * 32 threads a side in three modes at 4k and 1024 connections, all held out. */
START_TEST(test_loopback_extra)
{
  ValRunSpec x[VAL_LAB_MAX_EXTRA];
  ck_assert_int_eq(val_lab_loopback_extra(2, 2, x, VAL_LAB_MAX_EXTRA), 0);
  ck_assert_int_eq(val_lab_loopback_extra(4, 4, x, VAL_LAB_MAX_EXTRA), 0); /* k = 2: already in the table */
  int n = val_lab_loopback_extra(64, 32, x, VAL_LAB_MAX_EXTRA);
  ck_assert_int_eq(n, 12);
  ck_assert_int_eq(x[0].server_threads, 16);
  ck_assert_int_eq(x[0].connections, 64);
  ck_assert_int_eq(x[1].connections, 1024);
  ck_assert_int_eq(x[11].server_threads, 32);
  ck_assert_int_eq(x[11].mode, VAL_MODE_SENDFILE_KTLS);
  for (int i = 0; i < n; i++) ck_assert(!x[i].train && x[i].client_threads == x[i].server_threads);
  /* one node: the per-node and whole-box steps are the same, taken once */
  ck_assert_int_eq(val_lab_loopback_extra(16, 16, x, VAL_LAB_MAX_EXTRA), 6);
  ck_assert_int_eq(val_lab_loopback_extra(64, 32, x, 5), 5);
}
END_TEST

START_TEST(test_client_argv)
{
  char *names[] = { "client-1", NULL };
  ValRemoteConfig rc = { .clients = names, .server_addr = "10.0.0.1" };
  ValRemoteSpec s = { .mode = VAL_MODE_USERSPACE,
                      .version = VAL_TLS_13,
                      .cipher = VAL_CIPHER_AES256GCM,
                      .connections = 8,
                      .client_threads = 2,
                      .requests = 3,
                      .file_bytes = 1048576 };
  ValRemoteFile fa = { "/f-1048576.bin", { 0xab, 0x01 } }, fb = { "/x", { 0 } };
  g_autoptr(GError) err = NULL;
  g_auto(GStrv) a = val_remote_client_argv(&rc, "client-1", 4433, &s, &fa, 1, &err);
  ck_assert(a != NULL);
  g_autofree char *line = g_strjoinv(" ", a);
  ck_assert_str_eq(line, "ssh client-1 ocasim load --host 10.0.0.1 --port 4433 --tls-version 1.3 --cipher aes-256-gcm "
                         "--path /f-1048576.bin --sha256 ab01000000000000000000000000000000000000000000000000000000000000 "
                         "--requests 3 --connections 8 --threads 2 --timeout 10 --json");
  rc.exec = "ip netns exec {}";
  rc.client_ocasim = "/opt/ocasim";
  s.mode = VAL_MODE_SENDFILE;
  g_auto(GStrv) b = val_remote_client_argv(&rc, "ns1", 80, &s, &fb, 1, &err);
  ck_assert_str_eq(b[0], "ip");
  ck_assert_str_eq(b[3], "ns1");
  ck_assert_str_eq(b[4], "/opt/ocasim");
  ck_assert_str_eq(b[10], "--plain");
  /* the loopback twin: this binary against 127.0.0.1, no prefix */
  g_auto(GStrv) c = val_remote_client_argv(&rc, NULL, 80, &s, &fb, 1, &err);
  ck_assert_str_eq(c[0], "/proc/self/exe");
  ck_assert_str_eq(c[3], "127.0.0.1");
  /* a name that a shell would read as two commands is refused */
  g_auto(GStrv) d = val_remote_client_argv(&rc, "a;rm", 80, &s, &fb, 1, &err);
  ck_assert(d == NULL && err != NULL);
}
END_TEST

/* The model on the fake 2-socket box: X* and utilisations at the measured throughput, which
 * scale with it (the bottleneck law is linear below X*; CPU stalls on DRAM add a little). */
START_TEST(test_predict_box)
{
  g_autoptr(ValHostPlat) h = val_hostplat_read("tests/data/hostplat/box2s");
  g_autofree char *yaml = val_hostplat_yaml(h, 2.2e9, 0, TRUE, NULL);
  ValRemoteRun r = { .spec = { .mode = VAL_MODE_USERSPACE,
                               .version = VAL_TLS_13,
                               .cipher = VAL_CIPHER_AES128GCM,
                               .server_threads = 4,
                               .connections = 64,
                               .requests = 1,
                               .file_bytes = 1048576 },
                     .gbps = 10 };
  val_remote_predict(yaml, &r);
  ck_assert_msg(r.pred.ok, "%s", r.pred.error);
  ck_assert(r.pred.sat_gbps > 10);
  ck_assert_double_eq_tol(r.pred.nic_gbps, 10, 0.5); /* every served byte leaves through a port */
  ck_assert(r.pred.cpu_util > 0 && r.pred.dram_GBps > 0);
  double cpu10 = r.pred.cpu_util, dram10 = r.pred.dram_GBps;
  r.gbps = 5;
  val_remote_predict(yaml, &r);
  ck_assert_double_eq_tol(r.pred.dram_GBps, dram10 / 2, 1e-6 * dram10);
  /* CPU: the per-byte cycles plus DRAM stalls that grow with the memory's loaded latency, so a
   * little under half (1 % here) */
  ck_assert(r.pred.cpu_util < cpu10 / 2 && r.pred.cpu_util > 0.97 * cpu10 / 2);
  ck_assert_double_eq_tol(r.pred.nvme_GBps, 0, 1e-9); /* one title, held by the page cache */
  g_autofree char *md = val_remote_report_md(&r, 1, NULL);
  ck_assert(strstr(md, "| userspace tls1.3 aes-128-gcm s4 c0 n64 1MiB x1 | remote | 5.000 |") != NULL);
}
END_TEST

/* The loopback validate's additions: report-resources.md carries each run's counters, "not
 * measured" for DRAM without a PMU, the CPU-bound flag from the busier side's share; and the
 * host-platform.yaml it writes, with the measured costs, passes `ocasim check`. */
static gboolean sh(const char *cmd);
START_TEST(test_loopback_resources)
{
  g_autoptr(ValReport) r = g_new0(ValReport, 1);
  r->probe = val_probe_run();
  r->rows = g_array_new(FALSE, TRUE, sizeof(ValPredRow));
  ValPredRow row;
  memset(&row, 0, sizeof row);
  row.run.spec = (ValRunSpec){ "", VAL_MODE_SENDFILE, VAL_TLS_ANY, VAL_CIPHER_ANY, 1, 1, 8, 1048576, 0, TRUE };
  row.run.median.gbps = 40;
  row.run.median.softirq_share = 0.125;
  row.run.median.lo_GBps = 5.25;
  row.run.median.dram_GBps = -1;
  row.app_gbps = 44;
  row.err_rel = 0.1;
  row.busiest = 0.95;
  g_array_append_val(r->rows, row);
  row.busiest = 0.5;
  row.run.median.dram_GBps = 12.5;
  g_array_append_val(r->rows, row);
  g_autofree char *md = val_lab_resources_md(r);
  ck_assert(strstr(md,
                   "| sendfile plain s1c1 n8 1MiB | train | 40.00 | 44.00 | - | +10.0 % | 95 % | - | - | 0.12 | 5.25 | 0.000 | "
                   "0.000 | not measured | - | 0 / 0 | yes |") != NULL);
  ck_assert(strstr(md, "| 12.50 | - | 0 / 0 | no |") != NULL);
  r->profile.clock_hz = 2.5e9;
  r->profile.p[VAL_P_CRYPTO_AES128] = 0.7;
  r->out_dir = g_dir_make_tmp("labres-XXXXXX", NULL);
  g_autoptr(GError) err = NULL;
  ck_assert_msg(val_lab_write_loopback(r, &err), "%s", err ? err->message : "");
  const char *bin = g_getenv("OCASIM_BIN");
  g_autofree char *check = g_strdup_printf("%s check %s/host-platform.yaml", bin ? bin : "./ocasim", r->out_dir);
  ck_assert(sh(check));
  g_autofree char *plat = g_build_filename(r->out_dir, "host-platform.yaml", NULL), *text = NULL;
  ck_assert(g_file_get_contents(plat, &text, NULL, NULL));
  ck_assert(strstr(text, "aes_128_gcm_cpb: 0.7") != NULL);
  g_autofree char *rm = g_strdup_printf("rm -rf %s", r->out_dir);
  sh(rm);
}
END_TEST

static gboolean sh(const char *cmd)
{
  int status = -1;
  g_autofree char *out = NULL, *err = NULL;
  if (!g_spawn_command_line_sync(cmd, &out, &err, &status, NULL)) return FALSE;
  if (!g_spawn_check_wait_status(status, NULL)) {
    fprintf(stderr, "%s: %s%s", cmd, out ? out : "", err ? err : "");
    return FALSE;
  }
  return TRUE;
}

static JsonObject *run_at(JsonArray *runs, guint i)
{
  return json_array_get_object_element(runs, i);
}

START_TEST(test_netns_clients)
{
  g_autofree char *ip = g_find_program_in_path("ip");
  if (geteuid() != 0 || !ip) {
    fprintf(stderr, "test_netns_clients: SKIP (needs root and ip(8) to create network namespaces)\n");
    return;
  }
  const char *bin = g_getenv("OCASIM_BIN");
  ck_assert_msg(bin != NULL, "OCASIM_BIN");
  g_autofree char *abs = g_canonicalize_filename(bin, NULL);
  g_autofree char *prefix = g_strdup_printf("lt%d", (int)getpid() % 100000);
  int net = 100 + (int)getpid() % 100;
  g_autofree char *up = g_strdup_printf("sh scripts/netns-clients.sh up %s %d 2 server", prefix, net);
  g_autofree char *down = g_strdup_printf("sh scripts/netns-clients.sh down %s 2 server", prefix);
  if (!sh(up)) {
    sh(down);
    fprintf(stderr, "test_netns_clients: SKIP (network namespaces cannot be created here)\n");
    return;
  }
  g_autofree char *out = g_dir_make_tmp("lab-XXXXXX", NULL);
  /* the served files on a loop device of their own, where one can be made: its read counters
   * are then this run's alone (the machine's disk has other tenants) */
  g_autofree char *img = g_build_filename(out, "disk.img", NULL), *mnt = g_build_filename(out, "mnt", NULL);
  g_autofree char *loopdev = NULL, *mk = g_strdup_printf("sh -c 'truncate -s 160M %s && mkfs.ext4 -q -F %s'", img, img);
  g_autofree char *lo_cmd = g_strdup_printf("losetup -f --show %s", img);
  g_mkdir(mnt, 0755);
  if (sh(mk) && g_spawn_command_line_sync(lo_cmd, &loopdev, NULL, NULL, NULL) && loopdev && g_str_has_prefix(loopdev, "/dev/")) {
    g_strstrip(loopdev);
    g_autofree char *mount = g_strdup_printf("mount %s %s", loopdev, mnt);
    if (!sh(mount)) {
      g_autofree char *det = g_strdup_printf("losetup -d %s", loopdev);
      sh(det);
      g_clear_pointer(&loopdev, g_free);
    }
  } else
    g_clear_pointer(&loopdev, g_free);
  if (!loopdev) fprintf(stderr, "test_netns_clients: no loop device: the drive-read check is skipped\n");
  g_autofree char *disk_opts =
      loopdev ? g_strdup_printf("--work-dir %s --disk-if %s", mnt, loopdev + strlen("/dev/")) : g_strdup("");
  g_autofree char *cmd =
      g_strdup_printf("ip netns exec %ss %s validate --quick --clients %sa,%sb --client-exec 'ip netns exec {}' "
                      "--client-ocasim %s --server-addr 10.213.%d.1 --net-if %sah,%sbh --out %s %s",
                      prefix, abs, prefix, prefix, abs, net, prefix, prefix, out, disk_opts);
  gboolean ran = sh(cmd);
  sh(down);
  if (loopdev) {
    g_autofree char *um = g_strdup_printf("umount %s", mnt), *det = g_strdup_printf("losetup -d %s", loopdev);
    sh(um);
    sh(det);
  }
  ck_assert_msg(ran, "%s failed", cmd);
  g_autofree char *json_path = g_build_filename(out, "report-lab.json", NULL);
  g_autoptr(JsonParser) p = json_parser_new();
  ck_assert(json_parser_load_from_file(p, json_path, NULL));
  JsonArray *runs = json_object_get_array_member(json_node_get_object(json_parser_get_root(p)), "runs");
  /* plain and user-space TLS, and plain uncached, each remote + loopback */
  ck_assert_uint_eq(json_array_get_length(runs), 6);
  for (guint i = 0; i < json_array_get_length(runs); i += 2) {
    JsonObject *rem = run_at(runs, i), *lo = run_at(runs, i + 1);
    ck_assert(!json_object_get_boolean_member(rem, "loopback") && json_object_get_boolean_member(lo, "loopback"));
    gint64 body = json_object_get_int_member(rem, "bytes_body");
    gboolean uncached = i == 4;
    /* the same bytes and responses, every body hashed, on both paths */
    ck_assert_int_eq(body, uncached ? 2 * 4 * 4 * 1048576 : 2 * 4 * 8 * 1048576);
    ck_assert_int_eq(json_object_get_int_member(lo, "bytes_body"), body);
    ck_assert_int_eq(json_object_get_int_member(rem, "requests_ok"), json_object_get_int_member(lo, "requests_ok"));
    ck_assert(json_object_get_boolean_member(rem, "sha256_every_body") &&
              json_object_get_boolean_member(lo, "sha256_every_body"));
    ck_assert_int_eq(json_object_get_int_member(rem, "errors"), 0);
    /* counters: the veths carried the bodies plus headers and requests (< 5 %), loopback the same */
    JsonObject *cr = json_object_get_object_member(rem, "counters"), *cl = json_object_get_object_member(lo, "counters");
    double nic = json_object_get_double_member(cr, "net_rx_bytes") + json_object_get_double_member(cr, "net_tx_bytes");
    double lob = json_object_get_double_member(cl, "net_tx_bytes"); /* lo: each byte is sent and received once */
    ck_assert_msg(nic >= body && nic < 1.05 * body, "veth bytes %g for %" G_GINT64_FORMAT, nic, body);
    ck_assert_msg(lob >= body && lob < 1.05 * body, "lo bytes %g for %" G_GINT64_FORMAT, lob, body);
    ck_assert_msg(nic / lob > 0.97 && nic / lob < 1.03, "veth %g vs lo %g", nic, lob);
    ck_assert_double_eq(json_object_get_double_member(cr, "net_drops"), 0);
    /* the veths' own driver counters (rx_queue_N_drops) are read and show no drop; lo has none */
    ck_assert(json_object_get_boolean_member(cr, "nic_drops_measured"));
    ck_assert_double_eq(json_object_get_double_member(cr, "nic_drops"), 0);
    ck_assert(!json_object_get_boolean_member(cl, "nic_drops_measured") && !json_object_has_member(cl, "nic_drops"));
    /* the uncached set, evicted before each run, came from the drive: its reads carry every body
     * byte (and some metadata, < 10 %), less what fell outside the counters' window (a read of the
     * run's first bytes, or readahead, before the first sample: 0.4 % short once in CI under load,
     * so 2 % of slack); the cached runs read next to nothing */
    for (int k = 0; loopdev && k < 2; k++) {
      double rd = json_object_get_double_member(k ? cl : cr, "disk_read_bytes");
      /* what the eviction could not drop (pages a socket of the run before still held: the loopback
       * twin read 4.7 % less than it served once under load before the eviction checked) */
      double cached = uncached ? (double)json_object_get_int_member(run_at(runs, i + (guint)k), "cached_before_bytes") : 0;
      if (cached > 0) fprintf(stderr, "test_netns_clients: run %u began with %g bytes of its set cached\n", i + (guint)k, cached);
      if (uncached)
        ck_assert_msg(rd >= 0.98 * (body - cached) && rd < 1.1 * body,
                      "run %u: %g bytes read for %" G_GINT64_FORMAT " served, %g cached before", i + (guint)k, rd, body, cached);
      else
        ck_assert_msg(rd < 0.05 * body, "run %u: %g bytes read", i, rd);
    }
    /* the model predicted the run on host-platform.yaml */
    JsonObject *pr = json_object_get_object_member(rem, "predicted");
    ck_assert(json_object_get_boolean_member(pr, "ok"));
    ck_assert(json_object_get_double_member(pr, "sat_gbps") > 0);
    /* with its 80 % prediction interval around X* */
    JsonArray *iv = json_object_get_array_member(pr, "interval_gbps");
    double sat = json_object_get_double_member(pr, "sat_gbps");
    ck_assert(iv && json_array_get_length(iv) == 2);
    ck_assert(json_array_get_double_element(iv, 0) > 0);
    ck_assert(json_array_get_double_element(iv, 0) <= sat * 1.5 && json_array_get_double_element(iv, 1) >= sat / 1.5);
    ck_assert(json_array_get_double_element(iv, 0) < json_array_get_double_element(iv, 1));
  }
  g_autofree char *md_path = g_build_filename(out, "report-lab.md", NULL);
  g_autofree char *md = NULL;
  ck_assert(g_file_get_contents(md_path, &md, NULL, NULL));
  ck_assert(strstr(md, "| run | path | Gb/s meas | Gb/s pred (X*) |") != NULL);
  ck_assert(strstr(md, "CPU bound") != NULL);
  /* host-platform.yaml loads with ocasim check */
  g_autofree char *check = g_strdup_printf("%s check %s/host-platform.yaml", abs, out);
  ck_assert(sh(check));
  g_autofree char *rm = g_strdup_printf("rm -rf %s", out);
  sh(rm);
}
END_TEST

/* Without namespaces (any user): a client "machine" reached through `env` on this host, against
 * 127.0.0.1; every body hashed, the bytes of the table; and the bad inputs of the new options. */
START_TEST(test_clients_via_env)
{
  const char *bin = g_getenv("OCASIM_BIN");
  ck_assert_msg(bin != NULL, "OCASIM_BIN");
  g_autofree char *abs = g_canonicalize_filename(bin, NULL);
  g_autofree char *out = g_dir_make_tmp("labenv-XXXXXX", NULL);
  g_autofree char *cmd =
      g_strdup_printf("%s validate --quick --clients c1 --client-exec 'env OCASIM_CLIENT={}' --client-ocasim %s "
                      "--server-addr 127.0.0.1 --net-if lo --out %s",
                      abs, abs, out);
  ck_assert_msg(sh(cmd), "%s", cmd);
  g_autofree char *json_path = g_build_filename(out, "report-lab.json", NULL);
  g_autoptr(JsonParser) p = json_parser_new();
  ck_assert(json_parser_load_from_file(p, json_path, NULL));
  JsonArray *runs = json_object_get_array_member(json_node_get_object(json_parser_get_root(p)), "runs");
  ck_assert_uint_eq(json_array_get_length(runs), 6);
  for (guint i = 0; i < 6; i++) {
    JsonObject *o = run_at(runs, i);
    ck_assert_int_eq(json_object_get_int_member(o, "bytes_body"), i < 4 ? 4 * 16 * 1048576 : 4 * 4 * 1048576);
    ck_assert_int_eq(json_object_get_int_member(o, "requests_ok"), json_object_get_int_member(o, "expected_requests"));
    ck_assert(json_object_get_boolean_member(o, "sha256_every_body"));
  }
  /* --platform: an edited host-platform.yaml is what the model predicts from (README, calibrating
   * a lab server, step 4): every NIC port 4x as fast lifts a NIC-bound sendfile run's X* */
  double sat0 = json_object_get_double_member(json_object_get_object_member(run_at(runs, 0), "predicted"), "sat_gbps");
  g_autofree char *plat_path = g_build_filename(out, "host-platform.yaml", NULL), *plat = NULL;
  ck_assert(g_file_get_contents(plat_path, &plat, NULL, NULL));
  g_autoptr(GRegex) re = g_regex_new("port_speed: ([0-9.]+) Gb/s", 0, 0, NULL);
  g_autoptr(GMatchInfo) mi = NULL;
  ck_assert_msg(g_regex_match(re, plat, 0, &mi), "no NIC port in host-platform.yaml");
  g_autofree char *speed = g_match_info_fetch(mi, 1);
  g_autofree char *from = g_strdup_printf("port_speed: %s Gb/s", speed),
                  *to = g_strdup_printf("port_speed: %g Gb/s", 4 * g_ascii_strtod(speed, NULL));
  g_autoptr(GString) edited = g_string_new(plat);
  ck_assert_uint_ge(g_string_replace(edited, from, to, 0), 1);
  g_autofree char *edited_path = g_build_filename(out, "edited.yaml", NULL), *out2 = g_build_filename(out, "again", NULL);
  ck_assert(g_file_set_contents(edited_path, edited->str, -1, NULL));
  g_autofree char *cmd2 =
      g_strdup_printf("%s validate --quick --clients c1 --client-exec 'env OCASIM_CLIENT={}' --client-ocasim %s "
                      "--server-addr 127.0.0.1 --net-if lo --platform %s --out %s",
                      abs, abs, edited_path, out2);
  ck_assert_msg(sh(cmd2), "%s", cmd2);
  g_autofree char *json2 = g_build_filename(out2, "report-lab.json", NULL);
  g_autoptr(JsonParser) p2 = json_parser_new();
  ck_assert(json_parser_load_from_file(p2, json2, NULL));
  JsonArray *runs2 = json_object_get_array_member(json_node_get_object(json_parser_get_root(p2)), "runs");
  JsonObject *pred2 = json_object_get_object_member(run_at(runs2, 0), "predicted");
  if (!strcmp(json_object_get_string_member(json_object_get_object_member(run_at(runs, 0), "predicted"), "bottleneck"),
              "nic0.port0"))
    ck_assert_msg(json_object_get_double_member(pred2, "sat_gbps") > 1.5 * sat0, "%g vs %g",
                  json_object_get_double_member(pred2, "sat_gbps"), sat0);
  else
    ck_assert_double_ge(json_object_get_double_member(pred2, "sat_gbps"), sat0 * (1 - 1e-12));
  g_autofree char *rm = g_strdup_printf("rm -rf %s", out);
  sh(rm);
  /* bad inputs: exit status 2 */
  const char *bad[] = { "validate --clients c1",                         /* no --server-addr */
                        "validate --clients c1 --server-addr 300.1.1.1", /* not an address */
                        "validate --platform host-platform.yaml",        /* --platform without --clients */
                        "load --path /a --sha256 00",                    /* not 64 hex digits */
                        "load --path /a --path /b --sha256 "             /* one digest for two paths */
                        "0000000000000000000000000000000000000000000000000000000000000000" };
  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_autofree char *c = g_strdup_printf("%s %s", abs, bad[i]);
    int status = 0;
    ck_assert(g_spawn_command_line_sync(c, NULL, NULL, &status, NULL));
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 2, "%s: status %d", bad[i], status);
  }
}
END_TEST

static Suite *suite(void)
{
  Suite *s = suite_create("validate_lab");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_specs_sized);
  tcase_add_test(tc, test_loopback_extra);
  tcase_add_test(tc, test_client_argv);
  tcase_add_test(tc, test_predict_box);
  tcase_add_test(tc, test_loopback_resources);
  tcase_add_test(tc, test_clients_via_env);
  tcase_add_test(tc, test_netns_clients);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return test_run_suite(suite());
}
