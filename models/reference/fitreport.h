/* reference/fitreport.h — what `ocasim fit` prints of a fit and its predictions: the leave-one-out
 * and leave-one-platform-out tables, each LOPO fit's coefficients, the median and worst errors,
 * the coverage of the 80 % intervals with each platform's transfer factor, and fit.json.
 *
 * A result of a same_as group counts once (with the result it names: the same prediction);
 * errors are in % of the published throughput and in points of CPU.
 * Sources: the fit's predictions (reference/fit.h) and identifiability (reference/ident.h).
 * Evidence and history: docs/model/fit.md; the formats: docs/outputs.md.
 */
#ifndef MODELS_REFERENCE_FITREPORT_H
#define MODELS_REFERENCE_FITREPORT_H
#include "models/reference/fit.h"

/* The predictions of an AppFitReport: in-fit, leave-one-out, leave-one-platform-out. */
typedef enum { APP_FIT_IN_FIT, APP_FIT_LOO, APP_FIT_LOPO, APP_FIT_N_KINDS } AppFitKind;
/* The coverage of one prediction's intervals over the distinct results (a same_as group once). */
typedef struct {
  int results;                  /* distinct results */
  int inside;                   /* of them, those whose published throughput lies inside the interval */
  double median_half_width_pct; /* half-width as % of the prediction, median over the results; NAN: none */
  double widest_half_width_pct; /* the widest of them (0: none) */
} AppFitCoverage;

/* Coverage of the intervals: for in-fit and each prediction run, how many distinct results'
 * published throughput lies inside the row's interval, and the median half-width of the
 * intervals as % of the prediction; then each platform's own stack-cost factor and tau. */
void fitreport_coverage(const AppFitReport *r, GString *out);
/* The coverage of prediction @kind's intervals into *@cov, the figures of the table of
 * fitreport_coverage and of fitreport_json's `coverage`; FALSE when @kind was not run. */
gboolean fitreport_coverage_of(const AppFitReport *r, AppFitKind kind, AppFitCoverage *cov);
/* The leave-one-out table: in-fit, left-out and published Gb/s, error, CPU error, whether the
 * left-out prediction names the published bottleneck (needs loo). */
void fitreport_loo_table(const AppFitReport *r, GString *out);
/* The LOPO table: platform, in-fit, LOPO and published Gb/s, error, CPU error, the LOPO
 * bottleneck and whether its kind is the published one (needs lopo). */
void fitreport_lopo_table(const AppFitReport *r, GString *out);
/* The coefficients of each LOPO fit next to the fit over every result (needs lopo). */
void fitreport_lopo_coeffs_table(const AppFitReport *r, GString *out);
/* Median and worst throughput error (%), CPU error (points), rows within 10 / 20 % and
 * bottlenecks as published, for in-fit and each prediction that was run, over the distinct
 * results (a same_as result counts with the one it names). */
void fitreport_summary(const AppFitReport *r, GString *out);
/* The fit as JSON (build/fit/fit.json): objective, fixed_coefficients[] (name, value, source:
 * not fitted), coefficients[] (name, value, stderr, identified_by[], ...), correlation, lopo_fits[], rows[] (id, platform,
 * published / in-fit / LOO / LOPO throughput, CPU %, bottleneck and 80 % interval, PREFIX_interval_gbps [lo, hi]), the
 * summary and the intervals' coverage (fitreport_coverage_of); a prediction not run is null. */
void fitreport_json(const AppRefSet *s, const AppFitReport *r, const AppFitIdent *id, double chisq, GString *out);

#endif /* MODELS_REFERENCE_FITREPORT_H */
