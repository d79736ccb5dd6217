"""The scan tests' oracle: the mirror's manifest and the mbox copies of its messages.

By default the mirror of tests/data (its manifest, and tests/data/mail's mbox
copies of its 2023-06..07 messages); ``whole=True`` reads the whole mirror and
corpus of ../shared instead (only for tests marked ``shared``).

The archive obfuscates addresses (format doc section 9): an ``@`` with an
address character before it and four after it becomes ``@...`` and the next
three characters are dropped, except inside linked URLs; control characters
other than TAB and LF become ``.``, CR is dropped. :func:`archive_body`
applies that to an mbox message's inline text parts so it can be compared
with what the scan stored.
"""

from __future__ import annotations

import email.header
import email.message
import email.utils
import mailbox
import re
from datetime import date
from functools import lru_cache
from pathlib import Path

from conftest import CORPUS, DATA_MAIL, DATA_MIRROR, MIRROR, SHARED
from reviewbot.store import StoredMessage

_C = r"A-Za-z0-9.!#$%&'*+\-/=?^_`{|}~"
_OBF = re.compile(rf"(?<=[{_C}])@[{_C}]{{3}}(?=[{_C}])")
# linked URLs: no user-info and no port in the authority (those are not linked, so obfuscated)
_URL = re.compile(r"(?:https?|ftp)://(?![^/\s]*[@:])[A-Za-z0-9][A-Za-z0-9.-]*[A-Za-z0-9._~:/?#\[\]@!$&'()*+,;=%-]*")
_CTRL = re.compile(r"[\x00-\x08\x0b-\x1f]")


def obfuscate(text: str) -> str:
    """The archive's address obfuscation, URLs left alone."""
    out, pos = [], 0
    for m in _URL.finditer(text):
        url = m.group(0).rstrip(".!),;:?")
        out.append(_OBF.sub("@...", text[pos : m.start()]))
        out.append(url)
        pos = m.start() + len(url)
    out.append(_OBF.sub("@...", text[pos:]))
    return "".join(out)


def _inline_parts(msg: email.message.Message) -> list[str]:
    parts = []
    for part in msg.walk():
        if part.is_multipart():
            continue
        disposition = part.get("Content-Disposition") or ""
        if part.get_filename() or (disposition.lower().startswith("attachment") and ";" in disposition):
            continue
        ctype = part.get_content_type()
        if not ((ctype.startswith("text/") and ctype != "text/html") or ctype == "message/rfc822"):
            continue
        data = part.get_payload(decode=True) or b""
        charset = part.get_content_charset() or "utf-8"
        try:
            text = data.decode(charset, errors="replace")
        except LookupError:
            text = data.decode("utf-8", errors="replace")
        parts.append(text)
    return parts


def archive_body(msg: email.message.Message) -> str:
    """The body the archive shows for an mbox message (inline text parts, obfuscated)."""
    return "\n".join(_CTRL.sub(".", obfuscate(p.replace("\r", ""))) for p in _inline_parts(msg))


def unfold_subject(value: str) -> str:
    """A Subject header decoded (RFC 2047) with its folding and runs of whitespace collapsed."""
    text = str(email.header.make_header(email.header.decode_header(value)))
    text = re.sub(r"\[linux-kernel\]\s*", "", text, flags=re.I)
    return " ".join(text.split())


@lru_cache(maxsize=2)
def mbox_index(whole: bool = False) -> dict[str, email.message.Message]:
    """Message-ID -> message, from the corpus mbox and the seeds (first copy wins)."""
    out: dict[str, email.message.Message] = {}
    paths = (CORPUS / "lkml-real.mbox", SHARED / "openwall-seeds.mbox") if whole else (DATA_MAIL / "lkml-sample.mbox",)
    for path in paths:
        for msg in mailbox.mbox(str(path)):
            mid = re.sub(r"\s+", "", (msg.get("Message-ID") or "")).strip("<>")
            out.setdefault(mid, msg)
    return out


@lru_cache(maxsize=2)
def manifest(whole: bool = False) -> list[tuple[str, str]]:
    """(Message-ID, URL path) of every message of the mirror."""
    rows = []
    with ((MIRROR if whole else DATA_MIRROR) / "manifest.tsv").open(encoding="utf-8") as fh:
        next(fh)
        for line in fh:
            mid, path, *_ = line.rstrip("\n").split("\t")
            rows.append((mid, path))
    return rows


def manifest_between(since: date, until: date) -> dict[str, str]:
    """Message-ID -> URL path for the mirror's messages filed on days in [since, until]."""
    out = {}
    for mid, path in manifest():
        y, m, d = (int(x) for x in path.split("/")[2:5])
        if since <= date(y, m, d) <= until:
            out[mid] = path
    return out


def mismatches(stored: StoredMessage, msg: email.message.Message) -> list[str]:
    """What differs between a stored message and its mbox copy (empty: a match)."""
    problems = []
    subject = msg.get("Subject")
    want_subject = unfold_subject(subject) if subject is not None else ""
    got_subject = " ".join(stored.message.subject.raw.split())
    if got_subject != obfuscate(want_subject):
        problems.append(f"subject {got_subject!r} != {want_subject!r}")
    date_header = msg.get("Date")
    if date_header:
        want = email.utils.parsedate_to_datetime(date_header)
        got = stored.message.date
        if got != want:
            problems.append(f"date {got} != {want}")
    body = stored.message.body
    want_body = archive_body(msg)
    if body.rstrip("\n") != want_body.rstrip("\n"):
        problems.append("body differs")
    return problems


__all__ = ["archive_body", "manifest", "manifest_between", "mbox_index", "mismatches", "obfuscate", "Path"]
