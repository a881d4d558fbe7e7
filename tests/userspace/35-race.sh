# Races between two CPUs (enablers against fork, exit and unload; the ftrace
# enable window). user_events_race.ko is the module built with UE_TEST_RACE=1:
# it waits race_us microseconds at the place race_site names (src/race.h), so
# that race_test hits windows that are a few instructions wide in the shipped
# module many times a second. Afterwards nothing may be left, and the module
# must unload; a kernel that oopses, loops or corrupts memory on the way fails
# through the splat scan (and KASAN, lockdep on the debug kernel).
SUITE=race
. /tests/lib.sh
P=/sys/module/user_events_race/parameters
S=/sys/kernel/debug/user_events_dkms/state
ue_ok insmod insmod /modules/user_events_race.ko

# race NAME SITE US MODE ARG: race_test MODE ARG with the window open.
race() {
	echo "$3" >$P/race_us
	echo "$2" >$P/race_site
	/tests/bin/race_test "$4" "$5"
	ue_eq "$1.exit_status" $? 0
	echo 0 >$P/race_site
	# Reading the status file lets queued work finish (like a
	# registration would); then nothing is held.
	ue_eq "$1.status_empty" "$(cat /sys/kernel/tracing/user_events_status)" "$(printf '\nActive: 0\nBusy: 0')"
	ue_eq "$1.state_empty" "$(tr '\n' ' ' <$S)" "events 0 orphans 0 address_spaces 0 queued_work 0 "
}
# Site 1: the fork probe, between an enabler's check and its reference.
# (fork loops of 6 s on our debug kernels, 3 s on Debian's: ue_budget)
race unreg_fork 1 200 unreg-fork "$(ue_budget 6 3)"
race del_fork 1 15000 del-fork "$(ue_budget 6 3)"
# Sites 1 and 8 with a fault-in pending: unregistering such an enabler
# drops its event at once, while the fork probe is between the enabler's
# check and its event (1) or between loading the event and referencing it
# (8). A probe that loaded the event twice would dereference NULL in fork()
# at 1.
race fault_unreg_fork 1 10000 fault-unreg-fork "$(ue_budget 5 3)"
race fault_unreg_fork_ev 8 10000 fault-unreg-fork-ev "$(ue_budget 5 3)"
# Site 9: a word faulted in, its page pinned, before the registration's or
# unregistration's next try, while the main thread forks (a fork loop of
# 2 s on our debug kernels, 1 s on Debian's). Without the pin, each fork there made the
# page read-only again and the call failed with EFAULT.
race refault_fork 9 5000 refault-fork "$(ue_budget 2 1)"
# Site 10: the fault worker, the word faulted in (and pinned), before its
# write, while the main thread forks; each state change's bit must follow
# (2 s on our debug kernels, 1 s on Debian's). Without the pin, each fork there made
# the page read-only again, and after ten rounds the bit stayed stale.
race fault_work_fork 10 20000 fault-work-fork "$(ue_budget 2 1)"
# Site 2: writing a bit, holding a user of the address space (200
# children on our debug kernels, 50 on Debian's).
race exit_wait 2 2000 exit-wait "$(ue_budget 200 50)"
# Site 3: enabling for ftrace, the bits flipped before the core marks the
# file enabled. Without cmdline recording, turning the only ftrace event on
# and off patches no kernel text (sched_switch's probe), where QEMU's
# multi-threaded TCG can run a stale int3 (docs/testing.md, Two CPUs): 40
# such patches hung 6.1-cloud's VM once.
echo 0 >/sys/kernel/tracing/options/record-cmd
race ftrace_enable 3 20000 ftrace-enable 20
# No site: the module's bit flips and the program's own flips of other bits
# in the same words, both atomic, lose nothing; record-cmd still off, for
# the same reason.
race bits_shared 0 0 bits-shared "$(ue_budget 500 100)"
echo 1 >/sys/kernel/tracing/options/record-cmd
# Site 7: deleting an event, event_mutex held, while its enable file is
# opened (private/removed_event.h; the freed file would be read under
# slub_debug poisoning, a splat).
race open_delete 7 20000 open-delete 20

# Site 2 again: a process exits, an AIO read of a FUSE file whose daemon holds
# it in flight, while a perf attach's bit write holds the last user of its
# address space for a second; the address space's teardown then waits for the
# read (exit_aio()). Registrations, status reads and deletions elsewhere must
# not wait with it, and the exit must be in effect for them. fuse_test opens
# and closes the window itself, and releases the daemon at the end.
/tests/bin/fuse_test aio-exit $P
ue_eq aio_exit.exit_status $? 0
echo 0 >$P/race_site
ue_eq aio_exit.status_empty "$(cat /sys/kernel/tracing/user_events_status)" "$(printf '\nActive: 0\nBusy: 0')"
ue_eq aio_exit.state_empty "$(tr '\n' ' ' <$S)" "events 0 orphans 0 address_spaces 0 queued_work 0 "

# The "other" marker of user_events_status: a probe that is neither ftrace's
# nor perf's, attached through the race build's other_probe parameter as
# another module could.
/tests/bin/other_test
ue_eq other.exit_status $? 0
ue_eq other.state_empty "$(tr '\n' ' ' <$S)" "events 0 orphans 0 address_spaces 0 queued_work 0 "

# Unloading while module code still runs: each test unloads the module
# itself, as soon as nothing holds it.
# Site 4: unload holds event_mutex a second while tracked address spaces
# die; every one must be let go of before it returns.
echo 1000000 >$P/race_us
echo 4 >$P/race_site
/tests/bin/race_test exit-rmmod user_events_race
ue_eq exit_rmmod.exit_status $? 0
ue_nok exit_rmmod.gone test -e /sys/module/user_events_race
ue_eq exit_rmmod.address_spaces_released "$(dmesg | grep -c 'address spaces not released at unload')" 0
# Site 5: a fork's attachment fails and drops the last event,
# then stays in the module for half a second.
ue_ok attach.insmod insmod /modules/user_events_race.ko race_site=5 race_us=500000
/tests/bin/race_test attach-rmmod user_events_race
ue_eq attach_rmmod.exit_status $? 0
ue_nok attach_rmmod.gone test -e /sys/module/user_events_race
# Site 6: the module's sysctl fails at load, the files already
# visible and a thread registering through them: the load goes on.
/tests/bin/race_test init-fail /modules/user_events_race.ko
ue_eq init_fail.exit_status $? 0
ue_eq init_fail.warned "$(dmesg | grep -c 'kernel.user_events_max not registered')" 1
ue_eq init_fail.status_empty "$(cat /sys/kernel/tracing/user_events_status)" "$(printf '\nActive: 0\nBusy: 0')"
ue_ok init_fail.rmmod rmmod user_events_race
