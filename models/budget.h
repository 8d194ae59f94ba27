/* budget.h — the platform's hardware budgets: what the CPU package allows, checked against what
 * the scenario fits into it (a component with keys and checks only: it adds no resource).
 *
 * What it checks (each a located error naming the key, MODEL_ERROR):
 *   PCIe lanes   sum of the pcie.lanes of the drives and NICs on a socket <= budgets.pcie_lanes_per_socket,
 *                and on one I/O quadrant (root complex) <= budgets.pcie_lanes_per_quadrant, when given;
 *   links        inter-socket links need two sockets; xGMI is AMD's, UPI Intel's (by cpu.uarch);
 *   DIMMs        budgets.dimm_type must be a generation the micro-architecture's memory controller
 *                drives (DDR4 up to Zen 3, Ice Lake and Neoverse N1; DDR5 on Zen 4: the parts'
 *                datasheets); memory.speed is not checked (a what-if may overclock it);
 *   NPS modes    every topology.nps_supported mode must be one the part has: NPS1/2/4 on Zen 2-4
 *                (AMD EPYC 7002/7003/9004 BIOS and workload tuning guides), socket or die interleave
 *                (1 or 4 nodes) on Zen 1 (Naples), SNC off/SNC2 on Broadwell (cluster-on-die),
 *                Skylake-SP and Ice Lake-SP, monolithic/hemisphere/quadrant on Ampere Altra.
 * Figures of the parts (lanes per socket) live in the platform files with their datasheets.
 * Leaves out: PCIe switches (a card behind a switch counts its own lanes), lanes taken by
 * chipset/BMC links, Gen mismatches (a Gen5 card trains at the CPU's Gen4), NPS0.
 */
#ifndef MODELS_BUDGET_H
#define MODELS_BUDGET_H
#include "models/app_enum.h"
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

#endif /* MODELS_BUDGET_H */
