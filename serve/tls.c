/* serve/tls.c — OpenSSL 3.0 context setup for the validation server and client.
 *
 * The server offers TLS 1.2 (ECDHE-ECDSA with AES-128-GCM, AES-256-GCM,
 * ChaCha20-Poly1305) and TLS 1.3 (the three matching suites) and follows the
 * client's preference, so the client alone decides what a run measures.  A missing
 * certificate is replaced by an in-memory self-signed EC P-256 one
 * (EVP_PKEY_Q_keygen + X509 API); a certificate that is given but cannot be
 * loaded is a startup error.  Nothing here models cost; it only sets up the real
 * path that validate/ measures.
 */
#include "serve/tls.h"
#include "serve/util.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#define TLS12_SUITES                                                                           \
  "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:" \
  "ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-RSA-CHACHA20-POLY1305"
#define TLS13_SUITES "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256"

/* The self-signed certificate is valid from an hour ago (clock skew) for a year, s. Assumed. */
#define CERT_BACKDATE_S 3600
#define CERT_VALIDITY_S (365L * 24 * 3600)
/* Most a loopback handshake may take, ns (5 s). Assumed: far above a loopback round trip. */
#define HANDSHAKE_DEADLINE_NS 5000000000LL

static const char *const cipher_names[VAL_CIPHER_COUNT] = { "any", "aes-128-gcm", "aes-256-gcm", "chacha20-poly1305" };

const char *val_cipher_name(ValCipher c)
{
  return (c >= 0 && c < VAL_CIPHER_COUNT) ? cipher_names[c] : "?";
}

gboolean val_cipher_parse(const char *s, ValCipher *out)
{
  static const struct {
    const char *name;
    ValCipher c;
  } alias[] = { { "any", VAL_CIPHER_ANY },          { "aes-128-gcm", VAL_CIPHER_AES128GCM },
                { "aes128", VAL_CIPHER_AES128GCM }, { "aes-256-gcm", VAL_CIPHER_AES256GCM },
                { "aes256", VAL_CIPHER_AES256GCM }, { "chacha20-poly1305", VAL_CIPHER_CHACHA20 },
                { "chacha", VAL_CIPHER_CHACHA20 },  { "chacha20", VAL_CIPHER_CHACHA20 } };
  for (size_t i = 0; i < G_N_ELEMENTS(alias); i++)
    if (g_ascii_strcasecmp(s, alias[i].name) == 0) {
      *out = alias[i].c;
      return TRUE;
    }
  return FALSE;
}

const char *val_tls_version_name(ValTlsVersion v)
{
  return v == VAL_TLS_12 ? "1.2" : v == VAL_TLS_13 ? "1.3" : "any";
}

gboolean val_tls_version_parse(const char *s, ValTlsVersion *out)
{
  if (!strcmp(s, "1.2") || !strcmp(s, "12"))
    *out = VAL_TLS_12;
  else if (!strcmp(s, "1.3") || !strcmp(s, "13"))
    *out = VAL_TLS_13;
  else if (!strcmp(s, "any"))
    *out = VAL_TLS_ANY;
  else
    return FALSE;
  return TRUE;
}

char *val_tls_error_string(void)
{
  unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return g_strdup("unknown error");
  char buf[256];
  ERR_error_string_n(e, buf, sizeof buf);
  return g_strdup(buf);
}

/* Self-signed EC P-256 certificate for CN=localhost, SAN DNS:localhost, IP:127.0.0.1. */
static gboolean make_self_signed(EVP_PKEY **pkey_out, X509 **cert_out, GError **error)
{
  EVP_PKEY *pkey = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
  X509 *x = X509_new();
  gboolean ok = FALSE;
  if (!pkey || !x) goto out;
  unsigned char serial[8];
  if (RAND_bytes(serial, sizeof serial) != 1) goto out;
  serial[0] &= 0x7f;
  BIGNUM *bn = BN_bin2bn(serial, sizeof serial, NULL);
  if (!bn) goto out;
  ASN1_INTEGER *ai = BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x));
  BN_free(bn);
  if (!ai) goto out;
  if (!X509_set_version(x, 2)) goto out;
  if (!X509_gmtime_adj(X509_getm_notBefore(x), -CERT_BACKDATE_S)) goto out;
  if (!X509_gmtime_adj(X509_getm_notAfter(x), CERT_VALIDITY_S)) goto out;
  if (!X509_set_pubkey(x, pkey)) goto out;
  X509_NAME *name = X509_get_subject_name(x);
  if (!X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)"localhost", -1, -1, 0)) goto out;
  if (!X509_set_issuer_name(x, name)) goto out;
  X509V3_CTX v3;
  X509V3_set_ctx_nodb(&v3);
  X509V3_set_ctx(&v3, x, x, NULL, NULL, 0);
  X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &v3, NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1");
  if (!ext) goto out;
  int added = X509_add_ext(x, ext, -1);
  X509_EXTENSION_free(ext);
  if (!added) goto out;
  if (!X509_sign(x, pkey, EVP_sha256())) goto out;
  ok = TRUE;
