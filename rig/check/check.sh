#!/bin/bash
# make check: build the module for every target kernel, boot each kernel in
# QEMU (TCG) with a busybox initramfs, run the suites of tests/userspace
# inside it (among them the upstream user_events selftests, built from
# Debian's linux-source-6.12), scan the console for kernel splats, print a
# kernel x suite table and end with "N passed, N failed". Exits non-zero on any failure, splat,
# timeout, or kernel that could not be fetched.
#
# Environment:
#   UE_CACHE       cache directory (default ~/.cache/user-events-dkms)
#   UE_KERNELS     space-separated subset of rows to run (default: all);
#                  a subset is announced, never silent
#   UE_KERNELS_LOCK  a lock file of an earlier run (build/check/kernels.lock):
#                  the same packages again instead of the newest
#   UE_VM_TIMEOUT  seconds every VM may run (default: its row's limit in
#                  rig/kernels.list)
#   UE_VM_JOBS     VMs that run at once (default 2: rig/check/graph.sh)
#   UE_BUILD_JOBS  builds that run at once beside them (default 2)
#   UE_VM_BOOT_TIMEOUT  seconds a guest may take to reach user space before
#                  it is booted again (default 120, vm-lib.sh)
#   UE_BUILD_DIR   where results and logs go (default build/check)
#   UE_VMS_ONLY=1  only the VMs: no host checks, no install test, no
#                  user-events-run (make soak)
#   UE_HOST_CHECKS=0  no host checks (tests/host/, rig/selfcheck/) and no
#                  user-events-run: a shard of a CI matrix whose other
#                  shard runs them; its rows' install test stays
#                  (rig/report/check-report.sh)
#   UE_SUITES, UE_STRESS_SECS, UE_SUITE_TIMEOUT  the suites each VM runs,
#                  the stress suite's time and the guest's cut-off of a
#                  suite (boot-lib.sh; make soak, rig/check/soak.sh)
#
# This is the entry point: it installs what the run needs, writes the rows'
# facts (build/check/env.sh) and the job graph (build/check/build.ninja,
# rig/check/graph.sh: every job, what it waits for and the pool it holds),
# has ninja run the graph, and prints the report. Each job is one call of
# rig/check/job.sh, whose work lives in a file per stage (stage-*.sh).
. "$(dirname "$0")/../lib/prelude.sh"

root=$(cd "$(dirname "$0")/../.." && pwd)
rig=$root/rig
. "$rig/lib/vm-lib.sh"
. "$rig/check/timeline.sh"
. "$rig/lib/matrix-lib.sh"
export UE_CACHE
build=${UE_BUILD_DIR:-$root/build/check}
export UE_BUILD_DIR=$build
t_start=$(date +%s)

# The rows of kernels.list: every kernel Debian ships, and our own builds
# with KUnit, KASAN, lockdep and kmemleak (tests/kernel/).
all_kernels=$(ue_matrix -- name) || exit 2
all_kernels=${all_kernels//$'\n'/ }
kernels=${UE_KERNELS:-$all_kernels}
case ${UE_HOST_CHECKS:-1} in
0 | 1) ;;
*) echo "check: UE_HOST_CHECKS is 0 or 1, not ${UE_HOST_CHECKS}" >&2; exit 2 ;;
esac

# Results: one line per check, "<kernel> <suite> pass|fail <case> [detail]",
# a file a job in build/check/results.d/ (job.sh), and this script's own in
# results.d/check; joined in build/check/results at the end.
rm -rf "$build"
mkdir -p "$build/results.d"
results=$build/results.d/check
: >"$results"
record() { echo "$*" >>"$results"; }
# The timeline: a line per job (ue_job, rig/check/timeline.sh), read by report.sh.
export UE_TIMELINE=$build/timeline.tsv
: >"$UE_TIMELINE"

