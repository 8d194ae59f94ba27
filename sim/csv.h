/* sim/csv.h — RFC 4180 fields for the CSV writers. */
#ifndef SIM_CSV_H
#define SIM_CSV_H

#include <glib.h>

/* Appends @s to @out as one CSV field: quoted, with quotes doubled, when it
 *  holds a comma, quote, CR or LF; as is otherwise. */
void sim_csv_field(GString *out, const char *s);

/* Appends @v as a CSV number (%.6g); NaN and infinities, which no CSV reader agrees on,
 *  as an empty field (no value), as the JSON writers emit null. */
void sim_csv_number(GString *out, double v);

/* Adds a last column to every record of the CSV text @csv (RFC 4180: quoted fields may hold
 *  commas and line breaks): @name to the header, the first record, and @value to every other
 *  record.  Empty lines are left alone.  The command line stamps its version into every CSV
 *  result this way. */
void sim_csv_add_column(GString *csv, const char *name, const char *value);

#endif /* SIM_CSV_H */
