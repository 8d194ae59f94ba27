/* demand.c — builds the resource list and per-class demand per served byte (see demand.h
 * for the model and equations): it enumerates the traffic classes and the DRAM touches of
 * their data paths and lets every component (component.h) add its resources and demand.
 *
 * How the load spreads over the ports (enumerate_classes). The upstream switch hashes every
 * client flow onto one member port of the box's LACP bundle (IEEE 802.1AX link aggregation: the
 * distributor hashes a frame's addresses, so whole flows, not bytes, are spread, evenly in
 * expectation), and every flow is a video stream paced at its bitrate (workload.bitrates), so
 * each of the P ports carries the same share 1/P of the served bytes, whatever its line rate.
 * An 802.3ad aggregate is made of ports of one speed (FreeBSD lagg(4), lacp: "Each LAG is
 * composed of ports of the same speed, set to full-duplex operation"; Linux bonding.rst,
 * 802.3ad: "Creates aggregation groups that share the same speed and duplex settings"), so a box
 * whose groups differ in speed is held to P times what its slowest port path delivers: clients
 * hashed onto the slow ports cannot be served faster by a faster card. That is what makes the
 * split physical and the model monotone: a faster port draws no flows onto its card, so no
 * capacity raise moves load onto another resource (the metamorphic suite holds this; the former
 * split in proportion to line rate sent a faster card more bytes than the hash gives it and
 * saturated its inline-TLS engine first: altra-q80-30-ext-tags with nics[0] at 125 Gb/s fell
 * from 371.4 to 342.0 Gb/s). Left out: lagg(4) balances over the LAG of the greatest total
 * speed only and leaves the other LAGs of a mixed-speed box idle; the model hashes over every
 * port (the same thing on a box of one port speed, as every shipped scenario is). Egress: lacp
 * answers a flow on its ingress port (the same hash); by_content on the ports in the NUMA
 * domain of the drive holding the title, hashed evenly over them. The DES runs the classes with
 * these weights, so it routes the same way.
 *
 * The load-dependent sizings (build). Three inputs of the demand depend on the served throughput
 * X: the connections n = X / mean bitrate decide whether a reused user buffer stays cache
 * resident (software_user_miss), how many TLS contexts miss an inline engine's on-card
 * cache (nic_tls_context_miss) and how much RAM an auto-sized page cache gets
 * (pagecache_size_bytes). All are evaluated at the model's own served throughput, the fixed
 * point x = F(x), F(x) = min(offered, X*(demand sized at x)) (DemandModel.sized_Bps). F is
 * non-increasing in x (more connections: a larger working set per core, so a higher miss share,
 * more context fetches, and a smaller page cache, so fewer hits; all only add demand), so g(x) = F(x) - x is
 * continuous and strictly decreasing with g(0) = F(0) > 0 and g(F(0)) <= 0: exactly one root in
 * [0, F(0)], which GSL Brent (sim/roots.c) finds without leaving the bracket. A capacity raise
 * lifts F pointwise, so it cannot lower the root: the fixed point keeps X monotone, where sizing
 * at the ports' line rate did not (a faster port assumed more connections, a higher miss share
 * and a lower X). A model whose demand does not depend on x (no read/write path with a user
 * buffer that can stay resident, no auto-sized page cache, no inline-TLS context cache:
 * software_user_miss_varies, pagecache_size_varies, nic_tls_context_varies) takes one build, and one whose F is flat
 * two (F(F(0)) = F(0)). */
#include "models/appliance/demand.h"
#include "models/appliance/components.h"
#include "models/appliance/model_error.h"
#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include "sim/gsl_autoptr.h"
#include "sim/roots.h"
#include <math.h>
#include <string.h>

/* Relative width of the bracket at which the sizing fixed point stops (the served throughput is
 * then within this of the exact fixed point, far below the 1e-9 the metamorphic suite asks of
 * capacity raises; the inner X* solve stops at 1e-12). */
#define SIZING_EPSREL 1e-11
/* Iterations of the sizing fixed point (Brent falls back to bisection: 100 halvings of the
 * bracket reach 2^-100, so the tolerance above is always met well before). */
