"""RB202's step "sure" and its averages (issue 26's seventh first-look reading, r7: 14 lists never read).

A fresh maintainer said NO to all four RB202 drafts of r7: each quoted a new driver's own diagnostics (a debug
dump of sensor edges, a dev_dbg() of how long a chip took to answer, a list of frames stuck in firmware) or a
boot message, and called it "the timing code used to get the numbers" of patches that gave no numbers. So:

- a harness found in a file the patch adds whole, in a debug print, or in a print the patch moves (its removed
  lines hold it) stays a finding that is not drafted (``details["unsure"]``);
- an average divides by the sample counter; "size / SZ_1M" next to an array indexed by a static "count" is a
  unit, no average;
- the question no longer says the code got "the numbers": the patch may give none.

Our own examples, modelled on those kinds.
"""

from __future__ import annotations

from reviewbot.engine import check_patch
from reviewbot.models import UNSURE_KEY, Finding
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.rule import RuleContext
from reviewbot.rules import rb202_measurement_code as rb202

_RULES = load_rules(entry_points=False, select=["RB202"])
_PATH = "drivers/misc/qux/qux_core.c"


def _check(body: str, *, new_file: bool = False) -> list[Finding]:
    n_old = body.count("\n-") + body.count("\n ") + (body.startswith((" ", "-")))
    n_new = body.count("\n+") + body.count("\n ") + (body.startswith(("+", " ")))
    header = (
        f"new file mode 100644\nindex 0000000..2222222\n--- /dev/null\n+++ b/{_PATH}\n@@ -0,0 +1,{n_new} @@\n"
        if new_file
        else f"index 1111111..2222222 100644\n--- a/{_PATH}\n+++ b/{_PATH}\n@@ -10,{n_old} +10,{n_new} @@\n"
    )
    raw = (
        "From: Ada Example <ada@example.org>\nMessage-ID: <sure-1@example.org>\nSubject: [PATCH] qux: load faster\n"
        "Date: Mon, 10 Mar 2025 10:00:00 +0100\n\nLoad the firmware in one go.\n\n"
        "Signed-off-by: Ada Example <ada@example.org>\n---\n"
        f"diff --git a/{_PATH} b/{_PATH}\n{header}{body}\n-- \n2.43.0\n"
    )
    patch = parse_patch(parse_rfc822(raw.encode(), "test"))
    return list(check_patch(patch, _RULES, RuleContext()).findings)


def _function(signature: str, added: list[str]) -> str:
    """A hunk body: an existing function ``signature`` whose body is the ``added`` lines."""
    return "\n".join([f" {signature}", " {", *(f"+\t{line}" if line else "+" for line in added), " }"])


def _timed(print_call: str) -> str:
    added = [
        "ktime_t t0 = ktime_get();",
        "int ret = qux_send(q);",
        f'{print_call}(q->dev, "load took %lld us\\n", ktime_us_delta(ktime_get(), t0));',
        "return ret;",
    ]
    return _function("static int qux_load(struct qux *q)", added)


def test_a_harness_added_to_existing_code_is_sure() -> None:
    (found,) = _check(_timed("dev_info"))
    assert found.rule_id == "RB202" and UNSURE_KEY not in found.details


def test_a_harness_in_a_new_file_stays_a_finding_not_drafted() -> None:
    body = "\n".join(
        line.replace(" ", "+", 1) if line.startswith(" ") else line for line in _timed("dev_info").split("\n")
    )
    (found,) = _check(body, new_file=True)
    assert found.details[UNSURE_KEY] == rb202.UNSURE_NEW_FILE


def test_a_debug_print_of_a_delta_stays_a_finding_not_drafted() -> None:
    (found,) = _check(_timed("dev_dbg"))
    assert found.details[UNSURE_KEY] == rb202.UNSURE_DEBUG


def test_a_moved_print_stays_a_finding_not_drafted() -> None:
    moved = '\tdev_info(q->dev, "load took %lld us\\n", ktime_us_delta(ktime_get(), t0));'
    body = _timed("dev_info").replace(" {\n", " {\n-" + moved + "\n", 1)
    (found,) = _check(body)
    assert found.details[UNSURE_KEY] == rb202.UNSURE_MOVED


def _counted(divided: str) -> str:
    added = [
        "static unsigned int pool_count;",
        "static u64 total_ns;",
        "",
        "pools[pool_count++] = *pool;",
        f'pr_info("pool %s: %llu\\n", pools[pool_count - 1].name, {divided});',
        "return 0;",
    ]
    return _function("static int qux_add_pool(struct qux_pool *pool)", added)


def test_an_average_divides_by_the_counter() -> None:
    (found,) = _check(_counted("total_ns / pool_count"))
    assert found.details["kind"] == "average of static counters"
    assert [f.rule_id for f in _check(_counted("div_u64(total_ns, pool_count)"))] == ["RB202"]


def test_a_size_in_units_beside_a_counted_array_is_no_average() -> None:
    assert _check(_counted("(unsigned long)pool->size / SZ_1M")) == []


def test_the_question_claims_no_numbers() -> None:
    text = rb202.reply(_check(_timed("dev_info")), None)  # type: ignore[arg-type]
    assert "timing" in text and "numbers" not in text
