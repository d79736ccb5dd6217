"""``reviewbot check`` on the shared cases (../shared/cases, read as bytes from there): what a developer sees.

Each test runs the real command in-process (click's runner) on a case file and
asserts the output a new user reported as wrong, in every format it shows up in.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import CASES
from reviewbot.cli import main


def run(*args: str):
    return CliRunner().invoke(main, ["check", *args], catch_exceptions=False)


# ------------------------------------------------------------------ C02: one problem, one report


def test_c02_embedded_diff_is_one_finding_without_a_repeating_note(isolated_env: Path) -> None:
    case = str(CASES / "C02.patch")
    res = run(case)
    assert res.exit_code == 1
    assert "NOTE:" not in res.stdout
    assert res.stdout.count("unindented diff") == 1
    assert res.stdout.startswith("ERROR:RB301: the commit message contains an unindented diff at line 9 ")
    assert "total: 1 error, 0 warnings, 0 checks, 6 lines checked\n" in res.stdout

    doc = json.loads(run("--format", "json", case).stdout)
    assert [(f["rule"], f["input_line"]) for f in doc["findings"]] == [("RB301", 9)]
    assert doc["patches"][0]["notes"] == []

    sarif = json.loads(run("--format", "sarif", case).stdout)
    assert "toolExecutionNotifications" not in sarif["runs"][0]["invocations"][0]
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["RB301"]


def test_c02_note_stays_when_rb301_does_not_run(isolated_env: Path) -> None:
    """Deselected or ignored, RB301 reports nothing: the parser's warning is then the only word on it."""
    case = str(CASES / "C02.patch")
    for flags in (("--ignore", "RB301"), ("--select", "RB101,RB102")):
        doc = json.loads(run("--format", "json", *flags, case).stdout)
        assert doc["findings"] == []
        (note,) = doc["patches"][0]["notes"]
        assert note.startswith("the commit message contains an unindented diff starting at line 9 ")
    res = run("--ignore", "RB301", case)
    assert res.exit_code == 0
    # the note sits in the patch's block between its total and its verdict, as checkpatch's NOTE lines do
    assert res.stdout.startswith(
        "total: 0 errors, 0 warnings, 0 checks, 6 lines checked\n\n"
        "NOTE: the commit message contains an unindented diff starting at line 9 "
    )
    assert res.stdout.endswith(
        f"indent the example or describe it in words\n\n{case} has no obvious review findings "
        "and is ready for submission.\n"
    )


def test_a_rule_claims_parse_warnings_by_code_not_checking_by_rule_id() -> None:
    """checking.py names no rule: RB301 claims the parser's ``embedded-diff`` warning through its RuleMeta."""
    import inspect

    import reviewbot.checking
    from reviewbot.parse.patch import WARN_EMBEDDED_DIFF
    from reviewbot.registry import load_rules

    (rb301,) = [r for r in load_rules(entry_points=False) if r.id == "RB301"]
    assert rb301.meta.claims == (WARN_EMBEDDED_DIFF,)
    assert "RB301" not in inspect.getsource(reviewbot.checking)


# ------------------------------------------------------------------ C04: the marker is not a line


def test_c04_no_newline_marker_is_not_a_checked_line(isolated_env: Path) -> None:
    """9 lines in the header's hunk (2 context, 3 -, 4 +) and 4 in stats.c: 13, the marker not among them."""
    case = str(CASES / "C04.patch")
    res = run("--strict", case)  # the unexplained swap is a CHECK (issue 10); --strict exits by what it prints
    assert res.exit_code == 1
    assert run(case).exit_code == 0  # without --strict the CHECK is not shown and fails nothing
    assert "total: 0 errors, 0 warnings, 1 check, 13 lines checked\n" in res.stdout
    assert "#23: FILE: drivers/foo/foo_stats.h:7:\n+\tu32 drops;\n+\tu32 errors;\n" in res.stdout
    doc = json.loads(run("--format", "json", case).stdout)
    assert (doc["summary"]["lines"], doc["patches"][0]["lines"]) == (13, 13)


