/* tests/test_schema.c — the JSON Schemas of scenario files (sim/conf_schema.h, `ocasim schema
 * KIND --format json`), as an editor uses them:
 *  - the committed scenarios/schema/KIND.json are what the build generates (make scenario-docs);
 *  - every scenario, platform and sweep file (sweeps/) starts with its yaml-language-server
 *    modeline, and validates against the schema it names (python3-jsonschema, tests/schema_check.py);
 *  - bad files of many kinds (type, range, exclusive range, enum, unknown key, unit pattern,
 *    unit of the wrong kind, missing required key, empty list, kind) are rejected by the loader
 *    (ocasim check, exit 2, at the key it names) and by the schema at the same key;
 *  - --keys lists the --set paths (not for sweep, whose --set addresses its scenario).
 * Without python3 and its jsonschema and yaml modules the validation is skipped with a
 * message, unless OCASIM_REQUIRE_JSONSCHEMA is set (CI sets it). */
#include <check.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "tests/support/check_run.h"
#include "tests/support/ocasim_run.h"

static const char *const KINDS[] = { "appliance", "platform", "queueing_network", "sweep" };

/* A bad file, the schema it is checked with, and the key path where both reject it. */
typedef struct {
  const char *file;
  const char *schema; /* under scenarios/schema/ */
  const char *loader; /* in ocasim check's message: "KEY: ..." or another part of it */
  const char *path;   /* dotted JSON path of the schema's error ("" the top) */
} BadFile;

static const BadFile BAD[] = {
  /* queueing networks (tests/data/bad, also held by tests/test_cli_errors.c) */
  { "tests/data/bad/bad-discipline.yaml", "queueing_network", "stations[0].discipline: unknown value", "stations.0.discipline" },
  { "tests/data/bad/bad-enum-dist.yaml", "queueing_network", "sources[0].interarrival.dist: unknown value",
    "sources.0.interarrival.dist" },
  { "tests/data/bad/bad-kind.yaml", "queueing_network", "kind: unknown value", "kind" },
  { "tests/data/bad/bad-unit.yaml", "queueing_network", "duration: '10 parsecs': unknown unit", "duration" },
  { "tests/data/bad/bare-number-time.yaml", "queueing_network", "duration: '10' needs a unit", "duration" },
  { "tests/data/bad/wrong-kind-unit.yaml", "queueing_network", "'GB/s' is a byte rate unit", "duration" },
  { "tests/data/bad/empty-stations.yaml", "queueing_network", "stations: has 0 elements", "stations" },
  { "tests/data/bad/missing-service.yaml", "queueing_network", "missing required key 'service'", "stations.0" },
  { "tests/data/bad/no-kind.yaml", "queueing_network", "missing 'kind'", "" },
  { "tests/data/bad/pareto-alpha-one.yaml", "queueing_network", "alpha: '1' is out of range: must be > 1",
    "stations.0.service.alpha" },
  { "tests/data/bad/route-prob-range.yaml", "queueing_network", "p: '1.5' is out of range: must be <= 1", "sources.0.route.0.p" },
  { "tests/data/bad/servers-not-int.yaml", "queueing_network", "servers: 'two' is not a number", "stations.0.servers" },
  { "tests/data/bad/servers-zero.yaml", "queueing_network", "servers: '0' is out of range", "stations.0.servers" },
  { "tests/data/bad/sources-not-list.yaml", "queueing_network", "sources: expected a list", "sources" },
  { "tests/data/bad/unknown-station-key.yaml", "queueing_network", "unknown key 'servres'", "stations.0" },
  { "tests/data/bad/unknown-top-key.yaml", "queueing_network", "unknown key 'duraton'", "" },
  /* appliance scenarios that include a platform (tests/data/schema-bad) */
  { "tests/data/schema-bad/uarch-enum.yaml", "appliance", "cpu.uarch: unknown value 'pentium'", "cpu.uarch" },
  { "tests/data/schema-bad/clock-unit.yaml", "appliance", "cpu.clock: '2.5 GB/s': 'GB/s' is a byte rate unit", "cpu.clock" },
  { "tests/data/schema-bad/tso-bool.yaml", "appliance", "stack.tso: expected true or false", "stack.tso" },
  { "tests/data/schema-bad/workload-unknown-key.yaml", "appliance", "unknown key 'offerd'", "workload" },
  { "tests/data/schema-bad/seed-negative.yaml", "appliance", "seed: '-1' is out of range", "seed" },
  { "tests/data/schema-bad/no-platform.yaml", "appliance", "missing required key 'cpu'", "" },
};

/* Bad files the loader rejects for a reason no schema of one file can state: named in the
 * report so that the set is complete (every file of tests/data/bad is in one of the lists). */
