/* modes/explain.c — the per-byte breakdown of `ocasim explain` (see modes/explain.h). */
#include "models/modes/explain.h"
#include "models/appliance/component.h"
#include "models/appliance/ram.h"
#include "sim/json.h"
#include "sim/units.h"
#include <math.h>
#include <string.h>

/* A remainder of the cycle split below this share of the total (at least of 1 cycle/byte) is the
 * rounding of the differences of rebuilt models and prints as 0. Assumed. */
#define EXPLAIN_ROUNDING_REL 1e-9

static const char *agent_name(TouchAgent a)
{
  switch (a) {
    case AG_DISK: return "drive";
    case AG_NIC: return "nic";
    case AG_INGRESS_NIC: return "ingress nic";
    case AG_CPU_CRYPTO: return "cpu crypto";
    case AG_CPU_STACK: return "cpu stack";
    default: return "?";
  }
}

static const char *buf_name(TouchBuf b)
{
  switch (b) {
    case BUF_PAGECACHE: return "page cache";
    case BUF_SOCKBUF: return "socket buf";
    case BUF_USER: return "user buf";
    case BUF_META: return "metadata";
    default: return "?";
  }
}

/* Sum over resources of kind @k of the demand per served byte at X_op (base: at idle latency). */
static double kind_total(const DemandModel *m, ResKind k, gboolean base)
{
  double s = 0;
  for (int r = 0; r < m->n_res; r++)
    if (m->res[r].kind == k) s += base ? m->base_total[r] : m->total[r];
  return s;
}

/* CPU cycles per served byte at idle latency of @a with some coefficients zeroed by @zero. */
static double cpu_without(const Appliance *a, const DemandModel *m, void (*zero)(Appliance *b))
{
  Appliance *b = g_memdup2(a, sizeof *a);
  zero(b);
  g_autoptr(DemandModel) mm = demand_build_sized(b, m->drive_share, m->sized_Bps, NULL); /* at m's own sizing */
  g_free(b);
  g_return_val_if_fail(mm != NULL, 0.0);
  return kind_total(mm, RK_CPU, TRUE);
}

static void zero_copy(Appliance *b)
{
  b->coef.copy_cpb = b->cpu.costs.copy_cpb = 0; /* the cost profile's too (cpu.h) */
}
static void zero_page(Appliance *b)
{
  b->coef.page_cycles = b->coef.mapped_page_cycles = b->cpu.costs.page_cycles = 0;
}
static void zero_segment(Appliance *b)
{
  b->coef.pkt_cycles = b->cpu.costs.segment_cycles = 0;
}
static void zero_ack(Appliance *b)
{
  b->coef.ack_cycles = 0;
}
static void zero_interrupt(Appliance *b)
{
  b->coef.irq_cycles = b->cpu.costs.interrupt_cycles = 0;
}
static void zero_requests(Appliance *b)
{
  b->wl.request_cycles = b->wl.connection_cycles = b->wl.handshake_cycles = b->wl.resumed_cycles = 0;
}
static void zero_stall(Appliance *b)
{
  b->coef.k_dram = b->coef.k_remote = 0;
}

/* The touches of one path with its share of the load. */
static void add_touches(Explain *e, const Appliance *a, const DemandModel *m, DataPath path, double share)
{
  if (share <= 0) return;
  Touch t[DP_MAX_TOUCHES];
  int n = demand_path_touches(a, path, TRUE, m->sized_Bps, t);
  /* a page-cache hit skips the drive's DMA write, as the bound charges it (pagecache.h) */
  double miss = 1.0 - pagecache_hit_ratio(a, m->sized_Bps);
  for (int i = 0; i < n && e->n_touch < (int)G_N_ELEMENTS(e->touch); i++) {
    double bytes = t[i].bytes * share * (t[i].agent == AG_DISK ? miss : 1.0);
    e->touch[e->n_touch++] = (ExplainTouch){ .path = path,
                                             .what = t[i].what,
                                             .agent = agent_name(t[i].agent),
                                             .buffer = buf_name(t[i].buf),
                                             .write = t[i].write,
                                             .bytes = bytes };
    e->dram_touch_total += bytes;
  }
}

