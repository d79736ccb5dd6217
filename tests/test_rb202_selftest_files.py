"""RB202 leaves an in-kernel self-test facility alone: it measures on purpose (held-out linux-modules patch
adding kernel/kallsyms_selftest.c, whose timing prints were the rule's one false alarm on 273 patches).
The same harness in an ordinary kernel file is still reported."""

from __future__ import annotations

from reviewbot.engine import check_patch
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.rule import RuleContext

_RULES = load_rules(entry_points=False, select=["RB202"])
_HARNESS = [
    "+static void test_lookup(void)",
    "+{",
    "+\tunsigned long flags;",
    "+\tu64 t0, t1;",
    "+",
    "+\tlocal_irq_save(flags);",
    "+\tt0 = sched_clock();",
    '+\tlookup_name("vmap");',
    "+\tt1 = sched_clock();",
    "+\tlocal_irq_restore(flags);",
    '+\tpr_info("lookup vmap: %lld ns\\n", t1 - t0);',
    "+}",
]


def _findings(path: str) -> list[str]:
    hunk = "\n".join(_HARNESS)
    raw = (
        "From: Ada Example <ada@example.org>\nMessage-ID: <st-1@example.org>\nSubject: [PATCH] x: add lookup test\n"
        "Date: Mon, 10 Mar 2025 10:00:00 +0100\n\nAdd a test.\n\nSigned-off-by: Ada Example <ada@example.org>\n---\n"
        f"diff --git a/{path} b/{path}\nnew file mode 100644\nindex 0000000..2222222\n--- /dev/null\n+++ b/{path}\n"
        f"@@ -0,0 +1,{len(_HARNESS)} @@\n{hunk}\n-- \n2.43.0\n"
    )
    patch = parse_patch(parse_rfc822(raw.encode(), "test"))
    return [f.rule_id for f in check_patch(patch, _RULES, RuleContext()).findings]


def test_a_self_test_file_measures_on_purpose() -> None:
    assert _findings("kernel/kallsyms_selftest.c") == []
    assert _findings("lib/foo-selftest.c") == []


def test_the_same_harness_in_kernel_code_is_reported() -> None:
    assert _findings("kernel/kallsyms.c") == ["RB202"]
