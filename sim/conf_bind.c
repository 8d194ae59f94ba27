/* sim/conf_bind.c — table-driven binding of SimConfNode trees to C structs, typed scalar
 * readers, and Markdown documentation of schemas.
 *
 * sim_conf_bind() visits the pairs of a map in file order: each key must name a field of the
 * schema (else an unknown-key error with the nearest field name as suggestion), and its value
 * is converted by the field type: quantities through sim/units (unit kind, then the range
 * [min, max] written in the same units), integers exactly, bools as true/false, enums by name,
 * strings copied, nested maps recursively, lists/dicts into g_malloc0'd element arrays. Then
 * absent fields get their default text parsed the same way, or an error if required. The
 * first error wins and the struct may be partly filled, so callers always sim_conf_unbind().
 * Schema texts (defaults, bounds) accept a bare number in the base unit.
 */
#include "sim/conf.h"
#include "sim/conf_private.h"

#include <limits.h>
#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------ */
/* Typed scalar readers                                                                       */

static const char *shape_desc(const SimConfNode *n)
{
  return n->kind == SIM_CONF_NODE_MAP ? "a map" : n->kind == SIM_CONF_NODE_SEQ ? "a list" : "a value";
}

/* Ensures @node is a non-null scalar; @want describes what was expected. */
static gboolean need_scalar(const SimConfNode *node, const char *want, GError **error)
{
  if (node->kind != SIM_CONF_NODE_SCALAR) {
    sim_conf_set_error(error, node, SIM_CONF_ERROR_TYPE, "expected %s, got %s", want, shape_desc(node));
    return FALSE;
  }
  if (sim_conf_node_is_null(node)) {
    sim_conf_set_error(error, node, SIM_CONF_ERROR_TYPE, "missing value, expected %s", want);
    return FALSE;
  }
  return TRUE;
}

static char *quantity_desc(SimUnitKind kind)
{
  if (kind == SIM_UNIT_NONE) return g_strdup("a number");
  return g_strdup_printf("a %s (e.g. '%s')", sim_unit_kind_name(kind), sim_unit_kind_example(kind));
}

/* Re-raises a SIM_UNITS_ERROR at @node's position. */
static void units_error(GError **error, const SimConfNode *node, SimUnitKind kind, GError *e)
{
  SimConfErrorCode code =
      e->code == SIM_UNITS_ERROR_SYNTAX || e->code == SIM_UNITS_ERROR_NOT_INTEGER ? SIM_CONF_ERROR_TYPE : SIM_CONF_ERROR_UNIT;
  if (node->from || strlen(node->text) > SIM_CONF_QUOTE_MAX) {
    /* the units' message quotes the value: not one of an included file, nor a long one */
    g_autofree char *want = quantity_desc(kind);
    g_autofree char *q = sim_conf_quote_(node);
    const char *why = e->code == SIM_UNITS_ERROR_NO_UNIT       ? "needs a unit"
                      : e->code == SIM_UNITS_ERROR_WRONG_KIND  ? "has a unit of another kind"
                      : e->code == SIM_UNITS_ERROR_UNKNOWN     ? "has an unknown unit"
                      : e->code == SIM_UNITS_ERROR_NOT_INTEGER ? "is not a whole number"
                                                               : "is not a valid number";
    sim_conf_set_error(error, node, code, "%s %s, expected %s", q, why, want);
  } else {
    sim_conf_set_error(error, node, code, "%s", e->message);
  }
  g_error_free(e);
}

gboolean sim_conf_node_double(const SimConfNode *node, SimUnitKind kind, double *out, GError **error)
{
  g_return_val_if_fail(node != NULL && out != NULL, FALSE);
  g_autofree char *want = quantity_desc(kind);
  if (!need_scalar(node, want, error)) return FALSE;
  GError *e = NULL;
  if (!sim_units_parse(node->text, kind, out, &e)) {
    units_error(error, node, kind, e);
    return FALSE;
  }
  return TRUE;
}

