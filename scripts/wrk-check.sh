#!/bin/sh
# wrk-check.sh OCASIM — the validation server works with wrk (issue 4: "the server must also
# work with wrk over HTTPS"): `ocasim serve` on a free port, in each mode, under wrk for 2 s
# (whole files, then a Range), and both sides must report only 2xx responses and no errors.
# Exit 0 when every mode passed, 1 otherwise (and when wrk is missing: `make deps` installs it).
set -u
bin=${1:-./ocasim}
command -v wrk >/dev/null 2>&1 || { echo "wrk-check: wrk is not installed (make deps installs it)"; exit 1; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/ocasim-wrk-XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/root"
head -c 1048576 /dev/urandom > "$dir/root/f.bin"
fail=0
for mode in sendfile_ktls userspace sendfile; do
  scheme=https; [ "$mode" = sendfile ] && scheme=http
  for range in "" "bytes=1000-70999"; do
    "$bin" serve --root "$dir/root" --port 0 --mode "$mode" --duration 6 > "$dir/serve.out" 2> "$dir/serve.err" &
    pid=$!
    port=""
    for _ in $(seq 50); do
      port=$(sed -n 's|.* on https\{0,1\}://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$dir/serve.out" | head -n 1)
      [ -n "$port" ] && break
      sleep 0.1
    done
    if [ -z "$port" ]; then
      echo "wrk-check: $mode: the server did not start: $(cat "$dir/serve.err")"; fail=1; kill "$pid" 2>/dev/null; wait "$pid"; continue
    fi
    if [ -n "$range" ]; then
      wrk -t1 -c8 -d2s -H "Range: $range" "$scheme://127.0.0.1:$port/f.bin" > "$dir/wrk.out" 2>&1
    else
      wrk -t1 -c8 -d2s "$scheme://127.0.0.1:$port/f.bin" > "$dir/wrk.out" 2>&1
    fi
    wrc=$?
    kill -INT "$pid" 2>/dev/null; wait "$pid"
    reqs=$(sed -n 's/^ *\([0-9][0-9]*\) requests in.*/\1/p' "$dir/wrk.out")
    rate=$(sed -n 's/^Transfer\/sec: *//p' "$dir/wrk.out")
    served=$(grep '^served' "$dir/serve.out")
    label="$mode${range:+ Range $range}"
    if [ $wrc -ne 0 ] || [ -z "$reqs" ] || [ "$reqs" -eq 0 ] || grep -q 'Non-2xx\|Socket errors' "$dir/wrk.out" ||
       ! echo "$served" | grep -q ' 0 4xx'; then
      echo "wrk-check: $label: FAILED"; cat "$dir/wrk.out" "$dir/serve.out" "$dir/serve.err"; fail=1
    else
      echo "wrk-check: $label: $reqs requests, $rate, wrk saw no errors; server: $served"
    fi
  done
done
exit $fail