Explain *explain_build(const Appliance *a, const AppScenarioInfo *info, const DemandModel *m)
{
  Explain *e = g_new0(Explain, 1);
  e->scenario = g_strdup(info && info->name ? info->name : a->name);
  e->seed = a->seed;
  e->path = a->path;
  e->alt_path = a->wl.alt_path;
  e->alt_fraction = a->wl.alt_fraction;
  e->op_gbps = m->op_Bps * 8e-9;
  gboolean loop = FALSE;
  for (int i = 0; i < a->n_nics; i++) loop = loop || a->nics[i].kind == NIC_LOOPBACK;
  e->loopback = loop;
  if (!loop) { /* a loopback host has no touches: its costs are measured (loopback.h) */
    add_touches(e, a, m, a->path, 1.0 - a->wl.alt_fraction);
    add_touches(e, a, m, a->wl.alt_path, a->wl.alt_fraction);
  }
  for (int r = 0; r < m->n_res; r++)
    if (m->res[r].kind == RK_DRAM) e->dram_nodes++;
  e->dram_model_total = kind_total(m, RK_DRAM, TRUE);
  /* CPU: each part is the drop when its coefficients are zeroed */
  double base = kind_total(m, RK_CPU, TRUE);
  e->cpb_total = kind_total(m, RK_CPU, FALSE);
  if (!loop) {
    e->cpb[EX_COPY] = base - cpu_without(a, m, zero_copy);
    e->cpb[EX_STACK_PAGE] = base - cpu_without(a, m, zero_page);
    e->cpb[EX_STACK_SEGMENT] = base - cpu_without(a, m, zero_segment);
    e->cpb[EX_STACK_ACK] = base - cpu_without(a, m, zero_ack);
    e->cpb[EX_STACK_INTERRUPT] = base - cpu_without(a, m, zero_interrupt);
    e->cpb[EX_REQUESTS] = base - cpu_without(a, m, zero_requests);
    double stall = base - cpu_without(a, m, zero_stall), remote = 0;
    for (int r = 0; r < m->n_res; r++)
      if (m->res[r].kind == RK_CPU) remote += m->res[r].remote_stall;
    e->cpb[EX_STALL_FABRIC] = remote;
    e->cpb[EX_STALL_DRAM] = stall - remote;
  }
  e->cpb[EX_STALL_QUEUE] = e->cpb_total - base;
  /* what no zeroed coefficient takes away: the bulk crypto (cpu.h's table) on a host with
   * touches, the measured costs of a loopback host */
  double parts = 0;
  for (int c = 0; c < EX_OTHER; c++) parts += e->cpb[c];
  ExplainCpb rest = loop ? EX_OTHER : EX_CRYPTO;
  e->cpb[rest] = e->cpb_total - parts;
  if (fabs(e->cpb[rest]) < EXPLAIN_ROUNDING_REL * MAX(1.0, e->cpb_total)) e->cpb[rest] = 0; /* rounding of the differences */
  /* fabric links and NIC read tags */
  e->fabric = g_new0(ExplainRes, MAX(m->n_res, 1));
  e->tags = g_new0(ExplainRes, MAX(m->n_res, 1));
  for (int r = 0; r < m->n_res; r++) {
    const DmResource *d = &m->res[r];
    gboolean tags = d->kind == RK_PCIE && d->unit && strcmp(d->unit, "tags") == 0;
    if (d->kind != RK_FABRIC && !tags) continue;
    ExplainRes *x = tags ? &e->tags[e->n_tags++] : &e->fabric[e->n_fabric++];
    g_strlcpy(x->name, d->name, sizeof x->name);
    x->per_byte = m->total[r];
    x->load = m->op_Bps * m->total[r] * (tags ? 1.0 : 1e-9);
    x->capacity = d->capacity * (tags ? 1.0 : 1e-9);
  }
  /* the inline engines' context caches, when a path encrypts on the NIC */
  if (datapath_nic_crypto(a->path) || (a->wl.alt_fraction > 0 && datapath_nic_crypto(a->wl.alt_path))) {
    e->sizing_gbps = m->sized_Bps * 8e-9; /* as the model's fixed point sized it (demand.h) */
    for (int i = 0; i < a->n_nics; i++) {
      if (!nic_inline_tls(&a->nics[i])) continue;
      ExplainTlsCache *c = &e->tls[e->n_tls++];
      g_snprintf(c->name, sizeof c->name, "nic%d", a->nics[i].id); /* as its resources are named */
      c->connections = nic_tls_context_connections(a, i, m->sized_Bps);
      c->cache = a->nics[i].tls_cache;
      c->miss = nic_tls_context_miss(a, i, m->sized_Bps);
    }
  }
  return e;
}

void explain_free(Explain *e)
{
  if (!e) return;
  g_free(e->scenario);
  g_free(e->fabric);
  g_free(e->tags);
  g_free(e->interval);
  g_free(e);
}

