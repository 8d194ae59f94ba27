/* modes/report.c — table/JSON/CSV output of an appliance run and of its prediction interval (see
 * modes/report.h). */
#include "models/modes/report.h"
#include "models/appliance/ram.h"
#include "sim/csv.h"
#include "sim/json.h"
#include "sim/units.h"
#include <math.h>
#include <string.h>

/* Co-limiting resources the text report lists one by one before "... and N more": a reading
 * aid. Assumed. */
#define REPORT_MAX_CO_SHOWN 8
/* Node numbers the per-node NIC port line scans (above TOPO_MAX_NODES, so every node). */
#define REPORT_NODE_SCAN 64

void report_fill_resource(AppReportResource *o, const DmResource *d, double load)
{
  g_strlcpy(o->name, d->name, sizeof o->name);
  o->kind = demand_kind_name(d->kind);
  o->utilization = d->capacity > 0 ? load / d->capacity : 0;
  o->limit = d->limit;
  o->value = load * d->value_scale;
  o->unit = d->unit;
  o->node = d->node;
}

AppReport *report_from_bound(const Appliance *a, const AppScenarioInfo *info, const DemandModel *m, const BoundResult *b)
{
  AppReport *r = g_new0(AppReport, 1);
  r->scenario = g_strdup(info && info->name ? info->name : a->name);
  r->mode = g_strdup("bound");
  r->seed = a->seed;
  r->offered_gbps = a->wl.offered_gbps > 0 ? a->wl.offered_gbps : -1;
  r->throughput_gbps = b->throughput_Bps * 8e-9;
  r->cpu_util_pct = b->cpu_util * 100.0;
  r->lat_p50_ms = b->lat_p50_ms;
  r->lat_p99_ms = b->lat_p99_ms;
  r->throughput_ci95_gbps = r->lat_p50_ci95_ms = r->lat_p99_ci95_ms = NAN;
  r->overrides = info ? g_strdupv(info->overrides) : NULL;
  r->connections = b->connections;
  r->requests_rejected = -1;
  r->overloaded = a->wl.offered_gbps > 0 && demand_overloaded(b->offered_Bps, b->sat_Bps);
  r->expected_gbps = -1;
  r->n_res = m->n_res;
  r->res = g_new0(AppReportResource, m->n_res);
  for (int i = 0; i < m->n_res; i++) {
    report_fill_resource(&r->res[i], &m->res[i], b->throughput_Bps * demand_total_at(m, i, b->throughput_Bps));
    r->res[i].utilization = b->util[i];
    r->res[i].drop = b->drop[i];
  }
  r->nodes_known = TRUE;
  report_pick_bottleneck(r, m);
  ram_report_fill(&r->ram, a, m, b->throughput_Bps, r->connections);
  if (info && info->ref.present) r->ref = info->ref;
  return r;
}

void report_pick_bottleneck(AppReport *r, const DemandModel *m)
{
  g_return_if_fail(r->n_res == m->n_res);
  g_autofree double *u = g_new(double, MAX(r->n_res, 1));
  for (int i = 0; i < r->n_res; i++) u[i] = r->res[i].utilization;
  r->bottleneck = demand_name_bottleneck(m, u, &r->stalled_cpu);
  /* the share of the CPU this load's report names (the DES's busiest may not be the bound's) */
  r->stall_share = r->stalled_cpu >= 0 ? demand_dram_stall_share(m, r->stalled_cpu, m->sat_Bps) : 0.0;
  r->stall_upgrade = r->stalled_cpu >= 0 && m->stall_upgrade;
  g_free(r->co);
  r->co = g_new(int, MAX(r->n_res, 1));
  r->n_co = demand_co_bottlenecks(m, u, r->bottleneck, r->co);
}

void report_free(AppReport *r)
{
  if (!r) return;
  g_free(r->scenario);
  g_free(r->mode);
  g_free(r->res);
  g_free(r->co);
  g_strfreev(r->overrides);
  g_free(r->interval);
  g_free(r);
}

