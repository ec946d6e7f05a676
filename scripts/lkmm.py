#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""herd7 under the kernel's memory model (LKMM) on litmus tests.

usage: lkmm.py HERD7 TREE OUT LITMUS...

Runs HERD7 -conf linux-kernel.cfg in TREE/tools/memory-model on each LITMUS
file and holds its verdict (Always, Sometimes, Never) against the "Result:"
line the test carries. Writes OUT.json and OUT.md: per test the verdict
expected and found, the states and the time. Exits 1 when a verdict
differs, herd7 fails or times out, or a test carries no "Result:".
"""

import json
import re
import subprocess
import sys
import time
from pathlib import Path

TIMEOUT = 120  # seconds per test; all of the kernel's take 4 s together


def expected(text):
    m = re.search(r"^\s*\*?\s*Result:\s*(\w+)", text, re.M)
    return m.group(1) if m else None


def verdict(out):
    """herd7's output -> (verdict, states, positive, negative, flags)."""
    obs = re.search(r"^Observation \S+ (\w+) (\d+) (\d+)", out, re.M)
    states = re.search(r"^States (\d+)", out, re.M)
    flags = re.findall(r"^Flag (\S+)", out, re.M)
    if not obs:
        return None
    return (obs.group(1), int(states.group(1)) if states else None,
            int(obs.group(2)), int(obs.group(3)), flags)


def check(herd7, mm, path):
    text = Path(path).read_text()
    r = {"file": str(path), "name": Path(path).stem, "expected": expected(text)}
    t0 = time.monotonic()
    try:
        p = subprocess.run([herd7, "-conf", "linux-kernel.cfg", str(Path(path).resolve())],
                           cwd=mm, capture_output=True, text=True, timeout=TIMEOUT)
        out = p.stdout
        v = verdict(out) if p.returncode == 0 else None
        r["error"] = None if v else (p.stderr.strip() or out.strip())[-300:] or "no verdict"
    except subprocess.TimeoutExpired:
        v, r["error"] = None, f"herd7 did not finish in {TIMEOUT} s"
    r["time_s"] = round(time.monotonic() - t0, 2)
    if v:
        r["verdict"], r["states"], r["positive"], r["negative"], r["flags"] = v
    else:
        r["verdict"] = None
    # RM-broken expects DEADLOCK: no execution finishes, herd7 counts no
    # state at all.
    found = r["verdict"]
    if r["expected"] == "DEADLOCK" and v and r["states"] == 0:
        found = "DEADLOCK"
    r["ok"] = r["error"] is None and r["expected"] is not None and found == r["expected"]
    return r


def markdown(results, herd7_version):
    bad = [r for r in results if not r["ok"]]
    L = ["# herd7 under the LKMM", "",
         f"{herd7_version}, `-conf linux-kernel.cfg` of the tree's tools/memory-model. "
         f"{len(results)} tests, {len(results) - len(bad)} with the verdict they expect, "
         f"{len(bad)} without.", "",
         "| test | expected | herd7 | states | time |", "|---|---|---|---:|---:|"]
    for r in results:
        got = r["verdict"] or f"error: {r['error']}"
        mark = "" if r["ok"] else " **differs**"
        L.append(f"| {r['name']} | {r['expected'] or '-'} | {got}{mark} | "
                 f"{r.get('states', '-')} | {r['time_s']} s |")
    return "\n".join(L) + "\n"


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    herd7, tree, out, files = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4:]
    mm = tree / "tools/memory-model"
    if not (mm / "linux-kernel.cfg").is_file():
        sys.exit(f"lkmm: no {mm}/linux-kernel.cfg")
    version = subprocess.run([herd7, "-version"], capture_output=True, text=True).stdout.strip()
    results = [check(herd7, mm, f) for f in files]
    Path(f"{out}.json").write_text(json.dumps({"herd7": version, "tests": results}, indent=1) + "\n")
    Path(f"{out}.md").write_text(markdown(results, f"herd7 {version.split(',')[0]}"))
    bad = [r for r in results if not r["ok"]]
    for r in bad:
        print(f"lkmm: {r['name']}: expected {r['expected']}, herd7: "
              f"{r['verdict'] or r['error']}", file=sys.stderr)
    print(f"lkmm: {len(results) - len(bad)} of {len(results)} tests give the verdict they expect")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
