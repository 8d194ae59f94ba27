/* tests/test_planner.c — what a capacity planner asks beyond bytes (issue 14): `check` refuses
 * what `run` refuses, located. */
#include <check.h>
#include "tests/support/check_run.h"
#include "tests/support/ocasim_run.h"
#include <math.h>
#include <string.h>

#include "models/appliance_conf.h"
#include "models/appliance_des.h"
#include "models/model_error.h"

START_TEST(test_check_refuses_what_run_refuses)
{
  /* 230.9 Gb/s x 1e6 s / 2 MiB = 1.38e10 requests > 5e9: run refuses it, so check must, at duration (line 5, col 11) */
  const char *file = "tests/data/planner/long_duration.yaml";
  for (int run = 0; run < 2; run++) {
    const char *args[] = { run ? "run" : "check", file, NULL };
    char *out, *err;
    ck_assert_int_eq(test_run_ocasim(args, &out, &err), 2);
    test_assert_located(args[0], err, file, 5, 11, "duration", "would simulate about");
    g_free(out);
    g_free(err);
  }
  /* an offered load far above saturation: every arrival is an event, the key is workload.offered */
  const char *args[] = { "check", "scenarios/rome-400g-nic-ktls.yaml", "--set", "workload.offered=1e12 Gb/s", NULL };
  char *out, *err;
  ck_assert_int_eq(test_run_ocasim(args, &out, &err), 2);
  ck_assert_msg(strstr(err, "--set: workload.offered: the run would simulate"), "%s", err);
  g_free(out);
  g_free(err);
  /* the model-level check agrees, and a normal scenario passes it */
  Appliance a;
  AppScenarioInfo info;
  GError *e = NULL;
  ck_assert(appliance_load_file(file, NULL, &a, &info, &e));
  g_autoptr(DemandModel) m = demand_build(&a, &e);
  ck_assert(!appliance_des_check(&a, &info, m, &e));
  ck_assert_str_eq(model_error_path(e), "duration");
  g_clear_error(&e);
  info.duration_s = 2;
  info.warmup_s = 0.2;
  ck_assert_msg(appliance_des_check(&a, &info, m, &e), "%s", e ? e->message : "");
  app_scenario_info_clear(&info);
}
END_TEST

static Suite *suite(void)
{
  Suite *s = suite_create("planner");
  TCase *t = tcase_create("planner");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, test_check_refuses_what_run_refuses);
  suite_add_tcase(s, t);
  return s;
}

int main(void)
{
  return test_run_suite(suite());
}
