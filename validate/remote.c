/* validate/remote.c — calibration over a real interface (see remote.h).
 *
 * A run: the server (serve/server.c) on the files of root, bound to the given address; every
 * client started at once through its command prefix as `ocasim load ... --requests N --json`
 * with each body's SHA-256 (count mode: each client moves connections x requests x file bytes,
 * whatever its speed); counter snapshots (validate/counters.c) before the first client starts and
 * after the last ends; throughput = body bytes x 8 / the longest client's own load window (its
 * start-up, an ssh login or a netns exec, is outside it; the counters' window includes it, so
 * rates from counters are over the same load window and slightly low where they idle).
 * An uncached run serves a file set each client fetches once, dropped from the page cache before
 * the run (posix_fadvise DONTNEED), so the drive's read counters carry every body byte.
 * The model: host-platform.yaml with the run's data path, request size (= file size, fixed), a
 * one-title catalogue that the page cache holds (uncached runs: the set's titles, nocache: every
 * byte from a drive), and every CPU available; the bottleneck law's X*
 * and, at the measured throughput, each resource's utilisation (modes/bound.h).
 * Leaves out: clients' own CPU (on a lab server they are other machines; in the namespace test
 * they share this host and their CPU shows in the box's busy cores), per-client placement.
 */
#include "validate/remote.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <math.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "models/modes/bound.h"
#include "models/appliance/loader.h"
#include "models/modes/interval.h"
#include "models/appliance/demand.h"
#include "sim/conf.h"
#include "sim/json.h"
#include "serve/client.h"
#include "validate/measure.h"
#include "validate/pipeline.h"
#include "serve/util.h"

/* Wall-clock cap of a run's clients when the config gives none, s (assumed: far above a
 * calibration run). */
#define REMOTE_DEFAULT_TIMEOUT_S 600
/* Stall timeout each client gets (ocasim load --timeout), s (assumed, as loadgen.h's default). */
#define REMOTE_CLIENT_TIMEOUT_S 10
/* Eviction tries and the pause between them: up to 2 s for the run before's sockets to release
 * the pages they hold (their last ACKs; a TCP retransmit queue empties within an RTO, 200 ms at
 * least on Linux: RFC 6298's 1 s floor lowered by TCP_RTO_MIN). Assumed. */
#define EVICT_TRIES   40
#define EVICT_WAIT_US 50000

long val_remote_raise_nofile(void)
{
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return -1;
  if (rl.rlim_cur < rl.rlim_max) {
    struct rlimit up = { rl.rlim_max, rl.rlim_max };
    if (setrlimit(RLIMIT_NOFILE, &up) == 0) rl = up;
  }
  return rl.rlim_cur == RLIM_INFINITY ? G_MAXLONG : (long)rl.rlim_cur;
}

char *val_remote_spec_label(const ValRemoteSpec *s)
{
  GString *g = g_string_new(val_server_mode_name(s->mode));
  if (val_server_mode_is_tls(s->mode))
    g_string_append_printf(g, " tls%s %s", s->version == VAL_TLS_12 ? "1.2" : "1.3", val_cipher_name(s->cipher));
  if (s->file_bytes >= 1048576 && s->file_bytes % 1048576 == 0)
    g_string_append_printf(g, " s%d c%d n%d %" G_GUINT64_FORMAT "MiB x%d", s->server_threads, s->client_threads, s->connections,
                           s->file_bytes >> 20, s->requests);
  else
    g_string_append_printf(g, " s%d c%d n%d %" G_GUINT64_FORMAT "KiB x%d", s->server_threads, s->client_threads, s->connections,
                           s->file_bytes >> 10, s->requests);
  if (s->nfiles > 0) g_string_append(g, " uncached");
  return g_string_free(g, FALSE);
}

static gboolean name_ok(const char *n)
{
  if (!n || !*n) return FALSE;
  for (const char *c = n; *c; c++)
    if (!g_ascii_isalnum(*c) && !strchr("._:@-", *c)) return FALSE;
  return TRUE;
}

