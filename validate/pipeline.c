/* validate/pipeline.c — the validation procedure.
 *
 * 1 probe the host; 2 microbenchmarks (AEAD, SHA-256, copy, DRAM, loopback);
 * 3 mechanics pass: every mode serves files of 0 B .. 1 MiB and ranges to 4
 * connections with SHA-256 checks of every body (any mismatch fails validate);
 * 4 measurement runs of the configuration table below, in a seeded shuffled order;
 * 5 fit of the host profile on the runs marked train that were CPU bound (VAL_CPU_BOUND) plus the AEAD microbenchmark
 * as priors (sd 10%), the per-record cycles free (records per request = ceil((body + head) /
 * 16 KiB) + 1 differ between 16 KiB, 64 KiB and 1 MiB responses, which identifies them), the
 * cache size fixed at the probe's per-core L2, weak priors 0 +- 0.5 cycles/B on the cross-core
 * terms and a soft bound >= 0 on every cost; 6 prediction of every run by the
 * appliance model (host-profile.yaml with the run's test overlaid, bound mode: what `ocasim
 * bound` answers), cross-checked against the closed form of validate/predict.c; the held-out
 * runs are the test: median and worst absolute relative error of Gb/s.  Each run's prediction uses
 * the cores left to it by other tenants (ncpu - foreign busy cores measured in that
 * run): a condition of the machine, not a fitted quantity; and, when the threads are
 * pinned (the default), the placement the run used (measure.h val_placement: the CPUs of
 * each side and whether the two ends of a connection share a core), likewise a condition of
 * the test rather than an estimate.  To keep other
 * tenants of a small shared machine from dominating the windows, the runs use a
 * raised scheduling priority (nice -10 by default, when permitted), restored after.
 */
#include "validate/pipeline.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "models/appliance/loopback.h"
#include "serve/client.h"
#include "validate/labrun.h"
#include "serve/util.h"

#define KiB 1024ULL
#define MiB (1024ULL * 1024ULL)

/* The mechanics check (every mode serves every file): connections and the run-time cap, s.
 * Assumed: small, the check is about correct bytes, not speed. */
#define MECH_CONNECTIONS 4
#define MECH_DURATION_S  60
/* Floors of the host's free cores: the whole host (cores; keeps the model's pool positive when
 * other tenants took every CPU) and one pinned side (cores of its set). Assumed. */
#define HOST_MIN_AVAIL_CORES 0.25
#define SIDE_MIN_FREE_CORES  0.05
/* Cache a served file competes for when the probe read neither L2 nor LLC (bytes). Assumed. */
#define CACHE_FALLBACK_BYTES 1048576.0
/* TLS record payload when the microbenchmark gave none: the largest, 2^14 B (RFC 8446 5.1). */
#define TLS_RECORD_BYTES 16384
/* Starting point of the profile fit (the fit moves them; assumed, order-of-magnitude values):
 * a floor on each per-byte cost taken from a microbenchmark (cycles/B), the cross-core
 * transfer cost (cycles/B), the per-request cycles of each side, the softirq share and the
 * reachable utilisation of a busy core. The page-cache copy and miss costs start at half
 * the measured sendfile receive cost each. */
#define START_MIN_CPB           0.05
#define START_XCORE_CPB         0.1
#define START_REQ_CYCLES        20000
#define START_SOFTIRQ           0.05
#define START_UTIL              0.95
#define START_MIN_RECORD_CYCLES 100.0
/* Standard deviations of an observation: its measured spread, at least a share of its value
 * and an absolute floor (cycles/B; Gb/s for throughput). The softirq share scatters most on a
 * shared machine. Assumed. */
#define SD_REL_CPB     0.05
#define SD_REL_SOFTIRQ 0.25
#define SD_REL_GBPS    0.05
#define SD_ABS_CPB     0.02
#define SD_ABS_GBPS    0.05
/* Priors: the cross-core terms 0 +- 0.5 cycles/B (of the order of a copy's cost) and an AEAD
 * cost its microbenchmark +- 10 % (see fit_and_predict; every cost's lower limit 0 is the fit's
 * range, val_param_range). Assumed. */
#define PRIOR_XCORE_SD_CPB 0.5
#define PRIOR_AEAD_REL     0.10
/* Microbenchmark and loaded-latency sizes, --quick / full: seconds per item, DRAM and socket
 * bytes (MiB), pointer-chase and load buffers (MiB), seconds per latency point, and the extra
 * repetitions a contended run may take. Assumed: large enough to leave the caches, short
 * enough for a run of minutes. */
#define MB_SECONDS_QUICK    0.1
#define MB_SECONDS_FULL     0.3
#define MB_DRAM_MIB_QUICK   64
#define MB_DRAM_MIB_FULL    256
#define MB_SOCKET_MIB_QUICK 128
#define MB_SOCKET_MIB_FULL  512
#define LAT_CHASE_MIB_QUICK 128
#define LAT_CHASE_MIB_FULL  512
#define LAT_LOAD_MIB_QUICK  64
#define LAT_LOAD_MIB_FULL   256
#define LAT_SECONDS_QUICK   0.2
#define LAT_SECONDS_FULL    0.5
#define EXTRA_REPS_QUICK    2
#define EXTRA_REPS_FULL     3

