/* tests/support/flow_ref.c — reference per-flow solver (see flow_ref.h):
 * sim/flow.c of commit 47c3890 with its symbols renamed, unchanged otherwise. */
#include "tests/support/flow_ref.h"

#include <string.h>

/* Remaining bytes at which a flow counts as done at once, relative to size. */
#define DONE_REL_EPS 1e-9
/* Completion time targets remaining = this x size (absorbs float drift). */
#define FINISH_REL_EPS 1e-12
/* A resource is "safe" when every user has a cap and the caps fit with this
 * relative margin: it can never saturate. */
#define SAFE_REL_MARGIN 1e-9
/* Resources whose level is within this relative margin of the minimum
 * saturate in the same round. */
#define LEVEL_REL_TOL 1e-12
#define FLOW_BLOCK    64
/* Solves without a component search after one found everything connected. */
#define FULL_SOLVES 32

G_DEFINE_QUARK(ref - flow - error - quark, ref_flow_error)

typedef struct {
  ref_flow_resource *res;
  double w;     /* units per byte, > 0 */
  uint32_t pos; /* index in res->users */
} flow_use;

typedef struct {
  ref_flow *f;
  double w;     /* copy of f->uses[use].w, saves a pointer chase */
  double wcap;  /* w x f's cap, 0 if uncapped */
  uint32_t use; /* index in f->uses */
} res_user;

enum { FLOW_FREE, FLOW_ACTIVE, FLOW_DONE_PENDING, FLOW_IN_CALLBACK, FLOW_CANCELLED };

struct ref_flow {
  /* hot in solve() */
  uint32_t mark; /* solve epoch */
  bool frozen;
  uint32_t n_uses;
  flow_use *uses;
  double rate, remaining, size, cap;
  sim_time_ns finish_ns;
  /* the rest */
  ref_flow_net *net;
  uint32_t cap_uses;
  uint32_t idx; /* in net->flows while active */
  uint32_t state;
  double alone_s;
  sim_time_ns start_ns;
  uint64_t seq;
  ref_flow_done_fn done;
  void *ctx;
  ref_flow *next_free;
};

struct ref_flow_resource {
  char *name;
  double capacity;
  res_user *users;
  uint32_t n_users, cap_users;
  double load;         /* sum w x rate, units/s */
  double cap_load;     /* sum w x cap over capped users, units/s */
  uint32_t n_uncapped; /* users without a cap */
  /* solve scratch */
  double frozen_load, W, lvl;
  uint32_t n_unfrozen, mark;
  bool dirty;
  ref_flow_stats st;
};

struct ref_flow_net {
  SimEngine *eng;
  SimEvent ev;
  bool in_handler;
  GPtrArray *resources; /* owns ref_flow_resource */
  ref_flow **flows;     /* active */
  uint32_t n_flows, cap_flows;
  ref_flow **capped; /* active flows with a cap and a resource, by (cap, seq) */
  uint32_t n_capped;
  ref_flow *free_list;
  GPtrArray *blocks; /* owns blocks of FLOW_BLOCK flows */
  uint64_t next_seq;
  sim_time_ns t_last; /* remaining bytes and statistics valid here */
  sim_time_ns stats_start;
  /* scratch, capacity >= n_resources or cap_flows */
  ref_flow_resource **dirty;
  uint32_t n_dirty;
  ref_flow_resource **comp_res;
  ref_flow_resource **live_res;
  ref_flow **comp_flows;
  ref_flow **batch;
  uint32_t cap_res_scratch;
  uint32_t epoch;
  uint64_t n_recomputes;
  uint64_t n_fast; /* changes that needed no solve */
  uint32_t full_solves_left;
  uint32_t n_flows_free_running; /* active flows using no resource */
  ref_flow_stats st;
};

static void on_event(SimEngine *eng, SimEvent *ev, void *ctx);

/* ---- small helpers ------------------------------------------------------ */

