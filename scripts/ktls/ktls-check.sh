#!/bin/sh
# ktls-check.sh [OCASIM] — the real kernel TLS serving path, in a virtual machine (issue 29).
#
# The machines that build ocasim have no TLS ULP, so `ocasim serve -m sendfile_ktls` always falls
# back to user space there.  This script boots Debian's own kernel (CONFIG_TLS=m) under QEMU and
# runs scripts/ktls/checks.sh inside it against the real kernel TLS:
#   1. the kernel image package that `linux-image-amd64` depends on, fetched with
#      `apt-get download` into build/ktls/debs (kept: later runs fetch nothing);
#   2. an initramfs: busybox (busybox-static), the ocasim binary and the libraries `ldd` lists,
#      the kernel's crypto, arch/x86/crypto, lib/crypto and net/tls modules (depmod -b), and
#      scripts/ktls/init + checks.sh;
#   3. qemu-system-x86_64 -accel tcg -cpu max -m 1024 -nographic, the guest's console on
#      stdout; the guest prints one line per check and "N passed, N failed", then powers off.
# The default is TCG; KTLS_ACCEL=kvm uses KVM only when a boot test shows that it works (the
# hosts' nested KVM hangs a stock kernel after the BIOS).  Every step has a timeout: a missing tool or package, a failed
# download, a guest that hangs or never prints its summary all end with a one-line reason and
# exit status 1.
# Environment: QEMU (the emulator, default qemu-system-x86_64), KTLS_KERNEL_PKG (the kernel
# image package, default the one linux-image-amd64 depends on), KTLS_TIMEOUT_S (the whole guest run, default 480), KTLS_ACCEL (tcg or kvm),
# KTLS_SMP (guest CPUs, default 2), KTLS_ONLY (a check-group filter passed to the guest: probe,
# fallback, matrix, ranges, stat, cases, validate), KTLS_DEBUG=1 (the guest prints more),
# KTLS_KEEP=1 (keep build/ktls/root).
set -u
bin=${1:-./ocasim}
top=$(cd "$(dirname "$0")/../.." && pwd)
cache=$top/build/ktls
timeout_s=${KTLS_TIMEOUT_S:-480}
accel=${KTLS_ACCEL:-tcg}
smp=${KTLS_SMP:-2}
t0=$(date +%s)
say() { echo "ktls-check: $*"; }
die() { echo "ktls-check: FAILED: $*"; exit 1; }

[ -x "$bin" ] || die "$bin: not an executable (make ocasim first)"
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
qemu=${QEMU:-qemu-system-x86_64}
command -v "$qemu" >/dev/null 2>&1 || die "$qemu is not installed (make deps installs qemu-system-x86)"
for t in cpio:cpio depmod:kmod timeout:coreutils dpkg-deb:dpkg; do
  command -v "${t%%:*}" >/dev/null 2>&1 || die "${t%%:*} is not installed (make deps installs ${t#*:})"
done
busybox=""
for b in /bin/busybox /usr/bin/busybox; do
  [ -x "$b" ] && LC_ALL=C ldd "$b" 2>&1 | grep -q 'not a dynamic' && busybox=$b && break
done
[ -n "$busybox" ] || die "no static busybox (make deps installs busybox-static)"

# ---- the kernel package ----------------------------------------------------------------
mkdir -p "$cache/debs" || die "cannot create $cache"
kernel_pkg() { timeout 60 apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\).*/\1/p' | head -n 1; }
pkg=${KTLS_KERNEL_PKG:-$(kernel_pkg)}
if [ -z "$pkg" ] && [ "$(id -u)" = 0 ] && ! ls "$cache/debs/"linux-image-[0-9]*.deb >/dev/null 2>&1; then
  say "no package index knows linux-image-amd64: apt-get update"
  timeout 300 apt-get update -qq >/dev/null 2>&1
  pkg=$(kernel_pkg)
fi
deb=""
if [ -n "$pkg" ]; then
  deb=$(ls "$cache/debs/${pkg}"_*.deb 2>/dev/null | tail -n 1)
  if [ -z "$deb" ]; then
    say "fetching $pkg (apt-get download, once; cached in build/ktls/debs)"
    (cd "$cache/debs" && timeout 300 apt-get download -q "$pkg" >/dev/null 2>"$cache/apt.err") ||
      die "apt-get download $pkg failed: $(tail -n 1 "$cache/apt.err")"
    deb=$(ls "$cache/debs/${pkg}"_*.deb 2>/dev/null | tail -n 1)
  fi
else
  deb=$(ls "$cache/debs/"linux-image-[0-9]*.deb 2>/dev/null | tail -n 1) # no package index: the cached one
