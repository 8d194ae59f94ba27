/* sim/csv.c — see csv.h. */
#include "sim/csv.h"

#include <math.h>
#include <string.h>

void sim_csv_field(GString *out, const char *s)
{
  if (!strpbrk(s, ",\"\r\n")) {
    g_string_append(out, s);
    return;
  }
  g_string_append_c(out, '"');
  for (; *s; s++) {
    if (*s == '"') g_string_append_c(out, '"');
    g_string_append_c(out, *s);
  }
  g_string_append_c(out, '"');
}

void sim_csv_number(GString *out, double v)
{
  if (isfinite(v)) g_string_append_printf(out, "%.6g", v);
}
