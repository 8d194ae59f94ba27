/* models/modes/des.c — the discrete-event appliance model (see modes/des.h). */
#include "models/modes/des.h"

#include <math.h>
#include "models/appliance/model_error.h"
#include "models/appliance/ram.h"

/* Fewest requests in flight: enough that no resource idles for want of work
 * when a few drives have shallow queues. */
#define DES_MIN_IN_FLIGHT 64
/* Most requests one run may simulate (about an hour of CPU at ~1 us each). */
#define DES_MAX_REQUESTS 5e9
/* Most paced clients one run simulates one by one (an event of 48 B each: 48 MiB); beyond it
 * the arrivals are one Poisson stream, the limit of a superposition of many independent sparse
 * streams (Palm-Khintchine theorem), without the per-client segments. 400 Gb/s of 1 Mb/s streams
 * is 400 000 clients. */
#define DES_MAX_CLIENTS (1 << 20)
/* Batch means per run after warm-up: Schmeiser (1982, "Batch size effects in the analysis of
 * simulation output", Operations Research 30(3)) finds 10 to 30 batches a good choice; 20 is
 * inside that range. */
#define DES_BATCHES 20

/* The paced clients of the spec's offered load (workload.h): offered / mean bitrate clients
 * (workload_connections) split over the bitrate mix by share (at least one), their rates scaled
 * by the rounding of the counts so that they add up to the offered load, each fetching a segment of n = max(1, round(rate x
 * segment_duration / 8 / E[S])) requests every n E[S] 8 / rate seconds. Returns FALSE (and adds
 * none) above DES_MAX_CLIENTS clients. */
static gboolean add_paced_clients(SimFluidSpec *s, const Workload *w)
{
  double n_total = workload_connections(w, s->offered_Bps);
  if (!(n_total > 0) || n_total > DES_MAX_CLIENTS) return FALSE;
  double offered_bps = 8 * s->offered_Bps;
  int count[WL_MAX_BITRATES] = { 0 }, widest = 0, sum = 0;
  double rate_sum = 0;
  for (int k = 0; k < w->n_bitrates; k++) {
    count[k] = (int)llround(n_total * w->bitrate[k].share);
    if (w->bitrate[k].share > w->bitrate[widest].share) widest = k;
    sum += count[k];
  }
  if (sum == 0) count[widest] = 1;
  for (int k = 0; k < w->n_bitrates; k++) rate_sum += count[k] * w->bitrate[k].rate_bps;
  double scale = offered_bps / rate_sum, mean_bits = 8 * w->request_bytes;
  for (int k = 0; k < w->n_bitrates; k++) {
    if (!count[k]) continue;
    double rate = w->bitrate[k].rate_bps * scale;
    double burst = MAX(1.0, round(rate * w->segment_ns * 1e-9 / mean_bits));
    sim_fluid_add_clients(s, count[k], (int)burst, burst * mean_bits / rate * 1e9);
  }
  return TRUE;
}

int des_slots(const Appliance *a)
{
  /* a drive keeps queue_depth reads of io_bytes outstanding; a request is
   * request_bytes / io_bytes reads, so it holds QD x io / request requests;
   * a read larger than its request (read-ahead) still serves one request */
  double in_flight = 0;
  for (int d = 0; d < a->n_drives; d++) in_flight += a->drives[d].queue_depth * MIN(1.0, a->wl.io_bytes / a->wl.request_bytes);
  return in_flight > DES_MIN_IN_FLIGHT ? (int)ceil(in_flight) : DES_MIN_IN_FLIGHT;
}

