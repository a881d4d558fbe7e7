#!/bin/bash
# make check's checks of scripts/user-events-run, on one kernel:
# COMMAND's exit status (0, 7, a signal), its stdout and stderr apart, a
# dynamically linked program and a shell script of this machine that
# register a user event, write it and read it back from trace, a file
# written in the current directory seen here afterwards, --env, the module
# cached for a second run, and each of the tool's own failures with its
# status and one line on stderr; and, with an apt configuration that names
# no Debian mirror, the one line naming --mirror, then a run with --mirror
# alone (the security archive beside it) and no archive keyring on the host;
# a program and a PATH entry under /tmp, and /tmp and /run writable in the
# guest alone. Eight VMs boot (and one is cut off by --timeout), and two
# more that fall back from a KVM that does not boot a guest; the failures
# before a boot cost none.
# Prints "<kernel> run pass|fail <case> [detail]" lines.
# Usage: check.sh KERNEL WORKDIR   (KERNEL: a row of rig/kernels.list)
. "$(dirname "$0")/../../rig/lib/prelude.sh"

root=$(cd "$here/../.." && pwd)
. "$root/rig/lib/matrix-lib.sh"
run=$root/scripts/user-events-run
k=$1 w=$2
rm -rf "$w"
mkdir -p "$w/cwd" "$w/tmp"

result() { echo "$k run $1 $2${3:+ $3}"; }
# runit NAME ARGS...: user-events-run ARGS in $w/cwd; its status in $rc,
# its stdout in $w/NAME.out, its stderr in $w/NAME.err.
runit() {
	local n=$1
	shift
	# (TMPDIR: the work directories a failure keeps stay in $w)
	(cd "$w/cwd" && TMPDIR=$w/tmp "$run" "$@" >"$w/$n.out" 2>"$w/$n.err")
	rc=$?
}
# is CASE WANT-STATUS: $rc is WANT-STATUS.
is() {
	if [ "$rc" = "$2" ]; then result pass "$1"
	else result fail "$1" "status $rc, want $2; stderr: $(head -c 300 "$w/${3:-x}.err" 2>/dev/null | tr '\n' '|')"; fi
}
# same CASE FILE TEXT: FILE holds exactly TEXT.
same() {
	if [ "$(cat "$2")" = "$3" ]; then result pass "$1"
	else result fail "$1" "$(basename "$2"): $(head -c 300 "$2" | tr '\n' '|'), want: $3"; fi
}
# has CASE FILE TEXT: a line of FILE is TEXT.
has() {
	if grep -qxF -- "$3" "$2"; then result pass "$1"
	else result fail "$1" "$(basename "$2") has no line '$3': $(head -c 300 "$2" | tr '\n' '|')"; fi
}
# own_failure CASE NAME STATUS TEXT: the tool's own failure: STATUS, and its
# stderr one line, "user-events-run: TEXT...".
own_failure() {
	local err=$w/$2.err
	if [ "$rc" = "$3" ] && [ "$(grep -c . "$err")" = 1 ] &&
	   grep -q "^user-events-run: $4" "$err" && [ ! -s "$w/$2.out" ]; then
		result pass "$1"
	else
		result fail "$1" "status $rc (want $3), stderr: $(head -c 300 "$err" | tr '\n' '|')"
	fi
}

# --- a dynamically linked program, and the module built (or cached) --------------
# (ldd's output to a file: "ldd | grep -q" under pipefail fails when grep
# quits before ldd has written everything, as it once did in make check)
if gcc -O2 -Wall -Wextra -Werror -I"$root/include/uapi" -o "$w/cwd/ue_run_probe" \
	"$here/ue_run_probe.c" >"$w/cc.log" 2>&1 &&
   ldd "$w/cwd/ue_run_probe" >"$w/ldd.txt" && grep -q 'libc\.so' "$w/ldd.txt"; then
	result pass probe_built_dynamic
else
	result fail probe_built_dynamic "$(head -c 300 "$w/cc.log")"
fi
runit probe --kernel "$k" -- ./ue_run_probe
is exit_0 0 probe
same binary_event_read_back "$w/probe.out" "ue_run_probe: event read back from trace"
# (the first run of this boot of the host proves KVM by booting a guest with
# it; where that fails, it says so in one line first: kvm_* below)
grep -v '^user-events-run: KVM did not boot a guest (.*); running under TCG, slower$' \
	"$w/probe.err" >"$w/probe.err.own"
same stderr_apart "$w/probe.err.own" "ue_run_probe: this line is on stderr"

