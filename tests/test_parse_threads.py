"""assign_threads / group_series, and the local mail readers feeding them (mbox, Maildir, dirs, stdin, git)."""

from __future__ import annotations

import mailbox
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import CASES
from reviewbot.errors import InputError
from reviewbot.fetch.mailfiles import git_format_patch, read_bytes, read_path, split_mbox_bytes
from reviewbot.parse.mail import parse_message, parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.parse.threads import assign_threads, group_series


def mk(mid: str, subject: str, irt: str | None = None, refs: str = "", body: str = "text\n"):
    head = f"From: A <a@b.cd>\nSubject: {subject}\nMessage-ID: <{mid}>\n"
    if irt:
        head += f"In-Reply-To: <{irt}>\n"
    if refs:
        head += "References: " + " ".join(f"<{r}>" for r in refs.split()) + "\n"
    return parse_rfc822((head + "\n" + body).encode(), mid)


DIFF = "---\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"


# ------------------------------------------------------------------ threads


def test_threads_nearest_known_ancestor():
    a = mk("a@x", "[PATCH 0/2] s")
    b = mk("b@x", "[PATCH 1/2] s", irt="a@x", refs="a@x")
    c = mk("c@x", "Re: [PATCH 1/2] s", irt="b@x", refs="a@x b@x")
    d = mk("d@x", "Re: [PATCH 1/2] s", irt="missing@x", refs="a@x b@x missing@x")  # parent not here
    e = mk("e@x", "other")
    t = assign_threads([c, d, b, a, e])
    assert t == {"a@x": "a@x", "b@x": "a@x", "c@x": "a@x", "d@x": "a@x", "e@x": "e@x"}


def test_threads_orphans_keyed_by_earliest_reference():
    r1 = mk("r1@x", "Re: s", irt="p@x", refs="root@x p@x")
    r2 = mk("r2@x", "Re: s", irt="root@x")
    t = assign_threads([r1, r2])
    assert t == {"r1@x": "root@x", "r2@x": "root@x"}
    late_root = mk("root@x", "s")
    t2 = assign_threads([r1, r2, late_root])
    assert set(t2.values()) == {"root@x"}


def test_threads_cycles_and_self_references_terminate():
    a = mk("a@x", "s", irt="b@x")
    b = mk("b@x", "s", irt="a@x")
    s = mk("s@x", "s", irt="s@x")
    t = assign_threads([a, b, s])
    assert t["a@x"] == t["b@x"] and t["a@x"] in ("a@x", "b@x")
    assert t["s@x"] == "s@x"


def test_long_chain_is_not_recursive():
    msgs = [mk("m0@x", "s")] + [mk(f"m{i}@x", "Re: s", irt=f"m{i - 1}@x") for i in range(1, 5000)]
    t = assign_threads(reversed(msgs))
    assert set(t.values()) == {"m0@x"}


# ------------------------------------------------------------------ series


def test_series_versions_in_one_thread_are_separate():
    cover1 = parse_patch(mk("c1@x", "[PATCH 0/2] s"))
    p11 = parse_patch(mk("p11@x", "[PATCH 1/2] s", irt="c1@x", body=DIFF))
    cover2 = parse_patch(mk("c2@x", "[PATCH v2 0/2] s", irt="c1@x"))
    p21 = parse_patch(mk("p21@x", "[PATCH v2 1/2] s", irt="c2@x", refs="c1@x c2@x", body=DIFF))
    p22 = parse_patch(mk("p22@x", "[PATCH v2 2/2] s", irt="c2@x", refs="c1@x c2@x", body=DIFF))
    reply = parse_patch(mk("r@x", "Re: [PATCH v2 1/2] s", irt="p21@x", body=DIFF))
    single = parse_patch(mk("one@x", "[PATCH] lone", body=DIFF))
    out = group_series([cover1, p11, cover2, p21, p22, reply, single])
    assert [
        (s.version, s.total, s.cover.message_id if s.cover else None, [p.message_id for p in s.patches], s.missing)
        for s in out
    ] == [
        (1, 2, "c1@x", ["p11@x"], (2,)),
        (2, 2, "c2@x", ["p21@x", "p22@x"], ()),
        (1, 1, None, ["one@x"], ()),
    ]


def test_series_from_caller_threads_for_archive_messages():
    p1 = parse_patch(mk("zz1@x", "[PATCH 1/2] s", body=DIFF))
    p2 = parse_patch(mk("zz2@x", "[PATCH 2/2] s", body=DIFF))
    apart = group_series([p1, p2])
    assert len(apart) == 2
    together = group_series([p2, p1], threads={"zz1@x": "T", "zz2@x": "T"})
    assert len(together) == 1 and [p.message_id for p in together[0].patches] == ["zz1@x", "zz2@x"]


def test_unthreaded_git_send_email_run_is_one_series():
    p1 = parse_patch(mk("20250101120000.111-2-ada@example.org", "[PATCH 2/2] s", body=DIFF))
    p0 = parse_patch(mk("20250101120000.111-1-ada@example.org", "[PATCH 1/2] s", body=DIFF))
    (s,) = group_series([p1, p0])
    assert [p.message.subject.index for p in s.patches] == [1, 2]


def test_duplicate_index_keeps_first():
    a = parse_patch(mk("d1@x", "[PATCH 1/1] s", irt="t@x", body=DIFF))
    b = parse_patch(mk("d2@x", "[PATCH 1/1] s", irt="t@x", body=DIFF))
    (s,) = group_series([a, b])
    assert s.patches == (a,)