#define SIZING_MAX_ITER 100
/* The X* solve (saturation): Brent's relative tolerance and iteration cap (the 1e-12 the
 * comment above quotes; Brent meets it in a few dozen steps), the start just below the linear
 * limit that tells whether latency coupling binds at all, and the step just above X* that
 * finds the resource that binds first. Assumed: rounding-level, far below any printed figure. */
#define SAT_EPSREL    1e-12
#define SAT_MAX_ITER  200
#define SAT_BELOW_REL 1e-12
#define SAT_ABOVE_REL 1e-9
/* Largest utilisation demand_wait_ns feeds the M/M/1 term (its wait is finite). Assumed. */
#define WAIT_RHO_MAX (1.0 - 1e-9)
/* The upgrade that asks whether cycles or DRAM bandwidth buy more at a stall-bound CPU: 1 %
 * more of either (the naming rule, demand.h). */
#define NAMING_UPGRADE 1.01

/* Capacity of resource r with its kind's capacity scaled by scale[kind] (NULL: 1). */
static double cap_of(const DemandModel *m, int r, const double *scale)
{
  return m->res[r].capacity * (scale ? scale[m->res[r].kind] : 1.0);
}

gboolean demand_overloaded(double offered_Bps, double sat_Bps)
{
  return offered_Bps > sat_Bps * (1.0 + DEMAND_OVERLOAD_RTOL);
}

double demand_wait_ns(const DmResource *r, double rho)
{
  if (!(rho > 0) || !r->wait_ns) return 0.0;
  return r->wait_ns(r, MIN(rho, WAIT_RHO_MAX));
}

static double queue_ns(const DemandModel *m, int dram, double x_Bps, const double *scale)
{
  double cap = cap_of(m, dram, scale);
  if (cap <= 0 || x_Bps <= 0) return 0.0;
  return demand_wait_ns(&m->res[dram], x_Bps * m->base_total[dram] / cap);
}

static double total_at(const DemandModel *m, int r, double x_Bps, const double *scale)
{
  double d = m->base_total[r];
  for (int i = 0; i < m->n_lat; i++)
    if (m->lat[i].res == r) d += m->lat[i].per_ns * queue_ns(m, m->lat[i].dram, x_Bps, scale);
  return d;
}

/* Highest utilisation over limit at throughput x, minus 1; *arg gets the resource. */
static double excess(const DemandModel *m, double x_Bps, const double *scale, int *arg)
{
  double best = -G_MAXDOUBLE;
  int bi = -1;
  for (int r = 0; r < m->n_res; r++) {
    double cap = cap_of(m, r, scale) * m->res[r].limit;
    if (cap <= 0 || m->base_total[r] <= 0) continue;
    double h = x_Bps * total_at(m, r, x_Bps, scale) / cap;
    if (h > best + DEMAND_TIE) {
      best = h;
      bi = r;
    }
  }
  if (arg) *arg = bi;
  return best - 1.0;
}

typedef struct {
  const DemandModel *m;
  const double *scale;
} SatCtx;

static double excess_fn(double x, void *p)
{
  const SatCtx *c = p;
  return excess(c->m, x, c->scale, NULL);
}

/* X* with capacities scaled per kind (see demand.h); *binding gets the resource at its limit. */
static double saturation(const DemandModel *m, const double *scale, int *binding)
{
  double x_lin = G_MAXDOUBLE;
  int bl = -1;
  for (int r = 0; r < m->n_res; r++) {
    if (m->base_total[r] <= 0) continue;
    double xr = m->res[r].limit * cap_of(m, r, scale) / m->base_total[r];
    if (xr < x_lin) {
      x_lin = xr;
      bl = r;
    }
  }
  if (binding) *binding = bl;
  if (bl < 0 || m->n_lat == 0 || excess(m, x_lin * (1.0 - SAT_BELOW_REL), scale, NULL) <= 0) return x_lin;
  SatCtx ctx = { m, scale };
  gsl_function F = { .function = excess_fn, .params = &ctx };
  g_autoptr(gsl_root_fsolver) s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
  if (gsl_root_fsolver_set(s, &F, 0.0, x_lin) != GSL_SUCCESS) return x_lin; /* f not finite at an end */
  /* the bracket's lower end: every resource still within its limit. Not converged (never seen:
   * Brent meets SAT_EPSREL in tens of steps), it is still that, X* understated by the bracket */
  if (sim_root_iterate(s, 0.0, SAT_EPSREL, SAT_MAX_ITER, NULL) != GSL_SUCCESS)
    g_debug("demand: X* bracket %.9g..%.9g B/s wider than %g", gsl_root_fsolver_x_lower(s), gsl_root_fsolver_x_upper(s),
            SAT_EPSREL);
  double x = gsl_root_fsolver_x_lower(s);
  if (binding) {
    double xu = x * (1.0 + SAT_ABOVE_REL);
    excess(m, xu, scale, binding);
  }
  return x;
}

