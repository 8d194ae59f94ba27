/* models/qnet/qnet_conf.c — the YAML schema of `kind: queueing_network` scenarios.
 *
 *   kind: queueing_network
 *   name: "M/M/1"
 *   seed: 1
 *   duration: "400000 s"          # simulated time, warm-up included
 *   warmup: "8000 s"
 *   sources:
 *     - name: arrivals
 *       interarrival: {dist: exponential, mean: "1.4286 s"}
 *       route: [{to: server, p: 1}]
 *   stations:
 *     - name: server
 *       discipline: fcfs          # fcfs | ps
 *       servers: 1
 *       service: {dist: exponential, mean: "1 s"}
 *       route: []                 # after service: leave
 *
 * Distribution parameters: `k` (erlang), `cv` (lognormal, uniform), `alpha`
 * (pareto); giving one the family does not use is an error.
 */
#include "models/qnet/qnet_conf.h"

#include <string.h>

/* Most external arrivals one run may simulate (tens of minutes of CPU). */
#define QNET_MAX_ARRIVALS 2e9
/* Route probabilities may add up to 1 within this (rounding of decimal probabilities), as
 * qnet.c checks them. Assumed. */
#define QNET_CONF_ROUTE_SUM_SLACK 1e-9

typedef struct {
  char *to;
  double p;
} route_conf;
typedef struct {
  int dist;
  int64_t mean_ns;
  int k;
  double cv, alpha;
} dist_conf;
typedef struct {
  char *name;
  dist_conf interarrival;
  SimConfList route;
} source_conf;
typedef struct {
  char *name;
  SimStationDiscipline discipline;
  int servers, capacity;
  dist_conf service;
  SimConfList route;
} station_conf;
/* The file's top level: the spec's own fields bound straight into it, and what becomes its
 * sources and stations. */
typedef struct {
  QnetSpec spec;
  char *kind, *description;
  SimConfList sources, stations;
} qnet_conf;

/* Names of SimStationDiscipline, indexed by it (the binder stores the index into the enum field). */
static const char *const disciplines[] = { [SIM_STATION_FCFS] = "fcfs", [SIM_STATION_PS] = "ps", [SIM_STATION_PS + 1] = NULL };
G_STATIC_ASSERT(sizeof(SimStationDiscipline) == sizeof(int));

static const SimConfField route_schema[] = { { .key = "to",
                                               .type = SIM_CONF_T_STRING,
                                               .offset = offsetof(route_conf, to),
                                               .required = true,
                                               .doc = "name of the next station" },
                                             { .key = "p",
                                               .type = SIM_CONF_T_DOUBLE,
                                               .offset = offsetof(route_conf, p),
                                               .def = "1",
                                               .min = "0",
                                               .max = "1",
                                               .doc = "probability of this route; what the routes leave over exits the network" },
                                             SIM_CONF_END };

static const SimConfField dist_schema[] = { { .key = "dist",
                                              .type = SIM_CONF_T_ENUM,
                                              .offset = offsetof(dist_conf, dist),
                                              .required = true,
                                              .enum_names = sim_dist_kind_names,
                                              .doc = "distribution family" },
                                            /* sanity bound: 11.6 days */
                                            { .key = "mean",
                                              .type = SIM_CONF_T_INT64,
                                              .offset = offsetof(dist_conf, mean_ns),
                                              .unit = SIM_UNIT_TIME,
                                              .required = true,
                                              .min = "1",
                                              .max = "1000000 s",
                                              .doc = "mean" },
                                            { .key = "k",
                                              .type = SIM_CONF_T_INT,
                                              .offset = offsetof(dist_conf, k),
                                              .min = "1",
                                              .max = "1000",
                                              .doc = "erlang: number of phases (SCV 1/k)" },
                                            { .key = "cv",
                                              .type = SIM_CONF_T_DOUBLE,
                                              .offset = offsetof(dist_conf, cv),
                                              .min = "0",
                                              .max = "100",
                                              .doc = "lognormal, uniform: coefficient of variation" },
                                            { .key = "alpha",
                                              .type = SIM_CONF_T_DOUBLE,
                                              .offset = offsetof(dist_conf, alpha),
                                              .min = "1",
                                              .min_exclusive = true,
                                              .max = "1000",
                                              .doc = "pareto: tail index (> 1)" },
                                            SIM_CONF_END };

