/* nic.c — NIC placement and port domains (see nic.h). */
#include "models/appliance/nic.h"
#include "models/appliance/component.h"
#include "models/appliance/model_error.h"
#include <math.h>

/* |rho - 1| below this takes the rho = 1 limit of the drop fraction, 1 / (K + 1): rounding.
 * Assumed. */
#define NIC_RHO_ONE_SLACK 1e-12
/* Most entries of a card's ports.domains list: one per port, and the ports key allows at most
 * 4 per card. */
#define NIC_MAX_PORT_DOMAINS 4

APP_ENUM_DEFINE(nic_kind, NIC_KIND_MAP);
APP_ENUM_CONF_OK(NicKind);

int nic_port_domain(const NicCard *n, const Topology *t, int p)
{
  g_return_val_if_fail(p >= 0 && p < n->ports, -1);
  return n->domain[p] >= 0 ? n->domain[p] : topo_node_of(t, n->pos);
}

/* Checks a card against the platform; burst_bytes (cpu_burst_bytes) is the least output queue
 * a port needs. Errors name keypath (e.g. "nics[1]"). */
static gboolean nic_validate(const NicCard *n, const Topology *t, double burst_bytes, const char *keypath, GError **error)
{
  if (topo_node_of(t, n->pos) < 0)
    return model_fail(error, keypath, "NIC placed on socket %d quadrant %d, which does not exist", n->pos.socket,
                      n->pos.quadrant);
  if (n->kind == NIC_LOOPBACK) {
    if (n->ktls_bps > 0) return model_fail(error, keypath, "a loopback NIC has no kTLS engine");
    return TRUE;
  }
  if (n->ports < 1 || n->ports > NIC_MAX_PORTS)
    return model_fail(error, keypath, "ports must be 1..%d, got %d", NIC_MAX_PORTS, n->ports);
  if (n->link.functions > n->ports) {
    g_autofree char *kf = g_strdup_printf("%s.pcie.functions", keypath);
    return model_fail(error, kf, "%d requester functions on a %d-port card: at most one per port", n->link.functions, n->ports);
  }
  if (n->port_bps <= 0) return model_fail(error, keypath, "port speed must be positive");
  if (n->ktls_bps < 0) return model_fail(error, keypath, "kTLS engine cap cannot be negative");
  if (n->tls_cache < 0) {
    g_autofree char *ks = g_strdup_printf("%s.tls_context_cache", keypath);
    return model_fail(error, ks, "cannot be negative, got %g contexts", n->tls_cache);
  }
  if (n->queue_bytes < burst_bytes) {
    g_autofree char *kq = g_strdup_printf("%s.queue", keypath);
    return model_fail(error, kq,
                      "an output queue of %.0f B cannot hold one %.0f B burst from the stack "
                      "(stack.tso_size, or one MSS without TSO)",
                      n->queue_bytes, burst_bytes);
  }
  for (int p = 0; p < n->ports; p++)
    if (n->domain[p] >= topo_nodes(t))
      return model_fail(error, keypath, "port %d is bound to NUMA node %d, but the platform has %d nodes", p, n->domain[p],
                        topo_nodes(t));
  g_autofree char *kp = g_strdup_printf("%s.pcie", keypath);
  return pcie_validate(&n->link, kp, error);
}

double nic_port_queue_bursts(const NicCard *n, double burst_bytes)
{
  g_return_val_if_fail(burst_bytes > 0, 1.0);
  double k = n->queue_bytes / burst_bytes;
  if (n->ring > 0 && n->desc_bytes > 0) k = MIN(k, n->ring / (ceil(burst_bytes / n->desc_bytes) + 1.0));
  return MAX(k, 1.0);
}