static const char *const LOADER_ONLY[] = {
  "duplicate-key.yaml",         /* YAML loaders keep the last value */
  "duplicate-station.yaml",     /* uniqueness of a member across list elements */
  "erlang-without-k.yaml",      /* a key required by the value of another */
  "shape-for-wrong-dist.yaml",  /* a key forbidden by the value of another */
  "invalid-utf8.yaml",          /* not YAML */
  "yaml-syntax.yaml",           /* not YAML */
  "negative-mean.yaml",         /* range of a value with a unit */
  "route-sum-over-one.yaml",    /* a sum across list elements */
  "source-sum-under-one.yaml",  /* a sum across list elements */
  "route-unknown-station.yaml", /* a reference to another element's name */
  "warmup-too-long.yaml",       /* two keys compared */
};

START_TEST(test_committed_schemas_are_current)
{
  for (size_t i = 0; i < G_N_ELEMENTS(KINDS); i++) {
    const char *args[] = { "schema", KINDS[i], "--format", "json", NULL };
    g_autofree char *out = NULL, *err = NULL, *have = NULL;
    ck_assert_int_eq(test_run_ocasim(args, &out, &err), 0);
    g_autofree char *path = g_strdup_printf("scenarios/schema/%s.json", KINDS[i]);
    ck_assert_msg(g_file_get_contents(path, &have, NULL, NULL), "%s is missing: run make scenario-docs", path);
    ck_assert_msg(strcmp(have, out) == 0, "%s is stale: run make scenario-docs", path);
    ck_assert(strstr(out, "\"$schema\" : \"https://json-schema.org/draft/2020-12/schema\""));
    ck_assert(strstr(out, "\"additionalProperties\" : false"));
  }
  /* the sweep schema names its kind; a sweep file has no --set keys */
  const char *sweep[] = { "schema", "sweep", "--format", "json", NULL };
  const char *sweep_keys[] = { "schema", "sweep", "--keys", NULL };
  g_autofree char *so = NULL, *se = NULL, *ko = NULL, *ke = NULL;
  ck_assert_int_eq(test_run_ocasim(sweep, &so, &se), 0);
  ck_assert_msg(strstr(so, "\"title\" : \"ocasim sweep file\"") && strstr(so, "\"const\" : \"sweep\""), "%s", so);
  ck_assert_int_eq(test_run_ocasim(sweep_keys, &ko, &ke), 2);
  ck_assert_msg(strstr(ke, "a sweep file has no --set keys"), "%s", ke);
}
END_TEST

/* Every scenario, platform and sweep file names its schema on its first line, relative to itself. */
START_TEST(test_modelines)
{
  static const struct {
    const char *dir, *prefix;
  } dirs[] = {
    { "scenarios", "" }, { "scenarios/reference", "../" }, { "scenarios/platforms", "../" }, { "sweeps", "../scenarios/" }
  };
  int n = 0;
  for (size_t d = 0; d < G_N_ELEMENTS(dirs); d++) {
    g_autoptr(GDir) dir = g_dir_open(dirs[d].dir, 0, NULL);
    ck_assert_ptr_nonnull(dir);
    const char *name;
    while ((name = g_dir_read_name(dir))) {
      if (!g_str_has_suffix(name, ".yaml")) continue;
      g_autofree char *path = g_build_filename(dirs[d].dir, name, NULL), *text = NULL;
      ck_assert(g_file_get_contents(path, &text, NULL, NULL));
      const char *kind = !strcmp(dirs[d].dir, "sweeps")             ? "sweep"
                         : strstr(dirs[d].dir, "platforms")         ? "platform"
                         : strstr(text, "\nkind: queueing_network") ? "queueing_network"
                                                                    : "appliance";
      g_autofree char *want = g_strdup_printf("# yaml-language-server: $schema=%sschema/%s.json\n", dirs[d].prefix, kind);
      ck_assert_msg(g_str_has_prefix(text, want), "%s: the first line is not '%s'", path, want);
      n++;
    }
  }
  ck_assert_int_ge(n, 46); /* 40 scenario and platform files, 6 sweep files */
}
END_TEST

/* Runs tests/schema_check.py with @args; returns its exit status and its output in *@out. */
static int schema_check(GPtrArray *args, char **out)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  g_ptr_array_add(argv, "python3");
  g_ptr_array_add(argv, "tests/schema_check.py");
  for (guint i = 0; i < args->len; i++) g_ptr_array_add(argv, args->pdata[i]);
  g_ptr_array_add(argv, NULL);
  g_autofree char *err = NULL;
  int status = -1;
  GError *error = NULL;
  if (!g_spawn_sync(NULL, (char **)argv->pdata, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, out, &err, &status, &error)) {
    *out = g_strdup(error->message);
    g_error_free(error);
    return 77;
  }
  if (err && *err) {
    g_autofree char *both = g_strconcat(*out, err, NULL);
    g_free(*out);
    *out = g_steal_pointer(&both);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* TRUE when the Python side can run; otherwise says why (a failure under CI). */
static gboolean have_jsonschema(void)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new();
  g_ptr_array_add(args, "--good");
  g_autofree char *out = NULL;
  int st = schema_check(args, &out);
  if (st == 0) return TRUE;
  ck_assert_msg(!g_getenv("OCASIM_REQUIRE_JSONSCHEMA"), "python3 with jsonschema and yaml is required: %s", out);
  fprintf(stderr, "test_schema: schema validation skipped: python3 with jsonschema and yaml not found (%s)\n", out);
  return FALSE;
}

