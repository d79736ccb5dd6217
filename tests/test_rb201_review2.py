"""RB201 and RB101 after the second whole-mirror review: linked results, another commit's optimisation,
the compiler's mode, userspace projects, size-only numbers, explained micro-optimisations, struct_group.

Each case is a mail text in our own words modelled on a message the reviewer judged wrong, parsed like a
list message and checked by the rule.
"""

from __future__ import annotations

from reviewbot.models import FindingState, Severity
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.rule import RuleContext
from reviewbot.rules import rb101_struct_reorder as rb101
from reviewbot.rules import rb201_perf_claim as rb201

HUNK = """diff --git a/{path} b/{path}
index 3c41a9e..7d20b5f 100644
--- a/{path}
+++ b/{path}
@@ -40,3 +40,3 @@ static int qux_poll(struct qux_ring *ring, int budget)
 \tint done = 0;
-\tdone = qux_step(ring, 0);
+\tdone = qux_step(ring, QUX_NONE);
 \treturn done;
"""

STRUCT_HUNK = """diff --git a/drivers/qux/cache.h b/drivers/qux/cache.h
index 3c41a9e..7d20b5f 100644
--- a/drivers/qux/cache.h
+++ b/drivers/qux/cache.h
@@ -1,7 +1,9 @@
 /* SPDX-License-Identifier: GPL-2.0 */
 struct qux_cache {{
-\tu64\t\tvec;
 \tu32\t\tlen;
 \tu32\t\tflags;
+\tstruct_group(init,
+\t\tu64\t\tvec;
+\t);
 \tu64\t\tseq;
 }};
"""


def _patch(subject: str, body: str, diff: str = HUNK, path: str = "drivers/block/qux.c"):
    mail = (
        f"From: Ada Example <ada@example.org>\nDate: Mon, 10 Mar 2025 10:00:00 +0100\n"
        f"Message-ID: <qux-1@example.org>\nSubject: {subject}\n\n{body.strip()}\n\n"
        f"Signed-off-by: Ada Example <ada@example.org>\n---\n\n" + diff.format(path=path)
    )
    return parse_patch(parse_rfc822(mail.encode(), "test mail"))


def _rb201(subject: str, body: str) -> list:
    return list(rb201.check(_patch(subject, body), RuleContext()))


def test_benchmarks_behind_reference_markers_count_as_answered() -> None:
    body = (
        "Submit up to 32 writeback bios before waiting for the first.\n\n"
        "Please refer to [1] and [2] for benchmarks.\n\n"
        "[1] https://lore.example.org/qux/bench-1@example.org\n"
        "[2] https://lore.example.org/qux/bench-2@example.org"
    )
    (f,) = _rb201("[PATCH] qux: batch bios for faster writeback", body)
    assert f.state is FindingState.ANSWERED
    assert f.details["evidence_source"] == "linked results"


def test_results_in_the_cover_letter_count_as_answered() -> None:
    (f,) = _rb201(
        "[PATCH] qux: batch bios for faster writeback", "Batch the bios. The benchmark results are in the cover letter."
    )
    assert f.state is FindingState.ANSWERED


def test_a_reference_marker_without_results_words_is_no_evidence() -> None:
    body = "Batch the bios, as discussed in [1].\n\n[1] https://lore.example.org/qux/idea@example.org"
    (f,) = _rb201("[PATCH] qux: batch bios for faster writeback", body)
    assert f.state is FindingState.OPEN


def test_optimisation_of_another_commit_is_not_this_patch_claim() -> None:
    body = (
        'Take the request from the io directly on the daemon task.\nCommit 0123456789ab ("qux: skip the '
        'ref on\nregister") made an analogous optimization for buffer registration.'
    )
    assert rb201.find_claim(body) is None
    assert _rb201("[PATCH] qux: skip the reference count on the daemon task", body) == []


def test_the_same_claim_outside_a_commit_sentence_is_found() -> None:
    claim = rb201.find_claim("This made an analogous optimization for buffer registration.")
    assert claim is not None and claim.text == "optimization"


def test_compiler_optimisation_mode_is_no_claim() -> None:
    assert rb201.find_subject_claim("qux_div64(): make __always_inline when optimizing for performance") is None
    assert rb201.find_subject_claim("qux: optimize qux_div64() for small divisors") is not None


