/* validate/labrun.c — `ocasim validate --clients` (see labrun.h).
 *
 * The table, sized to the host: for each mode the host supports (plain sendfile, user-space TLS
 * 1.3 AES-128-GCM, sendfile with kernel TLS where the kernel takes TLS_TX), server threads 1, the
 * CPUs of one NUMA node and every CPU (each once), connections per client 8, 64 and enough for
 * about 4096 in all (thousands of connections, as a video server holds), and 1 MiB responses,
 * plus 16 KiB ones at the largest thread count (per-request costs), and per mode an uncached file
 * set (64 files of 64 MiB a client, evicted from the page cache: served from the drives). Each
 * cached run's requests per connection make it move about VAL_LAB_FULL_BYTES over all clients.
 * --quick: one server thread, 4 connections a client, 1 MiB, 64 MiB a run, each mode once, and
 * one plain uncached run of 4 files of 4 MiB a client.
 * Every run is made twice, over the clients' interface and with as many clients on loopback, so
 * the report sets bytes and counters side by side; the model predicts both on host-platform.yaml.
 */
#include "validate/labrun.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/json.h"
#include "serve/probe.h"
#include "serve/util.h"

#define KiB 1024ULL
#define MiB (1024ULL * 1024ULL)
/* Connections in all that the largest step aims at (assumed: thousands, as the issue asks; a
 * production box holds tens of thousands, beyond one client machine's sockets). */
#define LAB_MAX_CONNECTIONS 4096
/* Quick mode's connections per client (assumed: small). */
#define LAB_QUICK_CONNECTIONS 4
/* The uncached file set: files per client and their size, --quick (4 x 4 MiB a client) and full
 * (64 x 64 MiB, 4 GiB a client: past the page cache of a client-count share of a server's RAM
 * only with eviction, which the run does). Assumed. */
#define LAB_QUICK_SET_FILE_BYTES (4 * MiB)
#define LAB_FULL_SET_FILES       64
#define LAB_FULL_SET_FILE_BYTES  (64 * MiB)

/* An uncached run: each client fetches its own nfiles files once, evicted before the run. */
static void add_uncached(GArray *a, ValServerMode m, int threads, int nfiles, uint64_t file)
{
  ValRemoteSpec s = { .mode = m,
                      .version = val_server_mode_is_tls(m) ? VAL_TLS_13 : VAL_TLS_ANY,
                      .cipher = val_server_mode_is_tls(m) ? VAL_CIPHER_AES128GCM : VAL_CIPHER_ANY,
                      .server_threads = threads,
                      .client_threads = MIN(nfiles, threads),
                      .connections = nfiles,
                      .requests = 1,
                      .file_bytes = file,
                      .nfiles = nfiles };
  g_array_append_val(a, s);
}

static void add_spec(GArray *a, ValServerMode m, int threads, int conns, uint64_t file, uint64_t target, int nclients)
{
  ValRemoteSpec s = { .mode = m,
                      .version = val_server_mode_is_tls(m) ? VAL_TLS_13 : VAL_TLS_ANY,
                      .cipher = val_server_mode_is_tls(m) ? VAL_CIPHER_AES128GCM : VAL_CIPHER_ANY,
                      .server_threads = threads,
                      .client_threads = MIN(conns, threads),
                      .connections = conns,
                      .file_bytes = file };
  uint64_t per_req = (uint64_t)MAX(nclients, 1) * (uint64_t)conns * file;
  s.requests = (int)MAX((uint64_t)1, (target + per_req - 1) / per_req);
  g_array_append_val(a, s);
}

