/* tests/test_fluid.c — the request-level fluid simulation (sim/fluid.h) against the
 * bottleneck law, Little's law and byte conservation. */
#include <check.h>
#include "tests/support/check_run.h"
#include <math.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include "sim/fluid.h"

/* Three resources, two classes with different per-byte costs (worked by hand):
 *   mem  100 units/s: class a 4/B, class b 5/B
 *   cpu   60 units/s: class a 2/B, class b 1/B
 *   nic   30 B/s:     both 1/B
 * Mix a:b = 3:1 -> D_mem = 0.75*4 + 0.25*5 = 4.25, D_cpu = 1.75, D_nic = 1.
 * X = min(100/4.25, 60/1.75, 30/1) = min(23.53, 34.29, 30) = 23.53 B/s, memory-bound. */
static SimFluidSpec *hand_spec(double offered_Bps)
{
  SimFluidSpec *s = sim_fluid_spec_new();
  s->seed = 3;
  s->duration_ns = 2000 * SIM_NS_PER_S;
  s->warmup_ns = 100 * SIM_NS_PER_S;
  s->offered_Bps = offered_Bps;
  s->concurrency = 64;
  s->request_bytes = (SimDist){ SIM_DIST_EXPONENTIAL, 2.0, 0 }; /* 2 B mean: many requests */
  int mem = sim_fluid_add_resource(s, "mem", "dram", "units/s", 100);
  int cpu = sim_fluid_add_resource(s, "cpu", "cpu", "units/s", 60);
  int nic = sim_fluid_add_resource(s, "nic", "nic_port", "B/s", 30);
  SimFluidClass *a = sim_fluid_add_class(s, "a", 3, 1e6);
  sim_fluid_class_use(a, mem, 4);
  sim_fluid_class_use(a, cpu, 2);
  sim_fluid_class_use(a, nic, 1);
  SimFluidClass *b = sim_fluid_add_class(s, "b", 1, 1e6);
  sim_fluid_class_use(b, mem, 5);
  sim_fluid_class_use(b, cpu, 1);
  sim_fluid_class_use(b, nic, 1);
  ck_assert(sim_fluid_spec_check(s, NULL));
  return s;
}

START_TEST(test_bound_by_hand)
{
  g_autoptr(SimFluidSpec) s = hand_spec(0);
  int bn = -1;
  double x = sim_fluid_bound_Bps(s, &bn);
  ck_assert_double_eq_tol(x, 100 / 4.25, 1e-9);
  ck_assert_int_eq(bn, 0);
}
END_TEST

START_TEST(test_saturation_meets_bound)
{
  g_autoptr(SimFluidSpec) s = hand_spec(0);
  g_autoptr(SimFluidResult) r = sim_fluid_run(s);
  double bound = 100 / 4.25;
  ck_assert_msg(fabs(r->throughput_Bps.mean - bound) <= 0.03 * bound, "DES %.4f vs bound %.4f", r->throughput_Bps.mean, bound);
  ck_assert_double_le(r->resources[0].utilization.mean, 1 + 1e-9);
  ck_assert_double_ge(r->resources[0].utilization.mean, 0.97); /* the bottleneck is saturated */
  ck_assert_double_le(r->max_utilization_seen, 1 + 1e-9);
  /* the other resources at the bound's throughput: cpu 23.53*1.75/60, nic 23.53/30 */
  ck_assert_double_eq_tol(r->resources[1].utilization.mean, bound * 1.75 / 60, 0.03 * bound * 1.75 / 60);
  ck_assert_double_eq_tol(r->resources[2].utilization.mean, bound / 30, 0.03 * bound / 30);
}
END_TEST

START_TEST(test_open_below_capacity)
{
  /* offered 15 B/s (64% of the bound): served = offered, utilisations = offered x D / C */
  g_autoptr(SimFluidSpec) s = hand_spec(15);
  g_autoptr(SimFluidResult) r = sim_fluid_run(s);
  ck_assert_msg(fabs(r->throughput_Bps.mean - 15) <= 0.03 * 15, "served %.4f", r->throughput_Bps.mean);
  ck_assert_double_eq_tol(r->resources[0].utilization.mean, 15 * 4.25 / 100, 0.03 * 15 * 4.25 / 100);
  ck_assert_double_eq_tol(r->resources[2].utilization.mean, 0.5, 0.03 * 0.5);
  /* Little: mean requests in the box = arrival rate x mean latency, and latency >= access latency */
  ck_assert_double_ge(r->latency_p50_s, 1e-3);
}
END_TEST

START_TEST(test_conservation_and_determinism)
{
  g_autoptr(SimFluidSpec) s = hand_spec(20);
  g_autoptr(SimFluidResult) r1 = sim_fluid_run(s);
  g_autoptr(SimFluidResult) r2 = sim_fluid_run(s);
  ck_assert_double_eq_tol(r1->bytes_admitted, r1->bytes_delivered + r1->bytes_in_flight, 1e-6 * r1->bytes_admitted);
  ck_assert_double_gt(r1->bytes_delivered, 0);
  ck_assert_uint_gt(r1->requests_done, 1000);
  ck_assert(r1->throughput_Bps.mean == r2->throughput_Bps.mean);
  ck_assert(r1->latency_s.mean == r2->latency_s.mean);
  ck_assert_uint_eq(r1->events, r2->events);
}
END_TEST