START_TEST(test_repo_files_validate)
{
  if (!have_jsonschema()) return;
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func(g_free);
  g_ptr_array_add(args, g_strdup("--good"));
  static const char *const dirs[] = { "scenarios", "scenarios/reference", "scenarios/platforms", "sweeps" };
  for (size_t d = 0; d < G_N_ELEMENTS(dirs); d++) {
    g_autoptr(GDir) dir = g_dir_open(dirs[d], 0, NULL);
    const char *name;
    while ((name = g_dir_read_name(dir)))
      if (g_str_has_suffix(name, ".yaml")) g_ptr_array_add(args, g_build_filename(dirs[d], name, NULL));
  }
  ck_assert_uint_ge(args->len, 41);
  g_autofree char *out = NULL;
  ck_assert_msg(schema_check(args, &out) == 0, "%s", out);
}
END_TEST

/* Each bad file: the loader says why at its key, exit 2; the schema rejects it at that key. */
START_TEST(test_bad_files_rejected_by_both)
{
  const BadFile *b = &BAD[_i];
  const char *args[] = { "check", b->file, NULL };
  g_autofree char *o = NULL, *e = NULL;
  ck_assert_int_eq(test_run_ocasim(args, &o, &e), 2);
  ck_assert_msg(strstr(e, b->loader), "%s: loader said: %s", b->file, e);
  if (!have_jsonschema()) return;
  g_autoptr(GPtrArray) pargs = g_ptr_array_new_with_free_func(g_free);
  g_ptr_array_add(pargs, g_strdup("--bad"));
  g_ptr_array_add(pargs, g_strdup_printf("scenarios/schema/%s.json", b->schema));
  g_ptr_array_add(pargs, g_strdup_printf("%s@%s", b->file, b->path));
  g_autofree char *out = NULL;
  ck_assert_msg(schema_check(pargs, &out) == 0, "%s", out);
}
END_TEST

/* The list of bad files is complete, and wide enough: at least 10 kinds of reason. */
START_TEST(test_bad_files_accounted_for)
{
  g_autoptr(GDir) dir = g_dir_open("tests/data/bad", 0, NULL);
  const char *name;
  while ((name = g_dir_read_name(dir))) {
    g_autofree char *path = g_build_filename("tests/data/bad", name, NULL);
    gboolean found = FALSE;
    for (size_t i = 0; i < G_N_ELEMENTS(BAD) && !found; i++) found = !strcmp(BAD[i].file, path);
    for (size_t i = 0; i < G_N_ELEMENTS(LOADER_ONLY) && !found; i++) found = !strcmp(LOADER_ONLY[i], name);
    ck_assert_msg(found, "%s is in neither list of tests/test_schema.c", path);
  }
  ck_assert_uint_ge(G_N_ELEMENTS(BAD), 10);
}
END_TEST

/* --keys: the --set paths (the bash completion offers them); each one is accepted by --set. */
START_TEST(test_keys)
{
  const char *args[] = { "schema", "--keys", NULL };
  const char *qargs[] = { "schema", "queueing_network", "--keys", NULL };
  g_autofree char *o = NULL, *e = NULL, *q = NULL, *qe = NULL;
  ck_assert_int_eq(test_run_ocasim(args, &o, &e), 0);
  ck_assert_int_eq(test_run_ocasim(qargs, &q, &qe), 0);
  ck_assert_msg(strstr(o, "\nnics[0].port_speed\n") && strstr(o, "\nworkload.cpu_cap\n") && strstr(o, "\nreference.gbps\n"), "%s",
                o);
  ck_assert_msg(strstr(q, "\nstations[0].servers\n"), "%s", q);
  const char *set[] = {
    "check", "scenarios/rome-400g-nic-ktls.yaml", "--set", "nics[0].port_speed=100 Gb/s", "--set", "workload.cpu_cap=70 %", NULL
  };
  g_autofree char *so = NULL, *se = NULL;
  ck_assert_int_eq(test_run_ocasim(set, &so, &se), 0);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("schema");
  TCase *tc = tcase_create("json schema");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_committed_schemas_are_current);
  tcase_add_test(tc, test_modelines);
  tcase_add_test(tc, test_repo_files_validate);
  tcase_add_loop_test(tc, test_bad_files_rejected_by_both, 0, G_N_ELEMENTS(BAD));
  tcase_add_test(tc, test_bad_files_accounted_for);
  tcase_add_test(tc, test_keys);
  suite_add_tcase(s, tc);
  return test_run_suite(s);
}