char **val_remote_client_argv(const ValRemoteConfig *rc, const char *name, int port, const ValRemoteSpec *s,
                              const ValRemoteFile *files, int n, GError **error)
{
  GPtrArray *a = g_ptr_array_new();
  const char *exec = rc->exec ? rc->exec : "ssh {}";
  if (name) {
    if (!name_ok(name)) {
      g_set_error(error, VAL_ERROR, VAL_ERROR_INVALID, "client '%s': only letters, digits and ._:@- are allowed", name);
      g_ptr_array_free(a, TRUE);
      return NULL;
    }
    g_auto(GStrv) parts = g_strsplit(exec, "{}", -1);
    g_autofree char *cmd = g_strjoinv(name, parts);
    int argc = 0;
    char **argv = NULL;
    GError *e = NULL;
    if (*cmd && !g_shell_parse_argv(cmd, &argc, &argv, &e)) {
      g_set_error(error, VAL_ERROR, VAL_ERROR_INVALID, "--client-exec '%s': %s", exec, e->message);
      g_error_free(e);
      g_ptr_array_free(a, TRUE);
      return NULL;
    }
    for (int i = 0; i < argc; i++) g_ptr_array_add(a, argv[i]);
    g_free(argv); /* the strings moved into a */
  }
  g_ptr_array_add(a, g_strdup(name ? (rc->client_ocasim ? rc->client_ocasim : "ocasim")
                                   : (rc->local_ocasim ? rc->local_ocasim : "/proc/self/exe")));
  g_ptr_array_add(a, g_strdup("load"));
  g_ptr_array_add(a, g_strdup("--host"));
  g_ptr_array_add(a, g_strdup(name ? rc->server_addr : "127.0.0.1"));
  g_ptr_array_add(a, g_strdup("--port"));
  g_ptr_array_add(a, g_strdup_printf("%d", port));
  if (!val_server_mode_is_tls(s->mode))
    g_ptr_array_add(a, g_strdup("--plain"));
  else {
    g_ptr_array_add(a, g_strdup("--tls-version"));
    g_ptr_array_add(a, g_strdup(s->version == VAL_TLS_12 ? "1.2" : s->version == VAL_TLS_13 ? "1.3" : "any"));
    g_ptr_array_add(a, g_strdup("--cipher"));
    g_ptr_array_add(a, g_strdup(s->cipher == VAL_CIPHER_ANY ? "any" : val_cipher_name(s->cipher)));
  }
  for (int f = 0; f < n; f++) {
    char hex[65];
    for (int i = 0; i < 32; i++) g_snprintf(hex + 2 * i, 3, "%02x", files[f].sha[i]);
    g_ptr_array_add(a, g_strdup("--path"));
    g_ptr_array_add(a, g_strdup(files[f].path));
    g_ptr_array_add(a, g_strdup("--sha256"));
    g_ptr_array_add(a, g_strdup(hex));
  }
  g_ptr_array_add(a, g_strdup("--requests"));
  g_ptr_array_add(a, g_strdup_printf("%d", MAX(s->requests, 1)));
  g_ptr_array_add(a, g_strdup("--connections"));
  g_ptr_array_add(a, g_strdup_printf("%d", MAX(s->connections, 1)));
  g_ptr_array_add(a, g_strdup("--threads"));
  g_ptr_array_add(a, g_strdup_printf("%d", CLAMP(s->client_threads, 1, MAX(s->connections, 1))));
  g_ptr_array_add(a, g_strdup("--timeout"));
  g_ptr_array_add(a, g_strdup_printf("%d", REMOTE_CLIENT_TIMEOUT_S));
  g_ptr_array_add(a, g_strdup("--json"));
  g_ptr_array_add(a, NULL);
  return (char **)g_ptr_array_free(a, FALSE);
}

/* Adds one client's JSON line to the run. */
static gboolean add_result(ValRemoteRun *r, const char *who, const char *out, GError **error)
{
  g_autoptr(JsonParser) p = json_parser_new();
  const char *brace = out ? strchr(out, '{') : NULL;
  if (!brace || !json_parser_load_from_data(p, brace, -1, NULL) || !JSON_NODE_HOLDS_OBJECT(json_parser_get_root(p))) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "client %s: no JSON result (output: %.120s)", who, out ? out : "");
    return FALSE;
  }
  JsonObject *o = json_node_get_object(json_parser_get_root(p));
  r->requests_ok += (uint64_t)json_object_get_int_member_with_default(o, "requests_ok", 0);
  r->bytes_body += (uint64_t)json_object_get_int_member_with_default(o, "bytes_body", 0);
  r->errors += (uint64_t)json_object_get_int_member_with_default(o, "errors", 0);
  r->sha_checked = r->sha_checked && json_object_get_boolean_member_with_default(o, "sha256_checked", FALSE);
  r->load_s = MAX(r->load_s, json_object_get_double_member_with_default(o, "elapsed_s", 0));
  return TRUE;
}

