/* memory.c — DRAM bandwidth and latency per NUMA node (see memory.h for the equations). */
#include "models/appliance/memory.h"
#include "models/appliance/component.h"
#include "models/appliance/model_error.h"
#include "sim/roots.h"
#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include "sim/gsl_autoptr.h"
#include <math.h>
#include <string.h>

APP_ENUM_DEFINE(mem_type, MEM_TYPE_MAP);
APP_ENUM_CONF_OK(MemType);

/* Bytes of one cache line (every x86 and Arm server part here). */
#define MEM_LINE_BYTES 64.0

/* Memory channels of one NUMA node: channels_per_socket / NPS. */
static double mem_node_channels(const MemoryCfg *m, const Topology *t)
{
  return (double)m->channels_per_socket / t->nps;
}

double mem_node_peak_GBps(const MemoryCfg *m, const Topology *t)
{
  return mem_node_channels(m, t) * (m->speed_tps / 1e6) * m->bus_bytes / 1000.0; /* MT/s x B / 1000 = GB/s */
}

/* Controller efficiency at write fraction w (0..1). */
static double mem_mix_eff(double dram_eff, double turnaround, double w)
{
  if (w < 0) w = 0;
  if (w > 1) w = 1;
  return dram_eff * (1.0 - turnaround * 4.0 * w * (1.0 - w));
}

double mem_node_GBps(const MemoryCfg *m, const Topology *t, double dram_eff, double turnaround, double w)
{
  return mem_node_peak_GBps(m, t) * mem_mix_eff(dram_eff, turnaround, w);
}

double mem_latency_ns(const MemoryCfg *m, const Topology *t, int a, int node_m)
{
  return m->latency_ns + topo_interleave_remote_fraction(t) * t->intra_penalty_ns + topo_penalty_ns(t, a, node_m);
}

double mem_curve_ns(const MemCurve *c, double u)
{
  if (c->n <= 0) return 0.0;
  u = CLAMP(u, 0.0, 1.0);
  if (u <= c->u[0]) return c->ns[0];
  for (int i = 1; i < c->n; i++)
    if (u <= c->u[i]) return c->ns[i - 1] + (c->ns[i] - c->ns[i - 1]) * (u - c->u[i - 1]) / (c->u[i] - c->u[i - 1]);
  if (c->n < 2) return c->ns[c->n - 1];
  int k = c->n - 1; /* above the last row: its segment extended to u = 1 */
  return c->ns[k] + (c->ns[k] - c->ns[k - 1]) * (u - c->u[k]) / (c->u[k] - c->u[k - 1]);
}

int mem_curve_from_points(const double *bw, const double *lat_ns, int n, double capacity, MemCurve *out, int *kept,
                          const char **why)
{
  memset(out, 0, sizeof *out);
  if (kept) *kept = 0;
  if (n > MEM_CURVE_MAX) {
    *why = "too many rows (at most " G_STRINGIFY(MEM_CURVE_MAX) ")";
    return MEM_CURVE_MAX;
  }
  double peak = 0;
  for (int i = 0; i < n; i++) {
    if (!(bw[i] >= 0) || !isfinite(bw[i]) || !(lat_ns[i] > 0) || !isfinite(lat_ns[i])) {
      *why = "bandwidth must be >= 0 and latency > 0";
      return i;
    }
    peak = MAX(peak, bw[i]);
  }
  double full = capacity > 0 ? capacity : peak; /* the bandwidth at u = 1 */
  for (int i = 0; i < n; i++)
    if (bw[i] > full) {
      *why = "bandwidth above the curve's capacity";
      return i;
    }
  int knee = -1;
  for (int i = 0; i < n; i++) {
    gboolean plateau = bw[i] >= (1.0 - MEM_CURVE_PLATEAU) * peak;
    if (knee >= 0) { /* after the first plateau row: MLC's queueing, dropped, but still on the plateau */
      if (!plateau) {
        *why = "bandwidth falls off the curve's plateau: rows run from the lowest load to the highest";
        return i;
      }
      if (lat_ns[i] < lat_ns[knee]) {
        *why = "latency falls as load rises: rows run from the lowest load to the highest";
        return i;
      }
      continue;
    }
    if (i > 0 && !(bw[i] > bw[i - 1])) {
      *why = "bandwidth does not rise: rows run from the lowest load to the highest";
      return i;
    }
    if (i > 0 && lat_ns[i] < lat_ns[i - 1]) {
      *why = "latency falls as load rises: rows run from the lowest load to the highest";
      return i;
    }
    out->u[i] = bw[i] / full;
    out->ns[i] = lat_ns[i] - lat_ns[0];
    out->n = i + 1;
    if (plateau) knee = i;
  }
  if (out->n < 2) {
    *why = "fewer than 2 rows below the plateau (the curve needs a rise)";
    memset(out, 0, sizeof *out);
    return 0;
  }
  if (kept) *kept = out->n;
  return -1;
}