# --- KVM that cannot run a guest: TCG, said once ---------------------------------
# A probe given no time to boot fails on any host: the run goes on under TCG
# and says why in one line; the next run of the same boot of the host reads
# the answer and says nothing. (Without a /dev/kvm device that opens
# nothing is probed, and nothing said. The device test first, as the script
# does it: "<>" alone creates a regular file where /dev/kvm is missing.)
UE_RUN_KVM_ANSWER=$w/kvm-answer UE_RUN_KVM_BOOT_LIMIT=0 runit kvm1 --kernel "$k" -- true
is kvm_fallback_exit_0 0 kvm1
UE_RUN_KVM_ANSWER=$w/kvm-answer UE_RUN_KVM_BOOT_LIMIT=0 runit kvm2 --kernel "$k" -- true
is kvm_fallback_again_exit_0 0 kvm2
if [ -c /dev/kvm ] && { : <>/dev/kvm; } 2>/dev/null; then
	# (exactly one line; QEMU's own error may follow the reason)
	if [ "$(grep -c . "$w/kvm1.err")" = 1 ] && grep -q '^user-events-run: KVM did not boot a guest (the guest did not reach user space in 0s[:)].*; running under TCG, slower$' "$w/kvm1.err"; then
		result pass kvm_fallback_said
	else
		result fail kvm_fallback_said "stderr: $(head -c 300 "$w/kvm1.err" | tr '\n' '|')"
	fi
	if grep -qx 'tcg KVM did not boot a guest (the guest did not reach user space in 0s.*)' "$w/kvm-answer" 2>/dev/null; then
		result pass kvm_fallback_answer
	else
		result fail kvm_fallback_answer "answer: $(head -c 300 "$w/kvm-answer" 2>&1)"
	fi
else
	same kvm_fallback_said "$w/kvm1.err" ""
	[ ! -e "$w/kvm-answer" ] && result pass kvm_fallback_answer "no /dev/kvm here: nothing probed" ||
		result fail kvm_fallback_answer "an answer without a /dev/kvm: $(cat "$w/kvm-answer")"
fi
same kvm_fallback_said_once "$w/kvm2.err" ""

# --- a shell script (this tree's, read-only), --env, the current directory ----------
export UE_RUN_TEST="a b'c"
runit script --verbose --kernel "$k" --env UE_RUN_TEST -- "$here/ue_run_script.sh"
unset UE_RUN_TEST
is exit_7 7 script
has script_event_read_back "$w/script.out" "ue_run_script: event read back from trace"
has cwd_and_env "$w/script.out" "ue_run_script: cwd $w/cwd env UE_RUN_TEST=a b'c UE_RUN_ACCEL=$(sed -n 's/^user-events-run: accelerator: \(KVM\|TCG\).*/\1/p' "$w/script.err" | tr A-Z a-z)"
has script_stderr_apart "$w/script.err" "ue_run_script: this line is on stderr"
if grep -q '^user-events-run:' "$w/script.out"; then
	result fail stdout_only_command "$(grep -m1 '^user-events-run:' "$w/script.out")"
else
	result pass stdout_only_command
fi
if [ -f "$w/cwd/ue_run_written" ]; then
	same cwd_file_on_host "$w/cwd/ue_run_written" "written in the guest"
else
	result fail cwd_file_on_host "no $w/cwd/ue_run_written"
fi
has module_cached "$w/script.err" "user-events-run: module: cached ($(sed -n 's/^user-events-run: module: cached (\(.*\))$/\1/p' "$w/script.err"))"
if grep -q '^user-events-run: accelerator: \(KVM\|TCG\)' "$w/script.err"; then
	result pass accelerator_said
else
	result fail accelerator_said "--verbose did not name it"
fi

# --- the host's /tmp and /run: seen, writable, the writes kept in the guest -----
# A program under /tmp run by its path from another directory and found
# through a PATH entry under /tmp (a CI job's mktemp -d, make check's tools
# from a clone under /tmp); a file the host has in /run read; files written
# to both in the guest, read back there, and absent on the host afterwards.
ht=$(mktemp -d /tmp/ue-run-check.XXXXXX)
hr=$(mktemp -d /run/ue-run-check.XXXXXX)
cp "$w/cwd/ue_run_probe" "$ht/"
echo "the host's" >"$hr/host_file"
runit tmp_prog --kernel "$k" -- "$ht/ue_run_probe"
is tmp_program_by_path 0 tmp_prog
same tmp_program_ran "$w/tmp_prog.out" "ue_run_probe: event read back from trace"
PATH=$ht:$PATH runit tmp_path --kernel "$k" -- ue_run_probe
is tmp_path_entry 0 tmp_path
same tmp_path_program_ran "$w/tmp_path.out" "ue_run_probe: event read back from trace"
# (the paths as arguments: the guest's environment is PATH, HOME and --env's)
runit tmp_write --kernel "$k" -- sh -c 'cat "$2/host_file" && echo guest >"$1/guest_file" &&
	echo guest >"$2/guest_file" && cat "$1/guest_file" "$2/guest_file"' sh "$ht" "$hr"