static const SimConfField source_schema[] = {
  { .key = "name", .type = SIM_CONF_T_STRING, .offset = offsetof(source_conf, name), .required = true, .doc = "source name" },
  { .key = "interarrival",
    .type = SIM_CONF_T_MAP,
    .offset = offsetof(source_conf, interarrival),
    .sub = dist_schema,
    .required = true,
    .doc = "time between arrivals (exponential: Poisson source)" },
  { .key = "route",
    .type = SIM_CONF_T_LIST,
    .offset = offsetof(source_conf, route),
    .sub = route_schema,
    .elem_size = sizeof(route_conf),
    .min_items = 1,
    .required = true,
    .doc = "where arrivals go; probabilities sum to 1" },
  SIM_CONF_END
};

static const SimConfField station_schema[] = {
  { .key = "name", .type = SIM_CONF_T_STRING, .offset = offsetof(station_conf, name), .required = true, .doc = "station name" },
  { .key = "discipline",
    .type = SIM_CONF_T_ENUM,
    .offset = offsetof(station_conf, discipline),
    .def = "fcfs",
    .enum_names = disciplines,
    .doc = "fcfs (c servers, one queue) or ps (processor sharing)" },
  { .key = "servers",
    .type = SIM_CONF_T_INT,
    .offset = offsetof(station_conf, servers),
    .def = "1",
    .min = "1",
    .max = "100000",
    .doc = "number of servers c (fcfs)" },
  { .key = "capacity",
    .type = SIM_CONF_T_INT,
    .offset = offsetof(station_conf, capacity),
    .def = "0",
    .min = "0",
    .max = "100000000",
    .doc = "most jobs in the station, queue included; arrivals beyond are dropped; 0 = unlimited" },
  { .key = "service",
    .type = SIM_CONF_T_MAP,
    .offset = offsetof(station_conf, service),
    .sub = dist_schema,
    .required = true,
    .doc = "service time" },
  { .key = "route",
    .type = SIM_CONF_T_LIST,
    .offset = offsetof(station_conf, route),
    .sub = route_schema,
    .elem_size = sizeof(route_conf),
    .doc = "where jobs go after service; empty: they leave" },
  SIM_CONF_END
};

const SimConfField qnet_conf_schema[] = {
  { .key = "kind", .type = SIM_CONF_T_STRING, .offset = offsetof(qnet_conf, kind), .required = true, .doc = "queueing_network" },
  { .key = "name",
    .type = SIM_CONF_T_STRING,
    .offset = offsetof(qnet_conf, spec.name),
    .def = "",
    .doc = "scenario name, printed in the results" },
  { .key = "description", .type = SIM_CONF_T_STRING, .offset = offsetof(qnet_conf, description), .def = "", .doc = "free text" },
  { .key = "seed",
    .type = SIM_CONF_T_INT64,
    .offset = offsetof(qnet_conf, spec.seed),
    .def = "1",
    .min = "0",
    .doc = "scenario seed; every component's RNG stream derives from it and its name" },
  /* at most 2^53 ns (~104 days), as an appliance run */
  { .key = "duration",
    .type = SIM_CONF_T_INT64,
    .offset = offsetof(qnet_conf, spec.duration_ns),
    .unit = SIM_UNIT_TIME,
    .required = true,
    .min = "1",
    .max = "9007199254740992",
    .doc = "simulated time, warm-up included" },
  /* at most 2^53 ns */
  { .key = "warmup",
    .type = SIM_CONF_T_INT64,
    .offset = offsetof(qnet_conf, spec.warmup_ns),
    .unit = SIM_UNIT_TIME,
    .def = "0 s",
    .min = "0",
    .max = "9007199254740992",
    .doc = "initial time discarded from the statistics" },
  { .key = "batches",
    .type = SIM_CONF_T_INT,
    .offset = offsetof(qnet_conf, spec.batches),
    .def = "40",
    .min = "2",
    .max = "64",
    .doc = "batches for the batch-means confidence intervals" },
  { .key = "precision",
    .type = SIM_CONF_T_DOUBLE,
    .offset = offsetof(qnet_conf, spec.precision),
    .unit = SIM_UNIT_PERCENT,
    .def = "0 %",
    .min = "0",
    .max = "1",
    .doc = "stop rule: run on until every CI half-width is within this fraction of its mean; 0 = off" },
  /* at most 2^53 ns */
  { .key = "max_duration",
    .type = SIM_CONF_T_INT64,
    .offset = offsetof(qnet_conf, spec.max_duration_ns),
    .unit = SIM_UNIT_TIME,
    .def = "0 s",
    .min = "0",
    .max = "9007199254740992",
    .doc = "with precision: the longest run" },
  { .key = "sources",
    .type = SIM_CONF_T_LIST,
    .offset = offsetof(qnet_conf, sources),
    .sub = source_schema,
    .elem_size = sizeof(source_conf),
    .min_items = 1,
    .required = true,
    .doc = "external arrival streams" },
  { .key = "stations",
    .type = SIM_CONF_T_LIST,
    .offset = offsetof(qnet_conf, stations),
    .sub = station_schema,
    .elem_size = sizeof(station_conf),
    .min_items = 1,
    .required = true,
    .doc = "service stations" },
  SIM_CONF_END
};

