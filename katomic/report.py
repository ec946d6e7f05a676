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

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from .summary import summarise
from .arches import arches
from .audit.rules import BUILTINS_OPTIONS
from .report_md import SCENARIOS, VARIANTS, bytes_, headline, markdown, ratio, series_id


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
    # The benchmark loops, as booted from arches.build_dir of
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
