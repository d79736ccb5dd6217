"""No draft on a thread that is already settled.

Threads written for this test, modelled on kinds of LKML threads where a review point comes too
late: a tip maintainer queueing the patch ("I'll go stick this in sched/urgent"), the author
applying part of a series to their own tree ("Applied patches 1-5 to ..."), a maintainer turning
the patch down ("And this kills it"), the author dropping the patch for a revert ("I will send a
patch to revert that change"), another person's Reviewed-by/Acked-by (in a reply or carried in the
patch's trailers), and a series whose newer version's cover letter is in the store while that
version of this patch is not.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.respond import draft
from reviewbot.respond.draft import said_in_thread
from reviewbot.store import Store
from helpers import THREADS, load_thread, read_mbox_messages, draft_fixed

DIFF = "---\n a.c | 1 +\n\ndiff --git a/a.c b/a.c\n--- a/a.c\n+++ b/a.c\n@@ -1,1 +1,2 @@\n int a;\n+int b;\n"


def _patch(subject: str, *, trailers: str = "", msgid: str = "p1@example.org"):
    raw = (
        f"From: Ada Author <ada@example.org>\nMessage-ID: <{msgid}>\nIn-Reply-To: <cover@example.org>\n"
        f"Subject: {subject}\nDate: Tue, 07 Jan 2025 14:19:00 +0900\n\nMake a faster.\n\n"
        f"{trailers}Signed-off-by: Ada Author <ada@example.org>\n{DIFF}"
    )
    return parse_patch(parse_rfc822(raw.encode(), "test"))


def _reply(body: str, *, sender: str = "Pete Maint <pete@example.org>", to: str = "p1@example.org", n: int = 1):
    raw = (
        f"From: {sender}\nMessage-ID: <r{n}-{abs(hash(body))}@example.org>\nIn-Reply-To: <{to}>\n"
        f"References: <{to}>\nSubject: Re: {'[PATCH v2 00/11] a: series' if to.startswith('cover') else '[PATCH] a: b'}\nDate: Thu, 16 Jan 2025 01:00:00 +0000\n\n{body}\n"
    )
    return parse_rfc822(raw.encode(), "test")


# ------------------------------------------------------------------ the word lists


def test_queued_in_a_branch_by_the_maintainer() -> None:
    said = said_in_thread(
        _patch("[PATCH v3 1/1] psi: fix x"),
        [
            _reply(
                "> +\tsmp_store_release(&t, n);\n\nThanks, I'll go stick this in sched/urgent unless Linus picks it up"
            )
        ],
    )
    assert said is not None and said[0] == "applied"
    assert said[1].startswith("applied: Pete Maint wrote \"Thanks, I'll go stick this in sched/urgent")


def test_author_applies_a_range_of_the_series() -> None:
    text = (
        "Applied patches 1-5 to\nhttps://git.example.org/ada/linux.git/log/?h=crc-next\n\nA v3 of patches 6-11 follows."
    )
    reply = _reply(text, sender="Ada Author <ada@example.net>", to="cover@example.org")
    for subject in ("[PATCH v2 01/11] crc: x", "[PATCH v2 05/11] crc: y"):
        said = said_in_thread(_patch(subject), [reply])
        assert said is not None and said[0] == "applied", subject
        assert "the author (Ada Author)" in said[1] and "Applied patches 1-5" in said[1]
    # patch 7 is outside the range: the next paragraph names it for a v3, nothing settled
    assert said_in_thread(_patch("[PATCH v2 07/11] crc: z"), [reply]) is None
    # the author's bare "Applied, thanks!" stays ambiguous (an applied suggestion, a test)
    assert (
        said_in_thread(_patch("[PATCH] a: b"), [_reply("Applied, thanks!", sender="Ada Author <ada@example.org>")])
        is None
    )


@pytest.mark.parametrize(
    "text, words",
    [
        ("And this kills it,.. if it doesn't make unconditional sense, we're not", "And this kills it"),
        ("NAK.", "NAK."),
        ("Nacked-by: Pete Maint <pete@example.org>", "Nacked-by:"),
        ("I don't agree with the approach here. It adds overhead.", "I don't agree with the approach"),
        ("We're not going to do this. It's just too ugly.", "not going to do this"),
    ],
)
def test_maintainer_rejects(text: str, words: str) -> None:
    said = said_in_thread(_patch("[PATCH 2/2] lock: store the holder"), [_reply(text)])
    assert said is not None and said[0] == "rejected"
    assert words in said[1] and "Pete Maint" in said[1]


@pytest.mark.parametrize(
    "text",
    [
        "I would not NAK this, but the snake-case names are odd.",  # negated; "nak" inside a word
        "> NAK\n\nWhy the NAKs above? The patch looks right to me.",  # quoted; "NAKs" is another word
        "If it doesn't make sense we're not going to do this, but it does.",  # conditional
    ],
)
def test_not_a_rejection(text: str) -> None:
    assert said_in_thread(_patch("[PATCH 2/2] lock: store the holder"), [_reply(text)]) is None


def test_author_drops_the_patch_for_a_revert() -> None:
    patch = _patch("[RFC PATCH] sbitmap: fix x")
    said = said_in_thread(
        patch, [_reply("Thanks. I will send a patch to revert that change.", sender="AdaAuthor <ada@example.org>")]
    )
    assert said is not None and said[0] == "withdrawn" and "I will send a patch to revert" in said[1]
    said = said_in_thread(patch, [_reply("Fair point, I'll rework it.", sender="Ada Author <ada@example.org>")])
    assert said is not None and said[0] == "withdrawn"
    # the same words from another person are a suggestion, not the author taking the patch back
    assert said_in_thread(patch, [_reply("I will send a patch to revert that change.")]) is None


def test_reviewed_by_another_person() -> None:
    patch = _patch("[PATCH v2 01/11] crc: x")
    said = draft.reviewed_in_thread(patch, [_reply("> Make a faster.\n\nReviewed-by: Ard Reviewer <ard@example.org>")])
    assert said == "reviewed: Reviewed-by: Ard Reviewer <ard@example.org> in <" + said.split("<", 2)[2]
    carried = _patch(
        "[PATCH v3 2/4] memcg: y",
        trailers="Tested-by: kernel test robot <oliver@example.com>\nAcked-by: Qi Acker <qi@example.org>\n",
    )
    assert draft.reviewed_in_thread(carried, []) == "reviewed: the patch carries Acked-by: Qi Acker <qi@example.org>"


@pytest.mark.parametrize(
    "subject, trailers, body",
    [
        ("[PATCH] a: b", "Tested-by: kernel test robot <oliver@example.com>\n", ""),  # a robot ran it
        ("[PATCH] a: b", "Reviewed-by: Ada Author <ada@example.org>\n", ""),  # the author's own
        ("[PATCH] a: b", "", "> Reviewed-by: Ard Reviewer <ard@example.org>\n\nWho is Ard?"),  # quoted
        ("[PATCH 1/4] a: b", "", "For patches 2-4:\nReviewed-by: Ard Reviewer <ard@example.org>"),  # other patches
    ],
)
def test_not_reviewed(subject: str, trailers: str, body: str) -> None:
    thread = [_reply(body, to="cover@example.org")] if body else []
    assert draft.reviewed_in_thread(_patch(subject, trailers=trailers), thread) is None


# ------------------------------------------------------------------ the drafting run


@pytest.fixture(scope="module")
def rules():
    return load_rules(entry_points=False)


def _reply_to(patch_id: str, subject: str, sender: str, body: str, n: int = 1) -> bytes:
    return (
        f"From: {sender}\nTo: Ada Example <ada@example.org>\nCc: linux-kernel@vger.kernel.org\n"
        f"Subject: Re: {subject}\nDate: Fri, 14 Mar 2025 1{n}:00:00 +0100\nMessage-ID: <settled-{n}@example.net>\n"
        f"In-Reply-To: <{patch_id}>\nReferences: <{patch_id}>\nMIME-Version: 1.0\n"
        "Content-Type: text/plain; charset=utf-8\n\nOn Thu, 13 Mar 2025, Ada Example wrote:\n> Remember the last tag.\n\n"
        f"{body}\n"
    ).encode("utf-8")


def _run(tmp_path: Path, rules, mbox: str, *extra: bytes):
    messages = read_mbox_messages(THREADS / mbox)[:1]
    messages += [dataclasses.replace(parse_rfc822(e, "settled-test"), list_name="linux-kernel") for e in extra]
    store = Store(tmp_path / "reviewbot.db")
    found = load_thread(store, messages, rules)[messages[0].message_id]
    summary = draft_fixed(store, rules, tmp_path / "outbox")
    return store, found, summary


PERF_ID = "20250313090000.3333-1-ada@example.org"
PERF_SUBJECT = "[PATCH] foo: speed up tag lookup by caching the last hit"
BARRIER_ID = "20250312090000.2222-1-ada@example.org"
BARRIER_SUBJECT = "[PATCH] foo: publish the ring tail after the slot is written"


def test_numbers_request_after_review_is_not_drafted(tmp_path: Path, rules) -> None:
    ack = _reply_to(
        PERF_ID,
        PERF_SUBJECT,
        "Jens Block <jens@example.net>",
        "Looks fine.\n\nReviewed-by: Jens Block <jens@example.net>",
    )
    store, found, summary = _run(tmp_path, rules, "perf-claim.mbox", ack)
    assert [f.rule_id for f in found] == ["RB201"]
    assert summary.drafts == 0 and summary.reviewed == 1 == summary.findings
    skip = store.skip_for(found[0].fingerprint)
    assert skip is not None and skip.state == "reviewed"
    assert skip.reason.startswith("reviewed: Reviewed-by: Jens Block <jens@example.net> in <settled-1@example.net>;")
    assert "asking for numbers after the review is late" in skip.reason
    store.close()


def test_pairing_request_after_review_is_still_drafted(tmp_path: Path, rules) -> None:
    ack = _reply_to(
        BARRIER_ID, BARRIER_SUBJECT, "Oleg Ordering <oleg@example.net>", "Reviewed-by: Oleg Ordering <oleg@example.net>"
    )
    store, found, summary = _run(tmp_path, rules, "barrier.mbox", ack)
    assert [f.rule_id for f in found] == ["RB102"]
    assert summary.reviewed == 0 and summary.drafts == 1
    store.close()


@pytest.mark.parametrize(
    "sender, body, state, count",
    [
        ("Pete Maint <pete@example.net>", "Thanks, I'll go stick this in locking/urgent.", "applied", "applied"),
        ("Pete Maint <pete@example.net>", "And this kills it,.. we're not going to do this.", "rejected", "rejected"),
        ("Ada Example <ada@example.org>", "OK. I will send a patch to revert that change.", "withdrawn", "withdrawn"),
    ],
)
def test_settled_thread_gets_no_draft(tmp_path: Path, rules, sender: str, body: str, state: str, count: str) -> None:
    store, found, summary = _run(tmp_path, rules, "barrier.mbox", _reply_to(BARRIER_ID, BARRIER_SUBJECT, sender, body))
    assert summary.drafts == 0 and getattr(summary, count) == 1 == summary.findings
    skip = store.skip_for(found[0].fingerprint)
    assert skip is not None and skip.state == state
    assert body.split(".")[0][:30] in skip.reason and "<settled-1@example.net>" in skip.reason
    store.close()


# ------------------------------------------------------------------ a newer version of the series


def _series(version: int, total: int, date: str, *, with_patch: bool) -> list:
    cover_id = f"cover-v{version}@example.org"
    cover = (
        f"From: Ada Example <ada@example.org>\nTo: linux-kernel@vger.kernel.org\n"
        f"Subject: [PATCH v{version} 00/{total}] foo: ring fixes\nDate: {date}\nMessage-ID: <{cover_id}>\n\n"
        "A few fixes to the foo ring.\n"
    ).encode()
    out = [dataclasses.replace(parse_rfc822(cover, "series-test"), list_name="linux-kernel")]
    if with_patch:
        base = read_mbox_messages(THREADS / "barrier.mbox")[0]
        subject = dataclasses.replace(
            base.subject,
            raw=f"[PATCH v{version} 10/{total}] {base.subject.title}",
            version=version,
            index=10,
            total=total,
        )
        out.append(
            dataclasses.replace(base, subject=subject, in_reply_to=f"<{cover_id}>", references=(f"<{cover_id}>",))
        )
    return out


@pytest.mark.parametrize("newer", [True, False])
def test_patch_of_an_older_series_version_is_superseded(tmp_path: Path, rules, newer: bool) -> None:
    store = Store(tmp_path / "reviewbot.db")
    v2 = _series(2, 12, "Sun, 08 Mar 2020 03:42:51 +0000", with_patch=True)
    found = load_thread(store, v2, rules)[v2[1].message_id]
    for m in v2:
        store.set_series_key(m.message_id, "v2:cover-v2@example.org")
    assert [f.rule_id for f in found] == ["RB102"]
    if newer:  # only the v4 cover letter reached the archive, not v4 of this patch
        v4 = _series(4, 13, "Wed, 22 Jul 2020 14:44:38 +0000", with_patch=False)
        load_thread(store, v4, rules)
        store.set_series_key(v4[0].message_id, "v4:cover-v4@example.org")
    summary = draft_fixed(store, rules, tmp_path / "outbox")
    skip = store.skip_for(found[0].fingerprint)
    if newer:
        assert summary.drafts == 0 and summary.superseded == 1
        assert skip is not None and skip.state == "superseded"
        assert skip.reason == "a newer version of its series is in the store: <cover-v4@example.org>"
    else:
        assert summary.drafts == 1 and skip is None
    store.close()
