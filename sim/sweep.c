/* sim/sweep.c — sweep files, their points and seeds, rows and summaries (see sweep.h).
 *
 * Loading: the sweep file's top-level keys bind through the caller's schema (sim_conf_bind), `vary:`
 * is walked by hand; the base scenario is loaded once with its includes and `set:`, and every run
 * works on a deep copy of it (sim_conf_doc_copy), so no file is read again per point. A run applies
 * its point's values with sim_conf_apply_override_as (the source of each value is its
 * "FILE:LINE:COL" in the sweep file) and its seed, then hands the scenario to the caller's evaluate
 * callback, which fills the caller's columns.
 * Leaves out: adaptive or random point designs.
 */
#include "sim/sweep.h"

#include <gsl/gsl_cdf.h>
#include <json-glib/json-glib.h>
#include <errno.h>
#include <math.h>
#include <string.h>
#include "sim/csv.h"

G_DEFINE_QUARK(ocasim - sweep - error - quark, sim_sweep_error)

/* Most points one sweep may hold (the product of its axes) and values one range may give. */
#define SWEEP_MAX_RUNS 10000000u
/* Relative slack on (to - from) / step, so that 0.1 .. 0.3 step 0.1 keeps its last value. */
#define SWEEP_RANGE_SLACK 1e-9
/* A run's seed keeps the top 53 bits of the first 8 bytes of its SHA-256 (sim_sweep_seed): 64 - 53
 * = 11 bits dropped, so every seed is an integer a double (JSON, YAML) holds exactly (2^53). */
#define SWEEP_SEED_DROP_BITS 11
/* Upper tail point of the summary's two-sided 95 % Student t half-width (sweep.h). */
#define SWEEP_T_P 0.975

typedef struct {
  char *key;         /* key path as written */
  int line, col;     /* of the key's value in the sweep file */
  GPtrArray *values; /* char *: flow text of each value */
  GPtrArray *labels; /* char *: "FILE:LINE:COL" of each value (the override source) */
} SweepKey;

typedef struct {
  guint first, n_keys; /* keys[first .. first + n_keys) vary together */
  guint n_values;
} SweepAxis;

/* A value mixed into the inputs digest (sim_sweep_inputs_mix). */
typedef struct {
  char *tag;
  const char *what;
} SweepMix;

struct SimSweep {
  const SimSweepClass *cls;
  void *ctx; /* given to the class's callbacks */
  char *file;
  char *scenario_name;
  char *mode; /* the mode column (sim_sweep_set_columns) */
  guint replications;
  guint64 seed;
  gboolean seed_varied; /* `seed` is one of the keys */
  SimConfDoc *base;     /* the scenario with its includes, `set:` and the command line's --set */
  GPtrArray *keys;      /* SweepKey* */
  GArray *axes;         /* SweepAxis, file order */
  guint n_points;
  GArray *columns;    /* SimSweepColumn of a run row */
  GArray *summary;    /* SimSweepColumn of a summary row */
  guint first_output; /* index of the first output column */
  guint n_outputs;
  guint error_col;     /* index of the error column (the version column follows it, last) */
  char *version;       /* the version column of every row (sim_sweep_load's @version) */
  GPtrArray *fixed;    /* char *: the overrides of every point, "key=value" (set:, then --set; a key once, with its
                          last value, where it was first given) */
  GPtrArray *fixed_at; /* char *: where each of fixed was given ("set: (line 5)", "--set"), for vary:'s check */
  char *overrides;     /* them joined by "; ", the overrides column */
  char *inputs;        /* sim_sweep_inputs(): the digest of what the rows depend on */
  GArray *mixes;       /* SweepMix: the values mixed into inputs, in the order first mixed */
};

/* The six id columns, then the varied keys, then the caller's outputs, then the error and the version. */
static const SimSweepColumn id_columns[] = {
  { "point", SIM_SWEEP_COL_INT, "", "index of the point, 0-based, in the order of the sweep file's axes" },
  { "replication", SIM_SWEEP_COL_INT, "", "replication of the point, 0-based" },
  { "scenario", SIM_SWEEP_COL_STRING, "", "name of the base scenario" },
  { "mode", SIM_SWEEP_COL_STRING, "", "what every run evaluates (the caller's mode, e.g. bound, run or capacity)" },
  { "seed", SIM_SWEEP_COL_INT, "", "scenario seed of the run (derived: sim/sweep.h)" },
  { "overrides", SIM_SWEEP_COL_STRING, "",
    "the fixed overrides of every point (the sweep's set:, then --set), \"; \"-separated" },
};
enum { COL_POINT, COL_REPLICATION, COL_SCENARIO, COL_MODE, COL_SEED, COL_OVERRIDES, N_ID_COLUMNS };

static const SimSweepColumn error_column = { "error", SIM_SWEEP_COL_STRING, "", "why the run failed; empty when it succeeded" };
/* last in a run row and a summary row, as in every single command's CSV (cli/common.h) */
static const SimSweepColumn version_column = { "ocasim_version", SIM_SWEEP_COL_STRING, "",
                                               "the version of ocasim that wrote the row (ocasim --version)" };

static void key_free(gpointer p)
{
  SweepKey *k = p;
  g_free(k->key);
  g_ptr_array_unref(k->values);
  g_ptr_array_unref(k->labels);
  g_free(k);
}

void sim_sweep_free(SimSweep *s)
{
  if (!s) return;
  g_free(s->file);
  g_free(s->scenario_name);
  g_free(s->mode);
  sim_conf_doc_free(s->base);
  if (s->fixed) g_ptr_array_unref(s->fixed);
  if (s->fixed_at) g_ptr_array_unref(s->fixed_at);
  g_free(s->overrides);
  g_free(s->version);
  g_free(s->inputs);
  if (s->mixes) {
    for (guint i = 0; i < s->mixes->len; i++) g_free(g_array_index(s->mixes, SweepMix, i).tag);
    g_array_unref(s->mixes);
  }
  if (s->summary) {
    /* the NAME_mean / NAME_ci95 names follow point, the keys, runs and failed */
    for (guint i = 1 + s->keys->len + 2; i + 1 < s->summary->len; i++)
      g_free((char *)g_array_index(s->summary, SimSweepColumn, i).name);
    g_array_unref(s->summary);
  }
  if (s->keys) g_ptr_array_unref(s->keys);
  if (s->axes) g_array_unref(s->axes);
  if (s->columns) g_array_unref(s->columns);
  g_free(s);
}

static char *label_of(const char *file, const SimConfNode *n)
{
  return g_strdup_printf("%s:%d:%d", file, sim_conf_node_line(n), sim_conf_node_col(n));
}

/* Whether @key is the include key or below it (never overridden: included before any override). */
static gboolean is_include(const SimSweep *s, const char *key)
{
  const char *inc = s->cls->include_key;
  return inc && g_str_has_prefix(key, inc) && (key[strlen(inc)] == '\0' || key[strlen(inc)] == '.');
}

/* ------------------------------------------------------------------------------------------ */
/* vary:                                                                                      */

