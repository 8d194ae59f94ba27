/* cpu.c — crypto cycle table and stack packet arithmetic (see cpu.h). */
#include "models/appliance/cpu.h"
#include "models/appliance/component.h"
#include "models/appliance/model_error.h"
#include <math.h>
#include <string.h>

APP_ENUM_DEFINE(cpu_uarch, CPU_UARCH_MAP);
APP_ENUM_DEFINE(cpu_crypto, CPU_CRYPTO_MAP);
APP_ENUM_CONF_OK(CpuUarch);
APP_ENUM_CONF_OK(CryptoImpl);

/* Throughput of a 2-way SMT core with both threads busy over one thread: "up to 30 %" more on
 * server workloads (Marr et al., "Hyper-Threading Technology Architecture and
 * Microarchitecture", Intel Technology Journal 6(1), 2002). Every x86 box of the reference set
 * is 2-way SMT, so no fit can tell it from the cycle costs: it is fixed from this source and
 * only sets a part with one thread per core (Ampere Altra) against them. */
#define CPU_SMT2_YIELD 1.30

/* The crypto table: bulk cycles per byte for 16 KB records with the data in cache, per
 * (implementation, micro-architecture), each entry with its source. No entry is "taken equal"
 * to another part: an absent one makes cpu.crypto_cpb a required key (cpu_crypto_check).
 *   [openssl]  OpenSSL aesni-gcm-x86_64.pl header: AES-128-GCM 0.74 on Broadwell, 0.63 on
 *              Skylake; "VAES/AVX-512 parts reach about 2x faster" (published.yaml general).
 *   [isal]     ISA-L's aes_gcm (avx_gen2/gen4, vaes_avx512) is the Intel stitched AES-NI +
 *              PCLMULQDQ submission that the OpenSSL module is built from (its header): the same
 *              instruction mix, so the same measured cost; what differs is its non-temporal stores
 *              (euro2022), datapath.h.
 *   [agner]    Assumed (a derivation whose inputs were not re-checked against the tables):
 *              instruction-table bound (A. Fog, "Instruction tables", Zen 1 / Zen 2): AESENC at
 *              2 per cycle, PCLMULQDQ one per 2 cycles; AES-128 needs 10 AESENC per 16 B (0.31
 *              cpb) and 4-way aggregated GHASH about 3.5 PCLMULQDQ per 16 B (0.44 cpb), on other
 *              pipes, so the stitched loop runs at the GHASH bound, 0.44 (the same bound gives
 *              Skylake 0.625 against its measured 0.63).
 *   [awslc]    AWS-LC EVP AES-128-GCM encrypt, 16 KiB: 2247 MB/s on Graviton 2 (Neoverse N1,
 *              2.5 GHz) = 1.11 cpb (aws-lc benchmarks_g2.md): the interleaved user-space loop
 *              (AES of several blocks stitched with 4-way aggregated GHASH). It prices OpenSSL-class
 *              user-space TLS on arm64 (openssl_aes_gcm), not the kernel's cipher.
 *   [fbsdv8]   armv8_aes_gcm is the arm64 kernel cipher the data path runs on the published
 *              appliances' OS, FreeBSD: software kTLS takes AES-GCM from armv8crypto(4), whose
 *              armv8_aes_encrypt_gcm() (sys/crypto/armv8/armv8_crypto_wrap.c) calls aes_v8_encrypt
 *              and gcm_ghash_v8 once per 16-B block (ossl(4) offers arm64 AES-CBC only:
 *              sys/crypto/openssl/ossl_aarch64.c sets no has_aes_gcm). No measurement of it was
 *              found; derived from the Neoverse N1 latencies (Arm Neoverse N1 Software
 *              Optimization Guide, as LLVM's AArch64SchedNeoverseN1.td carries them: AESE 2
 *              cycles with AESMC fused behind it, so 2 cycles a round; PMULL 2 cycles; all on pipe
 *              V0), per 16-B block:
 *                AES chain: 10 rounds x 2 + final EOR 2                      = 22 cycles
 *                EKi through memory to the C XOR, ciphertext back to memory,
 *                  reloaded 128-bit by gcm_ghash_v8 (no forwarding of two
 *                  64-bit stores into one 128-bit load: wait for the stores)  ~ 15 cycles
 *                GHASH of one block, not aggregated: EOR 2, PMULL 2, Karatsuba
 *                  combine 4, two reduction PMULLs with their EXT/EOR 8, Xi
 *                  stored and reloaded by the next call 5                    ~ 23 cycles
 *              serial: ~60 cycles = 3.75 cpb. The next block's AES does not wait for this
 *              block's GHASH (only the counter), so the core overlaps them as far as its
 *              128-entry reorder window lets it: ~100 instructions a block (aes_v8_encrypt ~40,
 *              gcm_ghash_v8's one-block path ~40, counter, XOR, calls ~20) leave ~1.4 blocks in
 *              flight over the ~60-cycle path, ~43 cycles = 2.7 cpb. The loop-carried floor is
 *              the Xi chain, ~23-25 cycles = 1.5 cpb (V0's 10 fused AES + 5 PMULL = 15 cycles
 *              does not bind). So 2.7 cpb (assumed derivation), range 1.5-3.8. A Linux kernel
 *              (arch/arm64/crypto/ghash-ce, interleaved) would be near [awslc]: give
 *              cpu.crypto_cpb for it; the model has no OS key.
 *   [chacha]   OpenSSL chacha-x86_64.pl / poly1305-x86_64.pl headers, cycles per byte of a large
 *              buffer: 8xAVX2 ChaCha20 Haswell 1.23, Skylake 1.19; AVX2 Poly1305 Haswell 0.65,
 *              Skylake 0.51 (no Broadwell row: Broadwell needs cpu.crypto_cpb for this cipher);
 *              AVX-512 parts about 1.0 in all. */
