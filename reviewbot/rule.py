"""The public plugin contract for review rules (stable API, entry-point group ``reviewbot.rules.v1``).

A rule is a module with:

* a docstring with the headings ``What it does``, ``Why it matters``,
  ``Example``, ``Use instead``, ``Known limits``, ``References`` (it is the
  rule's documentation, printed by ``reviewbot explain``);
* ``RULE = RuleMeta(...)``: id (``RB`` + 3 digits), kebab-case name naming the
  bad pattern, one-line summary, scope, default severity, references;
* ``check(patch: Patch, ctx: RuleContext) -> Iterable[Finding]``: pure, no I/O,
  no globals; build findings with ``RULE.finding(patch, ...)``;
* ``reply(findings: Sequence[Finding], patch: Patch) -> str``: the paragraph a
  reviewer would write under the quoted hunk (plain text, unwrapped or
  wrapped; the responder wraps at 72 columns and adds headers and quotes).
  All findings of the rule on one patch come in one call: one point, one
  paragraph.
* optional ``THREAD_WORDS = ThreadWords(...)``: how reviewers make the rule's
  point in a thread, so a draft never repeats them (:func:`point_in_thread`,
  the shared default); a rule may define its own ``thread_state(finding,
  patch, thread, identity=None)`` returning ``(FindingState, reason)``.

Numbering: RB1xx look at the diff, RB2xx at the commit message and thread,
RB3xx at series and process.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Iterator, Mapping, NamedTuple, Sequence

from reviewbot import lazyre
from reviewbot.models import Finding, FindingState, Hunk, Message, Patch, Series, Severity

if TYPE_CHECKING:  # pragma: no cover - typing only
    from reviewbot.view import PatchView

__all__ = [
    "DOC_HEADINGS",
    "RuleContext",
    "RuleMeta",
    "Scope",
    "Severity",
    "Finding",
    "FindingState",
    "ThreadWords",
    "point_in_thread",
]

ID_RE = re.compile(r"^RB[0-9]{3}$")
NAME_RE = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)+$")
DOC_HEADINGS = ("What it does", "Why it matters", "Example", "Use instead", "Known limits", "References")


class Scope(str, enum.Enum):
    """What a rule looks at: the diff's hunks, the whole patch mail, or the series."""

    HUNK = "hunk"
    PATCH = "patch"
    SERIES = "series"


# eq=False: one per rule module, compared by identity; a generated __eq__/__hash__ is compiled at every start
@dataclass(frozen=True, eq=False)
class RuleMeta:
    """Metadata of one rule.

    ``references`` are where the convention is written down (kernel docs
    sections, lore links). ``strict_only`` rules (or CHECK findings) are shown
    only with ``--strict``, as checkpatch's CHECK level.
    """

    id: str
    name: str
    summary: str
    severity: Severity
    scope: Scope = Scope.PATCH
    references: tuple[str, ...] = ()
    since: str = "0.1"
    #: Parse warnings (``ParseWarning.code``) this rule reports as findings of its own: on a patch
    #: where the rule reported, the warning is not shown again as a note (RB301: ``embedded-diff``).
    claims: tuple[str, ...] = ()

    def finding(
        self,
        patch: Patch,
        message: str,
        *,
        severity: Severity | None = None,
        path: str | None = None,
        line: int | None = None,
        lines: Sequence[int] = (),
        input_line: int | None = None,
        hunk: Hunk | None = None,
        symbol: str = "",
        details: Mapping[str, Any] | None = None,
        state: FindingState = FindingState.OPEN,
    ) -> Finding:
        """Build a Finding stamped with this rule's id, name and (default) severity."""
        return Finding(
            rule_id=self.id,
            rule_name=self.name,
            severity=severity or self.severity,
            message=message,
            message_id=patch.message_id,
            path=path,
            line=line,
            lines=tuple(lines) or ((line,) if line is not None else ()),
            input_line=input_line,
            hunk=hunk,
            symbol=symbol,
            details=dict(details or {}),
            state=state,
        )


# eq=False: built per patch by the engine and never compared (nor hashable by value: options is a dict);
# repr=False: it would print the whole thread. Each generated method is compiled at every start.
@dataclass(frozen=True, eq=False, repr=False)
class RuleContext:
    """What a rule may know beyond the patch itself. Read-only; built by the engine.

    * ``strict``: CHECK-level findings are wanted (``--strict``).
    * ``series``: the series the patch belongs to, when known.
    * ``cover``: the series' cover letter (0/N), when known.
    * ``thread``: the other messages of the patch's thread in arrival order
      (replies, the author's answers), when known; empty for a local check.
    * ``earlier``: earlier versions of this patch, when known.
    * ``options``: per-rule options from configuration.
    * ``view``: the engine's :class:`~reviewbot.view.PatchView` of the patch (its hunks' added and
      removed text, worked out once for all rules); read it with :func:`reviewbot.view.patch_view`.
    """

    strict: bool = False
    series: Series | None = None
    cover: Patch | None = None
    thread: tuple[Message, ...] = ()
    earlier: tuple[Patch, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)
    view: "PatchView | None" = field(default=None, repr=False, compare=False)

    def with_(self, **changes: Any) -> "RuleContext":
        """A copy with some fields replaced."""
        return replace(self, **changes)


