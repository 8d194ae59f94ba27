/* modes/interval.c — prediction intervals by sampling the spreads through the bound (see
 * modes/interval.h). */
#include "models/modes/interval.h"
#include "models/appliance/model_error.h"
#include "sim/gsl_autoptr.h"
#include "sim/rng.h"
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <string.h>

/* The 97.5 % point of the standard normal: a range read as the central 95 % spans +-Z95 sigma. */
#define Z95 1.959963984540054

/* A spread is "none" below this (ln units): no dimension is drawn for it. */
#define SIGMA_NONE 1e-12

/* What would pin each shared coefficient (fitted and fixed), by name. */
static const struct {
  const char *name, *pin_by;
} COEF_PIN[] = {
  { "dram_eff", "STREAM or Intel MLC --peak_injection_bandwidth on the host" },
  { "port_eff", "the NIC's port counters at line rate (ethtool -S tx_bytes against the line rate)" },
  { "page_cycles", "`ocasim validate` on the host (costs.page_cycles)" },
  { "k_dram", "`ocasim validate` on the host, or memory-stall counters (Intel VTune / AMD uProf) under load" },
  { "copy_cpb", "`ocasim validate` on the host (costs.copy_cpb)" },
  { "k_remote", "remote-memory stall counters (AMD uProf / Intel PCM) on an unsiloed run" },
  { "fabric_eff", "AMD uProf xGMI / Intel PCM UPI bandwidth counters at a known payload rate" },
  { "mapped_page_cycles", "`ocasim validate` on a host running mapped mbufs" },
  { "dram_turnaround", "Intel MLC --peak_injection_bandwidth read/write mixes on the host (memory.rw_turnaround)" },
  { "dram_turnaround_ddr5", "Intel MLC --peak_injection_bandwidth read/write mixes on the host (memory.rw_turnaround)" },
  { "meta_pkt_bytes", "DRAM bandwidth counters (Intel PCM / AMD uProf) at a known Gb/s" },
  { "meta_conn_bytes", "DRAM bandwidth counters (Intel PCM / AMD uProf) at a known Gb/s and ACK rate" },
  { "pkt_cycles", "`ocasim validate` on the host (costs.segment_cycles)" },
  { "ack_cycles", "cycles in the stack's ACK input path (pmcstat / perf) on the host" },
  { "irq_cycles", "`ocasim validate` on the host (costs.interrupt_cycles)" },
};

static const char *coef_pin_by(const char *name)
{
  for (size_t i = 0; i < G_N_ELEMENTS(COEF_PIN); i++)
    if (strcmp(COEF_PIN[i].name, name) == 0) return COEF_PIN[i].pin_by;
  return "a published result or measurement that moves it";
}

#define MODEL_PIN_BY    "a measured or published result of this configuration (the model's own error: nothing else pins it)"
#define TRANSFER_PIN_BY "`ocasim validate` on the host (a costs: profile replaces the transfer spread)"

/* One spread: a standard-normal dimension of the draws. */
typedef enum { DIM_FITTED, DIM_FIXED, DIM_TRANSFER, DIM_MODEL, DIM_COSTS, DIM_RTT, DIM_CRYPTO, DIM_ENTRY } DimType;

typedef struct {
  DimType type;
  int index;             /* fitted or fixed coefficient index, or entry index */
  double sig_lo, sig_hi; /* split normal in the transformed space (fitted: sig_lo = sig_hi = its se) */
  gboolean logit;        /* the value is an efficiency drawn in logit space */
  UncKind kind;
  char name[48];
  const char *pin_by;
  char source[200];
} Dim;

void interval_spec_default(AppIntervalSpec *spec)
{
  memset(spec, 0, sizeof *spec);
  spec->fitted = spec->fixed = spec->platform = TRUE;
  coeffs_spread_defaults(&spec->spread);
}

static double logit(double p)
{
  return log(p / (1.0 - p));
}

static double inv_logit(double x)
{
  return 1.0 / (1.0 + exp(-x));
}

/* The split normal's value at normal score z: sigma below for z < 0, above for z > 0. */
static double split(double z, double sig_lo, double sig_hi)
{
  return z * (z < 0 ? sig_lo : sig_hi);
}

