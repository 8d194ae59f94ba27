/* tests/test_nvme.c — the NVMe component's IOPS ceiling (nvme[].max_iops): a drive serves at most
 * max_iops reads of io_size a second, so its ceiling is min(read, QD x io_size / latency, PCIe,
 * max_iops x io_size); derived by hand on the Genoa box (24 Intel D5-P5316: read 7 GB/s, latency
 * 110 us, QD 128, PCIe 4.0 x4), and in the bound and the DES an IOPS ceiling acts exactly as a read
 * bandwidth of the same bytes/s. Bad values are rows of tests/data/bad-inputs/INDEX. */
#include <check.h>
#include "tests/support/check_run.h"
#include <math.h>
#include <string.h>

#include "models/appliance/loader.h"
#include "models/modes/des.h"
#include "models/appliance/component.h"

#define SCEN "scenarios/genoa-400gbe-sw-ktls.yaml"

typedef struct {
  Appliance a;
  AppScenarioInfo info;
  DemandModel *m;
} Loaded;

static Loaded *load(const char *const *sets)
{
  Loaded *l = g_new0(Loaded, 1);
  GError *e = NULL;
  ck_assert_msg(appliance_load_file(SCEN, sets, &l->a, &l->info, &e), "%s", e ? e->message : "");
  l->m = demand_build(&l->a, &e);
  ck_assert_msg(l->m, "%s", e ? e->message : "");
  return l;
}

static void unload(Loaded *l)
{
  demand_free(l->m);
  app_scenario_info_clear(&l->info);
  g_free(l);
}

/* Ceiling of drive resource `name` (nvmeD), B/s. */
static double cap(const Loaded *l, const char *name)
{
  int r = demand_find(l->m, name);
  ck_assert_msg(r >= 0, "no resource %s", name);
  ck_assert_int_eq(l->m->res[r].kind, RK_NVME);
  return l->m->res[r].capacity;
}

START_TEST(test_max_iops_ceiling_by_hand)
{
  /* io_size 4 KiB: Little's law gives 128 x 4096 B / 110 us = 4.766 GB/s, below the 7 GB/s read
   * and the Gen4 x4 link, so without max_iops that is the drive's ceiling */
  const char *plain[] = { "workload.io_size=4 KiB", NULL };
  Loaded *l0 = load(plain);
  ck_assert_double_eq(l0->a.drives[0].max_iops, 0.0); /* default: no ceiling */
  ck_assert_double_eq(l0->a.drives[0].read_Bps, 7e9);
  double little = 128 * 4096 / 110e-6;
  ck_assert_double_eq_tol(cap(l0, "nvme0"), little, 1e-9 * little);
  /* 800 000 IOPS (a test value below the drive's 4.766 GB/s ceiling at 4 KiB) on group 0: 800 000 x 4096 B = 3.2768 GB/s,
   * exactly; the drives of group 1 (nvme6..11) keep Little's law */
  const char *iops[] = { "workload.io_size=4 KiB", "nvme[0].max_iops=800000", NULL };
  Loaded *l1 = load(iops);
  ck_assert_double_eq(l1->a.drives[0].max_iops, 800000);
  ck_assert_int_eq(l1->a.drives[6].group, 1);
  ck_assert_double_eq(cap(l1, "nvme0"), 800000.0 * 4096);
  ck_assert_double_eq(cap(l1, "nvme5"), 800000.0 * 4096);
  ck_assert_double_eq(cap(l1, "nvme6"), cap(l0, "nvme6"));
  /* not binding: 2 M IOPS x 4096 B = 8.2 GB/s is above Little's 4.766 GB/s: the ceiling unchanged */
  const char *loose[] = { "workload.io_size=4 KiB", "nvme[0].max_iops=2000000", NULL };
  Loaded *l2 = load(loose);
  ck_assert_double_eq(cap(l2, "nvme0"), cap(l0, "nvme0"));
  unload(l0);
  unload(l1);
  unload(l2);
  /* at the scenario's own io_size (large reads) 800 000 IOPS bind nowhere: every drive as before */
  const char *big[] = { "nvme[0].max_iops=800000", "nvme[1].max_iops=800000", "nvme[2].max_iops=800000",
                        "nvme[3].max_iops=800000", NULL };
  Loaded *b0 = load(NULL), *b1 = load(big);
  ck_assert_double_ge(b0->a.wl.io_bytes * 800000.0, 7e9);
  for (int d = 0; d < b0->a.n_drives; d++) {
    char nm[16];
    g_snprintf(nm, sizeof nm, "nvme%d", d);
    ck_assert_double_eq(cap(b1, nm), cap(b0, nm));
  }
  ck_assert_double_eq(demand_saturation_Bps(b1->m, NULL), demand_saturation_Bps(b0->m, NULL));
  unload(b0);
  unload(b1);
}
END_TEST