static void bar(GString *out, double u, double limit)
{
  const int W = 30;
  int n = (int)lround(MIN(1.0, MAX(0.0, u)) * W);
  int lim = (int)lround(limit * W);
  g_string_append_c(out, '[');
  for (int i = 0; i < W; i++) g_string_append_c(out, i < n ? '#' : (i == lim && limit < 1 ? '|' : ' '));
  g_string_append_c(out, ']');
}

/* A run serving less than this share of what the bound serves has not reached steady state
 * (skew costs the DES at most a few %: README). */
#define RUN_STEADY_SHARE 0.9

gboolean report_steady(const AppReport *r)
{
  return r->expected_gbps < 0 || r->throughput_gbps >= RUN_STEADY_SHARE * r->expected_gbps;
}

double report_unserved_gbps(const AppReport *r)
{
  return r->offered_gbps > 0 && r->overloaded ? MAX(0.0, r->offered_gbps - r->throughput_gbps) : 0.0;
}

/* The overrides joined by "; " ("" when none). (transfer full) */
static char *overrides_text(const AppReport *r)
{
  return r->overrides ? g_strjoinv("; ", r->overrides) : g_strdup("");
}

/* A CPU node below this share of the busiest node's utilisation counts as left idle by the
 * placement (assumed: a node doing a tenth of the busiest one's work is not sharing it). */
#define APP_REPORT_IDLE_SHARE 0.1

void report_cpu_nodes(const AppReport *r, AppCpuNodes *out)
{
  *out = (AppCpuNodes){ .busiest = -1 };
  for (int i = 0; i < r->n_res; i++) {
    if (strcmp(r->res[i].kind, "cpu") != 0) continue;
    out->n_nodes++;
    if (out->busiest < 0 || r->res[i].utilization > r->res[out->busiest].utilization + DEMAND_TIE) out->busiest = i;
  }
  if (out->busiest < 0) return;
  out->busiest_pct = r->res[out->busiest].utilization * 100;
  for (int i = 0; i < r->n_res && out->n_idle < APP_REPORT_MAX_IDLE; i++)
    if (strcmp(r->res[i].kind, "cpu") == 0 && r->res[i].utilization < APP_REPORT_IDLE_SHARE * r->res[out->busiest].utilization)
      out->idle[out->n_idle++] = i;
}

/* What "latency" means in report @r (its mode), for the table and the JSON: the one definition
 * of scenarios/README.md, measured by `run` (modes/des.h), estimated by `bound`. */
static const char *latency_definition(const AppReport *r)
{
  if (r->lat_measured && !strcmp(r->mode, "capacity"))
    return "request arrival to its last byte handed to the NIC: slot wait + drive read + shared transfer; measured by "
           "ocasim run at this load";
  if (r->lat_measured)
    return "request arrival to its last byte handed to the NIC: slot wait + drive read + shared transfer; measured";
  return "request arrival to its last byte handed to the NIC: drive read + transfer; estimated by processor sharing at each "
         "resource and Little's law at the request slots";
}

static void write_cpu_line(const AppReport *r, GString *out)
{
  AppCpuNodes c;
  report_cpu_nodes(r, &c);
  if (c.n_nodes <= 1) {
    g_string_append_printf(out, "cpu:        %.1f %% (" CPU_PCT_CONVENTION ")\n", r->cpu_util_pct);
    return;
  }
  g_string_append_printf(out, "cpu:        busiest node %.1f %% (%s), mean %.1f %% over %d nodes (" CPU_PCT_CONVENTION ")\n",
                         c.busiest_pct, r->res[c.busiest].name, r->cpu_util_pct, c.n_nodes);
  if (c.n_idle) {
    g_string_append(out, "warning:    the placement leaves");
    for (int k = 0; k < c.n_idle; k++) g_string_append_printf(out, "%s %s", k ? "," : "", r->res[c.idle[k]].name);
    g_string_append_printf(out,
                           " idle (below %.0f %% of the busiest node's load): the mean understates\n"
                           "            how close the box is to its CPU cap\n",
                           APP_REPORT_IDLE_SHARE * 100);
  }
}

