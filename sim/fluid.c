/* sim/fluid.c — request-level fluid simulation of resources shared by classes of requests (see sim/fluid.h). */
#include "sim/fluid.h"

#include <math.h>
#include <gsl/gsl_randist.h>
#include "sim/engine.h"
#include "sim/flow.h"
#include "sim/observe.h"
#include "sim/rng.h"
#include "sim/stats.h"

#define SIM_FLUID_ERROR g_quark_from_static_string("sim-fluid-error")

/* ---------- spec ---------- */

static void resource_free(gpointer p)
{
  SimFluidResource *r = p;
  g_free(r->name);
  g_free(r->kind);
  g_free(r->unit);
  g_free(r);
}

static void class_free(gpointer p)
{
  SimFluidClass *c = p;
  g_array_free(c->uses, TRUE);
  g_free(c->latency_stream);
  g_free(c->name);
  g_free(c);
}

SimFluidSpec *sim_fluid_spec_new(void)
{
  SimFluidSpec *s = g_new0(SimFluidSpec, 1);
  s->seed = 1;
  s->batches = SIM_FLUID_DEFAULT_BATCHES;
  s->concurrency = SIM_FLUID_DEFAULT_CONCURRENCY;
  s->request_bytes = (SimDist){ SIM_DIST_DETERMINISTIC, SIM_FLUID_DEFAULT_REQUEST_BYTES, 0 };
  s->flow_cap_Bps = INFINITY;
  s->resources = g_ptr_array_new_with_free_func(resource_free);
  s->classes = g_ptr_array_new_with_free_func(class_free);
  s->clients = g_array_new(FALSE, FALSE, sizeof(SimFluidClients));
  return s;
}

void sim_fluid_spec_free(SimFluidSpec *spec)
{
  if (!spec) return;
  g_ptr_array_free(spec->resources, TRUE);
  g_ptr_array_free(spec->classes, TRUE);
  g_array_free(spec->clients, TRUE);
  g_free(spec);
}

int sim_fluid_add_resource(SimFluidSpec *spec, const char *name, const char *kind, const char *unit, double capacity)
{
  SimFluidResource *r = g_new0(SimFluidResource, 1);
  r->name = g_strdup(name);
  r->kind = g_strdup(kind);
  r->unit = g_strdup(unit);
  r->capacity = capacity;
  g_ptr_array_add(spec->resources, r);
  return (int)spec->resources->len - 1;
}

SimFluidClass *sim_fluid_add_class(SimFluidSpec *spec, const char *name, double weight, double latency_ns)
{
  SimFluidClass *c = g_new0(SimFluidClass, 1);
  c->name = g_strdup(name);
  c->weight = weight;
  c->latency_ns = latency_ns;
  c->uses = g_array_new(FALSE, FALSE, sizeof(SimFluidUse));
  g_ptr_array_add(spec->classes, c);
  return c;
}

void sim_fluid_class_latency_spread(SimFluidClass *cls, double cv, const char *stream)
{
  cls->latency_cv = cv;
  g_free(cls->latency_stream);
  cls->latency_stream = g_strdup(stream);
}

void sim_fluid_add_clients(SimFluidSpec *spec, int count, int burst, double period_ns)
{
  SimFluidClients g = { count, burst, period_ns };
  g_array_append_val(spec->clients, g);
}

void sim_fluid_class_use(SimFluidClass *cls, int res, double units_per_byte)
{
  for (guint i = 0; i < cls->uses->len; i++) {
    SimFluidUse *u = &g_array_index(cls->uses, SimFluidUse, i);
    if (u->res == res) {
      u->units_per_byte += units_per_byte;
      return;
    }
  }
  SimFluidUse u = { res, units_per_byte };
  g_array_append_val(cls->uses, u);
}

