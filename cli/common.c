/* cli/common.c — common options, log writer, progress line and result files of the
 * subcommands (see cli/common.h). */
#include "cli/common.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build/paths.h"
#include "build/version.h"
#include "cli/commands.h"
#include "sim/csv.h"
#include "sim/json.h"

/* -v count of this process: the log writer reads it (one command per process). */
static int verbosity;

/* cli_write() has said on stderr that stdout failed: close_stdout() does not say it again. */
static gboolean stdout_failure_said;

/* At exit (atexit, from cli_init): flushes and closes stdout; when a write to it failed (now
 * or earlier, e.g. --help or --version into /dev/full, GOption's help exits 0) says so and
 * exits 1, as gnulib's close_stdout does. */
static void close_stdout(void)
{
  gboolean earlier = ferror(stdout) != 0;
  errno = 0;
  gboolean now = fclose(stdout) != 0;
  if (!earlier && !now) return;
  int e = now ? errno : 0;
  if (!stdout_failure_said) {
    if (e)
      fprintf(stderr, "ocasim: write error on stdout: %s\n", g_strerror(e));
    else
      fprintf(stderr, "ocasim: write error on stdout\n");
  }
  _exit(OCASIM_EXIT_FAILURE);
}

const char *cli_version(void)
{
  return OCASIM_VERSION_STRING;
}

/* Info needs -v, debug -vv; traces were asked for by name; otherwise GLib's default writer
 * decides (it prints info and debug of the domains in G_MESSAGES_DEBUG). */
static GLogWriterOutput log_writer(GLogLevelFlags level, const GLogField *fields, gsize n, gpointer data)
{
  if (level & (G_LOG_LEVEL_INFO | G_LOG_LEVEL_DEBUG)) {
    gboolean trace = FALSE;
    for (gsize i = 0; i < n && !trace; i++) trace = !strcmp(fields[i].key, "OCASIM_TRACE");
    if (trace || verbosity >= ((level & G_LOG_LEVEL_DEBUG) ? 2 : 1)) return g_log_writer_standard_streams(level, fields, n, data);
  }
  if (level & G_LOG_LEVEL_MESSAGE) { /* a note about the input (g_message): one plain line, no time stamp */
    for (gsize i = 0; i < n; i++)
      if (!strcmp(fields[i].key, "MESSAGE")) {
        fprintf(stderr, "ocasim: %s\n", (const char *)fields[i].value);
        return G_LOG_WRITER_HANDLED;
      }
  }
  return g_log_writer_default(level, fields, n, data);
}

const char *cli_datadir(void)
{
  const char *env = g_getenv("OCASIM_DATADIR");
  return env && *env ? env : OCASIM_DATADIR;
}

void cli_init(void)
{
  setlocale(LC_ALL, "");
  setlocale(LC_NUMERIC, "C");                /* results and scenario values: always a decimal point */
  g_log_writer_default_set_use_stderr(TRUE); /* stdout carries the results */
  g_log_set_writer_func(log_writer, NULL, NULL);
  atexit(close_stdout);
}

static gboolean on_version(const char *name G_GNUC_UNUSED, const char *value G_GNUC_UNUSED, gpointer data G_GNUC_UNUSED,
                           GError **error G_GNUC_UNUSED)
{
  printf("ocasim %s\n", cli_version());
  exit(fflush(stdout) == 0 ? OCASIM_EXIT_OK : OCASIM_EXIT_FAILURE);
}

static gboolean on_verbose(const char *name G_GNUC_UNUSED, const char *value G_GNUC_UNUSED, gpointer data G_GNUC_UNUSED,
                           GError **error G_GNUC_UNUSED)
{
  verbosity++;
  return TRUE;
}

GOptionContext *cli_context_new(const char *param, const char *summary, CliCommon *c, unsigned flags)
{
  memset(c, 0, sizeof *c);
  c->flags = flags;
  GOptionContext *ctx = g_option_context_new(param);
  if (summary) g_option_context_set_summary(ctx, summary);
  g_option_context_set_main_group(ctx, g_option_group_new(NULL, NULL, NULL, c, NULL));
  return ctx;
}

