#!/bin/sh
# checks.sh [FILTER] — the kTLS checks, run as root inside the VM that scripts/ktls/ktls-check.sh
# boots (Debian's kernel, CONFIG_TLS=m, busybox userland, loopback only).  One line per check,
# "ktls: ok   NAME" or "ktls: FAIL NAME: why", then "ktls: N passed, N failed".  FILTER (a
# substring of the check names' group: probe, fallback, matrix, ranges, stat, cases, validate)
# runs only the groups that contain it.  Each check names the kernel behaviour it exercises;
# BC-nn are the entries of ktls_bug_cases.md (public bug reports of this path).
only=${1:-}
echo # the firmware's last escape sequence ends this line, not the first ktls: one
pass=0
fail=0
kver=$(uname -r)
W=/tmp/www
S=/tmp/serve
ok() { echo "ktls: ok   $1"; pass=$((pass + 1)); }
bad() { echo "ktls: FAIL $1: $2"; fail=$((fail + 1)); }
want() { [ -z "$only" ] || case "$1" in *"$only"*) return 0 ;; *) return 1 ;; esac; }
tls_stat() { awk -v k="$1" '$1 == k { print $2 }' /proc/net/tls_stat 2>/dev/null || echo 0; }
oneline() { tr '\n' ' ' < "$1" | cut -c1-400; }

# serve MODE: starts `ocasim serve` in the background on a free port ($port); FALSE if it does not start
serve() {
  ocasim serve -r $W -p 0 -m "$1" -d 900 > $S.out 2> $S.err &
  spid=$!
  port=""
  for _ in $(seq 100); do
    port=$(sed -n 's|.* on https\{0,1\}://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' $S.out | head -n 1)
    [ -n "$port" ] && return 0
    sleep 0.1
  done
  return 1
}
# unserve: SIGINT, then at most 20 s for the summary (a hung worker is killed and reported)
unserve() {
  kill -INT "$spid" 2>/dev/null
  for _ in $(seq 200); do kill -0 "$spid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$spid" 2>/dev/null; then kill -9 "$spid"; echo "serve did not stop within 20 s" >> $S.err; fi
  wait "$spid" 2>/dev/null
}
# load ARGS: ocasim load against $port with SHA-256 of every body, bounded; output in /tmp/load.out
load() { timeout 120 ocasim load -p "$port" -r $W --timeout 30 "$@" > /tmp/load.out 2>&1; }
# the TlsTxSw oracle: the kernel counted exactly $2 new software kTLS TX sockets since $1
txsw_check() {
  d=$(($(tls_stat TlsTxSw) - $1))
  [ "$d" -eq "$2" ] && return 0
  echo "TlsTxSw rose by $d, expected $2 (one per connection served)"
  return 1
}

# ---- files: sizes straddling TLS records (16 KiB) and pages (4 KiB) --------------------
mkdir -p $W
: > $W/f0.bin
for n in 1 4095 4097 16383 16384 16385 65537 1048579; do head -c $n /dev/urandom > $W/f$n.bin; done
head -c 16777216 /dev/urandom > $W/f16m.bin
FILES="-P /f0.bin -P /f1.bin -P /f4095.bin -P /f4097.bin -P /f16383.bin -P /f16384.bin -P /f16385.bin -P /f65537.bin -P /f1048579.bin -P /f16m.bin"
NFILES=10
echo "ktls: guest: kernel $kver, $(grep -c ^processor /proc/cpuinfo) CPUs, $(awk '/MemTotal/ {print $2}' /proc/meminfo) kB"

# ---- 1. only tls.ko: no AEAD in the kernel ------------------------------------------------
echo /bin/false > /proc/sys/kernel/modprobe # the kernel may not load gcm(aes) on demand
insmod /lib/modules/$kver/kernel/net/tls/tls.ko
if want fallback; then
  ocasim validate --probe > /tmp/probe0.out 2>&1
  if grep -q '^ULP tls: attached' /tmp/probe0.out && grep -q '^TLS_TX 1.2 aes-128-gcm: refused ENOENT' /tmp/probe0.out &&
    grep -q '^reason: .*no gcm(aes) AEAD' /tmp/probe0.out; then
    ok "probe, tls.ko without its AEAD modules: ULP attaches, TLS_TX refused with ENOENT, reason '$(sed -n 's/^reason: //p' /tmp/probe0.out)'"
  else
    bad "probe, tls.ko without its AEAD modules" "$(oneline /tmp/probe0.out)"
  fi
  t0=$(tls_stat TlsTxSw)
  if serve sendfile_ktls; then
    load $FILES -c 2 -n $NFILES
    lrc=$?
    unserve
    if [ $lrc -eq 0 ] && grep -q 'kTLS: engaged on 0 of 2 connections, user-space TLS on 2 (kernel TLS unavailable: TLS_TX' $S.out &&
      grep -q 'sendfile_ktls serves the same bytes in user space' $S.err; then
      ok "serve -m sendfile_ktls without gcm(aes): every body right, falls back visibly: '$(grep '^kTLS:' $S.out | cut -d';' -f1)'"
    else
      bad "serve -m sendfile_ktls without gcm(aes) falls back visibly" "load rc $lrc: $(oneline /tmp/load.out) $(oneline $S.out) $(oneline $S.err)"
    fi
    # a test of the test: the TlsTxSw oracle must reject this user-space run
    if msg=$(txsw_check "$t0" 2); then
      bad "test of the test: the TlsTxSw check rejects a user-space run" "it passed on a run the kernel did not encrypt"
    else
      ok "test of the test: the TlsTxSw check FAILS on the fallback run, as it must ($msg)"
    fi
  else
    bad "serve -m sendfile_ktls without gcm(aes)" "did not start: $(oneline $S.err)"
  fi
