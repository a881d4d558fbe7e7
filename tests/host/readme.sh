#!/bin/bash
# Host check of the user documents' code: every fenced block of README.md,
# docs/ci.md and docs/differences.md (what a user copies: the README, and
# the CI recipes it sends users to; differences.md has no block today, and
# one added there is held to the same rule) is run in a way that proves it
# works, without root, a VM or the network, or listed as not run with the
# reason. A block the table below does not know fails, by name, until it
# is classified; an entry of the table that no block matches fails too.
#
# The classification is the table in classes(), keyed by the block's place
# (the file and the anchor of its section, as GitHub makes it: the README's
# own links use it) and its first line without a trailing comment. Not
# markers in the README: the README stays as its readers see it, the
# reasons sit beside the checks that use them, and a block whose first
# line changes must be looked at again. Reordering blocks, or adding one
# elsewhere in a section, leaves the keys as they are; the case names
# ("SECTION.N", N the block's place in its section; "ci.SECTION.N" for
# docs/ci.md) follow the documents.
#
# Kinds (the table's third column; the fourth is the kind's argument):
#   sh      every command is checked by what it is (check_command); the
#           argument "user-events-dev" runs the block with that package
#           installed. A whole-line comment "# or ..." begins an
#           alternative: the commands after it start from the block's
#           start again (without the package, as the README says there).
#             make T [V=X]     make -n with MAKE=true (so that a recursive
#                              make runs nothing either): T is a target
#                              with something to do, each X reaches the
#                              recipes (KERNEL= a row), the scripts they
#                              run exist; install-headers under $HOME runs
#                              for real, in a temporary HOME
#             cc ...           run as written in a scratch directory that
#                              has samples/ and include/ of the checkout
#                              and my-program.c (samples/example.c), with
#                              pkg-config's system directory empty or the
#                              package's (make install-headers PREFIX=/usr
#                              DESTDIR=..., as debian/rules does, read
#                              through PKG_CONFIG_SYSROOT_DIR); a pkg-config
#                              that fails fails the line; a last word "..."
#                              is "-o my-program my-program.c"; a comment
#                              "# or -I DIR" is compiled too, "# -IDIR" is
#                              what pkg-config must give
#             user-events-run  its options, then --help (the tool stops
#                              there, having parsed the rest); --kernel a
#                              row of rig/kernels.list it boots
#             sudo             its --preserve-env names, read by the tool
#             apt-get install ./build/deb/X.deb, apt-get remove|purge P:
#                              X what make deb builds, P a package of
#                              debian/control; not run (user-events-dev's
#                              is played as above)
#             ./PROG, anything on /sys/kernel/tracing: not run (the module)
#           Any other command fails until check_command knows it. The .deb
#           files a comment names are those make deb builds.
#   c       a C fragment of the argument's program: compiled (-Wall -Werror)
#           against include/uapi with that file's #includes and the fifth
#           column's declarations; its string literals are the file's
#   output  a transcript of the argument's tool: the "$ NAME" line is a
#           program the package installs from that file, each other line
#           one of the file's messages
#   modprobe  an "options MODULE NAME=VALUE" line of the argument's file
#           (debian/PKG.modprobe, /etc/modprobe.d/PKG.conf): the module's
#           name, parameters the module has, a commented line of the file
#   yaml    a CI job: its user-events-run lines checked as in sh, its
#           ~/.cache/user-events-dkms/DIR paths directories of the cache;
#           the rest not run (the argument says whose runners run it)
#   list    not run, for the reason in the argument; bash -n for sh
# Prints one line per block: "host readme pass|fail <case> [detail]", a
# listed block's case ending in ".listed" (with "not run: REASON"). Last,
# a made-up document whose make target does not exist, whose block is not
# in the table and a table entry no block matches: each must fail (self.*),
# so the check can fail.
# Usage: readme.sh
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/rig/lib/prelude.sh"
hostcheck_name=readme
. "$root/rig/lib/hostcheck.sh"
. "$root/rig/lib/matrix-lib.sh"
version=$(cat "$root/VERSION")