# ------------------------------------------------------------------ C09: a reply is not a patch, nor an error


def test_c09_reply_is_nothing_to_check_in_every_format(isolated_env: Path) -> None:
    from helpers import validate_json_report, validate_sarif

    case = str(CASES / "C09.eml")
    note = f"{case}: a reply, not a patch submission: nothing to check"
    res = run(case)
    assert (res.exit_code, res.stdout, res.stderr) == (0, f"NOTE: {note}\n", "")
    assert "skipped" not in res.stdout  # the note says it all; no "message without a patch"

    res = run("--format", "json", case)
    assert res.exit_code == 0
    doc = json.loads(res.stdout)
    validate_json_report(doc)
    assert (doc["findings"], doc["patches"], doc["problems"], doc["notes"]) == ([], [], [], [note])
    assert doc["summary"]["skipped"] == 1

    res = run("--format", "sarif", case)
    assert res.exit_code == 0
    sarif = json.loads(res.stdout)
    validate_sarif(sarif)
    (invocation,) = sarif["runs"][0]["invocations"]
    assert sarif["runs"][0]["results"] == []
    assert invocation["executionSuccessful"] is True
    assert invocation["toolExecutionNotifications"] == [{"level": "note", "message": {"text": note}}]

    res = run("--format", "b4", case)
    assert res.exit_code == 0
    assert json.loads(res.stdout) == []  # b4's review check runner: nothing to report

    assert (run("--format", "terse", case).exit_code, run("--format", "terse", case).stdout) == (0, "")
    assert (run("-q", case).exit_code, run("-q", case).stdout) == (0, "")


def test_c09_on_stdin_names_standard_input(isolated_env: Path) -> None:
    res = CliRunner().invoke(main, ["check", "--format", "json", "-"], input=(CASES / "C09.eml").read_bytes())
    assert res.exit_code == 0
    assert json.loads(res.stdout)["notes"] == ["standard input: a reply, not a patch submission: nothing to check"]


def test_reply_beside_a_patch_is_counted_as_a_reply(isolated_env: Path) -> None:
    """An mbox with a patch and a reply: the reply carries a diff too, so it is "1 reply skipped"."""
    mbox = isolated_env / "thread.mbox"
    mbox.write_bytes(
        (CASES / "C04.patch").read_bytes()
        + b"\nFrom bob@kernel.example Tue Mar 11 15:20:00 2025\n"
        + (CASES / "C09.eml").read_bytes()
    )
    res = run("--strict", str(mbox))  # the patch's unexplained swap is a CHECK (issue 10), shown with --strict
    assert res.exit_code == 1
    assert res.stdout.endswith(
        "has review findings, please look at them before sending.\n\n(1 patch checked; 1 reply skipped)\n"
    )
    assert "without a patch" not in res.stdout and "NOTE:" not in res.stdout


@pytest.mark.parametrize(
    ("case", "patches"),
    [
        ("C10.mbox", "3 patches"),  # [PATCH0/3] and its three patches
        ("C28.mbox", "1 patch"),  # [PATCH 0 of 1]
        ("C21.mbox", "1 patch"),  # a cover letter without 0/N: the thread's root, read as the patch's cover
    ],
)
def test_a_cover_letter_is_said_to_be_read_with_its_series(isolated_env: Path, case: str, patches: str) -> None:
    """Every message is accounted for: a cover letter is neither checked nor skipped, and the last line says so."""
    res = run(str(CASES / case))
    assert res.stdout.endswith(f"\n\n({patches} checked; 1 cover letter read with its series)\n")


def test_every_message_of_an_mbox_is_checked_read_as_a_cover_letter_or_skipped() -> None:
    from reviewbot.checking import check_messages, load_check_rules, messages_from_bytes

    mbox = Path(__file__).parent / "data" / "mail" / "lkml-sample.mbox"
    items = messages_from_bytes(mbox.read_bytes(), str(mbox))
    run = check_messages(items, load_check_rules())
    assert (len(items), len(run.patches), run.covers, run.skipped, run.replies) == (165, 64, 15, 86, 85)
    assert len(run.patches) + run.covers + run.skipped == len(items) and not run.notes and not run.problems
    assert run.unsubmitted == 0


