/* cli/commands.h — the subcommands of `ocasim`.
 *
 * Each takes the argument vector that follows the subcommand name (argv[0] is
 * "ocasim <name>") and returns the process exit status:
 * 0 success, 1 runtime failure, 2 bad input (usage, scenario errors).
 */
#ifndef OCASIM_CLI_COMMANDS_H
#define OCASIM_CLI_COMMANDS_H

#define OCASIM_EXIT_OK       0
#define OCASIM_EXIT_FAILURE  1
#define OCASIM_EXIT_BADINPUT 2

int cmd_run(int argc, char **argv);      /* simulate a scenario (any kind) */
int cmd_check(int argc, char **argv);    /* validate a scenario, run nothing */
int cmd_bound(int argc, char **argv);    /* analytic bottleneck bound of an appliance scenario */
int cmd_capacity(int argc, char **argv); /* largest offered load that meets the health criteria */
int cmd_explain(int argc, char **argv);  /* per-byte breakdown of an appliance scenario */
int cmd_sweep(int argc, char **argv);    /* every point of a sweep file (sim/sweep.h) */
int cmd_validate(int argc, char **argv); /* measure this host's TLS serving path and calibrate */
int cmd_serve(int argc, char **argv);    /* the real TLS file server */
int cmd_load(int argc, char **argv);     /* the TLS load generator */

/* The appliance model's tools (make reference, make fit, make scenario-docs). */
int cmd_reference(int argc, char **argv); /* every published result: model vs published */
int cmd_fit(int argc, char **argv);       /* fit the shared coefficients, write their data file */
int cmd_schema(int argc, char **argv);    /* the scenario keys as documentation */

#endif /* OCASIM_CLI_COMMANDS_H */