# --- dependencies -----------------------------------------------------------
# Installed when missing; from here on PATH has only the programs of a new
# machine with them (tests/deps.sh).
tree_status_before=$(git -C "$root" status --porcelain 2>&1)
ue_job deps ue_deps_path check "$build/path" || exit 1
# (its PATH, which the job's subshell exported)
[ "${UE_DEPS_PATH:-1}" != 1 ] || export PATH=$build/path

unknown=
for k in $kernels; do
	case " $all_kernels " in *" $k "*) ;; *) unknown="$unknown $k" ;; esac
done
if [ -n "$unknown" ]; then
	echo "check: UE_KERNELS names rows that kernels.list does not have:$unknown" >&2
	exit 2
fi
if [ "$kernels" != "$(echo $all_kernels)" ] && [ "$kernels" != "$all_kernels" ]; then
	say "NOTE: UE_KERNELS restricts this run to: $kernels (targets: $(echo $all_kernels))"
fi
[ "${UE_HOST_CHECKS:-1}" = 1 ] ||
	say "NOTE: UE_HOST_CHECKS=0: no host checks and no user-events-run in this run (a shard; another runs them)"

# --- QEMU ---------------------------------------------------------------------
# The VMs' QEMU: bookworm-backports' (rig/fetch/fetch-qemu.sh says why);
# where the mirror lacks it, the machine's QEMU 7.2, said aloud.
notes=$build/notes
: >"$notes"
if UE_QEMU_ROOT=$(ue_job fetch-qemu "$rig/fetch/fetch-qemu.sh" 2>"$build/fetch-qemu.log"); then
	export UE_QEMU_ROOT
	say "QEMU: $("$UE_QEMU_ROOT/usr/bin/qemu-system-x86_64" --version | head -1) (bookworm-backports, $UE_QEMU_ROOT)"
else
	unset UE_QEMU_ROOT
	echo "NOTE: the VMs run Debian 12's QEMU 7.2, whose stale int3 may fail a VM (docs/testing.md, Two CPUs): $(tail -1 "$build/fetch-qemu.log")" >>"$notes"
	say "QEMU: $(qemu-system-x86_64 --version | head -1) (this machine's: $(tail -1 "$build/fetch-qemu.log"))"
fi

# The rate of this machine's TSC, which amd64 guests read under TCG: they
# are given it rather than time it at boot (rig/check/host-tsc.c, ue_boot).
if [ "$(uname -m)" = x86_64 ] &&
   gcc -O2 -o "$build/host-tsc" "$rig/check/host-tsc.c" 2>"$build/host-tsc.log" &&
   UE_VM_TSC_KHZ=$("$build/host-tsc") && [ "$UE_VM_TSC_KHZ" -gt 0 ]; then
	export UE_VM_TSC_KHZ
	say "host TSC: $UE_VM_TSC_KHZ kHz (the amd64 guests' tsc_early_khz)"
else
	unset UE_VM_TSC_KHZ
	echo "NOTE: the amd64 guests time their TSC themselves: this machine's rate could not be measured ($(uname -m); build/check/host-tsc.log)" >>"$notes"
fi

# --- the rows' facts, for every job (build/check/env.sh) -----------------------
# kernels.list gives each row how it is made (kmade: a Debian package, or
# ours), its series, flavour (ours: tests/kernel/build.sh's), level (full,
# short or config), VM limit, extra suites, flags and architecture (the
# flavour's), and each Debian row its release (whose chroot builds its
# module). The rows go in UE_KERNELS's order: stock, Debian's;
# debug_kernels, ours. A row's kernel directory (kroot): a Debian row's in
# the cache, ours through the link its kernel job makes (graph.sh).
declare -A krel klevel karch kroot kmade kseries kflavour klimit kextra kflags amd64_install arm64_install
while read -r k made rel series fl level limit extra flags arch; do
	[[ " $kernels " == *" $k "* ]] || continue
	kmade[$k]=$made kseries[$k]=$series kflavour[$k]=$fl klevel[$k]=$level klimit[$k]=$limit
	kextra[$k]=$extra kflags[$k]=$flags karch[$k]=$arch
	if [ "$made" = ours ]; then
		kroot[$k]=$build/kernels/$k
	else
		krel[$k]=$rel kroot[$k]=$UE_CACHE/kernels/$k
	fi
