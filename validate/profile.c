/* validate/profile.c — host-profile.yaml and scenarios on it (see profile.h).
 *
 * The platform: one socket of `cores` cores at the probe's clock, one NUMA node, memory as
 * one channel at the best measured bandwidth (the DIMMs are not visible from a guest; never
 * below what the measured runs pulled through DRAM, so it limits no measured run), one drive standing for the host's disk (the
 * files are served from the page cache, so it carries no load), and one NIC of kind loopback.  Its `loopback:` section
 * holds the fitted costs (models/appliance/loopback.h) and the test; scenarios overlay the test.
 */
#include "validate/profile.h"

#include <math.h>
#include <string.h>

#include "models/appliance/coeffs.h"
#include "models/appliance/demand.h"
#include "models/appliance/memory.h"

/* DRAM bandwidth written when nothing was measured, GB/s: a placeholder the profile says is
 * one. Assumed. */
#define DRAM_PLACEHOLDER_GBPS 10.0
/* TLS record payload when the profile gives none: the largest, 2^14 B (RFC 8446 5.1). */
#define TLS_RECORD_BYTES 16384

/* Double-quoted YAML scalar body: backslash and quote escaped. */
static char *yaml_escape(const char *in)
{
  GString *o = g_string_new(NULL);
  for (const char *c = in ? in : ""; *c; c++) {
    if (*c == '"' || *c == '\\') g_string_append_c(o, '\\');
    if ((unsigned char)*c >= 0x20) g_string_append_c(o, *c);
  }
  return g_string_free(o, FALSE);
}

/* A plain decimal number (no exponent: the loader reads decimals). */
static void num(GString *s, double v)
{
  char b[64];
  g_snprintf(b, sizeof b, "%.6g", v);
  if (strchr(b, 'e')) g_snprintf(b, sizeof b, "%.10f", v);
  g_string_append(s, b);
}

static void param_line(GString *s, const ValHostProfile *p, ValParam k)
{
  double v = p->p[k];
  g_string_append_printf(s, "  %s: ", val_param_name(k));
  if (k == VAL_P_CACHE)
    g_string_append_printf(s, "%.0f B", MAX(0.0, round(v)));
  else
    num(s, v);
  const char *u = val_param_unit(k);
  if (p->fitted[k])
    g_string_append_printf(s, "   # %s, fitted, +- %.2g%s\n", *u ? u : "fraction", p->se[k],
                           v < 0            ? " (negative: a cost cannot be, the loader refuses it)"
                           : p->at_bound[k] ? " (at the edge of its range: the runs ask for a value beyond it)"
                                            : "");
  else
    g_string_append_printf(s, "   # %s, fixed (not fitted: microbenchmark or start value)\n", *u ? u : "fraction");
}

static const char *uarch_guess(const ValProbe *pr)
{
  if (!pr) return "icelake";
  if (strstr(pr->cpu_model, "AMD")) return pr->avx512f ? "zen4" : pr->vaes ? "zen3" : "zen2";
  if (strstr(pr->cpu_model, "Neoverse") || strstr(pr->cpu_model, "ARM")) return "neoverse-n1";
  return pr->vaes || pr->avx512f ? "icelake" : "skylake";
}

/* A profile parameter that the cost profile holds (`costs:`, models/appliance/cpu.h), and its key there. */
static const struct {
  ValParam param;
  const char *key;
} COST_KEYS[] = { { VAL_P_CRYPTO_AES128, "aes_128_gcm_cpb" },
                  { VAL_P_CRYPTO_AES256, "aes_256_gcm_cpb" },
                  { VAL_P_CRYPTO_CHACHA, "chacha20_poly1305_cpb" },
                  { VAL_P_COPY, "copy_cpb" },
                  { VAL_P_REQ_SERVER, "request_cycles" } };

/* TRUE when parameter k goes under `costs:` (a positive cost; a fit below zero is not a cost
 * and stays a loopback-model parameter). */