/* The node at @key of the @i-th element of list @list_key under @root (for error positions). */
static const SimConfNode *elem_node(const SimConfNode *root, const char *list_key, guint i, const char *key)
{
  const SimConfNode *n = sim_conf_node_child(sim_conf_node_get(root, list_key), i);
  return key && n ? sim_conf_node_get(n, key) : n;
}

/* Converts a bound distribution; shape parameters the family does not use are errors. */
static gboolean make_dist(const dist_conf *dc, const SimConfNode *node, SimDist *out, GError **error)
{
  static const char *const shape_key[] = {
    [SIM_DIST_DETERMINISTIC] = NULL, [SIM_DIST_EXPONENTIAL] = NULL, [SIM_DIST_ERLANG] = "k",
    [SIM_DIST_LOGNORMAL] = "cv",     [SIM_DIST_PARETO] = "alpha",   [SIM_DIST_UNIFORM] = "cv",
  };
  const char *want = shape_key[dc->dist];
  const char *const all[] = { "k", "cv", "alpha" };
  for (size_t i = 0; i < G_N_ELEMENTS(all); i++) {
    const SimConfNode *n = sim_conf_node_get(node, all[i]);
    if (n && (!want || strcmp(want, all[i]))) {
      sim_conf_set_error(error, n, SIM_CONF_ERROR_UNKNOWN_KEY, "'%s' does not apply to the %s distribution", all[i],
                         sim_dist_kind_names[dc->dist]);
      return FALSE;
    }
  }
  if (want && !sim_conf_node_get(node, want)) {
    sim_conf_set_error(error, node, SIM_CONF_ERROR_MISSING, "the %s distribution needs '%s'", sim_dist_kind_names[dc->dist],
                       want);
    return FALSE;
  }
  out->kind = dc->dist;
  out->mean = (double)dc->mean_ns;
  out->shape = dc->dist == SIM_DIST_ERLANG ? dc->k : dc->dist == SIM_DIST_PARETO ? dc->alpha : dc->cv;
  GError *derr = NULL;
  if (!sim_dist_validate(out, &derr)) {
    sim_conf_set_error(error, node, SIM_CONF_ERROR_RANGE, "%s", derr->message);
    g_error_free(derr);
    return FALSE;
  }
  return TRUE;
}

static gboolean add_routes(GArray *routes, const SimConfList *list, const qnet_conf *qc, const SimConfNode *route_list_node,
                           gboolean is_source, GError **error)
{
  double sum = 0;
  for (size_t k = 0; k < list->n; k++) sum += SIM_CONF_LIST_AT(*list, route_conf, k)->p;
  if (sum > 1 + QNET_CONF_ROUTE_SUM_SLACK || (is_source && sum < 1 - QNET_CONF_ROUTE_SUM_SLACK)) {
    sim_conf_set_error(error, route_list_node, SIM_CONF_ERROR_RANGE, "route probabilities sum to %g; %s", sum,
                       is_source ? "a source's must sum to 1" : "they must sum to at most 1");
    return FALSE;
  }
  for (size_t k = 0; k < list->n; k++) {
    const route_conf *rc = SIM_CONF_LIST_AT(*list, route_conf, k);
    gboolean known = FALSE;
    for (size_t s = 0; s < qc->stations.n && !known; s++)
      known = !strcmp(SIM_CONF_LIST_AT(qc->stations, station_conf, s)->name, rc->to);
    if (!known) {
      g_autoptr(GPtrArray) names = g_ptr_array_new();
      for (size_t s = 0; s < qc->stations.n; s++) g_ptr_array_add(names, SIM_CONF_LIST_AT(qc->stations, station_conf, s)->name);
      g_ptr_array_add(names, NULL);
      const char *near = sim_conf_suggest(rc->to, (const char *const *)names->pdata);
      const SimConfNode *n = sim_conf_node_get(sim_conf_node_child(route_list_node, (guint)k), "to");
      sim_conf_set_error(error, n, SIM_CONF_ERROR_ENUM, "no station named '%s'%s%s%s", rc->to, near ? " (did you mean '" : "",
                         near ? near : "", near ? "'?)" : "");
      return FALSE;
    }
    qnet_route_add(routes, rc->to, rc->p);
  }
  return TRUE;
}

