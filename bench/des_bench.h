/* bench/des_bench.h — what bench_models.c and bench_precision.c share: a process's CPU time, and
 * an appliance scenario loaded as `ocasim run FILE --duration D --warmup W --set KEY=VALUE...`
 * does (appliance_load_file + demand_build). */
#ifndef BENCH_DES_BENCH_H
#define BENCH_DES_BENCH_H
#include <stdio.h>
#include <sys/resource.h>
#include <gsl/gsl_errno.h>
#include "models/appliance/loader.h"
#include "models/modes/des.h"

/* User + system CPU seconds of this process so far (getrusage). */
static inline double bench_cpu_s(void)
{
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* Loads @file into @a and @info with duration=@duration, warmup=@warmup and the @n overrides
 * @extra ("KEY=VALUE"), and builds its demand model. Errors: printed on stderr, NULL returned
 * (@info cleared). */
static inline DemandModel *bench_des_load(const char *file, const char *duration, const char *warmup, char *const *extra, int n,
                                          Appliance *a, AppScenarioInfo *info)
{
  gsl_set_error_handler_off();
  g_autofree char *dur = g_strdup_printf("duration=%s", duration);
  g_autofree char *warm = g_strdup_printf("warmup=%s", warmup);
  g_autofree const char **sets = g_new0(const char *, (gsize)n + 3);
  sets[0] = dur;
  sets[1] = warm;
  for (int i = 0; i < n; i++) sets[i + 2] = extra[i];
  g_autoptr(GError) err = NULL;
  DemandModel *m = NULL;
  if (!appliance_load_file(file, sets, a, info, &err) || !(m = demand_build(a, &err))) {
    fprintf(stderr, "%s\n", err->message);
    app_scenario_info_clear(info);
  }
  return m;
}
#endif /* BENCH_DES_BENCH_H */
