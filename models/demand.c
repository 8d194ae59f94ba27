/* demand.c — builds the resource list and per-class demand per served byte (see demand.h
 * for the model and equations). */
#include "models/demand.h"
#include "models/model_error.h"
#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include <math.h>
#include <string.h>

/* Bytes of an inbound ACK frame on the wire per ACK (Ethernet 14 + IP 20 + TCP 32). */
#define ACK_FRAME_BYTES  66.0
#define CACHE_LINE_BYTES 64.0
#define PAGE_BYTES       4096.0

typedef struct {
  const Appliance *a;
  DemandModel *m;
  int nodes;
  int *cpu_res, *dram_res;                /* [nodes] */
  int *intra_res;                         /* [nodes*nodes], -1 if not same socket */
  int *inter_res;                         /* [links*2] direction: from socket s */
  int *nvme_res, *pcie_nvme_res;          /* [drives] */
  int *port_res;                          /* [ports] */
  int *tls_res, *pcie_nic_res, *tags_res; /* [nics] */
  int workers_res;
  bool loop; /* a loopback host (loopback.h) */
  int lb_server_res, lb_client_res;
} Build;

static int add_res(Build *b, const char *name, ResKind kind, double cap, double limit, double scale, const char *unit, int node)
{
  DemandModel *m = b->m;
  m->res = g_renew(DmResource, m->res, m->n_res + 1);
  DmResource *r = &m->res[m->n_res];
  memset(r, 0, sizeof *r);
  g_strlcpy(r->name, name, sizeof r->name);
  r->kind = kind;
  r->capacity = cap;
  r->limit = limit;
  r->value_scale = scale;
  r->unit = unit;
  r->node = node;
  r->nic = r->port = r->drive = r->link = -1;
  return m->n_res++;
}

