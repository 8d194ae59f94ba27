/* tests/test_heap.c — sim/heap-inl.h: the typed indexed heap against a sorted reference.
 *
 * A random sequence of inserts, removals of arbitrary elements (by their stored index),
 * key changes with fix, and pops of the minimum, checked after every step: the heap order
 * holds, every element's POS is its index, and the minimum is the reference's minimum.
 * Keys tie often (a small key range), and LESS breaks ties by id, so pops must come out in
 * (key, id) order. heapify of an unordered array gives the same order. */
#include "sim/heap-inl.h"
#include "tests/support/check_run.h"
#include <check.h>
#include <gsl/gsl_rng.h>
#include <stdbool.h>

typedef struct {
  int key, id;
  uint32_t pos;
  bool in;
} Item;

static bool item_less(const Item *a, const Item *b)
{
  return a->key < b->key || (a->key == b->key && a->id < b->id);
}

SIM_HEAP_DEFINE(item_heap, Item, item_less, pos)

enum { N_ITEMS = 400, N_STEPS = 20000, KEY_RANGE = 16 };

/* Whether the heap order holds and every element's POS is its index (no Check assertion per
 * element: each one costs a message to the parent process). */
static gboolean heap_ok(Item **h, uint32_t n)
{
  for (uint32_t i = 0; i < n; i++)
    if (h[i]->pos != i || !h[i]->in || (i > 0 && item_less(h[i], h[(i - 1) / 2]))) return FALSE;
  return TRUE;
}

/* The least (key, id) among the items in the heap, by a linear scan. */
static Item *reference_min(Item *items)
{
  Item *best = NULL;
  for (int i = 0; i < N_ITEMS; i++)
    if (items[i].in && (!best || item_less(&items[i], best))) best = &items[i];
  return best;
}

START_TEST(test_heap_random_operations)
{
  static Item items[N_ITEMS];
  static Item *h[N_ITEMS];
  uint32_t n = 0;
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 42);
  for (int i = 0; i < N_ITEMS; i++) items[i] = (Item){ .key = 0, .id = i, .pos = 0, .in = false };
  int pops = 0, removes = 0, fixes = 0;
  for (int step = 0; step < N_STEPS; step++) {
    Item *x = &items[gsl_rng_uniform_int(rng, N_ITEMS)];
    unsigned op = (unsigned)gsl_rng_uniform_int(rng, 4);
    if (!x->in) {
      x->key = (int)gsl_rng_uniform_int(rng, KEY_RANGE);
      x->in = true;
      item_heap_insert(h, &n, x);
    } else if (op == 0) {
      x->in = false;
      item_heap_remove(h, &n, x);
      removes++;
    } else if (op == 1) {
      x->key = (int)gsl_rng_uniform_int(rng, KEY_RANGE);
      item_heap_fix(h, n, x->pos);
      fixes++;
    } else if (n > 0) {
      if (h[0] != reference_min(items)) ck_abort_msg("step %d: the top is not the least (key, id)", step);
      h[0]->in = false;
      item_heap_remove(h, &n, h[0]);
      pops++;
    }
    if (!heap_ok(h, n)) ck_abort_msg("step %d: heap order or stored index broken", step);
  }
  ck_assert_int_gt(pops, 1000);
  ck_assert_int_gt(removes, 1000);
  ck_assert_int_gt(fixes, 1000);
  gsl_rng_free(rng);
}
END_TEST

START_TEST(test_heap_heapify_pops_in_order)
{
  static Item items[N_ITEMS];
  static Item *h[N_ITEMS];
  for (int i = 0; i < N_ITEMS; i++) {
    items[i] = (Item){ .key = (i * 7919) % KEY_RANGE, .id = N_ITEMS - i, .pos = 0, .in = true };
    h[i] = &items[i];
  }
  uint32_t n = N_ITEMS;
  item_heap_heapify(h, n);
  ck_assert(heap_ok(h, n));
  Item prev = { .key = -1, .id = -1 };
  while (n > 0) {
    Item *top = h[0];
    if (!item_less(&prev, top)) ck_abort_msg("popped (%d,%d) after (%d,%d)", top->key, top->id, prev.key, prev.id);
    prev = *top;
    top->in = false;
    item_heap_remove(h, &n, top);
    if (!heap_ok(h, n)) ck_abort_msg("heap broken after a pop, %u left", n);
  }
}
END_TEST

int main(void)
{
  Suite *s = suite_create("heap");
  TCase *tc = tcase_create("heap");
  tcase_add_test(tc, test_heap_random_operations);
  tcase_add_test(tc, test_heap_heapify_pops_in_order);
  suite_add_tcase(s, tc);
  return test_run_suite(s);
}
