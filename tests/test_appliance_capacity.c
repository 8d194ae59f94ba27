/* tests/test_appliance_capacity.c — `ocasim capacity`: the drop criterion's closed form, the
 * CPU criterion at the cap, and the limiting criterion of the strict disk-centric 800G box. */
#include <check.h>
#include "tests/support/check_run.h"
#include "tests/support/ocasim_run.h"
#include <math.h>
#include <string.h>

#include "models/appliance_capacity.h"
#include "models/appliance_conf.h"
#include "models/qnet.h"
#include <json-glib/json-glib.h>

static Appliance *load(const char *file, const char *const *sets)
{
  Appliance *a = g_new0(Appliance, 1);
  GError *e = NULL;
  ck_assert_msg(appliance_load_file(file, sets, a, NULL, &e), "%s: %s", file, e ? e->message : "");
  return a;
}

START_TEST(test_drop_criterion_closed_form)
{
  /* the drop criterion stops where the hot ports' output queues drop drop_max of the load they
   * carry: P_K(rho) = 0.2 % with rho = L D / C below line rate, K = 1024 descriptors / 17 per
   * 64 KiB burst = 60 bursts (nic.h); P_K rises to 1/61 = 1.6 % at line rate, so this rho lies
   * well below 1: the ring binds below saturation */
  const char *sets[] = { "workload.latency_slo=10 s", "workload.drop_max=0.2 %", NULL };
  Appliance *a = load("scenarios/reference/milan2022_strict_disk_silo.yaml", sets);
  g_autoptr(DemandModel) m = demand_build(a, NULL);
  int b;
  double xsat = demand_saturation_Bps(m, &b) * 8e-9;
  ck_assert_int_eq(m->res[b].kind, RK_NIC_PORT);
  CapacityResult c;
  GError *e = NULL;
  ck_assert(appliance_capacity(a, m, &c, &e));
  ck_assert_int_eq(c.limiting, CAP_DROPS);
  ck_assert_double_eq_tol(c.capacity_gbps, c.limit_gbps[CAP_DROPS], 1e-9);
  double rho = c.limit_gbps[CAP_DROPS] / xsat;
  ck_assert_msg(rho > 0.90 && rho < 0.99, "rho %g", rho);
  ck_assert_double_eq_tol(nic_port_drop_fraction(rho, m->res[b].queue_bursts), 0.002, 1e-6);
  ck_assert_double_eq_tol(c.limit_gbps[CAP_SATURATION], xsat, 1e-3);
  g_free(a);
  /* a drop_max above 1/(K+1) (1.6 %) is never reached: the ports' saturation limits instead */
  const char *sets1[] = { "workload.latency_slo=10 s", "workload.drop_max=2 %", NULL };
  a = load("scenarios/reference/milan2022_strict_disk_silo.yaml", sets1);
  g_autoptr(DemandModel) m1 = demand_build(a, NULL);
  ck_assert(appliance_capacity(a, m1, &c, &e));
  ck_assert(isinf(c.limit_gbps[CAP_DROPS]));
  ck_assert_int_eq(c.limiting, CAP_SATURATION);
  ck_assert_double_eq_tol(c.capacity_gbps, xsat, 1e-3);
  g_free(a);
  /* drop_max 0 is refused: a finite queue drops a little at any load */
  const char *sets0[] = { "workload.drop_max=0 %", NULL };
  a = g_new0(Appliance, 1);
  ck_assert(!appliance_load_file("scenarios/reference/milan2022_strict_disk_silo.yaml", sets0, a, NULL, &e));
  ck_assert_msg(strstr(e->message, "workload.drop_max") && strstr(e->message, "> 0"), "%s", e->message);
  g_clear_error(&e);
  g_free(a);
}
END_TEST