gboolean report_saturated(const AppReport *r)
{
  if (!(r->offered_gbps > 0) || r->overloaded) return TRUE;
  if (r->bottleneck < 0) return FALSE;
  /* a DRAM named for the stalls that fill a CPU (demand.h) limits the box when that CPU is at its cap */
  int at = r->stalled_cpu >= 0 ? r->stalled_cpu : r->bottleneck;
  const AppReportResource *b = &r->res[at];
  return b->limit > 0 && b->utilization >= b->limit * (1 - APP_REPORT_SATURATED_TOL);
}

void report_interval_json(const AppInterval *iv, JsonBuilder *b)
{
  json_builder_set_member_name(b, "interval");
  json_builder_begin_object(b);
  sim_json_number(b, "level", iv->level);
  sim_json_pair(b, "throughput_gbps", iv->throughput_gbps[0], iv->throughput_gbps[1]);
  sim_json_pair(b, "cpu_util_pct", iv->cpu_util_pct[0], iv->cpu_util_pct[1]);
  sim_json_number(b, "median_throughput_gbps", iv->median_gbps);
  sim_json_int(b, "draws", iv->draws);
  sim_json_int(b, "draws_failed", iv->failed);
  sim_json_number(b, "model_error_share", iv->contrib[APP_IV_GBPS].model_error_share);
  json_builder_end_object(b);
  json_builder_set_member_name(b, "bottleneck_probability");
  json_builder_begin_object(b);
  for (int k = 0; k < RK_COUNT; k++)
    if (iv->bottleneck_prob[k] > 0) sim_json_number(b, demand_kind_name((ResKind)k), iv->bottleneck_prob[k]);
  json_builder_end_object(b);
  json_builder_set_member_name(b, "uncertainty_contributors");
  json_builder_begin_array(b);
  for (int f = 0; f < APP_IV_FIGURES; f++)
    for (int t = 0; t < iv->contrib[f].n_top; t++) {
      const AppIntervalContrib *c = &iv->contrib[f].top[t];
      json_builder_begin_object(b);
      sim_json_string(b, "param", c->name);
      sim_json_string(b, "kind", c->kind);
      sim_json_number(b, "variance_share", c->share);
      sim_json_string(b, "of", iv->contrib[f].of);
      sim_json_pair(b, "swing", c->swing[0], c->swing[1]);
      sim_json_string(b, "pin_by", c->pin_by);
      sim_json_string(b, "source", c->source);
      json_builder_end_object(b);
    }
  json_builder_end_array(b);
  json_builder_set_member_name(b, "assumed_values");
  json_builder_begin_array(b);
  for (int f = 0; f < APP_IV_FIGURES; f++)
    for (int t = 0; t < iv->contrib[f].n_assumed; t++) {
      json_builder_begin_object(b);
      sim_json_string(b, "param", iv->contrib[f].assumed[t].name);
      sim_json_number(b, "variance_share", iv->contrib[f].assumed[t].share);
      sim_json_string(b, "of", iv->contrib[f].of);
      json_builder_end_object(b);
    }
  json_builder_end_array(b);
}

/* Assumed values below this share of a figure's variance are named without it in the table. */
#define ASSUMED_NAMED_SHARE 0.005

/* The table's line of @rk's assumed values: their summed share and each one's, then the names of
 * those below ASSUMED_NAMED_SHARE. Nothing when the scenario has none. */
static void assumed_line(const AppIntervalRank *rk, gboolean cpu, const char *indent, GString *out)
{
  if (rk->n_assumed == 0) return;
  g_string_append_printf(out, "%sassumed values (no source, a stated range): %.0f %% of the %s variance from %d:", indent,
                         100 * rk->assumed_share, cpu ? "CPU %" : "throughput", rk->n_assumed);
  const char *sep = " ";
  int t = 0;
  for (; t < rk->n_assumed && rk->assumed[t].share >= ASSUMED_NAMED_SHARE; t++, sep = ", ")
    g_string_append_printf(out, "%s%s %.0f %%", sep, rk->assumed[t].name, 100 * rk->assumed[t].share);
  if (t < rk->n_assumed) g_string_append_printf(out, "%sbelow %.1f %% each:", t ? "; " : " ", 100 * ASSUMED_NAMED_SHARE);
  for (sep = " "; t < rk->n_assumed; t++, sep = ", ") g_string_append_printf(out, "%s%s", sep, rk->assumed[t].name);
  g_string_append_c(out, '\n');
}

