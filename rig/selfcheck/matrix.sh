#!/bin/bash
# Host check of the kernel matrix (rig/kernels.list) and its reader
# (rig/lib/matrix-lib.sh, ue_matrix): the file reads; the rows that the
# entry points take by a flag are there, one each (user-events-run's run
# row, a Debian amd64 one; make demo's for each architecture the matrix
# has, Debian's; make soak's); every extra suite has its script in
# tests/userspace and every flavour of ours is one tests/kernel/build.sh
# builds. Then the reader on a file of its own: conditions, fields, the
# file's order, and a malformed line refused, named.
# Prints "host matrix pass|fail <case> [detail]" lines.
. "$(dirname "$0")/../lib/prelude.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/rig/lib/matrix-lib.sh"
hostcheck_name=matrix
. "$(dirname "$0")/../lib/hostcheck.sh"

# --- the matrix itself ------------------------------------------------------------
if ue_matrix >/dev/null 2>"$work/err"; then
	result pass reads
else
	result fail reads "$(tr '\n' ' ' <"$work/err")"
fi
expect run.one_debian_amd64 "$(ue_matrix flags~run -- made arch | tr '\n' ' ')" "debian amd64 "
for a in $(ue_matrix -- arch | sort -u); do
	expect "demo.$a" "$(ue_matrix flags~demo arch="$a" -- made | tr '\n' ' ')" "debian "
done
expect soak.one "$(ue_matrix flags~soak -- name | grep -c .)" 1
for s in $(ue_matrix extra!=- -- extra | tr , '\n' | sort -u); do
	n=$(find "$root/tests/userspace" -maxdepth 1 -name "[0-9][0-9]-$s.sh" | grep -c .)
	expect "extra.$s" "$n" 1
done
for f in $(ue_matrix made=ours -- flavour); do
	# (the flavours build.sh's case names)
	if grep -Eq "^(.*\|)?$f(\|.*)?\)" "$root/tests/kernel/build.sh"; then
		result pass "ours.$f"
	else
		result fail "ours.$f" "tests/kernel/build.sh builds no flavour $f"
	fi
done

# --- the reader, on a file of its own ---------------------------------------------
cat >"$work/good.list" <<'EOF'
# a comment, and a blank line

a   debian  r1  r1,r1-security  1.0  amd64        full   900   -        run
b   debian  r1  r1              any  cloud-arm64  short  1500  x,ids    demo,unserved-ok
c   debian  r2  r2              2.0  arm64        full   1500  -        -
d   ours    -   -               1.0  debug        full   1500  -        long-budgets
EOF
ue_matrix_file=$work/good.list
expect reader.names "$(ue_matrix -- name | tr '\n' ' ')" "a b c d "
expect reader.all_columns "$(ue_matrix name=d)" "d ours - - 1.0 debug full 1500 - long-budgets"
expect reader.arch "$(ue_matrix -- name arch | tr '\n' ' ')" "a amd64 b arm64 c arm64 d amd64 "
expect reader.equal "$(ue_matrix made=debian arch=arm64 -- name | tr '\n' ' ')" "b c "
expect reader.not_equal "$(ue_matrix level!=full -- name)" b
expect reader.word "$(ue_matrix extra~ids -- name limit)" "b 1500"
expect reader.word_whole "$(ue_matrix flags~unserved -- name)" ""
expect reader.not_word "$(ue_matrix flags!~run made=debian -- name | tr '\n' ' ')" "b c "
expect reader.one "$(ue_matrix_one flags~demo -- name)" b
ue_matrix_one arch=arm64 -- name >/dev/null 2>&1
expect reader.one_of_two $? 1
ue_matrix no_such=1 >/dev/null 2>&1
expect reader.bad_condition $? 2
ue_matrix -- no_such >/dev/null 2>&1
expect reader.bad_field $? 2
{ cat "$work/good.list"; echo "a debian r3 r3 1.0 amd64 half 900 - -"; echo "e ours r1 - 1.0 debug full 90s - -"; echo "f debian r1 r1 1.0 amd64 full"; } >"$work/bad.list"
ue_matrix_file=$work/bad.list
out=$(ue_matrix 2>"$work/err")
expect reader.malformed.status $? 2
expect reader.malformed.nothing_printed "$out" ""
expect reader.malformed.said "$(grep -c 'bad.list:[0-9]*: ' "$work/err")" 5
exit 0
