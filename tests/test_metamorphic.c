/* tests/test_metamorphic.c — metamorphic tests of the appliance model: relations between runs
 * that must hold when no oracle gives the value of one run.
 *
 * Over every appliance scenario of scenarios/ and scenarios/reference/, each scenario is
 * changed the way a user does it, by `--set` overrides on its loaded document
 * (sim_conf_apply_override), then bound (appliance_from_conf, demand_build, bound_eval at the
 * scenario's offered load).  X is the bound's served throughput.
 *
 * 1. Monotone in every capacity.  Raising one capacity by 1.25x and by 4x never lowers X:
 *    memory speed, channels (x2), cores (x2), clock (at most the schema's 10 GHz), each drive
 *    group's read rate and PCIe lanes (x2 up to 16) and generation (+1 up to 5), each NIC
 *    group's inline kTLS rate, port speed and PCIe lanes and generation, the port speed of every
 *    NIC group at once, the intra-socket link and each inter-socket link's rate and width (x2 up
 *    to 16).  X' >= X (1 - 1e-9): the bound's root finder stops at a relative 1e-12 and the
 *    sizing fixed point at 1e-11 (models/appliance/demand.c).  Two model defects this found are fixed:
 *    the ports' split followed line rate, so one faster group drew load onto its card's
 *    inline-TLS engine (altra-q80-30-ext-tags, nics[0] at 125 Gb/s: 371.4 -> 342.0 Gb/s; now
 *    LACP's even hash), and the connections that size the user buffer's residency and the page
 *    cache followed line rate, so a faster port lowered X by up to 4e-7 on the CPU-bound
 *    read/write rows (now the served throughput, a fixed point).  Every model whose demand the
 *    sizing predicates call load-independent is checked to be so (the same X sized at 0 and at
 *    10 Tb/s).
 * 2. Scale-free in time.  A change of time unit: every rate and frequency of the schema times
 *    k (the appliance schema walked field by field, defaults included: memory speed, clock,
 *    drive read, port speed, kTLS rate, links, the offered load and the stream bitrates, the
 *    default 5 Mb/s mix of workload.h too), every time divided by k (latencies, penalties, the
 *    SLO, the PCIe read round trip pcie.read_rtt; the model compiles in no time of its own), and
 *    PCIe lanes times k, the one capacity without a rate key (a link's bandwidth is gen x
 *    lanes); sizes, counts, cycles per byte and fractions are kept.  Then X(k) = k X to a relative 1e-9, for k = 1/2 and
 *    1/4 (lanes of 16 and 4 in every scenario halve and quarter to whole lanes).
 *    Held latencies: with the rates alone times k (k < 1) the latencies weigh relatively
 *    less, so k X (1 - 1e-9) <= X(k) <= X (1 + 1e-9): not scale-free, but bracketed.
 * 3. Invariant under relabelling identical NUMA nodes.  Swapping the two sockets of a
 *    two-socket box, and the quadrant pairs or quadruples that form whole NUMA nodes
 *    (q -> q ^ x for x a multiple of the quadrants per node, which keeps the quadrants'
 *    adjacency), with every device, link attachment and NIC port domain moved along (the
 *    ports' domains written out, since port_domains: spread deals ports to node numbers),
 *    leaves X, the CPU utilisation and the sorted utilisations of every resource unchanged
 *    (relative 1e-9).  Titles are placed `random` (by drive index, seeded) on both sides:
 *    node_striped and round_robin deal titles in node-number order (workload.c), so they are
 *    not functions of the unlabelled box (with round_robin 15 of the 26 relabellings move the
 *    NPS4 scenarios' fabric-link loads, with the port domains left to spread their PCIe-tag
 *    loads too; X and the CPU do not move).  Identical drives: splitting a drive group of n
 *    identical drives into two groups of 1 and n - 1 leaves everything unchanged.
 * 4. The DES never exceeds the bound by more than its confidence interval: for every
 *    scenario, a short run (0.6 s after a 0.1 s warm-up, the scenario's seed) has throughput
 *    <= expected + CI95 (the half-width from batch means), expected = min(offered, X*).
 * 5. Monotone in drive failures.  Taking drives out (models/appliance/failure.h: the catalogue placed
 *    again over the survivors, as a refilled box holds it) never raises X over the healthy box,
 *    one drive or two down (1e-9 relative); and it never raises the drives' own limit (X over
 *    the busiest drive's utilisation): not over the healthy box for one drive d, not over d
 *    alone (nor e alone) for a pair d, e.  X itself may rise from d alone to d and e together,
 *    and the model is right to: a box that serves from the content's node evens out when the
 *    second drive leaves the other node (milan2022_strict_disk_silo, ports by content, 8/8 drives
 *    per socket: nvme[0] down 690.3 Gb/s, nvme[0] and nvme[8] down 732.4 Gb/s as healthy;
 *    skx2019_no_silo, remote stalls: 94.06 and 94.17 Gb/s).  This found a defect now fixed:
 *    node_striped dealt ranks to nodes in plain turns, so Rome's 2-drive quadrant took ranks 1,
 *    5, 9, ... of the Zipf head; one of its drives down left the other with the quadrant's whole
 *    share (rome-400g-nic-ktls: 356.9 Gb/s), both down re-balanced the box (371.5 Gb/s; the
 *    drives' limit 356.9 -> 426.9 Gb/s on rome-400g-mixed-ktls); now nodes are weighted by their
 *    drives (workload.c).
 */
#include <check.h>
#include "tests/support/check_run.h"
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/appliance/software.h"
#include "models/modes/bound.h"
#include "models/appliance/loader.h"
#include "models/modes/des.h"
#include "models/appliance/component.h"
#include "models/appliance/demand.h"
#include "models/appliance/failure.h"
#include "models/appliance/ram.h"
#include "models/appliance/workload.h"
#include "sim/conf.h"

