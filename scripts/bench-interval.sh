#!/bin/sh
# make bench-interval: the cost of the prediction intervals (models/modes/interval.h; a report,
# never fails on timing).
#   1. `ocasim bound` of every published-result scenario with intervals (the default, 256 draws)
#      and with --no-interval: wall seconds per scenario, median and largest (target < 0.5 s)
#   2. the 1000-point bound sweep (sweeps/bench-bound-1000.yaml) with intervals at -j 2
#      (target < 300 s)
# The load average before and after is printed: other work on the machine slows every figure.
set -eu
BIN=${1:-./ocasim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
calc() { awk "BEGIN { print $* }"; }
stats() { sort -g | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.3f %.3f\n", m, v[NR] }'; }
echo "bench-interval: load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
for f in scenarios/reference/*.yaml; do
  s=$(date +%s.%N); "$BIN" bound --format json "$f" >/dev/null; e=$(date +%s.%N); calc "$e - $s" >>"$tmp/with"
  s=$(date +%s.%N); "$BIN" bound --format json --no-interval "$f" >/dev/null; e=$(date +%s.%N); calc "$e - $s" >>"$tmp/without"
done
set -- $(stats <"$tmp/with"); wm=$1; wx=$2
set -- $(stats <"$tmp/without"); nm=$1; nx=$2
s=$(date +%s.%N)
"$BIN" sweep -q -j 2 sweeps/bench-bound-1000.yaml --out "$tmp/sweep" >/dev/null
e=$(date +%s.%N)
sw=$(calc "$e - $s")
printf '%-52s %10s %10s\n' "measurement" "median s" "largest s"
printf '%-52s %10.3f %10.3f\n' "ocasim bound, reference scenarios, with intervals" "$wm" "$wx"
printf '%-52s %10.3f %10.3f\n' "ocasim bound, reference scenarios, --no-interval" "$nm" "$nx"
printf '%-52s %10.1f\n' "sweep bench-bound-1000 with intervals, -j 2 (wall s)" "$sw"
echo "bench-interval: load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
