/* sim/flow-solve.c — the solver: weighted max-min rates by progressive filling.
 *
 * The component of the changes (closed over saturated resources, from the
 * restart level), its progressive filling by clocks (solve_clocks) or by
 * groups (solve_groups), the overload check of the resources left out, and
 * the commit of rates, loads and saturation flags.  Why there are two
 * fillings: sim/flow-private.h.
 *
 * Design notes and data structures: sim/flow-private.h.
 */
#include "sim/flow-private.h"
#include <stdio.h>
#include <stdlib.h>

/* ---- solving ------------------------------------------------------------ */

static void bump_epoch(SimFlowNet *net)
{
  if (++net->sx.epoch != 0) return;
  for (guint i = 0; i < net->resources->len; i++) ((SimFlowResource *)g_ptr_array_index(net->resources, i))->sx.mark = 0;
  for (guint i = 0; i < net->groups->len; i++) ((SimFlowGroup *)g_ptr_array_index(net->groups, i))->sx.mark = 0;
  net->sx.epoch = 1;
}

/* A new clock epoch (marks of every clock, merge marks of every resource invalid). */
static void bump_cepoch(SimFlowNet *net)
{
  if (++net->sx.cepoch != 0) return;
  for (guint i = 0; i < net->clocks->len; i++) ((SimFlowClock *)g_ptr_array_index(net->clocks, i))->sx.mark = 0;
  for (guint i = 0; i < net->resources->len; i++) ((SimFlowResource *)g_ptr_array_index(net->resources, i))->sx.mmark = 0;
  net->sx.cepoch = 1;
}

void sim_flow__bump_tepoch(SimFlowNet *net)
{
  if (++net->sx.tepoch != 0) return;
  for (guint i = 0; i < net->resources->len; i++) ((SimFlowResource *)g_ptr_array_index(net->resources, i))->sx.tmark = 0;
  net->sx.tepoch = 1;
}

static inline void add_cr(SimFlowNet *net, SimFlowComp *cs, SimFlowResource *r)
{
  if (r->sx.mark != net->sx.epoch) {
    r->sx.mark = net->sx.epoch;
    net->sx.cr[cs->ncr++] = r;
    net->sx.cr_unsat += !r->sat;
  }
}

static inline void add_group(SimFlowNet *net, SimFlowComp *cs, SimFlowGroup *g)
{
  if (g->sx.mark != net->sx.epoch) {
    g->sx.mark = net->sx.epoch;
    net->sx.comp[cs->nc++] = g;
  }
}

/* Closes the component: every user of a component resource, every
 * saturated resource of a component group. */
static void close_component(SimFlowNet *net, SimFlowComp *cs)
{
  while (cs->qr < cs->ncr || cs->qg < cs->nc) {
    while (cs->qr < cs->ncr) {
      /* Its users in the component (weight W0) and the fixed load
             * F0 of the others, slower than the restart level. */
      SimFlowResource *r = net->sx.cr[cs->qr++];
      double W = 0, F = 0;
      uint32_t nu = 0;
      for (uint32_t u = 0; u < r->n_users; u++) {
        SimFlowGroup *g = r->users[u].g;
        double nw = (double)g->n * r->users[u].w;
        double x = group_x(g);
        if (g->sx.mark == net->sx.epoch || x >= cs->lvl0) {
          add_group(net, cs, g);
          W += nw;
          nu++;
        } else {
          F += nw * x;
        }
      }
      r->sx.W0 = W;
      r->sx.F0 = F;
      r->sx.n_comp = nu;
    }
    while (cs->qg < cs->nc) {
      SimFlowGroup *g = net->sx.comp[cs->qg++];
      for (uint32_t k = 0; k < g->n_sat; k++) add_cr(net, cs, g->uses[k].res);
      if (g->n_sat == 0 && !(g->rate_cap_Bps < INFINITY)) {
        bool has = false;
        for (uint32_t k = 0; k < g->n_uses && !has; k++) has = g->uses[k].res->sx.mark == net->sx.epoch;
        if (!has) net->sx.unb[cs->nu++] = g; /* no resource of the component yet */
      }
    }
  }
}

/* Freezes @g at @rate on the component's resources: its saturated ones
 * (all in the component) and, only when the component holds unsaturated
 * resources, those of its others that are in it. */
static void freeze(SimFlowNet *net, SimFlowGroup *g, double rate)
{
  g->sx.frozen = true;
  g->sx.x_new = rate;
  double n = (double)g->n;
  uint32_t end = net->sx.cr_unsat ? g->n_uses : g->n_sat;
  for (uint32_t k = 0; k < end; k++) {
    SimFlowResource *r = g->uses[k].res;
    if (r->sx.mark != net->sx.epoch) continue;
    r->sx.frozen_load += n * g->uses[k].w * rate;
    r->sx.W -= n * g->uses[k].w;
    if (--r->sx.n_unfrozen == 0) r->sx.W = 0;
  }
}

