# The ABI suites (issue 3): registration, format, write path, delete and
# status, enable bits, limits and privileges (issue 4), each a C program
# with its own suite name; then module lifetime
# (spec 3.7): rmmod is refused while any user event exists.
SUITE=abi
. /tests/lib.sh
ue_ok insmod insmod /modules/user_events.ko
for t in reg_test fmt_test write_test del_test enable_test limits_test; do
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
