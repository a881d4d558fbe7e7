#!/bin/bash
# The timeline of a make check (build/check/timeline.tsv, rig/check/timeline.sh:
# "job start end wall cpu" a line, tab-separated): the ten longest jobs, the
# CPU of all jobs, and the critical path. Times are seconds from the first
# job's start. Ties go to the job that started first, then to the earlier
# line.
#
# With GRAPH and DEPS (build/check/graph.tsv, a line per job of the graph
# in the same form, and deps.tsv, "job<TAB>the jobs it waits for"; job.sh
# and graph.sh write them), the critical path follows the graph: from the
# job that ended last, back through, for each job, the one it waits for
# that ended last; "wait" is the time between that one's end and the job's
# start (a slot of its pool still busy), or from the first start for a job
# that waits for none. Without them it is read from the times alone: for
# each job, the job that ended last before it started.
# Usage: timeline-report.sh TIMELINE [GRAPH DEPS]
. "$(dirname "$0")/../lib/prelude.sh"
tl=$1 graph=${2:-} deps=${3:-}

if [ ! -s "$tl" ]; then
	echo "timeline: no jobs in $tl"
	exit 0
fi
[ -n "$graph" ] && [ -s "$graph" ] && [ -n "$deps" ] && [ -s "$deps" ] || graph= deps=
LC_ALL=C awk -F '\t' -v graph="$graph" '
# (the files by their order: the timeline and the graph may be one file)
FNR == 1 { f++ }
f == 1 && NF == 5 {
	n++; name[n] = $1; s[n] = $2 + 0; e[n] = $3 + 0; w[n] = $4 + 0; c[n] = $5 + 0
	cpu += c[n]
	if (n == 1 || s[n] < t0) t0 = s[n]
	if (n == 1 || e[n] > t1) t1 = e[n]
	next
}
f == 1 { bad++; next }
# the graph: its jobs, then what each waits for
f == 2 && NF == 5 {
	gn++; gname[gn] = $1; gs[gn] = $2 + 0; ge[gn] = $3 + 0; gw[gn] = $4 + 0; gi[$1] = gn
	next
}
f == 3 { gdeps[$1] = $2; next }
# before(i, j): whether job i wins a tie over job j (the first start, then the first line)
function before(i, j) { return s[i] < s[j] || (s[i] == s[j] && i < j) }
function gbefore(i, j) { return gs[i] < gs[j] || (gs[i] == gs[j] && i < j) }
# print_path(TITLE, START, END, WALL, NAME): path[m] (the last job) down to
# path[1], with idle[] before each, from the arrays of its jobs.
function print_path(title, S, E, W, NAME,   j, b) {
	print title
	for (j = m; j >= 1; j--) {
		b = path[j]
		printf "  %7.0f %7.0f %8.2f %7.0f  %s\n", S[b] - t0, E[b] - t0, W[b], idle[b], NAME[b]
	}
}
END {
	printf "timeline (%s): %d jobs, %.0f s from the first start to the last end, %.2f CPU seconds in all jobs (%.2f cores busy on average)\n", \
		ARGV[1], n, t1 - t0, cpu, (t1 > t0 ? cpu / (t1 - t0) : 0)
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
	print ""
	m = 0
	if (graph != "" && gn) {
		b = 0
		for (i = 1; i <= gn; i++)
			if (!b || ge[i] > ge[b] || (ge[i] == ge[b] && gbefore(i, b))) b = i
		while (b) {
			path[++m] = b
			p = 0
			k = split(gdeps[gname[b]], d, " ")
			for (j = 1; j <= k; j++) {
				if (!(d[j] in gi)) continue
				i = gi[d[j]]
				if (!p || ge[i] > ge[p] || (ge[i] == ge[p] && gbefore(i, p))) p = i
			}
			idle[b] = p ? gs[b] - ge[p] : gs[b] - t0
			b = p
		}
		print_path("critical path through the job graph (start s, end s, wall s, wait s before it, job):", \
			   gs, ge, gw, gname)
		exit
	}
	# The path, from its end back to its start.
	b = 0
	for (i = 1; i <= n; i++)
		if (!b || e[i] > e[b] || (e[i] == e[b] && before(i, b))) b = i
	while (b) {
		path[++m] = b
		p = 0
		for (i = 1; i <= n; i++)
			if (e[i] <= s[b] && before(i, b) && (!p || e[i] > e[p] || (e[i] == e[p] && before(i, p)))) p = i
		idle[b] = p ? s[b] - e[p] : s[b] - t0
		b = p
	}
	print_path("critical path (start s, end s, wall s, idle s before it, job):", s, e, w, name)
}' "$tl" ${graph:+"$graph" "$deps"}
