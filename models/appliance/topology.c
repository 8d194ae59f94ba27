/* topology.c — NUMA node mapping, fabric capacities and routing (see topology.h for the
 * model and its equations). */
#include "models/appliance/topology.h"
#include "models/appliance/component.h"
#include "models/appliance/model_error.h"

APP_ENUM_DEFINE(topo_link_kind, TOPO_LINK_KIND_MAP);
APP_ENUM_DEFINE(topo_link_routing, TOPO_LINK_ROUTING_MAP);
APP_ENUM_DEFINE(topo_port_domains, TOPO_PORT_DOMAINS_MAP);
APP_ENUM_CONF_OK(TopoLinkKind);
APP_ENUM_CONF_OK(TopoLinkRouting);
APP_ENUM_CONF_OK(TopoPortDomains);

/* Bytes of one coherent line on a link (the unit of CPU reads and of device writes once they
 * cross, topology.h). */
#define TOPO_LINE_BYTES 64.0

int topo_nodes(const Topology *t)
{
  return t->sockets * t->nps;
}

int topo_quads_per_node(const Topology *t)
{
  return t->quadrants / t->nps;
}

int topo_node_of(const Topology *t, TopoPos p)
{
  if (p.socket < 0 || p.socket >= t->sockets || p.quadrant < 0 || p.quadrant >= t->quadrants) return -1;
  return p.socket * t->nps + p.quadrant / topo_quads_per_node(t);
}

/* Socket of a node. */
static int topo_socket_of_node(const Topology *t, int node)
{
  return node / t->nps;
}

double topo_interleave_remote_fraction(const Topology *t)
{
  return 1.0 - 1.0 / (double)topo_quads_per_node(t);
}

double topo_link_width_GBps(const TopoLink *l, int w)
{
  return w * (l->rate_tps / 1e9) / 8.0 * l->encoding;
}

int topo_dlwm_width(const TopoLink *l, double eff, double load_GBps, int prev)
{
  if (!l->dlwm) return l->width;
  int w = prev > 0 ? CLAMP(prev, l->dlwm_width, l->width) : l->dlwm_width;
  /* widen while the sustained traffic loads this width past dlwm_up */
  while (w < l->width && load_GBps > l->dlwm_up * topo_link_width_GBps(l, w) * eff) w = MIN(2 * w, l->width);
  /* narrow while it would load the next narrower width below dlwm_down */
  while (w > l->dlwm_width && load_GBps < l->dlwm_down * topo_link_width_GBps(l, MAX(w / 2, l->dlwm_width)) * eff)
    w = MAX(w / 2, l->dlwm_width);
  return w;
}

/* Per-direction raw capacity of an inter-socket link in GB/s at full width (DLWM widens a link
 * under sustained traffic, topology.h), before the shared fabric efficiency. */
static double topo_link_raw_GBps(const TopoLink *l)
{
  return topo_link_width_GBps(l, l->width);
}

/* Per-direction raw capacity between two distinct nodes of one socket, GB/s (number of
 * quadrant pairs between them times intra_link_Bps). */
static double topo_intra_raw_GBps(const Topology *t, int a, int b)
{
  int qpn = topo_quads_per_node(t);
  /* full mesh of quadrants: every quadrant of a talks to every quadrant of b */
  (void)a;
  (void)b;
  return (double)(qpn * qpn) * (t->intra_link_Bps / 1e9);
}

double topo_penalty_ns(const Topology *t, int a, int m)
{
  if (a == m) return 0.0;
  if (topo_socket_of_node(t, a) != topo_socket_of_node(t, m)) return t->inter_penalty_ns;
  return t->intra_penalty_ns;
}

/* Inter-socket link a device at position p uses (routing by DMA-ing device). */
static int topo_link_for_device(const Topology *t, TopoPos p)
{
  g_return_val_if_fail(t->n_links > 0, -1);
  for (int i = 0; i < t->n_links; i++)
    if (t->links[i].quad[p.socket] == p.quadrant) return i;
  return p.quadrant % t->n_links;
}

