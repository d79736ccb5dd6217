"""Regular expressions compiled the first time they are used.

A rule names its patterns at the top of its module, built from its word lists
(``CLAIM_RE = lazyre.compile(rf"\\b(?:{alternation(CLAIM_WORDS)})\\b", re.I)``),
so a reader finds them beside the words they are made of. Compiling all of
them when the module is imported made every ``reviewbot check`` of one patch
pay for about two hundred patterns, most of which that patch never reaches.

:func:`compile` takes the same arguments as :func:`re.compile` and returns a
:class:`LazyPattern`: it keeps the source and compiles it at the first call
of a method (``search``, ``match``, ``sub``...). From then on its methods are
the compiled pattern's own, bound on the instance, so a pattern called a
million times in a batch costs what an :class:`re.Pattern` costs.
"""

from __future__ import annotations

import re
import sys
from typing import Any, AnyStr, Callable, Generic, Iterator

__all__ = ["LazyPattern", "compile"]

#: The methods of re.Pattern that a LazyPattern forwards.
_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split")


class LazyPattern(Generic[AnyStr]):
    """A regular expression with the methods of :class:`re.Pattern`, compiled on first use.

    ``pattern`` and ``flags`` are the source as given (reading them compiles
    nothing); :meth:`compiled` is the :class:`re.Pattern` itself.
    """

    def __init__(self, pattern: AnyStr, flags: int = 0) -> None:
        self.pattern: AnyStr = pattern
        self.flags = flags
        self._compiled: re.Pattern[AnyStr] | None = None

    def compiled(self) -> re.Pattern[AnyStr]:
        """The compiled pattern (compiled now, once); its methods replace this object's own."""
        if self._compiled is None:
            compiled = re.compile(self.pattern, self.flags)
            for name in _METHODS:  # later calls go straight to re's methods
                setattr(self, name, getattr(compiled, name))
            self._compiled = compiled
        return self._compiled

    def __repr__(self) -> str:
        return f"lazyre.compile({self.pattern!r}, {self.flags!r})"

    @property
    def groups(self) -> int:
        return self.compiled().groups

    @property
    def groupindex(self) -> Any:
        return self.compiled().groupindex

    # Each method below runs once at most: it compiles, and the compiled pattern's
    # method (bound on the instance by compiled()) answers every later call.
    def search(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[AnyStr] | None:
        return self.compiled().search(string, pos, endpos)

    def match(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[AnyStr] | None:
        return self.compiled().match(string, pos, endpos)

    def fullmatch(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[AnyStr] | None:
        return self.compiled().fullmatch(string, pos, endpos)

    def finditer(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[AnyStr]]:
        return self.compiled().finditer(string, pos, endpos)

    def findall(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        return self.compiled().findall(string, pos, endpos)

    def sub(self, repl: AnyStr | Callable[[re.Match[AnyStr]], AnyStr], string: AnyStr, count: int = 0) -> AnyStr:
        return self.compiled().sub(repl, string, count)

    def subn(
        self, repl: AnyStr | Callable[[re.Match[AnyStr]], AnyStr], string: AnyStr, count: int = 0
    ) -> tuple[AnyStr, int]:
        return self.compiled().subn(repl, string, count)

    def split(self, string: AnyStr, maxsplit: int = 0) -> list[AnyStr | Any]:
        return self.compiled().split(string, maxsplit)


def compile(pattern: AnyStr, flags: int = 0) -> LazyPattern[AnyStr]:  # noqa: A001 - the name re uses
    """A pattern like ``re.compile(pattern, flags)``, compiled when it is first used."""
    return LazyPattern(pattern, flags)
