# SPDX-License-Identifier: GPL-2.0
# sun4u (an UltraSPARC IIi), one CPU: QEMU's sparc64 machines have no SMP.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='sparc',
			   kconfig='''
CONFIG_64BIT=y
CONFIG_PCI=y
CONFIG_SERIAL_SUNSU=y
CONFIG_SERIAL_SUNSU_CONSOLE=y''',
			   qemu_arch='sparc64',
			   kernel_path='arch/sparc/boot/image',
			   kernel_command_line='console=ttyS0',
			   extra_qemu_params=[])
