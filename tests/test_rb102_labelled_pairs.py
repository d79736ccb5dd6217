"""RB102 reads a pairing word however it is inflected or misspelt (issue 23's last first look, first10: a ring's
barriers carry the labels of the diagram above them, "/* C, matches B */", "/* B, matches C */" and
"/* D, matchees A */"; the rule accepted the first two and asked the third for a pairing comment). Our own
ring, modelled on that kind."""

from __future__ import annotations

import pytest

from reviewbot.engine import check_patch
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.rule import RuleContext

RULE = next(r for r in load_rules(entry_points=False) if r.id == "RB102")


def _barriers_asked(comment: str) -> list[str]:
    lines = [
        "+static inline void zring_release(struct zring *q)",
        "+{",
        f"+\tsmp_store_release(&q->ring->consumer, q->cached_cons); /* {comment} */",
        "+}",
    ]
    path = "net/zed/zring.h"
    raw = (
        "From: Ada Example <ada@example.org>\nMessage-ID: <ring-1@example.org>\nSubject: [PATCH] zed: use "
        "acquire/release on the ring\nDate: Mon, 10 Mar 2025 10:00:00 +0100\n\nUse acquire/release.\n\n"
        "Signed-off-by: Ada Example <ada@example.org>\n---\n"
        f"diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n--- a/{path}\n+++ b/{path}\n"
        f"@@ -10,0 +11,{len(lines)} @@\n" + "\n".join(lines) + "\n-- \n2.43.0\n"
    )
    patch = parse_patch(parse_rfc822(raw.encode(), "ring.patch"))
    return [f.details["barrier"] for f in check_patch(patch, [RULE], RuleContext(strict=True)).findings]


@pytest.mark.parametrize("comment", ["D, matches A", "D, matchees A", "D, matched by A"])
def test_a_labelled_pairing_comment_is_read(comment: str) -> None:
    assert _barriers_asked(comment) == []


def test_a_label_alone_says_nothing_about_the_other_side() -> None:
    assert _barriers_asked("D") == ["smp_store_release"]
