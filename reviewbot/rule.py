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

Numbering: RB1xx look at the diff, RB2xx at the commit message and thread,
RB3xx at series and process.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping, Protocol, Sequence

from reviewbot.models import Finding, FindingState, Hunk, Message, Patch, Series, Severity

__all__ = [
    "DOC_HEADINGS",
    "RuleContext",
    "RuleMeta",
    "RuleModule",
    "Scope",
    "Severity",
    "Finding",
    "FindingState",
]

ID_RE = re.compile(r"^RB[0-9]{3}$")
NAME_RE = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)+$")
DOC_HEADINGS = ("What it does", "Why it matters", "Example", "Use instead", "Known limits", "References")


class Scope(str, enum.Enum):
    """What a rule looks at: the diff's hunks, the whole patch mail, or the series."""

    HUNK = "hunk"
    PATCH = "patch"
    SERIES = "series"


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class RuleContext:
    """What a rule may know beyond the patch itself. Read-only; built by the engine.

    * ``strict``: CHECK-level findings are wanted (``--strict``).
    * ``series``: the series the patch belongs to, when known.
    * ``cover``: the series' cover letter (0/N), when known.
    * ``thread``: the other messages of the patch's thread in arrival order
      (replies, the author's answers), when known; empty for a local check.
    * ``earlier``: earlier versions of this patch, when known.
    * ``options``: per-rule options from configuration.
    """

    strict: bool = False
    series: Series | None = None
    cover: Patch | None = None
    thread: tuple[Message, ...] = ()
    earlier: tuple[Patch, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)

    def with_(self, **changes: Any) -> "RuleContext":
        """A copy with some fields replaced."""
        return replace(self, **changes)


class RuleModule(Protocol):
    """The shape of a rule module, as the registry checks it."""

    RULE: RuleMeta

    def check(self, patch: Patch, ctx: RuleContext) -> Iterable[Finding]: ...

    def reply(self, findings: Sequence[Finding], patch: Patch) -> str: ...
