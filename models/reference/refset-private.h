/* reference/refset-private.h — the insides of the reference set, for the files of
 * models/reference/ that walk its results (refset.c, and fit.c for the objective's residuals);
 * nothing outside models/reference/ includes it. */
#ifndef MODELS_REFERENCE_REFSET_PRIVATE_H
#define MODELS_REFERENCE_REFSET_PRIVATE_H
#include "models/reference/refset.h"

/* The figures of a result that enter the fit, one residual each (in this order). */
enum { FIG_GBPS, FIG_CPU, FIG_FABRIC, FIG_BOTTLENECK, FIG_HOT, FIG_COLD, N_RES_PER_ITEM };

typedef struct {
  char *file;
  Appliance *a;
  AppScenarioInfo info;
  double *shares;
  char *platform;           /* platform_name of its platform file */
  int group;                /* index of the first result of its group (reference.same_as), itself when alone */
  double w[N_RES_PER_ITEM]; /* weight of each figure: 1/sqrt(members of its group that publish it) */
} RefItem;

/* A quoted STREAM bandwidth (published.yaml platforms): the whole machine, GB/s. */
typedef struct {
  const char *platform; /* file under scenarios/platforms */
  int nps;
  double GBps, tol;
  const char *src;
} StreamRef;
#define REFSET_N_STREAM 4
extern const StreamRef REFSET_STREAM_REFS[REFSET_N_STREAM];

struct AppRefSet {
  GPtrArray *items; /* RefItem* */
  Appliance *stream_a[REFSET_N_STREAM];
  char *stream_platform[REFSET_N_STREAM];            /* platform_name of each STREAM figure */
  GPtrArray *platforms;                              /* char*, distinct item platforms in order of first result */
  gboolean bottleneck_term;                          /* the fit's objective holds the bottleneck term (fit_set_bottleneck_term) */
  double last_cov[COEFFS_N_FITTED][COEFFS_N_FITTED]; /* fit space covariance of the last fit (fit_last_covariance) */
};

/* Whether the reference @r publishes figure @f (FIG_*: a residual of the fit). */
gboolean refset_has_figure(const AppReference *r, int f);
/* Evaluates @it with coefficient set @c (NULL: its own) into *@row; optionally returns in
 * *@x_expected the throughput (Gb/s) at which the first resource of an expected kind would
 * saturate (the bottleneck term's residual). Error: the demand model cannot be built. */
gboolean refset_eval_item(RefItem *it, const Coeffs *c, AppRefRow *row, double *x_expected, GError **error);

#endif /* MODELS_REFERENCE_REFSET_PRIVATE_H */
