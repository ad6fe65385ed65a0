# Checks --dry-run tables against the backoff schedule of the man page;
# used by check_tables in core.bash.  The input is any number of tables,
# each from its header line on.  Variables (times in seconds):
#   mode   none, full, equal, decorrelated, range or add
#   base, factor, cap, splay, lo, hi (the A..B of range), add (+D)
#   rows   the number of rows each table must have (0: any)
# Each problem is printed as one line on stdout and the exit status is 1.
# Without problems, one summary line tells how the random draws fell:
#   "samples N resid R umin U umax V"
# R is the mean of (draw - E) / (b - a) over the draws that come from a
# uniform U(a, b) with b - a >= 1us, where E is the expected value of
# min(cap, U(a, b)): 0 in expectation, with a standard deviation of at
# most 1/sqrt(12) per draw.  umin and umax are the least and the most
# (draw - a) / (b - a) over the draws that the cap did not clip.

function abs(x) { return x < 0 ? -x : x }
function min(x, y) { return x < y ? x : y }

# Equal to within 2 ns plus double rounding on large values.
function near(x, y) {
	return abs(x - y) <= 2e-9 + 1e-14 * (abs(x) + abs(y))
}

function problem(msg) {
	if (++problems <= 20)
		printf "table %d, line %d: %s: %s\n", tables, NR, msg, $0
}

# The expected value of min(c, U(a, b)), with a <= b.
function emin(a, b, c) {
	if (a >= c)
		return c
	if (b <= c)
		return (a + b) / 2
	return ((c * c - a * a) / 2 + c * (b - c)) / (b - a)
}

function sample(draw, a, b) {
	if (b - a < 1e-6)
		return
	n++
	resid += (draw - emin(a, b, cap)) / (b - a)
	if (b <= cap) {
		u = (draw - a) / (b - a)
		if (n == 1 || u < umin)
			umin = u
		if (n == 1 || u > umax)
			umax = u
	}
}

function time_ok(s) {
	return s ~ /^[0-9]+\.[0-9][0-9][0-9][0-9]?[0-9]?[0-9]?[0-9]?[0-9]?[0-9]?$/
}

function end_table() {
	if (tables > 0 && rows > 0 && k != rows)
		printf "table %d: %d rows, expected %d\n", tables, k, rows
	if (tables > 0 && rows > 0 && k != rows)
		problems++
}

BEGIN {
	umin = 1; umax = 0
	infinite = 9223372036.854775807
}

$0 ~ /^attempt +window +min +max +draw +elapsed$/ {
	end_table()
	tables++
	k = 0; comments = 0; sum = 0; prev = base; saturated = 0
	next
}

tables == 0 {
	problem("text before the header")
	next
}

/^#/ {
	comments++
	next
}

{
	if (comments > 0)
		problem("a row after a # line")
	if (NF != 6 || $1 != k + 1) {
		problem("not row " (k + 1))
		next
	}
	k = $1
	for (i = 3; i <= 5; i++)
		if (!time_ok($i))
			problem("field " i " is not seconds with 3 to 9 decimals")
	if (!time_ok($6) && $6 != "inf")
		problem("elapsed is not seconds with 3 to 9 decimals")
	draw = $5 + 0
	if (k == 1) {
		if ($2 != "-" || $3 + 0 != 0 || !near($4, splay))
			problem("row 1 must be - 0 and the splay")
		if (splay > 0)
			sample(draw, 0, splay)
	} else {
		j = k - 1
		if (!time_ok($2))
			problem("window is not seconds with 3 to 9 decimals")
		if (mode == "decorrelated")
			w = min(cap, base * 3 ^ j)
		else
			w = min(cap, base * factor ^ (j - 1))
		if (!near($2, w))
			problem("window should be " w)
		if (mode == "none") {
			a = w; b = w
		} else if (mode == "full") {
			a = 0; b = w
		} else if (mode == "equal") {
			a = w / 2; b = w
		} else if (mode == "decorrelated") {
			a = base; b = 3 * prev
			if (!near($4, w))
				problem("max should be the envelope " w)
		} else if (mode == "range") {
			a = w * lo; b = w * hi
		} else if (mode == "add") {
			a = w; b = w + add
		}
		if (mode != "decorrelated" && !near($4, min(cap, b)))
			problem("max should be " min(cap, b))
		if (!near($3, min(cap, a)))
			problem("min should be " min(cap, a))
		if (draw > cap + 1e-9)
			problem("the draw exceeds the cap")
		if (draw < min(cap, a) - 2e-9 || draw > min(cap, b) + 2e-9)
			problem("the draw is out of [" a ", " b "]")
		if (mode != "none")
			sample(draw, a, b)
		prev = draw
	}
	if (draw < $3 || draw > $4)
		problem("the draw is outside its own min and max")
	sum += draw
	if ($6 == "inf") {
		if (sum < infinite * (1 - 1e-12))
			problem("elapsed saturated too early")
		saturated = 1
	} else if (saturated) {
		problem("elapsed went back from inf")
	} else if (!near($6, sum)) {
		problem("elapsed should be " sum)
	}
}

END {
	end_table()
	if (tables == 0)
		problem("no table")
	if (problems > 0)
		exit 1
	printf "samples %d resid %.6f umin %.6f umax %.6f\n", n,
	    n ? resid / n : 0, umin, umax
}