int demand_binding(int n, const double *h)
{
  int arg = -1;
  double best = -1;
  for (int i = 0; i < n; i++)
    if (h[i] > best + DEMAND_TIE) {
      best = h[i];
      arg = i;
    }
  return arg;
}

/* The naming half of demand_name_bottleneck, given the binding resource. */
static int name_for_binding(const DemandModel *m, int binding, const double *util, int *stalled_cpu)
{
  if (stalled_cpu) *stalled_cpu = -1;
  if (binding < 0 || !m->stall_named || m->res[binding].kind != RK_CPU) return binding;
  int dram = -1;
  double best = -1;
  for (int r = 0; r < m->n_res; r++)
    if (m->res[r].kind == RK_DRAM && util[r] > best + DEMAND_TIE) {
      best = util[r];
      dram = r;
    }
  if (dram < 0) return binding;
  if (stalled_cpu) *stalled_cpu = binding;
  return dram;
}

int demand_name_bottleneck(const DemandModel *m, const double *util, int *stalled_cpu)
{
  g_autofree double *h = g_new(double, MAX(m->n_res, 1));
  for (int r = 0; r < m->n_res; r++) h[r] = util[r] / m->res[r].limit;
  return name_for_binding(m, demand_binding(m->n_res, h), util, stalled_cpu);
}

int demand_co_bottlenecks(const DemandModel *m, const double *util, int named, int *idx)
{
  if (named < 0) return 0;
  double hb = util[named] / m->res[named].limit;
  if (hb <= 0) return 0;
  int n = 0;
  for (int r = 0; r < m->n_res; r++)
    if (r != named && util[r] / m->res[r].limit * (1.0 + DEMAND_COBOTTLENECK) >= hb) idx[n++] = r;
  return n;
}

/* DRAM-latency stall cycles of resource r per served byte at throughput x: the idle part and
 * the queueing terms on DRAM nodes (not on fabric links: those are the fabric's). */
static double dram_stall_at(const DemandModel *m, int r, double x_Bps)
{
  double s = m->res[r].dram_stall;
  for (int i = 0; i < m->n_lat; i++)
    if (m->lat[i].res == r && m->res[m->lat[i].dram].kind == RK_DRAM)
      s += m->lat[i].per_ns * queue_ns(m, m->lat[i].dram, x_Bps, NULL);
  return s;
}

/* Relative step of demand_dram_stall_share's central difference: a numerical choice, not a model
 * figure (exact for the linear DRAM latency line, error of order 1e-8 on an M/M/1 link term). */
#define STALL_SHARE_STEP 1e-4

double demand_dram_stall_share(const DemandModel *m, int r, double x_Bps)
{
  g_return_val_if_fail(m != NULL && r >= 0 && r < m->n_res, 0.0);
  if (!(x_Bps > 0) || m->base_total[r] <= 0) return 0.0;
  double lo = x_Bps * (1.0 - STALL_SHARE_STEP), hi = x_Bps * (1.0 + STALL_SHARE_STEP);
  double d = hi * total_at(m, r, hi, NULL) - lo * total_at(m, r, lo, NULL);
  double s = hi * dram_stall_at(m, r, hi) - lo * dram_stall_at(m, r, lo);
  return d > 0 ? CLAMP(s / d, 0.0, 1.0) : 0.0;
}

