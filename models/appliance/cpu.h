/* cpu.h — cores, clock, SMT, and the cycles each served byte costs.
 *
 * What it models: a node of cores_per_socket / NPS cores at the sustained all-core clock f,
 *     C = cores x f x Y   cycles/s     (Y = cpu_smt_yield(), 1.0 with one thread)
 * CPU % as busy logical CPUs; a workload uses at most workload.cpu_cap. Cycles per served byte:
 * crypto (cpu_crypto_cpb() table), stalls k L(a,m) f / 64 per DRAM byte read (k_dram local,
 * k_remote remote), copy_cpb per copied byte, page_cycles per page, pkt_cycles per segment,
 * irq_cycles per interrupt, ack_cycles per ACK event; metadata DRAM traffic per payload byte
 *     meta_pkt_bytes / MSS + meta_conn_bytes x ACK events
 * Sources: the crypto table's per-entry sources; k_*, copy and page_cycles fitted by `make fit`
 * (coeffs.h); FreeBSD r349529 and the cited per-packet figures (coeffs.c); euro2021/euro2022 (cap).
 * Leaves out: frequency changes beyond the sustained all-core clock, SMT yield varying with the
 * instruction mix, other cache-capacity effects (datapath.h), interrupt moderation by time.
 * Evidence and history: docs/model/cpu.md.
 */
#ifndef MODELS_APPLIANCE_CPU_H
#define MODELS_APPLIANCE_CPU_H
#include "models/appliance/app_enum.h"
#include "models/appliance/coeffs.h"
#include "models/appliance/datapath.h"
#include "sim/conf.h"
#include <glib.h>
#include <stdbool.h>

/* How CPU % is counted in every output (see above). */
#define CPU_PCT_CONVENTION "busy logical CPUs, as top shows"

/* Micro-architectures (cpu.uarch): they select the crypto table's entries. */
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

/* Bulk crypto implementations of CPU-crypto paths (software.crypto): cipher and library. */
#define CPU_CRYPTO_MAP(X)                          \
  X(CRYPTO_NONE, "none")                           \
  X(CRYPTO_ISAL_AESGCM, "isal_aes_gcm")            \
  X(CRYPTO_OPENSSL_AESGCM, "openssl_aes_gcm")      \
  X(CRYPTO_CHACHA20_POLY1305, "chacha20_poly1305") \
  X(CRYPTO_ARMV8_AESGCM, "armv8_aes_gcm")
typedef enum { CPU_CRYPTO_MAP(APP_ENUM_ID) CRYPTO_COUNT } CryptoImpl;
APP_ENUM_DECLARE(cpu_crypto);

/* The cost profile (`costs:`): one format for a platform file's CPU costs and for the host
 * profile `ocasim validate` writes (validate/profile.h), so a lab server measured by validate is
 * planned with its own costs. Every value is cycles on one core at cpu.clock; a value not given
 * (0) takes the model's: the crypto table or cpu.crypto_cpb, the fitted copy_cpb and page_cycles
 * (coeffs.def), the per-segment (cited) and per-interrupt (assumed) costs (coeffs.c), workload.request_cycles.
 * costs.source says where the values come from (a host and date for a measurement, a citation).
 *   crypto_cpb[cipher]  bulk AEAD, cycles/B, per cipher (software.crypto's implementations are
 *                       AES-128-GCM but for chacha20_poly1305; AES-256-GCM is kept for the profile)
 *   copy_cpb            a kernel<->user copy, in-cache part, cycles/B
 *   page_cycles         per payload page of cpu.page_size
 *   segment_cycles      per segment handed to the NIC
 *   interrupt_cycles    per interrupt
 *   request_cycles      per request (fills workload.request_cycles) */
#define COST_CIPHER_MAP(X) \
  X(COST_AES_128_GCM, "aes_128_gcm") X(COST_AES_256_GCM, "aes_256_gcm") X(COST_CHACHA20_POLY1305, "chacha20_poly1305")
typedef enum { COST_CIPHER_MAP(APP_ENUM_ID) COST_CIPHER_COUNT } CostCipher;
typedef struct {
  double crypto_cpb[COST_CIPHER_COUNT];
  double copy_cpb, page_cycles, segment_cycles, interrupt_cycles, request_cycles;
} CostProfile;

/* The cipher whose costs.<cipher>_cpb prices implementation impl (COST_CIPHER_COUNT for none). */
CostCipher cpu_cost_cipher(CryptoImpl impl);

typedef struct {
  CpuUarch uarch;
  int threads_per_core; /* hardware threads per core */
  double clock_hz;      /* sustained all-core clock under this load (capacity; costs are cycles at it) */
  double smt_yield;     /* cpu.smt_yield: core throughput with all threads busy over one thread (0: by threads_per_core) */
  double crypto_cpb;    /* cpu.crypto_cpb: this platform's own sourced figure for its cipher (0: the table's) */
  double page_bytes;    /* VM page size (4 KiB; 16 KiB on arm64 kernels built so) */
  double l2_bytes;      /* L2 per core (0: not given) */
  double l3_bytes;      /* L3 (last-level cache) per socket (0: not given) */
  double cap;           /* CPU-utilisation cap, fraction: the key workload.cpu_cap (0.8 in production) */
  CostProfile costs;    /* the `costs:` section (0: not given, the model's value) */
} CpuCfg;

typedef struct {
  bool tso;          /* TCP segmentation offload */
  bool lro;          /* large receive offload (merges ACKs) */
  int mtu;           /* bytes */
  double tso_bytes;  /* payload per TSO segment, bytes */
  double lro_acks;   /* ACK packets merged per LRO aggregate (a whole number) */
  bool mapped_mbufs; /* pre-2019 mapped mbufs + sf_bufs (FreeBSD < 13) */
  double irq_pkts;   /* packets per interrupt (stack.interrupt_moderation; 1: off) */
} StackCfg;

