"""RB102 where the patch text names the other side without a "pairs with" on the barrier itself: a note
above the statement before the barrier that names its object and points to a function (io_uring poll's
"head is RCU protected, see io_poll_remove_entries() comments"), and rings shared with userspace."""

from __future__ import annotations

import sys

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
        b"/* queue is RCU protected, see", b"/* entries are RCU protected, see"
    )
    assert [(f.line, f.details["barrier"]) for f in findings(text)] == [(130, "smp_load_acquire")]


def _wording(text: bytes) -> tuple[list, str]:
    module = sys.modules[RULE.module_name]
    patch = parse_patch(parse_rfc822(text, "ring.patch"))
    found = list(check_patch(patch, [RULE], RuleContext(strict=True)).findings)
    return found, module.reply_point(found, patch)


def test_userspace_ring_index_names_the_application_as_the_other_side() -> None:
    found, text = _wording(example("bad-userspace-ring-index.patch"))
    assert [(f.line, f.details.get("ring_index")) for f in found] == [(148, "br->tail")]
    assert "could not find" not in text
    assert "the smp_load_acquire() on br->tail pairs with the application" in text
    assert "Pairs with the application's store-release of the tail" in text


def test_the_same_index_outside_io_uring_is_not_taken_for_a_userspace_ring() -> None:
    # a driver's own ring called br is kernel memory: the usual question, the other side not named
    text = example("bad-userspace-ring-index.patch").replace(b"io_uring/kbuf.c", b"drivers/zed/kbuf.c")
    found, words = _wording(text)
    assert [(f.path, f.line, f.details.get("ring_index")) for f in found] == [("drivers/zed/kbuf.c", 148, None)]
    assert "application" not in words
    assert "I could not find the other side in the patch" in words
