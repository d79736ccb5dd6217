"""Trimmed quoting of the diff lines a finding points at, the way kernel reviewers quote.

A reply quotes only what it talks about: the file header (``--- a/x`` and
``+++ b/x``), the hunk's ``@@`` line, the changed lines around the finding with
a few context lines, and ``[...]`` where lines were cut. Quoted lines are the
patch's own text, byte for byte: tabs kept, never wrapped, the ``\\ No newline
at end of file`` marker reproduced in place, and lines the archive's address
obfuscation altered (``@...``) left as they are (never "fixed").
"""

from __future__ import annotations

import logging
import re
from typing import Iterable, Sequence

from reviewbot.models import DiffLine, FileDiff, Finding, Hunk, LineKind, Patch

log = logging.getLogger(__name__)

QUOTE_PREFIX = "> "
CUT = "> [...]"
DEFAULT_CONTEXT = 3  # context lines kept on each side of the quoted change
MAX_BLOCK = 24  # a change block longer than this is trimmed around the finding's lines
MAX_QUOTE = 30  # hunk lines quoted for one finding at most (long findings: their first places)

__all__ = [
    "quote_line",
    "quote_finding",
    "subject_quote",
    "claim_quote",
    "quote_hunk_lines",
    "find_file",
    "file_header",
]


def quote_line(text: str) -> str:
    """``text`` with the reply prefix ``"> "``; an empty line becomes ``">"`` (no trailing blank)."""
    return QUOTE_PREFIX + text if text else ">"


def find_file(patch: Patch, finding: Finding) -> FileDiff | None:
    """The FileDiff of ``patch`` holding ``finding.hunk`` (or named by ``finding.path``), or None."""
    if finding.hunk is not None:
        for fd in patch.files:
            if any(h is finding.hunk or h == finding.hunk for h in fd.hunks):
                return fd
    if finding.path:
        for fd in patch.files:
            if finding.path in (fd.path, fd.new_path, fd.old_path):
                return fd
    return None


def file_header(fd: FileDiff | None, path: str | None) -> list[str]:
    """The ``--- a/old`` / ``+++ b/new`` lines of a file diff (``/dev/null`` for a created/deleted file)."""
    if fd is None:
        name = path or "unknown"
        return [f"--- a/{name}", f"+++ b/{name}"]
    old = fd.old_path if fd.old_path else (None if fd.status == "added" else fd.path)
    new = fd.new_path if fd.new_path else (None if fd.status == "deleted" else fd.path)
    if fd.status == "added":
        old = None
    if fd.status == "deleted":
        new = None
    return [
        f"--- a/{old}" if old else "--- /dev/null",
        f"+++ b/{new}" if new else "+++ /dev/null",
    ]


def _hunk_header(hunk: Hunk) -> str:
    if hunk.header.startswith("@@"):
        return hunk.header
    head = f"@@ -{hunk.old_start},{hunk.old_len} +{hunk.new_start},{hunk.new_len} @@"
    return f"{head} {hunk.section}" if hunk.section else head


def _is_change(line: DiffLine) -> bool:
    return line.kind is not LineKind.CONTEXT


def _target_groups(hunk: Hunk, lines: Iterable[int], removed_texts: Iterable[str] = ()) -> list[list[int]]:
    """For each new-side line named by ``lines`` (hunk order): its index into ``hunk.lines``, plus,
    for an added line, the removed lines with the same text (a moved struct member is shown at
    both ends). ``removed_texts``: removed lines with these texts (whitespace collapsed) are named
    too (a member moved here from another hunk)."""
    wanted = set(lines)
    gone = set(removed_texts)
    groups: list[list[int]] = []
    if gone:
        groups.extend(
            [i] for i, dl in enumerate(hunk.lines) if dl.kind is LineKind.REMOVED and " ".join(dl.text.split()) in gone
        )
    for i, dl in enumerate(hunk.lines):
        if dl.new_no is None or dl.new_no not in wanted or dl.kind is LineKind.REMOVED:
            continue
        group = [i]
        key = " ".join(dl.text.split())
        if dl.kind is LineKind.ADDED and key:
            group.extend(
                j
                for j, other in enumerate(hunk.lines)
                if other.kind is LineKind.REMOVED and " ".join(other.text.split()) == key
            )
        groups.append(group)
    return groups


