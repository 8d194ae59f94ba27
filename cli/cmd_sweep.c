/* cli/cmd_sweep.c — `ocasim sweep SWEEP.yaml`: every point of a sweep file (sim/sweep.h,
 * cli/sweep_appliance.h) evaluated in-process on a GLib thread pool (-j N, all cores by default) and, when built with
 * `make MPI=1` and started by mpirun, spread over the ranks (cli/sweep_dist.h).
 *
 * Results: with --out PREFIX, PREFIX.csv and PREFIX.jsonl, one row per run in run order
 * (point-major, then replication), whatever the thread count or ranks; replicated sweeps also
 * PREFIX.summary.csv and PREFIX.summary.jsonl (mean and 95 % CI per output per point). Rows are
 * appended as they complete in order to PREFIX.csv.part and PREFIX.jsonl.part (complete lines,
 * flushed, fdatasync'd at most once a second), which are renamed to the final names when the
 * last run is written, so a final file only ever appears whole. Beside them PREFIX.inputs.part
 * holds the digest of everything the rows depend on (sim/sweep.h sim_sweep_inputs: the sweep file,
 * the scenario and its platform files, the overrides, the seed, the version), written before the
 * first row and removed once the results and summaries are whole. A write that fails (a full
 * disk) stops the sweep with the file and errno named and exit status 1; nothing is renamed.
 * While a sweep writes (or resumes) PREFIX, it holds an advisory lock, flock(PREFIX.lock), and a
 * second sweep on the prefix is refused. --resume refuses rows of other inputs (the digest) or of
 * another sweep or version (their id columns), keeps the rows of the .part files that are whole
 * and intact (each JSON row parsed and both its lines exactly what that row writes; the first
 * damaged line, a torn last line included, and all after it run again), writes the summaries a
 * sweep killed before them lacks, and runs
 * the rest: the final files equal an uninterrupted run's byte for byte. --limit N stops after N
 * more runs (a sweep in chunks). Without --out the rows go to stdout (CSV, or JSON Lines with
 * --format json). A failing point is a row with its error; the sweep goes on.
 * Progress on stderr: on a terminal one line rewritten in place (runs done, rate, ETA); off a
 * terminal a plain line every 10 s; --quiet silences both; a last line says what was written.
 */
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/scenario.h"
#include "cli/sweep_dist.h"
#include "cli/sweep_appliance.h"
#include "sim/sweep.h"

/* Most local worker processes --jobs may ask for (assumed: far above one host's cores). */
#define SWEEP_MAX_JOBS 4096

/* Off a terminal, a progress line every this many microseconds; on one, a redraw at most every. */
#define PROGRESS_PLAIN_US (10 * G_USEC_PER_SEC)
#define PROGRESS_TTY_US   (G_USEC_PER_SEC / 5)
#define SYNC_INTERVAL_US  G_USEC_PER_SEC
#define POLL_MPI_US       2000
#define POLL_LOCAL_US     (G_USEC_PER_SEC / 4)

typedef struct {
  char *csv, *json; /* the run's lines, NULL until it is done */
  int failed;       /* whether the run failed: 1, 0, or -1 where only its line says (another rank's) */
} Done;

typedef struct {
  const SimSweep *spec;
  GMutex lock;
  GCond cond;
  Done *done;         /* [n_runs] */
  GAsyncQueue *memos; /* SweepMemo *: one taken by each running worker (sim_sweep_run's worker) */
} Pool;

typedef struct {
  gboolean quiet, tty;
  gint64 t0, last;
  guint total, base; /* runs in the sweep; runs already done when this process started */
} Progress;

/* Where the rows go: the .part files of --out, or stdout. */
typedef struct {
  FILE *csv, *json;
  char *csv_final, *json_final, *csv_part, *json_part;
  char *inputs_part; /* PREFIX.inputs.part: sim_sweep_inputs() of the rows in the .part files */
  gint64 last_sync;
  gboolean to_stdout, stdout_json;
  int err;              /* the first write failure's errno (0: none) */
  const char *err_path; /* and the file it failed on */
} Sink;
/* ------------------------------------------------------------------------------------------ */
/* Progress                                                                                   */

/* Shows @done of the runs, at most every PROGRESS_TTY_US on a terminal (one line rewritten)
 * or every PROGRESS_PLAIN_US off one (a line each); nothing with --quiet. */
static void progress_show(Progress *p, guint done)
{
  if (p->quiet) return;
  gint64 now = g_get_monotonic_time();
  if (now - p->last < (p->tty ? PROGRESS_TTY_US : PROGRESS_PLAIN_US)) return;
  p->last = now;
  double dt = (now - p->t0) / 1e6, rate = dt > 0 ? (done - p->base) / dt : 0;
  char eta[32];
  cli_duration_text(eta, sizeof eta, rate > 0 ? (p->total - done) / rate : -1);
  fprintf(stderr, "%ssweep: %u/%u runs (%.0f %%), %.0f runs/s, ETA %s%s", p->tty ? "\r" : "", done, p->total,
          100.0 * done / p->total, rate, eta, p->tty ? "   " : "\n");
  fflush(stderr);
}

