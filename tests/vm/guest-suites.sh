#!/bin/sh
# The suites of the test VM: DIR/NN-name.sh, run in order by its /init
# (tests/vm/guest-init: "sh /guest-suites.sh /tests"), and on the build
# machine under busybox sh by tests/host/console.sh with fake suites.
# Usage: guest-suites.sh DIR
#
# Around each suite's own lines ("UE-RESULT <suite> pass|fail <case>"):
#   UE-SUITE-START <name>
#   UE-SUITE-TIMEOUT <name>: ...   (it ran past its limit and is killed)
#   UE-SUITE-END <name> rc=<exit status> secs=<seconds it ran>
# which tests/vm/console-results.sh turns into the suite's verdict.
#
# UE_GUEST_SYSRQ: where the watchdog asks the kernel for its blocked
# tasks (default /proc/sysrq-trigger; the host check gives /dev/null).
dir=${1:?usage: guest-suites.sh DIR}
sysrq=${UE_GUEST_SYSRQ:-/proc/sysrq-trigger}
for t in "$dir"/[0-9][0-9]-*.sh; do
	[ -f "$t" ] || continue
	s=$(basename "$t" .sh)
	s=${s#[0-9][0-9]-}
	echo "UE-SUITE-START $s"
	t0=$(date +%s)
	setsid sh "$t" </dev/null 2>&1 &
	pid=$!
	# A suite that hangs is cut off after 300 s (a whole VM takes 1 to 3
	# minutes; make soak's initramfs says longer in DIR/suite_timeout),
	# with what the kernel can say about its tasks first, so that the rest
	# of the VM, the dmesg after the suites included, still runs.
	# A suite that takes longer says so in a line "# suite-timeout: SECS".
	lim=$(sed -n 's/^# suite-timeout: \([0-9][0-9]*\)$/\1/p' "$t")
	[ -n "$lim" ] || lim=$(cat "$dir/suite_timeout" 2>/dev/null || echo 300)
	# (the sleep without the console: when the suite ends first, the
	# watchdog is killed and its sleep lives on, holding nothing open)
	(sleep "$lim" >/dev/null 2>&1
	 kill -0 $pid 2>/dev/null || exit 0
	 echo "UE-SUITE-TIMEOUT $s: tasks and blocked tasks follow"
	 ps; echo w 2>/dev/null >"$sysrq"; sleep 1; kill -9 -$pid) &
	wd=$!
	wait $pid
	rc=$?
	kill $wd 2>/dev/null
	echo "UE-SUITE-END $s rc=$rc secs=$(( $(date +%s) - t0 ))"
done
