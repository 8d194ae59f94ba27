/* sim/conf.h — strict YAML scenario loader, `--set` overrides and table-driven binding.
 *
 * What it does: sim_conf_load_file() parses YAML (libyaml events) into SimConfNode trees whose
 * nodes keep file, 1-based line/column, parent and key, so every error reads
 * `FILE:LINE:COL: key.path: message`; sim_conf_apply_overrides() rewrites the tree (`--set`,
 * errors `--set: key.path: message`); sim_conf_bind() walks a SimConfField schema into a struct
 * at offsets (units by sim/units.h, ranges, enums, unknown keys with "did you mean").
 * Duplicate keys, several documents, syntax errors and explicit tags are errors (SIM_CONF_ERROR);
 * anchors are expanded by copy; a UTF-8 BOM is skipped (YAML 1.2 §5.2). No global state.
 * Left out: merge keys (<<), multi-document streams, error recovery (first error wins).
 * Evidence and history: docs/model/conf.md.
 */
#ifndef SIM_CONF_H
#define SIM_CONF_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sim/units.h"

G_BEGIN_DECLS

/* ------------------------------------------------------------------------------------------ */
/* Errors                                                                                     */

/* Error domain of the loader and binder; every message is one line,
 *  `FILE:LINE:COL: key.path: message` (path omitted at the document root,
 *  LINE:COL omitted for override values). A CLI maps this domain to exit status 2. */
#define SIM_CONF_ERROR (sim_conf_error_quark())
/* The quark of that domain (SIM_CONF_ERROR). */
GQuark sim_conf_error_quark(void);

typedef enum {
  SIM_CONF_ERROR_IO,          /*< file cannot be read */
  SIM_CONF_ERROR_SYNTAX,      /*< YAML syntax error, several documents */
  SIM_CONF_ERROR_DUPLICATE,   /*< duplicate key in a map */
  SIM_CONF_ERROR_UNKNOWN_KEY, /*< key not in the schema */
  SIM_CONF_ERROR_MISSING,     /*< required key absent */
  SIM_CONF_ERROR_TYPE,        /*< map/sequence/scalar of the wrong shape, not a number, bad bool */
  SIM_CONF_ERROR_RANGE,       /*< value outside [min, max] or list length out of bounds */
  SIM_CONF_ERROR_UNIT,        /*< bad, missing or wrong-kind unit */
  SIM_CONF_ERROR_ENUM,        /*< value not among the enum names */
  SIM_CONF_ERROR_OVERRIDE,    /*< malformed --set or a path that cannot be reached */
  SIM_CONF_ERROR_INCLUDE,     /*< include cycle or too deep */
  SIM_CONF_ERROR_SCHEMA       /*< programming error in a schema (bad default text, ...) */
} SimConfErrorCode;

/* ------------------------------------------------------------------------------------------ */
/* Documents and nodes                                                                        */

typedef struct SimConfDoc SimConfDoc;
typedef struct SimConfNode SimConfNode;

typedef enum { SIM_CONF_NODE_SCALAR, SIM_CONF_NODE_MAP, SIM_CONF_NODE_SEQ } SimConfNodeKind;

/*
 * sim_conf_load_file:
 * @path: YAML file; error messages use this path as written.
 * Parses one YAML document. An empty file gives an empty map root; any other root that is not a
 * map is SIM_CONF_ERROR_TYPE "expected a mapping at the top level" at its position.
 * Errors: SIM_CONF_ERROR_IO (not a regular file, too large), _SYNTAX (with the position libyaml
 * reports; a NUL byte with its line, column and byte offset), _DUPLICATE, _TYPE (a tag).
 * Returns: (transfer full): a new document, or NULL with @error set.
 */
SimConfDoc *sim_conf_load_file(const char *path, GError **error);

/*
 * sim_conf_load_string:
 * @text: YAML text (NUL-terminated)
 * @name: file name used in messages (e.g. "<string>" or the origin of the text)
 * Like sim_conf_load_file() for text in memory.
 */
SimConfDoc *sim_conf_load_string(const char *text, const char *name, GError **error);

/* Frees a document and all its nodes (NULL is fine). */
void sim_conf_doc_free(SimConfDoc *doc);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SimConfDoc, sim_conf_doc_free)

