/* budget.c — the platform's hardware budgets (see budget.h). */
#include "models/appliance/budget.h"
#include "models/appliance/component.h"
#include "models/appliance/memory.h"
#include "models/appliance/model_error.h"

APP_ENUM_DEFINE(budget_dimm, BUDGET_DIMM_MAP);
APP_ENUM_CONF_OK(DimmType);

typedef enum { VENDOR_INTEL, VENDOR_AMD, VENDOR_ARM } Vendor;

/* What each micro-architecture's package allows (budget.h gives the sources). nps: bit n set
 * when NPSn (or SNCn, or the Altra mode of n nodes) exists on the part. */
typedef struct {
  Vendor vendor;
  DimmType dimm;
  unsigned nps;
} UarchFacts;

static UarchFacts uarch_facts(CpuUarch u)
{
  switch (u) {
    case UARCH_BROADWELL:
    case UARCH_SKYLAKE:
    case UARCH_ICELAKE: return (UarchFacts){ VENDOR_INTEL, DIMM_DDR4, 1u << 1 | 1u << 2 };
    case UARCH_ZEN1: return (UarchFacts){ VENDOR_AMD, DIMM_DDR4, 1u << 1 | 1u << 4 };
    case UARCH_ZEN2:
    case UARCH_ZEN3: return (UarchFacts){ VENDOR_AMD, DIMM_DDR4, 1u << 1 | 1u << 2 | 1u << 4 };
    case UARCH_ZEN4: return (UarchFacts){ VENDOR_AMD, DIMM_DDR5, 1u << 1 | 1u << 2 | 1u << 4 };
    case UARCH_NEOVERSE_N1: return (UarchFacts){ VENDOR_ARM, DIMM_DDR4, 1u << 1 | 1u << 2 | 1u << 4 };
    default: g_assert_not_reached();
  }
}

/* One device's lanes added to its socket's and quadrant's count: an error at its group's
 * pcie.lanes when a budget is passed. */
static gboolean add_lanes(const Appliance *a, const char *kind, int group, TopoPos pos, int lanes, int *per_socket, int *per_quad,
                          GError **error)
{
  const PlatformBudget *b = &a->budget;
  int s = pos.socket, q = pos.socket * a->topo.quadrants + pos.quadrant;
  per_socket[s] += lanes;
  per_quad[q] += lanes;
  g_autofree char *key = g_strdup_printf("%s[%d].pcie.lanes", kind, group);
  if (b->pcie_lanes_per_socket > 0 && per_socket[s] > b->pcie_lanes_per_socket)
    return model_fail(error, key,
                      "the drives and NICs on socket %d need %d PCIe lanes, more than the %d the socket has "
                      "(budgets.pcie_lanes_per_socket)",
                      s, per_socket[s], b->pcie_lanes_per_socket);
  if (b->pcie_lanes_per_quadrant > 0 && per_quad[q] > b->pcie_lanes_per_quadrant)
    return model_fail(error, key,
                      "the drives and NICs on socket %d quadrant %d need %d PCIe lanes, more than the %d of its root "
                      "complexes (budgets.pcie_lanes_per_quadrant)",
                      s, pos.quadrant, per_quad[q], b->pcie_lanes_per_quadrant);
  return TRUE;
}