/* X* with the clock of every CPU node raised by @u (the naming rule's "1 % more clock"): its
 * cycles per second times u, and the cycles a memory stall costs (a latency in ns times the
 * clock: the idle local and remote stalls and every per-ns queueing term on a CPU) times u too,
 * so that only the cycles of work take less time, as `--set cpu.clock=` gives. */
static double saturation_clock(const DemandModel *m, double u)
{
  DemandModel c = *m;
  g_autofree DmResource *res = g_memdup2(m->res, sizeof *res * (gsize)m->n_res);
  g_autofree double *base = g_memdup2(m->base_total, sizeof *base * (gsize)m->n_res);
  g_autofree DmLatTerm *lat = m->n_lat ? g_memdup2(m->lat, sizeof *lat * (gsize)m->n_lat) : NULL;
  for (int r = 0; r < m->n_res; r++)
    if (res[r].kind == RK_CPU) {
      res[r].capacity *= u;
      base[r] += (u - 1) * (res[r].dram_stall + res[r].remote_stall);
    }
  for (int i = 0; i < m->n_lat; i++)
    if (res[lat[i].res].kind == RK_CPU) lat[i].per_ns *= u;
  c.res = res;
  c.base_total = base;
  c.lat = lat;
  return saturation(&c, NULL, NULL);
}

static void settle_op(DemandModel *m, double offered_Bps);

/* Solves X*, names the bottleneck and evaluates demands at X_op = min(offered, X*). */
static void settle(DemandModel *m, double offered_Bps)
{
  int bn = -1;
  m->sat_Bps = saturation(m, NULL, &bn);
  m->stall_named = m->stall_upgrade = FALSE;
  m->stall_share = 0.0;
  gboolean cpu_lat = FALSE;
  for (int i = 0; i < m->n_lat; i++) cpu_lat = cpu_lat || m->lat[i].res == bn;
  if (bn >= 0 && m->res[bn].kind == RK_CPU) {
    if (cpu_lat) { /* rule (a), demand.h: which 1 % upgrade buys more, clock or DRAM bandwidth? */
      double up_dram[RK_COUNT];
      for (int k = 0; k < RK_COUNT; k++) up_dram[k] = 1.0;
      up_dram[RK_DRAM] = NAMING_UPGRADE;
      m->stall_upgrade = saturation(m, up_dram, NULL) > saturation_clock(m, NAMING_UPGRADE);
    }
    /* how much of the CPU's marginal cycles are DRAM stalls: reported, not a naming rule (a
     * majority of stalls named the DRAM where 1 % more cycles bought four times what 1 % more
     * memory bandwidth did, on the software-kTLS boxes) */
    m->stall_share = demand_dram_stall_share(m, bn, m->sat_Bps);
    m->stall_named = m->stall_upgrade;
  }
  /* the naming rule (demand_name_bottleneck) on the utilisations at X*, with the solver's binding resource */
  g_autofree double *u_sat = g_new(double, MAX(m->n_res, 1));
  for (int r = 0; r < m->n_res; r++)
    u_sat[r] = m->res[r].capacity > 0 ? m->sat_Bps * total_at(m, r, m->sat_Bps, NULL) / m->res[r].capacity : 0.0;
  m->bottleneck = name_for_binding(m, bn, u_sat, NULL);
  settle_op(m, offered_Bps);
}

/* settle()'s part that depends on the offered load: X_op = min(offered, X*) and the demands at it
 * (the rest, X* and the naming, reads the demand at idle latency alone). */
static void settle_op(DemandModel *m, double offered_Bps)
{
  m->op_Bps = offered_Bps > 0 ? MIN(offered_Bps, m->sat_Bps) : m->sat_Bps;
  g_autofree double *w = g_new(double, m->n_res);
  for (int r = 0; r < m->n_res; r++) {
    w[r] = queue_ns(m, r, m->op_Bps, NULL);
    m->total[r] = total_at(m, r, m->op_Bps, NULL);
  }
  for (int i = 0; i < m->n_class; i++) {
    DmClass *k = &m->cls[i];
    memcpy(k->demand, k->base, sizeof(double) * (size_t)m->n_res);
    for (int j = 0; j < k->n_lat; j++) k->demand[k->lat[j].res] += k->lat[j].per_ns * w[k->lat[j].dram];
  }
}

