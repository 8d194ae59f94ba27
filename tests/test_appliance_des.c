/* tests/test_appliance_des.c — the discrete-event appliance model (`ocasim run`)
 * against the analytic bound (`ocasim bound`), byte conservation, resource
 * limits and determinism, on the published-result scenarios. */
#include <check.h>
#include "tests/support/check_run.h"
#include <math.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include "models/appliance/loader.h"
#include "models/modes/des.h"

typedef struct {
  Appliance a;
  AppScenarioInfo info;
  DemandModel *m;
} loaded;

static loaded *load(const char *path, const char *const *sets)
{
  loaded *l = g_new0(loaded, 1);
  GError *err = NULL;
  ck_assert_msg(appliance_load_file(path, sets, &l->a, &l->info, &err), "%s", err ? err->message : "");
  l->m = demand_build(&l->a, &err);
  ck_assert_msg(l->m, "%s", err ? err->message : "");
  return l;
}

static void unload(loaded *l)
{
  demand_free(l->m);
  app_scenario_info_clear(&l->info);
  g_free(l);
}

/* Scenarios without skew: the DES at saturation must meet the bound within 3%. */
static const char *const unskewed[] = {
  "scenarios/reference/rome2021_nic_nps4.yaml",
  "scenarios/reference/rome2021_sw_nps1.yaml",
  "scenarios/reference/rome2022_sw_ktls_aesni.yaml",
  "scenarios/reference/bdw2016_sw_ktls.yaml",
};

START_TEST(test_des_meets_bound)
{
  const char *sets[] = { "duration=0.6 s", "warmup=0.1 s", NULL };
  loaded *l = load(unskewed[_i], sets);
  int bn = -1;
  double bound_gbps = demand_saturation_Bps(l->m, &bn) * 8e-9;
  SimFluidResult *raw = NULL;
  AppReport *rep = des_run(&l->a, &l->info, l->m, &raw, NULL);
  ck_assert_msg(fabs(rep->throughput_gbps - bound_gbps) <= 0.03 * bound_gbps, "%s: DES %.1f Gb/s vs bound %.1f", unskewed[_i],
                rep->throughput_gbps, bound_gbps);
  /* the DES names a bottleneck of the bound's kind, and the bound's runs near its limit */
  ck_assert_str_eq(rep->res[rep->bottleneck].kind, demand_kind_name(l->m->res[bn].kind));
  int bind = bn; /* DRAM named for the CPU its stalls fill (demand.h): then the busiest CPU binds */
  if (l->m->stall_named) {
    bind = -1;
    for (int i = 0; i < rep->n_res; i++)
      if (l->m->res[i].kind == RK_CPU && (bind < 0 || rep->res[i].utilization > rep->res[bind].utilization)) bind = i;
  }
  ck_assert_msg(rep->res[bind].utilization / rep->res[bind].limit >= 0.95, "%s: %s at %.3f of its limit", unskewed[_i],
                rep->res[bind].name, rep->res[bind].utilization / rep->res[bind].limit);
  /* no resource above its capacity, ever */
  ck_assert_double_le(raw->max_utilization_seen, 1 + 1e-9);
  for (int i = 0; i < rep->n_res; i++)
    ck_assert_msg(rep->res[i].utilization <= rep->res[i].limit + 1e-6, "%s over its limit", rep->res[i].name);
  /* conservation: bytes admitted (read from the drives) = delivered + in flight */
  ck_assert_double_eq_tol(raw->bytes_admitted, raw->bytes_delivered + raw->bytes_in_flight, 1e-6 * raw->bytes_admitted);
  /* NVMe units served equal bytes served: every byte is read from a drive once */
  double nvme = 0;
  for (int i = 0; i < rep->n_res; i++)
    if (l->m->res[i].kind == RK_NVME) nvme += raw->resources[i].load.mean;
  ck_assert_double_eq_tol(nvme, raw->throughput_Bps.mean, 1e-6 * nvme);
  ck_assert(report_steady(rep));
  /* "saturate" offers no load to leave unserved */
  g_autoptr(GString) t = g_string_new(NULL);
  report_write(rep, APP_FMT_TABLE, t);
  ck_assert_msg(!strstr(t->str, "unserved"), "%s", t->str);
  sim_fluid_result_free(raw);
  report_free(rep);
  unload(l);
}
END_TEST

