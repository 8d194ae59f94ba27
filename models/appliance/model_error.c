/* model_error.c — located validation errors of the appliance model (see model_error.h). */
#include "models/appliance/model_error.h"

typedef struct {
  char *path;   /* key path, e.g. "nvme[2].pcie" */
  char *detail; /* the message after "path: " */
} ModelErrorPrivate;

static void model_error_private_init(ModelErrorPrivate *p)
{
  p->path = p->detail = NULL;
}

static void model_error_private_copy(const ModelErrorPrivate *src, ModelErrorPrivate *dest)
{
  dest->path = g_strdup(src->path);
  dest->detail = g_strdup(src->detail);
}

static void model_error_private_clear(ModelErrorPrivate *p)
{
  g_clear_pointer(&p->path, g_free);
  g_clear_pointer(&p->detail, g_free);
}

G_DEFINE_EXTENDED_ERROR(ModelError, model_error)

gboolean model_fail(GError **error, const char *keypath, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  g_autofree char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  GError *e = g_error_new(MODEL_ERROR, MODEL_ERROR_INVALID, "%s: %s", keypath, msg);
  ModelErrorPrivate *p = model_error_get_private(e);
  p->path = g_strdup(keypath);
  p->detail = g_steal_pointer(&msg);
  g_propagate_error(error, e);
  return FALSE;
}

const char *model_error_path(const GError *error)
{
  return error && error->domain == MODEL_ERROR ? model_error_get_private(error)->path : NULL;
}

const char *model_error_detail(const GError *error)
{
  if (!error) return NULL;
  if (error->domain != MODEL_ERROR) return error->message;
  const char *d = model_error_get_private(error)->detail;
  return d ? d : error->message;
}
