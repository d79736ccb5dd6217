"""The local pre-check behind ``reviewbot check``: inputs -> messages -> patches -> series -> engine.

Inputs are what a developer has before sending: ``git format-patch`` files,
``.eml`` files, an mbox holding a series, a directory of such files, standard
input (``-``) and a git revision range (``git format-patch --stdout RANGE``).
All messages of one run are grouped into series together, so
``reviewbot check 00*.patch`` checks the patches with their cover letter
(``RuleContext.cover``), which counts as evidence for RB201.

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

import fnmatch
import gc
import logging
import operator
import re
import sys
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Iterable, Mapping, Sequence

from reviewbot.errors import InputError, ReviewbotError, UsageError
from reviewbot.models import CheckReport, Finding, FindingState, LineKind, Patch, RawMessage, RuleFailure, Series, Severity

if TYPE_CHECKING:  # pragma: no cover - typing only
    from reviewbot.config import Settings
    from reviewbot.registry import LoadedRule

log = logging.getLogger(__name__)

STDIN = "-"
THRESHOLDS = {"error": Severity.ERROR, "warning": Severity.WARNING, "check": Severity.CHECK}


# ------------------------------------------------------------------ values


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class CheckedPatch:
    """The result for one patch mail of a run.

    ``report`` holds the findings with ``input_line`` already in input lines
    (and per-path ignores applied). ``lines_checked`` counts the lines of the
    patch's hunks, as checkpatch.pl counts them in its ``total:`` line. ``notes`` are informational lines for a person (parse warnings:
    format=flowed, bare CR, ...). ``data`` is the raw message, used to show
    the offending commit-message line in the text report.
    """

    input: str
    index: int
    report: CheckReport
    offset: int | None
    lines_checked: int
    notes: tuple[str, ...] = ()
    data: bytes = b""
    is_cover: bool = False

    @property
    def patch(self) -> Patch:
        return self.report.patch

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


@dataclass(frozen=True)
class CheckRun:
    """Everything one ``reviewbot check`` produced.

    ``patches`` are in input order (message order inside an input);
    ``skipped`` counts messages that were neither a patch nor a cover letter
    (replies in an mbox), ``replies`` how many of them were replies (``Re:``).
    ``notes`` are informational lines about whole inputs, each naming its
    input (an input holding only replies: nothing to check, not an error);
    ``explained`` counts the skipped messages such a note already speaks for.
    ``problems`` are inputs or messages that could not be read or parsed (each
    names the file and what was wrong; the command exits 2 when there is one).
    ``rules`` are the rules that ran (for SARIF metadata).
    """

    patches: tuple[CheckedPatch, ...]
    rules: tuple["LoadedRule", ...] = ()
    skipped: int = 0
    problems: tuple[ReviewbotError, ...] = ()
    strict: bool = False
    replies: int = 0
    notes: tuple[str, ...] = ()
    explained: int = 0

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
_TITLE_LIST = re.compile(rb"<title>\s*([A-Za-z0-9][A-Za-z0-9._+-]*)(?:\s+-\s|\s*</title>)", re.I)


def is_html_page(blob: bytes) -> bool:
    """True when the bytes start like an HTML document (``<!DOCTYPE html`` or ``<html``), after a BOM/blank."""
    head = blob[:512].lstrip(b"\xef\xbb\xbf").lstrip().lower()
    return head.startswith((b"<!doctype html", b"<html"))


def is_blists_message_page(blob: bytes) -> bool:
    """True for a saved lists.openwall.net message page: HTML holding blists' message ``<pre>``.

    Cheap (two byte searches): decides whether the HTML parser is needed at all.
    """
    return is_html_page(blob) and BLISTS_PRE in blob


def messages_from_page(blob: bytes, name: str) -> list[InputMessage]:
    """A saved blists message page as one message of kind ``"archive"`` (headers and body from its ``<pre>``).

    The page's lines are not the message's (markup, escapes), so the message
    has no input offset. The HTML parser (``reviewbot.fetch.openwall``, lxml)
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
            raise InputError(f"more than {MAX_INPUT_BYTES // (1024 * 1024)} MiB: not a mail input "
                             "(split the mbox, or check fewer patches at a time)", subject=name)


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
                p for p in path.iterdir()
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


def _rule_matches(finding: Finding, selector: str) -> bool:
    """A per-path ignore entry: ``*``/``all``, an id (``RB102``), an id prefix (``RB1``) or a rule name."""
    sel = selector.strip()
    if sel in ("*", "all"):
        return True
    if sel[:2].upper() == "RB" and (sel[2:].isdigit() or sel[2:] == ""):
        return finding.rule_id.startswith(sel.upper())
    return finding.rule_name == sel.lower()


