/* cli/cmd_run.c — `ocasim run FILE` and `ocasim check FILE`.
 *
 * Both load the scenario (with its platform include and overrides) and pick
 * the handler of its `kind:`.  `check` stops after building the model (every
 * value validated, nothing simulated); `run` simulates and prints the results.
 */
#include <stdio.h>
#include <string.h>
#include "cli/commands.h"
#include "cli/scenario.h"
#include "cli/whatif.h"
#include "models/modes/des.h"
#include "models/qnet/qnet_conf.h"
#include "sim/csv.h"
#include "sim/json.h"

typedef struct {
  const char *kind;
  /* builds the model from @root; with @out, also runs it and writes the results */
  gboolean (*handle)(const SimConfNode *root, const CliOptions *opt, GString *out, GError **error);
} scenario_kind;

/* The progress line and traces of a run of opt->files[0]. */
static SimObserver observer_start(const CliOptions *opt, SimTrace **trace)
{
  g_autofree char *what = g_strdup_printf("ocasim run %s", opt->files[0]);
  *trace = cli_trace(&opt->common);
  return (SimObserver){ .progress = cli_progress_update,
                        .progress_ctx = cli_progress_start(&opt->common, what, "simulated s"),
                        .trace = *trace };
}

static void observer_end(SimObserver *obs, SimTrace *trace)
{
  cli_progress_end(obs->progress_ctx);
  sim_trace_free(trace);
}

static gboolean handle_qnet(const SimConfNode *root, const CliOptions *opt, GString *out, GError **error)
{
  g_autoptr(QnetSpec) spec = qnet_spec_from_conf(root, error);
  if (!spec) return FALSE;
  if (opt->fail) { /* never ignored: a queueing network has no drive, card or port to take out */
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--fail: '%s': a queueing-network scenario has no drives or NICs (--fail is for appliance scenarios)",
                opt->fail[0]);
    return FALSE;
  }
  if (opt->interval_text) { /* nor an --interval: no parameter with a spread to draw */
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--interval '%s': a queueing-network scenario has no prediction interval (its stations' rates are given, "
                "not drawn; the run's own confidence intervals are in its output)",
                opt->interval_text);
    return FALSE;
  }
  g_autoptr(GPtrArray) known = g_ptr_array_new(); /* the components --log may name */
  g_ptr_array_add(known, (gpointer) "jobs");
  for (guint i = 0; i < spec->stations->len; i++)
    g_ptr_array_add(known, ((QnetStation *)g_ptr_array_index(spec->stations, i))->name);
  g_ptr_array_add(known, NULL);
  if (!cli_trace_check(&opt->common, (const char *const *)known->pdata, error)) return FALSE;
  if (!out) return TRUE;
  SimTrace *trace;
  SimObserver obs = observer_start(opt, &trace);
  g_autoptr(QnetResult) res = qnet_run_observed(spec, &obs, error);
  observer_end(&obs, trace);
  if (!res) return FALSE;
  qnet_result_write(res, (QnetFormat)opt->format, out);
  return TRUE;
}

/* Refuses a --log or OCASIM_LOG name that is not a component of the appliance's fluid model:
 * "requests", a resource or a traffic class (listed in that order). */
static gboolean trace_check_appliance(const CliAppliance *ca, const CliOptions *opt, GError **error)
{
  if (!opt->common.log && !g_getenv("OCASIM_LOG")) return TRUE;
  g_autoptr(SimFluidSpec) spec = des_spec(ca->a, &ca->info, ca->m);
  if (!spec) return TRUE; /* des_check has said why */
  g_autoptr(GPtrArray) known = g_ptr_array_new();
  g_ptr_array_add(known, (gpointer) "requests");
  for (guint i = 0; i < spec->resources->len; i++)
    g_ptr_array_add(known, ((SimFluidResource *)g_ptr_array_index(spec->resources, i))->name);
  for (guint i = 0; i < spec->classes->len; i++)
    g_ptr_array_add(known, ((SimFluidClass *)g_ptr_array_index(spec->classes, i))->name);
  g_ptr_array_add(known, NULL);
  return cli_trace_check(&opt->common, (const char *const *)known->pdata, error);
}

