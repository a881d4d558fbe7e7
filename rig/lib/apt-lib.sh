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

# The Debian mirror URIs: UE_MIRROR and UE_SECURITY_MIRROR where they are
# set (user-events-run's --mirror and --security-mirror; a host whose apt
# configuration names no Debian mirror, such as an Ubuntu CI runner), else
# those of the machine's apt sources, as apt reads them (APT_CONFIG
# included): the URI of the first "main" source of a Debian release,
# bookworm first, and of its -security suite. apt-get indextargets
# --no-release-info reads the sources alone, so a machine whose lists were
# never downloaded (a new container) has its mirror too.
ue_debian_suites="bookworm trixie bullseye forky sid"
ue_sources_uri() { # SUFFIX ("" or "-security")
	apt-get indextargets --no-release-info \
		--format '$(SITE) $(RELEASE) $(COMPONENT)' 'Created-By: Packages' 2>/dev/null |
		awk -v suites="$ue_debian_suites" -v sfx="$1" '
			BEGIN { n = split(suites, s, " "); for (i = 1; i <= n; i++) rank[s[i] sfx] = i }
			$3 == "main" && ($2 in rank) && (best == "" || rank[$2] < r) { best = $1; r = rank[$2] }
			END { if (best != "") print best }'
}
machine_mirror() {
	if [ -n "${UE_MIRROR:-}" ]; then echo "${UE_MIRROR%/}"; return 0; fi
	ue_sources_uri ""
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
	local mirror suites f kr
	mirror=$(machine_mirror)
	[ -n "$mirror" ] || die "no Debian mirror in this machine's apt configuration: set UE_MIRROR=URI"
	kr=$(ue_keyring) || die "no Debian archive keyring"

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
			"$uri" "$s" "$kr" \
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

# The security mirror (machine_mirror).
machine_security_mirror() {
	if [ -n "${UE_SECURITY_MIRROR:-}" ]; then echo "${UE_SECURITY_MIRROR%/}"; return 0; fi
	ue_sources_uri -security
}

# ue_security_beside MIRROR RELEASE: the security archive that Debian's
# layout puts beside MIRROR (.../debian-security beside .../debian), printed
# where it serves RELEASE-security (its Release file fetched with apt's own
# methods: http, https, file). For a mirror given without its security
# mirror, on a host whose apt configuration names none.
ue_security_beside() {
	local sec=${1%/}-security f rc
	f=$(mktemp) || return 1
	/usr/lib/apt/apt-helper -o APT::Sandbox::User=root -o Acquire::Retries=0 \
		download-file "$sec/dists/$2-security/Release" "$f" >/dev/null 2>&1 && [ -s "$f" ]
	rc=$?
	rm -f "$f"
	[ $rc = 0 ] && echo "$sec"
}

# ue_release_suites RELEASE: "URI SUITE" lines.
ue_release_suites() {
	local mirror sec
	mirror=$(machine_mirror)
	sec=$(machine_security_mirror)
	[ -n "$mirror" ] || { log "no Debian mirror in this machine's apt configuration: set UE_MIRROR=URI"; return 1; }
	case $1 in
	sid) echo "$mirror sid" ;;
	# (not a release: the QEMU of the test VMs, rig/fetch/fetch-qemu.sh)
	qemu) echo "$mirror bookworm-backports" ;;
	*)
		[ -n "$sec" ] || { log "no Debian security mirror in this machine's apt configuration: set UE_SECURITY_MIRROR=URI"; return 1; }
		echo "$mirror $1"
		echo "$sec $1-security"
		[ "$1" = trixie ] && echo "$mirror $1-backports"
		;;
	esac
	return 0
}

# (Check-Valid-Until=false: the rig tests what the machine's mirror
# serves, and a mirror that is a snapshot serves sid's Release past its
# Valid-Until, a week; the signatures are still checked.
# Dir::Cache::pkgcache: apt's binary cache of the lists, kept in the state.
# Docker's Debian images turn it off (/etc/apt/apt.conf.d/docker-clean), and
# then every apt-cache call parses every list again: about 0.7 CPU s a call
# for sid, and resolve makes dozens; with the cache, 0.01 s.
# ue_apt_setup writes it while it holds the state's lock, so the calls after
# it only read it.)
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
		-o Dir::Cache::pkgcache=pkgcache.bin \
		-o Dir::Cache::srcpkgcache= \
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

