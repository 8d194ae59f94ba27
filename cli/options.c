/* cli/options.c — option values checked with one-line messages that name the option, the
 * value as written and the allowed range, and the argument parsing of the subcommands that
 * read no scenario (see cli/options.h). */
#include "cli/options.h"

#include <stdio.h>

#include <errno.h>
#include <math.h>
#include <string.h>

#include "sim/units.h"

static char *int_range(int lo, int hi)
{
  return hi == G_MAXINT ? g_strdup_printf(">= %d", lo) : g_strdup_printf("%d..%d", lo, hi);
}

gboolean cli_int_option(const char *name, const char *text, int lo, int hi, const char *note, int *out, GError **error)
{
  if (!text) return TRUE;
  g_autofree char *bare = int_range(lo, hi);
  g_autofree char *range = note ? g_strdup_printf("%s (%s)", bare, note) : g_strdup(bare);
  const char *s = text;
  while (g_ascii_isspace(*s)) s++;
  char *end = NULL;
  errno = 0;
  gint64 v = g_ascii_strtoll(s, &end, 10);
  gboolean digits = end != s && (g_ascii_isdigit(*s) || ((*s == '-' || *s == '+') && g_ascii_isdigit(s[1])));
  while (end && g_ascii_isspace(*end)) end++;
  if (!digits || *end) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s '%s': not an integer, allowed %s", name, text, range);
    return FALSE;
  }
  if (errno == ERANGE || v < lo || v > hi) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s '%s': out of range, allowed %s", name, text, range);
    return FALSE;
  }
  *out = (int)v;
  return TRUE;
}

gboolean cli_seconds_option(const char *name, const char *text, double lo, gboolean lo_open, double hi, const char *note,
                            double *out, GError **error)
{
  if (!text) return TRUE;
  g_autofree char *range =
      lo_open ? g_strdup_printf("> %.15g s and <= %.15g s", lo, hi) : g_strdup_printf("%.15g..%.15g s", lo, hi);
  g_autofree char *full = note ? g_strdup_printf("%s (%s)", range, note) : g_strdup(range);
  /* the scenario's parser (as run --duration reads a time), else a bare number of seconds */
  double ns, v = NAN;
  g_autoptr(GError) why = NULL;
  gboolean parsed =
      sim_units_parse(text, SIM_UNIT_TIME, &ns, &why) ? (v = ns * 1e-9, TRUE) : sim_units_parse_double(text, &v, NULL);
  if (!parsed || isnan(v)) { /* a unit that is not a time's: the unit parser's reason ("unknown unit 'mins' for a time") */
    gboolean unit = why && (why->code == SIM_UNITS_ERROR_WRONG_KIND || why->code == SIM_UNITS_ERROR_UNKNOWN);
    g_autofree char *quoted = g_strdup_printf("'%s'", text);
    const char *reason = unit ? why->message : "";
    if (g_str_has_prefix(reason, quoted)) reason += strlen(quoted); /* the value is named once */
    while (*reason == ':' || *reason == ' ') reason++;
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "%s '%s': not a number of seconds or a time (%s)%s%s, allowed %s", name, text, CLI_TIME_FORMS, unit ? ": " : "",
                reason, full);
    return FALSE;
  }
  if ((lo_open ? !(v > lo) : !(v >= lo)) || !(v <= hi)) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s '%s': out of range, allowed %s", name, text, full);
    return FALSE;
  }
  *out = v;
  return TRUE;
}

gboolean cli_parse_args(GOptionContext *ctx, CliCommon *c, int *argc, char ***argv, int max_args)
{
  g_autoptr(GError) err = NULL;
  if (!cli_context_parse(ctx, c, argc, argv, &err)) {
    fprintf(stderr, "%s: %s\n", (*argv)[0], err->message);
    return FALSE;
  }
  if (max_args >= 0 && *argc > 1 + max_args) {
    fprintf(stderr, "%s: unexpected argument '%s'\n", (*argv)[0], (*argv)[1 + max_args]);
    return FALSE;
  }
  return TRUE;
}

gboolean cli_parse_no_args(GOptionContext *ctx, CliCommon *c, int *argc, char ***argv)
{
  return cli_parse_args(ctx, c, argc, argv, 0);
}

AppRefSet *cli_refset_load(const char *prog, const char *dir)
{
  g_autoptr(GError) err = NULL;
  /* the default: the source tree's, run from its root, else the installed one (make install) */
  g_autofree char *installed = g_build_filename(cli_datadir(), "scenarios", "reference", NULL);
  if (!dir) dir = g_file_test("scenarios/reference", G_FILE_TEST_IS_DIR) ? "scenarios/reference" : installed;
  AppRefSet *s = refset_load(dir, &err);
  if (s && refset_size(s) == 0) {
    g_set_error(&err, G_FILE_ERROR, G_FILE_ERROR_NOENT, "%s: no scenario with a reference: block", dir);
    g_clear_pointer(&s, refset_free);
  }
  if (!s) fprintf(stderr, "%s: %s\n", prog, err->message);
  return s;
}

gboolean cli_text_output(const char *prog, const CliCommon *c)
{
  static const char *const text[] = { "table", "markdown", NULL };
  if (cli_format_from_path(c->output, text) >= -1) return TRUE;
  fprintf(stderr, "%s: -o/--output '%s': this command writes text only (.txt, .md or no extension)\n", prog, c->output);
  return FALSE;
}
