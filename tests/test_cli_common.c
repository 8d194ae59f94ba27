/* tests/test_cli_common.c — what every subcommand shares (cli/common.h), through the real
 * command line: one meaning per short option across all subcommands and no option a command
 * ignores, the version on every subcommand and in JSON and CSV results, progress on stderr only
 * on a terminal (or with --progress), log levels and traces, -o FILE, and numbers that do not
 * follow the locale. */
#include <check.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/support/check_run.h"
#include "tests/support/ocasim_run.h"
#include "validate/pipeline.h"

static const char *const SUBCOMMANDS[] = { "run",   "check", "bound",     "capacity", "validate",
                                           "serve", "load",  "reference", "fit",      "schema" };

/* A short run of the 400G box: long enough for a progress line, short enough for a test. */
#define SHORT_RUN "scenarios/rome-400g-nic-ktls.yaml", "--duration", "0.5 s", "--warmup", "0.1 s"

/* Runs ocasim with @args in an environment without G_MESSAGES_DEBUG and OCASIM_LOG, changed by
 * @env (test_spawn); returns the exit status. */
static int run_env(const char *const *args, const char *const *env, char **out, char **err)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  g_ptr_array_add(argv, (char *)g_getenv("OCASIM_BIN"));
  ck_assert_msg(argv->pdata[0] != NULL, "OCASIM_BIN is not set (run through make test)");
  for (; *args; args++) g_ptr_array_add(argv, (char *)*args);
  g_ptr_array_add(argv, NULL);
  g_autoptr(GPtrArray) envs = g_ptr_array_new();
  g_ptr_array_add(envs, "G_MESSAGES_DEBUG=");
  g_ptr_array_add(envs, "OCASIM_LOG=");
  for (; env && *env; env++) g_ptr_array_add(envs, (char *)*env);
  g_ptr_array_add(envs, NULL);
  return test_spawn((const char *const *)argv->pdata, (const char *const *)envs->pdata, NULL, out, err);
}

/* One meaning per letter: a table of every subcommand's short options, asserted consistent. */
START_TEST(test_short_options_consistent)
{
  g_autoptr(GHashTable) meaning = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free); /* letter -> "long (cmd)" */
  int letters = 0;
  for (size_t i = 0; i < G_N_ELEMENTS(SUBCOMMANDS); i++) {
    g_autoptr(GHashTable) opts = test_ocasim_help_options(SUBCOMMANDS[i]);
    ck_assert_msg(g_hash_table_contains(opts, "version"), "%s --help lists no --version", SUBCOMMANDS[i]);
    ck_assert_msg(!g_strcmp0(g_hash_table_lookup(opts, "verbose"), "v"), "%s: -v is not --verbose", SUBCOMMANDS[i]);
    ck_assert_msg(!g_strcmp0(g_hash_table_lookup(opts, "help"), "h"), "%s: -h is not --help", SUBCOMMANDS[i]);
    /* a help text that names --format offers it (reference's -o text named one it lacked) */
    const char *help_args[] = { SUBCOMMANDS[i], "--help", NULL };
    g_autofree char *help = NULL, *help_err = NULL;
    ck_assert_int_eq(run_env(help_args, NULL, &help, &help_err), 0);
    ck_assert_msg(!strstr(help, "--format") || g_hash_table_contains(opts, "format"), "%s --help names a --format it lacks",
                  SUBCOMMANDS[i]);
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init(&it, opts);
    while (g_hash_table_iter_next(&it, &k, &v)) {
      const char *letter = v, *lng = k;
      if (!*letter) continue;
      const char *seen = g_hash_table_lookup(meaning, letter);
      g_autofree char *here = g_strdup_printf("--%s (%s)", lng, SUBCOMMANDS[i]);
      if (!seen) {
        g_hash_table_insert(meaning, g_strdup(letter), g_strdup(here));
        letters++;
        continue;
      }
      g_autofree char *seen_long = g_strndup(seen, strcspn(seen, " "));
      g_autofree char *here_long = g_strdup_printf("--%s", lng);
      ck_assert_msg(!strcmp(seen_long, here_long), "-%s means %s and %s", letter, seen, here);
    }
  }
  ck_assert_int_ge(letters, 15); /* the table did read the help texts */
}
END_TEST

/* Options a subcommand ignores are not offered; those it uses are. */
static const struct {
  const char *cmd;
  const char *has, *lacks;
} OFFERS[] = {
  { "run", "duration warmup seed set format output progress quiet log fail", "" },
  { "check", "duration warmup seed set format output fail", "progress quiet log" },
  { "bound", "seed set format output fail", "duration warmup progress quiet log" },
  { "capacity", "duration warmup seed set format output progress quiet", "log fail" }, /* the DES runs of its latency check */
  { "explain", "seed set format output", "duration warmup progress quiet log fail" },
  { "validate", "duration warmup progress quiet out", "output set format log" },
  { "reference", "output", "format progress set" },
  { "fit", "output write", "format progress set" },
  { "schema", "output format update", "progress set" },
  { "serve", "duration root port cert", "output progress format" },
  { "load", "duration root port connections", "output progress format" },
};

START_TEST(test_offered_options)
{
  g_autoptr(GHashTable) opts = test_ocasim_help_options(OFFERS[_i].cmd);
  g_auto(GStrv) has = g_strsplit(OFFERS[_i].has, " ", -1), lacks = g_strsplit(OFFERS[_i].lacks, " ", -1);
  for (char **o = has; *o; o++)
    if (**o) ck_assert_msg(g_hash_table_contains(opts, *o), "%s does not offer --%s", OFFERS[_i].cmd, *o);
  for (char **o = lacks; *o; o++)
    if (**o) ck_assert_msg(!g_hash_table_contains(opts, *o), "%s offers --%s, which it ignores", OFFERS[_i].cmd, *o);
}
END_TEST

