/* tests/test_cli_errors.c — bad scenarios through the real command line.
 *
 * Each row runs `ocasim check FILE` (or `run` with an override) and asserts
 * the exit status (2 = bad input) and that stderr names FILE:LINE:COL and the
 * key path, with a distinctive part of the message.  Also: the same command
 * twice gives identical bytes. */
#include <check.h>
#include "tests/support/check_run.h"
#include <glib.h>
#include <string.h>
#include <sys/wait.h>

typedef struct {
    const char *file;      /* under tests/data/bad/ */
    int line, col;
    const char *path;      /* key path printed after the position ("" at the root) */
    const char *message;   /* a substring of the message */
} bad_case;

static const bad_case cases[] = {
    { "unknown-top-key.yaml",        2, 1,  "duraton",                        "did you mean 'duration'" },
    { "unknown-station-key.yaml",    9, 5,  "stations[0].servres",            "did you mean 'servers'" },
    { "duplicate-key.yaml",          3, 1,  "duration",                       "duplicate key" },
    { "bad-unit.yaml",               2, 11, "duration",                       "unknown unit 'parsecs'" },
    { "bare-number-time.yaml",       2, 11, "duration",                       "needs a unit" },
    { "wrong-kind-unit.yaml",        2, 11, "duration",                       "byte rate unit, expected a time" },
    { "servers-zero.yaml",           9, 14, "stations[0].servers",            "must be >= 1" },
    { "servers-not-int.yaml",        9, 14, "stations[0].servers",            "not a number" },
    { "bad-enum-dist.yaml",          5, 26, "sources[0].interarrival.dist",   "did you mean 'exponential'" },
    { "bad-discipline.yaml",         9, 17, "stations[0].discipline",         "expected one of fcfs, ps" },
    { "missing-service.yaml",        8, 5,  "stations[0]",                    "missing required key 'service'" },
    { "route-unknown-station.yaml",  6, 18, "sources[0].route[0].to",         "did you mean 'server'" },
    { "route-prob-range.yaml",       6, 24, "sources[0].route[0].p",          "must be <= 1" },
    { "route-sum-over-one.yaml",     11, 7, "stations[0].route",              "sum to 1.2" },
    { "source-sum-under-one.yaml",   6, 12, "sources[0].route",               "must sum to 1" },
    { "erlang-without-k.yaml",       9, 14, "stations[0].service",            "needs 'k'" },
    { "shape-for-wrong-dist.yaml",   5, 56, "sources[0].interarrival.cv",     "does not apply" },
    { "pareto-alpha-one.yaml",       9, 49, "stations[0].service.alpha",      "must be > 1" },
    { "warmup-too-long.yaml",        3, 9,  "warmup",                         "shorter than the duration" },
    { "duplicate-station.yaml",      10, 11, "stations[1].name",              "used twice" },
    { "no-kind.yaml",                1, 1,  "",                               "missing 'kind'" },
    { "bad-kind.yaml",               1, 7,  "kind",                           "did you mean 'queueing_network'" },
    { "yaml-syntax.yaml",            6, 1,  "",                               "YAML syntax error" },
    { "sources-not-list.yaml",       3, 10, "sources",                        "expected a list" },
    { "negative-mean.yaml",          5, 45, "sources[0].interarrival.mean",   "out of range" },
    { "empty-stations.yaml",         7, 11, "stations",                       "needs at least 1" },
};

static int run_ocasim(const char *const *args, char **out, char **err)
{
    const char *bin = g_getenv("OCASIM_BIN");
    ck_assert_msg(bin != NULL, "OCASIM_BIN is not set (run through make test)");
    GPtrArray *argv = g_ptr_array_new();
    g_ptr_array_add(argv, (char *)bin);
    for (; *args; args++)
        g_ptr_array_add(argv, (char *)*args);
    g_ptr_array_add(argv, NULL);
    int status = -1;
    GError *error = NULL;
    gboolean ok = g_spawn_sync(NULL, (char **)argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, out, err, &status, &error);
    ck_assert_msg(ok, "spawn failed: %s", error ? error->message : "");
    g_ptr_array_free(argv, TRUE);
    ck_assert(WIFEXITED(status));
    return WEXITSTATUS(status);
}

START_TEST(test_bad_scenario)
{
    const bad_case *c = &cases[_i];
    g_autofree char *file = g_strdup_printf("tests/data/bad/%s", c->file);
    g_autofree char *out = NULL, *err = NULL;
    const char *args[] = { "check", file, NULL };
    int rc = run_ocasim(args, &out, &err);
    ck_assert_msg(rc == 2, "%s: exit %d, stderr: %s", c->file, rc, err);
    g_autofree char *where = c->path[0] ? g_strdup_printf("%s:%d:%d: %s: ", file, c->line, c->col, c->path)
                                        : g_strdup_printf("%s:%d:%d: ", file, c->line, c->col);
    ck_assert_msg(strstr(err, where) != NULL, "%s: expected '%s' in: %s", c->file, where, err);
    ck_assert_msg(strstr(err, c->message) != NULL, "%s: expected '%s' in: %s", c->file, c->message, err);
    ck_assert_msg(strchr(err, '\n') == err + strlen(err) - 1, "%s: message is not one line: %s", c->file, err);
}
END_TEST

