/* bench/bench_precision.c — speed and outputs of `ocasim run` at one rate precision.
 *
 * Loads the scenario as `ocasim run FILE --duration D --warmup W --rate-precision EPS` does,
 * runs the discrete-event model (appliance_des_run) and prints one line
 *     RESULT <name> eps=<EPS> sim_s=<s> cpu_s=<s> solves=<n> deferred=<n> events=<n>
 *            gbps=<Gb/s> gbps_hw=<Gb/s> p50=<ms> p50_hw=<ms> p99=<ms> p99_hw=<ms>
 *            util=<u0>,<u1>,... util_hw=<h0>,<h1>,... names=<r0>,<r1>,...
 * where cpu_s (user + system, getrusage) covers the run alone (not the loading), sim_s is
 * the simulated duration (warm-up included), *_hw are the run's 95 % half-widths (batch
 * means for throughput and utilisations, batch quantiles for p50/p99) and util the mean
 * utilisation of each resource of the demand model, in its order.  bench/precision_table.awk
 * turns the lines of several EPS into the error-speed table (bench/README.md).
 *
 * Usage: bench_precision NAME FILE DURATION WARMUP EPS [KEY=VALUE...]
 */
#include <stdio.h>
#include <sys/resource.h>
#include <gsl/gsl_errno.h>
#include "models/appliance_conf.h"
#include "models/appliance_des.h"

static double cpu_s(void)
{
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

int main(int argc, char **argv)
{
  if (argc < 6) {
    fprintf(stderr, "usage: %s NAME FILE DURATION WARMUP EPS [KEY=VALUE...]\n", argv[0]);
    return 2;
  }
  gsl_set_error_handler_off();
  g_autofree char *dur = g_strdup_printf("duration=%s", argv[3]);
  g_autofree char *warm = g_strdup_printf("warmup=%s", argv[4]);
  g_autofree char *eps = g_strdup_printf("rate_precision=%s", argv[5]);
  g_autofree const char **sets = g_new0(const char *, (gsize)argc - 1);
  sets[0] = dur;
  sets[1] = warm;
  sets[2] = eps;
  for (int i = 6; i < argc; i++) sets[i - 3] = argv[i];
  g_autofree Appliance *a = g_new0(Appliance, 1);
  AppScenarioInfo info = { 0 };
  g_autoptr(GError) err = NULL;
  if (!appliance_load_file(argv[2], sets, a, &info, &err)) {
    fprintf(stderr, "%s\n", err->message);
    return 2;
  }
  g_autoptr(DemandModel) m = demand_build(a, &err);
  if (!m) {
    fprintf(stderr, "%s\n", err->message);
    app_scenario_info_clear(&info);
    return 2;
  }

  double c0 = cpu_s();
  SimFluidResult *raw = NULL;
  AppReport *rep = appliance_des_run(a, &info, m, &raw, &err);
  double cpu = cpu_s() - c0;
  if (!rep) {
    fprintf(stderr, "%s\n", err->message);
    app_scenario_info_clear(&info);
    return 1;
  }

  g_autoptr(GString) line = g_string_new(NULL);
  g_string_append_printf(line,
                         "RESULT %s eps=%g sim_s=%.3f cpu_s=%.4f solves=%" G_GUINT64_FORMAT " deferred=%" G_GUINT64_FORMAT
                         " events=%" G_GUINT64_FORMAT " gbps=%.6f gbps_hw=%.6f p50=%.6f p50_hw=%.6f p99=%.6f p99_hw=%.6f",
                         argv[1], info.rate_precision, info.duration_s, cpu, raw->solves, raw->deferred, raw->events,
                         raw->throughput_Bps.mean * 8e-9, raw->throughput_Bps.half_width * 8e-9, raw->latency_p50_s * 1e3,
                         raw->latency_p50_hw_s * 1e3, raw->latency_p99_s * 1e3, raw->latency_p99_hw_s * 1e3);
  const char *field[] = { " util=", " util_hw=", " names=" };
  for (int f = 0; f < 3; f++) {
    g_string_append(line, field[f]);
    for (int i = 0; i < m->n_res; i++) {
      if (i) g_string_append_c(line, ',');
      if (f == 0)
        g_string_append_printf(line, "%.8f", raw->resources[i].utilization.mean);
      else if (f == 1)
        g_string_append_printf(line, "%.8f", raw->resources[i].utilization.half_width);
      else
        g_string_append(line, m->res[i].name);
    }
  }
  printf("%s\n", line->str);
  sim_fluid_result_free(raw);
  app_report_free(rep);
  app_scenario_info_clear(&info);
  return 0;
}
