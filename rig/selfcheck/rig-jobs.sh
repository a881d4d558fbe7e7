#!/bin/bash
# Host check of the job contract of make check's graph (rig/check/graph.sh,
# job.sh, not-run.sh): graph.sh's real graph of two rows, run by ninja with
# the real job.sh over stub stages that make each job's product, except
# where the check takes it away: a job that ends without its product, or
# in a non-zero status, fails (its lines in results.d/ID.failed, its
# product removed), ninja runs none of the jobs that wait for it, and
# not-run.sh names each of those; the other row runs through. And the
# chroots' lock that make check and user-events-run share, and what a
# run killed in a chroot's debootstrap or apt-get leaves.
# Prints "host rig_jobs pass|fail <case> [detail]" lines.
. "$(dirname "$0")/../lib/prelude.sh"
rig=$(cd "$(dirname "$0")/.." && pwd)
hostcheck_name=rig_jobs
. "$(dirname "$0")/../lib/hostcheck.sh"

# A rig of the real graph, job.sh and libraries, and stub stages: each job
# makes its product unless build/take/ID exists (it then makes none), and
# ends in the status build/status/ID holds (default 0).
mkdir -p "$work/rig/check"
cp -a "$rig/lib" "$work/rig/"
cp "$rig/check/graph.sh" "$rig/check/job.sh" "$rig/check/not-run.sh" "$rig/check/timeline.sh" \
	"$work/rig/check/"
cat >"$work/rig/check/stage-stub.sh" <<'EOS'
stub() {
	[ -e "$build/take/$id" ] || [[ $product == "$build/results.d/"* ]] ||
		{ mkdir -p "$(dirname "$product")" && echo "$id" >"$product"; }
	echo "${arg:-host} stub pass $id" >>"$results"
	return "$(cat "$build/status/$id" 2>/dev/null || echo 0)"
}
for kind in fetch chroot headers userspace selftests tools uapi modules vm linux_source; do
	eval "job_$kind() { stub; }"
done
EOS
build=$work/build
mkdir -p "$build/take" "$build/status" "$build/results.d"
cat >"$build/env.sh" <<EOS
declare -A krel=([r1]=rel [r2]=rel) klevel=([r1]=full [r2]=full) karch=([r1]=amd64 [r2]=amd64)
declare -A kroot=() kmade=([r1]=debian [r2]=debian) kseries=() kflavour=() klimit=()
declare -A kextra=([r1]=- [r2]=-) kflags=() amd64_install=() arm64_install=()
root=$(dirname "$rig") rig=$work/rig build=$build notes=$build/notes
kernels=" r1 r2" stock=" r1 r2" debug_kernels= newest_kernels= releases="rel " own_release=
sample=r1 run_kernel=r1 vms_only=1 host_checks=1
lock=$build/kernels.lock ubin=$build/userspace sbin=$build/selftests troot=$build/tools-root
EOS
UE_BUILD_DIR=$build "$work/rig/check/graph.sh" >"$build/build.ninja" 2>"$work/graph.err"
expect graph.made "$?:$(cat "$work/graph.err")" "0:"
# modules.r1 ends in 0 without its product (deleted, as it were); tools
# ends in 1 after making its product.
: >"$build/take/modules.r1"
echo 1 >"$build/status/tools.amd64"
UE_BUILD_DIR=$build UE_CACHE=$work/cache ninja -C "$build" -k 0 >"$work/ninja.out" 2>&1
UE_BUILD_DIR=$build "$work/rig/check/not-run.sh" >"$work/not-run"
expect no_product.failed "$(ls "$build/results.d/modules.r1"* | sed 's|.*/||')" modules.r1.failed
expect no_product.said "$(grep -c '^r1 modules fail product modules.r1 made no r1/mod/user_events.ko' \
	"$build/results.d/modules.r1.failed")" 1
expect exit_status.failed "$(ls "$build/results.d/tools.amd64"* | sed 's|.*/||')" tools.amd64.failed
expect exit_status.product_removed "$([ -e "$build/tools-root" ] && echo kept || echo removed)" removed
expect exit_status.said "$(grep -c '^host tools fail exit_status tools.amd64 ended in status 1' \
	"$build/results.d/tools.amd64.failed")" 1
