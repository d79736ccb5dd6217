"""RB102: an acquire (or read barrier) whose comment names the store it waits for ("wait for the
PG_mte_tagged flag to be set", evalset-extra DX007) names its other side; other barriers still need a pair."""

from __future__ import annotations

from reviewbot.engine import check_patch
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.rule import RuleContext

RULE = next(r for r in load_rules(entry_points=False) if r.id == "RB102")
GOOD = RULE.examples_dir / "good-acquire-comment-names-awaited-store.patch"


def findings(text: bytes) -> list:
    patch = parse_patch(parse_rfc822(text, "awaited.patch"))
    return list(check_patch(patch, [RULE], RuleContext(strict=True)).findings)


def test_acquire_naming_the_bit_it_waits_for_is_enough() -> None:
    assert findings(GOOD.read_bytes()) == []


def test_full_barrier_with_the_same_comment_still_asks_for_its_pair() -> None:
    # a full barrier orders both ways: "wait for X to be set" does not say what it pairs with
    text = GOOD.read_bytes().replace(b"smp_cond_load_acquire(&slot->flags, VAL & BIT(ZED_SLOT_READY));", b"smp_mb();")
    assert [(f.line, f.details["barrier"], f.details["problem"]) for f in findings(text)] == [
        (46, "smp_mb", "comment-without-pairing")
    ]


def test_acquire_waiting_for_an_unnamed_flag_is_asked_about() -> None:
    # the same sentence without the code name of the flag names no store
    text = GOOD.read_bytes().replace(b"the ZED_SLOT_READY bit to be set", b"the ready bit to be set")
    assert [(f.line, f.details["barrier"]) for f in findings(text)] == [(46, "smp_cond_load_acquire")]
