/* tests/test_calendar.c — the event calendar and engine: order, FIFO ties,
 * cancel and reschedule against a brute-force reference. */
#include <check.h>
#include "tests/support/check_run.h"
#include <glib.h>
#include <gsl/gsl_rng.h>
#include "sim/engine.h"
#include "sim/rng.h"

typedef struct {
  SimEvent ev;
  int id;
} item;

START_TEST(test_pop_order_matches_sorted)
{
  enum { N = 5000 };
  SimCalendar cal;
  sim_calendar_init(&cal);
  item *items = g_new0(item, N);
  g_autoptr(gsl_rng) r = sim_rng_new(1, "calendar-test");
  for (int i = 0; i < N; i++) {
    sim_event_init(&items[i].ev, NULL, NULL);
    items[i].id = i;
    sim_calendar_insert(&cal, &items[i].ev, (sim_time_ns)gsl_rng_uniform_int(r, 1000));
  }
  /* cancel every third, move every fifth to a new time */
  for (int i = 0; i < N; i += 3) ck_assert(sim_calendar_remove(&cal, &items[i].ev));
  for (int i = 1; i < N; i += 5)
    if (i % 3 != 0) sim_calendar_move(&cal, &items[i].ev, (sim_time_ns)gsl_rng_uniform_int(r, 1000));
  ck_assert(!sim_calendar_remove(&cal, &items[0].ev)); /* already cancelled */
  sim_time_ns last_t = -1;
  int count = 0;
  GHashTable *seen_at = g_hash_table_new(NULL, NULL);
  for (SimEvent *ev; (ev = sim_calendar_pop(&cal)); count++) {
    ck_assert_int_ge(ev->time, last_t);
    ck_assert(!sim_event_pending(ev));
    last_t = ev->time;
    item *it = (item *)ev;
    ck_assert_int_ne(it->id % 3, 0);
    g_hash_table_add(seen_at, it);
  }
  ck_assert_int_eq(count, N - (N + 2) / 3);
  ck_assert_int_eq(g_hash_table_size(seen_at), count);
  g_hash_table_destroy(seen_at);
  sim_calendar_clear(&cal);
  g_free(items);
}
END_TEST

START_TEST(test_equal_times_fifo)
{
  SimCalendar cal;
  sim_calendar_init(&cal);
  item items[100];
  for (int i = 0; i < 100; i++) {
    sim_event_init(&items[i].ev, NULL, NULL);
    items[i].id = i;
    sim_calendar_insert(&cal, &items[i].ev, 42);
  }
  /* Moving an event to the same time sends it to the back of the tie. */
  sim_calendar_move(&cal, &items[0].ev, 42);
  for (int i = 1; i < 100; i++) ck_assert_int_eq(((item *)sim_calendar_pop(&cal))->id, i);
  ck_assert_int_eq(((item *)sim_calendar_pop(&cal))->id, 0);
  ck_assert_ptr_null(sim_calendar_pop(&cal));
  sim_calendar_clear(&cal);
}
END_TEST

/* Random interleaving of pop, insert, cancel, move, peek and len (so the
 * root hole that pop leaves meets every operation), against a brute-force
 * reference: the pending event with the smallest (time, order) pair. */
typedef struct {
  SimEvent ev;
  sim_time_ns t;
  uint64_t order;
} ref_item;

static ref_item *ref_min(ref_item *it, int n)
{
  ref_item *best = NULL;
  for (int i = 0; i < n; i++)
    if (sim_event_pending(&it[i].ev) && (!best || it[i].t < best->t || (it[i].t == best->t && it[i].order < best->order)))
      best = &it[i];
  return best;
}

