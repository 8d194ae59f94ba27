/* sim/calendar.c — radix wheel of intrusive FIFO bucket lists.
 *
 * Times are mapped to unsigned keys k = t ^ 2^63 (order-preserving).  Level 0
 * covers key bits [0, B0), level l >= 1 bits [B0 + (l-1)BN, B0 + l*BN).
 * Invariants, with c = cal->cursor:
 *   - c <= k for every pending event;
 *   - an event with key k sits at level L = the level of the highest set bit
 *     of k ^ c (0 when k ^ c < 2^B0), in bucket digit_L(k); so level 0 holds
 *     only times sharing c's bits above B0, one exact time per bucket, and the
 *     earliest pending event is the head of the first non-empty level-0
 *     bucket, or lies in the first non-empty bucket of the lowest non-empty
 *     level;
 *   - two events with equal times are in the same bucket, in the order they
 *     were inserted (moves re-insert at the tail);
 *   - bits/summary mirror which buckets are non-empty; cur is the first
 *     non-empty level-0 bucket (UINT32_MAX: none).
 * A bucket is empty when its bit is clear: head and tail of an empty
 * bucket, the next link of a tail and the prev link of a head are stale and
 * never followed (so pop writes neither NULL nor a link of the next event).
 *
 * The hold-model fast path is free of hard-to-predict branches (measured:
 * at 1e3 pending, most 1 ns buckets hold a single event, so "was the bucket
 * empty" and "did it run empty" are coin flips): insert picks, with a
 * conditional move, which link to write (the old tail's next or the bucket
 * head) and sets the bitmap bits unconditionally; pop clears its bucket's
 * bit with w & (w - last), since cur is the lowest set bit of its word.  The
 * rare "earlier than cur" update of insert stays a branch: as a conditional
 * move it would chain every pop to the previous insert through cur.  Level-0
 * and level-1 inserts are inline; the rest (first insert, times before the
 * cursor, far times) goes through insert_slow().
 *
 * Pop takes the head of bucket cur and sets c to its time (which keeps the
 * invariants: every other event shares the bits that decided its level).
 * When level 0 is empty, cascade() opens a bucket: c becomes the bucket's
 * start and its events are appended, in list order, to lower levels (which
 * are empty, so FIFO order among equal times survives).  An insert before c
 * (only after a peek opened a bucket the caller then schedules ahead of, or
 * a calendar used alone going back in time) rewinds c: see rewind_to().
 *
 * Leaves out: per-level occupancy counts (the bitmaps suffice), shrinking
 * the bucket array (fixed size), and a prefetch further than one event down
 * a bucket list (a list can only be walked one miss at a time).  Tried and
 * slower: a bucket as one pointer to the tail of a ring (half the bucket
 * array, but the branch-free append then goes through a stack slot: 1e3
 * -30%), a branch-free level choice between 0 and 1, a branchy pop (1e3
 * -20%), inlining the fast paths into the caller (no gain).
 */
#include "sim/calendar.h"

#include <glib.h>
#include <string.h>

#ifndef SIM_CALENDAR_L0_BITS /* bench/ builds other widths to compare */
#define SIM_CALENDAR_L0_BITS 12
#endif
#ifndef SIM_CALENDAR_LN_BITS
#define SIM_CALENDAR_LN_BITS 8
#endif
#define B0 SIM_CALENDAR_L0_BITS
#define BN SIM_CALENDAR_LN_BITS
#if B0 < 6 || B0 > 12 || BN < 6 || BN > 12
#error "level widths must be 6..12 bits (whole bitmap words, one summary word)"
#endif
#define NLEV (1 + (64 - B0 + BN - 1) / BN)
#if NLEV > SIM_CALENDAR_MAX_LEVELS
#error "too many levels"
#endif
#define N0       (1u << B0) /* buckets of level 0 */
#define NN       (1u << BN) /* buckets of each other level */
#define NBUCKET  (N0 + (NLEV - 1) * NN)
#define SIGN_BIT (UINT64_C(1) << 63)