# LOCATION (FILE#ANCHOR), FIRST LINE, KIND, ARGUMENT [, DECLARATIONS]:
# tab-separated. (A new VERSION changes the keys that name it.)
classes() {
	cat <<'EOF'
README.md#quick-start	make demo	sh
README.md#building	make	sh
README.md#loading	insmod user_events.ko	list	loads and unloads the module in this machine's kernel (root): make check's VMs do, on every kernel (suite module)
README.md#group-access	options user_events gid=1234	modprobe	debian/user-events-dkms.modprobe
README.md#install-from-the-deb	make deb	sh
README.md#secure-boot	mokutil --import /var/lib/dkms/mok.pub	list	enrolls a key in the firmware (root, a reboot into MokManager): make check's booted Debian 11, 12 and 13 do (tests/system)
README.md#secure-boot	openssl req -new -x509 -nodes -days 36500 -subj "/CN=DKMS module signing key"	list	makes a signing key for DKMS 2.8, edits /etc/dkms and enrolls the key (root, Debian 11): make check's booted Debian 11 does (tests/system)
README.md#secure-boot	/lib/modules/$(uname -r)/build/scripts/sign-file sha256	list	signs a module with the DKMS key and loads it (root): make check's booted systems do (tests/system/guest-test)
README.md#install-from-source-with-dkms	make dkms-install	sh
README.md#troubleshooting	$ user-events-check	output	tools/user-events-check
README.md#using-it-from-c	static volatile __u32 enabled;	c	samples/example.c	const char *msg = "hello"; __u32 count = 1;
README.md#using-it-from-c	cc $(pkg-config --cflags user-events) -o example samples/example.c	sh	user-events-dev
README.md#building-a-program-user-events-dev	apt-get install ./build/deb/user-events-dev_0.1.0_all.deb pkgconf	sh
README.md#dynamic_events	cd /sys/kernel/tracing	list	needs the module loaded and root: make check's suite abi runs it on every kernel (cases workflow.*)
README.md#perf-and-trace-cmd	insmod user_events.ko	list	needs the module loaded and root, perf and trace-cmd: make check's suite tools runs it on every kernel
README.md#testing	make check	sh
docs/ci.md#testing-your-user_events-program-in-ci	scripts/user-events-run [--kernel ROW] [--smp 2] [--memory 1024] [--timeout 600]	sh
docs/ci.md#testing-your-user_events-program-in-ci	jobs:	yaml	GitHub Actions' runners run it, not this project
docs/ci.md#testing-your-user_events-program-in-ci	user-events-tests:	yaml	GitLab CI's runners run it, not this project
EOF
}

