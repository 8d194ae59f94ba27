/* tests/test_figures.c — the headline figures of every shipped scenario, within stated tolerances.
 *
 * For every scenario under scenarios/ and scenarios/reference/, each of `ocasim bound`, `run` and
 * `capacity` (all three with --format json --no-interval) is run through the real command line and
 * its headline figures are compared with the committed tests/figures.csv, one row per (scenario,
 * mode, figure):
 *   exit                  the exit status (a queueing network refuses bound and capacity: 2)
 *   throughput_gbps       served throughput; capacity: at the capacity found
 *   cpu_util_pct          mean CPU utilisation over the nodes; capacity: at the capacity found
 *   bottleneck            the bottleneck resource's name
 *   util_frac[R]          each resource R's utilisation (a fraction of its capacity)
 *   capacity_gbps         capacity only: the largest healthy offered load
 *   limiting_criterion    capacity only: the criterion that sets it
 * and for a queueing network (run): throughput_per_s[S] and util_frac[S] of each station S (the
 * batch means), the network's exit_rate_per_s and sojourn_s.
 *
 * The tolerances (figure_tolerances below; tests/figures.csv's header repeats them) catch a change
 * of behaviour, not the last bits of floating-point arithmetic: a reordered sum or a unit taken a
 * different way passes, a changed model fails.  The formats themselves (every field, every digit)
 * are pinned by the few byte-exact goldens of tests/test_golden.c.
 *
 * A scenario added or removed shows as new or missing figures.  An intended change of figures is
 * recorded with `make figures-update` (this binary with OCASIM_FIGURES_UPDATE=1 rewrites
 * tests/figures.csv and prints each figure that moved, `scenario mode figure: old -> new (+x %)`);
 * the commit says which figures moved and why. */
#include "tests/support/check_run.h"
#include "tests/support/ocasim_run.h"
#include <check.h>
#include <glib.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define FIGURES_CSV    "tests/figures.csv"
#define FIGURES_HEADER "scenario,mode,figure,value"

static const char *const modes[] = { "bound", "run", "capacity" };

/* Tolerance of the numeric figures of one mode: relative, |got - want| <= rel x max(|got|, |want|),
 * or within FIGURE_ABS_TOL absolute (a utilisation of 0 that becomes 1e-17). */
typedef struct {
  const char *mode;
  double rel;
  const char *why;
} FigureTolerance;

/* clang-format off */
static const FigureTolerance figure_tolerances[] = {
  { "bound",    1e-6, "closed forms, X* solved to 1e-12: noise of 1e-9 put into drive times and CPU rates moved them <= 2e-9" },
  { "run",      1e-3, "the DES with its seed: shifted events moved figures <= 2e-4 (offered x (1 + 1e-9)); 5x below 95 % CIs" },
  { "capacity", 1e-5,
    "Brent's search on the bound stops within 1e-6 of a limit, so a last bit may move it that far; 10x that. A latency-limited "
    "capacity is a DES bisection to 1/128 of the load: a change moves it a whole step (~0.8 %) or not at all, either way caught" },
};
/* clang-format on */

/* Absolute floor of every numeric comparison: 1e-9 of a Gb/s, a per cent or a fraction is below
 * any printed digit. */
#define FIGURE_ABS_TOL 1e-9
/* Digits kept in tests/figures.csv: 10 significant, 5e-10 relative, far inside every tolerance. */
#define FIGURE_DIGITS 10

/* Figures compared as text: exit status, criterion and resource names. */
static gboolean figure_is_exact(const char *figure)
{
  return !strcmp(figure, "exit") || !strcmp(figure, "bottleneck") || !strcmp(figure, "limiting_criterion");
}

/* The relative tolerance of @mode's numeric figures; a mode without a row fails the test. */
static double figure_tolerance(const char *mode)
{
  for (gsize i = 0; i < G_N_ELEMENTS(figure_tolerances); i++)
    if (!strcmp(figure_tolerances[i].mode, mode)) return figure_tolerances[i].rel;
  ck_abort_msg("no tolerance for mode %s", mode);
  return 0;
}

