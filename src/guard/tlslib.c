/*
 * tlslib.c: OpenSSL's libssl, loaded with dlopen() by the first TLS
 * session rather than linked (tls.c says why), and its functions, by
 * name, into a table (tlslib.h) that each session holds, since the house
 * keeps no globals; a second dlopen() of a loaded library only counts a
 * reference.
 *
 * The library's name is the one the headers that retry was built with
 * describe: libssl.so.3 for OpenSSL 3 on ELF systems, libssl.3.dylib on
 * macOS (where Homebrew keeps it, since Apple's own libssl must not be
 * loaded), and for other numberings, LibreSSL's among them, the name
 * that the build gives in RETRY_LIBSSL (make LIBSSL=libssl.so.56), or
 * the unversioned libssl.so of the development files.
 */
#include <stdio.h>
#include <string.h>

#include "tlslib.h"

#ifdef HAVE_OPENSSL
#include <dlfcn.h>
#include <errno.h>

#define STR(x)		#x
#define XSTR(x)		STR(x)
#if defined(RETRY_LIBSSL)
#define LIBSSL		{ RETRY_LIBSSL }
#elif defined(LIBRESSL_VERSION_NUMBER)
#define LIBSSL		{ "libssl.so" }
#elif defined(__APPLE__) && defined(OPENSSL_VERSION_MAJOR)
#define LIBSSL_DYLIB	"libssl." XSTR(OPENSSL_VERSION_MAJOR) ".dylib"
#define LIBSSL		{ LIBSSL_DYLIB, "/opt/homebrew/lib/" LIBSSL_DYLIB, \
			  "/usr/local/lib/" LIBSSL_DYLIB }
#elif defined(__APPLE__)
#define LIBSSL		{ "libssl.1.1.dylib", \
			  "/opt/homebrew/lib/libssl.1.1.dylib" }
#elif defined(OPENSSL_VERSION_MAJOR)
#define LIBSSL		{ "libssl.so." XSTR(OPENSSL_VERSION_MAJOR) }
#else
#define LIBSSL		{ "libssl.so.1.1" }
#endif

/* dlsym()'s answer into a function pointer, as POSIX allows. */
#define LOAD(h, lib, name, ok) do {					\
	void *sym_ = dlsym((h), #name);					\
	if (sym_ == NULL)						\
		(ok) = false;						\
	else								\
		memcpy(&(lib)->name, &sym_, sizeof((lib)->name));	\
} while (0)

static bool
load_ctx_functions(void *h, struct ssl_lib *lib)
{
	bool ok = true;

	LOAD(h, lib, OPENSSL_init_ssl, ok);
	LOAD(h, lib, SSL_get_session, ok);
	LOAD(h, lib, SSL_SESSION_is_resumable, ok);
	LOAD(h, lib, i2d_SSL_SESSION, ok);
	LOAD(h, lib, d2i_SSL_SESSION, ok);
	LOAD(h, lib, SSL_set_session, ok);
	LOAD(h, lib, SSL_SESSION_free, ok);
	LOAD(h, lib, SSL_session_reused, ok);
	LOAD(h, lib, TLS_client_method, ok);
	LOAD(h, lib, SSL_CTX_new, ok);
	LOAD(h, lib, SSL_CTX_free, ok);
	LOAD(h, lib, SSL_CTX_ctrl, ok);
	LOAD(h, lib, SSL_CTX_set_verify, ok);
	LOAD(h, lib, SSL_CTX_set_default_passwd_cb, ok);
	LOAD(h, lib, SSL_CTX_set_default_verify_paths, ok);
	LOAD(h, lib, X509_get_default_cert_dir, ok);
	LOAD(h, lib, SSL_CTX_load_verify_locations, ok);
	LOAD(h, lib, SSL_CTX_use_certificate_chain_file, ok);
	LOAD(h, lib, SSL_CTX_use_PrivateKey_file, ok);
	return ok;
}

static bool
load_ssl_functions(void *h, struct ssl_lib *lib)
{
	bool ok = true;

	LOAD(h, lib, SSL_new, ok);
	LOAD(h, lib, SSL_free, ok);
	LOAD(h, lib, SSL_set_fd, ok);
	LOAD(h, lib, SSL_ctrl, ok);
	LOAD(h, lib, SSL_set1_host, ok);
	LOAD(h, lib, SSL_get0_param, ok);
	LOAD(h, lib, X509_VERIFY_PARAM_set1_ip_asc, ok);
	LOAD(h, lib, SSL_connect, ok);
	LOAD(h, lib, SSL_read, ok);
	LOAD(h, lib, SSL_write, ok);
	LOAD(h, lib, SSL_get_error, ok);
	LOAD(h, lib, SSL_get_verify_result, ok);
	LOAD(h, lib, X509_verify_cert_error_string, ok);
	LOAD(h, lib, ERR_peek_error, ok);
	LOAD(h, lib, ERR_reason_error_string, ok);
	LOAD(h, lib, ERR_clear_error, ok);
	return ok;
}

/* OpenSSL's functions into lib: false with why if it cannot be had. */
bool
tlslib_load(struct ssl_lib *lib, char *why, size_t len)
{
	static const char *const names[] = LIBSSL;
	size_t i;
	void *h = NULL;

	for (i = 0; h == NULL && i < sizeof(names) / sizeof(names[0]); i++)
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		snprintf(why, len, "TLS: cannot load %s (OpenSSL)", names[0]);
		errno = ENOENT;
		return false;
	}
	if (!load_ctx_functions(h, lib) || !load_ssl_functions(h, lib)) {
		snprintf(why, len, "TLS: %s lacks a function retry needs",
		    names[i - 1]);
		errno = ENOENT;
		return false;
	}
	return true;
}
#endif /* HAVE_OPENSSL */