double nic_port_drop_fraction(double rho, double k_bursts)
{
  g_return_val_if_fail(k_bursts >= 1.0, 1.0);
  if (!(rho > 0)) return 0.0;
  if (fabs(rho - 1.0) < NIC_RHO_ONE_SLACK) return 1.0 / (k_bursts + 1.0);
  if (rho < 1.0) return (1.0 - rho) * pow(rho, k_bursts) / (1.0 - pow(rho, k_bursts + 1.0));
  double r = 1.0 / rho;
  return (1.0 - r) / (1.0 - pow(r, k_bursts + 1.0));
}

/* ---- the component (component.h) --------------------------------------------------------- */

#define G(m) offsetof(NicGroup, m)

const SimConfField nic_group_schema[] = {
  { .key = "kind",
    .type = SIM_CONF_T_ENUM,
    .offset = G(card.kind),
    .enum_names = nic_kind_names,
    .def = "pcie",
    .doc = "pcie: a card; loopback: the clients run on this host, the port is a copy into their sockets (needs `loopback:`)" },
  { .key = "count",
    .type = SIM_CONF_T_INT,
    .offset = G(count),
    .def = "1",
    .min = "1",
    .max = "16",
    .doc = "identical cards in this group" },
  TOPO_PLACE_ROWS(G(card.pos), G(node)),
  { .key = "model", .type = SIM_CONF_T_STRING, .offset = G(model), .doc = "card model (documentation)" },
  { .key = "ports",
    .type = SIM_CONF_T_INT,
    .offset = G(card.ports),
    .def = "2",
    .min = "1",
    .max = "4",
    .doc = "ports per card" },
  /* sanity bound: Ethernet ports run 1 Mb/s to 800 Gb/s today */
  { .key = "port_speed",
    .type = SIM_CONF_T_DOUBLE,
    .offset = G(card.port_bps),
    .unit = SIM_UNIT_BIT_RATE,
    .def = "0 Gb/s",
    .min = "1 Mb/s",
    .zero_ok = true,
    .max = "100 Tb/s",
    .doc = "line rate of one port (required for kind pcie)" },
  /* sanity bound: as port_speed */
  { .key = "ktls",
    .type = SIM_CONF_T_DOUBLE,
    .offset = G(card.ktls_bps),
    .unit = SIM_UNIT_BIT_RATE,
    .def = "0 Gb/s",
    .min = "1 Mb/s",
    .zero_ok = true,
    .max = "100 Tb/s",
    .doc = "inline kTLS engine cap per card (0: no engine)" },
  /* sanity bound: NIC buffers and rings hold MiBs */
  { .key = "queue",
    .type = SIM_CONF_T_DOUBLE,
    .whole = true,
    .offset = G(card.queue_bytes),
    .unit = SIM_UNIT_SIZE,
    .def = "16 MiB",
    .min = "1",
    .max = "1 GiB",
    .doc =
        "output queue per port (assumption: ring + NIC buffer); in TSO bursts, the K of the port's M/M/1/K drop fraction (smaller drops more below line rate)" },
  { .key = "ring",
    .type = SIM_CONF_T_INT,
    .offset = G(card.ring),
    .def = "0",
    .min = "0",
    .max = "65536",
    .doc = "transmit descriptors per queue (0: not modelled); with desc_bytes it caps the queue in TSO bursts (nic.h)" },
  { .key = "desc_bytes",
    .type = SIM_CONF_T_DOUBLE,
    .whole = true,
    .offset = G(card.desc_bytes),
    .unit = SIM_UNIT_SIZE,
    .def = "4 KiB",
    .min = "64",
    .doc = "payload bytes per transmit descriptor (4 KiB: one page of an unmapped mbuf chain; assumed)" },
  /* sanity bound: inline-TLS NICs serve up to millions of connections */
  { .key = "tls_context_cache",
    .type = SIM_CONF_T_DOUBLE,
    .whole = true,
    .offset = G(card.tls_cache),
    .def = "65536",
    .min = "0",
    .max = "100000000",
    .doc =
        "TLS contexts the inline kTLS engine caches on the card (0: none); misses max(0, 1 - cache / connections) of bursts (64 Ki assumed; docs/model/nic.md)" },
  { .key = "tls_context_bytes",
    .type = SIM_CONF_T_DOUBLE,
    .whole = true,
    .offset = G(card.tls_ctx_bytes),
    .unit = SIM_UNIT_SIZE,
    .def = "128 B",
    .min = "16",
    .max = "64 KiB",
    .doc =
        "bytes of one connection's TLS context, fetched on a cache miss and held in host RAM (128 B: mlx5 PRM tls_static_params + tls_progress_params + key)" },
  { .key = "domains",
    .type = SIM_CONF_T_LIST,
    .offset = G(domains),
    .elem_type = SIM_CONF_T_INT,
    .min = "0",
    .max_items = NIC_MAX_PORT_DOMAINS,
    .doc = "NUMA domain each port's connections are bound to (default: the card's node)" },
  { .key = "pcie", .type = SIM_CONF_T_MAP, .offset = G(card.link), .sub = pcie_schema, .doc = "the card's PCIe link" },
  SIM_CONF_END
};