int demand_path_touches(const Appliance *a, DataPath path, gboolean include_meta, double sized_Bps, Touch out[DP_MAX_TOUCHES])
{
  for (const AppComponent *const *c = app_components(); *c; c++)
    if ((*c)->path_touches) return (*c)->path_touches(a, path, include_meta, sized_Bps, out);
  return 0;
}

/* The touches of class k's data path in the build, scaled by every component that scales them. */
static int touches_of(const AppBuild *b, const DmClass *k, Touch out[DP_MAX_TOUCHES])
{
  int n = demand_path_touches(b->a, k->path, b->include_meta, b->m->sized_Bps, out);
  const AppComponent *const *comp = app_components();
  for (int c = 0; comp[c]; c++)
    if (comp[c]->scale_touches) comp[c]->scale_touches(b, b->state[c], n, out);
  return n;
}

/* Every (agent node, memory node) pair of every touch of class k's data path, with its
 * probability under the placement policy (a random role is averaged over the nodes), handed to
 * every component. A loopback host has no touches: its costs are measured (loopback.c). */
static void touch_demand(AppBuild *b, DmClass *k)
{
  const Appliance *a = b->a;
  const AppComponent *const *comp = app_components();
  int N = b->nodes;
  if (b->loop) return;
  const NvmeDrive *drive = &a->drives[k->drive];
  const NicCard *egc = &a->nics[b->m->port_nic[k->egress]], *inc = &a->nics[b->m->port_nic[k->ingress]];
  Touch tt[DP_MAX_TOUCHES];
  int nt = touches_of(b, k, tt);
  for (int i = 0; i < nt; i++) {
    const Touch *T = &tt[i];
    int anode;
    const TopoPos *dev = NULL;
    switch (T->agent) {
      case AG_DISK:
        anode = k->disk_node;
        dev = &drive->pos;
        break;
      case AG_NIC:
        anode = b->nic_node[b->m->port_nic[k->egress]];
        dev = &egc->pos;
        break;
      case AG_INGRESS_NIC:
        anode = b->nic_node[b->m->port_nic[k->ingress]];
        dev = &inc->pos;
        break;
      case AG_CPU_CRYPTO:
      case AG_CPU_STACK: anode = app_build_cpu_node(b, k, T->agent); break;
      default: g_assert_not_reached();
    }
    gboolean same_as_agent = T->buf == BUF_USER; /* a user buffer is on its CPU's node */
    int mnode = same_as_agent ? -1 : app_build_buf_node(b, k, T->buf);
    int a_lo = anode < 0 ? 0 : anode, a_hi = anode < 0 ? N - 1 : anode;
    double pa = anode < 0 ? 1.0 / N : 1.0;
    for (int an = a_lo; an <= a_hi; an++) {
      int m_lo = same_as_agent ? an : (mnode < 0 ? 0 : mnode);
      int m_hi = same_as_agent ? an : (mnode < 0 ? N - 1 : mnode);
      double pm = (!same_as_agent && mnode < 0) ? 1.0 / N : 1.0;
      for (int mn = m_lo; mn <= m_hi; mn++) {
        AppTouch at = { .touch = T, .agent_node = an, .mem_node = mn, .dev = dev, .bytes = T->bytes * pa * pm };
        for (int c = 0; comp[c]; c++)
          if (comp[c]->touch_demand) comp[c]->touch_demand(b, b->state[c], k, &at);
      }
    }
  }
}

/* The traffic classes: every (data path, drive, ingress port, egress port) with its weight
 * (demand.h): each port the same share of the flows, whatever its line rate (the file's head). */
