/* cpu.c — crypto cycle table and stack packet arithmetic (see cpu.h). */
#include "models/cpu.h"
#include "models/component.h"
#include "models/model_error.h"

APP_ENUM_DEFINE(cpu_uarch, CPU_UARCH_MAP);
APP_ENUM_DEFINE(cpu_crypto, CPU_CRYPTO_MAP);
APP_ENUM_CONF_OK(CpuUarch);
APP_ENUM_CONF_OK(CryptoImpl);

/* AES-128-GCM cycles/byte for 16 KB records, cache resident.
 * Broadwell 0.74, Skylake 0.63: OpenSSL aesni-gcm-x86_64.pl header (published.yaml general).
 * Ice Lake, Zen 3, Zen 4: VAES parts, "about 2x faster" (same source) -> 0.32.
 * Zen 1/2: not in the reference; taken equal to Skylake (two AES pipes, slower PCLMULQDQ).
 * Neoverse N1: not in the reference; ARMv8 crypto extensions, taken as 1.0 (assumption).
 * ISA-L's stitched AES-GCM is taken at the same cost as OpenSSL's (both stitched AES+GHASH);
 * the difference that matters (euro2022) is its non-temporal stores, not its speed.
 * ChaCha20-Poly1305: OpenSSL chacha-x86_64.pl / poly1305-x86_64.pl headers, AVX2 about
 * 1.1 + 0.5 cpb on Skylake-class cores; AVX-512 parts about 1.0 total; ARM NEON about 2.5. */
static const double AESGCM_CPB[UARCH_COUNT] = {
  [UARCH_BROADWELL] = 0.74, [UARCH_SKYLAKE] = 0.63, [UARCH_ICELAKE] = 0.32, [UARCH_ZEN1] = 0.63,
  [UARCH_ZEN2] = 0.63,      [UARCH_ZEN3] = 0.32,    [UARCH_ZEN4] = 0.32,    [UARCH_NEOVERSE_N1] = 1.0,
};
static const double CHACHA_CPB[UARCH_COUNT] = {
  [UARCH_BROADWELL] = 1.6, [UARCH_SKYLAKE] = 1.6, [UARCH_ICELAKE] = 1.0, [UARCH_ZEN1] = 1.6,
  [UARCH_ZEN2] = 1.6,      [UARCH_ZEN3] = 1.6,    [UARCH_ZEN4] = 1.0,    [UARCH_NEOVERSE_N1] = 2.5,
};

/* Bulk crypto cycles per byte on a micro-architecture (cache-resident data). */
static double cpu_crypto_cpb(CryptoImpl impl, CpuUarch uarch)
{
  g_return_val_if_fail(uarch < UARCH_COUNT, 0.0);
  switch (impl) {
    case CRYPTO_NONE: return 0.0;
    case CRYPTO_ISAL_AESGCM:
    case CRYPTO_OPENSSL_AESGCM: return AESGCM_CPB[uarch];
    case CRYPTO_CHACHA20_POLY1305: return CHACHA_CPB[uarch];
    default: g_return_val_if_reached(0.0);
  }
}

gboolean cpu_crypto_ordinary_stores(CryptoImpl impl)
{
  return impl == CRYPTO_OPENSSL_AESGCM || impl == CRYPTO_CHACHA20_POLY1305;
}

double cpu_core_hz(const CpuCfg *c)
{
  return c->clock_hz / 1e9 * 1e9;
}

double cpu_mss_bytes(const StackCfg *s)
{
  return s->mtu - 52.0;
}

double cpu_burst_bytes(const StackCfg *s)
{
  return s->tso ? s->tso_bytes : cpu_mss_bytes(s);
}

/* Checks the clock, the cap and the stack; MODEL_ERROR at cpu.* / stack.*. */
static gboolean cpu_validate(const CpuCfg *c, const StackCfg *s, GError **error)
{
  if (c->clock_hz <= 0 || c->clock_hz > 10e9)
    return model_fail(error, "cpu.clock", "clock must be in (0, 10] GHz, got %g", c->clock_hz / 1e9);
  if (c->cap <= 0 || c->cap > 1) return model_fail(error, "cpu.cap", "utilisation cap must be in (0, 1], got %g", c->cap);
  if (s->mtu < 576 || s->mtu > 9216) return model_fail(error, "stack.mtu", "MTU must be 576..9216 bytes, got %d", s->mtu);
  if (s->tso && s->tso_bytes < cpu_mss_bytes(s))
    return model_fail(error, "stack.tso_size", "TSO segment must be at least one MSS");
  if (s->lro && s->lro_acks < 1) return model_fail(error, "stack.lro_acks", "must be at least 1");
  return TRUE;
}

/* ---- the component (component.h) --------------------------------------------------------- */

