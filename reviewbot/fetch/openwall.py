"""lists.openwall.net (blists): the URL scheme and page extraction, without any HTTP.

Everything here follows ``shared/openwall-format.md``: URLs are built and
classified with the site's own path regex; index pages are read from bit's
output only (found by its own markers: the ``[...]`` navigation line, the
``<p><h2>`` heading, the calendar tables, the ``<pre style="white-space:
pre-wrap">`` of message pages, the ``Powered by blists`` footer), never from the
site wrapper around it. Relative links are resolved with ``urljoin`` against the
exact page URL (index URLs end with ``/``, message URLs do not).

Text is HTML-unescaped exactly once: message text by BeautifulSoup over lxml's
HTML tree builder (which also reduces auto-links to their text), index entries
with ``html.unescape``. Only bit's message ``<pre>``, found by its marker, is
handed to BeautifulSoup, and a ``SoupStrainer`` keeps nothing else: whole pages
ran at about 600 pages/s, the ``<pre>`` alone well above the 800 pages/s
target (``benchmarks/parse_pages.py``). Addresses stay obfuscated
(``ada@...mple.org``): that is what the page says, and only the Message-ID
line is exact.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal
from urllib.parse import urljoin, urlsplit

import lxml.etree
from bs4 import BeautifulSoup, NavigableString, PageElement, SoupStrainer, Tag
from bs4.builder import ParserRejectedMarkup

# the module that defines it: bs4.builder re-exports it only at run time, where type checkers cannot see it
from bs4.builder._lxml import LXMLTreeBuilder

from reviewbot.errors import FetchError, ParseError, UsageError
from reviewbot.lazylog import get_logger
from reviewbot.models import AttachmentRef, RawMessage

log = get_logger(__name__)  # loads logging only for a record kept (reviewbot.lazylog)

__all__ = [
    "ArchiveURL",
    "BadArchiveURL",
    "BlistsErrorPage",
    "MessageRef",
    "classify_url",
    "day_url",
    "error_reason",
    "is_index_complete",
    "list_url",
    "looks_like_patch",
    "message_url",
    "month_url",
    "parse_day_page",
    "parse_list_page",
    "parse_message_page",
    "parse_month_page",
    "parse_year_page",
    "validate_list_name",
    "year_url",
]

#: The site's path regex (format doc section 1): list, year, month, day, message N, attachment A.
PATH_RE = re.compile(r"^/([a-z0-9-]+)/(?:(\d{4})/(?:(\d{2})/(?:(\d{2})/(?:([1-9]\d*)(?:/([1-9]\d*))?)?)?)?)?$")
LIST_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
FOOTER = "Powered by blists"
PRE_OPEN = '<pre style="white-space: pre-wrap">'

Kind = Literal["list", "year", "month", "day", "message", "attachment"]


class BadArchiveURL(FetchError, ValueError):
    """A URL that is not an archive URL of the expected host (or is unsafe to map to a file)."""

    def __init__(self, message: str, *, url: str) -> None:
        super().__init__(message, url=url, attempts=0, status=None)


class BlistsErrorPage(FetchError):
    """An HTTP 200 page on which blists says ``The request has failed: <reason>``.

    ``reason`` is blists' text, e.g. ``No such message``, ``No messages for this day``.
    Such pages are never cached as content.
    """

    def __init__(self, reason: str, *, url: str, attempts: int = 1, status: int | None = 200) -> None:
        self.reason = reason
        super().__init__(
            f"the archive says: The request has failed: {reason}", url=url, attempts=attempts, status=status
        )


# --------------------------------------------------------------------------- URLs


def validate_list_name(name: str) -> str:
    """Return ``name`` if it is a valid blists list name (lowercase letters, digits, ``-``).

    Raises UsageError naming the bad value otherwise (``linux-kernel`` ok, ``../etc`` not).
    """
    if not isinstance(name, str) or not LIST_NAME_RE.match(name):
        raise UsageError(
            "invalid list name: use lowercase letters, digits and '-' (e.g. linux-kernel, netdev)",
            subject=repr(name),
        )
    return name


def _base(base: str) -> str:
    parts = urlsplit(base)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise UsageError("base URL must be http(s)://host[:port]", subject=base)
    return f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}"


def list_url(base: str, list_name: str) -> str:
    """``https://lists.openwall.net/linux-kernel/`` (slash-terminated)."""
    return f"{_base(base)}/{validate_list_name(list_name)}/"


