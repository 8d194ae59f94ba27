/* validate/measure.c — measurement runs of the real serving path.
 *
 * Each repetition starts a fresh server and load generator (same process, loopback); with
 * pin, their threads are pinned as val_placement says (measure.h: disjoint CPU sets for the
 * server and the client, so the two ends of every connection run on different cores), else
 * the scheduler places them;
 * applies load for warmup_s, then measures a window of duration_s:
 *   Gb/s           = body bytes received x 8 / window / 1e9
 *   side cycles/B  = CPU time of that side's threads (pthread CPU clocks)
 *                    x clock_hz / body bytes
 *   box cycles/B   = busy jiffies of all CPUs in /proc/stat (user, nice, system,
 *                    irq, softirq) x clock_hz / body bytes
 *   foreign cores  = box busy - this process - ksoftirqd threads, per second of
 *                    window (another tenant's load; irq/softirq ticks are charged
 *                    to the interrupted thread with tick-based accounting)
 *   side foreign   = with pinned, disjoint server and client CPU sets: busy jiffies of that
 *                    side's CPUs (the cpuN lines of /proc/stat) - that side's threads -
 *                    ksoftirqd/N of those CPUs, per second: the part of the side's own
 *                    cores another tenant took (the model's side then holds only what is
 *                    left of them; a tenant on the other side's CPU does not slow it)
 *   steal cores    = the steal column of /proc/stat per second of window: time the
 *                    hypervisor gave our vCPUs to someone else
 * The result of a spec is the per-field median of its repetitions; the spread is
 * half the min-max range.  On a shared machine another tenant's load (foreign
 * cores, plus steal) competes for the CPUs: up to extra_reps more repetitions are run while
 * some exceed foreign_limit, and the least contended `reps` are kept.  A caller measuring
 * several specs can interleave their repetitions (val_measure_rep per spec in turn), so a
 * slow spell of the machine lands in one repetition of many specs, not in all of one.  Left out: frequency changes within a run
 * (the clock is the probe's nominal one), SMT siblings, interrupt placement of real NICs.
 */
#include "validate/measure.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/json.h"
#include "serve/client.h"
#include "serve/util.h"

char *val_measure_file_path(uint64_t bytes)
{
  return g_strdup_printf("/f-%" G_GUINT64_FORMAT ".bin", bytes);
}

char *val_run_spec_label(const ValRunSpec *s)
{
  char size[32];
  if (s->file_bytes >= (1 << 20) && s->file_bytes % (1 << 20) == 0)
    g_snprintf(size, sizeof size, "%" G_GUINT64_FORMAT "MiB", s->file_bytes >> 20);
  else if (s->file_bytes >= 1024 && s->file_bytes % 1024 == 0)
    g_snprintf(size, sizeof size, "%" G_GUINT64_FORMAT "KiB", s->file_bytes >> 10);
  else
    g_snprintf(size, sizeof size, "%" G_GUINT64_FORMAT "B", s->file_bytes);
  char range[48] = "";
  if (s->range_bytes) g_snprintf(range, sizeof range, " range %" G_GUINT64_FORMAT "KiB", s->range_bytes >> 10);
  if (!val_server_mode_is_tls(s->mode))
    return g_strdup_printf("%s plain s%dc%d n%d %s%s", val_server_mode_name(s->mode), s->server_threads, s->client_threads,
                           s->connections, size, range);
  return g_strdup_printf("%s tls%s %s s%dc%d n%d %s%s", val_server_mode_name(s->mode), val_tls_version_name(s->version),
                         val_cipher_name(s->cipher), s->server_threads, s->client_threads, s->connections, size, range);
}

static gboolean make_file(const char *path, uint64_t size, GError **error)
{
  struct stat st;
  if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size == size) return TRUE;
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "cannot create %s: %s", path, g_strerror(errno));
    return FALSE;
  }
  unsigned char *buf = g_malloc(1 << 16);
  uint64_t x = 0x9e3779b97f4a7c15ULL ^ size;
  gboolean ok = TRUE;
  for (uint64_t off = 0; off < size && ok;) {
    size_t n = (size_t)MIN((uint64_t)1 << 16, size - off);
    for (size_t i = 0; i < n; i += 8) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      memcpy(buf + i, &x, MIN((size_t)8, n - i));
    }
    ok = write(fd, buf, n) == (ssize_t)n;
    off += n;
  }
  g_free(buf);
  if (close(fd) != 0) ok = FALSE;
  if (!ok) g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "cannot write %s", path);
  return ok;
}

