/* sim/conf.c — YAML loading into a positioned node tree, errors, overrides, overlays, includes.
 *
 * The loader drives libyaml's event parser and builds SimConfNode trees: a scalar keeps its
 * text and whether it was plain (unquoted); maps keep their pairs in file order (the key is
 * stored on the value node together with the key's own position); sequences keep their
 * elements. Every node holds a reference-counted file name and 1-based line/column
 * (libyaml marks are 0-based, columns counted in characters), and a parent pointer from
 * which key paths ("stations[1].servers") are rebuilt on demand. Duplicate keys, non-scalar
 * keys, undefined aliases and several documents are errors; aliases are expanded by deep
 * copy, with a cap on the total node count against exponential expansion.
 * Binding to C structs lives in conf_bind.c. No global state.
 */
#include "sim/conf.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sim/conf_private.h"

#include <string.h>
#include <yaml.h>

G_DEFINE_QUARK(sim - conf - error - quark, sim_conf_error)

/* Largest scenario or platform file read (a scenario is a few KiB). */
#define SIM_CONF_MAX_FILE_BYTES (16 << 20)

/* Parser limits against hostile or runaway input: nesting depth, nodes per document, include
 * depth. Assumed: far above any scenario. */
#define MAX_DEPTH         200
#define MAX_NODES         1000000
#define MAX_INCLUDE_DEPTH 8

struct SimConfDoc {
  SimConfNode *root;
  char *file;
  guint n_sets; /* overrides applied so far (SimConfNode.set_seq) */
};

/* ------------------------------------------------------------------------------------------ */
/* Nodes                                                                                      */

static SimConfNode *node_new(SimConfNodeKind kind, GRefString *file, int line, int col)
{
  SimConfNode *n = g_new0(SimConfNode, 1);
  n->kind = kind;
  n->file = g_ref_string_acquire(file);
  n->line = line;
  n->col = col;
  if (kind != SIM_CONF_NODE_SCALAR) n->children = g_ptr_array_new();
  return n;
}

void sim_conf_node_free_(SimConfNode *n)
{
  if (!n) return;
  if (n->children) {
    for (guint i = 0; i < n->children->len; i++) sim_conf_node_free_(g_ptr_array_index(n->children, i));
    g_ptr_array_free(n->children, TRUE);
  }
  g_ref_string_release(n->file);
  if (n->from) g_ref_string_release(n->from);
  g_free(n->text);
  g_free(n->key);
  g_free(n);
}

/* Deep copy; the copy has no parent and no key. *count is incremented per node. */
static SimConfNode *node_copy(const SimConfNode *src, gsize *count)
{
  SimConfNode *n = node_new(src->kind, src->file, src->line, src->col);
  n->from = src->from ? g_ref_string_acquire(src->from) : NULL;
  if (count) (*count)++;
  n->text = g_strdup(src->text);
  n->plain = src->plain;
  n->path_map = src->path_map;
  n->set_seq = src->set_seq;
  if (src->children) {
    for (guint i = 0; i < src->children->len; i++) {
      const SimConfNode *c = g_ptr_array_index(src->children, i);
      SimConfNode *cc = node_copy(c, count);
      cc->key = g_strdup(c->key);
      cc->key_line = c->key_line;
      cc->key_col = c->key_col;
      cc->parent = n;
      g_ptr_array_add(n->children, cc);
    }
  }
  return n;
}

/* Marks a subtree as coming from the @seq-th override, --set or another option (file "--set", no position). */
static void node_mark(SimConfNode *n, GRefString *file, guint seq)
{
  n->set_seq = seq;
  g_ref_string_release(n->file);
  n->file = g_ref_string_acquire(file);
  if (n->from) g_ref_string_release(n->from);
  n->from = NULL;
  n->line = n->col = n->key_line = n->key_col = 0;
  if (n->children)
    for (guint i = 0; i < n->children->len; i++) node_mark(g_ptr_array_index(n->children, i), file, seq);
}

static gssize map_find(const SimConfNode *map, const char *key)
{
  if (!map || map->kind != SIM_CONF_NODE_MAP) return -1;
  for (guint i = 0; i < map->children->len; i++) {
    const SimConfNode *c = g_ptr_array_index(map->children, i);
    if (strcmp(c->key, key) == 0) return i;
  }
  return -1;
}

/* Puts @value under @key of @map, replacing an existing value in place (freed) or appending. */
static void map_set(SimConfNode *map, const char *key, int key_line, int key_col, SimConfNode *value)
{
  gssize i = map_find(map, key);
  g_free(value->key);
  value->key = g_strdup(key);
  value->key_line = key_line;
  value->key_col = key_col;
  value->parent = map;
  if (i >= 0) {
    /* The key position stays that of @value's own file (never mix files and lines). */
    SimConfNode *old = g_ptr_array_index(map->children, i);
    sim_conf_node_free_(old);
    map->children->pdata[i] = value;
  } else {
    g_ptr_array_add(map->children, value);
  }
}

SimConfNodeKind sim_conf_node_kind(const SimConfNode *node)
{
  g_return_val_if_fail(node != NULL, SIM_CONF_NODE_SCALAR);
  return node->kind;
}

const char *sim_conf_node_text(const SimConfNode *node)
{
  g_return_val_if_fail(node != NULL, NULL);
  return node->kind == SIM_CONF_NODE_SCALAR ? node->text : NULL;
}

gboolean sim_conf_node_is_null(const SimConfNode *node)
{
  g_return_val_if_fail(node != NULL, FALSE);
  if (node->kind != SIM_CONF_NODE_SCALAR || !node->plain) return FALSE;
  const char *t = node->text;
  return t[0] == '\0' || strcmp(t, "~") == 0 || strcmp(t, "null") == 0 || strcmp(t, "Null") == 0 || strcmp(t, "NULL") == 0;
}

const char *sim_conf_node_file(const SimConfNode *node)
{
  g_return_val_if_fail(node != NULL, NULL);
  return node->file;
}

int sim_conf_node_line(const SimConfNode *node)
{
  g_return_val_if_fail(node != NULL, 0);
  return node->line;
}

int sim_conf_node_col(const SimConfNode *node)
{
  g_return_val_if_fail(node != NULL, 0);
  return node->col;
}

SimConfNode *sim_conf_node_parent(const SimConfNode *node)
{
  g_return_val_if_fail(node != NULL, NULL);
  return node->parent;
}

char *sim_conf_escape_(const char *text)
{
  GString *s = g_string_new(NULL);
  const char *p = text ? text : "";
  const char *end = p + strlen(p);
  for (int n = 0; *p; n++) {
    if (n == SIM_CONF_QUOTE_MAX) {
      g_string_append(s, "...");
      break;
    }
    gunichar c = g_utf8_get_char_validated(p, end - p);
    if (c == (gunichar)-1 || c == (gunichar)-2) { /* not UTF-8: one byte, escaped */
      g_string_append_printf(s, "\\x%02x", (unsigned char)*p);
      p++;
      continue;
    }
    if (c == '\n')
      g_string_append(s, "\\n");
    else if (c == '\t')
      g_string_append(s, "\\t");
    else if (c < 0x80 && !g_ascii_isprint((int)c))
      g_string_append_printf(s, "\\x%02x", (unsigned)c);
    else if (c >= 0x80 && !g_unichar_isprint(c))
      g_string_append_printf(s, "\\u{%04x}", (unsigned)c);
    else
      g_string_append_len(s, p, g_utf8_next_char(p) - p);
    p = g_utf8_next_char(p);
  }
  return g_string_free(s, FALSE);
}