# ---------------------------------------------------------------- the thread: raised / answered / not yet


class ThreadWords(NamedTuple):
    """How people make a rule's point in a mail thread (lower-case phrases, matched in a reply's own,
    unquoted text).

    * ``topic``: words that name the subject of the point (``cache line``, ``barrier``, ``numbers``);
      a reply naming the finding's member/barrier/struct together with one of them raises the point;
    * ``asks``: the rule's question in reviewers' words (``what does this barrier pair with``,
      ``numbers, please``); one of them in a paragraph of a reply about the patch raises the point
      when that paragraph also has a topic word or names the finding's member/barrier/struct;
    * ``evidence``: a regular expression for the author's answer in a reply (measured numbers);
      a later version of the patch by the author that adds ``topic`` words answers it too;
    * ``evidence_in_order``: word patterns that answer when they stand in this order on one line
      (``before`` ... ``after``); found one word at a time, so linear in the line (a single pattern
      ``with.*patch.*\\d`` backtracks with the cube of a line repeating "with patch").

    A kernel developer fixes a missed "already said" by adding the phrase here.

    A NamedTuple (immutable, built with keywords as before): a dataclass compiles each generated method at
    every start, and nothing needs one here.
    """

    topic: tuple[str, ...] = ()
    asks: tuple[str, ...] = ()
    evidence: str = ""
    evidence_in_order: tuple[tuple[str, ...], ...] = ()

    def answers(self, text: str) -> bool:
        """True when ``text`` (a reply's own lines) holds what answers the point: ``evidence``, or the
        ``evidence_in_order`` words in order on one line."""
        if self.evidence and re.search(self.evidence, text, re.IGNORECASE):
            return True
        steps_list = [[re.compile(w, re.IGNORECASE) for w in steps] for steps in self.evidence_in_order]
        if not steps_list:
            return False
        for line in text.split("\n"):
            for steps in steps_list:
                pos = 0
                for step in steps:
                    m = step.search(line, pos)
                    if m is None:
                        break
                    pos = m.end()
                else:
                    return True
        return False


_ASK_RE = lazyre.compile(r"\?|please|could you|can you|would you|should|need|missing|add a comment", re.IGNORECASE)
_C_WORDS = frozenset(
    {"struct", "union", "enum", "static", "inline", "void", "const", "unsigned", "perf", "claim", "the", "barrier"}
)


def _own_lines(body: str) -> list[str]:
    out = []
    for line in body.split("\n"):
        if line.startswith("-- ") and line.strip() == "--":
            break
        out.append(line)
    return out


def _quoted_text(line: str) -> str | None:
    """The diff text of a quoted diff line (``> +\tsmp_wmb();`` -> ``smp_wmb();``), else None."""
    if not line.lstrip().startswith(">"):
        return None
    q = line.lstrip().lstrip(">").lstrip(" ")
    if q[:1] not in ("+", "-"):
        return None
    return " ".join(q[1:].split())


#: How far below a quoted line a block of code may go on, its first blank line ending it, for a comment under it
_BLOCK_LINES = 10


def _blank_code(line: str) -> bool:
    """A quoted blank line of a diff (``> +``, ``>``) or no quoted line at all: where a block of quoted code ends."""
    if not line.lstrip().startswith(">"):
        return True
    q = line.lstrip().lstrip(">").strip()
    return q in ("", "+", "-")


def _comments_under(body: str, texts: set[str]) -> str | None:
    """The reply's own text right under a quoted line of ``texts`` (inline review), else None."""
    lines = _own_lines(body)
    for i, line in enumerate(lines):
        t = _quoted_text(line)
        if t is None or not t or t not in texts:
            continue
        # at most three more quoted lines: the comment must sit right under the line, or under the end of the
        # short block of code holding it (up to its first blank line: "I don't get the need to have these here")
        block = i + 1
        while block < len(lines) and block <= i + _BLOCK_LINES and not _blank_code(lines[block]):
            block += 1
        last = max(i + 3, block if block <= i + _BLOCK_LINES else 0)
        j = i + 1
        while j < len(lines) and j <= last and lines[j].lstrip().startswith(">"):
            j += 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        own = []
        while j < len(lines) and lines[j].strip() and not lines[j].lstrip().startswith(">"):
            own.append(lines[j])
            j += 1
        if own:
            return "\n".join(own)
    return None


#: What sits under a quoted line without being a comment on it: trailers, thanks and bare acks.
NOT_A_COMMENT = (
    "thanks",
    "thank you",
    "looks good",
    "lgtm",
    "nice",
    "agreed",
    "good catch",
    "ok",
    "okay",
    "yes",
    "right",
    "indeed",
    "same here",
    "ditto",
)
_TRAILER_LINE = lazyre.compile(r"^\s*[A-Za-z]+(?:-[A-Za-z]+)*-by:|^\s*(?:Fixes|Link|Cc):", re.IGNORECASE)


