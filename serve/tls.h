/* serve/tls.h — OpenSSL contexts for the validation server and load generator.
 *
 * Server contexts accept TLS 1.2 and 1.3 with the three AEAD suites the appliance
 * uses (AES-128-GCM, AES-256-GCM, ChaCha20-Poly1305) and an ECDSA P-256
 * certificate, either loaded from PEM files or generated in memory (self-signed,
 * CN=localhost, valid one year).  Client contexts pin one version and one cipher
 * so that a run measures exactly one configuration; they do not verify the peer
 * (the server is on loopback and its certificate is self-signed).
 */
#ifndef SERVE_TLS_H
#define SERVE_TLS_H

#include <glib.h>
#include <openssl/ssl.h>

G_BEGIN_DECLS

/* TLS protocol version of a run; VAL_TLS_ANY lets the handshake choose (1.3 here). */
typedef enum { VAL_TLS_ANY = 0, VAL_TLS_12 = 12, VAL_TLS_13 = 13 } ValTlsVersion;

/* AEAD cipher of a run; VAL_CIPHER_ANY lets the handshake choose. */
typedef enum { VAL_CIPHER_ANY = 0, VAL_CIPHER_AES128GCM, VAL_CIPHER_AES256GCM, VAL_CIPHER_CHACHA20, VAL_CIPHER_COUNT } ValCipher;

/* Name used in reports and profiles: "aes-128-gcm", "aes-256-gcm", "chacha20-poly1305", "any". */
const char *val_cipher_name(ValCipher c);
/* Parses a name as printed by val_cipher_name (also "aes128", "aes256", "chacha").
 * Returns FALSE for an unknown name. */
gboolean val_cipher_parse(const char *s, ValCipher *out);
/* "1.2", "1.3" or "any". */
const char *val_tls_version_name(ValTlsVersion v);
/* Parses "1.2" / "12", "1.3" / "13" or "any"; FALSE for anything else. */
gboolean val_tls_version_parse(const char *s, ValTlsVersion *out);

/* Builds a server context.  cert_file/key_file: PEM paths, or both NULL to
 * generate a self-signed EC P-256 certificate in memory (key_file NULL with a
 * cert_file means the key is in the certificate file).  ktls: set
 * SSL_OP_ENABLE_KTLS.  Errors: unreadable or invalid certificate or key, key not
 * matching the certificate (G_FILE_ERROR / G_IO_ERROR_FAILED, one line). */
SSL_CTX *val_tls_server_ctx_new(const char *cert_file, const char *key_file, gboolean ktls, GError **error);

/* Builds a client context restricted to version v and cipher c (ANY = no restriction). */
SSL_CTX *val_tls_client_ctx_new(ValTlsVersion v, ValCipher c, gboolean ktls, GError **error);

/* Writes a freshly generated self-signed certificate and key (PEM) to the two paths. */
gboolean val_tls_write_self_signed(const char *cert_file, const char *key_file, GError **error);

/* The first queued OpenSSL error as a string ("unknown" when none); clears the queue. */
char *val_tls_error_string(void);

/* Cipher of an established connection mapped to ValCipher (ANY when unknown). */
ValCipher val_tls_session_cipher(const SSL *ssl);

/* Runs a TLS handshake between two in-process SSL objects over a fresh loopback TCP
 * pair (non-blocking stepping, timeout 5 s).  On success *srv and *cli are
 * connected SSL objects whose fds are set blocking again; free with SSL_free and
 * close(SSL_get_fd()). */
gboolean val_tls_loopback_handshake(SSL_CTX *sctx, SSL_CTX *cctx, SSL **srv, SSL **cli, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(SSL_CTX, SSL_CTX_free)

G_END_DECLS

#endif
