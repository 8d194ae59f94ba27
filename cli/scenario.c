/* cli/scenario.c — common options, scenario loading and exit codes of the subcommands. */
#include "cli/scenario.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include "cli/commands.h"
#include "models/modes/interval.h"
#include "models/appliance/model_error.h"
#include "sim/units.h"

static const char *const formats[] = { "table", "json", "csv", NULL };

/* --interval LEVEL: a percentage with its sign ("80 %", "80%": sim_units_parse), a bare number
 *  above 1 read as a percentage (80), or a fraction below 1 (0.8); the level must lie in
 *  (0, 1), and no wider than the draws resolve: each tail, (1 - level) / 2 of APP_INTERVAL_DRAWS
 *  draws, must hold at least one draw (at most 99.2 % with 256), or the ends are the draws' extremes
 *  under another name.  A bare 1 is refused: 1 % or 100 % (not a level) would be a guess. */
static gboolean interval_level_parse(const char *text, double *out, GError **error)
{
  double v;
  const char *why = NULL;
  if (sim_units_parse(text, SIM_UNIT_PERCENT, &v, NULL))
    ;
  else if (!sim_units_parse_double(text, &v, NULL))
    why = "not a level";
  else if (v == 1)
    why = "ambiguous: write \"1 %\" for 1 %; 100 % is not a level";
  else if (v > 1)
    v /= 100; /* a bare number above 1: a percentage */
  if (!why && !(v > 0 && v < 1)) why = "out of range";
  if (!why && (1 - v) / 2 * APP_INTERVAL_DRAWS < 1) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--interval '%s': wider than %d draws resolve: each tail needs at least one draw, so the level is at most "
                "%.12g %%",
                text, APP_INTERVAL_DRAWS, 100 * (1 - 2.0 / APP_INTERVAL_DRAWS));
    return FALSE;
  }
  if (why) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--interval '%s': %s, allowed above 0 and below 100 %%: a percentage (\"80 %%\", \"80%%\", or 80) or a "
                "fraction (0.8)",
                text, why);
    return FALSE;
  }
  *out = v;
  return TRUE;
}