const char *explain_cpb_name(ExplainCpb c)
{
  static const char *const n[EX_CPB_COUNT] = { "crypto",        "copy",       "stack_page",
                                               "stack_segment", "stack_ack",  "stack_interrupt",
                                               "requests",      "stall_dram", "stall_queue",
                                               "stall_fabric",  "other" };
  return c < EX_CPB_COUNT ? n[c] : "?";
}

static const char *cpb_label(ExplainCpb c)
{
  static const char *const n[EX_CPB_COUNT] = { "crypto (the remainder: bulk AES-GCM/ChaCha20)",
                                               "copies (kernel<->user)",
                                               "stack: per page (cpu.page_size)",
                                               "stack: per segment (TSO burst)",
                                               "stack: per received ACK",
                                               "stack: per interrupt (stack.interrupt_moderation)",
                                               "requests and connections (HTTP, TLS handshakes, TCP)",
                                               "stalls: DRAM latency (idle)",
                                               "stalls: DRAM queueing at load",
                                               "stalls: remote lines (whole latency)",
                                               "other (not split)" };
  return n[c];
}

static void write_table(const Explain *e, GString *out)
{
  g_string_append_printf(out, "scenario: %s  (explain, seed %" G_GUINT64_FORMAT ")\n", e->scenario, e->seed);
  g_string_append_printf(out, "data path: %s", datapath_name(e->path));
  if (e->alt_fraction > 0)
    g_string_append_printf(out, ", %s for %.1f %% of the load", datapath_name(e->alt_path), 100 * e->alt_fraction);
  g_autofree char *op = sim_units_gbps_text(e->op_gbps);
  g_string_append_printf(out, "; per served byte at the bound's operating point, %s\n", op);
  if (e->interval) report_interval_table(e->interval, out);
  g_string_append(out, "\nDRAM bytes per served byte, by touch (models/appliance/datapath.h)\n");
  g_string_append_printf(out, "  %-20s %-18s %-12s %-11s %-5s %8s\n", "path", "touch", "agent", "buffer", "dir", "B/B");
  for (int i = 0; i < e->n_touch; i++) {
    const ExplainTouch *t = &e->touch[i];
    g_string_append_printf(out, "  %-20s %-18s %-12s %-11s %-5s %8.4f\n", datapath_name(t->path), t->what, t->agent, t->buffer,
                           t->write ? "write" : "read", t->bytes);
  }
  if (e->loopback) /* else "total of the touches 0" under a non-zero model total, unexplained */
    g_string_append(out, "  none: a loopback host's DRAM bytes are its measured costs (models/appliance/loopback.h), not split\n"
                         "  by touch\n");
  g_string_append_printf(out, "  %-70s %8.4f\n", "total of the touches", e->dram_touch_total);
  g_string_append_printf(out, "  %-70s %8.4f\n",
                         e->dram_nodes == 1 ? "demand model (the DRAM node)" : "demand model (sum over the DRAM nodes)",
                         e->dram_model_total);
  g_string_append(out, "\nCPU cycles per served byte, by component (all nodes)\n");
  for (int c = 0; c < EX_CPB_COUNT; c++) {
    if (c == EX_OTHER && e->cpb[c] == 0) continue;
    g_string_append_printf(out, "  %-70s %8.4f\n", cpb_label((ExplainCpb)c), e->cpb[c]);
  }
  g_string_append_printf(out, "  %-70s %8.4f\n", "total (demand model)", e->cpb_total);
  g_string_append(out, "\nFabric bytes per served byte, by link and direction\n");
  if (!e->n_fabric)
    g_string_append(out, "  none: one NUMA node\n");
  else
    g_string_append_printf(out, "  %-26s %8s %10s %10s %6s\n", "link", "B/B", "GB/s", "of GB/s", "util");
  for (int i = 0; i < e->n_fabric; i++) {
    const ExplainRes *x = &e->fabric[i];
    g_string_append_printf(out, "  %-26s %8.4f %10.2f %10.2f %5.1f%%\n", x->name, x->per_byte, x->load, x->capacity,
                           x->capacity > 0 ? 100 * x->load / x->capacity : 0);
  }
  g_string_append(out, "\nPCIe read tags of the NICs (non-posted reads: a tag is held for the read's round trip)\n");
  if (!e->n_tags)
    g_string_append(out, "  none\n");
  else
    g_string_append_printf(out, "  %-26s %12s %10s %8s %6s\n", "card", "tag-ns/KiB", "in use", "of", "occ.");
  for (int i = 0; i < e->n_tags; i++) {
    const ExplainRes *x = &e->tags[i];
    g_string_append_printf(out, "  %-26s %12.3f %10.2f %8.0f %5.1f%%\n", x->name, x->per_byte * 1e9 * 1024, x->load, x->capacity,
                           x->capacity > 0 ? 100 * x->load / x->capacity : 0);
  }
  if (!e->n_tls) return;
  g_autofree char *at = sim_units_gbps_text(e->sizing_gbps);
  g_string_append_printf(out,
                         "\nTLS context caches of the inline engines (connections at %s; a miss fetches the context, "
                         "nic.h)\n",
                         at);
  g_string_append_printf(out, "  %-26s %12s %10s %8s\n", "card", "connections", "cache", "miss");
  for (int i = 0; i < e->n_tls; i++)
    g_string_append_printf(out, "  %-26s %12.0f %10.0f %7.1f%%\n", e->tls[i].name, e->tls[i].connections, e->tls[i].cache,
                           100 * e->tls[i].miss);
}

