"""RawMessage -> Message: decode a mail (or an archive page's parts) into plain values.

Two sources (``RawMessage.kind``):

* ``"rfc822"``: the bytes of a mail (mbox entry, .eml, ``git format-patch``
  file). Parsed with the stdlib ``email`` package. The parser runs with the
  ``compat32`` policy and the headers are decoded here, field by field: the
  ``default`` policy's header registry raises on real-world headers (group
  syntax in ``To:``, broken encoded-words) and costs twice the time, while
  every part this module needs (RFC 2047 words, address lists, dates,
  transfer encodings) has its own stdlib function that we can guard.
* ``"archive"``: a lists.openwall.net (blists) message page already split by
  ``reviewbot.fetch.openwall``: at most six header lines as printed
  (``Message-ID``, ``Date``, ``From``, ``To``, ``Cc``, ``Subject``; any
  spelling, values possibly folded with "\\n"), addresses obfuscated as
  ``user@...main`` (kept as ``Address(partial=True)``), no In-Reply-To and no
  References (the page never shows them).

Body decoding follows what the archive shows (openwall-format.md 4.4): every
inline leaf part (``text/*`` but not ``text/html``, no file name, not
``Content-Disposition: attachment`` with parameters; ``message/rfc822`` raw)
in order, each decoded from its transfer encoding and declared charset; parts
with a file name become :class:`AttachmentRef` (with their text for ``text/*``
and diff-like names so the patch parser can use them). ``format=flowed``
(RFC 3676, with and without ``DelSp=yes``) is undone after the transfer
encoding and noted in ``Message.notes``, as ``git am`` warns about it.
"""

from __future__ import annotations

import base64
import codecs
import re
from datetime import datetime, timezone
from email import message_from_bytes
from email.header import decode_header, make_header
from email.message import Message as EmailMessage
from email.utils import getaddresses, parsedate_to_datetime
from functools import lru_cache

from reviewbot import lazyre
from reviewbot.errors import ParseError
from reviewbot.models import Address, AttachmentRef, Message, RawMessage, Recipients
from reviewbot.parse.subject import parse_subject

__all__ = [
    "parse_message",
    "parse_rfc822",
    "parse_archive",
    "decode_header_value",
    "parse_addresses",
    "parse_date",
    "normalize_msgid",
    "first_msgid",
    "msgid_list",
    "unflow",
    "FLOWED_NOTE",
]

FLOWED_NOTE = (
    "the mail was sent with format=flowed: long lines were re-joined and stuffed spaces "
    "removed, but trailing whitespace may have been lost; send patches with git send-email"
)

_MSGID = lazyre.compile(r"<([^<>\s]+)>")
_ID_END = lazyre.compile(r">(?=$|[\s<(,])")
_MSGID_LOOSE = lazyre.compile(r"<([^<>]*[^<>\s][^<>]*)>")  # spaces inside: kept (collapsed) so two such ids stay apart
_COMMENT = lazyre.compile(r"\([^()]*\)")
_FOLD = lazyre.compile(r"\r?\n(?=[ \t])")
_DIFF_NAME = lazyre.compile(r"\.(?:patch|diff)$", re.IGNORECASE)
_DIFF_TYPES = frozenset({"text/x-patch", "text/x-diff", "text/x-diff-patch", "application/x-patch"})


# ------------------------------------------------------------------ entry points


def parse_message(raw: RawMessage, *, empty_line: int | None = None) -> Message:
    """Decode a :class:`RawMessage` of either kind into a :class:`Message`.

    Raises :class:`ParseError` naming ``raw.source`` when the input is not a
    mail at all; odd charsets, dates and headers never raise (they degrade to
    replacement characters, ``date=None`` and notes). ``empty_line`` is
    ``raw.data.find(b"\\n\\n")`` when the caller has it already (see :func:`parse_rfc822`).
    """
    if raw.kind == "archive":
        return parse_archive(raw)
    if raw.kind == "rfc822":
        msg = parse_rfc822(raw.data, raw.source, empty_line=empty_line)
        if raw.list_name or raw.archive_url or raw.attachments:
            from dataclasses import replace

            msg = replace(
                msg,
                list_name=raw.list_name or msg.list_name,
                archive_url=raw.archive_url or msg.archive_url,
                attachments=msg.attachments + raw.attachments,
            )
        return msg
    raise ParseError(f"unknown message kind {raw.kind!r}", subject=raw.source)


