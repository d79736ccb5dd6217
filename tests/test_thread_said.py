"""Plain-language "applied"/"withdrawn" replies and stable backports: no draft for them.

The reply texts follow real LKML threads (blktests cover-letter reply "I already applied the
1st patch", Greg's "Now queued up, thanks", "please ignore this patch, I just send it by
mistake", "Maybe I'll drop it"), written here in short.
"""

from __future__ import annotations

from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.respond.draft import said_in_thread, stable_backport

DIFF = "---\n a.c | 1 +\n\ndiff --git a/a.c b/a.c\n--- a/a.c\n+++ b/a.c\n@@ -1,1 +1,2 @@\n int a;\n+int b;\n"


def _patch(subject: str = "[PATCH 1/4] common/rc: test x", commit: str = "Do x first.", msgid: str = "p1@example.org"):
    raw = (
        f"From: Ada Author <ada@example.org>\nMessage-ID: <{msgid}>\nIn-Reply-To: <cover@example.org>\n"
        f"Subject: {subject}\nDate: Tue, 07 Jan 2025 14:19:00 +0900\n\n{commit}\n\n"
        f"Signed-off-by: Ada Author <ada@example.org>\n{DIFF}"
    )
    return parse_patch(parse_rfc822(raw.encode(), "test"))


def _reply(
    body: str,
    *,
    sender: str = "Shin Maint <shin@example.org>",
    to: str = "cover@example.org",
    subject: str = "Re: [PATCH 0/4] cleanup",
):
    raw = (
        f"From: {sender}\nMessage-ID: <r-{abs(hash(body))}@example.org>\nIn-Reply-To: <{to}>\n"
        f"References: <{to}>\nSubject: {subject}\nDate: Thu, 16 Jan 2025 01:00:00 +0000\n\n{body}\n"
    )
    return parse_rfc822(raw.encode(), "test")


def test_applied_naming_this_patch_by_number() -> None:
    patch = _patch()
    said = said_in_thread(patch, [_reply("> cover text\n\nThanks. I already applied the 1st patch.")])
    assert said is not None and said[0] == "applied" and "1st patch" in said[1]


def test_applied_naming_another_patch_is_not_this_one() -> None:
    patch = _patch("[PATCH 2/4] tests: drop y", msgid="p2@example.org")
    assert said_in_thread(patch, [_reply("I already applied the 1st patch.")]) is None


def test_queued_up_by_stable_maintainer() -> None:
    patch = _patch("[PATCH] io_uring: fix wake ups")
    reply = _reply(
        "> +\t\tsmp_mb();\n\nNow queued up, thanks.\n\ngreg k-h",
        sender="Greg KH <greg@example.org>",
        to="p1@example.org",
    )
    said = said_in_thread(patch, [reply])
    assert said is not None and said[0] == "applied" and "Greg KH" in said[1]


def test_negated_or_quoted_words_do_not_count() -> None:
    patch = _patch("[PATCH] x: y")
    assert said_in_thread(patch, [_reply("This is not queued up, thanks for asking.", to="p1@example.org")]) is None
    assert said_in_thread(patch, [_reply("> Now queued up, thanks.\nWhy?", to="p1@example.org")]) is None


def test_author_withdraws() -> None:
    patch = _patch("[PATCH] io_uring: x")
    for text in ("Hi,\n\nplease ignore this patch, I just send it by mistake.", "OK. Maybe I'll drop it then."):
        said = said_in_thread(patch, [_reply(text, sender="Ada Author <ada@example.org>", to="p1@example.org")])
        assert said is not None and said[0] == "withdrawn", text
    # the same words from someone else are not the author withdrawing
    assert said_in_thread(patch, [_reply("please ignore this patch", to="p1@example.org")]) is None


def test_stable_backports() -> None:
    assert stable_backport(_patch("[PATCH 6.1 3/4] io_uring: x")) is not None
    assert stable_backport(_patch("[PATCH stable-6.1 1/1] io_uring: x")) is not None
    assert stable_backport(_patch("[PATCH 5.10.y] io_uring: x")) is not None
    assert (
        stable_backport(_patch("[PATCH] x", commit="commit 3181e22fb79910c7071e84a43af93ac89e8a7106 upstream.\n\nFix."))
        is not None
    )
    assert stable_backport(_patch("[PATCH] x", commit="[ upstream commit 3181e22fb799 ]\n\nFix.")) is not None
    assert stable_backport(_patch("[PATCH v2 1/4] io_uring: x")) is None
    assert stable_backport(_patch("[PATCH] x", commit="Like commit 3181e22fb799 upstream did, fix.")) is None
