/* sim/flow.c — max-min fair sharing of bandwidth resources among flows.
 *
 * Model and equations: see sim/flow.h.  Implementation notes:
 *
 * - Groups.  Flows with the same (resource, cost) vector (after merging
 *   duplicates and dropping zero costs) and the same cap get the same rate in
 *   the max-min allocation, so they are solved as one group with a
 *   multiplicity n_g: the group adds n_g w_{g,r} to the weight of each of its
 *   resources, resource r saturates when sum_g n_g w_{g,r} x_g = C_r.  Groups
 *   are found by content (a hash of the vector and cap), so grouping needs
 *   nothing from the caller.  An emptied group stays idle in the hash for
 *   reuse (purged when idle groups pile up).
 * - Clocks and virtual time.  Groups that move at the same byte rate x
 *   share a clock: V_c(t) = V_s + x (t - t_s), the bytes each of their flows
 *   delivered since the clock's origin, re-anchored (t_s = now) only when x
 *   changes.  A group keeps an offset (V_g = V_c - off_g); a flow started at
 *   V_g0 with S bytes has the finish tag F = V_g0 + S and remaining bytes
 *   F - V_g(t).  The members of a group sit in a min-heap by
 *   F - FINISH_REL_EPS S, the groups of a clock in a min-heap by their
 *   first member's key + off, and the clocks in a min-heap by next
 *   completion.  So a rate change of a clock costs one re-anchor and one
 *   completion time whatever its number of groups and flows.  A clock also
 *   keeps, per resource its groups use that is not bounded (below),
 *   A = sum n_g w_{g,r}: the load it puts there is A x.  On the 800G
 *   appliance
 *   the ~24 groups a solve re-rates sit in ~5 clocks.
 * - Local re-solve.  A resource that saturated in the last solve is marked
 *   `sat`.  Changes (a group's multiplicity, a group emptied, a capacity)
 *   are re-solved on the component reachable from the changed groups through
 *   SATURATED resources only; unsaturated resources are left out of the
 *   filling (as if infinite).  The result is then checked: every unsaturated
 *   resource the component's groups use must stay within its capacity; those
 *   that would not join the component and the filling is redone, until none
 *   does.  The outcome is the max-min allocation of the whole net: every group
 *   of the component has its bottleneck (a saturated resource of the
 *   component on which no user is faster, or its cap), and every group
 *   outside keeps its own (a saturated resource all of whose users are
 *   outside), which characterises the unique max-min allocation.  On an
 *   appliance, where every request shares DRAM and CPU (unsaturated) but is
 *   limited by its NIC port or drive, the component is a port's or drive's
 *   groups instead of the whole box.  A group whose resources are all
 *   unsaturated and that has no cap first gets the resource that bounds it
 *   alone.
 * - Restart level.  Max-min is monotone in the levels of progressive
 *   filling: below the level at which a change first matters, the filling
 *   goes exactly as the last one did.  A flow leaving group g matters no
 *   lower than x_g (its resources only lose load); flows joining g no lower
 *   than x_g, its cap, and the level at which one of g's resources, with
 *   every user at min(its old rate, level), first reaches its capacity
 *   (level_bound: Newton from below on a concave piecewise-linear sum); a
 *   capacity change at 0.  A solve fills from the lowest such level L0:
 *   groups slower than L0 keep their rates, count as fixed loads on the
 *   component's resources, and the closure does not go through them.  On
 *   the appliance this halves the re-solved groups (~46 to ~24 on 800G, of
 *   which ~21 do change rate).
 * - Solving by clocks.  Without capped groups the progressive filling
 *   runs over clocks (solve_clocks): a clock's weight on a resource is its
 *   A; when a resource saturates, a clock all of whose groups use it
 *   freezes whole, one only some of whose groups use it first splits (they
 *   move to a new clock at the same rate and anchor).  The component is
 *   closed over whole clocks (any closed set holding the changes gives the
 *   max-min allocation).  Clocks frozen on the same resource at the same
 *   rate merge (the smaller into the larger).  With capped groups the same
 *   filling runs group by group (solve_groups); a clock whose groups all get
 *   the same new rate is still moved whole, the other groups move to a
 *   clock of their new rate.
 * - Saturated resources first.  Each active group keeps the uses of its
 *   saturated resources at the front of its use array (n_sat of them), each
 *   clock the same for its resources, moved when a resource's flag flips:
 *   the closure, the freezing and the overload check skip the ~13
 *   unsaturated resources of an appliance clock.
 *   The key the group is hashed by keeps the order of the first start.
 * - Loads.  Loads of saturated resources are re-summed by each solve; those
 *   of the others are kept as upper bounds: rises are added, falls are not
 *   (a solve checks only the resources of clocks that speed up, and those
 *   whose bound new flows took above capacity, exactly when the bound does
 *   not fit).  Exact loads (sim_flow_resource_load) are summed over the
 *   clocks using the resource.  Every load, cap load, clock weight and the
 *   net's byte rate are re-summed exactly every RESUM_EVERY solves.
 * - Fast path: a resource whose users all have caps that fit in its capacity
 *   (sum w x cap <= C) can never saturate; a flow all of whose resources are
 *   such runs at its cap and starts and ends without a solve.
 * - Statistics are integrated lazily: resource units as w x bytes of the
 *   flows that left, plus w (n_g V_g - sum of V_g at their starts) of each
 *   active group using the resource (res_units: a start or end adds one
 *   term, a rate change or clock move nothing), busy area as units /
 *   capacity between capacity changes, flow area up to the last change of
 *   the resource's flow count (or a query), the net at every change.  A
 *   completed flow counts its size (the residue and the part of an
 *   interval it spends past its last byte, as it completes at the ceil'd
 *   ns, included), so units served equal sum of w x bytes exactly.
 * - Scratch arrays grow by doubling and are kept: no allocation per solve.
 */
#include "sim/flow.h"

#include <string.h>

/* Remaining bytes at which a flow counts as done at once, relative to size. */
#define DONE_REL_EPS 1e-9
/* Completion time targets remaining = this x size (absorbs float drift). */
#define FINISH_REL_EPS 1e-12
/* A resource is "safe" when every user has a cap and the caps fit with this
 * relative margin: it can never saturate. */
#define SAFE_REL_MARGIN 1e-9
/* The restart level of a solve is lowered by this relative margin (below
 * it rates are kept as they are). */
#define RESTART_REL_MARGIN 1e-12
/* Resources whose level is within this relative margin of the minimum
 * saturate in the same round. */
#define LEVEL_REL_TOL 1e-12
/* An unsaturated resource left out of a local solve counts as overloaded
 * (and joins the solve) above this relative margin. */
#define OVER_REL_TOL 1e-10
#define FLOW_BLOCK   64
/* Solves between exact re-sums of the incrementally kept sums. */
#define RESUM_EVERY 256
/* A group's virtual time is rebased to 0 beyond this many bytes. */
#define REBASE_BYTES 1e12
/* Idle groups kept for reuse before a purge (and at least 4 x active). */
#define IDLE_GROUPS_MAX 4096

G_DEFINE_QUARK(sim - flow - error - quark, sim_flow_error)

typedef struct flow_group flow_group;

typedef struct flow_clock flow_clock;

typedef struct {
  SimFlowResource *res;
  double w;     /* units per byte, > 0 */
  uint32_t pos; /* index in res->users while the group is active */
} group_use;

typedef struct {
  flow_group *g;
  double w;     /* copy of g->uses[use].w */
  uint32_t use; /* index in g->uses */
} res_user;

enum { FLOW_FREE, FLOW_ACTIVE, FLOW_DONE_PENDING, FLOW_IN_CALLBACK, FLOW_CANCELLED };

struct SimFlow {
  flow_group *g; /* NULL for a zero-size flow */
  double tag;    /* finish tag: V_g at start + size */
  double key;    /* tag - FINISH_REL_EPS x size: member heap key */
  double size;
  uint32_t hpos; /* index in g->mem (or net->imm) */
  uint32_t state;
  uint64_t seq;
  sim_time_ns start_ns;
  double alone_s;
  SimFlowNet *net;
  sim_flow_done_fn done;
  void *ctx;
  SimFlow *next_free;
};

struct flow_group {
  /* key: key[] in the order of the first start, never reordered */
  uint32_t n_uses;
  group_use *key;
  double rate_cap_Bps;
  guint hash;
  /* state */
  uint32_t n;    /* active flows */
  SimFlow **mem; /* min-heap by (key, seq) */
  uint32_t mem_alloc, uses_alloc;
  group_use *uses; /* key[] reordered: saturated resources first */
  uint32_t n_sat;  /* uses[0..n_sat) are those with res->sat */
  uint32_t n_trk;  /* uses[0..n_trk) are not bounded (its clock tracks them) */
  double x;        /* byte rate of each flow (= its clock's) */
  flow_clock *ck;  /* its clock while active */
  double off;      /* V_g = V_clock - off */
  double vs_sum;   /* sum over its flows of tag - size (V_g at their start) */
  double hkey;     /* mem[0]->key + off: key in the clock's heap */
  uint32_t ckpos;  /* index in ck->gh */
  uint64_t id;     /* activation order */
  bool changed;    /* in net->changed */
  bool joined;     /* flows joined since the last solve */
  bool fresh;      /* activated, rate not solved yet (x = 0) */
  bool grown;      /* changed, being solved */
  bool pinned;     /* a SimFlowPath refers to it: never purged */
  /* solve scratch */
  bool frozen;
  uint32_t mark;
  double x_new;
  SimFlowResource *froze_by; /* the resource it froze on (NULL: its cap) */
};

/* A clock: groups that move at the same byte rate share one virtual time,
 * so a rate change of all of them is one re-anchor, one completion time and
 * one load update per resource they use, whatever their number. */
