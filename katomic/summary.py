# SPDX-License-Identifier: GPL-2.0
"""Summarise katomic runs: one line per configuration, the failures, and
results/summary.{md,json}. Exits 1 unless every configuration passed."""

import json
import re
import sys
from pathlib import Path

from .audit.rules import ARCH as AUDITED


def leaves(group, path=()):
    """Yield (name, status) for every leaf test case of a kunit.py JSON."""
    here = path + ((group["name"],) if path or group["name"] != "KUnit Test Group" else ())
    for case in group.get("test_cases", []):
        yield ".".join(here + (case["name"],)), case["status"]
    for sub in group.get("sub_groups", []):
        yield from leaves(sub, here)


# The suites every boot runs, on both implementations; a -bench boot runs
# only the benchmarks, and must not skip them.
SUITES = ("xchg", "ops", "stress", "stress_retry", "litmus", "bench")
IMPLS = ("arch", "builtins")
# Most of what the torture scripts count as a failure on the console
# (tools/testing/selftests/rcutorture/bin/parse-console.sh), and lockups;
# sanitizer reports are counted on their own.
SANITIZER = re.compile(r"BUG: K[AC]SAN: .*")
ORPHAN_CODE = re.compile(r"objtool: \.[\w.]+\+0x[0-9a-f]+: unreachable instruction$")
CONSOLE_FAILURES = re.compile(r"Badness|WARNING:|\bBUG|Oops:|(?i:call trace:)|"
                              r"detected stalls on CPUs/tasks:|self-detected stall on CPU|"
                              r"rcu_.*kthread starved for|soft lockup|"
                              r"blocked for more than \d+ seconds")


def suite_problems(cases, bench, impls=IMPLS):
    """Missing suites, and suites that ran fewer cases than their sibling on
    the other implementation (they are built from one source). impls: the
    implementations the boot tests, the architecture's alone where it does
    not offer the builtins with this compiler (riscv with GCC)."""
    count, ran = {}, {}
    for name, status in cases:
        suite = name.split(".")[0]
        count[suite] = count.get(suite, 0) + 1
        ran[suite] = ran.get(suite, 0) + (status != "SKIP")
    problems = []
    for s in ("bench",) if bench else SUITES:
        n = {i: count.get(f"atomic_{s}_{i}", 0) for i in impls}
        for i in impls:
            if not n[i]:
                problems.append(f"suite atomic_{s}_{i} did not run")
            elif n[i] < max(n.values()):
                other = IMPLS[1 - IMPLS.index(i)]
                problems.append(f"suite atomic_{s}_{i} ran {n[i]} cases, "
                                f"atomic_{s}_{other} {n[other]}")
            elif bench and ran[f"atomic_{s}_{i}"] < n[i]:
                problems.append(f"suite atomic_{s}_{i} skipped its benchmarks")
    return problems


def tail(path, n=8):
    try:
        return path.read_text(errors="replace").splitlines()[-n:]
    except OSError:
        return []


def smp_figures(log):
    """Stress operations, compare-and-swap retries and operations from
    interrupts per suite, and each litmus test's runs and how many ended in
    the outcome of its exists clause, from the console."""
    suite, pending, litmus = None, None, []
    stress = {"operations": {}, "from_interrupts": {}, "retries": {}}
    for line in log.splitlines():
        m = re.search(r"# Subtest: (atomic_(?:stress|litmus)_\w+)", line)
        if m:
            suite = m.group(1)
            continue
        m = re.search(r"# \w+: stress: (\d+) operations on \d+ CPUs"
                      r"(?:, (\d+) from interrupts)?(?:, (\d+) retries)?", line)
        if m and suite:
            for key, n in zip(stress, m.groups()):
                stress[key][suite] = stress[key].get(suite, 0) + int(n or 0)
            continue
        m = re.search(r"# \w+: litmus: (\d+) runs, the outcome of exists in (\d+)", line)
        if m:
            pending = (int(m.group(1)), int(m.group(2)))
            continue
        m = re.search(r"^\s*(not )?ok \d+ (.+?)(?: # SKIP (.*))?$", line)
        if m and pending and suite:
            litmus.append({"suite": suite, "test": m.group(2), "runs": pending[0],
                           "never": m.group(3) is None, "exists_seen": pending[1]})
            pending = None
    return stress, litmus


