# SPDX-License-Identifier: GPL-2.0
"""The CI pipeline: .gitlab-ci.yml is up to date, and its jobs are the
matrices' configurations."""

import unittest

from . import arches, ci, env


class Pipeline(unittest.TestCase):
    def test_up_to_date(self):
        """.gitlab-ci.yml is what gitlab-ci makes of arches.tsv."""
        self.assertEqual((env.REPO / ".gitlab-ci.yml").read_text(), ci.gitlab_ci(),
                         "run: scripts/katomic.sh gitlab-ci > .gitlab-ci.yml")

    def test_jobs(self):
        """A job per configuration of each matrix, and a merge job per
        matrix that needs all of them and summarises exactly them."""
        jobs = {}
        for block in ci.gitlab_ci().split("\n\n"):
            name = block.split(":", 1)[0]
            if not name.startswith(("#", " ", ".", "stages", "default")):
                jobs[name] = block
        for matrix in ("", "more", "arches"):
            configs = arches.configs(matrix)
            self.assertTrue(configs)
            merge = jobs[f"test-{matrix or 'all'}"]
            for c in configs:
                self.assertIn(f"    CONFIG: {c}\n", jobs[c])
                self.assertIn(f"    - job: {c}\n", merge)
            self.assertIn("scripts/katomic.sh summary " + " ".join(configs) + "\n", merge)
            self.assertEqual(merge.count("- job: "), len(configs))


if __name__ == "__main__":
    unittest.main()
