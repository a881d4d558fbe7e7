#!/bin/bash
# Resolve the Debian rows of rig/kernels.list to packages: for each
# row, the newest linux-image of its series and flavour in its suites (the
# -unsigned image where the archive has one) whose headers package has the
# same version, and whose files the mirror serves. Prints one lock line per
# row:
#   name release suite image headers version level
# and "# NOTE ..." lines for what it passed over. A row that resolves to
# nothing is a "# MISSING name why" line and a non-zero exit status, but
# for a row marked unserved-ok whose packages the archive lists and the
# mirror does not serve: "# UNSERVED name why", which make check reports.
#
# With UE_KERNELS_LOCK=FILE, the rows are taken from that file (an earlier
# run's build/check/kernels.lock) instead: the same packages again.
#
# Usage: resolve.sh [name...]   (default: every Debian row)
. "$(dirname "$0")/../lib/prelude.sh"

ue_log_prefix='resolve: '
. "$here/../lib/apt-lib.sh"
. "$here/../lib/matrix-lib.sh"

wanted() { [ $# -eq 1 ] || case " ${*:2} " in *" $1 "*) ;; *) return 1 ;; esac; }

if [ -n "${UE_KERNELS_LOCK:-}" ]; then
	rc=0
	for n in $(ue_matrix made=debian -- name); do
		wanted "$n" "$@" || continue
		awk -v n="$n" '$1 == n && NF == 7' "$UE_KERNELS_LOCK" | grep . ||
			{ echo "# MISSING $n not in $UE_KERNELS_LOCK"; rc=1; }
	done
	exit $rc
fi

# served RELEASE PKG...: every file of the packages (at the candidate
# version) answers on the mirror. A listed version may be gone from a
# mirror or a caching proxy in front of it (seen: 404 for a whole series).
served() {
	local r=$1 uri; shift
	for uri in $(ue_apt "$r" download --print-uris "$@" 2>/dev/null | awk '{ print $1 }' | tr -d "'"); do
		curl -sfI --max-time 30 "$uri" >/dev/null || return 1
	done
}

# versions RELEASE SUITES PKG...: "version pkg" for each package available
# in one of the suites (comma-separated), newest first.
versions() {
	local r=$1 suites=$2; shift 2
	ue_apt_cache "$r" madison "$@" 2>/dev/null |
		awk -F' *[|] *' -v suites=",$suites," '{
			split($3, w, " "); s = w[2]; sub("/.*", "", s); sub("^ *", "", $1)
			if (index(suites, "," s ",")) print $2, $1 }' |
		sort -u | sort -k1,1Vr
}

resolve_row() { # name release suites series flavour level [flags]
	local n=$1 r=$2 suites=$3 series=$4 fl=$5 level=$6 flags=${7:-}
	local sre abire cands img hdr ver abi tried=0 v ar
	ar=$(ue_apt_release "$r" "$fl")
	case $series in
	any) sre='[0-9]+\.[0-9]+' ;;
	*) sre=${series//./\\.} ;;
	esac
	abire="$sre\.[0-9]+(-[0-9][0-9a-z.]*)?(\+[a-z0-9.]+)?"
	mapfile -t cands < <(ue_apt_cache "$ar" pkgnames linux-image- |
		grep -E "^linux-image-$abire-$fl(-unsigned)?\$")
	[ ${#cands[@]} -gt 0 ] || { echo "# MISSING $n no linux-image-$series*-$fl in $r"; return 1; }
	# Newest first; an ABI with both images is taken as -unsigned.
	while read -r ver img; do
		abi=${img#linux-image-}; abi=${abi%-unsigned}; abi=${abi%-"$fl"}
		case " ${seen:-} " in *" $abi "*) continue ;; esac
		seen="${seen:-} $abi"
		[[ $img != *-unsigned ]] && printf '%s\n' "${cands[@]}" | grep -x "$img-unsigned" >/dev/null &&
			img=$img-unsigned
		hdr=linux-headers-$abi-$fl
		v=$(versions "$ar" "$suites" "$hdr" | awk -v v="$ver" '$1 == v { print $1; exit }')
		if [ -z "$v" ]; then
			echo "# NOTE $n: $img $ver has no $hdr of that version in $suites"
			continue
		fi
		tried=$((tried + 1))
		if served "$ar" "$img=$ver" "$hdr=$ver"; then
			echo "$n $r ${suites} $img $hdr $ver $level"
			return 0
		fi
		echo "# NOTE $n: $img $ver is listed in $suites but the mirror does not serve it"
		[ $tried -lt 6 ] || break
	done < <(versions "$ar" "$suites" "${cands[@]}")
	if [ $tried -gt 0 ] && [[ $flags == *unserved-ok* ]]; then
		echo "# UNSERVED $n the mirror serves none of the newest $tried versions of its packages (kernels.list: unserved-ok)"
		return 0
	fi
	echo "# MISSING $n no served linux-image-$series*-$fl with headers in $suites"
	return 1
}

# The rows of one apt state (a release and architecture) one after another,
# the states at once (each with its own lists): their apt-cache calls and
# the mirror's answers are most of the time (75 s for the whole matrix one
# row after another). Each row's lines are printed in kernels.list's order.
matrix=$(ue_matrix made=debian -- name release suites series flavour level flags) || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
declare -A group
rows=()
while read -r n r suites series fl level flags; do
	[ -n "$n" ] || continue
	wanted "$n" "$@" || continue
	ar=$(ue_apt_release "$r" "$fl")
	group[$ar]+="$n $r $suites $series $fl $level $flags"$'\n'
	rows+=("$n")
done <<<"$matrix"
for ar in "${!group[@]}"; do
	(
		ok=1
		ue_apt_setup "$ar" || ok=0
		while read -r n r suites series fl level flags; do
			[ -n "$n" ] || continue
			[ "$flags" != - ] || flags=
			if [ $ok = 0 ]; then
				echo "# MISSING $n no apt lists for $ar" >"$tmp/$n"
				echo 1 >"$tmp/$n.rc"
				continue
			fi
			seen=
			resolve_row "$n" "$r" "$suites" "$series" "$fl" "$level" "$flags" >"$tmp/$n"
			echo $? >"$tmp/$n.rc"
		done <<<"${group[$ar]}"
	) &
done
wait
rc=0
for n in "${rows[@]}"; do
	cat "$tmp/$n" 2>/dev/null
	[ "$(cat "$tmp/$n.rc" 2>/dev/null)" = 0 ] || rc=1
done
exit $rc
