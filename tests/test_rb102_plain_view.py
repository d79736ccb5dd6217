"""RB102 recall on lists it never saw (issue 23): a removed ``smp_mb();`` that the hunk adds back re-indented is
kept, not the old spelling of a new ``smp_wmb()``; an acquire whose comment names the stores it waits for ("the
stores to the zed_ops structure") names its other side. The example patches are our own.
"""

from __future__ import annotations

from reviewbot.engine import check_patch
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.rule import RuleContext

_RULES = load_rules(entry_points=False, select=["RB102"])


def _mail(subject: str, path: str, hunks: list[tuple[str, list[str]]], n: int = 1) -> str:
    """A patch mail whose diff of ``path`` has the given (section, lines) hunks, lines starting " ", "+", "-"."""
    parts = []
    start = 10
    for section, lines in hunks:
        old = sum(1 for t in lines if t[:1] in " -")
        new = sum(1 for t in lines if t[:1] in " +")
        parts.append(f"@@ -{start},{old} +{start},{new} @@ {section}\n" + "\n".join(lines))
        start += 100
    body = "\n".join(parts)
    return (
        f"From: Ada Example <ada@example.org>\nTo: linux-zed@example.org\n"
        f"Date: Mon, 10 Mar 2025 10:0{n}:00 +0100\nMessage-ID: <zed-{n}@example.org>\n"
        f"Subject: {subject}\n\nThe change.\n\nSigned-off-by: Ada Example <ada@example.org>\n---\n"
        f"diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n--- a/{path}\n+++ b/{path}\n"
        f"{body}\n-- \n2.43.0\n"
    )


def _check(raw: str) -> list:
    patch = parse_patch(parse_rfc822(raw.encode(), "test mail"))
    return list(check_patch(patch, _RULES, RuleContext(strict=True)).findings)


# a loop body wrapped in a new loop: its two smp_mb() come back re-indented, the smp_wmb()/smp_rmb() are new
REINDENTED_AND_NEW = _mail(
    "[PATCH] zed: call the handlers of every queued request",
    "drivers/zed/call.c",
    [
        (
            "struct zed_call {",
            [
                " void zed_queue_call(struct zed_call *call, void (*fn)(void *), void *arg)",
                " {",
                "+\tcall->fn = fn;",
                "+\tcall->arg = arg;",
                "+\tsmp_wmb();",
                "+\tcall->queued = true;",
                " }",
                " ",
                " void zed_run_calls(struct zed_ctx *ctx)",
                " {",
                "-\tif (!ctx->call.queued)",
                "-\t\treturn;",
                "-\tsmp_mb();",
                "-\tctx->call.fn(ctx->call.arg);",
                "-\tsmp_mb();",
                "-\tctx->call.queued = false;",
                "+\tstruct zed_call *call;",
                "+",
                "+\tfor_each_zed_call(call, ctx) {",
                "+\t\tif (!call->queued)",
                "+\t\t\tcontinue;",
                "+\t\tsmp_rmb();",
                "+\t\tsmp_mb();",
                "+\t\tcall->fn(call->arg);",
                "+\t\tsmp_mb();",
                "+\t\tcall->queued = false;",
                "+\t}",
                " }",
            ],
        ),
    ],
)


def test_a_new_barrier_is_not_taken_for_a_rename_of_a_barrier_the_hunk_keeps() -> None:
    findings = _check(REINDENTED_AND_NEW)
    assert [(f.line, f.details["barrier"], f.details["problem"], f.not_asked) for f in findings] == [
        (14, "smp_wmb", "no-comment", ""),
        (25, "smp_rmb", "no-comment", ""),
    ]


def test_a_barrier_renamed_in_place_stays_quiet() -> None:
    # the old spelling goes and the new one takes its place: no new ordering
    raw = _mail(
        "[PATCH] zed: use the kernel's barrier name",
        "drivers/zed/call.c",
        [
            (
                "void zed_run_calls(struct zed_ctx *ctx)",
                [" \tif (!ctx->call.queued)", "-\tread_barrier();", "+\tsmp_rmb();"],
            )
        ],
    )
    assert _check(raw) == []


# an acquire whose comment names the stores it waits for, the releases naming it
AWAITED_STORES = _mail(
    "[PATCH] zed: let clients check for the backend without a lock",
    "drivers/zed/ops.c",
    [
        (
            "static const struct zed_ops *zed_ops_ptr;",
            [
                "+bool zed_available(void)",
                "+{",
                "+\t/*",
                "+\t * The acquire on zed_ops_ptr orders the stores to the ops structure",
                "+\t * for clients checking in parallel.",
                "+\t */",
                "+\treturn !!smp_load_acquire(&zed_ops_ptr);",
                "+}",
                "+",
                "+void zed_ops_register(const struct zed_ops *ops)",
                "+{",
                "+\t/* Paired with smp_load_acquire() in zed_available() */",
                "+\tsmp_store_release(&zed_ops_ptr, ops);",
                "+}",
            ],
        ),
    ],
)


def test_an_acquire_naming_the_stores_it_waits_for_names_its_other_side() -> None:
    assert _check(AWAITED_STORES) == []
