/* nic.h — a network card: ports, PCIe link, inline kTLS engine, output queues, LACP.
 *
 * What it models: ports of port_bps carrying at most port_bps * port_eff of payload (fitted);
 * an inline kTLS engine of ktls_bps; payload read by non-posted PCIe reads (pcie.h); an output
 * queue of K bursts, dropping the M/M/1/K blocking probability over bursts
 *     K = min(queue_bytes / burst, ring / (ceil(burst / desc_bytes) + 1))    (nic_port_queue_bursts)
 * LACP hashing connections over the lagg's ports, each in an OS NUMA domain; a TLS context
 * cache of C contexts over the card's N NIC-kTLS connections (uniform IRM, LRU)
 *     m = max(0, 1 - C / N)      each miss: ceil(ctx / MRRS) reads, ctx bytes of DRAM per burst
 * Sources: euro2021 (Rome port domains; ~400k sessions at 400 Gb/s); mlx5 PRM (context 128 B);
 * the context cache size is assumed (not published for ConnectX-6 Dx).
 * Leaves out: flow-control pause frames, per-queue RSS imbalance, the write-back of an evicted
 * context's progress state, popularity skew among connections (a skewed access stream misses less).
 * Evidence and history: docs/model/nic.md.
 */
#ifndef MODELS_APPLIANCE_NIC_H
#define MODELS_APPLIANCE_NIC_H
#include "models/appliance/datapath.h"
#include "models/appliance/pcie.h"
#include "models/appliance/topology.h"
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

typedef struct Appliance Appliance;
/* Card `card`'s share of appliance a's flows, so of its connections and served bytes: its ports
 * over all ports (the LACP hash spreads flows evenly over the ports, demand.c); 0 without ports. */
double nic_port_share(const Appliance *a, int card);
/* NIC-kTLS connections whose contexts card `card` holds when the box serves sized_Bps (B/s, the
 * demand model's sizing fixed point, demand.h): connections at sized_Bps x the card's share of the
 * ports (the LACP hash, demand.c) x the share of connections on a NIC-kTLS path. */
double nic_tls_context_connections(const Appliance *a, int card, double sized_Bps);
/* Share of card `card`'s bursts whose TLS context misses its on-card cache at sized_Bps:
 * max(0, 1 - tls_context_cache / connections); 0 on a card without an inline engine. */
double nic_tls_context_miss(const Appliance *a, int card, double sized_Bps);
/* TRUE when some card's context cache misses at the ports' line rate, the most the box serves
 * (misses grow with the load, so below it none can miss when none misses there): the demand then
 * depends on the served throughput (the component's sizing_varies hook). */
gboolean nic_tls_context_varies(const Appliance *a);
/* The label of the TLS context-fetch touch ("NIC context fetch"). */
extern const char NIC_TLS_CTX_TOUCH[];
/* Writes the DRAM touch of the NIC's TLS context fetches for data path `path` at sized_Bps (B/s) to
 * *out: a NIC read of the connection's metadata node, sum over cards of port share x miss x
 * context bytes, per TSO burst. Returns 1, or 0 (nothing written) when the NIC does not encrypt
 * on `path` or nothing misses. */
int nic_tls_context_touch(const Appliance *a, DataPath path, double sized_Bps, Touch *out);

/* The scenario's root rows of this component (components.h: the loader's root schema is the list's
 * rows; expanded where AppConf is defined, component.h). */
#define nic_conf_sections              \
  { .key = "nics",                     \
    .type = SIM_CONF_T_LIST,           \
    .offset = offsetof(AppConf, nics), \
    .sub = nic_group_schema,           \
    .elem_size = sizeof(NicGroup),     \
    .min_items = 1,                    \
    .required = true,                  \
    .doc = "NIC groups" },

#endif /* MODELS_APPLIANCE_NIC_H */
