/* topology.h — sockets, NUMA nodes, I/O quadrants and the fabric links between them.
 *
 * What it models: a server of S sockets, each split into Q physical quadrants (I/O-die
 * quadrants on AMD EPYC, dies on Naples, one quadrant on a monolithic Xeon). The BIOS NPS
 * setting (nodes per socket, NPS1/NPS2/NPS4) groups the quadrants into NUMA nodes:
 *     node(socket s, quadrant q) = s * NPS + q / (Q / NPS).
 * Every device (memory channel, NVMe drive, NIC) and every core sits at a (socket, quadrant)
 * position, so one platform description serves every NPS setting.
 * Fabric: quadrants of a socket are fully meshed by intra-socket links (Infinity Fabric on
 * the I/O die, or Naples' die-to-die links); sockets are joined by inter-socket links
 * (xGMI on EPYC, UPI on Xeon). Per-direction capacity of an inter-socket link, for traffic
 * type y (CPU reads, device posted writes, device reads):
 *     C_y = width * GT/s / 8 * encoding * fabric_eff * eff_y   [GB/s]
 * A byte of type y loads the link's resource (capacity at eff_y = 1) by 1 / eff_y. NVMe posted
 * writes arrive as MPS-sized TLPs and cross as 64-B coherent writes, CPU reads as 64-B read
 * responses; no source gives per-type xGMI or UPI efficiencies, so eff_y defaults to 1
 * (assumed) and is a key of each link group.
 * Width state (DLWM): with dynamic link width management the link runs at the narrowest width
 * of min_width, 2 min_width, ... width that carries its sustained traffic below dlwm_up of that
 * width's capacity, and narrows only when the traffic falls below dlwm_down of the next narrower
 * width's capacity (hysteresis; topo_dlwm_width). Sustained traffic that would load a narrow
 * width past dlwm_up widens the link, so at saturation a DLWM link carries its full width: the
 * bound and the DES give every link its full width, DLWM's state at the loads where a link's
 * capacity matters. Below those loads a narrow link is slower: at width w of a full width W its
 * line takes W / w as long and it runs W / w as busy, so its wait (below) grows to
 * (W/w) t rho' / (1 - rho'), rho' = (W/w) rho, at the width DLWM settles at from its minimum
 * under that load (demand_wait_ns), and the remote stall with it. (nab2022: BIOS-default DLWM
 * left the 800G box's links "running narrow (suspected x2)" at 420 Gb/s; no source says why they
 * did not widen, and the model does not invent a stuck-narrow state:
 * scenarios/reference/milan2022_default_bios.yaml carries that deviation.)
 * Routing (topology.link_routing): by_kind (default) routes per platform kind. On EPYC (xgmi
 * links) device traffic takes the link attached to the DMA-ing device's IO quadrant, as the
 * 800G box shows (euro2022/nab2022: uneven drive placement over the quadrants, uneven link
 * load), falling back to quadrant mod links; CPU traffic is address-interleaved over every link.
 * On Intel (upi links) every remote access is interleaved by physical address: the link is
 * chosen by indexing a routing table with address bits (4th Gen Xeon Scalable datasheet vol. 2,
 * UPIROUTINGTABLE / UpiRoutingConfig.UpiInterleaveMode). interleave and device force one rule
 * for every link kind (what-ifs). An intra-socket access between two NPS nodes uses the
 * aggregate of the quadrant links between them.
 * Loaded link latency: a remote CPU read waits on the link it crosses, M/M/1 with one 64-B line
 * as the service (demand_wait_ns: line time * rho / (1 - rho) at the link's utilisation), which
 * adds stall cycles at k_remote, the exposed fraction of a remote line's whole latency (cpu.h),
 * as the DRAM queueing of that line does (demand.h). It is small (2.6 ns at the Skylake no-silo
 * row's 41 % UPI): what a remote line costs is its whole latency, not the link's queue (cpu.h).
 * Leaves out: multi-hop routing inside a socket for inter-socket traffic, link-level
 * retries, coherence probe traffic, and more than one hop between sockets.
 */
#ifndef MODELS_TOPOLOGY_H
#define MODELS_TOPOLOGY_H
#include "models/app_enum.h"
#include "sim/conf.h"
#include <glib.h>
#include <stdbool.h>

/* Topology limits: two sockets (every published box), four quadrants per socket (an EPYC IO
 * die), nodes, and inter-socket links (xGMI: up to 4 per socket pair; assumed headroom). */
#define TOPO_MAX_SOCKETS 2
#define TOPO_MAX_QUADS   4
#define TOPO_MAX_NODES   (TOPO_MAX_SOCKETS * TOPO_MAX_QUADS)
#define TOPO_MAX_LINKS   8

/* Inter-socket link kinds (topology.links[].kind; also the prefix of their resource names). */
#define TOPO_LINK_KIND_MAP(X) X(TOPO_LINK_XGMI, "xgmi") X(TOPO_LINK_UPI, "upi")
typedef enum { TOPO_LINK_KIND_MAP(APP_ENUM_ID) TOPO_LINK_KIND_COUNT } TopoLinkKind;
APP_ENUM_DECLARE(topo_link_kind);

/* How remote traffic picks an inter-socket link (topology.link_routing, see above). */
#define TOPO_LINK_ROUTING_MAP(X) \
  X(TOPO_ROUTE_BY_KIND, "by_kind") X(TOPO_ROUTE_INTERLEAVE, "interleave") X(TOPO_ROUTE_DEVICE, "device")
typedef enum { TOPO_LINK_ROUTING_MAP(APP_ENUM_ID) TOPO_LINK_ROUTING_COUNT } TopoLinkRouting;
APP_ENUM_DECLARE(topo_link_routing);

