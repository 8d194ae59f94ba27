/* tests/test_bad_inputs.c — the table of bad inputs (tests/data/bad-inputs/INDEX) through the
 * command line, and the loader rules that need more than one file to show.
 *
 * Each INDEX row names a file, a command line, the exit status and where the one-line message
 * must start: "ocasim: FILE:LINE:COL: KEY.PATH: " (or another file's position, for an error in
 * an included file, or "--set: KEY.PATH: " for a value from the command line), with a part of
 * the message. The table holds at least 120 rows and 5 per category (YAML syntax, types, units,
 * ranges, cross-key rules, includes, whole-document errors, queueing-network structure, CLI
 * options). Beside it:
 *  - includes outside the including file's directory and the search path are refused, and
 *    read with --allow-include DIR or along OCASIM_PLATFORM_PATH (issue 16, defect 5);
 *  - a UTF-8 BOM is accepted: the file checks and its positions are those without it (defect 3);
 *  - bitrate shares within 0.1 % of 100 % are scaled to 100 % with a note on stderr, and the
 *    results equal those of the exact shares (defect 9).
 */
#include <check.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/support/check_run.h"
#include "tests/support/ocasim_run.h"

#define DIR "tests/data/bad-inputs"

typedef struct {
  char *category, *file, *args, *where, *path, *message;
  int exit;
} Row;

static GPtrArray *rows; /* Row *, read once by main() before the suite runs */

static void row_free(gpointer p)
{
  Row *r = p;
  g_free(r->category);
  g_free(r->file);
  g_free(r->args);
  g_free(r->where);
  g_free(r->path);
  g_free(r->message);
  g_free(r);
}

/* Reads INDEX; a malformed line is a test failure (reported by test_index_well_formed). */
static GPtrArray *read_index(char **bad_line)
{
  GPtrArray *out = g_ptr_array_new_with_free_func(row_free);
  g_autofree char *text = NULL;
  if (!g_file_get_contents(DIR "/INDEX", &text, NULL, NULL)) {
    *bad_line = g_strdup("cannot read " DIR "/INDEX");
    return out;
  }
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  for (char **l = lines; *l; l++) {
    if (!**l || **l == '#') continue;
    g_auto(GStrv) f = g_strsplit(*l, "\t", -1);
    if (g_strv_length(f) != 7) {
      if (!*bad_line) *bad_line = g_strdup(*l);
      continue;
    }
    Row *r = g_new0(Row, 1);
    r->category = g_strdup(f[0]);
    r->file = g_strdup(f[1]);
    r->args = g_strdup(f[2]);
    r->exit = atoi(f[3]);
    r->where = g_strdup(f[4]);
    r->path = g_strdup(f[5]);
    r->message = g_strdup(f[6]);
    g_ptr_array_add(out, r);
  }
  return out;
}

START_TEST(test_index_well_formed)
{
  char *bad = NULL;
  g_autoptr(GPtrArray) again = read_index(&bad);
  ck_assert_msg(bad == NULL, "INDEX: malformed line: %s", bad);
  ck_assert_uint_ge(again->len, 120);
  static const char *const categories[] = { "syntax",   "types",    "units", "ranges", "crosskey",
                                            "includes", "document", "qnet",  "cli" };
  for (size_t c = 0; c < G_N_ELEMENTS(categories); c++) {
    guint n = 0;
    for (guint i = 0; i < again->len; i++) n += !strcmp(((Row *)again->pdata[i])->category, categories[c]);
    ck_assert_msg(n >= 5, "category %s has %u rows, needs at least 5", categories[c], n);
  }
  for (guint i = 0; i < again->len; i++) {
    const Row *r = again->pdata[i];
    g_autofree char *p = g_build_filename(DIR, r->file, NULL);
    ck_assert_msg(g_file_test(p, G_FILE_TEST_IS_REGULAR), "INDEX names %s, which is missing", p);
    for (guint j = 0; j < i; j++) ck_assert_msg(strcmp(r->file, ((Row *)again->pdata[j])->file), "%s twice", r->file);
  }
}
END_TEST

