/* appliance.c — whole-box validation and helpers (see appliance.h). */
#include "models/appliance.h"
#include "models/model_error.h"

int appliance_nodes(const Appliance *a)
{
  return topo_nodes(&a->topo);
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

gboolean appliance_validate(const Appliance *a, GError **error)
{
  if (!topo_validate(&a->topo, error)) return FALSE;
  if (!mem_validate(&a->mem, &a->topo, error)) return FALSE;
  if (!cpu_validate(&a->cpu, &a->stack, error)) return FALSE;
  if (a->n_drives < 1 || a->n_drives > APP_MAX_DRIVES)
    return model_fail(error, "nvme", "need 1..%d drives, got %d", APP_MAX_DRIVES, a->n_drives);
  if (a->n_nics < 1 || a->n_nics > APP_MAX_NICS)
    return model_fail(error, "nics", "need 1..%d NICs, got %d", APP_MAX_NICS, a->n_nics);
  for (int i = 0; i < a->n_drives; i++) {
    char kp[32];
    g_snprintf(kp, sizeof kp, "nvme[%d]", a->drives[i].group);
    if (!nvme_validate(&a->drives[i], &a->topo, kp, error)) return FALSE;
  }
  for (int i = 0; i < a->n_nics; i++) {
    char kp[32];
    g_snprintf(kp, sizeof kp, "nics[%d]", a->nics[i].group);
    if (!nic_validate(&a->nics[i], &a->topo, cpu_burst_bytes(&a->stack), kp, error)) return FALSE;
  }
  if (!workload_validate(&a->wl, error)) return FALSE;
  int n_loop = 0;
  for (int i = 0; i < a->n_nics; i++) n_loop += a->nics[i].kind == NIC_LOOPBACK;
  if (n_loop > 0) {
    if (n_loop != a->n_nics || a->n_nics != 1)
      return model_fail(error, "nics", "a loopback host has exactly one NIC group, of kind loopback");
    if (topo_nodes(&a->topo) != 1) return model_fail(error, "topology", "a loopback host is modelled on one NUMA node");
    if (a->wl.alt_fraction > 0) return model_fail(error, "workload.alt_fraction", "a loopback host serves one data path");
    if (!loopback_validate(&a->lo, a->path, error)) return FALSE;
  } else if (a->lo.present) {
    return model_fail(error, "loopback", "a `loopback:` section needs a NIC of kind loopback");
  }
  gboolean cpu_crypto = datapath_cpu_crypto(a->path) || (a->wl.alt_fraction > 0 && datapath_cpu_crypto(a->wl.alt_path));
  if (n_loop == 0 && cpu_crypto && a->crypto == CRYPTO_NONE)
    return model_fail(error, "software.crypto",
                      "%s encrypts on the CPU: name its bulk cipher (none is for sendfile and "
                      "sendfile_nic_ktls)",
                      datapath_name(datapath_cpu_crypto(a->path) ? a->path : a->wl.alt_path));
  gboolean nic_path = a->path == DP_SENDFILE_NIC_KTLS || (a->wl.alt_fraction > 0 && a->wl.alt_path == DP_SENDFILE_NIC_KTLS);
  if (nic_path)
    for (int i = 0; i < a->n_nics; i++)
      if (a->nics[i].ktls_gbps <= 0) {
        char kp[32];
        g_snprintf(kp, sizeof kp, "nics[%d]", a->nics[i].group);
        return model_fail(error, kp, "sendfile_nic_ktls needs an inline kTLS engine (ktls > 0) on every NIC");
      }
  if (a->placement == PL_STRICT_DISK_CENTRIC) {
    for (int d = 0; d < a->n_drives; d++) {
      int dn = topo_node_of(&a->topo, a->drives[d].pos);
      gboolean found = FALSE;
      for (int i = 0; i < a->n_nics && !found; i++)
        for (int p = 0; p < a->nics[i].ports; p++)
          if (nic_port_domain(&a->nics[i], &a->topo, p) == dn) found = TRUE;
      if (!found) {
        char kp[32];
        g_snprintf(kp, sizeof kp, "nvme[%d]", a->drives[d].group);
        return model_fail(error, kp, "strict_disk_centric: node %d holds this drive but no NIC port", dn);
      }
    }
  }
  if (a->sendfile == SENDFILE_SYNC && a->sendfile_workers < 1)
    return model_fail(error, "software.workers", "synchronous sendfile needs at least one worker");
  return TRUE;
}
