#!/bin/bash
# make check's job graph, stated once: every job, the jobs it waits for, the
# pool whose slot it holds and the file it makes, written as
# build/check/build.ninja for ninja to run (and the jobs' names, a line
# each, in build/check/jobs.list; each job and the jobs it waits for,
# tab-separated, in build/check/deps.tsv; each job and its product in
# build/check/products.tsv).
# Reads build/check/env.sh (check.sh: the rows and their facts). A job is
# "KIND.ARG" (modules.6.1, vm.debug, install-steps.trixie-arm64), run by
# rig/check/job.sh KIND.ARG.
#
# The job contract: a job's product is a real file (product, below: a
# row's kernel, its module's .ko, a VM's console, the .debs, an unpacked
# source tree); a job that cannot make it exits non-zero, so that ninja
# (-k 0) runs none of the jobs that wait for it, and the report names each
# of those as not run (check.sh). What a job checked is in its result
# lines, build/check/results.d/ID; a job whose product is those lines (a
# host check, a test of the package) ends in 0 whatever they say.
#
# Pools, the resources a job holds:
#   vm      a VM slot: UE_VM_JOBS (default 2). A Debian kernel's VM keeps
#           about half a core busy, but with three beside the builds on two
#           cores the VMs took twice as long and time-bound checks failed
#           (a debug kernel's fork sweep, suite ids past its row's VM's
#           900 s): the machine is CPU-bound, more slots only slow each VM
#   build   a core for a module build that VMs wait for: UE_BUILD_JOBS
#           (default 2)
#   progs   the test programs and selftests, one at a time: in the build
#           pool, the two architectures' programs, ready at once, took both
#           slots for a minute while the debug row's modules, ready a moment
#           later, waited (the first VM at 138 s of a warm run)
#   host    the heavier host checks, one at a time, and
#   install the .debs and the install test's steps, four at a time:
#           pools of their own, so that they never hold a module build
#           back (in one pool with the modules, host.deps and host.run,
#           ready before any module, took both slots and the modules were
#           built one at a time); they wait on dpkg more than they
#           compute, and each amd64 release has a slot: with one fewer,
#           the release that came last waited for another's steps and
#           ended the run
#   system  the booted systems' boots, two at a time (one vCPU a guest
#           but for the one that runs DKMS: tests/system/run.sh), beside
#           the two VM slots and after the debug rows' VMs (a third guest
#           beside those slowed them past their limits): in the VM pool
#           they came after every VM row, at the end of the run; one at a
#           time, the others waited for trixie's, the longest, and ended
#           the run
#   kernel  our debug kernels' builds, one at a time (each is make -j)
#   fetch   downloads, three at a time
#   chroot  debootstraps, and the booted-system test's images and disks,
#           one at a time
#   emu     qemu-user (the arm64 root, then the install test's DKMS step
#           in it), one: that step took an install slot for 2754 s niced
#           beside a debug kernel's build, and the amd64 releases' steps,
#           and their boots, waited for it
# No guest starts before our kernels and their modules are built (every
# vm-pool job waits for them): a run that builds a kernel (a new newest
# linux-source, a cold cache) has that build, its VM and then the booted
# systems as its longest chain, and the guests are what takes the CPU from
# it. Beside two VMs, at nice -5, a debug-newest build had compiled 620 of
# its 1260 objects after 27 min; beside one, 360 after 16. Cached, the
# builds end before any VM is ready. The modules, because a VM slot goes to
# the first job ready for it: while the debug-newest module was compiled
# (46 s), a Debian row's VM took the slot, and the debug VM, the longest
# chain's, waited 222 s for it to end. (So a debug kernel or module that
# fails to build leaves every VM not run: the run fails by its name either
# way.)
# Priorities (nice, priority below), within a pool and across them: our
# kernels' builds above all (-5, as root): on an empty cache they and then
# their VMs are the longest chain (in a cold run the two builds got half a
# core beside the VMs, and the newer one's ended at 3509 s of 4148);
# cached, they take nothing. At 0: a VM, our rows' modules (the longest VMs
# wait for them), the test programs (every VM waits for them: at nice 5
# beside the first minute's jobs, 6 CPU s took 65 s), the .debs (the
# install steps and the booted systems wait for them), the systems' images
# and disks (niced, a disk took 300 s for 25 CPU s, and on an empty cache
# trixie's mmdebstrap 1339 s for 46 CPU s, the longest chain of the run),
# what every Debian row waits for first (fetches, chroots, headers), and
# the emu pool's arm64 root and DKMS step (qemu-user: on an empty cache,
# 25 min or more). At 5: the Debian rows' modules, the UAPI check, the
# tools, and the amd64 install steps (user-events-run's checks and the
# install test's boots wait for them: at 10 beside the VMs they got a
# tenth of a core and ended the run). The host checks at 10.
# Within a pool, and among jobs ready at once, ninja starts them in the
# order of this file: the VM rows longest first (the debug kernels' take 9
# to 14 min, a Debian kernel's 2 to 5) and their modules in that order, the
# install test's boots and user-events-run's checks last.
. "$(dirname "$0")/../lib/prelude.sh"

