/* sim/time.h — simulated time.
 *
 * Simulated time is an integer count of nanoseconds since the start of a run.
 * int64 nanoseconds cover about 292 years, far beyond any run, and integer time
 * keeps event order exact and repeatable (no floating-point ties).
 */
#ifndef SIM_TIME_H
#define SIM_TIME_H

#include <stdint.h>

/* Simulated time or duration in nanoseconds. */
typedef int64_t sim_time_ns;

#define SIM_NS_PER_US INT64_C(1000)
#define SIM_NS_PER_MS INT64_C(1000000)
#define SIM_NS_PER_S  INT64_C(1000000000)
/* A time later than any event of a run. */
#define SIM_TIME_NEVER INT64_MAX

/* Seconds (double) to nanoseconds, rounded to the nearest nanosecond. */
static inline sim_time_ns sim_time_from_s(double s)
{
  double ns = s * 1e9;
  return (sim_time_ns)(ns >= 0 ? ns + 0.5 : ns - 0.5);
}

/* Nanoseconds to seconds (double). */
static inline double sim_time_to_s(sim_time_ns t)
{
  return (double)t * 1e-9;
}

#endif /* SIM_TIME_H */
