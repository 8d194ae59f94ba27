/* bench/ref/alt/sim/calendar.h — header shared by the bench-only candidate
 * calendars bench/ref/alt/ladder.c (ladder queue) and bench/ref/alt/wheel2.c
 * (two-level wheel with a sorted spill): the engine's API over an opaque
 * structure.  Bench reference only, never linked into ocasim.  Their cancel
 * is a linear search (the hold model never cancels; sim/calendar.c's is O(1)).
 */
#ifndef SIM_CALENDAR_H
#define SIM_CALENDAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sim/time.h"

typedef struct SimEvent SimEvent;
typedef struct SimEngine SimEngine;

#define SIM_EVENT_IDLE UINT32_MAX

typedef void (*sim_event_fn)(SimEngine *eng, SimEvent *ev, void *ctx);

struct SimEvent {
  sim_time_ns time;
  SimEvent *next; /* list link of the candidate structure */
  uint64_t seq;   /* insertion order, for FIFO ties where the structure sorts */
  uint32_t slot; /* 0 while pending, SIM_EVENT_IDLE when not */
  uint32_t pooled;
  sim_event_fn fn;
  void *ctx;
};

static inline void sim_event_init(SimEvent *ev, sim_event_fn fn, void *ctx)
{
  ev->time = 0;
  ev->next = NULL;
  ev->seq = 0;
  ev->slot = SIM_EVENT_IDLE;
  ev->pooled = 0;
  ev->fn = fn;
  ev->ctx = ctx;
}

static inline bool sim_event_pending(const SimEvent *ev)
{
  return ev->slot != SIM_EVENT_IDLE;
}

typedef struct SimCalendarImpl SimCalendarImpl;

typedef struct {
  SimCalendarImpl *impl;
  uint32_t n;
} SimCalendar;

void sim_calendar_init(SimCalendar *cal);
void sim_calendar_clear(SimCalendar *cal);
static inline uint32_t sim_calendar_len(const SimCalendar *cal)
{
  return cal->n;
}
sim_time_ns sim_calendar_peek_time(const SimCalendar *cal);
void sim_calendar_insert(SimCalendar *cal, SimEvent *ev, sim_time_ns t_ns);
bool sim_calendar_remove(SimCalendar *cal, SimEvent *ev);
SimEvent *sim_calendar_pop(SimCalendar *cal);

static inline void sim_calendar_move(SimCalendar *cal, SimEvent *ev, sim_time_ns t_ns)
{
  sim_calendar_remove(cal, ev);
  sim_calendar_insert(cal, ev, t_ns);
}

/* Helpers of both candidates: an order-preserving unsigned key of a time,
 * and the (time, sequence) key that orders equal times FIFO. */
__extension__ typedef unsigned __int128 sim_alt_u128;

static inline uint64_t sim_alt_ukey(sim_time_ns t)
{
  return (uint64_t)t ^ (UINT64_C(1) << 63);
}

static inline sim_alt_u128 sim_alt_key(const SimEvent *ev)
{
  return (sim_alt_u128)sim_alt_ukey(ev->time) << 64 | ev->seq;
}

#endif /* SIM_CALENDAR_H */
