/* sim/sweep.h — a generic experiment runner: a sweep file's points, seeds and rows, knowing no model.
 *
 * What it runs: the points, the cartesian product of the `vary:` entries (values, range, zip; the
 * last entry varying fastest), each value applied to a base scenario through the `--set` path so
 * errors are located (`SWEEP:LINE:COL: key.path: message`), `replications` runs per point. What a
 * run computes is the caller's: a callback evaluates run (p, r) on the scenario and fills the
 * caller's columns (cli/sweep_appliance.h for appliances).
 * Seeds: run (p, r) uses SHA-256("ocasim-sweep-v1\nseed=S\n" + "KEY=VALUE\n"... + "replication=R\n"),
 * first 8 bytes big-endian >> 11 (53 bits): stable across machines, threads and added points.
 * Results: one row per run (id columns, the varied keys, the caller's, error, version), CSV or JSON
 * Lines, read back for resume; replicated sweeps summarise each numeric output per point by its mean
 * and 95 % Student-t half-width.
 * Leaves out: adaptive designs (the file fixes the points). Evidence and history: docs/model/sweep.md.
 */
#ifndef SIM_SWEEP_H
#define SIM_SWEEP_H

#include <glib.h>
#include <stddef.h>
#include "sim/conf.h"

/* Most replications of a point (the text of the replications row's .max). */
#define SIM_SWEEP_MAX_REPLICATIONS "10000"

/* What a column holds: an integer, a number (NaN: empty / null), a boolean, a string, or a
 * varied input (its text as written; in JSON a number or boolean when it reads as one). */
typedef enum {
  SIM_SWEEP_COL_INT,
  SIM_SWEEP_COL_NUMBER,
  SIM_SWEEP_COL_BOOL,
  SIM_SWEEP_COL_STRING,
  SIM_SWEEP_COL_INPUT
} SimSweepColType;

typedef struct {
  const char *name; /* column name: an output's name, or the key path of a varied input */
  SimSweepColType type;
  const char *unit; /* "Gb/s", "ms", "%", "fraction", or "" */
  const char *doc;  /* one line */
} SimSweepColumn;

typedef struct {
  gboolean missing; /* no value: empty in CSV, null in JSON */
  gint64 i;         /* INT */
  double x;         /* NUMBER */
  gboolean b;       /* BOOL */
  char *s;          /* STRING, INPUT (owned) */
} SimSweepCell;

/* One run's row: a cell per column of sim_sweep_columns(). */
typedef struct {
  guint n;
  SimSweepCell *cells;
} SimSweepRow;

typedef struct SimSweep SimSweep;

/* Errors of sim_sweep_row_parse_json: a row of another sweep or another version (OTHER_SWEEP); a
 *  line that is not a row at all is G_FILE_ERROR_INVAL. */
#define SIM_SWEEP_ERROR (sim_sweep_error_quark())
GQuark sim_sweep_error_quark(void);
typedef enum { SIM_SWEEP_ERROR_OTHER_SWEEP } SimSweepError;

/* The sweep file's own top-level keys, a member of the struct the caller's schema binds. */
typedef struct {
  char *kind;              /* "sweep" or NULL */
  char *scenario;          /* the base scenario, relative to the sweep file */
  int replications;        /* runs per point */
  int64_t seed;            /* the sweep seed */
  const SimConfNode *set;  /* fixed overrides: key.path: value */
  const SimConfNode *vary; /* the keys to vary */
} SimSweepFile;

/* Schema rows binding the SimSweepFile member @m of the caller's struct @T (sim_sweep_load's
 * class->schema holds them all, the caller's own rows between them in the order it documents). */
#define SIM_SWEEP_ROW_KIND(T, m)                                                                       \
  {                                                                                                    \
    .key = "kind", .type = SIM_CONF_T_STRING, .offset = offsetof(T, m.kind), .doc = "sweep (optional)" \
  }
