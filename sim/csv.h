/* sim/csv.h — RFC 4180 fields for the CSV writers. */
#ifndef SIM_CSV_H
#define SIM_CSV_H

#include <glib.h>

/* Appends @s to @out as one CSV field: quoted, with quotes doubled, when it
 *  holds a comma, quote, CR or LF; as is otherwise. */
void sim_csv_field(GString *out, const char *s);

/* Adds a last column to every record of the CSV text @csv (RFC 4180: quoted fields may hold
 *  commas and line breaks): @name to the header, the first record, and @value to every other
 *  record.  Empty lines are left alone.  The command line stamps its version into every CSV
 *  result this way. */
void sim_csv_add_column(GString *csv, const char *name, const char *value);

/* Appends @v with full precision and independent of the locale: the shortest of 15, 16 or 17
 *  significant digits that reads back (g_ascii_strtod) to the same double, written by
 *  g_ascii_formatd, with ".0" added to a whole number ("0.1", "1e-07", "400.0") so that every
 *  reader (pandas, json-glib) takes the column as floating point whatever its values; NaN and
 *  infinities as an empty field.  The same text serves as a JSON number. */
void sim_csv_number_exact(GString *out, double v);

#endif /* SIM_CSV_H */
