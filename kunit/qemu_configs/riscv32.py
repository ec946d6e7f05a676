# SPDX-License-Identifier: GPL-2.0
# QEMU's riscv32 virt machine, no SBI firmware: Debian ships OpenSBI for
# riscv64 only, so the kernel runs in M-mode without an MMU.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='riscv',
			   kconfig='''
CONFIG_NONPORTABLE=y
CONFIG_ARCH_RV32I=y
CONFIG_MMU=n
CONFIG_RISCV_M_MODE=y
CONFIG_ARCH_VIRT=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_SERIAL_OF_PLATFORM=y''',
			   qemu_arch='riscv32',
			   kernel_path='arch/riscv/boot/Image',
			   kernel_command_line='console=ttyS0',
			   extra_qemu_params=['-M', 'virt', '-bios', 'none'])