void report_interval_table(const AppInterval *iv, GString *out)
{
  /* rates in the unit that shows them (sim_units_gbps_text): a sub-Gb/s interval is not "0.0 Gb/s" */
  g_autofree char *lo = sim_units_gbps_text(iv->throughput_gbps[0]), *hi = sim_units_gbps_text(iv->throughput_gbps[1]);
  g_string_append_printf(out, "interval:   %.12g %% of %d draws: throughput %s .. %s, cpu %.1f .. %.1f %%", 100 * iv->level,
                         iv->draws - iv->failed, lo, hi, iv->cpu_util_pct[0], iv->cpu_util_pct[1]);
  if (iv->failed) g_string_append_printf(out, " (%d draws could not be built)", iv->failed);
  g_string_append(out, "\nbinds:      probability");
  const char *sep = " ";
  for (int k = 0; k < RK_COUNT; k++)
    if (iv->bottleneck_prob[k] > 0) {
      g_string_append_printf(out, "%s%s %.2f", sep, demand_kind_name((ResKind)k), iv->bottleneck_prob[k]);
      sep = ", ";
    }
  g_string_append_c(out, '\n');
  for (int f = 0; f < APP_IV_FIGURES; f++) {
    const AppIntervalRank *rk = &iv->contrib[f];
    gboolean cpu = f == APP_IV_CPU;
    const char *label = cpu ? "uncertain (cpu): " : "uncertain:  ", *indent = cpu ? "                 " : "            ";
    if (rk->n_top == 0)
      g_string_append_printf(out, "%sno value moves the %s at either end of its range\n", label, cpu ? "CPU %" : "throughput");
    for (int t = 0; t < rk->n_top; t++) {
      const AppIntervalContrib *c = &rk->top[t];
      g_autofree char *s0 = cpu ? g_strdup_printf("%.1f %%", c->swing[0]) : sim_units_gbps_text(c->swing[0]);
      g_autofree char *s1 = cpu ? g_strdup_printf("%.1f %%", c->swing[1]) : sim_units_gbps_text(c->swing[1]);
      g_string_append_printf(out, "%s%s (%s): %.0f %% of the %s variance, %s .. %s over its range; pin by: %s\n",
                             t == 0 ? label : indent, c->name, c->kind, 100 * c->share, cpu ? "CPU %" : "throughput", s0, s1,
                             c->pin_by);
    }
    if (rk->model_error_share > 0)
      g_string_append_printf(out, "%sand the model's own error %.0f %% (only a measured result of this box pins it)\n", indent,
                             100 * rk->model_error_share);
    assumed_line(rk, cpu, indent, out);
  }
}

