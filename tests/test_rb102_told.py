"""RB102: a pairing comment at the other end, in this patch or another patch of the series (stream RB102 of
the draft quality round): the draft names that side instead of asking an open question, and a barrier
whose function is named there and that says why it is there is kept but not asked."""

from __future__ import annotations

import sys

from reviewbot.engine import check_patch
from reviewbot.models import Series
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.rule import RuleContext

RULE = next(r for r in load_rules(entry_points=False) if r.id == "RB102")
MODULE = sys.modules[RULE.module_name]
NAMED = RULE.examples_dir / "bad-pair-named-at-other-end-by-function.patch"


def _patch(text: str):
    return parse_patch(parse_rfc822(text.encode(), "test"))


def _check(patch, ctx: RuleContext | None = None) -> tuple[list, str]:
    findings = list(check_patch(patch, [RULE], ctx or RuleContext(strict=True)).findings)
    return findings, " ".join(MODULE.reply_point(findings, patch).split())


def test_function_named_at_other_end_and_reason_here_is_kept_but_not_asked() -> None:
    findings, _ = _check(_patch(NAMED.read_text()))
    # each barrier's own comment names no pair (the labels count them); the smp_rmb() names their function
    assert [f.details["barrier"] for f in findings] == ["smp_mb__before_atomic", "smp_mb__after_atomic"]
    assert all(
        f.not_asked
        == (
            f"the smp_rmb() in zork_get_job_status says it pairs with zork_set_job_status, and this "
            f"{f.details['barrier']}() says why it is there: the pair is in plain view"
        )
        for f in findings
    )


def test_function_named_at_other_end_without_comment_here_names_that_side() -> None:
    text = (
        NAMED.read_text()
        .replace("+\t/*\n+\t * Kept from the first version, which used a plain compare-and-swap\n", "")
        .replace("+\t * that did not order the job's other fields.\n+\t */\n", "")
        .replace("+\t/* and the same after it */\n", "")
        .replace("@@ -40,3 +40,26 @@", "@@ -40,3 +40,21 @@")
    )
    findings, reply = _check(_patch(text))
    assert sorted(f.details["barrier"] for f in findings) == ["smp_mb__after_atomic", "smp_mb__before_atomic"]
    assert all(f.details["told"]["function"] == "zork_get_job_status" for f in findings)
    assert reply == (
        'The smp_rmb() in zork_get_job_status() says "pairs with the cmpxchg in zork_set_job_status", so I take '
        "it the smp_mb__after_atomic() and smp_mb__before_atomic() here are its other side. Could the comments "
        'here say so too, e.g. "Pairs with the smp_rmb() in zork_get_job_status()", so the pair can be found '
        "from either end?"
    )
    assert "could not find" not in reply


READER = """From 3333333333333333333333333333333333333333 Mon Sep 17 00:00:00 2001
From: Ada Example <ada@example.org>
Date: Tue, 2 Dec 2025 10:00:00 +0100
Subject: [PATCH 1/2] zork: add the device state accessor
Message-ID: <zork-1@example.org>

Signed-off-by: Ada Example <ada@example.org>
---
diff --git a/drivers/zork/state.c b/drivers/zork/state.c
index 1234567..89abcde 100644
--- a/drivers/zork/state.c
+++ b/drivers/zork/state.c
@@ -10,3 +10,11 @@ struct zork {
 	atomic_t state;
 };
\x20
+enum zork_state zork_get_state(const struct zork *zork)
+{
+	enum zork_state state = atomic_read(&zork->state);
+
+	/* pairs with barriers where the state field is changed */
+	smp_rmb();
+	return state;
+}
--\x20
2.43.0
"""

WRITER = """From 4444444444444444444444444444444444444444 Mon Sep 17 00:00:00 2001
From: Ada Example <ada@example.org>
Date: Tue, 2 Dec 2025 10:00:00 +0100
Subject: [PATCH 2/2] zork: leave recovery when the allocator is done
Message-ID: <zork-2@example.org>

Signed-off-by: Ada Example <ada@example.org>
---
diff --git a/drivers/zork/alloc.c b/drivers/zork/alloc.c
index 1234567..89abcde 100644
--- a/drivers/zork/alloc.c
+++ b/drivers/zork/alloc.c
@@ -80,3 +80,10 @@ static void zork_alloc_done(struct zork_alloc *alloc)
 {
 	int old;
\x20
+	old = atomic_cmpxchg(&alloc->dev->zork->state, ZORK_RECOVERING, ZORK_DIRTY);
+	/*
+	 * Even if the exchange failed, make sure what follows is ordered
+	 * with respect to whichever change did happen.
+	 */
+	smp_mb__after_atomic();
+	zork_wake(alloc->dev->zork, old);
--\x20
2.43.0
"""


