/* appliance/loader.c — the `kind: appliance` scenario loader: the root schema over the components'
 * sections (component.h), located errors, and the `reference:` block (see appliance/loader.h). */
#include "models/appliance/loader.h"
#include "models/appliance/components.h"
#include "models/appliance/software.h"
#include "models/appliance/failure.h"
#include "models/appliance/model_error.h"
#include <string.h>

/* Shortest measured period of `ocasim run`: a few dozen 2 MiB requests per
 * drive at 100 Gb/s, and 20 batches of at least 1 us. */
#define APPCONF_MIN_MEASURED_NS 1e6
/* Most entries of the `failures:` list (a schema limit: more than any published box has
 * drives and ports together is a typo, not a what-if). Assumed. */
#define APPCONF_MAX_FAILURES 64

/* The `reference:` block: bound into the AppReference, with the kinds list beside it. */
typedef struct {
  AppReference r;
  SimConfList kinds; /* ResKind */
} RefConf;

#define R(m) offsetof(RefConf, m)
#define F(m) offsetof(AppConf, m)

static const SimConfField ref_schema[] = {
  { .key = "id", .type = SIM_CONF_T_STRING, .offset = R(r.id), .required = true, .doc = "result id in published.yaml" },
  { .key = "source", .type = SIM_CONF_T_STRING, .offset = R(r.source), .doc = "source talk(s)" },
  { .key = "gbps",
    .type = SIM_CONF_T_DOUBLE,
    .offset = R(r.gbps),
    .required = true,
    .min = "0",
    .min_exclusive = true,
    .doc = "published throughput, Gb/s" },
  { .key = "cpu_pct",
    .type = SIM_CONF_T_DOUBLE,
    .offset = R(r.cpu_pct),
    .def = "-1",
    .min = "-1",
    .max = "100",
    .doc = "published CPU %, -1 when not published" },
  { .key = "bottleneck", .type = SIM_CONF_T_STRING, .offset = R(r.bottleneck), .doc = "published bottleneck, as worded" },
  { .key = "bottleneck_kinds",
    .type = SIM_CONF_T_LIST,
    .offset = R(kinds),
    .elem_type = SIM_CONF_T_ENUM,
    .enum_names = demand_kind_names,
    .max_items = APPCONF_MAX_KINDS,
    .doc = "resource kinds that match the published bottleneck" },
  { .key = "cause",
    .type = SIM_CONF_T_STRING,
    .offset = R(r.cause),
    .doc = "remote_stall: the CPU limit must come from remote-memory stalls" },
  { .key = "tolerance_pct",
    .type = SIM_CONF_T_DOUBLE,
    .offset = R(r.tolerance_pct),
    .def = "10",
    .min = "0",
    .max = "100",
    .doc =
        "CI bound on throughput, % (above 10 only with known_deviation; the row still FAILs at 10 %); also the fit's scale for this figure (docs/model/fit.md)" },
  { .key = "cpu_tolerance_pts",
    .type = SIM_CONF_T_DOUBLE,
    .offset = R(r.cpu_tolerance_pts),
    .def = "10",
    .min = "0",
    .max = "100",
    .doc = "CI bound on CPU, points (above 10 only with known_deviation; the row still FAILs the 10-point rule); with "
           "known_deviation, also the fit's scale for this figure" },
  { .key = "known_deviation",
    .type = SIM_CONF_T_STRING,
    .offset = R(r.known_deviation),
    .doc = "why the model misses this result by more than 10 % / 10 points: reported as FAIL, CI holds it to the bounds above" },
  { .key = "same_as",
    .type = SIM_CONF_T_STRING,
    .offset = R(r.same_as),
    .doc = "id of a result of the same configuration with the same figure: the fit weighs the two as one and leaves them "
           "out together" },
  { .key = "dram_GBps",
    .type = SIM_CONF_T_DOUBLE,
    .offset = R(r.dram_GBps),
    .def = "-1",
    .min = "-1",
    .doc = "published DRAM traffic, GB/s (-1: not published)" },
  { .key = "fabric_util_pct",
    .type = SIM_CONF_T_DOUBLE,
    .offset = R(r.fabric_util_pct),
    .def = "-1",
    .min = "-1",
    .max = "100",
    .doc = "published fabric utilisation %" },
  { .key = "hot_port_gbps",
    .type = SIM_CONF_T_DOUBLE,
    .offset = R(r.hot_port_gbps),
    .def = "-1",
    .min = "-1",
    .doc = "published Gb/s per port, hot node" },
  { .key = "cold_port_gbps",
    .type = SIM_CONF_T_DOUBLE,
    .offset = R(r.cold_port_gbps),
    .def = "-1",
    .min = "-1",
    .doc = "published Gb/s per port, other nodes" },
  SIM_CONF_END
};

