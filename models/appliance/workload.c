/* workload.c — Zipf popularity over drives (see workload.h; the Zipf weights and normaliser are sim/dist.h's). */
#include "models/appliance/workload.h"
#include "models/appliance/component.h"
#include "models/appliance/model_error.h"
#include "sim/dist.h"
#include "sim/rng.h"
#include <gsl/gsl_rng.h>
#include <math.h>
#include <string.h>

APP_ENUM_DEFINE(wl_title_placement, WL_TITLE_PLACEMENT_MAP);
APP_ENUM_CONF_OK(WlTitlePlacement);
APP_ENUM_DEFINE(wl_size_dist, WL_SIZE_DIST_MAP);
APP_ENUM_CONF_OK(WlSizeDist);
APP_ENUM_DEFINE(wl_arrivals, WL_ARRIVALS_MAP);
APP_ENUM_CONF_OK(WlArrivals);

SimDist workload_request_size_dist(const Workload *w)
{
  switch (w->request_size_dist) {
    case WL_SIZE_LOGNORMAL:
      if (w->request_size_cv > 0) return (SimDist){ SIM_DIST_LOGNORMAL, w->request_bytes, w->request_size_cv };
      break;
    case WL_SIZE_EXPONENTIAL: return (SimDist){ SIM_DIST_EXPONENTIAL, w->request_bytes, 0 };
    case WL_SIZE_FIXED:
    case WL_SIZE_COUNT: break;
  }
  return (SimDist){ SIM_DIST_DETERMINISTIC, w->request_bytes, 0 };
}

double workload_mean_bitrate_mbps(const Workload *w)
{
  double s = 0, f = 0;
  for (int i = 0; i < w->n_bitrates; i++) {
    s += (w->bitrate[i].rate_bps / 1e6) * w->bitrate[i].share;
    f += w->bitrate[i].share;
  }
  return f > 0 ? s / f : 0.0;
}

double workload_connections(const Workload *w, double x_Bps)
{
  double bps = workload_mean_bitrate_mbps(w) * 1e6;
  return bps > 0 ? x_Bps * 8.0 / bps : 0.0;
}

double workload_request_cpb(const Workload *w, gboolean tls)
{
  double per_request = w->request_bytes > 0 ? w->request_cycles / w->request_bytes : 0.0;
  double session_bytes = workload_mean_bitrate_mbps(w) * 1e6 * (w->session_ns * 1e-9) / 8.0;
  double per_connection =
      w->connection_cycles + (tls ? (1.0 - w->resumption) * w->handshake_cycles + w->resumption * w->resumed_cycles : 0.0);
  return per_request + (session_bytes > 0 ? per_connection / session_bytes : 0.0);
}

