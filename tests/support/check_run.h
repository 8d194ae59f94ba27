/* tests/support/check_run.h — the one way a test binary runs its suite, and one test alone.
 *
 * Check selects a suite (CK_RUN_SUITE) or a TCase (CK_RUN_CASE) by name but not one test, and
 * most suites hold one TCase. Including this header after check.h makes tcase_add_test and
 * tcase_add_loop_test honour OCASIM_TEST=name: only the test of that name (START_TEST(name)) is
 * added, its TCase's fixtures and timeout kept. A name that no test of the suite has, or a
 * CK_RUN_SUITE / CK_RUN_CASE that selects nothing, makes test_run_suite fail with a message rather
 * than pass with nothing run. */
#ifndef TESTS_SUPPORT_CHECK_RUN_H
#define TESTS_SUPPORT_CHECK_RUN_H

#include <check.h>

/* Adds @tt to @tc for the loop indices [@start, @end) unless OCASIM_TEST names another test. */
void test_add(TCase *tc, const TTest *tt, int start, int end);

#undef tcase_add_test
#define tcase_add_test(tc, tf) test_add((tc), (tf), 0, 1)
#undef tcase_add_loop_test
#define tcase_add_loop_test(tc, tf, s, e) test_add((tc), (tf), (s), (e))

/* Runs @s (taking ownership) with Check's normal output; returns the
 *  process exit status: 0 when every test passed, 1 otherwise (and 1 when no test ran: OCASIM_TEST,
 *  CK_RUN_SUITE or CK_RUN_CASE named none of the suite's). */
int test_run_suite(Suite *s);

#endif /* TESTS_SUPPORT_CHECK_RUN_H */