static gboolean in_costs(const ValHostProfile *p, ValParam k)
{
  for (size_t i = 0; i < G_N_ELEMENTS(COST_KEYS); i++)
    if (COST_KEYS[i].param == k) return p->p[k] > 0;
  return FALSE;
}

static void cost_line(GString *s, const ValHostProfile *p, const char *key, ValParam k, double v)
{
  g_string_append_printf(s, "  %s: ", key);
  num(s, v);
  if (p->fitted[k])
    g_string_append_printf(s, "   # %s, fitted, +- %.2g\n", val_param_unit(k), p->se[k]);
  else
    g_string_append_printf(s, "   # %s, microbenchmark or start value (not fitted)\n", val_param_unit(k));
}

/* The cost profile's source line for this host: host name, CPU model, CPUs, clock and the day. */
static char *costs_source(const ValHostProfile *p, const ValProbe *pr)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_utc();
  g_autofree char *day = g_date_time_format(now, "%Y-%m-%d");
  return g_strdup_printf("ocasim validate on %s (%s, %d CPUs at %.4g GHz), %s", g_get_host_name(),
                         pr ? pr->cpu_model : "host CPU", MAX(p->cores, 1), p->clock_hz / 1e9, day);
}

char *val_host_costs_yaml(const ValHostProfile *p, const char *source)
{
  GString *s = g_string_new(NULL);
  g_autofree char *src = yaml_escape(source ? source : "ocasim validate");
  g_string_append_printf(
      s, "costs:   # this host's CPU cost profile (models/appliance/cpu.h), cycles at cpu.clock\n  source: \"%s\"\n", src);
  for (size_t i = 0; i < G_N_ELEMENTS(COST_KEYS); i++) {
    ValParam k = COST_KEYS[i].param;
    if (in_costs(p, k))
      cost_line(s, p, COST_KEYS[i].key, k, p->p[k]);
    else
      g_string_append_printf(s, "  # %s: not written: fitted %.4g, not a positive cost (the model's figure applies)\n",
                             COST_KEYS[i].key, p->p[k]);
  }
  if (p->p[VAL_P_STACK] > 0) {
    /* the loopback sendfile page path per byte, per 4 KiB page (cpu.page_size's default) */
    g_string_append(s, "  page_cycles: ");
    num(s, p->p[VAL_P_STACK] * VAL_COST_PAGE_BYTES);
    g_string_append_printf(s,
                           "   # stack_cpb %.4g cycles/B x 4096 B: TCP + loopback transmit per page (it carries the work of\n"
                           "                      # 64 KiB loopback segments, which loopback cannot tell from per-page work)\n",
                           p->p[VAL_P_STACK]);
  }
  g_string_append(s, "  # segment_cycles, interrupt_cycles: not measured (loopback has no NIC and no interrupts): the\n"
                     "  # model's cited figures apply (models/appliance/coeffs.c)\n");
  return g_string_free(s, FALSE);
}

char *val_host_costs_yaml_here(const ValHostProfile *p, const ValProbe *pr)
{
  g_autofree char *src = costs_source(p, pr);
  return val_host_costs_yaml(p, src);
}

double val_host_memory_GBps(const ValHostProfile *p, const ValMicrobench *mb, const char **what)
{
  double best_GBps = 0.0;
  const char *best_what = mb ? "STREAM-like microbenchmark" : "no measurement, a placeholder";
  for (int t = 0; mb && t < mb->dram_threads; t++)
    best_GBps = MAX(best_GBps, MAX(mb->dram_read_GBps[t], MAX(mb->dram_write_GBps[t], mb->dram_copy_GBps[t])));
  if (best_GBps <= 0) best_GBps = DRAM_PLACEHOLDER_GBPS;
  if (p->dram_shown_GBps > best_GBps) {
    best_GBps = p->dram_shown_GBps;
    best_what = "page-cache misses x body rate of the fastest measured run, above the microbenchmark";
  }
  if (what) *what = best_what;
  return best_GBps;
}