SimFluidSpec *des_spec(const Appliance *a, const AppScenarioInfo *info, const DemandModel *m)
{
  SimFluidSpec *s = sim_fluid_spec_new();
  s->seed = a->seed;
  s->duration_ns = sim_time_from_s(info->duration_s);
  s->warmup_ns = sim_time_from_s(info->warmup_s);
  s->rate_precision = info->rate_precision;
  s->batches = DES_BATCHES;
  s->offered_Bps = a->wl.offered_gbps > 0 ? a->wl.offered_gbps * 1e9 / 8 : 0;
  s->request_bytes = workload_request_size_dist(&a->wl);
  if (s->offered_Bps > 0 && a->wl.arrivals == WL_ARRIVALS_PACED && !add_paced_clients(s, &a->wl))
    g_info("%s: more than %d clients: Poisson arrivals instead of paced clients", a->name, DES_MAX_CLIENTS);
  s->concurrency = des_slots(a);
  for (int r = 0; r < m->n_res; r++)
    sim_fluid_add_resource(s, m->res[r].name, demand_kind_name(m->res[r].kind), "units/s", m->res[r].capacity * m->res[r].limit);
  for (int k = 0; k < m->n_class; k++) {
    const DmClass *c = &m->cls[k];
    if (!(c->weight > 0)) continue;
    const NvmeDrive *dr = &a->drives[c->drive];
    SimFluidClass *fc = sim_fluid_add_class(s, c->name, c->weight, dr->latency_ns);
    char stream[40];
    g_snprintf(stream, sizeof stream, "nvme%d.latency", dr->id); /* the drive's own stream, by its healthy-box name */
    sim_fluid_class_latency_spread(fc, dr->latency_cv, stream);
    for (int r = 0; r < m->n_res; r++)
      if (c->demand[r] > 0) sim_fluid_class_use(fc, r, c->demand[r]);
  }
  return s;
}

AppReport *des_run(const Appliance *a, const AppScenarioInfo *info, const DemandModel *m, SimFluidResult **raw, GError **error)
{
  return des_run_observed(a, info, m, NULL, raw, error);
}

/* The requests a run of @spec simulates: at most the bound's throughput over the duration when
 * saturating, every arrival at the offered load otherwise. */
static double run_requests(const SimFluidSpec *spec)
{
  double max_Bps = spec->offered_Bps > 0 ? spec->offered_Bps : sim_fluid_bound_Bps(spec, NULL);
  return max_Bps * sim_time_to_s(spec->duration_ns) / sim_dist_mean(&spec->request_bytes);
}

/* As des_check() on a spec already built. */
static gboolean check_spec(const DemandModel *m, const SimFluidSpec *spec, GError **error)
{
  GError *e = NULL;
  if (!sim_fluid_spec_check(spec, &e)) {
    model_fail(error, "duration", "%s", e->message);
    g_error_free(e);
    return FALSE;
  }
  double requests = run_requests(spec);
  if (requests <= DES_MAX_REQUESTS) return TRUE;
  /* an offered load beyond what the box serves makes every arrival an event: that key is the cause */
  gboolean offered = spec->offered_Bps > 0 && demand_overloaded(spec->offered_Bps, m->sat_Bps);
  return model_fail(error, offered ? "workload.offered" : "duration",
                    "the run would simulate about %.3g requests (more than %.0e): %s", requests, DES_MAX_REQUESTS,
                    offered ? "lower workload.offered (it is above the box's saturation throughput) or shorten duration"
                            : "shorten duration or raise workload.request_size");
}

gboolean des_check(const Appliance *a, const AppScenarioInfo *info, const DemandModel *m, GError **error)
{
  g_autoptr(SimFluidSpec) spec = des_spec(a, info, m);
  return check_spec(m, spec, error);
}

