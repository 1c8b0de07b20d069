#ifndef PUSHDIAG_CSSL_SHIM_H
#define PUSHDIAG_CSSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <openssl/asn1.h>

/* Macros and variadic calls of OpenSSL, as functions Swift can call. */
static inline long CSSL_set_tlsext_host_name(SSL *s, const char *name) { return SSL_set_tlsext_host_name(s, name); }
static inline int CSSL_ERROR_WANT_READ(void) { return SSL_ERROR_WANT_READ; }
static inline int CSSL_ERROR_WANT_WRITE(void) { return SSL_ERROR_WANT_WRITE; }
static inline int CSSL_ERROR_ZERO_RETURN(void) { return SSL_ERROR_ZERO_RETURN; }
static inline int CSSL_ERROR_SYSCALL(void) { return SSL_ERROR_SYSCALL; }
/* Free a connection's record buffers while it is idle: 10,000 held connections otherwise keep
   about 34 KiB of buffers each. */
static inline long CSSL_CTX_release_buffers(SSL_CTX *c) { return SSL_CTX_set_mode(c, SSL_MODE_RELEASE_BUFFERS); }
static inline int CSSL_SHUTDOWN_BOTH(void) { return SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN; }
static inline int CSSL_VERIFY_PEER(void) { return SSL_VERIFY_PEER; }
static inline int CSSL_VERIFY_NONE(void) { return SSL_VERIFY_NONE; }
static inline int CSSL_X509_V_OK(void) { return X509_V_OK; }
static inline int CSSL_VERIFY_FAIL_IF_NO_PEER_CERT(void) { return SSL_VERIFY_FAIL_IF_NO_PEER_CERT; }
/* A server that asks for a client certificate without checking it (client_auth_type
   RequestClientCert, RequireAnyClientCert): every chain is accepted. */
static inline int CSSL_accept_any_chain(int ok, X509_STORE_CTX *store) { (void)ok; (void)store; return 1; }
static inline void CSSL_CTX_set_verify(SSL_CTX *c, int mode, int check_chain) {
    SSL_CTX_set_verify(c, mode, check_chain ? NULL : CSSL_accept_any_chain);
}
static inline X509 *CSSL_get_peer_certificate(SSL *s) { return SSL_get1_peer_certificate(s); }
/* Days and seconds from now to the certificate's notAfter (negative when expired). */
static inline int CSSL_not_after_diff(X509 *x, int *days, int *secs) {
    return ASN1_TIME_diff(days, secs, NULL, X509_get0_notAfter(x));
}
#endif
