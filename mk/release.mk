# make dist: build/release/retry-backoff-VERSION.tar.gz, the source
# tarball of the commit checked out, the same bytes each time it is made
# from that commit (build-aux/dist.sh says how).
#
# make release: that tarball, and retry linked statically against musl
# for x86_64 and aarch64, stripped, as build/release/retry-VERSION-
# x86_64-linux-musl and retry-VERSION-aarch64-linux-musl, with
# build/release/SHA256SUMS over the three.  x86_64 is compiled with
# Debian's musl-gcc (musl-tools), aarch64 with `zig cc -target
# aarch64-linux-musl` (ZIG names the compiler, as for make cross-macos;
# build-aux/zig.sh installs the pinned one).  musl has no libbsd here:
# BSD_COMPAT=1 takes the BSD interfaces from src/os/compat.c.
# PKG_CONFIG=false: the host's hiredis is built for glibc, so redis://
# is refused with one line, and without OpenSSL headers for musl so is
# rediss:// (INSTALL.md, "The routes").

VERSION	= $(shell sed -n 's/^\#define RETRY_VERSION[	 ]*"\(.*\)"$$/\1/p' \
	  src/os/defs.h)
RELEASE_DIR = build/release
MUSL_CC	?= musl-gcc
RELEASE_TARGETS = x86_64-linux-musl aarch64-linux-musl
RELEASE_BINS = $(RELEASE_TARGETS:%=$(RELEASE_DIR)/retry-$(VERSION)-%)

dist:
	@sh build-aux/dist.sh $(RELEASE_DIR)

release: dist
	@command -v $(MUSL_CC) >/dev/null || { echo "make release: no" \
	    "$(MUSL_CC): apt-get install musl-tools" >&2; exit 1; }
	@command -v $(ZIG) >/dev/null || { echo "make release: no zig:" \
	    "make release ZIG=/path/to/zig (build-aux/zig.sh DIR" \
	    "installs the pinned one)" >&2; exit 1; }
	rm -f $(RELEASE_BINS) $(RELEASE_DIR)/SHA256SUMS
	$(MAKE) --no-print-directory BSD_COMPAT=1 PKG_CONFIG=false \
	    CC="$(MUSL_CC)" LDFLAGS="-static -s" \
	    PROG=$(RELEASE_DIR)/retry-$(VERSION)-x86_64-linux-musl \
	    $(RELEASE_DIR)/retry-$(VERSION)-x86_64-linux-musl
	$(MAKE) --no-print-directory BSD_COMPAT=1 PKG_CONFIG=false \
	    CC="$(ZIG) cc -target aarch64-linux-musl" LDFLAGS="-static -s" \
	    PROG=$(RELEASE_DIR)/retry-$(VERSION)-aarch64-linux-musl \
	    $(RELEASE_DIR)/retry-$(VERSION)-aarch64-linux-musl
	@for b in $(RELEASE_BINS); do \
	    if readelf -l $$b | grep -q INTERP || \
		readelf -d $$b | grep -q NEEDED; then \
		echo "make release: $$b is not static" >&2; exit 1; fi; \
	done
	cd $(RELEASE_DIR) && sha256sum retry-backoff-$(VERSION).tar.gz \
	    $(RELEASE_BINS:$(RELEASE_DIR)/%=%) >SHA256SUMS
	@ls -l $(RELEASE_DIR)

.PHONY: dist release
