/* models/qnet/qnet.c — simulation and closed forms of open queueing networks (see qnet.h). */
#include "models/qnet/qnet.h"

#include <math.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_sf_gamma.h>
#include "sim/csv.h"
#include "sim/gsl_autoptr.h"
#include "sim/json.h"
#include "sim/rng.h"

#define QNET_ERROR g_quark_from_static_string("qnet-error")

/* Fewer measured departures than this earn a warning in the table. */
#define QNET_FEW_DEPARTURES 1000
/* Route probabilities may add up to 1 within this (rounding of decimal probabilities). Assumed. */
#define QNET_ROUTE_SUM_SLACK 1e-9

/* ---------- spec ---------- */

static void free_routes(GArray *routes)
{
  for (guint i = 0; i < routes->len; i++) g_free(g_array_index(routes, QnetRoute, i).to);
  g_array_free(routes, TRUE);
}

static void source_free(gpointer p)
{
  QnetSource *s = p;
  free_routes(s->routes);
  g_free(s->name);
  g_free(s);
}

static void station_spec_free(gpointer p)
{
  QnetStation *s = p;
  free_routes(s->routes);
  g_free(s->name);
  g_free(s);
}

QnetSpec *qnet_spec_take(QnetSpec *fields)
{
  QnetSpec *spec = g_new(QnetSpec, 1);
  *spec = *fields;
  fields->name = NULL;
  if (!spec->max_jobs) spec->max_jobs = QNET_MAX_JOBS; /* not a scenario key: the program's cap */
  spec->sources = g_ptr_array_new_with_free_func(source_free);
  spec->stations = g_ptr_array_new_with_free_func(station_spec_free);
  return spec;
}

void qnet_spec_free(QnetSpec *spec)
{
  if (!spec) return;
  g_ptr_array_free(spec->sources, TRUE);
  g_ptr_array_free(spec->stations, TRUE);
  g_free(spec->name);
  g_strfreev(spec->overrides);
  g_free(spec);
}

QnetSource *qnet_spec_add_source(QnetSpec *spec, const char *name, const SimDist *interarrival)
{
  QnetSource *s = g_new0(QnetSource, 1);
  s->name = g_strdup(name);
  s->interarrival = *interarrival;
  s->routes = g_array_new(FALSE, TRUE, sizeof(QnetRoute));
  g_ptr_array_add(spec->sources, s);
  return s;
}

QnetStation *qnet_spec_add_station(QnetSpec *spec, const char *name, SimStationDiscipline disc, int servers, int capacity,
                                   const SimDist *service)
{
  QnetStation *s = g_new0(QnetStation, 1);
  s->name = g_strdup(name);
  s->discipline = disc;
  s->servers = servers;
  s->capacity = capacity;
  s->service = *service;
  s->routes = g_array_new(FALSE, TRUE, sizeof(QnetRoute));
  g_ptr_array_add(spec->stations, s);
  return s;
}

void qnet_route_add(GArray *routes, const char *to, double p)
{
  QnetRoute r = { g_strdup(to), p, -1 };
  g_array_append_val(routes, r);
}

static int station_index(const QnetSpec *spec, const char *name)
{
  for (guint i = 0; i < spec->stations->len; i++)
    if (!strcmp(((QnetStation *)g_ptr_array_index(spec->stations, i))->name, name)) return (int)i;
  return -1;
}

static gboolean resolve_routes(const QnetSpec *spec, const char *owner, GArray *routes, gboolean must_sum_to_one, GError **error)
{
  double sum = 0;
  for (guint i = 0; i < routes->len; i++) {
    QnetRoute *r = &g_array_index(routes, QnetRoute, i);
    r->index = station_index(spec, r->to);
    if (r->index < 0) {
      g_set_error(error, QNET_ERROR, 1, "%s: route to unknown station '%s'", owner, r->to);
      return FALSE;
    }
    if (!(r->p >= 0 && r->p <= 1)) {
      g_set_error(error, QNET_ERROR, 1, "%s: route probability %g is not in [0, 1]", owner, r->p);
      return FALSE;
    }
    sum += r->p;
  }
  if (sum > 1 + QNET_ROUTE_SUM_SLACK) {
    g_set_error(error, QNET_ERROR, 1, "%s: route probabilities sum to %g > 1", owner, sum);
    return FALSE;
  }
  if (must_sum_to_one && fabs(sum - 1) > QNET_ROUTE_SUM_SLACK) {
    g_set_error(error, QNET_ERROR, 1, "%s: a source's routes must sum to 1 (they sum to %g)", owner, sum);
    return FALSE;
  }
  return TRUE;
}