/* Order-preserving map of a signed time to an unsigned key. */
static inline uint64_t ukey(sim_time_ns t)
{
  return (uint64_t)t ^ SIGN_BIT;
}

static inline unsigned shift_of(unsigned lev)
{
  return lev == 0 ? 0 : B0 + (lev - 1) * BN;
}
static inline uint32_t mask_of(unsigned lev)
{
  return lev == 0 ? N0 - 1 : NN - 1;
}
static inline uint32_t first_bucket(unsigned lev)
{
  return lev == 0 ? 0 : N0 + (lev - 1) * NN;
}

/* Level of key k against cursor c (k >= c): where their highest differing bit lies. */
static inline unsigned level_of(uint64_t k, uint64_t c)
{
  unsigned h = 63 - (unsigned)__builtin_clzll((k ^ c) | 1);
  return h < B0 ? 0 : 1 + (h - B0) / BN;
}

static inline uint32_t bucket_in(unsigned lev, uint64_t k)
{
  return first_bucket(lev) + (uint32_t)((k >> shift_of(lev)) & mask_of(lev));
}

static inline void mark(SimCalendar *cal, unsigned lev, uint32_t b)
{
  cal->bits[b >> 6] |= UINT64_C(1) << (b & 63);
  cal->summary[lev] |= UINT64_C(1) << (((b - first_bucket(lev)) >> 6) & 63);
}

static inline void unmark(SimCalendar *cal, unsigned lev, uint32_t b)
{
  uint64_t w = cal->bits[b >> 6] &= ~(UINT64_C(1) << (b & 63));
  if (!w) cal->summary[lev] &= ~(UINT64_C(1) << (((b - first_bucket(lev)) >> 6) & 63));
}

/* First non-empty bucket of level lev (summary[lev] != 0). */
static inline uint32_t lowest(const SimCalendar *cal, unsigned lev)
{
  unsigned w = (unsigned)__builtin_ctzll(cal->summary[lev]);
  uint32_t word = (first_bucket(lev) >> 6) + w;
  return word * 64 + (uint32_t)__builtin_ctzll(cal->bits[word]);
}

/* Appends ev to bucket b of level lev without a branch on whether the
 * bucket was empty (hard to predict): the link to write is the old tail's
 * next or the bucket head, and setting the bitmap bits again is harmless. */
static inline void link_tail(SimCalendar *cal, unsigned lev, uint32_t b, SimEvent *ev)
{
  SimCalendarList *l = &cal->list[b];
  uint64_t *wp = &cal->bits[b >> 6];
  uint64_t w = *wp, bit = UINT64_C(1) << (b & 63);
  SimEvent *tail = l->tail;
  /* integer select: tail may be stale or NULL when the bucket is empty */
  uintptr_t link = (w & bit) ? (uintptr_t)tail + offsetof(SimEvent, next) : (uintptr_t)&l->head;
  *(SimEvent **)link = ev;
  ev->prev = tail;
  l->tail = ev;
  *wp = w | bit;
  cal->summary[lev] |= UINT64_C(1) << (((b - first_bucket(lev)) >> 6) & 63);
  if (lev == 0 && G_UNLIKELY(b < cal->cur)) /* a branch: see the top */
    cal->cur = b;
}

static inline void append(SimCalendar *cal, SimEvent *ev, uint64_t k)
{
  unsigned lev = level_of(k, cal->cursor);
  link_tail(cal, lev, bucket_in(lev, k), ev);
}

/* Level 0 bucket b (was cur) ran empty and its bit is clear: the next
 * non-empty one, or none. */
static inline void next_cur(SimCalendar *cal, uint32_t b)
{
  uint64_t w = cal->bits[b >> 6] & (~UINT64_C(0) << (b & 63));
  if (w)
    cal->cur = (b & ~63u) + (uint32_t)__builtin_ctzll(w);
  else
    cal->cur = cal->summary[0] ? lowest(cal, 0) : UINT32_MAX;
}

