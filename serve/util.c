/* serve/util.c — clocks, pinning and clean-up helpers for validate/ (no model). */
#include "serve/util.h"

#include <errno.h>
#include <ftw.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

G_DEFINE_QUARK(ocasim - validate - error - quark, val_error)

int64_t val_now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t clock_ns(clockid_t id)
{
  struct timespec ts;
  if (clock_gettime(id, &ts) != 0) return -1;
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t val_thread_cpu_ns(void)
{
  return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}
int64_t val_process_cpu_ns(void)
{
  return clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

int64_t val_pthread_cpu_ns(pthread_t t)
{
  clockid_t id;
  if (pthread_getcpuclockid(t, &id) != 0) return -1;
  return clock_ns(id);
}

int val_online_cpus(void)
{
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

gboolean val_pin_self(int cpu)
{
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(((cpu % val_online_cpus()) + val_online_cpus()) % val_online_cpus(), &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

void val_sleep_ns(int64_t ns)
{
  if (ns <= 0) return;
  struct timespec ts = { .tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000 };
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

static int rm_cb(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
  (void)sb;
  (void)flag;
  (void)ftw;
  return remove(path) == 0 ? 0 : 0;
}

void val_rm_rf(const char *path)
{
  if (path) nftw(path, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

gboolean val_tcp_loopback_pair(int fds[2], GError **error)
{
  int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (l < 0) goto fail;
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  socklen_t al = sizeof a;
  if (bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 1) != 0 || getsockname(l, (struct sockaddr *)&a, &al) != 0)
    goto fail_l;
  int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (c < 0) goto fail_l;
  if (connect(c, (struct sockaddr *)&a, sizeof a) != 0) {
    close(c);
    goto fail_l;
  }
  int s = accept4(l, NULL, NULL, SOCK_CLOEXEC);
  if (s < 0) {
    close(c);
    goto fail_l;
  }
  close(l);
  fds[0] = s;
  fds[1] = c;
  return TRUE;
fail_l : {
  int e = errno;
  close(l);
  errno = e;
}
fail:
  g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "loopback socket pair: %s", g_strerror(errno));
  return FALSE;
}

gboolean val_write_text(const char *dir, const char *name, const char *text, GError **error)
{
  g_autofree char *p = dir ? g_build_filename(dir, name, NULL) : g_strdup(name);
  g_autoptr(GError) e = NULL;
  if (!g_file_set_contents(p, text, -1, &e)) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "cannot write %s: %s", p, e->message);
    return FALSE;
  }
  return TRUE;
}

void val_progress(gboolean on, const char *fmt, ...)
{
  if (!on) return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "validate: ");
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}
