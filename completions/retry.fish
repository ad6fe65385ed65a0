# fish completion for retry(1).  Completes the options of `retry --help` and
# their fixed values; the first word that is not an option (or the word
# after --) starts the wrapped command, whose own completion takes over.

# The signal names retry accepts, less the aliases IOT and POLL.
set -g __fish_retry_signals HUP INT QUIT ILL TRAP ABRT BUS FPE KILL USR1 SEGV \
    USR2 PIPE ALRM TERM STKFLT CHLD CONT STOP TSTP TTIN TTOU URG XCPU XFSZ \
    VTALRM PROF WINCH IO PWR SYS RTMIN RTMAX
set -g __fish_retry_valued attempts base factor cap jitter splay seed \
    retry-on stop-on success-on timeout signal kill-after max-time \
    log-format log-file success-if-output stop-if-output retry-if-output \
    on-retry on-give-up reset-after http budget breaker json-log preset \
    stall-timeout delays failed-output success-if-stdout success-if-stderr \
    stop-if-stdout stop-if-stderr retry-if-stdout retry-if-stderr failed-stderr \
    metrics-file exhausted-status
set -g __fish_retry_flags foreground replay-stdin hold-stdout dry-run quiet \
    verbose help version until-failure log-on-failure guard-status \
    guard-reset hold-stderr fixed-strings

# Whether the option word $argv[1] (--name, maybe abbreviated as
# getopt_long(3) allows) takes a value in the next word.
function __fish_retry_long_valued
    set -l name (string replace -r -- '^--' '' $argv[1])
    contains -- $name $__fish_retry_valued; and return 0
    contains -- $name $__fish_retry_flags; and return 1
    set -l hits (string match -- "$name*" $__fish_retry_valued $__fish_retry_flags)
    test (count $hits) -eq 1; and contains -- $hits $__fish_retry_valued
end

# Prints the words of the wrapped command before the cursor and succeeds
# once the words before the cursor reach it, as retry's getopt "+" reads
# them; prints nothing when the cursor is on the command's name.
function __fish_retry_command
    set -l words (commandline -opc)
    set -e words[1]
    while set -q words[1]
        switch $words[1]
            case --
                set -e words[1]
                string escape -- $words
                return 0
            case '--*=*'
            case '--*'
                if __fish_retry_long_valued $words[1]
                    set -e words[1]
                end
            case '-?*'
                # A bundle: the first option that takes a value ends it,
                # with the value glued on or in the next word.
                set -l opts (string sub -s 2 -- $words[1])
                set -l valued (string match -r -- '[nbfcjrxtskmS].*' $opts)
                if test (string length -- "$valued") -eq 1
                    set -e words[1]
                end
            case '*'
                string escape -- $words
                return 0
        end
        set -e words[1]
    end
    return 1
end

# The wrapped command's own completions, or command names on its first word.
function __fish_retry_complete_command
    set -l words (__fish_retry_command)
    if set -q words[1]
        complete -C (string join ' ' -- $words (commandline -ct))
    else
        __fish_complete_command
    end
end

# Signal names, in the case they are typed in and with a SIG prefix if the
# word has one; with an argument, also timeout (a LIST item).
function __fish_retry_signal_names
    set -l value (string replace -r -- '^--[^=]*=' '' (commandline -ct))
    set -l item (string replace -r -- '^.*,' '' $value)
    set -l head (string match -r -- '^.*,' $value)
    set -l sig (string match -ri -- '^sig' $item)
    set -l names $__fish_retry_signals
    if test -z "$sig"; and set -q argv[1]
        set -a names timeout
    end
    if string match -qr -- '[a-z]' $item
        set names (string lower -- $names)
    end
    printf '%s\n' "$head$sig"$names
end

complete -c retry -f
complete -c retry -a '(__fish_retry_complete_command)'