/* Validate; on error sets a message naming the key path. */
/* Validation limits: a socket's quadrants (an EPYC IO die has 4; 1 and 2 for the smaller parts),
 * the largest NPS mode (AMD EPYC's NPS1, NPS2 and NPS4; the platform files'
 * nps_supported), and the widest inter-socket link in lanes (xGMI x16 and UPI x20
 * fit; assumed headroom). */
#define TOPO_QUADS_MID      2
#define TOPO_MAX_NPS        4
#define TOPO_MAX_LINK_WIDTH 32
/* Most entries of a link group's attach list: one per link (TOPO_MAX_LINKS). */
#define TOPO_MAX_ATTACH TOPO_MAX_LINKS

static gboolean topo_validate(const Topology *t, GError **error)
{
  if (t->sockets < 1 || t->sockets > TOPO_MAX_SOCKETS)
    return model_fail(error, "topology.sockets", "must be 1..%d, got %d", TOPO_MAX_SOCKETS, t->sockets);
  if (t->quadrants != 1 && t->quadrants != TOPO_QUADS_MID && t->quadrants != TOPO_MAX_QUADS)
    return model_fail(error, "topology.quadrants", "must be 1, 2 or 4, got %d", t->quadrants);
  if (t->nps < 1 || t->nps > TOPO_MAX_NPS || !(t->nps_supported & (1u << t->nps))) {
    g_autoptr(GString) ok = g_string_new(NULL);
    for (int n = 1; n <= TOPO_MAX_NPS; n++)
      if (t->nps_supported & (1u << n)) g_string_append_printf(ok, "%sNPS%d", ok->len ? ", " : "", n);
    return model_fail(error, "topology.nps", "NPS%d is not supported by this CPU (topology.nps_supported allows %s)", t->nps,
                      ok->len ? ok->str : "none");
  }
  if (t->quadrants % t->nps != 0)
    return model_fail(error, "topology.nps", "NPS%d does not divide %d quadrants", t->nps, t->quadrants);
  if (t->cores_per_socket < 1)
    return model_fail(error, "cpu.cores_per_socket", "must be at least 1, got %d", t->cores_per_socket);
  if (t->cores_per_socket % t->nps != 0)
    return model_fail(error, "cpu.cores_per_socket", "%d cores do not split over NPS%d", t->cores_per_socket, t->nps);
  if (t->nps > 1 && t->intra_link_Bps <= 0)
    return model_fail(error, "topology.intra_link", "NPS%d needs intra-socket link bandwidth > 0", t->nps);
  if (t->sockets > 1 && t->n_links < 1)
    return model_fail(error, "topology.links", "two sockets need at least one inter-socket link");
  for (int i = 0; i < t->n_links; i++) {
    const TopoLink *l = &t->links[i];
    if (l->width < 1 || l->width > TOPO_MAX_LINK_WIDTH || l->rate_tps <= 0 || l->encoding <= 0 || l->encoding > 1)
      return model_fail(error, "topology.links", "link %d: bad width/GT/s/encoding", i);
    if (l->dlwm && (l->dlwm_width < 1 || l->dlwm_width > l->width))
      return model_fail(error, "topology.links", "link %d: DLWM width must be 1..width", i);
    if (l->dlwm && !(l->dlwm_down > 0 && l->dlwm_down < l->dlwm_up && l->dlwm_up <= 1))
      return model_fail(error, "topology.links", "link %d: DLWM needs 0 < dlwm_down < dlwm_up <= 1", i);
    if (!(l->eff_cpu_read > 0 && l->eff_cpu_read <= 1 && l->eff_dev_write > 0 && l->eff_dev_write <= 1 && l->eff_dev_read > 0 &&
          l->eff_dev_read <= 1))
      return model_fail(error, "topology.links", "link %d: per-type efficiencies must be in (0, 1]", i);
    for (int s = 0; s < t->sockets; s++)
      if (l->quad[s] < 0 || l->quad[s] >= t->quadrants)
        return model_fail(error, "topology.links", "link %d: quadrant %d on socket %d does not exist", i, l->quad[s], s);
  }
  return TRUE;
}