gboolean cli_parse(int *argc, char ***argv, CliOptions *opt, const GOptionEntry *extra, const char *param, const char *summary,
                   unsigned flags, GError **error)
{
  memset(opt, 0, sizeof *opt);
  const gboolean csv = !(flags & CLI_OPT_NO_CSV), rows = (flags & CLI_OPT_ROWS) != 0;
  GOptionEntry common[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &opt->format_text,
      rows  ? "Rows on standard output: csv (default) or json (JSON Lines); --out writes both"
      : csv ? "Output format: table (default), json or csv"
            : "Output format: table (default) or json",
      "FMT" },
    { "seed", 0, 0, G_OPTION_ARG_STRING, &opt->seed, "Scenario seed (overrides the file's 'seed')", "N" },
    { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &opt->sets,
      "Override a scenario value, e.g. nics[0].count=2 or stations[0].servers=2 (repeatable; ocasim schema --keys lists the keys)",
      "KEY=VALUE" },
    { "allow-include", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &opt->allow_includes,
      "Also read platform: includes from DIR and below (repeatable; by default only beside the "
      "including file and along the platform search path: $OCASIM_PLATFORM_PATH, the current "
      "directory, the installed platforms)",
      "DIR" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &opt->files, NULL, NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  GOptionEntry timed[] = {
    { "duration", 0, 0, G_OPTION_ARG_STRING, &opt->duration, "Simulated time, e.g. \"10 s\" (overrides 'duration')", "TIME" },
    { "warmup", 0, 0, G_OPTION_ARG_STRING, &opt->warmup, "Warm-up discarded from the statistics (overrides 'warmup')", "TIME" },
    { "rate-precision", 0, 0, G_OPTION_ARG_STRING, &opt->rate_precision,
      "Relative rate precision of the DES, e.g. 1e-3: a start or end that moves no saturated resource's load by more than "
      "EPS x capacity waits for the next solve (faster, error measured in bench/README.md; default 0: exact; overrides "
      "'rate_precision')",
      "EPS" },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  GOptionEntry failing[] = { { "fail", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt->fail,
                               "Take a component out (nvme[D], nics[N], nics[N].ports[P]; repeatable) and set the degraded box "
                               "beside the healthy one",
                               "COMPONENT" },
                             { NULL, 0, 0, 0, NULL, NULL, NULL } };
  GOptionEntry interval[] = {
    { "interval", 0, 0, G_OPTION_ARG_STRING, &opt->interval_text,
      "Level of the prediction intervals, above 0 and below 100 %: a percentage (\"80 %\", \"80%\", or a bare number "
      "above 1 such as 80) or a fraction below 1 (0.8); default 80 %",
      "LEVEL" },
    { "no-interval", 0, 0, G_OPTION_ARG_NONE, &opt->no_interval, "No prediction intervals (faster)", NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  g_autoptr(GOptionContext) ctx = cli_context_new(
      param, summary, &opt->common, flags & ~(CLI_OPT_TIMED | CLI_OPT_FAIL | CLI_OPT_NO_CSV | CLI_OPT_ROWS | CLI_OPT_INTERVAL));
  g_option_context_add_main_entries(ctx, common, NULL);
  if (flags & CLI_OPT_TIMED) g_option_context_add_main_entries(ctx, timed, NULL);
  if (flags & CLI_OPT_FAIL) g_option_context_add_main_entries(ctx, failing, NULL);
  if (flags & CLI_OPT_INTERVAL) g_option_context_add_main_entries(ctx, interval, NULL);
  if (extra) g_option_context_add_main_entries(ctx, extra, NULL);
  if (!cli_context_parse(ctx, &opt->common, argc, argv, error)) {
    cli_options_clear(opt);
    return FALSE;
  }
  /* a directory that is not there would let nothing in: a mistyped one is said, not ignored */
  for (char **d = opt->allow_includes; d && *d; d++)
    if (!g_file_test(*d, G_FILE_TEST_IS_DIR)) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--allow-include '%s': %s", *d,
                  **d ? (g_file_test(*d, G_FILE_TEST_EXISTS) ? "not a directory" : "no such directory") : "empty directory name");
      cli_options_clear(opt);
      return FALSE;
    }
  if (flags & CLI_OPT_INTERVAL) {
    opt->interval = opt->no_interval ? 0.0 : APP_INTERVAL_LEVEL;
    if (opt->interval_text && (opt->no_interval || !interval_level_parse(opt->interval_text, &opt->interval, error))) {
      if (opt->no_interval)
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--interval '%s' and --no-interval together",
                    opt->interval_text);
      cli_options_clear(opt);
      return FALSE;
    }
  }
  opt->format = CLI_FORMAT_TABLE;
  if (opt->format_text) {
    int i = 0;
    while (formats[i] && strcmp(formats[i], opt->format_text)) i++;
    if (!formats[i] || (!csv && i == CLI_FORMAT_CSV) || (rows && i == CLI_FORMAT_TABLE)) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--format: '%s' is not one of %s", opt->format_text,
                  rows  ? "csv, json"
                  : csv ? "table, json, csv"
                        : "table, json");
      cli_options_clear(opt);
      return FALSE;
    }
    opt->format = (CliFormat)i;
  } else if (opt->common.output) {
    int i = cli_format_from_path(opt->common.output, formats);
    if (!csv && i == CLI_FORMAT_CSV) i = -2;
    if (i <= -2) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "-o/--output '%s': %s; this command writes %s: give --format",
                  opt->common.output, i == -3 ? "unknown extension" : "the extension of another format",
                  csv ? "table, json or csv (.txt, .json, .csv)" : "table or json (.txt, .json)");
      cli_options_clear(opt);
      return FALSE;
    }
    if (i >= 0) opt->format = (CliFormat)i;
  }
  /* -o naming the scenario itself would replace it by the results (the rename is atomic, the
   * scenario gone): refused, as the same file by any path */
  GStatBuf out_st, in_st;
  if (opt->common.output && g_stat(opt->common.output, &out_st) == 0)
    for (char **f = opt->files; f && *f; f++)
      if (g_stat(*f, &in_st) == 0 && in_st.st_dev == out_st.st_dev && in_st.st_ino == out_st.st_ino) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--output: '%s' is the scenario file %s itself: write the results elsewhere", opt->common.output, *f);
        cli_options_clear(opt);
        return FALSE;
      }
  return TRUE;
}

