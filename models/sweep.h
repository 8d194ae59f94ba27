/* models/sweep.h — a sweep of an appliance scenario: the sweep file, its points and seeds,
 * and one run of a point evaluated in-process (`ocasim sweep`, cli/cmd_sweep.c).
 *
 * What it models: the points, the cartesian product of the `vary:` entries (values, range, zip;
 * the last entry varying fastest), each value applied through the `--set` path so errors are
 * located (`SWEEP:LINE:COL: key.path: message`), `replications` runs per point.
 * Seeds: run (p, r) uses SHA-256("ocasim-sweep-v1\nseed=S\n" + "KEY=VALUE\n"... + "replication=R\n"),
 * first 8 bytes big-endian >> 11 (53 bits): stable across machines, threads and added points.
 * Results: one row per run (sweep_columns(), CSV or JSON Lines); replicated sweeps summarise each
 * numeric output per point by its mean and 95 % Student-t half-width.
 * Leaves out: adaptive designs (the file fixes the points); a point failing a cross-key check is a row with its error.
 * Evidence and history: docs/model/sweep.md.
 */
#ifndef MODELS_SWEEP_H
#define MODELS_SWEEP_H

#include <glib.h>
#include "models/appliance/app_enum.h"
#include "models/modes/bound.h"
#include "sim/conf.h"

#define SWEEP_MODE_MAP(X) X(SWEEP_BOUND, "bound") X(SWEEP_RUN, "run") X(SWEEP_CAPACITY, "capacity")
typedef enum { SWEEP_MODE_MAP(APP_ENUM_ID) SWEEP_MODE_COUNT } SweepMode;
APP_ENUM_DECLARE(sweep_mode);

/* capacity_latency: how mode capacity checks the p99 criterion: run, with DES runs (`ocasim run`)
 * at candidate loads as `ocasim capacity` does (capacity_des), or bound, the bound's
 * estimate (capacity_search: instant; within 2-9 % of the DES's limit on the Rome boxes). */
#define SWEEP_CAP_LATENCY_MAP(X) X(SWEEP_CAP_LATENCY_RUN, "run") X(SWEEP_CAP_LATENCY_BOUND, "bound")
typedef enum { SWEEP_CAP_LATENCY_MAP(APP_ENUM_ID) SWEEP_CAP_LATENCY_COUNT } SweepCapLatency;
APP_ENUM_DECLARE(sweep_cap_latency);

/* What a column holds: an integer, a number (NaN: empty / null), a boolean, a string, or a
 * varied input (its text as written; in JSON a number or boolean when it reads as one). */
typedef enum { SWEEP_COL_INT, SWEEP_COL_NUMBER, SWEEP_COL_BOOL, SWEEP_COL_STRING, SWEEP_COL_INPUT } SweepColType;

typedef struct {
  const char *name; /* column name: an output's name, or the key path of a varied input */
  SweepColType type;
  const char *unit; /* "Gb/s", "ms", "%", "fraction", or "" */
  const char *doc;  /* one line */
} SweepColumn;

typedef struct {
  gboolean missing; /* no value: empty in CSV, null in JSON */
  gint64 i;         /* INT */
  double x;         /* NUMBER */
  gboolean b;       /* BOOL */
  char *s;          /* STRING, INPUT (owned) */
} SweepCell;

/* One run's row: a cell per column of sweep_columns(). */
typedef struct {
  guint n;
  SweepCell *cells;
} SweepRow;

typedef struct SweepSpec SweepSpec;

/* Errors of sweep_row_parse_json: a row of another sweep or another ocasim (OTHER_SWEEP); a
 *  line that is not a row at all is G_FILE_ERROR_INVAL. */
#define SWEEP_ERROR (sweep_error_quark())
GQuark sweep_error_quark(void);
typedef enum { SWEEP_ERROR_OTHER_SWEEP } SweepError;

