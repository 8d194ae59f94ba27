/* models/tools/ocasim_fit.c — `make fit`: fits the shared coefficients (models/coeffs.h) once
 * over every published result in scenarios/reference (GSL nonlinear least squares), prints the
 * fitted values (to paste into models/coeffs.c), the reference table with them, and a
 * leave-one-out report: each result predicted by a fit that did not see it. */
#include <stdio.h>
#include <gsl/gsl_errno.h>
#include "models/appliance_fit.h"

int main(int argc, char **argv)
{
  gsl_set_error_handler_off();
  const char *dir = argc > 1 ? argv[1] : "scenarios/reference";
  g_autoptr(GError) err = NULL;
  g_autoptr(AppRefSet) s = app_refset_load(dir, &err);
  if (!s) {
    fprintf(stderr, "ocasim-fit: %s\n", err->message);
    return 2;
  }
  int n = app_refset_size(s);
  Coeffs c0, c;
  Coeffs cdef;
  coeffs_defaults(&cdef);
  coeffs_prior(&c0);
  c = c0;
  double chi = 0;
  if (!app_refset_fit(s, &c, -1, &chi, &err)) {
    fprintf(stderr, "ocasim-fit: %s\n", err->message);
    return 1;
  }
  g_autoptr(GDateTime) now = g_date_time_new_now_utc();
  g_autofree char *date = g_date_time_format(now, "%Y-%m-%d");
  printf("Shared coefficients fitted over %d published results (+ quoted STREAM figures), chi^2 = %.3f\n", n, chi);
  printf("/* fitted by make fit on %s over %d results */\n", date, n);
  for (int i = 0; i < COEFFS_N_FITTED; i++)
    printf("  c->%s = %.4g;   /* start %.4g; current default %.4g */\n", coeffs_fitted_name(i), *coeffs_fitted_ptr(&c, i),
           *coeffs_fitted_ptr(&c0, i), *coeffs_fitted_ptr(&cdef, i));
  g_autoptr(GString) t = g_string_new(NULL);
  int fails = app_refset_table(s, &c, t, NULL);
  printf("\nReference table with the fitted coefficients (%d FAIL):\n%s", fails, t->str);
  g_autoptr(GString) loo = g_string_new(NULL);
  if (!app_refset_loo_table(s, &c, loo, &err)) {
    fprintf(stderr, "ocasim-fit: %s\n", err->message);
    return 1;
  }
  printf("\nLeave-one-out: each result predicted by a fit over the others\n%s", loo->str);
  return 0;
}
