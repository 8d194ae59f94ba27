/* tests/test_cli_errors.c — bad scenarios through the real command line.
 *
 * Each row runs `ocasim check FILE` (or `run` with an override) and asserts
 * the exit status (2 = bad input) and that stderr names FILE:LINE:COL and the
 * key path, with a distinctive part of the message.  Also: the same command
 * twice gives identical bytes. */
#include <check.h>
#include "tests/support/check_run.h"
#include "tests/support/ocasim_run.h"
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <signal.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
  const char *file; /* under tests/data/bad/ */
  int line, col;
  const char *path;    /* key path printed after the position ("" at the root) */
  const char *message; /* a substring of the message */
} BadCase;

static const BadCase cases[] = {
  { "unknown-top-key.yaml", 2, 1, "duraton", "did you mean 'duration'" },
  { "unknown-station-key.yaml", 9, 5, "stations[0].servres", "did you mean 'servers'" },
  { "duplicate-key.yaml", 3, 1, "duration", "duplicate key" },
  { "bad-unit.yaml", 2, 11, "duration", "unknown unit 'parsecs'" },
  { "bare-number-time.yaml", 2, 11, "duration", "needs a unit" },
  { "wrong-kind-unit.yaml", 2, 11, "duration", "byte rate unit, expected a time" },
  { "servers-zero.yaml", 9, 14, "stations[0].servers", "must be >= 1" },
  { "servers-not-int.yaml", 9, 14, "stations[0].servers", "not a number" },
  { "bad-enum-dist.yaml", 5, 26, "sources[0].interarrival.dist", "did you mean 'exponential'" },
  { "bad-discipline.yaml", 9, 17, "stations[0].discipline", "expected one of fcfs, ps" },
  { "missing-service.yaml", 8, 5, "stations[0]", "missing required key 'service'" },
  { "route-unknown-station.yaml", 6, 18, "sources[0].route[0].to", "did you mean 'server'" },
  { "route-prob-range.yaml", 6, 24, "sources[0].route[0].p", "must be <= 1" },
  { "route-sum-over-one.yaml", 11, 7, "stations[0].route", "sum to 1.2" },
  { "source-sum-under-one.yaml", 6, 12, "sources[0].route", "must sum to 1" },
  { "erlang-without-k.yaml", 9, 14, "stations[0].service", "needs 'k'" },
  { "shape-for-wrong-dist.yaml", 5, 56, "sources[0].interarrival.cv", "does not apply" },
  { "pareto-alpha-one.yaml", 9, 49, "stations[0].service.alpha", "must be > 1" },
  { "warmup-too-long.yaml", 3, 9, "warmup", "shorter than the duration" },
  { "duplicate-station.yaml", 10, 11, "stations[1].name", "used twice" },
  { "no-kind.yaml", 1, 1, "", "missing 'kind'" },
  { "bad-kind.yaml", 1, 7, "kind", "did you mean 'queueing_network'" },
  { "yaml-syntax.yaml", 6, 1, "", "YAML syntax error" },
  { "invalid-utf8.yaml", 3, 15, "", "invalid leading UTF-8 octet" },
  { "sources-not-list.yaml", 3, 10, "sources", "expected a list" },
  { "negative-mean.yaml", 5, 45, "sources[0].interarrival.mean", "out of range: must be >= 1 ns" },
  { "empty-stations.yaml", 7, 11, "stations", "needs at least 1" },
};

START_TEST(test_bad_scenario)
{
  const BadCase *c = &cases[_i];
  g_autofree char *file = g_strdup_printf("tests/data/bad/%s", c->file);
  g_autofree char *out = NULL, *err = NULL;
  const char *args[] = { "check", file, NULL };
  int rc = test_run_ocasim(args, &out, &err);
  ck_assert_msg(rc == 2, "%s: exit %d, stderr: %s", c->file, rc, err);
  test_assert_located(c->file, err, file, c->line, c->col, c->path, c->message);
}
END_TEST

START_TEST(test_bad_override)
{
  g_autofree char *out = NULL, *err = NULL;
  const char *args[] = { "check", "scenarios/mm1.yaml", "--set", "stations[3].servers=2", NULL };
  ck_assert_int_eq(test_run_ocasim(args, &out, &err), 2);
  ck_assert_msg(strstr(err, "--set") && strstr(err, "stations[3]"), "%s", err);
  g_free(out);
  g_free(err);
  const char *args2[] = { "check", "scenarios/mm1.yaml", "--set", "stations[0].servers=0", NULL };
  ck_assert_int_eq(test_run_ocasim(args2, &out, &err), 2);
  ck_assert_msg(strstr(err, "stations[0].servers") && strstr(err, ">= 1"), "%s", err);
}
END_TEST