void sim_calendar_init(SimCalendar *cal)
{
  memset(cal, 0, sizeof *cal);
  cal->cur = UINT32_MAX;
}

void sim_calendar_clear(SimCalendar *cal)
{
  g_free(cal->list);
  g_free(cal->bits);
  sim_calendar_init(cal);
}

/* Key k lies before the cursor (a time earlier than the last popped one, or
 * than the bucket a peek opened): move the cursor back to k.  Levels above
 * the highest bit where k and the cursor differ (level h) keep their buckets;
 * every event below level h shares the cursor's digit h, so all of them go
 * into the (empty) bucket of that digit at level h.  Equal times never sit in
 * different buckets, so concatenating the lists keeps FIFO order. */
static void rewind_to(SimCalendar *cal, uint64_t k)
{
  unsigned h = level_of(k, cal->cursor);
  if (h > 0) {
    uint32_t db = bucket_in(h, cal->cursor);
    SimCalendarList *dst = &cal->list[db];
    bool any = false;
    g_assert(!(cal->bits[db >> 6] & (UINT64_C(1) << (db & 63))));
    for (unsigned lev = 0; lev < h; lev++) {
      while (cal->summary[lev]) {
        uint32_t b = lowest(cal, lev);
        SimCalendarList *src = &cal->list[b];
        if (any) {
          dst->tail->next = src->head;
          src->head->prev = dst->tail;
        } else {
          dst->head = src->head;
        }
        dst->tail = src->tail;
        any = true;
        unmark(cal, lev, b);
      }
    }
    if (any) mark(cal, h, db);
    cal->cur = UINT32_MAX;
  }
  cal->cursor = k;
}

/* Insert off the fast path: first insert, a time before the cursor, or a
 * time that differs from the cursor above level 1. */
__attribute__((noinline)) static void insert_slow(SimCalendar *cal, SimEvent *ev, uint64_t k)
{
  if (!cal->list) {
    cal->list = g_new0(SimCalendarList, NBUCKET);
    cal->bits = g_new0(uint64_t, NBUCKET / 64);
  }
  if (k < cal->cursor) rewind_to(cal, k);
  append(cal, ev, k);
}

__attribute__((noinline, cold, noreturn)) static void insert_pending(void)
{
  g_error("sim_calendar_insert: the event is already pending");
}

void sim_calendar_insert(SimCalendar *cal, SimEvent *ev, sim_time_ns t_ns)
{
  if (G_UNLIKELY(ev->slot != SIM_EVENT_IDLE)) insert_pending();
  uint64_t k = ukey(t_ns), c = cal->cursor;
  ev->time = t_ns;
  ev->slot = 0;
  cal->n++;
  uint64_t x = k ^ c;
  if (G_LIKELY(k >= c && cal->list)) {
    if (x < N0)
      link_tail(cal, 0, (uint32_t)k & (N0 - 1), ev);
    else if (x < (UINT64_C(1) << (B0 + BN)))
      link_tail(cal, 1, N0 + ((uint32_t)(k >> B0) & (NN - 1)), ev);
    else
      insert_slow(cal, ev, k);
  } else {
    insert_slow(cal, ev, k);
  }
}

bool sim_calendar_remove(SimCalendar *cal, SimEvent *ev)
{
  if (ev->slot == SIM_EVENT_IDLE) return false;
  uint64_t k = ukey(ev->time);
  unsigned lev = level_of(k, cal->cursor);
  uint32_t b = bucket_in(lev, k);
  SimCalendarList *l = &cal->list[b];
  if (ev == l->head) {
    if (ev == l->tail) {
      unmark(cal, lev, b);
      if (b == cal->cur) next_cur(cal, b);
    } else {
      l->head = ev->next;
    }
  } else if (ev == l->tail) {
    l->tail = ev->prev;
  } else {
    ev->prev->next = ev->next;
    ev->next->prev = ev->prev;
  }
  ev->slot = SIM_EVENT_IDLE;
  cal->n--;
  return true;
}

