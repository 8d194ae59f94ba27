/* serve/pathres.h — resolve a request path to a regular file beneath the
 * server's root directory, never reading anything outside it.
 */
#ifndef SERVE_PATHRES_H
#define SERVE_PATHRES_H

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

enum {
  VAL_PATH_FORCE_WALK = 1, /* skip openat2(2): component walk with O_NOFOLLOW + realpath check */
};

/* Opens the percent-decoded request path `path` (starting with '/') beneath the
 * directory root_fd.  root_real: realpath(3) of the root (used by the walk's
 * containment check).  Returns an O_RDONLY close-on-exec fd of a regular file and
 * sets *size_bytes, or a negative HTTP status: -403 for ".." components, escapes
 * (symlinks out of the root, magic links), directories and special files; -404
 * when nothing is there; -500 on other errors.  With openat2(2) the kernel
 * enforces RESOLVE_BENEATH (symlinks inside the root are followed); the fallback
 * walk refuses every symlink. */
int val_path_open(int root_fd, const char *root_real, const char *path, unsigned flags, uint64_t *size_bytes);

G_END_DECLS
#endif
