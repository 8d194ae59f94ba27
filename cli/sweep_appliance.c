/* cli/sweep_appliance.c — the appliance half of `ocasim sweep` (see sweep_appliance.h): the sweep
 * file's mode, the columns of each mode, and a point evaluated as `ocasim bound`, `run` or
 * `capacity` do (sim/sweep.c runs the points, seeds, rows and summaries).
 *
 * A point's scenario (the base with its values and seed, from sim_sweep_run) binds the appliance
 * (appliance_from_conf), plans its `failures:` (appliance_fail), builds its demand (demand_build,
 * or a memo's settled at the point's load) and is evaluated by the mode: bound_eval (with its
 * prediction interval), des_run, or capacity_des / capacity_search by capacity_latency.
 * Leaves out: sweeps of queueing-network scenarios.
 */
#include "cli/sweep_appliance.h"

#include <math.h>
#include <string.h>
#include "models/appliance/failure.h"
#include "models/modes/bound.h"
#include "models/modes/capacity.h"
#include "models/modes/des.h"
#include "models/modes/interval.h"
#include "models/modes/report.h"

APP_ENUM_DEFINE(sweep_mode, SWEEP_MODE_MAP);
APP_ENUM_DEFINE(sweep_cap_latency, SWEEP_CAP_LATENCY_MAP);

struct SweepAppliance {
  SimSweep *sweep;
  SweepMode mode;
  SweepCapLatency cap_latency; /* mode capacity: the p99 criterion by DES runs or by the bound */
  gboolean headroom;           /* mode capacity with workload.headroom in the base or varied: its columns too */
  double interval;             /* mode bound: the level of the points' prediction intervals, 0: none */
  WlShareCache *shares;        /* drive shares shared by the points (the Zipf sum is most of a bound) */
};

/* The sweep file's top-level keys. */
typedef struct {
  SimSweepFile file; /* kind, scenario, replications, seed, set, vary (sim/sweep.h) */
  int mode;
  int cap_latency;
} SweepConf;

/* clang-format off */
static const SimConfField sweep_schema[] = {
  SIM_SWEEP_ROW_KIND(SweepConf, file),
  SIM_SWEEP_ROW_SCENARIO(SweepConf, file, "the appliance scenario swept, relative to the sweep file"),
  { .key = "mode", .type = SIM_CONF_T_ENUM, .offset = offsetof(SweepConf, mode), .def = "bound", .enum_names = sweep_mode_names,
    .doc = "what each run evaluates: bound, run (the DES) or capacity" },
  { .key = "capacity_latency", .type = SIM_CONF_T_ENUM, .offset = offsetof(SweepConf, cap_latency), .def = "run",
    .enum_names = sweep_cap_latency_names,
    .doc = "mode capacity: the p99 criterion by DES runs at candidate loads as ocasim capacity does (run), or by the bound's estimate (bound; docs/outputs.md)" },
  SIM_SWEEP_ROW_REPLICATIONS(SweepConf, file, "runs per point, each with its own seed (mode run)"),
  SIM_SWEEP_ROW_SEED(SweepConf, file),
  SIM_SWEEP_ROW_SET(SweepConf, file),
  SIM_SWEEP_ROW_VARY(SweepConf, file),
  SIM_CONF_END
};
/* clang-format on */

const SimConfField *sweep_appliance_schema(void)
{
  return sweep_schema;
}