static void warm_cache(const char *path)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  char *buf = g_malloc(1 << 20);
  while (read(fd, buf, 1 << 20) > 0) {}
  g_free(buf);
  close(fd);
}

gboolean val_measure_prepare(const char *root, const ValRunSpec *specs, int nspecs, GError **error)
{
  if (g_mkdir_with_parents(root, 0755) != 0) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "cannot create %s: %s", root, g_strerror(errno));
    return FALSE;
  }
  for (int i = 0; i < nspecs; i++) {
    g_autofree char *rel = val_measure_file_path(specs[i].file_bytes);
    g_autofree char *p = g_build_filename(root, rel, NULL);
    if (!make_file(p, specs[i].file_bytes, error)) return FALSE;
    warm_cache(p);
  }
  return TRUE;
}

static void cpu_range(char *buf, size_t n, int first, int count)
{
  if (count <= 1)
    g_snprintf(buf, n, "CPU %d", first);
  else
    g_snprintf(buf, n, "CPUs %d-%d", first, first + count - 1);
}

void val_placement(int server_threads, int client_threads, int ncpus, ValPlacement *out)
{
  int S = MAX(server_threads, 1), C = MAX(client_threads, 1), n = MAX(ncpus, 1);
  memset(out, 0, sizeof *out);
  int ks;
  if (n == 1) {
    out->server_first = 0, out->server_cpus = 1, out->client_last = 0, out->client_cpus = 1;
    out->cross_share = 0.0;
  } else {
    if (S + C <= n)
      ks = S;
    else
      ks = CLAMP((int)lround((double)n * S / (S + C)), 1, n - 1);
    int kc = S + C <= n ? C : n - ks;
    out->server_first = 0, out->server_cpus = MIN(ks, S);
    out->client_cpus = MIN(kc, C), out->client_last = ks + out->client_cpus - 1;
    out->cross_share = 1.0;
  }
  char a[24], b[24];
  cpu_range(a, sizeof a, out->server_first, out->server_cpus);
  cpu_range(b, sizeof b, out->client_last - out->client_cpus + 1, out->client_cpus);
  g_snprintf(out->desc, sizeof out->desc, "server %s, client %s%s", a, b,
             S > out->server_cpus || C > out->client_cpus ? " (shared)" : "");
}

/* ---- CPU accounting ------------------------------------------------------ */

typedef struct {
  double busy_s, irqsoft_s, total_s; /* whole box, from /proc/stat */
  double steal_s;                    /* time the hypervisor ran something else on our vCPUs */
  double ksoftirqd_s;
  double cpu_busy_s[VAL_MAX_CPUS];      /* per CPU, from the cpuN lines of /proc/stat */
  double cpu_ksoftirqd_s[VAL_MAX_CPUS]; /* ksoftirqd/N of CPU N */
  int64_t process_ns, server_ns, client_ns, wall_ns;
  ValLoadResult load;
} Snap;

static void read_proc_stat(Snap *s)
{
  g_autofree char *txt = NULL;
  if (!g_file_get_contents("/proc/stat", &txt, NULL, NULL)) return;
  unsigned long long v[8] = { 0 };
  if (sscanf(txt, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) < 7)
    return;
  double hz = (double)sysconf(_SC_CLK_TCK);
  s->steal_s = (double)v[7] / hz; /* 0 where the kernel has no steal column */
  s->busy_s = (double)(v[0] + v[1] + v[2] + v[5] + v[6]) / hz;
  s->irqsoft_s = (double)(v[5] + v[6]) / hz;
  s->total_s = (double)(v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7]) / hz;
  for (char *l = strchr(txt, '\n'); l && g_str_has_prefix(l + 1, "cpu"); l = strchr(l + 1, '\n')) {
    int cpu = -1;
    if (sscanf(l + 1, "cpu%d %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]) < 8 ||
        cpu < 0 || cpu >= VAL_MAX_CPUS)
      continue;
    s->cpu_busy_s[cpu] = (double)(v[0] + v[1] + v[2] + v[5] + v[6]) / hz;
  }
}

