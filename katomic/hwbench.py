# SPDX-License-Identifier: GPL-2.0
"""Time the x86_64 probe functions, as each kernel build compiled them, on
this machine's CPU (user space, never this machine's kernel).

usage: hwbench.py OUT.json VARIANT=atomic_probe.o...   [--rounds N] [--calls N]

Each VARIANT (e.g. gcc-asm, clang-builtins) is one build's
scripts/atomic_probe.c object. They are linked into scripts/hwbench.c and
timed interleaved, one word, uncontended (one thread) and contended (two
threads on two CPUs), ROUNDS times of CALLS calls. OUT.json holds, per
probe, mode and variant, the median nanoseconds per call (per thread, with
the indirect call: "empty") and their spread (min, max), and the ratio to
the asm variant of the same compiler (COMPILER-asm, else the first
variant), taken per round: median and spread.
"""

import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from . import SCRIPTS


def run(*cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


def probes(obj):
    return sorted(m.group(1) for m in re.finditer(r" [tT] (probe_\w+)$", run("nm", obj), re.M))


def main():
    args, opts = [], {"--rounds": "11", "--calls": "200000"}
    it = iter(sys.argv[1:])
    for a in it:
        if a in opts:
            opts[a] = next(it)
        else:
            args.append(a)
    if len(args) < 2 or platform.machine() != "x86_64":
        sys.exit(__doc__ if len(args) < 2 else "hwbench: runs on an x86_64 host only")
    out, variants = Path(args[0]), [a.partition("=")[::2] for a in args[1:]]
    here = SCRIPTS
    with tempfile.TemporaryDirectory() as tmp:
        objs, names = [], None
        for v, obj in variants:
            c = re.sub(r"\W", "_", v)
            mine = probes(obj)
            # 16-byte cmpxchg takes its values in register pairs: not the
            # (pointer, long, long) call every other probe shares.
            mine = [p for p in mine if "u128" not in p]
            names = mine if names is None else [p for p in names if p in mine]
            dst = f"{tmp}/{c}.o"
            run("objcopy", *(f"--globalize-symbol={p}" for p in mine), obj, dst)
            run("objcopy", *(f"--redefine-sym={p}={c}__{p}" for p in mine), dst)
            objs.append(dst)
        cs = [re.sub(r"\W", "_", v) for v, _ in variants]
        table = [f"#define NVARIANTS {len(cs)}",
                 "static const char *variant_names[] = {" +
                 ", ".join(f'"{v}"' for v, _ in variants) + "};"]
        table += [f"long {c}__{p}(void *, long, long);" for c in cs for p in names]
        table += ["static const struct { const char *name; probe_fn fn[NVARIANTS]; } probes[] = {"]
        table += [f'\t{{ "{p[len("probe_"):]}", {{ ' + ", ".join(f"{c}__{p}" for c in cs) + " } },"
                  for p in names] + ["};"]
        Path(tmp, "hwbench_table.h").write_text("\n".join(table) + "\n")
        exe = f"{tmp}/hwbench"
        run("gcc", "-O2", "-no-pie", "-pthread", f"-I{tmp}", "-o", exe,
            str(here / "hwbench.c"), *objs)
        raw = run(exe, opts["--rounds"], opts["--calls"])
    samples = {}
    for line in raw.splitlines():
        name, threads, rnd, v, ns = line.split()
        samples.setdefault((name, int(threads)), {}).setdefault(v, {})[int(rnd)] = float(ns)
    # Each variant against the asm of its compiler ("gcc-asm" for
    # "gcc-builtins"), or against the first variant.
    names_ = [v for v, _ in variants]

    def base(v):
        b = v.rpartition("-")[0] + "-asm"
        return b if b in names_ else names_[0]
    result = {"cpu": next((l.split(":", 1)[1].strip() for l in
                           Path("/proc/cpuinfo").read_text().splitlines()
                           if l.startswith("model name")), "?"),
              "cpus": os.cpu_count(), "rounds": int(opts["--rounds"]),
              "virtual": " hypervisor" in Path("/proc/cpuinfo").read_text(),
              "calls": int(opts["--calls"]), "variants": names_,
              "baseline": {v: base(v) for v in names_}, "probes": []}
    for (name, threads), by in samples.items():
        row = {"probe": name, "threads": threads, "ns": {}, "ratio": {}}
        for v, rounds in by.items():
            ns = list(rounds.values())
            row["ns"][v] = {"median": statistics.median(ns), "min": min(ns), "max": max(ns)}
            if base(v) in by and v != "-":
                r = [rounds[k] / by[base(v)][k] for k in rounds if k in by[base(v)]]
                row["ratio"][v] = {"median": statistics.median(r), "min": min(r), "max": max(r)}
        result["probes"].append(row)
    out.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
