# mk/quality.mk: included by GNUmakefile (GNU make only); owned by the
# quality work.
#
# The quality gates.  Everything is built under build/, never
# over ./retry; the tools come from build-aux/packages-quality.txt.
#
#   make check-sanitize  the whole bats suite against retry built with
#                        ASan+LSan+UBSan (build/asan/retry)
#   make check-valgrind  part of the suite with retry under memcheck
#   make fuzz-ci         every libFuzzer harness for FUZZ_CI_TIME seconds
#   make fuzz            the same for FUZZ_TIME seconds, for developers
#   make analyze         cppcheck, clang-tidy, shellcheck, -Werror builds
#   make quality         all of the above but make fuzz
#
# Each sanitizer and valgrind gate first proves, with a canary program
# that has known errors, that it would catch one.

QUALITY_CC	?= clang
SAN_FLAGS	= -fsanitize=address,undefined -fno-omit-frame-pointer \
		  -fno-sanitize-recover=all
QUALITY_BUILD	= $(QUALITY_CC) $(WARN) -Werror $(ALL_CPPFLAGS) $(BSD_CFLAGS) \
		  $(HIREDIS_CFLAGS) $(OPENSSL_CFLAGS) $(WOLFSSL_CFLAGS)
# Every source file but the one with main(), for the fuzz harnesses.
LIB_SRCS	= $(filter-out src/retry.c,$(SRCS))

# --- ASan, LSan and UBSan -------------------------------------------------
build/asan/retry: $(SRCS) $(HDRS)
	@mkdir -p $(@D)
	$(QUALITY_BUILD) -g -O1 $(SAN_FLAGS) -o $@ $(SRCS) $(BSD_LIBS) \
	    $(HIREDIS_LIBS)

build/asan/quality-canary: tests/helpers/quality-canary.c
	@mkdir -p $(@D)
	$(QUALITY_CC) -g -O1 $(SAN_FLAGS) -o $@ tests/helpers/quality-canary.c

check-sanitize: build/asan/retry build/asan/quality-canary \
    $(TEST_HELPERS)
	sh build-aux/check-sanitize.sh $(CURDIR)/build/asan/retry \
	    $(CURDIR)/build/asan/quality-canary $(CURDIR)/build/asan/logs \
	    $(BATS) --jobs 2 $(TESTS)

# --- valgrind memcheck ----------------------------------------------------
# The part of the suite run under valgrind, which makes every start of
# retry about 0.4 s slower: the files that drive the attempt loop, the
# messages, the dry-run table, the text and JSON logs, the countdown
# line, the spools and the timeouts, that is most allocations and
# buffers, in about 90 s.  Left to check-sanitize, which runs the whole
# suite, and to the fuzzers: parsing (options, duration), which takes
# hundreds of starts.  Left out for what valgrind itself changes: the
# environment (environment.bats: it adds LD_PRELOAD and others), a failed
# exec of a script (policy.bats: the forked valgrind exits 101), SIGRTMAX,
# which valgrind keeps for itself (status, signals), and timing
# (sleeps.bats bounds a splay's wall time, start-up included, to 0.5 s;
# the process tree tests).  The budget, the breaker and their stores
# (budget, breaker, fleet) are in: the lock file and the Redis client
# parse and allocate; their herds shrink to 20 processes under valgrind.
VALGRIND_TESTS	?= $(wildcard tests/messages.bats tests/dryrun.bats \
		    tests/log*.bats tests/countdown.bats tests/spool*.bats \
		    tests/timeout.bats tests/budget.bats tests/breaker.bats \
		    tests/fleet.bats)

build/valgrind/retry: $(SRCS) $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(WARN) $(ALL_CPPFLAGS) $(BSD_CFLAGS) $(HIREDIS_CFLAGS) \
	    $(OPENSSL_CFLAGS) $(WOLFSSL_CFLAGS) -g -O1 -o $@ $(SRCS) \
	    $(BSD_LIBS) $(HIREDIS_LIBS)

build/valgrind/quality-canary: tests/helpers/quality-canary.c
	@mkdir -p $(@D)
	$(CC) -g -O0 -o $@ tests/helpers/quality-canary.c

