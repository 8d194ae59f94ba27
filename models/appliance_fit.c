/* appliance_fit.c — reference-set evaluation and the joint fit of the shared coefficients
 * (see appliance_fit.h). */
#include "models/appliance_fit.h"
#include "models/appliance_des.h"
#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit_nlinear.h>
#include "sim/gsl_autoptr.h"
#include <math.h>
#include <string.h>

typedef struct {
  char *file;
  Appliance *a;
  AppScenarioInfo info;
  double *shares;
} RefItem;

/* Quoted STREAM bandwidths (published.yaml platforms): the whole machine, GB/s. */
typedef struct {
  const char *platform; /* file under scenarios/platforms */
  int nps;
  double GBps, tol;
  const char *src;
} StreamRef;
static const StreamRef STREAM_REFS[] = {
  { "rome-7502p.yaml", 1, 150, 0.10, "rome_400g memory.stream_GBps.NPS1 (euro2021)" },
  { "rome-7502p.yaml", 4, 175, 0.10, "rome_400g memory.stream_GBps.NPS4 (euro2021)" },
  { "skx-4216-2s.yaml", 1, 180, 0.10, "skx_2s_200g_2019 memory.bw_GBps 180 = 2 x 90 (euro2019_numa)" },
  { "epyc-7551-1s.yaml", 4, 135, 0.15, "epyc_1s_200g_2019 memory.bw_GBps 120-150 (euro2019_numa), midpoint" },
};

struct AppRefSet {
  GPtrArray *items; /* RefItem* */
  Appliance *stream_a[G_N_ELEMENTS(STREAM_REFS)];
};

static void item_free(gpointer p)
{
  RefItem *it = p;
  g_free(it->file);
  g_free(it->a);
  app_scenario_info_clear(&it->info);
  g_free(it->shares);
  g_free(it);
}

AppRefSet *app_refset_load(const char *dir, GError **error)
{
  g_autoptr(GDir) d = g_dir_open(dir, 0, error);
  if (!d) return NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
  const char *n;
  while ((n = g_dir_read_name(d)))
    if (g_str_has_suffix(n, ".yaml")) g_ptr_array_add(names, g_strdup(n));
  for (guint i = 0; i + 1 < names->len; i++)
    for (guint j = i + 1; j < names->len; j++)
      if (strcmp(names->pdata[i], names->pdata[j]) > 0) {
        gpointer t = names->pdata[i];
        names->pdata[i] = names->pdata[j];
        names->pdata[j] = t;
      }
  AppRefSet *s = g_new0(AppRefSet, 1);
  s->items = g_ptr_array_new_with_free_func(item_free);
  for (guint i = 0; i < names->len; i++) {
    RefItem *it = g_new0(RefItem, 1);
    it->file = g_build_filename(dir, names->pdata[i], NULL);
    it->a = g_new0(Appliance, 1);
    if (!appliance_load_file(it->file, NULL, it->a, &it->info, error)) {
      item_free(it);
      app_refset_free(s);
      return NULL;
    }
    if (!it->info.ref.present) {
      item_free(it);
      continue;
    }
    int D = it->a->n_drives, dn[APP_MAX_DRIVES];
    for (int k = 0; k < D; k++) dn[k] = topo_node_of(&it->a->topo, it->a->drives[k].pos);
    it->shares = g_new(double, D);
    workload_drive_shares(&it->a->wl, D, dn, topo_nodes(&it->a->topo), it->a->seed, it->shares);
    g_ptr_array_add(s->items, it);
  }
  for (guint k = 0; k < G_N_ELEMENTS(STREAM_REFS); k++) {
    g_autofree char *pdir = g_build_filename(dir, "..", "platforms", STREAM_REFS[k].platform, NULL);
    g_autofree char *nps = g_strdup_printf("topology.nps=%d", STREAM_REFS[k].nps);
    const char *sets[] = { "kind=appliance", nps, "topology.port_domains=card", "software.data_path=sendfile", NULL };
    s->stream_a[k] = g_new0(Appliance, 1);
    if (!appliance_load_file(pdir, sets, s->stream_a[k], NULL, error)) {
      app_refset_free(s);
      return NULL;
    }
  }
  return s;
}