/* Progressive filling of the component's groups on its resources alone. */
static void fill(SimFlowNet *net, const SimFlowComp *cs)
{
  const uint32_t e = net->sx.epoch;
  SimFlowResource **live = net->sx.live;
  uint32_t nl = 0;
  for (uint32_t q = 0; q < cs->ncr; q++) {
    SimFlowResource *r = net->sx.cr[q];
    r->sx.W = r->sx.W0;
    r->sx.frozen_load = r->sx.F0; /* users below the restart level keep their rates */
    r->sx.n_unfrozen = r->sx.n_comp;
    r->sx.sat_new = false;
    if (r->sx.n_comp) live[nl++] = r;
  }
  for (uint32_t i = 0; i < cs->nc; i++) net->sx.comp[i]->sx.frozen = false;
  uint32_t unfrozen = cs->nc, ci = 0;
  while (unfrozen > 0) {
    double lmin = INFINITY;
    uint32_t keep = 0;
    for (uint32_t q = 0; q < nl; q++) {
      SimFlowResource *r = live[q];
      if (!r->sx.n_unfrozen) continue;
      r->sx.lvl = (r->capacity - r->sx.frozen_load) / r->sx.W;
      if (r->sx.lvl < lmin) lmin = r->sx.lvl;
      live[keep++] = r;
    }
    nl = keep;
    if (lmin < 0) lmin = 0;
    double thr = lmin * (1 + LEVEL_REL_TOL);
    /* Caps below the lowest resource level freeze first, at their cap
         * (freezing below a level never lowers it).  Without live resources
         * (lmin infinite) every remaining group is capped. */
    bool froze_cap = false;
    for (; ci < net->n_capped; ci++) {
      SimFlowGroup *g = net->capped[ci];
      if (g->sx.mark != e || g->sx.frozen) continue;
      if (!(g->rate_cap_Bps <= thr)) break;
      freeze(net, g, g->rate_cap_Bps < lmin ? g->rate_cap_Bps : lmin);
      g->sx.froze_by = NULL;
      unfrozen--;
      froze_cap = true;
    }
    if (froze_cap) continue;
    g_assert(nl > 0);
    /* Otherwise the resources at the lowest level saturate (freezing at
         * the level of a resource leaves its level unchanged, so the levels
         * computed above stay valid during this pass). */
    for (uint32_t q = 0; q < nl; q++) {
      SimFlowResource *r = live[q];
      if (!r->sx.n_unfrozen || !(r->sx.lvl <= thr)) continue;
      r->sx.sat_new = true;
      for (uint32_t u = 0; u < r->n_users; u++) {
        SimFlowGroup *g = r->users[u].g;
        if (g->sx.mark == e && !g->sx.frozen) {
          freeze(net, g, lmin);
          g->sx.froze_by = r;
          unfrozen--;
        }
      }
    }
  }
}

/* Swaps uses a and b of @g, keeping its resources' back-references. */
static inline void use_swap(SimFlowGroup *g, uint32_t a, uint32_t b)
{
  if (a == b) return;
  SimFlowGroupUse t = g->uses[a];
  g->uses[a] = g->uses[b];
  g->uses[b] = t;
  g->uses[a].res->users[g->uses[a].pos].use = a;
  g->uses[b].res->users[g->uses[b].pos].use = b;
}

/* Sets @r's saturation flag and moves its use in each active user group
 * into (or out of) the group's saturated prefix. */
static void set_sat(SimFlowResource *r, bool sat)
{
  g_assert(!r->bounded); /* bounded resources never saturate */
  r->sat = sat;
  for (uint32_t u = 0; u < r->n_users; u++) {
    SimFlowGroup *g = r->users[u].g;
    if (sat)
      use_swap(g, r->users[u].use, g->n_sat++);
    else
      use_swap(g, r->users[u].use, --g->n_sat);
  }
  for (uint32_t u = 0; u < r->n_cusers; u++) {
    SimFlowClock *c = r->cusers[u].c;
    if (sat)
      clock_swap_res(c, (uint32_t)(r->cusers[u].e - c->res), c->n_sat++);
    else
      clock_swap_res(c, (uint32_t)(r->cusers[u].e - c->res), --c->n_sat);
  }
}

/* Exact sums of every load, cap load, clock weight and the net's byte rate
 * (loads of unsaturated resources are upper bounds in between). */
static void resum(SimFlowNet *net)
{
  double rate = 0;
  for (guint i = 0; i < net->resources->len; i++) {
    SimFlowResource *r = g_ptr_array_index(net->resources, i);
    double L = 0, CL = 0;
    for (uint32_t u = 0; u < r->n_users; u++) {
      const SimFlowGroup *g = r->users[u].g;
      L += (double)g->n * r->users[u].w * group_x(g);
      if (g->rate_cap_Bps < INFINITY) CL += (double)g->n * r->users[u].w * g->rate_cap_Bps;
    }
    r->load = L;
    r->load_at_caps = CL;
  }
  for (uint32_t i = 0; i < net->n_cheap; i++) {
    SimFlowClock *c = net->cheap[i];
    rate += (double)c->n_flows * c->x;
    for (uint32_t j = 0; j < c->n_res; j++) c->res[j].A = 0;
    for (uint32_t j = 0; j < c->n_g; j++) {
      const SimFlowGroup *g = c->gh[j];
      for (uint32_t k = 0; k < g->n_trk; k++) clock_entry(c, g->uses[k].res)->A += (double)g->n * g->uses[k].w;
    }
  }
  net_sync(net);
  net->rate_sum = rate;
  net->solves_since_resum = 0;
}

/* Rate of user @g below the restart level: its current one, or its cap
 * for a group not solved yet (it rises with the level up to there). */
static inline double old_rate(const SimFlowGroup *g)
{
  return g->fresh ? g->rate_cap_Bps : group_x(g);
}

