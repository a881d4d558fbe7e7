# make check's build stage (sourced by rig/check/job.sh, bash): our debug
# kernels (tests/kernel/build.sh), the module's three variants for every row,
# the static test programs for each architecture's VMs, the upstream
# selftests (tests/selftests/build.sh) and the UAPI header on its own.
# Their products (graph.sh): a link to our kernel, the row's user_events.ko,
# the programs' directories, the header's object.

# build_module KERNEL OUTDIR [make vars...]: a Debian kernel's module is
# built in its release's chroot against /usr/src/linux-headers-<release>,
# installed there by apt-get as on a user's machine (with the compiler the
# headers depend on), through the chroot's ccache (the rig's own builds,
# never DKMS's: ue_chroot_ccache, chroot-lib.sh). Ours likewise in the
# chroot of this machine's release where it has their compiler (own_cc:
# in_chroot), else on this machine.
# (ue_chroot_ccache set, not exported: the programs a job runs,
# user-events-run among them, never see it)
ue_chroot_ccache=$UE_CACHE/ccache
in_chroot=
build_module() {
	local k=$1 out=$2 r=${krel[$1]:-}; shift 2
	if [ -z "$r" ]; then
		if [ -n "$in_chroot" ]; then
			ue_chroot_build_module "$own_release" "$root" "$out" "$(cat "${kroot[$k]}/kdir")" "$@"
		else
			ue_build_module "$root" "$out" "$(cat "${kroot[$k]}/kdir")" "$@"
		fi
		return
	fi
	# (another architecture's: cross-built against its headers in the
	# cache, with the release's cross compiler, ue_chroot_cross)
	# A kernel without CONFIG_KALLSYMS_ALL: its System.map, from its -dbg
	# package (fetch-kernels.sh), as its user would name it.
	local kr=${kroot[$k]} map
	map=$kr/dbg/System.map-$(cat "$kr/release")
	[ -s "$map" ] && set -- UE_SYSTEM_MAP="$map" "$@"
	if [ "${karch[$k]:-amd64}" != amd64 ]; then
		# (bookworm's headers need CROSS_COMPILE given: cross_headers)
		[ -s "$kr/cross-make" ] && set -- "$(cat "$kr/cross-make")" "$@"
		ue_chroot_build_module "$r" "$root" "$out" "$(cat "$kr/kdir")" "$@"
		return
	fi
	ue_chroot_build_module "$r" "$root" "$out" "$(cat "$kr/release")" "$@"
}

# own_cc KDIR: whether the chroot of this machine's release (own_release,
# check.sh) has the compiler that built our kernel of KDIR, as its
# CONFIG_CC_VERSION_TEXT names it. Then its modules are built there, through
# the release's ccache, as the Debian rows' are: on this machine, without a
# cache, the four builds of a debug kernel took 27 to 31 CPU s of a warm
# run's first minute, and its VM waited for them. Else on this machine.
own_cc() {
	local want have
	[ -n "$own_release" ] || return 1
	want=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"$/\1/p' "$1/.config")
	have=$(ue_chroot_run "$own_release" "${want%% *}" --version 2>/dev/null | head -1)
	[ -n "$want" ] && [ "$have" = "$want" ]
}

# build_kunit KDIR KERNEL: the KUnit module of build/check/KERNEL/kunit/,
# where own_cc says, as the module's builds.
build_kunit() {
	if [ -n "$in_chroot" ]; then
		ue_chroot_ccache_env "$own_release"
		ue_chroot_run "$own_release" --bind "$build/$2:/ue-build" "${ue_ccache_env[@]}" \
			make -C "$1" M=/ue-build/kunit/tests/kunit modules
	else
		make -C "$1" M="$build/$2/kunit/tests/kunit" modules
	fi
}

# build_kernel KERNEL: its three module variants (and, on a debug kernel, the
# KUnit module), recorded; non-zero if one did not build. (The race build is
# also the module suite's copy under another name, which must be refused
# while user_events is loaded: idle without race_site, it is the shipped
# code; a fourth build for that alone cost a quarter of the module builds.)
build_kernel() {
	local k=$1 pids=() p built=1 ko
	mkdir -p "$build/$k"
	say "$k: building module"
	in_chroot=
	[ -n "${krel[$k]:-}" ] || ! own_cc "$(cat "${kroot[$k]}/kdir")" || in_chroot=1
	# The module first; then its skew and race builds at once (each is
	# mostly kbuild's serial steps), which take its API probes' header
	# rather than compile the probes twice more (ue_seed_probes).
	build_module "$k" "$build/$k/mod" || built=0
	local ue_probes_from=$build/$k/mod
	build_module "$k" "$build/$k/skew" UE_MODNAME=user_events_skew UE_TEST_SKEW=1 & pids+=($!)
	build_module "$k" "$build/$k/race" UE_MODNAME=user_events_race UE_TEST_RACE=1 & pids+=($!)
	for p in "${pids[@]}"; do wait "$p" || built=0; done
	if [ $built = 1 ]; then
		record "$k build pass module"
	else
		record "$k build fail module see $build/$k/mod.log, skew.log or race.log"
		return 1
	fi
	if [ "${kmade[$k]:-}" = ours ]; then
		# The KUnit module needs the tree's layout (it includes src/).
		ko=$build/$k/kunit
		rm -rf "$ko"; mkdir -p "$ko/tests"
		cp -a "$root/src" "$root/include" "$ko/"
		cp -a "$root/tests/kunit" "$ko/tests/"
		if build_kunit "$(cat "${kroot[$k]}/kdir")" "$k" >"$ko.log" 2>&1; then
			record "$k build pass kunit_module"
		else
			record "$k build fail kunit_module see $ko.log"
			return 1
		fi
	fi
}

