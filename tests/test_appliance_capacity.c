/* tests/test_appliance_capacity.c — `ocasim capacity`: the drop criterion's closed form, the
 * CPU criterion at the cap, the limiting criterion of the strict disk-centric 800G box, and the
 * headroom criterion (workload.headroom): hand-derived on the Rome software-kTLS box, monotone,
 * 100 % the same as none. */
#include <check.h>
#include "tests/support/check_run.h"
#include "tests/support/ocasim_run.h"
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "models/modes/capacity.h"
#include "models/appliance/loader.h"
#include "models/modes/des.h"
#include "models/qnet/qnet.h"
#include "models/appliance/ram.h"
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
  ck_assert(capacity_search(a, m, &c, &e));
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
  ck_assert(capacity_search(a, m1, &c, &e));
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
  ck_assert(capacity_search(a, m, &c, &e));
  ck_assert_int_eq(c.limiting, CAP_CPU);
  ck_assert_double_eq_tol(c.capacity_gbps, xsat, 1e-3);
  g_autoptr(BoundResult) r = bound_eval(a, m, c.capacity_gbps);
  ck_assert(r->cpu_util_max_node <= a->cpu.cap + 1e-6);
  g_free(a);
}
END_TEST

/* The capacity sizes the load-dependent demand (the auto-sized page cache) at each candidate
 * load, not at the scenario's offered load: the page-cache box gives the same criteria whether
 * its scenario saturates or offers 100 Gb/s, and the report at the capacity holds the cache
 * pagecache_size_bytes gives at that load, within memory.installed. Before, the cache was sized
 * at the scenario's load: 243.9 GiB (saturate, sized at 371.5 Gb/s) or 246.9 GiB (100 Gb/s,
 * with a RAM warning: 258.7 of 256 GiB) at a capacity of 346.3 Gb/s. */
START_TEST(test_capacity_sized_at_its_load)
{
  const char *sat[] = { NULL }, *low[] = { "workload.offered=100 Gb/s", NULL };
  const char *const *sets[] = { sat, low };
  CapacityResult c[2];
  double cache[2];
  for (int i = 0; i < 2; i++) {
    Appliance *a = load("scenarios/rome-400g-page-cache.yaml", sets[i]);
    ck_assert(demand_sizing_varies(a));
    g_autoptr(DemandModel) m = demand_build(a, NULL);
    GError *e = NULL;
    ck_assert_msg(capacity_search(a, m, &c[i], &e), "%s", e ? e->message : "");
    ck_assert(c[i].capacity_gbps > 300 && c[i].capacity_gbps < 371);
    g_autoptr(AppReport) rep = capacity_report(a, NULL, m, &c[i], &e);
    ck_assert_msg(rep != NULL, "%s", e ? e->message : "");
    cache[i] = rep->ram.cache_bytes;
    ck_assert_double_eq_tol(cache[i], pagecache_size_bytes(a, c[i].capacity_gbps * 1e9 / 8), 1e-6 * cache[i]);
    ck_assert_msg(!rep->ram.over && rep->ram.needed_bytes <= rep->ram.installed_bytes, "needs %g of %g", rep->ram.needed_bytes,
                  rep->ram.installed_bytes);
    ck_assert_double_eq_tol(rep->connections, workload_connections(&a->wl, c[i].capacity_gbps * 1e9 / 8),
                            1e-6 * rep->connections);
    g_free(a);
  }
  for (int k = 0; k < CAP_COUNT; k++)
    ck_assert_msg(c[0].limit_gbps[k] == c[1].limit_gbps[k] || fabs(c[0].limit_gbps[k] / c[1].limit_gbps[k] - 1) < 1e-9,
                  "%s: %.9g vs %.9g", capacity_criterion_name((CapCriterion)k), c[0].limit_gbps[k], c[1].limit_gbps[k]);
  ck_assert_double_eq_tol(cache[0], cache[1], 1e-6 * cache[0]);
}
END_TEST

static CapacityResult capacity_of(const char *file, const char *const *sets);

/* The RAM the box needs (ram.h) at offered @L Gb/s; *@installed gets memory.installed. */
static double ram_need_at(const char *file, const char *const *sets, double L, double *installed)
{
  Appliance *a = load(file, sets);
  a->wl.offered_gbps = L;
  g_autoptr(DemandModel) m = demand_build(a, NULL);
  g_autoptr(BoundResult) r = bound_eval(a, m, L);
  RamReport o;
  ram_report_fill(&o, a, m, r->throughput_Bps, r->connections);
  *installed = o.installed_bytes;
  g_free(a);
  return o.needed_bytes;
}

/* The RAM criterion: with a fixed page cache of 245 GiB the Rome box's 256 GiB leave 3 GiB over
 * the cache and the 8 GiB reserve for socket buffers, TLS state and reads in flight, all
 * proportional to the served load (a fixed cache: a fixed hit ratio), so the limit is where the
 * line through the needs at 100 and 200 Gb/s reaches 256 GiB (about 274.5 Gb/s, below the
 * ports' 346.3 Gb/s drop limit): it limits the capacity. An auto-sized cache gives way to the
 * other needs (never reached); a 250 GiB cache leaves no load (250 + 8 > 256); a box without
 * memory.installed has no RAM criterion. */