# ------------------------------------------------------------------ mail files


def test_mbox_split_unescapes_mboxo_and_keeps_bytes(tmp_path: Path):
    data = (
        b"From a@b Fri Mar 14 10:00:00 2025\nFrom: A <a@b.cd>\nSubject: one\nMessage-ID: <1@x>\n\n"
        b">From the start\nbare\rCR\n\n"
        b"From a@b Fri Mar 14 10:00:01 2025\nFrom: A <a@b.cd>\nSubject: two\nMessage-ID: <2@x>\n\n"
        b"From here without a date is body text\n"
    )
    f = tmp_path / "x.mbox"
    f.write_bytes(data)
    raws = list(read_path(f))
    assert [r.source for r in raws] == [f"{f}:1", f"{f}:2"]
    assert raws[0].data.endswith(b"\n\nFrom the start\nbare\rCR\n")
    one, two = (parse_message(r) for r in raws)
    assert one.body == "From the start\nbare\rCR\n"
    assert two.body == "From here without a date is body text\n"
    assert one.body_start_line == 6  # the envelope line counts


def test_format_patch_file_and_directory(tmp_path: Path):
    (tmp_path / "0002-b.patch").write_bytes((CASES / "C04.patch").read_bytes())
    (tmp_path / "0001-a.patch").write_bytes((CASES / "C01.patch").read_bytes())
    (tmp_path / "notes.txt").write_text("ignored")
    raws = list(read_path(tmp_path))
    assert [Path(r.source).name for r in raws] == ["0001-a.patch", "0002-b.patch"]
    assert raws[0].data == (CASES / "C01.patch").read_bytes()


def test_maildir(tmp_path: Path):
    md = mailbox.Maildir(tmp_path / "md", create=True)
    for case in ("C06.eml", "C07.eml"):
        md.add((CASES / case).read_bytes())
    raws = list(read_path(tmp_path / "md"))
    ids = sorted(parse_message(r).message_id for r in raws)
    assert ids == ["20250313081500.2020-1-ada@example.org", "5f3c2a10-77aa-4c1e-9b1d-0a1b2c3d4e5f@example.org"]


def test_stdin(tmp_path: Path):
    code = "import sys; from reviewbot.fetch.mailfiles import read_path; print([r.source for r in read_path('-')])"
    out = subprocess.run(
        [sys.executable, "-c", code], input=(CASES / "C10.mbox").read_bytes(), capture_output=True, check=True
    ).stdout
    assert out.decode().strip() == str([f"<stdin>:{i}" for i in range(1, 5)])
    out = subprocess.run(
        [sys.executable, "-c", code], input=(CASES / "C06.eml").read_bytes(), capture_output=True, check=True
    ).stdout
    assert out.decode().strip() == "['<stdin>']"


def test_input_errors_name_the_file(tmp_path: Path):
    with pytest.raises(InputError, match="nope.mbox"):
        list(read_path(tmp_path / "nope.mbox"))
    bad = tmp_path / "bad.patch"
    bad.write_bytes(b"@@ -1 +1 @@\n-a\n+b\n")
    with pytest.raises(InputError, match="bad.patch"):
        list(read_path(bad))
    empty = tmp_path / "empty.eml"
    empty.write_bytes(b"\n\n")
    with pytest.raises(InputError, match="empty.eml"):
        list(read_path(empty))
    with pytest.raises(InputError, match="emptydir"):
        (tmp_path / "emptydir").mkdir()
        list(read_path(tmp_path / "emptydir"))
    with pytest.raises(InputError, match="src"):
        split_mbox_bytes(b"Subject: x\n\nb\n", "src")
    with pytest.raises(InputError):
        list(read_bytes(b"", "nothing"))


def test_git_format_patch(tmp_path: Path):
    def git(*args):
        subprocess.run(
            ["git", *args],
            cwd=tmp_path,
            check=True,
            capture_output=True,
            env={
                "GIT_AUTHOR_NAME": "Ada",
                "GIT_AUTHOR_EMAIL": "ada@example.org",
                "GIT_COMMITTER_NAME": "Ada",
                "GIT_COMMITTER_EMAIL": "ada@example.org",
                "HOME": str(tmp_path),
                "PATH": "/usr/bin:/bin:/usr/local/bin",
            },
        )

    git("init", "-q")
    (tmp_path / "a.c").write_text("int a;\n")
    git("add", "a.c")
    git("commit", "-qm", "base")
    (tmp_path / "a.c").write_text("int a;\nint b;\n")
    git("commit", "-qam", "a: add b\n\nSigned-off-by: Ada <ada@example.org>")
    data = git_format_patch("HEAD~1..HEAD", tmp_path)
    (raw,) = list(read_bytes(data, "HEAD~1..HEAD"))
    p = parse_patch(parse_message(raw))
    assert p.message.subject.title == "a: add b"
    assert [(f.path, f.added_count) for f in p.files] == [("a.c", 1)]
    with pytest.raises(InputError, match="nonexistent"):
        git_format_patch("nonexistent..HEAD", tmp_path)
    with pytest.raises(InputError):
        git_format_patch("--output=/tmp/x", tmp_path)


def test_mbox_after_bom_or_empty_lines_is_still_split():
    c10 = (CASES / "C10.mbox").read_bytes()
    for prefix in (b"\xef\xbb\xbf", b"\n\n", b"\r\n"):
        raws = list(read_bytes(prefix + c10, "x.mbox"))
        assert len(raws) == 4
        assert parse_message(raws[0]).subject.is_cover_letter
