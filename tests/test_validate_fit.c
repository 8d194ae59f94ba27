/* tests/test_validate_fit.c — the analytic host model against hand-computed
 * values, and the GSL fit recovering known parameters from synthetic data. */
#include <check.h>
#include "tests/support/check_run.h"
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>

#include "models/appliance/loader.h"
#include "models/appliance/loopback.h"
#include "validate/fit.h"
#include "validate/pipeline.h"
#include "validate/predict.h"
#include "validate/profile.h"

static ValHostProfile truth(void)
{
  ValHostProfile p = { .clock_hz = 2.6e9, .cores = 2, .hash_cpb = 1.3, .record_bytes = 16384 };
  p.p[VAL_P_COPY] = 0.35;
  p.p[VAL_P_COPY_PC] = 0.55;
  p.p[VAL_P_MISS] = 0.40;
  p.p[VAL_P_CACHE] = 786432;
  p.p[VAL_P_XCORE_S] = 0.15;
  p.p[VAL_P_XCORE_C] = 0.15;
  p.p[VAL_P_STACK] = 0.30;
  p.p[VAL_P_RECORD] = 3000;
  p.p[VAL_P_CRYPTO_AES128] = 0.40;
  p.p[VAL_P_CRYPTO_AES256] = 0.47;
  p.p[VAL_P_CRYPTO_CHACHA] = 0.72;
  p.p[VAL_P_REQ_SERVER] = 20000;
  p.p[VAL_P_REQ_CLIENT] = 15000;
  p.p[VAL_P_SOFTIRQ] = 0.25;
  p.p[VAL_P_UTIL] = 0.95;
  return p;
}

START_TEST(test_model_closed_form)
{
  ValHostProfile p = truth();
  ValHostPrediction pr;
  /* plain sendfile, 1 MiB, one thread per side, both cores free */
  ValHostConfig c = { .mode = VAL_MODE_SENDFILE,
                      .server_threads = 1,
                      .client_threads = 1,
                      .connections = 8,
                      .bytes_per_req = 1048576,
                      .avail_cores = 2 };
  val_predict_host(&p, &c, &pr);
  double m1 = 1 / (1 + pow(786432.0 / 1048576, 4)); /* page-cache miss share of a 1 MiB file */
  double s = 0.30 + 0.15 + 20000.0 / 1048576, cc = 0.55 + 0.40 * m1 + 0.15 + 15000.0 / 1048576;
  ck_assert_double_eq_tol(pr.server_cpb, s, 1e-12);
  ck_assert_double_eq_tol(pr.client_cpb, cc, 1e-12);
  /* caps: server 1/s, client 1/c, cpu 2/(s+c+0.25): the client's copy of the missing file limits */
  double cap = MIN(1 / s, MIN(1 / cc, 2 / (s + cc + 0.25)));
  ck_assert(1 / cc < 2 / (s + cc + 0.25));
  ck_assert_double_eq_tol(pr.gbps, 0.95 * 2.6e9 * cap * 8 / 1e9, 1e-9);
  ck_assert_str_eq(pr.bottleneck, "client");
  /* user-space TLS, AES-256-GCM, 16 KiB, one core available */
  c.mode = VAL_MODE_USERSPACE;
  c.cipher = VAL_CIPHER_AES256GCM;
  c.bytes_per_req = 16384;
  c.avail_cores = 1;
  val_predict_host(&p, &c, &pr);
  /* one core's worth: the two ends share it, no cross-core term; the server's pread of the
   * file is a hot stream (no miss term on that stage) */
  /* records per request: the body's, the head's (16384 + 160 B overflow one) and the request's */
  s = 0.55 + 0.35 + 0.47 + 0.30 + 3 * 3000.0 / 16384 + 20000.0 / 16384;
  cc = 2 * 0.35 + 0.47 + 3 * 3000.0 / 16384 + 15000.0 / 16384;
  ck_assert_double_eq_tol(pr.server_cpb, s, 1e-12);
  ck_assert_double_eq_tol(pr.client_cpb, cc, 1e-12);
  ck_assert_double_eq_tol(pr.gbps, 0.95 * 2.6e9 / (s + cc + 0.25) * 8 / 1e9, 1e-9);
  ck_assert_str_eq(pr.bottleneck, "cpu");
  /* kTLS engaged: no user-space copies on the server */
  c.mode = VAL_MODE_SENDFILE_KTLS;
  c.ktls = TRUE;
  val_predict_host(&p, &c, &pr);
  ck_assert_double_eq_tol(pr.server_cpb, 0.47 + 0.30 + 3 * 3000.0 / 16384 + 20000.0 / 16384, 1e-12);
  /* the client's hash check adds its cost */
  c.verify_hash = TRUE;
  ValHostPrediction pr2;
  val_predict_host(&p, &c, &pr2);
  ck_assert_double_eq_tol(pr2.client_cpb - pr.client_cpb, 1.3, 1e-12);
}
END_TEST

