/* tests/test_nic.c — the NIC component: its keys bind straight into NicCard, its resources per
 * card, and the inline engine's TLS session limit (nics[].tls_sessions): the bound names
 * nicN.tls_sessions exactly when the card's connections (throughput / mean bitrate) reach it;
 * the LACP split (demand.c): every port carries the same share of the flows, whatever its speed. */
#include <check.h>
#include "tests/support/check_run.h"
#include <math.h>
#include <string.h>

#include "models/appliance_bound.h"
#include "models/appliance_conf.h"

#define SCEN "scenarios/rome-400g-nic-ktls.yaml"

static Appliance *load(const char *const *sets)
{
  Appliance *a = g_new0(Appliance, 1);
  GError *e = NULL;
  ck_assert_msg(appliance_load_file(SCEN, sets, a, NULL, &e), "%s", e ? e->message : "");
  return a;
}

START_TEST(test_nic_keys_and_resources)
{
  g_autofree Appliance *a = load(NULL);
  /* 2 cards, 2x100GbE, 190 Gb/s engines, Gen4 x16 (the platform file) */
  ck_assert_int_eq(a->n_nics, 2);
  ck_assert_double_eq(a->nics[1].port_bps, 100e9);
  ck_assert_double_eq(a->nics[1].ktls_bps, 190e9);
  ck_assert_double_eq(a->nics[1].queue_bytes, 16.0 * 1024 * 1024);
  ck_assert_double_eq(a->nics[1].tls_sessions, 0); /* default: not modelled */
  ck_assert_int_eq(a->nics[1].link.gen, 4);
  ck_assert_int_eq(a->nics[1].group, 1);
  GError *e = NULL;
  g_autoptr(DemandModel) m = demand_build(a, &e);
  ck_assert(m != NULL);
  int port = m->port_res[3], tls = demand_find(m, "nic1.tls");
  ck_assert_str_eq(m->res[port].name, "nic1.port1");
  ck_assert_int_eq(m->res[port].kind, RK_NIC_PORT);
  /* capacity: 100 Gb/s x port_eff, in bytes/s */
  ck_assert_double_eq_tol(m->res[port].capacity, 100e9 * a->coef.port_eff / 8, 1e-3);
  ck_assert_double_eq_tol(m->res[tls].capacity, 190e9 / 8, 1e-3);
  ck_assert_int_eq(demand_find(m, "nic0.tls_sessions"), -1); /* no limit, no resource */
}
END_TEST

START_TEST(test_tls_session_limit)
{
  /* 20000 sessions per card: at saturation each card carries exactly 20000 connections, so the
   * box serves 2 x 20000 x mean bitrate, well below its port-bound 371.9 Gb/s */
  const char *sets[] = { "nics[0].tls_sessions=20000", "nics[1].tls_sessions=20000", NULL };
  g_autofree Appliance *a = load(sets);
  GError *e = NULL;
  g_autoptr(DemandModel) m = demand_build(a, &e);
  ck_assert_msg(m != NULL, "%s", e ? e->message : "");
  int s0 = demand_find(m, "nic0.tls_sessions"), s1 = demand_find(m, "nic1.tls_sessions");
  ck_assert(s0 >= 0 && s1 >= 0);
  ck_assert_int_eq(m->res[s0].kind, RK_NIC_TLS);
  ck_assert_str_eq(m->res[s0].unit, "sessions");
  ck_assert_double_eq(m->res[s0].capacity, 20000);
  int bn = -1;
  double x = demand_saturation_Bps(m, &bn);
  ck_assert(bn == s0 || bn == s1);
  double mean_bps = workload_mean_bitrate_mbps(&a->wl) * 1e6;
  /* connections on each card at X*: its NIC-kTLS bytes/s x 8 / mean bitrate = its capacity */
  ck_assert_double_eq_tol(x * m->total[bn], 20000, 1e-6);
  ck_assert_double_eq_tol(x * (m->total[s0] + m->total[s1]), 40000, 1e-6);
  ck_assert_double_eq_tol(x * 8 / mean_bps, 40000, 1e-6);
  g_autoptr(BoundResult) r = bound_eval(a, m, 0);
  ck_assert_double_eq_tol(r->connections, 40000, 1e-6);
  /* a limit above the connections the ports allow changes nothing but adds the resource */
  const char *loose[] = { "nics[0].tls_sessions=400000", "nics[1].tls_sessions=400000", NULL };
  g_autofree Appliance *b = load(loose);
  g_autoptr(DemandModel) mb = demand_build(b, &e);
  g_autofree Appliance *c = load(NULL);
  g_autoptr(DemandModel) mc = demand_build(c, &e);
  int bnb, bnc;
  ck_assert_double_eq(demand_saturation_Bps(mb, &bnb), demand_saturation_Bps(mc, &bnc));
  ck_assert_str_eq(mb->res[bnb].name, mc->res[bnc].name);
}
END_TEST

