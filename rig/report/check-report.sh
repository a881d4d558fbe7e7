#!/bin/bash
# make check-report: the one table and verdict of several shards of make
# check. A shard is a run of some rows (UE_KERNELS), on a machine of its
# own, that left its results directory (UE_BUILD_DIR), as the jobs of a CI
# matrix do (docs/testing.md, Shards); check.sh leaves there what a merge
# needs: results, kernels.lock, notes, rows (the rows it reported, the
# unserved left out; written last, so a directory without it is a run that
# did not end), seconds and host-checks (1 where it ran the host checks, 0
# under UE_HOST_CHECKS=0). The merge goes into build/check-report/
# (UE_REPORT_DIR) and through rig/report/report.sh, as make check's own
# report does (which also writes the merged results as JUnit XML there,
# junit.xml: rig/report/junit.sh). Its rules:
#   - a row's lines come from the shard that reported it; a row that two
#     shards reported is a failed check of the merge ("host shards fail
#     overlap ROW ..."), and both shards' lines stay: nothing either found
#     is hidden;
#   - host lines (the host checks, the install test's, "host tree
#     unchanged") that several shards wrote alike count once (as often as
#     the one shard that wrote it most); every other host line stays, so a
#     failure in any shard stays a failure;
#   - a directory that is not a finished shard (missing, no results or
#     empty results, no rows file) is a failed check naming it, and so is a
#     merge in which no shard ran the host checks;
#   - the lock files and the notes are joined, each line once; the rows go
#     in kernels.list's order (then any other); the time is the longest
#     shard's (the shards ran at once).
# Exits non-zero on any failure (report.sh), or 2 on a usage error.
# Usage: check-report.sh DIR...
. "$(dirname "$0")/../lib/prelude.sh"

root=$(cd "$(dirname "$0")/../.." && pwd)
rig=$root/rig
. "$rig/lib/matrix-lib.sh"
out=${UE_REPORT_DIR:-$root/build/check-report}

if [ $# = 0 ]; then
	echo "usage: check-report.sh DIR... (the results directories of make check's shards: UE_BUILD_DIR)" >&2
	exit 2
fi
# (it empties its own directory: never the checkout or one that holds it,
# one of the shards' or one that holds them)
mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 2
case $root/ in
"$out"/*)
	echo "check-report: UE_REPORT_DIR=$out holds the checkout, and the report empties its directory" >&2
	exit 2 ;;
esac
for d in "$@"; do
	[ -d "$d" ] || continue
	a=$(cd "$d" && pwd)
	case $a/ in
	"$out"/*)
		echo "check-report: $d is in the report's own directory $out, which it empties: set UE_REPORT_DIR elsewhere" >&2
		exit 2 ;;
	esac
done
rm -rf "$out"
mkdir -p "$out"

# The merge's own failures, after the shards' lines.
problems=$out/problems
: >"$problems"
problem() { echo "host shards fail $*" >>"$problems"; }

# The finished shards: their directories (absolute, for the console logs'
# links), and which reported each row.
shards=() reported=() host_runs=0 secs=0
declare -A owner
say "check-report: $# shard(s) into $out"
for d in "$@"; do
	if [ ! -d "$d" ]; then
		problem "missing $d: no such directory"
		say "  $d: MISSING"
		continue
	fi
	a=$(cd "$d" && pwd)
	if [ ! -s "$a/results" ]; then
		problem "empty $d: no results (not a make check's UE_BUILD_DIR, or its run did not start)"
		say "  $d: EMPTY (no results)"
		continue
	fi
	if [ ! -f "$a/rows" ]; then
		problem "unfinished $d: no rows file (its run did not end)"
		say "  $d: UNFINISHED (no rows file)"
		continue
	fi
	shards+=("$a")
	s=$(cat "$a/seconds" 2>/dev/null) && [[ $s =~ ^[0-9]+$ ]] || s=0
	[ "$s" -le "$secs" ] || secs=$s
	h=$(cat "$a/host-checks" 2>/dev/null)
	[ "$h" != 1 ] || host_runs=$((host_runs + 1))
	say "  $d: $(tr '\n' ' ' <"$a/rows")(${s}s$([ "$h" != 1 ] || echo "; the host checks"))"
	while read -r k; do
		[ -n "$k" ] || continue
		if [ -n "${owner[$k]:-}" ]; then
			problem "overlap $k reported by both ${owner[$k]} and $d"
		else
			owner[$k]=$d reported+=("$k")
		fi
		# (a failed VM's console log, where report.sh looks for it)
		[ ! -d "$a/$k" ] || [ -e "$out/$k" ] || ln -s "$a/$k" "$out/$k"
	done <"$a/rows"
done
[ ${#shards[@]} = 0 ] || [ "$host_runs" -gt 0 ] ||
	problem "host_checks no shard ran the host checks (each had UE_HOST_CHECKS=0)"

# The results: every shard's lines in the order of the arguments, but a
# host line only as often as the one shard that wrote it most (its n-th
# copy in a shard is left out when an earlier shard's are at least n).
: >"$out/results"
: >"$out/kernels.lock"
: >"$out/notes"
if [ ${#shards[@]} -gt 0 ]; then
	awk 'FNR == 1 { split("", n) }
		$1 == "host" { if (++n[$0] <= kept[$0]) next; kept[$0]++ }
		{ print }' "${shards[@]/%//results}" >"$out/results"
	for f in kernels.lock notes; do
		cat "${shards[@]/%//$f}" 2>/dev/null | awk '!seen[$0]++' >"$out/$f"
	done
fi
cat "$problems" >>"$out/results"

# The rows in the order a whole run reports them: kernels.list's, then any
# other a shard reported.
order=$(ue_matrix -- name) || exit 2
order=${order//$'\n'/ }
rows=
for k in $order; do [ -z "${owner[$k]:-}" ] || rows="$rows $k"; done
left=
for k in $order; do [ -n "${owner[$k]:-}" ] || left="$left $k"; done
for k in "${reported[@]}"; do
	case " $order " in *" $k "*) ;; *) rows="$rows $k" ;; esac
done
[ -z "$left" ] || [ ${#shards[@]} = 0 ] ||
	say "NOTE: no shard reported these rows (left out, or unserved: see the notes):$left"
echo "$secs" >"$out/seconds"
for k in $rows; do echo "$k"; done >"$out/rows"

# shellcheck disable=SC2086
"$rig/report/report.sh" "$out/results" "$out/kernels.lock" "$out/notes" "$secs" $rows
