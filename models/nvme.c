/* nvme.c — NVMe drive ceiling (see nvme.h). */
#include "models/nvme.h"
#include "models/model_error.h"

double nvme_ceiling_GBps(const NvmeDrive *d, double io_bytes)
{
  double little = d->queue_depth * io_bytes / (d->latency_us * 1e3); /* bytes/ns = GB/s */
  double c = MIN(d->read_GBps, little);
  return MIN(c, pcie_link_GBps(&d->link));
}

gboolean nvme_validate(const NvmeDrive *d, const Topology *t, const char *keypath, GError **error)
{
  if (topo_node_of(t, d->pos) < 0)
    return model_fail(error, keypath, "drive placed on socket %d quadrant %d, which does not exist", d->pos.socket,
                      d->pos.quadrant);
  if (d->read_GBps <= 0 || d->latency_us <= 0 || d->queue_depth < 1)
    return model_fail(error, keypath, "read bandwidth, latency and queue depth must be positive");
  g_autofree char *kp = g_strdup_printf("%s.pcie", keypath);
  return pcie_validate(&d->link, kp, error);
}
