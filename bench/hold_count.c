/* bench/hold_count.c — a fixed number of holds of sim/calendar.c, for
 * counting tools (valgrind --tool=cachegrind): instructions and cache misses
 * per hold are the difference of two runs with different H, divided by the
 * difference of H (bench/README.md, "What bounds the calendar").
 * Usage: hold_count N H — fill N events (bench/hold.h's --exp increments),
 * min(N, 2^21) warm-up holds, then H holds; prints the sum of popped times. */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/hold.h"
#include "sim/calendar.h"

int main(int argc, char **argv)
{
  if (argc != 3) {
    fprintf(stderr, "usage: %s N H\n", argv[0]);
    return 2;
  }
  long n = atol(argv[1]), h = atol(argv[2]);
  if (n < 1 || h < 0) {
    fprintf(stderr, "%s: N must be >= 1 and H >= 0\n", argv[0]);
    return 2;
  }
  uint32_t *incr = g_new(uint32_t, HOLD_TABLE_LEN);
  hold_fill_table(incr, HOLD_EXP, 1);
  SimCalendar cal;
  sim_calendar_init(&cal);
  SimEvent *evs = g_new(SimEvent, n);
  uint64_t k = 0, sum = 0;
  for (long i = 0; i < n; i++) {
    sim_event_init(&evs[i], NULL, NULL);
    sim_calendar_insert(&cal, &evs[i], incr[k++ & HOLD_TABLE_MASK]);
  }
  for (long i = 0; i < hold_warmup(n) + h; i++) {
    SimEvent *ev = sim_calendar_pop(&cal);
    sim_time_ns now = ev->time;
    sum += (uint64_t)now;
    sim_calendar_insert(&cal, ev, now + incr[k++ & HOLD_TABLE_MASK]);
  }
  printf("%llu\n", (unsigned long long)sum);
  sim_calendar_clear(&cal);
  g_free(evs);
  g_free(incr);
  return 0;
}