fi

# ---- 2. the AEAD modules -------------------------------------------------------------------
echo /sbin/modprobe > /proc/sys/kernel/modprobe
for m in gcm ghash-clmulni-intel aesni-intel chacha20poly1305 chacha-x86_64 poly1305-x86_64; do modprobe "$m" 2>/dev/null; done
mods=$(lsmod | awk 'NR > 1 { print $1 }' | sort | tr '\n' ' ')
if want probe; then
  ocasim validate --probe > /tmp/probe.out 2>&1
  grep -q '^ULP tls: attached' /tmp/probe.out && ok "probe: TCP_ULP \"tls\" attaches (modules: $mods)" || bad "probe: ULP" "$(oneline /tmp/probe.out)"
  for v in 1.2 1.3; do
    for c in aes-128-gcm aes-256-gcm chacha20-poly1305; do
      if grep -q "^TLS_TX $v $c: accepted" /tmp/probe.out && grep -q "^TLS_RX $v $c: accepted" /tmp/probe.out; then
        ok "probe: TLS_TX and TLS_RX accepted for TLS $v $c"
      else
        bad "probe: TLS_TX/TLS_RX TLS $v $c" "$(grep " $v $c:" /tmp/probe.out | tr '\n' ' ')"
      fi
    done
  done
  grep -q '^OpenSSL kTLS: compiled yes, engaged yes' /tmp/probe.out && ok "probe: OpenSSL engages kTLS (BIO_get_ktls_send true after a loopback handshake)" ||
    bad "probe: OpenSSL engages kTLS" "$(oneline /tmp/probe.out)"
  if grep -q '^emulated cpu: yes' /tmp/probe.out; then
    ok "probe: the CPU is emulated ($(sed -n 's/^hypervisor: //p' /tmp/probe.out)): timings not usable for calibration"
  elif grep -q '^hypervisor: KVM' /tmp/probe.out; then
    ok "probe: hypervisor KVM detected ($(sed -n 's/^hypervisor: //p' /tmp/probe.out))"
  else
    bad "probe: emulated CPU / hypervisor detected" "$(oneline /tmp/probe.out)"
  fi
fi