/* ------------------------------------------------------------------------------------------ */
/* Workers                                                                                    */

static void memo_free(gpointer memo)
{
  sweep_memo_free(memo);
}

static void worker(gpointer data, gpointer user)
{
  Pool *pool = user;
  guint run = GPOINTER_TO_UINT(data) - 1;
  SweepMemo *memo = g_async_queue_try_pop(pool->memos);
  if (!memo) memo = sweep_memo_new();
  g_autoptr(SimSweepRow) row = sim_sweep_run(pool->spec, run, memo);
  g_async_queue_push(pool->memos, memo);
  GString *csv = g_string_new(NULL), *json = g_string_new(NULL);
  sim_sweep_row_append_csv(pool->spec, row, csv);
  sim_sweep_row_append_json(pool->spec, row, json);
  g_mutex_lock(&pool->lock);
  pool->done[run].csv = g_string_free(csv, FALSE);
  pool->done[run].json = g_string_free(json, FALSE);
  pool->done[run].failed = sim_sweep_row_failed(pool->spec, row);
  g_cond_broadcast(&pool->cond);
  g_mutex_unlock(&pool->lock);
}

/* ------------------------------------------------------------------------------------------ */
/* Results files                                                                              */

/* Complete lines in @text from @from: their count (at most @max) and where the last ends. */
static guint complete_lines(const char *text, gsize len, gsize from, guint max, gsize *end)
{
  guint n = 0;
  *end = from;
  for (gsize i = from; i < len && n < max; i++)
    if (text[i] == '\n') {
      n++;
      *end = i + 1;
    }
  return n;
}

/* Records the first write failure of the results (@path, @e: its errno) and returns FALSE. */
static gboolean sink_fail(Sink *k, const char *path, int e)
{
  if (!k->err) {
    k->err = e ? e : EIO;
    k->err_path = path;
  }
  return FALSE;
}

/* Whether @path exists (a link counts, whatever it names). */
static gboolean exists(const char *path)
{
  struct stat st;
  return lstat(path, &st) == 0;
}

/* The first complete line of @text[0, @len): its length without the newline, or -1 (none). */
static gssize line_len(const char *text, gsize len)
{
  const char *nl = memchr(text, '\n', len);
  return nl ? nl - text : -1;
}

/* Whether the rows of an earlier run (@k's .part files or a result not yet summarised) were
 * computed from what this sweep computes them from: its PREFIX.inputs.part holds this spec's
 * sim_sweep_inputs(). FALSE with a message when not (@what names the rows). */
static gboolean inputs_same(const SimSweep *spec, const Sink *k, const char *what, const char *prog)
{
  g_autofree char *stored = NULL;
  g_autoptr(GError) e = NULL;
  if (!g_file_get_contents(k->inputs_part, &stored, NULL, &e)) {
    fprintf(stderr,
            "%s: --resume: cannot tell what %s were computed from: %s (written by each sweep beside its .part files); run it "
            "again without --resume\n",
            prog, what, e->message);
    return FALSE;
  }
  g_autofree char *changed = sim_sweep_inputs_changed(spec, stored);
  if (!changed) return TRUE;
  fprintf(stderr,
          "%s: --resume: %s were computed from other inputs than this sweep's (%s: %s); resuming would mix two sweeps in one "
          "result: run it again without --resume (or with another --out)\n",
          prog, what, k->inputs_part, changed);
  return FALSE;
}

/* Reads the rows of an earlier, interrupted run of this sweep: the run to start from, with
 * both .part files cut to their common rows that are whole and intact; -1 with a message when
 * they are another sweep's (other inputs, columns, ids or version: exit status 2). Every kept
 * row is checked: its JSON line parses as this run's row and both its lines are exactly what
 * this row writes, so a NUL byte, a cut, edited or garbage line ends the kept rows there (said
 * on stderr; the rest runs again) and the final files equal an uninterrupted run's. */