/* `ocasim CMD --version` prints what `ocasim --version` prints; the version is in JSON and CSV. */
START_TEST(test_version_everywhere)
{
  g_autofree char *v = test_ocasim_version();
  ck_assert_msg(strcmp(v, "0.1.0") != 0 && strcmp(v, "unknown") != 0, "version '%s' is not from git describe or VERSION", v);
  g_autofree char *want = g_strdup_printf("ocasim %s\n", v);
  for (size_t i = 0; i < G_N_ELEMENTS(SUBCOMMANDS); i++) {
    const char *args[] = { SUBCOMMANDS[i], "--version", NULL };
    g_autofree char *out = NULL, *err = NULL;
    ck_assert_int_eq(test_run_ocasim(args, &out, &err), 0);
    ck_assert_str_eq(out, want);
  }
  const char *json[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", "--format", "json", NULL };
  const char *csv[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", "--format", "csv", NULL };
  g_autofree char *j = NULL, *c = NULL, *e1 = NULL, *e2 = NULL;
  ck_assert_int_eq(test_run_ocasim(json, &j, &e1), 0);
  ck_assert_int_eq(test_run_ocasim(csv, &c, &e2), 0);
  g_autofree char *member = g_strdup_printf("{\n  \"ocasim_version\" : \"%s\",\n", v);
  ck_assert_msg(g_str_has_prefix(j, member), "%s", j);
  g_autofree char *row_end = g_strdup_printf(",%s\n", v);
  g_auto(GStrv) rows = g_strsplit(c, "\n", -1);
  ck_assert(g_str_has_suffix(rows[0], ",ocasim_version"));
  for (char **r = rows + 1; *r && **r; r++) {
    g_autofree char *line = g_strconcat(*r, "\n", NULL);
    ck_assert_msg(g_str_has_suffix(line, row_end), "%s", *r);
  }
}
END_TEST

/* Off a terminal a clean run prints nothing on stderr; --progress prints plain lines; the
 * results are the same either way. */
START_TEST(test_progress_off_terminal)
{
  const char *plain[] = { "run", SHORT_RUN, NULL };
  const char *with[] = { "run", SHORT_RUN, "--progress", NULL };
  const char *quiet[] = { "run", SHORT_RUN, "--progress", "--quiet", NULL };
  g_autofree char *o1 = NULL, *e1 = NULL, *o2 = NULL, *e2 = NULL, *o3 = NULL, *e3 = NULL;
  ck_assert_int_eq(test_run_ocasim(plain, &o1, &e1), 0);
  ck_assert_int_eq(test_run_ocasim(with, &o2, &e2), 0);
  ck_assert_int_eq(test_run_ocasim(quiet, &o3, &e3), 0);
  ck_assert_str_eq(e1, "");
  ck_assert_str_eq(e3, "");
  ck_assert_str_eq(o1, o2);
  ck_assert_str_eq(o1, o3);
  ck_assert_msg(strstr(e2, "ocasim run scenarios/rome-400g-nic-ktls.yaml: ") && strstr(e2, "simulated s/s, ETA") &&
                    strstr(e2, "of 0.500 simulated s (100 %)") && !strchr(e2, '\r'),
                "%s", e2);
  const char *cap[] = { "capacity", "scenarios/rome-400g-nic-ktls.yaml", "--progress", NULL };
  g_autofree char *o4 = NULL, *e4 = NULL;
  ck_assert_int_eq(test_run_ocasim(cap, &o4, &e4), 0);
  ck_assert_msg(strstr(e4, "5 of 5 criteria (100 %)") && strstr(e4, "criteria/s, ETA"), "%s", e4);
}
END_TEST

/* Under a pseudo-terminal (script -qec) progress appears on stderr by itself, rewritten in
 * place and erased at the end; --quiet silences it. */
START_TEST(test_progress_on_terminal)
{
  g_autofree char *script = test_find_program("script", "test_progress_on_terminal");
  if (!script) return;
  const char *bin = g_getenv("OCASIM_BIN");
  for (int quiet = 0; quiet < 2; quiet++) {
    /* stdout to /dev/null: what script records is stderr alone */
    g_autofree char *cmd = g_strdup_printf("'%s' run scenarios/rome-400g-nic-ktls.yaml --duration '0.5 s' --warmup '0.1 s'%s "
                                           ">/dev/null",
                                           bin, quiet ? " --quiet" : "");
    const char *argv[] = { script, "-qec", cmd, "/dev/null", NULL };
    g_autofree char *out = NULL, *err = NULL;
    int status = -1;
    ck_assert(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_STDIN_FROM_DEV_NULL, NULL, NULL, &out, &err, &status, NULL));
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "script: %s", err);
    if (quiet) {
      ck_assert_msg(!strstr(out, "simulated s"), "--quiet on a terminal: %s", out);
    } else {
      ck_assert_msg(strstr(out, "\r\033[Kocasim run scenarios/rome-400g-nic-ktls.yaml: ") && strstr(out, "ETA") &&
                        g_str_has_suffix(out, "\r\033[K"),
                    "%s", out);
    }
  }
}
END_TEST

/* -v shows info, -vv debug, G_MESSAGES_DEBUG as in GLib; --log NAME:LEVEL the events of one
 * component; none of them changes the results. */