gboolean sim_conf_node_int64(const SimConfNode *node, SimUnitKind kind, int64_t *out, GError **error)
{
  g_return_val_if_fail(node != NULL && out != NULL, FALSE);
  g_autofree char *want = kind == SIM_UNIT_NONE ? g_strdup("an integer") : quantity_desc(kind);
  if (!need_scalar(node, want, error)) return FALSE;
  GError *e = NULL;
  if (!sim_units_parse_int64(node->text, kind, out, &e)) {
    units_error(error, node, kind, e);
    return FALSE;
  }
  return TRUE;
}

gboolean sim_conf_node_bool(const SimConfNode *node, bool *out, GError **error)
{
  g_return_val_if_fail(node != NULL && out != NULL, FALSE);
  if (!need_scalar(node, "true or false", error)) return FALSE;
  const char *t = node->text;
  if (!strcmp(t, "true") || !strcmp(t, "True") || !strcmp(t, "TRUE")) {
    *out = true;
    return TRUE;
  }
  if (!strcmp(t, "false") || !strcmp(t, "False") || !strcmp(t, "FALSE")) {
    *out = false;
    return TRUE;
  }
  g_autofree char *q = sim_conf_quote_(node);
  sim_conf_set_error(error, node, SIM_CONF_ERROR_TYPE, "expected true or false, got %s", q);
  return FALSE;
}

static char *join_names(const char *const *names)
{
  GString *s = g_string_new(NULL);
  for (const char *const *n = names; *n; n++) g_string_append_printf(s, "%s%s", n == names ? "" : ", ", *n);
  return g_string_free(s, FALSE);
}

gboolean sim_conf_node_enum(const SimConfNode *node, const char *const *names, int *out, GError **error)
{
  g_return_val_if_fail(node != NULL && names != NULL && out != NULL, FALSE);
  g_autofree char *list = join_names(names);
  g_autofree char *want = g_strdup_printf("one of %s", list);
  if (!need_scalar(node, want, error)) return FALSE;
  for (int i = 0; names[i]; i++) {
    if (strcmp(names[i], node->text) == 0) {
      *out = i;
      return TRUE;
    }
  }
  const char *near = sim_conf_suggest(node->text, names);
  g_autofree char *q = sim_conf_quote_(node);
  const char *what = node->from ? "unknown value" : "unknown value ";
  if (node->from) q[0] = '\0'; /* an included file's value is not echoed */
  if (near)
    sim_conf_set_error(error, node, SIM_CONF_ERROR_ENUM, "%s%s (did you mean '%s'?); expected one of %s", what, q, near, list);
  else
    sim_conf_set_error(error, node, SIM_CONF_ERROR_ENUM, "%s%s; expected one of %s", what, q, list);
  return FALSE;
}

static void unknown_key_error(GError **error, const SimConfNode *value, const char *const *allowed)
{
  const char *near = sim_conf_suggest(value->key, allowed);
  g_autofree char *key = sim_conf_escape_(value->key);
  if (near)
    sim_conf_key_error_(error, value, SIM_CONF_ERROR_UNKNOWN_KEY, "unknown key '%s' (did you mean '%s'?)", key, near);
  else if (allowed && allowed[0]) {
    g_autofree char *list = join_names(allowed);
    sim_conf_key_error_(error, value, SIM_CONF_ERROR_UNKNOWN_KEY, "unknown key '%s' (known keys: %s)", key, list);
  } else {
    sim_conf_key_error_(error, value, SIM_CONF_ERROR_UNKNOWN_KEY, "unknown key '%s'", key);
  }
}

static gboolean need_map(const SimConfNode *node, GError **error)
{
  if (node->kind == SIM_CONF_NODE_MAP) return TRUE;
  if (node->kind == SIM_CONF_NODE_SCALAR && sim_conf_node_is_null(node))
    sim_conf_set_error(error, node, SIM_CONF_ERROR_TYPE, "missing value, expected a map");
  else if (node->kind == SIM_CONF_NODE_SCALAR) {
    g_autofree char *q = sim_conf_quote_(node);
    sim_conf_set_error(error, node, SIM_CONF_ERROR_TYPE, "expected a map, got %s%s", node->from ? "" : "the value ", q);
  } else
    sim_conf_set_error(error, node, SIM_CONF_ERROR_TYPE, "expected a map, got %s", shape_desc(node));
  return FALSE;
}

