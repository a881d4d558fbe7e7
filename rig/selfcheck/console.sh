#!/bin/bash
# The rule a VM's suites are judged by, checked on the build machine: the
# guest's suite loop (rig/guest/guest-suites.sh) runs under busybox sh, as
# in the guest, on fake suites (one that passes, with the cases of a C
# program under its own suite name; one that exits early with status 3;
# one that hangs past its "# suite-timeout: 2"; one with a failing case;
# one that nests KUnit's KTAP, a plan short of a result; one that nests a
# selftest's, with a SKIP); its KTAP goes through the one reader,
# rig/report/console-results.sh, whose every line must be exactly the one
# expected; then a suite cut off with our module loaded, which the loop
# unloads before the next suite. Then consoles that stopped early, and
# made-up KTAP.
# Prints "host console pass|fail <case> [detail]" lines.
. "$(dirname "$0")/../lib/prelude.sh"

root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
result() { echo "host console $1 $2${3:+ $3}"; }
parse() { "$root/rig/report/console-results.sh" R "$@"; }

# expect CASE GOT WANT: one result line, exactly.
expect() {
	if [ "$2" = "$3" ]; then result pass "$1"
	else result fail "$1" "got '$2', want '$3'"; fi
}
# line_of OUTPUT SUITE CASE: the result line of SUITE's CASE in OUTPUT.
line_of() { awk -v s="$2" -v c="$3" '$2 == s && $4 == c' <<<"$1"; }

t=$work/tests
mkdir -p "$t"
cat >"$t/10-good.sh" <<'EOF'
echo "UE-RESULT good pass one"
echo "UE-RESULT reg pass reg_one"
echo "UE-RESULT reg fail reg_two errno 5, want 22"
echo "UE-RESULT good pass two"
EOF
cat >"$t/20-early.sh" <<'EOF'
echo "UE-RESULT early pass first"
exit 3
echo "UE-RESULT early pass never"
EOF
cat >"$t/30-hang.sh" <<'EOF'
# suite-timeout: 2
echo "UE-RESULT hang pass before_sleep"
sleep 60
echo "UE-RESULT hang pass after_sleep"
EOF
cat >"$t/40-after.sh" <<'EOF'
echo "UE-RESULT after fail something wrong here"
echo "ok 1 a line of its own output that reads as KTAP"
EOF
# KUnit's results file (debugfs) as tests/userspace/05-kunit.sh nests it:
# a parameterised case, a failed expectation, and a plan of 4 cases of
# which 3 reported.
cat >"$t/kunit.results" <<'EOF'
KTAP version 1
1..1
    KTAP version 1
    # Subtest: user_events_parse
    1..4
        KTAP version 1
        # Subtest: ue_test_type
        ok 1 u8 a
        ok 2 char[20] a
    ok 1 ue_test_type
    # ue_test_layout: EXPECTATION FAILED at tests/kunit/parse_kunit.c:197
    Expected f.field[1].size == 4, but
    not ok 2 ue_test_layout
    ok 3 ue_test_spare # SKIP not on this kernel
# user_events_parse: pass:2 fail:1 skip:1 total:4
not ok 1 user_events_parse
EOF
cat >"$t/45-kunit.sh" <<EOF
echo "UE-RESULT kunit pass insmod_kunit"
sed 's/^/        /' "$t/kunit.results"
echo "UE-RESULT kunit pass all_cases_reported"
EOF
# A selftest program's KTAP as tests/userspace/50-selftests.sh nests it
# (names prefixed, lines that are not KTAP as UE-OUT), with a SKIP, a
# failure the harness explains only in its log, and one not required (TODO).
cat >"$t/50-selftests.sh" <<'EOF'
cat <<'KTAP'
        TAP version 13
        1..4
        # Starting 4 tests from 1 test cases.
        #  RUN           user.register ...
        #            OK  user.register
        ok 1 abi_test.user.register
        #  RUN           user.enable ...
        # abi_test.c:120:enable:Expected 1 (1) == 0 (0)
        #          FAIL  user.enable
        not ok 2 abi_test.user.enable
        ok 3 abi_test.user.perf # SKIP no perf in this kernel
UE-INFO selftests abi_test.user.extra fail
        not ok 4 abi_test.user.extra # TODO not required
UE-OUT abi_test: WARNING: a line of its own
KTAP
echo "UE-RESULT selftests pass abi_test.ran exit=1, 3s"
EOF
# (the default limit, for the suites without their own: short, so that a
# loop that waits for it shows in the time below)
echo 60 >"$t/suite_timeout"