static void grow_flow_arrays(ref_flow_net *net, uint32_t need)
{
  if (need <= net->cap_flows) return;
  uint32_t cap = net->cap_flows ? net->cap_flows : 64;
  while (cap < need) cap *= 2;
  net->flows = g_renew(ref_flow *, net->flows, cap);
  net->capped = g_renew(ref_flow *, net->capped, cap);
  net->comp_flows = g_renew(ref_flow *, net->comp_flows, cap);
  net->batch = g_renew(ref_flow *, net->batch, cap);
  net->cap_flows = cap;
}

static ref_flow *flow_alloc(ref_flow_net *net)
{
  if (!net->free_list) {
    ref_flow *block = g_new0(ref_flow, FLOW_BLOCK);
    g_ptr_array_add(net->blocks, block);
    for (int i = FLOW_BLOCK - 1; i >= 0; i--) {
      block[i].next_free = net->free_list;
      net->free_list = &block[i];
    }
  }
  ref_flow *f = net->free_list;
  net->free_list = f->next_free;
  f->next_free = NULL;
  return f;
}

static void flow_release(ref_flow_net *net, ref_flow *f)
{
  f->state = FLOW_FREE;
  f->n_uses = 0;
  f->done = NULL;
  f->ctx = NULL;
  f->next_free = net->free_list;
  net->free_list = f;
}

static inline bool capped_less(const ref_flow *a, const ref_flow *b)
{
  return a->cap < b->cap || (a->cap == b->cap && a->seq < b->seq);
}