/* Index of the station named @name in @qc, or -1. */
static gssize station_index(const qnet_conf *qc, const char *name)
{
  for (size_t s = 0; s < qc->stations.n; s++)
    if (!strcmp(SIM_CONF_LIST_AT(qc->stations, station_conf, s)->name, name)) return (gssize)s;
  return -1;
}

/* Every station that jobs can reach (from a source, along routes with p > 0) must let them
 * leave with positive probability: some station on a path with p > 0 from it has route
 * probabilities summing below 1. Otherwise the population only grows (a self-loop with p = 1, a
 * cycle without an exit) and no result means anything. Graph search over the routes; the error
 * is at the route list (or the name) of the first reachable station from which no job leaves. */
static gboolean check_exits(const qnet_conf *qc, const SimConfNode *root, GError **error)
{
  size_t n = qc->stations.n;
  g_autofree gboolean *reached = g_new0(gboolean, n), *leaves = g_new0(gboolean, n);
  g_autofree size_t *stack = g_new(size_t, n + 1);
  size_t top = 0;
  for (size_t i = 0; i < qc->sources.n; i++) {
    const SimConfList *r = &SIM_CONF_LIST_AT(qc->sources, source_conf, i)->route;
    for (size_t k = 0; k < r->n; k++) {
      const route_conf *rc = SIM_CONF_LIST_AT(*r, route_conf, k);
      gssize to = station_index(qc, rc->to);
      if (rc->p > 0 && to >= 0 && !reached[to]) reached[stack[top++] = (size_t)to] = TRUE;
    }
  }
  while (top) { /* reached: depth-first along p > 0 */
    const SimConfList *r = &SIM_CONF_LIST_AT(qc->stations, station_conf, stack[--top])->route;
    for (size_t k = 0; k < r->n; k++) {
      const route_conf *rc = SIM_CONF_LIST_AT(*r, route_conf, k);
      gssize to = station_index(qc, rc->to);
      if (rc->p > 0 && to >= 0 && !reached[to]) reached[stack[top++] = (size_t)to] = TRUE;
    }
  }
  /* leaves: an exit of its own (sum < 1), or a route with p > 0 to one that leaves; a fixed point */
  for (size_t s = 0; s < n; s++) {
    const SimConfList *r = &SIM_CONF_LIST_AT(qc->stations, station_conf, s)->route;
    double sum = 0;
    for (size_t k = 0; k < r->n; k++) sum += SIM_CONF_LIST_AT(*r, route_conf, k)->p;
    leaves[s] = sum < 1 - QNET_CONF_ROUTE_SUM_SLACK;
  }
  for (gboolean changed = TRUE; changed;) {
    changed = FALSE;
    for (size_t s = 0; s < n; s++) {
      const SimConfList *r = &SIM_CONF_LIST_AT(qc->stations, station_conf, s)->route;
      for (size_t k = 0; k < r->n && !leaves[s]; k++) {
        const route_conf *rc = SIM_CONF_LIST_AT(*r, route_conf, k);
        gssize to = station_index(qc, rc->to);
        if (rc->p > 0 && to >= 0 && leaves[to]) leaves[s] = changed = TRUE;
      }
    }
  }
  for (size_t s = 0; s < n; s++) {
    if (!reached[s] || leaves[s]) continue;
    const SimConfNode *at = elem_node(root, "stations", (guint)s, "route");
    sim_conf_set_error(error, at ? at : elem_node(root, "stations", (guint)s, "name"), SIM_CONF_ERROR_RANGE,
                       "no job that reaches station '%s' can ever leave the network: its routes with p > 0 lead only to "
                       "stations whose routes sum to 1 (let some station on the way exit: routes summing below 1)",
                       SIM_CONF_LIST_AT(qc->stations, station_conf, s)->name);
    return FALSE;
  }
  return TRUE;
}