START_TEST(test_ram_criterion)
{
  const char *file = "scenarios/rome-400g-page-cache.yaml";
  const char *fixed[] = { "ram.page_cache=245 GiB", NULL };
  double inst, n1 = ram_need_at(file, fixed, 100, &inst), n2 = ram_need_at(file, fixed, 200, &inst);
  double hand = 100 + (inst - n1) * 100 / (n2 - n1);
  ck_assert(hand > 250 && hand < 300);
  CapacityResult c = capacity_of(file, fixed);
  ck_assert(c.ram_on);
  ck_assert_int_eq(c.limiting, CAP_RAM);
  ck_assert_msg(fabs(c.limit_gbps[CAP_RAM] / hand - 1) < 1e-5, "ram limit %.6g, by hand %.6g", c.limit_gbps[CAP_RAM], hand);
  ck_assert_double_eq(c.capacity_gbps, c.limit_gbps[CAP_RAM]);
  ck_assert(c.limit_gbps[CAP_DROPS] > 340);
  /* the need at the limit is memory.installed */
  double at = ram_need_at(file, fixed, c.limit_gbps[CAP_RAM], &inst);
  ck_assert_msg(fabs(at / inst - 1) < 1e-6, "needs %.9g of %.9g", at, inst);

  CapacityResult a = capacity_of(file, NULL);
  ck_assert(a.ram_on && isinf(a.limit_gbps[CAP_RAM]));
  ck_assert_int_eq(a.limiting, CAP_DROPS);

  const char *big[] = { "ram.page_cache=250 GiB", NULL };
  CapacityResult b = capacity_of(file, big);
  ck_assert_int_eq(b.limiting, CAP_RAM);
  ck_assert(b.capacity_gbps == 0 && b.limit_gbps[CAP_RAM] == 0);

  CapacityResult g = capacity_of("scenarios/genoa-400gbe-nic-ktls.yaml", NULL);
  ck_assert(!g.ram_on && isinf(g.limit_gbps[CAP_RAM]));
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
  ck_assert(capacity_search(full, mf, &cf, &e));
  ck_assert(capacity_search(few, mw, &cw, &e));
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
  /* rome-400g-nic-ktls: drops limit at 343.1 Gb/s, saturation 368.0, CPU 554.1 (554.2 before the refit of issue 28: page_cycles
   * 2989 -> 2940, pkt_cycles 2000 -> 2800): the table must
   * not call the DES latency "never reached" (the DES checks it at 343.1 only) and must mark the
   * CPU limit above saturation as headroom */
  const char *args[] = { "capacity", "-q", "scenarios/rome-400g-nic-ktls.yaml", NULL };
  char *out, *err;
  ck_assert_int_eq(test_run_ocasim(args, &out, &err), 0);
  ck_assert_msg(strstr(out, "  latency     not reached up to 343.1 Gb/s, not checked above ("), "%s", out);
  ck_assert_msg(strstr(out, "  cpu            554.1 Gb/s     (busiest node's CPU demand reaches its 80 % cap; above saturation"),
                "%s", out);
  ck_assert_msg(strstr(out, "  saturation     368.0 Gb/s"), "%s", out);
  g_free(out);
  g_free(err);
}
END_TEST

START_TEST(test_latency_slo)
{
  /* a tight SLO binds before any resource saturates (the drops at 343.1 Gb/s), and p99 at the
   * capacity equals the SLO */
  const char *sets[] = { "workload.latency_slo=8 ms", NULL };
  Appliance *a = load("scenarios/rome-400g-nic-ktls.yaml", sets);
  g_autoptr(DemandModel) m = demand_build(a, NULL);
  CapacityResult c;
  GError *e = NULL;
  ck_assert(capacity_search(a, m, &c, &e));
  ck_assert_int_eq(c.limiting, CAP_LATENCY);
  g_autoptr(BoundResult) r = bound_eval(a, m, c.capacity_gbps);
  ck_assert_double_eq_tol(r->lat_p99_ms, 8.0, 1e-3);
  ck_assert(c.capacity_gbps < demand_saturation_Bps(m, NULL) * 8e-9);
  /* the bound's limit (capacity_latency: bound) is the DES's (what `ocasim capacity` takes)
   * within 10 %: the DES brackets its limit to 1/128 of the other criteria's (2.7 Gb/s) and
   * counts p99 plus its 95 % half-width, so it sits a little lower (measured 316.8 vs 284.1: within
   * 12 %, the p99 estimate being held to the DES's within 50 %, docs/outputs.md) */
  AppScenarioInfo info = { 0 };
  Appliance *d = g_new0(Appliance, 1);
  ck_assert(appliance_load_file("scenarios/rome-400g-nic-ktls.yaml", sets, d, &info, &e));
  g_autoptr(DemandModel) md = demand_build(d, NULL);
  CapacityResult cd;
  ck_assert_msg(capacity_des(d, &info, md, NULL, &cd, &e), "%s", e ? e->message : "");
  ck_assert_int_eq(cd.limiting, CAP_LATENCY);
  ck_assert_double_eq_tol(cd.latency_bound_gbps, c.capacity_gbps, 1e-9);
  ck_assert_msg(fabs(c.capacity_gbps / cd.capacity_gbps - 1) <= 0.12, "bound %.1f Gb/s, run %.1f Gb/s", c.capacity_gbps,
                cd.capacity_gbps);
  app_scenario_info_clear(&info);
  g_free(d);
  /* an SLO below the idle latency: no healthy load at all */
  const char *tight[] = { "workload.latency_slo=1 ms", NULL };
  Appliance *b = load("scenarios/rome-400g-nic-ktls.yaml", tight);
  g_autoptr(DemandModel) mb = demand_build(b, NULL);
  ck_assert(capacity_search(b, mb, &c, &e));
  ck_assert_int_eq(c.limiting, CAP_LATENCY);
  ck_assert_double_eq(c.capacity_gbps, 0.0);
  g_free(b);
  g_free(a);
}
END_TEST

