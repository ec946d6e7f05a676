# SPDX-License-Identifier: GPL-2.0
"""results/report.md from report.json and the audits: the headline, each
probe function's instructions, the kernel sizes, the speed in one boot and
the hardware figures (katomic/report.py measures them)."""

import hashlib
import re
import statistics
from pathlib import Path

from .audit.table import table


VARIANTS = ("stock", "asm", "builtins")


SCENARIOS = ("uncontended", "contended", "false-shared")


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


def series_id():
    """tree.series_id, without the harness: which patches/ a build was made of."""
    patches = sorted(p for p in (Path(__file__).parent.parent / "patches").glob("[0-9]*.patch")
                     if not p.name.startswith("0000-"))
    return hashlib.sha256(b"".join(p.read_bytes() for p in patches)).hexdigest()[:16]


def extras(r):
    """The further variants of an entry (its row's report column)."""
    return [v for v in r["variants"] if v not in VARIANTS]


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
    return "\n".join(headline_md(report, audit) + notes_md(report, audit) +
                     insns_md(report, audit) + size_md(report) + speed_md(report) +
                     hardware(hw) + audit_md(audit))


def headline_md(report, audit):
    """The title, and a row per entry: which implementation wins."""
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
    return L


def notes_md(report, audit):
    """Where the series' asm is behind, and why; what each build offers."""
    L, current = [], series_id()
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
    return L


def insns_md(report, audit):
    """Instructions per primitive, a table per entry."""
    L = ["", "## Instructions per primitive", "",
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
    return L


def size_md(report):
    """The kernels' sizes, and bloat-o-meter's."""
    L = ["## Kernel size", "",
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
    return L


def speed_md(report):
    """The benchmarks of one boot, per entry."""
    L = ["", "## Speed in one boot", "",
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
    return L


def audit_md(audit):
    """The audits of the report's builds."""
    if not audit:
        return []
    return ["## Machine-code audit", "",
            "katomic/audit on the report's `asm` builds, each compiling both",
            "implementations (and on each further variant of an architecture's row): does",
            "every primitive give the ordering Documentation/atomic_t.txt requires, and do",
            "the compilers keep the kernel's shared accesses. `make test-all` runs the same",
            "audit on every configuration and fails on a violation ([audit.md](audit.md)).",
            ""] + table(audit).splitlines()


def hardware(hw):
    """The section of katomic/hwbench.py's timings, per architecture."""
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