#define REL_TOL 1e-9

typedef struct {
  char *file;
  SimConfDoc *doc;
  Appliance a; /* bound as written */
} MScen;

/* What one bound evaluation gives. */
typedef struct {
  double x_Bps, cpu_util;
  int n, n_fab;
  double util[256]; /* sorted, every resource but the fabric links */
  double fab[256];  /* sorted, the fabric links (RK_FABRIC) */
} Outcome;

static GPtrArray *scenarios; /* loaded once for the whole suite (MScen *) */
static WlShareCache *cache;

static void mscen_free(gpointer p)
{
  MScen *s = p;
  g_free(s->file);
  sim_conf_doc_free(s->doc);
  g_free(s);
}

static gint by_name(gconstpointer a, gconstpointer b)
{
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void add_dir(const char *dir)
{
  GDir *d = g_dir_open(dir, 0, NULL);
  ck_assert_msg(d != NULL, "%s", dir);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
  const char *name;
  while ((name = g_dir_read_name(d)))
    if (g_str_has_suffix(name, ".yaml")) g_ptr_array_add(names, g_build_filename(dir, name, NULL));
  g_dir_close(d);
  g_ptr_array_sort(names, by_name);
  for (guint i = 0; i < names->len; i++) {
    const char *path = g_ptr_array_index(names, i);
    g_autoptr(GError) e = NULL;
    SimConfDoc *doc = sim_conf_load_with_include(path, "platform", &e);
    ck_assert_msg(doc != NULL, "%s: %s", path, e ? e->message : "");
    const SimConfNode *kind = sim_conf_node_get(sim_conf_doc_root(doc), "kind");
    if (!kind || strcmp(sim_conf_node_text(kind), "appliance")) {
      sim_conf_doc_free(doc);
      continue;
    }
    MScen *s = g_new0(MScen, 1);
    s->file = g_strdup(path);
    s->doc = doc;
    AppScenarioInfo info = { 0 };
    ck_assert_msg(appliance_from_conf(sim_conf_doc_root(doc), &s->a, &info, &e), "%s: %s", path, e ? e->message : "");
    app_scenario_info_clear(&info);
    g_ptr_array_add(scenarios, s);
  }
}

static void setup(void)
{
  scenarios = g_ptr_array_new_with_free_func(mscen_free);
  cache = workload_share_cache_new();
  add_dir("scenarios");
  add_dir("scenarios/reference");
  ck_assert_uint_ge(scenarios->len, 30);
}

static void teardown(void)
{
  g_ptr_array_unref(scenarios);
  workload_share_cache_free(cache);
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Applies @sets (char *) to a copy of @s's document and bounds it into @o; FALSE with @error
 *  when an override or the binding fails. */
static gboolean eval(const MScen *s, const GPtrArray *sets, Outcome *o, GError **error)
{
  g_autoptr(SimConfDoc) doc = sim_conf_doc_copy(s->doc);
  for (guint i = 0; sets && i < sets->len; i++)
    if (!sim_conf_apply_override(doc, g_ptr_array_index(sets, i), error)) return FALSE;
  Appliance *a = g_new0(Appliance, 1);
  AppScenarioInfo info = { 0 };
  gboolean ok = appliance_from_conf(sim_conf_doc_root(doc), a, &info, error);
  DemandModel *m = ok ? demand_build_cached(a, cache, error) : NULL;
  if (m) {
    g_autoptr(BoundResult) r = bound_eval(a, m, a->wl.offered_gbps);
    o->x_Bps = r->throughput_Bps;
    o->cpu_util = r->cpu_util;
    o->n = o->n_fab = 0;
    for (int i = 0; i < r->n_res && o->n < (int)G_N_ELEMENTS(o->util) && o->n_fab < (int)G_N_ELEMENTS(o->fab); i++) {
      if (m->res[i].kind == RK_FABRIC)
        o->fab[o->n_fab++] = r->util[i];
      else
        o->util[o->n++] = r->util[i];
    }
    qsort(o->util, (size_t)o->n, sizeof(double), cmp_double);
    qsort(o->fab, (size_t)o->n_fab, sizeof(double), cmp_double);
  }
  ok = m != NULL;
  demand_free(m);
  app_scenario_info_clear(&info);
  g_free(a);
  return ok;
}

static void base_outcome(const MScen *s, Outcome *o)
{
  g_autoptr(GError) e = NULL;
  ck_assert_msg(eval(s, NULL, o, &e), "%s: %s", s->file, e ? e->message : "");
  ck_assert_msg(o->x_Bps > 0, "%s: no throughput", s->file);
}

static GPtrArray *sets_new(void)
{
  return g_ptr_array_new_with_free_func(g_free);
}

static void sets_add(GPtrArray *sets, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void sets_add(GPtrArray *sets, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  g_ptr_array_add(sets, g_strdup_vprintf(fmt, ap));
  va_end(ap);
}

/* The first drive (NIC) expanded from group @g. */
static const NvmeDrive *drive_of_group(const Appliance *a, int g)
{
  for (int i = 0; i < a->n_drives; i++)
    if (a->drives[i].group == g) return &a->drives[i];
  return NULL;
}

static const NicCard *nic_of_group(const Appliance *a, int g)
{
  for (int i = 0; i < a->n_nics; i++)
    if (a->nics[i].group == g) return &a->nics[i];
  return NULL;
}

static guint list_len(const MScen *s, const char *key)
{
  const SimConfNode *n = sim_conf_node_find(sim_conf_doc_root(s->doc), key);
  return n && sim_conf_node_kind(n) == SIM_CONF_NODE_SEQ ? sim_conf_node_size(n) : 0;
}

/* ---- 1. monotone in every capacity ------------------------------------------------------- */

/* The single-capacity raises of @s by factor @f (rates times f, counts times 2, PCIe gen + 1),
 *  each one override; integer capacities stay within their ranges. */
/* A wider link may need more lanes than the CPU package has (budget.c refuses the box): the
 * property is about the model's throughput, so a lanes raise also lifts the lane budgets
 * (0: not checked). */
#define LANES_UNBUDGETED "\nbudgets.pcie_lanes_per_socket=0\nbudgets.pcie_lanes_per_quadrant=0"

static GPtrArray *raises(const MScen *s, double f)
{
  const Appliance *a = &s->a;
  GPtrArray *r = sets_new();
  /* the DDR generation held (memory.type auto would read it off the raised speed; a Zen 2 box
   * takes no DDR5, budget.c) */
  g_ptr_array_add(r,
                  g_strdup_printf("memory.speed=%.17g T/s\nmemory.type=%s", a->mem.speed_tps * f, mem_type_names[a->mem.type]));
  g_ptr_array_add(r, g_strdup_printf("memory.channels_per_socket=%d", a->mem.channels_per_socket * 2));
  g_ptr_array_add(r, g_strdup_printf("cpu.cores_per_socket=%d", a->topo.cores_per_socket * 2));
  g_ptr_array_add(r, g_strdup_printf("cpu.clock=%.17g Hz", MIN(a->cpu.clock_hz * f, 10e9))); /* the schema's sanity bound */
  g_ptr_array_add(r, g_strdup_printf("topology.intra_link=%.17g B/s", a->topo.intra_link_Bps * f));
  const SimConfNode *links = sim_conf_node_find(sim_conf_doc_root(s->doc), "topology.links");
  for (guint g = 0, first = 0; g < list_len(s, "topology.links"); g++) {
    const SimConfNode *cnt = sim_conf_node_get(sim_conf_node_child(links, g), "count");
    int64_t count = 1; /* the link groups expand in order into topo.links[] */
    if (cnt) ck_assert(sim_conf_node_int64(cnt, SIM_UNIT_NONE, &count, NULL));
    ck_assert_int_lt(first, a->topo.n_links);
    const TopoLink *l = &a->topo.links[first];
    first += (guint)count;
    g_ptr_array_add(r, g_strdup_printf("topology.links[%u].rate=%.17g T/s", g, l->rate_tps * f));
    if (l->width * 2 <= 16) g_ptr_array_add(r, g_strdup_printf("topology.links[%u].width=%d", g, l->width * 2));
  }
  for (guint g = 0; g < list_len(s, "nvme"); g++) {
    const NvmeDrive *d = drive_of_group(a, (int)g);
    if (!d) continue;
    g_ptr_array_add(r, g_strdup_printf("nvme[%u].read=%.17g B/s", g, d->read_Bps * f));
    if (d->link.lanes * 2 <= 16)
      g_ptr_array_add(r, g_strdup_printf("nvme[%u].pcie.lanes=%d" LANES_UNBUDGETED, g, d->link.lanes * 2));
    if (d->link.gen < 5) g_ptr_array_add(r, g_strdup_printf("nvme[%u].pcie.gen=%d", g, d->link.gen + 1));
  }
  g_autoptr(GString) ports = g_string_new(NULL); /* every group's port speed at once, as well as each alone */
  for (guint g = 0; g < list_len(s, "nics"); g++) {
    const NicCard *n = nic_of_group(a, (int)g);
    if (!n || n->kind == NIC_LOOPBACK) continue;
    g_string_append_printf(ports, "%snics[%u].port_speed=%.17g b/s", ports->len ? "\n" : "", g, n->port_bps * f);
    if (list_len(s, "nics") > 1) g_ptr_array_add(r, g_strdup_printf("nics[%u].port_speed=%.17g b/s", g, n->port_bps * f));
    if (n->ktls_bps > 0) g_ptr_array_add(r, g_strdup_printf("nics[%u].ktls=%.17g b/s", g, n->ktls_bps * f));
    if (n->link.lanes * 2 <= 16)
      g_ptr_array_add(r, g_strdup_printf("nics[%u].pcie.lanes=%d" LANES_UNBUDGETED, g, n->link.lanes * 2));
    if (n->link.gen < 5) g_ptr_array_add(r, g_strdup_printf("nics[%u].pcie.gen=%d", g, n->link.gen + 1));
  }
  if (ports->len) g_ptr_array_add(r, g_strdup(ports->str));
  return r;
}

START_TEST(test_monotone_capacities)
{
  guint checked = 0, single = 0;
  for (guint i = 0; i < scenarios->len; i++) {
    const MScen *s = g_ptr_array_index(scenarios, i);
    Outcome base;
    base_outcome(s, &base);
    static const double factors[] = { 1.25, 4.0 };
    for (size_t fi = 0; fi < G_N_ELEMENTS(factors); fi++) {
      g_autoptr(GPtrArray) r = raises(s, factors[fi]);
      for (guint j = 0; j < r->len; j++) {
        g_autoptr(GPtrArray) one = sets_new(); /* one raise: one override, or several joined by newlines */
        g_auto(GStrv) parts = g_strsplit(g_ptr_array_index(r, j), "\n", -1);
        for (char **p = parts; *p; p++) sets_add(one, "%s", *p);
        Outcome o;
        g_autoptr(GError) e = NULL;
        ck_assert_msg(eval(s, one, &o, &e), "%s --set %s: %s", s->file, (const char *)g_ptr_array_index(r, j),
                      e ? e->message : "");
        const char *raise = g_ptr_array_index(r, j);
        if (strstr(raise, "port_speed") && !strchr(raise, '\n')) single++;
        ck_assert_msg(o.x_Bps >= base.x_Bps * (1 - REL_TOL), "%s --set %s: throughput fell from %.9g to %.9g Gb/s", s->file,
                      raise, base.x_Bps * 8e-9, o.x_Bps * 8e-9);
        checked++;
      }
    }
  }
  printf("metamorphic: monotone: %u raises over %u scenarios (%u of them one NIC group's port speed), none lowers X\n", checked,
         scenarios->len, single);
  ck_assert_uint_ge(single, 100); /* 60 groups of multi-group boxes and 4 one-group boxes, at two factors: 128 */
}
END_TEST

/* The sizing predicates (demand.c skips its fixed point when all three say the demand does not depend
 * on the served throughput): on every scenario they call load-independent, the model sized at 0
 * and at the ports' line rate (the most it serves) serves the same X; and they call the read/write rows with a resident-able
 * buffer load-dependent. */
START_TEST(test_sizing_predicates)
{
  guint independent = 0, dependent = 0;
  for (guint i = 0; i < scenarios->len; i++) {
    const MScen *s = g_ptr_array_index(scenarios, i);
    g_autoptr(GError) e = NULL;
    g_autoptr(DemandModel) m = demand_build_cached(&s->a, cache, &e);
    ck_assert_msg(m != NULL, "%s: %s", s->file, e ? e->message : "");
    if (software_user_miss_varies(&s->a) || pagecache_size_varies(&s->a) || nic_tls_context_varies(&s->a)) {
      dependent++;
      continue;
    }
    g_autoptr(DemandModel) m0 = demand_build_sized(&s->a, m->drive_share, 0.0, &e);
    double line_Bps = appliance_line_Bps(&s->a); /* the most the box serves: the fixed point lies below it */
    g_autoptr(DemandModel) m1 = demand_build_sized(&s->a, m->drive_share, line_Bps, &e);
    ck_assert(m0 && m1);
    ck_assert_msg(m0->op_Bps == m1->op_Bps && m0->op_Bps == m->op_Bps,
                  "%s: called load-independent, yet X %.12g / %.12g Gb/s (sized at 0 / line rate)", s->file, m0->op_Bps * 8e-9,
                  m1->op_Bps * 8e-9);
    independent++;
  }
  printf("metamorphic: sizing: %u load-independent models checked, %u solved for their fixed point\n", independent, dependent);
  ck_assert_uint_ge(dependent, 4); /* bdw2016/rome2022 user-space TLS, read_write_ktls, the page-cache what-if */
  ck_assert_uint_ge(independent, 20);
}
END_TEST

/* ---- 2. scale-free in time --------------------------------------------------------------- */

/* Base unit text of a kind, as sim_units_parse reads it. */
static const char *base_unit(SimUnitKind u)
{
  switch (u) {
    case SIM_UNIT_BIT_RATE: return "b/s";
    case SIM_UNIT_BYTE_RATE: return "B/s";
    case SIM_UNIT_TRANSFER_RATE: return "T/s";
    case SIM_UNIT_FREQUENCY: return "Hz";
    case SIM_UNIT_TIME: return "ns";
    default: return NULL;
  }
}

/* The value of field @f at @node (its child, or the default when absent): FALSE when neither. */
static gboolean field_value(const SimConfField *f, const SimConfNode *v, double *out)
{
  if (v) return sim_conf_node_double(v, f->unit, out, NULL);
  if (!f->def) return FALSE;
  return sim_units_parse(f->def, f->unit, out, NULL) || sim_units_parse_double(f->def, out, NULL);
}

typedef struct {
  double k;
  gboolean times;  /* divide times by k (else hold them) */
  GPtrArray *sets; /* the overrides */
  GString *odd;    /* fields that cannot be scaled (a whole number that would not stay whole) */
} Scaler;

/* A scalar of field @f with unit kind @u at @path, value at @v (NULL: its default). */
static void scale_scalar(Scaler *sc, const SimConfField *f, SimUnitKind u, const char *path, const SimConfNode *v)
{
  gboolean rate = u == SIM_UNIT_BIT_RATE || u == SIM_UNIT_BYTE_RATE || u == SIM_UNIT_TRANSFER_RATE || u == SIM_UNIT_FREQUENCY;
  gboolean lanes = !strcmp(f->key, "lanes") && u == SIM_UNIT_NONE;
  if (!rate && !lanes && !(u == SIM_UNIT_TIME && sc->times)) return;
  double x;
  if (!field_value(f, v, &x)) return;
  double y = u == SIM_UNIT_TIME ? x / sc->k : x * sc->k;
  gboolean whole = f->whole || f->type == SIM_CONF_T_INT || f->type == SIM_CONF_T_INT64;
  if (whole && y != floor(y)) {
    g_string_append_printf(sc->odd, " %s", path);
    return;
  }
  if (lanes)
    sets_add(sc->sets, "%s=%d", path, (int)y);
  else
    sets_add(sc->sets, "%s=%.17g %s", path, y, base_unit(u));
}

/* Any first-row latency: the curve is the latency added above it (memory.h). */
#define MEM_SCALE_BASE_NS 100.0

static void scale_map(Scaler *sc, const SimConfField *schema, const SimConfNode *map, const char *prefix);

static void scale_field(Scaler *sc, const SimConfField *f, const SimConfNode *v, const char *path)
{
  switch (f->type) {
    case SIM_CONF_T_DOUBLE:
    case SIM_CONF_T_INT:
    case SIM_CONF_T_INT64: scale_scalar(sc, f, f->unit, path, v); break;
    case SIM_CONF_T_MAP: scale_map(sc, f->sub, v, path); break;
    case SIM_CONF_T_LIST:
      if (!v || sim_conf_node_kind(v) != SIM_CONF_NODE_SEQ) break;
      for (guint i = 0; i < sim_conf_node_size(v); i++) {
        g_autofree char *p = g_strdup_printf("%s[%u]", path, i);
        if (f->sub)
          scale_map(sc, f->sub, sim_conf_node_child(v, i), p);
        else if (f->elem_type == SIM_CONF_T_DOUBLE || f->elem_type == SIM_CONF_T_INT || f->elem_type == SIM_CONF_T_INT64)
          scale_scalar(sc, f, f->unit, p, sim_conf_node_child(v, i));
      }
      break;
    case SIM_CONF_T_DICT:
      if (!v || sim_conf_node_kind(v) != SIM_CONF_NODE_MAP) break;
      for (guint i = 0; i < sim_conf_node_size(v); i++) {
        g_autofree char *p = g_strdup_printf("%s.%s", path, sim_conf_map_key(v, i));
        scale_map(sc, f->sub, sim_conf_node_child(v, i), p);
      }
      break;
    default: break;
  }
}

/* Every field of @schema under @map (NULL: all defaults) at key path @prefix ("" at the root). */
static void scale_map(Scaler *sc, const SimConfField *schema, const SimConfNode *map, const char *prefix)
{
  for (const SimConfField *f = schema; f->key; f++) {
    if (!*prefix && (!strcmp(f->key, "duration") || !strcmp(f->key, "warmup") || !strcmp(f->key, "reference"))) continue;
    g_autofree char *path = *prefix ? g_strdup_printf("%s.%s", prefix, f->key) : g_strdup(f->key);
    const SimConfNode *v = map ? sim_conf_node_get(map, f->key) : NULL;
    if (!strcmp(path, "workload.offered")) { /* a bit rate, or "saturate" (the default) */
      double x;
      if (v && sim_conf_node_double(v, SIM_UNIT_BIT_RATE, &x, NULL)) sets_add(sc->sets, "%s=%.17g b/s", path, x * sc->k);
      continue;
    }
    if (!strcmp(path, "workload.bitrates") && !v) { /* the default mix lives in the code (workload.h) */
      sets_add(sc->sets, "%s=[{rate: %.17g b/s, share: 100 %%}]", path, WL_DEFAULT_BITRATE_BPS * sc->k);
      continue;
    }
    if (!strcmp(path, "memory.loaded_latency") && !v && !(map && sim_conf_node_get(map, "load_latency"))) {
      /* the default curve lives in the code (memory.h): its rows as a measured curve, each
       * latency / k and the capacity x k (its utilisations unchanged) */
      MemCurve c;
      mem_curve_default(&c, NULL);
      GString *rows = g_string_new(NULL);
      for (int i = 0; i < c.n; i++)
        g_string_append_printf(rows, "%s{bandwidth: %.17g B/s, latency: %.17g ns}", i ? ", " : "", c.u[i] * 1e9 * sc->k,
                               (MEM_SCALE_BASE_NS + c.ns[i]) / (sc->times ? sc->k : 1.0));
      sets_add(sc->sets, "%s={source: default, capacity: %.17g B/s, points: [%s]}", path, 1e9 * sc->k, rows->str);
      g_string_free(rows, TRUE);
      continue;
    }
    if (f->type == SIM_CONF_T_NODE) {
      const SimConfNodeSchema *nodes = NULL;
      (void)appliance_conf_schema(&nodes);
      for (; v && nodes->path; nodes++)
        if (!strcmp(nodes->path, path)) scale_map(sc, nodes->schema, v, path);
      continue;
    }
    scale_field(sc, f, v, path);
  }
}

/* The overrides that scale @s by @k (times by 1/@k when @times). */
static GPtrArray *scaled(const MScen *s, double k, gboolean times, GString *odd)
{
  Scaler sc = { .k = k, .times = times, .sets = sets_new(), .odd = odd };
  scale_map(&sc, appliance_conf_schema(NULL), sim_conf_doc_root(s->doc), "");
  /* memory.type auto reads the DDR generation (its read/write turnaround) off the speed, which
   * scales: the generation is the box's, so it is held */
  sets_add(sc.sets, "memory.type=%s", mem_type_names[s->a.mem.type]);
  return sc.sets;
}

START_TEST(test_scale_free)
{
  static const double ks[] = { 0.5, 0.25 };
  double worst = 0, held_lo = G_MAXDOUBLE, held_hi = 0; /* |X(k) / (k X) - 1|; X(k) / (k X) with latencies held */
  for (guint i = 0; i < scenarios->len; i++) {
    const MScen *s = g_ptr_array_index(scenarios, i);
    Outcome base;
    base_outcome(s, &base);
    for (size_t ki = 0; ki < G_N_ELEMENTS(ks); ki++) {
      double k = ks[ki];
      for (int times = 1; times >= 0; times--) {
        g_autoptr(GString) odd = g_string_new(NULL);
        g_autoptr(GPtrArray) sets = scaled(s, k, times, odd);
        ck_assert_msg(odd->len == 0, "%s: cannot scale by %g:%s", s->file, k, odd->str);
        Outcome o;
        g_autoptr(GError) e = NULL;
        ck_assert_msg(eval(s, sets, &o, &e), "%s scaled by %g: %s", s->file, k, e ? e->message : "");
        if (times)
          worst = MAX(worst, fabs(o.x_Bps / (k * base.x_Bps) - 1));
        else {
          held_lo = MIN(held_lo, o.x_Bps / (k * base.x_Bps));
          held_hi = MAX(held_hi, o.x_Bps / (k * base.x_Bps));
        }
        if (times)
          ck_assert_msg(fabs(o.x_Bps / (k * base.x_Bps) - 1) <= REL_TOL,
                        "%s: rates x %g, times / %g: throughput %.12g Gb/s, expected %.12g (ratio %.12g)", s->file, k, k,
                        o.x_Bps * 8e-9, k * base.x_Bps * 8e-9, o.x_Bps / base.x_Bps);
        else
          ck_assert_msg(o.x_Bps >= k * base.x_Bps * (1 - REL_TOL) && o.x_Bps <= base.x_Bps * (1 + REL_TOL),
                        "%s: rates x %g, times held: throughput %.12g Gb/s outside [%.12g, %.12g]", s->file, k, o.x_Bps * 8e-9,
                        k * base.x_Bps * 8e-9, base.x_Bps * 8e-9);
        if (i == 0 && ki == 0 && times) {
          printf("metamorphic: scale: %s scaled by %u overrides:", s->file, sets->len);
          for (guint j = 0; j < sets->len; j++)
            printf(" %.*s", (int)strcspn(g_ptr_array_index(sets, j), "="), (char *)g_ptr_array_index(sets, j));
          printf("\n");
        }
      }
    }
  }
  printf("metamorphic: scale: worst |X(k)/(k X) - 1| = %.3g; latencies held: X(k)/(k X) in [%.6f, %.6f] (k = 1/2, 1/4)\n", worst,
         held_lo, held_hi);
}
END_TEST

/* ---- 3. relabelling identical NUMA nodes; identical drives ------------------------------ */

/* The overrides that move every device of @s by the relabelling (socket flip @flip, quadrant
 *  xor @x): socket/quadrant groups get both explicitly, node groups their new node. */
static GPtrArray *relabel(const MScen *s, gboolean flip, int x)
{
  const Appliance *a = &s->a;
  const Topology *t = &a->topo;
  int qpn = t->quadrants / t->nps;
  GPtrArray *r = sets_new();
  const char *lists[] = { "nvme", "nics" };
  for (size_t li = 0; li < G_N_ELEMENTS(lists); li++) {
    const SimConfNode *seq = sim_conf_node_find(sim_conf_doc_root(s->doc), lists[li]);
    for (guint g = 0; g < list_len(s, lists[li]); g++) {
      const SimConfNode *grp = sim_conf_node_child(seq, g);
      TopoPos p;
      if (li == 0) {
        const NvmeDrive *d = drive_of_group(a, (int)g);
        if (!d) continue;
        p = d->pos;
      } else {
        const NicCard *n = nic_of_group(a, (int)g);
        if (!n) continue;
        p = n->pos;
      }
      TopoPos q = { flip ? t->sockets - 1 - p.socket : p.socket, p.quadrant ^ x };
      if (sim_conf_node_get(grp, "node"))
        sets_add(r, "%s[%u].node=%d", lists[li], g, q.socket * t->nps + q.quadrant / qpn);
      else {
        sets_add(r, "%s[%u].socket=%d", lists[li], g, q.socket);
        sets_add(r, "%s[%u].quadrant=%d", lists[li], g, q.quadrant);
      }
      if (li == 1) { /* every port's NUMA domain, explicit or by topology.port_domains, moved along */
        g_autoptr(GString) doms = g_string_new(NULL);
        for (int c = 0; c < a->n_nics; c++) {
          if (a->nics[c].group != (int)g) continue;
          for (int port = 0; port < a->nics[c].ports; port++) {
            int node = nic_port_domain(&a->nics[c], t, port);
            int sock = node / t->nps, part = node % t->nps;
            int nsock = flip ? t->sockets - 1 - sock : sock;
            g_string_append_printf(doms, "%s%d", doms->len ? ", " : "", nsock * t->nps + (part ^ (x / qpn)));
          }
        }
        sets_add(r, "nics[%u].domains=[%s]", g, doms->str);
      }
    }
  }
  const SimConfNode *links = sim_conf_node_find(sim_conf_doc_root(s->doc), "topology.links");
  for (guint g = 0; g < list_len(s, "topology.links"); g++) {
    const SimConfNode *att = sim_conf_node_get(sim_conf_node_child(links, g), "attach");
    for (guint j = 0; att && j < sim_conf_node_size(att); j++) {
      int64_t quad;
      ck_assert(sim_conf_node_int64(sim_conf_node_child(att, j), SIM_UNIT_NONE, &quad, NULL));
      if (x) sets_add(r, "topology.links[%u].attach[%u]=%d", g, j, (int)quad ^ x);
    }
  }
  return r;
}

/* Asserts the same throughput, CPU utilisation and sorted utilisations of every resource
 *  (the fabric links' kept apart); on a difference *@diff lists the utilisations that moved. */
static void assert_same(const MScen *s, const char *what, const Outcome *b, const Outcome *o, GString *diff)
{
  ck_assert_msg(fabs(o->x_Bps - b->x_Bps) <= REL_TOL * b->x_Bps, "%s %s: throughput %.12g -> %.12g Gb/s", s->file, what,
                b->x_Bps * 8e-9, o->x_Bps * 8e-9);
  ck_assert_msg(fabs(o->cpu_util - b->cpu_util) <= REL_TOL, "%s %s: CPU %.12g -> %.12g", s->file, what, b->cpu_util, o->cpu_util);
  ck_assert_int_eq(o->n, b->n);
  ck_assert_int_eq(o->n_fab, b->n_fab);
  for (int r = 0; r < b->n; r++)
    if (fabs(o->util[r] - b->util[r]) > REL_TOL) g_string_append_printf(diff, " util[%d] %.4f/%.4f", r, b->util[r], o->util[r]);
  for (int r = 0; r < b->n_fab; r++)
    if (fabs(o->fab[r] - b->fab[r]) > REL_TOL) g_string_append_printf(diff, " fabric[%d] %.4f/%.4f", r, b->fab[r], o->fab[r]);
  ck_assert_msg(diff->len == 0, "%s %s: sorted utilisations moved (before/after):%s", s->file, what, diff->str);
}

/* Bounds @s changed by @sets (@what says how, for messages) and asserts it as @base. */
static void assert_same_after(const MScen *s, const GPtrArray *sets, const char *what, const Outcome *base)
{
  Outcome o;
  g_autoptr(GError) e = NULL;
  ck_assert_msg(eval(s, sets, &o, &e), "%s %s: %s", s->file, what, e ? e->message : "");
  g_autoptr(GString) diff = g_string_new(NULL);
  assert_same(s, what, base, &o, diff);
}

START_TEST(test_relabel_nodes)
{
  guint n = 0;
  for (guint i = 0; i < scenarios->len; i++) {
    const MScen *s = g_ptr_array_index(scenarios, i);
    const Topology *t = &s->a.topo;
    int qpn = t->quadrants / t->nps;
    /* titles by drive index (random, seeded), which a relabelling keeps: node_striped and
     * round_robin deal titles in node-number order */
    g_autoptr(GPtrArray) rr = sets_new();
    sets_add(rr, "workload.title_placement=random");
    Outcome base;
    g_autoptr(GError) be = NULL;
    ck_assert_msg(eval(s, rr, &base, &be), "%s: %s", s->file, be ? be->message : "");
    for (int flip = 0; flip <= (t->sockets == 2); flip++)
      for (int x = 0; x < t->quadrants; x += qpn) {
        if (!flip && !x) continue;
        if (x && x != qpn && x != 2 * qpn) continue; /* q ^ x keeps the quadrants' adjacency for x = 1, 2 */
        g_autoptr(GPtrArray) sets = relabel(s, flip, x);
        sets_add(sets, "workload.title_placement=random");
        g_autofree char *what = g_strdup_printf("(sockets %s, quadrants ^ %d)", flip ? "swapped" : "kept", x);
        assert_same_after(s, sets, what, &base);
        n++;
      }
  }
  printf("metamorphic: relabel: %u node permutations\n", n);
  ck_assert_uint_ge(n, 10);
}
END_TEST

START_TEST(test_split_drive_groups)
{
  guint n = 0;
  for (guint i = 0; i < scenarios->len; i++) {
    const MScen *s = g_ptr_array_index(scenarios, i);
    Outcome base;
    base_outcome(s, &base);
    const SimConfNode *seq = sim_conf_node_find(sim_conf_doc_root(s->doc), "nvme");
    for (guint g = 0; g < list_len(s, "nvme"); g++) {
      const SimConfNode *cnt = sim_conf_node_get(sim_conf_node_child(seq, g), "count");
      int64_t count = 1;
      if (cnt) ck_assert(sim_conf_node_int64(cnt, SIM_UNIT_NONE, &count, NULL));
      if (count < 2) continue;
      /* the list again, with group g as two groups of 1 and count - 1 drives */
      g_autoptr(GString) list = g_string_new("nvme=[");
      for (guint j = 0; j < sim_conf_node_size(seq); j++) {
        for (int part = 0; part < (j == g ? 2 : 1); part++) {
          g_autoptr(SimConfDoc) scratch = sim_conf_doc_copy(s->doc);
          if (j == g) {
            g_autofree char *set = g_strdup_printf("nvme[%u].count=%" G_GINT64_FORMAT, g, part ? count - 1 : 1);
            ck_assert(sim_conf_apply_override(scratch, set, NULL));
          }
          g_autofree char *txt =
              sim_conf_node_flow_text(sim_conf_node_child(sim_conf_node_find(sim_conf_doc_root(scratch), "nvme"), j));
          g_string_append_printf(list, "%s%s", list->str[list->len - 1] == '[' ? "" : ", ", txt);
        }
      }
      g_string_append_c(list, ']');
      g_autoptr(GPtrArray) sets = sets_new();
      sets_add(sets, "%s", list->str);
      g_autofree char *what = g_strdup_printf("(nvme[%u] split)", g);
      assert_same_after(s, sets, what, &base);
      n++;
    }
  }
  printf("metamorphic: identical drives: %u group splits\n", n);
  ck_assert_uint_ge(n, 10);
}
END_TEST

/* ---- 4. the DES within the bound -------------------------------------------------------- */

/* What a failure what-if gives: X, and the throughput the drives alone allow at that operating
 * point, X over the busiest drive's utilisation. */
typedef struct {
  double x_Bps, drives_Bps;
} FailOutcome;

/* @s's healthy box with the drives at positions @down (n_down of them, at most 2) failed. */
static FailOutcome x_failed(const MScen *s, const int *down, int n_down)
{
  g_autofree Appliance *a = g_memdup2(&s->a, sizeof s->a);
  char names[2][32];
  const char *fail[3] = { NULL, NULL, NULL };
  for (int i = 0; i < n_down; i++) {
    g_snprintf(names[i], sizeof names[i], "nvme[%d]", s->a.drives[down[i]].id);
    fail[i] = names[i];
  }
  g_autoptr(GError) e = NULL;
  ck_assert_msg(appliance_fail(a, fail, &e), "%s --fail %s: %s", s->file, fail[0] ? fail[0] : "", e ? e->message : "");
  DemandModel *m = demand_build_cached(a, cache, &e);
  ck_assert_msg(m != NULL, "%s --fail %s: %s", s->file, fail[0] ? fail[0] : "", e ? e->message : "");
  g_autoptr(BoundResult) r = bound_eval(a, m, a->wl.offered_gbps);
  double busiest = 0;
  for (int i = 0; i < r->n_res; i++)
    if (m->res[i].kind == RK_NVME) busiest = MAX(busiest, r->util[i]);
  FailOutcome o = { r->throughput_Bps, busiest > 0 ? r->throughput_Bps / busiest : G_MAXDOUBLE };
  demand_free(m);
  return o;
}

START_TEST(test_failures_monotone)
{
  guint singles = 0, pairs = 0;
  for (guint i = 0; i < scenarios->len; i++) {
    const MScen *s = g_ptr_array_index(scenarios, i);
    int D = s->a.n_drives;
    if (D < 2) continue;
    FailOutcome healthy = x_failed(s, NULL, 0), one[APP_MAX_DRIVES];
    for (int d = 0; d < D; d++, singles++) {
      one[d] = x_failed(s, (int[]){ d }, 1);
      ck_assert_msg(one[d].x_Bps <= healthy.x_Bps * (1 + REL_TOL), "%s --fail nvme[%d]: throughput rose from %.9g to %.9g Gb/s",
                    s->file, s->a.drives[d].id, healthy.x_Bps * 8e-9, one[d].x_Bps * 8e-9);
      ck_assert_msg(one[d].drives_Bps <= healthy.drives_Bps * (1 + REL_TOL),
                    "%s --fail nvme[%d]: the drives' limit rose from %.9g to %.9g Gb/s", s->file, s->a.drives[d].id,
                    healthy.drives_Bps * 8e-9, one[d].drives_Bps * 8e-9);
    }
    for (int d = 0; d < D && D > 2; d++)
      for (int e = d + 1; e < D; e++, pairs++) {
        FailOutcome two = x_failed(s, (int[]){ d, e }, 2);
        ck_assert_msg(two.x_Bps <= healthy.x_Bps * (1 + REL_TOL),
                      "%s --fail nvme[%d] --fail nvme[%d]: throughput rose from %.9g to %.9g Gb/s", s->file, s->a.drives[d].id,
                      s->a.drives[e].id, healthy.x_Bps * 8e-9, two.x_Bps * 8e-9);
        double least = MIN(one[d].drives_Bps, one[e].drives_Bps);
        ck_assert_msg(two.drives_Bps <= least * (1 + REL_TOL),
                      "%s --fail nvme[%d] --fail nvme[%d]: the drives' limit %.9g Gb/s above one of them down (%.9g, %.9g)",
                      s->file, s->a.drives[d].id, s->a.drives[e].id, two.drives_Bps * 8e-9, one[d].drives_Bps * 8e-9,
                      one[e].drives_Bps * 8e-9);
      }
  }
  printf("metamorphic: failures: %u single and %u paired drive failures over %u scenarios, none raises X or the drives' limit\n",
         singles, pairs, scenarios->len);
  ck_assert_uint_ge(singles, 100);
}
END_TEST

START_TEST(test_des_within_bound)
{
  for (guint i = 0; i < scenarios->len; i++) {
    const MScen *s = g_ptr_array_index(scenarios, i);
    g_autoptr(SimConfDoc) doc = sim_conf_doc_copy(s->doc);
    ck_assert(sim_conf_apply_override(doc, "duration=0.7 s", NULL));
    ck_assert(sim_conf_apply_override(doc, "warmup=0.1 s", NULL));
    Appliance *a = g_new0(Appliance, 1);
    AppScenarioInfo info = { 0 };
    g_autoptr(GError) e = NULL;
    ck_assert_msg(appliance_from_conf(sim_conf_doc_root(doc), a, &info, &e), "%s: %s", s->file, e ? e->message : "");
    DemandModel *m = demand_build_cached(a, cache, &e);
    ck_assert_msg(m != NULL, "%s: %s", s->file, e ? e->message : "");
    AppReport *rep = des_run(a, &info, m, NULL, &e);
    ck_assert_msg(rep != NULL, "%s: %s", s->file, e ? e->message : "");
    ck_assert_msg(rep->expected_gbps > 0 && isfinite(rep->throughput_ci95_gbps), "%s: expected %g, CI %g", s->file,
                  rep->expected_gbps, rep->throughput_ci95_gbps);
    double limit = rep->expected_gbps + rep->throughput_ci95_gbps;
    ck_assert_msg(rep->throughput_gbps <= limit, "%s: DES %.4f +- %.4f Gb/s above the bound %.4f Gb/s", s->file,
                  rep->throughput_gbps, rep->throughput_ci95_gbps, rep->expected_gbps);
    printf("metamorphic: des: %-60s %9.3f +- %7.3f <= %9.3f Gb/s\n", s->file, rep->throughput_gbps, rep->throughput_ci95_gbps,
           rep->expected_gbps);
    report_free(rep);
    demand_free(m);
    app_scenario_info_clear(&info);
    g_free(a);
  }
}
END_TEST

int main(void)
{
  Suite *s = suite_create("metamorphic");
  TCase *tc = tcase_create("bound");
  tcase_add_unchecked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_monotone_capacities);
  tcase_add_test(tc, test_sizing_predicates);
  tcase_add_test(tc, test_scale_free);
  tcase_add_test(tc, test_relabel_nodes);
  tcase_add_test(tc, test_split_drive_groups);
  tcase_add_test(tc, test_failures_monotone);
  tcase_add_test(tc, test_des_within_bound);
  suite_add_tcase(s, tc);
  return test_run_suite(s);
}
