"""No draft for a patch the thread shows as already applied.

Threads written for this test: the barrier patch of tests/data/threads
(an uncommented ``smp_wmb()``, which is drafted when nobody applied it) with
one more reply: the maintainer's "Applied, thanks!", a b4 ty "Applied to ..."
listing the patch, a tester's "Applied on top of ... and tested" (not an
apply), the author's own "applied" and a b4 ty for other patches of a series.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewbot.parse.mail import parse_rfc822
from reviewbot.registry import load_rules
from reviewbot.store import Store
from helpers import THREADS, load_thread, read_mbox_messages, draft_fixed

PATCH_ID = "20250312090000.2222-1-ada@example.org"
SUBJECT = "[PATCH] foo: publish the ring tail after the slot is written"


def reply(sender: str, body: str, n: int) -> bytes:
    return (
        f"From: {sender}\n"
        "To: Ada Example <ada@example.org>\n"
        "Cc: linux-kernel@vger.kernel.org\n"
        f"Subject: Re: {SUBJECT}\n"
        f"Date: Thu, 13 Mar 2025 1{n}:00:00 +0100\n"
        f"Message-ID: <reply-{n}@example.net>\n"
        f"In-Reply-To: <{PATCH_ID}>\n"
        f"References: <{PATCH_ID}>\n"
        "MIME-Version: 1.0\n"
        "Content-Type: text/plain; charset=utf-8\n"
        "\n"
        "On Wed, 12 Mar 2025 10:00:00 +0100, Ada Example wrote:\n"
        "> The consumer in foo_ring_read() may see the new tail before the slot\n"
        "> contents on weakly ordered machines. Order the two stores.\n"
        "\n"
        f"{body}\n"
    ).encode("utf-8")


MAINTAINER = "Bob Maintainer <bob@example.com>"
B4_TY = (
    "Applied to foo-next, thanks!\n\n"
    "[1/1] foo: publish the ring tail after the slot is written\n"
    "      commit: 0123456789abcdef0123456789abcdef01234567\n\n"
    "Best regards,\n-- \nBob Maintainer <bob@example.com>"
)
B4_TY_OTHER = (
    "Applied to foo-next, thanks!\n\n"
    "[2/3] foo: drop the unused ring counter\n"
    "      commit: 0123456789abcdef0123456789abcdef01234567\n\n"
    "Best regards,"
)


@pytest.fixture(scope="module")
def rules():
    return load_rules(entry_points=False)


def run(tmp_path: Path, rules, extra: bytes):
    messages = read_mbox_messages(THREADS / "barrier.mbox")[:1]
    import dataclasses

    messages.append(dataclasses.replace(parse_rfc822(extra, "applied-test"), list_name="linux-kernel"))
    store = Store(tmp_path / "reviewbot.db")
    found = load_thread(store, messages, rules)
    assert [f.rule_id for f in found[PATCH_ID]] == ["RB102"]
    summary = draft_fixed(store, rules, tmp_path / "outbox")
    return store, found[PATCH_ID][0], summary


@pytest.mark.parametrize(
    "sender, body",
    [
        (MAINTAINER, "Applied, thanks!"),
        (MAINTAINER, B4_TY),
        ("Carol Committer <carol@example.net>", "Thanks, applied."),
    ],
)
def test_applied_patch_gets_no_draft(tmp_path: Path, rules, sender: str, body: str) -> None:
    store, finding, summary = run(tmp_path, rules, reply(sender, body, 1))
    assert summary.drafts == 0 and summary.drafted == 0
    assert summary.findings == summary.applied == 1
    skip = store.skip_for(finding.fingerprint)
    assert skip is not None and skip.state == "applied"
    assert skip.reason == "already applied, see <reply-1@example.net>"
    assert not (tmp_path / "outbox").exists() or not list((tmp_path / "outbox").iterdir())
    store.close()


@pytest.mark.parametrize(
    "sender, body",
    [
        ("Tess Tester <tess@example.net>", "Applied on top of v6.14-rc6 and tested on arm64, works."),
        ("Ada Example <ada@example.org>", "Applied, thanks!"),  # the author herself: not a maintainer's apply
        (MAINTAINER, B4_TY_OTHER),  # b4 ty for another patch of the series
        (MAINTAINER, "> Applied, thanks!\n\nWho wrote that above? Not applied yet."),  # only quoted
    ],
)
def test_not_applied_still_drafted(tmp_path: Path, rules, sender: str, body: str) -> None:
    store, finding, summary = run(tmp_path, rules, reply(sender, body, 2))
    assert summary.applied == 0
    assert summary.drafts == 1 and summary.drafted == 1
    assert store.skip_for(finding.fingerprint) is None
    store.close()
