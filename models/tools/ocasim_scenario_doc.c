/* models/tools/ocasim_scenario_doc.c — `make scenario-docs`: regenerates the key tables of
 * scenarios/README.md from the appliance schema (models/appliance_conf.c), between the lines
 * "<!-- schema:begin -->" and "<!-- schema:end -->". tests/test_appliance_conf.c checks the
 * file is up to date. */
#include <stdio.h>
#include <string.h>
#include "models/appliance_conf.h"

int main(int argc, char **argv)
{
  const char *path = argc > 1 ? argv[1] : "scenarios/README.md";
  g_autofree char *text = NULL;
  g_autoptr(GError) err = NULL;
  if (!g_file_get_contents(path, &text, NULL, &err)) { fprintf(stderr, "%s\n", err->message); return 1; }
  const char *b = strstr(text, "<!-- schema:begin -->\n"), *e = strstr(text, "<!-- schema:end -->");
  if (!b || !e || e < b) { fprintf(stderr, "%s: schema markers missing\n", path); return 1; }
  b += strlen("<!-- schema:begin -->\n");
  g_autoptr(GString) out = g_string_new_len(text, b - text);
  appliance_conf_markdown(out);
  g_string_append(out, e);
  if (!g_file_set_contents(path, out->str, (gssize)out->len, &err)) { fprintf(stderr, "%s\n", err->message); return 1; }
  return 0;
}