char *val_host_profile_yaml(const ValHostProfile *p, const ValProbe *pr, const ValMicrobench *mb, const ValFitStats *fit)
{
  GString *s = g_string_new(NULL);
  g_autoptr(GDateTime) now = g_date_time_new_now_utc();
  g_autofree char *when = g_date_time_format(now, "%Y-%m-%dT%H:%M:%SZ");
  g_string_append_printf(
      s,
      "# host-profile.yaml — this host as an appliance platform, fitted by `ocasim validate` (%s).\n"
      "# Every cost under `costs:` (the cost-profile format of the platform files, models/appliance/cpu.h) and\n"
      "# `loopback:` was measured on this host (microbenchmarks and a GSL fit of the measured runs;\n"
      "# models/appliance/loopback.h gives the equations): cycles at cpu.clock. memory.latency and\n"
      "# memory.loaded_latency, when given, are the DRAM loaded-latency probe's points (report.md).\n",
      when);
  if (fit)
    g_string_append_printf(s, "# Fit: chi2/dof %.3g over %d residuals, %d free parameters.\n", fit->chi2_dof, fit->nobs,
                           fit->npar);
  g_string_append(s,
                  "# A platform file (`platform: host-profile.yaml`, see host-scenario.yaml) and a scenario by itself:\n"
                  "#   ocasim bound host-profile.yaml   # user-space TLS 1.3 AES-128-GCM, 1+1 threads, 8 connections, 1 MiB\n");
  if (pr) {
    g_autofree char *reason = g_strdelimit(g_strdup(pr->ktls.reason), "\r\n", ' ');
    g_string_append_printf(s, "# kernel TLS: %s\n", reason);
    g_string_append_printf(s, "# ISA: AES-NI %d, VAES %d, VPCLMULQDQ %d, AVX2 %d, AVX-512F %d, SHA-NI %d; %s\n", pr->aes_ni,
                           pr->vaes, pr->vpclmulqdq, pr->avx2, pr->avx512f, pr->sha_ni, pr->openssl_version);
  }
  g_string_append(s, "kind: appliance\nname: host\nplatform_name: host\n");
  g_autofree char *model = yaml_escape(pr ? pr->cpu_model : "host CPU");
  g_string_append_printf(s,
                         "cpu:\n  model: \"%s\"\n"
                         "  uarch: %s   # closest in the schema's list; unused here (the crypto costs are under costs:)\n"
                         "  sockets: 1\n  cores_per_socket: %d   # online CPUs (probe)\n  threads_per_core: 1\n"
                         "  clock: %.6g GHz   # %s\n",
                         model, uarch_guess(pr), MAX(p->cores, 1), p->clock_hz / 1e9, pr ? pr->clock_source : "nominal clock");
  /* the memory's capacity (val_host_memory_GBps); the model multiplies channels x MT/s x 8 B by
   * dram_eff, so the speed is divided by it */
  const char *best_what;
  double best_GBps = val_host_memory_GBps(p, mb, &best_what);
  Coeffs coef;
  coeffs_defaults(&coef);
  g_string_append_printf(s,
                         "memory:   # one channel of %.3g GB/s (%s; / dram_eff %.4g)\n"
                         "  channels_per_socket: 1\n  speed: %.6g MT/s\n"
                         "  type: %s   # the DDR generation cpu.uarch drives (budget.c): the speed above is a measured "
                         "bandwidth's, not the DIMMs'\n",
                         best_GBps, best_what, coef.dram_eff, best_GBps * 1e3 / (8.0 * coef.dram_eff),
                         strcmp(uarch_guess(pr), "zen4") ? "DDR4" : "DDR5");
  if (p->dram_lat_points >= 2) {
    /* the measured points as memory.h's curve, utilisation against the profile's capacity (the
     * probe's few threads need not reach it); when they do not make one (latency falling with
     * load: noise), the least-squares line L = idle + slope x B, as L0 + load_latency x B / C */
    int n = p->dram_lat_points;
    double cap = best_GBps;
    for (int i = 0; i < n; i++) cap = MAX(cap, p->dram_curve_GBps[i]);
    MemCurve curve;
    const char *why = NULL;
    int kept = 0;
    if (mem_curve_from_points(p->dram_curve_GBps, p->dram_curve_ns, n, cap, &curve, &kept, &why) < 0) {
      g_string_append(s, "  latency: ");
      num(s, p->dram_curve_ns[0]);
      g_string_append(s, " ns   # loaded-latency probe: its lightest-load point (report.md)\n");
      g_string_append_printf(s,
                             "  loaded_latency:   # the probe's points; %d of %d kept (memory.h drops saturated rows)\n"
                             "    source: \"ocasim validate: loaded-latency probe on this host (report.md)\"\n"
                             "    capacity: %.6g GB/s   # the memory's capacity above: the probe need not reach it\n"
                             "    points:\n",
                             kept, n, cap);
      for (int i = 0; i < n; i++)
        g_string_append_printf(s, "      - {bandwidth: %.6g GB/s, latency: %.6g ns}\n", p->dram_curve_GBps[i],
                               p->dram_curve_ns[i]);
    } else {
      g_string_append(s, "  latency: ");
      num(s, p->dram_idle_ns);
      g_string_append_printf(s, " ns   # loaded-latency probe: the line's intercept through %d points (report.md)\n", n);
      g_string_append(s, "  load_latency: ");
      num(s, MAX(0.0, p->dram_slope_ns_per_GBps * best_GBps));
      g_string_append_printf(s, " ns   # its slope %.4g ns per GB/s x the capacity %.4g GB/s%s; not a curve: %s\n",
                             p->dram_slope_ns_per_GBps, best_GBps, p->dram_slope_ns_per_GBps < 0 ? " (below 0: taken as 0)" : "",
                             why);
    }
  }
  double read_GBps = mb && mb->dram_threads > 0 ? mb->dram_read_GBps[mb->dram_threads - 1] : DRAM_PLACEHOLDER_GBPS;
  g_string_append_printf(s,
                         "nvme:   # the host's disk; the files are served from the page cache, so it carries no load\n"
                         "  - {model: \"page cache\", read: %.6g GB/s, latency: 1 us}\n",
                         read_GBps);
  g_string_append(s, "nics:   # the clients run on this host: the port is a copy into their sockets, on the same cores\n"
                     "  - {kind: loopback, ports: 1, model: \"lo 127.0.0.1\"}\n");
  g_string_append(s,
                  "software:\n  data_path: read_write   # user-space TLS; sendfile: plain HTTP; sendfile_sw_ktls: kernel TLS\n");
  g_string_append(s, "workload:\n  offered: saturate\n  titles: 1\n  request_size: 1 MiB\n"
                     "  cpu_cap: 100 %   # share of the CPUs this workload has (validate: CPUs minus other tenants' load)\n");
  g_autofree char *costs = val_host_costs_yaml_here(p, pr);
  g_string_append(s, costs);
  g_string_append(s, "loopback:   # the loopback test's own parameters (the crypto, copy and request costs: costs:)\n");
  for (int k = 0; k < VAL_P_COUNT; k++)
    if (!in_costs(p, (ValParam)k)) param_line(s, p, (ValParam)k);
  g_string_append_printf(s, "  sha256_cpb: %.6g   # cycles/B, SHA-256 microbenchmark (client body check)\n", p->hash_cpb);
  g_string_append_printf(s, "  record_size: %zu B\n", p->record_bytes ? p->record_bytes : (size_t)TLS_RECORD_BYTES);
  g_string_append(s, "  cipher: aes_128_gcm\n  server_threads: 1\n  client_threads: 1\n  connections: 8\n"
                     "  file_size: 1 MiB\n  client_hash: false\n");
  return g_string_free(s, FALSE);
}

