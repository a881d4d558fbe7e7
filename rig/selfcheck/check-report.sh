#!/bin/bash
# Host checks of the merge of make check's shards (rig/report/check-report.sh):
# a made-up whole run of three rows is split into two shard directories as
# two runs of some rows would leave them (UE_KERNELS="6.1 bpo" with
# the host checks, UE_KERNELS=debug with UE_HOST_CHECKS=0), and the merge
# of the two must print exactly what report.sh prints for the whole (the
# table, the packages, the notes, the failures and a failed VM's console,
# the verdict; the shards' timelines are not merged, so the whole has
# none), with the same exit status; then a row two shards reported, a
# missing, an empty and an unfinished shard, a failed host check in one
# shard, no shard with the host checks, and a report directory that would
# empty a shard's.
# Prints one line per check: "host check-report pass|fail <case> [detail]".
# Usage: check-report.sh
. "$(dirname "$0")/../lib/prelude.sh"

root=$(cd "$(dirname "$0")/../.." && pwd)
hostcheck_name=check-report
. "$(dirname "$0")/../lib/hostcheck.sh"
cd "$work" || exit 1
# (its report directory, never the checkout's build/check-report)
export UE_REPORT_DIR=$work/merged

# --- the whole run, and its two shards ----------------------------------------
# Host lines: tree, fetch and tools are written by every run (alike: the
# merge counts them once); deps, console and the install test's only by the
# shard with the host checks and the Debian rows (a). Suites appear in the
# whole in the order they first appear in a's lines, then b's (the table's
# columns follow the first appearance).
rows_a="6.1 bpo" rows_b=debug
cat >whole.results <<'EOF'
host tree pass unchanged
host fetch pass linux-source
host tools pass staged
6.1 fetch pass kernel
bpo fetch pass kernel
debug build pass module
6.1 build pass module
bpo build pass module
6.1 vm pass finished
debug vm pass finished
bpo vm pass finished
6.1 abi pass register
debug abi pass register
6.1 abi pass unregister
debug abi pass unregister
bpo abi pass register
bpo ids pass suite_completed
host install pass bookworm.dkms_build
host install pass trixie.dkms_build
6.1 install pass boot
bpo install pass boot
host deps pass check.closure
host console pass early_exit
debug faults pass kmalloc
EOF
cat >whole.lock <<'EOF'
# NOTE 6.1: linux-image-6.1.0-27-amd64-unsigned 6.1.115-1 is listed in bookworm but the mirror does not serve it
6.1 bookworm bookworm,bookworm-security linux-image-6.1.0-28-amd64-unsigned linux-headers-6.1.0-28-amd64 6.1.119-1 full
bpo trixie trixie linux-image-6.12.9-amd64-unsigned linux-headers-6.12.9-amd64 6.12.9-1 full
debug ours linux-source-6.12 debug-6.12.9 - 6.12.9 full
EOF
cat >whole.notes <<'EOF'
NOTE: the VMs run Debian 12's QEMU 7.2 (made up)
NOTE: 6.1: linux-image-6.1.0-27-amd64-unsigned 6.1.115-1 is listed in bookworm but the mirror does not serve it
NOTE: debug: a note of shard b's
EOF
# split WHOLE DIR: the whole's DIR (whole.results, .lock, .notes) into
# shards a and b under DIR.
split() {
	local w=$1 d=$2 s
	mkdir -p "$d/a" "$d/b"
	awk -v a=" $rows_a " -v b=" $rows_b " -v d="$d" '
		$1 == "host" && $2 ~ /^(tree|fetch|tools)$/ { print >(d "/a/results"); print >(d "/b/results"); next }
		$1 == "host" || index(a, " " $1 " ") { print >(d "/a/results"); next }
		index(b, " " $1 " ") { print >(d "/b/results") }' "$w.results"
	awk -v d="$d" '$1 == "debug" { print >(d "/b/kernels.lock"); next } { print >(d "/a/kernels.lock") }' "$w.lock"
	sed -n '1p; /shard b/!p' "$w.notes" | awk '!seen[$0]++' >"$d/a/notes"
	sed -n '1p; /shard b/p' "$w.notes" >"$d/b/notes"
	for s in a b; do
		printf '1000.00\t1010.00\t10.00\t1.00\n' | sed 's/^/deps\t/' >"$d/$s/timeline.tsv"
	done
	# shellcheck disable=SC2086
	printf '%s\n' $rows_a >"$d/a/rows"
	printf '%s\n' $rows_b >"$d/b/rows"
	echo 3000 >"$d/a/seconds"
	echo 2800 >"$d/b/seconds"
	echo 1 >"$d/a/host-checks"
	echo 0 >"$d/b/host-checks"
}
# report_whole WHOLE: report.sh on the whole, as check.sh runs it (the
# longest shard's time), in $work/whole/; status in $rc_whole.
report_whole() {
	rm -rf whole && mkdir whole
	cp "$1.results" whole/results && cp "$1.lock" whole/kernels.lock && cp "$1.notes" whole/notes
	[ ! -d "$1.logs" ] || cp -r "$1.logs/." whole/
	# shellcheck disable=SC2086
	"$root/rig/report/report.sh" whole/results whole/kernels.lock whole/notes 3000 $rows_a $rows_b 2>&1 |
		sed "s#$work/whole#DIR#g; s#whole/#DIR/#g" >whole.out
	rc_whole=${PIPESTATUS[0]}
}
# merge DIR...: check-report.sh on them; its report in merge.out (paths
# as DIR, its own "== " lines in merge.head); status in $rc_merge.
merge() {
	"$root/rig/report/check-report.sh" "$@" >merge.all 2>&1
	rc_merge=$?
	grep '^== ' merge.all >merge.head
	grep -v '^== ' merge.all | sed "s#$work/merged#DIR#g" >merge.out
}
differ() { diff "$1" "$2" | grep '^[<>]' | head -4 | tr '\n' '|'; }

