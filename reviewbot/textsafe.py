"""One helper for every place a mail's text reaches a terminal or a draft: control characters escaped.

A subject, a diff line or an address comes from whoever wrote the mail. Printed raw, ``ESC ] 52``
writes the reader's clipboard, ``ESC [`` moves the cursor or hides text, BEL rings, a right-to-left
override (U+202E) shows a line in another order than it reads; written raw into a draft, the same
bytes reach the mail reader of whoever opens it. :func:`shown` writes such characters as Python
escapes (``\\x1b``, ``\\u202e``), so the reader sees that they were there and nothing acts on them.
"""

from __future__ import annotations

import unicodedata

__all__ = ["shown"]

#: Unicode categories escaped: controls (ESC, BEL, CR, NUL...), format characters (bidi overrides and
#: isolates, zero-width characters), lone surrogates and the line and paragraph separators. Spaces such
#: as NO-BREAK SPACE are kept: they show as spaces and steer nothing.
ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def shown(text: str, keep: str = "") -> str:
    """``text`` with control and format characters written as escapes (``\\x1b``, ``\\u202e``).

    ``keep``: characters left as they are (``"\\t"`` for a diff line, ``"\\n\\t"`` for a mail body).
    """
    if text.isprintable():
        return text
    return "".join(
        ch if ch in keep or unicodedata.category(ch) not in ESCAPED_CATEGORIES else ascii(ch)[1:-1] for ch in text
    )