def parse_rfc822(data: bytes, source: str, *, undo_flowed: bool = True, empty_line: int | None = None) -> Message:
    """Parse the bytes of one mail into a :class:`Message`.

    ``undo_flowed=False`` keeps format=flowed text as sent (the way the archive
    shows it; for comparing with archive pages); ``flowed`` is still set.
    ``empty_line`` is ``data.find(b"\\n\\n")`` when the caller has it already
    (a batch's first step finds it): the header block is not searched again.

    ``data`` may start with an mbox ``From `` line and may use CRLF line ends
    (turned into "\\n"; a bare CR inside a line is kept). ``source`` names the
    input in errors and in a synthetic Message-ID. Raises :class:`ParseError`
    for input that has no header at all (empty, binary junk).
    """
    if not isinstance(data, (bytes, bytearray)):
        raise ParseError("mail data must be bytes", subject=source)
    data = bytes(data)
    if not (data[:4096].strip() or data.strip()):  # the head first: no copy of a whole mail
        raise ParseError("empty mail", subject=source)
    from reviewbot.fetch.mailfiles import is_bare_diff

    if is_bare_diff(data):
        return _bare_diff_message(data, source)
    fast = _parse_plain(data, empty_line)
    if fast is not None:
        em, headers, _cut = fast
    else:
        try:
            em = _parse_bytes(data)
        except Exception as exc:  # the feed parser is lenient; guard anyway
            raise ParseError(f"cannot parse mail: {exc}", subject=source) from exc
        headers = _raw_headers(em)
    if not headers:
        raise ParseError("no mail headers found (not a mail?)", subject=source)
    notes: list[str] = []

    def h(name: str) -> str | None:
        return headers.get(name)

    message_id = normalize_msgid(h("message-id") or "")
    if not message_id:
        message_id = _synthetic_msgid(source, data)
        notes.append(f"no Message-ID header; using synthetic {message_id}")

    subject_text = decode_header_value(h("subject") or "")
    date_raw = _unfold(h("date") or "").strip()
    date = parse_date(date_raw)
    if date_raw and date is None:
        notes.append(f"unparseable Date header: {date_raw[:80]!r}")
    from_list = sender_addresses(h("from") or "")
    in_reply_to = first_msgid(h("in-reply-to") or "")
    references = msgid_list(h("references") or "")

    try:
        body, attachments, flowed, verbatim = _body_of(em, source, notes, undo_flowed)
    except _BadCharset as exc:
        # git mailinfo: "cannot convert from ... to UTF-8"; git am then stops on this mail
        raise ParseError(
            f"message <{message_id}>: invalid charset {exc.charset!r} in Content-Type: the body cannot be decoded",
            subject=source,
        ) from None
    body_start = (
        (_body_start_line(data, fast[2]) if fast is not None else _body_start_line(data, nl=empty_line))
        if verbatim
        else 1
    )

    return Message(
        message_id=message_id,
        subject=parse_subject(subject_text),
        from_addr=from_list[0] if from_list else None,
        date=date,
        date_raw=date_raw,
        to=_recipients(h("to")),
        cc=_recipients(h("cc")),
        in_reply_to=in_reply_to,
        references=references,
        body=body,
        source=source,
        flowed=flowed,
        attachments=tuple(attachments),
        notes=tuple(notes),
        body_start_line=body_start,
    )


BARE_DIFF_NOTE = "a bare diff without mail headers: the diff is checked, the commit message rules are not run"


def _bare_diff_message(data: bytes, source: str) -> Message:
    """A diff without mail headers (C18) as a Message: the whole input is its body, line 1 its first line.

    No author, title or date is invented; the Message-ID is synthetic.
    """
    text = _decode_bytes(data, None).replace("\r\n", "\n")
    return Message(
        message_id=_synthetic_msgid(source, data),
        subject=parse_subject(""),
        from_addr=None,
        date=None,
        body=text,
        source=source,
        notes=(BARE_DIFF_NOTE,),
        body_start_line=1,
        bare_diff=True,
    )


class _BadCharset(Exception):
    def __init__(self, charset: str) -> None:
        super().__init__(charset)
        self.charset = charset


# RFC 2978 mime-charset: printable ASCII letters, digits and !#$%&'+-^_`{}~ (and the
# '.' ':' '(' ')' real mail uses); no control character, space or quote
_CHARSET_NAME = lazyre.compile(r"[A-Za-z0-9!#$%&'+\-^_`{}~.:()]{1,64}")


def _checked_charset(part: EmailMessage) -> str | None:
    """The charset a text part declares; raises _BadCharset for a name no charset can have (C22)."""
    try:
        cs = part.get_content_charset()
    except Exception:
        cs = None
    if cs is None:
        return None
    if isinstance(cs, str) and _CHARSET_NAME.fullmatch(cs.strip().strip('"')):
        return cs
    if isinstance(cs, str) and not cs.strip().strip('"'):
        return None
    raise _BadCharset(str(cs))