char *sim_conf_quote_(const SimConfNode *node)
{
  if (node->from) return g_strdup("the value");
  g_autofree char *t = sim_conf_escape_(node->text);
  return g_strdup_printf("'%s'", t);
}

/* The key path of n; escaped and truncated for a message (sim_conf_escape_), or raw for a
 * listing that must read back (sim_conf_overrides). */
static void path_append(GString *s, const SimConfNode *n, gboolean escape)
{
  if (!n->parent) return;
  path_append(s, n->parent, escape);
  if (n->parent->kind == SIM_CONF_NODE_MAP) {
    if (s->len) g_string_append_c(s, '.');
    g_autofree char *k = escape ? sim_conf_escape_(n->key) : g_strdup(n->key);
    g_string_append(s, k);
  } else {
    guint idx = 0;
    g_ptr_array_find(n->parent->children, n, &idx);
    g_string_append_printf(s, "[%u]", idx);
  }
}

char *sim_conf_node_path(const SimConfNode *node)
{
  g_return_val_if_fail(node != NULL, NULL);
  GString *s = g_string_new(NULL);
  path_append(s, node, TRUE);
  return g_string_free(s, FALSE);
}

guint sim_conf_node_size(const SimConfNode *node)
{
  g_return_val_if_fail(node != NULL, 0);
  return node->children ? node->children->len : 0;
}

const char *sim_conf_map_key(const SimConfNode *map, guint i)
{
  g_return_val_if_fail(map != NULL, NULL);
  if (map->kind != SIM_CONF_NODE_MAP || i >= map->children->len) return NULL;
  return ((SimConfNode *)g_ptr_array_index(map->children, i))->key;
}

SimConfNode *sim_conf_node_child(const SimConfNode *node, guint i)
{
  g_return_val_if_fail(node != NULL, NULL);
  if (!node->children || i >= node->children->len) return NULL;
  return g_ptr_array_index(node->children, i);
}

SimConfNode *sim_conf_node_get(const SimConfNode *map, const char *key)
{
  g_return_val_if_fail(key != NULL, NULL);
  gssize i = map_find(map, key);
  return i < 0 ? NULL : g_ptr_array_index(map->children, i);
}

/* ------------------------------------------------------------------------------------------ */
/* Errors                                                                                     */

void sim_conf_error_at_(GError **error, SimConfErrorCode code, const char *file, int line, int col, const char *path,
                        const char *msg)
{
  GString *s = g_string_new(file ? file : "<unknown>");
  if (line > 0) g_string_append_printf(s, ":%d:%d", line, col);
  g_string_append(s, ": ");
  if (path && *path) g_string_append_printf(s, "%s: ", path);
  g_string_append(s, msg);
  g_set_error_literal(error, SIM_CONF_ERROR, code, s->str);
  g_string_free(s, TRUE);
}

/* Appends " (included from FROM)" to the message of *@error (set) when @from is given. */
static void append_from(GError **error, const char *from)
{
  if (!from || !error || !*error) return;
  char *m = g_strdup_printf("%s (included from %s)", (*error)->message, from);
  g_free((*error)->message);
  (*error)->message = m;
}

void sim_conf_set_error(GError **error, const SimConfNode *node, SimConfErrorCode code, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  g_autofree char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  if (!node) {
    g_set_error_literal(error, SIM_CONF_ERROR, code, msg);
    return;
  }
  g_autofree char *path = sim_conf_node_path(node);
  sim_conf_error_at_(error, code, node->file, node->line, node->col, path, msg);
  append_from(error, node->from);
}

void sim_conf_key_error_(GError **error, const SimConfNode *value, SimConfErrorCode code, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  g_autofree char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  g_autofree char *path = sim_conf_node_path(value);
  int line = value->key_line ? value->key_line : value->line;
  int col = value->key_line ? value->key_col : value->col;
  sim_conf_error_at_(error, code, value->file, line, col, path, msg);
  append_from(error, value->from);
}

/* ------------------------------------------------------------------------------------------ */
/* Suggestions                                                                                */

/* Longest key compared for a suggestion (its table lives on the stack). Assumed: far above any
 * key name. */
#define OSA_MAX_LEN 64
/* Edits a suggestion may be away: 1 for words of up to 4 letters, 2 up to 8, else 3. Assumed:
 * a typo or two, not another word. */
#define SUGGEST_SHORT_LEN 4
#define SUGGEST_MID_LEN   8
#define SUGGEST_MAX_EDITS 3

