/* tests/test_pagecache.c — the page cache and RAM sizing (models/appliance/pagecache.h, models/appliance/ram.h):
 * Che's approximation against a simulated LRU cache and its closed forms, the demand a hit
 * takes off the drives and DRAM, the RAM needed derived by hand, the over-RAM flag, located
 * errors of the new keys, and the default (off) leaving every report as it was. */
#include <check.h>
#include "tests/support/check_run.h"
#include "tests/support/ocasim_run.h"
#include <math.h>
#include <glib/gstdio.h>
#include <string.h>

#include "models/modes/report.h"
#include "models/appliance/ram.h"
#include "sim/dist.h"
#include "sim/gsl_autoptr.h"
#include "sim/rng.h"

#define GIB 1073741824.0
#define KIB 1024.0

/* ---- Che against a simulated LRU cache ---------------------------------------------------- */

/* Hit ratio of an LRU cache of `cap` equal-sized titles out of n under Zipf(s) requests
 * (independent reference model), measured over `requests` after `warmup` requests, seeded. A
 * doubly linked list over the titles, most recent first. */
static double lru_sim(int n, double s, int cap, long warmup, long requests, guint64 seed)
{
  g_autoptr(GError) e = NULL;
  g_autoptr(SimZipf) z = sim_zipf_new((size_t)n, s, &e);
  ck_assert_msg(z != NULL, "%s", e ? e->message : "");
  g_autoptr(gsl_rng) rng = sim_rng_new(seed, "test.lru");
  g_autofree int *prev = g_new(int, n + 1), *next = g_new(int, n + 1);
  g_autofree gboolean *in = g_new0(gboolean, n + 1);
  int head = 0, tail = 0, count = 0; /* 0: none */
  long hits = 0;
  for (long q = 0; q < warmup + requests; q++) {
    int i = (int)sim_zipf_sample(z, rng);
    if (in[i]) {
      if (q >= warmup) hits++;
      if (head == i) continue;
      /* unlink, then to the front */
      next[prev[i]] = next[i];
      if (next[i]) prev[next[i]] = prev[i];
      if (tail == i) tail = prev[i];
    } else {
      in[i] = TRUE;
      if (++count > cap) { /* evict the least recently used */
        int t = tail;
        in[t] = FALSE;
        tail = prev[t];
        if (tail) next[tail] = 0;
        if (head == t) head = 0;
        count--;
      }
    }
    prev[i] = 0;
    next[i] = head;
    if (head) prev[head] = i;
    head = i;
    if (!tail) tail = i;
  }
  return (double)hits / (double)requests;
}

START_TEST(test_che_vs_simulated_lru)
{
  const int n = 1000;
  const double s = 0.8;
  const int caps[] = { 10, 50, 200 };
  for (size_t k = 0; k < G_N_ELEMENTS(caps); k++) {
    double che = pc_che_hit_ratio(n, s, caps[k], NULL);
    double sim = lru_sim(n, s, caps[k], 200000, 2000000, 42 + k);
    fprintf(stderr, "LRU N=%d s=%.1f C=%d: Che %.4f, simulated %.4f (diff %+.4f)\n", n, s, caps[k], che, sim, che - sim);
    ck_assert_msg(fabs(che - sim) < 0.02, "C=%d: Che %.4f vs LRU %.4f", caps[k], che, sim);
  }
}
END_TEST

