#!/bin/bash
# The report stage of make check: the kernel x suite table of a results
# file ("<kernel> <suite> pass|fail <case> [detail]" lines), the exact
# package of each row (the lock file), the notes, the timeline's report
# (the longest jobs, their CPU, the critical path), the failures, and the
# last line "N passed, N failed"; and writes the results as JUnit XML
# beside them (junit.xml: rig/report/junit.sh). Exits non-zero on any failure.
# Usage: report.sh RESULTS LOCK NOTES SECONDS ROW...
. "$(dirname "$0")/../lib/prelude.sh"
results=$1 lock=$2 notes=$3 secs=$4
shift 4

w=$(printf '%s\n' host "$@" | awk '{ if (length($0) > m) m = length($0) } END { print m + 1 }')
suites=$(awk '{ print $2 }' "$results" | awk '!seen[$0]++')
echo
printf "%-${w}s" kernel
for s in $suites; do printf ' %9s' "$s"; done
echo
for k in host "$@"; do
	printf "%-${w}s" "$k"
	for s in $suites; do
		cell=$(awk -v k="$k" -v s="$s" '$1 == k && $2 == s { if ($3 == "pass") p++; else f++ }
			END { if (p + f == 0) print "-"; else printf "%d/%d", p, f }' "$results")
		printf ' %9s' "$cell"
	done
	echo
done
echo "(cells: passed/failed checks)"

echo
echo "kernels tested (lock file: $lock; UE_KERNELS_LOCK=$lock reproduces them):"
for k in "$@"; do
	awk -v k="$k" '$1 == k && NF == 7 { printf "  %-12s %-9s %s %s (%s, %s suite)\n", $1, $2, $4, $6, $3, $7 }' "$lock"
done
[ -s "$notes" ] && { echo; cat "$notes"; }

# The jobs' times (build/check/timeline.tsv: rig/report/timeline-report.sh),
# and the graph's (graph.tsv, deps.tsv) for its critical path.
d=$(dirname "$results")
if [ -f "$d/timeline.tsv" ]; then
	echo
	"$(dirname "$0")/timeline-report.sh" "$d/timeline.tsv" "$d/graph.tsv" "$d/deps.tsv"
fi
# The failures last, just above the verdict: the end of a CI log is often
# all that a CI page shows. First where each VM that did not finish
# stopped (the rest is in build/check/<kernel>/console.log.txt), then the
# list of failed checks.
if awk '$3 != "pass" { f = 1 } END { exit !f }' "$results"; then
	for k in $(awk '$2 == "vm" && $3 == "fail" && $4 == "finished" { print $1 }' "$results" | sort -u); do
		log=$d/$k/console.log.txt
		[ -f "$log" ] || continue
		echo
		echo "$k: the last lines of its console ($log):"
		grep -vE '^ *ok [0-9]+ ' "$log" | tail -15 | cut -c1-160 | sed 's/^/  | /'
	done
	echo
	echo "failures:"
	awk '$3 != "pass" { printf "  %s %s %s:", $1, $2, $4; for (i = 5; i <= NF; i++) printf " %s", $i; print "" }' "$results"
fi
# The same results as JUnit XML beside them (build/check/junit.xml), for
# a CI's test report (rig/report/junit.sh: the same counts as below).
"$(dirname "$0")/junit.sh" "$results" "$d/junit.xml"
passed=$(awk '$3 == "pass"' "$results" | wc -l)
failed=$(awk '$3 != "pass"' "$results" | wc -l)
echo
echo "check took ${secs}s"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