typedef struct {
  SimFlowResource *res;
  double A;      /* sum over member groups using it of n w */
  uint32_t cnt;  /* member groups using it */
  uint32_t upos; /* index in res->cusers */
} clock_res;

typedef struct {
  flow_clock *c;
  uint32_t idx; /* the resource's entry in c->res */
} res_cuser;

struct flow_clock {
  double x;   /* byte rate of every flow of its groups */
  double V_s; /* clock virtual time at t_s */
  sim_time_ns t_s;
  sim_time_ns next_ns; /* next completion of its flows */
  uint32_t hidx;       /* in net->cheap */
  uint64_t id;         /* creation order */
  flow_group **gh;     /* member groups, min-heap by (hkey, id) */
  uint32_t n_g, gh_alloc;
  clock_res *res; /* resources its members use, with weights; */
  uint32_t n_res, res_alloc;
  uint32_t n_sat; /* res[0..n_sat) are those with res->sat */
  uint32_t *slot; /* by resource index: 1 + index in res[], 0 if none */
  uint32_t n_slot;
  uint32_t n_flows; /* flows of its members */
  /* solve scratch */
  uint32_t mark, nsame;
  bool uniform, whole, grown, fb_same, frozen;
  bool fresh; /* holds one group not solved yet */
  bool moved; /* rate or groups changed since its next time was set */
  double x_new;
  SimFlowResource *fb; /* resource its groups froze on, when fb_same */
  flow_clock *next_free;
};

struct SimFlowResource {
  char *name;
  uint32_t idx; /* in net->resources */
  double capacity;
  res_user *users; /* active groups using it */
  uint32_t n_users, users_alloc;
  res_cuser *cusers; /* clocks using it */
  uint32_t n_cusers, cusers_alloc;
  uint32_t n_flows;    /* active flows using it */
  uint32_t n_uncapped; /* of which without a cap */
  double load;         /* sum n w x, units/s */
  double load_at_caps; /* sum n w cap over capped users, units/s */
  bool sat;            /* saturated in the solve that last set it */
  bool seeded;         /* in net->seeds */
  bool chk;            /* in net->chk */
  bool bounded;        /* its load can never exceed its capacity (cover_bounds) */
  /* solve scratch */
  bool sat_new;
  uint32_t mark, tmark, n_unfrozen;
  double frozen_load, W, lvl, tmp_load;
  double W0, F0;   /* set by the closure: weight of its users in */
  uint32_t n_comp; /* the component, fixed load of the others */
  /* statistics: flows_area integrated up to t_st; st.units holds the
     * units of flows that left (and minus those active flows had served at
     * the last reset), res_units adds the active ones'; busy area up to the
     * last capacity change, when units were units_cc */
  sim_time_ns t_st;
  double units_cc;
  SimFlowStats st;
};

struct SimFlowPath {
  flow_group *g;
  double alone_rate; /* min(cap, C_r / w_r) at capacity epoch capacity_epoch */
  uint64_t capacity_epoch;
};

struct SimFlowNet {
  SimEngine *eng;
  GPtrArray *paths;        /* owns every SimFlowPath */
  uint64_t capacity_epoch; /* capacity changes so far */
  SimEvent ev;
  bool in_handler;
  GPtrArray *resources; /* owns SimFlowResource */
  GHashTable *by_key;   /* flow_group -> itself, active and idle */
  GPtrArray *groups;    /* owns every flow_group */
  uint32_t n_active_groups;
  GPtrArray *clocks; /* owns every flow_clock */
  flow_clock *free_clocks;
  flow_clock **cheap; /* clocks in use by (next_ns, id) */
  uint32_t n_cheap, cheap_alloc;
  flow_clock **tclk, **tnew; /* solve scratch (cheap_alloc) */
  uint64_t next_cid;
  uint32_t cepoch;
  flow_group **capped; /* active capped groups with resources, by (cap, id) */
  uint32_t n_capped, groups_alloc;
  SimFlow **imm; /* zero-size flows, completing now */
  uint32_t n_imm, imm_alloc;
  SimFlow **batch;
  uint32_t batch_alloc;
  SimFlow *free_list;
  GPtrArray *blocks; /* owns blocks of FLOW_BLOCK flows */
  uint32_t n_flows;
  uint64_t next_seq, next_gid;
  sim_time_ns t_last; /* net statistics valid here */
  sim_time_ns stats_start;
  double rate_sum; /* bytes/s of all flows */
  /* changes since the last solve */
  flow_group **changed;
  uint32_t n_changed;
  SimFlowResource **seeds;
  SimFlowResource **chk; /* loads above capacity after starts: check in the solve */
  uint32_t n_chk;
  uint32_t n_seeds;
  /* scratch: groups (groups_alloc) and resources (res_scratch_alloc) */
  flow_group **comp, **unb;
  SimFlowResource **cr, **touched, **live;
  uint32_t res_scratch_alloc;
  group_use *key_uses; /* merged uses of the flow being started */
  uint32_t key_uses_alloc;
  uint32_t epoch, tepoch;
  uint32_t cr_unsat; /* unsaturated resources in the component */
  double lvl0;       /* pending: no rate below this level changes */
  uint64_t n_recomputes;
  uint64_t n_fast; /* changes that needed no solve */
  uint32_t solves_since_resum;
  bool bounds_dirty;     /* groups or capacities changed since cover_bounds */
  uint32_t dirty_solves; /* solves since bounds_dirty was set */
  SimFlowStats st;
};

static void on_event(SimEngine *eng, SimEvent *ev, void *ctx);

/* ---- small helpers ------------------------------------------------------ */

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

static inline sim_time_ns now_ns(const SimFlowNet *net)
{
  return sim_engine_now(net->eng);
}

/* A safe resource never saturates: flows through it are limited by their
 * caps or elsewhere, and a flow whose resources are all safe runs at its
 * cap and affects no other flow's rate (fast path: no solve). */
static inline bool safe(const SimFlowResource *r)
{
  return r->n_uncapped == 0 && r->load_at_caps <= r->capacity * (1 - SAFE_REL_MARGIN);
}

/* ---- statistics ---------------------------------------------------------- */

/* Integrates @r's flow area up to now (before its number of flows changes). */
static inline void res_sync(SimFlowNet *net, SimFlowResource *r)
{
  sim_time_ns now = now_ns(net);
  if (now <= r->t_st) return;
  double dt = (double)(now - r->t_st) / 1e9;
  r->st.flows_area_s += (double)r->n_flows * dt;
  r->t_st = now;
}

/* Integrates the net's statistics up to now (before its rate or flows change). */
static inline void net_sync(SimFlowNet *net)
{
  sim_time_ns now = now_ns(net);
  if (now <= net->t_last) return;
  double dt = (double)(now - net->t_last) / 1e9;
  net->st.flows_area_s += (double)net->n_flows * dt;
  net->st.units += net->rate_sum * dt;
  net->t_last = now;
}

/* ---- groups: virtual time, member heap, completion times ---------------- */

static inline double clock_V(const flow_clock *c, sim_time_ns t)
{
  return c->V_s + c->x * ((double)(t - c->t_s) * 1e-9);
}

/* Bytes each flow of @g has delivered since the group's origin, at @t. */
static inline double group_V(const flow_group *g, sim_time_ns t)
{
  return clock_V(g->ck, t) - g->off;
}

/* Sift-up and sift-down of an indexed binary min-heap of pointers to T ordered by LESS,
 * each element keeping its index in its field POS: the heaps of a group's flows, of a
 * clock's groups and of the clocks. */
#define FLOW_HEAP(NAME, T, LESS, POS)                    \
  static void NAME##_up(T **h, uint32_t i)               \
  {                                                      \
    T *x = h[i];                                         \
    while (i > 0) {                                      \
      uint32_t p = (i - 1) / 2;                          \
      if (!LESS(x, h[p])) break;                         \
      h[i] = h[p];                                       \
      h[i]->POS = i;                                     \
      i = p;                                             \
    }                                                    \
    h[i] = x;                                            \
    x->POS = i;                                          \
  }                                                      \
  static void NAME##_down(T **h, uint32_t n, uint32_t i) \
  {                                                      \
    T *x = h[i];                                         \
    for (;;) {                                           \
      uint32_t k = 2 * i + 1;                            \
      if (k >= n) break;                                 \
      if (k + 1 < n && LESS(h[k + 1], h[k])) k++;        \
      if (!LESS(h[k], x)) break;                         \
      h[i] = h[k];                                       \
      h[i]->POS = i;                                     \
      i = k;                                             \
    }                                                    \
    h[i] = x;                                            \
    x->POS = i;                                          \
  }

static inline bool mem_less(const SimFlow *a, const SimFlow *b)
{
  return a->key < b->key || (a->key == b->key && a->seq < b->seq);
}

FLOW_HEAP(mem, SimFlow, mem_less, hpos)

static void mem_push(flow_group *g, SimFlow *f)
{
  if (g->n == g->mem_alloc) {
    g->mem_alloc = g->mem_alloc ? g->mem_alloc * 2 : 4;
    g->mem = g_renew(SimFlow *, g->mem, g->mem_alloc);
  }
  g->mem[g->n++] = f;
  mem_up(g->mem, g->n - 1);
}

static void mem_remove(flow_group *g, SimFlow *f)
{
  uint32_t i = f->hpos;
  g_assert(i < g->n && g->mem[i] == f);
  SimFlow *last = g->mem[--g->n];
  if (i == g->n) return;
  g->mem[i] = last;
  last->hpos = i;
  if (i > 0 && mem_less(last, g->mem[(i - 1) / 2]))
    mem_up(g->mem, i);
  else
    mem_down(g->mem, g->n, i);
}

