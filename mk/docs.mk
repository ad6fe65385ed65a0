# mk/docs.mk: included by GNUmakefile (GNU make only); owned by the
# docs work.
#
# `make lint` checks the man page with mandoc(1): any message at the
# warning level or above fails it.  mandoc's exit status alone is not
# enough, since it is 0 for some messages, so the output is checked too.
# Other lint joins by adding its own prerequisite to `lint`.
#
# `make check-docs` runs the command of each transcript in README.md and
# man/retry.1 again (build-aux/check-docs.py says which and how) and fails
# when what it prints, times and random draws masked, is not what the
# document shows.  It needs curl and python3 (the HTTP transcript runs
# against tests/helpers/http-server on 127.0.0.1).

MANPAGE	= man/retry.1

lint: lint-man

lint-man:
	@out=$$(mandoc -Tlint -Wwarning $(MANPAGE) 2>&1); st=$$?; \
	if [ $$st -ne 0 ] || [ -n "$$out" ]; then \
		printf '%s\n' "$$out" >&2; \
		echo "lint-man: mandoc -Tlint -Wwarning $(MANPAGE) failed" >&2; \
		exit 1; \
	fi

check-docs: retry
	python3 build-aux/check-docs.py

.PHONY: lint lint-man check-docs