void mem_curve_line(MemCurve *out, double ns_at_full)
{
  memset(out, 0, sizeof *out);
  out->n = 2;
  out->u[1] = 1.0;
  out->ns[1] = ns_at_full;
}

/* The default curve: Intel MLC v3.5 --loaded_latency on a 2S Xeon Silver 4110 with 12 DDR4 DIMMs,
 * read-only traffic (GB/s, ns) (memory.h). */
static const char MEM_DEFAULT_SOURCE[] = "assumed: Intel MLC v3.5 --loaded_latency, 2S Xeon Silver 4110, 12 DDR4 DIMMs "
                                         "(Intel community forum, \"Intel Memory Latency Checker v3.5 test\", 2018; memory.h)";
static const double MEM_DEFAULT_BW[] = { 1.2376, 9.7238, 22.581, 42.695, 68.358, 131.28, 135.66 };
static const double MEM_DEFAULT_NS[] = { 81.96, 87.81, 90.85, 94.56, 98.94, 123.71, 130.31 };

void mem_curve_default(MemCurve *out, const char **source)
{
  const char *why = NULL;
  int bad = mem_curve_from_points(MEM_DEFAULT_BW, MEM_DEFAULT_NS, (int)G_N_ELEMENTS(MEM_DEFAULT_BW), 0, out, NULL, &why);
  g_assert(bad < 0);
  if (source) *source = MEM_DEFAULT_SOURCE;
}

double mem_turnaround(const MemoryCfg *m, const Coeffs *c)
{
  if (m->rw_turnaround >= 0) return m->rw_turnaround;
  return m->type == MEM_TYPE_DDR5 ? c->dram_turnaround_ddr5 : c->dram_turnaround;
}

double mem_load_ns(const MemoryCfg *m, double u)
{
  return mem_curve_ns(&m->load, u);
}

double mem_cpu_read_cap_GBps(const MemoryCfg *m, const Topology *t, double lat_ns)
{
  g_return_val_if_fail(lat_ns > 0, 0.0);
  double cores = (double)t->cores_per_socket / t->nps;
  return cores * m->mlp * MEM_LINE_BYTES / lat_ns; /* bytes per ns == GB/s */
}

/* Share of STREAM triad traffic that is CPU reads (2 reads : 1 write). */
#define STREAM_READ_SHARE (2.0 / 3.0)

/* B (L + W(B / C)) - lines_B at B GB/s: rises with B (STREAM's concurrency equation, memory.h). */
typedef struct {
  const MemoryCfg *m;
  double L, cap, lines_B;
} StreamCtx;

static double stream_excess(double B, void *p)
{
  const StreamCtx *c = p;
  return B * (c->L + mem_load_ns(c->m, B / c->cap)) - c->lines_B;
}

/* Iterations and relative tolerance of the STREAM root (assumed: rounding level; Brent meets it in
 * a few dozen steps). */
#define STREAM_EPSREL   1e-13
#define STREAM_MAX_ITER 200

