/* tests/test_validate_profile.c — host-profile.yaml from a synthetic fit is a platform the
 * appliance loader accepts; the appliance model's bound on it equals the closed form of
 * validate/predict.c for every kind of configuration; the loopback cost terms by hand. */
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>

#include "models/appliance/loader.h"
#include "models/modes/explain.h"
#include "models/modes/report.h"
#include "models/appliance/cpu.h"
#include "models/appliance/demand.h"
#include "validate/measure.h"
#include "tests/support/check_run.h"
#include "validate/profile.h"

static ValHostProfile synthetic(void)
{
  ValHostProfile p = { .clock_hz = 2.6e9, .cores = 2, .hash_cpb = 1.3, .record_bytes = 16384 };
  p.p[VAL_P_COPY] = 0.35;
  p.p[VAL_P_COPY_PC] = 0.20;
  p.p[VAL_P_MISS] = 0.40;
  p.p[VAL_P_CACHE] = 786432;
  p.p[VAL_P_XCORE_S] = 0.25;
  p.p[VAL_P_XCORE_C] = 0.15;
  p.p[VAL_P_STACK] = 0.30;
  p.p[VAL_P_RECORD] = 600;
  p.p[VAL_P_CRYPTO_AES128] = 0.40;
  p.p[VAL_P_CRYPTO_AES256] = 0.47;
  p.p[VAL_P_CRYPTO_CHACHA] = 0.72;
  p.p[VAL_P_REQ_SERVER] = 20000;
  p.p[VAL_P_REQ_CLIENT] = 15000;
  p.p[VAL_P_SOFTIRQ] = 0.02;
  p.p[VAL_P_UTIL] = 0.93;
  for (int i = 0; i < VAL_P_COUNT; i++) {
    p.fitted[i] = i != VAL_P_RECORD;
    p.se[i] = 0.05 * p.p[i];
  }
  return p;
}

START_TEST(test_loopback_terms)
{
  /* m(W): half at W = C, about 1/17 at C/2, 16/17 at 2C */
  ck_assert_double_eq_tol(loopback_miss_share(1e6, 1e6), 0.5, 1e-12);
  ck_assert_double_eq_tol(loopback_miss_share(5e5, 1e6), 1.0 / 17, 1e-12);
  ck_assert_double_eq_tol(loopback_miss_share(2e6, 1e6), 16.0 / 17, 1e-12);
  /* p_x: s1c1 on 2 free cores: always apart; one core's worth: never; s2c2: 2/3 */
  ck_assert_double_eq_tol(loopback_cross_share(1, 1, 2, 2.0), 1.0, 1e-12);
  ck_assert_double_eq_tol(loopback_cross_share(1, 1, 2, 1.0), 0.0, 1e-12);
  ck_assert_double_eq_tol(loopback_cross_share(1, 1, 2, 1.5), 0.5, 1e-12);
  ck_assert_double_eq_tol(loopback_cross_share(2, 2, 2, 2.0), 2.0 / 3, 1e-12);
  ck_assert_double_eq_tol(loopback_cross_share(2, 1, 1, 1.0), 0.0, 1e-12);
  /* user-space TLS, AES-256, 64 KiB file, all cores: hand-computed sides */
  ValHostProfile p = synthetic();
  ValHostConfig c = { .mode = VAL_MODE_USERSPACE,
                      .cipher = VAL_CIPHER_AES256GCM,
                      .server_threads = 1,
                      .client_threads = 1,
                      .connections = 8,
                      .bytes_per_req = 65536,
                      .avail_cores = 2 };
  ValHostPrediction pr;
  val_predict_host(&p, &c, &pr);
  double R = 600.0 * 6 / 65536; /* 4 full records, the head's, the request's */
  /* the server's pread pays no miss term (hot stream), whatever the file size */
  double s = 0.20 + 0.47 + 0.35 + 0.30 + R + 0.25 + 20000.0 / 65536;
  double cc = 2 * 0.35 + 0.47 + R + 0.15 + 15000.0 / 65536;
  ck_assert_double_eq_tol(pr.server_cpb, s, 1e-12);
  ck_assert_double_eq_tol(pr.client_cpb, cc, 1e-12);
  double cap = MIN(1 / s, MIN(1 / cc, 2 / (s + cc + 0.02)));
  ck_assert_double_eq_tol(pr.gbps, 0.93 * 2.6e9 * cap * 8 / 1e9, 1e-9);
  /* plain sendfile of a 16 MiB file: the client's copy misses */
  c.mode = VAL_MODE_SENDFILE;
  c.bytes_per_req = c.file_bytes = 16777216;
  c.avail_cores = 1;
  val_predict_host(&p, &c, &pr);
  /* one core's worth: the two ends share its cache, C_e = C / 2 */
  ck_assert_double_eq_tol(pr.client_cpb, 0.20 + 0.40 * loopback_miss_share(16777216, 393216) + 15000.0 / 16777216, 1e-12);
  ck_assert_double_eq_tol(pr.server_cpb, 0.30 + 20000.0 / 16777216, 1e-12);
  /* user-space TLS of the same 16 MiB file: the server side is the 64 KiB one's per-byte terms
   * (no miss on the pread), only R and the request share change */
  c.mode = VAL_MODE_USERSPACE;
  c.avail_cores = 2;
  val_predict_host(&p, &c, &pr);
  double R16 = 600.0 * (1024 + 2) / 16777216;
  ck_assert_double_eq_tol(pr.server_cpb, 0.20 + 0.47 + 0.35 + 0.30 + R16 + 0.25 + 20000.0 / 16777216, 1e-12);
}
END_TEST

