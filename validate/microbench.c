/* validate/microbench.c — microbenchmarks of the stages of the TLS serving path.
 *
 * Crypto: cycles/byte = thread CPU seconds x clock_hz / bytes, for AES-128-GCM,
 * AES-256-GCM and ChaCha20-Poly1305 through OpenSSL EVP, one 16 KiB record at a
 * time with a fresh IV and a 13-byte AAD (what a TLS record costs, less the
 * record layer).  SHA-256 (the load generator's body check) and a hot 16 KiB
 * memcpy use the same method.  DRAM: STREAM-like read (sum of 64-bit words),
 * write (memset) and copy (memcpy) over per-thread arrays much larger than the
 * caches, t = 1..N threads started at a barrier; bandwidth = bytes / wall time of
 * the slowest thread, best of 3.  Loopback: a sender pinned to CPU 0 pushes bytes
 * with sendfile(2) from a page-cached file, or send(2) from a hot buffer, to a
 * receiver pinned to the last CPU that recv()s into a 64 KiB buffer; cost per
 * byte of each side from its thread CPU time.  Left out: frequency scaling, SMT
 * interference, NUMA placement (reported by the probe, not varied here).
 */
#include "validate/microbench.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sim/json.h"
#include "serve/util.h"

/* Defaults of ValMbConfig's zero fields: seconds per item, the TLS record (2^14 B, the largest,
 * RFC 8446 5.1), the DRAM buffer (MiB, far above any LLC) and the socket transfer (MiB).
 * Assumed, except the record. DRAM runs take the best of DRAM_REPS repetitions. */
#define MB_DEFAULT_SECONDS      0.2
#define MB_DEFAULT_RECORD_BYTES 16384
#define MB_DEFAULT_DRAM_MIB     64
#define MB_DEFAULT_SOCKET_MIB   256
#define DRAM_REPS               3

static const char *evp_name(ValCipher c)
{
  switch (c) {
    case VAL_CIPHER_AES128GCM: return "AES-128-GCM";
    case VAL_CIPHER_AES256GCM: return "AES-256-GCM";
    case VAL_CIPHER_CHACHA20: return "ChaCha20-Poly1305";
    default: return NULL;
  }
}

double val_mb_aead_cpb(ValCipher c, gboolean decrypt, size_t record_bytes, double seconds, double clock_hz)
{
  const char *name = evp_name(c);
  if (!name || record_bytes == 0 || clock_hz <= 0) return -1;
  EVP_CIPHER *ciph = EVP_CIPHER_fetch(NULL, name, NULL);
  EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
  unsigned char *in = g_malloc(record_bytes), *out = g_malloc(record_bytes + 16);
  unsigned char key[32], iv[12], aad[13], tag[16];
  double cpb = -1;
  for (size_t i = 0; i < record_bytes; i++) in[i] = (unsigned char)(i * 131 + 7);
  memset(key, 0x42, sizeof key);
  memset(iv, 0x24, sizeof iv);
  memset(aad, 0x17, sizeof aad);
  int len;
  if (!ciph || !ctx) goto out;
  /* one encryption to get a valid ciphertext + tag for the decrypt loop */
  if (EVP_EncryptInit_ex2(ctx, ciph, key, iv, NULL) != 1) goto out;
  if (EVP_EncryptUpdate(ctx, NULL, &len, aad, sizeof aad) != 1 || EVP_EncryptUpdate(ctx, out, &len, in, (int)record_bytes) != 1 ||
      EVP_EncryptFinal_ex(ctx, out + len, &len) != 1 || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) != 1)
    goto out;
  if (decrypt) {
    memcpy(in, out, record_bytes);
    if (EVP_DecryptInit_ex2(ctx, ciph, key, iv, NULL) != 1) goto out;
  }
  int64_t budget = (int64_t)(seconds * 1e9), t0 = val_thread_cpu_ns(), t1 = t0;
  uint64_t bytes = 0;
  while (t1 - t0 < budget) {
    for (int k = 0; k < 32; k++) {
      int ok;
      if (!decrypt) {
        ok = EVP_EncryptInit_ex2(ctx, NULL, NULL, iv, NULL) == 1 && EVP_EncryptUpdate(ctx, NULL, &len, aad, sizeof aad) == 1 &&
             EVP_EncryptUpdate(ctx, out, &len, in, (int)record_bytes) == 1 && EVP_EncryptFinal_ex(ctx, out + len, &len) == 1 &&
             EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) == 1;
      } else {
        ok = EVP_DecryptInit_ex2(ctx, NULL, NULL, iv, NULL) == 1 && EVP_DecryptUpdate(ctx, NULL, &len, aad, sizeof aad) == 1 &&
             EVP_DecryptUpdate(ctx, out, &len, in, (int)record_bytes) == 1 &&
             EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag) == 1 && EVP_DecryptFinal_ex(ctx, out + len, &len) == 1;
      }
      if (!ok) goto out;
      bytes += record_bytes;
    }
    t1 = val_thread_cpu_ns();
  }
  cpb = (double)(t1 - t0) * 1e-9 * clock_hz / (double)bytes;
