/* tests/test_stats.c — statistics (tally, level, rate), batch means and their
 * coverage, quantiles, histograms with under/overflow, distributions and Zipf. */
#include <check.h>
#include "tests/support/check_run.h"
#include <math.h>
#include <string.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include "sim/dist.h"
#include "sim/rng.h"
#include "sim/stats.h"

START_TEST(test_level_time_average)
{
  /* level 2 on [0,10), 5 on [10,40): mean over 40 ns = (20 + 150) / 40 = 4.25 */
  g_autoptr(SimStats) set = sim_stats_new();
  SimStat *l = sim_stats_add(set, "l", SIM_STAT_LEVEL);
  sim_stat_set_level(l, 0, 2);
  sim_stat_set_level(l, 10, 5);
  sim_stats_close_batch(set, 20); /* batch 1: (20 + 50) / 20 = 3.5 */
  sim_stats_close_batch(set, 40); /* batch 2: 5 */
  SimCi ci = sim_stat_ci(l);
  ck_assert_double_eq_tol(ci.mean, 4.25, 1e-12);
  ck_assert_int_eq(ci.batches, 2);
  /* two batch means 3.5 and 5: s = 1.06066, t(1, 0.975) = 12.7062, hw = 12.7062 * 1.06066 / sqrt 2 = 9.5297 */
  ck_assert_double_eq_tol(ci.half_width, 9.5297, 1e-3);
}
END_TEST

START_TEST(test_rate_and_reset)
{
  g_autoptr(SimStats) set = sim_stats_new();
  SimStat *r = sim_stats_add(set, "r", SIM_STAT_RATE);
  sim_stat_count(r, 1000); /* warm-up: discarded */
  sim_stats_reset(set, SIM_NS_PER_S);
  for (int b = 1; b <= 4; b++) {
    sim_stat_count(r, 10 * b);
    sim_stats_close_batch(set, SIM_NS_PER_S + b * SIM_NS_PER_S / 2);
  }
  /* 100 units over 2 s */
  ck_assert_double_eq_tol(sim_stat_ci(r).mean, 50, 1e-9);
}
END_TEST

START_TEST(test_batch_merging)
{
  /* 200 batches close: the store keeps 32..63 of them, spanning everything */
  g_autoptr(SimStats) set = sim_stats_new();
  SimStat *t = sim_stats_add(set, "t", SIM_STAT_TALLY);
  for (int b = 1; b <= 200; b++) {
    sim_stat_observe(t, b);
    sim_stats_close_batch(set, b);
  }
  SimCi ci = sim_stat_ci(t);
  ck_assert_int_ge(ci.batches, SIM_STATS_MAX_BATCHES / 2);
  ck_assert_int_lt(ci.batches, SIM_STATS_MAX_BATCHES);
  ck_assert_double_eq_tol(ci.mean, 100.5, 1e-9); /* all 200 observations count */
}
END_TEST

START_TEST(test_ci_coverage)
{
  /* 200 replications of 20 batches of N(10, 1) samples: the 95% interval should
     * cover 10 in about 95% of them (binomial sd 1.5%: accept 90..99%). */
  g_autoptr(gsl_rng) rng = sim_rng_new(42, "coverage");
  int covered = 0;
  for (int rep = 0; rep < 200; rep++) {
    g_autoptr(SimStats) set = sim_stats_new();
    SimStat *t = sim_stats_add(set, "x", SIM_STAT_TALLY);
    for (int b = 1; b <= 20; b++) {
      for (int i = 0; i < 50; i++) sim_stat_observe(t, 10 + gsl_ran_gaussian(rng, 1));
      sim_stats_close_batch(set, b);
    }
    SimCi ci = sim_stat_ci(t);
    covered += fabs(ci.mean - 10) <= ci.half_width;
  }
  ck_assert_int_ge(covered, 180);
  ck_assert_int_le(covered, 198);
}
END_TEST