typedef struct {
  CryptoImpl impl;
  CpuUarch uarch;
  double cpb; /* -1: cannot run there */
  const char *source;
  double lo, hi; /* plausible range, cpb (cpu_crypto_table_range): a measured header figure +-10 % (one
                    machine, one build); "about 2x Skylake" 0.25-0.40 (1.6x-2.5x); the Zen 1/2 bound
                    from itself up to Broadwell's measured 0.74; AWS-LC +-10 %; [fbsdv8] as derived */
} CryptoEntry;

/* clang-format off */
static const CryptoEntry CRYPTO_TABLE[] = {
  { CRYPTO_OPENSSL_AESGCM, UARCH_BROADWELL, 0.74, "OpenSSL aesni-gcm-x86_64.pl header (Broadwell 0.74)", 0.67, 0.81 },
  { CRYPTO_OPENSSL_AESGCM, UARCH_SKYLAKE, 0.63, "OpenSSL aesni-gcm-x86_64.pl header (Skylake 0.63)", 0.57, 0.69 },
  { CRYPTO_OPENSSL_AESGCM, UARCH_ICELAKE, 0.32, "OpenSSL aesni-gcm-x86_64.pl: VAES parts about 2x Skylake", 0.25, 0.4 },
  { CRYPTO_OPENSSL_AESGCM, UARCH_ZEN1, 0.44, "assumed: instruction-table bound (Fog, Zen 1: PCLMULQDQ 1 per 2 cycles), not re-checked", 0.44, 0.74 },
  { CRYPTO_OPENSSL_AESGCM, UARCH_ZEN2, 0.44, "assumed: instruction-table bound (Fog, Zen 2: PCLMULQDQ 1 per 2 cycles), not re-checked", 0.44, 0.74 },
  { CRYPTO_OPENSSL_AESGCM, UARCH_ZEN3, 0.32, "OpenSSL aesni-gcm-x86_64.pl: VAES parts about 2x Skylake", 0.25, 0.4 },
  { CRYPTO_OPENSSL_AESGCM, UARCH_ZEN4, 0.32, "OpenSSL aesni-gcm-x86_64.pl: VAES parts about 2x Skylake", 0.25, 0.4 },
  { CRYPTO_OPENSSL_AESGCM, UARCH_NEOVERSE_N1, 1.11, "AWS-LC AES-128-GCM 16 KiB on Graviton 2 (Neoverse N1)", 1, 1.22 },
  { CRYPTO_ISAL_AESGCM, UARCH_BROADWELL, 0.74, "ISA-L = the Intel stitched code of OpenSSL's header (Broadwell 0.74)", 0.67, 0.81 },
  { CRYPTO_ISAL_AESGCM, UARCH_SKYLAKE, 0.63, "ISA-L = the Intel stitched code of OpenSSL's header (Skylake 0.63)", 0.57, 0.69 },
  { CRYPTO_ISAL_AESGCM, UARCH_ICELAKE, 0.32, "ISA-L vaes_avx512: VAES parts about 2x Skylake (OpenSSL header)", 0.25, 0.4 },
  { CRYPTO_ISAL_AESGCM, UARCH_ZEN1, 0.44, "assumed: instruction-table bound (Fog, Zen 1: PCLMULQDQ 1 per 2 cycles), not re-checked", 0.44, 0.74 },
  { CRYPTO_ISAL_AESGCM, UARCH_ZEN2, 0.44, "assumed: instruction-table bound (Fog, Zen 2: PCLMULQDQ 1 per 2 cycles), not re-checked", 0.44, 0.74 },
  { CRYPTO_ISAL_AESGCM, UARCH_ZEN4, 0.32, "ISA-L vaes_avx512: VAES parts about 2x Skylake (OpenSSL header)", 0.25, 0.4 },
  { CRYPTO_ISAL_AESGCM, UARCH_NEOVERSE_N1, -1, "ISA-L's AES-GCM is x86-64 assembly only", -1, -1 },
  { CRYPTO_ARMV8_AESGCM, UARCH_NEOVERSE_N1, 2.7, "derived: FreeBSD armv8crypto per-block AES + GHASH calls, Neoverse N1 latencies", 1.5, 3.8 },
  { CRYPTO_CHACHA20_POLY1305, UARCH_SKYLAKE, 1.70, "OpenSSL chacha-x86_64.pl 8xAVX2 Skylake 1.19 + poly1305-x86_64.pl AVX2 Skylake 0.51", 1.53, 1.87 },
  { CRYPTO_CHACHA20_POLY1305, UARCH_ICELAKE, 1.0, "OpenSSL chacha/poly1305-x86_64.pl headers, AVX-512 about 1.0", 0.9, 1.1 },
  { CRYPTO_CHACHA20_POLY1305, UARCH_ZEN4, 1.0, "OpenSSL chacha/poly1305-x86_64.pl headers, AVX-512 about 1.0", 0.9, 1.1 },
};
/* clang-format on */

