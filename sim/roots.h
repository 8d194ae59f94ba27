/* sim/roots.h — the one root finder of ocasim: GSL's bracketing solvers (gsl_roots.h).
 *
 * What it gives: the iteration loop every caller needs around a gsl_root_fsolver that has been
 * set on a bracket [lo, hi] with f(lo) and f(hi) of opposite signs: iterate until
 * gsl_root_test_interval(x_lower, x_upper, epsabs, epsrel) holds (|x_upper - x_lower| <
 * epsabs + epsrel min(|x_lower|, |x_upper|)), an iteration fails, or max_iter iterations ran.
 * Users (all Brent): the saturation throughput X* and the sizing fixed point (models/appliance/demand.c), the
 * capacity criteria (models/modes/capacity.c), the bound's latency floor shares and quantiles
 * (models/modes/bound.c), the STREAM bandwidth (models/appliance/memory.c) and Che's characteristic time
 * (models/appliance/pagecache.c). Each caller checks the status and, where it is not GSL_SUCCESS, says which
 * end of the bracket it keeps (the side that does not overstate its figure) or fails.
 * Leaves out: derivative-based solvers (gsl_root_fdfsolver); no caller has a derivative.
 */
#ifndef SIM_ROOTS_H
#define SIM_ROOTS_H

#include <glib.h>
#include <gsl/gsl_roots.h>

/* Iterates @s (already gsl_root_fsolver_set) as described above. Returns GSL_SUCCESS when the
 *  bracket met the tolerance, GSL_CONTINUE when max_iter iterations ran without it, or the GSL
 *  error of the failing iteration (e.g. GSL_EBADFUNC: f was not finite). @iterations (may be
 *  NULL) gets the number of iterations run. The bracket and estimate are read from @s
 *  (gsl_root_fsolver_x_lower/x_upper/root). */
G_GNUC_WARN_UNUSED_RESULT int sim_root_iterate(gsl_root_fsolver *s, double epsabs, double epsrel, int max_iter, int *iterations);

#endif /* SIM_ROOTS_H */