def year_url(base: str, list_name: str, year: int) -> str:
    """``BASE/LIST/YYYY/`` (slash-terminated)."""
    return f"{list_url(base, list_name)}{int(year):04d}/"


def month_url(base: str, list_name: str, year: int, month: int) -> str:
    """``BASE/LIST/YYYY/MM/`` (slash-terminated, zero-padded month)."""
    if not 1 <= int(month) <= 12:
        raise UsageError(f"invalid month {month}", subject=f"{year}-{month}")
    return f"{year_url(base, list_name, year)}{int(month):02d}/"


def day_url(base: str, list_name: str, day: date) -> str:
    """``BASE/LIST/YYYY/MM/DD/`` (slash-terminated, zero-padded)."""
    return f"{list_url(base, list_name)}{day.year:04d}/{day.month:02d}/{day.day:02d}/"


def message_url(base: str, list_name: str, day: date, number: int) -> str:
    """``BASE/LIST/YYYY/MM/DD/N`` (no trailing slash)."""
    if int(number) < 1:
        raise UsageError(f"invalid message number {number}", subject=str(day))
    return f"{day_url(base, list_name, day)}{int(number)}"


@dataclass(frozen=True)
class ArchiveURL:
    """An archive URL taken apart: ``kind`` and the path parts it has (others None)."""

    url: str
    kind: Kind
    list_name: str
    year: int | None = None
    month: int | None = None
    day: int | None = None
    number: int | None = None
    attachment: int | None = None

    @property
    def date(self) -> date | None:
        """The day of a day/message/attachment URL."""
        if self.year is None or self.month is None or self.day is None:
            return None
        return date(self.year, self.month, self.day)

    @property
    def path(self) -> str:
        """The URL path in the site's canonical form."""
        p = f"/{self.list_name}/"
        if self.year is not None:
            p += f"{self.year:04d}/"
        if self.month is not None:
            p += f"{self.month:02d}/"
        if self.day is not None:
            p += f"{self.day:02d}/"
        if self.number is not None:
            p += f"{self.number}"
        if self.attachment is not None:
            p += f"/{self.attachment}"
        return p


def classify_url(url: str) -> ArchiveURL:
    """Classify an absolute archive URL by its path (format doc regex).

    Returns ArchiveURL with kind list/year/month/day/message/attachment.
    Raises BadArchiveURL for anything else: other path shapes, query strings,
    fragments, percent-encoding, impossible dates (month 13, 2023/02/30).
    Host checks are the caller's (see ArchiveCache.path_for).
    """
    if not isinstance(url, str):
        raise BadArchiveURL("not a URL string", url=repr(url))
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        raise BadArchiveURL(f"unparsable URL: {exc}", url=url) from exc
    if parts.query or parts.fragment or "?" in url or "#" in url:
        raise BadArchiveURL("archive URLs have no query or fragment", url=url)
    if "%" in parts.path:
        raise BadArchiveURL("percent-encoded characters are not part of the archive URL scheme", url=url)
    m = PATH_RE.match(parts.path)
    if not m:
        raise BadArchiveURL("path does not match the archive URL scheme /LIST/YYYY/MM/DD/N[/A]", url=url)
    name, y, mo, d, n, a = m.groups()
    if y is not None and y != "1970" and not ("1990" <= y <= "2999"):
        raise BadArchiveURL(f"implausible year {y}", url=url)
    if mo is not None and not 1 <= int(mo) <= 12:
        raise BadArchiveURL(f"invalid month {mo}", url=url)
    if d is not None:
        try:
            date(int(y), int(mo), int(d))
        except ValueError as exc:
            raise BadArchiveURL(f"invalid date {y}/{mo}/{d}", url=url) from exc
    if a is not None:
        kind: Kind = "attachment"
    elif n is not None:
        kind = "message"
    elif d is not None:
        kind = "day"
    elif mo is not None:
        kind = "month"
    elif y is not None:
        kind = "year"
    else:
        kind = "list"
    return ArchiveURL(
        url=url,
        kind=kind,
        list_name=name,
        year=int(y) if y else None,
        month=int(mo) if mo else None,
        day=int(d) if d else None,
        number=int(n) if n else None,
        attachment=int(a) if a else None,
    )