/*
 * sim_conf_doc_copy:
 * A deep copy of @doc: every node keeps its file, position and include chain, so the copy
 * reports errors exactly as the original would. For applying different overrides to one
 * loaded scenario (sweeps) without reading its files again. The source is only read, so
 * several threads may copy one document at once.
 * Returns: (transfer full).
 */
SimConfDoc *sim_conf_doc_copy(const SimConfDoc *doc);

/*
 * sim_conf_node_flow_text:
 * @node any node
 * The node as one line of YAML flow text that sim_conf_apply_override() reads back to the
 * same value: a plain scalar as written ("400 Gb/s", "16", "true"), a quoted scalar
 * double-quoted with escapes, a sequence as "[a, b]", a map as "{k: v}".
 * Returns: (transfer full): free with g_free().
 */
char *sim_conf_node_flow_text(const SimConfNode *node);

/*
 * sim_conf_overrides:
 * @root: a document root after its overrides were applied
 * The command-line overrides that shaped the tree: every topmost node whose file is an option
 * ("--set", "--seed", "--duration", "--warmup": a name starting with "--"), as
 * "key.path=value" (sim_conf_node_flow_text) in the order the overrides were applied (a key set
 * twice where it was first set), whatever the file has, for output rows to carry.
 * Returns: (transfer full): a NULL-terminated array (empty when none); free with g_strfreev().
 */
char **sim_conf_overrides(const SimConfNode *root);

/* Root node of a document (never NULL; an empty document has an empty map root). */
SimConfNode *sim_conf_doc_root(const SimConfDoc *doc);

/* File name the document was loaded from (as given to the load call). */
const char *sim_conf_doc_file(const SimConfDoc *doc);

/* Shape of a node. */
SimConfNodeKind sim_conf_node_kind(const SimConfNode *node);

/* Text of a scalar node (never NULL for scalars; "" for an empty value); NULL for map/seq. */
const char *sim_conf_node_text(const SimConfNode *node);

/* TRUE for a plain scalar that YAML reads as null: empty, "~", "null", "Null", "NULL". */
gboolean sim_conf_node_is_null(const SimConfNode *node);

/* File the node was read from ("--set" for override values). */
const char *sim_conf_node_file(const SimConfNode *node);

/* 1-based line of the node's start; 0 for override values. */
int sim_conf_node_line(const SimConfNode *node);

/* 1-based column of the node's start; 0 for override values. */
int sim_conf_node_col(const SimConfNode *node);

/* Parent map/sequence of a node; NULL at the root. */
SimConfNode *sim_conf_node_parent(const SimConfNode *node);

/*
 * sim_conf_node_path:
 * Key path from the root, e.g. "stations[1].servers", "net.link.rate"; "" for the root.
 * Returns: (transfer full): free with g_free().
 */
char *sim_conf_node_path(const SimConfNode *node);

/* Number of pairs of a map or elements of a sequence; 0 for a scalar. */
guint sim_conf_node_size(const SimConfNode *node);

/* Key of the @i-th pair of a map, in file order (NULL if out of range or not a map). */
const char *sim_conf_map_key(const SimConfNode *map, guint i);

/* Value of the @i-th pair of a map (file order) or the @i-th element of a sequence. */
SimConfNode *sim_conf_node_child(const SimConfNode *node, guint i);

/* Value of @key in a map; NULL when absent or @map is not a map. */
SimConfNode *sim_conf_node_get(const SimConfNode *map, const char *key);

/*
 * sim_conf_node_find:
 * @root: a node, usually the document root
 * @path: a key path as sim_conf_apply_override() reads it ("nics[1].pcie.gen", "nics.1.pcie",
 *   "memory.channels_per_socket"); the same parser
 * The node at @path under @root or, where the path leaves the tree, the deepest node on it that
 * exists: a key left to its default points at its map, an index past the end at its list, a
 * malformed or empty path at @root. For placing errors about a key path (never NULL).
 */
SimConfNode *sim_conf_node_find(const SimConfNode *root, const char *path);

/*
 * sim_conf_node_resolve_path:
 * @node: a scalar holding a file path (e.g. the value of `platform:`)
 * Resolves the path relative to the directory of the file the node was read from
 * (absolute paths are kept; override values resolve against the current directory).
 * Returns: (transfer full): the path, or NULL with SIM_CONF_ERROR_TYPE if not a scalar.
 */