static gboolean uarch_is_arm64(CpuUarch u)
{
  return u == UARCH_NEOVERSE_N1;
}

double cpu_crypto_table_cpb(CryptoImpl impl, CpuUarch uarch, const char **source)
{
  if (source) *source = NULL;
  if (impl == CRYPTO_ARMV8_AESGCM && !uarch_is_arm64(uarch)) {
    if (source) *source = "the ARMv8 crypto extensions exist on arm64 only";
    return -1;
  }
  for (size_t i = 0; i < G_N_ELEMENTS(CRYPTO_TABLE); i++)
    if (CRYPTO_TABLE[i].impl == impl && CRYPTO_TABLE[i].uarch == uarch) {
      if (source) *source = CRYPTO_TABLE[i].source;
      return CRYPTO_TABLE[i].cpb;
    }
  return 0.0;
}

gboolean cpu_crypto_table_range(CryptoImpl impl, CpuUarch uarch, double *lo, double *hi)
{
  for (size_t i = 0; i < G_N_ELEMENTS(CRYPTO_TABLE); i++)
    if (CRYPTO_TABLE[i].impl == impl && CRYPTO_TABLE[i].uarch == uarch && CRYPTO_TABLE[i].cpb > 0) {
      *lo = CRYPTO_TABLE[i].lo;
      *hi = CRYPTO_TABLE[i].hi;
      return TRUE;
    }
  return FALSE;
}

double cpu_crypto_cpb(const CpuCfg *c, CryptoImpl impl)
{
  if (impl == CRYPTO_NONE) return 0.0;
  if (c->crypto_cpb > 0) return c->crypto_cpb;
  return MAX(0.0, cpu_crypto_table_cpb(impl, c->uarch, NULL));
}

gboolean cpu_crypto_check(const CpuCfg *c, CryptoImpl impl, GError **error)
{
  if (impl == CRYPTO_NONE) return TRUE;
  const char *src;
  double t = cpu_crypto_table_cpb(impl, c->uarch, &src);
  const char *impl_name = APP_ENUM_NAME_OF(cpu_crypto, CRYPTO_COUNT, impl);
  const char *uarch_name = APP_ENUM_NAME_OF(cpu_uarch, UARCH_COUNT, c->uarch);
  if (t < 0)
    return model_fail(error, "software.crypto", "%s cannot run on %s (%s)%s", impl_name, uarch_name, src,
                      uarch_is_arm64(c->uarch) ? ": the arm64 kernel cipher is armv8_aes_gcm" : "");
  if (t == 0 && !(c->crypto_cpb > 0))
    return model_fail(error, "cpu.crypto_cpb",
                      "the crypto table has no sourced cycles/byte for %s on %s: give cpu.crypto_cpb (a cited figure, or "
                      "the one `ocasim validate` measures on that host)",
                      impl_name, uarch_name);
  return TRUE;
}

