"""RB201, RB101 and RB202 after the third whole-mirror review: what the example patches alone cannot show.

* a cover letter is graded as the cover letter (its paragraphs about other patches left out), never as the
  author's reply in the thread; "patches 12 and 13" are no table of results;
* with the author's size numbers quoted, the draft asks for runtime numbers, not "do you have numbers?";
* the RB101 reply names a few moved members of a big reorder and "and N more".

The mails are in our own words, modelled on the messages the reviewer judged wrong.
"""

from __future__ import annotations

from pathlib import Path

from reviewbot.engine import check_patch
from reviewbot.models import FindingState, Severity
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.rule import RuleContext
from reviewbot.rules import rb101_struct_reorder as rb101
from reviewbot.rules import rb201_perf_claim as rb201

RULES = {r.id: r for r in load_rules(entry_points=False)}
EXAMPLES = Path(RULES["RB201"].examples_dir)

PATCH_3 = """From: Ada Example <ada@example.org>
Date: Mon, 10 Mar 2025 10:00:00 +0100
Message-ID: <zones-4@example.org>
In-Reply-To: <zones-0@example.org>
References: <zones-0@example.org>
Subject: [PATCH 3/5] qux: reorganize struct qux_zone

Reorganize the fields of struct qux_zone to avoid having the work item
split between 2 cache lines.

Signed-off-by: Ada Example <ada@example.org>
---
diff --git a/drivers/block/qux/zone.c b/drivers/block/qux/zone.c
index 3c41a9e..7d20b5f 100644
--- a/drivers/block/qux/zone.c
+++ b/drivers/block/qux/zone.c
@@ -40,3 +40,3 @@ static int qux_zone_poll(struct qux_zone *z)
 \tint done = 0;
-\tdone = qux_step(z, 0);
+\tdone = qux_step(z, QUX_NONE);
 \treturn done;
"""

COVER = """From: Ada Example <ada@example.org>
Date: Mon, 10 Mar 2025 10:00:00 +0100
Message-ID: <zones-0@example.org>
Subject: [PATCH 0/5] qux: cached zone reports

This series caches zone reports, which can speed up mounting a lot.

The first patch cleans up the report path. From patch 2 to 4 the zone
structures are reworked, and finally patches 5 and 6 switch the users
to the cached reports.

{extra}
Ada Example (5):
  qux: clean up the report path
  qux: track zone conditions
  qux: reorganize struct qux_zone
  qux: cache zone reports
  quxfs: use cached zone reports
"""


def _mail(text: str):
    return parse_rfc822(text.encode(), "test mail")


def test_a_cover_letter_is_never_taken_for_the_authors_reply() -> None:
    """The cover letter sits in the thread too; its patch numbers made a 'results table' of it, so the finding
    said the numbers were in the author's reply (evalset DA059)."""
    patch = parse_patch(_mail(PATCH_3))
    cover_mail = _mail(COVER.format(extra=""))
    (f,) = check_patch(
        patch, [RULES["RB201"]], RuleContext(cover=parse_patch(cover_mail), thread=(cover_mail,), strict=True)
    ).findings
    assert f.state is FindingState.OPEN
    assert f.details["evidence_source"] is None
    assert "split between 2 cache lines" in f.message


def test_a_cover_letter_with_numbers_for_the_series_still_answers() -> None:
    extra = "Mounting a 20-disk array went from 41.2 s to 3.8 s with the series.\n"
    patch = parse_patch(_mail(PATCH_3))
    cover_mail = _mail(COVER.format(extra=extra))
    (f,) = check_patch(
        patch, [RULES["RB201"]], RuleContext(cover=parse_patch(cover_mail), thread=(cover_mail,), strict=True)
    ).findings
    assert f.state is FindingState.ANSWERED
    assert f.details["evidence_source"] == "cover letter"


