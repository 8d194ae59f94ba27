/* sim/units.h — strict parsing of physical quantities written with units.
 *
 * What it does: turns "100 Gb/s", "12.5 GB/s", "3200 MT/s", "80 us", "2 MiB", "2.5 GHz", "80 %"
 * into a double in the base unit of its kind: bit rate bit/s, byte rate byte/s, transfer rate
 * transfers/s, time ns, size bytes, frequency Hz, percent fraction, none a plain number.
 * Prefixes k/K M G T P (SI) and Ki Mi Gi Ti Pi (binary, where allowed); case sensitive (b bit,
 * B byte); a bare number where a unit is required is an error. Numbers by g_ascii_strtod; the
 * value is the number times the unit's exact scale (one rounding). Stateless and thread safe.
 * Left out: compound units (cycles/byte, W), milli-prefixes on rates, and arithmetic.
 * Evidence and history: docs/model/units.md.
 */
#ifndef SIM_UNITS_H
#define SIM_UNITS_H

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

/* 2^53: the largest magnitude up to which a double holds every integer exactly (IEEE 754
 * binary64, 53-bit significand). */
#define SIM_MAX_EXACT_INT 9007199254740992.0

/* The kind of quantity a value expresses; decides which units are accepted. */
typedef enum {
  SIM_UNIT_NONE = 0,      /*< dimensionless number, no unit allowed */
  SIM_UNIT_BIT_RATE,      /*< bit/s   ("100 Gb/s") */
  SIM_UNIT_BYTE_RATE,     /*< byte/s  ("12.5 GB/s") */
  SIM_UNIT_TRANSFER_RATE, /*< transfers/s ("3200 MT/s") */
  SIM_UNIT_TIME,          /*< nanoseconds ("80 us") */
  SIM_UNIT_SIZE,          /*< bytes ("2 MiB") */
  SIM_UNIT_FREQUENCY,     /*< Hz ("2.5 GHz") */
  SIM_UNIT_PERCENT,       /*< fraction: "80 %" -> 0.80 */
  SIM_UNIT_N_KINDS
} SimUnitKind;

/* Error domain of this module (codes: SimUnitsError). */
#define SIM_UNITS_ERROR (sim_units_error_quark())
GQuark sim_units_error_quark(void);

typedef enum {
  SIM_UNITS_ERROR_SYNTAX,     /*< not a number, trailing garbage, NaN/inf, empty */
  SIM_UNITS_ERROR_NO_UNIT,    /*< bare number where a unit is required */
  SIM_UNITS_ERROR_WRONG_KIND, /*< a valid unit of another kind ("GB/s" for a bit rate) */
  SIM_UNITS_ERROR_UNKNOWN,    /*< a unit of no kind, or a unit where none is allowed */
  SIM_UNITS_ERROR_NOT_INTEGER /*< sim_units_parse_int64: value is not a whole base unit */
} SimUnitsError;

/*
 * sim_units_parse:
 * @text: the value as written, e.g. "100 Gb/s", "80%", "1.5e3 MB/s" (a space between number
 *        and unit is optional; leading/trailing blanks are ignored)
 * @kind: the kind of quantity expected
 * @out: (out): the value in the kind's base unit (bit/s, byte/s, transfers/s, ns, bytes, Hz,
 *       fraction, or the plain number for SIM_UNIT_NONE); untouched on error
 * @error: SIM_UNITS_ERROR with a one-line message without position (callers add it)
 *
 * Parses a quantity strictly. Errors: syntax, bare number for a dimensioned kind, unit of
 * the wrong kind (message names the expected kind and an example), unknown unit (with a
 * "did you mean" for case slips such as "gb/s"), unit given to a dimensionless value.
 * Returns: TRUE on success.
 */
gboolean sim_units_parse(const char *text, SimUnitKind kind, double *out, GError **error);