START_TEST(test_interleaved_against_reference)
{
  enum { N = 300, OPS = 60000 };
  SimCalendar cal;
  sim_calendar_init(&cal);
  ref_item *it = g_new0(ref_item, N);
  for (int i = 0; i < N; i++) sim_event_init(&it[i].ev, NULL, NULL);
  g_autoptr(gsl_rng) r = sim_rng_new(3, "calendar-interleave");
  uint64_t order = 0;
  sim_time_ns now = 0;
  uint32_t pending = 0;
  int pops = 0;
  for (int op = 0; op < OPS; op++) {
    ref_item *x = &it[gsl_rng_uniform_int(r, N)];
    sim_time_ns t = now + (sim_time_ns)gsl_rng_uniform_int(r, 50); /* ties happen */
    switch (gsl_rng_uniform_int(r, 6)) {
      case 0:
      case 1: { /* pop */
        ref_item *want = ref_min(it, N);
        SimEvent *got = sim_calendar_pop(&cal);
        ck_assert_ptr_eq(got, want ? &want->ev : NULL);
        if (want) {
          ck_assert(!sim_event_pending(got));
          ck_assert_int_eq(got->time, want->t);
          now = want->t;
          pending--;
          pops++;
        }
        break;
      }
      case 2:
      case 3: /* insert or move */
        if (!sim_event_pending(&x->ev)) {
          sim_calendar_insert(&cal, &x->ev, t);
          pending++;
        } else {
          sim_calendar_move(&cal, &x->ev, t);
        }
        x->t = t;
        x->order = order++;
        break;
      case 4: { /* cancel */
        bool was = sim_event_pending(&x->ev);
        ck_assert(sim_calendar_remove(&cal, &x->ev) == was);
        ck_assert(!sim_event_pending(&x->ev));
        pending -= was;
        break;
      }
      default: { /* peek, len */
        ref_item *want = ref_min(it, N);
        ck_assert_int_eq(sim_calendar_peek_time(&cal), want ? want->t : SIM_TIME_NEVER);
        break;
      }
    }
    ck_assert_uint_eq(sim_calendar_len(&cal), pending);
  }
  ck_assert_int_gt(pops, OPS / 4);
  sim_calendar_clear(&cal);
  g_free(it);
}
END_TEST

/* Differential test against the brute-force reference under several time
 * laws, chosen to hit every path of the bucket levels: dense ties, wide and
 * huge gaps (jumps far beyond the finest level and across the top levels),
 * a few exact values (many equal times), and times before the last popped
 * one, negative ones included (a calendar used alone may go back: the cursor
 * rewinds).  The mix of operations drifts between insert-heavy and pop-heavy
 * phases, so the set grows to N and drains to empty several times. */
enum { LAW_TIES, LAW_WIDE, LAW_HUGE, LAW_FEW, LAW_PAST, LAW_MIX, N_LAWS };

/* now + d, clamped to the range of sim_time_ns (times reach both ends) */
static sim_time_ns add_sat(sim_time_ns now, int64_t d)
{
  if (d > 0 && now > INT64_MAX - d) return INT64_MAX;
  if (d < 0 && now < INT64_MIN - d) return INT64_MIN;
  return now + d;
}

static sim_time_ns draw_time(gsl_rng *r, int law, sim_time_ns now)
{
  if (law == LAW_MIX) law = (int)gsl_rng_uniform_int(r, LAW_MIX);
  switch (law) {
    case LAW_TIES: return add_sat(now, (int64_t)gsl_rng_uniform_int(r, 20));
    case LAW_WIDE: return add_sat(now, (int64_t)(gsl_rng_get(r) & ((1u << 22) - 1)) * (gsl_rng_uniform_int(r, 4) ? 1 : 97));
    case LAW_HUGE: {
      unsigned bits = (unsigned)gsl_rng_uniform_int(r, 62);
      uint64_t x = ((uint64_t)gsl_rng_get(r) << 32 | gsl_rng_get(r)) & ((UINT64_C(1) << bits) - 1);
      return add_sat(now, (int64_t)x);
    }
    case LAW_FEW: {
      static const sim_time_ns d[] = { 0, 0, 1, 4096, 5000, 1 << 20 };
      return add_sat(now, d[gsl_rng_uniform_int(r, G_N_ELEMENTS(d))]);
    }
    default: { /* LAW_PAST */
      uint64_t u = gsl_rng_uniform_int(r, 100);
      if (u == 0) return (sim_time_ns)((uint64_t)gsl_rng_get(r) << 32 | gsl_rng_get(r)); /* any sign */
      if (u < 10) return -(sim_time_ns)gsl_rng_uniform_int(r, 1u << 30);
      return add_sat(now, (int64_t)gsl_rng_uniform_int(r, 12000) - 6000);
    }
  }
}

