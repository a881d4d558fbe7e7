# The ABI suites: registration, format, write path, delete and status, enable
# bits, limits and privileges, dynamic_events, registrations in a memory
# cgroup at its limit, descriptors passed over SCM_RIGHTS, a mount namespace
# with only the bind-mounted files and a second tracefs mount, each a C
# program with its own suite name; then module lifetime: rmmod is refused
# while any user event exists, dynamic_events included, and leaves
# dynamic_events working for the other types.
SUITE=abi
. /tests/lib.sh
ue_ok insmod insmod /modules/user_events.ko
for t in reg_test fmt_test write_test del_test enable_test fuse_test limits_test dynev_test memcg_test \
	 fdpass_test ustack_test; do
	/tests/bin/$t
	ue_eq "$t.exit_status" $? 0
done
ue_eq no_events_left "$(cat /sys/kernel/tracing/user_events_status)" "$(printf '\nActive: 0\nBusy: 0')"

# A persistent event outlives its creator and pins the module.
ue_ok lifetime.make_persistent /tests/bin/del_test make-persistent
ue_ok lifetime.persistent_exists test -d /sys/kernel/tracing/events/user_events/del_pin
ue_eq lifetime.rmmod_refused "$(/tests/bin/ue_modctl unload user_events)" EAGAIN
ue_ok lifetime.delete_persistent /tests/bin/del_test delete-persistent
ue_ok lifetime.rmmod rmmod user_events
ue_nok lifetime.events_dir_gone test -e /sys/kernel/tracing/events/user_events
ue_ok lifetime.reload insmod /modules/user_events.ko

# An event made through dynamic_events pins the module the same way.
DYN=/sys/kernel/tracing/dynamic_events
dyn() { echo "$1" >>$DYN; }
ue_ok lifetime.dyn_create dyn 'u:dyn_pin u32 a'
ue_eq lifetime.dyn_rmmod_refused "$(/tests/bin/ue_modctl unload user_events)" EAGAIN
ue_ok lifetime.dyn_delete dyn '-:dyn_pin u32 a'
ue_eq lifetime.dyn_empty "$(cat $DYN)" ""
ue_ok lifetime.rmmod_again rmmod user_events

# The README's C example (samples/example.c): it waits for its enable bit,
# then writes; enabling it from the shell lets it run.
ue_ok example.insmod insmod /modules/user_events.ko
/tests/bin/example 3 >/tmp/example.out 2>&1 &
pid=$!
E=/sys/kernel/tracing/events/user_events/example
i=0
while [ ! -e $E/enable ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
echo > /sys/kernel/tracing/trace
echo 1 > $E/enable
wait $pid
ue_eq example.exit_status $? 0
ue_eq example.output "$(cat /tmp/example.out)" "wrote 3 events"
ue_eq example.trace_lines "$(grep -cE 'example: count=0x[123] \([123]\) msg=hello$' /sys/kernel/tracing/trace)" 3
echo 0 > $E/enable
# Disabling the last consumer deletes the event from a work item; reading
# the status file (like any register or delete) lets it finish first.
ue_eq example.deleted "$(cat /sys/kernel/tracing/user_events_status)" "$(printf '\nActive: 0\nBusy: 0')"
ue_ok example.rmmod rmmod user_events

# Unloading while "u:" lines are being written.
ue_ok race.insmod insmod /modules/user_events.ko
/tests/bin/dynev_test race /modules/user_events.ko
ue_eq race.exit_status $? 0
ue_eq race.dyn_empty "$(cat $DYN)" ""
ue_ok race.rmmod rmmod user_events

# Unloaded: "u:" lines have no handler, the other types still work.
ue_nok unloaded.u_line_refused dyn 'u:dyn_gone u32 a'
ue_eq unloaded.u_line_einval "$(grep -c 'Invalid argument' /tmp/ue.out)" 1
ue_ok unloaded.kprobe_create dyn 'p:uetest_after vfs_read'
ue_eq unloaded.kprobe_listed "$(cat $DYN)" "p:kprobes/uetest_after vfs_read"
ue_ok unloaded.kprobe_delete dyn '-:kprobes/uetest_after'
ue_eq unloaded.dyn_empty "$(cat $DYN)" ""

# The README's shell workflow, as written there.
ue_ok workflow.insmod insmod /modules/user_events.ko
cd /sys/kernel/tracing
echo > trace
ue_ok workflow.create sh -c "echo 'u:example u32 count; __rel_loc char[] msg' >> dynamic_events"
ue_eq workflow.listed "$(cat dynamic_events)" "u:example u32 count; __rel_loc char[] msg"
ue_ok workflow.enable sh -c 'echo 1 > events/user_events/example/enable'
ue_eq workflow.run "$(/tests/bin/example 3)" "wrote 3 events"
ue_eq workflow.trace "$(grep -cE 'example: count=0x[123] \([123]\) msg=hello$' trace)" 3
ue_ok workflow.disable sh -c 'echo 0 > events/user_events/example/enable'
ue_ok workflow.delete sh -c "echo '-:example u32 count; __rel_loc char[] msg' >> dynamic_events"
ue_eq workflow.gone "$(cat dynamic_events)" ""
ue_nok workflow.dir_gone test -e events/user_events/example
cd /
ue_ok workflow.rmmod rmmod user_events