/* The name of the chosen format ("table", "json" or "csv"). */
static const char *cli_format_name(const CliOptions *opt)
{
  return formats[opt->format];
}

void cli_options_clear(CliOptions *opt)
{
  g_free(opt->format_text);
  g_free(opt->seed);
  g_free(opt->duration);
  g_free(opt->warmup);
  g_free(opt->rate_precision);
  g_strfreev(opt->sets);
  g_strfreev(opt->allow_includes);
  g_strfreev(opt->fail);
  g_free(opt->interval_text);
  g_strfreev(opt->files);
  cli_common_clear(&opt->common);
  memset(opt, 0, sizeof *opt);
}

/* --seed, --duration, --warmup and --rate-precision: overrides of the top-level keys of the same
 * name (rate_precision for --rate-precision) */
typedef struct {
  const char *key, *value, *option;
} Shorthand;
enum { N_SHORTHANDS = 4 };

static void shorthands(const CliOptions *opt, Shorthand out[N_SHORTHANDS])
{
  out[0] = (Shorthand){ "seed", opt->seed, "seed" };
  out[1] = (Shorthand){ "duration", opt->duration, "duration" };
  out[2] = (Shorthand){ "warmup", opt->warmup, "warmup" };
  out[3] = (Shorthand){ "rate_precision", opt->rate_precision, "rate-precision" };
}

CliIncludes *cli_includes_new(const CliOptions *opt)
{
  CliIncludes *inc = g_new0(CliIncludes, 1);
  inc->search = g_ptr_array_new_with_free_func(g_free);
  const char *env = g_getenv("OCASIM_PLATFORM_PATH");
  g_auto(GStrv) dirs = g_strsplit(env ? env : "", G_SEARCHPATH_SEPARATOR_S, -1);
  for (char **d = dirs; *d; d++)
    if (**d) g_ptr_array_add(inc->search, g_strdup(*d));
  g_ptr_array_add(inc->search, g_strdup("."));
  g_ptr_array_add(inc->search, g_strdup(cli_datadir()));
  g_ptr_array_add(inc->search, g_build_filename(cli_datadir(), "platforms", NULL));
  g_ptr_array_add(inc->search, NULL);
  inc->policy.search = (const char *const *)inc->search->pdata;
  inc->policy.allow = (const char *const *)opt->allow_includes;
  inc->policy.allow_hint = "--allow-include DIR";
  return inc;
}

void cli_includes_free(CliIncludes *inc)
{
  if (!inc) return;
  g_ptr_array_unref(inc->search);
  g_free(inc);
}