static gboolean budget_validate(const Appliance *a, GError **error)
{
  const Topology *t = &a->topo;
  UarchFacts f = uarch_facts(a->cpu.uarch);
  const char *uarch = cpu_uarch_names[a->cpu.uarch];
  if (t->sockets == 1 && t->n_links > 0)
    return model_fail(error, "topology.links", "a one-socket box has no inter-socket (%s) links",
                      topo_link_kind_names[t->links[0].kind]);
  for (int i = 0; i < t->n_links; i++) {
    TopoLinkKind k = t->links[i].kind;
    if ((k == TOPO_LINK_UPI && f.vendor != VENDOR_INTEL) || (k == TOPO_LINK_XGMI && f.vendor != VENDOR_AMD))
      return model_fail(error, "topology.links", "%s links do not exist on a %s part (cpu.uarch): %s", topo_link_kind_names[k],
                        uarch, f.vendor == VENDOR_AMD ? "AMD sockets talk over xGMI" : "Intel sockets talk over UPI");
  }
  for (int n = 1; n <= 4; n++)
    if ((t->nps_supported & (1u << n)) && !(f.nps & (1u << n)))
      return model_fail(error, "topology.nps_supported", "a %s part has no mode of %d NUMA nodes per socket (NPS%d)", uarch, n,
                        n);
  if (a->budget.dimm != DIMM_UNKNOWN) {
    if (a->budget.dimm != f.dimm)
      return model_fail(error, "budgets.dimm_type", "a %s memory controller drives %s DIMMs, not %s", uarch,
                        budget_dimm_names[f.dimm], budget_dimm_names[a->budget.dimm]);
  }
  /* the DIMMs themselves: a DDR5-only controller (Zen 4) takes no DDR4 speed or type, nor a DDR4 one DDR5 */
  MemType drives = f.dimm == DIMM_DDR5 ? MEM_TYPE_DDR5 : MEM_TYPE_DDR4;
  if (a->mem.type != drives) {
    gboolean by_speed = mem_type_of_speed(a->mem.speed_tps) == a->mem.type; /* auto read it off the speed */
    return model_fail(error, by_speed ? "memory.speed" : "memory.type",
                      "a %s memory controller drives %s DIMMs only, not %s%s: give the box's DIMMs (memory.speed and "
                      "memory.type)",
                      uarch, mem_type_names[drives], mem_type_names[a->mem.type],
                      by_speed ? (a->mem.type == MEM_TYPE_DDR4 ? " (memory.type auto reads DDR4 below 4000 MT/s)"
                                                               : " (memory.type auto reads DDR5 from 4000 MT/s)")
                               : "");
  }
  int per_socket[TOPO_MAX_SOCKETS] = { 0 };
  g_autofree int *per_quad = g_new0(int, t->sockets * t->quadrants);
  for (int d = 0; d < a->n_drives; d++)
    if (!add_lanes(a, "nvme", a->drives[d].group, a->drives[d].pos, a->drives[d].link.lanes, per_socket, per_quad, error))
      return FALSE;
  for (int i = 0; i < a->n_nics; i++)
    if (a->nics[i].kind == NIC_PCIE &&
        !add_lanes(a, "nics", a->nics[i].group, a->nics[i].pos, a->nics[i].link.lanes, per_socket, per_quad, error))
      return FALSE;
  return TRUE;
}

#define F(m) offsetof(AppConf, m)

const SimConfField budget_schema[] = {
  { .key = "pcie_lanes_per_socket",
    .type = SIM_CONF_T_INT,
    .offset = F(a.budget.pcie_lanes_per_socket),
    .def = "0",
    .min = "0",
    .max = "1024",
    .doc = "PCIe lanes one socket gives to devices (datasheet; 0: not checked); the drives' and NICs' pcie.lanes on a socket "
           "must fit" },
  { .key = "pcie_lanes_per_quadrant",
    .type = SIM_CONF_T_INT,
    .offset = F(a.budget.pcie_lanes_per_quadrant),
    .def = "0",
    .min = "0",
    .max = "256",
    .doc = "PCIe lanes of one I/O quadrant's root complexes (0: not known); the devices on a quadrant must fit" },
  { .key = "dimm_type",
    .type = SIM_CONF_T_ENUM,
    .offset = F(a.budget.dimm),
    .enum_names = budget_dimm_names,
    .def = "unknown",
    .doc = "installed DIMM generation: ddr4 or ddr5 (unknown: not checked); must be the one cpu.uarch drives" },
  SIM_CONF_END
};

const AppComponent budget_component = { .name = "budgets", .validate = budget_validate };
