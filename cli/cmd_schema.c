/* cli/cmd_schema.c — `ocasim schema [--format markdown] [--update FILE...]`: the appliance
 * scenario schema (models/appliance_conf.c) as documentation. Without --update it prints the
 * key tables (Markdown: one table per section, key, unit, default, meaning). With --update
 * (make scenario-docs) it regenerates, in each FILE, the generated blocks whose markers FILE
 * has: the key tables between "<!-- schema:begin -->" and "<!-- schema:end -->", the reference
 * table (ocasim reference, bound mode) between "<!-- reference:begin -->" and
 * "<!-- reference:end -->", the leave-one-out table (ocasim fit; a refit per result)
 * between "<!-- loo:begin -->" and "<!-- loo:end -->", and the leave-one-platform-out table with
 * the median and worst errors (a refit per platform) between "<!-- lopo:begin -->" and
 * "<!-- lopo:end -->"; the reference set is read from scenarios/reference, so it runs from the
 * repository root. tests/test_appliance_conf.c checks that scenarios/README.md and README.md are
 * up to date (except the leave-one-out and leave-one-platform-out tables).
 * Exit status: 0 ok, 1 a FILE could not be written or a refit failed, 2 bad options, a FILE
 * that cannot be read or has no block markers. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/scenario.h"

#define SCHEMA_REFERENCE_DIR "scenarios/reference"

/* The formats of the schema; Markdown is the one so far. */
static const char *const FORMATS[] = { "markdown", NULL };

/* Replaces the block between @begin and @end of @text when @text has it; returns a new
 * string (the same text when the markers are absent), and counts replacements in *n. */
static char *maybe_replace(char *text, const char *begin, const char *end, const char *body, int *n)
{
  const char *b = strstr(text, begin), *e = strstr(text, end);
  if (!b || !e || e < b) return text;
  b += strlen(begin);
  GString *out = g_string_new_len(text, b - text);
  g_string_append(out, body);
  g_string_append(out, e);
  g_free(text);
  (*n)++;
  return g_string_free(out, FALSE);
}

/* What --update writes; the reference set and its tables are made when a file first needs them. */
typedef struct {
  const char *prog;
  GString *schema, *table, *loo, *lopo;
  AppRefSet *set;
} DocTables;

/* Makes the leave-one-out and LOPO tables (both predictions at once); prints why not and returns FALSE. */
static gboolean doc_predictions(DocTables *d, const Coeffs *c)
{
  if (d->loo) return TRUE;
  g_autoptr(GError) err = NULL;
  g_autoptr(AppFitReport) r = app_refset_predict(d->set, c, TRUE, TRUE, &err);
  if (!r) {
    fprintf(stderr, "%s: %s\n", d->prog, err->message);
    return FALSE;
  }
  d->loo = g_string_new(NULL);
  app_fit_report_loo_table(r, d->loo);
  d->lopo = g_string_new(NULL);
  app_fit_report_lopo_table(r, d->lopo);
  g_string_append_c(d->lopo, '\n');
  app_fit_report_summary(r, d->lopo);
  return TRUE;
}

/* Loads the reference set once; prints why not and returns FALSE. */
static gboolean doc_set(DocTables *d)
{
  if (!d->set) d->set = cli_refset_load(d->prog, SCHEMA_REFERENCE_DIR);
  return d->set != NULL;
}