/* (pid, cpu) of every ksoftirqd/N thread */
static GArray *find_ksoftirqd(void)
{
  GArray *pids = g_array_new(FALSE, FALSE, 2 * sizeof(int));
  DIR *d = opendir("/proc");
  if (!d) return pids;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!isdigit((unsigned char)e->d_name[0])) continue;
    g_autofree char *p = g_strdup_printf("/proc/%s/comm", e->d_name);
    g_autofree char *comm = NULL;
    if (g_file_get_contents(p, &comm, NULL, NULL) && g_str_has_prefix(comm, "ksoftirqd/")) {
      int pid_cpu[2] = { atoi(e->d_name), atoi(comm + strlen("ksoftirqd/")) };
      g_array_append_val(pids, pid_cpu);
    }
  }
  closedir(d);
  return pids;
}

static double task_cpu_s(int pid)
{
  g_autofree char *p = g_strdup_printf("/proc/%d/stat", pid);
  g_autofree char *txt = NULL;
  if (!g_file_get_contents(p, &txt, NULL, NULL)) return 0;
  char *rp = strrchr(txt, ')');
  if (!rp) return 0;
  unsigned long long ut = 0, st = 0;
  /* after ") ": state(3) ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime(14) stime(15) */
  if (sscanf(rp + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2) return 0;
  return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static void snap(Snap *s, ValServer *srv, ValLoad *ld, GArray *ksirq)
{
  memset(s, 0, sizeof *s);
  s->wall_ns = val_now_ns();
  read_proc_stat(s);
  for (guint i = 0; i < ksirq->len; i++) {
    const int *pc = (const int *)(void *)(ksirq->data + i * 2 * sizeof(int));
    double t = task_cpu_s(pc[0]);
    s->ksoftirqd_s += t;
    if (pc[1] >= 0 && pc[1] < VAL_MAX_CPUS) s->cpu_ksoftirqd_s[pc[1]] += t;
  }
  s->process_ns = val_process_cpu_ns();
  s->server_ns = val_server_cpu_ns(srv);
  s->client_ns = val_load_cpu_ns(ld);
  val_load_snapshot(ld, &s->load);
}

/* ---- one repetition ------------------------------------------------------- */

static ValLoadTarget *make_targets(const char *root, const ValRunSpec *spec, int *n, GError **error)
{
  g_autofree char *rel = val_measure_file_path(spec->file_bytes);
  g_autofree char *path = g_build_filename(root, rel, NULL);
  int k = spec->range_bytes ? 8 : 1;
  ValLoadTarget *t = g_new0(ValLoadTarget, k);
  for (int i = 0; i < k; i++) {
    t[i].path = g_strdup(rel);
    t[i].check_sha = TRUE;
    uint64_t first = 0, len = spec->file_bytes;
    if (spec->range_bytes) {
      len = MIN(spec->range_bytes, spec->file_bytes);
      first = (spec->file_bytes - len) / (uint64_t)(k - 1) * (uint64_t)i;
      t[i].has_range = TRUE;
      t[i].first = first;
      t[i].last = first + len - 1;
      t[i].expect_status = 206;
    } else {
      t[i].expect_status = 200;
    }
    t[i].expect_len = len;
    if (!val_sha256_file_range(path, first, len, t[i].sha, error)) {
      for (int j = 0; j <= i; j++) g_free(t[j].path);
      g_free(t);
      return NULL;
    }
  }
  *n = k;
  return t;
}

static gboolean one_rep(const ValMeasureConfig *cfg, const char *root, const ValRunSpec *spec, const ValPlacement *pl,
                        const ValLoadTarget *targets, int ntargets, ValRunSample *out, GError **error)
{
  memset(out, 0, sizeof *out);
  ValServerConfig sc = { .root = root,
                         .mode = spec->mode,
                         .threads = spec->server_threads,
                         .pin = cfg->pin,
                         .first_cpu = pl->server_first,
                         .ncpus = pl->server_cpus,
                         .quiet = TRUE };
  uint64_t tls0_sw = 0, tls0_dev = 0; /* kTLS sessions before the server starts */
  {
    g_autofree char *t = NULL;
    ValCtrSnap *c0 = g_new0(ValCtrSnap, 1);
    if (g_file_get_contents("/proc/net/tls_stat", &t, NULL, NULL) && val_ctr_parse_tls_stat(t, c0))
      tls0_sw = c0->tls_tx_sw, tls0_dev = c0->tls_tx_device;
    g_free(c0);
  }
  ValServer *srv = val_server_start(&sc, error);
  if (!srv) return FALSE;
  ValLoadConfig lc = { .port = val_server_port(srv),
                       .tls = val_server_mode_is_tls(spec->mode),
                       .version = spec->version,
                       .cipher = spec->cipher,
                       .connections = spec->connections,
                       .threads = spec->client_threads,
                       .pin = cfg->pin,
                       .last_cpu = pl->client_last,
                       .ncpus = pl->client_cpus,
                       .targets = targets,
                       .ntargets = ntargets,
                       .verify = cfg->verify,
                       .timeout_s = 10,
                       .wake_bytes = cfg->wake_bytes };
  ValLoad *ld = val_load_start(&lc, error);
  if (!ld) {
    val_server_stop(srv);
    return FALSE;
  }
  GArray *ksirq = find_ksoftirqd();
  val_sleep_ns((int64_t)(cfg->warmup_s * 1e9));
  Snap a, b;
  ValCtrSnap *ctr_a = g_new(ValCtrSnap, 1), *ctr_b = g_new(ValCtrSnap, 1);
  val_ctr_snapshot("/", cfg->dram, ctr_a);
  snap(&a, srv, ld, ksirq);
  val_sleep_ns((int64_t)(cfg->duration_s * 1e9));
  snap(&b, srv, ld, ksirq);
  val_ctr_snapshot("/", cfg->dram, ctr_b);
  ValServerStats st;
  val_server_stats(srv, &st);
  val_load_stop(ld, NULL);
  val_server_stop(srv);
  g_array_unref(ksirq);
  {
    /* the repetition's kTLS sessions: set up at connect, before the window; read after the stop */
    ValCtrSnap *cc = g_new(ValCtrSnap, 1);
    val_ctr_snapshot("/", NULL, cc);
    ValCtrDelta cd;
    double w = (double)(b.wall_ns - a.wall_ns) * 1e-9;
    val_ctr_delta(ctr_a, ctr_b, w, "nvme", "lo", cfg->dram, &cd);
    out->softirq_share = cd.softirq_share;
    out->lo_GBps = (double)cd.net_tx_bytes / w * 1e-9;
    out->disk_read_GBps = (double)cd.disk_read_bytes / w * 1e-9;
    out->pgpgin_GBps = (double)cd.pgpgin_bytes / w * 1e-9;
    out->dram_GBps = cd.dram ? cd.dram_GBps : -1;
    out->tls_tx_sw = (double)(cc->tls_tx_sw - MIN(cc->tls_tx_sw, tls0_sw));
    out->tls_tx_device = (double)(cc->tls_tx_device - MIN(cc->tls_tx_device, tls0_dev));
    g_free(cc);
  }
  g_free(ctr_a);
  g_free(ctr_b);

  ValLoadResult d;
  val_load_delta(&a.load, &b.load, &d);
  double win = (double)(b.wall_ns - a.wall_ns) * 1e-9;
  double bytes = (double)d.bytes_body, hz = cfg->clock_hz;
  out->gbps = bytes * 8 / win / 1e9;
  out->requests = (double)d.requests_ok;
  out->req_per_s = (double)d.requests_ok / win;
  out->bytes_per_req = d.requests_ok ? bytes / (double)d.requests_ok : bytes;
  out->errors = (double)val_load_errors(&d);
  double srv_s = (double)(b.server_ns - a.server_ns) * 1e-9, cli_s = (double)(b.client_ns - a.client_ns) * 1e-9;
  double proc_s = (double)(b.process_ns - a.process_ns) * 1e-9;
  double busy = b.busy_s - a.busy_s, irqs = b.irqsoft_s - a.irqsoft_s, ksi = b.ksoftirqd_s - a.ksoftirqd_s;
  if (bytes > 0) {
    out->server_cpb = srv_s * hz / bytes;
    out->client_cpb = cli_s * hz / bytes;
    out->box_cpb = busy * hz / bytes;
    out->softirq_cpb = ksi * hz / bytes;
    out->irq_softirq_cpb = irqs * hz / bytes;
  }
  out->server_util = srv_s / win;
  out->client_util = cli_s / win;
  out->box_busy_cores = busy / win;
  out->foreign_cores = MAX(0.0, (busy - proc_s - ksi) / win);
  out->steal_cores = MAX(0.0, (b.steal_s - a.steal_s) / win);
  /* each side's CPUs: what other tenants took of them (pinned, disjoint sets only) */
  if (cfg->pin && pl->server_first + pl->server_cpus <= pl->client_last - pl->client_cpus + 1 && pl->client_last < VAL_MAX_CPUS) {
    double sb = 0, cb = 0;
    for (int k = pl->server_first; k < pl->server_first + pl->server_cpus; k++)
      sb += (b.cpu_busy_s[k] - a.cpu_busy_s[k]) - (b.cpu_ksoftirqd_s[k] - a.cpu_ksoftirqd_s[k]);
    for (int k = pl->client_last - pl->client_cpus + 1; k <= pl->client_last; k++)
      cb += (b.cpu_busy_s[k] - a.cpu_busy_s[k]) - (b.cpu_ksoftirqd_s[k] - a.cpu_ksoftirqd_s[k]);
    out->server_foreign_cores = CLAMP((sb - srv_s) / win, 0.0, (double)pl->server_cpus);
    out->client_foreign_cores = CLAMP((cb - cli_s) / win, 0.0, (double)pl->client_cpus);
  }
  out->tls_version = d.tls_version;
  out->cipher = d.cipher;
  out->ktls_engaged = st.ktls_conns > 0;
  if (d.bytes_body == 0) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "no bytes moved (errors %" G_GUINT64_FORMAT ")", val_load_errors(&d));
    return FALSE;
  }
  return TRUE;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* clang-format off */
#define SAMPLE_FIELDS(X) \
  X(gbps) X(req_per_s) X(bytes_per_req) X(server_cpb) X(client_cpb) X(box_cpb) X(softirq_cpb) X(irq_softirq_cpb) \
  X(server_util) X(client_util) X(box_busy_cores) X(foreign_cores) X(server_foreign_cores) X(client_foreign_cores) \
  X(steal_cores) X(softirq_share) X(lo_GBps) X(disk_read_GBps) X(pgpgin_GBps) X(dram_GBps) X(tls_tx_sw) \
  X(tls_tx_device) X(errors) X(requests)
/* clang-format on */

static void summarise(ValRunResult *r)
{
  double v[VAL_MAX_REPS];
  int n = r->nrep;
#define MED(f)                                                      \
  for (int i = 0; i < n; i++) v[i] = r->rep[i].f;                   \
  qsort(v, (size_t)n, sizeof v[0], cmp_double);                     \
  r->median.f = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]); \
  r->spread.f = 0.5 * (v[n - 1] - v[0]);
  SAMPLE_FIELDS(MED)