/* First index i with !(capped[i] < f). */
static uint32_t capped_lower_bound(const ref_flow_net *net, const ref_flow *f)
{
  uint32_t lo = 0, hi = net->n_capped;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (capped_less(net->capped[mid], f))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static void capped_insert(ref_flow_net *net, ref_flow *f)
{
  uint32_t i = capped_lower_bound(net, f);
  memmove(&net->capped[i + 1], &net->capped[i], (net->n_capped - i) * sizeof *net->capped);
  net->capped[i] = f;
  net->n_capped++;
}

static void capped_remove(ref_flow_net *net, ref_flow *f)
{
  uint32_t i = capped_lower_bound(net, f);
  g_assert(i < net->n_capped && net->capped[i] == f);
  memmove(&net->capped[i], &net->capped[i + 1], (net->n_capped - i - 1) * sizeof *net->capped);
  net->n_capped--;
}

static inline void mark_dirty(ref_flow_net *net, ref_flow_resource *r)
{
  if (!r->dirty) {
    r->dirty = true;
    net->dirty[net->n_dirty++] = r;
  }
}

/* A safe resource never saturates: flows through it are limited by their
 * caps or elsewhere, and a flow whose resources are all safe runs at its
 * cap and affects no other flow's rate (fast path: no solve). */
static inline bool safe(const ref_flow_resource *r)
{
  return r->n_uncapped == 0 && r->cap_load <= r->capacity * (1 - SAFE_REL_MARGIN);
}

/* Moves the net's event to now so that pending changes are solved before the
 * clock moves on (outside the handler, which solves before returning). */
static void request_solve(ref_flow_net *net)
{
  if (net->in_handler) return;
  sim_time_ns now = sim_engine_now(net->eng);
  if (!(sim_event_pending(&net->ev) && net->ev.time == now)) sim_engine_reschedule(net->eng, &net->ev, now);
}

/* ---- time advance and statistics ---------------------------------------- */

/* Removes @over_bytes of @f's delivery (time it spent past its last byte)
 * from the statistics. */
static void uncount(ref_flow_net *net G_GNUC_UNUSED, ref_flow *f, double over_bytes)
{
  for (uint32_t k = 0; k < f->n_uses; k++) {
    ref_flow_resource *r = f->uses[k].res;
    r->st.units -= f->uses[k].w * over_bytes;
    r->st.busy_area_s -= f->uses[k].w * over_bytes / r->capacity;
  }
}

/* Advances remaining bytes and statistics from t_last to now. */
static void advance(ref_flow_net *net)
{
  sim_time_ns now = sim_engine_now(net->eng);
  sim_time_ns dt_ns = now - net->t_last;
  if (dt_ns <= 0) return;
  double dt = (double)dt_ns / 1e9;
  for (guint i = 0; i < net->resources->len; i++) {
    ref_flow_resource *r = g_ptr_array_index(net->resources, i);
    r->st.units += r->load * dt;
    r->st.busy_area_s += r->load / r->capacity * dt;
    r->st.flows_area_s += (double)r->n_users * dt;
  }
  net->st.flows_area_s += (double)net->n_flows * dt;
  double bytes = 0;
  for (uint32_t i = 0; i < net->n_flows; i++) {
    ref_flow *f = net->flows[i];
    double d = f->rate * dt;
    if (d >= f->remaining) {
      if (d > f->remaining) uncount(net, f, d - f->remaining);
      d = f->remaining;
      f->remaining = 0;
    } else {
      f->remaining -= d;
    }
    bytes += d;
  }
  net->st.units += bytes;
  net->t_last = now;
}

static sim_time_ns finish_time(sim_time_ns now, const ref_flow *f)
{
  if (f->remaining <= DONE_REL_EPS * f->size) return now;
  if (f->rate <= 0) return SIM_TIME_NEVER;
  double x = ceil((f->remaining - FINISH_REL_EPS * f->size) / f->rate * 1e9);
  if (x < 1) x = 1;
  if (x >= (double)(SIM_TIME_NEVER - now)) return SIM_TIME_NEVER;
  return now + (sim_time_ns)x;
}

/* ---- solving ------------------------------------------------------------ */

static void freeze(ref_flow *f, double rate)
{
  f->frozen = true;
  f->rate = rate;
  for (uint32_t k = 0; k < f->n_uses; k++) {
    ref_flow_resource *r = f->uses[k].res;
    r->frozen_load += f->uses[k].w * rate;
    r->W -= f->uses[k].w;
    if (--r->n_unfrozen == 0) r->W = 0;
  }
}

static inline double level(const ref_flow_resource *r)
{
  return (r->capacity - r->frozen_load) / r->W;
}

static void bump_epoch(ref_flow_net *net)
{
  if (++net->epoch != 0) return;
  for (guint i = 0; i < net->resources->len; i++) ((ref_flow_resource *)g_ptr_array_index(net->resources, i))->mark = 0;
  for (guint b = 0; b < net->blocks->len; b++) {
    ref_flow *block = g_ptr_array_index(net->blocks, b);
    for (int i = 0; i < FLOW_BLOCK; i++) block[i].mark = 0;
  }
  net->epoch = 1;
}

/* Re-solves the component of the dirty resources at now. */
static void solve(ref_flow_net *net)
{
  if (net->n_dirty == 0) return;
  net->n_recomputes++;
  bump_epoch(net);
  const uint32_t e = net->epoch;
  sim_time_ns now = sim_engine_now(net->eng);

  uint32_t nr = 0, nf = 0;
  for (uint32_t i = 0; i < net->n_dirty; i++) net->dirty[i]->dirty = false;
  if (net->full_solves_left > 0) {
    /* The last component search found everything connected: solve all
         * without searching (same result, less work) for a while. */
    net->full_solves_left--;
    for (guint q = 0; q < net->resources->len; q++) {
      ref_flow_resource *r = g_ptr_array_index(net->resources, q);
      r->mark = e;
      r->frozen_load = 0;
      r->n_unfrozen = r->n_users;
      double W = 0, CL = 0;
      for (uint32_t u = 0; u < r->n_users; u++) {
        W += r->users[u].w;
        CL += r->users[u].wcap;
      }
      r->W = W;
      r->cap_load = CL; /* re-summed: no drift */
      net->comp_res[nr++] = r;
    }
    for (uint32_t i = 0; i < net->n_flows; i++) {
      ref_flow *f = net->flows[i];
      if (f->n_uses == 0) continue;
      f->mark = e;
      f->frozen = false;
      net->comp_flows[nf++] = f;
    }
  } else {
    /* Component: breadth-first from the dirty resources. */
    for (uint32_t i = 0; i < net->n_dirty; i++) {
      ref_flow_resource *r = net->dirty[i];
      if (r->mark != e) {
        r->mark = e;
        net->comp_res[nr++] = r;
      }
    }
    for (uint32_t q = 0; q < nr; q++) {
      ref_flow_resource *r = net->comp_res[q];
      r->frozen_load = 0;
      r->n_unfrozen = r->n_users;
      double W = 0, CL = 0;
      for (uint32_t u = 0; u < r->n_users; u++) {
        ref_flow *f = r->users[u].f;
        W += r->users[u].w;
        CL += r->users[u].wcap;
        if (f->mark == e) continue;
        f->mark = e;
        f->frozen = false;
        net->comp_flows[nf++] = f;
        for (uint32_t k = 0; k < f->n_uses; k++) {
          ref_flow_resource *r2 = f->uses[k].res;
          if (r2->mark != e) {
            r2->mark = e;
            net->comp_res[nr++] = r2;
          }
        }
      }
      r->W = W;
      r->cap_load = CL; /* re-summed: no drift */
    }
    /* Everything connected (all flows with resources)? */
    if (nf > 0 && nf + net->n_flows_free_running >= net->n_flows) net->full_solves_left = FULL_SOLVES;
  }
  net->n_dirty = 0;

  /* Progressive filling.  live[] holds the resources that still have
     * unfrozen users (compacted each round), each with its level. */
  ref_flow_resource **live = net->live_res;
  uint32_t nl = 0;
  for (uint32_t q = 0; q < nr; q++)
    if (net->comp_res[q]->n_unfrozen) live[nl++] = net->comp_res[q];
  uint32_t unfrozen = nf, ci = 0;
  while (unfrozen > 0) {
    double lmin = INFINITY;
    uint32_t keep = 0;
    for (uint32_t q = 0; q < nl; q++) {
      ref_flow_resource *r = live[q];
      if (!r->n_unfrozen) continue;
      r->lvl = level(r);
      if (r->lvl < lmin) lmin = r->lvl;
      live[keep++] = r;
    }
    nl = keep;
    g_assert(nl > 0); /* every flow in a component uses a resource */
    if (lmin < 0) lmin = 0;
    double thr = lmin * (1 + LEVEL_REL_TOL);
    /* Caps below the lowest resource level freeze first, at their cap
         * (freezing below a level never lowers it). */
    bool froze_cap = false;
    for (; ci < net->n_capped; ci++) {
      ref_flow *f = net->capped[ci];
      if (f->mark != e || f->frozen) continue;
      if (!(f->cap <= thr)) break;
      freeze(f, f->cap < lmin ? f->cap : lmin);
      unfrozen--;
      froze_cap = true;
    }
    if (froze_cap) continue;
    /* Otherwise the resources at the lowest level saturate (freezing at
         * the level of a resource leaves its level unchanged, so the levels
         * computed above stay valid during this pass). */
    for (uint32_t q = 0; q < nl; q++) {
      ref_flow_resource *r = live[q];
      if (!r->n_unfrozen || !(r->lvl <= thr)) continue;
      for (uint32_t u = 0; u < r->n_users; u++) {
        ref_flow *f = r->users[u].f;
        if (!f->frozen) {
          freeze(f, lmin);
          unfrozen--;
        }
      }
    }
  }
  for (uint32_t q = 0; q < nr; q++) net->comp_res[q]->load = net->comp_res[q]->frozen_load;
  for (uint32_t i = 0; i < nf; i++) net->comp_flows[i]->finish_ns = finish_time(now, net->comp_flows[i]);
}

/* Brings everything up to date now; outside the handler also moves the
 * event to the next completion. */
static void flush(ref_flow_net *net)
{
  advance(net);
  if (net->n_dirty == 0) return;
  solve(net);
  if (net->in_handler) return;
  sim_time_ns next = SIM_TIME_NEVER;
  for (uint32_t i = 0; i < net->n_flows; i++)
    if (net->flows[i]->finish_ns < next) next = net->flows[i]->finish_ns;
  if (next == SIM_TIME_NEVER)
    sim_engine_cancel(net->eng, &net->ev);
  else
    sim_engine_reschedule(net->eng, &net->ev, next);
}

/* ---- removing flows ----------------------------------------------------- */

/* Takes @f out of its resources and the active set, marking its resources
 * dirty unless all were safe (then no other rate changes). */
static void detach(ref_flow_net *net, ref_flow *f)
{
  bool all_safe = true;
  for (uint32_t k = 0; k < f->n_uses; k++) all_safe = all_safe && safe(f->uses[k].res);
  for (uint32_t k = 0; k < f->n_uses; k++) {
    ref_flow_resource *r = f->uses[k].res;
    uint32_t pos = f->uses[k].pos;
    r->load -= f->uses[k].w * f->rate;
    if (f->cap < INFINITY)
      r->cap_load -= f->uses[k].w * f->cap;
    else
      r->n_uncapped--;
    if (r->n_users == 1) r->load = r->cap_load = 0; /* exact when empty */
    res_user last = r->users[--r->n_users];
    if (pos != r->n_users) {
      r->users[pos] = last;
      last.f->uses[last.use].pos = pos;
    }
    if (!all_safe) mark_dirty(net, r);
  }
  if (all_safe && f->n_uses > 0) net->n_fast++;
  if (f->n_uses == 0) net->n_flows_free_running--;
  if (f->cap < INFINITY && f->n_uses > 0) capped_remove(net, f);
  ref_flow *last = net->flows[--net->n_flows];
  if (f->idx != net->n_flows) {
    net->flows[f->idx] = last;
    last->idx = f->idx;
  }
  f->rate = 0;
}

static void record_completion(ref_flow_net *net, ref_flow *f)
{
  sim_time_ns now = sim_engine_now(net->eng);
  if (f->remaining > 0) { /* the residue of at most FINISH_REL_EPS x size */
    uncount(net, f, -f->remaining);
    net->st.units += f->remaining;
    f->remaining = 0;
  }
  double resp = (double)(now - f->start_ns) / 1e9;
  double slow = f->alone_s > 0 ? resp / f->alone_s : 1.0;
  for (uint32_t k = 0; k <= f->n_uses; k++) {
    ref_flow_stats *s = k < f->n_uses ? &f->uses[k].res->st : &net->st;
    s->completed++;
    s->response_sum_s += resp;
    s->alone_sum_s += f->alone_s;
    s->slowdown_sum += slow;
  }
}

static int batch_cmp(const void *a, const void *b)
{
  const ref_flow *fa = *(ref_flow *const *)a, *fb = *(ref_flow *const *)b;
  return fa->seq < fb->seq ? -1 : fa->seq > fb->seq;
}

static void on_event(SimEngine *eng, SimEvent *ev, void *ctx)
{
  ref_flow_net *net = ctx;
  sim_time_ns now = sim_engine_now(eng);
  net->in_handler = true;
  advance(net);
  sim_time_ns next;
  for (;;) {
    solve(net);
    uint32_t nb = 0;
    next = SIM_TIME_NEVER;
    for (uint32_t i = 0; i < net->n_flows; i++) {
      ref_flow *f = net->flows[i];
      if (f->finish_ns <= now)
        net->batch[nb++] = f;
      else if (f->finish_ns < next)
        next = f->finish_ns;
    }
    if (nb == 0) break;
    for (uint32_t i = 0; i < nb; i++) {
      ref_flow *f = net->batch[i];
      detach(net, f);
      record_completion(net, f);
      f->state = FLOW_DONE_PENDING;
    }
    if (nb > 1) qsort(net->batch, nb, sizeof *net->batch, batch_cmp);
    /* Callbacks may start flows, which may reallocate net->batch (its
         * contents are kept): index it afresh each time. */
    for (uint32_t i = 0; i < nb; i++) {
      ref_flow *f = net->batch[i];
      if (f->state == FLOW_DONE_PENDING && f->done) {
        f->state = FLOW_IN_CALLBACK;
        f->done(net, f, f->ctx);
      }
      flow_release(net, f);
    }
  }
  net->in_handler = false;
  if (next != SIM_TIME_NEVER) sim_engine_reschedule(eng, ev, next);
}

/* ---- public: net -------------------------------------------------------- */

static void resource_free(gpointer p)
{
  ref_flow_resource *r = p;
  g_free(r->name);
  g_free(r->users);
  g_free(r);
}

ref_flow_net *ref_flow_net_new(SimEngine *eng)
{
  g_return_val_if_fail(eng != NULL, NULL);
  ref_flow_net *net = g_new0(ref_flow_net, 1);
  net->eng = eng;
  sim_event_init(&net->ev, on_event, net);
  net->resources = g_ptr_array_new_with_free_func(resource_free);
  net->blocks = g_ptr_array_new_with_free_func(g_free);
  net->t_last = net->stats_start = sim_engine_now(eng);
  grow_flow_arrays(net, 1);
  return net;
}

void ref_flow_net_free(ref_flow_net *net)
{
  if (!net) return;
  sim_engine_cancel(net->eng, &net->ev);
  for (guint b = 0; b < net->blocks->len; b++) {
    ref_flow *block = g_ptr_array_index(net->blocks, b);
    for (int i = 0; i < FLOW_BLOCK; i++) g_free(block[i].uses);
  }
  g_ptr_array_free(net->blocks, TRUE);
  g_ptr_array_free(net->resources, TRUE);
  g_free(net->flows);
  g_free(net->capped);
  g_free(net->comp_flows);
  g_free(net->batch);
  g_free(net->dirty);
  g_free(net->comp_res);
  g_free(net->live_res);
  g_free(net);
}

uint32_t ref_flow_net_n_flows(const ref_flow_net *net)
{
  return net->n_flows;
}
uint64_t ref_flow_net_n_recomputes(const ref_flow_net *net)
{
  return net->n_recomputes;
}
uint64_t ref_flow_net_n_fast(const ref_flow_net *net)
{
  return net->n_fast;
}

void ref_flow_net_reset_stats(ref_flow_net *net)
{
  advance(net);
  memset(&net->st, 0, sizeof net->st);
  for (guint i = 0; i < net->resources->len; i++)
    memset(&((ref_flow_resource *)g_ptr_array_index(net->resources, i))->st, 0, sizeof(ref_flow_stats));
  net->stats_start = sim_engine_now(net->eng);
}

static void fill_elapsed(ref_flow_net *net, ref_flow_stats *out)
{
  out->elapsed_s = (double)(sim_engine_now(net->eng) - net->stats_start) / 1e9;
}

void ref_flow_net_stats(ref_flow_net *net, ref_flow_stats *out)
{
  advance(net);
  *out = net->st;
  fill_elapsed(net, out);
}

/* ---- public: resources -------------------------------------------------- */

ref_flow_resource *ref_flow_net_add_resource(ref_flow_net *net, const char *name, double capacity_per_s)
{
  g_return_val_if_fail(net != NULL && name != NULL, NULL);
  g_return_val_if_fail(capacity_per_s > 0 && capacity_per_s < INFINITY, NULL);
  ref_flow_resource *r = g_new0(ref_flow_resource, 1);
  r->name = g_strdup(name);
  r->capacity = capacity_per_s;
  g_ptr_array_add(net->resources, r);
  if (net->resources->len > net->cap_res_scratch) {
    uint32_t cap = net->cap_res_scratch ? net->cap_res_scratch * 2 : 16;
    net->dirty = g_renew(ref_flow_resource *, net->dirty, cap);
    net->comp_res = g_renew(ref_flow_resource *, net->comp_res, cap);
    net->live_res = g_renew(ref_flow_resource *, net->live_res, cap);
    net->cap_res_scratch = cap;
  }
  return r;
}

void ref_flow_resource_set_capacity(ref_flow_net *net, ref_flow_resource *res, double capacity_per_s)
{
  g_return_if_fail(capacity_per_s > 0 && capacity_per_s < INFINITY);
  advance(net);
  res->capacity = capacity_per_s;
  mark_dirty(net, res);
  request_solve(net);
}

const char *ref_flow_resource_name(const ref_flow_resource *res)
{
  return res->name;
}
double ref_flow_resource_capacity(const ref_flow_resource *res)
{
  return res->capacity;
}
uint32_t ref_flow_resource_n_flows(const ref_flow_resource *res)
{
  return res->n_users;
}

double ref_flow_resource_load(ref_flow_net *net, const ref_flow_resource *res)
{
  flush(net);
  return res->load;
}

double ref_flow_resource_utilisation(ref_flow_net *net, const ref_flow_resource *res)
{
  flush(net);
  return res->load / res->capacity;
}

void ref_flow_resource_stats(ref_flow_net *net, const ref_flow_resource *res, ref_flow_stats *out)
{
  advance(net);
  *out = res->st;
  fill_elapsed(net, out);
}

/* ---- public: flows ------------------------------------------------------ */

ref_flow *ref_flow_start(ref_flow_net *net, double size_bytes, const ref_flow_use *uses, size_t n_uses, double cap_Bps,
                         ref_flow_done_fn done, void *ctx, GError **error)
{
  g_return_val_if_fail(net != NULL, NULL);
  g_return_val_if_fail(size_bytes >= 0 && size_bytes < INFINITY, NULL);
  g_return_val_if_fail(cap_Bps > 0, NULL); /* also rejects NaN */
  g_return_val_if_fail(n_uses == 0 || uses != NULL, NULL);
  g_return_val_if_fail(error == NULL || *error == NULL, NULL);
  for (size_t i = 0; i < n_uses; i++)
    g_return_val_if_fail(uses[i].res != NULL && uses[i].units_per_byte >= 0 && uses[i].units_per_byte < INFINITY, NULL);

  advance(net);
  sim_time_ns now = sim_engine_now(net->eng);
  ref_flow *f = flow_alloc(net);
  if (f->cap_uses < n_uses) {
    f->uses = g_renew(flow_use, f->uses, n_uses);
    f->cap_uses = (uint32_t)n_uses;
  }
  /* Merge duplicates, drop zero costs; the alone rate on the way. */
  double alone_rate = cap_Bps;
  f->n_uses = 0;
  for (size_t i = 0; i < n_uses; i++) {
    if (uses[i].units_per_byte == 0) continue;
    uint32_t k = 0;
    while (k < f->n_uses && f->uses[k].res != uses[i].res) k++;
    if (k == f->n_uses) f->uses[f->n_uses++] = (flow_use){ .res = uses[i].res, .w = 0 };
    f->uses[k].w += uses[i].units_per_byte;
  }
  for (uint32_t k = 0; k < f->n_uses; k++) {
    double r = f->uses[k].res->capacity / f->uses[k].w;
    if (r < alone_rate) alone_rate = r;
  }
  if (!(alone_rate < INFINITY) && size_bytes > 0) {
    flow_release(net, f);
    g_set_error(error, REF_FLOW_ERROR, REF_FLOW_ERROR_UNBOUNDED,
                "flow uses no resource and has no rate cap: its rate would be infinite");
    return NULL;
  }
  f->net = net;
  f->state = FLOW_ACTIVE;
  f->size = f->remaining = size_bytes;
  f->cap = cap_Bps;
  f->alone_s = size_bytes > 0 ? size_bytes / alone_rate : 0;
  f->start_ns = now;
  f->seq = net->next_seq++;
  f->done = done;
  f->ctx = ctx;
  f->frozen = false;
  f->rate = 0;
  f->finish_ns = SIM_TIME_NEVER;

  grow_flow_arrays(net, net->n_flows + 1);
  f->idx = net->n_flows;
  net->flows[net->n_flows++] = f;

  if (size_bytes == 0) {
    /* Completes now; it takes no share.  Its uses are dropped so it
         * disturbs no allocation. */
    f->n_uses = 0;
    f->finish_ns = now;
    net->n_flows_free_running++;
    request_solve(net);
    return f;
  }
  if (f->n_uses == 0) {
    /* Only its cap limits it: its rate is fixed now. */
    f->rate = cap_Bps;
    f->finish_ns = finish_time(now, f);
    net->n_flows_free_running++;
    if (!net->in_handler && (!sim_event_pending(&net->ev) || f->finish_ns < net->ev.time))
      sim_engine_reschedule(net->eng, &net->ev, f->finish_ns);
    /* inside the handler the end-of-handler scan finds it */
    return f;
  }
  bool all_safe = true;
  for (uint32_t k = 0; k < f->n_uses; k++) {
    ref_flow_resource *r = f->uses[k].res;
    if (r->n_users == r->cap_users) {
      r->cap_users = r->cap_users ? r->cap_users * 2 : 8;
      r->users = g_renew(res_user, r->users, r->cap_users);
    }
    f->uses[k].pos = r->n_users;
    r->users[r->n_users++] =
        (res_user){ .f = f, .w = f->uses[k].w, .use = k, .wcap = cap_Bps < INFINITY ? f->uses[k].w * cap_Bps : 0 };
    if (cap_Bps < INFINITY)
      r->cap_load += f->uses[k].w * cap_Bps;
    else
      r->n_uncapped++;
    all_safe = all_safe && safe(r);
  }
  if (cap_Bps < INFINITY) capped_insert(net, f);
  if (all_safe) {
    /* Fast path: none of its resources can saturate. */
    net->n_fast++;
    f->rate = cap_Bps;
    for (uint32_t k = 0; k < f->n_uses; k++) f->uses[k].res->load += f->uses[k].w * cap_Bps;
    f->finish_ns = finish_time(now, f);
    if (!net->in_handler && (!sim_event_pending(&net->ev) || f->finish_ns < net->ev.time))
      sim_engine_reschedule(net->eng, &net->ev, f->finish_ns);
    return f;
  }
  for (uint32_t k = 0; k < f->n_uses; k++) mark_dirty(net, f->uses[k].res);
  request_solve(net);
  return f;
}

void ref_flow_cancel(ref_flow_net *net, ref_flow *flow)
{
  g_return_if_fail(net != NULL && flow != NULL && flow->net == net);
  g_return_if_fail(flow->state == FLOW_ACTIVE || flow->state == FLOW_DONE_PENDING);
  if (flow->state == FLOW_DONE_PENDING) {
    /* Completed at this instant, callback not yet run: just skip it. */
    flow->state = FLOW_CANCELLED;
    return;
  }
  advance(net);
  detach(net, flow);
  flow_release(net, flow);
  request_solve(net);
}

double ref_flow_rate_Bps(ref_flow *flow)
{
  if (flow->state == FLOW_ACTIVE) flush(flow->net);
  return flow->rate;
}

double ref_flow_remaining_bytes(const ref_flow *flow)
{
  if (flow->state != FLOW_ACTIVE) return 0;
  double dt = (double)(sim_engine_now(flow->net->eng) - flow->net->t_last) / 1e9;
  double rem = flow->remaining - flow->rate * dt;
  return rem > 0 ? rem : 0;
}

double ref_flow_size_bytes(const ref_flow *flow)
{
  return flow->size;
}
sim_time_ns ref_flow_start_ns(const ref_flow *flow)
{
  return flow->start_ns;
}
double ref_flow_alone_s(const ref_flow *flow)
{
  return flow->alone_s;
}
void *ref_flow_ctx(const ref_flow *flow)
{
  return flow->ctx;
}
