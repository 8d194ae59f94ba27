/* tests/test_conf.c — sim/conf: loading, positions, table-driven binding of a test schema
 * (nested map, list of maps, map of maps, scalar list, enum, units, bool, ranged int),
 * a table of bad inputs checked for FILE:LINE:COL, key path and message, --set overrides,
 * includes (platform files) with per-file positions, determinism of order, Markdown docs,
 * and binding from several threads at once. Run from the repository root (tests/data/conf). */
#include <check.h>
#include "tests/support/check_run.h"
#include <string.h>

#include "sim/conf.h"

/* ---- test schema --------------------------------------------------------------------------- */

typedef struct {
  char *name;
  int servers;
  double service_ns;
  int discipline;
  SimConfList weights; /* double */
} Station;

typedef struct {
  char *name;
  double rate_bps;
  int64_t mtu_bytes;
} Link;

typedef struct {
  double warmup_ns;
  int64_t duration_ns;
} Run;

typedef struct {
  char *platform;
  double link_bps;
  int64_t buffer_bytes;
  bool trace;
  double util;
  double ratio;
  Run run;
  SimConfList stations; /* Station */
  SimConfList links;    /* Link, keyed */
  SimConfList tags;     /* char * */
  const SimConfNode *extra;
} Scen;

enum { DISC_FCFS, DISC_PS, DISC_LCFS };
static const char *const disc_names[] = { "fcfs", "ps", "lcfs", NULL };

static const SimConfField station_schema[] = {
  { .key = "name", .type = SIM_CONF_T_STRING, .offset = offsetof(Station, name), .required = true, .doc = "station name" },
  { .key = "servers",
    .type = SIM_CONF_T_INT,
    .offset = offsetof(Station, servers),
    .def = "1",
    .min = "1",
    .max = "64",
    .doc = "number of servers" },
  { .key = "service",
    .type = SIM_CONF_T_DOUBLE,
    .unit = SIM_UNIT_TIME,
    .offset = offsetof(Station, service_ns),
    .def = "10 us",
    .min = "0",
    .min_exclusive = true,
    .doc = "mean service time" },
  { .key = "discipline",
    .type = SIM_CONF_T_ENUM,
    .offset = offsetof(Station, discipline),
    .enum_names = disc_names,
    .def = "fcfs",
    .doc = "queueing discipline" },
  { .key = "weights",
    .type = SIM_CONF_T_LIST,
    .offset = offsetof(Station, weights),
    .elem_type = SIM_CONF_T_DOUBLE,
    .min = "0",
    .max = "1",
    .doc = "routing weights" },
  SIM_CONF_END
};

static const SimConfField link_schema[] = { { .key = "rate",
                                              .type = SIM_CONF_T_DOUBLE,
                                              .unit = SIM_UNIT_BIT_RATE,
                                              .offset = offsetof(Link, rate_bps),
                                              .required = true,
                                              .doc = "line rate" },
                                            { .key = "mtu",
                                              .type = SIM_CONF_T_INT64,
                                              .unit = SIM_UNIT_SIZE,
                                              .offset = offsetof(Link, mtu_bytes),
                                              .def = "1500 B",
                                              .min = "576 B",
                                              .max = "9 KiB",
                                              .doc = "maximum transfer unit" },
                                            SIM_CONF_END };

static const SimConfField run_schema[] = { { .key = "warmup",
                                             .type = SIM_CONF_T_DOUBLE,
                                             .unit = SIM_UNIT_TIME,
                                             .offset = offsetof(Run, warmup_ns),
                                             .def = "100 us",
                                             .doc = "discarded start" },
                                           { .key = "duration",
                                             .type = SIM_CONF_T_INT64,
                                             .unit = SIM_UNIT_TIME,
                                             .offset = offsetof(Run, duration_ns),
                                             .def = "1 s",
                                             .min = "1 ns",
                                             .doc = "simulated time" },
                                           SIM_CONF_END };

static const SimConfField scen_schema[] = {
  { .key = "platform", .type = SIM_CONF_T_STRING, .offset = offsetof(Scen, platform), .doc = "platform file" },
  { .key = "link",
    .type = SIM_CONF_T_DOUBLE,
    .unit = SIM_UNIT_BIT_RATE,
    .offset = offsetof(Scen, link_bps),
    .required = true,
    .min = "0",
    .min_exclusive = true,
    .max = "1.6 Tb/s",
    .doc = "NIC line rate" },
  { .key = "buffer",
    .type = SIM_CONF_T_INT64,
    .unit = SIM_UNIT_SIZE,
    .offset = offsetof(Scen, buffer_bytes),
    .def = "2 MiB",
    .doc = "socket buffer" },
  { .key = "trace", .type = SIM_CONF_T_BOOL, .offset = offsetof(Scen, trace), .def = "false", .doc = "trace events" },
  { .key = "util",
    .type = SIM_CONF_T_DOUBLE,
    .unit = SIM_UNIT_PERCENT,
    .offset = offsetof(Scen, util),
    .def = "80 %",
    .min = "0 %",
    .max = "100 %",
    .doc = "target utilisation" },
  { .key = "ratio", .type = SIM_CONF_T_DOUBLE, .offset = offsetof(Scen, ratio), .def = "0.5", .doc = "a plain number" },
  { .key = "run", .type = SIM_CONF_T_MAP, .offset = offsetof(Scen, run), .sub = run_schema, .doc = "run control" },
  { .key = "stations",
    .type = SIM_CONF_T_LIST,
    .offset = offsetof(Scen, stations),
    .sub = station_schema,
    .elem_size = sizeof(Station),
    .min_items = 1,
    .required = true,
    .doc = "queueing stations" },
  { .key = "links",
    .type = SIM_CONF_T_DICT,
    .offset = offsetof(Scen, links),
    .sub = link_schema,
    .elem_size = sizeof(Link),
    .key_offset = offsetof(Link, name),
    .doc = "named links" },
  { .key = "tags",
    .type = SIM_CONF_T_LIST,
    .offset = offsetof(Scen, tags),
    .elem_type = SIM_CONF_T_STRING,
    .doc = "free labels" },
  { .key = "extra", .type = SIM_CONF_T_NODE, .offset = offsetof(Scen, extra), .doc = "custom section" },
  SIM_CONF_END
};

static const char *good_yaml = "link: 400 Gb/s\n"            /* 1 */
                               "buffer: 16 KiB\n"            /* 2 */
                               "trace: true\n"               /* 3 */
                               "util: 90%\n"                 /* 4 */
                               "run:\n"                      /* 5 */
                               "  duration: 1.5 ms\n"        /* 6 */
                               "stations:\n"                 /* 7 */
                               "  - name: nic\n"             /* 8 */
                               "    servers: 4\n"            /* 9 */
                               "    service: 250 ns\n"       /* 10 */
                               "    weights: [0.25, 0.75]\n" /* 11 */
                               "  - name: cpu\n"             /* 12 */
                               "    discipline: ps\n"        /* 13 */
                               "links:\n"                    /* 14 */
                               "  zeta: {rate: 100 Gb/s}\n"  /* 15 */
                               "  alpha: {rate: 25 Gb/s, mtu: 9000 B}\n"
                               "tags: [a, \"b c\"]\n"
                               "extra: {kind: anything, n: 3}\n";