/* A run too short for any request to finish after the warm-up has no latency: the table
 * says so and CSV leaves the fields empty (JSON writes null), never "nan". */
START_TEST(test_no_latency_is_not_nan)
{
  g_autofree char *out = NULL, *err = NULL;
  const char *args[] = { "run", "scenarios/rome-400g-nic-ktls.yaml", "--duration", "1 ms", "--warmup", "0 s", NULL };
  ck_assert_int_eq(test_run_ocasim(args, &out, &err), 0);
  ck_assert_msg(strstr(out, "latency:    n/a") && !strstr(out, "nan"), "%s", out);
  g_free(out);
  g_free(err);
  const char *args2[] = { "run", "scenarios/rome-400g-nic-ktls.yaml", "--duration", "1 ms", "--warmup", "0 s", "--format", "csv",
                          NULL };
  ck_assert_int_eq(test_run_ocasim(args2, &out, &err), 0);
  ck_assert_msg(strstr(out, ",,cpu.node0,") && !strstr(out, "nan"), "%s", out);
}
END_TEST

START_TEST(test_usage_errors)
{
  g_autofree char *out = NULL, *err = NULL;
  const char *args[] = { "run", "scenarios/mm1.yaml", "--format", "xml", NULL };
  ck_assert_int_eq(test_run_ocasim(args, &out, &err), 2);
  g_free(out);
  g_free(err);
  const char *args2[] = { "run", "no/such/file.yaml", NULL };
  ck_assert_int_eq(test_run_ocasim(args2, &out, &err), 2);
  ck_assert_msg(strstr(err, "no/such/file.yaml"), "%s", err);
  g_free(out);
  g_free(err);
  const char *args3[] = { "frobnicate", NULL };
  ck_assert_int_eq(test_run_ocasim(args3, &out, &err), 2);
}
END_TEST

/* Inputs that once hung, crashed or were silently accepted: each must be exit 2 with its reason. */
typedef struct {
  const char *args[10];
  const char *message;
} BadRun;

static const BadRun bad_runs[] = {
  { { "check", "/dev/zero", NULL }, "not a regular file" },
  { { "check", "scenarios", NULL }, "not a regular file" },
  { { "run", "scenarios/rome-400g-nic-ktls.yaml", "--seed", "-1", NULL }, "seed" },
  { { "run", "scenarios/rome-400g-nic-ktls.yaml", "--set", "platform=platforms/genoa-9554.yaml", NULL }, "cannot be overridden" },
  { { "run", "scenarios/rome-400g-nic-ktls.yaml", "--set", "workload.offered=", NULL }, "missing value" },
  { { "run", "scenarios/rome-400g-nic-ktls.yaml", "--set", "workload.offered=1e12 Gb/s", NULL }, "offered load out of range" },
  { { "run", "scenarios/rome-400g-nic-ktls.yaml", "--set", "workload.bitrates=[]", NULL }, "at least 1" },
  { { "run", "scenarios/rome-400g-nic-ktls.yaml", "--set",
      "workload.bitrates=[{rate: 5 Mb/s, share: 80 %}, {rate: 8 Mb/s, share: 80 %}]", NULL },
    "add up to 160" },
  { { "run", "scenarios/rome-400g-nic-ktls.yaml", "--duration", "1 ns", "--warmup", "0 s", NULL }, "must exceed the warm-up" },
  { { "bound", "scenarios/mm1.yaml", NULL }, "needs an appliance scenario" },
  /* a duration past 2^53 ns is refused where it is read, named as the option that gave it */
  { { "check", "scenarios/rome-400g-nic-ktls.yaml", "--duration", "1e30 s", NULL },
    "--duration: duration: '1e30 s' is out of range" },
  { { "run", "scenarios/rome-400g-nic-ktls.yaml", "--set", "duration=1e10 s", NULL },
    "--set: duration: '1e10 s' is out of range" },
  { { "run", "scenarios/rome-400g-nic-ktls.yaml", "--seed", "abc", NULL }, "--seed: seed: 'abc'" },
  /* range limits in the field's unit, not its base unit */
  { { "check", "scenarios/rome-400g-nic-ktls.yaml", "--set", "workload.cpu_cap=150 %", NULL },
    "'150 %' is out of range: must be <= 100 %" },
  /* a check across keys that a --set broke: located in the file, and the --set named */
  { { "check", "scenarios/rome-400g-nic-ktls.yaml", "--set", "nvme[0].count=60", NULL },
    "at most 64 drives (included from scenarios/rome-400g-nic-ktls.yaml:8:11) (the scenario as changed by --set nvme[0].count=60)" },
  { { "bound", "scenarios/rome-400g-nic-ktls.yaml", "--set", "nvme[0].count=60", NULL },
    "(the scenario as changed by --set nvme[0].count=60)" },
  { { "run", "scenarios/rome-400g-nic-ktls.yaml", "--warmup", "3 s", NULL },
    "must exceed the warm-up (3 s) by at least 1 ms (the scenario as changed by --warmup 3 s)" },
};