static void enumerate_classes(AppBuild *b, GArray *cls)
{
  const Appliance *a = b->a;
  DemandModel *m = b->m;
  int D = a->n_drives, P = m->n_ports;
  const int *dnode = b->drive_node;
  double port_w = 1.0 / P; /* the LACP hash: flows, so bytes, evenly over the ports */
  DataPath paths[2] = { a->path, a->wl.alt_path };
  double pw[2] = { 1.0 - a->wl.alt_fraction, a->wl.alt_fraction };
  g_autoptr(GArray) eg = g_array_new(FALSE, FALSE, sizeof(int));
  for (int pi = 0; pi < 2; pi++) {
    if (pw[pi] <= 0) continue;
    for (int d = 0; d < D; d++) {
      if (m->drive_share[d] <= 0) continue;
      for (int in = 0; in < P; in++) {
        int home = b->port_home[in];
        g_array_set_size(eg, 0);
        if (datapath_egress_by_content(a->egress, a->placement)) {
          for (int e = 0; e < P; e++)
            if (b->port_home[e] == dnode[d]) g_array_append_val(eg, e);
          home = dnode[d];
        } else {
          g_array_append_val(eg, in);
        }
        for (guint e = 0; e < eg->len; e++) {
          int egress = g_array_index(eg, int, e);
          DmClass k = { .path = paths[pi],
                        .drive = d,
                        .ingress = in,
                        .egress = egress,
                        .disk_node = dnode[d],
                        .egress_node = b->nic_node[m->port_nic[egress]],
                        .home_node = a->placement == PL_NONE ? -1 : home,
                        .weight = pw[pi] * m->drive_share[d] * port_w / eg->len };
          const NicCard *out = &a->nics[m->port_nic[egress]]; /* named as in the healthy box (failure.h) */
          g_snprintf(k.name, sizeof k.name, "%s nvme%d>nic%d.p%d", datapath_name(k.path), a->drives[d].id, out->id,
                     out->port_id[m->port_num[egress]]);
          g_array_append_val(cls, k);
        }
      }
    }
  }
}

/* The model with its load-dependent sizings at served throughput sized_Bps (no fixed point). */
static DemandModel *build_at(const Appliance *a, gboolean include_meta, const double *shares, WlShareCache *cache,
                             double sized_Bps, GError **error)
{
  if (!appliance_validate(a, error)) return NULL;
  const AppComponent *const *comp = app_components();
  int n_comp = 0;
  while (comp[n_comp]) n_comp++;
  DemandModel *m = g_new0(DemandModel, 1);
  m->sized_Bps = sized_Bps;
  AppBuild bb = {
    .a = a, .m = m, .nodes = topo_nodes(&a->topo), .include_meta = include_meta, .shares = shares, .share_cache = cache
  };
  AppBuild *b = &bb;
  for (int i = 0; i < a->n_nics; i++) b->loop = b->loop || a->nics[i].kind == NIC_LOOPBACK;
  b->state = g_new0(void *, n_comp);
  for (int c = 0; c < n_comp; c++) b->state[c] = comp[c]->state_size ? g_malloc0(comp[c]->state_size) : NULL;
  /* ports: global index p -> (card, port on the card) */
  m->n_ports = appliance_ports(a);
  m->port_nic = g_new(int, m->n_ports);
  m->port_num = g_new(int, m->n_ports);
  for (int i = 0, p = 0; i < a->n_nics; i++)
    for (int j = 0; j < a->nics[i].ports; j++, p++) {
      m->port_nic[p] = i;
      m->port_num[p] = j;
    }
  /* resources, component by component */
  bb.res = g_array_new(FALSE, TRUE, sizeof(DmResource));
  for (int c = 0; c < n_comp; c++)
    if (comp[c]->add_resources) comp[c]->add_resources(b, b->state[c]);
  gsize n_res;
  m->res = g_array_steal(bb.res, &n_res);
  m->n_res = (int)n_res;
  g_array_unref(bb.res);
  bb.res = NULL;
  /* the classes, over the content shares the workload set */
  GArray *cls = g_array_new(FALSE, TRUE, sizeof(DmClass));
  enumerate_classes(b, cls);
  gsize n_class;
  m->cls = g_array_steal(cls, &n_class);
  m->n_class = (int)n_class;
  g_array_unref(cls);
  /* demand of each class: its touches, then its per-class work, component by component */
  for (int i = 0; i < m->n_class; i++) {
    DmClass *k = &m->cls[i];
    k->demand = g_new0(double, m->n_res);
    bb.cur_lat = g_array_new(FALSE, FALSE, sizeof(DmLatTerm));
    touch_demand(b, k);
    for (int c = 0; c < n_comp; c++)
      if (comp[c]->class_demand) comp[c]->class_demand(b, b->state[c], k);
    gsize n_lat;
    k->lat = g_array_steal(bb.cur_lat, &n_lat);
    k->n_lat = (int)n_lat;
    g_array_unref(bb.cur_lat);
    bb.cur_lat = NULL;
  }
  /* totals at idle latency, and the load-dependent terms of the whole load */
  m->total = g_new0(double, m->n_res);
  GArray *lat = g_array_new(FALSE, FALSE, sizeof(DmLatTerm));
  for (int i = 0; i < m->n_class; i++) {
    DmClass *k = &m->cls[i];
    k->base = g_memdup2(k->demand, sizeof(double) * (size_t)m->n_res);
    for (int r = 0; r < m->n_res; r++) m->total[r] += k->weight * k->demand[r];
    for (int j = 0; j < k->n_lat; j++) app_lat_add(lat, k->lat[j].res, k->lat[j].dram, k->weight * k->lat[j].per_ns);
  }
  gsize n_lat;
  m->lat = g_array_steal(lat, &n_lat);
  m->n_lat = (int)n_lat;
  g_array_unref(lat);
  m->base_total = g_memdup2(m->total, sizeof(double) * (size_t)m->n_res);
  for (int c = 0; c < n_comp; c++)
    if (comp[c]->settle_resources) comp[c]->settle_resources(b, b->state[c]);
  settle(m, a->wl.offered_gbps > 0 ? a->wl.offered_gbps * 1e9 / 8.0 : 0.0);
  for (int c = 0; c < n_comp; c++) g_free(b->state[c]);
  g_free(b->state);
  g_free(b->cpu_res);
  g_free(b->dram_res);
  g_free(b->drive_node);
  g_free(b->nic_node);
  g_free(b->port_home);
  return m;
}

