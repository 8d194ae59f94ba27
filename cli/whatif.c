/* cli/whatif.c — the failure what-if of bound and run (see cli/whatif.h). */
#include "cli/whatif.h"

#include <math.h>
#include <stdio.h>
#include "models/appliance/failure.h"
#include "sim/json.h"
#include "sim/units.h"

gboolean cli_whatif_degrade(const CliAppliance *healthy, const char *const *fail, Appliance **a, DemandModel **m, GError **error)
{
  *a = g_memdup2(healthy->a, sizeof **a);
  *m = NULL;
  GError *e = NULL;
  if (appliance_fail(*a, fail, error) && (*m = demand_build(*a, &e))) return TRUE;
  if (e) { /* a degraded box the model refuses: say which failures made it */
    g_autofree char *list = g_strjoinv(", ", (char **)fail);
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--fail %s: %s", list, e->message);
    g_error_free(e);
  }
  g_clear_pointer(a, g_free);
  return FALSE;
}

gboolean cli_whatif_format_ok(const CliOptions *opt)
{
  if (!opt->fail || opt->format != CLI_FORMAT_CSV) return TRUE;
  fprintf(stderr, "ocasim: --fail writes table or json, not csv\n");
  return FALSE;
}

char **cli_whatif_failures(const CliOptions *opt, const AppScenarioInfo *info)
{
  g_autoptr(GStrvBuilder) b = g_strv_builder_new();
  gboolean any = FALSE;
  for (char **f = info ? info->failures : NULL; f && *f; f++, any = TRUE) g_strv_builder_add(b, *f);
  for (char **f = opt->fail; f && *f; f++, any = TRUE) g_strv_builder_add(b, *f);
  return any ? g_strv_builder_end(b) : NULL;
}

gboolean cli_whatif_format_allows(const CliOptions *opt, char *const *fail, GError **error)
{
  if (!fail || opt->format != CLI_FORMAT_CSV) return TRUE;
  g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
              "a failure what-if (--fail or the scenario's failures:) writes table or json, not csv");
  return FALSE;
}

/* The report as a JSON node (transfer full). */
static JsonNode *report_node(const AppReport *r)
{
  g_autoptr(GString) s = g_string_new(NULL);
  report_write(r, APP_FMT_JSON, s);
  g_autoptr(JsonParser) p = json_parser_new();
  if (!json_parser_load_from_data(p, s->str, (gssize)s->len, NULL)) return json_node_new(JSON_NODE_NULL);
  return json_node_copy(json_parser_get_root(p));
}

static const char *bottleneck_name(const AppReport *r)
{
  return r->bottleneck >= 0 ? r->res[r->bottleneck].name : "none";
}

/* Decimals the degraded share keeps (assumed): the two throughputs carry the solvers' and the
 * summation's rounding in their last digits (demand.c: the X* solve stops at 1e-12, the sizing
 * fixed point at 1e-11 relative; the port totals sum the drives' content shares, which add up to
 * 1 only within rounding), so their quotient does too: a drive down on a NIC-bound box gave
 * 1.0000000000000007, one port of four 0.74999999999999978. Nine decimals is the precision the
 * metamorphic suite asks of X (1e-9) and well above that noise. */
#define SHARE_SCALE 1e9

/* The degraded share of the healthy throughput, rounded to SHARE_SCALE: an exact share (3/4,
 * 1 when the failure leaves the bottleneck alone) is that number. NaN when the healthy box serves nothing. */
static double degraded_share(const AppReport *healthy, const AppReport *degraded)
{
  if (!(healthy->throughput_gbps > 0)) return NAN;
  return round(degraded->throughput_gbps / healthy->throughput_gbps * SHARE_SCALE) / SHARE_SCALE;
}

void cli_whatif_write(const char *const *fail, const AppReport *healthy, const AppReport *degraded, CliFormat fmt, GString *out)
{
  double share = degraded_share(healthy, degraded);
  if (fmt == CLI_FORMAT_JSON) {
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "failed");
    json_builder_begin_array(b);
    for (const char *const *f = fail; *f; f++) json_builder_add_string_value(b, *f);
    json_builder_end_array(b);
    sim_json_number(b, "throughput_share", share);
    json_builder_set_member_name(b, "healthy");
    json_builder_add_value(b, report_node(healthy));
    json_builder_set_member_name(b, "degraded");
    json_builder_add_value(b, report_node(degraded));
    json_builder_end_object(b);
    sim_json_append(b, out);
    return;
  }
  g_autofree char *list = g_strjoinv(", ", (char **)fail);
  g_string_append_printf(out, "what-if:    %s down (mode %s)\n", list, degraded->mode);
  g_string_append_printf(out, "            %-22s %-22s\n", "healthy", "degraded");
  g_autofree char *th = sim_units_gbps_text(healthy->throughput_gbps);
  g_autofree char *td = sim_units_gbps_text(degraded->throughput_gbps);
  g_string_append_printf(out, "throughput: %-22s %-22s (%.1f %% of healthy)\n", th, td, 100 * share);
  /* the busiest node is the one the CPU cap binds on; the mean alone hides a node left carrying as much */
  AppCpuNodes nh, nd;
  report_cpu_nodes(healthy, &nh);
  report_cpu_nodes(degraded, &nd);
  g_autofree char *bh = g_strdup_printf("%.1f %%", nh.busiest_pct);
  g_autofree char *bd = g_strdup_printf("%.1f %%", nd.busiest_pct);
  g_string_append_printf(out, "cpu:        %-22s %-22s (busiest node)\n", bh, bd);
  g_autofree char *ch = g_strdup_printf("%.1f %%", healthy->cpu_util_pct);
  g_autofree char *cd = g_strdup_printf("%.1f %%", degraded->cpu_util_pct);
  g_string_append_printf(out, "            %-22s %-22s (mean over nodes)\n", ch, cd);
  g_autofree char *lh = g_strdup_printf("%.3f ms", healthy->lat_p99_ms);
  g_autofree char *ld = g_strdup_printf("%.3f ms", degraded->lat_p99_ms);
  g_string_append_printf(out, "p99:        %-22s %-22s\n", lh, ld);
  g_string_append_printf(out, "bottleneck: %-22s %-22s\n", bottleneck_name(healthy), bottleneck_name(degraded));
  if (healthy->interval) { /* the healthy box's interval, as the JSON's healthy.interval; none under --no-interval */
    g_string_append(out, "\nThe healthy box's prediction interval:\n");
    report_interval_table(healthy->interval, out);
    if (!degraded->interval) /* by design (docs/outputs.md, --fail): one box's draws, not two */
      g_string_append(out, "degraded:   no interval (a what-if draws the healthy box's only; a sweep with failures: draws "
                           "one per degraded point)\n");
  }
  g_string_append(out, "\nThe degraded box:\n");
  report_write(degraded, APP_FMT_TABLE, out);
}
