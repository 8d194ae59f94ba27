/* bench/ref/heap4/calendar.c — the 4-ary heap calendar (sim/calendar.c before the radix wheel), kept as a bench reference row.
 *
 * Invariant: for every node i > 0, key[(i-1)/D] < key[i], and
 * ev[i]->slot == i (nodes 0..n-1, except node 0 while hole is set).  Keys are
 * unique because sequence numbers are.
 *
 * Layout: keys (16 bytes) and event pointers live in two parallel arrays, so
 * choosing among siblings reads keys only; the key array is shifted by D-1
 * nodes from a 64-byte boundary so that the D children of a node, nodes
 * D*i+1 .. D*i+D, share one aligned block (one cache line for D = 4).  The
 * smallest child is chosen by a branch-free tournament.
 *
 * Pop leaves a hole at the root instead of moving the last leaf up at once:
 * if the next operation is an insert (the hold pattern of a simulation: an
 * event runs and schedules the next), the new event drops into the hole and
 * sifts down, one pass instead of two.  Any other operation first refills
 * the hole the usual way (sim_calendar_settle_).
 */
#include "sim/calendar.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

#ifndef SIM_CALENDAR_ARITY
#define SIM_CALENDAR_ARITY 4
#endif
#define D SIM_CALENDAR_ARITY
#if D != 2 && D != 4 && D != 8
#error "SIM_CALENDAR_ARITY must be 2, 4 or 8"
#endif
#define SIGN_BIT (UINT64_C(1) << 63)

typedef sim_calendar_key key_t128;

/* Below this many nodes the heap stays in L1/L2 and prefetching only costs
 * (measured: -5..-10% at 1e3-1e4 events, +10% at 1e5, +80-100% at 1e6). */
#define PREFETCH_MIN_NODES 32768u

#ifndef PREFETCH_EV
#define PREFETCH_EV(p) __builtin_prefetch(p)
#endif

static inline key_t128 make_key(sim_time_ns t, uint64_t seq)
{
    return ((key_t128)((uint64_t)t ^ SIGN_BIT) << 64) | seq;
}

static inline void place(SimCalendar *cal, uint32_t i, key_t128 k, SimEvent *ev)
{
    cal->key[i] = k;
    cal->ev[i] = ev;
    ev->slot = i;
}

static void sift_up(SimCalendar *cal, uint32_t i, key_t128 k, SimEvent *ev)
{
    while (i > 0) {
        uint32_t parent = (i - 1) / D;
        if (k > cal->key[parent])
            break;
        place(cal, i, cal->key[parent], cal->ev[parent]);
        i = parent;
    }
    place(cal, i, k, ev);
}

/* Keeps in (*i, *k) the smaller of itself and (j, kj), without a branch. */
static inline void keep_min(uint32_t *i, key_t128 *k, uint32_t j, key_t128 kj)
{
    bool lt = kj < *k;
    *i = lt ? j : *i;
    *k = lt ? kj : *k;
}

/* Index of the smallest of the D keys at c (all present): a tournament. */
static inline uint32_t min_child_full(const key_t128 *key, uint32_t c)
{
    uint32_t i0 = c;
    key_t128 k0 = key[c];
    keep_min(&i0, &k0, c + 1, key[c + 1]);
#if D >= 4
    uint32_t i2 = c + 2;
    key_t128 k2 = key[c + 2];
    keep_min(&i2, &k2, c + 3, key[c + 3]);
#endif
#if D == 8
    uint32_t i4 = c + 4, i6 = c + 6;
    key_t128 k4 = key[c + 4], k6 = key[c + 6];
    keep_min(&i4, &k4, c + 5, key[c + 5]);
    keep_min(&i6, &k6, c + 7, key[c + 7]);
    keep_min(&i4, &k4, i6, k6);
#endif
#if D >= 4
    keep_min(&i0, &k0, i2, k2);
#endif
#if D == 8
    keep_min(&i0, &k0, i4, k4);
#endif
    return i0;
}