/* The --log items, then OCASIM_LOG's; the first error in *error. */
static SimTrace *trace_build(const CliCommon *c, GError **error)
{
  const char *env = g_getenv("OCASIM_LOG");
  if (!(c->flags & CLI_OPT_LOG) || (!c->log && !env)) return NULL;
  g_autoptr(SimTrace) t = sim_trace_parse("", NULL);
  for (char **s = c->log; s && *s; s++)
    if (!sim_trace_add(t, *s, error)) return NULL;
  if (env && *env && !sim_trace_add(t, env, error)) {
    g_prefix_error(error, "OCASIM_LOG: ");
    return NULL;
  }
  return g_steal_pointer(&t);
}

/* GOption reads a short option's value from the next argument only ("-j 1"): "-j1" is an
 * unknown option.  When the unknown option is a value-taking short option with its value attached
 * (by the help text, "-j, --jobs=N"), the message says how to write it. */
static void attached_value_hint(GOptionContext *ctx, GError **error)
{
  if (!error || !*error || !g_error_matches(*error, G_OPTION_ERROR, G_OPTION_ERROR_UNKNOWN_OPTION)) return;
  const char *arg = strstr((*error)->message, " -");
  if (!arg || arg[2] == '-' || !g_ascii_isalpha(arg[2]) || !arg[3]) return;
  arg++; /* "-j1" */
  g_autofree char *help = g_option_context_get_help(ctx, TRUE, NULL);
  g_autofree char *pattern = g_strdup_printf("\\s-%c, --([A-Za-z0-9-]+)=(\\S+)", arg[1]);
  g_autoptr(GRegex) re = g_regex_new(pattern, 0, 0, NULL);
  g_autoptr(GMatchInfo) m = NULL;
  if (!re || !g_regex_match(re, help, 0, &m)) return;
  g_autofree char *lng = g_match_info_fetch(m, 1), *meta = g_match_info_fetch(m, 2);
  g_autofree char *msg =
      g_strdup_printf("Unknown option %s: a short option's value is the next argument (-%c %s, here -%c %s) or "
                      "write --%s=%s",
                      arg, arg[1], meta, arg[1], arg + 2, lng, arg + 2);
  g_free((*error)->message);
  (*error)->message = g_steal_pointer(&msg);
}