void app_refset_free(AppRefSet *s)
{
  if (!s) return;
  g_ptr_array_unref(s->items);
  for (guint k = 0; k < G_N_ELEMENTS(STREAM_REFS); k++) g_free(s->stream_a[k]);
  g_free(s);
}

int app_refset_size(const AppRefSet *s)
{
  return (int)s->items->len;
}

void app_ref_row_clear(AppRefRow *row)
{
  g_free(row->file);
  g_free(row->id);
  g_free(row->pub_bottleneck);
  memset(row, 0, sizeof *row);
}

static gboolean kind_expected(const AppReference *r, ResKind k)
{
  for (int i = 0; i < r->n_kinds; i++)
    if (r->kinds[i] == k) return TRUE;
  return FALSE;
}

/* Resource i has a kind the reference expects (and, for a "remote_stall" cause, a CPU whose
 * demand is at least a quarter remote-access stalls). */
static gboolean kind_matches(const AppReference *ref, const DemandModel *m, int i)
{
  if (!kind_expected(ref, m->res[i].kind)) return FALSE;
  if (ref->cause && strcmp(ref->cause, "remote_stall") == 0 && m->res[i].kind == RK_CPU)
    return m->total[i] > 0 && m->res[i].remote_stall / m->total[i] >= 0.25;
  return TRUE;
}

/* Evaluates item with coefficient set c; optionally returns the throughput at which the first
 * resource of an expected kind would saturate (for the mismatch residual). */