#undef MED
  r->median.tls_version = r->rep[0].tls_version;
  r->median.cipher = r->rep[0].cipher;
  r->median.ktls_engaged = r->rep[0].ktls_engaged;
}

double val_measure_taken_cores(const ValRunSample *s)
{
  return s->foreign_cores + s->steal_cores;
}

/* Foreign load (cores other tenants took) above which a run counts as contended when the
 * caller gives no limit: a quarter of a core, as VAL_FOREIGN_LIMIT (pipeline.h). Assumed. */
#define MEASURE_DEFAULT_FOREIGN_LIMIT 0.25

gboolean val_measure_contended(const ValMeasureConfig *cfg, const ValRunSample *s)
{
  double limit = cfg->foreign_limit > 0 ? cfg->foreign_limit : MEASURE_DEFAULT_FOREIGN_LIMIT;
  return val_measure_taken_cores(s) > limit;
}

gboolean val_measure_needs_rep(const ValMeasureConfig *cfg, const ValRunResult *r)
{
  int reps = CLAMP(cfg->reps, 1, VAL_MAX_REPS);
  int extra = CLAMP(cfg->extra_reps, 0, VAL_MAX_REPS - reps);
  if (r->attempts < reps) return TRUE;
  if (r->attempts >= reps + extra) return FALSE;
  int quiet = 0;
  for (int i = 0; i < r->attempts; i++) quiet += !val_measure_contended(cfg, &r->all[i]);
  return quiet < reps; /* replace contended repetitions while the budget lasts */
}

