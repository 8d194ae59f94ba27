/* reference/ident.c — identifiability of the fitted coefficients from the fit's Jacobian: standard
 * errors, correlations, the rows that move each coefficient, one-platform flags, and the report
 * (see reference/ident.h). */
#include "models/reference/ident.h"
#include <gsl/gsl_linalg.h>
#include "sim/gsl_autoptr.h"
#include <math.h>
#include <string.h>

#define PRIOR_SIGMA APP_FIT_PRIOR_SIGMA

/* A coefficient is identified by a set of rows when its standard error with them (and the
 * priors) is at most this fraction of the prior's alone (assumed: the data must at least halve
 * what the prior allows, a factor e^1 either way). */
#define IDENT_SE_RATIO 0.5
/* A row "moves" a coefficient (identified_by) when it carries at least this share of the
 * coefficient's information sum_i J_ij^2 (assumed). */
#define IDENT_MIN_SHARE 0.01

void ident_free(AppFitIdent *id)
{
  if (!id) return;
  g_strfreev(id->row_id);
  g_strfreev(id->row_platform);
  g_free(id->row_figure);
  g_free(id->jac);
  g_strfreev(id->platforms);
  g_free(id->se_x_without);
  g_free(id);
}

/* Inverts the p x p information matrix a (overwritten) into cov; FALSE when it is singular. */
static gboolean invert_info(gsl_matrix *a)
{
  return gsl_linalg_cholesky_decomp1(a) == GSL_SUCCESS && gsl_linalg_cholesky_invert(a) == GSL_SUCCESS;
}

/* The information matrix sum_i J_i^T J_i over the rows not of platform `skip` (NULL: all), plus
 * the priors' I / PRIOR_SIGMA^2. */
static void info_matrix(const AppFitIdent *id, const char *skip, gsl_matrix *a)
{
  const int p = COEFFS_N_FITTED;
  gsl_matrix_set_identity(a);
  gsl_matrix_scale(a, 1.0 / (PRIOR_SIGMA * PRIOR_SIGMA));
  for (int r = 0; r < id->n_rows; r++) {
    if (skip && strcmp(id->row_platform[r], skip) == 0) continue;
    const double *jr = id->jac + (size_t)r * p;
    for (int i = 0; i < p; i++)
      for (int j = 0; j < p; j++) *gsl_matrix_ptr(a, (size_t)i, (size_t)j) += jr[i] * jr[j];
  }
}

gboolean ident_solve(AppFitIdent *id, GError **error)
{
  const int p = COEFFS_N_FITTED;
  g_free(id->se_x_without);
  id->se_x_without = g_new(double, (size_t)id->n_platforms *p);
  g_autoptr(gsl_matrix) a = gsl_matrix_alloc((size_t)p, (size_t)p);
  for (int k = -1; k < id->n_platforms; k++) {
    info_matrix(id, k >= 0 ? id->platforms[k] : NULL, a);
    if (!invert_info(a)) {
      g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "identifiability: the information matrix is singular");
      return FALSE;
    }
    for (int j = 0; j < p; j++) {
      double se = sqrt(gsl_matrix_get(a, (size_t)j, (size_t)j));
      if (k >= 0) {
        id->se_x_without[(size_t)k * p + j] = se;
        continue;
      }
      id->se_x[j] = se;
      for (int i = 0; i < p; i++)
        id->corr[i][j] = gsl_matrix_get(a, (size_t)i, (size_t)j) /
                         sqrt(gsl_matrix_get(a, (size_t)i, (size_t)i) * gsl_matrix_get(a, (size_t)j, (size_t)j));
    }
  }
  for (int j = 0; j < p; j++) {
    id->identified[j] = id->se_x[j] <= IDENT_SE_RATIO * PRIOR_SIGMA;
    id->rests_on[j] = -1;
    for (int k = 0; k < id->n_platforms && id->identified[j]; k++)
      if (id->se_x_without[(size_t)k * p + j] > IDENT_SE_RATIO * PRIOR_SIGMA && id->rests_on[j] < 0) id->rests_on[j] = k;
  }
  return TRUE;
}

double ident_share(const AppFitIdent *id, int j, const char *row_id)
{
  g_return_val_if_fail(j >= 0 && j < COEFFS_N_FITTED, 0);
  double all = 0, mine = 0;
  for (int r = 0; r < id->n_rows; r++) {
    double v = id->jac[(size_t)r * COEFFS_N_FITTED + j];
    all += v * v;
    if (strcmp(id->row_id[r], row_id) == 0) mine += v * v;
  }
  return all > 0 ? mine / all : 0;
}

