# Real tools: Debian 12's perf and trace-cmd, copied into the initramfs with
# their shared libraries by check.sh, record a user event that ue_emit writes,
# and print its fields from the format file's print fmt (through the
# libtraceevent in perf, and libtraceevent.so in trace-cmd). They run on every
# kernel: the 6.1 userspace tools talk to 5.10 and 6.12 too.
#
# Each tool's output is shown as "UE-OUT tools <step>:" lines, so that the
# host neither counts them nor takes a "WARNING:" they print for a splat.
SUITE=tools
. /tests/lib.sh
export PATH=$PATH:/usr/bin
# perf keeps its build-id cache under $HOME/.debug.
export HOME=/tmp
T=/sys/kernel/tracing
EMIT=/tests/bin/ue_emit
N=3
TMO=120
t_suite=$(date +%s)

# run STEP COMMAND...: run it under the timeout, output in /tmp/STEP.out
# (shown); its exit status in $rc.
run() {
	_s=$1; shift
	timeout $TMO "$@" >/tmp/$_s.out 2>&1
	rc=$?
	sed "s|^|UE-OUT tools $_s: |" /tmp/$_s.out
	echo "UE-OUT tools $_s: (exit $rc)"
}

# records FILE RE: number of lines of FILE that match the ERE RE.
records() { grep -cE "$2" "$1"; }

ue_ok insmod insmod /modules/user_events.ko
run perf-version perf version
ue_ok perf.runs grep -q '^perf version ' /tmp/perf-version.out
run trace-cmd-version trace-cmd version
ue_ok trace_cmd.runs grep -q '^trace-cmd version ' /tmp/trace-cmd-version.out

# The tools look the event up by name before the program that writes it runs,
# so it is registered persistent first (and deleted at the end).
ue_ok persist $EMIT persist
ue_ok format_exists test -f $T/events/user_events/ue_tools/format

# perf: enabling the event for the child sets its enable bit, so ue_emit's
# wait ends and it writes N records, then exits while perf still has the
# event enabled.
run perf-record perf record -e user_events:ue_tools -o /tmp/perf.data -- $EMIT emit $N
ue_eq perf.record.exit $rc 0
ue_eq perf.record.emitted "$(records /tmp/perf-record.out "^ue_emit: wrote $N records$")" 1
ue_eq perf.record.samples "$(records /tmp/perf-record.out "/tmp/perf\.data \($N samples\)")" 1
run perf-script perf script -i /tmp/perf.data
ue_eq perf.script.exit $rc 0
# "   ue_emit   108 [000]     8.599959: user_events:ue_tools: count=1 msg=hello-1 note=note-1"
i=1
while [ $i -le $N ]; do
	ue_eq perf.script.record$i "$(records /tmp/perf-script.out \
		"^ *ue_emit +[0-9]+ \[[0-9]{3}\] +[0-9]+\.[0-9]{6}: +user_events:ue_tools: count=$i msg=hello-$i note=note-$i\$")" 1
	i=$((i + 1))
done
ue_eq perf.script.records "$(records /tmp/perf-script.out 'user_events:ue_tools:')" $N
# perf is gone: nothing uses the event any more.
ue_eq perf.released "$(head -1 $T/user_events_status)" ue_tools

# trace-cmd: the same through ftrace. --nosplice: by default trace-cmd
# splices each CPU's trace_pipe_raw, which moves whole pages only, and reads
# the last, partial page when recording ends. On Debian 12's 6.1 (amd64 and
# arm64, trace-cmd 3.1.6 and 3.3) that last read often returns nothing, and
# what a CPU recorded in a short run is lost: in one 6.1 VM,
# `trace-cmd record -e sched:sched_process_exit sh -c "sleep 0.3; exec true"`
# lost one of its two records in 7 runs of 12, without our module in use,
# and recording user events the same way lost them in 6 of 12; with
# --nosplice (read() only) 12 of 12 runs recorded everything. Not ours, so
# the test reads the way that works on every kernel (README, "perf and
# trace-cmd").
# The command waits until every CPU's recorder has made its file: trace-cmd
# forks one recorder a CPU, which installs its SIGUSR1 handler and then
# creates OUTPUT.cpuN; when the command ends, trace-cmd stops them with
# SIGUSR1. Under TCG with another VM beside, a short command could end
# before a recorder was that far: SIGUSR1 then killed it, no file was made,
# and trace-cmd said "can not stat '/tmp/trace.dat.cpu1'" and reported
# nothing (make check on a new machine, 6.1: trace_cmd.report.*). Once
# every file exists no recorder can be lost; the wait is bounded (10 s),
# and how many recorders were ready is checked.
ncpu=$(grep -c '^processor' /proc/cpuinfo)
rm -f /tmp/trace.dat /tmp/trace.dat.cpu*
run trace-cmd-record trace-cmd record --nosplice -e user_events:ue_tools -o /tmp/trace.dat \
	sh -c 'i=0
	while [ "$(ls /tmp/trace.dat.cpu* 2>/dev/null | wc -l)" -lt "$0" ] && [ $i -lt 100 ]; do
		sleep 0.1; i=$((i + 1))
	done
	echo "recorders ready: $(ls /tmp/trace.dat.cpu* 2>/dev/null | wc -l)"
	exec "$@"' "$ncpu" $EMIT emit $N
ue_eq trace_cmd.record.exit $rc 0
ue_eq trace_cmd.record.recorders_ready "$(records /tmp/trace-cmd-record.out "^recorders ready: $ncpu\$")" 1
ue_eq trace_cmd.record.emitted "$(records /tmp/trace-cmd-record.out "^ue_emit: wrote $N records$")" 1
run trace-cmd-report trace-cmd report -i /tmp/trace.dat
ue_eq trace_cmd.report.exit $rc 0
# "   ue_emit-123   [000]    13.777192: ue_tools:             count=1 msg=hello-1 note=note-1"
# (trace-cmd 3.3, Debian 13's, which the arm64 rows run, adds the latency
# flags after the CPU: "[001] .....   109.445345:")
i=1
while [ $i -le $N ]; do
	ue_eq trace_cmd.report.record$i "$(records /tmp/trace-cmd-report.out \
		"^ *ue_emit-[0-9]+ +\[[0-9]{3}\]( +[.a-zA-Z0-9]{4,6})? +[0-9]+\.[0-9]{6}: ue_tools: +count=$i msg=hello-$i note=note-$i\$")" 1
	i=$((i + 1))
done
ue_eq trace_cmd.report.records "$(records /tmp/trace-cmd-report.out ' ue_tools: ')" $N
ue_eq trace_cmd.released "$(head -1 $T/user_events_status)" ue_tools
ue_eq trace_cmd.disabled "$(cat $T/events/user_events/ue_tools/enable)" 0
# The later suites trace through the top instance.
ue_eq trace_cmd.tracing_left_on "$(cat $T/tracing_on)" 1

ue_ok delete $EMIT delete
ue_nok event_gone test -e $T/events/user_events/ue_tools
ue_ok rmmod rmmod user_events
echo "UE-INFO tools: suite took $(( $(date +%s) - t_suite ))s"
