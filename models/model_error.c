/* model_error.c — located validation errors of the appliance model (see model_error.h). */
#include "models/model_error.h"

G_DEFINE_QUARK(ocasim - model - error - quark, model_error)

gboolean model_fail(GError **error, const char *keypath, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  g_autofree char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  g_set_error(error, MODEL_ERROR, MODEL_ERROR_INVALID, "%s: %s", keypath, msg);
  return FALSE;
}