static gint64 resume_point(const SimSweep *spec, Sink *k, const char *prog)
{
  g_autofree char *csv = NULL, *json = NULL;
  gsize lc = 0, lj = 0;
  g_autoptr(GString) header = g_string_new(NULL);
  sim_sweep_csv_header(spec, header);
  guint n_runs = sim_sweep_n_runs(spec);
  gboolean parts = exists(k->csv_part) || exists(k->json_part);
  /* killed between the renames of a complete result: PREFIX.csv in place, PREFIX.jsonl not yet */
  if (!exists(k->csv_part) && exists(k->csv_final) && !exists(k->json_final) && exists(k->json_part)) {
    if (!inputs_same(spec, k, k->json_part, prog)) return -1;
    if (g_rename(k->json_part, k->json_final) != 0) {
      fprintf(stderr, "%s: --resume: cannot rename '%s': %s\n", prog, k->json_part, g_strerror(errno));
      return -1;
    }
    parts = FALSE;
  }
  if (!parts && g_file_get_contents(k->csv_final, &csv, &lc, NULL)) {
    gsize end;
    g_autofree char *done = NULL;
    gboolean same = g_str_has_prefix(csv, header->str) && complete_lines(csv, lc, header->len, G_MAXUINT, &end) == n_runs &&
                    end == lc && g_file_get_contents(k->json_final, &done, NULL, NULL);
    /* of this very sweep, as the rows of a .part file below */
    g_auto(GStrv) lines = same ? g_strsplit(done, "\n", -1) : NULL;
    for (guint i = 0; same && i < n_runs; i++) same = lines[i] && sim_sweep_row_line_is_run(spec, lines[i], i);
    /* not yet summarised (killed before the summaries): its inputs are still beside it */
    if (same && exists(k->inputs_part) && !inputs_same(spec, k, k->csv_final, prog)) return -1;
    if (same) return n_runs; /* already complete */
    fprintf(stderr, "%s: --resume: %s is not a complete result of this sweep\n", prog, k->csv_final);
    return -1;
  }
  if (!parts) return 0; /* nothing to resume */
  if (!inputs_same(spec, k, k->csv_part, prog)) return -1;
  if (!g_file_get_contents(k->csv_part, &csv, &lc, NULL)) csv = g_strdup(""), lc = 0;
  if (!g_file_get_contents(k->json_part, &json, &lj, NULL)) json = g_strdup(""), lj = 0;
  if (lc < header->len || memcmp(csv, header->str, header->len)) {
    if (lc < header->len && !memcmp(csv, header->str, lc)) return 0; /* killed before the header was whole */
    fprintf(stderr, "%s: --resume: %s has other columns than this sweep's (a different sweep file?)\n", prog, k->csv_part);
    return -1;
  }
  gsize cend = header->len, jend = 0;
  guint n = 0;
  g_autofree char *damage = NULL;
  for (; n < n_runs && !damage; n++) {
    gssize cl = line_len(csv + cend, lc - cend), jl = line_len(json + jend, lj - jend);
    if (cl < 0 || jl < 0) break; /* the end of either file: a torn last line is cut */
    const char *bad_file = k->json_part;
    if (memchr(json + jend, '\0', (gsize)jl) || memchr(csv + cend, '\0', (gsize)cl)) {
      bad_file = memchr(json + jend, '\0', (gsize)jl) ? k->json_part : k->csv_part;
      damage = g_strdup("holds a NUL byte");
    }
    g_autofree char *one = damage ? NULL : g_strndup(json + jend, (gsize)jl);
    g_autoptr(GError) e = NULL;
    g_autoptr(SimSweepRow) row = damage ? NULL : sim_sweep_row_parse_json(spec, one, &e);
    guint want_p = n / sim_sweep_replications(spec), want_r = n % sim_sweep_replications(spec);
    if (!damage && !row && !g_error_matches(e, SIM_SWEEP_ERROR, SIM_SWEEP_ERROR_OTHER_SWEEP))
      damage = g_strdup_printf("is not a row (%s)", e->message);
    else if (!damage && (!row || row->cells[0].i != want_p || row->cells[1].i != want_r)) {
      fprintf(stderr, "%s: --resume: %s line %u is not run %u of this sweep%s%s\n", prog, k->json_part, n + 1, n, e ? ": " : "",
              e ? e->message : "");
      return -1;
    }
    /* the same place is not enough: the final file must equal an uninterrupted run's */
    if (!damage && !sim_sweep_row_line_is_run(spec, one, n)) {
      fprintf(stderr,
              "%s: --resume: %s line %u is run %u of another sweep (its scenario, mode, seed, overrides or varied values "
              "differ: another --set, --seed, --duration or sweep file?); run it again without --resume\n",
              prog, k->json_part, n + 1, n);
      return -1;
    }
    if (!damage) { /* both lines exactly as this row writes them: nothing edited, nothing cut */
      g_autoptr(GString) c = g_string_new(NULL), j = g_string_new(NULL);
      sim_sweep_row_append_csv(spec, row, c);
      sim_sweep_row_append_json(spec, row, j);
      if (j->len != (gsize)jl + 1 || memcmp(j->str, json + jend, j->len))
        damage = g_strdup("is not the row this run writes (edited or cut)");
      else if (c->len != (gsize)cl + 1 || memcmp(c->str, csv + cend, c->len)) {
        bad_file = k->csv_part;
        damage = g_strdup_printf("and %s line %u disagree (one edited or cut)", k->json_part, n + 1);
      }
    }
    if (damage) {
      fprintf(stderr, "%s: --resume: %s line %u %s: the rows from run %u on are run again\n", prog, bad_file,
              n + 1 + (bad_file == k->csv_part), damage, n);
      break;
    }
    cend += (gsize)cl + 1;
    jend += (gsize)jl + 1;
  }
  if (truncate(k->csv_part, (off_t)cend) != 0 || truncate(k->json_part, (off_t)jend) != 0) {
    fprintf(stderr, "%s: --resume: cannot cut the partial results: %s\n", prog, g_strerror(errno));
    return -1;
  }
  return n;
}