static gboolean handle_appliance(const SimConfNode *root, const CliOptions *opt, GString *out, GError **error)
{
  CliAppliance ca;
  if (!cli_appliance_build(root, &ca, error)) return FALSE;
  /* what the run would refuse, refused by check too, located at the key to change */
  gboolean ok = des_check(ca.a, &ca.info, ca.m, error);
  if (!ok) cli_locate_model_error(root, error);
  if (ok) ok = trace_check_appliance(&ca, opt, error);
  Appliance *da = NULL;
  DemandModel *dm = NULL;
  g_auto(GStrv) fail = cli_whatif_failures(opt, &ca.info); /* the scenario's failures: and --fail */
  if (ok) ok = cli_whatif_format_allows(opt, fail, error);
  if (ok && fail) ok = cli_whatif_degrade(&ca, (const char *const *)fail, &da, &dm, error);
  if (ok && out) {
    g_autofree char *short_run = des_short_run_warning(ca.a, &ca.info);
    if (short_run) g_message("%s", short_run); /* stderr, before the run: the results stay as they are */
    SimTrace *trace;
    SimObserver obs = observer_start(opt, &trace);
    g_autoptr(AppReport) rep = des_run_observed(ca.a, &ca.info, ca.m, &obs, NULL, error);
    g_autoptr(AppReport) drep = rep && da ? des_run_observed(da, &ca.info, dm, &obs, NULL, error) : NULL;
    observer_end(&obs, trace);
    ok = rep != NULL && (!da || drep != NULL);
    /* the parameters' spread, through the bound at the same offered load: the DES reads the same values */
    if (ok) {
      GError *ierr = NULL;
      rep->interval = cli_interval_eval(opt, &ca, ca.a->wl.offered_gbps, &ierr);
      if (ierr) {
        g_propagate_error(error, ierr);
        ok = FALSE;
      }
    }
    if (ok && da)
      cli_whatif_write((const char *const *)fail, rep, drep, opt->format, out);
    else if (ok)
      report_write(rep, (AppReportFormat)opt->format, out);
  }
  demand_free(dm);
  g_free(da);
  cli_appliance_clear(&ca);
  return ok;
}

static const scenario_kind kinds[] = {
  { "queueing_network", handle_qnet },
  { "appliance", handle_appliance },
};

/* The text of the root key @key of @doc ("" when absent or @doc is NULL: the scenario's default). */
static const char *root_text(const SimConfDoc *doc, const char *key)
{
  const SimConfNode *n = doc ? sim_conf_node_get(sim_conf_doc_root(doc), key) : NULL;
  return n && sim_conf_node_kind(n) == SIM_CONF_NODE_SCALAR ? sim_conf_node_text(n) : "";
}

/* `check`'s verdict on stdout in the chosen format: ok with the kind, or not ok with the
 * error's message (which cli_fail also prints on stderr, with the exit status); the scenario's
 * name, seed and command-line overrides identify the row. */