static void build_resources(Build *b)
{
  const Appliance *a = b->a;
  const Topology *t = &a->topo;
  const Coeffs *c = &a->coef;
  char nm[40];
  int N = b->nodes;
  b->cpu_res = g_new(int, N);
  b->dram_res = g_new(int, N);
  for (int n = 0; n < N; n++) {
    double cap = appliance_cores_per_node(a) * a->cpu.clock_ghz * 1e9;
    g_snprintf(nm, sizeof nm, "cpu.node%d", n);
    /* a loopback host's sides reach only `utilisation` of the cores they hold */
    double limit = b->loop ? a->cpu.cap * a->lo.utilisation : a->cpu.cap;
    b->cpu_res[n] = add_res(b, nm, RK_CPU, cap, limit, 100.0 / cap, "%", n);
  }
  for (int n = 0; n < N; n++) {
    g_snprintf(nm, sizeof nm, "dram.node%d", n);
    b->dram_res[n] = add_res(b, nm, RK_DRAM, 0 /* set after totals */, 1.0, 1e-9, "GB/s", n);
  }
  b->lb_server_res = b->lb_client_res = -1;
  if (b->loop) {
    int cores = appliance_cores_per_node(a);
    double hz = a->cpu.clock_ghz * 1e9;
    double sc = loopback_pool_cores(a->lo.server_threads, a->lo.server_cpus, a->lo.server_free_cores, a->lo.connections, cores,
                                    a->cpu.cap) *
                hz;
    double cc = loopback_pool_cores(a->lo.client_threads, a->lo.client_cpus, a->lo.client_free_cores, a->lo.connections, cores,
                                    a->cpu.cap) *
                hz;
    b->lb_server_res = add_res(b, "loopback.server", RK_THREADS, sc, a->lo.utilisation, 100.0 / sc, "%", 0);
    b->lb_client_res = add_res(b, "loopback.client", RK_THREADS, cc, a->lo.utilisation, 100.0 / cc, "%", 0);
  }
  b->intra_res = g_new(int, N *N);
  for (int i = 0; i < N * N; i++) b->intra_res[i] = -1;
  for (int x = 0; x < N; x++)
    for (int y = 0; y < N; y++) {
      if (x == y || topo_socket_of_node(t, x) != topo_socket_of_node(t, y)) continue;
      g_snprintf(nm, sizeof nm, "if.n%d>n%d", x, y);
      double cap = topo_intra_raw_GBps(t, x, y) * c->fabric_eff * 1e9;
      b->intra_res[x * N + y] = add_res(b, nm, RK_FABRIC, cap, 1.0, 1e-9, "GB/s", -1);
    }
  b->inter_res = g_new(int, MAX(1, t->n_links) * 2);
  if (t->sockets > 1)
    for (int l = 0; l < t->n_links; l++)
      for (int s = 0; s < 2; s++) {
        const TopoLink *L = &t->links[l];
        g_snprintf(nm, sizeof nm, "%s.link%d.s%d>s%d", topo_link_kind_names[L->kind], l, s, 1 - s);
        double cap = topo_link_raw_GBps(L) * c->fabric_eff * 1e9;
        int r = add_res(b, nm, RK_FABRIC, cap, 1.0, 1e-9, "GB/s", -1);
        b->m->res[r].link = l;
        b->inter_res[l * 2 + s] = r;
      }
  b->nvme_res = g_new(int, a->n_drives);
  b->pcie_nvme_res = g_new(int, a->n_drives);
  for (int d = 0; d < a->n_drives; d++) {
    const NvmeDrive *dr = &a->drives[d];
    int node = topo_node_of(t, dr->pos);
    g_snprintf(nm, sizeof nm, "nvme%d", d);
    b->nvme_res[d] = add_res(b, nm, RK_NVME, nvme_ceiling_GBps(dr, a->wl.io_bytes) * 1e9, 1.0, 1e-9, "GB/s", node);
    b->m->res[b->nvme_res[d]].drive = d;
    g_snprintf(nm, sizeof nm, "pcie.nvme%d", d);
    b->pcie_nvme_res[d] = add_res(b, nm, RK_PCIE, pcie_link_GBps(&dr->link) * 1e9, 1.0, 1e-9, "GB/s", node);
    b->m->res[b->pcie_nvme_res[d]].drive = d;
  }
  int P = b->m->n_ports;
  b->port_res = g_new(int, P);
  b->tls_res = g_new(int, a->n_nics);
  b->pcie_nic_res = g_new(int, a->n_nics);
  b->tags_res = g_new(int, a->n_nics);
  for (int p = 0; p < P; p++) {
    const NicCard *nc = &a->nics[b->m->port_nic[p]];
    b->port_res[p] = -1;
    if (nc->kind == NIC_LOOPBACK) continue; /* no line rate: a copy into the receiving socket (CPU) */
    g_snprintf(nm, sizeof nm, "nic%d.port%d", b->m->port_nic[p], b->m->port_num[p]);
    b->port_res[p] =
        add_res(b, nm, RK_NIC_PORT, nc->port_gbps * c->port_eff * 1e9 / 8.0, 1.0, 8e-9, "Gb/s", topo_node_of(t, nc->pos));
    b->m->res[b->port_res[p]].nic = b->m->port_nic[p];
    b->m->res[b->port_res[p]].port = b->m->port_num[p];
    b->m->res[b->port_res[p]].queue_bursts = nc->queue_bytes / cpu_burst_bytes(&a->stack);
  }
  for (int i = 0; i < a->n_nics; i++) {
    const NicCard *nc = &a->nics[i];
    int node = topo_node_of(t, nc->pos);
    b->tls_res[i] = -1;
    b->pcie_nic_res[i] = b->tags_res[i] = -1;
    if (nc->kind == NIC_LOOPBACK) continue;
    if (nc->ktls_gbps > 0) {
      g_snprintf(nm, sizeof nm, "nic%d.tls", i);
      b->tls_res[i] = add_res(b, nm, RK_NIC_TLS, nc->ktls_gbps * 1e9 / 8.0, 1.0, 8e-9, "Gb/s", node);
      b->m->res[b->tls_res[i]].nic = i;
    }
    g_snprintf(nm, sizeof nm, "pcie.nic%d", i);
    b->pcie_nic_res[i] = add_res(b, nm, RK_PCIE, pcie_link_GBps(&nc->link) * 1e9, 1.0, 1e-9, "GB/s", node);
    b->m->res[b->pcie_nic_res[i]].nic = i;
    g_snprintf(nm, sizeof nm, "pcie.nic%d.tags", i);
    b->tags_res[i] = add_res(b, nm, RK_PCIE, pcie_tags(nc->link.tag_bits), 1.0, 1.0, "tags", node);
    b->m->res[b->tags_res[i]].nic = i;
  }
  b->workers_res = -1;
  if (a->sendfile == SENDFILE_SYNC && datapath_is_sendfile(a->path))
    b->workers_res = add_res(b, "sendfile.workers", RK_NVME, a->sendfile_workers, 1.0, 1.0, "workers", -1);
}

