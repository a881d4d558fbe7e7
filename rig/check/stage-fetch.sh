# make check's fetch stage (sourced by rig/check/job.sh, bash): each row's
# kernel fetched (fetch-kernels.sh, from the packages check.sh resolved in
# build/check/kernels.lock), and linux-source (fetch-source.sh: checkpatch,
# the selftests, our kernels). Each product is a link to the cache
# (graph.sh, product), made once the fetch is whole.

job_fetch() {
	local k=$1
	if UE_KERNELS_LOCK=$lock ue_job "fetch $k" "$rig/fetch/fetch-kernels.sh" "$k" 2>"$build/fetch-$k.log"; then
		record "$k fetch pass kernel"
		link_product "${kroot[$k]}"
	else
		record "$k fetch fail kernel could not be fetched: $(tail -1 "$build/fetch-$k.log")"
		return 1
	fi
}

# linux-source: linux-source-6.12's tree; linux-source-newest: the newest
# linux-source any release of the matrix has (our kernels of series any).
job_linux_source() { fetch_source ""; }
job_linux_source_newest() { fetch_source newest; }
fetch_source() {
	local t
	say "fetching linux-source${1:+ ($1)} (checkpatch, selftests, our kernels)"
	# shellcheck disable=SC2086
	if t=$(ue_job "$id" "$rig/fetch/fetch-source.sh" $1) && [ -d "$t" ]; then
		record "host fetch pass $id"
		link_product "$t"
	else
		record "host fetch fail $id could not be fetched"
		return 1
	fi
}
# srctree: linux-source's tree (its job's product, graph.sh).
srctree() { readlink "$build/source/linux-source"; }