/* Loads @yaml as "t.yaml", applies @sets, binds; returns the bind result and sets *err. */
static gboolean load_bind(const char *yaml, const char *const *sets, Scen *s, GError **err)
{
  g_autoptr(SimConfDoc) doc = sim_conf_load_string(yaml, "t.yaml", err);
  if (!doc) return FALSE;
  if (!sim_conf_apply_overrides(doc, sets, err)) return FALSE;
  gboolean ok = sim_conf_bind(sim_conf_doc_root(doc), scen_schema, s, err);
  s->extra = NULL; /* borrowed from doc, gone now */
  return ok;
}

START_TEST(test_bind_good)
{
  g_autoptr(SimConfDoc) doc = sim_conf_load_string(good_yaml, "t.yaml", NULL);
  ck_assert_ptr_nonnull(doc);
  Scen s = { 0 };
  GError *err = NULL;
  ck_assert_msg(sim_conf_bind(sim_conf_doc_root(doc), scen_schema, &s, &err), "%s", err ? err->message : "");
  ck_assert(s.link_bps == 4e11);
  ck_assert_int_eq(s.buffer_bytes, 16384);
  ck_assert(s.trace);
  ck_assert(s.util == 0.9);
  ck_assert(s.ratio == 0.5);           /* default */
  ck_assert(s.run.warmup_ns == 100e3); /* default inside a present map */
  ck_assert_int_eq(s.run.duration_ns, 1500000);
  ck_assert_ptr_null(s.platform); /* optional, no default: untouched */

  ck_assert_uint_eq(s.stations.n, 2);
  Station *nic = SIM_CONF_LIST_AT(s.stations, Station, 0);
  Station *cpu = SIM_CONF_LIST_AT(s.stations, Station, 1);
  ck_assert_str_eq(nic->name, "nic");
  ck_assert_int_eq(nic->servers, 4);
  ck_assert(nic->service_ns == 250.0);
  ck_assert_int_eq(nic->discipline, DISC_FCFS);
  ck_assert_uint_eq(nic->weights.n, 2);
  ck_assert(*SIM_CONF_LIST_AT(nic->weights, double, 1) == 0.75);
  ck_assert_str_eq(cpu->name, "cpu");
  ck_assert_int_eq(cpu->servers, 1);
  ck_assert(cpu->service_ns == 10e3);
  ck_assert_int_eq(cpu->discipline, DISC_PS);
  ck_assert_uint_eq(cpu->weights.n, 0);

  /* Map of maps keeps file order, not key order. */
  ck_assert_uint_eq(s.links.n, 2);
  Link *l0 = SIM_CONF_LIST_AT(s.links, Link, 0), *l1 = SIM_CONF_LIST_AT(s.links, Link, 1);
  ck_assert_str_eq(l0->name, "zeta");
  ck_assert(l0->rate_bps == 1e11);
  ck_assert_int_eq(l0->mtu_bytes, 1500);
  ck_assert_str_eq(l1->name, "alpha");
  ck_assert_int_eq(l1->mtu_bytes, 9000);

  ck_assert_uint_eq(s.tags.n, 2);
  ck_assert_str_eq(*SIM_CONF_LIST_AT(s.tags, char *, 1), "b c");

  ck_assert_ptr_nonnull(s.extra);
  ck_assert_int_eq(sim_conf_node_kind(s.extra), SIM_CONF_NODE_MAP);
  ck_assert_str_eq(sim_conf_node_text(sim_conf_node_get(s.extra, "kind")), "anything");

  sim_conf_unbind(scen_schema, &s);
  ck_assert_ptr_null(s.stations.items);
  ck_assert_uint_eq(s.stations.n, 0);
  sim_conf_unbind(scen_schema, &s); /* idempotent */
}
END_TEST

START_TEST(test_absent_map_defaults)
{
  Scen s = { 0 };
  GError *err = NULL;
  ck_assert(load_bind("link: 1 Tb/s\nstations: [{name: a}]\n", NULL, &s, &err));
  ck_assert(s.run.warmup_ns == 100e3);
  ck_assert_int_eq(s.run.duration_ns, 1000000000);
  ck_assert_int_eq(s.buffer_bytes, 2097152);
  ck_assert(!s.trace);
  ck_assert(s.util == 0.8);
  ck_assert_uint_eq(s.links.n, 0);
  ck_assert_ptr_null(s.extra);
  sim_conf_unbind(scen_schema, &s);
}
END_TEST

