/* ram.h — the page cache and the RAM of a whole box (pagecache.h has the model and sources).
 *
 * What it sizes, in bytes, at a throughput X (B/s) with n = X * 8 / mean bitrate connections:
 *   needed = page cache + n x ram.socket_buffer + n_TLS x ram.tls_state + n_NIC x nics[].tls_context_bytes
 *          + n_RW x software.user_buffer + X (1 - h) x t_read + ram.reserve
 * n_TLS, n_NIC, n_RW: connections on a TLS path, NIC-encrypted, on a read/write path; h the hit
 * ratio; t_read the slowest drive's time for one workload.io_size read (Little's law, an upper bound).
 * The page cache is ram.page_cache, or (0) what memory.installed leaves (demand.c's fixed point).
 * Sources: the ram.* and nics[].tls_context_bytes rows (memory.c, nic.c).
 * Leaves out: nothing it sizes is an error: a need above memory.installed is flagged in the report.
 * Evidence and history: docs/model/ram.md.
 */
#ifndef MODELS_APPLIANCE_RAM_H
#define MODELS_APPLIANCE_RAM_H
#include "models/appliance/component.h"
#include "models/appliance/demand.h"
#include <json-glib/json-glib.h>

/* The page cache's RAM (bytes; 0 when off) and hit ratio (0 when off) of appliance a serving
 * x_Bps (B/s, >= 0; the model's sized_Bps, demand.c), which sizes ram.page_cache 0. */
double pagecache_size_bytes(const Appliance *a, double x_Bps);
double pagecache_hit_ratio(const Appliance *a, double x_Bps);
/* Whether the two above depend on x_Bps: an LRU cache sized by memory.installed (ram.page_cache
 * 0): the component's sizing_varies hook. Keep it in step with pagecache_size_bytes. */
gboolean pagecache_size_varies(const Appliance *a);

/* Fills o for appliance a whose model m serves x_Bps with `connections` clients (the report's
 * figures); o->shown is FALSE (and nothing else set) unless the page cache is on or
 * memory.installed is given. */
void ram_report_fill(RamReport *o, const Appliance *a, const DemandModel *m, double x_Bps, double connections);
/* The report's table lines ("page cache:", "ram:", "warning:"); nothing when !o->shown. */
void ram_report_table(const RamReport *o, GString *out);
/* The report's JSON members "page_cache" and "ram"; nothing when !o->shown. */
void ram_report_json(const RamReport *o, JsonBuilder *b);

#endif /* MODELS_APPLIANCE_RAM_H */