def test_field_named_in_another_patch_of_the_series_is_asked_about() -> None:
    reader, writer = _patch(READER), _patch(WRITER)
    series = Series(version=1, total=2, cover=None, patches=(reader, writer))
    findings, reply = _check(writer, RuleContext(strict=True, series=series))
    assert [f.details["barrier"] for f in findings] == ["smp_mb__after_atomic"]
    assert findings[0].details["told"]["by"] == "field"
    assert reply == (
        'The smp_rmb() in zork_get_state() (patch 1/2) says "pairs with barriers where the state field is '
        'changed". Is the smp_mb__after_atomic() here one of them? If so, could its comment say so, e.g. '
        '"Pairs with the smp_rmb() in zork_get_state()"?'
    )


def test_without_the_series_the_question_stays_open() -> None:
    findings, reply = _check(_patch(WRITER))
    assert [f.details["barrier"] for f in findings] == ["smp_mb__after_atomic"]
    assert "told" not in findings[0].details
    assert "zork_get_state" not in reply and "says why a barrier is wanted" in reply


def test_a_comment_naming_another_function_is_not_taken_for_this_one() -> None:
    """ "pairs with barrier in zork_get_state" on a writer names its own other side: not this barrier."""
    reader = _patch(
        READER.replace("/* pairs with barriers where the state field is changed */", "/* pairs with zork_put() */")
    )
    writer = _patch(WRITER)
    series = Series(version=1, total=2, cover=None, patches=(reader, writer))
    findings, reply = _check(writer, RuleContext(strict=True, series=series))
    assert "told" not in findings[0].details and "zork_get_state" not in reply


def test_another_struct_with_a_member_of_that_name_is_not_that_field() -> None:
    """``alloc->lock_counter.state`` is not ``zork->state``: the comment names no function, so the field must
    match by its last two names."""
    reader, writer = _patch(READER), _patch(WRITER.replace("alloc->dev->zork->state", "alloc->lock_counter.state"))
    series = Series(version=1, total=2, cover=None, patches=(reader, writer))
    findings, reply = _check(writer, RuleContext(strict=True, series=series))
    assert [f.details["barrier"] for f in findings] == ["smp_mb__after_atomic"]
    assert "told" not in findings[0].details and "zork_get_state" not in reply


def test_acquire_against_a_cmpxchg_on_the_same_object_names_it() -> None:
    """zstack_pop()'s smp_load_acquire(&stack->top) pairs with the cmpxchg() of zstack_push(): the draft names
    it rather than "I could not find the other side"; the try_cmpxchg() of its own function is not the
    other side, and a conditional store is named before the xchg() that takes the whole stack."""
    findings, reply = _check(_patch((RULE.examples_dir / "bad-acquire-against-rmw-in-patch.patch").read_text()))
    assert [f.details["barrier"] for f in findings] == ["smp_load_acquire"]
    assert reply == (
        "I think the smp_load_acquire() in zstack_pop() pairs with the cmpxchg() on stack->top in zstack_push(), "
        "which this patch adds too (a fully ordered atomic). Could its comment say so, e.g. "
        '"Pairs with the cmpxchg() in zstack_push()", and what ordering it provides?'
    )


SECOND_WRITER = """@@ -90,6 +88,6 @@ static ssize_t zed_file_write(struct file *file, const char __user *buf,
 \tif (IS_ERR(new))
 \t\treturn PTR_ERR(new);
\x20
-\trcu_assign_pointer(seq->private, new);
+\tsmp_store_release(&seq->private, new);
 \tmutex_unlock(&seq->lock);
 \treturn nbytes;
"""


def test_second_writer_is_asked_about_the_one_reader_not_told_the_same_twice() -> None:
    """Two stores published with smp_store_release() and one smp_load_acquire() through a pointer parameter:
    the one the field match pairs is named as a pair; for the other, the draft asks whether it pairs with
    that same reader (the only read-side barrier of the patch), instead of repeating the general request."""
    path = RULE.examples_dir / "bad-release-through-pointer-parameter.patch"
    text = path.read_text().replace("-- \n2.43.0", SECOND_WRITER + "-- \n2.43.0")
    findings, reply = _check(_patch(text))
    assert sorted(f.details["barrier"] for f in findings) == ["smp_load_acquire", "smp_store_release"] + [
        "smp_store_release"
    ]
    assert "look like a pair" in reply
    assert (
        "Does the smp_store_release() in zed_file_write() pair with the smp_load_acquire() in zed_trigger_poll() "
        "too? That is the only acquire this patch adds."
    ) in reply
    assert "Could you add a comment to" not in reply and "could not find" not in reply