# Options, only before the command.
set -l opt -c retry -n 'not __fish_retry_command'
complete $opt -s n -l attempts -x -a inf -d 'total runs, the first included, or inf'
complete $opt -s b -l base -x -d 'the first backoff window'
complete $opt -s f -l factor -x -d 'growth of the window per retry, >= 1'
complete $opt -s c -l cap -x -d 'no sleep exceeds it'
complete $opt -s j -l jitter -x -a 'none full equal decorrelated' -d 'jitter mode (or A..B or +DURATION)'
complete $opt -l splay -x -d 'random wait before the first attempt'
complete $opt -l seed -x -d 'make every random draw reproducible'
complete $opt -s r -l retry-on -x -a '(__fish_retry_signal_names list)' -d 'outcomes that are retried'
complete $opt -s x -l stop-on -x -a '(__fish_retry_signal_names list)' -d 'outcomes never retried; wins over -r'
complete $opt -l success-on -x -a '(__fish_retry_signal_names list)' -d 'outcomes that count as success'
complete $opt -l success-if-output -x -d 'a line of output matching ERE: success'
complete $opt -l stop-if-output -x -d 'a matching line: not retried'
complete $opt -l retry-if-output -x -d 'a matching line: retried, whatever the status'
complete $opt -l success-if-stdout -x -d 'a line of stdout matching ERE: success'
complete $opt -l success-if-stderr -x -d 'a line of stderr matching ERE: success'
complete $opt -l stop-if-stdout -x -d 'a matching line of stdout: not retried'
complete $opt -l stop-if-stderr -x -d 'a matching line of stderr: not retried'
complete $opt -l retry-if-stdout -x -d 'a matching line of stdout: retried'
complete $opt -l retry-if-stderr -x -d 'a matching line of stderr: retried'
complete $opt -s F -l fixed-strings -d 'each output condition is a literal string'
complete $opt -l reset-after -x -d 'an attempt that ran this long restarts the schedule'
complete $opt -l on-retry -x -d 'run after a failed attempt, before the sleep'
complete $opt -l on-give-up -x -d 'run once when retry gives up'
complete $opt -s t -l timeout -x -d 'limit for each attempt, 0 for none'
complete $opt -s s -l signal -x -a '(__fish_retry_signal_names)' -d 'signal sent when an attempt times out'
complete $opt -s k -l kill-after -x -a inf -d 'then SIGKILL after this long, or inf'
complete $opt -s m -l max-time -x -d 'limit for the whole run, 0 for none'
complete $opt -l delays -x -d 'the waits before each retry, the last repeated'
complete $opt -s S -l stall-timeout -x -d 'end an attempt silent this long, 0 for none'
complete $opt -l foreground -d "leave the command in the caller's process group"
complete $opt -l until-failure -d 'run again after each success, until the first failure'
complete $opt -l exhausted-status -x -d 'exit status when giving up on an outcome that would be retried'
complete $opt -s I -l replay-stdin -d 'give every attempt the same standard input'
complete $opt -s O -l hold-stdout -d "pass on only the final attempt's standard output"
complete $opt -l failed-output -r -F -a 'stderr drop' -d "where a failed attempt's held stdout goes (sets -O)"
complete $opt -s E -l hold-stderr -d "pass on only the final attempt's standard error"
complete $opt -l failed-stderr -r -F -a 'drop stderr' -d "where a failed attempt's held stderr goes (sets -E)"
complete $opt -l log-on-failure -d 'keep the messages; write them only if the run fails'
complete $opt -l dry-run -d 'print the schedule and run nothing'
complete $opt -l log-format -x -a 'text json github' -d 'format of the progress messages'
complete $opt -l log-file -r -F -d 'write progress messages there'
complete $opt -l http -r -F -d "read the command's HTTP response head from this file"
complete $opt -l budget -x -d 'a retry budget shared by every retry that names it'
complete $opt -l breaker -x -d 'stop running the command for a cooldown after N failed runs'
complete $opt -l guard-status -d "show the budget's and breaker's state, run nothing"
complete $opt -l guard-reset -d 'refill the budget, close the breaker, and show'
complete $opt -l json-log -r -F -d 'also append the JSON log there'
complete $opt -l metrics-file -r -F -d 'write Prometheus metrics there at the end'
complete $opt -l preset -x -a 'aws aws-throttle aws-dynamodb aws-legacy google-http google-drive simpledb airflow kubernetes ethernet list' -d "a known system's schedule, or list"
complete $opt -s q -l quiet -d 'no progress messages, errors only'
complete $opt -s v -l verbose -d "also report the splay, each attempt's start and end"
complete $opt -s h -l help -d 'show the help and exit'
complete $opt -s V -l version -d 'show the version and exit'
