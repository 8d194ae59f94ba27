/* tests/support/check_run.c — see check_run.h. */
#include "tests/support/check_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Tests added under OCASIM_TEST (a test binary runs one suite: no threads add tests). */
static int added_selected;

static const char *selected_test(void)
{
  const char *only = getenv("OCASIM_TEST");
  return only && *only ? only : NULL;
}

void test_add(TCase *tc, const TTest *tt, int start, int end)
{
  const char *only = selected_test();
  if (only && strcmp(only, tt->name) != 0) return;
  if (only) added_selected++;
  _tcase_add_test(tc, tt, 0, 0, start, end);
}

int test_run_suite(Suite *s)
{
  const char *only = selected_test();
  SRunner *sr = srunner_create(s); /* frees @s with it */
  if (only && added_selected == 0) {
    fprintf(stderr, "OCASIM_TEST=%s: no test of that name in this suite\n", only);
    srunner_free(sr);
    return 1;
  }
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr), ran = srunner_ntests_run(sr);
  srunner_free(sr);
  if (ran == 0) { /* CK_RUN_SUITE or CK_RUN_CASE named nothing here: not a pass */
    fprintf(stderr, "no test ran (CK_RUN_SUITE=%s, CK_RUN_CASE=%s)\n", getenv("CK_RUN_SUITE") ? getenv("CK_RUN_SUITE") : "",
            getenv("CK_RUN_CASE") ? getenv("CK_RUN_CASE") : "");
    return 1;
  }
  return failed ? 1 : 0;
}
