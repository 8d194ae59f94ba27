/* pagecache.c — Che's approximation for the LRU page cache, its demand hooks, and the RAM a box
 * needs (see pagecache.h for the model and sources, ram.h for the sizing). */
#include "models/appliance/pagecache.h"
#include "models/appliance/component.h"
#include "models/appliance/model_error.h"
#include "models/appliance/ram.h"
#include "sim/dist.h"
#include "sim/gsl_autoptr.h"
#include "sim/json.h"
#include "sim/roots.h"
#include "sim/units.h"
#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <math.h>
#include <string.h>

APP_ENUM_DEFINE(pc_mode, PC_MODE_MAP);
APP_ENUM_CONF_OK(PcMode);

/* ---- Che's approximation ------------------------------------------------------------------- */

/* Relative accuracy asked of the tail integrals and of T_C (far below the model's 2 %). */
#define CHE_EPSREL 1e-10
/* Subintervals of the QAG workspace. */
#define CHE_QAG_LIMIT 200
/* Doublings of T_C's bracket before giving up (2^200 x cap x H: no finite catalogue needs
 * more) and Brent's iteration cap on T_C. Assumed. */
#define CHE_BRACKET_DOUBLINGS 200
#define CHE_MAX_ITER          200
/* |s - 1| below this takes the s = 1 (logarithmic) form of the tail integral: rounding.
 * Assumed. */
#define ZIPF_S_ONE_SLACK 1e-12

typedef struct {
  int n;            /* catalogue */
  double s;         /* Zipf exponent */
  int head;         /* ranks summed exactly (n when exact) */
  double inv_h;     /* 1 / H(n, s) */
  double t;         /* the characteristic time being tried (requests) */
  gboolean weigh_p; /* integrand p(x) (1 - exp(-p(x) t)) (hit ratio), else 1 - exp(-p(x) t) */
  gsl_integration_workspace *ws;
} Che;

/* The integrand on a log scale: x = e^y, dx = e^y dy. */
static double che_tail_fn(double y, void *params)
{
  const Che *c = params;
  double x = exp(y);
  double p = pow(x, -c->s) * c->inv_h;
  double occ = -expm1(-p * c->t);
  return (c->weigh_p ? p * occ : occ) * x;
}

/* sum over ranks head+1..n of the integrand as the midpoint-rule integral over
 * [head + 1/2, n + 1/2] (0 when exact); NAN when QAG fails. */
static double che_tail(Che *c, gboolean weigh_p)
{
  if (c->head >= c->n) return 0.0;
  c->weigh_p = weigh_p;
  gsl_function F = { .function = che_tail_fn, .params = c };
  double res = 0, err = 0;
  int st = gsl_integration_qag(&F, log(c->head + 0.5), log(c->n + 0.5), 0.0, CHE_EPSREL, CHE_QAG_LIMIT, GSL_INTEG_GAUSS31, c->ws,
                               &res, &err);
  return st == GSL_SUCCESS || st == GSL_EROUND ? res : NAN;
}

/* sum over all ranks of the occupancy (weigh_p FALSE) or of p_i times it (TRUE) at c->t. */
static double che_sum(Che *c, gboolean weigh_p)
{
  double s = 0;
  for (int i = 1; i <= c->head; i++) {
    double p = sim_zipf_weight((size_t)i, c->s) * c->inv_h;
    double occ = -expm1(-p * c->t);
    s += weigh_p ? p * occ : occ;
  }
  return s + che_tail(c, weigh_p);
}

typedef struct {
  Che *c;
  double cap;
} CheRoot;

static double che_root_fn(double t, void *params)
{
  CheRoot *r = params;
  r->c->t = t;
  return che_sum(r->c, FALSE) - r->cap;
}

