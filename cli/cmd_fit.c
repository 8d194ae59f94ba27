/* cli/cmd_fit.c — `ocasim fit [--write FILE] [--json FILE] [--no-loo] [--no-lopo]
 * [--no-bottleneck-term] [DIR]` (make fit): fits the shared coefficients (models/coeffs.h) once
 * over every published result in DIR (default scenarios/reference; GSL nonlinear least squares,
 * models/appliance_fit.h), prints the fitted values with their standard errors next to the fit's
 * start and the current defaults, the reference table with them, the identifiability report
 * (standard errors, the rows that move each coefficient, the Jacobian, the correlation matrix,
 * coefficients that one platform alone identifies), a leave-one-out report (each result
 * predicted by a fit that did not see it or its same_as group; a refit per group), a
 * leave-one-platform-out report (each platform's results predicted by a fit over the other
 * platforms; a refit per platform) and the median and worst errors of each.
 * --write FILE writes the fitted values, rounded to FIT_DIGITS significant digits, as the
 * coefficients data file (models/coeffs.def, coeffs_write_def()) that the build reads as the
 * defaults; --json FILE writes the whole report (make fit: build/fit/fit.json, app_fit_json()).
 * Exit status: 0 ok, 1 the fit or a write failed, 2 bad options or DIR. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"

/* Significant digits of a written coefficient: enough that a refit from the written values
 * gives them back (the solver's tolerance is far finer), so the file and every output that
 * depends on it stay unchanged, and that the rounded set names every bottleneck the fit does
 * (4 to 7 digits do not on rome2021_sw_nps4, which the fit holds on the edge between its DRAM
 * and its CPU). The leave-one-out spread is far wider. */
#define FIT_DIGITS 8

/* Writes the fitted coefficients @c, rounded to FIT_DIGITS (app_refset_round_coeffs), to @path
 * unless it holds them already; says which on stdout. */
static gboolean write_coeffs(const char *path, AppRefSet *s, const Coeffs *c, GError **error)
{
  Coeffs r;
  if (!app_refset_round_coeffs(s, c, FIT_DIGITS, &r, error)) return FALSE;
  g_autoptr(GString) text = g_string_new(NULL);
  if (!coeffs_write_def(&r, text, error)) return FALSE;
  g_autofree char *old = NULL;
  if (g_file_get_contents(path, &old, NULL, NULL) && strcmp(old, text->str) == 0) {
    printf("\n%s: unchanged (the fit gives the same coefficients to %d digits)\n", path, FIT_DIGITS);
    return TRUE;
  }
  if (!g_file_set_contents(path, text->str, (gssize)text->len, error)) return FALSE;
  printf("\n%s: written (%d significant digits). Rebuild (make), regenerate the documented tables "
         "(make scenario-docs) and review git diff: outputs that depend on the coefficients change.\n",
         path, FIT_DIGITS);
  return TRUE;
}

