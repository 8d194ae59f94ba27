/* tests/test_units.c — sim/units: every unit kind, exact SI vs binary prefixes, bits vs bytes,
 * bare numbers, bad units and strict number syntax. */
#include <check.h>
#include "tests/support/check_run.h"
#include <math.h>
#include <string.h>

#include "sim/units.h"

/* Parses @text as @kind and checks the exact value. */
static void expect_value(const char *text, SimUnitKind kind, double want)
{
  double v = -12345.0;
  GError *e = NULL;
  gboolean ok = sim_units_parse(text, kind, &v, &e);
  ck_assert_msg(ok, "'%s' as %s: %s", text, sim_unit_kind_name(kind), e ? e->message : "");
  ck_assert_msg(v == want, "'%s': got %.17g, want %.17g", text, v, want);
}

/* Parses @text as @kind, expects error @code and @substr in the message. */
static void expect_error(const char *text, SimUnitKind kind, int code, const char *substr)
{
  double v = 0.0;
  GError *e = NULL;
  ck_assert_msg(!sim_units_parse(text, kind, &v, &e), "'%s' as %s should fail", text, sim_unit_kind_name(kind));
  ck_assert_ptr_nonnull(e);
  ck_assert_msg(e->domain == SIM_UNITS_ERROR, "domain");
  ck_assert_msg(e->code == code, "'%s': code %d, want %d (%s)", text, e->code, code, e->message);
  ck_assert_msg(strstr(e->message, substr), "'%s': message '%s' lacks '%s'", text, e->message, substr);
  g_error_free(e);
}

START_TEST(test_bit_rates)
{
  expect_value("100 Gb/s", SIM_UNIT_BIT_RATE, 1e11);
  expect_value("400 Mb/s", SIM_UNIT_BIT_RATE, 4e8);
  expect_value("1.5 Tb/s", SIM_UNIT_BIT_RATE, 1.5e12);
  expect_value("800 Gbps", SIM_UNIT_BIT_RATE, 8e11);
  expect_value("10 kb/s", SIM_UNIT_BIT_RATE, 1e4);
  expect_value("10 Kb/s", SIM_UNIT_BIT_RATE, 1e4);
  expect_value("25 Gbit/s", SIM_UNIT_BIT_RATE, 2.5e10);
  expect_value("64 b/s", SIM_UNIT_BIT_RATE, 64.0);
  expect_value("1 Gib/s", SIM_UNIT_BIT_RATE, 1073741824.0);
  expect_value("100Gb/s", SIM_UNIT_BIT_RATE, 1e11);
  expect_value("  100 Gb/s  ", SIM_UNIT_BIT_RATE, 1e11);
  expect_value("1e2 Gb/s", SIM_UNIT_BIT_RATE, 1e11);
}
END_TEST

START_TEST(test_byte_rates)
{
  expect_value("12.5 GB/s", SIM_UNIT_BYTE_RATE, 1.25e10);
  expect_value("150 GB/s", SIM_UNIT_BYTE_RATE, 1.5e11);
  expect_value("800 MB/s", SIM_UNIT_BYTE_RATE, 8e8);
  expect_value("2 GiB/s", SIM_UNIT_BYTE_RATE, 2147483648.0);
  expect_value("1 KiB/s", SIM_UNIT_BYTE_RATE, 1024.0);
  expect_value("1 kB/s", SIM_UNIT_BYTE_RATE, 1000.0);
  expect_value("3 TB/s", SIM_UNIT_BYTE_RATE, 3e12);
}
END_TEST

START_TEST(test_transfer_rates)
{
  expect_value("3200 MT/s", SIM_UNIT_TRANSFER_RATE, 3.2e9);
  expect_value("18 GT/s", SIM_UNIT_TRANSFER_RATE, 1.8e10);
  expect_value("5 kT/s", SIM_UNIT_TRANSFER_RATE, 5e3);
  expect_error("16 GiT/s", SIM_UNIT_TRANSFER_RATE, SIM_UNITS_ERROR_UNKNOWN, "unknown unit 'GiT/s'");
}
END_TEST

