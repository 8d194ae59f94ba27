/* tests/test_station.c — sim/station.c's processor-sharing station against closed forms.
 *
 * n jobs present at once share the server equally, so with every job arriving at t = 0
 * and sizes x_(1) < ... < x_(n) (sorted), the k-th departure is at
 *     T_k = sum_{j <= k} (n - j + 1) (x_(j) - x_(j-1))          (x_(0) = 0),
 * in order of size.  With integer sizes in ns every step of the virtual time is exact in
 * double precision, so the test asks for exact times.  300 000 jobs make a linear scan of
 * the jobs per event (the old station: O(n^2), about a minute) fail the suite's deadline,
 * while the heap (O(n log n)) takes well under a second, also under ASan.  The smaller
 * cases pin the order of departures that leave at the same instant (arrival order, also
 * when the tags differ by less than the 1e-6 ns tolerance) and a job coming straight back.
 */
#include <check.h>
#include "sim/station.h"
#include "tests/support/check_run.h"

typedef struct {
  GArray *order;     /* uint64_t job ids, in order of departure */
  GArray *times;     /* sim_time_ns of each departure */
  int revisits;      /* a departing job comes back this many times in all (self-loop test) */
  double revisit_ns; /* with this much work */
} Log;

static void on_depart(SimStation *st, SimJob *job, void *ctx)
{
  Log *log = ctx;
  sim_time_ns now = sim_engine_now(st->eng);
  g_array_append_val(log->order, job->id);
  g_array_append_val(log->times, now);
  if (log->revisits > 0) {
    log->revisits--;
    job->work_ns = log->revisit_ns;
    sim_station_arrive(st, job);
  }
}

typedef struct {
  SimEngine *eng;
  SimStats *stats;
  SimStation *st;
  Log log;
} Bench;

static void bench_init(Bench *b)
{
  b->eng = sim_engine_new();
  b->stats = sim_stats_new();
  b->log.order = g_array_new(FALSE, FALSE, sizeof(uint64_t));
  b->log.times = g_array_new(FALSE, FALSE, sizeof(sim_time_ns));
  b->log.revisits = 0;
  b->st = sim_station_new(b->eng, b->stats, "ps", SIM_STATION_PS, 1, 0, NULL, 1, on_depart, NULL, &b->log);
}

static void bench_clear(Bench *b)
{
  sim_station_free(b->st);
  sim_engine_free(b->eng);
  sim_stats_free(b->stats);
  g_array_free(b->log.order, TRUE);
  g_array_free(b->log.times, TRUE);
}

/* Runs the engine until @t_ns, then lets @job (work @work_ns, id @id) arrive. */
static void arrive_at(Bench *b, SimJob *job, uint64_t id, sim_time_ns t_ns, double work_ns)
{
  sim_engine_run_until(b->eng, t_ns);
  job->id = id;
  job->work_ns = work_ns;
  sim_station_arrive(b->st, job);
}

#define ID(b, i)   g_array_index((b)->log.order, uint64_t, i)
#define TIME(b, i) g_array_index((b)->log.times, sim_time_ns, i)

START_TEST(test_ps_many_at_once)
{
  enum { N = 300000, UNIT_NS = 1000, STRIDE = 7919 }; /* STRIDE is prime to N: sizes are a permutation */
  Bench b;
  bench_init(&b);
  SimJob *jobs = g_new0(SimJob, N);
  for (uint64_t i = 0; i < N; i++) arrive_at(&b, &jobs[i], i, 0, (double)((i * STRIDE) % N + 1) * UNIT_NS);
  ck_assert_int_eq(b.st->in_system, N);
  sim_engine_run_until(b.eng, INT64_MAX / 2);
  ck_assert_uint_eq(b.log.order->len, N);
  ck_assert_int_eq(b.st->in_system, 0);
  /* one assertion at the end: a Check assertion per job costs a message to the parent */
  guint wrong = 0, first_wrong = 0;
  for (uint64_t k = 1; k <= N; k++) {
    sim_time_ns expect = (sim_time_ns)UNIT_NS * (int64_t)(k * N - k * (k - 1) / 2);
    uint64_t id = ID(&b, k - 1);
    if (TIME(&b, k - 1) != expect || (id * STRIDE) % N + 1 != k) {
      if (!wrong) first_wrong = (guint)k;
      wrong++;
    }
  }
  ck_assert_msg(!wrong, "%u of %d departures at the wrong time or out of order, first the %u-th", wrong, N, first_wrong);
  g_free(jobs);
  bench_clear(&b);
}
END_TEST