/* Completion time of member @f of @g from its clock's anchor: the first ns
 * at which remaining <= FINISH_REL_EPS x size, at least 1 ns after the
 * anchor, or the anchor itself when remaining <= DONE_REL_EPS x size. */
static sim_time_ns finish_of(const flow_group *g, const SimFlow *f)
{
  const flow_clock *c = g->ck;
  double rem = (f->tag + g->off) - c->V_s;
  if (rem <= DONE_REL_EPS * f->size) return c->t_s;
  if (c->x <= 0) return SIM_TIME_NEVER;
  double x = ceil((rem - FINISH_REL_EPS * f->size) / c->x * 1e9);
  if (x < 1) x = 1;
  if (x >= (double)(SIM_TIME_NEVER - c->t_s)) return SIM_TIME_NEVER;
  return c->t_s + (sim_time_ns)x;
}

/* ---- the clocks' heaps: member groups by next flow, clocks by next time -- */

static inline bool cg_less(const flow_group *a, const flow_group *b)
{
  return a->hkey < b->hkey || (a->hkey == b->hkey && a->id < b->id);
}

FLOW_HEAP(cg, flow_group, cg_less, ckpos)

static void cg_fix(flow_clock *c, uint32_t i)
{
  if (i > 0 && cg_less(c->gh[i], c->gh[(i - 1) / 2]))
    cg_up(c->gh, i);
  else
    cg_down(c->gh, c->n_g, i);
}

static inline bool ch_less(const flow_clock *a, const flow_clock *b)
{
  return a->next_ns < b->next_ns || (a->next_ns == b->next_ns && a->id < b->id);
}

FLOW_HEAP(ch, flow_clock, ch_less, hidx)

static void ch_fix(SimFlowNet *net, flow_clock *c)
{
  uint32_t i = c->hidx;
  if (i > 0 && ch_less(c, net->cheap[(i - 1) / 2]))
    ch_up(net->cheap, i);
  else
    ch_down(net->cheap, net->n_cheap, i);
}

/* Recomputes @c's next completion (its first group's first flow) and its
 * place in the heap of clocks. */
static void clock_update_next(SimFlowNet *net, flow_clock *c)
{
  sim_time_ns t = SIM_TIME_NEVER;
  if (c->n_g && c->gh[0]->n) t = finish_of(c->gh[0], c->gh[0]->mem[0]);
  if (t != c->next_ns) {
    c->next_ns = t;
    ch_fix(net, c);
  }
}

/* After @g's first flow changed (a flow joined or left): its key in its
 * clock and, when it is or was the clock's first, the clock's next time. */
static void group_top_changed(SimFlowNet *net, flow_group *g)
{
  flow_clock *c = g->ck;
  bool was_top = c->gh[0] == g;
  double hk = g->n ? g->mem[0]->key + g->off : INFINITY;
  if (hk != g->hkey) {
    g->hkey = hk;
    cg_fix(c, g->ckpos);
  }
  if (was_top || c->gh[0] == g) clock_update_next(net, c);
}

/* Rebases @c and its groups to virtual time 0 (keeps floats precise). */
static void clock_rebase(flow_clock *c)
{
  for (uint32_t j = 0; j < c->n_g; j++) {
    flow_group *g = c->gh[j];
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
  for (uint32_t j = c->n_g / 2; j-- > 0;) cg_down(c->gh, c->n_g, j);
}

/* Moves the anchor of @c to now at its current rate; rebases V when large. */
static void clock_reanchor(flow_clock *c, sim_time_ns now)
{
  c->V_s = clock_V(c, now);
  c->t_s = now;
  if (c->V_s > REBASE_BYTES) clock_rebase(c);
}

/* A new empty clock at rate @x, anchored at now, in the heap of clocks. */
static flow_clock *clock_new(SimFlowNet *net, double x)
{
  flow_clock *c = net->free_clocks;
  if (c) {
    net->free_clocks = c->next_free;
  } else {
    c = g_new0(flow_clock, 1);
    g_ptr_array_add(net->clocks, c);
    if (net->clocks->len > net->cheap_alloc) {
      net->cheap_alloc = net->cheap_alloc ? 2 * net->cheap_alloc : 64;
      net->cheap = g_renew(flow_clock *, net->cheap, net->cheap_alloc);
      net->tclk = g_renew(flow_clock *, net->tclk, net->cheap_alloc);
      net->tnew = g_renew(flow_clock *, net->tnew, net->cheap_alloc);
    }
  }
  c->next_free = NULL;
  c->id = net->next_cid++;
  c->x = x;
  c->V_s = 0;
  c->t_s = now_ns(net);
  c->next_ns = SIM_TIME_NEVER;
  c->n_g = c->n_res = c->n_flows = c->n_sat = 0;
  c->mark = 0;
  c->fresh = false;
  net->cheap[net->n_cheap] = c;
  c->hidx = net->n_cheap++;
  ch_up(net->cheap, c->hidx);
  return c;
}

/* An emptied clock leaves the heap and goes back to the free list. */
static void clock_release(SimFlowNet *net, flow_clock *c)
{
  g_assert(c->n_g == 0);
  uint32_t i = c->hidx;
  g_assert(i < net->n_cheap && net->cheap[i] == c);
  flow_clock *last = net->cheap[--net->n_cheap];
  if (i != net->n_cheap) {
    net->cheap[i] = last;
    last->hidx = i;
    ch_fix(net, last);
  }
  c->next_free = net->free_clocks;
  net->free_clocks = c;
}

/* Swaps entries a and b of @c's resources, keeping the back-references. */
static inline void clock_swap_res(flow_clock *c, uint32_t a, uint32_t b)
{
  if (a == b) return;
  clock_res t = c->res[a];
  c->res[a] = c->res[b];
  c->res[b] = t;
  c->slot[c->res[a].res->idx] = a + 1;
  c->slot[c->res[b].res->idx] = b + 1;
  c->res[a].res->cusers[c->res[a].upos].idx = a;
  c->res[b].res->cusers[c->res[b].upos].idx = b;
}

/* The entry of @r in @c's resources, created (A = 0, cnt = 0) if missing. */
static clock_res *clock_entry_get(SimFlowNet *net, flow_clock *c, SimFlowResource *r)
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
      c->res = g_renew(clock_res, c->res, c->res_alloc);
    }
    if (r->n_cusers == r->cusers_alloc) {
      r->cusers_alloc = r->cusers_alloc ? 2 * r->cusers_alloc : 8;
      r->cusers = g_renew(res_cuser, r->cusers, r->cusers_alloc);
    }
    r->cusers[r->n_cusers] = (res_cuser){ .c = c, .idx = c->n_res };
    c->res[c->n_res++] = (clock_res){ .res = r, .A = 0, .cnt = 0, .upos = r->n_cusers++ };
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
static void clock_entry_drop(flow_clock *c, uint32_t j)
{
  SimFlowResource *r = c->res[j].res;
  if (j < c->n_sat) {
    clock_swap_res(c, j, --c->n_sat);
    j = c->n_sat;
  }
  clock_res *e = &c->res[j];
  uint32_t up = e->upos;
  res_cuser lu = r->cusers[--r->n_cusers];
  if (up != r->n_cusers) {
    r->cusers[up] = lu;
    lu.c->res[lu.idx].upos = up;
  }
  c->slot[r->idx] = 0;
  if (j != --c->n_res) {
    c->res[j] = c->res[c->n_res];
    c->slot[c->res[j].res->idx] = j + 1;
    c->res[j].res->cusers[c->res[j].upos].idx = j;
  }
}

/* @g joins @c with offset @off (its virtual time is V_c - off): its key,
 * its weights on @c's resources.  The caller updates @c's next time. */
static void clock_add_group(SimFlowNet *net, flow_clock *c, flow_group *g, double off)
{
  g->ck = c;
  g->off = off;
  c->moved = true;
  g->hkey = g->n ? g->mem[0]->key + g->off : INFINITY;
  if (c->n_g == c->gh_alloc) {
    c->gh_alloc = c->gh_alloc ? 2 * c->gh_alloc : 8;
    c->gh = g_renew(flow_group *, c->gh, c->gh_alloc);
  }
  c->gh[c->n_g] = g;
  g->ckpos = c->n_g++;
  cg_up(c->gh, g->ckpos);
  c->n_flows += g->n;
  double n = (double)g->n;
  for (uint32_t k = 0; k < g->n_trk; k++) {
    clock_res *e = clock_entry_get(net, c, g->uses[k].res);
    e->cnt++;
    e->A += n * g->uses[k].w;
  }
}

/* The units @r served since the last reset: those of flows that left,
 * and w (n V_g - sum of V_g at start) of each active group using it. */
static double res_units(const SimFlowNet *net, const SimFlowResource *r)
{
  sim_time_ns now = now_ns(net);
  double units = r->st.units;
  for (uint32_t u = 0; u < r->n_users; u++) {
    const flow_group *g = r->users[u].g;
    units += r->users[u].w * ((double)g->n * group_V(g, now) - g->vs_sum);
  }
  return units;
}

/* The exact load of @r (units/s) at the clocks' current rates (by group
 * for a bounded one, which no clock tracks); r->load is exact for
 * saturated resources and an upper bound for the others. */
static double res_load(const SimFlowResource *r)
{
  double L = 0;
  if (r->bounded) {
    for (uint32_t u = 0; u < r->n_users; u++) {
      const flow_group *g = r->users[u].g;
      L += (double)g->n * r->users[u].w * g->x;
    }
    return L;
  }
  for (uint32_t u = 0; u < r->n_cusers; u++) {
    const flow_clock *c = r->cusers[u].c;
    L += c->res[r->cusers[u].idx].A * c->x;
  }
  return L;
}

/* The entry of @r in @c's resources (@c has a member using @r). */
static inline clock_res *clock_entry(flow_clock *c, const SimFlowResource *r)
{
  return &c->res[c->slot[r->idx] - 1];
}

