#!/bin/sh
# placeholder: first boot
pass=0; fail=0
ok() { echo "ktls: ok   $1"; pass=$((pass + 1)); }
bad() { echo "ktls: FAIL $1: $2"; fail=$((fail + 1)); }
uname -r
modprobe tls && ok "modprobe tls" || bad "modprobe tls" "failed"
cat /proc/sys/net/ipv4/tcp_available_ulp
cat /proc/net/tls_stat
echo "ktls: $pass passed, $fail failed"
