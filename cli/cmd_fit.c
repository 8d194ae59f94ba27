/* cli/cmd_fit.c — `ocasim fit [--write FILE] [--no-loo] [DIR]` (make fit): fits the shared
 * coefficients (models/coeffs.h) once over every published result in DIR (default
 * scenarios/reference; GSL nonlinear least squares, models/appliance_fit.h), prints the fitted
 * values next to the fit's start and the current defaults, the reference table with them and a
 * leave-one-out report (each result predicted by a fit that did not see it; a refit per result).
 * --write FILE writes the fitted values, rounded to FIT_DIGITS significant digits, as the
 * coefficients data file (models/coeffs.def, coeffs_write_def()) that the build reads as the
 * defaults. Exit status: 0 ok, 1 the fit or the write failed, 2 bad options or DIR. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"

/* Significant digits of a written coefficient: those the fit was reported and pasted with
 * before the data file, so that a refit that moves a value by less leaves the file (and every
 * output that depends on it) unchanged. The leave-one-out spread is far wider. */
#define FIT_DIGITS 4

static double round_digits(double v, int digits)
{
  char fmt[8], buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_snprintf(fmt, sizeof fmt, "%%.%dg", digits);
  return g_ascii_strtod(g_ascii_formatd(buf, sizeof buf, fmt, v), NULL);
}

/* Writes the fitted coefficients @c (rounded) to @path unless it holds them already; says
 * which on stdout. */
static gboolean write_coeffs(const char *path, const Coeffs *c, GString *out, GError **error)
{
  Coeffs r = *c;
  for (int i = 0; i < COEFFS_N_FITTED; i++) *coeffs_fitted_ptr(&r, i) = round_digits(*coeffs_fitted_ptr(&r, i), FIT_DIGITS);
  g_autoptr(GString) text = g_string_new(NULL);
  if (!coeffs_write_def(&r, text, error)) return FALSE;
  g_autofree char *old = NULL;
  if (g_file_get_contents(path, &old, NULL, NULL) && strcmp(old, text->str) == 0) {
    g_string_append_printf(out, "\n%s: unchanged (the fit gives the same coefficients to %d digits)\n", path, FIT_DIGITS);
    return TRUE;
  }
  if (!g_file_set_contents(path, text->str, (gssize)text->len, error)) return FALSE;
  g_string_append_printf(out,
                         "\n%s: written (%d significant digits). Rebuild (make), regenerate the documented tables "
                         "(make scenario-docs) and review git diff: outputs that depend on the coefficients change.\n",
                         path, FIT_DIGITS);
  return TRUE;
}

/* The body of cmd_fit once its options are declared; returns the exit status. */
static int fit(CliCommon *common, GOptionContext *ctx, int argc, char **argv, char *const *write_opt, const gboolean *no_loo_opt)
{
  if (!cli_parse_args(ctx, common, &argc, &argv, 1) || !cli_text_output(argv[0], common)) return OCASIM_EXIT_BADINPUT;
  const char *write = *write_opt;
  gboolean no_loo = *no_loo_opt;
  g_autoptr(GError) err = NULL;
  if (!cli_output_file_option("--write", write, &err)) {
    fprintf(stderr, "%s: %s\n", argv[0], err->message);
    return OCASIM_EXIT_BADINPUT;
  }
  g_autoptr(AppRefSet) s = cli_refset_load(argv[0], argc > 1 ? argv[1] : "scenarios/reference");
  if (!s) return OCASIM_EXIT_BADINPUT;
  int n = app_refset_size(s);
  Coeffs c0, c, cdef;
  coeffs_defaults(&cdef);
  coeffs_prior(&c0);
  c = c0;
  double chi = 0;
  if (!app_refset_fit(s, &c, -1, &chi, &err)) {
    fprintf(stderr, "%s: %s\n", argv[0], err->message);
    return OCASIM_EXIT_FAILURE;
  }
  g_autoptr(GString) out = g_string_new(NULL);
  g_string_append_printf(out, "Shared coefficients fitted over %d published results (+ quoted STREAM figures), chi^2 = %.3f\n", n,
                         chi);
  g_string_append_printf(out, "  %-20s %10s   %10s   %15s\n", "coefficient", "fitted", "start", "current default");
  for (int i = 0; i < COEFFS_N_FITTED; i++)
    g_string_append_printf(out, "  %-20s %10.4g   %10.4g   %15.4g\n", coeffs_fitted_name(i), *coeffs_fitted_ptr(&c, i),
                           *coeffs_fitted_ptr(&c0, i), *coeffs_fitted_ptr(&cdef, i));
  if (write && !write_coeffs(write, &c, out, &err)) {
    cli_write(common, out, NULL);
    fprintf(stderr, "%s: --write '%s': %s\n", argv[0], write, err->message);
    return OCASIM_EXIT_FAILURE;
  }
  g_autoptr(GString) t = g_string_new(NULL);
  int fails = app_refset_table(s, &c, t, NULL);
  g_string_append_printf(out, "\nReference table with the fitted coefficients (%d FAIL):\n%s", fails, t->str);
  if (!no_loo) {
    if (!common->output) { /* the refits take a while: show what is done */
      if (cli_write(common, out, NULL) != OCASIM_EXIT_OK) return OCASIM_EXIT_FAILURE;
      g_string_truncate(out, 0);
    }
    g_autoptr(GString) loo = g_string_new(NULL);
    if (!app_refset_loo_table(s, &c, loo, &err)) {
      fprintf(stderr, "%s: %s\n", argv[0], err->message);
      return OCASIM_EXIT_FAILURE;
    }
    g_string_append_printf(out, "\nLeave-one-out: each result predicted by a fit over the others\n%s", loo->str);
  }
  return cli_write(common, out, NULL);
}

int cmd_fit(int argc, char **argv)
{
  g_autofree char *write = NULL;
  gboolean no_loo = FALSE;
  GOptionEntry entries[] = {
    { "write", 0, 0, G_OPTION_ARG_FILENAME, &write,
      "Write the fitted coefficients as the coefficients data file FILE (make fit: models/coeffs.def)", "FILE" },
    { "no-loo", 0, 0, G_OPTION_ARG_NONE, &no_loo, "Skip the leave-one-out report (a refit per result)", NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  CliCommon common;
  g_autoptr(GOptionContext) ctx =
      cli_context_new("[DIR]",
                      "Fits the shared coefficients once over every published result in DIR (default\n"
                      "scenarios/reference) plus the quoted STREAM figures, and reports each result\n"
                      "predicted by a fit that left it out.",
                      &common, CLI_OPT_OUTPUT);
  g_option_context_add_main_entries(ctx, entries, NULL);
  int status = fit(&common, ctx, argc, argv, &write, &no_loo);
  cli_common_clear(&common);
  return status;
}
