/* tests/test_fuzz_regress.c — what the fuzzers of fuzz/ found, kept as regression tests.
 *
 * tests/data/fuzz/set/: inputs of fuzz/fuzz_set.c that broke its property (the overrides that
 * sim_conf_overrides() lists apply again to a fresh copy and give the same tree).  Each file is
 * replayed as the harness reads it: a byte choosing the base scenario among the scenarios/ files in
 * name order, then one assignment a line.  The cases below spell out what each one fixed:
 * a key path of invalid UTF-8 is refused; keys and plain values that need quotes in flow text
 * get them; a plain scalar folded from several lines is quoted, not folded again; a path and
 * value nested deeper than a file may be (200) are refused.
 * tests/data/fuzz/scenario/ (when present): inputs of fuzz/fuzz_scenario.c that crashed,
 * each run through `ocasim check`: exit status 0 or 2, never a signal.
 */
#include <check.h>
#include "tests/support/check_run.h"
#include "tests/support/ocasim_run.h"
#include <glib.h>
#include <string.h>

#include "sim/conf.h"

/* Applies @lines (NULL-terminated) to a copy of @base; when all apply, asserts that the listed
 *  overrides apply again to a fresh copy and give the same flow text.  Returns whether all
 *  applied; *@listed (may be NULL) gets the listing joined with "; ". */
static gboolean replay(const SimConfDoc *base, char **lines, char **listed)
{
  g_autoptr(SimConfDoc) doc = sim_conf_doc_copy(base);
  for (char **l = lines; *l; l++) {
    g_autoptr(GError) e = NULL;
    if (!sim_conf_apply_override(doc, *l, &e)) {
      ck_assert_int_eq(e->code, SIM_CONF_ERROR_OVERRIDE);
      ck_assert(g_utf8_validate(e->message, -1, NULL));
      return FALSE;
    }
  }
  g_auto(GStrv) list = sim_conf_overrides(sim_conf_doc_root(doc));
  g_autoptr(SimConfDoc) again = sim_conf_doc_copy(base);
  for (char **o = list; *o; o++) {
    g_autoptr(GError) e = NULL;
    ck_assert_msg(sim_conf_apply_override(again, *o, &e), "listed '%s' does not apply again: %s", *o, e ? e->message : "");
  }
  g_autofree char *t1 = sim_conf_node_flow_text(sim_conf_doc_root(doc));
  g_autofree char *t2 = sim_conf_node_flow_text(sim_conf_doc_root(again));
  ck_assert_str_eq(t1, t2);
  if (listed) *listed = g_strjoinv("; ", list);
  return TRUE;
}

static SimConfDoc *load_base(const char *path)
{
  g_autoptr(GError) e = NULL;
  SimConfDoc *doc = sim_conf_load_with_include(path, "platform", &e);
  ck_assert_msg(doc != NULL, "%s", e ? e->message : "");
  return doc;
}

START_TEST(test_set_cases)
{
  g_autoptr(SimConfDoc) base = load_base("scenarios/mm1.yaml");
  static const struct {
    const char *set;    /* one assignment */
    const char *listed; /* what sim_conf_overrides lists, NULL: refused */
  } cases[] = {
    { "stati.se.ser\xf3=2", NULL },                                 /* invalid UTF-8 in a key */
    { "a .b=1", NULL },                                             /* a key with a blank at its end */
    { "a.b\x01=1", NULL },                                          /* a control character in a key */
    { "o<<.nan<<: n=7", "o<<.nan<<: n=7" },                         /* ": " in a key */
    { "x.y=a,b", "x.y=a,b" },                                       /* a flow indicator in a plain value */
    { "x.y=", "x.y=" },                                             /* an empty (null) plain value in a map */
    { "x=\"0e[\\x0a]\"", "x=\"0e[\\x0a]\"" },                       /* a quoted value with a newline */
    { "x.y=0e[\xc8\xa2\r\r\rz", "x.y=\"0e[\xc8\xa2\\x0a\\x0az\"" }, /* a plain value folded from 3 lines */
    { "x.y=[1, {z: w}]", "x.y=[1, {z: w}]" },                       /* plain where plain reads back */
  };
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    char *lines[] = { (char *)cases[i].set, NULL };
    g_autofree char *listed = NULL;
    gboolean ok = replay(base, lines, &listed);
    ck_assert_msg(ok == (cases[i].listed != NULL), "case %zu '%s': applied %d", i, cases[i].set, ok);
    if (ok) ck_assert_str_eq(listed, cases[i].listed);
  }
  /* maps made by a key path list their keys one by one, as they were set (docs/outputs.md:
   * key.path=value), not as the map they made (ram={page_cache: 1 TiB, ...}); a map given as a
   * value is listed as given */
  char *made[] = { "ram.page_cache=1 TiB", "ram.reserve=4 GiB", "costs.a.b=1", NULL };
  char *given[] = { "ram={page_cache: 1 TiB}", "ram.reserve=4 GiB", NULL };
  g_autofree char *made_listed = NULL, *given_listed = NULL;
  ck_assert(replay(base, made, &made_listed));
  ck_assert_str_eq(made_listed, "ram.page_cache=1 TiB; ram.reserve=4 GiB; costs.a.b=1");
  ck_assert(replay(base, given, &given_listed));
  ck_assert_str_eq(given_listed, "ram={page_cache: 1 TiB, reserve: 4 GiB}");
  /* the root and 199 maps along a path, or along a path and in its value, are as deep as a file
   * may nest (200): set and listed back; one more is refused (tests/data/fuzz/set/crash-path-too-deep) */
  for (int extra = 0; extra <= 1; extra++)
    for (int in_value = 0; in_value <= 1; in_value++) {
      g_autoptr(GString) set = g_string_new("k");
      for (int i = 1; i < 200 + extra - in_value; i++) g_string_append(set, ".k");
      g_string_append(set, in_value ? "={k: 1}" : "=1");
      char *lines[] = { set->str, NULL };
      ck_assert_msg(replay(base, lines, NULL) == !extra, "%d maps%s", 200 + extra, in_value ? " (one in the value)" : "");
    }
}
END_TEST

