#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# katomic's harness: python3 -m katomic (katomic/__main__.py), with the
# repository on PYTHONPATH; 'scripts/katomic.sh --help' lists its commands.
# A fresh Debian 12 machine may lack python3: as root, install it first.
command -v python3 >/dev/null ||
	{ [ "$(id -u)" -eq 0 ] && apt-get update -q >/dev/null &&
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		python3 >/dev/null; } ||
	{ echo "katomic: error: python3 is missing (apt-get install python3)" >&2; exit 1; }
REPO=$(cd "$(dirname "$0")/.." && pwd)
PYTHONPATH=$REPO${PYTHONPATH:+:$PYTHONPATH} exec python3 -m katomic "$@"