gboolean sim_conf_check_keys(const SimConfNode *map, const char *const *allowed, GError **error)
{
  g_return_val_if_fail(map != NULL, FALSE);
  if (!need_map(map, error)) return FALSE;
  for (guint i = 0; i < map->children->len; i++) {
    const SimConfNode *v = g_ptr_array_index(map->children, i);
    gboolean ok = FALSE;
    for (const char *const *a = allowed; a && *a && !ok; a++) ok = strcmp(*a, v->key) == 0;
    if (!ok) {
      unknown_key_error(error, v, allowed);
      return FALSE;
    }
  }
  return TRUE;
}

/* ------------------------------------------------------------------------------------------ */
/* Binding                                                                                    */

static gboolean schema_error(GError **error, const SimConfField *f, const char *what, const char *text, GError *e)
{
  g_set_error(error, SIM_CONF_ERROR, SIM_CONF_ERROR_SCHEMA, "schema: field '%s': bad %s '%s': %s", f->key, what, text,
              e ? e->message : "invalid");
  g_clear_error(&e);
  return FALSE;
}

/* Parses schema text (default or bound) of a quantity; a bare number is in the base unit. */
static gboolean schema_number(const SimConfField *f, SimUnitKind unit, const char *what, const char *text, double *out,
                              GError **error)
{
  GError *e = NULL;
  if (sim_units_parse(text, unit, out, &e)) return TRUE;
  if (e->code == SIM_UNITS_ERROR_NO_UNIT) {
    g_clear_error(&e);
    if (sim_units_parse_double(text, out, &e)) return TRUE;
  }
  return schema_error(error, f, what, text, e);
}

/* The bound @b of @f (schema text @text) for a message: in the field's unit when it has one
 * ("100 %", "1 ns"), else as the schema writes it. */
static char *bound_text(SimUnitKind unit, const char *text, double b)
{
  return unit == SIM_UNIT_NONE ? g_strdup(text) : sim_units_format(b, unit);
}

static gboolean check_range(const SimConfField *f, SimUnitKind unit, double v, const SimConfNode *node, GError **error)
{
  double b;
  if (f->zero_ok && v == 0) return TRUE;
  if (f->min) {
    if (!schema_number(f, unit, "min", f->min, &b, error)) return FALSE;
    if (f->min_exclusive ? !(v > b) : !(v >= b)) {
      g_autofree char *bt = bound_text(unit, f->min, b);
      g_autofree char *q = sim_conf_quote_(node);
      sim_conf_set_error(error, node, SIM_CONF_ERROR_RANGE, "%s is out of range: must be %s %s", q,
                         f->min_exclusive ? ">" : ">=", bt);
      return FALSE;
    }
  }
  if (f->max) {
    if (!schema_number(f, unit, "max", f->max, &b, error)) return FALSE;
    if (f->max_exclusive ? !(v < b) : !(v <= b)) {
      g_autofree char *bt = bound_text(unit, f->max, b);
      g_autofree char *q = sim_conf_quote_(node);
      sim_conf_set_error(error, node, SIM_CONF_ERROR_RANGE, "%s is out of range: must be %s %s", q,
                         f->max_exclusive ? "<" : "<=", bt);
      return FALSE;
    }
  }
  return TRUE;
}

/* Stores one scalar of @type (DOUBLE, INT, INT64, BOOL, STRING, ENUM) read from @node into @p,
 * with @f's unit, range and enum names. */
