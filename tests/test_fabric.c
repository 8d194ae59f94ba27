/* tests/test_fabric.c — the fabric, memory and PCIe read models held against hand-worked and
 * published figures: the DRAM loaded-latency curve against the published MLC rows, DRAM capacity
 * independent of idle latency, X* monotone in memory latency, the CPU read concurrency cap. */
#include <check.h>
#include "tests/support/check_run.h"
#include <math.h>
#include <glib/gstdio.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <string.h>

#include "models/modes/bound.h"
#include "models/appliance/loader.h"

static Appliance *load(const char *file, const char *const *sets)
{
  Appliance *a = g_new0(Appliance, 1);
  GError *e = NULL;
  ck_assert_msg(appliance_load_file(file, sets, a, NULL, &e), "%s: %s", file, e ? e->message : "");
  return a;
}

static double res_cap(const DemandModel *m, const char *name)
{
  int r = demand_find(m, name);
  ck_assert_msg(r >= 0, "no resource %s", name);
  return m->res[r].capacity;
}

static double res_total(const DemandModel *m, const char *name)
{
  int r = demand_find(m, name);
  ck_assert_msg(r >= 0, "no resource %s", name);
  return m->total[r];
}

/* ---- DRAM ------------------------------------------------------------------------------------ */

START_TEST(test_loaded_latency_mlc_curve)
{
  /* Intel MLC --loaded_latency, 2S Xeon Silver 4110, 12 DDR4 DIMMs, read-only (Intel community
   * forum, "Intel Memory Latency Checker v3.5 test"): (GB/s, ns) rows; peak 135.66 GB/s. The
   * default curve (memory.h) puts a row at u = bandwidth / 135.66 and adds its latency above the
   * 81.96 ns first row, so L0 = 81.96 ns plus the curve gives back every row it keeps exactly.
   * The plateau holds rows of >= 0.95 x 135.66 = 128.88 GB/s: 131.28 (the first, kept) and 135.66
   * (dropped: MLC's own queueing, 130.31 ns). */
  static const double mlc[][2] = { { 1.2376, 81.96 }, { 9.7238, 87.81 },  { 22.581, 90.85 }, { 42.695, 94.56 },
                                   { 68.358, 98.94 }, { 131.28, 123.71 }, { 135.66, 130.31 } };
  MemoryCfg m = { .latency_ns = 81.96 };
  const char *src = NULL;
  mem_curve_default(&m.load, &src);
  ck_assert(strstr(src, "Xeon Silver 4110") != NULL);
  ck_assert_int_eq(m.load.n, 6);
  for (size_t i = 0; i + 1 < G_N_ELEMENTS(mlc); i++) {
    double u = mlc[i][0] / 135.66, l = m.latency_ns + mem_load_ns(&m, u);
    ck_assert_msg(fabs(l - mlc[i][1]) < 1e-9, "%.1f GB/s: model %.3f ns, MLC %.2f ns", mlc[i][0], l, mlc[i][1]);
  }
  /* hand-worked between rows: u = 0.5 lies between 42.695 GB/s (u 0.31472, +12.60 ns) and 68.358
   * (u 0.50389, +16.98): 12.60 + 4.38 x (0.5 - 0.31472) / 0.18917 = 16.8899 ns */
  double u3 = 42.695 / 135.66, u4 = 68.358 / 135.66, u5 = 131.28 / 135.66;
  ck_assert_double_eq_tol(mem_load_ns(&m, 0.5), 12.60 + 4.38 * (0.5 - u3) / (u4 - u3), 1e-9);
  ck_assert_double_eq_tol(mem_load_ns(&m, 0.5), 16.8899, 1e-4);
  /* above the last kept row its segment goes on to u = 1: 41.75 + 24.77 x (1 - u5) / (u5 - u4) =
   * 43.4742 ns; held there past 1; 0 at no load */
  double w1 = 41.75 + 24.77 * (1 - u5) / (u5 - u4);
  ck_assert_double_eq_tol(mem_load_ns(&m, 1.0), w1, 1e-9);
  ck_assert_double_eq_tol(w1, 43.4742, 1e-4);
  ck_assert_double_eq_tol(mem_load_ns(&m, 1.7), w1, 1e-12);
  ck_assert_double_eq_tol(mem_load_ns(&m, -1.0), 0.0, 1e-12);
  /* the dropped plateau row sits 4.8 ns above the curve at its own bandwidth: MLC's queueing */
  ck_assert(mlc[6][1] - (m.latency_ns + mem_load_ns(&m, 1.0)) > 4.0);
  /* non-decreasing over the whole range (the X* root finder needs it) */
  for (int i = 1; i <= 1000; i++) ck_assert(mem_load_ns(&m, i / 1000.0) >= mem_load_ns(&m, (i - 1) / 1000.0));
  /* the demand model's wait on a DRAM node (memory's hook) is the same curve; none without a hook */
  DmResource r = { .wait_curve = m.load };
  ck_assert_double_eq(demand_wait_ns(&r, 0.62), 0.0);
  r.wait_ns = mem_wait_ns;
  ck_assert_double_eq_tol(demand_wait_ns(&r, 0.62), mem_load_ns(&m, 0.62), 1e-12);
  /* a line (memory.load_latency) is the curve through (0, 0) and (1, 45 ns) */
  mem_curve_line(&r.wait_curve, 45.0);
  ck_assert_double_eq_tol(demand_wait_ns(&r, 0.62), 45.0 * 0.62, 1e-12);
}
END_TEST

