/* sim/flow-clock.c — clocks: groups that move at the same byte rate share one
 * virtual time.
 *
 * A clock holds its groups in a heap by their first flow's finish key and,
 * per resource its groups use (bounded ones excepted), the summed weight
 * A = sum n_g w_{g,r}.  V_c(t) = V_s + x (t - t_s); a group's virtual time is
 * V_c - off_g.  A rate change re-anchors the clock (V_s, t_s = now), so it
 * costs one completion time whatever its number of groups and flows.
 *
 * Design notes and data structures: sim/flow-private.h.
 */
#include "sim/flow-private.h"

/* Recomputes @c's next completion (its first group's first flow) and its
 * place in the heap of clocks. */
void sim_flow__clock_update_next(SimFlowNet *net, SimFlowClock *c)
{
  sim_time_ns t = SIM_TIME_NEVER;
  if (c->n_g && c->gh[0]->n) t = finish_of(c->gh[0], c->gh[0]->mem[0]);
  if (t != c->next_ns) {
    c->next_ns = t;
    ch_fix(net->cheap, net->n_cheap, c->hidx);
  }
}

/* After @g's first flow changed (a flow joined or left): its key in its
 * clock and, when it is or was the clock's first, the clock's next time. */
void sim_flow__group_top_changed(SimFlowNet *net, SimFlowGroup *g)
{
  SimFlowClock *c = g->ck;
  bool was_top = c->gh[0] == g;
  double hk = g->n ? g->mem[0]->key + g->off : INFINITY;
  if (hk != g->hkey) {
    g->hkey = hk;
    cg_fix(c->gh, c->n_g, g->ckpos);
  }
  if (was_top || c->gh[0] == g) sim_flow__clock_update_next(net, c);
}

/* Rebases @c and its groups to virtual time 0 (keeps floats precise). */
static void clock_rebase(SimFlowClock *c)
{
  for (uint32_t j = 0; j < c->n_g; j++) {
    SimFlowGroup *g = c->gh[j];
    double Vg = c->V_s - g->off;
    for (uint32_t i = 0; i < g->n; i++) {
      g->mem[i]->tag -= Vg;
      g->mem[i]->key -= Vg;
    }
    g->vs_sum -= (double)g->n * Vg;
    g->off = 0;
    g->hkey = g->n ? g->mem[0]->key : INFINITY;
  }
  c->V_s = 0;
  cg_heapify(c->gh, c->n_g);
}

/* Moves the anchor of @c to now at its current rate; rebases V when large. */
void sim_flow__clock_reanchor(SimFlowClock *c, sim_time_ns now)
{
  c->V_s = clock_V(c, now);
  c->t_s = now;
  if (c->V_s > REBASE_BYTES) clock_rebase(c);
}

/* A new empty clock at rate @x, anchored at now, in the heap of clocks. */
SimFlowClock *sim_flow__clock_new(SimFlowNet *net, double x)
{
  SimFlowClock *c = net->free_clocks;
  if (c) {
    net->free_clocks = c->next_free;
  } else {
    c = g_new0(SimFlowClock, 1);
    g_ptr_array_add(net->clocks, c);
    if (net->clocks->len > net->clock_slots_alloc) {
      net->clock_slots_alloc = net->clock_slots_alloc ? 2 * net->clock_slots_alloc : 64;
      net->cheap = g_renew(SimFlowClock *, net->cheap, net->clock_slots_alloc);
      net->sx.tclk = g_renew(SimFlowClock *, net->sx.tclk, net->clock_slots_alloc);
      net->sx.tnew = g_renew(SimFlowClock *, net->sx.tnew, net->clock_slots_alloc);
    }
  }
  c->next_free = NULL;
  c->id = net->next_cid++;
  c->x = x;
  c->V_s = 0;
  c->t_s = now_ns(net);
  c->next_ns = SIM_TIME_NEVER;
  c->n_g = c->n_res = c->n_flows = c->n_sat = 0;
  c->sx.mark = 0;
  c->fresh = false;
  ch_insert(net->cheap, &net->n_cheap, c);
  return c;
}

/* An emptied clock leaves the heap and goes back to the free list. */
void sim_flow__clock_release(SimFlowNet *net, SimFlowClock *c)
{
  g_assert(c->n_g == 0);
  ch_remove(net->cheap, &net->n_cheap, c);
  c->next_free = net->free_clocks;
  net->free_clocks = c;
}