def test_a_diff_that_is_no_submission_is_counted_in_the_last_line(isolated_env: Path, shared_dir: Path) -> None:
    """A corpus message with a diff but no [PATCH] subject (a tip-bot commit notice) is named in a note and
    counted as skipped, so the last line adds up to the messages given."""
    (notice,) = [
        chunk
        for chunk in (shared_dir / "corpus" / "lkml-real.mbox").read_bytes().split(b"\nFrom ")
        if b"\nSubject: [tip:timers/core] clocksource/drivers: Continue making Hyper" in chunk
    ]
    mbox = isolated_env / "notice.mbox"
    mbox.write_bytes(b"From " + notice + b"\n" + (CASES / "C04.patch").read_bytes())
    res = run(str(mbox))
    assert "has a diff but is not a patch submission" in res.stdout
    assert res.stdout.endswith("(1 patch checked; 1 diff that is no submission skipped)\n")


def test_plain_mail_without_a_diff_and_non_mail_still_exit_2(isolated_env: Path) -> None:
    (isolated_env / "notes.txt").write_bytes(b"Subject: shopping\n\nmilk, eggs\n")
    res = run("notes.txt")
    assert (res.exit_code, res.stderr) == (2, "reviewbot check: notes.txt: no patch found: no message with a diff\n")
    (isolated_env / "empty.eml").write_bytes(b"")
    assert run("empty.eml").exit_code == 2
    (isolated_env / "list.eml").write_bytes(b"- milk\n- eggs\n")
    assert run("list.eml").exit_code == 2


# ------------------------------------------------------------------ C16/C17: a saved lists.openwall.net page


def test_c16_saved_blists_page_is_checked_like_a_mail(isolated_env: Path) -> None:
    from reviewbot.checking import check_messages, load_check_rules, read_input

    case = str(CASES / "C16.html")
    run_ = check_messages(read_input(case), load_check_rules())
    assert run_.problems == ()
    (cp,) = run_.patches
    assert cp.patch.message_id == "20250319090000.7070-1-ada@example.org"
    assert [f.path for f in cp.patch.files] == ["drivers/foo/debugfs.c"] and cp.line_counts() == (7, 1)
    # the run keeps the patch without its hunks (a batch lets each diff go once reviewed): read them from the parser
    from reviewbot.parse.mail import parse_message
    from reviewbot.parse.patch import parse_patch

    (fd,) = parse_patch(parse_message(read_input(case)[0].raw)).files
    assert fd.path == "drivers/foo/debugfs.c"
    assert [(h.old_start, h.old_len, h.new_start, h.new_len) for h in fd.hunks] == [(1, 5, 1, 6), (20, 5, 21, 10)]
    added = [dl.text for h in fd.hunks for dl in h.lines if dl.kind.value == "+"]
    removed = [dl.text for h in fd.hunks for dl in h.lines if dl.kind.value == "-"]
    assert (len(added), len(removed)) == (7, 1)
    assert "#include <linux/string.h>" in added
    assert "\t\t/* '&' becomes \"&amp;\" and '<' becomes \"&lt;\" */" in added
    assert cp.findings == () and cp.lines_checked == 17

    res = run(case)
    assert (res.exit_code, res.stderr) == (0, "")
    assert "total: 0 errors, 0 warnings, 0 checks, 17 lines checked\n" in res.stdout
    assert f"{case} has no obvious review findings" in res.stdout


def test_c17_obfuscated_lines_give_no_finding_and_a_note(isolated_env: Path) -> None:
    from helpers import validate_json_report

    case = str(CASES / "C17.html")
    res = run("--strict", case)
    assert (res.exit_code, res.stderr) == (0, "")
    assert res.stdout.startswith(
        "total: 0 errors, 0 warnings, 0 checks, 11 lines checked\n\n"
        "NOTE: e-mail addresses are obfuscated by the archive (user@...main: 3 characters dropped), so they are "
        "not real addresses; 4 diff lines holding one are marked altered: no finding is reported on them\n"
    )
    doc = json.loads(run("--strict", "--format", "json", case).stdout)
    validate_json_report(doc)
    assert doc["findings"] == [] and doc["summary"]["lines"] == 11
    (patch,) = doc["patches"]
    assert patch["message_id"] == "20250319100000.7171-1-ada@example.org"
    assert [n for n in patch["notes"] if "obfuscated by the archive" in n] == patch["notes"][:1]


