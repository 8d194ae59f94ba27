/* sim/conf_schema.c — binding schemas as JSON Schema and as key paths (see conf_schema.h). */
#include "sim/conf_schema.h"

#include <string.h>
#include "sim/units.h"

static const SimConfField *node_schema(const SimConfNodeSchema *nodes, const char *path)
{
  for (; nodes && nodes->path; nodes++)
    if (!strcmp(nodes->path, path)) return nodes->schema;
  return NULL;
}

/* A bound (.min/.max text) as a number in the base unit; FALSE when the text is not one. */
static gboolean bound_value(const char *text, SimUnitKind unit, double *out)
{
  return text && sim_units_parse(text, unit, out, NULL);
}

static void add_number(JsonBuilder *b, const char *key, double v, gboolean integer)
{
  json_builder_set_member_name(b, key);
  if (integer && v >= -SIM_MAX_EXACT_INT && v <= SIM_MAX_EXACT_INT)
    json_builder_add_int_value(b, (gint64)v);
  else
    json_builder_add_double_value(b, v);
}

/* The members of a scalar of type @t (unit @unit, bounds and enum of @f). */
static void scalar_members(JsonBuilder *b, const SimConfField *f, SimConfType t)
{
  switch (t) {
    case SIM_CONF_T_BOOL:
      json_builder_set_member_name(b, "type");
      json_builder_add_string_value(b, "boolean");
      return;
    case SIM_CONF_T_STRING:
      json_builder_set_member_name(b, "type");
      json_builder_add_string_value(b, "string");
      return;
    case SIM_CONF_T_ENUM:
      json_builder_set_member_name(b, "enum");
      json_builder_begin_array(b);
      for (const char *const *n = f->enum_names; n && *n; n++) json_builder_add_string_value(b, *n);
      json_builder_end_array(b);
      return;
    case SIM_CONF_T_DOUBLE:
    case SIM_CONF_T_INT:
    case SIM_CONF_T_INT64: break;
    default: return; /* any value */
  }
  g_autofree char *pattern = sim_unit_kind_pattern(f->unit);
  if (f->unit != SIM_UNIT_NONE) { /* text with a unit; its range depends on the unit */
    json_builder_set_member_name(b, "type");
    json_builder_add_string_value(b, "string");
    json_builder_set_member_name(b, "pattern");
    json_builder_add_string_value(b, pattern);
    return;
  }
  gboolean integer = t != SIM_CONF_T_DOUBLE;
  /* a number, or the same number quoted (the loader reads the text either way) */
  json_builder_set_member_name(b, "type");
  json_builder_begin_array(b);
  json_builder_add_string_value(b, integer ? "integer" : "number");
  json_builder_add_string_value(b, "string");
  json_builder_end_array(b);
  json_builder_set_member_name(b, "pattern");
  json_builder_add_string_value(b, integer ? "^[ \\t]*[-+]?[0-9]+[ \\t]*$" : pattern);
  double v;
  if (!f->zero_ok && bound_value(f->min, SIM_UNIT_NONE, &v))
    add_number(b, f->min_exclusive ? "exclusiveMinimum" : "minimum", v, integer);
  if (bound_value(f->max, SIM_UNIT_NONE, &v)) add_number(b, f->max_exclusive ? "exclusiveMaximum" : "maximum", v, integer);
}

/* The default of @f as a JSON value: numbers without a unit as numbers, booleans as booleans,
 * everything else as the text the table writes (e.g. "2 s"). */
static void add_default(JsonBuilder *b, const SimConfField *f)
{
  if (!f->def || f->type == SIM_CONF_T_LIST || f->type == SIM_CONF_T_DICT || f->type == SIM_CONF_T_MAP) return;
  double v;
  if (f->type == SIM_CONF_T_BOOL) {
    json_builder_set_member_name(b, "default");
    json_builder_add_boolean_value(b, !strcmp(f->def, "true"));
  } else if ((f->type == SIM_CONF_T_DOUBLE || f->type == SIM_CONF_T_INT || f->type == SIM_CONF_T_INT64) &&
             f->unit == SIM_UNIT_NONE && bound_value(f->def, SIM_UNIT_NONE, &v)) {
    add_number(b, "default", v, f->type != SIM_CONF_T_DOUBLE);
  } else {
    json_builder_set_member_name(b, "default");
    json_builder_add_string_value(b, f->def);
  }
}