/* The root: the scenario's own keys, then every component's sections in the list's order (components.h). */
#define SECTIONS(name, res, check) name##_conf_sections
static const SimConfField root_schema[] = {
  { .key = "kind", .type = SIM_CONF_T_STRING, .offset = F(kind), .required = true, .doc = "appliance" },
  { .key = "name", .type = SIM_CONF_T_STRING, .offset = F(name), .doc = "scenario name" },
  { .key = "description", .type = SIM_CONF_T_STRING, .offset = F(description), .doc = "what the scenario shows" },
  { .key = "platform", .type = SIM_CONF_T_STRING, .offset = F(platform), .doc = "platform file included under this scenario" },
  { .key = "platform_name",
    .type = SIM_CONF_T_STRING,
    .offset = F(platform_name),
    .doc = "name of the platform (platform files)" },
  { .key = "seed", .type = SIM_CONF_T_INT64, .offset = F(a.seed), .def = "1", .min = "0", .doc = "random seed" },
  { .key = "duration",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(duration_ns),
    .unit = SIM_UNIT_TIME,
    .def = "2 s",
    .min = "0",
    .min_exclusive = true,
    .max = "9007199254740992",
    .doc = "simulated time (ocasim run); at most 2^53 ns (~104 days)" },
  { .key = "warmup",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(warmup_ns),
    .unit = SIM_UNIT_TIME,
    .def = "0.2 s",
    .min = "0",
    .max = "9007199254740992",
    .doc = "warm-up discarded from statistics (ocasim run)" },
  { .key = "rate_precision",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(rate_precision),
    .def = "0",
    .min = "0",
    .max = "0.1",
    .doc =
        "ocasim run: relative rate precision EPS of the DES; 0: exact max-min at every start and end; EPS > 0 defers small changes (bench/README.md, bench-precision)" },
  /* clang-format off */
  APP_COMPONENT_LIST(SECTIONS)
  /* clang-format on */
  { .key = "reference",
    .type = SIM_CONF_T_NODE,
    .offset = F(reference_node),
    .doc = "published result this scenario reproduces" },
  { .key = "failures",
    .type = SIM_CONF_T_LIST,
    .offset = F(failures),
    .elem_type = SIM_CONF_T_STRING,
    .max_items = APPCONF_MAX_FAILURES,
    .doc =
        "components down in a failure what-if, as --fail names them: \"nvme[D]\", \"nics[N]\", \"nics[N].ports[P]\" (healthy box's indices; docs/model/failure.md)" },
  { .key = "uncertainty",
    .type = SIM_CONF_T_LIST,
    .offset = F(unc_list),
    .sub = uncertainty_entry_schema,
    .elem_size = sizeof(UncEntryConf),
    .max_items = UNC_MAX_ENTRIES,
    .doc =
        "spreads of the file's values: {param, low, high, kind, source}, factors read as the central 95 %; replaces the platform's list (models/appliance/uncertainty.h)" },
  SIM_CONF_END
};

static void locate_model_error(const SimConfNode *root, const GError *merr, GError **error)
{
  const char *path = model_error_path(merr);
  sim_conf_set_error(error, sim_conf_node_find(root, path ? path : ""), SIM_CONF_ERROR_RANGE, "%s", model_error_detail(merr));
}