check-valgrind: build/valgrind/retry build/valgrind/quality-canary \
    $(TEST_HELPERS)
	@test -n "$(VALGRIND_TESTS)" || { echo "no tests to run" >&2; exit 1; }
	sh build-aux/check-valgrind.sh $(CURDIR)/build/valgrind/quality-canary \
	    $(BATS) --jobs 2 $(VALGRIND_TESTS)

# --- libFuzzer ------------------------------------------------------------
# One harness per parser; each checks properties, not only crashes (see
# the comment at the top of each fuzz/NAME.c, and of src/ere/fuzz/ere-fuzz.c,
# the ERE library's own, kept beside it with its corpus and dictionary).
# fuzz-ci runs them two at a time: ten harnesses of FUZZ_CI_TIME seconds
# take five rounds.
FUZZERS		= duration outcomes signal jitter options http guard ere ere-nfa \
		  after
FUZZ_BINS	= $(FUZZERS:%=build/fuzz/%)
FUZZ_CI_TIME	?= 60
FUZZ_TIME	?= 900
FUZZ_JOBS	?= 2

build/fuzz/%: fuzz/%.c fuzz/fuzz.h $(LIB_SRCS) $(HDRS)
	@mkdir -p $(@D)
	$(QUALITY_BUILD) -Isrc -g -O1 -fsanitize=fuzzer $(SAN_FLAGS) \
	    $(FUZZ_DEFS) -o $@ $< $(LIB_SRCS) $(BSD_LIBS) $(HIREDIS_LIBS)

# The ERE harness twice: as retry runs it (the DFA, the literals' skips,
# the NFA where the DFA thrashes), and as ere-nfa with the DFA cut to 2
# states, so that the NFA (src/ere/erenfa.c) takes over every stream it can
# and the hand-overs between the two are fuzzed too (src/ere/ereprog.h).
# The first also samples pieces of any length to choose how the literals
# are searched for (src/ere/eredfa.c), so that its short subjects reach that
# choice; the second searches for the first literal and every second
# one by a pair of their bytes (src/ere/pairscan.c), the others by a byte.
# It is linked with the library's files alone: ere/ is a library.
ERE_FUZZ_BUILD	= $(QUALITY_CC) $(WARN) -Werror $(ALL_CPPFLAGS) -g -O1 \
		  -fsanitize=fuzzer $(SAN_FLAGS)
build/fuzz/ere: src/ere/fuzz/ere-fuzz.c $(ERE_SRCS) $(ERE_HDRS)
	@mkdir -p $(@D)
	$(ERE_FUZZ_BUILD) -DERE_SAMPLE_MIN=1 -o $@ src/ere/fuzz/ere-fuzz.c \
	    $(ERE_SRCS)
build/fuzz/ere-nfa: src/ere/fuzz/ere-fuzz.c $(ERE_SRCS) $(ERE_HDRS)
	@mkdir -p $(@D)
	$(ERE_FUZZ_BUILD) -DERE_TEST_NFA -DERE_PAIRS_ALWAYS -o $@ \
	    src/ere/fuzz/ere-fuzz.c $(ERE_SRCS)

fuzz-build: $(FUZZ_BINS)

fuzz-ci: $(FUZZ_BINS)
	bash build-aux/fuzz.sh $(FUZZ_CI_TIME) $(FUZZ_JOBS) build/fuzz \
	    fuzz/out $(FUZZERS)

fuzz: $(FUZZ_BINS)
	bash build-aux/fuzz.sh $(FUZZ_TIME) $(FUZZ_JOBS) build/fuzz \
	    fuzz/out $(FUZZERS)

