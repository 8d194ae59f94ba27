/* bench/cputime.c — CPU time of a command run N times one after the other.
 *
 * Runs COMMAND N times (fork + execvp, stdout and stderr to /dev/null, stdin from /dev/null),
 * waiting for each, and prints one line
 *     cpu_s=<s> wall_s=<s> runs=<N>
 * where cpu_s is the user + system time of the N children together (getrusage
 * RUSAGE_CHILDREN, before and after) and wall_s the elapsed time. CPU time is the figure to
 * compare on a shared machine: time slices given to other tenants do not count (their cache
 * pollution still does). Exit status 1 when a run fails (its status is printed), 2 on bad usage.
 *
 * Usage: cputime N COMMAND [ARG...]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double tv_s(struct timeval t)
{
  return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
  if (argc < 3 || atoi(argv[1]) < 1) {
    fprintf(stderr, "usage: cputime N COMMAND [ARG...]\n");
    return 2;
  }
  int n = atoi(argv[1]);
  struct rusage r0, r1;
  getrusage(RUSAGE_CHILDREN, &r0);
  double w0 = now_s();
  for (int i = 0; i < n; i++) {
    pid_t pid = fork();
    if (pid < 0) {
      perror("cputime: fork");
      return 1;
    }
    if (pid == 0) {
      int null = open("/dev/null", O_RDWR);
      if (null >= 0) {
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
      }
      execvp(argv[2], argv + 2);
      _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
      if (errno != EINTR) {
        perror("cputime: waitpid");
        return 1;
      }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
      fprintf(stderr, "cputime: %s failed (status %d)\n", argv[2], st);
      return 1;
    }
  }
  double w1 = now_s();
  getrusage(RUSAGE_CHILDREN, &r1);
  double cpu = tv_s(r1.ru_utime) - tv_s(r0.ru_utime) + tv_s(r1.ru_stime) - tv_s(r0.ru_stime);
  printf("cpu_s=%.6f wall_s=%.6f runs=%d\n", cpu, w1 - w0, n);
  return 0;
}
