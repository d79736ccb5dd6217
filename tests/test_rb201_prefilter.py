"""RB201's cheap first test (``_may_claim``) against the claim forms it stands in front of.

Most changelogs make no speed claim, so RB201 first looks up CLAIM_NEEDS among a text's words and reads no
further when none is there. That is only right while every claim form needs one of those words: a word added
to a claim list must be found by the first test, and a claim form must not fire on words outside CLAIM_NEEDS.
"""

from __future__ import annotations

import pytest

from reviewbot.rules import rb201_perf_claim as rb201
from reviewbot.rules import _rb201_evidence as rb201_ev


def _spellings(word: str) -> list[str]:
    """How a changelog may write a word of CLAIM_NEEDS: "cache_line" as "cache line", "Cache-Line", "cache_line"."""
    spaced = word.replace("_", " ")
    return [word, spaced, spaced.title().replace(" ", "-"), spaced.upper(), f"({spaced}).", f'"{spaced}",']


@pytest.mark.parametrize("word", sorted(rb201.CLAIM_NEEDS))
def test_every_needed_word_passes_the_first_test(word: str) -> None:
    for written in _spellings(word):
        assert rb201._may_claim(f"This makes the {written} better."), written
        # beyond ASCII the test falls back to plain substrings (CLAIM_STEMS)
        assert rb201._may_claim(f"Naïve code: the {written} – better."), written


def _helpers() -> list[str]:
    """The words a claim form reads around its key word ("reduce", "more", "improve"), not needed by themselves."""
    return sorted((rb201.LESS_VERBS | rb201.MORE_VERBS | rb201.MORE_AFTER | rb201.LESS_AFTER) - rb201.CLAIM_NEEDS)


def test_every_claim_key_word_is_needed_or_needs_a_neighbour() -> None:
    """A key word outside CLAIM_NEEDS ("reduce", "more", "improve") makes no claim by itself."""
    for word in _helpers():
        assert rb201._speed_effect([word], 0) is None, word
        assert not rb201._may_claim(word)


def _vocabulary() -> set[str]:
    """Every word of the module's word lists (joined terms as one word)."""
    words: set[str] = set()
    for name, value in vars(rb201).items():
        if name.isupper() and isinstance(value, (frozenset, tuple)):
            words.update(w for w in value if isinstance(w, str) and " " not in w)
    return {w.lower() for w in words}


def test_no_claim_form_fires_without_a_needed_word() -> None:
    """Each key word outside CLAIM_NEEDS, next to each word of every list outside it, in either order: no claim.

    A new claim form keyed on a new word list fails here until that list is added to CLAIM_NEEDS (so the first
    test finds it)."""
    helpers = _helpers()
    others = sorted(_vocabulary() - rb201.CLAIM_NEEDS) + ["for", "the", "to", "is", "a", "of"]
    fired = []
    for key in helpers:
        for other in others:
            for words, i in (([key, other], 0), ([other, key], 1), ([other, "the", key, "the", other], 2)):
                if rb201._speed_effect(words, i) is not None:
                    fired.append(" ".join(words))
    assert fired == []


def test_a_claim_is_found_through_the_first_test() -> None:
    """The first test lets real claims through, in the subject and in the changelog."""
    assert rb201.find_subject_claim("qux: add a fast-path for small reads") is not None
    assert rb201.find_claim("Moving the counter avoids false-sharing between the CPUs.") is not None
    assert rb201.find_claim("This cuts the lock hold time in half on the submit side.") is not None
    assert rb201.find_claim("Group the hot fields into one Cache-Line.") is not None


def test_a_changelog_without_needed_words_is_not_read_further() -> None:
    text = "Remove the unused field and reduce the number of arguments. More cleanups follow."
    assert not rb201._may_claim(text)
    assert rb201.find_claim(text) is None


# ---- the cheap tests in front of the evidence patterns (_evidence_lines, _ratio_measured)


