"""RB201 drafts a fresh maintainer would not send (30 drafts of a whole-archive run), fixed by kind.

Kind (a): the sentence is not this patch's speed claim: an optimisation imagined or offered to others ("As a
trivial optimization, X could use ..."), an optimisation argued harmless (a correctness argument), the cost of
the road not taken ("While the whole struct could be cleared by memset(), ... needless overhead"), work "in the
works". Each has a near miss that stays a claim. The sentences are our own, modelled on the drafts read.
"""

from __future__ import annotations

import pytest

from reviewbot.rules import rb201_perf_claim as rb201


@pytest.mark.parametrize(
    "text",
    [
        "As a cheap optimization, the get side could use a relaxed increment on architectures that have one.",
        "Larger optimizations are in the works.",
        "qux_time_data is not cacheline aligned at the moment.",
        "Doing any of these optimizations while keeping the full barrier would complicate the code.",
        "Add an explicit smp_mb() and allow architectures to override it as an optimization if they want to.",
        "For the ready bit this optimization is likely harmless because the bit is never read right after it "
        "was written.",
        "While the whole request could be cleared with memset(), the payload is large enough that this would "
        "cause needless overhead when the free list runs dry.",
    ],
)
def test_not_this_patchs_claim(text: str) -> None:
    assert rb201.find_claim(text) is None


@pytest.mark.parametrize(
    ("text", "claim"),
    [
        ("As an optimization, test the queue length locklessly before taking the lock.", "optimization"),
        ("This is a small optimization that can save a few cycles per call.", "optimization"),
        ("While at it, reduce the overhead of the lookup.", "reduce the overhead"),
        ("This optimization is safe and makes the lookup faster.", "faster"),
        ("Clearing the whole request causes needless overhead, so clear only the header.", "needless overhead"),
    ],
)
def test_near_misses_stay_claims(text: str, claim: str) -> None:
    found = rb201.find_claim(text)
    assert found is not None and found.text == claim


# Kind (b): "optimize X" only in the subject of a small change whose changelog names no speed or cost is a CHECK
# (the word may mean tidy; the labelled sets leave most such patches out or label them 0) and not asked; a speed
# word in the changelog ("a cheaper copy", "overhead") keeps the WARNING; an author calling the gain marginal
# still claims one.
from pathlib import Path  # noqa: E402

from reviewbot.engine import check_patch  # noqa: E402
from reviewbot.models import Severity  # noqa: E402
from reviewbot.parse.mail import parse_rfc822  # noqa: E402
from reviewbot.parse.patch import parse_patch  # noqa: E402
from reviewbot.registry import load_rules  # noqa: E402
from reviewbot.rule import RuleContext  # noqa: E402

_RULE = next(r for r in load_rules(entry_points=False) if r.id == "RB201")


def _findings(name: str, *, strict: bool = True) -> list:
    path = Path(_RULE.examples_dir) / name
    patch = parse_patch(parse_rfc822(path.read_bytes(), str(path)))
    return list(check_patch(patch, [_RULE], RuleContext(strict=strict)).findings)


@pytest.mark.parametrize(
    ("name", "severity"),
    [
        ("bad-subject-only-optimize-check.patch", Severity.CHECK),
        ("bad-subject-only-claim.patch", Severity.CHECK),
        ("bad-subject-optimize-cheaper.patch", Severity.WARNING),
        ("bad-speed-up.patch", Severity.WARNING),
    ],
)
def test_subject_only_optimize_is_a_check(name: str, severity: Severity) -> None:
    findings = _findings(name)
    assert [f.severity for f in findings] == [severity]
    assert len(_findings(name, strict=False)) == (0 if severity is Severity.CHECK else 1)


def test_author_calls_the_gain_marginal() -> None:
    assert [f.severity for f in _findings("bad-limited-gain.patch")] == [Severity.CHECK]  # "optimize" only


# Kind (c): the words of the draft. perf c2c only where cache lines are contended; a field moved into the first
# cache line touches fewer lines; a claim said only in the subject quotes the changelog's reason when it has one.
from test_rb201_reply import _reply  # noqa: E402


def test_a_field_moved_into_the_first_cache_line_gets_no_perf_c2c() -> None:
    text = _reply(
        "[PATCH] qux: move qux_inode into the first cacheline of qux_dev",
        """
The .qux_inode field is used in the I/O fast path of qux_write_iter(), so it is
more efficient to keep it in the first cacheline.
""",
        path="block/qux.c",
    )
    assert "perf c2c" not in text and "contended" not in text
    assert "cache misses before and after" in text


def test_false_sharing_still_gets_perf_c2c() -> None:
    text = _reply(
        "[PATCH] qux: move the counters apart",
        """
Put the producer and consumer counters on separate cache lines to stop
false sharing between the two CPUs.
""",
    )
    assert "perf c2c" in text


def test_subject_only_claim_quotes_the_changelogs_reason() -> None:
    text = _reply(
        "[PATCH] qux: optimize qux_send_many()",
        """
The function is mostly called with the online mask, and then a cheaper
copy of the mask does instead of an intersection.
""",
    )
    assert text.startswith(
        'The changelog says "The function is mostly called with the online mask, and then a '
        'cheaper copy of the mask does instead of an intersection"'
    )
    assert "The subject says" not in text