/* Optimal string alignment distance, ASCII case-insensitive. */
static guint osa_distance(const char *a, const char *b)
{
  size_t la = strlen(a), lb = strlen(b);
  if (la > OSA_MAX_LEN || lb > OSA_MAX_LEN) return G_MAXUINT;
  guint d[OSA_MAX_LEN + 1][OSA_MAX_LEN + 1];
  for (size_t i = 0; i <= la; i++) d[i][0] = i;
  for (size_t j = 0; j <= lb; j++) d[0][j] = j;
  for (size_t i = 1; i <= la; i++) {
    for (size_t j = 1; j <= lb; j++) {
      guint cost = g_ascii_tolower(a[i - 1]) == g_ascii_tolower(b[j - 1]) ? 0 : 1;
      guint v = MIN(MIN(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && g_ascii_tolower(a[i - 1]) == g_ascii_tolower(b[j - 2]) &&
          g_ascii_tolower(a[i - 2]) == g_ascii_tolower(b[j - 1]))
        v = MIN(v, d[i - 2][j - 2] + 1);
      d[i][j] = v;
    }
  }
  return d[la][lb];
}

const char *sim_conf_suggest(const char *word, const char *const *candidates)
{
  g_return_val_if_fail(word != NULL, NULL);
  if (!candidates) return NULL;
  size_t len = strlen(word);
  guint limit = len <= SUGGEST_SHORT_LEN ? 1 : len <= SUGGEST_MID_LEN ? 2 : SUGGEST_MAX_EDITS;
  const char *best = NULL;
  guint best_d = G_MAXUINT;
  for (const char *const *c = candidates; *c; c++) {
    guint d = osa_distance(word, *c);
    if (d < best_d) {
      best_d = d;
      best = *c;
    }
  }
  return best_d <= limit ? best : NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* Loading                                                                                    */

typedef struct {
  yaml_parser_t parser;
  GRefString *file;
  GHashTable *anchors; /* anchor -> SimConfNode* (owned copies) */
  gsize n_nodes;
  int depth;
  const char *text; /* the input (UTF-8), for positions of reader errors */
  size_t len;
} Loader;

/* 1-based line and column (in characters, as libyaml counts them) of byte @offset of the
 * input: libyaml gives reader errors (invalid UTF-8, control characters) as a byte offset
 * only. Line breaks are LF, CR LF and lone CR. */
static void text_position(const char *text, size_t len, size_t offset, int *line, int *col)
{
  if (offset > len) offset = len;
  int ln = 1, c = 1;
  for (size_t i = 0; i < offset; i++) {
    unsigned char b = (unsigned char)text[i];
    if (b == '\n' || (b == '\r' && (i + 1 >= len || text[i + 1] != '\n'))) {
      ln++;
      c = 1;
    } else if (b != '\r' && (b & 0xC0) != 0x80) {
      c++; /* count characters: every byte but UTF-8 continuation bytes */
    }
  }
  *line = ln;
  *col = c;
}

static void syntax_error(Loader *L, GError **error)
{
  const yaml_parser_t *p = &L->parser;
  const yaml_mark_t *m = p->problem ? &p->problem_mark : &p->mark;
  g_autofree char *msg = NULL;
  if (p->context)
    msg = g_strdup_printf("YAML syntax error: %s %s started at line %zu", p->problem ? p->problem : "error", p->context,
                          p->context_mark.line + 1);
  else
    msg = g_strdup_printf("YAML syntax error: %s", p->problem ? p->problem : "error");
  if (p->error == YAML_READER_ERROR) {
    int line, col;
    text_position(L->text, L->len, p->problem_offset, &line, &col);
    sim_conf_error_at_(error, SIM_CONF_ERROR_SYNTAX, L->file, line, col, NULL, msg);
  } else
    sim_conf_error_at_(error, SIM_CONF_ERROR_SYNTAX, L->file, (int)m->line + 1, (int)m->column + 1, NULL, msg);
}

static gboolean next_event(Loader *L, yaml_event_t *ev, GError **error)
{
  if (!yaml_parser_parse(&L->parser, ev)) {
    syntax_error(L, error);
    return FALSE;
  }
  return TRUE;
}

static SimConfNode *parse_node(Loader *L, yaml_event_t *ev, SimConfNode *parent, const SimConfNode *key, GError **error);

static gboolean register_anchor(Loader *L, const yaml_char_t *anchor, const SimConfNode *n)
{
  if (!anchor) return TRUE;
  g_hash_table_replace(L->anchors, g_strdup((const char *)anchor), node_copy(n, &L->n_nodes));
  return TRUE;
}

static gboolean too_big(Loader *L, const yaml_event_t *ev, GError **error)
{
  if (L->n_nodes <= MAX_NODES) return FALSE;
  sim_conf_error_at_(error, SIM_CONF_ERROR_SYNTAX, L->file, (int)ev->start_mark.line + 1, (int)ev->start_mark.column + 1, NULL,
                     "document too large (alias expansion?)");
  return TRUE;
}

/* An explicit YAML tag (`!!binary`, `!!str`, `!foo`, `!!python/object:...`) is an error at @line:@col:
 * a scenario's values are typed by the schema, and a tag would be silently ignored. @parent and
 * @key give the key path. Returns FALSE with @error set when @tag is given. */
static gboolean refuse_tag(Loader *L, const yaml_char_t *tag, const SimConfNode *parent, const SimConfNode *key, int line,
                           int col, GError **error)
{
  if (!tag) return TRUE;
  const char *t = (const char *)tag;
  g_autofree char *shown = g_str_has_prefix(t, "tag:yaml.org,2002:") ? g_strconcat("!!", t + 18, NULL) : g_strdup(t);
  g_autofree char *esc = sim_conf_escape_(shown);
  g_autofree char *ppath = parent ? sim_conf_node_path(parent) : g_strdup("");
  g_autofree char *kesc = key ? sim_conf_escape_(key->text) : NULL;
  g_autofree char *path = !kesc ? g_strdup(ppath) : *ppath ? g_strdup_printf("%s.%s", ppath, kesc) : g_strdup(kesc);
  if (parent && !key && parent->kind == SIM_CONF_NODE_SEQ) {
    g_free(path);
    path = g_strdup_printf("%s[%u]", ppath, parent->children->len);
  }
  g_autofree char *msg =
      g_strdup_printf("YAML tag '%s' is not allowed: scenario values are typed by their key (remove the tag)", esc);
  sim_conf_error_at_(error, SIM_CONF_ERROR_TYPE, L->file, line, col, path, msg);
  return FALSE;
}

/* Attaches @n to @parent (if any) under @key (a scalar key node, or NULL in a sequence). */
static void attach(SimConfNode *n, SimConfNode *parent, const SimConfNode *key)
{
  if (!parent) return;
  n->parent = parent;
  if (key) {
    n->key = g_strdup(key->text);
    n->key_line = key->line;
    n->key_col = key->col;
  }
  g_ptr_array_add(parent->children, n);
}

/* Builds the node whose first event is @ev (consumed). When @parent is given the node is
 * attached to it (under @key for a map) before its contents are read, so that error paths
 * are complete; on failure it stays attached and is freed with the parent. Returns the node,
 * or NULL with @error set. */
static SimConfNode *parse_node(Loader *L, yaml_event_t *ev, SimConfNode *parent, const SimConfNode *key, GError **error)
{
  int line = (int)ev->start_mark.line + 1, col = (int)ev->start_mark.column + 1;
  SimConfNode *n = NULL;
  L->n_nodes++;
  if (too_big(L, ev, error)) {
    yaml_event_delete(ev);
    return NULL;
  }
  const yaml_char_t *tag = ev->type == YAML_SCALAR_EVENT           ? ev->data.scalar.tag
                           : ev->type == YAML_MAPPING_START_EVENT  ? ev->data.mapping_start.tag
                           : ev->type == YAML_SEQUENCE_START_EVENT ? ev->data.sequence_start.tag
                                                                   : NULL;
  if (!refuse_tag(L, tag, parent, key, line, col, error)) {
    yaml_event_delete(ev);
    return NULL;
  }
  switch (ev->type) {
    case YAML_SCALAR_EVENT:
      n = node_new(SIM_CONF_NODE_SCALAR, L->file, line, col);
      n->text = g_strndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
      n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !ev->data.scalar.tag;
      register_anchor(L, ev->data.scalar.anchor, n);
      yaml_event_delete(ev);
      attach(n, parent, key);
      return n;

    case YAML_ALIAS_EVENT: {
      const SimConfNode *target = g_hash_table_lookup(L->anchors, ev->data.alias.anchor);
      if (!target) {
        g_autofree char *anchor = sim_conf_escape_((const char *)ev->data.alias.anchor);
        g_autofree char *msg = g_strdup_printf("undefined alias '*%s'", anchor);
        sim_conf_error_at_(error, SIM_CONF_ERROR_SYNTAX, L->file, line, col, NULL, msg);
        yaml_event_delete(ev);
        return NULL;
      }
      n = node_copy(target, &L->n_nodes);
      gboolean big = too_big(L, ev, error);
      yaml_event_delete(ev);
      if (big) {
        sim_conf_node_free_(n);
        return NULL;
      }
      attach(n, parent, key);
      return n;
    }

    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
      gboolean is_map = ev->type == YAML_MAPPING_START_EVENT;
      g_autofree char *anchor = g_strdup((const char *)(is_map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor));
      yaml_event_delete(ev);
      if (L->depth >= MAX_DEPTH) {
        sim_conf_error_at_(error, SIM_CONF_ERROR_SYNTAX, L->file, line, col, NULL, "nesting too deep");
        return NULL;
      }
      n = node_new(is_map ? SIM_CONF_NODE_MAP : SIM_CONF_NODE_SEQ, L->file, line, col);
      attach(n, parent, key);
      L->depth++;
      gboolean ok = FALSE;
      /* key -> index + 1 of this map's children: the duplicate check stays linear in the keys */
      g_autoptr(GHashTable) seen = is_map ? g_hash_table_new(g_str_hash, g_str_equal) : NULL;
      for (;;) {
        yaml_event_t e;
        if (!next_event(L, &e, error)) break;
        if (e.type == YAML_MAPPING_END_EVENT || e.type == YAML_SEQUENCE_END_EVENT) {
          yaml_event_delete(&e);
          ok = TRUE;
          break;
        }
        if (!is_map) {
          if (!parse_node(L, &e, n, NULL, error)) break;
          continue;
        }
        SimConfNode *k = parse_node(L, &e, NULL, NULL, error);
        if (!k) break;
        if (k->kind != SIM_CONF_NODE_SCALAR) {
          g_autofree char *path = sim_conf_node_path(n);
          sim_conf_error_at_(error, SIM_CONF_ERROR_TYPE, L->file, k->line, k->col, path, "map keys must be scalars");
          sim_conf_node_free_(k);
          break;
        }
        gssize prev = (gssize)GPOINTER_TO_SIZE(g_hash_table_lookup(seen, k->text)) - 1;
        if (prev >= 0) {
          const SimConfNode *first = g_ptr_array_index(n->children, prev);
          g_autofree char *ppath = sim_conf_node_path(n);
          g_autofree char *kesc = sim_conf_escape_(k->text);
          g_autofree char *path = *ppath ? g_strdup_printf("%s.%s", ppath, kesc) : g_strdup(kesc);
          g_autofree char *msg = g_strdup_printf("duplicate key '%s' (first at line %d)", kesc, first->key_line);
          sim_conf_error_at_(error, SIM_CONF_ERROR_DUPLICATE, L->file, k->line, k->col, path, msg);
          sim_conf_node_free_(k);
          break;
        }
        SimConfNode *v = next_event(L, &e, error) ? parse_node(L, &e, n, k, error) : NULL;
        gboolean vok = v != NULL;
        if (vok) /* the value's own copy of the key lives as long as the table */
          g_hash_table_insert(seen, v->key, GSIZE_TO_POINTER((gsize)n->children->len));
        sim_conf_node_free_(k);
        if (!vok) break;
      }
      L->depth--;
      if (!ok) {
        if (!parent) sim_conf_node_free_(n);
        return NULL;
      }
      register_anchor(L, (const yaml_char_t *)anchor, n);
      return n;
    }

    default:
      sim_conf_error_at_(error, SIM_CONF_ERROR_SYNTAX, L->file, line, col, NULL, "unexpected YAML event");
      yaml_event_delete(ev);
      return NULL;
  }
}

/* What a document's root may be. */
typedef enum {
  ROOT_ANY,     /* an override value: any node */
  ROOT_NULL_OK, /* a document in memory: an empty one is an empty map */
  ROOT_MAP      /* a file: a map (or empty) */
} RootRule;

static SimConfNode *parse_stream(Loader *L, RootRule rule, GError **error)
{
  yaml_event_t ev;
  SimConfNode *root = NULL;
  gboolean ok = FALSE;
  int docs = 0;
  for (;;) {
    if (!next_event(L, &ev, error)) break;
    yaml_event_type_t t = ev.type;
    if (t == YAML_STREAM_END_EVENT) {
      yaml_event_delete(&ev);
      ok = TRUE;
      break;
    }
    if (t == YAML_DOCUMENT_START_EVENT) {
      if (++docs > 1) {
        sim_conf_error_at_(error, SIM_CONF_ERROR_SYNTAX, L->file, (int)ev.start_mark.line + 1, (int)ev.start_mark.column + 1,
                           NULL, "only one YAML document is allowed per file");
        yaml_event_delete(&ev);
        break;
      }
      yaml_event_delete(&ev);
      continue;
    }
    if (t == YAML_STREAM_START_EVENT || t == YAML_DOCUMENT_END_EVENT) {
      yaml_event_delete(&ev);
      continue;
    }
    root = parse_node(L, &ev, NULL, NULL, error);
    if (!root) break;
  }
  if (!ok) {
    sim_conf_node_free_(root);
    return NULL;
  }
  if (!root || (rule != ROOT_ANY && sim_conf_node_is_null(root))) {
    sim_conf_node_free_(root);
    root = node_new(SIM_CONF_NODE_MAP, L->file, 1, 1);
  }
  if (rule == ROOT_MAP && root->kind != SIM_CONF_NODE_MAP) {
    /* a scenario, platform or sweep file is a map of keys: say so before any key is looked for */
    g_autofree char *msg = g_strdup_printf("expected a mapping at the top level (key: value lines), got %s",
                                           root->kind == SIM_CONF_NODE_SEQ ? "a list" : "a scalar");
    sim_conf_error_at_(error, SIM_CONF_ERROR_TYPE, L->file, root->line, root->col, NULL, msg);
    sim_conf_node_free_(root);
    return NULL;
  }
  return root;
}

static SimConfDoc *load_string(const char *text, const char *name, RootRule rule, GError **error)
{
  if (!name) name = "<string>";
  Loader L = { 0 };
  if (!yaml_parser_initialize(&L.parser)) {
    g_set_error(error, SIM_CONF_ERROR, SIM_CONF_ERROR_IO, "%s: cannot initialise the YAML parser", name);
    return NULL;
  }
  /* A UTF-8 byte order mark is allowed at the start (YAML 1.2 §5.2) and is no character of the
   * first line: skipped, so that columns count from the first key. */
  if (g_str_has_prefix(text, "\xEF\xBB\xBF")) text += 3;
  L.text = text;
  L.len = strlen(text);
  yaml_parser_set_input_string(&L.parser, (const unsigned char *)text, L.len);
  yaml_parser_set_encoding(&L.parser, YAML_UTF8_ENCODING);
  L.file = g_ref_string_new(name);
  L.anchors = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)sim_conf_node_free_);
  SimConfNode *root = parse_stream(&L, rule, error);
  yaml_parser_delete(&L.parser);
  g_hash_table_destroy(L.anchors);
  g_ref_string_release(L.file);
  if (!root) return NULL;
  SimConfDoc *doc = g_new0(SimConfDoc, 1);
  doc->root = root;
  doc->file = g_strdup(name);
  return doc;
}

