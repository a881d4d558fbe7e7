# KUnit suites of the parser (tests/kunit/), on the debug kernel: Debian's
# kernels ship without KUnit. Each KTAP result line is one check; a missing
# result (fewer results than the plan announces) is a failure.
SUITE=kunit
. /tests/lib.sh
if [ ! -e /modules/kunit.ko ]; then
	echo "UE-INFO kunit: not run on $(uname -r): KUnit runs on the debug kernel only"
	exit 0
fi
ue_ok insmod_kunit insmod /modules/kunit.ko
ue_ok insmod_tests insmod /modules/user_events_kunit.ko
R=/sys/kernel/debug/kunit/user_events_parse/results
ue_ok results_file test -f $R
# "ok N name" / "not ok N name [# SKIP ...]" at any depth; names may have
# spaces, which become '_' in the case name.
sed -n 's/^ *\(not ok\|ok\) [0-9]* \(.*\)$/\1|\2/p' $R | while IFS='|' read -r v name; do
	case=$(echo "$name" | sed 's/ # .*//; s/[^A-Za-z0-9_.:-]/_/g')
	case $name in *"# SKIP"*) v="not ok" ;; esac
	if [ "$v" = ok ]; then ue_pass "$case"; else ue_fail "$case" "$name"; fi
done
# The suite's own plan: its number of test cases, all reported.
plan=$(sed -n 's/^    1\.\.\([0-9]*\)$/\1/p' $R | head -1)
got=$(grep -cE '^    (not )?ok [0-9]+ ' $R)
ue_eq all_cases_reported "$got" "$plan"
ue_ok rmmod_tests rmmod user_events_kunit
ue_ok rmmod_kunit rmmod kunit
# SysRq on the debug kernels (tests/kernel/debug.config): the report of the
# blocked tasks that the suites' watchdog asks for when it cuts a suite off
# (rig/guest/guest-suites.sh) reaches the console.
n0=$(ue_count_dmesg_text "Show Blocked State")
echo w >/proc/sysrq-trigger 2>/dev/null
ue_eq sysrq_blocked_tasks "$(ue_count_dmesg_text "Show Blocked State")" "$((n0 + 1))"
