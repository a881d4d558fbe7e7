#!/bin/bash
# The jobs of make check's graph that never ran, a failed result line each,
# by name, with the products they waited for that are missing (the job
# contract, rig/check/graph.sh): a job ran where it left result lines in
# build/check/results.d (ID, or ID.failed where it made no product, or
# ID.part where it was cut off).
#   not-run.sh      (UE_BUILD_DIR: the run's build/check)
# Prints "<row|host> <kind> fail not_run <id>: <job> (<product>)..." lines,
# and "... fail cut_off <id>: ..." for a job that started and never ended.
. "$(dirname "$0")/../lib/prelude.sh"
build=${UE_BUILD_DIR:?}
# shellcheck source=/dev/null
. "$build/env.sh"
declare -A product
while IFS=$'\t' read -r id p; do product[$id]=$p; done <"$build/products.tsv"
while IFS=$'\t' read -r id deps; do
	r=$build/results.d/$id
	arg=${id#*.} who=host
	[[ " $kernels " != *" $arg "* ]] || who=$arg
	[ ! -e "$r" ] && [ ! -e "$r.failed" ] || continue
	if [ -e "$r.part" ]; then
		echo "$who ${id%%.*} fail cut_off $id: it started and never ended (the output of ninja says why)"
		continue
	fi
	missing=
	for d in $deps; do
		[ -e "$build/${product[$d]}" ] || missing="$missing $d (${product[$d]})"
	done
	echo "$who ${id%%.*} fail not_run $id:${missing:- its job never started (the output of ninja says why)}"
done <"$build/deps.tsv"
