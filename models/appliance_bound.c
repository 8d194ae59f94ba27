/* appliance_bound.c — bottleneck law, drops and latency approximation (see
 * appliance_bound.h for the equations). */
#include "models/appliance_bound.h"
#include "sim/gsl_autoptr.h"
#include <float.h>
#include <gsl/gsl_errno.h>
#include <math.h>

/* Utilisation used in latency formulas is capped here: at u = 1 an M/M/1 queue has no
 * steady state; the cap keeps a saturated report finite (and very large). */
#define LAT_U_CAP 0.995

/* Halvings of the latency-quantile bracket [0, 20 t_max]: far more than a double needs (about 60
 * leave adjacent doubles), so the result is the bracket's fixed point. */
#define LAT_QUANTILE_HALVINGS 200

static double sojourn(double s, double u)
{
  return s / (1.0 - MIN(u, LAT_U_CAP));
}

typedef struct {
  const DemandModel *m;
  const double *T; /* [n_class] mean request time of each class, s */
  double q;        /* quantile, 0..1 */
} QuantCtx;

/* Mixture CDF of the classes' exponential request times at t seconds, minus the quantile. A CDF
 * that rounds to q exactly counts as above it (DBL_MIN, never 0): the quantile is inf{t : F(t) >= q},
 * the lower end of the run of t where F(t) == q in doubles, rather than wherever on that run the
 * bisection would first land and stop. */
static double quantile_gap(double t, void *p)
{
  const QuantCtx *x = p;
  double F = 0;
  for (int c = 0; c < x->m->n_class; c++) F += x->m->cls[c].weight * (1.0 - exp(-t / x->T[c]));
  double g = F - x->q;
  return g != 0.0 ? g : DBL_MIN;
}

BoundResult *bound_eval(const Appliance *a, const DemandModel *m, double offered_gbps)
{
  BoundResult *r = g_new0(BoundResult, 1);
  r->n_res = m->n_res;
  r->util = g_new0(double, m->n_res);
  r->offered_util = g_new0(double, m->n_res);
  r->drop = g_new0(double, m->n_res);
  r->sat_Bps = demand_saturation_Bps(m, &r->bottleneck);
  r->offered_Bps = offered_gbps > 0 ? offered_gbps * 1e9 / 8.0 : G_MAXDOUBLE;
  r->throughput_Bps = MIN(r->offered_Bps, r->sat_Bps);
  double L = offered_gbps > 0 ? r->offered_Bps : r->sat_Bps;
  double busy = 0, cap = 0;
  for (int i = 0; i < m->n_res; i++) {
    const DmResource *res = &m->res[i];
    if (res->capacity <= 0) continue;
    r->util[i] = MIN(1.0, r->throughput_Bps * demand_total_at(m, i, r->throughput_Bps) / res->capacity);
    r->offered_util[i] = L * demand_total_at(m, i, L) / res->capacity;
    /* the port's queue sees the load it carries: above saturation TCP backs off and the excess
     * is unserved load (offered - X*), not drops */
    if (res->kind == RK_NIC_PORT) r->drop[i] = nic_port_drop_fraction(r->util[i], res->queue_bursts);
    if (res->kind == RK_CPU) {
      busy += r->util[i] * res->capacity;
      cap += res->capacity;
      r->cpu_util_max_node = MAX(r->cpu_util_max_node, r->util[i]);
    }
  }
  r->cpu_util = cap > 0 ? busy / cap : 0;
  r->connections = workload_connections(&a->wl, r->throughput_Bps);

  /* latency per class */
  double R = a->wl.request_bytes;
  g_autofree double *T = g_new0(double, m->n_class);
  double mean = 0, tmax = 0;
  for (int c = 0; c < m->n_class; c++) {
    const DmClass *k = &m->cls[c];
    const NvmeDrive *d = &a->drives[k->drive];
    int rn = m->drive_res[k->drive], rp = m->port_res[k->egress];
    double t_disk = sojourn(nvme_read_s(d, R), rn >= 0 ? r->util[rn] : 0);
    double t_cpu = 0;
    for (int i = 0; i < m->n_res; i++)
      if (m->res[i].kind == RK_CPU && k->demand[i] > 0) {
        double core_hz = cpu_core_hz(&a->cpu);
        t_cpu += sojourn(R * k->demand[i] / core_hz, r->util[i] / m->res[i].limit);
      }
    double port_Bps = rp >= 0 ? m->res[rp].capacity : 1e10;
    double t_nic = sojourn(R / port_Bps, rp >= 0 ? r->util[rp] : 0);
    T[c] = t_disk + t_cpu + t_nic;
    mean += k->weight * T[c];
    tmax = MAX(tmax, T[c]);
  }
  r->lat_mean_ms = mean * 1e3;
  double qs[2] = { 0.5, 0.99 }, out[2];
  g_autoptr(gsl_root_fsolver) s = gsl_root_fsolver_alloc(gsl_root_fsolver_bisection);
  for (int q = 0; q < 2; q++) {
    QuantCtx ctx = { m, T, qs[q] };
    gsl_function F = { .function = quantile_gap, .params = &ctx };
    double hi = tmax * 20 + 1e-9, t = hi; /* the CDF stays below q on the bracket: its top */
    if (gsl_root_fsolver_set(s, &F, 0.0, hi) == GSL_SUCCESS) {
      /* Tolerance 0: every halving runs, up to the first that leaves the bracket as it was. From
       * there bisection is at a fixed point (the midpoint of adjacent doubles rounds onto an end,
       * whose function value the solver already holds), so the halvings left would change
       * nothing: stopping there gives the same bracket, bit for bit, at a third of the cost. */
      for (int it = 0; it < LAT_QUANTILE_HALVINGS; it++) {
        double lo = gsl_root_fsolver_x_lower(s), up = gsl_root_fsolver_x_upper(s);
        if (gsl_root_fsolver_iterate(s) != GSL_SUCCESS) break;
        if (gsl_root_fsolver_x_lower(s) == lo && gsl_root_fsolver_x_upper(s) == up) break;
      }
      t = 0.5 * (gsl_root_fsolver_x_lower(s) + gsl_root_fsolver_x_upper(s));
    }
    out[q] = t * 1e3;
  }
  r->lat_p50_ms = out[0];
  r->lat_p99_ms = out[1];
  return r;
}

void bound_result_free(BoundResult *r)
{
  if (!r) return;
  g_free(r->util);
  g_free(r->offered_util);
  g_free(r->drop);
  g_free(r);
}
