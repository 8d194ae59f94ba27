/* sim/observe.c — trace filters (see sim/observe.h). */
#include "sim/observe.h"

#include <string.h>

#include "sim/conf.h"

struct SimTrace {
  GPtrArray *names; /* char* */
  GArray *levels;   /* SimTraceLevel, parallel to names */
};

static void trace_init(SimTrace *t)
{
  t->names = g_ptr_array_new_with_free_func(g_free);
  t->levels = g_array_new(FALSE, FALSE, sizeof(SimTraceLevel));
}

gboolean sim_trace_add(SimTrace *t, const char *spec, GError **error)
{
  g_auto(GStrv) items = g_strsplit(spec, ",", -1);
  for (char **it = items; *it; it++) {
    g_autofree char *item = g_strstrip(g_strdup(*it));
    char *colon = strchr(item, ':');
    SimTraceLevel level = SIM_TRACE_DEBUG;
    if (colon) {
      *colon = '\0';
      const char *lv = colon + 1;
      if (!strcmp(lv, "info"))
        level = SIM_TRACE_INFO;
      else if (strcmp(lv, "debug") != 0) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--log '%s': unknown level '%s' (info or debug)", *it, lv);
        return FALSE;
      }
    }
    if (!*item) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--log '%s': expected NAME[:info|debug]", *it);
      return FALSE;
    }
    g_ptr_array_add(t->names, g_strdup(item));
    g_array_append_val(t->levels, level);
  }
  return TRUE;
}

SimTrace *sim_trace_parse(const char *spec, GError **error)
{
  g_autoptr(SimTrace) t = g_new0(SimTrace, 1);
  trace_init(t);
  if (!sim_trace_add(t, spec, error)) return NULL;
  return g_steal_pointer(&t);
}

void sim_trace_free(SimTrace *t)
{
  if (!t) return;
  if (t->names) g_ptr_array_free(t->names, TRUE);
  if (t->levels) g_array_free(t->levels, TRUE);
  g_free(t);
}

/* Names an unknown-component error lists at most (the rest are counted): a line a reader can scan. */
#define TRACE_LIST_MAX 40

gboolean sim_trace_check(const SimTrace *t, const char *const *known, GError **error)
{
  if (!t) return TRUE;
  for (guint i = 0; i < t->names->len; i++) {
    const char *n = g_ptr_array_index(t->names, i);
    if (!strcmp(n, "all") || (known && g_strv_contains(known, n))) continue;
    const char *near = sim_conf_suggest(n, known);
    g_autoptr(GString) list = g_string_new("all");
    guint nk = known ? g_strv_length((char **)known) : 0;
    for (guint k = 0; k < MIN(nk, TRACE_LIST_MAX); k++) g_string_append_printf(list, ", %s", known[k]);
    if (nk > TRACE_LIST_MAX) g_string_append_printf(list, " and %u more", nk - TRACE_LIST_MAX);
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "'%s' is not a component of this scenario%s%s%s; components: %s",
                n, near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "", list->str);
    return FALSE;
  }
  return TRUE;
}

SimTraceLevel sim_trace_level(const SimTrace *t, const char *component)
{
  SimTraceLevel best = SIM_TRACE_OFF;
  if (!t || !component) return best;
  for (guint i = 0; i < t->names->len; i++) {
    const char *n = g_ptr_array_index(t->names, i);
    SimTraceLevel l = g_array_index(t->levels, SimTraceLevel, i);
    if ((!strcmp(n, "all") || !strcmp(n, component)) && l > best) best = l;
  }
  return best;
}
