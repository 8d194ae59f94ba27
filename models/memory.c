/* memory.c — DRAM bandwidth and latency per NUMA node (see memory.h for the equations). */
#include "models/memory.h"
#include "models/component.h"
#include "models/model_error.h"
#include <math.h>

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

/* Latency factor L0/(L0 + f_x P_q) of the node's own interleave. */
static double mem_interleave_factor(const MemoryCfg *m, const Topology *t)
{
  double fx = topo_interleave_remote_fraction(t);
  return m->latency_ns / (m->latency_ns + fx * t->intra_penalty_ns);
}

/* Usable bandwidth of one node, GB/s, at write fraction w. */
static double mem_node_GBps(const MemoryCfg *m, const Topology *t, double dram_eff, double turnaround, double w)
{
  return mem_node_peak_GBps(m, t) * mem_mix_eff(dram_eff, turnaround, w) * mem_interleave_factor(m, t);
}

double mem_latency_ns(const MemoryCfg *m, const Topology *t, int a, int node_m)
{
  return m->latency_ns + topo_interleave_remote_fraction(t) * t->intra_penalty_ns + topo_penalty_ns(t, a, node_m);
}

double mem_queue_ns(double channels, double node_GBps, double rho)
{
  if (rho <= 0) return 0.0;
  if (rho >= 1.0) return INFINITY;
  double service_ns = 64.0 / (node_GBps / channels); /* one line on one channel; GB/s == B/ns */
  return rho / (2.0 * (1.0 - rho)) * service_ns;
}

double mem_stream_GBps(const MemoryCfg *m, const Topology *t, double dram_eff, double turnaround)
{
  return topo_nodes(t) * mem_node_GBps(m, t, dram_eff, turnaround, 1.0 / 3.0);
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
  return TRUE;
}

/* ---- the component (component.h) --------------------------------------------------------- */

#define F(m) offsetof(AppConf, m)

const SimConfField memory_schema[] = { { .key = "channels_per_socket",
                                         .type = SIM_CONF_T_INT,
                                         .offset = F(a.mem.channels_per_socket),
                                         .required = true,
                                         .min = "0",
                                         .doc = "populated DRAM channels per socket" },
                                       { .key = "speed",
                                         .type = SIM_CONF_T_DOUBLE,
                                         .offset = F(a.mem.speed_tps),
                                         .unit = SIM_UNIT_TRANSFER_RATE,
                                         .required = true,
                                         .min = "100 MT/s",
                                         .max = "20000 MT/s",
                                         .doc = "DIMM transfer rate (DDR4 1600-3200, DDR5 4800-8800 MT/s)" },
                                       { .key = "bus_width",
                                         .type = SIM_CONF_T_DOUBLE,
                                         .whole = true,
                                         .offset = F(a.mem.bus_bytes),
                                         .unit = SIM_UNIT_SIZE,
                                         .def = "8 B",
                                         .min = "1",
                                         .doc = "bytes per transfer per channel (64-bit DDR channel)" },
                                       { .key = "latency",
                                         .type = SIM_CONF_T_DOUBLE,
                                         .offset = F(a.mem.latency_ns),
                                         .unit = SIM_UNIT_TIME,
                                         .def = "90 ns",
                                         .min = "0",
                                         .min_exclusive = true,
                                         .doc = "idle local DRAM latency (assumption: typical DDR4 server figure)" },
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

/* dram.nodeN: bytes/s; the capacity depends on the node's read/write mix, set once every class
 * is in (memory_settle_resources). */
static void memory_add_resources(AppBuild *b, void *state G_GNUC_UNUSED)
{
  b->dram_res = g_new(int, b->nodes);
  for (int n = 0; n < b->nodes; n++) {
    char nm[40];
    g_snprintf(nm, sizeof nm, "dram.node%d", n);
    b->dram_res[n] = app_build_add_res(b, nm, RK_DRAM, 0 /* set after totals */, 1.0, 1e-9, "GB/s", n);
  }
}

/* Every touch reads or writes its bytes on the memory node. */
static void memory_touch_demand(AppBuild *b, void *state G_GNUC_UNUSED, DmClass *k, const AppTouch *t)
{
  k->demand[b->dram_res[t->mem_node]] += t->bytes;
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
  m->dram_channels = mem_node_channels(&a->mem, &a->topo);
}

const AppComponent memory_component = { .name = "memory",
                                        .checked_when_finished = TRUE,
                                        .validate = memory_component_validate,
                                        .add_resources = memory_add_resources,
                                        .touch_demand = memory_touch_demand,
                                        .settle_resources = memory_settle_resources };
