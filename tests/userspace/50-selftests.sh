# Upstream user_events selftests (tools/testing/selftests/user_events of
# Debian's linux-source-6.12), built at test time by tests/selftests/build.sh
# into /tests/selftests/. Their kselftest TAP output is shown as "UE-OUT" lines
# and turned into one line per test case:
#   listed in /tests/selftests/expected  -> UE-RESULT (counted; SKIP = fail,
#                                           absent from the output = fail)
#   not listed                           -> UE-INFO selftests <prog>.<test> ...
# Every program must also run to its end: a TAP plan, as many results as
# planned, exit 0 or 1, within its timeout ("<prog>.ran", counted).
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

req=0 req_pass=0 info=0 info_pass=0 info_skip=0
t_suite=$(date +%s)
for p in $progs; do
	out=/tmp/st-$p.out
	: >$out
	echo 0 >/tmp/st.rc
	if [ -x $DIR/$p ]; then
		echo "UE-INFO selftests $p: running (timeout ${TMO}s)"
		t0=$(date +%s)
		# Show the output as it comes, prefixed so that the host neither
		# counts it nor takes its "WARNING:" lines for kernel splats.
		run $p | tee $out | sed "s|^|UE-OUT $p: |"
		rc=$(cat /tmp/st.rc)
		secs=$(( $(date +%s) - t0 ))
		plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' $out | head -1)
	else
		rc=missing secs=0 plan=
	fi

	# One line per result: "<verdict> <name> [detail]"; verdict pass, fail,
	# skip, xfail or xpass. A failure without a reason gets the first
	# assertion message the harness logged for that test.
	awk '
	/^# +RUN +/ { diag = ""; next }
	/^# [^ ]+\.c:[0-9]+:/ {
		if (diag == "") { diag = substr($0, 3); sub(/^[^ :]*\//, "", diag) }
		next
	}
	/^(not )?ok [0-9]+ / {
		v = ($1 == "not") ? "fail" : "pass"
		line = $0; sub(/^(not )?ok [0-9]+ /, "", line)
		name = line; sub(/ .*/, "", name)
		rest = substr(line, length(name) + 1); sub(/^ */, "", rest)
		if (rest ~ /^# SKIP/) v = "skip"
		else if (rest ~ /^# XFAIL/) v = "xfail"
		else if (rest ~ /^# XPASS/) v = "xpass"
		sub(/^# *(SKIP|XFAIL|XPASS)? */, "", rest)
		if (rest == "" && v == "fail") rest = diag
		print v, name, substr(rest, 1, 200)
	}' $out >/tmp/st.res

	n=0
	while read -r v name detail; do
		n=$((n + 1))
		if required "$p" "$name"; then
			req=$((req + 1))
			if [ "$v" = pass ]; then
				req_pass=$((req_pass + 1))
				ue_pass "$p.$name"
			else
				ue_fail "$p.$name" "$v${detail:+: $detail}"
			fi
		else
			info=$((info + 1))
			[ "$v" = pass ] && info_pass=$((info_pass + 1))
			[ "$v" = skip ] && info_skip=$((info_skip + 1))
			echo "UE-INFO selftests $p.$name $v${detail:+ $detail}"
		fi
	done </tmp/st.res

	# Listed tests the program did not report.
	while read -r rp rt; do
		[ "$rp" = "$p" ] && [ "$rt" != "*" ] || continue
		awk -v t="$rt" '$2 == t { f = 1 } END { exit !f }' /tmp/st.res && continue
		req=$((req + 1))
		ue_fail "$p.$rt" "absent from the output"
	done </tmp/st.req

	how="exit=$rc, $n/${plan:-?} results, ${secs}s"
	if [ "$rc" = missing ]; then
		ue_fail "$p.ran" "program not built"
	elif [ -z "$plan" ] || [ "$n" != "$plan" ] || { [ "$rc" != 0 ] && [ "$rc" != 1 ]; }; then
		[ "$secs" -ge $TMO ] && how="$how, timed out"
		ue_fail "$p.ran" "$how"
	else
		echo "UE-RESULT $SUITE pass $p.ran $how"
	fi
done

echo "UE-INFO selftests summary: $req required ($req_pass passed," \
	"$((req - req_pass)) failed), $info informational ($info_pass passed," \
	"$info_skip skipped, $((info - info_pass - info_skip)) failed)" \
	"in $(( $(date +%s) - t_suite ))s"

ue_ok rmmod rmmod user_events
