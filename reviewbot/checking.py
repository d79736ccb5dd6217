"""The local pre-check behind ``reviewbot check``: inputs -> messages -> the review pipeline -> input lines.

Inputs are what a developer has before sending: ``git format-patch`` files,
``.eml`` files, an mbox holding a series, a directory of such files, standard
input (``-``) and a git revision range (``git format-patch --stdout RANGE``).
All messages of one run are reviewed together by ``reviewbot.review`` (the
pipeline ``scan`` and ``eval`` use too): grouped into threads and series, so
``reviewbot check 00*.patch`` checks the patches with their cover letter
(``RuleContext.cover``), which counts as evidence for RB201, and replies
given in the run are the patches' thread (``RuleContext.thread``).

Each finding is tied to the input it came from and to the line of that input
(``Finding.input_line`` is rewritten from message lines to input lines: an
mbox holding several messages is one input whose lines count from its first
byte, as ``checkpatch.pl`` counts them). Per-path ignores from the settings
drop findings on matching paths; parse warnings (format=flowed, bare CR...)
travel beside the findings as informational notes.

A saved lists.openwall.net message page (blists HTML) is read as the
archive message it shows (``reviewbot.fetch.openwall.parse_message_page``):
addresses in it are obfuscated, lines altered by that get no finding, and its
attachment links cannot be followed; notes say so.

This module imports only the standard library, the parser and the engine:
checking one patch must stay interactive (no HTTP, HTML or SQLite stack). The
HTML parser is imported for a saved archive page only.
"""

from __future__ import annotations

import operator
import re
import sys
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Iterable, Mapping, NamedTuple, Sequence

from reviewbot import lazyre
from reviewbot.errors import InputError, ParseError, ReviewbotError, UsageError
from reviewbot.lazylog import get_logger
from reviewbot.models import (
    CheckReport,
    Finding,
    Message,
    Patch,
    RawMessage,
    RuleFailure,
    Severity,
)

if TYPE_CHECKING:  # pragma: no cover - typing only
    from reviewbot.config import Settings
    from reviewbot.models import Subject
    from reviewbot.registry import LoadedRule
    from reviewbot.review import LaterMessage

log = get_logger(__name__)  # loads logging only for a record kept (reviewbot.lazylog)

STDIN = "-"
THRESHOLDS = {"error": Severity.ERROR, "warning": Severity.WARNING, "check": Severity.CHECK}


# ------------------------------------------------------------------ values


# never compared nor printed (its repr would hold the whole mail): no __eq__/__hash__/__repr__ compiled at start
@dataclass(frozen=True, eq=False, repr=False)
class InputMessage:
    """One message read from one input, before parsing.

    ``input`` names the input as the user gave it (a path, ``-``, or
    ``git:RANGE``); ``offset`` is the number of input lines before the
    message's first line (0 for a file holding one message), so that input
    line = ``offset`` + message line. ``offset`` is None when the message
    could not be located in the input bytes (its lines are then reported
    relative to the message).
    """

    input: str
    raw: RawMessage
    offset: int | None
    index: int = 0  # 0-based position of the message in its input


# repr=False: its repr would print the whole mail (``data``) and diff; each generated method is compiled at start
@dataclass(frozen=True, repr=False)
class CheckedPatch:
    """The result for one patch mail of a run.

    ``report`` holds the findings with ``input_line`` already in input lines
    (and per-path ignores applied). ``lines_checked`` counts the lines of the
    patch's hunks, as checkpatch.pl counts them in its ``total:`` line. ``notes`` are informational lines for a person (parse warnings:
    format=flowed, bare CR, ...). ``data`` is the raw message, used to show
    the offending commit-message line in the text report.

    A check run keeps each patch without its hunks (``report.patch.files``
    name the files, with ``hunks == ()``): a batch lets every diff go once it
    is reviewed. What the reports read of the diff is kept: each finding's
    ``hunk``, ``lines_checked``, and the added/removed line counts
    (:meth:`line_counts`).
    """

    input: str
    index: int
    report: CheckReport
    offset: int | None
    lines_checked: int
    notes: tuple[str, ...] = ()
    data: bytes = b""
    commit: tuple[str, str] | None = None  # (short hash, title) of the commit a --git patch came from
    added: int | None = None  # added diff lines (None: count them in ``report.patch``)
    removed: int | None = None  # removed diff lines (None: count them in ``report.patch``)

    @property
    def patch(self) -> Patch:
        return self.report.patch

    def line_counts(self) -> tuple[int, int]:
        """(added, removed) lines of the patch's diff."""
        if self.added is not None and self.removed is not None:
            return self.added, self.removed
        _, added, removed = _diff_counts(self.report.patch)
        return added, removed

    @property
    def findings(self) -> tuple[Finding, ...]:
        return self.report.findings

    @property
    def failures(self) -> tuple[RuleFailure, ...]:
        return self.report.failures

    def counts(self) -> dict[Severity, int]:
        """Findings per severity ({ERROR: e, WARNING: w, CHECK: c})."""
        out = {s: 0 for s in Severity}
        for f in self.report.findings:
            out[f.severity] += 1
        return out


class CheckRun(NamedTuple):
    """Everything one ``reviewbot check`` produced.

    ``patches`` are in input order (message order inside an input);
    ``skipped`` counts messages that were neither a patch nor a cover letter
    (replies in an mbox), ``replies`` how many of them were replies (``Re:``).
    ``notes`` are informational lines about whole inputs, each naming its
    input (an input holding only replies: nothing to check, not an error);
    ``explained`` counts the skipped messages such a note already speaks for;
    ``covers`` the cover letters read (not checked: their series' patches are given them as context),
    ``unsubmitted`` the messages with a diff that is no patch submission (each named in a note).
    ``problems`` are inputs or messages that could not be read or parsed (each
    names the file and what was wrong; the command exits 2 when there is one).
    ``rules`` are the rules that ran (for SARIF metadata).

    A NamedTuple (immutable, as a frozen dataclass): a dataclass compiles each generated method at every
    start, and nothing here needs one (no ``replace``, no comparison).
    """

    patches: tuple[CheckedPatch, ...]
    rules: tuple["LoadedRule", ...] = ()
    skipped: int = 0
    problems: tuple[ReviewbotError, ...] = ()
    strict: bool = False
    replies: int = 0
    notes: tuple[str, ...] = ()
    explained: int = 0
    covers: int = 0
    unsubmitted: int = 0

    @property
    def findings(self) -> tuple[Finding, ...]:
        return tuple(f for p in self.patches for f in p.findings)

    def counts(self) -> dict[Severity, int]:
        """Findings per severity over the whole run."""
        out = {s: 0 for s in Severity}
        for p in self.patches:
            for sev, n in p.counts().items():
                out[sev] += n
        return out

    def worst(self) -> Severity | None:
        """The highest severity found, or None when there is no finding."""
        found = [f.severity for f in self.findings]
        return max(found, key=lambda s: s.rank) if found else None

    def fails(self, fail_on: str | Severity) -> bool:
        """True when a finding is at or above the threshold, or a rule crashed.

        ``fail_on`` is ``error``, ``warning`` or ``check`` (or a Severity).
        Raises UsageError for any other value.
        """
        threshold = fail_on if isinstance(fail_on, Severity) else parse_threshold(fail_on)
        if any(p.failures for p in self.patches):
            return True
        return any(f.severity.rank >= threshold.rank for f in self.findings)


