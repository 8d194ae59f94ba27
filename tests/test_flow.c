/* tests/test_flow.c — the flow (bandwidth-sharing) model: max-min shares
 * worked by hand, re-allocation on completion and cancel, caps, multi-
 * resource costs, conservation and optimality on random networks, and the
 * M/M/1 processor-sharing response time. */
#include <check.h>
#include "tests/support/check_run.h"
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <glib.h>
#include <gsl/gsl_randist.h>
#include "sim/flow.h"
#include "sim/rng.h"
#include "tests/support/flow_ref.h"

#define S(x) ((sim_time_ns)((x) * (double)SIM_NS_PER_S + 0.5))
#define TOL  1e-9

/* A test's view of its flows: the handle, when it completed, and a
 * callback counter.  The flow's ctx points at its record. */
typedef struct test_env test_env;
typedef struct {
  test_env *env;
  int id;
  SimFlow *flow;
  sim_time_ns done_ns; /* -1 until completed */
  int calls;
} rec;

struct test_env {
  SimEngine *eng;
  SimFlowNet *net;
  rec r[16];
  int order[16], n_order; /* completion order of ids */
  int cancel_on_done;     /* id to cancel from a callback, -1 none */
};

static void on_done(SimFlowNet *net, SimFlow *flow, void *ctx)
{
  rec *r = ctx;
  ck_assert_ptr_eq(r->flow, flow);
  ck_assert_ptr_eq(sim_flow_ctx(flow), r);
  r->calls++;
  r->done_ns = sim_engine_now(r->env->eng);
  r->flow = NULL;
  r->env->order[r->env->n_order++] = r->id;
  if (r->env->cancel_on_done >= 0) {
    rec *c = &r->env->r[r->env->cancel_on_done];
    r->env->cancel_on_done = -1;
    sim_flow_cancel(net, c->flow);
    c->flow = NULL;
  }
}

static void env_init(test_env *e)
{
  *e = (test_env){ 0 };
  e->eng = sim_engine_new();
  e->net = sim_flow_net_new(e->eng);
  e->cancel_on_done = -1;
  for (int i = 0; i < 16; i++) e->r[i] = (rec){ .env = e, .id = i, .done_ns = -1 };
}

static void env_clear(test_env *e)
{
  sim_flow_net_free(e->net);
  sim_engine_free(e->eng);
}

static SimFlow *start(test_env *e, int id, double size, const SimFlowUse *u, size_t n, double cap)
{
  g_autoptr(GError) err = NULL;
  SimFlow *f = sim_flow_start(e->net, size, u, n, cap, on_done, &e->r[id], &err);
  ck_assert_msg(f != NULL, "%s", err ? err->message : "?");
  e->r[id].flow = f;
  return f;
}

static double rate(test_env *e, int id)
{
  return sim_flow_rate_Bps(e->r[id].flow);
}

/* ------------------------------------------------------------------------ */

/* Link A (10 B/s) and link B (6 B/s); flow 1 crosses A and B, flow 2 only A,
 * flow 3 only B.  Sizes 12, 14, 3 bytes.
 *   Progressive filling: all three rise together; A would saturate at 10/2
 *   = 5, B at 6/2 = 3, so B saturates first: x1 = x3 = 3; then A has 10 - 3
 *   = 7 left for flow 2 alone: x2 = 7.
 *   t = 1 s: flow 3 (3 bytes at 3 B/s) completes.  Left: flow 1 12 - 3 = 9,
 *   flow 2 14 - 7 = 7.  Now A carries flows 1, 2 (level 10/2 = 5), B only
 *   flow 1 (level 6): A saturates, x1 = x2 = 5.
 *   t = 1 + 7/5 = 2.4 s: flow 2 completes.  Flow 1 has 9 - 5 x 1.4 = 2 left,
 *   alone: min(10, 6) = 6 B/s.
 *   t = 2.4 + 2/6 s = 2 733 333 333.3 ns -> completes at the ceil,
 *   2 733 333 334 ns. */
START_TEST(test_two_links_three_flows)
{
  test_env e;
  env_init(&e);
  SimFlowResource *A = sim_flow_net_add_resource(e.net, "A", 10);
  SimFlowResource *B = sim_flow_net_add_resource(e.net, "B", 6);
  start(&e, 1, 12, (SimFlowUse[]){ { A, 1 }, { B, 1 } }, 2, SIM_FLOW_UNCAPPED);
  start(&e, 2, 14, (SimFlowUse[]){ { A, 1 } }, 1, SIM_FLOW_UNCAPPED);
  start(&e, 3, 3, (SimFlowUse[]){ { B, 1 } }, 1, SIM_FLOW_UNCAPPED);
  ck_assert_double_eq_tol(rate(&e, 1), 3, TOL);
  ck_assert_double_eq_tol(rate(&e, 2), 7, TOL);
  ck_assert_double_eq_tol(rate(&e, 3), 3, TOL);
  ck_assert_double_eq_tol(sim_flow_resource_load(e.net, A), 10, TOL);
  ck_assert_double_eq_tol(sim_flow_resource_load(e.net, B), 6, TOL);
  ck_assert_uint_eq(sim_flow_net_n_flows(e.net), 3);
  ck_assert_uint_eq(sim_flow_resource_n_flows(A), 2);

  sim_engine_run_until(e.eng, S(1));
  ck_assert_int_eq(e.r[3].done_ns, S(1));
  ck_assert_double_eq_tol(rate(&e, 1), 5, TOL);
  ck_assert_double_eq_tol(rate(&e, 2), 5, TOL);
  ck_assert_double_eq_tol(sim_flow_remaining_bytes(e.r[1].flow), 9, TOL);
  ck_assert_double_eq_tol(sim_flow_resource_utilisation(e.net, B), 5.0 / 6, TOL);

  sim_engine_run_until(e.eng, S(2.4));
  ck_assert_int_eq(e.r[2].done_ns, S(2.4));
  ck_assert_double_eq_tol(rate(&e, 1), 6, TOL);
  ck_assert_double_eq_tol(sim_flow_remaining_bytes(e.r[1].flow), 2, TOL);

  sim_engine_run_until(e.eng, S(10));
  ck_assert_int_eq(e.r[1].done_ns, INT64_C(2733333334));
  ck_assert_int_eq(e.n_order, 3);
  ck_assert_int_eq(e.order[0], 3);
  ck_assert_int_eq(e.order[1], 2);
  ck_assert_int_eq(e.order[2], 1);
  ck_assert_uint_eq(sim_flow_net_n_flows(e.net), 0);
  ck_assert_uint_eq(sim_engine_pending(e.eng), 0);

  /* Units served: A carried flows 1 and 2 (26 bytes), B flows 1 and 3 (15). */
  SimFlowStats sa, sb, sn;
  sim_flow_resource_stats(e.net, A, &sa);
  sim_flow_resource_stats(e.net, B, &sb);
  sim_flow_net_stats(e.net, &sn);
  ck_assert_double_eq_tol(sa.units, 26, 1e-9);
  ck_assert_double_eq_tol(sb.units, 15, 1e-9);
  ck_assert_double_eq_tol(sn.units, 29, 1e-9);
  ck_assert_double_eq_tol(sa.elapsed_s, 10, 1e-12);
  ck_assert_double_eq_tol(sim_flow_stats_utilisation(&sa), 2.6 / 10, 1e-9);
  ck_assert_uint_eq(sb.completed, 2);
  ck_assert_uint_eq(sn.completed, 3);
  /* Flow areas: A carried 2 flows until 2.4 s then 1 until 2.7333 s. */
  ck_assert_double_eq_tol(sa.flows_area_s, 2 * 2.4 + 0.333333334, 1e-9);
  /* Slowdowns: flow 3 alone 3/6 = 0.5 s, took 1 s; flow 2 alone 1.4 s,
     * took 2.4 s; flow 1 alone 2 s, took 2.733333334 s. */
  ck_assert_double_eq_tol(sn.alone_sum_s, 0.5 + 1.4 + 2, 1e-9);
  ck_assert_double_eq_tol(sn.response_sum_s, 1 + 2.4 + 2.733333334, 1e-9);
  ck_assert_double_eq_tol(sn.slowdown_sum, 2 + 2.4 / 1.4 + 2.733333334 / 2, 1e-9);
  env_clear(&e);
}
END_TEST

/* test_two_links_three_flows' flows, with or without per-flow statistics:
 * the completion times and the resources' and net's stats at 10 s. */
static void run_three_flows(bool keep, sim_time_ns done[3], SimFlowStats *sa, SimFlowStats *sb, SimFlowStats *sn)
{
  test_env e;
  env_init(&e);
  sim_flow_net_keep_flow_stats(e.net, keep);
  SimFlowResource *A = sim_flow_net_add_resource(e.net, "A", 10);
  SimFlowResource *B = sim_flow_net_add_resource(e.net, "B", 6);
  start(&e, 1, 12, (SimFlowUse[]){ { A, 1 }, { B, 1 } }, 2, SIM_FLOW_UNCAPPED);
  start(&e, 2, 14, (SimFlowUse[]){ { A, 1 } }, 1, SIM_FLOW_UNCAPPED);
  start(&e, 3, 3, (SimFlowUse[]){ { B, 1 } }, 1, SIM_FLOW_UNCAPPED);
  sim_engine_run_until(e.eng, S(10));
  for (int i = 0; i < 3; i++) done[i] = e.r[i + 1].done_ns;
  sim_flow_resource_stats(e.net, A, sa);
  sim_flow_resource_stats(e.net, B, sb);
  sim_flow_net_stats(e.net, sn);
  env_clear(&e);
}

