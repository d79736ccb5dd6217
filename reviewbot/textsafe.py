"""One helper for every place a mail's text reaches a terminal or a draft: control characters escaped.

A subject, a diff line or an address comes from whoever wrote the mail. Printed raw, ``ESC ] 52``
writes the reader's clipboard, ``ESC [`` moves the cursor or hides text, BEL rings, a right-to-left
override (U+202E) shows a line in another order than it reads; written raw into a draft, the same
bytes reach the mail reader of whoever opens it. :func:`shown` writes such characters as Python
escapes (``\\x1b``, ``\\u202e``), so the reader sees that they were there and nothing acts on them.
"""

from __future__ import annotations

import functools
import re
import unicodedata

__all__ = ["shown"]

#: Unicode categories escaped: controls (ESC, BEL, CR, NUL...), format characters (bidi overrides and
#: isolates, zero-width characters), lone surrogates and the line and paragraph separators. Spaces such
#: as NO-BREAK SPACE are kept: they show as spaces and steer nothing.
ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


@functools.lru_cache(maxsize=8)
def _candidates(keep: str) -> re.Pattern[str]:
    """What may need escaping: an ASCII control or DEL not in ``keep``, or any non-ASCII character (its
    category decides). Plain ASCII text, nearly all of a patch, is passed over by the regex engine."""
    controls = "".join(re.escape(chr(c)) for c in (*range(0x20), 0x7F) if chr(c) not in keep)
    return re.compile(f"[{controls}\x80-\U0010ffff]")


def shown(text: str, keep: str = "") -> str:
    """``text`` with control and format characters written as escapes (``\\x1b``, ``\\u202e``).

    ``keep``: characters left as they are (``"\\t"`` for a diff line, ``"\\n\\t"`` for a mail body).
    """
    if text.isprintable():
        return text

    def one(match: re.Match[str]) -> str:
        ch = match.group()
        if ch in keep or unicodedata.category(ch) not in ESCAPED_CATEGORIES:
            return ch
        return ascii(ch)[1:-1]

    return _candidates(keep).sub(one, text)