char *val_host_scenario_yaml(const ValHostProfile *p, const ValHostConfig *cfg, const char *platform, const char *title)
{
  LoopbackCfg lo;
  DataPath path;
  double cap;
  val_host_loopback(p, cfg, &lo, &path, &cap);
  g_autofree char *t = yaml_escape(title ? title : "host test");
  GString *s = g_string_new(NULL);
  g_string_append_printf(s,
                         "# One test on this host, predicted by the appliance model with the fitted profile:\n"
                         "#   ocasim bound host-scenario.yaml; ocasim run host-scenario.yaml\n"
                         "kind: appliance\nname: \"%s\"\nplatform: %s\n",
                         t, platform);
  g_string_append_printf(s, "software:\n  data_path: %s\n", datapath_name(path));
  g_string_append_printf(s, "workload:\n  request_size: %.0f B\n  cpu_cap: %.6g %%   # %.3g of %d CPUs available\n",
                         MAX(1.0, round(cfg->bytes_per_req)), 100 * cap, cap * p->cores, p->cores);
  g_string_append_printf(s,
                         "loopback:\n  cipher: %s\n  server_threads: %d\n  client_threads: %d\n  connections: %d\n"
                         "  file_size: %.0f B\n  client_hash: %s\n",
                         loopback_cipher_name(lo.cipher), lo.server_threads, lo.client_threads, lo.connections,
                         round(lo.file_bytes), lo.client_hash ? "true" : "false");
  if (lo.cross_share >= 0)
    g_string_append_printf(s, "  server_cpus: %d   # pinned placement\n  client_cpus: %d\n  cross_share: %.6g\n", lo.server_cpus,
                           lo.client_cpus, lo.cross_share);
  if (lo.server_free_cores > 0 || lo.client_free_cores > 0)
    g_string_append_printf(s,
                           "  server_free_cores: %.6g   # left by other tenants on each side's CPUs\n"
                           "  client_free_cores: %.6g\n",
                           lo.server_free_cores, lo.client_free_cores);
  return g_string_free(s, FALSE);
}