gboolean cli_context_parse(GOptionContext *ctx, CliCommon *c, int *argc, char ***argv, GError **error)
{
  GOptionEntry output[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &c->output,
      c->flags & CLI_OPT_REPORT ? "Write the report to FILE (atomically) instead of standard output"
                                : "Write the results to FILE (atomically; the format from --format or the extension)",
      "FILE" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  GOptionEntry progress[] = {
    { "progress", 0, 0, G_OPTION_ARG_NONE, &c->progress, "Progress lines on stderr even when it is not a terminal", NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &c->quiet, "No progress on stderr", NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  GOptionEntry log[] = {
    { "log", 0, 0, G_OPTION_ARG_STRING_ARRAY, &c->log,
      "Log the events of a component: a resource (nvme0:debug), traffic class, requests, a station, jobs or all "
      "(repeatable; also OCASIM_LOG)",
      "NAME[:LEVEL]" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  GOptionEntry always[] = {
    { "verbose", 'v', G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, (gpointer)on_verbose,
      "More log messages on stderr: -v info, -vv debug (G_MESSAGES_DEBUG works too)", NULL },
    { "version", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, (gpointer)on_version, "Print the version and exit", NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  if (c->flags & CLI_OPT_OUTPUT) g_option_context_add_main_entries(ctx, output, NULL);
  if (c->flags & CLI_OPT_PROGRESS) g_option_context_add_main_entries(ctx, progress, NULL);
  if (c->flags & CLI_OPT_LOG) g_option_context_add_main_entries(ctx, log, NULL);
  g_option_context_add_main_entries(ctx, always, NULL);
  if (!g_option_context_parse(ctx, argc, argv, error)) {
    attached_value_hint(ctx, error);
    return FALSE;
  }
  if (!cli_output_file_option("--output", c->output, error)) return FALSE;
  if (!(c->flags & CLI_OPT_LOG) || (!c->log && !g_getenv("OCASIM_LOG"))) return TRUE;
  g_autoptr(SimTrace) t = trace_build(c, error);
  return t != NULL;
}

void cli_common_clear(CliCommon *c)
{
  g_free(c->output);
  g_strfreev(c->log);
  c->output = NULL;
  c->log = NULL;
}

static const struct {
  const char *ext, *format;
} EXTENSIONS[] = { { ".json", "json" }, { ".csv", "csv" }, { ".txt", "table" }, { ".table", "table" }, { ".md", "markdown" } };

int cli_format_from_path(const char *path, const char *const *formats)
{
  if (!path) return -1;
  g_autofree char *base = g_path_get_basename(path);
  const char *dot = strrchr(base, '.');
  if (!dot || dot == base || !dot[1]) return -1; /* no extension (a leading dot names a hidden file) */
  for (size_t i = 0; i < G_N_ELEMENTS(EXTENSIONS); i++) {
    if (g_ascii_strcasecmp(dot, EXTENSIONS[i].ext)) continue;
    for (int k = 0; formats[k]; k++)
      if (!strcmp(formats[k], EXTENSIONS[i].format)) return k;
    return -2;
  }
  return -3;
}

gboolean cli_output_file_option(const char *name, const char *path, GError **error)
{
  if (!path) return TRUE;
  if (!*path) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s: empty file name", name);
    return FALSE;
  }
  if (g_file_test(path, G_FILE_TEST_IS_DIR)) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s '%s': is a directory", name, path);
    return FALSE;
  }
  g_autofree char *dir = g_path_get_dirname(path);
  if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s '%s': no directory '%s'", name, path, dir);
    return FALSE;
  }
  if (access(dir, W_OK | X_OK) != 0 || (g_file_test(path, G_FILE_TEST_EXISTS) && access(path, W_OK) != 0)) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s '%s': not writable: %s", name, path, g_strerror(errno));
    return FALSE;
  }
  return TRUE;
}

/* Writes @len bytes of @text to @fd; 0, or the errno of the failure. */
static int write_all(int fd, const char *text, gsize len)
{
  for (gsize done = 0; done < len;) {
    ssize_t n = write(fd, text + done, len - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    done += (gsize)n;
  }
  return 0;
}

/* Writes @text to a new temporary file beside @p and renames it over @p; 0, or the errno of
 * the failure (the temporary file removed). g_file_set_contents() does the same, but its
 * errors name the temporary file ("/proc/x.json.WS87Y3"), not the path the user gave. */
static int write_atomic(const char *p, const char *text, gsize len)
{
  g_autofree char *tmp = g_strdup_printf("%s.XXXXXX", p);
  int fd = g_mkstemp_full(tmp, O_RDWR | O_CLOEXEC, 0666);
  if (fd < 0) return errno;
  int e = write_all(fd, text, len);
  if (close(fd) != 0 && !e) e = errno;
  if (!e && rename(tmp, p) != 0) e = errno;
  if (e) unlink(tmp);
  return e;
}

gboolean cli_write_file(const char *path, const char *text, gsize len, GError **error)
{
  /* a rename of a temporary file over @path would replace a symbolic link by a file and a
   * device node (-o /dev/null, as root) or a FIFO by a regular file */
  g_autofree char *target = realpath(path, NULL);
  const char *p = target ? target : path; /* no such file yet: created atomically */
  struct stat st;
  int e;
  if (stat(p, &st) != 0 || S_ISREG(st.st_mode))
    e = write_atomic(p, text, len);
  else {
    int fd = open(p, O_WRONLY | O_CLOEXEC);
    e = fd < 0 ? errno : write_all(fd, text, len);
    if (fd >= 0 && close(fd) != 0 && !e) e = errno;
  }
  if (e) {
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(e), "cannot write '%s': %s", path, g_strerror(e));
    return FALSE;
  }
  return TRUE;
}

int cli_write(const CliCommon *c, GString *text, const char *format)
{
  g_autoptr(GError) err = NULL;
  if (format && !strcmp(format, "json")) {
    if (!sim_json_prepend_member(text, "ocasim_version", cli_version(), &err)) {
      fprintf(stderr, "ocasim: internal error: JSON result: %s\n", err->message);
      return OCASIM_EXIT_FAILURE;
    }
  } else if (format && !strcmp(format, "csv")) {
    sim_csv_add_column(text, "ocasim_version", cli_version());
  }
  if (c && c->output) {
    if (!cli_write_file(c->output, text->str, text->len, &err)) {
      fprintf(stderr, "ocasim: --output: %s\n", err->message);
      return OCASIM_EXIT_FAILURE;
    }
    return OCASIM_EXIT_OK;
  }
  if (fwrite(text->str, 1, text->len, stdout) != text->len || fflush(stdout) != 0) {
    perror("ocasim: stdout");
    stdout_failure_said = TRUE;
    return OCASIM_EXIT_FAILURE;
  }
  return OCASIM_EXIT_OK;
}

SimTrace *cli_trace(const CliCommon *c)
{
  return trace_build(c, NULL);
}

gboolean cli_trace_check(const CliCommon *c, const char *const *known, GError **error)
{
  if (!(c->flags & CLI_OPT_LOG)) return TRUE;
  for (char **s = c->log; s && *s; s++) {
    g_autoptr(SimTrace) t = sim_trace_parse(*s, NULL);
    if (t && !sim_trace_check(t, known, error)) {
      g_prefix_error(error, "--log '%s': ", *s);
      return FALSE;
    }
  }
  const char *env = g_getenv("OCASIM_LOG");
  g_autoptr(SimTrace) t = env && *env ? sim_trace_parse(env, NULL) : NULL;
  if (t && !sim_trace_check(t, known, error)) {
    g_prefix_error(error, "OCASIM_LOG='%s': ", env);
    return FALSE;
  }
  return TRUE;
}

/* ---- the progress line ------------------------------------------------------------------- */

struct CliProgress {
  char *what, *unit;
  gboolean tty;
  gint64 t0, t_last; /* monotonic, us */
  gboolean shown;    /* a line is on the terminal */
  double last_done;
};

CliProgress *cli_progress_start(const CliCommon *c, const char *what, const char *unit)
{
  if (!c || !(c->flags & CLI_OPT_PROGRESS) || c->quiet) return NULL;
  gboolean tty = isatty(STDERR_FILENO);
  if (!tty && !c->progress) return NULL;
  CliProgress *p = g_new0(CliProgress, 1);
  p->what = g_strdup(what);
  p->unit = g_strdup(unit);
  p->tty = tty;
  p->t0 = g_get_monotonic_time();
  p->t_last = -1;
  p->last_done = -1;
  return p;
}

/* Longest duration cli_duration_text writes out, s (about 116 days; beyond it an ETA means
 * nothing). Assumed. */
#define CLI_DURATION_MAX_S 1e7

void cli_duration_text(char *buf, size_t n, double s)
{
  if (!(s >= 0) || s > CLI_DURATION_MAX_S)
    g_snprintf(buf, n, "?");
  else if (s < 60)
    g_snprintf(buf, n, "%.0f s", s);
  else if (s < 3600)
    g_snprintf(buf, n, "%d min %02d s", (int)s / 60, (int)s % 60);
  else
    g_snprintf(buf, n, "%d h %02d min", (int)s / 3600, (int)s % 3600 / 60);
}

void cli_progress_update(double done, double total, void *ctx)
{
  CliProgress *p = ctx;
  if (!p || !(total > 0)) return;
  gint64 now = g_get_monotonic_time();
  gboolean last = done >= total;
  gint64 every = p->tty ? G_USEC_PER_SEC / 10 : G_USEC_PER_SEC;
  if (last ? p->last_done >= total : p->t_last >= 0 && now - p->t_last < every) return; /* the end once */
  p->t_last = now;
  p->last_done = done;
  double wall = (double)(now - p->t0) / G_USEC_PER_SEC;
  double rate = wall > 0 ? done / wall : 0;
  char eta[32];
  cli_duration_text(eta, sizeof eta, rate > 0 ? (total - done) / rate : -1);
  int digits = total >= 100 || total == (double)(gint64)total ? 0 : total >= 1 ? 1 : 3;
  g_autofree char *line = g_strdup_printf("%s: %.*f of %.*f %s (%.0f %%), %.3g %s/s, ETA %s", p->what, digits, done, digits,
                                          total, p->unit, 100 * done / total, rate, p->unit, last ? "0 s" : eta);
  if (p->tty)
    fprintf(stderr, "\r\033[K%s", line);
  else
    fprintf(stderr, "%s\n", line);
  fflush(stderr);
  p->shown = p->tty;
}

void cli_progress_end(CliProgress *p)
{
  if (!p) return;
  if (p->shown) {
    fputs("\r\033[K", stderr);
    fflush(stderr);
  }
  g_free(p->what);
  g_free(p->unit);
  g_free(p);
}