/* The SMT yield used for capacity: cpu.smt_yield when given, else 1.0 with one thread per core
 * and CPU_SMT2_YIELD with two or more (cpu.c gives its source). */
double cpu_smt_yield(const CpuCfg *c);
/* Cycles per second of one node's physical cores at the sustained clock, times the SMT yield. */
double cpu_node_capacity_hz(const CpuCfg *c, int cores);
/* The crypto table's entry for (impl, uarch): cycles per byte, and its source in *source (may be
 * NULL). 0 (and *source NULL) when the table has no sourced entry; -1 when impl cannot run on
 * uarch (ISA-L off x86-64, ARMv8 crypto extensions off arm64). */
double cpu_crypto_table_cpb(CryptoImpl impl, CpuUarch uarch, const char **source);
/* The plausible range [*lo, *hi] (cycles/byte) of the crypto table's entry for (impl, uarch): the
 * spread of its source, or the stated range of an assumed or derived entry (cpu.c). FALSE (and *lo,
 * *hi untouched) where the table has no runnable entry. */
gboolean cpu_crypto_table_range(CryptoImpl impl, CpuUarch uarch, double *lo, double *hi);
/* Bulk crypto cycles per byte of impl on this CPU: cpu.crypto_cpb when given, else the table's
 * entry (0 for CRYPTO_NONE; the validation refuses a platform where neither exists). */
double cpu_crypto_cpb(const CpuCfg *c, CryptoImpl impl);
/* Checks that impl can run on the CPU and has a sourced cost (table or cpu.crypto_cpb);
 * MODEL_ERROR at software.crypto or cpu.crypto_cpb. */
gboolean cpu_crypto_check(const CpuCfg *c, CryptoImpl impl, GError **error);
/* TRUE when the implementation writes its output with ordinary (allocating) stores, so a
 * write to a line not in cache first reads it (read-for-ownership). */
gboolean cpu_crypto_ordinary_stores(CryptoImpl impl);
/* TCP payload per MTU-sized packet: MTU - 20 (IP) - 20 (TCP) - 12 (timestamps). */
double cpu_mss_bytes(const StackCfg *s);
/* Payload the stack hands a NIC port at once: one TSO segment with TSO on, else one MSS. */
double cpu_burst_bytes(const StackCfg *s);
/* Per payload byte: segments the stack hands the NIC, ACK packets received (one per two MSS),
 * ACK events the stack processes (LRO merges lro_acks), interrupts (segments and ACK packets
 * over stack.interrupt_moderation), VM pages. */
double cpu_segments_per_byte(const StackCfg *s);
double cpu_ack_packets_per_byte(const StackCfg *s);
double cpu_ack_events_per_byte(const StackCfg *s);
double cpu_interrupts_per_byte(const StackCfg *s);
double cpu_pages_per_byte(const CpuCfg *c);

/* Cache a core has for its own reused buffers: L2 + its share of the socket's L3, bytes. */
double cpu_cache_share_bytes(const CpuCfg *c, int cores_per_socket);

/* Metadata bytes the stack's CPU reads (and writes) per payload byte: meta_pkt_bytes per MSS
 * packet plus meta_conn_bytes of connection state per ACK event (coeffs.h). */
double cpu_meta_bytes_per_byte(const StackCfg *s, const Coeffs *c);

/* The CPU work of a data path per served byte that is not a memory stall, cycles on one core at
 * the sustained clock, by what sets it (cpu.h above). */
typedef struct {
  double crypto;    /* bulk cipher on the crypto CPU (0 unless the CPU encrypts) */
  double copy;      /* copies between buffers (datapath_copies x copy_cpb) */
  double page;      /* per page: page_cycles / page size (+ mapped_page_cycles / 4 KiB) */
  double segment;   /* pkt_cycles x segments per byte */
  double interrupt; /* irq_cycles x interrupts per byte */
  double ack;       /* ack_cycles x ACK events per byte */
} CpuCosts;
/* Fills *out for path with crypto impl on cpu/stack at coefficients c. */
void cpu_path_costs(const CpuCfg *cpu, const StackCfg *s, const Coeffs *c, DataPath path, CryptoImpl impl, CpuCosts *out);
/* The stack's share of *costs (page + segment + interrupt + ack: on the stack's node) and the
 * crypto CPU's share (crypto + copy). */
double cpu_costs_stack(const CpuCosts *costs);
double cpu_costs_crypto(const CpuCosts *costs);

/* Keys of the scenario's `cpu:`, `stack:` and `costs:` sections (component.h: offsets into AppConf). */
extern const SimConfField cpu_schema[], stack_schema[], costs_schema[];

/* The scenario's root rows of this component (components.h: the loader's root schema is the list's
 * rows; expanded where AppConf is defined, component.h). */
#define cpu_conf_sections                                                                                                  \
  { .key = "cpu", .type = SIM_CONF_T_MAP, .offset = 0, .sub = cpu_schema, .required = true, .doc = "processor" },          \
      { .key = "costs",                                                                                                    \
        .type = SIM_CONF_T_MAP,                                                                                            \
        .offset = 0,                                                                                                       \
        .sub = costs_schema,                                                                                               \
        .doc = "the CPU cost profile: measured (`ocasim validate` writes it) or cited cycles, over the model's (cpu.h)" }, \
      { .key = "stack", .type = SIM_CONF_T_MAP, .offset = 0, .sub = stack_schema, .doc = "network stack offloads" },

#endif /* MODELS_APPLIANCE_CPU_H */
