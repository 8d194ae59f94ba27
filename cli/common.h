/* cli/common.h — what every subcommand of `ocasim` shares beyond its own options:
 *
 * - the common options, one meaning per letter across all subcommands: --version (every
 *   subcommand), -v/--verbose (every subcommand; -vv for debug), and where the subcommand has
 *   a use for them -o/--output FILE (a command that prints results), --progress and
 *   -q/--quiet (a command that runs long), --log NAME[:LEVEL] (the discrete-event run);
 * - the GLib log writer: message and above always, info with -v, debug with -vv, both for the
 *   domains G_MESSAGES_DEBUG names (GLib's rule), and the traces the run was asked for;
 * - the progress line on stderr: on a terminal one line rewritten in place and erased at the
 *   end, off a terminal nothing, or plain lines with --progress; never with --quiet;
 * - results on stdout or, with -o FILE, in FILE written atomically (temporary file + rename),
 *   with the version stamped into JSON (member "ocasim_version") and CSV (last column
 *   ocasim_version) output.
 * The state here is the process's (one command per process); nothing in sim/ or models/ sees it.
 */
#ifndef OCASIM_CLI_COMMON_H
#define OCASIM_CLI_COMMON_H

#include <glib.h>
#include "sim/observe.h"

/* Which of the optional common options a subcommand offers. */
typedef enum {
  CLI_OPT_OUTPUT = 1 << 0,   /* -o/--output FILE */
  CLI_OPT_PROGRESS = 1 << 1, /* --progress, -q/--quiet */
  CLI_OPT_LOG = 1 << 2,      /* --log NAME[:LEVEL] (repeatable), also from OCASIM_LOG */
  CLI_OPT_REPORT = 1 << 3,   /* -o writes the command's one text report (no --format) */
} CliOptFlags;

typedef struct {
  unsigned flags; /* CliOptFlags offered */
  gboolean quiet, progress;
  char *output; /* -o FILE, NULL: stdout */
  char **log;   /* --log items */
} CliCommon;

/* The version of this build: `git describe --tags --always --dirty` when it was built, or the
 *  VERSION file of a release tarball (scripts/version.sh). */
const char *cli_version(void);

/* The installed data directory (share/ocasim of the PREFIX it was built for: platforms/,
 *  scenarios/), or $OCASIM_DATADIR when set (a staged or moved installation). */
const char *cli_datadir(void);

/* Sets up the process: locale (LC_ALL from the environment, LC_NUMERIC kept "C" so that every
 *  number printed or parsed has a decimal point), the GLib log writer, and an exit handler that
 *  closes stdout and exits 1 with a message when a write to it failed (help or version text
 *  into a full disk: /dev/full).  Called once, first thing in main(). */
void cli_init(void);

/* An option context for a subcommand: @param and @summary as for GOption; @c (zeroed here)
 *  receives the common options selected by @flags, which cli_context_parse() adds after the
 *  subcommand's own entries.  Free with g_option_context_free(). */
GOptionContext *cli_context_new(const char *param, const char *summary, CliCommon *c, unsigned flags);

/* Adds the common entries to @ctx and parses @argv; checks -o FILE (writable) and --log.
 *  Errors: G_OPTION_ERROR, as g_option_context_parse() and the checks give them. */
gboolean cli_context_parse(GOptionContext *ctx, CliCommon *c, int *argc, char ***argv, GError **error);

/* Frees what parsing put in @c. */
void cli_common_clear(CliCommon *c);

/* The format that the extension of @path implies among @formats (NULL-terminated names:
 *  .json json, .csv csv, .txt and .table table, .md markdown; case ignored): its index; -1
 *  when @path has no extension; -2 when it implies a format that is not in @formats; -3 for
 *  an extension that implies no format (.xml): the caller refuses it unless --format is given. */
int cli_format_from_path(const char *path, const char *const *formats);

/* Checks, before any work, that the file @path given to option @name ("--write") can be
 *  written: not empty, not a directory, in an existing writable directory (and writable if
 *  it exists).  @path NULL (option not given) passes.  Errors: G_OPTION_ERROR_BAD_VALUE. */
gboolean cli_output_file_option(const char *name, const char *path, GError **error);

/* Writes @len bytes of @text to the file @path: a regular file (or a path that does not exist
 *  yet) atomically, by a temporary file renamed over it; through a symbolic link, the file it
 *  names (the link stays); a file that is not regular (a device such as /dev/null, a FIFO, a
 *  terminal) is opened and written in place, never replaced.  Errors: G_FILE_ERROR, with the
 *  path and the system's reason. */
gboolean cli_write_file(const char *path, const char *text, gsize len, GError **error);

/* Writes @text to stdout, or to c->output by cli_write_file (atomically when a regular file).  @format
 *  "json" or "csv" stamps the version into it (see above); any other (or NULL) writes it as
 *  it is.  Returns the exit status: 0, or 1 (after saying why on stderr) when the write
 *  failed. */
int cli_write(const CliCommon *c, GString *text, const char *format);

/* The trace filter of --log and OCASIM_LOG (NULL when neither is given). (transfer full) */
SimTrace *cli_trace(const CliCommon *c);

/* Checks the names of --log and OCASIM_LOG against @known (NULL-terminated: the components of
 *  the built model; "all" is always allowed).  Error (G_OPTION_ERROR_BAD_VALUE, exit 2): the
 *  option ("--log" or "OCASIM_LOG") and the first unknown name, with a suggestion and the list. */
gboolean cli_trace_check(const CliCommon *c, const char *const *known, GError **error);

/* Writes @s seconds as a time left ("45 s", "3 min 05 s", "2 h 10 min"; "?" when negative, not a
 *  number or beyond 1e7 s) into @buf of @n bytes, for progress lines. */
void cli_duration_text(char *buf, size_t n, double s);

/* A progress line for one long computation. */
typedef struct CliProgress CliProgress;

/* Starts a progress line for @what (e.g. "ocasim run mm1.yaml") counting @unit (e.g.
 *  "simulated s"): NULL when progress is off (--quiet, or not a terminal without --progress),
 *  which cli_progress_update() and cli_progress_end() accept. */
CliProgress *cli_progress_start(const CliCommon *c, const char *what, const char *unit);

/* A sim_progress_fn (sim/observe.h) for @ctx, a CliProgress: shows @done of @total with the
 *  rate and the time left, at most ten times a second on a terminal, once a second off it. */
void cli_progress_update(double done, double total, void *ctx);

/* Ends the line (erased on a terminal; the last state printed off it) and frees @p. */
void cli_progress_end(CliProgress *p);

#endif /* OCASIM_CLI_COMMON_H */
