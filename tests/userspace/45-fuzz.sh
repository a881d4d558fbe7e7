# The seeded ABI fuzzer (tests/userspace/fuzz_test.c):
# 50000 (25000 on Debian's kernels, ue_budget) random ioctls, writes, "u:" lines, enable toggles and
# user_events_max writes, each checked against the errnos upstream allows;
# afterwards nothing is left and the module unloads. The seed is new each
# run and printed (UE-INFO); "fuzz_test SEED 50000" in a VM with the
# module loaded runs the same calls again.
SUITE=fuzz
. /tests/lib.sh
ue_ok insmod insmod /modules/user_events.ko
seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
/tests/bin/fuzz_test "$seed" "$(ue_budget 50000 25000)"
ue_eq exit_status $? 0
ue_eq state_empty "$(tr '\n' ' ' </sys/kernel/debug/user_events_dkms/state)" \
	"events 0 orphans 0 address_spaces 0 queued_work 0 "
ue_ok rmmod rmmod user_events