gboolean qnet_spec_resolve(QnetSpec *spec, GError **error)
{
  if (!spec->stations->len) {
    g_set_error(error, QNET_ERROR, 1, "stations: a network needs at least one station");
    return FALSE;
  }
  if (!spec->sources->len) {
    g_set_error(error, QNET_ERROR, 1, "sources: an open network needs at least one source");
    return FALSE;
  }
  for (guint i = 0; i < spec->stations->len; i++) {
    QnetStation *s = g_ptr_array_index(spec->stations, i);
    if (station_index(spec, s->name) != (int)i) {
      g_set_error(error, QNET_ERROR, 1, "stations[%u]: duplicate station name '%s'", i, s->name);
      return FALSE;
    }
    if (!sim_dist_validate(&s->service, error)) {
      g_prefix_error(error, "stations[%u].service: ", i);
      return FALSE;
    }
    g_autofree char *owner = g_strdup_printf("stations[%u].route", i);
    if (!resolve_routes(spec, owner, s->routes, FALSE, error)) return FALSE;
  }
  for (guint i = 0; i < spec->sources->len; i++) {
    QnetSource *s = g_ptr_array_index(spec->sources, i);
    if (!sim_dist_validate(&s->interarrival, error)) {
      g_prefix_error(error, "sources[%u].interarrival: ", i);
      return FALSE;
    }
    g_autofree char *owner = g_strdup_printf("sources[%u].route", i);
    if (!resolve_routes(spec, owner, s->routes, TRUE, error)) return FALSE;
  }
  if (spec->warmup_ns < 0 || spec->duration_ns <= spec->warmup_ns) {
    g_set_error(error, QNET_ERROR, 1, "duration must be longer than warmup");
    return FALSE;
  }
  if (spec->batches < 2 || spec->batches > SIM_STATS_MAX_BATCHES) {
    g_set_error(error, QNET_ERROR, 1, "batches must be in 2..%d", SIM_STATS_MAX_BATCHES);
    return FALSE;
  }
  return TRUE;
}

/* ---------- simulation ---------- */

typedef struct run run;

typedef struct {
  SimEvent ev;
  const QnetSource *spec;
  gsl_rng *rng;
  run *r;
} source_state;

struct run {
  const QnetSpec *spec;
  SimEngine *eng;
  SimStats *stats;
  SimStation **stations;
  gsl_rng **routers; /* one routing stream per station */
  source_state *sources;
  GPtrArray *job_blocks;
  SimJob *free_jobs;
  uint64_t next_id;
  uint64_t live; /* jobs in the network */
  bool overflow; /* live went past spec->max_jobs: the engine was stopped */
  SimStat *sojourn_s, *exits;
  SimTraceLevel *trace;    /* per station: its trace level ("jobs" or its name); NULL: no trace */
  const char **trace_name; /* per station: the traced component */
};