/* A lower bound, at most @upper, of the level at which @r saturates in the
 * progressive filling after flows joined its users, as long as every user
 * keeps its old rate below that level: the root of the concave piecewise-
 * linear F(l) = sum_u n_u w_u min(x_u, l) = C_r, by Newton's method from
 * below (each step stays below the root; a stop halfway is still a bound). */
static double level_bound(const SimFlowResource *r, double upper)
{
  const double C = r->capacity;
  double F = 0, W = 0;
  for (uint32_t u = 0; u < r->n_users; u++) {
    const SimFlowGroup *g = r->users[u].g;
    double nw = (double)g->n * r->users[u].w, x = old_rate(g);
    W += nw;
    F += nw * (x < upper ? x : upper);
  }
  if (F <= C) return upper;
  double l = C / W; /* F(l) <= W l = C */
  for (int it = 0; it < 16; it++) {
    double Fl = 0, S = 0;
    for (uint32_t u = 0; u < r->n_users; u++) {
      const SimFlowGroup *g = r->users[u].g;
      double nw = (double)g->n * r->users[u].w, x = old_rate(g);
      if (x > l) {
        Fl += nw * l;
        S += nw;
      } else {
        Fl += nw * x;
      }
    }
    if (!(C - Fl > LEVEL_REL_TOL * C) || !(S > 0)) break;
    l += (C - Fl) / S;
  }
  l *= 1 - RESTART_REL_MARGIN;
  return l < upper ? l : upper;
}

/* level_bound() by clocks (no capped group active): a clock's users of @r
 * weigh A, and a fresh clock (its one group not solved yet, uncapped)
 * rises with the level. */
static double level_bound_clocks(const SimFlowResource *r, double upper)
{
  const double C = r->capacity;
  double F = 0, W = 0;
  for (uint32_t u = 0; u < r->n_cusers; u++) {
    const SimFlowClock *c = r->cusers[u].c;
    double nw = r->cusers[u].e->A, x = c->fresh ? INFINITY : c->x;
    W += nw;
    F += nw * (x < upper ? x : upper);
  }
  if (F <= C) return upper;
  double l = C / W; /* F(l) <= W l = C */
  for (int it = 0; it < 16; it++) {
    double Fl = 0, S = 0;
    for (uint32_t u = 0; u < r->n_cusers; u++) {
      const SimFlowClock *c = r->cusers[u].c;
      double nw = r->cusers[u].e->A, x = c->fresh ? INFINITY : c->x;
      if (x > l) {
        Fl += nw * l;
        S += nw;
      } else {
        Fl += nw * x;
      }
    }
    if (!(C - Fl > LEVEL_REL_TOL * C) || !(S > 0)) break;
    l += (C - Fl) / S;
  }
  l *= 1 - RESTART_REL_MARGIN;
  return l < upper ? l : upper;
}

/* The level from which the progressive filling restarts: below it the
 * filling after the changes goes exactly as the last one did, so every
 * group slower than it keeps its rate (max-min is monotone).  A flow
 * leaving group g changes nothing below x_g (its resources only lose
 * load); flows joining g can saturate one of g's resources earlier, not
 * below where its load with the new flows first reaches its capacity
 * (level_bound), nor above x_g or g's cap.  A capacity change restarts
 * from 0. */
static double restart_level(SimFlowNet *net, bool by_clocks)
{
  double l = net->lvl0;
  uint32_t n_fresh = 0; /* a fresh group counts 0 in its resources' loads */
  for (uint32_t i = 0; i < net->n_changed; i++) n_fresh += net->changed[i]->fresh && net->changed[i]->n > 0;
  for (uint32_t i = 0; i < net->n_changed && l > 0; i++) {
    const SimFlowGroup *g = net->changed[i];
    if (g->n == 0) continue;
    double x = old_rate(g);
    if (x < l) l = x;
    if (!g->joined) continue;
    /* Quick out when no other changed group is fresh: the resource fits
         * even at its current load (which counts the new flows at their
         * group's rate) plus, when g is fresh (it counts 0 there), g's
         * flows at the level: F(l) is at most that. */
    bool quick = n_fresh == 0 || (n_fresh == 1 && g->fresh);
    for (uint32_t k = 0; k < g->n_uses && l > 0; k++) {
      const SimFlowResource *r = g->uses[k].res;
      if (r->bounded) continue; /* never reaches its capacity */
      double mine = g->fresh ? (double)g->n * g->uses[k].w * l : 0;
      if (quick && r->load + mine <= r->capacity * (1 - SAFE_REL_MARGIN)) continue;
      l = by_clocks ? level_bound_clocks(r, l) : level_bound(r, l);
    }
  }
  return l > 0 ? l : 0;
}

/* Commits the loads of the component's resources (and their saturation
 * flags) and of the other resources its groups use (@nt of them in
 * net->sx.touched). */
static void commit_loads(SimFlowNet *net, const SimFlowComp *cs, uint32_t nt)
{
  for (uint32_t q = 0; q < nt; q++) {
    SimFlowResource *r = net->sx.touched[q];
    r->load = r->sx.tmp_load > 0 ? r->sx.tmp_load : 0;
  }
  for (uint32_t q = 0; q < cs->ncr; q++) {
    SimFlowResource *r = net->sx.cr[q];
    r->load = r->sx.frozen_load;
    if (r->sat != r->sx.sat_new) set_sat(r, r->sx.sat_new);
  }
  net_sync(net);
}