def parse_threshold(value: str) -> Severity:
    """``error|warning|check`` (any case) -> Severity; UsageError for anything else."""
    try:
        return THRESHOLDS[value.strip().lower()]
    except (KeyError, AttributeError):
        raise UsageError(
            f"--fail-on must be one of {', '.join(THRESHOLDS)}, not {value!r}", subject="fail-on"
        ) from None


# ------------------------------------------------------------------ reading inputs


def _line_offsets(blob: bytes, messages: Sequence[RawMessage]) -> list[int | None]:
    """For each message (in order), the number of lines of ``blob`` before its first line.

    The message is found by its first line (the mbox envelope line, which the
    splitter keeps, or its first header), at the start of a line, after the
    previous message. Counting is incremental, so an mbox of thousands of
    messages stays linear.
    """
    offsets: list[int | None] = []
    pos = 0  # search position in blob
    counted_to = 0  # blob[:counted_to] has `lines` newlines
    lines = 0
    for raw in messages:
        data = raw.data
        if not data:
            offsets.append(None)
            continue
        nl = data.find(b"\n")
        first = data[: nl if nl >= 0 else len(data)].rstrip(b"\r")
        if not first:
            offsets.append(None)
            continue
        idx = blob.find(first, pos)
        # only accept a match at the start of a line
        while idx > 0 and blob[idx - 1] != 0x0A:
            idx = blob.find(first, idx + 1)
        if idx < 0:
            offsets.append(None)
            continue
        lines += blob.count(b"\n", counted_to, idx)
        counted_to = idx
        offsets.append(lines)
        pos = idx + len(first)
    return offsets


def _split(blob: bytes, source: str) -> list[RawMessage]:
    from reviewbot.fetch.mailfiles import read_bytes

    return list(read_bytes(blob, source))


#: The element of a blists message page (lists.openwall.net) that holds the message.
BLISTS_PRE = b'<pre style="white-space: pre-wrap">'
#: A blists index page (a day, month or year of a list): its heading and the footer of a whole page (the markers
#: ``reviewbot.fetch.openwall`` reads index pages by; that module loads bs4, so only saved message pages import it).
BLISTS_INDEX = b"<p><h2>"
BLISTS_FOOTER = b"Powered by blists"


class ArchiveIndexPage(InputError):
    """An input that is a saved index page of the archive (``check DIR/*.html`` of a saved day holds its
    ``index.html``): readable, and not a message; a note, as a reply is, not an error."""


_TITLE_LIST = lazyre.compile(rb"<title>\s*([A-Za-z0-9][A-Za-z0-9._+-]*)(?:\s+-\s|\s*</title>)", re.I)


def is_html_page(blob: bytes) -> bool:
    """True when the bytes start like an HTML document (``<!DOCTYPE html`` or ``<html``), after a BOM/blank."""
    head = blob[:512].lstrip(b"\xef\xbb\xbf").lstrip().lower()
    return head.startswith((b"<!doctype html", b"<html"))


def messages_from_page(blob: bytes, name: str) -> list[InputMessage]:
    """A saved blists message page as one message of kind ``"archive"`` (headers and body from its ``<pre>``).

    The page's lines are not the message's (markup, escapes), so the message
    has no input offset. The HTML parser (``reviewbot.fetch.openwall``, bs4 over lxml)
    is imported here only, for such input. Raises ParseError naming ``name``
    for a page without a message (cut off, an error page).
    """
    from reviewbot.fetch.openwall import parse_message_page

    m = _TITLE_LIST.search(blob[:4096])
    list_name = m.group(1).decode("ascii") if m else "linux-kernel"
    raw = parse_message_page(blob, name, list_name)
    return [InputMessage(name, raw, None, 0)]


def messages_from_bytes(blob: bytes, name: str) -> list[InputMessage]:
    """Split one input's bytes (one mail, a format-patch file, an mbox, a saved blists page) into located messages.

    Raises InputError naming ``name`` when the bytes hold no mail at all (an
    HTML page other than a blists message page included).
    """
    if not (blob[:4096].strip() or blob.strip()):  # the head first: no copy of a large mbox
        raise InputError("empty input: no patch to check", subject=name)
    if is_html_page(blob):
        if BLISTS_PRE in blob:
            return messages_from_page(blob, name)
        if BLISTS_INDEX in blob and BLISTS_FOOTER in blob:
            raise ArchiveIndexPage(
                "an index page of the archive (a list of messages), not a message: nothing to check", subject=name
            )
        raise InputError(
            "an HTML page, not a mail or a saved lists.openwall.net message page "
            '(no <pre style="white-space: pre-wrap">)',
            subject=name,
        )
    try:
        raws = _split(blob, name)
    except (ValueError, UnicodeError) as exc:
        raise InputError(f"not a mail or mbox: {exc}", subject=name) from exc
    if not raws:
        raise InputError("no mail found (not a patch, mbox or .eml file)", subject=name)
    offsets = _line_offsets(blob, raws)
    return [InputMessage(name, raw, off, i) for i, (raw, off) in enumerate(zip(raws, offsets))]


# The largest input read (a file, stdin): ``check /dev/zero`` or an endless pipe stops here with a
# clear error instead of growing until a MemoryError.
MAX_INPUT_BYTES = 256 * 1024 * 1024


def _read_bounded(stream: BinaryIO, name: str) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = stream.read(min(1 << 20, MAX_INPUT_BYTES + 1 - size))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_INPUT_BYTES:
            raise InputError(
                f"more than {MAX_INPUT_BYTES // (1024 * 1024)} MiB: not a mail input "
                "(split the mbox, or check fewer patches at a time)",
                subject=name,
            )


