"""Report formats of ``reviewbot check`` on hand-built results: exact text, terse, JSON v1, SARIF, b4.

The CheckRun here is built from the models directly (one patch to
kernel/sched/core.c with an uncommented smp_mb(), one commit-message
finding), so every formatter is pinned to exact output independent of the
parser and the rules; test_check_cli.py runs the same formats end to end.
"""

from __future__ import annotations

import importlib.resources
import json
from datetime import datetime, timezone

import pytest

from reviewbot.checking import CheckedPatch, CheckRun
from reviewbot.models import (
    Address,
    CheckReport,
    DiffLine,
    FileDiff,
    Finding,
    Hunk,
    LineKind,
    Message,
    Patch,
    RuleFailure,
    Severity,
    Subject,
)
from reviewbot.registry import LoadedRule
from reviewbot.report import (
    JSON_SCHEMA,
    b4_result,
    format_json,
    format_sarif,
    format_terse,
    format_text,
    reference_url,
    render,
)
from reviewbot.rule import RuleMeta, Scope
from helpers import validate_json_report, validate_sarif

RAW = (
    b"From: Ada Lovelace <ada@example.org>\n"  # 1
    b"Subject: [PATCH] sched: add a barrier\n"  # 2
    b"Date: Mon, 3 Mar 2025 10:00:00 +0000\n"  # 3
    b"Message-ID: <20250303100000.1-1-ada@example.org>\n"  # 4
    b"\n"  # 5
    b"Add the barrier the waker needs.\n"  # 6 (body line 1)
    b"\n"  # 7
    b"Signed-off-by: Ada Lovelace <ada@example.org>\n"  # 8
    b"---\n"  # 9
    b" kernel/sched/core.c | 1 +\n"  # 10
    b" 1 file changed, 1 insertion(+)\n"  # 11
    b"\n"  # 12
    b"diff --git a/kernel/sched/core.c b/kernel/sched/core.c\n"  # 13
    b"--- a/kernel/sched/core.c\n"  # 14
    b"+++ b/kernel/sched/core.c\n"  # 15
    b"@@ -40,2 +40,3 @@ void wake(void)\n"  # 16
    b" \tp->state = 1;\n"  # 17
    b"+\tsmp_mb();\n"  # 18
    b" \twake_up(p);\n"  # 19
)


def _rule(rid: str, name: str, severity: Severity, refs: tuple[str, ...]) -> LoadedRule:
    meta = RuleMeta(id=rid, name=name, summary=f"{name} summary", severity=severity, scope=Scope.HUNK, references=refs)
    doc = f"{name}.\n\nWhat it does\n    Flags {name}.\n\nWhy it matters\n    Reviewers ask for it.\n"
    return LoadedRule(meta, lambda p, c: (), lambda f, p: "", doc, f"tests.{name}", None)


RULES = (
    _rule("RB102", "barrier-without-comment", Severity.WARNING, ("Documentation/memory-barriers.txt",)),
    _rule("RB201", "missing-numbers", Severity.ERROR, ("https://docs.kernel.org/process/submitting-patches.html",)),
    _rule("RB301", "style-nit", Severity.CHECK, ()),
)


def _patch() -> Patch:
    hunk = Hunk(
        header="@@ -40,2 +40,3 @@ void wake(void)",
        old_start=40,
        old_len=2,
        new_start=40,
        new_len=3,
        section="void wake(void)",
        lines=(
            DiffLine(LineKind.CONTEXT, "\tp->state = 1;", 40, 40, input_line=12),
            DiffLine(LineKind.ADDED, "\tsmp_mb();", None, 41, input_line=13),
            DiffLine(LineKind.CONTEXT, "\twake_up(p);", 41, 42, input_line=14),
        ),
    )
    message = Message(
        message_id="20250303100000.1-1-ada@example.org",
        subject=Subject(raw="[PATCH] sched: add a barrier", title="sched: add a barrier", tags=("PATCH",)),
        from_addr=Address("Ada Lovelace", "ada@example.org"),
        date=datetime(2025, 3, 3, 10, tzinfo=timezone.utc),
        body=RAW.split(b"\n\n", 1)[1].decode(),
        body_start_line=6,
        notes=("sent with format=flowed; long lines may be re-wrapped",),
    )
    fd = FileDiff("kernel/sched/core.c", "kernel/sched/core.c", "kernel/sched/core.c", (hunk,))
    return Patch(message=message, commit_message="Add the barrier the waker needs.\n", files=(fd,))