/* Synthetic observations of the model itself over a grid of configurations. */
static int make_obs(const ValHostProfile *p, ValFitObs *obs, double noise)
{
  int n = 0;
  const ValServerMode modes[] = { VAL_MODE_SENDFILE, VAL_MODE_USERSPACE };
  const ValCipher ciphers[] = { VAL_CIPHER_AES128GCM, VAL_CIPHER_AES256GCM, VAL_CIPHER_CHACHA20 };
  const double sizes[] = { 16384, 262144, 1048576, 4194304 };
  const int thr[][2] = { { 1, 1 }, { 2, 2 }, { 2, 1 } };
  const double avail[] = { 2.0, 1.3 };
  uint32_t rng = 12345;
  for (int m = 0; m < 2; m++)
    for (int ci = 0; ci < (m ? 3 : 1); ci++)
      for (int si = 0; si < 4; si++)
        for (int ti = 0; ti < 3; ti++) {
          ValFitObs *o = &obs[n++];
          o->cfg = (ValHostConfig){ .mode = modes[m],
                                    .cipher = ciphers[ci],
                                    .version = VAL_TLS_13,
                                    .server_threads = thr[ti][0],
                                    .client_threads = thr[ti][1],
                                    .connections = 16,
                                    .bytes_per_req = sizes[si],
                                    .avail_cores = avail[(si + ti) % 2] };
          ValHostPrediction pr;
          val_predict_host(p, &o->cfg, &pr);
          double e[4];
          for (int k = 0; k < 4; k++) {
            rng = rng * 1664525u + 1013904223u;
            e[k] = noise * (((double)(rng >> 8) / (double)(1u << 24)) * 2 - 1);
          }
          o->server_cpb = pr.server_cpb * (1 + e[0]);
          o->client_cpb = pr.client_cpb * (1 + e[1]);
          o->softirq_cpb = pr.softirq_cpb * (1 + e[2]);
          o->gbps = pr.gbps * (1 + e[3]);
          o->sd_server = 0.03 * o->server_cpb;
          o->sd_client = 0.03 * o->client_cpb;
          o->sd_softirq = 0.03 * o->softirq_cpb;
          o->sd_gbps = 0.03 * o->gbps;
        }
  return n;
}