gboolean cpu_crypto_ordinary_stores(CryptoImpl impl)
{
  return impl == CRYPTO_OPENSSL_AESGCM || impl == CRYPTO_CHACHA20_POLY1305 || impl == CRYPTO_ARMV8_AESGCM;
}

double cpu_smt_yield(const CpuCfg *c)
{
  if (c->smt_yield > 0) return c->smt_yield;
  return c->threads_per_core > 1 ? CPU_SMT2_YIELD : 1.0;
}

double cpu_node_capacity_hz(const CpuCfg *c, int cores)
{
  return cores * c->clock_hz * cpu_smt_yield(c);
}

double cpu_cache_share_bytes(const CpuCfg *c, int cores_per_socket)
{
  return c->l2_bytes + (cores_per_socket > 0 ? c->l3_bytes / cores_per_socket : 0.0);
}

/* IPv4 (20 B) + TCP (20 B) + the TCP timestamp option (12 B, RFC 7323) per segment: MSS =
 * MTU - 52, 1448 B at MTU 1500. */
#define TCP_IP_TS_HEADER_BYTES 52.0

double cpu_mss_bytes(const StackCfg *s)
{
  return s->mtu - TCP_IP_TS_HEADER_BYTES;
}

double cpu_burst_bytes(const StackCfg *s)
{
  return s->tso ? s->tso_bytes : cpu_mss_bytes(s);
}

double cpu_segments_per_byte(const StackCfg *s)
{
  return 1.0 / cpu_burst_bytes(s);
}

double cpu_ack_packets_per_byte(const StackCfg *s)
{
  return 1.0 / (2.0 * cpu_mss_bytes(s));
}

double cpu_ack_events_per_byte(const StackCfg *s)
{
  return cpu_ack_packets_per_byte(s) / (s->lro ? s->lro_acks : 1.0);
}

double cpu_interrupts_per_byte(const StackCfg *s)
{
  return (cpu_segments_per_byte(s) + cpu_ack_packets_per_byte(s)) / MAX(1.0, s->irq_pkts);
}

#define PAGE_4K 4096.0
/* The page sizes cpu.page_size accepts: 4 KiB (x86), 16 KiB and 64 KiB (Arm64 granules, Arm
 * ARM: translation granule sizes). */
#define PAGE_16K 16384.0
#define PAGE_64K 65536.0
/* Validation limits: the highest clock a part may claim (10 GHz, assumed: above any shipping
 * server part), and the MTU range from IPv4's minimum reassembly size (576 B, RFC 791) to a
 * common jumbo-frame limit (9216 B, assumed from switch data sheets). */
#define CPU_MAX_CLOCK_HZ 10e9
#define STACK_MIN_MTU    576
#define STACK_MAX_MTU    9216

double cpu_pages_per_byte(const CpuCfg *c)
{
  return 1.0 / (c->page_bytes > 0 ? c->page_bytes : PAGE_4K);
}

double cpu_meta_bytes_per_byte(const StackCfg *s, const Coeffs *c)
{
  return c->meta_pkt_bytes / cpu_mss_bytes(s) + c->meta_conn_bytes * cpu_ack_events_per_byte(s);
}

CostCipher cpu_cost_cipher(CryptoImpl impl)
{
  switch (impl) {
    case CRYPTO_ISAL_AESGCM:
    case CRYPTO_OPENSSL_AESGCM:
    case CRYPTO_ARMV8_AESGCM: return COST_AES_128_GCM;
    case CRYPTO_CHACHA20_POLY1305: return COST_CHACHA20_POLY1305;
    default: return COST_CIPHER_COUNT;
  }
}

/* The profile's value when given (> 0), else the model's. */
static double cost_or(double profile, double model)
{
  return profile > 0 ? profile : model;
}

void cpu_path_costs(const CpuCfg *cpu, const StackCfg *s, const Coeffs *c, DataPath path, CryptoImpl impl, CpuCosts *out)
{
  const CostProfile *p = &cpu->costs;
  out->crypto = datapath_cpu_crypto(path) ? cpu_crypto_cpb(cpu, impl) : 0.0;
  out->copy = datapath_copies(path) * cost_or(p->copy_cpb, c->copy_cpb);
  out->page = cost_or(p->page_cycles, c->page_cycles) * cpu_pages_per_byte(cpu) +
              (s->mapped_mbufs ? c->mapped_page_cycles / PAGE_4K : 0.0);
  out->segment = cost_or(p->segment_cycles, c->pkt_cycles) * cpu_segments_per_byte(s);
  out->interrupt = cost_or(p->interrupt_cycles, c->irq_cycles) * cpu_interrupts_per_byte(s);
  out->ack = c->ack_cycles * cpu_ack_events_per_byte(s);
}