def _path_ignored(path: str | None, finding: Finding, ignores: Mapping[str, Sequence[str]]) -> bool:
    if not path or not ignores:
        return False
    for pattern, rules in ignores.items():
        if fnmatch.fnmatchcase(path, pattern) or fnmatch.fnmatchcase(path, pattern.rstrip("/") + "/*"):
            for rule in rules:
                if _rule_matches(finding, rule):
                    return True
    return False


def _relocate(
    report: CheckReport,
    offset: int | None,
    ignores: Mapping[str, Sequence[str]],
    strict: bool = False,
    verbatim: bool = True,
    subject_line: int | None = None,
) -> CheckReport:
    """Apply per-path ignores, settle answered findings, and turn message lines into input lines.

    A finding the series already answers (``FindingState.ANSWERED``: e.g. the
    numbers RB201 asks for are in the cover letter) is not a problem to fix
    before sending: it is dropped, or shown as CHECK with ``strict`` (a
    maintainer may still want the numbers in the changelog). A dismissed one
    is dropped. When the body is not the input verbatim (transfer-encoded,
    flowed), message lines are not input lines: ``input_line`` becomes None.
    """
    kept: list[Finding] = []
    changed = False
    for f in report.findings:
        if _path_ignored(f.path, f, ignores) or f.state is FindingState.DISMISSED:
            changed = True
            continue
        if f.state is FindingState.ANSWERED:
            changed = True
            if not strict:
                continue
            f = replace(f, severity=Severity.CHECK)
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


#: Parse warnings (``Patch.warnings``) that a rule reports as a finding of its own:
#: (rule id, how the warning starts). When that rule reported on the patch, the
#: warning would only say the same thing again, so it is left out of the notes;
#: when the rule did not run (deselected, ignored) the warning stays a note.
WARNINGS_REPORTED_BY_RULES: tuple[tuple[str, str], ...] = (
    # reviewbot.parse.patch: an unindented diff in the commit message (C02) -> RB301
    ("RB301", "the commit message contains an unindented diff"),
)


def _notes_of(patch: Patch, findings: Sequence[Finding] = ()) -> tuple[str, ...]:
    """The parse warnings a person should see (format=flowed, bare CR, a diff in the commit message).

    A warning a rule turned into one of ``findings`` (see
    :data:`WARNINGS_REPORTED_BY_RULES`) is left out: the finding already
    reports that problem. ``Message.notes`` are left out too: they are about
    the archive copy (a missing Message-ID, which no ``git format-patch`` file
    has, an odd Date header).
    """
    reported = {f.rule_id for f in findings}
    covered = tuple(prefix for rule_id, prefix in WARNINGS_REPORTED_BY_RULES if rule_id in reported)
    return tuple(w for w in dict.fromkeys(patch.warnings) if not (covered and w.startswith(covered)))


_KIND_OF = operator.attrgetter("kind")


def _diff_lines(patch: Patch) -> int:
    """Lines of the patch's hunks as checkpatch.pl counts them: ``+``, ``-`` and context lines.

    The ``\\ No newline at end of file`` marker (C04) is not a line of the
    diff (no number on either side) and is not counted.
    """
    marker = LineKind.MARKER
    kind_of = _KIND_OF
    n = 0
    for fd in patch.files:
        for h in fd.hunks:
            lines = h.lines
            n += len(lines) - list(map(kind_of, lines)).count(marker)  # one pass in C per hunk
    return n


@dataclass
class _Parsed:
    item: InputMessage
    patch: Patch


def raw_subject(data: bytes) -> str | None:
    """The Subject header of raw mail bytes, unfolded (RFC 2047 words left encoded), or None.

    Cheap: looks only at the header block, without copying it, so a batch can
    pass over replies without decoding them.
    """
    crlf = data.find(b"\r\n", 0, 200) >= 0
    end = data.find(b"\r\n\r\n" if crlf else b"\n\n")
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


def _is_reply(item: InputMessage) -> bool:
    """True when the raw Subject says the message is a reply (``Re:``...), which is never a submission."""
    from reviewbot.parse.mail import decode_header_value
    from reviewbot.parse.subject import parse_subject

    if item.raw.kind != "rfc822":
        return False
    subject = raw_subject(item.raw.data)
    if subject is None:
        return False
    if "=?" in subject:
        subject = decode_header_value(subject)
    if ":" not in subject:
        return False  # every reply marker (Re:, Fwd:, AW:, SV:...) has a colon
    return parse_subject(subject).is_reply