void workload_drive_shares(const Workload *w, int n_drives, const int *drive_node, int n_nodes, guint64 seed, double *share)
{
  g_return_if_fail(n_drives > 0);
  /* node-interleaved drive order */
  g_autofree int *order = g_new(int, n_drives);
  g_autofree int *taken = g_new0(int, n_nodes);
  int k = 0;
  while (k < n_drives) {
    for (int n = 0; n < n_nodes; n++) {
      int seen = 0;
      for (int d = 0; d < n_drives; d++) {
        if (drive_node[d] != n) continue;
        if (seen++ == taken[n]) {
          order[k++] = d;
          taken[n]++;
          break;
        }
      }
    }
  }
  for (int d = 0; d < n_drives; d++) share[d] = 0;
  g_autofree int *per_node = g_new0(int, n_nodes);
  for (int d = 0; d < n_drives; d++) per_node[drive_node[d]]++;
  g_autoptr(gsl_rng) rng = NULL;
  if (w->title_placement == WL_PLACE_RANDOM) rng = sim_rng_new(seed, "workload.title_placement");
  /* Node striping adds the same p / per_node[node] to every drive of the node, in the same
   * order, so one sum per node gives each of its drives' shares exactly (bit for bit) without a
   * pass over the drives per title; the normaliser H(titles, s) is the sum of the same weights
   * in the same order as sim_zipf_harmonic(), so it is taken in the same pass.
   * The node of each rank: smooth weighted round robin with weight per_node[n] (a refilled box
   * fills its storage, so a node holds titles in proportion to its drives; NvmeDrive has no
   * capacity, so drives count alike): each step adds every node's weight to its credit, takes
   * the node of most credit (the lowest index on a tie) and charges it the total weight. Over
   * n_drives consecutive ranks node n is taken exactly per_node[n] times, spread evenly, so a
   * node of few drives does not take the Zipf head as often as a large one (a plain node
   * interleave did, and failing a small node's drive then made its last drive hotter than
   * failing the whole node). With equal drives per node it is the plain interleave 0, 1, ...,
   * N-1, 0, 1, ... */
  g_autofree double *node_sum = g_new0(double, n_nodes);
  g_autofree int *credit = g_new0(int, n_nodes);
  double h = 0;
  for (int r = 1; r <= w->titles; r++) {
    double p = sim_zipf_weight((size_t)r, w->zipf_s);
    h += p;
    if (w->title_placement == WL_PLACE_NODE_STRIPED) {
      int node = -1;
      for (int n = 0; n < n_nodes; n++) {
        if (!per_node[n]) continue;
        credit[n] += per_node[n];
        if (node < 0 || credit[n] > credit[node]) node = n;
      }
      credit[node] -= n_drives;
      node_sum[node] += p / per_node[node];
      continue;
    }
    int d = rng ? (int)gsl_rng_uniform_int(rng, (unsigned long)n_drives) : order[(r - 1) % n_drives];
    share[d] += p;
  }
  if (w->title_placement == WL_PLACE_NODE_STRIPED)
    for (int d = 0; d < n_drives; d++) share[d] = node_sum[drive_node[d]];
  for (int d = 0; d < n_drives; d++) share[d] /= h;
}

/* A key of what workload_drive_shares() reads: catalogue, exponent, placement, the drives'
 * nodes and (random placement only) the seed. */
static GBytes *shares_key(const Workload *w, int n_drives, const int *drive_node, int n_nodes, guint64 seed)
{
  GByteArray *k = g_byte_array_new();
  gint64 head[4] = { w->titles, w->title_placement, n_drives, n_nodes };
  guint64 s = w->title_placement == WL_PLACE_RANDOM ? seed : 0;
  g_byte_array_append(k, (const guint8 *)head, sizeof head);
  g_byte_array_append(k, (const guint8 *)&w->zipf_s, sizeof w->zipf_s);
  g_byte_array_append(k, (const guint8 *)&s, sizeof s);
  g_byte_array_append(k, (const guint8 *)drive_node, (guint)(sizeof(int) * (size_t)n_drives));
  return g_byte_array_free_to_bytes(k);
}

struct WlShareCache {
  GMutex lock;
  GHashTable *shares; /* GBytes key -> double[n_drives] */
};

WlShareCache *workload_share_cache_new(void)
{
  WlShareCache *c = g_new0(WlShareCache, 1);
  g_mutex_init(&c->lock);
  c->shares = g_hash_table_new_full(g_bytes_hash, g_bytes_equal, (GDestroyNotify)g_bytes_unref, g_free);
  return c;
}

void workload_share_cache_free(WlShareCache *c)
{
  if (!c) return;
  g_hash_table_destroy(c->shares);
  g_mutex_clear(&c->lock);
  g_free(c);
}

