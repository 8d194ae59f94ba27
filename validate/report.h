/* validate/report.h — output of `ocasim validate`: report.md, report.json,
 * host-profile.yaml, host-scenario.yaml and a short summary on the terminal.
 */
#ifndef OCASIM_VALIDATE_REPORT_H
#define OCASIM_VALIDATE_REPORT_H

#include <glib.h>
#include <stdio.h>

#include "validate/pipeline.h"

G_BEGIN_DECLS

/* report.json: probe, microbenchmarks, mechanics, runs, fit, predictions. */
gboolean val_report_write_json(const ValReport *r, const char *path, GError **error);

/* Creates out_dir and writes the three files. */
gboolean val_report_write_all(const ValReport *r, GError **error);

/* A few lines: kTLS, mechanics, fit quality, prediction errors against the target
 * (median <= 10 %, worst <= 20 %: reported, not enforced). */
void val_report_print_summary(const ValReport *r, FILE *f);

G_END_DECLS
#endif