def _read_file(path: Path, name: str) -> bytes:
    try:
        with path.open("rb") as fh:
            return _read_bounded(fh, name)
    except FileNotFoundError as exc:
        raise InputError("no such file", subject=name) from exc
    except IsADirectoryError as exc:  # pragma: no cover - directories are handled before
        raise InputError("is a directory", subject=name) from exc
    except PermissionError as exc:
        raise InputError("permission denied", subject=name) from exc
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", subject=name) from exc


def _is_maildir(path: Path) -> bool:
    return (path / "cur").is_dir() and (path / "new").is_dir()


def read_input(name: str, *, stdin: BinaryIO | None = None) -> list[InputMessage]:
    """Read one command-line input: a file, a directory of patch files, a Maildir, or ``-``.

    A directory's patch files (``*.patch``, ``*.eml``, ``*.mbox``, ``*.diff``,
    ``*.mail``) are read in name order, each as its own input; so are the
    messages of a Maildir (``new/`` and ``cur/``, by file name). Raises
    InputError naming the input (missing, unreadable, empty, not a mail).
    """
    if name == STDIN:
        stream = stdin if stdin is not None else sys.stdin.buffer
        try:
            blob = _read_bounded(stream, "-")
        except OSError as exc:
            raise InputError(f"cannot read standard input: {exc}", subject="-") from exc
        return messages_from_bytes(blob, STDIN)
    path = Path(name)
    if path.is_dir():
        from reviewbot.fetch.mailfiles import MAIL_SUFFIXES

        out: list[InputMessage] = []
        if _is_maildir(path):
            entries = sorted(
                (p for sub in ("new", "cur") for p in (path / sub).iterdir() if p.is_file() and p.name[:1] != "."),
                key=lambda p: p.name,
            )
            if not entries:
                raise InputError("empty Maildir", subject=name)
        else:
            entries = sorted(
                p
                for p in path.iterdir()
                if p.is_file() and not p.name.startswith(".") and p.suffix.lower() in MAIL_SUFFIXES
            )
        if not entries:
            suffixes = ", ".join("*" + x for x in MAIL_SUFFIXES)
            raise InputError(f"directory holds no patch files ({suffixes})", subject=name)
        for entry in entries:
            out.extend(messages_from_bytes(_read_file(entry, str(entry)), str(entry)))
        return out
    return messages_from_bytes(_read_file(path, name), name)


def read_git_range(rev_range: str, cwd: Path | None = None) -> list[InputMessage]:
    """``git format-patch --stdout REV_RANGE`` in ``cwd``, split into messages (input ``git:RANGE``).

    Raises InputError when git fails or the range holds no commit.
    """
    from reviewbot.fetch.mailfiles import git_format_patch

    name = f"git:{rev_range}"
    blob = git_format_patch(rev_range, cwd or Path.cwd())
    if not blob.strip():
        raise InputError("the range holds no commit", subject=name)
    return messages_from_bytes(blob, name)


# ------------------------------------------------------------------ checking


def _relocate(
    report: CheckReport,
    offset: int | None,
    verbatim: bool = True,
    subject_line: int | None = None,
) -> CheckReport:
    """Turn message lines into input lines (the review's post-filters are applied before, in reviewbot.review).

    A commit-message finding gets its line in the message (the Subject line
    when it is about the patch as a whole). When the body is not the input
    verbatim (transfer-encoded, flowed), message lines are not input lines:
    ``input_line`` becomes None.
    """
    kept: list[Finding] = []
    changed = False
    for f in report.findings:
        if f.path is None and f.input_line is None:
            # a commit-message finding: ``line`` is its line in the message (models.Finding);
            # without one it is about the patch as a whole, shown at the Subject line
            line = f.line if f.line is not None else subject_line
            if line is not None:
                f = replace(f, input_line=line)
                changed = True
        if not verbatim and f.input_line is not None:
            f = replace(f, input_line=None)
            changed = True
        elif offset and f.input_line is not None:
            f = replace(f, input_line=f.input_line + offset)
            changed = True
        kept.append(f)
    if not changed:
        return report
    return replace(report, findings=tuple(kept))


def _notes_of(patch: Patch, findings: Sequence[Finding] = (), rules: Sequence["LoadedRule"] = ()) -> tuple[str, ...]:
    """The parse warnings a person should see (format=flowed, bare CR, a diff in the commit message).

    A warning whose code a rule claims (``RuleMeta.claims``) is left out when that
    rule reported on the patch: its finding already says it; when the rule did
    not run (deselected, ignored) the warning stays a note. ``Message.notes``
    are left out too: they are about the archive copy (a missing Message-ID,
    which no ``git format-patch`` file has, an odd Date header).
    """
    if not patch.warnings:  # most patches: nothing to leave out
        return ()
    reported = {f.rule_id for f in findings}
    claimed = {code for rule in rules if rule.id in reported for code in rule.meta.claims}
    return tuple(w for w in dict.fromkeys(patch.warnings) if w.code not in claimed)


def _diff_counts(patch: Patch) -> tuple[int, int, int]:
    """(lines, added, removed) of the patch's hunks; lines as checkpatch.pl counts them: ``+``, ``-`` and context.

    The ``\\ No newline at end of file`` marker (C04) is not a line of the
    diff (no number on either side) and is not counted.
    """
    n = added = removed = 0
    for fd in patch.files:
        for h in fd.hunks:  # the hunk's counts: its lines are not read for them
            plus, minus = h.added_count, h.removed_count
            n += h.context_count + plus + minus
            added += plus
            removed += minus
    return n, added, removed


def _diff_lines(patch: Patch) -> int:
    """Lines of the patch's hunks as checkpatch.pl counts them: ``+``, ``-`` and context lines."""
    return _diff_counts(patch)[0]


def _without_hunks(patch: Patch) -> Patch:
    """``patch`` with its files but not their hunks: what a check run keeps once the patch is reviewed.

    The findings keep the hunks they quote; the rest of the diff (most of a
    batch's memory) is let go patch by patch instead of living until the report.
    """
    if not any(fd.hunks for fd in patch.files):
        return patch
    return replace(patch, files=tuple(replace(fd, hunks=()) if fd.hunks else fd for fd in patch.files))


def _header_end(data: bytes) -> int:
    """Offset of the empty line that ends the header block of raw mail bytes, or -1 without one.

    The first ``"\\r\\n\\r\\n"`` when a CRLF line end comes in the first 200 bytes, else
    the first ``"\\n\\n"``: what :func:`raw_subject` and :func:`thread_headers` read up
    to (a batch finds it once per reply, for both).
    """
    return data.find(b"\r\n\r\n" if data.find(b"\r\n", 0, 200) >= 0 else b"\n\n")


