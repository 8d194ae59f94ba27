#!/bin/sh
# bench/soak.sh — the DES soak row of `make bench` (bench/soak.mk): runs the release
# `ocasim run SCENARIO --duration D --warmup W` and samples its resident set size from
# /proc/PID/statm every INTERVAL seconds while it runs.  Flat means: after the first
# WARM % of the samples (the model's tables and the batch statistics being allocated), the
# largest sample exceeds the first one by at most BOUND %.  Prints one table row with OK or
# FAIL; exits 0 either way (a bench reports, it never fails), 1 only if ocasim itself failed.
# Usage: soak.sh OCASIM SCENARIO DURATION WARMUP INTERVAL_S WARM_PCT BOUND_PCT
set -u
bin=$1 scen=$2 dur=$3 warm=$4 interval=$5 warm_pct=$6 bound=$7
out=${TMPDIR:-/tmp}/ocasim-soak.$$
page=$(getconf PAGESIZE)
t0=$(date +%s%N)
"$bin" run "$scen" --duration "$dur" --warmup "$warm" > "$out" 2>&1 &
pid=$!
samples=""
while kill -0 "$pid" 2>/dev/null; do
  rss=$(awk '{ print $2 }' "/proc/$pid/statm" 2>/dev/null) && [ -n "$rss" ] && samples="$samples $rss"
  sleep "$interval"
done
wait "$pid"; rc=$?
t1=$(date +%s%N)
if [ $rc -ne 0 ]; then echo "NOTE ocasim run failed ($rc):"; cat "$out"; rm -f "$out"; exit 1; fi
thr=$(sed -n 's/^throughput: *\([0-9.]*\) Gb\/s.*/\1/p' "$out")
rm -f "$out"
echo "$samples" | awk -v page="$page" -v warm="$warm_pct" -v bound="$bound" -v wall_ns=$((t1 - t0)) \
  -v scen="$(basename "$scen" .yaml)" -v dur="$dur" -v thr="$thr" '{
  n = NF; if (n < 3) { printf "NOTE only %d RSS samples: run too short to judge\n", n; exit 0 }
  k = int(n * warm / 100) + 1; if (k >= n) k = n - 1
  first = $k; peak = first; for (i = k; i <= n; i++) if ($i > peak) peak = $i
  last = $n; growth = 100 * (peak - first) / first
  mib = page / 1048576
  printf "%-38s | %9s | %7.1f | %7d | %9.1f | %9.1f | %9.1f | %7.2f %% | %s (bound %s %%)\n", scen, dur, wall_ns / 1e9, n,
    first * mib, last * mib, peak * mib, growth, growth <= bound ? "OK" : "FAIL", bound
  if (thr != "") printf "  (throughput %s Gb/s)\n", thr
}'
exit 0