#define U13(ci, s, c, n, f, r, tr)                            \
  {                                                           \
    "", VAL_MODE_USERSPACE, VAL_TLS_13, ci, s, c, n, f, r, tr \
  }
#define U12(ci, s, c, n, f, r, tr)                            \
  {                                                           \
    "", VAL_MODE_USERSPACE, VAL_TLS_12, ci, s, c, n, f, r, tr \
  }
#define PL(s, c, n, f, r, tr)                                             \
  {                                                                       \
    "", VAL_MODE_SENDFILE, VAL_TLS_ANY, VAL_CIPHER_ANY, s, c, n, f, r, tr \
  }
#define KT(ci, s, c, n, f, r, tr)                                 \
  {                                                               \
    "", VAL_MODE_SENDFILE_KTLS, VAL_TLS_13, ci, s, c, n, f, r, tr \
  }
#define A128 VAL_CIPHER_AES128GCM
#define A256 VAL_CIPHER_AES256GCM
#define CHA  VAL_CIPHER_CHACHA20

/* Training: enough to identify copy, stack, record, the AEADs, per-request costs,
 * softirq and utilisation.  Per-request and per-record cycles are told apart from per-byte
 * ones only by runs of different response sizes: plain and TLS at 16 KiB and 1 MiB, TLS also
 * at 64 KiB (TLS 1.2 AES-256, a version and cipher none of the held-out 64 KiB runs has).  Held out: other TLS versions,
 * ciphers, thread and connection counts, file sizes, ranges and modes. */
static const ValRunSpec quick_specs[] = {
  PL(1, 1, 8, 1 * MiB, 0, TRUE),
  PL(1, 1, 16, 16 * KiB, 0, TRUE),
  PL(1, 1, 8, 4 * MiB, 0, TRUE),
  U13(A128, 1, 1, 8, 1 * MiB, 0, TRUE),
  U13(A128, 1, 1, 16, 16 * KiB, 0, TRUE),
  U13(A256, 1, 1, 8, 1 * MiB, 0, TRUE),
  U13(CHA, 1, 1, 8, 1 * MiB, 0, TRUE),
  U13(A128, 2, 2, 8, 256 * KiB, 0, TRUE),
  U12(A128, 1, 1, 8, 1 * MiB, 0, TRUE),
  U12(A256, 1, 1, 16, 64 * KiB, 0, TRUE),
  /* held out */
  U12(A128, 1, 1, 16, 16 * KiB, 0, FALSE),
  U12(A256, 1, 1, 8, 1 * MiB, 0, FALSE),
  U12(CHA, 2, 2, 8, 1 * MiB, 0, FALSE),
  U13(CHA, 1, 1, 16, 64 * KiB, 0, FALSE),
  U13(A128, 2, 1, 8, 1 * MiB, 0, FALSE),
  U13(A128, 1, 2, 8, 1 * MiB, 0, FALSE),
  U13(A128, 1, 1, 2, 1 * MiB, 0, FALSE),
  U13(A128, 1, 1, 32, 1 * MiB, 0, FALSE),
  U13(A128, 1, 1, 16, 64 * KiB, 0, FALSE),
  U13(A256, 1, 1, 8, 4 * MiB, 0, FALSE),
  U13(A128, 1, 1, 8, 16 * MiB, 1 * MiB, FALSE),
  PL(1, 1, 8, 256 * KiB, 0, FALSE),
  PL(2, 2, 16, 64 * KiB, 0, FALSE),
  KT(A128, 1, 1, 8, 1 * MiB, 0, FALSE),
};

static const ValRunSpec full_specs[] = {
  PL(1, 1, 8, 1 * MiB, 0, TRUE),
  PL(1, 1, 16, 16 * KiB, 0, TRUE),
  PL(2, 2, 16, 256 * KiB, 0, TRUE),
  PL(1, 1, 8, 4 * MiB, 0, TRUE),
  U13(A128, 1, 1, 8, 1 * MiB, 0, TRUE),
  U13(A128, 1, 1, 16, 16 * KiB, 0, TRUE),
  U13(A256, 1, 1, 8, 1 * MiB, 0, TRUE),
  U13(CHA, 1, 1, 8, 1 * MiB, 0, TRUE),
  U13(A128, 2, 2, 8, 256 * KiB, 0, TRUE),
  U13(A256, 1, 1, 16, 64 * KiB, 0, TRUE),
  /* held out */
  U12(A128, 1, 1, 8, 1 * MiB, 0, FALSE),
  U12(A256, 1, 1, 8, 1 * MiB, 0, FALSE),
  U12(CHA, 1, 1, 8, 1 * MiB, 0, FALSE),
  U12(CHA, 2, 2, 8, 1 * MiB, 0, FALSE),
  U12(A128, 1, 1, 16, 16 * KiB, 0, FALSE),
  U13(CHA, 1, 1, 16, 64 * KiB, 0, FALSE),
  U13(CHA, 2, 2, 16, 16 * KiB, 0, FALSE),
  U13(A128, 2, 1, 8, 1 * MiB, 0, FALSE),
  U13(A128, 1, 2, 8, 1 * MiB, 0, FALSE),
  U13(A128, 2, 2, 32, 1 * MiB, 0, FALSE),
  U13(A128, 1, 1, 2, 1 * MiB, 0, FALSE),
  U13(A128, 1, 1, 32, 1 * MiB, 0, FALSE),
  U13(A128, 1, 1, 64, 256 * KiB, 0, FALSE),
  U13(A128, 1, 1, 16, 64 * KiB, 0, FALSE),
  U13(A128, 1, 1, 8, 4 * MiB, 0, FALSE),
  U13(A256, 1, 1, 8, 16 * MiB, 0, FALSE),
  U13(A128, 1, 1, 8, 16 * MiB, 1 * MiB, FALSE),
  U13(A256, 2, 2, 16, 16 * MiB, 256 * KiB, FALSE),
  PL(1, 1, 8, 256 * KiB, 0, FALSE),
  PL(2, 2, 16, 64 * KiB, 0, FALSE),
  PL(1, 1, 8, 16 * MiB, 1 * MiB, FALSE),
  KT(A128, 1, 1, 8, 1 * MiB, 0, FALSE),
  KT(A256, 2, 2, 16, 256 * KiB, 0, FALSE),
};

