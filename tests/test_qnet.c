/* tests/test_qnet.c — the engine held against queueing theory.
 *
 * Each expected value below is worked out by hand from the closed form named
 * beside it (not from qnet_theory(), which is checked against the same
 * numbers).  Runs use fixed seeds; each check asks that the simulation be
 * within its own 95% CI of theory (widened by 0.5% for the run's finite
 * length) and within 3%.
 */
#include <check.h>
#include "tests/support/check_run.h"
#include <math.h>
#include <gsl/gsl_errno.h>
#include "models/qnet/qnet.h"
#include <gsl/gsl_randist.h>
#include "sim/rng.h"

static const SimDist EXP1 = { SIM_DIST_EXPONENTIAL, 1e9, 0 }; /* mean 1 s */

static SimDist expo(double mean_s)
{
  return (SimDist){ SIM_DIST_EXPONENTIAL, mean_s * 1e9, 0 };
}

static void assert_close(const char *what, QnetEstimate e, double expect)
{
  double err = fabs(e.mean - expect);
  ck_assert_msg(err <= 0.03 * fabs(expect), "%s: %.5g vs theory %.5g (%.2f%% off)", what, e.mean, expect, 100 * err / expect);
  ck_assert_msg(err <= e.half_width + 0.005 * fabs(expect), "%s: %.5g ±%.3g misses theory %.5g", what, e.mean, e.half_width,
                expect);
}

static QnetSpec *base_spec(double duration_s, double warmup_s, uint64_t seed)
{
  QnetSpec *spec = qnet_spec_new();
  g_free(spec->name);
  spec->name = g_strdup("test");
  spec->seed = seed;
  spec->duration_ns = sim_time_from_s(duration_s);
  spec->warmup_ns = sim_time_from_s(warmup_s);
  return spec;
}

/* Single station fed by one Poisson source of rate @lambda. */
static QnetResult *run_single(double lambda, SimDist service, int servers, SimStationDiscipline disc, double duration_s)
{
  g_autoptr(QnetSpec) spec = base_spec(duration_s, duration_s / 50, 7);
  SimDist ia = expo(1 / lambda);
  QnetSource *src = qnet_spec_add_source(spec, "in", &ia);
  qnet_route_add(src->routes, "s", 1);
  qnet_spec_add_station(spec, "s", disc, servers, 0, &service);
  GError *err = NULL;
  ck_assert_msg(qnet_spec_resolve(spec, &err), "%s", err ? err->message : "");
  QnetResult *res = qnet_run(spec, &err);
  ck_assert_msg(res, "%s", err ? err->message : "");
  return res;
}

START_TEST(test_mm1)
{
  /* M/M/1, lambda 0.7/s, E[S] 1 s: rho 0.7, W = E[S]/(1-rho) = 3.3333 s, L = rho/(1-rho) = 2.3333 */
  g_autoptr(QnetResult) r = run_single(0.7, EXP1, 1, SIM_STATION_FCFS, 4e5);
  assert_close("M/M/1 W", r->stations[0].response_s, 10.0 / 3);
  assert_close("M/M/1 L", r->stations[0].number, 7.0 / 3);
  assert_close("M/M/1 U", r->stations[0].utilization, 0.7);
  assert_close("M/M/1 X", r->stations[0].throughput_per_s, 0.7);
  ck_assert_double_eq_tol(r->stations[0].th_response_s, 10.0 / 3, 1e-12);
  ck_assert_double_eq_tol(r->stations[0].th_number, 7.0 / 3, 1e-12);
  /* median of an exponential response time with rate mu - lambda = 0.3: ln 2 / 0.3 */
  ck_assert_double_eq_tol(r->stations[0].response_p50_s, log(2) / 0.3, 0.03 * log(2) / 0.3);
  ck_assert_double_eq_tol(r->stations[0].response_p99_s, log(100) / 0.3, 0.05 * log(100) / 0.3);
}
END_TEST

START_TEST(test_md1)
{
  /* M/D/1, lambda 0.7, S = 1 s: Pollaczek–Khinchine Wq = rho E[S] (1 + 0) / (2 (1 - rho)) = 0.7/0.6,
     * W = 1 + 1.16667 = 2.16667 s, L = lambda W = 1.516667 */
  SimDist det = { SIM_DIST_DETERMINISTIC, 1e9, 0 };
  g_autoptr(QnetResult) r = run_single(0.7, det, 1, SIM_STATION_FCFS, 4e5);
  assert_close("M/D/1 W", r->stations[0].response_s, 1 + 0.7 / 0.6);
  assert_close("M/D/1 L", r->stations[0].number, 0.7 * (1 + 0.7 / 0.6));
  ck_assert_double_eq_tol(r->stations[0].th_response_s, 1 + 0.7 / 0.6, 1e-12);
}
END_TEST