/* The DES run (`ocasim run`) of @a at offered load @L Gb/s, at the scenario's duration and seed. */
static AppReport *des_run_at(const Appliance *a, const AppScenarioInfo *info, double L)
{
  Appliance *b = g_memdup2(a, sizeof *a);
  b->wl.offered_gbps = L;
  GError *e = NULL;
  g_autoptr(DemandModel) m = demand_build(b, &e);
  ck_assert_msg(m, "%s", e ? e->message : "");
  AppReport *r = des_run(b, info, m, NULL, &e);
  ck_assert_msg(r, "%s", e ? e->message : "");
  g_free(b);
  return r;
}

/* The capacity's 95 % interval ends at what the check's runs show (issue 33). rome-400g-nic-ktls
 * with a 5 ms SLO answers 225.1 Gb/s; `ocasim run` at 300 Gb/s fails the SLO clearly (p99 less
 * its half-width above 5 ms: the capacity is below 300 Gb/s at 95 %), so the interval's upper
 * end must be too. It was the drops limit, 343.1 Gb/s: the bisection's failures near the limit
 * were not clear (257.3 Gb/s: p99 5.39 +- 0.43 ms) and 343.1 was the lowest clear one it ran.
 * The check now looks for a lower clear failure: 263.8 Gb/s (p99 5.89 +- 0.77 ms). Each end is
 * what a run shows: the upper a run that fails clearly, the lower at most the answer, whose run
 * passes clearly (p99 plus its half-width within the SLO). */
START_TEST(test_capacity_ci_ends_at_clear_runs)
{
  const char *sets[] = { "workload.latency_slo=5 ms", NULL };
  AppScenarioInfo info = { 0 };
  Appliance *a = g_new0(Appliance, 1);
  GError *e = NULL;
  ck_assert_msg(appliance_load_file("scenarios/rome-400g-nic-ktls.yaml", sets, a, &info, &e), "%s", e ? e->message : "");
  g_autoptr(DemandModel) m = demand_build(a, NULL);
  CapacityResult c;
  ck_assert_msg(capacity_des(a, &info, m, NULL, &c, &e), "%s", e ? e->message : "");
  const double slo_ms = 5.0;
  printf("capacity 5 ms: %.2f Gb/s, 95 %% CI [%.2f, %.2f], %d runs, drops limit %.2f\n", c.capacity_gbps, c.capacity_ci95_gbps[0],
         c.capacity_ci95_gbps[1], c.des_runs, c.limit_gbps[CAP_DROPS]);
  ck_assert_int_eq(c.limiting, CAP_LATENCY);
  ck_assert(c.capacity_ci95_gbps[0] <= c.capacity_gbps && c.capacity_gbps <= c.capacity_ci95_gbps[1]);
  /* the premise: a run at 300 Gb/s fails clearly, beyond its CI */
  g_autoptr(AppReport) r300 = des_run_at(a, &info, 300.0);
  ck_assert_msg(r300->lat_p99_ms - r300->lat_p99_ci95_ms > slo_ms, "p99 at 300 Gb/s %.3f +- %.3f ms", r300->lat_p99_ms,
                r300->lat_p99_ci95_ms);
  /* so the upper end is no higher (it was 343.1 Gb/s, the drops limit) */
  ck_assert_double_lt(300.0, c.limit_gbps[CAP_DROPS]);
  ck_assert_msg(c.capacity_ci95_gbps[1] <= 300.0, "upper end %.2f Gb/s above a clear failure at 300", c.capacity_ci95_gbps[1]);
  /* the upper end is itself a run that fails clearly (by p99 or by falling short) */
  g_autoptr(AppReport) rhi = des_run_at(a, &info, c.capacity_ci95_gbps[1]);
  ck_assert_msg(rhi->overloaded || rhi->lat_p99_ms - rhi->lat_p99_ci95_ms > slo_ms, "p99 at the upper end %.3f +- %.3f ms",
                rhi->lat_p99_ms, rhi->lat_p99_ci95_ms);
  /* the answer is a clear pass, and the lower end at most its served load less the half-width */
  g_autoptr(AppReport) rcap = des_run_at(a, &info, c.capacity_gbps);
  ck_assert(!rcap->overloaded && rcap->lat_p99_ms + rcap->lat_p99_ci95_ms <= slo_ms);
  ck_assert_double_le(c.capacity_ci95_gbps[0], rcap->throughput_gbps - rcap->throughput_ci95_gbps + 1e-9);
  /* the bisection (1 + 7 runs) and the search for the clear failure (at most 7 more) */
  ck_assert_int_gt(c.des_runs, 1 + 7);
  ck_assert_int_le(c.des_runs, 1 + 7 + 7);
  app_scenario_info_clear(&info);
  g_free(a);
}
END_TEST