static gboolean bind_scalar(const SimConfField *f, SimConfType type, const SimConfNode *node, void *p, GError **error)
{
  switch (type) {
    case SIM_CONF_T_DOUBLE: {
      double v;
      if (f->whole) { /* read exactly like an INT64, stored as a double */
        int64_t w;
        if (!sim_conf_node_int64(node, f->unit, &w, error)) return FALSE;
        v = (double)w;
      } else if (!sim_conf_node_double(node, f->unit, &v, error)) {
        return FALSE;
      }
      if (!check_range(f, f->unit, v, node, error)) return FALSE;
      *(double *)p = v;
      return TRUE;
    }
    case SIM_CONF_T_INT:
    case SIM_CONF_T_INT64: {
      int64_t v;
      if (!sim_conf_node_int64(node, f->unit, &v, error) || !check_range(f, f->unit, (double)v, node, error)) return FALSE;
      if (type == SIM_CONF_T_INT) {
        if (v < INT_MIN || v > INT_MAX) {
          g_autofree char *q = sim_conf_quote_(node);
          sim_conf_set_error(error, node, SIM_CONF_ERROR_RANGE, "%s is out of range for an int", q);
          return FALSE;
        }
        *(int *)p = (int)v;
      } else {
        *(int64_t *)p = v;
      }
      return TRUE;
    }
    case SIM_CONF_T_BOOL: return sim_conf_node_bool(node, (bool *)p, error);
    case SIM_CONF_T_STRING:
      if (!need_scalar(node, "a string", error)) return FALSE;
      g_free(*(char **)p);
      *(char **)p = g_strdup(node->text);
      return TRUE;
    case SIM_CONF_T_ENUM:
      g_return_val_if_fail(f->enum_names != NULL, FALSE);
      return sim_conf_node_enum(node, f->enum_names, (int *)p, error);
    default:
      g_set_error(error, SIM_CONF_ERROR, SIM_CONF_ERROR_SCHEMA, "schema: field '%s': type %d is not a scalar type", f->key, type);
      return FALSE;
  }
}

static size_t scalar_size(SimConfType t)
{
  switch (t) {
    case SIM_CONF_T_DOUBLE: return sizeof(double);
    case SIM_CONF_T_INT: return sizeof(int);
    case SIM_CONF_T_INT64: return sizeof(int64_t);
    case SIM_CONF_T_BOOL: return sizeof(bool);
    case SIM_CONF_T_STRING: return sizeof(char *);
    case SIM_CONF_T_ENUM: return sizeof(int);
    default: return 0;
  }
}

static gboolean apply_default(const SimConfField *f, void *p, GError **error)
{
  GError *e = NULL;
  switch (f->type) {
    case SIM_CONF_T_DOUBLE:
      if (!f->whole) return schema_number(f, f->unit, "default", f->def, (double *)p, error);
      G_GNUC_FALLTHROUGH; /* a whole quantity's default reads like an integer's */
    case SIM_CONF_T_INT:
    case SIM_CONF_T_INT64: {
      int64_t v;
      if (!sim_units_parse_int64(f->def, f->unit, &v, &e)) {
        if (e->code != SIM_UNITS_ERROR_NO_UNIT) return schema_error(error, f, "default", f->def, e);
        g_clear_error(&e);
        if (!sim_units_parse_int64(f->def, SIM_UNIT_NONE, &v, &e)) return schema_error(error, f, "default", f->def, e);
      }
      if (f->type == SIM_CONF_T_DOUBLE) {
        *(double *)p = (double)v;
      } else if (f->type == SIM_CONF_T_INT) {
        if (v < INT_MIN || v > INT_MAX) return schema_error(error, f, "default", f->def, NULL);
        *(int *)p = (int)v;
      } else {
        *(int64_t *)p = v;
      }
      return TRUE;
    }
    case SIM_CONF_T_BOOL:
      if (!strcmp(f->def, "true") || !strcmp(f->def, "false")) {
        *(bool *)p = f->def[0] == 't';
        return TRUE;
      }
      return schema_error(error, f, "default", f->def, NULL);
    case SIM_CONF_T_STRING:
      g_free(*(char **)p);
      *(char **)p = g_strdup(f->def);
      return TRUE;
    case SIM_CONF_T_ENUM:
      for (int i = 0; f->enum_names && f->enum_names[i]; i++) {
        if (!strcmp(f->enum_names[i], f->def)) {
          *(int *)p = i;
          return TRUE;
        }
      }
      return schema_error(error, f, "default", f->def, NULL);
    default: return TRUE; /* maps, lists, nodes: no default text */
  }
}

static gboolean bind_map(const SimConfNode *node, const SimConfNode *anchor, const char *prefix, const SimConfField *schema,
                         void *out, GError **error);