/* The 24 drives' settings `key`=`value` with io_size 4 KiB and a short run. */
static Loaded *load_all(const char *key, const char *value)
{
  g_autoptr(GPtrArray) s = g_ptr_array_new_with_free_func(g_free);
  g_ptr_array_add(s, g_strdup("workload.io_size=4 KiB"));
  g_ptr_array_add(s, g_strdup("duration=0.6 s"));
  g_ptr_array_add(s, g_strdup("warmup=0.1 s"));
  for (int g = 0; g < 4; g++) g_ptr_array_add(s, g_strdup_printf("nvme[%d].%s=%s", g, key, value));
  g_ptr_array_add(s, NULL);
  return load((const char *const *)s->pdata);
}

START_TEST(test_max_iops_binds_in_bound_and_des)
{
  /* 50 000 IOPS x 4096 B = 204.8 MB/s a drive: far below everything else, so the bound serves
   * 24 x 204.8 MB/s = 39.32 Gb/s with a drive as its bottleneck; a read bandwidth of 204.8 MB/s
   * instead gives the same bound and the same DES run (the DES takes its capacities from the
   * same resources) */
  Loaded *io = load_all("max_iops", "50000"), *rd = load_all("read", "204.8 MB/s");
  int bn = -1;
  double x = demand_saturation_Bps(io->m, &bn);
  ck_assert_double_eq_tol(x, 24 * 50000.0 * 4096, 1e-9 * x);
  ck_assert_int_eq(io->m->res[bn].kind, RK_NVME);
  ck_assert_double_eq_tol(demand_saturation_Bps(rd->m, NULL), x, 1e-9 * x);
  SimFluidResult *raw = NULL;
  AppReport *ri = des_run(&io->a, &io->info, io->m, &raw, NULL);
  AppReport *rr = des_run(&rd->a, &rd->info, rd->m, NULL, NULL);
  ck_assert_double_le(ri->throughput_gbps, x * 8e-9);
  ck_assert_double_eq_tol(ri->throughput_gbps, rr->throughput_gbps, 1e-6 * rr->throughput_gbps);
  /* no drive serves more than its 50 000 reads of 4 KiB a second */
  for (int i = 0; i < io->m->n_res; i++)
    if (io->m->res[i].kind == RK_NVME && io->m->res[i].drive >= 0)
      ck_assert_double_le(raw->resources[i].load.mean, 50000.0 * 4096 * (1 + 1e-9));
  sim_fluid_result_free(raw);
  report_free(ri);
  report_free(rr);
  unload(io);
  unload(rd);
}
END_TEST

static Suite *suite(void)
{
  Suite *s = suite_create("nvme");
  TCase *t = tcase_create("max_iops_by_hand");
  tcase_add_test(t, test_max_iops_ceiling_by_hand);
  suite_add_tcase(s, t);
  t = tcase_create("max_iops_bound_des");
  tcase_set_timeout(t, 60);
  tcase_add_test(t, test_max_iops_binds_in_bound_and_des);
  suite_add_tcase(s, t);
  return s;
}

int main(void)
{
  return test_run_suite(suite());
}
