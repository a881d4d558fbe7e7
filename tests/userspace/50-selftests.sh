# Upstream user_events selftests (tools/testing/selftests/user_events of
# Debian's linux-source-6.12), built at test time by tests/selftests/build.sh
# into /tests/selftests/. Each program's own KTAP (kselftest's TAP) is nested
# in this suite's subtest, its test names prefixed "<prog>.", and read on the
# host by rig/report/console-results.sh like every other:
#   listed in /tests/selftests/expected  -> a check each (SKIP = fail, a
#                                           listed name absent = fail)
#   not listed                           -> marked TODO, not counted (and a
#                                           line UE-INFO selftests <prog>.<test>)
# Every program must also run to its end: a plan, exit 0 or 1, within its
# timeout ("<prog>.ran", counted; it closes the program's KTAP, and the host
# fails it when the plan did not get its results). Lines of a program that
# are not KTAP are shown as "UE-OUT <prog>:" lines, so that the host takes
# none of its "WARNING:" lines for kernel splats.
SUITE=selftests
. /tests/lib.sh
DIR=/tests/selftests
TMO=120		# per program (upstream's settings say 90 s; TCG is slower)

ue_ok expected_list test -f $DIR/expected
# Required entries, "<prog> <test>" or "<prog> *" a line.
grep -v '^[[:space:]]*#' $DIR/expected 2>/dev/null | awk 'NF >= 2 { print $1, $2 }' >/tmp/st.req
required() { grep -qxF "$1 $2" /tmp/st.req || grep -qxF "$1 *" /tmp/st.req; }

# The tests mount tracefs themselves if README is missing, and unmount it
# afterwards; guest-init has mounted it, so they must find it.
ue_ok tracefs_mounted test -f /sys/kernel/tracing/README
ue_ok insmod insmod /modules/user_events.ko

# Programs: those built, and any the expected list names.
progs=$({ for f in $DIR/*; do [ -f "$f" ] && [ -x "$f" ] && basename "$f"; done
	awk '{ print $1 }' /tmp/st.req; } | awk '!seen[$0]++')

# run PROG: run it under the timeout, save its exit status, then kill what it
# left behind: the harness runs each test in a child of its own process group,
# which outlives a program killed by the timeout (and holds the pipe open).
run() {
	timeout $TMO $DIR/$1 </dev/null 2>&1
	echo $? >/tmp/st.rc
	for c in /proc/[0-9]*/comm; do
		[ "$(cat $c 2>/dev/null)" = "$1" ] || continue
		c=${c%/comm}
		echo "UE-INFO selftests $1: killing leftover process ${c#/proc/}" >&2
		kill -9 ${c#/proc/} 2>/dev/null
	done
}

# nest PROG: PROG's output, from standard input, nested 8 spaces in (this
# suite's cases are at 4, rig/guest/guest-suites.sh), its result names
# prefixed "PROG."; those not required marked TODO. Its tests' names into
# /tmp/st.seen, its counts (required, passed; informational, passed,
# skipped) into /tmp/st.counts.
nest() {
	awk -v p="$1" -v all="$(required "$1" '*' && echo 1)" '
	BEGIN { while ((getline l <"/tmp/st.req") > 0) { split(l, a, " "); if (a[1] == p) req[a[2]] = 1 } }
	/^(not )?ok [0-9]+/ {
		v = $1 == "not" ? "not ok" : "ok"
		rest = $0; sub(/^(not )?ok [0-9]+ */, "", rest)
		num = $0; sub(/^(not )?ok /, "", num); sub(/ .*/, "", num)
		name = rest; data = ""
		if ((i = index(rest, "#")) > 0) {
			name = substr(rest, 1, i - 1); data = substr(rest, i + 1)
			sub(/^ +/, "", data)
		}
		sub(/ +$/, "", name)
		print name >"/tmp/st.seen"
		skip = data ~ /^SKIP/
		pass = v == "ok" && data !~ /^(SKIP|XFAIL|XPASS|TIMEOUT|ERROR)/
		if (all || name in req) { r++; rp += pass }
		else {
			ni++; ip += pass; isk += skip
			print "UE-INFO selftests " p "." name " " (pass ? "pass" : skip ? "skip" : "fail") (data == "" ? "" : " " data)
			data = "TODO not required" (data == "" ? "" : ": " data)
		}
		print "        " v " " num " " p "." name (data == "" ? "" : " # " data)
		fflush(); next
	}
	/^ *(K?TAP version [0-9]|1\.\.[0-9]|#)/ { print "        " $0; fflush(); next }
	{ print "UE-OUT " p ": " $0; fflush() }
	END { print r + 0, rp + 0, ni + 0, ip + 0, isk + 0 >"/tmp/st.counts" }'
}

req=0 req_pass=0 info=0 info_pass=0 info_skip=0
t_suite=$(date +%s)
for p in $progs; do
	out=/tmp/st-$p.out
	: >$out
	: >/tmp/st.seen
	echo 0 0 0 0 0 >/tmp/st.counts
	echo 0 >/tmp/st.rc
	if [ -x $DIR/$p ]; then
		echo "UE-INFO selftests $p: running (timeout ${TMO}s)"
		t0=$(date +%s)
		run $p | tee $out | nest $p
		rc=$(cat /tmp/st.rc)
		secs=$(( $(date +%s) - t0 ))
		plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' $out | head -1)
	else
		rc=missing secs=0 plan=
	fi
	read -r a b c d e </tmp/st.counts
	req=$((req + a)) req_pass=$((req_pass + b))
	info=$((info + c)) info_pass=$((info_pass + d)) info_skip=$((info_skip + e))

	# (first: it closes the program's KTAP above)
	how="exit=$rc, ${secs}s"
	[ "$secs" -lt $TMO ] || how="$how, timed out"
	[ -n "$plan" ] || how="$how, no plan"
	if [ "$rc" = missing ]; then
		ue_fail "$p.ran" "program not built"
	elif [ -z "$plan" ] || { [ "$rc" != 0 ] && [ "$rc" != 1 ]; }; then
		ue_fail "$p.ran" "$how"
	else
		echo "UE-RESULT $SUITE pass $p.ran $how"
	fi

	# Listed tests the program did not report.
	while read -r rp rt; do
		[ "$rp" = "$p" ] && [ "$rt" != "*" ] || continue
		grep -qxF "$rt" /tmp/st.seen && continue
		req=$((req + 1))
		ue_fail "$p.$rt" "absent from the output"
	done </tmp/st.req
done

echo "UE-INFO selftests summary: $req required ($req_pass passed," \
	"$((req - req_pass)) failed), $info informational ($info_pass passed," \
	"$info_skip skipped, $((info - info_pass - info_skip)) failed)" \
	"in $(( $(date +%s) - t_suite ))s"

ue_ok rmmod rmmod user_events