def audit_summary(results, name, expected):
    """The machine-code audit of name (katomic/audit): its counts, and a
    problem per failure, or because it did not run where it should have; a
    note per failure of what the build's Kconfig does not offer."""
    path = results / f"{name}.audit.json"
    if not expected:
        return {"problems": []}
    if not path.exists():
        return {"problems": ["the machine-code audit did not run: "
                             + " | ".join(tail(results / f"{name}.audit.log", 4))]}
    a = json.loads(path.read_text())
    out = {"problems": [], "notes": []}
    for impl in ("asm", "builtins"):
        rows = [r for r in a["ordering"] if r["impl"] == impl and r["verdict"] != "absent"]
        out[impl] = {v: sum(1 for r in rows if r["verdict"] == v) for v in ("pass", "cost", "fail")}
        if not rows:
            out["problems"].append(f"the audit checked no {impl} function")
        # An implementation the build's Kconfig does not offer (katomic.audit:
        # "offered": false) is audited and shown, and fails no run.
        if any(r.get("offered") is False for r in rows):
            out[impl]["offered"] = False
            bad = sorted({r["primitive"] for r in rows if r["verdict"] == "fail"})
            if bad:
                out["notes"].append(f"audit: {impl} not offered by this build's Kconfig: "
                                    f"{out[impl]['fail']} would fail: " + ", ".join(bad[:6])
                                    + (" ..." if len(bad) > 6 else ""))
            continue
        out["problems"] += [f"audit: {impl} {r['primitive']}: {'; '.join(r['reasons'])}"
                            for r in rows if r["verdict"] == "fail"]
    # The kernel's flavours (READ_ONCE/WRITE_ONCE, the builtins' atomic_read
    # and atomic_set) must keep every guaranteed case; the C11 flavour is the
    # reference, what a relaxed __atomic access gets, and breaks no run.
    worries = [w for w in a["worries"] if w["flavour"] != "c11"]
    c11 = [w for w in a["worries"] if w["flavour"] == "c11" and w["class"] == "guaranteed"]
    if not c11:
        out["problems"].append("the audit checked no case in the C11 flavour")
    out["problems"] += [f"audit: {w['case']} (c11), which the checker could not read: "
                        f"{'; '.join(w['reasons'])}" for w in c11
                        if w["verdict"] == "fail" and not w.get("reference")]
    # A guaranteed case must be kept; a canary, a documented programmer's
    # fault, is what compilers do transform: it shows the checker sees it.
    out["guaranteed_kept"] = sum(1 for w in worries if w["class"] == "guaranteed"
                                 and w["verdict"] == "pass")
    out["canaries_transformed"] = sum(1 for w in worries if w["class"] == "canary"
                                      and w["verdict"] == "fail")
    out["worries_total"] = {c: sum(1 for w in worries if w["class"] == c)
                            for c in ("guaranteed", "canary")}
    # the audit marks every C11 case judged as the reference (its kernel
    # flavour kept it), kept or not: transformed are those that failed.
    out["c11_transformed"] = sorted(w["case"] for w in c11
                                    if w.get("reference") and w["verdict"] == "fail")
    out["c11_total"] = len(c11)
    if not worries:
        out["problems"].append("the audit checked none of the compiler worries")
    lost = [w for w in worries if w["class"] == "guaranteed" and w["verdict"] == "fail"]
    out["problems"] += [f"audit: {w['case']} ({w['flavour']}), which the kernel guarantees: "
                        f"{'; '.join(w['reasons'])}" for w in lost if w.get("offered", True)]
    out["notes"] += [f"audit: {w['case']} ({w['flavour']}), not offered by this build's "
                     f"Kconfig, would fail: {'; '.join(w['reasons'])}" for w in lost
                     if not w.get("offered", True)]
    return out


