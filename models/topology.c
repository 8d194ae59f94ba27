/* topology.c — NUMA node mapping, fabric capacities and routing (see topology.h for the
 * model and its equations). */
#include "models/topology.h"
#include "models/model_error.h"

APP_ENUM_DEFINE(topo_link_kind, TOPO_LINK_KIND_MAP);
APP_ENUM_DEFINE(topo_link_routing, TOPO_LINK_ROUTING_MAP);
APP_ENUM_DEFINE(topo_port_domains, TOPO_PORT_DOMAINS_MAP);
APP_ENUM_CONF_OK(TopoLinkKind);
APP_ENUM_CONF_OK(TopoLinkRouting);
APP_ENUM_CONF_OK(TopoPortDomains);

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

int topo_socket_of_node(const Topology *t, int node)
{
  return node / t->nps;
}

double topo_interleave_remote_fraction(const Topology *t)
{
  return 1.0 - 1.0 / (double)topo_quads_per_node(t);
}

double topo_link_raw_GBps(const TopoLink *l)
{
  int w = l->dlwm ? l->dlwm_width : l->width;
  return w * l->gtps / 8.0 * l->encoding;
}

double topo_intra_raw_GBps(const Topology *t, int a, int b)
{
  int qpn = topo_quads_per_node(t);
  /* full mesh of quadrants: every quadrant of a talks to every quadrant of b */
  (void)a;
  (void)b;
  return (double)(qpn * qpn) * t->intra_link_GBps;
}

double topo_penalty_ns(const Topology *t, int a, int m)
{
  if (a == m) return 0.0;
  if (topo_socket_of_node(t, a) != topo_socket_of_node(t, m)) return t->inter_penalty_ns;
  return t->intra_penalty_ns;
}

int topo_link_for_device(const Topology *t, TopoPos p)
{
  g_return_val_if_fail(t->n_links > 0, -1);
  for (int i = 0; i < t->n_links; i++)
    if (t->links[i].quad[p.socket] == p.quadrant) return i;
  return p.quadrant % t->n_links;
}

gboolean topo_validate(const Topology *t, GError **error)
{
  if (t->sockets < 1 || t->sockets > TOPO_MAX_SOCKETS)
    return model_fail(error, "topology.sockets", "must be 1..%d, got %d", TOPO_MAX_SOCKETS, t->sockets);
  if (t->quadrants != 1 && t->quadrants != 2 && t->quadrants != 4)
    return model_fail(error, "topology.quadrants", "must be 1, 2 or 4, got %d", t->quadrants);
  if (t->nps < 1 || t->nps > 4 || !(t->nps_supported & (1u << t->nps))) {
    g_autoptr(GString) ok = g_string_new(NULL);
    for (int n = 1; n <= 4; n++)
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
  if (t->nps > 1 && t->intra_link_GBps <= 0)
    return model_fail(error, "topology.intra_link", "NPS%d needs intra-socket link bandwidth > 0", t->nps);
  if (t->sockets > 1 && t->n_links < 1)
    return model_fail(error, "topology.links", "two sockets need at least one inter-socket link");
  for (int i = 0; i < t->n_links; i++) {
    const TopoLink *l = &t->links[i];
    if (l->width < 1 || l->width > 32 || l->gtps <= 0 || l->encoding <= 0 || l->encoding > 1)
      return model_fail(error, "topology.links", "link %d: bad width/GT/s/encoding", i);
    if (l->dlwm && (l->dlwm_width < 1 || l->dlwm_width > l->width))
      return model_fail(error, "topology.links", "link %d: DLWM width must be 1..width", i);
    for (int s = 0; s < t->sockets; s++)
      if (l->quad[s] < 0 || l->quad[s] >= t->quadrants)
        return model_fail(error, "topology.links", "link %d: quadrant %d on socket %d does not exist", i, l->quad[s], s);
  }
  return TRUE;
}
