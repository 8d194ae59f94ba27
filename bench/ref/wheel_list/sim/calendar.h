/* sim/calendar.h — the pending-event set of the engine.
 *
 * A radix wheel (hierarchical timing wheel over the bits of the integer time,
 * Varghese and Lauck 1987; a multi-level bucket radix heap, Ahuja et al.
 * 1990): level 0 has 4096 buckets one nanosecond wide, each higher level 256
 * buckets 256 times wider, 8 levels for 64 bits.  An event sits in the level
 * of the highest bit where its time differs from a cursor (at most the
 * earliest pending time), in the bucket of its time's digit at that level.
 * Level-0 buckets hold one exact time each, so a bucket is a plain FIFO list
 * and equal times come out in the order they were scheduled, with no
 * sequence numbers and no sorting.  When level 0 runs empty, the first
 * non-empty bucket of the lowest non-empty level is opened: the cursor moves
 * to its start and its events spread, in list order, over the levels below.
 * Events are intrusive: the caller owns the SimEvent, the calendar links it
 * into a doubly linked bucket list, so cancel and reschedule are O(1) (the
 * bucket follows from the event's time and the cursor).  Insert and pop are
 * O(1) amortised: an event moves down at most 7 times, and on workloads like
 * the hold model with mean increment ~1 us about once for every fourth event.
 * Bitmaps with a summary word per level find non-empty buckets.  No
 * allocation after the first insert (the ~100 KiB bucket array), nothing to
 * tune or resize, whatever the distribution of times.  The two list links
 * make SimEvent 48 bytes (32 with the heap).
 *
 * Measured with the hold model of bench/ (`make bench`, exponential
 * increments of mean 1 us, 2-core Xeon VM, million holds/s, best of 5
 * windows; details and other laws in bench/README.md):
 *
 *   pending events          1e3    1e4    1e5    1e6
 *   this radix wheel      111.4   98.3   22.4    9.7
 *   same, 256 level-0 bkts 103.9  76.2   18.4    7.4
 *   4-ary heap (before)    22.7   15.1    8.7    3.5   (bench/ref/heap4/)
 *   ns-3 MapScheduler       7.6    5.5    1.9    0.64  (ns-3's default)
 *   ns-3 HeapScheduler      4.6    3.5    2.7    1.9
 *
 * That is 14.6x / 18.0x / 11.5x / 15.0x ns-3's default scheduler in this
 * run (a second run: 14.0x / 18.5x / 12.5x / 25.8x; 1e6 swings most with
 * the load of the shared VM).  The branch-free fast path (calendar.c) took
 * 1e3 from ~60 to ~110 and 1e4 from ~87 to ~100; 1e5 and 1e6 did not move:
 * there each pop waits for one cache miss, see below.  4096 level-0 buckets
 * rather than 256: an event scheduled ~1 us ahead then lands directly in its
 * exact-time bucket about three times in four, which wins at every size.
 *
 * The heap was a chain of dependent loads and compares (~45 ns per hold at
 * 1e3); the wheel does a few bit operations and touches two list ends (~9 ns
 * per hold at 1e3).  At 1e5-1e6 the cost is one cache miss per pop (the next
 * event of a bucket list is only known once the previous one is loaded; the
 * pop prefetches it, one event ahead, which is as far as a list allows).
 */
#ifndef SIM_CALENDAR_H
#define SIM_CALENDAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sim/time.h"

typedef struct SimEvent SimEvent;
typedef struct SimEngine SimEngine;

/* Slot value of an event that is not scheduled. */
#define SIM_EVENT_IDLE UINT32_MAX

/* An event handler: runs at ev->time with the engine clock set to it.
 *  It may reschedule @ev itself (periodic events) or schedule others. */
typedef void (*sim_event_fn)(SimEngine *eng, SimEvent *ev, void *ctx);

/* An event.  Owned by the caller (embed it in a long-lived object) or taken
 *  from the engine pool with sim_engine_post().  Initialise with
 *  sim_event_init() before first use. */
