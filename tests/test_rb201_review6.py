"""RB201 findings a fresh reader judged wrong in a whole-archive run, fixed by kind.

Kind (a): a sentence about reproducing a bug ("we could not reproduce it, maybe because ... in the same cache
line") explains why a race hides; it is no speed claim. A claim in the next sentence stays a claim.
Kind (b): numbers that are not results of the claimed speed-up do not answer it: a map of the series
(" - PATCH[2~17] : ...") under "as before", the output of commands that describe the machine or its memory
(/proc/cpuinfo, /proc/PID/maps, free -h). Real before/after rows next to them still answer it.
The sentences and blocks are our own, modelled on the findings read.
"""

from __future__ import annotations

import pytest

from reviewbot.rules import rb201_perf_claim as rb201


@pytest.mark.parametrize(
    "text",
    [
        "We have not been able to reproduce it so far, maybe because waiter and status sit in the same cache line.",
        "Until now it is unable to reproduce it, maybe because the two fields are in the same cache-line.",
    ],
)
def test_why_a_bug_hides_is_no_claim(text: str) -> None:
    assert rb201.find_claim(text) is None


def test_claim_next_to_a_reproducer_stays_a_claim() -> None:
    text = (
        "The slow completions are easy to reproduce with a small random read job. Moving the counters out "
        "of the lock's cache line makes completion faster."
    )
    found = rb201.find_claim(text)
    assert found is not None and found.text == "faster"


SERIES_MAP = """The series is split as before:
 - PATCH[1]    : the new build option
 - PATCH[2~5]  : the qux library changes
 - PATCH[6~9]  : the drivers that use them
"""

CPUINFO = """After disabling the extension, there is no difference in /proc/cpuinfo:

$ cat /proc/cpuinfo
processor       : 0
hart            : 2
mmu             : sv39
"""

MAPS = """Here is the comparison of the two kernels:

$ cat /proc/1/maps
55555000-5560c000 r-xp 00000000 fe:00 17         /bin/busybox
5560c000-5560f000 r--p 000b7000 fe:00 17         /bin/busybox
5560f000-55610000 rw-p 000ba000 fe:00 17         /bin/busybox
"""

RESULTS = """Checksumming a 4 KiB buffer in a loop, before and after:
  before: 1210 ns per call
  after:   655 ns per call
"""


@pytest.mark.parametrize("block", [SERIES_MAP, CPUINFO, MAPS], ids=["series-map", "cpuinfo", "maps"])
def test_numbers_that_are_no_results_do_not_answer(block: str) -> None:
    assert rb201.ev._grade(block) != "measured"


@pytest.mark.parametrize("block", [SERIES_MAP, CPUINFO, MAPS], ids=["series-map", "cpuinfo", "maps"])
def test_real_results_next_to_them_still_answer(block: str) -> None:
    assert rb201.ev._grade(block + "\n" + RESULTS) == "measured"
    assert rb201.ev._grade(RESULTS + "\n" + block) == "measured"


def test_a_patch_line_with_a_metric_is_kept() -> None:
    assert rb201.ev._grade("Numbers for the series:\n patch 3: 20% more IOPS with fio randread\n") == "measured"


# Kind (c): the design goal of a new component ("... in order to minimize latency") in a patch that only adds
# code is no speed-up claim; a comparison with the code it replaces ("faster than the loop used today") stays one.
from pathlib import Path  # noqa: E402

from reviewbot.engine import check_patch  # noqa: E402
from reviewbot.models import Severity  # noqa: E402
from reviewbot.parse.mail import parse_rfc822  # noqa: E402
from reviewbot.parse.patch import parse_patch  # noqa: E402
from reviewbot.registry import load_rules  # noqa: E402
from reviewbot.rule import RuleContext  # noqa: E402

EXAMPLES = Path(rb201.__file__).resolve().parent / "examples" / "RB201"
_RULE = next(r for r in load_rules(entry_points=False) if r.id == "RB201")


def _claims(raw: bytes) -> list[str]:
    patch = parse_patch(parse_rfc822(raw, "example"))
    return [f.details["claim"] for f in check_patch(patch, [_RULE], RuleContext()).findings]


