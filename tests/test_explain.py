"""``reviewbot explain``: the rule's documentation made readable, then one bad and one good example
(the hunks for hunk rules, the subject and commit message for whole-patch rules), through the CLI."""

from __future__ import annotations

from click.testing import CliRunner

from reviewbot.cli import main
from reviewbot.commands.explain import rst_to_text


def explain(rule: str) -> str:
    result = CliRunner().invoke(main, ["explain", rule], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_rst_markup_rendered_readably() -> None:
    doc = "Looks at ``smp_mb`` and ``mb``.\n\nExample\n-------\n::\n\n    +\tsmp_mb();\n\nLike this::\n\n    x\n"
    assert rst_to_text(doc) == (
        "Looks at `smp_mb` and `mb`.\n\nExample\n-------\n\n    +\tsmp_mb();\n\nLike this:\n\n    x"
    )


def test_explain_rb102_prints_docs_then_bad_and_good_hunks() -> None:
    out = explain("RB102")
    lines = out.splitlines()
    assert "``" not in out and not any(line.rstrip().endswith("::") for line in lines)
    assert "`smp_mb__after_atomic`," in out
    doc_end = out.index("Known limits")
    bad = out.index("Bad example, reported (bad-device-barrier.patch):")
    good = out.index("Good example, not reported (good-device-barrier.patch):")
    assert doc_end < bad < good
    bad_part, good_part = out[bad:good], out[good:]
    # the hunks only: file header, @@ line and diff lines, indented; no mail headers, no commit message
    assert "    --- a/drivers/net/baz/rx.c\n    +++ b/drivers/net/baz/rx.c\n    @@ -4,6 +4,7 @@\n" in bad_part
    assert "    +\tdma_wmb();\n" in bad_part
    assert (
        "  reviewbot reports:\n    RB102:drivers/net/baz/rx.c:7:dma_wmb() at line 7 added without a comment" in bad_part
    )
    assert "    +\t/* the device must see the buffer address before it sees OWN */\n    +\tdma_wmb();\n" in good_part
    for part in (bad_part, good_part):
        assert "From:" not in part and "Signed-off-by" not in part and "diff --git" not in part
        assert "1 file changed" not in part and "index " not in part


def test_explain_whole_patch_rule_shows_the_commit_message() -> None:
    out = explain("RB301")
    bad = out[out.index("Bad example, reported (bad-embedded-diff.patch):") :]
    assert "    Subject: [PATCH] quux: do not underflow the queue length\n" in bad
    assert "    Popping n entries decremented the length by one. v1 did this:\n" in bad
    good = out[out.index("Good example, not reported (good-indented-diff.patch):") :]
    assert "        --- a/drivers/quux/queue.c\n" in good
    assert "From 365f" not in out and "2 +-" not in out


def test_every_builtin_rule_shows_two_examples() -> None:
    for rid in ("RB101", "RB102", "RB201", "RB202", "RB301"):
        out = explain(rid)
        assert out.count("Bad example, reported (bad-") == 1 and out.count("Good example, not reported (good-") == 1
        assert "cannot be shown" not in out