static gboolean check_count(const SimConfField *f, const SimConfNode *node, size_t n, GError **error)
{
  if (f->min_items && n < f->min_items) {
    sim_conf_set_error(error, node, SIM_CONF_ERROR_RANGE, "has %zu element%s, needs at least %zu", n, n == 1 ? "" : "s",
                       f->min_items);
    return FALSE;
  }
  if (f->max_items && n > f->max_items) {
    sim_conf_set_error(error, node, SIM_CONF_ERROR_RANGE, "has %zu elements, at most %zu allowed", n, f->max_items);
    return FALSE;
  }
  return TRUE;
}

static gboolean bind_value(const SimConfField *f, const SimConfNode *node, void *out, GError **error)
{
  void *p = (char *)out + f->offset;
  switch (f->type) {
    case SIM_CONF_T_MAP:
      g_return_val_if_fail(f->sub != NULL, FALSE);
      if (!need_map(node, error)) return FALSE;
      return bind_map(node, node, "", f->sub, p, error);

    case SIM_CONF_T_LIST: {
      if (node->kind != SIM_CONF_NODE_SEQ) {
        if (node->kind == SIM_CONF_NODE_SCALAR && sim_conf_node_is_null(node))
          sim_conf_set_error(error, node, SIM_CONF_ERROR_TYPE, "missing value, expected a list");
        else
          sim_conf_set_error(error, node, SIM_CONF_ERROR_TYPE, "expected a list, got %s", shape_desc(node));
        return FALSE;
      }
      size_t n = node->children->len;
      if (!check_count(f, node, n, error)) return FALSE;
      size_t esize = f->sub ? f->elem_size : scalar_size(f->elem_type);
      g_return_val_if_fail(esize > 0, FALSE);
      SimConfList *list = p;
      g_free(list->items); /* only NULL or a previous bind's array (never with elements to free) */
      list->items = g_malloc0_n(MAX(n, 1), esize);
      list->n = n;
      for (size_t i = 0; i < n; i++) {
        const SimConfNode *c = g_ptr_array_index(node->children, i);
        void *ep = (char *)list->items + i * esize;
        gboolean ok =
            f->sub ? (need_map(c, error) && bind_map(c, c, "", f->sub, ep, error)) : bind_scalar(f, f->elem_type, c, ep, error);
        if (!ok) return FALSE;
      }
      return TRUE;
    }

    case SIM_CONF_T_DICT: {
      g_return_val_if_fail(f->sub != NULL && f->elem_size > 0, FALSE);
      if (!need_map(node, error)) return FALSE;
      size_t n = node->children->len;
      if (!check_count(f, node, n, error)) return FALSE;
      SimConfList *list = p;
      g_free(list->items);
      list->items = g_malloc0_n(MAX(n, 1), f->elem_size);
      list->n = n;
      for (size_t i = 0; i < n; i++) {
        const SimConfNode *c = g_ptr_array_index(node->children, i);
        void *ep = (char *)list->items + i * f->elem_size;
        *(char **)((char *)ep + f->key_offset) = g_strdup(c->key);
        if (!need_map(c, error) || !bind_map(c, c, "", f->sub, ep, error)) return FALSE;
      }
      return TRUE;
    }

    case SIM_CONF_T_NODE: *(const SimConfNode **)p = node; return TRUE;

    case SIM_CONF_T_IGNORE: return TRUE;

    default:
      if (!bind_scalar(f, f->type, node, p, error)) return FALSE;
      return TRUE;
  }
}

static const SimConfField *find_field(const SimConfField *schema, const char *key)
{
  for (const SimConfField *f = schema; f->key; f++)
    if (strcmp(f->key, key) == 0) return f;
  return NULL;
}

/* Binds map @node (NULL when the whole map is absent) with @schema into @out. Missing keys are
 * reported at @anchor, named @prefix + key. */