START_TEST(test_me4_1)
{
  /* M/E4/1, lambda 0.6, E[S] 1 s, SCV 1/4: Wq = 0.6 * 1.25 / (2 * 0.4) = 0.9375, W = 1.9375 s */
  SimDist e4 = { SIM_DIST_ERLANG, 1e9, 4 };
  g_autoptr(QnetResult) r = run_single(0.6, e4, 1, SIM_STATION_FCFS, 3e5);
  assert_close("M/E4/1 W", r->stations[0].response_s, 1.9375);
}
END_TEST

START_TEST(test_mmc_erlang_c)
{
  /* M/M/3, lambda 2.4, E[S] 1 s: a = 2.4, rho = 0.8.  Erlang B by recurrence:
     * B1 = 2.4/3.4 = 0.705882, B2 = 1.694118/3.694118 = 0.458599, B3 = 1.100637/4.100637 = 0.268407;
     * C = B3 / (1 - 0.8 (1 - B3)) = 0.647194;  Wq = C / (c mu - lambda) = 0.647194 / 0.6 = 1.078657;
     * W = 2.078657 s; L = 4.988776 */
  g_autoptr(QnetSpec) spec = base_spec(2e5, 4e3, 11);
  SimDist ia = expo(1 / 2.4);
  QnetSource *src = qnet_spec_add_source(spec, "in", &ia);
  qnet_route_add(src->routes, "s", 1);
  qnet_spec_add_station(spec, "s", SIM_STATION_FCFS, 3, 0, &EXP1);
  ck_assert(qnet_spec_resolve(spec, NULL));
  g_autoptr(QnetResult) r = qnet_run(spec, NULL);
  ck_assert_ptr_nonnull(r);
  assert_close("M/M/3 W", r->stations[0].response_s, 2.078657);
  assert_close("M/M/3 L", r->stations[0].number, 4.988776);
  assert_close("M/M/3 U", r->stations[0].utilization, 0.8);
  ck_assert_double_eq_tol(r->stations[0].th_response_s, 2.078657, 1e-5);
}
END_TEST

/* Waiting probability straight from the station (the qnet result has no such column). */
typedef struct {
  SimEngine *eng;
  SimStation *st;
  SimJob jobs[64];
  int free_top;
  SimJob *free_list[64];
  gsl_rng *rng;
  SimEvent arrival;
  double mean_ia_ns;
  SimStats *stats;
  GArray *sizes, *responses;
} lone;

static void lone_depart(SimStation *st G_GNUC_UNUSED, SimJob *job, void *ctx)
{
  lone *l = ctx;
  if (l->sizes) {
    double size = job->work_ns * 1e-9, resp = sim_time_to_s(sim_engine_now(l->eng) - job->t_arrived);
    g_array_append_val(l->sizes, size);
    g_array_append_val(l->responses, resp);
  }
  l->free_list[l->free_top++] = job;
}

static void lone_arrive(SimEngine *eng, SimEvent *ev, void *ctx)
{
  lone *l = ctx;
  ck_assert_int_gt(l->free_top, 0); /* more than 64 in system would be astronomically rare */
  SimJob *job = l->free_list[--l->free_top];
  sim_station_arrive(l->st, job);
  sim_engine_schedule_in(eng, ev, (sim_time_ns)llround(gsl_ran_exponential(l->rng, l->mean_ia_ns)));
}

