/* sim/flow-bounds.c — resources that can never be overloaded (cover proofs).
 *
 * A resource is bounded when a cover by other resources proves that its load
 * cannot reach its capacity (weak LP duality: see below); bounded resources
 * never join a solve and no clock tracks them.
 *
 * Design notes and data structures: sim/flow-private.h.
 */
#include "sim/flow-private.h"

/* ---- resources that can never be overloaded ------------------------------
 * A resource r is `bounded` when a cover proves that no allocation within
 * the capacities of the other resources loads it to its capacity: assign
 * every known group using r (active or idle, so the proof outlives changes
 * of the active set) to another resource q it uses; the groups on q load r
 * at most C_q max_g (w_{g,r} / w_{g,q}), so the sum over the chosen q is a
 * bound (weak LP duality).  Covers are chosen greedily (least bound per
 * newly covered group).  A bounded resource never joins a solve, so the
 * solves skip its load bound, its overload check and its restart level.
 * To keep the proofs acyclic, a cover q is either bounded by an earlier
 * proof or pinned (never declared bounded afterwards): then every bounded
 * resource fits whenever the checked ones do, by induction in proof order.
 * Clocks keep no entry for bounded resources (each group's uses are ordered
 * saturated, not bounded, bounded; retrack re-sorts them and adds or drops
 * clock entries when the flags change), so a group moving between clocks
 * touches ~2 entries instead of ~9.5 on the 800G appliance. */

/* Clears every resource's bounded flag until the next cover_bounds
 * (a group was created or a capacity changed).  The solves did not keep
 * the load bounds of bounded resources: they are summed again. */
void sim_flow__bounds_invalidate(SimFlowNet *net)
{
  bool any = false;
  /* Nothing to clear when no flag is set (groups created before the first
     * cover_bounds: one sim_flow_net_path per class at setup). */
  for (guint i = 0; net->any_bounded && i < net->resources->len; i++) {
    SimFlowResource *r = g_ptr_array_index(net->resources, i);
    if (r->bounded) {
      r->load = sim_flow__res_load(r);
      any = true;
    }
    r->bounded = false;
  }
  if (any) sim_flow__retrack(net);
  net->any_bounded = false;
  net->bounds_dirty = true;
  net->dirty_solves = 0;
}

/* Works out the bounded flag of every resource from the known groups. */
void sim_flow__cover_bounds(SimFlowNet *net)
{
  const guint nr = net->resources->len, ng = net->groups->len;
  enum { OPEN, BOUNDED, PINNED };
  g_autofree uint8_t *state = g_new0(uint8_t, nr);
  g_autofree double *ratio = g_new(double, nr);
  g_autofree uint32_t *newc = g_new(uint32_t, nr);
  g_autofree uint32_t *cand = g_new(uint32_t, nr);
  g_autofree uint32_t *nusers = g_new0(uint32_t, nr + 1);
  /* Groups by resource (counting sort): users[start[r] .. start[r+1]). */
  for (guint i = 0; i < ng; i++) {
    const SimFlowGroup *g = g_ptr_array_index(net->groups, i);
    for (uint32_t k = 0; k < g->n_uses; k++) nusers[g->key[k].res->idx + 1]++;
  }
  for (guint r = 0; r < nr; r++) nusers[r + 1] += nusers[r];
  g_autofree uint32_t *fill_at = g_memdup2(nusers, nr * sizeof *nusers);
  g_autofree const SimFlowGroup **users = g_new(const SimFlowGroup *, nusers[nr] ? nusers[nr] : 1);
  g_autofree double *wr = g_new(double, nusers[nr] ? nusers[nr] : 1);
  for (guint i = 0; i < ng; i++) {
    const SimFlowGroup *g = g_ptr_array_index(net->groups, i);
    for (uint32_t k = 0; k < g->n_uses; k++) {
      uint32_t at = fill_at[g->key[k].res->idx]++;
      users[at] = g;
      wr[at] = g->key[k].w;
    }
  }
  g_autofree bool *covered = g_new(bool, ng ? ng : 1);
  g_autofree bool *seen = g_new0(bool, nr);
  bool any = false;
  /* Pass 0 covers with any resource and pins those it cannot bound (they
     * stay checked); pass 1 covers with pinned or already bounded ones. */
  for (int pass = 0; pass < 2; pass++)
    for (guint ri = 0; ri < nr; ri++) {
      SimFlowResource *r = g_ptr_array_index(net->resources, ri);
      r->bounded = false;
      const uint32_t u0 = nusers[ri], u1 = nusers[ri + 1];
      if (state[ri] == PINNED || u0 == u1) continue;
      double total = 0;
      uint32_t left = u1 - u0, nc = 0;
      for (uint32_t u = u0; u < u1; u++) covered[u - u0] = false;
      while (left > 0 && total <= r->capacity) {
        /* Per candidate q: the largest ratio over all r's groups using
             * it and the number of uncovered ones it would cover. */
        uint32_t ncand = 0;
        for (uint32_t u = u0; u < u1; u++) {
          const SimFlowGroup *g = users[u];
          for (uint32_t k = 0; k < g->n_uses; k++) {
            const SimFlowResource *q = g->key[k].res;
            if (q == r || (pass == 1 && state[q->idx] == OPEN)) continue;
            double rt = wr[u] / g->key[k].w;
            if (!seen[q->idx]) {
              seen[q->idx] = true;
              cand[ncand++] = q->idx;
              ratio[q->idx] = rt;
              newc[q->idx] = 0;
            } else if (rt > ratio[q->idx]) {
              ratio[q->idx] = rt;
            }
            newc[q->idx] += !covered[u - u0];
          }
        }
        int best = -1;
        double best_cost = INFINITY;
        for (uint32_t j = 0; j < ncand; j++) {
          SimFlowResource *q = g_ptr_array_index(net->resources, cand[j]);
          seen[q->idx] = false;
          if (newc[q->idx] == 0) continue;
          double cost = q->capacity * ratio[q->idx] / newc[q->idx];
          if (cost < best_cost) {
            best_cost = cost;
            best = (int)q->idx;
          }
        }
        if (best < 0) break; /* a group uses r alone */
        SimFlowResource *q = g_ptr_array_index(net->resources, (guint)best);
        total += q->capacity * ratio[best];
        cand[nc++] = (uint32_t)best; /* the chosen covers (reusing cand) */
        for (uint32_t u = u0; u < u1; u++) {
          if (covered[u - u0]) continue;
          const SimFlowGroup *g = users[u];
          for (uint32_t k = 0; k < g->n_uses; k++)
            if (g->key[k].res == q) {
              covered[u - u0] = true;
              left--;
              break;
            }
        }
      }
      bool fits = left == 0 && total <= r->capacity * (1 - SAFE_REL_MARGIN) && !r->sat;
      if (pass == 0 && !fits)
        state[ri] = PINNED;
      else if (pass == 1 && fits) {
        r->bounded = true;
        state[ri] = BOUNDED;
        any = true;
      }
    }
  net->bounds_dirty = false;
  net->any_bounded = any;
  if (any) sim_flow__retrack(net);
}

