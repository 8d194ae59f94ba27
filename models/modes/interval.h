/* modes/interval.h — prediction intervals: how sure the bound is of its throughput, CPU and
 * bottleneck, from the spread of every value it reads.
 *
 * What it models: the bound X(theta) evaluated once per Monte Carlo draw of theta: fitted
 * coefficients jointly normal (fit covariance), fixed ones split normal in ln space over
 * coeffs_fixed_range(), a platform-transfer factor exp(N(0, tau^2)), the model's own error
 * X* exp(N(0, sigma^2)), PCIe read_rtt and crypto ranges, the file's `uncertainty:` entries.
 * Intervals: quantiles (1 -+ level) / 2 of the draws; bottleneck probability: share of draws.
 * Contributors: each spread swung alone over its central 95 %, variance share
 *     ((ln X_hi - ln X_lo) / (2 x 1.96))^2 / sum
 * Sources: Saltelli et al., Global Sensitivity Analysis, 2008, ch. 1. One "interval" rng stream.
 * Leaves out: model-form error beyond what the spreads carry (coverage is measured by `ocasim fit`),
 * latency intervals, and correlations between spreads other than the fitted coefficients'.
 * Evidence and history: docs/model/interval.md.
 */
#ifndef MODELS_MODES_INTERVAL_H
#define MODELS_MODES_INTERVAL_H
#include "models/modes/bound.h"

/* Draws per interval: the 10 % and 90 % quantiles of 256 draws have a binomial standard error of
 * sqrt(0.1 x 0.9 / 256) = 1.9 % in probability, a few tenths of a percent of throughput on the
 * published rows, and 256 bounds cost about 0.1-0.3 s (make bench). */
#define APP_INTERVAL_DRAWS 256
/* The default level of an interval (--interval LEVEL): 80 %, the central band a planner reads. */
#define APP_INTERVAL_LEVEL 0.8
/* Contributors a report lists, per figure. */
#define APP_INTERVAL_TOP 3
/* A swing that moves its figure by less than this fraction of the point figure counts as none:
 * the bound's solvers agree to about 1e-9 relative (issue 34's comparison of two implementations),
 * so a move below 1e-7 is their rounding, not the value's effect. */
#define APP_INTERVAL_SWING_FLOOR 1e-7
/* The spread of a measured `costs:` profile when the file gives no `costs` entry (factors, central
 * 95 %): assumed +-10 %, the run-to-run spread of a microbenchmark's cycles on one host. */
#define APP_INTERVAL_COSTS_LOW  0.9
#define APP_INTERVAL_COSTS_HIGH 1.1
/* Most fixed coefficients a draw holds (array size; assumed: twice the 9 of coeffs.c). */
#define APP_INTERVAL_MAX_FIXED 18
/* Most spreads of one appliance: fitted + fixed coefficients, the transfer term, the model's error,
 * the costs profile, the read round trip, the crypto table row, the file's entries. */
#define APP_INTERVAL_MAX_DIMS (COEFFS_N_FITTED + APP_INTERVAL_MAX_FIXED + 5 + UNC_MAX_ENTRIES)

/* What goes into an interval (interval_spec_default: all of it, the spread of coeffs.def). */
typedef struct {
  gboolean fitted;          /* the fitted coefficients' covariance */
  gboolean fixed;           /* the fixed coefficients' ranges */
  gboolean platform;        /* the appliance's `uncertainty:` entries and its measured costs' spread */
  gboolean no_contributors; /* TRUE: no swings, no contributors (the fit's coverage reads only the interval) */
  CoeffsSpread spread;      /* covariance and tau */
} AppIntervalSpec;

/* One spread's share of the variance, with what would pin it. */
typedef struct {
  char name[48];      /* "coef.page_cycles", "transfer.cpu_costs", "memory.latency" */
  const char *kind;   /* unc_kind_names */
  double share;       /* its share of the figure's variance, 0..1 (the swings' variances, above) */
  double swing[2];    /* the figure with this value alone at the low and the high end of its central 95 % */
  const char *pin_by; /* the measurement that would pin it (static text) */
  char source[200];   /* where its spread comes from */
} AppIntervalContrib;

/* The figures the contributors are ranked by. */
typedef enum { APP_IV_GBPS, APP_IV_CPU, APP_IV_FIGURES } AppIntervalFigure;

/* One figure's ranking. */
typedef struct {
  const char *of;           /* "throughput_gbps" or "cpu_util_pct" (the JSON member the swings are of) */
  double model_error_share; /* the model's residual error's first-order share of the figure's variance (0 for the CPU %) */
  int n_top;                /* 0: nothing moves the figure (an offered load served at every swing's end) */
  AppIntervalContrib top[APP_INTERVAL_TOP];
  /* every assumed value (kind "assumed": no source, a stated range), in the ranking's order, with
   * its share (0 where its swing moves nothing): how much of the figure rests on assumptions */
  int n_assumed;
  double assumed_share; /* their summed share */
  struct {
    char name[48];
    double share;
  } assumed[APP_INTERVAL_MAX_DIMS];
} AppIntervalRank;

typedef struct {
  double level;              /* 0 < level < 1 */
  int draws, failed;         /* draws made; of them, draws whose appliance could not be built (left out) */
  double throughput_gbps[2]; /* lo, hi */
  double cpu_util_pct[2];    /* lo, hi (mean over nodes, as the report's cpu_util_pct) */
  double median_gbps;
  double bottleneck_prob[RK_COUNT];        /* share of draws per resource kind of the named bottleneck */
  AppIntervalRank contrib[APP_IV_FIGURES]; /* by the throughput's variance, by the CPU %'s */
} AppInterval;

/* Everything: fitted, fixed and platform spreads, with models/appliance/coeffs.def's covariance and tau. */
void interval_spec_default(AppIntervalSpec *spec);

/* The interval of appliance @a at @offered_gbps (<= 0: saturate) at @level (0 < level < 1) from
 * @draws draws (>= 8), the spreads of @spec around @a's own values, with the drive shares
 * @drive_share (a->n_drives values; NULL: demand_build's), seeded by a->seed. Errors
 * (G_FILE_ERROR_FAILED): more than half of the draws give an appliance that cannot be built. */
gboolean interval_eval(const Appliance *a, const double *drive_share, double offered_gbps, const AppIntervalSpec *spec,
                       double level, int draws, AppInterval *out, GError **error);

#endif /* MODELS_MODES_INTERVAL_H */