def test_kernel_idiom_names_its_usual_other_side() -> None:
    """clear_thread_flag(TIF_NOTIFY_*); smp_mb__after_atomic(); task_works check: the draft says which idiom
    it copies and which side it pairs with (KNOWN_PAIRINGS), not an open question."""
    findings, reply = _check(_patch((RULE.examples_dir / "bad-known-idiom-notify-flag.patch").read_text()))
    assert [f.details["barrier"] for f in findings] == ["smp_mb__after_atomic"]
    assert reply.startswith(
        "The smp_mb__after_atomic() here looks like the clear-flag / smp_mb__after_atomic() / task_works check of "
        "tracehook_notify_resume()"
    )
    assert "That barrier pairs with task_work_add(), which queues the work and then sets the flag" in reply
    assert "Could you add a comment" not in reply


FUTEX = """From 9999999999999999999999999999999999999999 Mon Sep 17 00:00:00 2001
From: Ada Example <ada@example.org>
Date: Tue, 2 Dec 2025 15:00:00 +0100
Subject: [PATCH] zring: wake a vectored futex wait

Signed-off-by: Ada Example <ada@example.org>
---
diff --git a/io/zfutex.c b/io/zfutex.c
index 1234567..89abcde 100644
--- a/io/zfutex.c
+++ b/io/zfutex.c
@@ -30,3 +30,9 @@ struct zfutex {
 \tstruct futex_q q;
 };
\x20
+static void zfutex_wake_fn(struct wake_q_head *wake_q, struct futex_q *q)
+{
+\t__futex_unqueue(q);
+\tsmp_store_release(&q->lock_ptr, NULL);
+\tzfutex_complete(q->wake_data);
+}
--\x20
2.43.0
"""


def test_futex_unqueue_release_names_the_lock_ptr_reader_not_a_load_acquire() -> None:
    findings, reply = _check(_patch(FUTEX))
    assert [f.details["barrier"] for f in findings] == ["smp_store_release"]
    assert "futex_wake_mark()" in reply and "the lock_ptr read in futex_unqueue()" in reply
    assert "smp_load_acquire() on the reader side" not in reply and "could not find" not in reply


def test_quote_in_a_rewritten_region_leaves_out_the_old_lines_beside_the_barrier() -> None:
    """A large region rewritten in one hunk (dm-vdo 27/39): the diff interleaves the old loop with the new
    barrier in a short change block; the excerpt shows the barrier, its comment and its atomic, not the
    unrelated removed lines in between."""
    from reviewbot.respond.quote import quote_hunk_lines

    body = [f"-\told_statement_{k}();" for k in range(30)] + [f"+\tnew_statement_{k}();" for k in range(30)]
    body += [
        "+\tprior = atomic_cmpxchg(&alloc->depot->zork->state, ZORK_RECOVERING, ZORK_DIRTY);",
        "\x20",
        "-\tif (depot->old_zone_count > 1) {",
        "-\t\tslab_count_t entry_number;",
        "+\t/*",
        "+\t * Order what follows against the state change.",
        "+\t */",
        "+\tsmp_mb__after_atomic();",
        "\x20",
        "-\t\tfor (entry_number = 0; entry_number < MAX_SLABS; entry_number++) {",
        "+\tzork_done(zork);",
    ]
    n_old = sum(1 for b in body if not b.startswith("+"))
    n_new = sum(1 for b in body if not b.startswith("-"))
    text = (
        "From 1 Mon Sep 17 00:00:00 2001\nFrom: Ada Example <ada@example.org>\nDate: Tue, 2 Dec 2025 16:00:00 +0100\n"
        "Subject: [PATCH] zork: rewrite\n\nSigned-off-by: Ada Example <ada@example.org>\n---\n"
        "diff --git a/drivers/zork/a.c b/drivers/zork/a.c\n--- a/drivers/zork/a.c\n+++ b/drivers/zork/a.c\n"
        f"@@ -1,{n_old} +1,{n_new} @@ static void zork(void)\n" + "\n".join(body) + "\n--\x20\n2.43.0\n"
    )
    hunk = _patch(text).files[0].hunks[0]
    barrier = next(dl.new_no for dl in hunk.lines if "smp_mb__after_atomic" in dl.text)
    quoted = quote_hunk_lines(hunk, [barrier])
    assert "> +\tsmp_mb__after_atomic();" in quoted and "> +\t * Order what follows against the state change." in quoted
    assert "> +\tprior = atomic_cmpxchg(&alloc->depot->zork->state, ZORK_RECOVERING, ZORK_DIRTY);" in quoted
    assert not any(line.startswith("> -") for line in quoted), "\n".join(quoted)
