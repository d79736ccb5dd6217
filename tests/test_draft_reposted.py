"""Issue 11: a finding on a diff the author re-posted in the thread is judged on the newest diff.

An author often answers a review with the diff again in a reply ("The diff
again, with one:"). The rules run again on that diff: a point it fixed gets no
draft; a point still there is answered on the re-posted diff (In-Reply-To the
author's reply, its hunk quoted). A fix-up to fold in on top (its old side holds
lines the patch added) is no new version: the draft stays on the patch.

Threads: ``tests/data/threads/barrier-*.mbox`` (the barrier patch of
``barrier.mbox`` with an author's reply written for these tests), and a real
one of the mirror: "[PATCH] io_uring: fix memory ordering when SQPOLL thread
goes to sleep" (linux-kernel 2022/03/06/1-4), where the author re-posted the
diff with the same smp_mb() comment.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewbot.engine import check_patch
from reviewbot.fetch.openwall import parse_message_page
from reviewbot.parse.mail import parse_message
from reviewbot.parse.patch import parse_patch
from reviewbot.respond.runner import SKIP_REPOSTED, draft_pending, replaces_diff
from reviewbot.rule import RuleContext
from reviewbot.store import Store
from helpers import FIXED_NOW, IDENTITY, LIST_ADDRESS, THREADS, load_thread, read_mbox_messages, draft_fixed

PATCH_ID = "20250312090000.2222-1-ada@example.org"


@pytest.fixture(scope="module")
def rules():
    from reviewbot.registry import load_rules

    return load_rules(entry_points=False)


def _run(tmp_path: Path, rules, messages):
    with Store(tmp_path / "db.sqlite") as store:
        found = load_thread(store, messages, rules)
        assert [f.rule_id for f in found[PATCH_ID]] == ["RB102"]  # smp_wmb() without a comment
        summary = draft_fixed(store, rules, tmp_path / "outbox")
        skips = store.conn.execute("SELECT state, reason FROM draft_skips").fetchall()
    return summary, [tuple(s) for s in skips]


def test_a_point_the_re_posted_diff_fixed_gets_no_draft(tmp_path: Path, rules) -> None:
    msgs = read_mbox_messages(THREADS / "barrier-reposted-fixed.mbox")
    summary, skips = _run(tmp_path, rules, msgs)
    assert summary.written == [] and summary.superseded == 1
    assert skips == [
        (
            SKIP_REPOSTED,
            "RB102 finds nothing there in the diff the author re-posted in <20250312170000.3333-1-ada@example.org>",
        )
    ]


def test_a_point_still_in_the_re_posted_diff_is_answered_there(tmp_path: Path, rules) -> None:
    msgs = read_mbox_messages(THREADS / "barrier-reposted-again.mbox")
    summary, skips = _run(tmp_path, rules, msgs)
    assert skips == []
    [written] = summary.written
    draft = written.draft
    assert draft.in_reply_to == "20250312170000.4444-1-ada@example.org"
    assert draft.references == (PATCH_ID, "20250312170000.4444-1-ada@example.org")
    assert draft.body.startswith("On Wed, 12 Mar 2025 18:00:00 +0100, Ada Example wrote:\n")
    # the re-posted hunk is quoted, under its own @@ line (the patch's was "+40,10", without foo_ring_account())
    assert "> @@ -40,9 +40,8 @@ static void foo_ring_push(struct foo_ring *r, u32 v)" in draft.body
    assert "> -\tr->nr_pushed++;" in draft.body  # a line only the re-posted diff removes
    assert "> +\tsmp_wmb();" in draft.body


def test_a_fix_up_on_top_is_no_new_version(tmp_path: Path, rules) -> None:
    msgs = read_mbox_messages(THREADS / "barrier-fixup.mbox")
    assert not replaces_diff(parse_patch(msgs[0]), parse_patch(msgs[1]))
    summary, skips = _run(tmp_path, rules, msgs)
    [written] = summary.written
    assert written.draft.in_reply_to == PATCH_ID and skips == []


def test_real_thread_the_re_posted_diff_keeps_the_barrier_comment(shared_dir: Path, tmp_path: Path, rules) -> None:
    """Almog Khaikin re-posted the io_uring diff (the IOPOLL check dropped) with the same smp_mb()
    comment, which still does not say what it pairs with: the draft answers the re-posted diff."""
    pages = []
    for n in (1, 2, 3, 4):
        url = f"https://lists.openwall.net/linux-kernel/2022/03/06/{n}"
        page = (shared_dir / "openwall-mirror" / "linux-kernel" / "2022" / "03" / "06" / f"{n}.html").read_bytes()
        pages.append(parse_message(parse_message_page(page, url, "linux-kernel")))
    patch_msg = next(m for m in pages if m.message_id == "20220306103544.96974-1-almogkh@gmail.com")
    thread = [m for m in pages if "SQPOLL" in m.subject.raw]
    assert len(thread) == 4
    with Store(tmp_path / "db.sqlite") as store:
        with store.transaction():
            for m in thread:
                store.put_message(m, thread_id=patch_msg.message_id)
        patch = parse_patch(patch_msg)
        store.put_patch(patch)
        report = check_patch(patch, rules, RuleContext(thread=tuple(m for m in thread if m is not patch_msg)))
        assert [f.rule_id for f in report.findings] == ["RB102"]
        store.replace_findings(patch.message_id, report.findings, report.failures, now=FIXED_NOW)
        summary = draft_fixed(store, rules, tmp_path / "outbox")
    [written] = summary.written
    assert written.draft.in_reply_to == "768398e5-4909-6c7a-aee7-f36210f41a8f@gmail.com"
    body = written.draft.body
    assert "> @@ -7608,11 +7608,12 @@ static int io_sq_thread(void *data)" in body
    assert "> -\t\t\t\tif ((ctx->flags & IORING_SETUP_IOPOLL) &&" in body


def test_a_re_posted_other_part_of_the_file_leaves_the_point_on_the_patch(tmp_path: Path, rules) -> None:
    """The author re-posts a hunk far from the barrier (another function of ring.c): that says nothing
    about the barrier, which is answered on the patch."""
    text = (THREADS / "barrier-reposted-fixed.mbox").read_text()
    head, reply = text.split("\nFrom ada@example.org Wed Mar 12 17:00:00 2025\n")
    other = (
        "@@ -90,3 +90,4 @@ static u32 foo_ring_read(struct foo_ring *r)\n \tu32 v;\n \n"
        "+\t/* nothing to see */\n \treturn v;\n-- \n2.43.0\n"
    )
    reply = reply.split("@@ -40,9", 1)[0] + other
    mbox = tmp_path / "other.mbox"
    mbox.write_text(head + "\nFrom ada@example.org Wed Mar 12 17:00:00 2025\n" + reply)
    summary, skips = _run(tmp_path, rules, read_mbox_messages(mbox))
    [written] = summary.written
    assert written.draft.in_reply_to == PATCH_ID and skips == []


def test_draft_again_writes_the_re_posted_answer_anew(tmp_path: Path, rules) -> None:
    """``draft --again PATCH`` forgets the draft answering the author's re-posted diff too (it replies to the
    author's mail, not to the patch), so it is written again."""
    msgs = read_mbox_messages(THREADS / "barrier-reposted-again.mbox")
    with Store(tmp_path / "db.sqlite") as store:
        load_thread(store, msgs, rules)
        first = draft_fixed(store, rules, tmp_path / "outbox")
        [written] = first.written
        written.path.unlink()
        assert store.forget_drafts_of(PATCH_ID) == 1
        again = draft_pending(
            store,
            unsure=True,
            rules=rules,
            identity=IDENTITY,
            list_address=LIST_ADDRESS,
            outbox=tmp_path / "outbox",
            clock=lambda: FIXED_NOW,
            only=PATCH_ID,
        )
    [rewritten] = again.written
    assert rewritten.path == written.path and rewritten.path.is_file()
    assert rewritten.draft.in_reply_to == "20250312170000.4444-1-ada@example.org"
