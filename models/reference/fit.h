/* reference/fit.h — the one joint fit of the shared coefficients over the reference set, and the
 * calibration protocol that measures what the fit predicts.
 *
 * What it does: minimises over the COEFFS_N_FITTED shared coefficients (coeffs.h, log or logit space)
 *     sum_i w_i^2 r_i^2,  r = (X/X_pub - 1)/0.10, (cpu - cpu_pub)/10, (u_fab - u_pub)/10,
 *                         STREAM (S/S_pub - 1)/0.10, prior (x - x0)/2
 * with gsl_multifit_nlinear (trust-region Levenberg-Marquardt); same_as groups weigh as one result.
 * Prediction: leave-one-out and leave-one-platform-out refits, each row with its 80 % interval;
 * the platform-transfer spread tau and the residual error sigma; the Jacobian that
 * identifiability reads (reference/ident.h).
 * Sources: the reference set (reference/refset.h).
 * Leaves out: the bottleneck as a fitted term (predicted; --bottleneck-term only for comparison).
 * Evidence and history: docs/model/fit.md.
 */
#ifndef MODELS_REFERENCE_FIT_H
#define MODELS_REFERENCE_FIT_H
#include "models/reference/ident.h"
#include "models/reference/refset.h"

/* Whether the objective holds the bottleneck term (default FALSE, see above). */
void fit_set_bottleneck_term(AppRefSet *s, gboolean on);
/* The setting of fit_set_bottleneck_term on @s. */
gboolean fit_bottleneck_term(const AppRefSet *s);
/* The fit space of fitted coefficient @j (coeffs_fitted_name): "logit" for an efficiency in
 * (0, 1) (dram_eff, port_eff), else "ln". */
const char *fit_coef_space(int j);
/* Fits the coefficients (in/out) leaving out the group of result `skip` (-1: none). Returns chi^2
 * in *chisq. Error (G_FILE_ERROR_FAILED): the GSL driver failed. */
gboolean fit_refset(AppRefSet *s, Coeffs *c, int skip, double *chisq, GError **error);
/* As fit_refset, leaving out every result on `platform` and its STREAM figures (NULL: none). */
gboolean fit_refset_without_platform(AppRefSet *s, Coeffs *c, const char *platform, double *chisq, GError **error);

/* The covariance, in fit space (ln, logit), of the coefficients the last fit_refset* on @s
 * returned: (J^T J)^-1 of its weighted residuals, priors included (zero when J^T J is singular). */
void fit_last_covariance(const AppRefSet *s, double cov[COEFFS_N_FITTED][COEFFS_N_FITTED]);

/* The platform-transfer spread of the stack costs (coeffs_scale_stack_costs) at coefficients @c,
 * leaving out the results @item_out[] (NULL: none): for every platform, the ln factor t_k on its
 * stack costs that best fits its own results (the objective's residuals of those results alone,
 * the shared coefficients held; a grid of TAU_GRID_STEP then TAU_FINE_STEP over +-TAU_T_MAX) and
 * its standard error from the profile likelihood: half the width of {t: chi2(t) <= chi2(t_k) + 1}
 * (Venzon and Moolgavkar, Applied Statistics 37, 1988). A platform whose chi^2 does not rise by 1
 * on both sides within +-TAU_T_MAX does not identify its factor (Raue et al., Bioinformatics 25,
 * 2009) and is left out. Where chi^2 is quadratic this is sqrt(2 / chi2''(t_k)), the curvature's
 * figure it replaces; but the bound is a min over resources, and at the kink where the stack costs
 * first bind the curvature calls a flat profile well determined (without the Broadwell rows the
 * Milan rows, NIC bound with no CPU figure, gave ln 1.225 +- 0.089 from a dip of 0.14 in chi^2,
 * and tau 0.826). Then tau^2 by DerSimonian and Laird (Controlled
 * Clinical Trials 7, 1986: tau^2 = max(0, (Q - (K - 1)) / (S1 - S2 / S1)), w_k = 1 / se_k^2) over
 * the K platforms whose results say anything (finite se). No factor is applied to any prediction:
 * tau only widens the intervals (modes/interval.h). @factor_ln, @factor_se (may be NULL; room
 * for refset_n_platforms) get each platform's t_k and se (NAN: not informative).
 * Error: a result cannot be evaluated. */
gboolean fit_transfer_tau(AppRefSet *s, const Coeffs *c, const gboolean *item_out, double *tau, double *factor_ln,
                          double *factor_se, GError **error);

