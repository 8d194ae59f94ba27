/* cli/cmd_bound.c — `ocasim bound FILE`: the analytic bottleneck bound of an appliance
 * scenario (models/modes/bound.h): per-resource demand per served byte, the bottleneck
 * law, utilisations at the offered load, printed as table, JSON or CSV. Instant. */
#include <stdio.h>
#include "cli/commands.h"
#include "cli/scenario.h"
#include "cli/whatif.h"
#include "models/modes/report.h"

int cmd_bound(int argc, char **argv)
{
  CliOptions opt;
  g_autoptr(GError) error = NULL;
  if (!cli_parse(&argc, &argv, &opt, NULL, "FILE",
                 "Analytic bound of the appliance scenario in FILE: demand per served byte on every resource,\n"
                 "the bottleneck law, and utilisations at the offered load.",
                 CLI_OPT_OUTPUT | CLI_OPT_FAIL | CLI_OPT_INTERVAL, &error))
    return cli_fail(error);
  int status = OCASIM_EXIT_BADINPUT;
  CliAppliance ca;
  if (!cli_one_file(&opt, "bound") || !cli_whatif_format_ok(&opt)) {
    /* status stays bad input */
  } else if (!cli_appliance_load(&opt, &ca, &error)) {
    status = cli_fail(error);
  } else {
    g_autoptr(BoundResult) r = bound_eval(ca.a, ca.m, ca.a->wl.offered_gbps);
    g_autoptr(AppReport) rep = report_from_bound(ca.a, &ca.info, ca.m, r);
    g_autoptr(GString) out = g_string_new(NULL);
    GError *ierr = NULL;
    rep->interval = cli_interval_eval(&opt, &ca, ca.a->wl.offered_gbps, &ierr);
    Appliance *da = NULL;
    DemandModel *dm = NULL;
    g_auto(GStrv) fail = cli_whatif_failures(&opt, &ca.info); /* the scenario's failures: and --fail */
    if (ierr) {
      g_propagate_error(&error, ierr);
      status = cli_fail(error);
    } else if (!cli_whatif_format_allows(&opt, fail, &error)) {
      status = cli_fail(error);
    } else if (!fail) {
      report_write(rep, (AppReportFormat)opt.format, out);
      status = cli_emit(&opt, out);
    } else if (!cli_whatif_degrade(&ca, (const char *const *)fail, &da, &dm, &error)) {
      status = cli_fail(error);
    } else {
      g_autoptr(BoundResult) dr = bound_eval(da, dm, da->wl.offered_gbps);
      g_autoptr(AppReport) drep = report_from_bound(da, &ca.info, dm, dr);
      cli_whatif_write((const char *const *)fail, rep, drep, opt.format, out);
      status = cli_emit(&opt, out);
    }
    demand_free(dm);
    g_free(da);
    cli_appliance_clear(&ca);
  }
  cli_options_clear(&opt);
  return status;
}
