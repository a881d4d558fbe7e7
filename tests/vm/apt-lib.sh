# Private apt state for the test rig, sourced by the fetch scripts.
#
# Its sources are the machine's own apt sources plus bullseye and
# bullseye-security on the mirror URIs the machine already uses (the install
# test's Debian 11 headers); its lists and downloads live under
# $UE_CACHE/apt.
# No mirror host is named here. Callers define log() and die().

apt_root=$UE_CACHE/apt

# Turn absolute symlinks inside a root that packages were unpacked into
# (dpkg-deb -x) into links within it.
relocate_links() {
	local root=$1 l t
	while IFS= read -r -d '' l; do
		t=$(readlink "$l")
		case $t in /*) ln -sfn "$root$t" "$l" ;; esac
	done < <(find "$root" -type l -print0)
}

# The Debian mirror URI serving bookworm/main in the machine's apt config.
machine_mirror() {
	apt-cache policy 2>/dev/null |
		awk '$3 == "bookworm/main" && $4 == "amd64" { print $2; exit }'
}

apt_opts() {
	printf '%s\n' \
		-o Dir::Etc::SourceList=/dev/null \
		-o Dir::Etc::SourceParts="$apt_root/sources.list.d" \
		-o Dir::State="$apt_root/state" \
		-o Dir::Cache="$apt_root/cache" \
		-o Debug::NoLocking=1 \
		-o APT::Sandbox::User=root
}

private_apt() {
	local opts
	mapfile -t opts < <(apt_opts)
	apt-get -q "${opts[@]}" "$@"
}

private_apt_cache() {
	local opts
	mapfile -t opts < <(apt_opts)
	apt-cache "${opts[@]}" "$@"
}

apt_ready=
setup_private_apt() {
	[ -n "$apt_ready" ] && return 0
	local mirror suites f
	mirror=$(machine_mirror)
	if [ -z "$mirror" ]; then
		log "no bookworm/main source in apt-cache policy; running apt-get update"
		apt-get update -qq >&2 || true
		mirror=$(machine_mirror)
	fi
	[ -n "$mirror" ] || die "cannot find the Debian mirror URI in this machine's apt configuration"

	rm -rf "$apt_root/sources.list.d"
	mkdir -p "$apt_root/sources.list.d" "$apt_root/state/lists/partial" \
		"$apt_root/cache/archives/partial"
	# The machine's own sources, as they are.
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		 /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		cp "$f" "$apt_root/sources.list.d/machine-$(basename "$f" | tr / _)"
	done
	[ -f /etc/apt/sources.list ] &&
		mv "$apt_root/sources.list.d/machine-sources.list" \
		   "$apt_root/sources.list.d/machine-main.list"
	# Debian 11, whose kernels' headers the install test puts on this
	# Debian 12 machine (with bullseye's compiler), on the same mirrors.
	suites="bullseye bullseye-security"
	ue_release_suites bullseye | while read -r uri s; do
		printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: %s\n' \
			"$uri" "$s" /usr/share/keyrings/debian-archive-keyring.gpg \
			>"$apt_root/sources.list.d/extra-$s.sources"
	done
	log "updating private apt lists (mirror from machine config, extra suites: ${suites:-none})"
	private_apt update >&2 || die "apt-get update of the private apt state failed"
	apt_ready=1
}


# --- one apt state per Debian release (the kernel matrix) ---------------------
# $UE_CACHE/apt-<release>/ (apt-<release>-arm64/ for RELEASE "<release>/arm64",
# the arm64 rows: ue_kernel_arch) holds the lists of the release's suites that carry
# kernels: the release itself, its -security suite (on the security mirror
# the machine uses for bookworm-security) and, for trixie, its -backports;
# unstable is sid alone. Lists are refreshed once per UE_APT_MAX_AGE seconds
# (default 6 hours), so that a run resolves what the archive has today.

# The URI serving bookworm-security/main in the machine's apt config.
machine_security_mirror() {
	apt-cache policy 2>/dev/null |
		awk '$3 == "bookworm-security/main" && $4 == "amd64" { print $2; exit }'
}

# ue_release_suites RELEASE: "URI SUITE" lines.
ue_release_suites() {
	local mirror sec
	mirror=$(machine_mirror)
	sec=$(machine_security_mirror)
	[ -n "$mirror" ] || { log "cannot find the Debian mirror URI in this machine's apt configuration"; return 1; }
	case $1 in
	sid) echo "$mirror sid" ;;
	# (not a release: the QEMU of the test VMs, tests/vm/fetch-qemu.sh)
	qemu) echo "$mirror bookworm-backports" ;;
	*)
		[ -n "$sec" ] || { log "cannot find the Debian security mirror URI in this machine's apt configuration"; return 1; }
		echo "$mirror $1"
		echo "$sec $1-security"
		[ "$1" = trixie ] && echo "$mirror $1-backports"
		;;
	esac
	return 0
}

# (Check-Valid-Until=false: the rig tests what the machine's mirror
# serves, and a mirror that is a snapshot serves sid's Release past its
# Valid-Until, a week; the signatures are still checked.)
ue_apt_opts() { # RELEASE
	local d=$UE_CACHE/apt-${1/\//-}
	# (RELEASE/ARCH: that architecture's packages only, arm64's for the
	# arm64 rows of the matrix, in a state of its own: apt-trixie-arm64)
	[[ $1 != */* ]] || printf '%s\n' -o APT::Architecture="${1#*/}" -o APT::Architectures::="${1#*/}"
	printf '%s\n' \
		-o Dir::Etc::SourceList=/dev/null \
		-o Dir::Etc::SourceParts="$d/sources.list.d" \
		-o Dir::Etc::Preferences=/dev/null \
		-o Dir::Etc::PreferencesParts=/dev/null \
		-o Dir::State="$d/state" \
		-o Dir::Cache="$d/cache" \
		-o APT::Default-Release= \
		-o Acquire::Check-Valid-Until=false \
		-o Debug::NoLocking=1 \
		-o APT::Sandbox::User=root
}

