#!/usr/bin/env bash
# Interleaved ratios: runs a package's benchmarks ROUNDS times, one sample
# of every case per round, so that the baseline (impl=time, impl=context or
# impl=heap) and impl=stash of a case always run seconds apart and meet the
# same machine noise; then prints, per case, each side's median and the median
# and range of the per-round ratios (baseline/stash: above 1, stash is
# better). On a noisy machine this is fairer than -count N, which takes all
# of one side's samples before the other's.
#
#   bash bench/interleave.sh [PKG [REGEX]]
#   bash bench/interleave.sh ./stashtime 'AfterFuncStop$|NewTimerStop$|ResetLater|StopReset'
#
# PKG defaults to ./stashtime and REGEX to '.'; ROUNDS (default 8) and
# BENCHTIME (default 0.3s) set the rounds and each sample's -benchtime, and
# UNIT (default ns/op) the metric compared (B/timer, say): a case that does
# not report it, as Drain and BytesPerTimer do not report ns/op, is left out.
set -euo pipefail
cd "$(dirname "$0")/.."
pkg=${1:-./stashtime}
regex=${2:-.}
rounds=${ROUNDS:-8}
unit=${UNIT:-ns/op}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/pkg.test" "$pkg"
for i in $(seq "$rounds"); do
	(cd "$pkg" && "$tmp/pkg.test" -test.run '^$' -test.bench "$regex" \
		-test.benchtime "${BENCHTIME:-0.3s}") |
		awk -v r="$i" -v u="$unit" '/^Benchmark/ { for (f = 3; f < NF; f += 2) if ($(f + 1) == u) print r, $1, $f }' >>"$tmp/samples"
done
printf "%-48s %10s %10s %8s %s\n" case baseline stash ratio range
awk '
function median(s,    n, a, i, j, t) {
	n = split(s, a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
	name = $2; sub(/-[0-9]+$/, "", name)
	impl = name; sub(/.*\/impl=/, "", impl); sub(/\/impl=[^\/]+$/, "", name)
	v[name, impl, $1] = $3; cases[name] = 1; impls[name, impl] = 1; rounds[$1] = 1
}
END {
	for (c in cases) {
		base = ((c, "time") in impls) ? "time" : ((c, "context") in impls) ? "context" : "heap"
		bs = ""; ss = ""; rs = ""; lo = 1e18; hi = 0
		for (r in rounds) if ((c, base, r) in v && (c, "stash", r) in v) {
			b = v[c, base, r]; s = v[c, "stash", r]
			if (s <= 0) continue
			bs = bs " " b; ss = ss " " s; q = b / s; rs = rs " " q
			if (q < lo) lo = q
			if (q > hi) hi = q
		}
		if (rs == "") continue
		printf "%-48s %10.1f %10.1f %7.2fx %.2f-%.2f\n", c, median(bs), median(ss), median(rs), lo, hi
	}
}' "$tmp/samples" | sort