#define CACHE_LINE_BYTES 64.0
#define PAGE_BYTES       4096.0
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
    .doc = "SMT threads (recorded, not modelled)" },
  { .key = "clock",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(a.cpu.clock_hz),
    .unit = SIM_UNIT_FREQUENCY,
    .required = true,
    .min = "100 MHz",
    .max = "10 GHz",
    .doc = "clock used for capacity (datasheet base clock)" },
  { .key = "cap",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(a.cpu.cap),
    .unit = SIM_UNIT_PERCENT,
    .def = "80 %",
    .min = "0",
    .max = "1",
    .min_exclusive = true,
    .doc = "CPU-utilisation cap (production: 80 %, euro2021)" },
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
  SIM_CONF_END
};

static gboolean cpu_component_validate(const Appliance *a, GError **error)
{
  return cpu_validate(&a->cpu, &a->stack, error);
}

/* cpu.nodeN: cores x clock cycles/s, usable up to the cap (a loopback host's sides reach only
 * `utilisation` of the cores they hold). */
static void cpu_add_resources(AppBuild *b, void *state G_GNUC_UNUSED)
{
  const Appliance *a = b->a;
  b->cpu_res = g_new(int, b->nodes);
  for (int n = 0; n < b->nodes; n++) {
    double cap = appliance_cores_per_node(a) * (a->cpu.clock_hz / 1e9) * 1e9; /* cores x GHz x 1e9, as fitted */
    char nm[40];
    g_snprintf(nm, sizeof nm, "cpu.node%d", n);
    double limit = b->loop ? a->cpu.cap * a->lo.utilisation : a->cpu.cap;
    b->cpu_res[n] = app_build_add_res(b, nm, RK_CPU, cap, limit, 100.0 / cap, "%", n);
  }
}

/* Stall cycles of a CPU read: the exposed part of each line's latency (cpu.h), and its
 * load-dependent part per ns of DRAM queueing. */
static void cpu_touch_demand(AppBuild *b, void *state G_GNUC_UNUSED, DmClass *k, const AppTouch *t)
{
  if (t->touch->stall == ST_NONE) return;
  const Appliance *a = b->a;
  const Coeffs *c = &a->coef;
  double f = a->cpu.clock_hz / 1e9; /* cycles per ns */
  int an = t->agent_node, mn = t->mem_node;
  double lat = mem_latency_ns(&a->mem, &a->topo, an, mn);
  double pen = topo_penalty_ns(&a->topo, an, mn), local = lat - pen;
  double kx = t->touch->stall == ST_BULK ? c->k_bulk : c->k_meta;
  k->demand[b->cpu_res[an]] += t->bytes * (kx * local + c->k_remote * pen) * f / CACHE_LINE_BYTES;
  app_build_add_lat(b, b->cpu_res[an], b->dram_res[mn], t->bytes * kx * f / CACHE_LINE_BYTES);
  app_build_res(b, b->cpu_res[an])->remote_stall += k->weight * t->bytes * c->k_remote * pen * f / CACHE_LINE_BYTES;
}

/* CPU work that is not a memory stall: bulk crypto and copies on the crypto CPU's node, the
 * stack's page, segment and ACK cycles on the stack's node. */
static void cpu_class_demand(AppBuild *b, void *state G_GNUC_UNUSED, DmClass *k)
{
  if (b->loop) return; /* a loopback host's measured cycles: loopback.c */
  const Appliance *a = b->a;
  const Coeffs *c = &a->coef;
  int N = b->nodes;
  double mss = cpu_mss_bytes(&a->stack);
  double crypto_cpb = datapath_cpu_crypto(k->path) ? cpu_crypto_cpb(a->crypto, a->cpu.uarch) : 0.0;
  double copy_cpb = datapath_copies(k->path) * c->copy_cpb;
  double seg = cpu_burst_bytes(&a->stack);
  double per_ack_event = 2.0 * mss * (a->stack.lro ? a->stack.lro_acks : 1.0);
  double stack_cpb = (c->page_cycles + (a->stack.mapped_mbufs ? c->mapped_page_cycles : 0.0)) / PAGE_BYTES + c->pkt_cycles / seg +
                     c->ack_cycles / per_ack_event;
  int crypto = app_build_cpu_node(b, k, AG_CPU_CRYPTO), stack = app_build_cpu_node(b, k, AG_CPU_STACK);
  for (int n = 0; n < N; n++) {
    double pc = crypto < 0 ? 1.0 / N : (crypto == n);
    double ps = stack < 0 ? 1.0 / N : (stack == n);
    k->demand[b->cpu_res[n]] += pc * (crypto_cpb + copy_cpb) + ps * stack_cpb;
  }
}

const AppComponent cpu_component = { .name = "cpu",
                                     .validate = cpu_component_validate,
                                     .add_resources = cpu_add_resources,
                                     .class_demand = cpu_class_demand,
                                     .touch_demand = cpu_touch_demand };