double mem_stream_GBps(const MemoryCfg *m, const Topology *t, double dram_eff, double turnaround)
{
  StreamCtx c = { .m = m, .L = mem_latency_ns(m, t, 0, 0) };
  c.cap = mem_node_GBps(m, t, dram_eff, turnaround, 1.0 - STREAM_READ_SHARE);
  c.lines_B = (double)t->cores_per_socket / t->nps * m->mlp * MEM_LINE_BYTES / STREAM_READ_SHARE;
  double b = c.cap;
  if (c.cap > 0 && stream_excess(c.cap, &c) > 0) { /* the cores cannot keep C busy: the root in (0, C) */
    gsl_function F = { .function = stream_excess, .params = &c };
    g_autoptr(gsl_root_fsolver) s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    /* not converged: the bracket's lower end, the bandwidth not overstated (f is finite on
     * [0, C], so the set cannot fail; if it did, b stays C) */
    if (gsl_root_fsolver_set(s, &F, 0.0, c.cap) == GSL_SUCCESS)
      b = sim_root_iterate(s, 0.0, STREAM_EPSREL, STREAM_MAX_ITER, NULL) == GSL_SUCCESS ? gsl_root_fsolver_root(s)
                                                                                        : gsl_root_fsolver_x_lower(s);
  }
  return topo_nodes(t) * b;
}

/* Checks channels (at least 1 per socket, split evenly over the NPS nodes), speed and latency;
 * MODEL_ERROR at memory.*. */
static gboolean mem_validate(const MemoryCfg *m, const Topology *t, GError **error)
{
  if (m->channels_per_socket < 1)
    return model_fail(error, "memory.channels_per_socket", "a socket needs at least 1 memory channel, got %d",
                      m->channels_per_socket);
  if (m->channels_per_socket % t->nps != 0)
    return model_fail(error, "memory.channels_per_socket", "%d channels per socket do not split over NPS%d nodes",
                      m->channels_per_socket, t->nps);
  if (m->speed_tps <= 0 || m->bus_bytes <= 0) return model_fail(error, "memory.speed", "memory speed must be positive");
  if (m->latency_ns <= 0) return model_fail(error, "memory.latency", "memory latency must be positive");
  if (!(m->mlp >= 1)) return model_fail(error, "memory.mlp", "at least one line in flight per core, got %g", m->mlp);
  return TRUE;
}

/* ---- the component (component.h) --------------------------------------------------------- */

#define F(m) offsetof(AppConf, m)

/* sanity bounds: 1 TB/s and 10 us are far above any DRAM node's read bandwidth and loaded latency */
static const SimConfField mem_point_schema[] = { { .key = "bandwidth",
                                                   .type = SIM_CONF_T_DOUBLE,
                                                   .offset = offsetof(MemCurvePoint, bandwidth_Bps),
                                                   .unit = SIM_UNIT_BYTE_RATE,
                                                   .required = true,
                                                   .min = "0",
                                                   .max = "10 TB/s",
                                                   .doc = "read bandwidth of the row (MLC's MB/sec column)" },
                                                 { .key = "latency",
                                                   .type = SIM_CONF_T_DOUBLE,
                                                   .offset = offsetof(MemCurvePoint, latency_ns),
                                                   .unit = SIM_UNIT_TIME,
                                                   .required = true,
                                                   .min = "0",
                                                   .min_exclusive = true,
                                                   .max = "10 us",
                                                   .doc = "loaded latency of the row (MLC's latency column)" },
                                                 SIM_CONF_END };

static const SimConfField mem_curve_schema[] = {
  { .key = "source",
    .type = SIM_CONF_T_STRING,
    .offset = offsetof(MemCurveConf, source),
    .doc = "where the rows come from (tool and version, CPU, DIMMs, URL or repo/path)" },
  { .key = "capacity",
    .type = SIM_CONF_T_DOUBLE,
    .offset = offsetof(MemCurveConf, capacity_Bps),
    .unit = SIM_UNIT_BYTE_RATE,
    .min = "0",
    .min_exclusive = true,
    .max = "10 TB/s",
    .doc = "the bandwidth at utilisation 1 when the rows do not reach it (absent: "
           "the largest row's, MLC's peak; memory.h)" },
  { .key = "points",
    .type = SIM_CONF_T_LIST,
    .offset = offsetof(MemCurveConf, points),
    .sub = mem_point_schema,
    .elem_size = sizeof(MemCurvePoint),
    .min_items = 2,
    .max_items = MEM_CURVE_MAX,
    .doc = "read-only rows, lowest load first; rows on the bandwidth plateau after "
           "the first are dropped as saturated (memory.h)" },
  SIM_CONF_END
};

