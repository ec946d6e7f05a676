# SPDX-License-Identifier: GPL-2.0
"""herd7 under the kernel's memory model (LKMM) on litmus tests.

usage: lkmm.py [--macros DEF] HERD7 TREE OUT LITMUS...

Runs HERD7 -conf linux-kernel.cfg in TREE/tools/memory-model (with
-macros DEF instead of linux-kernel.def) on each LITMUS file, two at a
time, and holds its verdict (Always, Sometimes, Never) against the "Result:"
line the test carries. Writes OUT.json and OUT.md: per test the verdict
expected and found, the states and the time. Exits 1 when a verdict
differs, herd7 fails or times out, or a test carries no "Result:".
"""

import json
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

TIMEOUT = 120  # seconds per test; all of the kernel's take 4 s together


def expected(text):
    m = re.search(r"^\s*\*?\s*Result:\s*(\w+)", text, re.M)
    return m.group(1) if m else None


def witness(text):
    """A generated test's "Witness:": values some state must show."""
    m = re.search(r"^\s*\*?\s*Witness:(.*)$", text, re.M)
    return dict(kv.strip().split("=") for kv in m.group(1).split(";") if kv.strip()) if m else None


def states(out):
    """herd7's final states, each a dict of what it prints."""
    m = re.search(r"^States \d+\n(.*?)^(?:Ok|No)$", out, re.M | re.S)
    return [dict(kv.strip().split("=") for kv in line.split(";") if kv.strip())
            for line in (m.group(1).splitlines() if m else [])]


def verdict(out):
    """herd7's output -> (verdict, states, positive, negative, flags)."""
    obs = re.search(r"^Observation \S+ (\w+) (\d+) (\d+)", out, re.M)
    states = re.search(r"^States (\d+)", out, re.M)
    flags = re.findall(r"^Flag (\S+)", out, re.M)
    if not obs:
        return None
    return (obs.group(1), int(states.group(1)) if states else None,
            int(obs.group(2)), int(obs.group(3)), flags)


def check(herd7, mm, path, macros=None):
    text = Path(path).read_text()
    r = {"name": Path(path).stem, "expected": expected(text)}
    t0 = time.monotonic()
    try:
        opt = ["-macros", str(Path(macros).resolve())] if macros else []
        p = subprocess.run([herd7, "-conf", "linux-kernel.cfg", *opt, str(Path(path).resolve())],
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
    want = r["witness"] = witness(text)
    if want and v and not any(want.items() <= st.items() for st in states(out)):
        r["error"] = f"no state shows the witness {want}: the test cannot see what it asks about"
    r["ok"] = r["error"] is None and r["expected"] is not None and found == r["expected"]
    return r


def markdown(results, herd7_version):
    """The kernel's tests one per row; katomic's generated ones (those with
    a Witness:) counted per shape and verdict, any that differs named."""
    bad = [r for r in results if not r["ok"]]
    own = [r for r in results if not r.get("witness")]
    gen = [r for r in results if r.get("witness")]
    L = ["# herd7 under the LKMM", "",
         f"{herd7_version}, `-conf linux-kernel.cfg` of the tree's tools/memory-model. "
         f"{len(results)} tests, {len(results) - len(bad)} with the verdict they expect, "
         f"{len(bad)} without.", ""]
    if gen:
        L += [f"## katomic's {len(gen)} tests (katomic/litmus.py)", "",
              "Each primitive of atomics.tbl on atomic_t and atomic64_t, and xchg(), cmpxchg() "
              "and try_cmpxchg() on 1, 2, 4 and 8 bytes, in every ordering; the verdict "
              "expected is Documentation/atomic_t.txt's, and some state herd7 reports shows "
              "the values the test asks about (its Witness:).", "",
              "| shape | expected | tests | as expected | time |", "|---|---|---:|---:|---:|"]
        groups = {}
        for r in gen:
            shape = re.match(r"2\+2W|[^+]+", r["name"]).group(0)
            groups.setdefault((shape, r["expected"]), []).append(r)
        for (shape, exp), rs in sorted(groups.items()):
            L.append(f"| {shape} | {exp} | {len(rs)} | {sum(r['ok'] for r in rs)} | "
                     f"{sum(r['time_s'] for r in rs):.1f} s |")
        L += [f"| all | | {len(gen)} | {sum(r['ok'] for r in gen)} | "
              f"{sum(r['time_s'] for r in gen):.1f} s |", ""]
        L += [f"- **{r['name']}**: expected {r['expected']}, herd7: {r['verdict'] or r['error']}"
              for r in gen if not r["ok"]] + ([""] if any(not r["ok"] for r in gen) else [])
    if own:
        L += [f"## The kernel's {len(own)} tests", "",
              "| test | expected | herd7 | states | time |", "|---|---|---|---:|---:|"]
    for r in own:
        got = r["verdict"] or f"error: {r['error']}"
        mark = "" if r["ok"] else " **differs**"
        L.append(f"| {r['name']} | {r['expected'] or '-'} | {got}{mark} | "
                 f"{r.get('states', '-')} | {r['time_s']} s |")
    return "\n".join(L) + "\n"


def main():
    args, macros = sys.argv[1:], None
    if args[:1] == ["--macros"]:
        macros, args = args[1], args[2:]
    if len(args) < 4:
        sys.exit(__doc__)
    herd7, tree, out, files = args[0], Path(args[1]), Path(args[2]), args[3:]
    mm = tree / "tools/memory-model"
    if not (mm / "linux-kernel.cfg").is_file():
        sys.exit(f"lkmm: no {mm}/linux-kernel.cfg")
    version = subprocess.run([herd7, "-version"], capture_output=True, text=True).stdout.strip()
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda f: check(herd7, mm, f, macros), files))
    # A test per line: a diff shows the tests that changed.
    Path(f"{out}.json").write_text(
        f'{{"herd7": {json.dumps(version)}, "tests": [\n'
        + ",\n".join(json.dumps(r) for r in results) + "\n]}\n")
    Path(f"{out}.md").write_text(markdown(results, f"herd7 {version.split(',')[0]}"))
    bad = [r for r in results if not r["ok"]]
    for r in bad:
        print(f"lkmm: {r['name']}: expected {r['expected']}, herd7: "
              f"{r['verdict'] or r['error']}", file=sys.stderr)
    print(f"lkmm: {len(results) - len(bad)} of {len(results)} tests give the verdict they expect")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