# kernel.KERNEL: one of ours, built (once; cached) from the linux-source
# its job fetched, of its row's flavour (kernels.list); the product, a link
# to its directory (check.sh takes its lock line from there).
job_kernel() {
	local k=$1 d src=linux-source
	say "building the $k test kernel (cached after the first time)"
	[ "${kseries[$k]}" != any ] || src=linux-source-newest
	if d=$(ue_job "kernel $k" "$root/tests/kernel/build.sh" "${kflavour[$k]}" \
		"$(readlink "$build/source/$src")"); then
		record "$k fetch pass kernel"
		link_product "$d"
	else
		record "$k fetch fail kernel could not be built"
		return 1
	fi
}

# modules.ROW: an arm64 row's cross compiler and kbuild first, in its
# release's chroot (ue_chroot_cross: after the release's headers, whose
# purge of old kernels' packages must not take them).
job_modules() {
	local k=$1 r=${krel[$1]:-}
	if [ -n "$r" ] && [ "${karch[$k]}" != amd64 ] &&
	   ! ue_job "cross $k" ue_chroot_cross "$r" "${kroot[$k]}" >>"$build/cross-$k.log" 2>&1; then
		record "$k build fail cross $(tail -1 "$build/cross-$k.log")"
		return 1
	fi
	ue_job "modules $k" build_kernel "$k"
}

ucflags=(-static -O2 -Wall -Wextra -Werror -I"$root/include/uapi" -I"$root/tests/userspace")
# build_userspace CC OUT: the test programs, static, for the VMs of CC's
# architecture; non-zero if one did not build.
# (All at once: every VM waits for them, and one after another they took
# 37 s of the first minute, 6 CPU s, beside that minute's other jobs.)
build_userspace() {
	local cc=$1 out=$2 src name rc=0
	local -A pid
	mkdir -p "$out"
	for src in "$root"/tests/userspace/*.c "$root"/samples/*.c; do
		name=$(basename "$src" .c)
		"$cc" "${ucflags[@]}" -o "$out/$name" "$src" >"$out.cc-$name.log" 2>&1 &
		pid[$name]=$!
	done
	for name in "${!pid[@]}"; do
		wait "${pid[$name]}" ||
			{ rc=1; echo "check: $name failed to build with $cc:"; cat "$out.cc-$name.log"; }
	done
	return $rc
}
# userspace.ARCH: build/check/userspace (amd64) or userspace-ARCH, every
# program built.
job_userspace() {
	local a=$1 cc=gcc
	[ "$a" = amd64 ] || cc=$(ue_cross_prefix "$a")gcc
	say "building userspace tests ($a)"
	if ue_job "userspace $a" build_userspace "$cc" "$product"; then
		record "host build pass userspace.$a"
	else
		record "host build fail userspace.$a see the run's output"
		return 1
	fi
}
# The upstream selftests, built from linux-source (never committed); a
# program that does not build fails its case, and its suite in the VMs.
job_selftests() {
	local a=$1 src
	src=$(srctree)
	if [ "$a" = amd64 ]; then
		say "building upstream user_events selftests from $src"
		ue_job "selftests amd64" "$root/tests/selftests/build.sh" "$src" "$product" >>"$results"
	else
		CC=$(ue_cross_prefix "$a")gcc ue_job "selftests $a" "$root/tests/selftests/build.sh" "$src" \
			"$product" "$a" >>"$results"
	fi
}
# The UAPI header alone, in strict C99 and as C++ (the amd64 rows' VMs
# wait for it).
job_uapi() {
	echo '#include <linux/user_events.h>' >"$build/uapi.c"
	if g++ -x c++ -Wall -Wextra -Werror -I"$root/include/uapi" -fsyntax-only \
		"$build/uapi.c" >"$build/cc-uapi.log" 2>&1 &&
	   gcc -std=c99 -pedantic -Wall -Wextra -Werror -I"$root/include/uapi" -c -o "$product" \
		"$build/uapi.c" >>"$build/cc-uapi.log" 2>&1; then
		record "host build pass uapi_header"
	else
		record "host build fail uapi_header does not compile standalone: $(head -c 300 "$build/cc-uapi.log" | tr '\n' ' ')"
		return 1
	fi
}
