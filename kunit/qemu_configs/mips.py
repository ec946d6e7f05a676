# SPDX-License-Identifier: GPL-2.0
# Malta with the big-endian MIPS32r5 P5600, one CPU: QEMU 7.2 puts the
# vCPUs of -smp in one core of its Coherent Processing System as virtual
# processors, which the P5600 does not have, so the kernel brings up one.
# The kernel is SMP (MIPS_CPS), so its atomics are the SMP ones.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='mips',
			   kconfig='''
CONFIG_MIPS_MALTA=y
CONFIG_CPU_BIG_ENDIAN=y
CONFIG_CPU_MIPS32_R5=y
CONFIG_MIPS_CPS=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_POWER_RESET=y
CONFIG_POWER_RESET_SYSCON=y''',
			   qemu_arch='mips',
			   kernel_path='vmlinux',
			   kernel_command_line='console=ttyS0',
			   extra_qemu_params=['-M', 'malta', '-cpu', 'P5600'])
