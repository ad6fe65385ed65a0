/*
 * tlswolflib.c: wolfSSL's libwolfssl, loaded with dlopen() by the first
 * session of tlswolf.c rather than linked (as tlslib.c loads libssl, and
 * for the same reason: a run that names no rediss:// store pays nothing
 * for it), and its functions, by name, into a table (tlswolflib.h) that
 * each session holds.  Loading it costs 0.93 M instructions, most of
 * them binding its 1,485 functions: Debian links it with -z now, so
 * RTLD_LAZY would save nothing.  Where the C library has RTLD_DEEPBIND
 * (glibc), the library binds its calls to itself first: most of them
 * are to its own functions, which were otherwise looked for in retry,
 * libc and ld.so before, and that saved 0.34 M of 1.27 M.
 *
 * The library's name is the soname of the wolfSSL that retry was built
 * with: libwolfssl.so.35 for 5.5 (Debian 12), or the one that the
 * build gives in RETRY_LIBWOLFSSL (make LIBWOLFSSL=libwolfssl.so.42),
 * or the unversioned libwolfssl.so of the development files.
 */
#include <stdio.h>
#include <string.h>

#include "tlswolflib.h"

#ifdef HAVE_WOLFSSL
#include <dlfcn.h>
#include <errno.h>

#include <wolfssl/version.h>

#if defined(RETRY_LIBWOLFSSL)
#define LIBWOLFSSL	{ RETRY_LIBWOLFSSL }
#elif LIBWOLFSSL_VERSION_HEX >= 0x05005000 && \
    LIBWOLFSSL_VERSION_HEX < 0x05006000 && !defined(__APPLE__)
#define LIBWOLFSSL	{ "libwolfssl.so.35" }
#elif defined(__APPLE__)
#define LIBWOLFSSL	{ "libwolfssl.dylib" }
#else
#define LIBWOLFSSL	{ "libwolfssl.so" }
#endif

/*
 * The sanitizers' runtimes, which intercept dlopen(), refuse
 * RTLD_DEEPBIND (make check-sanitize).
 */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define SANITIZED
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED
#endif
#if defined(RTLD_DEEPBIND) && !defined(SANITIZED)
#define DLOPEN_FLAGS	(RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND)
#else
#define DLOPEN_FLAGS	(RTLD_NOW | RTLD_LOCAL)
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
load_ctx_functions(void *h, struct wolf_lib *lib)
{
	bool ok = true;

	LOAD(h, lib, wolfSSL_Init, ok);
	LOAD(h, lib, wolfSSLv23_client_method, ok);
	LOAD(h, lib, wolfSSL_CTX_new, ok);
	LOAD(h, lib, wolfSSL_CTX_free, ok);
	LOAD(h, lib, wolfSSL_CTX_SetMinVersion, ok);
	LOAD(h, lib, wolfSSL_CTX_set_cipher_list, ok);
	LOAD(h, lib, wolfSSL_CTX_set_verify, ok);
	LOAD(h, lib, wolfSSL_CTX_set_default_passwd_cb, ok);
	LOAD(h, lib, wolfSSL_CTX_set_mode, ok);
	LOAD(h, lib, wolfSSL_CTX_load_verify_buffer, ok);
	LOAD(h, lib, wolfSSL_CTX_use_certificate_chain_buffer, ok);
	LOAD(h, lib, wolfSSL_CTX_use_PrivateKey_buffer, ok);
	LOAD(h, lib, wolfSSL_CTX_check_private_key, ok);
	LOAD(h, lib, wolfSSL_CTX_get_cert_store, ok);
	LOAD(h, lib, wolfSSL_X509_LOOKUP_hash_dir, ok);
	LOAD(h, lib, wolfSSL_X509_STORE_add_lookup, ok);
	LOAD(h, lib, wolfSSL_X509_LOOKUP_add_dir, ok);
	LOAD(h, lib, wolfSSL_get_session, ok);
	LOAD(h, lib, wolfSSL_SESSION_is_resumable, ok);
	LOAD(h, lib, wolfSSL_i2d_SSL_SESSION, ok);
	LOAD(h, lib, wolfSSL_d2i_SSL_SESSION, ok);
	LOAD(h, lib, wolfSSL_set_session, ok);
	LOAD(h, lib, wolfSSL_SESSION_free, ok);
	return ok;
}

static bool
load_ssl_functions(void *h, struct wolf_lib *lib)
{
	bool ok = true;

	LOAD(h, lib, wolfSSL_new, ok);
	LOAD(h, lib, wolfSSL_free, ok);
	LOAD(h, lib, wolfSSL_set_fd, ok);
	LOAD(h, lib, wolfSSL_UseSNI, ok);
	LOAD(h, lib, wolfSSL_UseKeyShare, ok);
	LOAD(h, lib, wolfSSL_UseSupportedCurve, ok);
	LOAD(h, lib, wolfSSL_UseSessionTicket, ok);
	LOAD(h, lib, wolfSSL_check_domain_name, ok);
	LOAD(h, lib, wolfSSL_get0_param, ok);
	LOAD(h, lib, wolfSSL_X509_VERIFY_PARAM_set1_ip_asc, ok);
	LOAD(h, lib, wolfSSL_connect, ok);
	LOAD(h, lib, wolfSSL_read, ok);
	LOAD(h, lib, wolfSSL_write, ok);
	LOAD(h, lib, wolfSSL_get_error, ok);
	LOAD(h, lib, wolfSSL_get_verify_result, ok);
	LOAD(h, lib, wolfSSL_ERR_reason_error_string, ok);
	LOAD(h, lib, wolfSSL_ERR_clear_error, ok);
	return ok;
}

/* wolfSSL's functions into lib: false with why if it cannot be had. */
bool
wolflib_load(struct wolf_lib *lib, char *why, size_t len)
{
	static const char *const names[] = LIBWOLFSSL;
	size_t i;
	void *h = NULL;

	for (i = 0; h == NULL && i < sizeof(names) / sizeof(names[0]); i++)
		h = dlopen(names[i], DLOPEN_FLAGS);
	if (h == NULL) {
		snprintf(why, len, "TLS: cannot load %s (wolfSSL)", names[0]);
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
#endif /* HAVE_WOLFSSL */