out:
  if (!ok) {
    g_autofree char *msg = val_tls_error_string();
    g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "cannot generate self-signed certificate: %s", msg);
    EVP_PKEY_free(pkey);
    X509_free(x);
    return FALSE;
  }
  *pkey_out = pkey;
  *cert_out = x;
  return TRUE;
}

static gboolean set_common(SSL_CTX *ctx, GError **error)
{
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  if (!SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) || !SSL_CTX_set_max_proto_version(ctx, TLS1_3_VERSION)) {
    g_autofree char *msg = val_tls_error_string();
    g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "cannot set TLS versions: %s", msg);
    return FALSE;
  }
  return TRUE;
}

SSL_CTX *val_tls_server_ctx_new(const char *cert_file, const char *key_file, gboolean ktls, GError **error)
{
  if (!cert_file && key_file) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_INVALID, "a private key ('%s') was given without a certificate", key_file);
    return NULL;
  }
  ERR_clear_error();
  g_autoptr(SSL_CTX) ctx = SSL_CTX_new(TLS_server_method());
  if (!ctx) {
    g_autofree char *msg = val_tls_error_string();
    g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "SSL_CTX_new: %s", msg);
    return NULL;
  }
  if (!set_common(ctx, error)) return NULL;
  if (!SSL_CTX_set_cipher_list(ctx, TLS12_SUITES) || !SSL_CTX_set_ciphersuites(ctx, TLS13_SUITES)) {
    g_autofree char *msg = val_tls_error_string();
    g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "cannot set cipher suites: %s", msg);
    return NULL;
  }
  SSL_CTX_clear_options(ctx, SSL_OP_CIPHER_SERVER_PREFERENCE);
  if (ktls) SSL_CTX_set_options(ctx, SSL_OP_ENABLE_KTLS);
  /* a client that closes without close_notify after its last response (HTTP/1.1 clients do: RFC
   * 9112 section 9.8 asks servers to expect it) is a close, not a fatal error: without this
   * OpenSSL 3 answers the EOF with a decode_error alert, which the closed client's kernel meets
   * with a RST, and the alert's unacknowledged bytes counted a complete response as cut short */
  SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
  SSL_CTX_set_num_tickets(ctx, 0);

  if (cert_file) {
    if (!g_file_test(cert_file, G_FILE_TEST_IS_REGULAR)) {
      g_set_error(error, VAL_ERROR, VAL_ERROR_CERT, "certificate '%s': no such file", cert_file);
      return NULL;
    }
    const char *kf = key_file ? key_file : cert_file;
    if (key_file && !g_file_test(key_file, G_FILE_TEST_IS_REGULAR)) {
      g_set_error(error, VAL_ERROR, VAL_ERROR_CERT, "private key '%s': no such file", key_file);
      return NULL;
    }
    if (SSL_CTX_use_certificate_chain_file(ctx, cert_file) != 1) {
      g_autofree char *msg = val_tls_error_string();
      g_set_error(error, VAL_ERROR, VAL_ERROR_CERT, "cannot load certificate '%s': %s", cert_file, msg);
      return NULL;
    }
    if (SSL_CTX_use_PrivateKey_file(ctx, kf, SSL_FILETYPE_PEM) != 1) {
      g_autofree char *msg = val_tls_error_string();
      g_set_error(error, VAL_ERROR, VAL_ERROR_CERT, "cannot load private key '%s': %s", kf, msg);
      return NULL;
    }
    if (SSL_CTX_check_private_key(ctx) != 1) {
      g_autofree char *msg = val_tls_error_string();
      g_set_error(error, VAL_ERROR, VAL_ERROR_CERT, "private key '%s' does not match certificate '%s': %s", kf, cert_file, msg);
      return NULL;
    }
  } else {
    EVP_PKEY *pkey = NULL;
    X509 *x = NULL;
    if (!make_self_signed(&pkey, &x, error)) return NULL;
    int ok = SSL_CTX_use_certificate(ctx, x) == 1 && SSL_CTX_use_PrivateKey(ctx, pkey) == 1;
    X509_free(x);
    EVP_PKEY_free(pkey);
    if (!ok) {
      g_autofree char *msg = val_tls_error_string();
      g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "cannot install self-signed certificate: %s", msg);
      return NULL;
    }
  }
  return g_steal_pointer(&ctx);
}

