/* sim/station.c — FCFS multi-server and processor-sharing stations (see station.h). */
#include "sim/station.h"

#include <math.h>
#include "sim/heap-inl.h"
#include "sim/rng.h"

/* Initial capacity of a PS station's heap (doubled as it fills). Assumed. */
#define PS_HEAP_INITIAL 64
/* Jobs whose finish tag is within this much virtual time (ns of work per job) of the clock
 * leave together: the rounding of the event time to whole ns. Assumed. */
#define PS_FINISH_SLACK_NS 1e-6

/* PS heap order: the smaller finish tag first, then the earlier arrival. */
static inline bool ps_less(const SimJob *a, const SimJob *b)
{
  return a->ps_finish < b->ps_finish || (a->ps_finish == b->ps_finish && a->ps_seq < b->ps_seq);
}

SIM_HEAP_DEFINE(ps_heap, SimJob, ps_less, ps_pos)

static SimStat *add_stat(SimStats *stats, const char *station, const char *what, SimStatKind kind)
{
  g_autofree char *name = g_strdup_printf("%s.%s", station, what);
  return sim_stats_add(stats, name, kind);
}

static void ps_complete(SimEngine *eng, SimEvent *ev, void *ctx);

SimStation *sim_station_new(SimEngine *eng, SimStats *stats, const char *name, SimStationDiscipline disc, int servers,
                            int capacity, const SimDist *service, uint64_t seed, sim_station_job_fn on_depart,
                            sim_station_job_fn on_drop, void *ctx)
{
  g_return_val_if_fail(servers >= 1 && capacity >= 0, NULL);
  SimStation *st = g_new0(SimStation, 1);
  st->name = g_strdup(name);
  st->disc = disc;
  st->servers = disc == SIM_STATION_PS ? 1 : servers;
  st->capacity = capacity;
  if (service) {
    st->service = *service;
    st->has_service = true;
  }
  st->rng = sim_rng_new(seed, name);
  st->eng = eng;
  st->on_depart = on_depart;
  st->on_drop = on_drop;
  st->ctx = ctx;
  st->ps_done = g_ptr_array_new();
  sim_event_init(&st->ps_ev, ps_complete, st);
  st->st_number = add_stat(stats, name, "number", SIM_STAT_LEVEL);
  st->st_busy = add_stat(stats, name, "busy", SIM_STAT_LEVEL);
  st->st_response_s = add_stat(stats, name, "response_s", SIM_STAT_TALLY);
  st->st_wait_s = add_stat(stats, name, "wait_s", SIM_STAT_TALLY);
  st->st_waited = add_stat(stats, name, "waited", SIM_STAT_TALLY);
  st->st_departures = add_stat(stats, name, "departures", SIM_STAT_RATE);
  st->st_arrivals = add_stat(stats, name, "arrivals", SIM_STAT_RATE);
  st->st_drops = add_stat(stats, name, "drops", SIM_STAT_RATE);
  sim_stat_keep_quantiles(st->st_response_s);
  return st;
}

void sim_station_free(SimStation *st)
{
  if (!st) return;
  g_free(st->ps_heap);
  g_ptr_array_free(st->ps_done, TRUE);
  gsl_rng_free(st->rng);
  g_free(st->name);
  g_free(st);
}

static double draw_work(SimStation *st, SimJob *job)
{
  if (st->has_service) job->work_ns = sim_dist_sample(&st->service, st->rng);
  return job->work_ns;
}

static void leave(SimStation *st, SimJob *job)
{
  sim_time_ns now = sim_engine_now(st->eng);
  st->in_system--;
  sim_stat_set_level(st->st_number, now, st->in_system);
  sim_stat_observe(st->st_response_s, sim_time_to_s(now - job->t_arrived));
  sim_stat_count(st->st_departures, 1);
  st->on_depart(st, job, st->ctx);
}

/* ---- FCFS ---- */

static void fcfs_done(SimEngine *eng, SimEvent *ev, void *ctx);

static void fcfs_start(SimStation *st, SimJob *job)
{
  sim_time_ns now = sim_engine_now(st->eng);
  job->t_started = now;
  sim_stat_observe(st->st_wait_s, sim_time_to_s(now - job->t_arrived));
  sim_stat_observe(st->st_waited, now > job->t_arrived);
  st->busy++;
  sim_stat_set_level(st->st_busy, now, st->busy);
  double w = draw_work(st, job);
  sim_event_init(&job->ev, fcfs_done, st);
  sim_engine_schedule_in(st->eng, &job->ev, (sim_time_ns)llround(w));
}

