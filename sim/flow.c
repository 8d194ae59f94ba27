/* sim/flow.c — max-min fair sharing of bandwidth resources among flows: the net, its flows and statistics.
 *
 * Model and equations: see sim/flow.h; design notes and data structures: sim/flow-private.h.
 */
#include "sim/flow-private.h"

G_DEFINE_QUARK(sim - flow - error - quark, sim_flow_error)

static void on_event(SimEngine *eng, SimEvent *ev, void *ctx);

static SimFlow *flow_alloc(SimFlowNet *net)
{
  if (!net->free_list) {
    SimFlow *block = g_new0(SimFlow, FLOW_BLOCK);
    g_ptr_array_add(net->blocks, block);
    for (int i = FLOW_BLOCK - 1; i >= 0; i--) {
      block[i].next_free = net->free_list;
      net->free_list = &block[i];
    }
  }
  SimFlow *f = net->free_list;
  net->free_list = f->next_free;
  f->next_free = NULL;
  return f;
}

static void flow_release(SimFlowNet *net, SimFlow *f)
{
  f->state = FLOW_FREE;
  f->g = NULL;
  f->done = NULL;
  f->ctx = NULL;
  f->next_free = net->free_list;
  net->free_list = f;
}

/* Adds @f to the members of @g (growing the heap). */
static void member_push(SimFlowGroup *g, SimFlow *f)
{
  if (g->n == g->mem_alloc) {
    g->mem_alloc = g->mem_alloc ? g->mem_alloc * 2 : 4;
    g->mem = g_renew(SimFlow *, g->mem, g->mem_alloc);
  }
  mem_insert(g->mem, &g->n, f);
}

/* The units @r served since the last reset: those of flows that left,
 * and w (n V_g - sum of V_g at start) of each active group using it. */
static double res_units(const SimFlowNet *net, const SimFlowResource *r)
{
  sim_time_ns now = now_ns(net);
  double units = r->st.units;
  for (uint32_t u = 0; u < r->n_users; u++) {
    const SimFlowGroup *g = r->users[u].g;
    units += r->users[u].w * ((double)g->n * group_V(g, now) - g->vs_sum);
  }
  return units;
}

/* The exact load of @r (units/s) at the clocks' current rates (by group
 * for a bounded one, which no clock tracks); r->load is exact for
 * saturated resources and an upper bound for the others. */
double sim_flow__res_load(const SimFlowResource *r)
{
  double L = 0;
  if (r->bounded) {
    for (uint32_t u = 0; u < r->n_users; u++) {
      const SimFlowGroup *g = r->users[u].g;
      L += (double)g->n * r->users[u].w * group_x(g);
    }
    return L;
  }
  for (uint32_t u = 0; u < r->n_cusers; u++) {
    const SimFlowClock *c = r->cusers[u].c;
    L += r->cusers[u].e->A * c->x;
  }
  return L;
}

/* The next completion, never before now. */
static sim_time_ns net_next(const SimFlowNet *net)
{
  sim_time_ns now = now_ns(net);
  if (net->n_imm) return now;
  sim_time_ns t = net->n_cheap ? net->cheap[0]->next_ns : SIM_TIME_NEVER;
  return t < now ? now : t;
}

/* Moves the net's event to now so that pending changes are solved before the
 * clock moves on (outside the handler, which solves before returning). */
static void request_solve(SimFlowNet *net)
{
  if (net->in_handler) return;
  sim_time_ns now = now_ns(net);
  if (!(sim_event_pending(&net->ev) && net->ev.time == now)) sim_engine_reschedule(net->eng, &net->ev, now);
}

/* After a change outside the handler: solve soon, or move the event to the
 * next completion. */
static void after_change(SimFlowNet *net)
{
  if (net->in_handler) return;
  if (solve_due(net)) {
    request_solve(net);
    return;
  }
  if (dirty(net)) net->n_deferred++; /* precision mode: solved with a later change */
  sim_time_ns next = net_next(net);
  if (next == SIM_TIME_NEVER)
    sim_engine_cancel(net->eng, &net->ev);
  else if (!sim_event_pending(&net->ev) || net->ev.time != next)
    sim_engine_reschedule(net->eng, &net->ev, next);
}

