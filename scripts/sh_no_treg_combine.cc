// SPDX-License-Identifier: GPL-2.0
/*
 * A GCC plugin for Debian 12's sh4-linux-gnu-gcc 12.2.0: the SH passes
 * sh_treg_combine2 and 3 replaced by passes that never run. Their cc1 reads
 * a bool return as an int and deletes the TST before conditional branches
 * (scripts/sh4_tbit.c, docs/findings.rst). The harness builds it into the
 * work directory and passes it to sh's builds (the row of scripts/arches.tsv);
 * by hand:
 *
 *   apt-get install g++ gcc-12-plugin-dev-sh4-linux-gnu
 *   g++ -std=gnu++17 -O2 -fPIC -shared -fno-rtti \
 *	-I"$(sh4-linux-gnu-gcc -print-file-name=plugin)/include" \
 *	scripts/sh_no_treg_combine.cc -o sh_no_treg_combine.so
 *   kunit.py run --arch=sh --cross_compile=sh4-linux-gnu- \
 *	--make_options=KCFLAGS=-fplugin=$PWD/sh_no_treg_combine.so ...
 */
#include "gcc-plugin.h"
#include "plugin-version.h"
#include "tree-pass.h"
#include "context.h"

int plugin_is_GPL_compatible;

namespace {

const pass_data off_data = {
	RTL_PASS, "sh_treg_combine_off", OPTGROUP_NONE, TV_NONE, 0, 0, 0, 0, 0
};

struct off_pass : public rtl_opt_pass {
	off_pass(gcc::context *ctx) : rtl_opt_pass(off_data, ctx) {}
	bool gate(function *) final override { return false; }
	opt_pass *clone() final override { return new off_pass(m_ctxt); }
};

const char *name;

/* The SH back end registers its passes after plugin_init(): replace them
 * when the first unit starts. */
void start_unit(void *, void *)
{
	static bool done;

	if (done)
		return;
	done = true;
	for (const char *ref : { "sh_treg_combine2", "sh_treg_combine3" }) {
		struct register_pass_info info = {
			new off_pass(g), ref, 0, PASS_POS_REPLACE
		};

		register_callback(name, PLUGIN_PASS_MANAGER_SETUP, NULL, &info);
	}
}

} // namespace

int plugin_init(struct plugin_name_args *info, struct plugin_gcc_version *ver)
{
	if (!plugin_default_version_check(ver, &gcc_version))
		return 1;
	name = info->base_name;
	register_callback(name, PLUGIN_START_UNIT, start_unit, NULL);
	return 0;
}
