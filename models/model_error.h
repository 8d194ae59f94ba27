/* model_error.h — the error domain of the appliance model: a validation failure names the
 * scenario key path it is about ("nics[1].node: ..."), so the scenario loader can prefix
 * FILE:LINE:COL of that key. */
#ifndef MODELS_MODEL_ERROR_H
#define MODELS_MODEL_ERROR_H
#include <glib.h>

#define MODEL_ERROR (model_error_quark())
typedef enum { MODEL_ERROR_INVALID = 1 } ModelErrorCode;
GQuark model_error_quark(void);

/* Sets *error to "KEYPATH: message" (domain MODEL_ERROR, code INVALID) and returns FALSE. */
gboolean model_fail(GError **error, const char *keypath, const char *fmt, ...) G_GNUC_PRINTF(3, 4);

#endif /* MODELS_MODEL_ERROR_H */
