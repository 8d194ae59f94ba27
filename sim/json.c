/* sim/json.c — json-glib helpers (see json.h). */
#include "sim/json.h"

#include <math.h>

void sim_json_number(JsonBuilder *b, const char *key, double v)
{
  json_builder_set_member_name(b, key);
  sim_json_element(b, v);
}

void sim_json_string(JsonBuilder *b, const char *key, const char *s)
{
  json_builder_set_member_name(b, key);
  if (s)
    json_builder_add_string_value(b, s);
  else
    json_builder_add_null_value(b);
}

void sim_json_int(JsonBuilder *b, const char *key, gint64 v)
{
  json_builder_set_member_name(b, key);
  json_builder_add_int_value(b, v);
}

void sim_json_bool(JsonBuilder *b, const char *key, gboolean v)
{
  json_builder_set_member_name(b, key);
  json_builder_add_boolean_value(b, v);
}

void sim_json_element(JsonBuilder *b, double v)
{
  if (isfinite(v))
    json_builder_add_double_value(b, v);
  else
    json_builder_add_null_value(b);
}

void sim_json_append(JsonBuilder *b, GString *out)
{
  g_autoptr(JsonGenerator) gen = json_generator_new();
  g_autoptr(JsonNode) root = json_builder_get_root(b);
  json_generator_set_root(gen, root);
  json_generator_set_pretty(gen, TRUE);
  g_autofree char *text = json_generator_to_data(gen, NULL);
  g_string_append(out, text);
  g_string_append_c(out, '\n');
}

gboolean sim_json_write_file(JsonBuilder *b, const char *path, GError **error)
{
  g_autoptr(JsonGenerator) gen = json_generator_new();
  g_autoptr(JsonNode) root = json_builder_get_root(b);
  json_generator_set_root(gen, root);
  json_generator_set_pretty(gen, TRUE);
  return json_generator_to_file(gen, path, error);
}
