# retry: see README.md.  `make` builds ./retry, `make check` runs the tests.
#
# This file is for any make: GNU make and BSD make (bmake) alike, so it
# keeps to what POSIX make has, and computes what it must in the shell,
# at run time.  GNU make reads GNUmakefile first, which includes this
# file and the developer targets of mk/*.mk, which need GNU make.
#
# `make`, `make install` and `make uninstall` build and copy files, and
# nothing else; `make demo` and `make check` first install the Debian
# packages they need (build-aux/deps.sh), as root or through sudo.

PREFIX	?= /usr/local
BINDIR	?= $(PREFIX)/bin
MANDIR	?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d

CC	?= cc
CFLAGS	?= -g
# -O2 goes before CFLAGS, so that an -O there wins.  (It is not in CFLAGS,
# which BSD make sets itself, without an -O: Debian's bmake has -g.)
OPTIMIZE = -O2
WARN	= -std=c11 -Wall -Wextra -Wpedantic
# A 64-bit off_t on 32-bit systems too: files over 2 GiB for -I and -O,
# and the type that splice(2) takes.
ALL_CPPFLAGS = -Isrc `$(FEATURES)` -D_FILE_OFFSET_BITS=64 $(CPPFLAGS)
# `make PORTABLE=1`: only what Linux, macOS and the BSDs all have (see
# INSTALL.md, "Platforms").  POSIX 2008 and the BSD interfaces instead of
# _GNU_SOURCE, so that the C library hides GNU-only functions, and
# __linux__ undefined, so that every Linux-only branch is left out and
# the compiler checks the rest.  RETRY_PORTABLE selects the fallbacks.
# Each C library hides what POSIX does not name once _POSIX_C_SOURCE is
# defined, and each has its own macro that shows the BSD interfaces
# again (flock, O_DIRECTORY, O_NOFOLLOW, MSG_DONTWAIT, arc4random_buf,
# getprogname...): _DEFAULT_SOURCE for glibc and musl, _DARWIN_C_SOURCE
# for macOS, _BSD_SOURCE for OpenBSD, _NETBSD_SOURCE for NetBSD, and
# __BSD_VISIBLE for FreeBSD, whose <sys/cdefs.h> leaves it
# undefined under _POSIX_C_SOURCE.  A C library ignores the others'
# macros, or takes them as its own (glibc and musl read _BSD_SOURCE as
# _DEFAULT_SOURCE), so one set serves all, and none of them shows
# GNU-only functions.  macOS is compiled and
# linked here with Zig's copy of its headers (`make cross-macos`); the
# BSDs are not built here.
PORTABLE ?= 0
FEATURES = case '$(PORTABLE)' in ''|0) echo -D_GNU_SOURCE ;; \
	   *) echo -DRETRY_PORTABLE -D_POSIX_C_SOURCE=200809L \
	   -D_DEFAULT_SOURCE -D_DARWIN_C_SOURCE -D_BSD_SOURCE \
	   -D_NETBSD_SOURCE -D__BSD_VISIBLE=1 \
	   -U__linux__ -U__linux -Ulinux -U__gnu_linux__ ;; \
	   esac
PKG_CONFIG ?= pkg-config
# The BSD interfaces come from the C library where it has them, else from
# libbsd through pkg-config (build-aux/libbsd.sh).  libbsd is linked
# statically where the linker can: one shared library less to load makes
# start-up measurably cheaper (see bench/results.md).  STATIC_BSD=0 links
# it as a shared library.  BSD_COMPAT=1 takes them from src/os/compat.c
# instead where the C library lacks them and there is no libbsd (musl:
# the static release binaries, mk/release.mk).
STATIC_BSD ?= 1
BSD_COMPAT ?= 0
LIBBSD	= PKG_CONFIG='$(PKG_CONFIG)' STATIC_BSD='$(STATIC_BSD)' \
	  BSD_COMPAT='$(BSD_COMPAT)' sh build-aux/libbsd.sh
BSD_CFLAGS = `$(LIBBSD) cflags $(CC) $(CFLAGS)`
BSD_LIBS = `$(LIBBSD) libs $(CC) $(CFLAGS) $(LDFLAGS)`
# hiredis, for --budget=redis://..., only where its static archive is
# installed: linked statically, it costs a run that does not use it no
# start-up time.  Without it the redis:// form fails with one line.
HIREDIS_A  = $(PKG_CONFIG) --exists hiredis && for a in \
	     "$$($(PKG_CONFIG) --variable=libdir hiredis)/libhiredis.a" \
	     "$$($(CC) -print-file-name=libhiredis.a)"; do \
	     test -f "$$a" && break; done && test -f "$$a"