rig=$(cd "$(dirname "$0")/.." && pwd)
build=${UE_BUILD_DIR:?}
# shellcheck source=/dev/null
. "$build/env.sh"
jobs=$build/jobs.list
: >"$jobs"
: >"$build/deps.tsv"
: >"$build/products.tsv"

version=$(cat "$root/VERSION")
# product ID: the file job ID makes, under build/check (the one place that
# says it: job.sh and check.sh read products.tsv). Our kernels, the
# fetched ones, the chroots, linux-source and the arm64 roots live in the
# cache: their product is a link to them, made once they are whole.
product() {
	local a=${1#*.}
	case $1 in
	kernel.* | fetch.*) echo "kernels/$a" ;;
	linux-source | linux-source-newest) echo "source/$1" ;;
	chroot.*) echo "chroots/$a" ;;
	headers.*) echo "chroots/$a.headers" ;;
	arm64-root.*) echo "arm64-roots/$a" ;;
	userspace.amd64) echo userspace ;;
	selftests.amd64) echo selftests ;;
	tools.amd64) echo tools-root ;;
	userspace.* | selftests.*) echo "${1%%.*}-$a" ;;
	tools.*) echo "tools-root-$a" ;;
	uapi) echo uapi.o ;;
	modules.*) echo "$a/mod/user_events.ko" ;;
	vm.*) echo "$a/console.log.txt" ;;
	debs) echo "install/debs/user-events-dkms_${version}_all.deb" ;;
	system-image.*) echo "system/$a.root" ;;
	system-disk.*) echo "system/$a/disk.img" ;;
	# (the tests: their result lines)
	*) echo "results.d/$1" ;;
	esac
}
# priority ID: the job's nice level (the header says why).
priority() {
	case $1 in
	kernel.*) echo -5 ;;
	modules.*) if [ "${kmade[${1#*.}]}" = ours ]; then echo 0; else echo 5; fi ;;
	install-steps.*-arm64) echo 0 ;;
	uapi | tools.* | install-steps.*) echo 5 ;;
	host.*) echo 10 ;;
	*) echo 0 ;;
	esac
}
# Our kernels' builds and their modules, which every guest waits for (the
# header says why).
guest_waits=$(for k in $debug_kernels; do echo "kernel.$k modules.$k"; done)
# edge ID POOL [JOB...]: the job ID, holding a slot of POOL (- for none),
# after the jobs named (and, in the vm pool, after guest_waits): it reads
# their products.
edge() {
	local id=$1 pool=$2 j deps=
	shift 2
	if [ "$pool" = vm ]; then
		for j in $guest_waits; do [[ " $* " == *" $j "* ]] || set -- "$@" "$j"; done
	fi
	for j in "$@"; do deps="$deps $(product "$j")"; done
	printf 'build %s: job%s\n  id = %s\n  nice = %s\n' "$(product "$id")" "${deps:+ |$deps}" \
		"$id" "$(priority "$id")"
	[ "$pool" = - ] || printf '  pool = %s\n' "$pool"
	echo "$id" >>"$jobs"
	printf '%s\t%s\n' "$id" "$*" >>"$build/deps.tsv"
	printf '%s\t%s\n' "$id" "$(product "$id")" >>"$build/products.tsv"
}
# modules_of ROW...: the jobs that build their modules.
modules_of() { local k; for k in "$@"; do echo "modules.$k"; done; }

# The VM rows, longest first: ours, the full rows with extra suites
# (kernels.list: column extra, suite ids), the other full amd64 rows, the
# other full rows (arm64), the short and config rows.
order=
for k in $debug_kernels; do order="$order $k"; done
for k in $stock; do [ "${klevel[$k]}" = full ] && [ "${kextra[$k]}" != - ] && order="$order $k"; done
for k in $stock; do [ "${klevel[$k]}" = full ] && [ "${kextra[$k]}" = - ] && [ "${karch[$k]}" = amd64 ] && order="$order $k"; done
for k in $stock; do [ "${klevel[$k]}" = full ] && [ "${kextra[$k]}" = - ] && [ "${karch[$k]}" != amd64 ] && order="$order $k"; done
for k in $stock; do [ "${klevel[$k]}" != full ] && order="$order $k"; done
arches=$(for k in $order; do echo "${karch[$k]}"; done | sort -u | tr '\n' ' ')

cat <<EOP
# make check's job graph (rig/check/graph.sh writes it; ninja runs it)
ninja_required_version = 1.10
builddir = .
pool vm
  depth = ${UE_VM_JOBS:-2}
pool build
  depth = ${UE_BUILD_JOBS:-2}
pool progs
  depth = 1
pool host
  depth = 1
pool install
  depth = 4
pool kernel
  depth = 1
pool fetch
  depth = 3
pool chroot
  depth = 1
pool system
  depth = 2
pool emu
  depth = 1
rule job
  command = $rig/check/job.sh \$id \$nice
  description = \$id