/* Whether the appliance's CPU costs come from a `costs:` profile (a measurement on its host). */
static gboolean has_costs_profile(const Appliance *a)
{
  const CostProfile *p = &a->cpu.costs;
  double sum = p->copy_cpb + p->page_cycles + p->segment_cycles + p->interrupt_cycles;
  for (int i = 0; i < COST_CIPHER_COUNT; i++) sum += p->crypto_cpb[i];
  return sum > 0;
}

/* Scales the value(s) that registry entry @p names on @b by factor @f. */
static void apply_param(Appliance *b, UncParam p, double f)
{
  switch (p) {
    case UNC_CPU_CLOCK: b->cpu.clock_hz *= f; break;
    case UNC_CPU_CRYPTO: {
      double cpb = cpu_crypto_cpb(&b->cpu, b->crypto);
      if (cpb > 0) b->cpu.crypto_cpb = cpb * f;
      break;
    }
    /* the bandwidth of a channel, channels x speed x bus bytes: the bytes per transfer carry the
     * factor, so a DDR generation's speed limits (budgets.dimm_type) keep holding */
    case UNC_MEM_SPEED: b->mem.bus_bytes *= f; break;
    case UNC_MEM_LATENCY: b->mem.latency_ns *= f; break;
    case UNC_INTRA_LINK: b->topo.intra_link_Bps *= f; break;
    case UNC_INTRA_PENALTY: b->topo.intra_penalty_ns *= f; break;
    case UNC_INTER_PENALTY: b->topo.inter_penalty_ns *= f; break;
    case UNC_LINK_RATE:
      for (int i = 0; i < b->topo.n_links; i++) b->topo.links[i].rate_tps *= f;
      break;
    case UNC_LINK_DEV_EFF:
      for (int i = 0; i < b->topo.n_links; i++) b->topo.links[i].eff_dev_write = MIN(1.0, b->topo.links[i].eff_dev_write * f);
      break;
    case UNC_NVME_READ:
      for (int i = 0; i < b->n_drives; i++) b->drives[i].read_Bps *= f;
      break;
    case UNC_NVME_LATENCY:
      for (int i = 0; i < b->n_drives; i++) b->drives[i].latency_ns *= f;
      break;
    case UNC_NIC_KTLS:
      for (int i = 0; i < b->n_nics; i++) b->nics[i].ktls_bps *= f;
      break;
    case UNC_PCIE_RTT: /* within each link's own range, which the loader holds it to (pcie.h) */
      for (int i = 0; i < b->n_drives; i++) pcie_scale_read_rtt(&b->drives[i].link, f);
      for (int i = 0; i < b->n_nics; i++) pcie_scale_read_rtt(&b->nics[i].link, f);
      break;
    case UNC_COSTS: {
      CostProfile *q = &b->cpu.costs;
      q->copy_cpb *= f;
      q->page_cycles *= f;
      q->segment_cycles *= f;
      q->interrupt_cycles *= f;
      CostCipher k = cpu_cost_cipher(b->crypto);
      if (k < COST_CIPHER_COUNT && q->crypto_cpb[k] > 0) b->cpu.crypto_cpb *= f; /* the profile filled it (cpu.c) */
      break;
    }
    case UNC_PARAM_COUNT: break;
  }
}

