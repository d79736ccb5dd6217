"""Issue 13: every pattern run on message text is linear in the text.

A mail whose line repeats one word 10,000 times must not cost the rules or the
thread check (did someone already ask, did the author answer, is the patch
applied) more than about ten times a line of 1,000. Found with a fuzz run over
every word of the rules' and the thread check's patterns (the figures are in the
issue's closing note): RB102's comment pattern (``order ... against``: 120 KB of
"order " took 16.8 s), RB102's moved-barrier key (a line of n ``smp_mb();``
normalised n times) and the thread check's ``with ... patch ... <digit>``
(cubic: 13 KB of "with patch" took 45 s).

Each input is timed at 10 KB and 100 KB (best of three); a linear check grows
about 10x, a quadratic one 100x. The bound is generous (30x plus 0.3 s).
"""

from __future__ import annotations

import dataclasses
import sys
import time

import pytest

from reviewbot.engine import check_patch
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.respond.draft import applied_in_thread, thread_state
from reviewbot.rule import RuleContext
from helpers import THREADS, read_mbox_messages

UNITS = [
    "order ",
    "ordering against ",
    "against ",
    "smp_mb(); ",
    "with patch ",
    "before ",
    " ",
    "applied ",
    "a",
    "x(",
    "/* ",
    "1 ",
    "pairs with ",
    "faster ",
    "struct foo ",
    "cache line ",
    "\t",
]
SMALL, BIG = 10_000, 100_000


@pytest.fixture(scope="module")
def rules():
    return load_rules(entry_points=False)


def _line(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def _mail(commit: str, added: str) -> bytes:
    return (
        "From: Ada <ada@example.org>\nMessage-ID: <m@example.org>\nSubject: [PATCH] foo: speed up x\n"
        f"Date: Wed, 12 Mar 2025 10:00:00 +0100\n\n{commit}\n\nSigned-off-by: Ada <ada@example.org>\n---\n"
        "diff --git a/f.c b/f.c\n--- a/f.c\n+++ b/f.c\n@@ -1,2 +1,4 @@\n int a;\n"
        f"+{added}\n+\tsmp_mb();\n int c;\n"
    ).encode()


def _best(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def _clear_caches(rule) -> None:
    """Empty the functools caches of ``rule``'s module."""
    module = sys.modules.get(rule.module_name)
    for value in vars(module).values() if module is not None else ():
        if callable(getattr(value, "cache_clear", None)):
            value.cache_clear()


def _grows_linearly(small: float, big: float) -> bool:
    return big <= 30 * small + 0.3


@pytest.mark.parametrize("where", ["commit", "code", "comment"])
def test_rules_linear_on_repetitive_lines(rules, where: str) -> None:
    slow = []
    for unit in UNITS:

        def patch(size: int, unit: str = unit):
            line = _line(unit, size)
            commit, added = {"commit": (line, "int b;"), "code": ("x", line), "comment": ("x", f"/* {line} */")}[where]
            return parse_patch(parse_rfc822(_mail(commit, added), "m"))

        small, big = patch(SMALL), patch(BIG)
        for rule in rules:

            def cold(p, r=rule):  # a rule may cache its work per text (lru_cache): time it uncached, both sizes alike
                def run() -> None:
                    _clear_caches(r)
                    check_patch(p, [r], RuleContext())

                return run

            t_small = _best(cold(small))
            t_big = _best(cold(big), repeat=1 if t_small < 0.01 else 3)
            if not _grows_linearly(t_small, t_big):
                slow.append(f"{rule.meta.id} {unit!r}: {t_small:.3f}s -> {t_big:.3f}s")
    assert not slow


def test_thread_check_linear_on_repetitive_lines() -> None:
    messages = read_mbox_messages(THREADS / "perf-claim.mbox")
    patch = parse_patch(messages[0])
    from reviewbot.registry import load_rules as _load

    finding = check_patch(patch, _load(entry_points=False, select=("RB201",)), RuleContext()).findings[0]
    every_rule = _load(entry_points=False)  # each rule's own thread words are what is tried
    author = patch.message.from_addr
    other = dataclasses.replace(author, name="Bob Reviewer", email="bob@example.com")
    slow = []
    for unit in UNITS:

        def check(size: int, unit: str = unit):
            body = _line(unit, size)
            for sender in (author, other):
                for text in (body, "Applied" + body):
                    reply = dataclasses.replace(
                        messages[0],
                        message_id="r@example.org",
                        from_addr=sender,
                        body=text,
                        in_reply_to=patch.message_id,
                        references=(patch.message_id,),
                        date=None,
                    )
                    for rule_id in ("RB101", "RB102", "RB201", "RB202"):
                        thread_state(dataclasses.replace(finding, rule_id=rule_id), patch, [reply], rules=every_rule)
                    applied_in_thread(patch, [reply])

        t_small = _best(lambda: check(SMALL))
        t_big = _best(lambda: check(BIG))
        if not _grows_linearly(t_small, t_big):
            slow.append(f"{unit!r}: {t_small:.3f}s -> {t_big:.3f}s")
    assert not slow


def test_author_numbers_still_found() -> None:
    """The linear thread check finds what the pattern found: numbers, before/after, with/without patch."""
    from reviewbot.rules.rb201_perf_claim import THREAD_WORDS

    _has_evidence = THREAD_WORDS.answers

    assert _has_evidence("it takes 12 ms less")
    assert _has_evidence("before: slow, after: fast")
    assert not _has_evidence("before: slow\nafter: fast")  # one line, as the pattern was
    assert _has_evidence("without the patch 120, with it 100")
    assert not _has_evidence("after the patch, before the release")
    assert not _has_evidence("with patch applied it works")
    assert not _has_evidence("with\npatch\n1")  # one line only