/* Kills the clients still running at the deadline (force_exit: SIGKILL), unless stopped first. */
typedef struct {
  GSubprocess **procs;
  int n;
  gint64 deadline_ns;
  GMutex lock;
  GCond cond;
  gboolean stop, fired;
} Watchdog;

static gpointer watchdog(gpointer data)
{
  Watchdog *w = data;
  g_mutex_lock(&w->lock);
  while (!w->stop) {
    gint64 left_ns = w->deadline_ns - val_now_ns();
    if (left_ns <= 0) {
      for (int i = 0; i < w->n; i++)
        if (w->procs[i]) g_subprocess_force_exit(w->procs[i]);
      w->fired = TRUE;
      break;
    }
    g_cond_wait_until(&w->cond, &w->lock, g_get_monotonic_time() + MIN(left_ns / 1000, G_TIME_SPAN_SECOND));
  }
  g_mutex_unlock(&w->lock);
  return NULL;
}

gboolean val_remote_run(const ValRemoteConfig *rc, gboolean loopback, const char *root, const ValRemoteSpec *spec,
                        ValCtrDram *dram, ValRemoteRun *out, GError **error)
{
  memset(out, 0, sizeof *out);
  out->spec = *spec;
  out->loopback = loopback;
  out->sha_checked = TRUE;
  int nc = (int)g_strv_length(rc->clients); /* the loopback twin runs as many clients, here */
  out->nclients = nc;
  if (nc < 1) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_INVALID, "no clients");
    return FALSE;
  }
  /* the files: one shared (cached) file, or each client's own slice of the uncached set */
  int per_client = spec->nfiles > 0 ? spec->nfiles : 1;
  g_autofree ValRemoteFile *files = g_new0(ValRemoteFile, (gsize)nc * per_client);
  if (spec->nfiles > 0) {
    if (!val_remote_prepare_set(root, spec->file_bytes, nc * per_client, files, error) ||
        !val_remote_evict(root, files, nc * per_client, &out->cached_before_bytes, error))
      return FALSE;
    out->spec.connections = spec->nfiles;
    out->spec.requests = 1;
  } else {
    g_autofree char *rel = val_measure_file_path(spec->file_bytes);
    g_autofree char *full = g_build_filename(root, rel, NULL);
    g_strlcpy(files[0].path, rel, sizeof files[0].path);
    if (!val_sha256_file_range(full, 0, spec->file_bytes, files[0].sha, error)) return FALSE;
  }
  const ValRemoteSpec *rs = &out->spec;
  ValServerConfig sc = { .root = root,
                         .bind_addr = loopback ? "127.0.0.1" : rc->server_addr,
                         .mode = spec->mode,
                         .threads = MAX(spec->server_threads, 1),
                         .quiet = TRUE };
  ValServer *srv = val_server_start(&sc, error);
  if (!srv) return FALSE;
  int port = val_server_port(srv);
  out->expected_requests = (uint64_t)nc * (uint64_t)MAX(rs->connections, 1) * (uint64_t)MAX(rs->requests, 1);
  out->expected_bytes = out->expected_requests * rs->file_bytes;
  GSubprocess **procs = g_new0(GSubprocess *, nc);
  gboolean ok = TRUE;
  ValCtrSnap a, b;
  val_ctr_snapshot("/", dram, &a);
  gint64 t0 = val_now_ns();
  for (int i = 0; i < nc && ok; i++) {
    g_auto(GStrv) argv = val_remote_client_argv(rc, loopback ? NULL : rc->clients[i], port, rs,
                                                spec->nfiles > 0 ? files + (gsize)i * per_client : files, per_client, error);
    if (!argv) {
      ok = FALSE;
      break;
    }
    procs[i] =
        g_subprocess_newv((const char *const *)argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_MERGE, error);
    if (!procs[i]) ok = FALSE;
  }
  /* a client past the timeout is killed by the watchdog; its run fails */
  Watchdog wd = { .procs = procs,
                  .n = nc,
                  .deadline_ns = t0 + (gint64)((rc->timeout_s > 0 ? rc->timeout_s : REMOTE_DEFAULT_TIMEOUT_S) * 1e9) };
  g_mutex_init(&wd.lock);
  g_cond_init(&wd.cond);
  GThread *wt = g_thread_new("remote-watchdog", watchdog, &wd);
  for (int i = 0; i < nc; i++) {
    if (!procs[i]) continue;
    g_autofree char *stdout_buf = NULL;
    g_autoptr(GError) e = NULL;
    gboolean done = g_subprocess_communicate_utf8(procs[i], NULL, NULL, &stdout_buf, NULL, &e);
    const char *who = loopback ? "loopback" : rc->clients[i];
    if (!done) {
      g_subprocess_force_exit(procs[i]);
      if (ok) g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "client %s: %s", who, e ? e->message : "no result");
      ok = FALSE;
      continue;
    }
    GError **ep = ok ? error : NULL;
    if (!add_result(out, who, stdout_buf, ep))
      ok = FALSE;
    else if (!g_subprocess_get_successful(procs[i])) {
      if (ok)
        g_set_error(error, VAL_ERROR, VAL_ERROR_MISMATCH, "client %s: exit status %d: %.160s", who,
                    g_subprocess_get_exit_status(procs[i]), stdout_buf);
      ok = FALSE;
    }
  }
  out->wall_s = (double)(val_now_ns() - t0) * 1e-9;
  val_ctr_snapshot("/", dram, &b);
  g_mutex_lock(&wd.lock);
  wd.stop = TRUE;
  g_cond_signal(&wd.cond);
  g_mutex_unlock(&wd.lock);
  g_thread_join(wt);
  g_mutex_clear(&wd.lock);
  g_cond_clear(&wd.cond);
  if (wd.fired && ok) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "the clients did not finish in %.0f s: stopped",
                (double)(wd.deadline_ns - t0) * 1e-9);
    ok = FALSE;
  }
  for (int i = 0; i < nc; i++)
    if (procs[i]) {
      g_subprocess_wait(procs[i], NULL, NULL);
      g_object_unref(procs[i]);
    }
  g_free(procs);
  val_server_stop_stats(srv, &out->server);
  const char *nf = loopback ? "lo" : rc->net_filter;
  val_ctr_delta(&a, &b, out->wall_s, rc->disk_filter ? rc->disk_filter : "nvme", nf, dram, &out->ctr);
  if (!loopback && !rc->net_filter) { /* every interface but lo */
    ValCtrDelta lo;
    val_ctr_delta(&a, &b, out->wall_s, "-", "lo", dram, &lo);
    out->ctr.net_rx_bytes -= MIN(out->ctr.net_rx_bytes, lo.net_rx_bytes);
    out->ctr.net_tx_bytes -= MIN(out->ctr.net_tx_bytes, lo.net_tx_bytes);
    out->ctr.net_drops -= MIN(out->ctr.net_drops, lo.net_drops);
  }
  if (out->load_s <= 0 || out->load_s > out->wall_s) out->load_s = out->wall_s;
  out->gbps = out->load_s > 0 ? (double)out->bytes_body * 8 / out->load_s * 1e-9 : 0;
  out->cpu_share = out->ctr.ncpu ? out->ctr.busy_cores / out->ctr.ncpu : 0;
  out->cpu_bound = out->cpu_share >= VAL_CPU_BOUND;
  if (ok && (out->requests_ok != out->expected_requests || out->bytes_body != out->expected_bytes || out->errors)) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_MISMATCH,
                "%s: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " responses ok, %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                " body bytes, %" G_GUINT64_FORMAT " errors",
                loopback ? "loopback" : "remote", out->requests_ok, out->expected_requests, out->bytes_body, out->expected_bytes,
                out->errors);
    ok = FALSE;
  }
  return ok;
}

