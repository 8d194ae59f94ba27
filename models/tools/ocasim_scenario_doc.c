/* models/tools/ocasim_scenario_doc.c — `make scenario-docs`: regenerates the key tables of
 * scenarios/README.md from the appliance schema (models/appliance_conf.c), between the lines
 * "<!-- schema:begin -->" and "<!-- schema:end -->", and the reference table (make reference)
 * between "<!-- reference:begin -->" and "<!-- reference:end -->". tests/test_appliance_conf.c
 * checks the file is up to date (except the leave-one-out table between "<!-- loo:begin -->"
 * and "<!-- loo:end -->", which takes a refit per result). */
#include <stdio.h>
#include <string.h>
#include "models/appliance_fit.h"

static char *replace_between(const char *text, const char *begin, const char *end, const char *body)
{
  const char *b = strstr(text, begin), *e = strstr(text, end);
  if (!b || !e || e < b) return NULL;
  b += strlen(begin);
  GString *out = g_string_new_len(text, b - text);
  g_string_append(out, body);
  g_string_append(out, e);
  return g_string_free(out, FALSE);
}

int main(int argc, char **argv)
{
  const char *path = argc > 1 ? argv[1] : "scenarios/README.md";
  const char *refdir = argc > 2 ? argv[2] : "scenarios/reference";
  g_autofree char *text = NULL;
  g_autoptr(GError) err = NULL;
  if (!g_file_get_contents(path, &text, NULL, &err)) { fprintf(stderr, "%s\n", err->message); return 1; }
  g_autoptr(GString) schema = g_string_new(NULL);
  appliance_conf_markdown(schema);
  g_autofree char *t1 = replace_between(text, "<!-- schema:begin -->\n", "<!-- schema:end -->", schema->str);
  g_autoptr(AppRefSet) s = app_refset_load(refdir, &err);
  if (!s) { fprintf(stderr, "%s\n", err->message); return 1; }
  Coeffs c;
  coeffs_defaults(&c);
  g_autoptr(GString) table = g_string_new(NULL);
  app_refset_table(s, &c, table, NULL);
  g_autofree char *t2 = t1 ? replace_between(t1, "<!-- reference:begin -->\n", "<!-- reference:end -->", table->str) : NULL;
  if (!t2) { fprintf(stderr, "%s: markers missing\n", path); return 1; }
  g_autoptr(GString) loo = g_string_new(NULL);
  if (!app_refset_loo_table(s, &c, loo, &err)) { fprintf(stderr, "%s\n", err->message); return 1; }
  g_autofree char *t3 = replace_between(t2, "<!-- loo:begin -->\n", "<!-- loo:end -->", loo->str);
  if (!t3) { fprintf(stderr, "%s: loo markers missing\n", path); return 1; }
  if (!g_file_set_contents(path, t3, -1, &err)) { fprintf(stderr, "%s\n", err->message); return 1; }
  return 0;
}
