/* memory.c — DRAM bandwidth and latency per NUMA node (see memory.h for the equations). */
#include "models/memory.h"
#include "models/model_error.h"
#include <math.h>

double mem_node_peak_GBps(const MemoryCfg *m, const Topology *t)
{
  return mem_node_channels(m, t) * m->mts * m->bus_bytes / 1000.0;
}

double mem_mix_eff(double dram_eff, double turnaround, double w)
{
  if (w < 0) w = 0;
  if (w > 1) w = 1;
  return dram_eff * (1.0 - turnaround * 4.0 * w * (1.0 - w));
}

double mem_interleave_factor(const MemoryCfg *m, const Topology *t)
{
  double fx = topo_interleave_remote_fraction(t);
  return m->latency_ns / (m->latency_ns + fx * t->intra_penalty_ns);
}

double mem_node_GBps(const MemoryCfg *m, const Topology *t, double dram_eff, double turnaround, double w)
{
  return mem_node_peak_GBps(m, t) * mem_mix_eff(dram_eff, turnaround, w) * mem_interleave_factor(m, t);
}

double mem_latency_ns(const MemoryCfg *m, const Topology *t, int a, int node_m)
{
  return m->latency_ns + topo_interleave_remote_fraction(t) * t->intra_penalty_ns + topo_penalty_ns(t, a, node_m);
}

double mem_node_channels(const MemoryCfg *m, const Topology *t)
{
  return (double)m->channels_per_socket / t->nps;
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

gboolean mem_validate(const MemoryCfg *m, const Topology *t, GError **error)
{
  if (m->channels_per_socket < 1)
    return model_fail(error, "memory.channels_per_socket", "a socket needs at least 1 memory channel, got %d",
                      m->channels_per_socket);
  if (m->channels_per_socket % t->nps != 0)
    return model_fail(error, "memory.channels_per_socket", "%d channels per socket do not split over NPS%d nodes",
                      m->channels_per_socket, t->nps);
  if (m->mts <= 0 || m->bus_bytes <= 0) return model_fail(error, "memory.speed", "memory speed must be positive");
  if (m->latency_ns <= 0) return model_fail(error, "memory.latency", "memory latency must be positive");
  return TRUE;
}