START_TEST(test_nodes_positions_order)
{
  g_autoptr(SimConfDoc) doc = sim_conf_load_string(good_yaml, "t.yaml", NULL);
  SimConfNode *root = sim_conf_doc_root(doc);
  ck_assert_str_eq(sim_conf_doc_file(doc), "t.yaml");
  ck_assert_int_eq(sim_conf_node_kind(root), SIM_CONF_NODE_MAP);
  ck_assert_uint_eq(sim_conf_node_size(root), 9);
  static const char *const order[] = { "link", "buffer", "trace", "util", "run", "stations", "links", "tags", "extra" };
  for (guint i = 0; i < G_N_ELEMENTS(order); i++) ck_assert_str_eq(sim_conf_map_key(root, i), order[i]);
  ck_assert_ptr_null(sim_conf_map_key(root, 99));

  SimConfNode *st = sim_conf_node_get(root, "stations");
  ck_assert_int_eq(sim_conf_node_kind(st), SIM_CONF_NODE_SEQ);
  ck_assert_uint_eq(sim_conf_node_size(st), 2);
  SimConfNode *svc = sim_conf_node_get(sim_conf_node_child(st, 0), "service");
  ck_assert_str_eq(sim_conf_node_text(svc), "250 ns");
  ck_assert_int_eq(sim_conf_node_line(svc), 10);
  ck_assert_int_eq(sim_conf_node_col(svc), 14);
  ck_assert_str_eq(sim_conf_node_file(svc), "t.yaml");
  g_autofree char *path = sim_conf_node_path(svc);
  ck_assert_str_eq(path, "stations[0].service");
  ck_assert_ptr_eq(sim_conf_node_parent(sim_conf_node_parent(svc)), st);

  SimConfNode *links = sim_conf_node_get(root, "links");
  ck_assert_str_eq(sim_conf_map_key(links, 0), "zeta");
  ck_assert_str_eq(sim_conf_map_key(links, 1), "alpha");
  g_autofree char *lpath = sim_conf_node_path(sim_conf_node_get(sim_conf_node_child(links, 1), "mtu"));
  ck_assert_str_eq(lpath, "links.alpha.mtu");
  g_autofree char *rpath = sim_conf_node_path(root);
  ck_assert_str_eq(rpath, "");

  double v = 0;
  GError *err = NULL;
  ck_assert(sim_conf_node_double(svc, SIM_UNIT_TIME, &v, &err));
  ck_assert(v == 250.0);
  ck_assert(!sim_conf_node_double(svc, SIM_UNIT_BIT_RATE, &v, &err));
  ck_assert_int_eq(err->code, SIM_CONF_ERROR_UNIT);
  ck_assert_str_eq(err->message,
                   "t.yaml:10:14: stations[0].service: '250 ns': 'ns' is a time unit, expected a bit rate such as '100 Gb/s'");
  g_clear_error(&err);

  sim_conf_set_error(&err, svc, SIM_CONF_ERROR_RANGE, "custom %d", 7);
  ck_assert_str_eq(err->message, "t.yaml:10:14: stations[0].service: custom 7");
  g_clear_error(&err);

  /* Quoted scalars are not null; an empty document is an empty map. */
  g_autoptr(SimConfDoc) d2 = sim_conf_load_string("a: ''\nb: ~\nc:\n", "e.yaml", NULL);
  ck_assert(!sim_conf_node_is_null(sim_conf_node_get(sim_conf_doc_root(d2), "a")));
  ck_assert(sim_conf_node_is_null(sim_conf_node_get(sim_conf_doc_root(d2), "b")));
  ck_assert(sim_conf_node_is_null(sim_conf_node_get(sim_conf_doc_root(d2), "c")));
  g_autoptr(SimConfDoc) d3 = sim_conf_load_string("# only a comment\n", "e.yaml", NULL);
  ck_assert_int_eq(sim_conf_node_kind(sim_conf_doc_root(d3)), SIM_CONF_NODE_MAP);
  ck_assert_uint_eq(sim_conf_node_size(sim_conf_doc_root(d3)), 0);

  /* Aliases are expanded by copy. */
  g_autoptr(SimConfDoc) d4 = sim_conf_load_string("a: &x {rate: 1 Gb/s}\nb: *x\n", "e.yaml", NULL);
  ck_assert_str_eq(sim_conf_node_text(sim_conf_node_get(sim_conf_node_get(sim_conf_doc_root(d4), "b"), "rate")), "1 Gb/s");
}
END_TEST

START_TEST(test_repeat_is_deterministic)
{
  /* Same text, same result and same error, every time. */
  g_autofree char *first = NULL;
  for (int i = 0; i < 20; i++) {
    GError *err = NULL;
    Scen s = { 0 };
    ck_assert(!load_bind("link: 1 Tb/s\nstations: [{name: a}]\nb: 1\na: 2\n", NULL, &s, &err));
    if (!first) first = g_strdup(err->message);
    ck_assert_str_eq(err->message, first);
    g_clear_error(&err);
    sim_conf_unbind(scen_schema, &s);
  }
  ck_assert_str_eq(first, "t.yaml:3:1: b: unknown key 'b' (known keys: platform, link, buffer, trace, util, ratio, run, "
                          "stations, links, tags, extra)");
}
END_TEST

/* ---- table of bad inputs ------------------------------------------------------------------- */

typedef struct {
  const char *yaml;
  const char *set; /* one --set assignment or NULL */
  int code;
  int line, col;    /* 0: no position (override values) */
  const char *path; /* key path, "" for none */
  const char *substr;
} BadCase;

#define OK_ST "stations: [{name: a}]\n"

