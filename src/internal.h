/*
 * internal.h: the one internal header.  It holds the configuration that the
 * option parser fills in, the schedule and the random source, the outcome
 * of one attempt, and the entry points of every source file, grouped by
 * file in the order in which calls run: from retry.c down to the leaves.
 */
#ifndef INTERNAL_H
#define INTERNAL_H

#include <sys/types.h>

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#define RETRY_VERSION	"1.0.0"

/* Exit statuses, named as GNU and FreeBSD timeout(1) name them. */
#define EXIT_TIMEDOUT		124	/* an attempt ran out of time */
#define EXIT_CANCELED		125	/* retry's own error */
#define EXIT_CANNOT_INVOKE	126	/* the command cannot be executed */
#define EXIT_ENOENT		127	/* the command was not found */
#define EXIT_KILLED		137	/* timed out and needed SIGKILL */
#define EXIT_TEMPFAIL		75	/* EX_TEMPFAIL: the breaker is open */

typedef int64_t nsec_t;

#define NSEC_PER_MSEC	INT64_C(1000000)
#define NSEC_PER_SEC	INT64_C(1000000000)
#define DURATION_MAX	(INT64_C(3155760000) * NSEC_PER_SEC)	/* 100 years */
#define NSEC_INF	INT64_MAX	/* "never", as in --kill-after=inf */

#define DRYRUN_UNLIMITED_ROWS	20
#define PATH_MAX_GUARD	4096	/* a state file's path, or a Redis URL */

enum jitter_kind {
	JITTER_NONE,
	JITTER_FULL,
	JITTER_EQUAL,
	JITTER_DECORRELATED,
	JITTER_RANGE,		/* w * U(lo, hi) */
	JITTER_ADD,		/* w + U(0, add) */
	JITTER_STEPS		/* w * U(lo, lo + 1) in whole steps of add */
};

struct jitter {
	enum jitter_kind kind;
	double		lo, hi;
	nsec_t		add;
};

struct schedule {
	nsec_t		base;
	nsec_t		cap;
	double		factor;
	struct jitter	jitter;
	nsec_t		splay;
	bool		cap_window;	/* cap the window only, not the jitter */
	bool		first_now;	/* the first retry comes at once */
};

/* xoshiro256** state; seeded from --seed or, lazily, from arc4random. */
struct rng {
	uint64_t	s[4];
	bool		ready;
	bool		seeded;
	uint64_t	seed;
};

struct backoff {
	const struct schedule *sched;
	struct rng	rng;
	nsec_t		prev;	/* previous draw, for decorrelated jitter */
};

/*
 * Sets of outcomes: exit codes 0-255, signals 1-127 and "timeout", and
 * the HTTP statuses of --http (200-599, as bits 0-639).
 */
#define HTTP_STATUS_MIN	200	/* a final status: 1xx are interim */
#define HTTP_STATUS_MAX	599
struct outcome_set {
	uint64_t	exits[4];
	uint64_t	signals[2];
	bool		timeout;
	uint64_t	http[10];
};

enum log_format {
	LOG_TEXT,
	LOG_JSON,
	LOG_GITHUB		/* GitHub Actions workflow commands */
};

/* The output conditions, strongest first. */
enum match_kind {
	MATCH_SUCCESS,
	MATCH_STOP,
	MATCH_RETRY,
	MATCH_KINDS
};
#define OUTPUT_RULES_MAX	16	/* of each kind */
struct match_rules {
	const char	*output[MATCH_KINDS][OUTPUT_RULES_MAX];	/* EREs */
	int		 noutput[MATCH_KINDS];
};

/*
 * --budget and --breaker: a name, the Redis server that keeps the state
 * (host empty: a local file) and the parameters of the rule.
 */
#define GUARD_NAME_MAX	64
#define GUARD_HOST_MAX	255
struct guard_spec {
	char		name[GUARD_NAME_MAX + 1];	/* empty: not given */
	char		host[GUARD_HOST_MAX + 1];	/* empty: local */
	char		user[GUARD_NAME_MAX + 1];	/* Redis ACL user, or "" */
	int		port;
	long long	tokens;		/* budget: the bucket's size */
	long long	ratio;		/* budget: milli-tokens per success */
	long long	failures;	/* breaker: give-ups in a row to open */
	nsec_t		cooldown;	/* breaker: the first wait when open */
};

