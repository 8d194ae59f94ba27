/* validate/labreport.h — what `ocasim validate` (loopback) adds for a lab calibration:
 * host-platform.yaml (this host from sysfs, validate/hostplat.h, with the measured costs and DRAM
 * bandwidth) and report-resources.md, each measured run resource by resource beside the model.
 */
#ifndef OCASIM_VALIDATE_LABREPORT_H
#define OCASIM_VALIDATE_LABREPORT_H

#include <glib.h>

#include "validate/pipeline.h"

G_BEGIN_DECLS

/* Text of report-resources.md for r: per run, measured and predicted Gb/s (the appliance model on
 * host-profile.yaml, as report.md), the error, the prediction interval's place (none until the
 * uncertainty module is merged), measured busy share of each side and the model's utilisation of
 * its thread pools, CPU and DRAM at the measured rate, softirq share, loopback, page-cache and
 * drive traffic, DRAM traffic (uncore PMU or "not measured"), kTLS sessions in software and on
 * the device, and whether the run was CPU bound. (transfer full) */
char *val_lab_resources_md(const ValReport *r);

/* Writes host-platform.yaml and report-resources.md into r->out_dir. Errors: I/O. */
gboolean val_lab_write_loopback(const ValReport *r, GError **error);

G_END_DECLS
#endif /* OCASIM_VALIDATE_LABREPORT_H */