ValRemoteSpec *val_lab_specs(const ValLabHost *h, gboolean quick, int *n)
{
  GArray *a = g_array_new(FALSE, TRUE, sizeof(ValRemoteSpec));
  ValServerMode modes[3] = { VAL_MODE_SENDFILE, VAL_MODE_USERSPACE, VAL_MODE_SENDFILE_KTLS };
  int nmodes = h->ktls ? 3 : 2;
  int nc = MAX(h->nclients, 1);
  if (quick) {
    for (int m = 0; m < nmodes; m++) add_spec(a, modes[m], 1, LAB_QUICK_CONNECTIONS, MiB, VAL_LAB_QUICK_BYTES, nc);
    add_uncached(a, VAL_MODE_SENDFILE, 1, LAB_QUICK_CONNECTIONS, LAB_QUICK_SET_FILE_BYTES);
  } else {
    int threads[3] = { 1, MAX(h->cpus_per_node, 1), MAX(h->cpus, 1) };
    int conns[3] = { 8, 64, MAX(LAB_MAX_CONNECTIONS / nc, 8) };
    for (int m = 0; m < nmodes; m++)
      for (int t = 0; t < 3; t++) {
        if (t > 0 && threads[t] <= threads[t - 1]) continue; /* each thread count once */
        for (int c = 0; c < 3; c++) {
          if (c > 0 && conns[c] <= conns[c - 1]) continue;
          add_spec(a, modes[m], threads[t], MAX(conns[c], threads[t]), MiB, VAL_LAB_FULL_BYTES, nc);
        }
      }
    for (int m = 0; m < nmodes; m++) add_spec(a, modes[m], MAX(h->cpus, 1), 64, 16 * KiB, VAL_LAB_FULL_BYTES / 16, nc);
    for (int m = 0; m < nmodes; m++) add_uncached(a, modes[m], MAX(h->cpus, 1), LAB_FULL_SET_FILES, LAB_FULL_SET_FILE_BYTES);
  }
  *n = (int)a->len;
  return (ValRemoteSpec *)g_array_free(a, FALSE);
}

int val_lab_loopback_extra(int cpus, int cpus_per_node, ValRunSpec *out, int max)
{
  int n = 0;
  if (cpus <= 2) return 0;
  int ks[2] = { MAX(cpus_per_node, 1) / 2, cpus / 2 };
  ValServerMode modes[3] = { VAL_MODE_SENDFILE, VAL_MODE_USERSPACE, VAL_MODE_SENDFILE_KTLS };
  for (int t = 0; t < 2; t++) {
    int k = ks[t];
    if (k <= 2 || (t == 1 && k == ks[0])) continue; /* 1 and 2 threads are in the table already */
    int conns[2] = { 4 * k, 1024 };
    for (int m = 0; m < 3; m++)
      for (int c = 0; c < 2 && n < max; c++) {
        if (c == 1 && conns[1] <= conns[0]) continue;
        gboolean tls = val_server_mode_is_tls(modes[m]);
        out[n++] = (ValRunSpec){
          "", modes[m], tls ? VAL_TLS_13 : VAL_TLS_ANY, tls ? VAL_CIPHER_AES128GCM : VAL_CIPHER_ANY, k, k, conns[c], MiB, 0, FALSE
        };
      }
  }
  return n;
}

int val_lab_min_node_cpus(void)
{
  g_autoptr(ValHostPlat) h = val_hostplat_read("/");
  int m = h->cpus_online;
  for (int i = 0; i < h->numa_nodes && i < VAL_HP_MAX_NODES; i++)
    if (h->node_cpus[i] > 0) m = MIN(m, h->node_cpus[i]);
  return MAX(m, 1);
}

