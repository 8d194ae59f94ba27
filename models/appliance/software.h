/* software.h — the `software:` section: the serving software's data path, bulk crypto, NUMA
 * placement, egress, user buffer and sendfile workers, and its data path's touches on a box.
 *
 * What it models: the touches of datapath.h on a given box; a reused user buffer reaches DRAM
 * only for the share that misses the cache,
 *     m(W) = 1 / (1 + (C / W)^4)     (loopback_miss_share; W buffers in flight per core, C L2 + L3)
 * with W = buffer x requests in flight per core (n = X x 8 / mean bitrate over the cores), so the
 * demand depends on the served throughput (sizing_varies). Synchronous sendfile adds a pool of
 * workers held for each drive read (Little's law, nvme.h).
 * Sources: the data-flow slides of the talks (published.yaml); nginx output_buffers 2 x 32k.
 * Leaves out: what datapath.h leaves out.
 * Evidence and history: docs/model/datapath.md.
 */
#ifndef MODELS_APPLIANCE_SOFTWARE_H
#define MODELS_APPLIANCE_SOFTWARE_H
#include "models/appliance/appliance.h"

/* Keys of the scenario's `software:` section (component.h: offsets into AppConf). */
extern const SimConfField software_schema[];
/* m(W) of the header: the share of a reused user buffer's touches that reach DRAM, for a buffer of
 * buffer_bytes per request, conns_per_core requests in flight on a core (at least 1) and a core's
 * cache share (cpu_cache_share_bytes); 1 when either size is 0. */
double software_user_miss_share(double buffer_bytes, double conns_per_core, double cache_share_bytes);
/* The share of a reused user buffer's touches that reach DRAM on appliance a serving x_Bps (B/s,
 * >= 0; the model's sized_Bps, demand.c): software_user_miss_share with the requests in flight
 * per core, x_Bps x 8 over the workload's mean bitrate, spread over the cores. */
double software_user_miss(const Appliance *a, double x_Bps);
/* Whether the value above depends on x_Bps on appliance a: a read/write path (main or alt) with a
 * user buffer and a cache share to keep it in; FALSE means the demand does not (the component's
 * sizing_varies hook). Keep it in step with software_user_miss. */
gboolean software_user_miss_varies(const Appliance *a);
/* The DRAM touches of data path `path` on appliance a (bytes per served byte, datapath.h's table
 * with the metadata and ACK terms when include_meta), before any page-cache hit, with a reused user
 * buffer's residency at served throughput sized_Bps (B/s) and the NIC's TLS context fetches
 * (nic.h): the component's path_touches hook. Returns the number written to out. */
int software_path_touches(const Appliance *a, DataPath path, gboolean include_meta, double sized_Bps, Touch out[DP_MAX_TOUCHES]);

/* The scenario's root rows of this component (components.h: the loader's root schema is the list's
 * rows; expanded where AppConf is defined, component.h). */
#define software_conf_sections \
  { .key = "software", .type = SIM_CONF_T_MAP, .offset = 0, .sub = software_schema, .doc = "serving software" },

#endif /* MODELS_APPLIANCE_SOFTWARE_H */
