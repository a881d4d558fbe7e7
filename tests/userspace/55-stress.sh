# The concurrent stress suite (tests/userspace/stress_test.c):
# worker processes of two threads register, unregister, write, close, fork,
# exec, vfork, clone(CLONE_VM), exit and mprotect/madvise/munmap their enable
# pages while other threads toggle enables in two ftrace instances and
# through perf, create and delete "u:" events, DIAG_IOCSDEL, lower
# kernel.user_events_max and try to unload the module (refused while in
# use). Every result is checked against the errnos upstream gives; at
# quiescence user_events_status, the events directories and dynamic_events
# agree, and every surviving thread's enable bits equal its events' state.
# Afterwards nothing is left and the module unloads. The time is 30 s on
# our debug kernels (15 s on Debian's, ue_budget), or what
# /tests/stress_secs says (make soak), and on past it until every kind of
# call has run once (at most
# 120 s more: stress_test.c, ST_GRACE_SECS); the seed is new each run and
# printed (UE-INFO): "stress_test SEED SECS" makes the same choices again.
SUITE=stress
. /tests/lib.sh
secs=$(cat /tests/stress_secs 2>/dev/null || ue_budget 30 15)
S=/sys/kernel/debug/user_events_dkms/state
ue_ok insmod insmod /modules/user_events.ko
# No cmdline recording: the first ftrace event would patch sched_switch's
# probe, where QEMU's multi-threaded TCG can run a stale int3 (35-race.sh,
# docs/testing.md, Two CPUs). The instances inherit it.
echo 0 >/sys/kernel/tracing/options/record-cmd
# On PREEMPT_RT kernels whose tracepoints call their probes with preemption
# disabled (up to 6.x), the fork probe may not allocate: SLUB's lock sleeps
# there, and the stress run's forks beside its slab churn would meet it
# contended. A kprobe on the allocator, in an instance of its own, records
# the callers of the stress workers' allocations.
T=/sys/kernel/tracing
rt_probe=
if [ "$(cat /sys/kernel/realtime 2>/dev/null)" = 1 ]; then
	case $(uname -r) in [1-6].*) rt_probe=$T/instances/ue_rt ;; esac
fi
if [ -n "$rt_probe" ]; then
	fn=$(grep -m1 -xE '__kmalloc_noprof|__kmalloc' $T/available_filter_functions)
	ue_ok rt.kprobe sh -c "echo 'p:ue_rt_kmalloc $fn caller=\$stack0:symbol' >>$T/kprobe_events"
	mkdir $rt_probe
	echo 'comm == "stress_test"' >$rt_probe/events/kprobes/ue_rt_kmalloc/filter
	echo 1 >$rt_probe/events/kprobes/ue_rt_kmalloc/enable
fi
seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
t0=$(date +%s)
/tests/bin/stress_test "$seed" "$secs" user_events
ue_eq exit_status $? 0
if [ -n "$rt_probe" ]; then
	echo 0 >$rt_probe/events/kprobes/ue_rt_kmalloc/enable
	ue_ok rt.kprobe_recorded grep -q 'caller=' $rt_probe/trace
	ue_eq rt.fork_probe_allocs "$(grep -c 'caller=ue_fork_snapshot' $rt_probe/trace)" 0
	rmdir $rt_probe
	echo '-:ue_rt_kmalloc' >>$T/kprobe_events
fi
echo "UE-INFO stress took $(( $(date +%s) - t0 )) s; the module said \"Fault for mm\" $(ue_count_dmesg_text 'Fault for mm') times"
# A run of no time at all: it goes on, up to its grace, until every kind of
# call has run, and passes (without the grace it made no call of any kind).
UE_STRESS_SUITE=stress_0s /tests/bin/stress_test "$seed" 0 user_events
ue_eq zero_secs.exit_status $? 0
echo 1 >/sys/kernel/tracing/options/record-cmd
ue_eq status_empty "$(cat /sys/kernel/tracing/user_events_status)" "$(printf '\nActive: 0\nBusy: 0')"
ue_eq state_empty "$(tr '\n' ' ' <$S)" "events 0 orphans 0 address_spaces 0 queued_work 0 "
ue_ok unload rmmod user_events
ue_nok gone test -e /sys/module/user_events
