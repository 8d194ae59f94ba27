/* workload.h — clients, catalogue popularity and content placement.
 *
 * What it models: an offered load (Gb/s, or saturate), a bitrate mix of client connections
 * (connections = throughput / mean bitrate), a catalogue of `titles` files with Zipf popularity
 *     p(r) = r^-s / H(N, s),  r = 1..N
 * placed on drives by node_striped (nodes by smooth weighted round robin on their drives, striped
 * over the node's drives), round_robin (whole titles on single drives) or random (seeded).
 * alt_fraction of the load uses a second data path. Request sizes: mean request_size from
 * request_size_dist. In `ocasim run` clients are paced: each fetches a segment of
 * n = max(1, round(rate x segment_duration / 8 / request_size)) requests every n x request_size x 8 / rate s.
 * Leaves out: diurnal change, start-up bursts (a player filling its buffer), bitrate
 * switching, a segment's requests going to one drive (each request draws its class).
 * Evidence and history: docs/model/workload.md.
 */
#ifndef MODELS_APPLIANCE_WORKLOAD_H
#define MODELS_APPLIANCE_WORKLOAD_H
#include "models/appliance/datapath.h"
#include "sim/conf.h"
#include "sim/dist.h"
#include <glib.h>

/* Most classes of the bitrate mix (array size; assumed, a bitrate ladder has 5-8 rungs). */
#define WL_MAX_BITRATES 8

/* workload.title_placement (see above). */
#define WL_TITLE_PLACEMENT_MAP(X) \
  X(WL_PLACE_NODE_STRIPED, "node_striped") X(WL_PLACE_ROUND_ROBIN, "round_robin") X(WL_PLACE_RANDOM, "random")
typedef enum { WL_TITLE_PLACEMENT_MAP(APP_ENUM_ID) WL_PLACE_COUNT } WlTitlePlacement;
APP_ENUM_DECLARE(wl_title_placement);

/* workload.request_size_dist: the family of request sizes, of mean request_size. */
#define WL_SIZE_DIST_MAP(X) X(WL_SIZE_LOGNORMAL, "lognormal") X(WL_SIZE_EXPONENTIAL, "exponential") X(WL_SIZE_FIXED, "fixed")
typedef enum { WL_SIZE_DIST_MAP(APP_ENUM_ID) WL_SIZE_COUNT } WlSizeDist;
APP_ENUM_DECLARE(wl_size_dist);

/* workload.arrivals: paced clients (a segment fetch per segment duration) or an unpaced
 * Poisson stream of requests (the DES's open-mode arrivals; saturate has neither). */
#define WL_ARRIVALS_MAP(X) X(WL_ARRIVALS_PACED, "paced") X(WL_ARRIVALS_POISSON, "poisson")
typedef enum { WL_ARRIVALS_MAP(APP_ENUM_ID) WL_ARRIVALS_COUNT } WlArrivals;
APP_ENUM_DECLARE(wl_arrivals);

/* One class of client streams. */
typedef struct {
  double rate_bps; /* stream bitrate, bit/s */
  double share;    /* share of connections */
} WlBitrate;

/* The bitrate mix when the scenario gives none: one HD stream class (assumption). */
#define WL_DEFAULT_BITRATE_BPS 5e6

/* workload.headroom: the largest utilisation, fraction, `ocasim capacity` lets every resource of
 * a kind reach (a planner's margin for a failure or a burst); 0: no headroom criterion on that
 * kind (the default). The CPU's is workload.cpu_cap. */
typedef struct {
  double dram, fabric, pcie, nvme, nic_port, nic_tls;
} WlHeadroom;

typedef struct {
  double offered_gbps; /* <= 0: saturate */
  int titles;          /* catalogue size (files) */
  double zipf_s;       /* Zipf exponent */
  WlTitlePlacement title_placement;
  double request_bytes; /* mean bytes per client request (range request) */
  WlSizeDist request_size_dist;
  double request_size_cv; /* lognormal sizes: coefficient of variation */
  WlArrivals arrivals;
  double segment_ns; /* paced clients: a segment fetch every this long, ns */
  double io_bytes;   /* bytes per drive read */
  int n_bitrates;
  WlBitrate bitrate[WL_MAX_BITRATES];
  double alt_fraction; /* share of load on alt_path */
  DataPath alt_path;
  /* what requests and connections cost (per-request and per-connection CPU, workload.c) */
  double request_cycles;    /* CPU cycles per request: HTTP parse, response head, sendfile set-up */
  double session_ns;        /* how long one client connection (one TLS session) lasts, ns */
  double handshake_cycles;  /* CPU cycles of a full TLS handshake */
  double resumed_cycles;    /* CPU cycles of a resumed TLS handshake */
  double resumption;        /* fraction of new sessions that resume */
  double connection_cycles; /* CPU cycles per connection beside TLS: accept, TCP state, timers, teardown */
  double latency_slo_ns;    /* p99 request latency objective (capacity) */
  double drop_max;          /* largest tolerated NIC output drop fraction (capacity) */
  WlHeadroom headroom;      /* per-kind utilisation limits of the headroom criterion (capacity) */
} Workload;

/* CPU cycles per served byte of the requests and connections of @w on a data path with TLS (tls)
 * or plain HTTP (!tls: no handshake term) (workload.c):
 *   request_cycles / request_bytes
 *   + (connection_cycles + (1 - resumption) handshake_cycles + resumption resumed_cycles)
 *     / (mean bitrate x session / 8)
 * a connection serving mean-bitrate x session bits over its life. Defaults: NGINX's published
 * per-request and per-connection figures and openssl speed (the schema rows in workload.c). */
double workload_request_cpb(const Workload *w, gboolean tls);
/* The request-size distribution of @w (sim/dist.h), in bytes. */
SimDist workload_request_size_dist(const Workload *w);

/* Client connections that throughput x_Bps (B/s) feeds: x * 8 / mean bitrate. */
double workload_connections(const Workload *w, double x_Bps);

/* Mean bitrate of the mix, Mb/s. */
double workload_mean_bitrate_mbps(const Workload *w);
/* Share of served bytes read from each drive (sums to 1). drive_node[i] gives the node of
 * drive i; n_nodes nodes. seed is used by the random placement only. */
void workload_drive_shares(const Workload *w, int n_drives, const int *drive_node, int n_nodes, guint64 seed, double *share_out);

/* A cache of drive shares for many builds of appliances that differ elsewhere (a sweep): the
 * Zipf sum over every title is most of a bound evaluation's time. Owned by its caller, locked
 * inside, so threads share one; an entry is keyed by everything workload_drive_shares() reads. */
typedef struct WlShareCache WlShareCache;
/* An empty cache (transfer full: workload_share_cache_free); freeing NULL is allowed. */
WlShareCache *workload_share_cache_new(void);
void workload_share_cache_free(WlShareCache *c);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(WlShareCache, workload_share_cache_free)
/* workload_drive_shares() through @cache (NULL: none): the same values, bit for bit. */
void workload_drive_shares_cached(WlShareCache *cache, const Workload *w, int n_drives, const int *drive_node, int n_nodes,
                                  guint64 seed, double *share_out);

/* Keys of the scenario's `workload:` section (component.h: offsets into AppConf). */
extern const SimConfField workload_schema[];

/* The scenario's root rows of this component (components.h: the loader's root schema is the list's
 * rows; expanded where AppConf is defined, component.h). */
#define workload_conf_sections \
  { .key = "workload", .type = SIM_CONF_T_MAP, .offset = 0, .sub = workload_schema, .doc = "clients and content" },

#endif /* MODELS_APPLIANCE_WORKLOAD_H */