/* The configuration list of a validate run (static table), for tests and docs. */
static const ValRunSpec *val_validate_specs(gboolean quick, int *n)
{
  *n = quick ? (int)G_N_ELEMENTS(quick_specs) : (int)G_N_ELEMENTS(full_specs);
  return quick ? quick_specs : full_specs;
}

void val_report_free(ValReport *r)
{
  if (!r) return;
  val_probe_free(r->probe);
  if (r->rows) g_array_unref(r->rows);
  g_free(r->profile_yaml);
  g_free(r->out_dir);
  g_free(r);
}

/* ---- mechanics pass ---------------------------------------------------------- */

static gboolean mechanics(ValReport *r, const char *root, GError **error)
{
  static const uint64_t sizes[] = { 0, 1, 16383, 16384, 16385, 65535, 65536, 1 << 20 };
  ValRunSpec files[G_N_ELEMENTS(sizes)];
  memset(files, 0, sizeof files);
  for (size_t i = 0; i < G_N_ELEMENTS(sizes); i++) files[i].file_bytes = sizes[i];
  if (!val_measure_prepare(root, files, G_N_ELEMENTS(sizes), error)) return FALSE;
  ValLoadTarget tg[2 * G_N_ELEMENTS(sizes)];
  int nt = 0;
  for (size_t i = 0; i < G_N_ELEMENTS(sizes); i++) {
    g_autofree char *rel = val_measure_file_path(sizes[i]);
    g_autofree char *path = g_build_filename(root, rel, NULL);
    for (int range = 0; range < (sizes[i] > 2 ? 2 : 1); range++) {
      ValLoadTarget *t = &tg[nt++];
      memset(t, 0, sizeof *t);
      t->path = g_strdup(rel);
      t->check_sha = TRUE;
      t->has_range = range;
      t->first = range ? 1 : 0;
      t->last = range ? sizes[i] - 2 : 0;
      t->expect_len = range ? sizes[i] - 2 : sizes[i];
      t->expect_status = range ? 206 : 200;
      if (!val_sha256_file_range(path, t->first, t->expect_len, t->sha, error)) return FALSE;
    }
  }
  gboolean ok = TRUE;
  GString *detail = g_string_new(NULL);
  for (int m = 0; m < VAL_MODE_COUNT && ok; m++) {
    ValServerConfig sc = { .root = root, .mode = (ValServerMode)m, .threads = 2, .quiet = TRUE };
    ValServer *s = val_server_start(&sc, error);
    if (!s) {
      ok = FALSE;
      break;
    }
    ValLoadConfig lc = { .port = val_server_port(s),
                         .tls = val_server_mode_is_tls((ValServerMode)m),
                         .connections = MECH_CONNECTIONS,
                         .threads = 2,
                         .targets = tg,
                         .ntargets = nt,
                         .requests_per_conn = nt,
                         .duration_s = MECH_DURATION_S,
                         .verify = VAL_VERIFY_ALL,
                         .last_cpu = -1 };
    ValLoadResult res;
    ok = val_load_run(&lc, &res, error);
    ValServerStats st;
    val_server_stats(s, &st);
    val_server_stop(s);
    if (!ok) break;
    uint64_t want = (uint64_t)(MECH_CONNECTIONS * nt);
    uint64_t errs = val_load_errors(&res) + (res.requests_ok != want);
    if (m == VAL_MODE_SENDFILE_KTLS && st.ktls_conns == 0 && st.ssl_sendfile_calls != 0) errs++;
    r->mech_requests += res.requests_ok;
    r->mech_errors += errs;
    g_string_append_printf(detail, "%s%s: %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT " bodies ok", m ? "; " : "",
                           val_server_mode_name((ValServerMode)m), res.requests_ok, want);
  }
  for (int i = 0; i < nt; i++) g_free(tg[i].path);
  g_strlcpy(r->mech_detail, detail->str, sizeof r->mech_detail);
  g_string_free(detail, TRUE);
  if (ok && r->mech_errors) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_MISMATCH, "mechanics check failed: %s", r->mech_detail);
    return FALSE;
  }
  return ok;
}

/* ---- fit and predictions ------------------------------------------------------- */

