/* sim/units.c — strict parsing of quantities with units (see units.h for the unit table).
 *
 * A value is "<number>[blanks]<unit>". The number is read with g_ascii_strtod; the unit is
 * split as <prefix><base> and looked up in a per-kind table of base spellings and the prefix
 * family each base takes (SI: k K M G T P as powers of 1000; binary: Ki Mi Gi Ti Pi as powers
 * of 1024). value = number * scale(prefix) * scale(base). A unit that is valid for another
 * kind gives a "wrong kind" error; a unit matching a spelling of the wanted kind only when
 * case is ignored gives a "did you mean" hint. All tables are const; no state.
 */
#include "sim/units.h"

#include <math.h>
#include <string.h>

G_DEFINE_QUARK(sim - units - error - quark, sim_units_error)

enum { PFX_NONE = 0, PFX_SI = 1, PFX_BIN = 2 };

typedef struct {
  const char *name;
  double scale;
  int family;
} Prefix;

static const Prefix prefixes[] = {
  { "", 1.0, PFX_NONE },
  { "k", 1e3, PFX_SI },
  { "K", 1e3, PFX_SI },
  { "M", 1e6, PFX_SI },
  { "G", 1e9, PFX_SI },
  { "T", 1e12, PFX_SI },
  { "P", 1e15, PFX_SI },
  { "Ki", 1024.0, PFX_BIN },
  { "Mi", 1048576.0, PFX_BIN },
  { "Gi", 1073741824.0, PFX_BIN },
  { "Ti", 1099511627776.0, PFX_BIN },
  { "Pi", 1125899906842624.0, PFX_BIN },
};

typedef struct {
  SimUnitKind kind;
  const char *base;
  double scale; /* of the base spelling in the kind's base unit */
  int families; /* allowed prefix families (PFX_NONE always allowed) */
} BaseUnit;

static const BaseUnit bases[] = {
  { SIM_UNIT_BIT_RATE, "b/s", 1.0, PFX_SI | PFX_BIN },
  { SIM_UNIT_BIT_RATE, "bit/s", 1.0, PFX_SI | PFX_BIN },
  { SIM_UNIT_BIT_RATE, "bps", 1.0, PFX_SI | PFX_BIN },
  { SIM_UNIT_BYTE_RATE, "B/s", 1.0, PFX_SI | PFX_BIN },
  { SIM_UNIT_TRANSFER_RATE, "T/s", 1.0, PFX_SI },
  { SIM_UNIT_TIME, "ps", 1e-3, 0 },
  { SIM_UNIT_TIME, "ns", 1.0, 0 },
  { SIM_UNIT_TIME, "us", 1e3, 0 },
  { SIM_UNIT_TIME, "\xc2\xb5s", 1e3, 0 }, /* µs (U+00B5) */
  { SIM_UNIT_TIME, "\xce\xbcs", 1e3, 0 }, /* μs (U+03BC) */
  { SIM_UNIT_TIME, "ms", 1e6, 0 },
  { SIM_UNIT_TIME, "s", 1e9, 0 },
  { SIM_UNIT_TIME, "min", 60e9, 0 },
  { SIM_UNIT_TIME, "h", 3600e9, 0 },
  { SIM_UNIT_SIZE, "B", 1.0, PFX_SI | PFX_BIN },
  { SIM_UNIT_SIZE, "byte", 1.0, 0 },
  { SIM_UNIT_SIZE, "bytes", 1.0, 0 },
  /* Bit quantities are not a kind of their own; recognised so that "4 Kb" where a size is
   * wanted says "bits" instead of "unknown unit". */
  { SIM_UNIT_N_KINDS, "b", 1.0, PFX_SI | PFX_BIN },
  { SIM_UNIT_N_KINDS, "bit", 1.0, PFX_SI | PFX_BIN },
  { SIM_UNIT_N_KINDS, "bits", 1.0, PFX_SI | PFX_BIN },
  { SIM_UNIT_FREQUENCY, "Hz", 1.0, PFX_SI },
  { SIM_UNIT_PERCENT, "%", 0.01, 0 },
};