void ident_moving_rows(const AppFitIdent *id, int j, GPtrArray *ids)
{
  for (int r = 0; r < id->n_rows; r++) {
    gboolean seen = FALSE;
    for (guint k = 0; k < ids->len; k++) seen |= strcmp(ids->pdata[k], id->row_id[r]) == 0;
    if (!seen && ident_share(id, j, id->row_id[r]) >= IDENT_MIN_SHARE) g_ptr_array_add(ids, id->row_id[r]);
  }
}

void ident_table(const AppFitIdent *id, GString *out)
{
  const int p = COEFFS_N_FITTED;
  g_string_append_printf(out, "| %-18s | %10s | %10s | %6s |", "coefficient", "value", "std. err.", "rel.");
  for (int k = 0; k < id->n_platforms; k++) g_string_append_printf(out, " %13.13s |", id->platforms[k]);
  g_string_append_printf(out, " %-28s |\n|--------------------|-----------:|-----------:|-------:|", "flag");
  for (int k = 0; k < id->n_platforms; k++) g_string_append(out, "--------------:|");
  g_string_append(out, "------------------------------|\n");
  for (int j = 0; j < p; j++) {
    g_string_append_printf(out, "| %-18s | %10.4g | %10.3g | %5.1f%% |", coeffs_fitted_name(j), id->value[j], id->se[j],
                           100 * id->se[j] / id->value[j]);
    for (int k = 0; k < id->n_platforms; k++)
      g_string_append_printf(out, " %13.3f |", id->se_x_without[(size_t)k * p + j] / PRIOR_SIGMA);
    g_autofree char *flag = !id->identified[j]     ? g_strdup("NOT IDENTIFIED")
                            : id->rests_on[j] >= 0 ? g_strdup_printf("ONE PLATFORM: %s", id->platforms[id->rests_on[j]])
                                                   : g_strdup("-");
    g_string_append_printf(out, " %-28s |\n", flag);
  }
  g_string_append_printf(out,
                         "\nColumns per platform: the standard error (fit space, ln or logit) without that platform's rows, "
                         "as a fraction of the prior's (%.0f); above %.2f the others do not identify it.\n",
                         PRIOR_SIGMA, IDENT_SE_RATIO);
  Coeffs fixed;
  coeffs_defaults(&fixed);
  g_string_append(
      out, "\nFixed, not fitted (models/appliance/coeffs.c: a cited measurement, or assumed where no row identifies it):\n");
  for (int i = 0; i < coeffs_fixed_count(); i++)
    g_string_append_printf(out, "  %-18s %10.4g  %s\n", coeffs_fixed_name(i), coeffs_fixed_value(&fixed, i),
                           coeffs_fixed_source(i));
  g_string_append(out, "\nRows that move each coefficient (share of sum_i J_ij^2, at least 1 %):\n");
  for (int j = 0; j < p; j++) {
    g_autoptr(GPtrArray) ids = g_ptr_array_new();
    ident_moving_rows(id, j, ids);
    g_string_append_printf(out, "  %-18s", coeffs_fitted_name(j));
    for (guint k = 0; k < ids->len; k++)
      g_string_append_printf(out, " %s %.0f%%", (const char *)ids->pdata[k], 100 * ident_share(id, j, ids->pdata[k]));
    g_string_append_printf(out, "%s\n", ids->len ? "" : " (none)");
  }
  g_string_append(out, "\nJacobian d(weighted residual)/d(ln or logit coefficient), one row per fitted figure:\n");
  g_string_append_printf(out, "| %-28s | %-15s |", "row", "figure");
  for (int j = 0; j < p; j++) g_string_append_printf(out, " %8.8s |", coeffs_fitted_name(j));
  g_string_append(out, "\n|------------------------------|-----------------|");
  for (int j = 0; j < p; j++) g_string_append(out, "---------:|");
  g_string_append_c(out, '\n');
  for (int r = 0; r < id->n_rows; r++) {
    g_string_append_printf(out, "| %-28.28s | %-15s |", id->row_id[r], id->row_figure[r]);
    for (int j = 0; j < p; j++) g_string_append_printf(out, " %8.3f |", id->jac[(size_t)r * p + j] + 0.0);
    g_string_append_c(out, '\n');
  }
  g_string_append(out, "\nCorrelation matrix of the fitted coefficients:\n");
  g_string_append_printf(out, "| %-18s |", "");
  for (int j = 0; j < p; j++) g_string_append_printf(out, " %8.8s |", coeffs_fitted_name(j));
  g_string_append(out, "\n|--------------------|");
  for (int j = 0; j < p; j++) g_string_append(out, "---------:|");
  g_string_append_c(out, '\n');
  for (int i = 0; i < p; i++) {
    g_string_append_printf(out, "| %-18s |", coeffs_fitted_name(i));
    for (int j = 0; j < p; j++) g_string_append_printf(out, " %8.3f |", id->corr[i][j] + 0.0);
    g_string_append_c(out, '\n');
  }
}
