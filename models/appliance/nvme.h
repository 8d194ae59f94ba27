/* nvme.h — one NVMe drive.
 *
 * What it models: a drive at a (socket, quadrant) position with a sustained sequential read
 * bandwidth, a read latency and a queue depth; reads are DMA'd to host memory as posted PCIe writes.
 *     C = min(read_GBps, QD * io_bytes / latency, PCIe link payload bandwidth)    (Little's law)
 *     and, when max_iops is given, C <= max_iops * io_bytes (the drive's random-read IOPS ceiling)
 *     synchronous sendfile: all drives together at most workers * io_bytes / latency (demand.c)
 * `ocasim run` draws each read's latency lognormal (mean `latency`, CV `latency_cv`); the bound uses the mean.
 * Sources: the datasheet figures in nvme.c's schema rows; the CV from the widest published QD1 QoS (nvme.c).
 * Leaves out: garbage collection, mixed read/write interference, thermal throttling, latency
 * growing with the drive's own queue (the read bandwidth caps it instead).
 * Evidence and history: docs/model/nvme.md.
 */
#ifndef MODELS_APPLIANCE_NVME_H
#define MODELS_APPLIANCE_NVME_H
#include "models/appliance/pcie.h"
#include "models/appliance/topology.h"
#include "sim/conf.h"

typedef struct {
  int group; /* the scenario's drive group it was expanded from: its key path is nvme[group] */
  int id;    /* the drive's index in the healthy box, kept when a failure takes drives out: its
              * resources are nvmeID, pcie.nvmeID (failure.h) */
  TopoPos pos;
  double read_Bps;   /* sustained sequential read, B/s, datasheet */
  double latency_ns; /* read latency of one io_bytes request at low queue depth (mean) */
  double latency_cv; /* its coefficient of variation (lognormal draws in the DES; 0: fixed) */
  int queue_depth;   /* outstanding reads the host keeps per drive */
  double max_iops;   /* reads per second the drive serves at most (4 KiB random read, datasheet); 0: none */
  PcieLink link;
} NvmeDrive;

/* Seconds the drive takes for one read of `bytes`, idle: latency + bytes / read bandwidth
 * (computed through us and GB/s, as every output was). */
double nvme_read_s(const NvmeDrive *d, double bytes);

/* A group of identical drives as the scenario gives it (nvme[]). */
typedef struct {
  int count; /* identical drives */
  int node;  /* NUMA node instead of socket/quadrant, -1: by position */
  char *model;
  NvmeDrive drive;
} NvmeGroup;

/* Keys of one nvme[] group (offsets into NvmeGroup). */
extern const SimConfField nvme_group_schema[];

/* The scenario's root rows of this component (components.h: the loader's root schema is the list's
 * rows; expanded where AppConf is defined, component.h). */
#define nvme_conf_sections             \
  { .key = "nvme",                     \
    .type = SIM_CONF_T_LIST,           \
    .offset = offsetof(AppConf, nvme), \
    .sub = nvme_group_schema,          \
    .elem_size = sizeof(NvmeGroup),    \
    .min_items = 1,                    \
    .required = true,                  \
    .doc = "drive groups" },

#endif /* MODELS_APPLIANCE_NVME_H */