/* A set of figures: keys "scenario,mode,figure" in the order added, each with its value as text. */
typedef struct {
  GPtrArray *keys;
  GHashTable *values;
} Figures;

static Figures *figures_new(void)
{
  Figures *f = g_new0(Figures, 1);
  f->keys = g_ptr_array_new_with_free_func(g_free);
  f->values = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
  return f;
}

static void figures_free(Figures *f)
{
  g_hash_table_unref(f->values);
  g_ptr_array_unref(f->keys);
  g_free(f);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(Figures, figures_free)

/* Adds one figure (@value: transfer full); names hold no comma or newline, so a key splits back. */
static void figures_add(Figures *f, const char *scenario, const char *mode, const char *figure, char *value)
{
  ck_assert_msg(!strpbrk(scenario, ",\n") && !strpbrk(figure, ",\n") && !strchr(value, '\n'),
                "figure name with a comma or newline: %s %s %s", scenario, mode, figure);
  char *key = g_strdup_printf("%s,%s,%s", scenario, mode, figure);
  ck_assert_msg(!g_hash_table_contains(f->values, key), "figure %s twice", key);
  g_ptr_array_add(f->keys, key);
  g_hash_table_insert(f->values, key, value);
}

static const char *figures_get(const Figures *f, const char *scenario, const char *mode, const char *figure)
{
  g_autofree char *key = g_strdup_printf("%s,%s,%s", scenario, mode, figure);
  return g_hash_table_lookup(f->values, key);
}

/* A JSON number as stored (FIGURE_DIGITS significant digits), or "null". */
static char *number_text(JsonObject *o, const char *member)
{
  JsonNode *n = json_object_get_member(o, member);
  if (!n || JSON_NODE_HOLDS_NULL(n)) return g_strdup("null");
  ck_assert_msg(JSON_NODE_HOLDS_VALUE(n), "%s is not a number", member);
  return g_strdup_printf("%.*g", FIGURE_DIGITS, json_node_get_double(n));
}

/* Throughput, CPU, bottleneck and each resource's utilisation of an appliance result. */
static void figures_of_appliance(Figures *f, const char *sc, const char *mode, JsonObject *o)
{
  figures_add(f, sc, mode, "throughput_gbps", number_text(o, "throughput_gbps"));
  figures_add(f, sc, mode, "cpu_util_pct", number_text(o, "cpu_util_pct"));
  if (json_object_has_member(o, "bottleneck")) {
    JsonObject *b = json_object_get_object_member(o, "bottleneck");
    figures_add(f, sc, mode, "bottleneck", g_strdup(json_object_get_string_member(b, "resource")));
  }
  JsonArray *res = json_object_get_array_member(o, "resources");
  for (guint i = 0; res && i < json_array_get_length(res); i++) {
    JsonObject *r = json_array_get_object_element(res, i);
    g_autofree char *fig = g_strdup_printf("util_frac[%s]", json_object_get_string_member(r, "name"));
    figures_add(f, sc, mode, fig, number_text(r, "util_frac"));
  }
}

/* Each station's throughput and utilisation (batch means) and the network's exit rate and sojourn. */
static void figures_of_qnet(Figures *f, const char *sc, const char *mode, JsonObject *o)
{
  JsonArray *st = json_object_get_array_member(o, "stations");
  for (guint i = 0; i < json_array_get_length(st); i++) {
    JsonObject *s = json_array_get_object_element(st, i);
    const char *name = json_object_get_string_member(s, "name");
    static const char *const stats[] = { "throughput_per_s", "util_frac" };
    for (gsize k = 0; k < G_N_ELEMENTS(stats); k++) {
      g_autofree char *fig = g_strdup_printf("%s[%s]", stats[k], name);
      figures_add(f, sc, mode, fig, number_text(json_object_get_object_member(s, stats[k]), "mean"));
    }
  }
  JsonObject *net = json_object_get_object_member(o, "network");
  figures_add(f, sc, mode, "exit_rate_per_s", number_text(net, "exit_rate_per_s"));
  figures_add(f, sc, mode, "sojourn_s", number_text(net, "sojourn_s"));
}

/* The figures of one JSON result (@json, the stdout of a run that exited 0). */
static void figures_of_json(Figures *f, const char *sc, const char *mode, const char *json)
{
  g_autoptr(JsonParser) p = json_parser_new();
  GError *e = NULL;
  ck_assert_msg(json_parser_load_from_data(p, json, -1, &e), "%s %s: not JSON: %s", mode, sc, e ? e->message : "");
  JsonObject *o = json_node_get_object(json_parser_get_root(p));
  ck_assert_msg(o != NULL, "%s %s: the JSON is not an object", mode, sc);
  const char *kind = json_object_has_member(o, "kind") ? json_object_get_string_member(o, "kind") : NULL;
  if (kind && !strcmp(kind, "queueing_network")) {
    figures_of_qnet(f, sc, mode, o);
  } else if (json_object_has_member(o, "capacity_gbps")) {
    figures_add(f, sc, mode, "capacity_gbps", number_text(o, "capacity_gbps"));
    figures_add(f, sc, mode, "limiting_criterion", g_strdup(json_object_get_string_member(o, "limiting_criterion")));
    if (json_object_has_member(o, "at_capacity"))
      figures_of_appliance(f, sc, mode, json_object_get_object_member(o, "at_capacity"));
  } else {
    figures_of_appliance(f, sc, mode, o);
  }
}

/* g_ptr_array_sort's comparison of two strings (it passes pointers to the elements). */
static gint compare_paths(gconstpointer a, gconstpointer b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Scenario files (sorted, relative to the repository root). */
static GPtrArray *scenario_files(void)
{
  static const char *const dirs[] = { "scenarios", "scenarios/reference" };
  GPtrArray *files = g_ptr_array_new_with_free_func(g_free);
  for (gsize d = 0; d < G_N_ELEMENTS(dirs); d++) {
    g_autoptr(GDir) dir = g_dir_open(dirs[d], 0, NULL);
    ck_assert_msg(dir != NULL, "cannot open %s (tests run from the repository root)", dirs[d]);
    const char *name;
    while ((name = g_dir_read_name(dir)))
      if (g_str_has_suffix(name, ".yaml")) g_ptr_array_add(files, g_build_filename(dirs[d], name, NULL));
  }
  g_ptr_array_sort(files, compare_paths);
  return files;
}

/* The figures of every scenario and mode, from the built binary. */
static Figures *figures_measure(void)
{
  g_autoptr(GPtrArray) files = scenario_files();
  ck_assert_msg(files->len >= 30, "only %u scenarios found", files->len);
  Figures *f = figures_new();
  for (guint i = 0; i < files->len; i++) {
    const char *path = files->pdata[i];
    g_autofree char *sc = g_strndup(path + strlen("scenarios/"), strlen(path) - strlen("scenarios/") - strlen(".yaml"));
    for (gsize m = 0; m < G_N_ELEMENTS(modes); m++) {
      const char *args[] = { modes[m], path, "--format", "json", "--no-interval", NULL };
      g_autofree char *out = NULL, *err = NULL;
      int rc = test_run_ocasim(args, &out, &err);
      figures_add(f, sc, modes[m], "exit", g_strdup_printf("%d", rc));
      if (rc == 0) figures_of_json(f, sc, modes[m], out);
    }
  }
  return f;
}

/* The figures of tests/figures.csv's text @text ('#' lines are comments); FALSE with *@why set on a
 * malformed line. */
static gboolean figures_parse(Figures *f, const char *text, char **why)
{
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  gboolean header = FALSE;
  for (int i = 0; lines[i]; i++) {
    if (!lines[i][0] || lines[i][0] == '#') continue;
    if (!header) {
      if (strcmp(lines[i], FIGURES_HEADER)) {
        *why = g_strdup_printf("line %d: the header is not " FIGURES_HEADER, i + 1);
        return FALSE;
      }
      header = TRUE;
      continue;
    }
    g_auto(GStrv) cols = g_strsplit(lines[i], ",", 4);
    if (g_strv_length(cols) != 4) {
      *why = g_strdup_printf("line %d: not 4 columns", i + 1);
      return FALSE;
    }
    figures_add(f, cols[0], cols[1], cols[2], g_strdup(cols[3]));
  }
  return TRUE;
}

/* |got - want| relative to the larger of the two (0 when both are 0). */
static double rel_diff(double want, double got)
{
  double d = fabs(got - want), m = MAX(fabs(want), fabs(got));
  return d == 0 ? 0 : d / m;
}

/* Whether the text @s is a number (stored to *@v). */
static gboolean parse_number(const char *s, double *v)
{
  char *end = NULL;
  *v = g_ascii_strtod(s, &end);
  return end != s && *end == '\0';
}

/* Checks the figure @key of @want against @got: NULL when it matches within its tolerance, else one
 * line naming scenario, mode, figure, expected, got and the relative difference (transfer full).
 * *@rel (may be NULL) gets the relative difference of a numeric figure, else 0.
 *
 * A bottleneck that differs passes when it is a tie: in @got the expected resource is as utilised as
 * the reported one within the mode's tolerance (resources at one limit, picked by rounding). */
static char *figure_check(const Figures *want, const Figures *got, const char *key, double *rel)
{
  if (rel) *rel = 0;
  g_auto(GStrv) k = g_strsplit(key, ",", 3);
  const char *w = g_hash_table_lookup(want->values, key), *g = g_hash_table_lookup(got->values, key);
  if (!w) return g_strdup_printf("%s %s %s: not in " FIGURES_CSV " (got %s)", k[0], k[1], k[2], g);
  if (!g) return g_strdup_printf("%s %s %s: missing from the output (expected %s)", k[0], k[1], k[2], w);
  double tol = figure_tolerance(k[1]);
  if (figure_is_exact(k[2])) {
    if (!strcmp(w, g)) return NULL;
    if (!strcmp(k[2], "bottleneck")) {
      g_autofree char *fw = g_strdup_printf("util_frac[%s]", w), *fg = g_strdup_printf("util_frac[%s]", g);
      const char *uw = figures_get(got, k[0], k[1], fw), *ug = figures_get(got, k[0], k[1], fg);
      double a, b;
      if (uw && ug && parse_number(uw, &a) && parse_number(ug, &b) && rel_diff(b, a) <= tol) return NULL;
    }
    return g_strdup_printf("%s %s %s: expected %s, got %s", k[0], k[1], k[2], w, g);
  }
  double a, b;
  if (!parse_number(w, &a) || !parse_number(g, &b)) {
    if (!strcmp(w, g)) return NULL; /* null and null */
    return g_strdup_printf("%s %s %s: expected %s, got %s", k[0], k[1], k[2], w, g);
  }
  double r = rel_diff(a, b);
  if (rel) *rel = r;
  if (r <= tol || fabs(b - a) <= FIGURE_ABS_TOL) return NULL;
  return g_strdup_printf("%s %s %s: expected %s, got %s (relative difference %.3g, tolerance %g)", k[0], k[1], k[2], w, g, r,
                         tol);
}

/* Every mismatch of @got against @want, one line each, in @want's order then @got's new figures;
 * *@worst[m] gets the largest relative difference seen in modes[m] (may be NULL). */
static GPtrArray *figures_compare(const Figures *want, const Figures *got, double *worst)
{
  GPtrArray *lines = g_ptr_array_new_with_free_func(g_free);
  for (int pass = 0; pass < 2; pass++) {
    const Figures *walk = pass == 0 ? want : got;
    for (guint i = 0; i < walk->keys->len; i++) {
      const char *key = walk->keys->pdata[i];
      if (pass == 1 && g_hash_table_contains(want->values, key)) continue;
      double r;
      char *line = figure_check(want, got, key, &r);
      if (line) g_ptr_array_add(lines, line);
      g_auto(GStrv) k = g_strsplit(key, ",", 3);
      for (gsize m = 0; worst && m < G_N_ELEMENTS(modes); m++)
        if (!strcmp(k[1], modes[m])) worst[m] = MAX(worst[m], r);
    }
  }
  return lines;
}

/* tests/figures.csv's text for @f: the header comment (what, how to update, the tolerances) and
 * one row per figure. */
static char *figures_csv(const Figures *f)
{
  GString *s = g_string_new(NULL);
  g_string_append(s, "# tests/figures.csv: headline figures of every shipped scenario, checked by tests/test_figures.c.\n"
                     "# Written by `make figures-update`, never by hand. mode: the command, run with --format json\n"
                     "# --no-interval; capacity's throughput, CPU, bottleneck and utilisations are at the capacity found.\n");
  g_string_append_printf(s,
                         "# Tolerances: a number passes within the relative tolerance of its mode, |got - expected| <=\n"
                         "# tol x max(|got|, |expected|), or within %g absolute; values keep %d significant digits.\n",
                         FIGURE_ABS_TOL, FIGURE_DIGITS);
  for (gsize i = 0; i < G_N_ELEMENTS(figure_tolerances); i++)
    g_string_append_printf(s, "#   %-8s %g: %s\n", figure_tolerances[i].mode, figure_tolerances[i].rel, figure_tolerances[i].why);
  g_string_append(s, "#   exit, limiting_criterion: exact; bottleneck: exact, or a resource tied with it (its utilisation\n"
                     "#   within the mode's tolerance of the reported one's)\n");
  g_string_append(s, FIGURES_HEADER "\n");
  for (guint i = 0; i < f->keys->len; i++)
    g_string_append_printf(s, "%s,%s\n", (char *)f->keys->pdata[i], (char *)g_hash_table_lookup(f->values, f->keys->pdata[i]));
  return g_string_free(s, FALSE);
}

/* Prints each figure of @now that differs from @before as `scenario mode figure: old -> new (+x %)`,
 * the new and the gone ones, and a count. */
static void figures_print_changes(const Figures *before, const Figures *now)
{
  int changed = 0, beyond = 0, added = 0, gone = 0;
  for (guint i = 0; i < now->keys->len; i++) {
    const char *key = now->keys->pdata[i];
    g_auto(GStrv) k = g_strsplit(key, ",", 3);
    const char *o = g_hash_table_lookup(before->values, key), *n = g_hash_table_lookup(now->values, key);
    if (!o) {
      printf("%s %s %s: %s (new)\n", k[0], k[1], k[2], n);
      added++;
      continue;
    }
    if (!strcmp(o, n)) continue;
    changed++;
    g_autofree char *out = figure_check(before, now, key, NULL);
    if (out) beyond++;
    double a, b;
    if (!figure_is_exact(k[2]) && parse_number(o, &a) && parse_number(n, &b) && a != 0)
      printf("%s %s %s: %s -> %s (%+.3g %%)%s\n", k[0], k[1], k[2], o, n, (b - a) / fabs(a) * 100,
             out ? "" : " (within tolerance)");
    else
      printf("%s %s %s: %s -> %s%s\n", k[0], k[1], k[2], o, n, out ? "" : " (within tolerance)");
  }
  for (guint i = 0; i < before->keys->len; i++) {
    const char *key = before->keys->pdata[i];
    if (g_hash_table_contains(now->values, key)) continue;
    g_auto(GStrv) k = g_strsplit(key, ",", 3);
    printf("%s %s %s: %s (gone)\n", k[0], k[1], k[2], (char *)g_hash_table_lookup(before->values, key));
    gone++;
  }
  printf(FIGURES_CSV ": %u figures; %d changed (%d beyond tolerance), %d new, %d gone\n", now->keys->len, changed, beyond, added,
         gone);
  fflush(stdout);
}

START_TEST(test_figures_within_tolerance)
{
  g_autoptr(Figures) got = figures_measure();
  g_autoptr(Figures) want = figures_new();
  g_autofree char *text = NULL;
  gboolean have = g_file_get_contents(FIGURES_CSV, &text, NULL, NULL);
  g_autofree char *why = NULL;
  if (have) ck_assert_msg(figures_parse(want, text, &why), FIGURES_CSV ": %s", why);
  if (g_getenv("OCASIM_FIGURES_UPDATE")) {
    g_autofree char *csv = figures_csv(got);
    GError *error = NULL;
    ck_assert_msg(g_file_set_contents(FIGURES_CSV, csv, -1, &error), "%s", error ? error->message : "");
    figures_print_changes(want, got);
    return;
  }
  ck_assert_msg(have, FIGURES_CSV " is missing (make figures-update records it)");
  /* the header states the tolerances in force: the file is as figures_csv writes its rows */
  g_autofree char *rewritten = figures_csv(want);
  ck_assert_msg(!strcmp(rewritten, text),
                FIGURES_CSV " is not as make figures-update writes it (an edited line, or a header whose tolerances "
                            "are not this test's); make figures-update rewrites it");
  double worst[G_N_ELEMENTS(modes)] = { 0 };
  g_autoptr(GPtrArray) lines = figures_compare(want, got, worst);
  for (guint i = 0; i < lines->len; i++) fprintf(stderr, "figures: %s\n", (char *)lines->pdata[i]);
  fprintf(stderr, "figures: %u figures, largest relative differences:", got->keys->len);
  for (gsize m = 0; m < G_N_ELEMENTS(modes); m++)
    fprintf(stderr, " %s %.2g (tolerance %g)%s", modes[m], worst[m], figure_tolerance(modes[m]),
            m + 1 < G_N_ELEMENTS(modes) ? "," : "\n");
  ck_assert_msg(lines->len == 0,
                "%u figures differ from " FIGURES_CSV " beyond tolerance or are new or missing; make figures-update "
                "records an intended change",
                lines->len);
}
END_TEST

/* A crafted set: one appliance result of mode @mode with two resources tied at the bottleneck. */
static Figures *crafted(const char *mode, const char *tput, const char *bottleneck, const char *util_a)
{
  Figures *f = figures_new();
  figures_add(f, "box", mode, "exit", g_strdup("0"));
  figures_add(f, "box", mode, "throughput_gbps", g_strdup(tput));
  figures_add(f, "box", mode, "bottleneck", g_strdup(bottleneck));
  figures_add(f, "box", mode, "util_frac[a]", g_strdup(util_a));
  figures_add(f, "box", mode, "util_frac[b]", g_strdup("1"));
  figures_add(f, "box", mode, "util_frac[idle]", g_strdup("0"));
  return f;
}

/* The comparison itself: a figure moved beyond its mode's tolerance fails with a line naming
 * scenario, mode, figure, expected, got and the relative difference; within it passes. */
START_TEST(test_figures_compare_catches)
{
  g_autoptr(Figures) want = crafted("bound", "368.0226040", "b", "1");
  /* 1e-7 relative: within bound's 1e-6 */
  g_autoptr(Figures) near = crafted("bound", "368.0226408", "b", "1");
  g_autoptr(GPtrArray) ok = figures_compare(want, near, NULL);
  ck_assert_uint_eq(ok->len, 0);
  /* 1e-5 relative: beyond it */
  g_autoptr(Figures) far = crafted("bound", "368.0262842", "b", "1");
  g_autoptr(GPtrArray) bad = figures_compare(want, far, NULL);
  ck_assert_uint_eq(bad->len, 1);
  const char *line = bad->pdata[0];
  ck_assert_msg(g_str_has_prefix(line, "box bound throughput_gbps: expected 368.0226040, got 368.0262842 (relative "
                                       "difference 1e-05, tolerance 1e-06)"),
                "%s", line);
  /* the same move passes run's wider tolerance: tolerances are per mode */
  g_autoptr(Figures) wantc = crafted("run", "368.0226040", "b", "1");
  g_autoptr(Figures) farc = crafted("run", "368.0262842", "b", "1");
  g_autoptr(GPtrArray) okc = figures_compare(wantc, farc, NULL);
  ck_assert_uint_eq(okc->len, 0);
  /* a utilisation of 0 that becomes 1e-17 passes (the absolute floor); 1e-3 does not */
  g_autoptr(Figures) tiny = crafted("bound", "368.0226040", "b", "1");
  g_hash_table_insert(tiny->values, tiny->keys->pdata[5], g_strdup("1e-17"));
  g_autoptr(GPtrArray) t = figures_compare(want, tiny, NULL);
  ck_assert_uint_eq(t->len, 0);
  g_hash_table_insert(tiny->values, tiny->keys->pdata[5], g_strdup("0.001"));
  g_autoptr(GPtrArray) t2 = figures_compare(want, tiny, NULL);
  ck_assert_uint_eq(t2->len, 1);
  ck_assert_str_eq(t2->pdata[0], "box bound util_frac[idle]: expected 0, got 0.001 (relative difference 1, tolerance 1e-06)");
}
END_TEST

/* Exact figures: another bottleneck passes only as a tie; a new or a missing figure fails. */
START_TEST(test_figures_compare_exact)
{
  g_autoptr(Figures) want = crafted("run", "100", "b", "1");
  /* a and b both at 1: a tie, either name passes */
  g_autoptr(Figures) tie = crafted("run", "100", "a", "0.9999999999");
  g_autoptr(GPtrArray) l1 = figures_compare(want, tie, NULL);
  ck_assert_uint_eq(l1->len, 0);
  /* a at 0.9 against b at 1: another bottleneck */
  g_autoptr(Figures) moved = crafted("run", "100", "a", "0.9");
  g_autoptr(GPtrArray) l2 = figures_compare(want, moved, NULL);
  ck_assert_uint_eq(l2->len, 2); /* the name, and util_frac[a] beyond run's 1e-3 */
  ck_assert_str_eq(l2->pdata[0], "box run bottleneck: expected b, got a");
  g_autoptr(Figures) exit2 = crafted("run", "100", "b", "1");
  g_hash_table_insert(exit2->values, exit2->keys->pdata[0], g_strdup("2"));
  g_autoptr(GPtrArray) l3 = figures_compare(want, exit2, NULL);
  ck_assert_uint_eq(l3->len, 1);
  ck_assert_str_eq(l3->pdata[0], "box run exit: expected 0, got 2");
  /* a new resource, and a figure gone */
  g_autoptr(Figures) more = crafted("run", "100", "b", "1");
  figures_add(more, "box", "run", "util_frac[c]", g_strdup("0.5"));
  g_autoptr(GPtrArray) l4 = figures_compare(want, more, NULL);
  ck_assert_uint_eq(l4->len, 1);
  ck_assert_str_eq(l4->pdata[0], "box run util_frac[c]: not in " FIGURES_CSV " (got 0.5)");
  g_autoptr(GPtrArray) l5 = figures_compare(more, want, NULL);
  ck_assert_uint_eq(l5->len, 1);
  ck_assert_str_eq(l5->pdata[0], "box run util_frac[c]: missing from the output (expected 0.5)");
}
END_TEST

/* The CSV round-trips: what figures_csv writes, figures_parse reads back equal, comments skipped. */
START_TEST(test_figures_csv_roundtrip)
{
  g_autoptr(Figures) f = crafted("capacity", "343.0616732", "nic0.port0", "0.93");
  figures_add(f, "reference/x", "capacity", "limiting_criterion", g_strdup("drops"));
  g_autofree char *csv = figures_csv(f);
  ck_assert_msg(strstr(csv, "#   capacity 1e-05: ") != NULL, "%s", csv);
  g_autoptr(Figures) back = figures_new();
  g_autofree char *why = NULL;
  ck_assert_msg(figures_parse(back, csv, &why), "%s", why);
  ck_assert_uint_eq(back->keys->len, f->keys->len);
  for (guint i = 0; i < f->keys->len; i++) {
    ck_assert_str_eq(back->keys->pdata[i], f->keys->pdata[i]);
    ck_assert_str_eq(g_hash_table_lookup(back->values, back->keys->pdata[i]), g_hash_table_lookup(f->values, f->keys->pdata[i]));
  }
  g_autoptr(Figures) junk = figures_new();
  g_autofree char *why2 = NULL;
  ck_assert(!figures_parse(junk, FIGURES_HEADER "\nbox,run,exit\n", &why2));
  ck_assert_str_eq(why2, "line 2: not 4 columns");
}
END_TEST

int main(void)
{
  Suite *s = suite_create("figures");
  TCase *tc = tcase_create("scenarios");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_figures_within_tolerance);
  suite_add_tcase(s, tc);
  TCase *cmp = tcase_create("compare");
  tcase_add_test(cmp, test_figures_compare_catches);
  tcase_add_test(cmp, test_figures_compare_exact);
  tcase_add_test(cmp, test_figures_csv_roundtrip);
  suite_add_tcase(s, cmp);
  return test_run_suite(s);
}
