# What the host checks share (sourced after prelude.sh, bash): a scratch
# directory, $work, removed when the check exits, and its result lines,
# "host NAME pass|fail <case> [detail]".
# shellcheck disable=SC2034
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
# The programs a check runs keep their temporary files in $work too, and
# lose them with it: lintian leaves its mldbm-elf-* files behind.
export TMPDIR=$work
# (NAME: the check's, which it sets first: hostcheck_name=NAME)
result() { echo "host ${hostcheck_name:?} $1 $2${3:+ $3}"; }
# expect CASE GOT WANT: pass where GOT is WANT, exactly.
expect() {
	if [ "$2" = "$3" ]; then result pass "$1"; else result fail "$1" "got '$2', want '$3'"; fi
}
