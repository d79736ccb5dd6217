"""RB301 diff-in-commit-message: an unindented diff in the commit message cuts it short in ``git am``.

What it does
------------
Finds a line in the commit message that ``git am`` (``git mailinfo``'s
``patchbreak()``) takes as the start of the patch: ``diff -...``,
``Index: ...`` or ``--- <file>`` at the start of the line. Everything from
there on, the rest of the explanation and the ``Fixes:`` and
``Signed-off-by:`` trailers included, would be lost from the commit. The
finding names the line and the text that would be dropped.

Why it matters
--------------
The maintainer applies the mail with ``git am``: the commit then lacks the
end of the explanation and, worse, the Signed-off-by, and the example hunk is
applied as part of the patch or makes ``git am`` fail. People quoting a
previous version's diff in the changelog hit this regularly.

Example
-------
::

    v1 changed it like this:

    --- a/drivers/foo/queue.c
    +++ b/drivers/foo/queue.c
    @@ -40,1 +40,1 @@
    -	q->len--;
    +	q->len -= n;

    Signed-off-by: ...

Use instead
-----------
Indent the example by a few spaces (``git am`` only reacts to lines that
start at column 0), or describe the earlier change in words.

Known limits
------------
Only the commit message as the mail shows it is checked; a diff in a cover
letter is harmless and not reported. A diff after which nothing of the
changelog follows (the patch pasted twice, its trailers above) loses nothing
from the commit and is not reported. A diff whose hunks are the patch's own (the
same line ranges: the patch pasted into its message, a mangled mail) stays a
finding that ``draft`` does not write (``details["unsure"]``): a reviewer asks
for a clean resend, not for an indented example. On an RFC the finding is not drafted either: an RFC is not
applied as it stands.

References
----------
* git-am(1) and git-mailinfo(1); builtin/mailinfo.c ``patchbreak()``
* Documentation/process/submitting-patches.rst, "The canonical patch format"
"""

from __future__ import annotations

from typing import Iterable, Sequence

from reviewbot import lazyre
from reviewbot.models import UNSURE_KEY, Finding, LineKind, Patch
from reviewbot.parse.patch import WARN_EMBEDDED_DIFF
from reviewbot.rule import RuleContext, RuleMeta, Scope, Severity

RULE = RuleMeta(
    id="RB301",
    name="diff-in-commit-message",
    summary="Unindented diff in the commit message: git am would cut the commit message there",
    severity=Severity.ERROR,
    scope=Scope.PATCH,
    references=("git-mailinfo(1), builtin/mailinfo.c patchbreak()", "Documentation/process/submitting-patches.rst"),
    claims=(WARN_EMBEDDED_DIFF,),  # the parser's warning says what the finding says
)

# git mailinfo patchbreak(): "diff -", "Index: ", or "--- " followed by a non-space
_BREAK_RE = lazyre.compile(r"^(?:diff -|Index: |--- \S)")
_DIFF_BODY_RE = lazyre.compile(r"^(?:[-+ @\\]|diff |index |Index: |=+$|new file|deleted file|similarity|rename )")
_TRAILER_RE = lazyre.compile(r"^([A-Za-z0-9][A-Za-z0-9-]*):\s")
#: Lines that make the cut block a diff (an example to indent), not prose or tool output that only starts like one.
_DIFF_SHAPE_RE = lazyre.compile(r"^(?:diff -|Index: |@@ -\d|\+\+\+ [ab]/|--- [ab]/)")


def _break_line(lines: list[str]) -> int | None:
    for i, line in enumerate(lines):
        if _BREAK_RE.match(line):
            # "--- foo" alone (a separator-like line of prose) needs a "+++ " after it
            if line.startswith("--- ") and not (i + 1 < len(lines) and lines[i + 1].startswith("+++ ")):
                continue
            return i
    return None


_HUNK_RANGES_RE = lazyre.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
#: Step "sure": why a diff in the message that copies the patch's own diff is not drafted (``draft --unsure``): the
#: mail is mangled (the patch pasted twice, a first copy above the "---"); "indent the example" misreads it (a
#: fresh maintainer said NO to such a draft on a list the rule never saw), and what a reviewer asks is a resend.
UNSURE_COPY = "the diff in the message is a copy of the patch's own hunks: a mangled mail, not an example"
#: Step "sure": an RFC asks for comments and is not applied with git am as it stands; what git am would cut matters
#: when it is posted as a patch (a fresh maintainer said NO to the advice on an RFC asking the list for help).
UNSURE_RFC = "an RFC is not applied as it stands: what git am would cut matters once it is posted as a patch"


def _copy_of_the_patch(block: list[str], patch: Patch) -> bool:
    """True when every hunk header of the diff ``block`` found in the commit message is one of the patch's own
    (the same line ranges) and every line it adds or removes is one the patch adds or removes: the patch pasted
    into its message, not an example of another change (a v1 hunk at the same lines)."""
    ranges = [m.groups() for m in map(_HUNK_RANGES_RE.match, block) if m]
    ours = {(h.old_start, h.old_len, h.new_start, h.new_len) for fd in patch.files for h in fd.hunks}
    changed = {
        ln.raw
        for fd in patch.files
        for h in fd.hunks
        for ln in h.lines
        if ln.kind in (LineKind.ADDED, LineKind.REMOVED)
    }
    same = all(ln in changed for ln in block if ln[:1] in "+-" and not ln.startswith(("+++ ", "--- ")))
    return bool(ranges) and same and all((int(a), int(b or 1), int(c), int(d or 1)) in ours for a, b, c, d in ranges)


