"""RB201 on issue 23's fifth first-look batch (first5: nine lists), fixed by kind as general readings.

Claims the rule missed: a modal sentence whose "by ..." is what the patch does ("we can improve X by not doing
Y": the negation is the means, not a denial), or whose "with <the change>" names the patch ("with this rework we
could use X to optimize Y"); a verbless line like a title ("Performance improvement for X"); a concession ("even
though the reduction is not large, it is still an improvement"); a cost of work avoided named as such: fewer
operations ("to reduce rpc ops"), a lock not taken as an optimisation's goal, "unjustified overhead", a
"bottle-neck" however spelt. Not claims: an optimisation belittled as the old code's ("only a
micro-optimization"), the use of an API made "more efficient" (the driver's structure). The sentences are our
own, modelled on the kinds read.
"""

from __future__ import annotations

import pytest

from reviewbot.rules import rb201_perf_claim as rb201


@pytest.mark.parametrize(
    ("text", "claim"),
    [
        (
            "We can improve performance by not registering the slow timer, allowing the system to use the faster "
            "counter instead.",
            "improve performance",
        ),
        ("- but with this rework we could use the paired loads to greatly optimize the copy loop", "optimize"),
        ("Performance improvement for reading the statistics file on arch foo.", "Performance improvement"),
        (
            "Calling the sync hook here is unjustified overhead and it is more sensible to call the cached variant.",
            "unjustified overhead",
        ),
        (
            "Registering many devices in bulk turns this notifier into a bottle-neck, as it gets slower with each one.",
            "bottle-neck",
        ),
        (
            "Also put in a little optimisation to avoid taking the queue state_lock if the request is already done.",
            "optimisation",
        ),
    ],
)
def test_claim(text: str, claim: str) -> None:
    found = rb201.find_claim(text)
    assert found is not None and found.text == claim


def test_fewer_operations_in_the_subject_is_a_claim() -> None:
    found = rb201.find_subject_claim("foo: use the cached server index to reduce rpc ops")
    assert found is not None and found.text == "reduce rpc ops"
    assert rb201.find_subject_claim("foo: remove the unused ops from the table") is None  # code taken away


@pytest.mark.parametrize(
    "text",
    [
        "For the foo helpers, the private version is only a micro-optimization to inline the call.",
        "This makes panel usage more efficient instead of relying on the encoder chain.",
        # near misses of the claims above: a denial before the verb, another time's modal, no concession
        "This does not reduce the overhead by much.",
        "With the old scheme we could use the paired loads to optimize the copy loop.",
        "The lock contention reduction is not large.",
        # "reduction" as a noun is not read as a cost made smaller: added for one concession of first5 (kexec),
        # on the three batches no rule had seen (first6-first8) it found nothing and raised two false alarms,
        # other people's work ("useful when working on boot time reduction")
        "This is particularly useful when working on boot time reduction.",
        "So even though the lock contention reduction is not large, it is still an improvement.",
    ],
)
def test_no_claim(text: str) -> None:
    assert rb201.find_claim(text) is None


# A problem-then-fix changelog: a run-time cost stated as the code's state ("can be a slow operation") is this
# patch's claim when another sentence says what the patch changes (an imperative); alone it describes.
_SLOW = "Writing each of the many status registers in turn can be a slow operation because the bus is shared."


def test_a_cost_as_the_problem_under_a_fix_is_a_claim() -> None:
    found = rb201.find_claim(f"{_SLOW}\nBatch the writes into one transfer from a work item.")
    assert found is not None and found.text == "be a slow operation"


@pytest.mark.parametrize(
    "text",
    [
        _SLOW,  # no sentence says what the patch changes
        f"{_SLOW}\nThe work item was added for that reason.",  # nor here: a description
        "The queue is under heavy load during boot.\nUse a larger ring.",  # "heavy" qualifies the load, no state
    ],
)
def test_a_cost_as_a_state_alone_is_no_claim(text: str) -> None:
    assert rb201.find_claim(text) is None