def parse_archive(raw: RawMessage) -> Message:
    """Decode an archive page's parts (kind ``"archive"``) into a :class:`Message`.

    Header names are matched case-insensitively; values may be folded with
    "\\n" plus whitespace. Addresses containing ``@...`` become partial;
    ``obfuscated`` is always True. In-Reply-To/References stay empty (the
    archive does not show them); thread links are copied for the caller.
    """
    headers: dict[str, str] = {}
    for name, value in raw.header_lines:
        headers[name.strip().rstrip(":").strip().lower()] = value  # the last one wins, as on the page
    notes: list[str] = []
    message_id = normalize_msgid(headers.get("message-id", ""))
    body = raw.body.replace("\r\n", "\n")
    if not message_id:
        message_id = _synthetic_msgid(
            raw.source,
            ("\n".join(f"{k}: {v}" for k, v in raw.header_lines) + "\n\n" + body).encode("utf-8", "surrogatepass"),
        )
        notes.append(f"no Message-ID line on the page; using synthetic {message_id}")
    date_raw = " ".join(headers.get("date", "").split())
    date = parse_date(date_raw)
    if date_raw and date is None:
        notes.append(f"unparseable Date line: {date_raw[:80]!r}")
    subject_text = _unfold(headers.get("subject", "")).strip()
    if raw.censored:
        notes.append("the archive removed this message's content")
    from_list = parse_addresses(headers.get("from", ""))
    return Message(
        message_id=message_id,
        subject=parse_subject(subject_text),
        from_addr=from_list[0] if from_list else None,
        date=date,
        date_raw=date_raw,
        to=tuple(parse_addresses(headers.get("to", ""))),
        cc=tuple(parse_addresses(headers.get("cc", ""))),
        in_reply_to=None,
        references=(),
        body=body,
        source=raw.source,
        list_name=raw.list_name,
        archive_url=raw.archive_url,
        obfuscated=True,
        flowed=False,
        attachments=raw.attachments,
        thread_prev_url=raw.thread_prev_url,
        thread_next_url=raw.thread_next_url,
        notes=tuple(notes),
    )


def _first_empty_line(data: bytes, nl: int | None = None) -> tuple[int, int]:
    """(offset of "\\n\\n", offset of "\\n\\r\\n") as ``bytes.find`` gives them, except that
    a CRLF one after the first LF one is not looked for (-1): callers take the earlier.
    ``nl`` is the first of them when the caller has it already."""
    if nl is None:
        nl = data.find(b"\n\n")
    if nl >= 0 and data.find(b"\r", 0, nl + 2) < 0:
        return nl, -1  # no CR before the LF one (most mail): no CRLF one there either (a CR is found at memchr speed)
    crnl = data.find(b"\n\r\n", 0, nl + 2) if nl >= 0 else data.find(b"\n\r\n")
    return nl, crnl


def _header_cut(data: bytes, nl: int | None = None) -> int:
    """Offset just past the empty line that ends the header block, or -1 without one (``nl``: see
    :func:`_first_empty_line`)."""
    nl, crnl = _first_empty_line(data, nl)
    if nl >= 0 and (crnl < 0 or nl < crnl):
        return nl + 2
    if crnl >= 0:
        return crnl + 3
    return -1


# A header block the stdlib feed parser reads without a defect: an optional mbox envelope
# line first, then header lines (email.feedparser.headerRE: a name of printable characters
# other than ":", then ":"), each followed by its continuation lines (leading blank).
# Each part can be read one way only (a name holds no ":", a header line starts with no blank, the
# envelope's "From " is no name), so the repeats are possessive (`*+`, `++`, `?+`): the regex keeps
# no way back for each of a header block's lines (a third fewer instructions, the same matches).
_PLAIN_BLOCK = lazyre.compile(r"(?:From [^\n]*+\n)?+(?:[\041-\071\073-\176]++:[^\n]*+\n(?:[ \t][^\n]*+\n)*+)++")
# The headers parse_rfc822 reads (and every Content-* one, for the body), each with its
# continuation lines; in a block _PLAIN_BLOCK accepted, every line start is a header name,
# a continuation blank or the envelope, so the other headers are skipped inside the regex.
_USED_HEADER = lazyre.compile(
    r"\n(?=[MmSsDdFfTtCcIiRr])"  # their first letters: continuation and Received/DKIM/X- lines are passed at once
    r"((?ai:message-id|subject|date|from|to|cc|in-reply-to|references|content-[\041-\071\073-\176]*)):"
    r"(.*(?:\n[ \t].*)*)"
)  # searched in "\n" + block: the literal "\n" lets the regex jump from line start to line start


