# SPDX-License-Identifier: GPL-2.0
"""scripts/arches.tsv as katomic/arches.py reads it."""

import unittest

from . import SCRIPTS, arches
from .testing import REPO, katomic


class ArchesTable(unittest.TestCase):
    """scripts/arches.tsv as arches.py reads it."""

    def rows(self):
        lines = (SCRIPTS / "arches.tsv").read_text().splitlines()
        header = next(line[1:].split("\t") for line in lines if line.startswith("#name\t"))
        rows = [line.split("\t") for line in lines if line.strip() and not line.startswith("#")]
        return header, [dict(zip(header, r)) for r in rows if self.assertEqual(len(r), len(header), r)
                        is None]

    def test_both_readers(self):
        header, rows = self.rows()
        self.assertEqual(set(arches.arches()), {r["name"] for r in rows if r["target"] == "all"})
        every = katomic("args", *(r["name"] for r in rows),
                        env={"KATOMIC_WORK": "/w"}).stdout.split("\n\n")
        self.assertEqual(len(every), len(rows))
        for row, out in zip(rows, every):
            with self.subTest(arch=row["name"]):
                args = out.splitlines()
                self.assertEqual(args[0], f"--arch={row['karch']}")
                if row["prefix"] != "-":
                    self.assertIn(f"--cross_compile={row['prefix']}", args)
                if row["kunit"] != "-":
                    for a in row["kunit"].split(";"):
                        self.assertIn(a.replace("@PLUGINS@", "/w/plugins")
                                      .replace("@REPO@", str(REPO)), args)
                smp = any(a.endswith("/kunit/smp.kunitconfig") for a in args)
                self.assertEqual(smp, int(row["cpus"]) > 1)
                self.assertIn(row["target"], ("all", "arches", "compile"))
                if row["target"] == "all":
                    got = arches.arches()[row["name"]]
                    self.assertEqual(got, {k: "" if v == "-" else v for k, v in row.items()})

    def test_targets(self):
        _, rows = self.rows()
        want = {t: [r["name"] for r in rows if r["target"] == t] for t in ("all", "arches")}
        self.assertEqual(katomic("configs", "arches").stdout.split(), want["arches"])
        self.assertEqual(katomic("configs").stdout.split()[:len(want["all"])], want["all"])


if __name__ == "__main__":
    unittest.main()