out:
  EVP_CIPHER_CTX_free(ctx);
  EVP_CIPHER_free(ciph);
  g_free(in);
  g_free(out);
  return cpb;
}

static double sha256_cpb(double seconds, double clock_hz)
{
  const size_t n = 65536;
  unsigned char *buf = g_malloc(n), md[32];
  memset(buf, 0x5a, n);
  EVP_MD_CTX *ctx = EVP_MD_CTX_new();
  EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
  int64_t budget = (int64_t)(seconds * 1e9), t0 = val_thread_cpu_ns(), t1 = t0;
  uint64_t bytes = 0;
  while (t1 - t0 < budget) {
    for (int k = 0; k < 16; k++) {
      EVP_DigestUpdate(ctx, buf, n);
      bytes += n;
    }
    t1 = val_thread_cpu_ns();
  }
  unsigned int mdl;
  EVP_DigestFinal_ex(ctx, md, &mdl);
  EVP_MD_CTX_free(ctx);
  g_free(buf);
  return (double)(t1 - t0) * 1e-9 * clock_hz / (double)bytes;
}

static double memcpy_hot_cpb(double seconds, double clock_hz)
{
  const size_t n = 16384;
  unsigned char *a = g_malloc(n), *b = g_malloc(n);
  memset(a, 1, n);
  int64_t budget = (int64_t)(seconds * 1e9), t0 = val_thread_cpu_ns(), t1 = t0;
  uint64_t bytes = 0;
  volatile unsigned char sink = 0;
  while (t1 - t0 < budget) {
    for (int k = 0; k < 256; k++) {
      memcpy((k & 1) ? a : b, (k & 1) ? b : a, n);
      bytes += n;
    }
    sink ^= a[n / 2];
    t1 = val_thread_cpu_ns();
  }
  (void)sink;
  g_free(a);
  g_free(b);
  return (double)(t1 - t0) * 1e-9 * clock_hz / (double)bytes;
}

/* ---- DRAM ---------------------------------------------------------------- */

typedef enum { DRAM_READ, DRAM_WRITE, DRAM_COPY } DramKind;

typedef struct {
  pthread_barrier_t *bar;
  size_t bytes;
  DramKind kind;
  int cpu;
  int64_t start_ns, end_ns;
  uint64_t sink;
} DramArg;

static void *dram_thread(void *p)
{
  DramArg *a = p;
  val_pin_self(a->cpu);
  uint64_t *x = g_malloc(a->bytes), *y = g_malloc(a->bytes);
  memset(x, 1, a->bytes); /* first touch on this thread's node */
  memset(y, 2, a->bytes);
  pthread_barrier_wait(a->bar);
  a->start_ns = val_now_ns();
  size_t n = a->bytes / 8;
  if (a->kind == DRAM_READ) {
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (size_t i = 0; i + 4 <= n; i += 4) {
      s0 += x[i];
      s1 += x[i + 1];
      s2 += x[i + 2];
      s3 += x[i + 3];
    }
    a->sink = s0 + s1 + s2 + s3;
  } else if (a->kind == DRAM_WRITE) {
    memset(x, 3, a->bytes);
    a->sink = x[n / 3];
  } else {
    memcpy(y, x, a->bytes);
    a->sink = y[n / 3];
  }
  a->end_ns = val_now_ns();
  g_free(x);
  g_free(y);
  return NULL;
}

static double dram_GBps(int threads, size_t bytes, DramKind kind)
{
  pthread_barrier_t bar;
  pthread_barrier_init(&bar, NULL, (unsigned)threads);
  pthread_t tid[VAL_MB_MAX_THREADS];
  DramArg arg[VAL_MB_MAX_THREADS];
  int ncpu = val_online_cpus();
  for (int t = 0; t < threads; t++) {
    arg[t] = (DramArg){ .bar = &bar, .bytes = bytes, .kind = kind, .cpu = t % ncpu };
    pthread_create(&tid[t], NULL, dram_thread, &arg[t]);
  }
  int64_t s = INT64_MAX, e = 0;
  for (int t = 0; t < threads; t++) {
    pthread_join(tid[t], NULL);
    s = MIN(s, arg[t].start_ns);
    e = MAX(e, arg[t].end_ns);
  }
  pthread_barrier_destroy(&bar);
  double moved = (double)bytes * threads * (kind == DRAM_COPY ? 2.0 : 1.0);
  return e > s ? moved / (double)(e - s) : 0.0; /* bytes per ns == GB/s */
}

