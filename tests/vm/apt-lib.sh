# Private apt state for the test rig, sourced by the fetch scripts.
#
# Its sources are the machine's own apt sources plus, for kernels from
# another suite (bullseye), that suite on the same Debian mirror URI the
# machine already uses; its lists and downloads live under $UE_CACHE/apt.
# No mirror host is named here. Callers define log() and die().

apt_root=$UE_CACHE/apt
ue_kernel_list=$(dirname "${BASH_SOURCE[0]}")/kernels.list

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
	# Extra suites the kernel list needs, on the same mirror.
	suites=$(awk '!/^#/ && NF >= 4 && $2 != "bookworm" { print $2 }' "$ue_kernel_list" | sort -u)
	for s in $suites; do
		cat >"$apt_root/sources.list.d/extra-$s.sources" <<EOF
Types: deb
URIs: $mirror
Suites: $s
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
	done
	log "updating private apt lists (mirror from machine config, extra suites: ${suites:-none})"
	private_apt update >&2 || die "apt-get update of the private apt state failed"
	apt_ready=1
}

