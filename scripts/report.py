#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Assembly vs compiler builtins: code per primitive, kernel size, speed.

usage: report.py RESULTS TREE WORK [ARCH...]
       report.py --markdown RESULTS   (RESULTS/report.md and the plots again
                                       from report.json, nothing measured)

Reads what 'scripts/katomic.sh report' built for each ARCH of
scripts/arches.tsv (its toolchain prefix and call mnemonics from there), or
for the ARCHs named, keeping the other architectures' entries of the previous
RESULTS/report.json (each entry names the series it was built from):
  WORK/probe/ARCH-VARIANT/atomic_probe.o  scripts/atomic_probe.c, one function
                                          per primitive, VARIANT being stock
                                          (Debian's tree, no series), asm or
                                          builtins (the series, configured so),
                                          or a fragment of the row's report
                                          column (arm64: llsc, the assembly
                                          built for LL/SC alone)
  WORK/build/report/ARCH-VARIANT/vmlinux  kunit/report.kunitconfig, no tests:
                                          size(1) and bloat-o-meter (an entry
                                          from before the report built them
                                          all may lack some)
  RESULTS/report-ARCH-VARIANT.audit.json  katomic/audit on the asm build and
                                          the row's further variants: also
                                          what an uncontended call executes
and the same with -COMPILER after VARIANT for each further compiler of the
row (its compilers column: clang), but for the further variants, which are
built with GCC alone. Where the asm build's .config lacks
CONFIG_ARCH_SUPPORTS_ATOMIC_BUILTINS=y (riscv64 with GCC) or
CONFIG_CC_HAS_CHECKED_ATOMIC_BUILTINS=y (a compiler whose builtins were not
checked), the kernel does not offer the builtins: there is no builtins
variant, and the entry compares stock and asm alone. The benchmarks come
from the boot of the first compiler, GCC then the compilers column, that
offers the builtins:
  RESULTS/ARCH[-COMPILER]-bench.console.log  the atomic_bench_* suites: both
                                          implementations in one boot
  WORK/build/ARCH[-COMPILER]/lib/atomic_bench{,_other}_kunit.o  their loops
It writes RESULTS/report.{md,json} and RESULTS/report-{insns,speed}.png.

Per probe function: instructions up to the symbol's size (no alignment
padding), bytes, instructions of the longest loop (a backward branch and
what it jumps over) and calls. Speed: the median time per operation of each
benchmark, and the ratio asm/builtins (below 1: the assembly is faster).
"""

import hashlib
import json
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the katomic package
from summary import summarise  # noqa: E402
from katomic.arches import arches  # noqa: E402
from katomic.audit.rules import BUILTINS_OPTIONS  # noqa: E402
from katomic.audit.table import table  # noqa: E402

VARIANTS = ("stock", "asm", "builtins")
SCENARIOS = ("uncontended", "contended", "false-shared")
INSN = re.compile(r"^\s*([0-9a-f]+):\t(\S+)\s*(.*)$")


def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


def functions(obj, prefix, calls, pattern):
    """{name: {"insns", "bytes", "loop", "calls", "code"}} for the functions of obj
    whose name matches pattern (its first group names them); calls counts the
    mnemonics that fullmatch calls; code is the instructions with their
    addresses taken out, to compare two copies."""
    sizes = {}
    for line in run(prefix + "nm", "-S", obj).splitlines():
        f = line.split()
        m = re.fullmatch(pattern, f[-1]) if len(f) == 4 and f[2] in "tT" else None
        if m:
            sizes[f[3]] = (m.group(1), int(f[0], 16), int(f[1], 16))
    out, name, insns = {}, None, []
    text = run(prefix + "objdump", "-d", "--no-show-raw-insn", obj)
    # riscv keeps local labels (.L1^B1, .Lpcrel_hi0) in an object's symbol
    # table for the linker's relaxation: objdump heads them as functions,
    # but they are places inside one.
    text = re.sub(r"\n\n[0-9a-f]+ <\.L[^>]*>:\n", "\n", text)
    for line in text.splitlines() + [""]:
        head = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if head or not line.strip():
            if name in sizes:
                out[sizes[name][0]] = measure(insns, calls, *sizes[name][1:])
            name, insns = (head.group(1), []) if head else (None, [])
            continue
        m = INSN.match(line)
        if m and name:
            insns.append((int(m.group(1), 16), m.group(2), m.group(3)))
    return out


def measure(insns, calls, start, size):
    insns = [i for i in insns if i[0] < start + size]
    addrs = [a for a, _, _ in insns]
    loop = 0
    for n, (addr, _, args) in enumerate(insns):
        # Not a comment's address: riscv's unrelocated "jalr ra # <f+0xa>" is
        # its AUIPC's, and x86's "# <f+0x7>" the next instruction's.
        target = re.search(r"\b([0-9a-f]+) <[^>]*>$", re.sub(r"\s# .*", "", args))
        if target and int(target.group(1), 16) < addr and int(target.group(1), 16) in addrs:
            loop = max(loop, n - addrs.index(int(target.group(1), 16)) + 1)
    return {"insns": len(insns), "bytes": size, "loop": loop,
            "calls": sum(1 for _, op, _ in insns if re.fullmatch(calls, op)),
            "code": [op + " " + re.sub(r"[0-9a-f]+ <[^+>]*", "<", args) for _, op, args in insns]}


def size(prefix, vmlinux):
    f = run(prefix + "size", vmlinux).splitlines()[1].split()
    return dict(zip(("text", "data", "bss"), map(int, f[:3])))


def bloat_pairs(vmlinux):
    """The (old, new) variants bloat-o-meter compares, of {variant: vmlinux
    path}: stock to asm, asm and each further variant to the builtins, where
    both kernels were built."""
    pairs = [("stock", "asm")] + [(v, "builtins") for v in vmlinux
                                  if v not in ("stock", "builtins")]
    return [(a, b) for a, b in pairs
            if a in vmlinux and b in vmlinux
            and Path(vmlinux[a]).is_file() and Path(vmlinux[b]).is_file()]


def bloat(tree, prefix, old, new, n=12):
    out = run(sys.executable, f"{tree}/scripts/bloat-o-meter", "-p", prefix, old, new)
    return out.splitlines()[:n]


# Why size(1) and bloat-o-meter may disagree in sign, per architecture.
SIZE_WHY = {
    "s390x": "s390's linker script ends .text at a page boundary (`. = ALIGN(PAGE_SIZE)` "
             "before `_etext` in arch/s390/kernel/vmlinux.lds.S), so size(1)'s text moves in "
             "pages and a change under a page shows only in the tables around it "
             "(.altinstructions, .altinstr_replacement, __bug_table, __ex_table)",
    "x86_64": "among what no symbol holds, the assembly's LOCK_PREFIX records each of its "
              "lock prefixes in .smp_locks (4 bytes, read-only), and the compiler's lock "
              "prefixes have no such entry (scripts/atomic_probe.c's object: 38 lock "
              "prefixes either way, .smp_locks 152 bytes with the assembly, 8 with the "
              "builtins)",
}


def size_disagrees(r, what, lines):
    """A sentence where bloat-o-meter's total for the pair what (OLD_to_NEW)
    and size(1)'s text have opposite signs, else None."""
    old, new = what.split("_to_")
    m = re.search(r"\((-?\d+)\)\s*$", lines[0]) if lines else None
    if not m or old not in r["size"] or new not in r["size"]:
        return None
    text, sym = r["size"][new]["text"] - r["size"][old]["text"], int(m.group(1))
    if text * sym >= 0:
        return None
    return (f"size(1) and bloat-o-meter disagree in sign here ({text:+d} and {sym:+d} bytes, "
            f"{new} - {old}): size(1)'s text is the sum of the read-only sections, what no "
            "symbol holds included (padding, tables), bloat-o-meter's the sum of the symbols"
            + (f"; {SIZE_WHY[r['arch']]}." if r.get("arch") in SIZE_WHY else "."))


