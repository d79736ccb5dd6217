"""RB102 on issue 23's sixth first-look batch (first6: ten lists), fixed by kind.

A comment that draws the two CPUs side by side, each column naming its operations, names the other side as
memory-barriers.txt does (first6: a cache daemon's smp_mb() under a "CPU 1 / CPU 2" diagram was asked about).
A compiler barrier() made a CPU barrier in place (``barrier();`` -> ``mb();`` in a page-table macro that
stores the entry) is a new ordering, not a new spelling of the old one, and a macro that does something else
with a barrier is a use, not a wrapper (first6: an architecture's set_pte() was passed over). The patches are
our own, modelled on the kinds read.
"""

from __future__ import annotations

from reviewbot.engine import check_patch
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.rule import RuleContext

RULE = next(r for r in load_rules(entry_points=False) if r.id == "RB102")


def _findings(path: str, body: str) -> list[tuple[int | None, str]]:
    """The (line, barrier) of each finding on a patch of ``path`` whose one hunk, at line 40, is ``body``."""
    lines = body.splitlines()
    old = sum(1 for line in lines if line[:1] in (" ", "-"))
    new = sum(1 for line in lines if line[:1] in (" ", "+"))
    hunk = f"@@ -40,{old} +40,{new} @@ static void qux_close(struct qux_dev *qd)\n{body}"
    raw = (
        "From: Ada Example <ada@example.org>\nMessage-ID: <r4-1@example.org>\nSubject: [PATCH] qux: order it\n"
        "Date: Mon, 10 Mar 2025 10:00:00 +0100\n\nOrder it.\n\nSigned-off-by: Ada Example <ada@example.org>\n---\n"
        f"diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n--- a/{path}\n+++ b/{path}\n{hunk}-- \n2.43.0\n"
    )
    patch = parse_patch(parse_rfc822(raw.encode(), "r4.patch"))
    return [(f.line, f.details["barrier"]) for f in check_patch(patch, [RULE], RuleContext(strict=True)).findings]


_DIAGRAM = (
    " {\n"
    "+\tset_bit(QUX_CLOSING, &qd->flags);\n"
    "+\t/*\n"
    "+\t * Closing must not lose a job queued meanwhile:\n"
    "+\t *\n"
    "+\t * CPU 0\t\t\t\tCPU 1\n"
    "+\t * -----\t\t\t\t-----\n"
    "+\t * mark QUX_CLOSING\n"
    "+\t *\t\t\t\tcheck QUX_CLOSING\n"
    "+\t *\t\t\t\tqueue the job\n"
    "+\t * drain the job list\n"
    "+\t */\n"
    "+\tsmp_mb();\n"
    "+\tqux_drain(qd);\n"
    "+\n"
    " \tqux_free(qd);\n"
    " }\n"
)


def test_a_two_cpu_diagram_names_the_other_side() -> None:
    assert _findings("drivers/qux/core.c", _DIAGRAM) == []


def test_the_same_comment_without_the_diagram_is_asked_about() -> None:
    lines = _DIAGRAM.splitlines(keepends=True)
    plain = "".join(line for line in lines if "CPU" not in line and "-----" not in line and "\t\t\t\t" not in line)
    plain = plain.replace("+\t * mark QUX_CLOSING\n", "").replace("+\t * drain the job list\n", "")
    assert _findings("drivers/qux/core.c", plain) == [(46, "smp_mb")]


_SET_ENTRY = (
    " #define set_qux_entry(entryp, val)\t\t\\\n"
    " \tdo {\t\t\t\t\t\\\n"
    " \t\t*(entryp) = (val);\t\t\\\n"
    "-\t\tbarrier();\t\t\t\\\n"
    "+\t\tmb();\t\t\t\t\\\n"
    " \t} while (0)\n"
)


def test_a_compiler_barrier_made_a_cpu_barrier_in_a_macro_is_a_new_ordering() -> None:
    assert _findings("arch/qux/include/asm/pgtable.h", _SET_ENTRY) == [(43, "mb")]


def test_a_barrier_only_respelt_in_place_is_still_not_new() -> None:
    respelt = _SET_ENTRY.replace("-\t\tbarrier();", "-\t\tqux_mb();")
    assert _findings("arch/qux/include/asm/pgtable.h", respelt.replace("qux_mb", "smp_mb")) == []
