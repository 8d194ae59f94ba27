/* sim/calendar.c — radix wheel of FIFO buckets: linked lists while the set
 * is small, arrays (chunk chains) while it is large.
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
 *   - bits/summary mirror which buckets are non-empty (live > 0); cur is the
 *     first non-empty level-0 bucket (UINT32_MAX: none);
 *   - lists (cal->arrays == 0): a bucket is a doubly linked list; head and
 *     tail of an empty bucket, the next link of a tail and the prev link of
 *     a head are stale and never followed;
 *   - arrays: a bucket's entries run from (first, head) to (last, tail) along the
 *     chunk chain; each is a pending event (whose chunk/slot point back at the
 *     entry) or NULL (a tombstone, counted in dead); while live > 0 the head
 *     entry is pending.  Entries before head or after tail are stale and never
 *     followed; a chunk's next link is always a chunk or NULL, so reading
 *     ahead for a prefetch is always safe.
 *
 * List buckets (the wheel before the arrays; bench/ builds it alone with
 * -DSIM_CALENDAR_UP_AT=4294967295u to compare): the
 * fast path is free of hard-to-predict branches (at 1e3 pending, most 1 ns
 * buckets hold a single event, so "was the bucket empty" and "did it run
 * empty" are coin flips): insert picks, with a conditional move, which link
 * to write and sets the bitmap bits unconditionally; pop clears its bucket's
 * bit with w & (w - last), since cur is the lowest set bit of its word.
 *
 * Array buckets: pop takes the head of bucket cur, advances head (freeing a chunk it leaves,
 * skipping tombstones) and sets c to the event's time (which keeps the
 * invariants: every other event shares the bits that decided its level).
 * With many events pending it prefetches the event PREFETCH pops ahead (and
 * the next chunk), so the misses on cold events overlap instead of chaining.
 * When level 0 is empty, cascade() opens a bucket: c becomes the bucket's
 * start and its events are appended, in order, to lower levels (which are
 * empty, so FIFO order among equal times survives).  An insert before c (only
 * after a peek opened a bucket the caller then schedules ahead of, or a
 * calendar used alone going back in time) rewinds c: see rewind_to().
 *
 * Cancel writes a tombstone; a bucket whose tombstones outnumber its live
 * events by more than a chunk is compacted (live entries moved to the front,
 * their chunk/slot rewritten, freed chunks to the free list), so memory stays
 * O(pending events) whatever the cancel pattern.  A level-0 bucket that runs
 * empty keeps its (last) chunk, so the hold-model fast path allocates nothing;
 * higher-level buckets give theirs back when cascaded.
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
#define CH       SIM_CALENDAR_CHUNK

/* Chunks per allocation block (64 KiB). */
#define CHUNKS_PER_BLOCK 256
/* Pops ahead that pop and cascade prefetch events (at most 6, so the entry
 * read in the next chunk lies in that chunk's first cache line). */
#ifndef SIM_CALENDAR_PREFETCH
#define SIM_CALENDAR_PREFETCH 6
#endif
#define PREFETCH SIM_CALENDAR_PREFETCH
/* Sizes of the switch between list and array buckets (hysteresis, so a set
 * hovering near one size does not convert back and forth): lists up to UP_AT
 * pending events, arrays down to DOWN_AT (measured crossover ~40000 on the
 * hold model: bench/README.md). */
#ifndef SIM_CALENDAR_UP_AT
#define SIM_CALENDAR_UP_AT 49152
#endif
#ifndef SIM_CALENDAR_DOWN_AT
#define SIM_CALENDAR_DOWN_AT 16384
#endif
#define UP_AT   SIM_CALENDAR_UP_AT
#define DOWN_AT SIM_CALENDAR_DOWN_AT
/* Pending events above which pop prefetches (below, everything is cached and
 * the prefetches only cost; measured: bench/README.md). */
#ifndef SIM_CALENDAR_PREFETCH_MIN
#define SIM_CALENDAR_PREFETCH_MIN 32768
#endif

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

