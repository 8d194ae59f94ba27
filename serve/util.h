/* serve/util.h — small helpers shared by the validation code: error domain,
 * clocks (monotonic and per-thread CPU), thread pinning, temporary directories.
 */
#ifndef SERVE_UTIL_H
#define SERVE_UTIL_H

#include <glib.h>
#include <pthread.h>
#include <stdint.h>

G_BEGIN_DECLS

/* Error domain of the validation harness (codes: the enum below). */
#define VAL_ERROR val_error_quark()
GQuark val_error_quark(void);
typedef enum {
  VAL_ERROR_FAILED,   /* runtime failure (system call, OpenSSL) */
  VAL_ERROR_INVALID,  /* bad argument or configuration */
  VAL_ERROR_CERT,     /* certificate or key cannot be used */
  VAL_ERROR_MISMATCH, /* a served body did not match */
} ValError;

/* Monotonic clock in nanoseconds. */
int64_t val_now_ns(void);
/* CPU time of the calling thread in nanoseconds. */
int64_t val_thread_cpu_ns(void);
/* CPU time of thread t (user + system) in nanoseconds; -1 when it cannot be read. */
int64_t val_pthread_cpu_ns(pthread_t t);
/* CPU time of the whole process in nanoseconds. */
int64_t val_process_cpu_ns(void);
/* Pins the calling thread to CPU cpu (modulo the online CPUs); FALSE when refused. */
gboolean val_pin_self(int cpu);
/* Number of online CPUs (>= 1). */
int val_online_cpus(void);
/* Sleeps for ns nanoseconds (restarts on EINTR). */
void val_sleep_ns(int64_t ns);
/* A connected TCP pair on 127.0.0.1: fds[0] accepted (server) end, fds[1] client end.
 * Both blocking, close-on-exec. */
gboolean val_tcp_loopback_pair(int fds[2], GError **error);
/* Removes a directory tree created by the validation code (no symlink following). */
void val_rm_rf(const char *path);
/* Writes @text to the file @name in @dir (@dir NULL: @name is the path), atomically (g_file_set_contents).
 * Error (VAL_ERROR_FAILED): "cannot write PATH: why". */
gboolean val_write_text(const char *dir, const char *name, const char *text, GError **error);
/* Prints "validate: " and the formatted line on stderr when @on (validate's progress lines). */
void val_progress(gboolean on, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

G_END_DECLS
#endif
