#!/usr/bin/env python3
"""tests/schema_check.py — the committed JSON Schemas (scenarios/schema/) against files, with
python3-jsonschema, as an editor (yaml-language-server) would check them.

  schema_check.py --good FILE...   every FILE must validate against the schema its first line
                                   names (# yaml-language-server: $schema=PATH, relative to FILE)
  schema_check.py --bad SCHEMA FILE[@PATH]...   every FILE must be rejected by SCHEMA, with an
                                   error at the dotted key PATH when given ("" is the top), the
                                   key the loader names, so that it is rejected for its reason

Each schema is first checked against the draft 2020-12 meta-schema. Prints one line per file
and exits 1 when any expectation fails, 77 when jsonschema or yaml cannot be imported.
"""
import json
import os
import re
import sys

try:
    import jsonschema
    import yaml
except ImportError as e:  # the caller decides whether that is a skip
    print(f"schema_check: {e}", file=sys.stderr)
    sys.exit(77)

MODELINE = re.compile(r"^# yaml-language-server: \$schema=(\S+)\s*$")
_cache = {}


def validator(path):
    path = os.path.normpath(path)
    if path not in _cache:
        with open(path) as f:
            schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(schema)
        _cache[path] = jsonschema.Draft202012Validator(schema)
    return _cache[path]


def load(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return text, yaml.safe_load(text)


def main(argv):
    fails = 0
    mode, args = argv[1], argv[2:]
    if mode == "--bad":
        v, files = validator(args[0]), args[1:]
    else:
        files = args
    for arg in files:
        path, _, want = arg.partition("@")
        text, doc = load(path)
        if mode == "--good":
            m = MODELINE.match(text.splitlines()[0] if text else "")
            if not m:
                print(f"FAIL {path}: the first line is not '# yaml-language-server: $schema=...'")
                fails += 1
                continue
            v = validator(os.path.join(os.path.dirname(path), m.group(1)))
        errors = sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))
        if mode == "--good" and errors:
            for e in errors[:5]:
                print(f"FAIL {path}: {'.'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}")
            fails += 1
        elif mode == "--bad" and not errors:
            print(f"FAIL {path}: the schema accepts it")
            fails += 1
        elif mode == "--bad" and "@" in arg and not any(".".join(map(str, e.absolute_path)) == want for e in errors):
            print(f"FAIL {path}: rejected, but not at {want or '(top)'}: " + "; ".join(e.message[:80] for e in errors[:3]))
            fails += 1
        else:
            at = [e for e in errors if "@" in arg and ".".join(map(str, e.absolute_path)) == want]
            first = at[0] if at else errors[0] if errors else None
            where = ".".join(map(str, first.absolute_path)) if first else ""
            print(f"ok   {path}" + (f": rejected at {where or '(top)'}: {first.message[:100]}" if first else ""))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
