#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Instructions per primitive and kernel size, assembly vs builtins.

usage: codegen.py RESULTS TREE ARCH:ASM_BUILD_DIR:BUILTINS_BUILD_DIR...

Every kernel built with the series has the value tests' wrapper functions
twice: lib/atomic_kunit.o on the configured implementation and
lib/atomic_other_kunit.o on the other, with the same compiler and flags.
Each wrapper calls one primitive, so the difference between the two copies
is the difference between the implementations. For each wrapper this
counts the instructions (up to the symbol's size: no alignment padding),
the bytes, the instructions of the longest loop (a backward branch and what
it jumps over), and flags calls.

Kernel size: text/data/bss of the two vmlinux (the same configuration but
for CONFIG_ATOMIC_BUILTINS) and TREE/scripts/bloat-o-meter between them.
Writes RESULTS/codegen.{md,json}.
"""

import json
import re
import subprocess
import sys
from pathlib import Path

TOOLS = {"s390x": "s390x-linux-gnu-", "x86_64": ""}
INSN = re.compile(r"^\s*([0-9a-f]+):\t(\S+)\s*(.*)$")
CALL = re.compile(r"^(call|brasl|bras)$")
WRAPPER = re.compile(r"^(\w+_fn|(try_)?(cmpxchg|xchg)\w*_[us](8|16|32|64|128))$")


def functions(obj, prefix):
    """{name: {"insns", "bytes", "loop", "calls"}} for the text symbols of obj."""
    sizes = {}
    for line in subprocess.run([prefix + "nm", "-S", obj], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "tT":
            sizes[f[3]] = (int(f[0], 16), int(f[1], 16))
    dump = subprocess.run([prefix + "objdump", "-d", "--no-show-raw-insn", obj],
                          capture_output=True, text=True, check=True).stdout
    out, name, insns = {}, None, []
    for line in dump.splitlines() + [""]:
        head = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if head or not line.strip():
            if name in sizes:
                out[name] = measure(insns, *sizes[name])
            name, insns = (head.group(1), []) if head else (None, [])
            continue
        m = INSN.match(line)
        if m and name:
            insns.append((int(m.group(1), 16), m.group(2), m.group(3)))
    return out


def measure(insns, start, size):
    insns = [i for i in insns if i[0] < start + size]
    addrs = [a for a, _, _ in insns]
    loop = 0
    for n, (addr, _, args) in enumerate(insns):
        target = re.search(r"\b([0-9a-f]+) <[^>]*>$", args)
        if target and int(target.group(1), 16) < addr and int(target.group(1), 16) in addrs:
            loop = max(loop, n - addrs.index(int(target.group(1), 16)) + 1)
    return {"insns": len(insns), "bytes": size, "loop": loop,
            "calls": sum(1 for _, op, _ in insns if CALL.match(op))}


def compare(arch, build):
    # The assembly is configured: atomic_other_kunit.o has the builtins.
    impl = {"asm": functions(f"{build}/lib/atomic_kunit.o", TOOLS[arch]),
            "builtins": functions(f"{build}/lib/atomic_other_kunit.o", TOOLS[arch])}
    rows = []
    for name in sorted(n for n in impl["asm"].keys() & impl["builtins"].keys()
                       if WRAPPER.match(n)):
        a, b = impl["asm"][name], impl["builtins"][name]
        rows.append({"arch": arch, "function": name, "asm": a, "builtins": b})
    return rows


def sizes(arch, tree, asm, builtins):
    """text/data/bss of both vmlinux, and bloat-o-meter's top lines."""
    out = {}
    for impl, build in (("asm", asm), ("builtins", builtins)):
        f = subprocess.run([TOOLS[arch] + "size", f"{build}/vmlinux"], capture_output=True,
                           text=True, check=True).stdout.splitlines()[1].split()
        out[impl] = dict(zip(("text", "data", "bss"), map(int, f[:3])))
    bloat = subprocess.run([sys.executable, f"{tree}/scripts/bloat-o-meter", "-p", TOOLS[arch],
                            f"{asm}/vmlinux", f"{builtins}/vmlinux"],
                           capture_output=True, text=True, check=True).stdout.splitlines()
    out["bloat_o_meter"] = bloat[:12]
    return out


def main():
    results, tree = Path(sys.argv[1]), sys.argv[2]
    rows, size = [], {}
    for spec in sys.argv[3:]:
        arch, asm, builtins = spec.split(":")
        for f in (f"{asm}/lib/atomic_kunit.o", f"{asm}/lib/atomic_other_kunit.o",
                  f"{asm}/vmlinux", f"{builtins}/vmlinux"):
            if not Path(f).exists():
                sys.exit(f"codegen: {f} is missing: run make test-all first")
        rows += compare(arch, asm)
        size[arch] = sizes(arch, tree, asm, builtins)
    summary_end = 9 + len({r["arch"] for r in rows})
    lines = ["# Instructions per primitive: assembly vs compiler builtins", "",
             "Each row is one wrapper function of lib/atomic_kunit.c, compiled on both",
             "implementations in the same build. insns: instructions in the function",
             "(wrapper glue included, the same on both sides); loop: instructions of the",
             "longest loop; calls: call instructions. Only rows that differ are listed.", "",
             "| arch | fewer instructions: asm | builtins | same | calls (asm/builtins) |",
             "|---|---:|---:|---:|---:|"]
    for arch in dict.fromkeys(r["arch"] for r in rows):
        mine = [r for r in rows if r["arch"] == arch]
        lines.append(f"| {arch} | {sum(r['asm']['insns'] < r['builtins']['insns'] for r in mine)} | "
                     f"{sum(r['asm']['insns'] > r['builtins']['insns'] for r in mine)} | "
                     f"{sum(r['asm']['insns'] == r['builtins']['insns'] for r in mine)} | "
                     f"{sum(r['asm']['calls'] for r in mine)}/{sum(r['builtins']['calls'] for r in mine)} |")
    lines += ["", "| arch | function | insns asm | insns builtins | loop asm | loop builtins |"
              " bytes asm | bytes builtins |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        a, b = r["asm"], r["builtins"]
        if (a["insns"], a["loop"], a["calls"]) != (b["insns"], b["loop"], b["calls"]):
            lines.append(f"| {r['arch']} | {r['function']} | {a['insns']} | {b['insns']} | "
                         f"{a['loop']} | {b['loop']} | {a['bytes']} | {b['bytes']} |")
    lines += ["", "## Kernel size", "", "vmlinux of the same configuration, CONFIG_ATOMIC_BUILTINS"
              " off and on.", "", "| arch | text asm | text builtins | delta | data asm |"
              " data builtins |", "|---|---:|---:|---:|---:|---:|"]
    for arch, z in size.items():
        a, b = z["asm"], z["builtins"]
        lines.append(f"| {arch} | {a['text']} | {b['text']} | {b['text'] - a['text']:+d} | "
                     f"{a['data']} | {b['data']} |")
    for arch, z in size.items():
        lines += ["", f"`scripts/bloat-o-meter` {arch} (asm -> builtins), top lines:", "", "```"]
        lines += z["bloat_o_meter"] + ["```"]
    results.mkdir(parents=True, exist_ok=True)
    (results / "codegen.md").write_text("\n".join(lines) + "\n")
    (results / "codegen.json").write_text(json.dumps({"wrappers": rows, "size": size}, indent=1)
                                          + "\n")
    print("\n".join(lines[:summary_end]) + "\n")
    for arch, z in size.items():
        print(f"{arch}: vmlinux text {z['asm']['text']} with the assembly, "
              f"{z['builtins']['text']} with the builtins "
              f"({z['builtins']['text'] - z['asm']['text']:+d} bytes)")
    print(f"\ncodegen: {len(rows)} wrappers compared; details in {results}/codegen.md")


if __name__ == "__main__":
    main()
