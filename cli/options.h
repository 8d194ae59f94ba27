/* cli/options.h — numeric option values of the non-scenario subcommands (serve, load),
 * read as text and checked here so that a bad value names the option, the value
 * and the allowed range in one line, e.g. "--port '70000': out of range, allowed 0..65535". */
#ifndef OCASIM_CLI_OPTIONS_H
#define OCASIM_CLI_OPTIONS_H

#include <glib.h>

/** Parses @text, the value given to option @name ("--port"), as a decimal integer in
 *  [@lo, @hi]; @hi == G_MAXINT prints the range as ">= lo".  @note, when not NULL, is
 *  added to the range in the message.  @text NULL (option not
 *  given) leaves *@out as it is.  Errors (G_OPTION_ERROR_BAD_VALUE): not an integer,
 *  out of range; the message names @name, @text and the range. */
gboolean cli_int_option(const char *name, const char *text, int lo, int hi, const char *note, int *out, GError **error);

/** Parses @text as a number of seconds in [@lo, @hi] (or (@lo, @hi] when @lo_open).
 *  NaN, infinities and trailing garbage are rejected.  @note, when not NULL, is added
 *  to the range in the message, e.g. "0: until interrupted".  @text NULL leaves *@out. */
gboolean cli_seconds_option(const char *name, const char *text, double lo, gboolean lo_open, double hi, const char *note,
                            double *out, GError **error);

/** Parses the options of a subcommand that takes no positional argument: on an
 *  option error or a stray argument prints "PROG: reason" and returns FALSE
 *  (the caller exits with status 2). */
gboolean cli_parse_no_args(GOptionContext *ctx, int *argc, char ***argv);

/** The longest time, s, a seconds option accepts (keeps every conversion to ns in int64). */
#define CLI_MAX_SECONDS 1e6

#endif /* OCASIM_CLI_OPTIONS_H */
