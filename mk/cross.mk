# make cross-macos: retry compiled and linked for macOS, x86_64 and arm64,
# with Zig's C compiler, which carries the headers and the libSystem
# stubs of the macOS 11, 12 and 13 SDKs.  Each build is the Makefile's own
# rule, with the flags of `make PORTABLE=1` and -Werror: what a Mac user
# who types `make PORTABLE=1` compiles.  The programs are not run.
#
# PKG_CONFIG=false: the host's pkg-config describes Linux libraries, not
# macOS ones.  macOS's libc has the BSD interfaces (build-aux/libbsd.sh
# finds that no flag is needed) and hiredis is left out.  ZIG names the
# compiler (CI installs it from the npm registry: .ci/run).

ZIG	?= zig
MACOS_TARGETS = x86_64-macos aarch64-macos

cross-macos:
	@for t in $(MACOS_TARGETS); do \
	    mkdir -p build/$$t && \
	    $(MAKE) --no-print-directory PORTABLE=1 PKG_CONFIG=false \
		CC="$(ZIG) cc -target $$t" CFLAGS="$(CFLAGS) -Werror" \
		PROG=build/$$t/retry build/$$t/retry || exit 1; \
	done

.PHONY: cross-macos
