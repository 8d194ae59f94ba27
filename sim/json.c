/* sim/json.c — json-glib helpers (see json.h). */
#include "sim/json.h"

#include <gio/gio.h>
#include <math.h>
#include <string.h>

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

void sim_json_pair(JsonBuilder *b, const char *key, double lo, double hi)
{
  json_builder_set_member_name(b, key);
  json_builder_begin_array(b);
  sim_json_element(b, lo);
  sim_json_element(b, hi);
  json_builder_end_array(b);
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

gboolean sim_json_prepend_member(GString *doc, const char *key, const char *value, GError **error)
{
  g_autoptr(JsonParser) parser = json_parser_new();
  if (!json_parser_load_from_data(parser, doc->str, (gssize)doc->len, error)) return FALSE;
  JsonNode *root = json_parser_get_root(parser);
  if (!root || !JSON_NODE_HOLDS_OBJECT(root)) {
    g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "the JSON document is not an object");
    return FALSE;
  }
  g_autoptr(JsonObject) stamped = json_object_new();
  json_object_set_string_member(stamped, key, value);
  JsonObjectIter it;
  const char *name;
  JsonNode *node;
  json_object_iter_init_ordered(&it, json_node_get_object(root));
  while (json_object_iter_next_ordered(&it, &name, &node))
    if (strcmp(name, key) != 0) json_object_set_member(stamped, name, json_node_copy(node));
  g_autoptr(JsonNode) top = json_node_init_object(json_node_alloc(), stamped);
  g_autoptr(JsonGenerator) gen = json_generator_new();
  json_generator_set_root(gen, top);
  json_generator_set_pretty(gen, TRUE);
  g_autofree char *text = json_generator_to_data(gen, NULL);
  g_string_assign(doc, text);
  g_string_append_c(doc, '\n');
  return TRUE;
}
