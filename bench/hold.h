/* bench/hold.h — the hold-model workload shared by the C and C++ drivers.
 *
 * The classic hold model of event-set benchmarks (Jones 1986; Vaucher and
 * Duval 1975): fill the pending set with N events, then repeat "pop the
 * earliest, insert a new one at (popped time + increment)".  N stays constant,
 * so the measured rate is the cost of one pop plus one insert at that size.
 *
 * Both drivers include this header, so they draw the very same increments:
 * a table of HOLD_TABLE_LEN increments in ns from splitmix64 (Steele et al.
 * 2014) through the inverse CDF of the exponential (or a uniform) law, read
 * cyclically.  The sequence of popped times does not depend on how ties are
 * broken, so every correct implementation produces the same popped times; the
 * drivers print a checksum of the first HOLD_CHECK_OPS timed pops to prove it.
 * Header-only, C11 and C++.
 */
#ifndef BENCH_HOLD_H
#define BENCH_HOLD_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HOLD_TABLE_LEN  (1u << 20) /* 4 MiB of uint32 increments */
#define HOLD_TABLE_MASK (HOLD_TABLE_LEN - 1u)
#define HOLD_CHUNK      4096u      /* holds between clock reads */
#define HOLD_CHECK_OPS  (1u << 20) /* timed holds under the checksum */
#define HOLD_MEAN_NS    1000.0     /* mean increment */
#define HOLD_WARMUP_MAX (1u << 21) /* untimed warm-up holds: min(N, this) */

typedef enum { HOLD_EXP = 0, HOLD_UNIFORM = 1, HOLD_BIMODAL = 2, HOLD_TIES = 3 } hold_dist;

static inline uint64_t hold_splitmix64(uint64_t *s)
{
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* Fills @incr[HOLD_TABLE_LEN] with increments in ns: exponential with mean
 *  HOLD_MEAN_NS, uniform on [0, 2 * HOLD_MEAN_NS), bimodal (a 95/5 mixture
 *  of exponentials with means HOLD_MEAN_NS / 10 and 20 * HOLD_MEAN_NS: mean
 *  1.095 * HOLD_MEAN_NS, a skewed law that strains bucket structures), or
 *  ties (deterministic service times: 0, HOLD_MEAN_NS / 2, HOLD_MEAN_NS or
 *  2 * HOLD_MEAN_NS with equal odds, so many events share one time).
 *  Deterministic in @seed. */
static inline void hold_fill_table(uint32_t *incr, hold_dist dist, uint64_t seed)
{
  uint64_t s = seed;
  for (uint32_t i = 0; i < HOLD_TABLE_LEN; i++) {
    /* u in (0, 1]: 53 random bits, never 0 so log(u) is finite */
    double u = (double)((hold_splitmix64(&s) >> 11) + 1) * (1.0 / 9007199254740992.0);
    double x;
    if (dist == HOLD_EXP)
      x = -HOLD_MEAN_NS * log(u);
    else if (dist == HOLD_UNIFORM)
      x = 2.0 * HOLD_MEAN_NS * (1.0 - u);
    else if (dist == HOLD_BIMODAL) /* the low bits pick the mode */
      x = ((hold_splitmix64(&s) % 100) < 95 ? -0.1 : -20.0) * HOLD_MEAN_NS * log(u);
    else
      x = (u <= 0.25 ? 0.0 : u <= 0.5 ? 0.5 : u <= 0.75 ? 1.0 : 2.0) * HOLD_MEAN_NS;
    incr[i] = (uint32_t)x;
  }
}

/* Untimed warm-up holds at size @n: N, at most HOLD_WARMUP_MAX (so a 1e7 row
 *  of a slow scheduler does not spend a minute warming up). */
static inline long hold_warmup(long n)
{
  return n < (long)HOLD_WARMUP_MAX ? n : (long)HOLD_WARMUP_MAX;
}

static inline double hold_now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU seconds of the calling thread (time slices given to other tenants of a
 * shared machine do not count). */
static inline double hold_cpu_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Command line shared by both drivers: sizes, seconds per measurement, law. */
typedef struct {
  long sizes[16];
  int n_sizes;
  double seconds;
  hold_dist dist;
  int cal_only; /* --cal-only: scheduler rows only, no engine rows */
  long max_n;   /* --max-n N: skip sizes above N (0: none skipped) */
} hold_args;

static inline int hold_parse_args(int argc, char **argv, hold_args *a)
{
  a->n_sizes = 0;
  a->seconds = 0.4;
  a->dist = HOLD_EXP;
  a->cal_only = 0;
  a->max_n = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
      a->seconds = atof(argv[++i]);
    else if (!strcmp(argv[i], "--uniform"))
      a->dist = HOLD_UNIFORM;
    else if (!strcmp(argv[i], "--bimodal"))
      a->dist = HOLD_BIMODAL;
    else if (!strcmp(argv[i], "--ties"))
      a->dist = HOLD_TIES;
    else if (!strcmp(argv[i], "--cal-only"))
      a->cal_only = 1;
    else if (!strcmp(argv[i], "--max-n") && i + 1 < argc)
      a->max_n = (long)atof(argv[++i]);
    else if (!strcmp(argv[i], "--exp"))
      a->dist = HOLD_EXP;
    else if (argv[i][0] != '-' && a->n_sizes < 16 && atof(argv[i]) >= 1)
      a->sizes[a->n_sizes++] = (long)atof(argv[i]);
    else {
      fprintf(stderr, "usage: %s [--seconds S] [--exp|--uniform|--bimodal|--ties] [--cal-only] [--max-n N] N...\n", argv[0]);
      return 2;
    }
  }
  if (a->n_sizes == 0) {
    static const long def[] = { 1000, 10000, 100000, 1000000, 10000000 };
    for (int i = 0; i < 5; i++) a->sizes[a->n_sizes++] = def[i];
  }
  return 0;
}