/* The sizing fixed point (the file's head): g(x) = F(x) - x, F(x) the served throughput of the
 * model sized at x. The model of the latest x is kept (the root's, once Brent stops); the models
 * at the bracket's ends are kept too, because gsl_root_fsolver_set evaluates them again. */
typedef struct {
  const Appliance *a;
  gboolean include_meta;
  const double *shares;
  DemandModel *end[2]; /* sized at 0 and at F(0) */
  DemandModel *last;   /* sized at the latest x tried, NULL when it is an end's */
  GError *error;       /* the first failing build's */
} Sizing;

static double sizing_gap(double x, void *p)
{
  Sizing *z = p;
  for (int i = 0; i < 2; i++)
    if (z->end[i]->sized_Bps == x) return z->end[i]->op_Bps - x;
  demand_free(z->last);
  z->last = build_at(z->a, z->include_meta, z->shares, NULL, x, z->error ? NULL : &z->error);
  return z->last ? z->last->op_Bps - x : GSL_NAN;
}

static DemandModel *build(const Appliance *a, gboolean include_meta, const double *shares, WlShareCache *cache, GError **error)
{
  DemandModel *m0 = build_at(a, include_meta, shares, cache, 0.0, error);
  if (!m0) return NULL;
  if (!demand_sizing_varies(a)) {
    m0->sized_Bps = m0->op_Bps; /* the demand is the same at every x: one build */
    return m0;
  }
  double hi = m0->op_Bps; /* F(0): the root lies in [0, F(0)] */
  DemandModel *m1 = build_at(a, include_meta, m0->drive_share, NULL, hi, error);
  if (!m1 || !(m1->op_Bps < hi)) { /* F(F(0)) = F(0): the demand does not depend on the load */
    demand_free(m0);
    return m1;
  }
  Sizing z = { .a = a, .include_meta = include_meta, .shares = m0->drive_share, .end = { m0, m1 } };
  gsl_function F = { .function = sizing_gap, .params = &z };
  g_autoptr(gsl_root_fsolver) s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
  int st = gsl_root_fsolver_set(s, &F, 0.0, hi);
  if (st == GSL_SUCCESS) st = sim_root_iterate(s, 0.0, SIZING_EPSREL, SIZING_MAX_ITER, NULL);
  double x = gsl_root_fsolver_root(s);
  DemandModel *m = NULL;
  if (st == GSL_SUCCESS) {
    for (int i = 0; i < 2 && !m; i++)
      if (z.end[i]->sized_Bps == x) m = g_steal_pointer(&z.end[i]);
    if (!m && z.last && z.last->sized_Bps == x) m = g_steal_pointer(&z.last);
    if (!m) m = build_at(a, include_meta, z.shares, NULL, x, error);
  } else if (z.error) {
    g_propagate_error(error, g_steal_pointer(&z.error));
  } else {
    model_fail(error, "workload", "the connection count and the load-dependent sizings found no fixed point (%s)",
               gsl_strerror(st));
  }
  g_clear_error(&z.error);
  demand_free(z.last);
  demand_free(z.end[1]);
  demand_free(z.end[0]);
  return m;
}

