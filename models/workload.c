/* workload.c — Zipf popularity over drives (see workload.h). */
#include "models/workload.h"
#include "models/model_error.h"
#include "sim/rng.h"
#include <gsl/gsl_rng.h>
#include <math.h>

APP_ENUM_DEFINE(wl_title_placement, WL_TITLE_PLACEMENT_MAP);
APP_ENUM_CONF_OK(WlTitlePlacement);

double workload_mean_bitrate_mbps(const Workload *w)
{
  double s = 0, f = 0;
  for (int i = 0; i < w->n_bitrates; i++) {
    s += w->bitrate_mbps[i] * w->bitrate_frac[i];
    f += w->bitrate_frac[i];
  }
  return f > 0 ? s / f : 0.0;
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
  gsl_rng *rng = NULL;
  if (w->title_placement == WL_PLACE_RANDOM) rng = sim_rng_new(seed, "workload.title_placement");
  double h = 0;
  for (int r = 1; r <= w->titles; r++) {
    double p = pow((double)r, -w->zipf_s);
    h += p;
    if (w->title_placement == WL_PLACE_NODE_STRIPED) {
      int node = drive_node[order[(r - 1) % n_drives]];
      for (int d = 0; d < n_drives; d++)
        if (drive_node[d] == node) share[d] += p / per_node[node];
      continue;
    }
    int d = rng ? (int)gsl_rng_uniform_int(rng, (unsigned long)n_drives) : order[(r - 1) % n_drives];
    share[d] += p;
  }
  if (rng) gsl_rng_free(rng);
  for (int d = 0; d < n_drives; d++) share[d] /= h;
}

gboolean workload_validate(const Workload *w, GError **error)
{
  if (w->titles < 1) return model_fail(error, "workload.titles", "catalogue needs at least one title");
  if (w->zipf_s < 0) return model_fail(error, "workload.zipf_s", "Zipf exponent cannot be negative");
  if (w->request_bytes <= 0 || w->io_bytes <= 0)
    return model_fail(error, "workload.request_size", "request and I/O sizes must be positive");
  if (w->alt_fraction < 0 || w->alt_fraction > 1) return model_fail(error, "workload.alt_fraction", "must be in [0, 1]");
  if (w->n_bitrates < 1) return model_fail(error, "workload.bitrates", "give at least one bitrate");
  for (int i = 0; i < w->n_bitrates; i++)
    if (w->bitrate_mbps[i] <= 0 || w->bitrate_frac[i] < 0)
      return model_fail(error, "workload.bitrates", "bitrates must be positive, fractions non-negative");
  return TRUE;
}
