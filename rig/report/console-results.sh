#!/bin/bash
# The results of a VM's suites, read from its console text (ue_console_text;
# the lines of rig/guest/guest-suites.sh and of the suites themselves).
# Usage: console-results.sh ROW CONSOLE-TEXT [SUITE...]
# SUITE...: the suites the VM's initramfs holds (their names without NN-).
# Prints, as "<ROW> <suite> pass|fail <case> [detail]" result lines:
#  - each "UE-RESULT <suite> <verdict> <case> [detail]" line, as it is;
#  - for each suite that started, "suite_completed": pass only if its
#    UE-SUITE-END line came with rc=0 and no UE-SUITE-TIMEOUT line (the
#    guest cut it off); else fail, saying why and the last result line
#    it printed (the case it reached);
#  - a suite that left a module loaded (UE-SUITE-UNLOADED: guest-suites.sh
#    unloaded it after the suite) fails suite_completed for that, unless
#    it failed already, whose reason then says what was unloaded; a module
#    that could not be unloaded (UE-SUITE-UNLOAD-FAILED) fails
#    "unloaded_after" of that suite;
#  - for each SUITE that never started (the console ended before it),
#    "suite_completed" fail;
#  - with UE_VM_WALL (the seconds the VM took on the host, boots retried
#    included) and the guest's "UE-UPTIME <s>" line (rig/guest/guest-init,
#    at its end), "vm clock_in_step": fail if the guest's uptime exceeds
#    UE_VM_WALL by more than 10 % and 5 s. A guest clock that runs fast
#    shortens every time-bound suite and trips the suites' time limits: a
#    TSC timed wrongly at boot made a debug VM's clock 3.6 times too fast
#    (1616 s of uptime after 461 s), and only the limits it tripped failed.
# Used by boot_and_run (rig/lib/boot-lib.sh); checked by
# rig/selfcheck/console.sh on the output of guest-suites.sh run on fake suites.
. "$(dirname "$0")/../lib/prelude.sh"
row=$1 console=$2
shift 2
awk -v row="$row" -v expect="$*" -v wall="${UE_VM_WALL:-}" '
	function last_case(s) {
		return "last case: " (s in last ? last[s] : "none reported")
	}
	/^UE-SUITE-START / { cur = $2; if (!(cur in started)) order[++n] = cur; started[cur] = 1; next }
	/^UE-SUITE-TIMEOUT / { s = $2; sub(/:$/, "", s); cut[s] = 1; next }
	/^UE-SUITE-END / {
		s = $2; ended[s] = 1; rc[s] = "?"
		for (i = 3; i <= NF; i++) if ($i ~ /^rc=/) rc[s] = substr($i, 4)
		if (s == cur) cur = ""
		next
	}
	/^UE-SUITE-UNLOADED / { left[$2] = left[$2] (left[$2] == "" ? "" : ", ") $3; next }
	/^UE-SUITE-UNLOAD-FAILED / {
		line = $0; sub(/^UE-SUITE-UNLOAD-FAILED [^ ]+ /, "", line); sub(/ +$/, "", line)
		print row " " $2 " fail unloaded_after " line
		next
	}
	/^UE-UPTIME [0-9]/ { up = int($2); next }
	/^UE-RESULT / {
		line = $0; sub(/^UE-RESULT +/, "", line); sub(/ +$/, "", line)
		print row " " line
		# (the suite that runs is the one that printed it)
		if (cur != "") last[cur] = $2 " " $4 " (" $3 ")"
		next
	}
	END {
		for (i = 1; i <= n; i++) {
			s = order[i]
			un = left[s] == "" ? "" : "; unloaded after it: " left[s]
			if (s in cut)
				print row " " s " fail suite_completed cut off at its time limit (UE-SUITE-TIMEOUT), rc=" \
					(s in ended ? rc[s] : "none") "; " last_case(s) un
			else if (!(s in ended))
				print row " " s " fail suite_completed did not end (no UE-SUITE-END: the console stopped); " last_case(s)
			else if (rc[s] != "0")
				print row " " s " fail suite_completed exit status " rc[s] "; " last_case(s) un
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
		for (i = 1; i <= m; i++)
			if (!(want[i] in started))
				print row " " want[i] " fail suite_completed never started (no UE-SUITE-START: the console stopped before it)"
	}' "$console"
