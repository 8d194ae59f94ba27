/* sim/flow-group.c — groups: flows with the same merged (resource, cost) vector
 * and rate cap, found by content.
 *
 * A group is hashed by its key (uses in the order of the first start) and
 * rate cap; emptied groups stay idle for reuse and are purged when they pile
 * up.  Activation puts a group on its resources' user lists (saturated,
 * tracked, bounded uses in that order), into a clock of its own and, when it
 * has a rate cap, into the net's list of rate-capped groups by (cap, id).
 *
 * Design notes and data structures: sim/flow-private.h.
 */
#include "sim/flow-private.h"

/* ---- rate-capped groups, sorted by (rate cap, id) ------------------------ */

static inline bool capped_less(const SimFlowGroup *a, const SimFlowGroup *b)
{
  return a->rate_cap_Bps < b->rate_cap_Bps || (a->rate_cap_Bps == b->rate_cap_Bps && a->id < b->id);
}

static uint32_t capped_lower_bound(const SimFlowNet *net, const SimFlowGroup *g)
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

static void capped_insert(SimFlowNet *net, SimFlowGroup *g)
{
  uint32_t i = capped_lower_bound(net, g);
  memmove(&net->capped[i + 1], &net->capped[i], (net->n_capped - i) * sizeof *net->capped);
  net->capped[i] = g;
  net->n_capped++;
}

static void capped_remove(SimFlowNet *net, SimFlowGroup *g)
{
  uint32_t i = capped_lower_bound(net, g);
  g_assert(i < net->n_capped && net->capped[i] == g);
  memmove(&net->capped[i], &net->capped[i + 1], (net->n_capped - i - 1) * sizeof *net->capped);
  net->n_capped--;
}

/* ---- group lookup, activation ------------------------------------------- */

static guint key_hash(const SimFlowGroupUse *u, uint32_t n, double rate_cap_Bps)
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
  return ((const SimFlowGroup *)p)->hash;
}

static gboolean group_equal(gconstpointer pa, gconstpointer pb)
{
  const SimFlowGroup *a = pa, *b = pb;
  if (a->n_uses != b->n_uses || !(a->rate_cap_Bps == b->rate_cap_Bps)) return FALSE;
  for (uint32_t k = 0; k < a->n_uses; k++)
    if (a->key[k].res != b->key[k].res || !(a->key[k].w == b->key[k].w)) return FALSE;
  return TRUE;
}

GHashTable *sim_flow__group_table_new(void)
{
  return g_hash_table_new(group_hash, group_equal);
}

void sim_flow__group_free(gpointer p)
{
  SimFlowGroup *g = p;
  g_free(g->uses);
  g_free(g->key);
  g_free(g->mem);
  g_free(g);
}

void sim_flow__grow_group_arrays(SimFlowNet *net, uint32_t need)
{
  if (need <= net->groups_alloc) return;
  uint32_t alloc = net->groups_alloc ? net->groups_alloc : 64;
  while (alloc < need) alloc *= 2;
  net->capped = g_renew(SimFlowGroup *, net->capped, alloc);
  net->sx.comp = g_renew(SimFlowGroup *, net->sx.comp, alloc);
  net->sx.unb = g_renew(SimFlowGroup *, net->sx.unb, alloc);
  net->changed = g_renew(SimFlowGroup *, net->changed, alloc);
  net->groups_alloc = alloc;
}

/* The group of the @n merged uses in net->sx.key_uses and @rate_cap_Bps (created idle). */
SimFlowGroup *sim_flow__group_get(SimFlowNet *net, uint32_t n, double rate_cap_Bps)
{
  SimFlowGroup probe = { .n_uses = n, .key = net->sx.key_uses, .rate_cap_Bps = rate_cap_Bps };
  probe.hash = key_hash(net->sx.key_uses, n, rate_cap_Bps);
  SimFlowGroup *g = g_hash_table_lookup(net->by_key, &probe);
  if (g) return g;
  g = g_new0(SimFlowGroup, 1);
  g->n_uses = g->uses_alloc = n;
  g->key = g_memdup2(net->sx.key_uses, n * sizeof *g->key);
  g->uses = g_memdup2(net->sx.key_uses, n * sizeof *g->uses);
  g->rate_cap_Bps = rate_cap_Bps;
  g->hash = probe.hash;
  g_hash_table_add(net->by_key, g);
  g_ptr_array_add(net->groups, g);
  sim_flow__grow_group_arrays(net, net->groups->len);
  sim_flow__bounds_invalidate(net);
  return g;
}

/* An idle group becomes active: joins its resources' users and the heaps. */
void sim_flow__group_activate(SimFlowNet *net, SimFlowGroup *g)
{
  g->id = net->next_gid++;
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
      r->users = g_renew(SimFlowResUser, r->users, r->users_alloc);
    }
    g->uses[k].pos = r->n_users;
    r->users[r->n_users++] = (SimFlowResUser){ .g = g, .w = g->uses[k].w, .use = k };
  }
  net->n_active_groups++;
  /* Its own clock, at virtual time 0, until a solve gives it a rate. */
  SimFlowClock *c = sim_flow__clock_new(net, g->n_uses == 0 ? g->rate_cap_Bps : 0);
  c->fresh = true;
  sim_flow__clock_add_group(net, c, g, 0); /* V_g = 0 */
  if (g->rate_cap_Bps < INFINITY && g->n_uses > 0) capped_insert(net, g);
}

/* An emptied group leaves its resources and the heaps; it stays idle in
 * the hash.  Its saturated resources are re-solved unless @quiet. */
void sim_flow__group_deactivate(SimFlowNet *net, SimFlowGroup *g, bool quiet)
{
  for (uint32_t k = 0; k < g->n_uses; k++) {
    SimFlowResource *r = g->uses[k].res;
    uint32_t pos = g->uses[k].pos;
    SimFlowResUser last = r->users[--r->n_users];
    if (pos != r->n_users) {
      r->users[pos] = last;
      last.g->uses[last.use].pos = pos;
    }
    if (!quiet && r->sat && !r->seeded) {
      r->seeded = true;
      net->seeds[net->n_seeds++] = r;
    }
  }
  SimFlowClock *c = g->ck;
  sim_flow__clock_remove_group(net, c, g);
  if (c->n_g == 0)
    sim_flow__clock_release(net, c);
  else
    sim_flow__clock_update_next(net, c);
  net->n_active_groups--;
  if (g->rate_cap_Bps < INFINITY && g->n_uses > 0) capped_remove(net, g);
}

/* Frees idle groups when too many pile up (flows with ever new vectors). */
void sim_flow__purge_idle_groups(SimFlowNet *net)
{
  uint32_t idle = net->groups->len - net->n_active_groups;
  if (idle <= IDLE_GROUPS_MAX || idle <= 4 * net->n_active_groups) return;
  guint keep = 0;
  for (guint i = 0; i < net->groups->len; i++) {
    SimFlowGroup *g = g_ptr_array_index(net->groups, i);
    if (g->n == 0 && !g->changed && !g->pinned) {
      g_hash_table_remove(net->by_key, g);
      sim_flow__group_free(g);
    } else {
      net->groups->pdata[keep++] = g;
    }
  }
  g_ptr_array_set_size(net->groups, keep);
}
