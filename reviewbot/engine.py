"""Run rules over a patch: isolate crashes, filter by level, fingerprint, sort.

* A rule that raises on one patch becomes a :class:`~reviewbot.models.RuleFailure`
  (with its traceback, logged at ERROR) and the run goes on with the next rule.
* CHECK-level findings are dropped unless ``ctx.strict`` (checkpatch's ``--strict``).
* Every finding gets a ``fingerprint``: a hash of the series key (the patch's
  normalised Subject title and author name, so it is the same for v1 and v2
  of a patch and across re-runs), the rule id, the path and the symbol. Two
  findings that would share one get ``#2``, ``#3``... in the order the rule
  reported them.
* Findings are sorted by (path or "", line or 0, rule id).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from reviewbot import lazyre
from reviewbot.lazylog import get_logger
from reviewbot.models import CheckReport, Finding, Patch, RuleFailure, Severity
from reviewbot.registry import LoadedRule
from reviewbot.rule import RuleContext
from reviewbot.view import PatchView

log = get_logger(__name__)  # loads logging only for a record kept (reviewbot.lazylog)

__all__ = ["check_patch", "series_key", "fingerprint"]

_WS_RE = lazyre.compile(r"\s+")


def series_key(patch: Patch) -> str:
    """``"<normalised title>\\x1f<author>"``: what stays the same from v1 to v2 of a patch.

    The title is the Subject without prefixes (``Re:``, ``[PATCH v2 3/7]``),
    lower-cased with whitespace collapsed and a trailing period removed; the
    author is the From name (the address when there is no name), lower-cased.
    """
    title = _WS_RE.sub(" ", patch.subject.title).strip().rstrip(".").lower()
    addr = patch.message.from_addr
    author = ""
    if addr is not None:
        author = (addr.name or addr.email.split("@")[0]).strip().lower()
    return f"{title}\x1f{author}"


def fingerprint(patch: Patch, finding: Finding, occurrence: int = 1) -> str:
    """A 20-hex-digit SHA-1 of (series key, rule id, path, symbol[, occurrence])."""
    return _fingerprint(series_key(patch), finding, occurrence)


def _fingerprint(key: str, finding: Finding, occurrence: int) -> str:
    """:func:`fingerprint` with the patch's :func:`series_key` worked out (once per patch, not per finding)."""
    import hashlib  # here: a clean patch has no finding to fingerprint, and loading it costs a few ms

    parts = [key, finding.rule_id, finding.path or "", finding.symbol]
    if occurrence > 1:
        parts.append(f"#{occurrence}")
    return hashlib.sha1("\x1e".join(parts).encode("utf-8")).hexdigest()[:20]


def _sort_key(f: Finding) -> tuple[str, int, str]:
    return (f.path or "", f.line or 0, f.rule_id)


def check_patch(patch: Patch, rules: Sequence[LoadedRule], ctx: RuleContext | None = None) -> CheckReport:
    """Run ``rules`` on ``patch`` and return the sorted, fingerprinted findings and any rule crashes."""
    ctx = ctx or RuleContext()
    if ctx.view is None or ctx.view.patch is not patch:  # the review gives one made with the context
        ctx = ctx.with_(view=PatchView(patch))  # the shared per-hunk work, done once for all rules
    findings: list[Finding] = []
    failures: list[RuleFailure] = []
    seen: dict[tuple[str, str, str], int] = {}
    key: str | None = None  # the patch's series key, for the fingerprints: made at its first finding
    for rule in rules:
        try:
            produced = list(rule.check(patch, ctx))
        except Exception as exc:  # a rule bug must not stop the run (issue 2)
            import traceback  # here: loaded only when a rule crashed

            tb = traceback.format_exc()
            log.error("rule %s crashed on %s: %s: %s", rule.id, patch.message_id or "(patch)", type(exc).__name__, exc)
            log.debug("%s", tb)
            failures.append(RuleFailure(rule.id, patch.message_id, f"{type(exc).__name__}: {exc}", tb))
            continue
        for finding in produced:
            if finding.severity is Severity.CHECK and not ctx.strict:
                continue
            same = (finding.rule_id, finding.path or "", finding.symbol)
            seen[same] = occurrence = seen.get(same, 0) + 1
            if key is None:
                key = series_key(patch)
            changes = {"fingerprint": _fingerprint(key, finding, occurrence)}
            if not finding.message_id and patch.message_id:
                changes["message_id"] = patch.message_id
            findings.append(replace(finding, **changes))  # one copy of the finding for both fields
    findings.sort(key=_sort_key)
    return CheckReport(patch=patch, findings=tuple(findings), failures=tuple(failures))