def herd_summary(results, name, expected):
    """katomic's litmus tests on name's code under its architecture's model
    (katomic/litmus_arch.py): a line per code, and the tests that fail."""
    path = results / f"{name}.litmus.json"
    if not path.exists():
        return ([], ["the herd7 check of its code did not run: "
                     + " | ".join(tail(results / f"{name}.litmus.log", 4))] if expected else [])
    r = json.loads(path.read_text())
    problems = [f"herd7 ({r['model']}): {t['test']} ({t['code']}): "
                + ("the model allows what the LKMM forbids" if t["violation"] else t["error"])
                for t in r["tests"] if t["fails"]]
    problems += [f"herd7: the self-test of {L['code']}: {L['selftest_ok']} of {L['selftest']} "
                 "tests with P0's barriers taken out are allowed" for L in r["lines"]
                 if L["offered"] and L["selftest_ok"] < L["selftest"]]
    cross = r.get("crosscheck")
    problems += [f"herd7 and the audit disagree: {d}" for d in (cross or {}).get("disagree", [])]
    if cross is not None and not cross["agree"]:
        problems.append("herd7 and the audit judged no primitive both: the cross-check "
                        "matched nothing")
    return [dict(L, model=r["model"]) for L in r["lines"]], problems


def skip_reasons(log):
    """{reason: cases} of the console's skipped cases, numbers as N (KUnit
    marks a suite whose cases all skipped with no reason of its own)."""
    out = {}
    for m in re.finditer(r"^\s*ok \d+ .+? # SKIP (\S.*?)\s*$", log, re.M):
        reason = re.sub(r"\d+", "N", m.group(1))
        out[reason] = out.get(reason, 0) + 1
    return out


def failure_causes(log):
    """{case: the first line of its first failed expectation}, from the
    console: KUnit prints "# ...: EXPECTATION FAILED at file:line", its
    message, then the case's "not ok N name"."""
    causes, cause = {}, None
    lines = log.splitlines()
    for i, line in enumerate(lines):
        m = re.search(r"# \S+: (?:EXPECTATION|ASSERTION) FAILED at (\S+)", line)
        if m and cause is None:
            nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
            cause = f"{m.group(1)}: {nxt}"
        m = re.match(r"\s*not ok \d+ (.+?)(?: # .*)?$", line)
        if m:
            causes.setdefault(m.group(1), cause)
            cause = None
    return causes


def missing(name):
    """A configuration whose results are not there: its job did not run, or
    its artefacts are lost (a CI merge job)."""
    return {"config": name, "missing": True, "notes": [], "ok": False, "seconds": 0,
            "passed": 0, "failed": 0, "skipped": 0, "boot": False, "atomic64_test": False, "libatomic_symbols": None,
            "problems": [f"no results ({name}.run.json): the run did not happen or its "
                         "results were lost"],
            "failed_cases": [], "instrumentation": None, "stress_operations": {},
            "stress_retries": {}, "stress_from_interrupts": {}, "stress_failed": 0,
            "litmus_runs": 0, "litmus_forbidden_seen": 0, "litmus": [], "skip_reasons": {},
            "failure_causes": {}, "audit": {}, "herd7": []}