# --------------------------------------------------------------------------- pages

_ERROR_TITLE_RE = re.compile(r"<title>\s*The request has failed:\s*([^<\n]*)", re.I)
_ERROR_BODY_RE = re.compile(r"<p>The request has failed:\s*([^<\n]*)")


def _text(body: bytes | str) -> str:
    if isinstance(body, str):
        return body
    return body.decode("utf-8", errors="replace")


def error_reason(body: bytes | str) -> str | None:
    """The reason of a blists error page (``No such message``...), or None for a normal page.

    blists answers HTTP 200 with ``<title>The request has failed: X</title>`` and a
    body ``<p>The request has failed: X``; ``No messages for this month`` keeps the
    month title, so the body line is checked too. Message text cannot produce a
    false positive: ``<`` in mail is always escaped.
    """
    text = _text(body)
    m = _ERROR_BODY_RE.search(text) or _ERROR_TITLE_RE.search(text)
    if not m:
        return None
    return html.unescape(m.group(1)).strip() or "unknown reason"


def is_index_complete(body: bytes | str) -> bool:
    """True when an HTML page holds bit's footer (``Powered by blists``), i.e. was not cut off."""
    return FOOTER in _text(body)


def _bit_part(text: str, url: str) -> str:
    """bit's body output of an index page: from the ``<p><h2>`` heading to the footer."""
    start = text.find("<p><h2>")
    if start < 0:
        reason = error_reason(text)
        if reason:
            raise ParseError(f"blists error page: {reason}", subject=url)
        raise ParseError("not a blists index page (no <p><h2> heading)", subject=url)
    end = text.find(FOOTER, start)
    if end < 0:
        raise ParseError("index page cut off (no 'Powered by blists' footer)", subject=url)
    return text[start:end]


# no "<" inside a tag: a failed match stops at the next tag, so scanning stays linear
_HREF_RE = re.compile(r"""<a\s+href\s*=\s*["']?([^"'\s<>]+)["']?[^<>]*>""", re.I)


def _table(part: str, cls: str) -> list[str]:
    """The contents of every ``<table ... class=cls>`` ... ``</table>`` in ``part``."""
    out = []
    for m in re.finditer(r"<table[^<>]*class=[\"']?%s\b[^<>]*>" % re.escape(cls), part):
        end = part.find("</table>", m.end())
        out.append(part[m.end() : end if end >= 0 else len(part)])
    return out


def _links(part: str, url: str) -> list[ArchiveURL]:
    found = []
    for m in _HREF_RE.finditer(part):
        target = urljoin(url, html.unescape(m.group(1)))
        try:
            found.append(classify_url(target))
        except BadArchiveURL:
            continue
    return found


def parse_list_page(body: bytes | str, url: str) -> list[tuple[int, int]]:
    """Months with mail from a list page (``/LIST/``), newest first as the page shows them.

    Read from the year/month summary table (``class=cal_brief``); the list of
    recent messages is ignored (it holds only 100). Raises ParseError on other pages.
    """
    info = classify_url(url)
    part = _bit_part(_text(body), url)
    months: list[tuple[int, int]] = []
    for table in _table(part, "cal_brief"):
        for link in _links(table, url):
            if link.kind == "month" and link.list_name == info.list_name and link.year and link.month:
                key = (link.year, link.month)
                if key not in months:
                    months.append(key)
    return months


def parse_year_page(body: bytes | str, url: str) -> list[tuple[int, int]]:
    """Months with mail from a year page (``/LIST/YYYY/``), in calendar order.

    Read from the one-row summary table (``class=cal_brief``). Raises ParseError
    on a page without bit's heading or footer.
    """
    info = classify_url(url)
    part = _bit_part(_text(body), url)
    months: list[tuple[int, int]] = []
    for table in _table(part, "cal_brief"):
        for link in _links(table, url):
            if (
                link.kind == "month"
                and link.year == info.year
                and link.list_name == info.list_name
                and link.year
                and link.month
            ):
                key = (link.year, link.month)
                if key not in months:
                    months.append(key)
    return sorted(months)


