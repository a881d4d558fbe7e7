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
#   UE_VM_TIMEOUT  seconds a VM may run (default 900; 1500 for the debug kernels)
#   UE_VM_JOBS     VMs that run at once (default 2)
#   UE_VM_BOOT_TIMEOUT  seconds a guest may take to reach user space before
#                  it is booted again (default 120, vm-lib.sh)
#   UE_BUILD_DIR   where results and logs go (default build/check)
#   UE_VMS_ONLY=1  only the VMs: no host checks, no install test (make soak)
#   UE_SUITES, UE_STRESS_SECS, UE_SUITE_TIMEOUT  the suites each VM runs,
#                  the stress suite's time and the guest's cut-off of a
#                  suite (boot-lib.sh; make soak, tests/vm/soak.sh)
#
# Stages, a file each: resolve.sh (rows to packages), fetch-kernels.sh,
# chroot-lib.sh (a chroot per Debian release builds the module as DKMS
# does there), cross-tools.sh (the arm64 rows' perf and trace-cmd, from
# their .debs), boot-lib.sh (initramfs, QEMU, results), report.sh.
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
vmdir=$root/tests/vm
. "$vmdir/vm-lib.sh"
. "$vmdir/timeline.sh"
export UE_CACHE=${UE_CACHE:-$HOME/.cache/user-events-dkms}
build=${UE_BUILD_DIR:-$root/build/check}
vms_only=${UE_VMS_ONLY:-0}
# A VM's limit: the debug kernels run suite faults besides the others, and
# KASAN and lockdep slow everything (about 12 minutes there, 2 to 4 on a
# Debian kernel; 6.12-deb13's suite ids about 5 more).
# The arm64 rows run under TCG emulating another architecture: the same limit.
vm_limit() {
	if [ "$1" = "${1#debug}" ] && [ "${karch[$1]:-amd64}" = amd64 ]; then
		echo "${UE_VM_TIMEOUT:-900}"
	else
		echo "${UE_VM_TIMEOUT:-1500}"
	fi
}
t_start=$(date +%s)

# The rows of kernels.list (every kernel Debian ships), and our own builds
# with KUnit, KASAN, lockdep and kmemleak (tests/kernel/): "debug" from
# linux-source-6.12, "debug-newest" from the newest linux-source Debian ships.
all_kernels="$(awk '!/^#/ && NF >= 6 { print $1 }' "$vmdir/kernels.list" | tr '\n' ' ')debug debug-newest"
kernels=${UE_KERNELS:-$all_kernels}

say() { printf '== %s\n' "$*"; }

# Results: one line per check in $build/results: "<kernel> <suite> pass|fail <case> [detail]".
rm -rf "$build"
mkdir -p "$build"
results=$build/results
: >"$results"
record() { echo "$*" >>"$results"; }
# The timeline: a line per job (ue_job, tests/vm/timeline.sh), read by report.sh.
export UE_TIMELINE=$build/timeline.tsv
: >"$UE_TIMELINE"

# --- dependencies -----------------------------------------------------------
# Installed when missing; from here on PATH has only the programs of a new
# machine with them (tests/deps.sh).
tree_status_before=$(git -C "$root" status --porcelain 2>&1)
ue_job deps ue_deps_path check "$build/path" || exit 1
# (its PATH, which the job's subshell exported)
[ "${UE_DEPS_PATH:-1}" != 1 ] || export PATH=$build/path

if [ "$kernels" != "$(echo $all_kernels)" ] && [ "$kernels" != "$all_kernels" ]; then
	say "NOTE: UE_KERNELS restricts this run to: $kernels (targets: $(echo $all_kernels))"
fi

# --- kernels: resolve, fetch -------------------------------------------------
. "$vmdir/apt-lib.sh"
# The VMs' QEMU: bookworm-backports' (tests/vm/fetch-qemu.sh says why);
# where the mirror lacks it, the machine's QEMU 7.2, said aloud.
if UE_QEMU_ROOT=$(ue_job fetch-qemu "$vmdir/fetch-qemu.sh" 2>"$build/fetch-qemu.log"); then
	export UE_QEMU_ROOT
	say "QEMU: $("$UE_QEMU_ROOT/usr/bin/qemu-system-x86_64" --version | head -1) (bookworm-backports, $UE_QEMU_ROOT)"
else
	unset UE_QEMU_ROOT
	echo "NOTE: the VMs run Debian 12's QEMU 7.2, whose stale int3 may fail a VM (docs/testing.md, Two CPUs): $(tail -1 "$build/fetch-qemu.log")" >>"$build/qemu.note"
	say "QEMU: $(qemu-system-x86_64 --version | head -1) (this machine's: $(tail -1 "$build/fetch-qemu.log"))"