static const BadCase bad_cases[] = {
  /* 0 unknown key + suggestion */
  { "lnk: 100 Gb/s\n" OK_ST, NULL, SIM_CONF_ERROR_UNKNOWN_KEY, 1, 1, "lnk", "unknown key 'lnk' (did you mean 'link'?)" },
  /* 1 unknown key in nested map */
  { "link: 1 Gb/s\nrun:\n  warmpu: 1 ms\n" OK_ST, NULL, SIM_CONF_ERROR_UNKNOWN_KEY, 3, 3, "run.warmpu",
    "did you mean 'warmup'?" },
  /* 2 unknown key in a list element */
  { "link: 1 Gb/s\nstations:\n  - name: a\n  - name: b\n    srvers: 2\n", NULL, SIM_CONF_ERROR_UNKNOWN_KEY, 5, 5,
    "stations[1].srvers", "did you mean 'servers'?" },
  /* 3 unknown key, nothing close */
  { "link: 1 Gb/s\n" OK_ST "zzzzzz: 1\n", NULL, SIM_CONF_ERROR_UNKNOWN_KEY, 3, 1, "zzzzzz", "known keys: platform" },
  /* 4 duplicate key */
  { "link: 1 Gb/s\nbuffer: 1 MiB\nlink: 2 Gb/s\n", NULL, SIM_CONF_ERROR_DUPLICATE, 3, 1, "link",
    "duplicate key 'link' (first at line 1)" },
  /* 5 duplicate key inside a list element */
  { "stations:\n  - name: a\n    name: b\n", NULL, SIM_CONF_ERROR_DUPLICATE, 3, 5, "stations[0].name", "duplicate key" },
  /* 6 map where a quantity is wanted */
  { "link: {a: 1}\n" OK_ST, NULL, SIM_CONF_ERROR_TYPE, 1, 7, "link", "expected a bit rate (e.g. '100 Gb/s'), got a map" },
  /* 7 scalar where a list is wanted */
  { "link: 1 Gb/s\nstations: 3\n", NULL, SIM_CONF_ERROR_TYPE, 2, 11, "stations", "expected a list" },
  /* 8 list element not a map */
  { "link: 1 Gb/s\nstations: [{name: a}, 3]\n", NULL, SIM_CONF_ERROR_TYPE, 2, 23, "stations[1]", "expected a map" },
  /* 9 int that is not an integer */
  { "link: 1 Gb/s\nstations:\n  - {name: a, servers: 2.5}\n", NULL, SIM_CONF_ERROR_TYPE, 3, 24, "stations[0].servers",
    "not an integer" },
  /* 10 bad bool */
  { "link: 1 Gb/s\ntrace: yes\n" OK_ST, NULL, SIM_CONF_ERROR_TYPE, 2, 8, "trace", "expected true or false" },
  /* 11 int out of range */
  { "link: 1 Gb/s\nstations:\n  - name: a\n    servers: 65\n", NULL, SIM_CONF_ERROR_RANGE, 4, 14, "stations[0].servers",
    "'65' is out of range: must be <= 64" },
  /* 12 exclusive minimum */
  { "link: 0 Gb/s\n" OK_ST, NULL, SIM_CONF_ERROR_RANGE, 1, 7, "link", "must be > 0 b/s" },
  /* 13 maximum in units */
  { "link: 2 Tb/s\n" OK_ST, NULL, SIM_CONF_ERROR_RANGE, 1, 7, "link", "must be <= 1.6 Tb/s" },
  /* 14 bytes where bits are wanted */
  { "link: 100 GB/s\n" OK_ST, NULL, SIM_CONF_ERROR_UNIT, 1, 7, "link", "'GB/s' is a byte rate unit, expected a bit rate" },
  /* 15 bare number */
  { "link: 100\n" OK_ST, NULL, SIM_CONF_ERROR_UNIT, 1, 7, "link", "needs a unit, e.g. '100 Gb/s'" },
  /* 16 unknown unit in a map of maps */
  { "link: 1 Gb/s\n" OK_ST "links:\n  eth0: {rate: 10 Gb/s, mtu: 9 kiB}\n", NULL, SIM_CONF_ERROR_UNIT, 4, 30, "links.eth0.mtu",
    "did you mean 'KiB'?" },
  /* 17 missing required at the root */
  { OK_ST, NULL, SIM_CONF_ERROR_MISSING, 1, 1, "", "missing required key 'link' (NIC line rate)" },
  /* 18 missing required in a list element */
  { "link: 1 Gb/s\nstations:\n  - servers: 2\n", NULL, SIM_CONF_ERROR_MISSING, 3, 5, "stations[0]",
    "missing required key 'name'" },
  /* 19 missing required in a map of maps */
  { "link: 1 Gb/s\n" OK_ST "links:\n  eth0: {mtu: 1500 B}\n", NULL, SIM_CONF_ERROR_MISSING, 4, 9, "links.eth0",
    "missing required key 'rate'" },
  /* 20 bad enum + suggestion */
  { "link: 1 Gb/s\nstations:\n  - name: a\n    discipline: fcsf\n", NULL, SIM_CONF_ERROR_ENUM, 4, 17, "stations[0].discipline",
    "unknown value 'fcsf' (did you mean 'fcfs'?); expected one of fcfs, ps, lcfs" },
  /* 21 YAML syntax error with its position */
  { "link: 1 Gb/s\nstations: [\n", NULL, SIM_CONF_ERROR_SYNTAX, 3, 1, "", "YAML syntax error" },
  /* 22 YAML syntax error: bad indentation */
  { "link: 1 Gb/s\n  buffer: 2 MiB\n", NULL, SIM_CONF_ERROR_SYNTAX, 2, 9, "", "mapping values are not allowed" },
  /* 23 element of a scalar list */
  { "link: 1 Gb/s\nstations:\n  - {name: a, weights: [0.5, 0.25, 2]}\n", NULL, SIM_CONF_ERROR_RANGE, 3, 36,
    "stations[0].weights[2]", "must be <= 1" },
  /* 24 too few list elements */
  { "link: 1 Gb/s\nstations: []\n", NULL, SIM_CONF_ERROR_RANGE, 2, 11, "stations", "needs at least 1" },
  /* 25 missing value */
  { "link:\n" OK_ST, NULL, SIM_CONF_ERROR_TYPE, 1, 6, "link", "missing value, expected a bit rate" },
  /* 26 percent above its maximum */
  { "link: 1 Gb/s\nutil: 120 %\n" OK_ST, NULL, SIM_CONF_ERROR_RANGE, 2, 7, "util", "must be <= 100 %" },
  /* 27 whole ns required */
  { "link: 1 Gb/s\nrun: {duration: 0.5 ns}\n" OK_ST, NULL, SIM_CONF_ERROR_TYPE, 2, 17, "run.duration",
    "not a whole number of ns" },
  /* 28 several documents */
  { "link: 1 Gb/s\n---\nlink: 2 Gb/s\n", NULL, SIM_CONF_ERROR_SYNTAX, 2, 1, "", "only one YAML document" },
  /* 29 undefined alias */
  { "link: *nope\n", NULL, SIM_CONF_ERROR_SYNTAX, 1, 7, "", "undefined alias '*nope'" },
  /* 30 trailing garbage in a plain number */
  { "link: 1 Gb/s\nratio: 0.5x\n" OK_ST, NULL, SIM_CONF_ERROR_TYPE, 2, 8, "ratio", "not a number" },
  /* 31 override: index past the end */
  { "link: 1 Gb/s\n" OK_ST, "stations[9].servers=2", SIM_CONF_ERROR_OVERRIDE, 0, 0, "stations[9]", "no such element" },
  /* 32 override: value validated like a file value */
  { "link: 1 Gb/s\n" OK_ST, "link=100 GB/s", SIM_CONF_ERROR_UNIT, 0, 0, "link", "expected a bit rate" },
  /* 33 override: unknown key gets a suggestion */
  { "link: 1 Gb/s\n" OK_ST, "stations.0.srvers=3", SIM_CONF_ERROR_UNKNOWN_KEY, 0, 0, "stations[0].srvers",
    "did you mean 'servers'?" },
  /* 34 override: no '=' */
  { "link: 1 Gb/s\n" OK_ST, "link", SIM_CONF_ERROR_OVERRIDE, 0, 0, "", "'link': expected key.path=value" },
  /* 35 override: descending into a scalar */
  { "link: 1 Gb/s\n" OK_ST, "link.x=3", SIM_CONF_ERROR_OVERRIDE, 0, 0, "link", "is a scalar, it has no key 'x'" },
  /* 36 override: out of range */
  { "link: 1 Gb/s\n" OK_ST, "stations[0].servers=0", SIM_CONF_ERROR_RANGE, 0, 0, "stations[0].servers", "must be >= 1" },
  /* 37 override: malformed path */
  { "link: 1 Gb/s\n" OK_ST, "stations[x].servers=1", SIM_CONF_ERROR_OVERRIDE, 0, 0, "", "malformed key path" },
  /* 38 override: value that is not YAML */
  { "link: 1 Gb/s\n" OK_ST, "tags=[a, b", SIM_CONF_ERROR_OVERRIDE, 0, 0, "tags", "bad value '[a, b'" },
  /* 39 override: indexing a map */
  { "link: 1 Gb/s\n" OK_ST, "run[0]=1", SIM_CONF_ERROR_OVERRIDE, 0, 0, "run", "no such list" },
};

START_TEST(test_bad_inputs)
{
  const BadCase *c = &bad_cases[_i];
  const char *sets[] = { c->set, NULL };
  Scen s = { 0 };
  GError *err = NULL;
  gboolean ok = load_bind(c->yaml, sets, &s, &err);
  sim_conf_unbind(scen_schema, &s);
  ck_assert_msg(!ok, "case %d should fail", _i);
  ck_assert_ptr_nonnull(err);
  ck_assert_msg(err->domain == SIM_CONF_ERROR, "case %d: domain", _i);
  ck_assert_msg(err->code == c->code, "case %d: code %d, want %d: %s", _i, err->code, c->code, err->message);
  g_autofree char *prefix = NULL;
  const char *file = c->set ? "--set" : "t.yaml";
  GString *p = g_string_new(file);
  if (c->line) g_string_append_printf(p, ":%d:%d", c->line, c->col);
  g_string_append(p, ": ");
  if (*c->path) g_string_append_printf(p, "%s: ", c->path);
  prefix = g_string_free(p, FALSE);
  ck_assert_msg(g_str_has_prefix(err->message, prefix), "case %d: '%s' does not start with '%s'", _i, err->message, prefix);
  ck_assert_msg(strstr(err->message, c->substr), "case %d: '%s' lacks '%s'", _i, err->message, c->substr);
  ck_assert_msg(!strchr(err->message, '\n'), "case %d: message has several lines", _i);
  g_error_free(err);
}
END_TEST

