/* cli/cmd_fit.c — `ocasim fit [--write FILE] [--json FILE] [--no-loo] [--no-lopo]
 * [--bottleneck-term] [DIR]` (make fit): fits the shared coefficients (models/appliance/coeffs.h) once
 * over every published result in DIR (default scenarios/reference, else the installed one; GSL
 * nonlinear least squares, models/reference/fit.h), prints the fitted values with their
 * standard errors next to the fit's start and the current defaults, the reference table with
 * them, the identifiability report (standard errors, the rows that move each coefficient, the
 * Jacobian, the correlation matrix, coefficients that one platform alone identifies), a
 * leave-one-out report (each result
 * predicted by a fit that did not see it or its same_as group; a refit per group), a
 * leave-one-platform-out report (each platform's results predicted by a fit over the other
 * platforms; a refit per platform) and the median and worst errors of each.
 * --write FILE writes the fitted values, rounded to FIT_DIGITS significant digits, as the
 * coefficients data file (models/appliance/coeffs.def, coeffs_write_def()) that the build reads as the
 * defaults; --json FILE writes the whole report (make fit: build/fit/fit.json, fitreport_json()).
 * -o FILE writes the report (the tables) to FILE instead of stdout.
 * Exit status: 0 ok, 1 the fit or a write failed, 2 bad options or DIR. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "models/reference/fitreport.h"

/* Significant digits of a written coefficient: enough that a refit from the written values
 * gives them back (the solver's tolerance is far finer), so the file and every output that
 * depends on it stay unchanged, and that the rounded set names every bottleneck the fit does
 * (4 to 7 digits do not on rome2021_sw_nps4, which the fit holds on the edge between its DRAM
 * and its CPU). The leave-one-out spread is far wider. */
#define FIT_DIGITS 8

/* Writes the fitted coefficients @c, rounded to FIT_DIGITS (fit_round_coeffs), to @path
 * unless it holds them already; says which in @out. */
static gboolean write_coeffs(const char *path, AppRefSet *s, const Coeffs *c, const CoeffsSpread *sp, GString *out,
                             GError **error)
{
  Coeffs r;
  if (!fit_round_coeffs(s, c, FIT_DIGITS, &r, error)) return FALSE;
  g_autoptr(GString) text = g_string_new(NULL);
  if (!coeffs_write_def(&r, sp, text, error)) return FALSE;
  g_autofree char *old = NULL;
  if (g_file_get_contents(path, &old, NULL, NULL) && strcmp(old, text->str) == 0) {
    g_string_append_printf(out, "\n%s: unchanged (the fit gives the same coefficients to %d digits)\n", path, FIT_DIGITS);
    return TRUE;
  }
  if (!cli_write_file(path, text->str, text->len, error)) return FALSE;
  g_string_append_printf(out,
                         "\n%s: written (%d significant digits). Rebuild (make), regenerate the documented tables "
                         "(make scenario-docs) and review git diff: outputs that depend on the coefficients change.\n",
                         path, FIT_DIGITS);
  return TRUE;
}

/* The options of cmd_fit beyond the common ones. */
typedef struct {
  char *write, *json;
  gboolean no_loo, no_lopo, bn;
} FitOpts;

/* Shows what @out holds so far when the report goes to stdout (the refits take a while);
 * returns FALSE when that write failed. */
static gboolean flush_so_far(const CliCommon *common, GString *out)
{
  if (common->output) return TRUE;
  if (cli_write(common, out, NULL) != OCASIM_EXIT_OK) return FALSE;
  g_string_truncate(out, 0);
  return TRUE;
}