char *val_remote_set_path(uint64_t bytes, int k)
{
  return g_strdup_printf("/set-%" G_GUINT64_FORMAT "-%d.bin", bytes, k);
}

gboolean val_remote_prepare_set(const char *root, uint64_t bytes, int n, ValRemoteFile *files, GError **error)
{
  enum { CHUNK = 1 << 16 };
  g_autofree guint32 *buf = g_new(guint32, CHUNK / 4);
  for (int k = 0; k < n; k++) {
    g_autofree char *rel = val_remote_set_path(bytes, k);
    g_autofree char *full = g_build_filename(root, rel, NULL);
    g_strlcpy(files[k].path, rel, sizeof files[k].path);
    struct stat st;
    if (stat(full, &st) != 0 || (uint64_t)st.st_size != bytes) {
      int fd = open(full, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (fd < 0) {
        g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "cannot create %s: %s", full, g_strerror(errno));
        return FALSE;
      }
      GRand *g = g_rand_new_with_seed((guint32)(bytes * 2654435761u + (guint64)k)); /* content of (size, index) */
      gboolean ok = TRUE;
      for (uint64_t off = 0; off < bytes && ok; off += CHUNK) {
        size_t len = (size_t)MIN((uint64_t)CHUNK, bytes - off);
        for (size_t w = 0; w < CHUNK / 4; w++) buf[w] = g_rand_int(g);
        ok = write(fd, buf, len) == (ssize_t)len;
      }
      g_rand_free(g);
      ok = ok && fdatasync(fd) == 0;
      int e = errno;
      close(fd);
      if (!ok) {
        g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "cannot write %s: %s", full, g_strerror(e));
        return FALSE;
      }
    }
    if (!val_sha256_file_range(full, 0, bytes, files[k].sha, error)) return FALSE;
  }
  return TRUE;
}