START_TEST(test_port_drop_mm1k)
{
  /* nic_port_drop_fraction is the M/M/1/K blocking probability, worked by hand:
   * K = 5, rho = 0.9: 0.1 * 0.9^5 / (1 - 0.9^6) = 0.126023; rho = 1.5: (1/3) / (1 - (2/3)^6) = 0.365414;
   * rho = 1: 1/6; and it tends to 1 - 1/rho for a long queue */
  ck_assert_double_eq_tol(nic_port_drop_fraction(0.9, 5), 0.126023, 1e-6);
  ck_assert_double_eq_tol(nic_port_drop_fraction(1.5, 5), 0.365414, 1e-6);
  ck_assert_double_eq_tol(nic_port_drop_fraction(1.0, 5), 1.0 / 6, 1e-12);
  ck_assert_double_eq_tol(nic_port_drop_fraction(1.0 - 1e-9, 5), 1.0 / 6, 1e-8);
  ck_assert_double_eq_tol(nic_port_drop_fraction(1.0 + 1e-9, 5), 1.0 / 6, 1e-8);
  ck_assert_double_eq_tol(nic_port_drop_fraction(1.25, 1e4), 0.2, 1e-12);
  ck_assert(nic_port_drop_fraction(0.5, 256) < 1e-70);
  ck_assert(nic_port_drop_fraction(0.0, 256) == 0.0);
  double prev = 0;
  for (double rho = 0.8; rho < 1.2; rho += 0.001) {
    double p = nic_port_drop_fraction(rho, 256);
    ck_assert_msg(p >= prev, "not increasing at rho %g", rho);
    prev = p;
  }
  /* and the engine agrees: an M/M/1/5 station at rho 0.9 and 1.5 drops that share of arrivals */
  const double rhos[] = { 0.9, 1.5 };
  for (int i = 0; i < 2; i++) {
    g_autoptr(QnetSpec) spec = qnet_spec_new();
    g_free(spec->name);
    spec->name = g_strdup("mm1k");
    spec->seed = 11;
    spec->duration_ns = sim_time_from_s(2e5);
    spec->warmup_ns = sim_time_from_s(2e3);
    SimDist ia = { SIM_DIST_EXPONENTIAL, 1e9 / rhos[i], 0 }, sv = { SIM_DIST_EXPONENTIAL, 1e9, 0 };
    QnetSource *src = qnet_spec_add_source(spec, "in", &ia);
    qnet_route_add(src->routes, "port", 1);
    qnet_spec_add_station(spec, "port", SIM_STATION_FCFS, 1, 5, &sv);
    GError *err = NULL;
    ck_assert_msg(qnet_spec_resolve(spec, &err), "%s", err ? err->message : "");
    g_autoptr(QnetResult) r = qnet_run(spec, NULL);
    ck_assert_ptr_nonnull(r);
    double sim = r->stations[0].drop_rate_per_s / rhos[i];
    double th = nic_port_drop_fraction(rhos[i], 5);
    ck_assert_msg(fabs(sim / th - 1) < 0.03, "rho %g: simulated %g vs M/M/1/K %g", rhos[i], sim, th);
  }
}
END_TEST

START_TEST(test_cpu_criterion)
{
  /* user-space TLS on Rome is CPU-bound: the CPU criterion gives the bound's saturation point */
  const char *sets[] = { "workload.latency_slo=10 s", NULL };
  Appliance *a = load("scenarios/reference/rome2022_userspace_tls.yaml", sets);
  g_autoptr(DemandModel) m = demand_build(a, NULL);
  int b;
  double xsat = demand_saturation_Bps(m, &b) * 8e-9;
  ck_assert_int_eq(m->res[b].kind, RK_CPU);
  CapacityResult c;
  GError *e = NULL;
  ck_assert(appliance_capacity(a, m, &c, &e));
  ck_assert_int_eq(c.limiting, CAP_CPU);
  ck_assert_double_eq_tol(c.capacity_gbps, xsat, 1e-3);
  g_autoptr(BoundResult) r = bound_eval(a, m, c.capacity_gbps);
  ck_assert(r->cpu_util_max_node <= a->cpu.cap + 1e-6);
  g_free(a);
}
END_TEST

