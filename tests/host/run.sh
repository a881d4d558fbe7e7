#!/bin/bash
# Checks that run on the build machine, not in a VM: kernel style of the
# module sources, and the build's refusal of unsuitable kernels.
# Prints one line per check: "host <suite> pass|fail <case> [detail]".
# Usage: run.sh LINUX_SOURCE_TREE SAMPLE_KDIR
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
tree=$1
sample_kdir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

result() { echo "host $1 $2 $3${4:+ $4}"; }

# --- style: checkpatch --strict on every kernel-side source -------------------
cd "$root"
for f in src/*.[ch] src/compat/*.[ch] src/compat/probe/*.c src/private/*.[ch] include/uapi/linux/*.h tests/kunit/*.[ch]; do
	[ -f "$f" ] || continue
	case $f in src/compat/*) ;; *)
		if grep -q 'LINUX_VERSION_CODE\|UE_LINUX_AT_LEAST' "$f"; then
			result style fail "$f" "version check outside src/compat/"
			continue
		fi ;;
	esac
	[ -f "$f" ] || continue
	# Exit status 0 means no error, warning or (with --strict) check.
	# Comparing kernel versions is what src/compat/ is for (and only it).
	ignore=
	case $f in src/compat/*) ignore="--ignore LINUX_VERSION_CODE" ;; esac
	if out=$("$tree/scripts/checkpatch.pl" --no-tree --strict --terse --show-types $ignore -f "$f" 2>&1); then
		result style pass "$f"
	else
		result style fail "$f" "$(echo "$out" | grep -v '^total' | head -3 | tr '\n' '|')"
	fi
done

# --- kbuild: unsuitable kernels stop the build with one sentence -------------
# On a copy of the tree (make clean runs too). A fake KDIR holding only a
# configuration is enough: the check runs before anything is built.
copy=$work/tree
make -s -C "$root" copy-sources DEST="$copy"
fake_kdir() { # name sed-expression
	local d=$work/$1
	mkdir -p "$d/include/config"
	sed -e "$2" "$sample_kdir/include/config/auto.conf" >"$d/include/config/auto.conf"
	echo "$d"
}

refuses() { # case kdir expected-text [make variables...]
	local out rc
	out=$(make -s -C "$copy" KDIR="$2" "${@:4}" modules 2>&1 >/dev/null)
	rc=$?
	if [ $rc = 0 ]; then
		result kbuild fail "$1" "build did not stop"
	elif [ "$(echo "$out" | grep -c 'user-events-dkms:')" != 1 ] ||
	     ! grep -qF -- "$3" <<<"$out"; then
		result kbuild fail "$1" "message: $(echo "$out" | head -3 | tr '\n' '|')"
	else
		result kbuild pass "$1"
	fi
}

refuses has_user_events "$(fake_kdir ue '$a CONFIG_USER_EVENTS=y')" \
	"this kernel has CONFIG_USER_EVENTS=y and already provides user_events"
for opt in TRACING EVENT_TRACING DYNAMIC_EVENTS KPROBES KALLSYMS_ALL PERF_EVENTS \
	   MODULE_UNLOAD TRACEPOINTS MMU_NOTIFIER; do
	refuses "lacks_$opt" "$(fake_kdir "no_$opt" "/^CONFIG_$opt=/d")" \
		"this kernel lacks CONFIG_$opt"
done
# Without static calls (arm64), the unexported functions are called
# indirectly (src/private/static_call.h): fine, unless the kernel checks the
# targets of indirect branches. kCFI under both of its names: CFI_CLANG up to
# 6.17, CFI from 6.18 on.
for opt in ARM64_BTI_KERNEL CFI_CLANG CFI X86_KERNEL_IBT; do
	refuses "no_static_call_with_$opt" \
		"$(fake_kdir "nosc_$opt" "/^CONFIG_HAVE_STATIC_CALL=/d; \$a CONFIG_$opt=y")" \
		"this kernel has CONFIG_$opt and no static calls"
done
if out=$("$copy/scripts/check-kernel.sh" "$(fake_kdir nosc "/^CONFIG_HAVE_STATIC_CALL=/d; /^CONFIG_X86_KERNEL_IBT=/d")" 2>&1); then
	result kbuild pass no_static_call_accepted
else
	result kbuild fail no_static_call_accepted "$out"
fi
# Without KALLSYMS_ALL, a System.map that has the symbols the module needs
# (scripts/sysmap.sh) is accepted; one that lacks them is refused.
fake_map=$work/System.map
for s in tracefs_mount event_mutex dyn_event_list dyn_event_ops_list dyn_event_ops_mutex \
	 file_cachep linux_banner tracefs_create_file tracefs_remove trace_add_event_call \
	 trace_remove_event_call; do
	echo "ffff800008000000 d $s"
done >"$fake_map"
if out=$("$copy/scripts/check-kernel.sh" "$(fake_kdir nokas "/^CONFIG_KALLSYMS_ALL=/d")" "$fake_map" 2>&1); then
	result kbuild pass no_kallsyms_all_with_system_map_accepted
else
	result kbuild fail no_kallsyms_all_with_system_map_accepted "$out"
fi
sed -i '/ file_cachep$/d' "$fake_map"
refuses no_kallsyms_all_map_lacks_symbol "$(fake_kdir nokas2 "/^CONFIG_KALLSYMS_ALL=/d")" \
	"lacks kernel symbols the module needs: file_cachep." UE_SYSTEM_MAP="$fake_map"
refuses no_config "$work/nonexistent" "no kernel configuration under"
# The default KDIR of a kernel without headers: the message names the package.
refuses no_headers_names_package /lib/modules/9.9.9-ue-none/build \
	"apt-get install linux-headers-9.9.9-ue-none"

# make clean needs no kernel tree at all, and removes the headers the build
# generates (the kernel API probes', the System.map's).
touch "$copy/src/stale.o" "$copy/src/compat/stale.ko" "$copy/src/compat/ue_probes.h" \
	"$copy/src/private/ue_sysmap.h"
if make -s -C "$copy" KDIR="$work/nonexistent" clean >/dev/null 2>&1 &&
   [ ! -e "$copy/src/stale.o" ] && [ ! -e "$copy/src/compat/stale.ko" ] &&
   [ ! -e "$copy/src/compat/ue_probes.h" ] && [ ! -e "$copy/src/private/ue_sysmap.h" ]; then
	result kbuild pass clean_without_kdir
else
	result kbuild fail clean_without_kdir
fi

# --- splat: the console scan catches reports and spares clean boots ----------
# The very pattern the VM console scans use (rig/lib/vm-lib.sh).
. "$root/rig/lib/vm-lib.sh"
re=$(ue_splat_re)
splat_case() { echo "$1:${2:15:40}" | tr -c 'A-Za-z0-9_.:\n-' '_'; }
while IFS= read -r line; do
	if grep -qE "$re" <<<"$line"; then result splat pass "$(splat_case report "$line")"
	else result splat fail "$(splat_case report "$line")" "not caught"; fi
done <<'REPORTS'
[   12.345678] WARNING: possible circular locking dependency detected
[   12.345678] BUG: KASAN: slab-use-after-free in ue_event_put+0x10/0x20 [user_events]
[   12.345678] BUG: sleeping function called from invalid context at kernel/locking/mutex.c:283
[   12.345678] WARNING: CPU: 0 PID: 1 at kernel/trace/trace_events.c:100 foo+0x1/0x2
[   12.345678] unreferenced object 0xffff888003a1b2c0 (size 64):
[   12.345678] Oops: general protection fault, probably for non-canonical address
[   12.345678] WARNING: suspicious RCU usage
[   12.345678] INFO: task insmod:42 blocked for more than 120 seconds.
[   12.345678] watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [race_test:1130]
[   12.345678] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:
REPORTS
while IFS= read -r line; do
	if grep -qE "$re" <<<"$line"; then result splat fail "$(splat_case boot "$line")" "false alarm"
	else result splat pass "$(splat_case boot "$line")"; fi
done <<'BOOT'
[    0.000000] rcu: 	RCU lockdep checking is enabled.
[    0.000000] kasan: KernelAddressSanitizer initialized
[    0.000000] ... MAX_LOCKDEP_KEYS:        8192
[    3.796150] kmemleak: Kernel memory leak detector initialized (mem pool available: 15042)
[    8.608917] user_events: Fault for mm: 0x0000000097f7dc5c @ 0x7f853731c000 event: en_pages
BOOT
# An allocation failure's stack (suite faults fails allocations on purpose)
# is spared; a report right after it is not.
alloc_failure='[   26.763468] fault_test: vmalloc error: size 201056, vm_struct allocation failed, mode:0xcc0(GFP_KERNEL), nodemask=(null)
[   26.786737] CPU: 0 UID: 0 PID: 59 Comm: fault_test Not tainted 6.12.117 #1
[   26.787305] Hardware name: QEMU Standard PC (i440FX + PIIX, 1996), BIOS 1.16.2-debian-1.16.2-1 04/01/2014
[   26.787713] Call Trace:
[   26.787800]  <TASK>'
alloc_txt=$work/alloc.txt
printf '%s\n' "$alloc_failure" >"$alloc_txt"
if [ -z "$(ue_splats "$alloc_txt")" ]; then result splat pass alloc_failure_spared
else result splat fail alloc_failure_spared "$(ue_splats "$alloc_txt" | head -1)"; fi
printf '%s\n%s\n' "$alloc_failure" '[   26.790000] WARNING: CPU: 0 PID: 59 at mm/slub.c:1 foo+0x1/0x2' >"$alloc_txt"
if [ -n "$(ue_splats "$alloc_txt")" ]; then result splat pass alloc_failure_then_report
else result splat fail alloc_failure_then_report "not caught"; fi
