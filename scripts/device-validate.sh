#!/bin/sh
# scripts/device-validate.sh — the prepared calibration run for a lent device machine (16 cores,
# 128 GiB; the device tool of the development sessions). Not part of CI and not run by `make`.
#
#   run (device tool), timeout_s 540:  sh scripts/device-validate.sh
#
# What it does, in about 6 minutes of its 10-minute command limit:
#   1 builds ocasim there (make -j16 ocasim) unless a carried ./ocasim runs;
#   2 `ocasim validate --quick` over loopback: probe, microbenchmarks, the quick table, the fit,
#     host-platform.yaml with the measured costs, report-resources.md (DRAM traffic from the
#     uncore PMU where the machine exposes one: root there);
#   3 `ocasim validate --clients` against two client network namespaces over veth pairs
#     (scripts/netns-clients.sh; the server in a namespace of its own), --quick table;
#   4 copies every report into $OUT (the tool brings $OUT back) with the machine's lscpu,
#     numactl -H and /proc/meminfo.
# Each step is bounded by `timeout`; a failed step is recorded in $OUT/steps.txt and the next runs.
# Nothing leaves the machine: every address used is loopback or in the namespaces made here.
set -u
OUT=${OUT:-/tmp/device-validate-out}
mkdir -p "$OUT"
steps="$OUT/steps.txt"
: >"$steps"
step() { # name, seconds, command...
  name=$1 secs=$2
  shift 2
  start=$(date +%s)
  timeout "$secs" "$@" >"$OUT/$name.log" 2>&1
  rc=$?
  echo "$name rc=$rc $(($(date +%s) - start)) s" >>"$steps"
  return $rc
}
{ lscpu; echo; numactl -H 2>/dev/null; echo; head -3 /proc/meminfo; uname -a; } >"$OUT/machine.txt" 2>&1
if ! ./ocasim --version >/dev/null 2>&1; then
  step build 240 make -j16 ocasim || { echo "no ocasim: see build.log" >>"$steps"; exit 1; }
fi
step loopback 240 ./ocasim validate --quick --progress --out "$OUT/loopback"
P=dv$$
if sh scripts/netns-clients.sh up $P 50 2 server >"$OUT/netns.log" 2>&1; then
  step remote 120 ip netns exec ${P}s ./ocasim validate --quick --progress --clients ${P}a,${P}b \
    --client-exec 'ip netns exec {}' --client-ocasim "$PWD/ocasim" --server-addr 10.213.50.1 \
    --net-if ${P}ah,${P}bh --costs "$OUT/loopback/host-costs.yaml" --out "$OUT/remote"
  sh scripts/netns-clients.sh down $P 2 server
else
  echo "remote: network namespaces cannot be made here (netns.log)" >>"$steps"
fi
cat "$steps"
