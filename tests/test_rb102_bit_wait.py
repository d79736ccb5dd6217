"""RB102 on acquire-like bit primitives (issue 10 RB102, /work/tools/review3.md): a read barrier or acquire
right after a bit test (wait_on_bit(), buffer_locked()) is still asked about, but the draft names the usual
other side, the clear_bit_unlock() that releases the bit, not "an smp_wmb() on the writer side"; the
clear_bit_unlock() + smp_mb__after_atomic() + wake_up_bit() idiom is kept but not asked."""

from __future__ import annotations

import sys

from reviewbot.engine import check_patch
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.rule import RuleContext

RULE = next(r for r in load_rules(entry_points=False) if r.id == "RB102")
MODULE = sys.modules[RULE.module_name]
BAD = RULE.examples_dir / "bad-read-barrier-after-bit-test.patch"


def run(text: bytes) -> tuple[list, str]:
    patch = parse_patch(parse_rfc822(text, "bit.patch"))
    found = list(check_patch(patch, [RULE], RuleContext(strict=True)).findings)
    return found, " ".join(MODULE.reply_point(found, patch).split()) if found else ""


def test_read_barrier_after_a_bit_test_names_the_bit_release() -> None:
    found, text = run(BAD.read_bytes())
    assert [(f.line, f.details.get("bit_test")) for f in found] == [(43, True)]
    assert "(the clear_bit_unlock() that releases the bit" in text
    assert "smp_wmb() or smp_store_release()" not in text


def test_read_barrier_after_a_plain_load_keeps_the_usual_suggestion() -> None:
    text = BAD.read_bytes().replace(b"if (!test_bit(ZED_BUSY, &zd->flags)) {", b"if (!READ_ONCE(zd->busy)) {")
    found, words = run(text)
    assert [(f.line, f.details.get("bit_test")) for f in found] == [(43, None)]
    assert "(an smp_wmb() or smp_store_release() on the writer side)" in words


def test_unlock_idiom_before_wake_up_bit_is_kept_but_not_asked() -> None:
    # the waker's side of the same wait, written as wake_up_bit()'s kernel-doc shows it
    text = BAD.read_bytes().replace(
        b"+\tif (!test_bit(ZED_BUSY, &zd->flags)) {\n+\t\tsmp_rmb();\n \t\treturn 0;\n+\t}\n",
        b"+\tif (!test_bit(ZED_BUSY, &zd->flags)) {\n+\t\tclear_bit_unlock(ZED_BUSY, &zd->flags);\n"
        b"+\t\tsmp_mb__after_atomic();\n+\t\twake_up_bit(&zd->flags, ZED_BUSY);\n \t\treturn 0;\n+\t}\n",
    )
    assert b"clear_bit_unlock" in text
    text = text.replace(b"@@ -40,7 +40,9 @@", b"@@ -40,7 +40,11 @@")
    [f] = run(text)[0]  # its own comment names no pair (the labels count it); wake_up_bit()'s kernel-doc does
    assert f.details["barrier"] == "smp_mb__after_atomic"
    assert f.not_asked == (
        "the smp_mb__after_atomic() between clear_bit_unlock() and wake_up_bit() is the pattern wake_up_bit()'s "
        "documentation gives: its other side is the waiter's check"
    )


def test_read_barrier_after_a_bit_seen_set_is_not_a_bit_wait() -> None:
    # "if (test_bit(DONE)) smp_rmb();" pairs with whatever sets the bit (an smp_wmb() before set_bit()),
    # not with a clear_bit_unlock()
    text = BAD.read_bytes().replace(
        b"+\tif (!test_bit(ZED_BUSY, &zd->flags)) {", b"+\tif (test_bit(ZED_DONE, &zd->flags)) {"
    )
    found, words = run(text)
    assert [(f.line, f.details.get("bit_test")) for f in found] == [(43, None)]
    assert "clear_bit_unlock" not in words