void workload_drive_shares_cached(WlShareCache *cache, const Workload *w, int n_drives, const int *drive_node, int n_nodes,
                                  guint64 seed, double *share_out)
{
  if (!cache) {
    workload_drive_shares(w, n_drives, drive_node, n_nodes, seed, share_out);
    return;
  }
  g_autoptr(GBytes) key = shares_key(w, n_drives, drive_node, n_nodes, seed);
  g_mutex_lock(&cache->lock);
  const double *hit = g_hash_table_lookup(cache->shares, key);
  if (hit) memcpy(share_out, hit, sizeof(double) * (size_t)n_drives);
  g_mutex_unlock(&cache->lock);
  if (hit) return;
  workload_drive_shares(w, n_drives, drive_node, n_nodes, seed, share_out); /* outside the lock: threads compute at once */
  g_mutex_lock(&cache->lock);
  if (!g_hash_table_contains(cache->shares, key))
    g_hash_table_insert(cache->shares, g_bytes_ref(key), g_memdup2(share_out, sizeof(double) * (size_t)n_drives));
  g_mutex_unlock(&cache->lock);
}

/* Checks the catalogue, sizes, mix and alt fraction; MODEL_ERROR at workload.*. */
static gboolean workload_validate(const Workload *w, GError **error)
{
  if (w->titles < 1) return model_fail(error, "workload.titles", "catalogue needs at least one title");
  if (w->zipf_s < 0) return model_fail(error, "workload.zipf_s", "Zipf exponent cannot be negative");
  if (w->request_bytes <= 0 || w->io_bytes <= 0)
    return model_fail(error, "workload.request_size", "request and I/O sizes must be positive");
  if (!(w->request_size_cv >= 0)) return model_fail(error, "workload.request_size_cv", "must be >= 0");
  if (!(w->segment_ns > 0)) return model_fail(error, "workload.segment_duration", "must be positive");
  if (w->alt_fraction < 0 || w->alt_fraction > 1) return model_fail(error, "workload.alt_fraction", "must be in [0, 1]");
  if (w->n_bitrates < 1) return model_fail(error, "workload.bitrates", "give at least one bitrate");
  for (int i = 0; i < w->n_bitrates; i++)
    if (w->bitrate[i].rate_bps <= 0 || w->bitrate[i].share < 0)
      return model_fail(error, "workload.bitrates", "bitrates must be positive, fractions non-negative");
  return TRUE;
}

/* ---- the component (component.h) --------------------------------------------------------- */

#define F(m) offsetof(AppConf, m)
#define B(m) offsetof(WlBitrate, m)

/* rate: sanity bound, video streams run 100 kb/s to 100 Mb/s */
static const SimConfField bitrate_schema[] = {
  { .key = "rate",
    .type = SIM_CONF_T_DOUBLE,
    .offset = B(rate_bps),
    .unit = SIM_UNIT_BIT_RATE,
    .required = true,
    .min = "100000",
    .max = "1e9",
    .doc =
        "client stream bitrate: 100 kb/s (below a video ladder's lowest rung, ~235 kb/s) to 1 Gb/s (above any one stream, 8K ~100 Mb/s)" },
  { .key = "share",
    .type = SIM_CONF_T_DOUBLE,
    .offset = B(share),
    .unit = SIM_UNIT_PERCENT,
    .required = true,
    .min = "0",
    .max = "1",
    .doc = "share of connections" },
  SIM_CONF_END
};

/* workload.headroom: one optional limit per shared resource kind (the CPU's is cpu_cap). No
 * default: absent is 0, no criterion. */