/* ---- the component (component.h) --------------------------------------------------------- */

#define F(m) offsetof(AppConf, m)
#define L(m) offsetof(TopoLinkGroup, m)

static const SimConfField link_schema[] = {
  { .key = "kind",
    .type = SIM_CONF_T_ENUM,
    .offset = L(link.kind),
    .enum_names = topo_link_kind_names,
    .def = "xgmi",
    .doc = "xgmi or upi" },
  { .key = "count", .type = SIM_CONF_T_INT, .offset = L(count), .def = "1", .min = "1", .max = "8", .doc = "identical links" },
  { .key = "width",
    .type = SIM_CONF_T_INT,
    .offset = L(link.width),
    .def = "16",
    .min = "1",
    .max = "32",
    .doc = "data lanes per direction" },
  /* sanity bound: UPI 10.4-24 GT/s, xGMI 16-32 GT/s */
  { .key = "rate",
    .type = SIM_CONF_T_DOUBLE,
    .offset = L(link.rate_tps),
    .unit = SIM_UNIT_TRANSFER_RATE,
    .required = true,
    .min = "100 MT/s",
    .max = "1000 GT/s",
    .doc = "per-lane rate" },
  { .key = "encoding",
    .type = SIM_CONF_T_DOUBLE,
    .offset = L(link.encoding),
    .def = "0",
    .min = "0",
    .max = "1",
    .doc = "line-code efficiency (0 = 1: xGMI x16 at 18 GT/s is 36 GB/s per direction raw, published.yaml general)" },
  { .key = "dlwm", .type = SIM_CONF_T_BOOL, .offset = L(link.dlwm), .def = "false", .doc = "dynamic link width management on" },
  { .key = "dlwm_width",
    .type = SIM_CONF_T_INT,
    .offset = L(link.dlwm_width),
    .def = "2",
    .min = "1",
    .max = "32",
    .doc = "DLWM's minimum width (nab2022: links seen \"running narrow (suspected x2)\")" },
  { .key = "dlwm_up",
    .type = SIM_CONF_T_DOUBLE,
    .offset = L(link.dlwm_up),
    .def = "0.5",
    .min = "0",
    .max = "1",
    .doc = "DLWM widens the link when sustained traffic exceeds this share of the current width's capacity (assumed)" },
  { .key = "dlwm_down",
    .type = SIM_CONF_T_DOUBLE,
    .offset = L(link.dlwm_down),
    .def = "0.25",
    .min = "0",
    .max = "1",
    .doc = "DLWM narrows it when traffic falls below this share of the narrower width's capacity (assumed; below dlwm_up: "
           "hysteresis)" },
  { .key = "eff_cpu_read",
    .type = SIM_CONF_T_DOUBLE,
    .offset = L(link.eff_cpu_read),
    .def = "1",
    .min = "0",
    .min_exclusive = true,
    .max = "1",
    .doc = "payload efficiency of CPU traffic (64-B read responses) relative to fabric_eff (assumed 1: no published figure)" },
  { .key = "eff_dev_write",
    .type = SIM_CONF_T_DOUBLE,
    .offset = L(link.eff_dev_write),
    .def = "1",
    .min = "0",
    .min_exclusive = true,
    .max = "1",
    .doc = "of device posted writes (TLPs crossing as 64-B coherent writes) relative to fabric_eff (assumed 1)" },
  { .key = "eff_dev_read",
    .type = SIM_CONF_T_DOUBLE,
    .offset = L(link.eff_dev_read),
    .def = "1",
    .min = "0",
    .min_exclusive = true,
    .max = "1",
    .doc = "of device read completions relative to fabric_eff (assumed 1)" },
  { .key = "attach",
    .type = SIM_CONF_T_LIST,
    .offset = L(attach),
    .elem_type = SIM_CONF_T_INT,
    .min = "0",
    .max_items = TOPO_MAX_ATTACH,
    .doc = "quadrant each link of the group attaches to (default 0, 1, 2, ...)" },
  SIM_CONF_END
};