def summarise(results, name):
    if not (results / f"{name}.run.json").exists():
        return missing(name)
    run = json.loads((results / f"{name}.run.json").read_text())
    console = results / f"{name}.console.log"
    log = console.read_text(errors="replace") if console.exists() else ""
    # Once the tests are done the kernel restarts the machine
    # (kunit_shutdown=reboot): what it prints then is the platform's reset,
    # not the atomics (sun4u's OpenBIOS cannot reboot and the kernel panics;
    # malta's CPS cores start again before QEMU exits): a note.
    log, _, after = log.partition("reboot: Restarting system")
    after_bad = re.findall(r"Kernel panic - not syncing:.*", after) + \
        [line.strip() for line in after.splitlines() if CONSOLE_FAILURES.search(line)]
    cases = []
    if (results / f"{name}.json").exists():
        cases = list(leaves(json.loads((results / f"{name}.json").read_text())))
    count = {s: sum(1 for _, st in cases if st == s) for s in ("PASS", "FAIL", "SKIP", "ERROR")}
    problems, qemu_timeout, orphans = run_problems(results, name, run, log, cases)
    bad = [n for n, st in cases if st in ("FAIL", "ERROR")]
    if bad:
        problems.append(f"{len(bad)} failed: " + ", ".join(bad[:8]) + (" ..." if len(bad) > 8 else ""))
    if run["rc"] not in (0, 124, 137) and not problems:
        problems.append(f"kunit.py exited {run['rc']}: " + " | ".join(tail(results / f"{name}.kunit.log", 4)))
    audit = audit_summary(results, name, run.get("audit", False))
    problems += audit.pop("problems")
    herd, herd_problems = herd_summary(results, name, run.get("herd7", False))
    problems += herd_problems[:8] + ([f"herd7: {len(herd_problems) - 8} more"]
                                     if len(herd_problems) > 8 else [])
    notes = audit.pop("notes", [])
    stress, litmus = smp_figures(log)
    # Under a sanitizer, audits.py counts what it instruments of the atomics.
    instr_path = results / f"{name}.instr.json"
    instr = json.loads(instr_path.read_text()) if instr_path.exists() else None
    if instr is None and {"kasan", "kcsan"} & set(name.split("-")[1:]):
        problems.append("the count of sanitizer calls in the probe did not run "
                        f"(scripts/katomic.sh audit {name})")
    notes += run_notes(results, name, run, after_bad, qemu_timeout, orphans)
    return {
        "config": name,
        "notes": notes,
        "ok": not problems,
        "seconds": run["seconds"],
        "series": run.get("series"),
        "passed": count["PASS"],
        "failed": count["FAIL"] + count["ERROR"],
        "skipped": count["SKIP"],
        "boot": run.get("boot", True),
        "atomic64_test": "atomic64_test: passed" in log,
        "libatomic_symbols": run.get("libatomic_symbols"),
        "problems": problems,
        "failed_cases": bad,
        "instrumentation": instr,
        "stress_operations": stress["operations"],
        "stress_retries": stress["retries"],
        "stress_from_interrupts": stress["from_interrupts"],
        "stress_failed": sum(1 for n, _ in cases if n.startswith("atomic_stress") and n in bad),
        "litmus_runs": sum(t["runs"] for t in litmus),
        "litmus_forbidden_seen": sum(t["exists_seen"] for t in litmus if t["never"]),
        "litmus": litmus,
        "skip_reasons": skip_reasons(log),
        "failure_causes": {n: c for n, c in failure_causes(log).items()
                           if c and any(b.rsplit(".", 1)[-1] == n for b in bad)},
        "audit": audit,
        "herd7": herd,
    }


def run_problems(results, name, run, log, cases):
    """What fails the run of name, from its exit, its kunit.py log and its
    console log: (problems, kunit.py's QEMU timeout, objtool's warnings on
    code outside any function)."""
    problems = []
    if run["rc"] in (124, 137):
        problems.append(f"timed out after {run['seconds']} s (QEMU or build stopped answering)")
    kunit_log = results / f"{name}.kunit.log"
    qemu_timeout = re.search(r"timed out after \d+ seconds", kunit_log.read_text(errors="replace")
                             if kunit_log.exists() else "")
    if qemu_timeout:
        problems.append(f"QEMU {qemu_timeout.group(0)} (kunit.py --timeout)")
    panic = re.search(r"Kernel panic - not syncing:.*", log)
    if panic:
        problems.append(panic.group(0).strip())
    sanitizer = SANITIZER.findall(log)
    if sanitizer:
        problems.append(f"{len(sanitizer)} sanitizer reports, the first: {sanitizer[0].strip()}")
    # An audit-only configuration (-z10) is configured, not built or booted.
    if not run.get("boot", True):
        if run["rc"] != 0:
            problems.append(f"configuring it failed (exit {run['rc']}): "
                            + " | ".join(tail(kunit_log, 4)))
    elif not log:
        problems.append("the kernel did not boot (build failed?): "
                        + " | ".join(tail(results / f"{name}.kunit.log", 4)))
    elif "atomic64_test: passed" not in log:
        problems.append("lib/atomic64_test.c did not print 'passed'")
    if log and not cases:
        problems.append("no KTAP results parsed")
    if cases:
        problems += suite_problems(cases, "bench" in name.split("-")[1:],
                                   IMPLS if run.get("builtins", True) else IMPLS[:1])
    # With -noinstr (CONFIG_DEBUG_ENTRY), objtool checks that noinstr code
    # calls nothing instrumentable; kunit.py shows its warnings.
    objtool = re.findall(r"vmlinux\.o: warning: objtool: .*",
                         kunit_log.read_text(errors="replace") if kunit_log.exists() else "")
    # objtool names the function of every instruction it checks. One at a
    # bare section offset belongs to no symbol of vmlinux.o: the body of a
    # __weak function that another file overrides (clang keeps init/main.c's
    # free_initmem() there; IBT has objtool read vmlinux.o).
    orphans = [w for w in objtool if ORPHAN_CODE.search(w)]
    objtool = [w for w in objtool if w not in orphans]
    if objtool:
        problems.append(f"{len(objtool)} objtool warnings on vmlinux.o, the first: "
                        + " | ".join(objtool[:3]))
    bad_lines = [line.strip() for line in log.splitlines()
                 if CONSOLE_FAILURES.search(line) and not SANITIZER.search(line)]
    if bad_lines:
        problems.append(f"{len(bad_lines)} console lines the torture scripts count as failure, "
                        "the first: " + " | ".join(bad_lines[:3]))
    if run.get("libatomic_symbols") and run["libatomic_symbols"] > 0:
        problems.append(f"vmlinux has {run['libatomic_symbols']} library-call symbols"
                        " (libcalls in scripts/arches.tsv)")
    return problems, qemu_timeout, orphans