/* Placement of pinned threads and what the model takes from it. */
START_TEST(test_placement)
{
  ValPlacement pl;
  val_placement(1, 1, 2, &pl); /* one CPU each */
  ck_assert_int_eq(pl.server_first, 0);
  ck_assert_int_eq(pl.server_cpus, 1);
  ck_assert_int_eq(pl.client_last, 1);
  ck_assert_int_eq(pl.client_cpus, 1);
  ck_assert_double_eq(pl.cross_share, 1.0);
  ck_assert_str_eq(pl.desc, "server CPU 0, client CPU 1");
  val_placement(2, 2, 2, &pl); /* more threads than CPUs: one CPU a side, shared */
  ck_assert_int_eq(pl.server_cpus, 1);
  ck_assert_int_eq(pl.client_cpus, 1);
  ck_assert_int_eq(pl.client_last, 1);
  ck_assert_str_eq(pl.desc, "server CPU 0, client CPU 1 (shared)");
  val_placement(2, 1, 8, &pl); /* enough CPUs: one a thread */
  ck_assert_int_eq(pl.server_cpus, 2);
  ck_assert_int_eq(pl.client_last, 2);
  ck_assert_int_eq(pl.client_cpus, 1);
  val_placement(3, 1, 2, &pl); /* k = round(2 * 3 / 4) = 2 clamps to n - 1 = 1 */
  ck_assert_int_eq(pl.server_cpus, 1);
  ck_assert_int_eq(pl.client_cpus, 1);
  val_placement(6, 2, 4, &pl); /* k = round(4 * 6 / 8) = 3 */
  ck_assert_int_eq(pl.server_cpus, 3);
  ck_assert_int_eq(pl.client_cpus, 1);
  ck_assert_int_eq(pl.client_last, 3);
  val_placement(2, 2, 1, &pl); /* one CPU: both ends on it */
  ck_assert_double_eq(pl.cross_share, 0.0);
  ck_assert_int_eq(pl.client_last, 0);
  /* the pool of a side is capped at its pinned CPUs */
  ck_assert_double_eq_tol(loopback_pool_cores(2, 1, 0, 16, 2, 1.0), 1.0, 1e-12);
  ck_assert_double_eq_tol(loopback_pool_cores(2, 0, 0, 16, 2, 1.0), 2.0, 1e-12);
  /* another tenant took 0.4 of the side's pinned CPU */
  ck_assert_double_eq_tol(loopback_pool_cores(1, 1, 0.6, 16, 2, 1.0), 0.6, 1e-12);
  ck_assert_double_eq_tol(loopback_pool_cores(2, 2, 1.5, 1, 2, 1.0), 1.0, 1e-12);
  /* the model takes p_x from the placement instead of estimating it: s2c2 on 2 cores is
   * estimated at 2/3 unpinned, 1 pinned apart; each side then has one core */
  ValHostProfile p = synthetic();
  ValHostConfig c = { .mode = VAL_MODE_SENDFILE,
                      .server_threads = 2,
                      .client_threads = 2,
                      .connections = 16,
                      .bytes_per_req = 65536,
                      .avail_cores = 2 };
  ValHostPrediction un, pin;
  val_predict_host(&p, &c, &un);
  c.pinned = TRUE;
  c.server_cpus = c.client_cpus = 1;
  c.cross_share = 1.0;
  val_predict_host(&p, &c, &pin);
  ck_assert_double_eq_tol(pin.server_cpb - un.server_cpb, 0.25 * (1 - 2.0 / 3), 1e-12);
  double cap = MIN(1 / pin.server_cpb, MIN(1 / pin.client_cpb, 2 / (pin.total_cpb)));
  ck_assert_double_eq_tol(pin.gbps, 0.93 * 2.6e9 * cap * 8 / 1e9, 1e-9);
  /* a tenant on the server's CPU leaves it 0.5 core: the server pool halves, the client's does not */
  ValHostPrediction half;
  c.server_free_cores = 0.5;
  val_predict_host(&p, &c, &half);
  cap = MIN(0.5 / half.server_cpb, MIN(1 / half.client_cpb, 2 / (half.total_cpb)));
  ck_assert_double_eq_tol(half.gbps, 0.93 * 2.6e9 * cap * 8 / 1e9, 1e-9);
  ck_assert(half.gbps < pin.gbps);
}
END_TEST

