# SPDX-License-Identifier: GPL-2.0
# QEMU's hppa machine (a B160L with up to 8 CPUs), booted by its SeaBIOS
# (Debian's hppa-firmware.img) from the ELF vmlinux. Compiled only for now
# (target compile in scripts/arches.tsv): this kernel faults in
# ___slab_alloc() during kmem_cache_init(), before any test, also without
# the series' atomics, with PA7000 and PA7100LC, on one CPU and four, with
# generic-32bit_defconfig and without SMP: QEMU 7.2's firmware describes a
# data cache whose flush stride, which the kernel takes for
# cache_line_size(), is 32768 bytes (docs/findings.rst).
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='parisc',
			   kconfig='''
CONFIG_PA7100LC=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y''',
			   qemu_arch='hppa',
			   kernel_path='vmlinux',
			   kernel_command_line='console=ttyS0',
			   extra_qemu_params=['-m', '512'])
