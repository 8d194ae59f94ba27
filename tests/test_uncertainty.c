/* tests/test_uncertainty.c — prediction intervals (models/modes/interval.h) and the
 * `uncertainty:` section (models/appliance/uncertainty.h).
 *
 * - exact: on a box whose throughput is min(f1 A, f2 B) (every drive's read scaled by one
 *   factor f1, every card's TLS engine by f2, each log-normal from a stated range, everything
 *   else far from binding), P(X > x) = P(f1 A > x) P(f2 B > x) = Phi(ln(A/x)/s1) Phi(ln(B/x)/s2)
 *   exactly; the sampled quantiles agree with it within their binomial sampling error;
 * - a platform with a measured costs: profile gets a narrower CPU interval than the same
 *   platform without one (its measurement's +-10 % replaces the fitted stack costs' spread; on
 *   the NIC-kTLS box, whose cycles are the stack's);
 * - same scenario and seed: the same interval, byte for byte (another seed: another one);
 * - the 800G Milan box (milan2022_strict_disk_silo) names, among its top contributors to the
 *   throughput, a value its platform file gives a range for, and among those to the CPU % a value
 *   the file marks assumed; every assumed value is listed with its share of each figure
 *   (assumed_values); the platform's ranges widen its interval;
 * - the bad `uncertainty:` inputs are rows of tests/data/bad-inputs/INDEX (test_bad_inputs).
 */
#include <check.h>
#include "tests/support/check_run.h"
#include "tests/support/ocasim_run.h"
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <string.h>
#include "models/modes/interval.h"
#include "models/appliance/loader.h"
#include "models/appliance/demand.h"

/* Loads @file with @sets into a new appliance and its demand model. */
static Appliance *load(const char *file, const char *const *sets, DemandModel **m)
{
  Appliance *a = g_new0(Appliance, 1);
  g_autoptr(GError) e = NULL;
  ck_assert_msg(appliance_load_file(file, sets, a, NULL, &e), "%s: %s", file, e ? e->message : "");
  *m = demand_build(a, &e);
  ck_assert_msg(*m != NULL, "%s", e ? e->message : "");
  return a;
}

/* The smallest limit_r C_r / D_r over the resources of kind @k (B/s): that kind's own X*. */
static double kind_limit_Bps(const DemandModel *m, ResKind k)
{
  double x = G_MAXDOUBLE;
  for (int r = 0; r < m->n_res; r++)
    if (m->res[r].kind == k && m->total[r] > 0) x = MIN(x, m->res[r].limit * m->res[r].capacity / m->total[r]);
  return x;
}

/* P(X <= x) for X = min(A e^(s1 z1), B e^(s2 z2)), z independent standard normals. */
static double min_cdf(double x, double A, double s1, double B, double s2)
{
  return 1.0 - gsl_cdf_ugaussian_P(log(A / x) / s1) * gsl_cdf_ugaussian_P(log(B / x) / s2);
}

