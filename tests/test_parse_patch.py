"""parse_patch: the git-am split, trailers, notes/diffstat and the diff mapped to our types."""

from __future__ import annotations

import pytest

from reviewbot.errors import ParseError
from reviewbot.models import DiffLine, LineKind
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import find_embedded_diff, is_submission, parse_patch, split_trailers


def msg(body: str, subject: str = "[PATCH] foo: bar", extra: str = ""):
    data = (
        f"From: Ada Example <ada@example.org>\nSubject: {subject}\nMessage-ID: <p1@example.org>\n{extra}\n" + body
    ).encode("utf-8")
    return parse_rfc822(data, "test.patch")


DIFF = (
    "diff --git a/lib/x.c b/lib/x.c\n"
    "index 1111111..2222222 100644\n"
    "--- a/lib/x.c\n"
    "+++ b/lib/x.c\n"
    "@@ -10,4 +10,5 @@ static int x(void)\n"
    " \ta = 1;\n"
    "-\tb = 2;\n"
    "+\tb = 3;\n"
    "+\tc = 4;\n"
    "\n"
    " \treturn a;\n"
)


def test_full_format_patch_split():
    body = (
        "Explain the change.\n"
        "\n"
        "Second paragraph.\n"
        "\n"
        'Fixes: 0123456789ab ("lib: add x")\n'
        "Reported-by: Bob <bob@example.net>\n"
        "Closes: https://lore.kernel.org/r/abc@example.net\n"
        "Signed-off-by: Ada Example <ada@example.org>\n"
        "---\n"
        "v2: reworded\n"
        "\n"
        " lib/x.c | 3 ++-\n"
        " 1 file changed, 2 insertions(+), 1 deletion(-)\n"
        "\n" + DIFF + "-- \n2.43.0\n\n"
    )
    m = msg(body)
    p = parse_patch(m)
    assert p.commit_message == body.split("\n---\n")[0]
    assert p.commit_start_line == 5  # 3 headers + empty line
    assert [(t.key, t.input_line) for t in p.trailers] == [
        ("Fixes", 9),
        ("Reported-by", 10),
        ("Closes", 11),
        ("Signed-off-by", 12),
    ]
    assert p.notes.startswith("v2: reworded")
    assert p.diffstat == " lib/x.c | 3 ++-\n 1 file changed, 2 insertions(+), 1 deletion(-)"
    (f,) = p.files
    assert (f.path, f.old_path, f.new_path, f.status) == ("lib/x.c", "lib/x.c", "lib/x.c", "modified")
    (h,) = f.hunks
    assert (h.old_start, h.old_len, h.new_start, h.new_len, h.section) == (10, 4, 10, 5, "static int x(void)")
    assert [(line.kind.value, line.old_no, line.new_no) for line in h.lines] == [
        (" ", 10, 10),
        ("-", 11, None),
        ("+", None, 11),
        ("+", None, 12),
        (" ", 12, 13),
        (" ", 13, 14),
    ]
    assert h.lines[4].text == ""  # an empty context line whose space the mailer ate
    assert h.lines[0].input_line == f.header_input_line + 5
    assert p.warnings == ()
    assert is_submission(p) and p.has_diff


def test_new_deleted_renamed_binary_files():
    diff = (
        "diff --git a/new.c b/new.c\nnew file mode 100644\nindex 0000000..1111111\n"
        "--- /dev/null\n+++ b/new.c\n@@ -0,0 +1,2 @@\n+int a;\n+int b;\n"
        "diff --git a/old.c b/old.c\ndeleted file mode 100644\nindex 1111111..0000000\n"
        "--- a/old.c\n+++ /dev/null\n@@ -1 +0,0 @@\n-int a;\n"
        "diff --git a/from.c b/to.c\nsimilarity index 90%\nrename from from.c\nrename to to.c\n"
        "index 1111111..2222222 100644\n--- a/from.c\n+++ b/to.c\n@@ -1 +1 @@\n-x\n+y\n"
        "diff --git a/img.png b/img.png\nindex 1111111..2222222 100644\nBinary files a/img.png and b/img.png differ\n"
    )
    p = parse_patch(msg("Add things.\n\nSigned-off-by: A <a@b.cd>\n---\n" + diff))
    got = [(f.path, f.old_path, f.new_path, f.status, f.added_count, f.removed_count) for f in p.files]
    assert got == [
        ("new.c", None, "new.c", "added", 2, 0),
        ("old.c", "old.c", None, "deleted", 0, 1),
        ("to.c", "from.c", "to.c", "renamed", 1, 1),
        ("img.png", "img.png", "img.png", "binary", 0, 0),
    ]
    assert p.files[1].hunks[0].header == "@@ -1 +0,0 @@"
    assert (p.files[1].hunks[0].old_len, p.files[1].hunks[0].new_len) == (1, 0)