static void fit_and_check(double noise, double tol_rel)
{
  ValHostProfile t = truth(), start = truth(), out;
  for (int i = 0; i < VAL_P_COUNT; i++) start.p[i] *= (i % 2) ? 1.6 : 0.6;
  start.p[VAL_P_UTIL] = 0.8;
  ValFitObs obs[64];
  int n = make_obs(&t, obs, noise);
  ValFitPrior pri[3] = { { VAL_P_CRYPTO_AES128, 0.40, 0.02, FALSE },
                         { VAL_P_CRYPTO_AES256, 0.47, 0.02, FALSE },
                         { VAL_P_CRYPTO_CHACHA, 0.72, 0.03, FALSE } };
  ValFitStats st;
  g_autoptr(GError) err = NULL;
  ck_assert_msg(val_fit_host(obs, n, pri, 3, &start, NULL, &out, &st, &err), "%s", err ? err->message : "");
  ck_assert_int_eq(st.npar, VAL_P_COUNT);
  ck_assert_int_eq(st.nobs, 4 * n + 3);
  for (int i = 0; i < VAL_P_COUNT; i++) {
    double rel = fabs(out.p[i] - t.p[i]) / t.p[i];
    ck_assert_msg(rel < tol_rel, "%s: fitted %g true %g (rel %g)", val_param_name((ValParam)i), out.p[i], t.p[i], rel);
    ck_assert(out.fitted[i]);
    ck_assert(out.se[i] > 0 && isfinite(out.se[i]));
  }
  if (noise == 0) ck_assert(st.chi2_dof < 1e-6);
}

START_TEST(test_fit_recovers_exact)
{
  fit_and_check(0.0, 0.01);
}
END_TEST

START_TEST(test_fit_recovers_noisy)
{
  fit_and_check(0.005, 0.05);
}
END_TEST

START_TEST(test_fit_fixed_and_unidentified)
{
  /* only plain-sendfile data: crypto and record parameters are untouched and stay fixed */
  ValHostProfile t = truth(), start = truth(), out;
  start.p[VAL_P_COPY_PC] = 0.7;
  ValFitObs obs[64], plain[64];
  int n = make_obs(&t, obs, 0), m = 0;
  for (int i = 0; i < n; i++)
    if (obs[i].cfg.mode == VAL_MODE_SENDFILE) plain[m++] = obs[i];
  gboolean fixed[VAL_P_COUNT] = { FALSE };
  fixed[VAL_P_UTIL] = TRUE;
  ValFitStats st;
  ck_assert(val_fit_host(plain, m, NULL, 0, &start, fixed, &out, &st, NULL));
  ck_assert(!out.fitted[VAL_P_CRYPTO_CHACHA] && !out.fitted[VAL_P_RECORD] && !out.fitted[VAL_P_UTIL]);
  ck_assert(out.fitted[VAL_P_MISS] && out.fitted[VAL_P_XCORE_S] && out.fitted[VAL_P_XCORE_C]);
  ck_assert(out.fitted[VAL_P_COPY_PC] && !out.fitted[VAL_P_COPY]);
  ck_assert_double_eq_tol(out.p[VAL_P_COPY_PC], 0.55, 0.55 * 0.01);
  ck_assert_double_eq(out.p[VAL_P_CRYPTO_CHACHA], start.p[VAL_P_CRYPTO_CHACHA]);
  /* too little data is an error */
  g_autoptr(GError) err = NULL;
  ck_assert(!val_fit_host(plain, 1, NULL, 0, &start, NULL, &out, &st, &err));
  ck_assert(err != NULL);
}
END_TEST

START_TEST(test_fit_lower_bound)
{
  /* exact plain-sendfile data: a bound below the true stack_cpb (0.30) changes nothing and
   * is not a residual; a bound above it (0.5, sd 1e-4) holds the fit near 0.5 */
  ValHostProfile t = truth(), start = truth(), out0, out1;
  ValFitObs obs[64], plain[64];
  int n = make_obs(&t, obs, 0), m = 0;
  for (int i = 0; i < n; i++)
    if (obs[i].cfg.mode == VAL_MODE_SENDFILE) plain[m++] = obs[i];
  gboolean fixed[VAL_P_COUNT] = { FALSE };
  fixed[VAL_P_UTIL] = TRUE;
  ValFitStats st0, st1;
  ValFitPrior lo = { VAL_P_STACK, 0.0, 0.01, TRUE };
  ck_assert(val_fit_host(plain, m, &lo, 1, &start, fixed, &out0, &st0, NULL));
  ck_assert_double_eq_tol(out0.p[VAL_P_STACK], 0.30, 0.003);
  ck_assert_int_eq(st0.nobs, 4 * m);
  ValFitPrior hi = { VAL_P_STACK, 0.5, 1e-4, TRUE };
  ck_assert(val_fit_host(plain, m, &hi, 1, &start, fixed, &out1, &st1, NULL));
  ck_assert_msg(out1.p[VAL_P_STACK] > 0.49, "stack %g", out1.p[VAL_P_STACK]);
  ck_assert(st1.chi2 > 1);
}
END_TEST