/* NUMA domain of NIC ports without explicit domains (topology.port_domains): the card's node,
 * or global port p on node p mod N. */
#define TOPO_PORT_DOMAINS_MAP(X) X(TOPO_PORTS_CARD, "card") X(TOPO_PORTS_SPREAD, "spread")
typedef enum { TOPO_PORT_DOMAINS_MAP(APP_ENUM_ID) TOPO_PORT_DOMAINS_COUNT } TopoPortDomains;
APP_ENUM_DECLARE(topo_port_domains);

/* A position in the machine: socket and physical quadrant. */
typedef struct {
  int socket;
  int quadrant;
} TopoPos;

/* One inter-socket link (per-direction figures). */
typedef struct {
  TopoLinkKind kind;
  int width;                  /* data lanes per direction (x16 xGMI; 16 data bits of a 20-lane UPI link) */
  double rate_tps;            /* transfers/s per lane (18 GT/s: 18e9) */
  double encoding;            /* line-code efficiency; 1.0 by default: the raw figures count data (xGMI x16 at
                             18 GT/s = 36 GB/s per direction, published.yaml general; UPI width = 16 data bits) */
  bool dlwm;                  /* dynamic link width management on */
  int dlwm_width;             /* DLWM's minimum width */
  double dlwm_up, dlwm_down;  /* DLWM widens above dlwm_up, narrows below dlwm_down of a width's capacity */
  double eff_cpu_read;        /* payload efficiency of CPU read responses, relative to fabric_eff */
  double eff_dev_write;       /* of device posted writes (DMA into memory) */
  double eff_dev_read;        /* of device read completions (DMA out of memory) */
  int quad[TOPO_MAX_SOCKETS]; /* quadrant the link attaches to on each socket (routing by device position) */
} TopoLink;

typedef struct {
  int sockets;            /* 1..TOPO_MAX_SOCKETS */
  int quadrants;          /* physical quadrants per socket (1, 2 or 4) */
  int nps;                /* NUMA nodes per socket (BIOS NPS1/NPS2/NPS4; 1 on Intel without SNC) */
  unsigned nps_supported; /* bit n set when NPSn is allowed on this CPU */
  int cores_per_socket;
  double intra_link_Bps;        /* per-direction raw bandwidth of one quadrant-to-quadrant link, B/s */
  double intra_penalty_ns;      /* latency added to an access that crosses to another quadrant */
  double inter_penalty_ns;      /* latency added to an access that crosses to the other socket */
  TopoLinkRouting link_routing; /* device: DMA takes the link at the device's quadrant; interleave: by address */
  TopoPortDomains port_domains; /* NUMA domain of NIC ports without explicit domains */
  int n_links;                  /* inter-socket links */
  TopoLink links[TOPO_MAX_LINKS];
} Topology;

/* Number of NUMA nodes (sockets * nps). */
int topo_nodes(const Topology *t);
/* NUMA node of a position; -1 when the position does not exist. */
int topo_node_of(const Topology *t, TopoPos p);
/* Quadrants per node (Q / NPS). */
int topo_quads_per_node(const Topology *t);
/* Fraction of a node's memory lines that live in a quadrant other than the requester's
 * (memory is interleaved over the node's quadrants): 1 - 1/(Q/NPS). */
double topo_interleave_remote_fraction(const Topology *t);
/* Width state of link l under DLWM (topology.h) carrying sustained per-direction traffic
 * load_GBps, coming from width prev (0: from the minimum width): the width it settles at;
 * l->width when DLWM is off. Capacity per width at fabric efficiency eff (0..1]. */
int topo_dlwm_width(const TopoLink *l, double eff, double load_GBps, int prev);
/* Per-direction raw capacity of link l at width w lanes, GB/s (before fabric_eff). */
double topo_link_width_GBps(const TopoLink *l, int w);
/* Latency penalty (ns) of an access from node a to memory on node m (0 when a == m). */
double topo_penalty_ns(const Topology *t, int a, int m);

/* Schema rows of a device group's place: `socket` and `quadrant` into the TopoPos at offset
 * pos_off, or `node` (NUMA node at the platform's NPS, -1: by position) into the int at node_off. */
#define TOPO_PLACE_ROWS(pos_off, node_off)                                                 \
  { .key = "socket",                                                                       \
    .type = SIM_CONF_T_INT,                                                                \
    .offset = (pos_off) + offsetof(TopoPos, socket),                                       \
    .def = "0",                                                                            \
    .min = "0",                                                                            \
    .doc = "socket" },                                                                     \
      { .key = "quadrant",                                                                 \
        .type = SIM_CONF_T_INT,                                                            \
        .offset = (pos_off) + offsetof(TopoPos, quadrant),                                 \
        .def = "0",                                                                        \
        .min = "0",                                                                        \
        .doc = "I/O quadrant of the socket" },                                             \
  {                                                                                        \
    .key = "node", .type = SIM_CONF_T_INT, .offset = (node_off), .def = "-1", .min = "-1", \
    .doc = "NUMA node (instead of socket/quadrant), at the platform's NPS"                 \
  }

/* A group of identical inter-socket links as the scenario gives it (topology.links[]). */
typedef struct {
  int count;          /* identical links */
  SimConfList attach; /* int: quadrant each link attaches to */
  TopoLink link;
} TopoLinkGroup;

/* Keys of the scenario's `topology:` section (component.h: offsets into AppConf). */
extern const SimConfField topology_schema[];

#endif /* MODELS_TOPOLOGY_H */