def _run(*, failures: tuple[RuleFailure, ...] = (), strict: bool = False, name: str = "0001-sched.patch") -> CheckRun:
    patch = _patch()
    hunk = patch.files[0].hunks[0]
    f1 = Finding(
        "RB201",
        "missing-numbers",
        Severity.ERROR,
        "performance claim without numbers",
        message_id=patch.message_id,
        path=None,
        line=None,
        input_line=6,
        details={"claim": "faster"},
        fingerprint="aaaa",
    )
    f2 = Finding(
        "RB102",
        "barrier-without-comment",
        Severity.WARNING,
        "smp_mb() without a comment",
        message_id=patch.message_id,
        path="kernel/sched/core.c",
        line=41,
        lines=(41,),
        input_line=18,
        hunk=hunk,
        symbol="smp_mb",
        details={"barrier": "smp_mb"},
        fingerprint="bbbb",
    )
    cp = CheckedPatch(
        input=name,
        index=0,
        report=CheckReport(patch, (f1, f2), failures),
        offset=0,
        lines_checked=19,
        notes=patch.message.notes,
        data=RAW,
    )
    return CheckRun(patches=(cp,), rules=RULES, strict=strict)


def _clean_run() -> CheckRun:
    patch = _patch()
    cp = CheckedPatch(input="-", index=0, report=CheckReport(patch, ()), offset=0, lines_checked=19, data=RAW)
    return CheckRun(patches=(cp,), rules=RULES)


def test_text_is_checkpatch_shaped() -> None:
    assert format_text(_run()) == (
        "ERROR:RB201: performance claim without numbers\n"
        "#6: \n"
        "Add the barrier the waker needs.\n"
        "\n"
        "WARNING:RB102: smp_mb() without a comment\n"
        "#18: FILE: kernel/sched/core.c:41:\n"
        "+\tsmp_mb();\n"
        "\n"
        "total: 1 error, 1 warning, 0 checks, 19 lines checked\n"
        "\n"
        "NOTE: sent with format=flowed; long lines may be re-wrapped\n"  # the patch's own note, before its verdict
        "\n"
        "0001-sched.patch has review findings, please look at them before sending.\n"
    )


def test_text_clean_stdin_and_quiet() -> None:
    assert format_text(_clean_run()) == (
        "total: 0 errors, 0 warnings, 0 checks, 19 lines checked\n"
        "\n"
        "Your patch has no obvious review findings and is ready for submission.\n"
    )
    assert format_text(_clean_run(), quiet=True) == ""
    quiet = format_text(_run(), quiet=True)
    assert "NOTE:" not in quiet and "has review findings" not in quiet
    assert quiet.endswith("total: 1 error, 1 warning, 0 checks, 19 lines checked\n")


def test_terse_lines() -> None:
    assert format_terse(_run()) == (
        "0001-sched.patch:6: ERROR:RB201: performance claim without numbers\n"
        "0001-sched.patch:18: WARNING:RB102: smp_mb() without a comment\n"
    )
    assert format_terse(_clean_run()) == ""


def test_shipped_schema_file_is_the_schema() -> None:
    """reviewbot/data/check-report.schema.json (for tools that read our JSON) is JSON_SCHEMA itself."""
    text = importlib.resources.files("reviewbot").joinpath("data/check-report.schema.json").read_text("utf-8")
    assert json.loads(text) == JSON_SCHEMA
    assert JSON_SCHEMA["properties"]["version"] == {"const": 2}


