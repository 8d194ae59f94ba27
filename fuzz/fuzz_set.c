/* fuzz/fuzz_set.c — libFuzzer target: the `--set` override parser (sim_conf_apply_override).
 *
 * Input: one byte choosing a base scenario among those of scenarios/ (loaded once, with their
 * platforms, from the private copy of fuzz/fuzz_common.h), then up to 8 lines, each one
 * `key.path=value` assignment.  Each goes through sim_conf_apply_override() on a copy of the
 * base document (sim_conf_doc_copy), as `ocasim --set` does.  The overrides are listed back
 * (sim_conf_overrides, every node as flow text) and must apply again to a fresh copy and give
 * the same tree (sim_conf_node_flow_text of the roots), or the harness aborts: what an output
 * row records reproduces the run.  The result is then bound by its kind as `ocasim check` does
 * (appliance and demand model, or queueing network).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz/fuzz_common.h"
#include "models/appliance/loader.h"
#include "models/appliance/demand.h"
#include "models/qnet/qnet.h"
#include "models/qnet/qnet_conf.h"
#include "sim/conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static GPtrArray *bases; /* harness-only state: the base documents, loaded once */

static gint by_name(gconstpointer a, gconstpointer b)
{
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int LLVMFuzzerInitialize(int *argc G_GNUC_UNUSED, char ***argv G_GNUC_UNUSED)
{
  fuzz_quiet();
  bases = g_ptr_array_new();
  g_autofree char *dir = g_build_filename(fuzz_private_dir(), "scenarios", NULL);
  GDir *d = g_dir_open(dir, 0, NULL);
  if (!d) abort();
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
  const char *name;
  while ((name = g_dir_read_name(d)))
    if (g_str_has_suffix(name, ".yaml")) g_ptr_array_add(names, g_strdup(name));
  g_dir_close(d);
  g_ptr_array_sort(names, by_name); /* a stable order: the first byte means the same each run */
  for (guint i = 0; i < names->len; i++) {
    g_autofree char *p = g_build_filename(dir, (const char *)g_ptr_array_index(names, i), NULL);
    SimConfDoc *doc = sim_conf_load_with_include_search(p, "platform", NULL, NULL);
    if (doc) g_ptr_array_add(bases, doc);
  }
  if (!bases->len) abort();
  return 0;
}

static void check_root(const SimConfNode *root)
{
  const SimConfNode *kind = sim_conf_node_get(root, "kind");
  const char *k = kind && sim_conf_node_kind(kind) == SIM_CONF_NODE_SCALAR ? sim_conf_node_text(kind) : "";
  g_autoptr(GError) e = NULL;
  if (!strcmp(k, "appliance")) {
    Appliance *a = g_new0(Appliance, 1);
    AppScenarioInfo info = { 0 };
    if (appliance_from_conf(root, a, &info, &e)) demand_free(demand_build(a, &e));
    app_scenario_info_clear(&info);
    g_free(a);
  } else if (!strcmp(k, "queueing_network")) {
    QnetSpec *spec = qnet_spec_from_conf(root, &e);
    if (spec) qnet_spec_free(spec);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size < 1) return 0;
  g_autoptr(SimConfDoc) doc = sim_conf_doc_copy(g_ptr_array_index(bases, data[0] % bases->len));
  g_autofree char *text = g_strndup((const char *)data + 1, size - 1);
  g_auto(GStrv) lines = g_strsplit(text, "\n", 9);
  for (guint i = 0; lines[i] && i < 8; i++) {
    g_autoptr(GError) e = NULL;
    if (!sim_conf_apply_override(doc, lines[i], &e)) return 0;
  }
  /* the listing reads back: applied to a fresh copy it gives the same tree */
  const SimConfDoc *base = g_ptr_array_index(bases, data[0] % bases->len);
  g_auto(GStrv) listed = sim_conf_overrides(sim_conf_doc_root(doc));
  g_autoptr(SimConfDoc) again = sim_conf_doc_copy(base);
  for (char **o = listed; *o; o++) {
    g_autoptr(GError) e = NULL;
    if (!sim_conf_apply_override(again, *o, &e)) {
      fprintf(stderr, "fuzz_set: the listed override '%s' does not apply again: %s\n", *o, e->message);
      abort();
    }
  }
  g_autofree char *t1 = sim_conf_node_flow_text(sim_conf_doc_root(doc));
  g_autofree char *t2 = sim_conf_node_flow_text(sim_conf_doc_root(again));
  if (strcmp(t1, t2)) {
    fprintf(stderr, "fuzz_set: the listed overrides give another tree:\n%s\n%s\n", t1, t2);
    abort();
  }
  check_root(sim_conf_doc_root(doc));
  return 0;
}