fi
. "$vmdir/chroot-lib.sh"
. "$vmdir/boot-lib.sh"
log() { printf '== %s\n' "$*"; }
lock=$build/kernels.lock notes=$build/notes
: >"$notes"
[ ! -f "$build/qemu.note" ] || cat "$build/qemu.note" >>"$notes"
declare -A kroot	# row -> directory with kdir, release, boot/
declare -A krel		# row -> Debian release whose chroot builds its module
declare -A klevel	# row -> full or short (kernels.list)
stock=
for k in $kernels; do [ "$k" != "${k#debug}" ] || stock="$stock $k"; done
if [ -n "$stock" ]; then
	say "resolving${UE_KERNELS_LOCK:+ (from $UE_KERNELS_LOCK)}:$stock"
	# shellcheck disable=SC2086
	UE_CACHE=$UE_CACHE ue_job resolve "$vmdir/resolve.sh" $stock >"$lock"
	grep '^# NOTE' "$lock" | sed 's/^# NOTE /NOTE: /' >>"$notes"
	grep '^# UNSERVED' "$lock" | sed 's/^# UNSERVED \([^ ]*\)/NOTE: \1 NOT TESTED:/' >>"$notes"
	grep -v '^#' "$lock" | sed 's/^/   /'
fi
for k in $stock; do
	if grep -q "^# UNSERVED $k " "$lock"; then
		kernels=$(echo " $kernels " | sed "s/ $k / /")
		continue
	fi
	line=$(awk -v k="$k" '$1 == k && NF == 7' "$lock")
	if [ -z "$line" ]; then
		record "$k fetch fail kernel $(grep "^# MISSING $k " "$lock" | cut -d' ' -f4-)"
		continue
	fi
	read -r _ krel[$k] _ _ _ _ klevel[$k] <<<"$line"
done
fetch_row() {
	if UE_KERNELS_LOCK=$lock ue_job "fetch $1" "$vmdir/fetch-kernels.sh" "$1" 2>"$build/fetch-$1.log"; then
		echo "$1 fetch pass kernel"
	else
		echo "$1 fetch fail kernel could not be fetched: $(tail -1 "$build/fetch-$1.log")"
	fi
}
# Three downloads at a time; the chroots go on meanwhile.
say "fetching kernels into $UE_CACHE"
for k in "${!krel[@]}"; do echo "$k"; done | sort |
	xargs -r -P 3 -I{} bash -c "$(declare -f fetch_row ue_job); vmdir=$vmdir build=$build; fetch_row {}" \
	>"$build/fetch.results" &
fetch_pid=$!
releases=$(printf '%s\n' "${krel[@]}" | sort -u)
(for r in $releases; do
	ue_job "chroot $r" ue_chroot_make "$r" >"$build/chroot-$r.log" 2>&1 && echo "$r" >>"$build/chroots.ok"
done) &
chroot_pid=$!
# linux-source-6.12 (checkpatch, the selftests, the debug kernel), before
# the debug kernels' chain below unpacks it too.
say "fetching linux-source-6.12 (checkpatch, selftests, debug kernel)"
if srctree=$(ue_job linux-source "$vmdir/fetch-source.sh"); then
	record "host fetch pass linux-source"
else
	srctree=
	record "host fetch fail linux-source could not be fetched"
fi

# --- the work beside the VMs -------------------------------------------------
# What no VM waits for runs beside the VMs: the debug kernels (a cold
# build takes minutes) from here on, at full priority (below), and, niced
# so that the VMs go first, once the chroots have their headers, every
# module build (a kernel ahead of its VM), the host checks and the install
# test's steps in the chroots.
# Each kernel's modules end in $build/<kernel>.ready ("ok" or "fail"),
# which its VM waits for (ue_wait_ready).
background() { renice -n 10 -p "$BASHPID" >/dev/null; }

