#!/bin/bash
# Host check of ue_boot_checked's retries (rig/lib/vm-lib.sh), with ue_boot
# played by a stub: a QEMU killed by a signal before the guest printed
# UE-BOOTED is booted again and said in a NOTE; one killed after it is not
# (the module may have run: the caller fails it). And ue_wait_booted, with
# a process for QEMU: a console silent for ue_boot_silent seconds before
# UE-BOOTED stops it; one that goes on printing, or no ue_boot_silent
# (user-events-run's boots), does not.
# Prints "host boot_retry pass|fail <case> [detail]" lines.
. "$(dirname "$0")/../lib/prelude.sh"
. "$(dirname "$0")/../lib/vm-lib.sh"
hostcheck_name=boot_retry
. "$(dirname "$0")/../lib/hostcheck.sh"
mkdir -p "$work/row"
# died_before: the first boot's QEMU aborts before user space, the second boots.
boots=0
ue_boot() {
	boots=$((boots + 1))
	if [ "$boots" = 1 ]; then
		echo "[    1.4] pci 0000:00:02.0: probing" >"$3"
		echo "qemu-system-x86_64: iotlb_to_section: Assertion failed." >"$3.qemu"
		return 134
	fi
	printf 'UE-BOOTED test\nUE-DONE\n' >"$3"
	: >"$3.qemu"
	return 0
}
ue_boot_checked kroot initrd "$work/row/console.log" 10 >"$work/note"
rc=$?
note=$(cat "$work/note")
expect died_before.status "$rc" 0
expect died_before.boots "$boots" 2
expect died_before.note "$note" "NOTE: row: QEMU died before the guest's user space (status 134: qemu-system-x86_64: iotlb_to_section: Assertion failed.), see docs/testing.md; booted once more (that log: $work/row/console.log.died-1.txt)"
expect died_before.log_kept "$(cat "$work/row/console.log.died-1.txt" 2>&1)" "[    1.4] pci 0000:00:02.0: probing"
# died_after: a QEMU that dies once the guest is in user space is not retried.
rm -f "$work"/row/*
boots=0
ue_boot() {
	boots=$((boots + 1))
	echo "UE-BOOTED test" >"$3"
	echo "qemu-system-x86_64: an assertion" >"$3.qemu"
	return 134
}
ue_boot_checked kroot initrd "$work/row/console.log" 10 >"$work/note"
rc=$?
note=$(cat "$work/note")
expect died_after.status "$rc" 134
expect died_after.boots "$boots" 1
expect died_after.no_note "$note" ""
# wait_silent: the console says one line and no more. Each of
# ue_wait_booted's rounds sleeps a second, so the limit cannot stop QEMU
# before ue_boot_limit seconds have passed: a stop before then was the
# silence's, however long a loaded host kept the rounds waiting.
echo "[    1.9] smp: Brought up 1 node, 2 CPUs" >"$work/con"
sleep 120 &
t0=$SECONDS
ue_boot_limit=120 ue_boot_silent=2 ue_wait_booted $! "$work/con"
expect wait_silent.status "$?" 125
expect wait_silent.stopped_early "$(( SECONDS - t0 < 120 ))" 1
# wait_talking: a line every half second for 4 s, then user space.
: >"$work/con"
( for i in 1 2 3 4 5 6 7 8; do echo "[    $i.0] line" >>"$work/con"; sleep 0.5; done
  echo "UE-BOOTED test" >>"$work/con"; sleep 1 ) &
ue_boot_limit=20 ue_boot_silent=2 ue_wait_booted $! "$work/con"
expect wait_talking.status "$?" 0
# wait_no_silent_limit: silent for 3 s, within the limit, without ue_boot_silent.
echo "[    1.9] quiet" >"$work/con"
sleep 3 &
ue_boot_limit=10 ue_wait_booted $! "$work/con"
expect wait_no_silent_limit.status "$?" 0
exit 0