static int check_verdict(const CliOptions *opt, const SimConfDoc *doc, const char *kind, const GError *error)
{
  g_autoptr(GString) out = g_string_new(NULL);
  g_auto(GStrv) overrides = doc ? sim_conf_overrides(sim_conf_doc_root(doc)) : g_new0(char *, 1);
  switch (opt->format) {
    case CLI_FORMAT_JSON: {
      g_autoptr(JsonBuilder) b = json_builder_new();
      json_builder_begin_object(b);
      sim_json_string(b, "file", opt->files[0]);
      sim_json_string(b, "scenario", root_text(doc, "name"));
      {
        const char *seed = root_text(doc, "seed");
        char *end = NULL;
        gint64 v = g_ascii_strtoll(seed, &end, 10);
        json_builder_set_member_name(b, "seed"); /* an integer, null when not given or not one */
        if (*seed && end && !*end)
          json_builder_add_int_value(b, v);
        else
          json_builder_add_null_value(b);
      }
      json_builder_set_member_name(b, "overrides");
      json_builder_begin_array(b);
      for (char **o = overrides; *o; o++) json_builder_add_string_value(b, *o);
      json_builder_end_array(b);
      sim_json_string(b, "kind", kind);
      json_builder_set_member_name(b, "ok");
      json_builder_add_boolean_value(b, error == NULL);
      if (error) sim_json_string(b, "error", error->message);
      json_builder_end_object(b);
      sim_json_append(b, out);
      break;
    }
    case CLI_FORMAT_CSV:
      g_string_append(out, "file,scenario,seed,overrides,kind,ok,error\n");
      sim_csv_field(out, opt->files[0]);
      g_string_append_c(out, ',');
      sim_csv_field(out, root_text(doc, "name"));
      g_string_append_c(out, ',');
      sim_csv_field(out, root_text(doc, "seed"));
      g_string_append_c(out, ',');
      {
        g_autofree char *ov = g_strjoinv("; ", overrides);
        sim_csv_field(out, ov);
      }
      g_string_append_c(out, ',');
      sim_csv_field(out, kind ? kind : "");
      g_string_append(out, error ? ",false," : ",true,");
      sim_csv_field(out, error ? error->message : "");
      g_string_append_c(out, '\n');
      break;
    default: /* the error alone, on stderr */
      if (!error) g_string_append_printf(out, "%s: ok (%s)\n", opt->files[0], kind);
      break;
  }
  int status = cli_emit(opt, out);
  return error ? cli_fail(error) : status;
}

static int run_or_check_file(const CliOptions *opt, gboolean run)
{
  g_autoptr(GError) error = NULL;
  const char *names[G_N_ELEMENTS(kinds) + 1];
  for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++) names[i] = kinds[i].kind;
  names[G_N_ELEMENTS(kinds)] = NULL;

  g_autoptr(SimConfDoc) doc = cli_load_scenario(opt->files[0], opt, &error);
  const char *kind = doc ? cli_scenario_kind(doc, names, &error) : NULL;
  if (!kind) return run ? cli_fail(error) : check_verdict(opt, doc, NULL, error);
  g_autoptr(GString) text = run ? g_string_new(NULL) : NULL;
  for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++)
    if (!strcmp(kinds[i].kind, kind) && !kinds[i].handle(sim_conf_doc_root(doc), opt, text, &error)) {
      cli_note_overrides(opt, &error);
      return run ? cli_fail(error) : check_verdict(opt, doc, kind, error);
    }
  if (run) return cli_emit(opt, text);
  return check_verdict(opt, doc, kind, NULL);
}

static int run_or_check(int argc, char **argv, gboolean run)
{
  CliOptions opt;
  g_autoptr(GError) error = NULL;
  int status;
  if (!cli_parse(&argc, &argv, &opt, NULL, "FILE",
                 run ? "Simulates the scenario in FILE and prints its results."
                     : "Checks the scenario in FILE (every key, unit and range) without running it.",
                 run ? CLI_OPT_OUTPUT | CLI_OPT_PROGRESS | CLI_OPT_LOG | CLI_OPT_TIMED | CLI_OPT_FAIL | CLI_OPT_INTERVAL
                     : CLI_OPT_OUTPUT | CLI_OPT_TIMED | CLI_OPT_FAIL,
                 &error))
    status = cli_fail(error);
  else if (!cli_one_file(&opt, run ? "run" : "check") || !cli_whatif_format_ok(&opt))
    status = OCASIM_EXIT_BADINPUT;
  else
    status = run_or_check_file(&opt, run);
  cli_options_clear(&opt);
  return status;
}

int cmd_run(int argc, char **argv)
{
  return run_or_check(argc, argv, TRUE);
}

int cmd_check(int argc, char **argv)
{
  return run_or_check(argc, argv, FALSE);
}
