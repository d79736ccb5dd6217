"""A reviewer's comment right under the quoted line a finding is about counts as raised.

The texts follow the io_uring stable-6.1 thread (Jens Axboe commented under the smp_mb() line;
Li Zetao only gave a Reviewed-by further down), written here in short.
"""

from __future__ import annotations

from reviewbot.models import Finding, FindingState, Severity
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.rule import point_in_thread

PATCH = (
    """From: Pavel B <pavel@example.org>
Message-ID: <p@example.org>
Subject: [PATCH] io_uring: fix waiters missing wake ups
Date: Fri, 24 Jan 2025 12:00:00 +0000

Restore the barrier.

Signed-off-by: Pavel B <pavel@example.org>
---
diff --git a/io_uring/io_uring.c b/io_uring/io_uring.c
--- a/io_uring/io_uring.c
+++ b/io_uring/io_uring.c
@@ -592,8 +592,10 @@ static inline void flush(struct io_ring_ctx *ctx)
 	io_commit_cqring(ctx);
 	spin_unlock(&ctx->completion_lock);
 	io_commit_cqring_flush(ctx);
-	if (!(ctx->flags & IORING_SETUP_DEFER_TASKRUN))
+	if (!(ctx->flags & IORING_SETUP_DEFER_TASKRUN)) {
+		smp_mb();
 		__io_cqring_wake(ctx);
+	}
 }
"""
    + " \n"
    + """ void io_cq_unlock_post(struct io_ring_ctx *ctx)
"""
)  # the blank context line is a space

QUOTE = """> +\tif (!(ctx->flags & IORING_SETUP_DEFER_TASKRUN)) {
> +\t\tsmp_mb();
>  \t\t__io_cqring_wake(ctx);
> +\t}
>  }
"""


def _setup():
    patch = parse_patch(parse_rfc822(PATCH.encode(), "p"))
    hunk = patch.files[0].hunks[0]
    line = next(dl.new_no for dl in hunk.lines if "smp_mb" in dl.text)
    finding = Finding(
        "RB102",
        "barrier-pairing",
        Severity.WARNING,
        "m",
        path="io_uring/io_uring.c",
        line=line,
        lines=(line,),
        hunk=hunk,
        details={"barrier": "smp_mb"},
    )
    return patch, finding


def _reply(body: str, sender: str = "Jens A <jens@example.org>"):
    raw = (
        f"From: {sender}\nMessage-ID: <r{abs(hash(body))}@example.org>\nIn-Reply-To: <p@example.org>\n"
        f"Subject: Re: [PATCH] io_uring: fix waiters missing wake ups\nDate: Fri, 24 Jan 2025 13:00:00 +0000\n\n"
        f"{body}"
    )
    return parse_rfc822(raw.encode(), "r")


def test_comment_under_the_line_is_raised_without_the_rules_words() -> None:
    patch, finding = _setup()
    reply = _reply(
        QUOTE + "\nWe could probably just s/__io_cqring_wake/io_cqring_wake here to get\n"
        "the same effect. Not that it really matters, it's just simpler.\n"
    )
    state, reason = point_in_thread(finding, patch, [reply], None)
    assert state is FindingState.RAISED and "under the quoted code" in reason


def test_trailer_or_ack_under_the_line_is_no_comment() -> None:
    patch, finding = _setup()
    for text in ("\nReviewed-by: Li Z <li@example.org>\n", "\nLooks good, thanks!\n"):
        assert point_in_thread(finding, patch, [_reply(QUOTE + text)], None)[0] is FindingState.OPEN, text


def test_comment_far_below_the_line_does_not_count() -> None:
    patch, finding = _setup()
    far = QUOTE + "> \n>  void io_cq_unlock_post(struct io_ring_ctx *ctx)\n> --\n\nWe could just do x here instead.\n"
    assert point_in_thread(finding, patch, [_reply(far)], None)[0] is FindingState.OPEN
