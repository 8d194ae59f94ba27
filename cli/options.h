/* cli/options.h — option values of the non-scenario subcommands (serve, load, validate,
 * reference, fit, schema), read as text and checked here so that a bad value names the option,
 * the value and the allowed range in one line, e.g. "--port '70000': out of range, allowed
 * 0..65535"; their argument parsing, and the reference set that reference and fit read. */
#ifndef OCASIM_CLI_OPTIONS_H
#define OCASIM_CLI_OPTIONS_H

#include <glib.h>
#include "cli/common.h"
#include "models/reference/refset.h"

/* Parses @text, the value given to option @name ("--port"), as a decimal integer in
 *  [@lo, @hi]; @hi == G_MAXINT prints the range as ">= lo".  @note, when not NULL, is
 *  added to the range in the message.  @text NULL (option not
 *  given) leaves *@out as it is.  Errors (G_OPTION_ERROR_BAD_VALUE): not an integer,
 *  out of range; the message names @name, @text and the range. */
gboolean cli_int_option(const char *name, const char *text, int lo, int hi, const char *note, int *out, GError **error);

/* The forms a time option takes, for help texts and messages: a time with its unit as in a
 *  scenario (sim_units_parse, SIM_UNIT_TIME: ps ns us ms s min h), or a bare number of seconds. */
#define CLI_TIME_FORMS "\"2 s\", \"500 ms\", \"2 min\"; a bare number is seconds"

/* Parses @text as a time with its unit, read by sim_units_parse() as a scenario's time is ("2 s",
 *  "500 ms", "2 min", "1 h"), or as a bare number of seconds ("2"), in [@lo, @hi] s (or (@lo, @hi]
 *  when @lo_open).  NaN, infinities, hexadecimal and trailing garbage are rejected.  @note, when
 *  not NULL, is added to the range in the message, e.g. "0: until interrupted".  @text NULL
 *  leaves *@out.  Errors (G_OPTION_ERROR_BAD_VALUE): not a time, out of range; the message
 *  names @name, @text, the accepted forms (CLI_TIME_FORMS) and the range. */
gboolean cli_seconds_option(const char *name, const char *text, double lo, gboolean lo_open, double hi, const char *note,
                            double *out, GError **error);

/* Parses the options of a subcommand that takes no positional argument, with the common
 *  options of @c (@ctx made by cli_context_new(), cli/common.h): on an option error or a
 *  stray argument prints "PROG: reason" and returns FALSE (the caller exits with status 2). */
gboolean cli_parse_no_args(GOptionContext *ctx, CliCommon *c, int *argc, char ***argv);

/* As cli_parse_no_args(), allowing up to @max_args positional arguments (left in
 *  (*@argv)[1..]; @max_args < 0: any number). */
gboolean cli_parse_args(GOptionContext *ctx, CliCommon *c, int *argc, char ***argv, int max_args);

/* For a command that writes text only (reference, fit): FALSE, after printing "PROG: reason",
 *  when the extension of -o FILE asks for another format (.json, .csv). */
gboolean cli_text_output(const char *prog, const CliCommon *c);

/* Loads the reference set of @dir (models/reference/refset.h; NULL: scenarios/reference when the
 *  current directory has it, as in the source tree, else the installed one under cli_datadir());
 *  when it cannot be loaded or holds
 *  no scenario with a `reference:` block, prints "PROG: reason" and returns NULL (the caller
 *  exits with status 2).  (transfer full) */
AppRefSet *cli_refset_load(const char *prog, const char *dir);

/* The longest time, s, a seconds option accepts (keeps every conversion to ns in int64). */
#define CLI_MAX_SECONDS 1e6

#endif /* OCASIM_CLI_OPTIONS_H */