def run_notes(results, name, run, after_bad, qemu_timeout, orphans):
    """What does not fail the run of name, but its summary says."""
    notes = []
    if after_bad:
        notes.append(f"{len(after_bad)} failure lines on the console after the restart "
                     "that ended the tests began, not counted, the first: " + after_bad[0])
    if (results / f"{name}.qemu-killed").exists() and not qemu_timeout:
        notes.append("QEMU hung on the reboot after the tests completed and was killed")
    if not run.get("audit") and name.split("-")[0] not in AUDITED:
        notes.append("no machine-code audit: katomic/audit has no rules for this "
                     "architecture's barriers")
    if orphans:
        notes.append(f"{len(orphans)} objtool warnings on code outside any function "
                     "(an overridden __weak body), not counted: " + orphans[0])
    return notes


def atomic64_cell(r):
    if r["atomic64_test"]:
        return "passed"
    return "-" if r["boot"] else "no results" if r.get("missing") else "audit only"


def run_tables(rows):
    """A row per run, and its stress and litmus figures."""
    lines = ["| config | result | passed | failed | skipped | atomic64_test | time |",
             "|---|---|---:|---:|---:|---|---:|"]
    for r in rows:
        lines.append(f"| {r['config']} | {'PASS' if r['ok'] else 'FAIL'} | {r['passed']} | "
                     f"{r['failed']} | {r['skipped']} | "
                     f"{atomic64_cell(r)} | "
                     f"{r['seconds']} s |")
    lines += ["", "| config | stress operations | and from interrupts |"
              " compare-and-swap retries | failed stress cases | litmus runs |"
              " forbidden outcomes seen |", "|---|---:|---:|---:|---:|---:|---:|"]
    for r in filter(lambda r: r["boot"], rows):
        lines.append(f"| {r['config']} | {sum(r['stress_operations'].values())} | "
                     f"{sum(r['stress_from_interrupts'].values())} | "
                     f"{sum(r['stress_retries'].values())} | "
                     f"{r['stress_failed']} | {r['litmus_runs']} | {r['litmus_forbidden_seen']} |")
    return lines


