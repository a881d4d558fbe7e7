#!/bin/sh
# Stop a build, with one sentence, against a kernel that already has
# user_events or that lacks what the module needs.
# Usage: check-kernel.sh KDIR [SYSTEM_MAP]
kdir=$1
map=${2:-}
conf=$kdir/include/config/auto.conf
[ -f "$conf" ] || conf=$kdir/.config
if [ ! -f "$conf" ]; then
	# The default KDIR, /lib/modules/<release>/build, comes with the
	# kernel's headers package (on Debian, with its compiler and pahole).
	case $kdir in
	/lib/modules/*/build)
		rel=${kdir#/lib/modules/}
		rel=${rel%/build}
		echo "user-events-dkms: no kernel configuration under $kdir: install the headers of kernel $rel (on Debian: apt-get install linux-headers-$rel), or set KDIR to a kernel build or headers directory." >&2 ;;
	*)
		echo "user-events-dkms: no kernel configuration under $kdir (set KDIR to a kernel build or headers directory)." >&2 ;;
	esac
	exit 1
fi
if grep -q '^CONFIG_USER_EVENTS=y' "$conf"; then
	echo "user-events-dkms: this kernel has CONFIG_USER_EVENTS=y and already provides user_events; the module is not needed." >&2
	exit 1
fi
need() {
	grep -q "^$1=y" "$conf" && return 0
	echo "user-events-dkms: this kernel lacks $1 ($2), which the module needs." >&2
	exit 1
}
need CONFIG_TRACING "the tracing core"
need CONFIG_EVENT_TRACING "trace events"
need CONFIG_DYNAMIC_EVENTS "dynamic_events"
need CONFIG_KPROBES "used to find unexported kernel symbols"
# Without CONFIG_KALLSYMS_ALL, kallsyms has no data symbols: the module then
# takes their addresses from the kernel's System.map (src/private/sysmap.h),
# which must be found (scripts/sysmap.sh says what is missing).
if ! grep -q '^CONFIG_KALLSYMS_ALL=y' "$conf"; then
	sh "$(dirname "$0")/sysmap.sh" find "$kdir" "$map" >/dev/null || exit 1
fi
need CONFIG_PERF_EVENTS "perf events"
need CONFIG_MODULE_UNLOAD "module unloading"
# The unexported functions the module calls (src/private/static_call.h):
# through direct branches where the kernel has static calls (x86), else
# through plain indirect calls (arm64), which a kernel that checks indirect
# branch targets would fault on. kCFI's option is CONFIG_CFI_CLANG up to
# 6.17 and CONFIG_CFI from 6.18 on: both names are tested.
if ! grep -q '^CONFIG_HAVE_STATIC_CALL=y' "$conf"; then
	for c in CONFIG_ARM64_BTI_KERNEL CONFIG_CFI_CLANG CONFIG_CFI CONFIG_X86_KERNEL_IBT; do
		grep -q "^$c=y" "$conf" || continue
		echo "user-events-dkms: this kernel has $c and no static calls, so the module cannot call the unexported kernel functions it needs safely." >&2
		exit 1
	done
fi
need CONFIG_TRACEPOINTS "the fork tracepoint"
need CONFIG_MMU_NOTIFIER "to learn when a process's address space goes away"
exit 0
