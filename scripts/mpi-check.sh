#!/bin/sh
# make mpi-check (CI): the MPI build (build/mpi/ocasim) under `mpirun -np 2 --oversubscribe` on
# localhost gives the same rows as the threaded run of the default build, for a bound sweep and a
# replicated run sweep: byte for byte as written (rank 0 writes in run order), and once sorted.
set -eu
THREADED=${1:-./ocasim}
MPIBIN=${2:-build/mpi/ocasim}
NP=${NP:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# root in a container (CI): Open MPI refuses it unless told
MPIRUN="mpirun --oversubscribe -np $NP"
[ "$(id -u)" = 0 ] && MPIRUN="$MPIRUN --allow-run-as-root"
for sweep in tests/data/sweep/small-bound.yaml tests/data/sweep/small-run.yaml; do
  name=$(basename "$sweep" .yaml)
  "$THREADED" sweep -q -j 2 "$sweep" --out "$tmp/$name-threads"
  $MPIRUN "$MPIBIN" sweep -q -j 1 "$sweep" --out "$tmp/$name-mpi"
  for ext in csv jsonl; do
    cmp "$tmp/$name-threads.$ext" "$tmp/$name-mpi.$ext"
    sort "$tmp/$name-threads.$ext" >"$tmp/a"
    sort "$tmp/$name-mpi.$ext" >"$tmp/b"
    cmp "$tmp/a" "$tmp/b"
  done
  echo "mpi-check: $sweep: $(($(wc -l <"$tmp/$name-mpi.csv") - 1)) rows, mpirun -np $NP = threads (csv, jsonl)"
done
