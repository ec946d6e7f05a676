# SPDX-License-Identifier: GPL-2.0
# Compiled only (target compile in scripts/arches.tsv): the kernel boots
# from UEFI, and Debian 12 has no LoongArch UEFI firmware; QEMU 7.2's
# direct boot of the ELF passes no EFI system table, and the kernel prints
# nothing (not even with earlycon on the virt machine's UART). kunit.py's
# format gives kunit.py config and build what they need.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='loongarch',
			   kconfig='''
CONFIG_SMP=y''',
			   qemu_arch='loongarch64',
			   kernel_path='vmlinux',
			   kernel_command_line='console=ttyS0,115200',
			   extra_qemu_params=['-M', 'virt', '-cpu', 'la464'])
