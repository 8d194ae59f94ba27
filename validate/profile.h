/* validate/profile.h — the fitted host as an appliance platform: host-profile.yaml (a
 * platform file of the `kind: appliance` schema with a loopback NIC, models/loopback.h),
 * scenarios on it, and the appliance model's prediction for a measured configuration.
 */
#ifndef OCASIM_VALIDATE_PROFILE_H
#define OCASIM_VALIDATE_PROFILE_H

#include <glib.h>

#include "models/appliance_conf.h"
#include "validate/fit.h"
#include "validate/microbench.h"
#include "validate/predict.h"
#include "validate/probe.h"

G_BEGIN_DECLS

/* Text of host-profile.yaml: a platform file (include it with `platform:`) that is also a
 * runnable scenario on its own (kind appliance; the test defaults to user-space TLS 1.3
 * AES-128-GCM, one server and one client thread, 8 connections, 1 MiB files).  probe and mb
 * may be NULL (tests): the CPU model, ISA and memory figures are then left generic.
 * fit may be NULL.  Every fitted figure carries its standard error in a comment. */
char *val_host_profile_yaml(const ValHostProfile *p, const ValProbe *probe, const ValMicrobench *mb, const ValFitStats *fit);

/* Text of a scenario for one configuration on the platform file `platform` (relative to the
 * scenario's directory): data path, cipher, threads, connections, request and file size, and
 * the share of the CPUs available (cpu.cap = avail_cores / cores). */
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
