# Allocation failures on every entry point: on the debug kernels (FAILSLAB,
# FAIL_PAGE_ALLOC), fault_test fails the 1st, 2nd, ... allocation of each call
# through the task's fail-nth until the call runs without a fault, loading the
# module included; each faulted call must succeed or give its documented errno
# and leave nothing half made. The splat scan, lockdep, KASAN and the kmemleak
# scan after the last suite judge what the kernel saw meanwhile.
# suite-timeout: 900
SUITE=faults
. /tests/lib.sh
F=/sys/kernel/debug
if [ ! -e /proc/self/fail-nth ]; then
	if [ -e $F/kmemleak ]; then
		ue_fail fault_injection "a debug kernel without fail-nth (tests/kernel/debug.config)"
	else
		echo "UE-INFO faults: not run on $(uname -r): fault injection is on the debug kernels only"
	fi
	exit 0
fi
# Fail what fail-nth names whatever its flags (GFP_KERNEL sleeps, so
# ignore-gfp-wait would pass it by), quietly: a stack dump per failure
# would flood the console. Pages for user memory (highmem) and order-0
# pages (min-order 1) are still never failed.
for a in failslab fail_page_alloc; do
	echo N >$F/$a/ignore-gfp-wait
	echo 0 >$F/$a/verbose
done
rmmod user_events 2>/dev/null
ue_ok stacktrace_filter test -e $F/failslab/require-start
# Loading is swept on both debug kernels: the allocations made with module
# code on the stack (the fault injection's stack trace filter, fault_test.c),
# some 60 loads; failing every allocation of the kernel's loader as well
# took about 400, and was done on 6.12 only.
/tests/bin/fault_test /modules/user_events.ko all
ue_eq exit_status $? 0
ue_nok unloaded test -e /sys/module/user_events