# --- static analysis --------------------------------------------------------
# cppcheck: warning, style, performance and portability, plus unused
# functions (the whole program is checked at once), on the Linux build:
# cppcheck reads no system header, so the signal and fcntl macros that
# src/ tests with #ifdef are defined here.  Suppressed, each for a reason:
#   variableScope	KNF declares variables at the top of a function
#   redundantContinue	`continue;` is KNF's empty loop body
#   readdirCalled	readdir_r is deprecated; retry has one thread
#   missingIncludeSystem	system headers are not cppcheck's to read
#   clarifyCondition:src/guard/rediscmd.c  "ok = type == X" is the house's
#			idiom; it shows since HAVE_HIREDIS is defined (so that
#			the Redis and TLS code is checked at all)
#   knownConditionTrueFalse:src/text/duration.c  fraction_ns() is called only
#			with digits, which cppcheck cannot follow
#   unusedFunction:src/ere/erecomp.c  ere_exec() (where a match starts) serves
#			ere-test, the fuzzer and bench/, not retry
# clang-tidy: .clang-tidy lists the checks and why some are off;
# build-aux/analyze.sh runs it once per file (it says why).
CPPCHECK_FLAGS	= --std=c11 --enable=warning,style,performance,portability \
		  --enable=unusedFunction --library=posix --library=gnu \
		  --inline-suppr --error-exitcode=1 --quiet \
		  -D_GNU_SOURCE -D__linux__ -DHAVE_HIREDIS -DHAVE_OPENSSL \
		  -DHAVE_WOLFSSL \
		  -DSIGRTMIN=34 -DSIGRTMAX=64 \
		  -DSIGPOLL=29 -DSIGIO=29 -DSIGPWR=30 -DSIGSTKFLT=16 \
		  -DO_TMPFILE=020200000 -DF_SETPIPE_SZ=1031 -DF_OFD_SETLK=37 \
		  -Isrc \
		  --suppress=missingIncludeSystem --suppress=variableScope \
		  --suppress=redundantContinue --suppress=readdirCalled \
		  --suppress=knownConditionTrueFalse:src/text/duration.c \
		  --suppress=clarifyCondition:src/guard/rediscmd.c \
		  --suppress=unusedFunction:src/ere/erecomp.c
# -Werror builds with both compilers, with warnings beyond the Makefile's.
WERROR_WARN	= $(WARN) -Werror -Wshadow -Wstrict-prototypes \
		  -Wmissing-prototypes -Wformat=2 -Wcast-qual -Wwrite-strings \
		  -Wpointer-arith -Wundef -Wvla -Wnull-dereference \
		  -Wimplicit-fallthrough -D_FORTIFY_SOURCE=2

analyze: analyze-cppcheck analyze-tidy analyze-shellcheck analyze-werror

# The second run is the plain one that anyone can type, over the whole
# tree with its test and bench code: it must say nothing either.
analyze-cppcheck:
	cppcheck $(CPPCHECK_FLAGS) $(SRCS)
	cppcheck --quiet --enable=warning,portability --error-exitcode=1 \
	    -I src src

# The map of HACKING.md, the one-way rule between folders, the sizes.
lint: lint-layout
lint-layout:
	sh build-aux/check-layout.sh

analyze-tidy: src/guard/guard-lua.h
	sh build-aux/analyze.sh tidy $(SRCS) -- -std=c11 $(ALL_CPPFLAGS) \
	    $(BSD_CFLAGS) $(HIREDIS_CFLAGS) $(OPENSSL_CFLAGS) $(WOLFSSL_CFLAGS)

# Every shell script, found afresh each time: see build-aux/analyze.sh.
analyze-shellcheck:
	sh build-aux/analyze.sh shellcheck

analyze-werror:
	@mkdir -p build/werror
	for cc in gcc clang; do \
		echo "$$cc -Werror"; \
		$$cc $(WERROR_WARN) $(ALL_CPPFLAGS) $(BSD_CFLAGS) \
		    $(HIREDIS_CFLAGS) $(OPENSSL_CFLAGS) $(WOLFSSL_CFLAGS) -O2 -g \
		    -o build/werror/retry-$$cc \
		    $(SRCS) $(BSD_LIBS) $(HIREDIS_LIBS) || exit 1; \
	done

quality: analyze check-sanitize check-valgrind fuzz-ci

# What the gates build and find; fuzz/out keeps the corpora the fuzzers
# grew, so that the next `make fuzz` goes on from there.
quality-clean:
	rm -rf build/asan build/valgrind build/fuzz build/werror fuzz/out

.PHONY: check-sanitize check-valgrind fuzz fuzz-ci fuzz-build analyze \
	lint-layout \
	analyze-cppcheck analyze-tidy analyze-shellcheck analyze-werror \
	quality quality-clean