START_TEST(test_bad_input_row)
{
  const Row *r = rows->pdata[_i];
  g_autofree char *file = g_build_filename(DIR, r->file, NULL);
  g_auto(GStrv) args = g_strsplit(r->args, "|", -1);
  for (char **a = args; *a; a++)
    if (!strcmp(*a, "{}")) {
      g_free(*a);
      *a = g_strdup(file);
    } else if (g_str_has_prefix(*a, "../")) { /* a file beside the table's, relative to it */
      char *p = g_build_filename(DIR, *a, NULL);
      g_free(*a);
      *a = p;
    }
  /* a FIFO cannot be committed: made for the row that includes one */
  const char *fifo = DIR "/inc/plat/fifo.yaml";
  gboolean made_fifo = strstr(r->file, "fifo") && mkfifo(fifo, 0600) == 0;
  g_autofree char *out = NULL, *err = NULL;
  int rc = test_run_ocasim((const char *const *)args, &out, &err);
  if (made_fifo) g_remove(fifo);
  ck_assert_msg(rc == r->exit, "%s: exit %d, not %d; stderr: %s", r->file, rc, r->exit, err);
  /* where: LINE:COL in the file, FILE:LINE:COL elsewhere, or an option */
  g_autofree char *at = g_str_has_prefix(r->where, "--") || strchr(r->where, ':') != strrchr(r->where, ':')
                            ? g_strdup(r->where)
                            : g_strdup_printf("%s:%s", file, r->where);
  g_autofree char *want =
      strcmp(r->path, "-") ? g_strdup_printf("ocasim: %s: %s: ", at, r->path) : g_strdup_printf("ocasim: %s: ", at);
  ck_assert_msg(g_str_has_prefix(err, want), "%s: expected the message to start with '%s': %s", r->file, want, err);
  ck_assert_msg(strstr(err, r->message), "%s: expected '%s' in: %s", r->file, r->message, err);
  ck_assert_msg(strchr(err, '\n') == err + strlen(err) - 1, "%s: the message is not one line: %s", r->file, err);
}
END_TEST

/* Writes @text to @dir/@name (made with its parents). */
static void put(const char *dir, const char *name, const char *text)
{
  g_autofree char *p = g_build_filename(dir, name, NULL);
  g_autofree char *d = g_path_get_dirname(p);
  ck_assert_int_eq(g_mkdir_with_parents(d, 0700), 0);
  ck_assert(g_file_set_contents(p, text, -1, NULL));
}

/* Defect 5: a platform in a sibling directory of the scenario's, run from the scenario's
 * directory, is outside what may be read; --allow-include DIR or OCASIM_PLATFORM_PATH lets it in,
 * and the result is that of the same scenario beside its platform. */