START_TEST(test_des_open_load)
{
  /* 200 Gb/s offered to the 400G NIC-kTLS box: all of it served, nothing dropped. At 10 Gb/s
     * the 2000 paced clients fetch about 600 requests a second (a 2-request segment every 6.7 s),
     * so a run serves the offered load within arrival noise (about 2.5 % sd over 2.9 s: each
     * client's phase is random, sizes have a CV of 0.3), not unserved load */
  const struct {
    const char *offered, *seed, *duration;
    double gbps, tol;
  } cases[] = { { "workload.offered=200 Gb/s", "seed=1", "duration=0.6 s", 200, 0.03 },
                { "workload.offered=10 Gb/s", "seed=3", "duration=3 s", 10, 0.10 } };
  for (size_t c = 0; c < G_N_ELEMENTS(cases); c++) {
    const char *sets[] = { cases[c].duration, "warmup=0.1 s", cases[c].offered, cases[c].seed, NULL };
    loaded *l = load("scenarios/rome-400g-nic-ktls.yaml", sets);
    AppReport *rep = des_run(&l->a, &l->info, l->m, NULL, NULL);
    ck_assert_msg(fabs(rep->throughput_gbps - cases[c].gbps) <= cases[c].tol * cases[c].gbps, "served %.2f Gb/s",
                  rep->throughput_gbps);
    for (int i = 0; i < rep->n_res; i++) ck_assert_double_le(rep->res[i].drop, 0.01);
    ck_assert(!rep->overloaded);
    ck_assert_double_eq(report_unserved_gbps(rep), 0.0);
    report_free(rep);
    unload(l);
  }
}
END_TEST

START_TEST(test_des_overload)
{
  /* 1.3 x the bound offered to a memory-bound box: it serves its bound, the rest is reported
     * as unserved (requests wait, then are turned away), not as NIC drops: the ports run at
     * about 60 % of line rate */
  loaded *l = load("scenarios/reference/rome2022_sw_ktls_isal.yaml", NULL);
  double bound_gbps = demand_saturation_Bps(l->m, NULL) * 8e-9;
  unload(l);
  g_autofree char *off = g_strdup_printf("workload.offered=%.3f Gb/s", 1.3 * bound_gbps);
  const char *sets[] = { "duration=0.6 s", "warmup=0.1 s", off, NULL };
  l = load("scenarios/reference/rome2022_sw_ktls_isal.yaml", sets);
  SimFluidResult *raw = NULL;
  AppReport *rep = des_run(&l->a, &l->info, l->m, &raw, NULL);
  ck_assert_msg(fabs(rep->throughput_gbps - bound_gbps) <= 0.03 * bound_gbps, "served %.1f vs bound %.1f", rep->throughput_gbps,
                bound_gbps);
  /* above X* the box serves its capacity whatever arrives: the CI is the batch means alone, not
   * widened by the offered load's noise (which made an overloaded run's CI 13x saturate's) */
  ck_assert(raw->offered_hw_Bps > 0);
  ck_assert_double_eq(rep->throughput_ci95_gbps, raw->throughput_batch_hw_Bps * 8e-9);
  ck_assert_double_lt(rep->throughput_ci95_gbps, raw->throughput_Bps.half_width * 8e-9);
  sim_fluid_result_free(raw);
  ck_assert_double_eq_tol(report_unserved_gbps(rep), 0.3 * bound_gbps, 0.03 * bound_gbps);
  for (int i = 0; i < rep->n_res; i++)
    if (strcmp(rep->res[i].kind, "nic_port") == 0) ck_assert_double_le(rep->res[i].drop, 1e-6);
  ck_assert(rep->overloaded);
  g_autoptr(GString) j = g_string_new(NULL), t = g_string_new(NULL);
  report_write(rep, APP_FMT_JSON, j);
  report_write(rep, APP_FMT_TABLE, t);
  ck_assert(strstr(j->str, "\"unserved_gbps\"") && strstr(j->str, "\"requests_rejected\""));
  ck_assert_msg(strstr(t->str, "unserved: "), "%s", t->str);
  report_free(rep);
  unload(l);
}
END_TEST

