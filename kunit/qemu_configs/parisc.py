# SPDX-License-Identifier: GPL-2.0
# QEMU's hppa machine (a B160L with up to 8 CPUs), booted by its SeaBIOS
# (Debian's hppa-firmware.img) from the ELF vmlinux. QEMU 7.2's firmware
# reports a data cache of size 0 whose flush stride would be 32768 bytes;
# the series' parisc patch keeps the kernel's cache line at 16 there.
# Lasi (GSC_LASI) gives the console a serial port: without it the
# firmware's PDC console stays, whose \r\r\n line ends kunit.py's parser
# reads as breaks between tests.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='parisc',
			   kconfig='''
CONFIG_PA7100LC=y
CONFIG_GSC_LASI=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y''',
			   qemu_arch='hppa',
			   kernel_path='vmlinux',
			   kernel_command_line='console=ttyS0',
			   extra_qemu_params=['-m', '512'])
