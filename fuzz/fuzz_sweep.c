/* fuzz/fuzz_sweep.c — libFuzzer target: the sweep file loader (sim/sweep.c and
 * cli/sweep_appliance.c, sweep_appliance_load).
 *
 * Input: a sweep file, written to sweeps/fuzz-input.yaml of the private directory
 * (fuzz/fuzz_common.h), whose `scenario:` names one of the scenario copies there
 * (../scenarios/X.yaml); a `scenario:` that could leave the directory is not followed.  A
 * sweep that loads is walked as `ocasim sweep --dry-run` would list it (every point's key
 * values and seeds, the columns, the CSV header); nothing is run.
 */
#include "fuzz/fuzz_common.h"
#include "cli/sweep_appliance.h"
#include "sim/conf.h"
#include "sim/sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc G_GNUC_UNUSED, char ***argv G_GNUC_UNUSED)
{
  fuzz_quiet();
  (void)fuzz_private_dir();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (!fuzz_input_include_safe(data, size, "scenario", "sweeps")) return 0;
  g_autofree char *path = g_build_filename(fuzz_private_dir(), "sweeps", "fuzz-input.yaml", NULL);
  fuzz_write_file(path, data, size);
  g_autoptr(GError) e = NULL;
  g_autoptr(SweepAppliance) sa = sweep_appliance_load(path, NULL, -1, NULL, "fuzz", &e);
  if (!sa) return 0;
  const SimSweep *s = sweep_appliance_sweep(sa);
  guint np = sim_sweep_n_points(s), nk = sim_sweep_n_keys(s), nr = sim_sweep_replications(s);
  for (guint p = 0; p < np && p < 64; p++) {
    for (guint k = 0; k < nk; k++) (void)sim_sweep_value(s, p, k);
    for (guint r = 0; r < nr && r < 4; r++) (void)sim_sweep_seed(s, p, r);
  }
  for (guint k = 0; k < nk; k++) (void)sim_sweep_key(s, k);
  guint nc = 0;
  (void)sim_sweep_columns(s, &nc);
  g_autoptr(GString) hdr = g_string_new(NULL);
  sim_sweep_csv_header(s, hdr);
  sim_sweep_summary_csv_header(s, hdr);
  return 0;
}