static ValHostConfig host_config(const ValReport *r, const ValRunResult *run)
{
  const ValRunSpec *s = &run->spec;
  ValHostConfig c = { .mode = s->mode,
                      .ktls = run->median.ktls_engaged,
                      .cipher = s->cipher,
                      .version = s->version,
                      .server_threads = s->server_threads,
                      .client_threads = s->client_threads,
                      .connections = s->connections,
                      .bytes_per_req = (double)(s->range_bytes ? MIN(s->range_bytes, s->file_bytes) : s->file_bytes),
                      .file_bytes = (double)s->file_bytes,
                      .verify_hash = r->cfg.verify == VAL_VERIFY_ALL };
  c.avail_cores = MAX(HOST_MIN_AVAIL_CORES, (double)r->probe->cpus_online - val_measure_taken_cores(&run->median));
  /* pinned: the placement the run used is a condition of the test, told to the model */
  if (run->pinned) {
    c.pinned = TRUE;
    c.server_cpus = run->placement.server_cpus;
    c.client_cpus = run->placement.client_cpus;
    c.cross_share = run->placement.cross_share;
    /* and what other tenants left of each side's CPUs (measured; a floor keeps a side that lost
     * its CPU entirely from dividing by zero) */
    if (run->median.server_foreign_cores > 0 || run->median.client_foreign_cores > 0) {
      c.server_free_cores = MAX(SIDE_MIN_FREE_CORES, c.server_cpus - run->median.server_foreign_cores);
      c.client_free_cores = MAX(SIDE_MIN_FREE_CORES, c.client_cpus - run->median.client_foreign_cores);
    }
  }
  return c;
}

double val_busiest_share(const ValHostConfig *cfg, const ValRunSample *m, int cores)
{
  double ps = loopback_pool_cores(cfg->server_threads, cfg->pinned ? cfg->server_cpus : 0,
                                  cfg->pinned ? cfg->server_free_cores : 0, cfg->connections, cores, 1.0);
  double pc = loopback_pool_cores(cfg->client_threads, cfg->pinned ? cfg->client_cpus : 0,
                                  cfg->pinned ? cfg->client_free_cores : 0, cfg->connections, cores, 1.0);
  return MAX(m->server_util / MAX(ps, 1e-9), m->client_util / MAX(pc, 1e-9));
}

static double sd_of(double value, double spread, double floor_rel, double floor_abs)
{
  return MAX(MAX(spread, floor_rel * fabs(value)), floor_abs);
}

/* The cache a served file competes for: the per-core L2 (server and client each copy it on
 * their core), else the last-level cache, else 1 MiB. */
static double cache_start(const ValReport *r)
{
  if (r->probe->l2_bytes) return (double)r->probe->l2_bytes;
  if (r->probe->llc_bytes) return (double)r->probe->llc_bytes;
  return CACHE_FALLBACK_BYTES;
}