/* ---- solving by clocks ---------------------------------------------------
 * The same progressive filling with clocks as units: a clock's weight on a
 * resource is the sum of n w over its groups using it.  When a resource
 * saturates, a clock all of whose groups use it freezes whole; one only
 * some of whose groups use it splits first (those groups move to a new
 * clock at the same rate and anchor, which freezes), since in the filling
 * by groups they freeze and the others go on rising.  The component is
 * closed over clocks: every clock using one of its resources (at or above
 * the restart level), every saturated resource of its clocks; it holds
 * whole clocks, so it may be larger than the one by groups, which is still
 * exact (any closed set holding the changes gives the max-min allocation). */

static inline void add_clock(SimFlowNet *net, SimFlowComp *cs, SimFlowClock *c)
{
  if (c->sx.mark != net->sx.cepoch) {
    c->sx.mark = net->sx.cepoch;
    net->sx.tclk[cs->nc++] = c;
  }
}

/* Closes the clock component (net->sx.tclk[0..nc)); sets each resource's
 * weight of component clocks (W0), their number (n_comp) and the fixed
 * load of the others (F0). */
static void close_clocks(SimFlowNet *net, SimFlowComp *cs)
{
  while (cs->qr < cs->ncr || cs->qg < cs->nc) {
    while (cs->qr < cs->ncr) {
      SimFlowResource *r = net->sx.cr[cs->qr++];
      double W = 0, F = 0;
      uint32_t nu = 0;
      uintptr_t X = 0;
      for (uint32_t u = 0; u < r->n_cusers; u++) {
        SimFlowClock *c = r->cusers[u].c;
        double A = r->cusers[u].e->A;
        if (c->sx.mark == net->sx.cepoch || c->x >= cs->lvl0) {
          add_clock(net, cs, c);
          W += A;
          nu++;
          X ^= (uintptr_t)c;
        } else {
          F += A * c->x;
        }
      }
      r->sx.W0 = W;
      r->sx.F0 = F;
      r->sx.n_comp = nu;
      r->sx.cx0 = X;
    }
    while (cs->qg < cs->nc) {
      SimFlowClock *c = net->sx.tclk[cs->qg++];
      for (uint32_t j = 0; j < c->n_sat; j++) add_cr(net, cs, c->res[j].res);
    }
  }
}

/* Freezes clock @c at @rate (saturated @by) on the component's resources. */
static void freeze_clock(SimFlowNet *net, SimFlowClock *c, double rate, SimFlowResource *by)
{
  c->sx.frozen = true;
  c->sx.x_new = rate;
  c->sx.fb = by;
  uint32_t end = net->sx.cr_unsat ? c->n_res : c->n_sat; /* saturated ones are all in it */
  for (uint32_t j = 0; j < end; j++) {
    SimFlowResource *r = c->res[j].res;
    if (r->sx.mark != net->sx.epoch) continue;
    r->sx.frozen_load += c->res[j].A * rate;
    r->sx.W -= c->res[j].A;
    r->sx.cx ^= (uintptr_t)c;
    if (--r->sx.n_unfrozen == 0) r->sx.W = 0;
  }
}

static inline bool group_uses(const SimFlowGroup *g, const SimFlowResource *r)
{
  for (uint32_t k = 0; k < g->n_trk; k++) /* @r is not bounded */
    if (g->uses[k].res == r) return true;
  return false;
}

/* Moves the groups of component clock @c that use @r to a new component
 * clock at the same rate and anchor (their virtual times unchanged) and
 * returns it, unfrozen, counted on the component's resources. */
static SimFlowClock *clock_split(SimFlowNet *net, SimFlowComp *cs, SimFlowClock *c, const SimFlowResource *r)
{
  SimFlowClock *d = sim_flow__clock_new(net, c->x);
  d->V_s = c->V_s;
  d->t_s = c->t_s;
  uint32_t m = 0;
  for (uint32_t j = 0; j < c->n_g; j++)
    if (group_uses(c->gh[j], r)) net->sx.unb[m++] = c->gh[j];
  for (uint32_t i = 0; i < m; i++) {
    SimFlowGroup *g = net->sx.unb[i];
    sim_flow__clock_remove_group(net, c, g);
    sim_flow__clock_add_group(net, d, g, g->off);
  }
  sim_flow__clock_update_next(net, c);
  add_clock(net, cs, d);
  d->sx.frozen = false;
  /* A resource both use now counts one more clock of the component (for
     * this filling and any redone after the component grows); on one that
     * only d uses now (@r among them), d takes c's place. */
  for (uint32_t j = 0; j < d->n_res; j++) {
    SimFlowResource *q = d->res[j].res;
    if (q->sx.mark != net->sx.epoch) continue;
    if (c->slot[q->idx]) {
      q->sx.n_unfrozen++;
      q->sx.n_comp++;
      q->sx.cx ^= (uintptr_t)d;
      q->sx.cx0 ^= (uintptr_t)d;
    } else {
      q->sx.cx ^= (uintptr_t)c ^ (uintptr_t)d;
      q->sx.cx0 ^= (uintptr_t)c ^ (uintptr_t)d;
    }
  }
  return d;
}

/* Resource @r of the component saturates at @level in the filling by
 * clocks: its unfrozen clocks freeze (one only some of whose groups use @r
 * first splits).  Returns the number of the component's clocks that froze
 * (a clock split off joins the component frozen). */