def check_tables(rows):
    """What the sanitizers instrument, the audits and herd7's checks."""
    lines = []
    instr = [r for r in rows if r.get("instrumentation")]
    if instr:
        objs = ("raw_asm", "raw_builtins", "instrumented_asm", "instrumented_builtins")
        lines += ["", "| config | sanitizer calls in the probe (functions with calls / calls):"
                  " raw asm | raw builtins | instrumented asm | instrumented builtins |",
                  "|---|---:|---:|---:|---:|"]
        for r in instr:
            i = r["instrumentation"]
            lines.append(f"| {r['config']} | " + " | ".join(
                f"{i[o]['with_calls']} / {i[o]['calls']}" if o in i else "-" for o in objs) + " |")
    audited = [r for r in rows if "asm" in r["audit"]]
    if audited:
        lines += ["", "| config | audit: asm pass / needless barrier / fail | builtins |"
                  " compiler worries kept | canaries transformed |"
                  " C11 relaxed: guaranteed cases transformed |", "|---|---|---|---:|---:|---|"]
        for r in audited:
            a = r["audit"]
            lines.append(f"| {r['config']} | " + " | ".join(
                f"{a[i]['pass']} / {a[i]['cost']} / {a[i]['fail']}" if a[i].get("offered", True)
                else f"not offered ({a[i]['fail']} would fail)" for i in ("asm", "builtins"))
                + f" | {a['guaranteed_kept']} of {a['worries_total']['guaranteed']} | "
                f"{a['canaries_transformed']} of {a['worries_total']['canary']} | "
                f"{len(a['c11_transformed'])} of {a['c11_total']}"
                f"{' (' + ', '.join(a['c11_transformed']) + ')' if a['c11_transformed'] else ''} |")
    if any(r["herd7"] for r in rows):
        lines += ["", "| config | code under its architecture's model | tests | translated |"
                  " run (the LKMM forbids the outcome) | violations | errors | self-test | time |",
                  "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
        lines += [f"| {r['config']} | {h['code']} ({h['model']})"
                  f"{'' if h['offered'] else ', not offered'} | {h['tests']} | {h['translated']} | "
                  f"{h['run']} | {h['violations']} | {h['errors']} | "
                  f"{h['selftest_ok']} of {h['selftest']} | {h['time_s']} s |"
                  for r in rows for h in r["herd7"]]
    return lines


def problem_lines(rows):
    """Each run's problems and notes, why cases skipped, and why they failed."""
    lines = []
    for r in rows:
        for p in r["problems"]:
            lines.append(f"\n- {r['config']}: {p}")
        for n in r["notes"]:
            lines.append(f"\n- {r['config']} (note): {n}")
    if any(r["skip_reasons"] for r in rows):
        lines += ["", "| config | skipped cases: why (count) |", "|---|---|"]
        lines += [f"| {r['config']} | " + "; ".join(f"{k} ({v})" for k, v in r["skip_reasons"].items())
                  + " |" for r in rows if r["skip_reasons"]]
    failures = [(r["config"], n, c) for r in rows for n, c in r["failure_causes"].items()]
    if failures:
        lines += ["", "| config | failed case | its first failed expectation |", "|---|---|---|"]
        lines += [f"| {cfg} | {n} | {c} |" for cfg, n, c in failures[:40]]
        if len(failures) > 40:
            lines.append(f"| ... | {len(failures) - 40} more in summary.json | |")
    return lines


def observations(rows):
    """The litmus tests whose outcome the LKMM allows: how often it showed."""
    sometimes = ["", "## Litmus tests the LKMM allows (observations, not tests)", "",
                 "| config | suite | test | runs | the outcome asked about |",
                 "|---|---|---|---:|---:|"]
    for r in rows:
        sometimes += [f"| {r['config']} | {t['suite']} | {t['test']} | {t['runs']} | "
                      f"{t['exists_seen']} |" for t in r["litmus"] if not t["never"]]
    return sometimes


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: python3 -m katomic.summary RESULTS CONFIG...: the runs of CONFIG... "
                 "in RESULTS, checked, as RESULTS/summary.{md,json}")
    results = Path(sys.argv[1])
    rows = [summarise(results, name) for name in sys.argv[2:]]
    lines = run_tables(rows) + check_tables(rows) + problem_lines(rows)
    sometimes = observations(rows)
    # The series each run was built from (tree.series_id).
    series = sorted({r["series"] for r in rows if r.get("series")})
    head = f"Series {', '.join(series) or 'unknown'} (sha256 of patches/, 16 digits)"
    if len(series) > 1:
        head += ": the runs are of different series"
    (results / "summary.md").write_text("# katomic test summary\n\n" + head + "\n\n"
                                        + "\n".join(lines + sometimes) + "\n")
    (results / "summary.json").write_text(json.dumps({"series": series, "configs": rows},
                                                     indent=2) + "\n")
    print("\n".join(lines))
    passed = sum(r["passed"] for r in rows)
    failed = sum(r["failed"] for r in rows) + sum(1 for r in rows if not r["ok"] and not r["failed"])
    print(f"\nresults: {results}/summary.md")
    print(f"katomic: {passed} passed, {failed} failed")
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
