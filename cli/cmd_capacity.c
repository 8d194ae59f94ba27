/* cli/cmd_capacity.c — `ocasim capacity FILE`: the largest offered load that meets the health
 * criteria (CPU at or below its cap, NIC output drops at or below workload.drop_max, p99 request
 * latency within workload.latency_slo, no other resource saturated, and, where workload.headroom
 * sets them, every DRAM node, fabric link, PCIe link, drive, NIC port or TLS engine at or below
 * its kind's limit, and, where memory.installed is given, the RAM the box needs within it), found by GSL root
 * bracketing (models/modes/capacity.h). Prints the limiting criterion, each criterion's
 * limit, and the bound-mode report at the capacity load. */
#include <math.h>
#include <stdio.h>
#include "cli/commands.h"
#include "cli/scenario.h"
#include "models/modes/capacity.h"
#include "models/modes/des.h"
#include "models/modes/report.h"
#include "sim/csv.h"
#include "sim/json.h"
#include "sim/units.h"

/* The workload.headroom limits set, "dram 85 %, pcie 90 %" (transfer full). */
static char *headroom_limits(const Appliance *a)
{
  GString *s = g_string_new(NULL);
  for (int k = 0; k < RK_COUNT; k++) {
    double h = capacity_headroom(&a->wl, (ResKind)k);
    if (h > 0) g_string_append_printf(s, "%s%s %g %%", s->len ? ", " : "", demand_kind_names[k], h * 100);
  }
  return g_string_free(s, FALSE);
}

/* Whether criterion @k is reported: every one but the headroom when no workload.headroom is set
 * and the RAM when memory.installed is not given. */
static gboolean criterion_shown(CapCriterion k, const CapacityResult *c)
{
  return (k != CAP_HEADROOM || c->headroom_on) && (k != CAP_RAM || c->ram_on);
}

/* What each criterion's limit means, for the table (the scenario's own thresholds). */
static char *criterion_meaning(CapCriterion k, const Appliance *a, const CapacityResult *c)
{
  switch (k) {
    case CAP_CPU:
      /* the criterion is the CPU's demand at the offered load: above the saturation the box does
       * not serve that load, so the limit is headroom, not a load the CPU would see */
      if (c->limit_gbps[CAP_CPU] > c->limit_gbps[CAP_SATURATION])
        return g_strdup_printf("busiest node's CPU demand reaches its %.0f %% cap; above saturation: the CPU's headroom "
                               "were the saturated resource larger",
                               a->cpu.cap * 100);
      return g_strdup_printf("busiest node's CPU reaches its %.0f %% cap", a->cpu.cap * 100);
    case CAP_DROPS: return g_strdup_printf("NIC output drops reach workload.drop_max (%g %%)", a->wl.drop_max * 100);
    case CAP_LATENCY: {
      /* the bound's limit is infinite when its p99 stays within the SLO at every load */
      g_autofree char *bound = sim_units_gbps_text(c->latency_bound_gbps), *at = sim_units_gbps_text(c->des_at_gbps);
      g_autofree char *est = isfinite(c->latency_bound_gbps) ? g_strdup_printf("says %s", bound) : g_strdup("never reaches it");
      if (c->latency_des && c->des_fell_short && isfinite(c->des_p99_ms))
        return g_strdup_printf("above it a run of ocasim run serves less than it is offered (beyond its CI), whatever its "
                               "p99; p99 %.3f +- %.3f ms at %s, within workload.latency_slo (%g ms); the bound's estimate %s",
                               c->des_p99_ms, c->des_p99_ci95_ms, at, a->wl.latency_slo_ns / 1e6, est);
      if (c->latency_des && isfinite(c->des_p99_ms))
        return g_strdup_printf("p99 reaches workload.latency_slo (%g ms): by ocasim run, p99 %.3f +- %.3f ms at %s; "
                               "the bound's estimate %s",
                               a->wl.latency_slo_ns / 1e6, c->des_p99_ms, c->des_p99_ci95_ms, at, est);
      if (c->latency_des)
        return g_strdup_printf("p99 reaches workload.latency_slo (%g ms): by ocasim run, not met at any load checked; the "
                               "bound's estimate %s",
                               a->wl.latency_slo_ns / 1e6, est);
      return g_strdup_printf("p99 reaches workload.latency_slo (%g ms), bound's estimate", a->wl.latency_slo_ns / 1e6);
    }
    case CAP_SATURATION: return g_strdup("a drive, PCIe link, DRAM node, fabric link, NIC port or NIC TLS engine at 100 %");
    case CAP_RAM: {
      g_autofree char *inst = sim_units_bytes_text(a->pc.installed_bytes);
      return g_strdup_printf("the RAM needed (page cache, socket buffers, TLS state, reads in flight, reserve) reaches "
                             "memory.installed (%s)",
                             inst);
    }
    case CAP_HEADROOM: {
      g_autofree char *lim = headroom_limits(a);
      /* as the CPU's: above the saturation the limit is the demand the box would put on it */
      if (c->headroom_res[0] && c->limit_gbps[CAP_HEADROOM] > c->limit_gbps[CAP_SATURATION])
        return g_strdup_printf("%s's demand reaches its workload.headroom limit %g %%; above saturation: headroom "
                               "were the saturated resource larger; limits: %s",
                               c->headroom_res, c->headroom_limit * 100, lim);
      if (c->headroom_res[0])
        return g_strdup_printf("%s reaches its workload.headroom limit %g %%; limits: %s", c->headroom_res,
                               c->headroom_limit * 100, lim);
      return g_strdup_printf("a resource reaches its kind's workload.headroom limit (%s; 100 %%: the saturation criterion)", lim);
    }
    default: g_assert_not_reached();
  }
}