START_TEST(test_rejects_unbounded_class)
{
  g_autoptr(SimFluidSpec) s = hand_spec(0);
  sim_fluid_add_class(s, "free", 1, 0);
  GError *err = NULL;
  ck_assert(!sim_fluid_spec_check(s, &err));
  ck_assert_ptr_nonnull(strstr(err->message, "free"));
  g_error_free(err);
}
END_TEST

/* One class on one wide resource: a request alone moves its bytes in a nanosecond, so its latency
 * is its access latency. */
static SimFluidSpec *lone_spec(double offered_Bps, double latency_ns)
{
  SimFluidSpec *s = sim_fluid_spec_new();
  s->seed = 5;
  s->duration_ns = 20 * SIM_NS_PER_S;
  s->warmup_ns = 0;
  s->offered_Bps = offered_Bps;
  s->concurrency = 100000;
  s->request_bytes = (SimDist){ SIM_DIST_DETERMINISTIC, 1000, 0 };
  int wire = sim_fluid_add_resource(s, "wire", "nic_port", "B/s", 1e12);
  SimFluidClass *c = sim_fluid_add_class(s, "only", 1, latency_ns);
  sim_fluid_class_use(c, wire, 1);
  return s;
}

START_TEST(test_latency_spread_lognormal)
{
  /* access latency lognormal, mean 1 ms, CV 0.5: the measured p50 and p99 are its quantiles
     * exp(zeta + z_q sigma), sigma^2 = ln(1 + cv^2), zeta = ln(mean) - sigma^2 / 2 (plus 1 ns of
     * transfer); CV 0 gives p50 = p99 = 1 ms */
  g_autoptr(SimFluidSpec) s = lone_spec(1e6, 1e6); /* 1000 requests/s */
  sim_fluid_class_latency_spread(g_ptr_array_index(s->classes, 0), 0.5, "drive.latency");
  ck_assert(sim_fluid_spec_check(s, NULL));
  g_autoptr(SimFluidResult) r = sim_fluid_run(s);
  double s2 = log1p(0.25), zeta = log(1e-3) - s2 / 2;
  double p50 = gsl_cdf_lognormal_Pinv(0.5, zeta, sqrt(s2)), p99 = gsl_cdf_lognormal_Pinv(0.99, zeta, sqrt(s2));
  ck_assert_msg(fabs(r->latency_p50_s - p50) <= 0.01 * p50 + r->latency_p50_hw_s, "p50 %g vs %g", r->latency_p50_s, p50);
  ck_assert_msg(fabs(r->latency_p99_s - p99) <= 0.02 * p99 + r->latency_p99_hw_s, "p99 %g vs %g", r->latency_p99_s, p99);
  g_autoptr(SimFluidSpec) f = lone_spec(1e6, 1e6);
  g_autoptr(SimFluidResult) rf = sim_fluid_run(f);
  ck_assert_double_eq_tol(rf->latency_p50_s, 1e-3, 2e-9);
  ck_assert_double_eq_tol(rf->latency_p99_s, 1e-3, 2e-9);
}
END_TEST

START_TEST(test_paced_clients)
{
  /* 50 clients, each fetching a segment of 3 requests every 0.5 s over 20 s (a whole number of
     * periods): every client fetches exactly 40 segments, so 50 x 3 x 40 = 6000 requests arrive,
     * whatever the phases; the 3 of a segment go one after another, so at most one request per
     * client is in the system: with 50 slots none ever waits, and a request's latency is its 1 ms
     * access latency; a segment takes 3 ms of its 500 ms period. */
  g_autoptr(SimFluidSpec) s = lone_spec(50 * 3 * 1000 / 0.5, 1e6);
  s->concurrency = 50;
  sim_fluid_add_clients(s, 50, 3, 0.5e9);
  ck_assert(sim_fluid_spec_check(s, NULL));
  g_autoptr(SimFluidResult) r = sim_fluid_run(s);
  ck_assert_uint_le(r->requests_done, 6000);
  ck_assert_uint_ge(r->requests_done, 6000 - 50 * 3); /* at most the segments cut by the end */
  ck_assert_double_eq_tol(r->latency_p99_s, 1e-3, 2e-9);
  ck_assert_uint_eq(r->requests_rejected, 0);
  /* one client and one slot: had the segment's 3 requests arrived at once, the 2nd and 3rd would
     * wait 1 and 2 ms for the slot (p99 3 ms); sent one after another, none waits */
  g_autoptr(SimFluidSpec) one = lone_spec(3 * 1000 / 0.5, 1e6);
  one->concurrency = 1;
  sim_fluid_add_clients(one, 1, 3, 0.5e9);
  g_autoptr(SimFluidResult) r1 = sim_fluid_run(one);
  ck_assert_uint_ge(r1->requests_done, 117);
  ck_assert_uint_le(r1->requests_done, 120);
  ck_assert_double_eq_tol(r1->latency_p99_s, 1e-3, 2e-9);
  /* a client group needs an offered load (the caller's arrival rate) */
  s->offered_Bps = 0;
  ck_assert(!sim_fluid_spec_check(s, NULL));
}
END_TEST