START_TEST(test_bad_runs)
{
  g_autofree char *out = NULL, *err = NULL;
  int rc = test_run_ocasim(bad_runs[_i].args, &out, &err);
  ck_assert_msg(rc == 2, "%s %s: exit %d, stderr: %s", bad_runs[_i].args[0], bad_runs[_i].args[1], rc, err);
  ck_assert_msg(strstr(err, bad_runs[_i].message), "expected '%s' in: %s", bad_runs[_i].message, err);
}
END_TEST

/* serve, load, validate, reference, fit and schema: a bad option value names the option, the value
 * and the allowed range; a stray argument is a usage error. Every row fails before anything binds,
 * connects or fits. */
typedef struct {
  const char *args[10];
  const char *message[3];
} BadOption;

static const BadOption bad_options[] = {
  { { "serve", "--root", "tests", "extra", NULL }, { "unexpected argument 'extra'" } },
  { { "serve", "--root", "tests", "--mode", "sendfile", "--cert", "no/such.pem", NULL },
    { "ocasim serve: --cert: mode sendfile serves plain HTTP, without TLS" } },
  { { "serve", "--root", "tests", "--port", "70000", NULL }, { "--port '70000'", "out of range", "0..65535" } },
  { { "serve", "--root", "tests", "-p", "x1", NULL }, { "--port 'x1'", "not an integer", "0..65535" } },
  { { "serve", "--root", "tests", "--threads", "0", NULL }, { "--threads '0'", "1..1024" } },
  { { "serve", "--root", "tests", "--duration", "-1", NULL }, { "--duration '-1'", "0..1000000 s", "0: until interrupted" } },
  { { "serve", "--root", "tests", "--duration", "nan", NULL }, { "--duration 'nan'", "not a number" } },
  { { "serve", "--root", "tests", "--idle-timeout", "0", NULL }, { "--idle-timeout '0'", "> 0 s" } },
  { { "load", "--path", "/f", "extra", NULL }, { "unexpected argument 'extra'" } },
  { { "load", "--path", "/f", "-n", "0", NULL }, { "--requests '0'", ">= 1", "runs for --duration" } },
  { { "load", "--path", "/f", "--requests", "-3", NULL }, { "--requests '-3'", ">= 1" } },
  { { "load", "--path", "/f", "-n", "2", "-d", "3", NULL }, { "ocasim load: --requests and --duration exclude each other" } },
  { { "load", "--path", "/f", "--plain", "--cipher", "chacha20-poly1305", NULL },
    { "ocasim load: --cipher: --plain fetches over plain HTTP, without TLS" } },
  { { "load", "--path", "/f", "--connections", "0", NULL }, { "--connections '0'", "1..1000000" } },
  { { "load", "--path", "/f", "--port", "0", NULL }, { "--port '0'", "1..65535" } },
  { { "load", "--path", "/f", "--threads", "2000", NULL }, { "--threads '2000'", "1..1024" } },
  { { "load", "--path", "/f", "-t", "4", "-c", "1", NULL },
    { "ocasim load: --threads 4 is more than --connections 1", "owns at least one connection" } },
  { { "load", "--path", "/f", "--threads", "17", NULL }, { "--threads 17 is more than --connections 16" } },
  { { "load", "--path", "/f", "--duration", "0", NULL }, { "--duration '0'", "> 0 s" } },
  /* a time with its unit reads as in a scenario ("0 s" is out of range, not "not a number") */
  { { "load", "--path", "/f", "--duration", "0 s", NULL }, { "--duration '0 s'", "out of range", "> 0 s" } },
  { { "load", "--path", "/f", "--duration", "2 Gb/s", NULL },
    { "--duration '2 Gb/s'", "a time (\"2 s\", \"500 ms\", \"2 min\"; a bare number is seconds)",
      "seconds): 'Gb/s' is a bit rate unit, expected a time" } },
  /* every time option reads the units a scenario's time takes ("2 min" once failed in load and
   * serve, "min" holding the letters of "nan" and "inf"): the error is the next option's */
  { { "load", "--path", "/f", "-d", "2 min", "--timeout", "1min", "--host", "x", NULL }, { "ocasim load: --host 'x'" } },
  { { "load", "--path", "/f", "-d", "1 h", "--timeout", "90 ns", "--host", "x", NULL }, { "ocasim load: --host 'x'" } },
  { { "serve", "--root", "tests", "--linger=2min", "--idle-timeout", "1 min", "--max-conns", "0", NULL },
    { "ocasim serve: --max-conns '0'" } },
  { { "validate", "--duration", "1 min", "--warmup", "2min", "--reps", "99", NULL }, { "ocasim validate: --reps '99'" } },
  { { "load", "--path", "/f", "--duration", "2 mins", NULL },
    { "--duration '2 mins'", "not a number of seconds or a time", "): unknown unit 'mins' for a time" } },
  { { "serve", "--root", "tests", "--linger", "0x10", NULL }, { "--linger '0x10'", "not a number of seconds or a time" } },
  { { "serve", "--root", "tests", "--linger", "inf", NULL }, { "--linger 'inf'", "not a number of seconds or a time" } },
  { { "serve", "--root", "tests", "--duration", "1e7 min", NULL }, { "--duration '1e7 min'", "out of range", "0..1000000 s" } },
  /* --interval LEVEL: a percentage or a fraction in (0, 1), the same in every command that takes it */
  { { "bound", "scenarios/rome-400g-nic-ktls.yaml", "--interval", "1", NULL },
    { "ocasim: --interval '1': ambiguous: write \"1 %\" for 1 %",
      "a percentage (\"80 %\", \"80%\", or 80) or a fraction (0.8)" } },
  { { "explain", "scenarios/rome-400g-nic-ktls.yaml", "--interval", "150", NULL }, { "--interval '150': out of range" } },
  { { "capacity", "scenarios/rome-400g-nic-ktls.yaml", "--interval", "100 %", NULL }, { "--interval '100 %': out of range" } },
  { { "run", "scenarios/rome-400g-nic-ktls.yaml", "--interval", "0", NULL }, { "--interval '0': out of range" } },
  { { "sweep", "sweeps/whatif-800g.yaml", "--interval", "80 Gb/s", NULL }, { "--interval '80 Gb/s': not a level" } },
  { { "bound", "scenarios/rome-400g-nic-ktls.yaml", "--interval", "-80 %", NULL }, { "--interval '-80 %': out of range" } },
  { { "run", "scenarios/mm1.yaml", "--interval", "0.9", NULL },
    { "--interval '0.9': a queueing-network scenario has no prediction interval" } },
  /* each tail of 256 draws must hold one draw: at most 99.21875 % (0.999999 was the draws' extremes) */
  { { "bound", "scenarios/rome-400g-nic-ktls.yaml", "--interval", "0.999999", NULL },
    { "--interval '0.999999': wider than 256 draws resolve: each tail needs at least one draw, so the level is at most "
      "99.21875 %" } },
  { { "capacity", "scenarios/rome-400g-nic-ktls.yaml", "--interval", "99.99999999999", NULL },
    { "--interval '99.99999999999': wider than 256 draws resolve" } },
  { { "bound", "scenarios/rome-400g-nic-ktls.yaml", "--interval", "80 %", "--no-interval", NULL },
    { "--interval '80 %' and --no-interval together" } },
  { { "serve", "--root", "tests", "--idle-timeout", "2e9 ms", NULL }, { "--idle-timeout '2e9 ms'", "out of range" } },
  { { "load", "--path", "/f", "--timeout", "1e300", NULL }, { "--timeout '1e300'", "<= 1000000 s" } },
  { { "load", "--path", "/f", "--tls-version", "1.1", NULL }, { "--tls-version '1.1'", "1.2, 1.3 or any" } },
  { { "load", "--path", "/f", "--range", "9-3", NULL }, { "--range '9-3'", "FIRST-LAST" } },
  { { "load", "--path", "/f", "--host", "not-an-ip", NULL }, { "--host 'not-an-ip'", "not an IPv4 address" } },
  { { "validate", "--duration", "-1", NULL }, { "--duration '-1'", "0..1000000 s" } },
  { { "validate", "--warmup", "abc", NULL }, { "--warmup 'abc'", "not a number" } },
  { { "validate", "--threads", "-2", NULL }, { "--threads '-2'", "0..1024" } },
  { { "validate", "--reps", "99", NULL }, { "--reps '99'", "out of range" } },
  { { "validate", "--nice", "30", NULL }, { "--nice '30'", "-20..19" } },
  { { "validate", "--seed", "x", NULL }, { "--seed 'x'", "not an integer" } },
  { { "validate", "--nice", "5", "--keep-nice", NULL }, { "ocasim validate: --nice and --keep-nice exclude each other" } },
  { { "validate", "--out", "README.md", NULL }, { "--out 'README.md'", "cannot create" } },
  { { "validate", "--out", "", NULL }, { "--out: empty directory name" } },
  { { "validate", "--work-dir", "README.md", NULL }, { "--work-dir 'README.md'", "not a directory" } },
  { { "reference", "--frob", NULL }, { "ocasim reference: Unknown option --frob" } },
  { { "reference", "scenarios/reference", "extra", NULL }, { "ocasim reference: unexpected argument 'extra'" } },
  { { "reference", "no/such/dir", NULL }, { "no/such/dir" } },
  { { "bound", "scenarios/rome-400g-nic-ktls.yaml", "--allow-include", "no/such/dir", NULL },
    { "--allow-include 'no/such/dir': no such directory" } },
  { { "check", "scenarios/rome-400g-nic-ktls.yaml", "--allow-include", "README.md", NULL },
    { "--allow-include 'README.md': not a directory" } },
  { { "sweep", "sweeps/whatif-800g.yaml", "--allow-include", "", NULL }, { "--allow-include '': empty directory name" } },
  { { "fit", "--write", "", NULL }, { "ocasim fit: --write: empty file name" } },
  { { "fit", "--write", "no/such/dir/coeffs.def", NULL }, { "--write 'no/such/dir/coeffs.def': no directory 'no/such/dir'" } },
  { { "fit", "--write", "models", NULL }, { "--write 'models': is a directory" } },
  { { "fit", "a", "b", NULL }, { "ocasim fit: unexpected argument 'b'" } },
  { { "fit", "no/such/dir", NULL }, { "no/such/dir" } },
  { { "schema", "--format", "yaml", NULL }, { "ocasim schema: --format 'yaml': expected markdown or json" } },
  { { "schema", "swep", NULL }, { "'swep': expected appliance, platform, queueing_network or sweep" } },
  { { "schema", "sweep", "--keys", NULL }, { "--keys: a sweep file has no --set keys" } },
  { { "schema", "--keys", "--format", "json", NULL },
    { "ocasim schema: --keys prints key paths one a line; --format goes without it" } },
  { { "schema", "README.md", NULL }, { "unexpected argument 'README.md' (FILE arguments go with --update)" } },
  { { "schema", "--update", NULL }, { "--update needs at least one FILE" } },
  { { "schema", "--update", "no/such/file.md", NULL }, { "no/such/file.md" } },
  { { "schema", "--update", "Makefile", NULL }, { "Makefile: no generated block markers" } },
};

