/* budget.h — the platform's hardware budgets: what the CPU package allows, checked against what
 * the scenario fits into it (a component with keys and checks only: it adds no resource).
 *
 * What it checks (each a located error naming the key, MODEL_ERROR):
 *   PCIe lanes   per socket <= budgets.pcie_lanes_per_socket, per quadrant <= _per_quadrant
 *   links        inter-socket links need two sockets; xGMI is AMD's, UPI Intel's
 *   DIMMs        budgets.dimm_type must be one the micro-architecture's memory controller drives
 *   NPS modes    every topology.nps_supported mode must be one the part has
 * Sources: the parts' datasheets; AMD EPYC 7002/7003/9004 BIOS and workload tuning guides.
 * Leaves out: PCIe switches, lanes taken by chipset/BMC links, Gen mismatches, NPS0.
 * Evidence and history: docs/model/budget.md.
 */
#ifndef MODELS_APPLIANCE_BUDGET_H
#define MODELS_APPLIANCE_BUDGET_H
#include "models/appliance/app_enum.h"
#include "sim/conf.h"

/* DIMM generations (budgets.dimm_type); unknown: not checked. */
#define BUDGET_DIMM_MAP(X) X(DIMM_UNKNOWN, "unknown") X(DIMM_DDR4, "ddr4") X(DIMM_DDR5, "ddr5")
typedef enum { BUDGET_DIMM_MAP(APP_ENUM_ID) DIMM_COUNT } DimmType;
APP_ENUM_DECLARE(budget_dimm);

typedef struct {
  int pcie_lanes_per_socket;   /* PCIe lanes a socket gives to devices; 0: not checked */
  int pcie_lanes_per_quadrant; /* lanes of one I/O quadrant's root complexes; 0: not known */
  DimmType dimm;               /* installed DIMM generation */
} PlatformBudget;

/* Keys of the scenario's `budgets:` section (offsets into AppConf). */
extern const SimConfField budget_schema[];

/* The scenario's root rows of this component (components.h: the loader's root schema is the list's
 * rows; expanded where AppConf is defined, component.h). */
#define budget_conf_sections \
  { .key = "budgets",        \
    .type = SIM_CONF_T_MAP,  \
    .offset = 0,             \
    .sub = budget_schema,    \
    .doc = "the CPU package's PCIe and DIMM budgets (platform files)" },

#endif /* MODELS_APPLIANCE_BUDGET_H */
