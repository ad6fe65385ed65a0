# make static: build/static/retry, a fully static retry (no program
# interpreter, no shared library) to copy into a container image, as one
# does with tini or gosu.  CI runs it in an empty root that holds nothing
# but it and busybox (build-aux/ci-static.sh).
#
# It is linked with glibc, libbsd.a (and libmd.a) and, where installed,
# libhiredis.a.  The musl build is make release's (mk/release.mk), with
# src/os/compat.c for the BSD interfaces and without hiredis, whose
# Debian archive is built for glibc.  glibc's static caveat is name
# resolution: see INSTALL.md, "A static binary".

STATIC_DIR = build/static

static: $(STATIC_DIR)/retry

# make static-arm64: build/arm64/retry, the same for arm64 (aarch64)
# (not in CI, whose arm64 build is make release's musl one),
# cross-built with Debian's gcc-aarch64-linux-gnu and the arm64 libbsd
# and libmd of Debian's arm64 architecture (build-aux/arm64-packages.txt;
# `sh build-aux/deps.sh packages build-aux/arm64-packages.txt` installs
# them, removing gcc-multilib, which conflicts).  pkg-config is pointed at
# the arm64 libraries; no arm64 hiredis is found, so redis:// is left out.
ARM64_CC = aarch64-linux-gnu-gcc
ARM64_PKG_CONFIG_LIBDIR = /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig

static-arm64:
	@command -v $(ARM64_CC) >/dev/null || { echo "make static-arm64:" \
	    "no $(ARM64_CC): sh build-aux/deps.sh packages" \
	    "build-aux/arm64-packages.txt installs it" >&2; exit 1; }
	PKG_CONFIG_LIBDIR=$(ARM64_PKG_CONFIG_LIBDIR) $(MAKE) static \
	    CC=$(ARM64_CC) STATIC_DIR=build/arm64

$(STATIC_DIR)/retry: $(SRCS) $(HDRS)
	@$(LIBBSD) check $(CC) $(CFLAGS) $(LDFLAGS)
	@mkdir -p $(STATIC_DIR)
	$(CC) $(WARN) $(ALL_CPPFLAGS) \
	    `$(PKG_CONFIG) --cflags libbsd-overlay` $(HIREDIS_CFLAGS) \
	    $(OPTIMIZE) $(CFLAGS) -static -o $@ $(SRCS) $(LDFLAGS) \
	    `$(PKG_CONFIG) --static --libs libbsd-overlay` $(HIREDIS_LIBS)
	@if readelf -l $@ | grep -q INTERP || readelf -d $@ | grep -q NEEDED; \
	then echo "make static: $@ is not static" >&2; rm -f $@; exit 1; fi

.PHONY: static static-arm64