/* The model's own residual error on throughput at coefficients @c, leaving out @item_out[] (NULL:
 * none): the root mean square of ln(model / published) over the distinct results (a same_as
 * group once) that are not documented deviations (reference.known_deviation: the model says it
 * cannot reproduce them). The in-fit residuals: an out-of-sample error is larger, which the
 * leave-one-out coverage measures. 0 when no result is left. Error: a result cannot be evaluated.
 * Not the part the other spreads leave unexplained: the intervals draw those spreads too, but a
 * method-of-moments split (sigma^2 = max(0, (sum e_i^2 - sum (1 - h_i) v_i) / sum (1 - h_i)), v_i
 * the variance of ln X_i the unfitted spreads give, h_i the row's leverage; Thompson and Sharp,
 * Statistics in Medicine 18, 1999) gave sigma 0.020 (0.000 without the leverage) and covered 10 of
 * 16 LOPO results (62 %, below the 70 % asked; git history, issue 28): the residuals are smaller
 * than the stated spreads predict because the fit absorbs the spreads' common shifts, which the
 * marginal v_i do not see. */
gboolean fit_model_sigma(AppRefSet *s, const Coeffs *c, const gboolean *item_out, double *sigma, GError **error);

/* Rounds each fitted coefficient of `fitted` to `digits` significant digits (to nearest: the
 * text %.<digits>g reads back as the value) into *out. Error (G_FILE_ERROR_FAILED): a result
 * cannot be evaluated, or the rounded set names another bottleneck (or co-bottleneck) on some
 * result than `fitted` does: then more digits must be written. */
gboolean fit_round_coeffs(AppRefSet *s, const Coeffs *fitted, int digits, Coeffs *out, GError **error);

/* What the fit predicts: every result with the fitted coefficients, with the fit that left out
 * its group (leave-one-out) and with the fit that left out its platform (LOPO). */
typedef struct {
  int n;               /* results */
  Coeffs fitted;       /* the coefficients of in_fit */
  AppRefRow *in_fit;   /* [n] */
  AppRefRow *loo;      /* [n], NULL when not run */
  AppRefRow *lopo;     /* [n], NULL when not run */
  int n_platforms;     /* as refset_n_platforms */
  char **platforms;    /* [n_platforms] */
  Coeffs *lopo_coeffs; /* [n_platforms] the fit without each platform, NULL when not run */
  int *group;          /* [n] as refset_group */
  double level;        /* of the intervals (APP_INTERVAL_LEVEL) */
  double tau;          /* the transfer spread over every platform (fit_transfer_tau) */
  double sigma;        /* the residual error over every result (fit_model_sigma) */
  double *factor_ln;   /* [n_platforms] each platform's own ln factor on the stack costs, NAN: its rows do not say */
  double *factor_se;   /* [n_platforms] its standard error */
} AppFitReport;

/* Evaluates every result with `fitted` and, when asked, refits (from coeffs_prior) without each
 * group (loo) and without each platform (lopo). Each row gets its 80 % prediction interval
 * (iv_lo, iv_hi; refset_interval) from the fit that predicts it: that fit's covariance
 * (fit_last_covariance), the transfer spread without the left-out results
 * (fit_transfer_tau), the fixed coefficients' ranges and the scenario's uncertainty:
 * entries and the refit's residual error (fit_model_sigma); in-fit rows from the fit over
 * everything (@fitted_spread). @fitted_spread NULL: no intervals at all (iv_lo = iv_hi = 0; the
 * transfer factors NAN, coverage not reported), the predictions alone.
 * (transfer full) Error: a refit failed. */
AppFitReport *fit_predict(AppRefSet *s, const Coeffs *fitted, const CoeffsSpread *fitted_spread, gboolean loo, gboolean lopo,
                          GError **error);
/* Frees a report of fit_predict (NULL is allowed). */
void fit_report_free(AppFitReport *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(AppFitReport, fit_report_free)

/* The identifiability of the coefficients @c over every result of @s: the Jacobian of the
 * objective's weighted residuals of the published figures and STREAM figures in fit space
 * (central differences; not the bottleneck term) at @c, then ident_solve. (transfer full)
 * Error: a result cannot be evaluated, or J^T J is singular. */
AppFitIdent *fit_identify(AppRefSet *s, const Coeffs *c, GError **error);

#endif /* MODELS_REFERENCE_FIT_H */
