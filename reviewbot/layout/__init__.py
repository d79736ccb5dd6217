"""Struct layouts from the kernel's own type information, grouped by cache line (issue 25).

* :mod:`reviewbot.layout.types`: the type model both readers fill (sizes, members, bit offsets) and the
  alignment a type has under the C layout rules;
* :mod:`reviewbot.layout.btf`: a reader of the BTF format (``/sys/kernel/btf/vmlinux``, ``.BTF`` sections);
* :mod:`reviewbot.layout.dwarf`: DWARF of a vmlinux or object file, through pyelftools;
* :mod:`reviewbot.layout.plan`: a struct's layout as the type information gives it, the layout after a
  patch's reorder computed with the C rules, and what moved across a cache line;
* :mod:`reviewbot.layout.render`: pahole-like text, JSON, and the short map RB101 quotes.
"""

from __future__ import annotations

from reviewbot.errors import InputError

#: where the running kernel publishes its BTF
RUNNING_KERNEL_BTF = "/sys/kernel/btf/vmlinux"


class TypeInfoError(InputError):
    """Type information that cannot be read (not BTF, not ELF, truncated): names the file and what was wrong."""


class Unresolved(Exception):
    """A layout that cannot be computed without guessing (a type the type information does not have, a
    patch whose lines do not match the struct it describes): the message says which and why."""


class NotInTypes(Unresolved):
    """The type information has no such type (the struct itself, or a type a member the patch adds is
    declared with): another file of the same build may have it, unlike a struct the patch does not match."""