int cmd_fit(int argc, char **argv)
{
  g_autofree char *write = NULL, *json = NULL;
  gboolean no_loo = FALSE, no_lopo = FALSE, no_bn = FALSE;
  GOptionEntry entries[] = {
    { "write", 'w', 0, G_OPTION_ARG_FILENAME, &write,
      "Write the fitted coefficients as the coefficients data file FILE (make fit: models/coeffs.def)", "FILE" },
    { "json", 0, 0, G_OPTION_ARG_FILENAME, &json, "Write the fit, its identifiability and predictions as JSON to FILE", "FILE" },
    { "no-loo", 0, 0, G_OPTION_ARG_NONE, &no_loo, "Skip the leave-one-out report (a refit per result)", NULL },
    { "no-lopo", 0, 0, G_OPTION_ARG_NONE, &no_lopo, "Skip the leave-one-platform-out report (a refit per platform)", NULL },
    { "no-bottleneck-term", 0, 0, G_OPTION_ARG_NONE, &no_bn,
      "Fit without the bottleneck-mismatch term: the named bottleneck is only predicted (see appliance_fit.h)", NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new("[DIR]");
  g_option_context_set_summary(ctx, "Fits the shared coefficients once over every published result in DIR (default\n"
                                    "scenarios/reference) plus the quoted STREAM figures, and reports each result\n"
                                    "predicted by a fit that left it out.");
  g_option_context_add_main_entries(ctx, entries, NULL);
  if (!cli_parse_args(ctx, &argc, &argv, 1)) return OCASIM_EXIT_BADINPUT;
  g_autoptr(GError) err = NULL;
  if (!cli_output_file_option("--write", write, &err) || !cli_output_file_option("--json", json, &err)) {
    fprintf(stderr, "%s: %s\n", argv[0], err->message);
    return OCASIM_EXIT_BADINPUT;
  }
  g_autoptr(AppRefSet) s = cli_refset_load(argv[0], argc > 1 ? argv[1] : "scenarios/reference");
  if (!s) return OCASIM_EXIT_BADINPUT;
  app_refset_set_bottleneck_term(s, !no_bn);
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
  g_autoptr(AppFitIdent) id = app_refset_identify(s, &c, &err);
  if (!id) {
    fprintf(stderr, "%s: %s\n", argv[0], err->message);
    return OCASIM_EXIT_FAILURE;
  }
  printf("Shared coefficients fitted over %d published results (+ quoted STREAM figures), chi^2 = %.3f%s\n", n, chi,
         no_bn ? ", without the bottleneck term" : "");
  printf("  %-20s %10s %10s   %10s   %15s\n", "coefficient", "fitted", "std. err.", "start", "current default");
  for (int i = 0; i < COEFFS_N_FITTED; i++)
    printf("  %-20s %10.4g %10.3g   %10.4g   %15.4g\n", coeffs_fitted_name(i), *coeffs_fitted_ptr(&c, i), id->se[i],
           *coeffs_fitted_ptr(&c0, i), *coeffs_fitted_ptr(&cdef, i));
  if (write && !write_coeffs(write, s, &c, &err)) {
    fprintf(stderr, "%s: --write '%s': %s\n", argv[0], write, err->message);
    return OCASIM_EXIT_FAILURE;
  }
  g_autoptr(GString) t = g_string_new(NULL);
  int fails = app_refset_table(s, &c, t, NULL);
  printf("\nReference table with the fitted coefficients (%d FAIL):\n%s", fails, t->str);
  g_string_truncate(t, 0);
  app_fit_ident_table(id, t);
  printf("\nIdentifiability of the fitted coefficients (tolerances read as one standard error):\n%s", t->str);
  fflush(stdout); /* the refits take a while: show what is done */
  g_autoptr(AppFitReport) r = app_refset_predict(s, &c, !no_loo, !no_lopo, &err);
  if (!r) {
    fprintf(stderr, "%s: %s\n", argv[0], err->message);
    return OCASIM_EXIT_FAILURE;
  }
  if (r->loo) {
    g_string_truncate(t, 0);
    app_fit_report_loo_table(r, t);
    printf("\nLeave-one-out: each result predicted by a fit over the others (a same_as group left out together)\n%s", t->str);
  }
  if (r->lopo) {
    g_string_truncate(t, 0);
    app_fit_report_lopo_table(r, t);
    printf("\nLeave-one-platform-out: each result predicted by a fit over the other platforms' results and STREAM "
           "figures\n%s",
           t->str);
    g_string_truncate(t, 0);
    app_fit_report_lopo_coeffs_table(r, t);
    printf("\nCoefficients of each leave-one-platform-out fit (column: the platform left out)\n%s", t->str);
  }
  g_string_truncate(t, 0);
  app_fit_report_summary(r, t);
  printf("\nPrediction errors over the distinct results (a same_as result counts with the one it names)\n%s", t->str);
  if (json) {
    g_autoptr(GString) j = g_string_new(NULL);
    app_fit_json(s, r, id, chi, j);
    if (!g_file_set_contents(json, j->str, (gssize)j->len, &err)) {
      fprintf(stderr, "%s: --json '%s': %s\n", argv[0], json, err->message);
      return OCASIM_EXIT_FAILURE;
    }
    printf("\n%s: written\n", json);
  }
  if (fflush(stdout) != 0) {
    perror("ocasim fit: stdout");
    return OCASIM_EXIT_FAILURE;
  }
  return OCASIM_EXIT_OK;
}