def test_existing_optimisations_named_in_a_cleanup_are_no_claim() -> None:
    assert rb201.find_claim("We have a bunch of optimisations based on that uniformity for normal buffers.") is None


def test_userspace_project_tags_silence_body_claims() -> None:
    body = "Check the driver first, to improve efficiency and avoid unnecessary error messages."
    assert _rb201("[PATCH blktests 1/4] common/rc: check the driver first", body) == []
    assert _rb201("[PATCH v2 xfsprogs] mkfs: check the device first", body) == []
    # a project's tree named with its branch (r13, cgroups: "[PATCH iproute2-next v2 2/3] ss: add ...")
    assert _rb201("[PATCH iproute2-next v2 2/3] ss: check the device first", body) == []
    assert len(_rb201("[PATCH 1/4] qux: check the driver first", body)) == 1


def test_memory_footprint_numbers_do_not_answer_a_speed_claim() -> None:
    cover = (
        "With the new ABI the used memory decreased by 20% (10.8 -> 8.6 MB),\n"
        'as shown by "free -h" in the following demo.'
    )
    assert rb201.ev._grade(cover) != "measured"
    assert rb201.ev._grade("With the new ABI the lookup takes 20% less time (10.8 -> 8.6 us).") == "measured"


def test_no_sentence_split_after_e_g() -> None:
    text = "Fields almost never used, e.g. only on ring exit, go to the end for better locality."
    assert rb201._sentence_at(text, text.index("locality")) == text


def test_explained_micro_optimisations_are_not_asked() -> None:
    """A micro-optimisation argued from the generated code is a claim, but one a maintainer weighs on the code."""
    (f,) = _rb201(
        "[PATCH] qux: checksum: Optimize qux_fold32",
        "Replace the shifting and masking of x with a rotation. This generates better assembly.",
    )
    assert "generated code" in f.not_asked
    assert _rb201(
        "[PATCH] qux: checksum: Optimize qux_fold32", "Replace the shifting and masking of x with a rotation."
    )
    # what the compiler can optimize is the compiler's doing, not this patch's claim
    assert (
        rb201.find_claim("Handle the 0 case inline so that the compiler can optimize when it knows the value.") is None
    )


def _rb101(subject: str, body: str) -> list:
    return list(rb101.check(_patch(subject, body, STRUCT_HUNK), RuleContext(strict=True)))


def test_members_moved_into_a_struct_group_are_a_check() -> None:
    (f,) = _rb101(
        "[PATCH] qux: clear the cached members with one memset",
        "Wrap the rest in a struct group so one memset() clears the members; this avoids unnecessary overhead.",
    )
    assert f.severity is Severity.CHECK
    assert f.details["motivation"] == "group"


def test_struct_group_with_a_cache_line_reason_stays_a_warning() -> None:
    (f,) = _rb101(
        "[PATCH] qux: keep the hot members together",
        "Keep len and flags, read on every lookup, in the first cache line.",
    )
    assert f.severity is Severity.WARNING


def test_fits_in_one_cache_line_is_packing() -> None:
    assert rb101._FOOTPRINT_RE.search("so the struct fits in one cache line after the hole is gone")


def test_better_code_size_and_performance_is_still_a_claim() -> None:
    assert (
        len(
            _rb201(
                "[PATCH] qux: add qspinlock support", "Qspinlock has better code size and performance in a fast path."
            )
        )
        == 1
    )


def test_members_moved_to_be_cleared_are_a_check_without_struct_group() -> None:
    diff = STRUCT_HUNK.replace("+\tstruct_group(init,\n+\t\tu64\t\tvec;\n+\t);\n", "+\tu64\t\tvec;\n")
    diff = diff.replace("@@ -1,7 +1,9 @@", "@@ -1,7 +1,7 @@")
    patch = _patch(
        "[PATCH] qux: clear members at the start",
        "Put the members they need cleared at the start of the struct; a full memset() may cause unnecessary overhead.",
        diff,
    )
    (f,) = rb101.check(patch, RuleContext(strict=True))
    assert f.severity is Severity.CHECK
