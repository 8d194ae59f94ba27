/* tests/test_roots.c — sim/roots.h: the iteration loop over GSL's bracketing solvers
 * converges to closed-form roots, counts its iterations and reports GSL_CONTINUE at max_iter. */
#include <check.h>
#include "tests/support/check_run.h"
#include <gsl/gsl_errno.h>
#include <math.h>

#include "sim/gsl_autoptr.h"
#include "sim/roots.h"

static double sq_minus_2(double x, void *p)
{
  (void)p;
  return x * x - 2.0;
}

START_TEST(test_brent_sqrt2)
{
  g_autoptr(gsl_root_fsolver) s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
  gsl_function F = { .function = sq_minus_2, .params = NULL };
  ck_assert_int_eq(gsl_root_fsolver_set(s, &F, 0.0, 2.0), GSL_SUCCESS);
  int it = -1;
  ck_assert_int_eq(sim_root_iterate(s, 0.0, 1e-12, 100, &it), GSL_SUCCESS);
  ck_assert(it >= 1 && it < 100);
  ck_assert_double_eq_tol(gsl_root_fsolver_x_lower(s), M_SQRT2, 1e-11);
  ck_assert_double_eq_tol(gsl_root_fsolver_x_upper(s), M_SQRT2, 1e-11);
}
END_TEST

START_TEST(test_bisection_halvings)
{
  /* tolerance 0 never converges: exactly max_iter halvings, the bracket shrinking by 2^-k */
  g_autoptr(gsl_root_fsolver) s = gsl_root_fsolver_alloc(gsl_root_fsolver_bisection);
  gsl_function F = { .function = sq_minus_2, .params = NULL };
  ck_assert_int_eq(gsl_root_fsolver_set(s, &F, 0.0, 2.0), GSL_SUCCESS);
  int it = -1;
  ck_assert_int_eq(sim_root_iterate(s, 0.0, 0.0, 10, &it), GSL_CONTINUE);
  ck_assert_int_eq(it, 10);
  double lo = gsl_root_fsolver_x_lower(s), hi = gsl_root_fsolver_x_upper(s);
  ck_assert_double_eq(hi - lo, 2.0 / 1024);
  ck_assert(lo <= M_SQRT2 && M_SQRT2 <= hi);
  ck_assert_int_eq(sim_root_iterate(s, 0.0, 0.0, 60, NULL), GSL_CONTINUE);
  ck_assert_double_eq_tol(gsl_root_fsolver_x_lower(s), M_SQRT2, 4e-16);
}
END_TEST

int main(void)
{
  gsl_set_error_handler_off();
  Suite *s = suite_create("roots");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_brent_sqrt2);
  tcase_add_test(tc, test_bisection_halvings);
  suite_add_tcase(s, tc);
  return test_run_suite(s);
}