START_TEST(test_two_resource_exact)
{
  /* Rome's NIC-kTLS box with slow drives (1.6 GB/s) and 115 Gb/s TLS engines: drives and engines
   * bind near each other (~225 and ~230 Gb/s); ports (2 x 200 Gb/s a card), PCIe, DRAM and CPU far above */
  const char *sets[] = { "nics[0].port_speed=200 Gb/s", "nics[1].port_speed=200 Gb/s", "nics[0].ktls=115 Gb/s",
                         "nics[1].ktls=115 Gb/s",       "nvme[0].read=1.6 GB/s",       "nvme[1].read=1.6 GB/s",
                         "nvme[2].read=1.6 GB/s",       "nvme[3].read=1.6 GB/s",       NULL };
  DemandModel *m;
  g_autofree Appliance *a = load("scenarios/rome-400g-nic-ktls.yaml", sets, &m);
  double A = kind_limit_Bps(m, RK_NVME) * 8e-9, B = kind_limit_Bps(m, RK_NIC_TLS) * 8e-9;
  double others = G_MAXDOUBLE;
  for (int k = 0; k < RK_COUNT; k++)
    if (k != RK_NVME && k != RK_NIC_TLS) others = MIN(others, kind_limit_Bps(m, (ResKind)k) * 8e-9);
  /* the stated ranges: drives x0.8 .. x1.25, engines x0.85 .. x1/0.85 (symmetric in ln) */
  a->unc.n = 2;
  a->unc.e[0] = (UncEntry){ .param = UNC_NVME_READ, .kind = UNC_ASSUMED, .low = 0.8, .high = 1.25, .source = "test" };
  a->unc.e[1] = (UncEntry){ .param = UNC_NIC_KTLS, .kind = UNC_ASSUMED, .low = 0.85, .high = 1 / 0.85, .source = "test" };
  double s1 = log(1.25) / 1.959963984540054, s2 = -log(0.85) / 1.959963984540054;
  /* everything else binds only where both draws are beyond 2 x 1.96 sigma (P < 1e-8): max(A, B) x 1.25^2 < others */
  ck_assert_msg(MAX(A, B) * 1.25 * 1.25 < others, "A %g B %g others %g", A, B, others);
  ck_assert(fabs(A / B - 1) < 0.1);
  AppIntervalSpec spec;
  interval_spec_default(&spec);
  spec.fitted = spec.fixed = FALSE; /* only the two stated spreads */
  const int draws = 4096;
  AppInterval iv;
  g_autoptr(GError) e = NULL;
  ck_assert_msg(interval_eval(a, m->drive_share, 0, &spec, 0.8, draws, &iv, &e), "%s", e ? e->message : "");
  ck_assert_int_eq(iv.failed, 0);
  /* the sampled 10 % and 90 % quantiles, read through the exact CDF: within 4 binomial standard errors */
  double se = sqrt(0.1 * 0.9 / draws);
  double p_lo = min_cdf(iv.throughput_gbps[0], A, s1, B, s2), p_hi = min_cdf(iv.throughput_gbps[1], A, s1, B, s2);
  ck_assert_msg(fabs(p_lo - 0.1) < 4 * se, "P(X <= %g) = %g, not 0.1", iv.throughput_gbps[0], p_lo);
  ck_assert_msg(fabs(p_hi - 0.9) < 4 * se, "P(X <= %g) = %g, not 0.9", iv.throughput_gbps[1], p_hi);
  /* and the bottleneck's probability: P(f1 A < f2 B) = Phi(ln(B/A) / sqrt(s1^2 + s2^2)) */
  double p_nvme = gsl_cdf_ugaussian_P(log(B / A) / sqrt(s1 * s1 + s2 * s2));
  ck_assert_msg(fabs(iv.bottleneck_prob[RK_NVME] - p_nvme) < 4 * sqrt(p_nvme * (1 - p_nvme) / draws), "nvme %g vs %g",
                iv.bottleneck_prob[RK_NVME], p_nvme);
  ck_assert_double_eq_tol(iv.bottleneck_prob[RK_NVME] + iv.bottleneck_prob[RK_NIC_TLS], 1.0, 1e-12);
  /* the two stated values are the contributors, and nothing else */
  const AppIntervalRank *g = &iv.contrib[APP_IV_GBPS];
  ck_assert_int_eq(g->n_top, 2);
  ck_assert(strcmp(g->top[0].name, "nvme.read") == 0 || strcmp(g->top[0].name, "nics.ktls") == 0);
  ck_assert_str_eq(g->of, "throughput_gbps");
  demand_free(m);
}
END_TEST

/* The CPU % interval's width of rome2022_nic_baseline (NIC kTLS: the CPU's cycles are the stack's,
 * per page, segment, ACK and interrupt) at an offered load below saturation, with @sets. (On a
 * CPU-crypto path the DRAM stalls, k_dram, which `ocasim validate` does not measure, are half the
 * spread, and the fit's k_dram is anti-correlated with copy_cpb and page_cycles: there a profile
 * moves the CPU interval little.) */
static double cpu_width(const char *const *sets)
{
  DemandModel *m;
  g_autofree Appliance *a = load("scenarios/reference/rome2022_nic_baseline.yaml", sets, &m);
  AppIntervalSpec spec;
  interval_spec_default(&spec);
  AppInterval iv;
  g_autoptr(GError) e = NULL;
  ck_assert_msg(interval_eval(a, m->drive_share, 50, &spec, 0.8, APP_INTERVAL_DRAWS, &iv, &e), "%s", e ? e->message : "");
  ck_assert_double_eq_tol(iv.throughput_gbps[0], 50, 1e-6); /* served in full in every draw: the CPU % varies alone */
  /* nothing moves the throughput, so no value is its contributor; the CPU %'s are ranked */
  ck_assert_int_eq(iv.contrib[APP_IV_GBPS].n_top, 0);
  ck_assert_double_eq(iv.contrib[APP_IV_GBPS].model_error_share, 0);
  ck_assert_int_eq(iv.contrib[APP_IV_CPU].n_top, APP_INTERVAL_TOP);
  ck_assert_str_eq(iv.contrib[APP_IV_CPU].of, "cpu_util_pct");
  demand_free(m);
  return iv.cpu_util_pct[1] - iv.cpu_util_pct[0];
}