def parse_month_page(body: bytes | str, url: str) -> list[date]:
    """Days with mail from a month page (``/LIST/YYYY/MM/``), in date order.

    Read from the calendar (``class=cal_mon`` links ``DD/``), never from the
    per-day lists, which stop at 99 entries. A "No messages for this month"
    page gives ParseError (callers check error_reason first).
    """
    info = classify_url(url)
    text = _text(body)
    reason = error_reason(text)
    if reason:
        raise ParseError(f"blists error page: {reason}", subject=url)
    part = _bit_part(text, url)
    days: set[date] = set()
    for table in _table(part, "cal_mon"):
        for link in _links(table, url):
            day = link.date
            if link.kind == "day" and link.year == info.year and link.month == info.month and day is not None:
                days.add(day)
    return sorted(days)


_WS_RE = re.compile(r"\s+")
_LI_RE = re.compile(r'^<a\s+href="([^"]*)">(.*?)</a>(.*)$', re.S)
_HELLIP = "&hellip;"


def _clean(raw: str) -> tuple[str, bool]:
    """Unescape once, collapse whitespace; report a blists cut (``&hellip;`` at the end)."""
    raw = raw.strip()
    cut = raw.endswith(_HELLIP)
    text = _WS_RE.sub(" ", html.unescape(raw)).strip()
    return text, cut


# Here, not in reviewbot.models: only this module makes index entries (nothing else names the type), and a
# `reviewbot check` need not compile its methods. eq=False: an index entry, compared by identity.
@dataclass(frozen=True, eq=False)
class MessageRef:
    """An entry of a day index: where a message lives and what the index says of it.

    ``subject`` and ``author`` come from the index and may be cut by blists
    (``truncated`` is then True); take the real ones from the message page.
    ``number`` is N in ``/LIST/YYYY/MM/DD/N``.
    """

    url: str
    list_name: str
    day: str  # "YYYY-MM-DD"
    number: int
    subject: str
    author: str
    truncated: bool = False


def parse_day_page(body: bytes | str, url: str) -> list[MessageRef]:
    """Every message of a day page (``/LIST/YYYY/MM/DD/``), in N order.

    Each ``<li><a href="N">Subject</a> (From)`` entry becomes a MessageRef:
    subject/author unescaped once with whitespace collapsed, ``truncated`` when
    blists cut either (``&hellip;``, kept as ``…`` in the text); ``url`` is the
    href resolved against the slash-terminated day URL. Raises ParseError on
    error pages and pages without bit's heading/footer.
    """
    info = classify_url(url)
    info_day = info.date
    if info.kind != "day" or info_day is None:
        raise ParseError("not a day URL", subject=url)
    text = _text(body)
    reason = error_reason(text)
    if reason:
        raise ParseError(f"blists error page: {reason}", subject=url)
    part = _bit_part(text, url)
    ul = part.find("<ul>")
    if ul < 0:
        raise ParseError("day page without a message list", subject=url)
    end = part.find("</ul>", ul)
    listing = part[ul + 4 : end if end >= 0 else len(part)]
    refs: list[MessageRef] = []
    seen: set[int] = set()
    day_text = info_day.isoformat()
    for chunk in listing.split("<li>")[1:]:
        m = _LI_RE.match(chunk.strip())
        if not m:
            log.debug("%s: skipping unexpected index entry %r", url, chunk[:80])
            continue
        href, raw_subject, rest = m.groups()
        target = urljoin(url, html.unescape(href))
        try:
            link = classify_url(target)
        except BadArchiveURL:
            log.debug("%s: skipping link %r", url, href)
            continue
        if link.kind != "message" or link.date != info_day or link.list_name != info.list_name:
            continue
        if link.number is None or link.number in seen:
            continue
        seen.add(link.number)
        subject, cut_s = _clean(raw_subject)
        rest = rest.strip()
        if rest.startswith("(") and rest.endswith(")"):
            rest = rest[1:-1]
        author, cut_a = _clean(rest)
        refs.append(
            MessageRef(
                url=target,
                list_name=info.list_name,
                day=day_text,
                number=link.number,
                subject=subject,
                author=author,
                truncated=cut_s or cut_a,
            )
        )
    refs.sort(key=lambda r: r.number)
    return refs


# --------------------------------------------------------------------------- message page

