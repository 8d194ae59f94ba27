/* sim/conf_schema.h — a binding schema (SimConfField tables, sim/conf.h) as JSON Schema
 * (draft 2020-12) for editors (yaml-language-server in VS Code and Neovim), and as the list of
 * its key paths (shell completion of --set).
 *
 * What it says: maps are objects with additionalProperties false, lists arrays with
 * minItems/maxItems, enums enums; every key has its description, unit and default; unitless
 * numbers carry minimum/maximum; values with a unit are strings matching "<number> <unit>"
 * (sim_unit_kind_pattern), their range checked by the loader only.
 * Left out: checks across keys (sums, placements, known names), which the loader makes.
 * Evidence and history: docs/model/conf.md.
 */
#ifndef SIM_CONF_SCHEMA_H
#define SIM_CONF_SCHEMA_H

#include <json-glib/json-glib.h>
#include "sim/conf.h"

G_BEGIN_DECLS

/* Flags of sim_conf_schema_json_members(). */
typedef enum {
  /* Leave out "required" in maps below the top (not in list or dict elements, which an
   *  including file replaces whole): the schema of a file that overlays an included one. */
  SIM_CONF_JSON_OVERLAY = 1 << 0,
  /* Leave out "required" at the top: the caller states it (e.g. with if/then). */
  SIM_CONF_JSON_NO_TOP_REQUIRED = 1 << 1,
} SimConfJsonFlags;

/*
 * sim_conf_schema_json_members:
 * Adds to the object that @b is building the members "type", "properties",
 * "additionalProperties" and "required" of the JSON Schema of a map bound with @schema.
 * @nodes (NULL-terminated by a NULL path; may be NULL) gives the schemas of NODE fields.
 * @flags: SimConfJsonFlags.
 */
void sim_conf_schema_json_members(JsonBuilder *b, const SimConfField *schema, const SimConfNodeSchema *nodes, unsigned flags);

/*
 * sim_conf_schema_keys:
 * Appends to @out one line per key path of @schema that --set can address, nested maps as
 * "a.b", list elements as "a[0].b", dict entries as "a.NAME.b", NODE fields through @nodes;
 * @prefix (may be NULL) before each.
 */
void sim_conf_schema_keys(const SimConfField *schema, const SimConfNodeSchema *nodes, const char *prefix, GString *out);

/* Writes the document built in @b as JSON Schema text: pretty-printed, two-space indent,
 *  a final newline (stable, for committed files). */
void sim_conf_schema_json_write(JsonBuilder *b, GString *out);

G_END_DECLS

#endif /* SIM_CONF_SCHEMA_H */
