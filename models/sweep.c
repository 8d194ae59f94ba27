/* models/sweep.c — sweep files, their points and seeds, and one run evaluated in-process
 * (see sweep.h).
 *
 * Loading: the sweep file's top-level keys bind through a schema (sim_conf_bind), `vary:`
 * is walked by hand; the base scenario is loaded once with its platform and `set:`, and every
 * run works on a deep copy of it (sim_conf_doc_copy), so no file is read again per point.
 * A run applies its point's values with sim_conf_apply_override_as (the source of each value
 * is its "FILE:LINE:COL" in the sweep file), binds the appliance and evaluates it exactly as
 * `ocasim bound`, `run` or `capacity` do (appliance_from_conf, demand_build, bound_eval /
 * des_run / capacity_des: the p99 criterion by DES runs, as `ocasim capacity`,
 * unless capacity_latency: bound asks for the bound's instant estimate).
 * Leaves out: sweeps of queueing-network scenarios, adaptive or random point designs.
 */
#include "models/sweep.h"

#include <gsl/gsl_cdf.h>
#include <json-glib/json-glib.h>
#include <errno.h>
#include <math.h>
#include <string.h>
#include "models/modes/capacity.h"
#include "models/modes/des.h"
#include "models/appliance/failure.h"
#include "sim/conf.h"
#include "sim/csv.h"

APP_ENUM_DEFINE(sweep_mode, SWEEP_MODE_MAP);
APP_ENUM_DEFINE(sweep_cap_latency, SWEEP_CAP_LATENCY_MAP);
G_DEFINE_QUARK(ocasim - sweep - error - quark, sweep_error)

/* Most points one sweep may hold (the product of its axes) and values one range may give. */
#define SWEEP_MAX_RUNS 10000000u
/* Most replications of a point. */
#define SWEEP_MAX_REPLICATIONS "10000"
/* Relative slack on (to - from) / step, so that 0.1 .. 0.3 step 0.1 keeps its last value. */
#define SWEEP_RANGE_SLACK 1e-9
/* A run's seed keeps the top 53 bits of the first 8 bytes of its SHA-256 (sweep_seed): 64 - 53
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

struct SweepSpec {
  char *file;
  char *scenario_name;
  SweepMode mode;
  SweepCapLatency cap_latency; /* mode capacity: the p99 criterion by DES runs or by the bound */
  guint replications;
  guint64 seed;
  gboolean seed_varied; /* `seed` is one of the keys */
  SimConfDoc *base;     /* the scenario with its platform, `set:` and the command line's --set */
  GPtrArray *keys;      /* SweepKey* */
  GArray *axes;         /* SweepAxis, file order */
  guint n_points;
  GArray *columns;    /* SweepColumn of a run row */
  GArray *summary;    /* SweepColumn of a summary row */
  guint first_output; /* index of the first output column */
  guint n_outputs;
  guint error_col;      /* index of the error column (the version column follows it, last) */
  char *version;        /* the ocasim_version column of every row (sweep_load's @version) */
  WlShareCache *shares; /* drive shares shared by the points (the Zipf sum is most of a bound) */
  GPtrArray *fixed;     /* char *: the overrides of every point, "key=value" (set:, then --set; a key once, with its
                           last value, where it was first given) */
  GPtrArray *fixed_at;  /* char *: where each of fixed was given ("set: (line 5)", "--set"), for vary:'s check */
  char *overrides;      /* them joined by "; ", the overrides column */
  gboolean headroom;    /* mode capacity with workload.headroom in the base or varied: its columns too */
  char *inputs;         /* sweep_inputs(): the digest of what the rows depend on */
  double interval;      /* mode bound: the level of the points' prediction intervals, 0: none (sweep_set_interval) */
};

/* The sweep file's top-level keys. */
typedef struct {
  char *kind;
  char *scenario;
  int mode;
  int cap_latency;
  int replications;
  int64_t seed;
  const SimConfNode *set;
  const SimConfNode *vary;
} SweepConf;

#define F(m) offsetof(SweepConf, m)
/* clang-format off */
static const SimConfField sweep_schema[] = {
  { .key = "kind", .type = SIM_CONF_T_STRING, .offset = F(kind), .doc = "sweep (optional)" },
  { .key = "scenario", .type = SIM_CONF_T_STRING, .offset = F(scenario), .required = true,
    .doc = "the appliance scenario swept, relative to the sweep file" },
  { .key = "mode", .type = SIM_CONF_T_ENUM, .offset = F(mode), .def = "bound", .enum_names = sweep_mode_names,
    .doc = "what each run evaluates: bound, run (the DES) or capacity" },
  { .key = "capacity_latency", .type = SIM_CONF_T_ENUM, .offset = F(cap_latency), .def = "run",
    .enum_names = sweep_cap_latency_names,
    .doc = "mode capacity: the p99 criterion by DES runs at candidate loads as ocasim capacity does (run), or by the bound's estimate (bound; docs/outputs.md)" },
  { .key = "replications", .type = SIM_CONF_T_INT, .offset = F(replications), .def = "1", .min = "1",
    .max = SWEEP_MAX_REPLICATIONS, .doc = "runs per point, each with its own seed (mode run)" },
  { .key = "seed", .type = SIM_CONF_T_INT64, .offset = F(seed), .def = "1", .min = "0", .doc = "the sweep seed" },
  { .key = "set", .type = SIM_CONF_T_NODE, .offset = F(set), .doc = "fixed overrides: key.path: value" },
  { .key = "vary", .type = SIM_CONF_T_NODE, .offset = F(vary), .doc = "the keys to vary" },
  SIM_CONF_END
};
/* clang-format on */
#undef F

const SimConfField *sweep_conf_schema(void)
{
  return sweep_schema;
}

/* The six id columns, then the varied keys, then the outputs of the mode, then the error and the version. */
static const SweepColumn id_columns[] = {
  { "point", SWEEP_COL_INT, "", "index of the point, 0-based, in the order of the sweep file's axes" },
  { "replication", SWEEP_COL_INT, "", "replication of the point, 0-based" },
  { "scenario", SWEEP_COL_STRING, "", "name of the base scenario" },
  { "mode", SWEEP_COL_STRING, "", "bound, run or capacity" },
  { "seed", SWEEP_COL_INT, "", "scenario seed of the run (derived: models/sweep.h)" },
  { "overrides", SWEEP_COL_STRING, "", "the fixed overrides of every point (the sweep's set:, then --set), \"; \"-separated" },
};
enum { COL_POINT, COL_REPLICATION, COL_SCENARIO, COL_MODE, COL_SEED, COL_OVERRIDES, N_ID_COLUMNS };