def test_patch_numbers_are_no_table_of_results() -> None:
    text = "This can speed things up a lot.\n\nFrom patch 5 to 10 the cache is added,\nand patches 12 and 13 use it.\n"
    assert rb201.ev._grade(text) == "none"
    assert rb201.ev._grade(text + "\nbefore: 12.1 s\nafter:   3.4 s\n") == "measured"


def _example(name: str):
    path = EXAMPLES / name
    return parse_patch(parse_rfc822(path.read_bytes(), str(path)))


def test_with_size_numbers_the_draft_asks_for_runtime_numbers_only() -> None:
    """axboe request_queue: "864 bytes (spanning 14 cachelines!) to 832 bytes" next to "a bit more
    efficiently"; asking "do you have numbers?" after quoting them reads as not having read them."""
    patch = _example("bad-claim-with-size-numbers.patch")
    (f,) = rb201.check(patch, RuleContext())
    assert f.details["size_numbers"] is True
    text = rb201.reply_point([f], patch)
    assert "192 bytes" in text  # the quoted sentence
    assert "Do you have numbers for this?" not in text
    assert "runtime numbers for the speed part?" in text
    assert "perf c2c" not in text  # "4 cachelines" is the size, not contention
    assert "perf c2c" not in rb201.reply([f], patch)


def test_without_size_numbers_the_draft_asks_as_before() -> None:
    patch = _example("bad-library-switch-simpler-and-faster.patch")
    (f,) = rb201.check(patch, RuleContext())
    assert f.details["size_numbers"] is False
    assert "Do you have numbers for this?" in rb201.reply_point([f], patch)


def _big_reorder(n: int):
    names = [f"field_{i:02d}" for i in range(n)]
    old = "".join(f"-\tu64\t{m};\n" for m in names)
    new = "".join(f"+\tu64\t{m};\n" for m in reversed(names))
    mail = (
        "From: Ada Example <ada@example.org>\nDate: Mon, 10 Mar 2025 10:00:00 +0100\n"
        "Message-ID: <big-1@example.org>\nSubject: [PATCH] qux: improve struct qux_queue layout\n\n"
        "Move the most frequently used fields into the first cache line.\n\n"
        "Signed-off-by: Ada Example <ada@example.org>\n---\n"
        "diff --git a/drivers/qux/qux.h b/drivers/qux/qux.h\nindex 3c41a9e..7d20b5f 100644\n"
        "--- a/drivers/qux/qux.h\n+++ b/drivers/qux/qux.h\n"
        f"@@ -10,{n + 2} +10,{n + 2} @@\n struct qux_queue {{\n{old}{new} }};\n"
    )
    return parse_patch(parse_rfc822(mail.encode(), "test mail"))


def test_rb101_reply_names_a_few_moved_members_of_a_big_reorder() -> None:
    patch = _big_reorder(12)
    (f,) = rb101.check(patch, RuleContext())
    assert f.severity is Severity.WARNING
    moved = f.details["members"]
    assert len(moved) >= 10
    for text in (rb101.reply_point([f], patch), rb101.reply([f], patch)):
        shown = [m for m in moved if m in text]
        assert shown == moved[: rb101.REPLY_MEMBERS]
        assert f"and {len(moved) - rb101.REPLY_MEMBERS} more" in text
        assert "the new order" not in text


def test_rb101_reply_names_every_member_of_a_small_reorder() -> None:
    patch = _big_reorder(3)
    (f,) = rb101.check(patch, RuleContext())
    text = rb101.reply_point([f], patch)
    assert all(m in text for m in f.details["members"]) and "more" not in text


def test_a_cache_claim_backed_only_by_size_numbers_stays_a_finding() -> None:
    """ "reducing its size improves cache usage" with 72 -> 64 bytes: still asked (the corpus label of the bfq
    packing patch expects it), size numbers are no speed numbers, and the draft asks for runtime numbers."""
    patch = _example("bad-size-numbers-and-cache-usage.patch")
    (f,) = rb201.check(patch, RuleContext())
    assert f.details["evidence"] == "claim-only" and f.details["size_numbers"] is True
    assert "runtime numbers" in rb201.reply_point([f], patch)