/* A curve built from rows by hand, and the rows it refuses: each error names the row. */
START_TEST(test_curve_from_rows)
{
  /* 4 rows of a 100 GB/s peak: u = 0.1, 0.5, 0.97 (plateau: the first kept), 1.0 (dropped) */
  const double bw[] = { 10, 50, 97, 100 }, ns[] = { 80, 90, 120, 160 };
  MemCurve c;
  const char *why = NULL;
  int kept = 0;
  ck_assert_int_eq(mem_curve_from_points(bw, ns, 4, 0, &c, &kept, &why), -1);
  ck_assert_int_eq(kept, 3);
  ck_assert_double_eq_tol(mem_curve_ns(&c, 0.3), 5.0, 1e-12);                   /* halfway 0.1 -> 0.5 */
  ck_assert_double_eq_tol(mem_curve_ns(&c, 1.0), 40 + 30 * 0.03 / 0.47, 1e-12); /* extended */
  /* a capacity above the rows: u = bandwidth / 200, nothing on the plateau but the top row */
  ck_assert_int_eq(mem_curve_from_points(bw, ns, 4, 200, &c, &kept, &why), -1);
  ck_assert_double_eq_tol(c.u[1], 0.25, 1e-12);
  ck_assert_double_eq_tol(mem_curve_ns(&c, 0.25), 10.0, 1e-12);
  /* refused rows */
  const double down_bw[] = { 10, 8, 100 }, off_bw[] = { 10, 50, 40 }, up_ns[] = { 80, 90, 100 };
  ck_assert_int_eq(mem_curve_from_points(down_bw, up_ns, 3, 0, &c, NULL, &why), 1);
  ck_assert(strstr(why, "bandwidth does not rise") != NULL);
  ck_assert_int_eq(mem_curve_from_points(off_bw, up_ns, 3, 0, &c, NULL, &why), 2);
  ck_assert(strstr(why, "falls off the curve's plateau") != NULL);
  const double fall_ns[] = { 80, 70, 100 };
  ck_assert_int_eq(mem_curve_from_points(bw, fall_ns, 3, 0, &c, NULL, &why), 1);
  ck_assert(strstr(why, "latency falls") != NULL);
  ck_assert_int_eq(mem_curve_from_points(bw, ns, 4, 60, &c, NULL, &why), 2);
  ck_assert(strstr(why, "above the curve's capacity") != NULL);
  const double flat_bw[] = { 99, 100 };
  ck_assert_int_eq(mem_curve_from_points(flat_bw, ns, 2, 0, &c, NULL, &why), 0);
  ck_assert(strstr(why, "fewer than 2") != NULL && c.n == 0);
}
END_TEST

