"""RB201 asks about the claim a patch is for, not a remark late in its changelog (precision first).

Fresh maintainers read 71 drafts on linuxppc-dev, linux-riscv, linux-mips and linux-arm-kernel: most RB201
drafts they would not send asked for numbers on a sentence far down the changelog ("to save the overhead of
dealing with individual patches", "architecture-specific optimizations", "to avoid unnecessary ptlock
overhead"). The finding stays (the labels count such claims); a claim first made in the third paragraph or
later gets ``not_asked``. A claim in the subject or the first two paragraphs is asked about.
"""

from __future__ import annotations

from reviewbot.engine import check_patch
from reviewbot.models import NOT_ASKED_KEY
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.rule import RuleContext

_RULES = load_rules(entry_points=False, select=["RB201"])
DIFF = (
    "---\n mm/x.c | 2 +-\n\ndiff --git a/mm/x.c b/mm/x.c\n--- a/mm/x.c\n+++ b/mm/x.c\n"
    "@@ -10,3 +10,3 @@ static void x_walk(struct x *x)\n \tint i;\n-\tfor (i = 0; i < x->n; i++)\n"
    "+\tfor (i = x->first; i < x->n; i++)\n \t\tx_visit(x, i);\n"
)


def _finding(body: str):
    raw = (
        "From: Ada Example <ada@example.org>\nMessage-ID: <pp-1@example.org>\nSubject: [PATCH] mm/x: start the walk at first\n"
        f"Date: Mon, 10 Mar 2025 10:00:00 +0100\n\n{body}\n\nSigned-off-by: Ada Example <ada@example.org>\n{DIFF}"
    )
    patch = parse_patch(parse_rfc822(raw.encode(), "test"))
    (f,) = [f for f in check_patch(patch, _RULES, RuleContext()).findings if f.rule_id == "RB201"]
    return f


def test_a_claim_in_the_first_paragraph_is_asked() -> None:
    f = _finding("Start the walk at x->first, which makes x_walk() faster on large tables.")
    assert not f.details.get(NOT_ASKED_KEY)


def test_the_same_claim_as_a_late_remark_is_kept_but_not_asked() -> None:
    f = _finding(
        "x_walk() visited entries before x->first, which are never valid.\n\n"
        "Start the walk at x->first instead; the entries before it are skipped.\n\n"
        "As a side effect this makes x_walk() faster on large tables."
    )
    assert f.severity.name == "WARNING"
    assert "not the patch's stated purpose" in str(f.details.get(NOT_ASKED_KEY))


def test_a_sentence_about_another_commit_is_no_claim_of_this_patch() -> None:
    """'In commit <sha> ("..."), X was introduced as an optimisation of Y': the claim is that commit's, told in
    the first clause (a fresh linux-kselftest reader: the patch fixes X, nothing to benchmark)."""
    body = (
        'In commit 0123456789ab ("mm/x: add a walk cache"), x_cache_get() was introduced as an optimisation '
        "of x_walk(), which only copies entries from the table.\n\nBut x_cache_get() misses entries of modules; "
        "walk from x->first instead."
    )
    raw = (
        "From: Ada Example <ada@example.org>\nMessage-ID: <pp-2@example.org>\nSubject: [PATCH] mm/x: fix the walk "
        f"cache for modules\nDate: Mon, 10 Mar 2025 10:00:00 +0100\n\n{body}\n\nSigned-off-by: Ada Example "
        f"<ada@example.org>\n{DIFF}"
    )
    patch = parse_patch(parse_rfc822(raw.encode(), "test"))
    assert [f.rule_id for f in check_patch(patch, _RULES, RuleContext()).findings] == []
