/* sim/csv.h — RFC 4180 fields for the CSV writers. */
#ifndef SIM_CSV_H
#define SIM_CSV_H

#include <glib.h>

/** Appends @s to @out as one CSV field: quoted, with quotes doubled, when it
 *  holds a comma, quote, CR or LF; as is otherwise. */
void sim_csv_field(GString *out, const char *s);

#endif /* SIM_CSV_H */