gboolean sim_fluid_spec_check(const SimFluidSpec *spec, GError **error)
{
  int nres = (int)spec->resources->len;
  for (int i = 0; i < nres; i++) {
    const SimFluidResource *r = g_ptr_array_index(spec->resources, i);
    if (!(r->capacity > 0) || !isfinite(r->capacity)) {
      g_set_error(error, SIM_FLUID_ERROR, 1, "resource %s: capacity %g must be positive and finite", r->name, r->capacity);
      return FALSE;
    }
  }
  if (!(spec->rate_precision >= 0 && spec->rate_precision < 1)) {
    g_set_error(error, SIM_FLUID_ERROR, 1, "rate precision %g must be in [0, 1)", spec->rate_precision);
    return FALSE;
  }
  if (!spec->classes->len) {
    g_set_error(error, SIM_FLUID_ERROR, 1, "no request classes: nothing to serve");
    return FALSE;
  }
  for (guint k = 0; k < spec->classes->len; k++) {
    const SimFluidClass *c = g_ptr_array_index(spec->classes, k);
    gboolean bounded = isfinite(spec->flow_cap_Bps);
    if (!(c->weight > 0) || !(c->latency_ns >= 0) || !(c->latency_cv >= 0 && c->latency_cv <= SIM_FLUID_MAX_LATENCY_CV) ||
        (c->latency_cv > 0 && !(c->latency_ns > 0))) {
      g_set_error(error, SIM_FLUID_ERROR, 1,
                  "class %s: weight must be > 0, latency >= 0 and its CV in [0, %d] (> 0 only with a latency)", c->name,
                  SIM_FLUID_MAX_LATENCY_CV);
      return FALSE;
    }
    for (guint i = 0; i < c->uses->len; i++) {
      const SimFluidUse *u = &g_array_index(c->uses, SimFluidUse, i);
      if (u->res < 0 || u->res >= nres || !(u->units_per_byte >= 0)) {
        g_set_error(error, SIM_FLUID_ERROR, 1, "class %s: bad resource use", c->name);
        return FALSE;
      }
      bounded |= u->units_per_byte > 0;
    }
    if (!bounded) {
      g_set_error(error, SIM_FLUID_ERROR, 1, "class %s uses no resource: its rate would be unbounded", c->name);
      return FALSE;
    }
  }
  if (spec->concurrency < 1 || spec->batches < 2 || spec->batches > SIM_STATS_MAX_BATCHES || spec->warmup_ns < 0 ||
      spec->duration_ns - spec->warmup_ns < spec->batches * SIM_NS_PER_US || !(spec->offered_Bps >= 0)) {
    g_set_error(error, SIM_FLUID_ERROR, 1,
                "bad run parameters: concurrency >= 1, 2..64 batches of at least 1 us after the warm-up, offered load >= 0");
    return FALSE;
  }
  for (guint i = 0; i < spec->clients->len; i++) {
    const SimFluidClients *g = &g_array_index(spec->clients, SimFluidClients, i);
    if (g->count < 1 || g->burst < 1 || !(g->period_ns >= 1) || !isfinite(g->period_ns) || !(spec->offered_Bps > 0)) {
      g_set_error(error, SIM_FLUID_ERROR, 1,
                  "client group %u: count and burst >= 1, a period of at least 1 ns, and an offered load", i);
      return FALSE;
    }
  }
  return sim_dist_validate(&spec->request_bytes, error);
}

double sim_fluid_bound_Bps(const SimFluidSpec *spec, int *bottleneck)
{
  int nres = (int)spec->resources->len;
  g_autofree double *demand = g_new0(double, nres);
  double wsum = 0;
  for (guint k = 0; k < spec->classes->len; k++) wsum += ((SimFluidClass *)g_ptr_array_index(spec->classes, k))->weight;
  for (guint k = 0; k < spec->classes->len; k++) {
    const SimFluidClass *c = g_ptr_array_index(spec->classes, k);
    for (guint i = 0; i < c->uses->len; i++) {
      const SimFluidUse *u = &g_array_index(c->uses, SimFluidUse, i);
      demand[u->res] += c->weight / wsum * u->units_per_byte;
    }
  }
  double best = spec->concurrency * spec->flow_cap_Bps;
  int arg = -1;
  for (int r = 0; r < nres; r++) {
    if (demand[r] <= 0) continue;
    double x = ((SimFluidResource *)g_ptr_array_index(spec->resources, r))->capacity / demand[r];
    if (x < best) {
      best = x;
      arg = r;
    }
  }
  if (bottleneck) *bottleneck = arg;
  return best;
}

