"""RB102 drafts suggest the other side only where it fits the barrier quoted (issue 11 item 3): a read barrier
or acquire asks for the writer's smp_wmb()/release, a write barrier or release for the reader's
smp_rmb()/acquire; a full barrier gets no "(usually an smp_mb() or ...)" parenthesis, which lectured locking
maintainers and was wrong for a value published after init (review of the whole-mirror drafts, #18)."""

from __future__ import annotations

from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
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
