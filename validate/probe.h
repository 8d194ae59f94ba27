/* validate/probe.h — what the host is: CPU, clock, NUMA, memory, kernel, crypto
 * instruction set, OpenSSL, kernel TLS.
 */
#ifndef OCASIM_VALIDATE_PROBE_H
#define OCASIM_VALIDATE_PROBE_H

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
  char hypervisor[32]; /* empty on bare metal */
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

/* Adds the probe as a JSON object member set to builder (inside an open object). */
void val_probe_to_json(const ValProbe *p, JsonBuilder *b);

G_END_DECLS
#endif
