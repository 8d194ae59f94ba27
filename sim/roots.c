/* sim/roots.c — iteration loop over GSL's bracketing root solvers (see roots.h). */
#include "sim/roots.h"

#include <gsl/gsl_errno.h>

int sim_root_iterate(gsl_root_fsolver *s, double epsabs, double epsrel, int max_iter, int *iterations)
{
  int st = GSL_CONTINUE, it = 0;
  while (st == GSL_CONTINUE && it < max_iter) {
    st = gsl_root_fsolver_iterate(s);
    it++;
    if (st != GSL_SUCCESS) break;
    st = gsl_root_test_interval(gsl_root_fsolver_x_lower(s), gsl_root_fsolver_x_upper(s), epsabs, epsrel);
  }
  if (iterations) *iterations = it;
  return st;
}
