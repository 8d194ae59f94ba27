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

void sim_csv_number_exact(GString *out, double v)
{
  if (!isfinite(v)) return;
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  static const char *const formats[] = { "%.15g", "%.16g", "%.17g" };
  for (size_t i = 0; i < G_N_ELEMENTS(formats); i++) {
    g_ascii_formatd(buf, sizeof buf, formats[i], v);
    if (i + 1 == G_N_ELEMENTS(formats) || g_ascii_strtod(buf, NULL) == v) break;
  }
  g_string_append(out, buf);
  if (!strpbrk(buf, ".eE")) g_string_append(out, ".0"); /* read back as a floating-point number, never an integer */
}