START_TEST(test_bad_options)
{
  g_autofree char *out = NULL, *err = NULL;
  const BadOption *b = &bad_options[_i];
  int rc = test_run_ocasim(b->args, &out, &err);
  ck_assert_msg(rc == 2, "%s row %d: exit %d, stderr: %s", b->args[0], _i, rc, err);
  for (int k = 0; k < 3 && b->message[k]; k++)
    ck_assert_msg(strstr(err, b->message[k]), "expected '%s' in: %s", b->message[k], err);
  ck_assert_msg(strchr(err, '\n') == err + strlen(err) - 1, "message is not one line: %s", err);
  ck_assert_str_eq(out, "");
}
END_TEST

/* validate refuses conflicting options before it creates --out: nothing is left behind (it
 * made the directory first, then refused --pin --no-pin). */
START_TEST(test_validate_bad_options_leave_no_dir)
{
  g_autofree char *dir = g_dir_make_tmp("ocasim-vout-XXXXXX", NULL);
  ck_assert_ptr_nonnull(dir);
  g_autofree char *out_dir = g_build_filename(dir, "new", NULL);
  const char *bad[][3] = { { "--pin", "--no-pin", NULL }, { "--verify", "md5", NULL }, { "--keep-nice", "--nice=5", NULL } };
  for (size_t k = 0; k < G_N_ELEMENTS(bad); k++) {
    const char *args[] = { "validate", "--out", out_dir, bad[k][0], bad[k][1], NULL };
    g_autofree char *out = NULL, *err = NULL;
    ck_assert_int_eq(test_run_ocasim(args, &out, &err), 2);
    ck_assert_msg(!g_file_test(out_dir, G_FILE_TEST_EXISTS), "%s %s: created %s", bad[k][0], bad[k][1], out_dir);
  }
  g_rmdir(out_dir);
  g_rmdir(dir);
}
END_TEST