def _header_ends(data: bytes) -> tuple[int, int | None]:
    """(:func:`_header_end` of ``data``, ``data.find(b"\\n\\n")`` when that is what it looked for, else None).

    The first "\\n\\n" is where the parser and :func:`_inbody_submission` look for the header end too: a
    batch finds it once per message (a search over the whole header block, a few KB on LKML)."""
    if data.find(b"\r\n", 0, 200) >= 0:
        return data.find(b"\r\n\r\n"), None
    end = data.find(b"\n\n")
    return end, end


def raw_subject(data: bytes, end: int | None = None) -> str | None:
    """The Subject header of raw mail bytes, unfolded (RFC 2047 words left encoded), or None.

    Cheap: looks only at the header block, without copying it, so a batch can
    pass over replies without decoding them. ``end`` is :func:`_header_end` of
    ``data`` when the caller has it already.
    """
    if end is None:
        end = _header_end(data)
    if end < 0:
        end = len(data)
    if data[:8].lower() == b"subject:":
        start = 0
    else:
        at = data.find(b"\nSubject:", 0, end)  # the usual spelling first
        if at < 0:
            at = data[:end].lower().find(b"\nsubject:")
            if at < 0:
                return None
        start = at + 1
    stop = data.find(b"\n", start, end)
    while stop >= 0 and data[stop + 1 : stop + 2] in (b" ", b"\t"):
        stop = data.find(b"\n", stop + 1, end)
    value = data[start + len(b"subject:") : stop if stop >= 0 else end]
    return " ".join(value.decode("utf-8", "replace").split())


def _header_line(data: bytes, key: bytes) -> int | None:
    """1-based line of the first header ``key`` (lower-case, with the colon) in raw mail bytes, or None.

    The header block ends at the first empty line ("" or a lone CR); only it
    is searched, in one pass over a lower-cased copy of it.
    """
    if data[:1] == b"\n" or data[:2] == b"\r\n" or data == b"\r":
        return None  # an empty first line: no header at all
    end = data.find(b"\n\n")
    if end >= 0 and data.find(b"\r", 0, end + 2) < 0:
        crlf_end = -1  # no CR before it (most mail): no CRLF empty line either (a CR is found at memchr speed)
    else:
        crlf_end = data.find(b"\n\r\n", 0, end + 2) if end >= 0 else data.find(b"\n\r\n")
    if crlf_end >= 0 and (end < 0 or crlf_end < end):
        end = crlf_end
    if end < 0 and data.endswith(b"\n\r"):
        end = len(data) - 2  # a lone CR as the last line
    head = (data if end < 0 else data[:end]).lower()
    if head.startswith(key):
        return 1
    at = head.find(b"\n" + key)
    if at < 0:
        return None
    return head.count(b"\n", 0, at) + 2


_THREAD_HEADERS = {b"message-id": "message_id", b"in-reply-to": "in_reply_to", b"references": "references"}
#: One of those headers with its continuation lines, searched in "\n" + the header block. The look-ahead
#: (their first letters) lets the search pass over every other header line (Received, DKIM-...) at once.
_THREAD_HEADER_RE = lazyre.compile(rb"\n(?=[MmIiRr])((?i:message-id|in-reply-to|references)):(.*(?:\n[ \t].*)*)")


def thread_headers(data: bytes, cut: int | None = None) -> tuple[str, str | None, tuple[str, ...]] | None:
    """(Message-ID, In-Reply-To, References) of raw mail bytes, read from the header block alone, or None.

    Cheap: a reply is parsed whole only when a rule reads the thread
    (``reviewbot.review.LaterMessage``). The values go through the parser's own
    msg-id functions, so they equal what it reads; anything unusual (no
    Message-ID, a header twice, a bare CR, 8-bit bytes) returns None and the
    caller parses the message whole. ``cut`` is :func:`_header_end` of ``data``
    when the caller has it already.
    """
    from reviewbot.parse.mail import first_msgid, msgid_list, normalize_msgid

    if cut is None:
        cut = _header_end(data)
    if cut < 0:
        return None
    block = data[:cut]
    if b"\r" in block:  # CRLF line ends (most mail has none: no copy then)
        block = block.replace(b"\r\n", b"\n")
    if b"\r" in block or not block.isascii():
        return None
    found: dict[str, bytes] = {}
    for m in _THREAD_HEADER_RE.finditer(b"\n" + block):
        key = _THREAD_HEADERS[m.group(1).lower()]
        if key in found:
            return None
        found[key] = m.group(2).lstrip(b" \t")
    if "message_id" not in found:
        return None
    text = {k: v.decode("ascii") for k, v in found.items()}
    message_id = normalize_msgid(text["message_id"])
    if not message_id:
        return None
    return message_id, first_msgid(text.get("in_reply_to", "")), msgid_list(text.get("references", ""))


def _later(item: InputMessage, subject: "Subject", end: int | None = None) -> "Message | LaterMessage | None":
    """A reply as thread context: its threading headers and Subject now, the whole message when a rule reads it.

    ``end`` is :func:`_header_end` of the raw bytes when the caller has it already."""
    from reviewbot.review import LaterMessage

    heads = thread_headers(item.raw.data, end)
    if heads is None:
        return _load_reply(item.raw)
    return LaterMessage(*heads, subject, _load_reply, item.raw)


def _load_reply(raw: RawMessage) -> Message | None:
    """A reply parsed whole, or None (left out of the thread) when it cannot be parsed."""
    from reviewbot.parse.mail import parse_message

    try:
        return parse_message(raw)
    except ReviewbotError as exc:
        log.info("reply left out of the thread: %s", exc)
        return None


def _is_reply(item: InputMessage) -> bool:
    """True when the raw Subject says the message is a reply (``Re:``...), which is never a submission."""
    return _reply_subject(item) is not None


def _reply_subject(item: InputMessage, end: int | None = None, lf: int | None = None) -> "Subject | None":
    """The parsed raw Subject when it says the message is a reply (``Re:``...), else None (header block only).

    ``end`` is :func:`_header_end` of the raw bytes when the caller has it already, ``lf`` their first
    "\\n\\n" (:func:`_header_ends`)."""
    from reviewbot.parse.mail import decode_header_value
    from reviewbot.parse.subject import parse_subject

    if item.raw.kind != "rfc822":
        return None
    subject = raw_subject(item.raw.data, end)
    if subject is None:
        return None
    if "=?" in subject:
        subject = decode_header_value(subject)
    parsed = parse_subject(subject)
    if not parsed.is_reply or _inbody_submission(item.raw.data, lf):
        return None
    return parsed