#define H(m) offsetof(WlHeadroom, m)
static const SimConfField headroom_schema[] = {
  { .key = "dram",
    .type = SIM_CONF_T_DOUBLE,
    .offset = H(dram),
    .unit = SIM_UNIT_PERCENT,
    .min = "0",
    .min_exclusive = true,
    .max = "1",
    .doc =
        "largest utilisation `ocasim capacity` lets every DRAM node reach (of its usable bandwidth, memory.h); absent: none below saturation" },
  { .key = "fabric",
    .type = SIM_CONF_T_DOUBLE,
    .offset = H(fabric),
    .unit = SIM_UNIT_PERCENT,
    .min = "0",
    .min_exclusive = true,
    .max = "1",
    .doc =
        "largest utilisation `ocasim capacity` lets every fabric link (xGMI, UPI, Infinity Fabric) reach; absent: none below saturation" },
  { .key = "pcie",
    .type = SIM_CONF_T_DOUBLE,
    .offset = H(pcie),
    .unit = SIM_UNIT_PERCENT,
    .min = "0",
    .min_exclusive = true,
    .max = "1",
    .doc = "largest utilisation `ocasim capacity` lets every PCIe link reach; absent: none below saturation" },
  { .key = "nvme",
    .type = SIM_CONF_T_DOUBLE,
    .offset = H(nvme),
    .unit = SIM_UNIT_PERCENT,
    .min = "0",
    .min_exclusive = true,
    .max = "1",
    .doc = "largest utilisation `ocasim capacity` lets every drive reach; absent: none below saturation" },
  { .key = "nic_port",
    .type = SIM_CONF_T_DOUBLE,
    .offset = H(nic_port),
    .unit = SIM_UNIT_PERCENT,
    .min = "0",
    .min_exclusive = true,
    .max = "1",
    .doc = "largest utilisation `ocasim capacity` lets every NIC port reach; absent: none below saturation" },
  { .key = "nic_tls",
    .type = SIM_CONF_T_DOUBLE,
    .offset = H(nic_tls),
    .unit = SIM_UNIT_PERCENT,
    .min = "0",
    .min_exclusive = true,
    .max = "1",
    .doc = "largest utilisation `ocasim capacity` lets every NIC TLS engine reach; absent: none below saturation" },
  SIM_CONF_END
};
#undef H