static const struct {
  const char *name, *base, *example;
} kind_info[SIM_UNIT_N_KINDS + 1] = {
  [SIM_UNIT_NONE] = { "number", "", "4" },
  [SIM_UNIT_BIT_RATE] = { "bit rate", "bit/s", "100 Gb/s" },
  [SIM_UNIT_BYTE_RATE] = { "byte rate", "byte/s", "12.5 GB/s" },
  [SIM_UNIT_TRANSFER_RATE] = { "transfer rate", "transfers/s", "3200 MT/s" },
  [SIM_UNIT_TIME] = { "time", "ns", "80 us" },
  [SIM_UNIT_SIZE] = { "size", "bytes", "2 MiB" },
  [SIM_UNIT_FREQUENCY] = { "frequency", "Hz", "2.5 GHz" },
  [SIM_UNIT_PERCENT] = { "percentage", "fraction", "80 %" },
  [SIM_UNIT_N_KINDS] = { "bit count", "bits", "8 Kb" },
};

const char *sim_unit_kind_name(SimUnitKind kind)
{
  g_return_val_if_fail(kind <= SIM_UNIT_N_KINDS, "?");
  return kind_info[kind].name;
}

const char *sim_unit_kind_base(SimUnitKind kind)
{
  g_return_val_if_fail(kind <= SIM_UNIT_N_KINDS, "?");
  return kind_info[kind].base;
}

const char *sim_unit_kind_example(SimUnitKind kind)
{
  g_return_val_if_fail(kind <= SIM_UNIT_N_KINDS, "?");
  return kind_info[kind].example;
}

/* A value within this relative distance of an integer is that integer (decimal rounding of
 * unit prefixes, e.g. 1.1 k). Assumed. */
#define WHOLE_RTOL 1e-9

/* A decimal number as g_ascii_strtod reads it after the checks above (no hex, NaN, infinity). */
#define NUMBER_RE "[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?"

char *sim_unit_kind_pattern(SimUnitKind kind)
{
  g_return_val_if_fail(kind < SIM_UNIT_N_KINDS, NULL);
  GString *re = g_string_new("^[ \\t]*" NUMBER_RE "[ \\t]*");
  if (kind == SIM_UNIT_NONE) {
    g_string_append(re, "$");
    return g_string_free(re, FALSE);
  }
  g_string_append(re, "(");
  gboolean first = TRUE;
  for (size_t b = 0; b < G_N_ELEMENTS(bases); b++) {
    if (bases[b].kind != kind) continue;
    for (size_t p = 0; p < G_N_ELEMENTS(prefixes); p++) {
      if (prefixes[p].family != PFX_NONE && !(prefixes[p].family & bases[b].families)) continue;
      g_string_append_printf(re, "%s%s%s", first ? "" : "|", prefixes[p].name, bases[b].base);
      first = FALSE;
    }
  }
  g_string_append(re, ")[ \\t]*$");
  return g_string_free(re, FALSE);
}

/* Looks @unit up among all spellings; @cmp is strcmp or g_ascii_strcasecmp. When @want is
 * not SIM_UNIT_N_KINDS+1 only bases of that kind are considered. Returns the base or NULL,
 * and the total scale and prefix in *scale / *pfx. */
static const BaseUnit *lookup_unit(const char *unit, gboolean any_kind, SimUnitKind want, gboolean ignore_case, double *scale,
                                   const Prefix **pfx)
{
  size_t ulen = strlen(unit);
  for (size_t b = 0; b < G_N_ELEMENTS(bases); b++) {
    if (!any_kind && bases[b].kind != want) continue;
    size_t blen = strlen(bases[b].base);
    if (blen > ulen) continue;
    const char *tail = unit + ulen - blen;
    if ((ignore_case ? g_ascii_strcasecmp(tail, bases[b].base) : strcmp(tail, bases[b].base)) != 0) continue;
    for (size_t p = 0; p < G_N_ELEMENTS(prefixes); p++) {
      if (prefixes[p].family != PFX_NONE && !(prefixes[p].family & bases[b].families)) continue;
      size_t plen = strlen(prefixes[p].name);
      if (plen != ulen - blen) continue;
      if ((ignore_case ? g_ascii_strncasecmp(unit, prefixes[p].name, plen) : strncmp(unit, prefixes[p].name, plen)) != 0)
        continue;
      if (scale) *scale = prefixes[p].scale * bases[b].scale;
      if (pfx) *pfx = &prefixes[p];
      return &bases[b];
    }
  }
  return NULL;
}