fi
[ -n "$deb" ] && [ -s "$deb" ] || die "no kernel package: apt-cache knows no linux-image-amd64 and build/ktls/debs is empty (apt-get update?)"
kdir=$cache/kernel/$(basename "$deb" .deb)
if [ ! -f "$kdir/done" ]; then
  rm -rf "$kdir" && mkdir -p "$kdir" && dpkg-deb -x "$deb" "$kdir" && touch "$kdir/done" || die "cannot unpack $deb"
fi
kver=$(ls "$kdir/lib/modules" | head -n 1)
vmlinuz=$kdir/boot/vmlinuz-$kver
[ -f "$vmlinuz" ] || die "$deb has no boot/vmlinuz-$kver"

# ---- the initramfs ----------------------------------------------------------------------
root=$cache/root
rm -rf "$root" && mkdir -p "$root/bin" "$root/sbin" "$root/proc" "$root/sys" "$root/dev" "$root/tmp" "$root/etc" \
  "$root/lib/modules/$kver" "$root/usr/bin" || die "cannot create $root"
cp "$busybox" "$root/bin/busybox"
for a in $("$busybox" --list); do [ "$a" = busybox ] || ln -s busybox "$root/bin/$a"; done
for a in modprobe insmod rmmod lsmod poweroff; do ln -sf ../bin/busybox "$root/sbin/$a"; done
cp "$bin" "$root/bin/ocasim"
for lib in $(ldd "$bin" | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p'); do
  mkdir -p "$root$(dirname "$lib")" && cp -L "$lib" "$root$lib" || die "cannot copy $lib"
done
for d in crypto arch/x86/crypto lib/crypto net/tls; do
  mkdir -p "$root/lib/modules/$kver/kernel/$d" && cp -r "$kdir/lib/modules/$kver/kernel/$d/." "$root/lib/modules/$kver/kernel/$d/"
done
for f in modules.builtin modules.builtin.modinfo modules.order; do cp "$kdir/lib/modules/$kver/$f" "$root/lib/modules/$kver/" 2>/dev/null; done
depmod -b "$root" "$kver" || die "depmod -b failed"
cp "$top/scripts/ktls/init" "$root/init" && cp "$top/scripts/ktls/checks.sh" "$root/checks.sh" && chmod 755 "$root/init" "$root/checks.sh"
echo "root:x:0:0:root:/:/bin/sh" > "$root/etc/passwd"
printf 'KTLS_ONLY=%s\nKTLS_DEBUG=%s\n' "${KTLS_ONLY:-}" "${KTLS_DEBUG:-}" > "$root/etc/ktls-env"
initrd=$cache/initrd.gz
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1 > "$initrd") || die "cannot build the initramfs"
say "kernel $kver ($(basename "$deb")), initramfs $(du -k "$initrd" | cut -f1) KiB, $smp CPUs, guest timeout $timeout_s s"

# ---- boot and run the checks ------------------------------------------------------------
log=$cache/console.log
# boot ACCEL-OPTIONS SECONDS [EXTRA-KERNEL-ARGS]: the guest's console into $log, its ktls: lines on stdout
boot() {
  # -serial mon:stdio would let a stray Ctrl-A reach the monitor; the console is stdout only
  timeout -k 5 "$2" "$qemu" $1 -smp "$smp" -m 1024 -nographic -no-reboot -nic none -kernel "$vmlinuz" -initrd "$initrd" \
    -append "console=ttyS0 quiet loglevel=3 panic=-1 oops=panic ${3:-}" </dev/null 2>&1 |
    tr -d '\r' | tee "$log" | grep --line-buffered '^ktls:' | sed -u 's/^ktls: //'
}
acc="-accel tcg -cpu max"
if [ "$accel" = kvm ]; then
  # a stock kernel hangs after the BIOS on some nested (PVM) KVM hosts: KVM only when a boot
  # with no check (ktls_only=none) reaches its summary within 60 s, else TCG
  if [ -w /dev/kvm ] && boot "-accel kvm -cpu host" 60 ktls_only=none >/dev/null &&
    grep -q '^ktls: 0 passed, 0 failed$' "$log"; then
    acc="-accel kvm -cpu host"
    say "KVM boot test passed: using KVM"
  else
    say "KVM boot test failed (no /dev/kvm, or the guest did not reach its summary in 60 s): using TCG"
  fi
fi
boot "$acc" "$timeout_s"
[ "${KTLS_KEEP:-0}" = 1 ] || rm -rf "$root"
summary=$(sed -n 's/^ktls: \([0-9][0-9]* passed, [0-9][0-9]* failed\)$/\1/p' "$log" | tail -n 1)
secs=$(($(date +%s) - t0))
if [ -z "$summary" ]; then
  tail -n 20 "$log"
  die "the guest printed no summary within $timeout_s s (hung, panicked or killed; console in build/ktls/console.log), $secs s"
fi
failed=$(echo "$summary" | sed 's/.* passed, \([0-9]*\) failed/\1/')
[ "$failed" = 0 ] || die "$summary ($secs s; console in build/ktls/console.log)"
say "all checks passed: $summary in $secs s"
exit 0
