# mk/docs.mk: included by GNUmakefile (GNU make only); owned by the
# docs work.
#
# `make lint` checks the man page with mandoc(1): any message at the
# warning level or above fails it.  mandoc's exit status alone is not
# enough, since it is 0 for some messages, so the output is checked too.
# Other lint joins by adding its own prerequisite to `lint`.

MANPAGE	= man/retry.1

lint: lint-man

lint-man:
	@out=$$(mandoc -Tlint -Wwarning $(MANPAGE) 2>&1); st=$$?; \
	if [ $$st -ne 0 ] || [ -n "$$out" ]; then \
		printf '%s\n' "$$out" >&2; \
		echo "lint-man: mandoc -Tlint -Wwarning $(MANPAGE) failed" >&2; \
		exit 1; \
	fi

.PHONY: lint lint-man