const SimConfField workload_schema[] = {
  { .key = "offered", .type = SIM_CONF_T_NODE, .offset = F(offered), .doc = "offered load (bit rate) or \"saturate\" (default)" },
  { .key = "titles",
    .type = SIM_CONF_T_INT,
    .offset = F(a.wl.titles),
    .def = "100000",
    .min = "1",
    .max = "10000000",
    .doc = "files in the catalogue (assumption: ~200 TB of flash / ~2 GB per encoded file)" },
  { .key = "zipf_s",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(a.wl.zipf_s),
    .def = "0.8",
    .min = "0",
    .max = "3",
    .doc = "Zipf popularity exponent (0.64-0.83 in Breslau et al., INFOCOM 1999)" },
  { .key = "title_placement",
    .type = SIM_CONF_T_ENUM,
    .offset = F(a.wl.title_placement),
    .enum_names = wl_title_placement_names,
    .def = "node_striped",
    .doc =
        "titles on drives: node_striped (nodes by their drives, striped over the node's drives), round_robin (whole titles) or random (workload.h)" },
  { .key = "request_size",
    .type = SIM_CONF_T_DOUBLE,
    .whole = true,
    .offset = F(a.wl.request_bytes),
    .unit = SIM_UNIT_SIZE,
    .def = "2 MiB",
    .min = "4 KiB",
    .max = "1 GiB",
    .doc = "mean bytes per client request (assumption: a few seconds of video: 2 MiB is 3.4 s at 5 Mb/s)" },
  { .key = "request_size_dist",
    .type = SIM_CONF_T_ENUM,
    .offset = F(a.wl.request_size_dist),
    .enum_names = wl_size_dist_names,
    .def = "lognormal",
    .doc =
        "family of request sizes in `ocasim run`, of mean request_size: lognormal (CV request_size_cv), exponential or fixed; bound uses the mean only" },
  { .key = "request_size_cv",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(a.wl.request_size_cv),
    .def = "0.3",
    .min = "0",
    .max = "10",
    .doc =
        "CV of lognormal request sizes; 0: every request request_size (assumed 0.3: VBR segment bytes vary with the scene; no published CDN figure)" },
  { .key = "arrivals",
    .type = SIM_CONF_T_ENUM,
    .offset = F(a.wl.arrivals),
    .enum_names = wl_arrivals_names,
    .def = "paced",
    .doc =
        "requests in `ocasim run` under an offered load: paced (clients fetching a segment per segment_duration, workload.h) or poisson; saturate uses neither" },
  { .key = "segment_duration",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(a.wl.segment_ns),
    .unit = SIM_UNIT_TIME,
    .def = "6 s",
    .min = "100 ms",
    .max = "60 s",
    .doc =
        "playback time of one segment a paced client fetches as requests of request_size (6 s: Apple HLS Authoring Specification; docs/model/workload.md)" },
  /* sanity bound: as request_size */
  { .key = "io_size",
    .type = SIM_CONF_T_DOUBLE,
    .whole = true,
    .offset = F(a.wl.io_bytes),
    .unit = SIM_UNIT_SIZE,
    .def = "256 KiB",
    .min = "512",
    .max = "1 GiB",
    .doc =
        "bytes per drive read (assumption: sendfile read-ahead); sets the drives' ceilings (models/appliance/nvme.h) and the DES's requests in flight" },
  { .key = "bitrates",
    .type = SIM_CONF_T_LIST,
    .offset = F(bitrates),
    .sub = bitrate_schema,
    .elem_size = sizeof(WlBitrate),
    .min_items = 1,
    .max_items = WL_MAX_BITRATES,
    .doc = "client bitrate mix (default one class at 5 Mb/s, an HD stream)" },
  { .key = "alt_path",
    .type = SIM_CONF_T_ENUM,
    .offset = F(a.wl.alt_path),
    .enum_names = datapath_alt_names,
    .def = "none",
    .doc = "second data path for a fraction of connections" },
  { .key = "alt_fraction",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(a.wl.alt_fraction),
    .unit = SIM_UNIT_PERCENT,
    .def = "0 %",
    .min = "0",
    .max = "1",
    .doc = "share of load on alt_path" },
  /* the cap is the workload's: production runs stop at 80 % (published.yaml: "maximum stable
   * bandwidth (health/QoE limited, 80% CPU cap)", euro2021); a lab experiment may run past it */
  { .key = "cpu_cap",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(a.cpu.cap),
    .unit = SIM_UNIT_PERCENT,
    .def = "80 %",
    .min = "0",
    .max = "1",
    .min_exclusive = true,
    .doc = "share of the CPUs the workload may use (Netflix production cap: 80 %, euro2021; a lab run to saturation: "
           "100 %)" },
  { .key = "request_cycles",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(a.wl.request_cycles),
    .def = "32100",
    .min = "0",
    .max = "1e9",
    .doc =
        "CPU cycles per request on the stack's node (32100: NGINX 2017, 71 561 HTTPS req/s on one 2.3 GHz E5-2699 v3 CPU; docs/model/workload.md)" },
  { .key = "session_length",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(a.wl.session_ns),
    .unit = SIM_UNIT_TIME,
    .def = "600 s",
    .min = "1e9",
    .max = "8.64e13",
    .doc =
        "how long one client connection (TLS session) lasts; sets new connections/s = x / (mean bitrate x session_length) (assumed: 10 minutes)" },
  { .key = "tls_handshake_cycles",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(a.wl.handshake_cycles),
    .def = "1.03e6",
    .min = "0",
    .max = "1e10",
    .doc =
        "CPU cycles of a full TLS handshake (1.03e6: NGINX Plus sizing guide 2016, 33 000 TPS on 16 cores, E5-2699 v3; docs/model/workload.md)" },
  { .key = "tls_resumed_cycles",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(a.wl.resumed_cycles),
    .def = "8.06e5",
    .min = "0",
    .max = "1e10",
    .doc =
        "CPU cycles of a resumed TLS handshake: a full one less its ECDSA sign and ECDHE (openssl speed 3.0, EPYC 2.6 GHz; docs/model/workload.md)" },
  { .key = "tls_resumption",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(a.wl.resumption),
    .unit = SIM_UNIT_PERCENT,
    .def = "50 %",
    .min = "0",
    .max = "1",
    .doc = "share of new TLS sessions that resume an earlier one (assumed)" },
  { .key = "connection_cycles",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(a.wl.connection_cycles),
    .def = "51000",
    .min = "0",
    .max = "1e10",
    .doc =
        "CPU cycles per connection beside TLS: accept, TCP set-up/teardown, timers (51000: NGINX 2017, 34 344 conn/s on one CPU; docs/model/workload.md)" },
  /* sanity bound */
  { .key = "latency_slo",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(a.wl.latency_slo_ns),
    .unit = SIM_UNIT_TIME,
    .def = "50 ms",
    .min = "1 us",
    .max = "1 h",
    .doc = "p99 request latency objective for capacity (assumption)" },
  { .key = "drop_max",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(a.wl.drop_max),
    .unit = SIM_UNIT_PERCENT,
    .def = "0.1 %",
    .min = "0",
    .min_exclusive = true,
    .max = "1",
    .doc =
        "largest tolerated NIC output drop fraction for capacity (assumption); above 0, since a finite queue drops a little at any load" },
  { .key = "headroom",
    .type = SIM_CONF_T_MAP,
    .offset = F(a.wl.headroom),
    .sub = headroom_schema,
    .doc = "per-kind utilisation limits for capacity, each a criterion (scenarios/README.md: Capacity headroom); absent: none" },
  SIM_CONF_END
};