START_TEST(test_che_closed_forms)
{
  double t;
  /* a cache that holds the catalogue hits always; an empty one never */
  ck_assert_double_eq(pc_che_hit_ratio(1000, 0.8, 1000, &t), 1.0);
  ck_assert(isinf(t));
  ck_assert_double_eq(pc_che_hit_ratio(1000, 0.8, 5000, NULL), 1.0);
  ck_assert_double_eq(pc_che_hit_ratio(1000, 0.8, 0, &t), 0.0);
  ck_assert_double_eq(t, 0.0);
  /* uniform popularity: every title's occupancy is C / N, so h = C / N */
  ck_assert_double_eq_tol(pc_che_hit_ratio(1000, 0.0, 250, NULL), 0.25, 1e-9);
  ck_assert_double_eq_tol(pc_che_hit_ratio(100000, 0.0, 2500, NULL), 0.025, 1e-8); /* through the integral tail */
  /* the occupancies are in [0, 1] and sum to C: at most the top C titles' popularity mass */
  for (int c = 1; c <= 400; c *= 2) {
    double mass = sim_zipf_harmonic((size_t)c, 0.8) / sim_zipf_harmonic(1000, 0.8);
    double h = pc_che_hit_ratio(1000, 0.8, c, &t);
    ck_assert_msg(h > 0 && h < mass, "C=%d: h %.5f, top-C mass %.5f", c, h, mass);
    /* T_C solves sum (1 - exp(-p_i T)) = C */
    double occ = 0, hh = sim_zipf_harmonic(1000, 0.8);
    for (int i = 1; i <= 1000; i++) occ += -expm1(-sim_zipf_weight((size_t)i, 0.8) / hh * t);
    ck_assert_double_eq_tol(occ, c, 1e-8 * c);
  }
  /* a tiny cache: h -> C sum p_i^2 (one cached title hits when it comes twice in a row) */
  double hh = sim_zipf_harmonic(1000, 0.8), p2 = 0;
  for (int i = 1; i <= 1000; i++) p2 += pow(sim_zipf_weight((size_t)i, 0.8) / hh, 2);
  double c = 1e-4;
  ck_assert_double_eq_tol(pc_che_hit_ratio(1000, 0.8, c, NULL) / (c * p2), 1.0, 1e-3);
}
END_TEST

/* The integral tail beyond PC_EXACT_TITLES against the exact sums. */
START_TEST(test_che_tail_integral)
{
  const int ns[] = { 100000, 400000 };
  const double ss[] = { 0.6, 0.8, 1.0, 1.2 };
  for (size_t i = 0; i < G_N_ELEMENTS(ns); i++)
    for (size_t j = 0; j < G_N_ELEMENTS(ss); j++) {
      double c = ns[i] / 500.0;
      double ta, te;
      double approx = pc_che_hit_ratio(ns[i], ss[j], c, &ta), exact = pc_che_hit_ratio_exact(ns[i], ss[j], c, &te);
      ck_assert_msg(fabs(approx - exact) < 1e-6, "N=%d s=%g: %.9f vs exact %.9f", ns[i], ss[j], approx, exact);
      ck_assert_double_eq_tol(ta / te, 1.0, 1e-5);
    }
}
END_TEST

/* ---- demand -------------------------------------------------------------------------------- */

static Appliance *load(const char *file, const char *const *sets, AppScenarioInfo *info)
{
  Appliance *a = g_new0(Appliance, 1);
  g_autoptr(GError) e = NULL;
  ck_assert_msg(appliance_load_file(file, sets, a, info, &e), "%s: %s", file, e ? e->message : "");
  return a;
}

/* Sum of the idle total demand per served byte over the resources of a kind (drives only when
 * drive_only: PCIe links of drives). */
static double kind_total(const DemandModel *m, ResKind kind, gboolean drive_only)
{
  double s = 0;
  for (int r = 0; r < m->n_res; r++)
    if (m->res[r].kind == kind && (!drive_only || m->res[r].drive >= 0)) s += m->base_total[r];
  return s;
}

static void check_scaled(const char *file, const char *const *off_sets, const char *const *on_sets)
{
  g_autofree Appliance *a0 = load(file, off_sets, NULL), *a1 = load(file, on_sets, NULL);
  g_autoptr(GError) e = NULL;
  g_autoptr(DemandModel) m0 = demand_build(a0, &e);
  g_autoptr(DemandModel) m1 = demand_build(a1, &e);
  ck_assert(m0 && m1);
  double h = pagecache_hit_ratio(a1, m1->sized_Bps); /* the cache the model was built with */
  ck_assert(h > 0.01 && h < 0.99);
  ck_assert_double_eq(pagecache_hit_ratio(a0, m0->sized_Bps), 0.0);
  ck_assert_int_eq(m0->n_res, m1->n_res);
  ck_assert_int_eq(m0->n_class, m1->n_class);
  /* NVMe bytes per served byte: (1 - h) x the no-cache value, class by class */
  for (int k = 0; k < m0->n_class; k++)
    for (int r = 0; r < m0->n_res; r++) {
      const DmResource *d = &m0->res[r];
      gboolean drive = ((d->kind == RK_NVME || d->kind == RK_PCIE) && d->drive >= 0) || strcmp(d->name, "sendfile.workers") == 0;
      double want = drive ? (1 - h) * m0->cls[k].base[r] : m0->cls[k].base[r];
      if (d->kind == RK_DRAM || d->kind == RK_FABRIC || d->kind == RK_CPU) continue; /* below */
      ck_assert_msg(fabs(m1->cls[k].base[r] - want) <= 1e-12 * fabs(want) + 1e-300, "%s %s: %g vs %g", m0->cls[k].name, d->name,
                    m1->cls[k].base[r], want);
    }
  double nv0 = kind_total(m0, RK_NVME, FALSE), nv1 = kind_total(m1, RK_NVME, FALSE);
  ck_assert_double_eq_tol(nv1, (1 - h) * nv0, 1e-12 * nv0);
  ck_assert_double_eq_tol(kind_total(m1, RK_PCIE, TRUE), (1 - h) * kind_total(m0, RK_PCIE, TRUE), 1e-12);
  /* DRAM: the disk DMA write (1 byte per served byte) is skipped on a hit, nothing else */
  double dr0 = kind_total(m0, RK_DRAM, FALSE), dr1 = kind_total(m1, RK_DRAM, FALSE);
  ck_assert_double_eq_tol(dr1, dr0 - h, 1e-12 * dr0);
  /* the read/write mix follows: h bytes fewer writes */
  double wr0 = 0, wr1 = 0;
  for (int r = 0; r < m0->n_res; r++)
    if (m0->res[r].kind == RK_DRAM) {
      wr0 += m0->res[r].wr;
      wr1 += m1->res[r].wr;
    }
  ck_assert_double_eq_tol(wr1, wr0 - h, 1e-12 * wr0);
}

