#!/bin/bash
# A results file ("<row> <suite> pass|fail <case> [detail]" lines) as JUnit
# XML, the test report GitLab's merge requests and GitHub Actions' test
# summaries display: <testsuites> with the whole's tests and failures, a
# <testsuite name="ROW SUITE"> per (row, suite) pair in the order they first
# appear, a <testcase classname="ROW.SUITE" name="CASE"> per line, in the
# file's order (a case twice in a suite is twice there, as JUnit allows),
# and for a line that did not pass a <failure> whose message and text are
# the line's detail (the rest of the line after its case, as written) and
# whose type is its verdict. As report.sh counts, every line whose verdict
# is not "pass" is a failure (also one with another word there, or with no
# verdict at all), so that the counts are the report's "N passed, N
# failed"; a line with no row, suite or case has "-" there. &, <, >, " and
# ' are escaped, tabs in attributes too (a parser would make them spaces);
# what is no character XML 1.0 allows is dropped, and so are the other
# control characters (C0 but tab, DEL, C1), U+FFFE/U+FFFF and bytes that
# are no UTF-8: a detail can carry console text. report.sh writes
# build/check/junit.xml with it (and so make check-report its merge's).
# Usage: junit.sh RESULTS OUT
. "$(dirname "$0")/../lib/prelude.sh"

if [ $# != 2 ]; then
	echo "usage: junit.sh RESULTS OUT" >&2
	exit 2
fi
results=$1 out=$2
[ -r "$results" ] || { echo "junit: cannot read $results" >&2; exit 1; }

# (bytes, whatever the caller's locale: awk's length and substr count
# bytes, its ranges are byte values; OUT is written whole or not at all)
LC_ALL=C awk '
BEGIN { for (i = 1; i < 256; i++) ord[sprintf("%c", i)] = i }
# clean(S): S without what XML 1.0 does not allow (and without the other
# control characters): UTF-8 decoded by hand, a byte at a time.
function clean(s,   r, i, n, b, c, k, need, cp, ok) {
	if (s !~ /[^\t -~]/)
		return s
	r = ""; n = length(s); i = 1
	while (i <= n) {
		b = ord[substr(s, i, 1)]
		if (b == 9 || (b >= 32 && b < 127)) { r = r substr(s, i, 1); i++; continue }
		# (C0 controls, DEL, a stray continuation byte, an overlong
		# or out-of-range lead byte)
		if (b < 194 || b > 244) { i++; continue }
		if (b < 224) { need = 1; cp = b - 192 }
		else if (b < 240) { need = 2; cp = b - 224 }
		else { need = 3; cp = b - 240 }
		ok = 1
		for (k = 1; k <= need; k++) {
			c = ord[substr(s, i + k, 1)]
			if (c < 128 || c > 191) { ok = 0; break }
			cp = cp * 64 + c - 128
		}
		# (a lead byte without its continuation: dropped alone)
		if (!ok) { i++; continue }
		if (cp >= 160 && !(need == 2 && cp < 2048) && !(need == 3 && cp < 65536) &&
		    cp <= 1114111 && !(cp >= 55296 && cp <= 57343) && cp != 65534 && cp != 65535)
			r = r substr(s, i, need + 1)
		i += need + 1
	}
	return r
}
function text(s) {
	s = clean(s)
	gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s)
	gsub(/"/, "\\&quot;", s); gsub(/\047/, "\\&apos;", s)
	return s
}
function attr(s) {
	s = text(s)
	gsub(/\t/, "\\&#9;", s)
	return s
}
{
	# (a line without its row, suite or case: "-" there)
	row = NF >= 1 ? $1 : "-"; suite = NF >= 2 ? $2 : "-"; verdict = $3; name = NF >= 4 ? $4 : "-"
	# (the detail as written: the line after its first four words)
	d = $0
	sub(/^[ \t]+/, "", d)
	for (k = 1; k <= 4; k++)
		sub(/^[^ \t]+[ \t]*/, "", d)
	key = row SUBSEP suite
	if (!(key in cases)) {
		order[++nsuites] = key; srow[key] = row; ssuite[key] = suite
		cases[key] = ""; tests[key] = 0; failures[key] = 0
	}
	tests[key]++; total++
	line = "    <testcase classname=\"" attr(row "." suite) "\" name=\"" attr(name) "\""
	if (verdict == "pass") {
		line = line "/>"
	} else {
		failures[key]++; failed++
		line = line ">\n      <failure message=\"" attr(d) "\" type=\"" attr(verdict) "\">" text(d) "</failure>\n    </testcase>"
	}
	cases[key] = cases[key] line "\n"
}
END {
	print "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
	printf "<testsuites name=\"make check\" tests=\"%d\" failures=\"%d\" errors=\"0\">\n", total, failed
	for (j = 1; j <= nsuites; j++) {
		key = order[j]
		printf "  <testsuite name=\"%s\" tests=\"%d\" failures=\"%d\" errors=\"0\">\n", \
			attr(srow[key] " " ssuite[key]), tests[key], failures[key]
		printf "%s", cases[key]
		print "  </testsuite>"
	}
	print "</testsuites>"
}' "$results" >"$out.tmp.$$" || {
	rm -f "$out.tmp.$$"
	echo "junit: cannot write $out" >&2
	exit 1
}
mv -f "$out.tmp.$$" "$out"