gboolean sim_units_parse_double(const char *text, double *out, GError **error)
{
  g_return_val_if_fail(text != NULL && out != NULL, FALSE);
  const char *p = text;
  while (*p == ' ' || *p == '\t') p++;
  if (*p == '\0') {
    g_set_error(error, SIM_UNITS_ERROR, SIM_UNITS_ERROR_SYNTAX, "empty value, expected a number");
    return FALSE;
  }
  const char *q = (*p == '+' || *p == '-') ? p + 1 : p;
  if (!g_ascii_isdigit(*q) && !(*q == '.' && g_ascii_isdigit(q[1]))) {
    g_set_error(error, SIM_UNITS_ERROR, SIM_UNITS_ERROR_SYNTAX, "'%s' is not a number", text);
    return FALSE;
  }
  if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X')) {
    g_set_error(error, SIM_UNITS_ERROR, SIM_UNITS_ERROR_SYNTAX, "'%s': hexadecimal numbers are not accepted", text);
    return FALSE;
  }
  char *end = NULL;
  double v = g_ascii_strtod(p, &end);
  const char *e = end;
  while (*e == ' ' || *e == '\t') e++;
  if (end == p || *e != '\0') {
    g_set_error(error, SIM_UNITS_ERROR, SIM_UNITS_ERROR_SYNTAX, "'%s' is not a number (trailing '%s')", text, end);
    return FALSE;
  }
  if (!isfinite(v)) {
    g_set_error(error, SIM_UNITS_ERROR, SIM_UNITS_ERROR_SYNTAX, "'%s' is out of range", text);
    return FALSE;
  }
  *out = v;
  return TRUE;
}

gboolean sim_units_parse(const char *text, SimUnitKind kind, double *out, GError **error)
{
  g_return_val_if_fail(text != NULL && out != NULL, FALSE);
  g_return_val_if_fail(kind < SIM_UNIT_N_KINDS, FALSE);

  const char *p = text;
  while (*p == ' ' || *p == '\t') p++;
  const char *q = (*p == '+' || *p == '-') ? p + 1 : p;
  if (*p == '\0' || (!g_ascii_isdigit(*q) && !(*q == '.' && g_ascii_isdigit(q[1])))) {
    g_set_error(error, SIM_UNITS_ERROR, SIM_UNITS_ERROR_SYNTAX, "'%s' is not a %s%s%s%s", text, sim_unit_kind_name(kind),
                kind == SIM_UNIT_NONE ? "" : " (e.g. '", kind == SIM_UNIT_NONE ? "" : sim_unit_kind_example(kind),
                kind == SIM_UNIT_NONE ? "" : "')");
    return FALSE;
  }
  if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X')) {
    g_set_error(error, SIM_UNITS_ERROR, SIM_UNITS_ERROR_SYNTAX, "'%s': hexadecimal numbers are not accepted", text);
    return FALSE;
  }
  char *end = NULL;
  double num = g_ascii_strtod(p, &end);
  if (end == p || !isfinite(num)) {
    g_set_error(error, SIM_UNITS_ERROR, SIM_UNITS_ERROR_SYNTAX, "'%s' is not a valid number", text);
    return FALSE;
  }
  const char *u = end;
  while (*u == ' ' || *u == '\t') u++;
  g_autofree char *unit = g_strdup(u);
  g_strchomp(unit);

  if (unit[0] == '\0') {
    if (kind == SIM_UNIT_NONE) {
      *out = num;
      return TRUE;
    }
    g_set_error(error, SIM_UNITS_ERROR, SIM_UNITS_ERROR_NO_UNIT, "'%s' needs a unit, e.g. '%s'", text,
                sim_unit_kind_example(kind));
    return FALSE;
  }
  if (kind == SIM_UNIT_NONE) {
    const BaseUnit *any = lookup_unit(unit, TRUE, 0, FALSE, NULL, NULL);
    if (any)
      g_set_error(error, SIM_UNITS_ERROR, SIM_UNITS_ERROR_UNKNOWN,
                  "'%s': expected a plain number, without a unit (got a %s in '%s')", text, sim_unit_kind_name(any->kind), unit);
    else
      g_set_error(error, SIM_UNITS_ERROR, SIM_UNITS_ERROR_SYNTAX, "'%s' is not a number (trailing '%s')", text, unit);
    return FALSE;
  }

  double scale = 1.0;
  if (lookup_unit(unit, FALSE, kind, FALSE, &scale, NULL)) {
    double v = num * scale;
    if (!isfinite(v)) {
      g_set_error(error, SIM_UNITS_ERROR, SIM_UNITS_ERROR_SYNTAX, "'%s' is out of range", text);
      return FALSE;
    }
    *out = v;
    return TRUE;
  }
  const BaseUnit *other = lookup_unit(unit, TRUE, 0, FALSE, NULL, NULL);
  if (other) {
    const char *hint = "";
    if ((kind == SIM_UNIT_BIT_RATE && other->kind == SIM_UNIT_BYTE_RATE) ||
        (kind == SIM_UNIT_BYTE_RATE && other->kind == SIM_UNIT_BIT_RATE) ||
        (kind == SIM_UNIT_SIZE && other->kind == SIM_UNIT_N_KINDS))
      hint = " (b = bits, B = bytes)";
    g_set_error(error, SIM_UNITS_ERROR, SIM_UNITS_ERROR_WRONG_KIND, "'%s': '%s' is a %s unit, expected a %s such as '%s'%s", text,
                unit, sim_unit_kind_name(other->kind), sim_unit_kind_name(kind), sim_unit_kind_example(kind), hint);
    return FALSE;
  }
  const Prefix *pfx = NULL;
  const BaseUnit *near = lookup_unit(unit, FALSE, kind, TRUE, NULL, &pfx);
  if (near)
    g_set_error(error, SIM_UNITS_ERROR, SIM_UNITS_ERROR_UNKNOWN, "'%s': unknown unit '%s' for a %s (did you mean '%s%s'?)", text,
                unit, sim_unit_kind_name(kind), pfx->name, near->base);
  else
    g_set_error(error, SIM_UNITS_ERROR, SIM_UNITS_ERROR_UNKNOWN, "'%s': unknown unit '%s' for a %s, e.g. '%s'", text, unit,
                sim_unit_kind_name(kind), sim_unit_kind_example(kind));
  return FALSE;
}

