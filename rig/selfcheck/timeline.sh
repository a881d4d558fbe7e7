#!/bin/bash
# Host checks of make check's timeline: ue_job's lines (rig/check/timeline.sh)
# and the report of a small made-up timeline (rig/report/timeline-report.sh),
# whose exact output is below.
# Prints one line per check: "host timeline pass|fail <case> [detail]".
# Usage: timeline.sh
. "$(dirname "$0")/../lib/prelude.sh"

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/rig/check/timeline.sh"
hostcheck_name=timeline
. "$(dirname "$0")/../lib/hostcheck.sh"
cd "$work" || exit 1

# --- the report: the ten longest jobs, the CPU, the critical path -------------
# Twelve jobs (one line malformed); "vm debug" ended last, after "modules
# debug", after "kernel debug" (which ended when "modules debug" started),
# after "resolve", after "deps"; "resolve" and "modules debug" tie on wall
# time (the one that started first comes first).
t=$'\t'
cat >t.tsv <<EOF
deps${t}1000.00${t}1010.00${t}10.00${t}2.50
resolve${t}1010.00${t}1030.00${t}20.00${t}3.00
fetch 6.1${t}1030.00${t}1100.00${t}70.00${t}5.00
fetch 6.12${t}1030.00${t}1090.00${t}60.00${t}4.00
chroot bookworm${t}1030.00${t}1300.00${t}270.00${t}200.00
kernel debug${t}1030.00${t}1500.00${t}470.00${t}900.00
modules 6.1${t}1310.00${t}1350.00${t}40.00${t}60.00
vm 6.1${t}1360.00${t}1600.00${t}240.00${t}230.00
modules debug${t}1500.00${t}1520.00${t}20.00${t}30.00
vm debug${t}1525.00${t}2000.00${t}475.00${t}470.00
host/run${t}1350.00${t}1400.00${t}50.00${t}45.00
host/deps${t}1400.00${t}1405.50${t}5.50${t}4.25
a line without its fields
EOF
cat >want <<'EOF'
timeline (t.tsv): 12 jobs, 1000 s from the first start to the last end, 1953.75 CPU seconds in all jobs (1.95 cores busy on average)
  (1 malformed lines left out)

the ten longest jobs (wall s, CPU s, start s, job):
    475.00   470.00     525  vm debug
    470.00   900.00      30  kernel debug
    270.00   200.00      30  chroot bookworm
    240.00   230.00     360  vm 6.1
     70.00     5.00      30  fetch 6.1
     60.00     4.00      30  fetch 6.12
     50.00    45.00     350  host/run
     40.00    60.00     310  modules 6.1
     20.00     3.00      10  resolve
     20.00    30.00     500  modules debug

critical path (start s, end s, wall s, idle s before it, job):
        0      10    10.00       0  deps
       10      30    20.00       0  resolve
       30     500   470.00       0  kernel debug
      500     520    20.00       0  modules debug
      525    1000   475.00       5  vm debug
EOF
"$root/rig/report/timeline-report.sh" t.tsv >got 2>&1
if cmp -s want got; then
	result pass report
else
	result fail report "$(diff want got | grep '^[<>]' | head -4 | tr '\n' '|')"
fi
: >empty.tsv
out=$("$root/rig/report/timeline-report.sh" empty.tsv 2>&1)
if [ "$out" = "timeline: no jobs in empty.tsv" ]; then
	result pass report_empty
else
	result fail report_empty "$(echo "$out" | head -2 | tr '\n' '|')"
fi

# --- the critical path through the job graph (graph.tsv, deps.tsv) -----------
# vm.6.1 ended last; it waited for modules.6.1 (which ended 40 s before it
# started: its pool was busy), not for host.deps, which ended last before
# it started (the path read from the times alone would go through that).
cat >g.tsv <<EOF
resolve${t}1000.00${t}1010.00${t}10.00${t}1.00
fetch.6.1${t}1010.00${t}1030.00${t}20.00${t}2.00
kernel.debug${t}1000.00${t}1400.00${t}400.00${t}700.00
modules.6.1${t}1030.00${t}1060.00${t}30.00${t}40.00
host.deps${t}1060.00${t}1090.00${t}30.00${t}20.00
vm.6.1${t}1100.00${t}1500.00${t}400.00${t}300.00
modules.debug${t}1400.00${t}1420.00${t}20.00${t}30.00
vm.debug${t}1420.00${t}1450.00${t}30.00${t}25.00
EOF
cat >d.tsv <<EOF
resolve${t}
fetch.6.1${t}resolve
kernel.debug${t}
modules.6.1${t}fetch.6.1
host.deps${t}resolve
vm.6.1${t}modules.6.1 kernel.nothing
modules.debug${t}kernel.debug
vm.debug${t}modules.debug
EOF
cat >want <<'EOF'
critical path through the job graph (start s, end s, wall s, wait s before it, job):
        0      10    10.00       0  resolve
       10      30    20.00       0  fetch.6.1
       30      60    30.00       0  modules.6.1
      100     500   400.00      40  vm.6.1
EOF
"$root/rig/report/timeline-report.sh" g.tsv g.tsv d.tsv 2>&1 | sed -n '/^critical path/,$p' >got
if cmp -s want got; then
	result pass report_graph
else
	result fail report_graph "$(diff want got | grep '^[<>]' | head -4 | tr '\n' '|')"
fi

# --- ue_job: its line, its status, the CPU of what it waited for -------------
busy() { awk 'BEGIN { for (i = 0; i < 3000000; i++) s += i }'; }
two_busy() { busy; busy & wait; }
export UE_TIMELINE=$work/j.tsv
ue_job "two busy" two_busy
rc_ok=$?
ue_job fails sh -c 'exit 3'
rc_fail=$?
line=$(grep "^two busy$t" j.tsv)
if [ "$(wc -l <j.tsv)" = 2 ] && [ "$(grep -c "^fails$t" j.tsv)" = 1 ] &&
   awk -F '\t' 'NF != 5 { exit 1 } { for (i = 2; i <= 5; i++) if ($i !~ /^[0-9]+\.[0-9][0-9]$/) exit 1 }
		$3 < $2 || ($3 - $2) - $4 > 0.011 || $4 - ($3 - $2) > 0.011 { exit 1 }' j.tsv; then
	result pass job_line
else
	result fail job_line "$(tr '\t\n' ' |' <j.tsv)"
fi
if [ $rc_ok = 0 ] && [ $rc_fail = 3 ]; then
	result pass job_status
else
	result fail job_status "status $rc_ok and $rc_fail, want 0 and 3"
fi
# (two awk loops, one of them in the background and waited for: some CPU)
if awk -F '\t' '{ exit !($5 > 0) }' <<<"$line"; then
	result pass job_cpu
else
	result fail job_cpu "$(tr '\t' ' ' <<<"$line")"
fi
unset UE_TIMELINE
if ue_job quiet true && [ "$(wc -l <j.tsv)" = 2 ]; then
	result pass job_without_timeline
else
	result fail job_without_timeline "$(tr '\t\n' ' |' <j.tsv)"
fi