static inline uint32_t saturate_clocks(SimFlowNet *net, SimFlowComp *cs, SimFlowResource *r, double level)
{
  uint32_t froze = 0;
  r->sx.sat_new = true;
  if (r->sx.n_unfrozen == 1) {
    /* The usual case: one clock left, which the XOR of the unfrozen ones
         * names (the scan below would find it, and nothing after it). */
    SimFlowClock *c = (SimFlowClock *)r->sx.cx;
    g_assert(c->sx.mark == net->sx.cepoch && !c->sx.frozen);
    if (clock_entry(c, r)->cnt == c->n_g) {
      freeze_clock(net, c, level, r);
      return 1;
    }
    freeze_clock(net, clock_split(net, cs, c, r), level, r);
    return 0;
  }
  /* n_unfrozen counts the unfrozen component clocks using r (freezing one
     * decrements it): none is left past it. */
  for (uint32_t u = 0; u < r->n_cusers && r->sx.n_unfrozen; u++) {
    SimFlowClock *c = r->cusers[u].c;
    if (c->sx.mark != net->sx.cepoch || c->sx.frozen) continue;
    if (r->cusers[u].e->cnt == c->n_g) {
      freeze_clock(net, c, level, r);
      froze++;
    } else {
      /* c leaves r's clocks (the last one takes its place, look at it
             * again) and the new clock joins them. */
      freeze_clock(net, clock_split(net, cs, c, r), level, r);
      u--;
    }
  }
  return froze;
}

/* Progressive filling of the component's clocks; false if some clock is
 * left without a resource of the component (the group-level solve then
 * gives its groups the resource that bounds them). */
static bool fill_clocks(SimFlowNet *net, SimFlowComp *cs)
{
  SimFlowResource **live = net->sx.live;
  uint32_t nl = 0;
  for (uint32_t q = 0; q < cs->ncr; q++) {
    SimFlowResource *r = net->sx.cr[q];
    r->sx.W = r->sx.W0;
    r->sx.frozen_load = r->sx.F0;
    r->sx.n_unfrozen = r->sx.n_comp;
    r->sx.cx = r->sx.cx0;
    r->sx.sat_new = false;
    if (r->sx.n_comp) live[nl++] = r;
  }
  for (uint32_t i = 0; i < cs->nc; i++) net->sx.tclk[i]->sx.frozen = false;
  uint32_t unfrozen = cs->nc;
  while (unfrozen > 0) {
    /* The lowest level (lmin, at live[qmin]) and the second lowest (l2). */
    double lmin = INFINITY, l2 = INFINITY;
    uint32_t keep = 0, qmin = 0;
    for (uint32_t q = 0; q < nl; q++) {
      SimFlowResource *r = live[q];
      if (!r->sx.n_unfrozen) continue;
      double lvl = (r->capacity - r->sx.frozen_load) / r->sx.W;
      r->sx.lvl = lvl;
      /* Without branches (the order of the levels is not predictable): a
             * NaN level leaves lmin and qmin and can only lower l2, which at
             * worst sends the round to the second pass. */
      double hi = lvl > lmin ? lvl : lmin;
      l2 = hi < l2 ? hi : l2;
      qmin = lvl < lmin ? keep : qmin;
      lmin = lvl < lmin ? lvl : lmin;
      live[keep++] = r;
    }
    nl = keep;
    if (!(lmin < INFINITY)) return false;
    if (lmin < 0) lmin = 0;
    double thr = lmin * (1 + LEVEL_REL_TOL);
    /* Every other resource is at l2 or above (a NaN level saturates in no
         * pass): when l2 is above the threshold, live[qmin] (at or below
         * it) is the one resource that saturates in this round, which is
         * what the pass below would find. */
    if (!(l2 <= thr)) {
      unfrozen -= saturate_clocks(net, cs, live[qmin], lmin);
      continue;
    }
    /* Otherwise the resources at the lowest level saturate, in their order
         * (freezing at the level of a resource leaves its level unchanged,
         * so the levels computed above stay valid during this pass). */
    for (uint32_t q = 0; q < nl; q++) {
      SimFlowResource *r = live[q];
      if (!r->sx.n_unfrozen || !(r->sx.lvl <= thr)) continue;
      unfrozen -= saturate_clocks(net, cs, r, lmin);
    }
  }
  return true;
}

/* May clock @c of this solve merge with another frozen on the same
 * resource (by_groups: the group-level solve, where only clocks moved whole
 * whose groups all froze on one resource qualify)? */
static inline bool mergeable(const SimFlowClock *c, bool by_groups)
{
  if (!c->n_g || !c->sx.fb) return false;
  return !by_groups || (c->sx.whole && c->sx.fb_same);
}

/* Merges the clocks ck[0..n) of this solve that froze on the same resource
 * at the same rate, the smaller into the larger, in index order: each
 * clock joins the first earlier one it can merge with.  Clocks that froze
 * on one resource froze in one round of the filling, so at one rate: the
 * resource keeps the clock the earlier ones merged into (sx.mrep, valid
 * while sx.mmark equals the clock epoch), which makes this linear in n
 * (a search of the earlier clocks is left only for a rate that differs,
 * which the filling does not produce). */
