/* tests/support/check_run.c — see check_run.h. */
#include "tests/support/check_run.h"

int test_run_suite(Suite *s)
{
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
