/* sim/calendar.h — the pending-event set of the engine.
 *
 * What it models: a radix wheel over the bits of the integer time: level 0 has 4096 one-ns
 * buckets, each higher level 256 buckets 256 times wider (8 levels for 64 bits); equal times come
 * out in the order scheduled. Insert and pop O(1) amortised, cancel O(1). Buckets are intrusive
 * FIFO lists up to 49152 pending and chunked arrays down to 16384 (switched by size).
 * Sources: Varghese and Lauck 1987 (timing wheels); Ahuja et al. 1990 (radix heap);
 * bench/README.md (the hold-model measurements against the other candidates).
 * Leaves out: priorities among events of one time (they leave in the order scheduled).
 * Evidence and history: docs/model/calendar.md.
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

/* Internal: entries per chunk of a bucket (the chunk is 256 bytes). */
#define SIM_CALENDAR_CHUNK 31

/* Internal: one chunk of a bucket's array of event pointers. */
typedef struct SimCalendarChunk SimCalendarChunk;
struct SimCalendarChunk {
  SimCalendarChunk *next; /* next chunk of the bucket, or of the free list; always a chunk or NULL */
  SimEvent *ev[SIM_CALENDAR_CHUNK];
};

/* An event.  Owned by the caller (embed it in a long-lived object) or taken
 *  from the engine pool with sim_engine_post().  Initialise with
 *  sim_event_init() before first use. */
struct SimEvent {
  sim_time_ns time;          /* when it fires; valid while pending */
  union {                    /* calendar internal */
    SimEvent *next;          /* list buckets: next in the bucket */
    SimCalendarChunk *chunk; /* array buckets: the chunk holding it */
  };
  SimEvent *prev;  /* calendar internal: previous in a list bucket */
  uint32_t slot;   /* pending: 0 (lists) or the index in chunk (arrays); SIM_EVENT_IDLE when not */
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

/* Internal: one list bucket, a doubly linked FIFO list of events; both
 * pointers are stale while the bucket is empty (its bitmap bit is clear). */
typedef struct {
  SimEvent *head, *tail;
} SimCalendarList;

/* Internal: one array bucket, a FIFO array of event pointers in a chain of chunks,
 * first (holding the head entry) to last (where the tail appends).  An empty
 * bucket (bitmap bit clear) has live == dead == head == tail == 0 and keeps
 * one chunk (first == last) or none. */
typedef struct {
  SimCalendarChunk *first, *last;
  uint32_t head; /* index in first of the earliest entry; a live one while live > 0 */
  uint32_t tail; /* index in last of the next free entry */
  uint32_t live; /* pending events in the bucket */
  uint32_t dead; /* tombstones (cancelled entries) between head and tail */
} SimCalendarBucket;

/* Internal: most levels any build of calendar.c uses. */
#define SIM_CALENDAR_MAX_LEVELS 16

/* The pending-event set.  Initialise with sim_calendar_init().  The fields
 *  are internal: use the functions below. */
typedef struct {
  SimCalendarList *list;                     /* list buckets, level by level; NULL until used */
  SimCalendarBucket *bucket;                 /* array buckets, level by level; NULL until used */
  uint64_t *bits;                            /* occupancy bitmaps of the buckets, level by level */
  uint64_t summary[SIM_CALENDAR_MAX_LEVELS]; /* bit w: word w of the level's bitmap != 0 */
  uint64_t cursor;                           /* order-preserving key (calendar.c) <= every pending time */
  uint32_t n;                                /* pending events */
  uint32_t cur;                              /* first non-empty bucket of level 0, UINT32_MAX if none */
  uint32_t arrays;                           /* 1: array buckets are in use, 0: list buckets */
  uint32_t up_at, down_at;                   /* switch to arrays when n > up_at, to lists when n < down_at */
  SimCalendarChunk *free_chunks;             /* free list of chunks */
  void **blocks;                             /* allocations behind the chunks */
  uint32_t n_blocks, cap_blocks;
} SimCalendar;

/* Initialises an empty calendar. */
void sim_calendar_init(SimCalendar *cal);

/* Frees the buckets and chunks without touching the events (their owners may
 *  be gone already); events still pending then must not be scheduled again. */
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
  if (cal->cur != UINT32_MAX) { /* the finest level holds the earliest event */
    if (!cal->arrays) return cal->list[cal->cur].head->time;
    const SimCalendarBucket *bk = &cal->bucket[cal->cur];
    return bk->first->ev[bk->head]->time;
  }
  /* logically const: the pending set does not change */
  return cal->n ? sim_calendar_peek_slow_((SimCalendar *)cal) : SIM_TIME_NEVER;
}

/* Schedules @ev (which must not be pending) at absolute time @t_ns. O(1)
 *  amortised. */
void sim_calendar_insert(SimCalendar *cal, SimEvent *ev, sim_time_ns t_ns);

/* Removes a pending @ev; returns false (and does nothing) if it is not
 *  pending. O(1) amortised. */
bool sim_calendar_remove(SimCalendar *cal, SimEvent *ev);

/* Moves @ev to @t_ns, scheduling it if idle.  It goes behind the events
 *  already scheduled for the same time. O(1) amortised. */
void sim_calendar_move(SimCalendar *cal, SimEvent *ev, sim_time_ns t_ns);

/* Removes and returns the earliest event, or NULL when empty.  Equal times
 *  come out in the order they were scheduled (or moved). O(1) amortised. */
SimEvent *sim_calendar_pop(SimCalendar *cal);

#endif /* SIM_CALENDAR_H */
