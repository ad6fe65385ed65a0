/*
 * preset.c: --preset, the backoff schedules of systems that users know,
 * each as the document it follows gives it: the attempts, base, factor,
 * cap and jitter, and a deadline or a reset where the scheme has one.  options.c
 * applies a preset before the options given with it, which then override
 * it whatever their order; --preset=list prints the table, with what
 * each preset cannot reproduce.  Two schemes need what no option says:
 * Ethernet and Airflow draw whole slots (JITTER_STEPS), Google's client
 * randomizes its interval after capping it (cap_window), and Kubernetes
 * restarts a container at once the first time (first_now).
 */
#include <stdio.h>
#include <string.h>

#include "os/defs.h"
#include "backoff.h"
#include "preset.h"

#define SLOT	INT64_C(51200)		/* 802.3 slot time: 512 bits at 10 Mb/s */

struct preset {
	const char	*name;
	long long	 attempts;	/* 0: unlimited */
	nsec_t		 base, cap, max_time, reset_after;
	double		 factor;
	struct jitter	 jitter;
	bool		 cap_window;
	bool		 first_now;
	const char	*text;		/* for --preset=list */
};

static const struct preset presets[] = {
	{ "aws", 3, 50 * NSEC_PER_MSEC, 20 * NSEC_PER_SEC, 0, 0, 2,
	    { JITTER_FULL, 0, 0, 0 }, false, false,
	    "-n 3 -b 50ms -f 2 -c 20s -j full\n"
	    "AWS SDK standard mode from November 2026, transient errors:\n"
	    "sleep = U(0, 1) * min(0.05 s * 2^(i-1), 20 s) after the i-th\n"
	    "failure.  For throttling errors use aws-throttle.\n"
	    "Follows: AWS SDKs and Tools Reference Guide, \"Retry behavior\".\n"
	    "Differs: the SDKs pick the base per error; retry has one base.\n" },
	{ "aws-throttle", 3, NSEC_PER_SEC, 20 * NSEC_PER_SEC, 0, 0, 2,
	    { JITTER_FULL, 0, 0, 0 }, false, false,
	    "-n 3 -b 1s -f 2 -c 20s -j full\n"
	    "AWS SDK standard mode from November 2026, throttling errors\n"
	    "(HTTP 429, ThrottlingException): sleep = U(0, 1) *\n"
	    "min(2^(i-1), 20) s.\n"
	    "Follows: AWS SDKs and Tools Reference Guide, \"Retry behavior\".\n" },
	{ "aws-dynamodb", 4, 25 * NSEC_PER_MSEC, 20 * NSEC_PER_SEC, 0, 0, 2,
	    { JITTER_FULL, 0, 0, 0 }, false, false,
	    "-n 4 -b 25ms -f 2 -c 20s -j full\n"
	    "AWS SDK standard mode from November 2026 for DynamoDB and\n"
	    "DynamoDB Streams, transient errors: sleep = U(0, 1) *\n"
	    "min(0.025 s * 2^(i-1), 20 s).\n"
	    "Follows: AWS SDKs and Tools Reference Guide, \"Retry behavior\".\n" },
	{ "aws-legacy", 3, NSEC_PER_SEC, 20 * NSEC_PER_SEC, 0, 0, 2,
	    { JITTER_FULL, 0, 0, 0 }, false, false,
	    "-n 3 -b 1s -f 2 -c 20s -j full\n"
	    "AWS SDK standard mode before 2026 (retry's aws preset until\n"
	    "then): one base of 1 s for every error, sleep = U(0, 1) *\n"
	    "min(2^(i-1), 20) s.\n"
	    "Follows: AWS SDKs and Tools Reference Guide, \"Retry behavior\",\n"
	    "as published before the 2026 update.\n"
	    "Differs: that guide capped after the jitter, min(U(0, 1) *\n"
	    "2^(i-1), 20) s; the same sleeps within 3 attempts.\n" },
	{ "google-http", 0, 500 * NSEC_PER_MSEC, 60 * NSEC_PER_SEC,
	    900 * NSEC_PER_SEC, 0, 1.5, { JITTER_RANGE, 0.5, 1.5, 0 }, true, false,
	    "-n inf -b 500ms -f 1.5 -c 60s -j 0.5..1.5 -m 15m\n"
	    "interval = min(60 s, 0.5 s * 1.5^(i-1)), sleep = interval *\n"
	    "U(0.5, 1.5): the cap bounds the interval before the randomization,\n"
	    "so sleeps reach 90 s, which -c alone would not allow.\n"
	    "Follows: google-http-java-client, ExponentialBackOff (defaults).\n"
	    "Differs: the library counts whole milliseconds, truncated, and\n"
	    "stops once 15 min have passed; retry counts nanoseconds, and -m\n"
	    "stops it before a sleep would pass 15 min.\n" },
	{ "google-drive", 5, NSEC_PER_SEC, 64 * NSEC_PER_SEC, 0, 0, 2,
	    { JITTER_ADD, 0, 0, NSEC_PER_SEC }, false, false,
	    "-n 5 -b 1s -f 2 -c 64s -j +1s\n"
	    "sleep = min(64 s, 2^(i-1) s + U(0, 1 s)).\n"
	    "Follows: Google Drive API, \"Resolve errors\", exponential backoff.\n"
	    "Differs: the guide adds whole milliseconds, retry nanoseconds; it\n"
	    "names no number of attempts: 5 is retry's default.\n" },
	{ "simpledb", 5, 400 * NSEC_PER_MSEC, DURATION_MAX, 0, 0, 4,
	    { JITTER_FULL, 0, 0, 0 }, false, false,
	    "-n 5 -b 400ms -f 4 -c 36525d -j full\n"
	    "sleep = U(0, 4^i * 100 ms) after the i-th failure.\n"
	    "Follows: Amazon SimpleDB Developer Guide, \"API Error Retries\".\n"
	    "Differs: the guide names no cap and no number of attempts: 5 is\n"
	    "retry's default, and the cap its longest duration, 100 years.\n" },
	{ "airflow", 5, 300 * NSEC_PER_SEC, 86400 * NSEC_PER_SEC, 0, 0, 2,
	    { JITTER_STEPS, 1, 2, NSEC_PER_SEC }, false, false,
	    "-n 5 -b 5m -f 2 -c 1d -j 1..2, in whole seconds\n"
	    "d = retry_delay * 2^(i-1) with retry_delay 5 min, rounded up to a\n"
	    "second; sleep = min(max_retry_delay 1 day, d + a whole number of\n"
	    "seconds in [0, d)).\n"
	    "Follows: Apache Airflow, BaseOperator retry_exponential_backoff.\n"
	    "Differs: Airflow draws the seconds from a hash of the task\n"
	    "instance, retry at random; Airflow's default is no retries, and\n"
	    "5 attempts is retry's.\n" },
	{ "kubernetes", 0, 10 * NSEC_PER_SEC, 300 * NSEC_PER_SEC, 0,
	    600 * NSEC_PER_SEC, 2, { JITTER_NONE, 0, 0, 0 }, false, true,
	    "-n inf -b 10s -f 2 -c 5m -j none --reset-after=10m\n"
	    "CrashLoopBackOff: the first restart at once, then 10 s, 20 s,\n"
	    "40 s, ... up to 5 min, and from at once again after an attempt\n"
	    "that ran 10 min.\n"
	    "Follows: Kubernetes documentation, \"Pod Lifecycle\", container\n"
	    "restarts.\n"
	    "Differs from its options: no option makes the first retry come\n"
	    "at once; with the options alone it waits 10 s.\n" },
	{ "ethernet", 16, 2 * SLOT, 1024 * SLOT, 0, 0, 2,
	    { JITTER_STEPS, 0, 1, SLOT }, false, false,
	    "-n 16 -b 102.4us -f 2 -c 52428.8us -j full, in whole slots\n"
	    "Truncated binary exponential backoff: after the n-th collision,\n"
	    "wait r slot times of 51.2 us, r a whole number in\n"
	    "[0, 2^min(n, 10) - 1]; give up after 16 attempts.\n"
	    "Follows: IEEE 802.3, CSMA/CD (10 Mb/s slot time).\n" },
};