/* Headline outputs of an appliance report (bound, run, and capacity at the capacity load). */
static const SweepColumn report_columns[] = {
  { "offered_gbps", SWEEP_COL_NUMBER, "Gb/s", "offered load; empty when saturate" },
  { "saturate", SWEEP_COL_BOOL, "", "the offered load is \"saturate\" (an endless backlog)" },
  { "throughput_gbps", SWEEP_COL_NUMBER, "Gb/s", "served TLS payload" },
  { "unserved_gbps", SWEEP_COL_NUMBER, "Gb/s", "offered load the box did not serve (0 below saturation)" },
  { "overloaded", SWEEP_COL_BOOL, "", "the offered load exceeds what the box serves" },
  { "cpu_util_pct", SWEEP_COL_NUMBER, "%", "CPU utilisation over all nodes (the mean of the nodes)" },
  { "cpu_busiest_node_pct", SWEEP_COL_NUMBER, "%", "CPU utilisation of the busiest NUMA node (the one that meets the CPU cap)" },
  { "cpu_busiest_node", SWEEP_COL_STRING, "", "that node's CPU resource, e.g. cpu.node0" },
  { "p50_ms", SWEEP_COL_NUMBER, "ms", "median request latency" },
  { "p99_ms", SWEEP_COL_NUMBER, "ms", "99th-percentile request latency" },
  { "connections", SWEEP_COL_NUMBER, "", "client connections the throughput feeds" },
  { "bottleneck", SWEEP_COL_STRING, "", "the named bottleneck resource" },
  { "bottleneck_kind", SWEEP_COL_STRING, "", "its kind (cpu, dram, fabric, nvme, pcie, nic_port, ...)" },
  { "bottleneck_util_frac", SWEEP_COL_NUMBER, "fraction",
    "its utilisation, 0..1 of its capacity net of efficiency (docs/outputs.md: util_frac)" },
};
enum {
  R_OFFERED,
  R_SATURATE,
  R_THROUGHPUT,
  R_UNSERVED,
  R_OVERLOADED,
  R_CPU,
  R_CPU_BUSIEST,
  R_CPU_BUSIEST_NODE,
  R_P50,
  R_P99,
  R_CONN,
  R_BN,
  R_BN_KIND,
  R_BN_UTIL
};

/* The discrete-event run's batch-means CIs and counters. */
static const SweepColumn run_columns[] = {
  { "throughput_ci95_gbps", SWEEP_COL_NUMBER, "Gb/s",
    "95 % half-width of throughput_gbps (batch means and the offered load's own noise)" },
  { "p50_ci95_ms", SWEEP_COL_NUMBER, "ms", "95 % half-width of p50_ms (batch quantiles)" },
  { "p99_ci95_ms", SWEEP_COL_NUMBER, "ms", "95 % half-width of p99_ms (batch quantiles)" },
  { "requests_rejected", SWEEP_COL_INT, "", "arrivals turned away (every slot's wait queue full)" },
  { "steady_state", SWEEP_COL_BOOL, "", "the run served at least 90 % of what the bound serves" },
};

/* Mode bound: the prediction interval of the point (models/modes/interval.h; empty with
 * sweep_set_interval(0), `ocasim sweep --no-interval`). */
static const SweepColumn interval_columns[] = {
  { "throughput_gbps_lo", SWEEP_COL_NUMBER, "Gb/s", "low end of the throughput's prediction interval" },
  { "throughput_gbps_hi", SWEEP_COL_NUMBER, "Gb/s", "high end of the throughput's prediction interval" },
  { "cpu_util_pct_lo", SWEEP_COL_NUMBER, "%", "low end of cpu_util_pct's prediction interval" },
  { "cpu_util_pct_hi", SWEEP_COL_NUMBER, "%", "high end of cpu_util_pct's prediction interval" },
  { "interval_level", SWEEP_COL_NUMBER, "fraction", "the intervals' level (0.8 unless --interval)" },
  { "bottleneck_probability", SWEEP_COL_NUMBER, "fraction",
    "share of the interval's draws whose bottleneck is of bottleneck_kind's kind" },
};

/* Capacity: the capacity and each criterion's limit, before the report at the capacity load. */
static const SweepColumn capacity_columns[] = {
  { "capacity_gbps", SWEEP_COL_NUMBER, "Gb/s", "largest healthy offered load; empty when no criterion limits it" },
  { "limiting_criterion", SWEEP_COL_STRING, "", "cpu, drops, latency, saturation, ram or headroom" },
  { "cpu_limit_gbps", SWEEP_COL_NUMBER, "Gb/s", "load where the busiest CPU node reaches its cap; empty: never" },
  { "drops_limit_gbps", SWEEP_COL_NUMBER, "Gb/s", "load where NIC drops reach workload.drop_max; empty: never" },
  { "latency_limit_gbps", SWEEP_COL_NUMBER, "Gb/s", "load where p99 reaches workload.latency_slo; empty: never" },
  { "saturation_limit_gbps", SWEEP_COL_NUMBER, "Gb/s", "load where a non-CPU resource saturates; empty: never" },
  { "latency_check", SWEEP_COL_STRING, "",
    "how the p99 criterion was checked: run (DES runs, as ocasim capacity's latency_check.by) or bound (the bound's estimate)" },
  { "latency_bound_gbps", SWEEP_COL_NUMBER, "Gb/s",
    "the bound's estimate of the latency limit (beside the DES's, for comparison); empty: never" },
  { "ram_limit_gbps", SWEEP_COL_NUMBER, "Gb/s",
    "load where the RAM needed reaches memory.installed; empty: never, or memory.installed not given" },
};

/* Capacity with workload.headroom set in the base scenario or varied: the headroom criterion,
 * after the capacity columns (absent otherwise, so a sweep without it keeps its columns). */
static const SweepColumn headroom_columns[] = {
  { "headroom_limit_gbps", SWEEP_COL_NUMBER, "Gb/s",
    "load where a resource reaches its kind's workload.headroom limit; empty: never" },
  { "headroom_resource", SWEEP_COL_STRING, "",
    "the resource at its workload.headroom limit there (e.g. dram.node0); empty: none" },
  { "headroom_limit_pct", SWEEP_COL_NUMBER, "%", "that resource's kind's workload.headroom limit; empty: none" },
};

static const SweepColumn error_column = { "error", SWEEP_COL_STRING, "", "why the run failed; empty when it succeeded" };
/* last in a run row and a summary row, as in every single command's CSV (cli/common.h) */
static const SweepColumn version_column = { "ocasim_version", SWEEP_COL_STRING, "",
                                            "the version of ocasim that wrote the row (ocasim --version)" };

