#!/bin/sh
# make bench-sweep: `ocasim sweep` speed (a report; never fails on timing).
#   1. a 1000-point bound sweep on one thread (-j 1): points/s (target >= 1000)
#   2. the same points as a shell loop of `ocasim bound --set ...` (one process a point; 100 of them)
#   3. -j 2 against -j 1 for the bound sweep and for 8 discrete-event runs (target >= 1.8x)
#   4. the 8 discrete-event runs at -j 1 with --rate-precision $PRECISION (default 1e-1: the
#      DES's precision knob, bench/README.md bench-precision) against the exact ones
# Each figure is the median of REPS runs (default 5; 3 for the run points); the load average
# before and after is printed, since other work on the machine slows every figure.
set -eu
BIN=${1:-./ocasim}
REPS=${REPS:-5}
PRECISION=${PRECISION:-1e-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# arithmetic (awk: no bc needed)
calc() { awk "BEGIN { print $* }"; }
# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# wall seconds of one sweep
wall() {
  s=$(date +%s.%N)
  "$BIN" sweep -q --no-interval "$@" --out "$tmp/r" >/dev/null
  e=$(date +%s.%N)
  calc "$e - $s"
}
timed() { # reps, sweep args...
  n=$1; shift
  i=0; while [ $i -lt "$n" ]; do wall "$@"; i=$((i + 1)); done | median
}
echo "bench-sweep: load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
b1=$(timed "$REPS" sweeps/bench-bound-1000.yaml -j 1)
b2=$(timed "$REPS" sweeps/bench-bound-1000.yaml -j 2)
# the shell loop: 100 points, one process each
s=$(date +%s.%N)
for w in $(seq 1 25); do for o in 100 400 700 1000; do
  "$BIN" bound scenarios/milan-800g-dlwm-off-network-centric.yaml --set topology.links[0].width=$w \
    --set "workload.offered=$o Gb/s" --format csv --no-interval >/dev/null
done; done
e=$(date +%s.%N)
loop=$(calc "$e - $s")
r1=$(timed 3 sweeps/bench-run.yaml -j 1)
r2=$(timed 3 sweeps/bench-run.yaml -j 2)
rp=$(timed 3 sweeps/bench-run.yaml -j 1 --rate-precision "$PRECISION")
printf '%-44s %10s %12s\n' "measurement (median)" "wall s" "rate"
printf '%-44s %10.3f %9.0f /s\n' "bound, 1000 points, -j 1" "$b1" "$(calc "1000 / $b1")"
printf '%-44s %10.3f %9.0f /s\n' "bound, 1000 points, -j 2" "$b2" "$(calc "1000 / $b2")"
printf '%-44s %10.3f %9.0f /s\n' "bound, shell loop of ocasim bound, 100 points" "$loop" "$(calc "100 / $loop")"
printf '%-44s %10.3f %9.2f /s\n' "run (DES 2 s), 8 runs, -j 1" "$r1" "$(calc "8 / $r1")"
printf '%-44s %10.3f %9.2f /s\n' "run (DES 2 s), 8 runs, -j 2" "$r2" "$(calc "8 / $r2")"
printf '%-44s %10.3f %9.2f /s\n' "run (DES 2 s), 8 runs, -j 1, precision $PRECISION" "$rp" "$(calc "8 / $rp")"
printf 'speed-up -j 2 / -j 1: bound %.2fx, run %.2fx (target >= 1.8x on 2 idle cores)\n' \
  "$(calc "$b1 / $b2")" "$(calc "$r1 / $r2")"
printf 'run points, precision %s / exact at -j 1: %.2fx\n' "$PRECISION" "$(calc "$r1 / $rp")"
echo "bench-sweep: load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
