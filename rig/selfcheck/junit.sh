#!/bin/bash
# Host checks of the results as JUnit XML (rig/report/junit.sh, which
# report.sh runs for make check's build/check/junit.xml and make
# check-report's merge), read back with a JUnit library CI tools use,
# Debian's python3-junitparser: a made-up results file of three rows and
# six (row, suite) pairs, with a failure whose detail has <, &, quotes, a
# tab, a control character and a non-ASCII character, a detail of bytes
# that are no UTF-8, a verdict that is neither pass nor fail and a case
# twice in a suite. The XML must parse; its tests and failures must be
# report.sh's "N passed, N failed" of the same file, in the whole and in
# each suite; its suites those pairs, in the order they first appear; a
# failure's message and text its detail exactly, less what XML cannot
# carry; and report.sh and check-report.sh must write it beside their
# results. One check gives the reader a wrong count and asserts that it
# says so: the check can fail.
# Prints one line per check: "host junit pass|fail <case> [detail]".
# Usage: junit.sh
. "$(dirname "$0")/../lib/prelude.sh"

root=$(cd "$(dirname "$0")/../.." && pwd)
hostcheck_name=junit
. "$(dirname "$0")/../lib/hostcheck.sh"
cd "$work" || exit 1
# (Debian's python3, the one python3-junitparser is installed for, whatever
# PATH the caller runs with: a pyenv's or a venv's python3 has no junitparser)
python=$(PATH=/usr/bin:/bin command -v python3) || {
	result fail reader "no python3 in /usr/bin (tests/deps.sh: python3-junitparser)"
	exit 0
}

# The reader: the XML through junitparser, and a "pass|fail CASE [detail]"
# line for each expectation of EXPECT ("CASE<TAB>value" lines, UTF-8):
#   tests, failures     the whole's count: its attribute and its test cases
#   suites              the suites' names, "|" between them, in their order
#   suite_counts        (any value) each suite's attributes are its cases'
#   message.CLASS.NAME  the failure of that case: its message and its text
#   type.CLASS.NAME     the failure of that case: its type (the verdict)
#   cases.CLASS.NAME    how many cases of that name there are in that class
cat >read.py <<'EOF'
import sys
from junitparser import JUnitXml, TestSuite, Failure

def say(verdict, case, detail=""):
    print(verdict, case, detail.replace("\n", " ") if detail else "")

xml_path, expect_path = sys.argv[1], sys.argv[2]
try:
    xml = JUnitXml.fromfile(xml_path)
except Exception as e:
    say("fail", "read", "%s: %s" % (type(e).__name__, e))
    sys.exit(0)
if isinstance(xml, TestSuite):
    say("fail", "read", "its root is a testsuite, not testsuites")
    sys.exit(0)
say("pass", "read")
suites = list(xml)
cases = [(s, c) for s in suites for c in s]
def failures_of(c):
    return [r for r in c.result if isinstance(r, Failure)]
def the_failure(key):
    cls, _, name = key.partition(".")[2].rpartition(".")
    found = [c for _, c in cases if c.classname == cls and c.name == name]
    if len(found) != 1 or len(failures_of(found[0])) != 1:
        return None, "%d cases %s %s, %s failures" % (
            len(found), cls, name, [len(failures_of(c)) for c in found])
    return failures_of(found[0])[0], ""

with open(expect_path, encoding="utf-8") as f:
    expect = [l.rstrip("\n").split("\t", 1) for l in f if l.strip()]
for key, want in expect:
    if key == "tests":
        got = "%s %d" % (xml.tests, len(cases))
        want = "%s %s" % (want, want)
    elif key == "failures":
        got = "%s %d" % (xml.failures, sum(1 for _, c in cases if failures_of(c)))
        want = "%s %s" % (want, want)
    elif key == "suites":
        got = "|".join(s.name for s in suites)
    elif key == "suite_counts":
        bad = ["%s: %s/%s, cases %d/%d" % (s.name, s.tests, s.failures, len(list(s)),
                                           sum(1 for c in s if failures_of(c)))
               for s in suites
               if (s.tests, s.failures) != (len(list(s)), sum(1 for c in s if failures_of(c)))]
        got = "; ".join(bad) or want
    elif key.startswith("message."):
        r, err = the_failure(key)
        got = err or "%r %r" % (r.message, r.text)
        want = "%r %r" % (want, want)
    elif key.startswith("type."):
        r, err = the_failure(key)
        got = err or r.type
    elif key.startswith("cases."):
        cls, _, name = key.partition(".")[2].rpartition(".")
        got = str(sum(1 for _, c in cases if c.classname == cls and c.name == name))
    else:
        got = "unknown expectation"
    if got == want:
        say("pass", key)
    else:
        say("fail", key, "got %s, want %s" % (got, want))
