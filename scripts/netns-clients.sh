#!/bin/sh
# scripts/netns-clients.sh — client "machines" for `ocasim validate --clients` on one host:
# network namespaces joined by veth pairs to a bridge on the server's side, so the load crosses
# a real (virtual) interface instead of loopback. Needs root (ip netns, ip link). Only the
# addresses it creates are used: 10.213.NET.1 for the server, 10.213.NET.2.. for the clients.
#   sh scripts/netns-clients.sh up   PREFIX NET CLIENTS [server]   # namespaces PREFIXa, PREFIXb, ...
#   sh scripts/netns-clients.sh down PREFIX CLIENTS [server]
# With "server" the server side is a namespace of its own, PREFIXs (run validate in it with
# `ip netns exec PREFIXs ...`): its loopback then carries nothing but the run's twin, so its
# counters can be compared with the veths'. Without it the bridge is on this host.
# Names: the server-side veth ends PREFIX + letter + "h", the bridge PREFIX + "br0" (no client
# end's name is a prefix of it, so `--net-if PREFIXah,PREFIXbh` counts each byte once).
set -eu
cmd=${1:-} prefix=${2:-}
letters="a b c d e f g h"
if [ "$cmd" = up ]; then
  net=$3 n=$4 srv=${5:-}
  on=""
  if [ -n "$srv" ]; then
    ip netns add "${prefix}s"
    on="-n ${prefix}s"
    ip $on link set lo up
  fi
  ip $on link add "${prefix}br0" type bridge
  ip $on link set "${prefix}br0" up
  ip $on addr add "10.213.$net.1/24" dev "${prefix}br0"
  i=0
  for c in $letters; do
    [ $i -lt "$n" ] || break
    i=$((i + 1))
    ns="$prefix$c"
    ip netns add "$ns"
    ip link add "${ns}h" type veth peer name "${ns}c"
    ip link set "${ns}c" netns "$ns"
    [ -z "$srv" ] || ip link set "${ns}h" netns "${prefix}s"
    ip $on link set "${ns}h" master "${prefix}br0" up
    ip -n "$ns" addr add "10.213.$net.$((i + 1))/24" dev "${ns}c"
    ip -n "$ns" link set "${ns}c" up
    ip -n "$ns" link set lo up
  done
elif [ "$cmd" = down ]; then
  n=$3 srv=${4:-} i=0
  for c in $letters; do
    [ $i -lt "$n" ] || break
    i=$((i + 1))
    ip netns del "$prefix$c" 2>/dev/null || true
    ip link del "$prefix${c}h" 2>/dev/null || true
  done
  ip link del "${prefix}br0" 2>/dev/null || true
  [ -z "$srv" ] || ip netns del "${prefix}s" 2>/dev/null || true
else
  echo "usage: $0 up PREFIX NET CLIENTS [server] | down PREFIX CLIENTS [server]" >&2
  exit 2
fi
