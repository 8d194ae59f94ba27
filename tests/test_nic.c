/* tests/test_nic.c — the NIC component: its keys bind straight into NicCard, its resources per
 * card, and the inline engine's TLS context cache (nics[].tls_context_cache): connections beyond
 * it cost context fetches (DRAM bytes, link bytes and tag occupancy derived by hand), and more
 * connections never raise X; the LACP split (demand.c): every port carries the same share of the
 * flows, whatever its speed. */
#include <check.h>
#include "tests/support/check_run.h"
#include <math.h>
#include <string.h>

#include "models/modes/bound.h"
#include "models/appliance/loader.h"
#include "models/appliance/component.h"

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
  ck_assert_double_eq(a->nics[1].tls_cache, 65536); /* default: 64 Ki contexts (assumed) */
  ck_assert_double_eq(a->nics[1].tls_ctx_bytes, 128);
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
  /* 6.3 Mb/s mean at the 400 Gb/s line rate: 31 746 connections per card, inside the cache */
  ck_assert_double_eq_tol(nic_tls_context_connections(a, 0, 400e9 / 8), 400e9 / 6.3e6 / 2, 1e-6);
  ck_assert_double_eq(nic_tls_context_miss(a, 0, 400e9 / 8), 0.0);
}
END_TEST

/* Sum over resources of kind `kind` whose name starts with `prefix` of the idle-latency total. */
static double base_sum(const DemandModel *m, ResKind kind, const char *prefix)
{
  double s = 0;
  for (int r = 0; r < m->n_res; r++)
    if (m->res[r].kind == kind && g_str_has_prefix(m->res[r].name, prefix)) s += m->base_total[r];
  return s;
}

START_TEST(test_tls_context_cache_by_hand)
{
  /* every client at 1 Mb/s and 100 Gb/s offered: 100 000 connections, 50 000 on each of the two
   * equal cards; a cache of 20 000 contexts misses 1 - 20000/50000 = 0.6 of the bursts. Per served
   * byte that adds 0.6 x 128 B / 64 KiB of DRAM read and of the cards' links, and 0.6 x ceil(128 /
   * 512) read requests per 64 KiB burst, each holding a tag for read_rtt + the local DRAM latency */
  const char *common[] = { "workload.offered=100 Gb/s", "workload.bitrates[0].rate=1 Mb/s", "workload.bitrates[1].rate=1 Mb/s",
                           "workload.bitrates[2].rate=1 Mb/s" };
  const char *small[] = {
    common[0], common[1], common[2], common[3], "nics[0].tls_context_cache=20000", "nics[1].tls_context_cache=20000", NULL
  };
  const char *huge[] = {
    common[0], common[1], common[2], common[3], "nics[0].tls_context_cache=1000000", "nics[1].tls_context_cache=1000000", NULL
  };
  g_autofree Appliance *a = load(small);
  g_autofree Appliance *b = load(huge);
  double x = 100e9 / 8; /* B/s served: the offered load */
  ck_assert_double_eq(a->nics[0].tls_cache, 20000);
  ck_assert_double_eq(a->nics[1].tls_cache, 20000);
  ck_assert_double_eq(a->nics[1].tls_ctx_bytes, 128);
  ck_assert_double_eq_tol(nic_tls_context_connections(a, 1, x), 50000, 1e-6);
  ck_assert_double_eq_tol(nic_tls_context_miss(a, 0, x), 0.6, 1e-12);
  ck_assert_double_eq(nic_tls_context_miss(b, 0, x), 0.0);
  GError *e = NULL;
  g_autoptr(DemandModel) ma = demand_build(a, &e);
  g_autoptr(DemandModel) mb = demand_build(b, &e);
  ck_assert(ma && mb);
  ck_assert_double_eq_tol(ma->sized_Bps, x, 1e-9 * x); /* the box serves all it is offered */
  double burst = 65536, miss = 0.6;
  double dram = base_sum(ma, RK_DRAM, "dram.") - base_sum(mb, RK_DRAM, "dram.");
  ck_assert_double_eq_tol(dram, miss * 128 / burst, 1e-12); /* 1.17e-3 B per served byte */
  double link = base_sum(ma, RK_PCIE, "pcie.nic0") - base_sum(mb, RK_PCIE, "pcie.nic0") + base_sum(ma, RK_PCIE, "pcie.nic1") -
                base_sum(mb, RK_PCIE, "pcie.nic1");
  double lat = a->nics[0].link.read_rtt_ns + mem_latency_ns(&a->mem, &a->topo, 0, 0);
  double tags = miss * 1.0 * lat * 1e-9 / burst; /* tag-seconds per served byte */
  /* the pcie.nicN prefix holds the links (bytes) and their tag spaces (tag-seconds) */
  ck_assert_double_eq_tol(link, miss * 128 / burst + tags, 1e-15);
  double tag_a = 0, tag_b = 0;
  for (int r = 0; r < ma->n_res; r++)
    if (g_str_has_suffix(ma->res[r].name, ".tags")) tag_a += ma->base_total[r];
  for (int r = 0; r < mb->n_res; r++)
    if (g_str_has_suffix(mb->res[r].name, ".tags")) tag_b += mb->base_total[r];
  ck_assert_double_eq_tol(tag_a - tag_b, tags, 1e-18);
  /* the touch the bound charges is the one explain lists */
  Touch t[DP_MAX_TOUCHES];
  int n = demand_path_touches(a, a->path, TRUE, x, t);
  ck_assert_str_eq(t[n - 1].what, "NIC context fetch");
  ck_assert_double_eq_tol(t[n - 1].bytes, miss * 128 / burst, 1e-15);
  ck_assert_int_eq(demand_path_touches(b, b->path, TRUE, x, t), n - 1);
  /* no engine on the path (software kTLS): no fetch, whatever the cache */
  const char *sw[] = { small[0], small[1], small[2], small[3], small[4], small[5], "software.data_path=sendfile_sw_ktls", NULL };
  g_autofree Appliance *c = load(sw);
  ck_assert_int_eq(demand_path_touches(c, c->path, TRUE, x, t), demand_path_touches(c, c->path, FALSE, x, t) + 3);
  for (int i = 0; i < demand_path_touches(c, c->path, TRUE, x, t); i++) ck_assert_str_ne(t[i].what, "NIC context fetch");
}
END_TEST

