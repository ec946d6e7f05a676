# SPDX-License-Identifier: GPL-2.0
# QEMU's LoongArch virt machine, the kernel's ELF loaded directly.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='loongarch',
			   kconfig='''
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_SERIAL_OF_PLATFORM=y''',
			   qemu_arch='loongarch64',
			   kernel_path='vmlinux',
			   kernel_command_line='console=ttyS0,115200',
			   extra_qemu_params=['-M', 'virt', '-cpu', 'la464', '-m', '1G'])