/* ---------- simulation ---------- */

typedef struct request request;
typedef struct sim_state sim_state;

/* One group of paced clients: its spec and one event per client. */
typedef struct {
  const SimFluidClients *g;
  sim_state *s;
  SimEvent *ev; /* count events, re-armed every period */
} client_group;

struct request {
  SimEvent ev;                  /* end of the access latency */
  request *next;                /* free list / wait queue */
  request *prev_act, *next_act; /* list of requests transferring */
  SimFlow *flow;
  sim_state *s;
  int cls;
  double bytes;
  sim_time_ns t_arrival;
  uint64_t id;      /* arrival order, for traces */
  client_group *cg; /* a paced client's request: its group (NULL: Poisson or saturate) */
  int left;         /* requests of the client's segment still to send after this one */
};

struct sim_state {
  const SimFluidSpec *spec;
  SimEngine *eng;
  SimFlowNet *net;
  SimFlowResource **fres;
  SimFlowUse **uses;   /* per class */
  SimFlowPath **paths; /* per class */
  gsl_rng *rng_arrival, *rng_class, *rng_size;
  SimDistSampler *lat_dist; /* per class: its access latency */
  SimDistSampler size_dist; /* request sizes (spec->request_bytes) */
  gsl_rng **lat_rng;        /* per class: the stream it draws from (owned by lat_streams; NULL: fixed) */
  GPtrArray *lat_streams;   /* the distinct streams, gsl_rng* */
  client_group *groups;     /* spec->clients->len of them */
  gsl_ran_discrete_t *class_table;
  SimEvent arrival;
  double mean_gap_ns;
  int active; /* slots taken (latency phase or transferring) */
  request *wait_head, *wait_tail;
  int n_waiting;
  uint64_t rejected;
  request *free;
  request *act_head; /* transferring */
  GPtrArray *blocks;
  SimStats *stats;
  SimStat *st_latency, *st_bytes, **st_res;
  double bytes_admitted, bytes_waiting_latency;
  double max_util;
  uint64_t next_id;
  SimTraceLevel *trace;    /* per class: the highest level of its class and resources (NULL: no trace) */
  const char **trace_name; /* per class: the traced component that set it */
};

/* Logs one event of request @r when its class is traced at @level. */
#define REQ_TRACE(s, r, level, ...)                                                          \
  do {                                                                                       \
    if (G_UNLIKELY((s)->trace && (s)->trace[(r)->cls] >= (level)))                           \
      SIM_TRACE_LOG(G_LOG_DOMAIN, (s)->trace_name[(r)->cls], (level),                        \
                    "t=%.9f s %s: request %" G_GUINT64_FORMAT " (%s, %.0f B) " __VA_ARGS__); \
  } while (0)
#define REQ_ARGS(s, r)                                                         \
  sim_time_to_s(sim_engine_now((s)->eng)), (s)->trace_name[(r)->cls], (r)->id, \
      ((SimFluidClass *)g_ptr_array_index((s)->spec->classes, (r)->cls))->name, (r)->bytes

/* Requests allocated at once for the free list (an allocation granule; assumed). */
#define REQ_BLOCK 512

static request *req_new(sim_state *s)
{
  if (!s->free) {
    request *b = g_new0(request, REQ_BLOCK);
    g_ptr_array_add(s->blocks, b);
    for (int i = 0; i < REQ_BLOCK; i++) {
      b[i].next = s->free;
      s->free = &b[i];
    }
  }
  request *r = s->free;
  s->free = r->next;
  r->next = NULL;
  r->s = s;
  r->cls = (int)gsl_ran_discrete(s->rng_class, s->class_table);
  r->bytes = sim_dist_sampler_draw(&s->size_dist, s->rng_size);
  r->t_arrival = sim_engine_now(s->eng);
  r->id = s->next_id++;
  return r;
}

