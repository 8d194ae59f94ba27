/* reference/ident.h — the identifiability of the fitted coefficients: which published figures
 * move each one, how well they pin it, and whether one platform alone does.
 *
 * What it computes: from the Jacobian J of the fit's weighted residuals in fit space (ln or
 * logit; fit_identify builds it), the covariance (J^T J + I / APP_FIT_PRIOR_SIGMA^2)^-1, each
 * coefficient's standard error and correlations, the share of sum_i J_ij^2 each row carries,
 * and the standard error without each platform's rows: NOT IDENTIFIED when it exceeds
 * IDENT_SE_RATIO of the prior's, ONE PLATFORM when only one platform's rows bring it below.
 * Sources: the fit's objective (reference/fit.h).
 * Leaves out: the objective's curvature beyond its linearisation at the fitted point.
 * Evidence and history: docs/model/fit.md.
 */
#ifndef MODELS_REFERENCE_IDENT_H
#define MODELS_REFERENCE_IDENT_H
#include "models/appliance/coeffs.h"

/* Weak priors keep a coefficient that no result constrains (e.g. when its only witness is left
 * out) at its starting value: one residual per coefficient in the fit's objective, (x - x0) /
 * APP_FIT_PRIOR_SIGMA in the fit space (ln or logit), i.e. a factor of e^2 away costs as much as
 * one result off by 10 % (assumed); the information matrix here holds them too. */
#define APP_FIT_PRIOR_SIGMA 2.0

/* The identifiability of the fitted coefficients at a point (see above). */
typedef struct {
  int n_rows;              /* data residuals: one per published figure of a result, per STREAM figure */
  char **row_id;           /* [n_rows] result id, or "stream:<platform>:NPS<n>" */
  char **row_platform;     /* [n_rows] */
  const char **row_figure; /* [n_rows] gbps, cpu_pct, fabric_util_pct, hot_port_gbps, cold_port_gbps, stream_GBps */
  double *jac;             /* [n_rows][COEFFS_N_FITTED] d(weighted residual)/dx_j, x_j = ln or logit of coefficient j */
  double value[COEFFS_N_FITTED];
  double se[COEFFS_N_FITTED];   /* standard error in the coefficient's unit */
  double se_x[COEFFS_N_FITTED]; /* the same in fit space (prior alone: APP_FIT_PRIOR_SIGMA) */
  double corr[COEFFS_N_FITTED][COEFFS_N_FITTED];
  int n_platforms;
  char **platforms;                     /* [n_platforms] */
  double *se_x_without;                 /* [n_platforms][COEFFS_N_FITTED] se_x without that platform's rows */
  gboolean identified[COEFFS_N_FITTED]; /* se_x <= IDENT_SE_RATIO * APP_FIT_PRIOR_SIGMA (reference/ident.c) */
  int rests_on[COEFFS_N_FITTED];        /* a platform without whose rows it is not identified, -1: none */
} AppFitIdent;

/* From id's Jacobian, rows and platforms (n_rows, row_platform, jac, n_platforms, platforms):
 * se_x, corr, se_x_without, identified and rests_on (the flags of the report: a coefficient
 * whose fit-space standard error, priors included, exceeds IDENT_SE_RATIO of the prior's is
 * NOT IDENTIFIED; one that is identified only with some platform's rows rests on it: ONE
 * PLATFORM). Leaves value and se alone. Error: an information matrix that is singular. */
gboolean ident_solve(AppFitIdent *id, GError **error);
/* Frees an identifiability report (NULL is allowed). */
void ident_free(AppFitIdent *id);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(AppFitIdent, ident_free)
/* Share of coefficient j's information sum_i J_ij^2 that rows of result (or STREAM) `row_id` carry. */
double ident_share(const AppFitIdent *id, int j, const char *row_id);
/* Appends to @ids (borrowed strings) the distinct row ids (results, STREAM figures) that move
 * coefficient @j, in row order, each once: those that carry at least IDENT_MIN_SHARE (1 %) of
 * its information (ident_share). */
void ident_moving_rows(const AppFitIdent *id, int j, GPtrArray *ids);
/* The identifiability report: coefficient, value, standard error, the rows that move it, the
 * standard error without each platform and the flag; the fixed coefficients with their values and
 * sources (coeffs_fixed_*); the Jacobian; the correlation matrix. */
void ident_table(const AppFitIdent *id, GString *out);

#endif /* MODELS_REFERENCE_IDENT_H */