const SimConfField topology_schema[] = {
  { .key = "quadrants",
    .type = SIM_CONF_T_INT,
    .offset = F(a.topo.quadrants),
    .def = "1",
    .min = "1",
    .max = "4",
    .doc = "physical quadrants (EPYC I/O-die quadrants or Naples dies) per socket" },
  { .key = "nps",
    .type = SIM_CONF_T_INT,
    .offset = F(a.topo.nps),
    .def = "1",
    .min = "1",
    .max = "4",
    .doc = "NUMA nodes per socket (BIOS NPS)" },
  { .key = "nps_supported",
    .type = SIM_CONF_T_LIST,
    .offset = F(nps_supported),
    .elem_type = SIM_CONF_T_INT,
    .min = "1",
    .max = "4",
    .doc = "NPS values the CPU supports (default [1])" },
  /* sanity bound: on-die fabric links are tens to hundreds of GB/s */
  { .key = "intra_link",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(a.topo.intra_link_Bps),
    .unit = SIM_UNIT_BYTE_RATE,
    .def = "0 GB/s",
    .min = "1 MB/s",
    .zero_ok = true,
    .max = "10 TB/s",
    .doc = "per-direction bandwidth of one quadrant-to-quadrant link" },
  /* sanity bound: a remote DRAM access adds about 100-200 ns */
  { .key = "intra_penalty",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(a.topo.intra_penalty_ns),
    .unit = SIM_UNIT_TIME,
    .def = "0 ns",
    .min = "0",
    .max = "10 us",
    .doc = "latency added by crossing to another quadrant" },
  /* sanity bound: a remote DRAM access adds about 100-200 ns */
  { .key = "inter_penalty",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(a.topo.inter_penalty_ns),
    .unit = SIM_UNIT_TIME,
    .def = "0 ns",
    .min = "0",
    .max = "10 us",
    .doc = "latency added by crossing to the other socket" },
  { .key = "port_domains",
    .type = SIM_CONF_T_ENUM,
    .offset = F(a.topo.port_domains),
    .enum_names = topo_port_domains_names,
    .def = "card",
    .doc = "NUMA domain of NIC ports without explicit domains: the card's node, or spread round robin over all nodes" },
  { .key = "links",
    .type = SIM_CONF_T_LIST,
    .offset = F(links),
    .sub = link_schema,
    .elem_size = sizeof(TopoLinkGroup),
    .doc = "inter-socket link groups" },
  { .key = "link_routing",
    .type = SIM_CONF_T_ENUM,
    .offset = F(a.topo.link_routing),
    .enum_names = topo_link_routing_names,
    .def = "by_kind",
    .doc =
        "how remote traffic picks an inter-socket link: by_kind (xgmi: device DMA by IO quadrant; upi: by address), interleave or device (topology.h)" },
  SIM_CONF_END
};

/* The NPS list as a bit set; link groups expanded into links (encoding 0 reads as 1, a link
 * without `attach` on quadrant (index mod quadrants)). */
static gboolean topology_finish(AppConf *c, const SimConfNode *root, GError **error)
{
  Topology *t = &c->a.topo;
  t->nps_supported = 0;
  if (c->nps_supported.n == 0) t->nps_supported = 1u << 1;
  for (size_t i = 0; i < c->nps_supported.n; i++) t->nps_supported |= 1u << *SIM_CONF_LIST_AT(c->nps_supported, int, i);
  t->n_links = 0;
  for (size_t g = 0; g < c->links.n; g++) {
    const TopoLinkGroup *lg = SIM_CONF_LIST_AT(c->links, TopoLinkGroup, g);
    for (int k = 0; k < lg->count; k++) {
      if (t->n_links >= TOPO_MAX_LINKS) {
        char p[40];
        g_snprintf(p, sizeof p, "topology.links[%zu].count", g);
        return app_conf_error(error, root, p, SIM_CONF_ERROR_RANGE, "at most %d inter-socket links", TOPO_MAX_LINKS);
      }
      TopoLink *l = &t->links[t->n_links++];
      *l = lg->link;
      if (!(l->encoding > 0)) l->encoding = 1.0;
      int q = (size_t)k < lg->attach.n ? *SIM_CONF_LIST_AT(lg->attach, int, k) : (t->n_links - 1) % MAX(1, t->quadrants);
      for (int s = 0; s < TOPO_MAX_SOCKETS; s++) l->quad[s] = q;
    }
  }
  return TRUE;
}