static void transfer_done(SimFlowNet *net, SimFlow *flow, void *ctx);

static void latency_done(SimEngine *eng G_GNUC_UNUSED, SimEvent *ev G_GNUC_UNUSED, void *ctx)
{
  request *r = ctx;
  sim_state *s = r->s;
  s->bytes_waiting_latency -= r->bytes;
  REQ_TRACE(s, r, SIM_TRACE_DEBUG, "starts its transfer", REQ_ARGS(s, r));
  r->flow = sim_flow_start_path(s->net, s->paths[r->cls], r->bytes, transfer_done, r);
  g_assert(r->flow);
  r->prev_act = NULL;
  r->next_act = s->act_head;
  if (s->act_head) s->act_head->prev_act = r;
  s->act_head = r;
}

/* Gives @r a slot: access latency, then its transfer. */
static void admit(sim_state *s, request *r)
{
  const SimDistSampler *d = &s->lat_dist[r->cls];
  double lat_ns = sim_dist_sampler_draw(d, s->lat_rng[r->cls]); /* a fixed latency (CV 0) has no stream and draws nothing */
  s->active++;
  s->bytes_admitted += r->bytes;
  s->bytes_waiting_latency += r->bytes;
  REQ_TRACE(s, r, SIM_TRACE_DEBUG, "gets a slot after %.6f s waiting, access latency %.0f ns", REQ_ARGS(s, r),
            sim_time_to_s(sim_engine_now(s->eng) - r->t_arrival), lat_ns);
  sim_event_init(&r->ev, latency_done, r);
  sim_engine_schedule_in(s->eng, &r->ev, (sim_time_ns)llround(lat_ns));
}

static void arrive(sim_state *s, client_group *cg, int left);

static void transfer_done(SimFlowNet *net G_GNUC_UNUSED, SimFlow *flow G_GNUC_UNUSED, void *ctx)
{
  request *r = ctx;
  sim_state *s = r->s;
  client_group *cg = r->cg;
  int left = r->left;
  sim_time_ns now = sim_engine_now(s->eng);
  sim_stat_observe(s->st_latency, sim_time_to_s(now - r->t_arrival));
  REQ_TRACE(s, r, SIM_TRACE_INFO, "done, latency %.6f s", REQ_ARGS(s, r), sim_time_to_s(now - r->t_arrival));
  s->active--;
  if (r->prev_act)
    r->prev_act->next_act = r->next_act;
  else
    s->act_head = r->next_act;
  if (r->next_act) r->next_act->prev_act = r->prev_act;
  r->flow = NULL;
  r->next = s->free;
  s->free = r;
  if (s->spec->offered_Bps <= 0) {
    admit(s, req_new(s)); /* saturate: refill the slot */
  } else if (s->wait_head) {
    request *w = s->wait_head;
    s->n_waiting--;
    s->wait_head = w->next;
    if (!s->wait_head) s->wait_tail = NULL;
    w->next = NULL;
    admit(s, w);
  }
  if (cg && left > 0) arrive(s, cg, left - 1); /* the client's next request of its segment */
}

/* A new request arrives (from client group @cg with @left more of its segment to send after it,
 * or NULL): a slot, a place in the wait queue, or turned away (which ends the client's segment). */
static void arrive(sim_state *s, client_group *cg, int left)
{
  request *r = req_new(s);
  r->cg = cg;
  r->left = left;
  REQ_TRACE(s, r, SIM_TRACE_DEBUG, "arrives, %d slots taken, %d waiting", REQ_ARGS(s, r), s->active, s->n_waiting);
  if (s->active < s->spec->concurrency) {
    admit(s, r);
  } else if (s->n_waiting >= SIM_FLUID_MAX_WAITING_PER_SLOT * s->spec->concurrency) {
    REQ_TRACE(s, r, SIM_TRACE_DEBUG, "turned away: the wait queue is full", REQ_ARGS(s, r));
    s->rejected++; /* the client gives up: the system is overloaded */
    r->next = s->free;
    s->free = r;
  } else {
    s->n_waiting++;
    if (s->wait_tail)
      s->wait_tail->next = r;
    else
      s->wait_head = r;
    s->wait_tail = r;
  }
}

