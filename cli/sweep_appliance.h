/* cli/sweep_appliance.h — a sweep of an appliance scenario (`ocasim sweep`, cli/cmd_sweep.c): the
 * appliance half of sim/sweep.h, which runs the points, seeds, rows, resume and summaries.
 *
 * What it adds: the sweep file's `mode` (bound, run or capacity) and `capacity_latency`, the
 * appliance's output columns, and a point's evaluation exactly as `ocasim bound`, `run` or
 * `capacity` do (appliance_from_conf, demand_build, bound_eval / des_run / capacity_des); mode
 * bound's prediction interval columns; a per-thread memo that bound points differing in the
 * offered load alone share; the short-run warning of the base scenario.
 * Leaves out: sweeps of queueing-network scenarios; a point failing a cross-key check is a row
 * with its error. Evidence and history: docs/model/sweep.md.
 */
#ifndef CLI_SWEEP_APPLIANCE_H
#define CLI_SWEEP_APPLIANCE_H

#include <glib.h>
#include "models/appliance/app_enum.h"
#include "sim/conf.h"
#include "sim/sweep.h"

#define SWEEP_MODE_MAP(X) X(SWEEP_BOUND, "bound") X(SWEEP_RUN, "run") X(SWEEP_CAPACITY, "capacity")
typedef enum { SWEEP_MODE_MAP(APP_ENUM_ID) SWEEP_MODE_COUNT } SweepMode;
APP_ENUM_DECLARE(sweep_mode);

/* capacity_latency: how mode capacity checks the p99 criterion: run, with DES runs (`ocasim run`)
 * at candidate loads as `ocasim capacity` does (capacity_des), or bound, the bound's
 * estimate (capacity_search: instant; within 2-9 % of the DES's limit on the Rome boxes). */
#define SWEEP_CAP_LATENCY_MAP(X) X(SWEEP_CAP_LATENCY_RUN, "run") X(SWEEP_CAP_LATENCY_BOUND, "bound")
typedef enum { SWEEP_CAP_LATENCY_MAP(APP_ENUM_ID) SWEEP_CAP_LATENCY_COUNT } SweepCapLatency;
APP_ENUM_DECLARE(sweep_cap_latency);

typedef struct SweepAppliance SweepAppliance;

/* The binding schema of a sweep file's top level (kind, scenario, mode, capacity_latency,
 *  replications, seed, set, vary), for documentation and JSON Schema (`ocasim schema sweep`): set
 *  and vary are NODE fields, read by sim_sweep_load() itself.  Returns: a static SIM_CONF_END-terminated table. */
const SimConfField *sweep_appliance_schema(void);

/* Loads the sweep file @path of an appliance scenario (sim_sweep_load: @sets, @seed, @includes and
 *  @version as there) and gives it the columns of its mode; the intervals of mode bound are at
 *  APP_INTERVAL_LEVEL until sweep_appliance_set_interval.
 *  Errors: SIM_CONF_ERROR located in the sweep file (or in the scenario for a bad scenario);
 *  a CLI maps them to exit status 2.  Returns: (transfer full) or NULL. */
SweepAppliance *sweep_appliance_load(const char *path, const char *const *sets, gint64 seed, const SimConfIncludePolicy *includes,
                                     const char *version, GError **error);
/* Frees a sweep of sweep_appliance_load (NULL is allowed). */
void sweep_appliance_free(SweepAppliance *sa);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SweepAppliance, sweep_appliance_free)

/* The generic sweep (points, seeds, rows, resume, summaries); its sim_sweep_run evaluates a point
 *  by the mode, given a SweepMemo (or NULL) as its worker.  Owned by @sa. */
const SimSweep *sweep_appliance_sweep(const SweepAppliance *sa);
/* The sweep file's mode: what every run evaluates (bound, run or capacity). */
SweepMode sweep_appliance_mode(const SweepAppliance *sa);

/* Mode bound: every point's row carries its prediction interval at @level (0 <= level < 1;
 *  models/modes/interval.h: throughput_gbps_lo/hi, cpu_util_pct_lo/hi, interval_level,
 *  bottleneck_probability), or none at 0 (the columns stay, empty).  The level joins the inputs
 *  digest (sim_sweep_inputs_mix "interval"), so --resume at another level is refused. */
void sweep_appliance_set_interval(SweepAppliance *sa, double level);

/* The warning of des_short_run_warning() for the sweep's base scenario (its `set:` and
 *  the command line's applied, no point's values) when the mode runs the DES at an offered load
 *  (run, with the base's load or a varied workload.offered; capacity with its latency check by
 *  run, at any load), or NULL: none, another mode,
 *  or a base scenario that does not build (its points then say why).  A point that varies the
 *  duration, warm-up, arrivals or segment_duration is not checked.  Returns: (transfer full). */
char *sweep_appliance_short_run_warning(const SweepAppliance *sa);

/* What a thread's bound points keep for the next ones (sim_sweep_run's worker): the bound's closed
 * estimates (BoundMemo) and the latest demand models by their point's values but for
 * workload.offered (demand_settle_at). The same rows, bit for bit. Not thread-safe: one per thread. */
typedef struct SweepMemo SweepMemo;
/* A new empty memo. (transfer full) */
SweepMemo *sweep_memo_new(void);
/* Frees a memo (NULL is allowed). */
void sweep_memo_free(SweepMemo *memo);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SweepMemo, sweep_memo_free)

#endif /* CLI_SWEEP_APPLIANCE_H */