_NAV_LINK_RE = re.compile(r'<a\s+href="([^"]*)"[^>]*>\[([^\]<]*)\]</a>')
_HEADER_RE = re.compile(r"^(message-id|date|from|to|cc|subject):[ \t]*(.*)$", re.I)
_CANON = {"message-id": "Message-ID", "date": "Date", "from": "From", "to": "To", "cc": "Cc", "subject": "Subject"}
_SIZE_RE = re.compile(r"\((\d+)\s+bytes?\)")
_SIZE_AT_END_RE = re.compile(r"\((\d+) bytes?\)\s*$")
_SPECIAL_STYLE = "font-family: times"


_THREAD_LINKS = ("<thread-prev", "thread-next>")


def _nav_links(text: str, pre_at: int, url: str) -> dict[str, str]:
    """The thread links of the navigation line just before the ``<pre>``: link text -> absolute URL."""
    head = text[max(0, pre_at - 4000) : pre_at]
    # bit prints the nav line immediately before <pre>; take the last line holding [..] links
    lines = [ln for ln in head.split("\n") if "[day]" in ln or "[list]" in ln]
    nav: dict[str, str] = {}
    if not lines:
        return nav
    for m in _NAV_LINK_RE.finditer(lines[-1]):
        label = html.unescape(m.group(2)).strip()
        if label in _THREAD_LINKS:  # the only ones read; resolving all eight cost a fifth of the parse
            nav[label] = urljoin(url, html.unescape(m.group(1)))
    return nav


#: Only bit's message ``<pre>`` (and what is inside it) becomes part of the soup.
_PRE_ONLY = SoupStrainer("pre")


def _huge_html_parser(**kwargs: Any) -> lxml.etree.HTMLParser:
    """lxml's HTML parser for BeautifulSoup, told to read "huge" text nodes and deep nesting (see check_whole)."""
    return lxml.etree.HTMLParser(huge_tree=True, **kwargs)


def _soup_pre(fragment: str) -> Tag | None:
    """The ``<pre>`` element of ``fragment``, parsed by BeautifulSoup over lxml (entities decoded once)."""
    # bs4 takes a parser factory too (LXMLTreeBuilder.parser_for calls it); its annotation names XMLParser only
    builder = LXMLTreeBuilder(parser=_huge_html_parser)  # type: ignore[arg-type]
    soup = BeautifulSoup(fragment, builder=builder, parse_only=_PRE_ONLY)
    pre = soup.find("pre")
    return pre if isinstance(pre, Tag) else None


def _children(element: Tag) -> tuple[str, list[tuple[PageElement, str]]]:
    """``element`` as a tree of text and nodes: its text up to the first child node, then each
    child node (tag, comment, ...) with the text that follows it up to the next node."""
    head: list[str] = []
    kids: list[tuple[PageElement, list[str]]] = []
    for node in element.contents:
        if type(node) is NavigableString:  # plain text; comments and the like are nodes of their own
            (kids[-1][1] if kids else head).append(node)
        else:
            kids.append((node, []))
    return "".join(head), [(node, "".join(tail)) for node, tail in kids]


def _pre_text(pre: Tag, url: str) -> tuple[str, list[AttachmentRef], bool, list[str]]:
    """Text of the ``<pre>`` with bit's attachment/skipped/censored spans taken out.

    Each such span was printed with one newline before and after; both go with it.
    Returns (text, attachments, censored, notes).
    """
    head, kids = _children(pre)
    pieces: list[str] = [head]
    attachments: list[AttachmentRef] = []
    censored = False
    notes: list[str] = []
    for child, tail in kids:
        if not isinstance(child, Tag):
            pieces.append(tail)  # a comment or processing instruction: not text of the page
            continue
        if child.name == "span" and _SPECIAL_STYLE in (child.get("style") or ""):
            label = child.get_text()
            if "attachment" in label[:25] and child.find("a") is not None:
                ref = _attachment(child, url, len(attachments) + 1)
                if ref is not None:
                    attachments.append(ref)
            elif label.strip() == "Content removed":
                censored = True
            elif "Content truncated" in label:
                notes.append("the archive truncated this message (over 10 MiB)")
            elif label.startswith("Content of type"):
                pass
            else:
                pieces.append(label + tail)
                continue
            if pieces and pieces[-1].endswith("\n"):
                pieces[-1] = pieces[-1][:-1]
            if tail.startswith("\n"):
                tail = tail[1:]
            pieces.append(tail)
        else:
            pieces.append(child.get_text() + tail)
    return "".join(pieces), attachments, censored, notes


