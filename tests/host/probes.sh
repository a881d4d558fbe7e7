#!/bin/bash
# Host checks of the kernel API probes (src/compat/probe/*.c, run by the
# build through src/compat/probes.mk and scripts/probes.sh): for each
# kernel's headers, each probe's answer must be that of the grep over the
# headers' text that the build used before them (kept here as the
# reference: its patterns are below), and each probe must give both of its
# answers, on two small made-up include trees whatever kernels there are
# (each with the forms of 7.3, or of 5.10, 6.1 and 6.12, of what the
# probes look at), and on the real kernels where they differ.
# On a real kernel the probes run as the build runs them: Kbuild's rule in
# an external module of their own, with the kernel's compiler and flags, in
# the chroot of its release (rig/lib/chroot-lib.sh).
# Prints one line per check: "host probes pass|fail <case> [detail]".
# Usage: probes.sh [NAME:RELEASE:KDIR[:MAKEVAR[:HEADER]]...]
#   each a kernel's headers: KDIR as RELEASE's chroot sees it (the cache
#   is bound at its own path there), with a make variable its build needs
#   (CROSS_COMPILE=...), and the probes' header the module's build for it
#   wrote (src/compat/ue_probes.h), if there is one: then the probes are
#   not run again. make check gives its rows, whose modules it built.
#   Without any: every kernel's headers in the cache's chroots, and every
#   other architecture's in the cache's kernels/ whose cross compiler and
#   linux-kbuild a chroot has, the probes run for each (2 to 4 CPU
#   seconds a kernel).
. "$(dirname "$0")/../../rig/lib/prelude.sh"

root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$root/rig/lib/chroot-lib.sh"

result() { echo "host probes $1 $2${3:+ $3}"; }

# The reference: the build's greps before the probes, one per probe, as
# "NAME HEADER EXTENDED-REGEX" (HEADER under the kernel's include/).
reference='wq_percpu linux/workqueue.h ^[[:space:]]*WQ_PERCPU[[:space:]]*=
system_dfl_wq linux/workqueue.h \*system_dfl_wq;
event_file_dentry linux/trace_events.h ^[[:space:]]*struct dentry[[:space:]]+\*dir;
event_file_ref linux/trace_events.h ^[[:space:]]*atomic_t[[:space:]]+ref;[[:space:]]*/\* ref count for opened files
exit_mmap_tp trace/events/mmap.h ^TRACE_EVENT.exit_mmap[^a-z_]
tp_srcu_fast linux/tracepoint.h guard.srcu_fast_notrace..&tracepoint_srcu'
probes=
for f in "$root"/src/compat/probe/*.c; do
	f=${f##*/}
	probes="$probes ${f%.c}"
done

# grep_says SRCTREE NAME: present or absent, by the reference.
grep_says() {
	local name hdr re
	while read -r name hdr re; do
		[ "$name" = "$2" ] || continue
		if grep -sqE "$re" "$1/include/$hdr"; then echo present; else echo absent; fi
		return
	done <<<"$reference"
	echo "no-reference"
}

# probes_say HEADER NAME: present or absent, by the header probes.sh wrote.
probes_say() {
	local have
	have=UE_HAVE_$(echo "$2" | tr '[:lower:]' '[:upper:]')
	if grep -q "^#define $have 1\$" "$1"; then echo present
	elif grep -q "^/\* $have: not in this kernel" "$1"; then echo absent
	else echo "unanswered"; fi
}

declare -A seen_present seen_absent
# compare KERNEL SRCTREE HEADER: a line per probe.
compare() {
	local k=$1 srctree=$2 hdr=$3 n g p
	for n in $probes; do
		g=$(grep_says "$srctree" "$n")
		p=$(probes_say "$hdr" "$n")
		if [ "$g" = "$p" ]; then
			result pass "$k.$n" "$p"
			case $k:$p in
			made_up_*) ;;
			*:present) seen_present[$n]+=" $k" ;;
			*:absent) seen_absent[$n]+=" $k" ;;
			esac
		else
			result fail "$k.$n" "the probe says $p, the grep $g"
		fi
	done
}