t0=$(date +%s)
: >"$work/no-modules"
UE_GUEST_SYSRQ=/dev/null UE_GUEST_MODULES=$work/no-modules \
	busybox sh "$root/rig/guest/guest-suites.sh" "$t" >"$work/console" 2>&1
rc=$?
secs=$(( $(date +%s) - t0 ))
expect loop.exit_status "$rc" 0
# The hang's 2 s, and 1 s the watchdog gives the kernel's task dump; a
# loop that waited for the default limit or for the hang would take 60 s.
# (Whole seconds of date +%s, and this check runs at nice 10 beside the
# first jobs and the VMs: on a busy machine the loop took 25 s.)
if [ "$secs" -ge 2 ] && [ "$secs" -le 45 ]; then result pass loop.time
else result fail loop.time "the loop took ${secs}s, want 2 to 45"; fi
# The KTAP around the suites: the document's plan, a subtest per suite
# and the suite's own result line after its diagnostics.
expect ktap.head "$(head -2 "$work/console" | tr '\n' '|')" "KTAP version 1|1..6|"
expect ktap.subtests "$(grep -c '^    # Subtest: ' "$work/console")" 6
expect ktap.good "$(sed -n '/^    # Subtest: good$/,/^not ok 1 good/p' "$work/console" | grep -v '^# good: rc=' | tr '\n' '|')" \
	"    # Subtest: good|    ok 1 one|        KTAP version 1|        # Subtest: reg|        ok 1 reg_one|        not ok 2 reg_two # errno 5, want 22|    not ok 2 reg|    ok 3 two|not ok 1 good # failed cases: 1|"
# A nested producer's failures fail its suite: KUnit's two "not ok" and
# a SKIP; the selftest's "not ok" and SKIP (its TODO is not counted).
expect ktap.kunit_nested_failed "$(grep '^not ok 5 kunit' "$work/console")" \
	"not ok 5 kunit # failed cases: 3"
expect ktap.selftests_nested_failed "$(grep '^not ok 6 selftests' "$work/console")" \
	"not ok 6 selftests # failed cases: 2"
expect ktap.own_output_kept_out "$(grep -c '^UE-OUT after: ok 1 a line of its own output' "$work/console")" 1
hang_rc=$(grep '^# hang: rc=' "$work/console")
case $hang_rc in
# (2 s, and what a busy machine adds: 12 s seen)
"# hang: rc=137 secs="[2-9] | "# hang: rc=137 secs="[1-3][0-9]) result pass hang.killed_at_limit ;;
*) result fail hang.killed_at_limit "'$hang_rc'" ;;
esac
expect hang.timeout_line "$(grep -c '^# hang: cut off at its time limit of 2 s' "$work/console")" 1
expect hang.result_line "$(grep '^not ok 3 hang' "$work/console")" \
	"not ok 3 hang # TIMEOUT cut off at its time limit of 2 s, exit status 137"
expect hang.rest_not_printed "$(grep -c 'after_sleep' "$work/console")" 0
# busybox kill takes no "--": "kill -9 -- -PID" said "invalid number '--'"
# (on every cut-off suite, the cold make check of 2026-11-27 included),
# and killed the group only because it went on to the next argument.
expect hang.kill_clean "$(grep -c 'invalid number' "$work/console")" 0

out=$(parse "$work/console" good early hang after kunit selftests missing)
expect good.completed "$(line_of "$out" good suite_completed)" "R good pass suite_completed"
expect good.program_cases "$(awk '$2 == "reg"' <<<"$out" | tr '\n' '|')" \
	"R reg pass reg_one|R reg fail reg_two errno 5, want 22|"
expect early.exit_status "$(line_of "$out" early suite_completed)" \
	"R early fail suite_completed exit status 3; last case: early first (pass)"
expect hang.cut_off "$(line_of "$out" hang suite_completed)" \
	"R hang fail suite_completed cut off at its time limit (TIMEOUT), rc=137; last case: hang before_sleep (pass)"