/* A run that serves less than it is offered, beyond its CI, says so (issue 33, defect 9): the
 * 800G Milan box (bound 736.0 Gb/s) offered 730 Gb/s serves about 712 +- 7 Gb/s in 2 s runs, its
 * queues growing; its report said "below saturation: the box serves all it is offered" with
 * nothing unserved. Now unserved = offered - served, overloaded in JSON, a bottleneck in the
 * table. At 700 Gb/s it serves what it is offered: no unserved, below saturation. Offered 718
 * Gb/s in 3 s it serves 712.5 +- 4.9: short by 5.5 Gb/s, beyond the CI but under 1 % of the
 * offered load, which the report called noise (an assumed floor beside a CI that missed the
 * offered load's own noise: 712.5 +- 1.8 then) */
START_TEST(test_des_short_of_offered)
{
  const struct {
    const char *offered, *duration;
    double gbps;
    gboolean short_of_it;
  } cases[] = { { "workload.offered=730 Gb/s", "duration=2 s", 730, TRUE },
                { "workload.offered=700 Gb/s", "duration=2 s", 700, FALSE },
                { "workload.offered=718 Gb/s", "duration=3 s", 718, TRUE } };
  for (size_t c = 0; c < G_N_ELEMENTS(cases); c++) {
    const char *sets[] = { cases[c].duration, cases[c].offered, NULL };
    loaded *l = load("scenarios/milan-800g-dlwm-off-network-centric.yaml", sets);
    ck_assert_double_gt(demand_saturation_Bps(l->m, NULL) * 8e-9, cases[c].gbps); /* below the bound's X* */
    AppReport *rep = des_run(&l->a, &l->info, l->m, NULL, NULL);
    double shortfall = cases[c].gbps - rep->throughput_gbps;
    ck_assert_msg((shortfall > rep->throughput_ci95_gbps) == cases[c].short_of_it, "%s: served %.2f +- %.2f Gb/s",
                  cases[c].offered, rep->throughput_gbps, rep->throughput_ci95_gbps);
    ck_assert(rep->overloaded == cases[c].short_of_it);
    ck_assert(report_saturated(rep) == cases[c].short_of_it);
    ck_assert_double_eq_tol(report_unserved_gbps(rep), cases[c].short_of_it ? shortfall : 0.0, 1e-9);
    g_autoptr(GString) t = g_string_new(NULL), j = g_string_new(NULL);
    report_write(rep, APP_FMT_TABLE, t);
    report_write(rep, APP_FMT_JSON, j);
    ck_assert((strstr(t->str, "unserved: ") != NULL) == cases[c].short_of_it);
    ck_assert((strstr(t->str, "below saturation") == NULL) == cases[c].short_of_it);
    ck_assert(strstr(j->str, cases[c].short_of_it ? "\"overloaded\" : true" : "\"overloaded\" : false"));
    report_free(rep);
    unload(l);
  }
}
END_TEST

/* The throughput's CI is honest for short paced runs (issue 33): the Milan box offered 700 Gb/s
 * (below what it serves) in 0.8 s runs (0.6 s measured, 0.09 of a 6.7 s fetch period), 16 seeds:
 * the served throughput is off the offered load by 7.8 Gb/s RMS, and the CI's half-width / 1.96
 * is 7.2 (the offered load's own noise, sim_fluid_offered_sd_bytes, 6.0 of it); 1 run of 16 falls
 * outside its CI. The batch means alone gave 3.8, 5 runs of 16 outside: the report then needed a
 * 1 % floor not to call such runs overloaded. */
START_TEST(test_des_ci_holds_arrival_noise)
{
  const int n = 16;
  double sq = 0, hw = 0;
  int outside = 0, overloaded = 0;
  for (int k = 1; k <= n; k++) {
    g_autofree char *seed = g_strdup_printf("seed=%d", k);
    const char *sets[] = { "duration=0.8 s", "workload.offered=700 Gb/s", seed, NULL };
    loaded *l = load("scenarios/milan-800g-dlwm-off-network-centric.yaml", sets);
    AppReport *rep = des_run(&l->a, &l->info, l->m, NULL, NULL);
    double dev = rep->throughput_gbps - 700;
    sq += dev * dev / n;
    hw += rep->throughput_ci95_gbps / n;
    outside += fabs(dev) > rep->throughput_ci95_gbps;
    overloaded += rep->overloaded;
    report_free(rep);
    unload(l);
  }
  printf("des: 700 Gb/s in 0.8 s runs, %d seeds: off by %.2f Gb/s RMS, CI half-width / 1.96 %.2f, %d outside, %d overloaded\n", n,
         sqrt(sq), hw / 1.96, outside, overloaded);
  ck_assert_double_le(sqrt(sq), 1.25 * hw / 1.96);
  ck_assert_int_le(outside, 2);
  ck_assert_int_le(overloaded, 2);
}
END_TEST