char *sim_conf_node_resolve_path(const SimConfNode *node, GError **error);

/*
 * sim_conf_set_error:
 * Sets @error (SIM_CONF_ERROR, @code) to "FILE:LINE:COL: path: <printf message>" for @node,
 * for code that handles a section by hand. @node may be NULL (message kept as is).
 */
void sim_conf_set_error(GError **error, const SimConfNode *node, SimConfErrorCode code, const char *fmt, ...) G_GNUC_PRINTF(4, 5);

/* Typed scalar readers (the same rules as binding). Errors carry the node position. */

/* Reads a scalar as a quantity of @kind (sim_units_parse); error if not a scalar or bad unit. */
gboolean sim_conf_node_double(const SimConfNode *node, SimUnitKind kind, double *out, GError **error);
/* Reads a scalar as a whole quantity of @kind (sim_units_parse_int64). */
gboolean sim_conf_node_int64(const SimConfNode *node, SimUnitKind kind, int64_t *out, GError **error);
/* Reads a scalar as a bool: true/false (also True/TRUE/False/FALSE). */
gboolean sim_conf_node_bool(const SimConfNode *node, bool *out, GError **error);
/* Reads a scalar that must be one of @names (NULL-terminated); @out is its index.
 *  Error SIM_CONF_ERROR_ENUM lists the choices and suggests the nearest one. */
gboolean sim_conf_node_enum(const SimConfNode *node, const char *const *names, int *out, GError **error);
/* Checks that every key of @map is in @allowed (NULL-terminated); unknown keys are
 *  SIM_CONF_ERROR_UNKNOWN_KEY with a suggestion. Also fails if @map is not a map. */
gboolean sim_conf_check_keys(const SimConfNode *map, const char *const *allowed, GError **error);

/*
 * sim_conf_suggest:
 * Nearest of @candidates (NULL-terminated) to @word by edit distance (optimal string
 * alignment, case-insensitive), if close enough to be a slip: distance <= 1 for words up to
 * 4 characters, <= 2 up to 8, <= 3 beyond. Returns: a candidate pointer, or NULL.
 */
const char *sim_conf_suggest(const char *word, const char *const *candidates);

/* ------------------------------------------------------------------------------------------ */
/* Overrides and includes                                                                     */

/*
 * sim_conf_apply_override:
 * @doc: document to modify (before binding)
 * @assignment: "key.path=value"; path segments separated by '.', sequence elements as
 *   `name[i]` or `name.i` (0-based); the value is parsed as YAML (so "4", "100 Gb/s",
 *   "[1, 2]" or "{a: 1}" all work; quote to force a string).
 * Replaces the value at the path, creating missing map keys (and missing or empty
 * intermediate maps), so keys absent from the file can be set. The new nodes are marked with file "--set".
 * Errors (SIM_CONF_ERROR_OVERRIDE, message "--set: path: ..."): no '=', empty path,
 * "no such element" for an index past the end, indexing a map or scalar, descending into a scalar,
 * value that is not valid YAML.
 */
gboolean sim_conf_apply_override(SimConfDoc *doc, const char *assignment, GError **error);
/* As sim_conf_apply_override, with @source ("--duration", ...) in place of "--set" as the
 *  new nodes' file and in the messages: for options that are shorthands of an override. */
gboolean sim_conf_apply_override_as(SimConfDoc *doc, const char *assignment, const char *source, GError **error);

/* Applies each assignment of the NULL-terminated @assignments in order (NULL is fine). */
gboolean sim_conf_apply_overrides(SimConfDoc *doc, const char *const *assignments, GError **error);

/*
 * sim_conf_overlay:
 * @base: a map node of document @base_doc (e.g. the platform root)
 * @top: a map node of any document (e.g. the scenario root)
 * Merges @top over @base: for each key of @top, if both values are maps they are merged
 * recursively (the merged map takes @top's file/line/col, so "missing key" errors point to the
 * file being overlaid), otherwise @top's value (deep-copied, keeping its own file/line/col)
 * replaces @base's. Keys only in @base keep their place and position; keys new to @base come
 * after, in @top's order.
 * @top is not modified. Errors: SIM_CONF_ERROR_TYPE if either is not a map.
 */