static void lone_run(lone *l, SimStationDiscipline disc, int servers, double lambda, double duration_s, bool keep)
{
  l->eng = sim_engine_new();
  l->stats = sim_stats_new();
  l->st = sim_station_new(l->eng, l->stats, "s", disc, servers, 0, &EXP1, 3, lone_depart, NULL, l);
  for (int i = 0; i < 64; i++) l->free_list[i] = &l->jobs[i];
  l->free_top = 64;
  l->rng = sim_rng_new(3, "arrivals");
  l->mean_ia_ns = 1e9 / lambda;
  l->sizes = keep ? g_array_new(FALSE, FALSE, sizeof(double)) : NULL;
  l->responses = keep ? g_array_new(FALSE, FALSE, sizeof(double)) : NULL;
  sim_event_init(&l->arrival, lone_arrive, l);
  sim_engine_schedule(l->eng, &l->arrival, 0);
  sim_engine_run_until(l->eng, sim_time_from_s(duration_s / 50));
  sim_stats_reset(l->stats, sim_engine_now(l->eng));
  for (int b = 1; b <= 40; b++) {
    sim_time_ns t = sim_time_from_s(duration_s / 50 + b * duration_s / 40);
    sim_engine_run_until(l->eng, t);
    sim_stats_close_batch(l->stats, t);
  }
}

static void lone_free(lone *l)
{
  if (l->sizes) {
    g_array_free(l->sizes, TRUE);
    g_array_free(l->responses, TRUE);
  }
  sim_station_free(l->st);
  sim_stats_free(l->stats);
  sim_engine_free(l->eng);
  gsl_rng_free(l->rng);
}

START_TEST(test_mmc_wait_probability)
{
  lone l = { 0 };
  lone_run(&l, SIM_STATION_FCFS, 3, 2.4, 2e5, false);
  SimCi ci = sim_stat_ci(l.st->st_waited);
  QnetEstimate e = { ci.mean, ci.half_width };
  assert_close("M/M/3 P(wait) (Erlang C)", e, 0.647194);
  lone_free(&l);
}
END_TEST

START_TEST(test_mm1_ps_by_size)
{
  /* M/M/1-PS, rho 0.6: E[T | x] = x / (1 - rho) = 2.5 x for every size x (Kleinrock 4.4).
     * Check the mean slowdown in three size classes. */
  lone l = { 0 };
  lone_run(&l, SIM_STATION_PS, 1, 0.6, 2e5, true);
  double lo[3] = { 0.0, 0.5, 2.0 }, hi[3] = { 0.5, 2.0, 1e9 };
  for (int c = 0; c < 3; c++) {
    double sx = 0, st = 0;
    for (guint i = 0; i < l.sizes->len; i++) {
      double x = g_array_index(l.sizes, double, i);
      if (x >= lo[c] && x < hi[c]) {
        sx += x;
        st += g_array_index(l.responses, double, i);
      }
    }
    ck_assert_msg(fabs(st / sx - 2.5) < 0.03 * 2.5, "PS class %d: E[T]/E[x] = %.4f, theory 2.5", c, st / sx);
  }
  SimCi w = sim_stat_ci(l.st->st_response_s);
  assert_close("M/M/1-PS W", (QnetEstimate){ w.mean, w.half_width }, 2.5);
  lone_free(&l);
}
END_TEST

START_TEST(test_tandem_jackson)
{
  /* Poisson 1/s -> A (exp 0.5 s) -> B (exp 0.8 s) -> out.
     * Jackson: W_A = 0.5/(1-0.5) = 1 s, W_B = 0.8/(1-0.8) = 4 s, sojourn 5 s; L_A = 1, L_B = 4. */
  g_autoptr(QnetSpec) spec = base_spec(3e5, 6e3, 5);
  SimDist ia = expo(1), sa = expo(0.5), sb = expo(0.8);
  QnetSource *src = qnet_spec_add_source(spec, "in", &ia);
  qnet_route_add(src->routes, "A", 1);
  QnetStation *a = qnet_spec_add_station(spec, "A", SIM_STATION_FCFS, 1, 0, &sa);
  qnet_route_add(a->routes, "B", 1);
  qnet_spec_add_station(spec, "B", SIM_STATION_FCFS, 1, 0, &sb);
  ck_assert(qnet_spec_resolve(spec, NULL));
  g_autoptr(QnetResult) r = qnet_run(spec, NULL);
  ck_assert_ptr_nonnull(r);
  assert_close("tandem W_A", r->stations[0].response_s, 1);
  assert_close("tandem W_B", r->stations[1].response_s, 4);
  assert_close("tandem L_B", r->stations[1].number, 4);
  assert_close("tandem sojourn", r->sojourn_s, 5);
}
END_TEST