def test_plain_unified_diff_without_git_header():
    diff = "--- linux/a.c.orig\t2025-01-01\n+++ linux/a.c\t2025-01-02\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
    p = parse_patch(msg("Hand-made.\n\n" + diff))
    assert [f.path for f in p.files] == ["linux/a.c"]
    assert p.commit_message == "Hand-made."
    p = parse_patch(msg("CVS style.\n\nIndex: a.c\n===\n--- a.c\n+++ a.c\n@@ -1 +1 @@\n-b\n+c\n"))
    assert [f.path for f in p.files] == ["a.c"]
    assert p.commit_message == "CVS style."


def test_separator_with_trailing_space_and_no_diffstat():
    p = parse_patch(msg("Text.\n\nSigned-off-by: A <a@b.cd>\n---  \n" + DIFF))
    assert p.commit_message == "Text.\n\nSigned-off-by: A <a@b.cd>"
    assert p.notes == "" and p.diffstat == ""
    assert p.files[0].added_count == 2


def test_cover_letter_and_plain_reply_have_no_files():
    cover = parse_patch(
        msg(
            "This series does things.\n\nAda Example (2):\n  a\n  b\n\n lib/x.c | 3 ++-\n\n-- \n2.43.0\n",
            subject="[PATCH v2 0/2] things",
        )
    )
    assert cover.files == () and not cover.has_diff
    assert cover.commit_message.endswith(" lib/x.c | 3 ++-")
    assert "2.43.0" not in cover.commit_message
    reply = parse_patch(
        msg(
            "On Mon, Ada wrote:\n> diff --git a/x b/x\n> --- a/x\n> +++ b/x\n> @@ -1 +1 @@\n> -a\n> +b\n\nLooks good.\n",
            subject="Re: [PATCH] foo: bar",
        )
    )
    assert reply.files == () and reply.warnings == ()
    assert not is_submission(reply)


def test_broken_diff_in_a_patch_raises_naming_message_and_line():
    broken = DIFF.replace("+\tc = 4;\n", "")  # the hunk is now one line short
    with pytest.raises(ParseError) as ei:
        parse_patch(msg("Text.\n---\n" + broken + "trailing words\n"))
    err = ei.value
    assert "p1@example.org" in str(err)
    assert err.line is not None and err.line >= 6
    assert "malformed diff" in str(err)
    with pytest.raises(ParseError, match="p1@example.org"):
        parse_patch(msg("Text.\n---\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\nnot a diff line\n"))


def test_broken_diff_in_a_reply_is_skipped_with_a_warning():
    broken = DIFF.replace("+\tc = 4;\n", "") + "Thanks,\nBob\n"
    p = parse_patch(msg("How about:\n" + broken, subject="Re: [PATCH] foo: bar"))
    assert p.files == ()
    assert any("malformed diff ignored" in w for w in p.warnings)


def test_crlf_patch_file_and_missing_final_newline():
    data = (
        b"From: A <a@b.cd>\r\nSubject: [PATCH] x\r\nMessage-ID: <c@d>\r\n\r\nT.\r\n---\r\n"
        + DIFF.encode().replace(b"\n", b"\r\n")
    ).rstrip(b"\r\n")
    p = parse_patch(parse_rfc822(data, "crlf.patch"))
    (h,) = p.files[0].hunks
    assert [line.text for line in h.lines][-1] == "\treturn a;"
    assert all("\r" not in line.text for line in h.lines)


