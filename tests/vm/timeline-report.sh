#!/bin/bash
# The timeline of a make check (build/check/timeline.tsv, tests/vm/timeline.sh:
# "job start end wall cpu" a line, tab-separated): the ten longest jobs, the
# CPU of all jobs, and the critical path: from the job that ended last, back
# through, for each job, the job that ended last before it started (its
# predecessor; "idle" is the time between the two). Times are seconds from
# the first job's start. Ties go to the job that started first, then to the
# earlier line.
# Usage: timeline-report.sh TIMELINE
set -uo pipefail
tl=$1

if [ ! -s "$tl" ]; then
	echo "timeline: no jobs in $tl"
	exit 0
fi
LC_ALL=C awk -F '\t' '
NF == 5 {
	n++; name[n] = $1; s[n] = $2 + 0; e[n] = $3 + 0; w[n] = $4 + 0; c[n] = $5 + 0
	cpu += c[n]
	if (n == 1 || s[n] < t0) t0 = s[n]
	if (n == 1 || e[n] > t1) t1 = e[n]
}
NF != 5 { bad++ }
# before(i, j): whether job i wins a tie over job j (the first start, then the first line)
function before(i, j) { return s[i] < s[j] || (s[i] == s[j] && i < j) }
END {
	printf "timeline (%s): %d jobs, %.0f s from the first start to the last end, %.2f CPU seconds in all jobs (%.2f cores busy on average)\n", \
		FILENAME, n, t1 - t0, cpu, (t1 > t0 ? cpu / (t1 - t0) : 0)
	if (bad) printf "  (%d malformed lines left out)\n", bad
	print ""
	print "the ten longest jobs (wall s, CPU s, start s, job):"
	for (i = 1; i <= n; i++) done[i] = 0
	for (r = 1; r <= 10 && r <= n; r++) {
		b = 0
		for (i = 1; i <= n; i++)
			if (!done[i] && (!b || w[i] > w[b] || (w[i] == w[b] && before(i, b)))) b = i
		done[b] = 1
		printf "  %8.2f %8.2f %7.0f  %s\n", w[b], c[b], s[b] - t0, name[b]
	}
	# The path, from its end back to its start.
	b = 0
	for (i = 1; i <= n; i++)
		if (!b || e[i] > e[b] || (e[i] == e[b] && before(i, b))) b = i
	m = 0
	while (b) {
		path[++m] = b
		p = 0
		for (i = 1; i <= n; i++)
			if (e[i] <= s[b] && before(i, b) && (!p || e[i] > e[p] || (e[i] == e[p] && before(i, p)))) p = i
		idle[b] = p ? s[b] - e[p] : s[b] - t0
		b = p
	}
	print ""
	print "critical path (start s, end s, wall s, idle s before it, job):"
	for (j = m; j >= 1; j--) {
		b = path[j]
		printf "  %7.0f %7.0f %8.2f %7.0f  %s\n", s[b] - t0, e[b] - t0, w[b], idle[b], name[b]
	}
}' "$tl"