/* Expands each group into `count` cards at its place, with the ports' domains (given, or
 * spread over the nodes by topology.port_domains). */
static gboolean nic_finish(AppConf *c, const SimConfNode *root, GError **error)
{
  Appliance *a = &c->a;
  const Topology *t = &a->topo;
  a->n_nics = 0;
  for (size_t g = 0; g < c->nics.n; g++) {
    const NicGroup *ng = SIM_CONF_LIST_AT(c->nics, NicGroup, g);
    char path[48];
    g_snprintf(path, sizeof path, "nics[%zu]", g);
    TopoPos pos;
    if (!topo_conf_place(root, path, ng->card.pos, ng->node, t, &pos, error)) return FALSE;
    if (ng->card.kind == NIC_PCIE && !(ng->card.port_bps > 0)) {
      const SimConfNode *grp = sim_conf_node_find(root, path), *speed = sim_conf_node_get(grp, "port_speed");
      sim_conf_set_error(error, speed ? speed : grp, speed ? SIM_CONF_ERROR_RANGE : SIM_CONF_ERROR_MISSING,
                         speed ? "a PCIe NIC's port speed must be positive"
                               : "missing required key 'port_speed' (line rate of one port)");
      return FALSE;
    }
    /* the TLS context cache is the inline engine's: never silently unused on a card without one */
    static const char *const ctx_keys[] = { "tls_context_cache", "tls_context_bytes" };
    for (size_t i = 0; i < G_N_ELEMENTS(ctx_keys) && !nic_inline_tls(&ng->card); i++) {
      const SimConfNode *key = sim_conf_node_get(sim_conf_node_find(root, path), ctx_keys[i]);
      if (!key) continue;
      sim_conf_set_error(error, key, SIM_CONF_ERROR_RANGE, "%s applies to a card with an inline kTLS engine (ktls > 0)",
                         ctx_keys[i]);
      return FALSE;
    }
    int ports = ng->card.ports;
    if (ng->domains.n > 0 && (int)ng->domains.n != ports * ng->count) {
      g_snprintf(path, sizeof path, "nics[%zu].domains", g);
      return app_conf_error(error, root, path, SIM_CONF_ERROR_RANGE, "give one domain per port (%d), got %zu", ports * ng->count,
                            ng->domains.n);
    }
    for (int k = 0; k < ng->count; k++) {
      if (a->n_nics >= APP_MAX_NICS)
        return app_conf_error(error, root, "nics", SIM_CONF_ERROR_RANGE, "at most %d NICs", APP_MAX_NICS);
      NicCard *n = &a->nics[a->n_nics++];
      *n = ng->card;
      n->group = (int)g;
      n->id = a->n_nics - 1;
      for (int p = 0; p < NIC_MAX_PORTS; p++) n->port_id[p] = n->fn_id[p] = p;
      n->fn_named = n->link.functions;
      n->pos = pos;
      for (int p = 0; p < NIC_MAX_PORTS; p++) n->domain[p] = -1;
      for (int p = 0; p < ports && ng->domains.n > 0; p++) {
        int dom = *SIM_CONF_LIST_AT(ng->domains, int, (size_t)(k * ports + p));
        if (dom >= topo_nodes(t)) {
          g_snprintf(path, sizeof path, "nics[%zu].domains[%d]", g, k * ports + p);
          return app_conf_error(error, root, path, SIM_CONF_ERROR_RANGE,
                                "port bound to NUMA node %d, but the platform has %d nodes", dom, topo_nodes(t));
        }
        n->domain[p] = dom;
      }
    }
  }
  if (t->port_domains == TOPO_PORTS_SPREAD) { /* global port p -> node p mod N */
    int p = 0;
    for (int i = 0; i < a->n_nics; i++)
      for (int j = 0; j < a->nics[i].ports; j++, p++)
        if (a->nics[i].domain[j] < 0) a->nics[i].domain[j] = p % topo_nodes(t);
  }
  return TRUE;
}

