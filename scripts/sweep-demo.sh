#!/bin/sh
# make sweep-demo: the 200-point 800G sweep (sweeps/demo-800g-200.yaml, discrete-event runs)
#   1. uninterrupted, into build/sweep-demo/full.*
#   2. again, killed (SIGKILL) once about a third of its rows are written, then rerun with --resume:
#      the rerun runs only the rest (its own count is printed) and its files equal the
#      uninterrupted run's byte for byte
#   3. both CSVs load in pandas with one row per point and the documented dtypes
set -eu
BIN=${1:-./ocasim}
PY=${PYTHON:-$( [ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3 )}
SWEEP=sweeps/demo-800g-200.yaml
out=build/sweep-demo
rm -rf "$out" && mkdir -p "$out"
echo "sweep-demo: load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
"$BIN" sweep "$SWEEP" --out "$out/full" 2>&1 | tail -1
"$BIN" sweep -q "$SWEEP" --out "$out/resumed" &
pid=$!
while :; do
  n=$( [ -f "$out/resumed.csv.part" ] && wc -l <"$out/resumed.csv.part" || echo 0)
  [ "$n" -gt 67 ] && break
  kill -0 "$pid" 2>/dev/null || { echo "sweep-demo: finished before the kill"; exit 1; }
  sleep 0.2
done
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
kept=$(($(wc -l <"$out/resumed.csv.part") - 1))
echo "sweep-demo: killed with $kept of 200 rows written (jsonl: $(wc -l <"$out/resumed.jsonl.part") lines)"
"$BIN" sweep "$SWEEP" --out "$out/resumed" --resume 2>&1 | tail -1
for ext in csv jsonl; do cmp "$out/full.$ext" "$out/resumed.$ext" && echo "sweep-demo: resumed.$ext = full.$ext (cmp)"; done
"$PY" scripts/check-sweep-csv.py "$out/full" 200
"$PY" scripts/check-sweep-csv.py "$out/resumed" 200