static void write_table(const AppReport *r, GString *out)
{
  g_string_append_printf(out, "scenario: %s  (mode %s, seed %" G_GUINT64_FORMAT ")\n", r->scenario, r->mode, r->seed);
  if (r->overrides && r->overrides[0]) {
    g_autofree char *ov = overrides_text(r);
    g_string_append_printf(out, "overrides:  %s\n", ov);
  }
  if (r->rate_precision > 0)
    g_string_append_printf(out,
                           "precision:  rate_precision %g: rates re-solved once a load moves by more than that share of "
                           "its capacity (0: exact)\n",
                           r->rate_precision);
  /* rates in the unit that shows them (sim_units_gbps_scale): a sub-Gb/s load is not "0.0 Gb/s" */
  if (r->offered_gbps > 0) {
    g_autofree char *o = sim_units_gbps_text(r->offered_gbps);
    g_string_append_printf(out, "offered:    %s\n", o);
  } else
    g_string_append(out, "offered:    saturate\n");
  const char *tu;
  double tf = sim_units_gbps_scale(r->throughput_gbps, &tu); /* the CI in the throughput's unit */
  if (isfinite(r->throughput_ci95_gbps))
    g_string_append_printf(out, "throughput: %.1f %s +- %.1f (95 %% CI)\n", r->throughput_gbps * tf, tu,
                           r->throughput_ci95_gbps * tf);
  else
    g_string_append_printf(out, "throughput: %.1f %s\n", r->throughput_gbps * tf, tu);
  double un = report_unserved_gbps(r);
  if (r->offered_gbps > 0 && r->overloaded) {
    g_autofree char *u = sim_units_gbps_text(un);
    g_string_append_printf(out, "unserved:   %s (%.1f %% of offered): more than the box serves", u, 100 * un / r->offered_gbps);
    if (r->requests_rejected > 0)
      g_string_append_printf(out, "; %" G_GINT64_FORMAT " requests turned away", r->requests_rejected);
    g_string_append_c(out, '\n');
  }
  if (!report_steady(r)) {
    g_autofree char *x = sim_units_gbps_text(r->expected_gbps);
    g_string_append_printf(out,
                           "note:       %.0f %% below the bound's %s: the run has not reached steady state (too few\n"
                           "            requests, or slow ones holding the request slots); lengthen duration\n",
                           100 * (1 - r->throughput_gbps / r->expected_gbps), x);
  }
  write_cpu_line(r, out);
  if (isfinite(r->lat_p50_ms) && isfinite(r->lat_p99_ms) && isfinite(r->lat_p50_ci95_ms) && isfinite(r->lat_p99_ci95_ms))
    g_string_append_printf(out, "latency:    p50 %.3f +- %.3f ms  p99 %.3f +- %.3f ms (95 %% CIs, batch quantiles)\n",
                           r->lat_p50_ms, r->lat_p50_ci95_ms, r->lat_p99_ms, r->lat_p99_ci95_ms);
  else if (isfinite(r->lat_p50_ms) && isfinite(r->lat_p99_ms))
    g_string_append_printf(out, "latency:    p50 %.3f ms  p99 %.3f ms\n", r->lat_p50_ms, r->lat_p99_ms);
  else if (!strcmp(r->mode, "run"))
    g_string_append(out, "latency:    n/a (no request completed after the warm-up: lengthen duration)\n");
  else /* bound and capacity have no duration to lengthen */
    g_string_append(out, "latency:    n/a (no throughput, so no queue to wait in)\n");
  g_string_append_printf(out, "            (%s)\n", latency_definition(r));
  g_string_append_printf(out, "clients:    %.0f connections\n", r->connections);
  gboolean sat = report_saturated(r);
  if (r->bottleneck >= 0) {
    const AppReportResource *b = &r->res[r->bottleneck];
    /* a resource below its limit does not bottleneck anything: below saturation the line names
     * the busiest resource (the one closest to its limit), not a bottleneck */
    if (sat)
      g_string_append_printf(out, "bottleneck: %s (%s) at %.1f %% utilisation\n", b->name, b->kind, b->utilization * 100);
    else
      g_string_append_printf(out,
                             "busiest:    %s (%s) at %.1f %% utilisation (below saturation: the box serves all it is offered)\n",
                             b->name, b->kind, b->utilization * 100);
    if (r->stalled_cpu >= 0) {
      g_string_append_printf(out,
                             "            its stalls fill %s to its %.0f %% cap: DRAM stalls are %.0f %% of the cycles\n"
                             "            a further served byte costs there\n",
                             r->res[r->stalled_cpu].name, r->res[r->stalled_cpu].limit * 100, r->stall_share * 100);
      if (r->stall_upgrade)
        g_string_append(out, "            and 1 % more memory bandwidth buys more throughput than 1 % more clock\n");
    }
    const int *co = r->co;
    int nco = r->n_co;
    for (int k = 0; k < nco && k < REPORT_MAX_CO_SHOWN; k++)
      g_string_append_printf(out, "%s %s (%s) at %.1f %%\n", k == 0 ? (sat ? "co-limit:  " : "near it:   ") : "           ",
                             r->res[co[k]].name, r->res[co[k]].kind, r->res[co[k]].utilization * 100);
    if (nco > REPORT_MAX_CO_SHOWN) g_string_append_printf(out, "            ... and %d more\n", nco - REPORT_MAX_CO_SHOWN);
  }
  if (r->interval) report_interval_table(r->interval, out);
  if (r->ref.present) {
    g_string_append_printf(out, "reference:  %s: %.0f Gb/s", r->ref.id, r->ref.gbps);
    if (r->ref.cpu_pct >= 0) g_string_append_printf(out, ", CPU %.0f %%", r->ref.cpu_pct);
    if (r->ref.bottleneck) g_string_append_printf(out, ", bottleneck \"%s\"", r->ref.bottleneck);
    g_string_append_printf(out, " (%s)%s\n", r->ref.source ? r->ref.source : "",
                           r->ref.changed ? "; for the scenario before --set" : "");
  }
  if (r->nodes_known) {
    /* NIC ports per node: hot vs cold nodes under skew */
    GString *line = g_string_new(NULL);
    int shown = 0;
    for (int n = 0; n < REPORT_NODE_SCAN; n++) {
      double s = 0, drop = 0;
      int k = 0;
      for (int i = 0; i < r->n_res; i++)
        if (strcmp(r->res[i].kind, "nic_port") == 0 && r->res[i].node == n) {
          s += r->res[i].value;
          drop = MAX(drop, r->res[i].drop);
          k++;
        }
      if (!k) continue;
      g_autofree char *per = sim_units_gbps_text(s / k);
      g_string_append_printf(line, "%snode%d %s per port", shown++ ? ", " : "", n, per);
      if (drop > 0) g_string_append_printf(line, " (drops up to %.2f %%)", drop * 100);
    }
    if (shown > 1) g_string_append_printf(out, "nic ports:  %s\n", line->str);
    g_string_free(line, TRUE);
  }
  ram_report_table(&r->ram, out);
  /* the kind column is as wide as the longest kind the report lists ("cpu_lines" is 9), at
   * least the 8 of "nic_port", so no kind pushes its row's figures out of line */
  int kw = 8;
  for (int i = 0; i < r->n_res; i++) kw = MAX(kw, (int)strlen(r->res[i].kind));
  g_string_append_printf(out, "\n%-22s %-*s %6s  %-32s %10s %-5s %s\n", "resource", kw, "kind", "util", "", "value", "unit", "");
  for (int i = 0; i < r->n_res; i++) {
    const AppReportResource *x = &r->res[i];
    g_string_append_printf(out, "%-22s %-*s %5.1f%%  ", x->name, kw, x->kind, x->utilization * 100);
    bar(out, x->utilization, x->limit);
    g_string_append_printf(out, "  %9.2f %-5s", x->value, x->unit);
    if (strcmp(x->kind, "nic_port") == 0 && x->drop > 0) g_string_append_printf(out, " drops %.2f%%", x->drop * 100);
    if (i == r->bottleneck) g_string_append(out, sat ? " <- bottleneck" : " <- busiest");
    g_string_append_c(out, '\n');
  }
  g_string_append(out, "\nutil is of each resource's capacity net of its protocol and controller efficiency: DRAM is\n"
                       "channels x speed x 8 B x dram_eff (for its read/write mix), fabric links raw x fabric_eff, PCIe\n"
                       "after encoding and TLP headers; '|' marks a usable limit below it (the CPU cap). NIC ports carry\n"
                       "TLS payload: 100 % is line rate x port_eff (fitted; TCP/IP framing alone is 1448/1538 at MTU 1500).\n");
}

