/* sim/flow-private.h — the internals of the flow model, shared by sim/flow*.c.
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
 *   rate merge (the smaller into the larger; one linear pass, whatever the
 *   number of clocks: merge_clocks).  With capped groups the same
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
 *   ns, included), so units served equal sum of w x bytes exactly.  A
 *   net that keeps no per-flow statistics (sim_flow_net_keep_flow_stats,
 *   as the DES of sim/fluid.c) integrates no flow area and sums no
 *   completed flows: a start and an end then touch only loads and units.
 * - Scratch arrays grow by doubling and are kept: no allocation per solve.
 * - Rate precision (sim_flow_net_set_rate_precision, EPS > 0; 0, the
 *   default, takes none of this).  A start or end whose new load on each
 *   saturated resource of its flow stays within EPS x capacity of the
 *   capacity (and at most (1 + EPS) x capacity on the others: note_load)
 *   sets no must_solve: the change stays queued (changed groups, seeds,
 *   restart level) and the event goes to the next completion; the first
 *   change that moves a load further solves them all (solve_due).  Loads
 *   are kept through the deferred changes as they are between solves, so
 *   the test is exact.  (Re-solving only the flows that move by more than
 *   EPS was tried and dropped: bench/README.md, bench-precision.)
 *
 * Why two solvers.  solve_clocks fills by clocks and solve_groups by groups;
 * one solver would be solve_groups alone, giving back what the clock
 * filling bought (bench/README.md, "Clocks": 2.65 G -> 1.86 G instructions
 * on the 800G row; a rate change costs a re-anchor per clock, not per
 * group), or solve_clocks taking rate caps, which it cannot do as it stands: a clock
 * freezes whole at the level of a saturating resource, but rate-capped
 * groups of one clock freeze each at its own cap, so the clock would have
 * to split at every cap below the level, and a clock left with no
 * component resource that all its groups use (bound_clocks returns -1)
 * needs per-group bounds.  solve_clocks therefore runs only while no capped
 * group is active and gives up (having changed nothing but clock
 * membership) in that last case; solve_groups does the rest.  Merging them
 * would also change the order in which loads are summed (clock weights A
 * against per-group n w), hence the last digits of the rates (within the
 * tolerances of tests/figures.csv; the few byte-exact goldens would change).
 *
 * Words.  "Rate cap" (rate_cap_Bps, bytes/s) is a flow's own limit;
 * "capacity" (units/s) is a resource's; load_at_caps is the load a
 * resource would carry with every rate-capped user at its cap; *_alloc
 * are allocated lengths of arrays; capacity_epoch counts capacity changes.
 *
 * Scratch.  What a solve writes and no later solve reads is kept apart
 * from the state: the net's arrays and epochs in net->sx (SimFlowScratch),
 * and each resource's, group's and clock's own figures in its `sx` member
 * (valid only while its mark equals the current epoch).  Those stay in the
 * elements rather than in arrays of the net: groups have no dense index,
 * and the fillings read them next to the element's state (capacity,
 * users), so a side table would add a load per access in the hot loops.
 *
 * Files.  flow.c: the public API (net, resources, flows, statistics, the
 * completion event); flow-clock.c: clocks, their group heaps and resource
 * entries; flow-group.c: groups by content, activation, the rate-capped
 * list; flow-bounds.c: the bounded-resource proofs (cover_bounds, retrack);
 * flow-solve.c: closure, fillings, restart level, commits (the two
 * solvers).  Functions shared between them are prefixed sim_flow__ and
 * declared below only; small hot helpers are static inline here.
 */
#ifndef SIM_FLOW_PRIVATE_H
#define SIM_FLOW_PRIVATE_H

#include <string.h>
#include "sim/flow.h"
#include "sim/heap-inl.h"

/* ---- constants ------------------------------------------------------------ */

/* Remaining bytes at which a flow counts as done at once, relative to size. */
#define DONE_REL_EPS 1e-9
/* Completion time targets remaining = this x size (absorbs float drift). */
#define FINISH_REL_EPS 1e-12
/* A resource is "safe" when every user has a rate cap and the caps fit with
 * this relative margin: it can never saturate. */
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
/* Flows are allocated in blocks of this many (never freed before the net). */
#define FLOW_BLOCK 64
/* Solves between exact re-sums of the incrementally kept sums. */
#define RESUM_EVERY 256
/* A group's virtual time is rebased to 0 beyond this many bytes. */
#define REBASE_BYTES 1e12
/* Idle groups kept for reuse before a purge (and at least 4 x active). */
#define IDLE_GROUPS_MAX 4096