/* Every mode, cipher, thread count, size and CPU share: the appliance model's bound on the
 * written profile equals the closed form (same equations, built as resources and demands). */
START_TEST(test_profile_bound_matches_closed_form)
{
  ValHostProfile p = synthetic();
  ValFitStats st = { .nobs = 40, .npar = 13, .chi2_dof = 1.2 };
  g_autofree char *yaml = val_host_profile_yaml(&p, NULL, NULL, &st);
  const ValServerMode modes[] = { VAL_MODE_SENDFILE, VAL_MODE_USERSPACE, VAL_MODE_SENDFILE_KTLS };
  const ValCipher ciphers[] = { VAL_CIPHER_AES128GCM, VAL_CIPHER_AES256GCM, VAL_CIPHER_CHACHA20 };
  const double sizes[] = { 16384, 262144, 1048576, 16777216 };
  const int thr[][3] = { { 1, 1, 8 }, { 2, 2, 16 }, { 2, 1, 8 }, { 1, 2, 2 }, { 1, 1, 1 } };
  const double avail[] = { 2.0, 1.4, 0.7 };
  int n = 0;
  for (int mi = 0; mi < 3; mi++)
    for (int ci = 0; ci < 3; ci++)
      for (int si = 0; si < 4; si++)
        for (int ti = 0; ti < 10; ti++) {
          ValHostConfig c = { .mode = modes[mi],
                              .ktls = mi == 2 && ci == 0,
                              .cipher = ciphers[ci],
                              .server_threads = thr[ti % 5][0],
                              .client_threads = thr[ti % 5][1],
                              .connections = thr[ti % 5][2],
                              .bytes_per_req = sizes[si],
                              .file_bytes = si == 3 ? 4 * sizes[si] : 0,
                              .avail_cores = avail[(mi + si + ti) % 3],
                              .verify_hash = ti == 1 };
          if (ti >= 5) { /* pinned as validate places the threads on 2 CPUs */
            ValPlacement pl;
            val_placement(c.server_threads, c.client_threads, 2, &pl);
            c.pinned = TRUE;
            c.server_cpus = pl.server_cpus;
            c.client_cpus = pl.client_cpus;
            c.cross_share = pl.cross_share;
            if (ti >= 8) { /* another tenant took part of one side's CPU */
              c.server_free_cores = ti == 8 ? 0.55 * pl.server_cpus : 0;
              c.client_free_cores = ti == 9 ? 0.6 * pl.client_cpus : 0;
            }
          }
          ValHostPrediction pr;
          val_predict_host(&p, &c, &pr);
          double g = 0;
          char bn[40];
          g_autoptr(GError) err = NULL;
          ck_assert_msg(val_host_bound_gbps(yaml, &p, &c, &g, bn, &err), "%s", err ? err->message : "");
          ck_assert_msg(fabs(g - pr.gbps) <= 1e-9 * pr.gbps, "config %d: appliance %.9g vs closed form %.9g (%s)", n, g, pr.gbps,
                        bn);
          /* the limiting resource is the same one */
          const char *want = !strcmp(pr.bottleneck, "cpu")      ? "cpu.node0"
                             : !strcmp(pr.bottleneck, "server") ? "loopback.server"
                                                                : "loopback.client";
          ck_assert_msg(!strcmp(bn, want) || fabs(g - pr.gbps) <= 1e-9 * pr.gbps, "%s vs %s", bn, want);
          n++;
        }
  ck_assert_int_eq(n, 360);
}
END_TEST

