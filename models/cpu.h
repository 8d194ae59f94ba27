/* cpu.h — cores, clock, and the cycles each served byte costs.
 *
 * What it models: a node has cores_per_socket / NPS cores at clock f; its capacity is
 * cores * f cycles/s, of which production uses at most `cap` (80%, euro2021/euro2022).
 * Cycles per served byte (cpb) on the node doing each piece of work:
 *   crypto      cpb_crypto(impl, uarch): bulk AES-GCM/ChaCha20 cost with the data in cache;
 *   stall       per byte the CPU reads from DRAM: (k_bulk * L_local + k_remote * P(a,m)) * f / 64 B
 *               (the exposed part of a cache-line miss: L_local from memory.h, P the fabric
 *               penalty when the line is on another node, topology.h), and per metadata byte
 *               read: (k_meta * L_local + k_remote * P) * f / 64 B (pointer chasing, poorly
 *               hidden). k_remote can exceed 1: a remote miss also costs coherence probes and
 *               queueing in the fabric ("UPI traffic stalls CPUs", euro2019_numa);
 *   copy        copy_cpb per byte copied between kernel and user space (read_write paths);
 *   stack       page_cycles / 4096 B per payload page (VM, sendfile, mbuf, TCP per-byte work;
 *               + mapped_mbuf_page_cycles with the old mapped-mbuf/sf_buf path), plus
 *               pkt_cycles per transmitted segment (64 KiB with TSO, one MSS without) and
 *               ack_cycles per received ACK packet (LRO merges lro_acks of them).
 * The k_*, copy and page coefficients are the shared coefficients fitted by `make fit`
 * (coeffs.h); cpb_crypto comes from OpenSSL's perlasm headers (published.yaml, general).
 * Leaves out: SMT (the CPU % of the sources counts logical CPUs; we count cores), frequency
 * changes with load, cache-capacity effects, interrupt moderation details.
 */
#ifndef MODELS_CPU_H
#define MODELS_CPU_H
#include "models/app_enum.h"
#include "sim/conf.h"
#include <glib.h>
#include <stdbool.h>

/* Micro-architectures (cpu.uarch): they select the crypto cycles per byte. */
#define CPU_UARCH_MAP(X)          \
  X(UARCH_BROADWELL, "broadwell") \
  X(UARCH_SKYLAKE, "skylake")     \
  X(UARCH_ICELAKE, "icelake")     \
  X(UARCH_ZEN1, "zen1")           \
  X(UARCH_ZEN2, "zen2")           \
  X(UARCH_ZEN3, "zen3")           \
  X(UARCH_ZEN4, "zen4")           \
  X(UARCH_NEOVERSE_N1, "neoverse-n1")
typedef enum { CPU_UARCH_MAP(APP_ENUM_ID) UARCH_COUNT } CpuUarch;
APP_ENUM_DECLARE(cpu_uarch);

/* Bulk crypto implementations of CPU-crypto paths (software.crypto). */
#define CPU_CRYPTO_MAP(X)                     \
  X(CRYPTO_NONE, "none")                      \
  X(CRYPTO_ISAL_AESGCM, "isal_aes_gcm")       \
  X(CRYPTO_OPENSSL_AESGCM, "openssl_aes_gcm") \
  X(CRYPTO_CHACHA20_POLY1305, "chacha20_poly1305")
typedef enum { CPU_CRYPTO_MAP(APP_ENUM_ID) CRYPTO_COUNT } CryptoImpl;
APP_ENUM_DECLARE(cpu_crypto);

typedef struct {
  CpuUarch uarch;
  int threads_per_core; /* recorded; SMT not modelled (see above) */
  double clock_hz;      /* sustained all-core clock used for capacity */
  double cap;           /* CPU-utilisation cap, fraction (0.8 in production) */
} CpuCfg;

typedef struct {
  bool tso;          /* TCP segmentation offload */
  bool lro;          /* large receive offload (merges ACKs) */
  int mtu;           /* bytes */
  double tso_bytes;  /* payload per TSO segment, bytes */
  double lro_acks;   /* ACK packets merged per LRO aggregate (a whole number) */
  bool mapped_mbufs; /* pre-2019 mapped mbufs + sf_bufs (FreeBSD < 13) */
} StackCfg;

/* TRUE when the implementation writes its output with ordinary (allocating) stores, so a
 * write to a line not in cache first reads it (read-for-ownership). */
gboolean cpu_crypto_ordinary_stores(CryptoImpl impl);
/* Cycles per second of one core: clock_hz taken through GHz (clock_hz / 1e9 * 1e9), the
 * arithmetic the fitted coefficients and every output were computed with (bit for bit). */
double cpu_core_hz(const CpuCfg *c);
/* TCP payload per MTU-sized packet: MTU - 20 (IP) - 20 (TCP) - 12 (timestamps). */
double cpu_mss_bytes(const StackCfg *s);
/* Payload the stack hands a NIC port at once: one TSO segment with TSO on, else one MSS. */
double cpu_burst_bytes(const StackCfg *s);

/* Keys of the scenario's `cpu:` and `stack:` sections (component.h: offsets into AppConf). */
extern const SimConfField cpu_schema[], stack_schema[];

#endif /* MODELS_CPU_H */
