/* demand.h — per-resource demand per served byte: the accounting shared by `ocasim bound`
 * (bottleneck law) and the discrete-event `ocasim run` (flow model).
 *
 * What it models: resources with capacities; traffic classes (data path, drive, ingress and egress
 * port) with weights w_c and demand vectors d_cr per served byte. Per touch at agent a, memory m:
 *     dram[m] += bytes;  fabric(a->m) += bytes (a != m);  cpu[a] += bytes k L(a,m) f / 64;
 *     nic tags += bytes (rtt + L(nic,m)) / MRRS;   totals D_r = sum_c w_c d_cr
 * Under load each read also waits W_m(X) (memory.h), so X* is the root of
 *     max_r X D_r(X) / (limit_r C_r) = 1    (GSL Brent); X_op = min(offered, X*)
 * A CPU bottleneck is named as its DRAM node when 1 % more DRAM bandwidth buys more X* than 1 % more clock.
 * Sources: euro2021 (Rome sw kTLS, 80 % CPU, memory bound); Yasin, ISPASS 2014 (top-down stall share).
 * Leaves out: queueing in the caches and on intra-socket fabric links; CPU queueing latency is in
 * modes/bound.c.
 * Evidence and history: docs/model/demand.md.
 */
#ifndef MODELS_APPLIANCE_DEMAND_H
#define MODELS_APPLIANCE_DEMAND_H
#include "models/appliance/component.h"

/* As demand_build, with the per-drive content shares given (n_drives values summing to 1)
 * instead of computed from the workload (for fitting: shares do not depend on coefficients). */
DemandModel *demand_build_shares(const Appliance *a, const double *drive_share, GError **error);
/* Builds the resource list and class demands. Validates the appliance first.
 * Returns NULL and sets error (MODEL_ERROR) on an impossible appliance. (transfer full) */
DemandModel *demand_build(const Appliance *a, GError **error);
/* As demand_build_shares (@drive_share NULL: from the workload, as demand_build), with the
 * load-dependent sizings (the connections that decide the user-buffer residency and the
 * auto-sized page cache) at served throughput @sized_Bps (B/s, >= 0) instead of solved for: to take a built model apart term by
 * term at its own sizing (m->sized_Bps; `ocasim explain`). NULL with error as demand_build. (transfer full) */
DemandModel *demand_build_sized(const Appliance *a, const double *drive_share, double sized_Bps, GError **error);
/* As demand_build, taking the drive shares through @cache (workload_share_cache_new; NULL:
 * none): the same model, for sweeps that build many appliances with one catalogue. */
DemandModel *demand_build_cached(const Appliance *a, WlShareCache *cache, GError **error);
/* Whether the demand of @a depends on the served throughput its load-dependent sizings assume
 * (a user buffer that can stay cache resident, an auto-sized page cache, an inline engine's
 * TLS context cache; the file's head): FALSE when a model built at one offered load holds at
 * every other. */
gboolean demand_sizing_varies(const Appliance *a);
/* Settles @m, a model of demand_build* for an appliance equal to @a but for its offered load
 * (wl.offered_gbps) and, where the content is not placed at random, its seed, again at @a's
 * offered load, in place: the model demand_build(@a) gives, bit for bit, without building it
 * again (a sweep over the offered load: settling reads the demand at idle latency alone and
 * rewrites everything that depends on the load). Only where the demand does not depend on the
 * served throughput (!demand_sizing_varies(@a): one build, which reads no offered load before
 * settling); FALSE (@m unchanged) otherwise. */
gboolean demand_settle_at(DemandModel *m, const Appliance *a);
/* The DRAM touches of data path `path` on appliance a (bytes per served byte, datapath.h's
 * table with the metadata and ACK terms when include_meta), before any page-cache hit, with a
 * reused user buffer's residency at served throughput sized_Bps (B/s; the model's sized_Bps):
 * the path_touches hook of the component that owns the data path (software.h). The bound and
 * `ocasim explain` both read them. Returns the number written to out. */
int demand_path_touches(const Appliance *a, DataPath path, gboolean include_meta, double sized_Bps, Touch out[DP_MAX_TOUCHES]);
/* Frees a model of any demand_build* (NULL is allowed). */
void demand_free(DemandModel *m);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(DemandModel, demand_free)

/* Utilisations closer than this (absolute, in utilisation over limit) count as equal when naming
 * a bottleneck: the first in resource order wins, so the name does not hang on rounding in the
 * last bits of sums over classes (assumed; far below any model figure). */
#define DEMAND_TIE 1e-12
/* A resource whose utilisation over its limit is within this fraction of the named bottleneck's
 * counts as a co-bottleneck: it saturates together with it (e.g. DRAM at 95 % when the CPU
 * reaches its cap; any loaded-latency effect would make it bind). Assumed (a reporting margin). */
#define DEMAND_COBOTTLENECK 0.05

