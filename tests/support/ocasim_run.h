/* tests/support/ocasim_run.h — running the built `ocasim` from a test. */
#ifndef TESTS_SUPPORT_OCASIM_RUN_H
#define TESTS_SUPPORT_OCASIM_RUN_H

#include <glib.h>

/* Runs the ocasim binary named by $OCASIM_BIN (set by make test) with @args (NULL-terminated,
 *  the arguments after the program name) in the current directory, waits for it, stores its
 *  stdout and stderr in *@out and *@err (transfer full) and returns its exit status.  The
 *  calling test fails when OCASIM_BIN is unset, the spawn fails or the process was killed. */
int test_run_ocasim(const char *const *args, char **out, char **err);

/* Runs @argv (argv[0] looked up in PATH) in @cwd (NULL: here) with the environment changed by
 *  @env ("NAME=VALUE", or "NAME=" to unset; NULL-terminated, may be NULL), waits, stores its
 *  stdout and stderr (transfer full) and returns its exit status; the calling test fails when
 *  the spawn fails or the process was killed. */
int test_spawn(const char *const *argv, const char *const *env, const char *cwd, char **out, char **err);

/* The path of the program @name in PATH (transfer full), or NULL after saying on stderr that
 *  @test is skipped without it. */
char *test_find_program(const char *name, const char *test);

/* The version the binary prints for `ocasim --version` ("ocasim VERSION"): VERSION
 *  (transfer full), the value of "ocasim_version" in JSON and CSV results. */
char *test_ocasim_version(void);

/* The options `ocasim @cmd --help` lists: a table from each long name (without "--") to its
 *  short letter ("" when it has none).  (transfer full) */
GHashTable *test_ocasim_help_options(const char *cmd);

/* Asserts that @err, the stderr of a run on @file (@what names the case in messages), is one
 *  line that names "FILE:LINE:COL: " followed by "@path: " (unless @path is "", an error at the
 *  root) and holds @message. */
void test_assert_located(const char *what, const char *err, const char *file, int line, int col, const char *path,
                         const char *message);

#endif /* TESTS_SUPPORT_OCASIM_RUN_H */
