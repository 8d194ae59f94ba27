/* cpu.c — crypto cycle table and stack packet arithmetic (see cpu.h). */
#include "models/cpu.h"
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

double cpu_crypto_cpb(CryptoImpl impl, CpuUarch uarch)
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

double cpu_mss_bytes(const StackCfg *s)
{
  return s->mtu - 52.0;
}

double cpu_burst_bytes(const StackCfg *s)
{
  return s->tso ? s->tso_bytes : cpu_mss_bytes(s);
}

gboolean cpu_validate(const CpuCfg *c, const StackCfg *s, GError **error)
{
  if (c->clock_ghz <= 0 || c->clock_ghz > 10)
    return model_fail(error, "cpu.clock", "clock must be in (0, 10] GHz, got %g", c->clock_ghz);
  if (c->cap <= 0 || c->cap > 1) return model_fail(error, "cpu.cap", "utilisation cap must be in (0, 1], got %g", c->cap);
  if (s->mtu < 576 || s->mtu > 9216) return model_fail(error, "stack.mtu", "MTU must be 576..9216 bytes, got %d", s->mtu);
  if (s->tso && s->tso_bytes < cpu_mss_bytes(s))
    return model_fail(error, "stack.tso_size", "TSO segment must be at least one MSS");
  if (s->lro && s->lro_acks < 1) return model_fail(error, "stack.lro_acks", "must be at least 1");
  return TRUE;
}