/* ---- overrides ----------------------------------------------------------------------------- */

START_TEST(test_overrides)
{
  const char *sets[] = { "stations[1].servers=4",     /* bracket index */
                         "stations.0.service=1.5 us", /* dotted index, value with unit */
                         "run.warmup=2 ms",           /* key absent from the file, map absent too: created */
                         "link=800 Gb/s",             /* replace */
                         "tags=[x, y, z]",            /* flow value */
                         "links.eth9.rate=10 Gb/s",   /* new dict entry */
                         "stations[1].weights=[1]",
                         NULL };
  Scen s = { 0 };
  GError *err = NULL;
  ck_assert_msg(load_bind("link: 1 Gb/s\nstations:\n  - name: a\n  - name: b\n", sets, &s, &err), "%s", err ? err->message : "");
  ck_assert(s.link_bps == 8e11);
  ck_assert_int_eq(SIM_CONF_LIST_AT(s.stations, Station, 1)->servers, 4);
  ck_assert(SIM_CONF_LIST_AT(s.stations, Station, 0)->service_ns == 1500.0);
  ck_assert(s.run.warmup_ns == 2e6);
  ck_assert_int_eq(s.run.duration_ns, 1000000000);
  ck_assert_uint_eq(s.tags.n, 3);
  ck_assert_str_eq(*SIM_CONF_LIST_AT(s.tags, char *, 2), "z");
  ck_assert_uint_eq(s.links.n, 1);
  ck_assert_str_eq(SIM_CONF_LIST_AT(s.links, Link, 0)->name, "eth9");
  ck_assert(*SIM_CONF_LIST_AT(SIM_CONF_LIST_AT(s.stations, Station, 1)->weights, double, 0) == 1.0);
  sim_conf_unbind(scen_schema, &s);

  /* Replaced values keep their place in file order; overridden nodes say where they came from. */
  g_autoptr(SimConfDoc) doc = sim_conf_load_string("a: 1\nb: 2\nc: 3\n", "o.yaml", NULL);
  ck_assert(sim_conf_apply_override(doc, "b = 5", NULL));
  ck_assert(sim_conf_apply_override(doc, "d=", NULL));
  SimConfNode *root = sim_conf_doc_root(doc);
  ck_assert_str_eq(sim_conf_map_key(root, 1), "b");
  ck_assert_str_eq(sim_conf_map_key(root, 3), "d");
  SimConfNode *b = sim_conf_node_get(root, "b");
  ck_assert_str_eq(sim_conf_node_text(b), "5");
  ck_assert_str_eq(sim_conf_node_file(b), "--set");
  ck_assert_int_eq(sim_conf_node_line(b), 0);
  ck_assert(sim_conf_node_is_null(sim_conf_node_get(root, "d")));
  ck_assert_int_eq(sim_conf_node_line(sim_conf_node_get(root, "a")), 1);

  /* An empty intermediate map in the file is filled in; a replaced unknown key is reported
   * against --set, never with a line of the file. */
  Scen s2 = { 0 };
  const char *sets2[] = { "run.duration=5 s", NULL };
  ck_assert(load_bind("link: 1 Gb/s\nrun:\n" OK_ST, sets2, &s2, &err));
  ck_assert_int_eq(s2.run.duration_ns, INT64_C(5000000000));
  sim_conf_unbind(scen_schema, &s2);
  const char *sets3[] = { "bogus=1", NULL };
  ck_assert(!load_bind("link: 1 Gb/s\nbogus: 2\n" OK_ST, sets3, &s2, &err));
  ck_assert_str_eq(err->message, "--set: bogus: unknown key 'bogus' (known keys: platform, link, buffer, trace, util, "
                                 "ratio, run, stations, links, tags, extra)");
  g_clear_error(&err);
  sim_conf_unbind(scen_schema, &s2);
}
END_TEST

/* The listing of the overrides (sim_conf_overrides) is in the order they were applied, whatever
 * the file holds (issue 33): a key the file has is replaced in the file's place in the tree, one
 * it lacks goes last, so the tree's order moved with the file (rate_precision set in the file put
 * --rate-precision's override first, absent from it last). A key set twice is listed where it was
 * first set, and the listing applies again to the same tree. */
START_TEST(test_overrides_listed_in_applied_order)
{
  const char *files[] = { "name: x\nrate_precision: 0\nworkload: {slo: 1 ms}\n", "name: x\nworkload: {slo: 1 ms}\n" };
  for (size_t f = 0; f < G_N_ELEMENTS(files); f++) {
    g_autoptr(SimConfDoc) doc = sim_conf_load_string(files[f], "o.yaml", NULL);
    ck_assert(sim_conf_apply_override_as(doc, "rate_precision=0.1", "--rate-precision", NULL));
    ck_assert(sim_conf_apply_override(doc, "workload.slo=5 ms", NULL));
    ck_assert(sim_conf_apply_override(doc, "zz=1", NULL));
    ck_assert(sim_conf_apply_override(doc, "new.b=2", NULL)); /* a map made by the path */
    ck_assert(sim_conf_apply_override(doc, "aa=3", NULL));
    ck_assert(sim_conf_apply_override(doc, "zz=4", NULL)); /* set again: listed where first set */
    ck_assert(sim_conf_apply_override(doc, "new.a=5", NULL));
    g_auto(GStrv) list = sim_conf_overrides(sim_conf_doc_root(doc));
    g_autofree char *joined = g_strjoinv("; ", list);
    ck_assert_str_eq(joined, "rate_precision=0.1; workload.slo=5 ms; zz=4; new.b=2; aa=3; new.a=5");
    /* applied again to the file in that order: the same tree, the same listing */
    g_autoptr(SimConfDoc) again = sim_conf_load_string(files[f], "o.yaml", NULL);
    ck_assert(sim_conf_apply_overrides(again, (const char *const *)list, NULL));
    g_autofree char *t0 = sim_conf_node_flow_text(sim_conf_doc_root(doc));
    g_autofree char *t1 = sim_conf_node_flow_text(sim_conf_doc_root(again));
    ck_assert_str_eq(t0, t1);
    g_auto(GStrv) list2 = sim_conf_overrides(sim_conf_doc_root(again));
    g_autofree char *joined2 = g_strjoinv("; ", list2);
    ck_assert_str_eq(joined2, joined);
  }
  /* a copy (sweep points start from one) keeps the order and goes on counting */
  g_autoptr(SimConfDoc) doc = sim_conf_load_string("b: 1\na: 2\n", "o.yaml", NULL);
  ck_assert(sim_conf_apply_override(doc, "a=3", NULL));
  g_autoptr(SimConfDoc) copy = sim_conf_doc_copy(doc);
  ck_assert(sim_conf_apply_override(copy, "b=4", NULL));
  g_auto(GStrv) list = sim_conf_overrides(sim_conf_doc_root(copy));
  g_autofree char *joined = g_strjoinv("; ", list);
  ck_assert_str_eq(joined, "a=3; b=4");
}
END_TEST

