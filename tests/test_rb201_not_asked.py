"""RB201 drafts a fresh reader would not send (stop 21), fixed by kind.

Kind (a): claims a maintainer would not ask numbers for, kept as findings (the labels count them) but not drafted:
the skip ``not-asked`` names why. A diff that only adds a cache-line alignment annotation or only swaps integer
types (a port to another word size), an inline check that skips a call, a cleanup that removes code and calls
the result simpler as well as faster, a claim made only of layout words ("better memory placement"), "optimizes
how much data needs to be read in". Near misses keep their draft.
Kind (b): the asked measurement fits the claim: a lock gets lock benchmarks, a code-size claim the size delta,
work queued in bursts a workload with bursts; not "cycles per call".
Kind (c): two patches of one series with the same claim asked the same way get one draft (the first); the other
is skipped with a reason naming it.
The example patches and mails are our own, modelled on the drafts read.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewbot.engine import check_patch
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.respond.runner import SKIP_NOT_ASKED, SKIP_REPEATED
from reviewbot.rule import RuleContext
from reviewbot.rules import rb201_perf_claim as rb201
from reviewbot.store import Store
from helpers import load_thread, read_mbox_messages, draft_fixed

_RULES = load_rules(entry_points=False)
_RULE = next(r for r in _RULES if r.id == "RB201")


def _example(name: str) -> tuple:
    path = Path(_RULE.examples_dir) / name
    patch = parse_patch(parse_rfc822(path.read_bytes(), str(path)))
    return patch, list(check_patch(patch, [_RULE], RuleContext(strict=True)).findings)


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("bad-type-port.patch", "swaps integer types"),
        ("bad-quick-check-before-call.patch", "inline check"),
        ("bad-library-switch-simpler-and-faster.patch", "cleanup that removes code"),
        ("bad-indirect-call-removed.patch", "cleanup that removes code"),
        ("bad-better-placement.patch", "RB101's question"),
        ("bad-optimizes-how-much-is-read.patch", "what is read or written"),
    ],
)
def test_claims_a_maintainer_would_not_ask_about_stay_findings_without_a_draft(name: str, why: str) -> None:
    _, [finding] = _example(name)
    assert finding.severity.value == "WARNING"  # the labels count it: recall is kept
    assert why in finding.not_asked


@pytest.mark.parametrize(
    "name",
    [
        "bad-speed-up.patch",
        "bad-placement-with-gain.patch",
        "bad-hot-members-in-one-cacheline.patch",
        "bad-subject-optimize-cheaper.patch",
    ],
)
def test_near_misses_are_still_asked(name: str) -> None:
    _, findings = _example(name)
    assert findings and all(f.not_asked == "" for f in findings)


def _reply(subject: str, body: str, path: str) -> str:
    mail = (
        f"From: Ada Example <ada@example.org>\nDate: Mon, 10 Mar 2025 10:00:00 +0100\n"
        f"Message-ID: <qux-1@example.org>\nSubject: {subject}\n\n{body.strip()}\n\n"
        f"Signed-off-by: Ada Example <ada@example.org>\n---\n\n"
        f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
        "@@ -1,3 +1,4 @@ void qux(void)\n {\n-\tqux_old();\n+\tqux_new();\n+\tqux_more();\n }\n-- \n2.43.0\n"
    )
    patch = parse_patch(parse_rfc822(mail.encode(), "test mail"))
    findings = list(rb201.check(patch, RuleContext()))
    assert len(findings) == 1, findings
    return " ".join(rb201.reply_point(findings, patch).split())


def test_a_lock_with_a_code_size_claim_gets_lock_benchmarks_and_the_size_delta() -> None:
    text = _reply(
        "[PATCH] quxarch: Add qspinlock support",
        "Switch quxarch from ticket locks to qspinlock. Qspinlock has better code size and performance in a fast path.",
        "arch/quxarch/include/asm/spinlock.h",
    )
    assert "locktorture" in text and "bloat-o-meter" in text
    assert "cycles per call" not in text and "added code" not in text


def test_work_queued_in_bursts_gets_a_bursty_workload() -> None:
    text = _reply(
        "[PATCH] quxq: use a plain list for deferred work",
        "Then we can get rid of reversing the list when running it, which takes considerable cycles "
        "particularly for bursty additions.",
        "kernel/quxq.c",
    )
    assert "in bursts" in text and "cycles per call" not in text


def test_a_claim_of_instructions_still_gets_cycles_per_call() -> None:
    text = _reply(
        "[PATCH] qux: avoid a branch in qux_get()",
        "This makes the lookup in qux_get() faster by inlining the hash function.",
        "lib/qux.c",
    )
    assert "cycles per call" in text


def _mail(n: int, total: int, subject: str, body: str) -> str:
    refs = "" if n == 0 else "In-Reply-To: <p-0@example.org>\nReferences: <p-0@example.org>\n"
    return (
        f"From ada@example.org Mon Mar 10 10:0{n}:00 2025\nFrom: Ada Example <ada@example.org>\n"
        f"To: linux-kernel@vger.kernel.org\nSubject: [PATCH {n}/{total}] {subject}\n"
        f"Date: Mon, 10 Mar 2025 10:0{n}:00 +0000\nMessage-ID: <p-{n}@example.org>\n{refs}\n{body}\n"
    )


def _sibling(n: int, total: int, what: str) -> str:
    # the same claim on two sibling patches of a long series, no numbers anywhere (after "[RFC PATCH V3 05/43]
    # and 06/43 ...: Utilize 64-bit width to improve the performance")
    body = (
        f"The {what} loop walks the buffer one byte at a time. Walk it one word at a time to improve the "
        f"performance.\n\nSigned-off-by: Ada Example <ada@example.org>\n---\n"
        f"diff --git a/lib/{what}.c b/lib/{what}.c\n--- a/lib/{what}.c\n+++ b/lib/{what}.c\n"
        f"@@ -1,4 +1,6 @@ u32 {what}_walk(const u8 *p, size_t len)\n {{\n-\treturn {what}_bytes(p, len);\n"
        f"+\tif (len >= 8)\n+\t\treturn {what}_words(p, len);\n+\treturn {what}_bytes(p, len);\n }}\n \n"
        "-- \n2.43.0\n"
    )
    return _mail(n, total, f"lib: {what}: walk a word at a time", body)


def _run(tmp_path: Path, text: str, *, series: bool = True):
    mbox = tmp_path / "series.mbox"
    mbox.write_text(text)
    msgs = read_mbox_messages(mbox)
    store = Store(tmp_path / "db.sqlite")
    found = load_thread(store, msgs, _RULES)
    if series:
        for m in msgs:
            store.set_series_key(m.message_id, "v1:p-0@example.org")
    summary = draft_fixed(store, _RULES, tmp_path / "outbox")
    return store, found, summary


def test_the_same_claim_on_two_sibling_patches_is_asked_once(tmp_path: Path) -> None:
    cover = _mail(0, 10, "lib: word-at-a-time helpers", "Ten patches for the new helpers.\n")
    store, found, summary = _run(tmp_path, cover + _sibling(5, 10, "crc") + _sibling(6, 10, "csum"))
    with store:
        [first] = found["p-5@example.org"]
        [second] = found["p-6@example.org"]
        [written] = summary.written
        assert written.draft.in_reply_to == "p-5@example.org"
        skip = store.skip_for(second.fingerprint)
        assert skip is not None and skip.state == SKIP_REPEATED
        assert "<p-5@example.org>" in skip.reason and '"improve the performance"' in skip.reason
        assert store.skip_for(first.fingerprint) is None
        assert summary.not_asked == 1 and summary.handled == summary.findings


def test_a_finding_not_asked_gets_no_draft_and_a_skip_with_its_reason(tmp_path: Path) -> None:
    path = Path(_RULE.examples_dir) / "bad-quick-check-before-call.patch"
    mail = (
        "From ada@example.org Mon Mar 10 10:00:00 2025\nMessage-ID: <q-1@example.org>\n"
        + path.read_text().split("\n", 1)[1]
    )
    store, found, summary = _run(tmp_path, mail, series=False)
    with store:
        [finding] = found["q-1@example.org"]
        assert summary.written == []
        skip = store.skip_for(finding.fingerprint)
        assert skip is not None and skip.state == SKIP_NOT_ASKED and "inline check" in skip.reason
        assert summary.not_asked == 1


def test_a_member_moved_with_its_spacing_changed_is_no_type_swap() -> None:
    # after "block: move .bd_inode into 1st cacheline of block_device": "struct inode *\tbd_inode;" re-added as
    # "struct inode\t\t*bd_inode;" a few lines up: a move, still asked about
    mail = (
        "From: Ada Example <ada@example.org>\nDate: Mon, 10 Mar 2025 10:00:00 +0100\n"
        "Message-ID: <qux-2@example.org>\nSubject: [PATCH] qux: move .q_inode into the first cacheline\n\n"
        "The .q_inode field is used in the IO fast path, so it is more efficient to keep it in the first "
        "cacheline.\n\nSigned-off-by: Ada Example <ada@example.org>\n---\n"
        "diff --git a/include/linux/qux.h b/include/linux/qux.h\n--- a/include/linux/qux.h\n"
        "+++ b/include/linux/qux.h\n@@ -10,5 +10,5 @@ struct qux {\n \tdev_t\t\t\tq_dev;\n"
        "+\tstruct inode\t\t*q_inode;\n \tatomic_t\t\tq_openers;\n-\tstruct inode *\t\tq_inode;\n"
        " \tvoid *\t\t\tq_holder;\n \tvoid *\t\t\tq_claiming;\n-- \n2.43.0\n"
    )
    patch = parse_patch(parse_rfc822(mail.encode(), "test mail"))
    [finding] = rb201.check(patch, RuleContext())
    assert finding.not_asked == ""


def test_a_point_a_reviewer_already_raised_is_recorded_as_raised_not_as_not_asked(tmp_path: Path) -> None:
    path = Path(_RULE.examples_dir) / "bad-quick-check-before-call.patch"
    patch_mail = (
        "From ada@example.org Mon Mar 10 10:00:00 2025\nMessage-ID: <q-1@example.org>\n"
        + path.read_text().split("\n", 1)[1]
    )
    reply = (
        "From bob@example.org Mon Mar 10 11:00:00 2025\nFrom: Bob Reviewer <bob@example.org>\n"
        "To: linux-kernel@vger.kernel.org\nSubject: Re: [PATCH] quxcg: Optimize return to user mode\n"
        "Date: Mon, 10 Mar 2025 11:00:00 +0000\nMessage-ID: <q-2@example.org>\nIn-Reply-To: <q-1@example.org>\n"
        "References: <q-1@example.org>\n\nDo you have numbers for this, did you measure it?\n\nBob\n"
    )
    store, found, summary = _run(tmp_path, patch_mail + reply, series=False)
    with store:
        [finding] = found["q-1@example.org"]
        skip = store.skip_for(finding.fingerprint)
        assert skip is not None and skip.state == "raised"
        assert summary.not_asked == 0 and summary.written == []


def test_a_barrier_swapped_for_a_lighter_one_is_not_asked() -> None:
    """ "Avoid the unnecessary barrier ... use smp_mb__after_atomic()": the gain follows from the barriers."""
    path = "drivers/md/qux/btree.c"
    mail = (
        "From: Ada Example <ada@example.org>\nDate: Mon, 10 Mar 2025 10:00:00 +0100\nMessage-ID: <qux-2@example.org>\n"
        "Subject: [PATCH] qux: optimize barrier usage for atomic bitops\n\n"
        "We can avoid the unnecessary overhead of a full barrier on architectures where atomics already order.\n\n"
        f"Signed-off-by: Ada Example <ada@example.org>\n---\n\ndiff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
        "@@ -1,4 +1,4 @@ void qux(void)\n {\n \tset_bit(QUX_DIRTY, &q->flags);\n-\tsmp_mb();\n+\tsmp_mb__after_atomic();\n }\n"
        "-- \n2.43.0\n"
    )
    patch = parse_patch(parse_rfc822(mail.encode(), "test mail"))
    (finding,) = rb201.check(patch, RuleContext())
    assert "lighter" in finding.not_asked
    swapped = mail.replace("+\tsmp_mb__after_atomic();", "+\tsmp_mb__after_atomic();\n+\tqux_flush(q);")
    patch = parse_patch(parse_rfc822(swapped.encode().replace(b"@@ -1,4 +1,4 @@", b"@@ -1,4 +1,5 @@"), "more"))
    assert [f.not_asked for f in rb201.check(patch, RuleContext())] == [""]  # more than a swap: asked


def test_an_alignment_annotation_with_a_blank_line_added_is_still_only_a_swap() -> None:
    """The whole-mirror vdso case: the diff adds a blank line next to the annotation; still not asked."""
    path = "include/qux/data.h"
    mail = (
        "From: Ada Example <ada@example.org>\nDate: Mon, 10 Mar 2025 10:00:00 +0100\nMessage-ID: <qux-3@example.org>\n"
        "Subject: [PATCH] qux: make struct qux_data cacheline aligned\n\n"
        "In an array, every second element spans an extra cache line, which a reader has to read as well.\n\n"
        f"Signed-off-by: Ada Example <ada@example.org>\n---\n\ndiff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
        "@@ -1,4 +1,5 @@ struct qux_data {\n \tu64 seq;\n \tu64 value;\n-};\n+} ____cacheline_aligned;\n+\n"
        " struct qux_other;\n-- \n2.43.0\n"
    )
    patch = parse_patch(parse_rfc822(mail.encode(), "test mail"))
    (finding,) = rb201.check(patch, RuleContext())
    assert "alignment annotation" in finding.not_asked
