/* nvme.c — NVMe drive ceiling (see nvme.h). */
#include "models/appliance/nvme.h"
#include "models/appliance/component.h"
#include "models/appliance/model_error.h"

/* Service ceiling of one drive in B/s for requests of io_bytes. */
static double nvme_ceiling_Bps(const NvmeDrive *d, double io_bytes)
{
  double little = d->queue_depth * io_bytes / d->latency_ns * 1e9; /* Little's law, bytes/ns -> B/s */
  double c = MIN(d->read_Bps, little);
  if (d->max_iops > 0) c = MIN(c, d->max_iops * io_bytes); /* at most max_iops reads of io_bytes per second */
  return MIN(c, pcie_link_GBps(&d->link) * 1e9);
}

double nvme_read_s(const NvmeDrive *d, double bytes)
{
  return d->latency_ns * 1e-9 + bytes / d->read_Bps;
}

/* Checks a drive's place, figures and link; MODEL_ERROR at keypath (nvme[group]). */
static gboolean nvme_validate(const NvmeDrive *d, const Topology *t, const char *keypath, GError **error)
{
  if (topo_node_of(t, d->pos) < 0)
    return model_fail(error, keypath, "drive placed on socket %d quadrant %d, which does not exist", d->pos.socket,
                      d->pos.quadrant);
  if (d->read_Bps <= 0 || d->latency_ns <= 0 || d->queue_depth < 1)
    return model_fail(error, keypath, "read bandwidth, latency and queue depth must be positive");
  if (!(d->latency_cv >= 0)) return model_fail(error, keypath, "latency_cv must be >= 0");
  g_autofree char *kp = g_strdup_printf("%s.pcie", keypath);
  return pcie_validate(&d->link, kp, error);
}

/* ---- the component (component.h) --------------------------------------------------------- */

#define G(m) offsetof(NvmeGroup, m)

const SimConfField nvme_group_schema[] = {
  { .key = "count",
    .type = SIM_CONF_T_INT,
    .offset = G(count),
    .def = "1",
    .min = "1",
    .max = "64",
    .doc = "identical drives in this group" },
  TOPO_PLACE_ROWS(G(drive.pos), G(node)),
  { .key = "model", .type = SIM_CONF_T_STRING, .offset = G(model), .doc = "drive model (documentation)" },
  /* sanity bound: a PCIe 5.0 x16 link carries 63 GB/s; the fastest SSDs read about 14 GB/s */
  { .key = "read",
    .type = SIM_CONF_T_DOUBLE,
    .offset = G(drive.read_Bps),
    .unit = SIM_UNIT_BYTE_RATE,
    .required = true,
    .min = "1 MB/s",
    .max = "100 GB/s",
    .doc = "sustained sequential read bandwidth (datasheet)" },
  /* sanity bound: the fastest media (Optane) read in about 10 us */
  { .key = "latency",
    .type = SIM_CONF_T_DOUBLE,
    .offset = G(drive.latency_ns),
    .unit = SIM_UNIT_TIME,
    .def = "100 us",
    .min = "1 us",
    .max = "1 s",
    .doc = "mean read latency at low queue depth (datacenter TLC NVMe datasheets: 80-120 us; at most 1 s)" },
  /* sanity bound: a CV of 10 is a p99.99 of ~30x the mean, beyond any drive's published QoS */
  { .key = "latency_cv",
    .type = SIM_CONF_T_DOUBLE,
    .offset = G(drive.latency_cv),
    .def = "0.26",
    .min = "0",
    .max = "10",
    .doc =
        "CV of the read latency, lognormal per request in `ocasim run`; 0: fixed (0.26: p99.99 = 2.5x mean, AnandTech 2018, Intel P4510; docs/model/nvme.md)" },
  /* NVMe 1.4 §3.1: a queue holds at most 64 Ki entries */
  { .key = "queue_depth",
    .type = SIM_CONF_T_INT,
    .offset = G(drive.queue_depth),
    .def = "128",
    .min = "1",
    .max = "65536",
    .doc = "outstanding reads kept per drive (assumption)" },
  /* range: assumed, a sanity bound some 30x above the fastest flash drives' 4 KiB random reads (a few
   * M IOPS). The example: Intel's D7-P5500/P5600 launch specification (2020), 4 KiB random read 1 M
   * IOPS (PCIe 4.0 x4, 7 GB/s sequential, as the P5316 the shipped platforms carry) */
  { .key = "max_iops",
    .type = SIM_CONF_T_DOUBLE,
    .offset = G(drive.max_iops),
    .def = "0",
    .min = "1000",
    .zero_ok = true,
    .max = "100000000",
    .doc =
        "reads per second at most (datasheet 4 KiB random read IOPS; Intel D7-P5500: 1 000 000); caps io_size reads; 0: no ceiling" },
  { .key = "pcie", .type = SIM_CONF_T_MAP, .offset = G(drive.link), .sub = pcie_schema, .doc = "the drive's PCIe link" },
  SIM_CONF_END
};