# ue_apt_setup RELEASE: the state, its lists fresh. One process at a time
# a state: apt runs here without its own locks (Debug::NoLocking), and make
# check's graph begins jobs that set up the same state at once (resolve and
# the arm64 tools on an empty cache), whose apt-get updates would write the
# same lists.
ue_apt_setup() {
	local d=$UE_CACHE/apt-${1/\//-} fd rc
	mkdir -p "$d" && exec {fd}>"$d/.setup.lock" || return 1
	flock "$fd"
	ue_apt_setup_locked "$1"
	rc=$?
	exec {fd}>&-
	return $rc
}
ue_apt_setup_locked() {
	local r=$1 d=$UE_CACHE/apt-${1/\//-} rel=${1%/*} suites uri s stamp age kr
	suites=$(ue_release_suites "$rel") || return 1
	kr=$(ue_keyring) || return 1
	mkdir -p "$d/sources.list.d" "$d/state/lists/partial" "$d/cache/archives/partial"
	while read -r uri s; do
		printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: %s\n\n' \
			"$uri" "$s" "$kr"
	done <<<"$suites" >"$d/sources.list.d/$rel.sources.new"
	stamp=$d/state/.updated
	age=$(( $(date +%s) - $(stat -c %Y "$stamp" 2>/dev/null || echo 0) ))
	if cmp -s "$d/sources.list.d/$rel.sources.new" "$d/sources.list.d/$rel.sources" &&
	   [ "$age" -lt "${UE_APT_MAX_AGE:-21600}" ]; then
		rm -f "$d/sources.list.d/$rel.sources.new"
	else
		mv "$d/sources.list.d/$rel.sources.new" "$d/sources.list.d/$rel.sources"
		log "updating the apt lists of $r ($(echo $suites | awk '{ for (i = 2; i <= NF; i += 2) printf "%s ", $i }'))"
		ue_apt "$r" update >&2 || { log "apt-get update for $r failed"; return 1; }
		touch "$stamp"
	fi
	# (the binary cache, up to date with the lists: apt-cache gencaches
	# writes it when it is missing or older than a list, else only reads)
	ue_apt_cache "$r" gencaches >/dev/null 2>&1 ||
		{ log "apt-cache gencaches for $r failed"; return 1; }
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

# --- the Debian archive keyring -------------------------------------------------
# ue_keyring: the keyring that checks the Debian archive's signatures, on
# stdout: the host's (UE_HOST_KEYRING, default
# /usr/share/keyrings/debian-archive-keyring.gpg, debian-archive-keyring's)
# or, on a host without it (an Ubuntu CI runner, a container of another
# distribution), the one in $UE_CACHE/keyring/, fetched once
# (ue_keyring_fetch). For the private apt states' Signed-By, the chroots'
# apt and debootstrap --keyring.
ue_keyring() {
	local host=${UE_HOST_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}
	local k=$UE_CACHE/keyring/debian-archive-keyring.gpg
	if [ -f "$host" ]; then echo "$host"; return 0; fi
	[ -s "$k" ] || ue_keyring_fetch || return 1
	echo "$k"
}

# ue_keyring_fetch: Debian's debian-archive-keyring package of
# $ue_keyring_suite, from the mirror (machine_mirror), unpacked into
# $UE_CACHE/keyring/ (its keyring and its version).
#
# The trust: the fingerprints of rig/fetch/debian-archive-keys, the keys
# that sign Debian's suites, as Debian's own keyring package has them; the
# repository pins no host and no file's hash. apt fetches the package
# twice, in a private state of its own: first with "Trusted: yes" (nothing
# checked but the hashes of the unsigned Release), for the keys it
# carries; then, the lists downloaded anew, with Signed-By those keys
# restricted to the pinned fingerprints, so that apt accepts the suite's
# InRelease only with a good signature of a pinned key (of the key or of a
# subkey), the Packages list only with InRelease's hash and the package
# only with the list's. It is the second package that is unpacked: keys
# that a man in the middle put in the first are of no use to him unless
# they have a pinned fingerprint. When Debian signs its suites with keys
# that are not pinned (a new release's), the fetch fails, saying so, until
# the file names them.
ue_keyring_suite=trixie
ue_keyring_fetch() {
	local mirror d k=$UE_CACHE/keyring fprs deb rc=1
	mirror=$(machine_mirror)
	[ -n "$mirror" ] || { log "no Debian mirror to fetch the archive keyring from: set UE_MIRROR=URI"; return 1; }
	fprs=$(awk '!/^#/ && NF { printf " %s", $1 }' "$(dirname "${BASH_SOURCE[0]}")/../fetch/debian-archive-keys")
	[ -n "$fprs" ] || { log "no pinned fingerprints in rig/fetch/debian-archive-keys"; return 1; }
	log "fetching debian-archive-keyring ($ue_keyring_suite) from $mirror: this host has no Debian archive keyring"
	mkdir -p "$UE_CACHE"
	d=$(ue_cache_scratch keyring-fetch) || return 1
	mkdir -p "$d/src" "$d/none" "$d/state/lists/partial" "$d/cache/archives/partial" \
		"$d/1" "$d/2" "$d/x"
	kapt() {
		apt-get -q -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$d/src" \
			-o Dir::Etc::Trusted=/dev/null -o Dir::Etc::TrustedParts="$d/none" \
			-o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null \
			-o Dir::State="$d/state" -o Dir::Cache="$d/cache" -o Acquire::Languages=none \
			-o APT::Architecture=amd64 -o APT::Architectures::=amd64 \
			-o Debug::NoLocking=1 -o APT::Sandbox::User=root "$@"
	}
	ksrc() { # Trusted-or-Signed-By line
		printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\n%s\n' \
			"$mirror" "$ue_keyring_suite" "$1" >"$d/src/keyring.sources"
	}
	if ksrc 'Trusted: yes' && kapt update >"$d/log" 2>&1 &&
	   (cd "$d/1" && kapt download debian-archive-keyring) >>"$d/log" 2>&1 &&
	   deb=$(ls "$d"/1/debian-archive-keyring_*.deb) && dpkg-deb -x "$deb" "$d/x" &&
	   [ -s "$d/x/usr/share/keyrings/debian-archive-keyring.gpg" ]; then
		rm -rf "$d/state/lists"
		mkdir -p "$d/state/lists/partial"
		ksrc "Signed-By: $d/x/usr/share/keyrings/debian-archive-keyring.gpg$fprs"
		if kapt update >"$d/log" 2>&1 &&
		   (cd "$d/2" && kapt download debian-archive-keyring) >>"$d/log" 2>&1 &&
		   deb=$(ls "$d"/2/debian-archive-keyring_*.deb) &&
		   rm -rf "$d/x" && mkdir "$d/x" && dpkg-deb -x "$deb" "$d/x" &&
		   [ -s "$d/x/usr/share/keyrings/debian-archive-keyring.gpg" ]; then
			rm -rf "$k.new"
			mkdir -p "$k.new"
			cp "$d/x/usr/share/keyrings/debian-archive-keyring.gpg" "$k.new/" &&
			dpkg-deb -f "$deb" Version >"$k.new/version" &&
			rm -rf "$k" && mv "$k.new" "$k" && rc=0
			log "debian-archive-keyring $(cat "$k/version" 2>/dev/null) into $k"
		else
			log "no debian-archive-keyring of $ue_keyring_suite on $mirror signed by a key of rig/fetch/debian-archive-keys: $(grep -m1 -E '^(W|E): ' "$d/log" | cut -c1-300)"
		fi
	else
		log "could not fetch debian-archive-keyring from $mirror: $(grep -m1 -E '^E: ' "$d/log" || tail -1 "$d/log")"
	fi
	rm -rf "$d"
	return $rc
}