START_TEST(test_des_not_steady)
{
  /* one card's TLS engine at 1 Gb/s: its 2 MiB requests take seconds and soon hold every
     * request slot, so a short run serves about half of the bound's 2 Gb/s, and says so */
  const char *sets[] = { "duration=0.6 s", "warmup=0.1 s", "nics[0].ktls=1 Gb/s", NULL };
  loaded *l = load("scenarios/rome-400g-nic-ktls.yaml", sets);
  AppReport *rep = des_run(&l->a, &l->info, l->m, NULL, NULL);
  ck_assert_double_eq_tol(rep->expected_gbps, 2.0, 0.01);
  ck_assert(!report_steady(rep));
  g_autoptr(GString) t = g_string_new(NULL);
  report_write(rep, APP_FMT_TABLE, t);
  ck_assert_msg(strstr(t->str, "not reached steady state"), "%s", t->str);
  report_free(rep);
  unload(l);
}
END_TEST

START_TEST(test_des_deterministic)
{
  const char *sets[] = { "duration=0.3 s", "warmup=0.05 s", NULL };
  g_autoptr(GString) j1 = g_string_new(NULL), j2 = g_string_new(NULL);
  for (int k = 0; k < 2; k++) {
    loaded *l = load("scenarios/reference/milan2022_strict_disk_silo.yaml", sets);
    AppReport *rep = des_run(&l->a, &l->info, l->m, NULL, NULL);
    report_write(rep, APP_FMT_JSON, k ? j2 : j1);
    report_free(rep);
    unload(l);
  }
  ck_assert_str_eq(j1->str, j2->str);
}
END_TEST

/* Lognormal parameters (zeta, sigma) of mean @mean and CV @cv (sim/dist.h). */
static void lognormal_params(double mean, double cv, double *zeta, double *sigma)
{
  double s2 = log1p(cv * cv);
  *sigma = sqrt(s2);
  *zeta = log(mean) - s2 / 2;
}

/* P(X <= x) for a SimDist that is fixed or lognormal (the two the DES draws latencies and
 * sizes from here). */
static double dist_cdf(const SimDist *d, double x)
{
  if (d->kind == SIM_DIST_DETERMINISTIC) return x >= d->mean ? 1.0 : 0.0;
  ck_assert_int_eq(d->kind, SIM_DIST_LOGNORMAL);
  if (x <= 0) return 0;
  double zeta, sigma;
  lognormal_params(d->mean, d->shape, &zeta, &sigma);
  return gsl_cdf_lognormal_P(x, zeta, sigma);
}

/* The latency of a lone request (no queueing, no sharing) is its drive latency L_k plus its size
 * S over its class's single-flow bandwidth B_k = min over its resources of capacity / units per
 * byte; over the class mix, P(latency <= t) = sum_k w_k P(L_k + S / B_k <= t). One of L and S is
 * fixed here, so each term is the other's CDF: the closed form the DES must meet at low load.
 * Returns its @q quantile (bisection), s. */
