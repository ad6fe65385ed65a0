/*
 * tlswolflib.h: wolfSSL's functions as tlswolf.c calls them, from
 * libwolfssl loaded at run time (tlswolflib.c): a table of pointers by
 * their own names.  Only where wolfSSL's headers are (HAVE_WOLFSSL).
 */
#ifndef TLSWOLFLIB_H
#define TLSWOLFLIB_H

#ifdef HAVE_WOLFSSL
#include <stdbool.h>
#include <stddef.h>

#include <wolfssl/options.h>
#include <wolfssl/ssl.h>

/* The functions of wolfSSL that a session calls, by their own names. */
struct wolf_lib {
	int	 (*wolfSSL_Init)(void);
	WOLFSSL_METHOD *(*wolfSSLv23_client_method)(void);
	WOLFSSL_CTX *(*wolfSSL_CTX_new)(WOLFSSL_METHOD *);
	void	 (*wolfSSL_CTX_free)(WOLFSSL_CTX *);
	int	 (*wolfSSL_CTX_SetMinVersion)(WOLFSSL_CTX *, int);
	int	 (*wolfSSL_CTX_set_cipher_list)(WOLFSSL_CTX *, const char *);
	void	 (*wolfSSL_CTX_set_verify)(WOLFSSL_CTX *, int, VerifyCallback);
	void	 (*wolfSSL_CTX_set_default_passwd_cb)(WOLFSSL_CTX *,
		    wc_pem_password_cb *);
	long	 (*wolfSSL_CTX_set_mode)(WOLFSSL_CTX *, long);
	int	 (*wolfSSL_CTX_load_verify_buffer)(WOLFSSL_CTX *,
		    const unsigned char *, long, int);
	int	 (*wolfSSL_CTX_use_certificate_chain_buffer)(WOLFSSL_CTX *,
		    const unsigned char *, long);
	int	 (*wolfSSL_CTX_use_PrivateKey_buffer)(WOLFSSL_CTX *,
		    const unsigned char *, long, int);
	int	 (*wolfSSL_CTX_check_private_key)(const WOLFSSL_CTX *);
	WOLFSSL_X509_STORE *(*wolfSSL_CTX_get_cert_store)(WOLFSSL_CTX *);
	WOLFSSL_X509_LOOKUP_METHOD *(*wolfSSL_X509_LOOKUP_hash_dir)(void);
	WOLFSSL_X509_LOOKUP *(*wolfSSL_X509_STORE_add_lookup)(
		    WOLFSSL_X509_STORE *, WOLFSSL_X509_LOOKUP_METHOD *);
	int	 (*wolfSSL_X509_LOOKUP_add_dir)(WOLFSSL_X509_LOOKUP *,
		    const char *, long);
	WOLFSSL	*(*wolfSSL_new)(WOLFSSL_CTX *);
	void	 (*wolfSSL_free)(WOLFSSL *);
	int	 (*wolfSSL_set_fd)(WOLFSSL *, int);
	int	 (*wolfSSL_UseSNI)(WOLFSSL *, unsigned char, const void *,
		    unsigned short);
	int	 (*wolfSSL_UseKeyShare)(WOLFSSL *, word16);
	int	 (*wolfSSL_UseSupportedCurve)(WOLFSSL *, word16);
	int	 (*wolfSSL_UseSessionTicket)(WOLFSSL *);
	int	 (*wolfSSL_check_domain_name)(WOLFSSL *, const char *);
	WOLFSSL_X509_VERIFY_PARAM *(*wolfSSL_get0_param)(WOLFSSL *);
	int	 (*wolfSSL_X509_VERIFY_PARAM_set1_ip_asc)(
		    WOLFSSL_X509_VERIFY_PARAM *, const char *);
	int	 (*wolfSSL_connect)(WOLFSSL *);
	int	 (*wolfSSL_read)(WOLFSSL *, void *, int);
	int	 (*wolfSSL_write)(WOLFSSL *, const void *, int);
	int	 (*wolfSSL_get_error)(WOLFSSL *, int);
	long	 (*wolfSSL_get_verify_result)(const WOLFSSL *);
	const char *(*wolfSSL_ERR_reason_error_string)(unsigned long);
	void	 (*wolfSSL_ERR_clear_error)(void);
	WOLFSSL_SESSION *(*wolfSSL_get_session)(WOLFSSL *);
	int	 (*wolfSSL_SESSION_is_resumable)(const WOLFSSL_SESSION *);
	int	 (*wolfSSL_i2d_SSL_SESSION)(WOLFSSL_SESSION *,
		    unsigned char **);
	WOLFSSL_SESSION *(*wolfSSL_d2i_SSL_SESSION)(WOLFSSL_SESSION **,
		    const unsigned char **, long);
	int	 (*wolfSSL_set_session)(WOLFSSL *, WOLFSSL_SESSION *);
	void	 (*wolfSSL_SESSION_free)(WOLFSSL_SESSION *);
};

bool	wolflib_load(struct wolf_lib *lib, char *why, size_t len);
#endif /* HAVE_WOLFSSL */

#endif /* TLSWOLFLIB_H */