/* Measurements that ask for a utilisation above 1 (the runs went faster than clock x cores /
 * measured cycles per byte, as on a VM whose nominal clock is below the one it runs at: the
 * model's own predictions at u = 1.15 with every cost as the truth): the unconstrained fit
 * gave u = 1.15, a host-profile.yaml the appliance loader refuses (loopback.utilisation must
 * be in (0, 1]).  The fit keeps u inside its range, flags it at the bound, and the written
 * profile loads with the value in range. */
START_TEST(test_fit_utilisation_stays_in_range)
{
  const double asks[] = { 1.15, 1.009, 1.5 };
  for (size_t a = 0; a < G_N_ELEMENTS(asks); a++) {
    ValHostProfile t = truth(), start = truth(), out;
    t.p[VAL_P_UTIL] = asks[a];
    start.p[VAL_P_UTIL] = 0.95;
    ValFitObs obs[64];
    int n = make_obs(&t, obs, 0.0);
    ValFitPrior pri[3] = { { VAL_P_CRYPTO_AES128, 0.40, 0.02, FALSE },
                           { VAL_P_CRYPTO_AES256, 0.47, 0.02, FALSE },
                           { VAL_P_CRYPTO_CHACHA, 0.72, 0.03, FALSE } };
    ValFitStats st;
    g_autoptr(GError) err = NULL;
    ck_assert_msg(val_fit_host(obs, n, pri, 3, &start, NULL, &out, &st, &err), "%s", err ? err->message : "");
    double u = out.p[VAL_P_UTIL];
    ck_assert_msg(u > 0 && u <= 1.0, "asked %g: fitted utilisation %.9g outside (0, 1]", asks[a], u);
    /* on the edge, flagged; the data are exact, so the edge is as close as the solver gets */
    ck_assert_msg(u > 0.999, "asked %g: utilisation %.9g, not at the edge", asks[a], u);
    ck_assert(out.fitted[VAL_P_UTIL] && out.at_bound[VAL_P_UTIL]);
    ck_assert(isfinite(out.se[VAL_P_UTIL]) && out.se[VAL_P_UTIL] >= 0);
    /* the measurements cannot be met inside the range: chi2 > 0 */
    ck_assert(st.chi2 > 1e-6);
    /* the written profile loads through the appliance loader, from a file, with u in range */
    g_autofree char *yaml = val_host_profile_yaml(&out, NULL, NULL, &st);
    ck_assert_msg(val_host_profile_check(yaml, &err), "%s", err ? err->message : "");
    g_autofree char *dir = g_dir_make_tmp("ocasim-fit-XXXXXX", NULL);
    ck_assert(dir != NULL);
    g_autofree char *path = g_build_filename(dir, "host-profile.yaml", NULL);
    ck_assert(g_file_set_contents(path, yaml, -1, NULL));
    Appliance app;
    AppScenarioInfo info;
    ck_assert_msg(appliance_load_file(path, NULL, &app, &info, &err), "%s", err ? err->message : "");
    ck_assert(app.lo.utilisation > 0 && app.lo.utilisation <= 1.0);
    ck_assert_double_eq_tol(app.lo.utilisation, u, 1e-6);
    ck_assert(strstr(yaml, "at the edge of its range") != NULL);
    app_scenario_info_clear(&info);
    g_unlink(path);
    g_rmdir(dir);
  }
  /* inside the range the transformed coordinate changes nothing: exact data at u = 0.7 give
   * u = 0.7, not flagged */
  ValHostProfile t = truth(), start = truth(), out;
  t.p[VAL_P_UTIL] = 0.7;
  ValFitObs obs[64];
  int n = make_obs(&t, obs, 0.0);
  ValFitStats st;
  ck_assert(val_fit_host(obs, n, NULL, 0, &start, NULL, &out, &st, NULL));
  ck_assert_double_eq_tol(out.p[VAL_P_UTIL], 0.7, 1e-6);
  ck_assert(!out.at_bound[VAL_P_UTIL]);
  ck_assert(st.chi2_dof < 1e-6);
}
END_TEST

