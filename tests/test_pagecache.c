/* tests/test_pagecache.c — Che's approximation against a simulated LRU cache under Zipf. */
#include <check.h>
#include "tests/support/check_run.h"
#include <math.h>
#include <stdio.h>

#include "models/pagecache.h"
#include "sim/dist.h"
#include "sim/rng.h"

/* Hit ratio of an LRU cache of @cap titles over @requests Zipf draws after @warm ones. */
static double simulate_lru(int titles, double s, int cap, long warm, long requests, guint64 seed)
{
  g_autoptr(SimZipf) z = sim_zipf_new((size_t)titles, s, NULL);
  g_autoptr(gsl_rng) rng = sim_rng_new(seed, "test.lru");
  GQueue lru = G_QUEUE_INIT; /* head: most recent */
  g_autofree GList **where = g_new0(GList *, titles + 1);
  long hits = 0;
  for (long k = 0; k < warm + requests; k++) {
    size_t r = sim_zipf_sample(z, rng);
    if (where[r]) {
      if (k >= warm) hits++;
      g_queue_unlink(&lru, where[r]);
      g_queue_push_head_link(&lru, where[r]);
    } else {
      if ((int)lru.length == cap) {
        GList *old = g_queue_pop_tail_link(&lru);
        where[GPOINTER_TO_SIZE(old->data)] = NULL;
        g_list_free_1(old);
      }
      g_queue_push_head(&lru, GSIZE_TO_POINTER(r));
      where[r] = lru.head;
    }
  }
  g_queue_clear(&lru);
  return (double)hits / (double)requests;
}

START_TEST(test_che_against_lru)
{
  /* 5000 titles, Zipf 0.8 (the scenarios' default exponent), caches of 1 %, 10 % and 40 % of the
   * catalogue: Che's hit ratio within 2 % (absolute) of the simulated LRU's */
  const int n = 5000, caps[] = { 50, 500, 2000 };
  for (int i = 0; i < 3; i++) {
    double che = pagecache_che_hit_ratio(n, 0.8, caps[i], NULL);
    double lru = simulate_lru(n, 0.8, caps[i], 200000, 1000000, 7);
    ck_assert_msg(fabs(che - lru) < 0.02, "cache %d: Che %.4f vs LRU %.4f", caps[i], che, lru);
    fprintf(stderr, "cache %d titles: Che %.4f, simulated LRU %.4f\n", caps[i], che, lru);
    ck_assert(che > 0 && che < 1);
  }
}
END_TEST

START_TEST(test_che_limits)
{
  double t;
  ck_assert_double_eq(pagecache_che_hit_ratio(100, 0.8, 0, &t), 0.0);
  ck_assert_double_eq(pagecache_che_hit_ratio(100, 0.8, 100, &t), 1.0);
  /* uniform popularity: every title alike, so the occupancy N (1 - e^{-T/N}) = C gives
   * h = 1 - e^{-T/N} = C / N exactly */
  ck_assert_double_eq_tol(pagecache_che_hit_ratio(1000, 0.0, 250, &t), 0.25, 1e-9);
  ck_assert_double_eq_tol(t, -1000 * log(0.75), 1e-6);
}
END_TEST

static Suite *suite(void)
{
  Suite *s = suite_create("pagecache");
  TCase *t = tcase_create("che");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, test_che_against_lru);
  tcase_add_test(t, test_che_limits);
  suite_add_tcase(s, t);
  return s;
}

int main(void)
{
  return test_run_suite(suite());
}
