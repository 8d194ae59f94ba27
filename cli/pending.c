/* cli/pending.c — weak placeholders for subcommands still being written.
 * A real cli/cmd_<name>.c defines the strong symbol and replaces these.
 * Remove a line here once its command exists. */
#include <stdio.h>
#include "cli/commands.h"

#define PENDING(name) \
    __attribute__((weak)) int cmd_##name(int argc, char **argv) \
    { (void)argc; (void)argv; fprintf(stderr, "ocasim: '" #name "' is not built yet\n"); return OCASIM_EXIT_FAILURE; }

PENDING(capacity)