gboolean demand_sizing_varies(const Appliance *a)
{
  for (const AppComponent *const *c = app_components(); *c; c++)
    if ((*c)->sizing_varies && (*c)->sizing_varies(a)) return TRUE;
  return FALSE;
}

DemandModel *demand_build(const Appliance *a, GError **error)
{
  return build(a, TRUE, NULL, NULL, error);
}

DemandModel *demand_build_cached(const Appliance *a, WlShareCache *cache, GError **error)
{
  return build(a, TRUE, NULL, cache, error);
}

DemandModel *demand_build_shares(const Appliance *a, const double *drive_share, GError **error)
{
  return build(a, TRUE, drive_share, NULL, error);
}

DemandModel *demand_build_sized(const Appliance *a, const double *drive_share, double sized_Bps, GError **error)
{
  g_return_val_if_fail(sized_Bps >= 0, NULL);
  return build_at(a, TRUE, drive_share, NULL, sized_Bps, error);
}

gboolean demand_settle_at(DemandModel *m, const Appliance *a)
{
  if (demand_sizing_varies(a)) return FALSE;
  /* as build_at's last step (X* and the naming do not depend on the load: kept) and build's
   * one-build case */
  settle_op(m, a->wl.offered_gbps > 0 ? a->wl.offered_gbps * 1e9 / 8.0 : 0.0);
  m->sized_Bps = m->op_Bps;
  return TRUE;
}

void demand_free(DemandModel *m)
{
  if (!m) return;
  for (int i = 0; i < m->n_class; i++) {
    g_free(m->cls[i].demand);
    g_free(m->cls[i].base);
    g_free(m->cls[i].lat);
  }
  g_free(m->lat);
  g_free(m->base_total);
  g_free(m->cls);
  g_free(m->res);
  g_free(m->total);
  g_free(m->port_nic);
  g_free(m->port_num);
  g_free(m->port_res);
  g_free(m->drive_res);
  g_free(m->drive_share);
  g_free(m);
}

double demand_saturation_Bps(const DemandModel *m, int *bottleneck)
{
  if (bottleneck) *bottleneck = m->bottleneck;
  return m->sat_Bps;
}

double demand_total_at(const DemandModel *m, int r, double x_Bps)
{
  g_return_val_if_fail(r >= 0 && r < m->n_res, 0.0);
  return total_at(m, r, x_Bps, NULL);
}

APP_ENUM_DEFINE(demand_kind, RES_KIND_MAP);
APP_ENUM_CONF_OK(ResKind);

const char *demand_kind_name(ResKind k)
{
  return APP_ENUM_NAME_OF(demand_kind, RK_COUNT, k);
}

double demand_crossings_per_byte(const Appliance *a, const DemandModel *m, gboolean bulk_only)
{
  DemandModel *mm = (DemandModel *)m;
  g_autoptr(DemandModel) own = NULL;
  if (bulk_only) {
    own = build_at(a, FALSE, m->drive_share, NULL, m->sized_Bps, NULL);
    g_return_val_if_fail(own != NULL, 0.0);
    mm = own;
  }
  double s = 0;
  for (int r = 0; r < mm->n_res; r++)
    if (mm->res[r].kind == RK_FABRIC) s += mm->total[r];
  return s;
}