START_TEST(test_demand_hit_skips_drive_and_dma)
{
  const char *off[] = { NULL };
  const char *on[] = { "software.page_cache=lru", "ram.page_cache=200 GiB", NULL };
  check_scaled("scenarios/rome-400g-nic-ktls.yaml", off, on);
  check_scaled("scenarios/rome-400g-sync-sendfile.yaml", off, on); /* sendfile.workers too */
  const char *on_auto[] = { "software.page_cache=lru", "memory.installed=512 GiB", NULL };
  check_scaled("scenarios/genoa-400gbe-sw-ktls.yaml", off, on_auto);
}
END_TEST

/* A cache that holds the whole catalogue takes every byte off the drives. */
START_TEST(test_demand_all_hits)
{
  const char *on[] = { "software.page_cache=lru", "ram.page_cache=1 TiB", "workload.titles=100", "ram.title_size=1 GB", NULL };
  g_autofree Appliance *a = load("scenarios/rome-400g-nic-ktls.yaml", on, NULL);
  ck_assert_double_eq(pagecache_hit_ratio(a, 0.0), 1.0);
  ck_assert_double_eq(pagecache_hit_ratio(a, 100e9), 1.0); /* a given ram.page_cache: whatever the load */
  g_autoptr(GError) e = NULL;
  g_autoptr(DemandModel) m = demand_build(a, &e);
  ck_assert(m);
  ck_assert_double_eq(kind_total(m, RK_NVME, FALSE), 0.0);
  ck_assert_double_eq(kind_total(m, RK_PCIE, TRUE), 0.0);
}
END_TEST

/* ---- RAM ----------------------------------------------------------------------------------- */

/* The bound's report of a scenario with overrides (no `reference:` block, so nothing borrowed). */
static AppReport *bound_report(const char *file, const char *const *sets)
{
  AppScenarioInfo info = { 0 };
  g_autofree Appliance *a = load(file, sets, &info);
  ck_assert(!info.ref.present);
  g_autoptr(GError) e = NULL;
  g_autoptr(DemandModel) m = demand_build(a, &e);
  ck_assert_msg(m != NULL, "%s", e ? e->message : "");
  g_autoptr(BoundResult) b = bound_eval(a, m, a->wl.offered_gbps);
  AppReport *r = report_from_bound(a, &info, m, b);
  app_scenario_info_clear(&info);
  return r;
}

/* rome-400g-nic-ktls at 200 Gb/s offered (below its 373 Gb/s X*): mean bitrate 0.2 x 1.5 + 0.6 x 5
 * + 0.2 x 15 = 6.3 Mb/s, so n = 200e9 / 6.3e6 = 31746.03 connections, every one on NIC kTLS;
 * X = 25e9 B/s; the slowest drive (WD SN720: 90 us, 3.4 GB/s) reads 256 KiB in
 * 90e-6 + 262144 / 3.4e9 = 167.10 us. Each connection's TLS context also lives in host memory for
 * the NIC (nics[].tls_context_bytes, 128 B).
 *   needed = 100 GiB + n (64 KiB + 8 KiB + 128 B) + X (1 - h) 167.10 us + 8 GiB
 *          = 107374182400 + 2344634921 + 4177.5e3 (1 - h) + 8589934592 B */