def test_trailer_rules():
    lines = [
        "Body.",
        "",
        "Signed-off-by: A <a@b.cd>",
        "  continued",
        "[ bp: fixed typo ]",
        "Cc: stable@vger.kernel.org # 6.1+",
    ]
    got = split_trailers(lines, 10)
    assert [(t.key, t.value, t.input_line) for t in got] == [
        ("Signed-off-by", "A <a@b.cd> continued", 12),
        ("Cc", "stable@vger.kernel.org # 6.1+", 15),
    ]
    # a prose paragraph with a colon is not a trailer block
    assert (
        split_trailers(
            ["Note: this is prose, and more prose follows here", "and here", "and here", "and here", "and here"]
        )
        == ()
    )
    # one known trailer among a few other lines still counts (>= 25 %)
    mixed = split_trailers(["Signed-off-by: A <a@b.cd>", "random text", "more text"])
    assert [t.key for t in mixed] == ["Signed-off-by"]
    assert split_trailers([]) == ()
    assert split_trailers(["", ""]) == ()


def test_embedded_diff_helper_on_clean_patch_is_none():
    p = parse_patch(msg("Text.\n\nSigned-off-by: A <a@b.cd>\n---\n" + DIFF))
    assert find_embedded_diff(p) is None


def test_embedded_diff_with_diff_git_header():
    body = "Example:\n\ndiff --git a/x b/x\n\nSigned-off-by: A <a@b.cd>\n---\n" + DIFF
    p = parse_patch(msg(body))
    assert [f.path for f in p.files] == ["lib/x.c"]
    assert [t.key for t in p.trailers] == ["Signed-off-by"]
    assert len(p.warnings) == 1 and "line 7" in p.warnings[0]


def test_patch_without_tag_and_not_a_reply_is_a_submission():
    p = parse_patch(msg("Text.\n---\n" + DIFF, subject="lib: fix x"))
    assert is_submission(p)
    p2 = parse_patch(msg("Text.\n---\n" + DIFF, subject="lib: fix x", extra="In-Reply-To: <q@r>\n"))
    assert not is_submission(p2)


def test_marker_after_hunk_end_and_input_lines():
    diff = "diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file\n"
    p = parse_patch(msg("T.\n---\n" + diff))
    lines = p.files[0].hunks[0].lines
    assert [line.raw for line in lines] == ["-x", "\\ No newline at end of file", "+y", "\\ No newline at end of file"]
    assert [line.kind for line in lines] == [LineKind.REMOVED, LineKind.MARKER, LineKind.ADDED, LineKind.MARKER]
    assert lines[2].new_no == 1
    assert lines[3].input_line == lines[2].input_line + 1


def test_diff_lines_are_the_values_diffline_builds():
    """The reader builds DiffLines without DiffLine's own __new__: each must equal the one built by
    field name (a field added to DiffLine, or one moved, fails here), markers and archive lines too."""
    from reviewbot.parse.patch import parse_diff

    diff = [
        "diff --git a/a b/a",
        "--- a/a",
        "+++ b/a",
        "@@ -1,3 +1,3 @@ f",
        " keep",
        "-mail ada@...mple.org",
        "+mail ada@...mple.com",
        "",
        "\\ No newline at end of file",
        "@@ -9 +9 @@",
        "-x",
        "+y",
        "\\ No newline at end of file",
    ]
    hunks = parse_diff(diff, 0, 10, obfuscated=True)[0].hunks
    got = [line for h in hunks for line in h.lines]
    want = [
        DiffLine(kind=LineKind.CONTEXT, text="keep", old_no=1, new_no=1, input_line=14, altered=False),
        DiffLine(
            kind=LineKind.REMOVED, text="mail ada@...mple.org", old_no=2, new_no=None, input_line=15, altered=True
        ),
        DiffLine(kind=LineKind.ADDED, text="mail ada@...mple.com", old_no=None, new_no=2, input_line=16, altered=True),
        DiffLine(kind=LineKind.CONTEXT, text="", old_no=3, new_no=3, input_line=17, altered=False),
        DiffLine(kind=LineKind.MARKER, text=" No newline at end of file", old_no=None, new_no=None, input_line=18),
        DiffLine(kind=LineKind.REMOVED, text="x", old_no=9, new_no=None, input_line=20, altered=False),
        DiffLine(kind=LineKind.ADDED, text="y", old_no=None, new_no=9, input_line=21, altered=False),
        DiffLine(kind=LineKind.MARKER, text=" No newline at end of file", old_no=None, new_no=None, input_line=22),
    ]
    assert got == want
    assert all(type(line) is DiffLine and line.kind is w.kind for line, w in zip(got, want))
    assert [len(h.lines) for h in hunks] == [5, 3]