/* memory.loaded_latency in a file: a measured curve is used, and bad rows get located errors. */
START_TEST(test_curve_in_file)
{
  g_autoptr(GError) e = NULL;
  g_autofree char *cwd = g_get_current_dir();
  g_autofree char *tmp = g_dir_make_tmp("ocasim-curve-XXXXXX", &e);
  ck_assert_msg(tmp != NULL, "%s", e ? e->message : "");
  g_autofree char *path = g_build_filename(tmp, "curve.yaml", NULL);
  g_autofree char *head = g_strdup_printf("kind: appliance\nplatform: %s/scenarios/platforms/skx-4216-2s.yaml\n"
                                          "software:\n  data_path: sendfile_sw_ktls\n"
                                          "memory:\n  loaded_latency:\n    source: hand-made\n    points:\n"
                                          "      - {bandwidth: 10 GB/s, latency: 80 ns}\n",
                                          cwd);
  g_autofree char *good = g_strconcat(head, "      - {bandwidth: 100 GB/s, latency: 120 ns}\n", NULL);
  g_autofree char *bad = g_strconcat(head, "      - {bandwidth: 100 GB/s, latency: 70 ns}\n", NULL);
  Appliance *a = g_new0(Appliance, 1);
  /* a measured curve is used: u = 10/100 .. 1, +40 ns over the rise, so +20 ns at u = 0.55 */
  ck_assert(g_file_set_contents(path, good, -1, &e));
  ck_assert_msg(appliance_load_file(path, NULL, a, NULL, &e), "%s", e ? e->message : "");
  ck_assert_int_eq(a->mem.load.n, 2);
  ck_assert_double_eq_tol(mem_load_ns(&a->mem, 0.55), 20.0, 1e-9);
  ck_assert_str_eq(a->mem.load_source, "hand-made");
  /* the scenario's rows replace the platform file's curve whole: neither its capacity (226.6 GB/s)
   * nor its source is kept, hence u = 10/100 .. 1 above */
  ck_assert_double_eq_tol(a->mem.load.u[0], 0.1, 1e-12);
  /* a line set on top (--set) replaces the file's curve: +45 ns at u = 1, +22.5 at 0.5 */
  const char *line[] = { "memory.load_latency=45 ns", NULL };
  memset(a, 0, sizeof *a);
  ck_assert_msg(appliance_load_file(path, line, a, NULL, &e), "%s", e ? e->message : "");
  ck_assert_double_eq_tol(mem_load_ns(&a->mem, 0.5), 22.5, 1e-9);
  ck_assert_str_eq(a->mem.load_source, "memory.load_latency (a line)");
  /* both keys in one file: refused */
  g_autofree char *both = g_strconcat(good, "  load_latency: 45 ns\n", NULL);
  ck_assert(g_file_set_contents(path, both, -1, &e));
  memset(a, 0, sizeof *a);
  ck_assert(!appliance_load_file(path, NULL, a, NULL, &e));
  ck_assert_msg(strstr(e->message, "not both") != NULL, "%s", e->message);
  g_clear_error(&e);
  /* rows without their own source over the platform's curve: its source is not theirs */
  g_autofree char *nosrc = g_strdup_printf("kind: appliance\nplatform: %s/scenarios/platforms/skx-4216-2s.yaml\n"
                                           "software:\n  data_path: sendfile_sw_ktls\n"
                                           "memory:\n  loaded_latency:\n    points:\n"
                                           "      - {bandwidth: 10 GB/s, latency: 80 ns}\n"
                                           "      - {bandwidth: 100 GB/s, latency: 120 ns}\n",
                                           cwd);
  ck_assert(g_file_set_contents(path, nosrc, -1, &e));
  memset(a, 0, sizeof *a);
  ck_assert(!appliance_load_file(path, NULL, a, NULL, &e));
  ck_assert_msg(strstr(e->message, "memory.loaded_latency.source") && strstr(e->message, "needs its source"), "%s", e->message);
  g_clear_error(&e);
  /* a row whose latency falls: a located error at that row */
  ck_assert(g_file_set_contents(path, bad, -1, &e));
  memset(a, 0, sizeof *a);
  ck_assert(!appliance_load_file(path, NULL, a, NULL, &e));
  ck_assert_msg(strstr(e->message, "memory.loaded_latency.points[1]: latency falls") && strstr(e->message, "curve.yaml:"), "%s",
                e->message);
  g_unlink(path);
  g_rmdir(tmp);
  g_free(a);
}
END_TEST

/* Least-squares t of eff(w) = 1 - t 4 w (1 - w) through MLC's 3:1, 2:1 and 1:1 reads-writes
 * bandwidths as fractions of all reads (coeffs.c): the slope through the origin (gsl_fit_mul) of
 * the loss 1 - mix / all reads against 4 w (1 - w). */
static double turnaround_of(const double mlc[4])
{
  const double x[3] = { 4 * 0.25 * 0.75, 4.0 / 3 * 2.0 / 3, 1.0 };
  double y[3], t, cov, sumsq;
  for (int i = 0; i < 3; i++) y[i] = 1 - mlc[i + 1] / mlc[0];
  ck_assert_int_eq(gsl_fit_mul(x, 1, y, 1, 3, &t, &cov, &sumsq), GSL_SUCCESS);
  return t;
}

/* The read/write turnaround coefficients against the MLC figures coeffs.c cites (all reads, 3:1,
 * 2:1, 1:1; MB/s): the DDR4 coefficient is the median of the seven servers, the DDR5 one the
 * Xeon 6980P's, and each platform file that gives its own figure carries its machine's. */