def test_findings_on_altered_lines_only_are_dropped() -> None:
    """A rule that flags the archive's ``$@...p`` (a "Makefile typo") is not shown; one on real text is."""
    from reviewbot.review import drop_altered as _drop_altered
    from reviewbot.models import CheckReport, DiffLine, Finding, Hunk, LineKind, Severity

    hunk = Hunk(
        header="@@ -7,0 +7,2 @@",
        old_start=7,
        old_len=0,
        new_start=7,
        new_len=2,
        section="",
        lines=(
            DiffLine(LineKind.ADDED, "\tcmd = gen.sh > $@...p && mv $@...p $@", None, 7, 12, altered=True),
            DiffLine(LineKind.ADDED, "\tfoo-y += bar.o", None, 8, 13),
        ),
    )

    def finding(line: int) -> Finding:
        return Finding("RB999", "x", Severity.WARNING, "m", path="Makefile", line=line, lines=(line,), hunk=hunk)

    report = CheckReport(patch=None, findings=(finding(7), finding(8)))  # type: ignore[arg-type]
    assert [f.line for f in _drop_altered(report).findings] == [8]


def _page_with(tmp: Path, name: str, before_pre_end: str, drop_diff: bool = False) -> Path:
    html = (CASES / "C16.html").read_bytes()
    if drop_diff:
        start = html.index(b"\n---\n")
        html = html[:start] + b"\n" + html[html.index(b"</pre>") :]
    html = html.replace(b"</pre>", before_pre_end.encode() + b"</pre>", 1)
    out = tmp / name
    out.write_bytes(html)
    return out


ATTACHMENT = (
    '\n<span style="font-family: times;"><strong>View attachment "</strong><a href="1/1">0001-foo-fix.patch</a>'
    '<strong>" of type "</strong>text/x-patch<strong>" (230 bytes)</strong></span>\n'
)


def test_saved_page_attachment_links_are_noted(isolated_env: Path) -> None:
    page = _page_with(isolated_env, "with-attachment.html", ATTACHMENT)
    doc = json.loads(run("--format", "json", str(page)).stdout)
    assert doc["patches"][0]["notes"][-1] == (
        "the saved page links 1 attachment ('0001-foo-fix.patch'), which cannot be fetched from a saved page "
        "and is not checked"
    )
    only = _page_with(isolated_env, "attachment-only.html", ATTACHMENT, drop_diff=True)
    res = run(str(only))
    assert res.exit_code == 2
    assert res.stderr == (
        f"reviewbot check: {only}: no patch found: no message with a diff (the saved page links 1 attachment "
        "('0001-foo-fix.patch'), which cannot be fetched from a saved page: check the attachment file itself)\n"
    )


def test_other_html_is_not_a_mail(isolated_env: Path) -> None:
    (isolated_env / "index.html").write_bytes(b"<!DOCTYPE html>\n<html><body><p>hello</p></body></html>\n")
    res = run("index.html")
    assert res.exit_code == 2
    assert res.stderr.startswith("reviewbot check: index.html: an HTML page, not a mail or a saved lists.openwall.net")


def test_saved_reply_page_is_nothing_to_check(isolated_env: Path) -> None:
    html = (CASES / "C16.html").read_bytes().replace(b"Subject: [PATCH]", b"Subject: Re: [PATCH]", 1)
    page = isolated_env / "reply.html"
    page.write_bytes(html)
    res = run(str(page))
    assert (res.exit_code, res.stdout, res.stderr) == (
        0,
        f"NOTE: {page}: a reply, not a patch submission: nothing to check\n",
        "",
    )