done < <(ue_matrix -- name made release series flavour level limit extra flags arch)
stock= debug_kernels= newest_kernels=
for k in $kernels; do
	if [ "${kmade[$k]}" = ours ]; then
		debug_kernels="$debug_kernels $k"
		[ "${kseries[$k]}" != any ] || newest_kernels="$newest_kernels $k"
	else
		stock="$stock $k"
	fi
done

# --- the Debian rows, resolved to packages (build/check/kernels.lock) -----------
# Before the graph: a row the mirror does not serve (kernels.list allows
# it: unserved-ok) leaves the run, said in the notes; one that resolves to
# no package fails, and neither has jobs.
lock=$build/kernels.lock
: >"$lock"
if [ -n "$stock" ]; then
	say "resolving${UE_KERNELS_LOCK:+ (from $UE_KERNELS_LOCK)}:$stock"
	# shellcheck disable=SC2086
	ue_job resolve "$rig/fetch/resolve.sh" $stock >"$lock"
	grep '^# NOTE' "$lock" | sed 's/^# NOTE /NOTE: /' >>"$notes"
	grep '^# UNSERVED' "$lock" | sed 's/^# UNSERVED \([^ ]*\)/NOTE: \1 NOT TESTED:/' >>"$notes"
	grep -v '^#' "$lock" | sed 's/^/   /'
	served=
	for k in $stock; do
		if grep -q "^# UNSERVED $k " "$lock"; then
			kernels=$(echo " $kernels " | sed "s/ $k / /")
		elif awk -v k="$k" '$1 == k && NF == 7 { f = 1 } END { exit !f }' "$lock"; then
			served="$served $k"
		else
			record "$k fetch fail kernel $(grep "^# MISSING $k " "$lock" | cut -d' ' -f4-)"
		fi
	done
	stock=$served
fi
releases=$(for k in $stock; do echo "${krel[$k]}"; done | sort -u | tr '\n' ' ')
# This machine's release, where the run has its chroot: our kernels' modules
# are built there, with this machine's compiler and a ccache
# (stage-build.sh).
own_release=$(. /etc/os-release 2>/dev/null; echo "${VERSION_CODENAME:-}")
[[ -n $own_release && " $releases " == *" $own_release "* ]] || own_release=
# The kernel whose headers configure the host checks: a bookworm kernel's
# (this machine's compiler builds for it), else any Debian one, else ours.
sample=
for k in $stock; do [ "${krel[$k]}" = bookworm ] && [ "${karch[$k]}" = amd64 ] && { sample=$k; break; }; done
for k in $stock; do [ -n "$sample" ] || { [ "${karch[$k]}" = amd64 ] && sample=$k; }; done
[ -n "$sample" ] || read -r sample _ <<<"$debug_kernels"
# user-events-run's checks (tests/run/check.sh) boot its default kernel
# (kernels.list: flag run) where this run has it; else the first amd64
# Debian row.
run_kernel=
for k in $(ue_matrix flags~run -- name) $stock; do
	[[ " $stock " == *" $k "* ]] && [ "${karch[$k]}" = amd64 ] && { run_kernel=$k; break; }
done
# The install test's steps in a release's chroot take one amd64 row of it,
# its first in kernels.list's order: the steps test the package with that
# release's apt and DKMS (install, a kernel upgrade, purge, the package
# upgrade, autopkgtest), which are the same for each of its kernels; each
# row's VM loads the module built as DKMS builds it there (stage-build.sh).
# (Most of the steps' CPU is their apt and dpkg runs, whatever the number
# of kernels: one kernel rather than all of them saved a run about 270 CPU
# s of the steps' 1500, and a boot for each other row.)
for k in $stock; do
	[ "${karch[$k]}" = amd64 ] && [ -z "${amd64_install[${krel[$k]}]:-}" ] && amd64_install[${krel[$k]}]=$k