EOP

# --- what the VMs stand on ------------------------------------------------------
# (the rows are resolved already: check.sh, kernels.lock)
edge linux-source fetch
[ -z "$newest_kernels" ] || edge linux-source-newest fetch
for k in $debug_kernels; do
	# (series any: the newest linux-source, kernels.list)
	if [[ " $newest_kernels " == *" $k "* ]]; then
		edge "kernel.$k" kernel linux-source-newest
	else
		edge "kernel.$k" kernel linux-source
	fi
done
# (this machine's release first: our kernels' modules are built in it)
[ -z "$own_release" ] || edge "chroot.$own_release" chroot
for r in $releases; do
	[ "$r" = "$own_release" ] || edge "chroot.$r" chroot
done
for k in $stock; do edge "fetch.$k" fetch; done
for r in $releases; do edge "headers.$r" - "chroot.$r"; done
for a in $arches; do
	edge "userspace.$a" progs
	edge "selftests.$a" progs linux-source
	# (the arm64 perf and trace-cmd come from their .debs, cross-tools.sh)
	edge "tools.$a" fetch
done
edge uapi -

# --- modules and VMs, longest row first -------------------------------------------
for k in $order; do
	if [ "${kmade[$k]}" = ours ]; then
		# shellcheck disable=SC2046
		edge "modules.$k" build "kernel.$k" $([ -z "$own_release" ] || echo "chroot.$own_release")
	else
		edge "modules.$k" build "headers.${krel[$k]}" "fetch.$k"
	fi
done
for k in $order; do
	a=${karch[$k]}
	edge "vm.$k" vm "modules.$k" "userspace.$a" "selftests.$a" "tools.$a" uapi
done

if [ "$vms_only" != 1 ] && [ "$host_checks" != 0 ]; then
	# --- host checks --------------------------------------------------------------
	# (a shard of a CI matrix leaves them, and user-events-run's, to another:
	# UE_HOST_CHECKS=0, rig/report/check-report.sh)
	edge host.deps host
	edge host.timeline -
	edge host.console -
	edge host.boot-retry -
	edge host.cache-scratch -
	edge host.rig-jobs -
	edge host.check-report -
	edge host.junit -
	edge host.matrix -
	edge host.readme -
	if [ -n "$sample" ] && [ "${kmade[$sample]}" = ours ]; then s=kernel.$sample; else s=fetch.$sample; fi
	edge host.run host linux-source "$s"
	edge host.package host "$s"
	# (the probes' header of each row's module build, against its headers)
	# shellcheck disable=SC2046
	edge host.probes host $(modules_of $order)
fi

if [ "$vms_only" != 1 ]; then
	# --- the install test ---------------------------------------------------------
	# Its steps in each release's chroot for one amd64 row of the release,
	# once that row's module is built; the .deb with DKMS in an arm64 root
	# for one arm64 row (arm64-root.sh, begun early under qemu-user); the
	# boots of what DKMS built, last.
	systems=$("$root/tests/system/run.sh" list)
	edge debs install
	for r in $releases; do
		# (one amd64 and one arm64 row a release: check.sh, amd64_install
		# and arm64_install)
		k=${amd64_install[$r]:-}
		[ -z "$k" ] || edge "install-steps.$r" install debs userspace.amd64 "modules.$k"
		k=${arm64_install[$r]:-}
		[ -n "$k" ] || continue
		edge "arm64-root.$r" emu "fetch.$k"
		edge "install-steps.$r-arm64" emu debs "arm64-root.$r" userspace.arm64 "modules.$k"
	done
	# --- the booted-system test (tests/system/run.sh) --------------------------------
	# Each system's image in the debootstraps' pool, after them in this
	# file (mmdebstrap; warm, apt's answer to whether its packages
	# changed), and its disk there once the .debs are made (in the
	# install pool, the install steps took its slots, and the systems
	# waited for their disks); its boots in the system pool, in the
	# order of systems.list.
	# A run without that release's rows has no system of it.
	while read -r s r; do
		[ -n "${amd64_install[$r]:-}" ] || continue
		edge "system-image.$s" chroot
		edge "system-disk.$s" chroot "system-image.$s" debs
		# shellcheck disable=SC2046
		edge "system.$s" system "system-disk.$s" $(for k in $debug_kernels; do echo "vm.$k"; done)
	done <<<"$systems"
	for r in $releases; do
		[ -z "${amd64_install[$r]:-}" ] || edge "install-boot.$r" vm "install-steps.$r"
		[ -z "${arm64_install[$r]:-}" ] || edge "install-boot.$r-arm64" vm "install-steps.$r-arm64"
	done
fi

if [ "$vms_only" != 1 ] && [ "$host_checks" != 0 ]; then
	# --- user-events-run's checks ---------------------------------------------------
	# (after the install steps of its release: both use its chroot's apt)
	if [ -n "$run_kernel" ]; then
		edge run vm "modules.$run_kernel" "install-steps.${krel[$run_kernel]}"
	else
		edge run -
	fi
fi