START_TEST(test_turnaround_sources)
{
  static const double ddr4[][4] = {
    { 181.2, 172.5, 172.2, 174.1 },             /* CNCF CNF testbed (GB/s) */
    { 225630.8, 208349.9, 206510.3, 200031.8 }, /* 2x Gold 6240, Cascade Lake */
    { 211194.2, 193422.0, 192554.0, 185556.1 }, /* 2x Gold 6140, Skylake-SP */
    { 122130.1, 112893.9, 110465.2, 99124.2 },  /* 2x E5-2680 v3, Haswell-EP */
    { 351762.1, 313084.7, 297154.4, 291841.4 }, /* 2x Platinum 8360Y, Ice Lake-SP */
    { 144906.6, 130347.1, 126626.7, 114846.3 }, /* 2x E5-2680 v4, Broadwell-EP */
    { 221550.1, 191572.6, 188084.9, 181321.7 }, /* 2x Gold 6132, Skylake-SP */
  };
  static const double ddr5_6980p[4] = { 1108235.0, 972151.5, 940099.8, 928269.2 };
  double t[G_N_ELEMENTS(ddr4)];
  for (size_t i = 0; i < G_N_ELEMENTS(ddr4); i++) t[i] = turnaround_of(ddr4[i]);
  /* by hand, the Cascade Lake row: 1 - ratio = 0.0766, 0.0847, 0.1135 at x = 0.75, 0.8889, 1:
   * (0.0574 + 0.0753 + 0.1135) / (0.5625 + 0.7901 + 1) = 0.1047 */
  ck_assert_double_eq_tol(t[1], 0.1047, 5e-4);
  gsl_sort(t, 1, G_N_ELEMENTS(t));
  Coeffs c;
  coeffs_defaults(&c);
  ck_assert_double_eq_tol(c.dram_turnaround, gsl_stats_median_from_sorted_data(t, 1, G_N_ELEMENTS(t)), 5e-4);
  ck_assert_double_eq_tol(c.dram_turnaround_ddr5, turnaround_of(ddr5_6980p), 5e-4);
  /* the platform files' own figures; the others fall back on their generation's */
  static const struct {
    const char *scenario;
    int row;
  } own[] = { { "scenarios/reference/skx2019_no_silo.yaml", 1 },
              { "scenarios/reference/bdw2016_sw_ktls.yaml", 5 },
              { "scenarios/icx-8352v-sw-ktls.yaml", 4 } };
  for (size_t i = 0; i < G_N_ELEMENTS(own); i++) {
    Appliance *a = load(own[i].scenario, NULL);
    ck_assert_double_eq_tol(mem_turnaround(&a->mem, &a->coef), turnaround_of(ddr4[own[i].row]), 5e-4);
    g_free(a);
  }
  Appliance *r = load("scenarios/reference/rome2021_sw_nps1.yaml", NULL), *g = load("scenarios/genoa-400gbe-sw-ktls.yaml", NULL);
  ck_assert_double_eq(mem_turnaround(&r->mem, &r->coef), r->coef.dram_turnaround);
  ck_assert_double_eq(mem_turnaround(&g->mem, &g->coef), g->coef.dram_turnaround_ddr5);
  g_free(r);
  g_free(g);
}
END_TEST

/* Why the curve is the platform's: in utilisation units the two measured curves of one memory
 * controller generation agree (Skylake-SP Silver 4110, the default, and Cascade Lake Gold 6240,
 * skx-4216-2s's: within 5 ns up to u = 0.8), another generation's does not (Ice Lake 8360Y,
 * icx-8352v's, over 20 ns above at u = 0.8: by hand 18.33 + 44.24 x 0.3064 / 0.3510 = 56.9 ns
 * against the default's 32.8). */
START_TEST(test_curve_per_generation)
{
  MemoryCfg def = { .latency_ns = 82 };
  mem_curve_default(&def.load, NULL);
  Appliance *clx = load("scenarios/reference/skx2019_no_silo.yaml", NULL), *icx = load("scenarios/icx-8352v-sw-ktls.yaml", NULL);
  ck_assert(strstr(clx->mem.load_source, "Gold 6240") && strstr(icx->mem.load_source, "8360Y"));
  for (double u = 0; u <= 0.8 + 1e-9; u += 0.05) {
    double d = mem_load_ns(&clx->mem, u) - mem_load_ns(&def, u);
    ck_assert_msg(fabs(d) < 5.0, "u %.2f: Cascade Lake %+.2f ns from Skylake-SP", u, d);
  }
  ck_assert_double_eq_tol(mem_load_ns(&icx->mem, 0.8), 56.9, 0.05);
  ck_assert_double_eq_tol(mem_load_ns(&def, 0.8), 32.8, 0.05);
  g_free(clx);
  g_free(icx);
}
END_TEST