expect ran.product "$(cat "$build/r2/mod/user_events.ko" 2>&1)" modules.r2
expect ran.results "$(cat "$build/results.d/fetch.r2" 2>&1)" "r2 stub pass fetch.r2"
# vm.r1 waits for both; vm.r2 for tools: neither ran, each named with what
# it lacked; nothing else is named.
expect not_run "$(sort "$work/not-run")" "$(printf '%s\n' \
	"r1 vm fail not_run vm.r1: modules.r1 (r1/mod/user_events.ko) tools.amd64 (tools-root)" \
	"r2 vm fail not_run vm.r2: tools.amd64 (tools-root)")"
# A job cut off (its lines still results.d/ID.part: ninja killed) fails.
mv "$build/results.d/fetch.r2" "$build/results.d/fetch.r2.part"
expect cut_off "$(UE_BUILD_DIR=$build "$work/rig/check/not-run.sh" | grep fetch.r2)" \
	"r2 fetch fail cut_off fetch.r2: it started and never ended (the output of ninja says why)"

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
	hold() { # MODE SECS: the lock held that long (SECS "-": until release),
		# in the background, once taken
		rm -f "$work/held" "$work/release"
		( ue_chroot_lock "$1" "$c" lk && : >"$work/held" &&
		  if [ "$2" = - ]; then
			while [ ! -e "$work/release" ]; do sleep 0.1; done
		  else
			sleep "$2"
		  fi ) &
		while [ ! -e "$work/held" ]; do sleep 0.1; done
	}
	release() { : >"$work/release"; wait; }
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
	# (with flock -n, not a time: beside the first jobs of a run, taking
	# a free lock took 2 to 3 s at nice 10; and held until both are asked:
	# a hold of 2 s had ended before the second at a load of 20)
	hold -s -
	expect chroot_lock.shared_together \
		"$(flock -n -s "$c.run.lock" true && echo taken)" taken
	expect chroot_lock.alone_refused_beside_shared \
		"$(flock -n -x "$c.run.lock" true || echo refused)" refused
	release
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
# A debootstrap killed in its second stage (ue_chroot_make): the /proc it
# mounted in the chroot goes with it, and no chroot is taken as made.
# The stub mounts what debootstrap's second stage mounts there, then is
# killed as ninja kills a run's jobs.
(
	log() { :; }
	UE_CACHE=$work/cache UE_MIRROR=file:///nonexistent UE_HOST_KEYRING=$work/keyring
	: >"$UE_HOST_KEYRING"
	. "$rig/lib/apt-lib.sh"
	. "$rig/lib/chroot-lib.sh"
	mkdir -p "$work/stub"
	cat >"$work/stub/debootstrap" <<'EOS'
#!/bin/sh
for a; do t=$c c=$a; done
mkdir -p "$t/proc" && mount -t proc proc "$t/proc" && kill -KILL $$
EOS
	chmod +x "$work/stub/debootstrap"
	c=$(ue_chroot_dir killed)
	PATH=$work/stub:$PATH ue_chroot_make killed 2>/dev/null
	expect chroot_make.killed_fails "$?" 1
	expect chroot_make.killed_left_no_mount "$(awk -v p="$c/" 'index($2, p) == 1' /proc/mounts)" ""
	expect chroot_make.killed_not_complete "$(cat "$c/.ue-complete" 2>/dev/null)" ""
	# (a mount the check would otherwise leave behind)
	awk -v p="$c/" 'index($2, p) == 1 { print $2 }' /proc/mounts | xargs -r umount -l
	# A run killed during an install leaves dpkg "interrupted" in the
	# cached chroot, and apt refuses every install until dpkg --configure
	# -a: ue_chroot_install's second try comes after it. (ue_chroot_run
	# played by a stub with that dpkg: the real one needs a chroot.)
	ue_chroot_run() {
		shift 2
		case $1 in
		dpkg) : >"$work/configured" ;;
		apt-get) [ "$2" != -y ] || [ -e "$work/configured" ] ||
			{ echo "E: dpkg was interrupted"; return 100; } ;;
		esac
	}
	mkdir -p "$UE_CACHE/chroots"
	ue_chroot_install interrupted linux-headers-x=1
	expect chroot_install.after_interrupted_dpkg "$?" 0
)
exit 0
