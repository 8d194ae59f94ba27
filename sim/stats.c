/* sim/stats.c — tallies, levels and rates with batch-means confidence intervals. */
#include "sim/stats.h"

#include <math.h>
#include <gsl/gsl_cdf.h>

/* Upper tail point of a two-sided 95 % Student t interval (t_{B-1, 0.975}, stats.h). */
#define SIM_STATS_T_P 0.975
/* Fewest batches sim_stats_precise trusts: the lower end of the 10 to 30 batches Schmeiser
 * (1982, "Batch size effects in the analysis of simulation output", Operations Research
 * 30(3)) recommends. */
#define SIM_STATS_MIN_PRECISE_BATCHES 10

const double sim_stat_quantile_p[SIM_STAT_NQUANT] = { 0.50, 0.90, 0.99, 0.999 };

static void stat_free(gpointer p)
{
  SimStat *st = p;
  for (int i = 0; i < SIM_STAT_NQUANT; i++)
    if (st->quant[i]) gsl_rstat_quantile_free(st->quant[i]);
  for (int i = 0; i < SIM_STAT_NQUANT; i++)
    if (st->bquant[i]) gsl_rstat_quantile_free(st->bquant[i]);
  g_free(st->bq);
  if (st->hist) gsl_histogram_free(st->hist);
  g_free(st->name);
  g_free(st);
}

SimStats *sim_stats_new(void)
{
  SimStats *set = g_new0(SimStats, 1);
  set->stats = g_ptr_array_new_with_free_func(stat_free);
  return set;
}

void sim_stats_free(SimStats *set)
{
  if (!set) return;
  g_ptr_array_free(set->stats, TRUE);
  g_free(set);
}

SimStat *sim_stats_add(SimStats *set, const char *name, SimStatKind kind)
{
  SimStat *st = g_new0(SimStat, 1);
  st->name = g_strdup(name);
  st->kind = kind;
  st->batch_span = 1;
  st->t_last = set->t_batch_start;
  g_ptr_array_add(set->stats, st);
  return st;
}

void sim_stat_keep_quantiles_of(SimStat *st, unsigned mask)
{
  g_return_if_fail(st->kind == SIM_STAT_TALLY);
  for (int i = 0; i < SIM_STAT_NQUANT; i++)
    if ((mask & (1u << i)) && !st->quant[i]) st->quant[i] = gsl_rstat_quantile_alloc(sim_stat_quantile_p[i]);
}

void sim_stat_keep_quantiles(SimStat *st)
{
  sim_stat_keep_quantiles_of(st, (1u << SIM_STAT_NQUANT) - 1);
}

void sim_stat_keep_batch_quantiles(SimStat *st, unsigned mask)
{
  g_return_if_fail(st->kind == SIM_STAT_TALLY);
  if (!st->bq) st->bq = g_new0(double, SIM_STAT_NQUANT *SIM_STATS_MAX_BATCHES);
  for (int i = 0; i < SIM_STAT_NQUANT; i++)
    if ((mask & (1u << i)) && !st->bquant[i]) st->bquant[i] = gsl_rstat_quantile_alloc(sim_stat_quantile_p[i]);
}

void sim_stat_keep_histogram(SimStat *st, size_t nbins, double lo, double hi)
{
  g_return_if_fail(st->kind == SIM_STAT_TALLY && nbins > 0 && hi > lo && !st->hist);
  st->hist = gsl_histogram_alloc(nbins);
  gsl_histogram_set_ranges_uniform(st->hist, lo, hi);
}

void sim_stat_observe(SimStat *st, double x)
{
  st->num += x;
  st->den += 1;
  for (int i = 0; i < SIM_STAT_NQUANT; i++)
    if (st->quant[i]) gsl_rstat_quantile_add(x, st->quant[i]);
  if (st->bq)
    for (int i = 0; i < SIM_STAT_NQUANT; i++)
      if (st->bquant[i]) gsl_rstat_quantile_add(x, st->bquant[i]);
  if (st->hist) {
    if (x < gsl_histogram_min(st->hist))
      st->under++;
    else if (x >= gsl_histogram_max(st->hist))
      st->over++;
    else
      gsl_histogram_increment(st->hist, x);
  }
}

void sim_stat_set_level(SimStat *st, sim_time_ns now_ns, double value)
{
  g_assert(now_ns >= st->t_last);
  st->num += st->level * (double)(now_ns - st->t_last);
  st->t_last = now_ns;
  st->level = value;
}

void sim_stats_reset(SimStats *set, sim_time_ns now_ns)
{
  for (guint i = 0; i < set->stats->len; i++) {
    SimStat *st = g_ptr_array_index(set->stats, i);
    st->num = st->den = 0;
    st->t_last = now_ns;
    st->nbatches = 0;
    st->batch_span = 1;
    st->pending = 0;
    st->partial = (SimBatch){ 0, 0 };
    for (int q = 0; q < SIM_STAT_NQUANT; q++)
      if (st->quant[q]) gsl_rstat_quantile_reset(st->quant[q]);
    for (int q = 0; q < SIM_STAT_NQUANT; q++)
      if (st->bquant[q]) gsl_rstat_quantile_reset(st->bquant[q]);
    if (st->hist) gsl_histogram_reset(st->hist);
    st->under = st->over = 0;
  }
  set->t_batch_start = set->t_reset = now_ns;
}