static void sift_down(SimCalendar *cal, uint32_t i, key_t128 k, SimEvent *ev)
{
    uint32_t n = cal->n;
    const key_t128 *key = cal->key;
    bool prefetch = n >= PREFETCH_MIN_NODES;
    for (;;) {
        uint32_t c = i * D + 1, best;
        if (c + D <= n) {
            /* Fetch the grandchildren while the children are compared: the
             * next level's D blocks arrive together, not one miss per level. */
            if (prefetch && (uint64_t)c * D + 1 < n)
                for (uint32_t j = 0; j < D; j++) {
                    __builtin_prefetch(&key[(c + j) * D + 1]);
                    PREFETCH_EV(&cal->ev[(c + j) * D + 1]);
                }
            best = min_child_full(key, c);
        } else if (c < n) {
            best = c;
            for (uint32_t j = c + 1; j < n; j++)
                if (key[j] < key[best])
                    best = j;
        } else {
            break;
        }
        if (key[best] > k)
            break;
        place(cal, i, key[best], cal->ev[best]);
        i = best;
    }
    place(cal, i, k, ev);
}

void sim_calendar_init(SimCalendar *cal)
{
    memset(cal, 0, sizeof *cal);
}

void sim_calendar_clear(SimCalendar *cal)
{
    free(cal->key_mem);
    g_free(cal->ev);
    sim_calendar_init(cal);
}

static void grow(SimCalendar *cal)
{
    g_assert(cal->cap < SIM_EVENT_IDLE / 4);
    uint32_t cap = cal->cap ? cal->cap * 2 : 64;
    void *mem = NULL;
    /* D-1 spare nodes in front so that key[D*i+1] is 64-byte aligned */
    if (posix_memalign(&mem, 64, (cap + D - 1) * sizeof(key_t128)) != 0)
        g_error("SimCalendar: out of memory for %u events", cap);
    key_t128 *key = (key_t128 *)mem + (D - 1);
    if (cal->n)
        memcpy(key, cal->key, cal->n * sizeof *key);
    free(cal->key_mem);
    cal->key_mem = mem;
    cal->key = key;
    cal->ev = g_renew(SimEvent *, cal->ev, cap);
    cal->cap = cap;
}

/* Removes node i (not the hole) and restores the heap. */
static void remove_at(SimCalendar *cal, uint32_t i)
{
    uint32_t last = --cal->n;
    if (i == last)
        return;
    key_t128 k = cal->key[last];
    SimEvent *ev = cal->ev[last];
    if (i > 0 && k < cal->key[(i - 1) / D])
        sift_up(cal, i, k, ev);
    else
        sift_down(cal, i, k, ev);
}

void sim_calendar_settle_(SimCalendar *cal)
{
    if (!cal->hole)
        return;
    cal->hole = 0;
    remove_at(cal, 0);
}

void sim_calendar_insert(SimCalendar *cal, SimEvent *ev, sim_time_ns t_ns)
{
    g_assert(ev->slot == SIM_EVENT_IDLE);
    ev->time = t_ns;
    key_t128 k = make_key(t_ns, cal->next_seq++);
    if (cal->hole) {
        cal->hole = 0;
        sift_down(cal, 0, k, ev);
        return;
    }
    if (cal->n == cal->cap)
        grow(cal);
    sift_up(cal, cal->n++, k, ev);
}

bool sim_calendar_remove(SimCalendar *cal, SimEvent *ev)
{
    if (ev->slot == SIM_EVENT_IDLE)
        return false;
    sim_calendar_settle_(cal);
    g_assert(ev->slot < cal->n && cal->ev[ev->slot] == ev);
    remove_at(cal, ev->slot);
    ev->slot = SIM_EVENT_IDLE;
    return true;
}

void sim_calendar_move(SimCalendar *cal, SimEvent *ev, sim_time_ns t_ns)
{
    if (ev->slot == SIM_EVENT_IDLE) {
        sim_calendar_insert(cal, ev, t_ns);
        return;
    }
    sim_calendar_settle_(cal);
    uint32_t i = ev->slot;
    g_assert(i < cal->n && cal->ev[i] == ev);
    key_t128 k = make_key(t_ns, cal->next_seq++);
    ev->time = t_ns;
    /* The new key is later than the old one unless the time went down. */
    if (i > 0 && k < cal->key[(i - 1) / D])
        sift_up(cal, i, k, ev);
    else
        sift_down(cal, i, k, ev);
}

SimEvent *sim_calendar_pop(SimCalendar *cal)
{
    sim_calendar_settle_(cal);
    if (cal->n == 0)
        return NULL;
    SimEvent *ev = cal->ev[0];
    ev->slot = SIM_EVENT_IDLE;
    if (cal->n == 1)
        cal->n = 0;
    else
        cal->hole = 1;
    return ev;
}