/* The profile's memory is the best measured bus bandwidth (copy counts reads and writes), or
 * what a measured run pulled through DRAM when that is more: the DRAM node's capacity in the
 * model is that figure (the speed is divided by dram_eff), so it limits no measured run. */
static double dram_capacity_GBps(const char *yaml)
{
  g_autofree char *dir = g_dir_make_tmp("ocasim-profile-XXXXXX", NULL);
  g_autofree char *prof = g_build_filename(dir, "host-profile.yaml", NULL);
  ck_assert(g_file_set_contents(prof, yaml, -1, NULL));
  Appliance a;
  g_autoptr(GError) err = NULL;
  ck_assert_msg(appliance_load_file(prof, NULL, &a, NULL, &err), "%s", err ? err->message : "");
  g_autoptr(DemandModel) m = demand_build(&a, &err);
  ck_assert(m != NULL);
  int r = demand_find(m, "dram.node0");
  ck_assert_int_ge(r, 0);
  g_unlink(prof);
  g_rmdir(dir);
  return m->res[r].capacity * 1e-9;
}

/* The closed form (validate/predict.c), the appliance model's bound and its report name the same
 * bottleneck by the one rule (demand_binding / demand_name_bottleneck) on configurations where
 * each of the CPU, the server pool and the client pool binds. */
START_TEST(test_predict_names_as_the_model)
{
  ValHostProfile p = synthetic();
  ValFitStats st = { .nobs = 40, .npar = 13, .chi2_dof = 1.2 };
  g_autofree char *yaml = val_host_profile_yaml(&p, NULL, NULL, &st);
  const struct {
    ValServerMode mode;
    int s, c, n;
    double avail;
  } cfgs[] = {
    { VAL_MODE_USERSPACE, 2, 2, 16, 0.7 }, { VAL_MODE_USERSPACE, 1, 2, 8, 2.0 }, { VAL_MODE_SENDFILE, 2, 1, 8, 2.0 },
    { VAL_MODE_SENDFILE, 1, 1, 8, 2.0 },   { VAL_MODE_USERSPACE, 1, 1, 8, 2.0 }, { VAL_MODE_SENDFILE_KTLS, 2, 2, 16, 1.4 },
  };
  int seen[3] = { 0, 0, 0 }; /* cpu, server, client */
  for (guint i = 0; i < G_N_ELEMENTS(cfgs); i++) {
    ValHostConfig c = { .mode = cfgs[i].mode,
                        .ktls = cfgs[i].mode == VAL_MODE_SENDFILE_KTLS,
                        .cipher = VAL_CIPHER_AES128GCM,
                        .server_threads = cfgs[i].s,
                        .client_threads = cfgs[i].c,
                        .connections = cfgs[i].n,
                        .bytes_per_req = 1048576,
                        .avail_cores = cfgs[i].avail };
    ValHostPrediction pr;
    val_predict_host(&p, &c, &pr);
    const char *want = !strcmp(pr.bottleneck, "cpu")      ? "cpu.node0"
                       : !strcmp(pr.bottleneck, "server") ? "loopback.server"
                                                          : "loopback.client";
    seen[!strcmp(pr.bottleneck, "cpu") ? 0 : !strcmp(pr.bottleneck, "server") ? 1 : 2]++;
    Appliance a;
    g_autoptr(GError) err = NULL;
    ck_assert_msg(val_host_appliance(yaml, &p, &c, &a, &err), "%s", err ? err->message : "");
    g_autoptr(DemandModel) m = demand_build(&a, &err);
    ck_assert_msg(m != NULL, "%s", err ? err->message : "");
    g_autoptr(BoundResult) b = bound_eval(&a, m, 0);
    g_autoptr(AppReport) rep = report_from_bound(&a, NULL, m, b);
    ck_assert_msg(b->bottleneck >= 0 && !strcmp(m->res[b->bottleneck].name, want), "config %u: bound %s, closed form %s", i,
                  b->bottleneck >= 0 ? m->res[b->bottleneck].name : "-", want);
    ck_assert_int_eq(rep->bottleneck, b->bottleneck);
    ck_assert_int_eq(demand_name_bottleneck(m, b->util, NULL), b->bottleneck);
  }
  ck_assert_msg(seen[0] && seen[1] && seen[2], "binding sides seen: cpu %d, server %d, client %d", seen[0], seen[1], seen[2]);
}
END_TEST