START_TEST(test_tls_session_errors)
{
  /* only an inline engine holds sessions: located at the key, exit-2 input errors */
  Appliance *a = g_new0(Appliance, 1);
  GError *e = NULL;
  const char *no_engine[] = { "nics[1].tls_sessions=1000", "nics[1].ktls=0 Gb/s", "software.data_path=sendfile_sw_ktls", NULL };
  ck_assert(!appliance_load_file(SCEN, no_engine, a, NULL, &e));
  ck_assert(g_error_matches(e, SIM_CONF_ERROR, SIM_CONF_ERROR_RANGE));
  ck_assert_msg(strstr(e->message, "nics[1].tls_sessions: a TLS session limit needs an inline kTLS engine"), "%s", e->message);
  g_clear_error(&e);
  const char *frac[] = { "nics[0].tls_sessions=10.5", NULL };
  ck_assert(!appliance_load_file(SCEN, frac, a, NULL, &e));
  ck_assert_msg(strstr(e->message, "nics[0].tls_sessions"), "%s", e->message);
  g_clear_error(&e);
  const char *neg[] = { "nics[0].tls_sessions=-1", NULL };
  ck_assert(!appliance_load_file(SCEN, neg, a, NULL, &e));
  ck_assert(g_error_matches(e, SIM_CONF_ERROR, SIM_CONF_ERROR_RANGE));
  g_clear_error(&e);
  g_free(a);
}
END_TEST

/* X* and the share of served bytes each port carries (its classes' weights by egress port). */
static double port_shares(const char *file, const char *const *sets, double *share, int n)
{
  Appliance *a = g_new0(Appliance, 1);
  GError *e = NULL;
  ck_assert_msg(appliance_load_file(file, sets, a, NULL, &e), "%s", e ? e->message : "");
  g_autoptr(DemandModel) m = demand_build(a, &e);
  ck_assert_msg(m != NULL, "%s", e ? e->message : "");
  ck_assert_int_eq(m->n_ports, n);
  for (int p = 0; p < n; p++) share[p] = 0;
  for (int k = 0; k < m->n_class; k++) share[m->cls[k].egress] += m->cls[k].weight;
  g_free(a);
  return m->sat_Bps;
}

/* LACP hashes flows, so bytes, evenly over the ports of one speed: a faster card draws no more
 * flows. Before, the split followed line rate: raising nics[0] of the Altra box to 125 Gb/s sent
 * its inline-TLS engine more than it could encrypt (371.4 -> 342.0 Gb/s). */
START_TEST(test_lacp_split_even)
{
  double base_share[4], share[4];
  double x = port_shares("scenarios/altra-q80-30-ext-tags.yaml", NULL, base_share, 4);
  const char *faster[] = { "nics[0].port_speed=125 Gb/s", NULL };
  double x_fast = port_shares("scenarios/altra-q80-30-ext-tags.yaml", faster, share, 4);
  ck_assert_msg(x_fast >= x * (1 - 1e-9), "a faster nics[0] lowered X*: %.4f -> %.4f Gb/s", x * 8e-9, x_fast * 8e-9);
  for (int p = 0; p < 4; p++) {
    ck_assert_double_eq_tol(base_share[p], 0.25, 1e-12);
    ck_assert_double_eq_tol(share[p], 0.25, 1e-12);
  }
  /* a slower group holds the box to 4 x its port: the Rome box is port bound at 4 x 100 Gb/s x
   * port_eff / wire overhead, so nics[1] at 25 Gb/s gives exactly a quarter of it (at 93 Gb/s
   * nothing else binds); the line-rate split gave about 232 Gb/s, the faster ports carrying
   * 40 % each */
  double rome = port_shares(SCEN, NULL, share, 4);
  const char *slow[] = { "nics[1].port_speed=25 Gb/s", NULL };
  double rome_slow = port_shares(SCEN, slow, share, 4);
  ck_assert_double_eq_tol(rome_slow, rome * 0.25, 1e-9 * rome);
  ck_assert_double_eq_tol(share[0], 0.25, 1e-12);
  ck_assert_double_eq_tol(share[3], 0.25, 1e-12);
}
END_TEST

static Suite *suite(void)
{
  Suite *s = suite_create("nic");
  TCase *t = tcase_create("nic");
  tcase_set_timeout(t, 60);
  tcase_add_test(t, test_nic_keys_and_resources);
  tcase_add_test(t, test_tls_session_limit);
  tcase_add_test(t, test_tls_session_errors);
  tcase_add_test(t, test_lacp_split_even);
  suite_add_tcase(s, t);
  return s;
}

int main(void)
{
  return test_run_suite(suite());
}
