/* model_error.h — the error domain of the appliance model: a validation failure names the
 * scenario key path it is about ("nics[1].node: ..."), so the scenario loader can prefix
 * FILE:LINE:COL of that key.
 *
 * The key path travels with the error, not only in its text: MODEL_ERROR is an extended GError
 * domain (GLib 2.68) whose private part holds the path and the bare message, so a loader reads
 * model_error_path() / model_error_detail() instead of parsing the message. A device's path
 * names the scenario group it was expanded from (nvme[g], nics[g]): the model code that raises
 * the error builds it from the device's `group`.
 */
#ifndef MODELS_APPLIANCE_MODEL_ERROR_H
#define MODELS_APPLIANCE_MODEL_ERROR_H
#include <glib.h>

#define MODEL_ERROR (model_error_quark())
typedef enum { MODEL_ERROR_INVALID = 1 } ModelErrorCode;
/* The error domain of the models' checks (MODEL_ERROR): the messages model_fail() writes. */
GQuark model_error_quark(void);

/* Sets *error to "KEYPATH: message" (domain MODEL_ERROR, code INVALID), with the key path and the
 * message kept apart for model_error_path() / model_error_detail(), and returns FALSE. */
gboolean model_fail(GError **error, const char *keypath, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
/* Key path a MODEL_ERROR is about ("nics[1].pcie"); NULL for an error of another domain. */
const char *model_error_path(const GError *error);
/* Message of a MODEL_ERROR without its key path; the whole message for another domain. */
const char *model_error_detail(const GError *error);

#endif /* MODELS_APPLIANCE_MODEL_ERROR_H */