START_TEST(test_profile_memory_capacity)
{
  ValHostProfile p = synthetic();
  ValMicrobench mb = { .dram_threads = 2 };
  mb.dram_read_GBps[0] = 10.4, mb.dram_read_GBps[1] = 10.0;
  mb.dram_write_GBps[0] = 10.3, mb.dram_write_GBps[1] = 8.9;
  mb.dram_copy_GBps[0] = 13.1, mb.dram_copy_GBps[1] = 14.5;
  g_autofree char *y1 = val_host_profile_yaml(&p, NULL, &mb, NULL);
  ck_assert_double_eq_tol(dram_capacity_GBps(y1), 14.5, 1e-4);
  p.dram_shown_GBps = 12.9; /* below the microbenchmark: no change */
  g_autofree char *y2 = val_host_profile_yaml(&p, NULL, &mb, NULL);
  ck_assert_double_eq_tol(dram_capacity_GBps(y2), 14.5, 1e-4);
  p.dram_shown_GBps = 17.25; /* a run pulled more through DRAM than the microbenchmark did */
  g_autofree char *y3 = val_host_profile_yaml(&p, NULL, &mb, NULL);
  ck_assert_double_eq_tol(dram_capacity_GBps(y3), 17.25, 1e-4);
  ck_assert(strstr(y3, "fastest measured run") != NULL);
}
END_TEST

/* Repetitions: cfg->reps are run, contended ones (other tenants' load plus steal above the
 * limit) are replaced while extra_reps last, and the least contended reps are kept, in run order. */
START_TEST(test_measure_reps)
{
  ValMeasureConfig cfg = { .reps = 3, .extra_reps = 2, .foreign_limit = 0.25 };
  ValRunResult r;
  memset(&r, 0, sizeof r);
  r.spec.mode = VAL_MODE_USERSPACE;
  ck_assert(val_measure_needs_rep(&cfg, &r));
  const double gbps[] = { 10.0, 4.0, 11.0, 12.0, 9.0 };
  const double foreign[] = { 0.01, 0.9, 0.02, 0.0, 0.1 };
  const double steal[] = { 0.0, 0.0, 0.0, 0.0, 0.2 }; /* the fifth: 0.1 + 0.2 > 0.25 */
  for (int i = 0; i < 3; i++) r.all[r.attempts++] = (ValRunSample){ .gbps = gbps[i], .foreign_cores = foreign[i] };
  ck_assert(val_measure_contended(&cfg, &r.all[1]) && !val_measure_contended(&cfg, &r.all[0]));
  ck_assert(val_measure_needs_rep(&cfg, &r)); /* one of three contended: a fourth */
  r.all[r.attempts++] = (ValRunSample){ .gbps = gbps[3], .foreign_cores = foreign[3] };
  ck_assert(!val_measure_needs_rep(&cfg, &r)); /* three quiet ones */
  val_measure_finish(&cfg, &r);
  ck_assert_int_eq(r.nrep, 3);
  ck_assert_double_eq(r.rep[0].gbps, 10.0);
  ck_assert_double_eq(r.rep[1].gbps, 11.0);
  ck_assert_double_eq(r.rep[2].gbps, 12.0);
  ck_assert_double_eq(r.median.gbps, 11.0);
  ck_assert_double_eq(r.spread.gbps, 1.0);
  /* steal counts as contention; the budget (3 + 2) ends the replacing */
  memset(&r, 0, sizeof r);
  for (int i = 0; i < 5; i++)
    r.all[r.attempts++] = (ValRunSample){ .gbps = gbps[i], .foreign_cores = foreign[i], .steal_cores = steal[i] };
  ck_assert(val_measure_contended(&cfg, &r.all[4]));
  ck_assert(!val_measure_needs_rep(&cfg, &r));
  r.attempts = 3;
  r.all[2].steal_cores = 0.5;
  ck_assert(val_measure_needs_rep(&cfg, &r)); /* two of three contended */
}
END_TEST

/* Sum over the CPU nodes of the demand per served byte at idle DRAM latency (cycles/B). */
static double cpu_cycles_per_byte(const DemandModel *m)
{
  double s = 0;
  for (int r = 0; r < m->n_res; r++)
    if (m->res[r].kind == RK_CPU) s += m->base_total[r];
  return s;
}