/* Brings everything up to date now; outside the handler also moves the
 * event to the next completion. */
static void flush(SimFlowNet *net)
{
  net_sync(net);
  if (!dirty(net)) return;
  sim_flow__solve(net);
  if (net->in_handler) return;
  sim_time_ns next = net_next(net);
  if (next == SIM_TIME_NEVER)
    sim_engine_cancel(net->eng, &net->ev);
  else
    sim_engine_reschedule(net->eng, &net->ev, next);
}

/* ---- removing flows ----------------------------------------------------- */

/* Takes @f out of its group, resources and the active set, counting the
 * @delivered bytes it served into its resources' units.  Other rates
 * change (a solve is due) unless all its resources were safe. */
static void detach(SimFlowNet *net, SimFlow *f, double delivered)
{
  net->n_flows--;
  if (!f->g) { /* zero-size */
    SimFlow *last = net->imm[--net->n_imm];
    if (f->hpos != net->n_imm) {
      net->imm[f->hpos] = last;
      last->hpos = f->hpos;
    }
    return;
  }
  SimFlowGroup *g = f->g;
  SimFlowClock *c = g->ck;
  c->n_flows--;
  g->vs_sum -= f->tag - f->size;
  /* One pass: a group's uses name distinct resources (merged), so each
     * one's safety is read before its own counts change, as before. */
  bool all_safe = true;
  for (uint32_t k = 0; k < g->n_uses; k++) {
    SimFlowResource *r = g->uses[k].res;
    double w = g->uses[k].w;
    all_safe = all_safe && safe(r);
    res_sync(net, r);
    r->n_flows--;
    r->load -= w * c->x;
    if (g->rate_cap_Bps < INFINITY)
      r->load_at_caps -= w * g->rate_cap_Bps;
    else
      r->n_uncapped--;
    if (r->n_flows == 0) r->load = r->load_at_caps = 0; /* exact when empty */
    r->st.units += w * delivered;
    if (k < g->n_trk) clock_entry(c, r)->A -= w;
  }
  net_sync(net);
  net->rate_sum -= c->x;
  if (!all_safe && !g->fresh && c->x < net->lvl0) net->lvl0 = c->x; /* rates below its own cannot change */
  if (net->precision > 0 && !all_safe)
    for (uint32_t k = 0; k < g->n_uses; k++) note_load(net, g->uses[k].res);
  if (net->n_flows == 0 || net->n_flows == net->n_imm) net->rate_sum = 0;
  mem_remove(g->mem, &g->n, f);
  if (all_safe && g->n_uses > 0) net->n_fast++;
  if (g->n == 0) {
    g->vs_sum = 0; /* exact when empty */
    sim_flow__group_deactivate(net, g, all_safe);
  } else {
    if (!all_safe && g->n_uses > 0) mark_changed(net, g);
    sim_flow__group_top_changed(net, g);
  }
}

static void record_completion(SimFlowNet *net, SimFlow *f)
{
  sim_time_ns now = now_ns(net);
  const SimFlowGroup *g = f->g;
  if (g) {
    /* The residue of at most FINISH_REL_EPS x size, or (negative) the
         * bytes counted past the last one within the ceil'd ns (its
         * resources count its size when it is detached). */
    net_sync(net);
    double rem = f->tag - group_V(g, now);
    if (rem != 0) net->st.units += rem;
  }
  if (!net->flow_stats) return;
  double resp = (double)(now - f->start_ns) / 1e9;
  double slow = f->alone_s > 0 ? resp / f->alone_s : 1.0;
  uint32_t n_uses = g ? g->n_uses : 0;
  for (uint32_t k = 0; k <= n_uses; k++) {
    SimFlowStats *s = k < n_uses ? &g->uses[k].res->st : &net->st;
    s->completed++;
    s->response_sum_s += resp;
    s->alone_sum_s += f->alone_s;
    s->slowdown_sum += slow;
  }
}

