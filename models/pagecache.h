/* pagecache.h — the page cache (an LRU cache of titles in RAM) and what the box's RAM must hold.
 *
 * What it models:
 * - Reads (software.page_cache; not on/off, which YAML 1.1 readers take for booleans). nocache:
 *   sendfile with SF_NOCACHE, the flag Netflix and NGINX added with the new sendfile(2)
 *   (FreeBSD r293439, January 2016: "the data shouldn't be cached after it was sent"), so every
 *   served byte is read from a drive, as every published result here assumes (datapath.h: no
 *   page-cache hits). lru: an LRU page cache of
 *   C = cache bytes / title_size whole titles (equal sizes) under the workload's Zipf
 *   popularity p_i = i^-s / H(N, s) over N = workload.titles.
 * - Che's approximation (H. Che, Y. Tung, Z. Wang, "Hierarchical Web caching systems:
 *   modeling, design and experimental results", IEEE JSAC 20(7), 2002): title i is in the
 *   cache if it was requested within the characteristic time T_C, the root of
 *       sum_i (1 - exp(-p_i T_C)) = C                                     (requests as time)
 *   and the hit ratio is h = sum_i p_i (1 - exp(-p_i T_C)). Fricker, Robert and Roberts
 *   ("A versatile and accurate approximation for LRU cache performance", ITC 24, 2012) show
 *   it accurate for Zipf popularity under the independent reference model; tests/
 *   test_pagecache.c holds it within 2 % (absolute) of a simulated LRU cache. The sums run
 *   exactly over the first PC_EXACT_TITLES ranks and, beyond them, as the midpoint-rule
 *   integral over [M + 1/2, N + 1/2] (GSL QAG on a log scale), whose error on the hit ratio
 *   is below 1e-6 (tested against the exact sum at N = 10^5 and 10^6).
 *   Properties: h = 1 when C >= N; h = C / N when s = 0; h <= the popularity mass of the
 *   top C titles (the occupancies 1 - exp(-p_i T_C) are in [0, 1] and sum to C); h ~ C sum p_i^2
 *   as C -> 0 (LRU of one title hits when the same title comes twice in a row).
 * - A hit skips the drive read and the drive's DMA write into DRAM: the drive, its PCIe link,
 *   sync-sendfile workers and the "disk DMA write" touch carry (1 - h) per served byte. Every
 *   other touch (the NIC's read of the page, the CPU's crypto) is the same for a hit.
 * - RAM needed (ram.h): the page cache + connections x (socket buffer + TLS state + the NIC's
 *   context + the server's user buffer on read/write paths) + the pages of drive reads in flight
 *   + a reserve for the kernel and processes, against memory.installed.
 * Leaves out: popularity within a title (early segments are hotter), admission and eviction
 * policies other than LRU, a catalogue that changes over the day, uneven hits over drives (the
 * cache relieves every drive by the same ratio, not the drives holding the head most), and
 * the DES latency of a hit (a class keeps its drive's read latency).
 */
#ifndef MODELS_PAGECACHE_H
#define MODELS_PAGECACHE_H
#include "models/app_enum.h"
#include "sim/conf.h"
#include <glib.h>

/* software.page_cache. */
#define PC_MODE_MAP(X) X(PC_NOCACHE, "nocache") X(PC_LRU, "lru")
typedef enum { PC_MODE_MAP(APP_ENUM_ID) PC_MODE_COUNT } PcMode;
APP_ENUM_DECLARE(pc_mode);

/* Ranks summed exactly; beyond them the sums are integrals (above). */
#define PC_EXACT_TITLES 20000

typedef struct {
  PcMode mode;            /* software.page_cache */
  double installed_bytes; /* memory.installed, 0: not given */
  double cache_bytes;     /* ram.page_cache, 0: installed minus every other need */
  double title_bytes;     /* ram.title_size */
  double sockbuf_bytes;   /* ram.socket_buffer, per connection */
  double tls_state_bytes; /* ram.tls_state, per TLS connection */
  double reserve_bytes;   /* ram.reserve: kernel, processes */
} PageCacheCfg;

/* Che's approximation for an LRU cache of c_titles (>= 0, may be fractional) equal-sized titles
 * out of n_titles (>= 1) with Zipf exponent s (>= 0). Returns the hit ratio in [0, 1]; *t_c
 * (may be NULL) gets the characteristic time in requests (INFINITY when c >= n, 0 when c = 0).
 * A failed root search (not seen: the function is monotone) returns NAN. */
double pc_che_hit_ratio(int n_titles, double s, double c_titles, double *t_c);
/* The same with every sum taken exactly over all n_titles ranks (for tests of the integral
 * tail; O(n) per root iteration). */
double pc_che_hit_ratio_exact(int n_titles, double s, double c_titles, double *t_c);

/* What the report shows of the page cache and the RAM (ram.h fills it). */
typedef struct {
  gboolean shown;         /* the page cache is on or memory.installed is given */
  gboolean cache_on;      /* software.page_cache: lru */
  double hit_ratio;       /* 0 when off */
  double cache_bytes;     /* RAM given to the page cache */
  double cached_titles;   /* cache_bytes / title size */
  int titles;             /* catalogue */
  double zipf_s;          /* popularity exponent */
  double connections;     /* at the report's throughput */
  double sockbuf_bytes;   /* connections x ram.socket_buffer */
  double tls_bytes;       /* TLS connections x ram.tls_state + NIC-kTLS connections x nics[].tls_context_bytes */
  double userbuf_bytes;   /* read/write connections x software.user_buffer */
  double inflight_bytes;  /* pages of drive reads in flight (Little's law) */
  double reserve_bytes;   /* ram.reserve */
  double needed_bytes;    /* the sum */
  double installed_bytes; /* memory.installed, 0: not given */
  gboolean over;          /* needed > installed (installed given) */
} RamReport;

/* Keys of the scenario's `ram:` section (component.h: offsets into AppConf). */
extern const SimConfField ram_schema[];

#endif /* MODELS_PAGECACHE_H */