QnetSpec *qnet_spec_new(void)
{
  qnet_conf qc = { 0 };
  gboolean ok = sim_conf_bind_defaults(qnet_conf_schema, &qc, NULL);
  g_assert(ok); /* the schema's defaults are program text */
  QnetSpec *spec = qnet_spec_take(&qc.spec);
  sim_conf_unbind(qnet_conf_schema, &qc);
  return spec;
}

QnetSpec *qnet_spec_from_conf(const SimConfNode *root, GError **error)
{
  qnet_conf qc = { 0 };
  g_autoptr(QnetSpec) spec = NULL;
  gboolean ok = sim_conf_bind(root, qnet_conf_schema, &qc, error);
  if (ok && strcmp(qc.kind, "queueing_network")) {
    sim_conf_set_error(error, sim_conf_node_get(root, "kind"), SIM_CONF_ERROR_ENUM, "expected 'queueing_network', got '%s'",
                       qc.kind);
    ok = FALSE;
  }
  if (ok && qc.spec.warmup_ns >= qc.spec.duration_ns) {
    sim_conf_set_error(error, sim_conf_node_get(root, "warmup"), SIM_CONF_ERROR_RANGE,
                       "warm-up must be shorter than the duration");
    ok = FALSE;
  }
  if (ok) {
    spec = qnet_spec_take(&qc.spec);
    spec->overrides = sim_conf_overrides(root);
  }
  for (size_t i = 0; ok && i < qc.stations.n; i++) {
    const station_conf *sc = SIM_CONF_LIST_AT(qc.stations, station_conf, i);
    for (size_t j = 0; j < i && ok; j++)
      if (!strcmp(SIM_CONF_LIST_AT(qc.stations, station_conf, j)->name, sc->name)) {
        sim_conf_set_error(error, elem_node(root, "stations", (guint)i, "name"), SIM_CONF_ERROR_DUPLICATE,
                           "station name '%s' is used twice", sc->name);
        ok = FALSE;
      }
    SimDist service;
    ok = ok && make_dist(&sc->service, elem_node(root, "stations", (guint)i, "service"), &service, error);
    if (ok) {
      QnetStation *st = qnet_spec_add_station(spec, sc->name, sc->discipline, sc->servers, sc->capacity, &service);
      ok = add_routes(st->routes, &sc->route, &qc, elem_node(root, "stations", (guint)i, "route"), FALSE, error);
    }
  }
  for (size_t i = 0; ok && i < qc.sources.n; i++) {
    const source_conf *so = SIM_CONF_LIST_AT(qc.sources, source_conf, i);
    SimDist ia;
    ok = make_dist(&so->interarrival, elem_node(root, "sources", (guint)i, "interarrival"), &ia, error);
    if (ok) {
      QnetSource *src = qnet_spec_add_source(spec, so->name, &ia);
      ok = add_routes(src->routes, &so->route, &qc, elem_node(root, "sources", (guint)i, "route"), TRUE, error);
    }
  }
  ok = ok && check_exits(&qc, root, error);
  /* refuse runs that would take hours rather than hang */
  if (ok) {
    double arrivals = 0,
           t_s = sim_time_to_s(spec->precision > 0 && spec->max_duration_ns > spec->duration_ns ? spec->max_duration_ns
                                                                                                : spec->duration_ns);
    for (guint i = 0; i < spec->sources->len; i++)
      arrivals += t_s * 1e9 / ((QnetSource *)g_ptr_array_index(spec->sources, i))->interarrival.mean;
    if (arrivals > QNET_MAX_ARRIVALS) {
      sim_conf_set_error(error, sim_conf_node_get(root, "duration"), SIM_CONF_ERROR_RANGE,
                         "the run would simulate about %.3g arrivals (more than %.0e): shorten it", arrivals, QNET_MAX_ARRIVALS);
      ok = FALSE;
    }
  }
  /* what is left (probability sums) is checked by the model; give it a position */
  GError *rerr = NULL;
  if (ok && !qnet_spec_resolve(spec, &rerr)) {
    sim_conf_set_error(error, root, SIM_CONF_ERROR_RANGE, "%s", rerr->message);
    g_error_free(rerr);
    ok = FALSE;
  }
  sim_conf_unbind(qnet_conf_schema, &qc);
  return ok ? g_steal_pointer(&spec) : NULL;
}
