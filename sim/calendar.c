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
 * A bucket is empty when its head is NULL; the tail of an empty bucket and
 * the prev link of a head are stale and never read.
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
 * a bucket list (a list can only be walked one miss at a time).
 */
#include "sim/calendar.h"

#include <glib.h>
#include <string.h>

#ifndef SIM_CALENDAR_L0_BITS        /* bench/ builds other widths to compare */
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
#define N0      (1u << B0)                  /* buckets of level 0 */
#define NN      (1u << BN)                  /* buckets of each other level */
#define NBUCKET (N0 + (NLEV - 1) * NN)
#define SIGN_BIT (UINT64_C(1) << 63)

/* Order-preserving map of a signed time to an unsigned key. */
static inline uint64_t ukey(sim_time_ns t) { return (uint64_t)t ^ SIGN_BIT; }

static inline unsigned shift_of(unsigned lev) { return lev == 0 ? 0 : B0 + (lev - 1) * BN; }
static inline uint32_t mask_of(unsigned lev) { return lev == 0 ? N0 - 1 : NN - 1; }
static inline uint32_t first_bucket(unsigned lev) { return lev == 0 ? 0 : N0 + (lev - 1) * NN; }

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

static inline void mark(sim_calendar *cal, unsigned lev, uint32_t b)
{
    cal->bits[b >> 6] |= UINT64_C(1) << (b & 63);
    cal->summary[lev] |= UINT64_C(1) << (((b - first_bucket(lev)) >> 6) & 63);
}

static inline void unmark(sim_calendar *cal, unsigned lev, uint32_t b)
{
    uint64_t w = cal->bits[b >> 6] &= ~(UINT64_C(1) << (b & 63));
    if (!w)
        cal->summary[lev] &= ~(UINT64_C(1) << (((b - first_bucket(lev)) >> 6) & 63));
}

/* First non-empty bucket of level lev (summary[lev] != 0). */
static inline uint32_t lowest(const sim_calendar *cal, unsigned lev)
{
    unsigned w = (unsigned)__builtin_ctzll(cal->summary[lev]);
    uint32_t word = (first_bucket(lev) >> 6) + w;
    return word * 64 + (uint32_t)__builtin_ctzll(cal->bits[word]);
}

static inline void append(sim_calendar *cal, sim_event *ev, uint64_t k)
{
    unsigned lev = level_of(k, cal->cursor);
    uint32_t b = bucket_in(lev, k);
    sim_calendar_list *l = &cal->list[b];
    sim_event *tail = l->tail;
    ev->next = NULL;
    ev->prev = tail;
    l->tail = ev;
    if (tail) {
        tail->next = ev;
    } else {
        l->head = ev;
        mark(cal, lev, b);
        if (lev == 0 && b < cal->cur)
            cal->cur = b;
    }
}

/* Level 0 bucket b (was cur) ran empty: the next non-empty one, or none. */
static inline void next_cur(sim_calendar *cal, uint32_t b)
{
    uint64_t w = cal->bits[b >> 6] & (~UINT64_C(0) << (b & 63));
    if (w)
        cal->cur = (b & ~63u) + (uint32_t)__builtin_ctzll(w);
    else
        cal->cur = cal->summary[0] ? lowest(cal, 0) : UINT32_MAX;
}

void sim_calendar_init(sim_calendar *cal)
{
    memset(cal, 0, sizeof *cal);
    cal->cur = UINT32_MAX;
}

void sim_calendar_clear(sim_calendar *cal)
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
static void rewind_to(sim_calendar *cal, uint64_t k)
{
    unsigned h = level_of(k, cal->cursor);
    if (h > 0) {
        sim_calendar_list *dst = &cal->list[bucket_in(h, cal->cursor)];
        g_assert(!dst->head);
        for (unsigned lev = 0; lev < h; lev++) {
            while (cal->summary[lev]) {
                uint32_t b = lowest(cal, lev);
                sim_calendar_list *src = &cal->list[b];
                if (dst->tail) {
                    dst->tail->next = src->head;
                    src->head->prev = dst->tail;
                } else {
                    dst->head = src->head;
                }
                dst->tail = src->tail;
                src->head = src->tail = NULL;
                unmark(cal, lev, b);
            }
        }
        if (dst->head)
            mark(cal, h, (uint32_t)(dst - cal->list));
        cal->cur = UINT32_MAX;
    }
    cal->cursor = k;
}