static double che(int n, double s, double cap, gboolean exact, double *t_c)
{
  g_return_val_if_fail(n >= 1 && s >= 0 && cap >= 0, NAN);
  if (t_c) *t_c = cap >= n ? INFINITY : 0.0;
  if (cap >= n) return 1.0;
  if (cap <= 0) return 0.0;
  Che c = { .n = n, .s = s, .head = exact ? n : MIN(n, PC_EXACT_TITLES) };
  /* H(n, s): the head exactly, the tail as the midpoint integral of x^-s (closed form) */
  double h = exact ? sim_zipf_harmonic((size_t)n, s) : sim_zipf_harmonic((size_t)c.head, s);
  if (!exact && c.head < n) {
    double a = c.head + 0.5, b = n + 0.5;
    h += fabs(s - 1.0) < ZIPF_S_ONE_SLACK ? log(b / a) : (pow(b, 1.0 - s) - pow(a, 1.0 - s)) / (1.0 - s);
  }
  c.inv_h = 1.0 / h;
  g_autoptr(gsl_integration_workspace) ws = gsl_integration_workspace_alloc(CHE_QAG_LIMIT);
  c.ws = ws;
  CheRoot root = { &c, cap };
  /* bracket: the occupancy sum rises from 0 at t = 0 to n as t grows */
  double hi = cap * h;
  for (int k = 0; k < CHE_BRACKET_DOUBLINGS && che_root_fn(hi, &root) < 0; k++) hi *= 2;
  if (!(che_root_fn(hi, &root) >= 0)) return NAN;
  gsl_function F = { .function = che_root_fn, .params = &root };
  g_autoptr(gsl_root_fsolver) sv = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
  if (gsl_root_fsolver_set(sv, &F, 0.0, hi) != GSL_SUCCESS) return NAN;
  if (sim_root_iterate(sv, 0.0, CHE_EPSREL, CHE_MAX_ITER, NULL) != GSL_SUCCESS) return NAN;
  c.t = gsl_root_fsolver_root(sv);
  if (t_c) *t_c = c.t;
  double hit = che_sum(&c, TRUE);
  return isfinite(hit) ? CLAMP(hit, 0.0, 1.0) : NAN;
}

double pc_che_hit_ratio(int n_titles, double s, double c_titles, double *t_c)
{
  return che(n_titles, s, c_titles, FALSE, t_c);
}

double pc_che_hit_ratio_exact(int n_titles, double s, double c_titles, double *t_c)
{
  return che(n_titles, s, c_titles, TRUE, t_c);
}

/* ---- the box's RAM ------------------------------------------------------------------------- */

static gboolean path_has_tls(DataPath p)
{
  return datapath_tls(p) != TLS_NONE; /* plain sendfile and plain read/write hold no TLS state */
}

static gboolean path_reads_writes(DataPath p)
{
  return datapath_move(p) == MOVE_READ_WRITE; /* the server holds a user buffer per request */
}

/* Pages of drive reads in flight at x_Bps with miss ratio miss (ram.h: Little's law at the
 * slowest drive's read time). */
static double inflight_bytes(const Appliance *a, double x_Bps, double miss)
{
  double t = 0;
  for (int d = 0; d < a->n_drives; d++) t = MAX(t, nvme_read_s(&a->drives[d], a->wl.io_bytes));
  return x_Bps * miss * t;
}

/* Host copies of the inline engines' TLS contexts (nic.h): every NIC-kTLS connection's context
 * lives in host memory, cached on the card or not; the cards' connections by port share (the LACP
 * hash, demand.c). */
static double nic_context_bytes(const Appliance *a, double connections)
{
  double b = 0;
  for (int i = 0; i < a->n_nics; i++)
    if (nic_inline_tls(&a->nics[i])) b += nic_port_share(a, i) * a->nics[i].tls_ctx_bytes;
  return connections * datapath_appliance_share(a, datapath_nic_crypto) * b;
}

/* Everything but the page cache at x_Bps with `connections` clients and miss ratio miss (ram.h). */
static double other_needs(const Appliance *a, double x_Bps, double connections, double miss, RamReport *o)
{
  const PageCacheCfg *p = &a->pc;
  o->sockbuf_bytes = connections * p->sockbuf_bytes;
  o->tls_bytes = connections * datapath_appliance_share(a, path_has_tls) * p->tls_state_bytes + nic_context_bytes(a, connections);
  o->userbuf_bytes = connections * datapath_appliance_share(a, path_reads_writes) * a->user_buffer_bytes;
  o->inflight_bytes = inflight_bytes(a, x_Bps, miss);
  return o->sockbuf_bytes + o->tls_bytes + o->userbuf_bytes + o->inflight_bytes + p->reserve_bytes;
}

double pagecache_size_bytes(const Appliance *a, double x_Bps)
{
  const PageCacheCfg *p = &a->pc;
  if (p->mode != PC_LRU) return 0.0;
  if (p->cache_bytes > 0) return p->cache_bytes;
  double x = MAX(x_Bps, 0.0);
  RamReport parts;
  return MAX(0.0, p->installed_bytes - other_needs(a, x, workload_connections(&a->wl, x), 1.0, &parts));
}

gboolean pagecache_size_varies(const Appliance *a)
{
  return a->pc.mode == PC_LRU && !(a->pc.cache_bytes > 0);
}

double pagecache_hit_ratio(const Appliance *a, double x_Bps)
{
  if (a->pc.mode != PC_LRU) return 0.0;
  return pc_che_hit_ratio(a->wl.titles, a->wl.zipf_s, pagecache_size_bytes(a, x_Bps) / a->pc.title_bytes, NULL);
}

