/* serve/probe.c — host probe for validation mode.
 *
 * Reads the CPU model, flags and clock from /proc/cpuinfo (the clock is the
 * cpufreq maximum when /sys exposes it, else the "cpu MHz" line, else the measured
 * TSC rate), NUMA nodes and their CPUs/memory from /sys/devices/system/node, the
 * NUMA node of network, NVMe and block devices from /sys/class, total memory from
 * /proc/meminfo, the kernel from uname(2) and the OpenSSL version.  Kernel TLS is
 * probed the way the kernel documents it: setsockopt(TCP_ULP, "tls") on a
 * connected loopback socket (ENOENT: no tls module or CONFIG_TLS unset), then
 * TLS_TX with an AES-128-GCM key; finally a loopback OpenSSL handshake with
 * SSL_OP_ENABLE_KTLS tells whether OpenSSL engages it (BIO_get_ktls_send).
 * Nothing is modelled here; the numbers feed the report and the host profile.
 */
#include "serve/probe.h"

#include <dirent.h>
#include <errno.h>
#include <linux/tls.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/ssl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <cpuid.h>
#include <x86intrin.h>

#include "sim/json.h"
#include "serve/tls.h"
#include "serve/util.h"

/* Window over which the TSC is timed against the monotonic clock, ns (50 ms: the clock's
 * resolution is lost in it). Assumed. */
#define TSC_WINDOW_NS 50000000

#ifndef SOL_TLS
#define SOL_TLS 282
#endif
#ifndef TCP_ULP
#define TCP_ULP 31
#endif

static char *read_first_line(const char *path)
{
  g_autofree char *s = NULL;
  if (!g_file_get_contents(path, &s, NULL, NULL)) return NULL;
  return g_strstrip(g_strdup(s));
}

static const char *errno_name(int e)
{
  const char *n = strerrorname_np(e);
  return n ? n : "E?";
}

/* setsockopt(SOL_TLS, dir) on a fresh loopback pair with the ULP attached, version v (0: 1.2,
 * 1: 1.3) and cipher c (1..3, ValCipher); 0 or the errno. The key is zeros: only whether the
 * kernel takes the state is asked. */
static int try_crypto_info(int dir, int v, ValCipher c)
{
  int fds[2];
  if (!val_tcp_loopback_pair(fds, NULL)) return errno ? errno : EIO;
  int rc = 0;
  if (setsockopt(fds[1], SOL_TCP, TCP_ULP, "tls", 3) != 0) {
    rc = errno;
  } else {
    union {
      struct tls12_crypto_info_aes_gcm_128 a128;
      struct tls12_crypto_info_aes_gcm_256 a256;
      struct tls12_crypto_info_chacha20_poly1305 chacha;
    } u;
    memset(&u, 0, sizeof u);
    socklen_t len = c == VAL_CIPHER_AES128GCM ? sizeof u.a128 : c == VAL_CIPHER_AES256GCM ? sizeof u.a256 : sizeof u.chacha;
    u.a128.info.version = v ? TLS_1_3_VERSION : TLS_1_2_VERSION;
    u.a128.info.cipher_type = c == VAL_CIPHER_AES128GCM   ? TLS_CIPHER_AES_GCM_128
                              : c == VAL_CIPHER_AES256GCM ? TLS_CIPHER_AES_GCM_256
                                                          : TLS_CIPHER_CHACHA20_POLY1305;
    if (setsockopt(fds[1], SOL_TLS, dir, &u, len) != 0) rc = errno;
  }
  close(fds[0]);
  close(fds[1]);
  return rc;
}