/* The binding schema of a sweep file's top level (kind, scenario, mode, replications, seed,
 *  set, vary), for documentation and JSON Schema (`ocasim schema sweep`): set and vary are NODE
 *  fields, read by sweep_load() itself.  Returns: a static SIM_CONF_END-terminated table. */
const SimConfField *sweep_conf_schema(void);

/* Loads the sweep file @path: reads the base scenario it names (with its platform), applies the
 *  file's `set:`, then @sets ("key.path=value" from the command line, or "--KEY=value" from an
 *  option that stands for the top-level KEY, e.g. --duration, named so in messages; may be NULL), then checks
 *  every value to vary as described above.  @seed, when >= 0, replaces the file's sweep seed.
 *  @includes: where the scenario's platform may come from (NULL: sim_conf_load_with_include()).
 *  @version: the ocasim_version column of every row (`ocasim --version`; must not be NULL).
 *  Errors: SIM_CONF_ERROR located in the sweep file (or in the scenario for a bad scenario);
 *  a CLI maps them to exit status 2.  Returns: (transfer full) or NULL. */
SweepSpec *sweep_load(const char *path, const char *const *sets, gint64 seed, const SimConfIncludePolicy *includes,
                      const char *version, GError **error);
/* Mode bound: every point's row carries its prediction interval at @level (0 < level < 1;
 * models/modes/interval.h: throughput_gbps_lo/hi, cpu_util_pct_lo/hi, interval_level,
 * bottleneck_probability), or none at 0 (the columns stay, empty). sweep_load sets
 * APP_INTERVAL_LEVEL. */
void sweep_set_interval(SweepSpec *s, double level);
/* Frees a spec of sweep_load (NULL is allowed). */
void sweep_free(SweepSpec *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SweepSpec, sweep_free)

/* The sweep file's mode: what every run evaluates (bound, run or capacity). */
SweepMode sweep_mode(const SweepSpec *s);
/* Points (the product of the axes' lengths), replications per point, runs (their product);
 *  run i is point i / replications, replication i % replications. */
guint sweep_n_points(const SweepSpec *s);
guint sweep_replications(const SweepSpec *s);
guint sweep_n_runs(const SweepSpec *s);
/* What every row of the sweep depends on, as a small text to store beside partial results:
 *  a line "sha256 HEX", the SHA-256 of every value of the sweep file and of the base scenario
 *  (its platform files, `set:` and the command line's overrides applied; each value as
 *  "KEY.PATH=TEXT", so comments and layout do not count), the sweep seed and @version; then
 *  "version V", "seed S" and a line "file HEX NAME" per file (or option) the values came from.
 *  The rows' id columns cannot tell an edited platform file: this does.  Owned by the spec. */
const char *sweep_inputs(const SweepSpec *s);
/* NULL when @stored (an earlier sweep_inputs() text) has this spec's digest; otherwise what
 *  differs, for a message ("scenarios/platforms/x.yaml changed; ..."). (transfer full) */
char *sweep_inputs_changed(const SweepSpec *s, const char *stored);
/* Number of varied keys and the key path of the @k-th (file order). */
guint sweep_n_keys(const SweepSpec *s);
const char *sweep_key(const SweepSpec *s, guint k);
/* The value text of key @k at point @p, as the sweep file writes it. */
const char *sweep_value(const SweepSpec *s, guint p, guint k);
/* The scenario seed of run (@p, @r), derived as described above. */
guint64 sweep_seed(const SweepSpec *s, guint p, guint r);

/* The warning of des_short_run_warning() for the sweep's base scenario (its `set:` and
 *  the command line's applied, no point's values) when the mode runs the DES at an offered load
 *  (run, with the base's load or a varied workload.offered; capacity with its latency check by
 *  run, at any load), or NULL: none, another mode,
 *  or a base scenario that does not build (its points then say why).  A point that varies the
 *  duration, warm-up, arrivals or segment_duration is not checked.  Returns: (transfer full). */