START_TEST(test_tls_context_more_connections_never_raise_x)
{
  /* metamorphic: lower bitrates (more connections for the same bytes) never raise X*; with 5-bit
   * tags, 128 B reads and no TSO the fetches bind on the tags and X* falls strictly */
  const double rates_mbps[] = { 20, 8, 4, 2, 1, 0.5, 0.25, 0.1 };
  for (int tight = 0; tight < 2; tight++) {
    double prev = INFINITY, first = 0;
    for (size_t i = 0; i < G_N_ELEMENTS(rates_mbps); i++) {
      g_autofree char *r0 = g_strdup_printf("workload.bitrates[0].rate=%g Mb/s", rates_mbps[i]);
      g_autofree char *r1 = g_strdup_printf("workload.bitrates[1].rate=%g Mb/s", rates_mbps[i]);
      g_autofree char *r2 = g_strdup_printf("workload.bitrates[2].rate=%g Mb/s", rates_mbps[i]);
      const char *loose[] = { r0, r1, r2, "nics[0].tls_context_cache=4096", "nics[1].tls_context_cache=4096", NULL };
      const char *tight_sets[] = { r0,
                                   r1,
                                   r2,
                                   "nics[0].tls_context_cache=4096",
                                   "nics[1].tls_context_cache=4096",
                                   "nics[0].pcie.tag_bits=5",
                                   "nics[1].pcie.tag_bits=5",
                                   "nics[0].pcie.mrrs=128 B",
                                   "nics[1].pcie.mrrs=128 B",
                                   "stack.tso=false",
                                   NULL };
      const char *const *sets = tight ? tight_sets : loose;
      g_autofree Appliance *a = load(sets);
      GError *e = NULL;
      g_autoptr(DemandModel) m = demand_build(a, &e);
      ck_assert_msg(m != NULL, "%s", e ? e->message : "");
      double x = demand_saturation_Bps(m, NULL);
      ck_assert_msg(x <= prev * (1 + 1e-12), "X rose from %g to %g at %g Mb/s", prev, x, rates_mbps[i]);
      if (i == 0) first = x;
      prev = x;
    }
    /* tag-bound there: 4096 contexts miss 0.59 of the bursts at 20 Mb/s, 0.998 at 100 kb/s, per
     * 1448 B burst against 1/128 payload requests per byte: about 3 % more tag time */
    if (tight) ck_assert_msg(prev < 0.98 * first, "tag-bound box: X %g at 100 kb/s vs %g at 20 Mb/s", prev, first);
  }
}
END_TEST

START_TEST(test_tls_context_errors)
{
  /* the cache is a whole, non-negative count; the context at least a key's 16 B: located */
  Appliance *a = g_new0(Appliance, 1);
  GError *e = NULL;
  const char *frac[] = { "nics[0].tls_context_cache=10.5", NULL };
  ck_assert(!appliance_load_file(SCEN, frac, a, NULL, &e));
  ck_assert_msg(strstr(e->message, "nics[0].tls_context_cache"), "%s", e->message);
  g_clear_error(&e);
  const char *neg[] = { "nics[0].tls_context_cache=-1", NULL };
  ck_assert(!appliance_load_file(SCEN, neg, a, NULL, &e));
  ck_assert(g_error_matches(e, SIM_CONF_ERROR, SIM_CONF_ERROR_RANGE));
  g_clear_error(&e);
  const char *tiny[] = { "nics[1].tls_context_bytes=8 B", NULL };
  ck_assert(!appliance_load_file(SCEN, tiny, a, NULL, &e));
  ck_assert_msg(strstr(e->message, "nics[1].tls_context_bytes"), "%s", e->message);
  g_clear_error(&e);
  const char *old[] = { "nics[0].tls_sessions=1000", NULL }; /* the hard limit it replaces is gone */
  ck_assert(!appliance_load_file(SCEN, old, a, NULL, &e));
  ck_assert_msg(strstr(e->message, "tls_sessions"), "%s", e->message);
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
  tcase_add_test(t, test_tls_context_cache_by_hand);
  tcase_add_test(t, test_tls_context_more_connections_never_raise_x);
  tcase_add_test(t, test_tls_context_errors);
  tcase_add_test(t, test_lacp_split_even);
  suite_add_tcase(s, t);
  return s;
}

int main(void)
{
  return test_run_suite(suite());
}
