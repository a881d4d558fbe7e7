#!/bin/sh
# The suites of the test VM: DIR/NN-name.sh, run in order by its /init
# (rig/guest/guest-init: "sh /guest-suites.sh /tests"), and on the build
# machine under busybox sh by rig/selfcheck/console.sh with fake suites.
# Usage: guest-suites.sh DIR
#
# The console gets KTAP version 1 (the kernel's Documentation/dev-tools/
# ktap.rst), which rig/report/console-results.sh reads on the host:
#   KTAP version 1
#   1..N                              N: the suites in DIR
#       KTAP version 1                a suite: a subtest of its own
#       # Subtest: <suite>
#       ok 1 <case>                   its cases, numbered here
#       not ok 2 <case> # <detail>
#           KTAP version 1            the cases of a C program that reports
#           # Subtest: <other>        under its own suite name, a level deeper
#           ok 1 <case>
#       ok 3 <other>
#   # <suite>: cut off at its time limit of <s> s; ...   (the watchdog)
#   # <suite>: rc=<exit status> secs=<seconds it ran>
#   # <suite>: unloaded <module>                          it left it loaded
#   # <suite>: could not unload <module>: <rmmod's words>
#   ok K <suite>                      or "not ok K <suite> # <why>"
# A suite prints "UE-RESULT <suite> pass|fail <case> [detail]" lines
# (tests/userspace/lib.sh, and the C programs, which print them
# themselves); this loop numbers them into the suite's subtest as they
# come. Every other line of a suite is passed as it is, so that a suite
# can nest another producer's KTAP (KUnit's, a selftest's) 8 spaces in.
# A suite is "not ok" when it exited non-zero, was cut off, left a module
# loaded or a case of it failed, a nested producer's included.
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
# (a suite's output reaches the console through this pipe and ktap_cases)
out=${TMPDIR:-/tmp}/ue-suite.$$
loaded() { cut -d' ' -f1 "$modules" 2>/dev/null; }