HIREDIS_CFLAGS = `$(HIREDIS_A) && echo -DHAVE_HIREDIS \
		 $$($(PKG_CONFIG) --cflags hiredis)`
HIREDIS_LIBS   = `$(HIREDIS_A) && echo "$$a"`
# OpenSSL, for --budget=rediss://..., where its headers are installed for
# this compiler (libssl-dev; the 32-bit build has none).  It is not
# linked: src/guard/tlslib.c loads libssl with dlopen() at first use, so
# that a run that names no rediss:// store pays nothing for it (linked
# statically, it more than doubled every run's start-up).  Without it
# the rediss:// form fails with one line.  LIBSSL names the library to
# load where the headers' version does not (LibreSSL's libssl.so.56).
LIBSSL	=
OPENSSL_CFLAGS = `printf '\043include <openssl/ssl.h>\n' | \
		 $(CC) $(CFLAGS) $(CPPFLAGS) -E - >/dev/null 2>&1 && \
		 echo -DHAVE_OPENSSL && test -n "$(LIBSSL)" && \
		 echo '-DRETRY_LIBSSL="$(LIBSSL)"'`
# wolfSSL, the lighter of rediss://'s two TLS libraries, where its headers
# and library are installed for this compiler (libwolfssl-dev, whose
# headers, unlike OpenSSL's, are the same for every architecture: the
# 32-bit build must not take them): loaded with dlopen() like libssl
# (src/guard/tlswolflib.c), and used in its place where it loads.
# LIBWOLFSSL names the library where the headers' version does not.
LIBWOLFSSL =
WOLFSSL_CFLAGS = `printf '\043include <wolfssl/%s.h>\n' options ssl | \
		 $(CC) $(CFLAGS) $(CPPFLAGS) -E - >/dev/null 2>&1 && \
		 test -f "$$($(CC) $(CFLAGS) -print-file-name=libwolfssl.so)" && \
		 echo -DHAVE_WOLFSSL && test -n "$(LIBWOLFSSL)" && \
		 echo '-DRETRY_LIBWOLFSSL="$(LIBWOLFSSL)"'`

CLI_SRCS	= src/cli/options.c src/cli/checks.c src/cli/parse.c \
	  src/cli/dryrun.c src/cli/help.c src/cli/envopts.c src/cli/debian.c
ATTEMPT_SRCS	= src/attempt/attempt.c src/attempt/spawn.c \
	  src/attempt/leftovers.c src/attempt/streams.c src/attempt/feed.c \
	  src/attempt/held.c src/attempt/match.c src/attempt/hooks.c \
	  src/attempt/afterfile.c
GUARD_SRCS	= src/guard/guard.c src/guard/spec.c src/guard/budget.c \
	  src/guard/statefile.c src/guard/redisstore.c src/guard/rediscmd.c \
	  src/guard/redisconn.c src/guard/resolve.c src/guard/tls.c \
	  src/guard/tlsossl.c src/guard/tlslib.c src/guard/tlsticket.c \
	  src/guard/tlsfiles.c src/guard/tlswolf.c src/guard/tlswolflib.c \
	  src/guard/tlspem.c
LOG_SRCS	= src/log/log.c src/log/status.c src/log/jsonlog.c \
	  src/log/errout.c src/log/summary.c src/log/metrics.c
POLICY_SRCS	= src/policy/backoff.c src/policy/outcomes.c \
	  src/policy/preset.c src/policy/http.c \
	  src/policy/after.c
TEXT_SRCS	= src/text/format.c src/text/escape.c src/text/duration.c
ERE_SRCS	= src/ere/erecomp.c src/ere/eredfa.c src/ere/erelit.c \
	  src/ere/erenfa.c src/ere/erenfabuild.c src/ere/erenfagroup.c \
	  src/ere/ereclosure.c src/ere/eresyntax.c src/ere/ereclass.c \
	  src/ere/pairscan.c
OS_SRCS	= src/os/signals.c src/os/fd.c src/os/clock.c src/os/env.c \
	  src/os/compat.c src/os/trace.c \
	  src/os/privdir.c
CLI_HDRS	= src/cli/checks.h src/cli/parse.h src/cli/dryrun.h \
	  src/cli/help.h src/cli/envopts.h src/cli/config.h
ATTEMPT_HDRS	= src/attempt/attempt.h src/attempt/spawn.h \
	  src/attempt/leftovers.h src/attempt/streams.h src/attempt/feed.h \
	  src/attempt/held.h src/attempt/match.h src/attempt/hooks.h \
	  src/attempt/afterfile.h