START_TEST(test_log_levels_and_traces)
{
  const char *quiet[] = { "run", SHORT_RUN, NULL };
  const char *vv[] = { "run", SHORT_RUN, "-vv", NULL };
  const char *trace[] = { "run", SHORT_RUN, "--log", "nvme0:info", NULL };
  const char *dbg_env[] = { "G_MESSAGES_DEBUG=ocasim-models", NULL };
  const char *log_env[] = { "OCASIM_LOG=requests:debug", NULL };
  g_autofree char *o1 = NULL, *e1 = NULL, *o2 = NULL, *e2 = NULL, *o3 = NULL, *e3 = NULL, *o4 = NULL, *e4 = NULL, *o5 = NULL,
                  *e5 = NULL;
  ck_assert_int_eq(run_env(quiet, NULL, &o1, &e1), 0);
  ck_assert_int_eq(run_env(vv, NULL, &o2, &e2), 0);
  ck_assert_int_eq(run_env(trace, NULL, &o3, &e3), 0);
  ck_assert_int_eq(run_env(quiet, dbg_env, &o4, &e4), 0);
  ck_assert_int_eq(run_env(quiet, log_env, &o5, &e5), 0);
  ck_assert_str_eq(e1, "");
  ck_assert_msg(strstr(e2, "ocasim-models-DEBUG") && strstr(e2, "72 resources"), "%s", e2);
  /* -v: info only */
  const char *v1[] = { "run", SHORT_RUN, "-v", NULL };
  g_autofree char *o0 = NULL, *e0 = NULL;
  ck_assert_int_eq(run_env(v1, NULL, &o0, &e0), 0);
  ck_assert_msg(strstr(e0, "ocasim-cli-INFO") && strstr(e0, "rome-400g-nic-ktls.yaml: loaded with 0 overrides") &&
                    !strstr(e0, "DEBUG"),
                "%s", e0);
  ck_assert_str_eq(o0, o1);
  ck_assert_msg(strstr(e4, "ocasim-models-DEBUG") && strstr(e4, "72 resources"), "%s", e4);
  /* nvme0 at info: one line per completed request that read from nvme0, none from other drives */
  ck_assert_msg(strstr(e3, "ocasim-sim-") && strstr(e3, " nvme0: request ") && strstr(e3, ") done, latency "), "%.400s", e3);
  ck_assert_msg(!strstr(e3, "gets a slot") && !strstr(e3, " nvme1: ") && !strstr(e3, "72 resources"), "%.400s", e3);
  ck_assert_msg(strstr(e5, " requests: request ") && strstr(e5, "gets a slot"), "%.400s", e5);
  ck_assert_str_eq(o1, o2);
  ck_assert_str_eq(o1, o3);
  ck_assert_str_eq(o1, o5);
  /* a queueing network: the stations by name */
  const char *qplain[] = { "run", "scenarios/jackson-tandem.yaml", "--duration", "200 s", "--warmup", "10 s", NULL };
  const char *qtrace[] = { "run", "scenarios/jackson-tandem.yaml", "--duration", "200 s", "--warmup", "10 s", "--log", "B:info",
                           NULL };
  g_autofree char *q1 = NULL, *qe1 = NULL, *q2 = NULL, *qe2 = NULL;
  ck_assert_int_eq(run_env(qplain, NULL, &q1, &qe1), 0);
  ck_assert_int_eq(run_env(qtrace, NULL, &q2, &qe2), 0);
  ck_assert_str_eq(q1, q2);
  ck_assert_msg(strstr(qe2, " B: job ") && strstr(qe2, " departs\n") && !strstr(qe2, " A: job "), "%.300s", qe2);
  /* a bad filter is bad input, before anything runs */
  const char *bad[] = { "run", SHORT_RUN, "--log", "nvme0:loud", NULL };
  g_autofree char *o6 = NULL, *e6 = NULL;
  ck_assert_int_eq(run_env(bad, NULL, &o6, &e6), 2);
  ck_assert_msg(strstr(e6, "--log 'nvme0:loud': unknown level 'loud'"), "%s", e6);
  /* a name that is no component of the built model is bad input too, never a silent no-op:
   * the option, the name, the nearest component and the list */
  const char *typo[] = { "run", SHORT_RUN, "--log", "requests:info,nvme:debug", NULL };
  const char *bogus_env[] = { "OCASIM_LOG=zzz:debug", NULL };
  const char *qtypo[] = { "run", "scenarios/jackson-tandem.yaml", "--log", "C", NULL };
  g_autofree char *o7 = NULL, *e7 = NULL, *o8 = NULL, *e8 = NULL, *o9 = NULL, *e9 = NULL;
  ck_assert_int_eq(run_env(typo, NULL, &o7, &e7), 2);
  ck_assert_msg(strstr(e7,
                       "--log 'requests:info,nvme:debug': 'nvme' is not a component of this scenario (did you mean 'nvme0'?); "
                       "components: all, requests, ") &&
                    strstr(e7, " dram.node0, ") && strstr(e7, " more"),
                "%s", e7);
  ck_assert_str_eq(o7, "");
  ck_assert_int_eq(run_env(quiet, bogus_env, &o8, &e8), 2);
  ck_assert_msg(strstr(e8, "OCASIM_LOG='zzz:debug': 'zzz' is not a component of this scenario; components: all, requests, "),
                "%s", e8);
  ck_assert_int_eq(run_env(qtypo, NULL, &o9, &e9), 2);
  ck_assert_msg(
      strstr(e9, "--log 'C': 'C' is not a component of this scenario (did you mean 'A'?); components: all, jobs, A, B\n"), "%s",
      e9);
}
END_TEST