/* Splits "100 Gb/s" into 100 and "Gb/s" ("" for a bare number). */
static gboolean range_number(const SimConfNode *n, double *v, char **unit, GError **error)
{
  const char *t = sim_conf_node_kind(n) == SIM_CONF_NODE_SCALAR ? sim_conf_node_text(n) : NULL;
  char *end = NULL;
  double x = t ? g_ascii_strtod(t, &end) : NAN;
  if (!t || end == t || !isfinite(x) || strpbrk(t, "xXnNiI") == t) {
    sim_conf_set_error(error, n, SIM_CONF_ERROR_TYPE, "bad range: expected a number with an optional unit, e.g. 100 Gb/s");
    return FALSE;
  }
  *v = x;
  *unit = g_strstrip(g_strdup(end));
  return TRUE;
}

/* The values of `range: {from, to, step}` into @k; @units gets the three units (freed by the caller). */
static gboolean range_values_into(const char *file, const SimConfNode *range, SweepKey *k, char *units[3], GError **error)
{
  static const char *const allowed[] = { "from", "to", "step", NULL };
  if (!sim_conf_check_keys(range, allowed, error)) return FALSE;
  double v[3];
  const SimConfNode *nodes[3];
  for (int i = 0; i < 3; i++) {
    nodes[i] = sim_conf_node_get(range, allowed[i]);
    if (!nodes[i]) {
      sim_conf_set_error(error, range, SIM_CONF_ERROR_MISSING, "bad range: missing '%s' (a range has from, to and step)",
                         allowed[i]);
      return FALSE;
    }
    if (!range_number(nodes[i], &v[i], &units[i], error)) return FALSE;
    if (i && strcmp(units[i], units[0])) {
      sim_conf_set_error(error, nodes[i], SIM_CONF_ERROR_UNIT, "bad range: unit '%s' differs from from's '%s'", units[i],
                         units[0]);
      return FALSE;
    }
  }
  if (!(v[2] > 0)) {
    sim_conf_set_error(error, nodes[2], SIM_CONF_ERROR_RANGE, "bad range: step must be > 0");
    return FALSE;
  }
  if (v[1] < v[0]) {
    sim_conf_set_error(error, nodes[1], SIM_CONF_ERROR_RANGE, "bad range: to (%g) is below from (%g)", v[1], v[0]);
    return FALSE;
  }
  double count = floor((v[1] - v[0]) / v[2] * (1 + SWEEP_RANGE_SLACK) + SWEEP_RANGE_SLACK) + 1;
  if (count > SWEEP_MAX_RUNS) {
    sim_conf_set_error(error, nodes[2], SIM_CONF_ERROR_RANGE, "bad range: %.0f values, at most %u", count, SWEEP_MAX_RUNS);
    return FALSE;
  }
  for (guint i = 0; i < (guint)count; i++) {
    char num[G_ASCII_DTOSTR_BUF_SIZE];
    g_ascii_formatd(num, sizeof num, "%.12g", v[0] + i * v[2]);
    g_ptr_array_add(k->values, *units[0] ? g_strdup_printf("%s %s", num, units[0]) : g_strdup(num));
    g_ptr_array_add(k->labels, label_of(file, range));
  }
  return TRUE;
}

/* The values of a range into @k (range_values_into, freeing its units). */
static gboolean range_values(const char *file, const SimConfNode *range, SweepKey *k, GError **error)
{
  char *units[3] = { NULL, NULL, NULL };
  gboolean ok = range_values_into(file, range, k, units, error);
  for (int i = 0; i < 3; i++) g_free(units[i]);
  return ok;
}

/* The key of a fixed override "key=value" (transfer full). */
static char *fixed_key(const char *kv)
{
  const char *eq = strchr(kv, '=');
  return eq ? g_strndup(kv, (gsize)(eq - kv)) : g_strdup(kv);
}

/* Whether key paths @a and @b name the same value or one holds the other ("nics[0]" holds
 * "nics[0].count" and "nics[0][1]"; "nics[0].count" does not hold "nics[0].counts"). */
static gboolean keys_overlap(const char *a, const char *b)
{
  size_t la = strlen(a), lb = strlen(b);
  if (la > lb) {
    const char *t = a;
    a = b;
    b = t;
    la = lb;
  }
  return strncmp(a, b, la) == 0 && (b[la] == '\0' || b[la] == '.' || b[la] == '[');
}

/* Records the fixed override @kv ("key=value" as given) given at @where ("set: (line 5)",
 * "--set"): a key given again (--set over set:) keeps its place with the later value, so the
 * overrides column lists each key once, as the points run it. */
static void fixed_add(SimSweep *s, const char *kv_text, const char *where)
{
  char *kv = g_strdup(kv_text);
  g_autofree char *key = fixed_key(kv);
  for (guint i = 0; i < s->fixed->len; i++) {
    g_autofree char *fk = fixed_key(g_ptr_array_index(s->fixed, i));
    if (!strcmp(g_strstrip(fk), g_strstrip(key))) {
      g_free(s->fixed->pdata[i]);
      s->fixed->pdata[i] = kv;
      return;
    }
  }
  g_ptr_array_add(s->fixed, kv);
  g_ptr_array_add(s->fixed_at, g_strdup(where));
}

/* One `{key: K, values: [...]}` or `{key: K, range: {...}}` entry. */
static SweepKey *parse_key_entry(SimSweep *s, const SimConfNode *e, GError **error)
{
  static const char *const allowed[] = { "key", "values", "range", NULL };
  if (sim_conf_node_kind(e) != SIM_CONF_NODE_MAP) {
    sim_conf_set_error(error, e, SIM_CONF_ERROR_TYPE, "expected a map {key: ..., values: [...]} or {zip: [...]}");
    return NULL;
  }
  if (!sim_conf_check_keys(e, allowed, error)) return NULL;
  const SimConfNode *key = sim_conf_node_get(e, "key"), *values = sim_conf_node_get(e, "values"),
                    *range = sim_conf_node_get(e, "range");
  if (!key) {
    sim_conf_set_error(error, e, SIM_CONF_ERROR_MISSING, "missing 'key' (the key path to vary, as for --set)");
    return NULL;
  }
  const char *path = sim_conf_node_kind(key) == SIM_CONF_NODE_SCALAR ? sim_conf_node_text(key) : NULL;
  if (!path || !*path) {
    sim_conf_set_error(error, key, SIM_CONF_ERROR_TYPE, "expected a key path such as nics[0].count");
    return NULL;
  }
  if (is_include(s, path)) {
    sim_conf_set_error(error, key, SIM_CONF_ERROR_OVERRIDE,
                       "the %s file is included before any override; sweep scenarios that include it instead",
                       s->cls->include_key);
    return NULL;
  }
  for (guint i = 0; i < s->keys->len; i++) {
    const SweepKey *o = g_ptr_array_index(s->keys, i);
    if (!strcmp(o->key, path)) {
      sim_conf_set_error(error, key, SIM_CONF_ERROR_DUPLICATE, "'%s' is varied twice (first at line %d)", path, o->line);
      return NULL;
    }
  }
  /* a key is fixed (set:, --set) or varied, never both: the fixed value would never be run,
   * yet the overrides column would name it */
  for (guint i = 0; i < s->fixed->len; i++) {
    g_autofree char *fk = fixed_key(g_ptr_array_index(s->fixed, i));
    if (keys_overlap(g_strstrip(fk), path)) {
      g_autofree char *holds = strcmp(fk, path) ? g_strdup_printf(" ('%s')", fk) : g_strdup("");
      sim_conf_set_error(error, key, SIM_CONF_ERROR_DUPLICATE,
                         "'%s' is varied and also fixed by %s%s: a key is either fixed (set:, --set) or varied", path,
                         (const char *)g_ptr_array_index(s->fixed_at, i), holds);
      return NULL;
    }
  }
  if (!values == !range) {
    sim_conf_set_error(error, e, values ? SIM_CONF_ERROR_TYPE : SIM_CONF_ERROR_MISSING,
                       "give either 'values' (a list) or 'range' ({from, to, step}), not %s", values ? "both" : "neither");
    return NULL;
  }
  SweepKey *k = g_new0(SweepKey, 1);
  k->key = g_strdup(path);
  k->line = sim_conf_node_line(key);
  k->col = sim_conf_node_col(key);
  k->values = g_ptr_array_new_with_free_func(g_free);
  k->labels = g_ptr_array_new_with_free_func(g_free);
  gboolean ok = TRUE;
  if (values) {
    if (sim_conf_node_kind(values) != SIM_CONF_NODE_SEQ) {
      sim_conf_set_error(error, values, SIM_CONF_ERROR_TYPE, "expected a list of values");
      ok = FALSE;
    } else if (sim_conf_node_size(values) == 0) {
      sim_conf_set_error(error, values, SIM_CONF_ERROR_RANGE, "empty list: give at least one value");
      ok = FALSE;
    }
    for (guint i = 0; ok && i < sim_conf_node_size(values); i++) {
      const SimConfNode *v = sim_conf_node_child(values, i);
      g_ptr_array_add(k->values, sim_conf_node_flow_text(v));
      g_ptr_array_add(k->labels, label_of(s->file, v));
    }
  } else if (sim_conf_node_kind(range) != SIM_CONF_NODE_MAP) {
    sim_conf_set_error(error, range, SIM_CONF_ERROR_TYPE, "bad range: expected a map {from, to, step}");
    ok = FALSE;
  } else {
    ok = range_values(s->file, range, k, error);
  }
  if (!ok) {
    key_free(k);
    return NULL;
  }
  return k;
}

