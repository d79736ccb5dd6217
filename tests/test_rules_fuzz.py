"""No rule raises on arbitrary hunks or commit messages (hypothesis), and scanning stays linear."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from reviewbot.cutil import member_names, scan_lines
from reviewbot.models import Address, DiffLine, FileDiff, Hunk, LineKind, Message, Patch
from reviewbot.parse.subject import parse_subject
from reviewbot.registry import load_rules
from reviewbot.rule import RuleContext

RULES = load_rules(entry_points=False)
C_BITS = st.sampled_from(
    [
        "smp_mb();",
        "/*",
        "*/",
        "//",
        '"',
        "'",
        "\\",
        "struct foo {",
        "};",
        "} __randomize_layout;",
        "u32 a;",
        "int (*fn)(void);",
        'pr_info("%llu", t1 - t0);',
        "t0 = get_cycles();",
        "{",
        "}",
        "static int count;",
        "/* Pairs with smp_rmb() in foo() */",
        "dma_wmb();",
        "x",
        " ",
        "\t",
        "(",
        ")",
        ";",
        "smp_store_release(&a, 1);",
    ]
)
LINE = st.lists(C_BITS, max_size=6).map(" ".join)
KIND = st.sampled_from([LineKind.ADDED, LineKind.REMOVED, LineKind.CONTEXT, LineKind.MARKER])


@st.composite
def patches(draw):
    lines = draw(st.lists(st.tuples(KIND, LINE), max_size=40))
    old = new = 1
    out = []
    for kind, text in lines:
        if kind is LineKind.ADDED:
            out.append(DiffLine(kind, text, None, new))
            new += 1
        elif kind is LineKind.REMOVED:
            out.append(DiffLine(kind, text, old, None))
            old += 1
        elif kind is LineKind.CONTEXT:
            out.append(DiffLine(kind, text, old, new))
            old += 1
            new += 1
        else:
            out.append(DiffLine(kind, " No newline at end of file", None, None))
    section = draw(st.sampled_from(["", "struct foo {", "static void foo(void)", "union bar {"]))
    hunk = Hunk("@@ -1 +1 @@", 1, old - 1, 1, new - 1, section, tuple(out))
    path = draw(st.sampled_from(["drivers/x.c", "include/linux/x.h", "arch/x86/include/asm/barrier.h", "Makefile"]))
    body = draw(st.text(max_size=300))
    title = draw(st.sampled_from(["foo: speed up bar", "foo: fix", "", "optimise the fast path"]))
    msg = Message("fuzz@x", parse_subject(f"[PATCH] {title}"), Address("A", "a@x"), None, body=body)
    return Patch(msg, body, files=(FileDiff(path, path, path, (hunk,)),))


@settings(max_examples=300, deadline=None)
@given(patches())
def test_rules_never_raise(patch) -> None:
    for rule in RULES:
        findings = list(rule.check(patch, RuleContext(strict=True)))
        rule.reply(findings, patch)


@given(st.lists(LINE, max_size=30))
def test_scan_lines_total(lines) -> None:
    scans = scan_lines(lines)
    assert len(scans) == len(lines)
    for line in lines:
        member_names(line)


def test_pathological_lines_complete() -> None:
    """Long unterminated literals, comment-opener runs, huge claims: every regex is linear, so this returns.

    (A catastrophic-backtracking regex would make this test hang rather than fail;
    benchmarks/eval_rules.py prints the real throughput.)
    """
    nasty = [
        '"' + "\\x" * 20000,
        "/*" * 20000,
        "'" * 20000,
        "a" * 50000 + ";",
        "//" + "/*" * 10000,
        "\tstruct " + "a " * 20000 + "{",
        "\tu32 " + "x, " * 20000 + "y;",
        "smp_mb" + " " * 20000 + "x",
        "reduce " + "the " * 20000 + "overhead",
        "1" * 30000 + " -> " + "2" * 30000 + " bytes",
    ]
    scans = scan_lines(nasty * 3)
    assert len(scans) == len(nasty) * 3
    for line in nasty:
        member_names(line)
    body = "\n".join(nasty)
    lines = tuple(DiffLine(LineKind.ADDED, t, None, i + 1) for i, t in enumerate(nasty))
    hunk = Hunk("@@ -0,0 +1 @@", 0, 0, 1, len(lines), "struct foo {", lines)
    msg = Message("nasty@x", parse_subject("[PATCH] speed up " + "x" * 5000), Address("A", "a@x"), None, body=body)
    patch = Patch(msg, body, files=(FileDiff("a.c", "a.c", "a.c", (hunk,)),))
    for rule in RULES:
        rule.reply(list(rule.check(patch, RuleContext(strict=True))), patch)
