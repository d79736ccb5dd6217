"""RB102 where the patch text names the other side without a "pairs with" on the barrier itself: a note
above the statement before the barrier that names its object and points to a function (io_uring poll's
"head is RCU protected, see io_poll_remove_entries() comments"), and rings shared with userspace."""

from __future__ import annotations

from reviewbot.engine import check_patch
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.rule import RuleContext

RULE = next(r for r in load_rules(entry_points=False) if r.id == "RB102")


def findings(text: bytes, name: str = "x.patch") -> list:
    patch = parse_patch(parse_rfc822(text, name))
    return list(check_patch(patch, [RULE], RuleContext(strict=True)).findings)


def example(name: str) -> bytes:
    return (RULE.examples_dir / name).read_bytes()


def test_note_naming_the_object_and_a_function_is_the_pairing_note() -> None:
    assert findings(example("good-note-above-statement-names-the-object.patch")) == []


def test_note_about_another_object_does_not_document_this_barrier() -> None:
    # the same "see zed_remove_entries() comments" about the entries, not about the queue the barrier loads
    text = example("good-note-above-statement-names-the-object.patch").replace(
        b"/* queue is RCU protected, see", b"/* entries are RCU protected, see")
    assert [(f.line, f.details["barrier"]) for f in findings(text)] == [(130, "smp_load_acquire")]