START_TEST(test_cpu_limit_beyond_twice_saturation)
{
  /* the CPU's limit does not depend on the drives (same cycles per byte at the same load): the
   * Rome box with 10 drives instead of 18 saturates its drives near 230 Gb/s, under half its CPU
   * limit (about 560 Gb/s); the limit was reported "never reached" there (the bracket ended at 2x
   * saturation) and as a number on the full box */
  Appliance *full = load("scenarios/rome-400g-nic-ktls.yaml", NULL);
  const char *sets[] = { "nvme[1].count=2", "nvme[3].count=2", NULL };
  Appliance *few = load("scenarios/rome-400g-nic-ktls.yaml", sets);
  g_autoptr(DemandModel) mf = demand_build(full, NULL);
  g_autoptr(DemandModel) mw = demand_build(few, NULL);
  int b;
  double xsat = demand_saturation_Bps(mw, &b) * 8e-9;
  ck_assert_int_eq(mw->res[b].kind, RK_NVME);
  CapacityResult cf, cw;
  GError *e = NULL;
  ck_assert(appliance_capacity(full, mf, &cf, &e));
  ck_assert(appliance_capacity(few, mw, &cw, &e));
  ck_assert(isfinite(cf.limit_gbps[CAP_CPU]));
  ck_assert_msg(cw.limit_gbps[CAP_CPU] > 2 * xsat, "cpu %g, saturation %g", cw.limit_gbps[CAP_CPU], xsat);
  ck_assert_double_eq_tol(cw.limit_gbps[CAP_CPU], cf.limit_gbps[CAP_CPU], 1e-4 * cf.limit_gbps[CAP_CPU]);
  ck_assert_double_eq_tol(cw.limit_gbps[CAP_SATURATION], xsat, 1e-3);
  ck_assert(cw.capacity_gbps <= xsat + 1e-3); /* the capacity itself is not moved */
  /* at its limit the busiest node's offered CPU demand is at the cap */
  g_autoptr(BoundResult) r = bound_eval(few, mw, cw.limit_gbps[CAP_CPU]);
  double u = 0;
  for (int i = 0; i < mw->n_res; i++)
    if (mw->res[i].kind == RK_CPU) u = MAX(u, r->offered_util[i]);
  ck_assert_double_eq_tol(u, few->cpu.cap, 1e-5);
  g_free(full);
  g_free(few);
}
END_TEST

START_TEST(test_cli_capacity_table_wording)
{
  /* rome-400g-nic-ktls: drops limit at 346.3 Gb/s, saturation 371.5, CPU 557.9: the table must
   * not call the DES latency "never reached" (the DES checks it at 346.3 only) and must mark the
   * CPU limit above saturation as headroom */
  const char *args[] = { "capacity", "-q", "scenarios/rome-400g-nic-ktls.yaml", NULL };
  char *out, *err;
  ck_assert_int_eq(test_run_ocasim(args, &out, &err), 0);
  ck_assert_msg(strstr(out, "  latency     not reached up to 346.3 Gb/s, not checked above ("), "%s", out);
  ck_assert_msg(strstr(out, "  cpu            557.9 Gb/s     (busiest node's CPU demand reaches its 80 % cap; above saturation"),
                "%s", out);
  ck_assert_msg(strstr(out, "  saturation     371.5 Gb/s"), "%s", out);
  g_free(out);
  g_free(err);
}
END_TEST

