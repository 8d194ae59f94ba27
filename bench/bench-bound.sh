#!/bin/sh
# make bench-bound (bench/bench.mk): CPU time of `ocasim bound` per call and of a 1000-point bound
# sweep at -j 1 per point, both without prediction intervals (--no-interval where the build has it),
# this build against a reference build (issue 34: commit 9728551, the last before the bound's
# latency rewrite), the two alternated in PAIRS pairs (ref, new, ref,
# new, ...) so that both see the same machine. CPU time (user + system of the children,
# getrusage: bench/cputime.c), since the machine is shared and wall time is noisy. A report: it
# never fails on timing.
#   bench-bound.sh CPUTIME NEW [REF]   (REF empty or missing: this build's rows alone)
# Knobs (environment): PAIRS (default 5), CALLS (bound calls per sample, default 20),
#   SCENARIO, SWEEP, OUT (raw samples, default build/bench/bound.out), REFNAME (the reference's
#   name in the table, default 9728551).
set -eu
CPUTIME=$1
NEW=$2
REF=${3:-}
PAIRS=${PAIRS:-5}
CALLS=${CALLS:-20}
SCENARIO=${SCENARIO:-scenarios/milan-800g-dlwm-off-network-centric.yaml}
SWEEP=${SWEEP:-sweeps/bench-bound-1000.yaml}
OUT=${OUT:-build/bench/bound.out}
REFNAME=${REFNAME:-9728551}
POINTS=1000
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: > "$OUT"
CPUTIME=$(cd "$(dirname "$CPUTIME")" && pwd)/$(basename "$CPUTIME")
# each build runs in the tree it was built from where that tree has the scenario (the reference's
# git worktree: today's scenarios carry keys 9728551 does not know, e.g. `uncertainty`)
dir_of() { d=$(cd "$(dirname "$1")" && pwd); [ -f "$d/$SCENARIO" ] && [ -f "$d/$SWEEP" ] && echo "$d" || pwd; }
NEWDIR=$(dir_of "$NEW")
NEW=$(cd "$(dirname "$NEW")" && pwd)/$(basename "$NEW")
if [ -n "$REF" ]; then
  REFDIR=$(dir_of "$REF")
  REF=$(cd "$(dirname "$REF")" && pwd)/$(basename "$REF")
fi
cpu() { "$CPUTIME" "$@" | sed -n 's/^cpu_s=\([0-9.]*\) .*/\1/p'; }
# one sample of each row for build $1 named $2, run in directory $3: ms per bound call, ms per
# sweep point
sample() {
  # both rows without prediction intervals (issue 34's targets): builds since the interval work
  # add them to `bound` and to sweep rows by default; 9728551 has neither them nor the option
  nb=
  ns=
  "$1" bound --help 2>&1 | grep -q -- --no-interval && nb=--no-interval
  "$1" sweep --help 2>&1 | grep -q -- --no-interval && ns=--no-interval
  c=$(cd "$3" && cpu "$CALLS" "$1" bound $nb "$SCENARIO")
  echo "$2 bound_call_ms $(awk -v c="$c" -v n="$CALLS" 'BEGIN { printf "%.3f", 1000 * c / n }')" >> "$OUT"
  s=$(cd "$3" && cpu 1 "$1" sweep -q "$SWEEP" -j 1 $ns --out "$tmp/$2")
  echo "$2 sweep_point_ms $(awk -v c="$s" -v n="$POINTS" 'BEGIN { printf "%.4f", 1000 * c / n }')" >> "$OUT"
}
echo "bench-bound: load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
i=0
while [ "$i" -lt "$PAIRS" ]; do
  [ -n "$REF" ] && sample "$REF" ref "$REFDIR"
  sample "$NEW" new "$NEWDIR"
  i=$((i + 1))
done
echo "bench-bound: load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
# Table: medians over the samples, and the median of the pairs' ratios new / ref.
awk -v refname="ref $REFNAME" -v pairs="$PAIRS" -v calls="$CALLS" -v scen="$SCENARIO" -v sweep="$SWEEP" '
  function median(a, n,   i, j, t) {
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  { k = $1 SUBSEP $2; v[k, ++n[k]] = $3 }
  END {
    printf "ocasim bound %s (%d calls a sample) and sweep %s -j 1, no intervals, %d pairs, CPU time\n", scen, calls, sweep, pairs
    printf "%-22s | %12s | %12s | %13s | %s\n", "row (median)", refname, "this build", "new / ref", "this build: rate"
    split("bound_call_ms sweep_point_ms", rows, " ")
    for (r = 1; r <= 2; r++) {
      row = rows[r]; nn = n["new" SUBSEP row]; nr = n["ref" SUBSEP row]
      for (i = 1; i <= nn; i++) { a[i] = v["new" SUBSEP row, i] } ; mn = median(a, nn)
      mr = "-"; ratio = "-"
      if (nr > 0) {
        for (i = 1; i <= nr; i++) { a[i] = v["ref" SUBSEP row, i] } ; mr = sprintf("%.3f ms", median(a, nr))
        for (i = 1; i <= nn && i <= nr; i++) { b[i] = v["new" SUBSEP row, i] / v["ref" SUBSEP row, i] }
        ratio = sprintf("%.2fx", median(b, (nn < nr ? nn : nr)))
      }
      label = row == "bound_call_ms" ? "bound, per call" : "sweep -j 1, per point"
      rate = row == "bound_call_ms" ? sprintf("%.0f calls/s", 1000 / mn) : sprintf("%.0f points/s", 1000 / mn)
      printf "%-22s | %12s | %9.3f ms | %13s | %s\n", label, mr, mn, ratio, rate
    }
    print "(targets, issue 34, against 9728551: bound per call <= 1.2x; sweep >= 1000 points/s)"
  }' "$OUT"
