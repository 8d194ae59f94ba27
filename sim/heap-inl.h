/* sim/heap-inl.h — a typed, indexed binary min-heap of pointers (header only).
 *
 * What it does: SIM_HEAP_DEFINE(NAME, T, LESS, POS) defines static inline NAME_up, _down, _fix,
 * _insert, _remove and _heapify over a caller-owned array `T **h` of n elements, each keeping its
 * index in its `uint32_t POS` field, so that removal and re-keying are O(log n) without a search.
 * Sources: libevent's minheap (the index field), libuv's heap-inl.h (one header per type).
 * Leaves out: allocation (the caller grows the array) and tie-breaking (LESS must break ties).
 * Evidence and history: docs/model/heap.md.
 */
#ifndef SIM_HEAP_INL_H
#define SIM_HEAP_INL_H

#include <stdint.h>
#include <glib.h>

#define SIM_HEAP_DEFINE(NAME, T, LESS, POS)                     \
  static inline void NAME##_up(T **h, uint32_t i)               \
  {                                                             \
    T *x = h[i];                                                \
    while (i > 0) {                                             \
      uint32_t p = (i - 1) / 2;                                 \
      if (!LESS(x, h[p])) break;                                \
      h[i] = h[p];                                              \
      h[i]->POS = i;                                            \
      i = p;                                                    \
    }                                                           \
    h[i] = x;                                                   \
    x->POS = i;                                                 \
  }                                                             \
  static inline void NAME##_down(T **h, uint32_t n, uint32_t i) \
  {                                                             \
    T *x = h[i];                                                \
    for (;;) {                                                  \
      uint32_t k = 2 * i + 1;                                   \
      if (k >= n) break;                                        \
      if (k + 1 < n && LESS(h[k + 1], h[k])) k++;               \
      if (!LESS(h[k], x)) break;                                \
      h[i] = h[k];                                              \
      h[i]->POS = i;                                            \
      i = k;                                                    \
    }                                                           \
    h[i] = x;                                                   \
    x->POS = i;                                                 \
  }                                                             \
  static inline void NAME##_fix(T **h, uint32_t n, uint32_t i)  \
  {                                                             \
    if (i > 0 && LESS(h[i], h[(i - 1) / 2]))                    \
      NAME##_up(h, i);                                          \
    else                                                        \
      NAME##_down(h, n, i);                                     \
  }                                                             \
  static inline void NAME##_insert(T **h, uint32_t *n, T *x)    \
  {                                                             \
    h[*n] = x;                                                  \
    x->POS = (*n)++;                                            \
    NAME##_up(h, x->POS);                                       \
  }                                                             \
  static inline void NAME##_remove(T **h, uint32_t *n, T *x)    \
  {                                                             \
    uint32_t i = x->POS;                                        \
    g_assert(i < *n && h[i] == x);                              \
    T *last = h[--*n];                                          \
    if (i == *n) return;                                        \
    h[i] = last;                                                \
    last->POS = i;                                              \
    NAME##_fix(h, *n, i);                                       \
  }                                                             \
  static inline void NAME##_heapify(T **h, uint32_t n)          \
  {                                                             \
    for (uint32_t j = 0; j < n; j++) h[j]->POS = j;             \
    for (uint32_t j = n / 2; j-- > 0;) NAME##_down(h, n, j);    \
  }

#endif /* SIM_HEAP_INL_H */
