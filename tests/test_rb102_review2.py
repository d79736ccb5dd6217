"""RB102 on the kinds a second reviewer found on the whole LKML mirror (/work/tools/review2.md): a lock's own
acquire/release, acquire primitives in the bitops headers, a write barrier before an MMIO write, template
placeholders in replies, a comment that is a question, and two smp_mb() ordering one flag."""

from __future__ import annotations

import re
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


@pytest.mark.parametrize(
    "name",
    [
        "good-lock-own-acquire-release.patch",
        "good-lock-unlock-release.patch",
        "good-bitops-acquire-primitive.patch",
        "good-smp-wmb-before-mmio-write-paired.patch",
        "good-comment-question-names-pair.patch",
        "good-two-full-barriers-named.patch",
    ],
)
def test_quiet_on_the_lock_the_primitive_and_the_device_write(name: str) -> None:
    findings, _ = reply_for(name)
    assert findings == []


def test_other_barriers_in_a_lock_implementation_stay_checked() -> None:
    findings, text = reply_for("bad-lock-slowpath-full-barrier.patch")
    assert [(f.details["barrier"], f.line) for f in findings] == [("smp_mb", 25)]
    assert "smp_mb() here" in text


def test_acquire_outside_the_primitive_headers_is_a_use() -> None:
    findings, _ = reply_for("bad-bitops-user-acquire.patch")
    assert [f.details["barrier"] for f in findings] == ["smp_load_acquire"]


def test_smp_wmb_before_mmio_write_gets_a_device_note_not_a_pairing_question() -> None:
    findings, text = reply_for("bad-smp-wmb-before-mmio-write.patch")
    assert [(f.details["problem"], f.details["mmio"], f.details["relaxed"]) for f in findings] == [
        ("before-mmio-write", "foo_writel", False),
        ("before-mmio-write", "writel_relaxed", True),
    ]
    assert "writel() already orders earlier memory writes" in text
    assert "should this be wmb() (or dma_wmb())?" in text
    assert "saying what it pairs with and what ordering" not in text and "an smp_rmb()" not in text


def test_device_barrier_before_mmio_write_is_still_asked_what_it_orders() -> None:
    findings, text = reply_for("bad-device-barrier-names-nothing.patch")
    assert [(f.details["barrier"], f.details["problem"]) for f in findings] == [("wmb", "comment-without-pairing")]
    assert "pairs with" not in text


def test_write_barrier_before_a_plain_store_is_asked_about_in_words() -> None:
    findings, text = reply_for("bad-wmb-before-plain-store.patch")
    assert [f.details["barrier"] for f in findings] == ["smp_wmb"]
    assert "which barrier or operation on the other side it pairs with" in text
    assert "smp_rmb() or smp_load_acquire() on the reader side" in text


def test_no_bad_example_reply_carries_a_placeholder() -> None:
    for path in sorted(RULE.examples_dir.glob("bad-*.patch")):
        findings, text = reply_for(path.name)
        assert findings, path.name
        assert not re.search(r"<[\w ]+>\(\)|\bfoo\(\)", text), (path.name, text)


def test_question_comment_is_not_taken_for_an_explanation() -> None:
    findings, text = reply_for("bad-comment-is-a-question.patch")
    assert [f.details.get("doubt") for f in findings] == [True]
    assert "says why a barrier is wanted" not in text
    assert "hmmm? del_rcu followed by add_rcu?" in text and "Is the barrier needed?" in text


def test_two_full_barriers_around_one_flag_are_called_a_pair() -> None:
    findings, text = reply_for("bad-two-full-barriers-one-flag.patch")
    assert [f.line for f in findings] == [304]
    assert "smp_mb() at line 413 and the smp_mb() at line 304 look like a pair" in text
    assert "foo_is_reboot is stored before the first and read after the second" in text
    assert "matching barrier" not in text


def test_two_full_barriers_without_a_shared_variable_are_no_pair() -> None:
    path = RULE.examples_dir / "bad-two-full-barriers-one-flag.patch"
    raw = path.read_bytes().replace(b"\tif (foo_is_reboot)", b"\tif (foo_other_flag)")
    patch = parse_patch(parse_rfc822(raw, str(path)))
    findings = list(check_patch(patch, [RULE], RuleContext(strict=True)).findings)
    text = " ".join(MODULE.reply_point(findings, patch).split())
    assert findings and "look like a pair" not in text
