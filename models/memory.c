/* memory.c — DRAM bandwidth and latency per NUMA node (see memory.h for the equations). */
#include "models/memory.h"
#include "models/component.h"
#include "models/model_error.h"
#include <math.h>

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

double mem_load_ns(const MemoryCfg *m, double u)
{
  return m->load_latency_ns * CLAMP(u, 0.0, 1.0);
}

double mem_cpu_read_cap_GBps(const MemoryCfg *m, const Topology *t, double lat_ns)
{
  g_return_val_if_fail(lat_ns > 0, 0.0);
  double cores = (double)t->cores_per_socket / t->nps;
  return cores * m->mlp * MEM_LINE_BYTES / lat_ns; /* bytes per ns == GB/s */
}

/* Share of STREAM triad traffic that is CPU reads (2 reads : 1 write). */
#define STREAM_READ_SHARE (2.0 / 3.0)

double mem_stream_GBps(const MemoryCfg *m, const Topology *t, double dram_eff, double turnaround)
{
  double cap = mem_node_GBps(m, t, dram_eff, turnaround, 1.0 - STREAM_READ_SHARE);
  double lines_B = (double)t->cores_per_socket / t->nps * m->mlp * MEM_LINE_BYTES / STREAM_READ_SHARE;
  double L = mem_latency_ns(m, t, 0, 0), a = m->load_latency_ns / cap; /* a B^2 + L B - lines_B = 0 */
  double b = a > 0 ? (-L + sqrt(L * L + 4.0 * a * lines_B)) / (2.0 * a) : lines_B / L;
  return topo_nodes(t) * MIN(cap, b);
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
  if (!(m->load_latency_ns >= 0)) return model_fail(error, "memory.load_latency", "loaded latency cannot be negative");
  if (!(m->mlp >= 1)) return model_fail(error, "memory.mlp", "at least one line in flight per core, got %g", m->mlp);
  return TRUE;
}

/* ---- the component (component.h) --------------------------------------------------------- */

#define F(m) offsetof(AppConf, m)

const SimConfField memory_schema[] = { /* sanity bound: 12 DDR5 channels per socket on Genoa/Turin/Granite Rapids */ {
                                           .key = "channels_per_socket",
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
                                         .offset = F(a.mem.load_latency_ns),
                                         .unit = SIM_UNIT_TIME,
                                         .def = "45 ns",
                                         .min = "0",
                                         .doc = "latency added at full bandwidth, linear in utilisation (45 ns: Intel MLC "
                                                "loaded-latency curve of a 2S Xeon Silver 4110, memory.h)" },
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
                                       SIM_CONF_END };

static gboolean memory_component_validate(const Appliance *a, GError **error)
{
  return mem_validate(&a->mem, &a->topo, error);
}

typedef struct {
  int lines[TOPO_MAX_NODES]; /* cpu_lines.nodeN */
} MemRes;

/* dram.nodeN: bytes/s; the capacity depends on the node's read/write mix, set once every class
 * is in (memory_settle_resources); its loaded latency is load_latency * utilisation.
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
    app_build_res(b, b->dram_res[n])->wait_lin_ns = a->mem.load_latency_ns;
  }
  for (int n = 0; n < b->nodes && !b->loop; n++) {
    g_snprintf(nm, sizeof nm, "cpu_lines.node%d", n);
    double lines = (double)a->topo.cores_per_socket / a->topo.nps * a->mem.mlp;
    s->lines[n] = app_build_add_res(b, nm, RK_CPU_LINES, lines, 1.0, 1.0, "lines", n);
  }
}

/* Every touch reads or writes its bytes on the memory node; a CPU read holds one of its cores'
 * line slots for the line's latency, idle plus the memory node's load term (demand.h). */
static void memory_touch_demand(AppBuild *b, void *state, DmClass *k, const AppTouch *t)
{
  const MemRes *s = state;
  k->demand[b->dram_res[t->mem_node]] += t->bytes;
  TouchAgent ag = t->touch->agent;
  if (t->touch->write || (ag != AG_CPU_CRYPTO && ag != AG_CPU_STACK)) return;
  const Appliance *a = b->a;
  double lat = mem_latency_ns(&a->mem, &a->topo, t->agent_node, t->mem_node);
  k->demand[s->lines[t->agent_node]] += t->bytes * lat * 1e-9 / MEM_LINE_BYTES;
  app_build_add_lat(b, s->lines[t->agent_node], b->dram_res[t->mem_node], t->bytes * 1e-9 / MEM_LINE_BYTES);
}

/* Each node's read/write split of the totals, and its capacity at that mix (memory.h). */
static void memory_settle_resources(AppBuild *b, void *state G_GNUC_UNUSED)
{
  const Appliance *a = b->a;
  DemandModel *m = b->m;
  for (int n = 0; n < b->nodes; n++) {
    m->res[b->dram_res[n]].rd = 0;
    m->res[b->dram_res[n]].wr = 0;
  }
  for (int i = 0; i < m->n_class; i++) {
    DmClass *k = &m->cls[i];
    if (b->loop) { /* page-cache misses only, all reads */
      m->res[b->dram_res[0]].rd += k->weight * k->demand[b->dram_res[0]];
      continue;
    }
    Touch tt[DP_MAX_TOUCHES];
    int nt = app_build_touches(b, k, tt);
    for (int j = 0; j < nt; j++) {
      int mnode = app_build_buf_node(b, k, tt[j].buf);
      for (int n = 0; n < b->nodes; n++) {
        double p = mnode < 0 ? 1.0 / b->nodes : (mnode == n);
        if (p == 0) continue;
        if (tt[j].write)
          m->res[b->dram_res[n]].wr += k->weight * tt[j].bytes * p;
        else
          m->res[b->dram_res[n]].rd += k->weight * tt[j].bytes * p;
      }
    }
  }
  for (int n = 0; n < b->nodes; n++) {
    DmResource *r = &m->res[b->dram_res[n]];
    double tot = r->rd + r->wr;
    double w = tot > 0 ? r->wr / tot : 0.5;
    r->capacity = mem_node_GBps(&a->mem, &a->topo, a->coef.dram_eff, a->coef.dram_turnaround, w) * 1e9;
  }
}

const AppComponent memory_component = { .name = "memory",
                                        .checked_when_finished = TRUE,
                                        .state_size = sizeof(MemRes),
                                        .validate = memory_component_validate,
                                        .add_resources = memory_add_resources,
                                        .touch_demand = memory_touch_demand,
                                        .settle_resources = memory_settle_resources };