def test_json_schema_v2() -> None:
    doc = json.loads(format_json(_run(failures=(RuleFailure("RB301", "x@y", "boom"),))))
    validate_json_report(doc)
    assert doc["version"] == 2
    patch = doc["patches"][0]
    assert {k: patch[k] for k in ("author", "title", "version", "counter", "files", "added", "removed", "commit")} == {
        "author": {"name": "Ada Lovelace", "email": "ada@example.org"},
        "title": "sched: add a barrier",
        "version": 1,
        "counter": None,
        "files": ["kernel/sched/core.c"],
        "added": 1,
        "removed": 0,
        "commit": None,
    }
    assert doc["summary"] == {
        "errors": 1,
        "warnings": 1,
        "checks": 0,
        "patches": 1,
        "lines": 19,
        "skipped": 0,
        "strict": False,
    }
    assert doc["findings"][1] == {
        "rule": "RB102",
        "name": "barrier-without-comment",
        "severity": "warning",
        "message": "smp_mb() without a comment",
        "file": "kernel/sched/core.c",
        "line": 41,
        "lines": [41],
        "input": "0001-sched.patch",
        "input_line": 18,
        "message_id": "20250303100000.1-1-ada@example.org",
        "subject": "[PATCH] sched: add a barrier",
        "fingerprint": "bbbb",
        "details": {"barrier": "smp_mb"},
    }
    assert doc["findings"][0]["file"] is None and doc["findings"][0]["input_line"] == 6
    assert doc["patches"][0]["notes"] == ["sent with format=flowed; long lines may be re-wrapped"]


def test_sarif_validates_and_maps_levels() -> None:
    doc = json.loads(format_sarif(_run(failures=(RuleFailure("RB301", "x@y", "boom"),))))
    validate_sarif(doc)
    run = doc["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == ["RB102", "RB201", "RB301"]
    assert rules[0]["helpUri"] == (
        "https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/tree/Documentation/memory-barriers.txt"
    )
    assert rules[0]["fullDescription"]["text"] == "Flags barrier-without-comment. Reviewers ask for it."
    assert [r["defaultConfiguration"]["level"] for r in rules] == ["warning", "error", "note"]
    res = run["results"]
    assert [(r["ruleId"], r["level"], r["ruleIndex"]) for r in res] == [("RB201", "error", 1), ("RB102", "warning", 0)]
    assert res[1]["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "kernel/sched/core.c"},
        "region": {"startLine": 41},
    }
    assert res[0]["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "0001-sched.patch"},
        "region": {"startLine": 6},
    }
    assert res[1]["properties"]["inputLine"] == 18
    inv = run["invocations"][0]
    assert inv["executionSuccessful"] is False
    assert any("RB301 crashed" in n["message"]["text"] for n in inv["toolExecutionNotifications"])


def test_sarif_schema_rejects_a_broken_log() -> None:
    doc = json.loads(format_sarif(_run()))
    doc["runs"][0]["results"][0]["level"] = "fatal"
    with pytest.raises(AssertionError):
        validate_sarif(doc)


def test_b4_result() -> None:
    res = b4_result(_run())
    assert set(res) == {"tool", "status", "summary", "url", "details"}
    assert (res["tool"], res["status"], res["summary"]) == ("reviewbot", "fail", "1 error, 1 warning")
    assert res["url"] == "https://docs.kernel.org/process/submitting-patches.html"
    details = json.loads(res["details"])
    assert details[0] == {
        "status": "fail",
        "description": "ERROR:RB201: performance claim without numbers",
        "srcline": "Add the barrier the waker needs.",
    }
    assert details[1] == {
        "status": "warn",
        "description": "WARNING:RB102: smp_mb() without a comment (kernel/sched/core.c:41)",
        "srcline": "+\tsmp_mb();",
    }
    assert details[2]["status"] == "pass" and "format=flowed" in details[2]["description"]
    clean = json.loads(render(_clean_run(), "b4"))
    assert clean == [{"tool": "reviewbot", "status": "pass", "summary": "passed all checks", "url": "", "details": ""}]
    assert json.loads(render(CheckRun(patches=(), rules=RULES), "b4")) == []  # nothing to report


def test_reference_url() -> None:
    assert reference_url("https://lore.kernel.org/r/x@y") == "https://lore.kernel.org/r/x@y"
    assert reference_url("Documentation/process/submitting-patches.rst#describe-your-changes").endswith(
        "tree/Documentation/process/submitting-patches.rst"
    )
    assert reference_url("memory-barriers.txt section 4") is None


def test_fails_thresholds() -> None:
    run = _run()
    assert run.fails("error") and run.fails("warning") and run.fails("check")
    assert not _clean_run().fails("check")
    only_warning = CheckRun(
        patches=(
            CheckedPatch(
                input="x",
                index=0,
                report=CheckReport(run.patches[0].patch, (run.findings[1],)),
                offset=0,
                lines_checked=1,
            ),
        )
    )
    assert not only_warning.fails("error") and only_warning.fails("warning")
