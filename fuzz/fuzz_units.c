/* fuzz/fuzz_units.c — libFuzzer target: the unit parser (sim/units.c).
 *
 * Input: one byte choosing the kind (modulo SIM_UNIT_N_KINDS), then the value text.  The text
 * goes through sim_units_parse(), sim_units_parse_int64() and sim_units_parse_double(); a
 * value that parses is formatted with sim_units_format() and must parse back to within the
 * 6 significant digits that function promises (relative 1e-5), or the harness aborts.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "fuzz/fuzz_common.h"
#include "sim/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc G_GNUC_UNUSED, char ***argv G_GNUC_UNUSED)
{
  fuzz_quiet();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size < 1) return 0;
  SimUnitKind kind = (SimUnitKind)(data[0] % SIM_UNIT_N_KINDS);
  g_autofree char *text = g_strndup((const char *)data + 1, size - 1);
  double v = 0, d = 0;
  int64_t i = 0;
  g_autoptr(GError) e1 = NULL, e2 = NULL, e3 = NULL;
  (void)sim_units_parse_int64(text, kind, &i, &e2);
  (void)sim_units_parse_double(text, &d, &e3);
  if (!sim_units_parse(text, kind, &v, &e1)) return 0;
  if (!isfinite(v)) {
    fprintf(stderr, "fuzz_units: '%s' parsed to a non-finite %g\n", text, v);
    abort();
  }
  g_autofree char *back = sim_units_format(v, kind);
  double w = 0;
  g_autoptr(GError) e4 = NULL;
  if (!sim_units_parse(back, kind, &w, &e4) || fabs(w - v) > 1e-5 * fabs(v)) {
    fprintf(stderr, "fuzz_units: '%s' (%s) = %.17g formats as '%s', which reads back as %.17g (%s)\n", text,
            sim_unit_kind_name(kind), v, back, w, e4 ? e4->message : "no error");
    abort();
  }
  return 0;
}