def _findings(name: str, *, strict: bool = False) -> list:
    patch = parse_patch(parse_rfc822((EXAMPLES / name).read_bytes(), name))
    return list(check_patch(patch, [_RULE], RuleContext(strict=strict)).findings)


def test_goal_of_new_component_is_a_claim() -> None:
    """ "in order to minimize latency" is this patch's claim for the code it adds as for code it changes."""
    assert _claims((EXAMPLES / "bad-new-component-goal.patch").read_bytes()) == ["minimize latency"]


def test_new_file_compared_with_old_code_stays_a_claim() -> None:
    assert _claims((EXAMPLES / "bad-new-file-faster-than-old.patch").read_bytes()) == ["faster"]


# Kind (d): the link of a version-history entry ("v2:" and the earlier posting's URL, "- Enable X for
# benchmarking") points to that posting, not to results: the claim is not answered by it. A version note that
# names results and links them ("v2: benchmark results in [1]") still answers it.
@pytest.mark.parametrize(
    "notes",
    [
        "v2:\nhttps://lore.example.org/qux/v2@example.org/\n - Rebase on v6.14-rc1\n - Enable the timer for benchmarking\n",
        "v2: https://lore.example.org/qux/v2@example.org/\n - Enable the timer for benchmarking\n",
    ],
)
def test_version_history_link_is_no_reference(notes: str) -> None:
    assert not rb201.ev._evidence_by_reference(notes)


def test_version_note_linking_results_is_a_reference() -> None:
    notes = "v2: benchmark results in [1]\n[1] https://lore.example.org/qux/bench@example.org/\n - Rebase\n"
    assert rb201.ev._evidence_by_reference(notes)


def test_reference_is_read_by_paragraph() -> None:
    # no full stop anywhere: the history's "benchmarking" and a link in another paragraph are not one sentence
    text = "Build the demo with the toolchain in [1]\n\n[1] https://example.org/toolchain\n\nv2:\n - Enable the timer for benchmarking\n"
    assert not rb201.ev._evidence_by_reference(text)
    assert rb201.ev._evidence_by_reference("Please refer to [1] for benchmarks\n\n[1] https://example.org/bench\n")


def test_version_link_examples() -> None:
    assert [f.state.value for f in _findings("bad-version-link-is-no-result.patch")] == ["open"]
    assert [f.state.value for f in _findings("bad-linked-results-in-version-notes.patch")] == ["answered"]


# Kind (e): the cover letter's only numbers are about memory ("the used memory decreased by 20% (10.8 -> 8.2)",
# "free -h" output): the speed claim of a patch stays open, and the draft asks for runtime numbers next to them.
COVER = b"""From: Ada Example <ada@example.org>
Date: Mon, 10 Mar 2025 10:00:00 +0100
Subject: [PATCH v3 0/9] qux: build the 64-bit kernel with 32-bit pointers
Message-ID: <cover-qux@example.org>

This series builds the 64-bit qux kernel with 32-bit pointers.

Used Memory Comparison
======================
Under the same configuration, the used memory decreased by 20% (10.8 ->
8.2) with the new kernel image.

$ free -h
       total  used   free  shared  buff/cache   available
Mem:  105.4M  8.2M  93.9M   44.0K        3.3M       93.6M

The series is split as before:
 - PATCH[1]    : the new build option
 - PATCH[2~5]  : the qux library changes
 - PATCH[6~9]  : the drivers that use them
"""


def _series_findings(cover: bytes) -> list:
    patch = parse_patch(parse_rfc822((EXAMPLES / "bad-patch-list-is-no-result.patch").read_bytes(), "p2"))
    ctx = RuleContext(cover=parse_patch(parse_rfc822(cover, "cover")))
    return list(check_patch(patch, [_RULE], ctx).findings)


def test_memory_numbers_of_the_cover_letter_do_not_answer() -> None:
    (f,) = _series_findings(COVER)
    assert f.state.value == "open"
    assert f.details["cover_size_numbers"] is True
    draft = rb201.reply_point(
        [f], parse_patch(parse_rfc822((EXAMPLES / "bad-patch-list-is-no-result.patch").read_bytes(), "p2"))
    )
    # the finding stays open; the draft says nothing of the cover letter's numbers it did not check: read on new
    # lists, "the numbers in the cover letter are about memory and size" was false in 11 drafts of 11
    assert "cover letter" not in draft and "memory and size" not in draft
    assert "Do you have numbers for this?" in draft