gboolean sim_conf_overlay(SimConfDoc *base_doc, SimConfNode *base, const SimConfNode *top, GError **error);

/*
 * sim_conf_load_with_include:
 * @path: scenario file
 * @include_key: top-level key naming a base file, e.g. "platform"
 * Loads @path; if its root map has @include_key (a path relative to @path's directory, or found
 * in the current directory), loads that file the same way (recursively, up to 8 levels, cycles
 * are SIM_CONF_ERROR_INCLUDE; where it may lie: SimConfIncludePolicy, with the current directory
 * as the search path) and
 * returns the base overlaid by the scenario (sim_conf_overlay). The @include_key pair itself
 * stays in the result (declare it in the schema, e.g. as a SIM_CONF_T_STRING). Every node
 * keeps the file it came from, so errors point into the right file.
 */
SimConfDoc *sim_conf_load_with_include(const char *path, const char *include_key, GError **error);

/* As sim_conf_load_with_include(), where a relative include that is not beside the including
 *  file is looked for, in order, as DIR/VALUE then DIR/BASENAME for each DIR of @search
 *  (NULL-terminated; NULL: nowhere else), e.g. the current directory and an installed data
 *  directory.  Not found anywhere: the error names the path beside the including file.
 *  The directories of @search are also where includes may lie (SimConfIncludePolicy). */
SimConfDoc *sim_conf_load_with_include_search(const char *path, const char *include_key, const char *const *search,
                                              GError **error);

/*
 * SimConfIncludePolicy:
 * Where an include may come from. An included file must be named .yaml or .yml (the link
 * target too), be a regular file, and its real path (links resolved) must lie in the directory
 * of the file that includes it or in the platforms/ directory beside that directory
 * (scenarios/reference/x.yaml naming ../platforms/y.yaml), in a directory of @search or @allow,
 * or below one of them;
 * anything else is SIM_CONF_ERROR_INCLUDE at the include's value. Values of included files are
 * never echoed in error messages (only key names, truncated and escaped).
 */
typedef struct {
  const char *const *search; /* NULL-terminated: looked in, in order, for an include not beside its file */
  const char *const *allow;  /* NULL-terminated: further directories includes may come from (not searched) */
  const char *allow_hint;    /* how the user allows another directory, for the message (e.g. "--allow-include DIR") */
} SimConfIncludePolicy;

/* As sim_conf_load_with_include() under @policy (NULL: only beside the including file). */
SimConfDoc *sim_conf_load_with_include_policy(const char *path, const char *include_key, const SimConfIncludePolicy *policy,
                                              GError **error);

/* ------------------------------------------------------------------------------------------ */
/* Table-driven binding                                                                       */

/* Type of a schema field, and of what is stored at its offset. */
typedef enum {
  SIM_CONF_T_INVALID = 0,
  SIM_CONF_T_DOUBLE, /*< double, in the base unit of .unit (sim_units_parse) */
  SIM_CONF_T_INT,    /*< int (plain integer when .unit is NONE, else whole base units) */
  SIM_CONF_T_INT64,  /*< int64_t, e.g. sizes in bytes or times in ns with .unit */
  SIM_CONF_T_BOOL,   /*< bool: true/false */
  SIM_CONF_T_STRING, /*< char *, owned (g_strdup); freed by sim_conf_unbind() */
  SIM_CONF_T_ENUM,   /*< int: index of the value in .enum_names */
  SIM_CONF_T_MAP,    /*< nested struct at .offset, bound with .sub; absent = defaults */
  SIM_CONF_T_LIST,   /*< SimConfList at .offset: sequence of .sub maps (elements of .elem_size
                          bytes) or, when .sub is NULL, of scalars of .elem_type (stored as
                          that C type); .min_items/.max_items bound the count */
  SIM_CONF_T_DICT,   /*< SimConfList at .offset: map with free keys whose values are .sub maps;
                          each element gets its key as a char * at .key_offset of the element */
  SIM_CONF_T_NODE,   /*< const SimConfNode * at .offset (borrowed from the doc) for custom code;
                          NULL when absent */
  SIM_CONF_T_IGNORE  /*< key accepted and not bound (e.g. handled by a kind: dispatch) */
} SimConfType;

/* Storage of LIST and DICT fields: a g_malloc0'd array of @n elements. */
typedef struct {
  void *items;
  size_t n;
} SimConfList;

