"""RB201's reply paragraph: it quotes the sentence that holds the claim and asks for a measurement that fits it.

Each case is a real mail text (own wording) parsed like a list message, checked by the rule, and answered
by ``reply_point``; the asserts read the paragraph a maintainer would get.
"""

from __future__ import annotations

from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.rule import RuleContext
from reviewbot.rules import rb201_perf_claim as rb201

HUNK = """diff --git a/{path} b/{path}
index 3c41a9e..7d20b5f 100644
--- a/{path}
+++ b/{path}
@@ -40,8 +40,8 @@ static int qux_poll(struct qux_ring *ring, int budget)
 	while (done < budget) {{
 		struct qux_desc *desc = qux_next_desc(ring);
\x20
-		if (!qux_desc_ready(desc))
-			break;
+		if (!qux_desc_ready(desc))
+			break;
 		qux_one(ring, desc);
 		done++;
 	}}
"""


def _reply(subject: str, body: str, path: str = "drivers/misc/qux.c") -> str:
    mail = (
        f"From: Ada Example <ada@example.org>\nDate: Mon, 10 Mar 2025 10:00:00 +0100\n"
        f"Message-ID: <qux-1@example.org>\nSubject: {subject}\n\n{body.strip()}\n\n"
        f"Signed-off-by: Ada Example <ada@example.org>\n---\n\n" + HUNK.format(path=path)
    )
    patch = parse_patch(parse_rfc822(mail.encode(), "test mail"))
    findings = list(rb201.check(patch, RuleContext()))
    assert len(findings) == 1, findings
    return " ".join(rb201.reply_point(findings, patch).split())


def test_quotes_the_sentence_with_the_claim_not_the_start_of_its_line() -> None:
    text = _reply(
        "[PATCH] qux: switch to the crc32c library",
        """
Now that the crc32c() library function uses architecture-specific
optimizations, going through the crypto API is unnecessary.  Just call it.
This is much simpler, and it improves performance due to eliminating the
crypto API overhead.
""",
    )
    assert 'says "This is much simpler, and it improves performance due to eliminating the crypto API overhead"' in text
    assert "Now that" not in text


def test_a_list_item_is_quoted_alone_and_a_barrier_change_asks_for_cycles() -> None:
    text = _reply(
        "[PATCH] qux: tidy the completion path",
        """
The changes in this patch are as follows:
- Change two memory barriers into acquire / release operations since the
  latter are faster.
- Fix a race between the completion flag and the retry check by reading
  the flag first.
""",
    )
    assert 'says "Change two memory barriers into acquire / release operations since the latter are faster"' in text
    assert "Fix a race" not in text
    assert "cycles per call" in text


def test_a_claim_that_introduces_a_list_quotes_the_subject_and_asks_for_cycles_not_fio() -> None:
    text = _reply(
        "[PATCH] qux: cleanup and optimize qux_gap_to_prev",
        """
Micro-optimize the code in qux_gap_to_prev using two tricks:

 - OR the offset and the length so that one branch checks both.
 - Always OR in the boundary mask, as that instruction is cheaper than
   the branch.

The first optimization was taken from an earlier series by Bob.
""",
        path="block/qux-merge.c",
    )
    assert (
        text.startswith('The subject says "qux: cleanup and optimize qux_gap_to_prev"')
        or 'The subject says "cleanup and optimize qux_gap_to_prev"' in text
    )
    assert "two tricks" not in text and "first optimization" not in text
    assert "cycles per call" in text and "fio" not in text


def test_an_io_throughput_claim_in_block_code_asks_for_fio() -> None:
    text = _reply(
        "[PATCH] qux: batch tag allocation",
        """
Allocate tags in batches of eight, which improves throughput on fast
devices because the tag bitmap is touched once per batch.
""",
        path="block/qux-tag.c",
    )
    assert "throughput numbers before and after" in text and "(fio, or the workload" in text
    assert "perf c2c" not in text


def test_perf_c2c_only_for_a_cache_line_claim() -> None:
    fast_path = _reply(
        "[PATCH] qux: add a fast path for uncontended locking",
        """
Add a fast path for the uncontended case, which saves a few instructions.
The lock word and the owner sit in the same cache line already.
""",
    )
    assert "perf c2c" not in fast_path and "cycles per call" in fast_path
    contention = _reply(
        "[PATCH] qux: move the counters apart",
        """
Put the producer and consumer counters on separate cache lines to reduce
contention between the two CPUs.
""",
    )
    assert "perf c2c" in contention