/* Expands each group into `count` drives at its place. */
static gboolean nvme_finish(AppConf *c, const SimConfNode *root, GError **error)
{
  Appliance *a = &c->a;
  a->n_drives = 0;
  for (size_t g = 0; g < c->nvme.n; g++) {
    const NvmeGroup *ng = SIM_CONF_LIST_AT(c->nvme, NvmeGroup, g);
    char path[32];
    g_snprintf(path, sizeof path, "nvme[%zu]", g);
    TopoPos pos;
    if (!topo_conf_place(root, path, ng->drive.pos, ng->node, &a->topo, &pos, error)) return FALSE;
    for (int k = 0; k < ng->count; k++) {
      if (a->n_drives >= APP_MAX_DRIVES)
        return app_conf_error(error, root, "nvme", SIM_CONF_ERROR_RANGE, "at most %d drives", APP_MAX_DRIVES);
      NvmeDrive *d = &a->drives[a->n_drives++];
      *d = ng->drive;
      d->group = (int)g;
      d->id = a->n_drives - 1;
      d->pos = pos;
    }
  }
  return TRUE;
}

static gboolean nvme_component_validate(const Appliance *a, GError **error)
{
  if (a->n_drives < 1 || a->n_drives > APP_MAX_DRIVES)
    return model_fail(error, "nvme", "need 1..%d drives, got %d", APP_MAX_DRIVES, a->n_drives);
  for (int i = 0; i < a->n_drives; i++) {
    char kp[32];
    g_snprintf(kp, sizeof kp, "nvme[%d]", a->drives[i].group);
    if (!nvme_validate(&a->drives[i], &a->topo, kp, error)) return FALSE;
  }
  return TRUE;
}

typedef struct {
  int pcie[APP_MAX_DRIVES]; /* pcie.nvmeD */
} NvmeRes;

/* nvmeD: the drive's ceiling at the workload's I/O size; pcie.nvmeD: its link (posted writes). */
static void nvme_add_resources(AppBuild *b, void *state)
{
  NvmeRes *s = state;
  const Appliance *a = b->a;
  b->m->drive_res = g_new(int, a->n_drives);
  b->drive_node = g_new(int, a->n_drives);
  for (int d = 0; d < a->n_drives; d++) {
    const NvmeDrive *dr = &a->drives[d];
    int node = b->drive_node[d] = topo_node_of(&a->topo, dr->pos);
    char nm[40];
    g_snprintf(nm, sizeof nm, "nvme%d", dr->id); /* the healthy box's names (failure.h) */
    int r = app_build_add_res(b, nm, RK_NVME, nvme_ceiling_Bps(dr, a->wl.io_bytes), 1.0, 1e-9, "GB/s", node);
    app_build_res(b, r)->drive = d;
    b->m->drive_res[d] = r;
    g_snprintf(nm, sizeof nm, "pcie.nvme%d", dr->id);
    s->pcie[d] = app_build_add_res(b, nm, RK_PCIE, pcie_link_GBps(&dr->link) * 1e9, 1.0, 1e-9, "GB/s", node);
    app_build_res(b, s->pcie[d])->drive = d;
  }
}

/* Every served byte is read once from the class's drive over its link (a loopback host serves
 * from the page cache). */
static void nvme_class_demand(AppBuild *b, void *state, DmClass *k)
{
  const NvmeRes *s = state;
  if (b->loop) return;
  k->demand[b->m->drive_res[k->drive]] += 1.0;
  k->demand[s->pcie[k->drive]] += 1.0;
}

const AppComponent nvme_component = { .name = "nvme",
                                      .state_size = sizeof(NvmeRes),
                                      .finish = nvme_finish,
                                      .validate = nvme_component_validate,
                                      .add_resources = nvme_add_resources,
                                      .class_demand = nvme_class_demand };
