/* appliance_interval.h — prediction intervals: how sure the bound is of its throughput, CPU and
 * bottleneck, from the spread of every value it reads.
 *
 * What it models: the bound (appliance_bound.h) is a deterministic function X(theta) of the
 * values theta it reads. Each uncertain value is drawn from its own spread and the bound is
 * evaluated once per draw (Monte Carlo; the bound is about a millisecond per evaluation):
 *   - fitted coefficients (coeffs.h): jointly normal in fit space (ln, or logit of an efficiency)
 *     around the appliance's values with the fit's covariance (CoeffsSpread.cov_x, Cholesky);
 *   - fixed coefficients: each a split normal in ln space (logit for fabric_eff) with its median
 *     at the value and coeffs_fixed_range() as the central 95 % (sigma below = (ln v - ln lo) / 1.96,
 *     above = (ln hi - ln v) / 1.96); kind sourced, or assumed when its source says so;
 *   - the platform-transfer term: the stack costs fitted or cited on other platforms (page_cycles,
 *     copy_cpb, pkt_cycles, ack_cycles, irq_cycles, mapped_page_cycles) times one factor
 *     exp(N(0, tau^2)), tau = CoeffsSpread.tau_cpu_costs, the spread of the reference platforms'
 *     own factors (appliance_fit.h). No point factor is ever applied: the median stays 1, the
 *     term only widens. The costs a platform's `costs:` profile gives are its own measurement:
 *     they take the `costs` entry's spread (uncertainty.h; default APP_INTERVAL_COSTS_LOW/HIGH)
 *     instead of tau;
 *   - the model's own error: the saturation throughput X* times exp(N(0, sigma^2)), sigma =
 *     CoeffsSpread.sigma_gbps, the RMS of ln(model / published) over the fit's results (a
 *     prediction interval holds a new result, not the mean: parameter spread + residual error; the
 *     CPU % is left as the draw gives it);
 *   - the PCIe read round trip: one draw for the box, each link's read_rtt within its own
 *     read_rtt_lo..read_rtt_hi (pcie.h) read as the central 95 % (kind sourced where the range is a
 *     measured spread, PCIE_RTT_MEASURED_RATIO, else assumed);
 *   - the bulk cipher's cycles per byte where the crypto table prices it: the row's range
 *     (cpu_crypto_table_range) read as the central 95 %;
 *   - the file's `uncertainty:` entries (uncertainty.h): split normal factors on the file's value
 *     (an entry for pcie.read_rtt or cpu.crypto_cpb replaces the range above).
 * Each draw scales a copy of the appliance, builds its demand model with the point model's drive
 * shares (demand_build_shares) and evaluates the rates at the same offered load
 * (bound_eval_rates). The interval of a figure is the empirical quantiles (1 - level) / 2 and
 * (1 + level) / 2 of its draws (gsl_stats_quantile_from_sorted_data); the probability of a
 * resource kind being the bottleneck is the share of draws whose named bottleneck
 * (demand_name_bottleneck at X*) is of that kind. The contributors: every spread is swung alone
 * over its central 95 % (normal score -1.96 and +1.96; a fitted coefficient by its own standard
 * error), every other value at the appliance's, and its variance read as a linear response's,
 * ((ln X_hi - ln X_lo) / (2 x 1.96))^2; its share is that over the sum of all of them (a tornado
 * diagram's ranking: for a response linear in the normal scores with independent values, exactly
 * the first-order variance share, Saltelli et al., Global Sensitivity Analysis, 2008, ch. 1; the
 * swing to the range's end sees a value that only binds in its tail). Deterministic (2 bounds per
 * spread), where a share estimated from 256 draws is noisy by a few percent. Each swing's bound
 * gives both figures, so the same swings rank the values twice: by the variance of ln throughput
 * and by the variance of the CPU % (in points, the figure a planner sizes headroom by; at
 * saturation a value that moves X* moves the CPU % with it). The largest APP_INTERVAL_TOP of each
 * are listed; a swing that moves its figure by less than APP_INTERVAL_SWING_FLOOR of the point is
 * the solvers' rounding, not a response, and counts as none (an offered load served at every
 * swing's end: no throughput contributor). The model's own error is not a value a measurement
 * pins: its share of the throughput variance is said apart (model_error_share), not ranked among
 * the values; it moves the served throughput only, not the CPU % (above), so it has no CPU share.
 * The draws come from one gsl_rng stream named "interval" under the scenario's seed (sim_rng_new):
 * same scenario + seed gives the same interval, byte for byte.
 * Leaves out: model-form error beyond what the spreads carry (coverage is measured, not assumed:
 * `ocasim fit` reports how many published results the leave-one-out intervals hold), latency
 * intervals, and correlations between spreads other than the fitted coefficients'.
 */
#ifndef MODELS_APPLIANCE_INTERVAL_H
#define MODELS_APPLIANCE_INTERVAL_H
#include "models/appliance_bound.h"
#include <json-glib/json-glib.h>

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

/* What goes into an interval (app_interval_spec_default: all of it, the spread of coeffs.def). */
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

/* Everything: fitted, fixed and platform spreads, with models/coeffs.def's covariance and tau. */
void app_interval_spec_default(AppIntervalSpec *spec);

/* The interval of appliance @a at @offered_gbps (<= 0: saturate) at @level (0 < level < 1) from
 * @draws draws (>= 8), the spreads of @spec around @a's own values, with the drive shares
 * @drive_share (a->n_drives values; NULL: demand_build's), seeded by a->seed. Errors
 * (G_FILE_ERROR_FAILED): more than half of the draws give an appliance that cannot be built. */
gboolean app_interval_eval(const Appliance *a, const double *drive_share, double offered_gbps, const AppIntervalSpec *spec,
                           double level, int draws, AppInterval *out, GError **error);

/* Writes the interval's members into an open JSON object: "interval" {level, throughput_gbps
 * [lo, hi], cpu_util_pct [lo, hi], median_throughput_gbps, draws, draws_failed, model_error_share},
 * "bottleneck_probability" {kind: p, ...} (kinds with p > 0, in ResKind order),
 * "uncertainty_contributors" [{param, kind, variance_share, of, swing [lo, hi], pin_by, source}]:
 * the throughput's ranking ("of": "throughput_gbps"), then the CPU %'s ("of": "cpu_util_pct"). */
void app_interval_json(const AppInterval *iv, JsonBuilder *b);
/* Appends the table lines: the interval, the bottleneck probabilities and the contributors
 * ("uncertain:" the throughput's, "uncertain (cpu):" the CPU %'s). */
void app_interval_table(const AppInterval *iv, GString *out);

#endif /* MODELS_APPLIANCE_INTERVAL_H */