gboolean sim_units_parse_int64(const char *text, SimUnitKind kind, int64_t *out, GError **error)
{
  g_return_val_if_fail(text != NULL && out != NULL, FALSE);
  if (kind == SIM_UNIT_NONE) {
    g_autofree char *t = g_strstrip(g_strdup(text));
    const char *d = (t[0] == '+' || t[0] == '-') ? t + 1 : t;
    gboolean digits = d[0] != '\0';
    for (const char *c = d; *c; c++) digits = digits && g_ascii_isdigit(*c);
    if (!digits) {
      double dummy;
      if (sim_units_parse(text, kind, &dummy, NULL))
        g_set_error(error, SIM_UNITS_ERROR, SIM_UNITS_ERROR_NOT_INTEGER, "'%s' is not an integer", text);
      else
        sim_units_parse(text, kind, &dummy, error);
      return FALSE;
    }
    gint64 v = 0;
    GError *e = NULL;
    if (!g_ascii_string_to_signed(t, 10, G_MININT64, G_MAXINT64, &v, &e)) {
      g_set_error(error, SIM_UNITS_ERROR, SIM_UNITS_ERROR_SYNTAX, "'%s' is out of range", text);
      g_error_free(e);
      return FALSE;
    }
    *out = v;
    return TRUE;
  }
  double v;
  if (!sim_units_parse(text, kind, &v, error)) return FALSE;
  double r = nearbyint(v);
  if (fabs(r) > SIM_MAX_EXACT_INT) {
    g_set_error(error, SIM_UNITS_ERROR, SIM_UNITS_ERROR_SYNTAX,
                "'%s' is out of range: whole %s values stop at 2^53 (exact in a double)", text, sim_unit_kind_base(kind));
    return FALSE;
  }
  if (fabs(v - r) > WHOLE_RTOL * fmax(1.0, fabs(v))) {
    g_set_error(error, SIM_UNITS_ERROR, SIM_UNITS_ERROR_NOT_INTEGER, "'%s' is not a whole number of %s", text,
                sim_unit_kind_base(kind));
    return FALSE;
  }
  *out = (int64_t)r;
  return TRUE;
}

