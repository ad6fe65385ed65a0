# Sourced by the interactive zsh that compl-zsh drives: records in
# $compl_out every match that the completion system adds.

# The compadd options that take a value, in the same word or the next.
compl_valued=PSpsiIWdJVXxrRMFEOAD

compadd() {
	local -a compl_m
	local -i i=1 j record=1
	local a

	# Matches computed into an array (-O, -A, -D) are not added: only
	# record what is really added.
	while (( i <= $# )); do
		a=${argv[i]}
		[[ $a == -?* && $a != -- ]] || break
		for ((j = 2; j <= $#a; j++)); do
			[[ ${a[j]} == [OAD] ]] && record=0
			[[ ${a[j]} == o ]] && break
			if [[ $compl_valued == *${a[j]}* ]]; then
				(( j == $#a )) && (( i++ ))
				break
			fi
		done
		(( i++ ))
	done
	if (( record )); then
		builtin compadd -O compl_m "$@"
		(( $#compl_m )) && print -rl -- $compl_m >>$compl_out
	fi
	builtin compadd "$@"
}

compl-tab() {
	zle complete-word
	print done >$compl_done
}
zle -N compl-tab
bindkey '^T' compl-tab