void sim_calendar_insert(sim_calendar *cal, sim_event *ev, sim_time_ns t_ns)
{
    g_assert(ev->slot == SIM_EVENT_IDLE);
    if (G_UNLIKELY(!cal->list)) {
        cal->list = g_new0(sim_calendar_list, NBUCKET);
        cal->bits = g_new0(uint64_t, NBUCKET / 64);
    }
    uint64_t k = ukey(t_ns);
    if (G_UNLIKELY(k < cal->cursor))
        rewind_to(cal, k);
    ev->time = t_ns;
    ev->slot = 0;
    append(cal, ev, k);
    cal->n++;
}

bool sim_calendar_remove(sim_calendar *cal, sim_event *ev)
{
    if (ev->slot == SIM_EVENT_IDLE)
        return false;
    uint64_t k = ukey(ev->time);
    unsigned lev = level_of(k, cal->cursor);
    uint32_t b = bucket_in(lev, k);
    sim_calendar_list *l = &cal->list[b];
    sim_event *next = ev->next, *prev = ev->prev;
    if (prev)
        prev->next = next;
    else
        l->head = next;
    if (next)
        next->prev = prev;
    else
        l->tail = prev;
    if (!l->head) {
        unmark(cal, lev, b);
        if (b == cal->cur)
            next_cur(cal, b);
    }
    ev->slot = SIM_EVENT_IDLE;
    cal->n--;
    return true;
}

void sim_calendar_move(sim_calendar *cal, sim_event *ev, sim_time_ns t_ns)
{
    sim_calendar_remove(cal, ev);
    sim_calendar_insert(cal, ev, t_ns);
}

/* The finest level is empty and events are pending: open the first
 * non-empty bucket of the lowest non-empty level, i.e. move the cursor to its
 * start and spread its events over the levels below, in list order. */
static void cascade(sim_calendar *cal)
{
    unsigned lev = 1;
    while (!cal->summary[lev])
        lev++;
    uint32_t b = lowest(cal, lev);
    sim_calendar_list *l = &cal->list[b];
    sim_event *ev = l->head;
    l->head = l->tail = NULL;
    unmark(cal, lev, b);
    unsigned sh = shift_of(lev);
    uint64_t digit = (uint64_t)(b - first_bucket(lev)) << sh;
    uint64_t high = sh + BN >= 64 ? 0 : cal->cursor & ~((UINT64_C(1) << (sh + BN)) - 1);
    cal->cursor = high | digit;
    while (ev) {
        sim_event *next = ev->next;
        append(cal, ev, ukey(ev->time));
        ev = next;
    }
}

sim_time_ns sim_calendar_peek_slow_(sim_calendar *cal)
{
    while (cal->cur == UINT32_MAX)
        cascade(cal);
    return cal->list[cal->cur].head->time;
}

sim_event *sim_calendar_pop(sim_calendar *cal)
{
    if (cal->n == 0)
        return NULL;
    while (G_UNLIKELY(cal->cur == UINT32_MAX))
        cascade(cal);
    uint32_t b = cal->cur;
    sim_calendar_list *l = &cal->list[b];
    sim_event *ev = l->head;
    sim_event *next = ev->next;
    l->head = next;
    if (next) {
        next->prev = NULL;
        __builtin_prefetch(next);
    } else {
        l->tail = NULL;
        unmark(cal, 0, b);
        next_cur(cal, b);
    }
    cal->cursor = ukey(ev->time);
    ev->slot = SIM_EVENT_IDLE;
    cal->n--;
    return ev;
}