struct config {
	long long	attempts;	/* 0: unlimited */
	struct schedule	sched;
	bool		seeded;
	uint64_t	seed;
	struct outcome_set retry_on, stop_on, success_on;
	nsec_t		timeout;	/* 0: none */
	int		timeout_signal;
	nsec_t		kill_after;	/* NSEC_INF: never */
	nsec_t		max_time;	/* 0: none */
	bool		foreground;
	bool		replay_stdin;
	bool		hold_stdout;
	bool		dry_run;
	bool		until_failure;	/* stop at the first failure */
	const char	*env_options;	/* RETRY_OPTIONS' words, or NULL */
	int		verbosity;	/* -1 quiet, 0 default, 1 verbose */
	enum log_format	log_format;
	const char	*log_file;
	const char	*json_log;	/* --json-log, or NULL */
	const char	*preset;	/* the --preset applied, or NULL */
	struct match_rules conds;	/* the output conditions */
	const char	*on_retry;	/* hook commands, or NULL */
	const char	*on_give_up;
	nsec_t		 reset_after;	/* 0: never */
	const char	*http_file;	/* --http: the response head; or NULL */
	struct guard_spec budget;
	struct guard_spec breaker;
	char		**argv;		/* the command; NULL with --dry-run */
};

enum outcome_kind {
	OUT_EXIT,		/* value: exit code */
	OUT_SIGNAL,		/* value: signal number */
	OUT_TIMEOUT,		/* value: 124, or 137 when KILL was needed */
	OUT_NOEXEC		/* value: 126 or 127; error: errno */
};

struct outcome {
	enum outcome_kind kind;
	int		value;
	int		error;
	nsec_t		duration;
	bool		deadline;	/* the --max-time deadline ended it */
	int		stop_signal;	/* a signal retry received: forwarded */
	int		matched;	/* the output condition, or -1 */
	const char	*matched_text;	/* its ERE */
	int		http_status;	/* --http: 200-599; 0: no response */
};

/* The status as the shell's $? would show it. */
static inline int
outcome_status(const struct outcome *o)
{
	return o->kind == OUT_SIGNAL ? 128 + o->value : o->value;
}

/* options.c: the command line, turned into a struct config. */
enum parse_result {
	PARSE_OK,
	PARSE_ERROR,
	PARSE_HELP,
	PARSE_VERSION,
	PARSE_PRESETS		/* --preset=list */
};
enum parse_result parse_options(char **, int, char **, struct config *,
		    char *, size_t);
void		 config_defaults(struct config *);

/* envopts.c: the words of RETRY_OPTIONS, split without expansion. */
int		 envopts_split(const char *, char *, int *, char ***, char *,
		    size_t);
char		*envopts_show(int, char **);

/* help.c: the usage line and --help. */
int		 help_print(FILE *);

/* dryrun.c: --dry-run, the schedule as a table on stdout; returns 0. */
int		 dry_run(const struct config *);

/* preset.c: the schedules of known systems, for --preset. */
const char	*preset_apply(const char *, struct schedule *, long long *,
		    nsec_t *, nsec_t *);
int		 preset_list(FILE *);

/* parse.c: every conversion from a string; NULL or a reason. */
const char	*parse_duration(const char *, nsec_t *, bool);
const char	*parse_attempts(const char *, long long *);
const char	*parse_factor(const char *, double *);
const char	*parse_jitter(const char *, struct jitter *);
const char	*parse_seed(const char *, uint64_t *);
const char	*parse_signal(const char *, int *);
const char	*parse_log_format(const char *, enum log_format *);
const char	*parse_budget(const char *, struct guard_spec *);
const char	*parse_breaker(const char *, struct guard_spec *);

/* outcomes.c: the LISTs of outcomes and the sets they become. */
const char	*parse_outcomes(const char *, struct outcome_set *,
		    const struct outcome_set *, char *, size_t);
void		 outcomes_default_retry(struct outcome_set *);
void		 outcomes_add_exit(struct outcome_set *, int);
bool		 outcome_in(const struct outcome_set *, const struct outcome *);
bool		 outcome_http_in(const struct outcome_set *, int);
bool		 outcomes_have_http(const struct outcome_set *set);

/* backoff.c: the schedule, pure and saturating, and the random source. */
nsec_t		 backoff_window(const struct schedule *, long long);
void		 backoff_bounds(const struct schedule *, long long, nsec_t *,
		    nsec_t *);
void		 backoff_init(struct backoff *, const struct schedule *, bool,
		    uint64_t);