/* Writes the capacity @c of @a in @fmt, with the report @rep at the capacity load; @eps: the
 * rate precision of the latency check's DES runs (0: exact, and then not written, so that an
 * exact run's output is what it was before the knob). */
static void write_capacity(const CapacityResult *c, const Appliance *a, const AppReport *rep, double eps, CliFormat fmt,
                           GString *out)
{
  /* the precision matters only where the DES ran */
  if (!(c->latency_des && c->des_runs > 0)) eps = 0;
  if (fmt == CLI_FORMAT_JSON) {
    /* one JSON document: the capacity object, with the report under "at_capacity" */
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_object(b);
    sim_json_number(b, "capacity_gbps", c->capacity_gbps);
    sim_json_pair(b, "capacity_ci95_gbps", c->capacity_ci95_gbps[0], c->capacity_ci95_gbps[1]);
    sim_json_string(b, "limiting_criterion", capacity_criterion_name(c->limiting));
    json_builder_set_member_name(b, "criteria");
    json_builder_begin_object(b);
    for (int k = 0; k < CAP_COUNT; k++)
      if (criterion_shown((CapCriterion)k, c)) sim_json_number(b, capacity_criterion_name((CapCriterion)k), c->limit_gbps[k]);
    json_builder_end_object(b);
    if (c->headroom_on) {
      /* the limits set and the resource at its limit at the headroom criterion's limit */
      json_builder_set_member_name(b, "headroom");
      json_builder_begin_object(b);
      json_builder_set_member_name(b, "limits_pct");
      json_builder_begin_object(b);
      for (int k = 0; k < RK_COUNT; k++) {
        double h = capacity_headroom(&a->wl, (ResKind)k);
        if (h > 0) sim_json_number(b, demand_kind_names[k], h * 100);
      }
      json_builder_end_object(b);
      if (c->headroom_res[0]) {
        sim_json_string(b, "resource", c->headroom_res);
        sim_json_number(b, "limit_pct", c->headroom_limit * 100);
      } else {
        json_builder_set_member_name(b, "resource");
        json_builder_add_null_value(b);
        json_builder_set_member_name(b, "limit_pct");
        json_builder_add_null_value(b);
      }
      json_builder_end_object(b);
    }
    json_builder_set_member_name(b, "latency_check");
    json_builder_begin_object(b);
    sim_json_string(b, "by", c->latency_des ? "run" : "bound");
    sim_json_number(b, "bound_estimate_gbps", c->latency_bound_gbps);
    sim_json_number(b, "run_at_gbps", c->des_at_gbps);
    sim_json_number(b, "run_p99_ms", c->des_p99_ms);
    sim_json_number(b, "run_p99_ci95_ms", c->des_p99_ci95_ms);
    sim_json_int(b, "runs", c->des_runs);
    if (eps > 0) sim_json_number(b, "rate_precision", eps);
    sim_json_bool(b, "run_fell_short", c->des_fell_short);
    json_builder_end_object(b);
    g_autoptr(GString) r = g_string_new(NULL);
    report_write(rep, APP_FMT_JSON, r);
    g_autoptr(JsonParser) parser = json_parser_new();
    if (json_parser_load_from_data(parser, r->str, (gssize)r->len, NULL)) {
      json_builder_set_member_name(b, "at_capacity");
      json_builder_add_value(b, json_node_copy(json_parser_get_root(parser)));
    }
    json_builder_end_object(b);
    sim_json_append(b, out);
    return;
  }
  if (fmt == CLI_FORMAT_CSV) {
    /* with workload.headroom set, two more columns: the resource at its headroom limit and that limit */
    /* rate_precision after seed, as run's CSV, only when set */
    g_string_append(out, eps > 0 ? "scenario,seed,rate_precision," : "scenario,seed,");
    g_string_append(out, "overrides,capacity_gbps,capacity_ci95_gbps_lo,capacity_ci95_gbps_hi,criterion,limit_gbps,limiting");
    g_string_append(out, c->headroom_on ? ",resource,headroom_pct" : "");
    g_string_append(out, ",throughput_gbps_lo,throughput_gbps_hi,cpu_util_pct_lo,cpu_util_pct_hi,interval_level\n");
    const AppInterval *iv = rep->interval;
    g_autofree char *ov = rep->overrides ? g_strjoinv("; ", rep->overrides) : g_strdup("");
    for (int k = 0; k < CAP_COUNT; k++) {
      if (!criterion_shown((CapCriterion)k, c)) continue;
      sim_csv_field(out, rep->scenario);
      g_string_append_printf(out, ",%" G_GUINT64_FORMAT ",", rep->seed);
      if (eps > 0) {
        sim_csv_number_exact(out, eps);
        g_string_append_c(out, ',');
      }
      sim_csv_field(out, ov);
      g_string_append_c(out, ',');
      sim_csv_number_exact(out, c->capacity_gbps); /* empty: no limit */
      for (int e = 0; e < 2; e++) {
        g_string_append_c(out, ',');
        sim_csv_number_exact(out, c->capacity_ci95_gbps[e]); /* empty: no limit */
      }
      g_string_append_printf(out, ",%s,", capacity_criterion_name((CapCriterion)k));
      sim_csv_number_exact(out, c->limit_gbps[k]); /* empty: never reached */
      g_string_append(out, k == (int)c->limiting && isfinite(c->capacity_gbps) ? ",true" : ",false");
      if (c->headroom_on) {
        g_string_append_c(out, ',');
        if (k == CAP_HEADROOM && c->headroom_res[0]) {
          sim_csv_field(out, c->headroom_res);
          g_string_append_c(out, ',');
          sim_csv_number_exact(out, c->headroom_limit * 100);
        } else {
          g_string_append_c(out, ',');
        }
      }
      double ivv[5] = { iv ? iv->throughput_gbps[0] : NAN, iv ? iv->throughput_gbps[1] : NAN, iv ? iv->cpu_util_pct[0] : NAN,
                        iv ? iv->cpu_util_pct[1] : NAN, iv ? iv->level : NAN };
      for (int v = 0; v < 5; v++) {
        g_string_append_c(out, ',');
        sim_csv_number_exact(out, ivv[v]); /* empty: no interval */
      }
      g_string_append_c(out, '\n');
    }
    return;
  }
  /* rates in the unit that shows them (sim_units_gbps_scale): a sub-Gb/s capacity is not "0.0 Gb/s" */
  g_autofree char *cap = sim_units_gbps_text(c->capacity_gbps);
  if (isinf(c->capacity_gbps))
    g_string_append_printf(out, "capacity:   no limit: every criterion holds up to %g x the saturation throughput\n",
                           CAPACITY_BRACKET_MAX);
  else if (c->capacity_gbps <= 0)
    g_string_append_printf(out, "capacity:   none: no offered load meets the %s criterion, not even a trickle (%.3g Gb/s)\n",
                           capacity_criterion_name(c->limiting), c->probe_floor_gbps);
  else if (c->limiting == CAP_HEADROOM)
    g_string_append_printf(out, "capacity:   %s, limited by headroom on %s (%g %%)\n", cap, c->headroom_res,
                           c->headroom_limit * 100);
  else
    g_string_append_printf(out, "capacity:   %s, limited by %s\n", cap, capacity_criterion_name(c->limiting));
  if (c->capacity_ci95_gbps[0] < c->capacity_ci95_gbps[1]) {
    /* the DES latency check's noise: its bisection step and its runs' CIs */
    g_autofree char *lo = sim_units_gbps_text(c->capacity_ci95_gbps[0]), *hi = sim_units_gbps_text(c->capacity_ci95_gbps[1]);
    g_string_append_printf(out, "            95 %% CI %s .. %s (the latency check's last step and its runs' CIs)\n", lo, hi);
  }
  if (eps > 0)
    g_string_append_printf(out,
                           "precision:  rate_precision %g in the latency check's runs: rates re-solved once a load moves by "
                           "more than that share of its capacity (0: exact)\n",
                           eps);
  for (int k = 0; k < CAP_COUNT; k++) {
    if (!criterion_shown((CapCriterion)k, c)) continue;
    g_autofree char *what = criterion_meaning((CapCriterion)k, a, c);
    g_autofree char *lim = sim_units_gbps_text(c->limit_gbps[k]), *at = sim_units_gbps_text(c->des_at_gbps);
    if (isinf(c->limit_gbps[k]) && k == CAP_LATENCY && c->latency_des && isfinite(c->des_at_gbps))
      /* the DES checks the latency only up to the other criteria's limit, not beyond it */
      g_string_append_printf(out, "  %-11s not reached up to %s, not checked above (%s)\n",
                             capacity_criterion_name((CapCriterion)k), at, what);
    else if (isinf(c->limit_gbps[k]))
      g_string_append_printf(out, "  %-11s    never reached   (%s)\n", capacity_criterion_name((CapCriterion)k), what);
    else
      g_string_append_printf(out, "  %-11s %13s%s (%s)\n", capacity_criterion_name((CapCriterion)k), lim,
                             k == (int)c->limiting ? " <- " : "    ", what);
  }
  g_string_append(out, "\nAt the capacity load:\n");
  report_write(rep, APP_FMT_TABLE, out);
}

