/* nic.h — a network card: ports, PCIe link, inline kTLS engine, output queues, LACP.
 *
 * What it models: a card at a (socket, quadrant) position with `ports` ports of port_bps.
 * A port carries at most port_bps * port_eff of TLS payload (port_eff, a shared fitted
 * coefficient, covers Ethernet/IP/TCP/TLS framing and the drop-free ceiling of a real
 * port). An inline kTLS engine encrypts at most ktls_bps per card (0: no engine).
 * The card reads payload from host memory by non-posted PCIe reads (pcie.h tag ceiling).
 * Each port has an output queue of queue_bytes. The stack hands the port whole TSO bursts, so
 * the queue holds K = queue_bytes / burst bursts; a transmit ring of `ring` descriptors per
 * queue (0: not modelled) holds fewer when descriptors run out first: a burst takes
 * ceil(burst / desc_bytes) + 1 descriptors (one per payload page, one for the headers), so
 *     K = min(queue_bytes / burst, ring / (ceil(burst / desc_bytes) + 1))      (nic_port_queue_bursts)
 * With rings of 1-8 k descriptors K is tens of bursts, so microbursts drop below line rate (a
 * 1024-descriptor ring and 64 KiB bursts of 4 KiB pages: K = 60, 0.24 % dropped at 95 % load),
 * and a drop criterion (ocasim capacity) can bind below saturation. The fraction of offered bytes it drops at
 * offered load rho (offered / capacity) is the M/M/1/K blocking probability over bursts
 * (nic_port_drop_fraction): negligible well below line rate, 1/(K+1) at rho = 1, and tending
 * to 1 - 1/rho above it. Bound, DES and capacity all use it.
 * LACP: the switch hashes connections over all ports of the lagg, weighted by port speed;
 * each port has an OS NUMA domain (`domain`) the connection is bound to; by default the
 * card's node, but a platform may spread ports of one card over nodes (Rome "as built":
 * four ports mapped to four NPS4 domains, NICs physically on two of them, euro2021).
 * TLS sessions: the inline engine keeps each connection's TLS state on the card; a card may hold
 * state for at most tls_sessions connections (0: not modelled). Every connection served with
 * sendfile_nic_ktls holds one session for its lifetime, so per served byte it holds
 * 8 / mean bitrate session-seconds (connections = throughput / mean bitrate, workload.h) and
 * the card's sessions are a resource nicN.tls_sessions whose load is the card's connections:
 * the bound names it when they exceed the card's capacity. Treated as a hard limit (assumed);
 * a real card pages state to host memory beyond it (about 400k sessions at 400 Gb/s, euro2021).
 * Leaves out: flow-control pause frames, per-queue RSS imbalance, the cost of session-state
 * paging.
 */
#ifndef MODELS_NIC_H
#define MODELS_NIC_H
#include "models/pcie.h"
#include "models/topology.h"
#include "sim/conf.h"
#include <stdbool.h>

#define NIC_MAX_PORTS 4

/* nics[].kind: a PCIe card, or loopback: the clients run on this host (loopback.h). */
#define NIC_KIND_MAP(X) X(NIC_PCIE, "pcie") X(NIC_LOOPBACK, "loopback")
typedef enum { NIC_KIND_MAP(APP_ENUM_ID) NIC_KIND_COUNT } NicKind;
APP_ENUM_DECLARE(nic_kind);

typedef struct {
  int group; /* the scenario's NIC group it was expanded from: its key path is nics[group] */
  TopoPos pos;
  int ports;
  double port_bps;           /* line rate of one port, bit/s */
  double ktls_bps;           /* inline TLS engine cap of the card, bit/s, 0 = none */
  double queue_bytes;        /* output queue per port */
  int ring;                  /* transmit descriptors per queue, 0 = not modelled */
  double desc_bytes;         /* payload bytes one descriptor carries */
  double tls_sessions;       /* connections the inline engine holds TLS state for, 0 = not modelled */
  int domain[NIC_MAX_PORTS]; /* OS NUMA domain of each port, -1 = the card's node */
  PcieLink link;
  NicKind kind; /* NIC_LOOPBACK: the clients run on this host (loopback.h); no line
                              rate, no PCIe link, no engine */
} NicCard;

/* The NUMA domain connections arriving on port p of the card are bound to. */
int nic_port_domain(const NicCard *n, const Topology *t, int p);

/* A group of identical cards as the scenario gives it (nics[]). */
typedef struct {
  int count;           /* identical cards */
  int node;            /* NUMA node instead of socket/quadrant, -1: by position */
  char *model;         /* documentation */
  SimConfList domains; /* int: NUMA domain of each port of the group, card by card */
  NicCard card;
} NicGroup;

/* Keys of one nics[] group (offsets into NicGroup). */
extern const SimConfField nic_group_schema[];

/* Output queue of card n in TSO bursts of burst_bytes (> 0): the smaller of its bytes and its
 * ring's descriptors (see above), at least 1. */
double nic_port_queue_bursts(const NicCard *n, double burst_bytes);

/* Fraction of the bytes offered to a port that its output queue drops, at offered load rho
 * (offered bytes/s over the port's capacity, >= 0) with room for k_bursts bursts (>= 1):
 * the M/M/1/K blocking probability P_K = (1 - rho) rho^K / (1 - rho^(K+1)) (Kleinrock,
 * "Queueing Systems, Vol. 1", 1975, Sec. 3.6), written as (1 - r) / (1 - r^(K+1)) with
 * r = 1/rho above rho = 1 so it stays finite; 1/(K+1) at rho = 1. Poisson burst arrivals are
 * an assumption: many independent TCP connections share a port. Increasing in rho. */
double nic_port_drop_fraction(double rho, double k_bursts);

#endif /* MODELS_NIC_H */
