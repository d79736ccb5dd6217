"""RB102's step 0 (issue 9, speed): a patch whose added lines name none of the barrier words has nothing for
the rule. The word list (BARRIER_WORDS, with the "mb(" call) is written by hand beside the barrier families:
these tests hold every barrier the rule knows to it, so a barrier added to a family but not to the words
fails here, not silently in review."""

from __future__ import annotations

import re
import sys

import pytest

from reviewbot.cutil import LazyScans
from reviewbot.engine import check_patch
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.rule import RuleContext

RULE = next(r for r in load_rules(entry_points=False) if r.id == "RB102")
MODULE = sys.modules[RULE.module_name]
FAMILIES = MODULE.SMP_BARRIERS + MODULE.RAW_SMP_BARRIERS + MODULE.VIRT_BARRIERS + MODULE.DEVICE_BARRIERS


def spelled(name: str) -> list[str]:
    """The calls a family entry stands for: ``smp_cond_load_\\w+`` as the kernel spells its members."""
    if "\\w+" not in name:
        return [name]
    return [name.replace("\\w+", tail) for tail in ("acquire", "relaxed", "acquire_timewait")]


BARRIERS = [call for name in FAMILIES for call in spelled(name)]


def test_every_word_starts_with_smp_or_virt() -> None:
    # _names_a_barrier() looks for the words only in a text holding "smp_" or "virt_"
    assert all(word.startswith(("smp_", "virt_")) for word in MODULE.BARRIER_WORDS)


def test_family_entries_are_names_or_name_stems() -> None:
    # a family entry with other pattern syntax would need spelled() (and BARRIER_WORDS) taught about it
    for name in FAMILIES:
        assert re.fullmatch(r"\w+(?:\\w\+)?", name), name


@pytest.mark.parametrize("call", BARRIERS)
def test_every_barrier_the_rule_knows_passes_step_0(call: str) -> None:
    for line in (f"\t{call}();", f"\tx = {call}(&p->state);", f"\t{call} (&p->state, 1);"):
        assert MODULE.BARRIER_RE.search(line), line  # the rule's own pattern finds the call...
        assert MODULE._names_a_barrier(line), line  # ...and step 0 lets it through


@pytest.mark.parametrize(
    "line",
    [
        "\tcpu = smp_processor_id();",
        "\tphys = virt_to_phys(buf);",
        "\tnumber = p->member + nr_numbers;",
        "\tspin_lock_irqsave(&q->lock, flags);",
        "\tsmp_call_function_single(cpu, fn, NULL, 1);",
    ],
)
def test_lines_without_a_barrier_stop_at_step_0(line: str) -> None:
    assert not MODULE._names_a_barrier(line)


PATCH = b"""From: Ada Lovelace <ada@example.org>
Subject: [PATCH] zed: publish the ready flag
Message-ID: <words-1@example.org>
Date: Mon, 1 Jan 2024 00:00:00 +0000

Publish the flag.

Signed-off-by: Ada Lovelace <ada@example.org>
---
 drivers/zed/zed.c | 2 ++
 1 file changed, 2 insertions(+)

diff --git a/drivers/zed/zed.c b/drivers/zed/zed.c
--- a/drivers/zed/zed.c
+++ b/drivers/zed/zed.c
@@ -10,4 +10,6 @@ static void zed_publish(struct zed *zd)
 {
 	zd->data = 1;
+	CALL;
+	zd->ready = true;
 	zed_kick(zd);
 }
"""


@pytest.mark.parametrize("call", ["smp_cond_load_acquire(&zd->ready, VAL)", "virt_store_release(&zd->ready, 1)"])
def test_a_barrier_known_only_by_its_word_is_still_reported(call: str) -> None:
    patch = parse_patch(parse_rfc822(PATCH.replace(b"CALL", call.encode()), "words.patch"))
    found = list(check_patch(patch, [RULE], RuleContext(strict=True)).findings)
    assert [(f.line, f.details.get("barrier")) for f in found] == [(12, call.split("(")[0])]


def test_a_patch_without_a_barrier_has_no_finding() -> None:
    patch = parse_patch(parse_rfc822(PATCH.replace(b"CALL", b"smp_processor_id()"), "words.patch"))
    assert list(check_patch(patch, [RULE], RuleContext(strict=True)).findings) == []


# cutil.LazyScans scans a hunk's lines as the steps read them, carrying the block-comment state over the lines
# that hold a delimiter: each scan must be the one cutil.scan_lines() gives, read in any order.
TRICKY_LINES = [
    "/*",
    "*/",
    "/*/",
    "//*",
    "*//*",
    "/**/",
    "/*/ */",
    "/* a */ b /* c",
    "a // b /* c",
    "a /* b // c */ d",
    "*/ foo /*",
    "a */ // b",
    "x = 1; /* y */",
    "'/*'",
    '"*/" /*',
    'p = "/*"; q = 1;',
    "a/ *b",
    "/ */",
    " * middle of a comment",
    "\tsmp_mb();",
    "",
]


@pytest.mark.parametrize("text", TRICKY_LINES)
@pytest.mark.parametrize("state", [False, True])
def test_state_after_a_line_is_the_scanners(text: str, state: bool) -> None:
    from reviewbot.cutil import scan_line

    assert LazyScans._state_after(text, state) == scan_line(text, state).in_comment_after


@pytest.mark.parametrize("shift", range(0, len(TRICKY_LINES), 3))
def test_lazy_scans_are_the_scans_of_scan_lines(shift: int) -> None:
    from reviewbot.cutil import scan_lines, starts_in_comment

    texts = TRICKY_LINES[shift:] + TRICKY_LINES[:shift]
    want = scan_lines(texts, starts_in_comment(texts))
    lazy = LazyScans(texts)
    for i in reversed(range(len(texts))):  # from the end first: the state is carried on demand
        assert lazy[i] == want[i], (i, texts[i])
    assert list(LazyScans(texts)) == want
    assert LazyScans(texts)[2:5] == want[2:5]