static gboolean nic_component_validate(const Appliance *a, GError **error)
{
  if (a->n_nics < 1 || a->n_nics > APP_MAX_NICS)
    return model_fail(error, "nics", "need 1..%d NICs, got %d", APP_MAX_NICS, a->n_nics);
  for (int i = 0; i < a->n_nics; i++) {
    char kp[32];
    g_snprintf(kp, sizeof kp, "nics[%d]", a->nics[i].group);
    if (!nic_validate(&a->nics[i], &a->topo, cpu_burst_bytes(&a->stack), kp, error)) return FALSE;
  }
  return TRUE;
}

typedef struct {
  int tls[APP_MAX_NICS], pcie[APP_MAX_NICS]; /* -1: none */
  int tags[APP_MAX_NICS][NIC_MAX_PORTS];     /* [card][requester function] */
} NicRes;

/* nicN.portP: TLS payload bytes/s of a port (line rate x port_eff); per card nicN.tls (inline
 * engine), pcie.nicN (its link) and pcie.nicN.tags (outstanding reads, pcie.h). A loopback
 * "port" has none of them. */
static void nic_add_resources(AppBuild *b, void *state)
{
  NicRes *s = state;
  const Appliance *a = b->a;
  DemandModel *m = b->m;
  char nm[40];
  m->port_res = g_new(int, m->n_ports);
  b->port_home = g_new(int, m->n_ports);
  b->nic_node = g_new(int, a->n_nics);
  for (int i = 0; i < a->n_nics; i++) b->nic_node[i] = topo_node_of(&a->topo, a->nics[i].pos);
  for (int p = 0; p < m->n_ports; p++) {
    const NicCard *nc = &a->nics[m->port_nic[p]];
    m->port_res[p] = -1;
    b->port_home[p] = nic_port_domain(nc, &a->topo, m->port_num[p]);
    if (nc->kind == NIC_LOOPBACK) continue; /* no line rate: a copy into the receiving socket (CPU) */
    g_snprintf(nm, sizeof nm, "nic%d.port%d", nc->id, nc->port_id[m->port_num[p]]); /* the healthy box's names */
    int r = app_build_add_res(b, nm, RK_NIC_PORT, nc->port_bps * a->coef.port_eff / 8.0 /* B/s of TLS payload */, 1.0, 8e-9,
                              "Gb/s", topo_node_of(&a->topo, nc->pos));
    DmResource *res = app_build_res(b, r);
    res->nic = m->port_nic[p];
    res->port = m->port_num[p];
    res->queue_bursts = nic_port_queue_bursts(nc, cpu_burst_bytes(&a->stack));
    m->port_res[p] = r;
  }
  for (int i = 0; i < a->n_nics; i++) {
    const NicCard *nc = &a->nics[i];
    int node = topo_node_of(&a->topo, nc->pos);
    s->tls[i] = s->pcie[i] = -1;
    for (int f = 0; f < NIC_MAX_PORTS; f++) s->tags[i][f] = -1;
    if (nc->kind == NIC_LOOPBACK) continue;
    if (nc->ktls_bps > 0) {
      g_snprintf(nm, sizeof nm, "nic%d.tls", nc->id);
      s->tls[i] = app_build_add_res(b, nm, RK_NIC_TLS, nc->ktls_bps / 8.0, 1.0, 8e-9, "Gb/s", node);
      app_build_res(b, s->tls[i])->nic = i;
    }
    g_snprintf(nm, sizeof nm, "pcie.nic%d", nc->id);
    s->pcie[i] = app_build_add_res(b, nm, RK_PCIE, pcie_link_GBps(&nc->link) * 1e9, 1.0, 1e-9, "GB/s", node);
    app_build_res(b, s->pcie[i])->nic = i;
    for (int f = 0; f < nc->link.functions; f++) { /* one tag space per requester function (pcie.h) */
      if (nc->fn_named > 1)                        /* named as on the healthy card (failure.h) */
        g_snprintf(nm, sizeof nm, "pcie.nic%d.f%d.tags", nc->id, nc->fn_id[f]);
      else
        g_snprintf(nm, sizeof nm, "pcie.nic%d.tags", nc->id);
      s->tags[i][f] = app_build_add_res(b, nm, RK_PCIE, pcie_tags(nc->link.tag_bits), 1.0, 1.0, "tags", node);
      app_build_res(b, s->tags[i][f])->nic = i;
    }
  }
}

