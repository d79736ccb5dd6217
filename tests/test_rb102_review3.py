"""RB102 on kinds a third reviewer found on the whole LKML mirror (/work/tools/review3.md): the KCSAN
boot-time selftest (kernel/kcsan/selftest.c), whose barriers are what it tests, not uses that pair; and a
barrier cut out into a new helper together with the statement beside it, which is moved, not new."""

from __future__ import annotations

from reviewbot.engine import check_patch
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.rule import RuleContext

RULE = next(r for r in load_rules(entry_points=False) if r.id == "RB102")


def findings_for(name: str) -> list:
    path = RULE.examples_dir / name
    patch = parse_patch(parse_rfc822(path.read_bytes(), str(path)))
    return list(check_patch(patch, [RULE], RuleContext(strict=True)).findings)


def test_kcsan_selftest_barriers_are_under_test() -> None:
    assert findings_for("good-barrier-in-kcsan-selftest.patch") == []


def test_a_barrier_added_elsewhere_in_kcsan_is_still_a_use() -> None:
    # the same added smp_rmb() in kernel/kcsan/core.c is asked about: only the selftest file is exempt
    path = RULE.examples_dir / "good-barrier-in-kcsan-selftest.patch"
    text = path.read_bytes().replace(b"kernel/kcsan/selftest.c", b"kernel/kcsan/core.c")
    patch = parse_patch(parse_rfc822(text, "core.patch"))
    findings = check_patch(patch, [RULE], RuleContext(strict=True)).findings
    assert [(f.path, f.line, f.details["barrier"]) for f in findings] == [("kernel/kcsan/core.c", 23, "smp_rmb")]


def test_barrier_moved_into_a_helper_beside_its_statement_is_not_new() -> None:
    # "qux_trace_seq++; smp_mb(); qt->state = QUX_RUNNING;" leaves qux_trace_startstop() (which stays) for
    # the new qux_trace_start(): the barrier orders the same accesses as before
    assert findings_for("good-barrier-moved-into-helper-beside-its-statement.patch") == []


def test_barrier_moved_into_a_helper_with_new_statements_around_it_is_asked_about() -> None:
    # the same patch with both statements beside the barrier rewritten in the helper: it orders other
    # accesses now, so it is new code whose pairing must be stated
    path = RULE.examples_dir / "good-barrier-moved-into-helper-beside-its-statement.patch"
    text = path.read_bytes()
    text = text.replace(b"+\tqux_trace_seq++;\n", b"+\tWRITE_ONCE(qt->seq, ++qux_trace_seq);\n")
    text = text.replace(b"+\tqt->state = QUX_RUNNING;\n", b"+\tWRITE_ONCE(qt->state, QUX_RUNNING);\n")
    patch = parse_patch(parse_rfc822(text, "rewritten.patch"))
    findings = check_patch(patch, [RULE], RuleContext(strict=True)).findings
    assert [(f.path, f.line, f.details["barrier"]) for f in findings] == [("drivers/qux/trace.c", 49, "smp_mb")]