static void merge_clocks(SimFlowNet *net, SimFlowClock **ck, uint32_t n, bool by_groups)
{
  for (uint32_t k = 0; k < n; k++) {
    SimFlowClock *a = ck[k];
    if (!mergeable(a, by_groups)) continue;
    SimFlowResource *r = a->sx.fb;
    SimFlowClock *b = r->sx.mmark == net->sx.cepoch ? r->sx.mrep : NULL;
    if (!b || !b->n_g) {
      r->sx.mmark = net->sx.cepoch;
      r->sx.mrep = a;
      continue;
    }
    if (b->x != a->x) {
      b = NULL;
      for (uint32_t k2 = 0; k2 < k && !b; k2++)
        if (ck[k2]->n_g && mergeable(ck[k2], by_groups) && ck[k2]->sx.fb == r && ck[k2]->x == a->x) b = ck[k2];
      if (!b) continue;
    }
    SimFlowClock *from = a->n_g < b->n_g ? a : b, *to = from == a ? b : a;
    while (from->n_g) sim_flow__group_move(net, from->gh[from->n_g - 1], to);
    if (r->sx.mrep == from) r->sx.mrep = to;
  }
}

/* Commits the clocks' new rates: one re-anchor per clock whose rate
 * changed; clocks frozen on the same resource at the same rate merge (the
 * smaller into the larger); then their next completion times. */
static void commit_clocks(SimFlowNet *net, const SimFlowComp *cs, sim_time_ns now)
{
  for (uint32_t k = 0; k < cs->nc; k++) {
    SimFlowClock *c = net->sx.tclk[k];
    double dx = c->sx.x_new - c->x;
    if (dx != 0) {
      sim_flow__clock_reanchor(c, now);
      net->rate_sum += (double)c->n_flows * dx;
      c->x = c->sx.x_new;
      c->moved = true;
    }
    if (c->fresh) c->gh[0]->fresh = false;
  }
  merge_clocks(net, net->sx.tclk, cs->nc, false);
  for (uint32_t k = 0; k < cs->nc; k++) {
    SimFlowClock *c = net->sx.tclk[k];
    c->sx.fb_same = true; /* the group-level solve may merge it with others of the same fb */
    c->fresh = false;
    if (c->n_g == 0) {
      sim_flow__clock_release(net, c);
    } else if (c->moved) { /* its rate or groups changed */
      sim_flow__clock_update_next(net, c);
      c->moved = false;
    }
  }
}

/* A component clock with no resource in the component (its groups use no
 * saturated one) would rise without bound: it gets the resource used by
 * all its groups that bounds it alone (least capacity per unit of its
 * weight).  Returns the number of resources added, -1 if a clock has no
 * such resource (the group-level solve then bounds each group). */
static int bound_clocks(SimFlowNet *net, SimFlowComp *cs)
{
  int added = 0;
  for (uint32_t k = 0; k < cs->nc; k++) {
    SimFlowClock *c = net->sx.tclk[k];
    if (c->n_sat > 0) continue; /* its saturated resources are in the component */
    bool has = false;
    for (uint32_t j = 0; j < c->n_res && !has; j++) has = c->res[j].res->sx.mark == net->sx.epoch;
    if (has) continue;
    int best = -1;
    for (uint32_t j = 0; j < c->n_res; j++) {
      const SimFlowClockRes *e = &c->res[j];
      if (e->cnt == c->n_g && e->A > 0 && (best < 0 || e->res->capacity / e->A < c->res[best].res->capacity / c->res[best].A))
        best = (int)j;
    }
    if (best < 0) return -1;
    add_cr(net, cs, c->res[best].res);
    added++;
  }
  return added;
}

/* The clock-level solve; false (having changed nothing but clock
 * membership) when the group-level one must do it. */
static bool solve_clocks(SimFlowNet *net)
{
  bump_epoch(net);
  bump_cepoch(net);
  net->sx.cr_unsat = 0;
  sim_time_ns now = now_ns(net);
  SimFlowComp cs = { 0 };
  for (uint32_t i = 0; i < net->n_seeds; i++) add_cr(net, &cs, net->seeds[i]);
  cs.lvl0 = restart_level(net, true);
  for (uint32_t i = 0; i < net->n_changed; i++)
    if (net->changed[i]->n > 0) add_clock(net, &cs, net->changed[i]->ck);
  close_clocks(net, &cs);

  uint32_t nt;
  for (;;) {
    int b = bound_clocks(net, &cs);
    if (b < 0) return false;
    if (b > 0) {
      close_clocks(net, &cs);
      continue;
    }
    if (!fill_clocks(net, &cs)) return false;
    /* Loads of the other resources the component uses, after the change. */
    sim_flow__bump_tepoch(net);
    nt = 0;
    /* Their loads are kept as upper bounds: a clock slowing down only
         * lowers them, so only the rises are checked, and the resources
         * whose bound new flows took above their capacity (net->chk),
         * exactly when the bound does not fit. */
    for (uint32_t k = 0; k < cs.nc; k++) {
      SimFlowClock *c = net->sx.tclk[k];
      double dx = c->sx.x_new - c->x;
      if (!(dx > 0)) continue;
      /* saturated ones are in the component, bounded ones untracked */
      for (uint32_t j = c->n_sat; j < c->n_res; j++) {
        SimFlowResource *r = c->res[j].res;
        if (r->sx.mark == net->sx.epoch) continue;
        if (r->sx.tmark != net->sx.tepoch) {
          r->sx.tmark = net->sx.tepoch;
          r->sx.tmp_load = r->load;
          net->sx.touched[nt++] = r;
        }
        r->sx.tmp_load += c->res[j].A * dx;
      }
    }
    for (uint32_t q = 0; q < net->n_chk; q++) {
      SimFlowResource *r = net->chk[q];
      if (r->sx.mark != net->sx.epoch && r->sx.tmark != net->sx.tepoch) {
        r->sx.tmark = net->sx.tepoch;
        r->sx.tmp_load = r->load;
        net->sx.touched[nt++] = r;
      }
    }
    bool grown = false;
    for (uint32_t q = 0; q < nt; q++) {
      SimFlowResource *r = net->sx.touched[q];
      if (!(r->sx.tmp_load > r->capacity * (1 + OVER_REL_TOL))) continue;
      double L = 0;
      for (uint32_t u = 0; u < r->n_cusers; u++) {
        const SimFlowClock *c = r->cusers[u].c;
        L += r->cusers[u].e->A * (c->sx.mark == net->sx.cepoch ? c->sx.x_new : c->x);
      }
      r->sx.tmp_load = L;
      if (L > r->capacity * (1 + OVER_REL_TOL)) {
        add_cr(net, &cs, r);
        grown = true;
      }
    }
    if (!grown) break;
    close_clocks(net, &cs);
  }
  /* Done: the changes are consumed. */
  for (uint32_t i = 0; i < net->n_seeds; i++) net->seeds[i]->seeded = false;
  for (uint32_t i = 0; i < net->n_changed; i++) {
    net->changed[i]->changed = false;
    net->changed[i]->joined = false;
  }
  net->n_seeds = net->n_changed = 0;
  net->lvl0 = INFINITY;
  commit_loads(net, &cs, nt);
  commit_clocks(net, &cs, now);
  return true;
}