static gboolean parse_vary(SimSweep *s, const SimConfNode *vary, GError **error)
{
  if (!vary) return TRUE; /* one point: the scenario as it is */
  if (sim_conf_node_kind(vary) != SIM_CONF_NODE_SEQ) {
    sim_conf_set_error(error, vary, SIM_CONF_ERROR_TYPE, "expected a list of keys to vary");
    return FALSE;
  }
  if (sim_conf_node_size(vary) == 0) {
    sim_conf_set_error(error, vary, SIM_CONF_ERROR_RANGE, "empty list: leave vary out to run the scenario as it is");
    return FALSE;
  }
  double points = 1;
  for (guint i = 0; i < sim_conf_node_size(vary); i++) {
    const SimConfNode *e = sim_conf_node_child(vary, i);
    const SimConfNode *zip = sim_conf_node_kind(e) == SIM_CONF_NODE_MAP ? sim_conf_node_get(e, "zip") : NULL;
    SweepAxis ax = { s->keys->len, 0, 0 };
    if (zip) {
      static const char *const allowed[] = { "zip", NULL };
      if (!sim_conf_check_keys(e, allowed, error)) return FALSE;
      if (sim_conf_node_kind(zip) != SIM_CONF_NODE_SEQ || sim_conf_node_size(zip) == 0) {
        sim_conf_set_error(error, zip, sim_conf_node_kind(zip) == SIM_CONF_NODE_SEQ ? SIM_CONF_ERROR_RANGE : SIM_CONF_ERROR_TYPE,
                           "zip: expected a non-empty list of {key, values} that vary together");
        return FALSE;
      }
      for (guint j = 0; j < sim_conf_node_size(zip); j++) {
        const SimConfNode *ze = sim_conf_node_child(zip, j);
        SweepKey *k = parse_key_entry(s, ze, error);
        if (!k) return FALSE;
        if (j && k->values->len != ax.n_values) {
          sim_conf_set_error(error, ze, SIM_CONF_ERROR_RANGE, "zip: %u values, but the first list of the zip has %u",
                             k->values->len, ax.n_values);
          key_free(k);
          return FALSE;
        }
        ax.n_values = k->values->len;
        g_ptr_array_add(s->keys, k);
      }
    } else {
      SweepKey *k = parse_key_entry(s, e, error);
      if (!k) return FALSE;
      ax.n_values = k->values->len;
      g_ptr_array_add(s->keys, k);
    }
    ax.n_keys = s->keys->len - ax.first;
    g_array_append_val(s->axes, ax);
    points *= ax.n_values;
    if (points > SWEEP_MAX_RUNS) {
      sim_conf_set_error(error, e, SIM_CONF_ERROR_RANGE, "the sweep would hold more than %u points", SWEEP_MAX_RUNS);
      return FALSE;
    }
  }
  s->n_points = (guint)points;
  return TRUE;
}

/* Applies "key=value" from @label; errors are located there. */
static gboolean apply(SimConfDoc *doc, const char *key, const char *value, const char *label, GError **error)
{
  g_autofree char *as = g_strdup_printf("%s=%s", key, value);
  return sim_conf_apply_override_as(doc, as, label, error);
}

/* Whether the scenario @root binds by the class (every one without a bind callback). */
static gboolean binds(const SimSweep *s, const SimConfNode *root, GError **error)
{
  return !s->cls->bind || s->cls->bind(root, s->ctx, error);
}

/* The base scenario as set must bind; then each value alone on it: an error located at the
 * value (its label) is the sweep file's error; any other is left to the points (a check across
 * keys). */
static gboolean check_values(const SimSweep *s, GError **error)
{
  if (!binds(s, sim_conf_doc_root(s->base), error)) return FALSE;
  for (guint k = 0; k < s->keys->len; k++) {
    const SweepKey *key = g_ptr_array_index(s->keys, k);
    for (guint v = 0; v < key->values->len; v++) {
      const char *label = g_ptr_array_index(key->labels, v);
      g_autoptr(SimConfDoc) doc = sim_conf_doc_copy(s->base);
      if (!apply(doc, key->key, g_ptr_array_index(key->values, v), label, error)) return FALSE;
      GError *e = NULL;
      if (binds(s, sim_conf_doc_root(doc), &e)) continue;
      g_autofree char *prefix = g_strdup_printf("%s: ", label);
      if (e && g_str_has_prefix(e->message, prefix)) {
        g_propagate_error(error, e);
        return FALSE;
      }
      g_clear_error(&e);
    }
  }
  return TRUE;
}

static gboolean apply_set(SimSweep *s, const SimConfNode *set, GError **error)
{
  if (!set) return TRUE;
  if (sim_conf_node_kind(set) != SIM_CONF_NODE_MAP) {
    sim_conf_set_error(error, set, SIM_CONF_ERROR_TYPE, "expected a map of key.path: value");
    return FALSE;
  }
  for (guint i = 0; i < sim_conf_node_size(set); i++) {
    const char *key = sim_conf_map_key(set, i);
    const SimConfNode *v = sim_conf_node_child(set, i);
    if (is_include(s, key)) {
      sim_conf_set_error(error, v, SIM_CONF_ERROR_OVERRIDE, "the %s file is included before any override", s->cls->include_key);
      return FALSE;
    }
    if (!strcmp(key, "seed")) {
      sim_conf_set_error(error, v, SIM_CONF_ERROR_OVERRIDE, "every run's seed derives from the sweep's seed: (or vary seed)");
      return FALSE;
    }
    g_autofree char *label = label_of(s->file, v);
    g_autofree char *text = sim_conf_node_flow_text(v);
    if (!apply(s->base, key, text, label, error)) return FALSE;
    g_autofree char *where = g_strdup_printf("set: (line %d)", sim_conf_node_line(v));
    g_autofree char *kv = g_strdup_printf("%s=%s", key, text);
    fixed_add(s, kv, where);
  }
  return TRUE;
}