/* The dimensions of @a under @spec, in a fixed order: fitted, fixed, transfer, costs, entries. */
static int collect_dims(const Appliance *a, const AppIntervalSpec *spec, Dim *d)
{
  g_assert(coeffs_fixed_count() <= APP_INTERVAL_MAX_FIXED);
  int n = 0;
  for (int i = 0; i < COEFFS_N_FITTED; i++) {
    double se = spec->fitted ? sqrt(MAX(0.0, spec->spread.cov_x[i][i])) : 0.0;
    d[n] =
        (Dim){ .type = DIM_FITTED, .index = i, .sig_lo = se, .sig_hi = se, .logit = coeffs_fitted_is_eff(i), .kind = UNC_FITTED };
    g_snprintf(d[n].name, sizeof d[n].name, "coef.%s", coeffs_fitted_name(i));
    d[n].pin_by = coef_pin_by(coeffs_fitted_name(i));
    g_strlcpy(d[n].source, "the fit's covariance (models/appliance/coeffs.def)", sizeof d[n].source);
    n++;
  }
  for (int i = 0; i < coeffs_fixed_count(); i++) {
    const char *name = coeffs_fixed_name(i);
    double v = coeffs_fixed_value(&a->coef, i), lo, hi;
    coeffs_fixed_range(i, &lo, &hi);
    gboolean lg = strcmp(name, "fabric_eff") == 0;
    double (*t)(double) = lg ? logit : log;
    Dim x = { .type = DIM_FIXED, .index = i, .logit = lg };
    if (spec->fixed && v > 0 && (!lg || v < 1)) {
      x.sig_lo = lo < v ? (t(v) - t(lo)) / Z95 : 0.0;
      x.sig_hi = hi > v ? (t(hi) - t(v)) / Z95 : 0.0;
    }
    x.kind = g_str_has_prefix(coeffs_fixed_source(i), "assumed") ? UNC_ASSUMED : UNC_SOURCED;
    g_snprintf(x.name, sizeof x.name, "coef.%s", name);
    x.pin_by = coef_pin_by(name);
    g_strlcpy(x.source, coeffs_fixed_source(i), sizeof x.source);
    d[n++] = x;
  }
  {
    double tau = spec->fitted ? spec->spread.tau_cpu_costs : 0.0;
    d[n] = (Dim){ .type = DIM_TRANSFER, .sig_lo = tau, .sig_hi = tau, .kind = UNC_TRANSFER, .pin_by = TRANSFER_PIN_BY };
    g_strlcpy(d[n].name, "transfer.cpu_costs", sizeof d[n].name);
    g_snprintf(d[n].source, sizeof d[n].source,
               "the spread of the reference platforms' own stack-cost factors, tau = %.3f (models/appliance/coeffs.def)", tau);
    n++;
  }
  {
    double sg = spec->fitted ? spec->spread.sigma_gbps : 0.0;
    d[n] = (Dim){ .type = DIM_MODEL, .sig_lo = sg, .sig_hi = sg, .kind = UNC_FITTED, .pin_by = MODEL_PIN_BY };
    g_strlcpy(d[n].name, "model.throughput", sizeof d[n].name);
    g_snprintf(d[n].source, sizeof d[n].source,
               "the model's residual error over the fit's published results, %.3f in ln (models/appliance/coeffs.def)", sg);
    n++;
  }
  gboolean profile = spec->platform && has_costs_profile(a);
  const UncEntry *ce = uncertainty_find(&a->unc, UNC_COSTS);
  {
    double lo = ce ? ce->low : APP_INTERVAL_COSTS_LOW, hi = ce ? ce->high : APP_INTERVAL_COSTS_HIGH;
    d[n] = (Dim){ .type = DIM_COSTS,
                  .sig_lo = profile ? -log(lo) / Z95 : 0.0,
                  .sig_hi = profile ? log(hi) / Z95 : 0.0,
                  .kind = ce ? ce->kind : UNC_MEASURED,
                  .pin_by = uncertainty_param_pin_by(UNC_COSTS) };
    g_strlcpy(d[n].name, "costs", sizeof d[n].name);
    g_strlcpy(d[n].source, ce ? ce->source : "assumed +-10 %: a microbenchmark's run-to-run spread (APP_INTERVAL_COSTS_*)",
              sizeof d[n].source);
    n++;
  }
  {
    /* the PCIe read round trip: one draw for the box (one root-complex design), each link within its
     * own read_rtt_lo..read_rtt_hi (pcie.h) read as the central 95 %, unless an entry names it */
    double lo = 1.0, hi = 1.0;
    gboolean narrow = TRUE;
    for (int i = 0; i < a->n_drives + a->n_nics; i++) {
      const PcieLink *l = i < a->n_drives ? &a->drives[i].link : &a->nics[i - a->n_drives].link;
      if (!(l->read_rtt_ns > 0)) continue;
      lo = MIN(lo, l->read_rtt_lo_ns / l->read_rtt_ns);
      hi = MAX(hi, l->read_rtt_hi_ns / l->read_rtt_ns);
      narrow = narrow && l->read_rtt_hi_ns <= PCIE_RTT_MEASURED_RATIO * l->read_rtt_lo_ns;
    }
    gboolean on = spec->platform && !uncertainty_find(&a->unc, UNC_PCIE_RTT) && lo > 0;
    d[n] = (Dim){ .type = DIM_RTT,
                  .sig_lo = on ? -log(lo) / Z95 : 0.0,
                  .sig_hi = on ? log(hi) / Z95 : 0.0,
                  .kind = narrow ? UNC_SOURCED : UNC_ASSUMED,
                  .pin_by = uncertainty_param_pin_by(UNC_PCIE_RTT) };
    g_strlcpy(d[n].name, unc_param_names[UNC_PCIE_RTT], sizeof d[n].name);
    g_strlcpy(d[n].source, "the links' pcie.read_rtt_lo..read_rtt_hi (platform file)", sizeof d[n].source);
    n++;
  }
  {
    /* the bulk cipher's cycles per byte where the crypto table prices it (cpu.crypto_cpb not given):
     * the table row's own range (cpu_crypto_table_range) read as the central 95 %, unless an entry
     * names it */
    double v = cpu_crypto_cpb(&a->cpu, a->crypto), lo = 0, hi = 0;
    gboolean on = spec->platform && datapath_cpu_crypto(a->path) && !(a->cpu.crypto_cpb > 0) && v > 0 &&
                  !uncertainty_find(&a->unc, UNC_CPU_CRYPTO) && cpu_crypto_table_range(a->crypto, a->cpu.uarch, &lo, &hi) &&
                  lo > 0 && lo <= v && v <= hi;
    d[n] = (Dim){ .type = DIM_CRYPTO,
                  .sig_lo = on ? log(v / lo) / Z95 : 0.0,
                  .sig_hi = on ? log(hi / v) / Z95 : 0.0,
                  .kind = UNC_SOURCED,
                  .pin_by = uncertainty_param_pin_by(UNC_CPU_CRYPTO) };
    g_strlcpy(d[n].name, unc_param_names[UNC_CPU_CRYPTO], sizeof d[n].name);
    g_strlcpy(d[n].source, "the crypto table row's range (models/appliance/cpu.c, cpu_crypto_table_range)", sizeof d[n].source);
    n++;
  }
  for (int i = 0; i < a->unc.n; i++) {
    const UncEntry *e = &a->unc.e[i];
    if (e->param == UNC_COSTS) continue;
    d[n] = (Dim){ .type = DIM_ENTRY,
                  .index = i,
                  .sig_lo = spec->platform ? -log(e->low) / Z95 : 0.0,
                  .sig_hi = spec->platform ? log(e->high) / Z95 : 0.0,
                  .kind = e->kind,
                  .pin_by = uncertainty_param_pin_by(e->param) };
    g_strlcpy(d[n].name, unc_param_names[e->param], sizeof d[n].name);
    g_strlcpy(d[n].source, e->source, sizeof d[n].source);
    n++;
  }
  return n;
}