void sim_calendar_move(SimCalendar *cal, SimEvent *ev, sim_time_ns t_ns)
{
  sim_calendar_remove(cal, ev);
  sim_calendar_insert(cal, ev, t_ns);
}

/* The finest level is empty and events are pending: open the first
 * non-empty bucket of the lowest non-empty level, i.e. move the cursor to its
 * start and spread its events over the levels below, in list order. */
static void cascade(SimCalendar *cal)
{
  unsigned lev = 1;
  while (!cal->summary[lev]) lev++;
  uint32_t b = lowest(cal, lev);
  SimCalendarList *l = &cal->list[b];
  SimEvent *ev = l->head, *last = l->tail;
  unmark(cal, lev, b);
  unsigned sh = shift_of(lev);
  uint64_t digit = (uint64_t)(b - first_bucket(lev)) << sh;
  uint64_t high = sh + BN >= 64 ? 0 : cal->cursor & ~((UINT64_C(1) << (sh + BN)) - 1);
  cal->cursor = high | digit;
  if (lev == 1) { /* all of them land in level 0 */
    for (;;) {
      SimEvent *next = ev->next; /* stale for the last one */
      link_tail(cal, 0, (uint32_t)ukey(ev->time) & (N0 - 1), ev);
      if (ev == last) break;
      ev = next;
    }
    return;
  }
  for (;;) {
    SimEvent *next = ev->next;
    append(cal, ev, ukey(ev->time));
    if (ev == last) break;
    ev = next;
  }
}

sim_time_ns sim_calendar_peek_slow_(SimCalendar *cal)
{
  while (cal->cur == UINT32_MAX) cascade(cal);
  return cal->list[cal->cur].head->time;
}

/* Pop found level 0 empty: NULL if the calendar is, else open buckets until
 * level 0 has one. */
__attribute__((noinline)) static bool refill(SimCalendar *cal)
{
  if (cal->n == 0) return false;
  while (cal->cur == UINT32_MAX) cascade(cal);
  return true;
}

/* Pending events above which pop prefetches two events ahead. */
#define CAL_DEEP_PREFETCH_MIN 65536

SimEvent *sim_calendar_pop(SimCalendar *cal)
{
  if (G_UNLIKELY(cal->cur == UINT32_MAX) && !refill(cal)) return NULL;
  uint32_t b = cal->cur;
  SimCalendarList *l = &cal->list[b];
  SimEvent *ev = l->head, *next = ev->next;
  uint64_t last = ev == l->tail;
  l->head = next; /* stale when b runs empty */
  __builtin_prefetch(next);
  /* Large sets hold long runs of equal times (1e6 pending events at a 1 us
     * mean increment: about a thousand per ns) whose events are cold: next
     * was prefetched by the previous pop, so fetch one further to overlap
     * two misses.  Small sets stay in cache and skip it (a predictable branch). */
  if (cal->n > CAL_DEEP_PREFETCH_MIN && !last) __builtin_prefetch(next->next);
  /* b is the lowest set bit of its word: clear it when b runs empty */
  uint32_t wi = b >> 6;
  uint64_t w = cal->bits[wi];
  cal->bits[wi] = w &= w - last;
  if (G_LIKELY(w)) {
    cal->cur = wi * 64 + (uint32_t)__builtin_ctzll(w);
  } else {
    uint64_t s = cal->summary[0];
    cal->summary[0] = s &= s - 1;
    cal->cur = s ? lowest(cal, 0) : UINT32_MAX;
  }
  cal->cursor = ukey(ev->time);
  ev->slot = SIM_EVENT_IDLE;
  cal->n--;
  return ev;
}
