/* cli/whatif.h — `--fail` of bound and run: the degraded box (models/appliance/failure.h) beside the
 * healthy one. */
#ifndef OCASIM_CLI_WHATIF_H
#define OCASIM_CLI_WHATIF_H

#include "cli/scenario.h"
#include "models/modes/report.h"

/* The box of @healthy with the components @fail names taken out: a copy of its appliance in
 * *a (transfer full, g_free) and its demand model in *m (transfer full). FALSE with a usage
 * error (exit 2) on a bad --fail or a degraded box that cannot exist. */
gboolean cli_whatif_degrade(const CliAppliance *healthy, const char *const *fail, Appliance **a, DemandModel **m, GError **error);

/* Appends the what-if in @fmt (table or JSON; CSV is refused by cli_whatif_format_ok): the
 * failures, the headlines of the healthy and the degraded box side by side with the degraded
 * share of the healthy throughput (JSON throughput_share: rounded to 9 decimals, so that an exact
 * share is exact; see whatif.c), then the degraded box's whole report. */
void cli_whatif_write(const char *const *fail, const AppReport *healthy, const AppReport *degraded, CliFormat fmt, GString *out);

/* TRUE unless --fail was given with --format csv (then says so on stderr). */
gboolean cli_whatif_format_ok(const CliOptions *opt);

/* The components down in the what-if: the scenario's `failures:` (@info) followed by each --fail
 * of @opt, as one NULL-terminated list; NULL when neither names any. (transfer full, g_strfreev) */
char **cli_whatif_failures(const CliOptions *opt, const AppScenarioInfo *info);

/* TRUE unless @fail names components and @opt asks for CSV (then FALSE with
 * G_OPTION_ERROR_BAD_VALUE, exit 2): the check of cli_whatif_format_ok() for failures that come
 * from the scenario. */
gboolean cli_whatif_format_allows(const CliOptions *opt, char *const *fail, GError **error);

#endif /* OCASIM_CLI_WHATIF_H */
