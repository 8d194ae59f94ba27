/* appliance.c — whole-box validation, helpers and the component list (see appliance.h and
 * component.h). */
#include "models/appliance/appliance.h"
#include "models/appliance/component.h"
#include "models/appliance/model_error.h"

/* Resource order: CPU and DRAM per node, a loopback host's thread pools, the fabric, drives
 * (and their links), NIC ports and cards, the software's workers. */
static const AppComponent *const RESOURCE_ORDER[] = {
  &cpu_component, &memory_component,   &loopback_component, &topology_component,  &nvme_component,
  &nic_component, &datapath_component, &workload_component, &pagecache_component, NULL
};
/* Check order: the platform before the devices on it, the software last. */
static const AppComponent *const VALIDATION_ORDER[] = { &topology_component,
                                                        &memory_component,
                                                        &cpu_component,
                                                        &nvme_component,
                                                        &nic_component,
                                                        &workload_component,
                                                        &loopback_component,
                                                        &datapath_component,
                                                        &pagecache_component,
                                                        &budget_component,
                                                        NULL };

const AppComponent *const *app_components(void)
{
  return RESOURCE_ORDER;
}

const AppComponent *const *app_components_validation(void)
{
  return VALIDATION_ORDER;
}

int appliance_cores_per_node(const Appliance *a)
{
  return a->topo.cores_per_socket / a->topo.nps;
}

int appliance_ports(const Appliance *a)
{
  int n = 0;
  for (int i = 0; i < a->n_nics; i++) n += a->nics[i].ports;
  return n;
}

double appliance_line_Bps(const Appliance *a)
{
  double line_Bps = 0;
  for (int i = 0; i < a->n_nics; i++) line_Bps += a->nics[i].ports * a->nics[i].port_bps / 8.0;
  return line_Bps;
}

gboolean appliance_validate(const Appliance *a, GError **error)
{
  for (const AppComponent *const *c = VALIDATION_ORDER; *c; c++)
    if ((*c)->validate && !(*c)->validate(a, error)) return FALSE;
  return TRUE;
}