/* A numeric output the summary averages (not the run's own CI half-widths). */
static gboolean summarised(const SimSweepColumn *o)
{
  return (o->type == SIM_SWEEP_COL_NUMBER || o->type == SIM_SWEEP_COL_INT) && !strstr(o->name, "_ci95");
}

/* The row cell of varied key @k: its own column after the id columns, or -1 for a varied `seed`,
 * whose value is the id column seed (one column of that name, not two). */
static gint key_cell(const SimSweep *s, guint k)
{
  gint col = N_ID_COLUMNS;
  for (guint j = 0; j < k; j++) col += strcmp(((const SweepKey *)g_ptr_array_index(s->keys, j))->key, "seed") != 0;
  return strcmp(((const SweepKey *)g_ptr_array_index(s->keys, k))->key, "seed") ? col : -1;
}

/* The column of varied key @k (in the rows and in the summary). */
static SimSweepColumn key_column(const SimSweep *s, guint k)
{
  return (SimSweepColumn){ ((const SweepKey *)g_ptr_array_index(s->keys, k))->key, SIM_SWEEP_COL_INPUT, "",
                           "a varied input, as the sweep file writes it" };
}

void sim_sweep_set_columns(SimSweep *s, const char *mode, const SimSweepColumn *outputs, guint n)
{
  g_return_if_fail(s->columns == NULL);
  s->mode = g_strdup(mode);
  s->columns = g_array_new(FALSE, FALSE, sizeof(SimSweepColumn));
  g_array_append_vals(s->columns, id_columns, N_ID_COLUMNS);
  for (guint k = 0; k < s->keys->len; k++) {
    SimSweepColumn c = key_column(s, k);
    if (key_cell(s, k) >= 0) g_array_append_val(s->columns, c);
  }
  s->first_output = s->columns->len;
  g_array_append_vals(s->columns, outputs, n);
  s->n_outputs = n;
  s->error_col = s->columns->len;
  g_array_append_val(s->columns, error_column);
  g_array_append_val(s->columns, version_column);

  /* summary: point, the keys, runs, failed, NAME_mean and NAME_ci95 per numeric output */
  s->summary = g_array_new(FALSE, FALSE, sizeof(SimSweepColumn));
  g_array_append_val(s->summary, id_columns[COL_POINT]);
  for (guint k = 0; k < s->keys->len; k++) {
    SimSweepColumn c = key_column(s, k);
    g_array_append_val(s->summary, c);
  }
  SimSweepColumn runs = { "runs", SIM_SWEEP_COL_INT, "", "replications that succeeded" };
  SimSweepColumn failed = { "failed", SIM_SWEEP_COL_INT, "", "replications that failed" };
  g_array_append_val(s->summary, runs);
  g_array_append_val(s->summary, failed);
  for (guint i = 0; i < s->n_outputs; i++) {
    const SimSweepColumn *o = &outputs[i];
    if (!summarised(o)) continue;
    SimSweepColumn mean = { g_strdup_printf("%s_mean", o->name), SIM_SWEEP_COL_NUMBER, o->unit, "mean over the replications" };
    SimSweepColumn ci = { g_strdup_printf("%s_ci95", o->name), SIM_SWEEP_COL_NUMBER, o->unit,
                          "95 % half-width over the replications (Student t)" };
    g_array_append_val(s->summary, mean);
    g_array_append_val(s->summary, ci);
  }
  g_array_append_val(s->summary, version_column);
}

/* The command line's overrides: "key.path=value" (--set), or "--OPTION=value" for an option
 *  that stands for the key OPTION (--duration, --warmup), which its messages then name. */
static gboolean apply_command_line(SimSweep *s, const char *const *sets, GError **error)
{
  for (const char *const *a = sets; a && *a; a++) {
    const char *eq = strchr(*a, '=');
    if (g_str_has_prefix(*a, "--") && eq) {
      g_autofree char *label = g_strndup(*a, eq - *a);
      g_autofree char *assignment = g_strdup(*a + 2);
      if (!sim_conf_apply_override_as(s->base, assignment, label, error)) return FALSE;
      fixed_add(s, *a + 2, label); /* "--duration=X" is duration=X */
    } else if (!sim_conf_apply_override(s->base, *a, error)) {
      return FALSE;
    } else {
      fixed_add(s, *a, "--set");
    }
  }
  return TRUE;
}

/* Feeds every scalar under @node, as "KEY.PATH=TEXT\n" in tree order, into @all and into the
 * checksum of the file it was read from (@by_file: file name -> GChecksum). */
static void inputs_walk(const SimConfNode *node, const char *path, GChecksum *all, GHashTable *by_file)
{
  if (sim_conf_node_kind(node) == SIM_CONF_NODE_SCALAR) {
    g_autofree char *line = g_strdup_printf("%s=%s\n", path, sim_conf_node_text(node));
    /* a value the sweep file applies (set:, vary:) names "FILE:LINE:COL" as its source: FILE */
    g_autofree char *file = g_strdup(sim_conf_node_file(node));
    for (int i = 0; i < 2; i++) {
      char *colon = strrchr(file, ':');
      if (colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1)) *colon = '\0';
    }
    GChecksum *one = g_hash_table_lookup(by_file, file);
    if (!one) g_hash_table_insert(by_file, g_strdup(file), one = g_checksum_new(G_CHECKSUM_SHA256));
    g_checksum_update(one, (const guchar *)line, -1);
    g_checksum_update(all, (const guchar *)line, -1);
    return;
  }
  gboolean map = sim_conf_node_kind(node) == SIM_CONF_NODE_MAP;
  for (guint i = 0; i < sim_conf_node_size(node); i++) {
    g_autofree char *sub = map ? g_strdup_printf("%s.%s", path, sim_conf_map_key(node, i)) : g_strdup_printf("%s[%u]", path, i);
    inputs_walk(sim_conf_node_child(node, i), sub, all, by_file);
  }
}

static int str_ptr_cmp(const void *a, const void *b)
{
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The text of sim_sweep_inputs(): the sweep file's tree (@root) and the base scenario's (with its
 * includes, set: and the command line), the sweep seed and the version. */
static char *inputs_text(const SimSweep *s, const SimConfNode *root)
{
  g_autoptr(GChecksum) all = g_checksum_new(G_CHECKSUM_SHA256);
  g_autoptr(GHashTable) by_file = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_checksum_free);
  g_autofree char *head =
      g_strdup_printf("ocasim-sweep-inputs-v1\nseed=%" G_GUINT64_FORMAT "\nversion=%s\n", s->seed, s->version);
  g_checksum_update(all, (const guchar *)head, -1);
  inputs_walk(root, "sweep", all, by_file);
  inputs_walk(sim_conf_doc_root(s->base), "scenario", all, by_file);
  GString *out = g_string_new("# ocasim sweep: what the rows of the .part files were computed from (--resume checks it)\n");
  g_string_append_printf(out, "sha256 %s\nversion %s\nseed %" G_GUINT64_FORMAT "\n", g_checksum_get_string(all), s->version,
                         s->seed);
  g_autofree const char **files = (const char **)g_hash_table_get_keys_as_array(by_file, NULL);
  guint n = g_strv_length((char **)files);
  qsort(files, n, sizeof *files, str_ptr_cmp);
  for (guint i = 0; i < n; i++)
    g_string_append_printf(out, "file %s %s\n", g_checksum_get_string(g_hash_table_lookup(by_file, files[i])), files[i]);
  return g_string_free(out, FALSE);
}