static gboolean eval_item(RefItem *it, const Coeffs *c, AppRefRow *row, double *x_expected, GError **error)
{
  Appliance *a = g_new(Appliance, 1);
  *a = *it->a;
  if (c) a->coef = *c;
  g_autoptr(DemandModel) m = demand_build_shares(a, it->shares, error);
  if (!m) {
    g_free(a);
    return FALSE;
  }
  g_autoptr(BoundResult) r = bound_eval(a, m, a->wl.offered_gbps);
  const AppReference *ref = &it->info.ref;
  memset(row, 0, sizeof *row);
  row->file = g_strdup(it->file);
  row->id = g_strdup(ref->id);
  row->model_gbps = r->throughput_Bps * 8e-9;
  row->pub_gbps = ref->gbps;
  row->err_pct = 100.0 * (row->model_gbps / ref->gbps - 1.0);
  row->model_cpu = r->cpu_util * 100;
  row->pub_cpu = ref->cpu_pct;
  int bn = r->bottleneck;
  g_strlcpy(row->bottleneck, bn >= 0 ? m->res[bn].name : "-", sizeof row->bottleneck);
  row->kind = bn >= 0 ? demand_kind_name(m->res[bn].kind) : "-";
  row->pub_bottleneck = g_strdup(ref->bottleneck);
  row->stall_share = (bn >= 0 && m->res[bn].kind == RK_CPU && m->total[bn] > 0) ? m->res[bn].remote_stall / m->total[bn] : 0;
  /* fabric utilisation: all fabric load over all fabric capacity */
  double fl = 0, fc = 0;
  int hot = -1;
  double hotv = -1;
  for (int i = 0; i < m->n_res; i++) {
    if (m->res[i].kind == RK_FABRIC) {
      fl += r->throughput_Bps * m->total[i];
      fc += m->res[i].capacity;
    }
    if (m->res[i].kind == RK_NIC_PORT) {
      double v = r->throughput_Bps * m->total[i] * 8e-9;
      if (v > hotv + 1e-9) {
        hotv = v;
        hot = i;
      }
    }
  }
  row->model_fab_util = fc > 0 ? 100 * fl / fc : 0;
  double dram = 0;
  for (int i = 0; i < m->n_res; i++)
    if (m->res[i].kind == RK_DRAM) dram += r->throughput_Bps * m->total[i] * 1e-9;
  row->model_dram_GBps = dram;
  row->pub_dram_GBps = ref->dram_GBps;
  row->pub_fab_util = ref->fabric_util_pct;
  row->hot_gbps = hotv;
  double cs = 0;
  int cn = 0;
  for (int i = 0; i < m->n_res; i++)
    if (m->res[i].kind == RK_NIC_PORT && hot >= 0 && m->res[i].node != m->res[hot].node) {
      cs += r->throughput_Bps * m->total[i] * 8e-9;
      cn++;
    }
  row->cold_gbps = cn ? cs / cn : -1;
  row->pub_hot = ref->hot_port_gbps;
  row->pub_cold = ref->cold_port_gbps;
  row->gbps_ok = fabs(row->err_pct) <= 10.0;
  row->cpu_ok = ref->cpu_pct < 0 || fabs(row->model_cpu - ref->cpu_pct) <= 10.0;
  row->kind_ok = TRUE;
  if (ref->n_kinds > 0) {
    /* the named bottleneck (demand.h: DRAM when its stalls fill the CPU), or else one of its
     * co-bottlenecks (demand_co_bottlenecks at the served load, as the report lists them), has
     * an expected kind */
    row->kind_ok = bn >= 0 && kind_matches(ref, m, bn);
    g_autofree int *co = g_new(int, MAX(m->n_res, 1));
    int nco = row->kind_ok ? 0 : demand_co_bottlenecks(m, r->util, bn, co);
    for (int k = 0; k < nco && !row->kind_ok; k++) {
      if (!kind_matches(ref, m, co[k])) continue;
      row->kind_ok = TRUE;
      g_strlcpy(row->cobottleneck, m->res[co[k]].name, sizeof row->cobottleneck);
    }
  }
  row->ok = row->gbps_ok && row->cpu_ok && row->kind_ok;
  row->known_deviation = ref->known_deviation != NULL;
  row->within_ci = row->kind_ok && fabs(row->err_pct) <= ref->tolerance_pct &&
                   (ref->cpu_pct < 0 || fabs(row->model_cpu - ref->cpu_pct) <= ref->cpu_tolerance_pts);
  if (x_expected) {
    double xe = G_MAXDOUBLE;
    for (int i = 0; i < m->n_res; i++)
      if (m->total[i] > 0 && kind_expected(ref, m->res[i].kind)) xe = MIN(xe, m->res[i].limit * m->res[i].capacity / m->total[i]);
    gboolean named = bn >= 0 && kind_matches(ref, m, bn);
    *x_expected = ref->n_kinds > 0 && !named ? xe * 8e-9 : row->model_gbps;
  }
  g_free(a);
  return TRUE;
}

gboolean app_refset_eval(AppRefSet *s, int i, const Coeffs *c, AppRefRow *row, GError **error)
{
  g_return_val_if_fail(i >= 0 && i < (int)s->items->len, FALSE);
  return eval_item(s->items->pdata[i], c, row, NULL, error);
}

/* ---- fit ------------------------------------------------------------------------------------ */

#define N_RES_PER_ITEM 6

typedef struct {
  AppRefSet *s;
  Coeffs base;
  int skip;
  double x0[COEFFS_N_FITTED];
} FitCtx;

static gboolean is_eff(int i)
{
  return i <= 2;
} /* dram_eff, port_eff, fabric_eff in (0, 1) */

static void x_to_coeffs(const gsl_vector *x, const Coeffs *base, Coeffs *c)
{
  *c = *base;
  for (int i = 0; i < COEFFS_N_FITTED; i++) {
    double v = gsl_vector_get(x, (size_t)i);
    *coeffs_fitted_ptr(c, i) = is_eff(i) ? 1.0 / (1.0 + exp(-v)) : exp(v);
  }
}

