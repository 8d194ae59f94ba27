/* bench/ref/alt/ladder.c — a ladder queue (Tang, Goh and Thng 2005, "Ladder
 * queue: an O(1) priority queue structure for large-scale discrete event
 * simulation", ACM TOMACS 15(3)), a bench-only candidate for sim/calendar.c.
 *
 * Top: an unsorted list of the events at or after top_start (with its minimum
 * and maximum).  Rungs: up to MAXRUNG arrays of unsorted bucket lists; rung 0
 * is made from Top when everything below is empty (NTop buckets of width
 * (max - min) / NTop, as in the paper); a bucket holding more than THRES
 * events when it is reached spawns a finer rung (width / count), else it goes
 * to Bottom.  Bottom: a sorted array (descending, so a pop takes the last
 * entry) of (time, sequence) keys, so equal times leave in insertion order.
 * An insert goes to Top, or to the first rung whose current bucket it does
 * not precede, or into Bottom by binary search.  Cancel is a linear search
 * (bench only: the hold model never cancels).
 */
#include "sim/calendar.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

#define THRES   50
#define MAXRUNG 8

typedef sim_alt_u128 u128;

typedef struct {
  u128 key;
  SimEvent *ev;
} bent;

typedef struct {
  uint64_t start, width;
  uint32_t nb, cur, cap;
  SimEvent **head;
  uint32_t *cnt;
} rung;

struct SimCalendarImpl {
  SimEvent *top;
  uint32_t ntop;
  uint64_t top_min, top_max, top_start;
  rung r[MAXRUNG];
  int nr;
  bent *bot;
  uint32_t nbot, capbot;
  uint64_t seq;
};

#define ukey   sim_alt_ukey
#define key_of sim_alt_key

void sim_calendar_init(SimCalendar *cal)
{
  cal->impl = g_new0(SimCalendarImpl, 1);
  cal->impl->top_min = UINT64_MAX;
  cal->n = 0;
}

void sim_calendar_clear(SimCalendar *cal)
{
  SimCalendarImpl *q = cal->impl;
  for (int i = 0; i < MAXRUNG; i++) {
    g_free(q->r[i].head);
    g_free(q->r[i].cnt);
  }
  g_free(q->bot);
  g_free(q);
  sim_calendar_init(cal);
}

static void top_add(SimCalendarImpl *q, SimEvent *ev, uint64_t k)
{
  ev->next = q->top;
  q->top = ev;
  q->ntop++;
  if (k < q->top_min) q->top_min = k;
  if (k > q->top_max) q->top_max = k;
}

static void rung_setup(rung *r, uint64_t start, uint64_t width, uint64_t nb)
{
  if (nb > r->cap) {
    r->cap = (uint32_t)nb;
    g_free(r->head);
    g_free(r->cnt);
    r->head = g_new(SimEvent *, nb);
    r->cnt = g_new(uint32_t, nb);
  }
  memset(r->head, 0, nb * sizeof *r->head);
  memset(r->cnt, 0, nb * sizeof *r->cnt);
  r->start = start;
  r->width = width;
  r->nb = (uint32_t)nb;
  r->cur = 0;
}

static inline void rung_add(rung *r, SimEvent *ev, uint64_t k)
{
  uint32_t i = (uint32_t)((k - r->start) / r->width);
  ev->next = r->head[i];
  r->head[i] = ev;
  r->cnt[i]++;
}

/* Spreads list over r (every key within r's range). */
static void rung_fill(rung *r, SimEvent *list)
{
  while (list) {
    SimEvent *nx = list->next;
    rung_add(r, list, ukey(list->time));
    list = nx;
  }
}

static int bent_desc(const void *a, const void *b)
{
  u128 x = ((const bent *)a)->key, y = ((const bent *)b)->key;
  return x < y ? 1 : x > y ? -1 : 0;
}

static void bot_reserve(SimCalendarImpl *q, uint32_t n)
{
  if (n > q->capbot) {
    q->capbot = n < 64 ? 64 : 2 * n;
    q->bot = g_renew(bent, q->bot, q->capbot);
  }
}