#define SIM_SWEEP_ROW_SCENARIO(T, m, doc_)                                                                         \
  {                                                                                                                \
    .key = "scenario", .type = SIM_CONF_T_STRING, .offset = offsetof(T, m.scenario), .required = true, .doc = doc_ \
  }
#define SIM_SWEEP_ROW_REPLICATIONS(T, m, doc_)                                                                    \
  {                                                                                                               \
    .key = "replications", .type = SIM_CONF_T_INT, .offset = offsetof(T, m.replications), .def = "1", .min = "1", \
    .max = SIM_SWEEP_MAX_REPLICATIONS, .doc = doc_                                                                \
  }
#define SIM_SWEEP_ROW_SEED(T, m)                                                                                            \
  {                                                                                                                         \
    .key = "seed", .type = SIM_CONF_T_INT64, .offset = offsetof(T, m.seed), .def = "1", .min = "0", .doc = "the sweep seed" \
  }
#define SIM_SWEEP_ROW_SET(T, m)                                                                                    \
  {                                                                                                                \
    .key = "set", .type = SIM_CONF_T_NODE, .offset = offsetof(T, m.set), .doc = "fixed overrides: key.path: value" \
  }
#define SIM_SWEEP_ROW_VARY(T, m)                                                                     \
  {                                                                                                  \
    .key = "vary", .type = SIM_CONF_T_NODE, .offset = offsetof(T, m.vary), .doc = "the keys to vary" \
  }

/* One run as the evaluation callback sees it. */
typedef struct {
  guint point, replication;
  const SimConfNode *root; /* the base scenario with the point's values and its seed applied */
  SimSweepCell *out;       /* the caller's columns' cells, in order, all missing on entry */
  gpointer worker;         /* what sim_sweep_run's caller passed (per-thread state), or NULL */
  gboolean seed_bound;     /* set by the callback once the scenario bound: then seed is the seed it */
  gint64 seed;             /*   runs with (a sweep that varies `seed` shows it in the seed column) */
} SimSweepPoint;

/* Evaluates @point into point->out; FALSE with @error: the row's error column (the sweep goes on). Called from
 *  any thread at once: @ctx must only be read. */
typedef gboolean (*sim_sweep_evaluate_fn)(const SimSweep *sweep, SimSweepPoint *point, void *ctx, GError **error);
/* Whether the scenario @root binds (the base, and each varied value alone on it); FALSE with @error. */
typedef gboolean (*sim_sweep_bind_fn)(const SimConfNode *root, void *ctx, GError **error);
/* The caller's checks of the sweep file once its points are read: @conf is its bound struct, @root the
 *  file's root (to locate an error). FALSE with @error (SIM_CONF_ERROR). */
typedef gboolean (*sim_sweep_check_fn)(const SimSweep *sweep, const void *conf, const SimConfNode *root, void *ctx,
                                       GError **error);

/* What a caller plugs in. */
typedef struct {
  const SimConfField *schema;        /* the sweep file's top level: the SIM_SWEEP_ROW_* rows and the caller's */
  gsize file_offset;                 /* offsetof(the caller's struct, its SimSweepFile member) */
  const char *include_key;           /* the scenario's include key, e.g. "platform" (never overridden) */
  const char *scenario_kind;         /* the kind the base scenario must be, e.g. "appliance" */
  const char *scenario_noun;         /* that scenario in a message: "an appliance scenario" */
  const char *const *scenario_kinds; /* kinds of a scenario given for a sweep file (said at kind:), NULL-terminated */
  sim_sweep_check_fn check;          /* NULL: none */
  sim_sweep_bind_fn bind;            /* NULL: every scenario binds */
  sim_sweep_evaluate_fn evaluate;    /* required */
} SimSweepClass;