/* ---- types ---------------------------------------------------------------- */

typedef struct SimFlowGroup SimFlowGroup;
typedef struct SimFlowClock SimFlowClock;

/* One resource of a group, with its merged cost. */
typedef struct {
  SimFlowResource *res; /* the resource (never bounded in uses[0..n_trk)) */
  double w;             /* units per byte, > 0 */
  uint32_t pos;         /* index in res->users while the group is active */
} SimFlowGroupUse;

/* One active group using a resource (an entry of res->users). */
typedef struct {
  SimFlowGroup *g; /* the group */
  double w;        /* copy of g->uses[use].w (read without touching g) */
  uint32_t use;    /* index in g->uses */
} SimFlowResUser;

/* Life of a SimFlow (its state field). */
enum {
  FLOW_FREE,         /* on the net's free list */
  FLOW_ACTIVE,       /* started, moving bytes */
  FLOW_DONE_PENDING, /* completed at this instant, callback not run yet */
  FLOW_IN_CALLBACK,  /* its callback is running */
  FLOW_CANCELLED,    /* cancelled while DONE_PENDING: callback skipped */
};

struct SimFlow {
  SimFlowGroup *g;       /* its group; NULL for a zero-size flow */
  double tag;            /* finish tag: V_g at start + size */
  double key;            /* tag - FINISH_REL_EPS x size: member heap key */
  double size;           /* bytes */
  uint32_t hpos;         /* index in g->mem (or net->imm) */
  uint32_t state;        /* FLOW_* */
  uint64_t seq;          /* start order: ties in heaps, callback order */
  sim_time_ns start_ns;  /* when it started */
  double alone_s;        /* time it would take alone (capacities at start) */
  SimFlowNet *net;       /* its net */
  sim_flow_done_fn done; /* completion callback, may be NULL */
  void *ctx;             /* the callback's context */
  SimFlow *next_free;    /* free list link while FLOW_FREE */
};

/* What the solve of the moment writes in a group; meaningless between
 * solves (mark is valid only when equal to net->sx.epoch). */
typedef struct {
  bool frozen;               /* frozen in the filling in progress */
  bool grown;                /* changed: its own loads are checked (solve_groups) */
  uint32_t mark;             /* == net->sx.epoch: in the component */
  double x_new;              /* the rate it froze at */
  SimFlowResource *froze_by; /* the resource it froze on (NULL: its rate cap) */
} SimFlowGroupScratch;

/* Flows with the same merged (resource, cost) vector and rate cap: they get
 * the same rate, so they are solved as one group of multiplicity n. */
struct SimFlowGroup {
  /* identity, fixed at creation */
  uint32_t n_uses;      /* resources used (merged, costs > 0) */
  SimFlowGroupUse *key; /* uses in the order of the first start, never reordered (hashed) */
  double rate_cap_Bps;  /* per-flow rate cap, bytes/s (INFINITY: none) */
  guint hash;           /* key_hash() of key and rate_cap_Bps */
  /* state */
  uint32_t n;            /* active flows */
  SimFlow **mem;         /* its flows, min-heap by (key, seq) */
  uint32_t mem_alloc;    /* allocated length of mem */
  uint32_t uses_alloc;   /* allocated length of uses (= n_uses) */
  SimFlowGroupUse *uses; /* key[] reordered: saturated, then tracked, then bounded */
  uint32_t n_sat;        /* uses[0..n_sat) are those with res->sat */
  uint32_t n_trk;        /* uses[0..n_trk) are not bounded (its clock tracks them) */
  SimFlowClock *ck;      /* its clock while active, NULL while idle */
  double off;            /* V_g = V_clock - off */
  double vs_sum;         /* sum over its flows of tag - size (V_g at their start) */
  double hkey;           /* mem[0]->key + off: key in the clock's heap */
  uint32_t ckpos;        /* index in ck->gh */
  uint64_t id;           /* activation order: ties in heaps and the capped list */
  bool changed;          /* in net->changed */
  bool joined;           /* flows joined since the last solve */
  bool fresh;            /* activated, rate not solved yet (x = 0) */
  bool pinned;           /* a SimFlowPath refers to it: never purged */
  SimFlowGroupScratch sx;
};

