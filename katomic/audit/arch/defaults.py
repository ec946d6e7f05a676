# SPDX-License-Identifier: GPL-2.0
"""What an architecture module takes when its architecture has nothing
special there (the interface: __init__.py)."""


def got_load(i):
    """No load of a GOT slot to follow."""
    return False


def reloc_addend(i, a, off, nxt):
    """The relocation's addend is the offset."""
    return a


def toc_slot(i):
    """No TOC."""
    return False


def select_srcs(i):
    """No select between two addresses."""
    return None


def address_offset(i, held):
    """No offset added to an address held."""
    return None, 0