static gboolean bind_reference(const SimConfNode *node, AppReference *out, GError **error)
{
  RefConf rc = { 0 };
  gboolean ok = sim_conf_bind(node, ref_schema, &rc, error);
  if (ok && !rc.r.known_deviation &&
      (rc.r.tolerance_pct > APP_REF_TOLERANCE_PCT || rc.r.cpu_tolerance_pts > APP_REF_CPU_TOLERANCE_PTS)) {
    /* a wider bound is no way to pass: only a documented deviation may have one (and it FAILs) */
    const char *key = rc.r.tolerance_pct > APP_REF_TOLERANCE_PCT ? "tolerance_pct" : "cpu_tolerance_pts";
    const SimConfNode *at = sim_conf_node_get(node, key);
    sim_conf_set_error(error, at ? at : node, SIM_CONF_ERROR_RANGE,
                       "reference.%s: above 10 only with a known_deviation that says why the result is missed", key);
    ok = FALSE;
  }
  if (!ok) {
    sim_conf_unbind(ref_schema, &rc);
    return FALSE;
  }
  *out = rc.r; /* the strings move to out */
  out->present = TRUE;
  out->n_kinds = (int)rc.kinds.n;
  for (size_t i = 0; i < rc.kinds.n; i++) out->kinds[i] = *SIM_CONF_LIST_AT(rc.kinds, ResKind, i);
  g_free(rc.kinds.items);
  return TRUE;
}

/* Every component's finish in validation order; a component whose later neighbours place
 * devices on it (the topology, the memory) is checked as soon as it is finished. */
static gboolean finish_components(AppConf *c, const SimConfNode *root, GError **error)
{
  for (const AppComponent *const *comp = app_components_validation(); *comp; comp++) {
    if ((*comp)->finish && !(*comp)->finish(c, root, error)) return FALSE;
    if ((*comp)->checked_when_finished) {
      GError *merr = NULL;
      if (!(*comp)->validate(&c->a, &merr)) {
        locate_model_error(root, merr, error);
        g_error_free(merr);
        return FALSE;
      }
    }
  }
  return TRUE;
}

/* The value node of @key under map @section of @root, or NULL when the file does not give it. */
static const SimConfNode *given(const SimConfNode *root, const char *section, const char *key)
{
  return sim_conf_node_get(sim_conf_node_get(root, section), key);
}

/* Checks across keys of different sections that no one component can make, each a located
 * error at the key that is wrong next to the other:
 *  - a drive read (io_size, when the file gives it) larger than the request it serves
 *    (request_size; the default io_size is left alone: a host profile's small requests use it);
 *  - a client stream faster than the fastest NIC port (a connection leaves by one port);
 *  - software.crypto given while no path of the scenario encrypts on the CPU (NIC kTLS): not an
 *    error but a note on stderr (g_message), since the setting is ignored.
 * (An empty topology.nps_supported is check_nps_list's.) */
static gboolean check_cross_keys(const AppConf *c, const SimConfNode *root, GError **error)
{
  const Appliance *a = &c->a;
  if (given(root, "workload", "io_size") && a->wl.io_bytes > a->wl.request_bytes) {
    g_autofree char *io = sim_units_format(a->wl.io_bytes, SIM_UNIT_SIZE);
    g_autofree char *rq = sim_units_format(a->wl.request_bytes, SIM_UNIT_SIZE);
    return app_conf_error(error, root, "workload.io_size", SIM_CONF_ERROR_RANGE,
                          "io_size (%s) is larger than request_size (%s): a drive read serves one request", io, rq);
  }
  double port = 0;
  for (int i = 0; i < a->n_nics; i++) port = MAX(port, a->nics[i].port_bps);
  for (int i = 0; port > 0 && i < a->wl.n_bitrates; i++) {
    if (a->wl.bitrate[i].rate_bps <= port) continue;
    g_autofree char *r = sim_units_format(a->wl.bitrate[i].rate_bps, SIM_UNIT_BIT_RATE);
    g_autofree char *p = sim_units_format(port, SIM_UNIT_BIT_RATE);
    g_autofree char *at = g_strdup_printf("workload.bitrates[%d].rate", i);
    return app_conf_error(error, root, at, SIM_CONF_ERROR_RANGE,
                          "a stream of %s is faster than the fastest NIC port (%s): one connection leaves by one port", r, p);
  }
  const SimConfNode *crypto = given(root, "software", "crypto");
  if (crypto && !datapath_cpu_crypto(a->path) && !(a->wl.alt_fraction > 0 && datapath_cpu_crypto(a->wl.alt_path))) {
    /* a warning, not an error: a sweep may vary the data path of a scenario that names its crypto */
    GError *note = NULL;
    sim_conf_set_error(&note, crypto, SIM_CONF_ERROR_RANGE,
                       "note: not used: the data path %s encrypts on the NIC, so the CPU's bulk crypto is never run "
                       "(remove software.crypto, or serve part of the load on a CPU-crypto workload.alt_path)",
                       datapath_name(a->path));
    g_message("%s", note->message);
    g_error_free(note);
  }
  return TRUE;
}