/* Weak priors keep a coefficient that no result constrains (e.g. when its only witness is left
 * out) at its starting value: one residual per coefficient, (x - x0) / PRIOR_SIGMA in the fit
 * space (log or logit), i.e. a factor of e^2 away costs as much as one result off by 10 %. */
#define PRIOR_SIGMA 2.0

static int n_residuals(const AppRefSet *s)
{
  return (int)s->items->len * N_RES_PER_ITEM + (int)G_N_ELEMENTS(STREAM_REFS) + COEFFS_N_FITTED;
}

static int residuals(const gsl_vector *x, void *params, gsl_vector *f)
{
  FitCtx *ctx = params;
  Coeffs c;
  x_to_coeffs(x, &ctx->base, &c);
  gsl_vector_set_zero(f);
  for (guint i = 0; i < ctx->s->items->len; i++) {
    if ((int)i == ctx->skip) continue;
    RefItem *it = ctx->s->items->pdata[i];
    AppRefRow row;
    double xe;
    if (!eval_item(it, &c, &row, &xe, NULL)) return GSL_EDOM;
    size_t k = i * N_RES_PER_ITEM;
    gsl_vector_set(f, k + 0, log(row.model_gbps / row.pub_gbps) / 0.10);
    if (row.pub_cpu >= 0) gsl_vector_set(f, k + 1, (row.model_cpu - row.pub_cpu) / 10.0);
    if (row.pub_fab_util >= 0) gsl_vector_set(f, k + 2, (row.model_fab_util - row.pub_fab_util) / 10.0);
    if (xe < G_MAXDOUBLE / 2) gsl_vector_set(f, k + 3, MAX(0.0, xe / row.model_gbps - 1.0 - 0.5 * DEMAND_COBOTTLENECK) / 0.05);
    if (row.pub_hot > 0) gsl_vector_set(f, k + 4, (row.hot_gbps / row.pub_hot - 1.0) / 0.10);
    if (row.pub_cold > 0 && row.cold_gbps > 0) gsl_vector_set(f, k + 5, (row.cold_gbps / row.pub_cold - 1.0) / 0.10);
    app_ref_row_clear(&row);
  }
  size_t k0 = ctx->s->items->len * N_RES_PER_ITEM;
  for (guint k = 0; k < G_N_ELEMENTS(STREAM_REFS); k++) {
    const Appliance *a = ctx->s->stream_a[k];
    double st = mem_stream_GBps(&a->mem, &a->topo, c.dram_eff, c.dram_turnaround);
    gsl_vector_set(f, k0 + k, (st / STREAM_REFS[k].GBps - 1.0) / STREAM_REFS[k].tol);
  }
  k0 += G_N_ELEMENTS(STREAM_REFS);
  for (int i = 0; i < COEFFS_N_FITTED; i++)
    gsl_vector_set(f, k0 + (size_t)i, (gsl_vector_get(x, (size_t)i) - ctx->x0[i]) / PRIOR_SIGMA);
  return GSL_SUCCESS;
}

