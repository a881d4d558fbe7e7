# Assertions for the shell suites run inside the test VM.
# Each suite sets SUITE and sources this file; every check prints one line
# "UE-RESULT <suite> pass|fail <case> [detail]", as the C programs do
# (ue_test.h), which the guest's suite loop (rig/guest/guest-suites.sh)
# numbers into the suite's KTAP subtest on the console.

ue_pass() { echo "UE-RESULT $SUITE pass $1"; }
ue_fail() { echo "UE-RESULT $SUITE fail $1 $2"; }

# ue_ok CASE COMMAND...: COMMAND must succeed.
ue_ok() {
	_c=$1; shift
	if "$@" >/tmp/ue.out 2>&1; then ue_pass "$_c"
	else ue_fail "$_c" "command failed: $* ($(head -c 200 /tmp/ue.out))"; fi
}

# ue_nok CASE COMMAND...: COMMAND must fail.
ue_nok() {
	_c=$1; shift
	if "$@" >/tmp/ue.out 2>&1; then ue_fail "$_c" "command succeeded: $*"
	else ue_pass "$_c"; fi
}

# ue_eq CASE GOT WANT
ue_eq() {
	if [ "$2" = "$3" ]; then ue_pass "$1"
	else ue_fail "$1" "got '$2', want '$3'"; fi
}

# ue_count_dmesg PATTERN: number of kernel log lines matching PATTERN (ERE).
# ue_budget LONG SHORT: a suite's length (seconds, loops, calls) on this row:
# LONG on our debug kernels, where KASAN, lockdep and kmemleak turn what a
# race or a fuzzed call got wrong into a report, SHORT on Debian's kernels
# (boot-lib.sh writes /tests/budget). The races' windows are held open by
# the race build (src/race.h), so a short run still meets each of them
# (every race case checks that it did), and make check, CPU-bound, spends
# the time it saves on the booted systems.
ue_budget() {
	if [ "$(cat /tests/budget 2>/dev/null)" = long ]; then echo "$1"; else echo "$2"; fi
}

ue_count_dmesg() { dmesg | grep -cE "$1"; }

# ue_count_dmesg_text TEXT: number of kernel log lines containing TEXT.
ue_count_dmesg_text() { dmesg | grep -cF "$1"; }
