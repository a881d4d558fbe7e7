#!/bin/bash
# Host check of the verdicts the rig itself gives where its own jobs go
# wrong (rig/check/stage-vm.sh, rig/check/job.sh): a VM row whose modules job
# ended without a verdict fails as not_run, while an unserved row or one
# whose build failed (and said so) records nothing more; a job whose
# function ends in a non-zero status fails by name; and the chroots' lock
# that make check and user-events-run share.
# Prints "host rig_jobs pass|fail <case> [detail]" lines.
. "$(dirname "$0")/../lib/prelude.sh"
rig=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
result() { echo "host rig_jobs $1 $2${3:+ $3}"; }
expect() { # case got want
	if [ "$2" = "$3" ]; then result pass "$1"; else result fail "$1" "got '$2', want '$3'"; fi
}

# job_vm, with everything it would run after the verdict played by stubs.
(
	. "$rig/check/stage-fetch.sh"
	. "$rig/check/stage-vm.sh"
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
declare -A krel=() klevel=() karch=() kroot=() kmade=() kflavour=() klimit=() kextra=() kflags=()
root=$(dirname "$rig")
build=$build results=$build/results notes=$build/notes
stock= debug_kernels= releases= own_release= sample= run_kernel=
lock=$build/kernels.lock ubin=$build/userspace sbin=$build/selftests troot=$build/tools-root
EOF
UE_BUILD_DIR=$build UE_CACHE=$work/cache "$rig/check/job.sh" nosuch.x >"$work/job.out" 2>&1
rc=$?
expect job_status.exit "$rc" 0
expect job_status.recorded "$(cat "$build/results" 2>&1)" \
	"host job fail nosuch.x exit status 127: the rig's bug, see the run's output"
expect job_status.stamp "$([ -f "$build/stamps/nosuch.x" ] && echo made)" made

# The chroots' lock (chroot-lib.sh, ue_chroot_lock): a command that changes
# a chroot (apt-get, taken alone) waits for one that holds it, and shared
# holders (builds) run together. Without it, user-events-run's apt-get in a
# chroot beside make check's failed on dpkg's lock. The holders sleep, so
# that a wait shows in whole seconds.
(
	log() { :; }
	UE_CACHE=$work/cache
	. "$rig/lib/chroot-lib.sh"
	c=$UE_CACHE/chroots/rel
	hold() { # MODE SECS: the lock held that long, in the background, once taken
		rm -f "$work/held"
		( ue_chroot_lock "$1" "$c" lk && : >"$work/held" && sleep "$2" ) &
		while [ ! -e "$work/held" ]; do sleep 0.1; done
	}
	waited() { # MODE: seconds to take the lock
		local t0 lk2
		t0=$(date +%s%N)
		ue_chroot_lock "$1" "$c" lk2 || { echo failed; return; }
		exec {lk2}>&-
		echo $(( ($(date +%s%N) - t0) / 1000000000 ))
	}
	hold -s 2
	expect chroot_lock.alone_waits_for_shared "$(waited -x | sed 's/^[1-9][0-9]*$/waited/')" waited
	wait
	hold -x 2
	expect chroot_lock.shared_waits_for_alone "$(waited -s | sed 's/^[1-9][0-9]*$/waited/')" waited
	wait
	hold -s 2
	expect chroot_lock.shared_together "$(waited -s)" 0
	wait
	# arm64-root.sh holds <chroot>.lock around its whole use of a root
	# and runs its commands through ue_chroot_run: the command lock must
	# not be that file (it once was, and the arm64 DKMS step waited on
	# itself).
	# (in a session of its own, so that a flock left waiting goes with it)
	exec {outer}>"$c.lock" && flock -x "$outer"
	setsid bash -c 'log() { :; }; . "$1/chroot-lib.sh"; ue_chroot_lock -x "$2" lk && : >"$3"' \
		- "$rig/lib" "$c" "$work/inner" &
	inner=$!
	for _ in $(seq 50); do [ -e "$work/inner" ] && break; sleep 0.1; done
	expect chroot_lock.under_arm64_root_lock "$([ -e "$work/inner" ] && echo taken)" taken
	kill -- -"$inner" 2>/dev/null
	exec {outer}>&-
	wait
)
exit 0
