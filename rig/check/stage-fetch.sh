# make check's fetch stage (sourced by rig/check/job.sh, bash): the rows
# resolved to packages (resolve.sh), each row's kernel fetched
# (fetch-kernels.sh), and linux-source-6.12 (fetch-source.sh: checkpatch,
# the selftests, the debug kernel).

# resolve: the lock file (build/check/kernels.lock) of the Debian rows, its
# notes; a row is then ok, unserved (the mirror serves none of its
# packages; kernels.list allows it: it leaves the run, said in the notes)
# or missing (a failure), in build/check/ROW.row.
job_resolve() {
	local k
	say "resolving${UE_KERNELS_LOCK:+ (from $UE_KERNELS_LOCK)}:$stock"
	# shellcheck disable=SC2086
	ue_job resolve "$rig/fetch/resolve.sh" $stock >"$lock.new"
	mv "$lock.new" "$lock"
	grep '^# NOTE' "$lock" | sed 's/^# NOTE /NOTE: /' >>"$notes"
	grep '^# UNSERVED' "$lock" | sed 's/^# UNSERVED \([^ ]*\)/NOTE: \1 NOT TESTED:/' >>"$notes"
	grep -v '^#' "$lock" | sed 's/^/   /'
	for k in $stock; do
		if grep -q "^# UNSERVED $k " "$lock"; then
			echo "$k" >>"$build/unserved"
			echo unserved >"$build/$k.row"
		elif awk -v k="$k" '$1 == k && NF == 7 { f = 1 } END { exit !f }' "$lock"; then
			echo ok >"$build/$k.row"
		else
			record "$k fetch fail kernel $(grep "^# MISSING $k " "$lock" | cut -d' ' -f4-)"
			echo missing >"$build/$k.row"
		fi
	done
}

# row_state ROW: ok, unserved or missing (resolve), or fetched or unfetched
# (fetch).
row_state() { cat "$build/$1.row" 2>/dev/null || echo missing; }

job_fetch() {
	local k=$1
	[ "$(row_state "$k")" = ok ] || return 0
	if UE_KERNELS_LOCK=$lock ue_job "fetch $k" "$rig/fetch/fetch-kernels.sh" "$k" 2>"$build/fetch-$k.log"; then
		record "$k fetch pass kernel"
		echo fetched >"$build/$k.row"
	else
		record "$k fetch fail kernel could not be fetched: $(tail -1 "$build/fetch-$k.log")"
		echo unfetched >"$build/$k.row"
	fi
}

# linux-source: its tree's path in build/check/srctree.
job_linux_source() {
	local t
	say "fetching linux-source-6.12 (checkpatch, selftests, debug kernel)"
	if t=$(ue_job linux-source "$rig/fetch/fetch-source.sh") && [ -d "$t" ]; then
		echo "$t" >"$build/srctree"
		record "host fetch pass linux-source"
	else
		record "host fetch fail linux-source could not be fetched"
	fi
}
# srctree: linux-source's tree, or nothing.
srctree() { cat "$build/srctree" 2>/dev/null; }
