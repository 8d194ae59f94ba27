/* tests/test_install.c — what make install ships, checked from the source tree (the install
 * itself, into a DESTDIR, and the dist tarball are scripts/install-check.sh, run by CI):
 *  - docs/ocasim.1 renders without warnings (groff -ww -z -man), has a section per subcommand,
 *    EXIT STATUS, FILES and EXAMPLES, and names every option of every subcommand's --help;
 *  - the bash completion (scripts/ocasim-completion.bash) completes subcommands, a
 *    subcommand's options and the keys of --set: `ocasim run --set ni<TAB>` offers nics[...];
 *  - a platform include found neither beside the scenario nor in the current directory is
 *    looked up in the data directory (OCASIM_DATADIR stands for the installed one), and so are
 *    the reference scenarios of `ocasim reference` outside the source tree. */
#include <check.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "tests/support/check_run.h"
#include "tests/support/ocasim_run.h"

static const char *const SUBCOMMANDS[] = { "run",   "check", "bound",     "capacity", "explain", "validate",
                                           "serve", "load",  "reference", "fit",      "schema" };

START_TEST(test_man_page)
{
  g_autofree char *groff = test_find_program("groff", "test_man_page");
  if (!groff) {
    ck_assert_msg(!g_getenv("OCASIM_REQUIRE_JSONSCHEMA"), "groff is required under CI (groff-base)");
    return;
  }
  const char *argv[] = { groff, "-ww", "-z", "-man", "docs/ocasim.1", NULL };
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_int_eq(test_spawn(argv, NULL, NULL, &out, &err), 0);
  ck_assert_msg(!strcmp(err, ""), "groff warnings: %s", err);
  g_autofree char *man = NULL;
  ck_assert(g_file_get_contents("docs/ocasim.1", &man, NULL, NULL));
  ck_assert(strstr(man, "\n.TH OCASIM 1 ") && strstr(man, "\n.SH EXIT STATUS\n") && strstr(man, "\n.SH FILES\n") &&
            strstr(man, "\n.SH EXAMPLES\n"));
  for (size_t i = 0; i < G_N_ELEMENTS(SUBCOMMANDS); i++) {
    g_autofree char *section = g_strdup_printf("\n.SS \"ocasim %s ", SUBCOMMANDS[i]);
    ck_assert_msg(strstr(man, section), "docs/ocasim.1 has no section for %s", SUBCOMMANDS[i]);
    /* every long option of the subcommand, as man writes it (\-\-name) */
    g_autoptr(GHashTable) opts = test_ocasim_help_options(SUBCOMMANDS[i]);
    ck_assert_uint_ge(g_hash_table_size(opts), 4);
    GHashTableIter it;
    gpointer name;
    g_hash_table_iter_init(&it, opts);
    while (g_hash_table_iter_next(&it, &name, NULL)) {
      g_auto(GStrv) parts = g_strsplit(name, "-", -1);
      g_autofree char *escaped = g_strjoinv("\\-", parts);
      g_autofree char *want = g_strdup_printf("\\-\\-%s", escaped);
      ck_assert_msg(strstr(man, want), "docs/ocasim.1 does not document %s --%s", SUBCOMMANDS[i], (char *)name);
    }
  }
}
END_TEST

/* What the completion offers for the words @line (the last one being completed). */
static char *complete(const char *line)
{
  const char *bin = g_getenv("OCASIM_BIN");
  g_autofree char *script =
      g_strdup_printf("[ -r /usr/share/bash-completion/bash_completion ] && . /usr/share/bash-completion/bash_completion; "
                      ". scripts/ocasim-completion.bash; read -ra COMP_WORDS <<< \"$LINE\"; COMP_WORDS[0]='%s'; "
                      "case \"$LINE\" in *' ') COMP_WORDS+=(''); esac; COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _ocasim; "
                      "printf '%%s\\n' \"${COMPREPLY[@]}\"",
                      bin);
  g_autofree char *lv = g_strdup_printf("LINE=%s", line);
  const char *env[] = { lv, NULL };
  const char *argv[] = { "bash", "-c", script, NULL };
  g_autofree char *err = NULL;
  char *out = NULL;
  ck_assert_int_eq(test_spawn(argv, env, NULL, &out, &err), 0);
  return out;
}