/* Adds per_ns to the load-dependent term (res, dram) of a term list. */
static void add_lat(int *n, DmLatTerm **lat, int res, int dram, double per_ns)
{
  if (per_ns == 0) return;
  for (int i = 0; i < *n; i++)
    if ((*lat)[i].res == res && (*lat)[i].dram == dram) {
      (*lat)[i].per_ns += per_ns;
      return;
    }
  *lat = g_renew(DmLatTerm, *lat, *n + 1);
  (*lat)[(*n)++] = (DmLatTerm){ res, dram, per_ns };
}

/* A role's node: fixed, or -1 for uniformly random. */
typedef struct {
  int crypto, stack, pagecache, sockbuf, meta;
} Roles;

static void add_fabric(Build *b, double *dem, int from, int to, const TopoPos *dev, double bytes)
{
  const Topology *t = &b->a->topo;
  if (from == to || bytes == 0) return;
  int sf = topo_socket_of_node(t, from), st = topo_socket_of_node(t, to);
  if (sf == st) {
    dem[b->intra_res[from * b->nodes + to]] += bytes;
    return;
  }
  if (dev && t->link_routing == TOPO_ROUTE_DEVICE) {
    int l = topo_link_for_device(t, *dev);
    dem[b->inter_res[l * 2 + sf]] += bytes;
  } else {
    for (int l = 0; l < t->n_links; l++) dem[b->inter_res[l * 2 + sf]] += bytes / t->n_links;
  }
}

