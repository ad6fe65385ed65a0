# retry: see README.md.  `make` builds ./retry, `make check` runs the tests.

PREFIX	?= /usr/local
BINDIR	?= $(PREFIX)/bin
MANDIR	?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d

CC	?= cc
CFLAGS	?= -O2 -g
WARN	= -std=c11 -Wall -Wextra -Wpedantic
BSD_CFLAGS = `pkg-config --cflags libbsd-overlay`
# libbsd is linked statically: one shared library less to load makes
# start-up measurably cheaper (see bench/results.md).
BSD_LIBS   = -Wl,-Bstatic `pkg-config --static --libs-only-l libbsd-overlay` \
	     -Wl,-Bdynamic `pkg-config --libs-only-L libbsd-overlay`
ALL_CPPFLAGS = -D_GNU_SOURCE $(CPPFLAGS)

SRCS	= src/retry.c src/options.c src/parse.c src/backoff.c src/log.c \
	  src/format.c src/spool.c src/proc.c src/spawn.c src/leftovers.c \
	  src/match.c src/hooks.c src/signals.c src/fd.c src/clock.c \
	  src/jsonlog.c src/preset.c
HDRS	= src/internal.h
BATS	?= bats
TESTS	= tests

all: deps-build retry

retry: $(SRCS) $(HDRS)
	$(CC) $(WARN) $(ALL_CPPFLAGS) $(BSD_CFLAGS) $(CFLAGS) -o $@ $(SRCS) \
	    $(LDFLAGS) $(BSD_LIBS)

deps-build:
	@sh build-aux/deps.sh build

deps-check:
	@sh build-aux/deps.sh check

check: deps-check retry tests/helpers/wstatus
	$(BATS) --jobs 2 $(TESTS)

demo: all
	@sh build-aux/demo.sh

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
	rm -f retry tests/helpers/wstatus
	rm -rf build fuzz/out

.PHONY: all deps-build deps-check check demo install uninstall clean

tests/helpers/wstatus: tests/helpers/wstatus.c
	$(CC) -std=c11 -D_GNU_SOURCE -Wall -Wextra -O2 -o $@ tests/helpers/wstatus.c

include mk/docs.mk
include mk/quality.mk
include mk/bench.mk