nsec_t		 backoff_splay(struct backoff *);
void		 backoff_restart(struct backoff *);
nsec_t		 backoff_next(struct backoff *, long long);
nsec_t		 nsec_add(nsec_t, nsec_t);

/* escape.c: outside text made safe for each sink, in lines that grow. */
struct strbuf {
	char		*s;		/* NUL-terminated; NULL: nothing yet */
	size_t		 len, cap;
};
void		 sb_add(struct strbuf *, const void *, size_t);
void		 sb_str(struct strbuf *, const char *);
void		 sb_vprintf(struct strbuf *, const char *, va_list)
		    __printflike(2, 0);
void		 sb_printf(struct strbuf *, const char *, ...)
		    __printflike(2, 3);
void		 sb_free(struct strbuf *);
const char	*sb_text(const struct strbuf *);
size_t		 utf8_len(const unsigned char *);
void		 sb_visible(struct strbuf *, const char *);
void		 sb_json(struct strbuf *, const char *);
void		 sb_github(struct strbuf *, const char *, bool);
void		 warnx_safe(const char *, ...) __printflike(1, 2);
_Noreturn void	 err_safe(int, bool, const char *, ...) __printflike(3, 4);

/* log.c: progress messages, as text, workflow commands or JSON lines. */
struct jsonlog {
	int		 fd[2];		/* where the JSON lines go */
	int		 nfd;		/* 0: no JSON log */
	nsec_t		 t0;		/* what "time" counts from */
	bool		 http;		/* --http: events carry its fields */
};
struct log {
	int		 fd;		/* the text sink: stderr or --log-file */
	enum log_format	 format;	/* LOG_JSON: fd is a JSON sink too */
	bool		 stamp;		/* lines start with the local time */
	int		 gh_output;	/* $GITHUB_OUTPUT, or -1 */
	struct jsonlog	 json;
	int		 verbosity;
	bool		 countdown;	/* redraw a status line on a terminal */
	bool		 line_open;	/* the status line is showing */
	nsec_t		 t0;		/* what the run's times count from */
	long long	 max;		/* --attempts, 0: unlimited */
	struct strbuf	 status;	/* the status line, less the time */
	struct strbuf	 plain;		/* the line it leaves behind */
	int		 drawn;		/* columns of the status line shown */
	bool		 http;		/* --http: events carry the status */
	bool		 until_failure;	/* the sleeps follow successes */
};
/* What log_open() needs of the command line. */
struct log_options {
	enum log_format	 format;
	int		 verbosity;	/* -1 quiet, 0 default, 1 verbose */
	const char	*log_file;	/* or NULL: stderr */
	const char	*json_log;	/* or NULL */
	long long	 attempts;	/* 0: unlimited */
	bool		 http;		/* --http: events carry the status */
	bool		 until_failure;	/* the sleeps follow successes */
};
/* The run as log_start() shows it. */
struct log_run {
	char		**argv;		/* the command */
	long long	 attempts;	/* 0: unlimited */
	const struct schedule *sched;
	nsec_t		 timeout;	/* 0: none */
	nsec_t		 max_time;	/* 0: none */
	const char	*env_options;	/* RETRY_OPTIONS' words, or NULL */
};
void		 log_open(struct log *, const struct log_options *);
void		 log_start(struct log *, const struct log_run *, nsec_t);
void		 log_attempt_start(struct log *, long long);
void		 log_attempt_end(struct log *, long long, const struct outcome *);
/* A sleep before the next attempt, as log_retrying() reports it. */
struct log_sleep {
	nsec_t		 sleep;		/* the whole sleep */
	nsec_t		 window;	/* the backoff window it was drawn from */
	const struct jitter *jitter;	/* how it was drawn */
	nsec_t		 server;	/* --http: the server's delay in it; -1 */
	const char	*retry_after;	/* the value that asked for it, or NULL */
};
void		 log_retrying(struct log *, long long, const struct outcome *,
		    const struct log_sleep *);
void		 log_all_succeeded(struct log *, long long, const char *,
		    nsec_t);
bool		 log_counts_down(const struct log *);
void		 log_countdown(nsec_t, void *);
void		 log_sleep_done(struct log *);
void		 log_finish(struct log *, long long, const struct outcome *,
		    const char *, int, nsec_t);
void		 log_note(struct log *, long long, const char *, ...)
		    __printflike(3, 4);
void		 log_stopped(struct log *, long long, bool, int, int, nsec_t);
void		 log_breaker_open(struct log *, const char *, nsec_t);