gboolean val_measure_rep(const ValMeasureConfig *cfg, const char *root, const ValRunSpec *spec, ValRunResult *r, GError **error)
{
  if (r->attempts == 0) {
    memset(r, 0, sizeof *r);
    r->spec = *spec;
    r->pinned = cfg->pin;
    val_placement(spec->server_threads, spec->client_threads, val_online_cpus(), &r->placement);
    if (!cfg->pin) g_strlcpy(r->placement.desc, "unpinned", sizeof r->placement.desc);
  }
  if (r->attempts >= VAL_MAX_REPS) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "more than %d repetitions", VAL_MAX_REPS);
    return FALSE;
  }
  int ntg = 0;
  ValLoadTarget *tg = make_targets(root, spec, &ntg, error);
  gboolean ok = tg && one_rep(cfg, root, spec, &r->placement, tg, ntg, &r->all[r->attempts], error);
  for (int i = 0; tg && i < ntg; i++) g_free(tg[i].path);
  g_free(tg);
  if (ok)
    r->attempts++;
  else {
    g_autofree char *label = val_run_spec_label(spec);
    g_prefix_error(error, "run '%s': ", label);
  }
  return ok;
}

void val_measure_finish(const ValMeasureConfig *cfg, ValRunResult *r)
{
  int reps = CLAMP(cfg->reps, 1, VAL_MAX_REPS);
  /* keep the `reps` least contended, in run order */
  gboolean keep[VAL_MAX_REPS] = { FALSE };
  for (int k = 0; k < MIN(reps, r->attempts); k++) {
    int best = -1;
    for (int i = 0; i < r->attempts; i++)
      if (!keep[i] && (best < 0 || val_measure_taken_cores(&r->all[i]) < val_measure_taken_cores(&r->all[best]))) best = i;
    keep[best] = TRUE;
  }
  r->nrep = 0;
  for (int i = 0; i < r->attempts; i++)
    if (keep[i]) r->rep[r->nrep++] = r->all[i];
  summarise(r);
  if (r->spec.mode == VAL_MODE_SENDFILE_KTLS && !r->median.ktls_engaged)
    g_strlcpy(r->note, "kTLS did not engage: served in user space", sizeof r->note);
}

