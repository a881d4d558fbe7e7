#!/bin/sh
# The suites of the test VM: DIR/NN-name.sh, run in order by its /init
# (rig/guest/guest-init: "sh /guest-suites.sh /tests"), and on the build
# machine under busybox sh by rig/selfcheck/console.sh with fake suites.
# Usage: guest-suites.sh DIR
#
# Around each suite's own lines ("UE-RESULT <suite> pass|fail <case>"):
#   UE-SUITE-START <name>
#   UE-SUITE-TIMEOUT <name>: ...   (it ran past its limit and is killed)
#   UE-SUITE-END <name> rc=<exit status> secs=<seconds it ran>
#   UE-SUITE-UNLOADED <name> <module>          it left the module loaded
#   UE-SUITE-UNLOAD-FAILED <name> <module>: <rmmod's words>
# which rig/report/console-results.sh turns into the suite's verdict.
#
# A module of ours (user_events*) a suite loaded and left loaded (a suite
# cut off in the middle, or one whose own rmmod failed) is unloaded after
# it, so that the next suite's insmod starts from the state it expects and
# each suite is judged on its own, not failed by a slow suite before it.
# (The kernel's own modules a suite needs, fuse.ko, stay loaded.)
#
# UE_GUEST_SYSRQ: where the watchdog asks the kernel for its blocked
# tasks (default /proc/sysrq-trigger), UE_GUEST_MODULES the loaded modules
# (default /proc/modules), UE_GUEST_RMMOD the command that unloads one
# (default rmmod) and UE_GUEST_UNLOAD_TRIES how often, a second apart
# (default 30: the processes the watchdog killed let go of it as they
# exit); the host check gives fakes.
dir=${1:?usage: guest-suites.sh DIR}
sysrq=${UE_GUEST_SYSRQ:-/proc/sysrq-trigger}
modules=${UE_GUEST_MODULES:-/proc/modules}
unload=${UE_GUEST_RMMOD:-rmmod}
tries=${UE_GUEST_UNLOAD_TRIES:-30}
loaded() { cut -d' ' -f1 "$modules" 2>/dev/null; }

# unload_left SUITE BEFORE: our modules loaded now that were not in BEFORE
# (" name name ... "), newest first as the kernel lists them (a module
# before the one it depends on), each unloaded and said.
unload_left() {
	for m in $(loaded); do
		case $m in user_events*) ;; *) continue ;; esac
		case $2 in *" $m "*) continue ;; esac
		n=0
		until msg=$($unload "$m" 2>&1); do
			n=$((n + 1))
			[ "$n" -lt "$tries" ] || break
			sleep 1
		done
		if loaded | grep -qx "$m"; then
			echo "UE-SUITE-UNLOAD-FAILED $1 $m: $(echo "$msg" | tr '\n' ' ')"
		else
			echo "UE-SUITE-UNLOADED $1 $m"
		fi
	done
}
for t in "$dir"/[0-9][0-9]-*.sh; do
	[ -f "$t" ] || continue
	s=$(basename "$t" .sh)
	s=${s#[0-9][0-9]-}
	echo "UE-SUITE-START $s"
	before=" $(loaded | tr '\n' ' ') "
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
	 echo "UE-SUITE-TIMEOUT $s: tasks and every task's kernel stack follow"
	 ps; echo t 2>/dev/null >"$sysrq"; sleep 2; kill -9 -$pid) &
	wd=$!
	wait $pid
	rc=$?
	kill $wd 2>/dev/null
	echo "UE-SUITE-END $s rc=$rc secs=$(( $(date +%s) - t0 ))"
	unload_left "$s" "$before"
done