static void res_array(JsonBuilder *b, const char *member, const ExplainRes *x, int n, gboolean tags)
{
  json_builder_set_member_name(b, member);
  json_builder_begin_array(b);
  for (int i = 0; i < n; i++) {
    json_builder_begin_object(b);
    sim_json_string(b, "name", x[i].name);
    sim_json_number(b, tags ? "tag_seconds_per_byte" : "bytes_per_byte", x[i].per_byte);
    sim_json_number(b, tags ? "tags_in_use" : "GBps", x[i].load);
    sim_json_number(b, tags ? "tags" : "capacity_GBps", x[i].capacity);
    sim_json_number(b, tags ? "occupancy_frac" : "util_frac", x[i].capacity > 0 ? x[i].load / x[i].capacity : 0);
    json_builder_end_object(b);
  }
  json_builder_end_array(b);
}

static void write_json(const Explain *e, GString *out)
{
  g_autoptr(JsonBuilder) b = json_builder_new();
  json_builder_begin_object(b);
  sim_json_string(b, "scenario", e->scenario);
  sim_json_string(b, "mode", "explain");
  sim_json_int(b, "seed", (gint64)e->seed);
  sim_json_string(b, "data_path", datapath_name(e->path));
  sim_json_number(b, "operating_point_gbps", e->op_gbps);
  json_builder_set_member_name(b, "dram_bytes_per_byte");
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "touches");
  json_builder_begin_array(b);
  for (int i = 0; i < e->n_touch; i++) {
    const ExplainTouch *t = &e->touch[i];
    json_builder_begin_object(b);
    sim_json_string(b, "path", datapath_name(t->path));
    sim_json_string(b, "touch", t->what);
    sim_json_string(b, "agent", t->agent);
    sim_json_string(b, "buffer", t->buffer);
    sim_json_bool(b, "write", t->write);
    sim_json_number(b, "bytes", t->bytes);
    json_builder_end_object(b);
  }
  json_builder_end_array(b);
  sim_json_number(b, "touch_total", e->dram_touch_total);
  sim_json_number(b, "model_total", e->dram_model_total);
  json_builder_end_object(b);
  json_builder_set_member_name(b, "cpu_cycles_per_byte");
  json_builder_begin_object(b);
  for (int c = 0; c < EX_CPB_COUNT; c++) sim_json_number(b, explain_cpb_name((ExplainCpb)c), e->cpb[c]);
  sim_json_number(b, "total", e->cpb_total);
  json_builder_end_object(b);
  res_array(b, "fabric", e->fabric, e->n_fabric, FALSE);
  res_array(b, "pcie_tags", e->tags, e->n_tags, TRUE);
  json_builder_set_member_name(b, "tls_context_caches");
  json_builder_begin_array(b);
  for (int i = 0; i < e->n_tls; i++) {
    json_builder_begin_object(b);
    sim_json_string(b, "name", e->tls[i].name);
    sim_json_number(b, "connections", e->tls[i].connections);
    sim_json_number(b, "cache", e->tls[i].cache);
    sim_json_number(b, "miss_frac", e->tls[i].miss);
    json_builder_end_object(b);
  }
  json_builder_end_array(b);
  if (e->interval) report_interval_json(e->interval, b);
  json_builder_end_object(b);
  sim_json_append(b, out);
}

void explain_write(const Explain *e, AppReportFormat fmt, GString *out)
{
  if (fmt == APP_FMT_JSON)
    write_json(e, out);
  else
    write_table(e, out);
}