static gboolean bind_map(const SimConfNode *node, const SimConfNode *anchor, const char *prefix, const SimConfField *schema,
                         void *out, GError **error)
{
  if (node) {
    for (guint i = 0; i < node->children->len; i++) {
      const SimConfNode *v = g_ptr_array_index(node->children, i);
      const SimConfField *f = find_field(schema, v->key);
      if (!f) {
        GPtrArray *keys = g_ptr_array_new();
        for (const SimConfField *k = schema; k->key; k++) g_ptr_array_add(keys, (gpointer)k->key);
        g_ptr_array_add(keys, NULL);
        unknown_key_error(error, v, (const char *const *)keys->pdata);
        g_ptr_array_free(keys, TRUE);
        return FALSE;
      }
      if (!bind_value(f, v, out, error)) return FALSE;
    }
  }
  for (const SimConfField *f = schema; f->key; f++) {
    if (node && sim_conf_node_get(node, f->key)) continue;
    if (f->required) {
      if (f->doc)
        sim_conf_set_error(error, anchor, SIM_CONF_ERROR_MISSING, "missing required key '%s%s' (%s)", prefix, f->key, f->doc);
      else
        sim_conf_set_error(error, anchor, SIM_CONF_ERROR_MISSING, "missing required key '%s%s'", prefix, f->key);
      return FALSE;
    }
    if (f->type == SIM_CONF_T_MAP) {
      g_autofree char *sub_prefix = g_strdup_printf("%s%s.", prefix, f->key);
      if (!bind_map(NULL, anchor, sub_prefix, f->sub, (char *)out + f->offset, error)) return FALSE;
    } else if (f->def) {
      if (!apply_default(f, (char *)out + f->offset, error)) return FALSE;
    }
  }
  return TRUE;
}

gboolean sim_conf_bind(const SimConfNode *node, const SimConfField *schema, void *out, GError **error)
{
  g_return_val_if_fail(node != NULL && schema != NULL && out != NULL, FALSE);
  if (!need_map(node, error)) return FALSE;
  return bind_map(node, node, "", schema, out, error);
}

gboolean sim_conf_bind_defaults(const SimConfField *schema, void *out, GError **error)
{
  g_return_val_if_fail(schema != NULL && out != NULL, FALSE);
  for (const SimConfField *f = schema; f->key; f++) {
    void *p = (char *)out + f->offset;
    if (f->type == SIM_CONF_T_MAP) {
      if (!sim_conf_bind_defaults(f->sub, p, error)) return FALSE;
    } else if (f->def && !apply_default(f, p, error)) {
      return FALSE;
    }
  }
  return TRUE;
}

static void unbind_scalar(SimConfType t, void *p)
{
  if (t == SIM_CONF_T_STRING) {
    g_free(*(char **)p);
    *(char **)p = NULL;
  }
}

void sim_conf_unbind(const SimConfField *schema, void *out)
{
  g_return_if_fail(schema != NULL && out != NULL);
  for (const SimConfField *f = schema; f->key; f++) {
    void *p = (char *)out + f->offset;
    switch (f->type) {
      case SIM_CONF_T_STRING: unbind_scalar(f->type, p); break;
      case SIM_CONF_T_MAP: sim_conf_unbind(f->sub, p); break;
      case SIM_CONF_T_LIST:
      case SIM_CONF_T_DICT: {
        SimConfList *list = p;
        size_t esize = f->sub ? f->elem_size : scalar_size(f->elem_type);
        for (size_t i = 0; list->items && i < list->n; i++) {
          void *ep = (char *)list->items + i * esize;
          if (f->type == SIM_CONF_T_DICT) {
            g_free(*(char **)((char *)ep + f->key_offset));
            *(char **)((char *)ep + f->key_offset) = NULL;
          }
          if (f->sub)
            sim_conf_unbind(f->sub, ep);
          else
            unbind_scalar(f->elem_type, ep);
        }
        g_free(list->items);
        list->items = NULL;
        list->n = 0;
        break;
      }
      default: break;
    }
  }
}

/* ------------------------------------------------------------------------------------------ */
/* Documentation                                                                              */

static void md_escape(GString *out, const char *s)
{
  for (; s && *s; s++) {
    if (*s == '|')
      g_string_append(out, "\\|");
    else if (*s == '\n')
      g_string_append_c(out, ' ');
    else
      g_string_append_c(out, *s);
  }
}

