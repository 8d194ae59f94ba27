/* bench/ref/calendar_v0.c — the first calendar (commit 7e9fbe7), kept as a bench reference row.
 *
 * Invariant: for every slot i > 0, key(heap[(i-1)/4]) < key(heap[i]), and
 * heap[i].ev->slot == i.  Keys are unique because sequence numbers are.
 */
#include "sim/calendar.h"

#include <glib.h>

#define ARITY 4

static inline bool key_less(const SimCalendarEntry *a, const SimCalendarEntry *b)
{
    return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static inline void place(SimCalendar *cal, uint32_t i, SimCalendarEntry e)
{
    cal->heap[i] = e;
    e.ev->slot = i;
}

static void sift_up(SimCalendar *cal, uint32_t i, SimCalendarEntry e)
{
    while (i > 0) {
        uint32_t parent = (i - 1) / ARITY;
        if (!key_less(&e, &cal->heap[parent]))
            break;
        place(cal, i, cal->heap[parent]);
        i = parent;
    }
    place(cal, i, e);
}

static void sift_down(SimCalendar *cal, uint32_t i, SimCalendarEntry e)
{
    uint32_t n = cal->len;
    for (;;) {
        uint32_t first = i * ARITY + 1;
        if (first >= n)
            break;
        uint32_t last = first + ARITY < n ? first + ARITY : n;
        uint32_t best = first;
        for (uint32_t c = first + 1; c < last; c++)
            if (key_less(&cal->heap[c], &cal->heap[best]))
                best = c;
        if (!key_less(&cal->heap[best], &e))
            break;
        place(cal, i, cal->heap[best]);
        i = best;
    }
    place(cal, i, e);
}

void sim_calendar_init(SimCalendar *cal)
{
    cal->heap = NULL;
    cal->len = cal->cap = 0;
    cal->next_seq = 0;
}

void sim_calendar_clear(SimCalendar *cal)
{
    for (uint32_t i = 0; i < cal->len; i++)
        cal->heap[i].ev->slot = SIM_EVENT_IDLE;
    g_free(cal->heap);
    sim_calendar_init(cal);
}

void sim_calendar_insert(SimCalendar *cal, SimEvent *ev, sim_time_ns t_ns)
{
    g_assert(ev->slot == SIM_EVENT_IDLE);
    if (cal->len == cal->cap) {
        g_assert(cal->cap < SIM_EVENT_IDLE / 2);
        cal->cap = cal->cap ? cal->cap * 2 : 64;
        cal->heap = g_renew(SimCalendarEntry, cal->heap, cal->cap);
    }
    ev->time = t_ns;
    SimCalendarEntry e = { t_ns, cal->next_seq++, ev };
    sift_up(cal, cal->len++, e);
}

/* Removes the entry at slot i and restores the heap. */
static void remove_at(SimCalendar *cal, uint32_t i)
{
    cal->heap[i].ev->slot = SIM_EVENT_IDLE;
    uint32_t last = --cal->len;
    if (i == last)
        return;
    SimCalendarEntry moved = cal->heap[last];
    if (i > 0 && key_less(&moved, &cal->heap[(i - 1) / ARITY]))
        sift_up(cal, i, moved);
    else
        sift_down(cal, i, moved);
}

bool sim_calendar_remove(SimCalendar *cal, SimEvent *ev)
{
    if (ev->slot == SIM_EVENT_IDLE)
        return false;
    g_assert(ev->slot < cal->len && cal->heap[ev->slot].ev == ev);
    remove_at(cal, ev->slot);
    return true;
}

void sim_calendar_move(SimCalendar *cal, SimEvent *ev, sim_time_ns t_ns)
{
    if (ev->slot == SIM_EVENT_IDLE) {
        sim_calendar_insert(cal, ev, t_ns);
        return;
    }
    uint32_t i = ev->slot;
    g_assert(i < cal->len && cal->heap[i].ev == ev);
    SimCalendarEntry e = { t_ns, cal->next_seq++, ev };
    ev->time = t_ns;
    /* The new key is later than the old one unless the time went down. */
    if (i > 0 && key_less(&e, &cal->heap[(i - 1) / ARITY]))
        sift_up(cal, i, e);
    else
        sift_down(cal, i, e);
}

SimEvent *sim_calendar_pop(SimCalendar *cal)
{
    if (cal->len == 0)
        return NULL;
    SimEvent *ev = cal->heap[0].ev;
    remove_at(cal, 0);
    return ev;
}