def bench(console):
    """{impl: {scenario: {op: {"ps", "runs", "cpus"}}}} from the console."""
    out, impl = {}, None
    for line in console.read_text(errors="replace").splitlines():
        m = re.search(r"# Subtest: atomic_bench_(arch|builtins)", line)
        if m:
            impl = "asm" if m.group(1) == "arch" else "builtins"
            continue
        m = re.search(r"bench: (\S+) (\w+) on (\d+) CPUs: (\d+) ps/op \(median of runs: ([\d ]+)\)",
                      line)
        if m and impl:
            out.setdefault(impl, {}).setdefault(m.group(1), {})[m.group(2)] = {
                "ps": int(m.group(4)), "runs": [int(x) for x in m.group(5).split()],
                "cpus": int(m.group(3))}
    return out


def series_id():
    """scripts/katomic.sh's series_id: which patches/ a build was made of."""
    patches = sorted(p for p in (Path(__file__).parent.parent / "patches").glob("[0-9]*.patch")
                     if not p.name.startswith("0000-"))
    return hashlib.sha256(b"".join(p.read_bytes() for p in patches)).hexdigest()[:16]


def offers_builtins(bdir):
    """Whether the kernel configured in bdir offers CONFIG_ATOMIC_BUILTINS:
    the architecture, and the compiler."""
    config = Path(bdir, ".config").read_text().splitlines()
    return {f"{o}=y" for o in BUILTINS_OPTIONS} <= set(config)


def kconfig_select(tree, karch):
    """The line of the architecture's Kconfig that selects
    ARCH_SUPPORTS_ATOMIC_BUILTINS, with its condition, or None."""
    srcarch = {"x86_64": "x86", "i386": "x86"}.get(karch, karch)
    m = re.search(r"^\s*(select ARCH_SUPPORTS_ATOMIC_BUILTINS\b.*)$",
                  Path(tree, "arch", srcarch, "Kconfig").read_text(), re.M)
    return re.sub(r"\s+", " ", m.group(1)) if m else None


def extras(r):
    """The further variants of an entry (its row's report column)."""
    return [v for v in r["variants"] if v not in VARIANTS]


def compiler_of(bdir):
    m = re.search(r'^CONFIG_CC_VERSION_TEXT="(.*)"$', Path(bdir, ".config").read_text(), re.M)
    return m.group(1) if m else "?"


