/* sim/engine.h — the discrete-event engine: a clock and a calendar.
 *
 * The engine pops the earliest pending event, sets the clock to its time and
 * calls its handler, until the calendar is empty, a stop is requested or the
 * next event lies beyond the run's end.  It knows nothing of what the events
 * mean.  There is no global state: one process may run many engines, one per
 * thread.
 *
 * Events are either owned by the caller (sim_engine_schedule() etc., the
 * usual case for devices: one completion event per server) or fire-and-forget
 * ones taken from the engine's pool (sim_engine_post()), which go back to the
 * pool after they run; the pool grows in blocks, so steady state allocates
 * nothing per event.
 */
#ifndef SIM_ENGINE_H
#define SIM_ENGINE_H

#include <glib.h>
#include "sim/calendar.h"

struct SimEngine {
  SimCalendar cal;
  sim_time_ns now;        /* the clock */
  uint64_t events_run;    /* handlers called so far */
  bool stop;              /* set by sim_engine_stop() */
  SimEvent *pool_free;    /* free pooled events, linked through ctx */
  GPtrArray *pool_blocks; /* owned blocks of pooled events */
};

/* Creates an engine with the clock at 0.  Free with sim_engine_free(). */
SimEngine *sim_engine_new(void);

/* Frees the engine and its pool without touching caller-owned events, so
 *  the engine and the objects owning events may be freed in either order. */
void sim_engine_free(SimEngine *eng);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SimEngine, sim_engine_free)

/* Current simulated time in ns. */
static inline sim_time_ns sim_engine_now(const SimEngine *eng)
{
  return eng->now;
}

/* Schedules an idle caller-owned @ev at absolute time @t_ns (>= now). */
void sim_engine_schedule(SimEngine *eng, SimEvent *ev, sim_time_ns t_ns);

/* Schedules an idle caller-owned @ev @delay_ns (>= 0) from now. */
void sim_engine_schedule_in(SimEngine *eng, SimEvent *ev, sim_time_ns delay_ns);

/* Moves @ev (pending or idle) to absolute time @t_ns (>= now). O(log n). */
void sim_engine_reschedule(SimEngine *eng, SimEvent *ev, sim_time_ns t_ns);

/* Cancels @ev if pending; returns whether it was. O(log n).  Cancelling a
 *  pooled event returns it to the pool: do not touch it afterwards. */
bool sim_engine_cancel(SimEngine *eng, SimEvent *ev);

/* Schedules a one-shot call of @fn(eng, ev, @ctx) @delay_ns from now, using
 *  an event from the engine's pool.  Returns the event (valid until it runs
 *  or is cancelled). */
SimEvent *sim_engine_post(SimEngine *eng, sim_time_ns delay_ns, sim_event_fn fn, void *ctx);

/* Runs events with time <= @t_end_ns, then sets the clock to @t_end_ns
 *  (unless stopped early, when the clock stays at the stopping event).
 *  Returns the number of events run by this call. */
uint64_t sim_engine_run_until(SimEngine *eng, sim_time_ns t_end_ns);

/* Asks sim_engine_run_until() to return after the current handler. */
static inline void sim_engine_stop(SimEngine *eng)
{
  eng->stop = true;
}

/* Number of pending events. */
static inline uint32_t sim_engine_pending(const SimEngine *eng)
{
  return sim_calendar_len(&eng->cal);
}

#endif /* SIM_ENGINE_H */