static void on_arrival(SimEngine *eng, SimEvent *ev, void *ctx)
{
  sim_state *s = ctx;
  arrive(s, NULL, 0);
  sim_engine_schedule_in(eng, ev, (sim_time_ns)llround(gsl_ran_exponential(s->rng_arrival, s->mean_gap_ns)));
}

/* A paced client starts fetching a segment (its requests one after another, each sent when the
 * one before has arrived) and comes back one period later. */
static void on_client_fetch(SimEngine *eng, SimEvent *ev, void *ctx)
{
  client_group *cg = ctx;
  arrive(cg->s, cg, cg->g->burst - 1);
  sim_engine_schedule_in(eng, ev, (sim_time_ns)llround(cg->g->period_ns));
}

/* Every class's access-latency distribution and stream: one gsl_rng per distinct stream name. */
static void latency_setup(sim_state *s)
{
  guint ncls = s->spec->classes->len;
  s->lat_dist = g_new0(SimDistSampler, ncls);
  s->lat_rng = g_new0(gsl_rng *, ncls);
  s->lat_streams = g_ptr_array_new_with_free_func((GDestroyNotify)gsl_rng_free);
  g_autoptr(GHashTable) by_name = g_hash_table_new(g_str_hash, g_str_equal); /* lookups only: order decides nothing */
  for (guint k = 0; k < ncls; k++) {
    const SimFluidClass *c = g_ptr_array_index(s->spec->classes, k);
    SimDist d = c->latency_cv > 0 ? (SimDist){ SIM_DIST_LOGNORMAL, c->latency_ns, c->latency_cv }
                                  : (SimDist){ SIM_DIST_DETERMINISTIC, c->latency_ns, 0 };
    sim_dist_sampler_init(&s->lat_dist[k], &d);
    if (!(c->latency_cv > 0)) continue;
    const char *name = c->latency_stream ? c->latency_stream : c->name;
    gsl_rng *rng = g_hash_table_lookup(by_name, name);
    if (!rng) {
      rng = sim_rng_new(s->spec->seed, name);
      g_ptr_array_add(s->lat_streams, rng);
      g_hash_table_insert(by_name, (gpointer)name, rng);
    }
    s->lat_rng[k] = rng;
  }
}

/* Arms every paced client at a phase drawn uniformly in its period (stream "workload.clients"). */
static void clients_setup(sim_state *s)
{
  guint n = s->spec->clients->len;
  s->groups = g_new0(client_group, n);
  g_autoptr(gsl_rng) rng = sim_rng_new(s->spec->seed, "workload.clients");
  for (guint i = 0; i < n; i++) {
    client_group *cg = &s->groups[i];
    cg->g = &g_array_index(s->spec->clients, SimFluidClients, i);
    cg->s = s;
    cg->ev = g_new(SimEvent, cg->g->count);
    for (int c = 0; c < cg->g->count; c++) {
      sim_event_init(&cg->ev[c], on_client_fetch, cg);
      sim_engine_schedule(s->eng, &cg->ev[c], (sim_time_ns)llround(gsl_rng_uniform(rng) * cg->g->period_ns));
    }
  }
}

/* Feeds the units each resource served since the last call into its rate statistic. */
static void sample_resources(sim_state *s, double *last_units, double *last_bytes)
{
  guint nres = s->spec->resources->len;
  for (guint i = 0; i < nres; i++) {
    SimFlowStats fs;
    sim_flow_resource_stats(s->net, s->fres[i], &fs);
    sim_stat_count(s->st_res[i], fs.units - last_units[i]);
    last_units[i] = fs.units;
    double u = sim_flow_resource_utilisation(s->net, s->fres[i]);
    s->max_util = u > s->max_util ? u : s->max_util;
  }
  SimFlowStats ns;
  sim_flow_net_stats(s->net, &ns);
  sim_stat_count(s->st_bytes, ns.units - *last_bytes);
  *last_bytes = ns.units;
}

