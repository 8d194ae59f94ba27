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
 * TLS context cache: the inline engine encrypts a connection's records with its crypto context
 * (key, IV, record sequence and the record tracker's progress). ConnectX cards keep such contexts
 * in host memory (ICM pages the driver hands the firmware) and cache them on the card; a send of
 * a connection whose context is not cached fetches it by non-posted PCIe reads. Model:
 *   - cache: tls_cache contexts per card (nics[].tls_context_cache; 0: none cached, every burst
 *     fetches); the size is not published for ConnectX-6 Dx: assumed;
 *   - context: tls_ctx_bytes (nics[].tls_context_bytes, 128 B: mlx5 PRM tls_static_params 64 B
 *     + tls_progress_params 12 B + a 16-32 B key, rounded to two 64 B lines);
 *   - accesses: one context lookup per TSO burst (one send WQE per burst; the records of a burst
 *     reuse it: assumed), bursts of the card's N connections interleaved at random, so under
 *     the independent reference model with uniform popularity an LRU cache of C contexts misses
 *         m = max(0, 1 - C / N)                                   (nic_tls_context_miss)
 *     (uniform IRM: any C of the N contexts are cached, each access hits with C / N);
 *   - N: the card's NIC-kTLS connections, connections x the card's share of the ports x the
 *     share of connections on a NIC-kTLS path, connections at the throughput served (the demand
 *     model solves that fixed point, demand.c: DemandModel.sized_Bps);
 *   - per served byte a miss costs ceil(ctx / MRRS) read requests, each holding a tag of the
 *     port's function for the read round trip plus local DRAM latency (as the WQE reads, pcie.h),
 *     and ctx bytes of DRAM read ("NIC context fetch" touch, on the connection's metadata
 *     node) and of the card's PCIe link:
 *         DRAM bytes / byte = m ctx / burst      tag-s / byte = m ceil(ctx / MRRS) (rtt + L) / burst
 *   So connections (bitrate mix x throughput) are an input: more connections, more misses.
 *   euro2021 quotes about 400k sessions at 400 Gb/s and says the card pages state to host
 *   memory when it runs out (published.yaml general.nic_tls_state).
 * Leaves out: flow-control pause frames, per-queue RSS imbalance, the write-back of an evicted
 * context's progress state, popularity skew among connections (a skewed access stream misses less).
 */
#ifndef MODELS_NIC_H
#define MODELS_NIC_H
#include "models/pcie.h"
#include "models/topology.h"
#include "sim/conf.h"
#include <stdbool.h>

/* Most ports per card (array size; the ports key allows 1..4: quad-port cards exist). */
#define NIC_MAX_PORTS 4

/* nics[].kind: a PCIe card, or loopback: the clients run on this host (loopback.h). */
#define NIC_KIND_MAP(X) X(NIC_PCIE, "pcie") X(NIC_LOOPBACK, "loopback")
typedef enum { NIC_KIND_MAP(APP_ENUM_ID) NIC_KIND_COUNT } NicKind;
APP_ENUM_DECLARE(nic_kind);

typedef struct {
  int group;                  /* the scenario's NIC group it was expanded from: its key path is nics[group] */
  int id;                     /* the card's index in the healthy box, kept when a failure takes cards out: its
              * resources are nicID.* (failure.h) */
  int port_id[NIC_MAX_PORTS]; /* each port's number on the healthy card: resource nicID.portP */
  int fn_id[NIC_MAX_PORTS];   /* each PCIe requester function's number on the healthy card, and */
  int fn_named;               /* how many it had there: tag spaces pcie.nicID.fF.tags (or pcie.nicID.tags) */
  TopoPos pos;
  int ports;
  double port_bps;           /* line rate of one port, bit/s */
  double ktls_bps;           /* inline TLS engine cap of the card, bit/s, 0 = none */
  double queue_bytes;        /* output queue per port */
  int ring;                  /* transmit descriptors per queue, 0 = not modelled */
  double desc_bytes;         /* payload bytes one descriptor carries */
  double tls_cache;          /* TLS contexts the inline engine caches on the card, 0 = none */
  double tls_ctx_bytes;      /* bytes of one connection's TLS context in host memory */
  int domain[NIC_MAX_PORTS]; /* OS NUMA domain of each port, -1 = the card's node */
  PcieLink link;
  NicKind kind; /* NIC_LOOPBACK: the clients run on this host (loopback.h); no line
                              rate, no PCIe link, no engine */
} NicCard;

/* The NUMA domain connections arriving on port p of the card are bound to. */
int nic_port_domain(const NicCard *n, const Topology *t, int p);
/* TRUE when card n has an inline TLS engine (a PCIe card with ktls_bps > 0): the cards whose
 * TLS context cache and host-memory contexts the model counts. */
gboolean nic_inline_tls(const NicCard *n);

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
