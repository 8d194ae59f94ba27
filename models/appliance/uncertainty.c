/* uncertainty.c — the `uncertainty:` section and the registry of the values it names (see
 * uncertainty.h). */
#include "models/appliance/uncertainty.h"
#include <math.h>
#include <stddef.h>
#include <string.h>

APP_ENUM_DEFINE(unc_kind, UNC_KIND_MAP);
APP_ENUM_DEFINE(unc_param, UNC_PARAM_MAP);

#define E(m) offsetof(UncEntryConf, m)

const SimConfField uncertainty_entry_schema[] = {
  { .key = "param",
    .type = SIM_CONF_T_ENUM,
    .offset = E(param),
    .enum_names = unc_param_names,
    .required = true,
    .doc = "the value it spreads (models/appliance/uncertainty.h: every drive's, card's or link's when there are several)" },
  { .key = "low",
    .type = SIM_CONF_T_DOUBLE,
    .offset = E(low),
    .required = true,
    .min = "0",
    .min_exclusive = true,
    .max = "1",
    .doc = "lower end of the central 95 % as a factor on the file's value (<= 1)" },
  { .key = "high",
    .type = SIM_CONF_T_DOUBLE,
    .offset = E(high),
    .required = true,
    .min = "1",
    .max = "100",
    .doc = "upper end of the central 95 % as a factor on the file's value (>= 1)" },
  { .key = "kind",
    .type = SIM_CONF_T_ENUM,
    .offset = E(kind),
    .enum_names = unc_kind_names,
    .def = "assumed",
    .doc = "assumed (no source: a stated range), sourced (the spread the source gives) or measured (costs only)" },
  { .key = "source",
    .type = SIM_CONF_T_STRING,
    .offset = E(source),
    .required = true,
    .doc = "one line: where the range comes from" },
  SIM_CONF_END
};

/* clang-format off */
static const struct {
  const char *what, *pin_by;
} PARAM_INFO[UNC_PARAM_COUNT] = {
  [UNC_CPU_CLOCK] = { "the sustained all-core clock (cpu.clock)",
                      "the all-core clock under this load: turbostat / AMD uProf on the host, or `ocasim validate`" },
  [UNC_CPU_CRYPTO] = { "the bulk cipher's cycles per byte (crypto table or cpu.crypto_cpb)",
                       "`ocasim validate` on the host (costs.*_cpb), or openssl speed -evp with the kernel's implementation" },
  [UNC_MEM_SPEED] = { "the DIMMs' transfer rate (memory.speed): DRAM bandwidth",
                      "the DIMM population (dmidecode) and Intel MLC / STREAM on the host" },
  [UNC_MEM_LATENCY] = { "idle local DRAM latency (memory.latency)", "Intel MLC --idle_latency on the host" },
  [UNC_INTRA_LINK] = { "quadrant-to-quadrant link bandwidth (topology.intra_link)",
                       "AMD uProf data-fabric bandwidth counters under load" },
  [UNC_INTRA_PENALTY] = { "latency to another quadrant (topology.intra_penalty)", "Intel MLC --latency_matrix at NPS4" },
  [UNC_INTER_PENALTY] = { "latency to the other socket (topology.inter_penalty)", "Intel MLC --latency_matrix" },
  [UNC_LINK_RATE] = { "every inter-socket link's transfer rate (topology.links[].rate)",
                      "AMD uProf xGMI / Intel PCM UPI bandwidth counters at saturation" },
  [UNC_LINK_DEV_EFF] = { "device DMA write payload efficiency on inter-socket links (topology.links[].eff_dev_write)",
                         "AMD uProf xGMI counters during remote-node NVMe DMA" },
  [UNC_NVME_READ] = { "every drive's sustained read (nvme[].read)", "fio sequential read on the drive (datasheet at its queue depth)" },
  [UNC_NVME_LATENCY] = { "every drive's read latency (nvme[].latency)", "fio randread latency at queue depth 1" },
  [UNC_NIC_KTLS] = { "every card's inline TLS engine rate (nics[].ktls)", "the NIC vendor's kTLS offload figure, or a NIC-kTLS run" },
  [UNC_PCIE_RTT] = { "every device's PCIe read round trip (pcie.read_rtt)", "pcie-bench latency on the platform's root complex" },
  [UNC_COSTS] = { "the measured cost profile's cycles (costs:)", "repeat `ocasim validate` on the host" },
};
/* clang-format on */

