# bash completion for retry(1)                             -*- shell-script -*-
# shellcheck shell=bash
#
# Completes retry's options and their fixed values, then hands the wrapped
# command (the first word that is not an option, or the word after --) over
# to that command's own completion with bash-completion's _command_offset.

# The option table, as in `retry --help`: long names ending in = take a value.
_retry_longopts=(attempts= base= factor= cap= jitter= splay= seed= retry-on=
	stop-on= success-on= timeout= signal= kill-after= max-time= foreground
	replay-stdin hold-stdout dry-run log-format= log-file= quiet verbose help
	version success-if-output= stop-if-output= retry-if-output= on-retry=
	on-give-up= reset-after= http= budget= breaker= json-log= preset=
	until-failure stall-timeout= delays= failed-output= log-on-failure
	guard-status guard-reset success-if-stdout= success-if-stderr=
	stop-if-stdout= stop-if-stderr= retry-if-stdout= retry-if-stderr=
	fixed-strings hold-stderr failed-stderr= metrics-file=
	exhausted-status=)
_retry_shortopts=(n= b= f= c= j= r= x= t= s= k= m= S= E F I O q v h V)
declare -gA _retry_short_long=([n]=attempts [b]=base [f]=factor [c]=cap
	[j]=jitter [r]=retry-on [x]=stop-on [t]=timeout [s]=signal
	[k]=kill-after [m]=max-time [S]=stall-timeout)
# The signal names retry accepts, less the aliases IOT and POLL.
_retry_signals=(HUP INT QUIT ILL TRAP ABRT BUS FPE KILL USR1 SEGV USR2 PIPE
	ALRM TERM STKFLT CHLD CONT STOP TSTP TTIN TTOU URG XCPU XFSZ VTALRM PROF
	WINCH IO PWR SYS RTMIN RTMAX)