def _block(hunk: Hunk, index: int) -> tuple[int, int]:
    """The run of changed lines (-, +, marker) around ``index``, as [start, end)."""
    lines = hunk.lines
    if not _is_change(lines[index]):
        return index, index + 1
    start = index
    while start > 0 and _is_change(lines[start - 1]):
        start -= 1
    end = index + 1
    while end < len(lines) and _is_change(lines[end]):
        end += 1
    return start, end


def _merge(ranges: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def quote_hunk_lines(
    hunk: Hunk, lines: Iterable[int], *, context: int = DEFAULT_CONTEXT, removed_texts: Iterable[str] = ()
) -> list[str]:
    """The quoted ``@@`` line and the hunk lines around new-side ``lines``, with ``> [...]`` cuts.

    Each named line pulls in its whole block of changed lines (so a moved
    member's removal is shown next to its re-insertion) unless the block is
    longer than ``MAX_BLOCK`` lines, then ``context`` lines on each side.
    When that adds up to more than ``MAX_QUOTE`` lines, only the first of
    the named places are quoted.
    With no line of the hunk named, the whole hunk is quoted (trimmed to its
    first changes when long). Returns lines without line ends.
    """
    body = hunk.lines
    out = [quote_line(_hunk_header(hunk))]
    if not body:
        return out
    groups = sorted(_target_groups(hunk, lines, removed_texts))
    if not groups:
        groups = [[i] for i, dl in enumerate(body) if _is_change(dl)][:MAX_BLOCK] or [[0]]

    def flat(chosen: list[list[int]]) -> list[int]:
        return sorted({i for g in chosen for i in g})

    merged = _ranges(hunk, flat(groups), context)
    while len(groups) > 1 and sum(end - start for start, end in merged) > MAX_QUOTE:
        groups = groups[: max(1, len(groups) // 2)]  # a long finding: show its first places
        merged = _ranges(hunk, flat(groups), context)
    merged = _merge([(_function_start(body, start), end) for start, end in merged])
    merged = _without_unrelated_removals(hunk, merged, flat(groups))
    if merged[0][0] > 0:
        out.append(CUT)
    for n, (start, end) in enumerate(merged):
        if n:
            out.append(CUT)
        out.extend(quote_line(dl.raw) for dl in body[start:end])
    if merged[-1][1] < len(body):
        out.append(CUT)
    return out


#: How far above an excerpt a reply looks for the first line of the function the excerpt is in.
FUNCTION_LOOKBACK = 6


def _function_start(body: Sequence[DiffLine], start: int) -> int:
    """``start``, or the index of the first line of the function definition the excerpt starting there
    is in, when that line is at most :data:`FUNCTION_LOOKBACK` lines above in the hunk: a reader of the
    reply sees which function (``static u32 foo(struct bar *b)``) the quoted ``{`` and body lines open,
    which the ``@@`` line (the function before the hunk) does not say."""
    for i in range(start - 1, max(-1, start - 1 - FUNCTION_LOOKBACK), -1):
        dl = body[i]
        if dl.kind is LineKind.REMOVED:
            continue
        text = dl.text
        if text.startswith("}"):
            return start  # the previous function ends above the excerpt
        if text[:1].isalpha() or text[:1] == "_":
            return i if "(" in text and not text.rstrip().endswith(";") else start
    return start


#: How alike (difflib's ratio) a removed line must be to an added line of the excerpt to be its old form.
OLD_FORM_RATIO = 0.5


def _unrelated(removed: str, added: Sequence[str]) -> bool:
    """A removed line with some code on it that is like none of the added lines of the excerpt (``-};`` and
    blank lines are kept: there is nothing to tell)."""
    import difflib

    text = " ".join(removed.split())
    if len(text) < 4:
        return False
    return all(difflib.SequenceMatcher(None, text, " ".join(a.split())).ratio() < OLD_FORM_RATIO for a in added)


def _without_unrelated_removals(
    hunk: Hunk, ranges: Sequence[tuple[int, int]], targets: Sequence[int]
) -> list[tuple[int, int]]:
    """``ranges`` without the removed lines, next to an added line the finding names, that are like none of
    the added lines of its excerpt (``OLD_FORM_RATIO``), in a hunk that rewrites a large region (over
    ``MAX_BLOCK`` lines removed and added): another change the diff happens to interleave (a rewritten
    function's old loop between a new barrier and its atomic), not the old form of these lines.
    They are left out with a cut; removed lines that are targets, or like a new line (its old form), stay."""
    body = hunk.lines
    if (
        sum(dl.kind is LineKind.REMOVED for dl in body) <= MAX_BLOCK
        or sum(dl.kind is LineKind.ADDED for dl in body) <= MAX_BLOCK
    ):
        return list(ranges)  # not a rewrite of a large region: the removed lines are these lines' old form
    drop: set[int] = set()
    wanted = set(targets)
    for index in targets:
        if body[index].kind is not LineKind.ADDED:
            continue
        for first, last in ranges:
            if first <= index < last:
                added = [body[i].text for i in range(first, last) if body[i].kind is LineKind.ADDED]
                drop.update(
                    i
                    for i in range(first, last)
                    if body[i].kind is LineKind.REMOVED and i not in wanted and _unrelated(body[i].text, added)
                )
    if not drop:
        return list(ranges)
    out: list[tuple[int, int]] = []
    for first, last in ranges:
        run = first
        for i in range(first, last):
            if i in drop:
                if run < i:
                    out.append((run, i))
                run = i + 1
        if run < last:
            out.append((run, last))
    return out or list(ranges)


def _ranges(hunk: Hunk, targets: Sequence[int], context: int) -> list[tuple[int, int]]:
    body = hunk.lines
    ranges: list[tuple[int, int]] = []
    for index in targets:
        start, end = _block(hunk, index)
        if end - start > MAX_BLOCK:
            ranges.append((max(0, index - context), min(len(body), index + context + 1)))
            continue
        ranges.append((max(0, start - context), min(len(body), end + context)))
    return _merge(ranges)


_CLAIM_WORDS = re.compile(
    r"optimi[sz]|speed|faster|overhead|contention|latenc|throughput|scalab|cache|false shar|fast ?path|perf",
    re.IGNORECASE,
)


_TRAILER_PARA = re.compile(r"^[A-Za-z-]+-by: |^Link: |^Fixes: |^Cc: |^Closes: ")


def subject_quote(patch: Patch) -> list[str]:
    """The patch's Subject quoted as the header line it is: ``> Subject: [PATCH v3 3/3] block: ...``.

    Used when the point is about the subject alone (e.g. a speed claim only
    there): a bare ``> [PATCH ...]`` line would look like a line of the body,
    which it is not; reviewers quote a subject with its ``Subject:`` name.
    Unfolded, never wrapped; empty for a message without a subject.
    """
    subject = " ".join((patch.subject.raw or patch.subject.title).split())
    return [quote_line(f"Subject: {subject}")] if subject else []


def _commit_quote(patch: Patch, finding: Finding) -> list[str]:
    """Quote the commit-message paragraph a commit-message finding is about.

    The paragraph holding the finding's input line, else the one containing
    ``finding.quote`` (the claim), else the first paragraph with
    speed words; from a trailer block only the matching line is quoted. When
    the claim is in the subject alone: the subject, as a ``Subject:`` line.
    """
    text = patch.commit_message.strip("\n")
    every = [p for p in re.split(r"\n[ \t]*\n", text) if p.strip()]
    prose = [p for p in every if not _TRAILER_PARA.match(p)]
    chosen: str | None = None
    wanted: str | None = None
    if finding.input_line is not None or finding.line is not None:
        target = (finding.input_line or finding.line or 0) - patch.commit_start_line
        lines = patch.commit_message.split("\n")
        if 0 <= target < len(lines) and lines[target].strip():
            wanted = lines[target]
    if wanted is None:
        needle = finding.quote
        if needle:
            wanted = next((ln for p in every for ln in p.split("\n") if needle.lower() in ln.lower()), None)
    if wanted is not None:
        chosen = next((p for p in every if wanted in p.split("\n")), None)
        if chosen is not None and _TRAILER_PARA.match(chosen):
            return [CUT, quote_line(wanted), CUT] if len(chosen.split("\n")) > 1 else [quote_line(wanted)]
    if chosen is None:
        chosen = next((p for p in prose if _CLAIM_WORDS.search(p)), None)
    out: list[str] = []
    if chosen is None:
        return subject_quote(patch)
    lines = chosen.split("\n")
    if len(lines) > 12:
        lines = lines[:12] + ["[...]"]
    if every and chosen != every[0]:
        out.append(CUT)
    out.extend(quote_line(line) for line in lines)
    if prose and chosen != prose[-1] and chosen in prose:
        out.append(CUT)
    return out


def _squash(text: str) -> str:
    return " ".join(text.split()).lower()


def claim_quote(patch: Patch, sentence: str) -> list[str]:
    """The quote that shows ``sentence`` (what a paragraph says the patch says, e.g. ``The subject says
    "block: optimize x"``): the ``Subject:`` line when it is the subject's title, else the changelog
    paragraph holding it (``[...]`` where text was cut), else nothing."""
    want = _squash(sentence).rstrip(".")
    if not want:
        return []
    if want == _squash(patch.subject.title).rstrip(".") or want == _squash(patch.subject.raw).rstrip("."):
        return subject_quote(patch)
    every = [p for p in re.split(r"\n[ \t]*\n", patch.commit_message.strip("\n")) if p.strip()]
    for n, para in enumerate(every):
        if want in _squash(para):
            lines = para.split("\n")
            if len(lines) > 12:
                lines = lines[:12] + ["[...]"]
            out = [CUT] if n else []
            out.extend(quote_line(line) for line in lines)
            if n < len(every) - 1 and not all(_TRAILER_PARA.match(p) for p in every[n + 1 :]):
                out.append(CUT)
            return out
    return []


def quote_finding(patch: Patch, finding: Finding, *, context: int = DEFAULT_CONTEXT) -> str:
    """The quoted excerpt a reply puts above its comment on ``finding`` (lines joined by ``\\n``).

    Diff findings: file header, ``@@`` line and the trimmed hunk around
    ``finding.lines`` (or ``finding.line``). Commit-message findings (no hunk):
    the commit-message paragraph the finding is about. Never raises for a
    finding whose lines are not in the hunk: the hunk is then quoted whole
    (trimmed when long).
    """
    hunk = finding.hunk
    if hunk is None and finding.path and finding.line is not None:
        fd = find_file(patch, finding)
        if fd is not None:
            hunk = next(
                (h for h in fd.hunks if h.new_start <= finding.line < h.new_start + max(h.new_len, 1)),
                None,
            )
    if hunk is None:
        return "\n".join(_commit_quote(patch, finding))
    fd = find_file(patch, finding)
    lines = finding.lines or ((finding.line,) if finding.line is not None else ())
    out = [quote_line(h) for h in file_header(fd, finding.path)]
    real = fd.hunks if fd is not None else ()
    if real and not any(h is hunk or (h.header == hunk.header and h.lines == hunk.lines) for h in real):
        parts = _real_places(real, hunk, lines)
        if parts:  # a finding's hunk joined from several: quote each real hunk under its own @@ line
            for h, its_lines, gone in parts:
                out.extend(quote_hunk_lines(h, its_lines, context=context, removed_texts=gone))
            return "\n".join(out)
    out.extend(quote_hunk_lines(hunk, lines, context=context))
    return "\n".join(out)


def _real_places(real: Sequence[Hunk], joined: Hunk, lines: Sequence[int]) -> list[tuple[Hunk, list[int], set[str]]]:
    """For a finding whose hunk was joined from several real ones: each real hunk that holds one of its
    new-side ``lines`` or the removal of a line moved there (same text), with those lines."""
    wanted = set(lines)
    added = {
        " ".join(dl.text.split())
        for dl in joined.lines
        if dl.kind is LineKind.ADDED and dl.new_no in wanted and dl.text.strip()
    }
    out: list[tuple[Hunk, list[int], set[str]]] = []
    for h in real:
        mine = [
            dl.new_no
            for dl in h.lines
            if dl.new_no is not None and dl.new_no in wanted and dl.kind is not LineKind.REMOVED
        ]
        gone = {" ".join(dl.text.split()) for dl in h.lines if dl.kind is LineKind.REMOVED} & added
        if mine or gone:
            out.append((h, mine, gone))
    return out
