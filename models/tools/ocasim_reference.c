/* models/tools/ocasim_reference.c — `make reference`: runs every published-result scenario of
 * scenarios/reference in bound mode (and with --des also through the discrete-event model) and prints model vs published (Gb/s, CPU %), the error, and
 * the model's bottleneck vs the published one, OK/FAIL against the rule (10 % throughput,
 * 10 points CPU, the published bottleneck). It is a report: exit status 0 unless it cannot run,
 * or, with --strict, 1 when any row FAILs that rule (documented deviations included) or a DES
 * result is outside its bound. The CI test (tests/test_appliance_bound.c) holds the rows. */
#include <stdio.h>
#include <gsl/gsl_errno.h>
#include "models/appliance_fit.h"

int main(int argc, char **argv)
{
  gsl_set_error_handler_off();
  gboolean des = FALSE, strict = FALSE;
  for (; argc > 1 && argv[1][0] == '-'; argv++, argc--) {
    if (g_strcmp0(argv[1], "--des") == 0)
      des = TRUE;
    else if (g_strcmp0(argv[1], "--strict") == 0)
      strict = TRUE;
    else {
      fprintf(stderr, "usage: ocasim-reference [--des] [--strict] [DIR]\n");
      return 2;
    }
  }
  const char *dir = argc > 1 ? argv[1] : "scenarios/reference";
  g_autoptr(GError) err = NULL;
  g_autoptr(AppRefSet) s = app_refset_load(dir, &err);
  if (!s) {
    fprintf(stderr, "ocasim-reference: %s\n", err->message);
    return 2;
  }
  Coeffs c;
  coeffs_defaults(&c);
  g_autoptr(GString) t = g_string_new(NULL);
  int ci_fails = 0;
  int fails = app_refset_table(s, &c, t, &ci_fails);
  printf("Bound mode vs published results (%d results, tolerance 10 %% throughput, 10 points CPU):\n\n%s", app_refset_size(s),
         t->str);
  printf("\n%d of %d within 10 %% / 10 points with the expected bottleneck; %d outside (%d of them documented "
         "deviations, held by the CI test to the wider bound their scenario documents).\n",
         app_refset_size(s) - fails, app_refset_size(s), fails, fails - ci_fails);
  int des_fails = 0;
  if (des) {
    g_autoptr(GString) d = g_string_new(NULL);
    des_fails = app_refset_des_table(s, d);
    printf("\nDiscrete-event model (ocasim run, scenario duration and seed) vs bound and published:\n\n%s", d->str);
    printf("\n%d of %d DES results outside their tolerance.\n", des_fails, app_refset_size(s));
  }
  return strict && (fails || des_fails) ? 1 : 0;
}