gboolean app_refset_fit(AppRefSet *s, Coeffs *c, int skip, double *chisq, GError **error)
{
  const size_t p = COEFFS_N_FITTED, n = (size_t)n_residuals(s);
  FitCtx ctx = { .s = s, .base = *c, .skip = skip };
  gsl_multifit_nlinear_fdf fdf = { .f = residuals, .df = NULL, .fvv = NULL, .n = n, .p = p, .params = &ctx };
  gsl_multifit_nlinear_parameters par = gsl_multifit_nlinear_default_parameters();
  par.h_df = 1e-4; /* the model is piecewise linear (min over resources): take wide steps */
  g_autoptr(gsl_multifit_nlinear_workspace) w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &par, n, p);
  g_autoptr(gsl_vector) x = gsl_vector_alloc(p);
  for (size_t i = 0; i < p; i++) {
    double v = *coeffs_fitted_ptr(c, (int)i);
    gsl_vector_set(x, i, is_eff((int)i) ? log(v / (1.0 - v)) : log(v));
    ctx.x0[i] = gsl_vector_get(x, i);
  }
  int info = 0;
  int st = gsl_multifit_nlinear_init(x, &fdf, w);
  if (st == GSL_SUCCESS) st = gsl_multifit_nlinear_driver(200, 1e-8, 1e-8, 1e-8, NULL, NULL, &info, w);
  gboolean ok = st == GSL_SUCCESS || st == GSL_EMAXITER;
  if (ok) {
    x_to_coeffs(w->x, &ctx.base, c);
    double chi;
    gsl_blas_ddot(w->f, w->f, &chi);
    if (chisq) *chisq = chi;
  } else {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "fit failed: %s", gsl_strerror(st));
  }
  return ok;
}

gboolean app_refset_loo_table(AppRefSet *s, const Coeffs *fitted, GString *out, GError **error)
{
  Coeffs c0;
  coeffs_prior(&c0);
  g_string_append_printf(out, "| %-28s | %9s | %9s | %7s | %8s | %9s |\n", "result", "in-fit", "left-out", "publ.", "error",
                         "CPU err");
  g_string_append(out, "|------------------------------|----------:|----------:|--------:|---------:|----------:|\n");
  for (int i = 0; i < app_refset_size(s); i++) {
    Coeffs ci = c0;
    double chi_i;
    AppRefRow in_row, out_row;
    if (!app_refset_eval(s, i, fitted, &in_row, error)) return FALSE;
    if (!app_refset_fit(s, &ci, i, &chi_i, error) || !app_refset_eval(s, i, &ci, &out_row, error)) {
      app_ref_row_clear(&in_row);
      return FALSE;
    }
    char cpu[16] = "-";
    if (out_row.pub_cpu >= 0) g_snprintf(cpu, sizeof cpu, "%+.1f pt", out_row.model_cpu - out_row.pub_cpu);
    g_string_append_printf(out, "| %-28s | %9.1f | %9.1f | %7.1f | %+7.1f%% | %9s |\n", out_row.id, in_row.model_gbps,
                           out_row.model_gbps, out_row.pub_gbps, out_row.err_pct, cpu);
    app_ref_row_clear(&in_row);
    app_ref_row_clear(&out_row);
  }
  return TRUE;
}

int app_refset_des_table(AppRefSet *s, GString *out)
{
  int fails = 0;
  g_string_append_printf(out, "| %-28s | %7s | %7s | %7s | %7s | %6s | %-28s |\n", "result", "bound", "DES", "publ.", "DES err",
                         "CPU", "DES bottleneck");
  g_string_append(
      out, "|------------------------------|--------:|--------:|--------:|--------:|-------:|------------------------------|\n");
  for (guint i = 0; i < s->items->len; i++) {
    RefItem *it = s->items->pdata[i];
    g_autoptr(DemandModel) m = demand_build_shares(it->a, it->shares, NULL);
    if (!m) {
      fails++;
      continue;
    }
    double xb = demand_saturation_Bps(m, NULL) * 8e-9;
    if (it->a->wl.offered_gbps > 0) xb = MIN(xb, it->a->wl.offered_gbps);
    g_autoptr(AppReport) r = appliance_des_run(it->a, &it->info, m, NULL, NULL);
    if (!r) {
      fails++;
      continue;
    }
    double err = 100.0 * (r->throughput_gbps / it->info.ref.gbps - 1.0);
    gboolean ok = fabs(err) <= (it->info.ref.known_deviation ? it->info.ref.tolerance_pct : 10.0);
    if (!ok) fails++;
    g_string_append_printf(out, "| %-28s | %7.1f | %7.1f | %7.1f | %+6.1f%% | %4.0f %% | %-28s |%s\n", it->info.ref.id, xb,
                           r->throughput_gbps, it->info.ref.gbps, err, r->cpu_util_pct,
                           r->bottleneck >= 0 ? r->res[r->bottleneck].name : "-", ok ? "" : " FAIL");
  }
  return fails;
}