expect after.failing_case "$(line_of "$out" after something)" "R after fail something wrong here"
expect after.completed "$(line_of "$out" after suite_completed)" "R after pass suite_completed"
expect kunit.cases "$(awk '$2 == "kunit"' <<<"$out" | tr '\n' '|')" \
	"R kunit pass insmod_kunit|R kunit pass u8_a|R kunit pass char_20__a|R kunit pass ue_test_type|R kunit fail ue_test_layout ue_test_layout: EXPECTATION FAILED at tests/kunit/parse_kunit.c:197|R kunit fail ue_test_spare SKIP not on this kernel|R kunit fail user_events_parse|R kunit fail all_cases_reported user_events_parse: plan 1..4, 3 results|R kunit pass suite_completed|"
expect selftests.cases "$(awk '$2 == "selftests"' <<<"$out" | tr '\n' '|')" \
	"R selftests pass abi_test.user.register|R selftests fail abi_test.user.enable abi_test.c:120:enable:Expected 1 (1) == 0 (0)|R selftests fail abi_test.user.perf SKIP no perf in this kernel|R selftests pass abi_test.ran exit=1, 3s|R selftests pass suite_completed|"
expect missing.never_started "$(line_of "$out" missing suite_completed)" \
	"R missing fail suite_completed never started (no subtest: the console stopped before it)"
expect results.count "$(grep -c . <<<"$out")" 26

# A suite cut off with our module loaded fails alone: the loop unloads it,
# and the next suite's insmod finds no module in its way (a race suite cut
# off with user_events_race loaded once failed the row's five later suites:
# "user_events_data already exists"). A fake /proc/modules and rmmod:
# "insmod" adds a line, rmmod takes it away, but refuses for ever for
# user_events_stuck (so that the loop's retries are seen to end).
m=$work/mods
mkdir -p "$m/tests"
: >"$m/modules"
cat >"$m/rmmod" <<EOF
#!/bin/sh
[ "\$1" != user_events_stuck ] || { echo "rmmod: can't unload module '\$1': Resource temporarily unavailable"; exit 1; }
grep -v "^\$1 " "$m/modules" >"$m/modules.new"; mv "$m/modules.new" "$m/modules"
EOF
chmod +x "$m/rmmod"
cat >"$m/tests/10-race.sh" <<EOF
# suite-timeout: 2
echo "fuse 1 0 - Live 0x0" >>"$m/modules"
echo "user_events_race 1 0 - Live 0x0" >>"$m/modules"
echo "UE-RESULT race pass insmod"
sleep 60
EOF
cat >"$m/tests/20-next.sh" <<EOF
if grep -q '^user_events' "$m/modules"; then echo "UE-RESULT next fail insmod user_events_data already exists"
else echo "UE-RESULT next pass insmod"; echo "user_events 1 0 - Live 0x0" >>"$m/modules"; fi
EOF
echo 'echo "UE-RESULT leaves pass all"' >"$m/tests/30-leaves.sh"
echo "echo 'user_events_stuck 1 0 - Live 0x0' >>'$m/modules'" >"$m/tests/40-stuck.sh"
UE_GUEST_SYSRQ=/dev/null UE_GUEST_MODULES=$m/modules UE_GUEST_RMMOD=$m/rmmod UE_GUEST_UNLOAD_TRIES=2 \
	busybox sh "$root/rig/guest/guest-suites.sh" "$m/tests" >"$m/console" 2>&1
out=$(parse "$m/console" race next leaves stuck)
expect cutoff.race_fails "$(line_of "$out" race suite_completed)" \
	"R race fail suite_completed cut off at its time limit (TIMEOUT), rc=137; last case: race insmod (pass); unloaded after it: user_events_race"
expect cutoff.next_insmod "$(line_of "$out" next insmod)" "R next pass insmod"
expect cutoff.next_left_loaded "$(line_of "$out" next suite_completed)" \
	"R next fail suite_completed left loaded what it loaded; unloaded after it: user_events"
expect cutoff.leaves_passes "$(line_of "$out" leaves suite_completed)" "R leaves pass suite_completed"
expect cutoff.only_ours_unloaded "$(cut -d' ' -f1 "$m/modules" | tr '\n' ' ')" "fuse user_events_stuck "
expect cutoff.stuck_said "$(line_of "$out" stuck unloaded_after)" \
	"R stuck fail unloaded_after user_events_stuck: rmmod: can't unload module 'user_events_stuck': Resource temporarily unavailable"

# A console that stopped inside suite hang (the VM's time ran out).
sed '/^# hang: cut off/,$d' "$work/console" >"$work/cut"
out=$(parse "$work/cut" good early hang after)
expect stopped.running "$(line_of "$out" hang suite_completed)" \
	"R hang fail suite_completed did not end (no result line: the console stopped); last case: hang before_sleep (pass)"