/* ---- includes ------------------------------------------------------------------------------ */

START_TEST(test_include_overlay)
{
  GError *err = NULL;
  g_autoptr(SimConfDoc) doc = sim_conf_load_with_include("tests/data/conf/scenario_inc.yaml", "platform", &err);
  ck_assert_msg(doc != NULL, "%s", err ? err->message : "");
  Scen s = { 0 };
  ck_assert_msg(sim_conf_bind(sim_conf_doc_root(doc), scen_schema, &s, &err), "%s", err ? err->message : "");
  ck_assert_str_eq(s.platform, "platforms/base.yaml");
  ck_assert(s.link_bps == 4e11);                   /* scenario overrides platform */
  ck_assert_int_eq(s.buffer_bytes, 4 * 1048576);   /* from the platform */
  ck_assert(s.run.warmup_ns == 1e6);               /* nested merge keeps the platform's key */
  ck_assert_int_eq(s.run.duration_ns, 2000000000); /* and takes the scenario's */
  ck_assert_str_eq(*SIM_CONF_LIST_AT(s.tags, char *, 0), "platform");
  sim_conf_unbind(scen_schema, &s);

  SimConfNode *root = sim_conf_doc_root(doc);
  SimConfNode *buf = sim_conf_node_get(root, "buffer");
  ck_assert_str_eq(sim_conf_node_file(buf), "tests/data/conf/platforms/base.yaml");
  ck_assert_int_eq(sim_conf_node_line(buf), 3);
  SimConfNode *link = sim_conf_node_get(root, "link");
  ck_assert_str_eq(sim_conf_node_file(link), "tests/data/conf/scenario_inc.yaml");
  ck_assert_int_eq(sim_conf_node_line(link), 3);
  SimConfNode *dur = sim_conf_node_get(sim_conf_node_get(root, "run"), "duration");
  ck_assert_str_eq(sim_conf_node_file(dur), "tests/data/conf/scenario_inc.yaml");
  ck_assert_int_eq(sim_conf_node_line(dur), 5);
  g_autofree char *inc = sim_conf_node_resolve_path(sim_conf_node_get(root, "platform"), NULL);
  ck_assert_str_eq(inc, "tests/data/conf/platforms/base.yaml");

  /* The manual route: load both, overlay the scenario on the platform. */
  g_autoptr(SimConfDoc) plat = sim_conf_load_file("tests/data/conf/platforms/base.yaml", NULL);
  g_autoptr(SimConfDoc) scen = sim_conf_load_string("link: 1 Gb/s\nrun: {warmup: 5 us}\n", "m.yaml", NULL);
  ck_assert(sim_conf_overlay(plat, sim_conf_doc_root(plat), sim_conf_doc_root(scen), NULL));
  SimConfNode *pr = sim_conf_node_get(sim_conf_doc_root(plat), "run");
  ck_assert_str_eq(sim_conf_node_text(sim_conf_node_get(pr, "warmup")), "5 us");
  ck_assert_str_eq(sim_conf_node_text(sim_conf_node_get(pr, "duration")), "10 ms");
  ck_assert_str_eq(sim_conf_map_key(pr, 0), "warmup");
  ck_assert(!sim_conf_overlay(plat, sim_conf_node_get(sim_conf_doc_root(plat), "link"), sim_conf_doc_root(scen), &err));
  ck_assert_int_eq(err->code, SIM_CONF_ERROR_TYPE);
  g_clear_error(&err);
}
END_TEST

START_TEST(test_include_errors)
{
  GError *err = NULL;
  /* An error in a platform value points into the platform file. */
  g_autoptr(SimConfDoc) doc = sim_conf_load_with_include("tests/data/conf/scenario_badplat.yaml", "platform", &err);
  ck_assert_ptr_nonnull(doc);
  Scen s = { 0 };
  ck_assert(!sim_conf_bind(sim_conf_doc_root(doc), scen_schema, &s, &err));
  sim_conf_unbind(scen_schema, &s);
  /* (its value is not echoed: an included file's values never are) */
  ck_assert_msg(g_str_has_prefix(err->message, "tests/data/conf/platforms/bad.yaml:3:7: link: the value has a unit of another "
                                               "kind, expected a bit rate"),
                "%s", err->message);
  ck_assert_msg(!strstr(err->message, "100 GB/s"), "%s", err->message);
  /* ... and names the scenario line that included the platform, on the same line */
  ck_assert_msg(g_str_has_suffix(err->message, " (included from tests/data/conf/scenario_badplat.yaml:1:11)"), "%s",
                err->message);
  ck_assert_ptr_null(strchr(err->message, '\n'));
  g_clear_error(&err);

  /* A syntax error (invalid UTF-8) in a platform: its position there, and the including line. */
  ck_assert_ptr_null(sim_conf_load_with_include("tests/data/conf/scenario_badutf8_plat.yaml", "platform", &err));
  ck_assert_int_eq(err->code, SIM_CONF_ERROR_SYNTAX);
  ck_assert_str_eq(err->message, "tests/data/conf/platforms/bad_utf8.yaml:3:17: YAML syntax error: invalid leading "
                                 "UTF-8 octet (included from tests/data/conf/scenario_badutf8_plat.yaml:2:11)");
  g_clear_error(&err);

  /* A platform that includes a missing file: reported at its line, then where it was included. */
  ck_assert_ptr_null(sim_conf_load_with_include("tests/data/conf/scenario_nested_missing.yaml", "platform", &err));
  ck_assert_int_eq(err->code, SIM_CONF_ERROR_IO);
  ck_assert_str_eq(err->message, "tests/data/conf/platforms/nested_missing.yaml:2:11: platform: "
                                 "tests/data/conf/platforms/nope.yaml: cannot open: No such file or directory "
                                 "(included from tests/data/conf/scenario_nested_missing.yaml:1:11)");
  g_clear_error(&err);

  ck_assert_ptr_null(sim_conf_load_with_include("tests/data/conf/cycle_a.yaml", "platform", &err));
  ck_assert_int_eq(err->code, SIM_CONF_ERROR_INCLUDE);
  ck_assert_msg(g_str_has_prefix(err->message, "tests/data/conf/cycle_b.yaml:1:11: platform: include cycle"), "%s", err->message);
  ck_assert_msg(g_str_has_suffix(err->message, " (included from tests/data/conf/cycle_a.yaml:1:11)"), "%s", err->message);
  g_clear_error(&err);

  ck_assert_ptr_null(sim_conf_load_with_include("tests/data/conf/scenario_missing_plat.yaml", "platform", &err));
  ck_assert_int_eq(err->code, SIM_CONF_ERROR_IO);
  ck_assert_str_eq(err->message, "tests/data/conf/scenario_missing_plat.yaml:3:11: platform: "
                                 "tests/data/conf/platforms/nope.yaml: cannot open: No such file or directory");
  g_clear_error(&err);

  ck_assert_ptr_null(sim_conf_load_file("tests/data/conf/bad_syntax.yaml", &err));
  ck_assert_int_eq(err->code, SIM_CONF_ERROR_SYNTAX);
  ck_assert_msg(g_str_has_prefix(err->message, "tests/data/conf/bad_syntax.yaml:5:1: YAML syntax error"), "%s", err->message);
  g_clear_error(&err);

  ck_assert_ptr_null(sim_conf_load_file("tests/data/conf/does_not_exist.yaml", &err));
  ck_assert_int_eq(err->code, SIM_CONF_ERROR_IO);
  /* plain text, no GLib curly quotes */
  ck_assert_str_eq(err->message, "tests/data/conf/does_not_exist.yaml: cannot open: No such file or directory");
  g_clear_error(&err);

  /* Invalid UTF-8 and control characters are reported at FILE:LINE:COL (libyaml gives a byte offset). */
  ck_assert_ptr_null(sim_conf_load_string("a: 1\r\nb: caf\xc3\xa9 \xff\n", "u.yaml", &err));
  ck_assert_str_eq(err->message, "u.yaml:2:9: YAML syntax error: invalid leading UTF-8 octet");
  g_clear_error(&err);
  ck_assert_ptr_null(sim_conf_load_string("a: 1\nb: \x01\n", "c.yaml", &err));
  ck_assert_str_eq(err->message, "c.yaml:2:4: YAML syntax error: control characters are not allowed");
  g_clear_error(&err);
}
END_TEST

