#!/bin/sh
# make notebooks-check: every figure listed in LIST (lines "NOTEBOOK PNG"; # comments) exists under
# notebooks/figures/, is non-empty and is a PNG (its signature); exit 1 naming each that is not.
LIST=${1:-notebooks/figures.txt}
fail=0 n=0
while read -r nb png; do
  case "$nb" in '' | '#'*) continue ;; esac
  n=$((n + 1))
  f="notebooks/figures/$png"
  if [ ! -s "$f" ]; then
    echo "notebooks-check: $f (from notebooks/$nb) is missing or empty"
    fail=1
  elif [ "$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')" != "89504e470d0a1a0a" ]; then
    echo "notebooks-check: $f (from notebooks/$nb) is not a PNG"
    fail=1
  fi
done <"$LIST"
[ $fail = 0 ] && echo "notebooks-check: $n figures present, non-empty PNGs"
exit $fail
