"""``reviewbot check`` on the shared cases C18-C33 (issue 12): mail and diffs read as ``git am`` reads them.

Each case file is read as bytes from tests/data/cases (the ``data_dir``
fixture) and checked by the real command in-process; the JSON report (validated
against the shipped schema) shows how the mail was read: author, title, counter,
files and the +/- line counts. The expected values are those of each case's
``.expected.md``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from reviewbot.cli import main
from helpers import validate_json_report

ADA = {"name": "Ada Example", "email": "ada@example.org"}


def _parsed(path: Path):
    """The one message of ``path`` parsed as a patch, hunks included (a check run keeps none)."""
    from reviewbot.checking import read_input
    from reviewbot.parse.mail import parse_message
    from reviewbot.parse.patch import parse_patch

    (item,) = read_input(str(path))
    return parse_patch(parse_message(item.raw))


def check(*args: str, stdin: bytes | None = None):
    return CliRunner().invoke(main, ["check", *args], input=stdin, catch_exceptions=False)


def check_json(*args: str, stdin: bytes | None = None) -> tuple[int, dict, str]:
    res = check("--format", "json", *args, stdin=stdin)
    doc = json.loads(res.stdout)
    validate_json_report(doc)
    return res.exit_code, doc, res.stderr


def read(doc: dict) -> list[tuple]:
    """Each patch as (author, title, counter, files, added, removed, lines)."""
    return [
        (p["author"], p["title"], p["counter"], p["files"], p["added"], p["removed"], p["lines"])
        for p in doc["patches"]
    ]


@pytest.fixture
def cases(data_dir: Path, isolated_env: Path) -> Path:
    return data_dir / "cases"  # a byte copy of ../shared/cases (tests/test_data_fixtures.py checks it)


# ------------------------------------------------------------------ C18: bare diffs


def test_c18_bare_diff_is_checked_like_checkpatch(cases: Path) -> None:
    case = str(cases / "C18.diff")
    code, doc, err = check_json(case)
    assert (code, err, doc["problems"], doc["findings"]) == (0, "", [], [])
    assert read(doc) == [(None, None, None, ["f.c"], 1, 1, 2)]
    res = check(case)
    assert res.exit_code == 0
    assert "total: 0 errors, 0 warnings, 0 checks, 2 lines checked\n" in res.stdout


def test_c18_bare_diff_on_stdin(cases: Path) -> None:
    code, doc, err = check_json("-", stdin=(cases / "C18.diff").read_bytes())
    assert (code, err) == (0, "")
    assert read(doc) == [(None, None, None, ["f.c"], 1, 1, 2)]


BARE_FORMATS = {
    # diff -u / hg diff: no "diff --git" line, "---"/"+++" with timestamps
    "plain.diff": "--- f.c.orig\t2025-03-10 10:00:00\n+++ f.c\t2025-03-10 10:01:00\n@@ -1 +1,2 @@\n int a;\n+\tsmp_mb();\n",
    # svn / cvs
    "svn.diff": "Index: f.c\n===================================================================\n--- f.c\t(revision 1)\n"
    "+++ f.c\t(working copy)\n@@ -1 +1,2 @@\n int a;\n+\tsmp_mb();\n",
    # git show: the commit header and an indented message before the diff
    "show.diff": "commit 1111111111111111111111111111111111111111\nAuthor: Ada Example <ada@example.org>\n"
    "Date:   Mon Mar 10 10:00:00 2025 +0100\n\n    foo: make it 10% faster\n\ndiff --git a/f.c b/f.c\n"
    "index 1111111..2222222 100644\n--- a/f.c\n+++ b/f.c\n@@ -1 +1,2 @@\n int a;\n+\tsmp_mb();\n",
}


@pytest.mark.parametrize("name", sorted(BARE_FORMATS))
def test_other_bare_diff_formats_run_the_diff_rules_only(isolated_env: Path, name: str) -> None:
    """Every bare format: the barrier rule finds the smp_mb(); no commit-message rule runs (the
    git show message claims a speed-up without numbers, which RB201 would report in a mail)."""
    (isolated_env / name).write_text(BARE_FORMATS[name])
    code, doc, err = check_json(name)
    assert (code, err) == (1, "")
    assert read(doc) == [(None, None, None, ["f.c"], 1, 0, 2)]
    assert [(f["rule"], f["file"], f["line"]) for f in doc["findings"]] == [("RB102", "f.c", 2)]


# ------------------------------------------------------------------ C19/C09: a patch sent as a reply


def test_c19_reply_with_inbody_headers_is_a_patch(cases: Path) -> None:
    from reviewbot.checking import check_messages, load_check_rules, read_input

    code, doc, err = check_json(str(cases / "C19.eml"))
    assert (code, err, doc["notes"], doc["findings"]) == (0, "", [], [])
    assert read(doc) == [(ADA, "foo: fix bar without a second lookup", None, ["foo.c"], 1, 1, 4)]
    (cp,) = check_messages(read_input(str(cases / "C19.eml")), load_check_rules()).patches
    assert cp.patch.commit_message == "Does this work for you instead?\n\nSigned-off-by: Ada Example <ada@example.org>"
    # the run keeps the patch without its hunks (a batch lets each diff go once reviewed): read them from the parser
    assert [fd.path for fd in cp.patch.files] == ["foo.c"] and cp.lines_checked == 4
    assert [h.header for h in _parsed(cases / "C19.eml").files[0].hunks] == ["@@ -1,3 +1,3 @@"]


def test_c09_reply_without_inbody_headers_stays_a_reply(cases: Path) -> None:
    code, doc, err = check_json(str(cases / "C09.eml"))
    assert (code, doc["patches"], doc["summary"]["skipped"]) == (0, [], 1)


# ------------------------------------------------------------------ C20/C24: in-body From:


@pytest.mark.parametrize("name", ["C20.eml", "C24.eml"])
def test_c20_c24_inbody_from_is_the_author(cases: Path, name: str) -> None:
    from reviewbot.checking import check_messages, load_check_rules, read_input

    code, doc, err = check_json(str(cases / name))
    assert (code, err, doc["findings"]) == (0, "", [])
    assert read(doc) == [(ADA, "foo: fix bar", None, ["foo.c"], 1, 1, 2)]
    (cp,) = check_messages(read_input(str(cases / name)), load_check_rules()).patches
    assert cp.patch.commit_message == "Fix bar.\n\nSigned-off-by: Ada Example <ada@example.org>"
    assert [h.header for h in _parsed(cases / name).files[0].hunks] == ["@@ -1 +1 @@"]


# ------------------------------------------------------------------ C21/C28: cover letters


@pytest.mark.parametrize("name,counter", [("C21.mbox", None), ("C28.mbox", [1, 1])])
def test_c21_c28_cover_letter_answers_the_speedup_claim(cases: Path, name: str, counter) -> None:
    code, doc, err = check_json(str(cases / name))
    assert (code, err, doc["findings"], doc["problems"]) == (0, "", [], [])
    assert read(doc) == [(ADA, "foocache: Speed up cache entry creation", counter, ["fs/foocache.c"], 7, 8, 27)]
    assert doc["summary"]["skipped"] == 0  # the cover is no skipped message
    res = check(str(cases / name))
    assert "skipped" not in res.stdout and res.exit_code == 0


def test_c21_thread_root_by_someone_else_is_no_cover(cases: Path, isolated_env: Path) -> None:
    """A bug report answered with a patch: the report is not the patch's cover, so the claim is unanswered."""
    data = (
        (cases / "C21.mbox")
        .read_bytes()
        .replace(
            b"From: Ada Example <ada@example.org>\nDate: Mon, 10 Mar 2025 10:00:00 +0100\nSubject: foocache: faster",
            b"From: Bob Reporter <bob@example.org>\nDate: Mon, 10 Mar 2025 10:00:00 +0100\nSubject: foocache: faster",
            1,
        )
    )
    assert b"Bob Reporter" in data
    (isolated_env / "report.mbox").write_bytes(data)
    code, doc, _ = check_json("report.mbox")
    assert code == 1
    assert [f["rule"] for f in doc["findings"]] == ["RB201"]
    assert doc["summary"]["skipped"] == 1


