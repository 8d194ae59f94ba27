#!/usr/bin/env python3
"""scripts/check-layers.py -- who calls whom across source modules, from the objects' symbols.

Reads `nm` of every object under BUILD/{sim,models,serve,validate,cli} and their subfolders (make
check-layers builds them):
a file A calls file B when A's object has an undefined symbol that B's object defines. Files of
one module split in parts (sim/flow.c and sim/flow-*.c, sharing flow-private.h) count as one, the
module's name being the file's up to its first '-'. Then fails
(exit 1) on
  * an arrow against the layers cli -> validate -> serve -> models -> sim (a lower directory
    calling a higher one, e.g. models/ calling validate/; serve/, the serving stack, sits beside
    validate/ and below it, since the calibration drives it);
  * a call cycle among files (a strongly connected component of more than one file), unless the
    cycle is listed in scripts/layers-known-cycles.txt: there each line names the files of one
    knot that is known and due to be cut (issue 31); a knot that gains a file, or a new one,
    fails, and a listed knot that is gone is reported so the list can shrink.
--list prints every module's callees; --known=FILE reads the known knots from FILE; --self-test
checks on objects built in a temporary tree that both failures are caught.
"""
import os
import subprocess
import sys

LAYERS = ["sim", "models", "serve", "validate", "cli"]  # each may call only those before it (and itself)


def symbols(obj):
    out = subprocess.run(["nm", obj], check=True, capture_output=True, text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBRVW":  # global text, data, bss, rodata, weak
            defined.add(parts[2])
    return defined, undefined


def sccs(nodes, edges):
    """Tarjan's strongly connected components, iteratively; each sorted, sorted by first file."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out)


def self_test():
    """The check must fail where it should: objects built in a temporary tree with a sim/ file
    calling a file in a models/ subfolder, a serve/ file calling validate/, and two validate/
    files calling each other."""
    import tempfile
    srcs = {"sim/a": "int models_b(void); int sim_a(void) { return models_b(); }",
            "models/room/b": "int models_b(void) { return 1; }",
            "serve/f": "int val_c(void); int serve_f(void) { return val_c(); }",
            "validate/c": "int val_d(void); int val_c(void) { return val_d(); }",
            "validate/d": "int val_c(void); int val_d(void) { return val_c(); }",
            "cli/e": "int val_c(void); int main(void) { return val_c(); }"}
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in srcs.items():
            os.makedirs(os.path.join(tmp, os.path.dirname(name)), exist_ok=True)
            with open(os.path.join(tmp, name + ".c"), "w") as f:
                f.write(text + "\n")
            subprocess.run(["cc", "-c", "-o", os.path.join(tmp, name + ".o"), os.path.join(tmp, name + ".c")], check=True)
        out = subprocess.run([sys.executable, __file__, tmp, "--known=/dev/null"], capture_output=True, text=True)
    want = ["sim/a calls models/room/b", "serve/f calls validate/c", "call cycle among 2 modules: validate/c validate/d",
            "3 problems"]
    missing = [w for w in want if w not in out.stdout]
    if out.returncode != 1 or missing:
        print(out.stdout, end="")
        print(f"check-layers: self-test FAILED (exit {out.returncode}; missing: {missing})")
        return 1
    print("check-layers: self-test: an arrow against the layers and a cycle are both caught")
    return 0


def main(argv):
    if "--self-test" in argv:
        return self_test()
    build = "build/release"
    known_path = "scripts/layers-known-cycles.txt"
    for a in argv:
        if a.startswith("--known="):
            known_path = a[len("--known="):]
    args = [a for a in argv if not a.startswith("--")]
    if args:
        build = args[0]
    objs = {}
    for layer in LAYERS:
        d = os.path.join(build, layer)
        if not os.path.isdir(d):
            sys.exit(f"check-layers: {d}: no objects (build first: make check-layers builds them)")
        for sub, _, names in sorted(os.walk(d)):
            rel = os.path.relpath(sub, build)
            for name in sorted(names):
                if name.endswith(".o"):
                    objs.setdefault(f"{rel}/{name[:-2].split('-')[0]}", []).append(os.path.join(sub, name))
    owner, used = {}, {}
    for src, files in objs.items():
        used[src] = set()
        for obj in files:
            defined, undefined = symbols(obj)
            used[src] |= undefined
            for s in defined:
                owner.setdefault(s, src)
    edges = {src: {owner[s] for s in und if s in owner and owner[s] != src} for src, und in used.items()}
    if "--list" in argv:
        for src in sorted(edges):
            print(f"{src}: {' '.join(sorted(edges[src])) or '-'}")
    bad = 0
    rank = {layer: i for i, layer in enumerate(LAYERS)}
    for src in sorted(edges):
        for dst in sorted(edges[src]):
            a, b = src.split("/")[0], dst.split("/")[0]
            if rank[b] > rank[a]:
                print(f"check-layers: {src} calls {dst}: against the arrows cli -> validate -> serve -> models -> sim")
                bad += 1
    known = []
    if os.path.exists(known_path):
        with open(known_path) as f:
            known = [set(line.split()) for line in f if line.strip() and not line.startswith("#")]
    found = sccs(edges.keys(), edges)
    for comp in found:
        if any(set(comp) <= k for k in known):
            print(f"check-layers: known knot of {len(comp)} modules (to be cut): {' '.join(comp)}")
            continue
        print(f"check-layers: call cycle among {len(comp)} modules: {' '.join(comp)}")
        bad += 1
    for k in known:
        if not any(set(c) == k for c in found):
            print(f"check-layers: {known_path}: the knot {' '.join(sorted(k))} is no longer whole: shrink the list")
    n_edges = sum(len(e) for e in edges.values())
    print(f"check-layers: {len(edges)} modules, {n_edges} calls across modules, {bad} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