const SimConfField memory_schema[] = {
  /* sanity bound: 12 DDR5 channels per socket on Genoa/Turin/Granite Rapids */ { .key = "channels_per_socket",
                                                                                  .type = SIM_CONF_T_INT,
                                                                                  .offset = F(a.mem.channels_per_socket),
                                                                                  .required = true,
                                                                                  .min = "0",
                                                                                  .max = "32",
                                                                                  .doc = "populated DRAM channels per socket" },
  { .key = "speed",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(a.mem.speed_tps),
    .unit = SIM_UNIT_TRANSFER_RATE,
    .required = true,
    .min = "100 MT/s",
    .max = "20000 MT/s",
    .doc = "DIMM transfer rate (DDR4 1600-3200, DDR5 4800-8800 MT/s)" },
  /* sanity bound: a DDR channel is 8 bytes wide */
  { .key = "bus_width",
    .type = SIM_CONF_T_DOUBLE,
    .whole = true,
    .offset = F(a.mem.bus_bytes),
    .unit = SIM_UNIT_SIZE,
    .def = "8 B",
    .min = "1",
    .max = "64 B",
    .doc = "bytes per transfer per channel (64-bit DDR channel)" },
  /* sanity bound: idle DRAM latency is 80-150 ns */
  { .key = "latency",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(a.mem.latency_ns),
    .unit = SIM_UNIT_TIME,
    .def = "90 ns",
    .min = "1 ns",
    .max = "10 us",
    .doc = "idle local DRAM latency (assumption: typical DDR4 server figure)" },
  { .key = "load_latency",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(mem_load_latency_ns),
    .unit = SIM_UNIT_TIME,
    .min = "0",
    .max = "10 us",
    .doc = "a line instead of a measured curve: latency added at full bandwidth, linear in "
           "utilisation (not with loaded_latency; neither: the default curve, memory.h)" },
  { .key = "loaded_latency",
    .type = SIM_CONF_T_MAP,
    .offset = F(mem_curve),
    .sub = mem_curve_schema,
    .doc = "a measured read-only loaded-latency curve (Intel MLC --loaded_latency); absent "
           "with load_latency absent: the Xeon Silver 4110 curve (assumed, memory.h)" },
  { .key = "type",
    .type = SIM_CONF_T_ENUM,
    .offset = F(a.mem.type),
    .enum_names = mem_type_names,
    .def = "auto",
    .doc = "DDR generation, for the read/write turnaround (auto: DDR5 from 4000 MT/s, "
           "JEDEC speed bins; memory.h)" },
  { .key = "rw_turnaround",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(a.mem.rw_turnaround),
    .min = "0",
    .max = "0.9",
    .doc =
        "bandwidth fraction lost at a 1:1 read/write mix on this platform (Intel MLC --peak_injection_bandwidth); absent: the DDR generation's (coeffs.c)" },
  { .key = "mlp",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(a.mem.mlp),
    .def = "10",
    .min = "1",
    .max = "256",
    .doc = "cache lines in flight per core: caps CPU reads at cores x mlp x 64 B / loaded "
           "latency (assumed 10: the order of the L1D miss buffers, memory.h)" },
  { .key = "installed",
    .type = SIM_CONF_T_DOUBLE,
    .whole = true,
    .offset = F(a.pc.installed_bytes),
    .unit = SIM_UNIT_SIZE,
    .def = "0 B",
    .min = "0",
    .doc = "RAM fitted (0: not given), set against the RAM needed (ram.h)" },
  SIM_CONF_END
};

/* DDR4 speed bins end at 3200 MT/s (JEDEC JESD79-4), DDR5's start at 4800 (JESD79-5): auto reads
 * DDR5 from this speed up. */
#define MEM_DDR5_FROM_TPS 4.0e9

MemType mem_type_of_speed(double speed_tps)
{
  return speed_tps >= MEM_DDR5_FROM_TPS ? MEM_TYPE_DDR5 : MEM_TYPE_DDR4;
}

/* Layer of a scenario value: 1 an included platform file, 2 the scenario's own file, 3 a value set
 * on top of the files (--set, a sweep point: line 0, sim/conf.h). */
static int layer_of(const SimConfNode *root, const SimConfNode *n)
{
  if (sim_conf_node_line(n) == 0) return 3;
  return g_strcmp0(sim_conf_node_file(n), sim_conf_node_file(root)) == 0 ? 2 : 1;
}

