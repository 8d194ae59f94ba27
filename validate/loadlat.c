/* validate/loadlat.c — the DRAM loaded-latency probe and the line through its points (see
 * loadlat.h). */
#include "validate/loadlat.h"

#include <errno.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "sim/json.h"
#include "serve/util.h"

#define LINE_BYTES 64
/* Hops between two looks at the clock: enough that the clock's cost is lost in them (about
 * 100 us at 100 ns a hop). */
#define HOPS_PER_CHECK 1024
/* Warm-up before each point's window, s: the loaders reach speed, the chase leaves the cached
 * lines. Assumed. */
#define LAT_WARMUP_S 0.05
/* Defaults of ValLatConfig's zero fields: the pointer-chase and per-loader buffers (MiB, far
 * above any LLC) and the window per point (s). Assumed. */
#define LAT_DEFAULT_CHASE_MIB 256
#define LAT_DEFAULT_LOAD_MIB  64
#define LAT_DEFAULT_SECONDS   0.3

void val_lat_default_delays(ValLatConfig *cfg, gboolean quick)
{
  /* spin iterations after every 64 lines a loading thread reads: 0 is full speed; each step
   * a factor of four less traffic per thread, so the points spread over the bandwidth range
   * (MLC steps its injection delay the same way) */
  static const int quick_delays[] = { 0, 200 };
  static const int full_delays[] = { 0, 50, 200, 800, 3200 };
  const int *d = quick ? quick_delays : full_delays;
  int n = quick ? (int)G_N_ELEMENTS(quick_delays) : (int)G_N_ELEMENTS(full_delays);
  cfg->n_delays = n;
  for (int i = 0; i < n; i++) cfg->delays[i] = d[i];
}

/* A buffer of @bytes, asked to be backed by huge pages (fewer TLB misses in the chase). */
static void *lat_alloc(size_t bytes)
{
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return NULL;
#ifdef MADV_HUGEPAGE
  madvise(p, bytes, MADV_HUGEPAGE);
#endif
  return p;
}

typedef struct {
  const uint64_t *buf;
  size_t words;
  int delay;
  int cpu;
  atomic_int *stop;
  _Atomic uint64_t lines; /* lines read so far */
  uint64_t sink;
} LoadArg;

/* A loading thread: reads one word per line of its buffer, over and over, pausing `delay`
 * spins after every 64 lines, until told to stop. */
static void *load_thread(void *p)
{
  LoadArg *a = p;
  val_pin_self(a->cpu);
  uint64_t s = 0, lines = 0;
  atomic_store_explicit(&a->lines, 0, memory_order_relaxed);
  const size_t step = LINE_BYTES / sizeof(uint64_t);
  while (!atomic_load_explicit(a->stop, memory_order_relaxed)) {
    for (size_t i = 0; i + 64 * step <= a->words; i += 64 * step) {
      for (size_t j = 0; j < 64 * step; j += step) s += a->buf[i + j];
      lines += 64;
      atomic_store_explicit(&a->lines, lines, memory_order_relaxed);
      for (volatile int k = 0; k < a->delay; k++) {}
      if (atomic_load_explicit(a->stop, memory_order_relaxed)) break;
    }
  }
  a->sink = s;
  return NULL;
}

/* Fills @chain (n lines) with one random cycle through all its lines (Sattolo's algorithm),
 * each line's first word pointing at the next line. */
