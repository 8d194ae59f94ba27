#!/usr/bin/env python3
"""scripts/check-where-to-add.py -- keeps docs/architecture.md's "Where to add" honest.

Adding a component to the appliance touches its own models/appliance/NAME.{c,h}, its test and one
line of the component list (models/appliance/components.h). This fails (exit 1) when that stops
being true of the tree and its objects (BUILD, default build/release; make check-layers runs it):
  * the list: each X(name, resource, check) line names models/appliance/NAME.c, which defines
    `const AppComponent NAME_component`; both columns number 0..N-1 once; every component defined
    under models/ is listed;
  * nobody else names a component: NAME_component is referenced by the list's object alone, and no
    source file but its own and the list's names it (tests/ included);
  * demand.c and the loader reach components through hooks and the list: their objects call no
    function of a component's object (data such as schema rows is the list's business), but for
    the platform's geometry in GEOMETRY below;
  * docs/architecture.md has a "Where to add" section naming components.h, and every path it
    names exists.
--self-test runs the list checks on a broken list.
"""
import os
import re
import subprocess
import sys

LIST = "models/appliance/components.h"
# Functions of a component demand.c and the loader may call by name: the NUMA geometry every
# placement is counted in (the node count), read before any component has added a resource.
GEOMETRY = {"topo_nodes"}
HOOK_ONLY = ["models/appliance/demand", "models/appliance/loader"]


def list_entries(text):
    return [(m.group(1), int(m.group(2)), int(m.group(3))) for m in re.finditer(r"X\((\w+), (\d+), (\d+)\)", text)]


def check_list(entries, defined):
    bad = []
    n = len(entries)
    for col, what in ((1, "resource"), (2, "check")):
        if sorted(e[col] for e in entries) != list(range(n)):
            bad.append(f"{LIST}: the {what} column does not number 0..{n - 1} once")
    names = [e[0] for e in entries]
    for name in names:
        if defined.get(name) != f"models/appliance/{name}.c":
            bad.append(f"{LIST}: {name}: no models/appliance/{name}.c defines `const AppComponent {name}_component`")
    for name in sorted(set(defined) - set(names)):
        bad.append(f"{defined[name]}: {name}_component is not in {LIST}")
    return bad


def defined_components(root):
    """name -> file of every `const AppComponent NAME_component` under models/."""
    out = {}
    for sub, _, files in os.walk(os.path.join(root, "models")):
        for f in sorted(files):
            if f.endswith(".c"):
                path = os.path.join(sub, f)
                for m in re.finditer(r"^const AppComponent (\w+)_component\b", open(path).read(), re.M):
                    out[m.group(1)] = os.path.relpath(path, root)
    return out


def nm(obj):
    out = subprocess.run(["nm", obj], check=True, capture_output=True, text=True).stdout
    funcs, data, undef = set(), set(), set()
    for line in out.splitlines():
        p = line.split()
        if len(p) == 2 and p[0] == "U":
            undef.add(p[1])
        elif len(p) == 3 and p[1] in "TW":
            funcs.add(p[2])
        elif len(p) == 3 and p[1] in "DBRV":
            data.add(p[2])
    return funcs, data, undef


def check_sources(root, names):
    """No source names NAME_component but its own file and the list (a use the compiler folds away
    leaves no symbol for check_objects to see)."""
    bad = []
    pat = re.compile(r"\b(" + "|".join(re.escape(n) for n in names) + r")_component\b")
    allowed = {LIST, "models/appliance/appliance.c"}
    for top in ("sim", "models", "serve", "validate", "cli", "tests", "bench", "fuzz"):
        for sub, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                path = os.path.relpath(os.path.join(sub, f), root)
                if not f.endswith((".c", ".h")) or path in allowed:
                    continue
                for m in pat.finditer(open(path, errors="replace").read()):
                    if path not in (f"models/appliance/{m.group(1)}.c", f"models/appliance/{m.group(1)}.h"):
                        bad.append(f"{path} names {m.group(1)}_component: only the list (appliance.c, {LIST}) may")
    return bad


def check_objects(build, names):
    bad = []
    objs = {}
    for top in ("sim", "models", "serve", "validate", "cli"):
        for sub, _, files in os.walk(os.path.join(build, top)):
            for f in files:
                if f.endswith(".o"):
                    objs[os.path.relpath(os.path.join(sub, f), build)[:-2]] = nm(os.path.join(sub, f))
    comp_mods = {f"models/appliance/{n}" for n in names}
    comp_funcs = {}
    for mod in comp_mods & objs.keys():
        for s in objs[mod][0]:
            comp_funcs[s] = mod
    for mod, (_, _, undef) in sorted(objs.items()):
        for n in names:
            if f"{n}_component" in undef and mod != "models/appliance/appliance":
                bad.append(f"{mod}.c names {n}_component: only the list (appliance.c, {LIST}) may")
    for mod in HOOK_ONLY:
        if mod not in objs:
            bad.append(f"{build}/{mod}.o: missing (build first)")
            continue
        for s in sorted(objs[mod][2]):
            if s in comp_funcs and s not in GEOMETRY:
                bad.append(f"{mod}.c calls {s} of {comp_funcs[s]}.c: reach a component through its hooks")
    return bad


def check_docs(root):
    path = os.path.join(root, "docs/architecture.md")
    text = open(path).read()
    m = re.search(r"^## Where to add\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    if not m:
        return [f"{path}: no '## Where to add' section"]
    sec = m.group(1)
    bad = [] if "components.h" in sec else [f"{path}: 'Where to add' does not name components.h"]
    for p in sorted(set(re.findall(r"`((?:models|sim|serve|validate|cli|tests|docs|scripts)/[\w./-]+)`", sec))):
        if "NAME" not in p and not os.path.exists(os.path.join(root, p)):
            bad.append(f"{path}: 'Where to add' names {p}, which does not exist")
    return bad


def self_test():
    entries = list_entries("X(a, 0, 1) X(b, 0, 0)")
    got = check_list(entries, {"a": "models/appliance/a.c", "b": "models/appliance/x.c", "c": "models/appliance/c.c"})
    want = ["resource column", "b: no models/appliance/b.c", "c_component is not in"]
    missing = [w for w in want if not any(w in g for g in got)]
    if missing:
        print(f"check-where-to-add: self-test FAILED (missing: {missing}; got {got})")
        return 1
    print("check-where-to-add: self-test: a broken list is caught")
    return 0


def main(argv):
    if "--self-test" in argv:
        return self_test()
    args = [a for a in argv if not a.startswith("--")]
    build = args[0] if args else "build/release"
    root = "."
    entries = list_entries(open(os.path.join(root, LIST)).read())
    names = [e[0] for e in entries]
    bad = check_list(entries, defined_components(root)) + check_sources(root, names) + check_objects(build, names)
    bad += check_docs(root)
    for b in bad:
        print(f"check-where-to-add: {b}")
    print(f"check-where-to-add: {len(entries)} components in {LIST}, {len(bad)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