/* A new block of chunks onto the free list (zeroed: every next link is a
 * chunk or NULL, every entry readable). */
__attribute__((noinline)) static void chunk_refill(SimCalendar *cal)
{
  SimCalendarChunk *blk = g_new0(SimCalendarChunk, CHUNKS_PER_BLOCK);
  if (cal->n_blocks == cal->cap_blocks) {
    cal->cap_blocks = cal->cap_blocks ? 2 * cal->cap_blocks : 16;
    cal->blocks = g_renew(void *, cal->blocks, cal->cap_blocks);
  }
  cal->blocks[cal->n_blocks++] = blk;
  for (int i = CHUNKS_PER_BLOCK - 1; i >= 0; i--) {
    blk[i].next = cal->free_chunks;
    cal->free_chunks = &blk[i];
  }
}

static inline SimCalendarChunk *chunk_new(SimCalendar *cal)
{
  if (G_UNLIKELY(!cal->free_chunks)) chunk_refill(cal);
  SimCalendarChunk *c = cal->free_chunks;
  cal->free_chunks = c->next;
  c->next = NULL;
  return c;
}

static inline void chunk_free(SimCalendar *cal, SimCalendarChunk *c)
{
  c->next = cal->free_chunks;
  cal->free_chunks = c;
}

/* Frees the chain from c to the end (next == NULL). */
static void chain_free(SimCalendar *cal, SimCalendarChunk *c)
{
  while (c) {
    SimCalendarChunk *nx = c->next;
    chunk_free(cal, c);
    c = nx;
  }
}

/* Bucket bk has no room at its tail: chain a new chunk. */
__attribute__((noinline)) static SimCalendarChunk *bucket_grow(SimCalendar *cal, SimCalendarBucket *bk)
{
  SimCalendarChunk *c = chunk_new(cal);
  if (bk->last)
    bk->last->next = c;
  else
    bk->first = c;
  bk->last = c;
  bk->tail = 0;
  return c;
}

/* Appends ev to bucket b of level lev. */
static inline void arr_push(SimCalendar *cal, unsigned lev, uint32_t b, SimEvent *ev)
{
  SimCalendarBucket *bk = &cal->bucket[b];
  SimCalendarChunk *c = bk->last;
  uint32_t t = bk->tail;
  if (G_UNLIKELY(t == CH || !c)) {
    c = bucket_grow(cal, bk);
    t = 0;
  }
  c->ev[t] = ev;
  ev->chunk = c;
  ev->slot = t;
  bk->tail = t + 1;
  bk->live++;
  mark(cal, lev, b);
  if (lev == 0 && G_UNLIKELY(b < cal->cur)) cal->cur = b;
}

static inline void arr_append(SimCalendar *cal, SimEvent *ev, uint64_t k)
{
  unsigned lev = level_of(k, cal->cursor);
  arr_push(cal, lev, bucket_in(lev, k), ev);
}

/* Bucket bk ran empty (live == 0): back to one chunk, no entries. */
static inline void bucket_reset(SimCalendar *cal, SimCalendarBucket *bk)
{
#ifdef SIM_CALENDAR_DROP_CHUNK
  chain_free(cal, bk->first);
  bk->first = bk->last = NULL;
  bk->head = bk->tail = bk->dead = 0;
  return;
#endif
  if (G_UNLIKELY(bk->first != bk->last)) {
    SimCalendarChunk *c = bk->first;
    while (c != bk->last) {
      SimCalendarChunk *nx = c->next;
      chunk_free(cal, c);
      c = nx;
    }
    bk->first = bk->last;
  }
  bk->head = bk->tail = bk->dead = 0;
}

/* Moves the head of bk (live > 0) from entry (c, h) to the next pending entry. */
static inline void advance_head(SimCalendar *cal, SimCalendarBucket *bk, SimCalendarChunk *c, uint32_t h)
{
  for (;;) {
    h++;
    if (G_UNLIKELY(h == CH)) {
      SimCalendarChunk *nx = c->next;
      chunk_free(cal, c);
      c = nx;
      h = 0;
    }
    if (G_LIKELY(c->ev[h] != NULL)) break;
    bk->dead--;
  }
  bk->first = c;
  bk->head = h;
}

