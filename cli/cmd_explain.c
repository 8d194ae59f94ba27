/* cli/cmd_explain.c — `ocasim explain FILE`: the per-byte breakdown of an appliance scenario
 * (models/modes/explain.h): DRAM bytes by touch, CPU cycles by component, fabric bytes per
 * link and PCIe tag occupancy at the bound's operating point, as a table or JSON. Instant. */
#include <stdio.h>
#include "cli/commands.h"
#include "cli/scenario.h"
#include "models/modes/explain.h"

int cmd_explain(int argc, char **argv)
{
  CliOptions opt;
  g_autoptr(GError) error = NULL;
  if (!cli_parse(&argc, &argv, &opt, NULL, "FILE",
                 "Per served byte of the appliance scenario in FILE, from the demand model the bound uses: DRAM\n"
                 "bytes by touch, CPU cycles by component, fabric bytes per link and PCIe tag occupancy.",
                 CLI_OPT_OUTPUT | CLI_OPT_NO_CSV | CLI_OPT_INTERVAL, &error))
    return cli_fail(error);
  int status = OCASIM_EXIT_BADINPUT;
  CliAppliance ca;
  if (!cli_one_file(&opt, "explain")) {
    /* status stays bad input */
  } else if (!cli_appliance_load_healthy(&opt, &ca, "explain", &error)) {
    status = cli_fail(error);
  } else {
    g_autoptr(Explain) e = explain_build(ca.a, &ca.info, ca.m);
    e->interval = cli_interval_eval(&opt, &ca, ca.a->wl.offered_gbps, &error);
    if (error) {
      status = cli_fail(error);
    } else {
      g_autoptr(GString) out = g_string_new(NULL);
      explain_write(e, (AppReportFormat)opt.format, out);
      status = cli_emit(&opt, out);
    }
    cli_appliance_clear(&ca);
  }
  cli_options_clear(&opt);
  return status;
}