char *sweep_short_run_warning(const SweepSpec *s);

/* The row's columns (@n_out: how many); the varied keys follow the six id columns. */
const SweepColumn *sweep_columns(const SweepSpec *s, guint *n_out);

/* Evaluates run @run in-process (bound, DES or capacity by the mode) and returns its row; a
 *  point that fails gives a row with the error column set, never NULL.  Thread-safe. */
SweepRow *sweep_run(const SweepSpec *s, guint run);
/* What a thread's bound points keep for the next ones (sweep_run_memo): the bound's closed
 * estimates (BoundMemo) and the latest demand models by their point's values but for
 * workload.offered (demand_settle_at). Not thread-safe: one per thread. */
typedef struct SweepMemo SweepMemo;
/* A new empty memo. (transfer full) */
SweepMemo *sweep_memo_new(void);
/* Frees a memo (NULL is allowed). */
void sweep_memo_free(SweepMemo *memo);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SweepMemo, sweep_memo_free)
/* sweep_run() reusing, in mode bound, through @memo (NULL: none) what points that differ in the
 * offered load alone share: the demand model before settling (demand_settle_at, where it does not
 * depend on the load) and the closed estimate at X* (bound_eval_memo). The same row, bit for bit. */
SweepRow *sweep_run_memo(const SweepSpec *s, guint run, SweepMemo *memo);
/* Frees a row of sweep_run (NULL is allowed). */
void sweep_row_free(SweepRow *row);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SweepRow, sweep_row_free)

/* The CSV header line (with its newline). */
void sweep_csv_header(const SweepSpec *s, GString *out);
/* Appends @row as one CSV line (numbers with full precision, locale-independent; booleans
 *  true/false; empty when missing) and, as one JSON Lines object with the same names, keys
 *  in column order. */
void sweep_row_append_csv(const SweepSpec *s, const SweepRow *row, GString *out);
void sweep_row_append_json(const SweepSpec *s, const SweepRow *row, GString *out);
/* Reads back a JSON Lines row written by sweep_row_append_json (for resume and summaries).
 *  Errors: not a JSON object, a column missing or of the wrong type, a point or replication not
 *  in this sweep, an ocasim_version other than the spec's (a row of another build of ocasim). */
SweepRow *sweep_row_parse_json(const SweepSpec *s, const char *line, GError **error);
/* Whether the JSON Lines @line (as sweep_row_append_json writes it) is run @run of this very
 *  sweep: its id and input columns (point, replication, scenario, mode, seed, overrides, the
 *  varied values) are byte for byte those this sweep gives that run, so a row written with
 *  another --set, --seed or sweep file is not resumed as one of its rows. */
gboolean sweep_row_line_is_run(const SweepSpec *s, const char *line, guint run);
/* Whether the JSON Lines @line (as sweep_row_append_json writes it) is a failed run: its error
 *  column is not empty, or the line is not a row at all.  Reads the column by name, wherever
 *  it stands in the row. */
gboolean sweep_row_line_failed(const char *line);
/* Whether @row (of sweep_run) failed: its error column is not empty; sweep_row_line_failed of its
 * JSON Lines row, without writing and parsing it. */
gboolean sweep_row_failed(const SweepSpec *s, const SweepRow *row);

/* The summary of a replicated sweep: per point the varied keys, the runs and failed runs, and
 *  for each numeric output NAME the columns NAME_mean and NAME_ci95 (95 % half-width, Student t
 *  with replications - 1 degrees of freedom; empty below 2 successful runs).  @rows are the
 *  point's replications in order (@n of them).  Header and rows, CSV and JSON Lines. */
void sweep_summary_csv_header(const SweepSpec *s, GString *out);
void sweep_summary_append(const SweepSpec *s, guint point, SweepRow *const *rows, guint n, gboolean json, GString *out);

#endif /* MODELS_SWEEP_H */
