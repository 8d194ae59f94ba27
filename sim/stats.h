/* sim/stats.h — output statistics of a simulation run.
 *
 * What it models: ratios num/den accumulated per batch: tally (sum x_i / count), level
 * (integral of L dt / elapsed time), rate (count / elapsed s). sim_stats_reset() ends the warm-up.
 * Batch means: B equal-time batches (pairs merge past SIM_STATS_MAX_BATCHES), 95% half-width
 *     t_{B-1, 0.975} * s_B / sqrt(B)
 * Tallies may keep P-square quantiles (gsl_rstat_quantile), per-batch quantiles for their CI,
 * and a histogram with explicit under/overflow counts.
 * Sources: Law & Kelton, "Simulation Modeling and Analysis", 5th ed., 9.5.3; Jain & Chlamtac,
 * CACM 1985 (P-square); Seila, Oper. Res. 1982 (batch quantiles).
 * Leaves out: a merged pair's exact quantile (the pair's quantiles are averaged).
 * Evidence and history: docs/model/stats.md.
 */
#ifndef SIM_STATS_H
#define SIM_STATS_H

#include <stdbool.h>
#include <glib.h>
#include <gsl/gsl_histogram.h>
#include <gsl/gsl_rstat.h>
#include "sim/time.h"

/* Most batches kept before adjacent pairs merge (above; assumed: well above the 10 to 30 batch
 * means Schmeiser 1982 recommends, so a merge leaves at least 32). */
#define SIM_STATS_MAX_BATCHES 64

typedef enum { SIM_STAT_TALLY, SIM_STAT_LEVEL, SIM_STAT_RATE } SimStatKind;

/* Quantiles a tally can keep (p50, p90, p99, p99.9). */
#define SIM_STAT_NQUANT 4
extern const double sim_stat_quantile_p[SIM_STAT_NQUANT];

typedef struct {
  double num, den;
} SimBatch;

typedef struct SimStat {
  char *name;
  SimStatKind kind;
  /* current batch */
  double num, den;
  /* level: the current value and when it last changed */
  double level;
  sim_time_ns t_last;
  /* closed batches (merged pairwise when full) */
  SimBatch batches[SIM_STATS_MAX_BATCHES];
  int nbatches;
  int batch_span; /* how many base batches one stored batch holds */
  int pending;    /* base batches merged into batches[nbatches] so far */
  SimBatch partial;
  /* optional extras of a tally */
  gsl_rstat_quantile_workspace *quant[SIM_STAT_NQUANT];
  gsl_histogram *hist;
  uint64_t under, over;
  /* optional batch quantiles: an estimator restarted per stored batch, and each batch's value */
  gsl_rstat_quantile_workspace *bquant[SIM_STAT_NQUANT];
  double *bq; /* [SIM_STAT_NQUANT * SIM_STATS_MAX_BATCHES], row q: batch b's quantile (NAN if empty) */
} SimStat;

/* A set of statistics that share batch boundaries and warm-up. */
typedef struct {
  GPtrArray *stats; /* SimStat*, in creation order */
  sim_time_ns t_batch_start;
  sim_time_ns t_reset;
} SimStats;

/* A confidence interval: point estimate, 95% half-width (NAN if < 2 batches), batches used. */
typedef struct {
  double mean;
  double half_width;
  int batches;
} SimCi;

/* An empty set (transfer full: sim_stats_free, which frees its statistics too; NULL is allowed). */
SimStats *sim_stats_new(void);
void sim_stats_free(SimStats *set);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SimStats, sim_stats_free)

/* Adds a statistic named @name (copied) of @kind to @set; it belongs to the set. */
SimStat *sim_stats_add(SimStats *set, const char *name, SimStatKind kind);

/* Makes tally @st keep the p50/p90/p99/p99.9 streaming quantiles. */
void sim_stat_keep_quantiles(SimStat *st);

/* Makes tally @st keep the streaming quantiles whose bit (1u << index into
 *  sim_stat_quantile_p) is set in @mask; each estimator is independent, so a
 *  kept quantile has the same value as with sim_stat_keep_quantiles(), and
 *  sim_stat_quantile() of one not kept is NAN. */
void sim_stat_keep_quantiles_of(SimStat *st, unsigned mask);

/* Makes tally @st also keep, per batch, the quantiles whose bit is set in @mask (as
 *  sim_stat_keep_quantiles_of), for sim_stat_quantile_ci().  Costs one more P-square update
 *  per observation and kept quantile; the whole-run quantiles are unchanged. */
void sim_stat_keep_batch_quantiles(SimStat *st, unsigned mask);

/* Makes tally @st keep a histogram of @nbins equal bins over [@lo, @hi). */
void sim_stat_keep_histogram(SimStat *st, size_t nbins, double lo, double hi);

/* Records observation @x in tally @st. */
void sim_stat_observe(SimStat *st, double x);

/* Sets level @st to @value at time @now_ns (>= its last change). */
void sim_stat_set_level(SimStat *st, sim_time_ns now_ns, double value);

/* Adds @delta to level @st at time @now_ns. */
static inline void sim_stat_add_level(SimStat *st, sim_time_ns now_ns, double delta)
{
  sim_stat_set_level(st, now_ns, st->level + delta);
}

/* Counts @units in rate statistic @st. */
static inline void sim_stat_count(SimStat *st, double units)
{
  st->num += units;
}

/* Discards everything recorded before @now_ns (end of warm-up); levels keep their value. */
void sim_stats_reset(SimStats *set, sim_time_ns now_ns);

/* Closes the current batch of every statistic at @now_ns. */
void sim_stats_close_batch(SimStats *set, sim_time_ns now_ns);

/* The estimate and 95% CI of @st over the closed batches. */
SimCi sim_stat_ci(const SimStat *st);

/* Quantile @i (index into sim_stat_quantile_p) of a tally that keeps them; NAN otherwise. */
double sim_stat_quantile(const SimStat *st, int i);

/* Batch-quantile CI of quantile @i (index into sim_stat_quantile_p) of a tally that keeps batch
 *  quantiles: mean over the closed batches that saw an observation, 95 % half-width
 *  t_{B-1,0.975} s_B / sqrt(B) (NAN below 2 batches), batches used.  All NAN when not kept. */
SimCi sim_stat_quantile_ci(const SimStat *st, int i);

/* True when every statistic in @stats (NULL-terminated) has a 95% CI half-width
 *  at most @rel_target times |mean| (and at least 10 batches). */
bool sim_stats_precise(SimStat *const *stats, double rel_target);

#endif /* SIM_STATS_H */