expect stopped.after "$(line_of "$out" after suite_completed)" \
	"R after fail suite_completed never started (no subtest: the console stopped before it)"
expect stopped.good "$(line_of "$out" good suite_completed)" "R good pass suite_completed"
# A console with nothing of the suites: each fails by name.
: >"$work/empty"
expect empty.all_failed "$(parse "$work/empty" good early | tr '\n' '|')" \
	"R good fail suite_completed never started (no subtest: the console stopped before it)|R early fail suite_completed never started (no subtest: the console stopped before it)|"
# Cut off, yet it ended with status 0 meanwhile (the watchdog's 1 s): fails.
printf '%s\n' "KTAP version 1" "1..1" "    KTAP version 1" "    # Subtest: late" \
	"# late: cut off at its time limit of 300 s; its tasks and every task's kernel stack follow" \
	"# late: rc=0 secs=301" "not ok 1 late # TIMEOUT cut off at its time limit of 300 s, exit status 0" >"$work/late"
expect late.cut_off "$(parse "$work/late" late)" \
	"R late fail suite_completed cut off at its time limit (TIMEOUT), rc=0; last case: none reported"
# A kernel message between the lines changes nothing; the last case of a
# suite is its own even when a C program of it reports under another name.
printf '%s\n' "KTAP version 1" "1..1" "    KTAP version 1" "    # Subtest: a" "    ok 1 x" "[   1.000000] foo" \
	"        KTAP version 1" "        # Subtest: b" "        ok 1 y # detail" "    ok 2 b" \
	"# a: rc=1 secs=1" "not ok 1 a # exit status 1" >"$work/other"
expect other.last_case "$(line_of "$(parse "$work/other" a)" a suite_completed)" \
	"R a fail suite_completed exit status 1; last case: b y (pass)"
# The plan of the suites: one that ended without its result line, and
# with no suite to name for it, fails by count.
printf '%s\n' "KTAP version 1" "1..2" "    KTAP version 1" "    # Subtest: a" "    ok 1 x" \
	"# a: rc=0 secs=1" "ok 1 a" >"$work/short"
expect plan.short "$(parse "$work/short" a | tr '\n' '|')" \
	"R a pass x|R a pass suite_completed|R vm fail suites_reported plan 1..2, 1 suites reported|"
# A suite's case names are kept as they are (suite module's
# "group.bad.gid=-1"); only a nested producer's become [A-Za-z0-9_.:-].
printf '%s\n' "KTAP version 1" "1..1" "    KTAP version 1" "    # Subtest: a" "    ok 1 group.bad.gid=-1" \
	"        KTAP version 1" "        1..1" "        ok 1 char[20] a" "    ok 2 nested" "# a: rc=0 secs=1" "ok 1 a" >"$work/names"
expect names.kept "$(parse "$work/names" a | tr '\n' '|')" \
	"R a pass group.bad.gid=-1|R a pass char_20__a|R a pass nested|R a pass suite_completed|"
# The VM's own checks (rig/guest/guest-init): a test "vm" of their own.
printf '%s\n' "KTAP version 1" "# Subtest: vm" "ok 1 keys_held" "not ok 2 smp # 1 CPU online, want at least 2" \
	"UE-BOOTED 6.12" >"$work/vm"
expect vm.cases "$(parse "$work/vm" | tr '\n' '|')" "R vm pass keys_held|R vm fail smp 1 CPU online, want at least 2|"
# The guest's clock against the host's (UE_VM_WALL): the debug VM whose
# TSC was timed 3.6 times too slow had 1616 s of uptime after 461 s.
printf '%s\n' "KTAP version 1" "# Subtest: vm" "ok 1 smp" "UE-UPTIME 1616.53" >"$work/fast"
expect clock.fast "$(UE_VM_WALL=461 parse "$work/fast" | grep clock_in_step)" \
	"R vm fail clock_in_step the guest's uptime is 1616 s after 461 s on the host: its clock ran fast"
expect clock.in_step "$(UE_VM_WALL=1500 parse "$work/fast" | grep clock_in_step)" \
	"R vm pass clock_in_step"
# No verdict without the host's time or the guest's uptime (a console cut
# off before its end: what cut it off fails).
expect clock.no_wall "$(parse "$work/fast" | grep -c clock_in_step)" 0
expect clock.no_uptime "$(UE_VM_WALL=461 parse "$work/late" late | grep -c clock_in_step)" 0
exit 0