/* ---- custom handling: kind dispatch -------------------------------------------------------- */

typedef struct {
  int kind;
  double rate;
  int64_t size;
} Poly;

static const char *const poly_kinds[] = { "link", "disk", NULL };
static const SimConfField poly_link[] = {
  { .key = "kind", .type = SIM_CONF_T_IGNORE },
  { .key = "rate", .type = SIM_CONF_T_DOUBLE, .unit = SIM_UNIT_BIT_RATE, .offset = offsetof(Poly, rate), .required = true },
  SIM_CONF_END
};
static const SimConfField poly_disk[] = {
  { .key = "kind", .type = SIM_CONF_T_IGNORE },
  { .key = "size", .type = SIM_CONF_T_INT64, .unit = SIM_UNIT_SIZE, .offset = offsetof(Poly, size), .required = true },
  SIM_CONF_END
};

static gboolean bind_poly(const SimConfNode *n, Poly *p, GError **err)
{
  SimConfNode *k = sim_conf_node_get(n, "kind");
  if (!k) {
    sim_conf_set_error(err, n, SIM_CONF_ERROR_MISSING, "missing required key 'kind'");
    return FALSE;
  }
  if (!sim_conf_node_enum(k, poly_kinds, &p->kind, err)) return FALSE;
  return sim_conf_bind(n, p->kind == 0 ? poly_link : poly_disk, p, err);
}

START_TEST(test_kind_dispatch)
{
  g_autoptr(SimConfDoc) doc =
      sim_conf_load_string("- {kind: link, rate: 10 Gb/s}\n- {kind: disk, size: 2 TB}\n- {kind: dsk, size: 1 TB}\n"
                           "- {kind: disk, rate: 1 Gb/s}\n",
                           "p.yaml", NULL);
  SimConfNode *root = sim_conf_doc_root(doc);
  Poly p = { 0 };
  GError *err = NULL;
  ck_assert(bind_poly(sim_conf_node_child(root, 0), &p, &err));
  ck_assert(p.rate == 1e10);
  ck_assert(bind_poly(sim_conf_node_child(root, 1), &p, &err));
  ck_assert_int_eq(p.size, INT64_C(2000000000000));
  ck_assert(!bind_poly(sim_conf_node_child(root, 2), &p, &err));
  ck_assert_str_eq(err->message, "p.yaml:3:10: [2].kind: unknown value 'dsk' (did you mean 'disk'?); expected one of link, disk");
  g_clear_error(&err);
  ck_assert(!bind_poly(sim_conf_node_child(root, 3), &p, &err));
  ck_assert_str_eq(err->message, "p.yaml:4:16: [3].rate: unknown key 'rate' (known keys: kind, size)");
  g_clear_error(&err);

  static const char *const allowed[] = { "kind", "rate", NULL };
  ck_assert(sim_conf_check_keys(sim_conf_node_child(root, 0), allowed, &err));
  ck_assert(!sim_conf_check_keys(sim_conf_node_child(root, 1), allowed, &err));
  ck_assert_int_eq(err->code, SIM_CONF_ERROR_UNKNOWN_KEY);
  g_clear_error(&err);
  ck_assert(!sim_conf_bind(root, poly_link, &p, &err)); /* a list is not a map */
  ck_assert_str_eq(err->message, "p.yaml:1:1: expected a map, got a list");
  g_clear_error(&err);
}
END_TEST

START_TEST(test_suggest)
{
  static const char *const words[] = { "servers", "service", "stations", "link", "duration", NULL };
  ck_assert_str_eq(sim_conf_suggest("srvers", words), "servers");
  ck_assert_str_eq(sim_conf_suggest("servcie", words), "service"); /* transposition */
  ck_assert_str_eq(sim_conf_suggest("LINK", words), "link");       /* case */
  ck_assert_str_eq(sim_conf_suggest("lnk", words), "link");
  ck_assert_ptr_null(sim_conf_suggest("xyz", words));
  ck_assert_ptr_null(sim_conf_suggest("durationsxx", NULL));
  ck_assert_ptr_null(sim_conf_suggest("completely-different", words));
}
END_TEST

START_TEST(test_markdown)
{
  GString *md = g_string_new(NULL);
  sim_conf_schema_markdown(scen_schema, NULL, md);
  ck_assert_msg(g_str_has_prefix(md->str, "| Key | Type | Unit | Default | Range | Description |\n|---|"), "%s", md->str);
  ck_assert_msg(strstr(md->str, "| `link` | bit rate | bit/s | **required** | > 0 .. 1.6 Tb/s | NIC line rate |\n"), "%s",
                md->str);
  ck_assert_msg(strstr(md->str, "| `stations[].servers` | integer |  | 1 | 1 .. 64 | number of servers |\n"), "%s", md->str);
  ck_assert_msg(strstr(md->str, "| `stations[].discipline` | fcfs \\| ps \\| lcfs |  | fcfs |  | queueing discipline |"), "%s",
                md->str);
  ck_assert_msg(strstr(md->str, "| `links.<name>.mtu` | size | bytes | 1500 B | 576 B .. 9 KiB |"), "%s", md->str);
  ck_assert_msg(strstr(md->str, "| `run.duration` | time | ns | 1 s | >= 1 ns | simulated time |"), "%s", md->str);
  ck_assert_msg(strstr(md->str, "| `stations` | list |  | **required** | >= 1 entries | queueing stations |"), "%s", md->str);
  g_string_free(md, TRUE);
}
END_TEST