START_TEST(test_dram_capacity_not_latency)
{
  /* Rome NPS1: the controllers deliver the same bandwidth whatever the idle latency (the old
   * quadrant-interleave derate made it grow from 135 to 154 GB/s as latency went 60 -> 150 ns) */
  const char *lo[] = { "topology.nps=1", "memory.latency=60 ns", NULL };
  const char *hi[] = { "topology.nps=1", "memory.latency=150 ns", NULL };
  Appliance *a = load("scenarios/reference/rome2021_sw_nps4.yaml", lo);
  Appliance *b = load("scenarios/reference/rome2021_sw_nps4.yaml", hi);
  g_autoptr(DemandModel) ma = demand_build(a, NULL);
  g_autoptr(DemandModel) mb = demand_build(b, NULL);
  ck_assert_double_eq_tol(res_cap(ma, "dram.node0"), res_cap(mb, "dram.node0"), 1e-6);
  /* peak x efficiency at the node's mix: 204.8 GB/s x dram_eff x (1 - t 4 w (1 - w)) */
  int d = demand_find(ma, "dram.node0");
  double w = ma->res[d].wr / (ma->res[d].rd + ma->res[d].wr);
  double eff = a->coef.dram_eff * (1 - a->coef.dram_turnaround * 4 * w * (1 - w));
  ck_assert_double_eq_tol(res_cap(ma, "dram.node0"), 204.8e9 * eff, 1e3);
  /* but the cores' read concurrency falls: 32 cores x mlp lines, each held 150 ns longer */
  ck_assert_double_eq_tol(res_cap(ma, "cpu_lines.node0"), 32 * a->mem.mlp, 1e-9);
  ck_assert(res_total(mb, "cpu_lines.node0") > res_total(ma, "cpu_lines.node0") * 1.5);
  g_free(a);
  g_free(b);
}
END_TEST

START_TEST(test_xstar_monotone_in_latency)
{
  /* X* never rises as memory.latency grows, on every DRAM- and CPU-sensitive published row */
  static const char *const files[] = { "scenarios/reference/rome2021_sw_nps4.yaml", "scenarios/reference/rome2021_sw_nps1.yaml",
                                       "scenarios/reference/rome2022_userspace_tls.yaml",
                                       "scenarios/reference/skx2019_no_silo.yaml", "scenarios/reference/epyc2019_no_silo.yaml" };
  for (size_t f = 0; f < G_N_ELEMENTS(files); f++) {
    double prev = G_MAXDOUBLE;
    for (int ns = 50; ns <= 200; ns += 10) {
      g_autofree char *set = g_strdup_printf("memory.latency=%d ns", ns);
      const char *sets[] = { set, NULL };
      Appliance *a = load(files[f], sets);
      g_autoptr(DemandModel) m = demand_build(a, NULL);
      double x = demand_saturation_Bps(m, NULL);
      ck_assert_msg(x <= prev * (1 + 1e-9), "%s: X* %.4g at %d ns above %.4g", files[f], x, ns, prev);
      prev = x;
      g_free(a);
    }
  }
}
END_TEST

