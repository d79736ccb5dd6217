"""RB102 on the kinds a third reviewer found on the whole LKML mirror (/work/tools/review3.md): a barrier
cut out into a new helper together with the statement beside it (the old function kept), and the KCSAN
boot-time selftest, whose barriers are what it tests."""

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


def test_barrier_moved_with_its_statement_into_a_new_helper_is_not_new() -> None:
    # the same hunk removes "zed_seq++; smp_mb();" and adds it in zed_bump_seq(); zed_setup() stays
    assert findings_for("good-barrier-moved-into-new-helper-with-its-statement.patch") == []


def test_barrier_in_a_new_helper_between_new_statements_is_still_new() -> None:
    # smp_rmb() removed from zed_recv(), but the lines around it in zed_get_cqe() are new: asked about
    findings = findings_for("bad-barrier-moved-into-new-helper.patch")
    assert [(f.path, f.line, f.details["barrier"]) for f in findings] == [("drivers/zed/cqe.c", 9, "smp_rmb")]


def test_kcsan_selftest_barriers_are_under_test() -> None:
    assert findings_for("good-barrier-in-kcsan-selftest.patch") == []
