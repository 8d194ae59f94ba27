/* tests/test_validate_loadlat.c — the DRAM loaded-latency line (validate/loadlat.h): its fit
 * through hand-made points with a known line, what host-profile.yaml takes from the points
 * (memory.latency and memory.loaded_latency, memory.h's curve, or the line when they make none),
 * and the probe's shape (no timing asserted). */
#include "tests/support/check_run.h"
#include <math.h>
#include <string.h>

#include "models/appliance/loader.h"
#include "models/appliance/demand.h"
#include "validate/loadlat.h"
#include "validate/profile.h"

/* Points on latency = 80 ns + 0.5 ns per GB/s: the line comes back exactly, and against a
 * 100 GB/s memory the model's load_latency is 0.5 x 100 = 50 ns. */
START_TEST(test_fit_known_line)
{
  ValLatPoint pts[] = { { .GBps = 0, .latency_ns = 80 },
                        { .GBps = 10, .latency_ns = 85 },
                        { .GBps = 20, .latency_ns = 90 },
                        { .GBps = 40, .latency_ns = 100 } };
  ValLatFit f;
  g_autoptr(GError) e = NULL;
  ck_assert(val_lat_fit(pts, 4, 100.0, &f, &e));
  ck_assert_double_eq_tol(f.idle_ns, 80, 1e-9);
  ck_assert_double_eq_tol(f.slope_ns_per_GBps, 0.5, 1e-12);
  ck_assert_double_eq_tol(f.load_latency_ns, 50, 1e-9);
  ck_assert_double_eq_tol(f.rms_ns, 0, 1e-9);
  /* symmetric scatter of +-1 ns at both ends: the same line, rms 1 ns */
  ValLatPoint noisy[] = { { .GBps = 0, .latency_ns = 81 },
                          { .GBps = 0, .latency_ns = 79 },
                          { .GBps = 40, .latency_ns = 101 },
                          { .GBps = 40, .latency_ns = 99 } };
  ck_assert(val_lat_fit(noisy, 4, 100.0, &f, &e));
  ck_assert_double_eq_tol(f.idle_ns, 80, 1e-9);
  ck_assert_double_eq_tol(f.slope_ns_per_GBps, 0.5, 1e-12);
  ck_assert_double_eq_tol(f.rms_ns, 1, 1e-9);
  /* latency falling with load (noise) is no queueing: load_latency 0 */
  ValLatPoint down[] = { { .GBps = 0, .latency_ns = 90 }, { .GBps = 30, .latency_ns = 87 } };
  ck_assert(val_lat_fit(down, 2, 100.0, &f, &e));
  ck_assert_double_eq_tol(f.slope_ns_per_GBps, -0.1, 1e-12);
  ck_assert(f.load_latency_ns == 0);
  /* errors: one point, no spread, no capacity */
  ck_assert(!val_lat_fit(pts, 1, 100.0, &f, &e));
  g_clear_error(&e);
  ValLatPoint flat[] = { { .GBps = 5, .latency_ns = 90 }, { .GBps = 5, .latency_ns = 95 } };
  ck_assert(!val_lat_fit(flat, 2, 100.0, &f, &e));
  ck_assert_msg(strstr(e->message, "same bandwidth") != NULL, "%s", e->message);
  g_clear_error(&e);
  ck_assert(!val_lat_fit(pts, 4, 0.0, &f, &e));
}
END_TEST

/* host-profile.yaml carries the probe's points as memory.h's curve: memory.latency = the
 * lightest-load point, memory.loaded_latency = the points with the profile's capacity (10 GB/s
 * without a microbenchmark) as u = 1. Points (0, 80), (4, 86), (8, 92) are u = 0, 0.4, 0.8 and
 * +0, +6, +12 ns; the last segment goes on to +15 ns at u = 1, the line 1.5 ns per GB/s x 10 GB/s.
 * Points whose latency falls with load make no curve: the least-squares line is written instead. */