START_TEST(test_stream_concurrency)
{
  /* STREAM triad on Rome, hand-worked: per node the reads (2/3 of B) meet the cores' cap,
   * (2/3) B (L + W(B / C)) = cores mlp 64, or the controllers' C at the 1:2 write mix, whichever
   * is smaller. NPS1: L = 90 + 3/4 x 20 = 105 ns; NPS4: L = 90 ns, a quarter of the cores and of
   * C. On the curve's segment i, W(u) = w_i + s_i (u - u_i), so B (L + w_i + s_i (B / C - u_i)) =
   * N is a quadratic in B: its root inside the segment is the answer (independent of the Brent
   * root finder the model uses). */
  const char *nps1[] = { "topology.nps=1", NULL };
  Appliance *a1 = load("scenarios/reference/rome2021_sw_nps4.yaml", nps1);
  Appliance *a4 = load("scenarios/reference/rome2021_sw_nps4.yaml", NULL);
  const Coeffs *c = &a4->coef;
  const MemCurve *w = &a4->mem.load;
  ck_assert_int_ge(w->n, 2);
  for (int nps = 1; nps <= 4; nps += 3) {
    const Appliance *a = nps == 1 ? a1 : a4;
    double C = 204.8 / nps * c->dram_eff * (1 - c->dram_turnaround * 4 * (1.0 / 3) * (2.0 / 3));
    double L = nps == 1 ? 105.0 : 90.0, N = 32.0 / nps * a->mem.mlp * 64 * 1.5, B = C;
    for (int i = 0; i < w->n; i++) { /* segment i: from u_i to u_{i+1} (the last one to u = 1) */
      int j = i + 1 < w->n ? i + 1 : i, k = j > 0 ? j - 1 : 0;
      double s = w->u[j] > w->u[k] ? (w->ns[j] - w->ns[k]) / (w->u[j] - w->u[k]) : 0;
      double lo = w->u[i], hi = i + 1 < w->n ? w->u[i + 1] : 1.0;
      double q = s / C, l = L + w->ns[i] - s * lo; /* q B^2 + l B - N = 0 */
      double b = q > 0 ? (-l + sqrt(l * l + 4 * q * N)) / (2 * q) : N / l;
      if (b >= lo * C && b <= hi * C) B = b;
    }
    double want = nps * MIN(B, C);
    ck_assert_double_eq_tol(mem_stream_GBps(&a->mem, &a->topo, c->dram_eff, c->dram_turnaround), want, 1e-9 * want);
    /* the same cap, read back through Little's law */
    if (B < C)
      ck_assert_double_eq_tol(mem_cpu_read_cap_GBps(&a->mem, &a->topo, L + mem_load_ns(&a->mem, B / C)), B * 2.0 / 3.0, 1e-9);
  }
  /* a longer latency lowers STREAM in NPS1 (concurrency), never the controllers */
  ck_assert(mem_stream_GBps(&a1->mem, &a1->topo, c->dram_eff, c->dram_turnaround) <
            mem_stream_GBps(&a4->mem, &a4->topo, c->dram_eff, c->dram_turnaround));
  g_free(a1);
  g_free(a4);
}
END_TEST

/* ---- inter-socket links --------------------------------------------------------------------- */

START_TEST(test_link_load_follows_quadrant_map)
{
  /* 800G Milan box, device-routed (by_kind on xgmi): per socket 4 drives on quadrant 3 (the
   * R7525's quadrant with NVMe lanes and no link: its DMA takes link 0, quadrant mod links), 4 on
   * quadrant 1 (link 1: the platform's 2 there and the 2 of quadrant 2 moved over), none on
   * quadrant 2 (link 2). The remote disk writes then split 4 : 4 : 0 over the links; what link 2
   * carries is the address-interleaved CPU traffic (metadata), the same on every link. */
  const char *sets[] = { "nvme[2].quadrant=1", "nvme[5].quadrant=1", NULL };
  Appliance *a = load("scenarios/reference/milan2022_default_bios.yaml", sets);
  g_autoptr(DemandModel) m = demand_build(a, NULL);
  for (int d = 0; d < 2; d++) {
    char n0[40], n1[40], n2[40];
    g_snprintf(n0, sizeof n0, "xgmi.link0.s%d>s%d", d, 1 - d);
    g_snprintf(n1, sizeof n1, "xgmi.link1.s%d>s%d", d, 1 - d);
    g_snprintf(n2, sizeof n2, "xgmi.link2.s%d>s%d", d, 1 - d);
    double l0 = res_total(m, n0), l1 = res_total(m, n1), l2 = res_total(m, n2);
    ck_assert_msg(l0 > l2 && l1 > l2, "%g %g %g", l0, l1, l2);
    ck_assert_double_eq_tol((l1 - l2) / (l0 - l2), 1.0, 1e-9);
    /* network-centric siloing over 2 sockets: half the disk writes are remote, a quarter of the
     * load per direction; the drives' share is by content (8 drives per socket alike) */
    ck_assert_double_eq_tol((l0 - l2) + (l1 - l2), 0.25, 0.01);
  }
  /* the same box address-interleaved: every link alike */
  const char *il[] = { "nvme[2].quadrant=1", "nvme[5].quadrant=1", "topology.link_routing=interleave", NULL };
  Appliance *b = load("scenarios/reference/milan2022_default_bios.yaml", il);
  g_autoptr(DemandModel) mb = demand_build(b, NULL);
  ck_assert_double_eq_tol(res_total(mb, "xgmi.link0.s0>s1"), res_total(mb, "xgmi.link2.s0>s1"), 1e-12);
  /* Intel UPI follows its routing table (by address) under by_kind */
  Appliance *c = load("scenarios/reference/skx2019_no_silo.yaml", NULL);
  g_autoptr(DemandModel) mc = demand_build(c, NULL);
  ck_assert_double_eq_tol(res_total(mc, "upi.link0.s0>s1"), res_total(mc, "upi.link1.s0>s1"), 1e-12);
  g_free(a);
  g_free(b);
  g_free(c);
}
END_TEST

