/* sim/json.h — small helpers over json-glib for the result writers.
 *
 * JSON has no NaN or infinity: a number that is not finite (an estimate with
 * no data, a limit never reached) is written as null. */
#ifndef SIM_JSON_H
#define SIM_JSON_H

#include <glib.h>
#include <json-glib/json-glib.h>

/* Adds member @key = @v to the object being built; null when @v is not finite. */
void sim_json_number(JsonBuilder *b, const char *key, double v);

/* Adds member @key = @s (null when @s is NULL). */
void sim_json_string(JsonBuilder *b, const char *key, const char *s);

/* Adds member @key = @v (an integer). */
void sim_json_int(JsonBuilder *b, const char *key, gint64 v);

/* Adds member @key = true or false. */
void sim_json_bool(JsonBuilder *b, const char *key, gboolean v);

/* Adds @v to the array being built; null when @v is not finite. */
void sim_json_element(JsonBuilder *b, double v);

/* Adds member @key = [@lo, @hi] (each null when not finite): an interval's ends. */
void sim_json_pair(JsonBuilder *b, const char *key, double lo, double hi);

/* Appends the document built in @b to @out, pretty-printed, with a final newline. */
void sim_json_append(JsonBuilder *b, GString *out);

/* Writes the document built in @b to the file @path, pretty-printed (no final newline).
 *  Returns FALSE with @error set (GFileError, from json-glib) when the file cannot be written. */
gboolean sim_json_write_file(JsonBuilder *b, const char *path, GError **error);

/* Puts member @key = @value (a string) first in the JSON object that @doc holds (a document
 *  as sim_json_append() writes it), keeping every other member, its order and its numbers as
 *  written.  The command line stamps its version into every JSON result this way.  Errors:
 *  @doc is not JSON, or its root is not an object (JSON_PARSER_ERROR / G_IO_ERROR); @doc is
 *  then left as it was. */
gboolean sim_json_prepend_member(GString *doc, const char *key, const char *value, GError **error);

#endif /* SIM_JSON_H */