static int batch_cmp(const void *a, const void *b)
{
  const SimFlow *fa = *(SimFlow *const *)a, *fb = *(SimFlow *const *)b;
  return fa->seq < fb->seq ? -1 : fa->seq > fb->seq;
}

static inline void batch_add(SimFlowNet *net, uint32_t *nb, SimFlow *f)
{
  if (*nb == net->sx.batch_alloc) {
    net->sx.batch_alloc = net->sx.batch_alloc ? net->sx.batch_alloc * 2 : 64;
    net->sx.batch = g_renew(SimFlow *, net->sx.batch, net->sx.batch_alloc);
  }
  net->sx.batch[(*nb)++] = f;
}

static void on_event(SimEngine *eng, SimEvent *ev, void *ctx)
{
  SimFlowNet *net = ctx;
  sim_time_ns now = sim_engine_now(eng);
  net->in_handler = true;
  net_sync(net);
  for (;;) {
    if (solve_due(net))
      sim_flow__solve(net);
    else if (dirty(net))
      net->n_deferred++; /* precision mode: solved with a later change */
    uint32_t nb = 0;
    while (net->n_imm) {
      SimFlow *f = net->imm[0];
      record_completion(net, f);
      detach(net, f, 0);
      f->state = FLOW_DONE_PENDING;
      batch_add(net, &nb, f);
    }
    while (net->n_cheap && net->cheap[0]->next_ns <= now) {
      SimFlowGroup *g = net->cheap[0]->gh[0];
      /* Its members due now: the rate and anchor stay as they are
             * until the next solve, so the due test is the one the
             * completion times were computed with. */
      do {
        SimFlow *f = g->mem[0];
        record_completion(net, f);
        detach(net, f, f->size);
        f->state = FLOW_DONE_PENDING;
        batch_add(net, &nb, f);
      } while (g->n > 0 && finish_of(g, g->mem[0]) <= now);
    }
    if (nb == 0) break;
    if (nb > 1) qsort(net->sx.batch, nb, sizeof *net->sx.batch, batch_cmp);
    /* Callbacks may start flows (never touching net->sx.batch). */
    for (uint32_t i = 0; i < nb; i++) {
      SimFlow *f = net->sx.batch[i];
      if (f->state == FLOW_DONE_PENDING && f->done) {
        f->state = FLOW_IN_CALLBACK;
        f->done(net, f, f->ctx);
      }
      flow_release(net, f);
    }
  }
  net->in_handler = false;
  sim_time_ns next = net_next(net);
  if (next != SIM_TIME_NEVER) sim_engine_reschedule(eng, ev, next);
}

/* ---- public: net -------------------------------------------------------- */

static void clock_free(gpointer p)
{
  SimFlowClock *c = p;
  g_free(c->gh);
  g_free(c->res);
  g_free(c->slot);
  g_free(c);
}

static void resource_free(gpointer p)
{
  SimFlowResource *r = p;
  g_free(r->name);
  g_free(r->users);
  g_free(r->cusers);
  g_free(r);
}

SimFlowNet *sim_flow_net_new(SimEngine *eng)
{
  g_return_val_if_fail(eng != NULL, NULL);
  SimFlowNet *net = g_new0(SimFlowNet, 1);
  net->eng = eng;
  sim_event_init(&net->ev, on_event, net);
  net->resources = g_ptr_array_new_with_free_func(resource_free);
  net->blocks = g_ptr_array_new_with_free_func(g_free);
  net->groups = g_ptr_array_new();
  net->by_key = sim_flow__group_table_new();
  net->clocks = g_ptr_array_new_with_free_func(clock_free);
  net->paths = g_ptr_array_new_with_free_func(g_free);
  net->t_last = net->stats_start = sim_engine_now(eng);
  net->lvl0 = INFINITY;
  net->flow_stats = true;
  sim_flow__grow_group_arrays(net, 1);
  return net;
}