def test_soft_wrapped_diff_is_retried_unflowed():
    # what an archive page shows for a format=flowed patch: wrapped, stuffed, nothing undone
    body = (
        "Text.\n---\n"
        "diff --git a/Documentation/a_rather_long_directory_name/file.txt \n"
        "b/Documentation/a_rather_long_directory_name/file.txt\n"
        "--- a/Documentation/a_rather_long_directory_name/file.txt\n"
        "+++ b/Documentation/a_rather_long_directory_name/file.txt\n"
        "@@ -1,2 +1,2 @@\n"
        "  first\n"
        "-old line that was long enough to be wrapped by the \n"
        "mail client\n"
        "+new\n"
    )
    p = parse_patch(msg(body))
    (f,) = p.files
    assert f.path == "Documentation/a_rather_long_directory_name/file.txt"
    assert [line.raw for line in f.hunks[0].lines] == [
        " first",
        "-old line that was long enough to be wrapped by the mail client",
        "+new",
    ]
    assert any("format=flowed" in w for w in p.warnings)
    assert p.message.body == msg(body).body  # the message itself is untouched


def test_trailing_empty_context_lines_dropped_by_the_archive():
    """The archive page drops empty lines at the end of a message: for archive text they are put back."""
    from dataclasses import replace

    body = "Text.\n---\ndiff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1,3 +1,4 @@\n a\n+b\n c\n"
    p = parse_patch(replace(msg(body), obfuscated=True))
    lines = p.files[0].hunks[0].lines
    assert [line.raw for line in lines] == [" a", "+b", " c", " "]
    assert lines[-1].new_no == 4


def test_hunk_cut_off_at_the_end_of_a_mail_is_an_error_naming_the_line():
    """A mail or file is read as git apply reads it ("corrupt patch"): no line is invented."""
    body = "Text.\n---\ndiff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1,3 +1,4 @@\n a\n+b\n c\n"
    with pytest.raises(ParseError) as err:
        parse_patch(msg(body))
    assert err.value.line == 13
    assert "malformed diff in a: " in str(err.value) and "cut off at the end" in str(err.value)


def test_inbody_header_block_as_git_mailinfo_reads_it():
    """C24's kind: folded with a space or a TAB, preceded by empty lines, after a ``>From <sha>`` line,
    a ``[PATCH] title`` line; the block ends at the empty line after it or at the first other line."""
    from reviewbot.parse.patch import read_inbody_headers

    sha = ">From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001"
    assert read_inbody_headers(["", "", sha, "From: Ada", "\t<ada@example.org>", "subject: [PATCH] t", "", "Fix."]) == (
        {"from": "Ada\n\t<ada@example.org>", "subject": "[PATCH] t"},
        7,
    )
    assert read_inbody_headers(["[PATCH] fix it", "", "Body."]) == ({"subject": "[PATCH] fix it"}, 2)
    assert read_inbody_headers(["Date: Mon, 10 Mar 2025", "Fix."]) == ({"date": "Mon, 10 Mar 2025"}, 1)
    # each header once: a second From: is the commit message's first line
    assert read_inbody_headers(["From: A <a@b.c>", "From: B <b@c.d>"]) == ({"from": "A <a@b.c>"}, 1)
    assert read_inbody_headers(["On Mon, Ada wrote:", "> x"]) == ({}, 0)
    p = parse_patch(
        msg("From: Ada Example\n <ada@example.org>\nSubject: [PATCH v2 2/3] foo: real title\n\nFix.\n---\n" + DIFF)
    )
    assert (p.message.from_addr.email, p.subject.title, p.subject.version, p.commit_message) == (
        "ada@example.org",
        "foo: real title",
        2,
        "Fix.",
    )


