# The kernel matrix, rig/kernels.list, read in one place (sourced,
# bash): every script asks ue_matrix for its rows and columns by name, so
# that a column is added, or a row made special, in that file alone. Each
# read checks the whole file, and a malformed line fails the read, named.

# (a host check points it at a file of its own)
ue_matrix_file=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/kernels.list
# The columns, in the file's order (its header says what each holds).
ue_matrix_columns="name made release suites series flavour level limit extra flags"

# ue_matrix [COND...] [-- FIELD...]: the rows that meet every COND, in the
# file's order, a line each: their FIELDs (default: every column), one
# space apart. A FIELD is a column or "arch", the kernel's Debian
# architecture (arm64 for the flavours arm64 and *-arm64, as apt-lib.sh's
# ue_kernel_arch says of a package; amd64 otherwise, ours included). A COND
# is FIELD=VALUE or FIELD!=VALUE, or FIELD~WORD or FIELD!~WORD: WORD is (or
# is not) one of the column's comma-separated words (flags~run, extra~ids).
# Status 2, with the lines and conditions at fault on stderr, for a
# malformed file or call.
ue_matrix() {
	local conds=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do conds+=("$1"); shift; done
	[ $# = 0 ] || shift
	awk -v cols="$ue_matrix_columns" -v want="$*" -v conds="${conds[*]}" \
		-v file="$ue_matrix_file" '
	function bad(what) { err = err "\n  " what }
	BEGIN {
		nc = split(cols, c, " ")
		for (i = 1; i <= nc; i++) col[c[i]] = i
		col["arch"] = nc + 1
		nw = split(want, w, " ")
		if (nw == 0) { nw = nc; for (i = 1; i <= nc; i++) w[i] = c[i] }
		for (i = 1; i <= nw; i++) if (!(w[i] in col)) bad("no column " w[i])
		nq = split(conds, q, " ")
		for (i = 1; i <= nq; i++) {
			if (!match(q[i], /!?[=~]/) || !(substr(q[i], 1, RSTART - 1) in col)) {
				bad("not a condition: " q[i]); continue
			}
			qc[i] = col[substr(q[i], 1, RSTART - 1)]
			qo[i] = substr(q[i], RSTART, RLENGTH)
			qv[i] = substr(q[i], RSTART + RLENGTH)
		}
	}
	/^[[:space:]]*(#|$)/ { next }
	{
		at = FILENAME ":" FNR ": "
		if (NF != nc) { bad(at NF " columns, not " nc); next }
		if ($1 in seen) bad(at "row " $1 " again (line " seen[$1] ")")
		seen[$1] = FNR
		if ($2 != "debian" && $2 != "ours") bad(at "made " $2 ": debian or ours")
		if ($2 == "debian" && ($3 == "-" || $4 == "-")) bad(at "a Debian row names its release and suites")
		if ($2 == "ours" && ($3 != "-" || $4 != "-")) bad(at "our row has no release or suites: -")
		if ($7 != "full" && $7 != "short" && $7 != "config") bad(at "level " $7 ": full, short or config")
		if ($8 !~ /^[1-9][0-9]*$/) bad(at "limit " $8 ": seconds")
		$(nc + 1) = ($6 ~ /(^|-)arm64(-16k)?$/) ? "arm64" : "amd64"
		for (i = 1; i <= nq; i++) {
			v = $(qc[i])
			if (qo[i] ~ /=/) ok = (v == qv[i])
			else ok = index("," v ",", "," qv[i] ",") > 0
			if (qo[i] ~ /^!/) ok = !ok
			if (!ok) next
		}
		line = $(col[w[1]])
		for (i = 2; i <= nw; i++) line = line " " $(col[w[i]])
		out[++n] = line
	}
	END {
		if (err != "") {
			printf "ue_matrix (%s):%s\n", file, err >"/dev/stderr"
			exit 2
		}
		for (i = 1; i <= n; i++) print out[i]
	}' "$ue_matrix_file"
}

# ue_matrix_one [COND...] [-- FIELD...]: as ue_matrix, for exactly one row
# (a row by name, the row a flag marks); none or more is said on stderr,
# status 1.
ue_matrix_one() {
	local out n
	out=$(ue_matrix "$@") || return
	n=$(grep -c . <<<"$out")
	[ "$n" = 1 ] && { echo "$out"; return 0; }
	local conds=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do conds+=("$1"); shift; done
	echo "$ue_matrix_file: $n rows where one is wanted (${conds[*]})" >&2
	return 1
}