/* The fitter's ranges are the loader's: loopback_schema's row of utilisation (min 0 exclusive,
 * max 1 inclusive) and of every cost (min 0 inclusive, no max). */
START_TEST(test_param_range_is_the_schema)
{
  for (int p = 0; p < VAL_P_COUNT; p++) {
    double lo = -1, hi = -1;
    ck_assert(val_param_range((ValParam)p, &lo, &hi));
    const SimConfField *f = NULL;
    for (const SimConfField *k = loopback_schema; k->key; k++)
      if (!strcmp(k->key, val_param_name((ValParam)p))) f = k;
    ck_assert_msg(f != NULL && f->min, "%s", val_param_name((ValParam)p));
    ck_assert_double_eq(lo, g_ascii_strtod(f->min, NULL)); /* "0" */
    if (p == VAL_P_UTIL) {
      ck_assert(f->max && f->min_exclusive && !f->max_exclusive);
      ck_assert_double_eq(hi, g_ascii_strtod(f->max, NULL));
    } else {
      ck_assert_msg(!f->min_exclusive && isinf(hi), "%s", val_param_name((ValParam)p));
      ck_assert_msg(!f->max || p == VAL_P_CACHE, "%s", val_param_name((ValParam)p)); /* the cache's 1 PiB: a sanity bound */
    }
  }
  ck_assert(!val_param_range(VAL_P_COUNT, NULL, NULL));
}
END_TEST

/* A cost the runs ask to be negative ends at 0, flagged at_bound, never below: exact data of a
 * host whose stack_cpb is -0.05 (the model's own predictions: what a collinear term can make the
 * runs say); the unconstrained fit (before) returned -0.05, which validate wrote into
 * host-costs.yaml. The other costs are still recovered (the sendfile runs pin the rest). */
START_TEST(test_fit_cost_not_negative)
{
  ValHostProfile t = truth(), start = truth(), out;
  t.p[VAL_P_STACK] = -0.05;
  ValFitObs obs[64];
  int n = make_obs(&t, obs, 0);
  gboolean fixed[VAL_P_COUNT] = { FALSE };
  fixed[VAL_P_UTIL] = TRUE;
  fixed[VAL_P_CACHE] = TRUE;
  ValFitStats st;
  GError *err = NULL;
  ck_assert_msg(val_fit_host(obs, n, NULL, 0, &start, fixed, &out, &st, &err), "%s", err ? err->message : "");
  ck_assert_msg(out.p[VAL_P_STACK] >= 0 && out.p[VAL_P_STACK] < 1e-4, "stack %g", out.p[VAL_P_STACK]);
  ck_assert(out.at_bound[VAL_P_STACK]);
  ck_assert(out.se[VAL_P_STACK] < 1e-3);
  for (int p = 0; p < VAL_P_COUNT; p++) ck_assert_msg(out.p[p] >= 0, "%s %g", val_param_name((ValParam)p), out.p[p]);
  /* a cost well inside its range is not at the bound, and a truth of exactly 0 is found at 0 */
  ck_assert(!out.at_bound[VAL_P_COPY_PC] && !out.at_bound[VAL_P_CRYPTO_AES128]);
  ValHostProfile z = truth();
  z.p[VAL_P_XCORE_S] = 0.0;
  n = make_obs(&z, obs, 0);
  ck_assert(val_fit_host(obs, n, NULL, 0, &start, fixed, &out, &st, NULL));
  ck_assert_msg(out.p[VAL_P_XCORE_S] >= 0 && out.p[VAL_P_XCORE_S] < 1e-3, "xcore_s %g", out.p[VAL_P_XCORE_S]);
  ck_assert_double_eq_tol(out.p[VAL_P_STACK], 0.30, 3e-3);
}
END_TEST