/* A resource used by a clock's groups, with their summed weight. */
typedef struct {
  SimFlowResource *res; /* the resource (never a bounded one) */
  double A;             /* sum over member groups using it of n w */
  uint32_t cnt;         /* member groups using it */
  uint32_t upos;        /* index in res->cusers */
} SimFlowClockRes;

/* A clock using a resource (an entry of res->cusers). */
typedef struct {
  SimFlowClock *c;    /* the clock */
  SimFlowClockRes *e; /* the resource's entry in c->res (moved with it: the
                       * closure and filling read e->A without c->res) */
} SimFlowResClock;

/* What the solve of the moment writes in a clock; meaningless between
 * solves (mark is valid only when equal to net->sx.cepoch). */
typedef struct {
  uint32_t mark;       /* == net->sx.cepoch: in this solve's clocks (net->sx.tclk) */
  uint32_t nsame;      /* classify: component groups with the clock's first new rate */
  bool uniform;        /* classify: all its component groups get the same new rate */
  bool whole;          /* classify: all its groups are in the component, uniform */
  bool grown;          /* classify: one of its groups changed (solve_groups) */
  bool fb_same;        /* its groups all froze on fb */
  bool frozen;         /* frozen in the filling in progress (solve_clocks) */
  double x_new;        /* its new rate */
  SimFlowResource *fb; /* resource its groups froze on, when fb_same (NULL: a cap) */
} SimFlowClockScratch;

/* A clock: groups that move at the same byte rate share one virtual time,
 * so a rate change of all of them is one re-anchor, one completion time and
 * one load update per resource they use, whatever their number. */
struct SimFlowClock {
  double x;             /* byte rate of every flow of its groups */
  double V_s;           /* clock virtual time at t_s */
  sim_time_ns t_s;      /* anchor: V(t) = V_s + x (t - t_s) */
  sim_time_ns next_ns;  /* next completion of its flows */
  uint32_t hidx;        /* index in net->cheap */
  uint64_t id;          /* creation order: ties in net->cheap */
  SimFlowGroup **gh;    /* member groups, min-heap by (hkey, id) */
  uint32_t n_g;         /* member groups */
  uint32_t gh_alloc;    /* allocated length of gh */
  SimFlowClockRes *res; /* resources its members use (not bounded ones), with weights */
  uint32_t n_res;       /* entries in res */
  uint32_t res_alloc;   /* allocated length of res */
  uint32_t n_sat;       /* res[0..n_sat) are those with res->sat */
  uint32_t *slot;       /* by resource index: 1 + index in res[], 0 if none */
  uint32_t n_slot;      /* length of slot (grows with the net's resources) */
  uint32_t n_flows;     /* flows of its members */
  bool fresh;           /* holds one group not solved yet */
  bool moved;           /* rate or groups changed since its next time was set */
  SimFlowClockScratch sx;
  SimFlowClock *next_free; /* free list link while unused */
};

/* What the solve of the moment writes in a resource; meaningless between
 * solves (mark is valid only when equal to net->sx.epoch, tmark to
 * net->sx.tepoch). */
typedef struct {
  bool sat_new;        /* saturates in this solve */
  uint32_t mark;       /* == net->sx.epoch: in the component (net->sx.cr) */
  uint32_t tmark;      /* == net->sx.tepoch: in net->sx.touched (or seen by retrack) */
  uint32_t n_unfrozen; /* component users (groups or clocks) not frozen yet */
  double frozen_load;  /* load of the frozen users and of those below the restart level */
  double W;            /* weight (sum n w, or A) of the unfrozen component users */
  double lvl;          /* level at which it saturates in this round */
  double tmp_load;     /* touched: its load after the solve (an upper bound) */
  double W0, F0;       /* set by the closure: weight of its users in the component, */
  uint32_t n_comp;     /* their number, and the fixed load of the others */
  uintptr_t cx0, cx;   /* XOR of the addresses of its component clocks (closure) and of the
                        * unfrozen ones (filling): while n_unfrozen is 1, that clock */
  SimFlowClock *mrep;  /* commit: the clock this solve's clocks frozen on it merge into */
  uint32_t mmark;      /* == net->sx.cepoch: mrep is set */
} SimFlowResScratch;

