/* tests/support/check_run.h — the one way a test binary runs its suite. */
#ifndef TESTS_SUPPORT_CHECK_RUN_H
#define TESTS_SUPPORT_CHECK_RUN_H

#include <check.h>

/* Runs @s (taking ownership) with Check's normal output; returns the
 *  process exit status: 0 when every test passed, 1 otherwise. */
int test_run_suite(Suite *s);

#endif /* TESTS_SUPPORT_CHECK_RUN_H */
