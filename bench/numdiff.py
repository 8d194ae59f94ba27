#!/usr/bin/env python3
"""Largest relative difference between the numbers of two sets of files (issue 34: every figure
within 1e-9 relative where the bound's arithmetic changes). Tokens that are not numbers must match
exactly. Usage: numdiff.py OLD NEW (files or directories, compared file by file)."""
import os, re, sys

NUM = re.compile(r'[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?')


def files(root):
    if os.path.isfile(root):
        return {'': root}
    out = {}
    for d, _, fs in os.walk(root):
        for f in fs:
            p = os.path.join(d, f)
            out[os.path.relpath(p, root)] = p
    return out


def main():
    a, b = files(sys.argv[1]), files(sys.argv[2])
    worst, where, nums, bad = 0.0, None, 0, 0
    for k in sorted(set(a) | set(b)):
        if k not in a or k not in b:
            print('only in one side:', k); bad += 1; continue
        ta, tb = open(a[k], errors='replace').read(), open(b[k], errors='replace').read()
        if NUM.sub('#', ta) != NUM.sub('#', tb):
            print('text differs beyond numbers:', k); bad += 1; continue
        for x, y in zip(NUM.findall(ta), NUM.findall(tb)):
            nums += 1
            fx, fy = float(x), float(y)
            if fx == fy: continue
            r = abs(fx - fy) / max(abs(fx), abs(fy))
            if r > worst: worst, where = r, (k, x, y)
    print(f'{nums} numbers compared, largest relative difference {worst:.3g}', where or '')
    sys.exit(1 if bad else 0)


main()
