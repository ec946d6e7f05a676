# SPDX-License-Identifier: GPL-2.0
# QEMU's generic e500 board with the 32-bit e500mc, SMP (its vCPUs in turn
# on one thread: no MTTCG for ppc in QEMU 7.2). Its CCSR sits above 4 GiB,
# hence PHYS_64BIT. PPC_QEMU_E500 builds a uImage too: its row installs
# u-boot-tools for mkimage.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='powerpc',
			   kconfig='''
CONFIG_PPC_85xx=y
CONFIG_PPC_E500MC=y
CONFIG_PPC_QEMU_E500=y
CONFIG_PHYS_64BIT=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_SERIAL_OF_PLATFORM=y''',
			   qemu_arch='ppc',
			   kernel_path='vmlinux',
			   kernel_command_line='console=ttyS0',
			   extra_qemu_params=['-M', 'ppce500', '-cpu', 'e500mc'])