/* Loads the sweep file @path: binds its top level with @cls->schema into @conf (the caller's zeroed
 *  struct; the caller reads its own keys there and sim_conf_unbind()s it, whatever the result), reads
 *  the base scenario it names (with its includes, under @includes; NULL: sim_conf_load_with_include()),
 *  applies the file's `set:`, then @sets ("key.path=value" from the command line, or "--KEY=value" from
 *  an option that stands for the top-level KEY, e.g. --duration, named so in messages; may be NULL),
 *  reads `vary:`, runs @cls->check, then checks the base and every value alone on it with @cls->bind
 *  (an error located at the value is the file's; any other is left to the points).  @seed, when >= 0,
 *  replaces the file's sweep seed.  @version: every row's version column (must not be NULL).  @ctx:
 *  given to the callbacks, kept for sim_sweep_run.  Then the caller gives its columns
 *  (sim_sweep_set_columns) before any row.
 *  Errors: SIM_CONF_ERROR located in the sweep file (or in the scenario for a bad scenario).
 *  Returns: (transfer full) or NULL. */
SimSweep *sim_sweep_load(const char *path, const SimSweepClass *cls, void *conf, const char *const *sets, gint64 seed,
                         const SimConfIncludePolicy *includes, const char *version, void *ctx, GError **error);
/* Frees a sweep of sim_sweep_load (NULL is allowed). */
void sim_sweep_free(SimSweep *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SimSweep, sim_sweep_free)

/* Sets the rows' columns: the six id columns (point, replication, scenario, mode: @mode, seed,
 *  overrides), the varied keys, @outputs (@n of them, copied; names and docs must outlive @s), then
 *  error and version; and the summary's (point, the keys, runs, failed, NAME_mean and NAME_ci95 per
 *  numeric output but *_ci95, version).  Once, after sim_sweep_load. */
void sim_sweep_set_columns(SimSweep *s, const char *mode, const SimSweepColumn *outputs, guint n);

/* Points (the product of the axes' lengths), replications per point, runs (their product);
 *  run i is point i / replications, replication i % replications. */
guint sim_sweep_n_points(const SimSweep *s);
guint sim_sweep_replications(const SimSweep *s);
guint sim_sweep_n_runs(const SimSweep *s);
/* The base scenario: its file, its includes, `set:` and the command line applied (borrowed). */
const SimConfNode *sim_sweep_base(const SimSweep *s);
/* Number of varied keys and the key path of the @k-th (file order). */
guint sim_sweep_n_keys(const SimSweep *s);
const char *sim_sweep_key(const SimSweep *s, guint k);
/* Whether the sweep varies the key @path. */
gboolean sim_sweep_varies(const SimSweep *s, const char *path);
/* The index of key @k's value at point @p among the values of its entry (mixed radix, the last axis
 *  fastest), and that value's text as the sweep file writes it. */
guint sim_sweep_value_index(const SimSweep *s, guint p, guint k);
const char *sim_sweep_value(const SimSweep *s, guint p, guint k);
/* The scenario seed of run (@p, @r), derived as described above. */
guint64 sim_sweep_seed(const SimSweep *s, guint p, guint r);

/* What every row of the sweep depends on, as a small text to store beside partial results:
 *  a line "sha256 HEX", the SHA-256 of every value of the sweep file and of the base scenario
 *  (its includes, `set:` and the command line's overrides applied; each value as "KEY.PATH=TEXT",
 *  so comments and layout do not count), the sweep seed and the version; then "version V",
 *  "seed S", a line "TAG VALUE" per sim_sweep_inputs_mix and a line "file HEX NAME" per file (or
 *  option) the values came from.  The rows' id columns cannot tell an edited platform file: this
 *  does.  Owned by the sweep. */
const char *sim_sweep_inputs(const SimSweep *s);
/* Mixes @value (what the rows also depend on, e.g. the level of intervals) into the digest as a line
 *  "@tag VALUE" (%.12g) and into the sha256 line's hash (SHA-256 of the old hash, "\n@tag=VALUE\n" at
 *  %.17g); a later call with the same @tag replaces it.  @what names it in sim_sweep_inputs_changed
 *  ("prediction intervals at level"; static). */