START_TEST(test_ram_by_hand)
{
  const char *sets[] = { "workload.offered=200 Gb/s", "software.page_cache=lru", "ram.page_cache=100 GiB",
                         "memory.installed=256 GiB", NULL };
  g_autoptr(AppReport) r = bound_report("scenarios/rome-400g-nic-ktls.yaml", sets);
  const RamReport *o = &r->ram;
  double h = pc_che_hit_ratio(100000, 0.8, 100 * GIB / 2e9, NULL);
  ck_assert(o->shown && o->cache_on && !o->over);
  ck_assert_double_eq_tol(o->hit_ratio, h, 1e-15);
  ck_assert_double_eq_tol(o->connections, 200e9 / 6.3e6, 1e-6);
  ck_assert_double_eq_tol(o->cache_bytes, 100 * GIB, 0.5);
  ck_assert_double_eq_tol(o->cached_titles, 53.6870912, 1e-6);
  ck_assert_double_eq_tol(o->sockbuf_bytes, 31746.031746 * 64 * KIB, 1.0);
  ck_assert_double_eq_tol(o->tls_bytes, 31746.031746 * (8 * KIB + 128), 1.0);
  ck_assert_double_eq(o->userbuf_bytes, 0.0); /* sendfile: no user buffer */
  double t_read = 90e-6 + 262144 / 3.4e9;
  ck_assert_double_eq_tol(o->inflight_bytes, 25e9 * (1 - h) * t_read, 1e-3 * 25e9 * t_read);
  double want = 107374182400.0 + 2344634921.0 + 25e9 * t_read * (1 - h) + 8589934592.0;
  ck_assert_double_eq_tol(o->needed_bytes, want, 1e-6 * want);
  ck_assert_double_eq(o->installed_bytes, 256 * GIB);
}
END_TEST

/* What ram.page_cache 0 leaves the cache on rome-400g-nic-ktls serving x B/s: memory.installed
 * (256 GiB) less the 8 GiB reserve, x 8 / 6.3 Mb/s connections x (64 + 8) KiB and the reads in
 * flight with no hits, x x t_read (t_read = 90 us + 256 KiB / 3.4 GB/s, the WD SN720). */
static double auto_cache_bytes(double x_Bps)
{
  double n = x_Bps * 8 / 6.3e6, t_read = 90e-6 + 262144 / 3.4e9;
  return 256 * GIB - 8 * GIB - n * (72 * KIB + 128) - x_Bps * t_read; /* + 128 B: the NIC's TLS context per connection */
}

/* ram.page_cache 0: the cache gets what memory.installed leaves at the served throughput, the
 * model's own (demand.c's fixed point), not at the ports' line rate. */
START_TEST(test_ram_auto_size)
{
  const char *sets[] = { "software.page_cache=lru", "memory.installed=256 GiB", NULL };
  g_autofree Appliance *a = load("scenarios/rome-400g-nic-ktls.yaml", sets, NULL);
  g_autoptr(GError) e = NULL;
  g_autoptr(DemandModel) m = demand_build(a, &e);
  ck_assert_msg(m != NULL, "%s", e ? e->message : "");
  /* saturating: NIC bound at about 371 Gb/s, below the 4 x 100 Gb/s line rate */
  double x = m->sized_Bps;
  ck_assert_double_eq_tol(x, m->op_Bps, 1e-9 * m->op_Bps);
  ck_assert(x * 8 > 350e9 && x * 8 < 380e9);
  ck_assert_double_eq_tol(pagecache_size_bytes(a, x), auto_cache_bytes(x), 1e-9 * auto_cache_bytes(x));
  ck_assert(pagecache_size_bytes(a, x) > auto_cache_bytes(50e9)); /* more than sizing at line rate left */
  /* at 100 Gb/s offered the box serves 100 Gb/s: fewer connections, a larger cache */
  const char *offered[] = { "software.page_cache=lru", "memory.installed=256 GiB", "workload.offered=100 Gb/s", NULL };
  g_autofree Appliance *a2 = load("scenarios/rome-400g-nic-ktls.yaml", offered, NULL);
  g_autoptr(DemandModel) m2 = demand_build(a2, &e);
  ck_assert(m2 != NULL);
  ck_assert_double_eq_tol(m2->sized_Bps, 12.5e9, 1e-9 * 12.5e9);
  ck_assert_double_eq_tol(pagecache_size_bytes(a2, m2->sized_Bps), auto_cache_bytes(12.5e9), 1e-9 * auto_cache_bytes(12.5e9));
  ck_assert(pagecache_hit_ratio(a2, m2->sized_Bps) > pagecache_hit_ratio(a, x));
  /* RAM the other needs fill: no cache, no hits */
  const char *full[] = { "software.page_cache=lru", "memory.installed=8 GiB", NULL };
  g_autofree Appliance *a3 = load("scenarios/rome-400g-nic-ktls.yaml", full, NULL);
  ck_assert_double_eq(pagecache_size_bytes(a3, x), 0.0);
  ck_assert_double_eq(pagecache_hit_ratio(a3, x), 0.0);
}
END_TEST

