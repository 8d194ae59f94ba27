/* serve/probe.h — what the host is: CPU, clock, NUMA, memory, kernel, crypto
 * instruction set, OpenSSL, kernel TLS.
 */
#ifndef SERVE_PROBE_H
#define SERVE_PROBE_H

#include <glib.h>
#include <json-glib/json-glib.h>
#include <stdint.h>

G_BEGIN_DECLS

/* Result of the kernel-TLS probe. */
typedef struct {
  gboolean ulp_ok; /* setsockopt(TCP_ULP, "tls") succeeded on a loopback socket */
  int ulp_errno;   /* errno when it failed (ENOENT: no tls module / CONFIG_TLS unset) */
  gboolean tx_ok;  /* setsockopt(SOL_TLS, TLS_TX) with an AES-128-GCM key succeeded */
  int tx_errno;
  gboolean openssl_compiled; /* OpenSSL built with kTLS support */
  gboolean openssl_engaged;  /* BIO_get_ktls_send() true after a loopback handshake with SSL_OP_ENABLE_KTLS */
  char reason[256];          /* one line: why kTLS is (un)available */
  /* Per TLS version (index 0: 1.2, 1: 1.3) and cipher (ValCipher - 1: AES-128-GCM, AES-256-GCM,
   * ChaCha20-Poly1305): setsockopt(SOL_TLS, TLS_TX / TLS_RX) with a zero key on a fresh
   * loopback socket with the ULP attached; 0 = accepted, else the errno (ENOENT: the kernel
   * has no such AEAD, e.g. gcm(aes) not loaded). Filled only when ulp_ok. */
  int tx_errno_by[2][3], rx_errno_by[2][3];
  gboolean by_cipher_probed;
} ValKtlsProbe;

typedef struct {
  char cpu_model[128];
  int cpus_online;
  int cores_per_socket, sockets, threads_per_core;
  double clock_hz;       /* nominal clock used to turn CPU seconds into cycles */
  char clock_source[64]; /* where clock_hz came from */
  double tsc_hz;         /* measured TSC rate (0 when not measured) */
  uint64_t l2_bytes;     /* per-core L2 (sysfs cache/index*, level 2), 0 when unknown */
  uint64_t llc_bytes;    /* last-level cache as the OS reports it, 0 when unknown */
  int numa_nodes;
  GPtrArray *numa;    /* char*: "node0: cpus 0-1, 23.4 GiB" */
  GPtrArray *devices; /* char*: "net eth0: numa node -1" */
  uint64_t mem_total_bytes;
  char kernel[160];
  gboolean aes_ni, pclmul, vaes, vpclmulqdq, avx2, avx512f, sha_ni;
  char openssl_version[128];
  char hypervisor[32]; /* empty on bare metal; else the CPUID hypervisor vendor ("TCGTCGTCGTCG",
                          "KVMKVMKVM", ...) or "yes" when the CPU flags say hypervisor without one */
  gboolean emulated;   /* the CPU is emulated (QEMU TCG): its timings say nothing about real hardware */
  ValKtlsProbe ktls;
} ValProbe;

/* Probes the host (reads /proc, /sys, uname; opens loopback sockets on 127.0.0.1).
 * Never fails: unknown fields stay zero/empty.  Free with val_probe_free. */
ValProbe *val_probe_run(void);
void val_probe_free(ValProbe *p);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ValProbe, val_probe_free)

/* Kernel TLS only (used by the server at start): fills *out. with_openssl also runs
 * a loopback TLS handshake to see whether OpenSSL engages kTLS. */
void val_probe_ktls(ValKtlsProbe *out, gboolean with_openssl);

/* "QEMU TCG (emulated CPU)", "KVM", ... for a probe's hypervisor field; "" on bare metal. */
const char *val_probe_hypervisor_name(const ValProbe *p);

/* One line per kernel TLS check of the probe ("TLS_TX 1.3 aes-128-gcm: accepted"), for
 * `ocasim validate --probe`. */
void val_probe_ktls_print(const ValKtlsProbe *k, GString *out);

/* Adds the probe as a JSON object member set to builder (inside an open object). */
void val_probe_to_json(const ValProbe *p, JsonBuilder *b);

G_END_DECLS
#endif