/* A paced run whose measured time is under a quarter of workload.segment_duration warns on
 * stderr (few, large fetches: a noisy throughput) and leaves the results as they are; at a
 * quarter or more, saturated, or with Poisson arrivals it says nothing. */
START_TEST(test_short_paced_run_warns)
{
  /* measured 0.4 s: the boundary is a 1.6 s segment */
  const char *longseg[] = { "run", SHORT_RUN, "--set", "workload.offered=100 Gb/s", "--set", "workload.segment_duration=1.7 s",
                            NULL };
  const char *edge[] = {
    "run", SHORT_RUN, "--set", "workload.offered=100 Gb/s", "--set", "workload.segment_duration=1.6 s", NULL
  };
  const char *sat[] = { "run", SHORT_RUN, "--set", "workload.segment_duration=60 s", NULL };
  const char *poisson[] = { "run", SHORT_RUN, "--set", "workload.offered=100 Gb/s", "--set", "workload.arrivals=poisson", NULL };
  g_autofree char *o1 = NULL, *e1 = NULL, *o2 = NULL, *e2 = NULL, *o3 = NULL, *e3 = NULL, *o4 = NULL, *e4 = NULL;
  ck_assert_int_eq(run_env(longseg, NULL, &o1, &e1), 0);
  ck_assert_msg(strstr(e1, "ocasim: warning: the measured time (duration - warmup: 0.4 s) is 0.24 of workload.segment_duration "
                           "(1.7 s): a paced client fetches a segment in only that share of the run") &&
                    strstr(e1, "run at least 0.525 s (0.25 segments)"),
                "%s", e1);
  ck_assert_msg(strstr(o1, "throughput:"), "%.200s", o1);
  ck_assert_int_eq(run_env(edge, NULL, &o2, &e2), 0);
  ck_assert_str_eq(e2, "");
  ck_assert_int_eq(run_env(sat, NULL, &o3, &e3), 0);
  ck_assert_str_eq(e3, "");
  ck_assert_int_eq(run_env(poisson, NULL, &o4, &e4), 0);
  ck_assert_str_eq(e4, "");
}
END_TEST

/* explain writes table or json: its --help offers only those (it listed csv, which --format
 * then refused), and a csv format or .csv output is a usage error naming the two (exit 2). */
START_TEST(test_explain_formats_in_help)
{
  const char *help[] = { "explain", "--help", NULL };
  const char *bound_help[] = { "bound", "--help", NULL };
  const char *csv[] = { "explain", "scenarios/rome-400g-nic-ktls.yaml", "-f", "csv", NULL };
  const char *out_csv[] = { "explain", "scenarios/rome-400g-nic-ktls.yaml", "-o", "explain-refused.csv", NULL };
  g_autofree char *h = NULL, *he = NULL, *b = NULL, *be = NULL, *o1 = NULL, *e1 = NULL, *o2 = NULL, *e2 = NULL;
  ck_assert_int_eq(run_env(help, NULL, &h, &he), 0);
  ck_assert_msg(strstr(h, "Output format: table (default) or json\n") && !strstr(h, "csv"), "%s", h);
  ck_assert_int_eq(run_env(bound_help, NULL, &b, &be), 0);
  ck_assert_msg(strstr(b, "Output format: table (default), json or csv\n"), "%s", b);
  /* --set's example names an appliance key beside a queueing-network one (it gave only
   * stations[0].servers, a key no appliance scenario has) */
  ck_assert_msg(strstr(b, "e.g. nics[0].count=2 or stations[0].servers=2"), "%s", b);
  ck_assert_int_eq(run_env(csv, NULL, &o1, &e1), 2);
  ck_assert_str_eq(e1, "ocasim: --format: 'csv' is not one of table, json\n");
  ck_assert_int_eq(run_env(out_csv, NULL, &o2, &e2), 2);
  ck_assert_str_eq(e2, "ocasim: -o/--output 'explain-refused.csv': the extension of another format; this command writes table "
                       "or json (.txt, .json): give --format\n");
  ck_assert(!g_file_test("explain-refused.csv", G_FILE_TEST_EXISTS));
}
END_TEST

/* validate's --duration, --warmup and --reps say their defaults, and that 0 means them (0 was
 * taken without a word: `validate --quick --duration 0` ran 1 s windows). */
START_TEST(test_validate_help_defaults)
{
  const char *help[] = { "validate", "--help", NULL };
  g_autofree char *h = NULL, *he = NULL;
  ck_assert_int_eq(run_env(help, NULL, &h, &he), 0);
  g_autofree char *d =
      g_strdup_printf("(default, or 0: %g s with --quick, else %g s)\n", VAL_QUICK_DURATION_S, VAL_FULL_DURATION_S);
  g_autofree char *w = g_strdup_printf("(default, or 0: %g s with --quick, else %g s)\n", VAL_QUICK_WARMUP_S, VAL_FULL_WARMUP_S);
  g_autofree char *r = g_strdup_printf("(default, or 0: %d with --quick, else %d)\n", VAL_QUICK_REPS, VAL_FULL_REPS);
  ck_assert_msg(strstr(h, "Measured window per repetition, a time: \"2 s\", \"500 ms\", \"2 min\"; a bare number is seconds "
                          "(default, or 0: 1 s with --quick, else 3 s)\n") &&
                    strstr(h, d),
                "%s", h);
  ck_assert_msg(strstr(h, "Load before each window, a time: ") && strstr(h, w), "%s", h);
  ck_assert_msg(strstr(h, "Repetitions per configuration, >= 3 for a spread ") && strstr(h, r), "%s", h);
}
END_TEST