#define NPRESETS	(sizeof(presets) / sizeof(presets[0]))

/*
 * Sets the schedule, attempts, max_time and reset_after to those of the
 * preset name, or with sched NULL only checks the name; NULL or a
 * reason.
 */
const char *
preset_apply(const char *name, struct schedule *sched, long long *attempts,
    nsec_t *max_time, nsec_t *reset_after)
{
	const struct preset *p;
	size_t i;

	for (i = 0; i < NPRESETS; i++)
		if (strcmp(name, presets[i].name) == 0)
			break;
	if (i == NPRESETS)
		return "expected aws, aws-throttle, aws-dynamodb, "
		    "aws-legacy, google-http, google-drive, simpledb, "
		    "airflow, kubernetes, ethernet or list";
	if (sched == NULL)
		return NULL;
	p = &presets[i];
	*attempts = p->attempts;
	sched->base = p->base;
	sched->cap = p->cap;
	sched->factor = p->factor;
	sched->jitter = p->jitter;
	sched->cap_window = p->cap_window;
	sched->first_now = p->first_now;
	*max_time = p->max_time;
	*reset_after = p->reset_after;
	return NULL;
}

/* --preset=list: each preset, its options, its scheme and its source. */
int
preset_list(FILE *out)
{
	const char *line, *nl;
	size_t i;

	for (i = 0; i < NPRESETS; i++) {
		if (i > 0)
			fputc('\n', out);
		fprintf(out, "%-13s", presets[i].name);
		for (line = presets[i].text; *line != '\0'; line = nl + 1) {
			nl = strchr(line, '\n');
			fprintf(out, "%s%.*s\n", line == presets[i].text ? "" :
			    "             ", (int)(nl - line), line);
		}
	}
	return fflush(out) == EOF || ferror(out) ? -1 : 0;
}