struct SimEvent {
  sim_time_ns time; /* when it fires; valid while pending */
  SimEvent *next;   /* calendar internal: bucket list links */
  SimEvent *prev;
  uint32_t slot;   /* 0 while pending, SIM_EVENT_IDLE when not */
  uint32_t pooled; /* 1: returned to the engine pool after it runs */
  sim_event_fn fn;
  void *ctx;
};

/* Prepares @ev to call @fn(engine, ev, @ctx) when it fires. */
static inline void sim_event_init(SimEvent *ev, sim_event_fn fn, void *ctx)
{
  ev->time = 0;
  ev->next = ev->prev = NULL;
  ev->slot = SIM_EVENT_IDLE;
  ev->pooled = 0;
  ev->fn = fn;
  ev->ctx = ctx;
}

/* True while @ev is in a calendar. */
static inline bool sim_event_pending(const SimEvent *ev)
{
  return ev->slot != SIM_EVENT_IDLE;
}

/* Internal: one bucket, a doubly linked FIFO list of events; both pointers
 * are stale while the bucket is empty (its bitmap bit is clear). */
typedef struct {
  SimEvent *head, *tail;
} SimCalendarList;

/* Internal: most levels any build of calendar.c uses. */
#define SIM_CALENDAR_MAX_LEVELS 16

/* The pending-event set.  Initialise with sim_calendar_init().  The fields
 *  are internal: use the functions below. */
typedef struct {
  SimCalendarList *list;                     /* every bucket, level by level; NULL until the first insert */
  uint64_t *bits;                            /* occupancy bitmaps of the buckets, level by level */
  uint64_t summary[SIM_CALENDAR_MAX_LEVELS]; /* bit w: word w of the level's bitmap != 0 */
  uint64_t cursor;                           /* order-preserving key (calendar.c) <= every pending time */
  uint32_t n;                                /* pending events */
  uint32_t cur;                              /* first non-empty bucket of level 0, UINT32_MAX if none */
} SimCalendar;

/* Initialises an empty calendar. */
void sim_calendar_init(SimCalendar *cal);

/* Frees the bucket arrays without touching the events (their owners may be
 *  gone already); events still pending then must not be scheduled again. */
void sim_calendar_clear(SimCalendar *cal);

/* Number of pending events. */
static inline uint32_t sim_calendar_len(const SimCalendar *cal)
{
  return cal->n;
}

/* Internal: time of the earliest event when the finest level is empty. */
sim_time_ns sim_calendar_peek_slow_(SimCalendar *cal);

/* Time of the earliest pending event, or SIM_TIME_NEVER when empty.  O(1)
 *  amortised. */
static inline sim_time_ns sim_calendar_peek_time(const SimCalendar *cal)
{
  if (cal->cur != UINT32_MAX) /* the finest level holds the earliest event */
    return cal->list[cal->cur].head->time;
  /* logically const: the pending set does not change */
  return cal->n ? sim_calendar_peek_slow_((SimCalendar *)cal) : SIM_TIME_NEVER;
}

/* Schedules @ev (which must not be pending) at absolute time @t_ns. O(1)
 *  amortised. */
void sim_calendar_insert(SimCalendar *cal, SimEvent *ev, sim_time_ns t_ns);

/* Removes a pending @ev; returns false (and does nothing) if it is not
 *  pending. O(1). */
bool sim_calendar_remove(SimCalendar *cal, SimEvent *ev);

/* Moves @ev to @t_ns, scheduling it if idle.  It goes behind the events
 *  already scheduled for the same time. O(1) amortised. */
void sim_calendar_move(SimCalendar *cal, SimEvent *ev, sim_time_ns t_ns);

/* Removes and returns the earliest event, or NULL when empty.  Equal times
 *  come out in the order they were scheduled (or moved). O(1) amortised. */
SimEvent *sim_calendar_pop(SimCalendar *cal);

#endif /* SIM_CALENDAR_H */