/* Opens the results: stdout, or the .part files (appended to from run @start, or new with the
 * header and, first, PREFIX.inputs.part, written whole before any row). */
static gboolean sink_open(Sink *k, const SimSweep *spec, guint start, const char *prog)
{
  g_autoptr(GString) h = g_string_new(NULL);
  sim_sweep_csv_header(spec, h);
  if (k->to_stdout) {
    k->csv = k->stdout_json ? NULL : stdout;
    k->json = k->stdout_json ? stdout : NULL;
    if (!k->stdout_json) fputs(h->str, stdout);
    return TRUE;
  }
  g_autoptr(GError) e = NULL;
  if (!start && !cli_write_file(k->inputs_part, sim_sweep_inputs(spec), strlen(sim_sweep_inputs(spec)), &e)) {
    fprintf(stderr, "%s: %s\n", prog, e->message);
    return FALSE;
  }
  k->csv = g_fopen(k->csv_part, start ? "ab" : "wb");
  k->json = k->csv ? g_fopen(k->json_part, start ? "ab" : "wb") : NULL;
  if (!k->json) {
    fprintf(stderr, "%s: cannot open '%s': %s\n", prog, k->csv ? k->json_part : k->csv_part, g_strerror(errno));
    return FALSE;
  }
  if (!start && (fputs(h->str, k->csv) < 0 || fflush(k->csv) != 0)) return sink_fail(k, k->csv_part, errno);
  return TRUE;
}

/* Flushes the .part files and fdatasync()s them (the rows on disk); FALSE on a failure. */
static gboolean sink_sync(Sink *k)
{
  k->last_sync = g_get_monotonic_time();
  if (k->to_stdout) return fflush(stdout) == 0;
  if (!k->csv || !k->json) return TRUE; /* not open */
  if (fflush(k->csv) != 0 || fdatasync(fileno(k->csv)) != 0) return sink_fail(k, k->csv_part, errno);
  if (fflush(k->json) != 0 || fdatasync(fileno(k->json)) != 0) return sink_fail(k, k->json_part, errno);
  return TRUE;
}

/* Appends one run's lines; after a failure nothing more is written (the files stay a prefix of
 * what they should hold, a torn last line at most, which --resume cuts). */
static gboolean sink_write(Sink *k, const Done *d)
{
  if (k->err) return FALSE;
  if (k->to_stdout) return fputs(k->csv ? d->csv : d->json, stdout) >= 0;
  /* complete lines reach the file: a kill loses at most the line being written */
  if (fputs(d->csv, k->csv) < 0 || fflush(k->csv) != 0) return sink_fail(k, k->csv_part, errno);
  if (fputs(d->json, k->json) < 0 || fflush(k->json) != 0) return sink_fail(k, k->json_part, errno);
  return g_get_monotonic_time() - k->last_sync <= SYNC_INTERVAL_US || sink_sync(k);
}

/* Closes the results; when @complete and nothing failed, renames the .part files to their final
 * names (a final file only ever appears whole). FALSE when a write, sync, close or rename failed
 * (k->err, k->err_path say which). */
static gboolean sink_close(Sink *k, gboolean complete)
{
  if (!k->err) sink_sync(k);
  if (!k->to_stdout) {
    if (k->csv && fclose(k->csv) != 0) sink_fail(k, k->csv_part, errno);
    if (k->json && fclose(k->json) != 0) sink_fail(k, k->json_part, errno);
    if (!k->err && complete && g_rename(k->csv_part, k->csv_final) != 0) sink_fail(k, k->csv_final, errno);
    if (!k->err && complete && g_rename(k->json_part, k->json_final) != 0) sink_fail(k, k->json_final, errno);
  }
  k->csv = k->json = NULL;
  return !k->err;
}

static void sink_clear(Sink *k)
{
  g_free(k->csv_final);
  g_free(k->json_final);
  g_free(k->csv_part);
  g_free(k->json_part);
  g_free(k->inputs_part);
}

/* The advisory lock of --out @prefix: PREFIX.lock, flock()ed while this process writes (or
 * resumes) the results, so that a second sweep or --resume on the same prefix is refused
 * rather than interleaving its rows with this one's. The fd to give out_unlock(), or -1 with
 * @error. A lock file removed by its holder between our open and flock is opened again. */