char *sim_units_format(double value, SimUnitKind kind)
{
  g_return_val_if_fail(kind < SIM_UNIT_N_KINDS, NULL);
  double a = fabs(value);
  static const char *const si[] = { "", "k", "M", "G", "T", "P" };
  static const char *const bin[] = { "", "Ki", "Mi", "Gi", "Ti", "Pi" };
  char num[G_ASCII_DTOSTR_BUF_SIZE];
  switch (kind) {
    case SIM_UNIT_NONE: return g_strdup(g_ascii_formatd(num, sizeof num, "%.6g", value));
    case SIM_UNIT_PERCENT: return g_strdup_printf("%s %%", g_ascii_formatd(num, sizeof num, "%.6g", value * 100.0));
    case SIM_UNIT_TIME: {
      static const struct {
        const char *u;
        double s;
      } t[] = { { "h", 3600e9 }, { "min", 60e9 }, { "s", 1e9 }, { "ms", 1e6 }, { "us", 1e3 }, { "ns", 1.0 } };
      for (size_t i = 0; i < G_N_ELEMENTS(t); i++) {
        /* Prefer whole minutes/hours only when exact; otherwise the largest unit >= 1. */
        if (t[i].s >= 60e9 && (a < t[i].s || fmod(a, t[i].s) != 0.0)) continue;
        if (a >= t[i].s || i + 1 == G_N_ELEMENTS(t))
          return g_strdup_printf("%s %s", g_ascii_formatd(num, sizeof num, "%.6g", value / t[i].s), t[i].u);
      }
      return NULL; /* not reached */
    }
    case SIM_UNIT_SIZE:
    case SIM_UNIT_BYTE_RATE:
    case SIM_UNIT_BIT_RATE: {
      const char *base = kind == SIM_UNIT_SIZE ? "B" : kind == SIM_UNIT_BYTE_RATE ? "B/s" : "b/s";
      /* Binary prefix when the value is an exact multiple of a power of 1024 >= 1 Ki. */
      if (kind == SIM_UNIT_SIZE || kind == SIM_UNIT_BYTE_RATE) {
        for (int i = 5; i >= 1; i--) {
          double s = ldexp(1.0, 10 * i);
          if (a >= s && fmod(a, s / 1024.0) == 0.0 && fmod(a, 1000.0) != 0.0)
            return g_strdup_printf("%s %s%s", g_ascii_formatd(num, sizeof num, "%.6g", value / s), bin[i], base);
        }
      }
      int i = 0;
      while (i < 5 && a >= 1000.0 * pow(1000.0, i)) i++;
      return g_strdup_printf("%s %s%s", g_ascii_formatd(num, sizeof num, "%.6g", value / pow(1000.0, i)), si[i], base);
    }
    case SIM_UNIT_TRANSFER_RATE:
    case SIM_UNIT_FREQUENCY: {
      const char *base = kind == SIM_UNIT_FREQUENCY ? "Hz" : "T/s";
      int i = 0;
      while (i < 4 && a >= 1000.0 * pow(1000.0, i)) i++;
      return g_strdup_printf("%s %s%s", g_ascii_formatd(num, sizeof num, "%.6g", value / pow(1000.0, i)), si[i], base);
    }
    default: return NULL;
  }
}

typedef struct {
  const char *u;
  double f;
} ScaleUnit;

/* The first unit of @t (largest first) in which |@v| * f is at least 1, the last one below
 * that; the first for 0, negative zero and non-finite values. */
static double scale_pick(double v, const ScaleUnit *t, size_t n, const char **unit)
{
  double a = fabs(v);
  size_t i = 0;
  if (a > 0 && isfinite(a))
    while (i + 1 < n && a * t[i].f < 1.0) i++;
  *unit = t[i].u;
  return t[i].f;
}

double sim_units_gbps_scale(double gbps, const char **unit)
{
  static const ScaleUnit t[] = { { "Gb/s", 1.0 }, { "Mb/s", 1e3 }, { "kb/s", 1e6 }, { "b/s", 1e9 } };
  return scale_pick(gbps, t, G_N_ELEMENTS(t), unit);
}

double sim_units_gib_scale(double gib, const char **unit)
{
  static const ScaleUnit t[] = { { "GiB", 1.0 }, { "MiB", 1024.0 }, { "KiB", 1048576.0 }, { "bytes", 1073741824.0 } };
  return scale_pick(gib, t, G_N_ELEMENTS(t), unit);
}

char *sim_units_bytes_text(double bytes)
{
  const char *u;
  double gib = bytes / 1073741824.0;
  double f = sim_units_gib_scale(gib, &u);
  return g_strdup_printf("%.1f %s", gib * f, u);
}

char *sim_units_gbps_text(double gbps)
{
  const char *u;
  double f = sim_units_gbps_scale(gbps, &u);
  return g_strdup_printf("%.1f %s", gbps * f, u);
}