/* Appends one base batch; merges pairs when the store is full. */
static void push_batch(SimStat *st, SimBatch b)
{
  st->partial.num += b.num;
  st->partial.den += b.den;
  if (++st->pending < st->batch_span) return;
  if (st->bq)
    for (int q = 0; q < SIM_STAT_NQUANT; q++) {
      if (!st->bquant[q]) continue;
      st->bq[q * SIM_STATS_MAX_BATCHES + st->nbatches] = st->bquant[q]->n ? gsl_rstat_quantile_get(st->bquant[q]) : NAN;
      gsl_rstat_quantile_reset(st->bquant[q]);
    }
  st->batches[st->nbatches++] = st->partial;
  st->partial = (SimBatch){ 0, 0 };
  st->pending = 0;
  if (st->nbatches == SIM_STATS_MAX_BATCHES) {
    for (int i = 0; i < SIM_STATS_MAX_BATCHES / 2; i++) {
      st->batches[i].num = st->batches[2 * i].num + st->batches[2 * i + 1].num;
      st->batches[i].den = st->batches[2 * i].den + st->batches[2 * i + 1].den;
      if (st->bq)
        for (int q = 0; q < SIM_STAT_NQUANT; q++) {
          double *row = st->bq + q * SIM_STATS_MAX_BATCHES;
          row[i] = 0.5 * (row[2 * i] + row[2 * i + 1]);
        }
    }
    st->nbatches = SIM_STATS_MAX_BATCHES / 2;
    st->batch_span *= 2;
  }
}

void sim_stats_close_batch(SimStats *set, sim_time_ns now_ns)
{
  double dt_ns = (double)(now_ns - set->t_batch_start);
  g_assert(dt_ns > 0);
  for (guint i = 0; i < set->stats->len; i++) {
    SimStat *st = g_ptr_array_index(set->stats, i);
    SimBatch b;
    switch (st->kind) {
      case SIM_STAT_TALLY: b = (SimBatch){ st->num, st->den }; break;
      case SIM_STAT_LEVEL:
        sim_stat_set_level(st, now_ns, st->level);
        b = (SimBatch){ st->num, dt_ns };
        break;
      case SIM_STAT_RATE:
      default: b = (SimBatch){ st->num, dt_ns * 1e-9 }; break;
    }
    push_batch(st, b);
    st->num = st->den = 0;
  }
  set->t_batch_start = now_ns;
}

/* Mean and Student-t 95 % half-width of @n values (NAN below 2). */
static void t_interval(const double *x, int n, double *mean, double *half_width)
{
  double m = 0, ss = 0;
  for (int i = 0; i < n; i++) m += x[i];
  m /= n;
  for (int i = 0; i < n; i++) ss += (x[i] - m) * (x[i] - m);
  *mean = n > 0 ? m : NAN;
  *half_width = n >= 2 ? gsl_cdf_tdist_Pinv(SIM_STATS_T_P, n - 1) * sqrt(ss / (n - 1)) / sqrt((double)n) : NAN;
}

SimCi sim_stat_quantile_ci(const SimStat *st, int i)
{
  SimCi ci = { NAN, NAN, 0 };
  g_return_val_if_fail(i >= 0 && i < SIM_STAT_NQUANT, ci);
  if (!st->bq || !st->bquant[i]) return ci;
  double v[SIM_STATS_MAX_BATCHES];
  int n = 0;
  for (int b = 0; b < st->nbatches; b++) {
    double x = st->bq[i * SIM_STATS_MAX_BATCHES + b];
    if (isfinite(x)) v[n++] = x;
  }
  ci.batches = n;
  if (n > 0) t_interval(v, n, &ci.mean, &ci.half_width);
  return ci;
}

SimCi sim_stat_ci(const SimStat *st)
{
  SimCi ci = { NAN, NAN, 0 };
  double tot_num = 0, tot_den = 0;
  int n = 0;
  double means[SIM_STATS_MAX_BATCHES];
  for (int i = 0; i < st->nbatches; i++) {
    tot_num += st->batches[i].num;
    tot_den += st->batches[i].den;
    if (st->batches[i].den > 0) means[n++] = st->batches[i].num / st->batches[i].den;
  }
  tot_num += st->partial.num; /* batches waiting to be merged count in the estimate */
  tot_den += st->partial.den;
  if (tot_den > 0) ci.mean = tot_num / tot_den;
  ci.batches = n;
  if (n >= 2) {
    double m;
    t_interval(means, n, &m, &ci.half_width);
  }
  return ci;
}

double sim_stat_quantile(const SimStat *st, int i)
{
  g_return_val_if_fail(i >= 0 && i < SIM_STAT_NQUANT, NAN);
  if (!st->quant[i] || st->quant[i]->n == 0) return NAN;
  return gsl_rstat_quantile_get(st->quant[i]);
}

bool sim_stats_precise(SimStat *const *stats, double rel_target)
{
  for (; *stats; stats++) {
    SimCi ci = sim_stat_ci(*stats);
    if (ci.batches < SIM_STATS_MIN_PRECISE_BATCHES || !isfinite(ci.half_width) || ci.half_width > rel_target * fabs(ci.mean))
      return false;
  }
  return true;
}