void sim_sweep_inputs_mix(SimSweep *s, const char *tag, double value, const char *what)
{
  g_return_if_fail(s->inputs != NULL && tag != NULL);
  gboolean known = FALSE;
  for (guint i = 0; i < s->mixes->len; i++) known = known || !strcmp(g_array_index(s->mixes, SweepMix, i).tag, tag);
  if (!known) {
    SweepMix m = { g_strdup(tag), what };
    g_array_append_val(s->mixes, m);
  }
  /* the line "TAG VALUE" and the sha256 line's hash, so that --resume with another value is refused */
  g_autofree char *prefix = g_strdup_printf("%s ", tag);
  g_auto(GStrv) lines = g_strsplit(s->inputs, "\n", -1);
  GString *out = g_string_new(NULL);
  for (char **l = lines; *l; l++) {
    if (g_str_has_prefix(*l, prefix)) continue;
    if (g_str_has_prefix(*l, "sha256 ")) {
      g_autofree char *mix = g_strdup_printf("%s\n%s=%.17g\n", *l + 7, tag, value);
      g_autofree char *sha = g_compute_checksum_for_string(G_CHECKSUM_SHA256, mix, -1);
      g_string_append_printf(out, "sha256 %s\n%s %.12g", sha, tag, value);
    } else
      g_string_append(out, *l);
    if (l[1]) g_string_append_c(out, '\n');
  }
  g_free(s->inputs);
  s->inputs = g_string_free(out, FALSE);
}

/* The base scenario the sweep file's `scenario:` (@scen) names, into s->base: read with its
 * includes and checked to be of the class's kind. */
static gboolean load_base(SimSweep *s, const SimConfNode *scen, const SimConfIncludePolicy *includes, GError **error)
{
  g_autofree char *spath = sim_conf_node_resolve_path(scen, error);
  if (!spath) return FALSE;
  const char *inc = s->cls->include_key;
  GError *e = NULL;
  s->base = includes ? sim_conf_load_with_include_policy(spath, inc, includes, &e) : sim_conf_load_with_include(spath, inc, &e);
  if (!s->base) {
    if (e->code == SIM_CONF_ERROR_IO) { /* a file that cannot be read: at the key that names it */
      sim_conf_set_error(error, scen, SIM_CONF_ERROR_IO, "%s", e->message);
      g_error_free(e);
    } else {
      g_propagate_error(error, e);
    }
    return FALSE;
  }
  const SimConfNode *kind = sim_conf_node_get(sim_conf_doc_root(s->base), "kind");
  const char *kt = kind && sim_conf_node_kind(kind) == SIM_CONF_NODE_SCALAR ? sim_conf_node_text(kind) : "";
  if (s->cls->scenario_kind && strcmp(kt, s->cls->scenario_kind)) {
    sim_conf_set_error(error, scen, SIM_CONF_ERROR_ENUM, "a sweep needs %s (kind: %s), not '%s'", s->cls->scenario_noun,
                       s->cls->scenario_kind, kt);
    return FALSE;
  }
  return TRUE;
}

/* A scenario given for a sweep file: said at its kind, before its keys are unknown here. */
static gboolean not_a_scenario(const SimSweep *s, const SimConfNode *root, GError **error)
{
  const SimConfNode *file_kind = sim_conf_node_get(root, "kind");
  const char *fk = file_kind && sim_conf_node_kind(file_kind) == SIM_CONF_NODE_SCALAR ? sim_conf_node_text(file_kind) : NULL;
  if (fk && s->cls->scenario_kinds && g_strv_contains(s->cls->scenario_kinds, fk)) {
    sim_conf_set_error(error, file_kind, SIM_CONF_ERROR_ENUM,
                       "this is a scenario (kind: %s), not a sweep file: a sweep file names it as scenario: FILE", fk);
    return FALSE;
  }
  return TRUE;
}

SimSweep *sim_sweep_load(const char *path, const SimSweepClass *cls, void *conf, const char *const *sets, gint64 seed,
                         const SimConfIncludePolicy *includes, const char *version, void *ctx, GError **error)
{
  g_return_val_if_fail(version != NULL && cls != NULL && cls->evaluate != NULL && conf != NULL, NULL);
  g_autoptr(SimConfDoc) doc = sim_conf_load_file(path, error);
  if (!doc) return NULL;
  const SimConfNode *root = sim_conf_doc_root(doc);
  const SimSweepFile *c = (const SimSweepFile *)((const char *)conf + cls->file_offset);
  g_autoptr(SimSweep) s = g_new0(SimSweep, 1);
  s->cls = cls;
  s->ctx = ctx;
  s->file = g_strdup(path);
  s->version = g_strdup(version);
  s->keys = g_ptr_array_new_with_free_func(key_free);
  s->axes = g_array_new(FALSE, FALSE, sizeof(SweepAxis));
  s->n_points = 1;
  s->fixed = g_ptr_array_new_with_free_func(g_free);
  s->fixed_at = g_ptr_array_new_with_free_func(g_free);
  s->mixes = g_array_new(FALSE, FALSE, sizeof(SweepMix));
  if (!not_a_scenario(s, root, error)) return NULL;
  gboolean ok = sim_conf_bind(root, cls->schema, conf, error);
  if (ok && c->kind && strcmp(c->kind, "sweep")) {
    sim_conf_set_error(error, sim_conf_node_get(root, "kind"), SIM_CONF_ERROR_ENUM, "expected kind 'sweep', got '%s'", c->kind);
    ok = FALSE;
  }
  if (ok) {
    s->replications = (guint)c->replications;
    s->seed = (guint64)(seed >= 0 ? seed : c->seed);
    ok = load_base(s, sim_conf_node_get(root, "scenario"), includes, error);
  }
  ok = ok && apply_set(s, c->set, error) && apply_command_line(s, sets, error) && parse_vary(s, c->vary, error);
  s->seed_varied = ok && sim_sweep_varies(s, "seed");
  if (ok && s->replications > 1 && s->seed_varied) {
    sim_conf_set_error(error, sim_conf_node_get(root, "replications"), SIM_CONF_ERROR_RANGE,
                       "replications > 1 would repeat the varied seeds; vary the seed or replicate, not both");
    ok = FALSE;
  }
  ok = ok && (!cls->check || cls->check(s, conf, root, ctx, error));
  if (ok && (double)s->n_points * s->replications > SWEEP_MAX_RUNS) {
    sim_conf_set_error(error, sim_conf_node_get(root, "replications"), SIM_CONF_ERROR_RANGE, "more than %u runs", SWEEP_MAX_RUNS);
    ok = FALSE;
  }
  ok = ok && check_values(s, error);
  if (!ok) return NULL;
  g_ptr_array_add(s->fixed, NULL);
  s->overrides = g_strjoinv("; ", (char **)s->fixed->pdata);
  g_ptr_array_remove_index(s->fixed, s->fixed->len - 1);
  const SimConfNode *name = sim_conf_node_get(sim_conf_doc_root(s->base), "name");
  s->scenario_name = name && sim_conf_node_kind(name) == SIM_CONF_NODE_SCALAR ? g_strdup(sim_conf_node_text(name))
                                                                              : g_path_get_basename(c->scenario);
  s->inputs = inputs_text(s, root);
  return g_steal_pointer(&s);
}