/* The loaded-latency curve (the measured rows, the line, or the default) and the DDR generation;
 * located errors at memory.loaded_latency.points[i]. The curve is one value: a line or a curve
 * given in a higher layer (layer_of) replaces a lower layer's whole, so a scenario's line or rows
 * replace the platform file's curve, its source and capacity with it; both keys in one layer are
 * an error. */
static gboolean memory_finish(AppConf *c, const SimConfNode *root, GError **error)
{
  MemoryCfg *m = &c->a.mem;
  const SimConfNode *mem = sim_conf_node_get(root, "memory");
  const SimConfNode *line = mem ? sim_conf_node_get(mem, "load_latency") : NULL;
  const SimConfNode *curve = mem ? sim_conf_node_get(mem, "loaded_latency") : NULL;
  const SimConfNode *rows = curve ? sim_conf_node_get(curve, "points") : NULL;
  int curve_layer = curve ? layer_of(root, rows ? rows : curve) : 0, line_layer = line ? layer_of(root, line) : 0;
  if (m->type == MEM_TYPE_AUTO) m->type = mem_type_of_speed(m->speed_tps);
  if (!mem || !sim_conf_node_get(mem, "rw_turnaround")) m->rw_turnaround = -1; /* the generation's (mem_turnaround) */
  if (line && curve && line_layer == curve_layer)
    return app_conf_error(error, root, "memory.loaded_latency", SIM_CONF_ERROR_RANGE,
                          "give memory.load_latency (a line) or memory.loaded_latency (a measured curve), not both");
  if (line && line_layer > curve_layer) {
    mem_curve_line(&m->load, c->mem_load_latency_ns);
    g_strlcpy(m->load_source, "memory.load_latency (a line)", sizeof m->load_source);
    return TRUE;
  }
  if (!curve) {
    const char *src;
    mem_curve_default(&m->load, &src);
    g_strlcpy(m->load_source, src, sizeof m->load_source);
    return TRUE;
  }
  /* a lower layer's source and capacity belong to the curve these rows replace */
  const SimConfNode *cap = sim_conf_node_get(curve, "capacity"), *src = sim_conf_node_get(curve, "source");
  if (cap && layer_of(root, cap) < curve_layer) c->mem_curve.capacity_Bps = 0;
  if (src && layer_of(root, src) < curve_layer) g_clear_pointer(&c->mem_curve.source, g_free);
  /* not .required in the schema: an absent map binds its keys' defaults too (sim/conf_bind.c) */
  if (!c->mem_curve.source || !*c->mem_curve.source)
    return app_conf_error(error, root, "memory.loaded_latency.source", SIM_CONF_ERROR_MISSING,
                          "a measured curve needs its source (tool and version, CPU, DIMMs, URL or repo/path)");
  int n = (int)c->mem_curve.points.n;
  double bw[MEM_CURVE_MAX], lat[MEM_CURVE_MAX];
  for (int i = 0; i < n && i < MEM_CURVE_MAX; i++) {
    const MemCurvePoint *p = SIM_CONF_LIST_AT(c->mem_curve.points, MemCurvePoint, i);
    bw[i] = p->bandwidth_Bps;
    lat[i] = p->latency_ns;
  }
  const char *why = NULL;
  int bad = mem_curve_from_points(bw, lat, n, c->mem_curve.capacity_Bps, &m->load, NULL, &why);
  if (bad >= 0) {
    g_autofree char *at = g_strdup_printf("memory.loaded_latency.points[%d]", bad);
    return app_conf_error(error, root, at, SIM_CONF_ERROR_RANGE, "%s", why);
  }
  g_strlcpy(m->load_source, c->mem_curve.source ? c->mem_curve.source : "", sizeof m->load_source);
  return TRUE;
}

static gboolean memory_component_validate(const Appliance *a, GError **error)
{
  return mem_validate(&a->mem, &a->topo, error);
}

typedef struct {
  int lines[TOPO_MAX_NODES];                     /* cpu_lines.nodeN */
  double rd[TOPO_MAX_NODES], wr[TOPO_MAX_NODES]; /* read / write bytes per served byte, tallied by the touch hook */
} MemRes;