/* Prefetches the event PREFETCH entries after (c, h) and a line of the chunk
 * after c.  A macro: GCC finds a function holding only prefetches free of
 * side effects and deletes its calls (measured: no prefetch left in the
 * binary, 1e6 at 11-13 instead of ~20 M holds per CPU s). */
#define PREFETCH_AHEAD(c, h)                                                       \
  do {                                                                             \
    const SimCalendarChunk *pf_c_ = (c), *pf_d_ = pf_c_;                           \
    uint32_t pf_j_ = (h) + PREFETCH;                                               \
    if (pf_j_ >= CH) {                                                             \
      pf_d_ = pf_c_->next;                                                         \
      pf_j_ -= CH;                                                                 \
    }                                                                              \
    if (pf_d_) __builtin_prefetch(pf_d_->ev[pf_j_]);                               \
    /* the chain is not contiguous, so the hardware prefetcher cannot stream     \
     * it: fetch the next chunk's four lines, one per pop (reading an entry of   \
     * a cold line above would stall on a demand load) */ \
    if (pf_c_->next) __builtin_prefetch((const char *)pf_c_->next + 64 * ((h)&3)); \
  } while (0)

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
  cal->up_at = UP_AT;
}

/* Frees every chunk block (no bucket may hold a chunk any more). */
static void chunks_release(SimCalendar *cal)
{
  for (uint32_t i = 0; i < cal->n_blocks; i++) g_free(cal->blocks[i]);
  g_free(cal->blocks);
  cal->blocks = NULL;
  cal->n_blocks = cal->cap_blocks = 0;
  cal->free_chunks = NULL;
}

void sim_calendar_clear(SimCalendar *cal)
{
  chunks_release(cal);
  g_free(cal->list);
  g_free(cal->bucket);
  g_free(cal->bits);
  sim_calendar_init(cal);
}

/* Appends the entries of src to the (non-empty) dst and leaves src empty and
 * chunkless; no event moves (their chunk/slot stay valid): the free entries
 * after dst's tail and the consumed ones before src's head become tombstones. */
static void splice(SimCalendar *cal, SimCalendarBucket *dst, SimCalendarBucket *src)
{
  if (dst->live == 0) {
    chain_free(cal, dst->first);
    *dst = *src;
  } else {
    for (uint32_t i = dst->tail; i < CH; i++) dst->last->ev[i] = NULL;
    for (uint32_t i = 0; i < src->head; i++) src->first->ev[i] = NULL;
    dst->last->next = src->first;
    dst->last = src->last;
    dst->tail = src->tail;
    dst->live += src->live;
    dst->dead += src->dead + (CH - dst->tail) + src->head;
  }
  memset(src, 0, sizeof *src);
}

/* Appends list bucket src to list bucket dst (empty when first is true). */
static void l_concat(SimCalendarList *dst, const SimCalendarList *src, bool first)
{
  if (first) {
    dst->head = src->head;
  } else {
    dst->tail->next = src->head;
    src->head->prev = dst->tail;
  }
  dst->tail = src->tail;
}

/* Key k lies before the cursor (a time earlier than the last popped one, or
 * than the bucket a peek opened): move the cursor back to k.  Levels above
 * the highest bit where k and the cursor differ (level h) keep their buckets;
 * every event below level h shares the cursor's digit h, so all of them go
 * into the (empty) bucket of that digit at level h.  Equal times never sit in
 * different buckets, so concatenating the buckets keeps FIFO order. */
