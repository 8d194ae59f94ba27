/* validate/profile.h — the fitted host as an appliance platform: host-profile.yaml (a
 * platform file of the `kind: appliance` schema with a loopback NIC, models/appliance/loopback.h),
 * scenarios on it, and the appliance model's prediction for a measured configuration.
 */
#ifndef OCASIM_VALIDATE_PROFILE_H
#define OCASIM_VALIDATE_PROFILE_H

#include <glib.h>

#include "models/appliance/loader.h"
#include "validate/fit.h"
#include "validate/microbench.h"
#include "validate/predict.h"
#include "serve/probe.h"

G_BEGIN_DECLS

/* Text of host-profile.yaml: a platform file (include it with `platform:`) that is also a
 * runnable scenario on its own (kind appliance; the test defaults to user-space TLS 1.3
 * AES-128-GCM, one server and one client thread, 8 connections, 1 MiB files).  probe and mb
 * may be NULL (tests): the CPU model, ISA and memory figures are then left generic.
 * fit may be NULL.  Every fitted figure carries its standard error in a comment. */
char *val_host_profile_yaml(const ValHostProfile *p, const ValProbe *probe, const ValMicrobench *mb, const ValFitStats *fit);

/* TRUE when profile_yaml (host-profile.yaml's text) loads by itself through the appliance
 * loader, as `ocasim bound host-profile.yaml` reads it (no files are read).  validate checks
 * every profile it writes with this.  Errors: the loader's located error (e.g.
 * "host-profile.yaml:57:16: loopback.utilisation: ..."). */
gboolean val_host_profile_check(const char *profile_yaml, GError **error);

/* Page size the cost profile's page_cycles is written for: cpu.page_size's default, 4 KiB. */
#define VAL_COST_PAGE_BYTES 4096.0

/* Text of the host's `costs:` block (the cost profile of models/appliance/cpu.h, one format with the
 * platform files): source, the AEAD cycles/B per cipher, copy_cpb and request_cycles (the
 * server's) where the fit gives a positive cost, page_cycles = stack_cpb x 4 KiB; the segment
 * and interrupt costs are not measured over loopback and are not written. It is a valid
 * platform file by itself: validate writes it as host-costs.yaml, and a lab server's platform
 * file takes its measured costs with `platform: host-costs.yaml`. source: where the values come
 * from (host, CPU, date). */
char *val_host_costs_yaml(const ValHostProfile *p, const char *source);
/* val_host_costs_yaml with this host's source line (host name, the CPU model of probe, which may
 * be NULL, CPUs, clock and the day): the block host-profile.yaml and host-costs.yaml carry. */
char *val_host_costs_yaml_here(const ValHostProfile *p, const ValProbe *probe);

/* The memory capacity host-profile.yaml gives, GB/s: the best bus bandwidth the microbenchmark
 * measured (read, write or copy at any thread count), raised to what the measured runs pulled
 * through DRAM (dram_shown_GBps); 10 GB/s without either. *what (may be NULL) says which. */
double val_host_memory_GBps(const ValHostProfile *p, const ValMicrobench *mb, const char **what);

/* Text of a scenario for one configuration on the platform file `platform` (relative to the
 * scenario's directory): data path, cipher, threads, connections, request and file size, and
 * the share of the CPUs available (workload.cpu_cap = avail_cores / cores). */
char *val_host_scenario_yaml(const ValHostProfile *p, const ValHostConfig *cfg, const char *platform, const char *title);

/* Binds profile_yaml overlaid by the scenario of cfg (no files are read).  Errors: the
 * located conf errors of the appliance loader (SIM_CONF_ERROR). */
gboolean val_host_appliance(const char *profile_yaml, const ValHostProfile *p, const ValHostConfig *cfg, Appliance *out,
                            GError **error);

/* The appliance model's bound-mode throughput for cfg on the profile, Gb/s, and the name of
 * the limiting resource ("cpu.node0", "loopback.server", ...; bottleneck may be NULL). */
gboolean val_host_bound_gbps(const char *profile_yaml, const ValHostProfile *p, const ValHostConfig *cfg, double *gbps,
                             char bottleneck[40], GError **error);

G_END_DECLS
#endif