def _evidence_lines_by_pattern(text: str) -> list[str]:
    """_evidence_lines as the patterns alone decide it, every line searched (what the cheap tests stand in for)."""
    lines: list[str] = []
    state_output = False
    for line in rb201_ev._own_lines(text):
        if not line.strip():
            state_output = False
            lines.append("")
            continue
        if state_output or rb201_ev._SYSTEM_STATE_RE.search(line):
            state_output = True
            lines.append("")
            continue
        if line.startswith("diff --git "):
            break
        if rb201_ev._DIFFSTAT_RE.match(line) or line.startswith("@@ "):
            lines.append("")
            continue
        size_only = bool(rb201_ev._SIZE_CONTEXT_RE.search(line)) and not rb201_ev._METRICS.search(line)
        size_only = size_only and not rb201_ev._time_or_rate(line)
        series_map = bool(rb201_ev._SERIES_INDEX_RE.search(line)) and not rb201_ev._METRICS.search(line)
        lines.append("" if size_only or series_map else line)
    return lines


_EVIDENCE_TEXTS = [
    *(f"Before:\n$ cat {c.upper()}\n  12 34\n\nAfter: 10 ms\n" for c in rb201_ev.SYSTEM_STATE_COMMANDS),
    *(f"The {w.title()} went from 12 to 10.\nrun 1: 5 ms\n" for w in rb201_ev.SIZE_CONTEXT_WORDS),
    "free  -h says 12 34\n10.8 -> 8.6 MB\n64KiB per ring\n4 kB pages\n3 Gi left\n2\tTB disk\n",
    "PATCH[2~17] : the riscv changes 3 4\nPatches 1-3: the driver 5 6\npatch #4 makes 12 ms 20 ms\n",
    # beyond ASCII: "ſ" is an "s", "ı" an "i", the Kelvin sign a "k" to the patterns' IGNORECASE
    "the ſize went from 12 to 10\nthe memory footprınt: 12 34\n12 \u212aB saved\n/proc/cpuınfo\n 1 2\n",
    "12 apples and 34 pears\nthroughput: 12 Mb/s\nno size here 12 ms\n",
    # a size word inside another word is no size ("ram" of "parameter"), a whole one is ("RAM:", "mem-")
    "the parameter went from 12 to 10 ms\nthe members: 12 34\nresize took 5 ms\nRAM: 12 34\nmem-used 12 34\n",
]


@pytest.mark.parametrize("text", _EVIDENCE_TEXTS)
def test_evidence_lines_equal_the_patterns_alone(text: str) -> None:
    """Every word of SYSTEM_STATE_COMMANDS and SIZE_CONTEXT_WORDS, each unit form and the non-ASCII case twins pass
    the cheap tests: the lines are what searching every line with the patterns gives."""
    assert list(rb201_ev._each_evidence_line(text)) == _evidence_lines_by_pattern(text)


def test_the_size_and_state_lines_are_blanked() -> None:
    """The texts above do exercise the patterns: most of their size and state lines are blanked."""
    blanked = sum(line == "" for text in _EVIDENCE_TEXTS for line in list(rb201_ev._each_evidence_line(text)))
    assert blanked >= len(rb201_ev.SYSTEM_STATE_COMMANDS) * 3 + len(rb201_ev.SIZE_CONTEXT_WORDS) + 8


@pytest.mark.parametrize(
    "text",
    [
        *(f"IOPS up by a factor of {n}" for n in rb201_ev.NUMBER_WORDS),
        *(f"{n.title()} times the IOPS" for n in rb201_ev.NUMBER_WORDS),
        "IOPS up by a FACTOR 4",
        "3x the IOPS",
        "~2.5 X more IOPS",
        "12\tx IOPS",
        "3× the IOPS",
        "tımes: 3 tımes the IOPS",
    ],
)
def test_every_ratio_passes_the_cheap_test(text: str) -> None:
    assert rb201_ev._RATIO_RE.search(text) is not None  # a ratio the pattern finds...
    assert rb201_ev._may_give_ratio(text)  # ...is never left out by the cheap test
    assert not rb201_ev._ratio_measured(text)  # a bare ratio: a maintainer still asks on what benchmark
    assert rb201_ev._ratio_measured(text + " on my test machine")  # with how it was measured: evidence


def test_a_text_without_ratio_words_is_not_searched() -> None:
    assert not rb201_ev._may_give_ratio("IOPS went up by 12%, latency went down (10 flags)")
