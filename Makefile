# katomic: build, boot and test Debian's linux-source-6.12 with patches/.
# 'make help' lists the targets; scripts/katomic.sh --help the knobs.
KATOMIC := scripts/katomic.sh
CONFIGS := $(shell $(KATOMIC) configs)
MORE := $(shell $(KATOMIC) configs more)
OTHERS := $(shell $(KATOMIC) configs arches)

.PHONY: help test test-all test-more test-arches report lkmm mutate deps tree export reset check clean

help:
	@echo "make test       build, boot and test the s390x kernel in QEMU (main job)"
	@echo "make test-all   the full matrix: $(CONFIGS) (-z10: configured and audited only, no build or boot); make -j N: N at once"
	@echo "make test-more  what test-all's 60 minutes leave out: $(MORE)"
	@echo "make test-arches the other architectures QEMU boots (kunit.py's configurations and kunit/qemu_configs/), on their own atomics: $(OTHERS) (results/arches/)"
	@echo "make report     assembly vs builtins vs stock, per architecture and compiler (GCC, clang): code, size, speed (results/report.md); ARCHES=\"s390x\" for some"
	@echo "make lkmm       herd7 under the kernel's memory model on the tree's litmus tests and katomic's (every primitive in every ordering), each verdict against its Result: line (results/lkmm.md); then katomic's on the code of each built test-all configuration of arm64, riscv64, ppc64le and x86_64, under their own models, held against the audit (results/litmus-arch.md)"
	@echo "make mutate     herd7's check and the audit made to fail: one barrier weakened at a time in arm64's, riscv64's and ppc64le's asm and builtins and x86_64's asm (scripts/mutations.tsv), each must fail both (results/litmus-mutations.md; after make test-all)"
	@echo "make deps       apt-get install what katomic needs"
	@echo "make tree       materialise the kernel tree with patches/ applied"
	@echo "make export     write the tree's commits back to patches/"
	@echo "make reset      drop the tree's local work, re-apply patches/"
	@echo "make check      every patch changed since results/check.tsv (FROM=N: all from patch N): checkpatch --strict, W=1 builds of what it touches, no new W=1 or sparse warning there, the suites booted at each topic's end (scripts/katomic.sh --help)"
	@echo "make clean      remove the work directory and results/, but for its tracked files (report*, audit.md, check.tsv, test-*, lkmm.*, litmus-arch.md, litmus-mutations.md, litmus-fixtures.md)"

test:
	$(KATOMIC) run s390x

test-all:
	$(KATOMIC) run $(CONFIGS)

test-more:
	$(KATOMIC) run $(MORE)

# Their own summary: test-all's stays in results/.
test-arches:
	KATOMIC_RESULTS=$(CURDIR)/results/arches $(KATOMIC) run $(OTHERS)

# make -j N test-all (test-more, test-arches): N configurations at once,
# the cores shared out; katomic/env.py reads N from MAKEFLAGS.

deps tree export reset lkmm mutate:
	$(KATOMIC) $@

# Without FROM, the patches changed since results/check.tsv; FROM=N: all
# from patch N on.
check:
	$(KATOMIC) check $(FROM)

report:
	$(KATOMIC) report $(ARCHES)

clean:
	rm -rf "$${KATOMIC_WORK:-$$HOME/.cache/katomic}"
	find results -type f ! -name 'report*' ! -name check.tsv ! -name audit.md ! -name 'test-*' ! -name 'lkmm.*' ! -name litmus-arch.md ! -name litmus-mutations.md ! -name litmus-fixtures.md -delete 2>/dev/null || true
