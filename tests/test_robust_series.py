"""Issue 13: series grouping does bounded work per message, whatever the subject counters say.

``[PATCH 1/999999]`` made grouping list 999,998 missing indexes (about 39 MB) per
message, and an unthreaded series of n patches (each its own group of total n)
n*n. Crafted mails through the real parser, grouped by ``group_series`` (scan)
and ``check`` (``check_messages``, which adds the unthreaded-series merge).
"""

from __future__ import annotations

import dataclasses
import tracemalloc

from click.testing import CliRunner

from reviewbot.cli import main
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.parse.subject import parse_subject
from reviewbot.parse.threads import MAX_MISSING_LISTED, group_series, missing_indexes

DIFF = """Signed-off-by: Ada <ada@example.org>
---
diff --git a/f.c b/f.c
--- a/f.c
+++ b/f.c
@@ -1,2 +1,3 @@
 int a;
+int b;
 int c;
"""


def mail(mid: str, subject: str, sender: str = "ada@example.org") -> bytes:
    return (
        f"From: Ada <{sender}>\nMessage-ID: <{mid}>\nSubject: {subject}\n"
        f"Date: Wed, 12 Mar 2025 10:00:00 +0100\n\n{DIFF}"
    ).encode()


def patches(subjects):
    """One parsed patch per subject (the parse done once, the Message-ID and subject set per copy)."""
    base = parse_patch(parse_rfc822(mail("m@example.org", "[PATCH] x"), "m"))
    return [
        dataclasses.replace(
            base, message=dataclasses.replace(base.message, message_id=f"m{n}@example.org", subject=parse_subject(s))
        )
        for n, s in enumerate(subjects)
    ]


def test_missing_indexes_is_bounded():
    assert missing_indexes({1, 3}, 4) == (2, 4)
    assert missing_indexes(set(), 999_999) == tuple(range(1, MAX_MISSING_LISTED + 1))
    assert missing_indexes(set(range(1, 1001)), 10**12) == tuple(range(1001, 1001 + MAX_MISSING_LISTED))


def test_huge_counters_cost_little_memory():
    items = patches([f"[PATCH {n % 7 + 1}/999999] part {n}" for n in range(40)])
    tracemalloc.start()
    try:
        series = group_series(items)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(series) == 40 and all(len(s.missing) == MAX_MISSING_LISTED for s in series)
    assert peak < 5_000_000  # was 40 x 39 MB


def test_unthreaded_series_grows_linearly():
    """n unthreaded patches [PATCH i/n]: every one is its own group (no thread, no cover letter),
    each listed n-1 missing indexes: n*n entries. Now at most the cap per group."""

    def entries(n: int) -> int:
        return sum(len(s.missing) for s in group_series(patches([f"[PATCH {i}/{n}] p{i}" for i in range(1, n + 1)])))

    small, big = entries(600), entries(6000)
    assert small <= 600 * MAX_MISSING_LISTED and big <= 6000 * MAX_MISSING_LISTED
    assert big <= 11 * small  # linear: ten times the patches, about ten times the entries (was 100x)


def test_check_command_with_huge_counters(tmp_path):
    mbox = tmp_path / "many.mbox"
    with mbox.open("wb") as fh:
        for n in range(60):
            fh.write(b"From ada@example.org Wed Mar 12 09:00:00 2025\n")
            fh.write(mail(f"x{n}@example.org", f"[PATCH 1/999999] part {n}", sender=f"a{n}@example.org") + b"\n")
    tracemalloc.start()
    try:
        result = CliRunner().invoke(main, ["check", "--format", "terse", str(mbox)])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.exit_code in (0, 1), result.output
    assert peak < 200_000_000  # was about 60 x 39 MB