SimConfDoc *cli_load_scenario(const char *file, const CliOptions *opt, GError **error)
{
  /* a platform not beside the scenario: along the platform search path (cli_includes_new) */
  g_autoptr(CliIncludes) inc = cli_includes_new(opt);
  g_autoptr(SimConfDoc) doc = sim_conf_load_with_include_policy(file, "platform", &inc->policy, error);
  if (!doc) return NULL;
  Shorthand shorthand[N_SHORTHANDS];
  shorthands(opt, shorthand);
  for (size_t i = 0; i < N_SHORTHANDS; i++) {
    if (!shorthand[i].value) continue;
    g_autofree char *as = g_strdup_printf("%s=%s", shorthand[i].key, shorthand[i].value);
    /* the --set is applied after the option and would win without a word */
    for (char **s = opt->sets; s && *s; s++) {
      const char *eq = strchr(*s, '=');
      g_autofree char *key = eq ? g_strstrip(g_strndup(*s, eq - *s)) : NULL;
      if (key && !strcmp(key, shorthand[i].key)) {
        g_set_error(error, SIM_CONF_ERROR, SIM_CONF_ERROR_OVERRIDE, "--%s: %s: given twice, as --%s %s and as --set %s; give one",
                    shorthand[i].option, shorthand[i].key, shorthand[i].option, shorthand[i].value, *s);
        return NULL;
      }
    }
    g_autofree char *label = g_strdup_printf("--%s", shorthand[i].option);
    if (!sim_conf_apply_override_as(doc, as, label, error)) return NULL;
  }
  g_autoptr(GPtrArray) sets = g_ptr_array_new_with_free_func(g_free);
  for (char **s = opt->sets; s && *s; s++) {
    /* the platform is included while loading, before any override */
    if (g_str_has_prefix(*s, "platform=") || g_str_has_prefix(*s, "platform.")) {
      g_set_error(error, SIM_CONF_ERROR, SIM_CONF_ERROR_OVERRIDE,
                  "--set: platform: the platform file cannot be overridden; write a scenario that includes it");
      return NULL;
    }
    g_ptr_array_add(sets, g_strdup(*s));
  }
  g_ptr_array_add(sets, NULL);
  if (!sim_conf_apply_overrides(doc, (const char *const *)sets->pdata, error)) return NULL;
  g_info("%s: loaded with %u override%s", file, sets->len - 1, sets->len == 2 ? "" : "s");
  return g_steal_pointer(&doc);
}

gboolean cli_one_file(const CliOptions *opt, const char *cmd)
{
  if (opt->files && opt->files[0] && !opt->files[1]) return TRUE;
  fprintf(stderr, "ocasim: %s needs exactly one scenario FILE (see --help)\n", cmd);
  return FALSE;
}

void cli_note_overrides(const CliOptions *opt, GError **error)
{
  if (!error || !*error || g_str_has_prefix((*error)->message, "--")) return;
  g_autoptr(GString) list = g_string_new(NULL);
  Shorthand shorthand[N_SHORTHANDS];
  shorthands(opt, shorthand);
  for (size_t i = 0; i < N_SHORTHANDS; i++)
    if (shorthand[i].value)
      g_string_append_printf(list, "%s--%s %s", list->len ? ", " : "", shorthand[i].option, shorthand[i].value);
  for (char **s = opt->sets; s && *s; s++) g_string_append_printf(list, "%s--set %s", list->len ? ", " : "", *s);
  if (!list->len) return;
  g_autofree char *msg = g_strdup_printf("%s (the scenario as changed by %s)", (*error)->message, list->str);
  g_free((*error)->message);
  (*error)->message = g_steal_pointer(&msg);
}

gboolean cli_appliance_build(const SimConfNode *root, CliAppliance *out, GError **error)
{
  memset(out, 0, sizeof *out);
  out->a = g_new0(Appliance, 1);
  if (appliance_from_conf(root, out->a, &out->info, error) && (out->m = demand_build(out->a, error))) return TRUE;
  cli_appliance_clear(out);
  return FALSE;
}

/* cli_appliance_load(), and with @refuse_failures (a command name) a located error at the
 * scenario's `failures:` when it names any: that command plans the healthy box only. */
static gboolean appliance_load(const CliOptions *opt, CliAppliance *out, const char *refuse_failures, GError **error)
{
  static const char *const kinds[] = { "appliance", "queueing_network", NULL };
  memset(out, 0, sizeof *out);
  g_autoptr(SimConfDoc) doc = cli_load_scenario(opt->files[0], opt, error);
  const char *kind = doc ? cli_scenario_kind(doc, kinds, error) : NULL;
  if (!kind) return FALSE;
  if (strcmp(kind, "appliance")) {
    sim_conf_set_error(error, sim_conf_node_get(sim_conf_doc_root(doc), "kind"), SIM_CONF_ERROR_ENUM,
                       "this command needs an appliance scenario (kind: appliance), not a %s; use 'ocasim run'", kind);
    return FALSE;
  }
  if (!cli_appliance_build(sim_conf_doc_root(doc), out, error)) {
    cli_note_overrides(opt, error);
    return FALSE;
  }
  if (refuse_failures && out->info.failures) {
    sim_conf_set_error(error, sim_conf_node_get(sim_conf_doc_root(doc), "failures"), SIM_CONF_ERROR_RANGE,
                       "ocasim %s plans the healthy box only; a failure what-if is for bound and run (or a sweep, whose "
                       "points plan their box with these components down)",
                       refuse_failures);
    cli_appliance_clear(out);
    return FALSE;
  }
  /* a published result describes the scenario as written, not as overridden */
  out->info.ref.changed = opt->sets && opt->sets[0];
  return TRUE;
}