static void write_json(const AppReport *r, GString *out)
{
  g_autoptr(JsonBuilder) b = json_builder_new();
  json_builder_begin_object(b);
  sim_json_string(b, "scenario", r->scenario);
  sim_json_string(b, "mode", r->mode);
  sim_json_int(b, "seed", (gint64)r->seed);
  if (r->rate_precision > 0) sim_json_number(b, "rate_precision", r->rate_precision);
  json_builder_set_member_name(b, "overrides");
  json_builder_begin_array(b);
  for (char **o = r->overrides; o && *o; o++) json_builder_add_string_value(b, *o);
  json_builder_end_array(b);
  sim_json_number(b, "offered_gbps", r->offered_gbps > 0 ? r->offered_gbps : NAN);
  sim_json_bool(b, "saturate", !(r->offered_gbps > 0));
  sim_json_number(b, "throughput_gbps", r->throughput_gbps);
  if (r->expected_gbps >= 0) sim_json_number(b, "throughput_ci95_gbps", r->throughput_ci95_gbps);
  sim_json_number(b, "unserved_gbps", report_unserved_gbps(r));
  sim_json_bool(b, "overloaded", r->overloaded);
  if (r->requests_rejected >= 0) {
    sim_json_int(b, "requests_rejected", r->requests_rejected);
  }
  if (r->expected_gbps >= 0) {
    sim_json_bool(b, "steady_state", report_steady(r));
  }
  sim_json_number(b, "cpu_util_pct", r->cpu_util_pct);
  {
    AppCpuNodes c;
    report_cpu_nodes(r, &c);
    sim_json_number(b, "cpu_busiest_node_pct", c.busiest >= 0 ? c.busiest_pct : NAN);
    json_builder_set_member_name(b, "cpu_busiest_node");
    if (c.busiest >= 0)
      json_builder_add_string_value(b, r->res[c.busiest].name);
    else
      json_builder_add_null_value(b);
    json_builder_set_member_name(b, "cpu_idle_nodes");
    json_builder_begin_array(b);
    for (int k = 0; k < c.n_idle; k++) json_builder_add_string_value(b, r->res[c.idle[k]].name);
    json_builder_end_array(b);
  }
  if (r->interval) report_interval_json(r->interval, b);
  json_builder_set_member_name(b, "latency_ms");
  json_builder_begin_object(b);
  sim_json_number(b, "p50", r->lat_p50_ms);
  sim_json_number(b, "p99", r->lat_p99_ms);
  if (r->expected_gbps >= 0 || r->lat_measured) {
    sim_json_number(b, "p50_ci95", r->lat_p50_ci95_ms);
    sim_json_number(b, "p99_ci95", r->lat_p99_ci95_ms);
  }
  json_builder_end_object(b);
  sim_json_string(b, "latency_definition", latency_definition(r));
  sim_json_number(b, "connections", r->connections);
  json_builder_set_member_name(b, "bottleneck");
  if (r->bottleneck >= 0) {
    const AppReportResource *x = &r->res[r->bottleneck];
    json_builder_begin_object(b);
    sim_json_string(b, "resource", x->name);
    sim_json_string(b, "kind", x->kind);
    sim_json_number(b, "util_frac", x->utilization);
    if (r->stalled_cpu >= 0) {
      sim_json_string(b, "stalls_fill", r->res[r->stalled_cpu].name);
      sim_json_number(b, "dram_stall_share", r->stall_share);
    }
    json_builder_end_object(b);
    json_builder_set_member_name(b, "co_bottlenecks");
    json_builder_begin_array(b);
    for (int k = 0; k < r->n_co; k++) json_builder_add_string_value(b, r->res[r->co[k]].name);
    json_builder_end_array(b);
  } else {
    json_builder_add_null_value(b);
  }
  json_builder_set_member_name(b, "resources");
  json_builder_begin_array(b);
  for (int i = 0; i < r->n_res; i++) {
    const AppReportResource *x = &r->res[i];
    json_builder_begin_object(b);
    sim_json_string(b, "name", x->name);
    sim_json_string(b, "kind", x->kind);
    sim_json_number(b, "util_frac", x->utilization);
    sim_json_number(b, "value", x->value);
    sim_json_string(b, "unit", x->unit);
    if (r->nodes_known && x->node >= 0) {
      sim_json_int(b, "node", x->node);
    }
    if (strcmp(x->kind, "nic_port") == 0) {
      sim_json_number(b, "drop_frac", x->drop);
    }
    json_builder_end_object(b);
  }
  json_builder_end_array(b);
  ram_report_json(&r->ram, b);
  if (r->ref.present) {
    json_builder_set_member_name(b, "reference");
    json_builder_begin_object(b);
    sim_json_string(b, "id", r->ref.id);
    sim_json_number(b, "gbps", r->ref.gbps);
    if (r->ref.cpu_pct >= 0) {
      sim_json_number(b, "cpu_pct", r->ref.cpu_pct);
    }
    if (r->ref.bottleneck) {
      sim_json_string(b, "bottleneck", r->ref.bottleneck);
    }
    sim_json_bool(b, "scenario_changed", r->ref.changed);
    json_builder_end_object(b);
  }
  json_builder_end_object(b);
  sim_json_append(b, out);
}