START_TEST(test_latency_slo)
{
  /* a tight SLO binds before any resource saturates (the drops at 346.3 Gb/s), and p99 at the
   * capacity equals the SLO */
  const char *sets[] = { "workload.latency_slo=8 ms", NULL };
  Appliance *a = load("scenarios/rome-400g-nic-ktls.yaml", sets);
  g_autoptr(DemandModel) m = demand_build(a, NULL);
  CapacityResult c;
  GError *e = NULL;
  ck_assert(appliance_capacity(a, m, &c, &e));
  ck_assert_int_eq(c.limiting, CAP_LATENCY);
  g_autoptr(BoundResult) r = bound_eval(a, m, c.capacity_gbps);
  ck_assert_double_eq_tol(r->lat_p99_ms, 8.0, 1e-3);
  ck_assert(c.capacity_gbps < demand_saturation_Bps(m, NULL) * 8e-9);
  /* the bound's limit (capacity_latency: bound) is the DES's (what `ocasim capacity` takes)
   * within 10 %: the DES brackets its limit to 1/128 of the other criteria's (2.7 Gb/s) and
   * counts p99 plus its 95 % half-width, so it sits a little lower (measured 312.4 vs 286.7) */
  AppScenarioInfo info = { 0 };
  Appliance *d = g_new0(Appliance, 1);
  ck_assert(appliance_load_file("scenarios/rome-400g-nic-ktls.yaml", sets, d, &info, &e));
  g_autoptr(DemandModel) md = demand_build(d, NULL);
  CapacityResult cd;
  ck_assert_msg(appliance_capacity_des(d, &info, md, NULL, &cd, &e), "%s", e ? e->message : "");
  ck_assert_int_eq(cd.limiting, CAP_LATENCY);
  ck_assert_double_eq_tol(cd.latency_bound_gbps, c.capacity_gbps, 1e-9);
  ck_assert_msg(fabs(c.capacity_gbps / cd.capacity_gbps - 1) <= 0.10, "bound %.1f Gb/s, run %.1f Gb/s", c.capacity_gbps,
                cd.capacity_gbps);
  app_scenario_info_clear(&info);
  g_free(d);
  /* an SLO below the idle latency: no healthy load at all */
  const char *tight[] = { "workload.latency_slo=1 ms", NULL };
  Appliance *b = load("scenarios/rome-400g-nic-ktls.yaml", tight);
  g_autoptr(DemandModel) mb = demand_build(b, NULL);
  ck_assert(appliance_capacity(b, mb, &c, &e));
  ck_assert_int_eq(c.limiting, CAP_LATENCY);
  ck_assert_double_eq(c.capacity_gbps, 0.0);
  g_free(b);
  g_free(a);
}
END_TEST

START_TEST(test_cli_capacity_json)
{
  const char *bin = g_getenv("OCASIM_BIN");
  if (!bin) return;
  g_autofree char *out = NULL;
  int st = -1;
  const char *argv[] = { bin, "capacity", "--format", "json", "scenarios/reference/milan2022_strict_disk_silo.yaml", NULL };
  ck_assert(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL, &st, NULL));
  ck_assert_int_eq(st, 0);
  g_autoptr(JsonParser) p = json_parser_new();
  GError *e = NULL;
  ck_assert_msg(json_parser_load_from_data(p, out, -1, &e), "%s", e ? e->message : "");
  JsonObject *o = json_node_get_object(json_parser_get_root(p));
  double cap = json_object_get_double_member(o, "capacity_gbps");
  ck_assert(cap > 600 && cap < 800);
  ck_assert(json_object_has_member(o, "limiting_criterion"));
  JsonObject *at = json_object_get_object_member(o, "at_capacity");
  ck_assert_double_eq_tol(json_object_get_double_member(at, "throughput_gbps"), cap, 1e-6);
}
END_TEST

static Suite *suite(void)
{
  Suite *s = suite_create("appliance_capacity");
  TCase *t = tcase_create("capacity");
  tcase_set_timeout(t, 60);
  tcase_add_test(t, test_drop_criterion_closed_form);
  tcase_add_test(t, test_port_drop_mm1k);
  tcase_add_test(t, test_cpu_criterion);
  tcase_add_test(t, test_latency_slo);
  tcase_add_test(t, test_cpu_limit_beyond_twice_saturation);
  tcase_add_test(t, test_cli_capacity_json);
  tcase_add_test(t, test_cli_capacity_table_wording);
  suite_add_tcase(s, t);
  return s;
}

int main(void)
{
  return test_run_suite(suite());
}