# ---- 3. sendfile_ktls under load -r: every version x cipher, sizes, keep-alive / close -----
if want matrix || want ranges || want stat; then
  if serve sendfile_ktls; then
    total=0
    for v in 1.2 1.3; do
      for c in aes-128-gcm aes-256-gcm chacha20-poly1305; do
        want matrix || continue
        t0=$(tls_stat TlsTxSw)
        load $FILES --tls-version $v --cipher $c -c 1 -n $NFILES
        lrc=$?
        if [ $lrc -eq 0 ] && grep -q "TLS $v $c" /tmp/load.out && msg=$(txsw_check "$t0" 1); then
          ok "TLS $v $c, keep-alive: $NFILES files 0 B..16 MiB on 1 connection, every SHA-256 right, TlsTxSw +1"
        else
          bad "TLS $v $c, keep-alive" "rc $lrc ${msg:-} $(oneline /tmp/load.out)"
        fi
        total=$((total + 1))
        t0=$(tls_stat TlsTxSw)
        load -P /f16385.bin -P /f0.bin -P /f1048579.bin --tls-version $v --cipher $c -c 1 -n 3 --close
        lrc=$?
        if [ $lrc -eq 0 ] && msg=$(txsw_check "$t0" 3); then
          ok "TLS $v $c, Connection: close: 3 connections, every SHA-256 right, TlsTxSw +3"
        else
          bad "TLS $v $c, Connection: close" "rc $lrc ${msg:-} $(oneline /tmp/load.out)"
        fi
        total=$((total + 3))
      done
    done
    if want ranges; then
      for r in 0-0 4095-4096 16383-16384 16384-32767 1-70000 16385-1048578 1048575-16777215 16777215-16777215; do
        t0=$(tls_stat TlsTxSw)
        load -P /f16m.bin --range $r --tls-version 1.3 -c 1 -n 2
        lrc=$?
        if [ $lrc -eq 0 ] && msg=$(txsw_check "$t0" 1); then ok "TLS 1.3 Range bytes=$r of 16 MiB (record/page boundaries): SHA-256 right, TlsTxSw +1"; else bad "Range bytes=$r" "rc $lrc ${msg:-} $(oneline /tmp/load.out)"; fi
        total=$((total + 1))
      done
    fi
    if want stat; then # TlsCurrTxSw: the kTLS sockets open now (server side; the client is user space)
      c0=$(tls_stat TlsCurrTxSw)
      t0=$(tls_stat TlsTxSw)
      timeout 120 ocasim load -p "$port" -r $W -P /f16m.bin -c 2 -n 3 > /tmp/load.out 2>&1 &
      lp=$!
      max=$c0
      while kill -0 $lp 2>/dev/null; do
        cur=$(tls_stat TlsCurrTxSw)
        [ "$cur" -gt "$max" ] && max=$cur
        sleep 0.05
      done
      wait $lp
      lrc=$?
      sleep 0.5
      c1=$(tls_stat TlsCurrTxSw)
      if [ $lrc -eq 0 ] && [ $((max - c0)) -eq 2 ] && [ "$c1" -eq "$c0" ] && txsw_check "$t0" 2 > /dev/null; then
        ok "TlsCurrTxSw rose by 2 while 2 connections were served (max $max, back to $c1 after), TlsTxSw +2"
      else
        bad "TlsCurrTxSw follows the open kTLS connections" "rc $lrc, before $c0, max $max, after $c1; $(oneline /tmp/load.out)"
      fi
      total=$((total + 2))
    fi
    unserve
    eng=$(sed -n 's/^kTLS: engaged on \([0-9]*\) of \([0-9]*\) connections.*/\1 \2/p' $S.out)
    if [ "$eng" = "$total $total" ]; then
      ok "serve summary: kTLS engaged on all $total connections, matching the kernel's TlsTxSw"
    else
      bad "serve summary: kTLS on every connection" "expected $total of $total: $(grep '^kTLS' $S.out)"
    fi
  else
    bad "serve -m sendfile_ktls" "did not start: $(oneline $S.err)"
  fi
  # a test of the test: the same load with serve forced to user space must fail the TlsTxSw oracle
  if want stat && serve userspace; then
    t0=$(tls_stat TlsTxSw)
    load $FILES -c 2 -n $NFILES
    lrc=$?
    unserve
    if msg=$(txsw_check "$t0" 2); then
      bad "test of the test: TlsTxSw check with serve -m userspace" "passed (delta matched) although user space encrypted"
    elif [ $lrc -eq 0 ]; then
      ok "test of the test: serve -m userspace serves every body right and the TlsTxSw check FAILS as it must ($msg)"
    else
      bad "test of the test: user-space run" "load rc $lrc $(oneline /tmp/load.out)"
    fi
  fi
fi