#: How the first line of an in-body header block starts (lower case): ``From:``, ``Subject:``, ``Date:``
#: (any case, blanks before the colon), ``[PATCH] title``, ``>From <sha> Mon Sep 17 ...``.
INBODY_OPENINGS = (b"from", b"subject", b"date", b"[patch]", b">from ")


def _inbody_submission(data: bytes, lf: int | None = None) -> bool:
    """True when a reply's body opens with an in-body header block whose Subject is not a reply:
    a patch sent in a thread the way ``git am`` reads it (C19), not a reviewer's reply (C09).

    ``lf`` is ``data.find(b"\\n\\n")`` when the caller has it already."""
    from reviewbot.parse.patch import read_inbody_headers
    from reviewbot.parse.subject import parse_subject

    cut = data.find(b"\n\n") if lf is None else lf
    if cut >= 0 and data.find(b"\r", 0, cut + 2) < 0:
        crlf = -1  # no CR before the first LF empty line (most mail): no CRLF empty line before it either
    else:
        crlf = data.find(b"\n\r\n", 0, cut + 2) if cut >= 0 else data.find(b"\n\r\n")  # only one before cut counts
    if cut < 0 or (0 <= crlf < cut):
        cut = crlf + 1 if crlf >= 0 else -1
    if cut < 0:
        return False
    # most replies open with quoted or plain text: a block can only start (after empty lines) with a header
    # name, the [PATCH] line or format-patch's >From line (read_inbody_headers); anything else ends it at once
    # (a non-ASCII opening is read in full: the header names match case-insensitively in Unicode)
    opening = data[cut + 2 : cut + 2 + 4096].lstrip(b"\r\n")[:8].lower()
    if opening.isascii() and not opening.startswith(INBODY_OPENINGS):
        return False
    head = data[cut + 2 : cut + 2 + 4096].decode("utf-8", "replace").replace("\r\n", "\n").split("\n")[:40]
    found, _ = read_inbody_headers(head)
    return "subject" in found and not parse_subject(" ".join(found["subject"].split())).is_reply


def _diff_problem(exc: ParseError, item: InputMessage, message: Any) -> ParseError:
    """A malformed diff named as a person looks for it: the input, the message and the input line (C26)."""
    what = exc.message
    line = exc.line
    if line is not None and message.body_start_line > 1 and item.offset is not None:
        line += item.offset  # the body is the input verbatim: message lines + the lines before the message
    elif line is not None and not message.bare_diff:
        what += f" (line {line} of the decoded mail body)"
        line = None
    name = item.input if line is not None else item.raw.source  # an input line, or the message's place
    if message.bare_diff:
        return ParseError(what, subject=name, line=line)
    from reviewbot.parse.mail import SYNTHETIC_MSGID_DOMAIN  # an error's path only

    if message.message_id.endswith("@" + SYNTHETIC_MSGID_DOMAIN):  # no Message-ID (a format-patch file): the subject
        return ParseError(f"patch {message.subject.raw.strip()[:100]!r}: {what}", subject=name, line=line)
    return ParseError(f"message <{message.message_id}>: {what}", subject=name, line=line)


def check_messages(
    items: Iterable[InputMessage],
    rules: Sequence["LoadedRule"],
    *,
    strict: bool = False,
    per_path_ignores: Mapping[str, Sequence[str]] | None = None,
    options: Mapping[str, Any] | None = None,
    problems: Sequence[ReviewbotError] = (),
) -> CheckRun:
    """Parse the messages, group them into series and run the rules on every patch with a diff.

    A cover letter is not checked itself: it is given to the rules of its
    series' patches as ``RuleContext.cover``. Messages that are neither
    (replies) are counted in ``skipped``. Messages that fail to parse become
    ``problems`` (ParseError naming the message and line); the rest is checked.
    """
    return _check_messages(
        items, rules, strict=strict, per_path_ignores=per_path_ignores, options=options, problems=problems
    )


def _read_headers(
    items: Sequence[InputMessage],
) -> tuple[
    list[tuple[int, Message]],
    list[tuple[int, "Message | LaterMessage"]],
    dict[str, int],
    list[tuple[int, ReviewbotError]],
]:
    """The first step over a run's messages: replies as thread context, every other message decoded.

    Returns (decoded non-replies as (position, Message), replies as thread
    context (position, Message or :class:`~reviewbot.review.LaterMessage`),
    replies per input, problems as (position, error)). Replies (by their
    Subject) are not decoded: a reply read from mail is parsed only if a rule
    reads its body; one that cannot be parsed is left out of the thread,
    quietly. A message that cannot be decoded is a problem.
    """
    from reviewbot.parse.mail import parse_message

    decoded: list[tuple[int, Message]] = []
    context: list[tuple[int, Message | LaterMessage]] = []
    replies: dict[str, int] = {}
    problems: list[tuple[int, ReviewbotError]] = []
    for pos, item in enumerate(items):
        end = lf = None
        if item.raw.kind == "rfc822":
            end, lf = _header_ends(item.raw.data)  # read once for every step
        reply = _reply_subject(item, end, lf)
        if reply is not None:
            replies[item.input] = replies.get(item.input, 0) + 1
            later = _later(item, reply, end)
            if later is not None:
                context.append((pos, later))
            continue
        try:
            decoded.append((pos, parse_message(item.raw, empty_line=lf)))
        except ReviewbotError as exc:
            problems.append((pos, exc))
    return decoded, context, replies, problems


def _first_each(messages: Iterable["Message | LaterMessage"]) -> list["Message | LaterMessage"]:
    """The messages with each Message-ID once (its first message), as the review threads them."""
    first: dict[str, Message | LaterMessage] = {}
    for m in messages:
        first.setdefault(m.message_id, m)
    return list(first.values())