SimConfDoc *sim_conf_load_string(const char *text, const char *name, GError **error)
{
  g_return_val_if_fail(text != NULL, NULL);
  return load_string(text, name, ROOT_NULL_OK, error);
}

SimConfDoc *sim_conf_load_file(const char *path, GError **error)
{
  g_return_val_if_fail(path != NULL, NULL);
  /* Plain messages ("FILE: cannot open: No such file or directory"), one stat of the open
   * file, and only regular files of sane size: a device such as /dev/zero would be read
   * forever, a directory gives a confusing message. O_NONBLOCK: opening a FIFO must not
   * wait for a writer; it has no effect on regular files. */
  int fd = g_open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0);
  if (fd < 0) {
    int errsv = errno;
    g_set_error(error, SIM_CONF_ERROR, SIM_CONF_ERROR_IO, "%s: cannot open: %s", path, g_strerror(errsv));
    return NULL;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    g_set_error(error, SIM_CONF_ERROR, SIM_CONF_ERROR_IO, "%s: not a regular file", path);
    return NULL;
  }
  if (st.st_size > SIM_CONF_MAX_FILE_BYTES) {
    close(fd);
    g_set_error(error, SIM_CONF_ERROR, SIM_CONF_ERROR_IO, "%s: %lld bytes is too large for a scenario (at most %d MiB)", path,
                (long long)st.st_size, SIM_CONF_MAX_FILE_BYTES >> 20);
    return NULL;
  }
  GString *text = g_string_sized_new((gsize)st.st_size + 1);
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int errsv = errno;
      close(fd);
      g_string_free(text, TRUE);
      g_set_error(error, SIM_CONF_ERROR, SIM_CONF_ERROR_IO, "%s: cannot read: %s", path, g_strerror(errsv));
      return NULL;
    }
    if (n == 0) break;
    g_string_append_len(text, buf, n);
    if (text->len > SIM_CONF_MAX_FILE_BYTES) {
      close(fd);
      g_string_free(text, TRUE);
      g_set_error(error, SIM_CONF_ERROR, SIM_CONF_ERROR_IO, "%s: too large for a scenario (at most %d MiB)", path,
                  SIM_CONF_MAX_FILE_BYTES >> 20);
      return NULL;
    }
  }
  close(fd);
  gsize len = text->len;
  g_autofree char *contents = g_string_free(text, FALSE);
  size_t nul = strlen(contents);
  if (nul != len) {
    int line, col;
    size_t bom = g_str_has_prefix(contents, "\xEF\xBB\xBF") ? 3 : 0;
    text_position(contents + bom, len - bom, nul - bom, &line, &col);
    g_autofree char *msg = g_strdup_printf("a NUL byte at byte offset %zu: not a text file", nul);
    sim_conf_error_at_(error, SIM_CONF_ERROR_SYNTAX, path, line, col, NULL, msg);
    return NULL;
  }
  return load_string(contents, path, ROOT_MAP, error);
}

