/* validate/labreport.c — host-platform.yaml and report-resources.md of `ocasim validate` (see
 * labreport.h). The model's utilisations are the appliance model's on host-profile.yaml with the
 * run's test overlaid (val_host_appliance), bound mode at the measured throughput
 * (bound_eval_rates): per resource kind the busiest resource, and the 80 % prediction interval of
 * the saturation throughput (models/modes/interval.h).
 */
#include "validate/labreport.h"

#include <errno.h>
#include <string.h>

#include "models/modes/bound.h"
#include "models/modes/interval.h"
#include "models/appliance/demand.h"
#include "validate/hostplat.h"
#include "serve/util.h"

/* The model's busiest utilisation per kind at gbps, DRAM GB/s, and the 80 % prediction interval of
 * its saturation throughput in iv (0, 0: none); FALSE when it cannot load. */
static gboolean model_util(const ValReport *r, const ValPredRow *row, double gbps, double util[RK_COUNT], double *dram_GBps,
                           double iv[2])
{
  Appliance a;
  g_autoptr(GError) e = NULL;
  memset(util, 0, sizeof(double) * RK_COUNT);
  *dram_GBps = 0;
  iv[0] = iv[1] = 0;
  if (!r->profile_yaml || !val_host_appliance(r->profile_yaml, &r->profile, &row->cfg, &a, &e)) return FALSE;
  g_autoptr(DemandModel) m = demand_build(&a, &e);
  if (!m) return FALSE;
  double sat = demand_saturation_Bps(m, NULL) * 8e-9;
  g_autoptr(BoundResult) br = bound_eval_rates(&a, m, MIN(gbps, sat));
  for (int i = 0; i < m->n_res && i < br->n_res; i++) {
    util[m->res[i].kind] = MAX(util[m->res[i].kind], br->util[i]);
    if (m->res[i].kind == RK_DRAM) *dram_GBps += br->util[i] * m->res[i].capacity * 1e-9;
  }
  AppIntervalSpec spec;
  interval_spec_default(&spec);
  spec.no_contributors = TRUE; /* only the interval is read */
  AppInterval out;
  if (interval_eval(&a, m->drive_share, 0, &spec, APP_INTERVAL_LEVEL, APP_INTERVAL_DRAWS, &out, NULL)) {
    iv[0] = out.throughput_gbps[0];
    iv[1] = out.throughput_gbps[1];
  }
  return TRUE;
}

char *val_lab_resources_md(const ValReport *r)
{
  GString *s = g_string_new("# Resources, run by run: measured beside the model\n\n");
  g_string_append(s, "Predicted: the appliance model on host-profile.yaml with the run's test (as report.md), and at the "
                     "measured throughput each resource kind's busiest utilisation. Measured: medians of the repetitions; "
                     "busy = CPU seconds per second over the cores each side could use; box counters from /proc and /sys "
                     "(loopback and page-cache traffic include other tenants'). Interval: the 80 % prediction interval of the "
                     "model's saturation throughput (models/modes/interval.h; -: none).\n\n");
  g_string_append(s, "| run | set | Gb/s meas | Gb/s pred | interval | err | busiest side meas | threads pred | CPU pred | "
                     "softirq share | lo GB/s | page-cache in GB/s | drive GB/s | DRAM GB/s meas | DRAM GB/s pred | kTLS TX sw / "
                     "device | CPU bound |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (guint i = 0; r->rows && i < r->rows->len; i++) {
    const ValPredRow *row = &g_array_index(r->rows, ValPredRow, i);
    const ValRunSample *m = &row->run.median;
    g_autofree char *label = val_run_spec_label(&row->run.spec);
    double util[RK_COUNT], dram_pred = 0, iv[2];
    gboolean have = model_util(r, row, m->gbps, util, &dram_pred, iv);
    char ivs[48];
    if (have && iv[1] > 0)
      g_snprintf(ivs, sizeof ivs, "%.2f-%.2f", iv[0], iv[1]);
    else
      g_strlcpy(ivs, "-", sizeof ivs);
    char dram[32];
    if (m->dram_GBps >= 0)
      g_snprintf(dram, sizeof dram, "%.2f", m->dram_GBps);
    else
      g_strlcpy(dram, "not measured", sizeof dram);
    g_string_append_printf(s, "| %s | %s | %.2f | %.2f | %s | %+.1f %% | %.0f %% | ", label,
                           row->run.spec.train ? "train" : "held out", m->gbps, row->app_gbps, ivs, 100 * row->err_rel,
                           100 * row->busiest);
    if (have)
      g_string_append_printf(s, "%.0f %% | %.0f %% | ", 100 * util[RK_THREADS], 100 * util[RK_CPU]);
    else
      g_string_append(s, "- | - | ");
    g_string_append_printf(s, "%.2f | %.2f | %.3f | %.3f | %s | ", m->softirq_share, m->lo_GBps, m->pgpgin_GBps,
                           m->disk_read_GBps, dram);
    if (have)
      g_string_append_printf(s, "%.2f | ", dram_pred);
    else
      g_string_append(s, "- | ");
    g_string_append_printf(s, "%.0f / %.0f | %s |\n", m->tls_tx_sw, m->tls_tx_device,
                           row->busiest >= VAL_CPU_BOUND ? "yes" : "no");
  }
  return g_string_free(s, FALSE);
}

gboolean val_lab_write_loopback(const ValReport *r, GError **error)
{
  g_autoptr(ValHostPlat) h = val_hostplat_read("/");
  gboolean fitted = r->rows && r->rows->len > 0 && r->profile.clock_hz > 0;
  g_autofree char *costs = fitted ? val_host_costs_yaml_here(&r->profile, r->probe) : NULL;
  double dram = val_host_memory_GBps(&r->profile, &r->mb, NULL);
  g_autofree char *plat = val_hostplat_yaml(h, r->probe ? r->probe->clock_hz : 0, dram, r->probe && r->probe->ktls.tx_ok, costs);
  g_autofree char *md = val_lab_resources_md(r);
  return val_write_text(r->out_dir, "host-platform.yaml", plat, error) &&
         val_write_text(r->out_dir, "report-resources.md", md, error);
}