/*
 * sim_units_parse_int64:
 * Like sim_units_parse() but the result must be a whole number of base units (e.g. bytes,
 * ns) within ±2^53; "1.5 KiB" = 1536 is fine, "1.5 B" or "0.5 ns" is SIM_UNITS_ERROR_NOT_INTEGER.
 * For SIM_UNIT_NONE the text must be a decimal integer ("12", "-3"; not "1e3", not "4.0")
 * and the full int64 range is accepted.
 */
gboolean sim_units_parse_int64(const char *text, SimUnitKind kind, int64_t *out, GError **error);

/*
 * sim_units_parse_double:
 * Strict plain number: g_ascii_strtod over the whole text (blanks around it allowed),
 * no hex, no NaN/inf, not empty. Returns TRUE and sets @out on success.
 */
gboolean sim_units_parse_double(const char *text, double *out, GError **error);

/* An ECMA-262 regular expression (JSON Schema "pattern") matching the texts
 *  sim_units_parse() reads for @kind: a number, optional blanks, a unit of the kind (every
 *  spelling with every prefix it takes); for SIM_UNIT_NONE a bare number.  The loader's
 *  other checks (NaN, range) are not in it.  Returns: (transfer full). */
char *sim_unit_kind_pattern(SimUnitKind kind);

/* Human name of a kind, e.g. "bit rate"; "number" for SIM_UNIT_NONE. */
const char *sim_unit_kind_name(SimUnitKind kind);

/* Base unit of a kind as used in docs, e.g. "bit/s", "ns", "bytes", "fraction"; "" for NONE. */
const char *sim_unit_kind_base(SimUnitKind kind);

/* An example value of a kind for messages and docs, e.g. "100 Gb/s"; "4" for NONE. */
const char *sim_unit_kind_example(SimUnitKind kind);

/*
 * sim_units_format:
 * Writes @value (base unit of @kind) in a readable unit of that kind with up to 6 significant
 * digits, e.g. 1e11 bit/s -> "100 Gb/s", 1048576 bytes -> "1 MiB", 0.8 -> "80 %". The result
 * parses back with sim_units_parse() (to 6 significant digits). Free with g_free().
 */
char *sim_units_format(double value, SimUnitKind kind);

/*
 * sim_units_gbps_scale:
 * The unit a bit rate of @gbps Gb/s reads in with one decimal: Gb/s from 1 Gb/s up (and for 0,
 * negative zero and non-finite values), else the largest of Mb/s, kb/s and b/s in which it is
 * at least 1 (b/s below 1 b/s), so that a rate that "%.1f Gb/s" would print as "0.0 Gb/s" still
 * shows its value. *@unit gets the unit's name ("Gb/s", "Mb/s", "kb/s", "b/s"); returns the
 * factor from Gb/s to it (1, 1e3, 1e6 or 1e9). The sign is ignored in the choice.
 */
double sim_units_gbps_scale(double gbps, const char **unit);

/*
 * sim_units_gbps_text:
 * "%.1f UNIT" of @gbps in the unit sim_units_gbps_scale() picks: "371.5 Gb/s", "0.5 Mb/s" for
 * 5e-4 Gb/s. Free with g_free().
 */
char *sim_units_gbps_text(double gbps);

/*
 * sim_units_gib_scale:
 * As sim_units_gbps_scale() for a size of @gib GiB: GiB from 1 GiB up (and for 0, negative zero
 * and non-finite values), else the largest of MiB, KiB and bytes in which it is at least 1.
 * *@unit gets "GiB", "MiB", "KiB" or "bytes"; returns the factor from GiB to it (1, 1024,
 * 1024^2 or 1024^3).
 */
double sim_units_gib_scale(double gib, const char **unit);

/*
 * sim_units_bytes_text:
 * "%.1f UNIT" of @bytes in the unit sim_units_gib_scale() picks: "512.0 GiB", "1.0 MiB" for
 * 1048576 bytes (not "0.0 GiB"). Free with g_free().
 */
char *sim_units_bytes_text(double bytes);

G_END_DECLS

#endif /* SIM_UNITS_H */