/* "description": the table's line, then its unit, default and range as the Markdown shows them. */
static void add_description(JsonBuilder *b, const SimConfField *f)
{
  g_autoptr(GString) d = g_string_new(f->doc ? f->doc : "");
  gboolean numeric = f->type == SIM_CONF_T_DOUBLE || f->type == SIM_CONF_T_INT || f->type == SIM_CONF_T_INT64 ||
                     (f->type == SIM_CONF_T_LIST && !f->sub);
  if (numeric && f->unit != SIM_UNIT_NONE)
    g_string_append_printf(d, " (%s, e.g. \"%s\")", sim_unit_kind_name(f->unit), sim_unit_kind_example(f->unit));
  if (f->min || f->max)
    g_string_append_printf(d, "; range %s%s%s%s%s%s%s", f->min ? (f->min_exclusive ? "> " : ">= ") : "", f->min ? f->min : "",
                           f->min && f->max ? ", " : "", f->max ? (f->max_exclusive ? "< " : "<= ") : "", f->max ? f->max : "",
                           numeric && f->unit != SIM_UNIT_NONE ? " (in " : "",
                           numeric && f->unit != SIM_UNIT_NONE ? sim_unit_kind_base(f->unit) : "");
  if ((f->min || f->max) && numeric && f->unit != SIM_UNIT_NONE) g_string_append_c(d, ')');
  if (f->required) g_string_append(d, "; required");
  json_builder_set_member_name(b, "description");
  json_builder_add_string_value(b, d->str);
}

static void map_members(JsonBuilder *b, const SimConfField *schema, const SimConfNodeSchema *nodes, const char *prefix,
                        unsigned flags, gboolean top);

/* The schema object of field @f at key path @path. */
static void field_schema(JsonBuilder *b, const SimConfField *f, const SimConfNodeSchema *nodes, const char *path, unsigned flags)
{
  json_builder_begin_object(b);
  add_description(b, f);
  switch (f->type) {
    case SIM_CONF_T_MAP: map_members(b, f->sub, nodes, path, flags, FALSE); break;
    case SIM_CONF_T_LIST:
    case SIM_CONF_T_DICT: {
      gboolean list = f->type == SIM_CONF_T_LIST;
      json_builder_set_member_name(b, "type");
      json_builder_add_string_value(b, list ? "array" : "object");
      if (f->min_items) add_number(b, list ? "minItems" : "minProperties", (double)f->min_items, TRUE);
      if (f->max_items) add_number(b, list ? "maxItems" : "maxProperties", (double)f->max_items, TRUE);
      json_builder_set_member_name(b, list ? "items" : "additionalProperties");
      json_builder_begin_object(b);
      g_autofree char *elem = g_strdup_printf("%s%s", path, list ? "[]" : ".<name>");
      if (f->sub)
        map_members(b, f->sub, nodes, elem, flags & ~SIM_CONF_JSON_OVERLAY, FALSE); /* elements are replaced whole */
      else
        scalar_members(b, f, f->elem_type);
      json_builder_end_object(b);
      break;
    }
    case SIM_CONF_T_NODE: {
      const SimConfField *sub = node_schema(nodes, path);
      if (sub) map_members(b, sub, nodes, path, flags & ~SIM_CONF_JSON_OVERLAY, FALSE);
      break;
    }
    default:
      scalar_members(b, f, f->whole ? SIM_CONF_T_INT64 : f->type);
      add_default(b, f);
      break;
  }
  json_builder_end_object(b);
}

