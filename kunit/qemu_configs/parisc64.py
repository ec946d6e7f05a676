# SPDX-License-Identifier: GPL-2.0
# Compiled only (target compile in scripts/arches.tsv): QEMU 7.2 emulates
# 32-bit PA-RISC 1.1 only, which a 64-bit kernel cannot boot on.
# kunit.py's format gives kunit.py config and build what they need.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='parisc',
			   kconfig='''
CONFIG_PA8X00=y
CONFIG_64BIT=y
CONFIG_SMP=y''',
			   qemu_arch='hppa',
			   kernel_path='vmlinux',
			   kernel_command_line='console=ttyS0',
			   extra_qemu_params=[])