double cpu_costs_stack(const CpuCosts *k)
{
  return k->page + k->segment + k->interrupt + k->ack;
}

double cpu_costs_crypto(const CpuCosts *k)
{
  return k->crypto + k->copy;
}

/* Checks the clock, the SMT yield, the page size, the cap and the stack; MODEL_ERROR at cpu.* / stack.* /
 * workload.cpu_cap. */
static gboolean cpu_validate(const CpuCfg *c, const StackCfg *s, GError **error)
{
  if (c->clock_hz <= 0 || c->clock_hz > CPU_MAX_CLOCK_HZ)
    return model_fail(error, "cpu.clock", "clock must be in (0, 10] GHz, got %g", c->clock_hz / 1e9);
  if (c->smt_yield > 0 && (c->smt_yield < 1 || c->smt_yield > c->threads_per_core))
    return model_fail(error, "cpu.smt_yield", "an SMT yield is 1 .. threads_per_core (%d), got %g", c->threads_per_core,
                      c->smt_yield);
  double pg = c->page_bytes;
  if (pg != PAGE_4K && pg != PAGE_16K && pg != PAGE_64K)
    return model_fail(error, "cpu.page_size", "page size must be 4 KiB, 16 KiB or 64 KiB, got %g B", pg);
  if (c->cap <= 0 || c->cap > 1)
    return model_fail(error, "workload.cpu_cap", "utilisation cap must be in (0, 1], got %g", c->cap);
  if (s->mtu < STACK_MIN_MTU || s->mtu > STACK_MAX_MTU)
    return model_fail(error, "stack.mtu", "MTU must be %d..%d bytes, got %d", STACK_MIN_MTU, STACK_MAX_MTU, s->mtu);
  if (s->tso && s->tso_bytes < cpu_mss_bytes(s))
    return model_fail(error, "stack.tso_size", "TSO segment must be at least one MSS");
  if (s->lro && s->lro_acks < 1) return model_fail(error, "stack.lro_acks", "must be at least 1");
  if (s->irq_pkts < 1)
    return model_fail(error, "stack.interrupt_moderation", "packets per interrupt must be at least 1 (off), got %g", s->irq_pkts);
  return TRUE;
}

/* ---- the component (component.h) --------------------------------------------------------- */

/* x86 and Neoverse cache line (Intel SDM, Arm Neoverse N1 TRM). */
#define CACHE_LINE_BYTES 64.0
#define F(m)             offsetof(AppConf, m)

const SimConfField cpu_schema[] = {
  { .key = "model", .type = SIM_CONF_T_STRING, .offset = F(cpu_model), .doc = "CPU model (documentation)" },
  { .key = "uarch",
    .type = SIM_CONF_T_ENUM,
    .offset = F(a.cpu.uarch),
    .enum_names = cpu_uarch_names,
    .required = true,
    .doc = "micro-architecture (selects crypto cycles per byte)" },
  { .key = "sockets", .type = SIM_CONF_T_INT, .offset = F(a.topo.sockets), .def = "1", .min = "1", .max = "2", .doc = "sockets" },
  /* sanity bound: the largest sockets today have 192 (EPYC 9965) to 288 (Xeon 6900E) cores */
  { .key = "cores_per_socket",
    .type = SIM_CONF_T_INT,
    .offset = F(a.topo.cores_per_socket),
    .required = true,
    .min = "1",
    .max = "1024",
    .doc = "cores per socket" },
  { .key = "threads_per_core",
    .type = SIM_CONF_T_INT,
    .offset = F(a.cpu.threads_per_core),
    .def = "2",
    .min = "1",
    .max = "8",
    .doc = "hardware threads per core (SMT); capacity counts them through smt_yield" },
  { .key = "smt_yield",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(a.cpu.smt_yield),
    .def = "0",
    .min = "0",
    .max = "8",
    .doc = "throughput of a core with all its threads busy over one thread (0: 1.0 with one thread, 1.30 with two, "
           "Marr et al. 2002)" },
  { .key = "clock",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(a.cpu.clock_hz),
    .unit = SIM_UNIT_FREQUENCY,
    .required = true,
    .min = "100 MHz",
    .max = "10 GHz",
    .doc = "sustained all-core clock under this load, with its source (the base clock only when nothing better is "
           "published); every cycle cost is cycles on one core at it" },
  { .key = "crypto_cpb",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(a.cpu.crypto_cpb),
    .def = "0",
    .min = "0",
    .max = "100",
    .doc =
        "this part's bulk-cipher cycles per byte for software.crypto, sourced or from `ocasim validate` (0: the crypto table's; required where the table has none)" },
  { .key = "page_size",
    .type = SIM_CONF_T_DOUBLE,
    .whole = true,
    .offset = F(a.cpu.page_bytes),
    .unit = SIM_UNIT_SIZE,
    .def = "4 KiB",
    .min = "4 KiB",
    .max = "64 KiB",
    .doc = "VM page size: the stack's per-page cost is per page of it (4 KiB; 16 KiB on arm64 kernels built so)" },
  { .key = "l2_per_core",
    .type = SIM_CONF_T_DOUBLE,
    .whole = true,
    .offset = F(a.cpu.l2_bytes),
    .unit = SIM_UNIT_SIZE,
    .def = "0 B",
    .min = "0 B",
    .doc = "L2 cache per core (datasheet; 0: not given, a reused user buffer is then never cache resident)" },
  { .key = "l3_per_socket",
    .type = SIM_CONF_T_DOUBLE,
    .whole = true,
    .offset = F(a.cpu.l3_bytes),
    .unit = SIM_UNIT_SIZE,
    .def = "0 B",
    .min = "0 B",
    .doc = "last-level cache per socket (datasheet); a core's share is L2 + L3 / cores_per_socket" },
  SIM_CONF_END
};