# Sets _opt to the long option that $1 (--name) spells out or abbreviates
# without ambiguity, as getopt_long(3) reads it; with a trailing = when the
# option takes a value.  Empty when retry would reject the word.
_retry_resolve_long()
{
	local name=${1#--} o
	local -a hits=()

	_opt=
	for o in "${_retry_longopts[@]}"; do
		if [[ ${o%=} == "$name" ]]; then
			_opt=$o
			return
		fi
		[[ $o == "$name"* ]] && hits+=("$o")
	done
	((${#hits[@]} == 1)) && _opt=${hits[0]}
}

# COMP_WORDS splits words at = and :, and _command_offset counts in those
# pieces.  Glues the pieces back into shell words, up to the cursor: _words
# gets the words, _first the index in COMP_WORDS where each starts, _cw the
# word under the cursor and _tok the text of the piece under the cursor.
_retry_glue()
{
	local line=${COMP_LINE:0:COMP_POINT} rest i j=-1 tok

	_words=() _first=()
	for ((i = 0; i <= COMP_CWORD && i < ${#COMP_WORDS[@]}; i++)); do
		tok=${COMP_WORDS[i]}
		rest=${line#"${line%%[![:blank:]]*}"}
		((i == COMP_CWORD)) && tok=$rest
		if ((j < 0)) || [[ $rest != "$line" || $rest != "$tok"* ]]; then
			_first[++j]=$i
			_words[j]=
		fi
		_words[j]+=$tok
		line=${rest#*"$tok"}
	done
	_cw=$j
	_tok=$tok
}

# Walks the words before the cursor as getopt_long(3) with "+" would.  Sets
# _cmd to the word where the command starts, or _opt to the option whose
# value is under the cursor; neither when the cursor is on an option or on
# the first word of the command.
_retry_scan()
{
	local i w c p

	_cmd='' _opt=''
	for ((i = 1; i < _cw; i++)); do
		w=${_words[i]}
		case $w in
		--)
			_cmd=$((i + 1))
			return
			;;
		--*=*) ;;
		--*)
			_retry_resolve_long "$w"
			if [[ $_opt == *= ]]; then
				((++i == _cw)) && return
			fi
			_opt=
			;;
		-?*)
			for ((p = 1; p < ${#w}; p++)); do
				c=${w:p:1}
				[[ -n ${_retry_short_long[$c]-} ]] || continue
				if ((p == ${#w} - 1)); then
					_opt=${_retry_short_long[$c]}=
					((++i == _cw)) && return
					_opt=
				fi
				break
			done
			;;
		*)
			_cmd=$i
			return
			;;
		esac
	done
}

# Prints the signal names that complete $1, in the case it is typed in and
# with its SIG prefix if any; with $2, also "timeout" (a LIST item).
_retry_signal_names()
{
	local item=$1 sig='' name
	local -a names=("${_retry_signals[@]}")

	if [[ $item == [Ss][Ii][Gg]* ]]; then
		sig=${item:0:3}
		item=${item:3}
	elif [[ -n ${2-} ]]; then
		names+=(timeout)
	fi
	if [[ $item$sig == *[[:lower:]]* ]]; then
		names=("${names[@],,}")
	fi
	for name in "${names[@]}"; do
		[[ $sig$name == "$1"* ]] && printf '%s\n' "$sig$name"
	done
}

# Sets _vals to the completions of the value $2 of option $1 (long name).
_retry_values()
{
	local val=$2 head=

	_vals=()
	case ${1%=} in
	attempts | kill-after)
		mapfile -t _vals < <(compgen -W inf -- "$val")
		;;
	jitter)
		mapfile -t _vals < <(compgen -W 'none full equal decorrelated' \
		    -- "$val")
		;;
	log-format)
		mapfile -t _vals < <(compgen -W 'text json github' -- "$val")
		;;
	preset)
		mapfile -t _vals < <(compgen -W 'aws aws-throttle aws-dynamodb
		    aws-legacy google-http google-drive simpledb airflow
		    kubernetes ethernet list' -- "$val")
		;;
	signal)
		mapfile -t _vals < <(_retry_signal_names "$val")
		;;
	retry-on | stop-on | success-on)
		[[ $val == *,* ]] && head=${val%,*},
		mapfile -t _vals < <(_retry_signal_names "${val##*,}" list)
		_vals=("${_vals[@]/#/$head}")
		;;
	failed-output | failed-stderr)
		mapfile -t _vals < <(compgen -W 'stderr drop' -- "$val")
		if declare -F _filedir >/dev/null; then
			# shellcheck disable=SC2034 # _filedir reads cur
			local cur=$val
			_filedir
			_vals+=("${COMPREPLY[@]}")
		fi
		;;
	log-file | http | json-log | metrics-file)
		if declare -F _filedir >/dev/null; then
			# shellcheck disable=SC2034 # _filedir reads cur
			local cur=$val
			_filedir
			_vals=("${COMPREPLY[@]}")
		else
			compopt -o filenames 2>/dev/null
			mapfile -t _vals < <(compgen -f -- "$val")
		fi
		;;
	esac
}

# The completions of the word under the cursor when it begins with a dash.
_retry_dash_word()
{
	local w=${_words[_cw]} p c

	case $w in
	--*=*)
		_retry_resolve_long "${w%%=*}"
		[[ $_opt == *= ]] && _retry_values "$_opt" "${w#*=}"
		_vals=("${_vals[@]/#/${w%%=*}=}")
		;;
	--* | -)
		local -a all=("${_retry_longopts[@]/#/--}")
		[[ $w == - ]] && all+=("${_retry_shortopts[@]/#/-}")
		_vals=()
		for c in "${all[@]}"; do
			[[ $w == - && $c == -?= ]] && c=${c%=}
			[[ $c == "$w"* ]] && _vals+=("$c")
		done
		;;
	*)
		# A bundle of short options, maybe ending in a glued value.
		_vals=("$w")
		for ((p = 1; p < ${#w}; p++)); do
			c=${w:p:1}
			[[ -n ${_retry_short_long[$c]-} ]] || continue
			((p < ${#w} - 1)) || break
			_retry_values "${_retry_short_long[$c]}" "${w:p+1}"
			_vals=("${_vals[@]/#/${w:0:p+1}}")
			break
		done
		;;
	esac
}

_retry()
{
	local _cw _tok _cmd _opt pre c
	local -a _words _first _vals

	COMPREPLY=()
	_retry_glue
	_retry_scan
	if [[ -z $_cmd && -z $_opt && ${_words[_cw]} != -* ]]; then
		_cmd=$_cw
	fi
	if [[ -n $_cmd ]]; then
		if declare -F _command_offset >/dev/null; then
			_command_offset "${_first[_cmd]}"
		elif ((_cmd == _cw)); then
			mapfile -t COMPREPLY < <(compgen -c -- "${_words[_cw]}")
		fi
		return
	fi
	if [[ -n $_opt ]]; then
		_retry_values "$_opt" "${_words[_cw]}"
	else
		_retry_dash_word
	fi
	# Readline replaces only the text after the last word break (= or :).
	pre=${_words[_cw]}
	[[ $_tok == *[!=:]* ]] && pre=${pre%"$_tok"}
	COMPREPLY=()
	for c in "${_vals[@]}"; do
		[[ $c == "$pre"* ]] && COMPREPLY+=("${c#"$pre"}")
	done
	if [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]]; then
		compopt -o nospace
	fi
	return 0
}

complete -F _retry retry