/* ------------------------------------------------------------------------------------------ */
/* Points and seeds                                                                           */

guint sim_sweep_n_points(const SimSweep *s)
{
  return s->n_points;
}

guint sim_sweep_replications(const SimSweep *s)
{
  return s->replications;
}

guint sim_sweep_n_runs(const SimSweep *s)
{
  return s->n_points * s->replications;
}

const SimConfNode *sim_sweep_base(const SimSweep *s)
{
  return sim_conf_doc_root(s->base);
}

const char *sim_sweep_inputs(const SimSweep *s)
{
  return s->inputs;
}

/* The value of the line "@tag VALUE" of an inputs text (transfer full), or NULL. */
static char *inputs_field(char **lines, const char *tag)
{
  for (char **l = lines; *l; l++)
    if (g_str_has_prefix(*l, tag) && (*l)[strlen(tag)] == ' ') return g_strdup(*l + strlen(tag) + 1);
  return NULL;
}

char *sim_sweep_inputs_changed(const SimSweep *s, const char *stored)
{
  g_auto(GStrv) old = g_strsplit(stored, "\n", -1), now = g_strsplit(s->inputs, "\n", -1);
  g_autofree char *old_sha = inputs_field(old, "sha256"), *now_sha = inputs_field(now, "sha256");
  if (old_sha && !strcmp(old_sha, now_sha)) return NULL;
  if (!old_sha) return g_strdup("it is not a digest written by ocasim sweep");
  g_autoptr(GString) why = g_string_new(NULL);
  g_autofree char *old_v = inputs_field(old, "version"), *old_seed = inputs_field(old, "seed");
  g_autofree char *now_v = inputs_field(now, "version"), *now_seed = inputs_field(now, "seed");
  if (g_strcmp0(old_v, now_v))
    g_string_append_printf(why, "; written by ocasim %s, this is ocasim %s", old_v ? old_v : "?", now_v);
  if (g_strcmp0(old_seed, now_seed)) g_string_append_printf(why, "; sweep seed %s, now %s", old_seed ? old_seed : "?", now_seed);
  for (guint i = 0; i < s->mixes->len; i++) {
    const SweepMix *m = &g_array_index(s->mixes, SweepMix, i);
    g_autofree char *old_x = inputs_field(old, m->tag), *now_x = inputs_field(now, m->tag);
    if (g_strcmp0(old_x, now_x))
      g_string_append_printf(why, "; %s %s, now %s", m->what, old_x ? old_x : "?", now_x ? now_x : "?");
  }
  /* the files (and --set, --duration ...) whose values differ, were added or are gone: the
   * first few by name */
  guint named = 0, more = 0;
  for (int pass = 0; pass < 2; pass++)
    for (char **l = pass ? old : now; *l; l++) {
      if (!g_str_has_prefix(*l, "file ")) continue;
      gboolean found = FALSE;
      for (char **m = pass ? now : old; *m && !found; m++) found = !strcmp(*l, *m);
      if (found) continue;
      const char *name = strchr(*l + 5, ' ');
      if (!name) continue;
      name++;
      if (strstr(why->str, name)) continue;
      if (named++ < 3)
        g_string_append_printf(why, "; %s %s", name, pass ? "no longer gives values" : "changed");
      else
        more++;
    }
  if (more) g_string_append_printf(why, "; %u more file%s", more, more == 1 ? "" : "s");
  if (!why->len) g_string_append(why, "; the values moved between files");
  return g_strdup(why->str + 2);
}

guint sim_sweep_n_keys(const SimSweep *s)
{
  return s->keys->len;
}

const char *sim_sweep_key(const SimSweep *s, guint k)
{
  g_return_val_if_fail(k < s->keys->len, NULL);
  return ((const SweepKey *)g_ptr_array_index(s->keys, k))->key;
}

gboolean sim_sweep_varies(const SimSweep *s, const char *path)
{
  for (guint k = 0; k < s->keys->len; k++)
    if (!strcmp(((const SweepKey *)g_ptr_array_index(s->keys, k))->key, path)) return TRUE;
  return FALSE;
}

guint sim_sweep_value_index(const SimSweep *s, guint p, guint k)
{
  for (guint a = s->axes->len; a-- > 0;) {
    const SweepAxis *ax = &g_array_index(s->axes, SweepAxis, a);
    if (k >= ax->first && k < ax->first + ax->n_keys) return p % ax->n_values;
    p /= ax->n_values;
  }
  g_return_val_if_reached(0);
}

const char *sim_sweep_value(const SimSweep *s, guint p, guint k)
{
  g_return_val_if_fail(p < s->n_points && k < s->keys->len, NULL);
  const SweepKey *key = g_ptr_array_index(s->keys, k);
  return g_ptr_array_index(key->values, sim_sweep_value_index(s, p, k));
}

guint64 sim_sweep_seed(const SimSweep *s, guint p, guint r)
{
  g_autoptr(GString) text = g_string_new(NULL);
  g_string_append_printf(text, "ocasim-sweep-v1\nseed=%" G_GUINT64_FORMAT "\n", s->seed);
  for (guint k = 0; k < s->keys->len; k++) g_string_append_printf(text, "%s=%s\n", sim_sweep_key(s, k), sim_sweep_value(s, p, k));
  g_string_append_printf(text, "replication=%u\n", r);
  guint8 digest[32];
  gsize len = sizeof digest;
  g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
  g_checksum_update(sum, (const guchar *)text->str, (gssize)text->len);
  g_checksum_get_digest(sum, digest, &len);
  guint64 v = 0;
  for (int i = 0; i < 8; i++) v = v << 8 | digest[i];
  return v >> SWEEP_SEED_DROP_BITS;
}

const SimSweepColumn *sim_sweep_columns(const SimSweep *s, guint *n_out)
{
  g_return_val_if_fail(s->columns != NULL, NULL);
  *n_out = s->columns->len;
  return (const SimSweepColumn *)(void *)s->columns->data;
}

/* ------------------------------------------------------------------------------------------ */
/* Rows                                                                                       */

static SimSweepRow *row_new(guint n)
{
  SimSweepRow *row = g_new0(SimSweepRow, 1);
  row->n = n;
  row->cells = g_new0(SimSweepCell, n);
  for (guint i = 0; i < n; i++) row->cells[i].missing = TRUE;
  return row;
}

void sim_sweep_row_free(SimSweepRow *row)
{
  if (!row) return;
  for (guint i = 0; i < row->n; i++) g_free(row->cells[i].s);
  g_free(row->cells);
  g_free(row);
}

void sim_sweep_cell_set_int(SimSweepCell *c, gint64 v)
{
  c->missing = FALSE;
  c->i = v;
}

void sim_sweep_cell_set_number(SimSweepCell *c, double v)
{
  c->missing = !isfinite(v);
  c->x = v;
}

void sim_sweep_cell_set_bool(SimSweepCell *c, gboolean v)
{
  c->missing = FALSE;
  c->b = v;
}

