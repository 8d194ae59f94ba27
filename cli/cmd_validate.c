/* cli/cmd_validate.c — `ocasim validate`: measure this host's TLS serving path,
 * calibrate the host profile and check its predictions (validate/pipeline.c). */
#include <gsl/gsl_errno.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "validate/labrun.h"
#include "validate/pipeline.h"
#include "serve/probe.h"
#include "validate/report.h"
#include "serve/util.h"

/* Scheduling priority of the runs by default: -10, above ordinary tenants (assumed); the range
 * of a nice value, -20..19 (setpriority(2)); most threads a run may use (assumed). */
#define VALIDATE_DEFAULT_NICE (-10)
#define NICE_MIN              (-20)
#define NICE_MAX              19
#define VALIDATE_MAX_THREADS  1024

/* A directory option must name a directory this process can write into before anything is
 * measured (a typo would otherwise fail minutes later); `create` makes it (and its parents). */
static gboolean usable_dir(const char *opt, const char *dir, gboolean create, GError **error)
{
  if (!*dir) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s: empty directory name", opt);
    return FALSE;
  }
  if (create && g_mkdir_with_parents(dir, 0755) != 0) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s '%s': cannot create: %s", opt, dir, g_strerror(errno));
    return FALSE;
  }
  if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s '%s': not a directory", opt, dir);
    return FALSE;
  }
  if (access(dir, W_OK | X_OK) != 0) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s '%s': not writable: %s", opt, dir, g_strerror(errno));
    return FALSE;
  }
  return TRUE;
}

/* `ocasim validate --clients`: the server here, `ocasim load` on the clients (validate/labrun.h). */
static int lab_validate(const char *prog, gboolean quick, const char *out, const char *work, const char *clients_s,
                        const char *exec, const char *client_ocasim, const char *server_addr, const char *net_filter,
                        const char *disk_filter, const char *costs, const char *platform, gboolean progress)
{
  struct in_addr a;
  if (!server_addr || inet_pton(AF_INET, server_addr, &a) != 1) {
    fprintf(stderr, "%s: --clients needs --server-addr, an IPv4 address of this host the clients reach\n", prog);
    return OCASIM_EXIT_BADINPUT;
  }
  g_auto(GStrv) clients = g_strsplit(clients_s, ",", -1);
  if (!clients[0] || !*clients[0]) {
    fprintf(stderr, "%s: --clients: no client named\n", prog);
    return OCASIM_EXIT_BADINPUT;
  }
  ValLabConfig lc = { .quick = quick,
                      .out_dir = out,
                      .work_dir = work,
                      .costs_file = costs,
                      .platform_file = platform,
                      .remote = { .clients = clients,
                                  .exec = exec,
                                  .client_ocasim = client_ocasim,
                                  .server_addr = server_addr,
                                  .net_filter = net_filter,
                                  .disk_filter = disk_filter },
                      .progress = progress };
  g_autoptr(GError) err = NULL;
  if (!val_lab_run(&lc, &err)) {
    fprintf(stderr, "%s: %s\n", prog, err->message);
    return err->code == VAL_ERROR_INVALID ? OCASIM_EXIT_BADINPUT : OCASIM_EXIT_FAILURE;
  }
  return OCASIM_EXIT_OK;
}

