/* cli/cmd_bound.c — `ocasim bound FILE`: the analytic bottleneck bound of an appliance
 * scenario (models/appliance_bound.h): per-resource demand per served byte, the bottleneck
 * law, utilisations at the offered load, printed as table, JSON or CSV. Instant. */
#include <stdio.h>
#include "cli/commands.h"
#include "cli/scenario.h"
#include "models/appliance_report.h"

int cmd_bound(int argc, char **argv)
{
  cli_options opt;
  g_autoptr(GError) error = NULL;
  int status = OCASIM_EXIT_OK;
  if (!cli_parse(&argc, &argv, &opt, NULL, "FILE",
                 "Analytic bound of the appliance scenario in FILE: demand per served byte on every resource,\n"
                 "the bottleneck law, and utilisations at the offered load.",
                 &error))
    return cli_fail(error);
  if (!opt.files || !opt.files[0] || opt.files[1]) {
    fprintf(stderr, "ocasim: bound needs exactly one scenario FILE (see --help)\n");
    cli_options_clear(&opt);
    return OCASIM_EXIT_BADINPUT;
  }
  g_autoptr(SimConfDoc) doc = cli_load_scenario(opt.files[0], &opt, &error);
  Appliance *a = g_new0(Appliance, 1);
  AppScenarioInfo info = {0};
  if (!doc || !appliance_from_conf(sim_conf_doc_root(doc), a, &info, &error)) {
    status = cli_fail(error);
  } else {
    g_autoptr(DemandModel) m = demand_build(a, &error);
    if (!m) {
      status = cli_fail(error);
    } else {
      g_autoptr(BoundResult) r = bound_eval(a, m, a->wl.offered_gbps);
      g_autoptr(AppReport) rep = app_report_from_bound(a, &info, m, r);
      g_autoptr(GString) out = g_string_new(NULL);
      app_report_write(rep, (AppReportFormat)opt.format, out);
      status = cli_emit(out);
    }
  }
  app_scenario_info_clear(&info);
  g_free(a);
  cli_options_clear(&opt);
  return status;
}