def arch_report(arch, prefix, calls, extra, tree, work, results, compiler="", bench=False):
    """extra: the further variants of the architecture's row (its report
    column), each the series built with that fragment, e.g. llsc. compiler:
    a fragment of the row's compilers column, or "" for GCC. bench: whether
    this compiler's boot ran the benchmarks. Without the builtins offered,
    the variants are stock, asm and the further ones."""
    sfx = f"-{compiler}" if compiler else ""
    variants = VARIANTS
    if not offers_builtins(f"{work}/build/report/{arch}-asm{sfx}"):
        variants = VARIANTS[:2]
    variants += () if compiler else tuple(extra)
    probe = {v: functions(f"{work}/probe/{arch}-{v}{sfx}/atomic_probe.o", prefix, calls,
                          r"probe_(\w+)")
             for v in variants}
    for fns in probe.values():
        for f in fns.values():
            del f["code"]
    vmlinux = {v: f"{work}/build/report/{arch}-{v}{sfx}/vmlinux" for v in variants}
    speed, ratios, same_code = {}, {}, []
    if bench:
        speed, ratios, same_code = arch_speed(arch + sfx, prefix, calls, work, results)
    return {
        "arch": arch,
        "compiler": compiler_of(f"{work}/build/report/{arch}-asm{sfx}"),
        "series": series_id(),
        "variants": variants,
        "probe": {f: {v: probe[v][f] for v in variants if f in probe[v]}
                  for f in sorted(probe["asm"])},
        "size": {v: size(prefix, vmlinux[v]) for v in variants if Path(vmlinux[v]).exists()},
        "bloat_o_meter": {f"{a}_to_{b}": bloat(tree, prefix, vmlinux[a], vmlinux[b])
                          for a, b in bloat_pairs(vmlinux)},
        "speed": speed,
        "ratio": ratios,
        "same_code": same_code,
    }


def arch_speed(config, prefix, calls, work, results):
    """The CONFIG-bench boot's times (CONFIG: ARCH or ARCH-COMPILER), their
    ratios asm/builtins, and the benchmarks whose loop is the same machine
    code on both sides: their ratios show how far TCG alone moves a figure."""
    # The benchmark loops, as booted from katomic.sh's build_dir of
    # CONFIG-bench, WORK/build/CONFIG: configured with the assembly, so
    # atomic_bench_other_kunit.o has the builtins.
    loops = {impl: functions(f"{work}/build/{config}/lib/{obj}", prefix, calls, r"(\w+)_bench")
             for impl, obj in (("asm", "atomic_bench_kunit.o"),
                               ("builtins", "atomic_bench_other_kunit.o"))}
    name = f"{config}-bench"
    check = summarise(results, name)
    if not check["ok"]:
        sys.exit(f"report: the {name} boot failed: " + "; ".join(check["problems"]))
    speed = bench(results / f"{name}.console.log")
    ratios = {}
    for sc in SCENARIOS:
        for op, a in speed.get("asm", {}).get(sc, {}).items():
            b = speed.get("builtins", {}).get(sc, {}).get(op)
            if b and b["ps"]:
                ratios.setdefault(sc, {})[op] = round(a["ps"] / b["ps"], 3)
    if not ratios:
        sys.exit(f"report: no benchmark figures in {results}/{name}.console.log")
    same = sorted(op for op in ratios[SCENARIOS[0]]
                  if loops["asm"].get(op, {}).get("code") ==
                  loops["builtins"].get(op, {}).get("code", []))
    return speed, ratios, same


def wins(probe, a, b="builtins"):
    """How many probe functions variant a or b compiles to fewer instructions."""
    return {a: sum(p[a]["insns"] < p[b]["insns"] for p in probe),
            b: sum(p[a]["insns"] > p[b]["insns"] for p in probe),
            "same": sum(p[a]["insns"] == p[b]["insns"] for p in probe)}


def executed_wins(audit):
    """Of the audit's probe functions (every primitive in every ordering),
    in how many an uncontended call executes fewer instructions with the
    assembly or the builtins (the audit's executed(): arm64 as patched at
    boot); None without those counts (an audit before they were taken)."""
    runs = {}
    for row in audit["ordering"]:
        if row.get("executed") is not None:
            runs.setdefault(row["function"], {})[row["impl"]] = row["executed"]
    both = [r for r in runs.values() if len(r) == 2]
    if not both:
        return None
    return {"asm": sum(r["asm"] < r["builtins"] for r in both),
            "builtins": sum(r["asm"] > r["builtins"] for r in both),
            "same": sum(r["asm"] == r["builtins"] for r in both)}


def audit_key(key, r, variant="asm"):
    """The audit of a report entry (ARCH or ARCH-COMPILER) in markdown()'s
    audit: ARCH for the asm build with GCC, else "ARCH VARIANT[-COMPILER]"."""
    c = key[len(r["arch"]):]
    return r["arch"] if variant == "asm" and not c else f"{r['arch']} {variant}{c}"