/* capacity's latency check runs the DES at offered loads, paced: too short a run warns as run
 * does, even for a saturate scenario (its p99 then varies from seed to seed: 12.3 ms at 346 Gb/s
 * with 0.25 s measured against 20.3 ms with 1.8 s); long enough or Poisson, nothing. */
START_TEST(test_short_paced_capacity_warns)
{
  const char *sat[] = { "capacity", "scenarios/rome-400g-nic-ktls.yaml", "--duration", "0.3 s", "--warmup", "0.05 s", NULL };
  const char *edge[] = { "capacity", "scenarios/rome-400g-nic-ktls.yaml", "--duration", "0.3 s", "--warmup", "0.05 s",
                         "--set",    "workload.segment_duration=1 s",     NULL };
  const char *poisson[] = { "capacity", "scenarios/rome-400g-nic-ktls.yaml", "--duration", "0.3 s", "--warmup", "0.05 s",
                            "--set",    "workload.arrivals=poisson",         NULL };
  g_autofree char *o1 = NULL, *e1 = NULL, *o2 = NULL, *e2 = NULL, *o3 = NULL, *e3 = NULL;
  ck_assert_int_eq(run_env(sat, NULL, &o1, &e1), 0);
  ck_assert_msg(strstr(e1, "ocasim: warning: the measured time (duration - warmup: 0.25 s) is 0.042 of workload.segment_duration "
                           "(6 s)") &&
                    strstr(e1, "(the runs of capacity's latency check: its p99 varies as much)\n"),
                "%s", e1);
  ck_assert_msg(strstr(o1, "capacity:"), "%.200s", o1);
  ck_assert_int_eq(run_env(edge, NULL, &o2, &e2), 0); /* 0.25 s of a 1 s segment: a quarter */
  ck_assert_str_eq(e2, "");
  ck_assert_int_eq(run_env(poisson, NULL, &o3, &e3), 0);
  ck_assert_str_eq(e3, "");
}
END_TEST

/* GOption takes a short option's value from the next argument only: "-j1" and "-fjson" are
 * unknown options, and the message says how to write them (bad input, exit 2); "-j 1" works. */
START_TEST(test_attached_short_value)
{
  const char *j1[] = { "sweep", "-j1", "tests/data/sweep/small-bound.yaml", NULL };
  const char *fjson[] = { "run", "-fjson", "scenarios/md1.yaml", NULL };
  const char *unknown[] = { "run", "-Zx", "scenarios/md1.yaml", NULL };
  const char *spaced[] = { "run", "-f", "json", "scenarios/md1.yaml", "--duration", "2000 s", "--warmup", "100 s", NULL };
  g_autofree char *o1 = NULL, *e1 = NULL, *o2 = NULL, *e2 = NULL, *o3 = NULL, *e3 = NULL, *o4 = NULL, *e4 = NULL;
  ck_assert_int_eq(run_env(j1, NULL, &o1, &e1), 2);
  ck_assert_msg(strstr(e1, "Unknown option -j1: a short option's value is the next argument (-j N, here -j 1) or write --jobs=1"),
                "%s", e1);
  ck_assert_int_eq(run_env(fjson, NULL, &o2, &e2), 2);
  ck_assert_msg(strstr(e2, "Unknown option -fjson: a short option's value is the next argument (-f FMT, here -f json) or write "
                           "--format=json"),
                "%s", e2);
  ck_assert_int_eq(run_env(unknown, NULL, &o3, &e3), 2); /* no such short option: the plain message */
  ck_assert_msg(strstr(e3, "Unknown option -Zx\n"), "%s", e3);
  ck_assert_int_eq(run_env(spaced, NULL, &o4, &e4), 0);
  ck_assert_msg(g_str_has_prefix(o4, "{"), "%.100s", o4);
}
END_TEST

/* -o FILE: the same bytes as stdout, the format from --format or the extension, written by a
 * rename (no temporary left behind); an unwritable FILE is bad input before anything runs. */