/* Per-flow statistics turned off: rates, completion times, units and busy
 * areas are bit for bit those with them on; flow areas and the completed
 * flows' counts and sums stay 0. */
START_TEST(test_flow_stats_off)
{
  sim_time_ns d_on[3], d_off[3];
  SimFlowStats a_on, b_on, n_on, a_off, b_off, n_off;
  run_three_flows(true, d_on, &a_on, &b_on, &n_on);
  run_three_flows(false, d_off, &a_off, &b_off, &n_off);
  for (int i = 0; i < 3; i++) ck_assert_int_eq(d_off[i], d_on[i]);
  ck_assert_int_eq(d_off[0], INT64_C(2733333334));
  ck_assert(a_off.units == a_on.units && b_off.units == b_on.units && n_off.units == n_on.units);
  ck_assert(a_off.busy_area_s == a_on.busy_area_s && b_off.busy_area_s == b_on.busy_area_s);
  ck_assert_double_eq_tol(a_off.units, 26, 1e-9);
  ck_assert_uint_eq(b_on.completed, 2);
  ck_assert_uint_eq(b_off.completed, 0);
  ck_assert_uint_eq(n_off.completed, 0);
  ck_assert_double_eq_tol(a_on.flows_area_s, 2 * 2.4 + 0.333333334, 1e-9);
  ck_assert(a_off.flows_area_s == 0 && b_off.flows_area_s == 0);
  ck_assert(n_off.response_sum_s == 0 && n_off.alone_sum_s == 0 && n_off.slowdown_sum == 0);
  ck_assert(b_off.response_sum_s == 0 && b_off.alone_sum_s == 0 && b_off.slowdown_sum == 0);
}
END_TEST

/* One byte costs 4 units of X (DRAM-like: capacity 100) and 1 unit of Y
 * (capacity 30).  Alone: X allows 100/4 = 25 B/s, Y 30: x1 = 25 (X binds).
 * A second flow on Y only: levels X 100/4 = 25, Y 30/(1+1) = 15 -> Y
 * saturates, x1 = x2 = 15; X then carries 4 x 15 = 60.
 * With flow 2 capped at 5 B/s instead: it freezes at 5 first; then X level
 * 25, Y (30 - 5)/1 = 25: both saturate together, x1 = 25. */
START_TEST(test_multi_resource_weights)
{
  test_env e;
  env_init(&e);
  SimFlowResource *X = sim_flow_net_add_resource(e.net, "X", 100);
  SimFlowResource *Y = sim_flow_net_add_resource(e.net, "Y", 30);
  start(&e, 1, 1000, (SimFlowUse[]){ { X, 4 }, { Y, 1 } }, 2, SIM_FLOW_UNCAPPED);
  ck_assert_double_eq_tol(rate(&e, 1), 25, TOL);
  ck_assert_double_eq_tol(sim_flow_resource_load(e.net, X), 100, TOL);
  ck_assert_double_eq_tol(sim_flow_resource_load(e.net, Y), 25, TOL);
  ck_assert_double_eq_tol(sim_flow_alone_s(e.r[1].flow), 1000.0 / 25, TOL);

  start(&e, 2, 1000, (SimFlowUse[]){ { Y, 1 } }, 1, SIM_FLOW_UNCAPPED);
  ck_assert_double_eq_tol(rate(&e, 1), 15, TOL);
  ck_assert_double_eq_tol(rate(&e, 2), 15, TOL);
  ck_assert_double_eq_tol(sim_flow_resource_load(e.net, X), 60, TOL);
  ck_assert_double_eq_tol(sim_flow_resource_utilisation(e.net, Y), 1, TOL);

  sim_flow_cancel(e.net, e.r[2].flow);
  ck_assert_double_eq_tol(rate(&e, 1), 25, TOL);
  start(&e, 3, 1000, (SimFlowUse[]){ { Y, 1 } }, 1, 5);
  ck_assert_double_eq_tol(rate(&e, 3), 5, TOL);
  ck_assert_double_eq_tol(rate(&e, 1), 25, TOL);
  ck_assert_double_eq_tol(sim_flow_resource_load(e.net, Y), 30, TOL);

  /* A resource listed twice has its costs added: 2 + 2 units of X = 4. */
  sim_flow_cancel(e.net, e.r[3].flow);
  sim_flow_cancel(e.net, e.r[1].flow);
  start(&e, 4, 1000, (SimFlowUse[]){ { X, 2 }, { Y, 0 }, { X, 2 } }, 3, SIM_FLOW_UNCAPPED);
  ck_assert_double_eq_tol(rate(&e, 4), 25, TOL);
  ck_assert_uint_eq(sim_flow_resource_n_flows(X), 1);
  ck_assert_uint_eq(sim_flow_resource_n_flows(Y), 0);
  env_clear(&e);
}
END_TEST

/* Caps: alone a flow gets min(cap, C/w); N equal flows share C/N; a flow
 * finishing frees bandwidth at that instant. */
START_TEST(test_caps_and_equal_shares)
{
  test_env e;
  env_init(&e);
  SimFlowResource *L = sim_flow_net_add_resource(e.net, "L", 100);
  start(&e, 0, 1e6, (SimFlowUse[]){ { L, 2 } }, 1, 30);
  ck_assert_double_eq_tol(rate(&e, 0), 30, TOL); /* cap binds */
  sim_flow_cancel(e.net, e.r[0].flow);
  start(&e, 0, 1e6, (SimFlowUse[]){ { L, 2 } }, 1, 80);
  ck_assert_double_eq_tol(rate(&e, 0), 50, TOL); /* 100 / 2 binds */
  sim_flow_cancel(e.net, e.r[0].flow);

  for (int i = 0; i < 5; i++) start(&e, i, 1e6, (SimFlowUse[]){ { L, 1 } }, 1, SIM_FLOW_UNCAPPED);
  for (int i = 0; i < 5; i++) ck_assert_double_eq_tol(rate(&e, i), 20, TOL);
  /* Two of them capped at 5 and 10 (restarted): the other three share
     * 100 - 15 = 85. */
  sim_flow_cancel(e.net, e.r[0].flow);
  sim_flow_cancel(e.net, e.r[1].flow);
  start(&e, 0, 1e6, (SimFlowUse[]){ { L, 1 } }, 1, 10);
  start(&e, 1, 1e6, (SimFlowUse[]){ { L, 1 } }, 1, 5);
  ck_assert_double_eq_tol(rate(&e, 0), 10, TOL);
  ck_assert_double_eq_tol(rate(&e, 1), 5, TOL);
  for (int i = 2; i < 5; i++) ck_assert_double_eq_tol(rate(&e, i), 85.0 / 3, TOL);
  for (int i = 0; i < 5; i++) sim_flow_cancel(e.net, e.r[i].flow);
  ck_assert_uint_eq(sim_flow_net_n_flows(e.net), 0);
  ck_assert_double_eq_tol(sim_flow_resource_load(e.net, L), 0, TOL);
  ck_assert_uint_eq(sim_engine_pending(e.eng), 0);

  /* Sizes 10 and 30 on a 10 B/s link: 5 B/s each; the first completes at
     * 2 s, then the second (20 bytes left) runs at 10 B/s: done at 4 s. */
  sim_flow_resource_set_capacity(e.net, L, 10);
  start(&e, 6, 10, (SimFlowUse[]){ { L, 1 } }, 1, SIM_FLOW_UNCAPPED);
  start(&e, 7, 30, (SimFlowUse[]){ { L, 1 } }, 1, SIM_FLOW_UNCAPPED);
  ck_assert_double_eq_tol(rate(&e, 7), 5, TOL);
  sim_engine_run_until(e.eng, S(2));
  ck_assert_int_eq(e.r[6].done_ns, S(2));
  ck_assert_double_eq_tol(rate(&e, 7), 10, TOL);
  sim_engine_run_until(e.eng, S(5));
  ck_assert_int_eq(e.r[7].done_ns, S(4));

  /* A flow with a cap and no resource runs at its cap: 10 bytes at 4 B/s. */
  start(&e, 8, 10, NULL, 0, 4);
  ck_assert_double_eq_tol(rate(&e, 8), 4, TOL);
  sim_engine_run_until(e.eng, S(10));
  ck_assert_int_eq(e.r[8].done_ns, S(7.5));
  env_clear(&e);
}
END_TEST

/* Capacity change mid-flow: 100 bytes at 10 B/s; at 4 s the link drops to
 * 5 B/s with 60 bytes left: 12 s more, done at 16 s. */