/* The DES capacity of the 800G Milan box with the drop criterion off (so the latency check over
 * DES runs decides) at run length @duration. */
static CapacityResult des_capacity_at(const char *duration, double *U)
{
  const char *sets[] = { "workload.drop_max=100%", duration, NULL };
  AppScenarioInfo info = { 0 };
  Appliance *a = g_new0(Appliance, 1);
  GError *e = NULL;
  ck_assert(appliance_load_file("scenarios/milan-800g-dlwm-off-network-centric.yaml", sets, a, &info, &e));
  g_autoptr(DemandModel) m = demand_build(a, NULL);
  CapacityResult c;
  ck_assert_msg(capacity_des(a, &info, m, NULL, &c, &e), "%s", e ? e->message : "");
  *U = demand_saturation_Bps(m, NULL) * 8e-9; /* the latency check's bracket: no other criterion binds */
  app_scenario_info_clear(&info);
  g_free(a);
  return c;
}

/* `capacity` does not hang on the run length (issue 33, defect 9): a DES run that serves less
 * than it is offered beyond its CI has fallen behind and fails the latency check, whatever p99
 * its completed requests show (that p99 grows with the run's length). The answer carries a 95 %
 * interval (the check's last bisection step, 1/128 of the bracket = 5.75 Gb/s, and its runs' CIs,
 * which hold the offered load's own noise): with 1, 2 and 3 s runs the answers are 718.8, 718.8
 * and 713.0 Gb/s, the intervals [699.4, 721.8], [705.4, 719.3] and [706.8, 717.4], which share
 * [706.8, 717.4]. They were 736.0 and 718.8 Gb/s at 1 and 3 s (three steps apart), the short runs
 * passing an offered load the box fell 17 Gb/s behind: an answer at the bracket's top, with no
 * noise of the check in it, outside the 3 s interval. */