static void rewind_to(SimCalendar *cal, uint64_t k)
{
  unsigned h = level_of(k, cal->cursor);
  if (h > 0) {
    uint32_t db = bucket_in(h, cal->cursor);
    bool any = false;
    g_assert(!(cal->bits[db >> 6] & (UINT64_C(1) << (db & 63))));
    for (unsigned lev = 0; lev < h; lev++) {
      while (cal->summary[lev]) {
        uint32_t b = lowest(cal, lev);
        if (cal->arrays)
          splice(cal, &cal->bucket[db], &cal->bucket[b]);
        else
          l_concat(&cal->list[db], &cal->list[b], !any);
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
__attribute__((noinline)) static void arr_insert_slow(SimCalendar *cal, SimEvent *ev, uint64_t k)
{
  if (k < cal->cursor) rewind_to(cal, k);
  arr_append(cal, ev, k);
}

__attribute__((noinline, cold, noreturn)) static void insert_pending(void)
{
  g_error("sim_calendar_insert: the event is already pending");
}

static inline void arr_insert(SimCalendar *cal, SimEvent *ev, uint64_t k)
{
  uint64_t c = cal->cursor;
  uint64_t x = k ^ c;
  if (G_LIKELY(k >= c)) {
    if (x < N0)
      arr_push(cal, 0, (uint32_t)k & (N0 - 1), ev);
    else if (x < (UINT64_C(1) << (B0 + BN)))
      arr_push(cal, 1, N0 + ((uint32_t)(k >> B0) & (NN - 1)), ev);
    else
      arr_insert_slow(cal, ev, k);
  } else {
    arr_insert_slow(cal, ev, k);
  }
}

/* Bucket bk holds more than a chunk's worth of tombstones beyond its live
 * events: move the live entries to the front of the chain, in order, and
 * free the chunks left over. */
__attribute__((noinline)) static void compact(SimCalendar *cal, SimCalendarBucket *bk)
{
  SimCalendarChunk *rc = bk->first, *wc = bk->first;
  uint32_t rh = bk->head, wh = 0, left = bk->live;
  while (left) {
    if (rh == CH) {
      rc = rc->next;
      rh = 0;
    }
    SimEvent *e = rc->ev[rh++];
    if (!e) continue;
    if (wh == CH) {
      wc = wc->next;
      wh = 0;
    }
    wc->ev[wh] = e;
    e->chunk = wc;
    e->slot = wh++;
    left--;
  }
  chain_free(cal, wc->next);
  wc->next = NULL;
  bk->last = wc;
  bk->head = 0;
  bk->tail = wh;
  bk->dead = 0;
}

static void arr_remove(SimCalendar *cal, SimEvent *ev)
{
  uint64_t k = ukey(ev->time);
  unsigned lev = level_of(k, cal->cursor);
  uint32_t b = bucket_in(lev, k);
  SimCalendarBucket *bk = &cal->bucket[b];
  SimCalendarChunk *c = ev->chunk;
  uint32_t s = ev->slot;
  c->ev[s] = NULL;
  if (--bk->live == 0) {
    bucket_reset(cal, bk);
    unmark(cal, lev, b);
    if (b == cal->cur) next_cur(cal, b);
  } else if (c == bk->first && s == bk->head) {
    advance_head(cal, bk, c, s);
  } else if (++bk->dead > bk->live + CH) {
    compact(cal, bk);
  }
}

/* The finest level is empty and events are pending: the first non-empty
 * bucket of the lowest non-empty level (*lev_out), its bit cleared and the
 * cursor moved to its start; the caller spreads its events below. */
static uint32_t open_bucket(SimCalendar *cal, unsigned *lev_out)
{
  unsigned lev = 1;
  while (!cal->summary[lev]) lev++;
  uint32_t b = lowest(cal, lev);
  unmark(cal, lev, b);
  unsigned sh = shift_of(lev);
  uint64_t digit = (uint64_t)(b - first_bucket(lev)) << sh;
  uint64_t high = sh + BN >= 64 ? 0 : cal->cursor & ~((UINT64_C(1) << (sh + BN)) - 1);
  cal->cursor = high | digit;
  *lev_out = lev;
  return b;
}

/* The finest level is empty and events are pending: open the first
 * non-empty bucket of the lowest non-empty level, i.e. move the cursor to its
 * start and spread its events over the levels below, in order.  The bucket's
 * chunks go back to the free list as they are read. */
static void arr_cascade(SimCalendar *cal)
{
  unsigned lev;
  uint32_t b = open_bucket(cal, &lev);
  SimCalendarBucket *bk = &cal->bucket[b];
  SimCalendarChunk *c = bk->first;
  uint32_t h = bk->head, left = bk->live;
  memset(bk, 0, sizeof *bk);
  bool deep = cal->n > SIM_CALENDAR_PREFETCH_MIN;
  while (left) {
    if (h == CH) {
      SimCalendarChunk *nx = c->next;
      chunk_free(cal, c);
      c = nx;
      h = 0;
    }
    if (deep) PREFETCH_AHEAD(c, h);
    SimEvent *e = c->ev[h++];
    if (!e) continue;
    left--;
    if (lev == 1) /* all of them land in level 0 */
      arr_push(cal, 0, (uint32_t)ukey(e->time) & (N0 - 1), e);
    else
      arr_append(cal, e, ukey(e->time));
  }
  chain_free(cal, c);
}

/* Pops the head of level-0 bucket cur (which exists). */
static inline SimEvent *arr_pop(SimCalendar *cal)
{
  uint32_t b = cal->cur;
  SimCalendarBucket *bk = &cal->bucket[b];
  SimCalendarChunk *c = bk->first;
  uint32_t h = bk->head;
  SimEvent *ev = c->ev[h];
  if (cal->n > SIM_CALENDAR_PREFETCH_MIN) PREFETCH_AHEAD(c, h);
  if (--bk->live) {
    advance_head(cal, bk, c, h);
  } else {
    bucket_reset(cal, bk);
    /* b is the lowest set bit of its word */
    uint32_t wi = b >> 6;
    uint64_t w = cal->bits[wi] &= cal->bits[wi] - 1;
    if (G_LIKELY(w)) {
      cal->cur = wi * 64 + (uint32_t)__builtin_ctzll(w);
    } else {
      uint64_t s = cal->summary[0];
      cal->summary[0] = s &= s - 1;
      cal->cur = s ? lowest(cal, 0) : UINT32_MAX;
    }
  }
  cal->cursor = ukey(ev->time);
  return ev;
}

/* ---- list buckets (small sets) ---- */

/* Appends ev to list bucket b of level lev without a branch on whether the
 * bucket was empty (hard to predict): the link to write is the old tail's
 * next or the bucket head, and setting the bitmap bits again is harmless. */
static inline void l_link_tail(SimCalendar *cal, unsigned lev, uint32_t b, SimEvent *ev)
{
  SimCalendarList *l = &cal->list[b];
  uint64_t *wp = &cal->bits[b >> 6];
  uint64_t w = *wp, bit = UINT64_C(1) << (b & 63);
  SimEvent *tail = l->tail;
  /* integer select: tail may be stale or NULL when the bucket is empty */
  uintptr_t link = (w & bit) ? (uintptr_t)tail + offsetof(SimEvent, next) : (uintptr_t)&l->head;
  *(SimEvent **)link = ev;
  ev->prev = tail;
  ev->slot = 0;
  l->tail = ev;
  *wp = w | bit;
  cal->summary[lev] |= UINT64_C(1) << (((b - first_bucket(lev)) >> 6) & 63);
  if (lev == 0 && G_UNLIKELY(b < cal->cur)) /* a branch: see the top */
    cal->cur = b;
}

static inline void l_append(SimCalendar *cal, SimEvent *ev, uint64_t k)
{
  unsigned lev = level_of(k, cal->cursor);
  l_link_tail(cal, lev, bucket_in(lev, k), ev);
}

__attribute__((noinline)) static void l_insert_slow(SimCalendar *cal, SimEvent *ev, uint64_t k)
{
  if (k < cal->cursor) rewind_to(cal, k);
  l_append(cal, ev, k);
}

static inline void l_insert(SimCalendar *cal, SimEvent *ev, uint64_t k)
{
  uint64_t c = cal->cursor;
  uint64_t x = k ^ c;
  if (G_LIKELY(k >= c)) {
    if (x < N0)
      l_link_tail(cal, 0, (uint32_t)k & (N0 - 1), ev);
    else if (x < (UINT64_C(1) << (B0 + BN)))
      l_link_tail(cal, 1, N0 + ((uint32_t)(k >> B0) & (NN - 1)), ev);
    else
      l_insert_slow(cal, ev, k);
  } else {
    l_insert_slow(cal, ev, k);
  }
}

static void l_remove(SimCalendar *cal, SimEvent *ev)
{
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
}

static void l_cascade(SimCalendar *cal)
{
  unsigned lev;
  uint32_t b = open_bucket(cal, &lev);
  const SimCalendarList *l = &cal->list[b];
  SimEvent *ev = l->head, *last = l->tail;
  for (;;) {
    SimEvent *next = ev->next; /* stale for the last one */
    if (lev == 1)              /* all of them land in level 0 */
      l_link_tail(cal, 0, (uint32_t)ukey(ev->time) & (N0 - 1), ev);
    else
      l_append(cal, ev, ukey(ev->time));
    if (ev == last) break;
    ev = next;
  }
}

/* Pops the head of list bucket cur (which exists): no branch on whether the
 * bucket runs empty (cur is the lowest set bit of its word: w &= w - last). */
static inline SimEvent *l_pop(SimCalendar *cal)
{
  uint32_t b = cal->cur;
  SimCalendarList *l = &cal->list[b];
  SimEvent *ev = l->head, *next = ev->next;
  uint64_t last = ev == l->tail;
  l->head = next; /* stale when b runs empty */
  __builtin_prefetch(next);
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
  return ev;
}

/* ---- the switch between them ---- */

/* Lists to arrays: every bucket keeps its index and its order, so the
 * bitmaps, cur and the cursor stay as they are. */
__attribute__((noinline)) static void to_arrays(SimCalendar *cal)
{
  if (!cal->bucket) cal->bucket = g_new0(SimCalendarBucket, NBUCKET);
  for (uint32_t wi = 0; wi < NBUCKET / 64; wi++)
    for (uint64_t w = cal->bits[wi]; w; w &= w - 1) {
      uint32_t b = wi * 64 + (uint32_t)__builtin_ctzll(w);
      SimCalendarList *l = &cal->list[b];
      for (SimEvent *ev = l->head;;) {
        SimEvent *next = ev->next, *last = l->tail;
        SimCalendarBucket *bk = &cal->bucket[b];
        SimCalendarChunk *c = bk->last;
        uint32_t t = bk->tail;
        if (t == CH || !c) {
          c = bucket_grow(cal, bk);
          t = 0;
        }
        c->ev[t] = ev;
        ev->chunk = c;
        ev->slot = t;
        bk->tail = t + 1;
        bk->live++;
        if (ev == last) break;
        ev = next;
      }
    }
  cal->arrays = 1;
  cal->up_at = UINT32_MAX;
  cal->down_at = DOWN_AT;
}

/* Arrays to lists, the same way; the chunks are freed (the memory of a
 * large set goes back when it shrinks). */
__attribute__((noinline)) static void to_lists(SimCalendar *cal)
{
  if (!cal->list) cal->list = g_new0(SimCalendarList, NBUCKET);
  for (uint32_t wi = 0; wi < NBUCKET / 64; wi++)
    for (uint64_t w = cal->bits[wi]; w; w &= w - 1) {
      uint32_t b = wi * 64 + (uint32_t)__builtin_ctzll(w);
      SimCalendarBucket *bk = &cal->bucket[b];
      SimCalendarList *l = &cal->list[b];
      SimCalendarChunk *c = bk->first;
      uint32_t h = bk->head, left = bk->live;
      SimEvent *prev = NULL;
      while (left) {
        if (h == CH) {
          c = c->next;
          h = 0;
        }
        SimEvent *ev = c->ev[h++];
        if (!ev) continue;
        left--;
        if (prev)
          prev->next = ev;
        else
          l->head = ev;
        ev->prev = prev;
        ev->slot = 0;
        prev = ev;
      }
      l->tail = prev;
    }
  memset(cal->bucket, 0, NBUCKET * sizeof *cal->bucket);
  chunks_release(cal);
  cal->arrays = 0;
  cal->up_at = UP_AT;
  cal->down_at = 0;
}

/* ---- the API ---- */

/* Every insert but the list fast path below: array buckets, the first
 * insert of all (no buckets yet), keys before the cursor or beyond level 1.
 * Out of line, so the fast path calls nothing but in tail position and
 * needs no stack frame. */
__attribute__((noinline)) static void insert_other(SimCalendar *cal, SimEvent *ev, uint64_t k)
{
  if (G_UNLIKELY(!cal->bits)) {
    cal->list = g_new0(SimCalendarList, NBUCKET);
    cal->bits = g_new0(uint64_t, NBUCKET / 64);
  }
  if (cal->arrays)
    arr_insert(cal, ev, k);
  else
    l_insert(cal, ev, k);
  if (G_UNLIKELY(++cal->n > cal->up_at)) to_arrays(cal);
}

void sim_calendar_insert(SimCalendar *cal, SimEvent *ev, sim_time_ns t_ns)
{
  if (G_UNLIKELY(ev->slot != SIM_EVENT_IDLE)) insert_pending();
  uint64_t k = ukey(t_ns);
  ev->time = t_ns;
  uint64_t c = cal->cursor, x = k ^ c;
  /* bits is NULL only before the first insert (arrays is 0 then too) */
  if (cal->arrays || G_UNLIKELY(!cal->bits) || G_UNLIKELY(k < c) || x >= (UINT64_C(1) << (B0 + BN))) {
    insert_other(cal, ev, k);
    return;
  }
  if (x < N0)
    l_link_tail(cal, 0, (uint32_t)k & (N0 - 1), ev);
  else
    l_link_tail(cal, 1, N0 + ((uint32_t)(k >> B0) & (NN - 1)), ev);
  if (G_UNLIKELY(++cal->n > cal->up_at)) to_arrays(cal);
}

bool sim_calendar_remove(SimCalendar *cal, SimEvent *ev)
{
  if (ev->slot == SIM_EVENT_IDLE) return false;
  if (cal->arrays)
    arr_remove(cal, ev);
  else
    l_remove(cal, ev);
  ev->slot = SIM_EVENT_IDLE;
  if (G_UNLIKELY(--cal->n < cal->down_at)) to_lists(cal);
  return true;
}

void sim_calendar_move(SimCalendar *cal, SimEvent *ev, sim_time_ns t_ns)
{
  sim_calendar_remove(cal, ev);
  sim_calendar_insert(cal, ev, t_ns);
}

sim_time_ns sim_calendar_peek_slow_(SimCalendar *cal)
{
  if (cal->arrays) {
    while (cal->cur == UINT32_MAX) arr_cascade(cal);
    const SimCalendarBucket *bk = &cal->bucket[cal->cur];
    return bk->first->ev[bk->head]->time;
  }
  while (cal->cur == UINT32_MAX) l_cascade(cal);
  return cal->list[cal->cur].head->time;
}

/* Pop found level 0 empty: NULL if the calendar is, else open buckets until
 * level 0 has one. */
__attribute__((noinline)) static bool refill(SimCalendar *cal)
{
  if (cal->n == 0) return false;
  if (cal->arrays)
    while (cal->cur == UINT32_MAX) arr_cascade(cal);
  else
    while (cal->cur == UINT32_MAX) l_cascade(cal);
  return true;
}

SimEvent *sim_calendar_pop(SimCalendar *cal)
{
  if (G_UNLIKELY(cal->cur == UINT32_MAX) && !refill(cal)) return NULL;
  SimEvent *ev = cal->arrays ? arr_pop(cal) : l_pop(cal);
  ev->slot = SIM_EVENT_IDLE;
  if (G_UNLIKELY(--cal->n < cal->down_at)) to_lists(cal);
  return ev;
}
