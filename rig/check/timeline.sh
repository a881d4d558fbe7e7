# The timeline of make check (sourced, bash): one line per job in
# $UE_TIMELINE (build/check/timeline.tsv), tab-separated:
#   job  start  end  wall  cpu
# the job's name, its start and end (seconds since the epoch), its wall
# seconds, and its CPU seconds: the job's own shell's and those of every
# process it waited for (a process left running in the background is not
# counted). rig/report/timeline-report.sh reads it.

# ue_job NAME CMD...: runs CMD (a program or a function) in a subshell and
# appends NAME's line to $UE_TIMELINE (unset: only runs it); its exit status
# is CMD's. A variable CMD sets stays in the subshell. Builtins only: the
# times are bash's EPOCHREALTIME, the CPU the subshell's utime, stime,
# cutime and cstime in /proc (in USER_HZ, 100 a second on Linux).
ue_job() (
	name=$1
	shift
	t0=${EPOCHREALTIME//[^0-9]/}
	"$@"
	rc=$?
	[ -n "${UE_TIMELINE:-}" ] || exit $rc
	t1=${EPOCHREALTIME//[^0-9]/}
	read -r st </proc/$BASHPID/stat
	# (fields 14 to 17; counted after the second, the command's name in
	# parentheses, which may have spaces)
	read -r -a st <<<"${st##*) }"
	cpu=$((st[11] + st[12] + st[13] + st[14]))
	# Centiseconds: the microseconds of the clock, the ticks of the CPU.
	t0=$((10#$t0 / 10000)) t1=$((10#$t1 / 10000))
	printf '%s\t%d.%02d\t%d.%02d\t%d.%02d\t%d.%02d\n' "$name" \
		$((t0 / 100)) $((t0 % 100)) $((t1 / 100)) $((t1 % 100)) \
		$(((t1 - t0) / 100)) $(((t1 - t0) % 100)) $((cpu / 100)) $((cpu % 100)) \
		>>"$UE_TIMELINE"
	exit $rc
)