static void build_chain(uint64_t *chain, size_t n, guint32 seed)
{
  const size_t step = LINE_BYTES / sizeof(uint64_t);
  guint32 *perm = g_new(guint32, n);
  for (size_t i = 0; i < n; i++) perm[i] = (guint32)i;
  GRand *rng = g_rand_new_with_seed(seed);
  for (size_t i = n - 1; i > 0; i--) {
    size_t j = (size_t)g_rand_int_range(rng, 0, (gint32)i); /* j < i: one cycle */
    guint32 t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  g_rand_free(rng);
  for (size_t i = 0; i < n; i++) chain[(size_t)i * step] = (uint64_t)(uintptr_t)&chain[(size_t)perm[i] * step];
  g_free(perm);
}

/* Lines the loading threads have read so far. */
static uint64_t loaded_lines(LoadArg *arg, int threads)
{
  uint64_t n = 0;
  for (int t = 0; t < threads; t++) n += atomic_load_explicit(&arg[t].lines, memory_order_relaxed);
  return n;
}

/* Chases the chain from *p, HOPS_PER_CHECK hops between clock readings, from the reading @now_ns
 * until one reaches @until_ns: returns the hops; *p is where the chase stands, *end_ns the last
 * reading. */
static uint64_t chase_until(volatile const uint64_t **p, int64_t now_ns, int64_t until_ns, int64_t *end_ns)
{
  volatile const uint64_t *q = *p;
  uint64_t hops = 0;
  while (now_ns < until_ns) {
    for (int i = 0; i < HOPS_PER_CHECK; i++) q = (const uint64_t *)(uintptr_t)*q;
    hops += HOPS_PER_CHECK;
    now_ns = val_now_ns();
  }
  *p = q;
  *end_ns = now_ns;
  return hops;
}

/* One point: the chase for `seconds` with `threads` loaders at `delay` (the calling thread
 * chases on CPU 0; its affinity is restored after). */
static void measure_point(uint64_t *chain, uint64_t **bufs, size_t load_words, int threads, int delay, double seconds,
                          ValLatPoint *out)
{
  int ncpu = MAX(1, val_online_cpus());
  atomic_int stop = 0;
  pthread_t tid[VAL_LAT_MAX_THREADS];
  LoadArg arg[VAL_LAT_MAX_THREADS];
  for (int t = 0; t < threads; t++) {
    arg[t] = (LoadArg){ .buf = bufs[t], .words = load_words, .delay = delay, .cpu = (t + 1) % ncpu, .stop = &stop };
    pthread_create(&tid[t], NULL, load_thread, &arg[t]);
  }
  cpu_set_t old;
  pthread_getaffinity_np(pthread_self(), sizeof old, &old);
  val_pin_self(0);
  volatile const uint64_t *p = chain;
  /* a short warm-up: the loaders reach speed, the chase leaves the cached lines */
  int64_t now = val_now_ns();
  chase_until(&p, now, now + (int64_t)(LAT_WARMUP_S * 1e9), &now);
  uint64_t lines0 = loaded_lines(arg, threads);
  int64_t start = val_now_ns();
  uint64_t hops = chase_until(&p, start, start + (int64_t)(seconds * 1e9), &now);
  uint64_t lines1 = loaded_lines(arg, threads);
  atomic_store(&stop, 1);
  for (int t = 0; t < threads; t++) pthread_join(tid[t], NULL);
  pthread_setaffinity_np(pthread_self(), sizeof old, &old);
  double window_ns = (double)(now - start);
  out->load_threads = threads;
  out->delay = delay;
  out->latency_ns = hops > 0 ? window_ns / (double)hops : 0.0;
  /* every line read in the window, the chase's included (bytes per ns = GB/s) */
  out->GBps = window_ns > 0 ? (double)(lines1 - lines0 + hops) * LINE_BYTES / window_ns : 0.0;
}

gboolean val_lat_measure(const ValLatConfig *cfg_in, ValLatCurve *out, GError **error)
{
  ValLatConfig cfg = *cfg_in;
  if (cfg.load_threads <= 0) cfg.load_threads = MAX(1, val_online_cpus() - 1);
  cfg.load_threads = MIN(cfg.load_threads, VAL_LAT_MAX_THREADS);
  if (cfg.n_delays <= 0) val_lat_default_delays(&cfg, TRUE);
  cfg.n_delays = MIN(cfg.n_delays, VAL_LAT_MAX_POINTS - 1);
  size_t chase = cfg.chase_bytes ? cfg.chase_bytes : ((size_t)LAT_DEFAULT_CHASE_MIB << 20);
  size_t load = cfg.load_bytes ? cfg.load_bytes : ((size_t)LAT_DEFAULT_LOAD_MIB << 20);
  double seconds = cfg.seconds > 0 ? cfg.seconds : LAT_DEFAULT_SECONDS;
  memset(out, 0, sizeof *out);
  uint64_t *chain = lat_alloc(chase);
  uint64_t **bufs = g_new0(uint64_t *, cfg.load_threads);
  gboolean ok = chain != NULL;
  for (int t = 0; ok && t < cfg.load_threads; t++) {
    bufs[t] = lat_alloc(load);
    ok = bufs[t] != NULL;
    if (ok) memset(bufs[t], 1 + t, load);
  }
  if (!ok) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "loaded-latency probe: cannot map its buffers: %s", g_strerror(errno));
  } else {
    build_chain(chain, chase / LINE_BYTES, cfg.seed ? cfg.seed : 1);
    measure_point(chain, bufs, load / sizeof(uint64_t), 0, 0, seconds, &out->pt[out->n++]);
    /* from the lightest load to the heaviest */
    for (int i = cfg.n_delays - 1; i >= 0; i--)
      measure_point(chain, bufs, load / sizeof(uint64_t), cfg.load_threads, cfg.delays[i], seconds, &out->pt[out->n++]);
  }
  if (chain) munmap(chain, chase);
  for (int t = 0; t < cfg.load_threads; t++)
    if (bufs[t]) munmap(bufs[t], load);
  g_free(bufs);
  return ok;
}