void sim_conf_doc_free(SimConfDoc *doc)
{
  if (!doc) return;
  sim_conf_node_free_(doc->root);
  g_free(doc->file);
  g_free(doc);
}

SimConfDoc *sim_conf_doc_copy(const SimConfDoc *doc)
{
  g_return_val_if_fail(doc != NULL, NULL);
  SimConfDoc *copy = g_new0(SimConfDoc, 1);
  copy->root = node_copy(doc->root, NULL);
  copy->file = g_strdup(doc->file);
  copy->n_sets = doc->n_sets;
  return copy;
}

/* Appends @text double-quoted, with '"', '\\' and control characters escaped. */
static void flow_quoted(GString *out, const char *text)
{
  g_string_append_c(out, '"');
  for (const char *c = text; *c; c++) {
    if (*c == '"' || *c == '\\')
      g_string_append_printf(out, "\\%c", *c);
    else if ((unsigned char)*c < 0x20 || *c == 0x7f)
      g_string_append_printf(out, "\\x%02x", (unsigned char)*c);
    else
      g_string_append_c(out, *c);
  }
  g_string_append_c(out, '"');
}

/* TRUE when @text reads back as the same plain scalar: no control character (a plain scalar
 * that spanned lines was folded, and would fold again), no blank at either end; and, @nested in
 * a flow collection, not empty, none of the flow indicators ,[]{} nor ':' or '#' (libyaml reads
 * a ':' in a flow context as an indicator), no indicator first (but "-x").  A key made by --set
 * (any text but '.' and '[') or a plain value of a block context (`a: x,y`) may fail it
 * (fuzz/fuzz_set.c); quoting only costs a plain "null"/"true" reading, which such text is not. */
static gboolean flow_plain_ok(const char *text, gboolean nested)
{
  size_t n = strlen(text);
  for (const char *c = text; *c; c++)
    if ((unsigned char)*c < 0x20 || *c == 0x7f || (nested && strchr(",[]{}:#", *c))) return FALSE;
  if (n && (text[0] == ' ' || text[n - 1] == ' ')) return FALSE;
  if (!nested) return TRUE;
  return n && !strchr("?&*!|>'\"%@`", text[0]) && !(text[0] == '-' && (n == 1 || text[1] == ' '));
}

/* @n as flow text; @nested: inside a collection, where plain scalars and keys must also keep
 * clear of the flow indicators.  An empty plain scalar (null) in a collection is written "~". */
static void flow_text(GString *out, const SimConfNode *n, gboolean nested)
{
  if (n->kind == SIM_CONF_NODE_SCALAR) {
    if (n->plain && nested && !n->text[0])
      g_string_append_c(out, '~');
    else if (n->plain && flow_plain_ok(n->text, nested))
      g_string_append(out, n->text);
    else
      flow_quoted(out, n->text);
    return;
  }
  gboolean map = n->kind == SIM_CONF_NODE_MAP;
  g_string_append_c(out, map ? '{' : '[');
  for (guint i = 0; i < n->children->len; i++) {
    const SimConfNode *c = g_ptr_array_index(n->children, i);
    if (i) g_string_append(out, ", ");
    if (map) {
      if (flow_plain_ok(c->key, TRUE))
        g_string_append(out, c->key);
      else
        flow_quoted(out, c->key);
      g_string_append(out, ": ");
    }
    flow_text(out, c, TRUE);
  }
  g_string_append_c(out, map ? '}' : ']');
}

/* Collects the topmost override nodes under @n, in tree order. */
static void collect_overrides(const SimConfNode *n, GPtrArray *out)
{
  if (g_str_has_prefix(n->file, "--") && n->parent && !n->path_map) {
    g_ptr_array_add(out, (gpointer)n);
    return;
  }
  if (n->children)
    for (guint i = 0; i < n->children->len; i++) collect_overrides(g_ptr_array_index(n->children, i), out);
}

/* Orders override nodes by the override that first set them (SimConfNode.set_seq). */
static gint by_set_seq(gconstpointer a, gconstpointer b)
{
  const SimConfNode *x = *(const SimConfNode *const *)a, *y = *(const SimConfNode *const *)b;
  return (x->set_seq > y->set_seq) - (x->set_seq < y->set_seq);
}

char **sim_conf_overrides(const SimConfNode *root)
{
  g_return_val_if_fail(root != NULL, NULL);
  g_autoptr(GPtrArray) nodes = g_ptr_array_new();
  collect_overrides(root, nodes);
  /* in the order applied, not the tree's: a key the file has keeps the file's place in the tree,
   * one it lacks goes last, so the tree's order would move with the file (stable: since GLib 2.32) */
  g_ptr_array_sort(nodes, by_set_seq);
  GPtrArray *out = g_ptr_array_new();
  for (guint i = 0; i < nodes->len; i++) {
    const SimConfNode *n = g_ptr_array_index(nodes, i);
    GString *ps = g_string_new(NULL);
    path_append(ps, n, FALSE); /* raw: the listing applies again as --set */
    g_autofree char *path = g_string_free(ps, FALSE);
    g_autofree char *text = sim_conf_node_flow_text(n);
    g_ptr_array_add(out, g_strdup_printf("%s=%s", path, text));
  }
  g_ptr_array_add(out, NULL);
  return (char **)g_ptr_array_free(out, FALSE);
}