void sim_flow_net_set_rate_precision(SimFlowNet *net, double eps)
{
  g_return_if_fail(net != NULL);
  g_return_if_fail(eps >= 0 && eps < 1); /* also rejects NaN */
  g_return_if_fail(net->next_seq == 0);  /* before the first flow */
  net->precision = eps;
}

double sim_flow_net_rate_precision(const SimFlowNet *net)
{
  return net->precision;
}

uint64_t sim_flow_net_n_deferred(const SimFlowNet *net)
{
  return net->n_deferred;
}

void sim_flow_net_keep_flow_stats(SimFlowNet *net, bool keep)
{
  g_return_if_fail(net != NULL);
  g_return_if_fail(net->next_seq == 0); /* before the first flow */
  net->flow_stats = keep;
}

void sim_flow_net_free(SimFlowNet *net)
{
  if (!net) return;
  sim_engine_cancel(net->eng, &net->ev);
  g_ptr_array_free(net->blocks, TRUE);
  g_hash_table_destroy(net->by_key);
  for (guint i = 0; i < net->groups->len; i++) sim_flow__group_free(g_ptr_array_index(net->groups, i));
  g_ptr_array_free(net->groups, TRUE);
  g_ptr_array_free(net->resources, TRUE);
  g_ptr_array_free(net->clocks, TRUE);
  g_ptr_array_free(net->paths, TRUE);
  g_free(net->cheap);
  g_free(net->sx.tclk);
  g_free(net->sx.tnew);
  g_free(net->capped);
  g_free(net->sx.comp);
  g_free(net->sx.unb);
  g_free(net->changed);
  g_free(net->imm);
  g_free(net->sx.batch);
  g_free(net->seeds);
  g_free(net->chk);
  g_free(net->sx.cr);
  g_free(net->sx.touched);
  g_free(net->sx.live);
  g_free(net->sx.key_uses);
  g_free(net);
}

uint32_t sim_flow_net_n_flows(const SimFlowNet *net)
{
  return net->n_flows;
}
uint32_t sim_flow_net_n_groups(const SimFlowNet *net)
{
  return net->n_active_groups;
}
uint64_t sim_flow_net_n_recomputes(const SimFlowNet *net)
{
  return net->n_recomputes;
}
uint64_t sim_flow_net_n_fast(const SimFlowNet *net)
{
  return net->n_fast;
}

void sim_flow_net_reset_stats(SimFlowNet *net)
{
  net_sync(net);
  memset(&net->st, 0, sizeof net->st);
  for (guint i = 0; i < net->resources->len; i++) {
    SimFlowResource *r = g_ptr_array_index(net->resources, i);
    res_sync(net, r);
    memset(&r->st, 0, sizeof r->st);
    r->st.units = -res_units(net, r); /* what its active flows served so far */
    r->units_cc = 0;
  }
  net->stats_start = sim_engine_now(net->eng);
}

static void fill_elapsed(SimFlowNet *net, SimFlowStats *out)
{
  out->elapsed_s = (double)(sim_engine_now(net->eng) - net->stats_start) / 1e9;
}

void sim_flow_net_stats(SimFlowNet *net, SimFlowStats *out)
{
  net_sync(net);
  *out = net->st;
  fill_elapsed(net, out);
}

/* ---- public: resources -------------------------------------------------- */

SimFlowResource *sim_flow_net_add_resource(SimFlowNet *net, const char *name, double capacity_per_s)
{
  g_return_val_if_fail(net != NULL && name != NULL, NULL);
  g_return_val_if_fail(capacity_per_s > 0 && capacity_per_s < INFINITY, NULL);
  SimFlowResource *r = g_new0(SimFlowResource, 1);
  r->name = g_strdup(name);
  r->idx = net->resources->len;
  r->capacity = capacity_per_s;
  r->t_st = sim_engine_now(net->eng);
  g_ptr_array_add(net->resources, r);
  if (net->resources->len > net->res_slots_alloc) {
    uint32_t alloc = net->res_slots_alloc ? net->res_slots_alloc * 2 : 16;
    net->seeds = g_renew(SimFlowResource *, net->seeds, alloc);
    net->chk = g_renew(SimFlowResource *, net->chk, alloc);
    net->sx.cr = g_renew(SimFlowResource *, net->sx.cr, alloc);
    net->sx.touched = g_renew(SimFlowResource *, net->sx.touched, alloc);
    net->sx.live = g_renew(SimFlowResource *, net->sx.live, alloc);
    net->res_slots_alloc = alloc;
  }
  return r;
}