struct SimFlowResource {
  char *name;              /* owned */
  uint32_t idx;            /* index in net->resources */
  double capacity;         /* units/s */
  SimFlowResUser *users;   /* active groups using it */
  uint32_t n_users;        /* entries in users */
  uint32_t users_alloc;    /* allocated length of users */
  SimFlowResClock *cusers; /* clocks using it (none while bounded) */
  uint32_t n_cusers;       /* entries in cusers */
  uint32_t cusers_alloc;   /* allocated length of cusers */
  uint32_t n_flows;        /* active flows using it */
  uint32_t n_uncapped;     /* of which without a rate cap */
  double load;             /* sum n w x, units/s: exact if sat, else an upper bound */
  double load_at_caps;     /* sum n w rate_cap_Bps over its rate-capped users, units/s */
  bool sat;                /* saturated in the solve that last set it */
  bool seeded;             /* in net->seeds */
  bool chk;                /* in net->chk */
  bool bounded;            /* its load can never exceed its capacity (cover_bounds) */
  SimFlowResScratch sx;
  /* statistics: flows_area integrated up to t_st; st.units holds the
   * units of flows that left (and minus those active flows had served at
   * the last reset), res_units adds the active ones'; busy area up to the
   * last capacity change, when units were units_cc */
  sim_time_ns t_st; /* flows_area_s integrated up to here */
  double units_cc;  /* units served at the last capacity change */
  SimFlowStats st;  /* accumulators (see above for units) */
};

struct SimFlowPath {
  SimFlowGroup *g;         /* its group (pinned) */
  double alone_rate;       /* min(rate cap, C_r / w_r) at capacity_epoch */
  uint64_t capacity_epoch; /* net->capacity_epoch when alone_rate was worked out */
};

/* Scratch of the solves, owned by the net: arrays sized by the number of
 * groups (groups_alloc), resources (res_slots_alloc) or clocks
 * (clock_slots_alloc) so that a solve never allocates, the epochs that
 * validate the marks of the elements' scratch, and the merged uses of the
 * flow being started. */
typedef struct {
  SimFlowGroup **comp;       /* solve_groups: the component's groups (group slots) */
  SimFlowGroup **unb;        /* groups with no component resource yet; clock_split's groups */
  SimFlowResource **cr;      /* the component's resources (resource slots) */
  SimFlowResource **touched; /* other resources whose load the solve changes */
  SimFlowResource **live;    /* fillings: resources with unfrozen users */
  SimFlowClock **tclk;       /* this solve's clocks (clock slots) */
  SimFlowClock **tnew;       /* solve_groups: clocks created for new rates */
  uint32_t epoch;            /* marks of groups and resources in the component */
  uint32_t tepoch;           /* tmarks of touched resources */
  uint32_t cepoch;           /* marks of clocks */
  uint32_t cr_unsat;         /* unsaturated resources in the component */
  SimFlowGroupUse *key_uses; /* merged uses of the flow being started */
  uint32_t key_uses_alloc;   /* allocated length of key_uses */
  SimFlow **batch;           /* flows completing at this instant, in start order */
  uint32_t batch_alloc;      /* allocated length of batch */
} SimFlowScratch;

