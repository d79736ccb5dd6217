"""RB201 on a held-out batch of seven lists (first2), fixed by kind as general readings.

Not claims: the old code's optimisation called broken ("used to be an optimization ... turned out to be
broken"); the name of what a patch exposes ("a sysfs entry for nominal performance"); people's time ("saves
time for distribution packagers"); one hardware mode compared with another ("slower but faster than the
default mode"); the "non-" prefix ("non-performance sensitive"). Claims: a cost called the most expensive, a
"more efficient" way the new code presents, a speed claim in a dt-binding patch (the binding describes hardware
a driver uses at run time). Numbers counting patches or versions in version notes are no measurement.
The sentences are our own, modelled on the kinds read.
"""

from __future__ import annotations

import pytest

from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.rules import rb201_perf_claim as rb201


@pytest.mark.parametrize(
    "text",
    [
        "foo_sync() used to be an optimization for idle queues. This optimization turned out to be broken long ago.",
        "Expose a sysfs entry for nominal performance of each CPU.",
        "This saves a lot of time for distribution packagers.",
        "Fall back to a supported timing mode, slower but still faster than the default mode 0.",
        "The library serves non-performance sensitive callers that need a synchronous interface.",
    ],
)
def test_no_claim(text: str) -> None:
    assert rb201.find_claim(text) is None


def test_register_name_in_the_subject_is_no_claim() -> None:
    assert rb201.find_subject_claim("cpufreq: foo: add sysfs file for lowest performance") is None


@pytest.mark.parametrize(
    ("text", "claim"),
    [
        ("The table lookup is by far the most expensive check, so do it last.", "most expensive"),
        ("The new helpers present a more efficient way to fill the records.", "more efficient"),
    ],
)
def test_claim(text: str, claim: str) -> None:
    found = rb201.find_claim(text)
    assert found is not None and found.text == claim


def test_patch_counts_in_version_notes_are_no_measurement() -> None:
    notes = "Changes in v4:\n- The original 2 patches in series version 3 are split into\n  4 patches now.\n"
    assert rb201.ev._grade(notes) != "measured"
    assert rb201.ev._grade(notes + "before: 1210 ns per call\nafter:   655 ns per call\n") == "measured"


def _patch(path: str) -> bytes:
    return (
        "From: Ada Example <ada@example.org>\nSubject: [PATCH] foo: bar\nMessage-ID: <x@example.org>\n\n"
        "This mainly helps with a faster firmware download.\n\nSigned-off-by: Ada Example <ada@example.org>\n"
        f"---\ndiff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -1,1 +1,2 @@\n a\n+b\n"
    ).encode()


@pytest.mark.parametrize(
    ("path", "kernel"),
    [
        ("Documentation/devicetree/bindings/net/foo.yaml", True),
        ("Documentation/admin-guide/foo.rst", False),
        ("tools/testing/selftests/foo/foo.c", False),
        ("drivers/foo/foo.c", True),
        # r12 (linux-wireless): "MAINTAINERS: Remove X's bouncing address" was asked for perf c2c numbers
        ("MAINTAINERS", False),
        (".mailmap", False),
    ],
)
def test_dt_binding_is_run_time_hardware(path: str, kernel: bool) -> None:
    patch = parse_patch(parse_rfc822(_patch(path), "test"))
    assert rb201._not_the_kernels_speed(patch) is not kernel