typedef struct {
  int dim;
  double share;
} Share;

static int cmp_share(const void *pa, const void *pb)
{
  const Share *a = pa, *b = pb;
  if (a->share != b->share) return a->share < b->share ? 1 : -1;
  return a->dim - b->dim;
}

/* What one evaluation needs: the appliance, its spreads and the fitted block's factor. */
typedef struct {
  const Appliance *a;
  const double *drive_share;
  double offered_gbps;
  const Dim *dims;
  int nd;
  gsl_matrix *chol; /* lower triangle L of the fitted covariance */
  double xhat[COEFFS_N_FITTED];
  Appliance *b; /* scratch */
} Eval;

/* Evaluates the bound with every spread at normal score z[j] into *gbps, *cpu and *kind (the named
 * bottleneck's kind, -1 none); the fitted block jointly (x = xhat + L z) unless @marginal, when
 * each fitted coefficient moves alone by its own standard error (x_i = xhat_i + se_i z_i). Fills
 * score[j] (may be NULL) with each spread's own normal score. FALSE: the appliance cannot be built. */
static gboolean eval_point(Eval *e, const double *z, gboolean marginal, double *score, double *gbps, double *cpu, int *kind)
{
  Appliance *b = e->b;
  *b = *e->a;
  double model_f = 1.0;
  for (int j = 0; j < e->nd; j++) {
    const Dim *x = &e->dims[j];
    double s = z[j];
    switch (x->type) {
      case DIM_FITTED: {
        double dx = 0;
        if (marginal)
          dx = x->sig_lo * z[j];
        else
          for (int l = 0; l <= x->index; l++) dx += gsl_matrix_get(e->chol, x->index, l) * z[l]; /* fitted dims come first */
        double v = e->xhat[x->index] + dx;
        *coeffs_fitted_ptr(&b->coef, x->index) = x->logit ? inv_logit(v) : exp(v);
        s = x->sig_lo > 0 ? dx / x->sig_lo : 0.0;
        break;
      }
      case DIM_FIXED: {
        double v = coeffs_fixed_value(&e->a->coef, x->index);
        double dv = split(z[j], x->sig_lo, x->sig_hi);
        coeffs_fixed_set(&b->coef, x->index, x->logit ? inv_logit(logit(v) + dv) : v * exp(dv));
        break;
      }
      case DIM_TRANSFER: coeffs_scale_stack_costs(&b->coef, exp(x->sig_lo * z[j])); break;
      case DIM_MODEL: model_f = exp(x->sig_lo * z[j]); break;
      case DIM_COSTS:
        if (x->sig_lo > 0 || x->sig_hi > 0) apply_param(b, UNC_COSTS, exp(split(z[j], x->sig_lo, x->sig_hi)));
        break;
      case DIM_RTT:
        if (x->sig_lo > 0 || x->sig_hi > 0) apply_param(b, UNC_PCIE_RTT, exp(split(z[j], x->sig_lo, x->sig_hi)));
        break;
      case DIM_CRYPTO:
        if (x->sig_lo > 0 || x->sig_hi > 0) apply_param(b, UNC_CPU_CRYPTO, exp(split(z[j], x->sig_lo, x->sig_hi)));
        break;
      case DIM_ENTRY: apply_param(b, e->a->unc.e[x->index].param, exp(split(z[j], x->sig_lo, x->sig_hi))); break;
    }
    if (score) score[j] = s;
  }
  g_autoptr(DemandModel) m = demand_build_shares(b, e->drive_share, NULL);
  if (!m) return FALSE;
  g_autoptr(BoundResult) r = bound_eval_rates(b, m, e->offered_gbps);
  /* the residual error moves the saturation throughput; what is served is at most the offered load */
  *gbps = MIN(r->offered_Bps, r->sat_Bps * model_f) * 8e-9;
  *cpu = 100.0 * r->cpu_util;
  *kind = m->bottleneck >= 0 ? (int)m->res[m->bottleneck].kind : -1;
  return TRUE;
}