const char *uncertainty_param_what(UncParam p)
{
  g_return_val_if_fail((int)p >= 0 && p < UNC_PARAM_COUNT, "?");
  return PARAM_INFO[p].what;
}

const char *uncertainty_param_pin_by(UncParam p)
{
  g_return_val_if_fail((int)p >= 0 && p < UNC_PARAM_COUNT, "?");
  return PARAM_INFO[p].pin_by;
}

const UncEntry *uncertainty_find(const UncertaintyCfg *cfg, UncParam p)
{
  for (int i = 0; i < cfg->n; i++)
    if (cfg->e[i].param == p) return &cfg->e[i];
  return NULL;
}

/* A located error at uncertainty[i].key (or the entry) under @root. */
static gboolean entry_error(GError **error, const SimConfNode *root, size_t i, const char *key, const char *fmt, ...)
    G_GNUC_PRINTF(5, 6);
static gboolean entry_error(GError **error, const SimConfNode *root, size_t i, const char *key, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  g_autofree char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  const SimConfNode *list = sim_conf_node_get(root, "uncertainty");
  const SimConfNode *entry = list ? sim_conf_node_child(list, (guint)i) : NULL;
  const SimConfNode *at = entry && key ? sim_conf_node_get(entry, key) : NULL;
  sim_conf_set_error(error, at ? at : entry ? entry : list ? list : root, SIM_CONF_ERROR_RANGE, "%s", msg);
  return FALSE;
}

gboolean uncertainty_finish(const SimConfList *list, const SimConfNode *root, UncertaintyCfg *out, GError **error)
{
  memset(out, 0, sizeof *out);
  if (list->n > UNC_MAX_ENTRIES)
    return entry_error(error, root, UNC_MAX_ENTRIES, NULL, "at most %d entries (one per value)", UNC_MAX_ENTRIES);
  for (size_t i = 0; i < list->n; i++) {
    const UncEntryConf *c = SIM_CONF_LIST_AT(*list, UncEntryConf, i);
    if (!(c->low < c->high))
      return entry_error(error, root, i, "high", "high (%g) must exceed low (%g): a range around the file's value", c->high,
                         c->low);
    if (!c->source || !*c->source) return entry_error(error, root, i, "source", "a range needs its source (one line)");
    if (strlen(c->source) >= UNC_SOURCE_LEN)
      return entry_error(error, root, i, "source", "source is longer than %d characters", UNC_SOURCE_LEN - 1);
    if (c->kind == UNC_FITTED || c->kind == UNC_TRANSFER)
      return entry_error(error, root, i, "kind",
                         "kind %s is the fit's own (models/appliance/coeffs.def): give assumed, sourced or measured",
                         unc_kind_names[c->kind]);
    if (c->kind == UNC_MEASURED && c->param != UNC_COSTS)
      return entry_error(error, root, i, "kind", "kind measured is for param costs (a costs: profile); %s is assumed or sourced",
                         unc_param_names[c->param]);
    if (c->param == UNC_COSTS && !sim_conf_node_get(root, "costs"))
      return entry_error(error, root, i, "param",
                         "costs spreads a measured costs: profile, and this box has none (the transfer spread of the "
                         "fitted costs applies)");
    for (size_t j = 0; j < i; j++)
      if (SIM_CONF_LIST_AT(*list, UncEntryConf, j)->param == c->param)
        return entry_error(error, root, i, "param", "%s is given twice (first at uncertainty[%zu])", unc_param_names[c->param],
                           j);
    UncEntry *e = &out->e[out->n++];
    e->param = c->param;
    e->kind = c->kind;
    e->low = c->low;
    e->high = c->high;
    g_strlcpy(e->source, c->source, sizeof e->source);
  }
  return TRUE;
}
