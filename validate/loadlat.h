/* validate/loadlat.h — the host's DRAM loaded-latency curve, the way Intel MLC's
 * --loaded_latency measures it: one thread chases pointers through a random cyclic permutation of
 * a buffer far larger than the caches while `load_threads` others stream reads, pausing `delay`
 * spin iterations every 64 lines. Each point: (GB/s all threads read, ns per hop).
 * A least-squares line through the points (gsl_fit_linear), L = idle + slope x B, gives
 *     memory.latency = idle,  memory.load_latency = slope x C   (models/appliance/memory.h, C in GB/s)
 * The probe sees the TLB as well as DRAM: its idle figure is an upper bound of the DRAM's.
 * Leaves out: writes in the loading traffic (MLC's read/write ratios), remote nodes.
 * Evidence and history: docs/model/loadlat.md.
 */
#ifndef OCASIM_VALIDATE_LOADLAT_H
#define OCASIM_VALIDATE_LOADLAT_H

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Most points of a loaded-latency curve and loader threads (array sizes; assumed). */
#define VAL_LAT_MAX_POINTS  16
#define VAL_LAT_MAX_THREADS 64

typedef struct {
  int load_threads;  /* loading threads (0: the idle point) */
  int delay;         /* spin iterations after every 64 lines a loading thread reads */
  double GBps;       /* bandwidth read by every thread together, 1e9 B/s */
  double latency_ns; /* chaser's time per dependent hop */
} ValLatPoint;

typedef struct {
  int load_threads; /* loading threads for the loaded points (0: online CPUs - 1, at least 1) */
  int n_delays;     /* loaded points, one per delay */
  int delays[VAL_LAT_MAX_POINTS - 1];
  size_t chase_bytes; /* chaser's buffer (0: 256 MiB) */
  size_t load_bytes;  /* each loading thread's buffer (0: 64 MiB) */
  double seconds;     /* measured window per point (0: 0.3 s) */
  guint32 seed;       /* the permutation */
} ValLatConfig;

typedef struct {
  int n;
  ValLatPoint pt[VAL_LAT_MAX_POINTS];
} ValLatCurve;

/* The line through a curve and what the platform file takes from it. */
typedef struct {
  double idle_ns;           /* intercept: latency at no load (memory.latency) */
  double slope_ns_per_GBps; /* added ns per GB/s of traffic */
  double capacity_GBps;     /* C the utilisation is taken against */
  double load_latency_ns;   /* slope x C (memory.load_latency), 0 when the slope is below 0 */
  double rms_ns;            /* root-mean-square residual of the points about the line */
} ValLatFit;

/* The default delays: quick {0, 200} (with the idle point: 3 points, about 1 s), full
 * {0, 50, 200, 800, 3200} (6 points). Fills cfg->n_delays and cfg->delays. */
void val_lat_default_delays(ValLatConfig *cfg, gboolean quick);

/* Measures the idle point and one loaded point per delay into *out. Errors: out of memory for
 * the buffers (VAL_ERROR). */
gboolean val_lat_measure(const ValLatConfig *cfg, ValLatCurve *out, GError **error);

/* Least-squares line latency = idle + slope x GB/s through the n points, and load_latency =
 * slope x capacity_GBps. Errors (VAL_ERROR): fewer than 2 points, no spread in bandwidth, a
 * capacity <= 0, a GSL failure. */
gboolean val_lat_fit(const ValLatPoint *pts, int n, double capacity_GBps, ValLatFit *out, GError **error);

/* report.json's "loaded_latency": points and the fitted line (fit may be NULL). */
void val_lat_to_json(const ValLatCurve *c, const ValLatFit *fit, JsonBuilder *b);

G_END_DECLS
#endif
