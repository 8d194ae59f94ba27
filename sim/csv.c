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

void sim_csv_add_column(GString *csv, const char *name, const char *value)
{
  g_autoptr(GString) out = g_string_sized_new(csv->len + 64);
  gboolean quoted = FALSE, header = TRUE, empty = TRUE;
  for (gsize i = 0; i < csv->len; i++) {
    char ch = csv->str[i];
    if (ch == '"') quoted = !quoted; /* a doubled quote toggles twice */
    if (!quoted && ch == '\n') {
      gsize end = out->len > 0 && out->str[out->len - 1] == '\r' ? out->len - 1 : out->len;
      if (!empty) {
        g_autoptr(GString) field = g_string_new(",");
        sim_csv_field(field, header ? name : value);
        g_string_insert_len(out, (gssize)end, field->str, (gssize)field->len);
        header = FALSE;
      }
      empty = TRUE;
    } else if (ch != '\r') {
      empty = FALSE;
    }
    g_string_append_c(out, ch);
  }
  if (!empty) { /* a last record without its line break */
    g_string_append_c(out, ',');
    sim_csv_field(out, header ? name : value);
  }
  g_string_assign(csv, out->str);
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