def _review_groups(
    messages: Sequence[tuple[int, "Message | LaterMessage"]], roots: Mapping[str, str]
) -> dict[int, str]:
    """Position -> review group: messages that must be reviewed together (one call of the review pipeline).

    A group holds whole threads (a rule reads the thread; a cover letter or a
    thread root is a patch's cover), the threads of one ``git send-email`` run
    (``threads.series_root``), and the threads of the unthreaded messages that
    may form one unthreaded series (``review.unthreaded_series``: ``git
    format-patch`` files written without ``--thread``, by author, version and
    total). Reviewing group by group gives what one review of all messages
    gives, while a batch holds only the diffs of the groups not yet reviewed.
    """
    from reviewbot.parse.threads import series_root
    from reviewbot.review import linked, unthreaded_key

    parent: dict[str, str] = {}

    def find(key: str) -> str:
        while parent.get(key, key) != key:
            key = parent[key]
        return key

    def union(a: str, b: str) -> None:
        a, b = find(a), find(b)
        if a != b:
            parent[b] = a

    keys: list[tuple[int, str]] = []
    unthreaded: dict[tuple[str, int, int], list[str]] = {}  # (author, version, total) -> the messages' keys
    numbered: set[tuple[str, int, int]] = set()  # keys with a patch (n/N, n > 0), not only cover letters
    anyone: list[str] = []  # unthreaded messages whose in-body headers may give any counter
    for pos, m in messages:
        key = series_root(roots.get(m.message_id, m.message_id))
        keys.append((pos, key))
        # replies come as LaterMessage (never a patch, and reading more than their headers parses them)
        if not isinstance(m, Message) or linked(m):
            continue
        authors = _unthreaded_authors(m)
        if authors is None:
            anyone.append(key)
            continue
        for author in authors:
            group = unthreaded_key(m, m.subject, author)  # as review.unthreaded_series groups them
            if group is None:
                break  # no n/N in the subject
            unthreaded.setdefault(group, []).append(key)
            if m.subject.index:
                numbered.add(group)
    if anyone:  # such a message may join any unthreaded series: all of them are reviewed together
        for key in anyone:
            union(anyone[0], key)
        for members in unthreaded.values():
            for key in members:
                union(anyone[0], key)
    else:
        for group in numbered:  # cover letters alone (no n/N beside them) form no series of another thread's patch
            members = unthreaded[group]
            for key in members[1:]:
                union(members[0], key)
    return {pos: find(key) for pos, key in keys}


def _unthreaded_authors(message: Message) -> tuple[str, ...] | None:
    """The authors (lower-case address, "" for none) an unthreaded message may have once parsed as a patch,
    or None when parsing it may change its subject (an in-body Subject, a patch taken from an attachment).

    An in-body ``From:`` names the author (``parse.patch.read_inbody_headers``, read as
    ``parse_patch`` reads it): both it and the mail's sender are given, so that a diff starting
    above it changes nothing.
    """
    from reviewbot.parse.mail import sender_addresses
    from reviewbot.parse.patch import read_inbody_headers
    from reviewbot.review import sender_of

    sender = sender_of(message)
    if message.attachments:
        return None
    found, _ = read_inbody_headers(message.body.split("\n"))
    if "subject" in found:
        return None
    if "from" not in found:
        return (sender,)
    if "\n" in found["from"]:
        return None  # a folded in-body From: a diff may start inside it
    addrs = sender_addresses(found["from"])
    inbody = addrs[0].email.lower() if addrs and "@" in addrs[0].email else ""
    return (sender, inbody)


def _malformed_diff(name: str, decoded: Sequence[tuple[int, Message]], items: Sequence[InputMessage]) -> str:
    """Why an input held no patch when one of its messages has a diff too broken to read (a mail cut inside a
    hunk, its subject without [PATCH]: read as a reply's half-quoted diff and skipped); "" when none has."""
    from reviewbot.parse.patch import WARN_MALFORMED_DIFF, parse_patch

    for pos, message in decoded:
        if items[pos].input == name and not message.subject.is_reply:
            try:
                broken = [str(w) for w in parse_patch(message).warnings if w.code == WARN_MALFORMED_DIFF]
            except ReviewbotError:
                continue
            if broken:  # "malformed diff ignored (...): <id>:220: malformed diff in X: ..." -> "line 220: ..."
                return "its diff cannot be read: " + re.sub(r"^.*?: \S+?:(\d+): ", r"line \1: ", broken[0], count=1)
    return ""


class _ThreadsChanged(Exception):
    """A message left out of the run (its diff cannot be parsed) changes the threads already reviewed."""


def _check_messages(
    items: Iterable[InputMessage],
    rules: Sequence["LoadedRule"],
    *,
    strict: bool,
    per_path_ignores: Mapping[str, Sequence[str]] | None,
    options: Mapping[str, Any] | None,
    problems: Sequence[ReviewbotError],
) -> CheckRun:
    from reviewbot.review import Reviewer

    items = list(items)
    seen_inputs = dict.fromkeys(item.input for item in items)
    decoded, context, replies, read_problems = _read_headers(items)
    reviewer = Reviewer(rules, strict=strict, options=options, per_path_ignores=per_path_ignores, settle=True)
    try:
        done = _review_in_groups(items, decoded, context, replies, read_problems, reviewer, grouped=True)
    except _ThreadsChanged:
        # rare: a message whose diff cannot be parsed was a link of a thread already reviewed; review the
        # run as one group then (its threads are computed once every message is parsed)
        done = _review_in_groups(items, decoded, context, replies, read_problems, reviewer, grouped=False)
    results, skipped, replies_all, parse_problems, patch_inputs, covers, context_ids, run_notes, tally = done
    # An input that held mail but neither a patch nor a cover letter is not a patch: say so.
    # Replies are readable mail that is simply not a submission (a reviewer's quoted
    # or suggested diff, C09): a note, not an error. Anything else is an error.
    messages_in = Counter(item.input for item in items)
    failed = {(p.subject or "") for p in parse_problems}
    extra: list[ReviewbotError] = []
    input_notes: list[str] = []
    explained = 0
    for name in seen_inputs:
        if name not in patch_inputs and not any(s == name or s.startswith(name + ":") for s in failed):
            n_replies = replies_all.get(name, 0)
            if n_replies and n_replies == messages_in[name]:
                input_notes.append(reply_note(name, n_replies))
                explained += n_replies
            else:
                why = _malformed_diff(name, decoded, items) or "no message with a diff"
                pages = [item.raw for item in items if item.input == name and item.raw.attachments]
                if pages:
                    why += (
                        f" (the saved page links {_attachment_list(pages[0].attachments)}, which cannot be "
                        "fetched from a saved page: check the attachment file itself)"
                    )
                extra.append(InputError(f"no patch found: {why}", subject=name))
    # a cover letter without 0/N (C21) is read as the thread's root: a cover letter, not a skipped message
    roots_as_covers = {mid for mid, is_cover in covers if not is_cover and mid in context_ids}
    return CheckRun(
        patches=tuple(results),
        rules=tuple(rules),
        skipped=skipped - len(roots_as_covers),
        problems=(*problems, *parse_problems, *extra),
        strict=strict,
        replies=sum(replies_all.values()),
        notes=(*input_notes, *run_notes),
        explained=explained,
        covers=tally["cover letters"] + len(roots_as_covers),
        unsubmitted=tally["not submissions"],
    )


