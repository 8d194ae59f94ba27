#!/usr/bin/env python3
"""Loads an `ocasim sweep` CSV and its JSON Lines in pandas and checks one row per run and the
dtypes of docs/outputs.md: ids and counts int64, outputs float64, flags bool, names object.
Usage: check-sweep-csv.py PREFIX ROWS   (reads PREFIX.csv and PREFIX.jsonl)"""
import sys

import pandas as pd

prefix, rows = sys.argv[1], int(sys.argv[2])
csv = pd.read_csv(prefix + ".csv", dtype={"error": "string", "ocasim_version": "string"})
jsonl = pd.read_json(prefix + ".jsonl", lines=True)
for name, df in (("csv", csv), ("jsonl", jsonl)):
    assert len(df) == rows, f"{name}: {len(df)} rows, expected {rows}"
    assert list(df.columns) == list(csv.columns), f"{name}: other columns"
    assert not df.duplicated(["point", "replication"]).any(), f"{name}: a run twice"
want = {
    "point": "int64", "replication": "int64", "seed": "int64", "scenario": "object", "mode": "object",
    "throughput_gbps": "float64", "unserved_gbps": "float64", "cpu_util_pct": "float64", "p99_ms": "float64",
    "saturate": "bool", "overloaded": "bool", "bottleneck": "object",
}
optional = {"requests_rejected": "int64", "steady_state": "bool", "p99_ci95_ms": "float64",
            "throughput_ci95_gbps": "float64", "nics[0].count": "int64", "topology.links[0].dlwm": "bool",
            "software.placement": "object", "offered_gbps": "float64"}
ok = (csv["error"].isna() | (csv["error"] == "")).all()
assert list(csv.columns)[-1] == "ocasim_version" and csv["ocasim_version"].nunique() == 1 \
    and csv["ocasim_version"].notna().all(), "csv: ocasim_version is not one version on every row"
for col, dt in list(want.items()) + [(c, d) for c, d in optional.items() if c in csv.columns]:
    got = str(csv[col].dtype)
    assert got == dt or (not ok and col in optional), f"csv {col}: dtype {got}, expected {dt}"
print(f"check-sweep-csv: {prefix}.csv and .jsonl: {len(csv)} rows, {len(csv.columns)} columns, dtypes as documented"
      f"{'' if ok else ', some runs failed'}")