/* An empty topology.nps_supported: checked before the topology reads it as the default [1]. */
static gboolean check_nps_list(const AppConf *c, const SimConfNode *root, GError **error)
{
  const SimConfNode *nps = given(root, "topology", "nps_supported");
  if (nps && sim_conf_node_kind(nps) == SIM_CONF_NODE_SEQ && sim_conf_node_size(nps) == 0) {
    sim_conf_set_error(
        error, nps, SIM_CONF_ERROR_RANGE,
        "is empty, so the CPU would support no NPS mode, not even topology.nps (NPS%d): list the modes, e.g. [1, 2, 4]",
        c->a.topo.nps);
    return FALSE;
  }
  return TRUE;
}

/* The scenario's `failures:` must name components the box has, each once, and leave it a drive
 * and a port (failure.h): each entry alone, then the entries up to each one together, on a copy
 * of the healthy box; a located error at failures[i] when the message is about that entry (a
 * component the box lacks or one already down), at the whole list otherwise (no port left). */
static gboolean check_failures(const AppConf *c, const SimConfNode *root, GError **error)
{
  if (c->failures.n == 0) return TRUE;
  g_autofree const char **upto = g_new0(const char *, c->failures.n + 1);
  g_autofree Appliance *copy = g_new(Appliance, 1);
  for (size_t pass = 0; pass < 2; pass++) {
    memset(upto, 0, sizeof *upto * (c->failures.n + 1)); /* pass 1 fills it entry by entry: a prefix */
    for (size_t i = 0; i < c->failures.n; i++) {
      const char *one[2] = { *SIM_CONF_LIST_AT(c->failures, char *, i), NULL };
      upto[i] = one[0];
      *copy = c->a;
      GError *e = NULL;
      if (appliance_fail(copy, pass == 0 ? one : upto, &e)) continue;
      const char *msg = g_str_has_prefix(e->message, "--fail: ") ? e->message + strlen("--fail: ") : e->message;
      g_autofree char *quoted = g_strdup_printf("'%s'", one[0]);
      g_autofree char *path = g_str_has_prefix(msg, quoted) ? g_strdup_printf("failures[%zu]", i) : g_strdup("failures");
      app_conf_error(error, root, path, SIM_CONF_ERROR_RANGE, "%s", msg);
      g_error_free(e);
      return FALSE;
    }
  }
  return TRUE;
}

/* Keys that moved: an old scenario that still gives one is told where it went (the binding
 * alone would only say "unknown key"). */
static const struct {
  const char *parent, *key, *now;
} moved_keys[] = {
  { "cpu", "cap", "workload.cpu_cap" }, /* with the cost profiles (costs:): a production cap, not a property of the part */
};

/* Refuses a moved key of @root, located at it, saying where it went. */
static gboolean check_moved_keys(const SimConfNode *root, GError **error)
{
  for (size_t i = 0; i < G_N_ELEMENTS(moved_keys); i++) {
    const SimConfNode *map = sim_conf_node_get(root, moved_keys[i].parent);
    const SimConfNode *v = map && sim_conf_node_kind(map) == SIM_CONF_NODE_MAP ? sim_conf_node_get(map, moved_keys[i].key) : NULL;
    if (!v) continue;
    sim_conf_set_error(error, v, SIM_CONF_ERROR_UNKNOWN_KEY, "unknown key '%s': %s.%s moved to %s", moved_keys[i].key,
                       moved_keys[i].parent, moved_keys[i].key, moved_keys[i].now);
    return FALSE;
  }
  return TRUE;
}