/* A binding CPU whose marginal cycles at X* are more than this share DRAM-latency stalls is
 * "mostly stalls" (the report says so; it no longer names the DRAM, above). Assumed: a majority, the plain reading of
 * "mostly" (the top-down method ranks categories, it sets no such line). On the published rows the
 * shares are 0.58-0.70 where DRAM is named and at most 0.48 where the CPU is (tests/test_demand.c). */
#define DEMAND_STALL_MAJORITY 0.5

/* Index of the largest h[i] over n values, h[i] = utilisation / usable limit of resource i: the
 * resource closest to its limit, which binds. Ties within DEMAND_TIE: the first. -1 when n = 0
 * or no h[i] exceeds -1. The binding rule of demand_name_bottleneck, for callers with resources
 * of their own (validate/predict.c's closed form). */
int demand_binding(int n, const double *h);
/* The bottleneck rule, one for bound, run (DES), the report, the fit and validate. util[r] is
 * resource r's utilisation (load / full capacity, 0..1, ordered as m->res): at X* when
 * demand_build names m->bottleneck (the binding resource there is the saturation solver's, the
 * one whose limit X* is), at the served load in a report (bound or DES). The binding resource
 * (demand_binding of util[r] / limit_r) is named, unless it is a CPU and m->stall_named (DRAM
 * stalls fill the CPU: rule (a) or (b) above, decided at X*); then the most utilised DRAM node is
 * named (ties within DEMAND_TIE: the first) and
 * *stalled_cpu (may be NULL) gets the CPU, else -1. Returns the named resource, -1 if none. */
int demand_name_bottleneck(const DemandModel *m, const double *util, int *stalled_cpu);
/* Co-bottlenecks of the named bottleneck `named` under utilisations util (as above): the other
 * resources r with util[r] / limit_r * (1 + DEMAND_COBOTTLENECK) >= util[named] / limit_named,
 * written to idx (room for m->n_res) in resource order. Returns their count; 0 when named < 0 or
 * the named resource carries no load. */
int demand_co_bottlenecks(const DemandModel *m, const double *util, int named, int *idx);

/* Loaded latency (ns) of resource r at utilisation rho (0..1, of its full capacity):
 * mem_curve_ns(wait_curve, rho) + wait_mm1_ns * rho / (1 - rho), rho clamped below 1 - 1e-9
 * (finite). A DLWM link (r->dlwm.dlwm) runs at the width w that DLWM settles at under that
 * sustained load from its minimum width (topo_dlwm_width): with f = full width / w its line time
 * is f * wait_mm1_ns and its utilisation f * rho, so a narrow link adds
 * f * wait_mm1_ns * f rho / (1 - f rho) (topology.h). */
double demand_wait_ns(const DmResource *r, double rho);
/* Share (0..1) of resource r's marginal demand at throughput x_Bps (> 0) that is DRAM-latency
 * stall: d(x S_r(x))/dx over d(x D_r(x))/dx, S_r = dram_stall + the DRAM queueing terms of r,
 * D_r = demand_total_at (central difference, relative step 1e-4). 0 when r has no demand. */
double demand_dram_stall_share(const DemandModel *m, int r, double x_Bps);
/* Saturation throughput X*, B/s: the bottleneck law with load-dependent demand (above);
 * min_r limit_r * capacity_r / D_r when nothing depends on load. *bottleneck (may be NULL)
 * gets the named bottleneck. */
double demand_saturation_Bps(const DemandModel *m, int *bottleneck);
/* Whether an offered load of offered_Bps exceeds the saturation throughput sat_Bps (both B/s),
 * beyond the solvers' precision: an offered load within DEMAND_OVERLOAD_RTOL of X* is X* itself
 * (the sizing fixed point stops at a relative bracket of 1e-11 and the X* solve at 1e-12, so a
 * capacity load re-solved at itself can land a few ulps above its own X*). */
#define DEMAND_OVERLOAD_RTOL 1e-9
/* TRUE when offered_Bps > sat_Bps x (1 + DEMAND_OVERLOAD_RTOL), as described above. */
gboolean demand_overloaded(double offered_Bps, double sat_Bps);
/* Total demand of resource r per served byte at throughput x_Bps (>= 0): the idle total plus
 * the DRAM queueing terms at that load. A DRAM node at or past its limit counts as just below
 * it (rho = 1 - 1e-9), so the value stays finite (and huge). */
double demand_total_at(const DemandModel *m, int r, double x_Bps);
/* The name of resource kind @k as reports print it ("cpu", "nic_port"); "?" out of range. */
const char *demand_kind_name(ResKind k);
/* Sum over touches of P(remote) for the whole load: fabric bytes per served byte,
 * counting bulk touches only when bulk_only (published crossing counts are bulk). */
double demand_crossings_per_byte(const Appliance *a, const DemandModel *m, gboolean bulk_only);

#endif /* MODELS_APPLIANCE_DEMAND_H */