static void start_profile(ValReport *r)
{
  ValHostProfile *p = &r->start;
  memset(p, 0, sizeof *p);
  p->clock_hz = r->probe->clock_hz;
  p->cores = r->probe->cpus_online;
  p->hash_cpb = r->mb.sha256_cpb;
  p->record_bytes = r->mb.record_bytes ? r->mb.record_bytes : TLS_RECORD_BYTES;
  p->p[VAL_P_COPY] = MAX(START_MIN_CPB, r->mb.sockcopy_rx_cpb);
  p->p[VAL_P_COPY_PC] = 0.5 * MAX(START_MIN_CPB, r->mb.sendfile_rx_cpb);
  p->p[VAL_P_MISS] = 0.5 * MAX(START_MIN_CPB, r->mb.sendfile_rx_cpb); /* the microbenchmark's file is larger than any cache */
  p->p[VAL_P_CACHE] = cache_start(r);
  p->p[VAL_P_XCORE_S] = START_XCORE_CPB;
  p->p[VAL_P_XCORE_C] = START_XCORE_CPB;
  p->p[VAL_P_STACK] = MAX(START_MIN_CPB, r->mb.sendfile_tx_cpb);
  /* starts at the AEAD's own per-record cycles (microbenchmark); the fit adds the record
   * layer's calls, syscalls and skbs */
  p->p[VAL_P_RECORD] = MAX(START_MIN_RECORD_CYCLES, r->mb.aead_record_cycles);
  for (int c = VAL_CIPHER_AES128GCM; c < VAL_CIPHER_COUNT; c++)
    p->p[val_param_for_cipher((ValCipher)c)] = 0.5 * (r->mb.enc_cpb[c] + r->mb.dec_cpb[c]);
  p->p[VAL_P_REQ_SERVER] = START_REQ_CYCLES;
  p->p[VAL_P_REQ_CLIENT] = START_REQ_CYCLES;
  p->p[VAL_P_SOFTIRQ] = START_SOFTIRQ;
  p->p[VAL_P_UTIL] = START_UTIL;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median_of(double *v, int n)
{
  if (n == 0) return 0;
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Fits the profile and predicts every row.  FALSE (with the reason in error) when the written
 * profile would not load in the appliance model, or the model could not predict a row: the
 * report then flags it, and the comparison with the closed form is not a check. */
static gboolean fit_and_predict(ValReport *r, GError **error)
{
  start_profile(r);
  r->profile = r->start;
  GArray *obs = g_array_new(FALSE, TRUE, sizeof(ValFitObs));
  for (guint i = 0; i < r->rows->len; i++) {
    ValPredRow *row = &g_array_index(r->rows, ValPredRow, i);
    row->cfg = host_config(r, &row->run);
    row->busiest = val_busiest_share(&row->cfg, &row->run.median, r->probe->cpus_online);
    /* only CPU-bound runs are what the bottleneck law describes (VAL_CPU_BOUND) */
    /* an emulated CPU's timings (QEMU TCG) say nothing about a real one: never fitted */
    row->in_fit = row->run.spec.train && row->busiest >= VAL_CPU_BOUND && !r->probe->emulated;
    if (!row->in_fit) continue;
    const ValRunSample *m = &row->run.median, *sp = &row->run.spread;
    ValFitObs o = {
      .cfg = row->cfg, .server_cpb = m->server_cpb, .client_cpb = m->client_cpb, .softirq_cpb = m->softirq_cpb, .gbps = m->gbps
    };
    o.sd_server = sd_of(m->server_cpb, sp->server_cpb, SD_REL_CPB, SD_ABS_CPB);
    o.sd_client = sd_of(m->client_cpb, sp->client_cpb, SD_REL_CPB, SD_ABS_CPB);
    o.sd_softirq = sd_of(m->softirq_cpb, sp->softirq_cpb, SD_REL_SOFTIRQ, SD_ABS_CPB);
    o.sd_gbps = sd_of(m->gbps, sp->gbps, SD_REL_GBPS, SD_ABS_GBPS);
    g_array_append_val(obs, o);
  }
  ValFitPrior pri[VAL_CIPHER_COUNT + 2];
  int np = 0;
  /* the cross-core terms are seen only through the other tenants' load of each run (which
   * decides whether the two ends share a core): a weak prior keeps them of the order of a
   * copy's cost (0 +- 0.5 cycles/B) instead of following the scatter of a few runs */
  pri[np++] = (ValFitPrior){ VAL_P_XCORE_S, 0.0, PRIOR_XCORE_SD_CPB, FALSE };
  pri[np++] = (ValFitPrior){ VAL_P_XCORE_C, 0.0, PRIOR_XCORE_SD_CPB, FALSE };
  for (int c = VAL_CIPHER_AES128GCM; c < VAL_CIPHER_COUNT; c++) {
    double v = 0.5 * (r->mb.enc_cpb[c] + r->mb.dec_cpb[c]);
    pri[np++] = (ValFitPrior){ val_param_for_cipher((ValCipher)c), v, PRIOR_AEAD_REL * v, FALSE };
  }
  /* every cost is >= 0 by construction: val_fit_host fits each inside its range
   * (val_param_range, [0, inf)): a term that the runs cannot tell from a collinear one, stack_cpb
   * from the cross-core sender term and the copies, ends at zero, where the soft bounds that stood
   * here (0 +- 0.01 cycles/B) let it end slightly negative */
  g_autoptr(GError) err = NULL;
  gboolean fixed[VAL_P_COUNT] = { FALSE };
  /* the cache is the probe's per-core L2: with the run-to-run scatter of a shared machine its
   * size is not identified by the fit (it drifts to unphysical miss costs); miss_cpb is, weakly,
   * by the plain runs at 1 MiB (m = 0.06) and 4 MiB (m = 0.94) */
  fixed[VAL_P_CACHE] = TRUE;
  if (r->probe->emulated) {
    r->fit_ok = FALSE;
    g_set_error(&err, VAL_ERROR, VAL_ERROR_FAILED,
                "not fitted: every timing comes from an emulated CPU (%s), not usable for calibration",
                val_probe_hypervisor_name(r->probe));
  } else {
    r->fit_ok = val_fit_host((ValFitObs *)obs->data, (int)obs->len, pri, np, &r->start, fixed, &r->profile, &r->fit, &err);
  }
  if (!r->fit_ok) {
    g_strlcpy(r->fit_error, err ? err->message : "fit failed", sizeof r->fit_error);
    r->profile = r->start;
  }
  g_array_unref(obs);

  double *tr = g_new0(double, r->rows->len), *ho = g_new0(double, r->rows->len), *hq = g_new0(double, r->rows->len);
  r->n_heldout_quiet = 0;
  r->heldout_quiet_max_abs_err = 0;
  r->n_train = r->n_heldout = 0;
  r->heldout_max_abs_err = 0;
  r->profile.dram_shown_GBps = 0.0;
  for (guint i = 0; i < r->rows->len; i++) {
    const ValPredRow *row = &g_array_index(r->rows, ValPredRow, i);
    LoopbackCfg lo;
    DataPath path;
    double cap;
    LoopbackCost lc;
    val_host_loopback(&r->profile, &row->cfg, &lo, &path, &cap);
    loopback_cost(&lo, path, row->cfg.bytes_per_req, MAX(r->profile.cores, 1), cap, &lc);
    r->profile.dram_shown_GBps = MAX(r->profile.dram_shown_GBps, lc.miss_share * row->run.median.gbps / 8.0);
  }
  /* the loaded-latency line against the memory capacity the profile gives */
  r->profile.dram_lat_points = 0;
  if (r->lat.n >= 2) {
    g_autoptr(GError) lerr = NULL;
    r->lat_ok = val_lat_fit(r->lat.pt, r->lat.n, val_host_memory_GBps(&r->profile, &r->mb, NULL), &r->lat_fit, &lerr);
    if (r->lat_ok) {
      r->profile.dram_idle_ns = r->lat_fit.idle_ns;
      r->profile.dram_slope_ns_per_GBps = r->lat_fit.slope_ns_per_GBps;
      r->profile.dram_lat_points = r->lat.n;
      for (int i = 0; i < r->lat.n; i++) { /* insertion by bandwidth: the curve's rows run from the lightest load */
        int j = i;
        for (; j > 0 && r->profile.dram_curve_GBps[j - 1] > r->lat.pt[i].GBps; j--) {
          r->profile.dram_curve_GBps[j] = r->profile.dram_curve_GBps[j - 1];
          r->profile.dram_curve_ns[j] = r->profile.dram_curve_ns[j - 1];
        }
        r->profile.dram_curve_GBps[j] = r->lat.pt[i].GBps;
        r->profile.dram_curve_ns[j] = r->lat.pt[i].latency_ns;
      }
    } else
      g_strlcpy(r->lat_error, lerr->message, sizeof r->lat_error);
  }
  g_free(r->profile_yaml);
  r->profile_yaml = val_host_profile_yaml(&r->profile, r->probe, &r->mb, &r->fit);
  r->profile_error[0] = '\0';
  {
    g_autoptr(GError) perr = NULL;
    if (!val_host_profile_check(r->profile_yaml, &perr)) g_strlcpy(r->profile_error, perr->message, sizeof r->profile_error);
  }
  if (r->probe->emulated) { /* never a host profile from an emulated CPU: host-profile.rejected.yaml, said why */
    g_autofree char *also = g_strdup(r->profile_error);
    g_snprintf(r->profile_error, sizeof r->profile_error, "not a host profile: the timings come from an emulated CPU (%s)%s%s",
               val_probe_hypervisor_name(r->probe), also[0] ? "; also: " : "", also);
  }
  r->model_agree_max = 0;
  r->app_error[0] = '\0';
  r->n_app_failed = 0;
  for (guint i = 0; i < r->rows->len; i++) {
    ValPredRow *row = &g_array_index(r->rows, ValPredRow, i);
    val_predict_host(&r->profile, &row->cfg, &row->pred);
    /* the prediction is the appliance model's: host-profile.yaml + this test, bound mode */
    g_autoptr(GError) aerr = NULL;
    if (val_host_bound_gbps(r->profile_yaml, &r->profile, &row->cfg, &row->app_gbps, row->app_bottleneck, &aerr)) {
      if (row->pred.gbps > 0) r->model_agree_max = MAX(r->model_agree_max, fabs(row->app_gbps - row->pred.gbps) / row->pred.gbps);
    } else {
      if (!r->app_error[0]) g_strlcpy(r->app_error, aerr->message, sizeof r->app_error);
      r->n_app_failed++;
      row->app_gbps = row->pred.gbps; /* keep the closed form so the table stays complete */
      g_strlcpy(row->app_bottleneck, "(closed form)", sizeof row->app_bottleneck);
    }
    row->err_rel = row->run.median.gbps > 0 ? (row->app_gbps - row->run.median.gbps) / row->run.median.gbps : 0;
    if (row->run.spec.train)
      tr[r->n_train++] = fabs(row->err_rel);
    else {
      ho[r->n_heldout++] = fabs(row->err_rel);
      r->heldout_max_abs_err = MAX(r->heldout_max_abs_err, fabs(row->err_rel));
      if (val_measure_taken_cores(&row->run.median) <= VAL_FOREIGN_LIMIT) {
        hq[r->n_heldout_quiet++] = fabs(row->err_rel);
        r->heldout_quiet_max_abs_err = MAX(r->heldout_quiet_max_abs_err, fabs(row->err_rel));
      }
    }
  }
  r->train_median_abs_err = median_of(tr, r->n_train);
  r->heldout_median_abs_err = median_of(ho, r->n_heldout);
  r->heldout_quiet_median_abs_err = median_of(hq, r->n_heldout_quiet);
  g_free(hq);
  g_free(tr);
  g_free(ho);
  /* what kernel TLS would change for the reference configuration (model only here) */
  r->ktls_reference_cfg = (ValHostConfig){ .mode = VAL_MODE_SENDFILE_KTLS,
                                           .ktls = TRUE,
                                           .cipher = VAL_CIPHER_AES128GCM,
                                           .version = VAL_TLS_13,
                                           .server_threads = 1,
                                           .client_threads = 1,
                                           .connections = 8,
                                           .bytes_per_req = (double)MiB,
                                           .avail_cores = r->probe->cpus_online,
                                           .verify_hash = r->cfg.verify == VAL_VERIFY_ALL };
  if (r->cfg.pin) {
    ValPlacement pl;
    val_placement(1, 1, r->probe->cpus_online, &pl);
    r->ktls_reference_cfg.pinned = TRUE;
    r->ktls_reference_cfg.server_cpus = pl.server_cpus;
    r->ktls_reference_cfg.client_cpus = pl.client_cpus;
    r->ktls_reference_cfg.cross_share = pl.cross_share;
  }
  val_predict_host(&r->profile, &r->ktls_reference_cfg, &r->ktls_reference);
  if (r->probe->emulated) return TRUE; /* the runs were for the mechanics: nothing to fit or cross-check */
  if (r->profile_error[0]) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED,
                "the fitted host profile does not load in the appliance model (%s); not written as host-profile.yaml "
                "(see %s/host-profile.rejected.yaml)",
                r->profile_error, r->out_dir);
    return FALSE;
  }
  if (r->n_app_failed > 0) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED,
                "the appliance model could not predict %d of %u runs on the fitted profile (%s): the closed-form "
                "cross-check did not run",
                r->n_app_failed, r->rows->len, r->app_error);
    return FALSE;
  }
  return TRUE;
}

