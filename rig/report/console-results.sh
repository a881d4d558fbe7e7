#!/bin/bash
# The results of a VM's console: the one reader of the KTAP the guests
# print (KTAP version 1, the kernel's Documentation/dev-tools/ktap.rst),
# from our suites (rig/guest/guest-suites.sh, rig/guest/guest-init; the
# install test's smoke test, tests/install/smoke-init; a booted system's,
# tests/system/guest-test), the
# upstream selftests and KUnit (nested in their suites' subtests).
# Usage: console-results.sh ROW CONSOLE-TEXT [SUITE...]
# SUITE...: the suites the VM's initramfs holds (their names without NN-).
# Prints "<ROW> <suite> pass|fail <case> [detail]" result lines.
#
# How the KTAP is read, by depth (4 spaces a level; a line at another
# indentation, or not KTAP, is not read: kernel messages, UE-* lines):
#  - a test named by "# Subtest: NAME" at depth 0 to 2 (the VM's checks
#    "vm" at 0, a suite at 1, a C program that reports under its own name
#    at 2) is a suite NAME: each result line in it is a case of NAME,
#    "<ROW> NAME pass|fail <case> [detail]" (the line that closes a C
#    program's test in its suite is no case: its cases are its verdict);
#  - the results of the unnamed document at depth 0 are the suites'
#    verdicts, which give each suite's "suite_completed": pass only if it
#    ended ("ok"/"not ok" line) with "# <suite>: rc=0" and was not cut off
#    ("# <suite>: cut off ..."); else fail, saying why and the last case
#    it printed. A suite after which our module was unloaded ("# <suite>:
#    unloaded M") fails it too, unless it failed already, whose reason
#    then says what was unloaded; a module that could not be unloaded
#    ("# <suite>: could not unload M: ...") fails "unloaded_after";
#  - another producer's KTAP nested in a suite (an unnamed test at depth
#    2, and anything deeper: KUnit's results file, a selftest program's
#    output): each of its result lines is a case of the suite, by its
#    name; the suite's result line that closes it is a case whose verdict
#    also says that every plan in it ("1..N") got its N results;
#  - a case passes on "ok" without a directive; "not ok", SKIP, XFAIL,
#    XPASS, TIMEOUT and ERROR fail; a TODO result is not counted. A
#    failure without a reason gets the first assertion line ("file.c:N:"
#    or "FAILED at") the test printed. Names: a space becomes "_"; in a
#    nested producer's KTAP any character but [A-Za-z0-9_.:-] does (spaces
#    at either end too, as KUnit's names have them); a result without a
#    name is "test_N";
#  - each SUITE that never started (no subtest of its name: the console
#    ended before it) fails "suite_completed"; fewer suites' results than
#    the document's plan, with no suite to name for it, fails "vm
#    suites_reported";
#  - with UE_VM_WALL (the seconds the VM took on the host, boots retried
#    included) and the guest's "UE-UPTIME <s>" line (rig/guest/guest-init,
#    at its end), "vm clock_in_step": fail if the guest's uptime exceeds
#    UE_VM_WALL by more than 10 % and 5 s. A guest clock that runs fast
#    shortens every time-bound suite and trips the suites' time limits: a
#    TSC timed wrongly at boot made a debug VM's clock 3.6 times too fast
#    (1616 s of uptime after 461 s), and only the limits it tripped failed.
# Used by boot_and_run (rig/lib/boot-lib.sh); checked by
# rig/selfcheck/console.sh on the output of guest-suites.sh run on fake
# suites, and on made-up KTAP of KUnit and the selftests.
. "$(dirname "$0")/../lib/prelude.sh"
row=$1 console=$2
shift 2
awk -v row="$row" -v expect="$*" -v wall="${UE_VM_WALL:-}" '
	# A case name: one word. Our suites'"'"' names are kept as they are
	# ("group.bad.gid=-1"); in another producer'"'"'s nested KTAP, names with
	# spaces and brackets ("char[20] a"), anything but [A-Za-z0-9_.:-]
	# becomes "_".
	function sanitize(s, nested) {
		if (nested) gsub(/[^A-Za-z0-9_.:-]/, "_", s)
		else gsub(/[ \t]/, "_", s)
		return s
	}
	# The kind of the test list at depth d: "named" (a suite), "top" (the
	# document of the suites) or "nested" (another producer'"'"'s KTAP).
	function kind(d) {
		if (knd[d] != "") return knd[d]
		if (name[d] != "" && d <= 2 && (d == 0 || kind(d - 1) == "named" || kind(d - 1) == "top"))
			knd[d] = "named"
		else
			knd[d] = d == 0 ? "top" : "nested"
		return knd[d]
	}
	function suite_of(d) {
		for (; d >= 0; d--) if (kind(d) == "named") return name[d]
		return ""
	}
	# The depth of the outermost nested list that holds depth d.
	function block_of(d) {
		while (d > 1 && kind(d - 1) == "nested") d--
		return d
	}
	# Close the lists deeper than d; a nested one whose plan is not met
	# is said in the block it belongs to.
	function close_below(d,   i, b) {
		for (i = top; i > d; i--) {
			if (kind(i) == "nested" && plan[i] != "" && cnt[i] < plan[i]) {
				b = block_of(i)
				short[b] = short[b] (short[b] == "" ? "" : ", ") \
					(name[i] == "" ? "" : name[i] ": ") "plan 1.." plan[i] ", " cnt[i] " results"
			}
			open[i] = 0
		}
		if (top > d) top = d
	}
	function case_line(s, c, v, detail) {
		print row " " s " " v " " c (detail == "" ? "" : " " detail)
		if (cur != "") last[cur] = s " " c " (" v ")"
	}
	function last_case(s) {
		return "last case: " (s in last ? last[s] : "none reported")
	}
	# (indentation and the line without it)
	# (a name keeps its spaces, a trailing one too: KUnit'"'"'s "u32 a " is a case
	# of its own)
	{ match($0, /^ */); ind = RLENGTH; text = substr($0, ind + 1); d = int(ind / 4) }
	/^UE-UPTIME [0-9]/ { up = int($2); next }
	ind % 4 != 0 { next }
	text ~ /^K?TAP version [0-9]+ *$/ {
		if (d > 0 && !(d - 1 <= top && open[d - 1])) next
		close_below(d - 1)
		top = d; open[d] = 1; name[d] = ""; plan[d] = ""; cnt[d] = 0; knd[d] = ""; diag[d] = ""
		short[d] = ""
		if (d == 0) cur = ""
		next
	}
	!(d <= top && open[d]) { next }
	text ~ /^# Subtest: [^ ]/ {
		if (cnt[d] == 0 && name[d] == "" && top == d) {
			name[d] = substr(text, 12); sub(/ +$/, "", name[d])
			if (d == 1 && kind(0) == "top") {
				cur = name[d]
				if (!(cur in started)) order[++n] = cur
				started[cur] = 1
			}
		}
		next
	}
	text ~ /^1\.\.[0-9]+ *$/ { if (cnt[d] == 0 && top == d) plan[d] = substr(text, 4) + 0; next }
	d == 0 && kind(0) == "top" && text ~ /^# [^ ]+: / {
		s = $2; sub(/:$/, "", s)
		if ($3 == "rc=" || $3 ~ /^rc=/) rc[s] = substr($3, 4)
		else if ($3 == "cut" && $4 == "off") cut[s] = 1
		else if ($3 == "unloaded") left[s] = left[s] (left[s] == "" ? "" : ", ") $4
		else if ($3 == "could" && $4 == "not" && $5 == "unload") {
			line = text; sub(/^# [^ ]+: could not unload /, "", line); sub(/ +$/, "", line)
			print row " " s " fail unloaded_after " line
		}
		next
	}
	text ~ /^#/ {
		if (diag[d] == "" && (text ~ /^# [^ ]+\.c:[0-9]+:/ || text ~ /FAILED at [^ ]+\.c:[0-9]+/)) {
			diag[d] = substr(text, 3); sub(/^[^ :]*\//, "", diag[d])
		}
		next
	}
	text ~ /^(not )?ok [0-9]+( |$)/ {
		v = text ~ /^not / ? "fail" : "pass"
		rest = text; sub(/^(not )?ok [0-9]+ ?/, "", rest)
		desc = rest; data = ""
		if ((i = index(rest, " #")) > 0 || (i = index(rest, "#")) == 1) {
			desc = substr(rest, 1, i - 1); data = substr(rest, i + (i > 1 ? 2 : 1))
			sub(/^ +/, "", data); sub(/ +$/, "", data)
		}
		num = text; sub(/^(not )?ok /, "", num); sub(/[^0-9].*/, "", num)
		if (desc == "") desc = "test_" num
		dir = toupper(data); sub(/[^A-Z].*/, "", dir)
		if (dir !~ /^(SKIP|TODO|XFAIL|XPASS|TIMEOUT|ERROR)$/) dir = ""
		if (dir != "" && dir != "TODO") v = "fail"
		# (the list this line closes, if any)
		closed = top > d ? d + 1 : 0
		ckind = closed ? kind(closed) : ""; cname = closed ? name[closed] : ""
		close_below(d)
		cplan = closed ? plan[closed] : ""; cshort = closed ? short[closed] : ""
		cnt[d]++
		k = kind(d)
		if (v == "fail" && data == "") data = diag[d]
		diag[d] = ""
		if (k == "top") {
			s = ckind == "named" ? cname : sanitize(desc, 0)
			ended[s] = 1
			if (s == cur) cur = ""
			plan0 = plan[0]; cnt0 = cnt[0]
			next
		}
		if (dir == "TODO") next
		if (k == "named" && ckind == "named") next
		if (ckind == "nested" && k == "named") {
			if (cplan == "") cshort = "no plan" (cshort == "" ? "" : ", " cshort)
			if (cshort != "") { v = "fail"; data = data (data == "" ? "" : "; ") cshort }
		}
		case_line(suite_of(d), sanitize(desc, k == "nested"), v, data)
		next
	}
	END {
		for (i = 1; i <= n; i++) {
			s = order[i]
			un = left[s] == "" ? "" : "; unloaded after it: " left[s]
			if (s in cut)
				print row " " s " fail suite_completed cut off at its time limit (TIMEOUT), rc=" \
					(s in rc ? rc[s] : "none") "; " last_case(s) un
			else if (!(s in ended))
				print row " " s " fail suite_completed did not end (no result line: the console stopped); " last_case(s)
			else if (rc[s] != "0")
				print row " " s " fail suite_completed exit status " (s in rc ? rc[s] : "unknown") "; " last_case(s) un
			else if (un != "")
				print row " " s " fail suite_completed left loaded what it loaded" un
			else
				print row " " s " pass suite_completed"
		}
		if (wall != "" && up != "") {
			if (up <= wall + int(wall / 10) + 5)
				print row " vm pass clock_in_step"
			else
				print row " vm fail clock_in_step the guest'"'"'s uptime is " up " s after " wall " s on the host: its clock ran fast"
		}
		m = split(expect, want, " ")
		named = 0
		for (i = 1; i <= m; i++)
			if (!(want[i] in started)) {
				print row " " want[i] " fail suite_completed never started (no subtest: the console stopped before it)"
				named++
			}
		for (i = 1; i <= n; i++) if (!(order[i] in ended)) named++
		if (plan0 != "" && cnt0 + named < plan0)
			print row " vm fail suites_reported plan 1.." plan0 ", " cnt0 " suites reported"
	}' "$console"