def _review_in_groups(
    items: Sequence[InputMessage],
    decoded: Sequence[tuple[int, Message]],
    context: Sequence[tuple[int, "Message | LaterMessage"]],
    replies: Mapping[str, int],
    read_problems: Sequence[tuple[int, ReviewbotError]],
    reviewer: Any,
    *,
    grouped: bool,
) -> tuple[
    list[CheckedPatch],
    int,
    dict[str, int],
    list[ReviewbotError],
    set[str],
    list[tuple[str, bool]],
    set[str],
    list[str],
    Counter[str],
]:
    """Parse every decoded message as a patch and review the run, group by group (:func:`_review_groups`).

    A group is reviewed as soon as its last message is parsed, and its patches
    are kept without their hunks (:func:`_without_hunks`): a batch holds the
    diffs of a few threads at a time, not of every patch until the report.
    With ``grouped=False`` the whole run is one group whose threads the review
    computes (the way taken when a message that fails to parse changes the
    threads). Raises _ThreadsChanged when, grouped, such a message changes the
    threads of the run.
    """
    from reviewbot.parse.patch import parse_patch
    from reviewbot.review import is_reviewed, thread_roots

    replies = dict(replies)
    problems: list[tuple[int, ReviewbotError]] = list(read_problems)
    messages: dict[int, Message | LaterMessage | Patch] = dict(context)  # position -> what the review is given
    context_ids = {m.message_id for _, m in context}
    all_messages = sorted([*decoded, *context], key=operator.itemgetter(0))
    roots: Mapping[str, str] = {}
    if grouped:
        roots = thread_roots(_first_each(m for _, m in all_messages))
        group_of = _review_groups(all_messages, roots)
    else:
        group_of = {pos: "" for pos, _ in all_messages}
    members: dict[str, list[int]] = {}
    for pos, _ in all_messages:
        members.setdefault(group_of[pos], []).append(pos)
    waiting = Counter(group_of[pos] for pos, _ in decoded)  # messages of each group still to parse
    failed_at: set[int] = set()
    skipped = sum(replies.values())  # every reply is skipped, a reply that cannot be parsed included
    patch_inputs: set[str] = set()
    covers: list[tuple[str, bool]] = []
    tally: Counter[str] = Counter()  # "cover letters" (0/N, no diff) and "not submissions" (a diff, not a patch)
    run_notes: list[str] = []
    results: list[tuple[int, CheckedPatch]] = []
    for pos, message in decoded:
        item = items[pos]
        try:
            patch = parse_patch(message)
        except ParseError as exc:
            problems.append((pos, _diff_problem(exc, item, message)))
            failed_at.add(pos)
            if grouped:
                _same_threads(all_messages, failed_at, roots)
        else:
            if item.raw.kind == "archive" and patch.subject.is_reply:
                # a saved archive page has no raw Subject to look at before parsing
                skipped += 1
                replies[item.input] = replies.get(item.input, 0) + 1
                messages[pos] = message
                context_ids.add(message.message_id)
            elif patch.has_diff or patch.subject.is_cover_letter:
                messages[pos] = patch
                patch_inputs.add(item.input)
                tally["cover letters"] += not patch.has_diff
                if patch.has_diff and not is_reviewed(patch):
                    tally["not submissions"] += 1
                    # an archive page whose subject does not say [PATCH]: a commit notice or a reply without Re:
                    tag = patch.subject.raw[: patch.subject.raw.find("]") + 1] if patch.subject.tags else ""
                    why = (
                        "a saved archive page shows no In-Reply-To, so only a [PATCH]-style subject says it is one"
                        if item.raw.kind == "archive"
                        else f"it answers another message, and its subject's tag {tag} marks a notice (of a commit "
                        "merged, a pull request), not a [PATCH]"
                        if tag
                        else "it answers another message and has neither a [PATCH]-style subject nor the diffstat "
                        "git format-patch writes: a diff a reviewer suggests"
                    )
                    import textwrap  # only here: every check start would pay for it

                    title = textwrap.shorten(patch.subject.raw, 72, placeholder=" ...")  # whole words
                    run_notes.append(
                        f"{item.input}: {title!r} has a diff but is not a patch submission ({why}): not checked"
                    )
            else:
                skipped += 1
                messages[pos] = message
                context_ids.add(message.message_id)
            del patch
        group = group_of[pos]
        waiting[group] -= 1
        if waiting[group]:
            continue
        positions = [p for p in members.pop(group) if p in messages]
        given = [messages.pop(p) for p in positions]
        threads = {m.message_id: roots[m.message_id] for m in given if m.message_id in roots} if grouped else None
        for reviewed in reviewer(given, threads):
            at = positions[reviewed.index]
            results.append((at, _checked(reviewed, items[at], reviewer.rules)))
            if reviewed.cover is not None:
                covers.append((reviewed.cover.message_id, reviewed.cover.subject.is_cover_letter))
        del given
    results.sort(key=operator.itemgetter(0))
    problems.sort(key=operator.itemgetter(0))
    return (
        [cp for _, cp in results],
        skipped,
        replies,
        [exc for _, exc in problems],
        patch_inputs,
        covers,
        context_ids,
        run_notes,
        tally,
    )


def _same_threads(
    messages: Sequence[tuple[int, "Message | LaterMessage"]], failed_at: set[int], roots: Mapping[str, str]
) -> None:
    """Raise _ThreadsChanged unless leaving out the messages at ``failed_at`` keeps every thread root as it is."""
    from reviewbot.review import thread_roots

    if len(failed_at) > 16:  # many broken patches: one review of the whole run is simpler than checking each
        raise _ThreadsChanged
    now = thread_roots(_first_each(m for pos, m in messages if pos not in failed_at))
    if any(roots.get(mid) != root for mid, root in now.items()):
        raise _ThreadsChanged