# build_module KERNEL OUTDIR [make vars...]: a Debian kernel's module is
# built in its release's chroot against /usr/src/linux-headers-<release>,
# installed there by apt-get as on a user's machine (with the compiler the
# headers depend on); ours on this machine.
build_module() {
	local k=$1 out=$2 r=${krel[$1]:-}; shift 2
	if [ -z "$r" ]; then
		ue_build_module "$root" "$out" "$(cat "${kroot[$k]}/kdir")" "$@"
		return
	fi
	# (another architecture's: cross-built against its headers in the
	# cache, with the release's cross compiler, ue_chroot_cross)
	# A kernel without CONFIG_KALLSYMS_ALL: its System.map, from its -dbg
	# package (fetch-kernels.sh), as its user would name it.
	local kr=${kroot[$k]} map
	map=$kr/dbg/System.map-$(cat "$kr/release")
	[ -s "$map" ] && set -- UE_SYSTEM_MAP="$map" "$@"
	if [ "${karch[$k]:-amd64}" != amd64 ]; then
		# (bookworm's headers need CROSS_COMPILE given: cross_headers)
		[ -s "$kr/cross-make" ] && set -- "$(cat "$kr/cross-make")" "$@"
		ue_chroot_build_module "$r" "$root" "$out" "$(cat "$kr/kdir")" "$@"
		return
	fi
	ue_chroot_build_module "$r" "$root" "$out" "$(cat "$kr/release")" "$@"
}

# build_kernel KERNEL: its four module variants (and, on a debug kernel, the
# KUnit module), recorded; then $build/KERNEL.ready.
build_kernel() {
	local k=$1 pids=() p built=1 ko
	mkdir -p "$build/$k"
	say "$k: building module"
	# The four builds at once: each is mostly kbuild's serial steps.
	build_module "$k" "$build/$k/mod" & pids+=($!)
	build_module "$k" "$build/$k/twin" UE_MODNAME=user_events_twin & pids+=($!)
	build_module "$k" "$build/$k/skew" UE_MODNAME=user_events_skew UE_TEST_SKEW=1 & pids+=($!)
	build_module "$k" "$build/$k/race" UE_MODNAME=user_events_race UE_TEST_RACE=1 & pids+=($!)
	for p in "${pids[@]}"; do wait "$p" || built=0; done
	if [ $built = 1 ]; then
		record "$k build pass module"
	else
		record "$k build fail module see $build/$k/mod.log, twin.log, skew.log or race.log"
		echo fail >"$build/$k.ready"
		return
	fi
	if [ "$k" != "${k#debug}" ]; then
		# The KUnit module needs the tree's layout (it includes src/).
		ko=$build/$k/kunit
		rm -rf "$ko"; mkdir -p "$ko/tests"
		cp -a "$root/src" "$root/include" "$ko/"
		cp -a "$root/tests/kunit" "$ko/tests/"
		if make -C "$(cat "${kroot[$k]}/kdir")" M="$ko/tests/kunit" modules \
			>"$ko.log" 2>&1; then
			record "$k build pass kunit_module"
		else
			record "$k build fail kunit_module see $ko.log"
			echo fail >"$build/$k.ready"
			return
		fi
	fi
	echo ok >"$build/$k.ready"
}

# The debug kernels (ours, tests/kernel/), then their modules; the kernel's
# directory in $build/KERNEL.kroot. Not niced: a debug kernel's VM, the
# longest, waits for its build, which niced beside the VMs took 3529 s and
# 1163 s from an empty cache (f092952; issue 28).
debug_kernels=
for k in debug debug-newest; do
	[[ " $kernels " == *" $k "* ]] && debug_kernels="$debug_kernels $k" klevel[$k]=full
done
(
	for k in $debug_kernels; do
		say "building the $k test kernel (cached after the first time)"
		if d=$(ue_job "kernel $k" "$root/tests/kernel/build.sh" "$k"); then
			record "$k fetch pass kernel"
			read -r spkg sver <"$d/source"
			echo "$k ours tests/kernel $spkg $(cat "$d/release") $sver full" >>"$lock"
			echo "$d" >"$build/$k.kroot"
			kroot[$k]=$d
			ue_job "modules $k" build_kernel "$k"
		else
			record "$k fetch fail kernel could not be built"
			echo fail >"$build/$k.ready"
		fi
	done
) &
debug_pid=$!

wait $fetch_pid
cat "$build/fetch.results" >>"$results"
declare -A karch	# row -> amd64, or arm64 (kernels.list's flavour)
for k in "${!krel[@]}"; do
	grep -q "^$k fetch pass" "$results" || continue
	kroot[$k]=$UE_CACHE/kernels/$k
	karch[$k]=$(ue_kroot_arch "${kroot[$k]}")
done
wait $chroot_pid
for r in $releases; do
	grep -qx "$r" "$build/chroots.ok" 2>/dev/null ||
		record "host chroot fail $r $(tail -1 "$build/chroot-$r.log")"
done

