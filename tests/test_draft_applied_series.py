"""A series applied in words the drafter did not read (first-look reading of linuxppc-dev, 2019-2022).

Of 38 drafts a fresh maintainer read, 15 of the NO went to threads already applied, in three forms the
drafter missed: the maintainer answering the first patch with "Series applied to powerpc next, thanks."
(the drafts were on later patches of the series), "Patches 1, 2 and 4-8, applied to ..." (a list of
numbers and ranges), a bot's "This patch was applied to netdev/net-next.git (master)", and the author,
maintaining the tree, writing "I've applied this to the dma-mapping for-next tree now." The threads here
are written for this test in those shapes.
"""

from __future__ import annotations

from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.respond.draft import applied_in_thread, said_in_thread

DIFF = "---\n a.c | 1 +\n\ndiff --git a/a.c b/a.c\n--- a/a.c\n+++ b/a.c\n@@ -1,1 +1,2 @@\n int a;\n+int b;\n"
COVER = "20190902152931.1000-1-ada@example.org"


def _patch(n: int, total: int = 8, author: str = "Ada Author <ada@example.org>"):
    raw = (
        f"From: {author}\nMessage-ID: <20190902152931.1000-{n + 1}-ada@example.org>\n"
        f"In-Reply-To: <{COVER}>\nReferences: <{COVER}>\n"
        f"Subject: [PATCH {n}/{total}] powerpc/x: step {n}\nDate: Mon, 02 Sep 2019 15:29:31 +0000\n\n"
        f"Step {n} of the series.\n\nSigned-off-by: {author}\n{DIFF}"
    )
    return parse_patch(parse_rfc822(raw.encode(), "test"))


def _reply(body: str, *, to: str, sender: str = "Mick Maint <mick@example.net>", n: int = 1):
    subject = "Re: [PATCH 0/8] powerpc/x: a series" if to == COVER else "Re: [PATCH 1/8] powerpc/x: step 1"
    refs = f"<{COVER}>" if to == COVER else f"<{COVER}> <{to}>"
    raw = (
        f"From: {sender}\nMessage-ID: <r{n}@example.net>\nIn-Reply-To: <{to}>\nReferences: {refs}\n"
        f"Subject: {subject}\nDate: Tue, 10 Sep 2019 10:00:00 +0000\n\n"
        f"On Mon, 2019-09-02 at 15:29:26 UTC, Ada Author wrote:\n> Step 1 of the series.\n\n{body}\n"
    )
    return parse_rfc822(raw.encode(), "test")


FIRST = "20190902152931.1000-2-ada@example.org"


def test_series_applied_under_the_first_patch_settles_every_patch() -> None:
    reply = _reply("Series applied to powerpc next, thanks.\n\nhttps://git.example.org/powerpc/c/0123abcd", to=FIRST)
    for n in (1, 2, 8):
        assert applied_in_thread(_patch(n), [reply]) == "r1@example.net", n
    # a bare "Applied to powerpc/next." under patch 1 says nothing of patch 2
    bare = _reply("Applied to powerpc/next.", to=FIRST, n=2)
    assert applied_in_thread(_patch(1), [bare]) == "r2@example.net"
    assert applied_in_thread(_patch(2), [bare]) is None


def test_a_list_of_numbers_and_ranges_names_the_patches_applied() -> None:
    reply = _reply("Patches 1, 2 and 4-8, applied to powerpc next, thanks.", to=COVER)
    assert [n for n in range(1, 9) if applied_in_thread(_patch(n), [reply])] == [1, 2, 4, 5, 6, 7, 8]
    under_first = _reply("Patches 1-19 applied to powerpc/next.", to=FIRST, n=3)
    assert applied_in_thread(_patch(12, 20), [under_first]) == "r3@example.net"
    assert applied_in_thread(_patch(20, 20), [under_first]) is None


def test_a_bot_reports_the_patch_applied() -> None:
    bot = _reply(
        "Hello:\n\nThis patch was applied to netdev/net-next.git (master)\nby David S. Miller <davem@example.net>:",
        to=FIRST,
        sender="patchwork-bot+netdevbpf@kernel.org",
    )
    assert applied_in_thread(_patch(1), [bot]) == "r1@example.net"
    assert applied_in_thread(_patch(3), [bot]) is None  # "this patch": the one it answers


def test_the_author_applies_the_series_to_their_tree() -> None:
    author = "Chris Hacker <ch@example.de>"
    mine = _reply("I've applied this to the dma-mapping for-next tree now.", to=COVER, sender=author)
    said = said_in_thread(_patch(3, author=author), [mine])
    assert said is not None and said[0] == "applied" and "the author (Chris Hacker)" in said[1]
    # not an apply: testing on top of a tree, or a plan
    for body in ("I applied it on top of v5.3-rc4 and it boots.", "I haven't applied this to the tree yet."):
        assert said_in_thread(_patch(3, author=author), [_reply(body, to=COVER, sender=author, n=4)]) is None, body