/* ---- loopback sockets ------------------------------------------------------ */

typedef struct {
  int fd;
  uint64_t want;
  int cpu;
  int64_t cpu_ns;
  int err;
} RecvArg;

static void *recv_thread(void *p)
{
  RecvArg *a = p;
  val_pin_self(a->cpu);
  char *buf = g_malloc(65536);
  int64_t c0 = val_thread_cpu_ns();
  uint64_t got = 0;
  while (got < a->want) {
    ssize_t r = recv(a->fd, buf, 65536, 0);
    if (r <= 0) {
      if (r < 0 && errno == EINTR) continue;
      a->err = r < 0 ? errno : EPIPE;
      break;
    }
    got += (uint64_t)r;
  }
  a->cpu_ns = val_thread_cpu_ns() - c0;
  g_free(buf);
  return NULL;
}

/* Pushes total bytes from file_fd (sendfile) or from a hot buffer (file_fd < 0). */
static gboolean loopback_cost(int file_fd, size_t file_bytes, size_t total, double clock_hz, double *tx_cpb, double *rx_cpb,
                              double *GBps, GError **error)
{
  int fds[2];
  if (!val_tcp_loopback_pair(fds, error)) return FALSE;
  RecvArg ra = { .fd = fds[0], .want = total, .cpu = val_online_cpus() - 1 };
  pthread_t th;
  pthread_create(&th, NULL, recv_thread, &ra);
  cpu_set_t old;
  pthread_getaffinity_np(pthread_self(), sizeof old, &old);
  val_pin_self(0);
  char *buf = file_fd < 0 ? g_malloc(65536) : NULL;
  if (buf) memset(buf, 0x33, 65536);
  int64_t w0 = val_now_ns(), c0 = val_thread_cpu_ns();
  size_t sent = 0;
  int err = 0;
  while (sent < total) {
    ssize_t r;
    if (file_fd >= 0) {
      off_t off = (off_t)(sent % file_bytes);
      size_t n = MIN(file_bytes - (size_t)off, total - sent);
      r = sendfile(fds[1], file_fd, &off, n);
    } else {
      r = send(fds[1], buf, MIN((size_t)65536, total - sent), MSG_NOSIGNAL);
    }
    if (r <= 0) {
      if (r < 0 && errno == EINTR) continue;
      err = r < 0 ? errno : EIO;
      break;
    }
    sent += (size_t)r;
  }
  int64_t c1 = val_thread_cpu_ns();
  if (err) shutdown(fds[1], SHUT_RDWR);
  pthread_join(th, NULL);
  int64_t w1 = val_now_ns();
  pthread_setaffinity_np(pthread_self(), sizeof old, &old);
  g_free(buf);
  close(fds[0]);
  close(fds[1]);
  if (err || ra.err) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "loopback %s test: %s", file_fd >= 0 ? "sendfile" : "send",
                g_strerror(err ? err : ra.err));
    return FALSE;
  }
  *tx_cpb = (double)(c1 - c0) * 1e-9 * clock_hz / (double)total;
  *rx_cpb = (double)ra.cpu_ns * 1e-9 * clock_hz / (double)total;
  *GBps = (double)total / (double)(w1 - w0);
  return TRUE;
}