double mem_wait_ns(const DmResource *r, double rho)
{
  return mem_curve_ns(&r->wait_curve, rho);
}

/* dram.nodeN: bytes/s; the capacity depends on the node's read/write mix, set once every class
 * is in (memory_settle_resources); its loaded latency is the curve W(utilisation) (memory.h).
 * cpu_lines.nodeN: the lines the node's cores can hold in flight (cores x mlp), a concurrency
 * whose load is CPU read bytes/s x latency / 64 B (Little's law). */
static void memory_add_resources(AppBuild *b, void *state)
{
  MemRes *s = state;
  const Appliance *a = b->a;
  char nm[40];
  b->dram_res = g_new(int, b->nodes);
  for (int n = 0; n < b->nodes; n++) {
    g_snprintf(nm, sizeof nm, "dram.node%d", n);
    b->dram_res[n] = app_build_add_res(b, nm, RK_DRAM, 0 /* set after totals */, 1.0, 1e-9, "GB/s", n);
    app_build_res(b, b->dram_res[n])->wait_curve = a->mem.load; /* a copy: the model outlives the appliance */
    app_build_res(b, b->dram_res[n])->wait_ns = mem_wait_ns;
  }
  for (int n = 0; n < b->nodes && !b->loop; n++) {
    g_snprintf(nm, sizeof nm, "cpu_lines.node%d", n);
    double lines = (double)a->topo.cores_per_socket / a->topo.nps * a->mem.mlp;
    s->lines[n] = app_build_add_res(b, nm, RK_CPU_LINES, lines, 1.0, 1.0, "lines", n);
  }
}

/* Every touch reads or writes its bytes on the memory node (the node's read/write mix tallied for
 * memory_settle_resources); a CPU read holds one of its cores' line slots for the line's latency,
 * idle plus the memory node's load term (demand.h). */
static void memory_touch_demand(AppBuild *b, void *state, DmClass *k, const AppTouch *t)
{
  MemRes *s = state;
  k->demand[b->dram_res[t->mem_node]] += t->bytes;
  (t->touch->write ? s->wr : s->rd)[t->mem_node] += k->weight * t->bytes;
  TouchAgent ag = t->touch->agent;
  if (t->touch->write || (ag != AG_CPU_CRYPTO && ag != AG_CPU_STACK)) return;
  const Appliance *a = b->a;
  double lat = mem_latency_ns(&a->mem, &a->topo, t->agent_node, t->mem_node);
  k->demand[s->lines[t->agent_node]] += t->bytes * lat * 1e-9 / MEM_LINE_BYTES;
  app_build_add_lat(b, s->lines[t->agent_node], b->dram_res[t->mem_node], t->bytes * 1e-9 / MEM_LINE_BYTES);
}

/* Each node's read/write split of the totals, and its capacity at that mix (memory.h). A loopback
 * host has no touches: its DRAM demand is page-cache misses only, all reads. */
static void memory_settle_resources(AppBuild *b, void *state)
{
  const MemRes *s = state;
  const Appliance *a = b->a;
  DemandModel *m = b->m;
  for (int n = 0; n < b->nodes; n++) {
    m->res[b->dram_res[n]].rd = s->rd[n];
    m->res[b->dram_res[n]].wr = s->wr[n];
  }
  for (int i = 0; i < m->n_class && b->loop; i++)
    m->res[b->dram_res[0]].rd += m->cls[i].weight * m->cls[i].demand[b->dram_res[0]];
  for (int n = 0; n < b->nodes; n++) {
    DmResource *r = &m->res[b->dram_res[n]];
    double tot = r->rd + r->wr;
    double w = tot > 0 ? r->wr / tot : 0.5;
    r->capacity = mem_node_GBps(&a->mem, &a->topo, a->coef.dram_eff, mem_turnaround(&a->mem, &a->coef), w) * 1e9;
  }
}

const AppComponent memory_component = { .name = "memory",
                                        .checked_when_finished = TRUE,
                                        .finish = memory_finish,
                                        .state_size = sizeof(MemRes),
                                        .validate = memory_component_validate,
                                        .add_resources = memory_add_resources,
                                        .touch_demand = memory_touch_demand,
                                        .settle_resources = memory_settle_resources };
