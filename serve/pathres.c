/* serve/pathres.c — containment of served files in the root directory.
 *
 * Two independent guards: (1) the decoded path is split into components and any
 * ".." is refused before the file system is touched (so "/../x", "/a/../../x",
 * "%2e%2e/x" are all 403); (2) the open itself cannot leave the root: openat2(2)
 * with RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS (EXDEV/ELOOP -> 403), or, where
 * openat2 is missing (ENOSYS, or EPERM under a seccomp filter), a walk of openat(2)
 * with O_NOFOLLOW on every component followed by a check that
 * /proc/self/fd/N resolves under realpath(root).  Files are opened O_NONBLOCK so a
 * FIFO cannot stall a worker; only regular files are served.
 */
#include "serve/pathres.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define OPEN_FLAGS (O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)

static int status_of_errno(int e)
{
  switch (e) {
    case ENOENT:
    case ENOTDIR:
    case ENAMETOOLONG: return -404;
    case EXDEV:
    case ELOOP:
    case EACCES:
    case EPERM: return -403;
    default: return -500;
  }
}

static gboolean inside_root(int fd, const char *root_real)
{
  char link[64], target[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, target, sizeof target - 1);
  if (n <= 0) return FALSE;
  target[n] = '\0';
  size_t rl = strlen(root_real);
  if (rl == 1 && root_real[0] == '/') return TRUE;
  return strncmp(target, root_real, rl) == 0 && target[rl] == '/';
}

static int walk_open(int root_fd, const char *root_real, char **comps, int ncomp)
{
  int dfd = root_fd;
  for (int i = 0; i < ncomp; i++) {
    gboolean last = i == ncomp - 1;
    int fl = last ? (OPEN_FLAGS | O_NOFOLLOW) : (O_RDONLY | O_CLOEXEC | O_DIRECTORY | O_NOFOLLOW);
    int fd = openat(dfd, comps[i], fl);
    int e = errno;
    if (dfd != root_fd) close(dfd);
    if (fd < 0) return status_of_errno(e);
    dfd = fd;
  }
  if (root_real && !inside_root(dfd, root_real)) {
    close(dfd);
    return -403;
  }
  return dfd;
}

int val_path_open(int root_fd, const char *root_real, const char *path, unsigned flags, uint64_t *size_bytes)
{
  if (!path || path[0] != '/') return -404;
  g_auto(GStrv) parts = g_strsplit(path, "/", -1);
  GPtrArray *comps = g_ptr_array_new();
  for (char **p = parts; *p; p++) {
    if (**p == '\0' || strcmp(*p, ".") == 0) continue;
    if (strcmp(*p, "..") == 0) {
      g_ptr_array_free(comps, TRUE);
      return -403;
    }
    g_ptr_array_add(comps, *p);
  }
  if (comps->len == 0) { /* the root itself: no listings */
    g_ptr_array_free(comps, TRUE);
    return -403;
  }
  int fd = -1;
  gboolean walk = (flags & VAL_PATH_FORCE_WALK) != 0;
  if (!walk) {
    g_ptr_array_add(comps, NULL);
    g_autofree char *rel = g_strjoinv("/", (char **)comps->pdata);
    g_ptr_array_remove_index(comps, comps->len - 1);
    struct open_how how = { .flags = OPEN_FLAGS, .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS };
    fd = (int)syscall(SYS_openat2, root_fd, rel, &how, sizeof how);
    if (fd < 0) {
      if (errno == ENOSYS || errno == EPERM || errno == E2BIG)
        walk = TRUE;
      else
        fd = status_of_errno(errno);
    }
  }
  if (walk) fd = walk_open(root_fd, root_real, (char **)comps->pdata, (int)comps->len);
  g_ptr_array_free(comps, TRUE);
  if (fd < 0) return fd;
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    return -500;
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return S_ISDIR(st.st_mode) ? -403 : -403;
  }
  *size_bytes = (uint64_t)st.st_size;
  return fd;
}