START_TEST(test_capacity_change)
{
  test_env e;
  env_init(&e);
  SimFlowResource *L = sim_flow_net_add_resource(e.net, "L", 10);
  start(&e, 0, 100, (SimFlowUse[]){ { L, 1 } }, 1, SIM_FLOW_UNCAPPED);
  sim_engine_run_until(e.eng, S(4));
  sim_flow_resource_set_capacity(e.net, L, 5);
  ck_assert_double_eq(sim_flow_resource_capacity(L), 5);
  ck_assert_double_eq_tol(rate(&e, 0), 5, TOL);
  sim_engine_run_until(e.eng, S(100));
  ck_assert_int_eq(e.r[0].done_ns, S(16));
  SimFlowStats s;
  sim_flow_resource_stats(e.net, L, &s);
  ck_assert_double_eq_tol(s.units, 100, 1e-9);
  /* busy: 4 s at 1 + 12 s at 1 */
  ck_assert_double_eq_tol(s.busy_area_s, 16, 1e-9);
  env_clear(&e);
}
END_TEST

/* Zero-size flows complete at the current time, from the net's event, not
 * inside sim_flow_start(); flows with no cap and no resource are refused. */
START_TEST(test_zero_size_and_unbounded)
{
  test_env e;
  env_init(&e);
  SimFlowResource *L = sim_flow_net_add_resource(e.net, "L", 10);
  sim_engine_run_until(e.eng, S(1));
  start(&e, 0, 0, (SimFlowUse[]){ { L, 1 } }, 1, SIM_FLOW_UNCAPPED);
  start(&e, 1, 0, NULL, 0, SIM_FLOW_UNCAPPED); /* zero size: bounded */
  ck_assert_int_eq(e.r[0].calls, 0);
  ck_assert_uint_eq(sim_flow_resource_n_flows(L), 0);
  sim_engine_run_until(e.eng, S(1));
  ck_assert_int_eq(e.r[0].calls, 1);
  ck_assert_int_eq(e.r[0].done_ns, S(1));
  ck_assert_int_eq(e.r[1].done_ns, S(1));
  ck_assert_int_eq(e.order[0], 0); /* start order */

  g_autoptr(GError) err = NULL;
  ck_assert_ptr_null(sim_flow_start(e.net, 5, NULL, 0, SIM_FLOW_UNCAPPED, on_done, NULL, &err));
  ck_assert(g_error_matches(err, SIM_FLOW_ERROR, SIM_FLOW_ERROR_UNBOUNDED));
  g_clear_error(&err);
  ck_assert_ptr_null(sim_flow_start(e.net, 5, (SimFlowUse[]){ { L, 0 } }, 1, SIM_FLOW_UNCAPPED, on_done, NULL, &err));
  ck_assert(g_error_matches(err, SIM_FLOW_ERROR, SIM_FLOW_ERROR_UNBOUNDED));
  ck_assert_uint_eq(sim_flow_net_n_flows(e.net), 0);
  env_clear(&e);
}
END_TEST

/* Cancel re-shares: two 20-byte flows on 10 B/s get 5 each; flow 2 cancelled
 * at 1 s leaves flow 1 with 15 bytes at 10 B/s: done at 2.5 s.  Two equal
 * flows completing at the same instant: the first callback (start order)
 * cancels the second, whose callback is then not called. */
START_TEST(test_cancel)
{
  test_env e;
  env_init(&e);
  SimFlowResource *L = sim_flow_net_add_resource(e.net, "L", 10);
  start(&e, 1, 20, (SimFlowUse[]){ { L, 1 } }, 1, SIM_FLOW_UNCAPPED);
  start(&e, 2, 20, (SimFlowUse[]){ { L, 1 } }, 1, SIM_FLOW_UNCAPPED);
  sim_engine_run_until(e.eng, S(1));
  ck_assert_double_eq_tol(sim_flow_remaining_bytes(e.r[2].flow), 15, TOL);
  sim_flow_cancel(e.net, e.r[2].flow);
  ck_assert_double_eq_tol(rate(&e, 1), 10, TOL);
  sim_engine_run_until(e.eng, S(10));
  ck_assert_int_eq(e.r[1].done_ns, S(2.5));
  ck_assert_int_eq(e.r[2].calls, 0);
  SimFlowStats s;
  sim_flow_resource_stats(e.net, L, &s);
  ck_assert_double_eq_tol(s.units, 20 + 5, 1e-9); /* the cancelled one moved 5 */
  ck_assert_uint_eq(s.completed, 1);

  start(&e, 3, 20, (SimFlowUse[]){ { L, 1 } }, 1, SIM_FLOW_UNCAPPED);
  start(&e, 4, 20, (SimFlowUse[]){ { L, 1 } }, 1, SIM_FLOW_UNCAPPED);
  e.cancel_on_done = 4;
  sim_engine_run_until(e.eng, S(20));
  ck_assert_int_eq(e.r[3].done_ns, S(14));
  ck_assert_int_eq(e.r[4].calls, 0);
  ck_assert_uint_eq(sim_flow_net_n_flows(e.net), 0);
  env_clear(&e);
}
END_TEST

/* Statistics and warm-up reset: one flow of 10 bytes on 10 B/s from 0 to 1 s,
 * observed to 2 s: utilisation 0.5, mean flows 0.5, throughput 5.  After a
 * reset at 2 s and an idle second: all zero but elapsed 1 s. */