/* Timing of the timed phase, robust to a shared, busy machine: the holds run
 * in chunks of HOLD_CHUNK; every HOLD_WINDOWS-th of the requested (wall)
 * seconds closes a window, and the reported rate is the best window's holds
 * per CPU second of the thread (what the code does on a core of its own: time
 * slices lost to other tenants are not counted, their cache pollution still
 * is), next to the mean over the wall time of the whole phase. */
#define HOLD_WINDOWS 5

typedef struct {
  double win_s;        /* length of one window */
  double t0, w0;       /* start of the phase, of the window (wall) */
  double c0;           /* start of the window (thread CPU time) */
  uint64_t ops, w_ops; /* holds in the phase, at the window start */
  double best;         /* best window rate, holds/s */
  int windows;         /* windows closed */
  double secs;         /* phase length so far */
} hold_timer;

static inline void hold_timer_start(hold_timer *t, double seconds)
{
  t->win_s = seconds / HOLD_WINDOWS;
  t->t0 = t->w0 = hold_now_s();
  t->c0 = hold_cpu_s();
  t->ops = t->w_ops = 0;
  t->best = 0;
  t->windows = 0;
  t->secs = 0;
}

/* Accounts one finished chunk; true while the phase must go on (fewer than
 *  HOLD_WINDOWS windows or fewer than HOLD_CHECK_OPS holds so far). */
static inline int hold_timer_chunk(hold_timer *t)
{
  t->ops += HOLD_CHUNK;
  double now = hold_now_s();
  if (now - t->w0 >= t->win_s) {
    double cpu = hold_cpu_s();
    double rate = cpu > t->c0 ? (double)(t->ops - t->w_ops) / (cpu - t->c0) : 0;
    if (rate > t->best) t->best = rate;
    t->windows++;
    t->w0 = now;
    t->c0 = cpu;
    t->w_ops = t->ops;
  }
  t->secs = now - t->t0;
  return t->windows < HOLD_WINDOWS || t->ops < HOLD_CHECK_OPS;
}

/* One result line, the format bench/table.awk reads:
 *   RESULT <impl> <N> <best-window holds per CPU s> <checksum> <mean holds per wall s> <holds timed> <wall seconds> */
static inline void hold_report(const char *impl, long n, const hold_timer *t, uint64_t check)
{
  printf("RESULT %s %ld %.0f %016llx %.0f %llu %.3f\n", impl, n, t->best, (unsigned long long)check, (double)t->ops / t->secs,
         (unsigned long long)t->ops, t->secs);
  fflush(stdout);
}

#endif /* BENCH_HOLD_H */