/* The body of cmd_fit once its options are declared; returns the exit status. */
static int fit(CliCommon *common, GOptionContext *ctx, int argc, char **argv, const FitOpts *o)
{
  if (!cli_parse_args(ctx, common, &argc, &argv, 1) || !cli_text_output(argv[0], common)) return OCASIM_EXIT_BADINPUT;
  g_autoptr(GError) err = NULL;
  if (!cli_output_file_option("--write", o->write, &err) || !cli_output_file_option("--json", o->json, &err)) {
    fprintf(stderr, "%s: %s\n", argv[0], err->message);
    return OCASIM_EXIT_BADINPUT;
  }
  g_autoptr(AppRefSet) s = cli_refset_load(argv[0], argc > 1 ? argv[1] : NULL);
  if (!s) return OCASIM_EXIT_BADINPUT;
  fit_set_bottleneck_term(s, o->bn);
  int n = refset_size(s);
  Coeffs c0, c, cdef;
  coeffs_defaults(&cdef);
  coeffs_prior(&c0);
  c = c0;
  double chi = 0;
  if (!fit_refset(s, &c, -1, &chi, &err)) {
    fprintf(stderr, "%s: %s\n", argv[0], err->message);
    return OCASIM_EXIT_FAILURE;
  }
  CoeffsSpread sp;
  fit_last_covariance(s, sp.cov_x);
  if (!fit_transfer_tau(s, &c, NULL, &sp.tau_cpu_costs, NULL, NULL, &err) ||
      !fit_model_sigma(s, &c, NULL, &sp.sigma_gbps, &err)) {
    fprintf(stderr, "%s: %s\n", argv[0], err->message);
    return OCASIM_EXIT_FAILURE;
  }
  g_autoptr(AppFitIdent) id = fit_identify(s, &c, &err);
  if (!id) {
    fprintf(stderr, "%s: %s\n", argv[0], err->message);
    return OCASIM_EXIT_FAILURE;
  }
  g_autoptr(GString) out = g_string_new(NULL);
  g_string_append_printf(
      out, "Shared coefficients fitted over %d published results (+ quoted STREAM figures), chi^2 = %.3f%s\n", n, chi,
      o->bn ? ", with a bottleneck-mismatch term" : ", no bottleneck term (the named bottleneck is predicted)");
  g_string_append_printf(out, "  %-20s %10s %10s   %10s   %15s\n", "coefficient", "fitted", "std. err.", "start",
                         "current default");
  for (int i = 0; i < COEFFS_N_FITTED; i++)
    g_string_append_printf(out, "  %-20s %10.4g %10.3g   %10.4g   %15.4g\n", coeffs_fitted_name(i), *coeffs_fitted_ptr(&c, i),
                           id->se[i], *coeffs_fitted_ptr(&c0, i), *coeffs_fitted_ptr(&cdef, i));
  if (o->write && !write_coeffs(o->write, s, &c, &sp, out, &err)) {
    cli_write(common, out, NULL);
    fprintf(stderr, "%s: --write '%s': %s\n", argv[0], o->write, err->message);
    return OCASIM_EXIT_FAILURE;
  }
  g_autoptr(GString) t = g_string_new(NULL);
  int fails = refset_table(s, &c, t, NULL);
  g_string_append_printf(out, "\nReference table with the fitted coefficients (%d FAIL):\n%s", fails, t->str);
  g_string_truncate(t, 0);
  ident_table(id, t);
  g_string_append_printf(out, "\nIdentifiability of the fitted coefficients (tolerances read as one standard error):\n%s",
                         t->str);
  if (!flush_so_far(common, out)) return OCASIM_EXIT_FAILURE;
  g_autoptr(AppFitReport) r = fit_predict(s, &c, &sp, !o->no_loo, !o->no_lopo, &err);
  if (!r) {
    fprintf(stderr, "%s: %s\n", argv[0], err->message);
    return OCASIM_EXIT_FAILURE;
  }
  if (r->loo) {
    g_string_truncate(t, 0);
    fitreport_loo_table(r, t);
    g_string_append_printf(
        out, "\nLeave-one-out: each result predicted by a fit over the others (a same_as group left out together)\n%s", t->str);
  }
  if (r->lopo) {
    g_string_truncate(t, 0);
    fitreport_lopo_table(r, t);
    g_string_append_printf(
        out,
        "\nLeave-one-platform-out: each result predicted by a fit over the other platforms' results and STREAM "
        "figures\n%s",
        t->str);
    g_string_truncate(t, 0);
    fitreport_lopo_coeffs_table(r, t);
    g_string_append_printf(out, "\nCoefficients of each leave-one-platform-out fit (column: the platform left out)\n%s", t->str);
  }
  g_string_truncate(t, 0);
  fitreport_summary(r, t);
  g_string_append_printf(out, "\nPrediction errors over the distinct results (a same_as result counts with the one it names)\n%s",
                         t->str);
  g_string_truncate(t, 0);
  fitreport_coverage(r, t);
  g_string_append_printf(out,
                         "\nCoverage of the 80 %% prediction intervals (published throughput inside; half-width as %% of the "
                         "prediction; each from the fit that predicts it)\n%s",
                         t->str);
  if (o->json) {
    g_autoptr(GString) j = g_string_new(NULL);
    fitreport_json(s, r, id, chi, j);
    if (!cli_write_file(o->json, j->str, j->len, &err)) {
      cli_write(common, out, NULL);
      fprintf(stderr, "%s: --json '%s': %s\n", argv[0], o->json, err->message);
      return OCASIM_EXIT_FAILURE;
    }
    g_string_append_printf(out, "\n%s: written\n", o->json);
  }
  return cli_write(common, out, NULL);
}

int cmd_fit(int argc, char **argv)
{
  FitOpts o = { 0 };
  GOptionEntry entries[] = {
    { "write", 0, 0, G_OPTION_ARG_FILENAME, &o.write,
      "Write the fitted coefficients as the coefficients data file FILE (make fit: models/appliance/coeffs.def)", "FILE" },
    { "json", 0, 0, G_OPTION_ARG_FILENAME, &o.json, "Write the fit, its identifiability and predictions as JSON to FILE",
      "FILE" },
    { "no-loo", 0, 0, G_OPTION_ARG_NONE, &o.no_loo, "Skip the leave-one-out report (a refit per result)", NULL },
    { "no-lopo", 0, 0, G_OPTION_ARG_NONE, &o.no_lopo, "Skip the leave-one-platform-out report (a refit per platform)", NULL },
    { "bottleneck-term", 0, 0, G_OPTION_ARG_NONE, &o.bn,
      "Fit with a bottleneck-mismatch term (by default the named bottleneck is only predicted, see reference/fit.h)", NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  CliCommon common;
  g_autoptr(GOptionContext) ctx =
      cli_context_new("[DIR]",
                      "Fits the shared coefficients once over every published result in DIR (default\n"
                      "scenarios/reference here, else the installed one) plus the quoted STREAM figures, and\n"
                      "reports each result predicted by a fit that left it out (one result, and one platform, at\n"
                      "a time).",
                      &common, CLI_OPT_OUTPUT | CLI_OPT_REPORT);
  g_option_context_add_main_entries(ctx, entries, NULL);
  int status = fit(&common, ctx, argc, argv, &o);
  g_free(o.write);
  g_free(o.json);
  cli_common_clear(&common);
  return status;
}