START_TEST(test_stats_and_reset)
{
  test_env e;
  env_init(&e);
  SimFlowResource *L = sim_flow_net_add_resource(e.net, "L", 10);
  start(&e, 0, 10, (SimFlowUse[]){ { L, 1 } }, 1, SIM_FLOW_UNCAPPED);
  sim_engine_run_until(e.eng, S(2));
  SimFlowStats s;
  sim_flow_resource_stats(e.net, L, &s);
  ck_assert_double_eq_tol(s.elapsed_s, 2, 1e-12);
  ck_assert_double_eq_tol(sim_flow_stats_utilisation(&s), 0.5, 1e-12);
  ck_assert_double_eq_tol(sim_flow_stats_mean_flows(&s), 0.5, 1e-12);
  ck_assert_double_eq_tol(sim_flow_stats_throughput(&s), 5, 1e-12);
  ck_assert_double_eq_tol(sim_flow_stats_mean_response_s(&s), 1, 1e-12);
  ck_assert_double_eq_tol(sim_flow_stats_mean_slowdown(&s), 1, 1e-12);
  sim_flow_net_reset_stats(e.net);
  sim_engine_run_until(e.eng, S(3));
  sim_flow_resource_stats(e.net, L, &s);
  ck_assert_double_eq_tol(s.elapsed_s, 1, 1e-12);
  ck_assert_double_eq(s.units, 0);
  ck_assert_uint_eq(s.completed, 0);
  ck_assert_double_eq(sim_flow_stats_mean_response_s(&s), 0);
  env_clear(&e);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Random networks: conservation, capacity and max-min optimality.          */

enum { RN_RES = 8, RN_MAXU = 4, RN_FLOWS = 3000 };

typedef struct rnet rnet;
typedef struct {
  rnet *rn;
  SimFlow *flow; /* NULL when not active */
  double size, cap;
  SimFlowUse u[RN_MAXU];
  int n;
  bool done;
} rflow;

struct rnet {
  SimEngine *eng;
  SimFlowNet *net;
  SimFlowResource *res[RN_RES];
  gsl_rng *rng;
  rflow *f;
  int started, checks, violations;
  int all_capped; /* 1: every flow capped (fast path) */
  char first[128];
  SimEvent arrive, probe;
};

/* The random net's conservation per resource (units served >= @expect, = capacity x busy area,
 * utilisation <= @max_util), then frees it. */
static void rn_check_units_free(rnet *rn, const double *expect, double max_util)
{
  for (int r = 0; r < RN_RES; r++) {
    SimFlowStats s;
    sim_flow_resource_stats(rn->net, rn->res[r], &s);
    ck_assert_double_ge(s.units, expect[r] * (1 - 1e-12));
    /* units served = capacity x busy area (the integral of allocation) */
    ck_assert_double_eq_tol(s.units, s.busy_area_s * sim_flow_resource_capacity(rn->res[r]), 1e-9 * s.units);
    ck_assert_double_le(sim_flow_stats_utilisation(&s), max_util);
  }
  gsl_rng_free(rn->rng);
  g_free(rn->f);
  sim_flow_net_free(rn->net);
  sim_engine_free(rn->eng);
}

static void rn_done(SimFlowNet *net G_GNUC_UNUSED, SimFlow *flow G_GNUC_UNUSED, void *ctx)
{
  rflow *rf = ctx;
  rf->flow = NULL;
  rf->done = true;
}

/* Every active flow must be at its cap or cross a saturated resource on
 * which no flow has a higher rate (the max-min bottleneck condition); no
 * resource may be loaded past its capacity, and loads must equal sums.
 * (Check's assertions write to a pipe even when they pass, so the hot
 * checks count violations and the test asserts once at the end.) */
static void rn_violation(rnet *rn, const char *what, int i)
{
  if (rn->violations++ == 0)
    g_snprintf(rn->first, sizeof rn->first, "%s (%d) at %" G_GINT64_FORMAT " ns", what, i, sim_engine_now(rn->eng));
}

static void rn_check(rnet *rn)
{
  double load[RN_RES] = { 0 }, maxrate[RN_RES] = { 0 };
  for (int i = 0; i < rn->started; i++) {
    rflow *rf = &rn->f[i];
    if (!rf->flow) continue;
    double x = sim_flow_rate_Bps(rf->flow);
    if (!(x > 0)) rn_violation(rn, "rate not positive", i);
    for (int k = 0; k < rf->n; k++)
      for (int r = 0; r < RN_RES; r++)
        if (rf->u[k].res == rn->res[r]) {
          load[r] += rf->u[k].units_per_byte * x;
          if (x > maxrate[r]) maxrate[r] = x;
        }
  }
  for (int r = 0; r < RN_RES; r++) {
    double c = sim_flow_resource_capacity(rn->res[r]);
    if (load[r] > c * (1 + TOL) || sim_flow_resource_utilisation(rn->net, rn->res[r]) > 1 + TOL)
      rn_violation(rn, "resource over capacity", r);
    if (fabs(sim_flow_resource_load(rn->net, rn->res[r]) - load[r]) > c * TOL)
      rn_violation(rn, "resource load is not the sum of its flows", r);
  }
  for (int i = 0; i < rn->started; i++) {
    rflow *rf = &rn->f[i];
    if (!rf->flow) continue;
    double x = sim_flow_rate_Bps(rf->flow);
    bool ok = x >= rf->cap * (1 - TOL);
    for (int k = 0; k < rf->n && !ok; k++)
      for (int r = 0; r < RN_RES; r++)
        if (rf->u[k].res == rn->res[r] && load[r] >= sim_flow_resource_capacity(rn->res[r]) * (1 - TOL) &&
            x >= maxrate[r] * (1 - TOL))
          ok = true;
    if (!ok) rn_violation(rn, "flow has no bottleneck", i);
  }
  rn->checks++;
}

static void rn_arrive(SimEngine *eng, SimEvent *ev, void *ctx)
{
  rnet *rn = ctx;
  rflow *rf = &rn->f[rn->started];
  rf->rn = rn;
  rf->size = gsl_rng_uniform_int(rn->rng, 4) == 0 ? 0 : gsl_ran_exponential(rn->rng, rn->all_capped ? 100 : 1000);
  if (rn->all_capped)
    rf->cap = 2 + gsl_rng_uniform(rn->rng) * 28;
  else
    rf->cap = gsl_rng_uniform_int(rn->rng, 3) == 0 ? 20 + gsl_rng_uniform(rn->rng) * 200 : SIM_FLOW_UNCAPPED;
  rf->n = 1 + (int)gsl_rng_uniform_int(rn->rng, RN_MAXU);
  for (int k = 0; k < rf->n; k++)
    rf->u[k] = (SimFlowUse){ rn->res[gsl_rng_uniform_int(rn->rng, RN_RES)], 0.5 + 4 * gsl_rng_uniform(rn->rng) };
  g_autoptr(GError) err = NULL;
  rf->flow = sim_flow_start(rn->net, rf->size, rf->u, (size_t)rf->n, rf->cap, rn_done, rf, &err);
  if (!rf->flow) rn_violation(rn, "start failed", rn->started);
  rn->started++;
  /* Sometimes cancel a random active flow. */
  if (gsl_rng_uniform_int(rn->rng, 10) == 0) {
    rflow *v = &rn->f[gsl_rng_uniform_int(rn->rng, (unsigned long)rn->started)];
    if (v->flow && v != rf) {
      sim_flow_cancel(rn->net, v->flow);
      v->flow = NULL;
    }
  }
  if (rn->started < RN_FLOWS)
    sim_engine_schedule_in(eng, ev, (sim_time_ns)gsl_ran_exponential(rn->rng, rn->all_capped ? 2e8 : 2e7));
}

static void rn_probe(SimEngine *eng, SimEvent *ev, void *ctx)
{
  rnet *rn = ctx;
  rn_check(rn);
  if (rn->started < RN_FLOWS) sim_engine_schedule_in(eng, ev, (rn->all_capped ? 30 : 3) * SIM_NS_PER_MS);
}

/* Loop 0: a third of the flows capped, heavy load (most changes re-solve);
 * loop 1: all capped, lighter load, so that resources go in and out of
 * saturation and both the fast path and re-solves occur. */
START_TEST(test_random_conservation_and_maxmin)
{
  rnet rn = { 0 };
  rn.all_capped = _i;
  rn.eng = sim_engine_new();
  rn.net = sim_flow_net_new(rn.eng);
  rn.rng = sim_rng_new(42, "flow-random-net");
  rn.f = g_new0(rflow, RN_FLOWS);
  for (int r = 0; r < RN_RES; r++) {
    char name[16];
    g_snprintf(name, sizeof name, "r%d", r);
    rn.res[r] = sim_flow_net_add_resource(rn.net, name, 100 + 900 * gsl_rng_uniform(rn.rng));
  }
  sim_event_init(&rn.arrive, rn_arrive, &rn);
  sim_event_init(&rn.probe, rn_probe, &rn);
  sim_engine_schedule(rn.eng, &rn.arrive, 0);
  sim_engine_schedule(rn.eng, &rn.probe, 1);
  sim_engine_run_until(rn.eng, SIM_TIME_NEVER - 1);
  ck_assert_int_eq(rn.started, RN_FLOWS);
  ck_assert_int_gt(rn.checks, 1000);
  ck_assert_msg(rn.violations == 0, "%d violations, first: %s", rn.violations, rn.first);
  ck_assert_uint_gt(sim_flow_net_n_recomputes(rn.net), 100);
  if (rn.all_capped) ck_assert_uint_gt(sim_flow_net_n_fast(rn.net), 100);
  ck_assert_uint_eq(sim_flow_net_n_flows(rn.net), 0);

  /* Conservation: each resource served sum of w x bytes of the flows that
     * used it (completed ones in full; cancelled ones counted through their
     * served share, so compare on a run where those are known). */
  double expect[RN_RES] = { 0 }, bytes = 0;
  uint64_t completed = 0;
  for (int i = 0; i < RN_FLOWS; i++) {
    if (!rn.f[i].done) continue;
    completed++;
    bytes += rn.f[i].size;
    for (int k = 0; k < rn.f[i].n; k++)
      for (int r = 0; r < RN_RES; r++)
        if (rn.f[i].u[k].res == rn.res[r]) expect[r] += rn.f[i].u[k].units_per_byte * rn.f[i].size;
  }
  SimFlowStats ns;
  sim_flow_net_stats(rn.net, &ns);
  ck_assert_uint_eq(ns.completed, completed);
  ck_assert_uint_lt(completed, RN_FLOWS); /* some were cancelled */
  /* Cancelled flows delivered part of their bytes: served >= expected. */
  ck_assert_double_ge(ns.units, bytes * (1 - 1e-12));
  rn_check_units_free(&rn, expect, 1 + TOL);
}
END_TEST

/* Exact conservation without cancels: every byte of every flow is served. */
START_TEST(test_conservation_exact)
{
  g_autoptr(SimEngine) eng = sim_engine_new();
  g_autoptr(SimFlowNet) net = sim_flow_net_new(eng);
  g_autoptr(gsl_rng) rng = sim_rng_new(7, "flow-conservation");
  SimFlowResource *res[5];
  for (int r = 0; r < 5; r++) res[r] = sim_flow_net_add_resource(net, "r", 50 + 100 * r);
  double expect[5] = { 0 }, bytes = 0;
  /* 400 flows started in waves at integer milliseconds. */
  for (int wave = 0; wave < 40; wave++) {
    sim_engine_run_until(eng, wave * 7 * SIM_NS_PER_MS);
    for (int j = 0; j < 10; j++) {
      SimFlowUse u[3];
      for (int k = 0; k < 3; k++) u[k] = (SimFlowUse){ res[gsl_rng_uniform_int(rng, 5)], 0.25 + gsl_rng_uniform(rng) };
      double size = gsl_ran_exponential(rng, 2);
      for (int k = 0; k < 3; k++)
        for (int r = 0; r < 5; r++)
          if (u[k].res == res[r]) expect[r] += u[k].units_per_byte * size;
      bytes += size;
      ck_assert_ptr_nonnull(sim_flow_start(net, size, u, 3, SIM_FLOW_UNCAPPED, NULL, NULL, NULL));
    }
  }
  sim_engine_run_until(eng, SIM_TIME_NEVER - 1);
  SimFlowStats ns;
  sim_flow_net_stats(net, &ns);
  ck_assert_uint_eq(ns.completed, 400);
  ck_assert_double_eq_tol(ns.units, bytes, 1e-9 * bytes);
  for (int r = 0; r < 5; r++) {
    SimFlowStats s;
    sim_flow_resource_stats(net, res[r], &s);
    ck_assert_double_eq_tol(s.units, expect[r], 1e-9 * expect[r]);
    ck_assert_double_le(sim_flow_stats_utilisation(&s), 1 + TOL);
  }
}
END_TEST

/* ------------------------------------------------------------------------ */
/* M/M/1 processor sharing: Poisson arrivals (rate lambda), exponential sizes
 * (mean 1e6 bytes) on one 1e9 B/s link: E[S] = 1 ms, rho = 0.7, and the mean
 * response time is E[S] / (1 - rho) = 3.333 ms (Kleinrock 1976, vol. 2,
 * sec. 4.4); the mean slowdown is 1 / (1 - rho) as well (E[T | x] is linear
 * in x). */

typedef struct {
  SimEngine *eng;
  SimFlowNet *net;
  SimFlowResource *link;
  gsl_rng *rng;
  SimEvent arrive;
  double lambda, mean_size;
  sim_time_ns t_warm, t_stop;
  double resp_sum, slow_sum;
  uint64_t n, failed_starts;
} ps_model;

static void ps_done(SimFlowNet *net G_GNUC_UNUSED, SimFlow *flow, void *ctx)
{
  ps_model *m = ctx;
  if (sim_flow_start_ns(flow) < m->t_warm) return;
  double resp = (double)(sim_engine_now(m->eng) - sim_flow_start_ns(flow)) / 1e9;
  m->resp_sum += resp;
  m->slow_sum += resp / sim_flow_alone_s(flow);
  m->n++;
}

static void ps_arrive(SimEngine *eng, SimEvent *ev, void *ctx)
{
  ps_model *m = ctx;
  SimFlowUse u = { m->link, 1 };
  double size = gsl_ran_exponential(m->rng, m->mean_size);
  if (!sim_flow_start(m->net, size, &u, 1, SIM_FLOW_UNCAPPED, ps_done, m, NULL)) m->failed_starts++;
  sim_time_ns next = sim_engine_now(eng) + sim_time_from_s(gsl_ran_exponential(m->rng, 1 / m->lambda));
  if (next < m->t_stop) sim_engine_schedule(eng, ev, next);
}

START_TEST(test_mm1_processor_sharing)
{
  ps_model m = { 0 };
  m.eng = sim_engine_new();
  m.net = sim_flow_net_new(m.eng);
  m.link = sim_flow_net_add_resource(m.net, "link", 1e9);
  m.rng = sim_rng_new(2024, "flow-mm1-ps");
  m.mean_size = 1e6;
  m.lambda = 700; /* rho = 700 x 1 ms = 0.7 */
  m.t_warm = S(20);
  m.t_stop = S(20 + 600); /* about 420 000 measured flows */
  sim_event_init(&m.arrive, ps_arrive, &m);
  sim_engine_schedule(m.eng, &m.arrive, 0);
  sim_engine_run_until(m.eng, m.t_warm);
  sim_flow_net_reset_stats(m.net);
  sim_engine_run_until(m.eng, m.t_stop);
  SimFlowStats s;
  sim_flow_resource_stats(m.net, m.link, &s);
  sim_engine_run_until(m.eng, SIM_TIME_NEVER - 1); /* drain */

  double rho = m.lambda * m.mean_size / 1e9;
  double expect = m.mean_size / 1e9 / (1 - rho);
  double mean = m.resp_sum / (double)m.n;
  ck_assert_uint_eq(m.failed_starts, 0);
  ck_assert_uint_gt(m.n, 400000);
  ck_assert_msg(fabs(mean / expect - 1) < 0.03, "mean response %g s, expected %g s", mean, expect);
  ck_assert_double_eq_tol(m.slow_sum / (double)m.n, 1 / (1 - rho), 0.03 / (1 - rho));
  /* Utilisation = rho; Little: mean number in system = rho / (1 - rho). */
  ck_assert_double_eq_tol(sim_flow_stats_utilisation(&s), rho, 0.01);
  ck_assert_double_eq_tol(sim_flow_stats_mean_flows(&s), rho / (1 - rho), 0.03 * rho / (1 - rho));
  gsl_rng_free(m.rng);
  sim_flow_net_free(m.net);
  sim_engine_free(m.eng);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Groups: flows with the same (resource, cost) vector and cap share a group. */

/* Grouping is by content, not by pointer: two arrays with equal contents
 * share a group, duplicates merge first, a different cap or cost makes
 * another group; group members get the very same rate. */
START_TEST(test_grouping_by_content)
{
  test_env e;
  env_init(&e);
  SimFlowResource *A = sim_flow_net_add_resource(e.net, "A", 100);
  SimFlowResource *B = sim_flow_net_add_resource(e.net, "B", 60);
  SimFlowUse u1[] = { { A, 1 }, { B, 2 } };
  SimFlowUse u2[] = { { A, 0.5 }, { B, 2 }, { A, 0.5 } }; /* merges to u1 */
  SimFlowUse u3[] = { { A, 1 }, { B, 3 } };
  start(&e, 0, 1e6, u1, 2, SIM_FLOW_UNCAPPED);
  start(&e, 1, 1e6, u1, 2, SIM_FLOW_UNCAPPED);
  start(&e, 2, 1e6, u2, 3, SIM_FLOW_UNCAPPED);
  ck_assert_uint_eq(sim_flow_net_n_groups(e.net), 1);
  start(&e, 3, 1e6, u1, 2, 5);
  start(&e, 4, 1e6, u3, 2, SIM_FLOW_UNCAPPED);
  ck_assert_uint_eq(sim_flow_net_n_groups(e.net), 3);
  ck_assert_uint_eq(sim_flow_net_n_flows(e.net), 5);
  ck_assert_uint_eq(sim_flow_resource_n_flows(A), 5);
  /* B: 3 x 2 x + 2 x 5 (capped) + 3 y = 60 with x = y (B saturates first:
     * A's level is (100 - 5)/4 = 23.75): x = 50 / 9. */
  for (int i = 0; i < 3; i++) ck_assert(rate(&e, i) == rate(&e, 0));
  ck_assert_double_eq_tol(rate(&e, 0), 50.0 / 9, TOL);
  ck_assert_double_eq_tol(rate(&e, 3), 5, TOL);
  ck_assert_double_eq_tol(rate(&e, 4), 50.0 / 9, TOL);
  ck_assert_double_eq_tol(sim_flow_resource_load(e.net, B), 60, TOL);
  ck_assert_double_eq_tol(sim_flow_resource_load(e.net, A), 4 * 50.0 / 9 + 5, TOL);
  for (int i = 0; i < 5; i++) sim_flow_cancel(e.net, e.r[i].flow);
  ck_assert_uint_eq(sim_flow_net_n_groups(e.net), 0);
  ck_assert_double_eq(sim_flow_resource_load(e.net, A), 0);
  env_clear(&e);
}
END_TEST

/* Paths: flows started on a path join the group of the same merged vector
 * started by sim_flow_start() and get its rate; an unbounded path is an
 * error; the alone time follows capacity changes. */
START_TEST(test_paths)
{
  test_env e;
  env_init(&e);
  SimFlowResource *A = sim_flow_net_add_resource(e.net, "A", 100);
  SimFlowResource *B = sim_flow_net_add_resource(e.net, "B", 60);
  SimFlowUse u1[] = { { A, 1 }, { B, 2 } };
  SimFlowUse u2[] = { { A, 0.5 }, { B, 2 }, { A, 0.5 } }; /* merges to u1 */
  g_autoptr(GError) err = NULL;
  SimFlowPath *p = sim_flow_net_path(e.net, u2, 3, SIM_FLOW_UNCAPPED, &err);
  ck_assert_ptr_nonnull(p);
  start(&e, 0, 1e6, u1, 2, SIM_FLOW_UNCAPPED);
  e.r[1].flow = sim_flow_start_path(e.net, p, 1e6, on_done, &e.r[1]);
  ck_assert_ptr_nonnull(e.r[1].flow);
  ck_assert_uint_eq(sim_flow_net_n_groups(e.net), 1);
  ck_assert_double_eq_tol(rate(&e, 1), 15, TOL); /* B: 2 x 2 x = 60 */
  ck_assert(rate(&e, 0) == rate(&e, 1));
  ck_assert_double_eq_tol(sim_flow_alone_s(e.r[1].flow), 1e6 / 30, TOL);
  sim_flow_resource_set_capacity(e.net, B, 120);
  e.r[2].flow = sim_flow_start_path(e.net, p, 1e6, on_done, &e.r[2]);
  ck_assert_double_eq_tol(sim_flow_alone_s(e.r[2].flow), 1e6 / 60, TOL);
  ck_assert_double_eq_tol(rate(&e, 2), 20, TOL); /* B: 3 x 2 x = 120 */
  ck_assert_ptr_null(sim_flow_net_path(e.net, (SimFlowUse[]){ { A, 0 } }, 1, SIM_FLOW_UNCAPPED, &err));
  ck_assert(g_error_matches(err, SIM_FLOW_ERROR, SIM_FLOW_ERROR_UNBOUNDED));
  for (int i = 0; i < 3; i++) sim_flow_cancel(e.net, e.r[i].flow);
  ck_assert_uint_eq(sim_flow_net_n_groups(e.net), 0);
  env_clear(&e);
}
END_TEST

/* Within a group, flows of unequal sizes started at different times finish
 * in the order of their finish tags (start bytes + size), not FIFO: on one
 * 10 B/s link, flow 0 (100 B at 0 s), flow 1 (10 B at 1 s), flow 2 (30 B at
 * 2 s).  0-1 s: flow 0 alone moves 10 B; 1-2 s: two flows at 5: flow 1 has
 * 5 left, flow 0 85.  At 2 s flow 2 joins, 3 flows at
 * 10/3: flow 1 done at 2 + 5/(10/3) = 3.5 s; then two flows at 5: flow 2 has
 * 30 - 5 = 25 left, flow 0 85 - 5 = 80: flow 2 done at 3.5 + 5 = 8.5 s; then
 * flow 0 with 80 - 25 = 55 at 10: done at 14 s.  Cancelling flow 3 (a member
 * of the same group) in between leaves the others' times unchanged when it
 * is cancelled at once. */
START_TEST(test_group_order_unequal_sizes)
{
  test_env e;
  env_init(&e);
  SimFlowResource *L = sim_flow_net_add_resource(e.net, "L", 10);
  SimFlowUse u[] = { { L, 1 } };
  start(&e, 0, 100, u, 1, SIM_FLOW_UNCAPPED);
  sim_engine_run_until(e.eng, S(1));
  start(&e, 1, 10, u, 1, SIM_FLOW_UNCAPPED);
  sim_engine_run_until(e.eng, S(2));
  start(&e, 2, 30, u, 1, SIM_FLOW_UNCAPPED);
  start(&e, 3, 1, u, 1, SIM_FLOW_UNCAPPED);
  ck_assert_uint_eq(sim_flow_net_n_groups(e.net), 1);
  sim_flow_cancel(e.net, e.r[3].flow); /* at once: moved no byte */
  ck_assert_double_eq_tol(sim_flow_remaining_bytes(e.r[0].flow), 85, TOL);
  ck_assert_double_eq_tol(sim_flow_remaining_bytes(e.r[1].flow), 5, TOL);
  sim_engine_run_until(e.eng, S(20));
  ck_assert_int_eq(e.n_order, 3);
  ck_assert_int_eq(e.order[0], 1);
  ck_assert_int_eq(e.order[1], 2);
  ck_assert_int_eq(e.order[2], 0);
  ck_assert_int_eq(e.r[1].done_ns, S(3.5));
  ck_assert_int_eq(e.r[2].done_ns, S(8.5));
  ck_assert_int_eq(e.r[0].done_ns, S(14));
  ck_assert_int_eq(e.r[3].calls, 0);
  SimFlowStats s;
  sim_flow_resource_stats(e.net, L, &s);
  ck_assert_double_eq_tol(s.units, 140, 1e-9);
  ck_assert_uint_eq(s.completed, 3);
  /* response 1: 2.5 s (alone 1 s), 2: 6.5 s (alone 3 s), 0: 14 s (alone 10 s) */
  ck_assert_double_eq_tol(s.response_sum_s, 2.5 + 6.5 + 14, 1e-9);
  ck_assert_double_eq_tol(s.slowdown_sum, 2.5 + 6.5 / 3 + 1.4, 1e-9);
  /* a mid-flight cancel inside a group: two 20 B flows, one cancelled at
     * 1 s with 15 left; the other gets 10 B/s: done at 14 + 2.5 s. */
  start(&e, 4, 20, u, 1, SIM_FLOW_UNCAPPED);
  start(&e, 5, 20, u, 1, SIM_FLOW_UNCAPPED);
  sim_engine_run_until(e.eng, S(21));
  ck_assert_double_eq_tol(sim_flow_remaining_bytes(e.r[5].flow), 15, TOL);
  sim_flow_cancel(e.net, e.r[5].flow);
  sim_engine_run_until(e.eng, S(30));
  ck_assert_int_eq(e.r[4].done_ns, S(22.5));
  sim_flow_resource_stats(e.net, L, &s);
  ck_assert_double_eq_tol(s.units, 140 + 20 + 5, 1e-9);
  env_clear(&e);
}
END_TEST

/* Differential test against the per-flow solver of commit 47c3890
 * (tests/support/flow_ref.c): the same random workload on both nets, flows
 * drawn from a few classes (shared vectors and caps, so that groups form,
 * as in sim/fluid.c) and random one-off vectors; both must give every
 * flow the same rate at every probe, complete the same flows at the same
 * ns (+-1 ns for float rounding) and serve the same units. */
enum { DF_RES = 10, DF_CLASSES = 12, DF_FLOWS = 4000, DF_MAXU = 5, DF_BIG = 160 };
/* Variant 5 (the big component): DF_BIG classes on one shared resource. */
enum { DF_RES_MAX = DF_BIG + 1, DF_CLASSES_MAX = DF_BIG };

typedef struct dfnet dfnet;
typedef struct {
  dfnet *d;
  SimFlow *f;
  ref_flow *rf;
  sim_time_ns done_new, done_ref;
} dflow;

struct dfnet {
  SimEngine *eng;
  SimFlowNet *net;
  ref_flow_net *ref;
  int nres, ncls; /* resources and classes in use */
  SimFlowResource *res[DF_RES_MAX];
  ref_flow_resource *rres[DF_RES_MAX];
  SimFlowUse cu[DF_CLASSES_MAX][DF_MAXU];
  ref_flow_use rcu[DF_CLASSES_MAX][DF_MAXU];
  int cn[DF_CLASSES_MAX];
  double ccap[DF_CLASSES_MAX];
  gsl_rng *rng;
  dflow *fl;
  int started, probes, rate_diffs, max_groups, variant;
  double max_rel;
  SimEvent arrive, probe;
};

static void df_done_new(SimFlowNet *net G_GNUC_UNUSED, SimFlow *f G_GNUC_UNUSED, void *ctx)
{
  dflow *x = ctx;
  x->done_new = sim_engine_now(x->d->eng);
  x->f = NULL;
}

static void df_done_ref(ref_flow_net *net G_GNUC_UNUSED, ref_flow *f G_GNUC_UNUSED, void *ctx)
{
  dflow *x = ctx;
  x->done_ref = sim_engine_now(x->d->eng);
  x->rf = NULL;
}

static void df_arrive(SimEngine *eng, SimEvent *ev, void *ctx)
{
  dfnet *d = ctx;
  dflow *x = &d->fl[d->started++];
  x->d = d;
  x->done_new = x->done_ref = -1;
  double size = gsl_rng_uniform_int(d->rng, 20) == 0 ? 0 : gsl_ran_exponential(d->rng, 500);
  SimFlowUse u[DF_MAXU];
  ref_flow_use ru[DF_MAXU];
  int n;
  double cap;
  if (gsl_rng_uniform_int(d->rng, 5) == 0) { /* a one-off vector */
    n = 1 + (int)gsl_rng_uniform_int(d->rng, DF_MAXU);
    for (int k = 0; k < n; k++) {
      int r = (int)gsl_rng_uniform_int(d->rng, (unsigned long)d->nres);
      double w = 0.5 + 2 * gsl_rng_uniform(d->rng);
      u[k] = (SimFlowUse){ d->res[r], w };
      ru[k] = (ref_flow_use){ d->rres[r], w };
    }
    cap = gsl_rng_uniform_int(d->rng, 3) == 0 ? 10 + 100 * gsl_rng_uniform(d->rng) : SIM_FLOW_UNCAPPED;
    if (d->variant >= 3) cap = SIM_FLOW_UNCAPPED;
  } else {
    int c = (int)gsl_rng_uniform_int(d->rng, (unsigned long)d->ncls);
    n = d->cn[c];
    memcpy(u, d->cu[c], sizeof u);
    memcpy(ru, d->rcu[c], sizeof ru);
    cap = d->ccap[c];
  }
  x->f = sim_flow_start(d->net, size, u, (size_t)n, cap, df_done_new, x, NULL);
  x->rf = ref_flow_start(d->ref, size, ru, (size_t)n, cap, df_done_ref, x, NULL);
  if (gsl_rng_uniform_int(d->rng, 12) == 0) { /* cancel a random active flow on both */
    dflow *v = &d->fl[gsl_rng_uniform_int(d->rng, (unsigned long)d->started)];
    if (v != x && v->f && v->rf) {
      sim_flow_cancel(d->net, v->f);
      ref_flow_cancel(d->ref, v->rf);
      v->f = NULL;
      v->rf = NULL;
    }
  }
  if ((d->variant == 1 || d->variant == 4) && gsl_rng_uniform_int(d->rng, 50) == 0) { /* capacity changes */
    int r = (int)gsl_rng_uniform_int(d->rng, (unsigned long)d->nres);
    double c = 100 + 900 * gsl_rng_uniform(d->rng);
    sim_flow_resource_set_capacity(d->net, d->res[r], c);
    ref_flow_resource_set_capacity(d->ref, d->rres[r], c);
  }
  if (d->started < DF_FLOWS)
    sim_engine_schedule_in(eng, ev, (sim_time_ns)gsl_ran_exponential(d->rng, d->variant == 2 ? 2e6 : 1e7));
}

static void df_probe(SimEngine *eng, SimEvent *ev, void *ctx)
{
  dfnet *d = ctx;
  for (int i = 0; i < d->started; i++) {
    dflow *x = &d->fl[i];
    if (!x->f || !x->rf) continue;
    double a = sim_flow_rate_Bps(x->f), b = ref_flow_rate_Bps(x->rf);
    double rel = fabs(a - b) / (b > 0 ? b : 1);
    if (rel > d->max_rel) d->max_rel = rel;
    if (rel > 1e-9) d->rate_diffs++;
  }
  for (int r = 0; r < d->nres; r++) {
    double a = sim_flow_resource_load(d->net, d->res[r]), b = ref_flow_resource_load(d->ref, d->rres[r]);
    if (fabs(a - b) > 1e-9 * sim_flow_resource_capacity(d->res[r])) d->rate_diffs++;
  }
  uint32_t ng = sim_flow_net_n_groups(d->net);
  if ((int)ng > d->max_groups) d->max_groups = (int)ng;
  d->probes++;
  if (d->started < DF_FLOWS) sim_engine_schedule_in(eng, ev, 5 * SIM_NS_PER_MS);
}

/* A resource that a cover proves can never reach its capacity is left out
 * of the overload checks (sim/flow.c, cover_bounds) only while that proof
 * holds.  D 100 B/s, L 120, P 100.  Four flows on {D, L} get 25 each (D
 * saturates; L carries 100, and no allocation can put more than D's 100
 * on it: L is bounded), one flow on {P} gets 100.  Then a flow on {L, P}:
 * it creates a group that also loads L, so the proof no longer holds.
 * Filling: L saturates first at 120 / 5 = 24 (D would at 25, P at 50), so
 * the {D, L} flows and the new one get 24 and the {P} flow 100 - 24 = 76.
 * Were L still taken as bounded, the new flow would get P's 50 and L would
 * carry 150. */
START_TEST(test_bounded_resource_proof_invalidated)
{
  test_env e;
  env_init(&e);
  SimFlowResource *D = sim_flow_net_add_resource(e.net, "D", 100);
  SimFlowResource *L = sim_flow_net_add_resource(e.net, "L", 120);
  SimFlowResource *P = sim_flow_net_add_resource(e.net, "P", 100);
  for (int i = 0; i < 4; i++) start(&e, i, 1e6, (SimFlowUse[]){ { D, 1 }, { L, 1 } }, 2, SIM_FLOW_UNCAPPED);
  start(&e, 4, 1e6, (SimFlowUse[]){ { P, 1 } }, 1, SIM_FLOW_UNCAPPED);
  sim_engine_run_until(e.eng, S(1));
  ck_assert_double_eq_tol(rate(&e, 0), 25, TOL);
  ck_assert_double_eq_tol(rate(&e, 4), 100, TOL);
  /* L is bounded now (D covers it): no clock tracks it, its load and the
     * units its active flows served are summed by group. */
  ck_assert_double_eq_tol(sim_flow_resource_load(e.net, L), 100, TOL);
  SimFlowStats st;
  sim_flow_resource_stats(e.net, L, &st);
  ck_assert_double_eq_tol(st.units, 100, TOL);
  start(&e, 5, 1e6, (SimFlowUse[]){ { L, 1 }, { P, 1 } }, 2, SIM_FLOW_UNCAPPED);
  sim_engine_run_until(e.eng, S(2));
  /* The new group cleared the proof: the clocks track L again, with the
     * weight of every flow using it. */
  sim_flow_resource_stats(e.net, L, &st);
  ck_assert_double_eq_tol(st.units, 100 + 120, TOL);
  sim_flow_resource_stats(e.net, D, &st);
  ck_assert_double_eq_tol(st.units, 100 + 96, TOL);
  sim_flow_resource_stats(e.net, P, &st);
  ck_assert_double_eq_tol(st.units, 100 + 76 + 24, TOL);
  for (int i = 0; i < 4; i++) ck_assert_double_eq_tol(rate(&e, i), 24, TOL);
  ck_assert_double_eq_tol(rate(&e, 5), 24, TOL);
  ck_assert_double_eq_tol(rate(&e, 4), 76, TOL);
  ck_assert_double_eq_tol(sim_flow_resource_load(e.net, L), 120, TOL);
  ck_assert_double_eq_tol(sim_flow_resource_load(e.net, D), 96, TOL);
  /* A {D, L} flow ends: the other three rise to 120 / 4 ... until L, now
     * with 3 + 1 flows, saturates at 30 and D carries 90. */
  sim_flow_cancel(e.net, e.r[0].flow);
  e.r[0].flow = NULL;
  for (int i = 1; i < 4; i++) ck_assert_double_eq_tol(rate(&e, i), 30, TOL);
  ck_assert_double_eq_tol(rate(&e, 5), 30, TOL);
  ck_assert_double_eq_tol(rate(&e, 4), 70, TOL);
  ck_assert_double_eq_tol(sim_flow_resource_load(e.net, L), 120, TOL);
  /* One more second: the cancelled flow counts the 49 bytes it moved. */
  sim_engine_run_until(e.eng, S(3));
  sim_flow_resource_stats(e.net, L, &st);
  ck_assert_double_eq_tol(st.units, 220 + 120, TOL);
  sim_flow_resource_stats(e.net, D, &st);
  ck_assert_double_eq_tol(st.units, 196 + 90, TOL);
  env_clear(&e);
}
END_TEST

/* Variants 0-4: DF_RES resources of random capacities, DF_CLASSES classes
 * of up to DF_MAXU random uses (some of zero cost), a third of them capped
 * (none in variants 3 and 4). */
static void random_classes(dfnet *d)
{
  for (int r = 0; r < DF_RES; r++) {
    double c = 100 + 900 * gsl_rng_uniform(d->rng);
    d->res[r] = sim_flow_net_add_resource(d->net, "r", c);
    d->rres[r] = ref_flow_net_add_resource(d->ref, "r", c);
  }
  for (int c = 0; c < DF_CLASSES; c++) {
    d->cn[c] = 1 + (int)gsl_rng_uniform_int(d->rng, DF_MAXU);
    for (int k = 0; k < d->cn[c]; k++) {
      int r = (int)gsl_rng_uniform_int(d->rng, DF_RES);
      double w = gsl_rng_uniform_int(d->rng, 8) == 0 ? 0 : 0.5 + 3 * gsl_rng_uniform(d->rng);
      d->cu[c][k] = (SimFlowUse){ d->res[r], w };
      d->rcu[c][k] = (ref_flow_use){ d->rres[r], w };
    }
    if (d->cu[c][0].units_per_byte == 0) {
      d->cu[c][0].units_per_byte = 1;
      d->rcu[c][0].units_per_byte = 1;
    }
    d->ccap[c] = gsl_rng_uniform_int(d->rng, 3) == 0 ? 5 + 60 * gsl_rng_uniform(d->rng) : SIM_FLOW_UNCAPPED;
    if (d->variant >= 3) d->ccap[c] = SIM_FLOW_UNCAPPED;
  }
}

/* Variant 5, the shape of a big appliance where one resource every request
 * uses saturates (DRAM of a node on the 64-drive x 64-port box): DF_BIG
 * classes, uncapped, each on the shared resource S (0.5-3.5 units/byte)
 * and its own resource (5-200 B/s, so that some saturate below S's level
 * and their groups split off).  Every solve is one component of up to
 * DF_BIG groups, each started in a clock of its own, so the commit merges
 * more than 64 clocks at once (about 2000 of the solves; up to 96 clocks,
 * 219 when the commit did not merge beyond 64). */
static void big_component_classes(dfnet *d)
{
  d->nres = DF_BIG + 1;
  d->ncls = DF_BIG;
  d->res[0] = sim_flow_net_add_resource(d->net, "S", 1000);
  d->rres[0] = ref_flow_net_add_resource(d->ref, "S", 1000);
  for (int c = 0; c < DF_BIG; c++) {
    double cap = 5 + 195 * gsl_rng_uniform(d->rng), w = 0.5 + 3 * gsl_rng_uniform(d->rng);
    d->res[c + 1] = sim_flow_net_add_resource(d->net, "p", cap);
    d->rres[c + 1] = ref_flow_net_add_resource(d->ref, "p", cap);
    d->cn[c] = 2;
    d->cu[c][0] = (SimFlowUse){ d->res[0], w };
    d->rcu[c][0] = (ref_flow_use){ d->rres[0], w };
    d->cu[c][1] = (SimFlowUse){ d->res[c + 1], 1 };
    d->rcu[c][1] = (ref_flow_use){ d->rres[c + 1], 1 };
    d->ccap[c] = SIM_FLOW_UNCAPPED;
  }
}

/* Variant 0: classes and one-offs; 1: with capacity changes; 2: heavier
 * load (more flows per group); 3 and 4: as 0 and 1 without caps, so that
 * the net solves by clocks (sim/flow.c) rather than group by group; 5: one
 * big component (big_component_classes), uncapped but for one-offs. */
START_TEST(test_groups_match_per_flow_solver)
{
  dfnet d = { 0 };
  d.variant = _i;
  d.eng = sim_engine_new();
  d.net = sim_flow_net_new(d.eng);
  d.ref = ref_flow_net_new(d.eng);
  d.rng = sim_rng_new(99 + (uint64_t)_i, "flow-differential");
  d.fl = g_new0(dflow, DF_FLOWS);
  d.nres = DF_RES;
  d.ncls = DF_CLASSES;
  if (d.variant == 5) {
    big_component_classes(&d);
  } else {
    random_classes(&d);
  }
  sim_event_init(&d.arrive, df_arrive, &d);
  sim_event_init(&d.probe, df_probe, &d);
  sim_engine_schedule(d.eng, &d.arrive, 0);
  sim_engine_schedule(d.eng, &d.probe, 1);
  sim_engine_run_until(d.eng, SIM_TIME_NEVER - 1);

  ck_assert_int_gt(d.probes, 500);
  ck_assert_msg(d.rate_diffs == 0, "%d rate/load differences, max relative %g", d.rate_diffs, d.max_rel);
  ck_assert_int_gt(d.max_groups, 3);
  int completed = 0, time_diffs = 0;
  for (int i = 0; i < DF_FLOWS; i++) {
    dflow *x = &d.fl[i];
    ck_assert_msg((x->done_new < 0) == (x->done_ref < 0), "flow %d completed in one net only", i);
    if (x->done_new < 0) continue;
    completed++;
    if (llabs(x->done_new - x->done_ref) > 1) time_diffs++;
  }
  ck_assert_int_gt(completed, DF_FLOWS / 2);
  ck_assert_msg(time_diffs == 0, "%d completion times differ by more than 1 ns", time_diffs);
  /* the same units and completion statistics */
  SimFlowStats a, b;
  sim_flow_net_stats(d.net, &a);
  ref_flow_net_stats(d.ref, (ref_flow_stats *)&b);
  ck_assert_uint_eq(a.completed, b.completed);
  ck_assert_double_eq_tol(a.units, b.units, 1e-9 * b.units);
  ck_assert_double_eq_tol(a.flows_area_s, b.flows_area_s, 1e-9 * b.flows_area_s);
  ck_assert_double_eq_tol(a.response_sum_s, b.response_sum_s, 1e-9 * b.response_sum_s);
  for (int r = 0; r < d.nres; r++) {
    sim_flow_resource_stats(d.net, d.res[r], &a);
    ref_flow_resource_stats(d.ref, d.rres[r], (ref_flow_stats *)&b);
    ck_assert_uint_eq(a.completed, b.completed);
    ck_assert_double_eq_tol(a.units, b.units, 1e-9 * b.units + 1e-9);
    ck_assert_double_eq_tol(a.busy_area_s, b.busy_area_s, 1e-9 * b.busy_area_s + 1e-12);
    ck_assert_double_eq_tol(a.flows_area_s, b.flows_area_s, 1e-9 * b.flows_area_s + 1e-12);
    ck_assert_double_eq_tol(a.slowdown_sum, b.slowdown_sum, 1e-9 * b.slowdown_sum + 1e-12);
  }
  gsl_rng_free(d.rng);
  g_free(d.fl);
  ref_flow_net_free(d.ref);
  sim_flow_net_free(d.net);
  sim_engine_free(d.eng);
}
END_TEST

/* Rate precision (sim_flow_net_set_rate_precision).  One resource of 100 B/s; at 0 s, 100
 * flows of 100 B (1 B/s each, a solve); at 1 s one more flow of 1 B.  Its load at its group's
 * rate is 101 B/s, 1 % over the capacity:
 *   EPS 0.02: within EPS, not solved: every flow keeps 1 B/s, the new one ends at 2 s, the
 *   others at 100 s (its end brings the load back to 100 B/s: not solved either), and the
 *   resource served 10001 B in 100 s: utilisation 1.0001, over 1 by less than EPS.  Solves:
 *   at 0 s, and once the load falls to 0 at 100 s.
 *   EPS 1e-3 (and exact): 101 flows at 100/101 B/s, the new one ends 1.01 s later (2.01 s),
 *   when the others have 99 - 1 = 98 B left, which they move at 1 B/s: 100.01 s. */
typedef struct {
  SimEngine *eng;
  int done;
  sim_time_ns first_ns, last_ns;
} prec_env;

static void prec_done(SimFlowNet *net, SimFlow *flow, void *ctx)
{
  (void)net;
  (void)flow;
  prec_env *p = ctx;
  if (p->done++ == 0) p->first_ns = sim_engine_now(p->eng);
  p->last_ns = sim_engine_now(p->eng);
}

static void run_precision(double eps, prec_env *p, uint64_t *solves, uint64_t *deferred, double *util)
{
  *p = (prec_env){ .eng = sim_engine_new() };
  SimFlowNet *net = sim_flow_net_new(p->eng);
  sim_flow_net_set_rate_precision(net, eps);
  ck_assert(sim_flow_net_rate_precision(net) == eps);
  SimFlowResource *r = sim_flow_net_add_resource(net, "r", 100);
  SimFlowUse u = { r, 1 };
  for (int i = 0; i < 100; i++) ck_assert(sim_flow_start(net, 100, &u, 1, SIM_FLOW_UNCAPPED, prec_done, p, NULL));
  sim_engine_run_until(p->eng, S(1));
  ck_assert(sim_flow_start(net, 1, &u, 1, SIM_FLOW_UNCAPPED, prec_done, p, NULL));
  sim_engine_run_until(p->eng, S(200));
  ck_assert_int_eq(p->done, 101);
  SimFlowStats st;
  sim_flow_resource_stats(net, r, &st);
  ck_assert_double_eq_tol(st.units, 10001, 1e-6);
  *util = st.busy_area_s / (sim_time_to_s(p->last_ns));
  *solves = sim_flow_net_n_recomputes(net);
  *deferred = sim_flow_net_n_deferred(net);
  sim_flow_net_free(net);
  sim_engine_free(p->eng);
}

START_TEST(test_rate_precision)
{
  prec_env p;
  uint64_t solves, deferred;
  double util;
  run_precision(0.02, &p, &solves, &deferred, &util);
  ck_assert_int_le(llabs(p.first_ns - S(2)), 1);
  ck_assert_int_le(llabs(p.last_ns - S(100)), 1);
  ck_assert_uint_eq(solves, 2);
  ck_assert_uint_ge(deferred, 2); /* the start and the end of the small flow */
  ck_assert_double_eq_tol(util, 1.0001, 1e-9);
  for (int k = 0; k < 2; k++) {
    run_precision(k ? 1e-3 : 0, &p, &solves, &deferred, &util);
    ck_assert_int_le(llabs(p.first_ns - S(2.01)), 1);
    ck_assert_int_le(llabs(p.last_ns - S(100.01)), 1);
    ck_assert_uint_eq(deferred, 0);
    ck_assert_uint_eq(solves, 4); /* at 0 s, 1 s, 2.01 s and 100.01 s */
    ck_assert_double_eq_tol(util, 1, 1e-9);
  }
}
END_TEST

/* The random networks of test_random_conservation_and_maxmin at rate precision 0.05 (caps,
 * cancels, zero-size flows, both solvers), without the probe (a rate query solves at once):
 * every flow ends, changes are deferred, each resource's units equal capacity x busy area,
 * nothing is lost (served >= the completed flows' w x bytes) and no resource is used past its
 * capacity by more than EPS on average. */
START_TEST(test_random_precision)
{
  const double eps = 0.05;
  rnet rn = { 0 };
  rn.all_capped = _i;
  rn.eng = sim_engine_new();
  rn.net = sim_flow_net_new(rn.eng);
  sim_flow_net_set_rate_precision(rn.net, eps);
  rn.rng = sim_rng_new(43, "flow-random-net");
  rn.f = g_new0(rflow, RN_FLOWS);
  for (int r = 0; r < RN_RES; r++) {
    char name[16];
    g_snprintf(name, sizeof name, "r%d", r);
    rn.res[r] = sim_flow_net_add_resource(rn.net, name, 100 + 900 * gsl_rng_uniform(rn.rng));
  }
  sim_event_init(&rn.arrive, rn_arrive, &rn);
  sim_engine_schedule(rn.eng, &rn.arrive, 0);
  sim_engine_run_until(rn.eng, SIM_TIME_NEVER - 1);
  ck_assert_int_eq(rn.started, RN_FLOWS);
  ck_assert_msg(rn.violations == 0, "%d violations, first: %s", rn.violations, rn.first);
  ck_assert_uint_eq(sim_flow_net_n_flows(rn.net), 0);
  ck_assert_uint_gt(sim_flow_net_n_deferred(rn.net), 100);
  double expect[RN_RES] = { 0 };
  for (int i = 0; i < RN_FLOWS; i++) {
    if (!rn.f[i].done) continue;
    for (int k = 0; k < rn.f[i].n; k++)
      for (int r = 0; r < RN_RES; r++)
        if (rn.f[i].u[k].res == rn.res[r]) expect[r] += rn.f[i].u[k].units_per_byte * rn.f[i].size;
  }
  rn_check_units_free(&rn, expect, 1 + eps);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("flow");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_two_links_three_flows);
  tcase_add_test(tc, test_flow_stats_off);
  tcase_add_test(tc, test_multi_resource_weights);
  tcase_add_test(tc, test_caps_and_equal_shares);
  tcase_add_test(tc, test_capacity_change);
  tcase_add_test(tc, test_zero_size_and_unbounded);
  tcase_add_test(tc, test_cancel);
  tcase_add_test(tc, test_stats_and_reset);
  tcase_add_loop_test(tc, test_random_conservation_and_maxmin, 0, 2);
  tcase_add_test(tc, test_conservation_exact);
  tcase_add_test(tc, test_mm1_processor_sharing);
  tcase_add_test(tc, test_grouping_by_content);
  tcase_add_test(tc, test_group_order_unequal_sizes);
  tcase_add_test(tc, test_paths);
  tcase_add_test(tc, test_bounded_resource_proof_invalidated);
  tcase_add_test(tc, test_rate_precision);
  tcase_add_loop_test(tc, test_random_precision, 0, 2);
  tcase_add_loop_test(tc, test_groups_match_per_flow_solver, 0, 6);
  suite_add_tcase(s, tc);
  return test_run_suite(s);
}
