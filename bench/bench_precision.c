/* bench/bench_precision.c — speed and outputs of `ocasim run` at one rate precision.
 *
 * Loads the scenario as `ocasim run FILE --duration D --warmup W --rate-precision EPS` does,
 * runs the discrete-event model (des_run) and prints one line
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
#include "bench/des_bench.h"

int main(int argc, char **argv)
{
  if (argc < 6) {
    fprintf(stderr, "usage: %s NAME FILE DURATION WARMUP EPS [KEY=VALUE...]\n", argv[0]);
    return 2;
  }
  g_autofree char *eps = g_strdup_printf("rate_precision=%s", argv[5]);
  g_autofree char **extra = g_new0(char *, (gsize)argc - 4);
  extra[0] = eps;
  for (int i = 6; i < argc; i++) extra[i - 5] = argv[i];
  g_autofree Appliance *a = g_new0(Appliance, 1);
  AppScenarioInfo info = { 0 };
  g_autoptr(DemandModel) m = bench_des_load(argv[2], argv[3], argv[4], extra, argc - 5, a, &info);
  if (!m) return 2;
  g_autoptr(GError) err = NULL;
  double c0 = bench_cpu_s();
  SimFluidResult *raw = NULL;
  AppReport *rep = des_run(a, &info, m, &raw, &err);
  double cpu = bench_cpu_s() - c0;
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
  report_free(rep);
  app_scenario_info_clear(&info);
  return 0;
}
