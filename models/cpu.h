/* cpu.h — cores, clock, SMT, and the cycles each served byte costs.
 *
 * What it models: a node has cores_per_socket / NPS physical cores running at the sustained
 * all-core clock f under this load (cpu.clock: a platform key with its source; the base clock
 * only when nothing better is published). Its capacity is
 *     C = cores x f x Y   cycles/s,   Y = cpu_smt_yield(): the throughput of a core with all its
 *                                     hardware threads busy over one thread (1.0 with one thread)
 * and every cost below is cycles on one physical core at f. CPU % is reported as the published
 * figures read it, busy logical CPUs (top, vmstat): each of a core's T threads delivers f Y / T,
 * so with siblings busy together load / C is the share of logical CPUs busy (CPU_PCT_CONVENTION).
 * A workload uses at most `cap` of it (workload.cpu_cap: 80 % in production, euro2021/euro2022).
 * Cycles per served byte on the node doing each piece of work:
 *   crypto      cpu_crypto_cpb(): bulk cipher cost with the data in cache, a table over
 *               (implementation = cipher + library, micro-architecture), every entry with its
 *               source; an entry without one makes cpu.crypto_cpb a required key of that platform
 *               (a located error naming it), and an implementation that cannot run on the
 *               micro-architecture (ISA-L is x86-64 only) is an error at software.crypto;
 *   stall       per byte the CPU reads from DRAM: k L(a,m) f / 64 B, the exposed part of each
 *               line's latency L (memory.h: idle L0 + quadrant interleave + the fabric penalty
 *               P(a,m) when the line is on another node, topology.h; under load also the DRAM
 *               queueing W_m and, across sockets, the link's wait, demand.h), with k = k_dram for
 *               a line on the reader's node and k = k_remote, of the WHOLE latency, for a line on
 *               another node; metadata reads alike (one k_dram: fitted apart, the metadata
 *               fraction was not identified, coeffs.c). Only CPU reads (and read-for-ownership)
 *               stall. Why two fractions: the fit reads k_dram = 0.18 (prefetch hides about 82 %
 *               of a local miss) and k_remote = 1.09 +- 0.11 (a remote line costs about its whole
 *               loaded latency once, as if not overlapped at all); alone, each no-silo row asks
 *               for 0.97 (Skylake: the fit without the EPYC box) and 1.19 (EPYC: without Skylake). What keeps remote
 *               lines of this workload from overlapping is not identified: it is no hardware
 *               limit (Intel MLC reads 34.3 GB/s node-to-node with all 36 threads of an 18-core
 *               Cascade Lake-SP at 140 ns or more: at least 75 lines in flight, two per thread,
 *               skx-4216-2s.yaml). The EPYC row's higher ask sits on its assumed 60 ns other-die
 *               penalty (no published Naples figure found): about 90 ns would give it 1.0 too.
 *               Earlier forms, kept out (make fit): k_remote x P only, the local part at k_dram
 *               (fitted 2.58: a congestion multiplier, as the stall per remote line then exceeded
 *               the line's whole idle latency; Skylake no-silo -10.3 % in the fit, EPYC +22.3 %
 *               with its platform left out); loaded link latency as the missing stall (M/M/1 of
 *               one 64-B line adds 2.6 ns at the Skylake row's 41 % UPI, 0.6 ns at the EPYC
 *               row's 15 % Infinity Fabric; and queueing over a 16 KiB TLS record train, S =
 *               8 KiB / 17.3 GB/s per UPI link, W = S rho / (1 - rho) = 330 ns against 150 ns on
 *               the EPYC link, runs the wrong way: the row that needs more stall has the less
 *               loaded links); ISA-L's remote non-temporal stores stalling like reads (only
 *               rescales k_remote, as placement none makes a CPU's writes as often remote as its
 *               reads on both boxes; local ones stalling too puts rome2022_sw_ktls_aesni at
 *               +20.9 %);
 *   copy        copy_cpb per byte copied between buffers (read_write paths, datapath.h);
 *   page        page_cycles per payload page of cpu.page_size (VM, sendfile, mbuf, TCP per-page
 *               work; + mapped_page_cycles per 4 KiB with the old mapped-mbuf/sf_buf path);
 *   segment     pkt_cycles per segment the stack hands the NIC: segments per byte
 *               cpu_segments_per_byte() = 1 / 64 KiB with TSO, 1 / MSS without (MSS from the MTU);
 *   interrupt   irq_cycles per interrupt: cpu_interrupts_per_byte() = (segments + ACK packets
 *               per byte) / packets per interrupt (stack.interrupt_moderation; "off" = 1);
 *   ACK         ack_cycles per ACK event: cpu_ack_events_per_byte() = 1 / (2 MSS x LRO merge)
 *               (delayed ACKs, one per two segments; LRO/GRO hands lro_acks of them up at once).
 * Metadata DRAM traffic per payload byte (cpu_meta_bytes_per_byte(), each way) scales with the
 * packets and the connection-state touches: meta_pkt_bytes / MSS + meta_conn_bytes x ACK events.
 * The k_*, copy and page_cycles coefficients are the shared coefficients fitted by `make fit`
 * (coeffs.h); mapped_page_cycles (FreeBSD r349529's measured saving), the per-segment, per-interrupt, per-ACK and metadata figures are fixed from cited
 * measurements (coeffs.c), as no reference row identifies them.
 * Leaves out: frequency changes with load beyond the sustained all-core clock, SMT yield that
 * varies with the instruction mix, cache-capacity effects other than a reused user buffer
 * (datapath.h), interrupt moderation by time rather than by packet count.
 */
#ifndef MODELS_CPU_H
#define MODELS_CPU_H
#include "models/app_enum.h"
#include "models/coeffs.h"
#include "models/datapath.h"
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

#endif /* MODELS_CPU_H */
