/* sim/rng.c — per-component RNG streams (see rng.h for the seed derivation). */
#include "sim/rng.h"

static uint64_t splitmix64(uint64_t x)
{
  x += UINT64_C(0x9E3779B97F4A7C15);
  x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
  return x ^ (x >> 31);
}

uint32_t sim_rng_seed_for(uint64_t scenario_seed, const char *name)
{
  uint64_t h = UINT64_C(0xcbf29ce484222325); /* FNV-1a 64 offset basis */
  for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
    h ^= *p;
    h *= UINT64_C(0x100000001b3); /* FNV-1a 64 prime */
  }
  uint64_t x = splitmix64(splitmix64(scenario_seed) ^ h);
  uint32_t s = (uint32_t)(x ^ (x >> 32));
  return s ? s : 1;
}

gsl_rng *sim_rng_new(uint64_t scenario_seed, const char *name)
{
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, sim_rng_seed_for(scenario_seed, name));
  return r;
}
