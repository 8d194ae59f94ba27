/* cli/scenario.h — what every scenario-reading subcommand shares: the scenario
 * options (--format, --seed, --set, and for the commands that simulate --duration and
 * --warmup) with the common ones (cli/common.h), loading a scenario with its `platform:`
 * include and overrides, its `kind:`, and exit codes. */
#ifndef OCASIM_CLI_SCENARIO_H
#define OCASIM_CLI_SCENARIO_H

#include <glib.h>
#include "cli/common.h"
#include "models/appliance/loader.h"
#include "models/modes/interval.h"
#include "sim/conf.h"

typedef enum { CLI_FORMAT_TABLE, CLI_FORMAT_JSON, CLI_FORMAT_CSV } CliFormat;

typedef struct {
  char *format_text; /* --format table|json|csv */
  CliFormat format;
  char *seed;            /* --seed N (passed on as --set seed=N) */
  char *duration;        /* --duration "10 s" */
  char *warmup;          /* --warmup "1 s" */
  char *rate_precision;  /* --rate-precision EPS (passed on as --set rate_precision=EPS) */
  char **sets;           /* --set key.path=value, repeatable */
  char **allow_includes; /* --allow-include DIR, repeatable */
  char **fail;           /* --fail COMPONENT, repeatable (CLI_OPT_FAIL; models/appliance/failure.h) */
  char *interval_text;   /* --interval LEVEL (CLI_OPT_INTERVAL) */
  gboolean no_interval;  /* --no-interval */
  double interval;       /* the level, 0 < level < 1; 0: no interval (--no-interval or no CLI_OPT_INTERVAL) */
  char **files;          /* the remaining arguments */
  CliCommon common;
} CliOptions;

/* cli_parse() flag: the command simulates, so it offers --duration and --warmup. */
#define CLI_OPT_TIMED (1u << 8)
/* cli_parse() flag: the command offers --fail, a failure what-if (cli/whatif.h). */
#define CLI_OPT_FAIL (1u << 9)
/* cli_parse() flag: the command writes table or json only (its --help and --format say so). */
#define CLI_OPT_NO_CSV (1u << 10)
/* cli_parse() flag: the command reports prediction intervals (models/modes/interval.h): it
 * offers --interval LEVEL (default APP_INTERVAL_LEVEL) and --no-interval. */
#define CLI_OPT_INTERVAL (1u << 12)
/* cli_parse() flag: the command writes rows, csv (the default) or json (JSON Lines), not a table. */
#define CLI_OPT_ROWS (1u << 11)

/* Parses @argv with the scenario options, the common options that @flags selects
 *  (CliOptFlags, plus CLI_OPT_TIMED) and @extra (may be NULL), with @summary as the help
 *  text.  Without --format, the extension of -o FILE picks the format (.json, .csv, .txt or
 *  .table).  Returns FALSE with @error set on a usage error (--help exits). */
gboolean cli_parse(int *argc, char ***argv, CliOptions *opt, const GOptionEntry *extra, const char *param, const char *summary,
                   unsigned flags, GError **error);

/* Frees what cli_parse() allocated. */
void cli_options_clear(CliOptions *opt);

/* Where `platform:` includes are looked for and may come from: the directory of the including
 *  file, then the platform search path ($OCASIM_PLATFORM_PATH, colon-separated; the current
 *  directory; the data directory cli_datadir() and its platforms/), and the --allow-include
 *  directories of @opt (SimConfIncludePolicy). */
typedef struct {
  SimConfIncludePolicy policy; /* points into search and @opt */
  GPtrArray *search;
} CliIncludes;

/* The include policy of @opt (which must outlive it). Returns: (transfer full). */
CliIncludes *cli_includes_new(const CliOptions *opt);

/* Frees what cli_includes_new() made (NULL is fine). */
void cli_includes_free(CliIncludes *inc);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(CliIncludes, cli_includes_free)

/* Loads @file (following `platform:` under cli_includes_new()), then applies --seed, --duration,
 *  --warmup and each --set, in that order.  Returns: (transfer full) or NULL. */
SimConfDoc *cli_load_scenario(const char *file, const CliOptions *opt, GError **error);

/* TRUE when @opt names exactly one FILE; otherwise prints why for @cmd and returns FALSE. */
gboolean cli_one_file(const CliOptions *opt, const char *cmd);

/* An appliance scenario ready to evaluate: the appliance, its scenario
 *  information and its demand model. */
typedef struct {
  Appliance *a;
  AppScenarioInfo info;
  DemandModel *m;
} CliAppliance;

/* Binds the appliance scenario at @root and builds its demand model.
 *  On error returns FALSE (with a located error) and leaves nothing to free. */
gboolean cli_appliance_build(const SimConfNode *root, CliAppliance *out, GError **error);

/* Loads FILE (opt->files[0]) with the options' overrides and builds it as
 *  cli_appliance_build() does. */
gboolean cli_appliance_load(const CliOptions *opt, CliAppliance *out, GError **error);

/* cli_appliance_load() for a command (@cmd, for the message) that plans the healthy box only
 *  (capacity, explain): a scenario whose `failures:` names components is a located error there
 *  (exit 2), never ignored. */
gboolean cli_appliance_load_healthy(const CliOptions *opt, CliAppliance *out, const char *cmd, GError **error);

/* When @error is set, the scenario was changed by --set, --seed, --duration or --warmup and
 *  the error is not located at a command-line option itself (a check across keys, e.g. too
 *  many drives in total), appends which options changed it: the located key is in the file,
 *  the value that broke it is not. */
void cli_note_overrides(const CliOptions *opt, GError **error);

/* Turns a MODEL_ERROR in *error (model_error.h) into a located SIM_CONF_ERROR at its key path
 *  under @root (the deepest node of the path that exists, or the --set/--duration that gave
 *  it); other errors are left as they are. */
void cli_locate_model_error(const SimConfNode *root, GError **error);

/* The prediction interval of @ca at @offered_gbps (<= 0: saturate) at @opt's level, into a new
 *  AppInterval (transfer full), or NULL without error when @opt asks for none (--no-interval).
 *  The spreads are models/appliance/coeffs.def's and the scenario's `uncertainty:` entries; the drive shares
 *  @ca's model's. NULL with @error when the draws cannot be built. */
AppInterval *cli_interval_eval(const CliOptions *opt, const CliAppliance *ca, double offered_gbps, GError **error);

/* Frees what cli_appliance_build() made. */
void cli_appliance_clear(CliAppliance *ca);

/* The value of the root `kind:` key, or NULL with a located error. */
const char *cli_scenario_kind(const SimConfDoc *doc, const char *const *known, GError **error);

/* Prints @error as "ocasim: message" and returns the exit status for it:
 *  2 for bad input (scenario, units, usage, an appliance that cannot be
 *  built or run as described), 1 otherwise. */
int cli_fail(const GError *error);

/* Writes the results @text in the chosen format to stdout or -o FILE (cli_write()); returns
 *  0, or 1 if the write failed. */
int cli_emit(const CliOptions *opt, GString *text);

#endif /* OCASIM_CLI_SCENARIO_H */