/* Bytes of the first len bytes of fd that are in the page cache (mincore over a read-only map);
 * 0 for an empty file, len when it cannot be mapped (counted as cached: the caller waits). */
static uint64_t cached_bytes(int fd, uint64_t len)
{
  if (len == 0) return 0;
  long page = sysconf(_SC_PAGESIZE);
  void *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
  if (m == MAP_FAILED) return len;
  size_t pages = (size_t)((len + (uint64_t)page - 1) / (uint64_t)page);
  g_autofree unsigned char *vec = g_malloc(pages);
  uint64_t n = 0;
  if (mincore(m, len, vec) == 0)
    for (size_t i = 0; i < pages; i++) n += vec[i] & 1 ? (uint64_t)page : 0;
  else
    n = len;
  munmap(m, len);
  return MIN(n, len);
}

gboolean val_remote_evict(const char *root, const ValRemoteFile *files, int n, uint64_t *cached, GError **error)
{
  uint64_t left = 0;
  for (int attempt = 0; attempt < EVICT_TRIES; attempt++) {
    if (attempt) g_usleep(EVICT_WAIT_US);
    left = 0;
    for (int k = 0; k < n; k++) {
      g_autofree char *full = g_build_filename(root, files[k].path, NULL);
      int fd = open(full, O_RDONLY | O_CLOEXEC);
      struct stat st;
      if (fd < 0 || fstat(fd, &st) != 0) {
        g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "cannot open %s: %s", full, g_strerror(errno));
        if (fd >= 0) close(fd);
        return FALSE;
      }
      (void)fdatasync(fd); /* dirty pages are not dropped */
      (void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
      left += cached_bytes(fd, (uint64_t)st.st_size);
      close(fd);
    }
    if (left == 0) break;
  }
  if (cached) *cached = left;
  return TRUE;
}

/* ---- the model's prediction ------------------------------------------------------------ */

static const char *data_path_of(const ValRemoteRun *r)
{
  switch (r->spec.mode) {
    case VAL_MODE_SENDFILE: return "sendfile";
    case VAL_MODE_SENDFILE_KTLS:
      return r->server.ktls_conns > 0 ? "sendfile_sw_ktls" : "read_write"; /* no kTLS: SSL_sendfile falls back to user space */
    default: return "read_write";
  }
}