static void run_differential(int law, int n, int ops, unsigned long seed)
{
  SimCalendar cal;
  sim_calendar_init(&cal);
  ref_item *it = g_new0(ref_item, n);
  for (int i = 0; i < n; i++) sim_event_init(&it[i].ev, NULL, NULL);
  g_autoptr(gsl_rng) r = sim_rng_new(seed, "calendar-differential");
  uint64_t order = 0;
  sim_time_ns now = law == LAW_PAST ? 0 : (sim_time_ns)gsl_rng_uniform_int(r, 1u << 30);
  uint32_t pending = 0, max_pending = 0, empties = 0;
  int pops = 0;
  for (int op = 0; op < ops; op++) {
    ref_item *x = &it[gsl_rng_uniform_int(r, n)];
    /* phases of 4000 ops: insert-heavy, balanced, pop-heavy */
    unsigned phase = (unsigned)(op / 4000) % 3;
    unsigned u = (unsigned)gsl_rng_uniform_int(r, 100);
    unsigned p_pop = phase == 0 ? 5 : phase == 1 ? 35 : 60;
    if (u < p_pop) { /* pop */
      ref_item *want = ref_min(it, n);
      SimEvent *got = sim_calendar_pop(&cal);
      ck_assert_ptr_eq(got, want ? &want->ev : NULL);
      if (want) {
        ck_assert(!sim_event_pending(got));
        ck_assert_int_eq(got->time, want->t);
        now = want->t;
        pending--;
        pops++;
        empties += pending == 0;
      }
    } else if (u < p_pop + 35) { /* insert or move */
      sim_time_ns t = draw_time(r, law, now);
      if (!sim_event_pending(&x->ev)) {
        sim_calendar_insert(&cal, &x->ev, t);
        pending++;
      } else {
        sim_calendar_move(&cal, &x->ev, t);
      }
      ck_assert(sim_event_pending(&x->ev));
      ck_assert_int_eq(x->ev.time, t);
      x->t = t;
      x->order = order++;
    } else if (u < p_pop + 45) { /* cancel */
      bool was = sim_event_pending(&x->ev);
      ck_assert(sim_calendar_remove(&cal, &x->ev) == was);
      ck_assert(!sim_event_pending(&x->ev));
      pending -= was;
    } else { /* peek (may open a bucket) */
      ref_item *want = ref_min(it, n);
      ck_assert_int_eq(sim_calendar_peek_time(&cal), want ? want->t : SIM_TIME_NEVER);
    }
    ck_assert_uint_eq(sim_calendar_len(&cal), pending);
    if (pending > max_pending) max_pending = pending;
  }
  /* drain: everything comes out in reference order */
  for (ref_item *want; (want = ref_min(it, n)); pending--) ck_assert_ptr_eq(sim_calendar_pop(&cal), &want->ev);
  ck_assert_ptr_null(sim_calendar_pop(&cal));
  ck_assert_int_eq(sim_calendar_peek_time(&cal), SIM_TIME_NEVER);
  ck_assert_uint_eq(pending, 0);
  ck_assert_int_gt(pops, ops / 5);
  ck_assert_uint_gt(max_pending, (uint32_t)n / 2); /* it did grow ... */
  ck_assert_uint_gt(empties, 0);                   /* ... and drain */
  sim_calendar_clear(&cal);
  g_free(it);
}

START_TEST(test_differential_laws)
{
  run_differential(_i, 700, 48000, 100 + (unsigned long)_i);
}
END_TEST

/* 100000 events at one time, every tenth moved to that same time: FIFO,
 * with the moved ones behind in the order they were moved. */