START_TEST(test_bash_completion)
{
  g_autofree char *bash = test_find_program("bash", "test_bash_completion");
  if (!bash) return;
  g_autofree char *keys = complete("ocasim run --set ni");
  ck_assert_msg(g_str_has_prefix(keys, "nics[") && strstr(keys, "\nnics[0].port_speed=\n"), "%s", keys);
  g_autofree char *qkeys = complete("ocasim check scenarios/mm1.yaml -s stations[0].se");
  ck_assert_msg(strstr(qkeys, "stations[0].servers=\n") && strstr(qkeys, "stations[0].service.mean=\n"), "%s", qkeys);
  g_autofree char *cmds = complete("ocasim ");
  ck_assert_msg(strstr(cmds, "run\n") && strstr(cmds, "capacity\n") && strstr(cmds, "schema\n"), "%s", cmds);
  g_autofree char *opts = complete("ocasim bound --");
  ck_assert_msg(strstr(opts, "--set\n") && strstr(opts, "--output\n") && !strstr(opts, "--duration"), "%s", opts);
  /* only the options of the command, not one named in a description (--set's help names
   * `ocasim schema --keys`; reference's and fit's name --format) */
  ck_assert_msg(!strstr(opts, "--keys"), "%s", opts);
  g_autofree char *sweep_opts = complete("ocasim sweep --");
  ck_assert_msg(strstr(sweep_opts, "--out\n") && strstr(sweep_opts, "--jobs\n") && !strstr(sweep_opts, "--keys"), "%s",
                sweep_opts);
  g_autofree char *ref_opts = complete("ocasim reference --");
  ck_assert_msg(strstr(ref_opts, "--des\n") && !strstr(ref_opts, "--format"), "%s", ref_opts);
  g_autofree char *schema_opts = complete("ocasim schema --");
  ck_assert_msg(strstr(schema_opts, "--keys\n") && !strstr(schema_opts, "--set"), "%s", schema_opts);
  g_autofree char *fmts = complete("ocasim run scenarios/mm1.yaml --format ");
  ck_assert_str_eq(fmts, "table\njson\ncsv\n");
}
END_TEST

/* A scenario that names platforms/FILE, run from a directory without it, finds it in the data
 * directory; without one it is an error at the platform: line. */
START_TEST(test_platform_from_datadir)
{
  g_autofree char *dir = g_dir_make_tmp("ocasim-datadir-XXXXXX", NULL);
  g_autofree char *path = g_build_filename(dir, "mine.yaml", NULL), *text = NULL;
  ck_assert(g_file_get_contents("scenarios/rome-400g-nic-ktls.yaml", &text, NULL, NULL));
  ck_assert(strstr(text, "\nplatform: platforms/rome-7502p.yaml\n"));
  ck_assert(g_file_set_contents(path, text, -1, NULL));
  g_autofree char *cwd = g_get_current_dir();
  g_autofree char *data = g_build_filename(cwd, "scenarios", NULL); /* holds platforms/, as share/ocasim does */
  g_autofree char *dv = g_strdup_printf("OCASIM_DATADIR=%s", data);
  const char *bin = g_getenv("OCASIM_BIN");
  const char *argv[] = { bin, "bound", "mine.yaml", NULL };
  const char *with[] = { dv, NULL };
  const char *without[] = { "OCASIM_DATADIR=/nonexistent", NULL };
  g_autofree char *o1 = NULL, *e1 = NULL, *o2 = NULL, *e2 = NULL, *want = NULL, *we = NULL;
  ck_assert_int_eq(test_spawn(argv, with, dir, &o1, &e1), 0);
  ck_assert_int_eq(test_spawn(argv, without, dir, &o2, &e2), 2);
  ck_assert_msg(strstr(e2, "mine.yaml:8:11: platform:"), "%s", e2);
  const char *orig[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", NULL };
  ck_assert_int_eq(test_run_ocasim(orig, &want, &we), 0);
  ck_assert_str_eq(o1, want);
  g_remove(path);
  g_rmdir(dir);
}
END_TEST

/* `ocasim reference` without DIR, run outside the source tree, reads the installed reference
 * scenarios (DATADIR/scenarios/reference; OCASIM_DATADIR stands for it): it printed "Error
 * opening directory scenarios/reference" (exit 2) after make install. */
START_TEST(test_reference_from_datadir)
{
  g_autofree char *dir = g_dir_make_tmp("ocasim-refdir-XXXXXX", NULL);
  g_autofree char *cwd = g_get_current_dir();
  g_autofree char *dv = g_strdup_printf("OCASIM_DATADIR=%s", cwd); /* holds scenarios/, as share/ocasim does */
  const char *bin = g_getenv("OCASIM_BIN");
  const char *argv[] = { bin, "reference", NULL };
  const char *with[] = { dv, NULL };
  const char *without[] = { "OCASIM_DATADIR=/nonexistent", NULL };
  g_autofree char *o1 = NULL, *e1 = NULL, *o2 = NULL, *e2 = NULL, *want = NULL, *we = NULL;
  ck_assert_int_eq(test_spawn(argv, with, dir, &o1, &e1), 0);
  const char *here[] = { "reference", NULL };
  ck_assert_int_eq(test_run_ocasim(here, &want, &we), 0);
  ck_assert_str_eq(o1, want);
  ck_assert_int_eq(test_spawn(argv, without, dir, &o2, &e2), 2);
  ck_assert_msg(strstr(e2, "/nonexistent/scenarios/reference"), "%s", e2);
  g_rmdir(dir);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("install");
  TCase *tc = tcase_create("install");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_man_page);
  tcase_add_test(tc, test_bash_completion);
  tcase_add_test(tc, test_platform_from_datadir);
  tcase_add_test(tc, test_reference_from_datadir);
  suite_add_tcase(s, tc);
  return test_run_suite(s);
}