void val_probe_ktls(ValKtlsProbe *out, gboolean with_openssl)
{
  memset(out, 0, sizeof *out);
#ifndef OPENSSL_NO_KTLS
  out->openssl_compiled = TRUE;
#endif
  int fds[2];
  g_autoptr(GError) err = NULL;
  if (!val_tcp_loopback_pair(fds, &err)) {
    out->ulp_errno = errno;
    g_snprintf(out->reason, sizeof out->reason, "cannot open a loopback socket: %s", err->message);
    return;
  }
  if (setsockopt(fds[1], SOL_TCP, TCP_ULP, "tls", 3) == 0) {
    out->ulp_ok = TRUE;
    struct tls12_crypto_info_aes_gcm_128 ci;
    memset(&ci, 0, sizeof ci);
    ci.info.version = TLS_1_2_VERSION;
    ci.info.cipher_type = TLS_CIPHER_AES_GCM_128;
    if (setsockopt(fds[1], SOL_TLS, TLS_TX, &ci, sizeof ci) == 0)
      out->tx_ok = TRUE;
    else
      out->tx_errno = errno;
  } else {
    out->ulp_errno = errno;
  }
  close(fds[0]);
  close(fds[1]);
  if (out->ulp_ok && with_openssl) {
    for (int v = 0; v < 2; v++)
      for (int c = VAL_CIPHER_AES128GCM; c < VAL_CIPHER_COUNT; c++) {
        out->tx_errno_by[v][c - 1] = try_crypto_info(TLS_TX, v, (ValCipher)c);
        out->rx_errno_by[v][c - 1] = try_crypto_info(TLS_RX, v, (ValCipher)c);
      }
    out->by_cipher_probed = TRUE;
  }

  if (with_openssl && out->ulp_ok && out->tx_ok && out->openssl_compiled) {
    g_autoptr(SSL_CTX) sctx = val_tls_server_ctx_new(NULL, NULL, TRUE, NULL);
    g_autoptr(SSL_CTX) cctx = val_tls_client_ctx_new(VAL_TLS_13, VAL_CIPHER_AES128GCM, FALSE, NULL);
    SSL *s = NULL, *c = NULL;
    if (sctx && cctx && val_tls_loopback_handshake(sctx, cctx, &s, &c, NULL)) {
      out->openssl_engaged = BIO_get_ktls_send(SSL_get_wbio(s)) != 0;
      int sf = SSL_get_fd(s), cf = SSL_get_fd(c);
      SSL_free(s);
      SSL_free(c);
      close(sf);
      close(cf);
    }
  }

  if (!out->ulp_ok) {
    g_snprintf(out->reason, sizeof out->reason, "kernel TLS unavailable: setsockopt(TCP_ULP, \"tls\") failed with %s (%s)%s",
               errno_name(out->ulp_errno), g_strerror(out->ulp_errno),
               out->ulp_errno == ENOENT ? ": no tls module loaded or CONFIG_TLS unset" : "");
  } else if (!out->tx_ok) {
    g_snprintf(out->reason, sizeof out->reason, "kernel TLS unavailable: TLS_TX (AES-128-GCM) failed with %s (%s)%s",
               errno_name(out->tx_errno), g_strerror(out->tx_errno),
               out->tx_errno == ENOENT ? ": the kernel has no gcm(aes) AEAD (its crypto modules are not loaded)" : "");
  } else if (!out->openssl_compiled) {
    g_snprintf(out->reason, sizeof out->reason, "kernel TLS works but OpenSSL was built without kTLS");
  } else if (with_openssl && !out->openssl_engaged) {
    g_snprintf(out->reason, sizeof out->reason, "kernel TLS works but OpenSSL did not engage it (BIO_get_ktls_send = 0)");
  } else {
    g_snprintf(out->reason, sizeof out->reason, "kernel TLS available%s", with_openssl ? " and engaged by OpenSSL" : "");
  }
}

static double measure_tsc_hz(void)
{
  int64_t t0 = val_now_ns();
  uint64_t c0 = __rdtsc();
  val_sleep_ns(TSC_WINDOW_NS);
  uint64_t c1 = __rdtsc();
  int64_t t1 = val_now_ns();
  return t1 > t0 ? (double)(c1 - c0) * 1e9 / (double)(t1 - t0) : 0.0;
}