def check(patch: Patch, ctx: RuleContext) -> Iterable[Finding]:
    """One finding when the commit message holds a line that starts the patch for git am."""
    if not patch.files:
        return []
    lines = patch.commit_message.split("\n")
    confirmed = _break_line(lines)
    if confirmed is None:
        return []
    # git mailinfo cuts at the first such line, a "--- x" of prose (strace's "--- SIGFPE {...} ---") included: that
    # is where the commit ends, even when only a later one is followed by a "+++ " line
    start = next(i for i, line in enumerate(lines[: confirmed + 1]) if _BREAK_RE.match(line))
    end = start + 1
    while end < len(lines) and (lines[end] or end + 1 < len(lines) and lines[end + 1][:1] in "+- @"):
        if lines[end] and not _DIFF_BODY_RE.match(lines[end]):
            break
        end += 1  # a blank line inside the diff: a context line whose space the commit stripped
    after = [ln for ln in lines[end:] if ln.strip()]
    trailers = [m.group(1) for m in (_TRAILER_RE.match(ln) for ln in after) if m]
    prose = [ln.strip() for ln in after if not _TRAILER_RE.match(ln)]
    above = {m.group(1) for m in (_TRAILER_RE.match(ln) for ln in lines[:start]) if m}
    for t in patch.trailers:  # the parser may keep trailers apart from commit_message: lost unless above the diff
        if t.key not in trailers and t.key not in above:
            trailers.append(t.key)
    if not prose and not trailers:
        return []  # nothing of the changelog comes after it: the commit loses nothing (a second pasted copy)
    lost = []
    if prose:
        first = prose[0] if len(prose[0]) <= 60 else prose[0][:57] + "..."
        lost.append(f'"{first}"' + (f" and {len(prose) - 1} more line(s)" if len(prose) > 1 else ""))
    lost += [f"{k}:" for k in dict.fromkeys(trailers)]
    dropped = ", ".join(lost)
    line_no = patch.commit_start_line + start
    copied = _copy_of_the_patch(lines[start:end], patch)
    return [
        RULE.finding(
            patch,
            f"the commit message contains an unindented diff at line {line_no} ({lines[start].strip()!r}); "
            + (
                "it is a copy of the patch's own hunks: git am starts the patch there and the patch will not "
                "apply as sent; take the copy out of the commit message (git commit --amend)"
                if copied
                else f"git am starts the patch there and would drop {dropped} from the commit; indent the example"
            ),
            line=line_no,
            symbol="embedded-diff",
            details={
                "diff_line": lines[start],
                "a_diff": any(_DIFF_SHAPE_RE.match(ln) for ln in lines[start:end]),
                "dropped_text": after,
                "dropped_trailers": list(dict.fromkeys(trailers)),
            }
            | (
                {UNSURE_KEY: UNSURE_COPY, "copy": True}
                if copied
                else {UNSURE_KEY: UNSURE_RFC}
                if patch.subject.rfc
                else {}
            ),
        )
    ]


def reply(findings: Sequence[Finding], patch: Patch) -> str:
    """Point out what git am would do, and the easy fix."""
    if not findings:
        return ""
    f = findings[0]
    if f.details.get("copy"):  # a mangled mail: no example to indent, nothing of the changelog lost
        return (
            "The patch seems to be pasted twice: a copy of its hunks sits in the changelog, from the unindented "
            f'"{f.details.get("diff_line", "").strip()}" line on. git am takes that line as the start of the '
            "patch, so every hunk would come twice and the patch would not apply. Could you resend it with the "
            "copy taken out of the commit message?"
        )
    trailers = f.details.get("dropped_trailers") or []
    what = "the rest of the changelog"
    if trailers:
        what += (
            " including the "
            + " and ".join(f"{t}:" for t in trailers[:3])
            + " tag"
            + ("s" if len(trailers) > 1 else "")
        )
    line = f.details.get("diff_line", "---").strip()
    if f.details.get("a_diff", True):
        return (
            "I think the example diff in the changelog will confuse git am: it takes the unindented "
            f'"{line}" line as the start of the patch, so {what} would be dropped from the commit. Could you '
            "indent the example by a few spaces (or describe it in words) when you resend?"
        )
    return (  # tool output or prose that only starts like a patch ("--- SIGFPE {...} ---")
        f'I think git am will cut the changelog at the unindented "{line}" line: git mailinfo takes a line '
        f'starting with "--- " and a word as the start of the patch, so {what} would be dropped from the '
        "commit. Could you indent those lines by a few spaces when you resend?"
    )


# How reviewers make this point in a thread (reviewbot.rule.point_in_thread): a draft never repeats them.
from reviewbot.rule import ThreadWords  # noqa: E402

THREAD_WORDS = ThreadWords(
    topic=("git am", "diff", "quoting", "inlined", "patch tools", "changelog", "commit message"),
    asks=(
        "indent them",
        "indent it",
        "indent the",
        "indented",
        "confuse git am",
        "confuses git am",
        "git am will",
        "git am would",
        "taken for a part of the patch",
    ),
)