char *sim_conf_node_flow_text(const SimConfNode *node)
{
  g_return_val_if_fail(node != NULL, NULL);
  GString *out = g_string_new(NULL);
  flow_text(out, node, FALSE);
  return g_string_free(out, FALSE);
}

SimConfNode *sim_conf_doc_root(const SimConfDoc *doc)
{
  g_return_val_if_fail(doc != NULL, NULL);
  return doc->root;
}

const char *sim_conf_doc_file(const SimConfDoc *doc)
{
  g_return_val_if_fail(doc != NULL, NULL);
  return doc->file;
}

char *sim_conf_node_resolve_path(const SimConfNode *node, GError **error)
{
  g_return_val_if_fail(node != NULL, NULL);
  if (node->kind != SIM_CONF_NODE_SCALAR || sim_conf_node_is_null(node)) {
    sim_conf_set_error(error, node, SIM_CONF_ERROR_TYPE, "expected a file path");
    return NULL;
  }
  if (g_path_is_absolute(node->text) || node->line == 0) return g_strdup(node->text);
  g_autofree char *dir = g_path_get_dirname(node->file);
  if (strcmp(dir, ".") == 0) return g_strdup(node->text);
  return g_build_filename(dir, node->text, NULL);
}

/* ------------------------------------------------------------------------------------------ */
/* Overrides                                                                                  */

typedef struct {
  char *key;    /* map key, or NULL for an explicit [i] */
  gint64 index; /* for [i], or the numeric value of key when it is all digits, else -1 */
} Step;

static void steps_free(GArray *steps)
{
  for (guint i = 0; i < steps->len; i++) g_free(g_array_index(steps, Step, i).key);
  g_array_free(steps, TRUE);
}

/* Collections nested in @n: 0 for a scalar (fuzz/fuzz_set.c found --set paths deeper than a
 * file may nest, whose listing then did not load again). */
static guint node_depth(const SimConfNode *n)
{
  guint d = 0;
  for (guint i = 0; n->children && i < n->children->len; i++) {
    guint c = node_depth(g_ptr_array_index(n->children, i)); /* once: MAX() evaluates twice */
    if (c > d) d = c;
  }
  return n->kind == SIM_CONF_NODE_SCALAR ? 0 : d + 1;
}

/* A key of a --set path, [@s, @e): printable characters (UTF-8, already validated), no blank
 * at either end, so that the key is listed back (sim_conf_overrides) as it was set. */
static gboolean key_text_ok(const char *s, const char *e)
{
  if (*s == ' ' || e[-1] == ' ') return FALSE;
  for (const char *c = s; c < e; c = g_utf8_next_char(c))
    if (!g_unichar_isprint(g_utf8_get_char(c))) return FALSE;
  return TRUE;
}

static gboolean parse_steps(const char *path, GArray *steps, const char *source, GError **error)
{
  const char *p = path;
  while (*p) {
    const char *s = p;
    while (*p && *p != '.' && *p != '[') p++;
    if (p > s) {
      if (!key_text_ok(s, p)) goto bad;
      Step st = { g_strndup(s, p - s), -1 };
      guint64 v;
      if (g_ascii_string_to_unsigned(st.key, 10, 0, G_MAXINT32, &v, NULL)) st.index = (gint64)v;
      g_array_append_val(steps, st);
    } else if (*p != '[') {
      goto bad;
    }
    while (*p == '[') {
      const char *e = strchr(p, ']');
      if (!e || e == p + 1) goto bad;
      g_autofree char *num = g_strndup(p + 1, e - p - 1);
      guint64 v;
      if (!g_ascii_string_to_unsigned(num, 10, 0, G_MAXINT32, &v, NULL)) goto bad;
      Step st = { NULL, (gint64)v };
      g_array_append_val(steps, st);
      p = e + 1;
    }
    if (*p == '.') {
      p++;
      if (*p == '\0') goto bad;
    } else if (*p != '\0') {
      goto bad;
    }
  }
  if (steps->len == 0) goto bad;
  return TRUE;
bad:
  g_set_error(error, SIM_CONF_ERROR, SIM_CONF_ERROR_OVERRIDE, "%s: '%s': malformed key path", source, path);
  return FALSE;
}

SimConfNode *sim_conf_node_find(const SimConfNode *root, const char *path)
{
  g_return_val_if_fail(root != NULL && path != NULL, NULL);
  SimConfNode *cur = (SimConfNode *)root;
  GArray *steps = g_array_new(FALSE, TRUE, sizeof(Step));
  if (parse_steps(path, steps, "", NULL)) {
    for (guint i = 0; i < steps->len; i++) {
      const Step *st = &g_array_index(steps, Step, i);
      SimConfNode *next = NULL;
      if (cur->kind == SIM_CONF_NODE_SEQ && st->index >= 0 && st->index < (gint64)cur->children->len)
        next = g_ptr_array_index(cur->children, st->index);
      else if (st->key)
        next = sim_conf_node_get(cur, st->key);
      if (!next) break;
      cur = next;
    }
  }
  steps_free(steps);
  return cur;
}

static const char *shape_name(const SimConfNode *n)
{
  return n->kind == SIM_CONF_NODE_MAP ? "a map" : n->kind == SIM_CONF_NODE_SEQ ? "a list" : "a scalar";
}