/* @g leaves its clock (which the caller releases when emptied). */
static void clock_remove_group(SimFlowNet *net, flow_clock *c, flow_group *g)
{
  uint32_t i = g->ckpos;
  g_assert(i < c->n_g && c->gh[i] == g);
  flow_group *last = c->gh[--c->n_g];
  if (i != c->n_g) {
    c->gh[i] = last;
    last->ckpos = i;
    cg_fix(c, i);
  }
  c->n_flows -= g->n;
  c->moved = true;
  double n = (double)g->n;
  for (uint32_t k = 0; k < g->n_trk; k++) {
    SimFlowResource *r = g->uses[k].res;
    uint32_t j = c->slot[r->idx] - 1;
    clock_res *e = &c->res[j];
    if (--e->cnt > 0)
      e->A -= n * g->uses[k].w;
    else
      clock_entry_drop(c, j);
  }
  g->ck = NULL;
}

/* Moves @g (rate already set) from its clock to @c, keeping its virtual time. */
static void group_move(SimFlowNet *net, flow_group *g, flow_clock *c)
{
  sim_time_ns now = now_ns(net);
  double Vg = group_V(g, now);
  clock_remove_group(net, g->ck, g);
  clock_add_group(net, c, g, clock_V(c, now) - Vg);
}

/* The next completion, never before now. */
static sim_time_ns net_next(const SimFlowNet *net)
{
  sim_time_ns now = now_ns(net);
  if (net->n_imm) return now;
  sim_time_ns t = net->n_cheap ? net->cheap[0]->next_ns : SIM_TIME_NEVER;
  return t < now ? now : t;
}

/* ---- capped groups, sorted by (cap, id) --------------------------------- */

static inline bool capped_less(const flow_group *a, const flow_group *b)
{
  return a->rate_cap_Bps < b->rate_cap_Bps || (a->rate_cap_Bps == b->rate_cap_Bps && a->id < b->id);
}

static uint32_t capped_lower_bound(const SimFlowNet *net, const flow_group *g)
{
  uint32_t lo = 0, hi = net->n_capped;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (capped_less(net->capped[mid], g))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static void capped_insert(SimFlowNet *net, flow_group *g)
{
  uint32_t i = capped_lower_bound(net, g);
  memmove(&net->capped[i + 1], &net->capped[i], (net->n_capped - i) * sizeof *net->capped);
  net->capped[i] = g;
  net->n_capped++;
}

static void capped_remove(SimFlowNet *net, flow_group *g)
{
  uint32_t i = capped_lower_bound(net, g);
  g_assert(i < net->n_capped && net->capped[i] == g);
  memmove(&net->capped[i], &net->capped[i + 1], (net->n_capped - i - 1) * sizeof *net->capped);
  net->n_capped--;
}

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

static double res_load(const SimFlowResource *r);
static void retrack(SimFlowNet *net);

/* Clears every resource's bounded flag until the next cover_bounds
 * (a group was created or a capacity changed).  The solves did not keep
 * the load bounds of bounded resources: they are summed again. */
static void bounds_invalidate(SimFlowNet *net)
{
  bool any = false;
  for (guint i = 0; i < net->resources->len; i++) {
    SimFlowResource *r = g_ptr_array_index(net->resources, i);
    if (r->bounded) {
      r->load = res_load(r);
      any = true;
    }
    r->bounded = false;
  }
  if (any) retrack(net);
  net->bounds_dirty = true;
  net->dirty_solves = 0;
}

/* Works out the bounded flag of every resource from the known groups. */
static void cover_bounds(SimFlowNet *net)
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
    const flow_group *g = g_ptr_array_index(net->groups, i);
    for (uint32_t k = 0; k < g->n_uses; k++) nusers[g->key[k].res->idx + 1]++;
  }
  for (guint r = 0; r < nr; r++) nusers[r + 1] += nusers[r];
  g_autofree uint32_t *fill_at = g_memdup2(nusers, nr * sizeof *nusers);
  g_autofree const flow_group **users = g_new(const flow_group *, nusers[nr] ? nusers[nr] : 1);
  g_autofree double *wr = g_new(double, nusers[nr] ? nusers[nr] : 1);
  for (guint i = 0; i < ng; i++) {
    const flow_group *g = g_ptr_array_index(net->groups, i);
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
          const flow_group *g = users[u];
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
          const flow_group *g = users[u];
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
  if (any) retrack(net);
}

/* ---- group lookup, activation ------------------------------------------- */

static guint key_hash(const group_use *u, uint32_t n, double rate_cap_Bps)
{
  uint64_t h = 1469598103934665603u;
  uint64_t bits;
  for (uint32_t k = 0; k < n; k++) {
    h = (h ^ (uint64_t)(uintptr_t)u[k].res) * 1099511628211u;
    memcpy(&bits, &u[k].w, sizeof bits);
    h = (h ^ bits) * 1099511628211u;
  }
  memcpy(&bits, &rate_cap_Bps, sizeof bits);
  h = (h ^ bits) * 1099511628211u;
  return (guint)(h ^ (h >> 32));
}

static guint group_hash(gconstpointer p)
{
  return ((const flow_group *)p)->hash;
}

static gboolean group_equal(gconstpointer pa, gconstpointer pb)
{
  const flow_group *a = pa, *b = pb;
  if (a->n_uses != b->n_uses || !(a->rate_cap_Bps == b->rate_cap_Bps)) return FALSE;
  for (uint32_t k = 0; k < a->n_uses; k++)
    if (a->key[k].res != b->key[k].res || !(a->key[k].w == b->key[k].w)) return FALSE;
  return TRUE;
}

static void group_free(gpointer p)
{
  flow_group *g = p;
  g_free(g->uses);
  g_free(g->key);
  g_free(g->mem);
  g_free(g);
}

static void grow_group_arrays(SimFlowNet *net, uint32_t need)
{
  if (need <= net->groups_alloc) return;
  uint32_t alloc = net->groups_alloc ? net->groups_alloc : 64;
  while (alloc < need) alloc *= 2;
  net->capped = g_renew(flow_group *, net->capped, alloc);
  net->comp = g_renew(flow_group *, net->comp, alloc);
  net->unb = g_renew(flow_group *, net->unb, alloc);
  net->changed = g_renew(flow_group *, net->changed, alloc);
  net->groups_alloc = alloc;
}

/* The group of the @n merged uses in net->key_uses and @rate_cap_Bps (created idle). */
static flow_group *group_get(SimFlowNet *net, uint32_t n, double rate_cap_Bps)
{
  flow_group probe = { .n_uses = n, .key = net->key_uses, .rate_cap_Bps = rate_cap_Bps };
  probe.hash = key_hash(net->key_uses, n, rate_cap_Bps);
  flow_group *g = g_hash_table_lookup(net->by_key, &probe);
  if (g) return g;
  g = g_new0(flow_group, 1);
  g->n_uses = g->uses_alloc = n;
  g->key = g_memdup2(net->key_uses, n * sizeof *g->key);
  g->uses = g_memdup2(net->key_uses, n * sizeof *g->uses);
  g->rate_cap_Bps = rate_cap_Bps;
  g->hash = probe.hash;
  g_hash_table_add(net->by_key, g);
  g_ptr_array_add(net->groups, g);
  grow_group_arrays(net, net->groups->len);
  bounds_invalidate(net);
  return g;
}

/* An idle group becomes active: joins its resources' users and the heaps. */
static void group_activate(SimFlowNet *net, flow_group *g)
{
  g->id = net->next_gid++;
  g->x = g->n_uses == 0 ? g->rate_cap_Bps : 0;
  g->fresh = true;
  /* Saturated resources first, bounded ones last (stable, from the key
     * order). */
  uint32_t ns = 0, nt = 0;
  for (uint32_t k = 0; k < g->n_uses; k++) {
    ns += g->key[k].res->sat;
    nt += !g->key[k].res->bounded;
  }
  g->n_sat = ns;
  g->n_trk = nt;
  for (uint32_t k = 0, a = 0, b = ns, d = nt; k < g->n_uses; k++) {
    const SimFlowResource *r = g->key[k].res;
    g->uses[r->sat ? a++ : !r->bounded ? b++ : d++] = g->key[k];
  }
  for (uint32_t k = 0; k < g->n_uses; k++) {
    SimFlowResource *r = g->uses[k].res;
    if (r->n_users == r->users_alloc) {
      r->users_alloc = r->users_alloc ? r->users_alloc * 2 : 8;
      r->users = g_renew(res_user, r->users, r->users_alloc);
    }
    g->uses[k].pos = r->n_users;
    r->users[r->n_users++] = (res_user){ .g = g, .w = g->uses[k].w, .use = k };
  }
  net->n_active_groups++;
  /* Its own clock, at virtual time 0, until a solve gives it a rate. */
  flow_clock *c = clock_new(net, g->x);
  c->fresh = true;
  clock_add_group(net, c, g, 0); /* V_g = 0 */
  if (g->rate_cap_Bps < INFINITY && g->n_uses > 0) capped_insert(net, g);
}

/* An emptied group leaves its resources and the heaps; it stays idle in
 * the hash.  Its saturated resources are re-solved unless @quiet. */
static void group_deactivate(SimFlowNet *net, flow_group *g, bool quiet)
{
  for (uint32_t k = 0; k < g->n_uses; k++) {
    SimFlowResource *r = g->uses[k].res;
    uint32_t pos = g->uses[k].pos;
    res_user last = r->users[--r->n_users];
    if (pos != r->n_users) {
      r->users[pos] = last;
      last.g->uses[last.use].pos = pos;
    }
    if (!quiet && r->sat && !r->seeded) {
      r->seeded = true;
      net->seeds[net->n_seeds++] = r;
    }
  }
  flow_clock *c = g->ck;
  clock_remove_group(net, c, g);
  if (c->n_g == 0)
    clock_release(net, c);
  else
    clock_update_next(net, c);
  net->n_active_groups--;
  if (g->rate_cap_Bps < INFINITY && g->n_uses > 0) capped_remove(net, g);
  g->x = 0;
}

