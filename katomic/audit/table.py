# SPDX-License-Identifier: GPL-2.0
"""The tables of results/audit.md."""

MARK = {"pass": "ok", "cost": "cost", "fail": "**FAIL**", "absent": "-"}
UNOFFERED = "would fail (not offered)"      # a failure the build's Kconfig excludes


def table(audits):
    """Markdown of {column: CONFIG.audit.json}: counts, the compiler worries
    (case x column x flavour) and every primitive (primitive x column x
    implementation), with the reasons of what did not simply pass."""
    cols = list(audits)
    out = [f"- {c}: {audits[c].get('compiler') or 'compiler not recorded'}" for c in cols]
    out += ["", "| | " + " | ".join(f"{c}: asm" + f" | {c}: builtins" for c in cols) + " |",
            "|---|" + "---:|" * (2 * len(cols))]
    for v in ("pass", "cost", "fail", "absent"):
        out.append(f"| {v} | " + " | ".join(
            str(sum(1 for r in audits[c]["ordering"] if r["impl"] == i and r["verdict"] == v))
            + (" (not offered)" if v == "fail" and any(
                r.get("offered") is False for r in audits[c]["ordering"] if r["impl"] == i)
               else "")
            for c in cols for i in ("asm", "builtins")) + " |")
    flav = ("once", "builtins", "c11")
    out += ["", "### The compiler worries", "",
            "Each case compiled as the kernel idiom (READ_ONCE/WRITE_ONCE), with the builtins "
            "implementation's atomic_read/atomic_set, and as C11 relaxed `__atomic`; "
            "ok: every rule holds. A guaranteed case must hold; a canary is the programmer's "
            "fault, and *transformed* shows the checker sees what compilers do. The c11 "
            "flavour is the reference, what a relaxed C11 access gets: a guaranteed case it "
            "loses (*transformed*) is the article's worry come true, and fails no run.", "",
            "| case | class | " + " | ".join(f"{c}: {f}" for c in cols for f in flav) + " |",
            "|---|---|" + "---|" * (3 * len(cols))]
    cases = {}
    for c in cols:
        for w in audits[c]["worries"]:
            cases.setdefault((w["case"], w["class"]), {})[(c, w["flavour"])] = w
    notes = []
    for (case, cls), cells in cases.items():
        row = []
        for c in cols:
            for f in flav:
                w = cells.get((c, f))
                if not w:
                    row.append("-")
                    continue
                row.append("ok" if w["verdict"] == "pass" else
                           "*transformed*" if cls == "canary" or w.get("reference")
                           else "**FAIL**" if w.get("offered", True) else UNOFFERED)
                if w["verdict"] != "pass":
                    notes.append(f"- {case}, {c}, {f}"
                                 + (" (not offered)" if row[-1] == UNOFFERED else "")
                                 + f": {'; '.join(w['reasons'])}")
        out.append(f"| {case} | {cls} | " + " | ".join(row) + " |")
    out += ["", "<details><summary>What the checker saw where a rule did not hold</summary>",
            ""] + notes + ["", "</details>", "", "### Every primitive", "",
                           "| primitive | order | " + " | ".join(
                               f"{c}: asm | {c}: builtins" for c in cols) + " |",
                           "|---|---|" + "---|" * (2 * len(cols))]
    prims, notes = {}, []
    for c in cols:
        for r in audits[c]["ordering"]:
            prims.setdefault((r["primitive"], r["function"], r["order"]), {})[(c, r["impl"])] = r
    for (prim, fn, order), cells in prims.items():
        row = []
        for c in cols:
            for i in ("asm", "builtins"):
                r = cells.get((c, i))
                offer = not r or r.get("offered", True)
                row.append(UNOFFERED if r and r["verdict"] == "fail" and not offer else
                           MARK[r["verdict"]] if r else "-")
                if r and r["verdict"] in ("cost", "fail"):
                    notes.append(f"- {fn}, {c}, {i}{'' if offer else ' (not offered)'}: "
                                 f"{'; '.join(r['reasons'])}")
        out.append(f"| {fn[len('audit_'):]} | {order} | " + " | ".join(row) + " |")
    out += ["", "Needless barriers (a cost) and failures:", ""] + (notes or ["- none"])
    return "\n".join(out) + "\n"