static void fcfs_done(SimEngine *eng, SimEvent *ev, void *ctx)
{
  SimStation *st = ctx;
  SimJob *job = (SimJob *)ev;
  st->busy--;
  sim_stat_set_level(st->st_busy, sim_engine_now(eng), st->busy);
  if (st->q_head) {
    SimJob *next = st->q_head;
    st->q_head = next->next;
    if (!st->q_head) st->q_tail = NULL;
    next->next = NULL;
    fcfs_start(st, next);
  }
  leave(st, job);
}

/* ---- PS ---- */

static void ps_advance(SimStation *st, sim_time_ns now)
{
  uint32_t n = st->ps_n;
  if (n) st->ps_vtime += (double)(now - st->ps_vtime_at) / n;
  st->ps_vtime_at = now;
}

/* (Re)schedules the next completion: when V reaches the smallest tag, the heap's root. */
static void ps_schedule(SimStation *st)
{
  uint32_t n = st->ps_n;
  if (!n) {
    sim_engine_cancel(st->eng, &st->ps_ev);
    return;
  }
  double dt = (st->ps_heap[0]->ps_finish - st->ps_vtime) * n;
  sim_time_ns at = sim_engine_now(st->eng) + (dt > 0 ? (sim_time_ns)ceil(dt) : 0);
  sim_engine_reschedule(st->eng, &st->ps_ev, at);
}

static void ps_push(SimStation *st, SimJob *job)
{
  if (st->ps_n == st->ps_cap) {
    st->ps_cap = st->ps_cap ? 2 * st->ps_cap : PS_HEAP_INITIAL;
    st->ps_heap = g_renew(SimJob *, st->ps_heap, st->ps_cap);
  }
  job->ps_seq = st->ps_seq_next++;
  ps_heap_insert(st->ps_heap, &st->ps_n, job);
}

static gint ps_by_arrival(gconstpointer a, gconstpointer b)
{
  const SimJob *x = *(SimJob *const *)a, *y = *(SimJob *const *)b;
  return x->ps_seq < y->ps_seq ? -1 : x->ps_seq > y->ps_seq;
}

static void ps_complete(SimEngine *eng, SimEvent *ev G_GNUC_UNUSED, void *ctx)
{
  SimStation *st = ctx;
  sim_time_ns now = sim_engine_now(eng);
  ps_advance(st, now);
  /* Take every job whose tag has been reached (ties leave together, in arrival order). */
  GPtrArray *done = st->ps_done;
  g_ptr_array_set_size(done, 0);
  while (st->ps_n && st->ps_heap[0]->ps_finish <= st->ps_vtime + PS_FINISH_SLACK_NS) {
    SimJob *j = st->ps_heap[0];
    ps_heap_remove(st->ps_heap, &st->ps_n, j);
    g_ptr_array_add(done, j);
  }
  if (done->len > 1) g_ptr_array_sort(done, ps_by_arrival);
  st->busy = st->ps_n ? 1 : 0;
  sim_stat_set_level(st->st_busy, now, st->busy);
  ps_schedule(st);
  /* leave() may bring a job back to this station (a self-loop), which only pushes onto the heap */
  for (guint i = 0; i < done->len; i++) {
    SimJob *j = g_ptr_array_index(done, i);
    sim_stat_observe(st->st_wait_s, sim_time_to_s(now - j->t_arrived) - j->work_ns * 1e-9);
    leave(st, j);
  }
  g_ptr_array_set_size(done, 0);
}

/* ---- arrival ---- */

void sim_station_arrive(SimStation *st, SimJob *job)
{
  sim_time_ns now = sim_engine_now(st->eng);
  sim_stat_count(st->st_arrivals, 1);
  if (st->capacity && st->in_system >= st->capacity) {
    sim_stat_count(st->st_drops, 1);
    if (st->on_drop) st->on_drop(st, job, st->ctx);
    return;
  }
  job->t_arrived = now;
  job->next = NULL;
  st->in_system++;
  sim_stat_set_level(st->st_number, now, st->in_system);
  if (st->disc == SIM_STATION_PS) {
    ps_advance(st, now);
    job->ps_finish = st->ps_vtime + draw_work(st, job);
    ps_push(st, job);
    st->busy = 1;
    sim_stat_set_level(st->st_busy, now, 1);
    ps_schedule(st);
  } else if (st->busy < st->servers) {
    fcfs_start(st, job);
  } else {
    if (st->q_tail)
      st->q_tail->next = job;
    else
      st->q_head = job;
    st->q_tail = job;
  }
}