gboolean sim_conf_apply_override_as(SimConfDoc *doc, const char *assignment, const char *source, GError **error)
{
  g_return_val_if_fail(doc != NULL && assignment != NULL && source != NULL, FALSE);
  /* as in a file (load_string): keys made from the path must read back as YAML (fuzz/fuzz_set.c) */
  const char *bad = NULL;
  if (!g_utf8_validate(assignment, -1, &bad)) {
    g_set_error(error, SIM_CONF_ERROR, SIM_CONF_ERROR_OVERRIDE, "%s: not valid UTF-8 at byte %td", source, bad - assignment);
    return FALSE;
  }
  const char *eq = strchr(assignment, '=');
  if (!eq) {
    g_set_error(error, SIM_CONF_ERROR, SIM_CONF_ERROR_OVERRIDE, "%s: '%s': expected key.path=value", source, assignment);
    return FALSE;
  }
  g_autofree char *path = g_strstrip(g_strndup(assignment, eq - assignment));
  g_autofree char *value = g_strstrip(g_strdup(eq + 1));
  GArray *steps = g_array_new(FALSE, TRUE, sizeof(Step));
  gboolean ok = FALSE;
  GRefString *set_file = g_ref_string_new(source);
  GString *done = g_string_new(NULL); /* path walked so far, canonical form */
  SimConfNode *newval = NULL;

  if (!parse_steps(path, steps, source, error)) goto out;

  /* Parse the value as YAML; an empty value is an empty scalar. */
  if (value[0] == '\0') {
    newval = node_new(SIM_CONF_NODE_SCALAR, set_file, 0, 0);
    newval->text = g_strdup("");
    newval->plain = TRUE;
  } else {
    GError *e = NULL;
    SimConfDoc *vdoc = load_string(value, source, ROOT_ANY, &e);
    if (!vdoc) {
      g_set_error(error, SIM_CONF_ERROR, SIM_CONF_ERROR_OVERRIDE, "%s: %s: bad value '%s': %s", source, path, value, e->message);
      g_error_free(e);
      goto out;
    }
    newval = g_steal_pointer(&vdoc->root);
    sim_conf_doc_free(vdoc);
  }
  guint seq = doc->n_sets + 1;
  node_mark(newval, set_file, seq);
  /* the root, the maps along the path and the value's own nesting: no deeper than a file may be */
  if (steps->len + node_depth(newval) > MAX_DEPTH) {
    g_set_error(error, SIM_CONF_ERROR, SIM_CONF_ERROR_OVERRIDE, "%s: key path and value nested more than %d deep", source,
                MAX_DEPTH);
    goto out;
  }

  SimConfNode *cur = doc->root;
  for (guint i = 0; i < steps->len; i++) {
    const Step *st = &g_array_index(steps, Step, i);
    gboolean last = i + 1 == steps->len;
    if (cur->kind == SIM_CONF_NODE_SEQ && st->index >= 0) {
      g_string_append_printf(done, "[%" G_GINT64_FORMAT "]", st->index);
      if (st->index >= (gint64)cur->children->len) {
        g_set_error(error, SIM_CONF_ERROR, SIM_CONF_ERROR_OVERRIDE, "%s: %s: no such element (the list has %u)", source,
                    done->str, cur->children->len);
        goto out;
      }
      SimConfNode *old = g_ptr_array_index(cur->children, st->index);
      if (last) {
        if (old->set_seq) newval->set_seq = old->set_seq; /* listed where first set */
        newval->parent = cur;
        cur->children->pdata[st->index] = g_steal_pointer(&newval);
        sim_conf_node_free_(old);
        break;
      }
      cur = old;
      continue;
    }
    if (!st->key || cur->kind != SIM_CONF_NODE_MAP) {
      g_autofree char *what =
          st->key ? g_strdup_printf("key '%s'", st->key) : g_strdup_printf("element [%" G_GINT64_FORMAT "]", st->index);
      g_set_error(error, SIM_CONF_ERROR, SIM_CONF_ERROR_OVERRIDE, "%s: %s: is %s, it has no %s", source,
                  done->len ? done->str : "(root)", shape_name(cur), what);
      goto out;
    }
    if (done->len) g_string_append_c(done, '.');
    g_string_append(done, st->key);
    SimConfNode *child = sim_conf_node_get(cur, st->key);
    if (last) {
      if (child && child->set_seq) newval->set_seq = child->set_seq; /* listed where first set */
      map_set(cur, st->key, 0, 0, g_steal_pointer(&newval));
      break;
    }
    if (child && sim_conf_node_is_null(child)) {
      /* "key:" with no value in the file: the override fills it in as a map. */
      child = NULL;
    }
    if (!child) {
      const Step *nx = &g_array_index(steps, Step, i + 1);
      if (!nx->key) {
        g_set_error(error, SIM_CONF_ERROR, SIM_CONF_ERROR_OVERRIDE, "%s: %s: no such list", source, done->str);
        goto out;
      }
      child = node_new(SIM_CONF_NODE_MAP, set_file, 0, 0);
      child->path_map = TRUE;
      child->set_seq = seq;
      map_set(cur, st->key, 0, 0, child);
    }
    cur = child;
  }
  ok = TRUE;
  doc->n_sets = seq;
out:
  sim_conf_node_free_(newval);
  steps_free(steps);
  g_string_free(done, TRUE);
  g_ref_string_release(set_file);
  return ok;
}

gboolean sim_conf_apply_override(SimConfDoc *doc, const char *assignment, GError **error)
{
  return sim_conf_apply_override_as(doc, assignment, "--set", error);
}

gboolean sim_conf_apply_overrides(SimConfDoc *doc, const char *const *assignments, GError **error)
{
  for (const char *const *a = assignments; a && *a; a++)
    if (!sim_conf_apply_override(doc, *a, error)) return FALSE;
  return TRUE;
}

/* ------------------------------------------------------------------------------------------ */
/* Overlay and include                                                                        */

static void overlay_map(SimConfNode *base, const SimConfNode *top)
{
  /* The merged map takes the position of the overriding one (the file the user edits). */
  g_ref_string_release(base->file);
  base->file = g_ref_string_acquire(top->file);
  if (base->from) g_ref_string_release(base->from);
  base->from = top->from ? g_ref_string_acquire(top->from) : NULL;
  base->line = top->line;
  base->col = top->col;
  for (guint i = 0; i < top->children->len; i++) {
    const SimConfNode *tv = g_ptr_array_index(top->children, i);
    SimConfNode *bv = sim_conf_node_get(base, tv->key);
    if (bv && bv->kind == SIM_CONF_NODE_MAP && tv->kind == SIM_CONF_NODE_MAP) {
      bv->key_line = tv->key_line;
      bv->key_col = tv->key_col;
      overlay_map(bv, tv);
      continue;
    }
    SimConfNode *copy = node_copy(tv, NULL);
    map_set(base, tv->key, tv->key_line, tv->key_col, copy);
    copy->key_line = tv->key_line;
    copy->key_col = tv->key_col;
  }
}

gboolean sim_conf_overlay(SimConfDoc *base_doc, SimConfNode *base, const SimConfNode *top, GError **error)
{
  g_return_val_if_fail(base_doc != NULL && base != NULL && top != NULL, FALSE);
  if (base->kind != SIM_CONF_NODE_MAP) {
    sim_conf_set_error(error, base, SIM_CONF_ERROR_TYPE, "expected a map to overlay, got %s", shape_name(base));
    return FALSE;
  }
  if (top->kind != SIM_CONF_NODE_MAP) {
    sim_conf_set_error(error, top, SIM_CONF_ERROR_TYPE, "expected a map to overlay, got %s", shape_name(top));
    return FALSE;
  }
  overlay_map(base, top);
  return TRUE;
}

/* Sets n->from to @from on every node of the subtree that has none yet (nodes of deeper
 * includes already carry their longer chain). */
static void mark_from(SimConfNode *n, GRefString *from)
{
  if (!n->from) n->from = g_ref_string_acquire(from);
  if (n->children)
    for (guint i = 0; i < n->children->len; i++) mark_from(g_ptr_array_index(n->children, i), from);
}

/* Loads @path and, recursively, the file its @key names, overlaid. @site is the node that
 * named @path (NULL for the top file). The nodes of an included file remember where it was
 * included, so that every error in it, here or when binding, ends in
 * " (included from FILE:LINE:COL[, included from ...])". A file that cannot be read is
 * reported at the site that names it. */
/* A relative include @inc whose file @ipath is not beside the including file: the first of
 * DIR/VALUE, DIR/BASENAME that exists for each DIR of @search, or NULL. */
