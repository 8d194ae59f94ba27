/* validate/microbench.h — host microbenchmarks: AEAD and SHA-256 cycles per byte
 * through OpenSSL EVP, memcpy in cache, STREAM-like DRAM bandwidth with 1..N
 * threads, and sendfile / socket-copy cost per byte over loopback TCP.
 */
#ifndef OCASIM_VALIDATE_MICROBENCH_H
#define OCASIM_VALIDATE_MICROBENCH_H

#include <glib.h>
#include <json-glib/json-glib.h>

#include "serve/tls.h"

G_BEGIN_DECLS

/* Most threads of the DRAM microbenchmark (array size; assumed). */
#define VAL_MB_MAX_THREADS 64

typedef struct {
  double clock_hz;         /* cycles per second used to convert CPU time (from the probe) */
  double seconds_per_item; /* CPU time spent on each crypto/copy item, s (0.2 is plenty) */
  int max_threads;         /* DRAM threads 1..max_threads (0: online CPUs) */
  size_t dram_bytes;       /* array size per thread and array, bytes (0: 64 MiB) */
  size_t socket_bytes;     /* bytes pushed through each loopback test (0: 256 MiB) */
  size_t record_bytes;     /* AEAD record size, bytes (0: 16384) */
} ValMbConfig;

typedef struct {
  size_t record_bytes;
  double enc_cpb[VAL_CIPHER_COUNT]; /* indexed by ValCipher; [ANY] unused */
  double dec_cpb[VAL_CIPHER_COUNT];
  double aead_record_cycles; /* AES-128-GCM fixed cycles per record (IV, tag, init): from 1 KiB vs
                              * record_bytes records, cpb(R) = a + r / R */
  double sha256_cpb;         /* SHA-256 of 64 KiB chunks */
  double memcpy_hot_cpb;     /* memcpy of 16 KiB in L1/L2 */
  int dram_threads;
  double dram_read_GBps[VAL_MB_MAX_THREADS]; /* [t-1]: t threads, best of repeats */
  double dram_write_GBps[VAL_MB_MAX_THREADS];
  double dram_copy_GBps[VAL_MB_MAX_THREADS];              /* counts bytes read + written */
  double sendfile_tx_cpb, sendfile_rx_cpb, sendfile_GBps; /* file (page cache) -> socket */
  double sockcopy_tx_cpb, sockcopy_rx_cpb, sockcopy_GBps; /* send() from a hot buffer -> socket */
} ValMicrobench;

/* Runs every microbenchmark.  Errors: OpenSSL cipher unavailable, socket or temp-file
 * failure. */
gboolean val_mb_run(const ValMbConfig *cfg, ValMicrobench *out, GError **error);

/* AEAD encrypt (decrypt=FALSE) or decrypt cost of one cipher in cycles/byte at
 * record_bytes records, over about `seconds` of CPU time. -1 on error. */
double val_mb_aead_cpb(ValCipher c, gboolean decrypt, size_t record_bytes, double seconds, double clock_hz);

/* Appends the results as one JSON object to @b: AEAD cycles/byte per cipher and direction,
 * DRAM GB/s per thread count, copy and socket cycles/byte (the fields of ValMicrobench). */
void val_mb_to_json(const ValMicrobench *m, JsonBuilder *b);

G_END_DECLS
#endif