def test_c28_mercurial_counters(cases: Path) -> None:
    from reviewbot.parse.subject import parse_subject

    cover = parse_subject("[PATCH 0 of 1] foocache: faster entry creation")
    assert (cover.index, cover.total, cover.version, cover.tags, cover.title) == (
        0,
        1,
        1,
        ("PATCH",),
        "foocache: faster entry creation",
    )
    assert (parse_subject("[PATCH 1 of 1] x").index, parse_subject("[PATCH 3 of 12 v2] x").total) == (1, 12)


# ------------------------------------------------------------------ C22: a NUL in a charset name


def test_c22_invalid_charset_is_one_clear_error(cases: Path) -> None:
    res = check(str(cases / "C22.eml"))
    assert res.exit_code == 2
    assert res.stdout == ""
    assert res.stderr == (
        f"reviewbot check: {cases / 'C22.eml'}: message <1@example.org>: invalid charset 'u\\x00d' in "
        "Content-Type: the body cannot be decoded\n"
    )


def test_c22_in_an_mbox_the_other_messages_are_still_checked(cases: Path, isolated_env: Path) -> None:
    mbox = isolated_env / "mixed.mbox"
    mbox.write_bytes(
        b"From a@b Mon Mar 10 10:00:00 2025\n"
        + (cases / "C22.eml").read_bytes()
        + b"\nFrom a@b Mon Mar 10 10:00:00 2025\n"
        + (cases / "C31.eml").read_bytes()
    )
    code, doc, err = check_json(str(mbox))
    assert code == 2
    assert [p["message_id"] for p in doc["patches"]] == ["mixedprefix@example.org"]
    assert [f["rule"] for f in doc["findings"]] == ["RB102"]
    (problem,) = doc["problems"]
    assert problem["input"] == f"{mbox}:1" and "invalid charset 'u\\x00d'" in problem["error"]


