/* sim/conf_private.h — internals shared by sim/conf.c (loading) and sim/conf_bind.c (binding).
 * Not for use outside sim/conf*.c.
 */
#ifndef SIM_CONF_PRIVATE_H
#define SIM_CONF_PRIVATE_H

#include "sim/conf.h"

struct SimConfNode {
  SimConfNodeKind kind;
  GRefString *file;      /* file the node was read from, "--set" for overrides */
  GRefString *from;      /* where that file was included: "FILE:LINE:COL[, included from ...]"; NULL in the
                             top file (set by sim_conf_load_with_include) */
  int line, col;         /* 1-based start; 0 = no position (override values) */
  SimConfNode *parent;   /* NULL at the root */
  char *key;             /* key in the parent map; NULL in a sequence or at the root */
  int key_line, key_col; /* position of that key */
  char *text;            /* SCALAR: text */
  gboolean plain;        /* SCALAR: unquoted and untagged */
  GPtrArray *children;   /* MAP/SEQ: owned child nodes in file order */
  gboolean path_map;     /* MAP: made by an override's key path (ram.page_cache=... without ram:), not
                            given as a value: sim_conf_overrides() lists its entries one by one */
  guint set_seq;         /* the override that made it, in the order applied (1: the first; 0: from a
                            file); a node that replaces an override's keeps its number, so that
                            sim_conf_overrides() lists each key where it was first set */
};

/* Longest key or value text an error message quotes, in characters (longer ones end in "..."). */
#define SIM_CONF_QUOTE_MAX 40

/* @text for an error message: at most SIM_CONF_QUOTE_MAX characters, control and other
 *  non-printable characters escaped (\n, \xNN, \u{NNNN}). Returns: (transfer full). */
char *sim_conf_escape_(const char *text);

/* A scalar's value for an error message: "'TEXT'" escaped and truncated (sim_conf_escape_), or
 *  "the value" when @node comes from an included file, whose values are never echoed (an
 *  include may name a file the user did not mean to show). Returns: (transfer full). */
char *sim_conf_quote_(const SimConfNode *node);

/* Frees a node and its subtree. */
void sim_conf_node_free_(SimConfNode *n);

/* Sets "FILE[:LINE:COL]: [PATH: ]MSG" in SIM_CONF_ERROR with @code. */
void sim_conf_error_at_(GError **error, SimConfErrorCode code, const char *file, int line, int col, const char *path,
                        const char *msg);

/* Like sim_conf_set_error() but at the position of the key of @value (map pair). */
void sim_conf_key_error_(GError **error, const SimConfNode *value, SimConfErrorCode code, const char *fmt, ...)
    G_GNUC_PRINTF(4, 5);

#endif /* SIM_CONF_PRIVATE_H */