void ram_report_fill(RamReport *o, const Appliance *a, const DemandModel *m, double x_Bps, double connections)
{
  const PageCacheCfg *p = &a->pc;
  memset(o, 0, sizeof *o);
  o->shown = p->mode == PC_LRU || p->installed_bytes > 0;
  if (!o->shown) return;
  o->cache_on = p->mode == PC_LRU;
  o->cache_bytes = pagecache_size_bytes(a, m->sized_Bps); /* as the model was built */
  o->hit_ratio = pagecache_hit_ratio(a, m->sized_Bps);
  o->cached_titles = o->cache_on ? MIN(o->cache_bytes / p->title_bytes, (double)a->wl.titles) : 0.0;
  o->titles = a->wl.titles;
  o->zipf_s = a->wl.zipf_s;
  o->connections = connections;
  o->reserve_bytes = p->reserve_bytes;
  o->needed_bytes = o->cache_bytes + other_needs(a, x_Bps, connections, 1.0 - o->hit_ratio, o);
  o->installed_bytes = p->installed_bytes;
  o->over = o->installed_bytes > 0 && o->needed_bytes > o->installed_bytes;
}

/* sizes in the unit that shows them (sim_units_bytes_text): 1 MiB installed is not "0.0 GiB" */
void ram_report_table(const RamReport *o, GString *out)
{
  if (!o->shown) return;
  g_autofree char *cache = sim_units_bytes_text(o->cache_bytes);
  if (o->cache_on)
    g_string_append_printf(out, "page cache: LRU of %s, %.1f of %d titles: hit ratio %.1f %% (Che, Zipf s %.2f)\n", cache,
                           o->cached_titles, o->titles, 100 * o->hit_ratio, o->zipf_s);
  g_autofree char *ubt = o->userbuf_bytes > 0 ? sim_units_bytes_text(o->userbuf_bytes) : NULL;
  g_autofree char *ub = ubt ? g_strdup_printf(" user buffers %s,", ubt) : NULL;
  g_autofree char *need = sim_units_bytes_text(o->needed_bytes);
  g_string_append_printf(out, "ram:        needs %s", need);
  if (o->installed_bytes > 0) {
    g_autofree char *inst = sim_units_bytes_text(o->installed_bytes);
    g_string_append_printf(out, " of %s installed", inst);
  } else
    g_string_append(out, " (memory.installed not given)");
  g_autofree char *sock = sim_units_bytes_text(o->sockbuf_bytes), *tls = sim_units_bytes_text(o->tls_bytes),
                  *infl = sim_units_bytes_text(o->inflight_bytes), *res = sim_units_bytes_text(o->reserve_bytes);
  g_string_append_printf(out,
                         ": page cache %s, socket buffers %s, TLS state %s, reads in flight %s,\n"
                         "           %s reserve %s (%.0f connections)\n",
                         cache, sock, tls, infl, ub ? ub : "", res, o->connections);
  if (o->over) {
    g_autofree char *ex = sim_units_bytes_text(o->needed_bytes - o->installed_bytes);
    g_string_append_printf(out, "warning:    the RAM needed exceeds memory.installed by %s\n", ex);
  }
}

void ram_report_json(const RamReport *o, JsonBuilder *b)
{
  if (!o->shown) return;
  json_builder_set_member_name(b, "page_cache");
  json_builder_begin_object(b);
  sim_json_string(b, "mode", o->cache_on ? "lru" : "nocache");
  sim_json_number(b, "hit_ratio", o->hit_ratio);
  sim_json_number(b, "size_bytes", o->cache_bytes);
  sim_json_number(b, "titles_cached", o->cached_titles);
  json_builder_end_object(b);
  json_builder_set_member_name(b, "ram");
  json_builder_begin_object(b);
  sim_json_number(b, "needed_bytes", o->needed_bytes);
  sim_json_number(b, "installed_bytes", o->installed_bytes > 0 ? o->installed_bytes : NAN);
  sim_json_bool(b, "over_installed", o->over);
  sim_json_number(b, "page_cache_bytes", o->cache_bytes);
  sim_json_number(b, "socket_buffer_bytes", o->sockbuf_bytes);
  sim_json_number(b, "tls_state_bytes", o->tls_bytes);
  sim_json_number(b, "user_buffer_bytes", o->userbuf_bytes);
  sim_json_number(b, "inflight_bytes", o->inflight_bytes);
  sim_json_number(b, "reserve_bytes", o->reserve_bytes);
  json_builder_end_object(b);
}

/* ---- the component (component.h) ----------------------------------------------------------- */

#define F(m) offsetof(AppConf, m)