done
# The install test's DKMS step in an arm64 root (qemu-user: minutes, and a
# kernel's headers stay in the root, rig/fetch/arm64-root.sh) takes one
# arm64 row a release, its first in kernels.list's order, but not one
# whose kernel lacks KALLSYMS_ALL (kernels.list: no-kallsyms-all): DKMS
# there would need the System.map of its -dbg package. The rows left out
# are said in the notes.
for k in $stock; do
	[ "${karch[$k]}" = arm64 ] || continue
	r=${krel[$k]}
	if [[ ${kflags[$k]} == *no-kallsyms-all* ]]; then
		echo "NOTE: $k: no install test (the .deb with DKMS in an arm64 root): its kernel has no KALLSYMS_ALL, and DKMS there would need the System.map of its -dbg package" >>"$notes"
	elif [ -z "${arm64_install[$r]:-}" ]; then
		arm64_install[$r]=$k
	else
		echo "NOTE: $k: no install test (the .deb with DKMS in an arm64 root): ${arm64_install[$r]}'s stands for $r's arm64 kernels" >>"$notes"
	fi
done
{
	declare -p krel klevel karch kroot kmade kseries kflavour klimit kextra kflags amd64_install arm64_install
	for v in root rig build notes kernels stock debug_kernels newest_kernels releases own_release sample run_kernel; do
		printf '%s=%q\n' "$v" "${!v}"
	done
	printf 'vms_only=%q host_checks=%q\n' "${UE_VMS_ONLY:-0}" "${UE_HOST_CHECKS:-1}"
	printf 'lock=%q ubin=%q sbin=%q troot=%q\n' "$lock" "$build/userspace" \
		"$build/selftests" "$build/tools-root"
} >"$build/env.sh"

# --- the job graph, run by ninja --------------------------------------------------
"$rig/check/graph.sh" >"$build/build.ninja" || { echo "check: rig/check/graph.sh failed" >&2; exit 1; }
say "job graph: $(grep -c . "$build/jobs.list") jobs (build/check/build.ninja); ninja runs them"
# -k 0: a job that cannot make its product fails, and only what waits for
# it is left out.
ninja -C "$build" -f build.ninja -k 0 -j "$(grep -c . "$build/jobs.list")"
# A job that never ran fails by name.
"$rig/check/not-run.sh" >>"$results"
# (our kernels' lines, from what their jobs built)
for k in $debug_kernels; do
	[ -f "${kroot[$k]}/source" ] || continue
	read -r spkg sver <"${kroot[$k]}/source"
	echo "$k ours tests/kernel $spkg $(cat "${kroot[$k]}/release") $sver full" >>"$lock"
done

# --- the checkout: as make check found it -------------------------------------
# (what was changed before it started may stay changed; nothing more may be)
if ! tree_status_after=$(git -C "$root" status --porcelain 2>&1); then
	record "host tree fail unchanged not a git checkout: $tree_status_after"
elif [ "$tree_status_after" = "$tree_status_before" ]; then
	record "host tree pass unchanged"
else
	record "host tree fail unchanged git status: $(echo "$tree_status_after" | head -3 | tr '\n' ' ')"
fi

# --- report -------------------------------------------------------------------
# What a merge of shards needs beside the results, lock and notes
# (rig/report/check-report.sh): the rows this run reported, a line each (the
# unserved left out), its seconds, and whether it ran the host checks. The
# rows file is written last: a directory without it is a run that did not end.
secs=$(( $(date +%s) - t_start ))
echo "$secs" >"$build/seconds"
if [ "${UE_VMS_ONLY:-0}" = 1 ]; then echo 0; else echo "${UE_HOST_CHECKS:-1}"; fi >"$build/host-checks"
for k in $kernels; do echo "$k"; done >"$build/rows"
while read -r id; do
	cat "$build/results.d/$id"{,.failed,.part} 2>/dev/null
done <"$build/jobs.list" | cat "$build/results.d/check" - >"$build/results"
# shellcheck disable=SC2086
"$rig/report/report.sh" "$build/results" "$build/kernels.lock" "$notes" "$secs" $kernels