def _split_header_block(block: str) -> list[tuple[str, str]] | None:
    """The raw (name, value) pairs of the headers this module reads (``_USED_HEADER``) in a
    header block, exactly as the stdlib feed parser stores them.

    ``block`` is the decoded header lines with their line ends (no empty line).
    Values are built as compat32's ``header_source_parse`` builds them (the
    first line's value with leading blanks removed, continuation lines as
    sent, the last line end removed). Returns None for anything the parser
    treats specially (a bare CR, a misplaced envelope line, a line that is not
    a header, a continuation with no header): the caller then runs the parser.
    """
    if "\r" in block and block.count("\r") != block.count("\r\n"):
        return None
    if _PLAIN_BLOCK.fullmatch(block) is None:
        return None
    return [(m.group(1), m.group(2).lstrip(" \t").rstrip("\r\n")) for m in _USED_HEADER.finditer("\n" + block)]


def _parse_plain(data: bytes, nl: int | None = None) -> tuple[EmailMessage, dict[str, str], int] | None:
    """The usual mail (plain header block, one text part) without the feed parser.

    Returns (message holding the ``Content-*`` headers and the body as payload,
    raw headers as :func:`_raw_headers` gives them), or None when the mail
    needs the parser: odd header lines, multipart or message/* types. What the
    body decoding reads is the same either way: only ``Content-*`` headers and
    the payload (``Message.get`` scans every header, and LKML mails carry
    dozens, so the slim message also makes those lookups cheap).
    """
    cut = _header_cut(data, nl)
    if cut <= 0:
        return None
    text = data[:cut].decode("ascii", "surrogateescape")
    pairs = _split_header_block(text[: cut - (1 if text.endswith("\n\n") else 2)])
    if pairs is None:
        return None
    em = EmailMessage()
    headers: dict[str, str] = {}
    for name, value in pairs:
        key = name.lower()
        if key.startswith("content-"):
            em.set_raw(name, value)
        if key not in headers:
            headers[key] = _fix_8bit(value)
    if em.get_content_maintype() in ("multipart", "message"):
        return None
    em.set_payload(data[cut:].decode("ascii", "surrogateescape"))
    return em, headers, cut


def _parse_bytes(data: bytes) -> EmailMessage:
    """``email.message_from_bytes`` (compat32, the default policy), faster for plain mails.

    The feed parser walks the body line by line even when it is one text
    part; for a mail whose header block ends at an empty line and whose type
    is not multipart (or message/*), the header block alone is parsed and the
    body bytes are set as the payload, exactly as the feed parser would store
    them. Transfer decoding still goes through ``get_payload(decode=True)``.
    """
    cut = -1
    nl = data.find(b"\n\n")
    crnl = data.find(b"\n\r\n")
    if nl >= 0 and (crnl < 0 or nl < crnl):
        cut = nl + 2
    elif crnl >= 0:
        cut = crnl + 3
    if cut > 0:
        em = message_from_bytes(data[:cut])
        if not em.defects and not em.get_payload() and em.get_content_maintype() not in ("multipart", "message"):
            em.set_payload(data[cut:].decode("ascii", "surrogateescape"))
            return em
    return message_from_bytes(data)  # compat32: the default, and no header registry to import


# ------------------------------------------------------------------ headers


def _raw_headers(em: EmailMessage) -> dict[str, str]:
    """Header name (lower-case) -> raw value as text; the first occurrence wins.

    8-bit bytes in headers (not allowed, but sent) are read as UTF-8, else Latin-1.
    """
    out: dict[str, str] = {}
    for name, value in em.raw_items():  # raw (name, value) pairs; no policy parsing
        key = name.lower()
        if key in out:
            continue
        if not isinstance(value, str):
            value = str(value)
        out[key] = _fix_8bit(value)
    return out


def _fix_8bit(value: str) -> str:
    try:
        value.encode("ascii")
        return value
    except UnicodeEncodeError:
        pass
    raw = value.encode("ascii", "surrogateescape") if _has_surrogates(value) else None
    if raw is None:
        return value
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def _has_surrogates(value: str) -> bool:
    try:
        value.encode("utf-8")
        return False
    except UnicodeEncodeError:
        return True


def _unfold(value: str) -> str:
    """RFC 5322 unfolding: drop the line break of a fold, keep the whitespace."""
    if "\n" not in value:
        return value
    if "\r" not in value:  # the usual fold: the same as the regex below, a few times cheaper
        return value.replace("\n ", " ").replace("\n\t", "\t").replace("\n", " ")
    return _FOLD.sub("", value).replace("\r", "").replace("\n", " ")