gboolean val_host_profile_check(const char *profile_yaml, GError **error)
{
  g_autoptr(SimConfDoc) doc = sim_conf_load_string(profile_yaml, "host-profile.yaml", error);
  Appliance a;
  return doc && appliance_from_conf(sim_conf_doc_root(doc), &a, NULL, error);
}

gboolean val_host_appliance(const char *profile_yaml, const ValHostProfile *p, const ValHostConfig *cfg, Appliance *out,
                            GError **error)
{
  g_autofree char *scen = val_host_scenario_yaml(p, cfg, "host-profile.yaml", NULL);
  g_autoptr(SimConfDoc) base = sim_conf_load_string(profile_yaml, "host-profile.yaml", error);
  if (!base) return FALSE;
  g_autoptr(SimConfDoc) top = sim_conf_load_string(scen, "host-scenario.yaml", error);
  if (!top) return FALSE;
  if (!sim_conf_overlay(base, sim_conf_doc_root(base), sim_conf_doc_root(top), error)) return FALSE;
  return appliance_from_conf(sim_conf_doc_root(base), out, NULL, error);
}

gboolean val_host_bound_gbps(const char *profile_yaml, const ValHostProfile *p, const ValHostConfig *cfg, double *gbps,
                             char bottleneck[40], GError **error)
{
  Appliance a;
  if (!val_host_appliance(profile_yaml, p, cfg, &a, error)) return FALSE;
  g_autoptr(DemandModel) m = demand_build(&a, error);
  if (!m) return FALSE;
  int bn = -1;
  *gbps = demand_saturation_Bps(m, &bn) * 8e-9;
  if (bottleneck) g_strlcpy(bottleneck, bn >= 0 ? m->res[bn].name : "-", 40);
  return TRUE;
}
