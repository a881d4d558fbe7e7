#!/bin/bash
# Build the upstream user_events selftests (tools/testing/selftests/user_events
# of a kernel tree, Debian's linux-source-6.12 here) as static programs for the
# test VMs, against OUR UAPI header. Their code is never committed: it is
# compiled at test time from the tree.
# Prints one line per program: "host selftests pass|fail build.<name> [detail]",
# and the compiler's warnings (upstream code is not held to -Werror).
# Usage: build.sh LINUX_SOURCE_TREE OUTDIR [ARCH]
#   (with CC, a cross compiler, for the VMs of ARCH: arm64; the cases are
#   then named build.ARCH.<name>)
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
tree=$1
out=$2
tag=${3:+$3.}
cc=${CC:-gcc}
src=$tree/tools/testing/selftests/user_events
# TEST_GEN_PROGS of the upstream Makefile.
progs="ftrace_test dyn_test perf_test abi_test"

# Upstream's flags (-Wall, -D_GNU_SOURCE= from lib.mk, -lrt -lpthread -lm),
# static, with our include/uapi first so that <linux/user_events.h> is ours.
cflags=(-static -O2 -Wall -D_GNU_SOURCE= -I"$root/include/uapi"
	-I"$tree/tools/testing/selftests")

rm -rf "$out"
mkdir -p "$out"
for p in $progs; do
	log=$out/$p.log
	if [ ! -f "$src/$p.c" ]; then
		echo "host selftests fail build.$tag$p no $src/$p.c"
		continue
	fi
	if "$cc" "${cflags[@]}" -o "$out/$p" "$src/$p.c" -lrt -lpthread -lm >"$log" 2>&1; then
		echo "host selftests pass build.$tag$p"
	else
		echo "host selftests fail build.$tag$p does not compile: $(grep -m1 'error' "$log")"
	fi
	# Show what the compiler said (warnings, errors) on the console.
	if [ -s "$log" ]; then
		echo "selftests: $p: $(grep -c 'warning:' "$log") warning(s):" >&2
		sed 's/^/    /' "$log" >&2
	fi
	# The <linux/user_events.h> it includes must be ours, not a system copy.
	hdr=$("$cc" -M "${cflags[@]}" "$src/$p.c" 2>/dev/null | tr ' ' '\n' |
		grep '/linux/user_events\.h$')
	if [ "$hdr" = "$root/include/uapi/linux/user_events.h" ]; then
		echo "host selftests pass header.$tag$p"
	else
		echo "host selftests fail header.$tag$p uses ${hdr:-no} linux/user_events.h"
	fi
done