/* The swing of one spread (the contributors): both figures with that spread alone at the ends of
 * its central 95 % (normal score -+Z95; a fitted coefficient by its own standard error), every
 * other value at the appliance's: g[0], g[1] the throughput (Gb/s), c[0], c[1] the CPU % at the
 * low and the high end. FALSE when an end cannot be built (the swing is then unknown). */
static gboolean swing(Eval *e, int j, double g[2], double c[2])
{
  double z[APP_INTERVAL_MAX_DIMS] = { 0 };
  int k;
  z[j] = -Z95;
  if (!eval_point(e, z, TRUE, NULL, &g[0], &c[0], &k)) return FALSE;
  z[j] = Z95;
  return eval_point(e, z, TRUE, NULL, &g[1], &c[1], &k);
}

/* Ranks the spreads by their swings' variances @v (nd values, < 0: none) into @out, the model's
 * error (dimension @model, -1 none) said apart; @sw the swings' ends (2 per dimension). */
static void rank_contributors(const Dim *dims, int nd, const double *v, const double *sw, int model, const char *of,
                              AppIntervalRank *out)
{
  g_autofree Share *sh = g_new0(Share, MAX(nd, 1));
  int nsh = 0;
  double total = 0;
  for (int j = 0; j < nd; j++) {
    if (v[j] > 0) total += v[j];
    /* an assumed value is listed even where it moves nothing, unless its spread is off (the
     * built-in PCIe round-trip range where the scenario gives pcie.read_rtt its own) */
    gboolean spread = dims[j].sig_lo > SIGMA_NONE || dims[j].sig_hi > SIGMA_NONE;
    if (j != model && (v[j] > 0 || (dims[j].kind == UNC_ASSUMED && spread))) sh[nsh++] = (Share){ j, MAX(v[j], 0.0) };
  }
  qsort(sh, (size_t)nsh, sizeof *sh, cmp_share);
  out->n_assumed = 0;
  out->assumed_share = 0;
  for (int t = 0; t < nsh; t++)
    if (dims[sh[t].dim].kind == UNC_ASSUMED) {
      double share = total > 0 ? sh[t].share / total : 0.0;
      g_strlcpy(out->assumed[out->n_assumed].name, dims[sh[t].dim].name, sizeof out->assumed[0].name);
      out->assumed[out->n_assumed++].share = share;
      out->assumed_share += share;
    }
  while (nsh > 0 && sh[nsh - 1].share <= 0) nsh--; /* the assumed values that move nothing rank no further */
  out->of = of;
  out->model_error_share = total > 0 && model >= 0 && v[model] > 0 ? v[model] / total : 0.0;
  out->n_top = 0;
  for (int t = 0; t < nsh && t < APP_INTERVAL_TOP; t++) {
    const Dim *x = &dims[sh[t].dim];
    AppIntervalContrib *o = &out->top[out->n_top++];
    g_strlcpy(o->name, x->name, sizeof o->name);
    o->kind = unc_kind_names[x->kind];
    o->share = sh[t].share / total;
    o->swing[0] = sw[2 * sh[t].dim];
    o->swing[1] = sw[2 * sh[t].dim + 1];
    o->pin_by = x->pin_by;
    g_strlcpy(o->source, x->source, sizeof o->source);
  }
}

