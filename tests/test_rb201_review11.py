"""RB201 on issue 23's seventh first-look batch (first7: eight lists), fixed by kind as general readings.

Not claims: the compiler's optimisations ("every optimization level", "gets optimized out to nothing", "disable
the X optimization in LLVM"): what the compiler does to code or how it is set, not the patch's run-time speed.
The sentences are our own, modelled on the kinds read.

Decided near miss: "this lets the compiler optimize the loop" names no gain (the labels of two such patches were
code size), so it is no claim by itself; said with a run-time effect ("so the lookup runs faster") it is one, by
that effect.
"""

from __future__ import annotations

import pytest

from reviewbot.rules import rb201_perf_claim as rb201


@pytest.mark.parametrize(
    "text",
    [
        # the compiler's settings and passes
        "The assertions should hold on all the optimization levels that we support.",
        "This should work with every optimization level.",
        "The check has no run-time part and gets optimized out to nothing once the build assertions pass.",
        "Turn off the loop-unrolling optimization in clang older than 15, which hangs on this file.",
        "So disable the branch folding optimization using the '-mllvm' option on affected versions.",
        "Keep the optimization flags of the boot code as they are.",
        # the near miss: the compiler enabled, no gain named
        "This lets the compiler optimize the loop.",
    ],
)
def test_the_compilers_optimization_is_no_claim(text: str) -> None:
    assert rb201.find_claim(text) is None


@pytest.mark.parametrize(
    ("text", "claim"),
    [
        ("Optimize the hash lookup loop in foo_find().", "Optimize"),
        ("Optimize barriers on the submit path.", "Optimize"),  # the verb: not the compiler's "optimization barrier"
        ("This lets the compiler optimize the loop, so the lookup runs faster.", "faster"),  # the run-time effect
    ],
)
def test_the_patchs_optimization_is_still_a_claim(text: str, claim: str) -> None:
    found = rb201.find_claim(text)
    assert found is not None and found.text == claim


def test_subjects() -> None:
    assert rb201.find_subject_claim("foo: disable the vectorizer optimization for gcc older than 12") is None
    assert rb201.find_subject_claim("foo: optimize the vectorized copy") is not None