static void key_free(gpointer p)
{
  SweepKey *k = p;
  g_free(k->key);
  g_ptr_array_unref(k->values);
  g_ptr_array_unref(k->labels);
  g_free(k);
}

void sweep_free(SweepSpec *s)
{
  if (!s) return;
  g_free(s->file);
  g_free(s->scenario_name);
  sim_conf_doc_free(s->base);
  workload_share_cache_free(s->shares);
  if (s->fixed) g_ptr_array_unref(s->fixed);
  if (s->fixed_at) g_ptr_array_unref(s->fixed_at);
  g_free(s->overrides);
  g_free(s->version);
  g_free(s->inputs);
  if (s->summary) {
    /* the NAME_mean / NAME_ci95 names follow point, the keys, runs and failed */
    for (guint i = 1 + s->keys->len + 2; i + 1 < s->summary->len; i++)
      g_free((char *)g_array_index(s->summary, SweepColumn, i).name);
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
static void fixed_add(SweepSpec *s, const char *kv_text, const char *where)
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
static SweepKey *parse_key_entry(SweepSpec *s, const SimConfNode *e, GError **error)
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
  if (!strcmp(path, "platform") || g_str_has_prefix(path, "platform.")) {
    sim_conf_set_error(error, key, SIM_CONF_ERROR_OVERRIDE,
                       "the platform file is included before any override; sweep scenarios that include it instead");
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

static gboolean parse_vary(SweepSpec *s, const SimConfNode *vary, GError **error)
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

/* The base scenario as set must bind; then each value alone on it: an error located at the
 * value (its label) is the sweep file's error; any other is left to the points (a check across
 * keys). */
static gboolean check_values(const SweepSpec *s, GError **error)
{
  {
    Appliance *a = g_new0(Appliance, 1);
    AppScenarioInfo info = { 0 };
    gboolean ok = appliance_from_conf(sim_conf_doc_root(s->base), a, &info, error);
    app_scenario_info_clear(&info);
    g_free(a);
    if (!ok) return FALSE;
  }
  for (guint k = 0; k < s->keys->len; k++) {
    const SweepKey *key = g_ptr_array_index(s->keys, k);
    for (guint v = 0; v < key->values->len; v++) {
      const char *label = g_ptr_array_index(key->labels, v);
      g_autoptr(SimConfDoc) doc = sim_conf_doc_copy(s->base);
      if (!apply(doc, key->key, g_ptr_array_index(key->values, v), label, error)) return FALSE;
      Appliance *a = g_new0(Appliance, 1);
      AppScenarioInfo info = { 0 };
      GError *e = NULL;
      gboolean ok = appliance_from_conf(sim_conf_doc_root(doc), a, &info, &e);
      app_scenario_info_clear(&info);
      g_free(a);
      if (ok) continue;
      g_autofree char *prefix = g_strdup_printf("%s: ", label);
      if (g_str_has_prefix(e->message, prefix)) {
        g_propagate_error(error, e);
        return FALSE;
      }
      g_error_free(e);
    }
  }
  return TRUE;
}

static gboolean apply_set(SweepSpec *s, const SimConfNode *set, GError **error)
{
  if (!set) return TRUE;
  if (sim_conf_node_kind(set) != SIM_CONF_NODE_MAP) {
    sim_conf_set_error(error, set, SIM_CONF_ERROR_TYPE, "expected a map of key.path: value");
    return FALSE;
  }
  for (guint i = 0; i < sim_conf_node_size(set); i++) {
    const char *key = sim_conf_map_key(set, i);
    const SimConfNode *v = sim_conf_node_child(set, i);
    if (!strcmp(key, "platform") || g_str_has_prefix(key, "platform.") || !strcmp(key, "seed")) {
      sim_conf_set_error(error, v, SIM_CONF_ERROR_OVERRIDE, "%s",
                         strcmp(key, "seed") ? "the platform file is included before any override"
                                             : "every run's seed derives from the sweep's seed: (or vary seed)");
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
static gboolean summarised(const SweepColumn *o)
{
  return (o->type == SWEEP_COL_NUMBER || o->type == SWEEP_COL_INT) && !strstr(o->name, "_ci95");
}

/* The row cell of varied key @k: its own column after the id columns, or -1 for a varied `seed`,
 * whose value is the id column seed (one column of that name, not two). */
static gint key_cell(const SweepSpec *s, guint k)
{
  gint col = N_ID_COLUMNS;
  for (guint j = 0; j < k; j++) col += strcmp(((const SweepKey *)g_ptr_array_index(s->keys, j))->key, "seed") != 0;
  return strcmp(((const SweepKey *)g_ptr_array_index(s->keys, k))->key, "seed") ? col : -1;
}

/* The column of varied key @k (in the rows and in the summary). */
static SweepColumn key_column(const SweepSpec *s, guint k)
{
  return (SweepColumn){ ((const SweepKey *)g_ptr_array_index(s->keys, k))->key, SWEEP_COL_INPUT, "",
                        "a varied input, as the sweep file writes it" };
}

static void build_columns(SweepSpec *s)
{
  s->columns = g_array_new(FALSE, FALSE, sizeof(SweepColumn));
  g_array_append_vals(s->columns, id_columns, N_ID_COLUMNS);
  for (guint k = 0; k < s->keys->len; k++) {
    SweepColumn c = key_column(s, k);
    if (key_cell(s, k) >= 0) g_array_append_val(s->columns, c);
  }
  s->first_output = s->columns->len;
  if (s->mode == SWEEP_CAPACITY) g_array_append_vals(s->columns, capacity_columns, G_N_ELEMENTS(capacity_columns));
  if (s->mode == SWEEP_CAPACITY && s->headroom) g_array_append_vals(s->columns, headroom_columns, G_N_ELEMENTS(headroom_columns));
  g_array_append_vals(s->columns, report_columns, G_N_ELEMENTS(report_columns));
  if (s->mode == SWEEP_RUN) g_array_append_vals(s->columns, run_columns, G_N_ELEMENTS(run_columns));
  if (s->mode == SWEEP_BOUND) g_array_append_vals(s->columns, interval_columns, G_N_ELEMENTS(interval_columns));
  s->n_outputs = s->columns->len - s->first_output;
  s->error_col = s->columns->len;
  g_array_append_val(s->columns, error_column);
  g_array_append_val(s->columns, version_column);

  /* summary: point, the keys, runs, failed, NAME_mean and NAME_ci95 per numeric output */
  s->summary = g_array_new(FALSE, FALSE, sizeof(SweepColumn));
  g_array_append_val(s->summary, id_columns[COL_POINT]);
  for (guint k = 0; k < s->keys->len; k++) {
    SweepColumn c = key_column(s, k);
    g_array_append_val(s->summary, c);
  }
  SweepColumn runs = { "runs", SWEEP_COL_INT, "", "replications that succeeded" };
  SweepColumn failed = { "failed", SWEEP_COL_INT, "", "replications that failed" };
  g_array_append_val(s->summary, runs);
  g_array_append_val(s->summary, failed);
  for (guint i = 0; i < s->n_outputs; i++) {
    const SweepColumn *o = &g_array_index(s->columns, SweepColumn, s->first_output + i);
    if (!summarised(o)) continue;
    SweepColumn mean = { g_strdup_printf("%s_mean", o->name), SWEEP_COL_NUMBER, o->unit, "mean over the replications" };
    SweepColumn ci = { g_strdup_printf("%s_ci95", o->name), SWEEP_COL_NUMBER, o->unit,
                       "95 % half-width over the replications (Student t)" };
    g_array_append_val(s->summary, mean);
    g_array_append_val(s->summary, ci);
  }
  g_array_append_val(s->summary, version_column);
}

/* The command line's overrides: "key.path=value" (--set), or "--OPTION=value" for an option
 *  that stands for the key OPTION (--duration, --warmup), which its messages then name. */
static gboolean apply_command_line(SweepSpec *s, const char *const *sets, GError **error)
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

/* The text of sweep_inputs(): the sweep file's tree (@root) and the base scenario's (with its
 * platform, set: and the command line), the sweep seed and the version. */
static char *inputs_text(const SweepSpec *s, const SimConfNode *root)
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

void sweep_set_interval(SweepSpec *s, double level)
{
  g_return_if_fail(level >= 0 && level < 1);
  s->interval = level;
  if (!s->inputs) return;
  /* the rows' interval columns depend on the level: it joins the digest (sweep_inputs), as a line
   * "interval LEVEL" and in the sha256 line's hash, so --resume at another level is refused */
  g_auto(GStrv) lines = g_strsplit(s->inputs, "\n", -1);
  GString *out = g_string_new(NULL);
  for (char **l = lines; *l; l++) {
    if (g_str_has_prefix(*l, "interval ")) continue;
    if (g_str_has_prefix(*l, "sha256 ")) {
      g_autofree char *mix = g_strdup_printf("%s\ninterval=%.17g\n", *l + 7, level);
      g_autofree char *sha = g_compute_checksum_for_string(G_CHECKSUM_SHA256, mix, -1);
      g_string_append_printf(out, "sha256 %s\ninterval %.12g", sha, level);
    } else
      g_string_append(out, *l);
    if (l[1]) g_string_append_c(out, '\n');
  }
  g_free(s->inputs);
  s->inputs = g_string_free(out, FALSE);
}

SweepSpec *sweep_load(const char *path, const char *const *sets, gint64 seed, const SimConfIncludePolicy *includes,
                      const char *version, GError **error)
{
  g_return_val_if_fail(version != NULL, NULL);
  g_autoptr(SimConfDoc) doc = sim_conf_load_file(path, error);
  if (!doc) return NULL;
  const SimConfNode *root = sim_conf_doc_root(doc);
  SweepConf c = { 0 };
  g_autoptr(SweepSpec) s = g_new0(SweepSpec, 1);
  s->file = g_strdup(path);
  s->version = g_strdup(version);
  s->keys = g_ptr_array_new_with_free_func(key_free);
  s->axes = g_array_new(FALSE, FALSE, sizeof(SweepAxis));
  s->n_points = 1;
  s->shares = workload_share_cache_new();
  s->fixed = g_ptr_array_new_with_free_func(g_free);
  s->fixed_at = g_ptr_array_new_with_free_func(g_free);
  /* a scenario given for a sweep file: said at its kind, before its keys are unknown here */
  const SimConfNode *file_kind = sim_conf_node_get(root, "kind");
  const char *fk = file_kind && sim_conf_node_kind(file_kind) == SIM_CONF_NODE_SCALAR ? sim_conf_node_text(file_kind) : NULL;
  if (fk && (!strcmp(fk, "appliance") || !strcmp(fk, "queueing_network"))) {
    sim_conf_set_error(error, file_kind, SIM_CONF_ERROR_ENUM,
                       "this is a scenario (kind: %s), not a sweep file: a sweep file names it as scenario: FILE", fk);
    return NULL;
  }
  gboolean ok = sim_conf_bind(root, sweep_schema, &c, error);
  if (ok && c.kind && strcmp(c.kind, "sweep")) {
    sim_conf_set_error(error, sim_conf_node_get(root, "kind"), SIM_CONF_ERROR_ENUM, "expected kind 'sweep', got '%s'", c.kind);
    ok = FALSE;
  }
  if (ok) {
    s->mode = (SweepMode)c.mode;
    s->cap_latency = (SweepCapLatency)c.cap_latency;
    s->replications = (guint)c.replications;
    s->seed = (guint64)(seed >= 0 ? seed : c.seed);
    const SimConfNode *scen = sim_conf_node_get(root, "scenario");
    g_autofree char *spath = sim_conf_node_resolve_path(scen, error);
    GError *e = NULL;
    s->base = !spath     ? NULL
              : includes ? sim_conf_load_with_include_policy(spath, "platform", includes, &e)
                         : sim_conf_load_with_include(spath, "platform", &e);
    if (spath && !s->base) {
      if (e->code == SIM_CONF_ERROR_IO) { /* a file that cannot be read: at the key that names it */
        sim_conf_set_error(error, scen, SIM_CONF_ERROR_IO, "%s", e->message);
        g_error_free(e);
      } else {
        g_propagate_error(error, e);
      }
    }
    ok = s->base != NULL;
    const SimConfNode *kind = ok ? sim_conf_node_get(sim_conf_doc_root(s->base), "kind") : NULL;
    const char *kt = kind && sim_conf_node_kind(kind) == SIM_CONF_NODE_SCALAR ? sim_conf_node_text(kind) : "";
    if (ok && strcmp(kt, "appliance")) {
      sim_conf_set_error(error, scen, SIM_CONF_ERROR_ENUM, "a sweep needs an appliance scenario (kind: appliance), not '%s'", kt);
      ok = FALSE;
    }
  }
  ok = ok && apply_set(s, c.set, error) && apply_command_line(s, sets, error) && parse_vary(s, c.vary, error);
  for (guint k = 0; ok && k < s->keys->len; k++)
    s->seed_varied |= !strcmp(((SweepKey *)g_ptr_array_index(s->keys, k))->key, "seed");
  if (ok && s->replications > 1 && (s->mode != SWEEP_RUN || s->seed_varied)) {
    sim_conf_set_error(error, sim_conf_node_get(root, "replications"), SIM_CONF_ERROR_RANGE,
                       s->seed_varied ? "replications > 1 would repeat the varied seeds; vary the seed or replicate, not both"
                                      : "replications > 1 need mode run (bound and capacity are deterministic)");
    ok = FALSE;
  }
  if (ok && s->mode != SWEEP_CAPACITY && sim_conf_node_get(root, "capacity_latency")) {
    sim_conf_set_error(error, sim_conf_node_get(root, "capacity_latency"), SIM_CONF_ERROR_RANGE,
                       "needs mode capacity (it says how the p99 criterion is checked)");
    ok = FALSE;
  }
  if (ok && (double)s->n_points * s->replications > SWEEP_MAX_RUNS) {
    sim_conf_set_error(error, sim_conf_node_get(root, "replications"), SIM_CONF_ERROR_RANGE, "more than %u runs", SWEEP_MAX_RUNS);
    ok = FALSE;
  }
  ok = ok && check_values(s, error);
  if (ok) {
    g_ptr_array_add(s->fixed, NULL);
    s->overrides = g_strjoinv("; ", (char **)s->fixed->pdata);
    g_ptr_array_remove_index(s->fixed, s->fixed->len - 1);
    const SimConfNode *name = sim_conf_node_get(sim_conf_doc_root(s->base), "name");
    s->scenario_name = name && sim_conf_node_kind(name) == SIM_CONF_NODE_SCALAR ? g_strdup(sim_conf_node_text(name))
                                                                                : g_path_get_basename(c.scenario);
    /* the headroom columns where a point may set workload.headroom: the base has it or a key varies it */
    const SimConfNode *wl = sim_conf_node_get(sim_conf_doc_root(s->base), "workload");
    s->headroom = wl && sim_conf_node_kind(wl) == SIM_CONF_NODE_MAP && sim_conf_node_get(wl, "headroom");
    for (guint k = 0; k < s->keys->len; k++)
      s->headroom |= g_str_has_prefix(((const SweepKey *)g_ptr_array_index(s->keys, k))->key, "workload.headroom");
    s->interval = APP_INTERVAL_LEVEL;
    build_columns(s);
    s->inputs = inputs_text(s, root);
  }
  sim_conf_unbind(sweep_schema, &c);
  return ok ? g_steal_pointer(&s) : NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* Points and seeds                                                                           */

SweepMode sweep_mode(const SweepSpec *s)
{
  return s->mode;
}

guint sweep_n_points(const SweepSpec *s)
{
  return s->n_points;
}

guint sweep_replications(const SweepSpec *s)
{
  return s->replications;
}

guint sweep_n_runs(const SweepSpec *s)
{
  return s->n_points * s->replications;
}

const char *sweep_inputs(const SweepSpec *s)
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

char *sweep_inputs_changed(const SweepSpec *s, const char *stored)
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
  g_autofree char *old_iv = inputs_field(old, "interval"), *now_iv = inputs_field(now, "interval");
  if (g_strcmp0(old_iv, now_iv))
    g_string_append_printf(why, "; prediction intervals at level %s, now %s", old_iv ? old_iv : "?", now_iv ? now_iv : "?");
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

guint sweep_n_keys(const SweepSpec *s)
{
  return s->keys->len;
}

const char *sweep_key(const SweepSpec *s, guint k)
{
  g_return_val_if_fail(k < s->keys->len, NULL);
  return ((const SweepKey *)g_ptr_array_index(s->keys, k))->key;
}

/* The value index of key @k's axis at point @p (mixed radix, the last axis fastest). */
static guint value_index(const SweepSpec *s, guint p, guint k)
{
  for (guint a = s->axes->len; a-- > 0;) {
    const SweepAxis *ax = &g_array_index(s->axes, SweepAxis, a);
    if (k >= ax->first && k < ax->first + ax->n_keys) return p % ax->n_values;
    p /= ax->n_values;
  }
  g_return_val_if_reached(0);
}

const char *sweep_value(const SweepSpec *s, guint p, guint k)
{
  g_return_val_if_fail(p < s->n_points && k < s->keys->len, NULL);
  const SweepKey *key = g_ptr_array_index(s->keys, k);
  return g_ptr_array_index(key->values, value_index(s, p, k));
}

guint64 sweep_seed(const SweepSpec *s, guint p, guint r)
{
  g_autoptr(GString) text = g_string_new(NULL);
  g_string_append_printf(text, "ocasim-sweep-v1\nseed=%" G_GUINT64_FORMAT "\n", s->seed);
  for (guint k = 0; k < s->keys->len; k++) g_string_append_printf(text, "%s=%s\n", sweep_key(s, k), sweep_value(s, p, k));
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

const SweepColumn *sweep_columns(const SweepSpec *s, guint *n_out)
{
  *n_out = s->columns->len;
  return (const SweepColumn *)(void *)s->columns->data;
}

/* ------------------------------------------------------------------------------------------ */
/* One run                                                                                    */

static SweepRow *row_new(guint n)
{
  SweepRow *row = g_new0(SweepRow, 1);
  row->n = n;
  row->cells = g_new0(SweepCell, n);
  for (guint i = 0; i < n; i++) row->cells[i].missing = TRUE;
  return row;
}

void sweep_row_free(SweepRow *row)
{
  if (!row) return;
  for (guint i = 0; i < row->n; i++) g_free(row->cells[i].s);
  g_free(row->cells);
  g_free(row);
}

static void set_int(SweepCell *c, gint64 v)
{
  c->missing = FALSE;
  c->i = v;
}

static void set_num(SweepCell *c, double v)
{
  c->missing = !isfinite(v);
  c->x = v;
}

static void set_bool(SweepCell *c, gboolean v)
{
  c->missing = FALSE;
  c->b = v;
}

static void set_str(SweepCell *c, const char *v)
{
  g_free(c->s);
  c->s = g_strdup(v);
  c->missing = v == NULL;
}

/* The headline outputs of @rep into report_columns' cells from @o. */
static void fill_report(SweepCell *o, const AppReport *rep)
{
  set_num(&o[R_OFFERED], rep->offered_gbps > 0 ? rep->offered_gbps : NAN);
  set_bool(&o[R_SATURATE], !(rep->offered_gbps > 0));
  set_num(&o[R_THROUGHPUT], rep->throughput_gbps);
  set_num(&o[R_UNSERVED], report_unserved_gbps(rep));
  set_bool(&o[R_OVERLOADED], rep->overloaded);
  set_num(&o[R_CPU], rep->cpu_util_pct);
  AppCpuNodes c;
  report_cpu_nodes(rep, &c);
  if (c.busiest >= 0) {
    set_num(&o[R_CPU_BUSIEST], c.busiest_pct);
    set_str(&o[R_CPU_BUSIEST_NODE], rep->res[c.busiest].name);
  }
  set_num(&o[R_P50], rep->lat_p50_ms);
  set_num(&o[R_P99], rep->lat_p99_ms);
  set_num(&o[R_CONN], rep->connections);
  if (rep->bottleneck >= 0) {
    const AppReportResource *b = &rep->res[rep->bottleneck];
    set_str(&o[R_BN], b->name);
    set_str(&o[R_BN_KIND], b->kind);
    set_num(&o[R_BN_UTIL], b->utilization);
  }
}

/* Evaluates the bound appliance by the mode into the output cells @o. */
static gboolean evaluate(const SweepSpec *s, Appliance *a, const AppScenarioInfo *info, const DemandModel *m, BoundMemo *memo,
                         SweepCell *o, GError **error)
{
  switch (s->mode) {
    case SWEEP_BOUND: {
      g_autoptr(BoundResult) r = bound_eval_memo(a, m, a->wl.offered_gbps, memo);
      g_autoptr(AppReport) rep = report_from_bound(a, info, m, r);
      fill_report(o, rep);
      if (s->interval > 0) {
        AppIntervalSpec spec;
        interval_spec_default(&spec);
        spec.no_contributors = TRUE; /* only the interval is read */
        AppInterval iv;
        if (!interval_eval(a, m->drive_share, a->wl.offered_gbps, &spec, s->interval, APP_INTERVAL_DRAWS, &iv, error))
          return FALSE;
        SweepCell *x = o + G_N_ELEMENTS(report_columns);
        set_num(&x[0], iv.throughput_gbps[0]);
        set_num(&x[1], iv.throughput_gbps[1]);
        set_num(&x[2], iv.cpu_util_pct[0]);
        set_num(&x[3], iv.cpu_util_pct[1]);
        set_num(&x[4], iv.level);
        if (rep->bottleneck >= 0) set_num(&x[5], iv.bottleneck_prob[m->res[rep->bottleneck].kind]);
      }
      return TRUE;
    }
    case SWEEP_RUN: {
      SimFluidResult *raw = NULL;
      g_autoptr(AppReport) rep = des_run(a, info, m, &raw, error);
      if (!rep) return FALSE;
      fill_report(o, rep);
      SweepCell *x = o + G_N_ELEMENTS(report_columns);
      set_num(&x[0], raw->throughput_Bps.half_width * 8e-9);
      set_num(&x[1], raw->latency_p50_hw_s * 1e3);
      set_num(&x[2], raw->latency_p99_hw_s * 1e3);
      set_int(&x[3], rep->requests_rejected);
      set_bool(&x[4], report_steady(rep));
      sim_fluid_result_free(raw);
      return TRUE;
    }
    case SWEEP_CAPACITY: {
      CapacityResult c;
      gboolean des = s->cap_latency == SWEEP_CAP_LATENCY_RUN;
      if (!(des ? capacity_des(a, info, m, NULL, &c, error) : capacity_search(a, m, &c, error))) return FALSE;
      set_num(&o[0], c.capacity_gbps);
      set_str(&o[1], capacity_criterion_name(c.limiting));
      /* the criteria before the RAM, the latency check, then the RAM, in capacity_columns; the
       * headroom's in headroom_columns */
      G_STATIC_ASSERT(CAP_RAM == CAP_HEADROOM - 1 && CAP_HEADROOM == CAP_COUNT - 1 &&
                      G_N_ELEMENTS(capacity_columns) == 5 + CAP_RAM);
      for (int k = 0; k < CAP_RAM; k++) set_num(&o[2 + k], c.limit_gbps[k]);
      set_str(&o[2 + CAP_RAM], des ? "run" : "bound");
      set_num(&o[3 + CAP_RAM], des ? c.latency_bound_gbps : c.limit_gbps[CAP_LATENCY]);
      set_num(&o[4 + CAP_RAM], c.limit_gbps[CAP_RAM]);
      SweepCell *x = o + G_N_ELEMENTS(capacity_columns);
      if (s->headroom) {
        set_num(&x[0], c.limit_gbps[CAP_HEADROOM]);
        set_str(&x[1], c.headroom_res[0] ? c.headroom_res : NULL);
        set_num(&x[2], c.headroom_res[0] ? c.headroom_limit * 100 : NAN);
        x += G_N_ELEMENTS(headroom_columns);
      }
      g_autoptr(AppReport) rep = capacity_report(a, info, m, &c, error);
      if (!rep) return FALSE;
      fill_report(x, rep);
      return TRUE;
    }
    default: g_assert_not_reached();
  }
}

/* Sets the input cells of point @p in @row (a varied seed: the id column seed, an integer). */
static void set_key_cells(const SweepSpec *s, guint p, SweepRow *row)
{
  for (guint k = 0; k < s->keys->len; k++) {
    gint c = key_cell(s, k);
    gint64 seed;
    if (c >= 0)
      set_str(&row->cells[c], sweep_value(s, p, k));
    else if (g_ascii_string_to_signed(sweep_value(s, p, k), 10, 0, G_MAXINT64, &seed, NULL))
      set_int(&row->cells[COL_SEED], seed);
  }
}

/* The id and input cells of run @run. */
static void fill_ids(const SweepSpec *s, guint run, SweepRow *row)
{
  guint p = run / s->replications, r = run % s->replications;
  set_int(&row->cells[COL_POINT], p);
  set_int(&row->cells[COL_REPLICATION], r);
  set_str(&row->cells[COL_SCENARIO], s->scenario_name);
  set_str(&row->cells[COL_MODE], sweep_mode_names[s->mode]);
  set_str(&row->cells[COL_OVERRIDES], s->overrides);
  set_str(&row->cells[s->error_col + 1], s->version);
  if (!s->seed_varied) set_int(&row->cells[COL_SEED], (gint64)sweep_seed(s, p, r));
  set_key_cells(s, p, row);
}

char *sweep_short_run_warning(const SweepSpec *s)
{
  gboolean cap_des = s->mode == SWEEP_CAPACITY && s->cap_latency == SWEEP_CAP_LATENCY_RUN;
  if (s->mode != SWEEP_RUN && !cap_des) return NULL;
  Appliance *a = g_new0(Appliance, 1);
  AppScenarioInfo info = { 0 };
  char *warning = NULL;
  if (appliance_from_conf(sim_conf_doc_root(s->base), a, &info, NULL)) {
    gboolean offered_varied = FALSE;
    for (guint k = 0; k < s->keys->len; k++)
      offered_varied = offered_varied || !strcmp(((const SweepKey *)g_ptr_array_index(s->keys, k))->key, "workload.offered");
    /* capacity's latency check runs at offered loads whatever the scenario's; a varied load is offered at its points */
    if (cap_des || (offered_varied && !(a->wl.offered_gbps > 0))) a->wl.offered_gbps = 1.0;
    warning = des_short_run_warning(a, &info);
  }
  app_scenario_info_clear(&info);
  g_free(a);
  return warning;
}

SweepRow *sweep_run(const SweepSpec *s, guint run)
{
  return sweep_run_memo(s, run, NULL);
}

/* Demand models a SweepMemo keeps (the latest, round robin): a sweep varies other keys faster
 * than the offered load as often as not, so a few points apart share one. Assumed. */
#define SWEEP_MEMO_MODELS 16

struct SweepMemo {
  BoundMemo *bound;
  GArray *key[SWEEP_MEMO_MODELS]; /* guint64: the point's value per key but workload.offered, then the seed */
  DemandModel *m[SWEEP_MEMO_MODELS];
  guint next;
  GArray *scratch; /* the key being looked up */
};

SweepMemo *sweep_memo_new(void)
{
  SweepMemo *memo = g_new0(SweepMemo, 1);
  memo->bound = bound_memo_new();
  memo->scratch = g_array_new(FALSE, FALSE, sizeof(guint64));
  return memo;
}

void sweep_memo_free(SweepMemo *memo)
{
  if (!memo) return;
  bound_memo_free(memo->bound);
  for (int i = 0; i < SWEEP_MEMO_MODELS; i++) {
    if (memo->key[i]) g_array_unref(memo->key[i]);
    demand_free(memo->m[i]);
  }
  g_array_unref(memo->scratch);
  g_free(memo);
}

/* The demand model of point @p's appliance @a (mode bound): the one @memo keeps for a point of
 * the same values but for workload.offered, settled again at @a's load (demand_settle_at: the
 * sweep's base and `set:` are the same for every point, so those values make the same appliance
 * but for the load and the seed, which the demand reads only where titles are placed at random);
 * else built, and kept in @memo where its demand does not depend on the load. NULL with @error as
 * demand_build. (transfer full, or borrowed from @memo: *@owned) */
static DemandModel *point_demand(const SweepSpec *s, guint p, const Appliance *a, SweepMemo *memo, gboolean *owned,
                                 GError **error)
{
  *owned = TRUE;
  if (!memo || s->mode != SWEEP_BOUND || demand_sizing_varies(a)) return demand_build_cached(a, s->shares, error);
  GArray *key = memo->scratch;
  g_array_set_size(key, 0);
  for (guint k = 0; k < s->keys->len; k++) {
    guint64 v = strcmp(sweep_key(s, k), "workload.offered") ? value_index(s, p, k) : G_MAXUINT64;
    g_array_append_val(key, v);
  }
  guint64 seed = a->wl.title_placement == WL_PLACE_RANDOM ? a->seed : 0;
  g_array_append_val(key, seed);
  for (int i = 0; i < SWEEP_MEMO_MODELS; i++)
    if (memo->key[i] && memo->key[i]->len == key->len && !memcmp(memo->key[i]->data, key->data, sizeof(guint64) * key->len) &&
        demand_settle_at(memo->m[i], a)) {
      *owned = FALSE;
      return memo->m[i];
    }
  DemandModel *m = demand_build_cached(a, s->shares, error);
  if (!m) return NULL;
  guint i = memo->next;
  memo->next = (memo->next + 1) % SWEEP_MEMO_MODELS;
  if (memo->key[i]) g_array_unref(memo->key[i]);
  demand_free(memo->m[i]);
  memo->key[i] = g_array_copy(key);
  memo->m[i] = m;
  *owned = FALSE;
  return m;
}

SweepRow *sweep_run_memo(const SweepSpec *s, guint run, SweepMemo *memo)
{
  g_return_val_if_fail(run < sweep_n_runs(s), NULL);
  SweepRow *row = row_new(s->columns->len);
  fill_ids(s, run, row);
  guint p = run / s->replications;
  g_autoptr(GError) error = NULL;
  g_autoptr(SimConfDoc) doc = sim_conf_doc_copy(s->base);
  gboolean ok = TRUE;
  for (guint k = 0; ok && k < s->keys->len; k++) {
    const SweepKey *key = g_ptr_array_index(s->keys, k);
    guint v = value_index(s, p, k);
    ok = apply(doc, key->key, g_ptr_array_index(key->values, v), g_ptr_array_index(key->labels, v), &error);
  }
  if (ok && !s->seed_varied) {
    g_autofree char *seed = g_strdup_printf("%" G_GINT64_FORMAT, row->cells[COL_SEED].i);
    ok = apply(doc, "seed", seed, "sweep seed", &error);
  }
  Appliance *a = g_new0(Appliance, 1);
  AppScenarioInfo info = { 0 };
  DemandModel *m = NULL;
  ok = ok && appliance_from_conf(sim_conf_doc_root(doc), a, &info, &error);
  if (ok && s->seed_varied) set_int(&row->cells[COL_SEED], (gint64)a->seed);
  /* the point's `failures:` (base scenario, set: or varied): its row is the degraded box (failure.h) */
  ok = ok && (!info.failures || appliance_fail(a, (const char *const *)info.failures, &error));
  gboolean owned = TRUE;
  ok = ok && (m = point_demand(s, p, a, memo, &owned, &error)) != NULL;
  ok = ok && evaluate(s, a, &info, m, memo ? memo->bound : NULL, row->cells + s->first_output, &error);
  if (!ok) {
    for (guint i = 0; i < s->n_outputs; i++) {
      SweepCell *c = &row->cells[s->first_output + i];
      g_clear_pointer(&c->s, g_free);
      c->missing = TRUE;
    }
    set_str(&row->cells[s->error_col], error ? error->message : "failed");
  } else {
    set_str(&row->cells[s->error_col], "");
  }
  if (owned) demand_free(m);
  app_scenario_info_clear(&info);
  g_free(a);
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

static void append_row(const SweepColumn *cols, guint n, const SweepRow *row, gboolean json, GString *out)
{
  if (json) g_string_append_c(out, '{');
  for (guint i = 0; i < n; i++) {
    const SweepCell *c = &row->cells[i];
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
      case SWEEP_COL_INT: g_string_append_printf(out, "%" G_GINT64_FORMAT, c->i); break;
      case SWEEP_COL_NUMBER:
        if (isfinite(c->x))
          sim_csv_number_exact(out, c->x);
        else if (json)
          g_string_append(out, "null");
        break;
      case SWEEP_COL_BOOL: g_string_append(out, c->b ? "true" : "false"); break;
      case SWEEP_COL_STRING:
        if (json)
          json_string(out, c->s);
        else
          sim_csv_field(out, c->s);
        break;
      case SWEEP_COL_INPUT:
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
    sim_csv_field(out, g_array_index(cols, SweepColumn, i).name);
  }
  g_string_append_c(out, '\n');
}

void sweep_csv_header(const SweepSpec *s, GString *out)
{
  header(s->columns, out);
}

void sweep_row_append_csv(const SweepSpec *s, const SweepRow *row, GString *out)
{
  append_row((const SweepColumn *)(void *)s->columns->data, s->columns->len, row, FALSE, out);
}

void sweep_row_append_json(const SweepSpec *s, const SweepRow *row, GString *out)
{
  append_row((const SweepColumn *)(void *)s->columns->data, s->columns->len, row, TRUE, out);
}

SweepRow *sweep_row_parse_json(const SweepSpec *s, const char *line, GError **error)
{
  g_autoptr(JsonParser) parser = json_parser_new();
  if (!json_parser_load_from_data(parser, line, -1, error)) return NULL;
  JsonNode *root = json_parser_get_root(parser);
  if (!root || !JSON_NODE_HOLDS_OBJECT(root)) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "not a JSON object");
    return NULL;
  }
  JsonObject *obj = json_node_get_object(root);
  g_autoptr(SweepRow) row = row_new(s->columns->len);
  for (guint i = 0; i < s->columns->len; i++) {
    const SweepColumn *col = &g_array_index(s->columns, SweepColumn, i);
    JsonNode *v = json_object_get_member(obj, col->name);
    if (!v) {
      g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "no column '%s'", col->name);
      return NULL;
    }
    if (JSON_NODE_HOLDS_NULL(v) || col->type == SWEEP_COL_INPUT) continue; /* inputs: from the spec below */
    GType t = json_node_get_value_type(v);
    gboolean num = t == G_TYPE_INT64 || t == G_TYPE_DOUBLE;
    gboolean fits = col->type == SWEEP_COL_BOOL     ? t == G_TYPE_BOOLEAN
                    : col->type == SWEEP_COL_STRING ? t == G_TYPE_STRING
                    : col->type == SWEEP_COL_INT    ? t == G_TYPE_INT64
                                                    : num;
    if (!JSON_NODE_HOLDS_VALUE(v) || !fits) {
      g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "column '%s' holds the wrong type", col->name);
      return NULL;
    }
    SweepCell *c = &row->cells[i];
    switch (col->type) {
      case SWEEP_COL_INT: set_int(c, json_node_get_int(v)); break;
      case SWEEP_COL_NUMBER: set_num(c, json_node_get_double(v)); break;
      case SWEEP_COL_BOOL: set_bool(c, json_node_get_boolean(v)); break;
      default: set_str(c, json_node_get_string(v)); break;
    }
  }
  gint64 point = row->cells[COL_POINT].i, rep = row->cells[COL_REPLICATION].i;
  if (row->cells[COL_POINT].missing || row->cells[COL_REPLICATION].missing || point < 0 || point >= s->n_points || rep < 0 ||
      rep >= s->replications) {
    g_set_error(error, SWEEP_ERROR, SWEEP_ERROR_OTHER_SWEEP,
                "point %" G_GINT64_FORMAT " replication %" G_GINT64_FORMAT " is not in this sweep", point, rep);
    return NULL;
  }
  /* rows of another ocasim are not this sweep's: a resume must not mix two versions' rows in one file */
  const char *v = row->cells[s->error_col + 1].s;
  if (!v || strcmp(v, s->version)) {
    g_set_error(error, SWEEP_ERROR, SWEEP_ERROR_OTHER_SWEEP, "written by ocasim %s, this is ocasim %s", v ? v : "(none)",
                s->version);
    return NULL;
  }
  set_key_cells(s, (guint)point, row);
  return g_steal_pointer(&row);
}

gboolean sweep_row_line_is_run(const SweepSpec *s, const char *line, guint run)
{
  g_return_val_if_fail(run < sweep_n_runs(s), FALSE);
  g_autoptr(SweepRow) want = row_new(s->columns->len);
  fill_ids(s, run, want);
  g_autoptr(GString) prefix = g_string_new(NULL);
  append_row((const SweepColumn *)(void *)s->columns->data, s->first_output, want, TRUE, prefix);
  g_string_truncate(prefix, prefix->len - 2); /* the row's end, "}\n": the outputs follow */
  g_string_append(prefix, ", ");
  return g_str_has_prefix(line, prefix->str);
}

gboolean sweep_row_failed(const SweepSpec *s, const SweepRow *row)
{
  const SweepCell *c = &row->cells[s->error_col];
  return c->missing || !c->s || *c->s != '\0';
}

gboolean sweep_row_line_failed(const char *line)
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

void sweep_summary_csv_header(const SweepSpec *s, GString *out)
{
  header(s->summary, out);
}

void sweep_summary_append(const SweepSpec *s, guint point, SweepRow *const *rows, guint n, gboolean json, GString *out)
{
  g_autoptr(SweepRow) sum = row_new(s->summary->len);
  guint col = 0;
  set_int(&sum->cells[col++], point);
  for (guint k = 0; k < s->keys->len; k++) set_str(&sum->cells[col++], sweep_value(s, point, k));
  guint ok = 0;
  for (guint r = 0; r < n; r++) ok += !*rows[r]->cells[s->error_col].s;
  set_int(&sum->cells[col++], ok);
  set_int(&sum->cells[col++], n - ok);
  g_autofree double *x = g_new(double, MAX(n, 1));
  for (guint i = 0; i < s->n_outputs; i++) {
    guint c = s->first_output + i;
    const SweepColumn *o = &g_array_index(s->columns, SweepColumn, c);
    SweepColType t = o->type;
    if (!summarised(o)) continue;
    guint m = 0;
    for (guint r = 0; r < n; r++) {
      const SweepCell *cell = &rows[r]->cells[c];
      if (!cell->missing) x[m++] = t == SWEEP_COL_INT ? (double)cell->i : cell->x;
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
    set_num(&sum->cells[col++], mean);
    set_num(&sum->cells[col++], hw);
  }
  set_str(&sum->cells[col++], s->version);
  append_row((const SweepColumn *)(void *)s->summary->data, s->summary->len, sum, json, out);
}