static double lone_request_quantile(const SimFluidSpec *spec, double q)
{
  double lo = 0, hi = 10, wsum = 0;
  for (guint k = 0; k < spec->classes->len; k++) wsum += ((SimFluidClass *)g_ptr_array_index(spec->classes, k))->weight;
  for (int it = 0; it < 200; it++) {
    double t = (lo + hi) / 2, F = 0;
    for (guint k = 0; k < spec->classes->len; k++) {
      const SimFluidClass *c = g_ptr_array_index(spec->classes, k);
      double B = INFINITY;
      for (guint i = 0; i < c->uses->len; i++) {
        const SimFluidUse *u = &g_array_index(c->uses, SimFluidUse, i);
        const SimFluidResource *r = g_ptr_array_index(spec->resources, u->res);
        if (u->units_per_byte > 0) B = MIN(B, r->capacity / u->units_per_byte);
      }
      SimDist L = c->latency_cv > 0 ? (SimDist){ SIM_DIST_LOGNORMAL, c->latency_ns * 1e-9, c->latency_cv }
                                    : (SimDist){ SIM_DIST_DETERMINISTIC, c->latency_ns * 1e-9, 0 };
      const SimDist *S = &spec->request_bytes;
      double p;
      if (S->kind == SIM_DIST_DETERMINISTIC)
        p = dist_cdf(&L, t - S->mean / B);
      else {
        ck_assert_int_eq(L.kind, SIM_DIST_DETERMINISTIC); /* one of the two fixed */
        p = dist_cdf(S, (t - L.mean) * B);
      }
      F += c->weight / wsum * p;
    }
    if (F < q)
      lo = t;
    else
      hi = t;
  }
  return (lo + hi) / 2;
}

/* Every nvme[] group of the Rome platform (rome-7502p.yaml has four) with a fixed read latency. */
#define ROME_FIXED_DRIVE_LATENCY "nvme[0].latency_cv=0", "nvme[1].latency_cv=0", "nvme[2].latency_cv=0", "nvme[3].latency_cv=0"

START_TEST(test_des_latency_low_load)
{
  /* 0.5 Gb/s of 256 KiB requests on the Rome box: 100 paced clients, one request per 0.42 s
     * segment (segment_duration 0.5 s rounds to one request), about 240 requests/s of ~170 us:
     * requests almost never overlap on a drive, so the latency percentiles are those of drive
     * latency + size / bandwidth. Case 0: fixed sizes, lognormal drive latency (the default CV
     * 0.26); case 1: lognormal sizes (CV 0.8, so the size's spread dominates), fixed latency.
     * Measured when written: case 0 p50 163.8 / p99 236.9 us against 164.2 / 235.0; case 1
     * 150.1 / 393.4 us against 150.2 / 399.2. */
  const char *common[] = { "duration=40 s", "warmup=1 s", "workload.offered=0.5 Gb/s", "workload.request_size=256 KiB",
                           "workload.segment_duration=0.5 s" };
  const char *case0[] = { common[0], common[1], common[2], common[3], common[4], "workload.request_size_dist=fixed", NULL };
  const char *case1[] = {
    common[0], common[1], common[2], common[3], common[4], "workload.request_size_cv=0.8", ROME_FIXED_DRIVE_LATENCY, NULL
  };
  const char *const *cases[] = { case0, case1 };
  for (int c = 0; c < 2; c++) {
    loaded *l = load("scenarios/reference/rome2021_sw_nps1.yaml", cases[c]);
    g_autoptr(SimFluidSpec) spec = des_spec(&l->a, &l->info, l->m);
    ck_assert_uint_eq(spec->clients->len, 1);
    ck_assert_int_eq(g_array_index(spec->clients, SimFluidClients, 0).burst, 1);
    ck_assert_int_eq(spec->request_bytes.kind, c == 0 ? SIM_DIST_DETERMINISTIC : SIM_DIST_LOGNORMAL);
    SimFluidResult *raw = NULL;
    AppReport *rep = des_run(&l->a, &l->info, l->m, &raw, NULL);
    double p50 = lone_request_quantile(spec, 0.5), p99 = lone_request_quantile(spec, 0.99);
    ck_assert_msg(fabs(raw->latency_p50_s - p50) <= 0.02 * p50 + raw->latency_p50_hw_s &&
                      fabs(raw->latency_p99_s - p99) <= 0.02 * p99 + raw->latency_p99_hw_s,
                  "case %d: p50 %.1f +- %.1f us (closed form %.1f), p99 %.1f +- %.1f us (closed form %.1f)", c,
                  raw->latency_p50_s * 1e6, raw->latency_p50_hw_s * 1e6, p50 * 1e6, raw->latency_p99_s * 1e6,
                  raw->latency_p99_hw_s * 1e6, p99 * 1e6);
    /* the spread is the input's: p99 well above p50 */
    ck_assert_double_gt(p99, 1.3 * p50);
    sim_fluid_result_free(raw);
    report_free(rep);
    unload(l);
  }
}
END_TEST