is tmp_run_writable 0 tmp_write
same tmp_run_seen_and_written "$w/tmp_write.out" "$(printf "the host's\nguest\nguest")"
if [ ! -e "$ht/guest_file" ] && [ ! -e "$hr/guest_file" ]; then
	result pass tmp_run_writes_stay_in_guest
else
	result fail tmp_run_writes_stay_in_guest "$(ls "$ht" "$hr" | tr '\n' ' ')"
fi
rm -rf "$ht" "$hr"

# --- killed by a signal: 128 + its number, as a shell says ---------------------
runit signal --kernel "$k" -- sh -c 'kill -USR1 $$'
is signal_128_plus_n $((128 + 10)) signal
same signal_stderr_empty "$w/signal.err" ""

# --- the tool's own failures -------------------------------------------------------
# The module does not load: a file that is no module.
echo "not a module" >"$w/garbage.ko"
runit noload --kernel "$k" --module "$w/garbage.ko" -- true
own_failure fail_module_load noload 123 "the module did not load in "
# The VM times out (under TCG before its user space, under KVM in COMMAND).
runit timeout --kernel "$k" --timeout 3 -- sleep 60
own_failure fail_timeout timeout 124 "timed out after 3s"
# An unknown --kernel.
runit unknown --kernel no-such-row -- true
own_failure fail_unknown_kernel unknown 120 "unknown --kernel no-such-row"
# An arm64 row of the matrix (the first, where it has one): its guest could
# not run this machine's programs.
a64=$(ue_matrix made=debian arch=arm64 -- name | head -1)
if [ -n "$a64" ]; then
	runit arm64 --kernel "$a64" -- true
	own_failure fail_arm64_kernel arm64 120 "--kernel $a64: an arm64 kernel"
fi
# This machine's Debian mirrors (UE_MIRROR where make check runs with one),
# read now from its apt configuration, for the cases that give them.
cache=$UE_CACHE
log() { :; }
UE_CACHE=$cache . "$root/rig/lib/apt-lib.sh"
m=$(machine_mirror) s=$(machine_security_mirror)
release=$(ue_matrix_one name="$k" -- release)
# The kernel cannot be fetched: an empty cache and no apt-get on PATH (the
# mirrors given, as apt-get would have read them from apt's configuration).
mkdir -p "$w/path"
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
	for f in "$d"/*; do
		case ${f##*/} in apt-get|apt-cache) continue ;; esac
		[ -x "$f" ] && [ ! -e "$w/path/${f##*/}" ] && ln -s "$f" "$w/path/${f##*/}"
	done
done
PATH=$w/path UE_CACHE=$w/cache runit nofetch --mirror "$m" --security-mirror "$s" --kernel "$k" -- true
own_failure fail_fetch nofetch 121 "kernel $k could not be fetched"
# The module does not build: a --kernel-dir whose headers are no headers.
kd=$w/kdir
mkdir -p "$kd/build/include/generated"
ln -s "$(readlink -f "$UE_CACHE/kernels/$k")/boot/vmlinuz-$(cat "$UE_CACHE/kernels/$k/release")" "$kd/vmlinuz"
echo '#define UTS_RELEASE "0.0.0-no-headers"' >"$kd/build/include/generated/utsrelease.h"
printf 'CONFIG_%s=y\n' 9P_FS NET_9P_VIRTIO VIRTIO_PCI VIRTIO_CONSOLE >"$kd/build/.config"
runit nobuild --kernel-dir "$kd" -- true
own_failure fail_module_build nobuild 122 "the module did not build for 0.0.0-no-headers"
# The VM fails: QEMU cannot load a kernel image that is none.
rm "$kd/vmlinuz"
echo "not a kernel" >"$kd/vmlinuz"
runit novm --kernel-dir "$kd" --module "$w/garbage.ko" -- true
own_failure fail_vm novm 125 "the VM ended without COMMAND's status"

# --- a host whose apt configuration names no Debian mirror -----------------------
# As on an Ubuntu CI runner: an apt configuration (APT_CONFIG) whose sources
# are another distribution's (an address nothing asks: the mirror is read
# from the configuration, apt-get indextargets) and whose state and cache
# are ours, so that nothing of this machine's apt changes.
na=$w/apt-nodebian
mkdir -p "$na/sources.list.d" "$na/state/lists/partial" "$na/cache/archives/partial"
printf 'Types: deb\nURIs: http://127.0.0.1:9/ubuntu\nSuites: noble noble-updates noble-security\nComponents: main universe\n' \
	>"$na/sources.list.d/ubuntu.sources"