/* Regenerates the blocks of @path; returns the exit status. */
static int update_file(DocTables *d, const char *path)
{
  g_autoptr(GError) err = NULL;
  g_autofree char *text = NULL;
  if (!g_file_get_contents(path, &text, NULL, &err)) {
    fprintf(stderr, "%s: --update: %s\n", d->prog, err->message);
    return OCASIM_EXIT_BADINPUT;
  }
  g_autofree char *before = g_strdup(text);
  int n = 0;
  text = maybe_replace(text, "<!-- schema:begin -->\n", "<!-- schema:end -->", d->schema->str, &n);
  Coeffs c;
  coeffs_defaults(&c);
  if (strstr(text, "<!-- reference:begin -->\n")) {
    if (!doc_set(d)) return OCASIM_EXIT_BADINPUT;
    if (!d->table) {
      d->table = g_string_new(NULL);
      app_refset_table(d->set, &c, d->table, NULL);
    }
    text = maybe_replace(text, "<!-- reference:begin -->\n", "<!-- reference:end -->", d->table->str, &n);
  }
  if (strstr(text, "<!-- loo:begin -->\n") || strstr(text, "<!-- lopo:begin -->\n")) {
    if (!doc_set(d)) return OCASIM_EXIT_BADINPUT;
    if (!doc_predictions(d, &c)) return OCASIM_EXIT_FAILURE;
    text = maybe_replace(text, "<!-- loo:begin -->\n", "<!-- loo:end -->", d->loo->str, &n);
    text = maybe_replace(text, "<!-- lopo:begin -->\n", "<!-- lopo:end -->", d->lopo->str, &n);
  }
  if (n == 0) {
    fprintf(stderr,
            "%s: --update: %s: no generated block markers (<!-- schema:begin -->, <!-- reference:begin -->, "
            "<!-- loo:begin -->, <!-- lopo:begin -->)\n",
            d->prog, path);
    return OCASIM_EXIT_BADINPUT;
  }
  if (strcmp(text, before) != 0 && !g_file_set_contents(path, text, -1, &err)) {
    fprintf(stderr, "%s: --update: %s\n", d->prog, err->message);
    return OCASIM_EXIT_FAILURE;
  }
  return OCASIM_EXIT_OK;
}

int cmd_schema(int argc, char **argv)
{
  g_autofree char *format = NULL;
  gboolean update = FALSE;
  GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, "Output format: markdown (the default and, so far, the only one)",
      "FORMAT" },
    { "update", 'u', 0, G_OPTION_ARG_NONE, &update,
      "Regenerate in each FILE the blocks between its markers: key tables, reference table, leave-one-out and "
      "leave-one-platform-out tables (make scenario-docs)",
      NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new("[--update FILE...]");
  g_option_context_set_summary(ctx, "The keys of an appliance scenario (section, key, unit, default, meaning), generated\n"
                                    "from the schema that reads them. With --update, each FILE gets the blocks whose markers\n"
                                    "it has: <!-- schema:begin/end -->, <!-- reference:begin/end --> (ocasim reference, read\n"
                                    "from " SCHEMA_REFERENCE_DIR "), <!-- loo:begin/end --> (a refit per result) and\n"
                                    "<!-- lopo:begin/end --> (a refit per platform).");
  g_option_context_add_main_entries(ctx, entries, NULL);
  if (!cli_parse_args(ctx, &argc, &argv, -1)) return OCASIM_EXIT_BADINPUT;
  if (!update && argc > 1) {
    fprintf(stderr, "%s: unexpected argument '%s' (FILE arguments go with --update)\n", argv[0], argv[1]);
    return OCASIM_EXIT_BADINPUT;
  }
  if (format && !g_strv_contains(FORMATS, format)) {
    fprintf(stderr, "%s: --format '%s': expected markdown\n", argv[0], format);
    return OCASIM_EXIT_BADINPUT;
  }
  g_autoptr(GString) schema = g_string_new(NULL);
  appliance_conf_markdown(schema);
  if (!update) return cli_emit(schema);
  if (argc < 2) {
    fprintf(stderr, "%s: --update needs at least one FILE\n", argv[0]);
    return OCASIM_EXIT_BADINPUT;
  }
  DocTables d = { .prog = argv[0], .schema = schema };
  int status = OCASIM_EXIT_OK;
  for (int i = 1; i < argc && status == OCASIM_EXIT_OK; i++) status = update_file(&d, argv[i]);
  if (d.table) g_string_free(d.table, TRUE);
  if (d.loo) g_string_free(d.loo, TRUE);
  if (d.lopo) g_string_free(d.lopo, TRUE);
  g_clear_pointer(&d.set, app_refset_free);
  return status;
}