GUARD_HDRS	= src/guard/guard.h src/guard/spec.h src/guard/budget.h \
	  src/guard/store.h src/guard/statefile.h src/guard/redisstore.h \
	  src/guard/rediscmd.h src/guard/redisconn.h src/guard/resolve.h \
	  src/guard/tls.h src/guard/tlslib.h src/guard/tlsticket.h \
	  src/guard/tlsvt.h src/guard/tlsfiles.h src/guard/tlswolflib.h \
	  src/guard/tlspem.h \
	  src/guard/guardcodes.h \
	  src/guard/guard-lua.h
LOG_HDRS	= src/log/log.h src/log/status.h src/log/jsonlog.h \
	  src/log/errout.h src/log/summary.h src/log/metrics.h
POLICY_HDRS	= src/policy/backoff.h src/policy/outcomes.h \
	  src/policy/preset.h src/policy/http.h \
	  src/policy/after.h
TEXT_HDRS	= src/text/format.h src/text/escape.h src/text/duration.h
ERE_HDRS	= src/ere/ere.h src/ere/erelit.h src/ere/ereclosure.h \
	  src/ere/eresyntax.h src/ere/ereclass.h src/ere/ereprog.h \
	  src/ere/erenfa.h src/ere/pairscan.h
OS_HDRS	= src/os/defs.h src/os/signals.h src/os/fd.h src/os/clock.h \
	  src/os/env.h \
	  src/os/compat.h src/os/trace.h \
	  src/os/privdir.h
SRCS	= src/retry.c $(CLI_SRCS) $(ATTEMPT_SRCS) $(GUARD_SRCS) $(LOG_SRCS) \
	  $(POLICY_SRCS) $(TEXT_SRCS) $(ERE_SRCS) $(OS_SRCS)
HDRS	= $(CLI_HDRS) $(ATTEMPT_HDRS) $(GUARD_HDRS) $(LOG_HDRS) \
	  $(POLICY_HDRS) $(TEXT_HDRS) $(ERE_HDRS) $(OS_HDRS)
BATS	?= bats
# The suites: tests/, and those a subsystem keeps beside its code.
TESTS	= tests src/ere/tests
# The suites that need no tool beyond bats, perl and procps: CI runs them
# against its other builds of retry (clang, 32-bit, bmake).
CORE_TESTS = tests/options.bats tests/duration.bats tests/schedule.bats \
	     tests/dryrun.bats tests/policy.bats tests/status.bats \
	     tests/messages.bats tests/environment.bats tests/timeout.bats \
	     tests/spool.bats

# The program `make` builds.  `make cross-macos` (mk/cross.mk) sets
# another name, so that its builds for macOS take this rule as it is.
PROG	= retry

all: $(PROG)

# The first line fails with a one-line hint where libbsd is needed and
# missing.
$(PROG): $(SRCS) $(HDRS)
	@$(LIBBSD) check $(CC) $(CFLAGS) $(LDFLAGS)
	$(CC) $(WARN) $(ALL_CPPFLAGS) $(BSD_CFLAGS) $(HIREDIS_CFLAGS) \
	    $(OPENSSL_CFLAGS) $(WOLFSSL_CFLAGS) $(OPTIMIZE) $(CFLAGS) \
	    -o $(PROG) $(SRCS) \
	    $(LDFLAGS) $(BSD_LIBS) $(HIREDIS_LIBS)

# The fleet's Lua script, as a C string that src/guard/budget.c embeds.
src/guard/guard-lua.h: src/guard/guard.lua build-aux/embed-lua.sh
	sh build-aux/embed-lua.sh GUARD_LUA_TEXT src/guard/guard.lua >$@.tmp
	mv $@.tmp $@

# The table-driven tests of the budget's and the breaker's rules, on
# budget.c's pure functions (tests/rules.bats), and the script they
# give Redis (tests/fleet.bats).
RULES_SRCS = tests/helpers/guard-rules.c src/guard/budget.c \
	     src/policy/backoff.c src/text/format.c
tests/helpers/guard-rules: $(RULES_SRCS) $(HDRS)
	@$(LIBBSD) check $(CC) $(CFLAGS) $(LDFLAGS)
	$(CC) $(WARN) $(ALL_CPPFLAGS) $(BSD_CFLAGS) $(OPTIMIZE) $(CFLAGS) \
	    -Isrc -o tests/helpers/guard-rules $(RULES_SRCS) $(LDFLAGS) \
	    $(BSD_LIBS) -lm