static const char *type_name(SimConfType t, SimUnitKind unit)
{
  switch (t) {
    case SIM_CONF_T_DOUBLE: return unit == SIM_UNIT_NONE ? "number" : sim_unit_kind_name(unit);
    case SIM_CONF_T_INT:
    case SIM_CONF_T_INT64: return unit == SIM_UNIT_NONE ? "integer" : sim_unit_kind_name(unit);
    case SIM_CONF_T_BOOL: return "bool";
    case SIM_CONF_T_STRING: return "string";
    case SIM_CONF_T_ENUM: return "enum";
    case SIM_CONF_T_MAP: return "map";
    case SIM_CONF_T_LIST: return "list";
    case SIM_CONF_T_DICT: return "map of named entries";
    case SIM_CONF_T_NODE: return "section";
    case SIM_CONF_T_IGNORE: return "any";
    default: return "?";
  }
}

static void md_rows(const SimConfField *schema, const char *prefix, GString *out)
{
  for (const SimConfField *f = schema; f->key; f++) {
    g_autofree char *key = g_strdup_printf("%s%s", prefix, f->key);
    g_string_append(out, "| `");
    md_escape(out, key);
    g_string_append(out, "` | ");
    /* Type */
    if (f->type == SIM_CONF_T_ENUM && f->enum_names) {
      g_autofree char *names = g_strjoinv(" \\| ", (char **)f->enum_names);
      g_string_append(out, names);
    } else if (f->type == SIM_CONF_T_LIST && !f->sub) {
      g_string_append_printf(out, "list of %s", type_name(f->elem_type, f->unit));
    } else {
      g_string_append(out, type_name(f->whole ? SIM_CONF_T_INT64 : f->type, f->unit));
    }
    /* Unit */
    g_string_append(out, " | ");
    gboolean has_unit = f->type == SIM_CONF_T_DOUBLE || f->type == SIM_CONF_T_INT || f->type == SIM_CONF_T_INT64 ||
                        (f->type == SIM_CONF_T_LIST && !f->sub);
    if (has_unit && f->unit != SIM_UNIT_NONE) g_string_append(out, sim_unit_kind_base(f->unit));
    /* Default */
    g_string_append(out, " | ");
    if (f->required)
      g_string_append(out, "**required**");
    else if (f->def)
      md_escape(out, f->def);
    /* Range */
    g_string_append(out, " | ");
    if (f->zero_ok) g_string_append(out, "0 or ");
    if (f->min && f->max)
      g_string_append_printf(out, "%s%s .. %s%s", f->min_exclusive ? "> " : "", f->min, f->max_exclusive ? "< " : "", f->max);
    else if (f->min)
      g_string_append_printf(out, "%s %s", f->min_exclusive ? ">" : ">=", f->min);
    else if (f->max)
      g_string_append_printf(out, "%s %s", f->max_exclusive ? "<" : "<=", f->max);
    if (f->min_items || f->max_items) {
      if (f->min || f->max) g_string_append(out, "; ");
      if (f->min_items && f->max_items)
        g_string_append_printf(out, "%zu .. %zu entries", f->min_items, f->max_items);
      else if (f->min_items)
        g_string_append_printf(out, ">= %zu entries", f->min_items);
      else
        g_string_append_printf(out, "<= %zu entries", f->max_items);
    }
    g_string_append(out, " | ");
    md_escape(out, f->doc);
    g_string_append(out, " |\n");

    if (f->type == SIM_CONF_T_MAP && f->sub) {
      g_autofree char *p = g_strdup_printf("%s.", key);
      md_rows(f->sub, p, out);
    } else if (f->type == SIM_CONF_T_LIST && f->sub) {
      g_autofree char *p = g_strdup_printf("%s[].", key);
      md_rows(f->sub, p, out);
    } else if (f->type == SIM_CONF_T_DICT && f->sub) {
      g_autofree char *p = g_strdup_printf("%s.<name>.", key);
      md_rows(f->sub, p, out);
    }
  }
}

void sim_conf_schema_markdown(const SimConfField *schema, const char *prefix, GString *out)
{
  g_return_if_fail(schema != NULL && out != NULL);
  g_string_append(out, "| Key | Type | Unit | Default | Range | Description |\n");
  g_string_append(out, "|---|---|---|---|---|---|\n");
  md_rows(schema, prefix ? prefix : "", out);
}