/* Groups the component's groups by clock: a clock all of whose groups are
 * in the component and get the same new rate moves whole (whole); the
 * other changed groups change clock.  Returns the clocks, in net->sx.tclk. */
static uint32_t classify(SimFlowNet *net, const SimFlowComp *cs)
{
  bump_cepoch(net);
  uint32_t nk = 0;
  for (uint32_t i = 0; i < cs->nc; i++) {
    SimFlowGroup *g = net->sx.comp[i];
    SimFlowClock *c = g->ck;
    if (c->sx.mark != net->sx.cepoch) {
      c->sx.mark = net->sx.cepoch;
      c->sx.x_new = g->sx.x_new;
      c->sx.nsame = 0;
      c->sx.uniform = true;
      c->sx.grown = false;
      c->sx.fb = g->sx.froze_by;
      c->sx.fb_same = true;
      net->sx.tclk[nk++] = c;
    }
    if (g->sx.x_new == c->sx.x_new)
      c->sx.nsame++;
    else
      c->sx.uniform = false;
    if (g->sx.froze_by != c->sx.fb) c->sx.fb_same = false;
    c->sx.grown = c->sx.grown || g->sx.grown;
  }
  for (uint32_t k = 0; k < nk; k++) {
    SimFlowClock *c = net->sx.tclk[k];
    c->sx.whole = c->sx.uniform && c->sx.nsame == c->n_g;
  }
  return nk;
}

/* The clock a group changing to rate @x joins: a clock of this solve that
 * ends at @x with all its groups, or a new one. */
static SimFlowClock *clock_target(SimFlowNet *net, uint32_t nk, uint32_t *nn, double x, SimFlowResource *fb)
{
  for (uint32_t k = 0; k < nk; k++) {
    SimFlowClock *c = net->sx.tclk[k];
    if (c->sx.whole && c->x == x && c->n_g && c->sx.fb_same && c->sx.fb == fb) return c;
  }
  for (uint32_t k = 0; k < *nn; k++)
    if (net->sx.tnew[k]->x == x && net->sx.tnew[k]->sx.fb == fb) return net->sx.tnew[k];
  SimFlowClock *c = sim_flow__clock_new(net, x);
  c->sx.fb = fb;
  c->sx.fb_same = true;
  net->sx.tnew[(*nn)++] = c;
  return c;
}

/* Commits the new rates of the component's groups: clocks moving whole
 * re-anchor once; other changed groups move to a clock of their new rate;
 * whole clocks that end at the same rate merge (the smaller into the
 * larger).  Then the clocks' next completion times. */
static void commit_rates(SimFlowNet *net, const SimFlowComp *cs, uint32_t nk, sim_time_ns now)
{
  for (uint32_t k = 0; k < nk; k++) {
    SimFlowClock *c = net->sx.tclk[k];
    double dx = c->sx.x_new - c->x;
    if (!c->sx.whole || dx == 0) continue;
    sim_flow__clock_reanchor(c, now);
    net->rate_sum += (double)c->n_flows * dx;
    c->x = c->sx.x_new;
  }
  uint32_t nn = 0;
  for (uint32_t i = 0; i < cs->nc; i++) {
    SimFlowGroup *g = net->sx.comp[i];
    g->sx.grown = false;
    g->fresh = false;
    if (g->ck->sx.whole || g->sx.x_new == group_x(g)) continue;
    net->rate_sum += (double)g->n * (g->sx.x_new - group_x(g));
    double Vg = group_V(g, now);
    SimFlowClock *old = g->ck;
    sim_flow__clock_remove_group(net, old, g);
    SimFlowClock *t = clock_target(net, nk, &nn, g->sx.x_new, g->sx.froze_by);
    sim_flow__clock_add_group(net, t, g, clock_V(t, now) - Vg);
  }
  merge_clocks(net, net->sx.tclk, nk, true);
  for (uint32_t k = 0; k < nk + nn; k++) {
    SimFlowClock *c = k < nk ? net->sx.tclk[k] : net->sx.tnew[k - nk];
    c->fresh = false;
    if (c->n_g == 0)
      sim_flow__clock_release(net, c);
    else
      sim_flow__clock_update_next(net, c);
  }
}

