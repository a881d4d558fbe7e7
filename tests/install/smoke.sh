# The install test's smoke test (tests/install/run.sh copies it into the
# initramfs as /tests/10-install.sh; tests/install/smoke-init runs it
# through rig/guest/guest-suites.sh, which prints its cases as KTAP): the
# user_events.ko that the Debian package's DKMS run installed for this
# kernel: load it, register an event (samples/example.c, as the install
# test's steps built it in the release's chroot with user-events-dev; on
# arm64 the build machine's), enable it from the shell, let the program
# write, read the trace, unload.
SUITE=install
. /tests/lib.sh
# As in the test VMs: the scheduler's text held on (tests/userspace/ue_keyhold.c).
ue_ok smoke.keys_held /ue_keyhold
VER=$(cat /modules/VERSION)
T=/sys/kernel/tracing

ue_ok smoke.insmod insmod /modules/user_events.ko
ue_eq smoke.load_line \
	"$(ue_count_dmesg_text "] user_events: user-events-dkms $VER loaded on Linux $(uname -r)")" 1
/example 3 >/tmp/example.out 2>&1 &
pid=$!
E=$T/events/user_events/example
i=0
while [ ! -e $E/enable ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
ue_ok smoke.registered test -e $E/enable
echo 1 >$E/enable
wait $pid
ue_eq smoke.example_status $? 0
ue_eq smoke.example_output "$(cat /tmp/example.out)" "wrote 3 events"
ue_eq smoke.trace_lines "$(grep -cE 'example: count=0x[123] \([123]\) msg=hello$' $T/trace)" 3
echo 0 >$E/enable
ue_eq smoke.status_after "$(cat $T/user_events_status)" "$(printf '\nActive: 0\nBusy: 0')"
ue_ok smoke.rmmod rmmod user_events
ue_nok smoke.unloaded test -e /sys/module/user_events
