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


_STRACE = (
    "From: Ada Example <ada@example.org>\nMessage-ID: <strace-1@example.org>\nSubject: [PATCH] foo: fix a double SIGFPE\n"
    "Date: Mon, 10 Mar 2025 10:00:00 +0100\n\nThe second SIGFPE kills the program:\n\n"
    "rt_sigaction(SIGFPE, {sa_handler=0x1110a}, NULL, 8) = 0\n"
    "--- SIGFPE {si_signo=SIGFPE, si_addr=0x1078f} ---\n"
    "--- SIGFPE {si_signo=SIGFPE, si_addr=0xf8f21237} ---\n"
    "+++ killed by SIGFPE +++\n\nClear the trap before the handler runs.\n\n"
    "Signed-off-by: Ada Example <ada@example.org>\n---\n drivers/foo/bar.c | 1 +\n\n"
    "diff --git a/drivers/foo/bar.c b/drivers/foo/bar.c\nindex 1111111..2222222 100644\n"
    "--- a/drivers/foo/bar.c\n+++ b/drivers/foo/bar.c\n@@ -10,2 +10,3 @@\n a\n+b\n c\n"
)


def test_tool_output_that_starts_like_a_patch_is_cut_where_git_cuts_it(tmp_path: Path) -> None:
    # r10 (fourteen lists never read): strace's "--- SIGFPE {...} ---" lines; git mailinfo cuts at the first of
    # them, the draft named the second and called the output "the example diff"
    import shutil
    import subprocess

    patch, (found,) = _findings(_STRACE.encode())
    assert found.details["diff_line"] == "--- SIGFPE {si_signo=SIGFPE, si_addr=0x1078f} ---"
    reply = rb301.reply([found], patch)
    assert reply.startswith('I think git am will cut the changelog at the unindented "--- SIGFPE {si_signo=SIGFPE, ')
    assert "example" not in reply and "Signed-off-by:" in reply
    if shutil.which("git"):  # and git itself cuts there
        mail = tmp_path / "strace.eml"
        mail.write_text(_STRACE, encoding="utf-8")
        with mail.open("rb") as fh:
            subprocess.run(
                ["git", "mailinfo", str(tmp_path / "msg"), str(tmp_path / "patch")],
                stdin=fh,
                check=True,
                capture_output=True,
            )
        assert (tmp_path / "patch").read_text().startswith("--- SIGFPE {si_signo=SIGFPE, si_addr=0x1078f} ---\n")


def test_a_reviewer_who_asked_to_indent_the_quoted_diff_raised_the_point() -> None:
    # r10: a reviewer had written "indent them by 2 or more chars ... without being taken for a part of the
    # patchset" about a QEMU diff quoted in the changelog; the draft asked it again
    from reviewbot.models import FindingState
    from reviewbot.respond.draft import thread_state

    cases = Path(__file__).resolve().parent / "data" / "cases" / "C02.patch"
    patch, (found,) = _findings(cases.read_bytes())
    reply = (
        f"From: Bob Reviewer <bob@example.net>\nMessage-ID: <bob-1@example.net>\nSubject: Re: {patch.subject.raw}\n"
        f"In-Reply-To: <{patch.message_id}>\nReferences: <{patch.message_id}>\nDate: Tue, 11 Mar 2025 10:00:00 +0100\n\n"
        "What I'm used to doing when quoting code in a changelog is to indent them by 2 or more chars,\n"
        "so that the diff is not taken for a part of the patch.\n"
    )
    thread = [parse_rfc822(reply.encode(), "reply")]
    state, why = thread_state(found, patch, thread)
    assert state is FindingState.RAISED and "bob-1@example.net" in why
    other = reply.split("What I'm used to")[0] + "The diff looks fine to me, and the changelog explains it well.\n"
    assert thread_state(found, patch, [parse_rfc822(other.encode(), "reply")])[0] is FindingState.OPEN


def test_an_rfc_keeps_the_finding_and_is_not_drafted() -> None:
    # r12 (linux-wireless and eight more lists never drafted): an "[RFC]" reporting a bug and asking the list for
    # insight, an example diff in its message and a debug print as its patch; the advice to indent the example
    # "when you resend" was a NO: an RFC is not applied as it stands. The same mail as a [PATCH] is still drafted.
    v1 = _DIFF.replace("+#include <linux/export.h>", "+#include <linux/module.h>")
    raw = _MANGLED.replace(
        f"{_DIFF}\nSigned-off-by: Ada Example <your_email@example.com>\n", f"v1 did:\n\n{v1}\nUse export.h.\n", 1
    )
    _patch, (found,) = _findings(raw.replace("[PATCH]", "[RFC]").encode())
    assert found.details[UNSURE_KEY] == rb301.UNSURE_RFC and "indent the example" in found.message
    _patch, (found,) = _findings(raw.replace("[PATCH]", "[RFC PATCH v2]").encode())
    assert found.details[UNSURE_KEY] == rb301.UNSURE_RFC
    _patch, (found,) = _findings(raw.encode())
    assert UNSURE_KEY not in found.details
