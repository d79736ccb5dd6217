"""Issue 26's thirteenth first-look reading (r13): the one sure draft, an RB202 question on a patch adding an
early boot counter, was a NO from the reader for two reasons, each fixed here with mail of our own making.

* The changelog said the patch adds the prints ("Add some calibration printks to allow setting configuration
  variables"): asking whether the timing code "was meant to stay" ignores what the changelog says. Such prints
  keep the finding, undrafted (step "sure").
* A reviewer had already asked about them, under the end of the quoted block of code holding the print ("I don't
  get the need to have these here ... maybe pr_debug() would be a better choice?"), five quoted lines below the
  print's own line: a comment under the end of a short block of code is on every line of it.
"""

from __future__ import annotations

from reviewbot.engine import check_patch
from reviewbot.models import UNSURE_KEY, FindingState
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.respond.draft import thread_state
from reviewbot.rule import RuleContext
from reviewbot.rules import rb202_measurement_code as rb202

_RULES = load_rules(entry_points=False, select=["RB202"])
_HUNK = [
    "\tqux_setup();",
    "",
    "+\tend = get_cycles();",
    "+\tend_ns = local_clock();",
    '+\tpr_info("qux: cycles=%llu ns=%llu\\n", end - start, end_ns - start_ns);',
    '+\tpr_info("qux: start=%llu end=%llu\\n", start, end);',
    '+\tpr_info("qux: mult=%u shift=%u\\n", qux_mult, qux_shift);',
    "+\tqux_calibrated = true;",
    "+",
    "\tqux_run();",
]


def _mail(changelog: str) -> bytes:
    body = "\n".join(line if line[:1] in "+-" else " " + line for line in _HUNK)
    return (
        "From: Ada Example <ada@example.org>\nMessage-ID: <qux-1@example.org>\n"
        "Subject: [PATCH] qux: count cycles from boot\nDate: Mon, 10 Mar 2025 10:00:00 +0100\n\n"
        f"{changelog}\n\nSigned-off-by: Ada Example <ada@example.org>\n---\n"
        "diff --git a/init/qux.c b/init/qux.c\nindex 1111111..2222222 100644\n--- a/init/qux.c\n+++ b/init/qux.c\n"
        f"@@ -40,3 +40,10 @@ static int qux_init(void)\n{body}\n"
    ).encode()


def _finding(changelog: str):
    patch = parse_patch(parse_rfc822(_mail(changelog), "test"))
    (found,) = check_patch(patch, _RULES, RuleContext()).findings
    return patch, found


def test_prints_the_changelog_announces_are_not_drafted() -> None:
    _patch, found = _finding("Count cycles from boot. Add some calibration printks to let integrators set QUX_MULT.")
    assert found.details[UNSURE_KEY] == rb202.UNSURE_ANNOUNCED
    _patch, found = _finding("Count cycles from boot, so early timestamps are not zero.")
    assert UNSURE_KEY not in found.details  # nothing said of the prints: still a harness left in, for sure


def _reply(comment: str, quoted: list[str]) -> bytes:
    quote = "\n".join("> " + (line if line[:1] in "+-" else " " + line) for line in quoted)
    return (
        "From: Bob Reviewer <bob@example.net>\nMessage-ID: <bob-1@example.net>\n"
        "Subject: Re: [PATCH] qux: count cycles from boot\nIn-Reply-To: <qux-1@example.org>\n"
        "References: <qux-1@example.org>\nDate: Tue, 11 Mar 2025 10:00:00 +0100\n\n"
        f"On Mon, Ada Example wrote:\n{quote}\n\n{comment}\n"
    ).encode()


def test_a_comment_under_the_end_of_the_block_holding_the_print_raised_it() -> None:
    patch, found = _finding("Count cycles from boot, so early timestamps are not zero.")
    comment = "I don't get the need to have these here. Maybe pr_debug() would be a better choice?"
    state, why = thread_state(found, patch, [parse_rfc822(_reply(comment, _HUNK[2:9]), "reply")])
    assert state is FindingState.RAISED and "bob-1@example.net" in why
    # the same comment under a block that goes on for more than ten lines below the print is not about it
    long_block = _HUNK[2:8] + [f"+\tqux_step({n});" for n in range(12)] + ["+"]
    state, _why = thread_state(found, patch, [parse_rfc822(_reply(comment, long_block), "reply")])
    assert state is FindingState.OPEN