void sim_flow_resource_set_capacity(SimFlowNet *net, SimFlowResource *res, double capacity_per_s)
{
  g_return_if_fail(capacity_per_s > 0 && capacity_per_s < INFINITY);
  net_sync(net);
  res_sync(net, res);
  double units = res_units(net, res);
  res->st.busy_area_s += (units - res->units_cc) / res->capacity;
  res->units_cc = units;
  res->capacity = capacity_per_s;
  net->capacity_epoch++;
  sim_flow__bounds_invalidate(net);
  net->lvl0 = 0; /* no restart level worked out for capacity changes */
  if (!res->seeded) {
    res->seeded = true;
    net->seeds[net->n_seeds++] = res;
  }
  net->must_solve = true; /* never deferred (precision mode) */
  request_solve(net);
}

double sim_flow_resource_capacity(const SimFlowResource *res)
{
  return res->capacity;
}
uint32_t sim_flow_resource_n_flows(const SimFlowResource *res)
{
  return res->n_flows;
}

double sim_flow_resource_load(SimFlowNet *net, const SimFlowResource *res)
{
  flush(net);
  return sim_flow__res_load(res);
}

double sim_flow_resource_utilisation(SimFlowNet *net, const SimFlowResource *res)
{
  flush(net);
  return sim_flow__res_load(res) / res->capacity;
}

void sim_flow_resource_stats(SimFlowNet *net, const SimFlowResource *res, SimFlowStats *out)
{
  res_sync(net, (SimFlowResource *)res);
  *out = res->st;
  out->units = res_units(net, res);
  out->busy_area_s += (out->units - res->units_cc) / res->capacity;
  fill_elapsed(net, out);
}

/* ---- public: flows ------------------------------------------------------ */

/* Merges @uses into net->sx.key_uses (duplicates added, zero costs dropped);
 * returns their number and the rate the flow would get alone. */
static uint32_t merge_uses(SimFlowNet *net, const SimFlowUse *uses, size_t n_uses, double rate_cap_Bps, double *alone_rate)
{
  if (net->sx.key_uses_alloc < n_uses) {
    net->sx.key_uses_alloc = (uint32_t)n_uses;
    net->sx.key_uses = g_renew(SimFlowGroupUse, net->sx.key_uses, n_uses);
  }
  SimFlowGroupUse *ku = net->sx.key_uses;
  uint32_t nu = 0;
  for (size_t i = 0; i < n_uses; i++) {
    if (uses[i].units_per_byte == 0) continue;
    uint32_t k = 0;
    while (k < nu && ku[k].res != uses[i].res) k++;
    if (k == nu) ku[nu++] = (SimFlowGroupUse){ .res = uses[i].res, .w = 0 };
    ku[k].w += uses[i].units_per_byte;
  }
  double alone = rate_cap_Bps;
  for (uint32_t k = 0; k < nu; k++) {
    double r = ku[k].res->capacity / ku[k].w;
    if (r < alone) alone = r;
  }
  *alone_rate = alone;
  return nu;
}

static bool uses_valid(const SimFlowUse *uses, size_t n_uses)
{
  for (size_t i = 0; i < n_uses; i++)
    if (!(uses[i].res != NULL && uses[i].units_per_byte >= 0 && uses[i].units_per_byte < INFINITY)) return false;
  return true;
}