static void class_demand(Build *b, DmClass *k, const Roles *ro, gboolean include_meta)
{
  const Appliance *a = b->a;
  const Topology *t = &a->topo;
  const Coeffs *c = &a->coef;
  DemandModel *m = b->m;
  double *dem = k->demand;
  int N = b->nodes;
  double f = a->cpu.clock_ghz;
  const NvmeDrive *drive = &a->drives[k->drive];
  int eg_nic = m->port_nic[k->egress], in_nic = m->port_nic[k->ingress];
  const NicCard *egc = &a->nics[eg_nic], *inc = &a->nics[in_nic];
  CryptoImpl impl = a->crypto;
  gboolean ordinary = datapath_cpu_crypto(k->path) && cpu_crypto_ordinary_stores(impl);
  double mss = cpu_mss_bytes(&a->stack);
  double ack_bytes = include_meta ? ACK_FRAME_BYTES / (2.0 * mss) : 0.0;
  if (b->loop) {
    /* a loopback host (loopback.h): measured cycles (stalls included) on its one node and
     * its two thread pools; DRAM sees only the page-cache misses; no drive DMA, port or PCIe */
    LoopbackCost lc;
    loopback_cost(&a->lo, k->path, a->wl.request_bytes, appliance_cores_per_node(a), a->cpu.cap, &lc);
    dem[b->cpu_res[0]] += lc.server_cpb + lc.client_cpb + lc.softirq_cpb;
    dem[b->lb_server_res] += lc.server_cpb;
    dem[b->lb_client_res] += lc.client_cpb;
    dem[b->dram_res[0]] += lc.miss_share;
    return;
  }
  Touch tt[DP_MAX_TOUCHES];
  int nt = datapath_touches(k->path, ordinary, include_meta ? c->meta_bytes : 0.0, ack_bytes, tt);

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
        anode = topo_node_of(t, egc->pos);
        dev = &egc->pos;
        break;
      case AG_INGRESS_NIC:
        anode = topo_node_of(t, inc->pos);
        dev = &inc->pos;
        break;
      case AG_CPU_CRYPTO: anode = ro->crypto; break;
      case AG_CPU_STACK: anode = ro->stack; break;
      default: g_assert_not_reached();
    }
    int mnode;
    gboolean same_as_agent = FALSE;
    switch (T->buf) {
      case BUF_PAGECACHE: mnode = ro->pagecache; break;
      case BUF_SOCKBUF: mnode = ro->sockbuf; break;
      case BUF_META: mnode = ro->meta; break;
      case BUF_USER:
        mnode = -1;
        same_as_agent = TRUE;
        break;
      default: g_assert_not_reached();
    }
    int a_lo = anode < 0 ? 0 : anode, a_hi = anode < 0 ? N - 1 : anode;
    double pa = anode < 0 ? 1.0 / N : 1.0;
    for (int an = a_lo; an <= a_hi; an++) {
      int m_lo = same_as_agent ? an : (mnode < 0 ? 0 : mnode);
      int m_hi = same_as_agent ? an : (mnode < 0 ? N - 1 : mnode);
      double pm = (!same_as_agent && mnode < 0) ? 1.0 / N : 1.0;
      for (int mn = m_lo; mn <= m_hi; mn++) {
        double bytes = T->bytes * pa * pm;
        dem[b->dram_res[mn]] += bytes;
        if (T->write)
          add_fabric(b, dem, an, mn, dev, bytes);
        else
          add_fabric(b, dem, mn, an, dev, bytes);
        double lat = mem_latency_ns(&a->mem, t, an, mn);
        double local = lat - topo_penalty_ns(t, an, mn), pen = topo_penalty_ns(t, an, mn);
        if (T->stall != ST_NONE) {
          double kx = T->stall == ST_BULK ? c->k_bulk : c->k_meta;
          dem[b->cpu_res[an]] += bytes * (kx * local + c->k_remote * pen) * f / CACHE_LINE_BYTES;
          add_lat(&k->n_lat, &k->lat, b->cpu_res[an], b->dram_res[mn], bytes * kx * f / CACHE_LINE_BYTES);
          m->res[b->cpu_res[an]].remote_stall += k->weight * bytes * c->k_remote * pen * f / CACHE_LINE_BYTES;
        }
        if (T->agent == AG_NIC && !T->write) {
          dem[b->tags_res[eg_nic]] += bytes * (c->pcie_rtt_ns + lat) * 1e-9 / egc->link.mrrs_bytes;
          add_lat(&k->n_lat, &k->lat, b->tags_res[eg_nic], b->dram_res[mn], bytes * 1e-9 / egc->link.mrrs_bytes);
        }
      }
    }
  }
  /* CPU work that is not a memory stall */
  double crypto_cpb = datapath_cpu_crypto(k->path) ? cpu_crypto_cpb(impl, a->cpu.uarch) : 0.0;
  double copy_cpb = datapath_copies(k->path) * c->copy_cpb;
  double seg = cpu_burst_bytes(&a->stack);
  double per_ack_event = 2.0 * mss * (a->stack.lro ? a->stack.lro_acks : 1.0);
  double stack_cpb = (c->page_cycles + (a->stack.mapped_mbufs ? c->mapped_page_cycles : 0.0)) / PAGE_BYTES + c->pkt_cycles / seg +
                     c->ack_cycles / per_ack_event;
  for (int n = 0; n < N; n++) {
    double pc = ro->crypto < 0 ? 1.0 / N : (ro->crypto == n);
    double ps = ro->stack < 0 ? 1.0 / N : (ro->stack == n);
    dem[b->cpu_res[n]] += pc * (crypto_cpb + copy_cpb) + ps * stack_cpb;
  }
  /* devices */
  dem[b->nvme_res[k->drive]] += 1.0;
  dem[b->pcie_nvme_res[k->drive]] += 1.0;
  if (b->workers_res >= 0)
    dem[b->workers_res] += (drive->latency_us * 1e-6 + a->wl.io_bytes / (drive->read_GBps * 1e9)) / a->wl.io_bytes;
  dem[b->port_res[k->egress]] += 1.0;
  dem[b->pcie_nic_res[eg_nic]] += 1.0;
  if (datapath_nic_crypto(k->path)) dem[b->tls_res[eg_nic]] += 1.0;
}

static Roles roles_for(const Appliance *a, int disk_node, int home)
{
  switch (a->placement) {
    case PL_NONE: return (Roles){ -1, -1, -1, -1, -1 };
    case PL_NETWORK_CENTRIC: return (Roles){ home, home, home, home, home };
    case PL_DISK_CENTRIC: return (Roles){ disk_node, home, disk_node, disk_node, home };
    case PL_STRICT_DISK_CENTRIC: return (Roles){ disk_node, disk_node, disk_node, disk_node, disk_node };
    default: g_assert_not_reached();
  }
}