/* The offered load (a bit rate or "saturate"), the bitrate mix (shares adding up to 1; one
 * WL_DEFAULT_BITRATE_BPS class when absent) and the alt path ("none": the main path, share 0). */
/* The offered load's range: a sanity bound as every other rate (1 kb/s .. 100 Tb/s). */
#define WL_OFFERED_MIN_BPS 1e3
#define WL_OFFERED_MAX_BPS 1e14
/* How far the bitrate shares may add up from 100 % and be scaled to it: rounding of a few
 * shares written to two decimals (3 x 33.33 % = 99.99 %). */
#define WL_SHARE_SUM_TOLERANCE 1e-3
/* Shares that add up to 1 within this are taken as they are (no scaling, no note): rounding
 * of the decimal shares themselves. Assumed. */
#define WL_SHARE_EXACT_TOLERANCE 1e-6

static gboolean workload_finish(AppConf *c, const SimConfNode *root, GError **error)
{
  Workload *w = &c->a.wl;
  w->offered_gbps = 0;
  if (c->offered && sim_conf_node_is_null(c->offered)) {
    sim_conf_set_error(error, c->offered, SIM_CONF_ERROR_MISSING, "missing value: a bit rate or \"saturate\"");
    return FALSE;
  }
  if (c->offered) {
    const char *txt = sim_conf_node_text(c->offered);
    if (!txt || strcmp(txt, "saturate") != 0) {
      double bps;
      if (!sim_conf_node_double(c->offered, SIM_UNIT_BIT_RATE, &bps, error)) return FALSE;
      if (bps <= 0) {
        sim_conf_set_error(error, c->offered, SIM_CONF_ERROR_RANGE, "offered load must be positive or \"saturate\"");
        return FALSE;
      }
      if (bps < WL_OFFERED_MIN_BPS || bps > WL_OFFERED_MAX_BPS) {
        g_autofree char *lo = sim_units_format(WL_OFFERED_MIN_BPS, SIM_UNIT_BIT_RATE);
        g_autofree char *hi = sim_units_format(WL_OFFERED_MAX_BPS, SIM_UNIT_BIT_RATE);
        sim_conf_set_error(error, c->offered, SIM_CONF_ERROR_RANGE, "offered load out of range: must be %s .. %s or \"saturate\"",
                           lo, hi);
        return FALSE;
      }
      w->offered_gbps = bps / 1e9;
    }
  }
  w->n_bitrates = 1;
  w->bitrate[0] = (WlBitrate){ WL_DEFAULT_BITRATE_BPS, 1.0 };
  if (c->bitrates.n > 0) {
    double sum = 0;
    for (size_t i = 0; i < c->bitrates.n; i++) sum += SIM_CONF_LIST_AT(c->bitrates, WlBitrate, i)->share;
    if (fabs(sum - 1) > WL_SHARE_SUM_TOLERANCE)
      return app_conf_error(error, root, "workload.bitrates", SIM_CONF_ERROR_RANGE,
                            "the shares of the bitrate mix add up to %g %%, not 100 %% (within 0.1 %%)", 100 * sum);
    w->n_bitrates = (int)c->bitrates.n;
    for (size_t i = 0; i < c->bitrates.n; i++) w->bitrate[i] = *SIM_CONF_LIST_AT(c->bitrates, WlBitrate, i);
    if (fabs(sum - 1) > WL_SHARE_EXACT_TOLERANCE) { /* rounded shares (3 x 33.33 %): scaled to add up to 1, and said so */
      for (int i = 0; i < w->n_bitrates; i++) w->bitrate[i].share /= sum;
      GError *note = NULL;
      app_conf_error(&note, root, "workload.bitrates", SIM_CONF_ERROR_RANGE,
                     "note: the shares add up to %.6g %%; each is scaled by %.6g to add up to 100 %%", 100 * sum, 1 / sum);
      g_message("%s", note->message);
      g_error_free(note);
    }
  }
  const SimConfNode *cv = sim_conf_node_get(sim_conf_node_get(root, "workload"), "request_size_cv");
  if (cv && w->request_size_dist != WL_SIZE_LOGNORMAL) {
    sim_conf_set_error(
        error, cv, SIM_CONF_ERROR_RANGE, "request_size_cv applies to request_size_dist: lognormal only (%s has %s)",
        wl_size_dist_names[w->request_size_dist], w->request_size_dist == WL_SIZE_FIXED ? "no spread" : "a CV of 1");
    return FALSE;
  }
  const SimConfNode *seg = sim_conf_node_get(sim_conf_node_get(root, "workload"), "segment_duration");
  if (seg && w->arrivals != WL_ARRIVALS_PACED) {
    sim_conf_set_error(error, seg, SIM_CONF_ERROR_RANGE,
                       "segment_duration applies to arrivals: paced only (poisson requests are one unpaced stream)");
    return FALSE;
  }
  if (w->alt_path == DP_COUNT) { /* "none" */
    if (w->alt_fraction > 0)
      return app_conf_error(error, root, "workload.alt_fraction", SIM_CONF_ERROR_RANGE, "alt_fraction needs an alt_path");
    w->alt_path = c->a.path;
  }
  return TRUE;
}

