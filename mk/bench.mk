# mk/bench.mk: included by GNUmakefile (GNU make only); owned by the
# bench work.
#
# make bench: the benchmark suite (bench/run.sh).  It
# writes bench/results.md, bench/herd.png and bench/raw/, and prints a
# summary; targets are reported, not enforced.  Not part of make check.
# BENCH_QUICK=1 makes a short smoke run.

bench: all
	bash bench/run.sh

.PHONY: bench
