"""RB201 on issue 26's eighth first-look reading (r8: five lists never read), fixed by kind as general readings.

A fresh maintainer read every draft of five list-periods; two RB201 findings asked for numbers on a patch that
claims nothing. Read as a reviewer reads them (the sentences are our own, modelled on the kinds read):

- A degree word judges an adjective ("very hot instructions", "quite expensive"), not a cost noun: "Most
  instructions have one type" counts instructions, it claims no cost taken away.
- A gain named as a noun after what it improves ("a performance gain", "a speed boost") is a claim, as "a
  performance improvement" was (r8's draft had quoted another sentence than its changelog's claim of a gain).
- "The changelog gives sizes" is said only of a changelog giving a size as a result ("saves 56 bytes", two sizes);
  "an 8 byte eventfd counter" is what a thing is (r8: a false sentence).
- "accelerated" before a noun names a feature ("the accelerated callbacks", as "the fast path"); after "is"
  it is this patch's effect ("so that validation is accelerated"), as "accelerates" is (r9).
- Time saved "for debugging" is a person's time, as "for reviewers" was (r9), a few words further on too.
- A sentence whose subject is the existing code ("The current code will, at run time, optimize X") speaks of
  that code to its end, past its commas, as "Previously ..." does.
"""

from __future__ import annotations

import pytest

from reviewbot.rules import rb201_perf_claim as rb201


@pytest.mark.parametrize(
    "text",
    [
        "Most instructions have a single type. So create a helper taking the type from the instruction.",
        "The current code will, at evaluation time, optimize some casts. That is wrong for bools: test the type.",
        "The existing implementation, when the queue is full, speeds up the flush. Keep it and fix the count.",
        "Add the missing state checks to the remaining accelerated callbacks, as fillrect() has them.",
        "Print the status code in the error messages. This saves time, specially for debugging.",
    ],
)
def test_no_claim_of_this_patch(text: str) -> None:
    assert rb201.find_claim(text) is None


@pytest.mark.parametrize(
    ("text", "claim"),
    [
        ("The atomic operations on the lock are very hot instructions. Skip the lock for a single user.", "very hot"),
        ("Skip the lock for a single user. This removes significant overhead.", "significant overhead"),
        ("This patch avoids the expensive lookup the current code makes.", "avoids the expensive"),
        ("Skip the events no one waits for. This gives a performance gain.", "performance gain"),
        ("Batch the doorbell writes for a nice speed boost.", "speed boost"),
        ("Track the evicted objects, so that their validation is accelerated.", "accelerated"),
    ],
)
def test_a_cost_judged_or_taken_away_is_still_a_claim(text: str, claim: str) -> None:
    found = rb201.find_claim(text)
    assert found is not None and claim in found.text


def _changelog_sizes(body: str) -> bool:
    from reviewbot.parse.mail import parse_rfc822
    from reviewbot.parse.patch import parse_patch
    from reviewbot.rule import RuleContext

    path = "drivers/gpu/quux/events.c"
    mail = (
        "From: Ada Example <ada@example.org>\nDate: Mon, 10 Mar 2025 10:00:00 +0100\nMessage-ID: <ev-1@example.org>\n"
        f"Subject: [PATCH] quux: deliver fewer refresh events\n\n{body}\n\nSigned-off-by: Ada Example <ada@example.org>\n"
        f"---\ndiff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n--- a/{path}\n+++ b/{path}\n"
        "@@ -10,2 +10,3 @@ static void quux_vblank(struct quux *q)\n \tq->count++;\n+\tq->skip = true;\n \tquux_kick(q);\n"
    )
    (found,) = rb201.check(parse_patch(parse_rfc822(mail.encode(), "ev")), RuleContext())
    return bool(found.details["size_numbers"])


def test_the_draft_says_the_changelog_gives_sizes_only_when_it_gives_a_size_as_a_result() -> None:
    # r8: "The changelog gives sizes" said of a changelog whose one size was "8 byte eventfd counter": a false
    # sentence; a size given as what the patch changed ("saves 56 bytes", "from 72 to 64 bytes") still counts
    claim = "Skip the events no one waits for: this gives a performance gain."
    assert not _changelog_sizes(f"{claim} One eventfd and an 8 byte counter are used.")
    assert _changelog_sizes(f"{claim} It also saves 56 bytes per device.")
    assert _changelog_sizes(f"{claim} The struct goes from 72 bytes to 64 bytes.")