def decode_header_value(value: str) -> str:
    """Unfold a header value and decode its RFC 2047 encoded-words.

    Unknown charsets and broken encoded-words never raise: the words are then
    kept as written. Returns text without line breaks.
    """
    value = _unfold(value)
    if "=?" not in value:
        return value.strip()
    try:
        return str(make_header(decode_header(value))).strip()
    except Exception:  # HeaderParseError, LookupError, UnicodeError, binascii errors
        return _decode_words_leniently(value).strip()


_EWORD = lazyre.compile(r"=\?([^?\s]{1,64})\?([bBqQ])\?([^?\s]{0,2000})\?=")


def _decode_words_leniently(value: str) -> str:
    """Decode encoded-words one by one, replacing what cannot be decoded."""

    def one(m: re.Match[str]) -> str:
        charset = m.group(1).split("*", 1)[0]
        enc = m.group(2).upper()
        text = m.group(3)
        try:
            if enc == "B":
                data = base64.b64decode(text + "=" * (-len(text) % 4), validate=False)
            else:
                data = re.sub(r"=([0-9A-Fa-f]{2})", lambda x: chr(int(x.group(1), 16)), text.replace("_", " ")).encode(
                    "latin-1", "replace"
                )
        except Exception:
            return m.group(0)
        return _decode_bytes(data, charset)

    out = _EWORD.sub(one, value)
    return out


def normalize_msgid(value: str) -> str:
    """``<id@host>`` (possibly folded, with comments) -> ``id@host``; "" if none."""
    value = _unfold(value).strip()
    if not value:
        return ""
    if '"' in value:  # an id holding a quote may hold a '>' too: read it as msgid_list does
        ids = msgid_list(value)
        return ids[0] if ids else value.strip("<>").strip()
    m = _MSGID.search(value) or _MSGID_LOOSE.search(value)
    if m is not None:
        return " ".join(m.group(1).split())
    # no brackets: take the first word that looks like an id
    for word in value.split():
        word = word.strip("<>")
        if word and "(" not in word:
            return word
    return ""


def first_msgid(value: str) -> str | None:
    """The first msg-id of an In-Reply-To value, comments dropped (C12); None if none.

    ``<id> (message from Ada on ...)`` -> ``id``; folded values are accepted.
    """
    ids = msgid_list(value)
    return ids[0] if ids else None


def msgid_list(value: str) -> tuple[str, ...]:
    """All ``<msg-id>`` of a References/In-Reply-To value, in order, without brackets or comments."""
    if not value:
        return ()
    value = _unfold(value)
    if "=?" in value and "<" not in value:  # encoded words (tip-bot2's In-Reply-To): git and public-inbox decode
        value = decode_header_value(value)
    stripped = value
    if "(" in stripped:
        # comments may hold <...> too ("(message from X <x@y>)"): drop them first
        for _ in range(4):
            new = _COMMENT.sub(" ", stripped)
            if new == stripped:
                break
            stripped = new
    # what _MSGID_LOOSE.findall gives, read by pieces instead of character by character (References
    # lists run long): a "<" opens an id that ends at the next ">", unless another "<" comes first, and
    # that holds more than blanks; blanks inside are collapsed
    if '"' in stripped:
        return tuple(dict.fromkeys(_ids_with_quotes(stripped)))
    ids = []
    for piece in stripped.split("<")[1:]:
        close = piece.find(">")
        if close >= 0:
            words = piece[:close].split()
            if words:
                ids.append(" ".join(words))
    return tuple(dict.fromkeys(ids))  # each once, in order


def _ids_with_quotes(value: str) -> list[str]:
    """The msg-ids of a header value in which an id holds a quote (``<a"b>c@host>``, a quoted
    local part may hold ``>``). An id opens at ``<``; it closes at the next ``>`` unless what lies
    before that ``>`` holds a ``"``: then at the first ``>`` that ends a word (followed by the end,
    a blank, ``<``, ``(`` or ``,``), so the id is kept whole. Linear in the value's length."""
    import bisect

    ends = [m.start() for m in _ID_END.finditer(value)]  # each '>' that ends a word
    out: list[str] = []
    at = 0
    while True:
        start = value.find("<", at)
        if start < 0:
            break
        close = value.find(">", start + 1)
        if close < 0:
            break
        nxt = value.find("<", start + 1)
        if 0 <= nxt < close:  # '<' again before any '>': the id opens there
            at = nxt
            continue
        if '"' in value[start + 1 : close]:
            k = bisect.bisect_left(ends, close)
            after = value.find("<", close)
            if k < len(ends) and (after < 0 or ends[k] < after):
                close = ends[k]
        words = value[start + 1 : close].split()
        if words:
            out.append(" ".join(words))
        at = close + 1
    return out