START_TEST(test_des_latency_spread_saturated)
{
  /* Saturated Rome box, default workload (lognormal sizes, CV 0.3; lognormal drive latency, CV
     * 0.26): one bottleneck (cpu.node0) that every request crosses shares its bandwidth equally
     * among the ~288 requests transferring, so a request's latency is L + S x c with c the
     * seconds per byte of the fair share. c comes from the mean (E[lat] = E[L] + c E[S]); then the
     * latency quantiles are E[L] + c S_q within the drive latency's spread (90 us against ~20 ms):
     * p99 / p50 is the size distribution's exp(2.326 sigma) = 1.96, not 1 (measured when written:
     * p50 18.654 / p99 36.893 ms against 18.695 / 36.921). */
  const char *sets[] = { "duration=0.6 s", "warmup=0.1 s", NULL };
  loaded *l = load("scenarios/reference/rome2021_sw_nps1.yaml", sets);
  g_autoptr(SimFluidSpec) spec = des_spec(&l->a, &l->info, l->m);
  SimFluidResult *raw = NULL;
  AppReport *rep = des_run(&l->a, &l->info, l->m, &raw, NULL);
  ck_assert_msg(rep->lat_p50_ms + rep->lat_p50_ci95_ms < rep->lat_p99_ms - rep->lat_p99_ci95_ms,
                "p50 %.3f +- %.3f, p99 %.3f +- %.3f", rep->lat_p50_ms, rep->lat_p50_ci95_ms, rep->lat_p99_ms,
                rep->lat_p99_ci95_ms);
  const SimDist *S = &spec->request_bytes;
  ck_assert_int_eq(S->kind, SIM_DIST_LOGNORMAL);
  double L = 0, wsum = 0;
  for (guint k = 0; k < spec->classes->len; k++) {
    const SimFluidClass *c = g_ptr_array_index(spec->classes, k);
    ck_assert_double_gt(c->latency_cv, 0);
    L += c->weight * c->latency_ns * 1e-9;
    wsum += c->weight;
  }
  L /= wsum;
  double c = (raw->latency_s.mean - L) / S->mean, zeta, sigma;
  lognormal_params(S->mean, S->shape, &zeta, &sigma);
  double p50 = L + c * gsl_cdf_lognormal_Pinv(0.5, zeta, sigma), p99 = L + c * gsl_cdf_lognormal_Pinv(0.99, zeta, sigma);
  ck_assert_msg(fabs(raw->latency_p50_s - p50) <= 0.03 * p50 && fabs(raw->latency_p99_s - p99) <= 0.03 * p99,
                "p50 %.3f ms (closed form %.3f), p99 %.3f ms (closed form %.3f)", raw->latency_p50_s * 1e3, p50 * 1e3,
                raw->latency_p99_s * 1e3, p99 * 1e3);
  sim_fluid_result_free(raw);
  report_free(rep);
  unload(l);
}
END_TEST

START_TEST(test_des_latency_no_spread)
{
  /* metamorphic: the spread comes only from the inputs. Fixed sizes, fixed drive latency and a
     * saturated box (no arrivals to pace): every request is alike, p50 == p99 */
  const char *sets[] = { "duration=0.6 s", "warmup=0.1 s", "workload.request_size_dist=fixed", ROME_FIXED_DRIVE_LATENCY, NULL };
  loaded *l = load("scenarios/reference/rome2021_sw_nps1.yaml", sets);
  AppReport *rep = des_run(&l->a, &l->info, l->m, NULL, NULL);
  ck_assert_double_gt(rep->lat_p50_ms, 1);
  ck_assert_double_eq_tol(rep->lat_p99_ms, rep->lat_p50_ms, 1e-9 * rep->lat_p50_ms);
  report_free(rep);
  unload(l);
}
END_TEST

