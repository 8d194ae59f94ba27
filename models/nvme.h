/* nvme.h — one NVMe drive.
 *
 * What it models: a drive at a (socket, quadrant) position with a sustained sequential read
 * bandwidth, a read latency and a queue depth. Its service ceiling is
 *     C = min(read_GBps, QD * io_bytes / latency, PCIe link payload bandwidth)
 * (Little's law on the queue). Reads are DMA'd to host memory as posted PCIe writes.
 * For synchronous sendfile, a worker blocks on each read, so all drives together hold at
 * most `workers` reads: a machine-wide Little's-law ceiling workers * io_bytes / latency
 * (demand.c adds it as a resource).
 * Leaves out: garbage collection, mixed read/write interference, thermal throttling.
 */
#ifndef MODELS_NVME_H
#define MODELS_NVME_H
#include "models/pcie.h"
#include "models/topology.h"

typedef struct {
  int group; /* the scenario's drive group it was expanded from: its key path is nvme[group] */
  TopoPos pos;
  double read_GBps;  /* sustained sequential read, datasheet */
  double latency_us; /* read latency of one io_bytes request at low queue depth */
  int queue_depth;   /* outstanding reads the host keeps per drive */
  PcieLink link;
} NvmeDrive;

/* Service ceiling of one drive in GB/s for requests of io_bytes. */
double nvme_ceiling_GBps(const NvmeDrive *d, double io_bytes);
gboolean nvme_validate(const NvmeDrive *d, const Topology *t, const char *keypath, GError **error);

#endif /* MODELS_NVME_H */
