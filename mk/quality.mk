# mk/quality.mk: included by the Makefile; owned by the quality work.