START_TEST(test_des_paced_clients)
{
  /* offered / mean bitrate clients split by share; each class fetches round(rate x 6 s / 8 /
     * 2 MiB) requests per segment (3 Mb/s: 1.07 -> 1; 8 Mb/s: 2.86 -> 3), and the groups' request
     * rate x mean size is the offered load exactly */
  const char *sets[] = { "workload.offered=200 Gb/s",
                         "workload.bitrates=[{rate: 3 Mb/s, share: 50 %}, {rate: 8 Mb/s, share: 50 %}]", NULL };
  loaded *l = load("scenarios/rome-400g-nic-ktls.yaml", sets);
  g_autoptr(SimFluidSpec) spec = des_spec(&l->a, &l->info, l->m);
  ck_assert_uint_eq(spec->clients->len, 2);
  const SimFluidClients *g0 = &g_array_index(spec->clients, SimFluidClients, 0);
  const SimFluidClients *g1 = &g_array_index(spec->clients, SimFluidClients, 1);
  double n = 200e9 / 5.5e6; /* mean bitrate 5.5 Mb/s */
  ck_assert_int_eq(g0->count, (int)llround(n / 2));
  ck_assert_int_eq(g1->count, (int)llround(n / 2));
  ck_assert_int_eq(g0->burst, 1);
  ck_assert_int_eq(g1->burst, 3);
  double Bps = 0;
  for (guint i = 0; i < spec->clients->len; i++) {
    const SimFluidClients *g = &g_array_index(spec->clients, SimFluidClients, i);
    Bps += g->count * g->burst / (g->period_ns * 1e-9) * sim_dist_mean(&spec->request_bytes);
  }
  ck_assert_double_eq_tol(Bps, spec->offered_Bps, 1e-9 * spec->offered_Bps);
  ck_assert_double_eq_tol(g0->period_ns * 1e-9, 2.0 * 1048576 * 8 / 3e6, 1e-3); /* rate scaled by < 1e-4 */
  unload(l);
  /* arrivals: poisson has no clients */
  const char *pois[] = { "workload.offered=200 Gb/s", "workload.arrivals=poisson", NULL };
  l = load("scenarios/rome-400g-nic-ktls.yaml", pois);
  g_autoptr(SimFluidSpec) spec2 = des_spec(&l->a, &l->info, l->m);
  ck_assert_uint_eq(spec2->clients->len, 0);
  unload(l);
}
END_TEST

/* The rate precision knob (rate_precision, sim/flow.h), on two published boxes at EPS 1e-2,
 * 1 s simulated: it defers changes (so the run differs from the exact one) and stays within
 * issue 32's tolerances of the exact run: throughput and every resource's utilisation (at
 * least 1 %) within 0.5 %, p50 and p99 within the exact run's 95 % half-widths.  The report
 * records EPS (JSON rate_precision, the table's precision: line); the exact one does not. */
static const char *const precision_boxes[] = {
  "scenarios/rome-400g-nic-ktls.yaml",
  "scenarios/reference/milan2022_strict_disk_silo.yaml",
};

START_TEST(test_des_precision_tolerance)
{
  const char *exact_sets[] = { "duration=1 s", "warmup=0.1 s", NULL };
  const char *eps_sets[] = { "duration=1 s", "warmup=0.1 s", "rate_precision=1e-2", NULL };
  SimFluidResult *raw[2];
  GString *json[2] = { g_string_new(NULL), g_string_new(NULL) };
  GString *table[2] = { g_string_new(NULL), g_string_new(NULL) };
  int n_res = 0;
  for (int k = 0; k < 2; k++) {
    loaded *l = load(precision_boxes[_i], k ? eps_sets : exact_sets);
    ck_assert(l->info.rate_precision == (k ? 1e-2 : 0));
    AppReport *rep = des_run(&l->a, &l->info, l->m, &raw[k], NULL);
    ck_assert(rep);
    report_write(rep, APP_FMT_JSON, json[k]);
    report_write(rep, APP_FMT_TABLE, table[k]);
    n_res = l->m->n_res;
    report_free(rep);
    unload(l);
  }
  ck_assert(!strstr(json[0]->str, "rate_precision") && !strstr(table[0]->str, "precision:"));
  ck_assert_msg(strstr(json[1]->str, "\"rate_precision\" : 0.01"), "%s", json[1]->str);
  ck_assert(strstr(table[1]->str, "\nprecision:  rate_precision 0.01:"));
  const SimFluidResult *ex = raw[0], *ap = raw[1];
  ck_assert_uint_eq(ex->deferred, 0);
  ck_assert_uint_gt(ap->deferred, 100);
  ck_assert_uint_lt(ap->solves, ex->solves);
  ck_assert(ap->throughput_Bps.mean != ex->throughput_Bps.mean); /* the knob reached the DES */
  double dx = fabs(ap->throughput_Bps.mean - ex->throughput_Bps.mean) / ex->throughput_Bps.mean;
  ck_assert_msg(dx <= 5e-3, "throughput %g vs exact %g", ap->throughput_Bps.mean, ex->throughput_Bps.mean);
  for (int r = 0; r < n_res; r++) {
    double ue = ex->resources[r].utilization.mean, ua = ap->resources[r].utilization.mean;
    if (ue < 0.01) continue;
    ck_assert_msg(fabs(ua - ue) <= 5e-3 * ue, "resource %d: utilisation %g vs exact %g", r, ua, ue);
  }
  ck_assert_msg(fabs(ap->latency_p50_s - ex->latency_p50_s) <= ex->latency_p50_hw_s, "p50 %g vs exact %g +- %g",
                ap->latency_p50_s, ex->latency_p50_s, ex->latency_p50_hw_s);
  ck_assert_msg(fabs(ap->latency_p99_s - ex->latency_p99_s) <= ex->latency_p99_hw_s, "p99 %g vs exact %g +- %g",
                ap->latency_p99_s, ex->latency_p99_s, ex->latency_p99_hw_s);
  for (int k = 0; k < 2; k++) {
    sim_fluid_result_free(raw[k]);
    g_string_free(json[k], TRUE);
    g_string_free(table[k], TRUE);
  }
}
END_TEST