const SimConfField ram_schema[] = {
  { .key = "page_cache",
    .type = SIM_CONF_T_DOUBLE,
    .whole = true,
    .offset = F(a.pc.cache_bytes),
    .unit = SIM_UNIT_SIZE,
    .def = "0 B",
    .min = "0",
    .doc = "RAM of the page cache with software.page_cache lru (0: memory.installed minus every other need at the "
           "served throughput)" },
  { .key = "title_size",
    .type = SIM_CONF_T_DOUBLE,
    .whole = true,
    .offset = F(a.pc.title_bytes),
    .unit = SIM_UNIT_SIZE,
    .def = "2 GB",
    .min = "1",
    .doc = "bytes per title, the page cache's unit (assumption: ~2 GB per encoded file, as workload.titles)" },
  { .key = "socket_buffer",
    .type = SIM_CONF_T_DOUBLE,
    .whole = true,
    .offset = F(a.pc.sockbuf_bytes),
    .unit = SIM_UNIT_SIZE,
    .def = "64 KiB",
    .min = "0",
    .doc =
        "send-buffer bytes a connection holds (assumption: 5 Mb/s x 100 ms = 62.5 kB; FreeBSD sendspace 32 KiB to sendbuf_max 2 MiB, tcp(4))" },
  { .key = "tls_state",
    .type = SIM_CONF_T_DOUBLE,
    .whole = true,
    .offset = F(a.pc.tls_state_bytes),
    .unit = SIM_UNIT_SIZE,
    .def = "8 KiB",
    .min = "0",
    .doc = "TLS state a connection on a TLS path holds in host RAM (assumption: an OpenSSL session with released buffers "
           "plus the kernel's kTLS session)" },
  { .key = "reserve",
    .type = SIM_CONF_T_DOUBLE,
    .whole = true,
    .offset = F(a.pc.reserve_bytes),
    .unit = SIM_UNIT_SIZE,
    .def = "8 GiB",
    .min = "0",
    .doc = "RAM of the kernel, the server's processes and their buffers besides the above (assumption)" },
  SIM_CONF_END
};

/* The page cache needs RAM it can size (memory.installed or ram.page_cache) and drives to
 * spare; a loopback host serves from its page cache already (loopback.h). */
static gboolean pagecache_validate(const Appliance *a, GError **error)
{
  const PageCacheCfg *p = &a->pc;
  if (p->mode != PC_LRU) return TRUE;
  for (int i = 0; i < a->n_nics; i++)
    if (a->nics[i].kind == NIC_LOOPBACK)
      return model_fail(error, "software.page_cache", "a loopback host serves from its page cache already: leave this nocache");
  if (p->cache_bytes <= 0 && p->installed_bytes <= 0)
    return model_fail(error, "software.page_cache", "the page cache needs its size: give memory.installed or ram.page_cache");
  if (!(p->title_bytes > 0)) return model_fail(error, "ram.title_size", "must be positive");
  return TRUE;
}

typedef struct {
  double miss; /* 1 - hit ratio */
  int workers; /* sendfile.workers, -1 none */
} PcState;

/* No resource of its own: the miss ratio, once per build. */
static void pagecache_add_resources(AppBuild *b, void *state)
{
  PcState *s = state;
  s->miss = 1.0 - pagecache_hit_ratio(b->a, b->m->sized_Bps);
  s->workers = -1;
}

/* A hit skips the drive's DMA write into DRAM: the touches of a drive carry the miss ratio. */
static void pagecache_scale_touches(const AppBuild *b G_GNUC_UNUSED, const void *state, int n, Touch *t)
{
  const PcState *s = state;
  if (!(s->miss < 1.0)) return;
  for (int i = 0; i < n; i++)
    if (t[i].agent == AG_DISK) t[i].bytes *= s->miss;
}

/* A hit reads nothing from a drive: the class's drive, its link and the sync-sendfile workers
 * carry the miss ratio of what they carried (the nvme and datapath components come first). */
static void pagecache_class_demand(AppBuild *b, void *state, DmClass *k)
{
  PcState *s = state;
  if (!(s->miss < 1.0) || b->loop) return;
  const DemandModel *m = b->m;
  if (s->workers < 0) s->workers = demand_find(m, "sendfile.workers");
  for (int r = 0; r < m->n_res; r++)
    if (((m->res[r].kind == RK_NVME || m->res[r].kind == RK_PCIE) && m->res[r].drive == k->drive) || r == s->workers)
      k->demand[r] *= s->miss;
}

const AppComponent pagecache_component = { .name = "pagecache",
                                           .state_size = sizeof(PcState),
                                           .validate = pagecache_validate,
                                           .add_resources = pagecache_add_resources,
                                           .class_demand = pagecache_class_demand,
                                           .sizing_varies = pagecache_size_varies,
                                           .scale_touches = pagecache_scale_touches };
