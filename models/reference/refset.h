/* reference/refset.h — the reference set: every scenario of scenarios/reference/ that reproduces a
 * published result, evaluated with the bound against the figures its `reference:` block publishes.
 *
 * What it does: loads each *.yaml with a reference block, resolves reference.same_as into groups
 * (one configuration, one figure: the fit weighs a group as one result), reads the quoted STREAM
 * figures of models/reference/published.yaml's platforms, and evaluates a result: throughput
 * within 10 %, CPU within 10 points, the published bottleneck kind, fabric and port figures
 * (APP_REF_TOLERANCE_PCT, APP_REF_CPU_TOLERANCE_PTS), each with its 80 % prediction interval.
 * Writes the reference table (`ocasim reference`) and the DES table (`ocasim reference --des`).
 * Sources: the published results of scenarios/reference/ and models/reference/published.yaml.
 * Leaves out: the fit of the shared coefficients (reference/fit.h).
 * Evidence and history: docs/model/fit.md.
 */
#ifndef MODELS_REFERENCE_REFSET_H
#define MODELS_REFERENCE_REFSET_H
#include "models/modes/report.h"

/* One result evaluated at a set of coefficients (refset_eval). */
typedef struct {
  char *file;
  char *id;
  double model_gbps, pub_gbps, err_pct;
  double model_cpu, pub_cpu; /* pub < 0: not published */
  char bottleneck[40];
  char cobottleneck[40]; /* expected-kind resource (demand_co_bottlenecks), "" if none */
  const char *kind;
  char *pub_bottleneck; /* NULL: not published */
  double stall_share;   /* remote-stall share of the bottleneck CPU's demand */
  double model_fab_util, pub_fab_util;
  double model_dram_GBps, pub_dram_GBps;
  double hot_gbps, cold_gbps, pub_hot, pub_cold;
  gboolean gbps_ok, cpu_ok, kind_ok, ok; /* strict: 10 %, 10 points, expected bottleneck */
  gboolean within_ci;                    /* within the CI bound: 10 % / 10 points, or a documented deviation's own bound */
  double iv_lo, iv_hi;                   /* the 80 % prediction interval of the throughput, Gb/s (refset_interval; 0: none) */
  gboolean known_deviation;
  char *platform; /* platform_name of the result's platform file */
  char *same_as;  /* reference.same_as (the first result of its group), NULL if none */
} AppRefRow;

typedef struct AppRefSet AppRefSet;

/* Loads every *.yaml of @dir that has a reference block, and the quoted STREAM figures' platform
 * files (@dir/../platforms). (transfer full) Errors: a file that does not load, a same_as that
 * names no result of the set, a result on another platform or of another configuration or
 * figure, or two results of one configuration and figure without same_as (G_FILE_ERROR_INVAL). */
AppRefSet *refset_load(const char *dir, GError **error);
/* Frees a set of refset_load (NULL is allowed). */
void refset_free(AppRefSet *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(AppRefSet, refset_free)
/* How many published results the set holds (results are indexed 0 .. size - 1). */
int refset_size(const AppRefSet *s);
/* Evaluates result @i with coefficients @c (NULL: each scenario's defaults) into *@row (cleared
 * with refset_row_clear). Error: the result's demand model cannot be built. */
gboolean refset_eval(AppRefSet *s, int i, const Coeffs *c, AppRefRow *row, GError **error);
/* Frees the strings of a row refset_eval() filled and zeroes it. */
void refset_row_clear(AppRefRow *row);
/* Index of the first result of result @i's group (reference.same_as), @i itself when alone. */
int refset_group(const AppRefSet *s, int i);
/* Platform (platform_name) of result @i. */
const char *refset_platform(const AppRefSet *s, int i);
/* How many distinct platforms the set holds. */
int refset_n_platforms(const AppRefSet *s);
/* The name of platform @k (0 .. refset_n_platforms - 1, in the order of their first result). */
const char *refset_platform_name(const AppRefSet *s, int k);
/* The @level prediction interval of result @i's throughput (modes/interval.h: APP_INTERVAL_DRAWS
 * draws) at coefficients @c with their fit-space covariance @cov (NULL: none), transfer spread
 * @tau and residual error @sigma (ln units), into row->iv_lo, iv_hi (Gb/s). Error: the interval
 * cannot be drawn (the message names the result). */
gboolean refset_interval(AppRefSet *s, int i, const Coeffs *c, const double cov[COEFFS_N_FITTED][COEFFS_N_FITTED], double tau,
                         double sigma, double level, AppRefRow *row, GError **error);
/* Runs every result through the discrete-event model (models/modes/des.h, the scenario's
 * duration and seed) and writes bound vs DES vs published, a row more than 10 % from the published
 * figure marked FAIL, or FAIL (documented) when within its documented deviation's bound; returns
 * the number of results outside both (or that did not run), and in *@documented (may be NULL)
 * the number outside 10 % but within their documented bound. */
int refset_des_table(AppRefSet *s, GString *out, int *documented);
/* Writes the reference table (id, model/published Gb/s, error, CPU, bottleneck, OK/FAIL against
 * the rule: 10 % throughput, 10 points CPU, the published bottleneck; "FAIL (documented)"
 * for a documented deviation that misses that rule but stays inside the bound its scenario
 * documents for CI) and, for each documented deviation, why it fails; returns the number of FAIL
 * rows (documented ones included), *ci_fails (may be NULL) the rows outside even the documented
 * bound. */
int refset_table(AppRefSet *s, const Coeffs *c, GString *out, int *ci_fails);

#endif /* MODELS_REFERENCE_REFSET_H */