# --- host checks: kernel style, refusal of unsuitable kernels ----------------
# host_check SCRIPT ARGS...: its result lines; a script that fails or says
# nothing is a failed check, never a silent skip.
host_check() {
	local out rc job=${1#"$root"/tests/}
	out=$(ue_job "${job%.sh}" "$@")
	rc=$?
	[ -n "$out" ] && echo "$out" >>"$results"
	if [ $rc != 0 ] || [ -z "$out" ]; then
		record "host $(basename "$1" .sh) fail ran exit status $rc, $(echo "$out" | grep -c .) result lines"
	fi
}
# host_checks KDIR RELEASE: the dependencies, the suites' verdicts, and the
# style, kbuild and packaging checks, with a kernel's headers to take a
# configuration from.
host_checks() {
	say "host checks: dependencies (tests/deps.sh)"
	host_check "$root/tests/host/deps.sh" "$lock"
	host_check "$root/tests/host/timeline.sh"
	say "host checks: the verdicts of a VM's suites (tests/host/console.sh)"
	host_check "$root/tests/host/console.sh"
	host_check "$root/tests/host/boot-retry.sh"
	[ -n "$srctree" ] || return 0
	say "host checks"
	host_check "$root/tests/host/run.sh" "$srctree" "$1"
	say "host checks: packaging (make deb, lintian, dkms for $2)"
	host_check "$root/tests/host/package.sh" "$1" "$2"
}
# (a bookworm kernel's headers, which this machine's compiler builds for)
sample=
for k in $(for k in $kernels; do [ "${krel[$k]:-}" = bookworm ] && echo "$k"; done) $kernels; do
	[ -n "${kroot[$k]:-}" ] && {
		sample=$(cat "${kroot[$k]}/kdir") sample_release=$(cat "${kroot[$k]}/release")
		break
	}
done

# --- upstream selftests, built from linux-source (never committed) ----------
sbin=$build/selftests
mkdir -p "$sbin"
if [ -n "${srctree:-}" ] && [ -d "$srctree" ]; then
	say "building upstream user_events selftests from $srctree"
	ue_job "selftests amd64" "$root/tests/selftests/build.sh" "$srctree" "$sbin" >>"$results"
else
	record "host selftests fail build no linux-source tree to build them from"
fi

# --- userspace tests (static, run inside the VMs) -----------------------------
say "building userspace tests"
ucflags=(-static -O2 -Wall -Wextra -Werror -I"$root/include/uapi" -I"$root/tests/userspace")
# build_userspace CC OUT: the test programs, static, for the VMs of CC's
# architecture; non-zero if one did not build.
build_userspace() {
	local cc=$1 out=$2 src name rc=0
	mkdir -p "$out"
	for src in "$root"/tests/userspace/*.c "$root"/samples/*.c; do
		name=$(basename "$src" .c)
		"$cc" "${ucflags[@]}" -o "$out/$name" "$src" >"$out.cc-$name.log" 2>&1 ||
			{ rc=1; echo "check: $name failed to build with $cc:"; cat "$out.cc-$name.log"; }
	done
	return $rc
}
ubin=$build/userspace
ubuild_ok=1
ue_job "userspace amd64" build_userspace gcc "$ubin" || ubuild_ok=0
# The architectures of the rows besides amd64 (arm64).
cross_arches=$(printf '%s\n' "${karch[@]}" | grep -vx amd64 | sort -u)
# The arm64 rows' (and their upstream selftests): Debian 12's cross compiler.
declare -A ubuild_arch_ok
for a in $cross_arches; do
	ubuild_arch_ok[$a]=1
	ue_job "userspace $a" build_userspace "$(ue_cross_prefix "$a")gcc" "$build/userspace-$a" || ubuild_arch_ok[$a]=0
	if [ -n "${srctree:-}" ] && [ -d "$srctree" ]; then
		CC=$(ue_cross_prefix "$a")gcc ue_job "selftests $a" "$root/tests/selftests/build.sh" "$srctree" \
			"$build/selftests-$a" "$a" >>"$results"
	fi
done
# The UAPI header alone, in strict C99 and as C++.
echo '#include <linux/user_events.h>' >"$build/uapi.c"
gcc -std=c99 -pedantic -Wall -Wextra -Werror -I"$root/include/uapi" -fsyntax-only \
	"$build/uapi.c" >"$build/cc-uapi.log" 2>&1 &&
g++ -x c++ -Wall -Wextra -Werror -I"$root/include/uapi" -fsyntax-only \
	"$build/uapi.c" >>"$build/cc-uapi.log" 2>&1 ||
	{ ubuild_ok=0; echo "check: UAPI header does not compile standalone:"; cat "$build/cc-uapi.log"; }

# --- perf and trace-cmd for the tools suite ----------------------------------
# Debian 12's binaries run inside every VM with the shared libraries ldd lists
# (and the dynamic loader), copied at the same paths into a tree that
# make_initramfs adds to each initramfs. Debian's linux-perf has shipped both
# the real binary as /usr/bin/perf (bookworm) and a wrapper script there that
# execs perf_<version>; the guest's /usr/bin/perf is always the real binary.
troot=$build/tools-root
stage_elf() { # host-file guest-path
	local f=$1 dest=$2 libs lib real
	libs=$(ldd "$f") || { echo "check: ldd $f failed"; return 1; }
	if grep -q 'not found' <<<"$libs"; then
		echo "check: $f: missing libraries: $(grep 'not found' <<<"$libs" | tr -d '\t' | tr '\n' ' ')"
		return 1
	fi
	install -D -m 755 "$f" "$troot$dest" || return 1
	for lib in $(awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' <<<"$libs"); do
		[ -e "$troot$lib" ] && continue
		real=$(readlink -f "$lib")
		# Keep the mode: the loader must stay executable.
		install -D -m "$(stat -c %a "$real")" "$real" "$troot$lib" || return 1
	done
}
stage_tools() {
	local perf=/usr/bin/perf
	rm -rf "$troot"
	if [ "$(head -c 4 "$perf" 2>/dev/null | tail -c 3)" != ELF ]; then
		perf=$(ls -v /usr/bin/perf_[0-9]* 2>/dev/null | tail -1)
		[ -n "$perf" ] || { echo "check: /usr/bin/perf is a wrapper and no /usr/bin/perf_<version> exists"; return 1; }
	fi
	stage_elf "$perf" /usr/bin/perf && stage_elf /usr/bin/trace-cmd /usr/bin/trace-cmd
}
say "staging perf and trace-cmd for the VMs"
if ue_job "tools amd64" stage_tools >"$build/tools-stage.log" 2>&1; then
	record "host tools pass staged"
	say "tools: $(find "$troot" -type f | wc -l) files, $(du -sm "$troot" | cut -f1) MB uncompressed"
else
	record "host tools fail staged $(head -c 200 "$build/tools-stage.log" | tr '\n' ' ')"
fi
# The arm64 rows': Debian's arm64 perf and trace-cmd, of the first arm64 row's
# release (kernels.list puts trixie's first), unpacked on this machine from
# their .debs and those of their dependencies, and staged with the libraries
# their NEEDED entries name (tests/vm/cross-tools.sh: about a minute cold, no
# arm64 root), beside the rest; those rows' VMs wait for
# $build/tools-ARCH.ready.
tools_pids=()
for a in $cross_arches; do
	[ "$a" = arm64 ] || continue
	r=
	for k in $kernels; do [ "${karch[$k]:-}" = "$a" ] && { r=${krel[$k]}; break; }; done
	(
		background
		if ue_job "tools $a" "$vmdir/cross-tools.sh" "$r" "$a" "$build/tools-root-$a" >"$build/tools-stage-$a.log" 2>&1; then
			record "host tools pass staged.$a"
			echo ok >"$build/tools-$a.ready"
		else
			record "host tools fail staged.$a $(grep -v '^== cross-tools: .*: [0-9]*s$' "$build/tools-stage-$a.log" | tail -2 | tr '\n' ' ')"
			echo fail >"$build/tools-$a.ready"
		fi
	) &
	tools_pids+=($!)
done
# The arm64 root of the install test's DKMS step (tests/vm/arm64-root.sh: its
# debootstrap's second stage runs under qemu-user, 7 to 43 min cold), begun
# here beside the first VMs, niced, so that it is ready when that step comes
# (which waits for it on the root's lock); no VM waits for it. For the
# releases with an arm64 row the step can take (arm64_install_row: a kernel
# with KALLSYMS_ALL).
if [ "$vms_only" != 1 ]; then
	(
		background
		for r in $(for k in $kernels; do
				[ "${karch[$k]:-amd64}" = arm64 ] && [ ! -d "${kroot[$k]}/dbg" ] && echo "${krel[$k]}"
			done | sort -u); do
			"$vmdir/arm64-root.sh" root "$r" >"$build/arm64-root-$r.log" 2>&1
		done
	) &
	arm64_root_pid=$!
fi

# --- per kernel ---------------------------------------------------------------
# The headers of each release's rows, in its chroot.
for r in $releases; do
	grep -qx "$r" "$build/chroots.ok" 2>/dev/null || continue
	hdrs=()
	for k in "${!krel[@]}"; do
		[ "${krel[$k]}" = "$r" ] && [ -n "${kroot[$k]:-}" ] || continue
		if [ "${karch[$k]}" != amd64 ]; then
			ue_job "cross $k" ue_chroot_cross "$r" "${kroot[$k]}" >>"$build/chroot-$r.log" 2>&1 ||
				record "host chroot fail $r.cross.$k $(tail -1 "$build/chroot-$r.log")"
			continue
		fi
		hdrs+=("$(awk -v k="$k" '$1 == k && NF == 7 { print $5 "=" $6 }' "$lock")")
	done
	[ ${#hdrs[@]} -gt 0 ] || continue
	ue_job "headers $r" ue_chroot_headers "$r" "${hdrs[@]}" >>"$build/chroot-$r.log" 2>&1 ||
		record "host chroot fail $r.headers $(tail -1 "$build/chroot-$r.log")"
done

# The install test's rows of release $1 and architecture $2 (default
# amd64): its kernels whose module built.
install_rows() {
	local k
	for k in $kernels; do
		[ "${krel[$k]:-}" = "$1" ] && [ "${karch[$k]:-amd64}" = "${2:-amd64}" ] &&
			grep -qx "$k build pass module" "$results" && echo "$k"
	done
}

# arm64_install_row RELEASE: the arm64 row of RELEASE whose .deb the install
# test installs with DKMS in an arm64 root (the first whose module built);
# under qemu-user that takes minutes, and a kernel's headers stay in the
# root (tests/vm/arm64-root.sh), so one kernel a release. Not one without
# KALLSYMS_ALL (6.1-arm64): DKMS would need the System.map of its 800 MB
# -dbg package there. The rows left out are said in notes.
arm64_install_row() {
	local k one=
	for k in $(install_rows "$1" arm64); do
		if [ -d "${kroot[$k]}/dbg" ]; then
			echo "NOTE: $k: no install test (the .deb with DKMS in an arm64 root): its kernel has no KALLSYMS_ALL, and DKMS there would need the System.map of its -dbg package" >>"$notes"
		elif [ -z "$one" ]; then
			one=$k
		else
			echo "NOTE: $k: no install test (the .deb with DKMS in an arm64 root): $one's stands for $1's arm64 kernels" >>"$notes"
		fi
	done
	echo "$one"
}

# Beside the VMs: the Debian kernels' modules, the host checks, and the
# install test's steps in each release's chroot (tests/install/run.sh).
(
	background
	for k in $kernels; do
		[ "$k" = "${k#debug}" ] || continue
		if ! grep -q "^$k fetch pass" "$results"; then
			echo fail >"$build/$k.ready"
		elif [ -n "${krel[$k]:-}" ] && ! grep -qx "${krel[$k]}" "$build/chroots.ok" 2>/dev/null; then
			record "$k build fail module no ${krel[$k]} chroot to build in"
			echo fail >"$build/$k.ready"
		else
			ue_job "modules $k" build_kernel "$k"
		fi
	done
	[ "$vms_only" = 1 ] && exit 0
	# The rest, at the VMs' priority: one VM runs meanwhile (vm_jobs).
	touch "$build/beside.busy"
	trap 'rm -f "$build/beside.busy"' EXIT
	renice -n 0 -p "$BASHPID" >/dev/null 2>&1
	[ -z "$sample" ] || host_checks "$sample" "$sample_release"
	[ -x "$ubin/example" ] || exit 0
	for r in $releases; do
		grep -qx "$r" "$build/chroots.ok" 2>/dev/null || continue
		rows=$(install_rows "$r")
		[ -n "$rows" ] || continue
		say "install test on $r: the .deb with $r's dkms for" $rows", kernel and package upgrades, autopkgtest"
		t0=$(date +%s)
		# shellcheck disable=SC2086
		ue_job "install-steps $r" "$root/tests/install/run.sh" steps "$build/install/$r" "$ubin/example" "$notes" "$r" $rows >>"$results"
		say "install test on $r: steps done in $(( $(date +%s) - t0 ))s (logs: $build/install/$r/)"
	done
	# The arm64 rows: the .deb with DKMS in an arm64 root of their release,
	# for its first arm64 row (arm64_install_row); the others, said in a
	# note.
	[ -x "$build/userspace-arm64/example" ] || exit 0
	for r in $releases; do
		rows=$(arm64_install_row "$r")
		[ -n "$rows" ] || continue
		mkdir -p "$build/install"
		echo "$rows" >"$build/install/$r-arm64.rows"
		say "install test on $r arm64: the .deb with DKMS in an arm64 root (qemu-user) for" $rows
		t0=$(date +%s)
		# shellcheck disable=SC2086
		ue_job "install-steps $r-arm64" "$root/tests/install/run.sh" arm64 "$build/install/$r-arm64" "$build/userspace-arm64/example" \
			"$notes" "$r" $rows >>"$results"
		say "install test on $r arm64: done in $(( $(date +%s) - t0 ))s (logs: $build/install/$r-arm64/)"
	done
) &
beside_pid=$!

# ue_wait_ready KERNEL: wait until its modules are built (or failed); 0 if built.
ue_wait_ready() {
	local k=$1
	until [ -f "$build/$k.ready" ]; do
		if ! kill -0 $beside_pid 2>/dev/null && ! kill -0 $debug_pid 2>/dev/null &&
		   [ ! -f "$build/$k.ready" ]; then
			record "$k build fail module its build never ended"
			return 1
		fi
		sleep 2
	done
	[ "$(cat "$build/$k.ready")" = ok ]
}

# --- the VMs: UE_VM_JOBS at a time (default 2) ---------------------------------
# A VM keeps about one host core busy: its tests mostly run on one vCPU,
# the other idles. Two of them on the 2-core machine each took as long as
# alone (5.10 219 s against 213 s, 6.1 225 s against 236 s, measured
# 2026-11-25), so two at a time nearly halve the VMs' time. Beside them the
# module builds run niced (a VM waits for its own, ue_wait_ready); then the
# host checks and the install test's steps (some 15 min of one core) run
# at the VMs' priority, and meanwhile only one VM: never more than two
# busy things on two cores, so that timing stays as the suites know it
# (niced under two VMs those steps hardly moved and ran last, alone).
vm_jobs() { [ -f "$build/beside.busy" ] && echo 1 || echo "${UE_VM_JOBS:-2}"; }
vm_row() { # kernel
	local k=$1 t0 a=${karch[$1]:-amd64}
	ue_wait_ready "$k" || return
	# (another architecture's perf and trace-cmd, staged beside: a VM
	# without them fails its tools suite, never waits for ever)
	[ "$a" = amd64 ] || until [ -f "$build/tools-$a.ready" ]; do sleep 2; done
	[ -z "${kroot[$k]:-}" ] && kroot[$k]=$(cat "$build/$k.kroot")
	if [ "${ubuild_arch_ok[$a]:-$ubuild_ok}" = 1 ]; then
		record "$k build pass userspace"
	else
		record "$k build fail userspace"
		return
	fi
	ue_job "initramfs $k" make_initramfs "$k"
	say "$k: initramfs $(( $(stat -c %s "$build/$k/initrd.gz") / 1048576 )) MB (gzip -1)"
	vm_timeout=$(vm_limit "$k")
	say "$k: booting $(cat "${kroot[$k]}/release") (timeout ${vm_timeout}s)"
	t0=$(date +%s)
	ue_job "vm $k" boot_and_run "$k"
	say "$k: VM done in $(( $(date +%s) - t0 ))s"
	# Informational selftests are not counted: say how many there were;
	# and the seeds of the fuzzer and the stress suite.
	sed -n -e 's/^UE-INFO selftests summary: /selftests: /p' \
		-e 's/^UE-INFO \(fuzz seed .*\)/\1/p' \
		-e 's/^UE-INFO \(stress seed .*\)/\1/p' "$build/$k/console.log.txt" |
		while read -r line; do say "$k: $line"; done
	if grep -q "^$k [^ ]* fail" "$results"; then
		say "$k: console log kept at $build/$k/console.log.txt"
	fi
}
vm_pids=()
# vm_slots_busy: how many VM rows still run.
vm_slots_busy() {
	local p n=0
	for p in "${vm_pids[@]}"; do kill -0 "$p" 2>/dev/null && n=$((n + 1)); done
	echo $n
}
# vm_startable KERNEL: whether its row can boot without waiting: its module
# built (or failed), and another architecture's tools staged.
vm_startable() {
	local a=${karch[$1]:-amd64}
	[ -f "$build/$1.ready" ] || return 1
	[ "$a" = amd64 ] || [ -f "$build/tools-$a.ready" ]
}
# Rows start longest first among those that can (the debug kernels' VMs take
# 9 and 14 min warm against 4 to 5 for a Debian kernel's), so that the last
# minutes are not one long VM beside an idle core; a row that would have to
# wait for its module does not hold a slot meanwhile (a cold cache builds the
# debug kernels beside the first VMs). When nothing can start and nothing is
# left to build, the next row starts anyway and says why it cannot run.
vm_pending=" $debug_kernels "
for k in $kernels; do [ "$k" != "${k#debug}" ] || vm_pending="$vm_pending$k "; done
while [ -n "${vm_pending// /}" ]; do
	while [ "$(vm_slots_busy)" -ge "$(vm_jobs)" ]; do sleep 1; done
	next=
	for k in $vm_pending; do vm_startable "$k" && { next=$k; break; }; done
	if [ -z "$next" ]; then
		busy=0
		for p in $beside_pid $debug_pid "${tools_pids[@]}"; do
			kill -0 "$p" 2>/dev/null && busy=1
		done
		if [ $busy = 1 ]; then
			sleep 2
			continue
		fi
		read -r next _ <<<"$vm_pending"
	fi
	vm_pending=${vm_pending/ $next / }
	vm_row "$next" &
	vm_pids+=($!)
done
# (their statuses are not used; bash may have forgotten a row that ended long
# ago, and says "not a child" of it)
for p in "${vm_pids[@]}"; do wait "$p" 2>/dev/null; done

# --- scripts/user-events-run (tests/run/check.sh): on one kernel, the
# default (Debian 13's) where this run has it -------------------------------------
run_kernel=
for k in 6.12-deb13 $kernels; do
	# (an amd64 kernel of Debian's: user-events-run boots no other)
	[ "$k" = "${k#debug}" ] && [ "${karch[$k]:-amd64}" = amd64 ] &&
		grep -qx "$k build pass module" "$results" && { run_kernel=$k; break; }
done
if [ -n "$run_kernel" ]; then
	say "user-events-run on $run_kernel (tests/run/check.sh)"
	t0=$(date +%s)
	host_check "$root/tests/run/check.sh" "$run_kernel" "$build/run"
	say "user-events-run: checks done in $(( $(date +%s) - t0 ))s (logs: $build/run/)"
elif [ "$vms_only" = 1 ]; then
	say "user-events-run: no amd64 Debian kernel in this run whose module built; not checked"
else
	record "host run fail kernel no Debian kernel whose module built to run user-events-run on"
fi

wait $debug_pid
wait $beside_pid
# (no run leaves it behind, when the install test did not need it)
[ -z "${arm64_root_pid:-}" ] || wait "$arm64_root_pid"
# Only debug kernels: their headers serve the host checks.
if [ -z "$sample" ] && [ "$vms_only" != 1 ]; then
	for k in $debug_kernels; do
		[ -f "$build/$k.kroot" ] || continue
		sample=$(cat "$(cat "$build/$k.kroot")/kdir")
		host_checks "$sample" "$(cat "$(cat "$build/$k.kroot")/release")"
		break
	done
	[ -n "$sample" ] || record "host kbuild fail no_kernel no kernel to take a configuration from"
fi

# --- install test: each kernel booted with the module DKMS built for it in
# its release's chroot (the steps ran beside the VMs above) ------------------
if [ "$vms_only" = 1 ]; then
	:
elif [ -x "$ubin/example" ]; then
	for r in $releases; do
		[ -d "$build/install/$r" ] || continue
		rows=$(install_rows "$r")
		t0=$(date +%s)
		# shellcheck disable=SC2086
		ue_job "install-boot $r" "$root/tests/install/run.sh" boot "$build/install/$r" "$ubin/example" "$notes" "$r" $rows >>"$results"
		say "install test on $r: boots done in $(( $(date +%s) - t0 ))s"
	done
	for r in $releases; do
		[ -d "$build/install/$r-arm64" ] || continue
		rows=$(cat "$build/install/$r-arm64.rows")
		t0=$(date +%s)
		# shellcheck disable=SC2086
		ue_job "install-boot $r-arm64" "$root/tests/install/run.sh" boot "$build/install/$r-arm64" "$build/userspace-arm64/example" \
			"$notes" "$r" $rows >>"$results"
		say "install test on $r arm64: boots done in $(( $(date +%s) - t0 ))s"
	done
else
	record "host install fail example samples/example.c did not build"
fi

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
# shellcheck disable=SC2086
"$vmdir/report.sh" "$results" "$lock" "$notes" "$(( $(date +%s) - t_start ))" $kernels