START_TEST(test_costs_profile_narrower)
{
  /* the profile gives the model's own values (the same point prediction), measured on the host */
  Coeffs c;
  coeffs_defaults(&c);
  g_autofree char *page = g_strdup_printf("costs.page_cycles=%.17g", c.page_cycles);
  g_autofree char *copy = g_strdup_printf("costs.copy_cpb=%.17g", c.copy_cpb);
  g_autofree char *seg = g_strdup_printf("costs.segment_cycles=%.17g", c.pkt_cycles);
  g_autofree char *irq = g_strdup_printf("costs.interrupt_cycles=%.17g", c.irq_cycles);
  const char *with[] = { "workload.offered=50 Gb/s", "costs.source=test host, ocasim validate", page, copy, seg, irq, NULL };
  const char *without[] = { "workload.offered=50 Gb/s", NULL };
  double w0 = cpu_width(without), w1 = cpu_width(with);
  ck_assert_msg(w1 < 0.8 * w0, "CPU interval %.2f points with a measured profile, %.2f without", w1, w0);
  ck_assert(w1 > 0); /* the measurement has its own spread */
}
END_TEST

START_TEST(test_determinism)
{
  const char *f = "scenarios/reference/rome2021_sw_nps1.yaml";
  const char *args1[] = { "bound", "--format", "json", f, NULL };
  const char *args2[] = { "bound", "--format", "json", "--seed", "2", f, NULL };
  g_autofree char *o1 = NULL, *o2 = NULL, *o3 = NULL, *e1 = NULL, *e2 = NULL, *e3 = NULL;
  ck_assert_int_eq(test_run_ocasim(args1, &o1, &e1), 0);
  ck_assert_int_eq(test_run_ocasim(args1, &o2, &e2), 0);
  ck_assert_int_eq(test_run_ocasim(args2, &o3, &e3), 0);
  ck_assert_str_eq(o1, o2);
  const char *i1 = strstr(o1, "\"interval\""), *i3 = strstr(o3, "\"interval\"");
  ck_assert(i1 && i3);
  /* another seed draws other values: the interval's ends move */
  ck_assert(strncmp(i1, i3, 200) != 0);
}
END_TEST