/* Starts a flow of @size_bytes in group @g (NULL: a zero-size flow). */
static SimFlow *start_in(SimFlowNet *net, SimFlowGroup *g, double size_bytes, double alone_rate, sim_flow_done_fn done, void *ctx)
{
  sim_time_ns now = sim_engine_now(net->eng);
  net_sync(net);
  SimFlow *f = flow_alloc(net);
  f->net = net;
  f->state = FLOW_ACTIVE;
  f->size = size_bytes;
  f->alone_s = size_bytes > 0 ? size_bytes / alone_rate : 0;
  f->start_ns = now;
  f->seq = net->next_seq++;
  f->done = done;
  f->ctx = ctx;
  net->n_flows++;

  if (size_bytes == 0) {
    /* Completes now; it takes no share. */
    f->g = NULL;
    f->tag = f->key = 0;
    if (net->n_imm == net->imm_alloc) {
      net->imm_alloc = net->imm_alloc ? net->imm_alloc * 2 : 16;
      net->imm = g_renew(SimFlow *, net->imm, net->imm_alloc);
    }
    f->hpos = net->n_imm;
    net->imm[net->n_imm++] = f;
    request_solve(net);
    return f;
  }

  double rate_cap_Bps = g->rate_cap_Bps;
  bool was_idle = g->n == 0;
  if (was_idle) sim_flow__group_activate(net, g);
  f->g = g;
  f->tag = group_V(g, now) + size_bytes;
  f->key = f->tag - FINISH_REL_EPS * size_bytes;
  g->vs_sum += f->tag - size_bytes;
  member_push(g, f);

  bool all_safe = true;
  for (uint32_t k = 0; k < g->n_uses; k++) {
    SimFlowResource *r = g->uses[k].res;
    res_sync(net, r);
    r->n_flows++;
    if (rate_cap_Bps < INFINITY)
      r->load_at_caps += g->uses[k].w * rate_cap_Bps;
    else
      r->n_uncapped++;
    all_safe = all_safe && safe(r);
  }
  if (g->n_uses > 0 && all_safe && (was_idle || group_x(g) == rate_cap_Bps)) {
    /* Fast path: none of its resources can saturate, it runs at its cap. */
    net->n_fast++;
    g->ck->x = rate_cap_Bps; /* its own clock, anchored now, when it was idle */
    g->ck->fresh = false;
    g->fresh = false;
  } else if (g->n_uses > 0) {
    mark_changed(net, g);
    g->joined = true;
    if (g->fresh) net->must_solve = true; /* its clock runs at 0 until solved */
  }
  /* It runs at its group's rate until the next solve. */
  SimFlowClock *c = g->ck;
  c->n_flows++;
  for (uint32_t k = 0; k < g->n_uses; k++) {
    SimFlowResource *r = g->uses[k].res;
    r->load += g->uses[k].w * c->x;
    if (r->load > r->capacity * (1 + OVER_REL_TOL) && !r->chk && !r->bounded) {
      r->chk = true;
      net->chk[net->n_chk++] = r;
    }
    if (k < g->n_trk) clock_entry(c, r)->A += g->uses[k].w;
    if (net->precision > 0 && g->changed) note_load(net, r);
  }
  net->rate_sum += c->x;
  sim_flow__group_top_changed(net, g);
  after_change(net);
  return f;
}

SimFlow *sim_flow_start(SimFlowNet *net, double size_bytes, const SimFlowUse *uses, size_t n_uses, double rate_cap_Bps,
                        sim_flow_done_fn done, void *ctx, GError **error)
{
  g_return_val_if_fail(net != NULL, NULL);
  g_return_val_if_fail(size_bytes >= 0 && size_bytes < INFINITY, NULL);
  g_return_val_if_fail(rate_cap_Bps > 0, NULL); /* also rejects NaN */
  g_return_val_if_fail(n_uses == 0 || uses != NULL, NULL);
  g_return_val_if_fail(error == NULL || *error == NULL, NULL);
  g_return_val_if_fail(uses_valid(uses, n_uses), NULL);

  double alone_rate;
  uint32_t nu = merge_uses(net, uses, n_uses, rate_cap_Bps, &alone_rate);
  if (!(alone_rate < INFINITY) && size_bytes > 0) {
    g_set_error(error, SIM_FLOW_ERROR, SIM_FLOW_ERROR_UNBOUNDED,
                "flow uses no resource and has no rate cap: its rate would be infinite");
    return NULL;
  }
  return start_in(net, size_bytes > 0 ? sim_flow__group_get(net, nu, rate_cap_Bps) : NULL, size_bytes, alone_rate, done, ctx);
}

