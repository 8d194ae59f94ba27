/* pagecache.h — the page cache (an LRU cache of titles in RAM) and what the box's RAM must hold.
 *
 * What it models: software.page_cache nocache (SF_NOCACHE sendfile: every byte read from a drive)
 * or lru: C = cache bytes / title_size whole titles under Zipf popularity p_i over N titles, by
 * Che's approximation: T_C the root of sum_i (1 - exp(-p_i T_C)) = C, hit ratio
 *     h = sum_i p_i (1 - exp(-p_i T_C))
 * A hit skips the drive read and its DMA write: the drive, its link, sync-sendfile workers and the
 * "disk DMA write" touch carry (1 - h) per served byte. RAM needed: ram.h.
 * Sources: Che, Tung, Wang, IEEE JSAC 20(7), 2002; Fricker, Robert, Roberts, ITC 24, 2012; FreeBSD r293439.
 * Leaves out: popularity within a title, policies other than LRU, a catalogue that changes over the
 * day, uneven hits over drives, and the DES latency of a hit (a class keeps its drive's read latency).
 * Evidence and history: docs/model/pagecache.md.
 */
#ifndef MODELS_APPLIANCE_PAGECACHE_H
#define MODELS_APPLIANCE_PAGECACHE_H
#include "models/appliance/app_enum.h"
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

/* The scenario's root rows of this component (components.h: the loader's root schema is the list's
 * rows; expanded where AppConf is defined, component.h). */
#define pagecache_conf_sections \
  { .key = "ram", .type = SIM_CONF_T_MAP, .offset = 0, .sub = ram_schema, .doc = "page cache and RAM sizing (pagecache.h)" },

#endif /* MODELS_APPLIANCE_PAGECACHE_H */
