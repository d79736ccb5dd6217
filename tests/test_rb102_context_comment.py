"""RB102 on issue 23's fourth first-look batch (first4): a new acquire put under an existing comment.

A patch adds a second ``smp_load_acquire()`` branch right under a comment already there (the hunk starts inside
it) that explains the acquire in memory-barriers.txt's words: another task publishes with a RELEASE, this load
ACQUIREs it. Only an ``if (...)`` line, or a blank line and the ``if``, stands between. The comment is the
barrier's own and says what it pairs with: no finding (two fscrypt/fsverity readers labelled both 0). A comment
naming neither half, or one above code rather than above the blank line, leaves the finding. Our own example.
"""

from __future__ import annotations

import pytest

from reviewbot.engine import check_patch
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.rule import RuleContext

RULE = next(r for r in load_rules(entry_points=False) if r.id == "RB102")

COMMENT_TAIL = (
    " \t * a RELEASE barrier when it installs ->slot.  We need smp_load_acquire()\n"
    " \t * here to ACQUIRE the table the other CPU published.\n"
)


def _findings(comment_tail: str, between: str = "", plus: int = 2) -> list:
    body = (
        "From: Ada Example <ada@example.org>\nSubject: [PATCH] qux: look the slot up through an offset\n"
        "Message-ID: <x@example.org>\n\nSome users keep the slot outside struct qux.\n\n"
        "Signed-off-by: Ada Example <ada@example.org>\n---\n"
        "diff --git a/include/linux/qux.h b/include/linux/qux.h\n--- a/include/linux/qux.h\n"
        f"+++ b/include/linux/qux.h\n@@ -40,5 +40,{5 + plus} @@ static inline struct qux_table *qux_get(struct qux *q)\n"
        f"{comment_tail} \t */\n{between}"
        "+\tif (q->slot_offs)\n+\t\treturn smp_load_acquire(qux_slot(q));\n"
        " \treturn smp_load_acquire(&q->slot);\n }\n"
    )
    patch = parse_patch(parse_rfc822(body.encode(), "qux.patch"))
    return list(check_patch(patch, [RULE], RuleContext(strict=True)).findings)


@pytest.mark.parametrize(("between", "plus"), [("", 2), ("+\n", 3)], ids=["if-line", "blank-and-if"])
def test_new_acquire_under_the_comment_that_explains_it(between: str, plus: int) -> None:
    assert _findings(COMMENT_TAIL, between, plus) == []


def test_a_comment_naming_neither_half_is_still_asked_about() -> None:
    tail = " \t * a new table.  Load the pointer once so both users\n \t * get the same table.\n"
    (f,) = _findings(tail)
    assert f.details["problem"] == "comment-without-pairing"


def test_a_comment_above_other_code_is_not_the_barriers() -> None:
    # the comment heads ``n = q->nr;``; the blank line and the ``if`` come after that statement
    (f,) = _findings(COMMENT_TAIL + " \t */\n+\tn = q->nr;\n", "+\n", 4)
    assert f.details["problem"] == "no-comment"