/* Reads one line of @fd within @timeout_s (bounded); NULL on timeout or EOF. */
static char *read_line_bounded(int fd, double timeout_s)
{
  GString *s = g_string_new(NULL);
  gint64 end = g_get_monotonic_time() + (gint64)(timeout_s * 1e6);
  for (;;) {
    gint64 left = end - g_get_monotonic_time();
    if (left <= 0) break;
    GPollFD p = { fd, G_IO_IN, 0 };
    if (g_poll(&p, 1, (int)(left / 1000) + 1) <= 0) continue;
    char c;
    if (read(fd, &c, 1) != 1) break;
    if (c == '\n') return g_string_free(s, FALSE);
    g_string_append_c(s, c);
  }
  g_string_free(s, TRUE);
  return NULL;
}

/* Waits (bounded) for @pid; returns its wait status, or -1 after killing it on timeout. */
static int wait_bounded(GPid pid, double timeout_s)
{
  gint64 end = g_get_monotonic_time() + (gint64)(timeout_s * 1e6);
  int status;
  while (g_get_monotonic_time() < end) {
    if (waitpid(pid, &status, WNOHANG) == pid) return status;
    g_usleep(10000);
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return -1;
}

/* serve --duration 0 (the default) serves until SIGTERM, as --help says; --duration S stops by itself. */
START_TEST(test_serve_duration)
{
  const char *bin = g_getenv("OCASIM_BIN");
  ck_assert(bin != NULL);
  g_autofree char *out = NULL, *err = NULL;
  const char *help[] = { "serve", "--help", NULL };
  ck_assert_int_eq(test_run_ocasim(help, &out, &err), 0);
  ck_assert_msg(strstr(out, "0 (the default): run until SIGINT/SIGTERM"), "%s", out);

  for (int timed = 0; timed < 2; timed++) {
    const char *argv[] = { bin, "serve",  "--root",   "tests",    "--bind",     "127.0.0.1",         "--port",
                           "0", "--mode", "sendfile", "--no-pin", "--duration", timed ? "0.2" : "0", NULL };
    GPid pid;
    int fd_out;
    GError *e = NULL;
    ck_assert_msg(
        g_spawn_async_with_pipes(NULL, (char **)argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, NULL, &fd_out, NULL, &e),
        "%s", e ? e->message : "");
    g_autofree char *line = read_line_bounded(fd_out, 20);
    ck_assert_msg(line && g_str_has_prefix(line, "serving tests on http://127.0.0.1:"), "first line: %s", line);
    ck_assert_msg(strstr(line, timed ? "for 0.2 s" : "until SIGINT/SIGTERM"), "%s", line);
    if (!timed) {
      /* still serving well after what "0 s" would have meant */
      g_usleep(300000);
      ck_assert_int_eq(waitpid(pid, NULL, WNOHANG), 0);
      kill(pid, SIGTERM);
    }
    int status = wait_bounded(pid, 20);
    ck_assert_msg(status != -1, "serve did not stop");
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    g_autofree char *last = read_line_bounded(fd_out, 5);
    ck_assert_msg(last && g_str_has_prefix(last, "served 0 requests"), "last line: %s", last);
    close(fd_out);
    g_spawn_close_pid(pid);
  }
}
END_TEST

/* serve's time options read the units a scenario's time takes, as run --duration does: "2min",
 * "1 min", "20000 ms" (refused as not a number before) and a stop after "0.005 min" = 0.3 s. */
START_TEST(test_serve_time_units)
{
  const char *bin = g_getenv("OCASIM_BIN");
  ck_assert(bin != NULL);
  const char *argv[] = {
    bin,          "serve",     "--root",   "tests",         "--bind",         "127.0.0.1", "--port",         "0",
    "--mode",     "sendfile",  "--no-pin", "--linger=2min", "--idle-timeout", "1 min",     "--head-timeout", "20000 ms",
    "--duration", "0.005 min", NULL
  };
  GPid pid;
  int fd_out, fd_err;
  GError *e = NULL;
  ck_assert_msg(g_spawn_async_with_pipes(NULL, (char **)argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, NULL, &fd_out,
                                         &fd_err, &e),
                "%s", e ? e->message : "");
  g_autofree char *line = read_line_bounded(fd_out, 20);
  g_autofree char *eline = line ? NULL : read_line_bounded(fd_err, 5);
  ck_assert_msg(line && strstr(line, "for 0.3 s"), "first line: %s; stderr: %s", line, eline);
  int status = wait_bounded(pid, 20);
  ck_assert_msg(status != -1, "serve did not stop");
  ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  close(fd_out);
  close(fd_err);
  g_spawn_close_pid(pid);
}
END_TEST

/* The help of every command with time options names the forms they take. */
START_TEST(test_time_help)
{
  const char *cmds[] = { "load", "serve", "validate" };
  for (size_t i = 0; i < G_N_ELEMENTS(cmds); i++) {
    const char *args[] = { cmds[i], "--help", NULL };
    g_autofree char *out = NULL, *err = NULL;
    ck_assert_int_eq(test_run_ocasim(args, &out, &err), 0);
    ck_assert_msg(strstr(out, "--duration=TIME") && strstr(out, "\"2 s\", \"500 ms\", \"2 min\"; a bare number is seconds"),
                  "%s --help: %s", cmds[i], out);
  }
}
END_TEST

/* A load that completes no response (a listener that accepts the connection and never
 * answers) fails with exit 1 and says so; it prints no rate (once "0.000 Gb/s ... TLS 1.2 any"
 * or a rate from partial bodies, exit 0).  --json still prints its counters, for validate
 * --clients. */
START_TEST(test_load_no_response)
{
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  ck_assert_int_ge(fd, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  socklen_t len = sizeof a;
  ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
  ck_assert_int_eq(listen(fd, 16), 0);
  ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
  g_autofree char *port = g_strdup_printf("%d", ntohs(a.sin_port));
  g_autofree char *dir = g_dir_make_tmp("ocasim-load-XXXXXX", NULL);
  ck_assert_ptr_nonnull(dir);
  g_autofree char *file = g_build_filename(dir, "f", NULL);
  ck_assert(g_file_set_contents(file, "0123456789", 10, NULL));
  for (int json = 0; json < 2; json++) {
    const char *args[] = {
      "load", "--plain", "-p", port, "-r", dir, "-P", "/f", "-c", "2", "-d", "200 ms", json ? "--json" : NULL, NULL
    };
    g_autofree char *out = NULL, *err = NULL;
    ck_assert_int_eq(test_run_ocasim(args, &out, &err), 1);
    ck_assert_msg(g_str_has_prefix(err, "ocasim load: no response completed in ") && strstr(err, "no rate to report"), "%s", err);
    if (json)
      ck_assert_msg(strstr(out, "\"requests_ok\": 0,"), "%s", out);
    else
      ck_assert_msg(!strstr(out, "Gb/s") && !strstr(err, "Gb/s") && !strstr(out, "TLS"), "stdout: %s", out);
  }
  close(fd);
  g_unlink(file);
  g_rmdir(dir);
}
END_TEST

/* --interval: "80 %", "80%", 80 and 0.8 are the same level in every command that takes it; a
 * level prints unrounded (0.99218 once would have printed as "99 %"; 0.999999 as "100 %", now
 * refused: wider than 256 draws resolve). */
START_TEST(test_interval_forms)
{
  const char *cmds[][2] = { { "bound", "scenarios/rome-400g-nic-ktls.yaml" },
                            { "explain", "scenarios/rome-400g-nic-ktls.yaml" } };
  for (size_t c = 0; c < G_N_ELEMENTS(cmds); c++) {
    g_autofree char *want = NULL;
    const char *forms[] = { "0.8", "80 %", "80%", "80", " 80 % " };
    for (size_t i = 0; i < G_N_ELEMENTS(forms); i++) {
      const char *args[] = { cmds[c][0], cmds[c][1], "--interval", forms[i], NULL };
      g_autofree char *out = NULL, *err = NULL;
      ck_assert_msg(test_run_ocasim(args, &out, &err) == 0, "%s --interval '%s': %s", cmds[c][0], forms[i], err);
      ck_assert_msg(strstr(out, "interval:   80 % of "), "%s", out);
      if (!want)
        want = g_strdup(out);
      else
        ck_assert_str_eq(out, want);
    }
  }
  const char *levels[][2] = { { "0.99218", "interval:   99.218 % of " },
                              { "50", "interval:   50 % of " },
                              { "2.5 %", "interval:   2.5 % of " },
                              { "0.95", "interval:   95 % of " } };
  for (size_t i = 0; i < G_N_ELEMENTS(levels); i++) {
    const char *args[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", "--interval", levels[i][0], NULL };
    g_autofree char *out = NULL, *err = NULL;
    ck_assert_msg(test_run_ocasim(args, &out, &err) == 0, "--interval '%s': %s", levels[i][0], err);
    ck_assert_msg(strstr(out, levels[i][1]), "--interval '%s': %s", levels[i][0], out);
  }
  const char *help[] = { "bound", "--help", NULL };
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_int_eq(test_run_ocasim(help, &out, &err), 0);
  ck_assert_msg(strstr(out, "\"80 %\", \"80%\", or a bare number above 1 such as 80) or a fraction below 1 (0.8)"), "%s", out);
}
END_TEST

START_TEST(test_run_is_deterministic_and_overridable)
{
  g_autofree char *a = NULL, *b = NULL, *c = NULL, *e1 = NULL, *e2 = NULL, *e3 = NULL;
  const char *args[] = { "run", "scenarios/mm1.yaml", "--duration", "20000 s", "--warmup", "1000 s", "--format", "json", NULL };
  ck_assert_int_eq(test_run_ocasim(args, &a, &e1), 0);
  ck_assert_int_eq(test_run_ocasim(args, &b, &e2), 0);
  ck_assert_str_eq(a, b);
  ck_assert_ptr_nonnull(strstr(a, "\"simulated_s\" : 19000"));
  const char *args3[] = { "run",    "scenarios/mm1.yaml", "--duration", "20000 s", "--warmup",
                          "1000 s", "--format",           "json",       "--seed",  "2",
                          NULL };
  ck_assert_int_eq(test_run_ocasim(args3, &c, &e3), 0);
  ck_assert_str_ne(a, c);
  ck_assert_ptr_nonnull(strstr(c, "\"seed\" : 2"));
}
END_TEST

/* check honours --format: a JSON object and a CSV row name the file and its kind */
START_TEST(test_check_formats)
{
  g_autofree char *j = NULL, *c = NULL, *t = NULL, *e1 = NULL, *e2 = NULL, *e3 = NULL;
  const char *aj[] = { "check", "scenarios/mm1.yaml", "--format", "json", NULL };
  const char *ac[] = { "check", "scenarios/mm1.yaml", "--format", "csv", NULL };
  const char *at[] = { "check", "scenarios/mm1.yaml", NULL };
  ck_assert_int_eq(test_run_ocasim(aj, &j, &e1), 0);
  ck_assert_int_eq(test_run_ocasim(ac, &c, &e2), 0);
  ck_assert_int_eq(test_run_ocasim(at, &t, &e3), 0);
  /* with the version stamped into JSON and CSV (cli/common.h) */
  g_autofree char *v = test_ocasim_version();
  g_autofree char *want_j = g_strdup_printf("{\n  \"ocasim_version\" : \"%s\",\n  \"file\" : \"scenarios/mm1.yaml\",\n"
                                            "  \"scenario\" : \"M/M/1 rho=0.7\",\n  \"seed\" : 1,\n  \"overrides\" : [],\n"
                                            "  \"kind\" : \"queueing_network\",\n  \"ok\" : true\n}\n",
                                            v);
  g_autofree char *want_c = g_strdup_printf(
      "file,scenario,seed,overrides,kind,ok,error,ocasim_version\nscenarios/mm1.yaml,M/M/1 rho=0.7,1,,queueing_network,true,,%s\n",
      v);
  ck_assert_str_eq(j, want_j);
  ck_assert_str_eq(c, want_c);
  ck_assert_str_eq(t, "scenarios/mm1.yaml: ok (queueing_network)\n");
  /* a bad file: the verdict on stdout carries the located error, which stderr prints too; exit 2 */
  g_autofree char *bj = NULL, *bc = NULL, *f1 = NULL, *f2 = NULL;
  const char *bad_j[] = { "check", "tests/data/bad/route-unknown-station.yaml", "--format", "json", NULL };
  const char *bad_c[] = { "check", "tests/data/bad/route-unknown-station.yaml", "--format", "csv", NULL };
  ck_assert_int_eq(test_run_ocasim(bad_j, &bj, &f1), 2);
  ck_assert_int_eq(test_run_ocasim(bad_c, &bc, &f2), 2);
  const char *msg = "tests/data/bad/route-unknown-station.yaml:6:18: sources[0].route[0].to: no station named 'sever'";
  ck_assert_msg(strstr(bj, "\"ok\" : false") && strstr(bj, msg), "%s", bj);
  ck_assert_msg(g_str_has_prefix(bc, "file,scenario,seed,overrides,kind,ok,error,ocasim_version\n"
                                     "tests/data/bad/route-unknown-station.yaml,,,,queueing_network,false,") &&
                    strstr(bc, msg),
                "%s", bc);
  ck_assert_msg(strstr(f1, msg) && strstr(f2, msg), "%s", f1);
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
  tcase_add_test(tc, test_no_latency_is_not_nan);
  tcase_add_test(tc, test_usage_errors);
  tcase_add_loop_test(tc, test_bad_options, 0, G_N_ELEMENTS(bad_options));
  tcase_add_test(tc, test_validate_bad_options_leave_no_dir);
  tcase_add_test(tc, test_serve_duration);
  tcase_add_test(tc, test_serve_time_units);
  tcase_add_test(tc, test_time_help);
  tcase_add_test(tc, test_load_no_response);
  tcase_add_test(tc, test_interval_forms);
  tcase_add_test(tc, test_run_is_deterministic_and_overridable);
  tcase_add_test(tc, test_check_formats);
  suite_add_tcase(s, tc);
  return test_run_suite(s);
}