START_TEST(test_output_file)
{
  g_autofree char *dir = g_dir_make_tmp("ocasim-output-XXXXXX", NULL);
  ck_assert_ptr_nonnull(dir);
  g_autofree char *pj = g_build_filename(dir, "r.json", NULL), *pc = g_build_filename(dir, "r.csv", NULL);
  g_autofree char *pt = g_build_filename(dir, "r.txt", NULL), *pm = g_build_filename(dir, "r.md", NULL);
  const char *to_stdout[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", "--format", "json", NULL };
  const char *by_ext[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", "-o", pj, NULL };
  const char *csv_ext[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", "--output", pc, NULL };
  const char *forced[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", "-o", pt, "--format", "csv", NULL };
  const char *wrong[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", "-o", pm, NULL };
  g_autofree char *o0 = NULL, *e0 = NULL, *o1 = NULL, *e1 = NULL, *o2 = NULL, *e2 = NULL, *o3 = NULL, *e3 = NULL, *o4 = NULL,
                  *e4 = NULL;
  ck_assert_int_eq(test_run_ocasim(to_stdout, &o0, &e0), 0);
  ck_assert_int_eq(test_run_ocasim(by_ext, &o1, &e1), 0);
  ck_assert_int_eq(test_run_ocasim(csv_ext, &o2, &e2), 0);
  ck_assert_int_eq(test_run_ocasim(forced, &o3, &e3), 0);
  ck_assert_int_eq(test_run_ocasim(wrong, &o4, &e4), 2);
  ck_assert_str_eq(o1, "");
  ck_assert_msg(strstr(e4, "--output") && strstr(e4, "give --format"), "%s", e4);
  g_autofree char *fj = NULL, *fc = NULL, *ft = NULL;
  ck_assert(g_file_get_contents(pj, &fj, NULL, NULL));
  ck_assert(g_file_get_contents(pc, &fc, NULL, NULL));
  ck_assert(g_file_get_contents(pt, &ft, NULL, NULL));
  ck_assert_str_eq(fj, o0);
  ck_assert(g_str_has_prefix(fc, "scenario,mode,seed,"));
  ck_assert_str_eq(fc, ft);
  /* the other commands that print results */
  g_autofree char *pr = g_build_filename(dir, "ref.txt", NULL), *ps = g_build_filename(dir, "keys.md", NULL);
  g_autofree char *pk = g_build_filename(dir, "check.json", NULL), *pq = g_build_filename(dir, "mm1.csv", NULL);
  const char *ref[] = { "reference", "-o", pr, NULL };
  const char *sch[] = { "schema", "-o", ps, NULL };
  const char *chk[] = { "check", "scenarios/mm1.yaml", "-o", pk, NULL };
  const char *qn[] = { "run", "scenarios/mm1.yaml", "--duration", "2000 s", "--warmup", "100 s", "-o", pq, NULL };
  const char *cap[] = { "capacity", "scenarios/rome-400g-nic-ktls.yaml", "-o", pj, NULL };
  const char *const *more[] = { ref, sch, chk, qn, cap };
  const char *paths[] = { pr, ps, pk, pq, pj };
  const char *starts[] = { "Bound mode vs published", "|", "{\n  \"ocasim_version\"",
                           "station,metric,mean,ci95,theory,response_p50_s,response_p99_s,drops_per_s,ocasim_version\n",
                           "{\n  \"ocasim_version\"" };
  for (size_t i = 0; i < G_N_ELEMENTS(more); i++) {
    g_autofree char *o = NULL, *e = NULL, *f = NULL;
    ck_assert_int_eq(test_run_ocasim(more[i], &o, &e), 0);
    ck_assert_msg(!strcmp(o, ""), "%s -o: stdout %s", more[i][0], o);
    ck_assert(g_file_get_contents(paths[i], &f, NULL, NULL));
    ck_assert_msg(strstr(f, starts[i]), "%s -o: %.200s", more[i][0], f);
  }
  /* the directory holds only what was asked for: no temporary file left behind */
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  int n = 0;
  const char *name;
  while ((name = g_dir_read_name(d))) {
    ck_assert_msg(!strchr(name, '~') && !strstr(name, ".tmp") && strlen(name) < 12, "left behind: %s", name);
    n++;
  }
  ck_assert_int_eq(n, 7);
  const char *nodir[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", "-o", "no/such/dir/r.json", NULL };
  g_autofree char *o5 = NULL, *e5 = NULL;
  ck_assert_int_eq(test_run_ocasim(nodir, &o5, &e5), 2);
  ck_assert_msg(strstr(e5, "--output 'no/such/dir/r.json': no directory"), "%s", e5);
  /* an extension that names no format is refused, never written as a table; the known ones
   * are matched whatever their case; --format decides over any extension */
  g_autofree char *px = g_build_filename(dir, "r.xml", NULL), *pJ = g_build_filename(dir, "r.JSON", NULL);
  g_autofree char *pC = g_build_filename(dir, "r.Csv", NULL), *pxf = g_build_filename(dir, "f.xml", NULL);
  const char *xml[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", "-o", px, NULL };
  const char *refxml[] = { "reference", "-o", px, NULL };
  const char *upper[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", "-o", pJ, NULL };
  const char *mixed[] = { "run", "scenarios/md1.yaml", "-q", "-o", pC, NULL };
  const char *xml_as_json[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", "-f", "json", "-o", pxf, NULL };
  g_autofree char *o6 = NULL, *e6 = NULL, *o7 = NULL, *e7 = NULL, *o8 = NULL, *e8 = NULL, *o9 = NULL, *e9 = NULL, *o10 = NULL,
                  *e10 = NULL, *fJ = NULL, *fC = NULL, *fx = NULL;
  ck_assert_int_eq(test_run_ocasim(xml, &o6, &e6), 2);
  ck_assert_msg(strstr(e6, "-o/--output '") && strstr(e6, "r.xml': unknown extension; this command writes table, json or csv"),
                "%s", e6);
  ck_assert(!g_file_test(px, G_FILE_TEST_EXISTS));
  ck_assert_int_eq(test_run_ocasim(refxml, &o7, &e7), 2);
  ck_assert_msg(strstr(e7, "-o/--output '") && strstr(e7, "r.xml': this command writes text only"), "%s", e7);
  ck_assert_int_eq(test_run_ocasim(upper, &o8, &e8), 0);
  ck_assert(g_file_get_contents(pJ, &fJ, NULL, NULL));
  ck_assert_msg(g_str_has_prefix(fJ, "{\n  \"ocasim_version\""), "%.100s", fJ);
  ck_assert_int_eq(test_run_ocasim(mixed, &o9, &e9), 0);
  ck_assert(g_file_get_contents(pC, &fC, NULL, NULL));
  ck_assert_msg(g_str_has_prefix(fC, "scenario,seed,overrides,station,metric,"), "%.100s", fC);
  ck_assert_int_eq(test_run_ocasim(xml_as_json, &o10, &e10), 0);
  ck_assert(g_file_get_contents(pxf, &fx, NULL, NULL));
  ck_assert_msg(g_str_has_prefix(fx, "{\n  \"ocasim_version\""), "%.100s", fx);
  g_remove(pJ);
  g_remove(pC);
  g_remove(pxf);
  const char *files[] = { pj, pc, pt, pr, ps, pk, pq };
  for (size_t i = 0; i < G_N_ELEMENTS(files); i++) g_remove(files[i]);
  g_rmdir(dir);
}
END_TEST

/* -o onto a file that is not a regular one is written in place, never replaced: a FIFO (here:
 * a reader holds it open) stays a FIFO and gets the result, as /dev/null would (-o /dev/null as
 * root used to leave a regular file at /dev/null); a symbolic link stays a link and its target
 * holds the result; fit --json goes the same way. */
START_TEST(test_output_special_files)
{
  g_autofree char *dir = g_dir_make_tmp("ocasim-output-XXXXXX", NULL);
  ck_assert_ptr_nonnull(dir);
  g_autofree char *fifo = g_build_filename(dir, "fifo", NULL), *link = g_build_filename(dir, "link.json", NULL);
  g_autofree char *target = g_build_filename(dir, "target.json", NULL);
  ck_assert_int_eq(mkfifo(fifo, 0600), 0);
  int rd = open(fifo, O_RDONLY | O_NONBLOCK); /* a reader, so that the writer's open does not wait */
  ck_assert_int_ge(rd, 0);
  const char *to_stdout[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", "-f", "csv", NULL };
  const char *to_fifo[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", "-f", "csv", "-o", fifo, NULL };
  g_autofree char *o0 = NULL, *e0 = NULL, *o1 = NULL, *e1 = NULL, *o2 = NULL, *e2 = NULL;
  ck_assert_int_eq(test_run_ocasim(to_stdout, &o0, &e0), 0);
  ck_assert_int_eq(test_run_ocasim(to_fifo, &o1, &e1), 0);
  struct stat st;
  ck_assert_int_eq(lstat(fifo, &st), 0);
  ck_assert_msg(S_ISFIFO(st.st_mode), "-o FIFO: replaced by a file of mode %o", (unsigned)st.st_mode);
  g_autoptr(GString) got = g_string_new(NULL);
  char buf[4096];
  for (ssize_t n; (n = read(rd, buf, sizeof buf)) > 0;) g_string_append_len(got, buf, n);
  close(rd);
  ck_assert_str_eq(got->str, o0); /* the same bytes as stdout */
  ck_assert(g_file_set_contents(target, "old", -1, NULL));
  ck_assert_int_eq(symlink("target.json", link), 0);
  const char *to_link[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", "-o", link, NULL };
  ck_assert_int_eq(test_run_ocasim(to_link, &o2, &e2), 0);
  ck_assert_int_eq(lstat(link, &st), 0);
  ck_assert_msg(S_ISLNK(st.st_mode), "-o LINK: the link was replaced by a file");
  g_autofree char *ft = NULL;
  ck_assert(g_file_get_contents(target, &ft, NULL, NULL));
  ck_assert_msg(g_str_has_prefix(ft, "{\n  \"ocasim_version\""), "%.100s", ft);
  g_remove(link);
  g_remove(target);
  g_remove(fifo);
  g_rmdir(dir);
}
END_TEST

/* -o where no file can be created (/proc takes none) fails with the path the user gave and the
 * system's reason; it named the temporary file ("cannot create /proc/x.json.WS87Y3"). */
START_TEST(test_output_unwritable_names_the_path)
{
  const char *args[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", "-o", "/proc/ocasim-test.json", NULL };
  g_autofree char *o = NULL, *e = NULL;
  ck_assert_int_eq(test_run_ocasim(args, &o, &e), 1);
  ck_assert_str_eq(o, "");
  g_autofree char *want = g_strdup_printf("ocasim: --output: cannot write '/proc/ocasim-test.json': %s\n", g_strerror(ENOENT));
  ck_assert_str_eq(e, want);
}
END_TEST

/* Help and version text that cannot be written (stdout on /dev/full: ENOSPC) exit 1 with a
 * message; they exited 0 silently (GOption's --help exits 0 itself). Into /dev/null they exit 0. */
START_TEST(test_help_write_error_fails)
{
  if (!g_file_test("/dev/full", G_FILE_TEST_EXISTS)) {
    fprintf(stderr, "test_help_write_error_fails: skipped, no /dev/full\n");
    return;
  }
  const char *bin = g_getenv("OCASIM_BIN");
  ck_assert_ptr_nonnull(bin);
  static const char *const cases[] = { "--help", "--version", "bound --help", "bound --version", "reference" };
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *full = g_strdup_printf("exec \"$0\" %s >/dev/full", cases[i]);
    g_autofree char *null = g_strdup_printf("exec \"$0\" %s >/dev/null", cases[i]);
    const char *af[] = { "/bin/sh", "-c", full, bin, NULL }, *an[] = { "/bin/sh", "-c", null, bin, NULL };
    g_autofree char *o = NULL, *e = NULL, *o2 = NULL, *e2 = NULL;
    ck_assert_msg(test_spawn(af, NULL, NULL, &o, &e) == 1, "%s >/dev/full: %s", cases[i], e);
    ck_assert_msg(strstr(e, "ocasim: ") && (strstr(e, "stdout") || strstr(e, "write error")), "%s: %s", cases[i], e);
    /* one message, not two (cli_write's "ocasim: stdout: ..." and the exit handler's) */
    ck_assert_msg(g_str_has_suffix(e, "\n") && strchr(e, '\n') == e + strlen(e) - 1, "%s: %s", cases[i], e);
    ck_assert_msg(test_spawn(an, NULL, NULL, &o2, &e2) == 0, "%s >/dev/null: %s", cases[i], e2);
    ck_assert_str_eq(e2, "");
  }
}
END_TEST

/* With a locale whose decimal separator is a comma, every number printed is the same as in the
 * C locale (LC_NUMERIC stays "C"), and the help text renders its ellipsis. */
START_TEST(test_locale_independent_numbers)
{
  g_autofree char *localedef = g_find_program_in_path("localedef");
  g_autofree char *locpath = g_dir_make_tmp("ocasim-locale-XXXXXX", NULL);
  g_autofree char *target = g_build_filename(locpath, "de_DE.UTF-8", NULL);
  const char *def[] = { localedef ? localedef : "localedef", "-i", "de_DE", "-f", "UTF-8", target, NULL };
  int status = -1;
  g_autofree char *dout = NULL, *derr = NULL;
  if (!localedef || !g_spawn_sync(NULL, (char **)def, NULL, G_SPAWN_DEFAULT, NULL, NULL, &dout, &derr, &status, NULL) ||
      !WIFEXITED(status) || WEXITSTATUS(status) > 1) { /* 1: warnings only */
    fprintf(stderr, "test_locale_independent_numbers: skipped: cannot build de_DE.UTF-8 with localedef: %s\n",
            derr ? derr : "no localedef");
    g_rmdir(locpath);
    return;
  }
  g_autofree char *lp = g_strdup_printf("LOCPATH=%s", locpath);
  /* the locale is real: locale(1) under it names a decimal comma */
  const char *probe[] = { "locale", "decimal_point", NULL };
  g_auto(GStrv) penv =
      g_environ_setenv(g_environ_setenv(g_get_environ(), "LOCPATH", locpath, TRUE), "LC_ALL", "de_DE.UTF-8", TRUE);
  g_autofree char *pout = NULL;
  ck_assert(g_spawn_sync(NULL, (char **)probe, penv, G_SPAWN_SEARCH_PATH, NULL, NULL, &pout, NULL, NULL, NULL));
  ck_assert_msg(!strcmp(pout, ",\n"), "the generated de_DE locale has the decimal point '%s'", pout);
  const char *de[] = { lp, "LC_ALL=de_DE.UTF-8", NULL };
  const char *c[] = { "LC_ALL=C", NULL };
  const char *cases[][8] = {
    { "bound", "scenarios/rome-400g-nic-ktls.yaml", "--format", "json", NULL },
    { "bound", "scenarios/rome-400g-nic-ktls.yaml", NULL },
    { "capacity", "scenarios/rome-400g-nic-ktls.yaml", "--format", "csv", NULL },
    { "run", "scenarios/mm1.yaml", "--duration", "2000.5 s", "--warmup", "100.5 s", NULL },
  };
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *o1 = NULL, *e1 = NULL, *o2 = NULL, *e2 = NULL;
    ck_assert_int_eq(run_env(cases[i], c, &o1, &e1), 0);
    ck_assert_int_eq(run_env(cases[i], de, &o2, &e2), 0);
    ck_assert_str_eq(o1, o2);
    ck_assert_msg(strchr(o1, '.'), "%s", o1);
  }
  /* setlocale(LC_ALL, ""): GOption's ellipsis in a UTF-8 locale (in plain C it is ASCII '?') */
  const char *help[] = { "bound", "--help", NULL };
  const char *cutf8[] = { "LC_ALL=C.UTF-8", NULL };
  g_autofree char *h = NULL, *he = NULL, *hd = NULL, *hde = NULL;
  ck_assert_int_eq(run_env(help, cutf8, &h, &he), 0);
  ck_assert_int_eq(run_env(help, de, &hd, &hde), 0);
  ck_assert_msg(strstr(h, "[OPTION\xe2\x80\xa6] FILE"), "%s", h);
  ck_assert_msg(strstr(hd, "\xe2\x80\xa6] FILE") && !strstr(hd, "?] FILE"), "%s", hd);
  g_autofree char *rm = g_strdup_printf("rm -rf '%s'", locpath);
  ck_assert_int_eq(system(rm), 0);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("cli_common");
  TCase *tc = tcase_create("common");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_short_options_consistent);
  tcase_add_loop_test(tc, test_offered_options, 0, G_N_ELEMENTS(OFFERS));
  tcase_add_test(tc, test_version_everywhere);
  tcase_add_test(tc, test_progress_off_terminal);
  tcase_add_test(tc, test_progress_on_terminal);
  tcase_add_test(tc, test_log_levels_and_traces);
  tcase_add_test(tc, test_attached_short_value);
  tcase_add_test(tc, test_short_paced_run_warns);
  tcase_add_test(tc, test_short_paced_capacity_warns);
  tcase_add_test(tc, test_explain_formats_in_help);
  tcase_add_test(tc, test_validate_help_defaults);
  tcase_add_test(tc, test_output_file);
  tcase_add_test(tc, test_output_special_files);
  tcase_add_test(tc, test_output_unwritable_names_the_path);
  tcase_add_test(tc, test_help_write_error_fails);
  tcase_add_test(tc, test_locale_independent_numbers);
  suite_add_tcase(s, tc);
  return test_run_suite(s);
}
