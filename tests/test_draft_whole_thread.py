"""The drafter reads the whole thread and series before drafting (issue 26, kinds seen on lists it never saw).

Threads written for this test, one per kind: a maintainer's "OK done, thanks for the fix, applied.";
b4's "Applied, thanks! [08/13] ..." and "for all: Reviewed-by:" on a cover letter whose subject has no
0/N; a rejection in the maintainer's own words; the author's "this patch will be dropped"; "already
fixed upstream and stable". Each settled thread gets no draft and the finding keeps the reason as its
skip state; the same thread left open is drafted.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.parse.threads import about_patch
from reviewbot.registry import load_rules
from reviewbot.respond.draft import reviewed_in_thread
from reviewbot.store import Store
from helpers import draft_fixed, load_thread

AUTHOR = "Ada Example <ada@example.org>"
MAINTAINER = "Bob Maintainer <bob@example.com>"
COVER_ID = "cover-ring@example.org"


def barrier_hunk(n: int) -> str:
    """One hunk adding an uncommented smp_wmb() between a slot store and the tail store."""
    start = 40 + 20 * n
    return (
        f"@@ -{start},4 +{start},5 @@ static void foo_ring_push{n}(struct foo_ring *r, u32 v)\n"
        " \tu32 tail = r->tail;\n"
        " \n"
        " \tr->slot[tail & r->mask] = v;\n"
        "+\tsmp_wmb();\n"
        " \tWRITE_ONCE(r->tail, tail + 1);\n"
    )


def patch_mail(
    subject: str, *, msgid: str = "ring-8@example.org", parent: str | None = None, barriers: int = 1, day: int = 12
) -> bytes:
    thread = f"In-Reply-To: <{parent}>\nReferences: <{parent}>\n" if parent else ""
    hunks = "".join(barrier_hunk(n) for n in range(barriers))
    return (
        f"From: {AUTHOR}\nTo: linux-kernel@vger.kernel.org\nCc: {MAINTAINER}\n"
        f"Subject: {subject}\nDate: Wed, {day} Mar 2025 10:00:00 +0100\nMessage-ID: <{msgid}>\n{thread}"
        "MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n\n"
        "The consumer in foo_ring_read() may see the new tail before the slot\n"
        "contents on weakly ordered machines. Order the two stores.\n\n"
        f"Signed-off-by: {AUTHOR}\n---\n drivers/foo/ring.c | {barriers} +\n\n"
        "diff --git a/drivers/foo/ring.c b/drivers/foo/ring.c\n--- a/drivers/foo/ring.c\n+++ b/drivers/foo/ring.c\n"
        f"{hunks}-- \n2.43.0\n"
    ).encode()


def cover_mail(subject: str = "[PATCH] foo: ring fixes") -> bytes:
    return (
        f"From: {AUTHOR}\nTo: linux-kernel@vger.kernel.org\nCc: {MAINTAINER}\n"
        f"Subject: {subject}\nDate: Wed, 12 Mar 2025 09:59:00 +0100\nMessage-ID: <{COVER_ID}>\n\n"
        "Thirteen fixes to the foo ring.\n\nAda Example (13):\n  foo: one\n"
    ).encode()


def reply_mail(body: str, *, sender: str = MAINTAINER, to: str = "ring-8@example.org", subject: str, n: int = 1):
    return (
        f"From: {sender}\nTo: {AUTHOR}\nCc: linux-kernel@vger.kernel.org\nSubject: Re: {subject}\n"
        f"Date: Thu, 13 Mar 2025 1{n}:00:00 +0100\nMessage-ID: <reply-{n}@example.net>\n"
        f"In-Reply-To: <{to}>\nReferences: <{to}>\nMIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n\n"
        f"On Wed, 12 Mar 2025 10:00:00 +0100, Ada Example wrote:\n> Order the two stores.\n\n{body}\n"
    ).encode()


def messages_of(*mails: bytes):
    import dataclasses

    return [dataclasses.replace(parse_rfc822(m, "whole-thread-test"), list_name="linux-kernel") for m in mails]


@pytest.fixture(scope="module")
def rules():
    return load_rules(entry_points=False)


def run(tmp_path: Path, rules, mails: list[bytes], patch_id: str = "ring-8@example.org"):
    store = Store(tmp_path / "reviewbot.db")
    found = load_thread(store, messages_of(*mails), rules)
    assert found[patch_id] and {f.rule_id for f in found[patch_id]} == {"RB102"}
    summary = draft_fixed(store, rules, tmp_path / "outbox")
    skips = {f.fingerprint: store.skip_for(f.fingerprint) for f in found[patch_id]}
    return store, summary, skips


SINGLE = "[PATCH] foo: publish the ring tail after the slot is written"


@pytest.mark.parametrize(
    "sender, body, state, words",
    [
        (MAINTAINER, "OK done, thanks for the fix, applied.", "applied", "already applied, see <reply-1"),
        (MAINTAINER, "That makes more sense. I'll apply the series.", "applied", "I'll apply the series"),
        (MAINTAINER, "Full disclosure, I'm dropping this set for now.", "rejected", "dropping this set"),  # r9
        (MAINTAINER, "NACK. What do you think this does?", "rejected", "NACK."),  # r11: the other spelling
        (MAINTAINER, "patch has been applied to bluetooth-next tree.", "applied", "reply-1@example.net"),  # r11
        (MAINTAINER, "This is unacceptable, because the ring is per-CPU.", "rejected", "This is unacceptable"),
        (MAINTAINER, "Sorry, but your patches make no sense to me.", "rejected", "make no sense to me"),
        (MAINTAINER, "No, let's not second-guess the compiler here.", "rejected", "second-guess the compiler"),
        (AUTHOR, "Right, this patch will be dropped in v2.", "withdrawn", "the author (Ada Example)"),
        ("Carol Stable <carol@example.net>", "This is already fixed upstream and stable.", "moot", "already fixed"),
    ],
)
def test_a_settled_thread_gets_no_draft(tmp_path: Path, rules, sender: str, body: str, state: str, words) -> None:
    store, summary, skips = run(tmp_path, rules, [patch_mail(SINGLE), reply_mail(body, sender=sender, subject=SINGLE)])
    assert summary.drafts == 0 and summary.findings == 1
    (skip,) = skips.values()
    assert skip is not None and skip.state == state and words in skip.reason
    store.close()


@pytest.mark.parametrize(
    "sender, body",
    [
        (MAINTAINER, "Thanks for the fix. Was this tested before it got applied?"),  # a question, not an apply
        (MAINTAINER, "Is this acceptable for stable? It looks fine to me otherwise."),
        (MAINTAINER, "If you split the driver out, I'll apply the series."),  # a condition, not an apply
        ("Carol Stable <carol@example.net>", "Is this already fixed upstream? I could not find it."),
        (MAINTAINER, "If this patch will be dropped, say so; I like it."),  # the maintainer, conditional
    ],
)
def test_an_open_thread_is_still_drafted(tmp_path: Path, rules, sender: str, body: str) -> None:
    store, summary, skips = run(tmp_path, rules, [patch_mail(SINGLE), reply_mail(body, sender=sender, subject=SINGLE)])
    assert summary.drafts == 1 and all(s is None for s in skips.values())
    store.close()


def test_b4_applied_on_a_cover_letter_without_0_of_n(tmp_path: Path, rules) -> None:
    eighth = "[PATCH 08/13] foo: publish the ring tail after the slot is written"
    ty = (
        "Applied, thanks!\n\n[08/13] foo: publish the ring tail after the slot is written\n"
        "        commit: 0123456789abcdef0123456789abcdef01234567\n\nBest regards,"
    )
    mails = [
        cover_mail(),
        patch_mail(eighth, parent=COVER_ID),
        reply_mail(ty, to=COVER_ID, subject="[PATCH] foo: ring fixes"),
    ]
    store, summary, skips = run(tmp_path, rules, mails)
    (skip,) = skips.values()
    assert summary.drafts == 0 and skip is not None and skip.state == "applied" and "reply-1@example.net" in skip.reason
    store.close()


def test_b4_applied_for_another_patch_of_such_a_series_leaves_this_one_open(tmp_path: Path, rules) -> None:
    eighth = "[PATCH 08/13] foo: publish the ring tail after the slot is written"
    ty = "Applied, thanks!\n\n[02/13] foo: drop the unused counter\n        commit: 0123456789abcdef\n"
    mails = [
        cover_mail(),
        patch_mail(eighth, parent=COVER_ID),
        reply_mail(ty, to=COVER_ID, subject="[PATCH] foo: ring fixes"),
    ]
    store, summary, skips = run(tmp_path, rules, mails)
    assert summary.drafts == 1 and all(s is None for s in skips.values())
    store.close()


def test_reviewed_for_all_on_a_cover_letter_without_0_of_n() -> None:
    patch = parse_patch(messages_of(patch_mail("[PATCH 08/13] foo: x", parent=COVER_ID))[0])
    (reply,) = messages_of(
        reply_mail(
            "Looks good, for all:\n\nReviewed-by: Bob Maintainer <bob@example.com>",
            to=COVER_ID,
            subject="[PATCH] foo: ring fixes",
        )
    )
    assert about_patch(reply, patch)
    why = reviewed_in_thread(patch, [reply])
    assert why is not None and "Reviewed-by: Bob Maintainer" in why
    # a reply to another numbered patch under the same cover is not about this one
    (other,) = messages_of(
        reply_mail("Reviewed-by: Bob Maintainer <bob@example.com>", to=COVER_ID, subject="[PATCH 02/13] foo: y")
    )
    assert not about_patch(other, patch)


def test_a_dozen_barriers_make_two_points_and_name_the_others(tmp_path: Path, rules) -> None:
    store, summary, skips = run(tmp_path, rules, [patch_mail(SINGLE, barriers=12)])
    assert summary.drafts == 1 and summary.drafted == 12 and all(s is None for s in skips.values())
    body = summary.written[0].draft.body
    own = [line for line in body.splitlines() if not line.startswith(">")]
    hunks = [line for line in body.splitlines() if line.startswith("> @@")]
    assert len(hunks) == 2  # two quoted places, not twelve
    assert len(body.splitlines()) < 60
    sentence = " ".join(" ".join(own).split())
    assert "The same goes for the other 10 places of this patch:" in sentence
    stored = {f.line for f in store.findings_for("ring-8@example.org")}
    named = [int(n) for n in re.findall(r"\b(\d+)\b", sentence.split("ring.c at lines")[1])]
    assert len(named) == 10 and set(named) <= stored  # each named place is a finding's own line
    store.close()


def rfc_v2(line: str) -> bytes:
    """The RFC v2 under a new title: other code (a consumer-side pair), its changelog naming v1 by ``line``."""
    body = (
        f"From: {AUTHOR}\nTo: linux-kernel@vger.kernel.org\nCc: {MAINTAINER}\n"
        "Subject: [RFC PATCH v2] foo: make the ring lockless for single producers\n"
        "Date: Wed, 26 Mar 2025 10:00:00 +0100\nMessage-ID: <ring-v2@example.org>\n"
        "MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n\n"
        "Let a single producer push without the ring lock.\n\n"
        f"Signed-off-by: {AUTHOR}\n---\n{line}\n\n drivers/foo/queue.c | 1 +\n\n"
        "diff --git a/drivers/foo/queue.c b/drivers/foo/queue.c\n--- a/drivers/foo/queue.c\n+++ b/drivers/foo/queue.c\n"
        "@@ -10,4 +10,5 @@ static void foo_queue_add(struct foo_queue *q, void *item)\n"
        " \tunsigned int head = q->head;\n"
        " \n"
        " \tq->items[head % FOO_QUEUE_LEN] = item;\n"
        "+\tsmp_wmb();\n"
        " \tWRITE_ONCE(q->head, head + 1);\n"
        "-- \n2.43.0\n"
    )
    return body.encode()


@pytest.mark.parametrize(
    "line, drafts_on_v1",
    [
        ("Changes since RFC v1 (https://lore.kernel.org/all/ring-8@example.org/):", False),
        ("- Link to v1: https://lore.kernel.org/r/ring-8@example.org", False),
        ("This depends on https://lore.kernel.org/all/ring-8@example.org/ (v1 of the ring fixes).", True),
    ],
)
def test_an_rfc_replaced_by_an_rfc_v2_under_a_new_title_is_drafted_once(
    tmp_path: Path, rules, line: str, drafts_on_v1: bool
) -> None:
    v1 = patch_mail("[RFC PATCH] foo: publish the ring tail after the slot is written")
    store = Store(tmp_path / "reviewbot.db")
    found = load_thread(store, messages_of(v1), rules)
    found.update(load_thread(store, messages_of(rfc_v2(line)), rules))
    assert found["ring-8@example.org"] and found["ring-v2@example.org"]
    assert store.revisions_of("ring-8@example.org")[-1].message_id == "ring-8@example.org"  # not linked by code
    summary = draft_fixed(store, rules, tmp_path / "outbox")
    drafted = sorted(w.patch_message_id for w in summary.written)
    (skip,) = [store.skip_for(f.fingerprint) for f in found["ring-8@example.org"]]
    if drafts_on_v1:  # v2 builds on v1: both stand
        assert drafted == ["ring-8@example.org", "ring-v2@example.org"] and skip is None
    else:
        assert drafted == ["ring-v2@example.org"]
        assert skip is not None and skip.state == "superseded" and "<ring-v2@example.org>" in skip.reason
    store.close()


# ------------------------------------------------------------------ numbers and questions elsewhere in the series

CLAIM = (
    "foo_tag_find() walks the whole tag list on every completion. Remember\n"
    "the last tag found and try it first, which makes the lookup a lot\n"
    "faster and reduces overhead in the completion path.\n"
)
TAG_DIFF = (
    "diff --git a/block/foo-tag.c b/block/foo-tag.c\n--- a/block/foo-tag.c\n+++ b/block/foo-tag.c\n"
    "@@ -60,6 +60,10 @@ struct foo_tag *foo_tag_find(struct foo_tags *tags, u32 id)\n"
    " {\n \tstruct foo_tag *tag;\n \n"
    "+\ttag = READ_ONCE(tags->last_hit);\n+\tif (tag && tag->id == id)\n+\t\treturn tag;\n+\n"
    " \tlist_for_each_entry(tag, &tags->list, node)\n \t\tif (tag->id == id)\n \t\t\treturn tag;\n"
)
OTHER_DIFF = (
    "diff --git a/block/foo-core.c b/block/foo-core.c\n--- a/block/foo-core.c\n+++ b/block/foo-core.c\n"
    "@@ -10,3 +10,4 @@ void foo_complete(struct foo_req *rq)\n"
    " {\n+\tfoo_tag_release(rq);\n \tfoo_end_io(rq);\n \tfoo_put(rq);\n"
)
NUMBERS = (
    "With fio randread 4k on one NVMe drive the completion path went from\n"
    "12.1us to 9.8us per request, before and after this series.\n"
)


def series_patch(n: int, total: int, title: str, text: str, diff: str, *, version: int = 1, day: int = 12) -> bytes:
    v = f" v{version}" if version > 1 else ""
    msgid = f"tag-v{version}-{n}@example.org"
    head = (
        ""
        if total == 1
        else f"In-Reply-To: <tag-v{version}-0@example.org>\nReferences: <tag-v{version}-0@example.org>\n"
    )
    counter = "" if total == 1 else f" {n}/{total}"
    return (
        f"From: {AUTHOR}\nTo: linux-block@vger.kernel.org\nCc: {MAINTAINER}\n"
        f"Subject: [PATCH{v}{counter}] {title}\nDate: Wed, {day} Mar 2025 10:0{n}:00 +0100\nMessage-ID: <{msgid}>\n{head}"
        f"MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n\n{text}\nSigned-off-by: {AUTHOR}\n---\n"
        f" x | 1 +\n\n{diff}-- \n2.43.0\n"
    ).encode()


def series_cover(total: int) -> bytes:
    return (
        f"From: {AUTHOR}\nTo: linux-block@vger.kernel.org\nCc: {MAINTAINER}\n"
        f"Subject: [PATCH 0/{total}] foo: tag lookup\nDate: Wed, 12 Mar 2025 10:00:00 +0100\n"
        "Message-ID: <tag-v1-0@example.org>\n\nTwo changes to the tag lookup.\n"
    ).encode()


def tag_run(tmp_path: Path, rules, mails: list[bytes], patch_id: str = "tag-v1-1@example.org"):
    store = Store(tmp_path / "reviewbot.db")
    found = load_thread(store, messages_of(*mails), rules)
    assert {f.rule_id for f in found[patch_id]} == {"RB201"}, found[patch_id]
    summary = draft_fixed(store, rules, tmp_path / "outbox")
    (skip,) = [store.skip_for(f.fingerprint) for f in found[patch_id]]
    return store, summary, skip


def test_numbers_in_a_sibling_patch_answer_the_claim(tmp_path: Path, rules) -> None:
    mails = [
        series_cover(2),
        series_patch(1, 2, "foo: remember the last tag found", CLAIM, TAG_DIFF),
        series_patch(2, 2, "foo: release the tag at completion", "Release the tag early.\n\n" + NUMBERS, OTHER_DIFF),
    ]
    store, summary, skip = tag_run(tmp_path, rules, mails)
    assert summary.drafts == 0 and skip is not None and skip.state == "answered"
    assert "tag-v1-2@example.org" in skip.reason and "patch 2 of the series" in skip.reason
    store.close()


def test_a_sibling_without_numbers_leaves_the_claim_open(tmp_path: Path, rules) -> None:
    mails = [
        series_cover(2),
        series_patch(1, 2, "foo: remember the last tag found", CLAIM, TAG_DIFF),
        series_patch(2, 2, "foo: release the tag at completion", "Release the tag early.\n", OTHER_DIFF),
    ]
    store, summary, skip = tag_run(tmp_path, rules, mails)
    assert summary.drafts == 1 and skip is None
    store.close()


@pytest.mark.parametrize(
    "sender, body, state, where",
    [
        (MAINTAINER, "Please provide quantitative data for this series.", "raised", "another patch of the series"),
        (MAINTAINER, "What is so expensive about the list walk? It has a handful of tags.", "raised", "another"),
        ("Cy Colleague <cy@example.org>", NUMBERS, "answered", "a colleague's reply"),
    ],
)
def test_asked_or_answered_on_another_patch_of_the_series(tmp_path: Path, rules, sender, body, state, where) -> None:
    target = "tag-v1-2@example.org" if "colleague" not in where else "tag-v1-0@example.org"
    subject = (
        "[PATCH 2/2] foo: release the tag at completion" if "colleague" not in where else "[PATCH 0/2] foo: tag lookup"
    )
    mails = [
        series_cover(2),
        series_patch(1, 2, "foo: remember the last tag found", CLAIM, TAG_DIFF),
        series_patch(2, 2, "foo: release the tag at completion", "Release the tag early.\n", OTHER_DIFF),
        reply_mail(body, sender=sender, to=target, subject=subject),
    ]
    store, summary, skip = tag_run(tmp_path, rules, mails)
    assert summary.drafts == 0 and skip is not None and skip.state == state and where in skip.reason
    assert "reply-1@example.net" in skip.reason
    store.close()


def test_numbers_given_on_the_previous_revision(tmp_path: Path, rules) -> None:
    v1 = series_patch(1, 1, "foo: remember the last tag found", CLAIM, TAG_DIFF)
    answer = reply_mail(
        NUMBERS, sender=AUTHOR, to="tag-v1-1@example.org", subject="[PATCH] foo: remember the last tag found"
    )
    v2 = series_patch(
        1, 1, "foo: remember the last tag found", CLAIM, TAG_DIFF.replace("READ_ONCE", "data_race"), version=2, day=20
    )
    store = Store(tmp_path / "reviewbot.db")
    load_thread(store, messages_of(v1, answer), rules)
    found = load_thread(store, messages_of(v2), rules)
    assert [f.rule_id for f in found["tag-v2-1@example.org"]] == ["RB201"]
    summary = draft_fixed(store, rules, tmp_path / "outbox")
    (skip,) = [store.skip_for(f.fingerprint) for f in found["tag-v2-1@example.org"]]
    assert summary.drafts == 0 and skip is not None and skip.state == "answered"
    assert "the earlier revision <tag-v1-1@example.org>" in skip.reason
    store.close()


# ------------------------------------------------------------------ precision first: unsure, kept, not drafted


@pytest.mark.parametrize(
    "sender, body, words",
    [
        (AUTHOR, "Good point, I will send a v2 with the ring reworked.", "the author announced a new version"),
        (AUTHOR, "Fixed in the next version, thanks.", "the author announced a new version"),
        (MAINTAINER, "Merged into for-next with the comment reworded.", "Bob Maintainer may have applied it"),
        # a fresh reader: a draft answered a posting the maintainer had already called corrupt; a resend is due
        (MAINTAINER, "Patch is corrupted and can not be applied.", "Bob Maintainer wrote it cannot be applied"),
        (MAINTAINER, "This does not apply to my tree, please rebase.", "Bob Maintainer wrote it cannot be applied"),
        # r10: an adverb between, and "could not"
        (
            MAINTAINER,
            "Patch is totally corrupted and could not be applied.",
            "Bob Maintainer wrote it cannot be applied",
        ),
    ],
)
def test_a_thread_that_may_be_settled_is_kept_not_drafted(tmp_path: Path, rules, sender, body, words) -> None:
    store, summary, skips = run(tmp_path, rules, [patch_mail(SINGLE), reply_mail(body, sender=sender, subject=SINGLE)])
    assert summary.drafts == 0 and summary.unsure == 1
    (skip,) = skips.values()
    assert (
        skip is not None and skip.state == "unsure" and words in skip.reason and "<reply-1@example.net>" in skip.reason
    )
    fingerprint = next(iter(skips))
    show = __import__("subprocess").run(
        [
            __import__("sys").executable,
            "-m",
            "reviewbot",
            "show",
            "<ring-8@example.org>",
            "--db",
            str(tmp_path / "reviewbot.db"),
        ],
        capture_output=True,
        text=True,
    )
    assert "unsure" in show.stdout and words in show.stdout, show.stdout + show.stderr
    assert fingerprint
    store.close()


@pytest.mark.parametrize(
    "sender, body",
    [
        (AUTHOR, "I won't send a v2 for this, the ring stays as it is."),
        (MAINTAINER, "Has this been merged anywhere yet?"),
        (MAINTAINER, "Not merged yet, the merge window is closed this week."),
        (MAINTAINER, "If it doesn't apply on top of -next, tell me and I'll look."),
    ],
)
def test_an_open_thread_with_those_words_is_drafted(tmp_path: Path, rules, sender, body) -> None:
    store, summary, skips = run(tmp_path, rules, [patch_mail(SINGLE), reply_mail(body, sender=sender, subject=SINGLE)])
    assert summary.drafts == 1 and summary.unsure == 0
    store.close()


def test_a_later_version_posted_in_the_thread_supersedes_the_patch(tmp_path: Path, rules) -> None:
    # r9: a "[PATCH v4] ..." answered in its own thread by the author's v5, v6 and v7 under a new title; the v4
    # was drafted, and the point belongs to the newest version
    v4 = "[PATCH v4] foo: add a barrier after the slot store"
    v5 = "[PATCH v5] foo: fix the ring barriers to follow the specification"
    mails = [patch_mail(v4), patch_mail(v5, msgid="ring-9@example.org", parent="ring-8@example.org", day=14)]
    store = Store(tmp_path / "reviewbot.db")
    found = load_thread(store, messages_of(*mails), rules)
    summary = draft_fixed(store, rules, tmp_path / "outbox")
    (skip,) = [store.skip_for(f.fingerprint) for f in found["ring-8@example.org"]]
    assert skip is not None and skip.state == "superseded" and "<ring-9@example.org>" in skip.reason
    assert summary.drafts == 1  # the v5's own point
    store.close()