const SimConfField stack_schema[] = {
  { .key = "tso", .type = SIM_CONF_T_BOOL, .offset = F(a.stack.tso), .def = "true", .doc = "TCP segmentation offload" },
  { .key = "lro",
    .type = SIM_CONF_T_BOOL,
    .offset = F(a.stack.lro),
    .def = "true",
    .doc = "large receive offload (merges ACKs)" },
  { .key = "mtu",
    .type = SIM_CONF_T_INT,
    .offset = F(a.stack.mtu),
    .unit = SIM_UNIT_SIZE,
    .def = "1500 B",
    .min = "576",
    .max = "9216",
    .doc = "IP MTU (1500 B toward internet clients)" },
  /* sanity bound: 64 KiB is the classic TSO limit, Linux BIG TCP goes to 512 KiB */
  { .key = "tso_size",
    .type = SIM_CONF_T_DOUBLE,
    .whole = true,
    .offset = F(a.stack.tso_bytes),
    .unit = SIM_UNIT_SIZE,
    .def = "64 KiB",
    .min = "576",
    .max = "1 MiB",
    .doc = "payload per TSO segment (64 KiB: the TSO maximum)" },
  { .key = "lro_acks",
    .type = SIM_CONF_T_DOUBLE,
    .whole = true,
    .offset = F(a.stack.lro_acks),
    .def = "8",
    .min = "1",
    .max = "64",
    .doc = "ACK packets merged per LRO aggregate (assumption)" },
  { .key = "mapped_mbufs",
    .type = SIM_CONF_T_BOOL,
    .offset = F(a.stack.mapped_mbufs),
    .def = "false",
    .doc = "pre-2019 mapped mbufs and sf_bufs (FreeBSD before unmapped mbufs)" },
  { .key = "interrupt_moderation",
    .type = SIM_CONF_T_NODE,
    .offset = F(irq_node),
    .doc = "packets per interrupt, or \"off\" (one per packet); default 32 (mlx5 driver default CQ moderation, assumption "
           "for the other cards)" },
  SIM_CONF_END
};

/* Every cost is cycles at cpu.clock; a sanity bound far above any measured figure (a 4 KiB page
 * at 1e7 cycles, a request at 1e9). The source is required with any value (cpu_finish). */