def _attachment(span: Tag, url: str, fallback_index: int) -> AttachmentRef | None:
    link = span.find("a")
    href_value = link.get("href") if isinstance(link, Tag) else None
    href = href_value if isinstance(href_value, str) else ""  # href is single-valued: never a list
    filename = link.get_text() if link is not None else ""
    label = span.get_text()
    # 'View attachment "NAME" of type "TYPE" (N bytes)': read from the end (NAME may hold anything)
    content_type = ""
    size = 0
    sm = _SIZE_AT_END_RE.search(label[-40:])
    if sm:
        size = int(sm.group(1))
    type_at = label.rfind('" of type "')
    if type_at >= 0:
        content_type = label[type_at + 11 :].rsplit('" (', 1)[0]
    _head, kids = _children(span)
    strongs = [(node, tail) for node, tail in kids if isinstance(node, Tag) and node.name == "strong"]
    if len(strongs) >= 3:
        content_type = (strongs[1][1] or content_type).strip()
        sm = _SIZE_RE.search(strongs[2][0].get_text())
        if sm:
            size = int(sm.group(1))
    target = urljoin(url, href) if href else None
    index = fallback_index
    if target:
        try:
            info = classify_url(target)
            if info.kind == "attachment" and info.attachment is not None:
                index = info.attachment
            else:
                target = None
        except BadArchiveURL:
            target = None
    return AttachmentRef(index=index, filename=filename, content_type=content_type, size=size, url=target)


def _split_headers(text: str) -> tuple[list[tuple[str, str]], str]:
    """Split the ``<pre>`` text into the header block (<= 6 known headers, folds kept) and body."""
    if text.startswith("\n"):
        text = text[1:]
    headers: list[list[str]] = []
    pos = 0
    n = len(text)
    while pos < n:
        eol = text.find("\n", pos)
        if eol < 0:
            eol = n
        line = text[pos:eol]
        if line == "":
            pos = eol + 1
            break
        if line[0] in " \t" and headers:
            headers[-1].append(line.strip())
            pos = eol + 1
            continue
        m = _HEADER_RE.match(line)
        if not m or len(headers) >= 6:
            break  # no empty line: the body starts here
        headers.append([_CANON[m.group(1).lower()], m.group(2).strip()])
        pos = eol + 1
    else:
        pos = n
    pairs = [(h[0], "\n".join(p for p in h[1:] if p)) for h in headers]
    return pairs, text[pos:]


# libxml2 stops at text nodes over 10 MB and at tags nested deeper than 256 unless told otherwise
# ("huge", _huge_html_parser); even then it has limits, which check_whole catches.
_TAG_RE = re.compile(r"<[^<>]*>")


def check_whole(fragment: str, parsed_chars: int, url: str) -> None:
    """Raise ParseError when the parser read less of the ``<pre>`` than it holds.

    HTML parsers drop text silently at their limits (a body of 10 MB, deep
    nesting); a body stored cut would be final, since message pages are never
    fetched again. The text the fragment holds is counted without a parser
    (tags removed, entities decoded, CRLF read as one character as the parser
    does): on all 4,419 message pages of the mirror both counts are equal.
    """
    expected = len(html.unescape(_TAG_RE.sub("", fragment))) - fragment.count("\r\n")
    if parsed_chars < expected:
        raise ParseError(
            f"the message text could not be read whole ({parsed_chars:,} of {expected:,} "
            "characters); not stored, retried on the next run",
            subject=url,
        )