/* Tag space of the requester function that class k's egress port reads through. */
static int nic_tags_res(const AppBuild *b, const NicRes *s, const DmClass *k)
{
  int nic = b->m->port_nic[k->egress];
  return s->tags[nic][b->m->port_num[k->egress] % b->a->nics[nic].link.functions];
}

/* A NIC DMA read holds a PCIe tag of its port's function for the link's read round trip and the
 * line's DRAM latency, per MRRS bytes (pcie.h), and longer by the DRAM load term. */
static void nic_touch_demand(AppBuild *b, void *state, DmClass *k, const AppTouch *t)
{
  const NicRes *s = state;
  if (t->touch->agent != AG_NIC || t->touch->write) return;
  if (g_strcmp0(t->touch->what, NIC_TLS_CTX_TOUCH) == 0) return; /* whole read requests: nic_nonpayload_demand */
  const Appliance *a = b->a;
  const NicCard *egc = &a->nics[b->m->port_nic[k->egress]];
  int tags = nic_tags_res(b, s, k);
  double lat = mem_latency_ns(&a->mem, &a->topo, t->agent_node, t->mem_node);
  k->demand[tags] += t->bytes * (egc->link.read_rtt_ns + lat) * 1e-9 / egc->link.mrrs_bytes;
  app_build_add_lat(b, tags, b->dram_res[t->mem_node], t->bytes * 1e-9 / egc->link.mrrs_bytes);
}

/* Largest TLS record payload (RFC 8446 Sec. 5.1: 2^14 bytes), the unit of ctx_reads. */
#define NIC_TLS_RECORD_BYTES 16384.0

/* Non-payload reads of class k's card per served byte: wqe_reads per TSO burst and, with the
 * inline engine, ctx_reads per TLS record and the context fetches of the bursts that miss the
 * card's context cache (nic.h), each holding a tag of the port's function for the round trip and
 * a local DRAM access (pcie.h). The fetched context also crosses the card's link. */
