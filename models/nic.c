/* nic.c — NIC placement and port domains (see nic.h). */
#include "models/nic.h"
#include "models/model_error.h"
#include <math.h>

APP_ENUM_DEFINE(nic_kind, NIC_KIND_MAP);
APP_ENUM_CONF_OK(NicKind);

int nic_port_domain(const NicCard *n, const Topology *t, int p)
{
  g_return_val_if_fail(p >= 0 && p < n->ports, -1);
  return n->domain[p] >= 0 ? n->domain[p] : topo_node_of(t, n->pos);
}

gboolean nic_validate(const NicCard *n, const Topology *t, double burst_bytes, const char *keypath, GError **error)
{
  if (topo_node_of(t, n->pos) < 0)
    return model_fail(error, keypath, "NIC placed on socket %d quadrant %d, which does not exist", n->pos.socket,
                      n->pos.quadrant);
  if (n->kind == NIC_LOOPBACK) {
    if (n->ktls_gbps > 0) return model_fail(error, keypath, "a loopback NIC has no kTLS engine");
    return TRUE;
  }
  if (n->ports < 1 || n->ports > NIC_MAX_PORTS)
    return model_fail(error, keypath, "ports must be 1..%d, got %d", NIC_MAX_PORTS, n->ports);
  if (n->port_gbps <= 0) return model_fail(error, keypath, "port speed must be positive");
  if (n->ktls_gbps < 0) return model_fail(error, keypath, "kTLS engine cap cannot be negative");
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

double nic_port_drop_fraction(double rho, double k_bursts)
{
  g_return_val_if_fail(k_bursts >= 1.0, 1.0);
  if (!(rho > 0)) return 0.0;
  if (fabs(rho - 1.0) < 1e-12) return 1.0 / (k_bursts + 1.0);
  if (rho < 1.0) return (1.0 - rho) * pow(rho, k_bursts) / (1.0 - pow(rho, k_bursts + 1.0));
  double r = 1.0 / rho;
  return (1.0 - r) / (1.0 - pow(r, k_bursts + 1.0));
}