/* jsonlog.c: the JSON log's events, for log.c. */
void		 jsonlog_start(const struct jsonlog *, const struct log_run *);
void		 jsonlog_attempt_start(const struct jsonlog *, long long);
void		 jsonlog_attempt_end(const struct jsonlog *, long long,
		    const struct outcome *);
void		 jsonlog_sleep(const struct jsonlog *, long long, nsec_t, nsec_t,
		    const struct jitter *, nsec_t);
void		 jsonlog_summary(const struct jsonlog *, long long, nsec_t, int,
		    const char *);
void		 jsonlog_breaker_open(const struct jsonlog *, const char *,
		    nsec_t);

/* format.c: values as text, for the log, the dry run and the parser. */
int		 format_seconds(char *, size_t, nsec_t);
int		 format_fixed(char *, size_t, nsec_t, int);
int		 format_utc(char *, size_t, nsec_t);
int		 format_local(char *, size_t, nsec_t);
int		 format_ms(char *, size_t, nsec_t);
int		 format_outcome(char *, size_t, const struct outcome *);
int		 format_short(char *, size_t, nsec_t);
const char	*format_jitter(const struct jitter *, char *, size_t);

struct sigstate;
/* feed.c: --replay-stdin, every attempt's stdin from one spool. */
struct feed;
struct feed	*feed_open(void);
int		 feed_begin(struct feed *);
int		 feed_poll_fd(struct feed *, struct pollfd *);
int		 feed_service(struct feed *, const struct pollfd *);
void		 feed_end(struct feed *);

/* held.c: --hold-stdout, the held file from creation to drain. */
struct held;
struct held	*held_open(void);
void		 held_begin(struct held *);
ssize_t		 held_take(struct held *, int, size_t);
ssize_t		 held_write(struct held *, const char *, size_t);
int		 held_flush(const struct sigstate *, const struct held *, int);

/* match.c: the output conditions, a line matcher for two streams. */
enum { MATCH_STDOUT, MATCH_STDERR };
struct matcher;
struct matcher	*matcher_open(const struct match_rules *, char *, size_t);
void		 matcher_free(struct matcher *);
void		 matcher_begin(struct matcher *);
void		 matcher_scan(struct matcher *, int, const char *, size_t);
void		 matcher_eof(struct matcher *, int);
int		 matcher_end(const struct matcher *, const char **);

/* streams.c: the command's streams during an attempt. */
#define STREAMS_FDS	3	/* descriptors to wait for, at most */
struct streams;
struct streams	*streams_open(bool, bool, struct matcher *);
void		 streams_begin(struct streams *, int [3]);
int		 streams_fds(struct streams *, struct pollfd *);
int		 streams_service(struct streams *, const struct pollfd *, int);
bool		 streams_done(const struct streams *);
_Noreturn void	 streams_fail(const struct streams *, int);
int		 streams_end(struct streams *, const char **);
int		 streams_flush(const struct sigstate *, const struct streams *,
		    int);

/* hooks.c: --on-retry and --on-give-up. */
struct hook {
	const char	*name;		/* the option, for messages */
	const char	*cmd;
	char		**envp;		/* the command's environment */
	int		 status;	/* of the attempt that just ended */
	nsec_t		 next_sleep;	/* -1: no attempt follows */
	nsec_t		 deadline;	/* 0: none */
	nsec_t		 kill_after;	/* after the deadline; NSEC_INF: never */
};
int		 hook_run(const struct sigstate *, const struct hook *);
/*
 * http.c: --http, the response head that the command saved (as curl -D
 * writes it) and the server's Retry-After.  The parsers neither print
 * nor exit, for the fuzz harness.
 */
#define HTTP_HEAD_MAX	((size_t)64 * 1024)	/* bytes of FILE read */
#define HTTP_VALUE_MAX	64		/* a Retry-After value kept */
struct http_head {
	int		status;		/* the last final status; 0: none */
	int		retry_after_fields;	/* in that head */
	bool		retry_after_bad;	/* too long or not printable */
	char		retry_after[HTTP_VALUE_MAX];	/* the first, trimmed */
};
int		 http_reset(const char *);
int		 http_load(const char *, struct http_head *);
void		 http_parse_head(const char *, size_t, struct http_head *);
bool		 http_parse_retry_after(const char *, nsec_t, nsec_t *);
enum http_rule {
	HTTP_NEXT,		/* the exit status decides */
	HTTP_SUCCEED,
	HTTP_STOP,
	HTTP_RETRY
};
enum http_rule	 http_policy(const struct outcome_set *,
		    const struct outcome_set *, const struct outcome_set *, int);