const SimConfField costs_schema[] = {
  { .key = "source",
    .type = SIM_CONF_T_STRING,
    .offset = F(costs_source),
    .doc = "where the costs come from: the host and date `ocasim validate` measured them on, or a citation (required "
           "with any cost)" },
  { .key = "aes_128_gcm_cpb",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(a.cpu.costs.crypto_cpb[COST_AES_128_GCM]),
    .def = "0",
    .min = "0",
    .max = "100",
    .doc = "AES-128-GCM bulk cycles/B (prices isal_aes_gcm, openssl_aes_gcm, armv8_aes_gcm; fills cpu.crypto_cpb; 0: the "
           "crypto table)" },
  { .key = "aes_256_gcm_cpb",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(a.cpu.costs.crypto_cpb[COST_AES_256_GCM]),
    .def = "0",
    .min = "0",
    .max = "100",
    .doc = "AES-256-GCM bulk cycles/B (kept with the profile; no software.crypto implementation is AES-256)" },
  { .key = "chacha20_poly1305_cpb",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(a.cpu.costs.crypto_cpb[COST_CHACHA20_POLY1305]),
    .def = "0",
    .min = "0",
    .max = "100",
    .doc = "ChaCha20-Poly1305 bulk cycles/B (prices chacha20_poly1305; 0: the crypto table)" },
  { .key = "copy_cpb",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(a.cpu.costs.copy_cpb),
    .def = "0",
    .min = "0",
    .max = "100",
    .doc = "cycles/B of a kernel<->user copy, in-cache part (0: the fitted copy_cpb)" },
  { .key = "page_cycles",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(a.cpu.costs.page_cycles),
    .def = "0",
    .min = "0",
    .max = "1e7",
    .doc = "stack cycles per payload page of cpu.page_size (0: the fitted page_cycles)" },
  { .key = "segment_cycles",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(a.cpu.costs.segment_cycles),
    .def = "0",
    .min = "0",
    .max = "1e7",
    .doc = "cycles per segment handed to the NIC (0: the model's 2800, netmap's per-packet cost, models/appliance/coeffs.c)" },
  { .key = "interrupt_cycles",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(a.cpu.costs.interrupt_cycles),
    .def = "0",
    .min = "0",
    .max = "1e7",
    .doc = "cycles per interrupt (0: the model's 2000, assumed, models/appliance/coeffs.c)" },
  { .key = "request_cycles",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(a.cpu.costs.request_cycles),
    .def = "0",
    .min = "0",
    .max = "1e9",
    .doc = "cycles per request (fills workload.request_cycles; 0: not charged unless that key is given)" },
  SIM_CONF_END
};

/* The cost profile's crypto and per-request figures fill cpu.crypto_cpb and
 * workload.request_cycles (a value given in both places is an error: give it once); any
 * value needs costs.source. Located conf errors. */
static gboolean costs_finish(AppConf *c, const SimConfNode *root, GError **error)
{
  const CostProfile *p = &c->a.cpu.costs;
  double sum = p->copy_cpb + p->page_cycles + p->segment_cycles + p->interrupt_cycles + p->request_cycles;
  for (int i = 0; i < COST_CIPHER_COUNT; i++) sum += p->crypto_cpb[i];
  if (sum > 0 && !(c->costs_source && *c->costs_source))
    return app_conf_error(error, root, "costs", SIM_CONF_ERROR_MISSING,
                          "costs.source is required with any cost: the host and date measured, or a citation");
  CostCipher k = cpu_cost_cipher(c->a.crypto);
  if (k < COST_CIPHER_COUNT && p->crypto_cpb[k] > 0) {
    static const char *const key[COST_CIPHER_COUNT] = { "costs.aes_128_gcm_cpb", "costs.aes_256_gcm_cpb",
                                                        "costs.chacha20_poly1305_cpb" };
    if (sim_conf_node_get(sim_conf_node_get(root, "cpu"), "crypto_cpb"))
      return app_conf_error(error, root, key[k], SIM_CONF_ERROR_RANGE,
                            "cpu.crypto_cpb also prices software.crypto: give the figure once");
    c->a.cpu.crypto_cpb = p->crypto_cpb[k];
  }
  if (p->request_cycles > 0) {
    if (sim_conf_node_get(sim_conf_node_get(root, "workload"), "request_cycles"))
      return app_conf_error(error, root, "costs.request_cycles", SIM_CONF_ERROR_RANGE,
                            "workload.request_cycles also gives it: give the figure once");
    c->a.wl.request_cycles = p->request_cycles;
  }
  return TRUE;
}

/* Packets per interrupt when stack.interrupt_moderation is not given: the mlx5 driver's default
 * completion-queue moderation of 32 packets (assumption for the other cards). */
#define CPU_IRQ_PKTS_DEFAULT 32.0
/* Most packets per interrupt stack.interrupt_moderation accepts (a validation limit, far above
 * any driver's coalescing budget). Assumed. */
#define CPU_IRQ_PKTS_MAX 4096

/* stack.interrupt_moderation: a whole number of packets per interrupt, or "off" (1). */
static gboolean cpu_finish(AppConf *c, const SimConfNode *root, GError **error)
{
  if (!costs_finish(c, root, error)) return FALSE;
  c->a.stack.irq_pkts = CPU_IRQ_PKTS_DEFAULT;
  const SimConfNode *n = c->irq_node;
  if (!n) return TRUE;
  const char *txt = sim_conf_node_text(n);
  if (txt && strcmp(txt, "off") == 0) {
    c->a.stack.irq_pkts = 1.0;
    return TRUE;
  }
  double v;
  if (!sim_conf_node_double(n, SIM_UNIT_NONE, &v, error)) return FALSE;
  if (!(v >= 1) || v != floor(v) || v > CPU_IRQ_PKTS_MAX) {
    sim_conf_set_error(error, n, SIM_CONF_ERROR_RANGE, "packets per interrupt must be a whole number 1..%d, or \"off\"",
                       CPU_IRQ_PKTS_MAX);
    return FALSE;
  }
  c->a.stack.irq_pkts = v;
  return TRUE;
}