/* Logs an event of @job at station @i when that station is traced at @level. */
#define JOB_TRACE(r, i, job, level, what, ...)                                                                    \
  do {                                                                                                            \
    if (G_UNLIKELY((r)->trace && (r)->trace[(i)] >= (level)))                                                     \
      SIM_TRACE_LOG(G_LOG_DOMAIN, (r)->trace_name[(i)], (level), "t=%.9f s %s: job %" G_GUINT64_FORMAT " " what,  \
                    sim_time_to_s(sim_engine_now((r)->eng)), ((SimStation *)(r)->stations[(i)])->name, (job)->id, \
                    ##__VA_ARGS__);                                                                               \
  } while (0)

/* Jobs allocated at once for the free list (an allocation granule; assumed). */
#define JOB_BLOCK 256

static SimJob *job_new(run *r)
{
  if (!r->free_jobs) {
    SimJob *block = g_new0(SimJob, JOB_BLOCK);
    g_ptr_array_add(r->job_blocks, block);
    for (int i = 0; i < JOB_BLOCK; i++) {
      block[i].next = r->free_jobs;
      r->free_jobs = &block[i];
    }
  }
  SimJob *j = r->free_jobs;
  r->free_jobs = j->next;
  if (++r->live > r->spec->max_jobs && !r->overflow) {
    r->overflow = true;
    sim_engine_stop(r->eng);
  }
  memset(j, 0, sizeof *j);
  j->id = r->next_id++;
  j->t_created = sim_engine_now(r->eng);
  return j;
}

static void job_release(run *r, SimJob *j)
{
  r->live--;
  j->next = r->free_jobs;
  r->free_jobs = j;
}

/* Sends @job along @routes (drawing from @rng) to a station, or out of the network. */
static void send(run *r, SimJob *job, GArray *routes, gsl_rng *rng)
{
  int to = -1;
  double u = routes->len ? gsl_rng_uniform(rng) : 1, acc = 0;
  for (guint k = 0; k < routes->len && to < 0; k++) {
    const QnetRoute *rt = &g_array_index(routes, QnetRoute, k);
    acc += rt->p;
    if (u < acc) to = rt->index;
  }
  if (to >= 0) {
    job->klass = to; /* the station it is at */
    JOB_TRACE(r, to, job, SIM_TRACE_DEBUG, "arrives (%d in the station)", r->stations[to]->in_system);
    sim_station_arrive(r->stations[to], job);
    return;
  }
  sim_stat_observe(r->sojourn_s, sim_time_to_s(sim_engine_now(r->eng) - job->t_created));
  sim_stat_count(r->exits, 1);
  job_release(r, job);
}

static void on_depart(SimStation *st G_GNUC_UNUSED, SimJob *job, void *ctx)
{
  run *r = ctx;
  const QnetStation *sp = g_ptr_array_index(r->spec->stations, job->klass);
  JOB_TRACE(r, job->klass, job, SIM_TRACE_INFO, "departs");
  send(r, job, sp->routes, r->routers[job->klass]);
}

static void on_drop(SimStation *st G_GNUC_UNUSED, SimJob *job, void *ctx)
{
  run *r = ctx;
  JOB_TRACE(r, job->klass, job, SIM_TRACE_DEBUG, "dropped: the station is full");
  job_release(r, job);
}

static void on_source(SimEngine *eng, SimEvent *ev, void *ctx)
{
  source_state *s = ctx;
  SimJob *job = job_new(s->r);
  double gap = sim_dist_sample(&s->spec->interarrival, s->rng);
  sim_engine_schedule_in(eng, ev, (sim_time_ns)llround(gap));
  send(s->r, job, s->spec->routes, s->rng);
}

static QnetEstimate estimate(const SimStat *st, double scale)
{
  SimCi ci = sim_stat_ci(st);
  return (QnetEstimate){ ci.mean * scale, ci.half_width * scale };
}

/* The error of a run stopped by its population cap, naming the most crowded station. */
static void overflow_error(const run *r, GError **error)
{
  const SimStation *worst = r->stations[0];
  for (guint i = 1; i < r->spec->stations->len; i++)
    if (r->stations[i]->in_system > worst->in_system) worst = r->stations[i];
  g_set_error(error, QNET_ERROR, 1,
              "stopped at %.6g s simulated: more than %" G_GUINT64_FORMAT
              " jobs in the network (station %s holds %d), so it is overloaded and has no steady state: "
              "lower the load or shorten duration",
              sim_time_to_s(sim_engine_now(r->eng)), r->spec->max_jobs, worst->name, worst->in_system);
}

static void run_clear(run *r);

QnetResult *qnet_run(const QnetSpec *spec, GError **error)
{
  return qnet_run_observed(spec, NULL, error);
}

/* Per station, the level of its name or "jobs", or no table when nothing is traced. */
static void trace_setup(run *r, const SimTrace *t)
{
  guint ns = r->spec->stations->len;
  gboolean any = sim_trace_level(t, "jobs") != SIM_TRACE_OFF;
  for (guint i = 0; t && i < ns; i++)
    any |= sim_trace_level(t, ((const QnetStation *)g_ptr_array_index(r->spec->stations, i))->name) != SIM_TRACE_OFF;
  if (!any) return;
  r->trace = g_new0(SimTraceLevel, ns);
  r->trace_name = g_new0(const char *, ns);
  for (guint i = 0; i < ns; i++) {
    const char *name = ((const QnetStation *)g_ptr_array_index(r->spec->stations, i))->name;
    SimTraceLevel own = sim_trace_level(t, name), all = sim_trace_level(t, "jobs");
    r->trace[i] = MAX(own, all);
    r->trace_name[i] = own >= all ? name : "jobs";
  }
}

QnetResult *qnet_run_observed(const QnetSpec *spec, const SimObserver *obs, GError **error)
{
  guint ns = spec->stations->len, nsrc = spec->sources->len;
  run r = { .spec = spec };
  trace_setup(&r, obs ? obs->trace : NULL);
  r.eng = sim_engine_new();
  r.stats = sim_stats_new();
  r.job_blocks = g_ptr_array_new_with_free_func(g_free);
  r.stations = g_new0(SimStation *, ns);
  r.routers = g_new0(gsl_rng *, ns);
  r.sources = g_new0(source_state, nsrc);
  for (guint i = 0; i < ns; i++) {
    const QnetStation *sp = g_ptr_array_index(spec->stations, i);
    r.stations[i] = sim_station_new(r.eng, r.stats, sp->name, sp->discipline, sp->servers, sp->capacity, &sp->service, spec->seed,
                                    on_depart, on_drop, &r);
    g_autofree char *rname = g_strdup_printf("%s.route", sp->name);
    r.routers[i] = sim_rng_new(spec->seed, rname);
  }
  r.sojourn_s = sim_stats_add(r.stats, "network.sojourn_s", SIM_STAT_TALLY);
  r.exits = sim_stats_add(r.stats, "network.exits", SIM_STAT_RATE);
  for (guint i = 0; i < nsrc; i++) {
    source_state *s = &r.sources[i];
    s->spec = g_ptr_array_index(spec->sources, i);
    g_autofree char *sname = g_strdup_printf("source.%s", s->spec->name);
    s->rng = sim_rng_new(spec->seed, sname);
    s->r = &r;
    sim_event_init(&s->ev, on_source, s);
    /* first arrival after one inter-arrival time (a deterministic source starts in phase) */
    sim_engine_schedule(r.eng, &s->ev, (sim_time_ns)llround(sim_dist_sample(&s->spec->interarrival, s->rng)));
  }

  /* warm-up, then equal batches; with a precision target, more batches until precise */
  sim_engine_run_until(r.eng, spec->warmup_ns);
  if (r.overflow) {
    overflow_error(&r, error);
    run_clear(&r);
    return NULL;
  }
  sim_observer_progress(obs, sim_time_to_s(spec->warmup_ns), sim_time_to_s(spec->duration_ns));
  sim_stats_reset(r.stats, spec->warmup_ns);
  sim_time_ns batch_ns = (spec->duration_ns - spec->warmup_ns) / spec->batches;
  if (batch_ns < 1) batch_ns = 1;
  sim_time_ns t = spec->warmup_ns, t_max = spec->duration_ns;
  if (spec->precision > 0 && spec->max_duration_ns > t_max) t_max = spec->max_duration_ns;
  g_autofree SimStat **headline = g_new0(SimStat *, 4 * ns + 1);
  for (guint i = 0; i < ns; i++) {
    headline[4 * i + 0] = r.stations[i]->st_departures;
    headline[4 * i + 1] = r.stations[i]->st_busy;
    headline[4 * i + 2] = r.stations[i]->st_number;
    headline[4 * i + 3] = r.stations[i]->st_response_s;
  }
  for (;;) {
    sim_engine_run_until(r.eng, t + batch_ns);
    if (r.overflow) {
      overflow_error(&r, error);
      run_clear(&r);
      return NULL;
    }
    t += batch_ns;
    sim_stats_close_batch(r.stats, t);
    sim_observer_progress(obs, sim_time_to_s(MIN(t, spec->duration_ns)), sim_time_to_s(spec->duration_ns));
    if (t + batch_ns > spec->duration_ns &&
        (spec->precision <= 0 || t + batch_ns > t_max || sim_stats_precise(headline, spec->precision)))
      break;
  }

  QnetResult *res = g_new0(QnetResult, 1);
  res->name = g_strdup(spec->name ? spec->name : "");
  res->seed = spec->seed;
  res->overrides = g_strdupv(spec->overrides);
  res->simulated_s = sim_time_to_s(t - spec->warmup_ns);
  res->events = r.eng->events_run;
  res->sojourn_s = estimate(r.sojourn_s, 1);
  res->exit_rate_per_s = estimate(r.exits, 1);
  res->batches = sim_stat_ci(r.exits).batches;
  res->nstations = (int)ns;
  res->stations = g_new0(QnetStationResult, ns);
  for (guint i = 0; i < ns; i++) {
    SimStation *st = r.stations[i];
    QnetStationResult *o = &res->stations[i];
    o->name = g_strdup(st->name);
    o->throughput_per_s = estimate(st->st_departures, 1);
    o->utilization = estimate(st->st_busy, 1.0 / st->servers);
    o->number = estimate(st->st_number, 1);
    o->response_s = estimate(st->st_response_s, 1);
    o->response_p50_s = sim_stat_quantile(st->st_response_s, 0);
    o->response_p99_s = sim_stat_quantile(st->st_response_s, 2);
    o->drop_rate_per_s = sim_stat_ci(st->st_drops).mean;
  }
  qnet_theory(spec, res);
  run_clear(&r);
  return res;
}

static void run_clear(run *r)
{
  for (guint i = 0; i < r->spec->stations->len; i++) {
    sim_station_free(r->stations[i]);
    gsl_rng_free(r->routers[i]);
  }
  for (guint i = 0; i < r->spec->sources->len; i++) gsl_rng_free(r->sources[i].rng);
  sim_engine_free(r->eng);
  sim_stats_free(r->stats);
  g_ptr_array_free(r->job_blocks, TRUE);
  g_free(r->stations);
  g_free(r->routers);
  g_free(r->sources);
  g_free(r->trace);
  g_free(r->trace_name);
}

void qnet_result_free(QnetResult *res)
{
  if (!res) return;
  for (int i = 0; i < res->nstations; i++) g_free(res->stations[i].name);
  g_free(res->stations);
  g_free(res->name);
  g_strfreev(res->overrides);
  g_free(res);
}

/* ---------- closed forms ---------- */

/* Erlang C: probability that an arrival waits in M/M/c with offered load a = lambda E[S].
 * Erlang B by the stable recurrence B_k = a B_{k-1} / (k + a B_{k-1}), then
 * C = B / (1 - (a/c)(1 - B))  (Kleinrock, Queueing Systems I, 3.5). */
static double erlang_c(int c, double a)
{
  double b = 1;
  for (int k = 1; k <= c; k++) b = a * b / (k + a * b);
  return b / (1 - (a / c) * (1 - b));
}

static double mean_s(const SimDist *d)
{
  return sim_dist_mean(d) * 1e-9;
}

void qnet_theory(const QnetSpec *spec, QnetResult *res)
{
  int n = (int)spec->stations->len;
  gboolean poisson_sources = TRUE, product_form = TRUE, finite = FALSE;
  g_autofree double *gamma = g_new0(double, n);
  g_autofree gboolean *fed_by_station = g_new0(gboolean, n);
  for (guint i = 0; i < spec->sources->len; i++) {
    const QnetSource *s = g_ptr_array_index(spec->sources, i);
    poisson_sources &= s->interarrival.kind == SIM_DIST_EXPONENTIAL;
    for (guint k = 0; k < s->routes->len; k++) {
      const QnetRoute *rt = &g_array_index(s->routes, QnetRoute, k);
      gamma[rt->index] += rt->p / mean_s(&s->interarrival);
    }
  }
  g_autoptr(gsl_matrix) a = gsl_matrix_alloc(n, n); /* I - P^T */
  gsl_matrix_set_identity(a);
  for (int i = 0; i < n; i++) {
    const QnetStation *s = g_ptr_array_index(spec->stations, i);
    product_form &= s->discipline == SIM_STATION_PS || s->service.kind == SIM_DIST_EXPONENTIAL;
    finite |= s->capacity > 0;
    for (guint k = 0; k < s->routes->len; k++) {
      const QnetRoute *rt = &g_array_index(s->routes, QnetRoute, k);
      gsl_matrix_set(a, rt->index, i, gsl_matrix_get(a, rt->index, i) - rt->p);
      fed_by_station[rt->index] = TRUE;
    }
  }
  product_form &= poisson_sources;
  gsl_vector_view g = gsl_vector_view_array(gamma, n);
  g_autoptr(gsl_vector) lambda = gsl_vector_alloc(n);
  g_autoptr(gsl_permutation) perm = gsl_permutation_alloc(n);
  int sign;
  gboolean solved = !finite && gsl_linalg_LU_decomp(a, perm, &sign) == GSL_SUCCESS &&
                    gsl_linalg_LU_solve(a, perm, &g.vector, lambda) == GSL_SUCCESS;
  for (int i = 0; i < n; i++) {
    QnetStationResult *o = &res->stations[i];
    o->th_throughput_per_s = o->th_utilization = o->th_number = o->th_response_s = NAN;
    o->load = NAN;
    if (!solved) continue;
    const QnetStation *s = g_ptr_array_index(spec->stations, i);
    double lam = gsl_vector_get(lambda, i), es = mean_s(&s->service);
    double rho = lam * es / s->servers;
    o->load = rho;
    if (!(rho < 1)) continue; /* unstable: no steady state */
    o->th_throughput_per_s = lam;
    o->th_utilization = rho;
    double w = NAN;
    if (s->discipline == SIM_STATION_PS) {
      if (product_form) w = es / (1 - rho);
    } else if (s->service.kind == SIM_DIST_EXPONENTIAL && product_form) {
      w = es + erlang_c(s->servers, lam * es) / (s->servers / es - lam);
    } else if (s->servers == 1 && poisson_sources && !fed_by_station[i]) {
      w = es + rho * es * (1 + sim_dist_scv(&s->service)) / (2 * (1 - rho)); /* Pollaczek–Khinchine */
    }
    o->th_response_s = w;
    o->th_number = lam * w; /* Little's law */
  }
}

/* ---------- output ---------- */

typedef struct {
  const char *key, *label;
  size_t est_off, th_off; /* offsets into QnetStationResult */
} metric;

static const metric metrics[] = {
  { "throughput_per_s", "X (1/s)", G_STRUCT_OFFSET(QnetStationResult, throughput_per_s),
    G_STRUCT_OFFSET(QnetStationResult, th_throughput_per_s) },
  { "util_frac", "U", G_STRUCT_OFFSET(QnetStationResult, utilization), G_STRUCT_OFFSET(QnetStationResult, th_utilization) },
  { "number", "L", G_STRUCT_OFFSET(QnetStationResult, number), G_STRUCT_OFFSET(QnetStationResult, th_number) },
  { "response_s", "W (s)", G_STRUCT_OFFSET(QnetStationResult, response_s), G_STRUCT_OFFSET(QnetStationResult, th_response_s) },
};

#define EST(o, m) (*(const QnetEstimate *)((const char *)(o) + (m)->est_off))
#define TH(o, m)  (*(const double *)((const char *)(o) + (m)->th_off))

static void write_json(const QnetResult *res, GString *out)
{
  g_autoptr(JsonBuilder) b = json_builder_new();
  json_builder_begin_object(b);
  sim_json_string(b, "kind", "queueing_network");
  sim_json_string(b, "scenario", res->name);
  sim_json_int(b, "seed", (gint64)res->seed);
  json_builder_set_member_name(b, "overrides");
  json_builder_begin_array(b);
  for (char **o = res->overrides; o && *o; o++) json_builder_add_string_value(b, *o);
  json_builder_end_array(b);
  sim_json_number(b, "simulated_s", res->simulated_s);
  sim_json_int(b, "batches", res->batches);
  sim_json_int(b, "events", (gint64)res->events);
  json_builder_set_member_name(b, "stations");
  json_builder_begin_array(b);
  for (int i = 0; i < res->nstations; i++) {
    const QnetStationResult *o = &res->stations[i];
    json_builder_begin_object(b);
    sim_json_string(b, "name", o->name);
    for (size_t m = 0; m < G_N_ELEMENTS(metrics); m++) {
      json_builder_set_member_name(b, metrics[m].key);
      json_builder_begin_object(b);
      sim_json_number(b, "mean", EST(o, &metrics[m]).mean);
      sim_json_number(b, "ci95", EST(o, &metrics[m]).half_width);
      sim_json_number(b, "theory", TH(o, &metrics[m]));
      json_builder_end_object(b);
    }
    sim_json_number(b, "load", o->load);
    sim_json_number(b, "response_p50_s", o->response_p50_s);
    sim_json_number(b, "response_p99_s", o->response_p99_s);
    sim_json_number(b, "drops_per_s", o->drop_rate_per_s);
    json_builder_end_object(b);
  }
  json_builder_end_array(b);
  json_builder_set_member_name(b, "network");
  json_builder_begin_object(b);
  sim_json_number(b, "sojourn_s", res->sojourn_s.mean);
  sim_json_number(b, "sojourn_s_ci95", res->sojourn_s.half_width);
  sim_json_number(b, "exit_rate_per_s", res->exit_rate_per_s.mean);
  sim_json_number(b, "exit_rate_per_s_ci95", res->exit_rate_per_s.half_width);
  json_builder_end_object(b);
  json_builder_end_object(b);
  sim_json_append(b, out);
}

static void write_csv(const QnetResult *res, GString *out)
{
  /* the station's response-time percentiles and drop rate (as in the table and JSON) repeated on
   * each of its metric rows */
  g_string_append(out, "scenario,seed,overrides,station,metric,mean,ci95,theory,response_p50_s,response_p99_s,drops_per_s\n");
  g_autofree char *ov = res->overrides ? g_strjoinv("; ", res->overrides) : g_strdup("");
  for (int i = 0; i < res->nstations; i++) {
    const QnetStationResult *o = &res->stations[i];
    for (size_t m = 0; m < G_N_ELEMENTS(metrics); m++) {
      sim_csv_field(out, res->name);
      g_string_append_printf(out, ",%" G_GUINT64_FORMAT ",", res->seed);
      sim_csv_field(out, ov);
      g_string_append_c(out, ',');
      sim_csv_field(out, o->name);
      g_string_append_printf(out, ",%s,", metrics[m].key);
      sim_csv_number_exact(out, EST(o, &metrics[m]).mean);
      g_string_append_c(out, ',');
      sim_csv_number_exact(out, EST(o, &metrics[m]).half_width);
      g_string_append_c(out, ',');
      sim_csv_number_exact(out, TH(o, &metrics[m]));
      g_string_append_c(out, ',');
      sim_csv_number_exact(out, o->response_p50_s);
      g_string_append_c(out, ',');
      sim_csv_number_exact(out, o->response_p99_s);
      g_string_append_c(out, ',');
      sim_csv_number_exact(out, o->drop_rate_per_s);
      g_string_append_c(out, '\n');
    }
  }
}

/* @v in %.4g, or "-" when not finite, left-aligned in @width columns. */
static void pad_num(GString *out, double v, int width)
{
  char buf[32];
  if (isfinite(v))
    g_snprintf(buf, sizeof buf, "%.4g", v);
  else
    g_snprintf(buf, sizeof buf, "-");
  g_string_append_printf(out, "%-*s", width, buf);
}

static void cell(GString *out, QnetEstimate e, double th)
{
  char buf[64];
  if (!isfinite(e.mean))
    g_snprintf(buf, sizeof buf, "-");
  else if (isfinite(e.half_width))
    g_snprintf(buf, sizeof buf, "%.4g ±%.2g", e.mean, e.half_width);
  else
    g_snprintf(buf, sizeof buf, "%.4g", e.mean);
  g_string_append_printf(out, "  %-19s ", buf);
  if (isfinite(th))
    g_snprintf(buf, sizeof buf, "%.4g", th);
  else
    g_snprintf(buf, sizeof buf, "-");
  g_string_append_printf(out, "%-9s", buf);
}

static void write_table(const QnetResult *res, GString *out)
{
  g_string_append_printf(out,
                         "queueing network '%s'  seed %" G_GUINT64_FORMAT
                         "  %.6g s simulated after warm-up, %d batches, %" G_GUINT64_FORMAT " events\n\n",
                         res->name, res->seed, res->simulated_s, res->batches, res->events);
  g_string_append_printf(out, "%-12s", "station");
  for (size_t m = 0; m < G_N_ELEMENTS(metrics); m++) g_string_append_printf(out, "  %-19s %-9s", metrics[m].label, "theory");
  g_string_append_printf(out, "  %-10s %-10s %s\n", "p50 W (s)", "p99 W (s)", "drops/s");
  for (int i = 0; i < res->nstations; i++) {
    const QnetStationResult *o = &res->stations[i];
    g_string_append_printf(out, "%-12s", o->name);
    for (size_t m = 0; m < G_N_ELEMENTS(metrics); m++) cell(out, EST(o, &metrics[m]), TH(o, &metrics[m]));
    g_string_append(out, "  ");
    pad_num(out, o->response_p50_s, 11);
    pad_num(out, o->response_p99_s, 11);
    pad_num(out, o->drop_rate_per_s, 0);
    g_string_append_c(out, '\n');
  }
  for (int i = 0; i < res->nstations; i++)
    if (res->stations[i].load >= 1)
      g_string_append_printf(out,
                             "\nwarning: station %s is overloaded (offered load %.3g >= 1): it has no steady state, "
                             "its queue grows with the run and its figures depend on the run length",
                             res->stations[i].name, res->stations[i].load);
  double exits = res->exit_rate_per_s.mean * res->simulated_s;
  if (!(exits >= QNET_FEW_DEPARTURES))
    g_string_append_printf(out, "\nwarning: only %.0f jobs left the network while measured: run longer for meaningful figures",
                           exits);
  if (isfinite(res->sojourn_s.mean))
    g_string_append_printf(
        out, "\nnetwork: sojourn time %.4g ±%.2g s, exit rate %.4g ±%.2g /s  (±: 95%% CI half-width, batch means)\n",
        res->sojourn_s.mean, res->sojourn_s.half_width, res->exit_rate_per_s.mean, res->exit_rate_per_s.half_width);
  else
    g_string_append(out, "\nnetwork: no job left the network while measured\n");
}

void qnet_result_write(const QnetResult *res, QnetFormat format, GString *out)
{
  switch (format) {
    case QNET_FORMAT_JSON: write_json(res, out); break;
    case QNET_FORMAT_CSV: write_csv(res, out); break;
    case QNET_FORMAT_TABLE:
    default: write_table(res, out); break;
  }
}