def text_delta(r, x, new="builtins"):
    """vmlinux text of variant new minus that of variant x, None where one
    of the two kernels was not built."""
    z = r["size"]
    return z[new]["text"] - z[x]["text"] if new in z and x in z else None


def bytes_(d):
    return "-" if d is None else f"{d:+d} B"


def headline(r):
    """The entry's figures; those that compare with the builtins are None
    (extra: empty) where they are not offered."""
    probe = r["probe"].values()
    builtins = "builtins" in r["variants"]
    extra = extras(r) if builtins else []
    every = [x for sc in r["ratio"].values() for x in sc.values()]
    same = [x for sc in r["ratio"].values() for op, x in sc.items() if op in r["same_code"]]
    differ = [x for sc in r["ratio"].values() for op, x in sc.items()
              if op not in r["same_code"]]
    return {"insns_wins": wins(probe, "asm") if builtins else None,
            "extra": {x: {"insns_wins": wins(probe, x),
                          "text_delta": text_delta(r, x)}
                      for x in extra},
            "calls": {v: sum(p[v]["calls"] for p in probe if v in p) for v in r["variants"]},
            "stock_differs": sorted(f for f, p in r["probe"].items()
                                    if "stock" in p and p["stock"]["insns"] != p["asm"]["insns"]),
            # Where the series' asm is not the shortest of the three (of
            # stock and asm without the builtins: their count None).
            "asm_behind": {f: [p.get(v, {}).get("insns") for v in VARIANTS]
                           for f, p in r["probe"].items()
                           if "stock" in p and p["asm"]["insns"] >
                           min(p[v]["insns"] for v in ("stock", "builtins") if v in p)},
            "text_delta": text_delta(r, "asm"),
            "median_ratio": {sc: statistics.median(r["ratio"][sc].values())
                             for sc in SCENARIOS if sc in r["ratio"]},
            "median_ratio_all": statistics.median(every) if every else None,
            "median_ratio_code_differs": statistics.median(differ) if differ else None,
            "same_code_ratio_range": [min(same), max(same)] if same else None}


def compiler_name(key, r):
    """GCC, or the compiler fragment of an entry ARCH-COMPILER."""
    return key[len(r["arch"]) + 1:] or "GCC"


def offered(report, audit):
    """Where an architecture offers the builtins with some of its compilers
    alone: per compiler, what its builtins do. The audit compiles them
    against the asm build whether or not the kernel offers them."""
    L = []
    for arch in dict.fromkeys(r["arch"] for r in report.values()):
        entries = {k: r for k, r in report.items() if r["arch"] == arch}
        if all("builtins" in r["variants"] for r in entries.values()):
            continue
        for key, r in entries.items():
            name, h = compiler_name(key, r), r["headline"]
            a = audit.get(arch if key == arch else f"{arch} asm-{name}")
            # Not those absent from this kernel.
            rows = [x for x in a["ordering"] if x["impl"] == "builtins" and
                    x["verdict"] != "absent"] if a else []
            count = {v: sum(x["verdict"] == v for x in rows) for v in ("pass", "cost", "fail")}
            calls = sorted({c for x in rows for why in x["reasons"]
                            for m in re.findall(r"^calls (.*?): ", why) for c in m.split(", ")})
            called = sum(any(why.startswith("calls ") for why in x["reasons"]) for x in rows)
            w = h["insns_wins"]
            if w is None:
                line = (f"not offered (Kconfig: `{r.get('kconfig') or 'no select'}`). "
                        "Compiled anyway against the asm build, the audit")
            else:
                line = (f"offered: fewer instructions than the asm in {w['builtins']} of "
                        f"{sum(w.values())} probe functions, more in {w['asm']}; vmlinux text "
                        + bytes_(h['text_delta']))
                if h["median_ratio_all"] is not None:
                    line += f"; median time ratio asm/builtins {ratio(h['median_ratio_all'])}"
                line += ". The audit"
            line += (f" of their {len(rows)} functions: {count['pass']} pass, "
                     f"{count['cost']} with a needless barrier, {count['fail']} fail"
                     + (f", {called} of them calling {', '.join(calls)}" if called else "")
                     if rows else ": not run")
            L.append(f"- {arch}, {name}: the builtins are {line}.")
    return L


# Why the series' assembly still takes more instructions than the stock
# tree's or the builtins' in a probe function: per architecture (both
# compilers), a regular expression of the function and the reason.
BEHIND_WHY = {
    "s390x": [
        (r"atomic(64)?_(dec|sub)_and_test",
         "returned as a value; the asm goto branches on the condition code, and each of "
         "its two paths materialises the bool (LHI and an extension), where the "
         "builtins compare the old value once. Branched on, as `if "
         "(atomic_dec_and_test(v))` is, it takes fewer (atomic_dec_and_test_if)"),
        (r"try_cmpxchg_u(32|64)",
         "the builtins branch on COMPARE AND SWAP's condition code; an asm can give it "
         "only as a flag output (GCC 14.2) or through asm goto with outputs, which the "
         "kernel turns off for GCC 12 (GCC_ASM_GOTO_OUTPUT_BROKEN, GCC PR113921), so the "
         "asm compares the value returned"),
        (r"atomic(64)?_fetch_add",
         "*ptr is the LOAD AND ADD's in-out operand (\"+QS\"), so the result cannot take "
         "the register that holds the address, as the builtins' `laag %r2,%r3,0(%r2)` "
         "does: only an input operand would allow that, and the instruction writes it"),
    ],
}