/* The offered load's own noise over the window (sim_fluid_offered_sd_bytes), by hand: 2000 paced
 * clients fetching 2 requests of 1000 B every 4 s, measured over T = 1 s: a client starts a fetch
 * in the window with probability f = 0.25, so Var = 2000 x f (1 - f) x 2000^2 = 1.5e9 B^2; sizes
 * lognormal with CV 0.5 add 2000 x (T / P) x 2 x (0.5 x 1000)^2 = 2.5e8. Poisson at the same 1e6
 * B/s: 1000 requests in T, Var = 1000 x 1000^2 = 1e9 (fixed sizes). Saturate: none. */
static SimFluidSpec *noise_spec(double wire_Bps, uint64_t seed)
{
  SimFluidSpec *s = lone_spec(1e6, 1e6);
  s->seed = seed;
  s->duration_ns = (sim_time_ns)(1.1 * SIM_NS_PER_S);
  s->warmup_ns = (sim_time_ns)(0.1 * SIM_NS_PER_S);
  ((SimFluidResource *)g_ptr_array_index(s->resources, 0))->capacity = wire_Bps;
  sim_fluid_add_clients(s, 2000, 2, 4e9);
  return s;
}

START_TEST(test_offered_noise)
{
  g_autoptr(SimFluidSpec) s = noise_spec(1e12, 1);
  ck_assert_double_eq_tol(sim_fluid_offered_sd_bytes(s), sqrt(1.5e9), 1e-6 * sqrt(1.5e9));
  s->request_bytes = (SimDist){ SIM_DIST_LOGNORMAL, 1000, 0.5 };
  ck_assert_double_eq_tol(sim_fluid_offered_sd_bytes(s), sqrt(1.75e9), 1e-6 * sqrt(1.75e9));
  g_array_set_size(s->clients, 0);
  s->request_bytes = (SimDist){ SIM_DIST_DETERMINISTIC, 1000, 0 };
  ck_assert_double_eq_tol(sim_fluid_offered_sd_bytes(s), sqrt(1e9), 1e-6 * sqrt(1e9));
  s->offered_Bps = 0;
  ck_assert_double_eq(sim_fluid_offered_sd_bytes(s), 0);

  /* over 40 seeds on a wire at 1.05 x the offered load (its queue smooths the arrivals over
   * the batches, which then see little of their noise): the served throughput varies by the
   * offered load's sd, which the reported CI holds and the batch means alone do not */
  const int n = 40;
  double sum = 0, sum2 = 0, hw = 0, batch_hw = 0, sd_formula = 0;
  for (int k = 1; k <= n; k++) {
    g_autoptr(SimFluidSpec) q = noise_spec(1.05e6, (uint64_t)k);
    g_autoptr(SimFluidResult) r = sim_fluid_run(q);
    sum += r->throughput_Bps.mean;
    sum2 += r->throughput_Bps.mean * r->throughput_Bps.mean;
    hw += r->throughput_Bps.half_width / n;
    batch_hw += r->throughput_batch_hw_Bps / n;
    sd_formula = sim_fluid_offered_sd_bytes(q) / 1.0;
    ck_assert_double_eq_tol(r->offered_hw_Bps, 1.959963984540054 * sd_formula, 1e-9 * sd_formula);
  }
  double mean = sum / n, sd = sqrt((sum2 - n * mean * mean) / (n - 1));
  printf("fluid: offered noise: served %.0f +- sd %.0f B/s over %d seeds; formula sd %.0f; CI half-width %.0f (batch "
         "means alone %.0f)\n",
         mean, sd, n, sd_formula, hw, batch_hw);
  ck_assert_msg(fabs(sd / sd_formula - 1) <= 0.3, "sd %.0f, formula %.0f", sd, sd_formula);
  ck_assert_double_le(sd, hw / 1.96);
  ck_assert_double_gt(sd, batch_hw / 1.96);
}
END_TEST

int main(void)
{
  gsl_set_error_handler_off();
  Suite *su = suite_create("fluid");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_bound_by_hand);
  tcase_add_test(tc, test_saturation_meets_bound);
  tcase_add_test(tc, test_open_below_capacity);
  tcase_add_test(tc, test_conservation_and_determinism);
  tcase_add_test(tc, test_rejects_unbounded_class);
  tcase_add_test(tc, test_latency_spread_lognormal);
  tcase_add_test(tc, test_paced_clients);
  tcase_add_test(tc, test_offered_noise);
  suite_add_tcase(su, tc);
  return test_run_suite(su);
}
