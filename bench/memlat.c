/* bench/memlat.c — the machine's memory latency and read bandwidth, to bound
 * the hold model (bench/README.md, "What bounds the calendar").
 *
 * Latency: a dependent chase through one pointer per 64-byte line, the lines
 * of a buffer of S bytes in a random cyclic order (so neither the hardware
 * prefetcher nor out-of-order execution hides a miss): ns per load, best of
 * 3 runs, per CPU second of the thread (as bench_calendar counts).
 * Bandwidth: a sum over 256 MiB of 64-bit words, GB/s (10^9 bytes), best of 3.
 * Prints "LAT bytes ns" and "BW GBps" lines.  Usage: memlat [S...] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t rng = 0x9E3779B97F4A7C15u;
static uint64_t next_rand(void)
{
  uint64_t z = (rng += 0x9E3779B97F4A7C15u);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
  return z ^ (z >> 31);
}

/* ns per dependent load through S bytes (S / 64 lines in a random cycle). */
static double chase_ns(size_t bytes)
{
  size_t n = bytes / 64;
  void **buf = aligned_alloc(64, n * 64);
  size_t *perm = malloc(n * sizeof *perm);
  if (!buf || !perm) {
    fprintf(stderr, "memlat: out of memory at %zu bytes\n", bytes);
    exit(1);
  }
  for (size_t i = 0; i < n; i++) perm[i] = i;
  for (size_t i = n - 1; i > 0; i--) {
    size_t j = (size_t)(next_rand() % (i + 1));
    size_t t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  for (size_t i = 0; i < n; i++) buf[perm[i] * 8] = &buf[perm[(i + 1) % n] * 8];
  free(perm);
  size_t loads = 20000000;
  double best = 1e9;
  void **p = &buf[0];
  for (int r = 0; r < 3; r++) {
    for (size_t i = 0; i < n; i++) p = (void **)*p; /* warm */
    double t0 = cpu_s();
    for (size_t i = 0; i < loads; i++) p = (void **)*p;
    double ns = (cpu_s() - t0) * 1e9 / (double)loads;
    if (ns < best) best = ns;
  }
  if (p == NULL) puts("unreachable");
  free(buf);
  return best;
}

static double read_GBps(void)
{
  size_t n = (size_t)256 << 20 >> 3;
  uint64_t *a = malloc(n * sizeof *a);
  if (!a) return 0;
  for (size_t i = 0; i < n; i++) a[i] = i;
  double best = 0;
  uint64_t s = 0;
  for (int r = 0; r < 3; r++) {
    double t0 = cpu_s();
    for (size_t i = 0; i < n; i++) s += a[i];
    double gbps = (double)(n * 8) / (cpu_s() - t0) / 1e9;
    if (gbps > best) best = gbps;
  }
  if (s == 42) puts("unreachable");
  free(a);
  return best;
}

int main(int argc, char **argv)
{
  static const size_t dflt[] = { 16 << 10, 32 << 10, 64 << 10, 128 << 10, 256 << 10, 512 << 10,
                                 1 << 20,  4 << 20,  16 << 20, 64 << 20,  256 << 20 };
  if (argc > 1)
    for (int i = 1; i < argc; i++) {
      size_t s = (size_t)strtoull(argv[i], NULL, 10);
      printf("LAT %zu %.2f\n", s, chase_ns(s < 64 ? 64 : s));
    }
  else
    for (size_t i = 0; i < sizeof dflt / sizeof dflt[0]; i++) printf("LAT %zu %.2f\n", dflt[i], chase_ns(dflt[i]));
  printf("BW %.2f\n", read_GBps());
  return 0;
}