/* Bottom is empty: refill it from the rungs (and Top).  False if nothing is pending. */
static bool refill(SimCalendarImpl *q)
{
  for (;;) {
    if (q->nr == 0) {
      if (!q->top) return false;
      uint64_t span = q->top_max - q->top_min + 1;
      uint64_t w = (span + q->ntop - 1) / q->ntop;
      if (w == 0) w = 1;
      uint64_t nb = (span + w - 1) / w;
      rung_setup(&q->r[0], q->top_min, w, nb);
      q->top_start = q->top_min + nb * w;
      rung_fill(&q->r[0], q->top);
      q->top = NULL;
      q->ntop = 0;
      q->top_min = UINT64_MAX;
      q->top_max = 0;
      q->nr = 1;
    }
    rung *r = &q->r[q->nr - 1];
    while (r->cur < r->nb && r->cnt[r->cur] == 0) r->cur++;
    if (r->cur == r->nb) {
      q->nr--;
      continue;
    }
    uint32_t i = r->cur++;
    SimEvent *list = r->head[i];
    uint32_t c = r->cnt[i];
    r->head[i] = NULL;
    r->cnt[i] = 0;
    if (c > THRES && q->nr < MAXRUNG && r->width > 1) {
      uint64_t w = r->width / c;
      if (w == 0) w = 1;
      rung *s = &q->r[q->nr++];
      rung_setup(s, r->start + (uint64_t)i * r->width, w, (r->width + w - 1) / w);
      rung_fill(s, list);
      continue;
    }
    bot_reserve(q, c);
    uint32_t n = 0;
    for (; list; list = list->next) q->bot[n++] = (bent){ key_of(list), list };
    if (n <= 16) { /* insertion sort, descending */
      for (uint32_t a = 1; a < n; a++) {
        bent x = q->bot[a];
        uint32_t b = a;
        for (; b > 0 && q->bot[b - 1].key < x.key; b--) q->bot[b] = q->bot[b - 1];
        q->bot[b] = x;
      }
    } else {
      qsort(q->bot, n, sizeof *q->bot, bent_desc);
    }
    q->nbot = n;
    return true;
  }
}

static void bot_insert(SimCalendarImpl *q, SimEvent *ev)
{
  bot_reserve(q, q->nbot + 1);
  u128 k = key_of(ev);
  uint32_t lo = 0, hi = q->nbot; /* first index whose key < k */
  while (lo < hi) {
    uint32_t m = (lo + hi) / 2;
    if (q->bot[m].key > k)
      lo = m + 1;
    else
      hi = m;
  }
  memmove(&q->bot[lo + 1], &q->bot[lo], (q->nbot - lo) * sizeof *q->bot);
  q->bot[lo] = (bent){ k, ev };
  q->nbot++;
}

void sim_calendar_insert(SimCalendar *cal, SimEvent *ev, sim_time_ns t_ns)
{
  SimCalendarImpl *q = cal->impl;
  g_assert(ev->slot == SIM_EVENT_IDLE);
  uint64_t k = ukey(t_ns);
  ev->time = t_ns;
  ev->seq = q->seq++;
  ev->slot = 0;
  cal->n++;
  if ((q->nr == 0 && q->nbot == 0) || k >= q->top_start) {
    top_add(q, ev, k);
    return;
  }
  for (int i = 0; i < q->nr; i++) {
    rung *r = &q->r[i];
    if (k >= r->start && (k - r->start) / r->width >= r->cur) {
      rung_add(r, ev, k);
      return;
    }
  }
  bot_insert(q, ev);
}

/* Unlinks ev from list *pp; true if found. */
static bool list_unlink(SimEvent **pp, SimEvent *ev)
{
  for (; *pp; pp = &(*pp)->next)
    if (*pp == ev) {
      *pp = ev->next;
      return true;
    }
  return false;
}

bool sim_calendar_remove(SimCalendar *cal, SimEvent *ev)
{
  SimCalendarImpl *q = cal->impl;
  if (ev->slot == SIM_EVENT_IDLE) return false;
  bool found = false;
  for (uint32_t i = 0; i < q->nbot && !found; i++)
    if (q->bot[i].ev == ev) {
      memmove(&q->bot[i], &q->bot[i + 1], (q->nbot - i - 1) * sizeof *q->bot);
      q->nbot--;
      found = true;
    }
  for (int j = 0; j < q->nr && !found; j++)
    for (uint32_t i = q->r[j].cur; i < q->r[j].nb && !found; i++)
      if (list_unlink(&q->r[j].head[i], ev)) {
        q->r[j].cnt[i]--;
        found = true;
      }
  if (!found && list_unlink(&q->top, ev)) { /* min/max stay as bounds */
    q->ntop--;
    found = true;
  }
  g_assert(found);
  ev->slot = SIM_EVENT_IDLE;
  cal->n--;
  return true;
}

sim_time_ns sim_calendar_peek_time(const SimCalendar *cal)
{
  SimCalendarImpl *q = cal->impl;
  if (q->nbot == 0 && !refill(q)) return SIM_TIME_NEVER;
  return q->bot[q->nbot - 1].ev->time;
}

SimEvent *sim_calendar_pop(SimCalendar *cal)
{
  SimCalendarImpl *q = cal->impl;
  if (G_UNLIKELY(q->nbot == 0) && !refill(q)) return NULL;
  SimEvent *ev = q->bot[--q->nbot].ev;
  ev->slot = SIM_EVENT_IDLE;
  cal->n--;
  return ev;
}