START_TEST(test_bad_override)
{
    g_autofree char *out = NULL, *err = NULL;
    const char *args[] = { "check", "scenarios/mm1.yaml", "--set", "stations[3].servers=2", NULL };
    ck_assert_int_eq(run_ocasim(args, &out, &err), 2);
    ck_assert_msg(strstr(err, "--set") && strstr(err, "stations[3]"), "%s", err);
    g_free(out); g_free(err);
    const char *args2[] = { "check", "scenarios/mm1.yaml", "--set", "stations[0].servers=0", NULL };
    ck_assert_int_eq(run_ocasim(args2, &out, &err), 2);
    ck_assert_msg(strstr(err, "stations[0].servers") && strstr(err, ">= 1"), "%s", err);
}
END_TEST

START_TEST(test_usage_errors)
{
    g_autofree char *out = NULL, *err = NULL;
    const char *args[] = { "run", "scenarios/mm1.yaml", "--format", "xml", NULL };
    ck_assert_int_eq(run_ocasim(args, &out, &err), 2);
    g_free(out); g_free(err);
    const char *args2[] = { "run", "no/such/file.yaml", NULL };
    ck_assert_int_eq(run_ocasim(args2, &out, &err), 2);
    ck_assert_msg(strstr(err, "no/such/file.yaml"), "%s", err);
    g_free(out); g_free(err);
    const char *args3[] = { "frobnicate", NULL };
    ck_assert_int_eq(run_ocasim(args3, &out, &err), 2);
}
END_TEST

/* Inputs that once hung, crashed or were silently accepted: each must be exit 2 with its reason. */
typedef struct { const char *args[10]; const char *message; } bad_run;

static const bad_run bad_runs[] = {
    { { "check", "/dev/zero", NULL }, "not a regular file" },
    { { "check", "scenarios", NULL }, "not a regular file" },
    { { "run", "scenarios/rome-400g-nic-ktls.yaml", "--seed", "-1", NULL }, "seed" },
    { { "run", "scenarios/rome-400g-nic-ktls.yaml", "--set", "platform=platforms/genoa-9554.yaml", NULL }, "cannot be overridden" },
    { { "run", "scenarios/rome-400g-nic-ktls.yaml", "--set", "workload.offered=", NULL }, "missing value" },
    { { "run", "scenarios/rome-400g-nic-ktls.yaml", "--set", "workload.offered=1e12 Gb/s", NULL }, "would simulate" },
    { { "run", "scenarios/rome-400g-nic-ktls.yaml", "--set", "workload.bitrates=[]", NULL }, "at least 1" },
    { { "run", "scenarios/rome-400g-nic-ktls.yaml", "--set", "workload.bitrates=[{rate: 5 Mb/s, share: 80 %}, {rate: 8 Mb/s, share: 80 %}]", NULL }, "add up to 160" },
    { { "run", "scenarios/rome-400g-nic-ktls.yaml", "--duration", "1 ns", "--warmup", "0 s", NULL }, "must exceed the warm-up" },
    { { "bound", "scenarios/mm1.yaml", NULL }, "needs an appliance scenario" },
};

START_TEST(test_bad_runs)
{
    g_autofree char *out = NULL, *err = NULL;
    int rc = run_ocasim(bad_runs[_i].args, &out, &err);
    ck_assert_msg(rc == 2, "%s %s: exit %d, stderr: %s", bad_runs[_i].args[0], bad_runs[_i].args[1], rc, err);
    ck_assert_msg(strstr(err, bad_runs[_i].message), "expected '%s' in: %s", bad_runs[_i].message, err);
}
END_TEST

START_TEST(test_run_is_deterministic_and_overridable)
{
    g_autofree char *a = NULL, *b = NULL, *c = NULL, *e1 = NULL, *e2 = NULL, *e3 = NULL;
    const char *args[] = { "run", "scenarios/mm1.yaml", "--duration", "20000 s", "--warmup", "1000 s", "--format", "json", NULL };
    ck_assert_int_eq(run_ocasim(args, &a, &e1), 0);
    ck_assert_int_eq(run_ocasim(args, &b, &e2), 0);
    ck_assert_str_eq(a, b);
    ck_assert_ptr_nonnull(strstr(a, "\"simulated_s\" : 19000"));
    const char *args3[] = { "run", "scenarios/mm1.yaml", "--duration", "20000 s", "--warmup", "1000 s", "--format", "json", "--seed", "2", NULL };
    ck_assert_int_eq(run_ocasim(args3, &c, &e3), 0);
    ck_assert_str_ne(a, c);
    ck_assert_ptr_nonnull(strstr(c, "\"seed\" : 2"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cli_errors");
    TCase *tc = tcase_create("bad input");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_bad_scenario, 0, G_N_ELEMENTS(cases));
    tcase_add_test(tc, test_bad_override);
    tcase_add_loop_test(tc, test_bad_runs, 0, G_N_ELEMENTS(bad_runs));
    tcase_add_test(tc, test_usage_errors);
    tcase_add_test(tc, test_run_is_deterministic_and_overridable);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