def parse_addresses(value: str) -> list[Address]:
    """An address-list header value -> :class:`Address` list (names RFC 2047-decoded).

    Obfuscated archive addresses (``ada@...mple.org``) are kept as written with
    ``partial=True``. Never raises; unparseable pieces are dropped.
    """
    return list(_addresses(value))


@lru_cache(maxsize=4096)
def _addresses(value: str) -> tuple[Address, ...]:
    """:func:`parse_addresses`, cached: the patches of a series carry the same long To/Cc lists."""
    value = _unfold(value)
    if not value.strip():
        return ()
    pairs = _simple_addresses(value)
    if pairs is None:
        try:
            pairs = getaddresses([value])
        except Exception:
            return ()
    out: list[Address] = []
    for name, email in pairs:
        if not email and not name:
            continue
        if "=?" in name:
            name = decode_header_value(name)
        name = name.strip().strip('"').strip()
        email = email.strip()
        if not email:
            continue
        out.append(Address(name=name, email=email, partial="@..." in email))
    return tuple(out)


def _recipients(value: str | None) -> tuple[Address, ...] | Recipients:
    """A To/Cc value for :class:`Message`: parsed (:func:`parse_addresses`) when first read, not now."""
    return Recipients(value, _addresses) if value else ()


def sender_addresses(value: str) -> list[Address]:
    """A From value as git mailinfo reads the author: :func:`parse_addresses`, with a comment kept
    in the name as git keeps it (``A (zzz) U Thor <a@b> (Comment)``: all around the address;
    ``<a@b> (A U Thor)``: the comment is the name), and a bounce's null sender (``Name <>``)."""
    found = parse_addresses(value) or _null_sender(value)
    if len(found) != 1 or "(" not in value or "," in value:
        return found
    text = _unfold(value)
    if "=?" in text:
        text = decode_header_value(text)
    addr = found[0]
    rest = re.sub(r"<\s*" + re.escape(addr.email) + r"\s*>", " ", text, count=1, flags=re.IGNORECASE)
    if rest == text:  # a bare address: git takes the comment as the name
        rest = text.replace(addr.email, " ", 1)
    name = " ".join(rest.split()).strip()
    if len(name) >= 2 and name[0] == "(" and name[-1] == ")" and name.count("(") == 1:
        name = name[1:-1].strip()
    name = name.strip('"').strip()
    return [Address(name=name, email=addr.email, partial=addr.partial)] if name else found


_NULL_SENDER = lazyre.compile(r'\s*"?([^"<>]*?)"?\s*<\s*>\s*\Z')


def _null_sender(value: str) -> list[Address]:
    """``From: MAILER DAEMON <>``, the null sender of a bounce: the name with an empty address,
    as git mailinfo reads it (Author: MAILER DAEMON, Email: empty); [] for anything else."""
    m = _NULL_SENDER.match(_unfold(value))
    if m is None or not m.group(1).strip():
        return []
    name = m.group(1).strip()
    return [Address(name=decode_header_value(name) if "=?" in name else name, email="")]


# one list item: "Quoted, Name" <a@b> | Plain Name <a@b> | a@b, then a comma or the end
_ADDR_ITEM = lazyre.compile(
    r'[ \t]*(?:"([^"\\]*)"[ \t]*<([^<>\s"]+)>|([^",<>]*)<([^<>\s"]+)>|([^\s",<>]+))[ \t]*(?:,|$)'
)


def _simple_addresses(value: str) -> list[tuple[str, str]] | None:
    """Fast path for the common ``"Name" <a@b>, Name <c@d>, e@f`` lists (long Cc lines
    are the norm on LKML and the stdlib parser is slow on them); None when the value
    has comments, groups, escapes or anything else that needs the full RFC 5322 parser."""
    if any(c in value for c in "():;\\[]"):
        return None
    out = []
    pos = 0
    n = len(value)
    while pos < n:
        while pos < n and value[pos] in " \t,":
            pos += 1
        if pos >= n:
            break
        m = _ADDR_ITEM.match(value, pos)
        if m is None or m.end() == pos:
            return None
        if m.group(2) is not None:
            out.append((m.group(1), m.group(2)))
        elif m.group(4) is not None:
            out.append((m.group(3).strip(" \t"), m.group(4)))
        else:
            out.append(("", m.group(5)))
        pos = m.end()
    return out


def parse_date(value: str) -> datetime | None:
    """A Date header -> timezone-aware UTC datetime; None when it cannot be read.

    A date without zone or with ``-0000`` is taken as UTC.
    """
    value = value.strip()
    if not value:
        return None
    try:
        dt = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if dt is None:
        return None
    try:
        if dt.tzinfo is None:
            dt = dt.replace(tzinfo=timezone.utc)
        return dt.astimezone(timezone.utc)
    except (ValueError, OverflowError):
        return None