static int out_lock(const char *prefix, GError **error)
{
  g_autofree char *path = g_strconcat(prefix, ".lock", NULL);
  for (int attempt = 0; attempt < 16; attempt++) {
    int fd = g_open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
      int e = errno;
      g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(e), "--out '%s': cannot create the lock '%s': %s", prefix, path,
                  g_strerror(e));
      return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      int e = errno;
      close(fd);
      if (e == EWOULDBLOCK)
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_EXIST,
                    "--out '%s': another ocasim sweep is writing these results (it holds the lock '%s'); wait for it to end "
                    "(then --resume if it was cut short) or give another --out",
                    prefix, path);
      else
        g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(e), "--out '%s': cannot lock '%s': %s", prefix, path,
                    g_strerror(e));
      return -1;
    }
    struct stat held, now;
    if (fstat(fd, &held) == 0 && stat(path, &now) == 0 && held.st_dev == now.st_dev && held.st_ino == now.st_ino) return fd;
    close(fd); /* its holder finished and removed it: lock the file at the path now */
  }
  g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_EXIST, "--out '%s': cannot take the lock '%s': it keeps being replaced", prefix,
              path);
  return -1;
}

/* Removes the lock of out_lock() (still held, so nobody has it in between) and releases it. */
static void out_unlock(const char *prefix, int fd)
{
  if (fd < 0) return;
  g_autofree char *path = g_strconcat(prefix, ".lock", NULL);
  g_unlink(path);
  close(fd);
}

/* Refuses a result file of --out @prefix that is a symbolic link: the results are renamed into
 * place (PREFIX.csv.part -> PREFIX.csv; the summaries by a temporary file), which would replace
 * the link by a regular file and leave the file it names as it was. */
static gboolean out_links_refused(const char *prefix, gboolean summaries, GError **error)
{
  static const char *const ext[] = { ".csv", ".jsonl", ".summary.csv", ".summary.jsonl" };
  for (size_t i = 0; i < (summaries ? 4u : 2u); i++) {
    g_autofree char *f = g_strconcat(prefix, ext[i], NULL);
    struct stat st;
    if (lstat(f, &st) == 0 && S_ISLNK(st.st_mode)) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "--out '%s': '%s' is a symbolic link; the results are renamed into place and would replace it: give "
                  "--out the prefix of the files it names, or remove it",
                  prefix, f);
      return FALSE;
    }
  }
  return TRUE;
}

/* PREFIX.summary.csv and .jsonl of a replicated sweep, from the complete PREFIX.jsonl. */
static gboolean write_summary(const SimSweep *spec, const char *prefix, GError **error)
{
  g_autofree char *jpath = g_strdup_printf("%s.jsonl", prefix);
  g_autofree char *text = NULL;
  if (!g_file_get_contents(jpath, &text, NULL, error)) return FALSE;
  guint reps = sim_sweep_replications(spec), n_runs = sim_sweep_n_runs(spec);
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func((GDestroyNotify)sim_sweep_row_free);
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  for (guint i = 0; i < n_runs; i++) {
    SimSweepRow *row = lines[i] ? sim_sweep_row_parse_json(spec, lines[i], error) : NULL;
    if (!row) {
      if (!lines[i]) g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: %u rows, expected %u", jpath, i, n_runs);
      return FALSE;
    }
    g_ptr_array_add(rows, row);
  }
  g_autoptr(GString) csv = g_string_new(NULL), json = g_string_new(NULL);
  sim_sweep_summary_csv_header(spec, csv);
  for (guint p = 0; p < sim_sweep_n_points(spec); p++) {
    SimSweepRow *const *of = (SimSweepRow *const *)rows->pdata + (gsize)p * reps;
    sim_sweep_summary_append(spec, p, of, reps, FALSE, csv);
    sim_sweep_summary_append(spec, p, of, reps, TRUE, json);
  }
  g_autofree char *cs = g_strdup_printf("%s.summary.csv", prefix), *js = g_strdup_printf("%s.summary.jsonl", prefix);
  return cli_write_file(cs, csv->str, csv->len, error) && cli_write_file(js, json->str, json->len, error);
}

/* ------------------------------------------------------------------------------------------ */
/* The sweep                                                                                  */

typedef struct {
  char *jobs, *out, *limit;
  gboolean resume, quiet;
} SweepOpts;

/* The command line's scenario overrides: --duration, --warmup, --rate-precision (as the --set
 * rate_precision=EPS), then each --set. */
static GPtrArray *base_sets(const CliOptions *opt)
{
  GPtrArray *sets = g_ptr_array_new_with_free_func(g_free);
  if (opt->duration) g_ptr_array_add(sets, g_strdup_printf("--duration=%s", opt->duration));
  if (opt->warmup) g_ptr_array_add(sets, g_strdup_printf("--warmup=%s", opt->warmup));
  if (opt->rate_precision) g_ptr_array_add(sets, g_strdup_printf("rate_precision=%s", opt->rate_precision));
  for (char **s = opt->sets; s && *s; s++) g_ptr_array_add(sets, g_strdup(*s));
  g_ptr_array_add(sets, NULL);
  return sets;
}

