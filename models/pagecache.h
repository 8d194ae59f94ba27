/* pagecache.h — the page cache's hit ratio under Zipf popularity: Che's approximation for LRU.
 *
 * What it models: N titles of equal size, requested independently with Zipf probabilities
 * p_i = i^-s / H(N, s); an LRU cache holding C of them. Che's approximation (Che, Tung and Wang,
 * "Hierarchical Web caching systems: modeling, design and experimental results", IEEE JSAC 20(7),
 * 2002; shown accurate for Zipf by Fricker, Robert and Roberts, "A versatile and accurate
 * approximation for LRU cache performance", ITC 24, 2012) gives a characteristic time T_C, the
 * root of
 *     sum_i (1 - exp(-p_i T_C)) = C
 * (GSL Brent), and the hit ratio
 *     h = sum_i p_i (1 - exp(-p_i T_C)).
 * With equal-size titles the byte hit ratio equals the request hit ratio.
 * Leaves out: titles of unequal size, read-ahead, SF_NOCACHE (the published boxes read past the
 * cache: their hit ratio is 0), and the demand model: the hit ratio is not yet charged as skipped
 * drive reads and DMA writes (issue 14 point 3, to do).
 */
#ifndef MODELS_PAGECACHE_H
#define MODELS_PAGECACHE_H
#include <glib.h>

/* Che's LRU hit ratio, 0..1, of @cache_titles titles cached out of @titles under Zipf exponent
 * @zipf_s >= 0; 1 when the cache holds the catalogue, 0 when it holds nothing. When @t_c is not
 * NULL it gets the characteristic time T_C in requests. */
double pagecache_che_hit_ratio(int titles, double zipf_s, double cache_titles, double *t_c);

#endif /* MODELS_PAGECACHE_H */