static gboolean cpu_component_validate(const Appliance *a, GError **error)
{
  return cpu_validate(&a->cpu, &a->stack, error);
}

/* cpu.nodeN: physical cores x sustained clock x SMT yield cycles/s (cpu.h), usable up to the
 * cap (a loopback host's sides reach only `utilisation` of the cores they hold). Reported as
 * the share of logical CPUs busy (CPU_PCT_CONVENTION). */
static void cpu_add_resources(AppBuild *b, void *state G_GNUC_UNUSED)
{
  const Appliance *a = b->a;
  b->cpu_res = g_new(int, b->nodes);
  for (int n = 0; n < b->nodes; n++) {
    double cap = cpu_node_capacity_hz(&a->cpu, appliance_cores_per_node(a));
    char nm[40];
    g_snprintf(nm, sizeof nm, "cpu.node%d", n);
    double limit = b->loop ? a->cpu.cap * a->lo.utilisation : a->cpu.cap;
    b->cpu_res[n] = app_build_add_res(b, nm, RK_CPU, cap, limit, 100.0 / cap, "%", n);
  }
}

/* Stall cycles of a CPU read: the exposed part of each line's latency (cpu.h): k_dram of a local
 * line's, k_remote of a remote line's whole latency, and the same share of its load-dependent
 * part per ns of DRAM queueing (a reused buffer's touch carries only the bytes that miss the
 * cache, datapath.h). */
static void cpu_touch_demand(AppBuild *b, void *state G_GNUC_UNUSED, DmClass *k, const AppTouch *t)
{
  if (t->touch->stall == ST_NONE) return;
  const Appliance *a = b->a;
  const Coeffs *c = &a->coef;
  double f = a->cpu.clock_hz / 1e9; /* cycles per ns */
  int an = t->agent_node, mn = t->mem_node;
  double lat = mem_latency_ns(&a->mem, &a->topo, an, mn);
  gboolean remote = topo_penalty_ns(&a->topo, an, mn) > 0;
  /* one k_dram for streaming and metadata reads alike (coeffs.c) */
  double kx = remote ? c->k_remote : c->k_dram, per_ns = t->bytes * kx * f / CACHE_LINE_BYTES;
  k->demand[b->cpu_res[an]] += per_ns * lat;
  app_build_add_lat(b, b->cpu_res[an], b->dram_res[mn], per_ns);
  DmResource *x = app_build_res(b, b->cpu_res[an]);
  /* a remote line's stall is the fabric's (bottleneck naming, demand.h rule (b)), a local one's the DRAM's */
  if (remote)
    x->remote_stall += k->weight * per_ns * lat;
  else
    x->dram_stall += k->weight * per_ns * lat;
}

/* CPU work that is not a memory stall (cpu_path_costs): bulk crypto and copies on the crypto
 * CPU's node, the stack's page, segment, interrupt and ACK cycles on the stack's node. */
static void cpu_class_demand(AppBuild *b, void *state G_GNUC_UNUSED, DmClass *k)
{
  if (b->loop) return; /* a loopback host's measured cycles: loopback.c */
  const Appliance *a = b->a;
  int N = b->nodes;
  CpuCosts costs;
  cpu_path_costs(&a->cpu, &a->stack, &a->coef, k->path, a->crypto, &costs);
  double crypto_cpb = cpu_costs_crypto(&costs), stack_cpb = cpu_costs_stack(&costs);
  int crypto = app_build_cpu_node(b, k, AG_CPU_CRYPTO), stack = app_build_cpu_node(b, k, AG_CPU_STACK);
  for (int n = 0; n < N; n++) {
    double pc = crypto < 0 ? 1.0 / N : (crypto == n);
    double ps = stack < 0 ? 1.0 / N : (stack == n);
    k->demand[b->cpu_res[n]] += pc * crypto_cpb + ps * stack_cpb;
  }
}

const AppComponent cpu_component = { .name = "cpu",
                                     .finish = cpu_finish,
                                     .validate = cpu_component_validate,
                                     .add_resources = cpu_add_resources,
                                     .class_demand = cpu_class_demand,
                                     .touch_demand = cpu_touch_demand };