SSL_CTX *val_tls_client_ctx_new(ValTlsVersion v, ValCipher c, gboolean ktls, GError **error)
{
  ERR_clear_error();
  g_autoptr(SSL_CTX) ctx = SSL_CTX_new(TLS_client_method());
  if (!ctx) {
    g_autofree char *msg = val_tls_error_string();
    g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "SSL_CTX_new: %s", msg);
    return NULL;
  }
  if (!set_common(ctx, error)) return NULL;
  SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
  if (ktls) SSL_CTX_set_options(ctx, SSL_OP_ENABLE_KTLS);
  if (v == VAL_TLS_12) {
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_max_proto_version(ctx, TLS1_2_VERSION);
  } else if (v == VAL_TLS_13) {
    SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION);
    SSL_CTX_set_max_proto_version(ctx, TLS1_3_VERSION);
  }
  const char *l12 = TLS12_SUITES, *l13 = TLS13_SUITES;
  switch (c) {
    case VAL_CIPHER_AES128GCM:
      l12 = "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256";
      l13 = "TLS_AES_128_GCM_SHA256";
      break;
    case VAL_CIPHER_AES256GCM:
      l12 = "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384";
      l13 = "TLS_AES_256_GCM_SHA384";
      break;
    case VAL_CIPHER_CHACHA20:
      l12 = "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";
      l13 = "TLS_CHACHA20_POLY1305_SHA256";
      break;
    default: break;
  }
  if (!SSL_CTX_set_cipher_list(ctx, l12) || !SSL_CTX_set_ciphersuites(ctx, l13)) {
    g_autofree char *msg = val_tls_error_string();
    g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "cannot set cipher suites: %s", msg);
    return NULL;
  }
  return g_steal_pointer(&ctx);
}

gboolean val_tls_write_self_signed(const char *cert_file, const char *key_file, GError **error)
{
  EVP_PKEY *pkey = NULL;
  X509 *x = NULL;
  if (!make_self_signed(&pkey, &x, error)) return FALSE;
  gboolean ok = FALSE;
  FILE *fc = fopen(cert_file, "w");
  FILE *fk = fopen(key_file, "w");
  if (fc && fk && PEM_write_X509(fc, x) == 1 && PEM_write_PrivateKey(fk, pkey, NULL, NULL, 0, NULL, NULL) == 1) ok = TRUE;
  if (fc && fclose(fc) != 0) ok = FALSE;
  if (fk && fclose(fk) != 0) ok = FALSE;
  X509_free(x);
  EVP_PKEY_free(pkey);
  if (!ok) g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "cannot write '%s' / '%s'", cert_file, key_file);
  return ok;
}

ValCipher val_tls_session_cipher(const SSL *ssl)
{
  const SSL_CIPHER *sc = SSL_get_current_cipher(ssl);
  if (!sc) return VAL_CIPHER_ANY;
  const char *n = SSL_CIPHER_get_name(sc);
  if (strstr(n, "CHACHA20")) return VAL_CIPHER_CHACHA20;
  if (strstr(n, "AES_128_GCM") || strstr(n, "AES128-GCM")) return VAL_CIPHER_AES128GCM;
  if (strstr(n, "AES_256_GCM") || strstr(n, "AES256-GCM")) return VAL_CIPHER_AES256GCM;
  return VAL_CIPHER_ANY;
}

static void set_nonblock(int fd, gboolean on)
{
  int fl = fcntl(fd, F_GETFL);
  fcntl(fd, F_SETFL, on ? (fl | O_NONBLOCK) : (fl & ~O_NONBLOCK));
}

gboolean val_tls_loopback_handshake(SSL_CTX *sctx, SSL_CTX *cctx, SSL **srv, SSL **cli, GError **error)
{
  int fds[2];
  if (!val_tcp_loopback_pair(fds, error)) return FALSE;
  SSL *s = SSL_new(sctx), *c = SSL_new(cctx);
  if (!s || !c || !SSL_set_fd(s, fds[0]) || !SSL_set_fd(c, fds[1])) {
    g_autofree char *msg = val_tls_error_string();
    g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "SSL_new: %s", msg);
    goto fail;
  }
  set_nonblock(fds[0], TRUE);
  set_nonblock(fds[1], TRUE);
  gboolean sdone = FALSE, cdone = FALSE;
  int64_t deadline = val_now_ns() + HANDSHAKE_DEADLINE_NS;
  while (!(sdone && cdone)) {
    if (val_now_ns() > deadline) {
      g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "TLS handshake timed out");
      goto fail;
    }
    if (!cdone) {
      int r = SSL_connect(c);
      if (r == 1)
        cdone = TRUE;
      else {
        int e = SSL_get_error(c, r);
        if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
          g_autofree char *msg = val_tls_error_string();
          g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "client handshake: %s", msg);
          goto fail;
        }
      }
    }
    if (!sdone) {
      int r = SSL_accept(s);
      if (r == 1)
        sdone = TRUE;
      else {
        int e = SSL_get_error(s, r);
        if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
          g_autofree char *msg = val_tls_error_string();
          g_set_error(error, VAL_ERROR, VAL_ERROR_FAILED, "server handshake: %s", msg);
          goto fail;
        }
      }
    }
    if (!(sdone && cdone)) {
      struct pollfd p[2] = { { fds[0], POLLIN, 0 }, { fds[1], POLLIN, 0 } };
      poll(p, 2, 10);
    }
  }
  set_nonblock(fds[0], FALSE);
  set_nonblock(fds[1], FALSE);
  *srv = s;
  *cli = c;
  return TRUE;
fail:
  SSL_free(s);
  SSL_free(c);
  close(fds[0]);
  close(fds[1]);
  return FALSE;
}
