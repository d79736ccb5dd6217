"""RB102's thread state: a reply raises the point for the barrier it is about, not for every barrier of the
patch (issue 10 RB102, issue 11 item 1).

A reply is about a barrier when it comments under that barrier's quoted lines (shown in their own place: the
same ``smp_rmb();`` text elsewhere is another barrier), when a paragraph names the barrier's function or file,
or when it quotes no code at all. Real data: tests/data/rb102-threads (byte copies of two mirror pages).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewbot.fetch import openwall as ow
from reviewbot.models import FindingState
from reviewbot.parse.mail import parse_message, parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.respond.draft import thread_state
from reviewbot.rule import RuleContext

PAGES = Path(__file__).parent / "data" / "rb102-threads" / "linux-kernel"


@pytest.fixture(scope="module")
def rules():
    return load_rules(entry_points=False)


def _rb102(rules):
    return next(r for r in rules if r.meta.id == "RB102")


def _page(rel: str):
    url = "https://lists.openwall.net/linux-kernel/" + rel
    return parse_message(ow.parse_message_page((PAGES / (rel + ".html")).read_bytes(), url, "linux-kernel"))


def _states(rules, patch, thread):
    findings = list(_rb102(rules).check(patch, RuleContext()))
    return {(f.path, f.line): thread_state(f, patch, thread, rules=rules)[0] for f in findings}


def _reasons(rules, patch, thread):
    findings = list(_rb102(rules).check(patch, RuleContext()))
    return {(f.path, f.line): thread_state(f, patch, thread, rules=rules)[1] for f in findings}


ANOTHER = "about another barrier of this patch"


def test_a_question_about_one_barrier_in_a_header_keeps_the_others_quiet_saying_so(rules) -> None:
    # Frederic asks only about the smp_rmb() of task_isolation_kernel_enter() in include/linux/isolation.h
    # ("Also against what it pairs."); the smp_mb() of record_curr_isolated_task() and the smp_rmb()s of
    # kernel/isolation.c were never discussed (review of the whole-mirror run, findings #8 and #21).
    patch = parse_patch(_page("2020/07/22/2"))
    reply = _page("2020/10/01/3")
    assert "against\nwhat it pairs" in reply.body or "against what it pairs" in " ".join(reply.body.split())
    states = _states(rules, patch, [reply])
    assert ("kernel/isolation.c", 161) in states and ("kernel/isolation.c", 543) in states
    assert ("kernel/isolation.c", 710) in states  # the same "smp_rmb();" text as the quoted one
    # quiet all the same (the author's answer is likely to cover them: asking again would repeat Frederic), but
    # the reason says the question was about another barrier, not this one
    assert set(states.values()) == {FindingState.RAISED}
    reasons = _reasons(rules, patch, [reply])
    assert all(ANOTHER in r for r in reasons.values())


def test_a_request_under_a_nested_quote_of_the_barrier_raises_it(rules) -> None:
    # Mark Rutland, two quote levels down under "> > > +\tsmp_rmb();" (the line it replaces quoted just above
    # it): "Please add a comment in the code as to what it pairs with."
    patch = parse_patch(_page("2020/11/23/2"))
    reply = _page("2020/12/07/1")
    assert _states(rules, patch, [reply]) == {("kernel/time/tick-sched.c", 272): FindingState.RAISED}


PATCH = b"""\
From: Ada Example <ada@example.org>
To: linux-kernel@vger.kernel.org
Subject: [PATCH] foo: order the ring and the stats
Date: Sat, 15 Mar 2025 10:00:00 +0100
Message-ID: <20250315090000.7777-1-ada@example.org>

Order the ring tail and the stats counter.

Signed-off-by: Ada Example <ada@example.org>
---
diff --git a/drivers/foo/ring.c b/drivers/foo/ring.c
index 3333333..4444444 100644
--- a/drivers/foo/ring.c
+++ b/drivers/foo/ring.c
@@ -40,5 +40,6 @@
 static void foo_ring_push(struct foo_ring *r, u32 v)
 {
 \tr->slot[r->tail & r->mask] = v;
+\tsmp_wmb();
 \tWRITE_ONCE(r->tail, r->tail + 1);
 }
@@ -80,5 +81,6 @@
 static void foo_stats_bump(struct foo_ring *r)
 {
 \tr->stats_seq++;
+\tsmp_wmb();
 \tWRITE_ONCE(r->stats, r->stats + 1);
 }
"""


def _reply(body: str, n: int):
    data = (
        "From: Bob Maintainer <bob@example.com>\n"
        "To: Ada Example <ada@example.org>\n"
        "Subject: Re: [PATCH] foo: order the ring and the stats\n"
        "Date: Sat, 15 Mar 2025 15:00:00 +0100\n"
        f"Message-ID: <87bob{n}.fsf@example.com>\n"
        "In-Reply-To: <20250315090000.7777-1-ada@example.org>\n"
        "References: <20250315090000.7777-1-ada@example.org>\n\n" + body
    ).encode()
    return parse_rfc822(data, f"reply{n}")


def _written_states(rules, body: str):
    patch = parse_patch(parse_rfc822(PATCH, "patch"))
    states = _states(rules, patch, [_reply(body, len(body))])
    return {line: s for (_, line), s in states.items()}


def test_a_question_under_one_quoted_barrier_raises_that_one_and_quiets_the_other(rules) -> None:
    body = (
        ">  \tr->slot[r->tail & r->mask] = v;\n> +\tsmp_wmb();\n>  \tWRITE_ONCE(r->tail, r->tail + 1);\n\n"
        "What does this barrier pair with? Please add a comment.\n"
    )
    assert _written_states(rules, body) == {43: FindingState.RAISED, 84: FindingState.RAISED}
    patch = parse_patch(parse_rfc822(PATCH, "patch"))
    reasons = {line: r for (_, line), r in _reasons(rules, patch, [_reply(body, len(body))]).items()}
    assert ANOTHER not in reasons[43] and ANOTHER in reasons[84]


def test_a_paragraph_naming_the_function_raises_the_barrier_there(rules) -> None:
    body = (
        "> \tr->slot[r->tail & r->mask] = v;\n> +\tsmp_wmb();\n\nFine.\n\n"
        "The barrier in foo_stats_bump() needs a comment: what does it pair with?\n"
    )
    assert _written_states(rules, body) == {43: FindingState.RAISED, 84: FindingState.RAISED}
    patch = parse_patch(parse_rfc822(PATCH, "patch"))
    reasons = {line: r for (_, line), r in _reasons(rules, patch, [_reply(body, len(body))]).items()}
    assert ANOTHER in reasons[43] and ANOTHER not in reasons[84]


def test_a_reply_quoting_no_code_speaks_of_every_barrier(rules) -> None:
    body = "What does this barrier pair with? Please add a comment to each of them.\n"
    assert _written_states(rules, body) == {43: FindingState.RAISED, 84: FindingState.RAISED}