static SimFluidEstimate est(const SimStat *st, double scale)
{
  SimCi ci = sim_stat_ci(st);
  return (SimFluidEstimate){ ci.mean * scale, ci.half_width * scale };
}

/* Per class, the level of the most traced of its components (the class, "requests", every
 * resource it uses), or no table when nothing is traced. */
static void trace_setup(sim_state *s, const SimTrace *t)
{
  if (!t) return;
  guint ncls = s->spec->classes->len;
  s->trace = g_new0(SimTraceLevel, ncls);
  s->trace_name = g_new0(const char *, ncls);
  gboolean any = FALSE;
  for (guint k = 0; k < ncls; k++) {
    const SimFluidClass *c = g_ptr_array_index(s->spec->classes, k);
    const char *cand[2] = { c->name, "requests" };
    for (int i = 0; i < 2; i++) {
      SimTraceLevel l = sim_trace_level(t, cand[i]);
      if (l > s->trace[k]) s->trace[k] = l, s->trace_name[k] = cand[i];
    }
    for (guint i = 0; i < c->uses->len; i++) {
      const SimFluidUse *u = &g_array_index(c->uses, SimFluidUse, i);
      const SimFluidResource *r = g_ptr_array_index(s->spec->resources, u->res);
      SimTraceLevel l = u->units_per_byte > 0 ? sim_trace_level(t, r->name) : SIM_TRACE_OFF;
      if (l > s->trace[k]) s->trace[k] = l, s->trace_name[k] = r->name;
    }
    any |= s->trace[k] != SIM_TRACE_OFF;
  }
  if (!any) {
    g_clear_pointer(&s->trace, g_free);
    g_clear_pointer(&s->trace_name, g_free);
  }
}

/* Steps between progress reports: the run stops its clock this many times on the way (which
 * changes nothing it computes), whether or not anyone watches. */
#define PROGRESS_STEPS 200

/* Runs the engine to @t_end in steps of @step, reporting progress after each. */
static void run_to(sim_state *s, sim_time_ns t_end, sim_time_ns step, const SimObserver *obs)
{
  sim_time_ns t;
  do {
    t = MIN(t_end, sim_engine_now(s->eng) + step);
    sim_engine_run_until(s->eng, t);
    sim_observer_progress(obs, sim_time_to_s(t), sim_time_to_s(s->spec->duration_ns));
  } while (t < t_end);
}

SimFluidResult *sim_fluid_run(const SimFluidSpec *spec)
{
  return sim_fluid_run_observed(spec, NULL);
}

double sim_fluid_offered_sd_bytes(const SimFluidSpec *spec)
{
  if (!(spec->offered_Bps > 0)) return 0;
  double T = sim_time_to_s(spec->duration_ns - spec->warmup_ns), mu = sim_dist_mean(&spec->request_bytes);
  double var_size = sim_dist_scv(&spec->request_bytes) * mu * mu;
  if (!spec->clients->len) return sqrt(spec->offered_Bps * T / mu * (var_size + mu * mu));
  double var = 0;
  for (guint i = 0; i < spec->clients->len; i++) {
    const SimFluidClients *g = &g_array_index(spec->clients, SimFluidClients, i);
    double fetches = T / (g->period_ns * 1e-9), f = fetches - floor(fetches), fetch_mean = g->burst * mu;
    var += g->count * (fetches * g->burst * var_size + f * (1 - f) * fetch_mean * fetch_mean);
  }
  return sqrt(var);
}

/* The 95 % normal quantile of the offered load's half-width (its variance is known, not estimated). */
#define OFFERED_Z95 1.959963984540054

