# mk/docs.mk: included by the Makefile; owned by the docs work.