START_TEST(test_ps_staggered)
{
  /* A (2000 ns) alone from 0 to 1000, then A and B (500 ns) at half speed: B done at
   * 1000 + 2 x 500 = 2000, A (1000 - 500 left) alone again, done at 2000 + 500 = 2500. */
  Bench b;
  bench_init(&b);
  SimJob a = { 0 }, bj = { 0 };
  arrive_at(&b, &a, 1, 0, 2000);
  arrive_at(&b, &bj, 2, 1000, 500);
  sim_engine_run_until(b.eng, 1000000);
  ck_assert_uint_eq(b.log.order->len, 2);
  ck_assert_uint_eq(ID(&b, 0), 2);
  ck_assert_int_eq(TIME(&b, 0), 2000);
  ck_assert_uint_eq(ID(&b, 1), 1);
  ck_assert_int_eq(TIME(&b, 1), 2500);
  ck_assert_int_eq(b.st->busy, 0);
  bench_clear(&b);
}
END_TEST

START_TEST(test_ps_ties_leave_in_arrival_order)
{
  /* A (3000 ns + 5e-7) at 0, B (2000 ns) and C (2000 ns) at 1000: tags 3000 + 5e-7, 3000 and
   * 3000, within the 1e-6 tolerance of each other, so all three leave together when V reaches
   * 3000, at 1000 + 3 x 2000 = 7000, in arrival order A, B, C (although B's and C's tags are
   * the smaller ones). */
  Bench b;
  bench_init(&b);
  SimJob a = { 0 }, bj = { 0 }, c = { 0 };
  arrive_at(&b, &a, 1, 0, 3000.0000005);
  arrive_at(&b, &bj, 2, 1000, 2000);
  arrive_at(&b, &c, 3, 1000, 2000);
  sim_engine_run_until(b.eng, 1000000);
  ck_assert_uint_eq(b.log.order->len, 3);
  for (guint i = 0; i < 3; i++) {
    ck_assert_uint_eq(ID(&b, i), i + 1);
    ck_assert_int_eq(TIME(&b, i), 7000);
  }
  bench_clear(&b);
}
END_TEST

START_TEST(test_ps_self_loop)
{
  /* A (1000 ns) and B (4000 ns) at 0.  A leaves at 2000 (V = 1000) and comes straight back
   * twice with 1000 ns more (tags 2000, then 3000): departures at 4000 and 6000; B then has
   * 1000 ns left alone: done at 7000. */
  Bench b;
  bench_init(&b);
  b.log.revisits = 2;
  b.log.revisit_ns = 1000;
  SimJob a = { 0 }, bj = { 0 };
  arrive_at(&b, &a, 1, 0, 1000);
  arrive_at(&b, &bj, 2, 0, 4000);
  sim_engine_run_until(b.eng, 1000000);
  static const uint64_t ids[] = { 1, 1, 1, 2 };
  static const sim_time_ns at[] = { 2000, 4000, 6000, 7000 };
  ck_assert_uint_eq(b.log.order->len, 4);
  for (guint i = 0; i < 4; i++) {
    ck_assert_uint_eq(ID(&b, i), ids[i]);
    ck_assert_int_eq(TIME(&b, i), at[i]);
  }
  bench_clear(&b);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("station");
  TCase *tc = tcase_create("ps");
  /* generous for the heap (under a second with ASan on a loaded machine); the O(n) scan
   * it replaced took about a minute for test_ps_many_at_once */
  tcase_set_timeout(tc, 20);
  tcase_add_test(tc, test_ps_many_at_once);
  tcase_add_test(tc, test_ps_staggered);
  tcase_add_test(tc, test_ps_ties_leave_in_arrival_order);
  tcase_add_test(tc, test_ps_self_loop);
  suite_add_tcase(s, tc);
  return test_run_suite(s);
}
