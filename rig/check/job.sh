#!/bin/bash
# One job of make check's graph (rig/check/graph.sh), as ninja runs it:
#   job.sh KIND.ARG NICE
# with build/check/env.sh's facts (check.sh) and the stage files' functions:
# job_KIND ARG (a "-" in KIND is "_" in the function's name). What the job
# checks goes to its result lines, a line per check (record), and its
# product to the file graph.sh names (products.tsv). The job contract
# (graph.sh): the function ends non-zero where it could not make the
# product; then, or where it ended in 0 without it, the job fails: its
# lines go to results.d/ID.failed (with one that says so, where none of
# them does), its product is removed, and ninja runs nothing that waits
# for it. Else its lines go to results.d/ID.
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
mkdir -p "$build/results.d"
results=$build/results.d/$id.part
: >"$results"
record() { echo "$*" >>"$results"; }
product=$build/$(awk -F'\t' -v id="$id" '$1 == id { print $2 }' "$build/products.tsv")
# link_product DIR: the product, a link to DIR (what lives in the cache).
link_product() { mkdir -p "$(dirname "$product")" && ln -sfn "$1" "$product"; }

kind=${id%%.*} arg=
[ "$kind" = "$id" ] || arg=${id#*.}
# (its priority: graph.sh, priority)
[ "${2:-0}" = 0 ] || renice -n "$2" -p $$ >/dev/null 2>&1
# The job's own line, in build/check/graph.tsv (the critical path of
# timeline-report.sh follows the graph's edges there); what it runs writes
# its lines in timeline.tsv.
run_job() { UE_TIMELINE=$build/timeline.tsv "job_${kind//-/_}" "$arg"; }
UE_TIMELINE=$build/graph.tsv ue_job "$id" run_job
rc=$?
if [ $rc = 0 ]; then
	mv "$results" "$build/results.d/$id"
	results=$build/results.d/$id
	[ -e "$product" ] && exit 0
	rc=1
fi
who=host
[[ " $kernels " != *" $arg "* ]] || who=$arg
if [ ! -e "$product" ]; then
	grep -q '^[^ ]* [^ ]* fail ' "$results" ||
		record "$who $kind fail product $id made no ${product#"$build"/}: see the run's output"
else
	grep -q '^[^ ]* [^ ]* fail ' "$results" ||
		record "$who $kind fail exit_status $id ended in status $rc: see the run's output"
	rm -rf "$product"
fi
mv "$results" "$build/results.d/$id.failed"
exit 1
