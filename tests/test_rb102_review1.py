"""RB102 replies on the examples for the kinds of mistake a reviewer found on the whole LKML mirror
(rules/examples/RB102/): function names, invented pairs, "could not find the other side", and a
comment that already names the pair."""

from __future__ import annotations

import sys

import pytest

from reviewbot.engine import check_patch
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.rule import RuleContext

RULE = next(r for r in load_rules(entry_points=False) if r.id == "RB102")
MODULE = sys.modules[RULE.module_name]


def reply_for(name: str) -> tuple[list, str]:
    path = RULE.examples_dir / name
    patch = parse_patch(parse_rfc822(path.read_bytes(), str(path)))
    findings = list(check_patch(patch, [RULE], RuleContext(strict=True)).findings)
    return findings, " ".join(MODULE.reply_point(findings, patch).split())


def test_function_from_the_at_at_line_is_not_named() -> None:
    findings, text = reply_for("bad-function-opening-not-in-hunk.patch")
    assert [f.details["barrier"] for f in findings] == ["smp_wmb"]
    assert "foo_early" not in text
    assert "the smp_wmb() here" in text


def test_acquire_and_release_on_different_fields_are_no_pair() -> None:
    findings, text = reply_for("bad-acquire-release-on-different-fields.patch")
    assert sorted(f.details["barrier"] for f in findings) == ["smp_load_acquire", "smp_store_release"]
    assert "look like a pair" not in text
    assert "foo_peek()" not in text and "foo_publish()" not in text


def test_other_side_in_context_is_not_said_to_be_missing() -> None:
    findings, text = reply_for("bad-other-side-shown-in-context.patch")
    assert len(findings) == 1
    assert "could not find" not in text
    assert text.startswith("Could you add a comment to the smp_wmb() here")


def test_other_side_absent_is_still_said_to_be_missing() -> None:
    _, text = reply_for("bad-cond-load-acquire-is-a-barrier.patch")
    assert "I could not find the other side in the patch" in text


def test_comment_naming_the_pair_is_not_asked_for_again() -> None:
    findings, text = reply_for("bad-before-atomic-on-read-comment-names-pair.patch")
    assert [f.details["problem"] for f in findings] == ["not-after-rmw"]
    assert "Should this be smp_mb()" in text
    assert "say what it pairs with" not in text


@pytest.mark.parametrize(
    "name",
    [
        "good-cond-load-relaxed-orders-nothing.patch",
        "good-barrier-in-test-table.patch",
        "good-userspace-copy-of-ring.patch",
        "good-barrier-only-renamed.patch",
        "good-barrier-moved-with-its-comment.patch",
        "good-function-opening-not-in-hunk.patch",
    ],
)
def test_not_a_new_barrier_use(name: str) -> None:
    findings, _ = reply_for(name)
    assert findings == []


def test_barrier_type_change_is_still_checked_for_a_plain_access() -> None:
    findings, text = reply_for("bad-type-change-to-after-atomic-on-set.patch")
    assert [f.details["problem"] for f in findings] == ["not-after-rmw"]
    assert "atomic_set() is a plain store" in text


def test_the_same_point_at_two_places_is_one_paragraph() -> None:
    path = RULE.examples_dir / "bad-type-change-to-after-atomic-on-set.patch"
    patch = parse_patch(parse_rfc822(path.read_bytes(), str(path)))
    findings = list(check_patch(patch, [RULE], RuleContext(strict=True)).findings)
    text = MODULE.reply(findings * 2, patch)
    assert text.count("Documentation/atomic_t.txt") == 1


def test_pair_names_only_functions_whose_opening_the_hunk_shows() -> None:
    """The release sits in a function whose opening is above the hunk; the @@ text names foo_early(), an
    earlier function: the draft must not say the release is in foo_early()."""
    findings, text = reply_for("bad-pair-function-opening-not-in-hunk.patch")
    assert sorted(f.details["barrier"] for f in findings) == ["smp_load_acquire", "smp_store_release"]
    assert "foo_early" not in text
    assert "look like a pair" in text and "in foo_pop()" in text and "on r->tail" in text


def test_full_barrier_beside_an_implied_one_is_not_said_to_be_alone() -> None:
    """set_current_state() in the hunk implies a full barrier: it may be the other side."""
    findings, text = reply_for("bad-full-barrier-beside-implied-one.patch")
    assert [f.details["barrier"] for f in findings] == ["smp_mb"]
    assert "could not find" not in text and "the smp_mb() here" in text