/* Rank 0: writes the rows [start, end) in order as they finish here or arrive from other ranks. */
static gboolean collect(Pool *pool, Sink *sink, Progress *prog, guint start, guint end, int size, guint *failed)
{
  gboolean ok = TRUE;
  g_autofree Done *ready = g_new0(Done, MAX(end - start, 1));
  for (guint next = start; next < end;) {
    guint run;
    char *csv, *json;
    while (size > 1 && sweep_dist_poll(&run, &csv, &json)) {
      g_mutex_lock(&pool->lock);
      pool->done[run] = (Done){ csv, json, -1 };
      g_mutex_unlock(&pool->lock);
    }
    guint n = 0;
    g_mutex_lock(&pool->lock);
    while (next + n < end && pool->done[next + n].csv) {
      ready[n] = pool->done[next + n];
      pool->done[next + n] = (Done){ NULL, NULL, 0 };
      n++;
    }
    if (!n) g_cond_wait_until(&pool->cond, &pool->lock, g_get_monotonic_time() + (size > 1 ? POLL_MPI_US : POLL_LOCAL_US));
    g_mutex_unlock(&pool->lock);
    for (guint i = 0; i < n; i++) {
      ok = ok && sink_write(sink, &ready[i]);
      *failed += ready[i].failed >= 0 ? ready[i].failed != 0 : sim_sweep_row_line_failed(ready[i].json) != 0;
      g_free(ready[i].csv);
      g_free(ready[i].json);
    }
    next += n;
    progress_show(prog, next);
    if (!ok && size == 1) break; /* the rest could not be written: stop (other ranks still send theirs) */
  }
  return ok;
}

/* Other ranks: sends this rank's runs to rank 0 in order as they finish. */
static void forward(Pool *pool, guint start, guint end, int rank, int size)
{
  for (guint run = start + (guint)rank; run < end; run += (guint)size) {
    g_mutex_lock(&pool->lock);
    while (!pool->done[run].csv) g_cond_wait(&pool->cond, &pool->lock);
    Done d = pool->done[run];
    pool->done[run] = (Done){ NULL, NULL, 0 };
    g_mutex_unlock(&pool->lock);
    sweep_dist_send(run, d.csv, d.json);
    g_free(d.csv);
    g_free(d.json);
  }
}

