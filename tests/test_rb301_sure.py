"""RB301's step "sure" (issue 26's seventh first-look reading, r7: 14 lists never read).

A fresh maintainer said NO to an RB301 draft on a mangled mail: the patch's own diff pasted above the "---",
then a second Signed-off-by, the "---", the diffstat and the diff again. The draft called the first copy "the
example diff in the changelog" and asked to indent it; what a reviewer asks there is a clean resend. A diff in
the message whose hunks are the patch's own (the same line ranges) stays a finding, not drafted. An example of
another change (other ranges, as the shared case C02's v1 hunk) is still drafted, and the question no longer
calls it "the v1 change": the reader's other RB301 draft quoted an alternative design of an RFC. Our own mail.
"""

from __future__ import annotations

from pathlib import Path

from reviewbot.engine import check_patch
from reviewbot.models import UNSURE_KEY
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.rule import RuleContext
from reviewbot.rules import rb301_diff_in_commit_message as rb301

_RULES = load_rules(entry_points=False, select=["RB301"])
_DIFF = (
    "diff --git a/drivers/foo/bar.c b/drivers/foo/bar.c\nindex 1111111..2222222 100644\n"
    "--- a/drivers/foo/bar.c\n+++ b/drivers/foo/bar.c\n@@ -24,6 +24,7 @@\n #include <linux/io.h>\n"
    " #include <linux/dmi.h>\n+#include <linux/export.h>\n #include <linux/slab.h>\n"
    " #include <linux/string.h>\n #include <linux/types.h>\n #include <linux/uio.h>\n"
)
_MANGLED = (
    "From: Ada Example <ada@example.org>\nMessage-ID: <mangled-1@example.org>\n"
    "Subject: [PATCH] foo: include export.h where EXPORT_SYMBOL() is used\n"
    "Date: Mon, 10 Mar 2025 10:00:00 +0100\n\nW=1 warns that bar.c uses EXPORT_SYMBOL() without it.\n\n"
    "Signed-off-by: Ada Example <ada@example.org>\n\n"
    f"{_DIFF}\nSigned-off-by: Ada Example <your_email@example.com>\n---\n"
    " drivers/foo/bar.c | 1 +\n 1 file changed, 1 insertion(+)\n\n"
    f"{_DIFF}-- \n2.20.1\n"
)


def _findings(raw: bytes):
    patch = parse_patch(parse_rfc822(raw, "test"))
    return patch, check_patch(patch, _RULES, RuleContext()).findings


def test_the_patch_pasted_into_its_message_is_not_drafted() -> None:
    _patch, (found,) = _findings(_MANGLED.encode())
    assert found.rule_id == "RB301" and found.details[UNSURE_KEY] == rb301.UNSURE_COPY
    assert "a copy of the patch's own hunks" in found.message and "git commit --amend" in found.message
    assert "indent the example" not in found.message and "drop" not in found.message


def test_the_question_on_a_pasted_copy_asks_for_a_clean_resend() -> None:
    # r8 (five lists never read): the same kind of mail, drafted with --unsure, was still called "the example
    # diff in the changelog" whose Signed-off-by git am would drop, where the first Signed-off-by is above it
    patch, (found,) = _findings(_MANGLED.encode())
    reply = rb301.reply([found], patch)
    assert reply.startswith("The patch seems to be pasted twice")
    assert '"diff --git a/drivers/foo/bar.c b/drivers/foo/bar.c" line on' in reply
    assert "example" not in reply and "dropped" not in reply and "Signed-off-by" not in reply


def test_an_example_of_another_change_is_still_drafted_without_calling_it_v1() -> None:
    cases = Path(__file__).resolve().parent / "data" / "cases" / "C02.patch"
    patch, (found,) = _findings(cases.read_bytes())
    assert UNSURE_KEY not in found.details
    reply = rb301.reply([found], patch)
    assert "indent the example" in reply and "v1" not in reply


def test_an_earlier_hunk_at_the_same_lines_is_an_example_not_a_copy() -> None:
    # v1 of the change quoted in the message: the same line ranges, other lines
    v1 = _DIFF.replace("+#include <linux/export.h>", "+#include <linux/module.h>")
    raw = _MANGLED.replace(
        f"{_DIFF}\nSigned-off-by: Ada Example <your_email@example.com>\n", f"v1 did:\n\n{v1}\nUse export.h.\n", 1
    )
    _patch, (found,) = _findings(raw.encode())
    assert UNSURE_KEY not in found.details and "indent the example" in found.message


def test_a_blank_context_line_does_not_end_the_pasted_diff() -> None:
    # a commit strips the space of an empty context line: the copy goes on after it, nothing of it is "dropped"
    blank = _DIFF.replace(" #include <linux/types.h>\n", "\n", 1)
    raw = _MANGLED.replace(_DIFF, blank, 1)
    _patch, (found,) = _findings(raw.encode())
    assert "#include" not in " ".join(found.details["dropped_text"])