/* Capacity of resource r with its kind's capacity scaled by scale[kind] (NULL: 1). */
static double cap_of(const DemandModel *m, int r, const double *scale)
{
  return m->res[r].capacity * (scale ? scale[m->res[r].kind] : 1.0);
}

static double queue_ns(const DemandModel *m, int dram, double x_Bps, const double *scale)
{
  double cap = cap_of(m, dram, scale);
  if (cap <= 0 || x_Bps <= 0) return 0.0;
  double rho = MIN(x_Bps * m->base_total[dram] / cap, 1.0 - 1e-9);
  return mem_queue_ns(m->dram_channels, cap * 1e-9, rho);
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
    if (h > best + 1e-12) {
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
  if (bl < 0 || m->n_lat == 0 || excess(m, x_lin * (1.0 - 1e-12), scale, NULL) <= 0) return x_lin;
  SatCtx ctx = { m, scale };
  gsl_function F = { .function = excess_fn, .params = &ctx };
  gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
  gsl_root_fsolver_set(s, &F, 0.0, x_lin);
  int st = GSL_CONTINUE;
  for (int it = 0; it < 200 && st == GSL_CONTINUE; it++) {
    gsl_root_fsolver_iterate(s);
    st = gsl_root_test_interval(gsl_root_fsolver_x_lower(s), gsl_root_fsolver_x_upper(s), 0, 1e-12);
  }
  double x = gsl_root_fsolver_x_lower(s); /* every resource still within its limit */
  gsl_root_fsolver_free(s);
  if (binding) {
    double xu = x * (1.0 + 1e-9);
    excess(m, xu, scale, binding);
  }
  return x;
}

/* Solves X*, names the bottleneck and evaluates demands at X_op = min(offered, X*). */
static void settle(DemandModel *m, double offered_Bps)
{
  int bn = -1;
  m->sat_Bps = saturation(m, NULL, &bn);
  m->bottleneck = bn;
  m->stall_named = FALSE;
  gboolean cpu_lat = FALSE;
  for (int i = 0; i < m->n_lat; i++) cpu_lat = cpu_lat || m->lat[i].res == bn;
  if (bn >= 0 && m->res[bn].kind == RK_CPU && cpu_lat) {
    /* which 1 % upgrade buys more: cycles or DRAM bandwidth? */
    double up_cpu[RK_COUNT], up_dram[RK_COUNT];
    for (int k = 0; k < RK_COUNT; k++) up_cpu[k] = up_dram[k] = 1.0;
    up_cpu[RK_CPU] = up_dram[RK_DRAM] = 1.01;
    if (saturation(m, up_dram, NULL) > saturation(m, up_cpu, NULL)) {
      double hi = -1;
      for (int r = 0; r < m->n_res; r++)
        if (m->res[r].kind == RK_DRAM && m->res[r].capacity > 0) {
          double u = m->sat_Bps * m->base_total[r] / m->res[r].capacity;
          if (u > hi + 1e-12) {
            hi = u;
            m->bottleneck = r;
          }
        }
      m->stall_named = TRUE;
    }
  }
  m->op_Bps = offered_Bps > 0 ? MIN(offered_Bps, m->sat_Bps) : m->sat_Bps;
  g_autofree double *w = g_new(double, m->n_res);
  for (int r = 0; r < m->n_res; r++) {
    w[r] = m->res[r].kind == RK_DRAM ? queue_ns(m, r, m->op_Bps, NULL) : 0.0;
    m->total[r] = total_at(m, r, m->op_Bps, NULL);
  }
  for (int i = 0; i < m->n_class; i++) {
    DmClass *k = &m->cls[i];
    memcpy(k->demand, k->base, sizeof(double) * (size_t)m->n_res);
    for (int j = 0; j < k->n_lat; j++) k->demand[k->lat[j].res] += k->lat[j].per_ns * w[k->lat[j].dram];
  }
}

static DemandModel *build(const Appliance *a, gboolean include_meta, const double *shares, GError **error)
{
  if (!appliance_validate(a, error)) return NULL;
  const Topology *t = &a->topo;
  DemandModel *m = g_new0(DemandModel, 1);
  Build b = { .a = a, .m = m, .nodes = topo_nodes(t) };
  for (int i = 0; i < a->n_nics; i++) b.loop = b.loop || a->nics[i].kind == NIC_LOOPBACK;
  m->n_ports = appliance_ports(a);
  m->port_nic = g_new(int, m->n_ports);
  m->port_num = g_new(int, m->n_ports);
  for (int i = 0, p = 0; i < a->n_nics; i++)
    for (int j = 0; j < a->nics[i].ports; j++, p++) {
      m->port_nic[p] = i;
      m->port_num[p] = j;
    }
  build_resources(&b);

  int D = a->n_drives, P = m->n_ports;
  g_autofree int *dnode = g_new(int, D);
  for (int d = 0; d < D; d++) dnode[d] = topo_node_of(t, a->drives[d].pos);
  m->drive_share = g_new(double, D);
  if (shares)
    memcpy(m->drive_share, shares, sizeof(double) * (size_t)D);
  else
    workload_drive_shares(&a->wl, D, dnode, b.nodes, a->seed, m->drive_share);
  g_autofree double *port_w = g_new(double, P);
  double sw = 0;
  for (int p = 0; p < P; p++) sw += (port_w[p] = a->nics[m->port_nic[p]].port_gbps);
  for (int p = 0; p < P; p++) port_w[p] = sw > 0 ? port_w[p] / sw : 1.0 / P; /* loopback: no line rate */

  DataPath paths[2] = { a->path, a->wl.alt_path };
  double pw[2] = { 1.0 - a->wl.alt_fraction, a->wl.alt_fraction };
  for (int pi = 0; pi < 2; pi++) {
    if (pw[pi] <= 0) continue;
    for (int d = 0; d < D; d++) {
      if (m->drive_share[d] <= 0) continue;
      for (int in = 0; in < P; in++) {
        const NicCard *inc = &a->nics[m->port_nic[in]];
        int home = nic_port_domain(inc, t, m->port_num[in]);
        int eg[64], ne = 0;
        if (a->placement == PL_STRICT_DISK_CENTRIC) {
          for (int e = 0; e < P && ne < 64; e++)
            if (nic_port_domain(&a->nics[m->port_nic[e]], t, m->port_num[e]) == dnode[d]) eg[ne++] = e;
          home = dnode[d];
        } else {
          eg[ne++] = in;
        }
        for (int e = 0; e < ne; e++) {
          m->cls = g_renew(DmClass, m->cls, m->n_class + 1);
          DmClass *k = &m->cls[m->n_class++];
          memset(k, 0, sizeof *k);
          k->path = paths[pi];
          k->drive = d;
          k->ingress = in;
          k->egress = eg[e];
          k->disk_node = dnode[d];
          k->egress_node = topo_node_of(t, a->nics[m->port_nic[eg[e]]].pos);
          k->home_node = a->placement == PL_NONE ? -1 : home;
          k->weight = pw[pi] * m->drive_share[d] * port_w[in] / ne;
          g_snprintf(k->name, sizeof k->name, "%s nvme%d>nic%d.p%d", datapath_name(k->path), d, m->port_nic[eg[e]],
                     m->port_num[eg[e]]);
          k->demand = g_new0(double, 1); /* sized below */
        }
      }
    }
  }
  /* resources are final now: size demand vectors and fill them */
  for (int i = 0; i < m->n_class; i++) {
    DmClass *k = &m->cls[i];
    g_free(k->demand);
    k->demand = g_new0(double, m->n_res);
    Roles ro = roles_for(a, k->disk_node, k->home_node);
    class_demand(&b, k, &ro, include_meta);
  }
  m->total = g_new0(double, m->n_res);
  for (int i = 0; i < m->n_class; i++) {
    DmClass *k = &m->cls[i];
    k->base = g_memdup2(k->demand, sizeof(double) * (size_t)m->n_res);
    for (int r = 0; r < m->n_res; r++) m->total[r] += k->weight * k->demand[r];
    for (int j = 0; j < k->n_lat; j++) add_lat(&m->n_lat, &m->lat, k->lat[j].res, k->lat[j].dram, k->weight * k->lat[j].per_ns);
  }
  m->base_total = g_memdup2(m->total, sizeof(double) * (size_t)m->n_res);
  /* DRAM read/write split and mix-dependent capacity: recount reads/writes per node */
  for (int n = 0; n < b.nodes; n++) {
    m->res[b.dram_res[n]].rd = 0;
    m->res[b.dram_res[n]].wr = 0;
  }
  {
    /* second pass over touches for the split: reuse class_demand on a scratch vector with
     * only-writes; cheaper to recompute with a flag is overkill, so compute via touches */
    for (int i = 0; i < m->n_class; i++) {
      DmClass *k = &m->cls[i];
      if (b.loop) { /* page-cache misses only, all reads */
        m->res[b.dram_res[0]].rd += k->weight * m->cls[i].demand[b.dram_res[0]];
        continue;
      }
      Roles ro = roles_for(a, k->disk_node, k->home_node);
      gboolean ordinary = datapath_cpu_crypto(k->path) && cpu_crypto_ordinary_stores(a->crypto);
      Touch tt[DP_MAX_TOUCHES];
      double mss = cpu_mss_bytes(&a->stack);
      int nt = datapath_touches(k->path, ordinary, include_meta ? a->coef.meta_bytes : 0.0,
                                include_meta ? ACK_FRAME_BYTES / (2.0 * mss) : 0.0, tt);
      for (int j = 0; j < nt; j++) {
        int mnode;
        switch (tt[j].buf) {
          case BUF_PAGECACHE: mnode = ro.pagecache; break;
          case BUF_SOCKBUF: mnode = ro.sockbuf; break;
          case BUF_META: mnode = ro.meta; break;
          default: mnode = ro.crypto; break; /* user buffer: on the crypto CPU's node */
        }
        for (int n = 0; n < b.nodes; n++) {
          double p = mnode < 0 ? 1.0 / b.nodes : (mnode == n);
          if (p == 0) continue;
          if (tt[j].write)
            m->res[b.dram_res[n]].wr += k->weight * tt[j].bytes * p;
          else
            m->res[b.dram_res[n]].rd += k->weight * tt[j].bytes * p;
        }
      }
    }
  }
  for (int n = 0; n < b.nodes; n++) {
    DmResource *r = &m->res[b.dram_res[n]];
    double tot = r->rd + r->wr;
    double w = tot > 0 ? r->wr / tot : 0.5;
    r->capacity = mem_node_GBps(&a->mem, t, a->coef.dram_eff, a->coef.dram_turnaround, w) * 1e9;
  }
  m->dram_channels = mem_node_channels(&a->mem, t);
  settle(m, a->wl.offered_gbps > 0 ? a->wl.offered_gbps * 1e9 / 8.0 : 0.0);
  g_free(b.cpu_res);
  g_free(b.dram_res);
  g_free(b.intra_res);
  g_free(b.inter_res);
  g_free(b.nvme_res);
  g_free(b.pcie_nvme_res);
  g_free(b.port_res);
  g_free(b.tls_res);
  g_free(b.pcie_nic_res);
  g_free(b.tags_res);
  return m;
}

DemandModel *demand_build(const Appliance *a, GError **error)
{
  return build(a, TRUE, NULL, error);
}

DemandModel *demand_build_shares(const Appliance *a, const double *drive_share, GError **error)
{
  return build(a, TRUE, drive_share, error);
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
  g_free(m->drive_share);
  g_free(m);
}

int demand_find(const DemandModel *m, const char *name)
{
  for (int r = 0; r < m->n_res; r++)
    if (strcmp(m->res[r].name, name) == 0) return r;
  return -1;
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

double demand_dram_queue_ns(const DemandModel *m, int dram, double x_Bps)
{
  g_return_val_if_fail(dram >= 0 && dram < m->n_res && m->res[dram].kind == RK_DRAM, 0.0);
  return queue_ns(m, dram, x_Bps, NULL);
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
    own = build(a, FALSE, m->drive_share, NULL);
    g_return_val_if_fail(own != NULL, 0.0);
    mm = own;
  }
  double s = 0;
  for (int r = 0; r < mm->n_res; r++)
    if (mm->res[r].kind == RK_FABRIC) s += mm->total[r];
  return s;
}