static gboolean workload_component_validate(const Appliance *a, GError **error)
{
  return workload_validate(&a->wl, error);
}

/* The cycles of requests and connections (workload_request_cpb) on the node of the class's
 * stack (its connection's node; spread over the nodes when that is random). A loopback host's
 * per-request cost is measured (loopback.request_server_cycles). */
/* No resource of its own: the content's shares over the drives (workload_drive_shares), unless given. */
static void workload_add_resources(AppBuild *b, void *state G_GNUC_UNUSED)
{
  const Appliance *a = b->a;
  int D = a->n_drives;
  b->m->drive_share = g_new(double, D);
  if (b->shares)
    memcpy(b->m->drive_share, b->shares, sizeof(double) * (size_t)D);
  else
    workload_drive_shares_cached(b->share_cache, &a->wl, D, b->drive_node, b->nodes, a->seed, b->m->drive_share);
}

static void workload_class_demand(AppBuild *b, void *state G_GNUC_UNUSED, DmClass *k)
{
  if (b->loop) return;
  double cpb = workload_request_cpb(&b->a->wl, datapath_tls(k->path) != TLS_NONE); /* plain HTTP: no handshake */
  if (cpb <= 0) return;
  int stack = app_build_cpu_node(b, k, AG_CPU_STACK);
  for (int n = 0; n < b->nodes; n++) k->demand[b->cpu_res[n]] += cpb * (stack < 0 ? 1.0 / b->nodes : (stack == n));
}

const AppComponent workload_component = { .name = "workload",
                                          .finish = workload_finish,
                                          .validate = workload_component_validate,
                                          .class_demand = workload_class_demand,
                                          .add_resources = workload_add_resources };