START_TEST(test_dlwm_width_state)
{
  /* x16 at 18 GT/s = 36 GB/s raw; widths 2, 4, 8, 16 carry 4.5, 9, 18, 36 GB/s. Up at 50 %, down
   * at 25 % of the narrower width, fabric efficiency 1. */
  TopoLink l = { .width = 16, .rate_tps = 18e9, .encoding = 1, .dlwm = true, .dlwm_width = 2, .dlwm_up = 0.5, .dlwm_down = 0.25 };
  ck_assert_double_eq_tol(topo_link_width_GBps(&l, 2), 4.5, 1e-12);
  ck_assert_int_eq(topo_dlwm_width(&l, 1.0, 1.0, 0), 2);   /* 1 GB/s: 22 % of x2 */
  ck_assert_int_eq(topo_dlwm_width(&l, 1.0, 3.0, 0), 4);   /* 67 % of x2 -> x4 (33 %) */
  ck_assert_int_eq(topo_dlwm_width(&l, 1.0, 8.0, 0), 8);   /* 89 % of x4 -> x8 (44 %) */
  ck_assert_int_eq(topo_dlwm_width(&l, 1.0, 10.0, 0), 16); /* 56 % of x8 -> x16 */
  ck_assert_int_eq(topo_dlwm_width(&l, 1.0, 20.0, 0), 16); /* sustained saturating traffic: full width */
  /* hysteresis: from x8, 3 GB/s is above 25 % of x4 (2.25 GB/s): it stays at x8, where a rising
   * load would have settled at x4; 2 GB/s narrows to x4 and stays (above 25 % of x2, 1.125) */
  ck_assert_int_eq(topo_dlwm_width(&l, 1.0, 3.0, 8), 8);
  ck_assert_int_eq(topo_dlwm_width(&l, 1.0, 2.0, 8), 4);
  /* the wait a remote line sees on that link (demand_wait_ns), line time t = 1 ns at x16: at
   * rho = 0.05 of x16 (1.8 GB/s, 40 % of x2) the link stays x2, f = 8: 8 x 0.4 / 0.6 = 5.333 ns,
   * against 0.05 / 0.95 = 0.0526 ns at x16; at rho 0.1 (80 % of x2) it is x4, f = 4: 4 x 0.4 /
   * 0.6 = 2.667 ns; at 0.6 it is x16, the same wait as without DLWM, 0.6 / 0.4 = 1.5 ns */
  DmResource r = { .wait_mm1_ns = 1.0, .dlwm = l, .wait_ns = topo_link_wait_ns };
  ck_assert_double_eq_tol(demand_wait_ns(&r, 0.05), 8 * 0.4 / 0.6, 1e-12);
  ck_assert_double_eq_tol(demand_wait_ns(&r, 0.1), 4 * 0.4 / 0.6, 1e-12);
  ck_assert_double_eq_tol(demand_wait_ns(&r, 0.6), 1.5, 1e-12);
  r.dlwm.dlwm = false;
  ck_assert_double_eq_tol(demand_wait_ns(&r, 0.05), 0.05 / 0.95, 1e-12);
  l.dlwm = false;
  ck_assert_int_eq(topo_dlwm_width(&l, 1.0, 0.1, 0), 16);
}
END_TEST

/* ---- PCIe reads ------------------------------------------------------------------------------ */

START_TEST(test_tag_limited_reads_by_hand)
{
  /* Broadwell box, NIC kTLS (one Chelsio T6 port, one requester function), with 5-bit tags
   * (32), MRRS 128 B, 4 context reads per 16 KiB TLS record and the default 1 WQE read per
   * 64 KiB TSO burst, at idle DRAM latency (load_latency 0). Each read holds a tag for
   * rtt + L = 600 + 85 = 685 ns; per payload byte the card issues 1/128 + 1/65536 + 4/16384 =
   * 0.0080719 reads, so R = 32 / (685 ns x 0.0080719) = 5.787 GB/s = 46.30 Gb/s. */
  const char *sets[] = { "nics[0].pcie.tag_bits=5", "nics[0].pcie.mrrs=128 B", "nics[0].pcie.ctx_reads=4",
                         "memory.load_latency=0 ns", NULL };
  Appliance *a = load("scenarios/reference/bdw2016_nic_ktls.yaml", sets);
  ck_assert_double_eq_tol(cpu_burst_bytes(&a->stack), 65536, 1e-9);
  double per_byte = 1.0 / 128 + 1.0 / 65536 + 4.0 / 16384, hand = 32.0 / (685.0 * per_byte);
  ck_assert_double_eq_tol(hand, 5.7874, 1e-4);
  ck_assert_double_eq_tol(pcie_function_read_GBps(&a->nics[0].link, 85.0, 65536, 16384), hand, 1e-9);
  g_autoptr(DemandModel) m = demand_build(a, NULL);
  int bn = -1;
  double x = demand_saturation_Bps(m, &bn);
  ck_assert_str_eq(m->res[bn].name, "pcie.nic0.tags");
  ck_assert_double_eq_tol(x * 1e-9, hand, 1e-6 * hand);
  /* without the non-payload reads the same tags carry 32 x 128 / 685 = 5.980 GB/s */
  ck_assert_double_eq_tol(pcie_read_ceiling_GBps(32, 128, 685), 5.9796, 1e-4);
  g_free(a);
}
END_TEST

