"""A batch is reviewed group by group (threads, a send-email run, an unthreaded series) with what one
review of every message gives; a message whose diff cannot be parsed and so changes the threads makes
the run one group; the run keeps each patch without its hunks.

Real mails: the evalset-extra mails and the cases shipped in tests/data, and small format-patch files
written here (mail text, no mocks).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from conftest import CASES, DATA
from reviewbot.checking import (
    _ThreadsChanged,
    _read_headers,
    _review_groups,
    _review_in_groups,
    _same_threads,
    check_messages,
    load_check_rules,
    messages_from_bytes,
    read_input,
)
from reviewbot.review import Reviewer, thread_roots

EXTRA = DATA / "evalset-extra" / "mail"


def _both_ways(items, rules):
    """(grouped, as one group) results of the run's review."""
    decoded, context, replies, problems = _read_headers(items)
    reviewer = Reviewer(rules, settle=True)
    out = []
    for grouped in (True, False):
        done = list(_review_in_groups(items, decoded, context, replies, problems, reviewer, grouped=grouped))
        done[3] = [str(p) for p in done[3]]  # errors compare by what they say
        done[5] = sorted(done[5])  # the cover letters given, in review order
        out.append(done)
    return out[0], out[1]


def _groups(items) -> list[list[int]]:
    decoded, context, _, _ = _read_headers(items)
    messages = sorted([*decoded, *context], key=lambda t: t[0])
    group_of = _review_groups(messages, thread_roots(m for _, m in messages))
    out: dict[str, list[int]] = {}
    for pos, _ in messages:
        out.setdefault(group_of[pos], []).append(pos)
    return sorted(out.values())


@pytest.mark.parametrize("inputs", [[EXTRA], [CASES / "C10.mbox", CASES / "C21.mbox", CASES / "C25.mbox"]])
def test_groups_give_what_one_review_gives(inputs: list[Path]) -> None:
    items = [item for path in inputs for item in read_input(str(path))]
    assert len(_groups(items)) >= 3  # several groups, so the comparison says something
    grouped, whole = _both_ways(items, load_check_rules())
    assert grouped[0] and grouped == whole


def _mail(n: int, subject: str, body: str, *, author: str = "Ada Example <ada@example.org>", headers: str = "") -> str:
    return (
        f"From 000000000000000000000000000000000000000{n} Mon Sep 17 00:00:00 2001\n"
        f"From: {author}\nDate: Mon, 3 Mar 2025 10:0{n}:00 +0000\nSubject: {subject}\n"
        f"Message-ID: <m{n}@example.org>\n{headers}\n{body}\n"
    )


def _diff(name: str, old: str = "a", new: str = "b", *, hunk: str = "@@ -1 +1 @@") -> str:
    return f"diff --git a/{name} b/{name}\n--- a/{name}\n+++ b/{name}\n{hunk}\n-{old}\n+{new}\n"


def test_unthreaded_series_is_one_group_unrelated_patches_are_not() -> None:
    """git format-patch without --thread: the cover letter and its patches (one sent for another author
    with an in-body From) are reviewed together; a patch of another author with its own counter is not."""
    mbox = "".join(
        [
            _mail(1, "[PATCH 0/2] foo: two fixes", "Two fixes.\n"),
            _mail(2, "[PATCH 1/2] foo: fix a", "Fix a.\n\nSigned-off-by: Ada\n---\n" + _diff("a.c")),
            _mail(
                3,
                "[PATCH 2/2] foo: fix b",
                "From: Bob Other <bob@example.org>\n\nFix b.\n\nSigned-off-by: Bob\n---\n" + _diff("b.c"),
            ),
            _mail(4, "[PATCH 1/3] bar: fix c", "Fix c.\n---\n" + _diff("c.c"), author="Cy <cy@example.org>"),
            _mail(5, "[PATCH] baz: fix d", "Fix d.\n---\n" + _diff("d.c")),
        ]
    )
    items = messages_from_bytes(mbox.encode(), "series.mbox")
    assert _groups(items) == [[0, 1, 2], [3], [4]]
    grouped, whole = _both_ways(items, load_check_rules())
    assert grouped == whole
    run = check_messages(items, load_check_rules())
    assert [cp.patch.subject.raw for cp in run.patches] == [
        "[PATCH 1/2] foo: fix a",
        "[PATCH 2/2] foo: fix b",
        "[PATCH 1/3] bar: fix c",
        "[PATCH] baz: fix d",
    ]


def test_a_broken_patch_that_was_a_thread_link_makes_one_group() -> None:
    """The middle message's diff cannot be parsed: it is left out, and the reply below it (which names
    only it) no longer reaches the thread's root: the threads change, the run is reviewed as one group."""
    mbox = "".join(
        [
            _mail(1, "[PATCH 1/2] foo: fix a", "Fix a.\n---\n" + _diff("a.c")),
            _mail(
                2,
                "[PATCH 2/2] foo: fix b",
                "Fix b.\n---\n" + _diff("b.c", hunk="@@ -1,3 +1,3 @@"),  # says 3 lines, has 1
                headers="In-Reply-To: <m1@example.org>\nReferences: <m1@example.org>\n",
            ),
            _mail(
                3,
                "Re: [PATCH 2/2] foo: fix b",
                "> Fix b.\n\nThis is 10% faster?\n",
                headers="In-Reply-To: <m2@example.org>\nReferences: <m2@example.org>\n",
            ),
        ]
    )
    items = messages_from_bytes(mbox.encode(), "broken.mbox")
    decoded, context, replies, problems = _read_headers(items)
    messages = sorted([*decoded, *context], key=lambda t: t[0])
    with pytest.raises(_ThreadsChanged):
        _same_threads(messages, {1}, thread_roots(m for _, m in messages))
    reviewer = Reviewer(load_check_rules(), settle=True)
    with pytest.raises(_ThreadsChanged):
        _review_in_groups(items, decoded, context, replies, problems, reviewer, grouped=True)
    whole = _review_in_groups(items, decoded, context, replies, problems, reviewer, grouped=False)
    run = check_messages(items, load_check_rules())
    assert [cp.patch.subject.raw for cp in run.patches] == ["[PATCH 1/2] foo: fix a"]
    assert len(run.problems) == 1 and "<m2@example.org>" in str(run.problems[0])
    assert run.patches == tuple(whole[0])


def test_the_run_keeps_files_and_counts_not_hunks() -> None:
    (cp,) = check_messages(read_input(str(CASES / "C14.patch")), load_check_rules()).patches
    assert cp.patch.files and all(fd.hunks == () for fd in cp.patch.files)
    assert cp.line_counts() != (0, 0) and cp.lines_checked > 0
    full = replace(cp, added=None, removed=None)  # counted from the patch: none left
    assert full.line_counts() == (0, 0)