void val_remote_predict(const char *platform_yaml, ValRemoteRun *r)
{
  ValRemotePred *p = &r->pred;
  memset(p, 0, sizeof *p);
  g_autoptr(GError) e = NULL;
  uint64_t req = MAX(r->spec.file_bytes, (uint64_t)4096); /* the schema's smallest request_size */
  const char *path = data_path_of(r);
  g_autofree char *crypto =
      strcmp(path, "sendfile") /* a TLS path: the bulk cipher the run negotiated */
          ? g_strdup_printf("crypto: %s, ", r->spec.cipher == VAL_CIPHER_CHACHA20 ? "chacha20_poly1305" : "isal_aes_gcm")
          : g_strdup("");
  g_autofree char *scen =
      g_strdup_printf("kind: appliance\n"
                      "software: {data_path: %s, %spage_cache: %s}\n"
                      "workload: {request_size: %" G_GUINT64_FORMAT " B, request_size_dist: fixed, titles: %d, "
                      "cpu_cap: 100 %%}\n"
                      "ram: {title_size: %" G_GUINT64_FORMAT " B}\n",
                      path, crypto, r->spec.nfiles > 0 ? "nocache" : "lru", req,
                      r->spec.nfiles > 0 ? MAX(r->nclients, 1) * r->spec.nfiles : 1, req);
  g_autoptr(SimConfDoc) base = sim_conf_load_string(platform_yaml, "host-platform.yaml", &e);
  g_autoptr(SimConfDoc) top = base ? sim_conf_load_string(scen, "run.yaml", &e) : NULL;
  Appliance a;
  g_autoptr(DemandModel) m = NULL;
  if (top && sim_conf_overlay(base, sim_conf_doc_root(base), sim_conf_doc_root(top), &e) &&
      appliance_from_conf(sim_conf_doc_root(base), &a, NULL, &e))
    m = demand_build(&a, &e);
  if (!m) {
    g_strlcpy(p->error, e ? e->message : "no model", sizeof p->error);
    return;
  }
  int bn = -1;
  p->sat_gbps = demand_saturation_Bps(m, &bn) * 8e-9;
  g_strlcpy(p->bottleneck, bn >= 0 ? m->res[bn].name : "-", sizeof p->bottleneck);
  /* utilisations at the measured throughput (at most X*) */
  g_autoptr(BoundResult) br = bound_eval_rates(&a, m, MIN(r->gbps, p->sat_gbps));
  p->cpu_util = br->cpu_util;
  for (int i = 0; i < m->n_res && i < br->n_res; i++) {
    const DmResource *res = &m->res[i];
    double load = br->util[i] * res->capacity; /* units/s: u = X D / C */
    switch (res->kind) {
      case RK_DRAM:
        p->dram_GBps += load * 1e-9;
        p->dram_util_max = MAX(p->dram_util_max, br->util[i]);
        break;
      case RK_NVME:
        p->nvme_GBps += load * 1e-9;
        p->nvme_util_max = MAX(p->nvme_util_max, br->util[i]);
        break;
      case RK_NIC_PORT:
        p->nic_gbps += load * 8e-9;
        p->nic_util_max = MAX(p->nic_util_max, br->util[i]);
        break;
      default: break;
    }
  }
  p->ok = TRUE;
  /* the 80 % prediction interval of X* (models/modes/interval.h): the spreads of every value the
   * bound reads, host-platform.yaml's measured costs at their own spread; none (0, 0) when it fails */
  AppIntervalSpec spec;
  interval_spec_default(&spec);
  spec.no_contributors = TRUE; /* only the interval is read */
  AppInterval iv;
  if (interval_eval(&a, m->drive_share, 0, &spec, APP_INTERVAL_LEVEL, APP_INTERVAL_DRAWS, &iv, NULL)) {
    p->sat_gbps_lo = iv.throughput_gbps[0];
    p->sat_gbps_hi = iv.throughput_gbps[1];
  }
}

/* ---- report ------------------------------------------------------------------------------ */

static const ValRemoteRun *twin_of(const ValRemoteRun *runs, int n, const ValRemoteRun *r)
{
  for (int i = 0; i < n; i++)
    if (runs[i].loopback && !memcmp(&runs[i].spec, &r->spec, sizeof r->spec)) return &runs[i];
  return NULL;
}