START_TEST(test_time)
{
  expect_value("80 us", SIM_UNIT_TIME, 80e3);
  expect_value("1.5 ms", SIM_UNIT_TIME, 1.5e6);
  expect_value("10 s", SIM_UNIT_TIME, 1e10);
  expect_value("250 ns", SIM_UNIT_TIME, 250.0);
  expect_value("2 min", SIM_UNIT_TIME, 120e9);
  expect_value("1 h", SIM_UNIT_TIME, 3600e9);
  expect_value("500 ps", SIM_UNIT_TIME, 0.5);
  expect_value("3 \xc2\xb5s", SIM_UNIT_TIME, 3e3);
  expect_value("0 s", SIM_UNIT_TIME, 0.0);

  int64_t ns = 0;
  GError *e = NULL;
  ck_assert(sim_units_parse_int64("1.5 ms", SIM_UNIT_TIME, &ns, &e));
  ck_assert_int_eq(ns, 1500000);
  ck_assert(sim_units_parse_int64("2 min", SIM_UNIT_TIME, &ns, &e));
  ck_assert_int_eq(ns, INT64_C(120000000000));
  ck_assert(!sim_units_parse_int64("0.5 ns", SIM_UNIT_TIME, &ns, &e));
  ck_assert_int_eq(e->code, SIM_UNITS_ERROR_NOT_INTEGER);
  ck_assert_ptr_nonnull(strstr(e->message, "whole number of ns"));
  g_clear_error(&e);
}
END_TEST

START_TEST(test_sizes_si_vs_binary)
{
  expect_value("2 MiB", SIM_UNIT_SIZE, 2097152.0);
  expect_value("16 KiB", SIM_UNIT_SIZE, 16384.0);
  expect_value("2 TB", SIM_UNIT_SIZE, 2e12);
  expect_value("2 TiB", SIM_UNIT_SIZE, 2199023255552.0);
  expect_value("4 KB", SIM_UNIT_SIZE, 4000.0);
  expect_value("4 kB", SIM_UNIT_SIZE, 4000.0);
  expect_value("512 B", SIM_UNIT_SIZE, 512.0);
  expect_value("1 GB", SIM_UNIT_SIZE, 1e9);
  expect_value("1 GiB", SIM_UNIT_SIZE, 1073741824.0);
  expect_value("1 PiB", SIM_UNIT_SIZE, 1125899906842624.0);
  expect_value("1 bytes", SIM_UNIT_SIZE, 1.0);

  int64_t b = 0;
  GError *e = NULL;
  ck_assert(sim_units_parse_int64("1.5 KiB", SIM_UNIT_SIZE, &b, &e));
  ck_assert_int_eq(b, 1536);
  ck_assert(sim_units_parse_int64("2 TB", SIM_UNIT_SIZE, &b, &e));
  ck_assert_int_eq(b, INT64_C(2000000000000));
  ck_assert(!sim_units_parse_int64("1.5 B", SIM_UNIT_SIZE, &b, &e));
  ck_assert_int_eq(e->code, SIM_UNITS_ERROR_NOT_INTEGER);
  g_clear_error(&e);
}
END_TEST

START_TEST(test_frequency_percent)
{
  expect_value("2.5 GHz", SIM_UNIT_FREQUENCY, 2.5e9);
  expect_value("3350 MHz", SIM_UNIT_FREQUENCY, 3.35e9);
  expect_value("100 kHz", SIM_UNIT_FREQUENCY, 1e5);
  expect_value("80 %", SIM_UNIT_PERCENT, 0.80);
  expect_value("80%", SIM_UNIT_PERCENT, 0.80);
  expect_value("100 %", SIM_UNIT_PERCENT, 1.0);
  expect_value("0.5%", SIM_UNIT_PERCENT, 0.005);
}
END_TEST

