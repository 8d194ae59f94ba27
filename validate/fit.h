/* validate/fit.h — calibration of the host profile: weighted nonlinear least
 * squares (GSL gsl_multifit_nlinear, trust region / Levenberg-Marquardt) of the
 * analytic host model against measured runs and microbenchmark priors.
 */
#ifndef OCASIM_VALIDATE_FIT_H
#define OCASIM_VALIDATE_FIT_H

#include <glib.h>

#include "validate/predict.h"

G_BEGIN_DECLS

/* One measured configuration: values and their standard deviations (same units). */
typedef struct {
  ValHostConfig cfg;
  double server_cpb, client_cpb, softirq_cpb, gbps;
  double sd_server, sd_client, sd_softirq, sd_gbps; /* <= 0: that observable is not used */
} ValFitObs;

/* A direct measurement of one parameter (e.g. AEAD cycles/B from the EVP
 * microbenchmark), entering the fit as an extra residual (value - p) / sd; or, with
 * lower_bound, a soft bound p >= value: the residual is (p - value) / sd below value and 0
 * above (a cost cannot be negative). */
typedef struct {
  ValParam param;
  double value, sd;
  gboolean lower_bound;
} ValFitPrior;

typedef struct {
  int nobs; /* residuals used */
  int npar; /* free parameters */
  int iterations;
  double chi2, dof, chi2_dof;
  int gsl_status;
  char message[96];
} ValFitStats;

/* Fits the free parameters of *start (fixed[p] TRUE keeps p; parameters no
 * residual depends on are fixed automatically) and writes the result with
 * standard errors (scaled by sqrt(chi2/dof) when that exceeds 1) to *out.  A parameter with a
 * physical range (val_param_range) is fitted inside it (a logistic coordinate) and flagged
 * out->at_bound when it ends on an edge.  Errors: fewer residuals than free parameters, GSL
 * failure. */
gboolean val_fit_host(const ValFitObs *obs, int nobs, const ValFitPrior *priors, int npriors, const ValHostProfile *start,
                      const gboolean fixed[VAL_P_COUNT], ValHostProfile *out, ValFitStats *stats, GError **error);

G_END_DECLS
#endif