int cmd_validate(int argc, char **argv)
{
  gboolean quick = FALSE, pin = FALSE, no_pin = FALSE, probe_only = FALSE;
  g_autofree char *out = NULL, *work = NULL, *verify = NULL;
  g_autofree char *duration_s = NULL, *warmup_s = NULL, *reps_s = NULL, *threads_s = NULL, *seed_s = NULL, *nice_s = NULL;
  g_autofree char *load_threads_s = NULL;
  /* --clients: the lab-server calibration over a real interface (validate/labrun.h) */
  g_autofree char *clients_s = NULL, *client_exec = NULL, *client_ocasim = NULL, *server_addr = NULL, *costs = NULL,
                  *platform = NULL;
  g_autofree char *net_filter = NULL, *disk_filter = NULL;
  double duration = 0, warmup = 0;
  int reps = 0, threads = 0, seed = 1, nice = VALIDATE_DEFAULT_NICE, load_threads = 0;
  gboolean keep_nice = FALSE;
  g_autofree char *help_duration =
      g_strdup_printf("Measured window per repetition, a time: " CLI_TIME_FORMS " (default, or 0: %g s with --quick, else %g s)",
                      VAL_QUICK_DURATION_S, VAL_FULL_DURATION_S);
  g_autofree char *help_warmup =
      g_strdup_printf("Load before each window, a time: " CLI_TIME_FORMS " (default, or 0: %g s with --quick, else %g s)",
                      VAL_QUICK_WARMUP_S, VAL_FULL_WARMUP_S);
  g_autofree char *help_reps =
      g_strdup_printf("Repetitions per configuration, >= 3 for a spread (default, or 0: %d with --quick, else %d)",
                      VAL_QUICK_REPS, VAL_FULL_REPS);
  GOptionEntry entries[] = {
    { "quick", 0, 0, G_OPTION_ARG_NONE, &quick, "Short runs, fewer configurations (< 3 min on 2 cores)", NULL },
    { "probe", 0, 0, G_OPTION_ARG_NONE, &probe_only,
      "Print the host probe (CPU, hypervisor, kernel TLS per version and cipher, OpenSSL) and exit", NULL },
    { "out", 0, 0, G_OPTION_ARG_FILENAME, &out,
      "Directory for report.md, report.json, host-profile.yaml, host-scenario.yaml "
      "(default validate-out)",
      "DIR" },
    { "duration", 'd', 0, G_OPTION_ARG_STRING, &duration_s, help_duration, "TIME" },
    { "warmup", 'w', 0, G_OPTION_ARG_STRING, &warmup_s, help_warmup, "TIME" },
    { "reps", 0, 0, G_OPTION_ARG_STRING, &reps_s, help_reps, "N" },
    { "threads", 't', 0, G_OPTION_ARG_STRING, &threads_s, "Largest server/client thread count (default: CPUs)", "N" },
    { "seed", 0, 0, G_OPTION_ARG_STRING, &seed_s, "Seed of the run order (default 1)", "N" },
    { "pin", 0, 0, G_OPTION_ARG_NONE, &pin, "Pin server and client threads to disjoint CPU sets (default)", NULL },
    { "no-pin", 0, 0, G_OPTION_ARG_NONE, &no_pin,
      "Leave thread placement to the scheduler (the model then estimates co-location)", NULL },
    { "verify", 0, 0, G_OPTION_ARG_STRING, &verify, "Checks in timed runs: length (default) or sha256", "WHAT" },
    { "work-dir", 0, 0, G_OPTION_ARG_FILENAME, &work, "Where to create the served files (default: temporary)", "DIR" },
    { "nice", 0, 0, G_OPTION_ARG_STRING, &nice_s, "Scheduling priority of the runs (default -10 where permitted)", "N" },
    { "keep-nice", 0, 0, G_OPTION_ARG_NONE, &keep_nice, "Do not change the scheduling priority", NULL },
    { "load-threads", 0, 0, G_OPTION_ARG_STRING, &load_threads_s,
      "Bandwidth-loading threads of the DRAM loaded-latency probe (default: CPUs - 1, at least 1)", "N" },
    { "clients", 0, 0, G_OPTION_ARG_STRING, &clients_s,
      "Load generators on these machines instead of loopback: names for --client-exec (README: lab calibration)",
      "HOST[,HOST...]" },
    { "client-exec", 0, 0, G_OPTION_ARG_STRING, &client_exec,
      "Command prefix that runs a program on a client, {} its name (default 'ssh {}'; tests: 'ip netns exec {}')", "CMD" },
    { "client-ocasim", 0, 0, G_OPTION_ARG_STRING, &client_ocasim, "The ocasim binary on the clients (default ocasim)", "PATH" },
    { "server-addr", 0, 0, G_OPTION_ARG_STRING, &server_addr,
      "IPv4 address of this host the server binds and the clients connect to (required with --clients)", "ADDR" },
    { "net-if", 0, 0, G_OPTION_ARG_STRING, &net_filter,
      "Interfaces carrying the clients' traffic, name prefixes (default: all but lo)", "IF[,IF...]" },
    { "disk-if", 0, 0, G_OPTION_ARG_STRING, &disk_filter, "Drives whose reads count, name prefixes (default nvme)",
      "DEV[,DEV...]" },
    { "costs", 0, 0, G_OPTION_ARG_FILENAME, &costs, "host-costs.yaml of an earlier validate, put into host-platform.yaml",
      "FILE" },
    { "platform", 0, 0, G_OPTION_ARG_FILENAME, &platform,
      "With --clients: predict from this platform file (an edited host-platform.yaml) instead of sysfs", "FILE" },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  CliCommon common;
  g_autoptr(GOptionContext) ctx =
      cli_context_new("- measure the real TLS serving path and calibrate the model", NULL, &common, CLI_OPT_PROGRESS);
  g_option_context_add_main_entries(ctx, entries, NULL);
  if (!cli_parse_no_args(ctx, &common, &argc, &argv)) return OCASIM_EXIT_BADINPUT;
  g_autoptr(GError) err = NULL;
  if (probe_only) { /* what the kTLS check VM reads (scripts/ktls/checks.sh) */
    g_autoptr(ValProbe) p = val_probe_run();
    g_autoptr(GString) o = g_string_new(NULL);
    g_string_append_printf(o, "cpu: %s, %d CPUs\nhypervisor: %s\nemulated cpu: %s\nkernel: %s\nopenssl: %s\n", p->cpu_model,
                           p->cpus_online, p->hypervisor[0] ? val_probe_hypervisor_name(p) : "none",
                           p->emulated ? "yes (timings not usable for calibration)" : "no", p->kernel, p->openssl_version);
    val_probe_ktls_print(&p->ktls, o);
    fputs(o->str, stdout);
    return OCASIM_EXIT_OK;
  }
  if (!cli_seconds_option("--duration", duration_s, 0, FALSE, CLI_MAX_SECONDS, "0: the mode's default", &duration, &err) ||
      !cli_seconds_option("--warmup", warmup_s, 0, FALSE, CLI_MAX_SECONDS, "0: the mode's default", &warmup, &err) ||
      !cli_int_option("--reps", reps_s, 0, VAL_MAX_REPS, "0: the mode's default", &reps, &err) ||
      !cli_int_option("--threads", threads_s, 0, VALIDATE_MAX_THREADS, "0: the CPUs", &threads, &err) ||
      !cli_int_option("--seed", seed_s, 0, G_MAXINT, NULL, &seed, &err) ||
      !cli_int_option("--nice", nice_s, NICE_MIN, NICE_MAX, NULL, &nice, &err) ||
      !cli_int_option("--load-threads", load_threads_s, 0, VAL_LAT_MAX_THREADS, "0: the CPUs - 1", &load_threads, &err)) {
    fprintf(stderr, "%s: %s\n", argv[0], err->message);
    return OCASIM_EXIT_BADINPUT;
  }
  if (pin && no_pin) {
    fprintf(stderr, "%s: --pin and --no-pin exclude each other\n", argv[0]);
    return OCASIM_EXIT_BADINPUT;
  }
  if (nice_s && keep_nice) { /* --keep-nice would drop the --nice asked for without a word */
    fprintf(stderr, "%s: --nice and --keep-nice exclude each other\n", argv[0]);
    return OCASIM_EXIT_BADINPUT;
  }
  ValVerify v = VAL_VERIFY_LENGTH;
  if (verify && !strcmp(verify, "sha256"))
    v = VAL_VERIFY_ALL;
  else if (verify && strcmp(verify, "length")) {
    fprintf(stderr, "%s: --verify: expected 'length' or 'sha256', got '%s'\n", argv[0], verify);
    return OCASIM_EXIT_BADINPUT;
  }
  if (platform && !clients_s) {
    fprintf(stderr, "%s: --platform is for --clients runs (the loopback run writes host-platform.yaml)\n", argv[0]);
    return OCASIM_EXIT_BADINPUT;
  }
  /* last: --out is created here, so bad options before it leave no directory behind */
  if ((work && !usable_dir("--work-dir", work, FALSE, &err)) || !usable_dir("--out", out ? out : "validate-out", TRUE, &err)) {
    fprintf(stderr, "%s: %s\n", argv[0], err->message);
    return OCASIM_EXIT_BADINPUT;
  }
  gsl_set_error_handler_off();
  if (clients_s)
    return lab_validate(argv[0], quick, out ? out : "validate-out", work, clients_s, client_exec, client_ocasim, server_addr,
                        net_filter, disk_filter, costs, platform, !common.quiet && (common.progress || isatty(STDERR_FILENO)));
  ValValidateConfig cfg = { .quick = quick,
                            .out_dir = out ? out : "validate-out",
                            .work_dir = work,
                            .warmup_s = warmup,
                            .duration_s = duration,
                            .reps = reps,
                            .max_threads = threads,
                            .seed = (guint32)seed,
                            .pin = !no_pin,
                            .verify = v,
                            .progress = !common.quiet && (common.progress || isatty(STDERR_FILENO)),
                            .nice = nice,
                            .keep_nice = keep_nice,
                            .load_threads = load_threads };
  ValReport *rep = NULL;
  gboolean ok = val_validate_run(&cfg, &rep, &err);
  g_autoptr(GError) werr = NULL;
  gboolean wrote = rep && rep->probe && val_report_write_all(rep, &werr);
  if (rep && rep->probe) val_report_print_summary(rep, stdout);
  val_report_free(rep);
  if (!ok) {
    fprintf(stderr, "%s: %s\n", argv[0], err->message);
    return OCASIM_EXIT_FAILURE;
  }
  if (!wrote) {
    fprintf(stderr, "%s: %s\n", argv[0], werr ? werr->message : "no report");
    return OCASIM_EXIT_FAILURE;
  }
  return OCASIM_EXIT_OK;
}
