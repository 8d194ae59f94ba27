#!/bin/sh
# Prints the version of this source tree: the VERSION file of a release tarball (make dist
# writes it) or, in a git checkout, `git describe --tags --always --dirty`; "unknown" when
# neither is there.
if [ -f VERSION ]; then
  head -n 1 VERSION
elif v=$(git describe --tags --always --dirty 2>/dev/null) && [ -n "$v" ]; then
  echo "$v"
else
  echo unknown
fi