enum http_wait {
	HTTP_WAIT_NONE,
	HTTP_WAIT,
	HTTP_WAIT_IGNORED,
	HTTP_WAIT_TOO_LONG
};
enum http_wait	 http_wait(const struct http_head *, nsec_t, nsec_t, nsec_t *,
		    char *, size_t);

/* attempt.c: running one command to its end, timing it out. */
struct attempt_spec {
	char		**argv;		/* the command */
	char		**envp;		/* its environment */
	nsec_t		 timeout;	/* 0: none */
	int		 signal;	/* sent when it runs out of time */
	nsec_t		 kill_after;	/* then SIGKILL; NSEC_INF: never */
	nsec_t		 deadline;	/* absolute; 0: none */
	int		 fd[3];		/* its stdin, stdout, stderr; -1:
					   retry's own; closed once given */
	bool		 own_group;	/* a process group of its own: a hook */
	struct streams	*streams;	/* or NULL; they give fd[] */
};
void		 attempt_init(bool);
void		 attempt_run(const struct sigstate *,
		    const struct attempt_spec *, struct outcome *);
int		 attempt_sleep(const struct sigstate *, nsec_t,
		    void (*)(nsec_t, void *), void *);
int		 attempt_clear_leftovers(const struct sigstate *, int, nsec_t,
		    nsec_t);

/* spawn.c: starting the command, and telling a failed exec apart. */
int		 spawn_command(const struct sigstate *, char **, char **,
		    const int [3], bool, pid_t *);
bool		 spawn_first_part_runs(const char *);

/* leftovers.c: the processes an attempt left behind, per platform. */
#define LEFTOVER_WATCH	32
struct leftovers {
	int		 pidfd[LEFTOVER_WATCH];	/* readable when one ends */
	int		 npidfd;
	bool		 watched;	/* every one found has a pidfd */
};
void		 leftovers_init(void);
size_t		 leftovers_signal(pid_t, pid_t, int, bool);
size_t		 leftovers_watch(struct leftovers *, pid_t, int, bool);
void		 leftovers_unwatch(struct leftovers *);

/* signals.c: names, handlers, masks, and the one wait for events. */
#define SIGNALS_WAIT_FDS	64	/* a portable build's poll() set */
struct sigstate {
	sigset_t	start_mask;	/* the inherited signal mask */
	sigset_t	handled;	/* signals retry catches */
	sigset_t	wait_mask;	/* the mask inside ppoll() */
	sigset_t	start_ignored;	/* signals ignored at start */
#ifdef RETRY_PORTABLE
	int		wake_rfd;	/* the self-pipe's read end */
#endif
	pid_t		self;
};
void		 signals_init(struct sigstate *);
int		 signals_wait(const struct sigstate *, struct pollfd *, int,
		    nsec_t);
void		 signals_take_pending(const struct sigstate *);
void		 signals_restore(const struct sigstate *);
bool		 signals_sigpipe_default(const struct sigstate *);
bool		 signals_child_exited(void);
void		 signals_child_seen(void);
bool		 sig_is_stop(int);
int		 signals_stop(void);
int		 signals_next_forward(void);
void		 signals_drop_forwards(void);
long		 signals_stops(void);
_Noreturn void	 die_by_signal(int);
const char	*sig_name(int, char *, size_t);
int		 sig_number(const char *);

/* env.c: the environment of a command or a hook. */
char		**env_with(char **, char *const *, size_t, size_t);

/* fd.c: the descriptors retry opens for itself, all above 2. */
int		 fd_above_stdio(int);
int		 fd_tty_nonblock(int fd);
int		 fd_pipe(int [2]);
int		 fd_tmpfile(void);
void		 fd_grow_pipe(int);
bool		 fd_file_full(void);
ssize_t		 fd_send_file(int, off_t *, int, size_t);
ssize_t		 fd_take_stream(int, int, off_t, size_t);
void		 fd_write_all(int, const char *, size_t);

/*
 * guard.c: --budget and --breaker as the attempt loop sees them, on a
 * local state file or in Redis.
 */