START_TEST(test_many_equal_times_fifo)
{
  enum { N = 100000 };
  SimCalendar cal;
  sim_calendar_init(&cal);
  item *items = g_new(item, N);
  sim_time_ns t = 3 * SIM_NS_PER_S + 7;
  for (int i = 0; i < N; i++) {
    sim_event_init(&items[i].ev, NULL, NULL);
    items[i].id = i;
    sim_calendar_insert(&cal, &items[i].ev, t);
  }
  ck_assert_int_eq(sim_calendar_peek_time(&cal), t);
  for (int i = 0; i < N; i += 10) sim_calendar_move(&cal, &items[i].ev, t);
  for (int i = 0; i < N; i++)
    if (i % 10) ck_assert_int_eq(((item *)sim_calendar_pop(&cal))->id, i);
  for (int i = 0; i < N; i += 10) ck_assert_int_eq(((item *)sim_calendar_pop(&cal))->id, i);
  ck_assert_ptr_null(sim_calendar_pop(&cal));
  sim_calendar_clear(&cal);
  g_free(items);
}
END_TEST

/* Order of the reference for the large tests: (time, order). */
static gint ref_cmp(gconstpointer a, gconstpointer b, gpointer user G_GNUC_UNUSED)
{
  const ref_item *x = a, *y = b;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

static ref_item *tree_min(GTree *t)
{
  GTreeNode *n = g_tree_node_first(t);
  return n ? g_tree_node_key(n) : NULL;
}

/* The set grows past the switch to array buckets (49152 pending) and shrinks
 * below the switch back to lists (16384), twice, under ties, far-future
 * times, cancels (runs of cancels in one bucket, so tombstones build up and
 * buckets get compacted) and moves, against a sorted reference (GTree of
 * (time, order)).  Both bucket kinds and both conversions must have run. */
START_TEST(test_switch_differential)
{
  enum { N = 150000 };
  SimCalendar cal;
  sim_calendar_init(&cal);
  ref_item *it = g_new0(ref_item, N);
  for (int i = 0; i < N; i++) sim_event_init(&it[i].ev, NULL, NULL);
  g_autoptr(GTree) ref = g_tree_new_full(ref_cmp, NULL, NULL, NULL);
  g_autoptr(gsl_rng) r = sim_rng_new(7, "calendar-switch");
  uint64_t order = 0;
  sim_time_ns now = 1000;
  uint32_t to_arrays = 0, to_lists = 0, was_arrays = 0;
  int cycle = 0;
  bool growing = true;
  while (cycle < 2) {
    uint32_t pending = sim_calendar_len(&cal);
    if (growing && pending >= 60000) growing = false;
    if (!growing && pending <= 8000) {
      growing = true;
      cycle++;
    }
    unsigned u = (unsigned)gsl_rng_uniform_int(r, 100);
    unsigned p_pop = growing ? 10 : 60, p_ins = growing ? 80 : 25, p_cancel = growing ? 1 : 8;
    ref_item *x = &it[gsl_rng_uniform_int(r, N)];
    if (u < p_pop) {
      ref_item *want = tree_min(ref);
      SimEvent *got = sim_calendar_pop(&cal);
      ck_assert_ptr_eq(got, want ? &want->ev : NULL);
      if (want) {
        g_tree_remove(ref, want);
        now = want->t;
      }
    } else if (u < p_pop + p_ins) {
      unsigned law = (unsigned)gsl_rng_uniform_int(r, 8);
      sim_time_ns t = law < 4   ? now + (sim_time_ns)gsl_rng_uniform_int(r, 3000)        /* level 0 and 1, ties */
                      : law < 6 ? now + (sim_time_ns)gsl_rng_uniform_int(r, 4) * 1000    /* few exact values */
                      : law < 7 ? now + (sim_time_ns)(gsl_rng_get(r) & ((1u << 30) - 1)) /* far */
                                : now + ((sim_time_ns)gsl_rng_get(r) << 20);             /* very far */
      if (sim_event_pending(&x->ev)) {
        g_tree_remove(ref, x);
        sim_calendar_move(&cal, &x->ev, t);
      } else {
        sim_calendar_insert(&cal, &x->ev, t);
      }
      x->t = t;
      x->order = order++;
      g_tree_insert(ref, x, x);
    } else if (u < p_pop + p_ins + p_cancel) { /* cancel a run of neighbours: tombstones */
      for (int j = 0; j < 20; j++) {
        ref_item *y = &it[(x - it + j) % N];
        bool was = sim_event_pending(&y->ev);
        ck_assert(sim_calendar_remove(&cal, &y->ev) == was);
        if (was) g_tree_remove(ref, y);
      }
    } else {
      ref_item *want = tree_min(ref);
      ck_assert_int_eq(sim_calendar_peek_time(&cal), want ? want->t : SIM_TIME_NEVER);
    }
    ck_assert_uint_eq(sim_calendar_len(&cal), (uint32_t)g_tree_nnodes(ref));
    if (cal.arrays != was_arrays) {
      to_arrays += cal.arrays;
      to_lists += !cal.arrays;
      was_arrays = cal.arrays;
    }
  }
  ck_assert_uint_ge(to_arrays, 2);
  ck_assert_uint_ge(to_lists, 2);
  for (ref_item *want; (want = tree_min(ref));) {
    ck_assert_ptr_eq(sim_calendar_pop(&cal), &want->ev);
    g_tree_remove(ref, want);
  }
  ck_assert_ptr_null(sim_calendar_pop(&cal));
  sim_calendar_clear(&cal);
  g_free(it);
}
END_TEST

/* Array buckets: 60000 events at one time (so the set uses arrays), the
 * head, the tail and a long middle run cancelled (tombstones, compaction),
 * some moved to the same time (they go behind): the rest come out in order,
 * then the moved ones, then a far-future event; the set drains through the
 * switch back to lists. */
START_TEST(test_array_ties_cancel_far)
{
  enum { N = 60000 };
  SimCalendar cal;
  sim_calendar_init(&cal);
  item *items = g_new(item, N + 1);
  sim_time_ns t = 5 * SIM_NS_PER_S + 3;
  for (int i = 0; i <= N; i++) {
    sim_event_init(&items[i].ev, NULL, NULL);
    items[i].id = i;
  }
  sim_calendar_insert(&cal, &items[N].ev, INT64_MAX - 1); /* far future */
  for (int i = 0; i < N; i++) sim_calendar_insert(&cal, &items[i].ev, t);
  ck_assert_uint_eq(cal.arrays, 1);
  ck_assert(sim_calendar_remove(&cal, &items[0].ev));     /* head */
  ck_assert(sim_calendar_remove(&cal, &items[N - 1].ev)); /* tail */
  for (int i = 100; i < 20000; i++) ck_assert(sim_calendar_remove(&cal, &items[i].ev));
  for (int i = 20000; i < 20100; i++) sim_calendar_move(&cal, &items[i].ev, t);
  ck_assert_int_eq(sim_calendar_peek_time(&cal), t);
  for (int i = 1; i < N - 1; i++)
    if (i < 100 || i >= 20100) ck_assert_int_eq(((item *)sim_calendar_pop(&cal))->id, i);
  for (int i = 20000; i < 20100; i++) ck_assert_int_eq(((item *)sim_calendar_pop(&cal))->id, i);
  ck_assert_uint_eq(cal.arrays, 0); /* shrank back to lists */
  ck_assert_int_eq(sim_calendar_peek_time(&cal), INT64_MAX - 1);
  ck_assert_int_eq(((item *)sim_calendar_pop(&cal))->id, N);
  ck_assert_ptr_null(sim_calendar_pop(&cal));
  sim_calendar_clear(&cal);
  g_free(items);
}
END_TEST

/* The engine's pattern around run_until: a peek that finds nothing due opens
 * a coarse bucket, then the caller schedules between "now" and the peeked
 * event; it must come first, and ties must keep FIFO across the rewind. */
START_TEST(test_insert_after_peek_before_next)
{
  SimCalendar cal;
  sim_calendar_init(&cal);
  item a[6];
  for (int i = 0; i < 6; i++) {
    sim_event_init(&a[i].ev, NULL, NULL);
    a[i].id = i;
  }
  sim_calendar_insert(&cal, &a[0].ev, 1000000); /* far: a coarse level */
  sim_calendar_insert(&cal, &a[1].ev, 1000000); /* tie, after a[0] */
  sim_calendar_insert(&cal, &a[2].ev, 1000000 + 5);
  ck_assert_int_eq(sim_calendar_peek_time(&cal), 1000000); /* opens buckets */
  sim_calendar_insert(&cal, &a[3].ev, 10);                 /* before the cursor */
  sim_calendar_insert(&cal, &a[4].ev, 1000000);            /* tie, after a[1] */
  sim_calendar_insert(&cal, &a[5].ev, 999999);
  static const int want[] = { 3, 5, 0, 1, 4, 2 };
  for (int i = 0; i < 6; i++) ck_assert_int_eq(((item *)sim_calendar_pop(&cal))->id, want[i]);
  ck_assert_ptr_null(sim_calendar_pop(&cal));
  sim_calendar_clear(&cal);
}
END_TEST

typedef struct {
  GArray *log;
  SimEvent self;
  int ticks;
} recorder;

static void on_post(SimEngine *eng, SimEvent *ev G_GNUC_UNUSED, void *ctx)
{
  recorder *rec = ctx;
  sim_time_ns t = sim_engine_now(eng);
  g_array_append_val(rec->log, t);
}

static void on_tick(SimEngine *eng, SimEvent *ev, void *ctx)
{
  recorder *rec = ctx;
  if (++rec->ticks < 10) sim_engine_schedule_in(eng, ev, 100);
}

START_TEST(test_engine_pool_and_periodic)
{
  g_autoptr(SimEngine) eng = sim_engine_new();
  recorder rec = { g_array_new(FALSE, FALSE, sizeof(sim_time_ns)), { 0 }, 0 };
  sim_event_init(&rec.self, on_tick, &rec);
  sim_engine_schedule(eng, &rec.self, 0);
  for (int i = 0; i < 3000; i++) /* more than one pool block */
    sim_engine_post(eng, 3000 - i, on_post, &rec);
  SimEvent *cancelled = sim_engine_post(eng, 5, on_post, &rec);
  ck_assert(sim_engine_cancel(eng, cancelled));
  uint64_t n = sim_engine_run_until(eng, 2000);
  ck_assert_int_eq(sim_engine_now(eng), 2000);
  ck_assert_int_eq(rec.ticks, 10); /* t = 0..900 */
  ck_assert_uint_eq(n, 10 + 2000); /* posts at t = 1..2000 */
  ck_assert_uint_eq(rec.log->len, 2000);
  for (guint i = 1; i < rec.log->len; i++)
    ck_assert_int_ge(g_array_index(rec.log, sim_time_ns, i), g_array_index(rec.log, sim_time_ns, i - 1));
  ck_assert_uint_eq(sim_engine_pending(eng), 1000);
  sim_engine_run_until(eng, SIM_TIME_NEVER - 1);
  ck_assert_uint_eq(rec.log->len, 3000);
  g_array_free(rec.log, TRUE);
}
END_TEST

START_TEST(test_rng_streams)
{
  ck_assert_uint_ne(sim_rng_seed_for(1, "nvme0"), sim_rng_seed_for(1, "nvme1"));
  ck_assert_uint_ne(sim_rng_seed_for(1, "nvme0"), sim_rng_seed_for(2, "nvme0"));
  ck_assert_uint_eq(sim_rng_seed_for(7, "nic0.port1"), sim_rng_seed_for(7, "nic0.port1"));
  g_autoptr(gsl_rng) a = sim_rng_new(9, "x");
  g_autoptr(gsl_rng) b = sim_rng_new(9, "x");
  for (int i = 0; i < 100; i++) ck_assert_uint_eq(gsl_rng_get(a), gsl_rng_get(b));
}
END_TEST

int main(void)
{
  Suite *s = suite_create("calendar");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_pop_order_matches_sorted);
  tcase_add_test(tc, test_equal_times_fifo);
  tcase_add_test(tc, test_interleaved_against_reference);
  tcase_add_loop_test(tc, test_differential_laws, 0, N_LAWS);
  tcase_add_test(tc, test_many_equal_times_fifo);
  tcase_add_test(tc, test_insert_after_peek_before_next);
  tcase_add_test(tc, test_engine_pool_and_periodic);
  tcase_add_test(tc, test_rng_streams);
  suite_add_tcase(s, tc);
  /* the size switch: sets of 60000+ events against a GTree (slow under ASan) */
  TCase *big = tcase_create("switch");
  tcase_add_test(big, test_switch_differential);
  tcase_add_test(big, test_array_ties_cancel_far);
  tcase_set_timeout(big, 120);
  suite_add_tcase(s, big);
  return test_run_suite(s);
}