/* Frees idle groups when too many pile up (flows with ever new vectors). */
static void purge_idle_groups(SimFlowNet *net)
{
  uint32_t idle = net->groups->len - net->n_active_groups;
  if (idle <= IDLE_GROUPS_MAX || idle <= 4 * net->n_active_groups) return;
  guint keep = 0;
  for (guint i = 0; i < net->groups->len; i++) {
    flow_group *g = g_ptr_array_index(net->groups, i);
    if (g->n == 0 && !g->changed && !g->pinned) {
      g_hash_table_remove(net->by_key, g);
      group_free(g);
    } else {
      net->groups->pdata[keep++] = g;
    }
  }
  g_ptr_array_set_size(net->groups, keep);
}

static inline void mark_changed(SimFlowNet *net, flow_group *g)
{
  if (!g->changed) {
    g->changed = true;
    net->changed[net->n_changed++] = g;
  }
}

static inline bool dirty(const SimFlowNet *net)
{
  return net->n_changed || net->n_seeds;
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
  if (dirty(net)) {
    request_solve(net);
    return;
  }
  sim_time_ns next = net_next(net);
  if (next == SIM_TIME_NEVER)
    sim_engine_cancel(net->eng, &net->ev);
  else if (!sim_event_pending(&net->ev) || net->ev.time != next)
    sim_engine_reschedule(net->eng, &net->ev, next);
}

/* ---- solving ------------------------------------------------------------ */

static void bump_epoch(SimFlowNet *net)
{
  if (++net->epoch != 0) return;
  for (guint i = 0; i < net->resources->len; i++) ((SimFlowResource *)g_ptr_array_index(net->resources, i))->mark = 0;
  for (guint i = 0; i < net->groups->len; i++) ((flow_group *)g_ptr_array_index(net->groups, i))->mark = 0;
  net->epoch = 1;
}

static void bump_tepoch(SimFlowNet *net)
{
  if (++net->tepoch != 0) return;
  for (guint i = 0; i < net->resources->len; i++) ((SimFlowResource *)g_ptr_array_index(net->resources, i))->tmark = 0;
  net->tepoch = 1;
}

typedef struct {
  uint32_t nc, ncr, qg, qr, nu;
  double lvl0; /* groups slower than this keep their rates */
} comp_state;

static inline void add_cr(SimFlowNet *net, comp_state *cs, SimFlowResource *r)
{
  if (r->mark != net->epoch) {
    r->mark = net->epoch;
    net->cr[cs->ncr++] = r;
    net->cr_unsat += !r->sat;
  }
}

static inline void add_group(SimFlowNet *net, comp_state *cs, flow_group *g)
{
  if (g->mark != net->epoch) {
    g->mark = net->epoch;
    net->comp[cs->nc++] = g;
  }
}

/* Closes the component: every user of a component resource, every
 * saturated resource of a component group. */
static void close_component(SimFlowNet *net, comp_state *cs)
{
  while (cs->qr < cs->ncr || cs->qg < cs->nc) {
    while (cs->qr < cs->ncr) {
      /* Its users in the component (weight W0) and the fixed load
             * F0 of the others, slower than the restart level. */
      SimFlowResource *r = net->cr[cs->qr++];
      double W = 0, F = 0;
      uint32_t nu = 0;
      for (uint32_t u = 0; u < r->n_users; u++) {
        flow_group *g = r->users[u].g;
        double nw = (double)g->n * r->users[u].w;
        if (g->mark == net->epoch || g->x >= cs->lvl0) {
          add_group(net, cs, g);
          W += nw;
          nu++;
        } else {
          F += nw * g->x;
        }
      }
      r->W0 = W;
      r->F0 = F;
      r->n_comp = nu;
    }
    while (cs->qg < cs->nc) {
      flow_group *g = net->comp[cs->qg++];
      for (uint32_t k = 0; k < g->n_sat; k++) add_cr(net, cs, g->uses[k].res);
      if (g->n_sat == 0 && !(g->rate_cap_Bps < INFINITY)) {
        bool has = false;
        for (uint32_t k = 0; k < g->n_uses && !has; k++) has = g->uses[k].res->mark == net->epoch;
        if (!has) net->unb[cs->nu++] = g; /* no resource of the component yet */
      }
    }
  }
}

/* Freezes @g at @rate on the component's resources: its saturated ones
 * (all in the component) and, only when the component holds unsaturated
 * resources, those of its others that are in it. */
static void freeze(SimFlowNet *net, flow_group *g, double rate)
{
  g->frozen = true;
  g->x_new = rate;
  double n = (double)g->n;
  uint32_t end = net->cr_unsat ? g->n_uses : g->n_sat;
  for (uint32_t k = 0; k < end; k++) {
    SimFlowResource *r = g->uses[k].res;
    if (r->mark != net->epoch) continue;
    r->frozen_load += n * g->uses[k].w * rate;
    r->W -= n * g->uses[k].w;
    if (--r->n_unfrozen == 0) r->W = 0;
  }
}

/* Progressive filling of the component's groups on its resources alone. */
static void fill(SimFlowNet *net, const comp_state *cs)
{
  const uint32_t e = net->epoch;
  SimFlowResource **live = net->live;
  uint32_t nl = 0;
  for (uint32_t q = 0; q < cs->ncr; q++) {
    SimFlowResource *r = net->cr[q];
    r->W = r->W0;
    r->frozen_load = r->F0; /* users below the restart level keep their rates */
    r->n_unfrozen = r->n_comp;
    r->sat_new = false;
    if (r->n_comp) live[nl++] = r;
  }
  for (uint32_t i = 0; i < cs->nc; i++) net->comp[i]->frozen = false;
  uint32_t unfrozen = cs->nc, ci = 0;
  while (unfrozen > 0) {
    double lmin = INFINITY;
    uint32_t keep = 0;
    for (uint32_t q = 0; q < nl; q++) {
      SimFlowResource *r = live[q];
      if (!r->n_unfrozen) continue;
      r->lvl = (r->capacity - r->frozen_load) / r->W;
      if (r->lvl < lmin) lmin = r->lvl;
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
      flow_group *g = net->capped[ci];
      if (g->mark != e || g->frozen) continue;
      if (!(g->rate_cap_Bps <= thr)) break;
      freeze(net, g, g->rate_cap_Bps < lmin ? g->rate_cap_Bps : lmin);
      g->froze_by = NULL;
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
      if (!r->n_unfrozen || !(r->lvl <= thr)) continue;
      r->sat_new = true;
      for (uint32_t u = 0; u < r->n_users; u++) {
        flow_group *g = r->users[u].g;
        if (g->mark == e && !g->frozen) {
          freeze(net, g, lmin);
          g->froze_by = r;
          unfrozen--;
        }
      }
    }
  }
}

/* Swaps uses a and b of @g, keeping its resources' back-references. */
static inline void use_swap(flow_group *g, uint32_t a, uint32_t b)
{
  if (a == b) return;
  group_use t = g->uses[a];
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
    flow_group *g = r->users[u].g;
    if (sat)
      use_swap(g, r->users[u].use, g->n_sat++);
    else
      use_swap(g, r->users[u].use, --g->n_sat);
  }
  for (uint32_t u = 0; u < r->n_cusers; u++) {
    flow_clock *c = r->cusers[u].c;
    if (sat)
      clock_swap_res(c, r->cusers[u].idx, c->n_sat++);
    else
      clock_swap_res(c, r->cusers[u].idx, --c->n_sat);
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
      const flow_group *g = r->users[u].g;
      L += (double)g->n * r->users[u].w * g->x;
      if (g->rate_cap_Bps < INFINITY) CL += (double)g->n * r->users[u].w * g->rate_cap_Bps;
    }
    r->load = L;
    r->load_at_caps = CL;
  }
  for (uint32_t i = 0; i < net->n_cheap; i++) {
    flow_clock *c = net->cheap[i];
    rate += (double)c->n_flows * c->x;
    for (uint32_t j = 0; j < c->n_res; j++) c->res[j].A = 0;
    for (uint32_t j = 0; j < c->n_g; j++) {
      const flow_group *g = c->gh[j];
      for (uint32_t k = 0; k < g->n_trk; k++) clock_entry(c, g->uses[k].res)->A += (double)g->n * g->uses[k].w;
    }
  }
  net_sync(net);
  net->rate_sum = rate;
  net->solves_since_resum = 0;
}

/* Rate of user @g below the restart level: its current one, or its cap
 * for a group not solved yet (it rises with the level up to there). */