gboolean cli_appliance_load(const CliOptions *opt, CliAppliance *out, GError **error)
{
  return appliance_load(opt, out, NULL, error);
}

gboolean cli_appliance_load_healthy(const CliOptions *opt, CliAppliance *out, const char *cmd, GError **error)
{
  return appliance_load(opt, out, cmd, error);
}

void cli_locate_model_error(const SimConfNode *root, GError **error)
{
  if (!error || !*error || (*error)->domain != MODEL_ERROR) return;
  GError *located = NULL;
  const char *path = model_error_path(*error);
  sim_conf_set_error(&located, sim_conf_node_find(root, path ? path : ""), SIM_CONF_ERROR_RANGE, "%s",
                     model_error_detail(*error));
  g_clear_error(error);
  g_propagate_error(error, located);
}

AppInterval *cli_interval_eval(const CliOptions *opt, const CliAppliance *ca, double offered_gbps, GError **error)
{
  if (!(opt->interval > 0)) return NULL;
  AppIntervalSpec spec;
  interval_spec_default(&spec);
  AppInterval *iv = g_new0(AppInterval, 1);
  if (!interval_eval(ca->a, ca->m->drive_share, offered_gbps, &spec, opt->interval, APP_INTERVAL_DRAWS, iv, error)) {
    g_free(iv);
    return NULL;
  }
  return iv;
}

void cli_appliance_clear(CliAppliance *ca)
{
  demand_free(ca->m);
  app_scenario_info_clear(&ca->info);
  g_free(ca->a);
  memset(ca, 0, sizeof *ca);
}

const char *cli_scenario_kind(const SimConfDoc *doc, const char *const *known, GError **error)
{
  SimConfNode *root = sim_conf_doc_root(doc);
  SimConfNode *kind = sim_conf_node_get(root, "kind");
  if (!kind && sim_conf_node_get(root, "vary") && sim_conf_node_get(root, "scenario")) { /* kind is optional there */
    sim_conf_set_error(error, root, SIM_CONF_ERROR_MISSING,
                       "missing 'kind': with scenario: and vary: this is a sweep file, not a scenario: run it with 'ocasim "
                       "sweep FILE' (--limit 0 checks it without running a point)");
    return NULL;
  }
  if (!kind) {
    g_autofree char *list = g_strjoinv(", ", (char **)known);
    sim_conf_set_error(error, root, SIM_CONF_ERROR_MISSING, "missing 'kind' (one of %s)", list);
    return NULL;
  }
  if (sim_conf_node_kind(kind) == SIM_CONF_NODE_SCALAR && !strcmp(sim_conf_node_text(kind), "sweep")) {
    sim_conf_set_error(
        error, kind, SIM_CONF_ERROR_ENUM,
        "this is a sweep file, not a scenario: run it with 'ocasim sweep FILE' (--limit 0 checks it without running a point)");
    return NULL;
  }
  int idx;
  if (!sim_conf_node_enum(kind, known, &idx, error)) return NULL;
  return known[idx];
}

int cli_fail(const GError *error)
{
  fprintf(stderr, "ocasim: %s\n", error->message);
  if (error->domain == SIM_CONF_ERROR || error->domain == SIM_UNITS_ERROR || error->domain == G_OPTION_ERROR ||
      error->domain == MODEL_ERROR)
    return OCASIM_EXIT_BADINPUT;
  return OCASIM_EXIT_FAILURE;
}

int cli_emit(const CliOptions *opt, GString *text)
{
  return cli_write(&opt->common, text, cli_format_name(opt));
}