void sim_sweep_cell_set_string(SimSweepCell *c, const char *v)
{
  g_free(c->s);
  c->s = g_strdup(v);
  c->missing = v == NULL;
}

/* Sets the input cells of point @p in @row (a varied seed: the id column seed, an integer). */
static void set_key_cells(const SimSweep *s, guint p, SimSweepRow *row)
{
  for (guint k = 0; k < s->keys->len; k++) {
    gint c = key_cell(s, k);
    gint64 seed;
    if (c >= 0)
      sim_sweep_cell_set_string(&row->cells[c], sim_sweep_value(s, p, k));
    else if (g_ascii_string_to_signed(sim_sweep_value(s, p, k), 10, 0, G_MAXINT64, &seed, NULL))
      sim_sweep_cell_set_int(&row->cells[COL_SEED], seed);
  }
}

/* The id and input cells of run @run. */
static void fill_ids(const SimSweep *s, guint run, SimSweepRow *row)
{
  guint p = run / s->replications, r = run % s->replications;
  sim_sweep_cell_set_int(&row->cells[COL_POINT], p);
  sim_sweep_cell_set_int(&row->cells[COL_REPLICATION], r);
  sim_sweep_cell_set_string(&row->cells[COL_SCENARIO], s->scenario_name);
  sim_sweep_cell_set_string(&row->cells[COL_MODE], s->mode);
  sim_sweep_cell_set_string(&row->cells[COL_OVERRIDES], s->overrides);
  sim_sweep_cell_set_string(&row->cells[s->error_col + 1], s->version);
  if (!s->seed_varied) sim_sweep_cell_set_int(&row->cells[COL_SEED], (gint64)sim_sweep_seed(s, p, r));
  set_key_cells(s, p, row);
}

SimSweepRow *sim_sweep_run(const SimSweep *s, guint run, gpointer worker)
{
  g_return_val_if_fail(run < sim_sweep_n_runs(s) && s->columns != NULL, NULL);
  SimSweepRow *row = row_new(s->columns->len);
  fill_ids(s, run, row);
  guint p = run / s->replications;
  g_autoptr(GError) error = NULL;
  g_autoptr(SimConfDoc) doc = sim_conf_doc_copy(s->base);
  gboolean ok = TRUE;
  for (guint k = 0; ok && k < s->keys->len; k++) {
    const SweepKey *key = g_ptr_array_index(s->keys, k);
    guint v = sim_sweep_value_index(s, p, k);
    ok = apply(doc, key->key, g_ptr_array_index(key->values, v), g_ptr_array_index(key->labels, v), &error);
  }
  if (ok && !s->seed_varied) {
    g_autofree char *seed = g_strdup_printf("%" G_GINT64_FORMAT, row->cells[COL_SEED].i);
    ok = apply(doc, "seed", seed, "sweep seed", &error);
  }
  SimSweepPoint pt = { .point = p,
                       .replication = run % s->replications,
                       .root = sim_conf_doc_root(doc),
                       .out = row->cells + s->first_output,
                       .worker = worker };
  ok = ok && s->cls->evaluate(s, &pt, s->ctx, &error);
  if (s->seed_varied && pt.seed_bound) sim_sweep_cell_set_int(&row->cells[COL_SEED], pt.seed);
  if (!ok) {
    for (guint i = 0; i < s->n_outputs; i++) {
      SimSweepCell *c = &row->cells[s->first_output + i];
      g_clear_pointer(&c->s, g_free);
      c->missing = TRUE;
    }
    sim_sweep_cell_set_string(&row->cells[s->error_col], error ? error->message : "failed");
  } else {
    sim_sweep_cell_set_string(&row->cells[s->error_col], "");
  }
  return row;
}

/* ------------------------------------------------------------------------------------------ */
/* Writers                                                                                    */

static void json_string(GString *out, const char *s)
{
  g_string_append_c(out, '"');
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    switch (*c) {
      case '"': g_string_append(out, "\\\""); break;
      case '\\': g_string_append(out, "\\\\"); break;
      case '\n': g_string_append(out, "\\n"); break;
      case '\r': g_string_append(out, "\\r"); break;
      case '\t': g_string_append(out, "\\t"); break;
      default:
        if (*c < 0x20)
          g_string_append_printf(out, "\\u%04x", *c);
        else
          g_string_append_c(out, (char)*c);
    }
  }
  g_string_append_c(out, '"');
}

/* An input's text as JSON: a number or boolean when it reads as one, else a string. */
static void json_input(GString *out, const char *t)
{
  static const char *const truths[] = { "true", "True", "TRUE", "false", "False", "FALSE" };
  for (size_t i = 0; i < G_N_ELEMENTS(truths); i++)
    if (!strcmp(t, truths[i])) {
      g_string_append(out, i < 3 ? "true" : "false");
      return;
    }
  char *end = NULL;
  errno = 0;
  gint64 i = *t ? g_ascii_strtoll(t, &end, 10) : 0;
  if (end && !*end && errno != ERANGE) { /* an integer stays one */
    g_string_append_printf(out, "%" G_GINT64_FORMAT, i);
    return;
  }
  double v = *t ? g_ascii_strtod(t, &end) : NAN;
  if (end && !*end && isfinite(v) && !strpbrk(t, "xXnNiI")) {
    sim_csv_number_exact(out, v);
    return;
  }
  json_string(out, t);
}

static void append_row(const SimSweepColumn *cols, guint n, const SimSweepRow *row, gboolean json, GString *out)
{
  if (json) g_string_append_c(out, '{');
  for (guint i = 0; i < n; i++) {
    const SimSweepCell *c = &row->cells[i];
    if (json) {
      if (i) g_string_append(out, ", ");
      json_string(out, cols[i].name);
      g_string_append(out, ": ");
    } else if (i) {
      g_string_append_c(out, ',');
    }
    if (c->missing) {
      if (json) g_string_append(out, "null");
      continue;
    }
    switch (cols[i].type) {
      case SIM_SWEEP_COL_INT: g_string_append_printf(out, "%" G_GINT64_FORMAT, c->i); break;
      case SIM_SWEEP_COL_NUMBER:
        if (isfinite(c->x))
          sim_csv_number_exact(out, c->x);
        else if (json)
          g_string_append(out, "null");
        break;
      case SIM_SWEEP_COL_BOOL: g_string_append(out, c->b ? "true" : "false"); break;
      case SIM_SWEEP_COL_STRING:
        if (json)
          json_string(out, c->s);
        else
          sim_csv_field(out, c->s);
        break;
      case SIM_SWEEP_COL_INPUT:
        if (json)
          json_input(out, c->s);
        else
          sim_csv_field(out, c->s);
        break;
    }
  }
  g_string_append(out, json ? "}\n" : "\n");
}

static void header(const GArray *cols, GString *out)
{
  for (guint i = 0; i < cols->len; i++) {
    if (i) g_string_append_c(out, ',');
    sim_csv_field(out, g_array_index(cols, SimSweepColumn, i).name);
  }
  g_string_append_c(out, '\n');
}

void sim_sweep_csv_header(const SimSweep *s, GString *out)
{
  header(s->columns, out);
}

void sim_sweep_row_append_csv(const SimSweep *s, const SimSweepRow *row, GString *out)
{
  append_row((const SimSweepColumn *)(void *)s->columns->data, s->columns->len, row, FALSE, out);
}