/* After bounded flags changed: each active group's uses are ordered
 * saturated, not bounded, bounded again (stable), and each clock tracks
 * exactly the resources of its groups that are not bounded: entries of
 * resources that became bounded leave, those of resources no longer
 * bounded are summed from its groups. */
void sim_flow__retrack(SimFlowNet *net)
{
  SimFlowGroupUse *tmp = NULL;
  uint32_t tmp_alloc = 0;
  for (guint i = 0; i < net->groups->len; i++) {
    SimFlowGroup *g = g_ptr_array_index(net->groups, i);
    if (!g->ck) continue; /* idle: group_activate orders its uses */
    if (tmp_alloc < g->n_uses) {
      tmp_alloc = g->n_uses;
      tmp = g_renew(SimFlowGroupUse, tmp, tmp_alloc);
    }
    uint32_t m = 0;
    for (uint32_t k = g->n_sat; k < g->n_uses; k++)
      if (!g->uses[k].res->bounded)
        g->uses[g->n_sat + m++] = g->uses[k];
      else
        tmp[k - g->n_sat - m] = g->uses[k];
    g->n_trk = g->n_sat + m;
    memcpy(g->uses + g->n_trk, tmp, (g->n_uses - g->n_trk) * sizeof *tmp);
    for (uint32_t k = 0; k < g->n_uses; k++) {
      g_assert(k >= g->n_sat || !g->uses[k].res->bounded);
      g->uses[k].res->users[g->uses[k].pos].use = k;
    }
  }
  g_free(tmp);
  for (uint32_t i = 0; i < net->n_cheap; i++) {
    SimFlowClock *c = net->cheap[i];
    for (uint32_t j = c->n_res; j-- > 0;)
      if (c->res[j].res->bounded) sim_flow__clock_entry_drop(c, j);
    sim_flow__bump_tepoch(net); /* tmark: entries created here */
    for (uint32_t j = 0; j < c->n_g; j++) {
      const SimFlowGroup *g = c->gh[j];
      for (uint32_t k = 0; k < g->n_trk; k++) {
        SimFlowResource *r = g->uses[k].res;
        if (r->idx < c->n_slot && c->slot[r->idx] && r->sx.tmark != net->sx.tepoch) continue; /* tracked before */
        r->sx.tmark = net->sx.tepoch;
        SimFlowClockRes *e = sim_flow__clock_entry_get(net, c, r);
        e->cnt++;
        e->A += (double)g->n * g->uses[k].w;
      }
    }
  }
}