def test_a_saved_index_page_among_the_inputs_is_a_note_and_the_findings_keep_their_status() -> None:
    # `check DAY/*.html` of a saved archive day holds the day's index.html: a list of messages, not a message.
    day = Path(__file__).parent / "data" / "openwall-mirror" / "linux-kernel" / "2019" / "06" / "24"
    index = str(day / "index.html")
    res = run(index, str(CASES / "C02.patch"))
    assert res.exit_code == 1  # C02's finding, not 2 for the index page
    assert res.stderr == ""
    assert f"NOTE: {index}: an index page of the archive (a list of messages), not a message: nothing to check" in (
        res.stdout
    )
    alone = run(index)
    assert alone.exit_code == 0
    assert alone.stdout.startswith(f"NOTE: {index}: an index page of the archive")


def test_a_mail_cut_inside_its_hunk_without_patch_in_its_subject_names_the_cut(isolated_env: Path) -> None:
    # read as a reply's half-quoted diff, the broken diff was skipped and the input "held no diff" (a new user's
    # report); the error says where the diff breaks
    (isolated_env / "cut.eml").write_text(
        "From: Ada Example <ada@example.org>\nMessage-ID: <cut-1@example.org>\nSubject: qux: drain the jobs\n"
        "Date: Mon, 10 Mar 2025 10:00:00 +0100\n\nDrain the jobs first.\n\nSigned-off-by: Ada Example "
        "<ada@example.org>\n---\ndiff --git a/drivers/misc/qux.c b/drivers/misc/qux.c\nindex 1111111..2222222 100644\n"
        "--- a/drivers/misc/qux.c\n+++ b/drivers/misc/qux.c\n@@ -10,4 +10,6 @@ static void qux_fini(struct qux *q)\n"
        " {\n+\tqux_drain(q);\n",
        encoding="utf-8",
    )
    res = run("cut.eml")
    assert res.exit_code == 2
    assert res.stderr.startswith("reviewbot check: cut.eml: no patch found: its diff cannot be read: line ")
    assert "malformed diff in drivers/misc/qux.c: Hunk is shorter than expected" in res.stderr


_TWO_FILES = (
    "From: Ada Example <ada@example.org>\nMessage-ID: <two-1@example.org>\nSubject: [PATCH] qux: drain the jobs\n"
    "Date: Mon, 10 Mar 2025 10:00:00 +0100\n\nDrain the jobs first.\n\nSigned-off-by: Ada Example <ada@example.org>\n"
    "---\ndiff --git a/drivers/misc/qux.c b/drivers/misc/qux.c\nindex 1111111..2222222 100644\n"
    "--- a/drivers/misc/qux.c\n+++ b/drivers/misc/qux.c\n@@ -10,4 +10,5 @@ static void qux_fini(struct qux *q)\n"
    " {\n+\tqux_drain(q);\n{tail}"
)


def test_a_hunk_cut_short_names_its_own_file_and_says_what_went_wrong(isolated_env: Path) -> None:
    # a new user's report: lines lost inside a hunk named the next file, and unidiff's "Hunk diff line expected"
    # repeated the line twice
    nxt = "diff --git a/drivers/misc/qux.h b/drivers/misc/qux.h\nindex 3333333..4444444 100644\n"
    (isolated_env / "lost.eml").write_text(_TWO_FILES.replace("{tail}", nxt), encoding="utf-8")
    res = run("lost.eml")
    assert res.exit_code == 2
    assert (
        "malformed diff in drivers/misc/qux.c: a hunk line starts with neither ' ', '+' nor '-': the hunk holds "
        in (res.stderr)
    )
    assert (
        "fewer lines than its @@ header counts" in res.stderr
        and res.stderr.count("diff --git a/drivers/misc/qux.h") == 1
    )
    (isolated_env / "sig.eml").write_text(_TWO_FILES.replace("{tail}", "-- \n2.50.1\n"), encoding="utf-8")
    res = run("sig.eml")
    assert res.exit_code == 2 and "so it ran into the signature ('-- ') (line '2.50.1')" in res.stderr