START_TEST(test_plain_numbers)
{
  expect_value("4", SIM_UNIT_NONE, 4.0);
  expect_value("-2.5", SIM_UNIT_NONE, -2.5);
  expect_value("1e-3", SIM_UNIT_NONE, 1e-3);
  expect_value(".5", SIM_UNIT_NONE, 0.5);
  expect_error("4 GB", SIM_UNIT_NONE, SIM_UNITS_ERROR_UNKNOWN, "without a unit");
  expect_error("4x", SIM_UNIT_NONE, SIM_UNITS_ERROR_SYNTAX, "not a number");
  expect_error("nan", SIM_UNIT_NONE, SIM_UNITS_ERROR_SYNTAX, "not a number");
  expect_error("inf", SIM_UNIT_NONE, SIM_UNITS_ERROR_SYNTAX, "not a number");
  expect_error("1e999", SIM_UNIT_NONE, SIM_UNITS_ERROR_SYNTAX, "valid number");
  expect_error("0x10", SIM_UNIT_NONE, SIM_UNITS_ERROR_SYNTAX, "hexadecimal");
  expect_error("", SIM_UNIT_NONE, SIM_UNITS_ERROR_SYNTAX, "not a number");

  int64_t i = 0;
  GError *e = NULL;
  ck_assert(sim_units_parse_int64("9007199254740993", SIM_UNIT_NONE, &i, &e));
  ck_assert_int_eq(i, INT64_C(9007199254740993));
  ck_assert(!sim_units_parse_int64("4.0", SIM_UNIT_NONE, &i, &e));
  ck_assert_int_eq(e->code, SIM_UNITS_ERROR_NOT_INTEGER);
  g_clear_error(&e);
  ck_assert(!sim_units_parse_int64("12abc", SIM_UNIT_NONE, &i, &e));
  ck_assert_int_eq(e->code, SIM_UNITS_ERROR_SYNTAX);
  g_clear_error(&e);

  double d = 0;
  ck_assert(sim_units_parse_double(" 3.25 ", &d, &e));
  ck_assert(d == 3.25);
  ck_assert(!sim_units_parse_double("3.25 x", &d, &e));
  g_clear_error(&e);
}
END_TEST

START_TEST(test_bits_vs_bytes)
{
  expect_error("100 GB/s", SIM_UNIT_BIT_RATE, SIM_UNITS_ERROR_WRONG_KIND, "expected a bit rate");
  expect_error("100 GB/s", SIM_UNIT_BIT_RATE, SIM_UNITS_ERROR_WRONG_KIND, "'GB/s' is a byte rate unit");
  expect_error("100 Gb/s", SIM_UNIT_BYTE_RATE, SIM_UNITS_ERROR_WRONG_KIND, "expected a byte rate");
  expect_error("4 Kb", SIM_UNIT_SIZE, SIM_UNITS_ERROR_WRONG_KIND, "b = bits, B = bytes");
  expect_error("2 GHz", SIM_UNIT_TIME, SIM_UNITS_ERROR_WRONG_KIND, "expected a time");
  expect_error("2 MiB", SIM_UNIT_BYTE_RATE, SIM_UNITS_ERROR_WRONG_KIND, "is a size unit");
}
END_TEST

START_TEST(test_bare_and_bad_units)
{
  expect_error("100", SIM_UNIT_BIT_RATE, SIM_UNITS_ERROR_NO_UNIT, "needs a unit, e.g. '100 Gb/s'");
  expect_error("80", SIM_UNIT_PERCENT, SIM_UNITS_ERROR_NO_UNIT, "needs a unit, e.g. '80 %'");
  expect_error("80", SIM_UNIT_TIME, SIM_UNITS_ERROR_NO_UNIT, "needs a unit");
  expect_error("4096", SIM_UNIT_SIZE, SIM_UNITS_ERROR_NO_UNIT, "needs a unit");
  expect_error("100 gb/s", SIM_UNIT_BIT_RATE, SIM_UNITS_ERROR_UNKNOWN, "did you mean 'Gb/s'?");
  expect_error("2 mib", SIM_UNIT_SIZE, SIM_UNITS_ERROR_UNKNOWN, "did you mean 'MiB'?");
  expect_error("3 furlongs", SIM_UNIT_TIME, SIM_UNITS_ERROR_UNKNOWN, "unknown unit 'furlongs'");
  expect_error("2 GHz x", SIM_UNIT_FREQUENCY, SIM_UNITS_ERROR_UNKNOWN, "unknown unit");
  expect_error("fast", SIM_UNIT_BIT_RATE, SIM_UNITS_ERROR_SYNTAX, "not a bit rate");
  expect_error("nan Gb/s", SIM_UNIT_BIT_RATE, SIM_UNITS_ERROR_SYNTAX, "not a bit rate");
  expect_error("1e400 Gb/s", SIM_UNIT_BIT_RATE, SIM_UNITS_ERROR_SYNTAX, "valid number");
}
END_TEST

