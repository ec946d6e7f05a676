# SPDX-License-Identifier: GPL-2.0
"""scripts/arches.tsv: katomic's architectures, a row each."""

import sys

from . import SCRIPTS

ARCHES = SCRIPTS / "arches.tsv"


def arches():
    """{name: {column: field}} of the rows of ARCHES that make report
    covers (target all), in its order, the columns named by its header line;
    "-" is empty."""
    out, columns = {}, None
    for line in ARCHES.read_text().splitlines():
        if line.startswith("#name\t"):
            columns = line[1:].split("\t")
        elif line.strip() and not line.startswith("#"):
            fields = line.split("\t")
            if not columns or len(fields) != len(columns):
                sys.exit(f"{ARCHES}: a row does not match the header line: {line}")
            row = dict(zip(columns, ("" if f == "-" else f for f in fields)))
            if row["target"] == "all":  # the others: make test-arches only
                out[fields[0]] = row
    return out