# ktap_cases SUITE FILE: a suite's output, from standard input, as the
# cases of its subtest; the number of its failed cases into FILE at the
# end. A line at fewer than 8 spaces that would read as KTAP structure
# (a result, plan, version or Subtest line of the suite's own output)
# is prefixed "UE-OUT <suite>: ", so that it cannot stand for a result.
ktap_cases() {
	awk -v suite="$1" -v out="$2" '
	function result(ind, k, v, c, d) {
		print ind (v == "pass" ? "ok " : "not ok ") k " " c (d == "" ? "" : " # " d)
	}
	function close_other() {
		if (other == "") return
		result("    ", ++n, ofail ? "fail" : "pass", other, "")
		other = ""
	}
	/^UE-RESULT [^ ]+ (pass|fail) [^ ]/ {
		d = $0; sub(/^UE-RESULT +[^ ]+ +[^ ]+ +[^ ]+ */, "", d); sub(/ +$/, "", d)
		if ($3 == "fail") fails++
		if ($2 == suite) {
			close_other()
			result("    ", ++n, $3, $4, d)
		} else {
			if ($2 != other) {
				close_other()
				print "        KTAP version 1"
				print "        # Subtest: " $2
				other = $2; on = 0; ofail = 0
			}
			if ($3 == "fail") ofail = 1
			result("        ", ++on, $3, $4, d)
		}
		fflush(); next
	}
	/^        +K?TAP version / { close_other() }
	# A nested producer'"'"'s failed result fails the suite too, as the host
	# counts it (rig/report/console-results.sh): "not ok" but for TODO,
	# and "ok" with SKIP, XFAIL, XPASS, TIMEOUT or ERROR.
	/^        +(not )?ok [0-9]+/ {
		u = toupper($0)
		if ($1 == "not" ? u !~ /# *TODO/ : u ~ /# *(SKIP|XFAIL|XPASS|TIMEOUT|ERROR)/) fails++
	}
	/^ *(K?TAP version [0-9]|1\.\.[0-9]|(not )?ok [0-9]|# Subtest:)/ {
		match($0, /^ */)
		if (RLENGTH < 8) $0 = "UE-OUT " suite ": " $0
	}
	{ print; fflush() }
	END { close_other(); print fails + 0 >out }'
}

# unload_left SUITE BEFORE: our modules loaded now that were not in BEFORE
# (" name name ... "), newest first as the kernel lists them (a module
# before the one it depends on), each unloaded and said; those unloaded
# in $left.
unload_left() {
	left=
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
			echo "# $1: could not unload $m: $(echo "$msg" | tr '\n' ' ')"
		else
			echo "# $1: unloaded $m"
		fi
		left="$left $m"
	done
}

total=0
for t in "$dir"/[0-9][0-9]-*.sh; do [ -f "$t" ] && total=$((total + 1)); done
echo "KTAP version 1"
echo "1..$total"
k=0
for t in "$dir"/[0-9][0-9]-*.sh; do
	[ -f "$t" ] || continue
	k=$((k + 1))
	s=$(basename "$t" .sh)
	s=${s#[0-9][0-9]-}
	echo "    KTAP version 1"
	echo "    # Subtest: $s"
	before=" $(loaded | tr '\n' ' ') "
	t0=$(date +%s)
	rm -f "$out" "$out.fails" "$out.cut"
	mkfifo "$out"
	ktap_cases "$s" "$out.fails" <"$out" &
	fpid=$!
	setsid sh "$t" </dev/null >"$out" 2>&1 &
	pid=$!
	# A suite that hangs is cut off after 600 s (the longest, abi on a
	# debug kernel, took 190 s alone and past 300 s beside the rest of
	# make check on a slower 2-core machine; make soak's initramfs says
	# longer in DIR/suite_timeout),
	# with what the kernel can say about its tasks first, so that the rest
	# of the VM, the dmesg after the suites included, still runs.
	# A suite that takes longer says so in a line "# suite-timeout: SECS".
	lim=$(sed -n 's/^# suite-timeout: \([0-9][0-9]*\)$/\1/p' "$t")
	[ -n "$lim" ] || lim=$(cat "$dir/suite_timeout" 2>/dev/null || echo 600)
	# (the sleep without the console: when the suite ends first, the
	# watchdog is killed and its sleep lives on, holding nothing open)
	(sleep "$lim" >/dev/null 2>&1
	 kill -0 $pid 2>/dev/null || exit 0
	 : >"$out.cut"
	 echo "# $s: cut off at its time limit of $lim s; its tasks and every task's kernel stack follow"
	 ps; echo t 2>/dev/null >"$sysrq"; sleep 2; kill -9 -$pid) &
	wd=$!
	wait $pid
	rc=$?
	kill $wd 2>/dev/null
	secs=$(( $(date +%s) - t0 ))
	# The suite's lines are all out once ktap_cases has written its count
	# (at the end of the suite's output). A process the suite left running
	# would hold that output open for ever: after 10 s it is killed with
	# the suite's process group, and the filter with it.
	i=0
	while [ ! -e "$out.fails" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	if [ ! -e "$out.fails" ]; then
		echo "# $s: processes it left running held its output open 10 s after it ended: killed"
		kill -9 -$pid 2>/dev/null
		sleep 1
		[ -e "$out.fails" ] || kill $fpid 2>/dev/null
	fi
	wait $fpid
	fails=$(cat "$out.fails" 2>/dev/null || echo "?")
	echo "# $s: rc=$rc secs=$secs"
	unload_left "$s" "$before"
	why=
	[ ! -e "$out.cut" ] || why="; TIMEOUT cut off at its time limit of $lim s, exit status $rc"
	[ -e "$out.cut" ] || [ "$rc" = 0 ] || why="; exit status $rc"
	[ -z "$left" ] || why="$why; left loaded:$left"
	[ "$fails" = 0 ] || why="$why; failed cases: $fails"
	if [ -z "$why" ]; then
		echo "ok $k $s"
	else
		echo "not ok $k $s # ${why#; }"
	fi
	rm -f "$out" "$out.fails" "$out.cut"
done