/* One cost-profile format: the `costs:` block validate writes (host-costs.yaml) is included by
 * a lab server's platform file (the Rome 7502P with `platform: host-costs.yaml`), and the demand
 * model charges the profile's cycles. In-kernel TLS on read/write with OpenSSL AES-128-GCM on
 * Zen 2, 2 MiB requests; against the same box without the profile, the CPU cycles per byte
 * differ by hand:
 *   crypto   0.40 - 0.44 (the table's Zen 2 entry)
 *   copy     3 copies x (0.35 - copy_cpb)                        (nginx's, kernel's, user's)
 *   page     (0.30 x 4096 = 1228.8 - page_cycles) / 4096 B       (stack_cpb per 4 KiB page)
 *   request  (20000 - 32100) / 2097152 B                         (workload.request_cycles' default)
 * and segment and interrupt costs, not measured over loopback, stay the model's. */
START_TEST(test_cost_profile_in_appliance)
{
  ValHostProfile p = synthetic();
  g_autofree char *dir = g_dir_make_tmp("ocasim-costs-XXXXXX", NULL);
  ck_assert(dir != NULL);
  g_autofree char *costs = val_host_costs_yaml(&p, "test host, 2026-12-02");
  ck_assert_msg(strstr(costs, "  page_cycles: 1228.8 ") != NULL, "%s", costs);
  ck_assert_msg(strstr(costs, "segment_cycles:") == NULL || strstr(costs, "# segment_cycles") != NULL, "%s", costs);
  g_autofree char *cpath = g_build_filename(dir, "host-costs.yaml", NULL);
  ck_assert(g_file_set_contents(cpath, costs, -1, NULL));
  g_autofree char *rome = NULL;
  ck_assert(g_file_get_contents("scenarios/platforms/rome-7502p.yaml", &rome, NULL, NULL));
  g_autofree char *lab_text = g_strconcat("platform: host-costs.yaml\n", rome, NULL);
  g_autofree char *lab = g_build_filename(dir, "lab.yaml", NULL);
  ck_assert(g_file_set_contents(lab, lab_text, -1, NULL));
  g_autofree char *rome_abs = g_canonicalize_filename("scenarios/platforms/rome-7502p.yaml", NULL);
  const char *body = "kind: appliance\nsoftware: {data_path: read_write_ktls, crypto: openssl_aes_gcm}\n";
  g_autofree char *with_text = g_strconcat("platform: lab.yaml\n", body, NULL);
  g_autofree char *without_text = g_strconcat("platform: ", rome_abs, "\n", body, NULL);
  g_autofree char *with = g_build_filename(dir, "with.yaml", NULL);
  g_autofree char *without = g_build_filename(dir, "without.yaml", NULL);
  ck_assert(g_file_set_contents(with, with_text, -1, NULL));
  ck_assert(g_file_set_contents(without, without_text, -1, NULL));
  Appliance a, b;
  g_autoptr(GError) err = NULL;
  ck_assert_msg(appliance_load_file(with, NULL, &a, NULL, &err), "%s", err ? err->message : "");
  const char *allow[] = { "scenarios/platforms", NULL };
  SimConfIncludePolicy pol = { .search = allow };
  g_autoptr(SimConfDoc) doc = sim_conf_load_with_include_policy(without, "platform", &pol, &err);
  ck_assert_msg(doc != NULL, "%s", err ? err->message : "");
  ck_assert_msg(appliance_from_conf(sim_conf_doc_root(doc), &b, NULL, &err), "%s", err ? err->message : "");
  /* what the loader took from the profile */
  ck_assert_double_eq_tol(a.cpu.crypto_cpb, 0.40, 1e-12);
  ck_assert_double_eq_tol(a.cpu.costs.copy_cpb, 0.35, 1e-12);
  ck_assert_double_eq_tol(a.cpu.costs.page_cycles, 1228.8, 1e-9);
  ck_assert_double_eq_tol(a.wl.request_cycles, 20000, 1e-9);
  ck_assert_double_eq_tol(b.wl.request_cycles, 32100, 1e-9); /* the workload's sourced default (workload.c) */
  ck_assert_int_eq(datapath_copies(DP_READ_WRITE_KTLS), 3);
  /* what the demand model charges: the per-path costs, then the whole CPU demand */
  CpuCosts k;
  cpu_path_costs(&a.cpu, &a.stack, &a.coef, a.path, a.crypto, &k);
  ck_assert_double_eq_tol(k.crypto, 0.40, 1e-12);
  ck_assert_double_eq_tol(k.copy, 3 * 0.35, 1e-12);
  ck_assert_double_eq_tol(k.page, 1228.8 / 4096, 1e-12);
  ck_assert_double_eq_tol(k.segment, a.coef.pkt_cycles / 65536.0, 1e-12); /* TSO 64 KiB, the model's 2800 (coeffs.c) */
  g_autoptr(DemandModel) mb = demand_build(&b, &err);
  ck_assert(mb);
  /* both at one connection count (the user buffer's residency follows it: demand.c's sizing) */
  g_autoptr(DemandModel) ma = demand_build_sized(&a, NULL, mb->sized_Bps, &err);
  ck_assert(ma);
  double want = (0.40 - 0.44) + 3 * (0.35 - b.coef.copy_cpb) + (1228.8 - b.coef.page_cycles) / 4096 +
                (20000.0 - b.wl.request_cycles) / 2097152;
  ck_assert_double_eq_tol(cpu_cycles_per_byte(ma) - cpu_cycles_per_byte(mb), want, 1e-9);
  /* `ocasim explain` splits the same costs out of the same profile */
  g_autoptr(Explain) ex = explain_build(&a, NULL, ma);
  ck_assert_double_eq_tol(ex->cpb[EX_COPY], 3 * 0.35, 1e-9);
  ck_assert_double_eq_tol(ex->cpb[EX_STACK_PAGE], 1228.8 / 4096, 1e-9);
  /* requests: the profile's 20000 against the default 32100 per 2 MiB request (the per-connection
   * and handshake cycles, the same on both, cancel) */
  g_autoptr(Explain) exb = explain_build(&b, NULL, mb);
  ck_assert_double_eq_tol(ex->cpb[EX_REQUESTS] - exb->cpb[EX_REQUESTS], (20000.0 - 32100) / 2097152, 1e-9);
  /* a cost without its source, and a figure given twice, are located errors */
  g_autofree char *bad = g_build_filename(dir, "bad.yaml", NULL);
  g_autofree char *bad_text = g_strconcat("platform: ", rome_abs, "\n", body, "costs:\n  copy_cpb: 0.5\n", NULL);
  ck_assert(g_file_set_contents(bad, bad_text, -1, NULL));
  g_autoptr(SimConfDoc) bd = sim_conf_load_with_include_policy(bad, "platform", &pol, &err);
  ck_assert(bd != NULL);
  ck_assert(!appliance_from_conf(sim_conf_doc_root(bd), &b, NULL, &err));
  ck_assert_msg(strstr(err->message, "costs: costs.source is required") != NULL, "%s", err->message);
  g_clear_error(&err);
  g_autofree char *twice_text = g_strconcat("platform: lab.yaml\n", body, "cpu: {crypto_cpb: 0.5}\n", NULL);
  ck_assert(g_file_set_contents(bad, twice_text, -1, NULL));
  ck_assert(!appliance_load_file(bad, NULL, &b, NULL, &err));
  ck_assert_msg(strstr(err->message, "costs.aes_128_gcm_cpb: cpu.crypto_cpb also prices") != NULL, "%s", err->message);
  const char *files[] = { cpath, lab, with, without, bad };
  for (size_t i = 0; i < G_N_ELEMENTS(files); i++) g_unlink(files[i]);
  g_rmdir(dir);
}
END_TEST

