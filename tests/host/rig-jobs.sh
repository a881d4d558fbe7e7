#!/bin/bash
# Host check of the verdicts the rig itself gives where its own jobs go
# wrong (tests/vm/stage-vm.sh, tests/vm/job.sh): a VM row whose modules job
# ended without a verdict fails as not_run, while an unserved row or one
# whose build failed (and said so) records nothing more; a job whose
# function ends in a non-zero status fails by name.
# Prints "host rig_jobs pass|fail <case> [detail]" lines.
set -uo pipefail
vmdir=$(cd "$(dirname "$0")/../vm" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
result() { echo "host rig_jobs $1 $2${3:+ $3}"; }
expect() { # case got want
	if [ "$2" = "$3" ]; then result pass "$1"; else result fail "$1" "got '$2', want '$3'"; fi
}

# job_vm, with everything it would run after the verdict played by stubs.
(
	. "$vmdir/stage-fetch.sh"
	. "$vmdir/stage-vm.sh"
	build=$work/vm results=$work/vm/results
	mkdir -p "$build"
	record() { echo "$*" >>"$results"; }
	say() { :; }
	ue_job() { echo "ran $1" >>"$results"; }
	declare -A karch=()
	# no_verdict: fetched, built, and no ROW.ready.
	echo fetched >"$build/r1.row"
	job_vm r1
	expect no_verdict "$(cut -d' ' -f1-4 "$results")" "r1 vm fail not_run"
	# unserved: the archive does not serve it (resolve said so).
	: >"$results"
	echo unserved >"$build/r2.row"
	job_vm r2
	expect unserved.nothing "$(cat "$results")" ""
	# build_failed: its modules job recorded that and wrote fail.
	: >"$results"
	echo fetched >"$build/r3.row"
	echo fail >"$build/r3.ready"
	job_vm r3
	expect build_failed.nothing "$(cat "$results")" ""
)

# job.sh KIND.ARG where job_KIND fails (here: there is none, status 127).
build=$work/job
mkdir -p "$build/stamps"
cat >"$build/env.sh" <<EOF
declare -A krel=() klevel=() karch=() kroot=()
root=$(dirname "$(dirname "$vmdir")")
build=$build results=$build/results notes=$build/notes
stock= debug_kernels= releases= own_release= sample= run_kernel=
lock=$build/kernels.lock ubin=$build/userspace sbin=$build/selftests troot=$build/tools-root
EOF
UE_BUILD_DIR=$build UE_CACHE=$work/cache "$vmdir/job.sh" nosuch.x >"$work/job.out" 2>&1
rc=$?
expect job_status.exit "$rc" 0
expect job_status.recorded "$(cat "$build/results" 2>&1)" \
	"host job fail nosuch.x exit status 127: the rig's bug, see the run's output"
expect job_status.stamp "$([ -f "$build/stamps/nosuch.x" ] && echo made)" made
exit 0