def parse_inputs(
    items: Iterable[InputMessage],
) -> tuple[list[_Parsed], list[InputMessage], dict[str, int], list[ReviewbotError]]:
    """Parse messages into patches; returns (parsed, skipped non-patches, replies per input, problems).

    Replies (by their Subject) are skipped before decoding; other messages are
    kept when they carry a diff or are a cover letter (0/N).
    """
    from reviewbot.parse.mail import parse_message
    from reviewbot.parse.patch import parse_patch

    parsed: list[_Parsed] = []
    problems: list[ReviewbotError] = []
    skipped: list[InputMessage] = []
    replies: dict[str, int] = {}
    for item in items:
        if _is_reply(item):
            skipped.append(item)
            replies[item.input] = replies.get(item.input, 0) + 1
            continue
        try:
            message = parse_message(item.raw)
            patch = parse_patch(message)
        except ReviewbotError as exc:
            problems.append(exc)
            continue
        if item.raw.kind == "archive" and patch.subject.is_reply:
            # a saved archive page has no raw Subject to look at before parsing
            skipped.append(item)
            replies[item.input] = replies.get(item.input, 0) + 1
            continue
        if patch.has_diff or patch.subject.is_cover_letter:
            parsed.append(_Parsed(item, patch))
        else:
            skipped.append(item)
    return parsed, skipped, replies, problems


def _series_of(patches: Sequence[Patch]) -> dict[str, Series]:
    """Message-ID -> series, for all patches and cover letters of a run."""
    from reviewbot.parse.threads import assign_threads, group_series

    if not patches:
        return {}
    try:
        threads = assign_threads([p.message for p in patches])
        groups = group_series(patches, threads)
    except ReviewbotError as exc:  # grouping is a help, never a reason to fail the check
        log.info("could not group the patches into series: %s", exc)
        return {}
    out: dict[str, Series] = {}
    for series in groups:
        if series.cover is not None:
            out[series.cover.message_id] = series
        for p in series.patches:
            out[p.message_id] = series
    for merged in _unthreaded_series(patches):
        for p in (merged.cover, *merged.patches):
            if p is not None and (p.message_id not in out or out[p.message_id].cover is None):
                out[p.message_id] = merged
    return out


def _unthreaded_series(patches: Sequence[Patch]) -> list[Series]:
    """Series of ``git format-patch`` files written without ``--thread`` (no Message-ID links).

    Such files only say ``[PATCH vV n/N]`` and who wrote them, so the messages
    of one run with the same author, version and total are one series when
    exactly one cover letter (0/N) is among them and no index repeats.
    """
    by_key: dict[tuple[str, int, int], list[Patch]] = {}
    for p in patches:
        subj = p.subject
        if subj.total is None or subj.index is None or p.message.in_reply_to or p.message.references:
            continue
        author = p.message.from_addr.email.lower() if p.message.from_addr else ""
        by_key.setdefault((author, subj.version, subj.total), []).append(p)
    out: list[Series] = []
    for (_, version, total), members in by_key.items():
        covers = [p for p in members if p.subject.index == 0]
        indexes = [p.subject.index for p in members]
        if len(covers) != 1 or len(set(indexes)) != len(indexes):
            continue
        numbered = sorted((p for p in members if p.subject.index), key=lambda p: p.subject.index or 0)
        have = {p.subject.index for p in numbered}
        from reviewbot.parse.threads import missing_indexes

        missing = missing_indexes(have, total)
        out.append(Series(version=version, total=total, cover=covers[0], patches=tuple(numbered), missing=missing))
    return out


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
    # A run builds hundreds of thousands of small acyclic objects (diff lines) that
    # live until the report is printed: the cyclic collector would scan them again
    # and again for nothing (a third of a batch's time). Paused for the run only.
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        return _check_messages(
            items, rules, strict=strict, per_path_ignores=per_path_ignores, options=options, problems=problems
        )
    finally:
        if paused:
            gc.enable()