int app_refset_table(AppRefSet *s, const Coeffs *c, GString *out, int *ci_fails)
{
  int fails = 0;
  if (ci_fails) *ci_fails = 0;
  g_string_append_printf(out, "| %-28s | %7s | %7s | %6s | %6s | %6s | %-36s | %-40s | %-17s |\n", "result", "model", "publ.",
                         "error", "CPU", "publ.", "model bottleneck", "published bottleneck", "");
  g_string_append(
      out,
      "|------------------------------|--------:|--------:|-------:|-------:|-------:|--------------------------------------|------------------------------------------|-------------------|\n");
  for (guint i = 0; i < s->items->len; i++) {
    AppRefRow row;
    g_autoptr(GError) err = NULL;
    if (!eval_item(s->items->pdata[i], c, &row, NULL, &err)) {
      g_string_append_printf(out, "| %s | error: %s |\n", ((RefItem *)s->items->pdata[i])->file, err->message);
      fails++;
      if (ci_fails) (*ci_fails)++;
      continue;
    }
    char cpu_pub[16] = "-";
    if (row.pub_cpu >= 0) g_snprintf(cpu_pub, sizeof cpu_pub, "%.0f %%", row.pub_cpu);
    char bn[80];
    if (row.cobottleneck[0])
      g_snprintf(bn, sizeof bn, "%s (%s) + %s", row.bottleneck, row.kind, row.cobottleneck);
    else
      g_snprintf(bn, sizeof bn, "%s (%s)", row.bottleneck, row.kind);
    g_string_append_printf(out, "| %-28s | %7.1f | %7.1f | %+5.1f%% | %4.0f %% | %6s | %-36s | %-40.40s | %-17s |\n", row.id,
                           row.model_gbps, row.pub_gbps, row.err_pct, row.model_cpu, cpu_pub, bn,
                           row.pub_bottleneck ? row.pub_bottleneck : "-",
                           row.ok ? "OK" : (row.known_deviation && row.within_ci ? "FAIL (documented)" : "FAIL"));
    if (row.pub_hot > 0)
      g_string_append_printf(out, "| %-28s | %7.1f | %7.1f |        |        |        | %-36s | %-40s |                   |\n",
                             "  hot-node NIC port, Gb/s", row.hot_gbps, row.pub_hot, "", "");
    if (row.pub_cold > 0)
      g_string_append_printf(out, "| %-28s | %7.1f | %7.1f |        |        |        | %-36s | %-40s |                   |\n",
                             "  other-node NIC port, Gb/s", row.cold_gbps, row.pub_cold, "", "");
    if (row.pub_dram_GBps >= 0)
      g_string_append_printf(out, "| %-28s | %7.1f | %7.1f |        |        |        | %-36s | %-40s |                   |\n",
                             "  DRAM traffic, GB/s", row.model_dram_GBps, row.pub_dram_GBps, "", "");
    if (row.pub_fab_util >= 0)
      g_string_append_printf(out, "| %-28s | %7.1f | %7.1f |        |        |        | %-36s | %-40s |                   |\n",
                             "  fabric utilisation, %", row.model_fab_util, row.pub_fab_util, "", "");
    if (!row.ok) fails++;
    if (!row.within_ci && ci_fails) (*ci_fails)++;
    app_ref_row_clear(&row);
  }
  for (guint i = 0; i < s->items->len; i++) {
    const RefItem *it = s->items->pdata[i];
    if (it->info.ref.known_deviation)
      g_string_append_printf(out, "\nFAIL (documented deviation, outside the issue's 10 %% / 10-point rule), %s: %s\n",
                             it->info.ref.id, it->info.ref.known_deviation);
  }
  return fails;
}