START_TEST(test_capacity_stable_in_run_length)
{
  const char *len[] = { "duration=1 s", "duration=2 s", "duration=3 s" };
  CapacityResult c[G_N_ELEMENTS(len)];
  double U[G_N_ELEMENTS(len)], common_lo = 0, common_hi = INFINITY;
  for (size_t i = 0; i < G_N_ELEMENTS(len); i++) {
    c[i] = des_capacity_at(len[i], &U[i]);
    printf("capacity: %s: %.2f Gb/s, 95 %% CI [%.2f, %.2f]\n", len[i], c[i].capacity_gbps, c[i].capacity_ci95_gbps[0],
           c[i].capacity_ci95_gbps[1]);
    ck_assert_double_eq_tol(U[i], U[0], 1e-9 * U[0]);
    ck_assert_int_eq(c[i].limiting, CAP_LATENCY);
    ck_assert(c[i].capacity_gbps < U[i]);
    /* the interval holds the answer, and is narrow: the step plus a CI on either side, each about
     * 1 % of the load (a check that said nothing would pass anything) */
    ck_assert(c[i].capacity_ci95_gbps[0] <= c[i].capacity_gbps && c[i].capacity_gbps <= c[i].capacity_ci95_gbps[1]);
    ck_assert_double_le(c[i].capacity_ci95_gbps[1] - c[i].capacity_ci95_gbps[0], 0.05 * U[i]);
    common_lo = MAX(common_lo, c[i].capacity_ci95_gbps[0]);
    common_hi = MIN(common_hi, c[i].capacity_ci95_gbps[1]);
  }
  /* stable in run length within its CI: every run length's interval shares one range */
  ck_assert_msg(common_lo <= common_hi, "the 1, 2 and 3 s intervals share nothing: %.2f > %.2f Gb/s", common_lo, common_hi);
  for (size_t i = 0; i < G_N_ELEMENTS(len); i++)
    for (size_t j = 0; j < G_N_ELEMENTS(len); j++)
      ck_assert_msg(fabs(c[i].capacity_gbps - c[j].capacity_gbps) <=
                        (c[i].capacity_ci95_gbps[1] - c[i].capacity_ci95_gbps[0]) +
                            (c[j].capacity_ci95_gbps[1] - c[j].capacity_ci95_gbps[0]),
                    "%s: %.2f Gb/s, %s: %.2f Gb/s", len[i], c[i].capacity_gbps, len[j], c[j].capacity_gbps);
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

/* The offered utilisation of the resource named @name at load @L Gb/s (fails when absent). */
static double util_of(const Appliance *a, const DemandModel *m, const char *name, double L)
{
  g_autoptr(BoundResult) r = bound_eval(a, m, L);
  for (int i = 0; i < m->n_res; i++)
    if (!strcmp(m->res[i].name, name)) return r->offered_util[i];
  ck_abort_msg("no resource %s", name);
  return NAN;
}

/* The capacity (bound's latency estimate) of @file under @sets. */
static CapacityResult capacity_of(const char *file, const char *const *sets)
{
  Appliance *a = load(file, sets);
  GError *e = NULL;
  g_autoptr(DemandModel) m = demand_build(a, &e);
  ck_assert_msg(m, "%s", e ? e->message : "");
  CapacityResult c;
  ck_assert_msg(capacity_search(a, m, &c, &e), "%s", e ? e->message : "");
  g_free(a);
  return c;
}

START_TEST(test_headroom_dram_hand_derived)
{
  /* rome2021_sw_nps1 stops at the CPU's 80 % cap, X = 250.8 Gb/s, with dram.node0 at 95.5 %;
   * below the sizing effects the DRAM's utilisation is its bytes per served byte times the load
   * over its bandwidth, linear in the load: u(L) = u(X) L / X. A dram headroom of 85 % then binds
   * at L = 0.85 X / u(X) = 0.85 x 250.80 / 0.9554 = 223.1 Gb/s, below the CPU's limit, and there
   * the bound puts dram.node0 at 85 % exactly. */
  const char *file = "scenarios/reference/rome2021_sw_nps1.yaml";
  Appliance *a = load(file, NULL);
  g_autoptr(DemandModel) m = demand_build(a, NULL);
  CapacityResult c0;
  GError *e = NULL;
  ck_assert(capacity_search(a, m, &c0, &e));
  ck_assert_int_eq(c0.limiting, CAP_CPU);
  ck_assert(!c0.headroom_on && isinf(c0.limit_gbps[CAP_HEADROOM]));
  ck_assert_double_eq_tol(c0.capacity_gbps, 250.8, 0.05);
  double u0 = util_of(a, m, "dram.node0", c0.capacity_gbps);
  ck_assert_double_eq_tol(u0, 0.9554, 5e-4);
  /* linear below the sizing effects: half the load, half the utilisation (within 0.1 %) */
  ck_assert_double_eq_tol(util_of(a, m, "dram.node0", c0.capacity_gbps / 2) / (u0 / 2), 1.0, 1e-3);
  double predicted = 0.85 * c0.capacity_gbps / u0;
  ck_assert_double_eq_tol(predicted, 223.1, 0.1);

  const char *sets[] = { "workload.headroom.dram=85 %", NULL };
  Appliance *h = load(file, sets);
  ck_assert_double_eq(capacity_headroom(&h->wl, RK_DRAM), 0.85);
  ck_assert_double_eq(capacity_headroom(&h->wl, RK_CPU), 0.0);
  g_autoptr(DemandModel) mh = demand_build(h, NULL);
  CapacityResult c;
  ck_assert(capacity_search(h, mh, &c, &e));
  ck_assert(c.headroom_on);
  ck_assert_int_eq(c.limiting, CAP_HEADROOM);
  ck_assert_str_eq(c.headroom_res, "dram.node0");
  ck_assert_double_eq(c.headroom_limit, 0.85);
  ck_assert_double_eq_tol(c.capacity_gbps, predicted, 1e-3 * predicted);
  /* the other criteria are untouched */
  for (int k = 0; k < CAP_HEADROOM; k++)
    ck_assert(c.limit_gbps[k] == c0.limit_gbps[k] || (isinf(c.limit_gbps[k]) && isinf(c0.limit_gbps[k])));
  /* the bound at the capacity: dram.node0 at 85 % (the solver's 1e-6 tolerance), served and offered */
  ck_assert_double_eq_tol(util_of(h, mh, "dram.node0", c.capacity_gbps), 0.85, 1e-6);
  g_autoptr(BoundResult) r = bound_eval(h, mh, c.capacity_gbps);
  for (int i = 0; i < mh->n_res; i++) {
    if (!strcmp(mh->res[i].name, "dram.node0")) ck_assert_double_eq_tol(r->util[i], 0.85, 1e-6);
    if (mh->res[i].kind == RK_DRAM) ck_assert(r->offered_util[i] <= 0.85 + 1e-6);
  }
  /* and `ocasim bound` at that load (the demand built there) says the same to its 4 digits */
  g_autofree char *offered = g_strdup_printf("workload.offered=%.17g Gb/s", c.capacity_gbps);
  const char *args[] = { "bound", file, "--set", offered, "-f", "json", NULL };
  char *out, *err;
  ck_assert_int_eq(test_run_ocasim(args, &out, &err), 0);
  g_autoptr(JsonParser) p = json_parser_new();
  ck_assert(json_parser_load_from_data(p, out, -1, NULL));
  JsonArray *res = json_object_get_array_member(json_node_get_object(json_parser_get_root(p)), "resources");
  gboolean seen = FALSE;
  for (guint i = 0; i < json_array_get_length(res); i++) {
    JsonObject *o = json_array_get_object_element(res, i);
    if (strcmp(json_object_get_string_member(o, "name"), "dram.node0")) continue;
    ck_assert_double_eq_tol(json_object_get_double_member(o, "util_frac"), 0.85, 5e-4);
    seen = TRUE;
  }
  ck_assert(seen);
  g_free(out);
  g_free(err);
  g_free(h);
  g_free(a);
}
END_TEST

START_TEST(test_headroom_monotone)
{
  /* a tighter headroom never raises the capacity, and with any headroom the capacity is at most
   * the one without; two kinds together bind at the smaller of their two limits */
  static const char *const files[] = { "scenarios/reference/rome2021_sw_nps1.yaml", "scenarios/reference/bdw2016_nic_ktls.yaml" };
  static const char *const kinds[] = { "dram", "fabric", "pcie", "nvme", "nic_port", "nic_tls" };
  static const double pct[] = { 100, 95, 90, 80, 60, 40, 20 };
  for (size_t f = 0; f < G_N_ELEMENTS(files); f++) {
    CapacityResult none = capacity_of(files[f], NULL);
    int bound_somewhere = 0;
    for (size_t k = 0; k < G_N_ELEMENTS(kinds); k++) {
      double prev = none.capacity_gbps;
      for (size_t i = 0; i < G_N_ELEMENTS(pct); i++) {
        g_autofree char *set = g_strdup_printf("workload.headroom.%s=%g %%", kinds[k], pct[i]);
        const char *sets[] = { set, NULL };
        CapacityResult c = capacity_of(files[f], sets);
        ck_assert_msg(c.capacity_gbps <= prev, "%s %s: %.9g Gb/s above %.9g at the looser limit", files[f], set, c.capacity_gbps,
                      prev);
        ck_assert(c.capacity_gbps <= none.capacity_gbps);
        if (c.limiting == CAP_HEADROOM) {
          bound_somewhere++;
          ck_assert_msg(g_str_has_prefix(c.headroom_res, kinds[k]) || !strcmp(kinds[k], "fabric") ||
                            !strcmp(kinds[k], "nic_port") || !strcmp(kinds[k], "nic_tls"),
                        "%s: %s", set, c.headroom_res);
          ck_assert_double_eq_tol(c.headroom_limit, pct[i] / 100, 1e-12);
        }
        prev = c.capacity_gbps;
      }
    }
    ck_assert_msg(bound_somewhere >= 10, "%s: headroom bound %d times", files[f], bound_somewhere);
    const char *one[] = { "workload.headroom.dram=85 %", NULL }, *two[] = { "workload.headroom.pcie=40 %", NULL };
    const char *both[] = { "workload.headroom.dram=85 %", "workload.headroom.pcie=40 %", NULL };
    CapacityResult c1 = capacity_of(files[f], one), c2 = capacity_of(files[f], two), cb = capacity_of(files[f], both);
    double lo = MIN(c1.capacity_gbps, c2.capacity_gbps);
    ck_assert_double_eq_tol(cb.capacity_gbps, lo, 1e-6 * lo);
  }
}
END_TEST

START_TEST(test_headroom_100_is_none)
{
  /* 100 % on every kind is the saturation criterion's own limit: the capacity, its criterion and
   * every other limit are those without a headroom, bit for bit; on a box the NIC ports saturate
   * (strict disk-centric Milan, drop_max 2 %), a port headroom just under 100 % binds just under */
  static const char *const files[] = { "scenarios/reference/rome2021_sw_nps1.yaml",
                                       "scenarios/reference/milan2022_strict_disk_silo.yaml" };
  for (size_t f = 0; f < G_N_ELEMENTS(files); f++) {
    const char *base[] = { "workload.drop_max=2 %", "workload.latency_slo=10 s", NULL };
    const char *all[] = { "workload.drop_max=2 %",
                          "workload.latency_slo=10 s",
                          "workload.headroom.dram=100 %",
                          "workload.headroom.fabric=100 %",
                          "workload.headroom.pcie=100 %",
                          "workload.headroom.nvme=100 %",
                          "workload.headroom.nic_port=100 %",
                          "workload.headroom.nic_tls=100 %",
                          NULL };
    CapacityResult n = capacity_of(files[f], base), h = capacity_of(files[f], all);
    ck_assert(h.headroom_on && isinf(h.limit_gbps[CAP_HEADROOM]) && !h.headroom_res[0]);
    ck_assert(h.capacity_gbps == n.capacity_gbps);
    ck_assert_int_eq(h.limiting, n.limiting);
    for (int k = 0; k < CAP_COUNT; k++)
      ck_assert(h.limit_gbps[k] == n.limit_gbps[k] || (isinf(h.limit_gbps[k]) && isinf(n.limit_gbps[k])));
  }
  const char *near[] = { "workload.drop_max=2 %", "workload.latency_slo=10 s", "workload.headroom.nic_port=99.9 %", NULL };
  const char *base[] = { "workload.drop_max=2 %", "workload.latency_slo=10 s", NULL };
  CapacityResult n = capacity_of(files[1], base), h = capacity_of(files[1], near);
  ck_assert_int_eq(n.limiting, CAP_SATURATION);
  ck_assert_int_eq(h.limiting, CAP_HEADROOM);
  ck_assert_msg(g_str_has_prefix(h.headroom_res, "nic"), "%s", h.headroom_res);
  ck_assert(h.capacity_gbps < n.capacity_gbps);
  ck_assert_double_eq_tol(h.capacity_gbps / n.capacity_gbps, 0.999, 2e-4);
}
END_TEST

START_TEST(test_cli_capacity_headroom)
{
  /* the report names the criterion and the resource in the table, JSON and CSV; without a
   * headroom none of them mentions it */
  const char *file = "scenarios/reference/rome2021_sw_nps1.yaml";
  const char *fmt[] = { "table", "json", "csv" };
  for (int with = 0; with < 2; with++) {
    for (int f = 0; f < 3; f++) {
      const char *args[] = { "capacity",
                             "-q",
                             file,
                             "--duration",
                             "0.4 s",
                             "--warmup",
                             "0.1 s",
                             "-f",
                             fmt[f],
                             with ? "--set" : NULL,
                             "workload.headroom.dram=85 %",
                             NULL };
      char *out, *err;
      ck_assert_int_eq(test_run_ocasim(args, &out, &err), 0);
      if (!with) {
        ck_assert_msg(!strstr(out, "headroom"), "%s", out);
      } else if (f == 0) {
        ck_assert_msg(strstr(out, "capacity:   223.1 Gb/s, limited by headroom on dram.node0 (85 %)\n"), "%s", out);
        ck_assert_msg(strstr(out, "  headroom       223.1 Gb/s <-  (dram.node0 reaches its workload.headroom limit 85 %"), "%s",
                      out);
        ck_assert_msg(strstr(out, "dram.node0             dram       85.0%"), "%s", out);
      } else if (f == 1) {
        g_autoptr(JsonParser) p = json_parser_new();
        ck_assert(json_parser_load_from_data(p, out, -1, NULL));
        JsonObject *o = json_node_get_object(json_parser_get_root(p));
        ck_assert_str_eq(json_object_get_string_member(o, "limiting_criterion"), "headroom");
        double cap = json_object_get_double_member(o, "capacity_gbps");
        ck_assert_double_eq(json_object_get_double_member(json_object_get_object_member(o, "criteria"), "headroom"), cap);
        JsonObject *h = json_object_get_object_member(o, "headroom");
        ck_assert_str_eq(json_object_get_string_member(h, "resource"), "dram.node0");
        ck_assert_double_eq(json_object_get_double_member(h, "limit_pct"), 85);
        ck_assert_double_eq(json_object_get_double_member(json_object_get_object_member(h, "limits_pct"), "dram"), 85);
      } else {
        ck_assert_msg(g_str_has_prefix(out, "scenario,seed,overrides,capacity_gbps,capacity_ci95_gbps_lo,capacity_ci95_gbps_hi,"
                                            "criterion,limit_gbps,limiting,resource,"
                                            "headroom_pct,throughput_gbps_lo,throughput_gbps_hi,cpu_util_pct_lo,"
                                            "cpu_util_pct_hi,interval_level,ocasim_version\n"),
                      "%s", out);
        ck_assert_msg(strstr(out, ",headroom,223.12") && strstr(out, ",true,dram.node0,85.0,"), "%s", out);
      }
      g_free(out);
      g_free(err);
    }
  }
}
END_TEST

/* Runs ocasim with @args (exit 0 expected): its stdout (transfer full). */
static char *ocasim_out(const char *const *args)
{
  char *out, *err;
  int st = test_run_ocasim(args, &out, &err);
  ck_assert_msg(st == 0, "ocasim %s %s: exit %d: %s", args[0], args[2], st, err);
  g_free(err);
  return out;
}

/* The cells of the CSV line @line (no quoted commas in the rows read here). (transfer full) */
static GStrv csv_cells(const char *line)
{
  return g_strsplit(line, ",", -1);
}

/* The index of column @name in the header @head (fails when absent). */
static int csv_col(const GStrv head, const char *name)
{
  for (int i = 0; head[i]; i++)
    if (!strcmp(head[i], name)) return i;
  ck_abort_msg("no column %s", name);
  return -1;
}

/* rate_precision set in the scenario file reaches every output that ran the DES (issue 33): run's
 * CSV (its table and JSON had it) and capacity's table, JSON and CSV, whose latency check runs the
 * DES at that precision; an exact run writes none of it (its output is byte-identical to what it
 * was: the goldens). The overrides are listed in the order applied whether or not the file sets
 * the key (--rate-precision before the --set: it was last when the file lacked the key). The
 * capacity CSV's interval columns are JSON's capacity_ci95_gbps. */
START_TEST(test_cli_rate_precision_in_outputs)
{
  g_autofree char *text = NULL;
  ck_assert(g_file_get_contents("scenarios/rome-400g-nic-ktls.yaml", &text, NULL, NULL));
  g_autofree char *cwd = g_get_current_dir();
  g_autofree char *plat = g_strdup_printf("platform: %s/scenarios/platforms/rome-7502p.yaml\nrate_precision: 0.1", cwd);
  g_auto(GStrv) parts = g_strsplit(text, "platform: platforms/rome-7502p.yaml", 2);
  ck_assert(parts[1]);
  g_autofree char *eps_text = g_strjoin(plat, parts[0], parts[1], NULL);
  g_autofree char *path = NULL;
  int fd = g_file_open_tmp("ocasim-eps-XXXXXX.yaml", &path, NULL);
  ck_assert(fd >= 0);
  close(fd);
  ck_assert(g_file_set_contents(path, eps_text, -1, NULL));
  const char *files[] = { "scenarios/rome-400g-nic-ktls.yaml", path };
  for (int f = 0; f < 2; f++) {
    const gboolean eps = f == 1;
    const char *run_args[] = { "run",           "-q", files[f], "--duration", "0.3 s", "--warmup", "0.05 s",
                               "--no-interval", "-f", "csv",    NULL };
    g_autofree char *run = ocasim_out(run_args);
    ck_assert_msg(g_str_has_prefix(run, eps ? "scenario,mode,seed,rate_precision,overrides," : "scenario,mode,seed,overrides,"),
                  "%.200s", run);
    ck_assert_msg(eps == (strstr(run, "\nrome-400g-nic-ktls,run,1,0.1,duration=0.3 s; warmup=0.05 s,") != NULL), "%.400s", run);
    const char *cap_args[] = { "capacity",
                               "-q",
                               files[f],
                               "--duration",
                               "0.3 s",
                               "--warmup",
                               "0.05 s",
                               "--set",
                               "workload.latency_slo=5 ms",
                               "--rate-precision",
                               eps ? "0.05" : "0",
                               "--no-interval",
                               "-f",
                               "csv",
                               NULL };
    /* the exact run: --rate-precision 0 is the default */
    g_autofree char *csv = ocasim_out(cap_args);
    g_auto(GStrv) lines = g_strsplit(csv, "\n", -1);
    g_auto(GStrv) head = csv_cells(lines[0]), row = csv_cells(lines[1]);
    ck_assert_msg(g_str_has_prefix(lines[0], eps ? "scenario,seed,rate_precision,overrides,capacity_gbps,capacity_ci95_gbps_lo,"
                                                   "capacity_ci95_gbps_hi,criterion,"
                                                 : "scenario,seed,overrides,capacity_gbps,capacity_ci95_gbps_lo,"
                                                   "capacity_ci95_gbps_hi,criterion,"),
                  "%s", lines[0]);
    if (eps) ck_assert_str_eq(row[2], "0.05");
    g_autofree char *ov =
        g_strdup_printf("duration=0.3 s; warmup=0.05 s; rate_precision=%s; workload.latency_slo=5 ms", eps ? "0.05" : "0");
    ck_assert_str_eq(row[csv_col(head, "overrides")], ov);
    cap_args[G_N_ELEMENTS(cap_args) - 2] = "json";
    g_autofree char *json = ocasim_out(cap_args);
    g_autoptr(JsonParser) p = json_parser_new();
    ck_assert(json_parser_load_from_data(p, json, -1, NULL));
    JsonObject *o = json_node_get_object(json_parser_get_root(p));
    JsonArray *ci = json_object_get_array_member(o, "capacity_ci95_gbps");
    ck_assert_double_eq(g_ascii_strtod(row[csv_col(head, "capacity_ci95_gbps_lo")], NULL), json_array_get_double_element(ci, 0));
    ck_assert_double_eq(g_ascii_strtod(row[csv_col(head, "capacity_ci95_gbps_hi")], NULL), json_array_get_double_element(ci, 1));
    ck_assert_double_lt(json_array_get_double_element(ci, 0), json_array_get_double_element(ci, 1));
    JsonObject *lc = json_object_get_object_member(o, "latency_check");
    ck_assert(json_object_has_member(lc, "rate_precision") == eps);
    if (eps) ck_assert_double_eq(json_object_get_double_member(lc, "rate_precision"), 0.05);
    cap_args[G_N_ELEMENTS(cap_args) - 2] = "table";
    g_autofree char *table = ocasim_out(cap_args);
    ck_assert_msg((strstr(table, "\nprecision:  rate_precision 0.05 in the latency check's runs:") != NULL) == eps, "%s", table);
    ck_assert(eps || !strstr(table, "precision:"));
  }
  g_unlink(path);
}
END_TEST

static Suite *suite(void)
{
  Suite *s = suite_create("capacity_search");
  TCase *t = tcase_create("capacity");
  tcase_set_timeout(t, 60);
  tcase_add_test(t, test_drop_criterion_closed_form);
  tcase_add_test(t, test_port_drop_mm1k);
  tcase_add_test(t, test_cpu_criterion);
  tcase_add_test(t, test_latency_slo);
  tcase_add_test(t, test_capacity_stable_in_run_length);
  tcase_add_test(t, test_capacity_ci_ends_at_clear_runs);
  tcase_add_test(t, test_cpu_limit_beyond_twice_saturation);
  tcase_add_test(t, test_capacity_sized_at_its_load);
  tcase_add_test(t, test_ram_criterion);
  tcase_add_test(t, test_cli_capacity_json);
  tcase_add_test(t, test_cli_capacity_table_wording);
  tcase_add_test(t, test_headroom_dram_hand_derived);
  tcase_add_test(t, test_headroom_monotone);
  tcase_add_test(t, test_headroom_100_is_none);
  tcase_add_test(t, test_cli_capacity_headroom);
  tcase_add_test(t, test_cli_rate_precision_in_outputs);
  suite_add_tcase(s, t);
  return s;
}

int main(void)
{
  return test_run_suite(suite());
}