void sim_sweep_inputs_mix(SimSweep *s, const char *tag, double value, const char *what);
/* NULL when @stored (an earlier sim_sweep_inputs() text) has this sweep's digest; otherwise what
 *  differs, for a message ("scenarios/platforms/x.yaml changed; ..."). (transfer full) */
char *sim_sweep_inputs_changed(const SimSweep *s, const char *stored);

/* The row's columns (@n_out: how many); the varied keys follow the six id columns. */
const SimSweepColumn *sim_sweep_columns(const SimSweep *s, guint *n_out);

/* Evaluates run @run (the class's evaluate, given @worker) and returns its row; a point that fails
 *  gives a row with the error column set and its outputs empty, never NULL.  Thread-safe where the
 *  callback is. */
SimSweepRow *sim_sweep_run(const SimSweep *s, guint run, gpointer worker);
/* Frees a row (NULL is allowed). */
void sim_sweep_row_free(SimSweepRow *row);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SimSweepRow, sim_sweep_row_free)

/* Setters of a cell: an integer, a number (NaN or infinite: missing), a boolean, a string (copied;
 *  NULL: missing). */
void sim_sweep_cell_set_int(SimSweepCell *c, gint64 v);
void sim_sweep_cell_set_number(SimSweepCell *c, double v);
void sim_sweep_cell_set_bool(SimSweepCell *c, gboolean v);
void sim_sweep_cell_set_string(SimSweepCell *c, const char *v);

/* The CSV header line (with its newline). */
void sim_sweep_csv_header(const SimSweep *s, GString *out);
/* Appends @row as one CSV line (numbers with full precision, locale-independent; booleans
 *  true/false; empty when missing) and, as one JSON Lines object with the same names, keys
 *  in column order. */
void sim_sweep_row_append_csv(const SimSweep *s, const SimSweepRow *row, GString *out);
void sim_sweep_row_append_json(const SimSweep *s, const SimSweepRow *row, GString *out);
/* Reads back a JSON Lines row written by sim_sweep_row_append_json (for resume and summaries).
 *  Errors: not a JSON object, a column missing or of the wrong type, a point or replication not
 *  in this sweep, a version other than the sweep's (a row of another build). */
SimSweepRow *sim_sweep_row_parse_json(const SimSweep *s, const char *line, GError **error);
/* Whether the JSON Lines @line (as sim_sweep_row_append_json writes it) is run @run of this very
 *  sweep: its id and input columns (point, replication, scenario, mode, seed, overrides, the
 *  varied values) are byte for byte those this sweep gives that run, so a row written with
 *  another --set, --seed or sweep file is not resumed as one of its rows. */
gboolean sim_sweep_row_line_is_run(const SimSweep *s, const char *line, guint run);
/* Whether the JSON Lines @line is a failed run: its error column is not empty, or the line is not
 *  a row at all.  Reads the column by name, wherever it stands in the row. */
gboolean sim_sweep_row_line_failed(const char *line);
/* Whether @row (of sim_sweep_run) failed: its error column is not empty; sim_sweep_row_line_failed
 *  of its JSON Lines row, without writing and parsing it. */
gboolean sim_sweep_row_failed(const SimSweep *s, const SimSweepRow *row);

/* The summary of a replicated sweep: per point the varied keys, the runs and failed runs, and
 *  for each numeric output NAME the columns NAME_mean and NAME_ci95 (95 % half-width, Student t
 *  with replications - 1 degrees of freedom; empty below 2 successful runs).  @rows are the
 *  point's replications in order (@n of them).  Header and rows, CSV and JSON Lines. */
void sim_sweep_summary_csv_header(const SimSweep *s, GString *out);
void sim_sweep_summary_append(const SimSweep *s, guint point, SimSweepRow *const *rows, guint n, gboolean json, GString *out);

#endif /* SIM_SWEEP_H */