gboolean val_mb_run(const ValMbConfig *cfg, ValMicrobench *m, GError **error)
{
  memset(m, 0, sizeof *m);
  double hz = cfg->clock_hz > 0 ? cfg->clock_hz : 1e9;
  double secs = cfg->seconds_per_item > 0 ? cfg->seconds_per_item : MB_DEFAULT_SECONDS;
  m->record_bytes = cfg->record_bytes ? cfg->record_bytes : MB_DEFAULT_RECORD_BYTES;
  for (int c = VAL_CIPHER_AES128GCM; c < VAL_CIPHER_COUNT; c++) {
    m->enc_cpb[c] = val_mb_aead_cpb((ValCipher)c, FALSE, m->record_bytes, secs, hz);
    m->dec_cpb[c] = val_mb_aead_cpb((ValCipher)c, TRUE, m->record_bytes, secs, hz);
    if (m->enc_cpb[c] <= 0 || m->dec_cpb[c] <= 0) {
      g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "OpenSSL EVP %s unavailable", evp_name((ValCipher)c));
      return FALSE;
    }
  }
  {
    double small = val_mb_aead_cpb(VAL_CIPHER_AES128GCM, FALSE, 1024, secs, hz);
    if (small > 0 && m->record_bytes > 1024)
      m->aead_record_cycles = MAX(0.0, (small - m->enc_cpb[VAL_CIPHER_AES128GCM]) / (1.0 / 1024 - 1.0 / (double)m->record_bytes));
  }
  m->sha256_cpb = sha256_cpb(secs, hz);
  m->memcpy_hot_cpb = memcpy_hot_cpb(secs, hz);

  int maxt = cfg->max_threads > 0 ? cfg->max_threads : val_online_cpus();
  m->dram_threads = MIN(maxt, VAL_MB_MAX_THREADS);
  size_t db = cfg->dram_bytes ? cfg->dram_bytes : ((size_t)MB_DEFAULT_DRAM_MIB << 20);
  for (int t = 1; t <= m->dram_threads; t++) {
    for (int rep = 0; rep < DRAM_REPS; rep++) {
      m->dram_read_GBps[t - 1] = MAX(m->dram_read_GBps[t - 1], dram_GBps(t, db, DRAM_READ));
      m->dram_write_GBps[t - 1] = MAX(m->dram_write_GBps[t - 1], dram_GBps(t, db, DRAM_WRITE));
      m->dram_copy_GBps[t - 1] = MAX(m->dram_copy_GBps[t - 1], dram_GBps(t, db, DRAM_COPY));
    }
  }

  size_t total = cfg->socket_bytes ? cfg->socket_bytes : ((size_t)MB_DEFAULT_SOCKET_MIB << 20);
  g_autofree char *dir = g_dir_make_tmp("ocasim-mb-XXXXXX", NULL);
  if (!dir) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "cannot create a temporary directory: %s", g_strerror(errno));
    return FALSE;
  }
  g_autofree char *path = g_build_filename(dir, "blob", NULL);
  const size_t fbytes = (size_t)16 << 20;
  gboolean ok = FALSE;
  int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd >= 0) {
    char *chunk = g_malloc(1 << 20);
    memset(chunk, 0x61, 1 << 20);
    ok = TRUE;
    for (size_t o = 0; o < fbytes && ok; o += 1 << 20) ok = pwrite(fd, chunk, 1 << 20, (off_t)o) == (1 << 20);
    for (size_t o = 0; o < fbytes && ok; o += 1 << 20) ok = pread(fd, chunk, 1 << 20, (off_t)o) == (1 << 20);
    g_free(chunk);
    if (!ok) g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "cannot write %s: %s", path, g_strerror(errno));
  } else {
    g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "cannot create %s: %s", path, g_strerror(errno));
  }
  if (ok)
    ok = loopback_cost(fd, fbytes, total, hz, &m->sendfile_tx_cpb, &m->sendfile_rx_cpb, &m->sendfile_GBps, error) &&
         loopback_cost(-1, 0, total, hz, &m->sockcopy_tx_cpb, &m->sockcopy_rx_cpb, &m->sockcopy_GBps, error);
  if (fd >= 0) close(fd);
  val_rm_rf(dir);
  return ok;
}

static void darr(JsonBuilder *b, const char *name, const double *v, int n)
{
  json_builder_set_member_name(b, name);
  json_builder_begin_array(b);
  for (int i = 0; i < n; i++) sim_json_element(b, v[i]);
  json_builder_end_array(b);
}

void val_mb_to_json(const ValMicrobench *m, JsonBuilder *b)
{
  json_builder_begin_object(b);
  sim_json_int(b, "record_bytes", (gint64)m->record_bytes);
  json_builder_set_member_name(b, "aead_cpb");
  json_builder_begin_object(b);
  for (int c = VAL_CIPHER_AES128GCM; c < VAL_CIPHER_COUNT; c++) {
    json_builder_set_member_name(b, val_cipher_name((ValCipher)c));
    json_builder_begin_object(b);
    sim_json_number(b, "encrypt", m->enc_cpb[c]);
    sim_json_number(b, "decrypt", m->dec_cpb[c]);
    json_builder_end_object(b);
  }
  json_builder_end_object(b);
  sim_json_number(b, "aead_record_cycles", m->aead_record_cycles);
  sim_json_number(b, "sha256_cpb", m->sha256_cpb);
  sim_json_number(b, "memcpy_hot_cpb", m->memcpy_hot_cpb);
  sim_json_int(b, "dram_threads", m->dram_threads);
  darr(b, "dram_read_GBps", m->dram_read_GBps, m->dram_threads);
  darr(b, "dram_write_GBps", m->dram_write_GBps, m->dram_threads);
  darr(b, "dram_copy_GBps", m->dram_copy_GBps, m->dram_threads);
  sim_json_number(b, "sendfile_tx_cpb", m->sendfile_tx_cpb);
  sim_json_number(b, "sendfile_rx_cpb", m->sendfile_rx_cpb);
  sim_json_number(b, "sendfile_GBps", m->sendfile_GBps);
  sim_json_number(b, "sockcopy_tx_cpb", m->sockcopy_tx_cpb);
  sim_json_number(b, "sockcopy_rx_cpb", m->sockcopy_rx_cpb);
  sim_json_number(b, "sockcopy_GBps", m->sockcopy_GBps);
  json_builder_end_object(b);
}
