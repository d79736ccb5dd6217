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


# The line between kept and printed, in one step (issue 23's sixth first-look batch, first6: a block cache's GC
# keeps its cost in a member, from local_clock() stamps, to size its sleep, and a pr_info() on every run prints
# the average cost per node; the reader labelled it 1, the rule saw only statistics). A time kept in a member is
# statistics; the same time, or an average of it, printed to the log on every run is measuring output. A debug
# print (dev_dbg, above) stays the statistic's. Our own example: two hunks, as the stamps and the print sit in
# different functions.
_TWO_HUNKS = [
    "+static u64 qux_pause(struct qux_scan *scan)",
    "+{",
    "+\tu64 now = local_clock();",
    "+",
    "+\tscan->spent = now > scan->begin",
    "+\t\t? now - scan->begin : 0;",
    "+\treturn scan->spent / 4;",
    "+}",
]
_PRINTED = [
    "+\tscan.begin = local_clock();",
    "+\tqux_walk(&scan);",
    "+\tscan.per_item = scan.spent / scan.items;",
    '+\tpr_info("scan of %llu items, %lluns per item\\n",',
    "+\t\tscan.items, scan.per_item);",
]


def _findings_two(first: list[str], second: list[str]) -> list[str]:
    path = "drivers/md/qux/scan.c"
    raw = (
        "From: Ada Example <ada@example.org>\nMessage-ID: <ks-2@example.org>\nSubject: [PATCH] qux: pace the scan\n"
        "Date: Mon, 10 Mar 2025 10:00:00 +0100\n\nPace the scan.\n\nSigned-off-by: Ada Example <ada@example.org>\n"
        f"---\ndiff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n--- a/{path}\n+++ b/{path}\n"
        f"@@ -10,0 +11,{len(first)} @@\n" + "\n".join(first) + "\n"
        f"@@ -80,0 +90,{len(second)} @@ static void qux_scan_all(struct qux *q)\n"
        + "\n".join(second)
        + "\n-- \n2.43.0\n"
    )
    patch = parse_patch(parse_rfc822(raw.encode(), "test"))
    return [f.rule_id for f in check_patch(patch, _RULES, RuleContext()).findings]


def test_a_kept_time_averaged_and_logged_on_every_run_is_a_harness() -> None:
    assert _findings_two(_TWO_HUNKS, _PRINTED) == ["RB202"]


def test_the_same_time_kept_and_not_logged_is_statistics() -> None:
    assert _findings_two(_TWO_HUNKS, _PRINTED[:3]) == []
    # printed at debug level (off unless enabled), it is still the statistic's own view
    debug = [line.replace("pr_info(", "pr_debug(") for line in _PRINTED]
    assert _findings_two(_TWO_HUNKS, debug) == []
