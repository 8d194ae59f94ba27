/* sim/engine.c — clock, calendar and the pool of one-shot events. */
#include "sim/engine.h"

/* Events allocated at once for the pool (an allocation granule; assumed). */
#define POOL_BLOCK 1024

SimEngine *sim_engine_new(void)
{
  SimEngine *eng = g_new0(SimEngine, 1);
  sim_calendar_init(&eng->cal);
  eng->pool_blocks = g_ptr_array_new_with_free_func(g_free);
  return eng;
}

void sim_engine_free(SimEngine *eng)
{
  if (!eng) return;
  sim_calendar_clear(&eng->cal);
  g_ptr_array_free(eng->pool_blocks, TRUE);
  g_free(eng);
}

void sim_engine_schedule(SimEngine *eng, SimEvent *ev, sim_time_ns t_ns)
{
  g_assert(t_ns >= eng->now);
  sim_calendar_insert(&eng->cal, ev, t_ns);
}

void sim_engine_schedule_in(SimEngine *eng, SimEvent *ev, sim_time_ns delay_ns)
{
  g_assert(delay_ns >= 0);
  sim_calendar_insert(&eng->cal, ev, eng->now + delay_ns);
}

void sim_engine_reschedule(SimEngine *eng, SimEvent *ev, sim_time_ns t_ns)
{
  g_assert(t_ns >= eng->now);
  sim_calendar_move(&eng->cal, ev, t_ns);
}

static void pool_put(SimEngine *eng, SimEvent *ev)
{
  ev->ctx = eng->pool_free;
  ev->fn = NULL;
  eng->pool_free = ev;
}

bool sim_engine_cancel(SimEngine *eng, SimEvent *ev)
{
  if (!sim_calendar_remove(&eng->cal, ev)) return false;
  if (ev->pooled) pool_put(eng, ev);
  return true;
}

SimEvent *sim_engine_post(SimEngine *eng, sim_time_ns delay_ns, sim_event_fn fn, void *ctx)
{
  if (!eng->pool_free) {
    SimEvent *block = g_new(SimEvent, POOL_BLOCK);
    g_ptr_array_add(eng->pool_blocks, block);
    for (int i = POOL_BLOCK - 1; i >= 0; i--) {
      sim_event_init(&block[i], NULL, NULL);
      block[i].pooled = 1;
      pool_put(eng, &block[i]);
    }
  }
  SimEvent *ev = eng->pool_free;
  eng->pool_free = ev->ctx;
  ev->fn = fn;
  ev->ctx = ctx;
  sim_engine_schedule_in(eng, ev, delay_ns);
  return ev;
}

uint64_t sim_engine_run_until(SimEngine *eng, sim_time_ns t_end_ns)
{
  uint64_t n = 0;
  eng->stop = false;
  while (!eng->stop && sim_calendar_peek_time(&eng->cal) <= t_end_ns) {
    SimEvent *ev = sim_calendar_pop(&eng->cal);
    eng->now = ev->time;
    ev->fn(eng, ev, ev->ctx);
    n++;
    if (ev->pooled && !sim_event_pending(ev)) pool_put(eng, ev);
  }
  if (!eng->stop && t_end_ns > eng->now) eng->now = t_end_ns;
  eng->events_run += n;
  return n;
}