gboolean val_lat_fit(const ValLatPoint *pts, int n, double capacity_GBps, ValLatFit *out, GError **error)
{
  memset(out, 0, sizeof *out);
  if (n < 2 || !(capacity_GBps > 0)) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "loaded-latency line: needs 2 points or more and a capacity > 0 (got %d, %g)",
                n, capacity_GBps);
    return FALSE;
  }
  double *x = g_new(double, n), *y = g_new(double, n);
  double lo = INFINITY, hi = -INFINITY;
  for (int i = 0; i < n; i++) {
    x[i] = pts[i].GBps;
    y[i] = pts[i].latency_ns;
    lo = MIN(lo, x[i]);
    hi = MAX(hi, x[i]);
  }
  double c0 = 0, c1 = 0, cov00, cov01, cov11, sumsq = 0;
  int st = hi > lo ? gsl_fit_linear(x, 1, y, 1, (size_t)n, &c0, &c1, &cov00, &cov01, &cov11, &sumsq) : GSL_EINVAL;
  g_free(x);
  g_free(y);
  if (st != GSL_SUCCESS) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "loaded-latency line: %s",
                hi > lo ? gsl_strerror(st) : "every point at the same bandwidth");
    return FALSE;
  }
  out->idle_ns = c0;
  out->slope_ns_per_GBps = c1;
  out->capacity_GBps = capacity_GBps;
  out->load_latency_ns = MAX(0.0, c1 * capacity_GBps);
  out->rms_ns = sqrt(sumsq / n);
  return TRUE;
}

void val_lat_to_json(const ValLatCurve *c, const ValLatFit *fit, JsonBuilder *b)
{
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "points");
  json_builder_begin_array(b);
  for (int i = 0; i < c->n; i++) {
    json_builder_begin_object(b);
    sim_json_int(b, "load_threads", c->pt[i].load_threads);
    sim_json_int(b, "delay", c->pt[i].delay);
    sim_json_number(b, "GBps", c->pt[i].GBps);
    sim_json_number(b, "latency_ns", c->pt[i].latency_ns);
    json_builder_end_object(b);
  }
  json_builder_end_array(b);
  if (fit) {
    sim_json_number(b, "idle_ns", fit->idle_ns);
    sim_json_number(b, "slope_ns_per_GBps", fit->slope_ns_per_GBps);
    sim_json_number(b, "capacity_GBps", fit->capacity_GBps);
    sim_json_number(b, "load_latency_ns", fit->load_latency_ns);
    sim_json_number(b, "rms_ns", fit->rms_ns);
  }
  json_builder_end_object(b);
}