# --- the made-up trees --------------------------------------------------------
# The headers the probes include, reduced to what they look at: "new" in
# the forms of 7.3 (WQ_PERCPU, system_dfl_wq, the exit_mmap tracepoint,
# tracepoints under SRCU-fast; eventfs's trace_event_file, with neither
# dentry nor atomic_t), "old" in those of 5.10 and 6.1 (trace_event_file)
# and 6.12 (the tracepoint call); compiled with this machine's gcc through
# scripts/probes.sh.
fake() { # TREE FILE: FILE under TREE/include, from stdin, in an include guard
	local g
	g=FAKE_$(echo "$2" | tr -c 'a-zA-Z0-9\n' _)
	mkdir -p "$(dirname "$work/$1/include/$2")"
	{ printf '#ifndef %s\n#define %s\n' "$g" "$g"; cat; echo '#endif'; } >"$work/$1/include/$2"
}
for t in old new; do
	fake $t linux/compiler_types.h <<<'#define __same_type(a, b) __builtin_types_compatible_p(typeof(a), typeof(b))'
	fake $t linux/build_bug.h <<<'#define static_assert(expr, ...) _Static_assert(expr, #expr)'
	fake $t linux/stddef.h <<<'#define NULL ((void *)0)'
	fake $t linux/atomic.h <<<'typedef struct { int counter; } atomic_t;'
	fake $t linux/mm.h </dev/null
done
fake old linux/workqueue.h <<'EOF'
struct workqueue_struct;
enum {
	WQ_UNBOUND		= 1 << 1,
};
extern struct workqueue_struct *system_unbound_wq;
EOF
fake new linux/workqueue.h <<'EOF'
struct workqueue_struct;
enum {
	WQ_UNBOUND		= 1 << 1,
	WQ_PERCPU		= 1 << 8,
};
extern struct workqueue_struct *system_unbound_wq;
extern struct workqueue_struct *system_dfl_wq;
EOF
fake old linux/trace_events.h <<'EOF'
#include <linux/atomic.h>
struct dentry;
struct trace_event_file {
	struct dentry			*dir;
	unsigned long		flags;
	atomic_t		ref;	/* ref count for opened files */
};
EOF
fake new linux/trace_events.h <<'EOF'
#include <linux/atomic.h>
typedef struct { atomic_t refs; } refcount_t;
struct eventfs_inode;
struct trace_event_file {
	struct eventfs_inode		*ei;
	unsigned long		flags;
	refcount_t		ref;	/* ref count for opened files */
};
EOF
# 6.12's tracepoint call (guard(preempt_notrace)), 7.3's (SRCU-fast).
for t in old new; do
	if [ $t = old ]; then g='guard(preempt_notrace)();'; else g='guard(srcu_fast_notrace)(\&tracepoint_srcu);'; fi
	sed "s/@GUARD@/$g/" <<'EOF' | fake $t linux/tracepoint.h
#include <linux/stddef.h>
struct srcu_struct { int unused; };
extern struct srcu_struct tracepoint_srcu;
static inline void ue_fake_preempt_notrace(void) { }
static inline void ue_fake_srcu_fast_notrace(struct srcu_struct *s) { }
#define guard(name) ue_fake_##name
#define PARAMS(args...) args
#define TP_PROTO(args...) args
#define TP_ARGS(args...) args
#define __DO_TRACE_CALL(name, args) __traceiter_##name(NULL, args)
#define DECLARE_TRACE(name, proto, args)				\
	extern int __traceiter_##name(void *__data, proto);		\
	static inline int						\
	register_trace_##name(void (*probe)(void *__data, proto), void *data) \
	{								\
		return 0;						\
	}								\
	static inline void __do_trace_##name(proto)			\
	{								\
		if (1) {						\
			@GUARD@						\
			__DO_TRACE_CALL(name, TP_ARGS(args));		\
		}							\
	}
#define TRACE_EVENT(name, proto, args, tstruct, assign, print)	\
	DECLARE_TRACE(name, PARAMS(proto), PARAMS(args))
