"""RB101/RB102 read a patch as a reviewer does (issue 10): the named steps, one kind of mistake per case.

The example patches in rules/examples/ show each kind end to end; these tests pin the steps
that decide them, with small texts of our own.
"""

from __future__ import annotations

import sys

import pytest

from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules

RULES = {rule.id: rule for rule in load_rules(entry_points=False)}


def _module(rule_id: str):
    return sys.modules[RULES[rule_id].module_name]


def _patch(subject: str, body: str):
    mail = (
        "From: Ada Example <ada@example.org>\n"
        "Message-ID: <reading@example.org>\n"
        f"Subject: [PATCH] {subject}\n\n{body}\n\nSigned-off-by: Ada Example <ada@example.org>\n---\n"
        "diff --git a/a.h b/a.h\n--- a/a.h\n+++ b/a.h\n@@ -1,2 +1,2 @@\n struct a {\n-\tint x;\n+\tint y;\n"
    )
    return parse_patch(parse_rfc822(mail.encode(), "reading.eml"))


@pytest.mark.parametrize(
    ("subject", "body", "motive"),
    [
        # said: cache lines, hot fields, locality
        ("zed: keep the rx fields together", "Avoid having the rx state split between 2 cache lines.", "cache"),
        ("zed: move rarely used fields to the end", "Plunge them to the end, better locality.", "cache"),
        ("zed: reorder struct zed_ctx", "Reorder the fields to make the lookup faster.", "cache"),
        # pahole output is the tool's words; a count of cache lines is the footprint
        ("zed: fill a hole", "Move budget up:\n\n\t/* size: 24, cachelines: 1, members: 4 */", "packing"),
        ("zed: rearrange struct zed_rqst", "This takes it from 19 to 18 cachelines.", "packing"),
        # negated, quoted from another commit, a hot[un]plug callback, a claim about something else
        ("zed: group the counters", "No attention was paid to cacheline placement here.", "unstated"),
        ("zed: keep budget with flags", 'Commit 0123456789ab ("zed: avoid false sharing") moved it.', "unstated"),
        ("zed: simplify the ctx", "The CPU hot[un]plug callbacks move to the pool functions.", "unstated"),
        ("zed: speed up orphan handling", "Add an orphan file and its lock to the superblock info.", "unstated"),
        # the locality of lookups is no memory layout
        ("zed: cache the last group lookup", "There is often some locality in looking them up.", "unstated"),
        # lock contention is not cache behaviour
        ("zed: add an orphan file", "Unlink of small files contends on the global orphan lock.", "unstated"),
    ],
)
def test_rb101_motivation_is_read_from_the_authors_own_sentences(subject: str, body: str, motive: str) -> None:
    assert _module("RB101")._motivation(_patch(subject, body)) == motive


@pytest.mark.parametrize(
    ("name", "comment", "known", "ok"),
    [
        # naming only the barrier itself names no pair
        ("virt_wmb", "This virt_wmb() ensures the ring entries are visible.", (), False),
        ("virt_wmb", "Pairs with virt_rmb() in zed_poll().", (), True),
        # the other function named without (), when the patch shows it as a function
        ("smp_rmb", "Ensure writes from zed_wake_function into uwq are visible.", ("zed_wake_function",), True),
        ("smp_rmb", "Ensure writes from zed_wake_function into uwq are visible.", (), False),
        # a device barrier's comment says what it orders
        ("wmb", "Make sure that all write ops are in order", (), False),
        ("wmb", "ensure all writes are globally visible before cpu parks", (), True),
        ("wmb", "descriptor writes before the doorbell", (), True),
    ],
)
def test_rb102_comment_names_the_other_side(name: str, comment: str, known: tuple, ok: bool) -> None:
    assert _module("RB102")._comment_ok(name, comment, frozenset(known)) is ok


@pytest.mark.parametrize(
    ("code", "is_barrier"),
    [
        ("\t__smp_text_poke_sync_each_cpu();", False),
        ("\t__smp_mb();", True),
        ("\tsmp_store_release(&zd->ops, ops);", True),
        ("\tops->smp_mb();", False),
    ],
)
def test_rb102_only_barrier_primitives_are_barriers(code: str, is_barrier: bool) -> None:
    assert bool(_module("RB102").BARRIER_RE.search(code)) is is_barrier