enum run_end {
	RUN_SUCCEEDED,
	RUN_GAVE_UP,
	RUN_STOPPED		/* by a signal: counts as neither */
};
struct redis;
struct guard {
	const struct guard_spec *spec;
	const char	*what;		/* "retry budget" or "circuit breaker" */
	bool		 on;		/* given, and its store answers */
	int		 fd;		/* the local state file, or -1 */
	bool		 flocked;	/* locked with flock(2), not OFD */
	bool		 corrupt;	/* the record read was not valid */
	const struct sigstate *ss;	/* whose stop signals end a wait */
	struct redis	*redis;		/* or the Redis connection */
	char		 where[PATH_MAX_GUARD];	/* the file or the URL */
};
struct guards {
	struct guard	 budget;
	struct guard	 breaker;
	uint32_t	 probe;		/* this run is the breaker's probe */
	nsec_t		 lease;		/* how long a probe's claim lasts */
};
/* The run's limits, which bound how long a breaker's probe can last. */
struct guard_limits {
	long long	 attempts;	/* 0: unlimited */
	nsec_t		 timeout;	/* of each attempt, 0: none */
	nsec_t		 kill_after;	/* NSEC_INF: never */
	nsec_t		 cap;		/* the longest sleep */
	nsec_t		 max_time;	/* 0: none */
};
void		 guards_open(struct guards *, const struct guard_spec *,
		    const struct guard_spec *, const struct guard_limits *,
		    const struct sigstate *);
bool		 guards_admit(struct guards *, nsec_t *);
bool		 guards_attempt(struct guards *, bool);
void		 guards_end(struct guards *, enum run_end);

/*
 * budget.c: the rules of the budget and the breaker, pure functions on
 * the record that the store keeps, and the same rules for Redis in Lua.
 */
enum breaker_state {
	BREAKER_CLOSED,
	BREAKER_OPEN,
	BREAKER_PROBING
};
struct guard_record {
	long long	 tokens;	/* milli-tokens; -1: full */
	enum breaker_state state;
	long long	 failures;	/* runs in a row that gave up */
	nsec_t		 until;		/* open: next probe; probing: lease end */
	nsec_t		 cooldown;	/* the current cooldown, when open */
	uint32_t	 probe;		/* the probing run's id */
	long long	 boot;		/* the boot whose clock until is on; 0 */
};
enum admit {
	ADMIT_RUN,
	ADMIT_PROBE,
	ADMIT_REFUSED
};
#define BREAKER_CAP	(3600 * NSEC_PER_SEC)	/* cooldowns double up to */
#define RECORD_MAX	256	/* a record as text, its newline included */
void		 record_init(struct guard_record *);
bool		 record_parse(const char *, size_t, struct guard_record *);
int		 record_format(char *, size_t, const struct guard_record *);
void		 record_rebase(struct guard_record *, long long, nsec_t);
void		 record_stamp(struct guard_record *, long long);
bool		 budget_attempt(struct guard_record *, const struct guard_spec *,
		    bool);
nsec_t		 breaker_cap(const struct guard_spec *);
enum admit	 breaker_admit(struct guard_record *, const struct guard_spec *,
		    nsec_t, nsec_t, uint32_t, nsec_t *);
void		 breaker_report(struct guard_record *, const struct guard_spec *,
		    nsec_t, uint32_t, enum run_end, unsigned);
extern const char guard_lua[];
extern const char guard_lua_sha1[];

/*
 * statefile.c: the local store, one small file per NAME in a directory
 * of the user's own, read and written under an exclusive lock.
 */
#define LOCK_WAIT_MS	1000	/* the longest wait for a state file's lock */
bool		 statefile_open(struct guard *, char *, size_t);
ssize_t		 statefile_begin(struct guard *, char *, size_t);
int		 statefile_commit(struct guard *, const char *, size_t);

/* redisstore.c: the Redis store, through hiredis when it is built in. */
#define REDIS_ARGS	8
struct redis_call {
	const char	*script;	/* the Lua text */
	const char	*sha1;		/* and its SHA-1, for EVALSHA */
	const char	*key;
	const char	*args[REDIS_ARGS];
	int		 nargs;
	long long	 out[3];	/* the integers of the reply */
	int		 nout;
	char		 why[256];	/* what went wrong */
};
bool		 redis_built_in(void);
struct redis	*redis_open(const char *, int, const struct sigstate *,
		    char *, size_t);
bool		 redis_auth(struct redis *, const char *, const char *,
		    char *, size_t);
bool		 redis_eval(struct redis *, struct redis_call *);

/* clock.c: the clocks: monotonic, boot time, wall. */
/* clock.c: the one clock that every deadline is measured on, and the wall. */
nsec_t		 mono_now(void);
nsec_t		 wall_now(void);
nsec_t		 boot_now(void);

#endif /* INTERNAL_H */