/* Element @i of a SimConfList as a pointer to @type. */
#define SIM_CONF_LIST_AT(list, type, i) (&((type *)(list).items)[(i)])

/*
 * SimConfField:
 * One entry of a schema. A schema is an array of these ending with SIM_CONF_END.
 * Texts (.def, .min, .max) are written like file values, in the field's unit ("100 Gb/s");
 * a bare number there is taken in the base unit (so .min = "0" works for any kind).
 */
typedef struct SimConfField {
  const char *key; /*< YAML key */
  SimConfType type;
  size_t offset;         /*< offsetof(struct, member) */
  SimUnitKind unit;      /*< for DOUBLE/INT/INT64 (and scalar LIST elements) */
  const char *def;       /*< default as text, NULL = none (field left untouched) */
  const char *min, *max; /*< value bounds as text, NULL = unbounded (also applied
                                        to the elements of a LIST of scalars) */
  bool min_exclusive, max_exclusive;
  bool zero_ok;                   /*< DOUBLE/INT/INT64: 0 is also accepted below .min ("0: none") */
  bool whole;                     /*< DOUBLE: a whole number of base units (read like INT64: "1.5 B"
                                       is an error), stored as a double for model arithmetic */
  size_t min_items, max_items;    /*< LIST/DICT: bounds on the element count, 0 = none */
  bool required;                  /*< absence is SIM_CONF_ERROR_MISSING */
  const char *const *enum_names;  /*< ENUM (and enum list elements): NULL-terminated names */
  const struct SimConfField *sub; /*< MAP: nested schema; LIST/DICT: element schema */
  SimConfType elem_type;          /*< LIST of scalars: element type (DOUBLE, INT, INT64,
                                        BOOL, STRING, ENUM) */
  size_t elem_size;               /*< LIST/DICT of maps: sizeof(element struct) */
  size_t key_offset;              /*< DICT: offsetof(element, char *name) */
  const char *doc;                /*< one line: meaning (unit is printed from .unit) */
} SimConfField;

/* Terminator of a schema array. */
#define SIM_CONF_END \
  {                  \
    .key = NULL      \
  }

/*
 * sim_conf_bind:
 * @node: a map node (usually sim_conf_doc_root())
 * @schema: fields, terminated by SIM_CONF_END
 * @out: the struct the offsets refer to; zero it first (or preset fields without default)
 * Fills @out from @node: keys are visited in file order, unknown keys are errors (with a
 * suggestion), each value is checked for shape, unit, range and enum; then absent fields
 * get their default or, if required, an error at the map's position. On error @out may be
 * partly filled: call sim_conf_unbind() on it in any case.
 * Returns: TRUE on success, FALSE with a SIM_CONF_ERROR.
 */
gboolean sim_conf_bind(const SimConfNode *node, const SimConfField *schema, void *out, GError **error);

/*
 * sim_conf_bind_defaults:
 * Fills every field of @schema that has a default (nested maps too) as binding a map that
 * leaves it out would, without checking required keys: the defaults of a struct made without a
 * file. Errors: SIM_CONF_ERROR_SCHEMA for a bad default text. Free with sim_conf_unbind().
 */
gboolean sim_conf_bind_defaults(const SimConfField *schema, void *out, GError **error);

/*
 * sim_conf_unbind:
 * Frees what sim_conf_bind() allocated in @out (strings, lists, recursively) and zeroes
 * those members. Safe on a zeroed or partly bound struct.
 */
void sim_conf_unbind(const SimConfField *schema, void *out);

/*
 * sim_conf_schema_markdown:
 * Appends a Markdown table documenting @schema to @out: columns Key, Type, Unit, Default,
 * Range, Description. Nested maps are flattened as "a.b", list elements as "a[].b",
 * dict entries as "a.<name>.b". @prefix (may be NULL) is prepended to every key.
 */
void sim_conf_schema_markdown(const SimConfField *schema, const char *prefix, GString *out);

/* The schema of a SIM_CONF_T_NODE field at key path @path (e.g. "reference"), for the
 *  documents that walk a schema with its sections (sim/conf_schema.h: JSON Schema, key lists). */
typedef struct {
  const char *path;
  const SimConfField *schema;
} SimConfNodeSchema;

G_END_DECLS

#endif /* SIM_CONF_H */
