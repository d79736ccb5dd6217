"""Message -> Patch: split a mail the way ``git am`` does and read its diff.

Splitting follows git's ``mailinfo`` (builtin/mailinfo.c, ``patchbreak()``):
the commit message runs up to the ``---`` separator line, and a line starting
with ``diff -``, ``Index: `` or ``--- `` (followed by ``+++ ``) starts the
patch. Between the separator and the diff are the notes (changelog, diffstat).
The last paragraph of the commit message is the trailer block when it is
made of ``Key: value`` lines (``git interpret-trailers`` rules, simplified).

Two deliberate differences from ``git am``, both reported in
``Patch.warnings`` so that a rule can tell the author:

* an unindented diff inside the commit message (C02): ``git am`` would stop
  the commit message there and drop the rest (trailers included). We keep the
  whole commit message up to the real ``---`` separator, take the diff after
  it as the change, and warn (see :func:`find_embedded_diff`);
* a reply (``Re:``) carrying its own unquoted diff (C09) is parsed, the text
  before the diff kept apart as ``commit_message``, and it is flagged as a
  suggestion (:func:`is_submission` is False for it).

The diff itself goes through ``unidiff`` (structure, file headers, renames,
binary files, hunk headers and their line counts, in its fast metadata mode)
and the hunk bodies are checked by the same rules and kept as text in our
:class:`Hunk` type, whose :class:`DiffLine` s are read from that text when a
rule first reads them (rules never see unidiff). Lines are
split on "\\n" only, so a bare CR stays inside its line (C01); the
``\\ No newline at end of file`` marker is kept as a MARKER line without
numbers wherever it appears (C04).
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass
from itertools import islice
from typing import Literal

from reviewbot import lazyre
from reviewbot.errors import ParseError
from reviewbot.lazylog import get_logger
from reviewbot.models import ALTERED_MARK, DiffLine, FileDiff, Hunk, LineKind, Message, ParseWarning, Patch, Trailer

log = get_logger(__name__)  # loads logging only for a record kept (reviewbot.lazylog)

__all__ = [
    "parse_patch",
    "parse_diff",
    "find_embedded_diff",
    "EmbeddedDiff",
    "is_submission",
    "split_trailers",
    "KNOWN_TRAILERS",
    "REPLY_DIFF_WARNING",
    "WARN_ATTACHMENT",
    "WARN_BARE_CR",
    "WARN_EMBEDDED_DIFF",
    "WARN_FORMAT_FLOWED",
    "WARN_MALFORMED_DIFF",
    "WARN_REPLY_DIFF",
    "WARN_UNFLOWED",
]

# Codes of the parse warnings (ParseWarning.code); a rule claims the ones it reports itself (RuleMeta.claims).
WARN_ATTACHMENT = "attachment"  # the diff was read from a text attachment
WARN_MALFORMED_DIFF = "malformed-diff"  # a non-submission's broken diff, skipped
WARN_BARE_CR = "bare-cr"  # a diff line holds a bare carriage return (C01)
WARN_EMBEDDED_DIFF = "embedded-diff"  # an unindented diff in the commit message (C02): git am cuts there
WARN_REPLY_DIFF = "reply-diff"  # a reply carrying its own diff (C09)
WARN_FORMAT_FLOWED = "format-flowed"  # sent with format=flowed
WARN_UNFLOWED = "unflowed"  # the diff parsed only after undoing format=flowed

#: Trailer keys the kernel documents (submitting-patches.rst) plus common ones.
KNOWN_TRAILERS = frozenset(
    k.lower()
    for k in (
        "Signed-off-by",
        "Reviewed-by",
        "Acked-by",
        "Tested-by",
        "Reported-by",
        "Suggested-by",
        "Co-developed-by",
        "Fixes",
        "Link",
        "Closes",
        "Cc",
        "Reported-and-tested-by",
        "Requested-by",
        "Debugged-by",
        "Originally-by",
        "Based-on-patch-by",
        "Bug",
        "Change-Id",
        "Message-ID",
        "Nacked-by",
        "Helped-by",
        "Investigated-by",
        "Analyzed-by",
    )
)

REPLY_DIFF_WARNING = "a reply carrying its own diff: a suggested change in a thread, not a new patch submission"

_TRAILER = lazyre.compile(r"([A-Za-z0-9][A-Za-z0-9-]{0,63}):[ \t]*(\S.*)?")
_STAT_LINE = lazyre.compile(r" \S.* \| +(?:\d+|Bin\b)")
_STAT_SUMMARY = lazyre.compile(r" \d+ files? changed")
_INBODY_HEADER = lazyre.compile(r"(From|Subject|Date)[ \t]*:", re.IGNORECASE)
# ">From <sha> Mon Sep 17 00:00:00 2001": a format-patch separator pasted into the body
_FORMAT_PATCH_SEP = lazyre.compile(r">From [0-9a-f]{40} Mon Sep 17 00:00:00 2001$")


@dataclass(frozen=True)
class EmbeddedDiff:
    """An unindented diff inside a commit message (C02).

    ``commit_line`` is the 0-based line of the commit message where it starts,
    ``input_line`` the 1-based input line, ``text`` that line, ``dropped``
    the commit-message text ``git am`` would lose from there on.
    """

    commit_line: int
    input_line: int
    text: str
    dropped: str


def parse_patch(message: Message) -> Patch:
    """Split ``message`` into commit message, trailers, notes, diffstat and diff.

    A message without a diff (cover letter, plain reply) gives a Patch with
    ``files == ()``; when the body has no diff, a text attachment holding one
    is used instead. Raises :class:`ParseError` naming the Message-ID (and
    the input line) when a patch submission (``[PATCH]``/``[RFC]``/counter,
    not a reply) has a malformed diff (hunk shorter or longer than its header
    says, hunk without file header); in other messages (replies quoting and
    hand-editing diffs, bot reports) such a diff is skipped with a warning.
    """
    warnings: list[ParseWarning] = []
    text = message.body
    first_line = message.body_start_line
    lines = _split_lines(text)
    diff_starts = _diff_starts_in(text, lines)
    if not diff_starts and message.attachments:
        for att in message.attachments:
            if not att.text:
                continue
            att_lines = _split_lines(att.text)
            att_starts = _diff_starts(att_lines)
            if att_starts:
                att_lines, skipped = _drop_mail_headers(att_lines)
                if skipped:
                    att_starts = [i - skipped for i in att_starts]
                body_text = "\n".join(lines).strip()
                if "".join(att_lines[: att_starts[0]]).strip() or not body_text:
                    lines = att_lines
                else:  # a bare diff attached: the mail body is the commit message
                    lines = lines + ["---"] + att_lines
                    att_starts = [i + len(lines) - len(att_lines) for i in att_starts]
                diff_starts = att_starts
                first_line = 1
                text = att.text
                warnings.append(
                    ParseWarning(f"the patch was taken from the attachment {att.filename!r}", WARN_ATTACHMENT)
                )
                break
    # in-body From:/Subject:/Date: lines (git send-email for another author, B4 Relay),
    # read as git mailinfo reads them: they name the author and the title
    inbody, top = (
        ({}, 0) if message.bare_diff else read_inbody_headers(lines, diff_starts[0] if diff_starts else len(lines))
    )
    if inbody:
        message = _with_inbody(message, inbody)

    last_start = diff_starts[-1] if diff_starts else -1
    sep = -1
    if message.bare_diff:  # `git diff`/`git show` output (C18): no commit message to split off
        last_start = top = 0
    for i in range(top, last_start if last_start >= 0 else len(lines)):
        line = lines[i]
        if line.startswith("---") and line[3:].strip() == "":
            sep = i
            break
    embedded_at = None
    if sep >= 0 and diff_starts:
        before = [d for d in diff_starts if d < sep]
        if before:
            embedded_at = before[0]
        diff_at = next(d for d in diff_starts if d > sep)
        commit_lines = lines[top:sep]
        notes_lines = lines[sep + 1 : diff_at]
    elif diff_starts:
        diff_at = diff_starts[0]
        commit_lines = lines[top:diff_at]
        notes_lines = []
    else:
        diff_at = -1
        if sep >= 0:
            commit_lines = lines[top:sep]
            notes_lines = _strip_signature(lines[sep + 1 :])
        else:
            commit_lines = _strip_signature(lines[top:])
            notes_lines = []

    if message.bare_diff:
        commit_lines, notes_lines = [], []
    commit_start = first_line + top
    while commit_lines and commit_lines[-1].strip() == "":
        commit_lines.pop()
    commit_message = "\n".join(commit_lines)
    trailers = split_trailers(commit_lines, commit_start)
    notes = "\n".join(notes_lines).strip("\n")
    diffstat = _diffstat(notes_lines)

    files: tuple[FileDiff, ...] = ()
    strict_diff = False
    if diff_at >= 0:
        lines = _git_names_prefixed(lines, diff_starts)
        subject = message.message_id or message.source
        try:
            # a submission is read as git apply reads it; but the archive, and a MIME boundary (whose
            # line end eats the part's last empty line), can drop empty context lines at the very end
            verbatim = message.bare_diff or message.body_start_line > 1
            strict = (message.subject.is_patch or message.bare_diff) and not message.obfuscated and verbatim
            strict_diff = strict
            files = parse_diff(
                lines, diff_at, first_line, subject=subject, obfuscated=message.obfuscated, restore_tail=not strict
            )
        except ParseError as exc:
            retry = None if message.flowed else _retry_unflowed(message)
            if retry is not None:
                return retry
            if message.subject.is_patch or message.bare_diff:
                raise
            # a reply's hand-edited or half-quoted diff, a bot report: keep the text, skip the diff
            log.debug("ignoring malformed diff in non-patch message: %s", exc)
            warnings.append(
                ParseWarning(f"malformed diff ignored (not a patch submission): {exc}", WARN_MALFORMED_DIFF)
            )
    if files and strict_diff and not any(f.hunks for f in files) and not _git_diff_in(lines, diff_at):
        # "--- a/x" / "+++ b/x" and no hunk at all (an "@@@ ..." line is no hunk header): git apply finds
        # "No valid patches in input"; never "0 lines checked, ready for submission"
        raise ParseError(
            f"malformed diff in {files[0].path}: a file header without any hunk (no '@@ -N,M +N,M @@' line)",
            subject=message.message_id or message.source,
            line=files[0].header_input_line or first_line + diff_at,
        )
    if files and "\r" in text:
        warnings.extend(_bare_cr_notes(files))
    if embedded_at is not None:
        emb = EmbeddedDiff(
            commit_line=embedded_at - top,
            input_line=first_line + embedded_at,
            text=lines[embedded_at],
            dropped="\n".join(lines[embedded_at:sep]).strip("\n"),
        )
        warnings.append(ParseWarning(_embedded_warning(emb), WARN_EMBEDDED_DIFF))
    if files and message.subject.is_reply:
        warnings.append(ParseWarning(REPLY_DIFF_WARNING, WARN_REPLY_DIFF))
    if message.flowed and files:
        warnings.append(
            ParseWarning(
                "patch sent with format=flowed: trailing whitespace may have been lost and long "
                "lines re-joined; send patches with git send-email",
                WARN_FORMAT_FLOWED,
            )
        )
    return Patch(
        message=message,
        commit_message=commit_message,
        trailers=trailers,
        notes=notes,
        diffstat=diffstat,
        files=files,
        commit_start_line=commit_start,
        warnings=tuple(warnings),
    )


UNFLOWED_WARNING = (
    "the diff only parses after undoing format=flowed (long lines were soft-wrapped, the "
    "archive shows the mail as sent); trailing whitespace may have been lost and input line "
    "numbers count the re-joined lines; send patches with git send-email"
)


def read_inbody_headers(lines: list[str], stop: int | None = None) -> tuple[dict[str, str], int]:
    """The in-body header block at the top of a body, as ``git mailinfo`` reads it.

    Returns ({"from"|"subject"|"date": value}, index of the first commit-message
    line). The rules are git's (mailinfo.c, ``handle_commit_msg`` and
    ``check_inbody_header``): empty lines before the block are skipped; a
    ``From:``, ``Subject:`` or ``Date:`` line (any case, each taken once)
    starts a header, lines starting with a space or TAB continue it (C24); a
    ``>From <sha> Mon Sep 17 ...`` separator line is skipped; a line
    ``[PATCH] title`` is a Subject; the first empty line after a header ends
    the block; any other line ends it too and is the first line of the commit
    message. ``stop`` (the first diff line) bounds the search.
    """
    n = len(lines) if stop is None else min(stop, len(lines))
    found: dict[str, str] = {}
    current: str | None = None
    i = 0
    while i < n:
        line = lines[i]
        if line == "" or line == "\r":
            i += 1
            if current is not None or found:
                break  # the empty line after the block ends it
            continue
        if current is not None and line[:1] in (" ", "\t"):
            found[current] += "\n" + line
            i += 1
            continue
        current = None
        if line.startswith(">From ") and _FORMAT_PATCH_SEP.match(line.rstrip()):
            i += 1
            continue
        if line.startswith("[PATCH]") and line[7:8].isspace() and "subject" not in found:
            found["subject"] = line
            current = "subject"
            i += 1
            continue
        m = _INBODY_HEADER.match(line)
        if m is not None and m.group(1).lower() not in found:
            current = m.group(1).lower()
            found[current] = line[m.end() :].strip()
            i += 1
            continue
        break
    return found, i


def _with_inbody(message: Message, inbody: dict[str, str]) -> Message:
    """``message`` with the author, title and date its in-body headers give (C19, C20, C24)."""
    from dataclasses import replace

    from reviewbot.parse.mail import decode_header_value, parse_date, sender_addresses
    from reviewbot.parse.subject import parse_subject

    changes: dict = {}
    if "from" in inbody:
        addrs = sender_addresses(inbody["from"])
        if addrs and "@" in addrs[0].email:
            changes["from_addr"] = addrs[0]
        else:  # git mailinfo: no author at all, and git am refuses the patch
            changes["from_addr"] = None
            changes["notes"] = message.notes + (
                f"the in-body From: {' '.join(inbody['from'].split())[:60]!r} has no e-mail address, so the "
                "patch has no author (git am refuses it)",
            )
    if "subject" in inbody:
        title = decode_header_value(inbody["subject"])
        if title:
            changes["subject"] = parse_subject(title)
    if "date" in inbody:
        raw = decode_header_value(inbody["date"])
        date = parse_date(raw)
        if date is not None:
            changes["date"] = date
            changes["date_raw"] = raw
    return replace(message, **changes) if changes else message


def _retry_unflowed(message: Message) -> Patch | None:
    """A diff broken by soft-wrapping (format=flowed not undone, e.g. archive pages):
    parse again with RFC 3676 undone (DelSp=no, then yes); None if that fails too."""
    body = message.body
    if " \n" not in body:
        return None
    from dataclasses import replace

    from reviewbot.parse.mail import unflow

    for delsp in (False, True):
        candidate = replace(message, body=unflow(body, delsp=delsp), flowed=True)
        try:
            patch = parse_patch(candidate)
        except ParseError:
            continue
        if not patch.files:
            continue
        warnings = tuple(w for w in patch.warnings if w.code != WARN_FORMAT_FLOWED)
        warnings += (ParseWarning(UNFLOWED_WARNING, WARN_UNFLOWED),)
        return replace(patch, message=message, warnings=warnings)
    return None


def _bare_cr_notes(files: tuple[FileDiff, ...], limit: int = 3) -> list[ParseWarning]:
    """Informational notes for diff lines holding a bare carriage return (C01), kept in the line."""
    notes = []
    for f in files:
        for h in f.hunks:
            for line in h.lines:
                if "\r" in line.text and line.kind is not LineKind.MARKER:
                    where = f"new line {line.new_no}" if line.new_no is not None else f"old line {line.old_no}"
                    notes.append(
                        ParseWarning(
                            f"{f.path}: {where} (input line {line.input_line}) contains a bare carriage "
                            "return (^M); it is kept as part of that line",
                            WARN_BARE_CR,
                        )
                    )
                    if len(notes) >= limit:
                        return notes
    return notes


def is_submission(patch: Patch) -> bool:
    """True when ``patch`` is a new submission to review, not a reply in a thread.

    A reply (``Re:``/``Fwd:``) is never a submission even with its own diff
    (C09: a reviewer's suggestion); a message without a subject prefix counts
    when it carries a diff and replies to nothing.
    """
    subj = patch.message.subject
    if subj.is_reply:
        return False
    if subj.is_patch:
        return True
    return patch.has_diff and patch.message.in_reply_to is None and not patch.message.references


def find_embedded_diff(patch: Patch) -> EmbeddedDiff | None:
    """Where the commit message holds a line ``git am`` would take as the start of the diff.

    Returns None when there is none. ``input_line`` counts like
    ``Patch.commit_start_line``.
    """
    lines = patch.commit_message.split("\n")
    starts = _diff_starts(lines)
    if not starts:
        return None
    i = starts[0]
    return EmbeddedDiff(
        commit_line=i,
        input_line=patch.commit_start_line + i,
        text=lines[i],
        dropped="\n".join(lines[i:]).strip("\n"),
    )


def _embedded_warning(emb: EmbeddedDiff) -> str:
    return (
        f"the commit message contains an unindented diff starting at line {emb.input_line} "
        f"({emb.text!r}); git am takes that line as the start of the patch and drops the rest of "
        "the commit message, trailers included; indent the example or describe it in words"
    )


# ------------------------------------------------------------------ pieces


def _split_lines(text: str) -> list[str]:
    """Split on "\\n" only (a bare CR stays inside its line); no empty last element."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _diff_starts(lines: list[str]) -> list[int]:
    """Indexes of lines that start a diff by git mailinfo's rule (``--- x`` needs ``+++ ``)."""
    out = []
    n = len(lines)
    for i, line in enumerate(lines):
        c = line[:1]
        if c == "d":
            if line.startswith("diff -"):
                out.append(i)
        elif c == "I":
            if line.startswith("Index: "):
                out.append(i)
        elif c == "-":
            if line.startswith("--- ") and i + 1 < n and lines[i + 1].startswith("+++ "):
                if not (out and out[-1] >= i - 3 and lines[out[-1]].startswith(("diff -", "Index: "))):
                    out.append(i)
    return out


def _diff_starts_in(text: str, lines: list[str]) -> list[int]:
    """:func:`_diff_starts` of ``lines`` (``_split_lines(text)``), looking only at the lines
    that begin with ``diff -``, ``Index: `` or ``--- `` (found with ``str.find``)."""
    found: list[int] = []
    for prefix in ("diff -", "Index: ", "--- "):
        if text.startswith(prefix):
            found.append(0)
        needle = "\n" + prefix
        at = text.find(needle)
        while at >= 0:
            found.append(at + 1)
            at = text.find(needle, at + 1)
    if not found:
        return []
    found.sort()
    out: list[int] = []
    n = len(lines)
    pos = 0
    index = 0
    for start in found:
        index += text.count("\n", pos, start)
        pos = start
        i = index
        if i >= n:
            break
        line = lines[i]
        if line.startswith("--- "):
            if i + 1 < n and lines[i + 1].startswith("+++ "):
                if not (out and out[-1] >= i - 3 and lines[out[-1]].startswith(("diff -", "Index: "))):
                    out.append(i)
        else:  # "diff -" or "Index: "
            out.append(i)
    return out


def _git_diff_in(lines: list[str], start: int) -> bool:
    """True when the diff from ``lines[start]`` on has a ``diff --git`` line (git's extended headers
    make a file diff without hunks valid: a new empty file, a mode change, a pure rename)."""
    return any(line.startswith("diff --git ") for line in islice(lines, start, None))


def _git_names_prefixed(lines: list[str], diff_starts: list[int]) -> list[str]:
    """``diff --git a/X b/X`` followed by ``--- X``/``+++ X`` (no a/ b/, C31; git's own t4100 has
    such patches): git apply takes the name from the ``diff --git`` line, so the two lines are
    read as ``--- a/X``/``+++ b/X``. Returns ``lines`` itself when nothing needs it (the usual case)."""
    out = lines
    for d in diff_starts:
        line = lines[d]
        if not line.startswith("diff --git a/"):
            continue
        rest = line[len("diff --git a/") :]
        half = (len(rest) - 3) // 2
        if half <= 0 or rest[half : half + 3] != " b/" or rest[:half] != rest[half + 3 :]:
            continue
        name = rest[:half]
        for i in range(d + 1, min(d + 8, len(lines))):
            cur = lines[i]
            if cur.startswith("@@") or cur.startswith("diff "):
                break
            mark = cur[:4]
            if (mark == "--- " or mark == "+++ ") and cur[4:].split("\t", 1)[0] == name:
                if out is lines:
                    out = list(lines)
                out[i] = mark + ("a/" if mark == "--- " else "b/") + cur[4:]
    return out


def _drop_mail_headers(lines: list[str]) -> tuple[list[str], int]:
    """A format-patch file in an attachment: drop its ``From `` line and headers."""
    if not lines or not (lines[0].startswith("From ") or re.match(r"[A-Za-z-]+:", lines[0])):
        return lines, 0
    for i, line in enumerate(lines):
        if line.strip() == "":
            return lines[i + 1 :], i + 1
        if not (line.startswith(("From ", " ", "\t")) or re.match(r"[A-Za-z0-9-]+:", line)):
            return lines, 0
    return lines, 0


def _strip_signature(lines: list[str]) -> list[str]:
    """Drop a trailing ``-- `` signature block (up to 10 lines) from text without a diff."""
    for i in range(len(lines) - 1, max(-1, len(lines) - 12), -1):
        if lines[i] == "-- ":
            return lines[:i]
    return lines


def _diffstat(notes_lines: list[str]) -> str:
    first = last = -1
    for i, line in enumerate(notes_lines):
        if _STAT_LINE.match(line):
            if first < 0:
                first = i
            last = i
        elif first >= 0 and _STAT_SUMMARY.match(line):
            last = i
            break
    if first < 0:
        return ""
    return "\n".join(notes_lines[first : last + 1])


def split_trailers(commit_lines: list[str], start_line: int = 1) -> tuple[Trailer, ...]:
    """Trailers of the last paragraph of a commit message (``Key: value`` lines).

    The paragraph counts as a trailer block when every line is a trailer, a
    continuation (leading whitespace) or a ``[ note ]``/``(cherry picked``
    line, or when it has a known kernel trailer and at least a quarter of its
    lines are trailers (git's rule). ``start_line`` is the input line of
    ``commit_lines[0]``.
    """
    end = len(commit_lines)
    while end > 0 and commit_lines[end - 1].strip() == "":
        end -= 1
    begin = end
    while begin > 0 and commit_lines[begin - 1].strip() != "":
        begin -= 1
    if begin >= end:
        return ()
    found: list[list] = []
    known = False
    other = 0
    for i in range(begin, end):
        line = commit_lines[i]
        if line[:1] in (" ", "\t") and found:
            found[-1][1] += " " + line.strip()
            continue
        m = _TRAILER.fullmatch(line.rstrip())
        if m is not None and m.group(2) is not None and " " not in m.group(1):
            found.append([m.group(1), m.group(2).strip(), start_line + i])
            if m.group(1).lower() in KNOWN_TRAILERS:
                known = True
            continue
        if line.startswith("[") or line.startswith("(cherry picked"):
            continue
        other += 1
    if not found:
        return ()
    if other and not (known and len(found) * 3 >= other):  # >= 25% trailers
        return ()
    return tuple(Trailer(key=k, value=v, input_line=n) for k, v, n in found)


# ------------------------------------------------------------------ the diff


class _Feed:
    """Iterator over diff lines for unidiff that remembers where it is."""

    __slots__ = ("lines", "pos", "end")

    def __init__(self, lines: list[str], start: int) -> None:
        self.lines = lines
        self.pos = start - 1
        self.end = len(lines)

    def __iter__(self) -> "_Feed":
        return self

    def __next__(self) -> str:
        self.pos += 1
        if self.pos >= self.end:
            raise StopIteration
        return self.lines[self.pos] + "\n"


def _parse_diff_fast(
    lines: list[str], start: int, first_line: int, obfuscated: bool, PatchSet
) -> tuple[FileDiff, ...] | None:
    """``parse_diff`` for a well-formed diff, with unidiff reading a condensed copy; None to fall back.

    Hunk bodies are checked here by unidiff's own metadata rules (the first
    character gives the kind; the body ends when both sides have their
    lengths; any other character, or a body too long or too short, and this
    returns None). unidiff then reads the file structure (``diff --git``,
    modes, ``---``/``+++``, binary files, text between files, markers) from
    the diff with each checked hunk cut down to one line of the same kind
    (header ``@@ -S,1 +T,1 @@``, ``,0`` kept where a side is empty, so added
    and deleted files are told apart as before), instead of walking every
    hunk line again. Hunks that follow each other directly (nothing between
    one's body and the next header) are one condensed hunk ``@@ -1,1 +1,1 @@``:
    unidiff sees the same file with the same lines around it, and such a
    file is neither added nor deleted by its hunks, as before. Hunk headers are read with unidiff's regex,
    their numbers as unidiff's ``Hunk`` reads them (a length left out is 1). Anything unusual (a hunk with both sides empty, unidiff
    rejecting the condensed diff) returns None, and the caller parses the
    full text as before, so results and errors are the same either way.
    """
    from unidiff.constants import RE_HUNK_HEADER

    feed: list[str] = []
    where: list[int] = []  # feed line -> index in ``lines``
    found: list[tuple[str, int, int, int, int, str, _HunkText]] = []  # (header line, its numbers, where its body is)
    stands_for: list[int] = []  # condensed hunk -> how many hunks of ``found`` it stands for
    body_end = -1  # index after the last hunk's body
    n = len(lines)
    i = start
    try:
        while i < n:
            line = lines[i]
            m = RE_HUNK_HEADER.match(line) if line[:2] == "@@" else None
            if m is None:
                if line[:4] == "@@ -":  # git apply: "corrupt patch"; unidiff would skip it silently (C26)
                    raise _BadHunkHeader(i)
                if found and line.startswith(_NO_NEWLINE):  # a marker up to the next hunk header: the last hunk's
                    found[-1][6].markers += (i + first_line,)
                feed.append(line + "\n")
                where.append(i)
                i += 1
                continue
            # the numbers as unidiff's Hunk reads them (a length left out is 1)
            old_start, old_len, new_start, new_len, section = m.groups()
            old_start, new_start = int(old_start), int(new_start)
            old_len = 1 if old_len is None else int(old_len)
            new_len = 1 if new_len is None else int(new_len)
            if old_len <= 0 and new_len <= 0:
                return None
            read = _scan_hunk_body(lines, i, old_len, new_len)
            if read is None:
                return None
            found.append((line, old_start, old_len, new_start, new_len, section, read))
            if i == body_end:  # right after the hunk before: one condensed hunk for both
                feed[-2:] = ["@@ -1,1 +1,1 @@\n", " \n"]
                stands_for[-1] += 1
                i = body_end = read.end
                continue
            feed.append(f"@@ -{old_start},{1 if old_len > 0 else 0} +{new_start},{1 if new_len > 0 else 0} @@\n")
            feed.append(" \n" if old_len > 0 and new_len > 0 else ("-\n" if old_len > 0 else "+\n"))
            where.append(i)
            where.append(i + 1)
            stands_for.append(1)
            i = body_end = read.end
        patchset = PatchSet(iter(feed), metadata_only=True)
    except _BadHunkHeader:
        raise
    except Exception:
        return None
    out = []
    k = 0  # the next condensed hunk
    j = 0  # the next hunk of ``found``
    for pf in patchset:
        hunks = []
        for _ in pf:
            if k >= len(stands_for):
                return None
            for header, old_start, old_len, new_start, new_len, section, text in found[j : j + stands_for[k]]:
                hunks.append(
                    _hunk(header, old_start, old_len, new_start, new_len, section, lines, text, first_line, obfuscated)
                )
            j += stands_for[k]
            k += 1
        no = getattr(pf, "diff_line_no", None)
        base = first_line + where[no - 1] - no if no else first_line + start - 1
        out.append(_file_diff(pf, tuple(hunks), base))
    if k != len(stands_for):
        return None
    return tuple(out)


def _parse_diff_slow(lines: list[str], start: int, first_line: int, subject: str | None, pad: bool = False):
    """unidiff over ``lines[start:]`` through :class:`_Feed`: (PatchSet, lines possibly padded).

    The archive and some mailers drop empty lines at the very end of a message;
    with ``pad`` (archive text, a reply's quoted diff), when the last hunk
    misses only its trailing empty context lines, they are put back. A patch
    submission is read as ``git apply`` reads it: no line is invented, a hunk
    cut off at the end is an error. Raises :class:`ParseError` naming
    ``subject``, the file and the input line where unidiff gave up.
    """
    from unidiff import PatchSet

    feed = _Feed(lines, start)
    try:
        try:
            patchset = PatchSet(feed, metadata_only=True)
        except Exception as exc:
            if not pad or "shorter than expected" not in str(exc) or feed.pos < len(lines):
                raise
            for extra in (1, 2, 3):
                padded = lines + [""] * extra
                try:
                    patchset = PatchSet(_Feed(padded, start), metadata_only=True)
                    lines = padded
                    break
                except Exception:
                    continue
            else:
                raise
    except Exception as exc:  # UnidiffParseError, and anything a hostile hunk header provokes
        pos = min(max(feed.pos, start), len(lines) - 1) if lines else 0
        bad = lines[pos] if lines else ""
        what = str(exc).strip()[:200]
        header = bad == "-- " or bad.startswith(("diff --git ", "@@ ", "--- a/"))
        if "shorter than expected" in what and feed.pos >= len(lines):
            what += ": the diff is cut off at the end of the input"
        elif "longer than expected" in what and header:
            what += ": its @@ header counts more lines than the hunk holds, so the hunk ran into the line below"
        elif what.startswith("Hunk diff line expected"):  # unidiff repeats the line, which is quoted below
            signature = pos > 0 and lines[pos - 1] == "-- "  # "-- " was read as a removed line: the mail's end
            what = "a hunk line starts with neither ' ', '+' nor '-'" + (
                ": the hunk holds fewer lines than its @@ header counts (lines lost, or the header miscounts)"
                + (", so it ran into the signature ('-- ')" if signature else "")
                if header or signature
                else ""
            )
        at = pos - 1 if header and bad != "-- " and pos > start else pos  # the hunk that ended early, not the next
        raise ParseError(
            f"malformed diff{_in_file(lines, start, at)}: {what} (line {bad[:120]!r})",
            subject=subject,
            line=first_line + pos,
        ) from exc
    return patchset, lines


def parse_diff(
    lines: list[str],
    start: int = 0,
    first_line: int = 1,
    *,
    subject: str | None = None,
    obfuscated: bool = False,
    restore_tail: bool | None = None,
) -> tuple[FileDiff, ...]:
    """Parse ``lines[start:]`` (split on "\\n", without line ends) as a unified diff.

    ``first_line`` is the input line number of ``lines[0]``; every
    :class:`DiffLine` gets ``input_line`` from it. ``restore_tail`` (default:
    ``obfuscated``) puts back empty context lines missing at the very end.
    With ``obfuscated`` (text
    from the archive) lines containing ``@...`` are marked ``altered``.
    Raises :class:`ParseError` naming ``subject`` and the input line where
    unidiff gave up.
    """
    from unidiff import PatchSet  # imported here: only messages with a diff pay for it

    pad = obfuscated if restore_tail is None else restore_tail
    return _parse_diff(lines, start, first_line, subject, obfuscated, PatchSet, pad)


class _BadHunkHeader(Exception):
    def __init__(self, index: int) -> None:
        super().__init__(index)
        self.index = index


def _in_file(lines: list[str], start: int, pos: int) -> str:
    """`` in foo.c`` for the file whose diff holds ``lines[pos]`` (its last header line before it), or ""."""
    for i in range(min(pos, len(lines) - 1), start - 1, -1):
        line = lines[i]
        if line.startswith("+++ ") or line.startswith("diff --git "):
            name = line[4:] if line[0] == "+" else line.rsplit(" ", 1)[-1]
            path = _strip_prefix(name.split("\t", 1)[0])
            if path:
                return f" in {path}"
    return ""


_BINARY_MARK = "GIT binary patch"
_BINARY_BLOCK = lazyre.compile(r"(?:literal|delta) \d+\Z")


def _check_binary_patches(lines: list[str], start: int, first_line: int, subject: str | None) -> None:
    """Read each ``GIT binary patch`` as git apply does: a ``literal N``/``delta N`` line, data lines
    (a length letter and base85 groups of five: 6, 11, ... characters), then an empty line; a
    second (reverse) block is optional. A block cut off at the end of the input or a data line of
    the wrong length is "corrupt binary patch" to git apply: a ParseError naming the line."""
    if _BINARY_MARK not in lines:
        return
    n = len(lines)
    for at in range(start, n):
        if lines[at] != _BINARY_MARK:
            continue
        i = at + 1
        for block in range(2):
            if i >= n or not _BINARY_BLOCK.match(lines[i]):
                if block == 0:
                    bad = lines[i] if i < n else ""
                    raise ParseError(
                        f"malformed diff{_in_file(lines, start, at)}: binary patch without a literal or delta "
                        f"block (line {bad[:120]!r})",
                        subject=subject,
                        line=first_line + min(i, n - 1),
                    )
                break
            i += 1
            while i < n and lines[i] != "":
                if len(lines[i]) < 6 or (len(lines[i]) - 1) % 5:
                    raise ParseError(
                        f"malformed diff{_in_file(lines, start, at)}: corrupt binary patch data "
                        f"(line {lines[i][:120]!r})",
                        subject=subject,
                        line=first_line + i,
                    )
                i += 1
            if i >= n:
                raise ParseError(
                    f"malformed diff{_in_file(lines, start, at)}: binary patch cut off at the end of the input "
                    "(no empty line after its data)",
                    subject=subject,
                    line=first_line + n - 1,
                )
            i += 1  # the empty line that ends the block


def _parse_diff(
    lines: list[str], start: int, first_line: int, subject: str | None, obfuscated: bool, PatchSet, pad: bool = False
):
    if not pad:  # archive text may have lost the empty lines at its end: nothing to say about them there
        _check_binary_patches(lines, start, first_line, subject)
    try:
        fast = _parse_diff_fast(lines, start, first_line, obfuscated, PatchSet)
    except _BadHunkHeader as exc:
        bad = lines[exc.index]
        raise ParseError(
            f"malformed diff{_in_file(lines, start, exc.index)}: not a valid hunk header: {bad[:120]!r}",
            subject=subject,
            line=first_line + exc.index,
        ) from None
    if fast is not None:
        return fast
    try:  # unidiff over the whole text (the fast path gave up: an error, or a rare shape)
        patchset = PatchSet((line + "\n" for line in islice(lines, start, None)), metadata_only=True)
    except Exception:
        # again with the position-keeping feed, to repair or to report where it failed
        patchset, lines = _parse_diff_slow(lines, start, first_line, subject, pad)

    # unidiff checked the structure and read files and hunk headers (metadata_only
    # mode, 2-6 times faster); the hunk bodies are checked here in one pass, with the
    # same line rules (see _scan_hunk_body), and kept as text in our Hunks
    from unidiff.constants import RE_HUNK_HEADER

    offset = first_line  # input line of lines[i] is i + first_line
    cursor = start
    out = []
    n = len(lines)
    for pf in patchset:
        hunks = []
        for h in pf:
            while cursor < n and not (lines[cursor][:2] == "@@" and RE_HUNK_HEADER.match(lines[cursor])):
                cursor += 1
            if cursor >= n:  # cannot happen after unidiff accepted the diff
                raise ParseError("hunk header not found again", subject=subject, line=first_line + start)
            read = _scan_hunk_body(lines, cursor, h.source_length, h.target_length)
            if read is None:  # cannot happen either: unidiff checked the body by the same rules
                raise ParseError("hunk body does not match its header", subject=subject, line=first_line + cursor)
            read.markers = tuple(_markers_after(lines, read.end, offset, RE_HUNK_HEADER))
            numbers = (h.source_start, h.source_length, h.target_start, h.target_length, h.section_header or "")
            hunks.append(_hunk(lines[cursor], *numbers, lines, read, offset, obfuscated))
            cursor = read.end
        out.append(_file_diff(pf, tuple(hunks), first_line + start - 1))  # unidiff counts feed lines from 1
    return tuple(out)


_NO_NEWLINE = "\\ No newline at end of file"
_MARKER_TEXT = _NO_NEWLINE[1:]

# A DiffLine is built here with ``tuple.__new__(DiffLine, (kind, text, old_no, new_no, input_line, altered))``:
# the same object ``DiffLine(...)`` gives (fields in DiffLine's order), without the Python-level ``__new__``
# NamedTuple puts in front of it; the reader builds one per diff line (a third of the cost of each).
_new_line = tuple.__new__


def _markers_after(lines: list[str], at: int, offset: int, hunk_header: re.Pattern) -> list[int]:
    """The input lines of the ``\\ No newline`` markers from ``lines[at]`` up to the next hunk header:
    they belong to the hunk before (unidiff attaches them so)."""
    found = []
    for j in range(at, len(lines)):
        line = lines[j]
        if line[:2] == "@@" and hunk_header.match(line):
            break
        if line.startswith(_NO_NEWLINE):
            found.append(j + offset)
    return found


class _HunkText:
    """A hunk's body as the scan found it (:func:`_scan_hunk_body`): ``lines[start:end]``, ``added`` of
    them added, ``blank`` when one of them is an empty context line (empty, or starting with a CR), and
    the input lines of the ``\\ No newline`` markers after it (``markers``, the caller adds them)."""

    __slots__ = ("start", "end", "added", "blank", "markers")

    def __init__(self, start: int, end: int, added: int, blank: bool) -> None:
        self.start = start
        self.end = end
        self.added = added
        self.blank = blank
        self.markers: tuple[int, ...] = ()


def _hunk(
    header: str,
    old_start: int,
    old_len: int,
    new_start: int,
    new_len: int,
    section: str,
    lines: list[str],
    text: _HunkText,
    offset: int,
    obfuscated: bool,
) -> Hunk:
    """Our Hunk from its header line, the numbers unidiff reads in that header and its body's text.

    The body is kept as the diff shows each line (``DiffLine.raw``: an empty context line whose space
    the mailer ate gets it back, markers after the body are the plain marker); its DiffLines are read
    from it by :func:`_diff_lines` when a rule first reads ``Hunk.lines``.
    """
    raw = lines[text.start : text.end]
    if text.blank:
        raw = [line if line[:1] not in ("", "\r") else " " + line for line in raw]
    if text.markers:
        raw += [_NO_NEWLINE] * len(text.markers)
    body = tuple(raw)
    return Hunk.from_text(
        header,
        old_start,
        old_len,
        new_start,
        new_len,
        section,
        body,
        _diff_lines,
        (body, old_start, new_start, text.start + offset, text.markers, obfuscated),
        text.added,
        text.start + offset,
    )


def _diff_lines(
    body: tuple[str, ...], old_no: int, new_no: int, first: int, markers: tuple[int, ...], obfuscated: bool
) -> tuple[DiffLine, ...]:
    """The DiffLines of a hunk's body (see :func:`_hunk`), the first at input line ``first`` and the
    trailing markers at ``markers``; lines holding ``@...`` are ``altered`` when ``obfuscated``.

    Line rules as unidiff's: the first character gives the kind (`` ``,
    ``+``, ``-``, ``\\``); markers take no line number. A property test
    checks this reader against unidiff's full mode.
    """
    out: list[DiffLine] = []
    append = out.append
    new = _new_line
    added, removed, context, marker = LineKind.ADDED, LineKind.REMOVED, LineKind.CONTEXT, LineKind.MARKER
    for i, line in enumerate(body[: len(body) - len(markers)] if markers else body, first):
        c = line[0]
        text = line[1:]
        if c == " ":  # the most common kind first
            append(new(DiffLine, (context, text, old_no, new_no, i, obfuscated and ALTERED_MARK in text)))
            old_no += 1
            new_no += 1
        elif c == "+":
            append(new(DiffLine, (added, text, None, new_no, i, obfuscated and ALTERED_MARK in text)))
            new_no += 1
        elif c == "-":
            append(new(DiffLine, (removed, text, old_no, None, i, obfuscated and ALTERED_MARK in text)))
            old_no += 1
        else:  # "\\"
            append(new(DiffLine, (marker, text, None, None, i, False)))
    for i in markers:
        append(new(DiffLine, (marker, _MARKER_TEXT, None, None, i, False)))
    return tuple(out)


#: A hunk body that still needs at least this many lines is read that many at a time (:func:`_scan_hunk_body`).
_RUN = 8
_first_char = operator.itemgetter(slice(0, 1))  # a line's first character, "" for an empty line


def _scan_hunk_body(lines: list[str], at: int, old_len: int, new_len: int) -> _HunkText | None:
    """Where the body of the hunk whose header is ``lines[at]`` ends, checked as unidiff's metadata mode
    checks it; None when unidiff would reject the hunk.

    Line rules as unidiff's: the first character gives the kind (`` ``,
    ``+``, ``-``, ``\\``); an empty line (or a lone CR) is an empty context
    line whose space the mailer ate; the hunk ends when both sides have their
    lengths. Markers count on neither side. ``\\ No newline`` markers after
    the body, up to the next hunk header, belong to the hunk too: the caller
    adds them (:func:`_markers_after`, or the fast path's own scan of those lines).
    Rejected (None): a line whose first character is not `` ``, ``+``, ``-``,
    ``\\`` (or an empty line / CR), a side longer than its header says, or
    the text ending before the body does.
    """
    old = new = added = 0
    blank = False
    n = len(lines)
    i = at + 1
    # Each line adds at most one to each side, so the body runs at least ``need`` more lines and cannot
    # end inside them: while that is a long run, its lines are counted at once, by their first characters.
    need = max(old_len, new_len)
    while need >= _RUN:
        end = i + need
        if end > n:
            return None  # unidiff: "Hunk is shorter than expected"
        kinds = "".join(map(_first_char, lines[i:end]))  # an empty line adds no character
        plus = kinds.count("+")
        minus = kinds.count("-")
        both = kinds.count(" ")
        empty = need - len(kinds)
        rest = len(kinds) - plus - minus - both
        if rest:  # markers, lines starting with a CR (context), or a line of no kind
            cr = kinds.count("\r")
            if rest != kinds.count("\\") + cr:
                return None  # unidiff: "Hunk diff line expected"
            empty += cr
        if empty:  # empty context lines (unidiff: a line starting with CR too)
            both += empty
            blank = True
        old += both + minus
        new += both + plus
        added += plus
        i = end
        need = max(old_len - old, new_len - new)
        if need <= 0:  # both sides complete at the run's last line
            if old > old_len or new > new_len:
                return None  # unidiff: "Hunk is longer than expected"
            return _HunkText(at + 1, i, added, blank)
    # the last few lines one by one
    while True:
        if i >= n:
            return None  # unidiff: "Hunk is shorter than expected"
        c = lines[i][:1]
        if c == " ":  # the most common kind first
            old += 1
            new += 1
        elif c == "+":
            new += 1
            added += 1
        elif c == "-":
            old += 1
        elif c == "\\":
            pass
        elif c == "" or c == "\r":  # an empty context line (unidiff: a line starting with CR too)
            old += 1
            new += 1
            blank = True
        else:
            return None  # unidiff: "Hunk diff line expected"
        i += 1
        if old >= old_len and new >= new_len:
            if old > old_len or new > new_len:
                return None  # unidiff: "Hunk is longer than expected"
            return _HunkText(at + 1, i, added, blank)


_C_ESCAPE = lazyre.compile(r'\\([0-7]{1,3}|[abtnvfr"\\])')
_C_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


def _c_unquote(text: str) -> str:
    """A name git quoted (``"A \\303\\242 B.py"`` without the quotes) -> ``A â B.py``: octal
    escapes are bytes of UTF-8, as ``git apply`` reads them (core.quotePath)."""
    if "\\" not in text:
        return text
    out = bytearray()
    pos = 0
    for m in _C_ESCAPE.finditer(text):
        out += text[pos : m.start()].encode("utf-8", "surrogateescape")
        esc = m.group(1)
        out.append(int(esc, 8) & 0xFF if esc[0] in "01234567" else _C_ESCAPES[esc])
        pos = m.end()
    out += text[pos:].encode("utf-8", "surrogateescape")
    return out.decode("utf-8", "replace")


def _strip_prefix(name: str | None) -> str | None:
    if name is None:
        return None
    name = name.strip()
    if len(name) >= 2 and name[0] == '"' and name[-1] == '"':
        name = _c_unquote(name[1:-1])
    if name == "/dev/null":
        return None
    if len(name) > 2 and name[1] == "/" and name[0] in "abciow12":
        name = name[2:]
    return _without_tree_prefix(name)


#: Top-level entries of the kernel tree: a path whose second component is one of these, after a
#: first one that names a tree copy, is a kernel path with the tree's folder in front.
KERNEL_TOP_LEVEL = frozenset(
    {
        "arch",
        "block",
        "certs",
        "crypto",
        "Documentation",
        "drivers",
        "fs",
        "include",
        "init",
        "io_uring",
        "ipc",
        "kernel",
        "lib",
        "LICENSES",
        "mm",
        "net",
        "rust",
        "samples",
        "scripts",
        "security",
        "sound",
        "tools",
        "usr",
        "virt",
        "MAINTAINERS",
        "Makefile",
        "Kconfig",
        "CREDITS",
        "COPYING",
        "README",
    }
)
# The folder of a tree copy that quilt (and diff -urN between two trees) puts before each path:
# "linux-2.6/", "linux-2.6.orig/", "linux/", "linux-next/", "linux.git/", "foo.orig/", "orig/", "new/".
# A developer adds a folder name here when a real patch shows one.
_TREE_FOLDER = lazyre.compile(r"^(?:linux(?:[-.][\w.+-]*)?|[\w.+-]+\.orig|orig|new|old|patched|mainline)$")


def _without_tree_prefix(name: str) -> str:
    """``linux-2.6/arch/s390/x.h`` -> ``arch/s390/x.h``: a quilt-style tree folder in front of a kernel
    path is not part of the path a maintainer knows (git am -p1 would keep it); other paths stay."""
    first, sep, rest = name.partition("/")
    if sep and _TREE_FOLDER.match(first) and rest.split("/", 1)[0] in KERNEL_TOP_LEVEL:
        return rest
    return name


def _file_diff(pf, hunks: tuple[Hunk, ...], base: int) -> FileDiff:
    """Our FileDiff from unidiff's PatchedFile (paths without a/ b/, status) and our hunks."""
    old_path = _strip_prefix(pf.source_file)
    new_path = _strip_prefix(pf.target_file)
    status: Literal["modified", "added", "deleted", "renamed", "binary"]  # FileDiff.status
    if pf.is_binary_file:
        status = "binary"
    elif pf.is_added_file:
        status = "added"
    elif pf.is_removed_file:
        status = "deleted"
    elif old_path is not None and new_path is not None and old_path != new_path:
        status = "renamed"
    else:
        status = "modified"
    path = new_path if new_path is not None else (old_path or "")
    header_line = base + pf.diff_line_no if getattr(pf, "diff_line_no", None) else None
    return FileDiff(
        path=path,
        old_path=old_path,
        new_path=new_path,
        hunks=hunks,
        status=status,
        header_input_line=header_line,
    )