def _checked(reviewed: Any, item: InputMessage, rules: Sequence["LoadedRule"]) -> CheckedPatch:
    """One reviewed patch as the check run keeps it: findings in input lines, notes, counts; no hunks."""
    patch = reviewed.patch
    # the parser numbers lines from the message's first line (Message.body_start_line);
    # the input counts from its own first line; a bare diff (`git diff`, `git show`) is its
    # own body from line 1, not encoded: its lines are input lines as checkpatch.pl counts them
    verbatim = patch.message.body_start_line > 1 or patch.message.bare_diff
    report = reviewed.report
    # the Subject line is looked up only for a finding about the patch as a whole (see _relocate)
    whole = any(f.path is None and f.input_line is None and f.line is None for f in report.findings)
    subject_line = _header_line(item.raw.data, b"subject:") if whole else None
    report = _relocate(report, item.offset, verbatim, subject_line)
    notes = _notes_of(patch, report.findings, rules)
    page = item.raw.kind == "archive"
    if page:
        notes += page_notes(patch, item.raw)
    if not verbatim and any(f.input_line is None for f in report.findings):
        notes += (
            (
                "the input is a saved archive page, so the line numbers given are those of the patched "
                "source file (FILE: path:line), not of the page, and no #N is given"
            )
            if page
            else (
                "the mail body is encoded (quoted-printable, base64, multipart or format=flowed), so the line "
                "numbers given are those of the patched source file (FILE: path:line), not of the mail, and no "
                "#N is given"
            ),
        )
    data = item.raw.data
    commit = None
    if item.input.startswith("git:"):
        m = _FORMAT_PATCH_ENVELOPE.match(data)
        if m is not None:
            commit = (m.group(1).decode("ascii")[:12], patch.subject.title)
    lines, added, removed = _diff_counts(patch)
    return CheckedPatch(
        input=item.input,
        index=item.index,
        report=replace(report, patch=_without_hunks(patch)),
        offset=item.offset,
        lines_checked=lines,
        notes=notes,
        data=data,
        commit=commit,
        added=added,
        removed=removed,
    )


#: The envelope line ``git format-patch`` writes: ``From <sha> Mon Sep 17 00:00:00 2001``.
_FORMAT_PATCH_ENVELOPE = lazyre.compile(rb"From ([0-9a-f]{40}|[0-9a-f]{64}) Mon Sep 17 00:00:00 2001")


def _attachment_list(attachments: Sequence[Any], limit: int = 3) -> str:
    names = ", ".join(repr(a.filename) for a in attachments[:limit])
    more = f" and {len(attachments) - limit} more" if len(attachments) > limit else ""
    return f"{'1 attachment' if len(attachments) == 1 else f'{len(attachments)} attachments'} ({names}{more})"


def page_notes(patch: Patch, raw: RawMessage) -> tuple[str, ...]:
    """Notes for a patch read from a saved lists.openwall.net page (kind ``"archive"``).

    The archive obfuscates e-mail addresses (``ada@...mple.org``: 3 characters
    dropped after the ``@``, in headers, trailers and diff lines alike): said
    once, with the number of diff lines it altered (those are not checked).
    Attachment links cannot be followed from a saved page: said with their
    names.
    """
    notes: list[str] = []
    message = patch.message
    altered = sum(1 for fd in patch.files for h in fd.hunks for dl in h.lines if dl.altered)
    obfuscated = (
        altered
        or "@..." in message.body
        or any(a.partial for a in (message.from_addr, *message.to, *message.cc) if a is not None)
    )
    if obfuscated:
        note = (
            "e-mail addresses are obfuscated by the archive (user@...main: 3 characters dropped), "
            "so they are not real addresses"
        )
        if altered:
            note += (
                f"; {altered} diff line{'s' if altered != 1 else ''} holding one "
                f"{'are' if altered != 1 else 'is'} marked altered: no finding is reported on them"
            )
        notes.append(note)
    if raw.attachments:
        notes.append(
            f"the saved page links {_attachment_list(raw.attachments)}, which cannot be fetched from a "
            "saved page and {}not checked".format("is " if len(raw.attachments) == 1 else "are ")
        )
    return tuple(notes)


def reply_note(name: str, replies: int) -> str:
    """The note for an input holding only replies (``Re:``), ``replies`` of them: nothing to check.

    ``name`` is the input as given (``-`` is named "standard input").
    """
    label = "standard input" if name == STDIN else name
    if replies == 1:
        return f"{label}: a reply, not a patch submission: nothing to check"
    return f"{label}: {replies} replies, no patch submission: nothing to check"


def load_check_rules(
    *,
    select: Sequence[str] = (),
    ignore: Sequence[str] = (),
    rules_dirs: Sequence[Path] = (),
) -> tuple["LoadedRule", ...]:
    """The rules for a check run (built-ins, entry points, ``rules_dirs``), filtered by select/ignore.

    Raises RuleLoadError (a broken rule stops the run) or UsageError.
    """
    from reviewbot.registry import load_rules

    return load_rules(rules_dirs=tuple(rules_dirs), select=tuple(select), ignore=tuple(ignore))


def run_check(
    inputs: Sequence[str],
    settings: "Settings",
    *,
    git_range: str | None = None,
    cwd: Path | None = None,
    stdin: BinaryIO | None = None,
    rules: Sequence["LoadedRule"] | None = None,
) -> CheckRun:
    """Read every input (and the git range), then check all their messages in one run.

    ``settings`` supplies select/ignore/strict/per-path ignores/rules_dirs
    (flags already applied by the caller). An input that cannot be read is
    recorded in ``CheckRun.problems`` and the others are still checked; if
    nothing at all could be read and there are problems, the run has no
    patches. Raises UsageError when there is no input at all.
    """
    if not inputs and not git_range:
        raise UsageError("nothing to check: give patch files, a directory, '-' or --git RANGE")
    if rules is None:
        rules = load_check_rules(select=settings.select, ignore=settings.ignore, rules_dirs=settings.rules_dirs)
    items: list[InputMessage] = []
    problems: list[ReviewbotError] = []
    notes: list[str] = []
    for name in inputs:
        try:
            got = read_input(name, stdin=stdin)
        except ArchiveIndexPage as exc:
            notes.append(str(exc))
            continue
        except ReviewbotError as exc:
            problems.append(exc)
            continue
        items.extend(got)
    if git_range:
        try:
            items.extend(read_git_range(git_range, cwd))
        except ReviewbotError as exc:
            problems.append(exc)
    run = check_messages(
        items,
        rules,
        strict=settings.strict,
        per_path_ignores=settings.per_path_ignores,
        problems=problems,
        options={"btf": str(settings.btf)} if settings.btf else None,  # RB101's cache-line maps
    )
    return run._replace(notes=(*notes, *run.notes)) if notes else run


__all__ = [
    "CheckRun",
    "CheckedPatch",
    "InputMessage",
    "check_messages",
    "load_check_rules",
    "messages_from_bytes",
    "parse_threshold",
    "read_git_range",
    "read_input",
    "run_check",
    "STDIN",
]