EOF
# read_back XML EXPECT: the reader's lines, each a result.
read_back() {
	local v c d
	"$python" read.py "$1" "$2" >read.out 2>&1 || { result fail reader "$(tail -1 read.out)"; return; }
	while read -r v c d; do
		case $v in pass | fail) result "$v" "$c" "$d" ;; *) result fail reader "$v $c $d" ;; esac
	done <read.out
}
# counts REPORT-OUTPUT: "PASSED FAILED" of its last "N passed, N failed".
counts() { sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed$/\1 \2/p' "$1" | tail -1; }

# --- a made-up run's results --------------------------------------------------------
# Rows host, 6.1 and debug; the pairs host deps, 6.1 abi, debug vm, 6.1 vm,
# host console, debug abi; 6.1 abi's register twice; debug's VM timed out
# (a verdict report.sh counts as failed); a console's bytes (ESC, DEL, a
# C1 control, a lone continuation byte, a cut-off é) around "ok".
t=$'\t'
detail="got <0> & \"-1\" from 'open'${t}in $(printf '\001')é mode"
clean_detail="got <0> & \"-1\" from 'open'${t}in é mode"
{
	echo "host deps pass check.closure"
	echo "6.1 abi pass register"
	echo "6.1 abi fail unregister $detail"
	echo "6.1 abi pass register"
	echo "debug vm timeout finished after 1500 s"
	echo "6.1 vm pass finished"
	printf 'host console fail bytes \033[1m%s\177\302\205\200\303\n' ok
	echo "debug abi pass register"
} >results
# (a copy for report.sh, which writes its junit.xml beside it)
mkdir run
cp results run/results
: >run/lock
: >run/notes

# report.sh's counts, and the XML it wrote beside its results.
"$root/rig/report/report.sh" run/results run/lock run/notes 0 6.1 debug >report.out 2>&1
read -r passed failed <<<"$(counts report.out)"
expect report_counts "$passed $failed" "5 3"
"$root/rig/report/junit.sh" results junit.xml 2>junit.err
expect write "$? $(cat junit.err)" "0 "
if [ -s junit.xml ] && cmp -s junit.xml run/junit.xml; then
	result pass report_writes
else
	result fail report_writes "report.sh left no run/junit.xml, or one other than junit.sh's"
fi

# The XML read back.
cat >expect <<EOF
tests${t}$((passed + failed))
failures${t}$failed
suites${t}host deps|6.1 abi|debug vm|6.1 vm|host console|debug abi
suite_counts${t}-
message.6.1.abi.unregister${t}$clean_detail
type.6.1.abi.unregister${t}fail
message.debug.vm.finished${t}after 1500 s
type.debug.vm.finished${t}timeout
message.host.console.bytes${t}[1mok
cases.6.1.abi.register${t}2
EOF
read_back junit.xml expect

# The check can fail: a count one more than the XML's is reported.
printf 'tests\t%s\nfailures\t%s\n' $((passed + failed + 1)) "$failed" >wrong
"$python" read.py junit.xml wrong >wrong.out 2>&1
expect mismatch_is_caught "$(cut -d' ' -f1-2 wrong.out | tr '\n' ' ')" "pass read fail tests pass failures "

# Nothing at all: no suite, no test, and still a document.
: >empty
"$root/rig/report/junit.sh" empty empty.xml
printf 'tests\t0\nfailures\t0\nsuites\t\n' >expect.empty
"$python" read.py empty.xml expect.empty >empty.out 2>&1
expect empty "$(cut -d' ' -f1-2 empty.out | tr '\n' ' ')" "pass read pass tests pass failures pass suites "

# make check-report: the merge of two shards (6.1 with the host lines;
# debug) has the XML of its merged results, with the report's counts.
for s in a b; do
	mkdir -p "shards/$s"
	: >"shards/$s/kernels.lock"
	: >"shards/$s/notes"
	echo 10 >"shards/$s/seconds"
done
awk '$1 != "debug"' results >shards/a/results
awk '$1 == "debug"' results >shards/b/results
echo 6.1 >shards/a/rows
echo debug >shards/b/rows
echo 1 >shards/a/host-checks
echo 0 >shards/b/host-checks
UE_REPORT_DIR=$work/merged "$root/rig/report/check-report.sh" shards/a shards/b >merge.out 2>&1
read -r m_passed m_failed <<<"$(counts merge.out)"
if [ "$m_passed $m_failed" != "$passed $failed" ]; then
	result fail check_report "the merge counts '$m_passed $m_failed', want '$passed $failed'"
elif [ ! -s merged/junit.xml ]; then
	result fail check_report "no junit.xml in the merge's directory"
else
	printf 'tests\t%s\nfailures\t%s\n' $((passed + failed)) "$failed" >expect.merged
	"$python" read.py merged/junit.xml expect.merged >merged.out 2>&1
	if [ "$(cut -d' ' -f1-2 merged.out | tr '\n' ' ')" = "pass read pass tests pass failures " ]; then
		result pass check_report
	else
		result fail check_report "$(tr '\n' ' ' <merged.out)"
	fi
fi
exit 0