static void probe_cpu(ValProbe *p)
{
  g_autofree char *info = NULL;
  double mhz = 0;
  if (g_file_get_contents("/proc/cpuinfo", &info, NULL, NULL)) {
    g_auto(GStrv) lines = g_strsplit(info, "\n", -1);
    for (char **l = lines; *l; l++) {
      char *colon = strchr(*l, ':');
      if (!colon) continue;
      g_autofree char *key = g_strstrip(g_strndup(*l, colon - *l));
      const char *val = colon + 1;
      while (*val == ' ' || *val == '\t') val++;
      if (!strcmp(key, "model name") && !p->cpu_model[0])
        g_strlcpy(p->cpu_model, val, sizeof p->cpu_model);
      else if (!strcmp(key, "cpu MHz") && mhz == 0)
        mhz = g_ascii_strtod(val, NULL);
      else if (!strcmp(key, "flags") && !p->avx2 && !p->aes_ni) {
        g_auto(GStrv) f = g_strsplit(val, " ", -1);
        for (char **x = f; *x; x++) {
          if (!strcmp(*x, "aes"))
            p->aes_ni = TRUE;
          else if (!strcmp(*x, "pclmulqdq"))
            p->pclmul = TRUE;
          else if (!strcmp(*x, "vaes"))
            p->vaes = TRUE;
          else if (!strcmp(*x, "vpclmulqdq"))
            p->vpclmulqdq = TRUE;
          else if (!strcmp(*x, "avx2"))
            p->avx2 = TRUE;
          else if (!strcmp(*x, "avx512f"))
            p->avx512f = TRUE;
          else if (!strcmp(*x, "sha_ni"))
            p->sha_ni = TRUE;
          else if (!strcmp(*x, "hypervisor"))
            g_strlcpy(p->hypervisor, "yes", sizeof p->hypervisor);
        }
      }
    }
  }
  if (p->hypervisor[0]) { /* CPUID leaf 0x40000000: the hypervisor's vendor signature */
    unsigned a, b, c, d;
    __cpuid(0x40000000, a, b, c, d);
    char sig[13];
    memcpy(sig, &b, 4);
    memcpy(sig + 4, &c, 4);
    memcpy(sig + 8, &d, 4);
    sig[12] = 0;
    if (sig[0] > ' ' && sig[0] < 127) g_strlcpy(p->hypervisor, g_strstrip(sig), sizeof p->hypervisor);
    p->emulated = !strcmp(p->hypervisor, "TCGTCGTCGTCG");
  }
  p->cpus_online = val_online_cpus();
  for (int i = 0; i < 8; i++) { /* cache sizes of CPU 0: "2048K" */
    g_autofree char *lv = g_strdup_printf("/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
    g_autofree char *sz = g_strdup_printf("/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
    g_autofree char *l = read_first_line(lv), *z = read_first_line(sz);
    if (!l || !z) continue;
    char *end = NULL;
    guint64 v = g_ascii_strtoull(z, &end, 10);
    if (end && (*end == 'K' || *end == 'k'))
      v <<= 10;
    else if (end && *end == 'M')
      v <<= 20;
    int level = atoi(l);
    if (level == 2) p->l2_bytes = v;
    if (level >= 2 && v > 0) p->llc_bytes = v;
  }
  p->tsc_hz = measure_tsc_hz();
  g_autofree char *maxf = read_first_line("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  if (maxf && g_ascii_strtod(maxf, NULL) > 0) {
    p->clock_hz = g_ascii_strtod(maxf, NULL) * 1e3;
    g_strlcpy(p->clock_source, "cpufreq cpuinfo_max_freq", sizeof p->clock_source);
  } else if (mhz > 0) {
    p->clock_hz = mhz * 1e6;
    g_strlcpy(p->clock_source, "/proc/cpuinfo cpu MHz", sizeof p->clock_source);
  } else {
    p->clock_hz = p->tsc_hz;
    g_strlcpy(p->clock_source, "measured TSC", sizeof p->clock_source);
  }
  /* topology: count distinct (package, core) pairs */
  GHashTable *pk = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  GHashTable *cores = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  for (int c = 0; c < p->cpus_online; c++) {
    g_autofree char *pp = g_strdup_printf("/sys/devices/system/cpu/cpu%d/topology/physical_package_id", c);
    g_autofree char *cp = g_strdup_printf("/sys/devices/system/cpu/cpu%d/topology/core_id", c);
    g_autofree char *pv = read_first_line(pp);
    g_autofree char *cv = read_first_line(cp);
    if (!pv || !cv) continue;
    g_hash_table_add(pk, g_strdup(pv));
    g_hash_table_add(cores, g_strdup_printf("%s/%s", pv, cv));
  }
  p->sockets = MAX(1, (int)g_hash_table_size(pk));
  int ncores = MAX(1, (int)g_hash_table_size(cores));
  p->cores_per_socket = MAX(1, ncores / p->sockets);
  p->threads_per_core = MAX(1, p->cpus_online / ncores);
  g_hash_table_destroy(pk);
  g_hash_table_destroy(cores);
}

static gint cmp_strp(gconstpointer a, gconstpointer b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void probe_numa(ValProbe *p)
{
  for (int n = 0; n < 1024; n++) {
    g_autofree char *dir = g_strdup_printf("/sys/devices/system/node/node%d", n);
    if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
      if (n > 64) break;
      continue;
    }
    p->numa_nodes++;
    g_autofree char *cl = g_strdup_printf("%s/cpulist", dir);
    g_autofree char *cpus = read_first_line(cl);
    g_autofree char *mi = g_strdup_printf("%s/meminfo", dir);
    g_autofree char *mem = NULL;
    double gib = 0;
    if (g_file_get_contents(mi, &mem, NULL, NULL)) {
      char *t = strstr(mem, "MemTotal:");
      if (t) gib = g_ascii_strtod(t + 9, NULL) / (1024.0 * 1024.0);
    }
    g_ptr_array_add(p->numa, g_strdup_printf("node%d: cpus %s, %.1f GiB", n, cpus ? cpus : "?", gib));
  }
  if (p->numa_nodes == 0) p->numa_nodes = 1;
  static const char *const classes[] = { "net", "nvme", "block" };
  for (size_t k = 0; k < G_N_ELEMENTS(classes); k++) {
    g_autofree char *cdir = g_strdup_printf("/sys/class/%s", classes[k]);
    DIR *d = opendir(cdir);
    if (!d) continue;
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    struct dirent *e;
    while ((e = readdir(d)))
      if (e->d_name[0] != '.') g_ptr_array_add(names, g_strdup(e->d_name));
    closedir(d);
    g_ptr_array_sort(names, cmp_strp);
    for (guint i = 0; i < names->len; i++) {
      const char *nm = g_ptr_array_index(names, i);
      g_autofree char *np = g_strdup_printf("%s/%s/device/numa_node", cdir, nm);
      g_autofree char *nv = read_first_line(np);
      if (!nv) continue; /* virtual device (lo, loop, ram) */
      g_ptr_array_add(p->devices, g_strdup_printf("%s %s: numa node %s", classes[k], nm, nv));
    }
    g_ptr_array_unref(names);
  }
}

ValProbe *val_probe_run(void)
{
  ValProbe *p = g_new0(ValProbe, 1);
  p->numa = g_ptr_array_new_with_free_func(g_free);
  p->devices = g_ptr_array_new_with_free_func(g_free);
  probe_cpu(p);
  probe_numa(p);
  g_autofree char *mem = NULL;
  if (g_file_get_contents("/proc/meminfo", &mem, NULL, NULL)) {
    char *t = strstr(mem, "MemTotal:");
    if (t) p->mem_total_bytes = (uint64_t)(g_ascii_strtod(t + 9, NULL) * 1024.0);
  }
  struct utsname u;
  if (uname(&u) == 0) g_snprintf(p->kernel, sizeof p->kernel, "%s %s %s", u.sysname, u.release, u.machine);
  g_strlcpy(p->openssl_version, OpenSSL_version(OPENSSL_VERSION), sizeof p->openssl_version);
  val_probe_ktls(&p->ktls, TRUE);
  return p;
}

const char *val_probe_hypervisor_name(const ValProbe *p)
{
  if (!p->hypervisor[0]) return "";
  if (p->emulated) return "QEMU TCG (emulated CPU)";
  if (!strcmp(p->hypervisor, "KVMKVMKVM")) return "KVM";
  if (!strcmp(p->hypervisor, "Microsoft Hv")) return "Hyper-V";
  if (!strcmp(p->hypervisor, "VMwareVMware")) return "VMware";
  if (!strcmp(p->hypervisor, "XenVMMXenVMM")) return "Xen";
  return p->hypervisor;
}

void val_probe_ktls_print(const ValKtlsProbe *k, GString *out)
{
  g_string_append_printf(out, "ULP tls: %s\n", k->ulp_ok ? "attached" : k->ulp_errno ? errno_name(k->ulp_errno) : "not probed");
  if (k->by_cipher_probed)
    for (int v = 0; v < 2; v++)
      for (int c = VAL_CIPHER_AES128GCM; c < VAL_CIPHER_COUNT; c++)
        for (int dir = 0; dir < 2; dir++) {
          int e = dir ? k->rx_errno_by[v][c - 1] : k->tx_errno_by[v][c - 1];
          g_string_append_printf(out, "%s %s %s: %s%s%s\n", dir ? "TLS_RX" : "TLS_TX", v ? "1.3" : "1.2",
                                 val_cipher_name((ValCipher)c), e ? "refused " : "accepted", e ? errno_name(e) : "",
                                 e == ENOENT ? " (no such AEAD in the kernel)" : "");
        }
  g_string_append_printf(out, "OpenSSL kTLS: compiled %s, engaged %s (BIO_get_ktls_send after a TLS 1.3 handshake)\n",
                         k->openssl_compiled ? "yes" : "no", k->openssl_engaged ? "yes" : "no");
  g_string_append_printf(out, "reason: %s\n", k->reason);
}

void val_probe_free(ValProbe *p)
{
  if (!p) return;
  g_ptr_array_unref(p->numa);
  g_ptr_array_unref(p->devices);
  g_free(p);
}

static void add_strv(JsonBuilder *b, const char *name, GPtrArray *a)
{
  json_builder_set_member_name(b, name);
  json_builder_begin_array(b);
  for (guint i = 0; i < a->len; i++) json_builder_add_string_value(b, g_ptr_array_index(a, i));
  json_builder_end_array(b);
}

void val_probe_to_json(const ValProbe *p, JsonBuilder *b)
{
  json_builder_begin_object(b);
  sim_json_string(b, "cpu_model", p->cpu_model);
  sim_json_int(b, "cpus_online", p->cpus_online);
  sim_json_int(b, "l2_bytes", (gint64)p->l2_bytes);
  sim_json_int(b, "llc_bytes", (gint64)p->llc_bytes);
  sim_json_int(b, "sockets", p->sockets);
  sim_json_int(b, "cores_per_socket", p->cores_per_socket);
  sim_json_int(b, "threads_per_core", p->threads_per_core);
  sim_json_number(b, "clock_hz", p->clock_hz);
  sim_json_string(b, "clock_source", p->clock_source);
  sim_json_number(b, "tsc_hz", p->tsc_hz);
  sim_json_bool(b, "hypervisor", p->hypervisor[0] != 0);
  sim_json_string(b, "hypervisor_vendor", val_probe_hypervisor_name(p));
  sim_json_bool(b, "emulated_cpu", p->emulated);
  sim_json_int(b, "numa_nodes", p->numa_nodes);
  add_strv(b, "numa", p->numa);
  add_strv(b, "devices", p->devices);
  sim_json_int(b, "mem_total_bytes", (gint64)p->mem_total_bytes);
  sim_json_string(b, "kernel", p->kernel);
  json_builder_set_member_name(b, "cpu_flags");
  json_builder_begin_object(b);
  sim_json_bool(b, "aes_ni", p->aes_ni);
  sim_json_bool(b, "pclmulqdq", p->pclmul);
  sim_json_bool(b, "vaes", p->vaes);
  sim_json_bool(b, "vpclmulqdq", p->vpclmulqdq);
  sim_json_bool(b, "avx2", p->avx2);
  sim_json_bool(b, "avx512f", p->avx512f);
  sim_json_bool(b, "sha_ni", p->sha_ni);
  json_builder_end_object(b);
  sim_json_string(b, "openssl_version", p->openssl_version);
  json_builder_set_member_name(b, "ktls");
  json_builder_begin_object(b);
  sim_json_bool(b, "ulp_ok", p->ktls.ulp_ok);
  sim_json_int(b, "ulp_errno", p->ktls.ulp_errno);
  sim_json_string(b, "ulp_errno_name", p->ktls.ulp_errno ? errno_name(p->ktls.ulp_errno) : "");
  sim_json_bool(b, "tx_ok", p->ktls.tx_ok);
  sim_json_int(b, "tx_errno", p->ktls.tx_errno);
  sim_json_bool(b, "openssl_compiled", p->ktls.openssl_compiled);
  sim_json_bool(b, "openssl_engaged", p->ktls.openssl_engaged);
  sim_json_string(b, "reason", p->ktls.reason);
  if (p->ktls.by_cipher_probed) {
    json_builder_set_member_name(b, "by_cipher");
    json_builder_begin_array(b);
    for (int v = 0; v < 2; v++)
      for (int c = VAL_CIPHER_AES128GCM; c < VAL_CIPHER_COUNT; c++) {
        json_builder_begin_object(b);
        sim_json_string(b, "tls_version", v ? "1.3" : "1.2");
        sim_json_string(b, "cipher", val_cipher_name((ValCipher)c));
        sim_json_bool(b, "tx_ok", p->ktls.tx_errno_by[v][c - 1] == 0);
        sim_json_string(b, "tx_errno_name", p->ktls.tx_errno_by[v][c - 1] ? errno_name(p->ktls.tx_errno_by[v][c - 1]) : "");
        sim_json_bool(b, "rx_ok", p->ktls.rx_errno_by[v][c - 1] == 0);
        sim_json_string(b, "rx_errno_name", p->ktls.rx_errno_by[v][c - 1] ? errno_name(p->ktls.rx_errno_by[v][c - 1]) : "");
        json_builder_end_object(b);
      }
    json_builder_end_array(b);
  }
  json_builder_end_object(b);
  json_builder_end_object(b);
}