/* the busier side's share of the cores its threads can use: pinned sets cap the threads,
 * connections cap them too; the 4 MiB plain run of the quick table is not CPU bound */
START_TEST(test_busiest_share)
{
  ValHostConfig c = {
    .server_threads = 1, .client_threads = 1, .connections = 8, .pinned = TRUE, .server_cpus = 1, .client_cpus = 1
  };
  ValRunSample m = { .server_util = 0.68, .client_util = 0.65 };
  ck_assert_double_eq_tol(val_busiest_share(&c, &m, 2), 0.68, 1e-12);
  ck_assert(val_busiest_share(&c, &m, 2) < VAL_CPU_BOUND);
  m.client_util = 0.98;
  ck_assert_double_eq_tol(val_busiest_share(&c, &m, 2), 0.98, 1e-12);
  /* two server threads on one pinned CPU (s2c2 on 2 CPUs) can use one core */
  c.server_threads = c.client_threads = 2;
  m = (ValRunSample){ .server_util = 0.97, .client_util = 0.5 };
  ck_assert_double_eq_tol(val_busiest_share(&c, &m, 2), 0.97, 1e-12);
  /* unpinned, 2 threads a side on 4 cores: 2 cores each */
  c.pinned = FALSE;
  ck_assert_double_eq_tol(val_busiest_share(&c, &m, 4), 0.485, 1e-12);
  /* pinned, a tenant took 0.4 of the server's CPU: 0.55 busy of the 0.6 left is CPU bound */
  c = (ValHostConfig){ .server_threads = 1,
                       .client_threads = 1,
                       .connections = 8,
                       .pinned = TRUE,
                       .server_cpus = 1,
                       .client_cpus = 1,
                       .server_free_cores = 0.6 };
  m = (ValRunSample){ .server_util = 0.55, .client_util = 0.4 };
  ck_assert_double_eq_tol(val_busiest_share(&c, &m, 2), 0.55 / 0.6, 1e-12);
  ck_assert(val_busiest_share(&c, &m, 2) >= VAL_CPU_BOUND);
  c = (ValHostConfig){ .server_threads = 2, .client_threads = 2, .connections = 8, .server_cpus = 1, .client_cpus = 1 };
  m = (ValRunSample){ .server_util = 0.97, .client_util = 0.5 };
  /* one connection keeps one thread busy */
  c.connections = 1;
  ck_assert_double_eq_tol(val_busiest_share(&c, &m, 4), 0.97, 1e-12);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("validate_fit");
  TCase *tc = tcase_create("fit");
  tcase_add_test(tc, test_model_closed_form);
  tcase_add_test(tc, test_fit_recovers_exact);
  tcase_add_test(tc, test_fit_recovers_noisy);
  tcase_add_test(tc, test_fit_fixed_and_unidentified);
  tcase_add_test(tc, test_fit_lower_bound);
  tcase_add_test(tc, test_fit_cost_not_negative);
  tcase_add_test(tc, test_busiest_share);
  tcase_add_test(tc, test_fit_utilisation_stays_in_range);
  tcase_add_test(tc, test_param_range_is_the_schema);
  suite_add_tcase(s, tc);
  return test_run_suite(s);
}
