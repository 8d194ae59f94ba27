/* bench/bench_calendar.c — hold-model rate of ocasim's event calendar.
 *
 * Measures holds per second (one pop of the earliest event plus one insert
 * at popped time + increment, see bench/hold.h) at each pending-set size N,
 * three ways:
 *   ocasim-cal     sim_calendar_pop + sim_calendar_insert on N preallocated
 *                  caller-owned events (the popped event is reinserted);
 *   ocasim-engine  the full engine loop: sim_engine_run_until calls a handler
 *                  that reschedules its own event with sim_engine_schedule_in;
 *   ocasim-post    the same with fire-and-forget pooled events: the handler
 *                  sim_engine_post()s a new event, the old one goes back to
 *                  the pool.
 * Each measurement: fill with N events at increments from 0, min(N, 2^21)
 * untimed warm-up holds (the pending-time distribution settles), then timed holds
 * in chunks until --seconds have passed and at least HOLD_CHECK_OPS ran.
 * Prints RESULT lines (hold.h) for bench/table.awk.  Timing is reported,
 * never judged.  Leaves out: cancel/move (no hold-model counterpart in ns-3's
 * Scheduler benchmarks), multi-threading.
 */
#include <glib.h>
#include "bench/hold.h"
#include "sim/engine.h"

/* Name of the calendar row; bench.mk builds variants (other level width, older calendars). */
#ifndef CAL_ROW
#define CAL_ROW "ocasim-cal"
#endif

typedef struct {
  const uint32_t *incr;
  uint64_t k;    /* next increment index */
  uint64_t left; /* holds left in this chunk */
  uint64_t sum;  /* sum of popped times (checksum) */
} hold_state;

static void bench_cal(const uint32_t *incr, long n, double seconds, hold_timer *tm, uint64_t *check)
{
  SimCalendar cal;
  sim_calendar_init(&cal);
  SimEvent *evs = g_new(SimEvent, n);
  uint64_t k = 0;
  for (long i = 0; i < n; i++) {
    sim_event_init(&evs[i], NULL, NULL);
    sim_calendar_insert(&cal, &evs[i], incr[k++ & HOLD_TABLE_MASK]);
  }
  for (long i = 0; i < hold_warmup(n); i++) {
    SimEvent *ev = sim_calendar_pop(&cal);
    sim_calendar_insert(&cal, ev, ev->time + incr[k++ & HOLD_TABLE_MASK]);
  }
  uint64_t sum = 0;
  hold_timer_start(tm, seconds);
  do {
    for (unsigned c = 0; c < HOLD_CHUNK; c++) {
      SimEvent *ev = sim_calendar_pop(&cal);
      sim_time_ns now = ev->time;
      sum += (uint64_t)now;
      sim_calendar_insert(&cal, ev, now + incr[k++ & HOLD_TABLE_MASK]);
    }
    if (tm->ops + HOLD_CHUNK == HOLD_CHECK_OPS) *check = sum;
  } while (hold_timer_chunk(tm));
  sim_calendar_clear(&cal);
  g_free(evs);
}

/* Handler of the engine rows: reschedule (or post anew) and count. */
static void on_hold(SimEngine *eng, SimEvent *ev, void *ctx)
{
  hold_state *h = ctx;
  h->sum += (uint64_t)sim_engine_now(eng);
  sim_engine_schedule_in(eng, ev, h->incr[h->k++ & HOLD_TABLE_MASK]);
  if (--h->left == 0) sim_engine_stop(eng);
}

static void on_post(SimEngine *eng, SimEvent *ev G_GNUC_UNUSED, void *ctx)
{
  hold_state *h = ctx;
  h->sum += (uint64_t)sim_engine_now(eng);
  sim_engine_post(eng, h->incr[h->k++ & HOLD_TABLE_MASK], on_post, h);
  if (--h->left == 0) sim_engine_stop(eng);
}

static void bench_engine(const uint32_t *incr, long n, double seconds, bool post, hold_timer *tm, uint64_t *check)
{
  g_autoptr(SimEngine) eng = sim_engine_new();
  hold_state h = { incr, 0, 0, 0 };
  SimEvent *evs = post ? NULL : g_new(SimEvent, n);
  for (long i = 0; i < n; i++) {
    sim_time_ns d = incr[h.k++ & HOLD_TABLE_MASK];
    if (post) {
      sim_engine_post(eng, d, on_post, &h);
    } else {
      sim_event_init(&evs[i], on_hold, &h);
      sim_engine_schedule_in(eng, &evs[i], d);
    }
  }
  h.left = (uint64_t)hold_warmup(n);
  sim_engine_run_until(eng, SIM_TIME_NEVER - 1);
  h.sum = 0;
  hold_timer_start(tm, seconds);
  do {
    h.left = HOLD_CHUNK;
    sim_engine_run_until(eng, SIM_TIME_NEVER - 1);
    if (tm->ops + HOLD_CHUNK == HOLD_CHECK_OPS) *check = h.sum;
  } while (hold_timer_chunk(tm));
  g_clear_pointer(&eng, sim_engine_free);
  g_free(evs);
}

int main(int argc, char **argv)
{
  hold_args a;
  int rc = hold_parse_args(argc, argv, &a);
  if (rc) return rc;
  uint32_t *incr = g_new(uint32_t, HOLD_TABLE_LEN);
  hold_fill_table(incr, a.dist, 1);
  for (int s = 0; s < a.n_sizes; s++) {
    long n = a.sizes[s];
    hold_timer tm;
    uint64_t check = 0;
    bench_cal(incr, n, a.seconds, &tm, &check);
    hold_report(CAL_ROW, n, &tm, check);
    if (!a.cal_only) {
      bench_engine(incr, n, a.seconds, false, &tm, &check);
      hold_report("ocasim-engine", n, &tm, check);
      bench_engine(incr, n, a.seconds, true, &tm, &check);
      hold_report("ocasim-post", n, &tm, check);
    }
  }
  g_free(incr);
  return 0;
}