/* A precision under which no change is ever small enough (1e-6 on the 800G what-if, where one
 * request is ~3 % of a port) defers nothing and gives the exact run, bit for bit. */
START_TEST(test_des_precision_nothing_deferred_is_exact)
{
  const char *exact_sets[] = { "duration=0.3 s", "warmup=0.05 s", NULL };
  const char *eps_sets[] = { "duration=0.3 s", "warmup=0.05 s", "rate_precision=1e-6", NULL };
  SimFluidResult *raw[2];
  int n_res = 0;
  for (int k = 0; k < 2; k++) {
    loaded *l = load("scenarios/milan-800g-dlwm-off-network-centric.yaml", k ? eps_sets : exact_sets);
    AppReport *rep = des_run(&l->a, &l->info, l->m, &raw[k], NULL);
    ck_assert(rep);
    n_res = l->m->n_res;
    report_free(rep);
    unload(l);
  }
  ck_assert_uint_eq(raw[1]->deferred, 0);
  ck_assert_uint_eq(raw[1]->solves, raw[0]->solves);
  ck_assert_uint_eq(raw[1]->events, raw[0]->events);
  ck_assert(raw[1]->throughput_Bps.mean == raw[0]->throughput_Bps.mean);
  ck_assert(raw[1]->latency_p50_s == raw[0]->latency_p50_s && raw[1]->latency_p99_s == raw[0]->latency_p99_s);
  for (int r = 0; r < n_res; r++) ck_assert(raw[1]->resources[r].utilization.mean == raw[0]->resources[r].utilization.mean);
  sim_fluid_result_free(raw[0]);
  sim_fluid_result_free(raw[1]);
}
END_TEST

int main(void)
{
  gsl_set_error_handler_off();
  Suite *s = suite_create("appliance_des");
  TCase *tc = tcase_create("des");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_des_meets_bound, 0, G_N_ELEMENTS(unskewed));
  tcase_add_test(tc, test_des_open_load);
  tcase_add_test(tc, test_des_overload);
  tcase_add_test(tc, test_des_ci_holds_arrival_noise);
  tcase_add_test(tc, test_des_short_of_offered);
  tcase_add_test(tc, test_des_not_steady);
  tcase_add_test(tc, test_des_deterministic);
  tcase_add_test(tc, test_des_latency_low_load);
  tcase_add_test(tc, test_des_latency_spread_saturated);
  tcase_add_test(tc, test_des_latency_no_spread);
  tcase_add_test(tc, test_des_paced_clients);
  tcase_add_loop_test(tc, test_des_precision_tolerance, 0, G_N_ELEMENTS(precision_boxes));
  tcase_add_test(tc, test_des_precision_nothing_deferred_is_exact);
  suite_add_tcase(s, tc);
  return test_run_suite(s);
}
