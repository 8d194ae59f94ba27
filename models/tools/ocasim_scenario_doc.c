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

/* Replaces the block between @begin and @end of @text when @text has it; returns a new
 * string (the same text when the markers are absent), and counts replacements in *n. */
static char *maybe_replace(char *text, const char *begin, const char *end, const char *body, int *n)
{
  char *t = replace_between(text, begin, end, body);
  if (!t) return text;
  g_free(text);
  (*n)++;
  return t;
}

/* Usage: ocasim-scenario_doc [FILE...]  (default scenarios/README.md). Every FILE gets the
 * blocks whose markers it has; a FILE with none of them is an error. */
int main(int argc, char **argv)
{
  const char *refdir = "scenarios/reference";
  const char *def[] = { "scenarios/README.md" };
  const char *const *paths = argc > 1 ? (const char *const *)argv + 1 : def;
  int npaths = argc > 1 ? argc - 1 : 1;
  g_autoptr(GError) err = NULL;
  g_autoptr(GString) schema = g_string_new(NULL);
  appliance_conf_markdown(schema);
  g_autoptr(AppRefSet) s = app_refset_load(refdir, &err);
  if (!s) {
    fprintf(stderr, "%s\n", err->message);
    return 1;
  }
  Coeffs c;
  coeffs_defaults(&c);
  g_autoptr(GString) table = g_string_new(NULL);
  app_refset_table(s, &c, table, NULL);
  g_autoptr(GString) loo = NULL;
  for (int p = 0; p < npaths; p++) {
    char *text = NULL;
    if (!g_file_get_contents(paths[p], &text, NULL, &err)) {
      fprintf(stderr, "%s\n", err->message);
      return 1;
    }
    int n = 0;
    text = maybe_replace(text, "<!-- schema:begin -->\n", "<!-- schema:end -->", schema->str, &n);
    text = maybe_replace(text, "<!-- reference:begin -->\n", "<!-- reference:end -->", table->str, &n);
    if (strstr(text, "<!-- loo:begin -->\n")) {
      if (!loo) { /* a refit per result: only when some file shows it */
        loo = g_string_new(NULL);
        if (!app_refset_loo_table(s, &c, loo, &err)) {
          fprintf(stderr, "%s\n", err->message);
          g_free(text);
          return 1;
        }
      }
      text = maybe_replace(text, "<!-- loo:begin -->\n", "<!-- loo:end -->", loo->str, &n);
    }
    gboolean ok = n > 0 && g_file_set_contents(paths[p], text, -1, &err);
    g_free(text);
    if (!ok) {
      fprintf(stderr, "%s: %s\n", paths[p], err ? err->message : "no generated block markers");
      return 1;
    }
  }
  return 0;
}