def _check_messages(
    items: Iterable[InputMessage],
    rules: Sequence["LoadedRule"],
    *,
    strict: bool,
    per_path_ignores: Mapping[str, Sequence[str]] | None,
    options: Mapping[str, Any] | None,
    problems: Sequence[ReviewbotError],
) -> CheckRun:
    from reviewbot.engine import check_patch
    from reviewbot.rule import RuleContext

    ignores = dict(per_path_ignores or {})
    items = list(items)
    seen_inputs = dict.fromkeys(item.input for item in items)
    parsed, skipped, replies, parse_problems = parse_inputs(items)
    series_by_id = _series_of([p.patch for p in parsed])
    base_ctx = RuleContext(strict=strict, options=dict(options or {}))
    results: list[CheckedPatch] = []
    for entry in parsed:
        patch = entry.patch
        if not patch.has_diff:
            continue  # a cover letter: evidence for its series, nothing to check on its own
        series = series_by_id.get(patch.message_id)
        ctx = base_ctx.with_(series=series, cover=series.cover if series else None) if series else base_ctx
        report = _drop_altered(check_patch(patch, rules, ctx))
        # the parser numbers lines from the message's first line (Message.body_start_line);
        # the input counts from its own first line
        verbatim = patch.message.body_start_line > 1
        subject_line = _header_line(entry.item.raw.data, b"subject:")
        report = _relocate(report, entry.item.offset, ignores, strict, verbatim, subject_line)
        notes = _notes_of(patch, report.findings)
        page = entry.item.raw.kind == "archive"
        if page:
            notes += page_notes(patch, entry.item.raw)
        if not verbatim and any(f.input_line is None for f in report.findings):
            notes += (
                (
                    "the input is a saved archive page, so findings give the line in the file, "
                    "not in the page"
                )
                if page
                else (
                    "the mail body is encoded (quoted-printable, base64, multipart or format=flowed), "
                    "so findings give the line in the file, not in the input"
                )
            ,)
        data = entry.item.raw.data
        results.append(
            CheckedPatch(
                input=entry.item.input,
                index=entry.item.index,
                report=report,
                offset=entry.item.offset,
                lines_checked=_diff_lines(patch),
                notes=notes,
                data=data,
            )
        )
    # An input that held mail but neither a patch nor a cover letter is not a patch: say so.
    # Replies are readable mail that is simply not a submission (a reviewer's quoted
    # or suggested diff, C09): a note, not an error. Anything else is an error.
    items_inputs = dict.fromkeys(entry.item.input for entry in parsed)
    messages_in = Counter(item.input for item in items)
    failed = {(p.subject or "") for p in parse_problems}
    extra: list[ReviewbotError] = []
    run_notes: list[str] = []
    explained = 0
    for name in seen_inputs:
        if name not in items_inputs and not any(s == name or s.startswith(name + ":") for s in failed):
            n_replies = replies.get(name, 0)
            if n_replies and n_replies == messages_in[name]:
                run_notes.append(reply_note(name, n_replies))
                explained += n_replies
            else:
                why = "no message with a diff"
                pages = [item.raw for item in items if item.input == name and item.raw.attachments]
                if pages:
                    why += (
                        f" (the saved page links {_attachment_list(pages[0].attachments)}, which cannot be "
                        "fetched from a saved page: check the attachment file itself)"
                    )
                extra.append(InputError(f"no patch found: {why}", subject=name))
    return CheckRun(
        patches=tuple(results),
        rules=tuple(rules),
        skipped=len(skipped),
        problems=(*problems, *parse_problems, *extra),
        strict=strict,
        replies=sum(replies.values()),
        notes=tuple(run_notes),
        explained=explained,
    )


def _altered_only(finding: Finding) -> bool:
    """True when every line a diff finding is about was changed by the archive's address obfuscation."""
    if finding.hunk is None or not finding.path:
        return False
    wanted = set(finding.lines or ((finding.line,) if finding.line is not None else ()))
    if not wanted:
        return False
    about = [dl for dl in finding.hunk.lines if dl.kind is not LineKind.REMOVED and dl.new_no in wanted]
    return bool(about) and all(dl.altered for dl in about)


def _drop_altered(report: CheckReport) -> CheckReport:
    """Leave out findings about archive-altered text only (``DiffLine.altered``: ``$@...p`` was ``$@.tmp``).

    Such text is not what the author wrote: a finding on it would ask to fix
    what the archive broke (C17).
    """
    if not any(_altered_only(f) for f in report.findings):
        return report
    return replace(report, findings=tuple(f for f in report.findings if not _altered_only(f)))


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
    obfuscated = altered or "@..." in message.body or any(
        a.partial for a in (message.from_addr, *message.to, *message.cc) if a is not None
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
    for name in inputs:
        try:
            got = read_input(name, stdin=stdin)
        except ReviewbotError as exc:
            problems.append(exc)
            continue
        items.extend(got)
    if git_range:
        try:
            items.extend(read_git_range(git_range, cwd))
        except ReviewbotError as exc:
            problems.append(exc)
    return check_messages(
        items,
        rules,
        strict=settings.strict,
        per_path_ignores=settings.per_path_ignores,
        problems=problems,
    )


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