tests/helpers/wstatus: tests/helpers/wstatus.c
	$(CC) -std=c11 -D_GNU_SOURCE -Wall -Wextra $(OPTIMIZE) $(CFLAGS) \
	    -o tests/helpers/wstatus tests/helpers/wstatus.c $(LDFLAGS)

tests/helpers/pipe-size: tests/helpers/pipe-size.c
	$(CC) -std=c11 -D_GNU_SOURCE -Wall -Wextra $(OPTIMIZE) $(CFLAGS) \
	    -o tests/helpers/pipe-size tests/helpers/pipe-size.c $(LDFLAGS)

tests/helpers/zombie-leader: tests/helpers/zombie-leader.c
	$(CC) -std=c11 -D_GNU_SOURCE -Wall -Wextra $(OPTIMIZE) $(CFLAGS) \
	    -pthread -o tests/helpers/zombie-leader \
	    tests/helpers/zombie-leader.c $(LDFLAGS)

# The table of cases of the ERE matcher (src/ere/tests/ere.bats), built
# beside it.
ERE_TEST_SRCS = src/ere/tests/ere-test.c src/ere/tests/ere-lines.c \
		$(ERE_SRCS)
ERE_TEST_DEPS = $(ERE_TEST_SRCS) $(ERE_HDRS) src/ere/tests/ere-test.h
src/ere/tests/ere-test: $(ERE_TEST_DEPS)
	$(CC) $(WARN) $(OPTIMIZE) $(CFLAGS) -Isrc -o src/ere/tests/ere-test \
	    $(ERE_TEST_SRCS) $(LDFLAGS)

# The same, its DFA cut to 2 states so that the NFA (src/ere/erenfa.c) takes
# every stream over as soon as it can.
src/ere/tests/ere-test-nfa: $(ERE_TEST_DEPS)
	$(CC) $(WARN) $(OPTIMIZE) $(CFLAGS) -DERE_TEST_NFA -Isrc \
	    -o src/ere/tests/ere-test-nfa $(ERE_TEST_SRCS) $(LDFLAGS)

# The same, the first literal and every second one searched for by a
# pair of their bytes (src/ere/pairscan.c) from the start, the others by a
# byte, where the table's short lines would have all searched by a byte.
src/ere/tests/ere-test-pairs: $(ERE_TEST_DEPS)
	$(CC) $(WARN) $(OPTIMIZE) $(CFLAGS) -DERE_PAIRS_ALWAYS -Isrc \
	    -o src/ere/tests/ere-test-pairs $(ERE_TEST_SRCS) $(LDFLAGS)

# The programs the suite runs besides retry: every target that runs the
# whole suite builds them all.
TEST_HELPERS = tests/helpers/wstatus tests/helpers/zombie-leader \
	       tests/helpers/guard-rules src/ere/tests/ere-test \
	       src/ere/tests/ere-test-nfa src/ere/tests/ere-test-pairs \
	       tests/helpers/pipe-size
test-helpers: $(TEST_HELPERS)

# The set-up commands: they install what is missing, then build.
demo:
	@sh build-aux/deps.sh build
	@$(MAKE) retry
	@sh build-aux/demo.sh
	@sh build-aux/deps.sh lacks

check:
	@sh build-aux/deps.sh check
	@$(MAKE) retry $(TEST_HELPERS)
	$(BATS) --jobs 2 $(TESTS)

# The core suites alone, with nothing installed: for other builds.
check-core: retry tests/helpers/wstatus
	$(BATS) --jobs 2 $(CORE_TESTS)

install: retry
	mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
	    $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) \
	    $(DESTDIR)$(FISHCOMPDIR)
	cp retry $(DESTDIR)$(BINDIR)/retry
	chmod 755 $(DESTDIR)$(BINDIR)/retry
	cp man/retry.1 $(DESTDIR)$(MANDIR)/man1/retry.1
	chmod 644 $(DESTDIR)$(MANDIR)/man1/retry.1
	cp completions/retry.bash $(DESTDIR)$(BASHCOMPDIR)/retry
	cp completions/_retry $(DESTDIR)$(ZSHCOMPDIR)/_retry
	cp completions/retry.fish $(DESTDIR)$(FISHCOMPDIR)/retry.fish

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/retry $(DESTDIR)$(MANDIR)/man1/retry.1 \
	    $(DESTDIR)$(BASHCOMPDIR)/retry $(DESTDIR)$(ZSHCOMPDIR)/_retry \
	    $(DESTDIR)$(FISHCOMPDIR)/retry.fish

clean:
	rm -f retry $(TEST_HELPERS) src/guard/guard-lua.h
	rm -rf build fuzz/out

.PHONY: all demo check check-core test-helpers install uninstall clean
