"""RB201's cheap first test (``_may_claim``) against the claim forms it stands in front of.

Most changelogs make no speed claim, so RB201 first looks up CLAIM_NEEDS among a text's words and reads no
further when none is there. That is only right while every claim form needs one of those words: a word added
to a claim list must be found by the first test, and a claim form must not fire on words outside CLAIM_NEEDS.
"""

from __future__ import annotations

import pytest

from reviewbot.rules import rb201_perf_claim as rb201


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


def test_every_claim_key_word_is_needed_or_needs_a_neighbour() -> None:
    """A key word outside CLAIM_NEEDS ("reduce", "more", "improve") makes no claim by itself."""
    helpers = rb201.CLAIM_KEY_WORDS - rb201.CLAIM_NEEDS
    for word in sorted(helpers):
        assert rb201._claim_span([word], 0, subject=True) is None, word
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
    helpers = sorted(rb201.CLAIM_KEY_WORDS - rb201.CLAIM_NEEDS)
    others = sorted(_vocabulary() - rb201.CLAIM_NEEDS) + ["for", "the", "to", "is", "a", "of"]
    fired = []
    for key in helpers:
        for other in others:
            for words, i in (([key, other], 0), ([other, key], 1), ([other, "the", key, "the", other], 2)):
                if rb201._claim_span(words, i, subject=True) is not None:
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