#: The domain of the Message-ID made up for a mail that has none (a ``git format-patch`` file): never shown as if real.
SYNTHETIC_MSGID_DOMAIN = "reviewbot.invalid"


def _synthetic_msgid(source: str, content: bytes) -> str:
    import hashlib  # here: only a mail without a Message-ID needs it (OpenSSL's loading is a few ms of a check)

    digest = hashlib.sha256(source.encode("utf-8", "replace") + b"\0" + content).hexdigest()[:32]
    return f"{digest}@{SYNTHETIC_MSGID_DOMAIN}"


# ------------------------------------------------------------------ bodies


def _decode_bytes(data: bytes, charset: str | None) -> str:
    """Bytes in a declared charset -> text; never raises.

    The declared charset is tried strictly, then UTF-8 (mail often declares
    us-ascii and sends UTF-8), then the declared charset with replacement
    (Latin-1 when the charset is unknown or missing).
    """
    cs = (charset or "").strip().strip('"').lower()
    codec = None
    if cs:
        try:
            codec = codecs.lookup(cs).name
        except (LookupError, ValueError, TypeError):  # unknown, or a NUL in the name
            codec = None
    if codec is not None:
        try:
            return data.decode(codec)
        except (UnicodeDecodeError, ValueError):
            pass
        except Exception:
            codec = None
    if codec != "utf-8":
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            pass
    if codec is None:
        return data.decode("latin-1")
    try:
        return data.decode(codec, "replace")
    except Exception:
        return data.decode("latin-1")


def _part_filename(part: EmailMessage) -> str | None:
    """The part's file name: Content-Disposition's ``filename``, else Content-Type's ``name`` parameter."""
    if part.get("content-disposition") is None and "name" not in _header_text(part, "content-type").lower():
        return None  # neither header can give a name (most parts): no parameter parsing
    try:
        name = part.get_filename()
    except Exception:
        name = None
    if name is None:
        try:
            param = part.get_param("name")
        except Exception:
            param = None
        if isinstance(param, tuple):  # RFC 2231 triple
            param = param[2]
        name = param
    if name is None:
        return None
    return decode_header_value(str(name))


def _payload_bytes(part: EmailMessage) -> bytes:
    """Transfer encoding undone; never raises (bad base64/QP give what can be read)."""
    try:
        data = part.get_payload(decode=True)
    except Exception:
        data = None
    if isinstance(data, bytes):
        return data
    try:  # not decodable (decode=True gives None for a multipart)
        payload = part.get_payload()
    except Exception:  # the stdlib decodes with the declared charset (a NUL in it: ValueError)
        return b""
    if isinstance(payload, str):
        return payload.encode("ascii", "surrogateescape")
    return b""


def _body_of(
    em: EmailMessage, source: str, notes: list[str], undo_flowed: bool = True
) -> tuple[str, list[AttachmentRef], bool, bool]:
    """Inline text and attachments of a mail, the way the archive shows them.

    Returns (body, attachments, flowed, verbatim) where ``verbatim`` tells
    that the body is the raw input text (so input line numbers carry over).
    """
    texts: list[str] = []
    attachments: list[AttachmentRef] = []
    flowed_any = False
    verbatim = not em.is_multipart()
    for part in _leaves(em):
        ctype = part.get_content_type()
        filename = _part_filename(part)
        disposition = _header_text(part, "content-disposition").strip().lower()
        as_attachment = filename is not None or (disposition.startswith("attachment") and ";" in disposition)
        if as_attachment:
            data = _payload_bytes(part)
            text = None
            if (
                part.get_content_maintype() == "text"
                or ctype in _DIFF_TYPES
                or (filename and _DIFF_NAME.search(filename))
            ):
                text = _decode_bytes(data, part.get_content_charset()).replace("\r\n", "\n")
            attachments.append(
                AttachmentRef(
                    index=len(attachments) + 1,
                    filename=filename or "",
                    content_type=_header_text(part, "content-type", ctype).split(";", 1)[0].strip() or ctype,
                    size=len(data),
                    text=text,
                )
            )
            continue
        if ctype == "message/rfc822":
            inner = part.get_payload()
            if isinstance(inner, list) and inner:
                first = inner[0]
                try:
                    raw_inner = first.as_bytes() if isinstance(first, EmailMessage) else b""
                except Exception:
                    raw_inner = b""
                texts.append(_decode_bytes(raw_inner, None).replace("\r\n", "\n"))
            verbatim = False
            continue
        if part.get_content_maintype() != "text" or ctype == "text/html":
            verbatim = False
            continue
        cte = _header_text(part, "content-transfer-encoding").strip().lower()
        if cte in ("quoted-printable", "base64"):
            verbatim = False
        text = _decode_bytes(_payload_bytes(part), _checked_charset(part))
        if "\r" in text:  # most mail has none, and looking for one costs a tenth of replacing nothing
            text = text.replace("\r\n", "\n")
        fmt = part.get_param("format") or ""
        if isinstance(fmt, str) and fmt.strip().lower() == "flowed" and ctype == "text/plain":
            delsp = part.get_param("delsp")
            delsp_yes = isinstance(delsp, str) and delsp.strip().lower() == "yes"
            if undo_flowed:
                text = unflow(text, delsp=delsp_yes)
            flowed_any = True
            verbatim = False
        texts.append(text)
    if flowed_any and undo_flowed:
        notes.append(FLOWED_NOTE)
    if len(texts) > 1:
        # as the archive prints them: each part after a newline; the line end
        # before a boundary belongs to the boundary (RFC 2046), so add it back
        texts = [t if t.endswith("\n") or not t else t + "\n" for t in texts]
        body = texts[0] + "".join("\n" + t for t in texts[1:])
    elif texts:
        body = texts[0]
        if em.is_multipart() and body and not body.endswith("\n"):
            body += "\n"
    else:
        body = ""
    return body, attachments, flowed_any, verbatim