static gboolean topology_component_validate(const Appliance *a, GError **error)
{
  return topo_validate(&a->topo, error);
}

typedef struct {
  int intra[TOPO_MAX_NODES * TOPO_MAX_NODES]; /* [x * nodes + y], -1 if not on one socket */
  int inter[TOPO_MAX_LINKS * 2];              /* [link * 2 + s]: direction from socket s */
} TopoRes;

/* if.nX>nY: between the NPS nodes of a socket; <kind>.linkL.sA>sB: each inter-socket link and
 * direction; bytes/s at the shared fabric efficiency. */
static void topology_add_resources(AppBuild *b, void *state)
{
  TopoRes *s = state;
  const Topology *t = &b->a->topo;
  const Coeffs *c = &b->a->coef;
  int N = b->nodes;
  char nm[40];
  for (int i = 0; i < N * N; i++) s->intra[i] = -1;
  for (int x = 0; x < N; x++)
    for (int y = 0; y < N; y++) {
      if (x == y || topo_socket_of_node(t, x) != topo_socket_of_node(t, y)) continue;
      g_snprintf(nm, sizeof nm, "if.n%d>n%d", x, y);
      double cap = topo_intra_raw_GBps(t, x, y) * c->fabric_eff * 1e9;
      s->intra[x * N + y] = app_build_add_res(b, nm, RK_FABRIC, cap, 1.0, 1e-9, "GB/s", -1);
    }
  if (t->sockets > 1)
    for (int l = 0; l < t->n_links; l++)
      for (int d = 0; d < 2; d++) {
        const TopoLink *L = &t->links[l];
        g_snprintf(nm, sizeof nm, "%s.link%d.s%d>s%d", topo_link_kind_names[L->kind], l, d, 1 - d);
        double cap = topo_link_raw_GBps(L) * c->fabric_eff * 1e9;
        int r = app_build_add_res(b, nm, RK_FABRIC, cap, 1.0, 1e-9, "GB/s", -1);
        app_build_res(b, r)->link = l;
        app_build_res(b, r)->wait_mm1_ns = TOPO_LINE_BYTES / (cap * 1e-9); /* one line's time on the link */
        app_build_res(b, r)->wait_ns = topo_link_wait_ns;
        if (L->dlwm) app_build_res(b, r)->dlwm = *L; /* its width follows the load */
        s->inter[l * 2 + d] = r;
      }
}

/* Whether device traffic of this platform takes its quadrant's link (topology.h routing). */
static gboolean topo_routes_by_device(const Topology *t)
{
  switch (t->link_routing) {
    case TOPO_ROUTE_DEVICE: return TRUE;
    case TOPO_ROUTE_INTERLEAVE: return FALSE;
    default: return t->n_links > 0 && t->links[0].kind == TOPO_LINK_XGMI;
  }
}

/* Relative payload efficiency of a touch's traffic type on link L. */
static double topo_type_eff(const TopoLink *L, const AppTouch *tc)
{
  if (!tc->dev) return L->eff_cpu_read;
  return tc->touch->write ? L->eff_dev_write : L->eff_dev_read;
}

/* A touch between two nodes crosses the fabric in the direction of the data: a write from the
 * agent to the memory, a read back (topology.h routing), at its type's efficiency. A CPU read
 * that crosses sockets also waits on each link it uses (loaded link latency): stall cycles at
 * k_remote per ns of the link's wait, as a load-dependent term. */
