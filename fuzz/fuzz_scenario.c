/* fuzz/fuzz_scenario.c — libFuzzer target: `ocasim check` (and `bound`) on bytes.
 *
 * The input is a scenario file: written to scenarios/fuzz-input.yaml of the private directory
 * (fuzz/fuzz_common.h), loaded with its `platform:` include (no search path, an include that
 * could leave the directory is not followed), then bound by its `kind:` as `ocasim check`
 * does: an appliance through appliance_from_conf() and demand_build(), whose bound is also
 * evaluated (bound_eval, closed form), a queueing network through qnet_spec_from_conf().
 * Nothing is simulated.  Every failure must be a GError; a crash, a sanitizer report, a
 * GLib critical or a leak is a finding.
 */
#include <string.h>
#include "fuzz/fuzz_common.h"
#include "models/modes/bound.h"
#include "models/appliance/loader.h"
#include "models/appliance/demand.h"
#include "models/qnet/qnet.h"
#include "models/qnet/qnet_conf.h"
#include "sim/conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc G_GNUC_UNUSED, char ***argv G_GNUC_UNUSED)
{
  fuzz_quiet();
  (void)fuzz_private_dir();
  return 0;
}

static void check_appliance(const SimConfNode *root)
{
  Appliance *a = g_new0(Appliance, 1);
  AppScenarioInfo info = { 0 };
  g_autoptr(GError) e = NULL;
  if (appliance_from_conf(root, a, &info, &e)) {
    DemandModel *m = demand_build(a, &e);
    if (m) {
      BoundResult *r = bound_eval(a, m, a->wl.offered_gbps);
      bound_result_free(r);
      demand_free(m);
    }
  }
  app_scenario_info_clear(&info);
  g_free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (!fuzz_input_include_safe(data, size, "platform", "scenarios")) return 0;
  g_autofree char *path = g_build_filename(fuzz_private_dir(), "scenarios", "fuzz-input.yaml", NULL);
  fuzz_write_file(path, data, size);
  g_autoptr(GError) e = NULL;
  g_autoptr(SimConfDoc) doc = sim_conf_load_with_include_search(path, "platform", NULL, &e);
  if (!doc) return 0;
  const SimConfNode *root = sim_conf_doc_root(doc);
  const SimConfNode *kind = sim_conf_node_get(root, "kind");
  const char *k = kind && sim_conf_node_kind(kind) == SIM_CONF_NODE_SCALAR ? sim_conf_node_text(kind) : "";
  if (!strcmp(k, "appliance")) {
    check_appliance(root);
  } else if (!strcmp(k, "queueing_network")) {
    QnetSpec *spec = qnet_spec_from_conf(root, &e);
    if (spec) qnet_spec_free(spec);
  }
  return 0;
}
