"""RB102 drafts suggest the other side only where it fits the barrier quoted (issue 11 item 3): a read barrier
or acquire asks for the writer's smp_wmb()/release, a write barrier or release for the reader's
smp_rmb()/acquire; a full barrier gets no "(usually an smp_mb() or ...)" parenthesis, which lectured locking
maintainers and was wrong for a value published after init (review of the whole-mirror drafts, #18)."""

from __future__ import annotations

from pathlib import Path

from reviewbot.engine import check_patch
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.rule import RuleContext
from reviewbot.rules import rb102_barrier_pairing as rb102

PATCH = b"""\
From: Ada Example <ada@example.org>
To: linux-kernel@vger.kernel.org
Subject: [PATCH] foo: publish the number of lists
Date: Sat, 15 Mar 2025 10:00:00 +0100
Message-ID: <20250315090000.8888-1-ada@example.org>

Publish nr_foo_lists after the lists are set up.

Signed-off-by: Ada Example <ada@example.org>
---
diff --git a/lib/foo.c b/lib/foo.c
index 3333333..4444444 100644
--- a/lib/foo.c
+++ b/lib/foo.c
@@ -40,5 +40,6 @@
 static int __init foo_init(void)
 {
 \tnr_foo_lists = foo_count();
+\tsmp_mb();
 \treturn 0;
 }
"""


def _words(barrier: str, problem: str = "no-comment") -> str:
    patch = parse_patch(parse_rfc822(PATCH, "foo.patch"))
    details: dict[str, object] = {"barrier": barrier, "problem": problem, "smp": True}
    if problem == "comment-without-pairing":
        details["comment"] = "make the count visible"
    f = rb102.RULE.finding(patch, "m", path="lib/foo.c", line=43, details=details)
    return " ".join(rb102.reply_point([f], patch).split())


def test_a_full_barrier_gets_the_question_without_a_usual_other_side() -> None:
    for problem in ("no-comment", "comment-without-pairing"):
        text = _words("smp_mb", problem)
        assert "pairs with" in text
        assert "usually" not in text and "implied by an atomic" not in text and "(an smp_mb()" not in text


def test_a_read_barrier_still_names_the_writer_side() -> None:
    text = _words("smp_rmb")
    assert "pairs with (an smp_wmb() or smp_store_release() on the writer side), in which function" in text
    assert "usually" not in text


def test_a_write_barrier_names_the_reader_side_and_an_acquire_the_release() -> None:
    assert "(an smp_rmb() or smp_load_acquire() on the reader side)" in _words("smp_wmb")
    assert "(an smp_store_release() on the writer side)" in _words("smp_load_acquire")


EXAMPLES = Path(__file__).parent.parent / "rules" / "examples" / "RB102"


def _example(name: str):
    patch = parse_patch(parse_rfc822((EXAMPLES / name).read_bytes(), name))
    found = list(check_patch(patch, [rb102_rule()], RuleContext(strict=True)).findings)
    return found, " ".join(rb102.reply_point(found, patch).split()) if found else ""


def rb102_rule():
    return next(r for r in load_rules(entry_points=False) if r.meta.id == "RB102")


def test_a_block_comment_naming_the_other_function_narrows_the_question() -> None:
    # draft #20 of the whole-mirror review: "/* set it so io_req_local_work_add() would wake us up */" above
    # the if-block holding the smp_mb(): ask only which ordering in that function it pairs with
    found, text = _example("bad-block-comment-names-partner-only.patch")
    assert [(f.line, f.details.get("named_function")) for f in found] == [(27, "qux_work_add")]
    assert "names qux_work_add(). Could it also say which barrier or ordering in qux_work_add() this one" in text
    assert "in which function" not in text and "Could you add a comment" not in text


def test_a_block_comment_saying_what_it_pairs_with_is_the_barriers_comment() -> None:
    assert _example("good-block-comment-names-pair.patch") == ([], "")


def test_a_write_barrier_before_a_store_nothing_in_the_patch_reads_says_so() -> None:
    # draft #4 / finding #19 of the whole-mirror review: an smp_wmb() before min_vruntime_copy, read nowhere;
    # here the patch adds the member itself, so nothing outside it can read it
    found, text = _example("bad-write-barrier-store-nothing-reads.patch")
    assert [(f.line, f.details.get("unread")) for f in found] == [(18, "now_copy")]
    assert "Nothing in this patch reads now_copy, which the patch adds, so the smp_wmb() before the store" in text
    assert "I might be missing it" not in text and "Could you add a comment" not in text


def test_a_store_read_elsewhere_in_the_patch_or_declared_outside_it_keeps_the_question() -> None:
    assert _example("good-write-barrier-store-read-in-patch.patch") == ([], "")
    text = (EXAMPLES / "bad-write-barrier-store-nothing-reads.patch").read_bytes()
    outside = text.replace(b"+#ifndef CONFIG_64BIT\n+\tu64 now_copy;\n+#endif\n", b" \tu64 now_copy;\n")
    outside = outside.replace(b"@@ -4,5 +4,8 @@", b"@@ -4,6 +4,6 @@").replace(
        b"@@ -12,3 +15,7 @@", b"@@ -13,3 +13,7 @@"
    )
    patch = parse_patch(parse_rfc822(outside, "outside.patch"))
    found = list(check_patch(patch, [rb102_rule()], RuleContext(strict=True)).findings)
    assert [(f.line, f.details.get("unread")) for f in found] == [(16, None)]
    assert "Could you add a comment to the smp_wmb() here" in " ".join(rb102.reply_point(found, patch).split())


def test_a_release_through_a_plain_pointer_or_to_a_local_is_not_called_unread() -> None:
    # asm-generic ticket lock: smp_store_release(ptr, ...) with "u16 *ptr = ..." declared in the patch
    text = (EXAMPLES / "bad-write-barrier-store-nothing-reads.patch").read_bytes()
    local = text.replace(b"+\tu64 now_copy;\n", b"+\tu64 *now_copy = &c->now;\n").replace(
        b"+\tsmp_wmb();\n+\tc->now_copy = c->now;\n", b"+\tsmp_store_release(now_copy, c->now);\n+\tc->now++;\n"
    )
    patch = parse_patch(parse_rfc822(local, "local.patch"))
    found = list(check_patch(patch, [rb102_rule()], RuleContext(strict=True)).findings)
    assert found and all(f.details.get("unread") is None for f in found)
