/* cli/main.c — `ocasim`: dispatches to a subcommand (cli/cmd_*.c). */
#include <stdio.h>
#include <string.h>
#include <glib.h>
#include <gsl/gsl_errno.h>

#include "cli/commands.h"
#include "cli/common.h"

typedef struct {
  const char *name;
  int (*fn)(int argc, char **argv);
  const char *summary;
} command;

static const command commands[] = {
  { "run", cmd_run, "simulate a scenario and print its results" },
  { "check", cmd_check, "validate a scenario file without running it" },
  { "bound", cmd_bound, "analytic bottleneck bound of an appliance scenario" },
  { "capacity", cmd_capacity, "largest offered load that meets the health criteria" },
  { "explain", cmd_explain, "per served byte: DRAM by touch, CPU cycles by component, fabric, PCIe tags" },
  { "sweep", cmd_sweep, "every point of a sweep file, in parallel, into CSV and JSON Lines" },
  { "validate", cmd_validate, "measure this host's TLS serving path and calibrate the model" },
  { "serve", cmd_serve, "run the real TLS file server used by validate" },
  { "load", cmd_load, "run the TLS load generator used by validate" },
  { "reference", cmd_reference, "every published result: model vs published (make reference)" },
  { "fit", cmd_fit, "fit the shared coefficients over the published results (make fit)" },
  { "schema", cmd_schema, "the appliance scenario keys as Markdown tables (make scenario-docs)" },
};

static void usage(FILE *f)
{
  fprintf(f, "Usage: ocasim COMMAND [OPTION...] [FILE]\n\n"
             "Simulates a high-throughput TLS video-serving appliance.\n\nCommands:\n");
  for (size_t i = 0; i < G_N_ELEMENTS(commands); i++) fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf(f, "\nRun 'ocasim COMMAND --help' for a command's options; 'ocasim --version' for the version.\n");
}

int main(int argc, char **argv)
{
  cli_init();
  gsl_set_error_handler_off();
  if (argc < 2) {
    usage(stderr);
    return OCASIM_EXIT_BADINPUT;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    usage(stdout);
    return OCASIM_EXIT_OK;
  }
  if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
    printf("ocasim %s\n", cli_version());
    return OCASIM_EXIT_OK;
  }
  for (size_t i = 0; i < G_N_ELEMENTS(commands); i++) {
    if (strcmp(argv[1], commands[i].name)) continue;
    g_autofree char *prog = g_strdup_printf("ocasim %s", commands[i].name);
    argv[1] = prog;
    return commands[i].fn(argc - 1, argv + 1);
  }
  fprintf(stderr, "ocasim: unknown command '%s'\n\n", argv[1]);
  usage(stderr);
  return OCASIM_EXIT_BADINPUT;
}