static gint by_name(gconstpointer a, gconstpointer b)
{
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The scenarios of scenarios/ that load, in name order, as fuzz/fuzz_set.c indexes them. */
static GPtrArray *scenario_bases(void)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
  GDir *d = g_dir_open("scenarios", 0, NULL);
  ck_assert(d != NULL);
  const char *name;
  while ((name = g_dir_read_name(d)))
    if (g_str_has_suffix(name, ".yaml")) g_ptr_array_add(names, g_build_filename("scenarios", name, NULL));
  g_dir_close(d);
  g_ptr_array_sort(names, by_name);
  GPtrArray *bases = g_ptr_array_new_with_free_func((GDestroyNotify)sim_conf_doc_free);
  for (guint i = 0; i < names->len; i++) {
    SimConfDoc *doc = sim_conf_load_with_include(g_ptr_array_index(names, i), "platform", NULL);
    if (doc) g_ptr_array_add(bases, doc);
  }
  ck_assert_uint_gt(bases->len, 0);
  return bases;
}

/* Every file of tests/data/fuzz/set/ replayed as fuzz/fuzz_set.c reads it. */
START_TEST(test_set_corpus)
{
  g_autoptr(GPtrArray) bases = scenario_bases();
  GDir *d = g_dir_open("tests/data/fuzz/set", 0, NULL);
  ck_assert(d != NULL);
  const char *name;
  guint n = 0;
  while ((name = g_dir_read_name(d))) {
    g_autofree char *path = g_build_filename("tests/data/fuzz/set", name, NULL);
    g_autofree char *data = NULL;
    gsize len = 0;
    ck_assert(g_file_get_contents(path, &data, &len, NULL));
    if (len < 1) continue;
    g_autofree char *text = g_strndup(data + 1, len - 1);
    g_auto(GStrv) lines = g_strsplit(text, "\n", 9);
    if (g_strv_length(lines) > 8) lines[8] = (g_free(lines[8]), NULL);
    (void)replay(g_ptr_array_index(bases, (guchar)data[0] % bases->len), lines, NULL);
    n++;
  }
  g_dir_close(d);
  ck_assert_uint_ge(n, 3);
}
END_TEST

/* Every file of tests/data/fuzz/scenario/ through `ocasim check`: a verdict, never a crash. */
START_TEST(test_scenario_corpus)
{
  GDir *d = g_dir_open("tests/data/fuzz/scenario", 0, NULL);
  if (!d) return; /* none found yet */
  const char *name;
  while ((name = g_dir_read_name(d))) {
    g_autofree char *path = g_build_filename("tests/data/fuzz/scenario", name, NULL);
    const char *args[] = { "check", path, NULL };
    g_autofree char *out = NULL, *err = NULL;
    int st = test_run_ocasim(args, &out, &err);
    ck_assert_msg(st == 0 || st == 2, "%s: exit %d: %s", path, st, err);
  }
  g_dir_close(d);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("fuzz_regress");
  TCase *tc = tcase_create("found");
  tcase_add_test(tc, test_set_cases);
  tcase_add_test(tc, test_set_corpus);
  tcase_add_test(tc, test_scenario_corpus);
  suite_add_tcase(s, tc);
  return test_run_suite(s);
}