/* The entry of @r in @c's resources, created (A = 0, cnt = 0) if missing. */
SimFlowClockRes *sim_flow__clock_entry_get(SimFlowNet *net, SimFlowClock *c, SimFlowResource *r)
{
  if (c->n_slot < net->resources->len) {
    c->slot = g_renew(uint32_t, c->slot, net->resources->len);
    memset(c->slot + c->n_slot, 0, (net->resources->len - c->n_slot) * sizeof *c->slot);
    c->n_slot = net->resources->len;
  }
  uint32_t j = c->slot[r->idx];
  if (j == 0) {
    if (c->n_res == c->res_alloc) {
      c->res_alloc = c->res_alloc ? 2 * c->res_alloc : 16;
      c->res = g_renew(SimFlowClockRes, c->res, c->res_alloc);
      for (uint32_t k = 0; k < c->n_res; k++) c->res[k].res->cusers[c->res[k].upos].e = &c->res[k];
    }
    if (r->n_cusers == r->cusers_alloc) {
      r->cusers_alloc = r->cusers_alloc ? 2 * r->cusers_alloc : 8;
      r->cusers = g_renew(SimFlowResClock, r->cusers, r->cusers_alloc);
    }
    r->cusers[r->n_cusers] = (SimFlowResClock){ .c = c, .e = &c->res[c->n_res] };
    c->res[c->n_res++] = (SimFlowClockRes){ .res = r, .A = 0, .cnt = 0, .upos = r->n_cusers++ };
    j = c->slot[r->idx] = c->n_res;
    if (r->sat) { /* into the saturated prefix */
      clock_swap_res(c, c->n_res - 1, c->n_sat++);
      j = c->slot[r->idx];
    }
  }
  return &c->res[j - 1];
}

/* Entry @j of @c's resources leaves (no member uses it any more): it
 * leaves the resource's clocks (from the end of the saturated prefix if it
 * is in it), and the clock's last entry takes its place. */
void sim_flow__clock_entry_drop(SimFlowClock *c, uint32_t j)
{
  SimFlowResource *r = c->res[j].res;
  if (j < c->n_sat) {
    clock_swap_res(c, j, --c->n_sat);
    j = c->n_sat;
  }
  SimFlowClockRes *e = &c->res[j];
  uint32_t up = e->upos;
  SimFlowResClock lu = r->cusers[--r->n_cusers];
  if (up != r->n_cusers) {
    r->cusers[up] = lu;
    lu.e->upos = up;
  }
  c->slot[r->idx] = 0;
  if (j != --c->n_res) {
    c->res[j] = c->res[c->n_res];
    c->slot[c->res[j].res->idx] = j + 1;
    c->res[j].res->cusers[c->res[j].upos].e = &c->res[j];
  }
}

/* @g joins @c with offset @off (its virtual time is V_c - off): its key,
 * its weights on @c's resources.  The caller updates @c's next time. */
void sim_flow__clock_add_group(SimFlowNet *net, SimFlowClock *c, SimFlowGroup *g, double off)
{
  g->ck = c;
  g->off = off;
  c->moved = true;
  g->hkey = g->n ? g->mem[0]->key + g->off : INFINITY;
  if (c->n_g == c->gh_alloc) {
    c->gh_alloc = c->gh_alloc ? 2 * c->gh_alloc : 8;
    c->gh = g_renew(SimFlowGroup *, c->gh, c->gh_alloc);
  }
  cg_insert(c->gh, &c->n_g, g);
  c->n_flows += g->n;
  double n = (double)g->n;
  for (uint32_t k = 0; k < g->n_trk; k++) {
    SimFlowClockRes *e = sim_flow__clock_entry_get(net, c, g->uses[k].res);
    e->cnt++;
    e->A += n * g->uses[k].w;
  }
}

/* @g leaves its clock (which the caller releases when emptied). */
void sim_flow__clock_remove_group(SimFlowNet *net G_GNUC_UNUSED, SimFlowClock *c, SimFlowGroup *g)
{
  cg_remove(c->gh, &c->n_g, g);
  c->n_flows -= g->n;
  c->moved = true;
  double n = (double)g->n;
  for (uint32_t k = 0; k < g->n_trk; k++) {
    SimFlowResource *r = g->uses[k].res;
    uint32_t j = c->slot[r->idx] - 1;
    SimFlowClockRes *e = &c->res[j];
    if (--e->cnt > 0)
      e->A -= n * g->uses[k].w;
    else
      sim_flow__clock_entry_drop(c, j);
  }
  g->ck = NULL;
}

/* Moves @g (rate already set) from its clock to @c, keeping its virtual time. */
void sim_flow__group_move(SimFlowNet *net, SimFlowGroup *g, SimFlowClock *c)
{
  sim_time_ns now = now_ns(net);
  double Vg = group_V(g, now);
  sim_flow__clock_remove_group(net, g->ck, g);
  sim_flow__clock_add_group(net, c, g, clock_V(c, now) - Vg);
}