/* The written files load through the appliance loader from disk (platform include), and
 * bound and run (DES) agree at saturation. */
START_TEST(test_profile_files_load)
{
  ValHostProfile p = synthetic();
  g_autofree char *dir = g_dir_make_tmp("ocasim-profile-XXXXXX", NULL);
  ck_assert(dir != NULL);
  g_autofree char *prof = g_build_filename(dir, "host-profile.yaml", NULL);
  g_autofree char *scen = g_build_filename(dir, "host-scenario.yaml", NULL);
  g_autofree char *yaml = val_host_profile_yaml(&p, NULL, NULL, NULL);
  ValHostConfig c = { .mode = VAL_MODE_USERSPACE,
                      .cipher = VAL_CIPHER_CHACHA20,
                      .server_threads = 2,
                      .client_threads = 2,
                      .connections = 16,
                      .bytes_per_req = 262144,
                      .avail_cores = 1.5 };
  g_autofree char *sy = val_host_scenario_yaml(&p, &c, "host-profile.yaml", "test");
  ck_assert(g_file_set_contents(prof, yaml, -1, NULL));
  ck_assert(g_file_set_contents(scen, sy, -1, NULL));
  Appliance a;
  AppScenarioInfo info;
  g_autoptr(GError) err = NULL;
  /* the profile alone is a scenario: the reference test */
  ck_assert_msg(appliance_load_file(prof, NULL, &a, &info, &err), "%s", err ? err->message : "");
  ck_assert(a.lo.present && a.nics[0].kind == NIC_LOOPBACK && a.n_nics == 1);
  ck_assert_int_eq(a.path, DP_READ_WRITE);
  ck_assert_double_eq_tol(a.lo.crypto_cpb[LB_CHACHA20_POLY1305], 0.72, 1e-9);
  ck_assert_double_eq_tol(a.lo.cache_bytes, 786432, 0.5);
  ck_assert_double_eq_tol(a.cpu.clock_hz, 2.6e9, 1e-3);
  app_scenario_info_clear(&info);
  /* the scenario on it */
  ck_assert_msg(appliance_load_file(scen, NULL, &a, &info, &err), "%s", err ? err->message : "");
  ck_assert_int_eq(a.lo.server_threads, 2);
  ck_assert_int_eq(a.lo.cipher, LB_CHACHA20_POLY1305);
  ck_assert_double_eq_tol(a.cpu.cap, 0.75, 1e-6);
  ck_assert_double_eq_tol(a.wl.request_bytes, 262144, 0.5);
  g_autoptr(DemandModel) m = demand_build(&a, &err);
  ck_assert(m != NULL);
  ValHostPrediction pr;
  val_predict_host(&p, &c, &pr);
  ck_assert_double_eq_tol(demand_saturation_Bps(m, NULL) * 8e-9, pr.gbps, 1e-6 * pr.gbps);
  ck_assert_int_ge(demand_find(m, "loopback.server"), 0);
  ck_assert_int_lt(demand_find(m, "nic0.port0"), 0); /* no line rate */
  /* explain's DRAM table says why it has no touches under the model's DRAM bytes (it printed
   * "total of the touches 0.0000" above "demand model 0.5000" without a word) */
  g_autoptr(Explain) ex = explain_build(&a, &info, m);
  ck_assert_int_eq(ex->n_touch, 0);
  ck_assert(ex->dram_model_total > 0);
  g_autoptr(GString) t = g_string_new(NULL);
  explain_write(ex, APP_FMT_TABLE, t);
  ck_assert_msg(strstr(t->str,
                       "  none: a loopback host's DRAM bytes are its measured costs (models/appliance/loopback.h), not split\n"
                       "  by touch\n  total of the touches"),
                "%s", t->str);
  app_scenario_info_clear(&info);
  /* a loopback NIC without costs, and a PCIe NIC without port speed, are located errors */
  g_autofree char *bad = g_build_filename(dir, "bad.yaml", NULL);
  ck_assert(g_file_set_contents(bad,
                                "kind: appliance\ncpu: {uarch: zen2, cores_per_socket: 2, clock: 2 GHz}\n"
                                "memory: {channels_per_socket: 1, speed: 3200 MT/s}\nnvme: [{read: 3 GB/s}]\n"
                                "nics: [{kind: loopback, ports: 1}]\n",
                                -1, NULL));
  g_clear_error(&err);
  ck_assert(!appliance_load_file(bad, NULL, &a, NULL, &err));
  ck_assert_msg(strstr(err->message, "loopback") != NULL, "%s", err->message);
  ck_assert(g_file_set_contents(bad,
                                "kind: appliance\ncpu: {uarch: zen2, cores_per_socket: 2, clock: 2 GHz}\n"
                                "memory: {channels_per_socket: 1, speed: 3200 MT/s}\nnvme: [{read: 3 GB/s}]\n"
                                "nics: [{ports: 1}]\n",
                                -1, NULL));
  g_clear_error(&err);
  ck_assert(!appliance_load_file(bad, NULL, &a, NULL, &err));
  ck_assert_msg(strstr(err->message, "5:8: nics[0]: missing required key 'port_speed'") != NULL, "%s", err->message);
  g_unlink(bad);
  g_unlink(prof);
  g_unlink(scen);
  g_rmdir(dir);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("validate_profile");
  TCase *tc = tcase_create("profile");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_loopback_terms);
  tcase_add_test(tc, test_placement);
  tcase_add_test(tc, test_profile_bound_matches_closed_form);
  tcase_add_test(tc, test_predict_names_as_the_model);
  tcase_add_test(tc, test_profile_files_load);
  tcase_add_test(tc, test_cost_profile_in_appliance);
  tcase_add_test(tc, test_profile_memory_capacity);
  tcase_add_test(tc, test_measure_reps);
  suite_add_tcase(s, tc);
  return test_run_suite(s);
}
