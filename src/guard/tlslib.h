/*
 * tlslib.h: OpenSSL's functions as tls.c calls them, from libssl loaded
 * at run time (tlslib.c): a table of pointers by their own names.  Only
 * where the OpenSSL headers are (HAVE_OPENSSL).
 */
#ifndef TLSLIB_H
#define TLSLIB_H

#ifdef HAVE_OPENSSL
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

/* The functions of OpenSSL that a session calls, by their own names. */
struct ssl_lib {
	int	 (*OPENSSL_init_ssl)(uint64_t, const OPENSSL_INIT_SETTINGS *);
	SSL_SESSION *(*SSL_get_session)(const SSL *);
	int	 (*SSL_SESSION_is_resumable)(const SSL_SESSION *);
	int	 (*i2d_SSL_SESSION)(const SSL_SESSION *, unsigned char **);
	SSL_SESSION *(*d2i_SSL_SESSION)(SSL_SESSION **,
		    const unsigned char **, long);
	int	 (*SSL_set_session)(SSL *, SSL_SESSION *);
	void	 (*SSL_SESSION_free)(SSL_SESSION *);
	int	 (*SSL_session_reused)(const SSL *);
	const SSL_METHOD *(*TLS_client_method)(void);
	SSL_CTX	*(*SSL_CTX_new)(const SSL_METHOD *);
	void	 (*SSL_CTX_free)(SSL_CTX *);
	long	 (*SSL_CTX_ctrl)(SSL_CTX *, int, long, void *);
	void	 (*SSL_CTX_set_verify)(SSL_CTX *, int, SSL_verify_cb);
	void	 (*SSL_CTX_set_default_passwd_cb)(SSL_CTX *,
		    pem_password_cb *);
	int	 (*SSL_CTX_set_default_verify_paths)(SSL_CTX *);
	const char *(*X509_get_default_cert_dir)(void);
	int	 (*SSL_CTX_load_verify_locations)(SSL_CTX *, const char *,
		    const char *);
	int	 (*SSL_CTX_use_certificate_chain_file)(SSL_CTX *,
		    const char *);
	int	 (*SSL_CTX_use_PrivateKey_file)(SSL_CTX *, const char *, int);
	SSL	*(*SSL_new)(SSL_CTX *);
	void	 (*SSL_free)(SSL *);
	int	 (*SSL_set_fd)(SSL *, int);
	long	 (*SSL_ctrl)(SSL *, int, long, void *);
	int	 (*SSL_set1_host)(SSL *, const char *);
	X509_VERIFY_PARAM *(*SSL_get0_param)(SSL *);
	int	 (*X509_VERIFY_PARAM_set1_ip_asc)(X509_VERIFY_PARAM *,
		    const char *);
	int	 (*SSL_connect)(SSL *);
	int	 (*SSL_read)(SSL *, void *, int);
	int	 (*SSL_write)(SSL *, const void *, int);
	int	 (*SSL_get_error)(const SSL *, int);
	long	 (*SSL_get_verify_result)(const SSL *);
	const char *(*X509_verify_cert_error_string)(long);
	unsigned long (*ERR_peek_error)(void);
	const char *(*ERR_reason_error_string)(unsigned long);
	void	 (*ERR_clear_error)(void);
};

bool	tlslib_load(struct ssl_lib *lib, char *why, size_t len);
#endif /* HAVE_OPENSSL */

#endif /* TLSLIB_H */
