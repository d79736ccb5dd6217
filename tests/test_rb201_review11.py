"""RB201 on issue 23's seventh first-look batch (first7: eight lists), fixed by kind as general readings.

Not claims: the compiler's optimisations ("every optimization level", "gets optimized out to nothing", "disable
the X optimization in LLVM"): what the compiler does to code or how it is set, not the patch's run-time speed. An
optimisation that exists, restored ("add back a hook to optimize X", "restore the fast path") or kept or moved as
the object ("keep the optimization", "move this optimization"), and "this optimization" after it: no new gain. The
sentences are our own, modelled on the kinds read.

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


@pytest.mark.parametrize(
    "text",
    [
        # restored: the gain was there before; "this optimization" after it is the same one
        "Add back a hook to optimize page flushing after a read by DMA. This lets the driver stop faking an "
        "incoherent device just for this optimization.",
        "Restore the fast path for small packets that the rework dropped.",
        # kept or moved as the object
        "Keep the optimization for the single-segment case.",
        "Move this optimization into the common helper so both drivers use it.",
        "Retain the optimization while converting to the new API.",
    ],
)
def test_an_optimization_restored_or_kept_is_no_claim(text: str) -> None:
    assert rb201.find_claim(text) is None


@pytest.mark.parametrize(
    ("text", "claim"),
    [
        # near misses: a new optimisation, a move or keep done for a gain, a cost taken away after a restore
        ("Add a hook to optimize page flushing after a read by DMA.", "optimize"),
        ("Add a hook to optimize page flushing. This optimization saves a flush per page.", "optimize"),
        ("Move the check out of the loop to optimize the lookup.", "optimize"),
        ("Keep a cached pointer to optimize the lookup.", "optimize"),
        ("Bring back the batching lost in the conversion, to reduce lock contention.", "reduce lock contention"),
    ],
)
def test_a_new_optimization_is_still_a_claim(text: str, claim: str) -> None:
    found = rb201.find_claim(text)
    assert found is not None and found.text == claim


def test_a_restored_optimization_in_the_subject() -> None:
    assert rb201.find_subject_claim("dma-mapping: add back the dcache flush optimization for ia64") is None
    assert rb201.find_subject_claim("dma-mapping: add a dcache flush optimization for ia64") is not None