# --- the merge of two shards is the whole -----------------------------------------
split whole s
report_whole whole
merge s/a s/b
if [ $rc_merge = 0 ] && [ "$rc_whole" = 0 ] && cmp -s whole.out merge.out &&
   grep -qx '24 passed, 0 failed' merge.out; then
	result pass merge
else
	result fail merge "status $rc_merge (whole $rc_whole): $(differ whole.out merge.out)$(tail -1 merge.out)"
fi
# (what it says of the shards, and what it leaves: the rows in
# kernels.list's order, each lock and note line once)
want_head="== check-report: 2 shard(s) into $work/merged
==   s/a: 6.1 bpo (3000s; the host checks)
==   s/b: debug (2800s)"
if [ "$(grep -v '^== NOTE: no shard reported' merge.head)" = "$want_head" ] &&
   [ "$(tr '\n' ' ' <merged/rows)" = "6.1 bpo debug " ] &&
   cmp -s merged/kernels.lock whole.lock && cmp -s merged/notes whole.notes &&
   [ "$(cat merged/seconds)" = 3000 ]; then
	result pass merge_files
else
	result fail merge_files "$(tr '\n' '|' <merge.head) rows $(tr '\n' ' ' <merged/rows)"
fi

# --- a failed check in a shard fails the merge, as it fails the whole ------------
# (a VM that did not finish: report.sh shows its console's last lines, which
# the merge finds through its link to the shard's row directory)
sed 's/^debug vm pass finished$/debug vm fail finished the VM did not finish in 1500s/' whole.results >fail.results
cp whole.lock fail.lock && cp whole.notes fail.notes
mkdir -p fail.logs/debug && printf 'booting\n    ok 1 register\nkernel BUG at made-up.c:1\n' >fail.logs/debug/console.log.txt
rm -rf s && split fail s && cp -r fail.logs/debug s/b/
report_whole fail
merge s/a s/b
if [ $rc_merge != 0 ] && [ "$rc_whole" != 0 ] && cmp -s whole.out merge.out &&
   grep -qx '23 passed, 1 failed' merge.out && grep -q 'kernel BUG at made-up.c:1' merge.out; then
	result pass failing_shard
else
	result fail failing_shard "status $rc_merge (whole $rc_whole): $(differ whole.out merge.out)$(tail -1 merge.out)"
fi

# --- a host line that fails in one shard stays, the one that passes elsewhere too ---
rm -rf s && split whole s
sed -i 's/^host tree pass unchanged$/host tree fail unchanged git status: M src\/made-up.c/' s/b/results
merge s/a s/b
if [ $rc_merge != 0 ] && grep -qx '24 passed, 1 failed' merge.out &&
   grep -q '^  host tree unchanged: git status: M src/made-up.c' merge.out; then
	result pass host_fail_kept
else
	result fail host_fail_kept "status $rc_merge: $(tail -1 merge.out)"
fi

# --- a row two shards reported ----------------------------------------------------
rm -rf s && split whole s
echo 6.1 >>s/b/rows
grep '^6\.1 ' s/a/results >>s/b/results
merge s/a s/b
if [ $rc_merge != 0 ] && grep -q '^  host shards overlap: 6.1 reported by both s/a and s/b$' merge.out; then
	result pass overlap
else
	result fail overlap "status $rc_merge: $(grep shards merge.out | head -2 | tr '\n' '|')$(tail -1 merge.out)"
fi

# --- shards that are not there, empty, or did not end ------------------------------
rm -rf s && split whole s
mkdir -p empty
# (results, but no rows file: killed before its report)
mkdir -p unfinished && cp s/b/results unfinished/
merge s/a s/b s/nowhere empty unfinished
declare -A named=(
	[missing]='^  host shards missing: s/nowhere: no such directory$'
	[empty]='^  host shards empty: empty: no results'
	[unfinished]='^  host shards unfinished: unfinished: no rows file')
for c in missing empty unfinished; do
	if [ $rc_merge != 0 ] && [ "$(grep -c "${named[$c]}" merge.out)" = 1 ] &&
	   grep -qx '24 passed, 3 failed' merge.out; then
		result pass "$c"
	else
		result fail "$c" "status $rc_merge: $(grep shards merge.out | head -3 | tr '\n' '|')$(tail -1 merge.out)"
	fi
done

# --- no shard ran the host checks ----------------------------------------------------
rm -rf s && split whole s
echo 0 >s/a/host-checks
merge s/a s/b
if [ $rc_merge != 0 ] && grep -q '^  host shards host_checks: no shard ran the host checks' merge.out; then
	result pass no_host_checks
else
	result fail no_host_checks "status $rc_merge: $(tail -1 merge.out)"
fi

# --- the usage, and a report directory that would empty a shard's ------------------
rm -rf s && split whole s
"$root/rig/report/check-report.sh" >usage.out 2>&1
rc_usage=$?
UE_REPORT_DIR=$work/s "$root/rig/report/check-report.sh" s/a s/b >own.out 2>&1
rc_own=$?
if [ $rc_usage = 2 ] && grep -q '^usage: ' usage.out; then
	result pass usage
else
	result fail usage "status $rc_usage: $(head -1 usage.out)"
fi
if [ $rc_own = 2 ] && [ -s s/a/results ] && [ -s s/b/results ]; then
	result pass own_dir
else
	result fail own_dir "status $rc_own: $(head -1 own.out)"
fi