static char *search_include(const SimConfNode *inc, const char *ipath, const char *const *search)
{
  if (!search || g_path_is_absolute(inc->text) || g_file_test(ipath, G_FILE_TEST_EXISTS)) return NULL;
  g_autofree char *base = g_path_get_basename(inc->text);
  for (; *search; search++) {
    const char *names[] = { inc->text, base };
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
      g_autofree char *p = g_build_filename(*search, names[i], NULL);
      if (g_file_test(p, G_FILE_TEST_IS_REGULAR)) {
        g_debug("%s:%d:%d: '%s' is not beside the file; found %s", inc->file, inc->line, inc->col, inc->text, p);
        return g_steal_pointer(&p);
      }
    }
  }
  return NULL;
}

/* TRUE when @name ends in .yaml or .yml. */
static gboolean yaml_name(const char *name)
{
  return g_str_has_suffix(name, ".yaml") || g_str_has_suffix(name, ".yml");
}

/* TRUE when the real path @real lies in directory @dir (resolved the same way) or below it. */
static gboolean under_dir(const char *real, const char *dir)
{
  g_autofree char *rd = realpath(dir, NULL);
  if (!rd) return FALSE;
  size_t n = strlen(rd);
  if (n == 1) return TRUE; /* "/" */
  return strncmp(real, rd, n) == 0 && (real[n] == '/' || real[n] == '\0');
}

/* An include @ipath that @inc (a `platform:` value) names may be read: a .yaml/.yml name, and,
 * when it exists, a real path (links resolved) in the directory of the including file or in the
 * platforms/ directory beside that directory (the layout of scenarios/reference/ and
 * scenarios/platforms/), in a directory of @policy's search path or allow list, or below one. A
 * file that does not exist passes: opening it reports that at the site. */
static gboolean include_allowed(const SimConfNode *inc, const char *ipath, const SimConfIncludePolicy *policy, GError **error)
{
  g_autofree char *q = sim_conf_quote_(inc);
  if (!yaml_name(ipath)) {
    sim_conf_set_error(error, inc, SIM_CONF_ERROR_INCLUDE, "%s is not a YAML file: an include names a .yaml or .yml file", q);
    return FALSE;
  }
  g_autofree char *real = realpath(ipath, NULL);
  if (!real) return TRUE;
  if (!yaml_name(real)) {
    sim_conf_set_error(error, inc, SIM_CONF_ERROR_INCLUDE, "%s is a link to a file that is not .yaml or .yml", q);
    return FALSE;
  }
  g_autofree char *dir = g_path_get_dirname(inc->file);
  g_autofree char *sibling = g_build_filename(dir, "..", "platforms", NULL); /* scenarios/reference -> ../platforms */
  if (under_dir(real, dir) || under_dir(real, sibling)) return TRUE;
  for (int list = 0; list < 2; list++)
    for (const char *const *d = policy ? (list ? policy->allow : policy->search) : NULL; d && *d; d++)
      if (under_dir(real, *d)) return TRUE;
  sim_conf_set_error(error, inc, SIM_CONF_ERROR_INCLUDE,
                     "%s is outside the including file's directory and the platform search path%s%s%s", q,
                     policy && policy->allow_hint ? " (to read it, give " : "",
                     policy && policy->allow_hint ? policy->allow_hint : "", policy && policy->allow_hint ? ")" : "");
  return FALSE;
}

static SimConfDoc *load_include(const char *path, const char *key, GPtrArray *chain, const SimConfNode *site,
                                const SimConfIncludePolicy *policy, GError **error)
{
  g_autofree char *from = NULL; /* where @path was included */
  if (site)
    from = site->from ? g_strdup_printf("%s:%d:%d, included from %s", site->file, site->line, site->col, site->from)
                      : g_strdup_printf("%s:%d:%d", site->file, site->line, site->col);
  GError *e = NULL;
  SimConfDoc *doc = sim_conf_load_file(path, &e);
  if (!doc) {
    if (site && e->code == SIM_CONF_ERROR_IO) {
      sim_conf_set_error(error, site, SIM_CONF_ERROR_IO, "%s", e->message);
      g_clear_error(&e);
    } else {
      append_from(&e, from);
      g_propagate_error(error, e);
    }
    return NULL;
  }
  if (from) {
    GRefString *ref = g_ref_string_new(from);
    mark_from(doc->root, ref);
    g_ref_string_release(ref);
  }
  SimConfNode *inc = sim_conf_node_get(doc->root, key);
  if (!inc) return doc;
  g_autofree char *ipath = sim_conf_node_resolve_path(inc, error);
  if (!ipath) {
    sim_conf_doc_free(doc);
    return NULL;
  }
  char *found = search_include(inc, ipath, policy ? policy->search : NULL);
  if (found) {
    g_free(ipath);
    ipath = found;
  }
  if (!include_allowed(inc, ipath, policy, error)) {
    sim_conf_doc_free(doc);
    return NULL;
  }
  g_autofree char *canon = g_canonicalize_filename(ipath, NULL);
  for (guint i = 0; i < chain->len; i++) {
    if (strcmp(g_ptr_array_index(chain, i), canon) == 0) {
      sim_conf_set_error(error, inc, SIM_CONF_ERROR_INCLUDE, "include cycle: '%s' is already being loaded", ipath);
      sim_conf_doc_free(doc);
      return NULL;
    }
  }
  if (chain->len >= MAX_INCLUDE_DEPTH) {
    sim_conf_set_error(error, inc, SIM_CONF_ERROR_INCLUDE, "includes nested more than %d deep", MAX_INCLUDE_DEPTH);
    sim_conf_doc_free(doc);
    return NULL;
  }
  g_ptr_array_add(chain, g_steal_pointer(&canon));
  SimConfDoc *base = load_include(ipath, key, chain, inc, policy, error);
  g_free(g_ptr_array_steal_index(chain, chain->len - 1));
  if (!base) {
    sim_conf_doc_free(doc);
    return NULL;
  }
  if (!sim_conf_overlay(base, base->root, doc->root, error)) {
    sim_conf_doc_free(base);
    sim_conf_doc_free(doc);
    return NULL;
  }
  g_free(base->file);
  base->file = g_strdup(doc->file);
  sim_conf_doc_free(doc);
  return base;
}

SimConfDoc *sim_conf_load_with_include(const char *path, const char *include_key, GError **error)
{
  static const char *const here[] = { ".", NULL };
  return sim_conf_load_with_include_search(path, include_key, here, error);
}

SimConfDoc *sim_conf_load_with_include_search(const char *path, const char *include_key, const char *const *search,
                                              GError **error)
{
  SimConfIncludePolicy policy = { .search = search };
  return sim_conf_load_with_include_policy(path, include_key, &policy, error);
}

SimConfDoc *sim_conf_load_with_include_policy(const char *path, const char *include_key, const SimConfIncludePolicy *policy,
                                              GError **error)
{
  g_return_val_if_fail(path != NULL && include_key != NULL, NULL);
  GPtrArray *chain = g_ptr_array_new_with_free_func(g_free);
  g_ptr_array_add(chain, g_canonicalize_filename(path, NULL));
  SimConfDoc *doc = load_include(path, include_key, chain, NULL, policy, error);
  g_ptr_array_unref(chain);
  return doc;
}