START_TEST(test_tags_per_function)
{
  /* a dual-port ConnectX exposes one function per port: two tag spaces of 256, each port's reads
   * in its own; the same card as one function has half the tag capacity for both ports */
  Appliance *a = load("scenarios/reference/rome2021_nic_nps4.yaml", NULL);
  const char *one[] = { "nics[0].pcie.functions=1", "nics[1].pcie.functions=1", NULL };
  Appliance *b = load("scenarios/reference/rome2021_nic_nps4.yaml", one);
  g_autoptr(DemandModel) ma = demand_build(a, NULL);
  g_autoptr(DemandModel) mb = demand_build(b, NULL);
  ck_assert_double_eq_tol(res_cap(ma, "pcie.nic0.f0.tags"), 256, 1e-12);
  ck_assert_double_eq_tol(res_cap(ma, "pcie.nic0.f1.tags"), 256, 1e-12);
  ck_assert_double_eq_tol(res_total(ma, "pcie.nic0.f0.tags") + res_total(ma, "pcie.nic0.f1.tags"),
                          res_total(mb, "pcie.nic0.tags"), 1e-15);
  g_free(a);
  g_free(b);
}
END_TEST

/* ---- NIC rings ------------------------------------------------------------------------------- */

START_TEST(test_ring_drops_below_line_rate)
{
  /* a 1024-descriptor ring, 64 KiB bursts of 4 KiB pages: 16 + 1 descriptors a burst, K = 60.2
   * bursts (the 16 MiB queue alone would hold 256); M/M/1/K at 95 % load drops
   * 0.05 x 0.95^60.2 / (1 - 0.95^61.2) = 0.238 % of the bytes, at 80 % about 1e-7 */
  NicCard n = { .queue_bytes = 16 << 20, .ring = 1024, .desc_bytes = 4096 };
  double K = nic_port_queue_bursts(&n, 65536);
  ck_assert_double_eq_tol(K, 1024.0 / 17.0, 1e-12);
  double hand = 0.05 * pow(0.95, K) / (1 - pow(0.95, K + 1));
  ck_assert_double_eq_tol(nic_port_drop_fraction(0.95, K), hand, 1e-15);
  ck_assert_double_eq_tol(hand, 0.00238, 1e-5);
  ck_assert(nic_port_drop_fraction(0.80, K) < 1e-6);
  /* no ring: the queue's bytes decide, as before */
  n.ring = 0;
  ck_assert_double_eq_tol(nic_port_queue_bursts(&n, 65536), 256, 1e-12);
  ck_assert(nic_port_drop_fraction(0.95, 256) < 1e-6);
}
END_TEST

static Suite *suite(void)
{
  Suite *s = suite_create("fabric");
  TCase *t = tcase_create("dram");
  tcase_set_timeout(t, 60);
  tcase_add_test(t, test_loaded_latency_mlc_curve);
  tcase_add_test(t, test_curve_from_rows);
  tcase_add_test(t, test_curve_in_file);
  tcase_add_test(t, test_turnaround_sources);
  tcase_add_test(t, test_curve_per_generation);
  tcase_add_test(t, test_dram_capacity_not_latency);
  tcase_add_test(t, test_xstar_monotone_in_latency);
  tcase_add_test(t, test_stream_concurrency);
  suite_add_tcase(s, t);
  t = tcase_create("links");
  tcase_set_timeout(t, 60);
  tcase_add_test(t, test_link_load_follows_quadrant_map);
  tcase_add_test(t, test_dlwm_width_state);
  suite_add_tcase(s, t);
  t = tcase_create("pcie");
  tcase_add_test(t, test_tag_limited_reads_by_hand);
  tcase_add_test(t, test_tags_per_function);
  suite_add_tcase(s, t);
  t = tcase_create("nic");
  tcase_add_test(t, test_ring_drops_below_line_rate);
  suite_add_tcase(s, t);
  return s;
}

int main(void)
{
  return test_run_suite(suite());
}