static int sweep_main(const CliOptions *opt, const SweepOpts *so, int rank, int size)
{
  const char *prog = "ocasim sweep";
  g_autoptr(GError) error = NULL;
  int jobs = g_get_num_processors() / sweep_dist_local_size(), limit = G_MAXINT;
  gint64 seed = -1;
  if (jobs < 1) jobs = 1;
  int seed_int = -1;
  if (!cli_int_option("--jobs", so->jobs, 1, SWEEP_MAX_JOBS, NULL, &jobs, &error) ||
      !cli_int_option("--limit", so->limit, 0, G_MAXINT, NULL, &limit, &error) ||
      !cli_int_option("--seed", opt->seed, 0, G_MAXINT, NULL, &seed_int, &error))
    return rank == 0 ? cli_fail(error) : OCASIM_EXIT_BADINPUT;
  seed = seed_int;
  /* PREFIX names files: "", "dir/" or an existing directory would give hidden files (.csv,
   * dir/.csv) or files beside the directory (dir.csv) */
  if (so->out && (!*so->out || g_str_has_suffix(so->out, G_DIR_SEPARATOR_S) || g_file_test(so->out, G_FILE_TEST_IS_DIR))) {
    if (rank == 0)
      fprintf(stderr, "%s: --out '%s': %s; PREFIX names the result files (--out build/whatif writes build/whatif.csv)\n", prog,
              so->out, *so->out ? "is a directory" : "empty prefix");
    return OCASIM_EXIT_BADINPUT;
  }
  if (so->resume && !so->out) {
    if (rank == 0) fprintf(stderr, "%s: --resume needs --out PREFIX (the results to resume)\n", prog);
    return OCASIM_EXIT_BADINPUT;
  }
  for (char **s = opt->sets; s && *s; s++) {
    /* as a sweep file's set: seed, which sim_sweep_load() refuses: it would be replaced without a word */
    const char *eq = strchr(*s, '=');
    g_autofree char *key = eq ? g_strstrip(g_strndup(*s, eq - *s)) : NULL;
    if (key && !strcmp(key, "seed")) {
      if (rank == 0)
        fprintf(stderr, "ocasim: --set: seed: every run's seed derives from the sweep's seed: give --seed N (or vary seed)\n");
      return OCASIM_EXIT_BADINPUT;
    }
  }
  g_autoptr(GPtrArray) sets = base_sets(opt);
  g_autoptr(CliIncludes) inc = cli_includes_new(opt);
  g_autoptr(SweepAppliance) app =
      sweep_appliance_load(opt->files[0], (const char *const *)sets->pdata, seed, &inc->policy, cli_version(), &error);
  if (!app) return rank == 0 ? cli_fail(error) : OCASIM_EXIT_BADINPUT;
  sweep_appliance_set_interval(app, opt->interval); /* mode bound: the points' prediction intervals */
  const SimSweep *spec = sweep_appliance_sweep(app);

  if (rank == 0) {
    g_autofree char *short_run = sweep_appliance_short_run_warning(app);
    if (short_run) g_message("%s (the sweep's base scenario)", short_run);
  }
  guint n_runs = sim_sweep_n_runs(spec);
  Sink sink = { .to_stdout = so->out == NULL, .stdout_json = opt->format == CLI_FORMAT_JSON };
  if (so->out) {
    sink.csv_final = g_strdup_printf("%s.csv", so->out);
    sink.json_final = g_strdup_printf("%s.jsonl", so->out);
    sink.csv_part = g_strdup_printf("%s.csv.part", so->out);
    sink.json_part = g_strdup_printf("%s.jsonl.part", so->out);
    sink.inputs_part = g_strdup_printf("%s.inputs.part", so->out);
  }
  /* rank 0 finds where to start and opens the results, or says why not (one message, here or
   * where it failed) and the exit status; the other ranks learn only whether to go on */
  gint64 start = 0;
  int fail = OCASIM_EXIT_OK, lock = -1;
  gboolean summarise = so->out && sim_sweep_replications(spec) > 1;
  if (rank == 0) {
    if (so->out && (!cli_output_file_option("--out", sink.csv_final, &error) || !out_links_refused(so->out, summarise, &error)))
      fail = OCASIM_EXIT_BADINPUT;
    else if (so->out && (lock = out_lock(so->out, &error)) < 0)
      fail = OCASIM_EXIT_FAILURE;
    if (error) cli_fail(error);
    if (!fail && so->resume && (start = resume_point(spec, &sink, prog)) < 0) fail = OCASIM_EXIT_BADINPUT;
    if (!fail && start < n_runs && !sink_open(&sink, spec, (guint)start, prog)) {
      if (sink.err) fprintf(stderr, "%s: cannot write '%s': %s\n", prog, sink.err_path, g_strerror(sink.err));
      fail = OCASIM_EXIT_FAILURE;
    }
  }
  fail = (int)sweep_dist_bcast(fail);
  start = sweep_dist_bcast(start);
  if (fail) {
    if (rank == 0) sink_close(&sink, FALSE);
    out_unlock(so->out, lock);
    sink_clear(&sink);
    return fail;
  }
  int status = OCASIM_EXIT_OK;
  if (start == n_runs) { /* --resume of a sweep that had finished (its summaries perhaps not yet) */
    if (rank == 0 && summarise && !write_summary(spec, so->out, &error)) {
      fprintf(stderr, "%s: summary: %s\n", prog, error->message);
      status = OCASIM_EXIT_FAILURE;
    }
    if (rank == 0 && status == OCASIM_EXIT_OK) g_unlink(sink.inputs_part);
    if (rank == 0 && !so->quiet && status == OCASIM_EXIT_OK)
      fprintf(stderr, "%s: %s: already complete (%u runs)\n", prog, sink.csv_final, n_runs);
    out_unlock(so->out, lock);
    sink_clear(&sink);
    return status;
  }
  guint end = (guint)MIN((gint64)n_runs, start + (gint64)limit);
  gint64 t0 = g_get_monotonic_time();
  Progress prog_state = {
    .quiet = so->quiet || rank != 0, .tty = isatty(STDERR_FILENO), .t0 = t0, .last = t0, .total = n_runs, .base = (guint)start
  };

  Pool pool = { .spec = spec };
  g_mutex_init(&pool.lock);
  g_cond_init(&pool.cond);
  pool.done = g_new0(Done, n_runs);
  pool.memos = g_async_queue_new_full(memo_free);
  GThreadPool *tp = g_thread_pool_new(worker, &pool, jobs, FALSE, NULL);
  for (guint run = (guint)start + (guint)rank; run < end; run += (guint)size)
    g_thread_pool_push(tp, GUINT_TO_POINTER(run + 1), NULL);
  guint failed = 0;
  gboolean ok = TRUE;
  if (rank == 0)
    ok = collect(&pool, &sink, &prog_state, (guint)start, end, size, &failed);
  else
    forward(&pool, (guint)start, end, rank, size);
  g_thread_pool_free(tp, !ok, TRUE); /* after a write failure, the runs not started are dropped */
  for (guint i = 0; i < n_runs; i++) g_free(pool.done[i].csv), g_free(pool.done[i].json);
  g_free(pool.done);
  g_async_queue_unref(pool.memos);
  g_mutex_clear(&pool.lock);
  g_cond_clear(&pool.cond);

  if (rank == 0) {
    gboolean complete = end == n_runs;
    /* a write that failed (a full disk): the .part files keep the rows written whole, nothing
     * is renamed into place, and --resume continues from them once there is room */
    if (!sink_close(&sink, complete && ok) || !ok) {
      if (sink.err)
        fprintf(stderr, "%s: cannot write '%s': %s%s\n", prog, sink.err_path, g_strerror(sink.err),
                so->out ? "; the rows written whole are kept: --resume continues from them" : "");
      else
        fprintf(stderr, "%s: cannot write the results to standard output\n", prog);
      status = OCASIM_EXIT_FAILURE;
    } else if (complete && summarise && !write_summary(spec, so->out, &error)) {
      fprintf(stderr, "%s: summary: %s; --resume writes it\n", prog, error->message);
      status = OCASIM_EXIT_FAILURE;
    }
    if (complete && so->out && status == OCASIM_EXIT_OK) g_unlink(sink.inputs_part);
    if (!so->quiet && status == OCASIM_EXIT_OK) {
      double dt = (g_get_monotonic_time() - prog_state.t0) / 1e6;
      guint ran = end - (guint)start;
      fprintf(stderr, "%ssweep: %u runs (%u failed) in %.2f s, %.0f runs/s, %d thread%s x %d rank%s", prog_state.tty ? "\r" : "",
              ran, failed, dt, dt > 0 ? ran / dt : 0, jobs, jobs == 1 ? "" : "s", size, size == 1 ? "" : "s");
      if (!so->out)
        fprintf(stderr, "\n");
      else if (complete)
        fprintf(stderr, " -> %s, %s%s\n", sink.csv_final, sink.json_final, summarise ? " (+ .summary.csv, .summary.jsonl)" : "");
      else
        fprintf(stderr, "; %u of %u runs in %s: --resume continues\n", end, n_runs, sink.csv_part);
    }
  }
  out_unlock(so->out, lock);
  sink_clear(&sink);
  return status;
}