struct SimFlowNet {
  SimEngine *eng;             /* not owned */
  GPtrArray *paths;           /* owns every SimFlowPath */
  uint64_t capacity_epoch;    /* capacity changes so far */
  SimEvent ev;                /* the next completion (or a solve now) */
  bool in_handler;            /* on_event is running: it solves before returning */
  GPtrArray *resources;       /* owns SimFlowResource, by idx */
  GHashTable *by_key;         /* SimFlowGroup -> itself, active and idle */
  GPtrArray *groups;          /* owns every SimFlowGroup */
  uint32_t n_active_groups;   /* groups with flows */
  GPtrArray *clocks;          /* owns every SimFlowClock */
  SimFlowClock *free_clocks;  /* unused clocks */
  SimFlowClock **cheap;       /* clocks in use, min-heap by (next_ns, id) */
  uint32_t n_cheap;           /* clocks in use */
  uint32_t clock_slots_alloc; /* allocated length of cheap, sx.tclk, sx.tnew */
  uint64_t next_cid;          /* next clock id */
  SimFlowGroup **capped;      /* active rate-capped groups with resources, by (rate cap, id) */
  uint32_t n_capped;          /* entries in capped */
  uint32_t groups_alloc;      /* allocated length of capped, changed, sx.comp, sx.unb */
  SimFlow **imm;              /* zero-size flows, completing now */
  uint32_t n_imm;             /* entries in imm */
  uint32_t imm_alloc;         /* allocated length of imm */
  SimFlow *free_list;         /* unused flows */
  GPtrArray *blocks;          /* owns blocks of FLOW_BLOCK flows */
  uint32_t n_flows;           /* active flows (zero-size ones included) */
  uint64_t next_seq;          /* next flow seq */
  uint64_t next_gid;          /* next group activation id */
  sim_time_ns t_last;         /* net statistics valid here */
  sim_time_ns stats_start;    /* last reset */
  double rate_sum;            /* bytes/s of all flows */
  /* changes since the last solve */
  SimFlowGroup **changed;      /* groups whose flows changed (group slots) */
  uint32_t n_changed;          /* entries in changed */
  SimFlowResource **seeds;     /* saturated resources that lost a group, or changed capacity */
  SimFlowResource **chk;       /* loads above capacity after starts: check in the solve */
  uint32_t n_chk;              /* entries in chk */
  uint32_t n_seeds;            /* entries in seeds */
  uint32_t res_slots_alloc;    /* allocated length of seeds, chk, sx.cr, sx.touched, sx.live */
  SimFlowScratch sx;           /* the solves' scratch */
  double lvl0;                 /* pending: no rate below this level changes */
  uint64_t n_recomputes;       /* solves so far */
  uint64_t n_fast;             /* changes that needed no solve */
  uint32_t solves_since_resum; /* solves since the last resum() */
  bool flow_stats;             /* keeps per-flow statistics (sim_flow_net_keep_flow_stats) */
  bool bounds_dirty;           /* groups or capacities changed since cover_bounds */
  bool any_bounded;            /* some resource has its bounded flag set */
  uint32_t dirty_solves;       /* solves since bounds_dirty was set */
  double precision;            /* rate precision EPS (sim_flow_net_set_rate_precision); 0: exact */
  bool must_solve;             /* precision mode: a pending change moved a load by more than EPS */
  uint64_t n_deferred;         /* changes whose solve was deferred (precision mode) */
  SimFlowStats st;             /* net-wide accumulators */
};

/* The growing closure of a solve: the component's groups (or clocks) and
 * resources, how far the closure has visited them, and the restart level. */
typedef struct {
  uint32_t nc;  /* groups in net->sx.comp (solve_groups) or clocks in net->sx.tclk */
  uint32_t ncr; /* resources in net->sx.cr */
  uint32_t qg;  /* groups (clocks) visited by the closure */
  uint32_t qr;  /* resources visited by the closure */
  uint32_t nu;  /* groups in net->sx.unb (solve_groups) */
  double lvl0;  /* groups slower than this keep their rates */
} SimFlowComp;

/* ---- heaps ------------------------------------------------------------------
 * The members of a group by (key, seq), the groups of a clock by (hkey, id),
 * the clocks of the net by (next_ns, id): indexed heaps (sim/heap-inl.h). */

static inline bool mem_less(const SimFlow *a, const SimFlow *b)
{
  return a->key < b->key || (a->key == b->key && a->seq < b->seq);
}

SIM_HEAP_DEFINE(mem, SimFlow, mem_less, hpos)

static inline bool cg_less(const SimFlowGroup *a, const SimFlowGroup *b)
{
  return a->hkey < b->hkey || (a->hkey == b->hkey && a->id < b->id);
}

SIM_HEAP_DEFINE(cg, SimFlowGroup, cg_less, ckpos)

static inline bool ch_less(const SimFlowClock *a, const SimFlowClock *b)
{
  return a->next_ns < b->next_ns || (a->next_ns == b->next_ns && a->id < b->id);
}

SIM_HEAP_DEFINE(ch, SimFlowClock, ch_less, hidx)

/* ---- small helpers ------------------------------------------------------ */

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

/* Integrates @r's flow area up to now (before its number of flows changes);
 * nothing when the net keeps no per-flow statistics. */