/* What a connection holds by data path, at 50 Gb/s offered (n = 50e9 / 6.3e6 = 7936.51):
 *   read_write (user-space TLS): socket buffer 64 KiB + TLS state 8 KiB + user buffer 64 KiB
 *   read_write_plain:            socket buffer 64 KiB + user buffer 64 KiB (no TLS state)
 *   sendfile (plain):            socket buffer 64 KiB only
 *   half sendfile_nic_ktls, half read_write_plain (alt path): n/2 x (8 KiB + 128 B) of TLS
 *                                state, n/2 x 64 KiB of user buffers */
START_TEST(test_ram_per_connection_by_path)
{
  double n = 50e9 / 6.3e6;
  struct {
    const char *path, *alt, *frac;
    double tls, user;
  } c[] = {
    { "software.data_path=read_write", NULL, NULL, n * 8 * KIB, n * 64 * KIB },
    { "software.data_path=read_write_plain", NULL, NULL, 0, n * 64 * KIB },
    { "software.data_path=sendfile", NULL, NULL, 0, 0 },
    { "software.data_path=sendfile_nic_ktls", "workload.alt_path=read_write_plain", "workload.alt_fraction=50 %",
      n / 2 * (8 * KIB + 128), n / 2 * 64 * KIB },
  };
  for (size_t i = 0; i < G_N_ELEMENTS(c); i++) {
    const char *sets[] = { "workload.offered=50 Gb/s", "memory.installed=256 GiB", c[i].path, c[i].alt, c[i].frac, NULL };
    g_autoptr(AppReport) r = bound_report("scenarios/rome-400g-nic-ktls.yaml", sets);
    const RamReport *o = &r->ram;
    ck_assert_double_eq_tol(o->connections, n, 1e-6);
    ck_assert_double_eq_tol(o->sockbuf_bytes, n * 64 * KIB, 1.0);
    ck_assert_msg(fabs(o->tls_bytes - c[i].tls) <= 1.0, "%s: TLS %g vs %g", c[i].path, o->tls_bytes, c[i].tls);
    ck_assert_msg(fabs(o->userbuf_bytes - c[i].user) <= 1.0, "%s: user %g vs %g", c[i].path, o->userbuf_bytes, c[i].user);
    double sum = o->cache_bytes + o->sockbuf_bytes + o->tls_bytes + o->userbuf_bytes + o->inflight_bytes + o->reserve_bytes;
    ck_assert_double_eq_tol(o->needed_bytes, sum, 1e-9 * sum);
    g_autoptr(GString) t = g_string_new(NULL);
    report_write(r, APP_FMT_TABLE, t);
    ck_assert(c[i].user > 0 ? strstr(t->str, "user buffers ") != NULL : strstr(t->str, "user buffers") == NULL);
  }
}
END_TEST

/* The page cache's report block: shown with the cache on or memory.installed given, the flag and
 * warning when the needs exceed it, and nothing at all otherwise. */