/* ---- the whole procedure ---------------------------------------------------------- */

gboolean val_validate_run(const ValValidateConfig *cfg_in, ValReport **out, GError **error)
{
  int64_t t0 = val_now_ns();
  ValReport *r = g_new0(ValReport, 1);
  *out = r;
  r->cfg = *cfg_in;
  ValValidateConfig *cfg = &r->cfg;
  r->out_dir = g_strdup(cfg->out_dir ? cfg->out_dir : "validate-out");
  cfg->out_dir = r->out_dir;
  if (cfg->warmup_s <= 0) cfg->warmup_s = cfg->quick ? VAL_QUICK_WARMUP_S : VAL_FULL_WARMUP_S;
  if (cfg->duration_s <= 0) cfg->duration_s = cfg->quick ? VAL_QUICK_DURATION_S : VAL_FULL_DURATION_S;
  if (cfg->reps <= 0) cfg->reps = cfg->quick ? VAL_QUICK_REPS : VAL_FULL_REPS;
  r->rows = g_array_new(FALSE, TRUE, sizeof(ValPredRow));

  val_progress(cfg->progress, "probing the host");
  r->probe = val_probe_run();
  val_progress(cfg->progress, "%s", r->probe->ktls.reason);
  int maxt = cfg->max_threads > 0 ? cfg->max_threads : r->probe->cpus_online;

  val_progress(cfg->progress, "microbenchmarks");
  ValMbConfig mc = { .clock_hz = r->probe->clock_hz,
                     .seconds_per_item = cfg->quick ? MB_SECONDS_QUICK : MB_SECONDS_FULL,
                     .dram_bytes = (cfg->quick ? MB_DRAM_MIB_QUICK : MB_DRAM_MIB_FULL) * MiB,
                     .socket_bytes = (cfg->quick ? MB_SOCKET_MIB_QUICK : MB_SOCKET_MIB_FULL) * MiB };
  if (!val_mb_run(&mc, &r->mb, error)) return FALSE;
  /* a few points in --quick (about 1 s), six in full */
  ValLatConfig lc = { .load_threads = cfg->load_threads,
                      .chase_bytes = (cfg->quick ? LAT_CHASE_MIB_QUICK : LAT_CHASE_MIB_FULL) * MiB,
                      .load_bytes = (cfg->quick ? LAT_LOAD_MIB_QUICK : LAT_LOAD_MIB_FULL) * MiB,
                      .seconds = cfg->quick ? LAT_SECONDS_QUICK : LAT_SECONDS_FULL,
                      .seed = cfg->seed + 1 };
  val_lat_default_delays(&lc, cfg->quick);
  val_progress(cfg->progress, "DRAM loaded latency: %d points", lc.n_delays + 1);
  g_autoptr(GError) lerr = NULL;
  if (!val_lat_measure(&lc, &r->lat, &lerr)) g_strlcpy(r->lat_error, lerr->message, sizeof r->lat_error);
  for (int i = 0; i < r->lat.n; i++)
    val_progress(cfg->progress, "  %d loading threads, delay %4d: %7.2f GB/s, %6.1f ns", r->lat.pt[i].load_threads,
                 r->lat.pt[i].delay, r->lat.pt[i].GBps, r->lat.pt[i].latency_ns);

  g_autofree char *tmp = NULL;
  const char *root = cfg->work_dir;
  if (!root) {
    tmp = g_dir_make_tmp("ocasim-validate-XXXXXX", NULL);
    if (!tmp) {
      g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "cannot create a temporary directory: %s", g_strerror(errno));
      return FALSE;
    }
    root = tmp;
  }
  gboolean ok = TRUE;
  errno = 0;
  int old_nice = getpriority(PRIO_PROCESS, 0);
  r->nice_used = old_nice;
  if (!cfg->keep_nice && cfg->nice != old_nice) {
    if (setpriority(PRIO_PROCESS, 0, cfg->nice) == 0)
      r->nice_used = cfg->nice;
    else
      g_snprintf(r->nice_note, sizeof r->nice_note, "could not set nice %d: %s", cfg->nice, g_strerror(errno));
  }
  val_progress(cfg->progress, "mechanics: byte-exact bodies in every mode");
  ok = mechanics(r, root, error);

  int nspec = 0;
  const ValRunSpec *table = val_validate_specs(cfg->quick, &nspec);
  /* beyond 2 CPUs a full run adds held-out configurations sized to the host (labrun.h); on a
   * 2-CPU machine and in --quick there are none: the table is the one above */
  ValRunSpec extra[VAL_LAB_MAX_EXTRA];
  int nextra = cfg->quick ? 0 : val_lab_loopback_extra(r->probe->cpus_online, val_lab_min_node_cpus(), extra, VAL_LAB_MAX_EXTRA);
  ValRunSpec *specs = g_new0(ValRunSpec, nspec + nextra);
  int n = 0;
  /* an emulated CPU (QEMU TCG, the kTLS check VM): its timings are not usable, so only the kTLS
   * configurations run, to show the kernel path engages; nothing is fitted (fit_and_predict) */
  if (r->probe->emulated)
    val_progress(cfg->progress, "emulated CPU (%s): timings not usable for calibration; only the kTLS configurations run",
                 val_probe_hypervisor_name(r->probe));
  for (int i = 0; i < nspec + nextra; i++) {
    const ValRunSpec *t = i < nspec ? &table[i] : &extra[i - nspec];
    if (t->server_threads > maxt || t->client_threads > maxt) continue;
    if (r->probe->emulated && t->mode != VAL_MODE_SENDFILE_KTLS) continue;
    specs[n++] = *t;
  }
  if (ok) ok = val_measure_prepare(root, specs, n, error);
  /* seeded shuffle of the run order (drift of the machine spreads over all runs) */
  int *order = g_new(int, n);
  for (int i = 0; i < n; i++) order[i] = i;
  GRand *rng = g_rand_new_with_seed(cfg->seed);
  for (int i = n - 1; i > 0; i--) {
    int j = g_rand_int_range(rng, 0, i + 1), t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  g_rand_free(rng);
  ValMeasureConfig mcfg = { .warmup_s = cfg->warmup_s,
                            .duration_s = cfg->duration_s,
                            .reps = cfg->reps,
                            .clock_hz = r->probe->clock_hz,
                            .pin = cfg->pin,
                            .verify = cfg->verify,
                            .foreign_limit = VAL_FOREIGN_LIMIT,
                            .extra_reps = cfg->quick ? EXTRA_REPS_QUICK : EXTRA_REPS_FULL,
                            .wake_bytes = VAL_WAKE_BYTES };
  g_autoptr(ValCtrDram) dram = val_ctr_dram_open("/"); /* DRAM traffic per run where an uncore PMU is exposed */
  mcfg.dram = dram;
  val_progress(cfg->progress, "DRAM traffic per run: %s", val_ctr_dram_note(dram));
  ValRunResult *res = g_new0(ValRunResult, n);
  gboolean *have = g_new0(gboolean, n);
  /* the repetitions are interleaved: pass p runs the p-th repetition of every spec (in the
   * shuffled order), so a slow spell of the machine lands in one repetition of several specs,
   * where the median drops it, rather than in all repetitions of one */
  gboolean more = TRUE;
  int runs_done = 0, runs_planned = n * MAX(mcfg.reps, 1); /* contended repetitions add to the plan */
  gint64 t_runs = val_now_ns();
  for (int pass = 1; ok && more; pass++) {
    more = FALSE;
    for (int k = 0; k < n && ok; k++) {
      int i = order[k];
      if (!val_measure_needs_rep(&mcfg, &res[i])) continue;
      ok = val_measure_rep(&mcfg, root, &specs[i], &res[i], error);
      if (!ok) break;
      const ValRunSample *last = &res[i].all[res[i].attempts - 1];
      g_autofree char *label = val_run_spec_label(&specs[i]);
      runs_done++;
      runs_planned = MAX(runs_planned, runs_done);
      double per_run_s = (double)(val_now_ns() - t_runs) * 1e-9 / runs_done;
      val_progress(cfg->progress, "pass %d run %2d/%d %-52s %7.2f Gb/s%s (%d/%d runs, %.1f s/run, ETA %.0f s)", pass, k + 1, n,
                   label, last->gbps, val_measure_contended(&mcfg, last) ? " [contended]" : "", runs_done, runs_planned,
                   per_run_s, per_run_s * (runs_planned - runs_done));
      more = more || val_measure_needs_rep(&mcfg, &res[i]);
    }
  }
  for (int i = 0; i < n; i++) /* after a failure, what was measured still goes in the report */
    if (res[i].attempts > 0) {
      val_measure_finish(&mcfg, &res[i]);
      have[i] = TRUE;
    }
  for (int pass = 0; pass < 2; pass++) /* training rows first, then held out, in table order */
    for (int i = 0; i < n; i++)
      if (have[i] && specs[i].train == (pass == 0)) {
        ValPredRow row = { .run = res[i] };
        g_array_append_val(r->rows, row);
      }
  g_free(order);
  g_free(res);
  g_free(have);
  g_free(specs);
  if (!cfg->work_dir) val_rm_rf(root);
  if (r->nice_used != old_nice) setpriority(PRIO_PROCESS, 0, old_nice);
  if (ok) {
    val_progress(cfg->progress, "fitting the host profile");
    ok = fit_and_predict(r, error);
  }
  r->elapsed_s = (double)(val_now_ns() - t0) * 1e-9;
  return ok;
}
