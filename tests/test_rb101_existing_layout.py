"""RB101 reads the struct's existing layout comments, leaves userspace structs alone, and quotes the reason.

Kinds from fresh readers of a whole-archive run (each with example patches in rules/examples/RB101/):

* (a) The struct already documents its layout: an existing comment in the hunk context saying where or why
  members sit ("Keep this last, we don't need it for the fast path", "hot: read on every submission")
  covers the members moved there; a member removed and re-added inside the same
  ``struct { ... } ____cacheline_aligned_in_smp;`` group only shifted within it and is not named.
* (b) A struct of userspace code (``tools/``, selftests) has no kernel cache-line layout: no finding. Kernel
  test code (``lib/test_*.c``, KUnit) is asked about only when the changelog gives a cache reason.
* (c) When the changelog gives the cache reason ("to avoid spanning cachelines"), the reply quotes it back
  and names every moved member when there are few (at most five), "and N more" only beyond that.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewbot.models import Severity
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.rule import RuleContext
from reviewbot.rules import rb101_struct_reorder as rb101

EXAMPLES = Path(rb101.__file__).resolve().parent / "examples" / "RB101"


def _findings(name: str):
    path = EXAMPLES / name
    patch = parse_patch(parse_rfc822(path.read_bytes(), str(path)))
    return patch, list(rb101.check(patch, RuleContext(strict=True)))


def test_members_under_existing_layout_comments_and_shifted_in_their_group_are_documented() -> None:
    assert _findings("good-layout-documented-by-existing-comments.patch")[1] == []


def test_without_a_layout_comment_only_the_members_that_left_their_group_are_named() -> None:
    _, (f,) = _findings("bad-moved-to-tail-without-layout-comment.patch")
    # owner and rings were re-added inside the same aligned group: not named
    assert f.details["members"] == ["n_ring_pages", "ring_pages"]
    assert f.severity is Severity.WARNING


def test_a_userspace_selftest_struct_gets_no_finding() -> None:
    assert _findings("good-userspace-selftest-struct.patch")[1] == []


def test_kernel_test_code_needs_a_cache_reason() -> None:
    assert _findings("good-kernel-test-module-unexplained-reorder.patch")[1] == []
    _, (f,) = _findings("bad-kernel-test-module-cache-reorder.patch")
    assert f.path == "lib/test_wobble.c"
    assert f.details["motivation"] == "cache"


@pytest.mark.parametrize(
    ("path", "userspace", "test"),
    [
        ("tools/testing/selftests/ublk/kublk.h", True, False),
        ("tools/perf/util/evsel.h", True, False),
        ("lib/test_bpf.c", False, True),
        ("drivers/gpu/drm/tests/drm_foo_test.c", False, True),
        ("net/core/dev_kunit.c", False, True),
        ("drivers/md/dm-bufio.c", False, False),
    ],
)
def test_which_paths_are_userspace_or_test_code(path: str, userspace: bool, test: bool) -> None:
    assert rb101._userspace(path) is userspace
    assert rb101._kernel_test(path) is test


def test_the_reply_quotes_the_changelogs_cache_reason_and_names_the_few_members() -> None:
    patch, findings = _findings("bad-changelog-names-cache-reason.patch")
    (f,) = findings
    assert f.details["reason"] == "to avoid spanning cachelines"
    text = rb101.reply_point(findings, patch)
    assert '"to avoid spanning cachelines"' in text
    assert "no_sleep, lock, write_error and client_list" in text
    assert "more" not in text.split("?")[0]
    assert "placed for cache behaviour" not in text  # the changelog said so already: no need to ask
    assert _findings("good-changelog-names-cache-reason-commented.patch")[1] == []


@pytest.mark.parametrize(
    ("count", "shown"),
    [(1, "m0"), (5, "m0, m1, m2, m3 and m4"), (7, "m0, m1, m2, m3 and 3 more")],
)
def test_members_are_all_named_up_to_five_then_and_n_more(count: int, shown: str) -> None:
    assert rb101._some_members([f"m{i}" for i in range(count)]) == shown


@pytest.mark.parametrize(
    ("subject", "reason"),
    [
        ("dm bufio: move dm_bufio_client members to avoid spanning cachelines", "to avoid spanning cachelines"),
        ("vex: move the sqe array out of the hot submit group", None),  # no purpose clause to quote
        ("foo: reorder struct foo for cache-line locality", "for cache-line locality"),
    ],
)
def test_the_cache_reason_is_the_purpose_clause(subject: str, reason: str | None) -> None:
    raw = f"From: Ada <ada@example.org>\nSubject: [PATCH] {subject}\nMessage-ID: <r@x>\n\nBody.\n".encode()
    patch = parse_patch(parse_rfc822(raw, "r.eml"))
    assert rb101._cache_reason(patch) == reason