static void map_members(JsonBuilder *b, const SimConfField *schema, const SimConfNodeSchema *nodes, const char *prefix,
                        unsigned flags, gboolean top)
{
  json_builder_set_member_name(b, "type");
  json_builder_add_string_value(b, "object");
  json_builder_set_member_name(b, "properties");
  json_builder_begin_object(b);
  for (const SimConfField *f = schema; f->key; f++) {
    g_autofree char *path = *prefix ? g_strdup_printf("%s.%s", prefix, f->key) : g_strdup(f->key);
    json_builder_set_member_name(b, f->key);
    field_schema(b, f, nodes, path, flags);
  }
  json_builder_end_object(b);
  json_builder_set_member_name(b, "additionalProperties");
  json_builder_add_boolean_value(b, FALSE);
  gboolean want = top ? !(flags & SIM_CONF_JSON_NO_TOP_REQUIRED) : !(flags & SIM_CONF_JSON_OVERLAY);
  int n = 0;
  for (const SimConfField *f = schema; f->key; f++) n += f->required;
  if (!want || !n) return;
  json_builder_set_member_name(b, "required");
  json_builder_begin_array(b);
  for (const SimConfField *f = schema; f->key; f++)
    if (f->required) json_builder_add_string_value(b, f->key);
  json_builder_end_array(b);
}

void sim_conf_schema_json_members(JsonBuilder *b, const SimConfField *schema, const SimConfNodeSchema *nodes, unsigned flags)
{
  g_return_if_fail(b != NULL && schema != NULL);
  map_members(b, schema, nodes, "", flags, TRUE);
}

/* Key paths: @path is the path as the schema walk knows it (for NODE look-ups), @shown the
 * same with list elements as [0] and dict entries as NAME (what --set takes). */
static void keys(const SimConfField *schema, const SimConfNodeSchema *nodes, const char *path, const char *shown, GString *out)
{
  for (const SimConfField *f = schema; f->key; f++) {
    g_autofree char *p = *path ? g_strdup_printf("%s.%s", path, f->key) : g_strdup(f->key);
    g_autofree char *s = *shown ? g_strdup_printf("%s.%s", shown, f->key) : g_strdup(f->key);
    const SimConfField *sub = f->type == SIM_CONF_T_NODE ? node_schema(nodes, p) : f->sub;
    if (f->type == SIM_CONF_T_MAP || (f->type == SIM_CONF_T_NODE && sub)) {
      keys(sub, nodes, p, s, out);
    } else if ((f->type == SIM_CONF_T_LIST || f->type == SIM_CONF_T_DICT) && sub) {
      gboolean list = f->type == SIM_CONF_T_LIST;
      g_autofree char *ep = g_strdup_printf("%s%s", p, list ? "[]" : ".<name>");
      g_autofree char *es = g_strdup_printf("%s%s", s, list ? "[0]" : ".NAME");
      keys(sub, nodes, ep, es, out);
    } else {
      g_string_append_printf(out, "%s\n", s);
    }
  }
}

void sim_conf_schema_keys(const SimConfField *schema, const SimConfNodeSchema *nodes, const char *prefix, GString *out)
{
  g_return_if_fail(schema != NULL && out != NULL);
  g_autofree char *p = prefix ? g_strdup(prefix) : g_strdup("");
  if (*p && p[strlen(p) - 1] == '.') p[strlen(p) - 1] = '\0';
  keys(schema, nodes, p, p, out);
}

void sim_conf_schema_json_write(JsonBuilder *b, GString *out)
{
  g_autoptr(JsonGenerator) gen = json_generator_new();
  g_autoptr(JsonNode) root = json_builder_get_root(b);
  json_generator_set_root(gen, root);
  json_generator_set_pretty(gen, TRUE);
  json_generator_set_indent(gen, 2);
  g_autofree char *text = json_generator_to_data(gen, NULL);
  g_string_append(out, text);
  g_string_append_c(out, '\n');
}