def test_runtime_numbers_of_the_cover_letter_answer() -> None:
    cover = (
        COVER
        + b"\nChecksumming a 4 KiB buffer, before and after:\n  before: 1210 ns per call\n  after:   655 ns per call\n"
    )
    (f,) = _series_findings(cover)
    assert f.state.value == "answered"
    assert f.details["cover_size_numbers"] is False


# Kind (f): a subject that moves members "to avoid spanning cachelines" names a cost (a line more touched): a
# WARNING, as the labels have it, but not asked (whether the layout is explained is RB101's question). Placement
# with a hole filled ("to remove a hole and avoid ... split between 2 cache lines") is the size: no claim.
def test_layout_subject_is_a_claim_not_asked() -> None:
    (f,) = _findings("bad-layout-subject-check.patch", strict=True)
    assert f.severity is Severity.WARNING and "RB101" in f.not_asked
    assert (
        rb201.find_claim("Reorganize it to remove a hole and avoid having the work split between 2 cache lines.")
        is None
    )


def test_layout_subject_with_a_speed_reason_stays_a_warning() -> None:
    (f,) = _findings("bad-layout-subject-with-speed-reason.patch", strict=True)
    assert f.severity is Severity.WARNING


# Kind (g): an arch helper said to be "more efficient than the generic one" claims speed like any other patch.
def test_generic_comparison_outside_arch_stays_a_warning() -> None:
    text = (EXAMPLES / "bad-arch-helper-than-generic-check.patch").read_text(encoding="utf-8")
    text = text.replace("arch/qux/include/asm/bitops.h", "include/linux/qux_bitops.h")
    patch = parse_patch(parse_rfc822(text.encode(), "moved"))
    (f,) = check_patch(patch, [_RULE], RuleContext(strict=True)).findings
    assert f.severity is Severity.WARNING


def test_numbers_ending_the_cover_message_answer_despite_notes_naming_other_patches() -> None:
    """First-look reading r12: a cover letter whose message ends with its result ("... showed an average 5-10%
    improvement on a 4 core platform") and whose notes, after "---", list what changed in other patches of the
    series. Read as one paragraph with those notes, the result counted only for the patches they name."""
    cover = b"""From: Ada Example <ada@example.org>
Date: Mon, 10 Mar 2025 10:00:00 +0100
Subject: [PATCH v3 0/9] qux: faster receive path
Message-ID: <cover-qux-rx@example.org>

This series trims work from the qux receive path.

Receiving UDP on a 4-core board showed an average 8-12%
throughput improvement
---
v3:
  - moved a check in [PATCH 3/9] qux: drop the extra lookup
  - fixed a leak in [PATCH 7/9] qux: reuse ring buffers

Ada Example (9):
  qux: one
"""
    (f,) = _series_findings(cover)
    assert f.state.value == "answered"
    assert f.details["evidence_source"] == "cover letter"


def test_a_table_of_rows_split_by_bars_with_orig_and_new_columns_is_measured() -> None:
    """r13 (linux-ext4): a changelog's timing table ("len | orig_s | new_s") was read as a diffstat (a name, a bar,
    a number) and its column names as one word each, so the draft asked for numbers the changelog gave."""
    table = (
        "Timing test (x86_64, average over 10000 runs):\n\n"
        "    len | orig_s | new_s | orig_u | new_u\n"
        "    ----+--------+-------+--------+-------\n"
        "      1 |   70   |   71  |   63   |   63\n"
        "     64 |   96   |   71  |  100   |   68\n"
        "    255 |  192   |  108  |  187   |   84\n"
    )
    assert rb201.ev._grade(table) == "measured"
    # a diffstat is still no measurement
    assert rb201.ev._grade(" fs/qux/hash.c | 40 ++++++++++-----\n fs/qux/qux.h |  2 +-\n") != "measured"
