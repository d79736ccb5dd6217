"""No draft on a patch not meant to be merged, nor on a cherry-picked backport (issue 26's reading r9, fourteen
list-periods never read: the one draft the gate called sure asked a "[DEBUG PATCH v5] ... bug demonstration"
whether its timing code was meant to stay; another asked numbers of a vendor tree's "(cherry picked from commit
X)" of a commit long merged). Each finding stays, with the reason as its skip state. Threads of our own."""

from __future__ import annotations

from pathlib import Path

from test_draft_whole_thread import SINGLE, patch_mail, rules, run  # noqa: F401 (rules: the fixture)


def _states(skips) -> set[tuple[str, str]]:
    return {(s.state, s.reason) for s in skips.values()}


def test_a_debug_patch_gets_no_draft(tmp_path: Path, rules) -> None:  # noqa: F811
    store, summary, skips = run(tmp_path, rules, [patch_mail("[DEBUG PATCH v5] foo: show the ring race")])
    assert summary.drafts == 0 and summary.not_for_merge == 1
    ((state, reason),) = _states(skips)
    assert state == "not-for-merge" and reason.startswith("not meant to be merged ([DEBUG] in the subject)")


def test_do_not_merge_in_the_subject_is_read_as_words(tmp_path: Path, rules) -> None:  # noqa: F811
    store, summary, skips = run(tmp_path, rules, [patch_mail("[PATCH DO NOT MERGE] foo: show the ring race")])
    assert summary.drafts == 0 and {s for s, _ in _states(skips)} == {"not-for-merge"}


def test_a_cherry_picked_commit_gets_no_draft(tmp_path: Path, rules) -> None:  # noqa: F811
    mail = patch_mail("[PATCH linux dev-6.6] foo: publish the ring tail").replace(
        b"Signed-off-by: Ada Example <ada@example.org>\n---",
        b"Signed-off-by: Ada Example <ada@example.org>\n(cherry picked from commit 9fd00df05e81a2e1080ce6e9abc3553)\n---",
    )
    store, summary, skips = run(tmp_path, rules, [mail])
    assert summary.drafts == 0 and summary.backports == 1
    ((state, reason),) = _states(skips)
    assert state == "stable-backport" and "cherry picked from commit 9fd00df05e81" in reason


def test_the_same_patch_for_merging_is_drafted(tmp_path: Path, rules) -> None:  # noqa: F811
    store, summary, skips = run(tmp_path, rules, [patch_mail(SINGLE)])
    assert summary.drafts == 1 and summary.not_for_merge == summary.backports == 0