ue_apt() { # RELEASE apt-get-args...
	local opts r=$1; shift
	mapfile -t opts < <(ue_apt_opts "$r")
	apt-get -q "${opts[@]}" "$@"
}

ue_apt_cache() { # RELEASE apt-cache-args...
	local opts r=$1; shift
	mapfile -t opts < <(ue_apt_opts "$r")
	apt-cache "${opts[@]}" "$@"
}

# ue_apt_setup RELEASE: the state, its lists fresh.
ue_apt_setup() {
	local r=$1 d=$UE_CACHE/apt-${1/\//-} rel=${1%/*} suites uri s stamp age
	[ -n "$(machine_mirror)" ] || apt-get update -qq >&2 || true
	suites=$(ue_release_suites "$rel") || return 1
	mkdir -p "$d/sources.list.d" "$d/state/lists/partial" "$d/cache/archives/partial"
	while read -r uri s; do
		printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: %s\n\n' \
			"$uri" "$s" /usr/share/keyrings/debian-archive-keyring.gpg
	done <<<"$suites" >"$d/sources.list.d/$rel.sources.new"
	stamp=$d/state/.updated
	age=$(( $(date +%s) - $(stat -c %Y "$stamp" 2>/dev/null || echo 0) ))
	if cmp -s "$d/sources.list.d/$rel.sources.new" "$d/sources.list.d/$rel.sources" &&
	   [ "$age" -lt "${UE_APT_MAX_AGE:-21600}" ]; then
		rm -f "$d/sources.list.d/$rel.sources.new"
		return 0
	fi
	mv "$d/sources.list.d/$rel.sources.new" "$d/sources.list.d/$rel.sources"
	log "updating the apt lists of $r ($(echo $suites | awk '{ for (i = 2; i <= NF; i += 2) printf "%s ", $i }'))"
	ue_apt "$r" update >&2 || { log "apt-get update for $r failed"; return 1; }
	touch "$stamp"
}

# ue_kernel_arch FLAVOUR-OR-PACKAGE: the Debian architecture of a kernel
# flavour of kernels.list (arm64, cloud-arm64, rt-arm64: arm64) or of one of
# its packages (linux-headers-<abi>-arm64); amd64 otherwise.
ue_kernel_arch() {
	case $1 in
	arm64|*-arm64|*-arm64-unsigned|*-arm64-16k|*-arm64-16k-unsigned) echo arm64 ;;
	*) echo amd64 ;;
	esac
}

# ue_apt_release RELEASE FLAVOUR-OR-PACKAGE: the apt state's name for a
# kernel: RELEASE for amd64, RELEASE/ARCH for another architecture.
ue_apt_release() {
	local a
	a=$(ue_kernel_arch "$2")
	[ "$a" = amd64 ] && echo "$1" || echo "$1/$a"
}