/* Appends ",v" for each of @n numbers (exact; empty when not finite). */
static void csv_numbers(GString *out, int n, const double *v)
{
  for (int i = 0; i < n; i++) {
    g_string_append_c(out, ',');
    sim_csv_number_exact(out, v[i]);
  }
}

static void write_csv(const AppReport *r, GString *out)
{
  /* rate_precision after seed, as in JSON, only when set: an exact run's CSV is what it was before the knob */
  g_string_append(out, r->rate_precision > 0 ? "scenario,mode,seed,rate_precision," : "scenario,mode,seed,");
  g_string_append(
      out, "overrides,offered_gbps,saturate,throughput_gbps,throughput_ci95_gbps,unserved_gbps,"
           "overloaded,cpu_util_pct,cpu_busiest_node_pct,cpu_busiest_node,throughput_gbps_lo,throughput_gbps_hi,cpu_util_pct_lo,"
           "cpu_util_pct_hi,interval_level,p50_ms,p50_ci95_ms,p99_ms,p99_ci95_ms,resource,kind,node,util_frac,value,unit,"
           "drop_frac,is_bottleneck\n");
  g_autofree char *ov = overrides_text(r);
  AppCpuNodes c;
  report_cpu_nodes(r, &c);
  for (int i = 0; i < r->n_res; i++) {
    const AppReportResource *x = &r->res[i];
    sim_csv_field(out, r->scenario);
    g_string_append_printf(out, ",%s,%" G_GUINT64_FORMAT ",", r->mode, r->seed);
    if (r->rate_precision > 0) {
      sim_csv_number_exact(out, r->rate_precision);
      g_string_append_c(out, ',');
    }
    sim_csv_field(out, ov);
    csv_numbers(out, 1, (double[]){ r->offered_gbps > 0 ? r->offered_gbps : NAN });
    g_string_append(out, r->offered_gbps > 0 ? ",false" : ",true");
    csv_numbers(out, 3, (double[]){ r->throughput_gbps, r->throughput_ci95_gbps, report_unserved_gbps(r) });
    g_string_append(out, r->overloaded ? ",true" : ",false");
    csv_numbers(out, 2, (double[]){ r->cpu_util_pct, c.busiest >= 0 ? c.busiest_pct : NAN });
    g_string_append_c(out, ',');
    if (c.busiest >= 0) sim_csv_field(out, r->res[c.busiest].name);
    const AppInterval *iv = r->interval;
    csv_numbers(out, 5,
                (double[]){ iv ? iv->throughput_gbps[0] : NAN, iv ? iv->throughput_gbps[1] : NAN, iv ? iv->cpu_util_pct[0] : NAN,
                            iv ? iv->cpu_util_pct[1] : NAN, iv ? iv->level : NAN });
    csv_numbers(out, 4, (double[]){ r->lat_p50_ms, r->lat_p50_ci95_ms, r->lat_p99_ms, r->lat_p99_ci95_ms });
    g_string_append_c(out, ',');
    sim_csv_field(out, x->name);
    g_string_append_printf(out, ",%s,", x->kind);
    if (r->nodes_known && x->node >= 0) g_string_append_printf(out, "%d", x->node);
    csv_numbers(out, 2, (double[]){ x->utilization, x->value });
    g_string_append_printf(out, ",%s", x->unit);
    csv_numbers(out, 1, (double[]){ strcmp(x->kind, "nic_port") == 0 ? x->drop : NAN });
    g_string_append(out, i == r->bottleneck ? ",true\n" : ",false\n");
  }
}

void report_write(const AppReport *r, AppReportFormat fmt, GString *out)
{
  switch (fmt) {
    case APP_FMT_TABLE: write_table(r, out); break;
    case APP_FMT_JSON: write_json(r, out); break;
    case APP_FMT_CSV: write_csv(r, out); break;
  }
}
