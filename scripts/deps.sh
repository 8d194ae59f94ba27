#!/bin/sh
# Installs the Debian packages ocasim needs to build, test and benchmark, when any is missing
# (python3-jsonschema/yaml: the JSON Schema test; bash-completion: the completion test;
# groff-base: the man page test; locales: the de_DE locale the number-format test builds).
# As root it runs apt-get; otherwise it prints the exact command to run.
# clang-14, libclang-rt-14-dev, llvm-14: make fuzz (libFuzzer, llvm-symbolizer)
# libopenmpi-dev, openmpi-bin: make MPI=1 and make mpi-check; python3-*, jupyter-nbconvert: make notebooks
# qemu-system-x86, busybox-static, cpio, kmod: make ktls-check (the kernel image it boots is fetched
# there with apt-get download, not installed)
PKGS="build-essential pkg-config libglib2.0-dev libgsl-dev libyaml-dev libssl-dev libjson-glib-dev check valgrind g++ libns3-dev wrk clang-format python3-jsonschema python3-yaml bash-completion groff-base locales
      clang-14 libclang-rt-14-dev llvm-14 libopenmpi-dev openmpi-bin python3-pandas python3-matplotlib jupyter-nbconvert python3-ipykernel
      qemu-system-x86 busybox-static cpio kmod"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && { echo "deps: all packages present"; exit 0; }
cmd="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" = 0 ]; then
  echo "deps: installing$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && $cmd
else
  echo "deps: missing packages; run as root:"
  echo "  apt-get update && $cmd"
  exit 1
fi
