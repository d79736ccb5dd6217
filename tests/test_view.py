"""The engine's per-patch view: the shared per-hunk work is done once and every rule gets the same view."""

from __future__ import annotations

from conftest import CASES
from helpers import fake_rule
from reviewbot.engine import check_patch
from reviewbot.models import LineKind
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.rule import RuleContext
from reviewbot.view import PatchView, patch_view


def c14():
    return parse_patch(parse_rfc822((CASES / "C14.patch").read_bytes(), "C14.patch"))


def test_the_hunk_texts_are_the_joined_lines_of_their_kind() -> None:
    patch = c14()
    view = PatchView(patch)
    [fv] = view.files
    assert fv.path == "drivers/foo/ring.c"
    [hv] = fv.hunks
    hunk = patch.files[0].hunks[0]
    assert hv.hunk is hunk
    added = [dl.text for dl in hunk.lines if dl.kind is LineKind.ADDED]
    assert len(added) == 35  # "@@ -10,5 +10,40 @@": five context lines, 35 added
    assert hv.added_text == "\n".join(added)
    assert hv.added_text.splitlines()[0] == "#define FOO_PUBLISH(r, v)\t\t\t\t\t\t\\"
    assert hv.removed_text == "" and hv.removed == ()
    assert hv.added == hunk.added and fv.added_text == hv.added_text
    assert hv.text(LineKind.CONTEXT) == "\n".join(dl.text for dl in hunk.lines if dl.kind is LineKind.CONTEXT)
    assert hv.added is hv.added  # worked out once, then kept


def test_the_hunk_diff_text_shows_each_line_with_its_prefix() -> None:
    # C04: a struct hunk with context, removed and added lines and a "\ No newline" marker
    patch = parse_patch(parse_rfc822((CASES / "C04.patch").read_bytes(), "C04.patch"))
    hv = PatchView(patch).files[0].hunks[0]
    assert hv.diff_text.splitlines() == [
        " struct foo_stats {",
        " \tu64 bytes;",
        "-\tu32 errors;",
        "-\tu32 drops;",
        "-};",
        "\\ No newline at end of file",
        "+\tu32 drops;",
        "+\tu32 errors;",
        "+\tu32 resets;",
        "+};",
    ]
    assert hv.diff_text == "\n".join(dl.raw for dl in hv.lines)
    assert hv.diff_text is hv.diff_text  # worked out once, then kept


def test_every_rule_of_a_check_gets_the_same_view_of_the_patch() -> None:
    seen = []

    def spy(patch, ctx):
        seen.append((patch_view(patch, ctx), ctx.view))
        return []

    patch = c14()
    check_patch(patch, [fake_rule("RB901", spy), fake_rule("RB902", spy)], RuleContext())
    (first, given), (second, _) = seen
    assert first is given and first is second and first.patch is patch


def test_a_rule_run_on_its_own_gets_a_fresh_view() -> None:
    patch = c14()
    assert patch_view(patch, RuleContext()).patch is patch
    other = PatchView(c14())
    assert patch_view(patch, RuleContext(view=other)) is not other  # a view of another patch is not used
