#!/bin/bash
# bench/mem-breakdown.sh [DIR]: where the memory of make bench's scale row
# goes, per event, ours next to in-kernel. Reads the BENCHMEM lines that
# ue_bench -M prints (UE_BENCH_MEM=1 make bench) from the first boot's
# console logs in DIR (build/bench): /proc/meminfo, /proc/slabinfo and
# /proc/zoneinfo before and after the registrations. Per slab cache: the
# growth of its slabs (slabs x pages per slab), and of its objects.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build/bench}
for impl in ours inkernel; do
	log=$dir/console-$impl-1.log.txt
	grep -q '^BENCHMEM after ' "$log" 2>/dev/null ||
		{ echo "mem-breakdown: no BENCHMEM lines in $log (UE_BENCH_MEM=1 make bench)" >&2; exit 1; }
	n=$(sed -n 's/^BENCHINFO .* -s \([0-9]*\).*/\1/p' "$log" | head -1)
	awk -v impl=$impl -v n="${n:-10000}" '
	$1 != "BENCHMEM" { next }
	$3 == "meminfo" && $4 == "Slab:" { slab[$2] = $5 * 1024 }
	$3 == "zoneinfo" && $4 == "pages" && $5 == "free" { zfree[$2] += $6 * 4096 }
	$3 == "zoneinfo" && $4 == "count:" { pcp[$2] += $5 * 4096 }
	# name active_objs num_objs objsize objperslab pagesperslab : tunables l b s : slabdata active num shared
	$3 == "slabinfo" && NF >= 19 && $4 !~ /^#/ {
		bytes[$2, $4] = $18 * $9 * 4096; objs[$2, $4] = $5; size[$4] = $7; seen[$4] = 1
	}
	END {
		for (c in seen) {
			d = bytes["after", c] - bytes["before", c]
			if (d) { printf "%s cache %s %.1f %.2f %d\n", impl, c, d / n, (objs["after", c] - objs["before", c]) / n, size[c]; sum += d }
		}
		ds = slab["after"] - slab["before"]
		printf "%s total slab %.1f\n", impl, ds / n
		printf "%s total outside-caches %.1f\n", impl, (ds - sum) / n
		printf "%s total memfree %.1f\n", impl, (zfree["before"] - zfree["after"]) / n
		printf "%s total pcp %.1f\n", impl, (pcp["after"] - pcp["before"]) / n
		printf "%s total all %.1f\n", impl, (zfree["before"] + pcp["before"] - zfree["after"] - pcp["after"]) / n
		printf "%s total outside-slab %.1f\n", impl, (zfree["before"] + pcp["before"] - zfree["after"] - pcp["after"] - ds) / n
	}' "$log"
done | awk '
{ key = $2 " " $3; if (!(key in seen)) { seen[key] = 1; order[++k] = key }
  v[$1, key] = $4; if ($2 == "cache") { o[$1, key] = $5; sz[key] = $6 } }
END {
	printf "%-36s %10s %10s %16s\n", "bytes per event", "ours", "in-kernel", "objects (o / i)"
	# the caches, largest first
	for (i = 1; i <= k; i++)
		if (order[i] ~ /^cache/) { c[++m] = order[i]; w[m] = v["ours", order[i]] + v["inkernel", order[i]] }
	for (i = 2; i <= m; i++)
		for (j = i; j > 1 && w[j] > w[j - 1]; j--) { t1 = c[j]; c[j] = c[j - 1]; c[j - 1] = t1; t2 = w[j]; w[j] = w[j - 1]; w[j - 1] = t2 }
	for (i = 1; i <= m; i++) {
		key = c[i]
		split(key, a, " ")
		printf "%-36s %10.1f %10.1f %7.2f / %5.2f\n", "slab " a[2] " (" sz[key] " B)", v["ours", key], v["inkernel", key], o["ours", key], o["inkernel", key]
	}
	split("slab outside-caches memfree pcp all outside-slab", t, " ")
	label["slab"] = "Slab: (meminfo)"
	label["outside-caches"] = "  of it outside slabinfo (kmalloc > 8k)"
	label["memfree"] = "MemFree: drop"
	label["pcp"] = "per-CPU page lists, growth"
	label["all"] = "free pages, lists included: drop"
	label["outside-slab"] = "  of it outside Slab:"
	for (i = 1; i <= 6; i++)
		printf "%-36s %10.1f %10.1f\n", label[t[i]], v["ours", "total " t[i]], v["inkernel", "total " t[i]]
}'