START_TEST(test_format_roundtrip)
{
  static const struct {
    double v;
    SimUnitKind k;
    const char *s;
  } cases[] = {
    { 1e11, SIM_UNIT_BIT_RATE, "100 Gb/s" },
    { 1048576.0, SIM_UNIT_SIZE, "1 MiB" },
    { 4000.0, SIM_UNIT_SIZE, "4 kB" },
    { 0.8, SIM_UNIT_PERCENT, "80 %" },
    { 80e3, SIM_UNIT_TIME, "80 us" },
    { 120e9, SIM_UNIT_TIME, "2 min" },
    { 3.2e9, SIM_UNIT_TRANSFER_RATE, "3.2 GT/s" },
    { 2.5e9, SIM_UNIT_FREQUENCY, "2.5 GHz" },
    { 1.25e10, SIM_UNIT_BYTE_RATE, "12.5 GB/s" },
  };
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *s = sim_units_format(cases[i].v, cases[i].k);
    ck_assert_str_eq(s, cases[i].s);
    double back = 0;
    ck_assert(sim_units_parse(s, cases[i].k, &back, NULL));
    ck_assert(back == cases[i].v);
  }
}
END_TEST

/* A bit rate prints in the unit that shows it with one decimal: Gb/s from 1 Gb/s up (and 0),
 * below that the largest of Mb/s, kb/s, b/s in which it is at least 1 ("0.0 Gb/s" before). */
START_TEST(test_gbps_text)
{
  static const struct {
    double gbps;
    const char *text;
  } t[] = { { 371.46, "371.5 Gb/s" }, { 1.0, "1.0 Gb/s" },    { 0.0, "0.0 Gb/s" },    { 0.999, "999.0 Mb/s" },
            { 0.02, "20.0 Mb/s" },    { 5e-4, "500.0 kb/s" }, { 1.5e-6, "1.5 kb/s" }, { 2.5e-7, "250.0 b/s" },
            { 1e-12, "0.0 b/s" },     { -0.02, "-20.0 Mb/s" } };
  for (size_t i = 0; i < G_N_ELEMENTS(t); i++) {
    g_autofree char *s = sim_units_gbps_text(t[i].gbps);
    ck_assert_str_eq(s, t[i].text);
  }
  const char *u;
  ck_assert_double_eq(sim_units_gbps_scale(INFINITY, &u), 1.0);
  ck_assert_str_eq(u, "Gb/s");
  ck_assert_double_eq(sim_units_gbps_scale(NAN, &u), 1.0);
  ck_assert_double_eq(sim_units_gbps_scale(3e-3, &u), 1e3);
  ck_assert_str_eq(u, "Mb/s");
}
END_TEST

/* A size prints in the unit that shows it with one decimal: GiB from 1 GiB up (and 0), below
 * that the largest of MiB, KiB, bytes in which it is at least 1 (1 MiB was "0.0 GiB"). */
START_TEST(test_bytes_text)
{
  static const struct {
    double bytes;
    const char *text;
  } t[] = { { 256.0 * 1073741824.0, "256.0 GiB" },
            { 1073741824.0, "1.0 GiB" },
            { 0.0, "0.0 GiB" },
            { 1048576.0, "1.0 MiB" },
            { 1536.0, "1.5 KiB" },
            { 1023.0, "1023.0 bytes" },
            { 0.25, "0.2 bytes" },
            { -3.0 * 1048576.0, "-3.0 MiB" } };
  for (size_t i = 0; i < G_N_ELEMENTS(t); i++) {
    g_autofree char *s = sim_units_bytes_text(t[i].bytes);
    ck_assert_str_eq(s, t[i].text);
  }
  const char *u;
  ck_assert_double_eq(sim_units_gib_scale(INFINITY, &u), 1.0);
  ck_assert_str_eq(u, "GiB");
  ck_assert_double_eq(sim_units_gib_scale(0.5, &u), 1024.0);
  ck_assert_str_eq(u, "MiB");
}
END_TEST

int main(void)
{
  Suite *s = suite_create("units");
  TCase *tc = tcase_create("parse");
  tcase_add_test(tc, test_bit_rates);
  tcase_add_test(tc, test_byte_rates);
  tcase_add_test(tc, test_transfer_rates);
  tcase_add_test(tc, test_time);
  tcase_add_test(tc, test_sizes_si_vs_binary);
  tcase_add_test(tc, test_frequency_percent);
  tcase_add_test(tc, test_plain_numbers);
  tcase_add_test(tc, test_bits_vs_bytes);
  tcase_add_test(tc, test_bare_and_bad_units);
  tcase_add_test(tc, test_format_roundtrip);
  tcase_add_test(tc, test_gbps_text);
  tcase_add_test(tc, test_bytes_text);
  suite_add_tcase(s, tc);
  return test_run_suite(s);
}