START_TEST(test_milan_contributors)
{
  DemandModel *m;
  g_autofree Appliance *a = load("scenarios/reference/milan2022_strict_disk_silo.yaml", NULL, &m);
  ck_assert_int_gt(a->unc.n, 5); /* the platform file's ranges (milan-7713-2s.yaml) */
  AppIntervalSpec spec;
  interval_spec_default(&spec);
  AppInterval iv, bare;
  g_autoptr(GError) e = NULL;
  ck_assert(interval_eval(a, m->drive_share, a->wl.offered_gbps, &spec, 0.8, APP_INTERVAL_DRAWS, &iv, &e));
  /* by the throughput: a value the platform file gives a range for (NIC bound: its kTLS engines) */
  const AppIntervalRank *g = &iv.contrib[APP_IV_GBPS], *c = &iv.contrib[APP_IV_CPU];
  ck_assert_int_eq(g->n_top, APP_INTERVAL_TOP);
  ck_assert_int_eq(c->n_top, APP_INTERVAL_TOP);
  gboolean named = FALSE;
  for (int t = 0; t < g->n_top; t++)
    for (int k = 0; k < a->unc.n; k++) named = named || strcmp(g->top[t].name, unc_param_names[a->unc.e[k].param]) == 0;
  ck_assert_msg(named, "no value of the Milan platform file among %s, %s, %s", g->top[0].name, g->top[1].name, g->top[2].name);
  /* by the CPU %: a value the platform file marks assumed (the all-core clock under load is not
   * published: cpu.clock x0.95 .. x1.5) */
  const char *assumed = NULL;
  for (int t = 0; t < c->n_top; t++)
    for (int k = 0; k < a->unc.n; k++)
      if (a->unc.e[k].kind == UNC_ASSUMED && strcmp(c->top[t].name, unc_param_names[a->unc.e[k].param]) == 0) {
        ck_assert_str_eq(c->top[t].kind, "assumed");
        assumed = c->top[t].name;
      }
  ck_assert_msg(assumed, "no assumed value of the Milan platform file among the CPU's %s, %s, %s", c->top[0].name, c->top[1].name,
                c->top[2].name);
  /* each contributor's swing holds the point prediction (it is the figure at the range's ends),
   * and a higher clock lowers the CPU % */
  double x = 0, cpu = 0;
  {
    g_autoptr(BoundResult) r = bound_eval_rates(a, m, a->wl.offered_gbps);
    x = r->throughput_Bps * 8e-9;
    cpu = 100 * r->cpu_util;
  }
  for (int t = 0; t < g->n_top; t++) ck_assert(g->top[t].swing[0] <= x * (1 + 1e-9) && g->top[t].swing[1] >= x * (1 - 1e-9));
  for (int t = 0; t < c->n_top; t++)
    ck_assert_msg(MIN(c->top[t].swing[0], c->top[t].swing[1]) <= cpu * (1 + 1e-9) &&
                      MAX(c->top[t].swing[0], c->top[t].swing[1]) >= cpu * (1 - 1e-9),
                  "%s: %g .. %g does not hold %g", c->top[t].name, c->top[t].swing[0], c->top[t].swing[1], cpu);
  for (int t = 0; t < c->n_top; t++)
    if (strcmp(c->top[t].name, "cpu.clock") == 0) ck_assert(c->top[t].swing[1] < c->top[t].swing[0]);
  /* the shares are of one variance: they sum to at most 1 with the model's error (none for the CPU %) */
  double sg = g->model_error_share, sc = c->model_error_share;
  for (int t = 0; t < APP_INTERVAL_TOP; t++) sg += g->top[t].share, sc += c->top[t].share;
  ck_assert(sg <= 1 + 1e-12 && sc <= 1 + 1e-12);
  ck_assert(g->model_error_share > 0);
  ck_assert_double_eq(c->model_error_share, 0);
  /* every value the platform file marks assumed is listed under both figures with its share (the
   * box is NIC bound: they weigh little on the throughput, cpu.clock much on the CPU %), the
   * shares summing to assumed_share, in falling order */
  for (int f = 0; f < APP_IV_FIGURES; f++) {
    const AppIntervalRank *rk = &iv.contrib[f];
    double sum = 0;
    for (int t = 0; t < rk->n_assumed; t++) {
      sum += rk->assumed[t].share;
      if (t) ck_assert(rk->assumed[t].share <= rk->assumed[t - 1].share);
    }
    ck_assert_double_eq_tol(sum, rk->assumed_share, 1e-12);
    for (int k = 0; k < a->unc.n; k++) {
      if (a->unc.e[k].kind != UNC_ASSUMED) continue;
      gboolean listed = FALSE;
      for (int t = 0; t < rk->n_assumed; t++)
        listed = listed || strcmp(rk->assumed[t].name, unc_param_names[a->unc.e[k].param]) == 0;
      ck_assert_msg(listed, "%s: assumed in the platform file, not listed for %s", unc_param_names[a->unc.e[k].param], rk->of);
    }
  }
  ck_assert(c->n_assumed > 0 && strcmp(c->assumed[0].name, "cpu.clock") == 0 && c->assumed[0].share > 0.05);
  ck_assert(g->assumed_share < 0.05);
  /* the platform's ranges widen the interval */
  spec.platform = FALSE;
  ck_assert(interval_eval(a, m->drive_share, a->wl.offered_gbps, &spec, 0.8, APP_INTERVAL_DRAWS, &bare, &e));
  ck_assert(iv.throughput_gbps[1] - iv.throughput_gbps[0] > bare.throughput_gbps[1] - bare.throughput_gbps[0]);
  demand_free(m);
  /* a scenario's own pcie.read_rtt spread replaces the built-in one: listed once, not twice */
  g_autofree Appliance *o = load("tests/data/model/own-rtt-spread.yaml", NULL, &m);
  AppInterval ov;
  spec.platform = TRUE;
  ck_assert(interval_eval(o, m->drive_share, o->wl.offered_gbps, &spec, 0.8, APP_INTERVAL_DRAWS, &ov, &e));
  for (int f = 0; f < APP_IV_FIGURES; f++) {
    int rtt = 0;
    for (int t = 0; t < ov.contrib[f].n_assumed; t++) rtt += strcmp(ov.contrib[f].assumed[t].name, "pcie.read_rtt") == 0;
    ck_assert_int_eq(rtt, 1);
  }
  ck_assert_str_eq(ov.contrib[APP_IV_GBPS].assumed[0].name, "pcie.read_rtt"); /* the tags' Little's law binds */
  demand_free(m);
}
END_TEST

static Suite *suite(void)
{
  Suite *s = suite_create("uncertainty");
  TCase *t = tcase_create("intervals");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, test_two_resource_exact);
  tcase_add_test(t, test_costs_profile_narrower);
  tcase_add_test(t, test_determinism);
  tcase_add_test(t, test_milan_contributors);
  suite_add_tcase(s, t);
  return s;
}

int main(void)
{
  return test_run_suite(suite());
}
