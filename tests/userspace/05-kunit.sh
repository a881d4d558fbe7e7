# KUnit suites of the parser (tests/kunit/), on the debug kernel: Debian's
# kernels ship without KUnit. KUnit's own KTAP (its results file) is nested
# in this suite's subtest, and read on the host by
# rig/report/console-results.sh like every other: each of its result lines
# is a check, and a plan with fewer results than it announces fails this
# suite's case all_cases_reported, which closes it.
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
# (8 spaces in: this suite's cases are at 4, rig/guest/guest-suites.sh)
if [ -f $R ]; then
	sed 's/^/        /' $R
	if grep -q '^    1\.\.[0-9]' $R; then ue_pass all_cases_reported
	else ue_fail all_cases_reported "no plan of the suite's cases in $R"; fi
else
	ue_fail all_cases_reported "no results file"
fi
ue_ok rmmod_tests rmmod user_events_kunit
ue_ok rmmod_kunit rmmod kunit
# SysRq on the debug kernels (tests/kernel/debug.config): the report of the
# blocked tasks that the suites' watchdog asks for when it cuts a suite off
# (rig/guest/guest-suites.sh) reaches the console.
n0=$(ue_count_dmesg_text "Show Blocked State")
echo w >/proc/sysrq-trigger 2>/dev/null
ue_eq sysrq_blocked_tasks "$(ue_count_dmesg_text "Show Blocked State")" "$((n0 + 1))"
