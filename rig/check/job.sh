#!/bin/bash
# One job of make check's graph (rig/check/graph.sh), as ninja runs it:
#   job.sh KIND.ARG
# with build/check/env.sh's facts (check.sh) and the stage files' functions:
# job_KIND ARG (a "-" in KIND is "_" in the function's name). What the job
# finds goes to the results (build/check/results), a line per check; it
# then ends in build/check/stamps/KIND.ARG, with status 0: a failed check
# never stops the jobs after it, which record their own (a job that cannot
# do its work because of one before it says why, or says nothing where that
# one already did). A non-zero status is a bug of the rig's, recorded as a
# failure of the job, and check.sh fails every job that never ended, by
# name.
. "$(dirname "$0")/../lib/prelude.sh"

id=$1
rig=$(cd "$(dirname "$0")/.." && pwd)
build=${UE_BUILD_DIR:?}
# shellcheck source=/dev/null
. "$build/env.sh"
. "$rig/lib/vm-lib.sh"
. "$rig/check/timeline.sh"
. "$rig/lib/apt-lib.sh"
. "$rig/lib/chroot-lib.sh"
. "$rig/lib/boot-lib.sh"
for f in "$rig"/check/stage-*.sh; do
	# shellcheck source=/dev/null
	. "$f"
done
ue_log_prefix='== ' ue_log_fd=1
record() { echo "$*" >>"$results"; }
# Our kernels' directories, once their jobs built them.
for k in $debug_kernels; do
	[ ! -f "$build/$k.kroot" ] || kroot[$k]=$(cat "$build/$k.kroot")
done

kind=${id%%.*} arg=
[ "$kind" = "$id" ] || arg=${id#*.}
# Priorities. Our kernels' builds above all (nice -5, as root): on an
# empty cache they and then their VMs are the longest chain (in the first
# cold run the two builds got half a core beside the VMs, and the newer
# one's ended at 3509 s of 4148); cached, they take nothing. At
# 0: a VM, our rows' modules (the longest VMs wait for them), the
# test programs (every VM waits for them: at nice 5 beside the first
# minute's jobs, 6 CPU s took 65 s), the .debs (the install steps and the
# booted systems wait for them), the systems' images and disks (niced, a
# disk took 300 s for 25 CPU s, and on an empty cache trixie's mmdebstrap
# 1339 s for 46 CPU s, the longest chain of the run), what every Debian row
# waits for first
# (resolve: its apt-cache calls took 7 min niced beside two VMs, against
# 75 s alone), and the emu pool's arm64 root and DKMS step (qemu-user: on
# an empty cache, 25 min or more). At 5: the Debian rows' modules, and the
# amd64 install steps (user-events-run's checks and the install test's
# boots wait for them: at 10 beside the VMs they got a tenth of a core
# and ended the run). The rest (host checks) at 10.
case $id in
kernel.*) renice -n -5 -p $$ >/dev/null 2>&1 ;;
vm.* | install-boot.* | system.* | system-image.* | system-disk.* | run | userspace.* | selftests.* | resolve | fetch.* | chroot.* | headers.* | debs) ;;
arm64-root.* | install-steps.*-arm64) ;;
modules.*) [ "${kmade[$arg]:-}" = ours ] || renice -n 5 -p $$ >/dev/null ;;
uapi | tools.* | install-steps.*) renice -n 5 -p $$ >/dev/null ;;
*) renice -n 10 -p $$ >/dev/null ;;
esac
# The job's own line, in build/check/graph.tsv (the critical path of
# timeline-report.sh follows the graph's edges there); what it runs writes
# its lines in timeline.tsv.
run_job() { UE_TIMELINE=$build/timeline.tsv "job_${kind//-/_}" "$arg"; }
UE_TIMELINE=$build/graph.tsv ue_job "$id" run_job
rc=$?
# Every job function ends in 0, whatever it found; else the rig failed
# somewhere that recorded nothing, and that fails the run, by name.
[ $rc = 0 ] || record "host job fail $id exit status $rc: the rig's bug, see the run's output"
touch "$build/stamps/$id"