START_TEST(test_quantiles_and_histogram)
{
  g_autoptr(SimStats) set = sim_stats_new();
  SimStat *t = sim_stats_add(set, "t", SIM_STAT_TALLY);
  sim_stat_keep_quantiles(t);
  sim_stat_keep_histogram(t, 10, 0, 1);
  g_autoptr(gsl_rng) rng = sim_rng_new(1, "q");
  for (int i = 0; i < 200000; i++) sim_stat_observe(t, gsl_ran_exponential(rng, 1));
  /* exponential(1): median ln 2, p90 ln 10, p99 ln 100, p99.9 ln 1000 */
  ck_assert_double_eq_tol(sim_stat_quantile(t, 0), log(2), 0.01);
  ck_assert_double_eq_tol(sim_stat_quantile(t, 1), log(10), 0.03);
  ck_assert_double_eq_tol(sim_stat_quantile(t, 2), log(100), 0.08);
  ck_assert_double_eq_tol(sim_stat_quantile(t, 3), log(1000), 0.3);
  /* histogram over [0,1): P(X >= 1) = e^-1 overflows, nothing underflows */
  ck_assert_uint_eq(t->under, 0);
  ck_assert_double_eq_tol((double)t->over / 200000, exp(-1), 0.005);
  double in = gsl_histogram_sum(t->hist);
  ck_assert_double_eq(in + t->over, 200000);
  sim_stat_observe(t, -1);
  ck_assert_uint_eq(t->under, 1);
}
END_TEST

START_TEST(test_precision_rule)
{
  g_autoptr(SimStats) set = sim_stats_new();
  SimStat *a = sim_stats_add(set, "a", SIM_STAT_TALLY);
  SimStat *const heads[] = { a, NULL };
  for (int b = 1; b <= 9; b++) {
    sim_stat_observe(a, 100 + (b % 2));
    sim_stats_close_batch(set, b);
  }
  ck_assert(!sim_stats_precise(heads, 0.01)); /* fewer than 10 batches */
  sim_stat_observe(a, 100);
  sim_stats_close_batch(set, 10);
  ck_assert(sim_stats_precise(heads, 0.01)); /* hw about 0.38 on a mean of 100.5 */
  ck_assert(!sim_stats_precise(heads, 0.001));
}
END_TEST

START_TEST(test_distribution_moments)
{
  /* sample mean and SCV of each family against its parameters */
  const SimDist d[] = {
    { SIM_DIST_DETERMINISTIC, 5, 0 }, { SIM_DIST_EXPONENTIAL, 5, 0 }, { SIM_DIST_ERLANG, 5, 4 },
    { SIM_DIST_LOGNORMAL, 5, 0.5 },   { SIM_DIST_PARETO, 5, 4.5 },    { SIM_DIST_UNIFORM, 5, 0.3 },
  };
  g_autoptr(gsl_rng) rng = sim_rng_new(9, "moments");
  for (size_t k = 0; k < G_N_ELEMENTS(d); k++) {
    ck_assert(sim_dist_validate(&d[k], NULL));
    double sum = 0, sum2 = 0;
    int n = 400000;
    for (int i = 0; i < n; i++) {
      double x = sim_dist_sample(&d[k], rng);
      sum += x;
      sum2 += x * x;
    }
    double m = sum / n, var = sum2 / n - m * m;
    ck_assert_msg(fabs(m - 5) < 0.01 * 5, "%s mean %g", sim_dist_kind_names[d[k].kind], m);
    ck_assert_msg(fabs(var / (m * m) - sim_dist_scv(&d[k])) < 0.03 + 0.05 * sim_dist_scv(&d[k]), "%s scv %g vs %g",
                  sim_dist_kind_names[d[k].kind], var / (m * m), sim_dist_scv(&d[k]));
  }
  SimDist bad = { SIM_DIST_PARETO, 5, 1 };
  ck_assert(!sim_dist_validate(&bad, NULL));
}
END_TEST