gboolean val_lab_run(const ValLabConfig *cfg, GError **error)
{
  const char *out_dir = cfg->out_dir ? cfg->out_dir : "validate-out";
  long nofile = val_remote_raise_nofile(); /* the server's connections: a socket and a file each */
  val_progress(cfg->progress, "probing the host (open-file limit %ld)", nofile);
  g_autoptr(ValProbe) probe = val_probe_run();
  g_autoptr(ValHostPlat) hp = val_hostplat_read("/");
  g_autofree char *costs = NULL;
  if (cfg->costs_file && !g_file_get_contents(cfg->costs_file, &costs, NULL, NULL)) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_INVALID, "--costs %s: cannot read it", cfg->costs_file);
    return FALSE;
  }
  g_autofree char *platform = NULL;
  if (cfg->platform_file) { /* the user's edited platform (README: calibrating a lab server, step 4) */
    if (cfg->costs_file) {
      g_set_error(error, VAL_ERROR, VAL_ERROR_INVALID, "--platform and --costs: give the costs in the platform file");
      return FALSE;
    }
    if (!g_file_get_contents(cfg->platform_file, &platform, NULL, NULL)) {
      g_set_error(error, VAL_ERROR, VAL_ERROR_INVALID, "--platform %s: cannot read it", cfg->platform_file);
      return FALSE;
    }
  } else
    platform = val_hostplat_yaml(hp, probe->clock_hz, 0, probe->ktls.tx_ok, costs);
  if (g_mkdir_with_parents(out_dir, 0755) != 0) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "cannot create %s: %s", out_dir, g_strerror(errno));
    return FALSE;
  }
  if (!val_write_text(out_dir, "host-platform.yaml", platform, error)) return FALSE;

  ValLabHost h = { .cpus = probe->cpus_online, .cpus_per_node = probe->cpus_online, .ktls = probe->ktls.tx_ok };
  for (int i = 0; i < hp->numa_nodes && i < VAL_HP_MAX_NODES; i++)
    if (hp->node_cpus[i] > 0) h.cpus_per_node = MIN(h.cpus_per_node, hp->node_cpus[i]);
  h.nclients = (int)g_strv_length(cfg->remote.clients);
  int n = 0;
  g_autofree ValRemoteSpec *specs = val_lab_specs(&h, cfg->quick, &n);

  g_autofree char *tmp = NULL;
  const char *root = cfg->work_dir;
  if (!root) {
    tmp = g_dir_make_tmp("ocasim-lab-XXXXXX", NULL);
    if (!tmp) {
      g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "cannot create a temporary directory: %s", g_strerror(errno));
      return FALSE;
    }
    root = tmp;
  }
  ValRunSpec files[2] = { { .file_bytes = MiB }, { .file_bytes = 16 * KiB } };
  gboolean ok = val_measure_prepare(root, files, 2, error);
  g_autoptr(ValCtrDram) dram = val_ctr_dram_open("/");
  val_progress(cfg->progress, "DRAM traffic: %s", val_ctr_dram_note(dram));
  GArray *runs = g_array_new(FALSE, TRUE, sizeof(ValRemoteRun));
  for (int i = 0; i < n && ok; i++) {
    g_autofree char *label = val_remote_spec_label(&specs[i]);
    for (int lo = 0; lo < (cfg->no_loopback ? 1 : 2) && ok; lo++) {
      ValRemoteRun r;
      ok = val_remote_run(&cfg->remote, lo, root, &specs[i], dram, &r, error);
      val_remote_predict(platform, &r);
      g_array_append_val(runs, r);
      val_progress(cfg->progress,
                   "run %d/%d %-44s %-8s %8.3f Gb/s, %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT " ok, model %.3f Gb/s (%s)", i + 1,
                   n, label, lo ? "loopback" : "remote", r.gbps, r.requests_ok, r.expected_requests, r.pred.sat_gbps,
                   r.pred.ok ? r.pred.bottleneck : r.pred.error);
    }
  }
  if (!cfg->work_dir) val_rm_rf(root);
  g_autofree char *note =
      g_strdup_printf("Host: %s, %d CPUs, %d NUMA node(s); clients: %d through `%s`; server address %s; "
                      "DRAM traffic %s.",
                      probe->cpu_model, probe->cpus_online, hp->numa_nodes, h.nclients,
                      cfg->remote.exec ? cfg->remote.exec : "ssh {}", cfg->remote.server_addr, val_ctr_dram_note(dram));
  g_autofree char *md = val_remote_report_md((ValRemoteRun *)runs->data, (int)runs->len, note);
  g_autofree char *doc = g_strconcat("# ocasim validate --clients: calibration over the real interface\n\n", md, NULL);
  g_autoptr(GError) werr = NULL;
  gboolean wrote = val_write_text(out_dir, "report-lab.md", doc, &werr);
  g_autoptr(JsonBuilder) b = json_builder_new();
  json_builder_begin_object(b);
  sim_json_string(b, "note", note);
  json_builder_set_member_name(b, "runs");
  val_remote_runs_to_json((ValRemoteRun *)runs->data, (int)runs->len, b);
  json_builder_end_object(b);
  g_autoptr(JsonGenerator) gen = json_generator_new();
  g_autoptr(JsonNode) rootn = json_builder_get_root(b);
  json_generator_set_root(gen, rootn);
  json_generator_set_pretty(gen, TRUE);
  g_autofree char *js = json_generator_to_data(gen, NULL);
  wrote = wrote && val_write_text(out_dir, "report-lab.json", js, &werr);
  fputs(md, stdout);
  g_array_unref(runs);
  if (ok && !wrote) {
    g_propagate_error(error, g_steal_pointer(&werr));
    return FALSE;
  }
  return ok;
}