SimFlowPath *sim_flow_net_path(SimFlowNet *net, const SimFlowUse *uses, size_t n_uses, double rate_cap_Bps, GError **error)
{
  g_return_val_if_fail(net != NULL, NULL);
  g_return_val_if_fail(rate_cap_Bps > 0, NULL);
  g_return_val_if_fail(n_uses == 0 || uses != NULL, NULL);
  g_return_val_if_fail(error == NULL || *error == NULL, NULL);
  g_return_val_if_fail(uses_valid(uses, n_uses), NULL);

  double alone_rate;
  uint32_t nu = merge_uses(net, uses, n_uses, rate_cap_Bps, &alone_rate);
  if (!(alone_rate < INFINITY)) {
    g_set_error(error, SIM_FLOW_ERROR, SIM_FLOW_ERROR_UNBOUNDED,
                "flow uses no resource and has no rate cap: its rate would be infinite");
    return NULL;
  }
  SimFlowPath *p = g_new0(SimFlowPath, 1);
  p->g = sim_flow__group_get(net, nu, rate_cap_Bps);
  p->g->pinned = true;
  p->alone_rate = alone_rate;
  p->capacity_epoch = net->capacity_epoch;
  g_ptr_array_add(net->paths, p);
  return p;
}

SimFlow *sim_flow_start_path(SimFlowNet *net, SimFlowPath *path, double size_bytes, sim_flow_done_fn done, void *ctx)
{
  g_return_val_if_fail(net != NULL && path != NULL, NULL);
  g_return_val_if_fail(size_bytes >= 0 && size_bytes < INFINITY, NULL);
  SimFlowGroup *g = path->g;
  if (path->capacity_epoch != net->capacity_epoch) {
    double alone = g->rate_cap_Bps;
    for (uint32_t k = 0; k < g->n_uses; k++) {
      double r = g->key[k].res->capacity / g->key[k].w;
      if (r < alone) alone = r;
    }
    path->alone_rate = alone;
    path->capacity_epoch = net->capacity_epoch;
  }
  return start_in(net, size_bytes > 0 ? g : NULL, size_bytes, path->alone_rate, done, ctx);
}

void sim_flow_cancel(SimFlowNet *net, SimFlow *flow)
{
  g_return_if_fail(net != NULL && flow != NULL && flow->net == net);
  g_return_if_fail(flow->state == FLOW_ACTIVE || flow->state == FLOW_DONE_PENDING);
  if (flow->state == FLOW_DONE_PENDING) {
    /* Completed at this instant, callback not yet run: just skip it. */
    flow->state = FLOW_CANCELLED;
    return;
  }
  net_sync(net);
  double delivered = 0;
  if (flow->g) {
    /* Bytes counted past its last one (it was due within this ns). */
    double rem = flow->tag - group_V(flow->g, now_ns(net));
    if (rem < 0) net->st.units += rem;
    delivered = rem < 0 ? flow->size : flow->size - rem;
  }
  detach(net, flow, delivered);
  flow_release(net, flow);
  after_change(net);
}

double sim_flow_rate_Bps(SimFlow *flow)
{
  if (flow->state != FLOW_ACTIVE || !flow->g) return 0;
  flush(flow->net);
  return group_x(flow->g);
}

double sim_flow_remaining_bytes(const SimFlow *flow)
{
  if (flow->state != FLOW_ACTIVE || !flow->g) return 0;
  double rem = flow->tag - group_V(flow->g, sim_engine_now(flow->net->eng));
  return rem > 0 ? rem : 0;
}

sim_time_ns sim_flow_start_ns(const SimFlow *flow)
{
  return flow->start_ns;
}
double sim_flow_alone_s(const SimFlow *flow)
{
  return flow->alone_s;
}
void *sim_flow_ctx(const SimFlow *flow)
{
  return flow->ctx;
}
