# mk/bench.mk: included by the Makefile; owned by the bench work.