int cmd_sweep(int argc, char **argv)
{
  int rank = 0, size = 1;
  if (!sweep_dist_init(&argc, &argv, &rank, &size)) return OCASIM_EXIT_FAILURE;
  SweepOpts so = { 0 };
  GOptionEntry extra[] = {
    { "jobs", 'j', 0, G_OPTION_ARG_STRING, &so.jobs, "Threads (default: every core; under mpirun, per rank)", "N" },
    { "out", 0, 0, G_OPTION_ARG_FILENAME, &so.out, "Write PREFIX.csv and PREFIX.jsonl (default: rows on stdout)", "PREFIX" },
    { "resume", 0, 0, G_OPTION_ARG_NONE, &so.resume, "Keep the finished runs of an interrupted --out and run the rest", NULL },
    { "limit", 0, 0, G_OPTION_ARG_STRING, &so.limit, "Stop after N more runs (continue later with --resume)", "N" },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  CliOptions opt;
  g_autoptr(GError) error = NULL;
  int status;
  if (!cli_parse(&argc, &argv, &opt, extra, "SWEEP.yaml",
                 "Runs every point of the sweep file SWEEP.yaml (sim/sweep.h) in-process on all cores and writes\n"
                 "one row per run. --seed sets the sweep seed; --duration, --warmup and --set change the base scenario.\n"
                 "Progress: a line redrawn on a terminal, a plain line every 10 s off one; -q/--quiet silences it.",
                 CLI_OPT_TIMED | CLI_OPT_PROGRESS | CLI_OPT_ROWS | CLI_OPT_INTERVAL, &error)) {
    status = rank == 0 ? cli_fail(error) : OCASIM_EXIT_BADINPUT;
  } else {
    so.quiet = opt.common.quiet;
    if (!opt.files || !opt.files[0] || opt.files[1]) {
      if (rank == 0) fprintf(stderr, "ocasim: sweep needs exactly one SWEEP.yaml (see --help)\n");
      status = OCASIM_EXIT_BADINPUT;
    } else if (opt.format_text && so.out) { /* it would be ignored: --out writes both formats */
      if (rank == 0)
        fprintf(stderr,
                "ocasim: --format: '%s': --out writes both PREFIX.csv and PREFIX.jsonl; --format chooses the rows on "
                "standard output, without --out\n",
                opt.format_text);
      status = OCASIM_EXIT_BADINPUT;
    } else {
      status = sweep_main(&opt, &so, rank, size);
    }
    cli_options_clear(&opt);
  }
  g_free(so.jobs);
  g_free(so.out);
  g_free(so.limit);
  sweep_dist_finalize();
  return status;
}
