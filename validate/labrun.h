/* validate/labrun.h — `ocasim validate --clients`: a calibration run of a lab server with its
 * load generators on other machines (validate/remote.h), a configuration table sized to the
 * host, host-platform.yaml (validate/hostplat.h) and the predicted-vs-measured report.
 */
#ifndef OCASIM_VALIDATE_LABRUN_H
#define OCASIM_VALIDATE_LABRUN_H

#include <glib.h>

#include "validate/hostplat.h"
#include "validate/measure.h"
#include "validate/remote.h"

G_BEGIN_DECLS

/* Bytes each run of the table moves over all its clients, --quick and full (assumed: a quick run
 * of a fraction of a second on loopback; a full one long enough that the clients' start-up, ssh
 * included, is a few percent of it at 100 Gb/s). */
#define VAL_LAB_QUICK_BYTES ((uint64_t)64 << 20)
#define VAL_LAB_FULL_BYTES  ((uint64_t)16 << 30)

typedef struct {
  gboolean quick;
  const char *out_dir;
  const char *work_dir;      /* served files (NULL: a temporary directory) */
  const char *costs_file;    /* host-costs.yaml of an earlier `ocasim validate` (NULL: none) */
  const char *platform_file; /* a platform file to predict from instead of the one read from sysfs (an
                                edited host-platform.yaml; NULL: read this host) */
  ValRemoteConfig remote;
  gboolean no_loopback; /* skip the loopback twin of each run */
  gboolean progress;
} ValLabConfig;

/* What the host supports, for the table. */
typedef struct {
  int cpus;          /* online CPUs */
  int cpus_per_node; /* of the smallest NUMA node */
  gboolean ktls;     /* the kernel takes TLS_TX (sendfile_ktls runs are added) */
  int nclients;
} ValLabHost;

/* The configuration table (see labrun.c): modes the host supports, server threads 1, one NUMA
 * node's CPUs and all CPUs, connections per client from 8 to thousands in all, 1 MiB and 16 KiB
 * files, requests per connection so that each run moves about the byte target, and an uncached
 * file set per mode. --quick: one thread, 4 connections a client, 1 MiB, plain and user-space TLS
 * (and kTLS where the kernel has it), one plain uncached run. (transfer full: g_free) *n receives
 * the count. */
ValRemoteSpec *val_lab_specs(const ValLabHost *h, gboolean quick, int *n);

/* Most held-out configurations val_lab_loopback_extra adds (array size). */
#define VAL_LAB_MAX_EXTRA 16

/* Held-out configurations a full loopback `ocasim validate` adds on a host of more than 2 CPUs
 * (none on 2 CPUs or fewer: the table stays CI's): server and client threads k = half of one NUMA
 * node's CPUs and half of all CPUs (each side gets half the box; each k > 2 once), in plain
 * sendfile, user-space TLS 1.3 AES-128-GCM and sendfile with kTLS, at 4k connections and at 1024
 * (thousands), 1 MiB files. Writes at most max into out; returns the count. */
int val_lab_loopback_extra(int cpus, int cpus_per_node, ValRunSpec *out, int max);
/* CPUs of this host's smallest NUMA node (sysfs; all online CPUs when no node is listed). */
int val_lab_min_node_cpus(void);

/* Runs the table (remote and loopback twin per configuration), writes host-platform.yaml,
 * report-lab.md and report-lab.json into out_dir. FALSE on a failed run (a body that did not
 * hash, a client that failed) or an unwritable output; what was measured is still written. */
gboolean val_lab_run(const ValLabConfig *cfg, GError **error);

G_END_DECLS
#endif /* OCASIM_VALIDATE_LABRUN_H */