static void sample_json(JsonBuilder *b, const ValRunSample *s)
{
  json_builder_begin_object(b);
#define J(f) sim_json_number(b, #f, s->f);
  SAMPLE_FIELDS(J)
#undef J
  json_builder_end_object(b);
}

void val_measure_to_json(const ValRunResult *r, JsonBuilder *b)
{
  const ValRunSpec *s = &r->spec;
  json_builder_begin_object(b);
  g_autofree char *label = val_run_spec_label(s);
  sim_json_string(b, "label", label);
  json_builder_set_member_name(b, "spec");
  json_builder_begin_object(b);
  sim_json_string(b, "mode", val_server_mode_name(s->mode));
  sim_json_string(b, "tls_version", val_server_mode_is_tls(s->mode) ? val_tls_version_name(s->version) : "none");
  sim_json_string(b, "cipher", val_server_mode_is_tls(s->mode) ? val_cipher_name(s->cipher) : "none");
  sim_json_int(b, "server_threads", s->server_threads);
  sim_json_int(b, "client_threads", s->client_threads);
  sim_json_int(b, "connections", s->connections);
  sim_json_int(b, "file_bytes", (gint64)s->file_bytes);
  sim_json_int(b, "range_bytes", (gint64)s->range_bytes);
  sim_json_bool(b, "train", s->train);
  json_builder_end_object(b);
  json_builder_set_member_name(b, "median");
  sample_json(b, &r->median);
  json_builder_set_member_name(b, "spread");
  sample_json(b, &r->spread);
  json_builder_set_member_name(b, "repetitions");
  json_builder_begin_array(b);
  for (int i = 0; i < r->nrep; i++) sample_json(b, &r->rep[i]);
  json_builder_end_array(b);
  sim_json_int(b, "attempts", r->attempts);
  sim_json_bool(b, "ktls_engaged", r->median.ktls_engaged);
  sim_json_string(b, "placement", r->placement.desc);
  sim_json_string(b, "note", r->note);
  json_builder_end_object(b);
}
