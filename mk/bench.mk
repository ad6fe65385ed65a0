# mk/bench.mk: included by GNUmakefile (GNU make only); owned by the
# bench work.
#
# make bench: the benchmark suite (bench/run.sh, the full run).  It
# writes the raw tables to bench/raw/, renders them (bench/render.sh) into
# bench/raw/tables.md and bench/herd.png, and prints a summary; targets are
# reported, not enforced; bench/results.md, the prose, is written by hand.
# Not part of make check.  BENCH_QUICK=1 makes a short smoke run.

bench: all
	bash bench/run.sh

# make bench-tls: what a rediss:// guard costs a run, next to redis://
# and none, and the herd through redis://, rediss:// and a Redis Cluster
# (bench/tls.sh; needs redis-server, openssl, valgrind); make bench runs
# it last.
bench-tls: all
	bash bench/tls.sh

.PHONY: bench bench-tls

# make bench-matcher: the output conditions' matcher against issue 27's
# targets (src/ere/bench/matcher.sh): throughput beside cat | cat and
# grep -E -c, one long line, TERM while matching.  Reported, never
# enforced.
bench-matcher: retry
	bash src/ere/bench/matcher.sh

.PHONY: bench-matcher