# ---- 4. the cases kernels and libraries got wrong ------------------------------------------
if want cases; then
  if serve sendfile_ktls; then
    cs() { timeout 90 ocasim load -p "$port" -r $W --timeout 20 "$@" > /tmp/case.out 2>&1; }
    cs -P /f16m.bin --tls-version 1.3 --case keyupdate && ok "BC-14 TLS 1.3 KeyUpdate from the client (this kernel has no TLS_TX rekey): $(cat /tmp/case.out)" ||
      bad "BC-14 KeyUpdate under kTLS TX" "$(oneline /tmp/case.out)"
    for v in 1.2 1.3; do
      cs -P /f1048579.bin --tls-version $v --case close-notify && ok "BC-21 close_notify through kTLS (an alert record via TLS_SET_RECORD_TYPE), TLS $v: $(cat /tmp/case.out)" ||
        bad "BC-21 close_notify TLS $v" "$(oneline /tmp/case.out)"
    done
    cs -P /f16m.bin --case reset && ok "BC-03/04 client RST mid-SSL_sendfile (the kernel's splice returns the error, no endless loop): $(cat /tmp/case.out)" ||
      bad "BC-03/04 client reset mid-sendfile" "$(oneline /tmp/case.out)"
    cp $W/f16m.bin $W/trunc.bin
    cs -P /trunc.bin --case truncate && ok "BC-12 file truncated during SSL_sendfile (the kernel's splice gives 0 at the new EOF): $(cat /tmp/case.out)" ||
      bad "BC-12 truncated file" "$(oneline /tmp/case.out)"
    wmem=$(cat /proc/sys/net/ipv4/tcp_wmem)
    echo "4096 16384 65536" > /proc/sys/net/ipv4/tcp_wmem # a 64 KiB send buffer: a 256 KiB SSL_sendfile cannot fit
    cs -P /f16m.bin --case slow && ok "BC-06/09/11 kTLS sendfile on a full 64 KiB socket buffer (partial sends, EAGAIN, resume at the offset): $(cat /tmp/case.out)" ||
      bad "BC-06/09/11 EAGAIN on a full socket buffer" "$(oneline /tmp/case.out)"
    echo "$wmem" > /proc/sys/net/ipv4/tcp_wmem
    unserve
    sum=$(cat $S.out)
    n_rekey=$(sed -n 's/.*; \([0-9]*\) closed after a client TLS 1.3 KeyUpdate.*/\1/p' $S.out)
    n_eagain=$(sed -n 's/.*; \([0-9]*\) sends met a full socket buffer.*/\1/p' $S.out)
    n_abort=$(sed -n 's/.* \([0-9]*\) client aborts.*/\1/p' $S.out)
    n_trunc=$(sed -n 's/.* \([0-9]*\) truncated files.*/\1/p' $S.out)
    [ "${n_rekey:-0}" -eq 1 ] && grep -q 'kernel TLS cannot rekey TX' $S.err && ok "BC-14 server: 1 connection closed after the KeyUpdate, logged ('kernel TLS cannot rekey TX')" ||
      bad "BC-14 server side" "rekey closes ${n_rekey:-?}: $(oneline $S.err)"
    [ "${n_abort:-0}" -ge 1 ] && ok "BC-03 server: the reset counted as a client abort ($n_abort)" || bad "BC-03 server side" "client aborts ${n_abort:-?}"
    [ "${n_trunc:-0}" -eq 1 ] && grep -q 'trunc.bin truncated at' $S.err && ok "BC-12 server: '$(grep -o 'trunc.bin truncated at [0-9]* of [0-9]*' $S.err)'" ||
      bad "BC-12 server side" "truncated files ${n_trunc:-?}: $(oneline $S.err)"
    [ "${n_eagain:-0}" -ge 1 ] && ok "BC-06 server: $n_eagain SSL_sendfile calls met EAGAIN and resumed through epoll" || bad "BC-06 server side" "no EAGAIN seen: $sum"
  else
    bad "serve for the cases" "did not start: $(oneline $S.err)"
  fi
fi

# ---- 5. ocasim validate --quick on the emulated CPU ------------------------------------------
if want validate; then
  rm -rf $W # the guest's /tmp is its RAM: room for validate's files and buffers
  t0=$(tls_stat TlsTxSw)
  timeout 300 ocasim validate --quick -d 2 -w 0.5 --out /tmp/val --keep-nice --progress > /tmp/val.out 2>&1
  vrc=$?
  [ -n "${KTLS_DEBUG:-}" ] && sed "s/^/ktls: # /" /tmp/val.out
  j=/tmp/val/report.json
  if [ $vrc -eq 0 ] && [ -s $j ]; then
    nk=$(grep -c '"tls_path" : "kernel TLS"' $j 2>/dev/null)
    nu=$(grep -c 'kTLS asked for, not engaged' $j 2>/dev/null)
    if [ "${nk:-0}" -ge 1 ] && [ "${nu:-0}" -eq 0 ] && [ $(($(tls_stat TlsTxSw) - t0)) -ge 1 ]; then
      ok "validate --quick: its kTLS runs ran with kTLS engaged ($nk rows 'kernel TLS', none fell back; TlsTxSw +$(($(tls_stat TlsTxSw) - t0)))"
    else
      bad "validate --quick: kTLS engaged in its kTLS runs" "exit $vrc, kernel-TLS rows ${nk:-0}, fallback rows ${nu:-0}: $(oneline /tmp/val.out)"
    fi
    if grep -q '"emulated_cpu" : true' $j && grep -q '"timings_usable_for_calibration" : false' $j &&
      grep -q '"error" : "not fitted: every timing comes from an emulated CPU' $j && grep -q 'NOT usable for calibration' /tmp/val/report.md &&
      [ ! -e /tmp/val/host-profile.yaml ] && [ -s /tmp/val/host-profile.rejected.yaml ]; then
      ok "validate --quick: the report marks every timing as from an emulated CPU, not usable for calibration, fits nothing, writes no host-profile.yaml"
    else
      bad "validate --quick: emulated-CPU timings marked unusable" "$(grep -E '"emulated_cpu"|usable_for|"error"' $j | tr '\n' ' ') $(ls /tmp/val)"
    fi
  else
    bad "validate --quick in the VM" "exit $vrc: $(grep -v '^validate: ' /tmp/val.out | tail -n 4 | tr '\n' ' ')"
  fi
fi

echo "ktls: $pass passed, $fail failed"