def behind_why(arch, fn):
    """The reason the asm of fn is longer on arch (ARCH[-COMPILER]), or None."""
    return next((why for rx, why in BEHIND_WHY.get(arch.split("-")[0], [])
                 if re.fullmatch(rx, fn)), None)


def ratio(x):
    return "-" if x is None else f"{x:.2f}"


def markdown(report, audit, hw):
    L = ["# katomic report: assembly vs compiler builtins", "",
         "Generated by `make report`. `asm` is the architecture's own atomics (the",
         "series with CONFIG_ATOMIC_ARCH, the default), `builtins` the generic one on",
         "GCC's `__atomic` builtins (CONFIG_ATOMIC_BUILTINS), `stock` Debian's",
         "linux-source-6.12 without the series. An entry ARCH is built with GCC,",
         "ARCH-clang with clang (LLVM=-19), each variant as with GCC.", "",
         "## Headline", "",
         "| arch | fewer insns: asm | builtins | same |"
         " fewer executed: asm | builtins | same | calls asm/builtins |"
         " vmlinux text, builtins - asm | median time ratio asm/builtins |"
         " where the code differs | same code (TCG noise) |",
         "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]

    def runs(key, r, variant="asm"):
        w = audit.get(audit_key(key, r, variant))
        w = executed_wins(w) if w else None
        return "- | - | -" if w is None else \
            f"{w['asm']} | {w['builtins']} | {w['same']}"
    for arch, r in report.items():
        h = r["headline"]
        d, z = h["median_ratio_code_differs"], h["same_code_ratio_range"]
        if h["insns_wins"] is None:
            L.append(f"| {arch} | {compiler_name(arch, r)}: the builtins are not offered "
                     f"(Kconfig) | - | - | - | - | - | {h['calls']['asm']}/- | - | - | - | - |")
            continue
        L.append(f"| {arch} | {h['insns_wins']['asm']} | {h['insns_wins']['builtins']} | "
                 f"{h['insns_wins']['same']} | {runs(arch, r)} | "
                 f"{h['calls']['asm']}/{h['calls']['builtins']} | "
                 f"{bytes_(h['text_delta'])} | {ratio(h['median_ratio_all'])} | "
                 f"{'-' if d is None else f'{d:.2f}'} | "
                 f"{'-' if z is None else f'{z[0]:.2f} to {z[1]:.2f}'} |")
        for x, e in h["extra"].items():
            L.append(f"| {arch}, {x} for asm | {e['insns_wins'][x]} | "
                     f"{e['insns_wins']['builtins']} | {e['insns_wins']['same']} | "
                     f"{runs(arch, r, x)} | "
                     f"{h['calls'][x]}/{h['calls']['builtins']} | {bytes_(e['text_delta'])} "
                     "| - | - | - |")
    L += ["", "Instructions: of the probe functions (below), which implementation compiles",
          "to fewer. Executed: of the audit's probe functions (every primitive in every",
          "ordering), in which an uncontended call runs fewer instructions: the shortest",
          "path from entry to return that takes no loop twice and stores, on arm64 with",
          "the alternatives applied as the boot applies them on an LSE CPU (the static",
          "count holds both the LSE instruction and the LL/SC loop, of which a call runs",
          "one). Time ratio: the median over every benchmark and scenario of",
          "time(asm) / time(builtins); below 1 the assembly is faster. The benchmarks",
          "whose loop compiles to the same machine code on both sides are the control:",
          "the range of their ratios is what QEMU's emulation alone does to a figure,",
          "and a ratio inside that range says nothing. A row \"ARCH, X for asm\" compares",
          "the builtins with the assembly built with the fragment X instead (arm64's llsc:",
          "CONFIG_ARM64_USE_LSE_ATOMICS=n, the LL/SC code alone, as the builtins are; the",
          "`asm` build has LSE and carries both: the LSE instruction, patched in at boot,",
          "and the LL/SC loop after it in the same function).", ""]
    current = series_id()
    old = {arch: r.get("series", "?") for arch, r in report.items()
           if r.get("series") != current}
    if old:
        L += [f"- Built from an earlier series than patches/ ({current}): "
              + ", ".join(f"{a} ({s})" for a, s in old.items())]
    for arch, r in report.items():
        behind = r["headline"].get("asm_behind")
        if behind is not None:
            than = "min(stock, builtins)" if "builtins" in r["variants"] else "stock"
            L.append(f"- {arch}: " + (f"the series' asm takes no more instructions than "
                                      f"{than} in every probe function."
                                      if not behind else
                                      f"the series' asm takes more instructions than "
                                      f"{than} in: " +
                                      ", ".join(f"{f} ({a} against {s}"
                                                + ("" if b is None else f" and {b}") + ")"
                                                for f, (s, a, b) in behind.items())))
            why = {}
            for f in behind:
                why.setdefault(behind_why(arch, f), []).append(f)
            if arch.split("-")[0] in BEHIND_WHY:
                L += [f"  - {', '.join(fs)}: {w or 'no reason found yet'}" for w, fs in why.items()]
        if r["headline"]["stock_differs"]:
            L.append(f"- {arch}: asm differs from stock in: "
                     + ", ".join(r["headline"]["stock_differs"]))
        else:
            L.append(f"- {arch}: the series' asm compiles every probe function to the same "
                     "instruction count as the stock tree.")
    L += offered(report, audit)
    L += ["", "## Instructions per primitive", "",
          "`scripts/atomic_probe.c` has one function per primitive; each is compiled with",
          "the kernel's flags and disassembled. insns: the whole function, call glue",
          "included; loop: the longest loop (the retry loop of a compare-and-swap);",
          "calls: call instructions (library calls would show here); run: the",
          "instructions an uncontended call executes, from the audit's probe function of",
          "that name (the headline's executed counts; arm64 as patched at boot). Plot:",
          "[report-insns.png](report-insns.png).", ""]
    for arch, r in report.items():
        extra = extras(r)
        runs = {}
        for row in audit.get(audit_key(arch, r), {}).get("ordering", []):
            if row.get("executed") is not None:
                runs[row["impl"], row["function"].removeprefix("audit_")] = row["executed"]
        L += [f"### {arch} ({r['compiler']})", "",
              "| primitive | insns stock | insns asm | insns builtins | run asm | run builtins |"
              " loop asm | loop builtins | bytes asm | bytes builtins | calls asm/builtins |"
              + "".join(f" insns {x} | loop {x} |" for x in extra),
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|" + "---:|---:|" * len(extra)]
        for f, p in r["probe"].items():
            a, b = p["asm"], p.get("builtins", {})
            s = p.get("stock", {}).get("insns", "-")
            bold = "**" if b and a["insns"] != b["insns"] else ""
            b = {k: b.get(k, "-") for k in ("insns", "loop", "bytes", "calls")}
            ra, rb = runs.get(("asm", f), "-"), runs.get(("builtins", f), "-")
            rbold = "**" if ra != rb and "-" not in (ra, rb) else ""
            L.append(f"| {f} | {s} | {bold}{a['insns']}{bold} | {bold}{b['insns']}{bold}"
                     f" | {rbold}{ra}{rbold} | {rbold}{rb}{rbold}"
                     f" | {a['loop']} | {b['loop']} | {a['bytes']} | {b['bytes']} | "
                     f"{a['calls']}/{b['calls']} |"
                     + "".join(f" {p.get(x, {}).get('insns', '-')} | "
                               f"{p.get(x, {}).get('loop', '-')} |" for x in extra))
        L.append("")
    L += ["## Kernel size", "",
          "vmlinux of `kunit/report.kunitconfig` (KUnit's QEMU configuration with SMP, no",
          "tests), the same configuration for all three, built with the entry's compiler.",
          "size(1)'s text and data, in bytes; `-` where the entry has no such kernel (the",
          "builtins not offered, or an entry from before the report built every kernel).",
          "",
          "| arch | text stock | text asm | text builtins | asm - stock | builtins - asm |"
          " data stock | data asm | data builtins |",
          "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]

    def field(z, v, f):
        return z[v][f] if v in z else "-"

    def delta(r, x, new):
        d = text_delta(r, x, new)
        return "-" if d is None else f"{d:+d}"
    for arch, r in report.items():
        z = r["size"]
        for x in ["asm"] + extras(r):
            if x not in z:
                continue
            L.append(f"| {arch}{'' if x == 'asm' else f', {x} for asm'} | "
                     f"{field(z, 'stock', 'text')} | {z[x]['text']} | "
                     f"{field(z, 'builtins', 'text')} | {delta(r, 'stock', x)} | "
                     f"{delta(r, x, 'builtins')} | {field(z, 'stock', 'data')} | "
                     f"{z[x]['data']} | {field(z, 'builtins', 'data')} |")
    for arch, r in report.items():
        for what, lines in r["bloat_o_meter"].items():
            L += ["", f"`scripts/bloat-o-meter` {arch}, {what.replace('_', ' ')}:", "", "```"]
            L += lines + ["```"]
            why = size_disagrees(r, what, lines)
            if why:
                L += ["", why]
    L += ["", "## Speed in one boot", "",
          "**These are QEMU TCG (emulation) timings, not hardware figures**: only the",
          "ratio between the two implementations, measured in the same boot, means",
          "something. CONFIG_ATOMIC_KUNIT_BENCHMARK's atomic_bench_arch and",
          "atomic_bench_builtins suites run each primitive `bench_iters` times per CPU,",
          "on one CPU (uncontended), on every vCPU at one word (contended) and on every",
          "vCPU at its own word of one cache line (false-shared); each figure is the",
          "median of several runs, in picoseconds per operation (a run's time is its",
          "slowest thread's). Ratio: time(asm) / time(builtins). Plot:",
          "[report-speed.png](report-speed.png).", ""]
    for arch, r in report.items():
        h = r["headline"]["median_ratio"]
        if not r["speed"]:
            continue
        L += [f"### {arch}", "", "Median ratio: " + ", ".join(f"{sc} {h[sc]:.2f}" for sc in h)
              + ". Same code: the benchmark loop is the same machine code on both sides.",
              "", "| primitive | same code | " + " | ".join(f"{sc} asm ps | builtins ps | ratio"
                                                            for sc in SCENARIOS) + " |",
              "|---|---|" + "---:|" * 3 * len(SCENARIOS)]
        ops = list(r["speed"]["asm"][SCENARIOS[0]])
        for op in ops:
            cells = []
            for sc in SCENARIOS:
                a = r["speed"]["asm"].get(sc, {}).get(op, {}).get("ps", "-")
                b = r["speed"]["builtins"].get(sc, {}).get(op, {}).get("ps", "-")
                cells.append(f"{a} | {b} | {r['ratio'].get(sc, {}).get(op, '-')}")
            same = "yes" if op in r["same_code"] else "no"
            L.append(f"| {op} | {same} | " + " | ".join(cells) + " |")
        L.append("")
    L += hardware(hw)
    if audit:
        L += ["## Machine-code audit", "",
              "katomic/audit on the report's `asm` builds, each compiling both",
              "implementations (and on each further variant of an architecture's row): does",
              "every primitive give the ordering Documentation/atomic_t.txt requires, and do",
              "the compilers keep the kernel's shared accesses. `make test-all` runs the same",
              "audit on every configuration and fails on a violation ([audit.md](audit.md)).",
              ""] + table(audit).splitlines()
    return "\n".join(L)


def hardware(hw):
    """The section of scripts/hwbench.py's timings, per architecture."""
    L = []
    for arch, h in hw.items():
        vs = [v for v in h["variants"] if h["baseline"][v] != v]
        L += [f"## Speed in user space on this machine's CPU: {arch}", "",
              "**Native figures, not the kernel on bare metal**, unlike the TCG ones above:",
              "each build's `scripts/atomic_probe.c` object, the kernel's machine code,",
              f"linked into `scripts/hwbench.c` and run in user space on this machine's CPU "
              f"({h['cpu']},",
              f"{h['cpus']} CPUs{', a virtual machine' if h.get('virtual') else ''}), never in "
              f"its kernel. {h['rounds']} rounds",
              f"of {h['calls']} calls per variant, interleaved; nanoseconds per call and",
              "thread, median [min-max], with the indirect call (`empty`); a ratio is",
              "time(variant) / time(asm of the same compiler), taken per round: median",
              "[min-max]. 1 thread: uncontended; 2 threads: both CPUs on one word.", ""]
        for threads in (1, 2):
            rows = [p for p in h["probes"] if p["threads"] == threads]
            meds = {v: statistics.median(p["ratio"][v]["median"] for p in rows
                                         if v in p["ratio"]) for v in vs}
            L += [f"{threads} thread{'s' if threads > 1 else ''}: median ratio over the probes: "
                  + ", ".join(f"{v} {m:.2f}" for v, m in meds.items()) + ".", "",
                  "| probe | " + " | ".join(
                      f"{v} ns" + (f" | {v} / {h['baseline'][v]}" if v in vs else "")
                      for v in h["variants"]) + " |",
                  "|---|" + "---:|" * (len(h["variants"]) + len(vs))]
            for p in rows:
                cells = []
                for v in h["variants"]:
                    n = p["ns"].get(v) or p["ns"].get("-")
                    cells.append(f"{n['median']:.1f} [{n['min']:.1f}-{n['max']:.1f}]" if n else "-")
                    if v in vs:
                        r = p["ratio"].get(v)
                        cells.append(f"{r['median']:.2f} [{r['min']:.2f}-{r['max']:.2f}]"
                                     if r else "-")
                L.append(f"| {p['probe']} | " + " | ".join(cells) + " |")
            L.append("")
    return L


def plot(report, results):
    """report-insns.png and report-speed.png with gnuplot, one panel per arch."""
    n = len(report)
    with tempfile.TemporaryDirectory() as tmp:
        script = ["set terminal pngcairo noenhanced size 1600,%d font ',10'" % (520 * n),
                  "set style data histogram", "set style histogram clustered gap 1",
                  "set style fill solid 0.8 border -1", "set xtics rotate by -60 left",
                  "set grid ytics", "set key top left", "set bmargin 9"]
        script += [f"set output '{results}/report-insns.png'", f"set multiplot layout {n},1"]
        for arch, r in report.items():
            dat = Path(tmp, f"{arch}-insns.dat")
            dat.write_text("".join(f"{f} " + " ".join(str(p.get(v, {}).get("insns", 0))
                                                      for v in r["variants"]) + "\n"
                                   for f, p in r["probe"].items()))
            script += [f"set title '{arch}: instructions per primitive (whole function)'",
                       "set ylabel 'instructions'", "unset logscale y", "set yrange [0:*]",
                       f"plot '{dat}' using 2:xtic(1) title 'stock'"
                       + "".join(f", '' using {n} title '{v}'"
                                 for n, v in enumerate(r["variants"][1:], 3))]
        timed = {arch: r for arch, r in report.items() if r["ratio"]}
        script += ["unset multiplot", f"set output '{results}/report-speed.png'",
                   f"set multiplot layout {len(timed)},1"]
        for arch, r in timed.items():
            dat = Path(tmp, f"{arch}-speed.dat")
            ops = list(r["ratio"][SCENARIOS[0]])
            dat.write_text("".join(f"{op}{'=' if op in r['same_code'] else ''} "
                                   + " ".join(str(r["ratio"].get(sc, {}).get(op, 1))
                                                       for sc in SCENARIOS) + "\n" for op in ops))
            script += [f"set title '{arch}: time asm / time builtins, one boot, QEMU TCG "
                       "(below 1: asm faster; = same code on both sides)'",
                       "set ylabel 'ratio (log scale)'", "set logscale y 2",
                       "set yrange [0.25:4]", "set arrow 1 from graph 0, first 1 to graph 1, "
                       "first 1 nohead lw 2 dt 2",
                       f"plot '{dat}' using 2:xtic(1) title 'uncontended', '' using 3 title "
                       "'contended', '' using 4 title 'false-shared'"]
        script += ["unset multiplot"]
        subprocess.run(["gnuplot"], input="\n".join(script) + "\n", text=True, check=True)


def compare(old, new):
    """The instruction counts and sizes that differ from the previous report,
    and the entries it did not have."""
    diff = []
    for arch, r in new.items():
        if arch not in old:
            diff.append(f"{arch} (new)")
            continue
        o = old[arch]
        for f, p in r["probe"].items():
            if o.get("probe", {}).get(f) != p:
                diff.append(f"{arch} {f}")
        if o.get("size") != r["size"]:
            diff.append(f"{arch} vmlinux size")
    return diff


def write(results, report):
    """RESULTS/report.{md,json} and the plots of report, with the audits
    and the hardware timings RESULTS holds."""
    # RESULTS/report-ARCH-VARIANT.audit.json, as 'scripts/katomic.sh report' audits them.
    audit = {}
    for arch, a in arches().items():
        for variant in ["asm"] + a["report"].split() + [f"asm-{c}" for c in a["compilers"].split()]:
            p = results / f"report-{arch}-{variant}.audit.json"
            if p.exists():
                audit[arch if variant == "asm" else f"{arch} {variant}"] = json.loads(p.read_text())
    # RESULTS/report-hwbench-ARCH.json, timed on this machine's CPU.
    hw = {p.name[len("report-hwbench-"):-len(".json")]: json.loads(p.read_text())
          for p in sorted(results.glob("report-hwbench-*.json"))}
    hw = {arch: h for arch, h in hw.items() if arch in report}
    (results / "report.md").write_text(markdown(report, audit, hw) + "\n")
    (results / "report.json").write_text(json.dumps(report, indent=1) + "\n")
    plot(report, results)


def main():
    if sys.argv[1:2] == ["--markdown"] and len(sys.argv) == 3:
        results = Path(sys.argv[2])
        write(results, json.loads((results / "report.json").read_text()))
        return
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    results, tree, work = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    every = arches()
    chosen = sys.argv[4:] or list(every)
    for arch in chosen:
        if arch not in every:
            sys.exit(f"report: unknown architecture {arch} (scripts/arches.tsv: {' '.join(every)})")
    previous = results / "report.json"
    old = json.loads(previous.read_text()) if previous.exists() else None
    report = {}
    for arch, a in every.items():
        compilers = [""] + a["compilers"].split()
        # The benchmarks booted with the first compiler that offers the
        # builtins, as scripts/katomic.sh report chose it.
        bench = next((c for c in compilers if arch in chosen and
                      offers_builtins(f"{work}/build/report/{arch}-asm" + (f"-{c}" if c else ""))),
                     None)
        for c in compilers:
            key = arch + (f"-{c}" if c else "")
            if arch in chosen:
                r = report[key] = arch_report(arch, a["prefix"], a["calls"], a["report"].split(),
                                              tree, work, results, c, c == bench)
                if "builtins" not in r["variants"]:
                    r["kconfig"] = kconfig_select(tree, a["karch"])
                r["headline"] = headline(r)
            elif old and key in old:
                report[key] = old[key]
    write(results, report)
    for arch, r in report.items():
        h = r["headline"]
        z = h["same_code_ratio_range"]
        if h["insns_wins"] is None:
            print(f"report: {arch}: the builtins are not offered (Kconfig)")
            continue
        print(f"report: {arch}: fewer instructions: asm {h['insns_wins']['asm']}, builtins "
              f"{h['insns_wins']['builtins']}, same {h['insns_wins']['same']}; vmlinux text "
              f"{bytes_(h['text_delta'])} with the builtins; median time ratio asm/builtins "
              f"{ratio(h['median_ratio_all'])} (TCG; same-code control "
              + (f"{z[0]:.2f} to {z[1]:.2f})" if z else "none)"))
    if old is not None:
        diff = compare(old, report)
        print("report: instruction counts and sizes " +
              (f"differ from the previous report in: {', '.join(diff)}" if diff else
               "are identical to the previous report's"))
    print(f"report: {results}/report.md, report.json, report-insns.png, report-speed.png")


if __name__ == "__main__":
    main()