START_TEST(test_include_outside_needs_allow)
{
  const char *bin = g_getenv("OCASIM_BIN");
  ck_assert_ptr_nonnull(bin);
  g_autofree char *tmp = g_dir_make_tmp("ocasim-inc-XXXXXX", NULL);
  g_autofree char *plat = NULL, *scen = NULL;
  ck_assert(g_file_get_contents("scenarios/platforms/rome-7502p.yaml", &plat, NULL, NULL));
  ck_assert(g_file_get_contents("scenarios/rome-400g-nic-ktls.yaml", &scen, NULL, NULL));
  put(tmp, "plat/rome.yaml", plat);
  g_autofree char *mine = g_strdup(scen);
  char *at = strstr(mine, "platform: platforms/rome-7502p.yaml");
  ck_assert_ptr_nonnull(at);
  memcpy(at, "platform: ../plat/rome.yaml        ", 35);
  put(tmp, "s/mine.yaml", mine);
  g_autofree char *sdir = g_build_filename(tmp, "s", NULL), *pdir = g_build_filename(tmp, "plat", NULL);
  g_autofree char *want = NULL, *we = NULL;
  const char *orig[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", NULL };
  ck_assert_int_eq(test_run_ocasim(orig, &want, &we), 0);

  const char *plain[] = { bin, "bound", "mine.yaml", NULL };
  const char *noenv[] = { "OCASIM_PLATFORM_PATH=", "OCASIM_DATADIR=/nonexistent", NULL };
  g_autofree char *o1 = NULL, *e1 = NULL;
  ck_assert_int_eq(test_spawn(plain, noenv, sdir, &o1, &e1), 2);
  ck_assert_msg(g_str_has_prefix(e1, "ocasim: mine.yaml:8:11: platform: '../plat/rome.yaml' is outside the including file's "
                                     "directory and the platform search path (to read it, give --allow-include DIR)"),
                "%s", e1);

  const char *allowed[] = { bin, "bound", "mine.yaml", "--allow-include", pdir, NULL };
  g_autofree char *o2 = NULL, *e2 = NULL;
  ck_assert_int_eq(test_spawn(allowed, noenv, sdir, &o2, &e2), 0);
  ck_assert_str_eq(o2, want);

  g_autofree char *pp = g_strdup_printf("OCASIM_PLATFORM_PATH=/nonexistent:%s", pdir);
  const char *searched[] = { pp, "OCASIM_DATADIR=/nonexistent", NULL };
  g_autofree char *o3 = NULL, *e3 = NULL;
  ck_assert_int_eq(test_spawn(plain, searched, sdir, &o3, &e3), 0);
  ck_assert_str_eq(o3, want);

  /* a link beside the scenario to a file outside: its real path decides */
  g_autofree char *link = g_build_filename(sdir, "link.yaml", NULL), *target = g_build_filename(pdir, "rome.yaml", NULL);
  ck_assert_int_eq(symlink(target, link), 0);
  g_autofree char *viaLink = g_strdup(scen);
  at = strstr(viaLink, "platform: platforms/rome-7502p.yaml");
  memcpy(at, "platform: link.yaml                ", 35);
  put(tmp, "s/via.yaml", viaLink);
  const char *via[] = { bin, "check", "via.yaml", NULL };
  g_autofree char *o4 = NULL, *e4 = NULL;
  ck_assert_int_eq(test_spawn(via, noenv, sdir, &o4, &e4), 2);
  ck_assert_msg(strstr(e4, "via.yaml:8:11: platform: 'link.yaml' is outside"), "%s", e4);

  g_autofree char *rm = g_strdup_printf("rm -rf '%s'", tmp);
  ck_assert_int_eq(system(rm), 0);
}
END_TEST

/* Defect 3: a BOM before the first key: the file checks, and an error after it is where it would
 * be without the BOM. */
START_TEST(test_bom)
{
  g_autofree char *tmp = g_dir_make_tmp("ocasim-bom-XXXXXX", NULL);
  g_autofree char *mm1 = NULL;
  ck_assert(g_file_get_contents("scenarios/mm1.yaml", &mm1, NULL, NULL));
  g_autofree char *with = g_strconcat("\xEF\xBB\xBF", mm1, NULL);
  put(tmp, "bom.yaml", with);
  g_autofree char *f = g_build_filename(tmp, "bom.yaml", NULL);
  const char *args[] = { "check", f, NULL };
  g_autofree char *o = NULL, *e = NULL;
  ck_assert_int_eq(test_run_ocasim(args, &o, &e), 0);
  put(tmp, "bad.yaml", "\xEF\xBB\xBFkind: queueing_network\nduraton: 1 s\n");
  g_autofree char *b = g_build_filename(tmp, "bad.yaml", NULL);
  const char *bargs[] = { "check", b, NULL };
  g_autofree char *o2 = NULL, *e2 = NULL;
  ck_assert_int_eq(test_run_ocasim(bargs, &o2, &e2), 2);
  g_autofree char *want = g_strdup_printf("ocasim: %s:2:1: duraton: unknown key", b);
  ck_assert_msg(g_str_has_prefix(e2, want), "%s", e2);
  g_autofree char *rm = g_strdup_printf("rm -rf '%s'", tmp);
  ck_assert_int_eq(system(rm), 0);
}
END_TEST

/* Defect 9: three shares of 33.33 % (99.99 %) are scaled to a third each, with one note line on
 * stderr; the results are those of exact thirds (only the overrides line differs). */
START_TEST(test_shares_normalised)
{
  const char *rounded[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", "--set",
                            "workload.bitrates=[{rate: 2 Mb/s, share: 33.33 %}, {rate: 5 Mb/s, share: 33.33 %}, "
                            "{rate: 15 Mb/s, share: 33.33 %}]",
                            NULL };
  const char *exact[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", "--set",
                          "workload.bitrates=[{rate: 2 Mb/s, share: 33.333333333333333 %}, {rate: 5 Mb/s, share: "
                          "33.333333333333333 %}, {rate: 15 Mb/s, share: 33.333333333333333 %}]",
                          NULL };
  g_autofree char *o1 = NULL, *e1 = NULL, *o2 = NULL, *e2 = NULL;
  ck_assert_int_eq(test_run_ocasim(rounded, &o1, &e1), 0);
  ck_assert_int_eq(test_run_ocasim(exact, &o2, &e2), 0);
  ck_assert_str_eq(e1, "ocasim: --set: workload.bitrates: note: the shares add up to 99.99 %; each is scaled by 1.0001 to add "
                       "up to 100 %\n");
  ck_assert_str_eq(e2, "");
  /* drop the overrides line of each */
  char *l1 = strstr(o1, "\noverrides:"), *l2 = strstr(o2, "\noverrides:");
  ck_assert(l1 && l2);
  ck_assert_str_eq(strchr(l1 + 1, '\n'), strchr(l2 + 1, '\n'));
  /* 99.8 % is too far: an error at the list */
  const char *far[] = { "check", "scenarios/rome-400g-nic-ktls.yaml", "--set",
                        "workload.bitrates=[{rate: 2 Mb/s, share: 49.9 %}, {rate: 5 Mb/s, share: 49.9 %}]", NULL };
  g_autofree char *o3 = NULL, *e3 = NULL;
  ck_assert_int_eq(test_run_ocasim(far, &o3, &e3), 2);
  ck_assert_msg(strstr(e3, "--set: workload.bitrates: the shares of the bitrate mix add up to 99.8 %"), "%s", e3);
}
END_TEST

/* Defect 8: software.crypto on a NIC-kTLS path is not an error (a sweep may vary the path) but a
 * located note on stderr; the results are those without the key. */
START_TEST(test_crypto_note)
{
  g_autofree char *tmp = g_dir_make_tmp("ocasim-crypto-XXXXXX", NULL);
  g_autofree char *scen = NULL;
  ck_assert(g_file_get_contents("scenarios/rome-400g-nic-ktls.yaml", &scen, NULL, NULL));
  g_autofree char *cwd = g_get_current_dir();
  g_autofree char *plat = g_build_filename(cwd, "scenarios/platforms/rome-7502p.yaml", NULL);
  g_autofree char *inc = g_strdup_printf("platform: %s", plat);
  g_auto(GStrv) parts = g_strsplit(scen, "platform: platforms/rome-7502p.yaml", 2);
  g_autofree char *mine = g_strconcat(parts[0], inc, parts[1], NULL);
  g_auto(GStrv) halves = g_strsplit(mine, "  placement:", 2);
  g_autofree char *with = g_strjoinv("  crypto: isal_aes_gcm\n  placement:", halves);
  put(tmp, "c.yaml", with);
  g_autofree char *f = g_build_filename(tmp, "c.yaml", NULL);
  const char *args[] = { "bound", f, "--allow-include", "scenarios/platforms", NULL };
  const char *orig[] = { "bound", "scenarios/rome-400g-nic-ktls.yaml", NULL };
  g_autofree char *o1 = NULL, *e1 = NULL, *o2 = NULL, *e2 = NULL;
  ck_assert_int_eq(test_run_ocasim(args, &o1, &e1), 0);
  ck_assert_int_eq(test_run_ocasim(orig, &o2, &e2), 0);
  g_autofree char *want = g_strdup_printf("ocasim: %s:14:11: software.crypto: note: not used: the data path sendfile_nic_ktls "
                                          "encrypts on the NIC",
                                          f);
  ck_assert_msg(g_str_has_prefix(e1, want), "%s", e1);
  ck_assert_str_eq(o1, o2);
  g_autofree char *rm = g_strdup_printf("rm -rf '%s'", tmp);
  ck_assert_int_eq(system(rm), 0);
}
END_TEST

int main(void)
{
  char *bad = NULL;
  rows = read_index(&bad);
  g_free(bad);
  Suite *s = suite_create("bad_inputs");
  TCase *tc = tcase_create("bad inputs");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_index_well_formed);
  tcase_add_loop_test(tc, test_bad_input_row, 0, (int)rows->len);
  tcase_add_test(tc, test_include_outside_needs_allow);
  tcase_add_test(tc, test_bom);
  tcase_add_test(tc, test_shares_normalised);
  tcase_add_test(tc, test_crypto_note);
  suite_add_tcase(s, tc);
  int rc = test_run_suite(s);
  g_ptr_array_unref(rows);
  return rc;
}
