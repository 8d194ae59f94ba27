/* topology.h — sockets, NUMA nodes, I/O quadrants and the fabric links between them.
 *
 * What it models: S sockets of Q quadrants grouped by the BIOS NPS setting into NUMA nodes,
 *     node(socket s, quadrant q) = s * NPS + q / (Q / NPS)
 * every device and core at a (socket, quadrant); intra-socket links meshing the quadrants and
 * inter-socket links (xGMI, UPI) of per-direction capacity for traffic type y
 *     C_y = width * GT/s / 8 * encoding * fabric_eff * eff_y   [GB/s]   (eff_y assumed 1)
 * DLWM width state with hysteresis (topo_dlwm_width); routing by platform kind (device traffic
 * on its quadrant's link on EPYC, address-interleaved on Intel); a remote read's link wait is
 * M/M/1 of one 64-B line, line time * rho / (1 - rho) (demand_wait_ns).
 * Sources: euro2022, nab2022 (uneven link load); 4th Gen Xeon Scalable datasheet vol. 2 (UPI routing).
 * Leaves out: multi-hop routing inside a socket for inter-socket traffic, link-level
 * retries, coherence probe traffic, and more than one hop between sockets.
 * Evidence and history: docs/model/topology.md.
 */
#ifndef MODELS_APPLIANCE_TOPOLOGY_H
#define MODELS_APPLIANCE_TOPOLOGY_H
#include "models/appliance/app_enum.h"
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

/* Position of the device group at key path `group` ("nics[1]"), given by socket/quadrant `pos`
 * or by NUMA `node` (>= 0) at the platform's NPS; a located conf error if it cannot exist. */
gboolean topo_conf_place(const SimConfNode *root, const char *group, TopoPos pos, int node, const Topology *t, TopoPos *out,
                         GError **error);

typedef struct DmResource DmResource;
/* Largest utilisation a link's M/M/1 wait is evaluated at (finite; assumed, as demand.h's). */
#define TOPO_WAIT_RHO_MAX (1.0 - 1e-9)
/* The loaded latency (ns) of an inter-socket link resource r at utilisation rho (< 1): its M/M/1
 * wait wait_mm1_ns x rho / (1 - rho); a DLWM link (r->dlwm.dlwm) runs at the width w DLWM settles
 * at under that load from its minimum width (topo_dlwm_width): with f = full width / w its line time
 * is f x wait_mm1_ns and its utilisation f x rho. The DmResource.wait_ns hook of the links. */
double topo_link_wait_ns(const DmResource *r, double rho);

/* The scenario's root rows of this component (components.h: the loader's root schema is the list's
 * rows; expanded where AppConf is defined, component.h). */
#define topology_conf_sections \
  { .key = "topology", .type = SIM_CONF_T_MAP, .offset = 0, .sub = topology_schema, .doc = "NUMA and fabric" },

#endif /* MODELS_APPLIANCE_TOPOLOGY_H */