def parse_message_page(body: bytes | str, url: str, list_name: str) -> RawMessage:
    """A blists message page -> RawMessage(kind="archive").

    ``header_lines``: the (up to six) header lines as (canonical name, value) with
    entities decoded once and folds kept as ``"\\n"`` + stripped continuation;
    ``body``: the text after the single empty line following them, auto-links
    reduced to their text, attachment/skipped-part lines removed (attachments go
    to ``attachments`` with absolute URLs), ``censored`` for "Content removed";
    ``thread_prev_url``/``thread_next_url`` from the navigation line.
    Bytes are decoded as UTF-8 with errors="replace". Raises ParseError naming
    ``url`` for error pages and pages without bit's ``<pre>`` (garbage, cut off).
    """
    text = _text(body)
    pre_at = text.find(PRE_OPEN)
    if pre_at < 0:
        reason = error_reason(text)
        if reason:
            raise ParseError(f"blists error page: {reason}", subject=url)
        raise ParseError('not a blists message page (no <pre style="white-space: pre-wrap">)', subject=url)
    pre_end = text.find("</pre>", pre_at)
    if pre_end < 0:
        raise ParseError("message page cut off (no </pre>)", subject=url)
    fragment = text[pre_at : pre_end + 6].replace("\x00", "\ufffd")
    try:
        pre = _soup_pre(fragment)
    except (ParserRejectedMarkup, lxml.etree.LxmlError, ValueError) as exc:
        raise ParseError(f"cannot parse the message <pre>: {exc}", subject=url) from exc
    if pre is None:
        raise ParseError("cannot parse the message <pre>", subject=url)
    check_whole(fragment, len(pre.get_text()), url)
    content, attachments, censored, notes = _pre_text(pre, url)
    header_lines, msg_body = _split_headers(content)
    nav = _nav_links(text, pre_at, url)
    for note in notes:
        log.warning("%s: %s", url, note)
    return RawMessage(
        source=url,
        kind="archive",
        header_lines=tuple(header_lines),
        body=msg_body,
        list_name=list_name,
        archive_url=url,
        attachments=tuple(attachments),
        thread_prev_url=nav.get("<thread-prev"),
        thread_next_url=nav.get("thread-next>"),
        censored=censored,
    )


# --------------------------------------------------------------------------- subjects

_REPLY_RE = re.compile(r"^\s*(?:re|fwd?|aw|sv|antw|wg|odp|r)\s*(?:\[\d+\])?\s*:", re.I)
_LEADING_GROUPS_RE = re.compile(r"^\s*((?:\[[^\]\n]*(?:\]|$)\s*)+)")
_PATCH_WORD_RE = re.compile(r"(?:^|[^a-z])(?:patch|rfc)", re.I)
_COUNTER_RE = re.compile(r"\d+\s*/\s*\d+")


def looks_like_patch(index_subject: str) -> bool:
    """True when an index subject looks like a patch submission, not a reply.

    ``[PATCH v2 3/7] ...``, ``[RFC PATCH] ...``, ``[PATCHv2]``, ``[PATCH1/3]``,
    ``[net-next 1/3]`` (an n/m counter alone), ``[PATCHSET]``; but never
    ``Re:``/``Fwd:``/``AW:`` replies, and only the leading bracket groups count
    (``foo (was [PATCH ...])`` is not a patch). Cut subjects (``[PATCH v5 12/3…``) work.
    """
    if not index_subject or _REPLY_RE.match(index_subject):
        return False
    m = _LEADING_GROUPS_RE.match(index_subject)
    if not m:
        return False
    groups = m.group(1)
    return bool(_PATCH_WORD_RE.search(groups) or _COUNTER_RE.search(groups))


_YEAR_DAY_RE = re.compile(rb'<a href="(\d{2})/(\d{2})/">(\d+)</a>')


MAX_MESSAGES_PER_DAY = 20_000  # LKML's busiest days carry about 2,000


def day_counts_from_year_page(body: bytes, year: int) -> dict[date, int]:
    """Days with mail -> number of messages, from a year page's month calendars.

    The year page (``/LIST/YYYY/``) prints one calendar per month; a day with
    mail is a link ``<a href="MM/DD/">count</a>``. Messages of a day are
    numbered 1..count without gaps (format doc, section 2), so these counts
    give every message URL of the year. Raises ParseError when the page has
    no calendar at all.
    """
    counts: dict[date, int] = {}
    for mm, dd, n in _YEAR_DAY_RE.findall(body):
        try:
            counts[date(year, int(mm), int(dd))] = int(n)
        except ValueError:
            continue
    busiest = max(counts.values(), default=0)
    if busiest > MAX_MESSAGES_PER_DAY:  # --all would list every URL of that day up front
        raise ParseError(
            f"a day with {busiest:,} messages is not believable (at most "
            f"{MAX_MESSAGES_PER_DAY:,}); the year page is not used",
            subject=str(year),
        )
    if not counts and b"cal_mon" not in body and b"cal_brief" not in body:
        raise ParseError("not a year page (no calendar)", subject=str(year))
    return counts
