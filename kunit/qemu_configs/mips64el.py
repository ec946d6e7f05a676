# SPDX-License-Identifier: GPL-2.0
# Malta with the MIPS64r6 I6400: QEMU gives it a Coherent Processing
# System, which the kernel's MIPS_CPS brings up as SMP. QEMU 7.2 runs the
# vCPUs in turn on one thread (no MTTCG for mips64el).
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='mips',
			   kconfig='''
CONFIG_MIPS_MALTA=y
CONFIG_CPU_LITTLE_ENDIAN=y
CONFIG_CPU_MIPS64_R6=y
CONFIG_64BIT=y
CONFIG_MIPS_CPS=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_POWER_RESET=y
CONFIG_POWER_RESET_SYSCON=y''',
			   qemu_arch='mips64el',
			   kernel_path='vmlinux',
			   kernel_command_line='console=ttyS0',
			   extra_qemu_params=['-M', 'malta', '-cpu', 'I6400'])
