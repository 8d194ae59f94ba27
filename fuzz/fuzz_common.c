/* fuzz/fuzz_common.c — the private directory and include guard of the fuzz harnesses
 * (fuzz/fuzz_common.h). */
#include "fuzz/fuzz_common.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <unistd.h>
#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim/conf.h"

#ifndef FUZZ_SRC_DIR
#error "FUZZ_SRC_DIR: the repository root, as a string (fuzz/fuzz.mk)"
#endif

static char *private_dir; /* harness-only state: one per fuzzing process */

/* Removes the private directory and everything in it (two levels: files and subfolders). */
static void remove_tree(const char *dir)
{
  GDir *d = g_dir_open(dir, 0, NULL);
  if (!d) return;
  const char *name;
  while ((name = g_dir_read_name(d))) {
    g_autofree char *p = g_build_filename(dir, name, NULL);
    if (g_file_test(p, G_FILE_TEST_IS_DIR) && !g_file_test(p, G_FILE_TEST_IS_SYMLINK))
      remove_tree(p);
    else
      (void)g_remove(p);
  }
  g_dir_close(d);
  (void)g_rmdir(dir);
}

static void remove_private_dir(void)
{
  if (private_dir) remove_tree(private_dir);
}

/* Copies every regular *.yaml file of FUZZ_SRC_DIR/@rel into @dst/@rel. */
static void copy_yaml(const char *dst, const char *rel)
{
  const char *src_rel = strcmp(rel, "platforms") ? rel : "scenarios/platforms";
  g_autofree char *from = g_build_filename(FUZZ_SRC_DIR, src_rel, NULL);
  g_autofree char *to = g_build_filename(dst, rel, NULL);
  if (g_mkdir_with_parents(to, 0700) != 0) abort();
  GDir *d = g_dir_open(from, 0, NULL);
  if (!d) return;
  const char *name;
  while ((name = g_dir_read_name(d))) {
    if (!g_str_has_suffix(name, ".yaml")) continue;
    g_autofree char *src = g_build_filename(from, name, NULL);
    g_autofree char *dstp = g_build_filename(to, name, NULL);
    g_autofree char *text = NULL;
    gsize len = 0;
    if (g_file_test(src, G_FILE_TEST_IS_REGULAR) && g_file_get_contents(src, &text, &len, NULL))
      fuzz_write_file(dstp, (const uint8_t *)text, len);
  }
  g_dir_close(d);
}

/* Removes the private directories that harnesses which crashed left behind: a crash ends the
 * process with _exit (libFuzzer), so its atexit handler did not run.  A directory is named
 * after its process, /tmp/ocasim-fuzz-PID-XXXXXX; one whose process is gone is removed. */
static void remove_stale_dirs(void)
{
  GDir *d = g_dir_open("/tmp", 0, NULL);
  if (!d) return;
  const char *name;
  while ((name = g_dir_read_name(d))) {
    if (!g_str_has_prefix(name, "ocasim-fuzz-")) continue;
    char *end = NULL;
    long pid = strtol(name + strlen("ocasim-fuzz-"), &end, 10);
    if (pid <= 0 || !end || *end != '-' || kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
    g_autofree char *p = g_build_filename("/tmp", name, NULL);
    remove_tree(p);
  }
  g_dir_close(d);
}

const char *fuzz_private_dir(void)
{
  if (private_dir) return private_dir;
  remove_stale_dirs();
  g_autofree char *tmpl = g_strdup_printf("/tmp/ocasim-fuzz-%ld-XXXXXX", (long)getpid());
  if (!g_mkdtemp(tmpl)) abort();
  private_dir = g_strdup(tmpl);
  atexit(remove_private_dir);
  copy_yaml(private_dir, "scenarios");
  copy_yaml(private_dir, "scenarios/platforms");
  copy_yaml(private_dir, "platforms"); /* as scenarios/reference/ name them: ../platforms/X */
  copy_yaml(private_dir, "sweeps");
  return private_dir;
}

void fuzz_write_file(const char *path, const uint8_t *data, size_t size)
{
  FILE *f = fopen(path, "wb");
  if (!f) abort();
  if (size && fwrite(data, 1, size, f) != size) abort();
  if (fclose(f) != 0) abort();
}

static gboolean plain_segment(const char *s)
{
  if (!*s || !strcmp(s, ".") || !strcmp(s, "..")) return FALSE;
  for (; *s; s++)
    if (!g_ascii_isalnum(*s) && *s != '.' && *s != '_' && *s != '-') return FALSE;
  return TRUE;
}

gboolean fuzz_safe_include(const char *value, const char *dir_rel)
{
  const char *v = value;
  gboolean up = FALSE;
  if (g_str_has_prefix(v, "../")) {
    v += 3;
    up = TRUE;
  }
  g_auto(GStrv) seg = g_strsplit(v, "/", -1);
  guint n = g_strv_length(seg);
  if (n == 0 || n > 2) return FALSE;
  for (guint i = 0; i < n; i++)
    if (!plain_segment(seg[i])) return FALSE;
  g_autofree char *p =
      up ? g_build_filename(fuzz_private_dir(), v, NULL) : g_build_filename(fuzz_private_dir(), dir_rel, v, NULL);
  return g_file_test(p, G_FILE_TEST_IS_REGULAR);
}

/* Drops messages, info and debug lines; a critical (a failed g_return_if_fail: a programming
 * error reached from input) or an error aborts, so that libFuzzer records it as a crash. */
gboolean fuzz_input_include_safe(const uint8_t *data, size_t size, const char *key, const char *dir_rel)
{
  g_autofree char *text = g_strndup((const char *)data, size);
  g_autoptr(SimConfDoc) doc = sim_conf_load_string(text, "fuzz", NULL);
  if (!doc) return TRUE;
  const SimConfNode *inc = sim_conf_node_get(sim_conf_doc_root(doc), key);
  if (!inc || sim_conf_node_kind(inc) != SIM_CONF_NODE_SCALAR) return TRUE;
  return fuzz_safe_include(sim_conf_node_text(inc), dir_rel);
}

static void drop_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer user_data G_GNUC_UNUSED)
{
  if (level & (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_ERROR)) {
    fprintf(stderr, "fuzz: %s-CRITICAL: %s\n", domain ? domain : "?", message);
    abort();
  }
}

void fuzz_quiet(void)
{
  g_log_set_default_handler(drop_log, NULL);
  gsl_set_error_handler_off();
}