START_TEST(test_ram_report_and_flag)
{
  const char *over[] = { "software.page_cache=lru", "ram.page_cache=100 GiB", "memory.installed=64 GiB", NULL };
  g_autoptr(AppReport) r = bound_report("scenarios/rome-400g-nic-ktls.yaml", over);
  ck_assert(r->ram.over);
  g_autoptr(GString) t = g_string_new(NULL), j = g_string_new(NULL);
  report_write(r, APP_FMT_TABLE, t);
  report_write(r, APP_FMT_JSON, j);
  ck_assert_msg(strstr(t->str, "warning:    the RAM needed exceeds memory.installed by ") != NULL, "%s", t->str);
  ck_assert(strstr(t->str, "page cache: LRU of 100.0 GiB") != NULL);
  ck_assert(strstr(j->str, "\"over_installed\" : true") != NULL);
  ck_assert(strstr(j->str, "\"hit_ratio\"") != NULL);

  /* cache off, RAM given: the RAM line, no page-cache line, no flag */
  const char *off[] = { "memory.installed=256 GiB", NULL };
  g_autoptr(AppReport) r2 = bound_report("scenarios/rome-400g-nic-ktls.yaml", off);
  ck_assert(r2->ram.shown && !r2->ram.cache_on && !r2->ram.over);
  ck_assert_double_eq(r2->ram.cache_bytes, 0.0);
  g_autoptr(GString) t2 = g_string_new(NULL), j2 = g_string_new(NULL);
  report_write(r2, APP_FMT_TABLE, t2);
  report_write(r2, APP_FMT_JSON, j2);
  ck_assert(strstr(t2->str, "ram:        needs ") != NULL && strstr(t2->str, "page cache:") == NULL);
  ck_assert(strstr(t2->str, "warning:") == NULL);
  ck_assert(strstr(j2->str, "\"over_installed\" : false") != NULL);

  /* neither (a platform without a published RAM size): no trace in the report */
  g_autoptr(AppReport) r3 = bound_report("scenarios/genoa-400gbe-nic-ktls.yaml", NULL);
  ck_assert(!r3->ram.shown);
  g_autoptr(GString) t3 = g_string_new(NULL), j3 = g_string_new(NULL);
  report_write(r3, APP_FMT_TABLE, t3);
  report_write(r3, APP_FMT_JSON, j3);
  ck_assert(strstr(t3->str, "ram:") == NULL && strstr(t3->str, "page cache") == NULL);
  ck_assert(strstr(j3->str, "\"ram\"") == NULL && strstr(j3->str, "\"page_cache\"") == NULL);
}
END_TEST

/* ---- located errors ------------------------------------------------------------------------ */

typedef struct {
  const char *body; /* lines 3.. of the scenario (after kind and platform) */
  int line, col;
  const char *path, *message;
} BadCase;

static const BadCase bad[] = {
  { "software:\n  page_cache: maybe\n", 4, 15, "software.page_cache", "maybe" },
  { "memory:\n  installed: 12\n", 4, 14, "memory.installed", "unit" },
  { "ram:\n  title_size: 0 B\n", 4, 15, "ram.title_size", "" },
  { "ram:\n  page_cach: 1 GiB\n", 4, 3, "ram.page_cach", "page_cache" },
  { "software:\n  page_cache: lru\n", 4, 15, "software.page_cache", "give memory.installed or ram.page_cache" },
};

START_TEST(test_bad_keys_located)
{
  const BadCase *c = &bad[_i];
  g_autoptr(GError) e = NULL;
  g_autofree char *dir = g_dir_make_tmp("ocasim-pagecache-XXXXXX", &e);
  ck_assert_msg(dir != NULL, "%s", e ? e->message : "");
  g_autofree char *cwd = g_get_current_dir();
  g_autofree char *file = g_build_filename(dir, "bad.yaml", NULL);
  g_autofree char *text = g_strdup_printf("kind: appliance\nplatform: %s/scenarios/platforms/genoa-9554.yaml\n%s", cwd, c->body);
  ck_assert(g_file_set_contents(file, text, -1, &e));
  const char *args[] = { "bound", file, NULL };
  g_autofree char *out = NULL, *err = NULL;
  int rc = test_run_ocasim(args, &out, &err);
  ck_assert_msg(rc == 2, "rc %d: %s", rc, err);
  test_assert_located(c->body, err, file, c->line, c->col, c->path, c->message);
  g_unlink(file);
  g_rmdir(dir);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("pagecache");
  TCase *tc = tcase_create("che");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_che_vs_simulated_lru);
  tcase_add_test(tc, test_che_closed_forms);
  tcase_add_test(tc, test_che_tail_integral);
  suite_add_tcase(s, tc);
  TCase *td = tcase_create("demand");
  tcase_set_timeout(td, 60);
  tcase_add_test(td, test_demand_hit_skips_drive_and_dma);
  tcase_add_test(td, test_demand_all_hits);
  tcase_add_test(td, test_ram_by_hand);
  tcase_add_test(td, test_ram_auto_size);
  tcase_add_test(td, test_ram_report_and_flag);
  tcase_add_test(td, test_ram_per_connection_by_path);
  tcase_add_loop_test(td, test_bad_keys_located, 0, (int)G_N_ELEMENTS(bad));
  suite_add_tcase(s, td);
  return test_run_suite(s);
}
