/* bench/ref/alt/wheel2.c — a two-level timing wheel with a sorted spill, a
 * bench-only candidate for sim/calendar.c.
 *
 * Level 0: 4096 one-nanosecond FIFO buckets (arrays, so a pop can prefetch
 * ahead) for the current 4096-ns block.  Level 1: a ring of 4096 buckets one
 * block wide for the next 4096 blocks (unsorted arrays, in insertion order).
 * Spill: a binary heap of (time, sequence) keys for events beyond level 1's
 * horizon, and a second one for times before the current block (a calendar
 * going back).  Opening a block moves the spill's events of that block, in key
 * order, then the ring bucket's, in insertion order, into level 0: a spilled
 * event was scheduled before any level-1 event of the same time, so equal
 * times stay FIFO.  Cancel is a linear search (bench only).
 */
#include "sim/calendar.h"

#include <glib.h>
#include <string.h>

#define B0       12
#define W0       (1u << B0)
#define W1       4096u
#define PREFETCH 6

typedef sim_alt_u128 u128;

typedef struct {
  SimEvent **a;
  uint32_t head, len, cap;
} vec;

typedef struct {
  u128 key;
  SimEvent *ev;
} hent;

typedef struct {
  hent *a;
  uint32_t n, cap;
} heap;

struct SimCalendarImpl {
  vec l0[W0], l1[W1];
  uint64_t bits0[W0 / 64], bits1[W1 / 64];
  uint64_t blk0; /* current block (key >> B0) */
  uint32_t cur;  /* first non-empty level-0 bucket, UINT32_MAX if none */
  uint32_t n1;   /* events in level 1 */
  heap spill, early;
  uint64_t seq;
};

#define ukey   sim_alt_ukey
#define key_of sim_alt_key

static inline void vec_push(vec *v, SimEvent *ev)
{
  if (G_UNLIKELY(v->len == v->cap)) {
    v->cap = v->cap ? 2 * v->cap : 8;
    v->a = g_renew(SimEvent *, v->a, v->cap);
  }
  v->a[v->len++] = ev;
}

