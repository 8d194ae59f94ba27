/* cli/cmd_reference.c — `ocasim reference [--des] [--strict] [DIR]` (make reference): runs every
 * published-result scenario of DIR (default scenarios/reference, else the installed one) in bound
 * mode (and with --des also through the discrete-event model) and prints model vs published
 * (Gb/s, CPU %), the error, and the model's bottleneck vs the published one, OK/FAIL against the rule (10 %
 * throughput, 10 points CPU, the published bottleneck). It is a report: exit status 0 unless it
 * cannot run (2: bad options, DIR unreadable or without reference scenarios), or, with --strict,
 * 1 when any row FAILs that rule (documented deviations included) or a DES result is outside its
 * tolerance. The CI test (tests/test_appliance_bound.c) holds the rows. */
#include <stdio.h>

#include "cli/commands.h"
#include "cli/options.h"

int cmd_reference(int argc, char **argv)
{
  gboolean des = FALSE, strict = FALSE;
  GOptionEntry entries[] = {
    { "des", 0, 0, G_OPTION_ARG_NONE, &des, "Also run every result through the discrete-event model", NULL },
    { "strict", 0, 0, G_OPTION_ARG_NONE, &strict,
      "Exit with status 1 when any row fails the 10 % / 10-point rule (documented deviations included)", NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  CliCommon common;
  g_autoptr(GOptionContext) ctx =
      cli_context_new("[DIR]",
                      "Model vs published for every scenario of DIR (default scenarios/reference here, else the\n"
                      "installed one) that has a reference: block, in bound mode with the default coefficients\n"
                      "(models/appliance/coeffs.def).",
                      &common, CLI_OPT_OUTPUT | CLI_OPT_REPORT);
  g_option_context_add_main_entries(ctx, entries, NULL);
  if (!cli_parse_args(ctx, &common, &argc, &argv, 1) || !cli_text_output(argv[0], &common)) {
    cli_common_clear(&common);
    return OCASIM_EXIT_BADINPUT;
  }
  g_autoptr(AppRefSet) s = cli_refset_load(argv[0], argc > 1 ? argv[1] : NULL);
  if (!s) {
    cli_common_clear(&common);
    return OCASIM_EXIT_BADINPUT;
  }
  Coeffs c;
  coeffs_defaults(&c);
  g_autoptr(GString) t = g_string_new(NULL);
  g_autoptr(GString) out = g_string_new(NULL);
  int n = refset_size(s), ci_fails = 0;
  int fails = refset_table(s, &c, t, &ci_fails);
  g_string_append_printf(out, "Bound mode vs published results (%d results, tolerance 10 %% throughput, 10 points CPU):\n\n%s", n,
                         t->str);
  g_string_append_printf(out,
                         "\n%d of %d within 10 %% / 10 points with the expected bottleneck; %d outside (%d of them documented "
                         "deviations, held by the CI test to the wider bound their scenario documents).\n",
                         n - fails, n, fails, fails - ci_fails);
  int des_fails = 0, status = OCASIM_EXIT_OK;
  if (des && !common.output) { /* the DES takes a while: show the bound table first */
    status = cli_write(&common, out, NULL);
    g_string_truncate(out, 0);
  }
  if (des && status == OCASIM_EXIT_OK) {
    g_autoptr(GString) d = g_string_new(NULL);
    int des_documented = 0;
    des_fails = refset_des_table(s, d, &des_documented);
    g_string_append_printf(out, "\nDiscrete-event model (ocasim run, scenario duration and seed) vs bound and published:\n\n%s",
                           d->str);
    g_string_append_printf(out,
                           "\n%d of %d DES results within 10 %% of the published throughput, %d more within the wider "
                           "bound of their documented deviation, %d outside any bound.\n",
                           n - des_fails - des_documented, n, des_documented, des_fails);
  }
  if (status == OCASIM_EXIT_OK) status = cli_write(&common, out, NULL);
  cli_common_clear(&common);
  if (status != OCASIM_EXIT_OK) return status;
  return strict && (fails || des_fails) ? OCASIM_EXIT_FAILURE : OCASIM_EXIT_OK;
}
