#!/bin/bash
# make bench-docs: put the results of the last make bench
# (build/bench/performance-section.md) into docs/performance.md, between
# <!-- bench:begin --> and <!-- bench:end -->. The one step that changes a
# tracked file with benchmark numbers; make bench itself never does.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
sec=$root/build/bench/performance-section.md
doc=$root/docs/performance.md
[ -s "$sec" ] || { echo "bench-docs: no $sec: run make bench first" >&2; exit 1; }
grep -q '^<!-- bench:begin -->' "$doc" && grep -q '^<!-- bench:end -->' "$doc" ||
	{ echo "bench-docs: $doc has no <!-- bench:begin --> ... <!-- bench:end --> markers" >&2; exit 1; }
awk -v sec="$sec" '
	/^<!-- bench:begin -->/ { while ((getline l < sec) > 0) print l; skip = 1; next }
	/^<!-- bench:end -->/ { skip = 0; next }
	!skip' "$doc" >"$doc.new"
mv "$doc.new" "$doc"
echo "docs/performance.md: results of $(sed -n 's/^Last run: \([^,]*\),.*/\1/p' "$sec") written"