START_TEST(test_feedback_jackson)
{
  /* Poisson 0.5/s -> A (exp 0.4 s); after A, back to A with p 0.5, else out.
     * Traffic equation lambda_A = 0.5 + 0.5 lambda_A = 1/s; rho 0.4; W_A = 0.4/0.6 = 0.6667 s per visit;
     * L_A = 0.6667; 2 visits on average, sojourn 1.3333 s. */
  g_autoptr(QnetSpec) spec = base_spec(3e5, 6e3, 9);
  SimDist ia = expo(2), sa = expo(0.4);
  QnetSource *src = qnet_spec_add_source(spec, "in", &ia);
  qnet_route_add(src->routes, "A", 1);
  QnetStation *a = qnet_spec_add_station(spec, "A", SIM_STATION_FCFS, 1, 0, &sa);
  qnet_route_add(a->routes, "A", 0.5);
  ck_assert(qnet_spec_resolve(spec, NULL));
  g_autoptr(QnetResult) r = qnet_run(spec, NULL);
  ck_assert_ptr_nonnull(r);
  assert_close("feedback X_A", r->stations[0].throughput_per_s, 1);
  assert_close("feedback W_A", r->stations[0].response_s, 0.4 / 0.6);
  assert_close("feedback L_A", r->stations[0].number, 0.4 / 0.6);
  assert_close("feedback sojourn", r->sojourn_s, 0.8 / 0.6);
  ck_assert_double_eq_tol(r->stations[0].th_throughput_per_s, 1, 1e-12);
}
END_TEST

START_TEST(test_little_everywhere)
{
  /* Little's law L = X W on every station of a mixed network (M/D/2 -> PS lognormal, with a split). */
  g_autoptr(QnetSpec) spec = base_spec(2e5, 4e3, 13);
  SimDist ia = expo(1), d = { SIM_DIST_DETERMINISTIC, 1.5e9, 0 }, ln = { SIM_DIST_LOGNORMAL, 0.6e9, 2 };
  QnetSource *src = qnet_spec_add_source(spec, "in", &ia);
  qnet_route_add(src->routes, "D", 1);
  QnetStation *s1 = qnet_spec_add_station(spec, "D", SIM_STATION_FCFS, 2, 0, &d);
  qnet_route_add(s1->routes, "P", 0.7);
  qnet_spec_add_station(spec, "P", SIM_STATION_PS, 1, 0, &ln);
  ck_assert(qnet_spec_resolve(spec, NULL));
  g_autoptr(QnetResult) r = qnet_run(spec, NULL);
  ck_assert_ptr_nonnull(r);
  for (int i = 0; i < r->nstations; i++) {
    const QnetStationResult *o = &r->stations[i];
    double little = o->throughput_per_s.mean * o->response_s.mean;
    ck_assert_msg(fabs(o->number.mean - little) <= 0.02 * o->number.mean, "%s: L %.4g vs XW %.4g", o->name, o->number.mean,
                  little);
  }
  assert_close("split X_P", r->stations[1].throughput_per_s, 0.7);
}
END_TEST

START_TEST(test_same_seed_same_bytes)
{
  g_autoptr(QnetResult) a = run_single(0.5, EXP1, 1, SIM_STATION_FCFS, 2e3);
  g_autoptr(QnetResult) b = run_single(0.5, EXP1, 1, SIM_STATION_FCFS, 2e3);
  g_autoptr(GString) ja = g_string_new(NULL), jb = g_string_new(NULL);
  qnet_result_write(a, QNET_FORMAT_JSON, ja);
  qnet_result_write(b, QNET_FORMAT_JSON, jb);
  ck_assert_str_eq(ja->str, jb->str);
}
END_TEST

/* The CSV carries each station's p50/p99 response time and drop rate, as the table and JSON do
 * (it had none): on every metric row, the same values as the result's, and for M/M/1 at rho 0.5,
 * E[S] 1 s (W ~ Exp(rate 1 - rho)) near the closed forms p50 = ln 2 / 0.5 = 1.386 s,
 * p99 = ln 100 / 0.5 = 9.210 s; no drops (infinite buffer). */