gboolean appliance_from_conf(const SimConfNode *root, Appliance *out, AppScenarioInfo *info, GError **error)
{
  if (!check_moved_keys(root, error)) return FALSE;
  AppConf *c = g_new0(AppConf, 1);
  gboolean ok = FALSE;
  coeffs_defaults(&c->a.coef);
  if (!sim_conf_bind(root, root_schema, c, error)) goto out;
  if (strcmp(c->kind, "appliance") != 0) {
    sim_conf_set_error(error, sim_conf_node_get(root, "kind"), SIM_CONF_ERROR_ENUM, "expected kind 'appliance', got '%s'",
                       c->kind);
    goto out;
  }
  g_strlcpy(c->a.name, c->name ? c->name : "appliance", sizeof c->a.name);
  if (c->duration_ns - c->warmup_ns < APPCONF_MIN_MEASURED_NS) {
    const SimConfNode *wu = sim_conf_node_get(root, "warmup"), *du = sim_conf_node_get(root, "duration");
    sim_conf_set_error(error,
                       du   ? du
                       : wu ? wu
                            : root,
                       SIM_CONF_ERROR_RANGE, "the duration (%g s%s) must exceed the warm-up (%g s%s) by at least %g ms",
                       c->duration_ns / 1e9, du ? "" : ", the default", c->warmup_ns / 1e9, wu ? "" : ", the default",
                       APPCONF_MIN_MEASURED_NS / 1e6);
    goto out;
  }
  if (!check_nps_list(c, root, error) || !finish_components(c, root, error) ||
      !uncertainty_finish(&c->unc_list, root, &c->a.unc, error))
    goto out;
  {
    GError *merr = NULL;
    if (!appliance_validate(&c->a, &merr)) {
      locate_model_error(root, merr, error);
      g_error_free(merr);
      goto out;
    }
  }
  if (!check_cross_keys(c, root, error) || !check_failures(c, root, error)) goto out;
  if (info) {
    memset(info, 0, sizeof *info);
    info->name = g_strdup(c->name ? c->name : "appliance");
    info->description = g_strdup(c->description);
    info->duration_s = c->duration_ns / 1e9;
    info->warmup_s = c->warmup_ns / 1e9;
    info->rate_precision = c->rate_precision;
    info->overrides = sim_conf_overrides(root);
    if (c->reference_node && !bind_reference(c->reference_node, &info->ref, error)) goto out;
    if (c->failures.n > 0) {
      info->failures = g_new0(char *, c->failures.n + 1);
      for (size_t i = 0; i < c->failures.n; i++) info->failures[i] = g_strdup(*SIM_CONF_LIST_AT(c->failures, char *, i));
    }
  }
  *out = c->a;
  ok = TRUE;
out:
  sim_conf_unbind(root_schema, c);
  g_free(c);
  return ok;
}

gboolean appliance_load_file(const char *path, const char *const *sets, Appliance *out, AppScenarioInfo *info, GError **error)
{
  g_autoptr(SimConfDoc) doc = sim_conf_load_with_include(path, "platform", error);
  if (!doc) return FALSE;
  if (sets && !sim_conf_apply_overrides(doc, sets, error)) return FALSE;
  return appliance_from_conf(sim_conf_doc_root(doc), out, info, error);
}

void app_scenario_info_clear(AppScenarioInfo *info)
{
  if (!info) return;
  g_free(info->name);
  g_free(info->description);
  g_free(info->ref.id);
  g_free(info->ref.source);
  g_free(info->ref.bottleneck);
  g_free(info->ref.cause);
  g_free(info->ref.known_deviation);
  g_strfreev(info->overrides);
  g_strfreev(info->failures);
  g_free(info->ref.same_as);
  memset(info, 0, sizeof *info);
}

const SimConfField *appliance_conf_schema(const SimConfNodeSchema **nodes)
{
  static const SimConfNodeSchema sections[] = { { "loopback", loopback_schema }, { "reference", ref_schema }, { NULL, NULL } };
  if (nodes) *nodes = sections;
  return root_schema;
}

void appliance_conf_markdown(GString *out)
{
  g_string_append(out, "### Scenario and platform keys\n\n");
  sim_conf_schema_markdown(root_schema, NULL, out);
  g_string_append(out,
                  "\n### `loopback:` (a host whose clients run on it, nics[].kind loopback; written by `ocasim validate`)\n\n");
  sim_conf_schema_markdown(loopback_schema, "loopback.", out);
  g_string_append(out, "\n### `reference:` (published-result scenarios)\n\n");
  sim_conf_schema_markdown(ref_schema, "reference.", out);
}
