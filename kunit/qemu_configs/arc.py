# SPDX-License-Identifier: GPL-2.0
# Compiled only (target compile in scripts/arches.tsv): QEMU 7.2 has no ARC
# machine. kunit.py's format gives kunit.py config and build what they need.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='arc',
			   kconfig='''
CONFIG_ISA_ARCV2=y
CONFIG_SMP=y''',
			   qemu_arch='arc',
			   kernel_path='vmlinux',
			   kernel_command_line='console=ttyS0',
			   extra_qemu_params=[])