void sim_sweep_row_append_json(const SimSweep *s, const SimSweepRow *row, GString *out)
{
  append_row((const SimSweepColumn *)(void *)s->columns->data, s->columns->len, row, TRUE, out);
}

SimSweepRow *sim_sweep_row_parse_json(const SimSweep *s, const char *line, GError **error)
{
  g_autoptr(JsonParser) parser = json_parser_new();
  if (!json_parser_load_from_data(parser, line, -1, error)) return NULL;
  JsonNode *root = json_parser_get_root(parser);
  if (!root || !JSON_NODE_HOLDS_OBJECT(root)) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "not a JSON object");
    return NULL;
  }
  JsonObject *obj = json_node_get_object(root);
  g_autoptr(SimSweepRow) row = row_new(s->columns->len);
  for (guint i = 0; i < s->columns->len; i++) {
    const SimSweepColumn *col = &g_array_index(s->columns, SimSweepColumn, i);
    JsonNode *v = json_object_get_member(obj, col->name);
    if (!v) {
      g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "no column '%s'", col->name);
      return NULL;
    }
    if (JSON_NODE_HOLDS_NULL(v) || col->type == SIM_SWEEP_COL_INPUT) continue; /* inputs: from the spec below */
    GType t = json_node_get_value_type(v);
    gboolean num = t == G_TYPE_INT64 || t == G_TYPE_DOUBLE;
    gboolean fits = col->type == SIM_SWEEP_COL_BOOL     ? t == G_TYPE_BOOLEAN
                    : col->type == SIM_SWEEP_COL_STRING ? t == G_TYPE_STRING
                    : col->type == SIM_SWEEP_COL_INT    ? t == G_TYPE_INT64
                                                        : num;
    if (!JSON_NODE_HOLDS_VALUE(v) || !fits) {
      g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "column '%s' holds the wrong type", col->name);
      return NULL;
    }
    SimSweepCell *c = &row->cells[i];
    switch (col->type) {
      case SIM_SWEEP_COL_INT: sim_sweep_cell_set_int(c, json_node_get_int(v)); break;
      case SIM_SWEEP_COL_NUMBER: sim_sweep_cell_set_number(c, json_node_get_double(v)); break;
      case SIM_SWEEP_COL_BOOL: sim_sweep_cell_set_bool(c, json_node_get_boolean(v)); break;
      default: sim_sweep_cell_set_string(c, json_node_get_string(v)); break;
    }
  }
  gint64 point = row->cells[COL_POINT].i, rep = row->cells[COL_REPLICATION].i;
  if (row->cells[COL_POINT].missing || row->cells[COL_REPLICATION].missing || point < 0 || point >= s->n_points || rep < 0 ||
      rep >= s->replications) {
    g_set_error(error, SIM_SWEEP_ERROR, SIM_SWEEP_ERROR_OTHER_SWEEP,
                "point %" G_GINT64_FORMAT " replication %" G_GINT64_FORMAT " is not in this sweep", point, rep);
    return NULL;
  }
  /* rows of another ocasim are not this sweep's: a resume must not mix two versions' rows in one file */
  const char *v = row->cells[s->error_col + 1].s;
  if (!v || strcmp(v, s->version)) {
    g_set_error(error, SIM_SWEEP_ERROR, SIM_SWEEP_ERROR_OTHER_SWEEP, "written by ocasim %s, this is ocasim %s", v ? v : "(none)",
                s->version);
    return NULL;
  }
  set_key_cells(s, (guint)point, row);
  return g_steal_pointer(&row);
}

gboolean sim_sweep_row_line_is_run(const SimSweep *s, const char *line, guint run)
{
  g_return_val_if_fail(run < sim_sweep_n_runs(s), FALSE);
  g_autoptr(SimSweepRow) want = row_new(s->columns->len);
  fill_ids(s, run, want);
  g_autoptr(GString) prefix = g_string_new(NULL);
  append_row((const SimSweepColumn *)(void *)s->columns->data, s->first_output, want, TRUE, prefix);
  g_string_truncate(prefix, prefix->len - 2); /* the row's end, "}\n": the outputs follow */
  g_string_append(prefix, ", ");
  return g_str_has_prefix(line, prefix->str);
}

gboolean sim_sweep_row_failed(const SimSweep *s, const SimSweepRow *row)
{
  const SimSweepCell *c = &row->cells[s->error_col];
  return c->missing || !c->s || *c->s != '\0';
}

gboolean sim_sweep_row_line_failed(const char *line)
{
  g_autoptr(JsonParser) parser = json_parser_new();
  if (!json_parser_load_from_data(parser, line, -1, NULL)) return TRUE;
  JsonNode *root = json_parser_get_root(parser);
  if (!root || !JSON_NODE_HOLDS_OBJECT(root)) return TRUE;
  JsonNode *e = json_object_get_member(json_node_get_object(root), error_column.name);
  if (!e || !JSON_NODE_HOLDS_VALUE(e) || json_node_get_value_type(e) != G_TYPE_STRING) return TRUE;
  return *json_node_get_string(e) != '\0';
}

/* ------------------------------------------------------------------------------------------ */
/* Summary of replications                                                                    */

void sim_sweep_summary_csv_header(const SimSweep *s, GString *out)
{
  header(s->summary, out);
}

void sim_sweep_summary_append(const SimSweep *s, guint point, SimSweepRow *const *rows, guint n, gboolean json, GString *out)
{
  g_autoptr(SimSweepRow) sum = row_new(s->summary->len);
  guint col = 0;
  sim_sweep_cell_set_int(&sum->cells[col++], point);
  for (guint k = 0; k < s->keys->len; k++) sim_sweep_cell_set_string(&sum->cells[col++], sim_sweep_value(s, point, k));
  guint ok = 0;
  for (guint r = 0; r < n; r++) ok += !*rows[r]->cells[s->error_col].s;
  sim_sweep_cell_set_int(&sum->cells[col++], ok);
  sim_sweep_cell_set_int(&sum->cells[col++], n - ok);
  g_autofree double *x = g_new(double, MAX(n, 1));
  for (guint i = 0; i < s->n_outputs; i++) {
    guint c = s->first_output + i;
    const SimSweepColumn *o = &g_array_index(s->columns, SimSweepColumn, c);
    SimSweepColType t = o->type;
    if (!summarised(o)) continue;
    guint m = 0;
    for (guint r = 0; r < n; r++) {
      const SimSweepCell *cell = &rows[r]->cells[c];
      if (!cell->missing) x[m++] = t == SIM_SWEEP_COL_INT ? (double)cell->i : cell->x;
    }
    double mean = NAN, hw = NAN;
    if (m > 0) {
      mean = 0;
      for (guint j = 0; j < m; j++) mean += x[j];
      mean /= m;
    }
    if (m > 1) {
      double ss = 0;
      for (guint j = 0; j < m; j++) ss += (x[j] - mean) * (x[j] - mean);
      hw = gsl_cdf_tdist_Pinv(SWEEP_T_P, m - 1) * sqrt(ss / (m - 1)) / sqrt((double)m);
    }
    sim_sweep_cell_set_number(&sum->cells[col++], mean);
    sim_sweep_cell_set_number(&sum->cells[col++], hw);
  }
  sim_sweep_cell_set_string(&sum->cells[col++], s->version);
  append_row((const SimSweepColumn *)(void *)s->summary->data, s->summary->len, sum, json, out);
}