def _header_text(part: EmailMessage, name: str, default: str = "") -> str:
    """A header of a part as text: compat32 gives an ``email.header.Header`` for 8-bit bytes in it."""
    value = part.get(name)
    if value is None:
        return default
    return value if isinstance(value, str) else str(value)


def _leaves(em: EmailMessage) -> list[EmailMessage]:
    """Leaf parts in order; message/rfc822 parts are leaves (shown raw)."""
    stack = [em]
    out: list[EmailMessage] = []
    while stack:
        part = stack.pop()
        if part.get_content_type() == "message/rfc822":
            out.append(part)
            continue
        if part.is_multipart():  # asked before get_payload(), which decodes a text payload (and can raise)
            payload = part.get_payload()
            if isinstance(payload, list):  # a multipart's payload holds only parts, never str
                stack.extend(reversed([sub for sub in payload if isinstance(sub, EmailMessage)]))
                continue
        out.append(part)
    return out


def _body_start_line(data: bytes, cut: int | None = None, nl: int | None = None) -> int:
    """1-based line number of the first body line in the raw bytes (1 if there is no header end).

    ``cut`` is :func:`_header_cut` of ``data`` when the caller has it already (``nl``: see
    :func:`_first_empty_line`).
    """
    if cut is not None and cut > 0:
        # the empty line ends at cut - 1; the body starts on the line after it
        return data.count(b"\n", 0, cut) + 1
    nl, crnl = _first_empty_line(data, nl)
    if nl < 0 and crnl < 0:
        return 1
    cut = nl if crnl < 0 or (0 <= nl < crnl) else crnl
    return data.count(b"\n", 0, cut) + 3  # header lines, the empty line, then the body


def _quote(depth: int) -> str:
    return ">" * depth + " " if depth else ""


def unflow(text: str, *, delsp: bool = False) -> str:
    """Undo RFC 3676 format=flowed on decoded text ("\\n" line ends).

    A line ending in a space is joined with the next line of the same quote
    depth (the space dropped too when ``delsp``); one leading space is
    removed from space-stuffed lines; the signature separator ``-- `` is never
    joined. Linear in the input size.
    """
    lines = text.split("\n")
    trailing_nl = text.endswith("\n")
    if trailing_nl:
        lines.pop()
    out: list[str] = []
    pending: list[str] | None = None
    pending_depth = 0
    for line in lines:
        depth = 0
        while depth < len(line) and line[depth] == ">":
            depth += 1
        content = line[depth:]
        if content.startswith(" "):
            content = content[1:]  # space-stuffing (after quote marks too)
        is_sig = content == "-- "
        if pending is not None and depth != pending_depth:
            out.append(_quote(pending_depth) + "".join(pending))
            pending = None
        flowed = content.endswith(" ") and not is_sig
        if flowed and delsp:
            content = content[:-1]
        if pending is None:
            pending = [content]
            pending_depth = depth
        else:
            pending.append(content)
        if not flowed:
            out.append(_quote(depth) + "".join(pending))
            pending = None
    if pending is not None:
        out.append(_quote(pending_depth) + "".join(pending))
    result = "\n".join(out)
    return result + "\n" if trailing_nl else result
