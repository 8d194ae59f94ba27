#!/bin/sh
# scripts/install-check.sh (make install-check, CI): the install story end to end.
#  1. make install DESTDIR=$tmp; the installed binary runs an installed scenario, and a scenario
#     of the user's that names only platforms/FILE finds the installed platform (OCASIM_DATADIR
#     points a staged installation at its data); the man page renders without warnings; the
#     completion file loads; make uninstall leaves nothing behind.
#  2. make dist; the tarball, unpacked in a directory without git, builds and reports the
#     version of its VERSION file.
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=/usr/local
dest=$tmp/dest
make --no-print-directory install DESTDIR="$dest" PREFIX="$prefix" >/dev/null
bin=$dest$prefix/bin/ocasim
data=$dest$prefix/share/ocasim
echo "install-check: installed $("$bin" --version) into $dest$prefix"
"$bin" run "$data/scenarios/rome-400g-nic-ktls.yaml" --duration "0.5 s" --warmup "0.1 s" --format json > "$tmp/run.json"
grep -q '"throughput_gbps"' "$tmp/run.json"
echo "install-check: installed binary ran the installed scenario rome-400g-nic-ktls.yaml"
mkdir "$tmp/user"
sed 's|^platform: .*|platform: platforms/rome-7502p.yaml|' "$data/scenarios/rome-400g-nic-ktls.yaml" > "$tmp/user/mine.yaml"
(cd "$tmp" && OCASIM_DATADIR=$data "$bin" bound user/mine.yaml > "$tmp/bound.txt")
grep -q 'bottleneck' "$tmp/bound.txt"
echo "install-check: a scenario elsewhere found platforms/rome-7502p.yaml under share/ocasim/platforms"
warn=$(groff -ww -z -man "$dest$prefix/share/man/man1/ocasim.1" 2>&1)
[ -z "$warn" ] || { echo "install-check: man page warnings: $warn"; exit 1; }
bash -c ". '$dest$prefix/share/bash-completion/completions/ocasim' && complete -p ocasim" >/dev/null
make --no-print-directory uninstall DESTDIR="$dest" PREFIX="$prefix" >/dev/null
left=$(find "$dest" ! -type d)
[ -z "$left" ] || { echo "install-check: make uninstall left: $left"; exit 1; }
echo "install-check: man page clean, completion loads, make uninstall removed every file"
make --no-print-directory dist >/dev/null
v=$(sh scripts/version.sh)
mkdir "$tmp/clean"
tar -xzf "build/ocasim-$v.tar.gz" -C "$tmp/clean"
(cd "$tmp/clean/ocasim-$v" && GIT_DIR=/nonexistent make -j2 >/dev/null 2>"$tmp/dist-build.log") ||
  { cat "$tmp/dist-build.log"; exit 1; }
got=$("$tmp/clean/ocasim-$v/ocasim" --version)
[ "$got" = "ocasim $v" ] || { echo "install-check: the dist build says '$got', not 'ocasim $v'"; exit 1; }
echo "install-check: build/ocasim-$v.tar.gz builds outside git and says '$got'"