static inline void res_sync(SimFlowNet *net, SimFlowResource *r)
{
  if (!net->flow_stats) return;
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

/* Byte rate of each flow of active group @g: its clock's (a group keeps no
 * copy, so a clock's rate change writes nothing into its groups). */
static inline double group_x(const SimFlowGroup *g)
{
  return g->ck->x;
}

static inline double clock_V(const SimFlowClock *c, sim_time_ns t)
{
  return c->V_s + c->x * ((double)(t - c->t_s) * 1e-9);
}

/* Bytes each flow of @g has delivered since the group's origin, at @t. */
static inline double group_V(const SimFlowGroup *g, sim_time_ns t)
{
  return clock_V(g->ck, t) - g->off;
}

/* Completion time of member @f of @g from its clock's anchor: the first ns
 * at which remaining <= FINISH_REL_EPS x size, at least 1 ns after the
 * anchor, or the anchor itself when remaining <= DONE_REL_EPS x size. */
static inline sim_time_ns finish_of(const SimFlowGroup *g, const SimFlow *f)
{
  const SimFlowClock *c = g->ck;
  double rem = (f->tag + g->off) - c->V_s;
  if (rem <= DONE_REL_EPS * f->size) return c->t_s;
  if (c->x <= 0) return SIM_TIME_NEVER;
  double x = ceil((rem - FINISH_REL_EPS * f->size) / c->x * 1e9);
  if (x < 1) x = 1;
  if (x >= (double)(SIM_TIME_NEVER - c->t_s)) return SIM_TIME_NEVER;
  return c->t_s + (sim_time_ns)x;
}

/* The entry of @r in @c's resources (@c has a member using @r). */
static inline SimFlowClockRes *clock_entry(SimFlowClock *c, const SimFlowResource *r)
{
  return &c->res[c->slot[r->idx] - 1];
}

/* Swaps entries a and b of @c's resources, keeping the back-references. */
static inline void clock_swap_res(SimFlowClock *c, uint32_t a, uint32_t b)
{
  if (a == b) return;
  SimFlowClockRes t = c->res[a];
  c->res[a] = c->res[b];
  c->res[b] = t;
  c->slot[c->res[a].res->idx] = a + 1;
  c->slot[c->res[b].res->idx] = b + 1;
  c->res[a].res->cusers[c->res[a].upos].e = &c->res[a];
  c->res[b].res->cusers[c->res[b].upos].e = &c->res[b];
}

/* Queues @g (once) among the groups whose flows changed since the last solve. */
static inline void mark_changed(SimFlowNet *net, SimFlowGroup *g)
{
  if (!g->changed) {
    g->changed = true;
    net->changed[net->n_changed++] = g;
  }
}

/* Whether rates are stale: a group changed, or a resource (saturated and losing a group, or of changed capacity) waits as a seed. */
static inline bool dirty(const SimFlowNet *net)
{
  return net->n_changed || net->n_seeds;
}

/* Whether the pending changes must be solved before the clock moves on: always when
 * exact; in precision mode only once one of them moved a load by more than EPS
 * (sim_flow_net_set_rate_precision; net->must_solve, set by note_load). */
static inline bool solve_due(const SimFlowNet *net)
{
  return dirty(net) && (net->precision == 0 || net->must_solve);
}

/* ---- internal functions (sim/flow-*.c), prefixed sim_flow__ ---------------- */

/* sim/flow-clock.c: clocks, their groups and resource entries. */

/* Recomputes @c's next completion (its first group's first flow) and its
 * place in the heap of clocks. */
void sim_flow__clock_update_next(SimFlowNet *net, SimFlowClock *c);
/* After @g's first flow changed (a flow joined or left): its key in its
 * clock and, when it is or was the clock's first, the clock's next time. */
void sim_flow__group_top_changed(SimFlowNet *net, SimFlowGroup *g);
/* Moves the anchor of @c to @now at its current rate; rebases V when large. */
void sim_flow__clock_reanchor(SimFlowClock *c, sim_time_ns now);
/* A new empty clock at rate @x (bytes/s), anchored at now, in the heap of clocks. */
SimFlowClock *sim_flow__clock_new(SimFlowNet *net, double x);
/* An emptied clock leaves the heap and goes back to the free list. */
void sim_flow__clock_release(SimFlowNet *net, SimFlowClock *c);
/* The entry of @r in @c's resources, created (A = 0, cnt = 0) if missing. */
SimFlowClockRes *sim_flow__clock_entry_get(SimFlowNet *net, SimFlowClock *c, SimFlowResource *r);
/* Entry @j of @c's resources leaves (no member uses it any more). */
void sim_flow__clock_entry_drop(SimFlowClock *c, uint32_t j);
/* @g joins @c with offset @off (its virtual time is V_c - off); the caller
 * updates @c's next time. */
void sim_flow__clock_add_group(SimFlowNet *net, SimFlowClock *c, SimFlowGroup *g, double off);
/* @g leaves its clock @c (which the caller releases when emptied). */
void sim_flow__clock_remove_group(SimFlowNet *net, SimFlowClock *c, SimFlowGroup *g);
/* Moves @g (rate already set) from its clock to @c, keeping its virtual time. */
void sim_flow__group_move(SimFlowNet *net, SimFlowGroup *g, SimFlowClock *c);

/* sim/flow-group.c: groups by content, activation, the rate-capped list. */

/* The group of the @n merged uses in net->sx.key_uses and @rate_cap_Bps
 * (created idle, which invalidates the bounds). */
SimFlowGroup *sim_flow__group_get(SimFlowNet *net, uint32_t n, double rate_cap_Bps);
/* An idle group becomes active: joins its resources' users, a new clock of
 * its own and the rate-capped list. */
void sim_flow__group_activate(SimFlowNet *net, SimFlowGroup *g);
/* An emptied group leaves its resources and its clock; it stays idle in the
 * hash.  Its saturated resources are re-solved unless @quiet. */
void sim_flow__group_deactivate(SimFlowNet *net, SimFlowGroup *g, bool quiet);
/* Frees idle groups when too many pile up (flows with ever new vectors). */
void sim_flow__purge_idle_groups(SimFlowNet *net);
/* An empty hash table of groups by content (key and rate cap). */
GHashTable *sim_flow__group_table_new(void);
/* Frees a group (a GDestroyNotify). */
void sim_flow__group_free(gpointer p);
/* Grows the arrays with one slot per group to at least @need slots. */
void sim_flow__grow_group_arrays(SimFlowNet *net, uint32_t need);

/* sim/flow-bounds.c: resources that can never be overloaded. */

/* Clears every resource's bounded flag until the next cover_bounds. */
void sim_flow__bounds_invalidate(SimFlowNet *net);
/* Works out the bounded flag of every resource from the known groups. */
void sim_flow__cover_bounds(SimFlowNet *net);
/* After bounded flags changed: re-orders each active group's uses and
 * re-tracks each clock's resources. */
void sim_flow__retrack(SimFlowNet *net);

/* sim/flow-solve.c: the solver. */

/* Re-solves the rates affected by the changes since the last solve, at now. */
void sim_flow__solve(SimFlowNet *net);
/* A new tepoch (tmarks of every resource invalid). */
void sim_flow__bump_tepoch(SimFlowNet *net);

/* sim/flow.c */

/* The exact load of @r (units/s) at the clocks' current rates. */
double sim_flow__res_load(const SimFlowResource *r);

/* Precision mode: after a start or an end changed @r's load, whether the change can
 * wait: a saturated resource's load stays within EPS x capacity of its capacity (its
 * users' rates are then within about EPS of the max-min ones: SimGrid's maxmin/precision
 * counts a constraint saturated when its remaining capacity is below precision x bound),
 * another's stays at most (1 + EPS) x capacity (its load is kept as an upper bound: when
 * that is above, the exact load is summed and kept).  Otherwise the net solves at this
 * instant (net->must_solve). */
static inline void note_load(SimFlowNet *net, SimFlowResource *r)
{
  const double C = r->capacity, eps = net->precision;
  if (r->sat) {
    if (fabs(r->load - C) > eps * C) net->must_solve = true;
  } else if (!r->bounded && r->load > C * (1 + eps)) {
    r->load = sim_flow__res_load(r); /* still an upper bound of the load, now the exact one */
    if (r->load > C * (1 + eps)) net->must_solve = true;
  }
}
#endif /* SIM_FLOW_PRIVATE_H */
