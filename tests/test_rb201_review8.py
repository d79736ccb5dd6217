"""RB201 on issue 23's fourth first-look batch (first4: nine lists), fixed by kind as general readings.

Not claims: a vague word whose object is no run-time speed: hardware resources ("optimize pin usage"), code
tidied ("optimize helpers only the board files used"), storage ("more efficient to store X in Y"), the
hardware's own speed ("improve bus performance", "fallback to slow memory nodes"), a configured hardware timing
("cycles of the clock-high pulse"); a sentence whose subject is another actor ("Users can ... and get a better
optimization"); "for efficiency" in a sentence describing the existing design. Claims: "should further improve X
and performance" ("further" before the verb is "also", not later work; the verb reaches over "X and"), "eliminate
their performance impact", and a revert's own purpose ("by reverting we fix the performance regression"); what a
revert quotes of the reverted commit stays no claim. Evidence: pahole's before and after counts measure a claim
about how many cache lines; "2.4 Gbit" is a rate. The sentences are our own, modelled on the kinds read.
"""

from __future__ import annotations

import pytest

from reviewbot.engine import check_patch
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.rule import RuleContext
from reviewbot.rules import rb201_perf_claim as rb201

_RULE = next(r for r in load_rules(entry_points=False) if r.id == "RB201")


@pytest.mark.parametrize(
    "text",
    [
        "To optimize pin usage, route both chip selects through one group.",
        "Additionally, optimize helpers that only the legacy board files called.",
        "It is a bit more efficient to store the mode once in the shared context than in every request.",
        "The burst length is a DMA setting meant to improve bus performance.",
        "This also avoids a fallback to slow memory nodes for pinned buffers.",
        "- acme,scl-high-cycles: Cycles of the clock-high pulse",
        "Users can tune the divider for each board and get an even better optimization.",
        "In the foo driver, dirty bits tell when pages changed, allowing for batched writeback to be done for "
        "efficiency.",
        "The old layout mixed the hot and cold parts, blocking their further optimization.",
    ],
)
def test_no_claim(text: str) -> None:
    assert rb201.find_claim(text) is None


@pytest.mark.parametrize(
    ("text", "claim"),
    [
        (
            "The queue now uses a threaded handler which should further improve the console responsiveness and "
            "performance.",
            "improve the console responsiveness and performance",
        ),
        (
            "Skip the setup of the unused entries to eliminate their performance impact.",
            "eliminate their performance impact",
        ),
        # near misses of the kinds above: speed named for the patch's own change
        ("Use a per-CPU list for performance.", "for performance"),
        ("Micro-optimize the code in foo_gap() using two tricks.", "optimize"),
        ("This cuts the bus cycles of the status poll in half.", "cuts the bus cycles"),
    ],
)
def test_claim(text: str, claim: str) -> None:
    found = rb201.find_claim(text)
    assert found is not None and found.text == claim


def _patch(subject: str, body: str, notes: str = "") -> bytes:
    return (
        f"From: Ada Example <ada@example.org>\nSubject: [PATCH] {subject}\nMessage-ID: <x@example.org>\n\n"
        f"{body}\nSigned-off-by: Ada Example <ada@example.org>\n---\n{notes}"
        "diff --git a/drivers/foo/foo.c b/drivers/foo/foo.c\n--- a/drivers/foo/foo.c\n+++ b/drivers/foo/foo.c\n"
        "@@ -1,1 +1,2 @@\n a\n+b\n"
    ).encode()


def _findings(subject: str, body: str, notes: str = "") -> list:
    patch = parse_patch(parse_rfc822(_patch(subject, body, notes), "t"))
    return list(check_patch(patch, [_RULE], RuleContext()).findings)


def test_a_revert_claims_what_reverting_does() -> None:
    body = (
        "This reverts commit 0123456789ab.\n\nThe foo driver lost its blitter path with it, and scrolling got much\n"
        "slower on old cards.\n\nBy reverting we restore the blitter path and fix the performance regression.\n"
    )
    (f,) = _findings('Revert "foo: drop the blitter path"', body)
    assert f.details["claim"] == "performance regression"


def test_a_revert_quoting_the_reverted_optimisation_claims_nothing() -> None:
    body = (
        "This reverts commit 0123456789ab.\n\nThe commit made the stock refill faster by skipping the irq\n"
        "disable, but the skipped section races with the drain.\n"
    )
    assert _findings('Revert "foo: speed up the stock refill"', body) == []


_PAHOLE = (
    "pahole, before:\n\tstruct foo_frame {\n\t...\n\t/* size: 72, cachelines: 2, members: 9 */\n\t};\n\n"
    "after:\n\tstruct foo_frame {\n\t...\n\t/* size: 64, cachelines: 1, members: 9 */\n\t};\n\n"
)


def test_pahole_counts_measure_a_claim_about_cache_lines() -> None:
    body = "Group the members by size to close two holes.\n\nIt saves 8 bytes and is more cache-line friendly.\n"
    assert _findings("foo: reorder struct foo_frame", body, _PAHOLE) == []
    assert len(_findings("foo: reorder struct foo_frame", body)) == 1  # without pahole's output: asked


def test_pahole_counts_do_not_measure_a_speed_claim() -> None:
    body = "Move the hot members into the first cache line so the lookup runs faster.\n"
    assert len(_findings("foo: reorder struct foo_frame", body, _PAHOLE)) == 1


def test_gbit_is_a_rate() -> None:
    assert rb201.ev._grade("On a Foo board the new path reaches 2.4 Gbit, the old one 900 Mbit.") == "measured"
    assert rb201.ev._grade("The register is 32 bit wide and takes 2 bits per lane.") != "measured"