START_TEST(test_sampler_draws_as_sample)
{
  /* A prepared sampler draws the values sim_dist_sample draws, bit for bit,
   * from the same stream: same seed, same sequence, for every family (the
   * DES draws through samplers, the goldens were made with sim_dist_sample). */
  const SimDist d[] = {
    { SIM_DIST_DETERMINISTIC, 5, 0 }, { SIM_DIST_EXPONENTIAL, 5, 0 },   { SIM_DIST_ERLANG, 5, 4 },
    { SIM_DIST_LOGNORMAL, 5, 0.5 },   { SIM_DIST_LOGNORMAL, 3e5, 2.0 }, { SIM_DIST_PARETO, 5, 4.5 },
    { SIM_DIST_UNIFORM, 5, 0.3 },
  };
  for (size_t k = 0; k < G_N_ELEMENTS(d); k++) {
    g_autoptr(gsl_rng) a = sim_rng_new(11, "sampler");
    g_autoptr(gsl_rng) b = sim_rng_new(11, "sampler");
    SimDistSampler s;
    sim_dist_sampler_init(&s, &d[k]);
    for (int i = 0; i < 10000; i++) {
      double x = sim_dist_sample(&d[k], a), y = sim_dist_sampler_draw(&s, b);
      ck_assert_msg(memcmp(&x, &y, sizeof x) == 0, "%s draw %d: %.17g vs %.17g", sim_dist_kind_names[d[k].kind], i, x, y);
    }
    /* and the streams are where sim_dist_sample leaves them */
    ck_assert_uint_eq(gsl_rng_get(a), gsl_rng_get(b));
  }
}
END_TEST

START_TEST(test_zipf)
{
  g_autoptr(SimZipf) z = sim_zipf_new(1000, 1.0, NULL);
  /* H(1000, 1) = 7.48547086; P(1) = 1/H */
  ck_assert_double_eq_tol(sim_zipf_pmf(z, 1), 1 / 7.48547086, 1e-8);
  ck_assert_double_eq_tol(sim_zipf_pmf(z, 10), 0.1 / 7.48547086, 1e-9);
  g_autoptr(gsl_rng) rng = sim_rng_new(5, "zipf");
  int ones = 0, n = 200000;
  for (int i = 0; i < n; i++) {
    size_t r = sim_zipf_sample(z, rng);
    ck_assert(r >= 1 && r <= 1000);
    ones += r == 1;
  }
  ck_assert_double_eq_tol((double)ones / n, 1 / 7.48547086, 0.003);
  ck_assert_ptr_null(sim_zipf_new(0, 1, NULL));
  /* the normaliser and weights the appliance workload uses are the table's */
  ck_assert_double_eq_tol(sim_zipf_harmonic(1000, 1.0), 7.48547086, 1e-8);
  ck_assert_double_eq(sim_zipf_harmonic(4, 0.0), 4.0);
  ck_assert_double_eq(sim_zipf_weight(4, 2.0), 1.0 / 16);
  ck_assert(sim_zipf_pmf(z, 7) == sim_zipf_weight(7, 1.0) / sim_zipf_harmonic(1000, 1.0));
}
END_TEST

int main(void)
{
  gsl_set_error_handler_off();
  Suite *s = suite_create("stats");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_level_time_average);
  tcase_add_test(tc, test_rate_and_reset);
  tcase_add_test(tc, test_batch_merging);
  tcase_add_test(tc, test_ci_coverage);
  tcase_add_test(tc, test_quantiles_and_histogram);
  tcase_add_test(tc, test_precision_rule);
  tcase_add_test(tc, test_distribution_moments);
  tcase_add_test(tc, test_sampler_draws_as_sample);
  tcase_add_test(tc, test_zipf);
  suite_add_tcase(s, tc);
  return test_run_suite(s);
}
