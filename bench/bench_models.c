/* bench/bench_models.c — speed of `ocasim run` on an appliance scenario.
 *
 * Loads the scenario as `ocasim run FILE --duration D --warmup W` does
 * (appliance_load_file + demand_build), runs the discrete-event model
 * (des_run, the same call `ocasim run` makes; only the report
 * printing is left out) and prints one line
 *     RESULT <name> sim_s=<s> wall_s=<s> cpu_s=<s> rss_mib=<MiB> events=<n> requests=<n>
 *            classes=<n> resources=<n> concurrency=<n>
 * where wall_s and cpu_s (user + system, getrusage) cover the run alone
 * (not the loading), sim_s is the simulated duration (warm-up included: the
 * run simulates all of it), and rss_mib the peak resident set of the whole
 * process (getrusage ru_maxrss; one process per scenario, so it is that
 * scenario's).  Further KEY=VALUE arguments override scenario keys, as
 * `ocasim run --set KEY=VALUE` does.
 *
 * Usage: bench_models NAME FILE DURATION WARMUP [KEY=VALUE...]
 *        e.g. 800G scen.yaml "2 s" "0.1 s" "workload.request_size=4 KiB"
 */
#include <time.h>
#include "bench/des_bench.h"

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
  if (argc < 5) {
    fprintf(stderr, "usage: %s NAME FILE DURATION WARMUP [KEY=VALUE...]\n", argv[0]);
    return 2;
  }
  g_autofree Appliance *a = g_new0(Appliance, 1);
  AppScenarioInfo info = { 0 };
  g_autoptr(DemandModel) m = bench_des_load(argv[2], argv[3], argv[4], argv + 5, argc - 5, a, &info);
  if (!m) return 2;
  g_autoptr(GError) err = NULL;
  g_autoptr(SimFluidSpec) spec = des_spec(a, &info, m);

  double w0 = now_s(), c0 = bench_cpu_s();
  SimFluidResult *raw = NULL;
  AppReport *rep = des_run(a, &info, m, &raw, &err);
  double wall = now_s() - w0, cpu = bench_cpu_s() - c0;
  if (!rep) {
    fprintf(stderr, "%s\n", err->message);
    app_scenario_info_clear(&info);
    return 1;
  }

  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("RESULT %s sim_s=%.3f wall_s=%.4f cpu_s=%.4f rss_mib=%.1f events=%" G_GUINT64_FORMAT " requests=%" G_GUINT64_FORMAT
         " classes=%u resources=%u concurrency=%d gbps=%.1f\n",
         argv[1], info.duration_s, wall, cpu, (double)ru.ru_maxrss / 1024.0, raw->events, raw->requests_done, spec->classes->len,
         spec->resources->len, spec->concurrency, rep->throughput_gbps);
  sim_fluid_result_free(raw);
  report_free(rep);
  app_scenario_info_clear(&info);
  return 0;
}