EOF
done
fake old trace/events/mmap.h <<<'#include <linux/tracepoint.h>'
fake new trace/events/mmap.h <<'EOF'
#include <linux/tracepoint.h>
struct mm_struct;
TRACE_EVENT(exit_mmap,
	TP_PROTO(struct mm_struct *mm),
	TP_ARGS(mm),
	, , );
EOF

# The made-up trees must give the answers they were made for, the one the
# other's opposite: each probe's two outcomes.
declare -A want=(
	[new.wq_percpu]=present [new.system_dfl_wq]=present [new.exit_mmap_tp]=present
	[new.tp_srcu_fast]=present [new.event_file_dentry]=absent [new.event_file_ref]=absent
	[old.wq_percpu]=absent [old.system_dfl_wq]=absent [old.exit_mmap_tp]=absent
	[old.tp_srcu_fast]=absent [old.event_file_dentry]=present [old.event_file_ref]=present
)
for t in old new; do
	hdr=$work/$t.h
	if ! sh "$root/scripts/probes.sh" "$hdr" "$root"/src/compat/probe/*.c -- \
		gcc -nostdinc -I"$work/$t/include" -include "$work/$t/include/linux/compiler_types.h" \
		-std=gnu11 -Werror=implicit-function-declaration -fsyntax-only >"$work/$t.log" 2>&1; then
		result fail "made_up_$t.run" "$(head -3 "$work/$t.log" | tr '\n' '|')"
		continue
	fi
	compare "made_up_$t" "$work/$t" "$hdr"
	for n in $probes; do
		got=$(probes_say "$hdr" "$n")
		if [ "$got" = "${want[$t.$n]:-}" ]; then
			result pass "made_up_$t.$n.outcome" "$got"
		else
			result fail "made_up_$t.$n.outcome" "the probe says $got, the tree was made for ${want[$t.$n]:-nothing}"
		fi
	done
done

# --- probes compiled together -------------------------------------------------
# scripts/probes.sh compiles the probes without macros of their own as one
# file and names the failed ones by where the compiler's errors are: the
# answers must be those of one compile each, for a probe that fails in a
# header it includes (after another whose header only warns), one that
# fails on its own line, one that compiles, and one that defines a macro
# (compiled alone).
mkdir -p "$work/together/include" "$work/together/probe"
echo 'static inline int ue_fake_bad(void) { return ue_fake_undeclared; }' >"$work/together/include/bad.h"
echo 'static inline void ue_fake_warns(void) { int unused; }' >"$work/together/include/warns.h"
printf '#include "warns.h"
_Static_assert(1, "w");
' >"$work/together/probe/a_warns.c"
printf '#include "bad.h"
_Static_assert(1, "h");
' >"$work/together/probe/f_header_fails.c"
echo '_Static_assert(sizeof(struct ue_fake_nope) == 1, "o");' >"$work/together/probe/c_own_line_fails.c"
echo '_Static_assert(1, "c");' >"$work/together/probe/d_compiles.c"
printf '#define UE_FAKE 1
_Static_assert(UE_FAKE, "m");
' >"$work/together/probe/e_macro.c"
if sh "$root/scripts/probes.sh" "$work/together.h" "$work"/together/probe/*.c -- \
	gcc -I"$work/together/include" -Wall -fsyntax-only >"$work/together.log" 2>&1; then
	for c in a_warns:present f_header_fails:absent c_own_line_fails:absent d_compiles:present \
		 e_macro:present; do
		got=$(probes_say "$work/together.h" "${c%:*}")
		if [ "$got" = "${c#*:}" ]; then result pass "together.${c%:*}" "$got"
		else result fail "together.${c%:*}" "the probe says $got, want ${c#*:}"; fi
	done
else
	result fail together.run "$(head -3 "$work/together.log" | tr '\n' '|')"
fi

# --- the real kernels ---------------------------------------------------------
# host_path RELEASE PATH: where PATH, as RELEASE's chroot sees it, is here.
host_path() {
	local c=
	[ -z "$1" ] || c=$(ue_chroot_dir "$1")
	if [ -n "$c" ] && [ -e "$c$2" ]; then echo "$c$2"; else echo "$2"; fi
}
# srctree_of RELEASE KDIR: the kernel source of a headers directory (Debian
# splits each in an architecture's directory, whose Makefile includes the
# common one's; a build directory's includes its source's), as seen here.
srctree_of() {
	local d mk
	d=$(host_path "$1" "$2")
	mk=$(sed -n 's@^include \(/.*\)/Makefile$@\1@p' "$d/Makefile" 2>/dev/null | head -1)
	if [ -n "$mk" ]; then host_path "$1" "$mk"; else echo "$d"; fi
}

specs=("$@")
if [ ${#specs[@]} = 0 ]; then
	declare -A named
	for c in "$UE_CACHE"/chroots/*/; do
		r=$(basename "$c")
		[ -f "$c/.ue-complete" ] || continue
		for d in "$c"usr/src/linux-headers-*/; do
			k=$(basename "$d"); k=${k#linux-headers-}
			if [ ! -f "$d/include/config/auto.conf" ] || [ -n "${named[$k]:-}" ]; then
				continue
			fi
			named[$k]=1
			specs+=("$k:$r:/usr/src/linux-headers-$k")
		done
	done
	for kr in "$UE_CACHE"/kernels/*/; do
		[ -L "${kr%/}" ] || [ "$(cat "$kr/arch" 2>/dev/null)" = amd64 ] || [ ! -f "$kr/kdir" ] && continue
		kd=$(cat "$kr/kdir")
		k=$(basename "$kd"); k=${k#linux-headers-}
		[ -z "${named[$k]:-}" ] || continue
		mv=$(cat "$kr/cross-make" 2>/dev/null)
		cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\{0,1\}\([^ ]*\).*/\1/p' "$kd/include/config/auto.conf")
		case $cc in *-linux-gnu-*) ;; *) cc=${mv#CROSS_COMPILE=}$cc ;; esac
		for c in "$UE_CACHE"/chroots/*/; do
			if [ ! -f "$c/.ue-complete" ] || [ ! -x "$c/usr/bin/$cc" ] ||
			   [ ! -e "$c$(readlink "$kd/scripts")" ]; then
				continue
			fi
			named[$k]=1
			specs+=("$k:$(basename "$c"):$kd:$mv")
			break
		done
	done
fi
if [ ${#specs[@]} = 0 ]; then
	result fail kernels "no kernel's headers to probe"
fi

i=0
for s in "${specs[@]}"; do
	IFS=: read -r k r kd mv hdr <<<"$s"
	if [ -n "$hdr" ]; then
		if [ ! -f "$hdr" ]; then
			result fail "$k.run" "no $hdr: the module's build did not probe"
			continue
		fi
	else
		# The probes as the build runs them: Kbuild's rule, in an
		# external module of their own.
		i=$((i + 1))
		m=$work/k$i
		mkdir -p "$m/src/compat" "$m/scripts"
		cp -a "$root/src/compat/probe" "$root/src/compat/probes.mk" "$m/src/compat/"
		cp -a "$root/scripts/probes.sh" "$m/scripts/"
		# shellcheck disable=SC2016
		printf '%s\n' 'always-y := src/compat/ue_probes.h' \
			'include $(src)/src/compat/probes.mk' >"$m/Kbuild"
		hdr=$m/src/compat/ue_probes.h
		if ! ue_chroot_run "$r" --bind "$work:/ue-probes" \
			make -C "$kd" M="/ue-probes/k$i" ${mv:+"$mv"} >"$m.log" 2>&1 || [ ! -f "$hdr" ]; then
			result fail "$k.run" "$(grep -v '^make' "$m.log" | tail -3 | tr '\n' '|')"
			continue
		fi
	fi
	compare "$k" "$(srctree_of "$r" "$kd")" "$hdr"
done

# Which real kernels gave which answer (both answers are played on the
# made-up trees whatever kernels there are).
for n in $probes; do
	result pass "$n.kernels" "present:${seen_present[$n]:- none}; absent:${seen_absent[$n]:- none}"
done