/* Headline outputs of an appliance report (bound, run, and capacity at the capacity load). */
static const SimSweepColumn report_columns[] = {
  { "offered_gbps", SIM_SWEEP_COL_NUMBER, "Gb/s", "offered load; empty when saturate" },
  { "saturate", SIM_SWEEP_COL_BOOL, "", "the offered load is \"saturate\" (an endless backlog)" },
  { "throughput_gbps", SIM_SWEEP_COL_NUMBER, "Gb/s", "served TLS payload" },
  { "unserved_gbps", SIM_SWEEP_COL_NUMBER, "Gb/s", "offered load the box did not serve (0 below saturation)" },
  { "overloaded", SIM_SWEEP_COL_BOOL, "", "the offered load exceeds what the box serves" },
  { "cpu_util_pct", SIM_SWEEP_COL_NUMBER, "%", "CPU utilisation over all nodes (the mean of the nodes)" },
  { "cpu_busiest_node_pct", SIM_SWEEP_COL_NUMBER, "%",
    "CPU utilisation of the busiest NUMA node (the one that meets the CPU cap)" },
  { "cpu_busiest_node", SIM_SWEEP_COL_STRING, "", "that node's CPU resource, e.g. cpu.node0" },
  { "p50_ms", SIM_SWEEP_COL_NUMBER, "ms", "median request latency" },
  { "p99_ms", SIM_SWEEP_COL_NUMBER, "ms", "99th-percentile request latency" },
  { "connections", SIM_SWEEP_COL_NUMBER, "", "client connections the throughput feeds" },
  { "bottleneck", SIM_SWEEP_COL_STRING, "", "the named bottleneck resource" },
  { "bottleneck_kind", SIM_SWEEP_COL_STRING, "", "its kind (cpu, dram, fabric, nvme, pcie, nic_port, ...)" },
  { "bottleneck_util_frac", SIM_SWEEP_COL_NUMBER, "fraction",
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
static const SimSweepColumn run_columns[] = {
  { "throughput_ci95_gbps", SIM_SWEEP_COL_NUMBER, "Gb/s",
    "95 % half-width of throughput_gbps (batch means and the offered load's own noise)" },
  { "p50_ci95_ms", SIM_SWEEP_COL_NUMBER, "ms", "95 % half-width of p50_ms (batch quantiles)" },
  { "p99_ci95_ms", SIM_SWEEP_COL_NUMBER, "ms", "95 % half-width of p99_ms (batch quantiles)" },
  { "requests_rejected", SIM_SWEEP_COL_INT, "", "arrivals turned away (every slot's wait queue full)" },
  { "steady_state", SIM_SWEEP_COL_BOOL, "", "the run served at least 90 % of what the bound serves" },
};

/* Mode bound: the prediction interval of the point (models/modes/interval.h; empty with
 * sweep_appliance_set_interval(0), `ocasim sweep --no-interval`). */
static const SimSweepColumn interval_columns[] = {
  { "throughput_gbps_lo", SIM_SWEEP_COL_NUMBER, "Gb/s", "low end of the throughput's prediction interval" },
  { "throughput_gbps_hi", SIM_SWEEP_COL_NUMBER, "Gb/s", "high end of the throughput's prediction interval" },
  { "cpu_util_pct_lo", SIM_SWEEP_COL_NUMBER, "%", "low end of cpu_util_pct's prediction interval" },
  { "cpu_util_pct_hi", SIM_SWEEP_COL_NUMBER, "%", "high end of cpu_util_pct's prediction interval" },
  { "interval_level", SIM_SWEEP_COL_NUMBER, "fraction", "the intervals' level (0.8 unless --interval)" },
  { "bottleneck_probability", SIM_SWEEP_COL_NUMBER, "fraction",
    "share of the interval's draws whose bottleneck is of bottleneck_kind's kind" },
};

/* Capacity: the capacity and each criterion's limit, before the report at the capacity load. */
static const SimSweepColumn capacity_columns[] = {
  { "capacity_gbps", SIM_SWEEP_COL_NUMBER, "Gb/s", "largest healthy offered load; empty when no criterion limits it" },
  { "limiting_criterion", SIM_SWEEP_COL_STRING, "", "cpu, drops, latency, saturation, ram or headroom" },
  { "cpu_limit_gbps", SIM_SWEEP_COL_NUMBER, "Gb/s", "load where the busiest CPU node reaches its cap; empty: never" },
  { "drops_limit_gbps", SIM_SWEEP_COL_NUMBER, "Gb/s", "load where NIC drops reach workload.drop_max; empty: never" },
  { "latency_limit_gbps", SIM_SWEEP_COL_NUMBER, "Gb/s", "load where p99 reaches workload.latency_slo; empty: never" },
  { "saturation_limit_gbps", SIM_SWEEP_COL_NUMBER, "Gb/s", "load where a non-CPU resource saturates; empty: never" },
  { "latency_check", SIM_SWEEP_COL_STRING, "",
    "how the p99 criterion was checked: run (DES runs, as ocasim capacity's latency_check.by) or bound (the bound's estimate)" },
  { "latency_bound_gbps", SIM_SWEEP_COL_NUMBER, "Gb/s",
    "the bound's estimate of the latency limit (beside the DES's, for comparison); empty: never" },
  { "ram_limit_gbps", SIM_SWEEP_COL_NUMBER, "Gb/s",
    "load where the RAM needed reaches memory.installed; empty: never, or memory.installed not given" },
};

/* Capacity with workload.headroom set in the base scenario or varied: the headroom criterion,
 * after the capacity columns (absent otherwise, so a sweep without it keeps its columns). */
static const SimSweepColumn headroom_columns[] = {
  { "headroom_limit_gbps", SIM_SWEEP_COL_NUMBER, "Gb/s",
    "load where a resource reaches its kind's workload.headroom limit; empty: never" },
  { "headroom_resource", SIM_SWEEP_COL_STRING, "",
    "the resource at its workload.headroom limit there (e.g. dram.node0); empty: none" },
  { "headroom_limit_pct", SIM_SWEEP_COL_NUMBER, "%", "that resource's kind's workload.headroom limit; empty: none" },
};

/* The headline outputs of @rep into report_columns' cells from @o. */
static void fill_report(SimSweepCell *o, const AppReport *rep)
{
  sim_sweep_cell_set_number(&o[R_OFFERED], rep->offered_gbps > 0 ? rep->offered_gbps : NAN);
  sim_sweep_cell_set_bool(&o[R_SATURATE], !(rep->offered_gbps > 0));
  sim_sweep_cell_set_number(&o[R_THROUGHPUT], rep->throughput_gbps);
  sim_sweep_cell_set_number(&o[R_UNSERVED], report_unserved_gbps(rep));
  sim_sweep_cell_set_bool(&o[R_OVERLOADED], rep->overloaded);
  sim_sweep_cell_set_number(&o[R_CPU], rep->cpu_util_pct);
  AppCpuNodes c;
  report_cpu_nodes(rep, &c);
  if (c.busiest >= 0) {
    sim_sweep_cell_set_number(&o[R_CPU_BUSIEST], c.busiest_pct);
    sim_sweep_cell_set_string(&o[R_CPU_BUSIEST_NODE], rep->res[c.busiest].name);
  }
  sim_sweep_cell_set_number(&o[R_P50], rep->lat_p50_ms);
  sim_sweep_cell_set_number(&o[R_P99], rep->lat_p99_ms);
  sim_sweep_cell_set_number(&o[R_CONN], rep->connections);
  if (rep->bottleneck >= 0) {
    const AppReportResource *b = &rep->res[rep->bottleneck];
    sim_sweep_cell_set_string(&o[R_BN], b->name);
    sim_sweep_cell_set_string(&o[R_BN_KIND], b->kind);
    sim_sweep_cell_set_number(&o[R_BN_UTIL], b->utilization);
  }
}

/* Evaluates the bound appliance by the mode into the output cells @o. */
static gboolean evaluate(const SweepAppliance *s, Appliance *a, const AppScenarioInfo *info, const DemandModel *m,
                         BoundMemo *memo, SimSweepCell *o, GError **error)
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
        SimSweepCell *x = o + G_N_ELEMENTS(report_columns);
        sim_sweep_cell_set_number(&x[0], iv.throughput_gbps[0]);
        sim_sweep_cell_set_number(&x[1], iv.throughput_gbps[1]);
        sim_sweep_cell_set_number(&x[2], iv.cpu_util_pct[0]);
        sim_sweep_cell_set_number(&x[3], iv.cpu_util_pct[1]);
        sim_sweep_cell_set_number(&x[4], iv.level);
        if (rep->bottleneck >= 0) sim_sweep_cell_set_number(&x[5], iv.bottleneck_prob[m->res[rep->bottleneck].kind]);
      }
      return TRUE;
    }
    case SWEEP_RUN: {
      SimFluidResult *raw = NULL;
      g_autoptr(AppReport) rep = des_run(a, info, m, &raw, error);
      if (!rep) return FALSE;
      fill_report(o, rep);
      SimSweepCell *x = o + G_N_ELEMENTS(report_columns);
      sim_sweep_cell_set_number(&x[0], raw->throughput_Bps.half_width * 8e-9);
      sim_sweep_cell_set_number(&x[1], raw->latency_p50_hw_s * 1e3);
      sim_sweep_cell_set_number(&x[2], raw->latency_p99_hw_s * 1e3);
      sim_sweep_cell_set_int(&x[3], rep->requests_rejected);
      sim_sweep_cell_set_bool(&x[4], report_steady(rep));
      sim_fluid_result_free(raw);
      return TRUE;
    }
    case SWEEP_CAPACITY: {
      CapacityResult c;
      gboolean des = s->cap_latency == SWEEP_CAP_LATENCY_RUN;
      if (!(des ? capacity_des(a, info, m, NULL, &c, error) : capacity_search(a, m, &c, error))) return FALSE;
      sim_sweep_cell_set_number(&o[0], c.capacity_gbps);
      sim_sweep_cell_set_string(&o[1], capacity_criterion_name(c.limiting));
      /* the criteria before the RAM, the latency check, then the RAM, in capacity_columns; the
       * headroom's in headroom_columns */
      G_STATIC_ASSERT(CAP_RAM == CAP_HEADROOM - 1 && CAP_HEADROOM == CAP_COUNT - 1 &&
                      G_N_ELEMENTS(capacity_columns) == 5 + CAP_RAM);
      for (int k = 0; k < CAP_RAM; k++) sim_sweep_cell_set_number(&o[2 + k], c.limit_gbps[k]);
      sim_sweep_cell_set_string(&o[2 + CAP_RAM], des ? "run" : "bound");
      sim_sweep_cell_set_number(&o[3 + CAP_RAM], des ? c.latency_bound_gbps : c.limit_gbps[CAP_LATENCY]);
      sim_sweep_cell_set_number(&o[4 + CAP_RAM], c.limit_gbps[CAP_RAM]);
      SimSweepCell *x = o + G_N_ELEMENTS(capacity_columns);
      if (s->headroom) {
        sim_sweep_cell_set_number(&x[0], c.limit_gbps[CAP_HEADROOM]);
        sim_sweep_cell_set_string(&x[1], c.headroom_res[0] ? c.headroom_res : NULL);
        sim_sweep_cell_set_number(&x[2], c.headroom_res[0] ? c.headroom_limit * 100 : NAN);
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

/* The demand model of point @p's appliance @a (mode bound): the one @memo keeps for a point of
 * the same values but for workload.offered, settled again at @a's load (demand_settle_at: the
 * sweep's base and `set:` are the same for every point, so those values make the same appliance
 * but for the load and the seed, which the demand reads only where titles are placed at random);
 * else built, and kept in @memo where its demand does not depend on the load. NULL with @error as
 * demand_build. (transfer full, or borrowed from @memo: *@owned) */
static DemandModel *point_demand(const SweepAppliance *s, guint p, const Appliance *a, SweepMemo *memo, gboolean *owned,
                                 GError **error)
{
  *owned = TRUE;
  if (!memo || s->mode != SWEEP_BOUND || demand_sizing_varies(a)) return demand_build_cached(a, s->shares, error);
  GArray *key = memo->scratch;
  g_array_set_size(key, 0);
  for (guint k = 0; k < sim_sweep_n_keys(s->sweep); k++) {
    guint64 v = strcmp(sim_sweep_key(s->sweep, k), "workload.offered") ? sim_sweep_value_index(s->sweep, p, k) : G_MAXUINT64;
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

/* sim_sweep_evaluate_fn: binds point @pt's appliance, plans its failures, builds its demand (through
 * the SweepMemo in pt->worker, if any) and evaluates it by the mode into pt->out. */
static gboolean evaluate_point(const SimSweep *sweep G_GNUC_UNUSED, SimSweepPoint *pt, void *ctx, GError **error)
{
  const SweepAppliance *s = ctx;
  SweepMemo *memo = pt->worker;
  Appliance *a = g_new0(Appliance, 1);
  AppScenarioInfo info = { 0 };
  DemandModel *m = NULL;
  gboolean owned = TRUE;
  gboolean ok = appliance_from_conf(pt->root, a, &info, error);
  if (ok) {
    pt->seed_bound = TRUE;
    pt->seed = (gint64)a->seed;
  }
  /* the point's `failures:` (base scenario, set: or varied): its row is the degraded box (failure.h) */
  ok = ok && (!info.failures || appliance_fail(a, (const char *const *)info.failures, error));
  ok = ok && (m = point_demand(s, pt->point, a, memo, &owned, error)) != NULL;
  ok = ok && evaluate(s, a, &info, m, memo ? memo->bound : NULL, pt->out, error);
  if (owned) demand_free(m);
  app_scenario_info_clear(&info);
  g_free(a);
  return ok;
}

/* sim_sweep_bind_fn: whether @root binds as an appliance. */
static gboolean binds(const SimConfNode *root, void *ctx G_GNUC_UNUSED, GError **error)
{
  Appliance *a = g_new0(Appliance, 1);
  AppScenarioInfo info = { 0 };
  gboolean ok = appliance_from_conf(root, a, &info, error);
  app_scenario_info_clear(&info);
  g_free(a);
  return ok;
}

/* sim_sweep_check_fn: replications need mode run; capacity_latency needs mode capacity. */
static gboolean check(const SimSweep *sweep, const void *conf, const SimConfNode *root, void *ctx G_GNUC_UNUSED, GError **error)
{
  const SweepConf *c = conf;
  if (sim_sweep_replications(sweep) > 1 && c->mode != SWEEP_RUN) {
    sim_conf_set_error(error, sim_conf_node_get(root, "replications"), SIM_CONF_ERROR_RANGE,
                       "replications > 1 need mode run (bound and capacity are deterministic)");
    return FALSE;
  }
  if (c->mode != SWEEP_CAPACITY && sim_conf_node_get(root, "capacity_latency")) {
    sim_conf_set_error(error, sim_conf_node_get(root, "capacity_latency"), SIM_CONF_ERROR_RANGE,
                       "needs mode capacity (it says how the p99 criterion is checked)");
    return FALSE;
  }
  return TRUE;
}

static const char *const scenario_kinds[] = { "appliance", "queueing_network", NULL };

static const SimSweepClass sweep_class = {
  .schema = sweep_schema,
  .file_offset = offsetof(SweepConf, file),
  .include_key = "platform",
  .scenario_kind = "appliance",
  .scenario_noun = "an appliance scenario",
  .scenario_kinds = scenario_kinds,
  .check = check,
  .bind = binds,
  .evaluate = evaluate_point,
};

/* Gives @s's sweep the outputs of its mode: capacity's (and the headroom's), the report's, then
 * the run's or the interval's. */
static void set_columns(SweepAppliance *s)
{
  g_autoptr(GArray) cols = g_array_new(FALSE, FALSE, sizeof(SimSweepColumn));
  if (s->mode == SWEEP_CAPACITY) g_array_append_vals(cols, capacity_columns, G_N_ELEMENTS(capacity_columns));
  if (s->mode == SWEEP_CAPACITY && s->headroom) g_array_append_vals(cols, headroom_columns, G_N_ELEMENTS(headroom_columns));
  g_array_append_vals(cols, report_columns, G_N_ELEMENTS(report_columns));
  if (s->mode == SWEEP_RUN) g_array_append_vals(cols, run_columns, G_N_ELEMENTS(run_columns));
  if (s->mode == SWEEP_BOUND) g_array_append_vals(cols, interval_columns, G_N_ELEMENTS(interval_columns));
  sim_sweep_set_columns(s->sweep, sweep_mode_names[s->mode], (const SimSweepColumn *)(void *)cols->data, cols->len);
}

void sweep_appliance_free(SweepAppliance *sa)
{
  if (!sa) return;
  sim_sweep_free(sa->sweep);
  workload_share_cache_free(sa->shares);
  g_free(sa);
}

SweepAppliance *sweep_appliance_load(const char *path, const char *const *sets, gint64 seed, const SimConfIncludePolicy *includes,
                                     const char *version, GError **error)
{
  g_autoptr(SweepAppliance) s = g_new0(SweepAppliance, 1);
  s->shares = workload_share_cache_new();
  SweepConf c = { 0 };
  s->sweep = sim_sweep_load(path, &sweep_class, &c, sets, seed, includes, version, s, error);
  s->mode = (SweepMode)c.mode;
  s->cap_latency = (SweepCapLatency)c.cap_latency;
  sim_conf_unbind(sweep_schema, &c);
  if (!s->sweep) return NULL;
  /* the headroom columns where a point may set workload.headroom: the base has it or a key varies it */
  const SimConfNode *wl = sim_conf_node_get(sim_sweep_base(s->sweep), "workload");
  s->headroom = wl && sim_conf_node_kind(wl) == SIM_CONF_NODE_MAP && sim_conf_node_get(wl, "headroom");
  for (guint k = 0; k < sim_sweep_n_keys(s->sweep); k++)
    s->headroom |= g_str_has_prefix(sim_sweep_key(s->sweep, k), "workload.headroom");
  s->interval = APP_INTERVAL_LEVEL;
  set_columns(s);
  return g_steal_pointer(&s);
}

const SimSweep *sweep_appliance_sweep(const SweepAppliance *sa)
{
  return sa->sweep;
}

SweepMode sweep_appliance_mode(const SweepAppliance *sa)
{
  return sa->mode;
}

void sweep_appliance_set_interval(SweepAppliance *sa, double level)
{
  g_return_if_fail(level >= 0 && level < 1);
  sa->interval = level;
  /* the rows' interval columns depend on the level: it joins the digest, so --resume at another level is refused */
  sim_sweep_inputs_mix(sa->sweep, "interval", level, "prediction intervals at level");
}

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

char *sweep_appliance_short_run_warning(const SweepAppliance *s)
{
  gboolean cap_des = s->mode == SWEEP_CAPACITY && s->cap_latency == SWEEP_CAP_LATENCY_RUN;
  if (s->mode != SWEEP_RUN && !cap_des) return NULL;
  Appliance *a = g_new0(Appliance, 1);
  AppScenarioInfo info = { 0 };
  char *warning = NULL;
  if (appliance_from_conf(sim_sweep_base(s->sweep), a, &info, NULL)) {
    gboolean offered_varied = sim_sweep_varies(s->sweep, "workload.offered");
    /* capacity's latency check runs at offered loads whatever the scenario's; a varied load is offered at its points */
    if (cap_des || (offered_varied && !(a->wl.offered_gbps > 0))) a->wl.offered_gbps = 1.0;
    warning = des_short_run_warning(a, &info);
  }
  app_scenario_info_clear(&info);
  g_free(a);
  return warning;
}