int cmd_capacity(int argc, char **argv)
{
  CliOptions opt;
  g_autoptr(GError) error = NULL;
  if (!cli_parse(&argc, &argv, &opt, NULL, "FILE",
                 "Largest offered load of the appliance scenario in FILE that keeps the CPU at or below its cap,\n"
                 "NIC output drops at or below workload.drop_max and p99 latency within workload.latency_slo\n"
                 "(measured by ocasim run at candidate loads), and every resource at or below its kind's\n"
                 "workload.headroom limit where the scenario sets one, and the RAM the box needs within\n"
                 "memory.installed where it is given.",
                 CLI_OPT_OUTPUT | CLI_OPT_PROGRESS | CLI_OPT_TIMED | CLI_OPT_INTERVAL, &error))
    return cli_fail(error);
  int status = OCASIM_EXIT_BADINPUT;
  CliAppliance ca;
  CapacityResult c;
  if (!cli_one_file(&opt, "capacity")) {
    /* status stays bad input */
  } else if (!cli_appliance_load_healthy(&opt, &ca, "capacity", &error)) {
    status = cli_fail(error);
  } else {
    /* the latency check runs the DES at offered loads (whatever the scenario's offered: a
     * saturate scenario too), so a run too short for paced clients' segments warns as run does */
    Appliance at_load = *ca.a;
    at_load.wl.offered_gbps = 1.0;
    g_autofree char *short_run = des_short_run_warning(&at_load, &ca.info);
    if (short_run) g_message("%s (the runs of capacity's latency check: its p99 varies as much)", short_run);
    g_autofree char *what = g_strdup_printf("ocasim capacity %s", opt.files[0]);
    CliProgress *p = cli_progress_start(&opt.common, what, "criteria");
    SimObserver obs = { .progress = cli_progress_update, .progress_ctx = p };
    gboolean ok = capacity_des(ca.a, &ca.info, ca.m, &obs, &c, &error);
    cli_progress_end(p);
    if (!ok) {
      status = cli_fail(error);
    } else {
      g_autoptr(AppReport) rep = capacity_report(ca.a, &ca.info, ca.m, &c, &error);
      /* the interval of the throughput and CPU % at the capacity load (not of the capacity itself) */
      if (rep && isfinite(c.capacity_gbps) && c.capacity_gbps > 0) {
        rep->interval = cli_interval_eval(&opt, &ca, c.capacity_gbps, &error);
        if (error) g_clear_pointer(&rep, report_free);
      }
      if (!rep) {
        status = cli_fail(error);
      } else {
        g_autoptr(GString) out = g_string_new(NULL);
        write_capacity(&c, ca.a, rep, ca.info.rate_precision, opt.format, out);
        status = cli_emit(&opt, out);
      }
    }
    cli_appliance_clear(&ca);
  }
  cli_options_clear(&opt);
  return status;
}