static inline double old_rate(const flow_group *g)
{
  return g->fresh ? g->rate_cap_Bps : g->x;
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
    const flow_group *g = r->users[u].g;
    double nw = (double)g->n * r->users[u].w, x = old_rate(g);
    W += nw;
    F += nw * (x < upper ? x : upper);
  }
  if (F <= C) return upper;
  double l = C / W; /* F(l) <= W l = C */
  for (int it = 0; it < 16; it++) {
    double Fl = 0, S = 0;
    for (uint32_t u = 0; u < r->n_users; u++) {
      const flow_group *g = r->users[u].g;
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
    const flow_clock *c = r->cusers[u].c;
    double nw = c->res[r->cusers[u].idx].A, x = c->fresh ? INFINITY : c->x;
    W += nw;
    F += nw * (x < upper ? x : upper);
  }
  if (F <= C) return upper;
  double l = C / W; /* F(l) <= W l = C */
  for (int it = 0; it < 16; it++) {
    double Fl = 0, S = 0;
    for (uint32_t u = 0; u < r->n_cusers; u++) {
      const flow_clock *c = r->cusers[u].c;
      double nw = c->res[r->cusers[u].idx].A, x = c->fresh ? INFINITY : c->x;
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
    const flow_group *g = net->changed[i];
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
 * net->touched). */
static void commit_loads(SimFlowNet *net, const comp_state *cs, uint32_t nt)
{
  for (uint32_t q = 0; q < nt; q++) {
    SimFlowResource *r = net->touched[q];
    r->load = r->tmp_load > 0 ? r->tmp_load : 0;
  }
  for (uint32_t q = 0; q < cs->ncr; q++) {
    SimFlowResource *r = net->cr[q];
    r->load = r->frozen_load;
    if (r->sat != r->sat_new) set_sat(r, r->sat_new);
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

static inline void add_clock(SimFlowNet *net, comp_state *cs, flow_clock *c)
{
  if (c->mark != net->cepoch) {
    c->mark = net->cepoch;
    net->tclk[cs->nc++] = c;
  }
}

/* Closes the clock component (net->tclk[0..nc)); sets each resource's
 * weight of component clocks (W0), their number (n_comp) and the fixed
 * load of the others (F0). */
static void close_clocks(SimFlowNet *net, comp_state *cs)
{
  while (cs->qr < cs->ncr || cs->qg < cs->nc) {
    while (cs->qr < cs->ncr) {
      SimFlowResource *r = net->cr[cs->qr++];
      double W = 0, F = 0;
      uint32_t nu = 0;
      for (uint32_t u = 0; u < r->n_cusers; u++) {
        flow_clock *c = r->cusers[u].c;
        double A = c->res[r->cusers[u].idx].A;
        if (c->mark == net->cepoch || c->x >= cs->lvl0) {
          add_clock(net, cs, c);
          W += A;
          nu++;
        } else {
          F += A * c->x;
        }
      }
      r->W0 = W;
      r->F0 = F;
      r->n_comp = nu;
    }
    while (cs->qg < cs->nc) {
      flow_clock *c = net->tclk[cs->qg++];
      for (uint32_t j = 0; j < c->n_sat; j++) add_cr(net, cs, c->res[j].res);
    }
  }
}

/* Freezes clock @c at @rate (saturated @by) on the component's resources. */
static void freeze_clock(SimFlowNet *net, flow_clock *c, double rate, SimFlowResource *by)
{
  c->frozen = true;
  c->x_new = rate;
  c->fb = by;
  uint32_t end = net->cr_unsat ? c->n_res : c->n_sat; /* saturated ones are all in it */
  for (uint32_t j = 0; j < end; j++) {
    SimFlowResource *r = c->res[j].res;
    if (r->mark != net->epoch) continue;
    r->frozen_load += c->res[j].A * rate;
    r->W -= c->res[j].A;
    if (--r->n_unfrozen == 0) r->W = 0;
  }
}

static inline bool group_uses(const flow_group *g, const SimFlowResource *r)
{
  for (uint32_t k = 0; k < g->n_trk; k++) /* @r is not bounded */
    if (g->uses[k].res == r) return true;
  return false;
}

/* Moves the groups of component clock @c that use @r to a new component
 * clock at the same rate and anchor (their virtual times unchanged) and
 * returns it, unfrozen, counted on the component's resources. */
static flow_clock *clock_split(SimFlowNet *net, comp_state *cs, flow_clock *c, const SimFlowResource *r)
{
  flow_clock *d = clock_new(net, c->x);
  d->V_s = c->V_s;
  d->t_s = c->t_s;
  uint32_t m = 0;
  for (uint32_t j = 0; j < c->n_g; j++)
    if (group_uses(c->gh[j], r)) net->unb[m++] = c->gh[j];
  for (uint32_t i = 0; i < m; i++) {
    flow_group *g = net->unb[i];
    clock_remove_group(net, c, g);
    clock_add_group(net, d, g, g->off);
  }
  clock_update_next(net, c);
  add_clock(net, cs, d);
  d->frozen = false;
  /* A resource both use now counts one more clock of the component (for
     * this filling and any redone after the component grows). */
  for (uint32_t j = 0; j < d->n_res; j++) {
    SimFlowResource *q = d->res[j].res;
    if (q->mark == net->epoch && c->slot[q->idx]) {
      q->n_unfrozen++;
      q->n_comp++;
    }
  }
  return d;
}

/* Progressive filling of the component's clocks; false if some clock is
 * left without a resource of the component (the group-level solve then
 * gives its groups the resource that bounds them). */
static bool fill_clocks(SimFlowNet *net, comp_state *cs)
{
  SimFlowResource **live = net->live;
  uint32_t nl = 0;
  for (uint32_t q = 0; q < cs->ncr; q++) {
    SimFlowResource *r = net->cr[q];
    r->W = r->W0;
    r->frozen_load = r->F0;
    r->n_unfrozen = r->n_comp;
    r->sat_new = false;
    if (r->n_comp) live[nl++] = r;
  }
  for (uint32_t i = 0; i < cs->nc; i++) net->tclk[i]->frozen = false;
  uint32_t unfrozen = cs->nc;
  while (unfrozen > 0) {
    double lmin = INFINITY;
    uint32_t keep = 0;
    for (uint32_t q = 0; q < nl; q++) {
      SimFlowResource *r = live[q];
      if (!r->n_unfrozen) continue;
      r->lvl = (r->capacity - r->frozen_load) / r->W;
      if (r->lvl < lmin) lmin = r->lvl;
      live[keep++] = r;
    }
    nl = keep;
    if (!(lmin < INFINITY)) return false;
    if (lmin < 0) lmin = 0;
    double thr = lmin * (1 + LEVEL_REL_TOL);
    for (uint32_t q = 0; q < nl; q++) {
      SimFlowResource *r = live[q];
      if (!r->n_unfrozen || !(r->lvl <= thr)) continue;
      r->sat_new = true;
      for (uint32_t u = 0; u < r->n_cusers; u++) {
        flow_clock *c = r->cusers[u].c;
        if (c->mark != net->cepoch || c->frozen) continue;
        if (c->res[r->cusers[u].idx].cnt == c->n_g) {
          freeze_clock(net, c, lmin, r);
          unfrozen--;
        } else {
          /* c leaves r's clocks (the last one takes its place,
                     * look at it again) and the new clock joins them. */
          freeze_clock(net, clock_split(net, cs, c, r), lmin, r);
          u--;
        }
      }
    }
  }
  return true;
}

/* Commits the clocks' new rates: one re-anchor per clock whose rate
 * changed; clocks frozen on the same resource at the same rate merge (the
 * smaller into the larger); then their next completion times. */
static void commit_clocks(SimFlowNet *net, const comp_state *cs, sim_time_ns now)
{
  for (uint32_t k = 0; k < cs->nc; k++) {
    flow_clock *c = net->tclk[k];
    double dx = c->x_new - c->x;
    if (dx != 0) {
      clock_reanchor(c, now);
      net->rate_sum += (double)c->n_flows * dx;
      c->x = c->x_new;
      c->moved = true;
      for (uint32_t j = 0; j < c->n_g; j++) c->gh[j]->x = c->x;
    }
    if (c->fresh) c->gh[0]->fresh = false;
  }
  if (cs->nc <= 64) {
    for (uint32_t k = 1; k < cs->nc; k++) {
      flow_clock *a = net->tclk[k];
      if (!a->n_g || !a->fb) continue;
      for (uint32_t k2 = 0; k2 < k; k2++) {
        flow_clock *b = net->tclk[k2];
        if (!b->n_g || b->fb != a->fb || b->x != a->x) continue;
        flow_clock *from = a->n_g < b->n_g ? a : b, *to = from == a ? b : a;
        while (from->n_g) group_move(net, from->gh[from->n_g - 1], to);
        break;
      }
    }
  }
  for (uint32_t k = 0; k < cs->nc; k++) {
    flow_clock *c = net->tclk[k];
    c->fb_same = true; /* the group-level solve may merge it with others of the same fb */
    c->fresh = false;
    if (c->n_g == 0) {
      clock_release(net, c);
    } else if (c->moved) { /* its rate or groups changed */
      clock_update_next(net, c);
      c->moved = false;
    }
  }
}

/* A component clock with no resource in the component (its groups use no
 * saturated one) would rise without bound: it gets the resource used by
 * all its groups that bounds it alone (least capacity per unit of its
 * weight).  Returns the number of resources added, -1 if a clock has no
 * such resource (the group-level solve then bounds each group). */
static int bound_clocks(SimFlowNet *net, comp_state *cs)
{
  int added = 0;
  for (uint32_t k = 0; k < cs->nc; k++) {
    flow_clock *c = net->tclk[k];
    if (c->n_sat > 0) continue; /* its saturated resources are in the component */
    bool has = false;
    for (uint32_t j = 0; j < c->n_res && !has; j++) has = c->res[j].res->mark == net->epoch;
    if (has) continue;
    int best = -1;
    for (uint32_t j = 0; j < c->n_res; j++) {
      const clock_res *e = &c->res[j];
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
  if (++net->cepoch == 0) {
    for (guint i = 0; i < net->clocks->len; i++) ((flow_clock *)g_ptr_array_index(net->clocks, i))->mark = 0;
    net->cepoch = 1;
  }
  net->cr_unsat = 0;
  sim_time_ns now = now_ns(net);
  comp_state cs = { 0 };
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
    bump_tepoch(net);
    nt = 0;
    /* Their loads are kept as upper bounds: a clock slowing down only
         * lowers them, so only the rises are checked, and the resources
         * whose bound new flows took above their capacity (net->chk),
         * exactly when the bound does not fit. */
    for (uint32_t k = 0; k < cs.nc; k++) {
      flow_clock *c = net->tclk[k];
      double dx = c->x_new - c->x;
      if (!(dx > 0)) continue;
      /* saturated ones are in the component, bounded ones untracked */
      for (uint32_t j = c->n_sat; j < c->n_res; j++) {
        SimFlowResource *r = c->res[j].res;
        if (r->mark == net->epoch) continue;
        if (r->tmark != net->tepoch) {
          r->tmark = net->tepoch;
          r->tmp_load = r->load;
          net->touched[nt++] = r;
        }
        r->tmp_load += c->res[j].A * dx;
      }
    }
    for (uint32_t q = 0; q < net->n_chk; q++) {
      SimFlowResource *r = net->chk[q];
      if (r->mark != net->epoch && r->tmark != net->tepoch) {
        r->tmark = net->tepoch;
        r->tmp_load = r->load;
        net->touched[nt++] = r;
      }
    }
    bool grown = false;
    for (uint32_t q = 0; q < nt; q++) {
      SimFlowResource *r = net->touched[q];
      if (!(r->tmp_load > r->capacity * (1 + OVER_REL_TOL))) continue;
      double L = 0;
      for (uint32_t u = 0; u < r->n_cusers; u++) {
        const flow_clock *c = r->cusers[u].c;
        L += c->res[r->cusers[u].idx].A * (c->mark == net->cepoch ? c->x_new : c->x);
      }
      r->tmp_load = L;
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
 * other changed groups change clock.  Returns the clocks, in net->tclk. */
static uint32_t classify(SimFlowNet *net, const comp_state *cs)
{
  if (++net->cepoch == 0) {
    for (guint i = 0; i < net->clocks->len; i++) ((flow_clock *)g_ptr_array_index(net->clocks, i))->mark = 0;
    net->cepoch = 1;
  }
  uint32_t nk = 0;
  for (uint32_t i = 0; i < cs->nc; i++) {
    flow_group *g = net->comp[i];
    flow_clock *c = g->ck;
    if (c->mark != net->cepoch) {
      c->mark = net->cepoch;
      c->x_new = g->x_new;
      c->nsame = 0;
      c->uniform = true;
      c->grown = false;
      c->fb = g->froze_by;
      c->fb_same = true;
      net->tclk[nk++] = c;
    }
    if (g->x_new == c->x_new)
      c->nsame++;
    else
      c->uniform = false;
    if (g->froze_by != c->fb) c->fb_same = false;
    c->grown = c->grown || g->grown;
  }
  for (uint32_t k = 0; k < nk; k++) {
    flow_clock *c = net->tclk[k];
    c->whole = c->uniform && c->nsame == c->n_g;
  }
  return nk;
}

/* The clock a group changing to rate @x joins: a clock of this solve that
 * ends at @x with all its groups, or a new one. */
static flow_clock *clock_target(SimFlowNet *net, uint32_t nk, uint32_t *nn, double x, SimFlowResource *fb)
{
  for (uint32_t k = 0; k < nk; k++) {
    flow_clock *c = net->tclk[k];
    if (c->whole && c->x == x && c->n_g && c->fb_same && c->fb == fb) return c;
  }
  for (uint32_t k = 0; k < *nn; k++)
    if (net->tnew[k]->x == x && net->tnew[k]->fb == fb) return net->tnew[k];
  flow_clock *c = clock_new(net, x);
  c->fb = fb;
  c->fb_same = true;
  net->tnew[(*nn)++] = c;
  return c;
}

/* Commits the new rates of the component's groups: clocks moving whole
 * re-anchor once; other changed groups move to a clock of their new rate;
 * whole clocks that end at the same rate merge (the smaller into the
 * larger).  Then the clocks' next completion times. */
static void commit_rates(SimFlowNet *net, const comp_state *cs, uint32_t nk, sim_time_ns now)
{
  for (uint32_t k = 0; k < nk; k++) {
    flow_clock *c = net->tclk[k];
    double dx = c->x_new - c->x;
    if (!c->whole || dx == 0) continue;
    clock_reanchor(c, now);
    net->rate_sum += (double)c->n_flows * dx;
    c->x = c->x_new;
    for (uint32_t j = 0; j < c->n_g; j++) c->gh[j]->x = c->x;
  }
  uint32_t nn = 0;
  for (uint32_t i = 0; i < cs->nc; i++) {
    flow_group *g = net->comp[i];
    g->grown = false;
    g->fresh = false;
    if (g->ck->whole || g->x_new == g->x) continue;
    net->rate_sum += (double)g->n * (g->x_new - g->x);
    double Vg = group_V(g, now);
    flow_clock *old = g->ck;
    clock_remove_group(net, old, g);
    g->x = g->x_new;
    flow_clock *t = clock_target(net, nk, &nn, g->x, g->froze_by);
    clock_add_group(net, t, g, clock_V(t, now) - Vg);
  }
  if (nk <= 64) {
    for (uint32_t k = 1; k < nk; k++) {
      flow_clock *a = net->tclk[k];
      if (!a->whole || !a->n_g) continue;
      for (uint32_t k2 = 0; k2 < k; k2++) {
        flow_clock *b = net->tclk[k2];
        if (!b->whole || !b->n_g || b->x != a->x || !a->fb_same || !b->fb_same || a->fb != b->fb || !a->fb) continue;
        flow_clock *from = a->n_g < b->n_g ? a : b, *to = from == a ? b : a;
        while (from->n_g) group_move(net, from->gh[from->n_g - 1], to);
        break;
      }
    }
  }
  for (uint32_t k = 0; k < nk + nn; k++) {
    flow_clock *c = k < nk ? net->tclk[k] : net->tnew[k - nk];
    c->fresh = false;
    if (c->n_g == 0)
      clock_release(net, c);
    else
      clock_update_next(net, c);
  }
}

/* The group-level solve: re-solves the rates affected by the changes since
 * the last solve, at now, group by group. */
static void solve_groups(SimFlowNet *net)
{
  bump_epoch(net);
  net->cr_unsat = 0;
  sim_time_ns now = now_ns(net);
  comp_state cs = { 0 };
  for (uint32_t i = 0; i < net->n_seeds; i++) {
    net->seeds[i]->seeded = false;
    add_cr(net, &cs, net->seeds[i]);
  }
  cs.lvl0 = restart_level(net, false);
  for (uint32_t i = 0; i < net->n_changed; i++) {
    flow_group *g = net->changed[i];
    g->changed = false;
    g->joined = false;
    if (g->n > 0) {
      add_group(net, &cs, g);
      g->grown = true; /* its flows changed its loads: check them */
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
      flow_group *g = net->unb[i];
      bool has = false;
      for (uint32_t k = 0; k < g->n_uses && !has; k++) has = g->uses[k].res->mark == net->epoch;
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
    bump_tepoch(net);
    nt = 0;
    for (uint32_t k = 0; k < nk; k++) {
      flow_clock *c = net->tclk[k];
      double dx = c->x_new - c->x;
      if (!c->whole || (dx == 0 && !c->grown)) continue;
      for (uint32_t j = c->n_sat; j < c->n_res; j++) {
        SimFlowResource *r = c->res[j].res;
        if (r->mark == net->epoch || r->bounded) continue; /* saturated ones are in the component */
        if (r->tmark != net->tepoch) {
          r->tmark = net->tepoch;
          r->tmp_load = r->load;
          net->touched[nt++] = r;
        }
        r->tmp_load += c->res[j].A * dx;
      }
    }
    for (uint32_t i = 0; i < cs.nc; i++) {
      flow_group *g = net->comp[i];
      double dx = g->x_new - g->x;
      if (g->ck->whole || (dx == 0 && !g->grown)) continue;
      for (uint32_t k = g->n_sat; k < g->n_uses; k++) { /* saturated ones are in the component */
        SimFlowResource *r = g->uses[k].res;
        if (r->mark == net->epoch || r->bounded) continue;
        if (r->tmark != net->tepoch) {
          r->tmark = net->tepoch;
          r->tmp_load = r->load;
          net->touched[nt++] = r;
        }
        r->tmp_load += (double)g->n * g->uses[k].w * dx;
      }
    }
    for (uint32_t q = 0; q < nt; q++) {
      SimFlowResource *r = net->touched[q];
      if (!(r->tmp_load > r->capacity * (1 + OVER_REL_TOL))) continue;
      /* The load is an upper bound: check exactly. */
      double L = 0;
      for (uint32_t u = 0; u < r->n_users; u++) {
        const flow_group *g = r->users[u].g;
        L += (double)g->n * r->users[u].w * (g->mark == net->epoch ? g->x_new : g->x);
      }
      r->tmp_load = L;
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

/* After bounded flags changed: each active group's uses are ordered
 * saturated, not bounded, bounded again (stable), and each clock tracks
 * exactly the resources of its groups that are not bounded: entries of
 * resources that became bounded leave, those of resources no longer
 * bounded are summed from its groups. */
static void retrack(SimFlowNet *net)
{
  group_use *tmp = NULL;
  uint32_t tmp_alloc = 0;
  for (guint i = 0; i < net->groups->len; i++) {
    flow_group *g = g_ptr_array_index(net->groups, i);
    if (!g->ck) continue; /* idle: group_activate orders its uses */
    if (tmp_alloc < g->n_uses) {
      tmp_alloc = g->n_uses;
      tmp = g_renew(group_use, tmp, tmp_alloc);
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
    flow_clock *c = net->cheap[i];
    for (uint32_t j = c->n_res; j-- > 0;)
      if (c->res[j].res->bounded) clock_entry_drop(c, j);
    bump_tepoch(net); /* tmark: entries created here */
    for (uint32_t j = 0; j < c->n_g; j++) {
      const flow_group *g = c->gh[j];
      for (uint32_t k = 0; k < g->n_trk; k++) {
        SimFlowResource *r = g->uses[k].res;
        if (r->idx < c->n_slot && c->slot[r->idx] && r->tmark != net->tepoch) continue; /* tracked before */
        r->tmark = net->tepoch;
        clock_res *e = clock_entry_get(net, c, r);
        e->cnt++;
        e->A += (double)g->n * g->uses[k].w;
      }
    }
  }
}

/* Re-solves the rates affected by the changes since the last solve, at now:
 * by clocks when no capped group is active and no group is left without a
 * resource of the component, otherwise group by group. */
static void solve(SimFlowNet *net)
{
  if (!dirty(net)) return;
  net->n_recomputes++;
  /* Work the bounds out again once the groups settle (not per new group). */
  if (net->bounds_dirty && ++net->dirty_solves > net->groups->len / 16) cover_bounds(net);
  if (net->n_capped > 0 || !solve_clocks(net)) solve_groups(net);
  for (uint32_t q = 0; q < net->n_chk; q++) net->chk[q]->chk = false;
  net->n_chk = 0;
  if (++net->solves_since_resum >= RESUM_EVERY) resum(net);
  purge_idle_groups(net);
}

/* Brings everything up to date now; outside the handler also moves the
 * event to the next completion. */
static void flush(SimFlowNet *net)
{
  net_sync(net);
  if (!dirty(net)) return;
  solve(net);
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
  flow_group *g = f->g;
  flow_clock *c = g->ck;
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
    r->load -= w * g->x;
    if (g->rate_cap_Bps < INFINITY)
      r->load_at_caps -= w * g->rate_cap_Bps;
    else
      r->n_uncapped--;
    if (r->n_flows == 0) r->load = r->load_at_caps = 0; /* exact when empty */
    r->st.units += w * delivered;
    if (k < g->n_trk) clock_entry(c, r)->A -= w;
  }
  net_sync(net);
  net->rate_sum -= g->x;
  if (!all_safe && !g->fresh && g->x < net->lvl0) net->lvl0 = g->x; /* rates below its own cannot change */
  if (net->n_flows == 0 || net->n_flows == net->n_imm) net->rate_sum = 0;
  mem_remove(g, f);
  if (all_safe && g->n_uses > 0) net->n_fast++;
  if (g->n == 0) {
    g->vs_sum = 0; /* exact when empty */
    group_deactivate(net, g, all_safe);
  } else {
    if (!all_safe && g->n_uses > 0) mark_changed(net, g);
    group_top_changed(net, g);
  }
}

static void record_completion(SimFlowNet *net, SimFlow *f)
{
  sim_time_ns now = now_ns(net);
  const flow_group *g = f->g;
  if (g) {
    /* The residue of at most FINISH_REL_EPS x size, or (negative) the
         * bytes counted past the last one within the ceil'd ns (its
         * resources count its size when it is detached). */
    net_sync(net);
    double rem = f->tag - group_V(g, now);
    if (rem != 0) net->st.units += rem;
  }
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
  if (*nb == net->batch_alloc) {
    net->batch_alloc = net->batch_alloc ? net->batch_alloc * 2 : 64;
    net->batch = g_renew(SimFlow *, net->batch, net->batch_alloc);
  }
  net->batch[(*nb)++] = f;
}

static void on_event(SimEngine *eng, SimEvent *ev, void *ctx)
{
  SimFlowNet *net = ctx;
  sim_time_ns now = sim_engine_now(eng);
  net->in_handler = true;
  net_sync(net);
  for (;;) {
    solve(net);
    uint32_t nb = 0;
    while (net->n_imm) {
      SimFlow *f = net->imm[0];
      record_completion(net, f);
      detach(net, f, 0);
      f->state = FLOW_DONE_PENDING;
      batch_add(net, &nb, f);
    }
    while (net->n_cheap && net->cheap[0]->next_ns <= now) {
      flow_group *g = net->cheap[0]->gh[0];
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
    if (nb > 1) qsort(net->batch, nb, sizeof *net->batch, batch_cmp);
    /* Callbacks may start flows (never touching net->batch). */
    for (uint32_t i = 0; i < nb; i++) {
      SimFlow *f = net->batch[i];
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
  flow_clock *c = p;
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
  net->by_key = g_hash_table_new(group_hash, group_equal);
  net->clocks = g_ptr_array_new_with_free_func(clock_free);
  net->paths = g_ptr_array_new_with_free_func(g_free);
  net->t_last = net->stats_start = sim_engine_now(eng);
  net->lvl0 = INFINITY;
  grow_group_arrays(net, 1);
  return net;
}

void sim_flow_net_free(SimFlowNet *net)
{
  if (!net) return;
  sim_engine_cancel(net->eng, &net->ev);
  g_ptr_array_free(net->blocks, TRUE);
  g_hash_table_destroy(net->by_key);
  for (guint i = 0; i < net->groups->len; i++) group_free(g_ptr_array_index(net->groups, i));
  g_ptr_array_free(net->groups, TRUE);
  g_ptr_array_free(net->resources, TRUE);
  g_ptr_array_free(net->clocks, TRUE);
  g_ptr_array_free(net->paths, TRUE);
  g_free(net->cheap);
  g_free(net->tclk);
  g_free(net->tnew);
  g_free(net->capped);
  g_free(net->comp);
  g_free(net->unb);
  g_free(net->changed);
  g_free(net->imm);
  g_free(net->batch);
  g_free(net->seeds);
  g_free(net->chk);
  g_free(net->cr);
  g_free(net->touched);
  g_free(net->live);
  g_free(net->key_uses);
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
  if (net->resources->len > net->res_scratch_alloc) {
    uint32_t alloc = net->res_scratch_alloc ? net->res_scratch_alloc * 2 : 16;
    net->seeds = g_renew(SimFlowResource *, net->seeds, alloc);
    net->chk = g_renew(SimFlowResource *, net->chk, alloc);
    net->cr = g_renew(SimFlowResource *, net->cr, alloc);
    net->touched = g_renew(SimFlowResource *, net->touched, alloc);
    net->live = g_renew(SimFlowResource *, net->live, alloc);
    net->res_scratch_alloc = alloc;
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
  bounds_invalidate(net);
  net->lvl0 = 0; /* no restart level worked out for capacity changes */
  if (!res->seeded) {
    res->seeded = true;
    net->seeds[net->n_seeds++] = res;
  }
  request_solve(net);
}

const char *sim_flow_resource_name(const SimFlowResource *res)
{
  return res->name;
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
  return res_load(res);
}

double sim_flow_resource_utilisation(SimFlowNet *net, const SimFlowResource *res)
{
  flush(net);
  return res_load(res) / res->capacity;
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

/* Merges @uses into net->key_uses (duplicates added, zero costs dropped);
 * returns their number and the rate the flow would get alone. */
static uint32_t merge_uses(SimFlowNet *net, const SimFlowUse *uses, size_t n_uses, double rate_cap_Bps, double *alone_rate)
{
  if (net->key_uses_alloc < n_uses) {
    net->key_uses_alloc = (uint32_t)n_uses;
    net->key_uses = g_renew(group_use, net->key_uses, n_uses);
  }
  group_use *ku = net->key_uses;
  uint32_t nu = 0;
  for (size_t i = 0; i < n_uses; i++) {
    if (uses[i].units_per_byte == 0) continue;
    uint32_t k = 0;
    while (k < nu && ku[k].res != uses[i].res) k++;
    if (k == nu) ku[nu++] = (group_use){ .res = uses[i].res, .w = 0 };
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
static SimFlow *start_in(SimFlowNet *net, flow_group *g, double size_bytes, double alone_rate, sim_flow_done_fn done, void *ctx)
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
  if (was_idle) group_activate(net, g);
  f->g = g;
  f->tag = group_V(g, now) + size_bytes;
  f->key = f->tag - FINISH_REL_EPS * size_bytes;
  g->vs_sum += f->tag - size_bytes;
  mem_push(g, f);

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
  if (g->n_uses > 0 && all_safe && (was_idle || g->x == rate_cap_Bps)) {
    /* Fast path: none of its resources can saturate, it runs at its cap. */
    net->n_fast++;
    g->x = rate_cap_Bps;
    g->ck->x = rate_cap_Bps; /* its own clock, anchored now, when it was idle */
    g->ck->fresh = false;
    g->fresh = false;
  } else if (g->n_uses > 0) {
    mark_changed(net, g);
    g->joined = true;
  }
  /* It runs at its group's rate until the next solve. */
  flow_clock *c = g->ck;
  c->n_flows++;
  for (uint32_t k = 0; k < g->n_uses; k++) {
    SimFlowResource *r = g->uses[k].res;
    r->load += g->uses[k].w * g->x;
    if (r->load > r->capacity * (1 + OVER_REL_TOL) && !r->chk && !r->bounded) {
      r->chk = true;
      net->chk[net->n_chk++] = r;
    }
    if (k < g->n_trk) clock_entry(c, r)->A += g->uses[k].w;
  }
  net->rate_sum += g->x;
  group_top_changed(net, g);
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
  return start_in(net, size_bytes > 0 ? group_get(net, nu, rate_cap_Bps) : NULL, size_bytes, alone_rate, done, ctx);
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
  p->g = group_get(net, nu, rate_cap_Bps);
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
  flow_group *g = path->g;
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
  return flow->g->x;
}

double sim_flow_remaining_bytes(const SimFlow *flow)
{
  if (flow->state != FLOW_ACTIVE || !flow->g) return 0;
  double rem = flow->tag - group_V(flow->g, sim_engine_now(flow->net->eng));
  return rem > 0 ? rem : 0;
}

double sim_flow_size_bytes(const SimFlow *flow)
{
  return flow->size;
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
