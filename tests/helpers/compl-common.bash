# Shared by completion.bats and consistency.bats: asks a shell's real
# completion what it offers on a command line, and compares the answer.
# shellcheck shell=bash

# require_completion SHELL: the test needs SHELL and its completion
# system (bash's is bash-completion); see require_tool.
require_completion() {
	require_tool "$1"
	[[ $1 != bash ]] || require_tool bash-completion
}

# For setup_file: one compinit dump for the zsh runs of a test file, made
# before any of its tests starts (compl-zsh then reads it).
make_zsh_dump() {
	command -v zsh >/dev/null 2>&1 || return 0
	COMPL_ZSH_DUMP=$BATS_FILE_TMPDIR/zcompdump
	export COMPL_ZSH_DUMP
	# shellcheck disable=SC2016 # zsh expands $1 and $fpath
	zsh -fc 'fpath=($1 $fpath); autoload -Uz compinit
	    compinit -u -d $2' zsh "$ROOT/completions" "$COMPL_ZSH_DUMP"
}

# A command "fakecmd" on $PATH with a completion of its own in each shell:
# words alpha, beta and gamma, options --fake-one and --fake-two.
make_fake_command() {
	mkdir -p "$WORK/bin"
	printf '#!/bin/sh\nexit 0\n' >"$WORK/bin/fakecmd"
	chmod +x "$WORK/bin/fakecmd"
	PATH=$WORK/bin:$PATH
	cat >"$WORK/fake.bash" <<'EOS'
_fakecmd() {
	local w='alpha beta gamma'
	[[ $2 == -* ]] && w='--fake-one --fake-two'
	mapfile -t COMPREPLY < <(compgen -W "$w" -- "$2")
}
complete -F _fakecmd fakecmd
EOS
	cat >"$WORK/fake.zsh" <<'EOS'
_fakecmd() { _arguments --fake-one --fake-two '*:word:(alpha beta gamma)'; }
compdef _fakecmd fakecmd
EOS
	cat >"$WORK/fake.fish" <<'EOS'
complete -c fakecmd -f -a 'alpha beta gamma'
complete -c fakecmd -l fake-one
complete -c fakecmd -l fake-two
EOS
}

# complete SHELL LINE: what SHELL offers for Tab at the end of LINE, one a
# line in $output and ${lines[@]}.  The harness must succeed, silently.
# shellcheck disable=SC2154 # run sets stderr
complete_in() {
	local setup=()

	[[ -f $WORK/fake.$1 ]] && setup=(-s "$WORK/fake.$1")
	run -0 --separate-stderr "$ROOT/tests/helpers/compl-$1" "${setup[@]}" \
	    "$2"
	if [[ -n $stderr ]]; then
		printf '%s: unexpected stderr: %s\n' "$1" "$stderr" >&2
		return 1
	fi
}

# The words offered, sorted and without duplicates, one a line.
# shellcheck disable=SC2154 # run sets lines and stderr
offered() {
	printf '%s\n' "${lines[@]}" | sed 's/ *$//' | LC_ALL=C sort -u
}

# expect_exactly WORD...: the completion offered these words, no others.
expect_exactly() {
	local want
	want=$(printf '%s\n' "$@" | LC_ALL=C sort -u)
	if [[ $(offered) != "$want" ]]; then
		diff -u <(printf '%s\n' "$want") <(offered) | sed 1,2d >&2
		return 1
	fi
}

# expect_includes WORD...: each of these was offered.
expect_includes() {
	local w got
	got=$(offered)
	for w; do
		if ! grep -qxF -- "$w" <<<"$got"; then
			printf 'not offered: %s\nbut: %s\n' "$w" "$got" >&2
			return 1
		fi
	done
}

# expect_excludes WORD...: none of these was offered.
expect_excludes() {
	local w got
	got=$(offered)
	for w; do
		if grep -qxF -- "$w" <<<"$got"; then
			printf 'offered anyway: %s\n' "$w" >&2
			return 1
		fi
	done
}