static void nic_nonpayload_demand(AppBuild *b, const NicRes *s, DmClass *k)
{
  const Appliance *a = b->a;
  int nic = b->m->port_nic[k->egress];
  const NicCard *egc = &a->nics[nic];
  int node = topo_node_of(&a->topo, egc->pos);
  double burst = cpu_burst_bytes(&a->stack), reads = egc->link.wqe_reads / burst;
  if (datapath_nic_crypto(k->path)) {
    double fetch = nic_tls_context_miss(a, nic, b->m->sized_Bps) / burst;
    k->demand[s->pcie[nic]] += fetch * egc->tls_ctx_bytes;
    reads += egc->link.ctx_reads / NIC_TLS_RECORD_BYTES;
    reads += fetch * ceil(egc->tls_ctx_bytes / egc->link.mrrs_bytes);
  }
  double lat = egc->link.read_rtt_ns + mem_latency_ns(&a->mem, &a->topo, node, node);
  k->demand[nic_tags_res(b, s, k)] += reads * lat * 1e-9;
}

/* Every served byte leaves by the class's egress port over its card's link, and through the
 * card's TLS engine when the NIC encrypts. */
static void nic_class_demand(AppBuild *b, void *state, DmClass *k)
{
  const NicRes *s = state;
  if (b->loop) return;
  int nic = b->m->port_nic[k->egress];
  k->demand[b->m->port_res[k->egress]] += 1.0;
  k->demand[s->pcie[nic]] += 1.0;
  if (datapath_nic_crypto(k->path)) k->demand[s->tls[nic]] += 1.0;
  nic_nonpayload_demand(b, s, k);
}

const AppComponent nic_component = { .name = "nic",
                                     .state_size = sizeof(NicRes),
                                     .finish = nic_finish,
                                     .validate = nic_component_validate,
                                     .add_resources = nic_add_resources,
                                     .class_demand = nic_class_demand,
                                     .touch_demand = nic_touch_demand,
                                     .sizing_varies = nic_tls_context_varies };

const char NIC_TLS_CTX_TOUCH[] = "NIC context fetch";

gboolean nic_inline_tls(const NicCard *n)
{
  return n->kind == NIC_PCIE && n->ktls_bps > 0;
}

double nic_port_share(const Appliance *a, int card)
{
  g_return_val_if_fail(card >= 0 && card < a->n_nics, 0.0);
  int ports = appliance_ports(a);
  return ports > 0 ? (double)a->nics[card].ports / ports : 0.0;
}

double nic_tls_context_connections(const Appliance *a, int card, double sized_Bps)
{
  double share = nic_port_share(a, card);
  if (!(share > 0)) return 0.0;
  return workload_connections(&a->wl, sized_Bps) * share * datapath_appliance_share(a, datapath_nic_crypto);
}

double nic_tls_context_miss(const Appliance *a, int card, double sized_Bps)
{
  const NicCard *c = &a->nics[card];
  if (!nic_inline_tls(c)) return 0.0;
  double n = nic_tls_context_connections(a, card, sized_Bps);
  if (!(n > 0)) return 0.0;
  return c->tls_cache >= n ? 0.0 : 1.0 - c->tls_cache / n;
}

gboolean nic_tls_context_varies(const Appliance *a)
{
  double line_Bps = appliance_line_Bps(a); /* the box serves at most its ports' line rate */
  for (int i = 0; i < a->n_nics; i++)
    if (nic_tls_context_miss(a, i, line_Bps) > 0) return TRUE;
  return FALSE;
}

int nic_tls_context_touch(const Appliance *a, DataPath path, double sized_Bps, Touch *out)
{
  if (!datapath_nic_crypto(path)) return 0;
  double bytes = 0;
  for (int i = 0; i < a->n_nics; i++)
    bytes += nic_port_share(a, i) * nic_tls_context_miss(a, i, sized_Bps) * a->nics[i].tls_ctx_bytes;
  bytes /= cpu_burst_bytes(&a->stack);
  if (!(bytes > 0)) return 0;
  *out = (Touch){ .agent = AG_NIC, .buf = BUF_META, .write = false, .bytes = bytes, .stall = ST_NONE, .what = NIC_TLS_CTX_TOUCH };
  return 1;
}