char *val_remote_report_md(const ValRemoteRun *runs, int n, const char *platform_note)
{
  GString *s = g_string_new("## Predicted vs measured, resource by resource\n\n");
  if (platform_note) g_string_append_printf(s, "%s\n\n", platform_note);
  g_string_append(
      s,
      "Predicted: `ocasim bound` on host-platform.yaml with the run's test (X*, its bottleneck, and each "
      "resource at the measured throughput). Measured: body bytes / the clients' load window (their start-up "
      "excluded; counter rates over the same window); CPU = busy cores of the box / CPUs (/proc/stat); NIC = bytes on the run's interfaces; drives = "
      "/proc/diskstats reads; DRAM = uncore PMU or not measured. Interval: the 80 % prediction interval of X* "
      "(models/modes/interval.h; -: none could be drawn).\n\n");
  g_string_append(
      s, "| run | path | Gb/s meas | Gb/s pred (X*) | interval | err | CPU meas | CPU pred | NIC Gb/s meas | NIC Gb/s "
         "pred | drive GB/s meas | drive GB/s pred | DRAM GB/s meas | DRAM GB/s pred | CPU bound | model bottleneck |\n");
  g_string_append(s, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (int i = 0; i < n; i++) {
    const ValRemoteRun *r = &runs[i];
    const ValRemotePred *p = &r->pred;
    g_autofree char *label = val_remote_spec_label(&r->spec);
    double secs = MAX(r->load_s, 1e-9);
    char iv[48];
    if (p->ok && p->sat_gbps_hi > 0)
      g_snprintf(iv, sizeof iv, "%.3f-%.3f", p->sat_gbps_lo, p->sat_gbps_hi);
    else
      g_strlcpy(iv, "-", sizeof iv);
    char dram[48];
    if (r->ctr.dram)
      g_snprintf(dram, sizeof dram, "%.2f", r->ctr.dram_GBps);
    else
      g_strlcpy(dram, "not measured", sizeof dram);
    double err = p->ok && r->gbps > 0 ? (p->sat_gbps - r->gbps) / r->gbps : 0;
    g_string_append_printf(s, "| %s | %s | %.3f | ", label, r->loopback ? "loopback" : "remote", r->gbps);
    if (p->ok)
      g_string_append_printf(s, "%.3f | %s | %+.0f %% | %.0f %% | %.0f %% | %.3f | %.3f | %.3f | %.3f | %s | %.3f | %s | %s |\n",
                             p->sat_gbps, iv, 100 * err, 100 * r->cpu_share, 100 * p->cpu_util,
                             (double)r->ctr.net_tx_bytes * 8e-9 / secs, p->nic_gbps, (double)r->ctr.disk_read_bytes * 1e-9 / secs,
                             p->nvme_GBps, dram, p->dram_GBps, r->cpu_bound ? "yes" : "no", p->bottleneck);
    else
      g_string_append_printf(s, "- | - | - | %.0f %% | - | %.3f | - | %.3f | - | %s | - | %s | model: %s |\n", 100 * r->cpu_share,
                             (double)r->ctr.net_tx_bytes * 8e-9 / secs, (double)r->ctr.disk_read_bytes * 1e-9 / secs, dram,
                             r->cpu_bound ? "yes" : "no", p->error);
  }
  g_string_append(
      s, "\n## Remote clients vs loopback: bytes and counters\n\n"
         "| run | clients | responses ok | body bytes | SHA-256 every body | NIC bytes (rx+tx) remote | lo bytes "
         "loopback | NIC / body | lo / body | drops | kTLS TX sw / device |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (int i = 0; i < n; i++) {
    const ValRemoteRun *r = &runs[i];
    if (r->loopback) continue;
    const ValRemoteRun *t = twin_of(runs, n, r);
    g_autofree char *label = val_remote_spec_label(&r->spec);
    uint64_t nic = r->ctr.net_rx_bytes + r->ctr.net_tx_bytes, lo = t ? t->ctr.net_tx_bytes : 0;
    char tls[96];
    if (r->ctr.tls_stat)
      g_snprintf(tls, sizeof tls, "%" G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT, r->ctr.tls_tx_sw, r->ctr.tls_tx_device);
    else
      g_strlcpy(tls, "no /proc/net/tls_stat", sizeof tls);
    char drops[64]; /* the kernel's count, then the driver's own (ethtool -S) where it has one */
    if (r->ctr.nic_drops_measured)
      g_snprintf(drops, sizeof drops, "%" G_GUINT64_FORMAT " (driver %" G_GUINT64_FORMAT ")", r->ctr.net_drops, r->ctr.nic_drops);
    else
      g_snprintf(drops, sizeof drops, "%" G_GUINT64_FORMAT " (driver not measured)", r->ctr.net_drops);
    if (r->ctr.nic_tls_have & 1u << VAL_CTR_NIC_TLS_TX_ENC_BYTES)
      g_snprintf(tls + strlen(tls), sizeof tls - strlen(tls), "; NIC encrypted %.3g GB",
                 (double)r->ctr.nic_tls[VAL_CTR_NIC_TLS_TX_ENC_BYTES] * 1e-9);
    g_string_append_printf(
        s,
        "| %s | %d | %" G_GUINT64_FORMAT " (loopback %" G_GUINT64_FORMAT ") | %" G_GUINT64_FORMAT " (loopback %" G_GUINT64_FORMAT
        ") | %s | %" G_GUINT64_FORMAT " | %" G_GUINT64_FORMAT " | %.4f | %.4f | %s | %s |\n",
        label, r->nclients, r->requests_ok, t ? t->requests_ok : 0, r->bytes_body, t ? t->bytes_body : 0,
        r->sha_checked && (!t || t->sha_checked) ? "yes" : "no", nic, lo, r->bytes_body ? (double)nic / (double)r->bytes_body : 0,
        t && t->bytes_body ? (double)lo / (double)t->bytes_body : 0, drops, tls);
  }
  return g_string_free(s, FALSE);
}

void val_remote_runs_to_json(const ValRemoteRun *runs, int n, JsonBuilder *b)
{
  json_builder_begin_array(b);
  for (int i = 0; i < n; i++) {
    const ValRemoteRun *r = &runs[i];
    g_autofree char *label = val_remote_spec_label(&r->spec);
    json_builder_begin_object(b);
    sim_json_string(b, "run", label);
    sim_json_bool(b, "loopback", r->loopback);
    sim_json_int(b, "clients", r->nclients);
    sim_json_int(b, "requests_ok", (gint64)r->requests_ok);
    sim_json_int(b, "expected_requests", (gint64)r->expected_requests);
    sim_json_int(b, "bytes_body", (gint64)r->bytes_body);
    sim_json_int(b, "errors", (gint64)r->errors);
    sim_json_bool(b, "sha256_every_body", r->sha_checked);
    sim_json_number(b, "wall_s", r->wall_s);
    if (r->spec.nfiles > 0) sim_json_int(b, "cached_before_bytes", (gint64)r->cached_before_bytes);
    sim_json_number(b, "load_s", r->load_s);
    sim_json_number(b, "gbps", r->gbps);
    sim_json_number(b, "cpu_share", r->cpu_share);
    sim_json_bool(b, "cpu_bound", r->cpu_bound);
    sim_json_int(b, "server_ktls_conns", (gint64)r->server.ktls_conns);
    json_builder_set_member_name(b, "counters");
    val_ctr_to_json(&r->ctr, b);
    json_builder_set_member_name(b, "predicted");
    json_builder_begin_object(b);
    sim_json_bool(b, "ok", r->pred.ok);
    if (r->pred.ok) {
      sim_json_number(b, "sat_gbps", r->pred.sat_gbps);
      sim_json_string(b, "bottleneck", r->pred.bottleneck);
      sim_json_number(b, "cpu_util", r->pred.cpu_util);
      sim_json_number(b, "nic_gbps", r->pred.nic_gbps);
      sim_json_number(b, "nvme_GBps", r->pred.nvme_GBps);
      sim_json_number(b, "dram_GBps", r->pred.dram_GBps);
      if (r->pred.sat_gbps_hi > 0) {
        sim_json_pair(b, "interval_gbps", r->pred.sat_gbps_lo, r->pred.sat_gbps_hi);
      } else {
        json_builder_set_member_name(b, "interval_gbps");
        json_builder_add_null_value(b);
      }
    } else
      sim_json_string(b, "error", r->pred.error);
    json_builder_end_object(b);
    json_builder_end_object(b);
  }
  json_builder_end_array(b);
}