# --- the blocks ------------------------------------------------------------------
# blocks DIR FILE...: each fenced block of the files (paths under DIR) into
# $work/b/N, and a line for it: N, file, anchor, index in its section,
# line, language.
blocks() {
	local dir=$1 f
	shift
	mkdir -p "$work/b"
	for f in "$@"; do
		[ -f "$dir/$f" ] || { echo "missing	$f"; continue; }
		awk -v file="$f" -v out="$work/b" -v base="$(find "$work/b" -type f | wc -l)" '
		function anchor(h) {
			h = tolower(h); gsub(/[^a-z0-9 _-]/, "", h); gsub(/ /, "-", h)
			if (seen[h]++) h = h "-" (seen[h] - 1)
			return h
		}
		BEGIN { sec = ""; n = base }
		fence == "" && /^#+ / { h = $0; sub(/^#+ +/, "", h); sec = anchor(h); next }
		fence == "" && /^(```|~~~)/ {
			fence = substr($0, 1, 3); lang = substr($0, 4); gsub(/[ \t]/, "", lang)
			n++; idx[sec]++
			printf "%d\t%s\t%s\t%d\t%d\t%s\n", n, file, sec, idx[sec], NR, lang
			printf "" > (out "/" n)
			next
		}
		fence != "" && $0 ~ "^" fence "[ \t]*$" { close(out "/" n); fence = ""; next }
		fence != "" { print > (out "/" n) }
		' "$dir/$f"
	done
}

# key TEXT: a first line as the table has it: without a trailing comment
# (" # ...", " /* ...", " // ...") or continuation, spaces collapsed.
key() {
	sed -E 's/[[:space:]]+(#|\/\*|\/\/).*//; s/[[:space:]]*\\$//; s/[[:space:]]+/ /g; s/^ //; s/ $//' <<<"$1"
}

# --- the sandbox -----------------------------------------------------------------
# A pkg-config that records its failures (a failed $(pkg-config ...) is
# an empty string to the shell, and a compiler may then find another
# header), pkg-config's system directory empty or user-events-dev's, and
# the package itself as debian/rules installs it.
real_pkgconfig=$(command -v pkg-config) ||
	result fail pkg_config "no pkg-config (tests/deps.sh: pkgconf): the README's cc lines run it"
mkdir -p "$work/bin" "$work/nopc" "$work/dev"
pclog=$work/pkg-config.log
cat >"$work/bin/pkg-config" <<EOF
#!/bin/bash
"$real_pkgconfig" "\$@" && exit 0
rc=\$?
echo "pkg-config \$*: status \$rc" >>"$pclog"
exit \$rc
EOF
chmod +x "$work/bin/pkg-config"
dev=$work/dev
dev_ok=1
if ! make -s -C "$root" install-headers PREFIX=/usr DESTDIR="$dev" >"$work/dev.log" 2>&1; then
	dev_ok="make install-headers PREFIX=/usr DESTDIR=...: $(tail -1 "$work/dev.log")"
else
	while read -r p; do
		[ -z "$p" ] || [ -e "$dev/$p" ] || dev_ok="no $p, which debian/user-events-dev.install ships"
	done <"$root/debian/user-events-dev.install"
fi
grep -q 'install-headers PREFIX=/usr DESTDIR=' "$root/debian/rules" ||
	dev_ok="debian/rules installs the header otherwise than make install-headers PREFIX=/usr DESTDIR=..."

# sb CMD...: CMD in the sandbox's environment (sbhome, pkg: the package
# installed or not), PATH ours with the recording pkg-config first.
sb() {
	local pc=(PKG_CONFIG_LIBDIR="$work/nopc")
	[ "$pkg" != user-events-dev ] || pc=(PKG_CONFIG_LIBDIR="$dev/usr/share/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$dev")
	env -i PATH="$work/bin:$PATH" HOME="$sbhome" LC_ALL=C "${pc[@]}" "$@"
}
# words CMD: CMD's words as the shell makes them, one a line: without
# globbing, and with redirections and control operators taken as text (a
# command that writes to /sys only has its words read).
words() {
	# shellcheck disable=SC2016
	sb bash -fc 'eval "set -- $1" && printf "%s\n" "$@"' words "$(sed -E 's/([<>|&;])/\\\1/g' <<<"$1")" 2>/dev/null
}

# What make deb builds, as the checkout's relative paths.
debs=$(pkg='' sbhome=$work sb make -n --no-print-directory -C "$root" MAKE=true deb 2>/dev/null |
	sed -n 's|.*built: \(.*\)"$|\1|p' | sed "s|^$root/||")
# Rows user-events-run boots (amd64: the guest runs this machine's programs),
# rows make soak's KERNEL= takes (ours too).
run_rows=$(ue_matrix arch=amd64 -- name)
all_rows=$(ue_matrix -- name)
packages=$(sed -n 's/^Package: *//p' "$root/debian/control")

# --- commands --------------------------------------------------------------------
# Each adds to did (checked or run), notrun (with why) or bad (failed).
add() { local -n _a=$1; _a+=("$2"); }

cmd_make() { # CMD WORDS... (after make)
	local cmd=$1 w vars=() targets=() args=() out rc real=''
	shift
	for w in "$@"; do
		case $w in
		*=*) vars+=("$w") ;;
		-*) ;;
		*) targets+=("$w") ;;
		esac
		args+=("$w")
	done
	for w in "${vars[@]}"; do
		case $w in KERNEL=*)
			grep -qxF -- "${w#KERNEL=}" <<<"$all_rows" ||
				add bad "$cmd: ${w#KERNEL=} is no row of rig/kernels.list" ;;
		esac
	done
	# install-headers into the sandbox's HOME: for real.
	if [ "${targets[*]}" = install-headers ]; then
		real=1
		for w in "${vars[@]}"; do
			case $w in PREFIX=* | DESTDIR=*) [[ ${w#*=} == "$sbhome"/* ]] || real= ;; esac
		done
	fi
	if [ -n "$real" ]; then
		if out=$(sb make -s --no-print-directory -C "$root" "${args[@]}" 2>&1); then
			add did "ran $cmd"
		else
			add bad "$cmd: $(tail -1 <<<"$out")"
		fi
		return
	fi
	out=$(sb make -n --no-print-directory -C "$root" MAKE=true "${args[@]}" 2>&1)
	rc=$?
	# (a target only .PHONY names, with no rule, is "nothing to be done")
	if [ $rc != 0 ] || grep -qE "^make: (Nothing to be done for|'.*' is up to date)" <<<"$out"; then
		add bad "make -n${cmd#make}: $(grep -m1 'make:' <<<"$out" || tail -1 <<<"$out")"
		return
	fi
	for w in "${vars[@]}"; do
		grep -qF -- "${w#*=}" <<<"$out" || add bad "$cmd: ${w%%=*} reaches no recipe"
	done
	# The scripts its recipes run.
	out=${out//"$root/"/}
	for w in $(grep -oE "(^|[ ;'\"])(tests|bench|scripts)/[A-Za-z0-9_./-]+" <<<"$out" |
		   sed -E "s/^[ ;'\"]//" | sort -u); do
		[ -f "$root/$w" ] || add bad "$cmd: its recipe runs $w, which the checkout lacks"
	done
	add did "make -n${cmd#make}"
}

cmd_run() { # WORDS... (from user-events-run on)
	local w opts=() out k='' i
	shift
	for w in "$@"; do
		[ "$w" != -- ] || break
		# (a synopsis's notation: [--opt VALUE], [--opt]...)
		w=${w//[\[\]]/}
		w=${w%...}
		# (a synopsis's ROW: the row flagged run, the tool's default)
		[ "$w" != ROW ] || w=$(ue_matrix_one flags~run -- name)
		[ -z "$w" ] || opts+=("$w")
	done
	for ((i = 0; i < ${#opts[@]}; i++)); do
		[ "${opts[i]}" != --kernel ] || k=${opts[i + 1]:-}
	done
	if ! out=$(sb "$root/scripts/user-events-run" "${opts[@]}" --help 2>&1 >/dev/null); then
		add bad "user-events-run ${opts[*]}: $out"
		return
	fi
	if [ -n "$k" ] && ! grep -qxF -- "$k" <<<"$run_rows"; then
		add bad "user-events-run --kernel $k: not an amd64 row of rig/kernels.list"
		return
	fi
	add did "user-events-run ${opts[*]}: options accepted"
}

cmd_cc() { # CMD COMMENT
	local cmd=$1 comment=$2 out o alt got want
	[[ $cmd != *' ...' ]] || cmd="${cmd% ...} -o my-program my-program.c"
	o=$(sed -nE 's/.* -o +([^ ]+).*/\1/p' <<<"$cmd")
	: >"$pclog"
	rm -f "$sbcwd/$o"
	out=$(cd "$sbcwd" && sb bash -c "$cmd" 2>&1)
	if [ $? != 0 ] || [ -s "$pclog" ] || { [ -n "$o" ] && [ ! -f "$sbcwd/$o" ]; }; then
		add bad "$1: $(head -1 "$pclog") $(grep -m1 -E 'error|No such' <<<"$out")"
		return
	fi
	if [ "$cmd" = "$1" ]; then add did "ran $1"; else add did "ran $1 (...: -o my-program my-program.c)"; fi
	case $comment in
	"or -I "*)
		alt=${cmd/\$(pkg-config --cflags user-events)/-I ${comment#or -I }}
		rm -f "$sbcwd/$o"
		if out=$(cd "$sbcwd" && sb bash -c "$alt" 2>&1) && [ -f "$sbcwd/$o" ]; then
			add did "ran $alt"
		else
			add bad "$alt: $(grep -m1 . <<<"$out")"
		fi ;;
	-I*)
		got=$(sb pkg-config --cflags user-events 2>&1 | sed 's/ *$//')
		[ "$pkg" != user-events-dev ] || got=${got//"$dev"/}
		want=${comment%% *}
		if [ "$got" = "$want" ]; then add did "pkg-config --cflags user-events: $want"
		else add bad "pkg-config --cflags user-events gives '$got', the README says '$want'"; fi ;;
	esac
}

cmd_apt() { # WORDS... (after apt-get)
	local op=$1 w deb
	shift
	case $op in
	install)
		for w in "$@"; do
			case $w in
			-*) ;;
			./build/deb/*.deb)
				deb=${w#./}
				if ! grep -qxF "$deb" <<<"$debs"; then
					add bad "apt-get install $w: make deb builds ${debs//$'\n'/ }"
				elif [[ $deb == */user-events-dev_* ]]; then
					if [ "$dev_ok" = 1 ]; then
						pkg=user-events-dev
						add did "apt-get install $w: played (its files as debian/rules installs them)"
					else
						add bad "user-events-dev: $dev_ok"
					fi
				else
					add notrun "apt-get install $w (installs the module on this machine, root: make check's install test does, on each release)"
				fi ;;
			*) add notrun "apt-get install $w (a Debian package, root)" ;;
			esac
		done ;;
	remove | purge)
		for w in "$@"; do
			if grep -qxF -- "$w" <<<"$packages"; then
				add notrun "apt-get $op $w (removes the package from this machine, root: make check's install test does)"
			else
				add bad "apt-get $op $w: no package of debian/control"
			fi
		done ;;
	*) add bad "apt-get $op: no rule for it (tests/host/readme.sh)" ;;
	esac
}

# check_command CMD COMMENT: one command (no "&&", no trailing comment).
check_command() {
	local cmd=$1 comment=$2 w=() v
	cmd=${cmd%&}
	cmd=${cmd%"${cmd##*[! ]}"}
	cmd=${cmd//<version>/$version}
	mapfile -t w < <(words "$cmd")
	[ ${#w[@]} -gt 0 ] || return 0
	if [ "${w[0]}" = sudo ]; then
		w=("${w[@]:1}")
		while [[ ${w[0]:-} == -* ]]; do
			case ${w[0]} in --preserve-env=*)
				for v in $(tr , ' ' <<<"${w[0]#*=}"); do
					grep -rqw --exclude-dir=selfcheck -- "$v" "$root/scripts/user-events-run" "$root/rig" ||
						add bad "sudo --preserve-env: user-events-run reads no $v"
				done
				add did "sudo ${w[0]}: user-events-run reads each" ;;
			esac
			w=("${w[@]:1}")
		done
		cmd=$(sed -E 's/^sudo( +-[^ ]+)* +//' <<<"$cmd")
	fi
	# (variables set for the command: the command is what it runs)
	while [[ ${w[0]:-} =~ ^[A-Za-z_][A-Za-z0-9_]*= ]]; do w=("${w[@]:1}"); done
	[ ${#w[@]} -gt 0 ] || return 0
	case ${w[0]} in
	make) cmd_make "$cmd" "${w[@]:1}" ;;
	# (the checkout's, wherever the user put it)
	scripts/user-events-run | */scripts/user-events-run) cmd_run "${w[@]}" ;;
	cc | gcc) cmd_cc "$cmd" "$comment" ;;
	apt-get) cmd_apt "${w[@]:1}" ;;
	./*) add notrun "$cmd (the program built above: it needs the module loaded)" ;;
	*)
		if [[ $cmd == */sys/kernel/tracing* ]]; then
			add notrun "$cmd (tracefs with the module loaded, root)"
		else
			add bad "$cmd: no rule for this command (check_command, tests/host/readme.sh)"
		fi ;;
	esac
}

# --- kinds -----------------------------------------------------------------------
kind_sh() { # FILE START-PKG
	local line cmd comment part out
	pkg=$2
	if ! out=$(bash -n "$1" 2>&1); then
		add bad "bash -n: $(head -1 <<<"$out")"
		return
	fi
	# (continuation lines joined)
	while IFS= read -r line; do
		[[ $line =~ ^[[:space:]]*$ ]] && continue
		if [[ $line =~ ^[[:space:]]*# ]]; then
			# an alternative to what is above starts from the block's start
			[[ ! $line =~ ^[[:space:]]*#[[:space:]]*or[[:space:],] ]] || pkg=$2
			continue
		fi
		# (the comment from the first " #" on)
		cmd=${line%%[[:space:]]#*}
		comment=${line#"$cmd"}
		comment=${comment#"${comment%%[![:space:]#]*}"}
		cmd=${cmd%"${cmd##*[![:space:]]}"}
		# the .debs a comment names are make deb's
		for part in $(grep -oE '[A-Za-z0-9_./<>-]+\.deb' <<<"$comment"); do
			part=${part//<version>/$version}
			grep -qF "/${part##*/}" <<<"$debs" || add bad "the comment's $part: make deb builds ${debs//$'\n'/ }"
		done
		while [ -n "$cmd" ]; do
			part=${cmd%% && *}
			check_command "$part" "$comment"
			[ "$part" != "$cmd" ] || break
			cmd=${cmd#* && }
		done
	done < <(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$1")
}

kind_c() { # FILE PROGRAM DECLARATIONS
	local src=$work/fragment.c s out
	{
		grep '^#include' "$root/$2"
		echo "int main(void)"
		echo "{"
		echo "$3"
		cat "$1"
		echo "return 0;"
		echo "}"
	} >"$src"
	if out=$(gcc -std=gnu11 -Wall -Werror -fsyntax-only -I "$root/include/uapi" "$src" 2>&1); then
		add did "compiled (gcc -Wall -Werror -I include/uapi) with $2's #includes and $3"
	else
		add bad "$(grep -m1 'error' <<<"$out")"
	fi
	while IFS= read -r s; do
		grep -qF -- "$s" "$root/$2" || add bad "its string $s is not $2's"
	done < <(grep -oE '"[^"]+"' "$1" | sort -u)
	add did "its strings are $2's"
}

kind_output() { # FILE TOOL
	local tool=$root/$2 first name line pat pats ok
	first=$(grep -m1 . "$1")
	name=${first#\$ }
	if [ "$name" = "$first" ] || ! sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$root/debian/rules" |
		grep -qE "install .*$2[[:space:]]+debian/[a-z-]+/usr/bin/$name\$"; then
		add bad "'$first': not a program the package installs from $2 (debian/rules)"
		return
	fi
	# The tool's messages as patterns: the function's prefix, then the
	# message with each $var, ${...} and $(...) any text.
	pats=$(awk '
		/^[a-z]+\(\) \{ echo "/ { f = $1; sub(/\(\)/, "", f); p = $0; sub(/^[^"]*"/, "", p); sub(/\$\*.*/, "", p); pre[f] = p; next }
		/^[ \t]*[a-z]+ "/ {
			f = $1; if (!(f in pre)) next
			s = $0; sub(/^[^"]*"/, "", s); sub(/"[^"]*$/, "", s)
			gsub(/\$\([^)]*\)/, "\001", s); gsub(/\$\{[^}]*\}/, "\001", s); gsub(/\$[A-Za-z_][A-Za-z0-9_]*/, "\001", s)
			s = pre[f] s
			gsub(/[][*?\\()|!@+]/, "\\\\&", s); gsub(/\001/, "*", s)
			print s
		}' "$tool")
	ok=0
	while IFS= read -r line; do
		[ "$line" != "$first" ] || continue
		while IFS= read -r pat; do
			# shellcheck disable=SC2053
			[[ $line == $pat ]] && continue 2
		done <<<"$pats"
		add bad "'$line' is none of $2's messages"
		ok=1
	done <"$1"
	[ $ok != 0 ] || add did "output of $name: each line one of $2's messages"
}

kind_modprobe() { # FILE CONF
	local line w mod p pkgname
	line=$(grep -m1 . "$1" | sed -E 's/[[:space:]]+#.*//')
	read -r -a w <<<"$line"
	mod=$(sed -nE 's/^UE_MODNAME \?= *//p' "$root/Kbuild")
	pkgname=${2#debian/}
	pkgname=${pkgname%.modprobe}
	[ "${w[0]}" = options ] || { add bad "'$line': no options line"; return; }
	[ "${w[1]}" = "$mod" ] || add bad "'$line': the module is $mod (Kbuild)"
	grep -qxF "$pkgname" <<<"$packages" || add bad "$2: $pkgname is no package of debian/control"
	for p in "${w[@]:2}"; do
		p=${p%%=*}
		grep -qE "module_param(_cb|_named)?\($p," "$root"/src/*.c || add bad "$p: no parameter of the module (src/)"
		grep -qE "^#[[:space:]]*options $mod $p=" "$root/$2" || add bad "$2 has no line '#options $mod $p=' to uncomment"
	done
	add did "'$line': $mod's parameters, the commented line of $2 (/etc/modprobe.d/$pkgname.conf)"
}

kind_yaml() { # FILE WHOSE
	local line d dirs=()
	while IFS= read -r line; do
		line=$(sed -E 's/^[[:space:]]*-?[[:space:]]*(run:[[:space:]]*)?//' <<<"$line")
		check_command "$line" ""
	done < <(grep -v '^[[:space:]]*#' "$1" | grep 'user-events-run')
	# shellcheck disable=SC2088
	for d in $(grep -oE '~/\.cache/user-events-dkms/[A-Za-z0-9_/-]+' "$1" | sed 's|.*user-events-dkms/||' | sort -u); do
		if grep -rqF --exclude-dir=selfcheck "\$UE_CACHE/$d" "$root/scripts/user-events-run" "$root/rig"; then
			dirs+=("$d")
		else
			# shellcheck disable=SC2088
			add bad "~/.cache/user-events-dkms/$d: no directory of the cache (\$UE_CACHE/$d)"
		fi
	done
	[ ${#dirs[@]} = 0 ] || add did "the cache's directories ${dirs[*]}"
	add notrun "the job ($2)"
}

# --- the documents -----------------------------------------------------------------
# check_docs TABLE DIR FILE...: a line per block of the files under DIR.
check_docs() {
	local table=$1 dir=$2 n file sec idx line lang first k entry kind arg decl case did notrun bad
	local used=$work/used out
	shift 2
	: >"$used"
	rm -rf "$work/b" "$work/sb"
	while IFS=$'\t' read -r n file sec idx line lang; do
		if [ "$n" = missing ]; then
			result fail "$file" "no such document"
			continue
		fi
		case $file in
		README.md) case=$sec.$idx ;;
		*) case=$(basename "$file" .md).$sec.$idx ;;
		esac
		first=$(grep -m1 '[^[:space:]]' "$work/b/$n")
		k=$(key "$first")
		entry=$(awk -F '\t' -v l="$file#$sec" -v k="$k" '$1 == l && $2 == k' "$table")
		if [ -z "$entry" ]; then
			result fail "$case" "not classified ($file line $line, '$k'): add it to classes() in tests/host/readme.sh"
			continue
		fi
		echo "$file#$sec	$k" >>"$used"
		IFS=$'\t' read -r _ _ kind arg decl <<<"$entry"
		did=() notrun=() bad=()
		sbhome=$work/sb/$n/home sbcwd=$work/sb/$n/cwd pkg=
		mkdir -p "$sbhome" "$sbcwd"
		ln -s "$root/samples" "$root/include" "$sbcwd/"
		cp "$root/samples/example.c" "$sbcwd/my-program.c"
		case $kind in
		sh) kind_sh "$work/b/$n" "$arg" ;;
		c) kind_c "$work/b/$n" "$arg" "$decl" ;;
		output) kind_output "$work/b/$n" "$arg" ;;
		modprobe) kind_modprobe "$work/b/$n" "$arg" ;;
		yaml) kind_yaml "$work/b/$n" "$arg" ;;
		list)
			case $lang in sh | bash | "")
				[ "$lang" = "" ] || out=$(bash -n "$work/b/$n" 2>&1) || add bad "bash -n: $(head -1 <<<"$out")" ;;
			esac
			if [ ${#bad[@]} = 0 ]; then
				result pass "$case.listed" "not run: $arg"
			else
				result fail "$case.listed" "${bad[*]}"
			fi
			continue ;;
		*) result fail "$case" "unknown kind $kind in classes()"; continue ;;
		esac
		if [ ${#bad[@]} != 0 ]; then
			result fail "$case" "$(printf '%s; ' "${bad[@]}" | sed 's/; $//')"
		else
			out=$(printf '%s; ' "${did[@]}" | sed 's/; $//')
			[ ${#notrun[@]} = 0 ] || out="$out; not run: $(printf '%s, ' "${notrun[@]}" | sed 's/, $//')"
			result pass "$case" "$out"
		fi
	done < <(blocks "$dir" "$@")
	# Entries no block matched.
	n=0
	while IFS=$'\t' read -r file k _; do
		n=$((n + 1))
		grep -qxF "$file	$k" "$used" || result fail "unused.$n" "no block at $file with first line '$k': drop it from classes() or fix it"
	done <"$table"
}

classes >"$work/classes"
check_docs "$work/classes" "$root" README.md docs/ci.md docs/differences.md

# --- the check can fail --------------------------------------------------------------
mkdir -p "$work/self"
cat >"$work/self/README.md" <<'EOF'
# made up
## A target
```sh
make no-such-target
```
## New
```sh
true
```
EOF
printf 'README.md#a-target\tmake no-such-target\tsh\nREADME.md#gone\tmake\tsh\n' >"$work/self/classes"
self=$(check_docs "$work/self/classes" "$work/self" README.md)
expect_fail() { # CASE WHAT
	if grep -q "^host readme fail $2 " <<<"$self"; then result pass "self.$1"
	else result fail "self.$1" "$2 did not fail: $(grep -F " $2 " <<<"$self")"; fi
}
expect_fail no_such_target a-target.1
expect_fail unclassified new.1
expect_fail unused_entry unused.2
exit 0