def test_series_applied_under_a_sibling_that_names_only_itself() -> None:
    """patchwork's reply to the first patch carries only that patch in In-Reply-To/References."""
    raw = (
        f"From: Mick Maint <mick@example.net>\nMessage-ID: <pw1@example.net>\nIn-Reply-To: <{FIRST}>\n"
        f"References: <{FIRST}>\nSubject: Re: [PATCH 1/8] powerpc/x: step 1\nDate: Tue, 10 Sep 2019 10:00:00 +0000\n\n"
        "Series applied to powerpc next, thanks.\n"
    )
    reply = parse_rfc822(raw.encode(), "test")
    thread = [_patch(1).message, reply]
    assert applied_in_thread(_patch(5), thread) == "pw1@example.net"
    assert applied_in_thread(_patch(5), [reply]) is None  # without the sibling in the thread: not known


def test_applied_as_a_later_sentence_of_a_line() -> None:
    body = "OK, I can live with that.  Applied, let's see if it passes smoke tests in -next."
    assert applied_in_thread(_patch(1), [_reply(body, to=FIRST)]) == "r1@example.net"
    # a tester applying it locally is no apply: "Applied, and it builds and boots here."
    assert (
        applied_in_thread(_patch(1), [_reply("Looks fine. Applied, and it builds and boots here.", to=FIRST)]) is None
    )


def test_a_patchwork_client_reports_a_count_and_lists_the_commits() -> None:
    """The wireless trees' report (first-look reading r12: 9 of 30 drafts went to threads it had settled):
    "9 patches applied to wireless-next.git, thanks." then one "hash title" line per commit. The count is not a
    patch number; the listed titles say which patches went in."""
    listing = "\n".join(f"{1000 + n:012x} powerpc/x: step {n}" for n in (1, 2, 3, 4, 5, 6, 7))
    reply = _reply(
        f"7 patches applied to powerpc-next.git, thanks.\n\n{listing}\n\n-- \nhttps://pw.example/1/", to=FIRST
    )
    assert [n for n in range(1, 9) if applied_in_thread(_patch(n), [reply])] == [1, 2, 3, 4, 5, 6, 7]
    # the other spelling, on the cover letter, listing the whole series
    whole = "\n".join(f"{2000 + n:012x} powerpc/x: step {n}" for n in range(1, 9))
    other = _reply(f"8 patch(es) applied to next branch of x.git, thanks.\n\n{whole}", to=COVER, n=2)
    assert applied_in_thread(_patch(8), [other]) == "r2@example.net"
    # a count alone that covers the series settles every patch; a smaller one says nothing of the rest
    assert (
        applied_in_thread(_patch(5), [_reply("8 patches applied to x.git, thanks.", to=FIRST, n=3)]) == "r3@example.net"
    )
    assert applied_in_thread(_patch(5), [_reply("2 patches applied to x.git, thanks.", to=FIRST, n=4)]) is None


def test_the_author_s_tree_report_listing_the_commit_settles_it() -> None:
    # r12's rereading: the rtw tree's maintainer applies his own series with the same report; a plain "Applied,
    # thanks" from the author stays ambiguous, as does a count without the commits
    author = "Ada Author <ada@example.org>"
    listing = "\n".join(f"{3000 + n:012x} powerpc/x: step {n}" for n in range(1, 9))
    report = _reply(f"8 patch(es) applied to next branch of x.git, thanks.\n\n{listing}", to=COVER, sender=author)
    assert applied_in_thread(_patch(5), [report]) == "r1@example.net"
    for n, body in enumerate(("Applied, thanks!", "8 patch(es) applied to next branch of x.git, thanks."), 2):
        assert applied_in_thread(_patch(5), [_reply(body, to=COVER, sender=author, n=n)]) is None, body


def test_all_applied_under_the_first_patch_of_a_series_without_a_cover() -> None:
    # r13 (linux-crypto): "[PATCH 2/2]" sent in reply to "[PATCH 1/2]", no cover letter; the maintainer's
    # "All applied.  Thanks." under patch 1 settles patch 2 too
    first = _patch(1, 2)
    raw = (
        f"From: Ada Author <ada@example.org>\nMessage-ID: <second@example.org>\nIn-Reply-To: <{FIRST}>\n"
        f"References: <{FIRST}>\nSubject: [PATCH 2/2] powerpc/x: step 2\nDate: Mon, 02 Sep 2019 15:29:32 +0000\n\n"
        f"Step 2.\n\nSigned-off-by: Ada Author <ada@example.org>\n{DIFF}"
    )
    second = parse_patch(parse_rfc822(raw.encode(), "test"))
    reply = _reply("All applied.  Thanks.", to=FIRST)
    assert applied_in_thread(second, [first.message, reply]) == "r1@example.net"
    assert applied_in_thread(second, [first.message, _reply("Applied.  Thanks.", to=FIRST, n=2)]) is None