/* The group-level solve: re-solves the rates affected by the changes since
 * the last solve, at now, group by group. */
static void solve_groups(SimFlowNet *net)
{
  bump_epoch(net);
  net->sx.cr_unsat = 0;
  sim_time_ns now = now_ns(net);
  SimFlowComp cs = { 0 };
  for (uint32_t i = 0; i < net->n_seeds; i++) {
    net->seeds[i]->seeded = false;
    add_cr(net, &cs, net->seeds[i]);
  }
  cs.lvl0 = restart_level(net, false);
  for (uint32_t i = 0; i < net->n_changed; i++) {
    SimFlowGroup *g = net->changed[i];
    g->changed = false;
    g->joined = false;
    if (g->n > 0) {
      add_group(net, &cs, g);
      g->sx.grown = true; /* its flows changed its loads: check them */
    }
  }
  net->n_seeds = net->n_changed = 0;
  net->lvl0 = INFINITY;
  close_component(net, &cs);

  uint32_t nt, nk;
  for (;;) {
    /* A group with no resource of the component and no cap would be
         * unbounded: it gets the resource that bounds it alone. */
    bool grown = false;
    uint32_t nu = cs.nu;
    cs.nu = 0;
    for (uint32_t i = 0; i < nu; i++) {
      SimFlowGroup *g = net->sx.unb[i];
      bool has = false;
      for (uint32_t k = 0; k < g->n_uses && !has; k++) has = g->uses[k].res->sx.mark == net->sx.epoch;
      if (has) continue;
      uint32_t best = 0;
      for (uint32_t k = 1; k < g->n_uses; k++)
        if (g->key[k].res->capacity / g->key[k].w < g->key[best].res->capacity / g->key[best].w) best = k;
      add_cr(net, &cs, g->key[best].res);
      grown = true;
    }
    if (grown) {
      close_component(net, &cs);
      continue;
    }
    fill(net, &cs);
    nk = classify(net, &cs);
    /* Loads of the other resources the component uses, after the change:
         * by clock weights for clocks that move whole, by group otherwise. */
    sim_flow__bump_tepoch(net);
    nt = 0;
    for (uint32_t k = 0; k < nk; k++) {
      SimFlowClock *c = net->sx.tclk[k];
      double dx = c->sx.x_new - c->x;
      if (!c->sx.whole || (dx == 0 && !c->sx.grown)) continue;
      for (uint32_t j = c->n_sat; j < c->n_res; j++) {
        SimFlowResource *r = c->res[j].res;
        if (r->sx.mark == net->sx.epoch || r->bounded) continue; /* saturated ones are in the component */
        if (r->sx.tmark != net->sx.tepoch) {
          r->sx.tmark = net->sx.tepoch;
          r->sx.tmp_load = r->load;
          net->sx.touched[nt++] = r;
        }
        r->sx.tmp_load += c->res[j].A * dx;
      }
    }
    for (uint32_t i = 0; i < cs.nc; i++) {
      SimFlowGroup *g = net->sx.comp[i];
      double dx = g->sx.x_new - group_x(g);
      if (g->ck->sx.whole || (dx == 0 && !g->sx.grown)) continue;
      for (uint32_t k = g->n_sat; k < g->n_uses; k++) { /* saturated ones are in the component */
        SimFlowResource *r = g->uses[k].res;
        if (r->sx.mark == net->sx.epoch || r->bounded) continue;
        if (r->sx.tmark != net->sx.tepoch) {
          r->sx.tmark = net->sx.tepoch;
          r->sx.tmp_load = r->load;
          net->sx.touched[nt++] = r;
        }
        r->sx.tmp_load += (double)g->n * g->uses[k].w * dx;
      }
    }
    for (uint32_t q = 0; q < nt; q++) {
      SimFlowResource *r = net->sx.touched[q];
      if (!(r->sx.tmp_load > r->capacity * (1 + OVER_REL_TOL))) continue;
      /* The load is an upper bound: check exactly. */
      double L = 0;
      for (uint32_t u = 0; u < r->n_users; u++) {
        const SimFlowGroup *g = r->users[u].g;
        L += (double)g->n * r->users[u].w * (g->sx.mark == net->sx.epoch ? g->sx.x_new : group_x(g));
      }
      r->sx.tmp_load = L;
      if (L > r->capacity * (1 + OVER_REL_TOL)) {
        add_cr(net, &cs, r);
        grown = true;
      }
    }
    if (!grown) break;
    close_component(net, &cs);
  }

  commit_loads(net, &cs, nt);
  commit_rates(net, &cs, nk, now);
}

/* Re-solves the rates affected by the changes since the last solve, at now:
 * by clocks when no capped group is active and no group is left without a
 * resource of the component, otherwise group by group. */
void sim_flow__solve(SimFlowNet *net)
{
  if (!dirty(net)) return;
  net->n_recomputes++;
  /* Work the bounds out again once the groups settle (not per new group). */
  if (net->bounds_dirty && ++net->dirty_solves > net->groups->len / 16) sim_flow__cover_bounds(net);
  if (net->n_capped > 0 || !solve_clocks(net)) solve_groups(net);
  for (uint32_t q = 0; q < net->n_chk; q++) net->chk[q]->chk = false;
  net->n_chk = 0;
  if (++net->solves_since_resum >= RESUM_EVERY) resum(net);
  sim_flow__purge_idle_groups(net);
  net->must_solve = false;
}