def _is_review_comment(text: str) -> bool:
    """``text`` (own lines right under a quoted line) says something about the code: not only
    trailers, thanks or a bare ack (:data:`NOT_A_COMMENT`), and at least a few words."""
    lines = [line for line in text.split("\n") if line.strip() and not _TRAILER_LINE.match(line)]
    said = " ".join(" ".join(lines).lower().split()).strip(" .!,")
    if not said or said in NOT_A_COMMENT:
        return False
    for ack in NOT_A_COMMENT:
        said = re.sub(r"\b" + re.escape(ack) + r"\b", " ", said)
    return len(re.findall(r"[a-z_][a-z0-9_]*", said)) >= 4


def _names_of(finding: Finding) -> list[str]:
    names = list(finding.subject_names)
    names.extend(re.split(r"[^A-Za-z0-9_]+", finding.symbol.split("@", 1)[0]))
    return [
        n.replace("struct ", "").strip()
        for n in names
        if len(n.replace("struct ", "").strip()) > 2 and n.strip().lower() not in _C_WORDS
    ]


def same_person(a: Any, b: Any) -> bool:
    """The same sender: the same address, or (the archive hides addresses) the same display name."""
    if a is None or b is None:
        return False
    if a.email and b.email and a.email.lower() == b.email.lower():
        return True
    return bool(a.name and b.name and a.name.strip().lower() == b.name.strip().lower())


def later_replies(patch: Patch, thread: Sequence[Message], *, identity: Any = None) -> Iterator[Message]:
    """The messages of ``thread`` that speak about ``patch`` after it was posted: not the patch, not
    older, not ours (``identity``), not replies to another patch of the series."""
    from reviewbot.parse.threads import about_patch

    for msg in thread:
        if msg.message_id == patch.message_id:
            continue
        if patch.message.date and msg.date and msg.date < patch.message.date:
            continue
        if identity is not None and same_person(msg.from_addr, identity):
            continue
        if about_patch(msg, patch):
            yield msg


def point_in_thread(
    finding: Finding,
    patch: Patch,
    thread: Sequence[Message],
    words: ThreadWords | None,
    *,
    identity: Any = None,
) -> tuple[FindingState, str]:
    """Whether the thread already holds the point of ``finding``: (state, reason); the shared default.

    Messages before the patch, ours, and replies to other patches of the series are ignored (replies
    to the cover letter count). From the author: ``answered`` when a reply matches ``words.evidence``
    or a later version adds the topic words and names the symbol. From anyone else: ``raised`` when
    the reply asks or comments (:func:`_is_review_comment`: more than trailers or an ack) right
    under a quoted line the finding is about (at most three quoted lines between), names its member/barrier/struct with a topic word, or asks the rule's question
    (``words.asks``, with a topic word or a name in the same paragraph). Else ``open``.
    """
    words = words or ThreadWords()
    author = patch.message.from_addr
    names = _names_of(finding)
    wanted = set(finding.lines or ((finding.line,) if finding.line is not None else ()))
    texts: set[str] = set()
    if finding.hunk is not None:
        keys = {" ".join(dl.text.split()) for dl in finding.hunk.lines if dl.new_no in wanted}
        texts = {
            " ".join(dl.text.split())
            for dl in finding.hunk.lines
            if dl.kind.value in "+-" and " ".join(dl.text.split()) in keys
        }
        texts.discard("")
    for msg in later_replies(patch, thread, identity=identity):
        own = "\n".join(line for line in _own_lines(msg.body) if not line.lstrip().startswith(">"))
        low = " ".join(own.lower().split())
        if same_person(msg.from_addr, author):
            if words.answers(own):
                return FindingState.ANSWERED, f"the author posted numbers in <{msg.message_id}>"
            later = (
                msg.subject.is_patch
                and msg.subject.version > patch.subject.version
                and " ".join(msg.subject.title.lower().split()) == " ".join(patch.subject.title.lower().split())
            )
            if later and words.topic:
                added = " ".join(line[1:] for line in msg.body.split("\n") if line.startswith("+")).lower()
                if any(w in added for w in words.topic) and (not names or any(n.lower() in added for n in names)):
                    return FindingState.ANSWERED, f"addressed in v{msg.subject.version} <{msg.message_id}>"
            continue
        if msg.subject.is_patch:
            continue
        under = _comments_under(msg.body, texts) if texts else None
        if under is not None and (_ASK_RE.search(under) or _is_review_comment(under)):
            # a reviewer who commented right under the line looked at it: the point is theirs to make
            return FindingState.RAISED, f"already commented on under the quoted code in <{msg.message_id}>"
        for para in re.split(r"\n\s*\n", own):
            para_low = " ".join(para.lower().split())
            if any(a in para_low for a in words.asks) and (
                any(w in para_low for w in words.topic) or any(n in para for n in names)
            ):
                return FindingState.RAISED, f"already asked in <{msg.message_id}>"
        if (
            names
            and words.topic
            and any(n in own for n in names)
            and any(w in low for w in words.topic)
            and _ASK_RE.search(own)
        ):
            return FindingState.RAISED, f"already raised in <{msg.message_id}>"
    return FindingState.OPEN, ""
