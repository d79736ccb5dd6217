"""Subject lines of patch mail: ``Re: [RFC PATCH net-next v3 01/12] area: title``.

The prefix grammar follows what ``git format-patch`` and ``git send-email``
produce (``--subject-prefix``, ``-v N``, ``--rfc``, ``--numbered``) plus the
forms people type by hand and the mail clients add:

* reply/forward markers in any case, repeated, with a counter: ``Re:``,
  ``RE:``, ``Fwd:``, ``Fw:``, ``AW:`` (German), ``Antw:`` (Dutch), ``SV:``/
  ``VS:`` (Nordic), ``Re[2]:``, ``Re(2):``; ``RE [PATCH]`` without the colon
  before the first bracket group (C33);
* Mercurial's ``[PATCH 1 of 3]`` is the counter 1/3 (C28);
* any number of leading bracket groups; the words inside are split on spaces
  and commas; ``vN`` is the version, ``n/m`` the counter (``01/12`` too); the
  glued forms ``PATCHv2``, ``PATCH1/3``, ``RFCv3`` are split; every other word
  is a tag (upper-cased, e.g. ``NET-NEXT``, ``6.1``, ``RESEND``);
* a version tag at the end of the subject (stgit, David Howells):
  ``[PATCH 02/10] title [ver #3]``, ``title [v3]``; it is the version and is
  not part of the title (``[RESEND]`` there is a tag);
* the list tag ``[linux-kernel]`` (any case) that some archives keep is
  dropped, not counted as a tag.

Everything is one left-to-right scan with anchored patterns, so hostile input
(megabytes of ``[`` or ``Re:``) stays linear.
"""

from __future__ import annotations

import re
from functools import lru_cache

from reviewbot import lazyre
from reviewbot.models import Subject

__all__ = ["parse_subject", "LIST_TAGS"]

#: Bracket groups that are list tags, not patch tags (compared lower-cased).
LIST_TAGS = frozenset({"linux-kernel", "lkml"})

_REPLY = lazyre.compile(r"(?:re|fwd?|aw|antw|sv|vs)[ \t]*(?:\[\d{1,6}\]|\(\d{1,6}\))?[ \t]*:", re.IGNORECASE)
# "RE [PATCH] x", "Re [PATCH] x": the reply marker without its colon (Outlook, some web mailers;
# patchwork's subject_check reads "RE meep" as a reply too). Only before any bracket group:
# "[PATCH] re-add x" and "[PATCH] re x" keep their titles.
_REPLY_NO_COLON = lazyre.compile(r"re[ \t]+(?=\S)", re.IGNORECASE)
# Mercurial's patchbomb counter: "[PATCH 1 of 3]", "[PATCH 0 of 12]" (patchwork reads it so)
_OF_COUNTER = lazyre.compile(r"(?<![^\s,])(\d{1,6})[ \t]+of[ \t]+(\d{1,6})(?![^\s,])", re.IGNORECASE)
_VERSION = lazyre.compile(r"[vV](\d{1,6})")
_COUNTER = lazyre.compile(r"(\d{1,6})/(\d{1,6})")
# PATCHv2, PATCH1/3, RFCv3, RESENDv2 (a known word glued to a version or counter)
_GLUED = lazyre.compile(r"(PATCH|RFC|RESEND)(?:[vV](\d{1,6})|(\d{1,6})/(\d{1,6}))", re.IGNORECASE)
_WORD_SPLIT = lazyre.compile(r"[\s,]+")
# A version tag at the END of the subject, stgit's and David Howells' style: "title [ver #3]",
# "title [v3]", "title [version 3]"; "[RESEND]" there too. Anchored at the end, after a space.
_TRAILING_TAG = lazyre.compile(
    r"[ \t]+\[[ \t]*(?:(?:ver(?:sion)?[ \t]*#?[ \t]*|[vV])(\d{1,6})|(RESEND))[ \t]*\]$", re.IGNORECASE
)


@lru_cache(maxsize=4096)  # a Subject is frozen; a thread repeats its subject, and check reads each twice
def parse_subject(text: str) -> Subject:
    """Split a Subject header value into reply marker, tags, version, counter and title.

    ``text`` is the decoded, unfolded header value (RFC 2047 already undone);
    newlines and runs of whitespace count as one space. Never raises: a
    subject without any prefix is all title. Returns a :class:`Subject` whose
    ``version`` is 1 unless ``vN`` is given, ``index``/``total`` None without
    an ``n/m`` counter, ``is_reply`` True after ``Re:``/``Fwd:`` and friends.
    """
    raw = text
    s = " ".join(text.split()) if ("\n" in text or "\t" in text or "  " in text) else text.strip()
    pos = 0
    n = len(s)
    tags: list[str] = []
    version: int | None = None
    index: int | None = None
    total: int | None = None
    is_reply = False
    while pos < n:
        while pos < n and s[pos] == " ":
            pos += 1
        if pos >= n:
            break
        ch = s[pos]
        if ch == "[":
            end = s.find("]", pos + 1)
            if end < 0:
                break
            inner = s[pos + 1 : end]
            if "[" in inner:  # "[[" or nested: not a prefix group
                break
            if inner.strip().lower() not in LIST_TAGS:
                v, i, t = _parse_group(inner, tags)
                if v is not None and version is None:
                    version = v
                if i is not None and index is None:
                    index, total = i, t
            pos = end + 1
            continue
        m = _REPLY.match(s, pos)
        if m is None and not tags and version is None and index is None:
            m = _REPLY_NO_COLON.match(s, pos)
        if m is not None:
            is_reply = True
            pos = m.end()
            continue
        break
    title = s[pos:].strip()
    if title[:1] == ":" and pos:  # "[Patch 2/2]: title": git mailinfo drops the colon too
        title = title.lstrip(": \t")
    while pos and title.endswith("]"):  # "[PATCH 02/10] title [ver #3]": the version is at the end
        m = _TRAILING_TAG.search(title)
        if m is None:
            break
        if m.group(1) is not None:
            if version is None:
                version = int(m.group(1))
        elif "RESEND" not in tags:
            tags.append("RESEND")
        title = title[: m.start()].rstrip()
    return Subject(
        raw=raw,
        title=title,
        tags=tuple(tags),
        version=version if version is not None else 1,
        index=index,
        total=total,
        is_reply=is_reply,
    )


def _parse_group(inner: str, tags: list[str]) -> tuple[int | None, int | None, int | None]:
    """Read the words of one bracket group into ``tags``; return (version, index, total)."""
    version: int | None = None
    index: int | None = None
    total: int | None = None
    if " of " in inner or "\tof" in inner or " OF " in inner or " Of " in inner:
        inner = _OF_COUNTER.sub(r"\1/\2", inner)
    for word in _WORD_SPLIT.split(inner):
        if not word:
            continue
        m = _COUNTER.fullmatch(word)
        if m is not None:
            if index is None:
                index, total = int(m.group(1)), int(m.group(2))
            continue
        m = _VERSION.fullmatch(word)
        if m is not None:
            if version is None:
                version = int(m.group(1))
            continue
        m = _GLUED.fullmatch(word)
        if m is not None:
            tags.append(m.group(1).upper())
            if m.group(2) is not None:
                if version is None:
                    version = int(m.group(2))
            elif index is None:
                index, total = int(m.group(3)), int(m.group(4))
            continue
        tags.append(word.upper())
    return version, index, total
