/* sim/rng.h — one random-number stream per component instance.
 *
 * Every component that draws random numbers owns its own gsl_rng, seeded from
 * (scenario seed, stable component name).  Adding a component or changing the
 * order in which components draw therefore never shifts another component's
 * stream, and the same scenario and seed always give the same numbers.
 *
 * Seed derivation: FNV-1a 64 of the name, mixed with the scenario seed by
 * two rounds of splitmix64 (Steele et al., OOPSLA 2014), folded to 32 bits
 * (MT19937 uses the low 32 bits of its seed) and never 0 (GSL maps seed 0 to
 * its default seed, which would make two streams equal).
 */
#ifndef SIM_RNG_H
#define SIM_RNG_H

#include <stdint.h>
#include <glib.h>
#include <gsl/gsl_rng.h>
#include "sim/gsl_autoptr.h" /* g_autoptr(gsl_rng) */

/* The 32-bit, non-zero seed of the stream named @name under @scenario_seed. */
uint32_t sim_rng_seed_for(uint64_t scenario_seed, const char *name);

/* A new MT19937 stream seeded with sim_rng_seed_for(); free with gsl_rng_free(). */
gsl_rng *sim_rng_new(uint64_t scenario_seed, const char *name);

#endif /* SIM_RNG_H */