static void heap_push(heap *h, SimEvent *ev)
{
  if (h->n == h->cap) {
    h->cap = h->cap ? 2 * h->cap : 64;
    h->a = g_renew(hent, h->a, h->cap);
  }
  hent x = { key_of(ev), ev };
  uint32_t i = h->n++;
  while (i > 0 && h->a[(i - 1) / 2].key > x.key) {
    h->a[i] = h->a[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h->a[i] = x;
}

static SimEvent *heap_pop(heap *h)
{
  SimEvent *top = h->a[0].ev;
  hent x = h->a[--h->n];
  uint32_t i = 0;
  for (;;) {
    uint32_t c = 2 * i + 1;
    if (c >= h->n) break;
    if (c + 1 < h->n && h->a[c + 1].key < h->a[c].key) c++;
    if (h->a[c].key >= x.key) break;
    h->a[i] = h->a[c];
    i = c;
  }
  if (h->n) h->a[i] = x;
  return top;
}

void sim_calendar_init(SimCalendar *cal)
{
  cal->impl = g_new0(SimCalendarImpl, 1);
  cal->impl->cur = UINT32_MAX;
  cal->n = 0;
}

void sim_calendar_clear(SimCalendar *cal)
{
  SimCalendarImpl *q = cal->impl;
  for (uint32_t i = 0; i < W0; i++) g_free(q->l0[i].a);
  for (uint32_t i = 0; i < W1; i++) g_free(q->l1[i].a);
  g_free(q->spill.a);
  g_free(q->early.a);
  g_free(q);
  sim_calendar_init(cal);
}

static inline void l0_push(SimCalendarImpl *q, uint32_t b, SimEvent *ev)
{
  vec_push(&q->l0[b], ev);
  q->bits0[b >> 6] |= UINT64_C(1) << (b & 63);
  if (b < q->cur) q->cur = b;
}

static void place(SimCalendarImpl *q, SimEvent *ev, uint64_t k)
{
  uint64_t blk = k >> B0;
  if (blk < q->blk0) {
    heap_push(&q->early, ev);
  } else if (blk == q->blk0) {
    l0_push(q, (uint32_t)k & (W0 - 1), ev);
  } else if (blk - q->blk0 <= W1) {
    uint32_t b = (uint32_t)blk & (W1 - 1);
    vec_push(&q->l1[b], ev);
    q->bits1[b >> 6] |= UINT64_C(1) << (b & 63);
    q->n1++;
  } else {
    heap_push(&q->spill, ev);
  }
}

void sim_calendar_insert(SimCalendar *cal, SimEvent *ev, sim_time_ns t_ns)
{
  SimCalendarImpl *q = cal->impl;
  g_assert(ev->slot == SIM_EVENT_IDLE);
  uint64_t k = ukey(t_ns);
  ev->time = t_ns;
  ev->seq = q->seq++;
  ev->slot = 0;
  if (cal->n++ == 0) q->blk0 = k >> B0; /* empty: the window may jump */
  place(q, ev, k);
}

/* First non-empty ring bucket after blk0, as a block number, or UINT64_MAX. */
static uint64_t next_l1_block(const SimCalendarImpl *q)
{
  if (!q->n1) return UINT64_MAX;
  for (uint64_t d = 1; d <= W1; d++) { /* word at a time */
    uint32_t b = (uint32_t)(q->blk0 + d) & (W1 - 1);
    uint64_t w = q->bits1[b >> 6] >> (b & 63);
    if (w) return q->blk0 + d + (uint64_t)__builtin_ctzll(w);
    d += 63 - (b & 63);
  }
  return UINT64_MAX;
}

/* Level 0 is empty and no early events: open the next block.  False if nothing is pending. */
static bool advance(SimCalendarImpl *q)
{
  uint64_t b1 = next_l1_block(q);
  uint64_t bs = q->spill.n ? (uint64_t)(q->spill.a[0].key >> 64) >> B0 : UINT64_MAX;
  uint64_t blk = b1 < bs ? b1 : bs;
  if (blk == UINT64_MAX) return false;
  q->blk0 = blk;
  while (q->spill.n && (uint64_t)(q->spill.a[0].key >> 64) >> B0 == blk) {
    SimEvent *ev = heap_pop(&q->spill);
    l0_push(q, (uint32_t)ukey(ev->time) & (W0 - 1), ev);
  }
  if (blk == b1) {
    uint32_t b = (uint32_t)blk & (W1 - 1);
    vec *v = &q->l1[b];
    for (uint32_t i = 0; i < v->len; i++) {
      if (i + PREFETCH < v->len) __builtin_prefetch(v->a[i + PREFETCH]);
      SimEvent *ev = v->a[i];
      l0_push(q, (uint32_t)ukey(ev->time) & (W0 - 1), ev);
    }
    q->n1 -= v->len;
    v->len = 0;
    q->bits1[b >> 6] &= ~(UINT64_C(1) << (b & 63));
  }
  return true;
}

static void next_cur(SimCalendarImpl *q, uint32_t b)
{
  for (uint32_t w = b >> 6; w < W0 / 64; w++) {
    uint64_t x = q->bits0[w];
    if (x) {
      q->cur = w * 64 + (uint32_t)__builtin_ctzll(x);
      return;
    }
  }
  q->cur = UINT32_MAX;
}

sim_time_ns sim_calendar_peek_time(const SimCalendar *cal)
{
  SimCalendarImpl *q = cal->impl;
  if (q->early.n) return q->early.a[0].ev->time;
  if (q->cur == UINT32_MAX && !advance(q)) return SIM_TIME_NEVER;
  vec *v = &q->l0[q->cur];
  return v->a[v->head]->time;
}

SimEvent *sim_calendar_pop(SimCalendar *cal)
{
  SimCalendarImpl *q = cal->impl;
  SimEvent *ev;
  if (G_UNLIKELY(q->early.n)) {
    ev = heap_pop(&q->early);
  } else {
    if (G_UNLIKELY(q->cur == UINT32_MAX) && !advance(q)) return NULL;
    uint32_t b = q->cur;
    vec *v = &q->l0[b];
    ev = v->a[v->head++];
    if (v->head + PREFETCH < v->len) __builtin_prefetch(v->a[v->head + PREFETCH]);
    if (v->head == v->len) {
      v->head = v->len = 0;
      q->bits0[b >> 6] &= ~(UINT64_C(1) << (b & 63));
      next_cur(q, b);
    }
  }
  ev->slot = SIM_EVENT_IDLE;
  cal->n--;
  return ev;
}

static bool vec_del(vec *v, SimEvent *ev)
{
  for (uint32_t i = v->head; i < v->len; i++)
    if (v->a[i] == ev) {
      memmove(&v->a[i], &v->a[i + 1], (v->len - i - 1) * sizeof *v->a);
      v->len--;
      return true;
    }
  return false;
}

/* Removes ev from heap h by rebuilding it without it; true if found. */
static bool heap_del(heap *h, SimEvent *ev)
{
  for (uint32_t i = 0; i < h->n; i++)
    if (h->a[i].ev == ev) {
      heap tmp = { NULL, 0, 0 };
      for (uint32_t j = 0; j < h->n; j++)
        if (j != i) heap_push(&tmp, h->a[j].ev);
      g_free(h->a);
      *h = tmp;
      return true;
    }
  return false;
}

bool sim_calendar_remove(SimCalendar *cal, SimEvent *ev)
{
  SimCalendarImpl *q = cal->impl;
  if (ev->slot == SIM_EVENT_IDLE) return false;
  uint64_t k = ukey(ev->time), blk = k >> B0;
  bool found = false;
  if (blk == q->blk0) {
    uint32_t b = (uint32_t)k & (W0 - 1);
    found = vec_del(&q->l0[b], ev);
    if (found && q->l0[b].head == q->l0[b].len) {
      q->l0[b].head = q->l0[b].len = 0;
      q->bits0[b >> 6] &= ~(UINT64_C(1) << (b & 63));
      if (b == q->cur) next_cur(q, b);
    }
  }
  if (!found && blk > q->blk0 && blk - q->blk0 <= W1) {
    uint32_t b = (uint32_t)blk & (W1 - 1);
    found = vec_del(&q->l1[b], ev);
    if (found) {
      q->n1--;
      if (!q->l1[b].len) q->bits1[b >> 6] &= ~(UINT64_C(1) << (b & 63));
    }
  }
  if (!found) found = heap_del(&q->spill, ev) || heap_del(&q->early, ev);
  g_assert(found);
  ev->slot = SIM_EVENT_IDLE;
  cal->n--;
  return true;
}