AppReport *des_run_observed(const Appliance *a, const AppScenarioInfo *info, const DemandModel *m, const SimObserver *obs,
                            SimFluidResult **raw, GError **error)
{
  g_autoptr(SimFluidSpec) spec = des_spec(a, info, m);
  /* refuse runs that would take hours rather than hang (the same check as `ocasim check`) */
  if (!check_spec(m, spec, error)) return NULL;
  double requests = run_requests(spec);
  g_debug("%s: %u resources, %u classes, %.3g s simulated (%.3g s warm-up), about %.3g requests",
          info->name ? info->name : a->name, spec->resources->len, spec->classes->len, sim_time_to_s(spec->duration_ns),
          sim_time_to_s(spec->warmup_ns), requests);
  SimFluidResult *fr = sim_fluid_run_observed(spec, obs);

  AppReport *r = g_new0(AppReport, 1);
  r->scenario = g_strdup(info->name ? info->name : a->name);
  r->mode = g_strdup("run");
  r->lat_measured = TRUE;
  r->seed = a->seed;
  r->rate_precision = spec->rate_precision;
  r->offered_gbps = a->wl.offered_gbps > 0 ? a->wl.offered_gbps : -1;
  double x_Bps = fr->throughput_Bps.mean;
  r->throughput_gbps = x_Bps * 8e-9;
  r->requests_rejected = (gint64)fr->requests_rejected;
  r->overloaded = r->requests_rejected > 0 || (spec->offered_Bps > 0 && demand_overloaded(spec->offered_Bps, m->sat_Bps));
  r->expected_gbps = m->op_Bps * 8e-9; /* the bound's min(offered, X*) */
  r->lat_p50_ms = fr->latency_p50_s * 1e3;
  r->lat_p99_ms = fr->latency_p99_s * 1e3;
  /* the CI: batch means and, below the box's X*, the offered load's own noise (served bytes follow
   * what is offered there); above X* the box serves its capacity whatever arrives, so the batch
   * means alone (adding the offered noise made an overloaded 400G run's CI 13x saturate's) */
  gboolean above_xstar = spec->offered_Bps > 0 && demand_overloaded(spec->offered_Bps, m->sat_Bps);
  r->throughput_ci95_gbps = (above_xstar ? fr->throughput_batch_hw_Bps : fr->throughput_Bps.half_width) * 8e-9;
  /* a run that served less than it was offered by more than its 95 % CI did not keep up, whatever
   * the bound's X* says (the DES's skew, request slots and queues): overloaded, the shortfall
   * unserved (it said "below saturation" with nothing unserved; an overloaded run's p99 grows with
   * its length, so `capacity` must not take it either). The CI holds the offered load's own noise
   * over the window (sim_fluid_offered_sd_bytes: a short paced run offers what its clients' phases
   * put in it), so no floor beside it is needed. */
  if (r->offered_gbps > 0 && isfinite(r->throughput_ci95_gbps) && r->offered_gbps - r->throughput_gbps > r->throughput_ci95_gbps)
    r->overloaded = TRUE;
  r->lat_p50_ci95_ms = fr->latency_p50_hw_s * 1e3;
  r->lat_p99_ci95_ms = fr->latency_p99_hw_s * 1e3;
  r->overrides = g_strdupv(info->overrides);
  r->connections = workload_connections(&a->wl, x_Bps);
  r->n_res = m->n_res;
  r->res = g_new0(AppReportResource, m->n_res);
  double cpu_load = 0, cpu_cap = 0;
  for (int i = 0; i < m->n_res; i++) {
    const DmResource *d = &m->res[i];
    AppReportResource *o = &r->res[i];
    double load = fr->resources[i].load.mean; /* units/s */
    report_fill_resource(o, d, load);
    /* the fluid flows carry no packets: a port's drops are its output queue's M/M/1/K
         * share at the load it carries (as in bound) */
    if (d->kind == RK_NIC_PORT) o->drop = nic_port_drop_fraction(load / d->capacity, d->queue_bursts);
    if (d->kind == RK_CPU) {
      cpu_load += load;
      cpu_cap += d->capacity;
    }
  }
  r->nodes_known = TRUE;
  r->cpu_util_pct = cpu_cap > 0 ? 100 * cpu_load / cpu_cap : 0;
  report_pick_bottleneck(r, m);
  ram_report_fill(&r->ram, a, m, x_Bps, r->connections);
  if (info->ref.present) r->ref = info->ref;
  if (raw)
    *raw = fr;
  else
    sim_fluid_result_free(fr);
  return r;
}

char *des_short_run_warning(const Appliance *a, const AppScenarioInfo *info)
{
  double measured_s = info->duration_s - info->warmup_s, segment_s = a->wl.segment_ns * 1e-9;
  if (a->wl.arrivals != WL_ARRIVALS_PACED || !(a->wl.offered_gbps > 0) || !(segment_s > 0) ||
      measured_s >= DES_PACED_MIN_MEASURED_SEGMENTS * segment_s)
    return NULL;
  return g_strdup_printf(
      "warning: the measured time (duration - warmup: %.3g s) is %.2g of workload.segment_duration "
      "(%.3g s): a paced client fetches a segment in only that share of the run, so the offered load "
      "arrives in few large fetches and the throughput varies from seed to seed by several %% (its CI holds that "
      "noise, so it is wide); "
      "run at least %.3g s (%.2g segments) or shorten segment_duration (scenarios/README.md: arrivals)",
      measured_s, measured_s / segment_s, segment_s, info->warmup_s + DES_PACED_MIN_MEASURED_SEGMENTS * segment_s,
      DES_PACED_MIN_MEASURED_SEGMENTS);
}