# ------------------------------------------------------------------ C25: blank lines before the mbox


def test_c25_whitespace_lines_before_the_first_from_line(cases: Path) -> None:
    code, doc, err = check_json(str(cases / "C25.mbox"))
    assert (code, err, doc["findings"]) == (0, "", [])
    assert read(doc) == [
        (ADA, "foocache: allocate the entry before locking the bucket", None, ["fs/foocache.c"], 7, 8, 27)
    ]


# ------------------------------------------------------------------ C26: a bad hunk header


def test_c26_invalid_hunk_header_is_a_malformed_diff(cases: Path) -> None:
    case = cases / "C26.eml"
    res = check(str(case))
    assert (res.exit_code, res.stdout) == (2, "")
    assert res.stderr == (
        f"reviewbot check: {case}:14: message <badhunk@example.org>: malformed diff in foo.c: not a valid hunk "
        "header: '@@ -1, +1,2 @@'\n"
    )


def test_hunk_cut_off_at_the_end_is_exit_2_naming_input_file_and_line(isolated_env: Path) -> None:
    (isolated_env / "cut.patch").write_bytes(
        b"From: A <a@b.c>\nSubject: [PATCH] x\nMessage-ID: <cut@x>\n\nfix\n---\ndiff --git a/f b/f\n--- a/f\n"
        b"+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n"
    )
    res = check("cut.patch")
    assert (res.exit_code, res.stdout) == (2, "")
    assert res.stderr.startswith("reviewbot check: cut.patch:13: message <cut@x>: malformed diff in f: ")
    assert "cut off at the end" in res.stderr


# ------------------------------------------------------------------ C31: --- X / +++ X after diff --git


def test_c31_unprefixed_names_after_diff_git(cases: Path) -> None:
    code, doc, err = check_json(str(cases / "C31.eml"))
    assert (code, err, doc["problems"]) == (1, "", [])
    assert read(doc) == [(ADA, "foo: fix bar", None, ["foo.c"], 1, 0, 2)]
    assert [(f["rule"], f["file"], f["line"], f["input_line"]) for f in doc["findings"]] == [("RB102", "foo.c", 2, 16)]


# ------------------------------------------------------------------ C33: RE without a colon


def test_c33_re_without_colon_is_a_reply(cases: Path) -> None:
    from reviewbot.parse.subject import parse_subject

    case = str(cases / "C33.eml")
    code, doc, err = check_json(case)
    assert (code, err, doc["patches"], doc["findings"]) == (0, "", [], [])
    assert doc["notes"] == [f"{case}: a reply, not a patch submission: nothing to check"]
    s = parse_subject("RE [PATCH] foo: fix bar")
    assert (s.is_reply, s.tags, s.title) == (True, ("PATCH",), "foo: fix bar")
    assert parse_subject("[PATCH] re-add the foo").title == "re-add the foo"


# ------------------------------------------------------------------ kinds found in the peer suites