BINARY = (
    "diff --git a/img.bin b/img.bin\n"
    "new file mode 100644\n"
    "index 0000000..1234567\n"
    "GIT binary patch\n"
    "literal 2\n"
    "JcmZQzU|;|Q00aO4\n"
)


def test_binary_patch_read_as_git_apply_reads_it():
    """Each literal/delta block ends with an empty line; without it git apply says "corrupt binary patch"."""
    p = parse_patch(msg("Add an image.\n---\n" + BINARY + "\nliteral 0\nHcmV?d00001\n\n-- \n2.43.0\n"))
    assert [(f.path, f.status) for f in p.files] == [("img.bin", "binary")]
    with pytest.raises(ParseError) as err:
        parse_patch(msg("Add an image.\n---\n" + BINARY + "\nliteral 0\nHcmV?d00001\n"))
    assert "malformed diff in img.bin: binary patch cut off" in str(err.value)
    assert err.value.line == 15
    with pytest.raises(ParseError) as err:
        parse_patch(msg("Add an image.\n---\n" + BINARY.replace("JcmZQzU|;|Q00aO4", "JcmZQzU|") + "\n"))
    assert "corrupt binary patch data" in str(err.value) and err.value.line == 12


def test_inbody_from_without_an_address_leaves_no_author():
    """git mailinfo gives no author for an in-body ``From:`` without an e-mail address (git am refuses it)."""
    p = parse_patch(msg("From: the build team\n\nFix.\n---\n" + DIFF))
    assert p.message.from_addr is None
    assert any("in-body From: 'the build team' has no e-mail address" in n for n in p.message.notes)
    assert p.files[0].path == "lib/x.c"


QUILT = """From: Ada <ada@example.org>
Message-ID: <q@example.org>
Subject: [PATCH] s390: bitops: use the generic ffs
Date: Mon, 1 Oct 2007 10:00:00 +0200

Use the generic version.

Signed-off-by: Ada <ada@example.org>
---
Index: linux-2.6/arch/s390/include/asm/bitops.h
===================================================================
--- linux-2.6.orig/arch/s390/include/asm/bitops.h
+++ linux-2.6/arch/s390/include/asm/bitops.h
@@ -1,2 +1,2 @@
 int a;
-int b;
+int c;
--- a/linux/kernel/sched/core.c
+++ b/linux/kernel/sched/core.c
@@ -1,1 +1,2 @@
 int d;
+int e;
"""


def test_quilt_tree_folder_is_not_part_of_the_path() -> None:
    """quilt's ``linux-2.6.orig/`` / ``linux-2.6/`` and a -p2 ``a/linux/`` name kernel paths; the
    findings must name the path as it is in the tree (and the file is modified, not renamed)."""
    p = parse_patch(parse_rfc822(QUILT.encode(), "quilt.patch"))
    assert [(f.path, f.old_path, f.status) for f in p.files] == [
        ("arch/s390/include/asm/bitops.h", "arch/s390/include/asm/bitops.h", "modified"),
        ("kernel/sched/core.c", "kernel/sched/core.c", "modified"),
    ]


def test_other_projects_paths_stay() -> None:
    """blktests' ``tests/block/001`` and a ``linux/`` header folder are no tree folders."""
    text = (
        QUILT.replace("linux-2.6.orig/arch/s390/include/asm/bitops.h", "a/tests/block/001")
        .replace("linux-2.6/arch/s390/include/asm/bitops.h", "b/tests/block/001")
        .replace("a/linux/kernel/sched/core.c", "a/include/linux/kernel.h")
        .replace("b/linux/kernel/sched/core.c", "b/include/linux/kernel.h")
    )
    p = parse_patch(parse_rfc822(text.encode(), "p.patch"))
    assert [f.path for f in p.files] == ["tests/block/001", "include/linux/kernel.h"]
