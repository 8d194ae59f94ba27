/* sim/gsl_autoptr.h — g_autoptr() cleanup functions for the GSL types ocasim allocates.
 *
 * What it gives: `g_autoptr(gsl_vector) x = gsl_vector_alloc(n);` frees x with gsl_vector_free
 * on every path out of the scope, so a function with early error returns cannot leak GSL
 * objects. One header holds every definition: GLib allows one G_DEFINE_AUTOPTR_CLEANUP_FUNC
 * per type in a translation unit, so define new ones here, never next to the code that uses them.
 * Types: gsl_rng, gsl_vector, gsl_matrix, gsl_permutation, gsl_root_fsolver,
 * gsl_multifit_nlinear_workspace, gsl_histogram, gsl_rstat_quantile_workspace, gsl_ran_discrete_t.
 * Leaves out: views (gsl_vector_view and friends are values, nothing to free).
 */
#ifndef SIM_GSL_AUTOPTR_H
#define SIM_GSL_AUTOPTR_H

#include <glib.h>
#include <gsl/gsl_histogram.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_permutation.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_roots.h>
#include <gsl/gsl_rstat.h>
#include <gsl/gsl_vector.h>

G_DEFINE_AUTOPTR_CLEANUP_FUNC(gsl_rng, gsl_rng_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(gsl_vector, gsl_vector_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(gsl_matrix, gsl_matrix_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(gsl_permutation, gsl_permutation_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(gsl_root_fsolver, gsl_root_fsolver_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(gsl_multifit_nlinear_workspace, gsl_multifit_nlinear_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(gsl_histogram, gsl_histogram_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(gsl_rstat_quantile_workspace, gsl_rstat_quantile_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(gsl_ran_discrete_t, gsl_ran_discrete_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(gsl_integration_workspace, gsl_integration_workspace_free)

#endif /* SIM_GSL_AUTOPTR_H */