def test_mbox_separator_without_an_empty_line_before_it(isolated_env: Path) -> None:
    """git mailsplit splits at an envelope line that follows a signature directly (git's sample.mbox)."""
    one = b"From: A <a@b.c>\nSubject: [PATCH] a\n\nx\n---\ndiff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n-- \n2.1\n"
    (isolated_env / "s.mbox").write_bytes(
        b"From nobody Mon Sep 17 00:00:00 2001\n"
        + one
        + b"From nobody Mon Sep 17 00:00:00 2001\n"
        + one.replace(b"[PATCH] a", b"[PATCH] b")
    )
    code, doc, _ = check_json("s.mbox")
    assert code == 0
    assert [p["title"] for p in doc["patches"]] == ["a", "b"]


def test_text_before_a_bare_diff_is_skipped(isolated_env: Path) -> None:
    """git's t4100 patches start with "<sha> (from <sha>)": git apply and checkpatch skip such lines."""
    (isolated_env / "t.patch").write_text(
        "418aaf847a8b (from dc93841715df)\ndiff --git a/f.c b/f.c\n--- a/f.c\n+++ b/f.c\n@@ -1 +1,2 @@\n int a;\n"
        "+\tsmp_mb();\n"
    )
    code, doc, _ = check_json("t.patch")
    assert code == 1
    assert read(doc) == [(None, None, None, ["f.c"], 1, 0, 2)]


def test_quoted_file_names_are_unquoted_as_git_does(isolated_env: Path) -> None:
    (isolated_env / "q.diff").write_text(
        'diff --git "a/A \\303\\242 B.c" "b/A \\303\\242 B.c"\n--- "a/A \\303\\242 B.c"\n+++ "b/A \\303\\242 B.c"\n'
        "@@ -1 +1 @@\n-a\n+b\n"
    )
    code, doc, _ = check_json("q.diff")
    assert (code, doc["patches"][0]["files"]) == (0, ["A â B.c"])


def test_colon_after_the_prefix_is_not_part_of_the_title() -> None:
    from reviewbot.parse.subject import parse_subject

    s = parse_subject("[Patch 2/2]: powerpc/mm: fix it")
    assert (s.title, s.index, s.total) == ("powerpc/mm: fix it", 2, 2)


def test_file_header_without_any_hunk_is_malformed(isolated_env: Path) -> None:
    """``@@@ -1,1 +1,1 @@`` is no hunk header: git apply finds no patch; never "0 lines checked, ready"."""
    (isolated_env / "n.patch").write_bytes(
        b"From: A <a@b.c>\nSubject: [PATCH] x\nMessage-ID: <n@x>\n\nx\n---\n--- a/b4/junk.py\n+++ b/b4/junk.py\n"
        b"@@@ -1,1 +1,1 @@ def junk():\n \n-junk1\n+junk2\n"
    )
    res = check("n.patch")
    assert (res.exit_code, res.stdout) == (2, "")
    assert res.stderr == (
        "reviewbot check: n.patch:8: message <n@x>: malformed diff in b4/junk.py: a file header without any hunk "
        "(no '@@ -N,M +N,M @@' line)\n"
    )
    # a git diff of a new empty file has no hunk and is fine
    (isolated_env / "e.patch").write_bytes(
        b"From: A <a@b.c>\nSubject: [PATCH] x\nMessage-ID: <e@x>\n\nx\n---\ndiff --git a/e b/e\nnew file mode 100644\n"
        b"index 0000000..e69de29\n"
    )
    assert check("e.patch").exit_code == 0


def test_mime_boundary_eats_the_last_empty_context_line(isolated_env: Path) -> None:
    """The line end before a MIME boundary belongs to the boundary (RFC 2046), so a part ending in an empty
    context line loses it; git am and patchwork read such a patch (patchwork's 0019-multipart-patch.mbox)."""
    (isolated_env / "m.eml").write_bytes(
        b"From: A <a@b.c>\nSubject: [PATCH] x\nMessage-ID: <m@x>\nMIME-Version: 1.0\nContent-Type: multipart/"
        b'alternative; boundary="B"\n\n--B\nContent-Type: text/plain\n\nx\n---\ndiff --git a/f b/f\n--- a/f\n'
        b"+++ b/f\n@@ -1,2 +1,2 @@\n-a\n+b\n\n\n--B\nContent-Type: text/html\n\n<p>x</p>\n--B--\n"
    )
    code, doc, _ = check_json("m.eml")
    assert code == 0
    assert read(doc) == [({"name": "A", "email": "a@b.c"}, "x", None, ["f"], 1, 1, 3)]