gboolean interval_eval(const Appliance *a, const double *drive_share, double offered_gbps, const AppIntervalSpec *spec,
                       double level, int draws, AppInterval *out, GError **error)
{
  g_return_val_if_fail(level > 0 && level < 1 && draws >= 8, FALSE);
  memset(out, 0, sizeof *out);
  out->level = level;
  out->draws = draws;
  Dim dims[APP_INTERVAL_MAX_DIMS];
  int nd = collect_dims(a, spec, dims);
  /* the fitted block's Cholesky factor (a covariance that is not positive definite: its diagonal) */
  g_autoptr(gsl_matrix) chol = gsl_matrix_calloc(COEFFS_N_FITTED, COEFFS_N_FITTED);
  if (spec->fitted) {
    for (int i = 0; i < COEFFS_N_FITTED; i++)
      for (int j = 0; j < COEFFS_N_FITTED; j++) gsl_matrix_set(chol, i, j, spec->spread.cov_x[i][j]);
    gboolean any = FALSE;
    for (int i = 0; i < COEFFS_N_FITTED; i++) any = any || spec->spread.cov_x[i][i] > 0;
    if (any && gsl_linalg_cholesky_decomp1(chol) != GSL_SUCCESS) {
      gsl_matrix_set_zero(chol);
      for (int i = 0; i < COEFFS_N_FITTED; i++) gsl_matrix_set(chol, i, i, sqrt(MAX(0.0, spec->spread.cov_x[i][i])));
    }
    for (int i = 0; i < COEFFS_N_FITTED; i++)
      for (int j = i + 1; j < COEFFS_N_FITTED; j++) gsl_matrix_set(chol, i, j, 0.0); /* the lower triangle is L */
  }
  g_autofree Appliance *b = g_new(Appliance, 1);
  Eval e = { .a = a, .drive_share = drive_share, .offered_gbps = offered_gbps, .dims = dims, .nd = nd, .chol = chol, .b = b };
  for (int i = 0; i < COEFFS_N_FITTED; i++) {
    double v = *coeffs_fitted_ptr((Coeffs *)&a->coef, i);
    e.xhat[i] = coeffs_fitted_is_eff(i) ? logit(v) : log(v);
  }
  g_autoptr(gsl_rng) rng = sim_rng_new(a->seed, "interval");
  g_autofree double *xs = g_new(double, draws), *cs = g_new(double, draws);
  int ok = 0;
  double z[APP_INTERVAL_MAX_DIMS];
  for (int k = 0; k < draws; k++) {
    for (int j = 0; j < nd; j++) z[j] = gsl_ran_gaussian_ziggurat(rng, 1.0);
    int kind;
    if (!eval_point(&e, z, FALSE, NULL, &xs[ok], &cs[ok], &kind)) continue;
    if (kind >= 0) out->bottleneck_prob[kind] += 1.0;
    ok++;
  }
  out->failed = draws - ok;
  if (ok < draws / 2 + 1) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                "prediction interval: %d of %d draws give an appliance that cannot be built (a spread too wide for the model's "
                "checks)",
                draws - ok, draws);
    return FALSE;
  }
  for (int k = 0; k < RK_COUNT; k++) out->bottleneck_prob[k] /= ok;
  gsl_sort(xs, 1, (size_t)ok);
  gsl_sort(cs, 1, (size_t)ok);
  double qlo = (1.0 - level) / 2, qhi = (1.0 + level) / 2;
  out->throughput_gbps[0] = gsl_stats_quantile_from_sorted_data(xs, 1, (size_t)ok, qlo);
  out->throughput_gbps[1] = gsl_stats_quantile_from_sorted_data(xs, 1, (size_t)ok, qhi);
  out->cpu_util_pct[0] = gsl_stats_quantile_from_sorted_data(cs, 1, (size_t)ok, qlo);
  out->cpu_util_pct[1] = gsl_stats_quantile_from_sorted_data(cs, 1, (size_t)ok, qhi);
  out->median_gbps = gsl_stats_median_from_sorted_data(xs, 1, (size_t)ok);
  if (spec->no_contributors) {
    out->contrib[APP_IV_GBPS].of = "throughput_gbps";
    out->contrib[APP_IV_CPU].of = "cpu_util_pct";
    return TRUE;
  }
  /* contributors: every spread's swing, both figures from the same two bounds, each figure's
   * variance read as a linear response's: of ln throughput, and of the CPU % in points */
  /* the floor's scale: the draws' medians (no further bound) */
  double pt_g = out->median_gbps, pt_c = gsl_stats_median_from_sorted_data(cs, 1, (size_t)ok);
  g_autofree double *vg = g_new(double, MAX(nd, 1)), *vc = g_new(double, MAX(nd, 1));
  g_autofree double *swg = g_new0(double, 2 * (size_t)MAX(nd, 1)), *swc = g_new0(double, 2 * (size_t)MAX(nd, 1));
  int model = -1;
  for (int j = 0; j < nd; j++) {
    vg[j] = vc[j] = -1;
    if (dims[j].type == DIM_MODEL) model = j;
    if (!(dims[j].sig_lo > SIGMA_NONE || dims[j].sig_hi > SIGMA_NONE)) continue;
    if (!swing(&e, j, &swg[2 * j], &swc[2 * j])) continue;
    double dg = swg[2 * j + 1] - swg[2 * j], dc = swc[2 * j + 1] - swc[2 * j];
    if (fabs(dg) > APP_INTERVAL_SWING_FLOOR * fabs(pt_g)) {
      double sd = (log(MAX(swg[2 * j + 1], 1e-300)) - log(MAX(swg[2 * j], 1e-300))) / (2 * Z95);
      vg[j] = sd * sd;
    }
    if (fabs(dc) > APP_INTERVAL_SWING_FLOOR * fabs(pt_c)) vc[j] = (dc / (2 * Z95)) * (dc / (2 * Z95));
  }
  rank_contributors(dims, nd, vg, swg, model, "throughput_gbps", &out->contrib[APP_IV_GBPS]);
  rank_contributors(dims, nd, vc, swc, model, "cpu_util_pct", &out->contrib[APP_IV_CPU]);
  return TRUE;
}
