/* sim/heap-inl.h — a typed, indexed binary min-heap of pointers (header only).
 *
 * SIM_HEAP_DEFINE(NAME, T, LESS, POS) defines static inline functions over a
 * caller-owned array `T **h` of `n` elements ordered by `bool LESS(const T *,
 * const T *)`, each element keeping its own index in the array in its
 * `uint32_t POS` field (as libevent's minheap does), so that an element can be
 * removed or re-keyed in O(log n) without a search.  The idea of one
 * header-only heap instantiated per element type is libuv's heap-inl.h; unlike
 * libuv's (nodes linked by pointers), this one lives in an array, which the
 * caller grows (the heap never allocates).
 *
 *   NAME_up(h, i)           sifts h[i] towards the root
 *   NAME_down(h, n, i)      sifts h[i] towards the leaves
 *   NAME_fix(h, n, i)       restores the order after h[i]'s key changed
 *   NAME_insert(h, &n, x)   appends x (room for one more is the caller's)
 *   NAME_remove(h, &n, x)   removes x (which is in the heap)
 *   NAME_heapify(h, n)      orders an unordered array (Floyd, bottom-up) and sets every POS
 *
 * Ties: the order of elements with equal keys depends on the sequence of
 * operations, so LESS must break ties itself (by an id or a sequence number)
 * whenever the order matters.  Every function writes POS of each element it
 * moves.  No state: each heap is its array and its count.
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