SimFluidResult *sim_fluid_run_observed(const SimFluidSpec *spec, const SimObserver *obs)
{
  guint nres = spec->resources->len, ncls = spec->classes->len;
  sim_state s = { .spec = spec };
  trace_setup(&s, obs ? obs->trace : NULL);
  s.eng = sim_engine_new();
  s.net = sim_flow_net_new(s.eng);
  sim_flow_net_keep_flow_stats(s.net, false); /* only units are read (sample_resources) */
  sim_flow_net_set_rate_precision(s.net, spec->rate_precision);
  s.stats = sim_stats_new();
  s.blocks = g_ptr_array_new_with_free_func(g_free);
  s.fres = g_new0(SimFlowResource *, nres);
  s.st_res = g_new0(SimStat *, nres);
  for (guint i = 0; i < nres; i++) {
    const SimFluidResource *r = g_ptr_array_index(spec->resources, i);
    s.fres[i] = sim_flow_net_add_resource(s.net, r->name, r->capacity);
    s.st_res[i] = sim_stats_add(s.stats, r->name, SIM_STAT_RATE);
  }
  s.st_latency = sim_stats_add(s.stats, "request.latency_s", SIM_STAT_TALLY);
  sim_stat_keep_quantiles_of(s.st_latency, 1u << 0 | 1u << 2);    /* p50, p99: all that is reported */
  sim_stat_keep_batch_quantiles(s.st_latency, 1u << 0 | 1u << 2); /* and their batch-means CIs */
  s.st_bytes = sim_stats_add(s.stats, "served.bytes", SIM_STAT_RATE);
  s.uses = g_new0(SimFlowUse *, ncls);
  g_autofree double *weights = g_new0(double, ncls);
  for (guint k = 0; k < ncls; k++) {
    const SimFluidClass *c = g_ptr_array_index(spec->classes, k);
    weights[k] = c->weight;
    s.uses[k] = g_new0(SimFlowUse, c->uses->len ? c->uses->len : 1);
    for (guint i = 0; i < c->uses->len; i++) {
      const SimFluidUse *u = &g_array_index(c->uses, SimFluidUse, i);
      s.uses[k][i] = (SimFlowUse){ s.fres[u->res], u->units_per_byte };
    }
  }
  s.paths = g_new0(SimFlowPath *, ncls);
  for (guint k = 0; k < ncls; k++) {
    const SimFluidClass *c = g_ptr_array_index(spec->classes, k);
    s.paths[k] = sim_flow_net_path(s.net, s.uses[k], c->uses->len, spec->flow_cap_Bps, NULL);
    g_assert(s.paths[k]); /* sim_fluid_spec_check: every class is bounded */
  }
  s.class_table = gsl_ran_discrete_preproc(ncls, weights);
  s.rng_arrival = sim_rng_new(spec->seed, "workload.arrivals");
  s.rng_class = sim_rng_new(spec->seed, "workload.class");
  s.rng_size = sim_rng_new(spec->seed, "workload.size");
  sim_dist_sampler_init(&s.size_dist, &spec->request_bytes);

  latency_setup(&s);
  if (spec->offered_Bps > 0 && spec->clients->len) {
    clients_setup(&s);
  } else if (spec->offered_Bps > 0) {
    s.mean_gap_ns = 1e9 * sim_dist_mean(&spec->request_bytes) / spec->offered_Bps;
    sim_event_init(&s.arrival, on_arrival, &s);
    sim_engine_schedule(s.eng, &s.arrival, (sim_time_ns)llround(gsl_ran_exponential(s.rng_arrival, s.mean_gap_ns)));
  } else {
    for (int i = 0; i < spec->concurrency; i++) admit(&s, req_new(&s));
  }

  g_autofree double *last_units = g_new0(double, nres);
  double last_bytes = 0;
  sim_time_ns step = MAX(spec->duration_ns / PROGRESS_STEPS, 1);
  run_to(&s, spec->warmup_ns, step, obs);
  sample_resources(&s, last_units, &last_bytes);

  sim_stats_reset(s.stats, spec->warmup_ns);
  sim_time_ns batch = (spec->duration_ns - spec->warmup_ns) / spec->batches, t = spec->warmup_ns;
  for (int b = 0; b < spec->batches; b++) {
    t = b == spec->batches - 1 ? spec->duration_ns : t + batch;
    run_to(&s, t, step, obs);
    sample_resources(&s, last_units, &last_bytes);
    sim_stats_close_batch(s.stats, t);
  }

  SimFluidResult *res = g_new0(SimFluidResult, 1);
  res->throughput_Bps = est(s.st_bytes, 1);
  /* the CI of the long-run throughput: the batch means plus the offered load's own noise over the
   * window (sim_fluid_offered_sd_bytes), root-sum-square; conservative, as the batch means see a
   * share of that noise too */
  res->throughput_batch_hw_Bps = res->throughput_Bps.half_width;
  res->offered_hw_Bps = OFFERED_Z95 * sim_fluid_offered_sd_bytes(spec) / sim_time_to_s(spec->duration_ns - spec->warmup_ns);
  res->throughput_Bps.half_width = hypot(res->throughput_batch_hw_Bps, res->offered_hw_Bps);
  res->latency_s = est(s.st_latency, 1);
  res->latency_p50_s = sim_stat_quantile(s.st_latency, 0);
  res->latency_p99_s = sim_stat_quantile(s.st_latency, 2);
  res->latency_p50_hw_s = sim_stat_quantile_ci(s.st_latency, 0).half_width;
  res->latency_p99_hw_s = sim_stat_quantile_ci(s.st_latency, 2).half_width;
  res->simulated_s = sim_time_to_s(spec->duration_ns - spec->warmup_ns);
  res->events = s.eng->events_run;
  res->solves = sim_flow_net_n_recomputes(s.net);
  res->deferred = sim_flow_net_n_deferred(s.net);
  res->batches = sim_stat_ci(s.st_bytes).batches;
  res->resources = g_new0(SimFluidResourceResult, nres);
  for (guint i = 0; i < nres; i++) {
    const SimFluidResource *r = g_ptr_array_index(spec->resources, i);
    res->resources[i].load = est(s.st_res[i], 1);
    res->resources[i].utilization = est(s.st_res[i], 1 / r->capacity);
  }
  /* conservation: admitted = delivered by the flow net + still to move */
  double completed_n = 0;
  for (int b = 0; b < s.st_latency->nbatches; b++) completed_n += s.st_latency->batches[b].den;
  res->requests_done = (uint64_t)(completed_n + s.st_latency->partial.den);
  res->bytes_admitted = s.bytes_admitted;
  res->bytes_delivered = last_bytes; /* cumulative: the net's statistics are never reset */
  res->bytes_in_flight = s.bytes_waiting_latency;
  res->requests_rejected = s.rejected;
  for (request *r = s.act_head; r; r = r->next_act) res->bytes_in_flight += sim_flow_remaining_bytes(r->flow);
  res->max_utilization_seen = s.max_util;

  gsl_ran_discrete_free(s.class_table);
  gsl_rng_free(s.rng_arrival);
  gsl_rng_free(s.rng_class);
  gsl_rng_free(s.rng_size);
  g_ptr_array_free(s.lat_streams, TRUE);
  g_free(s.lat_dist);
  g_free(s.lat_rng);
  for (guint k = 0; k < ncls; k++) g_free(s.uses[k]);
  g_free(s.uses);
  g_free(s.paths);
  sim_flow_net_free(s.net);
  sim_engine_free(s.eng);
  for (guint i = 0; i < spec->clients->len && s.groups; i++) g_free(s.groups[i].ev); /* after the engine: pending */
  g_free(s.groups);
  sim_stats_free(s.stats);
  g_ptr_array_free(s.blocks, TRUE);
  g_free(s.fres);
  g_free(s.st_res);
  g_free(s.trace);
  g_free(s.trace_name);
  return res;
}

void sim_fluid_result_free(SimFluidResult *res)
{
  if (!res) return;
  g_free(res->resources);
  g_free(res);
}