printf 'Dir::Etc::SourceList "/dev/null";\nDir::Etc::SourceParts "%s";\nDir::State "%s";\nDir::Cache "%s";\n' \
	"$na/sources.list.d" "$na/state" "$na/cache" >"$na/apt.conf"
# Neither given: one line naming the option, before anything is fetched (an
# empty cache, so that the kernel is to be fetched).
APT_CONFIG=$na/apt.conf UE_MIRROR='' UE_SECURITY_MIRROR='' UE_CACHE=$w/cache-none \
	runit nomirror --kernel "$k" -- true
own_failure fail_no_mirror nomirror 121 \
	"no Debian mirror in this machine's apt configuration: give one with --mirror URI (or UE_MIRROR=URI)$"
[ ! -e "$w/cache-none/kernels" ] && result pass no_mirror_fetched_nothing ||
	result fail no_mirror_fetched_nothing "$(ls "$w/cache-none")"
# --mirror alone, with no security archive beside it (a mirror of our own,
# a file: URI with nothing there): the one line naming the option.
APT_CONFIG=$na/apt.conf UE_MIRROR='' UE_SECURITY_MIRROR='' UE_CACHE=$w/cache-none \
	runit nosecurity --mirror "file:$w/no-mirror/debian" --kernel "$k" -- true
own_failure fail_no_security_mirror nosecurity 121 \
	"no Debian security mirror in this machine's apt configuration nor at file:$w/no-mirror/debian-security: give one with --security-mirror URI (or UE_SECURITY_MIRROR=URI)$"
runit badmirror --mirror debian --kernel "$k" -- true
own_failure fail_mirror_not_uri badmirror 120 "--mirror debian: not a URI"
# The mirror given (and the security mirror too, unless it lies beside the
# mirror as Debian lays them out: then --mirror alone, which finds it), and
# no Debian archive keyring on the host (UE_HOST_KEYRING
# names no file): --update asks the mirror for the kernel and QEMU through
# apt states of a cache of its own (its kernels, QEMU and built modules
# those of the cache, so that nothing is built), whose sources are the
# mirrors given and whose keyring is Debian's package, fetched and checked
# (apt-lib.sh, ue_keyring_fetch); the kernel boots and runs COMMAND.
if [ -n "$m" ] && [ -n "$s" ] && [ -n "$release" ]; then
	mc=$w/cache-mirror
	mkdir -p "$mc"
	for d in kernels qemu run; do
		mkdir -p "$cache/$d"
		ln -s "$cache/$d" "$mc/$d"
	done
	APT_CONFIG=$na/apt.conf UE_MIRROR='' UE_SECURITY_MIRROR='' UE_CACHE=$mc \
	UE_HOST_KEYRING=$w/no-such-keyring.gpg \
		runit mirror --update --mirror "$m" $([ "$s" = "$m-security" ] || echo --security-mirror "$s") \
		--kernel "$k" -- cat /proc/sys/kernel/osrelease
	is mirror_given_exit_0 0 mirror
	same mirror_given_kernel_ran "$w/mirror.out" "$(cat "$cache/kernels/$k/release" 2>&1)"
	# The release's apt state: its sources are the mirrors given, signed
	# by the keyring fetched into the cache.
	{ printf 'URIs: %s\n' "$m" "$s"; echo "Signed-By: $mc/keyring/debian-archive-keyring.gpg"; } |
		sort >"$w/mirror.sources.want"
	grep -hE '^(URIs|Signed-By):' "$mc/apt-$release/sources.list.d/$release.sources" 2>&1 |
		sort -u >"$w/mirror.sources"
	same mirror_given_sources "$w/mirror.sources" "$(cat "$w/mirror.sources.want")"
	if [ -s "$mc/keyring/debian-archive-keyring.gpg" ] &&
	   grep -qxE '[0-9][0-9a-z.+~]*' "$mc/keyring/version" 2>/dev/null &&
	   [ -z "$(ls -d "$mc"/keyring-fetch.* 2>/dev/null)" ]; then
		result pass keyring_fetched "debian-archive-keyring $(cat "$mc/keyring/version")"
	else
		result fail keyring_fetched "$(ls -l "$mc/keyring" "$mc"/keyring-fetch.* 2>&1 | head -5 | tr '\n' '|')"
	fi
else
	result fail mirror_given_exit_0 "no Debian mirror here to give (mirror '$m', security mirror '$s', release '$release')"
fi
exit 0