START_TEST(test_csv_has_percentiles_and_drops)
{
  g_autoptr(QnetResult) r = run_single(0.5, EXP1, 1, SIM_STATION_FCFS, 2e4);
  g_autoptr(GString) c = g_string_new(NULL);
  qnet_result_write(r, QNET_FORMAT_CSV, c);
  g_auto(GStrv) lines = g_strsplit(c->str, "\n", -1);
  ck_assert_str_eq(lines[0], "scenario,seed,overrides,station,metric,mean,ci95,theory,response_p50_s,response_p99_s,drops_per_s");
  const QnetStationResult *o = &r->stations[0];
  ck_assert_double_eq_tol(o->response_p50_s, log(2) / 0.5, 0.1 * log(2) / 0.5);
  ck_assert_double_eq_tol(o->response_p99_s, log(100) / 0.5, 0.1 * log(100) / 0.5);
  int rows = 0;
  for (int i = 1; lines[i] && lines[i][0]; i++, rows++) {
    g_auto(GStrv) f = g_strsplit(lines[i], ",", -1);
    ck_assert_int_eq(g_strv_length(f), 11);
    ck_assert_double_eq(g_ascii_strtod(f[8], NULL), o->response_p50_s);
    ck_assert_double_eq(g_ascii_strtod(f[9], NULL), o->response_p99_s);
    ck_assert_str_eq(f[10], "0.0");
  }
  ck_assert_int_eq(rows, 4); /* one per metric of the one station */
}
END_TEST

START_TEST(test_bad_routes)
{
  g_autoptr(QnetSpec) spec = base_spec(10, 1, 1);
  QnetSource *src = qnet_spec_add_source(spec, "in", &EXP1);
  qnet_route_add(src->routes, "nowhere", 1);
  qnet_spec_add_station(spec, "s", SIM_STATION_FCFS, 1, 0, &EXP1);
  GError *err = NULL;
  ck_assert(!qnet_spec_resolve(spec, &err));
  ck_assert_ptr_nonnull(strstr(err->message, "unknown station 'nowhere'"));
  g_error_free(err);
}
END_TEST

/* An overloaded PS station (offered load 10) grows by about 9 jobs/s.  With a cap of 2000 jobs
 * the run stops near 220 s, in the warm-up or after it, with an error that names the station;
 * with the default cap it runs to the end (some 9000 jobs at 1000 s). */
START_TEST(test_overload_cap)
{
  static const double warmups_s[] = { 20, 900 };
  for (size_t w = 0; w < G_N_ELEMENTS(warmups_s); w++) {
    g_autoptr(QnetSpec) spec = base_spec(1000, warmups_s[w], 3);
    SimDist ia = expo(0.1);
    QnetSource *src = qnet_spec_add_source(spec, "in", &ia);
    qnet_route_add(src->routes, "s", 1);
    qnet_spec_add_station(spec, "s", SIM_STATION_PS, 1, 0, &EXP1);
    ck_assert(qnet_spec_resolve(spec, NULL));
    spec->max_jobs = 2000;
    g_autoptr(GError) err = NULL;
    QnetResult *r = qnet_run(spec, &err);
    ck_assert_ptr_null(r);
    ck_assert_ptr_nonnull(err);
    ck_assert_msg(g_str_has_prefix(err->message, "stopped at ") && strstr(err->message, "more than 2000 jobs") &&
                      strstr(err->message, "station s holds 2001"),
                  "%s", err->message);
    double at_s = g_ascii_strtod(err->message + strlen("stopped at "), NULL);
    ck_assert_msg(at_s > 150 && at_s < 300, "stopped at %g s, expected near 2000 / 9 = 222 s", at_s);
    spec->max_jobs = QNET_MAX_JOBS;
    g_autoptr(QnetResult) full = qnet_run(spec, NULL);
    ck_assert_ptr_nonnull(full);
    ck_assert_msg(full->stations[0].load >= 9.9, "load %g", full->stations[0].load);
  }
}
END_TEST

int main(void)
{
  gsl_set_error_handler_off();
  Suite *s = suite_create("qnet");
  TCase *tc = tcase_create("theory");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_mm1);
  tcase_add_test(tc, test_md1);
  tcase_add_test(tc, test_me4_1);
  tcase_add_test(tc, test_mmc_erlang_c);
  tcase_add_test(tc, test_mmc_wait_probability);
  tcase_add_test(tc, test_mm1_ps_by_size);
  tcase_add_test(tc, test_tandem_jackson);
  tcase_add_test(tc, test_feedback_jackson);
  tcase_add_test(tc, test_little_everywhere);
  tcase_add_test(tc, test_same_seed_same_bytes);
  tcase_add_test(tc, test_csv_has_percentiles_and_drops);
  tcase_add_test(tc, test_bad_routes);
  tcase_add_test(tc, test_overload_cap);
  suite_add_tcase(s, tc);
  return test_run_suite(s);
}