START_TEST(test_profile_takes_the_curve)
{
  ValHostProfile p = { .clock_hz = 2.6e9, .cores = 2, .hash_cpb = 1.3, .record_bytes = 16384 };
  p.p[VAL_P_COPY] = 0.35;
  p.p[VAL_P_COPY_PC] = 0.20;
  p.p[VAL_P_STACK] = 0.30;
  p.p[VAL_P_CRYPTO_AES128] = 0.40;
  p.p[VAL_P_CRYPTO_AES256] = 0.47;
  p.p[VAL_P_CRYPTO_CHACHA] = 0.72;
  p.p[VAL_P_UTIL] = 0.93;
  p.p[VAL_P_CACHE] = 786432;
  ValLatPoint pts[] = { { .GBps = 0, .latency_ns = 80 }, { .GBps = 4, .latency_ns = 86 }, { .GBps = 8, .latency_ns = 92 } };
  ValLatFit f;
  ck_assert(val_lat_fit(pts, 3, val_host_memory_GBps(&p, NULL, NULL), &f, NULL));
  ck_assert_double_eq_tol(f.capacity_GBps, 10, 1e-12);
  p.dram_idle_ns = f.idle_ns;
  p.dram_slope_ns_per_GBps = f.slope_ns_per_GBps;
  p.dram_lat_points = 3;
  for (int i = 0; i < 3; i++) {
    p.dram_curve_GBps[i] = pts[i].GBps;
    p.dram_curve_ns[i] = pts[i].latency_ns;
  }
  g_autofree char *yaml = val_host_profile_yaml(&p, NULL, NULL, NULL);
  ck_assert_msg(strstr(yaml, "  latency: 80 ns") && strstr(yaml, "    capacity: 10 GB/s") &&
                    strstr(yaml, "      - {bandwidth: 8 GB/s, latency: 92 ns}") && !strstr(yaml, "load_latency:"),
                "%s", yaml);
  g_autoptr(GError) e = NULL;
  g_autoptr(SimConfDoc) doc = sim_conf_load_string(yaml, "host-profile.yaml", &e);
  ck_assert_msg(doc != NULL, "%s", e ? e->message : "");
  Appliance a;
  ck_assert_msg(appliance_from_conf(sim_conf_doc_root(doc), &a, NULL, &e), "%s", e ? e->message : "");
  ck_assert_double_eq_tol(a.mem.latency_ns, 80, 1e-9);
  ck_assert_double_eq_tol(mem_load_ns(&a.mem, 0.5), 7.5, 1e-9);
  ck_assert_double_eq_tol(mem_load_ns(&a.mem, 1.0), 15, 1e-9);
  g_autoptr(DemandModel) m = demand_build(&a, &e);
  ck_assert(m != NULL);
  int d = demand_find(m, "dram.node0");
  ck_assert_int_ge(d, 0);
  ck_assert_double_eq_tol(demand_wait_ns(&m->res[d], 0.5), 7.5, 1e-9);
  /* noise: latency falling at the middle point, so the line goes in instead (slope through the
   * three points 0.75 ns per GB/s x 10 GB/s = 7.5 ns) */
  p.dram_curve_ns[1] = 77;
  p.dram_slope_ns_per_GBps = 0.75;
  g_autofree char *noisy = val_host_profile_yaml(&p, NULL, NULL, NULL);
  ck_assert_msg(strstr(noisy, "  load_latency: 7.5 ns") && strstr(noisy, "latency falls") && !strstr(noisy, "loaded_latency:"),
                "%s", noisy);
  /* without the probe, memory keeps the schema's defaults: no latency is written */
  p.dram_lat_points = 0;
  g_autofree char *plain = val_host_profile_yaml(&p, NULL, NULL, NULL);
  ck_assert(strstr(plain, "\n  load_latency:") == NULL && strstr(plain, "\n  latency:") == NULL &&
            strstr(plain, "\n  loaded_latency:") == NULL);
}
END_TEST

/* The probe's shape on small buffers: the idle point first with no loading thread, then one
 * point per delay from the lightest load to the heaviest; every latency and bandwidth positive. */
START_TEST(test_probe_points)
{
  ValLatConfig c = { .load_threads = 1, .chase_bytes = 4u << 20, .load_bytes = 4u << 20, .seconds = 0.02, .seed = 3 };
  val_lat_default_delays(&c, TRUE);
  ck_assert_int_eq(c.n_delays, 2);
  ValLatCurve curve;
  g_autoptr(GError) e = NULL;
  ck_assert_msg(val_lat_measure(&c, &curve, &e), "%s", e ? e->message : "");
  ck_assert_int_eq(curve.n, 3);
  ck_assert_int_eq(curve.pt[0].load_threads, 0);
  ck_assert_int_eq(curve.pt[1].load_threads, 1);
  ck_assert_int_eq(curve.pt[1].delay, 200);
  ck_assert_int_eq(curve.pt[2].delay, 0);
  for (int i = 0; i < curve.n; i++) ck_assert(curve.pt[i].latency_ns > 0 && curve.pt[i].GBps > 0);
}
END_TEST

static Suite *suite(void)
{
  Suite *s = suite_create("validate_loadlat");
  TCase *tc = tcase_create("loadlat");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_fit_known_line);
  tcase_add_test(tc, test_profile_takes_the_curve);
  tcase_add_test(tc, test_probe_points);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return test_run_suite(suite());
}