START_TEST(test_bad_schema_default)
{
  static const SimConfField bad[] = {
    { .key = "x", .type = SIM_CONF_T_DOUBLE, .unit = SIM_UNIT_BIT_RATE, .offset = 0, .def = "10 GB/s" }, SIM_CONF_END
  };
  double x = 0;
  GError *err = NULL;
  g_autoptr(SimConfDoc) doc = sim_conf_load_string("{}", "s.yaml", NULL);
  ck_assert(!sim_conf_bind(sim_conf_doc_root(doc), bad, &x, &err));
  ck_assert_int_eq(err->code, SIM_CONF_ERROR_SCHEMA);
  ck_assert_ptr_nonnull(strstr(err->message, "field 'x': bad default '10 GB/s'"));
  g_clear_error(&err);
}
END_TEST

/* ---- threads ------------------------------------------------------------------------------- */

static gpointer thread_main(gpointer data)
{
  for (int i = 0; i < 50; i++) {
    g_autoptr(SimConfDoc) doc = sim_conf_load_string(good_yaml, "t.yaml", NULL);
    const char *sets[] = { "stations[0].servers=7", NULL };
    if (!doc || !sim_conf_apply_overrides(doc, sets, NULL)) return GINT_TO_POINTER(1);
    Scen s = { 0 };
    gboolean ok = sim_conf_bind(sim_conf_doc_root(doc), scen_schema, &s, NULL);
    ok = ok && s.link_bps == 4e11 && SIM_CONF_LIST_AT(s.stations, Station, 0)->servers == 7;
    sim_conf_unbind(scen_schema, &s);
    if (!ok) return GINT_TO_POINTER(1);
  }
  (void)data;
  return NULL;
}

START_TEST(test_threads)
{
  GThread *t[8];
  for (int i = 0; i < 8; i++) t[i] = g_thread_new("conf", thread_main, NULL);
  for (int i = 0; i < 8; i++) ck_assert_ptr_null(g_thread_join(t[i]));
}
END_TEST

/* A map of 50 000 keys: a duplicate of a key far back is found and located at both places
 * (the check goes through a hash table of the map's keys, not a scan per key). */
START_TEST(test_duplicate_in_large_map)
{
  GString *y = g_string_new(NULL);
  for (int i = 0; i < 50000; i++) g_string_append_printf(y, "k%d: %d\n", i, i);
  g_string_append(y, "k123: again\n");
  g_autoptr(GError) err = NULL;
  g_autoptr(SimConfDoc) doc = sim_conf_load_string(y->str, "big.yaml", &err);
  g_string_free(y, TRUE);
  ck_assert_ptr_null(doc);
  ck_assert(g_error_matches(err, SIM_CONF_ERROR, SIM_CONF_ERROR_DUPLICATE));
  ck_assert_msg(strstr(err->message, "big.yaml:50001:1: k123: duplicate key 'k123' (first at line 124)"), "%s", err->message);
}
END_TEST

/* A whole quantity stored as a double reads like an INT64 (fractions of its base unit are an
 * error); sim_conf_bind_defaults fills the defaults without a map and without required keys. */
typedef struct {
  double size, count, other;
} WholeConf;

START_TEST(test_whole_and_defaults)
{
  static const SimConfField schema[] = {
    { .key = "size",
      .type = SIM_CONF_T_DOUBLE,
      .whole = true,
      .unit = SIM_UNIT_SIZE,
      .offset = offsetof(WholeConf, size),
      .def = "4 KiB" },
    { .key = "count", .type = SIM_CONF_T_DOUBLE, .whole = true, .offset = offsetof(WholeConf, count), .required = true },
    { .key = "other", .type = SIM_CONF_T_DOUBLE, .offset = offsetof(WholeConf, other), .def = "0.5" },
    SIM_CONF_END
  };
  GError *e = NULL;
  WholeConf w = { 0 };
  ck_assert(sim_conf_bind_defaults(schema, &w, &e));
  ck_assert_double_eq(w.size, 4096.0);
  ck_assert_double_eq(w.count, 0.0);
  ck_assert_double_eq(w.other, 0.5);
  g_autoptr(SimConfDoc) d = sim_conf_load_string("size: 2 MiB\ncount: 7\n", "<t>", &e);
  ck_assert(d && sim_conf_bind(sim_conf_doc_root(d), schema, &w, &e));
  ck_assert_double_eq(w.size, 2097152.0);
  ck_assert_double_eq(w.count, 7.0);
  g_autoptr(SimConfDoc) bad = sim_conf_load_string("size: 1.5 B\ncount: 1\n", "<t>", &e);
  ck_assert(bad && !sim_conf_bind(sim_conf_doc_root(bad), schema, &w, &e));
  ck_assert_msg(strstr(e->message, "<t>:1:7: size:"), "%s", e->message);
  g_clear_error(&e);
  g_autoptr(SimConfDoc) frac = sim_conf_load_string("count: 2.5\n", "<t>", &e);
  ck_assert(frac && !sim_conf_bind(sim_conf_doc_root(frac), schema, &w, &e));
  ck_assert_int_eq(e->code, SIM_CONF_ERROR_TYPE);
  g_clear_error(&e);
  g_autoptr(GString) md = g_string_new(NULL);
  sim_conf_schema_markdown(schema, NULL, md);
  ck_assert_msg(strstr(md->str, "| `count` | integer |"), "%s", md->str);
  ck_assert_msg(strstr(md->str, "| `size` | size | bytes | 4 KiB |"), "%s", md->str);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("conf");
  TCase *tc = tcase_create("conf");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_bind_good);
  tcase_add_test(tc, test_absent_map_defaults);
  tcase_add_test(tc, test_nodes_positions_order);
  tcase_add_test(tc, test_repeat_is_deterministic);
  tcase_add_loop_test(tc, test_bad_inputs, 0, G_N_ELEMENTS(bad_cases));
  tcase_add_test(tc, test_overrides);
  tcase_add_test(tc, test_overrides_listed_in_applied_order);
  tcase_add_test(tc, test_include_overlay);
  tcase_add_test(tc, test_include_errors);
  tcase_add_test(tc, test_kind_dispatch);
  tcase_add_test(tc, test_suggest);
  tcase_add_test(tc, test_markdown);
  tcase_add_test(tc, test_bad_schema_default);
  tcase_add_test(tc, test_threads);
  tcase_add_test(tc, test_duplicate_in_large_map);
  tcase_add_test(tc, test_whole_and_defaults);
  suite_add_tcase(s, tc);
  return test_run_suite(s);
}
