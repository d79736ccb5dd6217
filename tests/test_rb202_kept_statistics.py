"""RB202 leaves statistics the code keeps alone (issue 23's fourth first-look batch, first4: a GPU driver's new
devfreq support adds ktime_get() stamps whose differences it sums into busy and idle time for the governor, and a
dev_dbg() of the utilization; the reader labelled it 0, the rule's one false alarm on 168 patches).

A delta accumulated into a structure's member is the feature: it is kept and reported, not printed once to get
a number. The same delta kept in a local variable and printed is still a harness. Our own example.
"""

from __future__ import annotations

from reviewbot.engine import check_patch
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.rule import RuleContext

_RULES = load_rules(entry_points=False, select=["RB202"])
_KEPT = [
    "+static void qux_account(struct qux_gpu *gpu)",
    "+{",
    "+\tktime_t now = ktime_get();",
    "+",
    "+\tif (gpu->running)",
    "+\t\tgpu->stats.busy += ktime_sub(now, gpu->stats.since);",
    "+\telse",
    "+\t\tgpu->stats.idle += ktime_sub(now, gpu->stats.since);",
    "+\tgpu->stats.since = now;",
    '+\tdev_dbg(gpu->dev, "busy %lld idle %lld\\n", gpu->stats.busy, gpu->stats.idle);',
    "+}",
]


def _findings(lines: list[str]) -> list[str]:
    hunk = "\n".join(lines)
    path = "drivers/gpu/qux/qux_devfreq.c"
    raw = (
        "From: Ada Example <ada@example.org>\nMessage-ID: <ks-1@example.org>\nSubject: [PATCH] qux: add devfreq\n"
        "Date: Mon, 10 Mar 2025 10:00:00 +0100\n\nAdd devfreq.\n\nSigned-off-by: Ada Example <ada@example.org>\n---\n"
        f"diff --git a/{path} b/{path}\nnew file mode 100644\nindex 0000000..2222222\n--- /dev/null\n+++ b/{path}\n"
        f"@@ -0,0 +1,{len(lines)} @@\n{hunk}\n-- \n2.43.0\n"
    )
    patch = parse_patch(parse_rfc822(raw.encode(), "test"))
    return [f.rule_id for f in check_patch(patch, _RULES, RuleContext()).findings]


def test_busy_and_idle_time_kept_in_the_device_are_no_harness() -> None:
    assert _findings(_KEPT) == []


def test_the_same_delta_in_a_local_and_printed_is_a_harness() -> None:
    local = [
        line.replace("gpu->stats.busy += ", "busy = ").replace("gpu->stats.busy,", "busy,") if "busy" in line else line
        for line in _KEPT
    ]
    local.insert(2, "+\tktime_t busy = 0;")
    assert _findings(local) == ["RB202"]