static void topology_touch_demand(AppBuild *b, void *state, DmClass *k, const AppTouch *tc)
{
  const TopoRes *s = state;
  const Topology *t = &b->a->topo;
  int from = tc->touch->write ? tc->agent_node : tc->mem_node, to = tc->touch->write ? tc->mem_node : tc->agent_node;
  double bytes = tc->bytes;
  if (from == to || bytes == 0) return;
  int sf = topo_socket_of_node(t, from), st = topo_socket_of_node(t, to);
  if (sf == st) {
    k->demand[s->intra[from * b->nodes + to]] += bytes;
    return;
  }
  int l_dev = tc->dev && topo_routes_by_device(t) ? topo_link_for_device(t, *tc->dev) : -1;
  gboolean stalls = !tc->dev && !tc->touch->write && tc->touch->stall != ST_NONE && b->cpu_res;
  double stall_per_ns = stalls ? b->a->coef.k_remote * (b->a->cpu.clock_hz / 1e9) / TOPO_LINE_BYTES : 0.0;
  for (int l = 0; l < t->n_links; l++) {
    double share = l_dev >= 0 ? (l == l_dev) : 1.0 / t->n_links;
    if (share == 0) continue;
    int r = s->inter[l * 2 + sf];
    k->demand[r] += bytes * share / topo_type_eff(&t->links[l], tc);
    if (stalls) app_build_add_lat(b, b->cpu_res[tc->agent_node], r, bytes * share * stall_per_ns);
  }
}

const AppComponent topology_component = { .name = "topology",
                                          .checked_when_finished = TRUE,
                                          .state_size = sizeof(TopoRes),
                                          .finish = topology_finish,
                                          .validate = topology_component_validate,
                                          .add_resources = topology_add_resources,
                                          .touch_demand = topology_touch_demand };

gboolean topo_conf_place(const SimConfNode *root, const char *group, TopoPos pos, int node, const Topology *t, TopoPos *out,
                         GError **error)
{
  const SimConfNode *grp = sim_conf_node_find(root, group);
  g_autofree char *at = NULL;
  if (node >= 0) {
    for (int k = 0; k < 2; k++) {
      const SimConfNode *both = sim_conf_node_get(grp, k ? "quadrant" : "socket");
      if (both) {
        sim_conf_set_error(error, both, SIM_CONF_ERROR_TYPE,
                           "give a device's place either as node or as socket/quadrant, not both");
        return FALSE;
      }
    }
    if (node >= topo_nodes(t)) {
      at = g_strdup_printf("%s.node", group);
      return app_conf_error(error, root, at, SIM_CONF_ERROR_RANGE,
                            "node %d does not exist: the platform has %d NUMA node%s (%d socket%s x NPS%d)", node, topo_nodes(t),
                            topo_nodes(t) == 1 ? "" : "s", t->sockets, t->sockets == 1 ? "" : "s", t->nps);
    }
    out->socket = node / t->nps;
    out->quadrant = (node % t->nps) * topo_quads_per_node(t);
    return TRUE;
  }
  if (pos.socket >= t->sockets) {
    at = g_strdup_printf("%s.socket", group);
    return app_conf_error(error, root, at, SIM_CONF_ERROR_RANGE, "socket %d does not exist: the platform has %d", pos.socket,
                          t->sockets);
  }
  if (pos.quadrant >= t->quadrants) {
    at = g_strdup_printf("%s.quadrant", group);
    return app_conf_error(error, root, at, SIM_CONF_ERROR_RANGE, "quadrant %d does not exist: a socket has %d", pos.quadrant,
                          t->quadrants);
  }
  *out = pos;
  return TRUE;
}

/* A model validation error (model_error.h) as a located conf error at its key path. */

double topo_link_wait_ns(const DmResource *r, double rho)
{
  if (!r->dlwm.dlwm) return r->wait_mm1_ns * rho / (1.0 - rho);
  const TopoLink *l = &r->dlwm; /* widths compared on utilisation: the load at full width is rho x its capacity */
  double f = (double)l->width / topo_dlwm_width(l, 1.0, rho * topo_link_width_GBps(l, l->width), 0);
  double rw = MIN(f * rho, TOPO_WAIT_RHO_MAX);
  return f * r->wait_mm1_ns * rw / (1.0 - rw);
}
